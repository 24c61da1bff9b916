"""Hard-label comparison of two classifiers (seed 001 §14.1): the chapter's examples, oracles, type-I error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import Table2x2
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

import trialwise as tw
from trialwise.comparison import cohen_kappa, contingency_table, disagreement, mcnemar, yules_q

EX_14_1 = [[150, 25], [15, 10]]  # [[n11, n10], [n01, n00]]: C1 in rows


def _by_hand_kappa(t):
    t = np.asarray(t, float)
    m = t.sum()
    p_o = (t[0, 0] + t[1, 1]) / m
    a1, a2 = t[0].sum() / m, t[:, 0].sum() / m
    p_e = a1 * a2 + (1 - a1) * (1 - a2)
    return (p_o - p_e) / (1 - p_e)


# --------------------------------------------------------------------------- the chapter's examples


def test_example_14_1():
    t = np.array(EX_14_1)
    assert t[0].sum() / t.sum() == 0.875 and t[:, 0].sum() / t.sum() == 0.825      # accuracies
    assert disagreement(counts=t).statistic == pytest.approx(0.2)
    # printed "≈ 0.219" comes from rounding p_e to 0.7438 first; the value is 0.05625/0.25625 = 0.2195
    assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(0.05625 / 0.25625, abs=1e-12)
    assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(_by_hand_kappa(t), abs=1e-12)
    assert yules_q(counts=t).statistic == pytest.approx(0.6)
    # "McNemar p ≈ 0.11" is the chi-square test without continuity correction:
    chi = mcnemar(counts=t, method="asymptotic")
    assert chi.statistic == pytest.approx((25 - 15) ** 2 / 40) and chi.pvalue == pytest.approx(stats.chi2.sf(2.5, 1))
    assert round(chi.pvalue, 2) == 0.11
    # the other variants do not print 0.11
    assert round(mcnemar(counts=t, method="exact").pvalue, 3) == 0.154
    assert round(mcnemar(counts=t, method="corrected").pvalue, 3) == 0.155


def test_example_14_2_same_disagreement_opposite_mcnemar():
    sym, asym = [[60, 15], [15, 10]], [[60, 27], [3, 10]]
    for t in (sym, asym):
        assert disagreement(counts=t).statistic == pytest.approx(0.30)
    s = mcnemar(counts=sym, method="asymptotic")
    assert s.statistic == 0 and s.pvalue == 1
    a = mcnemar(counts=asym, method="asymptotic")
    assert a.statistic == pytest.approx(19.2) and a.pvalue == pytest.approx(1.18e-5, rel=0.01)   # "p ≈ 10^-5"


def test_example_14_3_equal_cells():
    t = [[25, 25], [25, 25]]
    assert mcnemar(counts=t, method="asymptotic").pvalue == 1
    assert float(tw.ec.kappa_from_counts(t)) == 0


def test_example_14_4_high_accuracy():
    t = [[95, 2], [2, 1]]
    assert yules_q(counts=t).statistic == pytest.approx(91 / 99) and round(91 / 99, 2) == 0.92
    assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(0.3127, abs=1e-4)          # printed ≈ 0.31


def test_example_14_5_same_disagreement_opposite_q():
    left, right = [[80, 10], [10, 0]], [[40, 10], [10, 40]]
    assert disagreement(counts=left).statistic == disagreement(counts=right).statistic == pytest.approx(0.2)
    with pytest.warns(tw.DegenerateDataWarning, match="zero"):
        assert yules_q(counts=left).statistic == -1
    assert yules_q(counts=right).statistic == pytest.approx(1500 / 1700)                # printed ≈ 0.88


# --------------------------------------------------------------------------- oracles


def test_labels_and_counts_agree_for_any_number_of_classes():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 300)
    a = np.where(rng.random(300) < 0.7, y, rng.integers(0, 4, 300))
    b = np.where(rng.random(300) < 0.6, y, rng.integers(0, 4, 300))
    t = contingency_table(y, a, b)
    ra, rb = a == y, b == y
    assert t.tolist() == [[np.sum(ra & rb), np.sum(ra & ~rb)], [np.sum(~ra & rb), np.sum(~ra & ~rb)]]
    for method in ("exact", "asymptotic"):
        assert mcnemar(y, a, b, method=method).pvalue == mcnemar(counts=t, method=method).pvalue
    assert yules_q(y, a, b).statistic == yules_q(counts=t).statistic


@pytest.mark.parametrize("seed", range(6))
def test_mcnemar_against_statsmodels_and_a_hand_mid_p(seed):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 40, size=(2, 2)) + np.array([[30, 0], [0, 5]])
    if t[0, 1] + t[1, 0] == 0:
        t[0, 1] = 1
    # statsmodels' table has the same layout; its statistic for exact is min(n10, n01)
    ex = sm_mcnemar(t, exact=True)
    assert mcnemar(counts=t, method="exact").pvalue == pytest.approx(ex.pvalue, rel=1e-10)
    for corr, method in ((False, "asymptotic"), (True, "corrected")):
        sm = sm_mcnemar(t, exact=False, correction=corr)
        ours = mcnemar(counts=t, method=method)
        assert ours.statistic == pytest.approx(sm.statistic) and ours.pvalue == pytest.approx(sm.pvalue)
    d, k = int(t[0, 1] + t[1, 0]), int(min(t[0, 1], t[1, 0]))
    pmf = [stats.binom.pmf(i, d, 0.5) for i in range(d + 1)]
    mid = min(1.0, 2 * (sum(pmf[:k]) + 0.5 * pmf[k]))
    assert mcnemar(counts=t, method="mid-p").pvalue == pytest.approx(mid, rel=1e-9)


def test_mcnemar_permutation_matches_its_exact_distribution():
    t = [[50, 18], [8, 10]]
    res = mcnemar(counts=t, method="permutation", n_resamples=40_000, rng=1)
    exact = stats.binomtest(8, 26, 0.5).pvalue   # P(|2X − d| ≥ |n10 − n01|) under Binomial(d, ½)
    assert res.pvalue == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 40_000))
    assert res.statistic == 10


def test_cohen_kappa_on_labels_against_sklearn_and_statsmodels():
    rng = np.random.default_rng(3)
    for k in (2, 3, 5):
        a = rng.integers(0, k, 400)
        b = np.where(rng.random(400) < 0.5, a, rng.integers(0, k, 400))
        res = cohen_kappa(a, b)
        assert res.statistic == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
        table = np.zeros((k, k))
        np.add.at(table, (a, b), 1)
        sm = sm_cohens_kappa(table)
        assert res.se == pytest.approx(sm.std_kappa, rel=1e-10)
        assert res.confidence_interval.low == pytest.approx(sm.kappa_low, rel=1e-10)
    # a class only one classifier predicts, and strings
    assert cohen_kappa(["x", "y", "z"], ["x", "y", "y"]).statistic == pytest.approx(
        cohen_kappa_score(["x", "y", "z"], ["x", "y", "y"]))


def test_yules_q_against_statsmodels_odds_ratio():
    t = np.array([[70, 12], [9, 14]])
    res = yules_q(counts=t)
    tab = Table2x2(t)
    odds = tab.oddsratio
    assert res.statistic == pytest.approx((odds - 1) / (odds + 1))
    lo, hi = tab.oddsratio_confint()
    assert res.confidence_interval.low == pytest.approx((lo - 1) / (lo + 1))
    assert res.confidence_interval.high == pytest.approx((hi - 1) / (hi + 1))


# --------------------------------------------------------------------------- calibration


@pytest.mark.slow
def test_mcnemar_type_one_error():
    """Null: P(n10) = P(n01). R = 2000 tables of n = 120 items; α = 0.05."""
    rng = np.random.default_rng(7)
    r, alpha = 2000, 0.05
    cells = rng.multinomial(120, [0.6, 0.12, 0.12, 0.16], size=r).reshape(r, 2, 2)
    se = np.sqrt(alpha * (1 - alpha) / r)
    rates = {}
    for method in ("exact", "mid-p", "asymptotic", "corrected", "permutation"):
        p = np.array([mcnemar(counts=t, method=method, n_resamples=199, rng=i).pvalue for i, t in enumerate(cells)])
        rates[method] = float(np.mean(p <= alpha))
    for method, rate in rates.items():
        assert rate <= alpha + 3 * se, (method, rate)
    # exact and continuity-corrected are conservative; mid-p and chi-square are close to nominal
    for method in ("mid-p", "asymptotic", "permutation"):
        assert abs(rates[method] - alpha) < 3 * se + 0.01, (method, rates[method])
    assert rates["exact"] <= rates["mid-p"] and rates["corrected"] <= rates["asymptotic"]


# --------------------------------------------------------------------------- bad and degenerate input


def test_no_discordant_items_gives_p_one_with_warning():
    for method in ("exact", "mid-p", "asymptotic", "corrected", "permutation"):
        with pytest.warns(tw.DegenerateDataWarning, match="no item"):
            res = mcnemar(counts=[[30, 0], [0, 10]], method=method)
        assert res.statistic == 0 and res.pvalue == 1


def test_degenerate_kappa_and_q():
    with pytest.warns(tw.DegenerateDataWarning, match="undefined"):
        assert np.isnan(cohen_kappa(["a", "a"], ["a", "a"]).statistic)
    with pytest.warns(tw.DegenerateDataWarning, match="undefined"):
        assert np.isnan(yules_q(counts=[[5, 0], [3, 0]]).statistic)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: mcnemar([1, 0, 1], [1, 0], [1, 1, 1]), ValueError, "same length"),
    (lambda: mcnemar([], [], []), ValueError, "`y_true` is empty"),
    (lambda: mcnemar([1, np.nan], [1, 0], [1, 1]), ValueError, "`y_true` has a missing value"),
    (lambda: mcnemar(counts=EX_14_1, method="fisher"), ValueError, "`method`"),
    (lambda: mcnemar([1], [1], [1], counts=EX_14_1), TypeError, "not both"),
    (lambda: mcnemar([1, 0]), TypeError, "pass the labels"),
    (lambda: mcnemar(counts=[[1, -1], [0, 2]]), ValueError, "non-negative"),
    (lambda: cohen_kappa(["a"], ["a", "b"]), ValueError, "same length"),
    (lambda: cohen_kappa(["a", "b"], ["a", "c"], classes=["a", "b"]), ValueError, "'c'"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# --------------------------------------------------------------------------- one meaning of "correct" (issue 14, item 11)


def _issue_data(n=500, seed=11):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)                                   # int 0/1 truth
    a = y.astype(bool)                                          # always right, as bool
    b = np.where(rng.random(n) < 0.716, y, 1 - y).astype(bool)  # about 72 % right, as bool
    return y, a, b


def test_compare_int_truth_with_bool_predictions_counts_them_right():
    y, a, b = _issue_data()
    acc_b = float(np.mean([int(p) == t for p, t in zip(b, y)]))      # by hand, Python's 1 == True
    with pytest.warns(tw.TrialwiseWarning):                          # A never errs: EC is 0 by construction
        rep = tw.compare(y, a, b, rng=0, n_resamples=199)
    assert rep.accuracy == {"A": 1.0, "B": pytest.approx(acc_b)}
    t = rep.contingency
    assert t.tolist() == [[int(np.sum(b == y)), int(np.sum(b != y))], [0, 0]]
    assert "accuracy A = 1.0000" in str(rep) and rep["accuracy[B]"].statistic == pytest.approx(acc_b)
    assert rep.recommendation.decision == "drop the weaker" and rep.recommendation.keep == "A"
    alone = tw.comparison.ensemble_recommendation(y, a, b)
    assert (alone.decision, alone.keep) == ("drop the weaker", "A")


def test_compare_int_truth_with_float_predictions_accuracy_matches_its_table():
    y, a, b = _issue_data(seed=12)
    with pytest.warns(tw.TrialwiseWarning):
        rep = tw.compare(y, a.astype(float), b.astype(float), rng=0, n_resamples=199)
    t = rep.contingency
    assert rep.accuracy["A"] == (t[0, 0] + t[0, 1]) / t.sum() == 1.0
    assert rep.accuracy["B"] == pytest.approx((t[0, 0] + t[1, 0]) / t.sum())
    assert rep.accuracy["B"] == pytest.approx(np.mean(b.astype(float) == y))


def test_cli_compare_text_one_matches_one_point_zero(tmp_path, capsys):
    from trialwise.cli import main

    y, _, b = _issue_data(n=60, seed=13)
    pd.DataFrame({"y": y.astype(str), "a": y.astype(float), "b": b.astype(float)}).to_csv(tmp_path / "p.csv",
                                                                                           index=False)
    assert "1.0" in (tmp_path / "p.csv").read_text() and ",1," not in (tmp_path / "p.csv").read_text()[:20]
    assert main(["compare", str(tmp_path / "p.csv"), "--truth", "y", "--a", "a", "--b", "b", "--seed", "0",
                 "--resamples", "99"]) == 0
    out = capsys.readouterr().out
    assert f"accuracy a = 1.0000, b = {np.mean(b == y):.4f}" in out


def test_incomparable_label_kinds_are_a_type_error_not_a_singular_matrix():
    with pytest.raises(TypeError, match=r"mix numbers \(in `pred_a`, `pred_b`\) with text that is not a number "
                                        r"\('a' in `pred_b`\)"):
        tw.compare(["1", "1"], ["1", True], ["a", 2])
    with pytest.raises(TypeError, match=r"`y_true` holds bool; `pred_a` holds str"):
        contingency_table([True, False], ["yes", "no"], ["yes", "yes"])


@pytest.mark.parametrize("missing", [pd.NaT, np.float32("nan"), pd.NA, None, np.nan])
def test_missing_labels_are_errors_everywhere(missing):
    y, a, b = [1, 0, 1, 0], [1, 0, 0, 1], [1, 1, 1, 0]
    for call, arg in [(lambda: tw.compare([1, 0, 1, missing], a, b), "y_true"),
                      (lambda: contingency_table(y, a, [1, 1, 1, missing]), "pred_b"),
                      (lambda: mcnemar(y, [1, 0, 0, missing], b), "pred_a"),
                      (lambda: cohen_kappa([missing, 0, 0, 1], b), "pred_a"),
                      (lambda: tw.comparison.agreement_matrix(a, [missing, 1, 1, 0]), "pred_b"),
                      (lambda: tw.error_consistency(a, b, truth=[1, 0, missing, 0]), "truth"),
                      (lambda: tw.comparison.brier_score([1, missing, 1, 0], [0.9, 0.2, 0.7, 0.1]), "y_true")]:
        with pytest.raises(ValueError, match=rf"`{arg}` has a missing value at position"):
            call()


def test_agreement_counts_reject_complex_huge_and_python_big_integers():
    with pytest.raises(TypeError, match=r"`counts` must hold real counts; got complex"):
        disagreement(counts=[[1j, 0], [0, 1]])
    for huge in (2**63, 2**64, 1e19):
        with pytest.raises(ValueError, match=r"`counts` holds more than 2\*\*53 items"):
            cohen_kappa(counts=[[huge, 0], [0, 1]])
    with pytest.raises(ValueError, match=r"`counts` holds more than 2\*\*53"):
        contingency_table(counts=[[2**62, 2**62], [2**62, 2**62]])          # int64 sum would wrap negative
    t = contingency_table(counts=[[2**52, 1], [1, 2**52 - 2]])
    assert t.dtype == np.int64 and (t >= 0).all() and int(t.sum()) == 2**53


def test_dataframe_counts_index_and_columns_compared_by_the_rule():
    n = pd.DataFrame([[5, 1], [2, 4]], index=[0, 1], columns=["0", "1.0"])
    assert cohen_kappa(counts=n).statistic == pytest.approx(float(tw.ec.kappa_from_counts([[5, 1], [2, 4]])))
    with pytest.raises(ValueError, match="must name the same classes"):
        cohen_kappa(counts=pd.DataFrame([[5, 1], [2, 4]], index=[0, 1], columns=[1, 0]))
