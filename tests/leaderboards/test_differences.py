"""Benchmark-level tests of "x and y have equal scores": the symmetric bootstrap-t test and interval,
the standard error of a contrast, the combined test, and their calibration on simulated benchmarks."""

import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.leaderboards.swap import swap_pvalue
from trialwise.leaderboards.differences import contrast_standard_errors
from trialwise.leaderboards.hierarchy import build_design, row_scores
from trialwise.leaderboards.replicates import bootstrap_scores
from trialwise.leaderboards.protocol import metric_from_sums
from trialwise._stats.intervals import symmetric_studentized_interval, symmetric_studentized_pvalue


# --------------------------------------------------------------------------- symmetric bootstrap-t


def _t_problem(seed, b=199, flat=0):
    gen = np.random.default_rng(seed)
    est, se = 0.3, 0.05
    se_rep = se * gen.uniform(0.6, 1.5, b)
    dist = est + se_rep * gen.standard_t(5, b) + 0.01
    se_rep[:flat] = 0.0  # replicates whose statistic is locally constant
    return dist, est, se, se_rep


@pytest.mark.parametrize("seed,flat", [(0, 0), (1, 0), (2, 7)])
def test_symmetric_pvalue_is_the_brute_force_count(seed, flat):
    dist, est, se, se_rep = _t_problem(seed, flat=flat)
    for null in (0.0, 0.25, 0.3, 0.33, 0.5):
        t0 = abs(est - null) / se
        t = []
        for d, s in zip(dist, se_rep):
            if s <= 1e-8 * se:
                t.append(np.inf if d != est else np.nan)
            else:
                t.append(abs(d - est) / s)
        t = np.array(t)
        t = t[~np.isnan(t)]
        expected = (1 + np.sum(t >= t0)) / (1 + t.size)
        assert symmetric_studentized_pvalue(dist, est, se, se_rep, null=null) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("seed,flat,level", [(0, 0, 0.95), (1, 0, 0.9), (2, 7, 0.95), (3, 12, 0.95)])
def test_symmetric_interval_is_exactly_the_set_the_test_does_not_reject(seed, flat, level):
    dist, est, se, se_rep = _t_problem(seed, flat=flat)
    lo, hi = symmetric_studentized_interval(dist, est, se, se_rep, level)
    assert lo < est < hi and est - lo == pytest.approx(hi - est)
    alpha = 1 - level
    for null in np.linspace(est - 0.6, est + 0.6, 2401):
        inside = lo <= null <= hi
        accepted = symmetric_studentized_pvalue(dist, est, se, se_rep, null=null) > alpha
        if abs(null - lo) > 1e-9 and abs(null - hi) > 1e-9:
            assert inside == accepted, (null, lo, hi)


def test_symmetric_interval_is_unbounded_when_too_many_replicates_are_flat():
    dist, est, se, se_rep = _t_problem(0, b=99, flat=10)  # 10 % of t* are infinite, α = 5 %
    lo, hi = symmetric_studentized_interval(dist, est, se, se_rep, 0.95)
    assert lo == -np.inf and hi == np.inf
    assert symmetric_studentized_pvalue(dist, est, se, se_rep, null=-5.0) >= 0.1


def test_symmetric_interval_is_vectorised_over_columns():
    cols = [_t_problem(s) for s in range(3)]
    dist = np.stack([c[0] for c in cols], axis=1)
    se_rep = np.stack([c[3] for c in cols], axis=1)
    est, se = np.full(3, 0.3), np.full(3, 0.05)
    lo, hi = symmetric_studentized_interval(dist, est, se, se_rep)
    for k in range(3):
        assert (lo[k], hi[k]) == symmetric_studentized_interval(dist[:, k], 0.3, 0.05, se_rep[:, k])


# --------------------------------------------------------------------------- the SE of a contrast


def _latent_benchmark(seed, n_items=60, conditions=("c0", "c1", "c2"), gap=0.15):
    """Items easy or hard; humans and models right with class-specific probabilities (so κ > 0)."""
    gen = np.random.default_rng(seed)
    observers = [("h1", "human", 0.95, 0.45), ("h2", "human", 0.9, 0.5), ("h3", "human", 0.97, 0.35),
                 ("x", "model", 0.93, 0.3), ("y", "model", 0.8 + gap, 0.3 + gap), ("z", "model", 0.85, 0.5)]
    rows = []
    for c, cond in enumerate(conditions):
        easy = gen.random(n_items) < 0.5 + 0.1 * c
        for name, kind, pe, ph in observers:
            right = gen.random(n_items) < np.where(easy, pe, ph)
            rows += [("e0", cond, name, kind, f"{cond}-{i}", "a", "a" if r else "b", bool(r))
                     for i, r in enumerate(right)]
    return pd.DataFrame(rows, columns=list(tw.io.TRIAL_COLUMNS))


def _scores_with_weights(design, weights):
    values = np.empty(design.n_entries)
    for unit, w in zip(design.units, weights):
        r, s = unit.right.astype(float), unit.seen.astype(float)
        a, b = unit.pairs[:, 0], unit.pairs[:, 1]
        sums = [w @ (s[:, a] * s[:, b]), w @ (r[:, a] * r[:, b]), w @ (r[:, a] * s[:, b]), w @ (s[:, a] * r[:, b])]
        values[unit.entries] = metric_from_sums(design.protocol.metric, *sums)
    return row_scores(values, design)


def test_contrast_standard_error_matches_the_exact_infinitesimal_jackknife_of_the_difference():
    """The exact IJ SE of score_x − score_y (numerical derivatives of the difference in every
    item's weight) against SE_x² + SE_y² − 2ρ·SE_x·SE_y with ρ from the bootstrap: within 5 %,
    for every pair of rows (the reference row too)."""
    design = build_design(tw.read_trials(_latent_benchmark(0)), tw.leaderboards.Protocol("sim", min_items=3))
    boot = bootstrap_scores(design, 4000, rng=1, standard_errors=True)
    ones = [np.ones(u.right.shape[0]) for u in design.units]
    eps = 1e-6
    grads = []  # (items of all units, rows): d score / d w_i
    for k, w in enumerate(ones):
        for i in range(len(w)):
            up = [x.copy() for x in ones]
            down = [x.copy() for x in ones]
            up[k][i] += eps
            down[k][i] -= eps
            grads.append((_scores_with_weights(design, up) - _scores_with_weights(design, down)) / (2 * eps))
    g = np.array(grads)
    np.testing.assert_allclose(np.sqrt((g**2).sum(axis=0)), boot.standard_errors, rtol=1e-5)  # the rows' own SEs
    n_rows = len(design.rows)
    ia, ib = np.triu_indices(n_rows, k=1)
    exact = np.sqrt(((g[:, ia] - g[:, ib]) ** 2).sum(axis=0))
    se, se_rep = contrast_standard_errors(boot.replicates, boot.standard_errors, boot.replicate_standard_errors,
                                          ia, ib)
    np.testing.assert_allclose(se, exact, rtol=0.05)
    assert se_rep.shape == (4000, len(ia))
    # the formula itself, pair by pair with numpy's correlation
    for k, (i, j) in enumerate(zip(ia, ib)):
        rho = np.corrcoef(boot.replicates[:, i], boot.replicates[:, j])[0, 1]
        sx, sy = boot.replicate_standard_errors[:, i], boot.replicate_standard_errors[:, j]
        np.testing.assert_allclose(se_rep[:, k], np.sqrt(sx**2 + sy**2 - 2 * rho * sx * sy), rtol=1e-12)


# --------------------------------------------------------------------------- the tests through the leaderboard


@pytest.fixture(scope="module")
def board():
    return tw.leaderboard(_latent_benchmark(3), tw.leaderboards.Protocol("sim", min_items=3), n_resamples=400, rng=2)


def test_combined_is_the_larger_of_swap_and_studentized(board):
    p = {t: board.difference("x", "y", test=t).pvalue for t in ("combined", "studentized", "swap")}
    assert p["combined"] == max(p["swap"], p["studentized"])
    res = board.difference("x", "y")
    pline = next(line for line in res.summary().splitlines() if line.startswith("  p-value"))
    # x and y alike (p ≈ 0.8): the sequential swap test stopped long before M = 400
    assert res.test == "combined" and 100 <= res.n_null_resamples == len(res.null_distribution) < 400
    assert pline.endswith(f"(combined, the larger of swap (M = {res.n_null_resamples}) and studentized)")
    stud = board.difference("x", "y", test="studentized")
    pline = next(line for line in stud.summary().splitlines() if line.startswith("  p-value"))
    assert stud.n_null_resamples == 0 and pline.endswith("(studentized)") and "M =" not in pline
    pw = board.pairwise()
    row = pw[(pw.observer_a.isin(["x", "y"])) & (pw.observer_b.isin(["x", "y"]))].iloc[0]
    assert row.pvalue == p["combined"] and row.test == "combined"


def _besag_clifford(observed, null, m, h=100):
    """The sequential rule walked swap by swap: stop at the h-th |Δ*| ≥ |Δ| (p = h / l), else all M."""
    hits = 0
    for k, value in enumerate(null[:m], start=1):
        hits += abs(value) >= abs(observed) * (1 - 1e-12)
        if hits == h:
            return h / k, k
    return (1 + hits) / (1 + m), m


@pytest.mark.parametrize("m", [400, 3000])
def test_swap_test_is_besag_cliffords_sequential_test_on_the_pairs_first_swaps(m):
    """Every pair's swap p-value is the sequential rule applied to the first swaps of its own stream (the
    same swaps a fixed-M test draws): large p-values stop early, small ones are the fixed-M p-value."""
    lb = tw.leaderboard(_latent_benchmark(3), tw.leaderboards.Protocol("sim", min_items=3), n_resamples=200, rng=2)
    fresh = tw.leaderboard(_latent_benchmark(3), tw.leaderboards.Protocol("sim", min_items=3), n_resamples=200, rng=2)
    stopped = full = 0
    for a, b in [("x", "y"), ("x", "z"), ("y", "z")]:
        res = lb.difference(a, b, test="swap", n_resamples=m)
        i, j = lb.observers.index(a), lb.observers.index(b)
        whole = fresh._swaps.null(i, j, m)  # all M swaps at once, on a board that has drawn none
        p, used = _besag_clifford(res.statistic, whole, m)
        assert res.pvalue == pytest.approx(p, rel=1e-12) and res.n_null_resamples == used
        np.testing.assert_allclose(res.null_distribution, whole[:used], rtol=0, atol=1e-15)
        if used == m:
            full += 1
            assert res.pvalue == pytest.approx(swap_pvalue(res.statistic, whole), rel=1e-12)
        else:
            stopped += 1
    assert stopped >= 1 and (full >= 1 or m == 400)


def test_difference_interval_is_the_symmetric_studentized_one_and_agrees_with_the_studentized_test(board):
    for x, y in (("x", "y"), ("x", "z"), ("y", "z")):
        res = board.difference(x, y, test="studentized")
        lo, hi = res.confidence_interval
        assert res.ci_method == "symmetric-studentized"
        assert lo < res.statistic < hi and res.statistic - lo == pytest.approx(hi - res.statistic)
        assert (res.pvalue <= 0.05) == (not lo <= 0 <= hi)
    pw = board.pairwise(test="studentized")
    one = board.difference(pw.observer_a[0], pw.observer_b[0], test="studentized")
    assert (pw.ci_low[0], pw.ci_high[0]) == pytest.approx(tuple(one.confidence_interval), abs=1e-14)


def test_studentized_test_compares_a_candidate_with_the_reference_row_and_swap_tests_refuse(board):
    ref = board.reference_row
    res = board.difference("x", ref, test="studentized")
    assert 0 < res.pvalue <= 1
    for test in ("combined", "swap"):
        with pytest.raises(ValueError, match="two candidates"):
            board.difference("x", ref, test=test)


def test_a_bootstrap_without_its_generator_cannot_run_the_studentized_test():
    import dataclasses

    design = build_design(tw.read_trials(_latent_benchmark(4)), tw.leaderboards.Protocol("sim", min_items=3))
    boot = dataclasses.replace(bootstrap_scores(design, 50, rng=0), bootstrap_rng=None)
    lb = tw.leaderboards.Leaderboard.from_bootstrap(design, boot, confidence_level=0.95, ci_method="bc")
    assert 0 <= lb.difference("x", "y", test="swap").pvalue <= 1
    with pytest.raises(ValueError, match="standard errors"):
        lb.difference("x", "y", test="studentized")


@pytest.mark.slow
def test_combined_test_holds_its_level_where_the_bootstrap_test_does_not():
    """CI-light version of benchmarks/calibration/benchmark_test_calibration.py: one reference observer near
    ceiling, 12 conditions of 40 items, x and y with equal true scores and accuracies 0.16 apart
    (docs/validity.md has R = 1000 per design)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        st = tw.validity.benchmark_coverage_study(n_datasets=300, n_resamples=200, n_items=40, n_experiments=1,
                                                  n_conditions=12, simulated_humans=[(0.99, 0.80)], y_hard=0.64,
                                                  rng=5)
    rate = st.tests.set_index("test").rejection_rate
    limit = 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300)
    assert rate["combined"] <= limit
    assert rate["combined"] <= min(rate["swap"], rate["studentized"])
    assert rate["bootstrap"] > 0.05  # the percentile test is liberal here (measured ≈ 10 % at R = 1000)
    t = st.table.set_index("observer")
    assert t.loc["x − y", "coverage"] >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 300)
