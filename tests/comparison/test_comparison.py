"""Classifier comparison beyond the 2×2 table (seed 001 §14.2–§14.3): the chapter's Examples 14.6–14.14,
oracles (statsmodels, scikit-learn, scipy, brute force), type-I error, bad input, and compare()."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
from statsmodels.stats.contingency_tables import SquareTable

import trialwise as tw
import trialwise._stats.significance
from trialwise.comparison import (
    agreement_matrix,
    auc,
    bowker_test,
    brier_score,
    brier_skill_score,
    calibration_curve,
    cohen_kappa,
    delong_test,
    disagreement,
    ensemble_recommendation,
    error_correlation,
    expected_calibration_error,
    mcnemar,
    paired_ttest,
    sample_scores,
    score_difference,
    stuart_maxwell_test,
    symmetry_permutation_test,
    wilcoxon_test,
    yules_q,
)

# Example 14.8 / 14.9: M = 6 binary items, two classifiers
Y6 = [1, 0, 1, 0, 1, 0]
P1 = [0.90, 0.20, 0.70, 0.30, 0.60, 0.15]
P2 = [0.75, 0.10, 0.85, 0.40, 0.80, 0.25]
# Example 14.10: the 3-class agreement matrix (C1 in rows)
N_14_10 = np.array([[70, 6, 4], [10, 55, 5], [8, 7, 35]])
# Example 14.12 / 14.13: K = 3, M = 6
Y3 = list("AABBCC")
Q1 = np.array([[.80, .15, .05], [.45, .40, .15], [.10, .70, .20], [.30, .50, .20], [.20, .25, .55], [.35, .40, .25]])
Q2 = np.array([[.60, .30, .10], [.55, .30, .15], [.20, .55, .25], [.25, .60, .15], [.30, .20, .50], [.20, .35, .45]])


def _expand(matrix, labels="ABC"):
    """The item-level predictions behind an agreement matrix."""
    a, b = [], []
    for j, row in enumerate(matrix):
        for k, count in enumerate(row):
            a += [labels[j]] * int(count)
            b += [labels[k]] * int(count)
    return np.array(a), np.array(b)


def _exact_symmetry_pvalue(matrix, statistic):
    """Exact permutation p-value: the pair counts are independent Binomial(t, ½); convolve."""
    j, k = np.triu_indices(len(matrix), 1)
    up, low = np.asarray(matrix)[j, k], np.asarray(matrix)[k, j]
    dist = {0.0: 1.0}
    for t in (up + low)[(up + low) > 0]:
        new: dict = {}
        for s, pr in dist.items():
            for x in range(t + 1):
                gap = abs(2 * x - t)
                val = round(s + (gap if statistic == "asymmetry" else gap * gap / t), 9)
                new[val] = new.get(val, 0.0) + pr * stats.binom.pmf(x, t, 0.5)
        dist = new
    gap = np.abs(up - low)
    tot = up + low
    obs = gap.sum() if statistic == "asymmetry" else np.sum(gap[tot > 0] ** 2 / tot[tot > 0])
    return sum(pr for s, pr in dist.items() if s >= round(obs, 9) - 1e-9)


# --------------------------------------------------------------------------- the chapter's examples


def test_example_14_6_brier():
    res = brier_score([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1])
    assert res.statistic == pytest.approx((0.01 + 0.04 + 0.09 + 0.01) / 4)            # printed 0.0375
    assert res.statistic == pytest.approx(brier_score_loss([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1]))
    assert sample_scores([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1]).tolist() == [0.01, 0.04, 0.09, 0.01]
    # reference values of §14.2.2: constant 0.5 gives 0.25; the base rate gives π(1 − π)
    y = np.array([1] * 10 + [0] * 90)
    assert brier_score(y, np.full(100, 0.5)).statistic == pytest.approx(0.25)
    assert brier_score(y, np.full(100, 0.1)).statistic == pytest.approx(0.09)
    assert brier_skill_score(y, np.full(100, 0.1)).statistic == pytest.approx(0.0, abs=1e-12)
    assert brier_score(y, np.zeros(100)).statistic == pytest.approx(0.10)               # majority vote: min(π, 1 − π)


def test_example_14_8_ece_with_two_bins():
    c1 = calibration_curve(Y6, P1, n_bins=2)
    c2 = calibration_curve(Y6, P2, n_bins=2)
    assert c1.table["mean_predicted"].round(3).tolist() == [0.217, 0.733]               # the printed bin table
    assert c2.table["mean_predicted"].round(3).tolist() == [0.250, 0.800]
    assert c1.table["observed"].tolist() == c2.table["observed"].tolist() == [0.0, 1.0]
    assert c1.statistic == pytest.approx(0.5 * 0.65 / 3 + 0.5 * (1 - 2.2 / 3))                # 0.108 + 0.133
    assert round(c1.statistic, 3) == 0.242 and round(c2.statistic, 3) == 0.225
    assert expected_calibration_error(Y6, P2, n_bins=2).statistic == pytest.approx(0.225)


def test_example_14_9_paired_scores():
    s1, s2 = sample_scores(Y6, P1), sample_scores(Y6, P2)
    printed_1 = [0.010, 0.040, 0.090, 0.090, 0.160, 0.023]
    printed_2 = [0.063, 0.010, 0.023, 0.160, 0.040, 0.063]
    assert s1.tolist() == pytest.approx(printed_1, abs=5.1e-4) and s2.tolist() == pytest.approx(printed_2, abs=5.1e-4)
    assert s1.mean() == pytest.approx(0.06875) and round(s2.mean(), 3) == 0.060        # S̄1 0.069, S̄2 0.060
    d = score_difference(Y6, P1, P2)
    assert round(d.statistic, 3) == 0.009                                              # δ̄ = +0.009
    # ERRATUM: s_δ is 0.0756, not 0.072, so t = 0.297 (≈ 0.30, not 0.31) and p = 0.779 (≈ 0.78, not 0.77)
    diffs = s1 - s2
    assert diffs.std(ddof=1) == pytest.approx(0.07564, abs=1e-5)
    t = paired_ttest(Y6, P1, P2)
    oracle = stats.ttest_rel(np.array(Y6) * 0 + s1, s2)
    assert t.statistic == pytest.approx(oracle.statistic, abs=1e-12) and t.pvalue == pytest.approx(oracle.pvalue)
    assert round(t.statistic, 2) == 0.30 and round(t.pvalue, 2) == 0.78
    assert t.statistic == pytest.approx(diffs.mean() / (diffs.std(ddof=1) / np.sqrt(6)))
    # the same d.f. and CI from the t distribution
    assert d.confidence_interval.low == pytest.approx(oracle.confidence_interval().low)
    # Wilcoxon: W+ = 11, W− = 10, W = 10; exact two-sided p = 1 (the critical value at n = 6 is 0)
    w = wilcoxon_test(Y6, P1, P2)
    assert (w.statistic, w.w_plus, w.w_minus) == (10.0, 11.0, 10.0)
    assert w.pvalue == pytest.approx(stats.wilcoxon(s1, s2).pvalue) == pytest.approx(1.0)
    # ERRATUM: Pearson r is +0.045 (+0.043 on the printed, rounded scores), not −0.18
    r = error_correlation(Y6, P1, P2)
    assert r.statistic == pytest.approx(stats.pearsonr(s1, s2).statistic, abs=1e-12)
    assert round(r.statistic, 3) == 0.045
    assert round(stats.pearsonr(printed_1, printed_2).statistic, 3) == 0.043
    # Spearman r_s ≈ −0.18 is right (−0.176), with the table's tied ranks (0.09 = 0.3² = (0.7 − 1)²)
    rs = error_correlation(Y6, P1, P2, method="spearman")
    r1, r2 = [1, 3, 4.5, 4.5, 6, 2], [4.5, 1, 2, 6, 3, 4.5]                              # the printed ranks
    assert rs.statistic == pytest.approx(stats.pearsonr(r1, r2).statistic, abs=1e-12)
    assert round(rs.statistic, 2) == -0.18


def test_example_14_9_auc_both_perfect():
    # §14.2.7: both classifiers separate the classes perfectly, so DeLong cannot tell them apart
    for p in (P1, P2):
        with pytest.warns(tw.DegenerateDataWarning, match="no width"):     # issue 29: was a silent [1, 1]
            assert auc(Y6, p).statistic == 1.0
    with pytest.warns(tw.DegenerateDataWarning, match="no variance"):
        res = delong_test(Y6, P1, P2)
    assert res.statistic == 0 and res.pvalue == 1


def test_example_14_10_agreement_matrix_tests():
    a, b = _expand(N_14_10)
    assert (agreement_matrix(a, b).to_numpy() == N_14_10).all()
    assert disagreement(a, b).statistic == pytest.approx(0.20) == disagreement(counts=N_14_10).statistic
    bw = bowker_test(a, b)
    assert bw.statistic == pytest.approx(16 / 16 + 16 / 12 + 4 / 12) and round(bw.statistic, 2) == 2.67
    assert bw.df == 3 and round(bw.pvalue, 2) == 0.45
    contrib = bw.contributions
    assert contrib["contribution"].round(2).tolist() == [1.00, 1.33, 0.33]             # printed per-pair terms
    sm_bowker = SquareTable(N_14_10, shift_zeros=False).symmetry("bowker")
    assert bw.statistic == pytest.approx(sm_bowker.statistic) and bw.pvalue == pytest.approx(sm_bowker.pvalue)
    # ERRATUM: Stuart-Maxwell is χ² = 2.64, p = 0.268 — not "≈ 2.0, p ≈ 0.37" — for d = (−8, 2, 6)
    sm = stuart_maxwell_test(counts=N_14_10)
    assert list(sm.marginal_difference.values()) == [-8, 2, 6]
    oracle = SquareTable(N_14_10, shift_zeros=False).homogeneity("stuart_maxwell")
    assert sm.statistic == pytest.approx(oracle.statistic, abs=1e-10) and sm.pvalue == pytest.approx(oracle.pvalue)
    assert sm.statistic == pytest.approx(1392 / 528)                                   # by hand: d'V⁻¹d on (A, B)
    assert round(sm.pvalue, 3) == 0.268
    # permutation: S = 10, p ≈ 0.4 (exact 0.426)
    exact = _exact_symmetry_pvalue(N_14_10, "asymmetry")
    assert round(exact, 3) == 0.426
    perm = symmetry_permutation_test(a, b, n_resamples=20_000, rng=1)
    assert perm.statistic == 10 and round(perm.pvalue, 1) == 0.4
    assert abs(perm.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000)
    # multi-class κ = 0.692, p_e = 0.350
    k = cohen_kappa(a, b)
    assert k.statistic == pytest.approx(0.45 / 0.65) and k.p_e == pytest.approx(0.35)
    assert cohen_kappa(counts=N_14_10).statistic == k.statistic


def test_example_14_11_multiclass_brier():
    p = [[0.8, 0.1, 0.1], [0.3, 0.5, 0.2], [0.2, 0.2, 0.6]]
    res = brier_score(list("ABC"), p)
    assert res.statistic == pytest.approx(0.68 / 3) and round(res.statistic, 3) == 0.227
    assert sample_scores(list("ABC"), p).tolist() == [0.06, 0.38, 0.24]
    assert "multiclass" in res.notes[0]
    assert brier_score(list("ABC"), np.full((3, 3), 1 / 3)).statistic == pytest.approx(2 / 3)   # uniform: 1 − 1/K


def test_example_14_12_top_label_and_classwise_ece():
    top = calibration_curve(Y3, Q1, n_bins=2)
    assert top.kind == "top-label"
    assert top.table["count"].tolist() == [2, 4]                                       # samples {2, 6}, {1, 3, 4, 5}
    assert top.table["mean_predicted"].tolist() == pytest.approx([0.425, 0.6375])
    assert top.table["observed"].tolist() == [0.5, 1.0]
    assert top.statistic == pytest.approx(2 / 6 * 0.075 + 4 / 6 * 0.3625) and round(top.statistic, 3) == 0.267
    cw = expected_calibration_error(Y3, Q1, n_bins=2, kind="classwise")
    per = cw.per_class
    assert per["A"] == pytest.approx(0.100) and per["B"] == pytest.approx(1 / 3) and per["C"] == pytest.approx(0.100)
    assert cw.statistic == pytest.approx((0.1 + 1 / 3 + 0.1) / 3) and round(cw.statistic, 3) == 0.178
    table = cw.curve.table
    assert table["mean_predicted"].round(3).tolist() == [0.28, 0.8, 0.3, 0.6, 0.17, 0.55]   # the printed table


def test_example_14_13_multiclass_per_sample_scores():
    s1, s2 = sample_scores(Y3, Q1), sample_scores(Y3, Q2)
    assert s1.tolist() == pytest.approx([0.065, 0.485, 0.140, 0.380, 0.305, 0.845])
    assert s2.tolist() == pytest.approx([0.260, 0.315, 0.305, 0.245, 0.380, 0.465])
    assert round(s1.mean(), 3) == 0.370 and round(s2.mean(), 3) == 0.328
    assert round(score_difference(Y3, Q1, Q2).statistic, 3) == 0.042
    assert round(np.std(s1 - s2, ddof=1), 3) == 0.224                                   # printed "≈ 0.225"
    t = paired_ttest(Y3, Q1, Q2)
    assert round(t.statistic, 2) == 0.45 and round(t.pvalue, 2) == 0.67                  # printed t ≈ 0.46 (0.4546)
    assert t.statistic == pytest.approx(stats.ttest_rel(s1, s2).statistic)
    r = error_correlation(Y3, Q1, Q2)
    assert round(r.statistic, 2) == 0.75 and r.statistic == pytest.approx(stats.pearsonr(s1, s2).statistic)


def test_example_14_14_ensemble_decision():
    # the binary worked example n11 = 150, n10 = 25, n01 = 15, n00 = 10, as items with a balanced truth
    y, a, b = [], [], []
    for count, (ra, rb) in ((150, (1, 1)), (25, (1, 0)), (15, (0, 1)), (10, (0, 0))):
        for i in range(count):
            t = i % 2
            y.append(t)
            a.append(t if ra else 1 - t)
            b.append(t if rb else 1 - t)
    assert (tw.comparison.contingency_table(y, a, b) == [[150, 25], [15, 10]]).all()
    rec = ensemble_recommendation(y, a, b)
    assert rec.decision == "symmetric fusion" and rec.fusion == "symmetric" and rec.keep is None
    cp = rec.checkpoints
    assert cp["mcnemar_p"] == pytest.approx(stats.binomtest(15, 40).pvalue)             # exact: 0.154 > 0.05
    assert cp["accuracy_gap"] == pytest.approx(0.05)
    assert cp["yules_q"] == pytest.approx(0.6)
    assert cp["bowker_p"] > 0.05
    assert any("soft averaging" in r for r in rec.reasons)
    # with the chapter's χ² McNemar (p ≈ 0.11) the decision is the same
    assert ensemble_recommendation(y, a, b, mcnemar_method="asymptotic").decision == "symmetric fusion"


# --------------------------------------------------------------------------- the other decisions


def _two_classifiers(n, acc_a, acc_b, k=3, seed=0, copy=0.0):
    gen = np.random.default_rng(seed)
    y = gen.integers(0, k, n)

    def noisy(acc):
        wrong = gen.random(n) > acc
        return np.where(wrong, (y + gen.integers(1, k, n)) % k, y)

    a = noisy(acc_a)
    b = np.where(gen.random(n) < copy, a, noisy(acc_b))
    return y, a, b


def test_ensemble_drops_the_weaker_and_refuses_redundant_pairs():
    y, a, b = _two_classifiers(600, 0.9, 0.7)
    rec = ensemble_recommendation(y, a, b, names=("strong", "weak"))
    assert rec.decision == "drop the weaker" and rec.keep == "strong"
    y, a, b = _two_classifiers(600, 0.8, 0.8, copy=0.95)
    rec = ensemble_recommendation(y, a, b)
    assert rec.decision == "no ensemble" and rec.checkpoints["yules_q"] >= 0.8
    y = np.zeros(50, int)
    y[:5] = 1
    assert ensemble_recommendation(y, 1 - y, 1 - y).decision == "no ensemble"           # neither beats the baseline


def test_ensemble_asymmetric_fusion_and_calibrate_first():
    gen = np.random.default_rng(3)
    y = gen.integers(0, 3, 900)
    a, b = y.copy(), y.copy()
    err_a, err_b = gen.random(900) < 0.2, gen.random(900) < 0.2
    a[err_a] = (y[err_a] + 1) % 3          # A confuses k → k+1, B confuses k → k+2: asymmetric
    b[err_b] = (y[err_b] + 2) % 3
    rec = ensemble_recommendation(y, a, b)
    assert rec.decision == "asymmetric fusion" and rec.checkpoints["bowker_p"] < 0.05
    # binary probabilities: each classifier sees one of two features; B's probabilities are
    # sharpened (over-confident) → calibrate first
    x1, x2 = gen.normal(size=3000), gen.normal(size=3000)
    yb = (gen.random(3000) < 1 / (1 + np.exp(-(2 * x1 + 2 * x2)))).astype(int)
    p_good, p_sharp = 1 / (1 + np.exp(-1.25 * x1)), 1 / (1 + np.exp(-5 * x2))
    rec = ensemble_recommendation(yb, (p_good > 0.5).astype(int), (p_sharp > 0.5).astype(int), p_good, p_sharp)
    assert rec.decision == "calibrate first" and rec.fusion == "symmetric"
    assert rec.checkpoints["ece_B"] > 0.1 > rec.checkpoints["ece_A"]
    assert "error_correlation" in rec.checkpoints


# --------------------------------------------------------------------------- oracles on random data


def _random_proba(gen, n, k, sharp=1.0):
    y = gen.integers(0, k, n)
    z = gen.normal(size=(n, k))
    z[np.arange(n), y] += 1.0
    p = np.exp(sharp * z)
    return y, p / p.sum(axis=1, keepdims=True)


def test_square_table_oracles_on_random_tables():
    gen = np.random.default_rng(5)
    for _ in range(40):
        k = int(gen.integers(2, 6))
        mat = gen.integers(1, 30, (k, k))                                             # no empty pair
        st = SquareTable(mat, shift_zeros=False)
        bw, sm = bowker_test(counts=mat), stuart_maxwell_test(counts=mat)
        assert bw.statistic == pytest.approx(st.symmetry("bowker").statistic, rel=1e-10)
        assert bw.pvalue == pytest.approx(st.symmetry("bowker").pvalue, rel=1e-9)
        assert sm.statistic == pytest.approx(st.homogeneity("stuart_maxwell").statistic, rel=1e-9)
        assert sm.pvalue == pytest.approx(st.homogeneity("stuart_maxwell").pvalue, rel=1e-8)
        if k == 2:   # Bowker at K = 2 is McNemar's χ² without continuity correction
            mc = mcnemar(counts=mat, method="asymptotic")
            assert bw.statistic == pytest.approx(mc.statistic) and bw.pvalue == pytest.approx(mc.pvalue)


def test_bowker_empty_pairs_do_not_count_as_degrees_of_freedom():
    mat = [[10, 3, 0], [1, 12, 0], [0, 0, 9]]
    res = bowker_test(counts=mat)
    assert res.df == 1 and res.statistic == pytest.approx(4 / 4)
    assert res.pvalue == pytest.approx(stats.chi2.sf(1.0, 1))
    assert "permutation test is exact" in res.notes[0]
    sm = stuart_maxwell_test(counts=mat)       # class C never disagrees: left out, df = 1
    assert sm.df == 1 and sm.statistic == pytest.approx(4 / 4)


def test_permutation_test_matches_the_exact_distribution():
    for mat, statistic in (([[5, 9, 2], [3, 8, 1], [6, 0, 4]], "asymmetry"), ([[5, 9, 2], [3, 8, 1], [6, 0, 4]], "bowker"),
                           ([[30, 12], [4, 20]], "asymmetry")):
        exact = _exact_symmetry_pvalue(mat, statistic)
        res = symmetry_permutation_test(counts=mat, statistic=statistic, n_resamples=20_000, rng=2)
        assert abs(res.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4
    # at K = 2 it is the permutation McNemar
    mc = mcnemar(counts=[[30, 12], [4, 20]], method="permutation", n_resamples=20_000, rng=2)
    assert abs(mc.pvalue - _exact_symmetry_pvalue([[30, 12], [4, 20]], "asymmetry")) < 0.01


def test_permutation_by_pair_binomials_equals_swapping_items():
    # brute force: swap each disagreeing item with probability ½, rebuild the matrix, recompute S
    gen = np.random.default_rng(4)
    a, b = _expand([[5, 9, 2], [3, 8, 1], [6, 0, 4]])
    brute = []
    for _ in range(3000):
        swap = gen.random(len(a)) < 0.5
        aa, bb = np.where(swap, b, a), np.where(swap, a, b)
        m = agreement_matrix(aa, bb, classes="ABC").to_numpy()
        brute.append(np.abs(m - m.T)[np.triu_indices(3, 1)].sum())
    fast_p = symmetry_permutation_test(a, b, n_resamples=3000, rng=5).pvalue
    observed = symmetry_permutation_test(a, b, n_resamples=1, rng=0).statistic
    assert observed == 6 + 4 + 1
    brute_p = (1 + np.sum(np.array(brute) >= observed)) / 3001
    assert abs(fast_p - brute_p) < 4 * np.sqrt(brute_p * (1 - brute_p) / 1500)


def test_brier_and_log_loss_against_sklearn():
    gen = np.random.default_rng(6)
    y = gen.integers(0, 2, 300)
    p = gen.random(300)
    assert brier_score(y, p).statistic == pytest.approx(brier_score_loss(y, p), abs=1e-12)
    assert brier_score(y, p, convention="multiclass").statistic == pytest.approx(2 * brier_score_loss(y, p))
    assert sample_scores(y, p, scoring_rule="log-loss").mean() == pytest.approx(log_loss(y, p), abs=1e-10)
    y3, p3 = _random_proba(gen, 400, 4)
    assert sample_scores(y3, p3, scoring_rule="log-loss").mean() == pytest.approx(log_loss(y3, p3), abs=1e-10)
    onehot = np.eye(4)[y3]
    assert brier_score(y3, p3).statistic == pytest.approx(np.mean(np.sum((p3 - onehot) ** 2, axis=1)))
    # t interval of the mean per-sample score
    s = sample_scores(y, p)
    ci = stats.ttest_1samp(s, 0).confidence_interval(0.9)
    res = brier_score(y, p, confidence_level=0.9)
    assert res.confidence_interval.low == pytest.approx(ci.low) and res.confidence_interval.high == pytest.approx(ci.high)


def test_calibration_curve_against_sklearn_and_empty_bins():
    gen = np.random.default_rng(7)
    y = gen.integers(0, 2, 500)
    p = gen.beta(2, 5, 500)                                   # few large values: empty upper bins
    for strategy in ("uniform", "quantile"):
        ours = calibration_curve(y, p, n_bins=10, bin_strategy=strategy)
        prob_true, prob_pred = sk_calibration_curve(y, p, n_bins=10, strategy=strategy)
        full = ours.table[ours.table["count"] > 0]
        assert full["observed"].to_numpy() == pytest.approx(prob_true)
        assert full["mean_predicted"].to_numpy() == pytest.approx(prob_pred)
        assert len(ours.table) == 10 and ours.table["count"].sum() == 500
    uniform = calibration_curve(y, p, n_bins=10)
    empty = uniform.table[uniform.table["count"] == 0]
    assert len(empty) > 0 and empty["observed"].isna().all()                          # reported, not dropped
    assert "empty" in expected_calibration_error(y, p, n_bins=10).notes[0]
    # ECE by brute force
    bins = np.minimum((p * 10).astype(int), 9)
    brute = sum(np.mean(bins == b) * abs(y[bins == b].mean() - p[bins == b].mean()) for b in np.unique(bins))
    assert uniform.statistic == pytest.approx(brute)
    # a value on an edge belongs to the upper bin: [0, 0.5), [0.5, 1]
    assert calibration_curve([1, 0], [0.5, 0.2], n_bins=2).table["count"].tolist() == [1, 1]


def test_paired_tests_against_scipy():
    gen = np.random.default_rng(8)
    y, pa = _random_proba(gen, 120, 3)
    _, pb = _random_proba(gen, 120, 3, sharp=1.5)
    pb = pb[np.argsort(gen.random(120))]
    sa, sb = sample_scores(y, pa), sample_scores(y, pb)
    for score in ("brier", "log-loss"):
        sa, sb = sample_scores(y, pa, scoring_rule=score), sample_scores(y, pb, scoring_rule=score)
        t = paired_ttest(y, pa, pb, scoring_rule=score)
        assert t.statistic == pytest.approx(stats.ttest_rel(sa, sb).statistic, abs=1e-12)
        assert t.pvalue == pytest.approx(stats.ttest_rel(sa, sb).pvalue, abs=1e-12)
        w = wilcoxon_test(y, pa, pb, scoring_rule=score)
        assert w.statistic == stats.wilcoxon(sa, sb).statistic and w.pvalue == pytest.approx(stats.wilcoxon(sa, sb).pvalue)
        r = error_correlation(y, pa, pb, scoring_rule=score)
        assert r.statistic == pytest.approx(stats.pearsonr(sa, sb).statistic, abs=1e-12)
        ci = stats.pearsonr(sa, sb).confidence_interval()
        assert (r.confidence_interval.low, r.confidence_interval.high) == pytest.approx((ci.low, ci.high))
        rs = error_correlation(y, pa, pb, scoring_rule=score, method="spearman")
        assert rs.statistic == pytest.approx(stats.spearmanr(sa, sb).statistic, abs=1e-12)
        assert rs.pvalue == pytest.approx(stats.spearmanr(sa, sb).pvalue, abs=1e-12)


def _brute_delong(y, sa, sb):
    """DeLong et al. (1988) from the definition: placement values by double loops over items."""
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)

    def psi(x, z):
        return 1.0 if x > z else (0.5 if x == z else 0.0)

    v10 = np.array([[np.mean([psi(s[i], s[j]) for j in neg]) for i in pos] for s in (sa, sb)])
    v01 = np.array([[np.mean([psi(s[i], s[j]) for i in pos]) for j in neg] for s in (sa, sb)])
    aucs = v10.mean(axis=1)
    cov = np.cov(v10) / len(pos) + np.cov(v01) / len(neg)
    return aucs, cov


def test_delong_against_brute_force_placements_and_mann_whitney():
    gen = np.random.default_rng(9)
    for n in (30, 61):
        y = gen.integers(0, 2, n)
        sa = np.round(y * 0.8 + gen.normal(size=n), 1)          # rounding makes ties
        sb = np.round(y * 0.5 + 0.5 * sa + gen.normal(size=n), 1)
        pa, pb = 1 / (1 + np.exp(-sa)), 1 / (1 + np.exp(-sb))
        aucs, cov = _brute_delong(y, pa, pb)
        res = delong_test(y, pa, pb)
        assert (res.auc_a, res.auc_b) == pytest.approx(tuple(aucs), abs=1e-12)
        var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
        assert res.se == pytest.approx(np.sqrt(var), rel=1e-10)
        assert res.z == pytest.approx((aucs[0] - aucs[1]) / np.sqrt(var), rel=1e-10)
        mw = stats.mannwhitneyu(pa[y == 1], pa[y == 0]).statistic / (np.sum(y == 1) * np.sum(y == 0))
        assert res.auc_a == pytest.approx(mw) == pytest.approx(roc_auc_score(y, pa))
        single = auc(y, pa)
        assert single.se == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-10)


def test_multiclass_auc_against_sklearn():
    gen = np.random.default_rng(10)
    y, p = _random_proba(gen, 300, 4)
    labels = np.array(list("wxyz"))[y]
    assert auc(labels, p).statistic == pytest.approx(roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)
    assert auc(labels, p, multi_class="ovo").statistic == pytest.approx(roc_auc_score(y, p, multi_class="ovo"),
                                                                        abs=1e-12)
    per = auc(labels, p).per_class
    assert per["auc"].tolist() == pytest.approx([roc_auc_score(y == k, p[:, k]) for k in range(4)])
    frame = pd.DataFrame(p, columns=list("wxyz"))
    assert auc(labels, frame).statistic == auc(labels, p).statistic                   # DataFrame columns name classes


def test_macro_delong_reduces_to_binary_and_matches_a_stratified_bootstrap():
    gen = np.random.default_rng(11)
    y = gen.integers(0, 2, 200)
    pa, pb = 1 / (1 + np.exp(-(y + gen.normal(size=200)))), 1 / (1 + np.exp(-(0.7 * y + gen.normal(size=200))))
    two = delong_test(y, np.column_stack([1 - pa, pa]), np.column_stack([1 - pb, pb]))
    assert two.se == pytest.approx(delong_test(y, pa, pb).se, rel=1e-12)
    # K = 4: the macro difference's SE vs a class-stratified bootstrap
    y, p1 = _random_proba(gen, 600, 4)
    _, p2 = _random_proba(gen, 600, 4)
    p2 = np.where(np.eye(4, dtype=bool)[y], p1 + 0.0, p2) * 0 + (p1 + p2) / 2            # correlated with A
    res = delong_test(y, p1, p2)
    ovo = delong_test(y, p1, p2, multi_class="ovo")
    boot, boot_ovo = [], []
    idx = [np.flatnonzero(y == k) for k in range(4)]
    for _ in range(400):
        s = np.concatenate([gen.choice(i, len(i)) for i in idx])
        boot.append(roc_auc_score(y[s], p1[s], multi_class="ovr") - roc_auc_score(y[s], p2[s], multi_class="ovr"))
        boot_ovo.append(roc_auc_score(y[s], p1[s], multi_class="ovo") - roc_auc_score(y[s], p2[s], multi_class="ovo"))
    assert res.se == pytest.approx(np.std(boot), rel=0.15)
    assert ovo.se == pytest.approx(np.std(boot_ovo), rel=0.15)
    table = res.per_class
    assert table["p_adjusted"].tolist() == pytest.approx(trialwise._stats.significance.adjust_pvalues(table["pvalue"], "holm"))
    bonf = delong_test(y, p1, p2, adjust="bonferroni").per_class
    assert bonf["p_adjusted"].tolist() == pytest.approx(np.minimum(4 * table["pvalue"], 1).tolist())


# --------------------------------------------------------------------------- type-I error


def _within(rate, alpha, reps):
    return rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)


def test_type_one_error_bowker_stuart_maxwell_permutation():
    gen = np.random.default_rng(12)
    joint = np.array([[0.30, 0.04, 0.02], [0.04, 0.25, 0.03], [0.02, 0.03, 0.27]])   # symmetric: H0 of both tests
    joint /= joint.sum()
    reps, n = 1500, 200
    rej = {"bowker": 0, "sm": 0, "perm": 0}
    perm_reps = 400
    for r in range(reps):
        mat = gen.multinomial(n, joint.ravel()).reshape(3, 3)
        rej["bowker"] += bowker_test(counts=mat).pvalue < 0.05
        rej["sm"] += stuart_maxwell_test(counts=mat).pvalue < 0.05
        if r < perm_reps:
            rej["perm"] += symmetry_permutation_test(counts=mat, n_resamples=199, rng=gen).pvalue < 0.05
    assert _within(rej["bowker"] / reps, 0.05, reps) and rej["bowker"] / reps > 0.03
    assert _within(rej["sm"] / reps, 0.05, reps) and rej["sm"] / reps > 0.03
    assert _within(rej["perm"] / perm_reps, 0.05, perm_reps)


def test_type_one_error_delong():
    gen = np.random.default_rng(13)
    reps, n = 800, 150
    rej_bin = rej_macro = 0
    for _ in range(reps):
        y = gen.integers(0, 2, n)
        common = gen.normal(size=n)
        sa = y + common + gen.normal(size=n)           # equal true AUCs, correlated scores
        sb = y + common + gen.normal(size=n)
        rej_bin += delong_test(y, 1 / (1 + np.exp(-sa)), 1 / (1 + np.exp(-sb))).pvalue < 0.05
        y3 = gen.integers(0, 3, n)
        za, zb = gen.normal(size=(n, 3)), gen.normal(size=(n, 3))
        za[np.arange(n), y3] += 1
        zb[np.arange(n), y3] += 1
        pa, pb = np.exp(za) / np.exp(za).sum(1, keepdims=True), np.exp(zb) / np.exp(zb).sum(1, keepdims=True)
        rej_macro += delong_test(y3, pa, pb).pvalue < 0.05
    assert _within(rej_bin / reps, 0.05, reps) and rej_bin / reps > 0.025
    assert _within(rej_macro / reps, 0.05, reps) and rej_macro / reps > 0.025


# --------------------------------------------------------------------------- compare()


def test_compare_binary_with_probabilities_has_every_method():
    gen = np.random.default_rng(14)
    x = gen.normal(size=400)
    y = (gen.random(400) < 1 / (1 + np.exp(-2 * x))).astype(int)
    pa = 1 / (1 + np.exp(-2 * x))
    pb = 1 / (1 + np.exp(-2 * x - gen.normal(size=400)))
    rep = tw.compare(y, proba_a=pa, proba_b=pb, rng=0, names=("lr", "noisy"))
    frame = rep.to_frame()
    assert list(frame.columns) == ["key", "method", "statistic", "pvalue", "ci_low", "ci_high", "n", "note"]
    methods = set(frame["method"])
    for m in ("McNemar (exact)", "McNemar (mid-p)", "McNemar (asymptotic)", "McNemar (corrected)",
              "McNemar (permutation)", "Yule's Q", "Cohen's kappa (labels)", "disagreement",
              "Brier score [lr]", "Brier skill score [noisy]", "ECE (binary) [lr]", "AUC [noisy]",
              "score difference (brier)", "paired t-test (brier)", "Wilcoxon signed-rank (brier)",
              "Pearson error correlation (brier)", "Spearman error correlation (brier)", "DeLong"):
        assert m in methods
    assert "Bowker symmetry" not in methods                                            # K = 2: it is McNemar
    assert rep["brier[lr]"].statistic == pytest.approx(brier_score_loss(y, pa))
    assert rep["delong"].statistic == pytest.approx(roc_auc_score(y, pa) - roc_auc_score(y, pb))
    assert rep["mcnemar-exact"].pvalue == mcnemar(y, (pa > 0.5).astype(int), (pb > 0.5).astype(int)).pvalue
    # the AUC rows come from the DeLong test, and the recommendation reuses the report's values:
    # both must equal what the standalone functions compute
    for name, p in (("lr", pa), ("noisy", pb)):
        alone = auc(y, p)
        assert rep[f"auc[{name}]"].statistic == alone.statistic
        assert rep[f"auc[{name}]"].confidence_interval == pytest.approx(alone.confidence_interval)
    alone = ensemble_recommendation(y, (pa > 0.5).astype(int), (pb > 0.5).astype(int), pa, pb, names=("lr", "noisy"))
    assert rep.recommendation.checkpoints == pytest.approx(alone.checkpoints)
    assert (rep.recommendation.decision, rep.recommendation.reasons) == (alone.decision, alone.reasons)
    text = str(rep)
    assert "Ensemble recommendation:" in text and "DeLong" in text and "lr" in text
    assert rep.to_dict()["recommendation"]["decision"] == rep.recommendation.decision


def test_compare_on_real_data_labels_only():
    trials = tw.datasets.model_vs_human()
    sketch = trials[trials["experiment"] == "sketch"]
    a = sketch[sketch["subject"] == "resnet50"].set_index("image")
    b = sketch[sketch["subject"] == "clip-16"].set_index("image").loc[a.index]
    rep = tw.compare(a["category"], a["response"], b["response"], names=("resnet50", "clip-16"), rng=0)
    assert rep.n == 800 and len(rep.classes) == 16
    assert rep["bowker"].statistic == bowker_test(a["response"], b["response"]).statistic
    assert rep["cohen-kappa"].statistic == pytest.approx(
        cohen_kappa(a["response"], b["response"]).statistic)
    assert rep.recommendation.decision == "drop the weaker" and rep.recommendation.keep == "clip-16"
    assert "Brier score [resnet50]" not in set(rep.to_frame()["method"])


def test_compare_multiclass_and_one_classifier_with_probabilities():
    gen = np.random.default_rng(15)
    y, pa = _random_proba(gen, 300, 3)
    _, pb = _random_proba(gen, 300, 3)
    labels = np.array(["cat", "dog", "eel"])
    rep = tw.compare(labels[y], proba_a=pa, proba_b=pb, rng=1)
    for name, p in (("A", pa), ("B", pb)):
        for mc in ("ovr", "ovo"):
            alone = auc(labels[y], p, multi_class=mc)
            assert rep[f"{alone.key}[{name}]"].statistic == alone.statistic
            assert rep[f"{alone.key}[{name}]"].se == pytest.approx(alone.se)
    methods = set(rep.to_frame()["method"])
    assert {"Bowker symmetry", "Stuart-Maxwell homogeneity", "permutation symmetry (asymmetry)",
            "ECE (top-label) [A]", "ECE (classwise) [B]", "AUC (OvO, Hand & Till) [A]", "DeLong (OvR macro)",
            "DeLong (OvO)", "DeLong class cat", "DeLong class eel"} <= methods
    # a human has labels only: single-classifier rows for B, no paired rows
    human = labels[np.where(gen.random(300) < 0.7, y, (y + 1) % 3)]
    rep = tw.compare(labels[y], human, None, None, pb, names=("human", "model"), rng=1)
    methods = set(rep.to_frame()["method"])
    assert "Brier score [model]" in methods and "Brier score [human]" not in methods and "DeLong" not in methods


# --------------------------------------------------------------------------- bad and degenerate input


@pytest.mark.parametrize("call, exc, match", [
    (lambda: brier_score([0, 1, 1], [0.2, 0.8]), ValueError, "same length"),
    (lambda: brier_score([0, 1], [0.2, 1.2]), ValueError, r"`proba` must be in \[0, 1\]"),
    (lambda: brier_score([0, 1], [0.2, np.nan]), ValueError, "`proba` must not contain NaN"),
    (lambda: brier_score([0, 1], [[0.2, 0.7], [0.5, 0.5]]), ValueError, "row 0 sums to 0.9"),
    (lambda: brier_score(list("ab"), [[0.2, 0.7, 0.1], [0.5, 0.4, 0.1]]), ValueError, "3 columns but `y_true` has 2"),
    (lambda: brier_score(list("ab"), pd.DataFrame({"a": [0.5, 0.5], "c": [0.5, 0.5]})), ValueError,
     "class 'b', which has no column"),
    (lambda: brier_score(list("aa"), [[0.5, 0.5], [0.5, 0.5]], classes=["a", "b"]), ValueError,
     "column for the class 'b', which never occurs"),
    (lambda: brier_score([0, 0], [[1.0], [1.0]]), ValueError, "K >= 2"),
    (lambda: brier_score(["x", "x"], [0.5, 0.5]), ValueError, "single class"),
    (lambda: brier_score([], []), ValueError, "`y_true` is empty"),
    (lambda: brier_score(list("abc"), [0.1, 0.2, 0.3]), ValueError, "1-D"),
    (lambda: paired_ttest([0, 1], [0.2, 0.8], [0.1, 0.9, 0.5]), ValueError, "same length"),
    (lambda: calibration_curve([0, 1], [0.2, 0.8], bin_strategy="kmeans"), ValueError, "`bin_strategy`"),
    (lambda: calibration_curve([0, 1], [0.2, 0.8], n_bins=0), ValueError, "`n_bins`"),
    (lambda: calibration_curve(list("abc"), np.eye(3), kind="binary"), ValueError, "K = 3"),
    (lambda: delong_test([0, 1], [0.2, 0.8], [0.1, 0.9], adjust="sidak"), ValueError, "`adjust`"),
    (lambda: bowker_test(["a", "b"], ["a"]), ValueError, "same length"),
    (lambda: bowker_test(counts=[[1, 2, 3], [4, 5, 6]]), ValueError, "square"),
    (lambda: bowker_test(counts=[[1]]), ValueError, "K >= 2"),
    (lambda: bowker_test(counts=[[0, 0], [0, 0]]), ValueError, "no items"),
    (lambda: bowker_test(["a"], ["a"], counts=[[1, 0], [0, 1]]), TypeError, "not both"),
    (lambda: symmetry_permutation_test(counts=N_14_10, statistic="max"), ValueError, "`statistic`"),
    (lambda: tw.compare([0, 1], [0, 1]), TypeError, "pred_b or proba_b"),
    (lambda: tw.compare([0, 1], [0, 1], [1, 1], names=("x", "x")), ValueError, "`names`"),
    (lambda: ensemble_recommendation([0, 1], [0, 1], [1, 1], proba_a=[0.2, 0.8]), TypeError, "both"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_degenerate_input_gives_documented_values_with_warnings():
    with pytest.warns(tw.DegenerateDataWarning, match="never disagree"):
        assert bowker_test(["a", "b"], ["a", "b"]).pvalue == 1
    with pytest.warns(tw.DegenerateDataWarning, match="never disagree"):
        assert stuart_maxwell_test(["a", "b", "c"], ["a", "b", "c"]).statistic == 0
    with pytest.warns(tw.DegenerateDataWarning, match="never disagree"):
        assert symmetry_permutation_test(["a", "b"], ["a", "b"]).pvalue == 1
    with pytest.warns(tw.DegenerateDataWarning, match="every score difference is zero"):
        assert wilcoxon_test([0, 1], [0.2, 0.8], [0.2, 0.8]).pvalue == 1
    with pytest.warns(tw.DegenerateDataWarning, match="t is undefined"):
        assert np.isnan(paired_ttest([0, 1, 1], [0.2, 0.8, 0.7], [0.2, 0.8, 0.7]).statistic)
    with pytest.warns(tw.DegenerateDataWarning, match="constant"):
        assert np.isnan(error_correlation([0, 1, 1, 0], [0.5] * 4, [0.2, 0.8, 0.7, 0.4]).statistic)
    with pytest.warns(tw.DegenerateDataWarning, match="raised to 1e-15"):
        assert sample_scores([0, 1], [0.0, 0.0], scoring_rule="log-loss")[1] == pytest.approx(-np.log(1e-15))
    with pytest.warns(tw.DegenerateDataWarning, match="zero"):                        # Q with an empty cell
        assert yules_q(counts=[[5, 0], [3, 2]]).statistic == 1


def test_beating_the_baseline_is_a_one_sided_binomial_test():
    """Checkpoint 1: 'beats the majority-class baseline' is a test, not a point estimate a hair above it
    (a newcomer got 'deploy B' for a B at 0.502 on a balanced set, CI [0.458, 0.546])."""
    from scipy import stats

    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 250)
    a = np.ones(500, bool)
    b = rng.random(500) < 0.7
    rec = tw.comparison.ensemble_recommendation(y, a, b, names=("A", "B"))
    assert rec.decision == "no ensemble"
    acc_b = float(np.mean(b == y))
    assert rec.checkpoints["baseline_p_B"] == pytest.approx(
        stats.binomtest(int(round(acc_b * 500)), 500, 0.5, alternative="greater").pvalue, abs=1e-12)
    # a classifier clearly above the baseline is useful; one at chance is dropped
    good = np.where(rng.random(500) < 0.8, y, 1 - y)
    rec = tw.comparison.ensemble_recommendation(y, good, a, names=("good", "A"))
    assert rec.decision == "drop the weaker" and rec.keep == "good"


@pytest.mark.parametrize("k", [2, 4])
def test_report_carries_bowkers_test_for_every_k(k):
    """ComparisonReport.symmetry is Bowker's test of its agreement matrix (McNemar on the labels for
    K = 2, where no row of `results` holds it); for K > 2 it is the report's own `bowker` row."""
    gen = np.random.default_rng(k)
    y = gen.integers(0, k, 300)
    a = np.where(gen.random(300) < 0.7, y, gen.integers(0, k, 300))
    b = np.where(gen.random(300) < 0.6, y, gen.integers(0, k, 300))
    rep = tw.compare(y, a, b)
    again = tw.comparison.bowker_test(counts=rep.agreement)
    assert (rep.symmetry.statistic, rep.symmetry.pvalue) == pytest.approx((again.statistic, again.pvalue), rel=1e-12)
    if k > 2:
        assert rep.symmetry is rep["bowker"]
    else:
        assert "bowker" not in rep.keys()


# --------------------------------------------------------------------------- probabilities as people have them (issue 29)

import re  # noqa: E402
import warnings  # noqa: E402

from trialwise.comparison.rows import ROUNDING_CLASSES, check_row_sums, rounding_tolerance  # noqa: E402

CLASSES3 = np.array(["cat", "dog", "eel"])


def _three_class(n=300, seed=29, decimals=None):
    """Truth, A's labels and A's probabilities (columns cat, dog, eel), optionally rounded."""
    gen = np.random.default_rng(seed)
    y = gen.integers(0, 3, n)
    logits = gen.normal(size=(n, 3))
    logits[np.arange(n), y] += 2
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    if decimals is not None:
        p = p.round(decimals)
    return CLASSES3[y], CLASSES3[p.argmax(axis=1)], p


def _trialwise_warnings(record):
    """The plain TrialwiseWarnings (not the degenerate-data ones, a subclass)."""
    return [w for w in record if w.category is tw.TrialwiseWarning]


def test_rounding_tolerance_is_what_rounding_to_three_decimals_can_do():
    assert [rounding_tolerance(k) for k in (2, 3, 16, 17, 1000)] == [0.001, 0.0015, 0.008, 0.008, 0.008]
    assert ROUNDING_CLASSES == 16
    # the worst case is reached: 16 values of 0.0625 rounded (half to even) to 0.062 sum to 0.992
    assert np.round(np.full(16, 0.0625), 3).sum() == pytest.approx(1 - rounding_tolerance(16))


@pytest.mark.parametrize("k, inside, outside", [
    (16, [0.062] * 16, [0.062] * 15 + [0.061]),                   # 3 decimals, off by 0.008 / 0.009
    (3, [0.334, 0.334, 0.333], [0.334, 0.334, 0.334]),            # off by 0.001 (≤ 0.0015) / 0.002
    (2, [0.5, 0.501], [0.501, 0.501]),                            # off by 0.001 / 0.002
])
def test_rows_off_by_rounding_are_renormalised_and_one_more_step_is_an_error(k, inside, outside):
    y = np.arange(k).repeat(3)
    exact = np.tile(np.full(k, 1 / k), (len(y), 1))
    p = exact.copy()
    p[0] = inside
    p[4] = inside
    with pytest.warns(tw.TrialwiseWarning) as record:
        got = brier_score(y, p)
    assert len(_trialwise_warnings(record)) == 1
    assert re.search(r"`proba`: 2 of \d+ rows sum to between .* not 1, as rounding to 3 decimals can make them; "
                     r"those rows were divided by their sums", str(record[0].message))
    fixed = p / p.sum(axis=1, keepdims=True)
    assert got.statistic == brier_score(y, fixed).statistic
    p[4] = outside
    with pytest.raises(tw.InvalidValueError, match=rf"`proba`: row 4 sums to [\d.]+, not 1 \(a row of {k} values "
                                                   rf"rounded to 3 decimals is off by at most {rounding_tolerance(k):g}, one not rounded by at most 0.0001\)"):
        brier_score(y, p)


def test_unrounded_rows_are_not_taken_for_rounded_ones():
    """Review of issue 29: a full-precision softmax off by 0.007 (16 classes) was renormalised 'as rounding
    to 3 decimals can make it'; the tolerance is what the row's own written decimals can explain."""
    rng = np.random.default_rng(3)
    y = np.arange(16).repeat(2)
    p = rng.dirichlet(np.ones(16), len(y))
    with pytest.raises(tw.InvalidValueError, match=r"`proba`: row 0 sums to 1\.007, not 1"):
        brier_score(y, p * 1.007)
    rounded = np.round(p, 3)                          # the same rows written with 3 decimals: renormalised
    assert np.abs(rounded.sum(axis=1) - 1).max() > 1e-4
    with pytest.warns(tw.TrialwiseWarning, match="as rounding to 3 decimals can make them"):
        brier_score(y, rounded)
    four = np.round(p, 4)                             # 4 decimals: off by at most 16 · 0.00005 = 0.0008
    four[0] = np.round(p[0] * 1.002, 4)
    with pytest.raises(tw.InvalidValueError, match=r"row 0 sums to 1\.002"):
        brier_score(y, four)


def test_rows_within_float_noise_are_used_as_given_without_a_warning():
    y, _, p = _three_class()
    q = p.copy()
    q[:, 0] += 5e-5                                   # within PROBA_SUM_TOLERANCE: not renormalised
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = sample_scores(y, q)
    assert np.array_equal(got, np.round(np.sum((q - (CLASSES3[:, None] == y).T) ** 2, axis=1), 12))


@pytest.mark.parametrize("proba, hint", [
    (lambda p: np.log(p) * 3, r"negative values: these look like logits .*scipy\.special\.softmax"),
    (lambda p: np.log(p), r"these look like log-probabilities: apply numpy\.exp"),
    (lambda p: np.round(100 * p, 1), r"the rows sum to 100: these look like percentages; divide them by 100"),
    (lambda p: 1 / (1 + np.exp(-np.log(p) - 1.5)), r"independent per-class scores \(e\.g\. sigmoid outputs\)"),
    (lambda p: np.round(p, 2), r"the values are rounded to 2 decimals, too coarsely to tell rounding from error"),
    (lambda p: p * 1.005, r"more than rounding to 3 decimals can explain"),
])
def test_numbers_that_are_not_probabilities_get_a_hint_that_fits(proba, hint):
    y, _, p = _three_class()
    with pytest.raises(tw.InvalidValueError, match=r"`proba`: row \d+ .*" + hint):
        brier_score(y, proba(p))


def test_a_logit_in_one_column_gets_the_sigmoid_hint():
    with pytest.raises(tw.InvalidValueError, match=r"`proba` must be in \[0, 1\]; got -1\.2 \(item 1\); these look like "
                                                   r"logits or scores; apply a sigmoid first"):
        brier_score([0, 1, 1], [0.2, -1.2, 0.7])


def test_check_row_sums_names_rows_the_callers_way():
    p = np.array([[0.5, 0.5], [0.7, 0.4]])
    with pytest.raises(tw.InvalidValueError, match=r"^the --proba-a columns: data row 3 sums to 1\.1, not 1"):
        check_row_sums(p, "the --proba-a columns:", row=lambda i: f"data row {i + 2}")
    assert check_row_sums(np.array([[0.5, 0.5], [0.7, 0.301]]), "p").tolist() == [False, True]


def test_paired_functions_warn_once_for_both_rounded_matrices():
    y, _, p = _three_class(decimals=3)
    _, _, q = _three_class(seed=30, decimals=3)
    with pytest.warns(tw.TrialwiseWarning) as record:
        score_difference(y, p, q)
    assert len(_trialwise_warnings(record)) == 1
    assert "`proba_a`: " in str(record[0].message) and "; `proba_b`: " in str(record[0].message)


def test_compare_accepts_rounded_prefixed_columns_in_any_order_with_one_warning():
    y, a, p = _three_class(decimals=3)
    _, b, q = _three_class(seed=30, decimals=3)
    frame_a = pd.DataFrame(p, columns=["m1_cat", "m1_dog", "m1_eel"])[["m1_dog", "m1_eel", "m1_cat"]]
    frame_b = pd.DataFrame(q, columns=["m2_cat", "m2_dog", "m2_eel"])[["m2_eel", "m2_cat", "m2_dog"]]
    with pytest.warns(tw.TrialwiseWarning) as record:
        rep = tw.compare(y, a, b, frame_a, frame_b, rng=0, n_resamples=99)
    assert len(_trialwise_warnings(record)) == 1
    assert re.search(r"`proba_a`: \d+ of 300 rows .*; `proba_b`: \d+ of 300 rows", str(record[0].message))
    assert rep.names == ("m1", "m2")                    # named by the columns' prefix
    # only the rows off by more than float noise are divided by their sums (the others keep their ties)
    exact_a, exact_b = (np.where(np.abs(x.sum(1, keepdims=True) - 1) > 1e-4, x / x.sum(1, keepdims=True), x)
                        for x in (p, q))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sorted_columns = tw.compare(y, a, b, exact_a, exact_b, names=("m1", "m2"), rng=0, n_resamples=99)
    pd.testing.assert_frame_equal(rep.to_frame(), sorted_columns.to_frame())
    assert rep["auc-ovr[m1]"].statistic == pytest.approx(roc_auc_score(y, exact_a, multi_class="ovr"), abs=1e-12)


def test_dataframe_columns_that_name_the_classes_in_two_ways_ask_for_classes():
    y = ["cat", "cats", "at", "ats"]
    frame = pd.DataFrame([[0.3, 0.7], [0.6, 0.4], [0.2, 0.8], [0.5, 0.5]], columns=["m_cat", "m_cats"])
    with pytest.raises(tw.InvalidValueError, match=r"`proba`: the columns m_cat, m_cats name the classes in more than "
                                                   r"one way: .*; pass the classes \(classes=\)"):
        brier_score(y, frame)


def test_an_array_in_another_column_order_gets_a_warning_naming_the_order_that_fits():
    y, a, p = _three_class()
    b = np.roll(a, 1)
    shuffled = p[:, [1, 0, 2]]                          # dog, cat, eel, read as the sorted cat, dog, eel
    with pytest.warns(tw.TrialwiseWarning) as record:
        tw.compare(y, a, b, shuffled, rng=0, n_resamples=99)
    assert len(_trialwise_warnings(record)) == 1
    assert re.search(r"`proba_a` \(its columns taken as the sorted classes of `y_true`, cat, dog, eel\): its class of "
                     r"highest probability is `pred_a` on only \d+% of the items; with the columns in the order "
                     r"dog, cat, eel it would be on 100%: a column-order mistake\?", str(record[0].message))
    with warnings.catch_warnings():                     # the right order, or the order given by classes=: no warning
        warnings.simplefilter("error")
        tw.compare(y, a, b, p, rng=0, n_resamples=99)
        tw.compare(y, a, b, shuffled, classes=["dog", "cat", "eel"], rng=0, n_resamples=99)


def test_a_one_d_probability_of_the_other_class_gets_a_warning():
    gen = np.random.default_rng(3)
    y = np.array([0, 1] * 100)
    a, b = (np.where(gen.random(200) < share, 1 - y, y) for share in (0.2, 0.3))
    p = np.where(b == 1, 0.8, 0.3)                      # B's probability of 1; passed as 1 - p
    with pytest.warns(tw.TrialwiseWarning, match=r"`proba_b` \(taken as the probability of 1\): .* on only 0% of the "
                                                 r"items; as the probability of 0 it would be on 100%: pass 1 - proba_b"):
        tw.compare(y, a, b, None, 1 - p, rng=0, n_resamples=99)


def test_labels_that_do_not_come_from_the_probabilities_get_the_plain_warning():
    y, a, p = _three_class()
    other = np.roll(a, 7)                               # no column order fits better
    with pytest.warns(tw.TrialwiseWarning, match=r"on only \d+% of the items; are the columns in the order of the "
                                                 r"classes, and the labels from the same classifier\?"):
        tw.compare(y, other, a, p, rng=0, n_resamples=99)


def test_series_names_label_the_report_unless_names_are_given():
    y, a, p = _three_class()
    ya, yb = pd.Series(a, name="resnet50"), pd.Series(np.roll(a, 3), name="vit")
    rep = tw.compare(y, ya, yb, rng=0, n_resamples=99)
    assert rep.names == ("resnet50", "vit") and repr(rep).startswith("ComparisonReport(resnet50 vs vit,")
    assert str(rep).splitlines()[0] == "Comparison of resnet50 and vit: n = 300 items, K = 3 classes"
    assert "accuracy[resnet50]" in rep.keys()
    assert tw.compare(y, ya, yb, names=("x", "y"), rng=0, n_resamples=99).names == ("x", "y")
    assert tw.compare(y, ya, yb.rename("resnet50"), rng=0, n_resamples=99).names == ("A", "B")   # one name for two
    assert tw.compare(y, ya, list(yb), rng=0, n_resamples=99).names == ("resnet50", "B")


def test_stuart_maxwell_with_separate_groups_of_disagreements_is_the_sum_of_the_groups():
    # A says 1 where B says 0 and 3 where B says 2; the two groups never mix: V is singular
    n = np.array([[5, 1, 0, 0], [4, 6, 0, 0], [0, 0, 7, 6], [0, 0, 1, 3]])
    with pytest.warns(tw.DegenerateDataWarning, match=r"fall into 2 separate groups of classes \(0, 1 \| 2, 3\).*"
                                                      r"statsmodels gives NaN.*df = 2"):
        res = stuart_maxwell_test(counts=n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parts = [stuart_maxwell_test(counts=n[:2, :2]), stuart_maxwell_test(counts=n[2:, 2:])]
    assert res.statistic == pytest.approx(sum(r.statistic for r in parts), abs=1e-12) and res.df == 2
    d = n.sum(1) - n.sum(0)                             # the generalised-inverse Wald statistic
    v = -(n + n.T).astype(float)
    np.fill_diagonal(v, n.sum(1) + n.sum(0) - 2 * np.diag(n))
    assert res.statistic == pytest.approx(d @ np.linalg.pinv(v) @ d, abs=1e-10)
    assert res.pvalue == pytest.approx(stats.chi2.sf(res.statistic, 2), abs=1e-15)
    assert "2 separate groups of classes" in res.notes[0]


def test_compare_with_separate_groups_of_disagreements_warns_once():
    with pytest.warns(tw.DegenerateDataWarning) as record:
        rep = tw.compare([0, 1, 2], [0, 1, 2], [0, 0, 3], rng=0, n_resamples=99)
    assert len(record) == 1 and "separate groups of classes" in str(record[0].message)
    assert rep["stuart-maxwell"].statistic == 2.0 and rep["stuart-maxwell"].df == 2


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(classes=[0, 1]), ValueError, r"`y_true` contains .*2.*not one of `classes`|2.*`classes`"),
    (dict(classes=[0, 1, 1, 2]), ValueError, r"`classes` contains the class 1 twice"),
    (dict(classes="012"), TypeError, r"`classes` must be a sequence of classes; got '012'"),
    (dict(adjust="x"), ValueError, r"`adjust` must be one of"),
    (dict(n_bins=0), ValueError, r"`n_bins`"),
    (dict(bin_strategy="log"), ValueError, r"`bin_strategy` must be one of"),
])
def test_compare_checks_every_option_even_where_unused(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        tw.compare([0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 2], rng=0, n_resamples=99, **kwargs)


def _run_cli(argv, capsys):
    from trialwise.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_takes_rounded_columns_in_any_order(tmp_path, capsys):
    y, a, p = _three_class(decimals=3)
    _, b, q = _three_class(seed=30, decimals=3)
    frame = pd.DataFrame({"truth": y, "resnet": a})
    for k in (1, 2, 0):
        frame[f"m1_{CLASSES3[k]}"] = p[:, k]
    for k in (2, 0, 1):
        frame[f"m2_{CLASSES3[k]}"] = q[:, k]
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run_cli(["compare", path, "--truth", "truth", "--a", "resnet", "--proba-a", "m1_dog", "m1_eel",
                               "m1_cat", "--proba-b", "m2_eel", "m2_cat", "m2_dog", "--resamples", "99", "--seed", "0"],
                              capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "Comparison of resnet and m2: n = 300 items, K = 3 classes"
    assert len(err.strip().splitlines()) == 1 and "rows sum to between" in err and "`proba_b`" in err
    exact_b = q / q.sum(1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        rep = tw.compare(y, a, None, p, exact_b, names=("resnet", "m2"), n_resamples=99, rng=0)
    assert f"{rep['auc-ovr[m2]'].statistic:.4f}" in out
    frame["m1_dog"] = np.round(p[:, 1], 2)
    frame.to_csv(path, index=False)
    code, out, err = _run_cli(["compare", path, "--truth", "truth", "--a", "resnet", "--proba-a", "m1_dog", "m1_eel",
                               "m1_cat", "--b", "resnet", "--resamples", "99"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert re.search(r"preds\.csv: the --proba-a columns: data row \d+ sums to .*off by at most 0\.0015, one not rounded by at most 0\.0001\); .*"
                     r"divide each row by its sum", err)


def test_an_auc_without_variance_says_its_interval_has_no_width():
    with pytest.warns(tw.DegenerateDataWarning, match=r"AUC = 1: DeLong's variance is 0 .* the interval has no width"):
        res = auc([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6])
    assert (res.statistic, res.confidence_interval.low, res.confidence_interval.high) == (1.0, 1.0, 1.0)
    assert res.notes[-1].kind == "warning" and "no width" in res.notes[-1]
    y = [0, 1, 0, 1, 0, 1]
    with pytest.warns(tw.DegenerateDataWarning) as record:      # A perfect, B not: one warning, A's
        test = delong_test(y, [0.1, 0.8, 0.3, 0.6, 0.2, 0.9], [0.2, 0.7, 0.4, 0.3, 0.5, 0.9])
    assert len(record) == 1 and "AUC = 1" in str(record[0].message)
    assert "no width" in test.aucs[0].notes[-1] and "no width" not in " ".join(test.aucs[1].notes)
    with pytest.warns(tw.DegenerateDataWarning) as record:      # both perfect: DeLong's warning only
        test = delong_test(y, [0.1, 0.8, 0.3, 0.6, 0.2, 0.9], [0.2, 0.7, 0.4, 0.6, 0.5, 0.9])
    assert len(record) == 1 and "order every pair of items alike" in str(record[0].message)
    assert all("no width" in r.notes[-1] for r in test.aucs)


def test_cli_compare_warns_when_classes_name_the_columns_in_the_wrong_order(tmp_path, capsys):
    y, a, p = _three_class()
    frame = pd.DataFrame({"truth": y, "a": a, "b": np.roll(a, 5), "p1": p[:, 1], "p0": p[:, 0], "p2": p[:, 2]})
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    argv = ["compare", path, "--truth", "truth", "--a", "a", "--b", "b", "--proba-a", "p1", "p0", "p2", "--resamples", "99",
            "--seed", "0"]
    code, out, err = _run_cli([*argv, "--classes", "dog", "cat", "eel"], capsys)
    assert code == 0 and err == ""
    code, out, err = _run_cli([*argv, "--classes", "cat", "dog", "eel"], capsys)
    assert code == 0 and len(err.strip().splitlines()) == 1
    assert "with the columns in the order dog, cat, eel it would be on 100%: a column-order mistake?" in err


def test_brier_interval_of_few_items_is_clipped_to_the_range_of_the_score():
    res = brier_score([0, 1], [0.1, 0.8])                # n = 2: the t interval was [-0.166, 0.216]
    t = stats.t.ppf(0.975, 1) * np.std([0.01, 0.04], ddof=1) / np.sqrt(2)
    assert res.confidence_interval.low == 0.0 and res.confidence_interval.high == pytest.approx(0.025 + t, abs=1e-12)
    assert res.notes[0].endswith("t 95% CI, clipped to [0, 1], the range of the score")
    wide = brier_score(list("aabbcc"), np.eye(3)[[0, 1, 1, 2, 0, 2]], convention="multiclass")
    assert wide.confidence_interval.low == 0.0 and wide.confidence_interval.high <= 2.0
    assert brier_score(Y6, P1).notes[0] == "binary convention; t 95% CI"          # the chapter's: not clipped


def test_paired_functions_match_two_dataframes_whose_columns_name_the_classes_in_different_orders():
    y, _, p = _three_class()
    _, _, q = _three_class(seed=31)
    fa = pd.DataFrame(p, columns=["a_cat", "a_dog", "a_eel"])[["a_eel", "a_cat", "a_dog"]]
    fb = pd.DataFrame(q, columns=["b_cat", "b_dog", "b_eel"])[["b_dog", "b_eel", "b_cat"]]
    for func in (score_difference, paired_ttest, wilcoxon_test, error_correlation):  # to the last bits: numpy < 2
        assert func(y, fa, fb).statistic == pytest.approx(func(y, p, q).statistic, rel=1e-12, abs=1e-13)  # sums
    assert delong_test(y, fa, fb).statistic == pytest.approx(delong_test(y, p, q).statistic, abs=1e-15)


def test_names_come_from_the_prefix_actually_stripped_not_from_a_common_start():
    """Review of issue 29: columns ``dog, dolphin, donkey`` (the classes themselves) named the
    classifier "do"; ``p_10, p_11, p_12`` for classes 10-12 named it "p_1"."""
    rng = np.random.default_rng(5)
    y = np.array(["dog", "dolphin", "donkey"] * 20)
    pa = pd.DataFrame(rng.dirichlet(np.ones(3), 60), columns=["dog", "dolphin", "donkey"])
    pb = pd.DataFrame(rng.dirichlet(np.ones(3), 60), columns=["m2_dog", "m2_dolphin", "m2_donkey"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        rep = tw.compare(y, proba_a=pa, proba_b=pb, n_resamples=99, rng=0)
        assert rep.names == ("A", "m2")
        yi = np.array([10, 11, 12] * 20)
        pn = pd.DataFrame(pa.to_numpy(), columns=["p_10", "p_11", "p_12"])
        assert tw.compare(yi, proba_a=pn, proba_b=pn.rename(columns=lambda c: "q" + c[1:]), n_resamples=99,
                          rng=0).names == ("p", "q")
