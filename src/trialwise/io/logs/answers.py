"""Generated answers to multiple-choice questions, mapped to an option (generative multiple choice).

API and chat models answer a multiple-choice question by writing text ("The answer is (B).",
"ANSWER: C", "B. Paris", "Paris"); :func:`map_answer` turns that text into the index of the
option it names, or ``None`` when it names none or more than one. Every reader of evaluation
logs uses this one function (:func:`trialwise.io.read_lm_eval` with ``map_answers=True``), so
the same text maps to the same option whatever harness logged it; a reader keeps an unmapped
answer as response :data:`UNMAPPED` (``"na"``: no option, counted wrong) and counts it under
:data:`UNMAPPED_NOTE`.

The rules follow what the tools' own scorers accept, each described in :func:`map_answer`:
lm-evaluation-harness's ``regex`` and ``multi_choice_regex`` filters
(``lm_eval/filters/extraction.py``) and its tasks' patterns ("The answer is (X)", "(X)"),
Inspect AI's ``multiple_choice`` solver and ``choice()`` scorer (``ANSWER: X`` on a line of
its own, markdown and ``$...$`` wrappers removed), and HELM's joint method (the completion,
stripped, is an option's letter).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show

__all__ = ["map_answer", "answer_index", "check_answer_pattern", "option_letters", "UNMAPPED", "UNMAPPED_NOTE"]

#: The response of a trial whose answer maps to no option (as :func:`trialwise.io.read_helm` writes it):
#: no option index, so it is wrong, and two of them never agree (``pairwise_agreement``).
UNMAPPED = "na"
#: The reason under which the readers count such trials (``trials.attrs["log"]["noted"]`` and their warning).
UNMAPPED_NOTE = "responses that map to no option (kept as response 'na', incorrect)"

# "The answer is", "Answer:", "The final answer:", "The best answer is", "correct option is", "ANSWER =" ...
_MARKER = re.compile(r"(?i)\b(?:answer|choice|option)\s*(?:is\s*:?|:|=)[ \t]*(?=([^\n]*))")  # lookahead: markers in
# the rest of a line are found too ("Answer: let me think. The answer is B.")
# LaTeX \boxed{B} and \boxed{\text{B}} of reasoning models.
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{)?([^{}]*)\}?\s*\}")
# Inspect's clean-up before it parses: $X$ and **X** around an answer, (X) after a colon or comma.
_DOLLARS = re.compile(r"\$\s*([A-Za-z\d][A-Za-z\d ,]*?)\s*\$")
_BOLD = re.compile(r"(\*\*|__)\s*(.+?)\s*\1")
_LEADING_WORD = re.compile(r"(?i)^(?:option|choice|letter)\s+")
_LIST_WORD = r"(?:,|;|/|&|\band\b|\bor\b)"
_TRAILING = " \t\r\n.,;:!?\"'`*_"


def option_letters(n: int) -> tuple[str, ...]:
    """``("A", "B", ...)``: the labels of ``n`` options as the harnesses' generative prompts letter them (n ≤ 26)."""
    if n > 26:
        raise InvalidValueError(f"`options` has {n} options, more than the 26 letters A-Z; pass `labels`, one per "
                                f"option")
    return tuple(chr(ord("A") + i) for i in range(n))


def check_answer_pattern(pattern: Any, name: str = "answer_pattern") -> re.Pattern[str] | None:
    """``pattern`` compiled (a str or a compiled pattern with exactly one capture group), or None.

    The message of a pattern that does not compile, or has no or several capture groups, names
    the argument ``name`` and shows the pattern received.
    """
    if pattern is None:
        return None
    if isinstance(pattern, re.Pattern):
        compiled = pattern
    elif isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise InvalidValueError(f"`{name}` must be a regular expression with one capture group (the option's "
                                    f"label or text); got {show(pattern)}, which does not compile: {exc}") from None
    else:
        raise InvalidTypeError(f"`{name}` must be a regular expression (a str) or None; got "
                               f"{type(pattern).__name__} {show(pattern)}")
    if not isinstance(compiled.pattern, str):
        raise InvalidTypeError(f"`{name}` must be a text (str) pattern, not bytes; got {show(compiled.pattern)}")
    if compiled.groups != 1:
        raise InvalidValueError(f"`{name}` must have exactly one capture group (the option's label or text), "
                                f"e.g. r'Answer: \\(?([A-D])\\)?'; got {show(compiled.pattern)} with "
                                f"{compiled.groups} groups")
    return compiled


def map_answer(text: str, options: Sequence[str], labels: Sequence[str] | None = None, *,
               answer_pattern: Any = None) -> int | None:
    """The option a generated answer names, by its label or its text; None when it names none or several.

    Parameters
    ----------
    text : str
        The model's generated answer (a chat model's reply, a harness's filtered response).
    options : sequence of str
        The options' texts, in order (at least 2).
    labels : sequence of str, optional
        The options' labels as the prompt showed them (default ``A``, ``B``, ``C``, ...); as
        many as ``options``, distinct, non-empty. Compared without regard to case when the
        labels differ in more than case (``"b"`` is ``B``), except where a label begins a
        sentence (rule 3: ``"A good answer"`` names no option).
    answer_pattern : str or re.Pattern, optional
        A regular expression with one capture group holding the label or the option's text
        (e.g. ``r"Final choice: (\\w)"``); tried first (rule 1).

    Returns
    -------
    int or None
        The index of the option in ``options``; None when no rule finds an option, or when
        the first rule that finds one finds two different ones (ambiguous: never a guess).

    Raises
    ------
    InvalidTypeError
        ``text`` not a str; ``options`` or ``labels`` not sequences of str.
    InvalidValueError
        Fewer than 2 options; ``labels`` of another length, empty or repeated; more than 26
        options without ``labels``; an ``answer_pattern`` that does not compile or does not
        have exactly one capture group.

    Notes
    -----
    First ``**X**``, ``__X__`` and ``$X$`` wrappers are removed (as Inspect AI's parser does).
    Then the rules are tried in this order; the first that finds an option decides, and when
    it finds two different options the answer is ambiguous (None), the later rules unused:

    1. ``answer_pattern``, every match: its capture is read as below (a label, a label then
       the option's text, or the option's text). When the pattern matches nowhere, rule 2
       follows; when it matches but names no option, the answer is unmapped.
    2. An answer marker, every occurrence: "answer", "choice" or "option" followed by "is",
       ":" or "=" (Inspect AI's ``ANSWER: X``; lm-evaluation-harness's "The answer is (X)",
       "The answer: X", "The final answer: X"; "The best answer is X" of
       ``arc_challenge_chat``), and LaTeX ``\\boxed{X}``. What follows to the end of the line is
       read as a label (``B``, ``(B)``, ``[B]``, ``option B``, ``B.``, ``B because ...``), a
       label and its text (``B. Paris``; a text of another option makes it ambiguous), or an
       option's text; a list of labels (``A, B``, ``A or B``) is ambiguous. Markers followed
       by neither ("The answer is not obvious") are passed over.
    3. The whole answer: a lone label (``B``, ``(B)``, ``B.``), a label at its start followed by
       ``.``, ``)`` or ``:`` (``B. Paris``, ``B) Paris``: the form of HELM's joint method and of
       the prompts' own option lines; a later line that starts with another label, as when
       the options are listed again, makes it ambiguous), or exactly one option's text (case,
       Unicode compatibility forms, whitespace and trailing punctuation normalised).
    4. A label in brackets anywhere, ``(B)`` or ``[B]`` (lm-evaluation-harness's
       ``multi_choice_regex`` with ``(\\([A-Z]\\))``), in the labels' own case.

    Not used, because they claim ordinary words: a capital letter anywhere (the article "A",
    the pronoun "I"), the harness's fallback ``: X`` ("Note: A few ...") and an option's text
    found inside longer text (a short option such as "No" or "4" is in many answers).

    References
    ----------
    lm-evaluation-harness, ``lm_eval/filters/extraction.py`` (``RegexFilter``,
    ``MultiChoiceRegexFilter``), ``lm_eval/tasks/mmlu/flan_cot_zeroshot`` and
    ``lm_eval/tasks/arc/arc_challenge_chat.yaml``, https://github.com/EleutherAI/lm-evaluation-harness;
    Inspect AI, ``inspect_ai/solver/_multiple_choice.py`` (``parse_answers``) and
    ``inspect_ai/scorer/_choice.py``, https://github.com/UKGovernmentBEIS/inspect_ai;
    HELM, ``helm/benchmark/adaptation/adapters/multiple_choice_joint_adapter.py``,
    https://github.com/stanford-crfm/helm.

    Examples
    --------
    >>> import trialwise as tw
    >>> options = ["Paris", "London", "Rome", "Madrid"]
    >>> tw.io.map_answer("Let's think step by step. ... The answer is (C).", options)
    2
    >>> tw.io.map_answer("ANSWER: b", options), tw.io.map_answer("london", options)
    (1, 1)
    >>> tw.io.map_answer("B. Rome", options) is None   # a label and another option's text: ambiguous
    True
    >>> tw.io.map_answer("Final choice -> 4", options, ["1", "2", "3", "4"], answer_pattern=r"-> (\\d)")
    3
    """
    if not isinstance(text, str):
        raise InvalidTypeError(f"`text` must be a str (the generated answer); got {type(text).__name__} {show(text)}")
    opts, labs = _check_options(options, labels)
    compiled = check_answer_pattern(answer_pattern)
    return answer_index(text, opts, labs, compiled)


def _check_options(options: Any, labels: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if isinstance(options, str) or not isinstance(options, Sequence):
        raise InvalidTypeError(f"`options` must be a sequence of option texts (str); got {type(options).__name__} "
                               f"{show(options)}")
    if not all(isinstance(o, str) for o in options):
        raise InvalidTypeError(f"`options` must hold option texts (str); got {show(list(options))}")
    if len(options) < 2:
        raise InvalidValueError(f"`options` must hold at least 2 options; got {show(list(options))}")
    if labels is None:
        return tuple(options), option_letters(len(options))
    if isinstance(labels, str) or not isinstance(labels, Sequence) or not all(isinstance(x, str) for x in labels):
        raise InvalidTypeError(f"`labels` must be a sequence of str, one per option; got {show(labels)}")
    if len(labels) != len(options):
        raise InvalidValueError(f"`labels` must have one label per option ({len(options)}); got {len(labels)}: "
                                f"{show(list(labels))}")
    if any(not x.strip() or x != x.strip() for x in labels) or len(set(labels)) != len(labels):
        raise InvalidValueError(f"`labels` must be distinct, non-empty and without surrounding whitespace; got "
                                f"{show(list(labels))}")
    return tuple(options), tuple(labels)


def answer_index(text: str, options: Sequence[str], labels: Sequence[str],
                 pattern: re.Pattern[str] | None = None) -> int | None:
    """:func:`map_answer` on checked arguments (``pattern`` from :func:`check_answer_pattern`): the readers call
    it once per record, with options and labels they built."""
    rules = _Rules.of(tuple(options), tuple(labels))
    text = _unwrap(text)
    if pattern is not None:
        captures = [m.group(1) for m in pattern.finditer(text) if m.group(1) is not None]
        if captures:
            return _one(set().union(*(rules.read(c, after_marker=True) for c in captures)))
    found: set[int] = set()
    for match in _MARKER.finditer(text):
        found |= rules.read(match.group(1), after_marker=True)
    for match in _BOXED.finditer(text):
        found |= rules.read(match.group(1), after_marker=True)
    if found:
        return _one(found)
    found = rules.read(text, after_marker=False)
    if found:
        return _one(found)
    found = {rules.index[m.group(1)] for m in rules.bracketed.finditer(text)}
    return _one(found) if found else None


def _one(found: set[int]) -> int | None:
    return next(iter(found)) if len(found) == 1 else None


def _unwrap(text: str) -> str:
    text = _DOLLARS.sub(r"\1", text)
    return _BOLD.sub(r"\2", text)


def _normal(text: str) -> str:
    """An option's text or an answer for comparison: NFKC, case-folded, whitespace collapsed, end punctuation off."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(text.split()).strip(_TRAILING)


class _Rules:
    """The compiled patterns of one set of options and labels (cached: a task's items share them)."""

    def __init__(self, options: tuple[str, ...], labels: tuple[str, ...]) -> None:
        self.index = {label: i for i, label in enumerate(labels)}
        folded = [x.casefold() for x in labels]
        self.fold = len(set(folded)) == len(labels)  # labels that differ in more than case are compared without it
        self.folded = {x: i for i, x in enumerate(folded)}
        self.texts: dict[str, set[int]] = {}
        for i, option in enumerate(options):
            self.texts.setdefault(_normal(option), set()).add(i)
        alternatives = "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True))
        end = r"(?=$|[^\w])"
        # a label at the start: bracketed, or followed by . ) : or the end; the rest of the text after it
        self.strict = re.compile(rf"^(?:[\(\[]\s*({alternatives})\s*[\)\]]|({alternatives})(?:[.):]|$)){end}(.*)$",
                                 re.S | (re.I if self.fold else 0))
        # after an answer marker a space may follow the label ("The answer is B because ..."), in the label's own case
        self.loose = re.compile(rf"^[\(\[]?\s*({alternatives})\s*[\)\]]?{end}(.*)$", re.S)
        self.listed = re.compile(rf"^{_LIST_WORD}\s*[\(\[]?\s*({alternatives})\s*[\)\]]?{end}",
                                 re.I if self.fold else 0)
        self.bracketed = re.compile(rf"[\(\[]\s*({alternatives})\s*[\)\]]")
        # a further line that starts with a label: the options listed again ("A. Paris\nB. London\n...")
        self.lines = re.compile(rf"(?m)^[ \t]*(?:[\(\[]\s*({alternatives})\s*[\)\]]|({alternatives})[.):]){end}")

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def of(options: tuple[str, ...], labels: tuple[str, ...]) -> _Rules:
        return _Rules(options, labels)

    def label(self, text: str) -> int:
        return self.index[text] if text in self.index else self.folded[text.casefold()]

    def read(self, value: str, *, after_marker: bool) -> set[int]:
        """The options ``value`` names: by a label (and then perhaps a text or a list of labels), or by a text."""
        value = value.strip().strip("*_`\"'").strip()
        if after_marker:
            value = _LEADING_WORD.sub("", value)
        whole = self.texts.get(_normal(value), set())
        match = self.strict.match(value) or (self.loose.match(value) if after_marker else None)
        if match is None:
            return set(whole)
        groups = [g for g in match.groups()[:-1] if g is not None]
        chosen = self.label(groups[0])
        rest = match.groups()[-1]
        if whole and not _normal(rest) == "":  # "A dog" among "A cat", "A dog": the text, not label A and a rest
            return set(whole)
        rest_text = _normal(rest.lstrip(" \t.,;):-–—"))
        if groups[0] not in self.index and rest_text and self.texts.get(rest_text) != {chosen}:
            return set(whole)  # "(a) first point, ...": a label in another case begins a sentence, not an answer
        found = {chosen} | whole
        listed = self.listed.match(rest.strip())
        if listed:
            found.add(self.label(listed.group(1)))
        if rest_text in self.texts:
            found |= self.texts[rest_text]
        for line in self.lines.finditer(rest.partition("\n")[2]):
            found.add(self.index[line.group(1) or line.group(2)])
        return found
