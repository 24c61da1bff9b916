"""Difference of two ECs with one reference (SPEC §5.2): counts, swap test, intervals, input checks."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
import trialwise.planning.trials
import trialwise.ec.pair
import trialwise._stats.resampling
import trialwise._stats.intervals
from trialwise.ec.difference import _swapped, difference_pvalues, pair_tables
from trialwise._stats.kappa_derivatives import kappa_difference_variance


def observers(n=300, seed=0):
    rng = np.random.default_rng(seed)
    ref = rng.random(n) < 0.75
    x = np.where(rng.random(n) < 0.5, ref, rng.random(n) < 0.75)
    y = np.where(rng.random(n) < 0.3, ref, rng.random(n) < 0.7)
    return ref, x, y


def test_statistic_and_counts_match_independent_computations():
    ref, x, y = observers()
    res = tw.error_consistency_difference(ref, x, y, n_resamples=200, rng=0)
    kx, ky = cohen_kappa_score(ref, x), cohen_kappa_score(ref, y)
    assert res.kappa_x == pytest.approx(kx, abs=1e-12)
    assert res.kappa_y == pytest.approx(ky, abs=1e-12)
    assert res.statistic == pytest.approx(kx - ky, abs=1e-12)
    brute = np.zeros((2, 2, 2), int)
    for r, a, b in zip(ref, x, y):
        brute[int(not r), int(not a), int(not b)] += 1
    np.testing.assert_array_equal(res.counts, brute)
    rx, ry = pair_tables(brute)
    np.testing.assert_array_equal(rx, tw.error_consistency(ref, x, n_resamples=10, rng=0).counts)
    np.testing.assert_array_equal(ry, tw.error_consistency(ref, y, n_resamples=10, rng=0).counts)
    assert (res.accuracy_reference, res.accuracy_x, res.accuracy_y) == pytest.approx((ref.mean(), x.mean(), y.mean()))


def test_labels_with_truth_give_the_same_result_as_correctness():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 4, 200)
    resp = [np.where(rng.random(200) < p, truth, rng.integers(0, 4, 200)) for p in (0.7, 0.6, 0.5)]
    a = tw.error_consistency_difference(*resp, truth=truth, n_resamples=300, rng=1)
    b = tw.error_consistency_difference(*(r == truth for r in resp), n_resamples=300, rng=1)
    assert a.statistic == b.statistic and a.confidence_interval == b.confidence_interval and a.pvalue == b.pvalue


def test_counts_based_swap_equals_per_item_swapping_in_distribution():
    ref, x, y = observers(120, seed=5)
    c = tw.error_consistency_difference(ref, x, y, n_resamples=10, rng=0).counts
    rng = np.random.default_rng(0)
    fast = _swapped(c, rng, (20000,))
    fast_delta = tw.ec.kappa_from_counts(fast.sum(-1)) - tw.ec.kappa_from_counts(fast.sum(-2))
    slow = []
    for _ in range(4000):  # the definition: swap x and y on each item with probability 1/2
        s = rng.random(len(x)) < 0.5
        xs, ys = np.where(s, y, x), np.where(s, x, y)
        slow.append(cohen_kappa_score(ref, xs) - cohen_kappa_score(ref, ys))
    # Rounded: the two κ formulas differ in the last bits, which would split the atoms.
    assert stats.ks_2samp(np.round(fast_delta, 9), np.round(slow, 9)).pvalue > 0.001
    # Items where x and y agree never move, so the margins of the swapped tables are fixed.
    np.testing.assert_array_equal(fast[:, :, 0, 0], np.broadcast_to(c[:, 0, 0], (20000, 2)))
    assert np.all(fast.sum(axis=(1, 2, 3)) == c.sum())


def test_swap_pvalue_matches_exact_enumeration_of_all_swaps():
    # Few discordant items: all 2^k swaps can be enumerated.
    c = np.array([[[20, 3], [1, 6]], [[4, 2], [0, 14]]])
    d10 = [c[0, 0, 1], c[1, 0, 1]]
    d01 = [c[0, 1, 0], c[1, 1, 0]]
    obs = abs(tw.ec.kappa_from_counts(c.sum(-1)) - tw.ec.kappa_from_counts(c.sum(-2)))
    # Distribution of #(x right, y wrong) after swapping: Bin(d10, ½) + Bin(d01, ½) per reference outcome.
    hits = 0.0
    for k0, k1 in itertools.product(range(d10[0] + d01[0] + 1), range(d10[1] + d01[1] + 1)):
        prob = stats.binom.pmf(k0, d10[0] + d01[0], 0.5) * stats.binom.pmf(k1, d10[1] + d01[1], 0.5)
        t = c.copy()
        t[0, 0, 1], t[0, 1, 0] = k0, d10[0] + d01[0] - k0
        t[1, 0, 1], t[1, 1, 0] = k1, d10[1] + d01[1] - k1
        d = abs(tw.ec.kappa_from_counts(t.sum(-1)) - tw.ec.kappa_from_counts(t.sum(-2)))
        hits += prob * (d >= obs * (1 - 1e-12))
    m = 40000
    p = float(difference_pvalues(c, test="swap", n_resamples=m, rng=0))
    assert abs(p - hits) < 4 * np.sqrt(hits * (1 - hits) / m) + 1 / m


def test_no_difference_gives_p_one_and_paper_test_is_a_t_test():
    c = np.array([[[30, 5], [5, 10]], [[4, 6], [6, 34]]])  # x and y symmetric: delta = 0
    assert float(difference_pvalues(c, test="swap", n_resamples=500, rng=0)) == 1.0
    ref, x, y = observers(200, seed=2)
    res = tw.error_consistency_difference(ref, x, y, ci_method="percentile", test="paper", n_resamples=500, rng=4)
    # The same replicates, swapped at random, are what the t-test compares.
    rng = np.random.default_rng(11)
    reps = trialwise._stats.resampling.multinomial_cells(res.counts / res.n, res.n, size=500, rng=rng, cell_ndim=3)
    p = float(difference_pvalues(res.counts, test="paper", n_resamples=500, rng=np.random.default_rng(12),
                                 bootstrap=reps))
    sw = _swapped(reps, np.random.default_rng(12))
    boot = tw.ec.kappa_from_counts(reps.sum(-1)) - tw.ec.kappa_from_counts(reps.sum(-2))
    null = tw.ec.kappa_from_counts(sw.sum(-1)) - tw.ec.kappa_from_counts(sw.sum(-2))
    assert p == pytest.approx(stats.ttest_ind(boot, null).pvalue, rel=1e-9)


def test_intervals_analytic_is_the_delta_method_and_bootstrap_matches_index_resampling():
    ref, x, y = observers(250, seed=7)
    res = tw.error_consistency_difference(ref, x, y, ci_method="analytic", n_resamples=100, rng=0)
    d, var = kappa_difference_variance(res.counts)
    z = stats.norm.ppf(0.975)
    assert res.confidence_interval.low == pytest.approx(d - z * np.sqrt(var), abs=1e-12)
    assert res.confidence_interval.high == pytest.approx(d + z * np.sqrt(var), abs=1e-12)
    boot = tw.error_consistency_difference(ref, x, y, ci_method="percentile", n_resamples=4000, rng=1)
    rng = np.random.default_rng(2)
    brute = []
    for _ in range(1500):
        i = rng.integers(0, len(ref), len(ref))
        brute.append(cohen_kappa_score(ref[i], x[i]) - cohen_kappa_score(ref[i], y[i]))
    assert stats.ks_2samp(np.round(boot.bootstrap_distribution, 9), np.round(brute, 9)).pvalue > 0.001
    for method in trialwise._stats.intervals.CI_METHODS:
        r = tw.error_consistency_difference(ref, x, y, ci_method=method, n_resamples=2000, rng=3)
        assert r.confidence_interval.low < r.statistic < r.confidence_interval.high, method
        assert r.ci_method == method


def test_swap_test_type_one_error_for_exchangeable_candidates():
    cells = trialwise.planning.trials.joint_cells(0.4, 0.4, 0.75, 0.7, 0.7)
    counts = trialwise._stats.resampling.multinomial_cells(cells, 200, size=1500, rng=0, cell_ndim=3)
    p = difference_pvalues(counts, test="swap", n_resamples=199, rng=1)
    se = np.sqrt(0.05 * 0.95 / 1500)  # 0.56 percentage points
    assert abs(np.mean(p <= 0.05) - 0.05) <= 3 * se


def test_result_object_and_frame():
    ref, x, y = observers()
    res = tw.error_consistency_difference(ref, x, y, n_resamples=300, rng=0)
    assert res.ci_method == "restricted-wald" and res.test == "restricted-wald"  # the default test and its interval
    swap = tw.error_consistency_difference(ref, x, y, test="swap", n_resamples=300, rng=0)
    assert swap.ci_method == trialwise.ec.inference.DEFAULT_CI_METHOD and swap.test == "swap"
    frame = res.to_frame()
    assert frame.shape == (1, 15) and frame.ci_low.iloc[0] == res.confidence_interval.low
    assert "delta=" in repr(res) and "p-value (equal EC)" in res.summary()


def test_bad_input_names_the_argument():
    ref, x, y = observers(50)
    with pytest.raises(ValueError, match="x"):
        tw.error_consistency_difference(ref, x[:-1], y)
    with pytest.raises(ValueError, match="y"):
        tw.error_consistency_difference(ref, x, np.where(y, 2, 0))
    with pytest.raises(ValueError, match="counts"):
        tw.error_consistency_difference(counts=np.ones((2, 2)))
    with pytest.raises(TypeError, match="counts"):
        tw.error_consistency_difference(ref, x, y, counts=np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="reference"):
        tw.error_consistency_difference(ref, x)
    with pytest.raises(ValueError, match="test"):
        tw.error_consistency_difference(ref, x, y, test="t")
    with pytest.raises(ValueError, match="no items"):
        tw.error_consistency_difference(counts=np.zeros((2, 2, 2), int))


def test_undefined_ec_gives_nan_and_a_warning():
    ref = np.ones(40, bool)
    x = np.ones(40, bool)
    y = np.r_[np.ones(30, bool), np.zeros(10, bool)]
    with pytest.warns(tw.DegenerateDataWarning, match="undefined"):
        res = tw.error_consistency_difference(ref, x, y, n_resamples=100, rng=0)
    assert np.isnan(res.statistic) and np.isnan(res.pvalue) and np.isnan(res.confidence_interval.low)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tw.error_consistency_difference(*observers(60), n_resamples=100, rng=0)
