"""map_answer: generated answers to multiple-choice questions mapped to an option (issue 31, item 2).

Checked against a table of real-looking generations (the forms chat models write under the
harnesses' prompts: lm-evaluation-harness's ``arc_challenge_chat``/``mmlu_generative``/flan CoT,
Inspect AI's ``ANSWER: X`` templates, HELM's joint method), properties for any label set, and
the tools' own parsers as oracles where their rules and ours claim the same thing: Inspect
AI's ``parse_answers`` (0.3.285) on ``ANSWER: X`` lines and lm-evaluation-harness's
``MultiChoiceRegexFilter`` (0.4.13) on a single ``(X)``.
"""

from __future__ import annotations

import re
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialwise as tw
from trialwise.io.logs.answers import UNMAPPED, answer_index, check_answer_pattern, option_letters

OPTIONS = ["Paris", "London", "Rome", "Madrid"]

#: (generated text, expected option index or None); options OPTIONS, labels A-D.
CASES = [
    # a lone label, in the forms models write it
    ("B", 1), (" B ", 1), ("B.", 1), ("(B)", 1), ("[B]", 1), ("B)", 1), ("b", 1), ("**B**", 1), ("$C$", 2),
    ("`D`", 3), ("'C'", 2), ("B\n", 1),
    # a label at the start, then its text (HELM joint method, the prompts' option lines)
    ("B. London", 1), ("B) London", 1), ("(B) London", 1), ("B: London", 1), ("C. Rome is the capital of Italy.", 2),
    ("A. Paris\n\nExplanation: Paris has been the capital since 987.", 0),
    # a label, then another option's text: ambiguous
    ("B. Rome", None), ("(A) Madrid", None),
    # answer markers: Inspect AI, lm-eval CoT strict-match, arc_challenge_chat, free phrasing
    ("ANSWER: C", 2), ("ANSWER: c", 2), ("Answer: D.", 3), ("answer: (A)", 0), ("ANSWER:B", 1),
    ("Let's think step by step. Paris is in France. London is in England.\nANSWER: A", 0),
    ("The answer is (C).", 2), ("So the answer is B.", 1), ("The answer: D", 3), ("The final answer: (A)", 0),
    ("The best answer is C", 2), ("The correct answer is option B, London.", 1), ("The correct option is D", 3),
    ("Final answer: **B**", 1), ("The answer is: **C**", 2), ("My choice: A", 0), ("answer = B", 1),
    ("The answer is B because Rome is in Italy.", 1), ("The answer is B, because Rome is in Italy.", 1),
    ("The answer is London.", 1), ("Answer: rome", 2),
    ("Answer: Let me think. Rome is in Italy. The answer is B.", 1),
    ("We need the capital of Italy, so \\boxed{C}", 2), ("\\boxed{\\text{D}}", 3),
    ("**Answer:** C", 2), ("The answer is: C) Rome", 2),
    ("(A) Paris: wrong. (B) London: wrong. (C) Rome: right. The answer is (C).", 2),  # the marker decides
    ("ANSWER: AB", None),  # Inspect's several-answers form: not one option
    ("A. Paris\nB. London\nC. Rome\nD. Madrid", None), ("(A) Paris\n(B) London", None),  # the options echoed
    ("C. Rome\n\nRome has been Italy's capital since 1871.", 2), ("B.\nA city in England.", 1),
    # markers that name no option are passed over; later rules may still find one
    ("The answer is not obvious. (B) seems right.", 1), ("I cannot answer this question.", None),
    # two different options claimed: never a guess
    ("The answer is A or B", None), ("ANSWER: A, B", None), ("Answer: A and C", None),
    ("Answer: A\nWait, that is wrong.\nAnswer: B", None), ("The answer is (A). No, the answer is (C).", None),
    ("I think (A) is wrong and (B) is right.", None),
    # the same option claimed twice is one option
    ("The answer is B.\nANSWER: B", 1), ("(C) Rome. The answer is C.", 2),
    # a bracketed label anywhere (lm-eval's multi_choice_regex)
    ("Among the options, (D) fits best.", 3), ("It must be [A] here.", 0),
    # an option's text, normalised
    ("Paris", 0), ("  madrid  ", 3), ("ROME.", 2), ("London\n", 1), ("Ｒｏｍｅ", 2),
    # nothing: no rule finds an option
    ("", None), ("   ", None), ("[invalid]", None), ("I don't know.", None), ("None of the above", None),
    ("A good answer needs more context.", None), ("I believe it is the city on the Seine.", None),
    ("Parisian", None), ("(a) first point, (b) second point", None), ("Note: A few options are plausible.", None),
    ("The capital of England is London and of Italy is Rome.", None),
]


@pytest.mark.parametrize("text, expected", CASES, ids=[f"{i}:{t[:30]!r}" for i, (t, _) in enumerate(CASES)])
def test_real_looking_generations(text, expected):
    assert tw.io.map_answer(text, OPTIONS) == expected


def test_options_whose_text_begins_like_a_label():
    options = ["A cat", "A dog", "Two cats"]
    assert tw.io.map_answer("A dog", options) == 1  # the option's text, not label A and a rest
    assert tw.io.map_answer("A. A dog", options) is None  # label A with option B's text
    assert tw.io.map_answer("B. A dog", options) == 1
    assert tw.io.map_answer("A", options) == 0


def test_options_that_are_labels_of_other_options_are_ambiguous():
    assert tw.io.map_answer("A", ["B", "A"]) is None  # label A (option 0) or the text "A" (option 1)
    assert tw.io.map_answer("A", ["A", "B"]) == 0


def test_user_pattern_first_then_the_built_in_rules():
    labels = ["1", "2", "3", "4"]
    assert tw.io.map_answer("Final choice -> 4", OPTIONS, labels, answer_pattern=r"-> (\d)") == 3
    assert tw.io.map_answer("Final choice -> 4 and the answer is 1", OPTIONS, labels, answer_pattern=r"-> (\d)") == 3
    assert tw.io.map_answer("no arrow; the answer is 2", OPTIONS, labels, answer_pattern=r"-> (\d)") == 1
    assert tw.io.map_answer("-> 7, the answer is 2", OPTIONS, labels, answer_pattern=r"-> (\d)") is None
    assert tw.io.map_answer("-> 1 then -> 2", OPTIONS, labels, answer_pattern=r"-> (\d)") is None
    assert tw.io.map_answer("Réponse : Rome", OPTIONS, answer_pattern=r"Réponse\s*:\s*(\w+)") == 2
    compiled = re.compile(r"(?i)pick\s+(\w)")
    assert tw.io.map_answer("PICK c", OPTIONS, answer_pattern=compiled) == 2
    assert tw.io.map_answer("x", OPTIONS, answer_pattern=r"(y)?x") is None  # a group that took no part


def test_labels_other_than_letters():
    assert tw.io.map_answer("The answer is 3", OPTIONS, ["1", "2", "3", "4"]) == 2
    assert tw.io.map_answer("(ii)", ["x", "y", "z"], ["i", "ii", "iii"]) == 1
    assert tw.io.map_answer("ii", ["x", "y", "z"], ["i", "ii", "iii"]) == 1
    assert tw.io.map_answer("a", ["x", "y"], ["a", "A"]) == 0  # labels differing only in case keep their case
    assert tw.io.map_answer("A", ["x", "y"], ["a", "A"]) == 1


def test_unmapped_marker_and_letters():
    assert UNMAPPED == "na"
    assert option_letters(3) == ("A", "B", "C") and len(option_letters(26)) == 26


LABEL = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+#-", min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(labels=st.lists(LABEL, min_size=2, max_size=8, unique=True), data=st.data())
def test_answer_label_maps_back_for_any_label_set(labels, data):
    options = [f"option text number {i}" for i in range(len(labels))]
    i = data.draw(st.integers(0, len(labels) - 1))
    form = data.draw(st.sampled_from(["Answer: {}", "ANSWER: {}", "The answer is ({}).", "{}", "({})",
                                      "{}. option text number {}", "Reasoning first.\nANSWER: {}"]))
    text = form.format(labels[i], i)
    assert tw.io.map_answer(text, options, labels) == i, text


@settings(max_examples=200, deadline=None)
@given(k=st.integers(2, 26), data=st.data())
def test_the_option_text_maps_back_and_two_labels_never_map(k, data):
    options = [f"city {i} on river {k - i}" for i in range(k)]
    i, j = data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1))
    assert tw.io.map_answer(options[i].upper() + ".", options) == i
    letters = option_letters(k)
    both = tw.io.map_answer(f"Answer: {letters[i]}\nANSWER: {letters[j]}", options)
    assert both == (i if i == j else None)


# ------------------------------------------------------------------------------------------ the tools' own parsers


def _inspect_parse(text: str, k: int) -> set[str]:
    from inspect_ai.solver._multiple_choice import parse_answers

    state = types.SimpleNamespace(output=types.SimpleNamespace(completion=text), choices=[None] * k)
    return parse_answers(state, multiple_correct=False)  # type: ignore[arg-type]


REASONING = st.sampled_from(["", "Let me think step by step.\n", "Paris is in France; Rome is in Italy.\n",
                             "First, eliminate the wrong options.\n\n"])


@settings(max_examples=200, deadline=None)
@given(k=st.integers(2, 8), data=st.data(), reasoning=REASONING)
def test_agrees_with_inspect_on_its_answer_format(k, data, reasoning):
    letters = option_letters(k)
    letter = data.draw(st.sampled_from(letters))
    form = data.draw(st.sampled_from(["ANSWER: {}", "ANSWER: {}.", "answer: {}", "ANSWER: **{}**", "ANSWER: ${}$",
                                      "ANSWER: ({})", "ANSWER:{}"]))
    text = reasoning + form.format(letter.lower() if form.startswith("answer") else letter)
    parsed = _inspect_parse(text, k)
    assert parsed == {letter}  # the oracle reads it so
    assert tw.io.map_answer(text, [f"o{i}" for i in range(k)]) == letters.index(letter)


def test_agrees_with_lm_eval_multi_choice_regex_on_a_single_bracketed_letter():
    from lm_eval.filters.extraction import MultiChoiceRegexFilter

    texts = ["Among these, (C) is the capital of Italy.", "Q: ... A: (A)", "I'd go with (D) since it is in Spain",
             "(B)", "Clearly (A)."]
    docs = [{"choices": OPTIONS}] * len(texts)
    flexible = MultiChoiceRegexFilter(regex_pattern=r"(\([A-Z]\))", group_select=0, ignore_case=True,
                                      ignore_punctuation=True)
    extracted = [r[0] for r in flexible.apply([[t] for t in texts], docs)]
    assert extracted == ["(C)", "(A)", "(D)", "(B)", "(A)"]
    assert [tw.io.map_answer(t, OPTIONS) for t in texts] == ["ABCD".index(e[1]) for e in extracted]


def test_answer_index_is_map_answer_on_checked_arguments():
    for text, expected in CASES:
        assert answer_index(text, OPTIONS, option_letters(4)) == expected


# ------------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, error, match", [
    ({"text": None}, TypeError, r"`text` must be a str \(the generated answer\); got NoneType None"),
    ({"options": "Paris"}, TypeError, r"`options` must be a sequence of option texts \(str\); got str 'Paris'"),
    ({"options": ["Paris", 3]}, TypeError, r"`options` must hold option texts \(str\); got \['Paris', 3\]"),
    ({"options": ["Paris"]}, ValueError, r"`options` must hold at least 2 options; got \['Paris'\]"),
    ({"options": [f"o{i}" for i in range(27)]}, ValueError, r"`options` has 27 options, more than the 26 letters"),
    ({"labels": "AB"}, TypeError, r"`labels` must be a sequence of str, one per option; got 'AB'"),
    ({"labels": ["A", "B"]}, ValueError, r"`labels` must have one label per option \(4\); got 2"),
    ({"labels": ["A", "B", "B", "C"]}, ValueError, r"`labels` must be distinct, non-empty"),
    ({"labels": ["A", " B", "C", "D"]}, ValueError, r"without surrounding whitespace; got \['A', ' B'"),
    ({"answer_pattern": "Answer: ("}, ValueError,
     r"`answer_pattern` must be a regular expression with one capture group \(the option's label or text\); "
     r"got 'Answer: \(', which does not compile: missing \)"),
    ({"answer_pattern": "Answer: [A-D]"}, ValueError,
     r"`answer_pattern` must have exactly one capture group .* got 'Answer: \[A-D\]' with 0 groups"),
    ({"answer_pattern": "(A)|(B)"}, ValueError, r"`answer_pattern` must have exactly one capture group.* 2 groups"),
    ({"answer_pattern": 3}, TypeError, r"`answer_pattern` must be a regular expression \(a str\) or None; got int 3"),
    ({"answer_pattern": re.compile(b"(x)")}, TypeError, r"`answer_pattern` must be a text \(str\) pattern"),
])
def test_bad_input_names_the_argument(kwargs, error, match):
    args = {"text": "B", "options": OPTIONS, **kwargs}
    with pytest.raises(error, match=match):
        tw.io.map_answer(args.pop("text"), args.pop("options"), **args)


def test_check_answer_pattern_names_the_argument_it_is_given():
    assert check_answer_pattern(None) is None
    assert check_answer_pattern(r"x(y)").groups == 1
    with pytest.raises(tw.InvalidValueError, match=r"`--answer-pattern` must have exactly one capture group"):
        check_answer_pattern("xy", "--answer-pattern")
