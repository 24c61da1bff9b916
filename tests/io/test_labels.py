"""The one label-coding rule (trialwise.io.labels) and that every label-comparing function uses it (issue 14, item 11)."""

from __future__ import annotations

import decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialwise as tw
from trialwise import comparison as cmp
from trialwise.io.labels import code_labels, read_number


def _same_class_by_hand(x, y, truth_words: bool = True) -> bool:
    """The documented rule, written out independently: numbers by value, numeric text as its number,
    true/false text (any case) as 1/0 when ``truth_words`` (every number among the labels is 0 or 1)."""
    def canon(v):
        if isinstance(v, str):
            if truth_words and v.strip().lower() in ("true", "false"):
                return ("number", float(v.strip().lower() == "true"))
            try:
                f = float(v)
            except ValueError:
                return ("text", v)
            return ("number", f) if np.isfinite(f) and "_" not in v else ("text", v)
        return ("number", float(v))
    return canon(x) == canon(y)


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize("truth, pred, expected", [
    ([0, 1, 1, 0], [False, True, False, False], [True, True, False, True]),    # int truth, bool predictions
    ([0, 1, 1, 0], [0.0, 1.0, 0.0, 1.0], [True, True, False, False]),          # int truth, float predictions
    (np.array([1, 0]), np.array([True, False]), [True, True]),                 # numpy int vs numpy bool
    (["1", "0"], [1.0, 0.0], [True, True]),                                    # numeric text vs floats
    (["1", "0"], ["1.0", "0.0"], [True, True]),                                # CSV text "1" vs "1.0"
    (["1", "2"], [np.int64(1), np.float32(2)], [True, True]),
    ([decimal.Decimal("1"), 2], [1.0, 2.0], [True, True]),
    (["cat", "dog"], ["cat", "Dog"], [True, False]),                           # text is exact
    (["1", "cat"], ["1.0", "na"], [True, False]),                              # all text: "1" == "1.0" still
])
def test_same_class_rule(truth, pred, expected):
    coding = code_labels({"truth": truth, "pred": pred})
    assert coding.matches("pred", "truth").tolist() == expected
    if all(not isinstance(x, decimal.Decimal) for x in truth):
        assert expected == [_same_class_by_hand(t, p) for t, p in zip(truth, pred)]


def test_classes_natural_order_and_first_spelling():
    c = code_labels({"y": ["10", "9", "cat", "1.0"], "a": ["9", "10.0", "1", "1"]})
    assert c.classes == ["1.0", "9", "10", "cat"]            # numbers by value first, then text; truth's spelling
    assert c.rule == "text"
    assert code_labels({"y": [3, 1, 2]}).classes == [1, 2, 3]
    assert code_labels({"y": ["b", "a"]}).classes == ["a", "b"]
    assert code_labels({"y": [True, False], "a": [1, 0]}).classes == [False, True]
    assert code_labels({"y": [2**60 + 1, 3], "a": [float(2**60), 3.0]}).k == 3   # exact, not via float64


def test_given_classes_order_and_errors():
    c = code_labels({"y": ["x", "y", "x"]}, classes=["y", "x", "z"])
    assert c.classes == ["y", "x", "z"] and c.codes["y"].tolist() == [1, 0, 1]
    assert code_labels({"y": ["1", "2"]}, classes=[2, 1]).codes["y"].tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"`y` has the label 'q' \(position 1\), which is not one of `classes`"):
        code_labels({"y": ["x", "q"]}, classes=["x", "y"])
    assert code_labels({"y": ["x", "q"]}, classes=["x", "y"], strict=False).codes["y"].tolist() == [0, -1]
    with pytest.raises(ValueError, match=r"`labels` contains the class '1.0' twice \(as '1' and '1.0'\)"):
        code_labels({"y": [1]}, classes=["1", "1.0"], classes_name="labels")


@pytest.mark.parametrize("missing", [None, np.nan, np.float32("nan"), pd.NA, pd.NaT, np.datetime64("NaT"),
                                     decimal.Decimal("NaN")])
def test_missing_values_are_errors_naming_argument_and_position(missing):
    with pytest.raises(ValueError, match=r"`pred_b` has a missing value at position 2 .*not labels"):
        code_labels({"y_true": ["a", "b", "c"], "pred_a": ["a", "b", "c"], "pred_b": ["a", "b", missing]})


def test_missing_allowed_where_asked():
    c = code_labels({"truth": ["a", "b"], "resp": ["a", None, "b", np.nan]}, allow_missing=["resp"], same_length=False)
    assert c.codes["resp"].tolist() == [0, -1, 1, -1]
    assert c.labels("resp").tolist() == ["a", None, "b", None]


@pytest.mark.parametrize("arrays, match", [
    ({"y": ["1", "1"], "a": ["1", True], "b": ["a", 2]},
     r"mix numbers \(in `a`, `b`\) with text that is not a number \('a' in `b`\).*`y` holds str; `a` holds bool, str; "
     r"`b` holds int, str"),
    ({"truth": [True, False], "resp": ["yes", "no"]}, r"numbers \(in `truth`\).*'yes' in `resp`"),
    ({"truth": [1, 0, 1], "resp": ["TRUE", "FALSE", "maybe"]}, r"numbers \(in `truth`\).*'maybe' in `resp`"),
    ({"truth": [1, 2], "resp": ["1", "na"]}, r"'na' in `resp`"),
    ({"truth": [1, 2], "resp": [(1,), 2]}, r"neither numbers nor text.*`resp` holds int, tuple"),
    ({"truth": [[1, 2], [3]], "resp": [1, 2]}, r"`truth` holds labels that cannot be compared .*hashable"),
    ({"truth": "abc", "resp": [1]}, r"`truth` must be a 1-D array of labels; got a string"),
    ({"truth": [1 + 1j], "resp": [1]}, r"neither numbers nor text"),
    ({"truth": np.array([1 + 1j]), "resp": [1]}, r"`truth` holds complex numbers"),
])
def test_incomparable_kinds_are_type_errors(arrays, match):
    with pytest.raises(TypeError, match=match):
        code_labels(arrays)


@pytest.mark.parametrize("arrays, match", [
    ({"y": [[1, 2], [3, 4]]}, r"`y` must be 1-D \(one label per item\); got an array of shape \(2, 2\)"),
    ({"y": []}, r"`y` is empty"),
    ({"y": [1, 2], "a": [1]}, r"`y` has 2, `a` has 1"),
])
def test_shape_errors(arrays, match):
    with pytest.raises(ValueError, match=match):
        code_labels(arrays)


def test_read_number():
    assert [read_number(s) for s in ["1", " 2 ", "1.50", "-3", "1e3", "+4"]] == [1, 2, 1.5, -3, 1000.0, 4]
    assert [read_number(s) for s in ["", "cat", "nan", "inf", "1_000", "0x10", "True"]] == [None] * 7


def test_pandas_inputs():
    y = pd.Series([1, 0, 1], index=[10, 11, 12])
    a = pd.Series(["1", "0", "0"], dtype="category")
    assert code_labels({"y": y, "a": a}).matches("a", "y").tolist() == [True, True, False]
    with pytest.raises(ValueError, match=r"`a` has a missing value at position 1"):
        code_labels({"y": y, "a": pd.array([1, None, 1], dtype="Int64")})
    with pytest.raises(ValueError, match=r"`a` has a missing value at position 2"):
        code_labels({"y": ["a", "b", "c"], "a": pd.array(["a", "b", None], dtype="string")})


label = st.one_of(st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5, True, False]),
                  st.integers(-3, 3).map(str), st.sampled_from(["1.0", "2.5", " 2", "True", "FALSE", " false "]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(label, label), min_size=1, max_size=30))
def test_numbers_and_numeric_text_match_exactly_when_equal_as_numbers(pairs):
    truth, pred = zip(*pairs)
    values = [v for pair in pairs for v in pair]

    def number(v):
        if not isinstance(v, str):
            return float(v)
        try:
            f = float(v)
        except ValueError:
            return None
        return f if np.isfinite(f) and "_" not in v else None

    numbers = [f for f in map(number, values) if f is not None]
    truth_words = all(f in (0.0, 1.0) for f in numbers)
    words = [v for v in values if isinstance(v, str) and number(v) is None]
    if words and not truth_words and any(not isinstance(v, str) for v in values):
        with pytest.raises(TypeError, match="never be equal"):  # rule 4: numbers against text
            code_labels({"truth": list(truth), "pred": list(pred)})
        return
    coding = code_labels({"truth": list(truth), "pred": list(pred)})
    assert coding.matches("pred", "truth").tolist() == [_same_class_by_hand(t, p, truth_words) for t, p in pairs]
    # the partition does not depend on which other arguments are coded with it
    alone = code_labels({"pred": list(pred)})
    joint = np.asarray(coding.classes, dtype=object)[coding.codes["pred"]]
    recoded = code_labels({"pred": list(joint)})
    assert (alone.codes["pred"] == recoded.codes["pred"]).all()


# --------------------------------------------------------------------------- every label-comparing function uses it


def test_every_label_comparing_function_agrees_with_the_rule():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    a = np.where(rng.random(200) < 0.8, y, 1 - y)
    b = np.where(rng.random(200) < 0.7, y, 1 - y)
    ref = cmp.contingency_table(y, a, b)
    # the same labels as bool, float, numeric text: the same answers everywhere
    for ya, aa, ba in [(y, a.astype(bool), b.astype(float)), (y.astype(str), a.astype(float), b),
                       (y.astype(float).astype(str), a.astype(str), b.astype(bool))]:
        np.testing.assert_array_equal(cmp.contingency_table(ya, aa, ba), ref)
        assert cmp.mcnemar(ya, aa, ba).pvalue == cmp.mcnemar(counts=ref).pvalue
        assert cmp.cohen_kappa(aa, ba).statistic == pytest.approx(cmp.cohen_kappa(a, b).statistic, abs=1e-12)
        np.testing.assert_array_equal(cmp.agreement_matrix(aa, ba).to_numpy(), cmp.agreement_matrix(a, b).to_numpy())
        ec = tw.error_consistency(aa, ba, truth=ya, ci_method="analytic")
        np.testing.assert_array_equal(ec.counts, ref)
        rep = tw.compare(ya, aa, ba, rng=0, n_resamples=99)
        assert rep.accuracy == {"A": pytest.approx(np.mean(a == y)), "B": pytest.approx(np.mean(b == y))}
        np.testing.assert_array_equal(rep.contingency, ref)


def test_pairwise_error_consistency_truth_path_uses_the_rule():
    truth = np.array([1, 0, 1, 1, 0, 0, 1, 0] * 5)
    resp = pd.DataFrame({"h": np.where(np.arange(40) % 5 == 0, 1 - truth, truth).astype(str),
                         "m": np.where(np.arange(40) % 3 == 0, 1 - truth, truth).astype(float)})
    resp.loc[3, "h"] = None                                                       # not seen
    res = tw.pairwise_error_consistency(resp, truth=truth, ci_method="analytic")
    seen = np.arange(40) != 3
    ca = resp["h"].to_numpy(object)[seen].astype(float) == truth[seen]
    cb = resp["m"].to_numpy()[seen] == truth[seen]
    expected = [[np.sum(ca & cb), np.sum(ca & ~cb)], [np.sum(~ca & cb), np.sum(~ca & ~cb)]]
    np.testing.assert_array_equal(res.counts[0], expected)
    with pytest.raises(ValueError, match=r"`truth` has a missing value at position 2"):
        tw.pairwise_error_consistency(resp, truth=np.r_[truth[:2], np.nan, truth[3:]])


# --------------------------------------------------------------------------- true/false answers against 0/1 truth, every path


def _two_afc(n: int = 40, seed: int = 0):
    """A 2-AFC design: 0/1 truth, two observers' 0/1 answers (accuracies about 0.8 and 0.6)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    return truth, np.where(rng.random(n) < 0.8, truth, 1 - truth), np.where(rng.random(n) < 0.6, truth, 1 - truth)


SPELLINGS = {"bool": lambda r: r.astype(bool), "excel": lambda r: np.where(r == 1, "TRUE", "FALSE"),
             "python": lambda r: np.where(r == 1, "True", "False"), "mixed-case": lambda r: np.where(r == 1, " true", "False ")}
TRUTHS = {"int": lambda t: t, "text": lambda t: t.astype(str), "float": lambda t: t.astype(float)}


def test_true_false_text_is_1_0_under_the_rule():
    c = code_labels({"truth": [1, 0, 1], "resp": ["TRUE", "false", " False "]})
    assert c.rule == "numbers" and c.classes == [0, 1] and c.matches("resp", "truth").tolist() == [True, True, False]
    # Excel's TRUE meets Python's True; the truth's spelling names the class
    c = code_labels({"truth": ["True", "False"], "resp": ["TRUE", "TRUE"]})
    assert c.matches("resp", "truth").tolist() == [True, False] and c.classes == ["False", "True"]
    # a word among them stays text, and against real numbers it is still the rule-4 TypeError
    assert code_labels({"truth": ["1", "0"], "resp": ["TRUE", "na"]}).matches("resp", "truth").tolist() == [True, False]
    with pytest.raises(TypeError, match=r"'na' in `resp`"):
        code_labels({"truth": [1, 0], "resp": ["TRUE", "na"]})


@pytest.mark.parametrize("truth_as", TRUTHS.values(), ids=TRUTHS.keys())
@pytest.mark.parametrize("spell", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_read_trials_scores_true_false_answers_against_0_1_truth(spell, truth_as, tmp_path):
    truth, ra, rb = _two_afc()
    n = truth.size
    df = pd.DataFrame({"subject": ["a"] * n + ["b"] * n, "image": list(range(n)) * 2,
                       "truth": np.r_[truth_as(truth), truth_as(truth)], "response": np.r_[spell(ra), spell(rb)]})
    for source in (df, tmp_path / "t.csv"):
        if not isinstance(source, pd.DataFrame):
            df.to_csv(source, index=False)
        acc = tw.read_trials(source).groupby("subject")["correct"].mean()
        assert acc.to_dict() == {"a": pytest.approx(np.mean(ra == truth)), "b": pytest.approx(np.mean(rb == truth))}
        assert 0 < acc["b"] < acc["a"] < 1                                    # the oracle itself is not degenerate


@pytest.fixture
def afc_files(tmp_path):
    truth, ra, rb = _two_afc()
    paths = {}
    for name, r, spell in (("a", ra, "excel"), ("b", rb, "python")):
        paths[name] = tmp_path / f"{name}.csv"
        pd.DataFrame({"image": np.arange(truth.size), "truth": truth, "response": SPELLINGS[spell](r)}).to_csv(
            paths[name], index=False)
    pd.DataFrame({"y": truth, "m1": SPELLINGS["python"](ra), "m2": SPELLINGS["excel"](rb)}).to_csv(
        tmp_path / "cmp.csv", index=False)
    n = truth.size
    pd.DataFrame({"subject": ["h1"] * n + ["m1"] * n, "observer_type": ["human"] * n + ["model"] * n,
                  "image": list(range(n)) * 2, "truth": np.r_[truth, truth],
                  "response": np.r_[SPELLINGS["excel"](ra), SPELLINGS["bool"](rb)]}).to_csv(
        tmp_path / "tidy.csv", index=False)
    return truth, ra, rb, tmp_path


def test_cli_ec_and_compare_score_true_false_answers(afc_files, capsys):
    import json

    from trialwise.cli import main

    truth, ra, rb, d = afc_files
    assert main(["ec", str(d / "a.csv"), str(d / "b.csv"), "--json", "--resamples", "200", "--seed", "0"]) == 0
    got = json.loads(capsys.readouterr().out)
    ref = tw.error_consistency(ra == truth, rb == truth, n_resamples=200, rng=0)
    assert got["accuracy_a"] == pytest.approx(np.mean(ra == truth)) and got["accuracy_b"] == pytest.approx(np.mean(rb == truth))
    assert got["statistic"] == pytest.approx(ref.statistic, abs=1e-12)
    assert main(["compare", str(d / "cmp.csv"), "--truth", "y", "--a", "m1", "--b", "m2", "--json",
                 "--resamples", "99", "--seed", "0"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["accuracy"] == {"m1": pytest.approx(np.mean(ra == truth)), "m2": pytest.approx(np.mean(rb == truth))}
    assert got["classes"] == ["0", "1"]


def test_leaderboard_value_delta_and_similarity_score_true_false_answers(afc_files):
    from trialwise.brainscore.behavioral_images import accuracy_values

    truth, ra, rb, d = afc_files
    trials = tw.read_trials(d / "tidy.csv")
    board = tw.leaderboard(trials, "accuracy", n_resamples=50, rng=0).to_frame().set_index("observer")
    assert board.loc["h1", "score"] == pytest.approx(np.mean(ra == truth))
    assert board.loc["m1", "score"] == pytest.approx(np.mean(rb == truth))
    np.testing.assert_array_equal(accuracy_values(trials.drop(columns="correct")), np.r_[ra == truth, rb == truth])
    # similarity of option-indexed trials: a "1.0" or "TRUE" answer is option 1
    probs = trials.assign(p0=0.5, p1=0.5, response=np.r_[ra.astype(float).astype(str), SPELLINGS["excel"](rb)])
    table = tw.read_trials(probs, probabilities=["p0", "p1"])
    res = tw.pairwise_agreement(table, metric="choice", n_resamples=50, rng=0).to_frame()
    assert res["p_correct_a"].iloc[0] == pytest.approx(np.mean(ra == truth))
    assert res["p_correct_b"].iloc[0] == pytest.approx(np.mean(rb == truth))
    assert res["statistic"].iloc[0] == pytest.approx(np.mean(ra == rb))


def test_true_false_text_is_one_and_zero_only_among_zero_one_labels():
    """The review's case: with K = 3 classes coded 0, 1, 2, a stray 'true' answer is not class 1
    (numbers against it are rule 4's TypeError; as text against text it simply does not match);
    with 0/1 labels it is 1 — decided on the whole columns, not the mismatched rows only."""
    import trialwise as tw
    from trialwise.io.trials import _same_label  # noqa: PLC2701 - the reading path's matcher, tested directly

    y = np.array([0, 1, 2, 1, 0, 2, 1, 0])
    a = np.array([0, "true", 2, 1, 0, 2, 1, 0], dtype=object)
    with pytest.raises(TypeError, match="'true'"):
        code_labels({"y_true": y, "pred_a": a})
    with pytest.raises(TypeError, match="'true'"):
        tw.compare(y, a, y, n_resamples=10, rng=0)
    # text columns: only rows 0-1 mismatch, and their labels are 0/1 — but the columns hold a 2
    got = _same_label(np.array(["true", "false", "2", "1"]), np.array(["1", "0", "2", "1"]))
    assert got.tolist() == [False, False, True, True]
    got = _same_label(np.array(["true", "FALSE", "0", "1"]), np.array(["1", "0", "0", "1"]))
    assert got.tolist() == [True, True, True, True]
    assert code_labels({"t": ["true", "false", "unknown"], "r": ["True", "false", "unknown"]}).matches(
        "t", "r").tolist() == [True, True, True]


def test_pandas_objects_are_paired_by_position_unless_they_hold_the_same_items_in_another_order():
    """Review HR8, F1: a `truth` Series of the same images in another order was paired by position (EC 0.176
    instead of 0.48). The same labels in another order are an error naming both arguments; integer indexes (the
    row numbers of two subjects' parts of one long table, or of two files each sorted by image) and other labels
    are paired by position, as numpy, scipy and scikit-learn pair them."""
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    a, b = rng.random(60) < 0.7, rng.random(60) < 0.6
    images = [f"im{k:02d}" for k in range(60)]
    sa, sb = pd.Series(a, index=images), pd.Series(b, index=images)
    expected = cohen_kappa_score(a, b)
    assert tw.error_consistency(sa, sb, n_resamples=20, rng=0).statistic == pytest.approx(expected, abs=1e-12)
    with pytest.raises(tw.InvalidValueError, match=r"`a` and `b` .* same index labels in a different order"):
        tw.error_consistency(sa, sb.sample(frac=1, random_state=1), n_resamples=20, rng=0)
    # row numbers: different integer indexes (or the same numbers permuted) are positions, not items
    ra, rb = pd.Series(a, index=range(0, 60)), pd.Series(b, index=range(100, 160))
    assert tw.error_consistency(ra, rb, n_resamples=20, rng=0).statistic == pytest.approx(expected, abs=1e-12)
    perm = rng.permutation(60)
    assert tw.error_consistency(pd.Series(a, index=perm), pd.Series(b, index=np.arange(60)),
                                n_resamples=20, rng=0).statistic == pytest.approx(expected, abs=1e-12)
    # labels that are not the same set: positions too
    other = pd.Series(b, index=[f"x{k}" for k in range(60)])
    assert tw.error_consistency(sa, other, n_resamples=20, rng=0).statistic == pytest.approx(expected, abs=1e-12)
