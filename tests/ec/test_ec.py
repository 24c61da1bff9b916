"""error_consistency(): oracles, brute-force bootstrap, properties, degenerate cases."""

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

import trialwise as tw
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.significance import INDEPENDENCE_TESTS


def correlated_pair(n, acc_a=0.7, acc_b=0.6, copy=0.4, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(n) < acc_a
    b = np.where(rng.random(n) < copy, a, rng.random(n) < acc_b)
    return a, b


def table_of(a, b):
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    return np.array([[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]])


# ------------------------------------------------------------------ oracles


def test_statistic_equals_sklearn():
    a, b = correlated_pair(500)
    res = tw.error_consistency(a, b, rng=0, n_resamples=200)
    assert res.statistic == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert res.n == 500
    assert res.accuracy_a == pytest.approx(a.mean()) and res.accuracy_b == pytest.approx(b.mean())


def test_analytic_interval_and_asymptotic_test_equal_statsmodels():
    for seed in range(20):
        a, b = correlated_pair(300, copy=0.3, seed=seed)
        table = table_of(a, b)
        ref = cohens_kappa(table)
        res = tw.error_consistency(a, b, ci_method="analytic", test="asymptotic")
        assert res.statistic == pytest.approx(ref.kappa, abs=1e-12)
        assert res.confidence_interval.low == pytest.approx(ref.kappa_low, abs=1e-10)
        assert res.confidence_interval.high == pytest.approx(ref.kappa_upp, abs=1e-10)
        assert res.pvalue == pytest.approx(ref.pvalue_two_sided, rel=1e-10, abs=1e-300)
        assert res.n_resamples == 0 and res.bootstrap_distribution.size == 0


def test_analytic_interval_is_clipped_to_kappa_range():
    with pytest.warns(tw.SparseTableWarning, match="under-cover"):
        res = tw.error_consistency(counts=[[18, 0], [1, 1]], ci_method="analytic")
    assert any("smallest expected cell count is 0.1" in note for note in res.notes)
    ref = cohens_kappa(np.array([[18, 0], [1, 1]]))
    assert ref.kappa_upp > 1
    assert res.confidence_interval.high == 1.0
    assert res.confidence_interval.low == pytest.approx(ref.kappa_low)


def test_fisher_and_boschloo_equal_scipy():
    for seed in range(5):
        a, b = correlated_pair(60, copy=0.2, seed=seed)
        t = table_of(a, b)
        res = tw.error_consistency(a, b, test="fisher", ci_method="analytic")
        assert res.pvalue == pytest.approx(stats.fisher_exact(t).pvalue, rel=1e-12)
        res = tw.error_consistency(a, b, test="boschloo", ci_method="analytic")
        expected = max(stats.boschloo_exact(t).pvalue, stats.boschloo_exact(t.T).pvalue)
        assert res.pvalue == pytest.approx(expected, rel=1e-12)


def test_copy_null_pvalue_convention():
    # Strong dependence: no simulated |κ*| reaches κ̂, so p = 1/(1+M) exactly.
    a, b = correlated_pair(400, copy=0.9)
    res = tw.error_consistency(a, b, test="copy-null", n_resamples=999, rng=0)
    assert res.pvalue == pytest.approx(1 / 1000)
    # Independent observers: p is a share of hits, (1 + hits)/(1 + M) in (0, 1].
    a, b = correlated_pair(400, copy=0.0, seed=5)
    res = tw.error_consistency(a, b, test="copy-null", n_resamples=999, rng=0)
    assert 0 < res.pvalue <= 1 and (res.pvalue * 1000) == pytest.approx(round(res.pvalue * 1000))


def test_copy_null_agrees_with_brute_force_simulation():
    # The copy-null p-value equals a direct simulation written out trial by trial.
    counts = np.array([[50, 20], [14, 16]])
    n = counts.sum()
    k_obs = abs(tw.ec.kappa_from_counts(counts))
    rng = np.random.default_rng(11)
    hits, m = 0, 4000
    for _ in range(m):
        pa = rng.beta(70 + 1, n - 70 + 1)
        pb = rng.beta(64 + 1, n - 64 + 1)
        ra, rb = rng.random(n) < pa, rng.random(n) < pb
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            hits += abs(cohen_kappa_score(ra, rb)) >= k_obs
    brute = (1 + hits) / (1 + m)
    res = tw.error_consistency(counts=counts, test="copy-null", n_resamples=m, rng=1)
    se = np.sqrt(brute * (1 - brute) / m)
    assert abs(res.pvalue - brute) < 4 * np.sqrt(2) * se


def test_single_pair_bootstrap_agrees_in_distribution_with_index_resampling():
    a, b = correlated_pair(200, acc_a=0.75, acc_b=0.7, copy=0.35, seed=3)
    B = 4000
    res = tw.error_consistency(a, b, n_resamples=B, rng=0, ci_method="percentile")
    rng = np.random.default_rng(1)
    brute = np.empty(B)
    for r in range(B):
        idx = rng.integers(0, a.size, a.size)
        brute[r] = cohen_kappa_score(a[idx], b[idx])
    ks = stats.ks_2samp(res.bootstrap_distribution, brute)
    assert ks.pvalue > 1e-3
    # Percentile end points agree within Monte-Carlo error of a 2.5 % quantile (B = 4000).
    lo, hi = np.quantile(brute, [0.025, 0.975])
    assert res.confidence_interval.low == pytest.approx(lo, abs=0.02)
    assert res.confidence_interval.high == pytest.approx(hi, abs=0.02)


# ------------------------------------------------------------------ input forms and properties


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40), st.integers(1, 40), st.integers(0, 2**16))
def test_counts_path_equals_arrays_path_equals_labels_path(n11, n10, n01, n00, seed):
    counts = [[n11, n10], [n01, n00]]
    a = np.r_[np.ones(n11 + n10), np.zeros(n01 + n00)].astype(bool)
    b = np.r_[np.ones(n11), np.zeros(n10), np.ones(n01), np.zeros(n00)].astype(bool)
    perm = np.random.default_rng(seed).permutation(a.size)
    a, b = a[perm], b[perm]
    truth = np.random.default_rng(seed).choice(["cat", "dog", "car"], a.size)
    wrong = {"cat": "dog", "dog": "car", "car": "cat"}
    ra = np.where(a, truth, [wrong[t] for t in truth])
    rb = np.where(b, truth, [wrong[t] for t in truth])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        results = [
            tw.error_consistency(counts=counts, rng=seed, n_resamples=300),
            tw.error_consistency(a, b, rng=seed, n_resamples=300),
            tw.error_consistency(a.astype(int), b.astype(float), rng=seed, n_resamples=300),
            tw.error_consistency(ra, rb, truth=truth, rng=seed, n_resamples=300),
        ]
    first = results[0]
    for r in results[1:]:
        np.testing.assert_array_equal(r.counts, first.counts)
        np.testing.assert_equal(r.statistic, first.statistic)
        np.testing.assert_equal(tuple(r.confidence_interval), tuple(first.confidence_interval))
        np.testing.assert_equal(r.pvalue, first.pvalue)
        np.testing.assert_array_equal(r.bootstrap_distribution, first.bootstrap_distribution)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(0, 40), st.integers(0, 40), st.integers(1, 40),
       st.sampled_from(CI_METHODS), st.sampled_from(["fisher", "asymptotic", "copy-null"]))
def test_symmetry_in_the_two_observers(n11, n10, n01, n00, ci_method, test):
    kw = dict(rng=7, n_resamples=300, ci_method=ci_method, test=test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        r1 = tw.error_consistency(counts=[[n11, n10], [n01, n00]], **kw)
        r2 = tw.error_consistency(counts=[[n11, n01], [n10, n00]], **kw)
    np.testing.assert_equal(r1.statistic, r2.statistic)
    np.testing.assert_equal(tuple(r1.confidence_interval), tuple(r2.confidence_interval))
    np.testing.assert_equal(r1.pvalue, r2.pvalue)
    assert (r1.accuracy_a, r1.accuracy_b) == (r2.accuracy_b, r2.accuracy_a)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30),
       st.sampled_from(INDEPENDENCE_TESTS), st.booleans())
@example(0, 1, 2, 0, "fisher", True)  # κ_u = -2 at its bound: the interval holds it (found by Hypothesis)
@example(0, 1, 1, 0, "fisher", True)  # κ_u = 0/0: undefined, and a note says why (found by Hypothesis)
def test_pvalue_in_unit_interval_and_kappa_within_bounds(n11, n10, n01, n00, test, unbiased):
    if n11 + n10 + n01 + n00 == 0:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        r = tw.error_consistency(counts=[[n11, n10], [n01, n00]], test=test, rng=0, n_resamples=200,
                                 unbiased=unbiased)
    if np.isnan(r.statistic):
        assert any(note.kind == "undefined" for note in r.notes)
        return
    assert 0 < r.pvalue <= 1
    assert r.kappa_min - 1e-12 <= r.statistic <= r.kappa_max + 1e-12
    lo, hi = r.confidence_interval
    # the bias-corrected κ can pass -1 on a few items (n·κ/(n−1+κ): -2 on [[0,1],[2,0]]), and an interval
    # holds an estimate at its bound (issue 31, item 6)
    assert min(-1, r.kappa_min) - 1e-12 <= lo <= hi <= 1


def test_item_order_does_not_matter():
    a, b = correlated_pair(300, seed=4)
    perm = np.random.default_rng(0).permutation(300)
    r1 = tw.error_consistency(a, b, rng=0, n_resamples=500)
    r2 = tw.error_consistency(a[perm], b[perm], rng=0, n_resamples=500)
    assert r1.statistic == r2.statistic and r1.pvalue == r2.pvalue
    assert tuple(r1.confidence_interval) == tuple(r2.confidence_interval)


def test_seeded_runs_are_reproducible_and_generators_accepted():
    a, b = correlated_pair(150)
    r1 = tw.error_consistency(a, b, rng=42, n_resamples=300)
    r2 = tw.error_consistency(a, b, rng=np.random.default_rng(42), n_resamples=300)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    r3 = tw.error_consistency(a, b, rng=43, n_resamples=300)
    assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)


def test_interval_methods_on_the_same_replicates():
    a, b = correlated_pair(300, seed=6)
    res = {m: tw.error_consistency(a, b, rng=0, n_resamples=2000, ci_method=m) for m in CI_METHODS}
    dist = res["percentile"].bootstrap_distribution
    for m in ("basic", "bca", "hdi"):
        np.testing.assert_array_equal(res[m].bootstrap_distribution, dist)
    k = res["percentile"].statistic
    lo, hi = np.quantile(dist, [0.025, 0.975])
    assert tuple(res["percentile"].confidence_interval) == pytest.approx((lo, hi))
    assert tuple(res["basic"].confidence_interval) == pytest.approx((2 * k - hi, 2 * k - lo))
    hlo, hhi = res["hdi"].confidence_interval
    assert np.mean((dist >= hlo) & (dist <= hhi)) >= 0.95
    assert hhi - hlo <= hi - lo + 1e-12
    for m in CI_METHODS:
        lo_m, hi_m = res[m].confidence_interval
        assert lo_m < k < hi_m


def test_bca_against_a_direct_implementation():
    # BCa written out from Efron & Tibshirani (1993, §14.3) with an item-level jackknife.
    a, b = correlated_pair(120, seed=8)
    res = tw.error_consistency(a, b, rng=0, n_resamples=3000, ci_method="bca")
    dist, k = res.bootstrap_distribution, res.statistic
    z0 = stats.norm.ppf((np.sum(dist < k) + 0.5 * np.sum(dist == k)) / dist.size)
    jack = np.array([cohen_kappa_score(np.delete(a, i), np.delete(b, i)) for i in range(a.size)])
    d = jack.mean() - jack
    acc = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    qs = [stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in stats.norm.ppf([0.025, 0.975])]
    expected = np.quantile(dist, qs)
    assert tuple(res.confidence_interval) == pytest.approx(tuple(expected), abs=1e-12)


def test_unbiased_option():
    a, b = correlated_pair(80, seed=9)
    r = tw.error_consistency(a, b, rng=0, n_resamples=500)
    ru = tw.error_consistency(a, b, rng=0, n_resamples=500, unbiased=True)
    assert ru.statistic == pytest.approx(tw.ec.unbiased_kappa(r.statistic, 80))
    assert ru.method == "bias-corrected kappa" and r.method == "kappa"
    np.testing.assert_allclose(ru.bootstrap_distribution, tw.ec.unbiased_kappa(r.bootstrap_distribution, 80))
    assert ru.pvalue == r.pvalue
    ra = tw.error_consistency(a, b, ci_method="analytic", unbiased=True)
    rb = tw.error_consistency(a, b, ci_method="analytic")
    assert ra.confidence_interval.low == pytest.approx(tw.ec.unbiased_kappa(rb.confidence_interval.low, 80))


# ------------------------------------------------------------------ degenerate data


def test_one_observer_always_correct_gives_zero_with_warning():
    a = np.ones(50, bool)
    b = np.r_[np.ones(30), np.zeros(20)].astype(bool)
    with pytest.warns(tw.DegenerateDataWarning, match="A is always correct: EC is exactly 0"):
        r = tw.error_consistency(a, b, rng=0, n_resamples=500)
        boot = tw.error_consistency(a, b, rng=0, n_resamples=500, ci_method="percentile")
    assert r.statistic == 0.0 and r.pvalue == 1.0
    # Every bootstrap resample has A always correct, so the bootstrap says [0, 0]; the
    # Jeffreys posterior knows that A's accuracy is not exactly 1 and stays honest.
    assert tuple(boot.confidence_interval) == (0.0, 0.0)
    assert r.confidence_interval.low < 0 < r.confidence_interval.high
    assert [note.kind for note in r.notes] == ["undefined"] and "always correct" in r.notes[0]


def test_one_observer_always_wrong_gives_zero_with_warning():
    with pytest.warns(tw.DegenerateDataWarning, match="B is always wrong"):
        r = tw.error_consistency(counts=[[0, 30], [0, 20]], rng=0, n_resamples=200)
    assert r.statistic == 0.0


def test_both_always_correct_is_undefined_with_reason():
    with pytest.warns(tw.DegenerateDataWarning, match="expected agreement is 1, so EC is undefined"):
        r = tw.error_consistency(np.ones(40), np.ones(40), rng=0, n_resamples=200, ci_method="percentile")
    assert np.isnan(r.statistic) and np.isnan(r.pvalue)
    assert np.isnan(r.confidence_interval.low) and np.isnan(r.confidence_interval.high)
    assert r.notes == ("A is always correct and B is always correct: expected agreement is 1, so EC is undefined",)
    assert r.n_undefined == r.n_resamples == 200


def test_undefined_replicates_are_counted_and_warned():
    # One error each, on the same item, out of 50: a resample misses it with prob (49/50)^50.
    counts = [[49, 0], [0, 1]]
    with pytest.warns(tw.UndefinedReplicatesWarning, match="undefined EC"), pytest.warns(tw.SparseTableWarning):
        r = tw.error_consistency(counts=counts, rng=0, n_resamples=20000, ci_method="percentile")
    p = (49 / 50) ** 50
    assert r.n_undefined == np.isnan(r.bootstrap_distribution).sum()
    assert abs(r.n_undefined / 20000 - p) < 4 * np.sqrt(p * (1 - p) / 20000)
    assert r.confidence_interval.low <= 1 <= r.confidence_interval.high + 1e-12


def test_opposite_constant_observers_give_exact_zero():
    with pytest.warns(tw.DegenerateDataWarning, match="observed and expected agreement are 0, so EC is exactly 0"):
        r = tw.error_consistency(counts=[[0, 0], [7, 0]], rng=0, n_resamples=50)
    assert r.statistic == 0.0 and r.c_exp == 0.0


def test_no_warning_for_regular_data():
    a, b = correlated_pair(300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tw.error_consistency(a, b, rng=0, n_resamples=300)


# ------------------------------------------------------------------ result object


def test_result_repr_summary_frame():
    a, b = correlated_pair(200)
    r = tw.error_consistency(a, b, rng=0, n_resamples=500)
    line = repr(r)
    assert "\n" not in line and "EC=" in line and "CI" in line and "p=" in line and "n=200" in line
    assert "accuracy_a=" in line and "bootstrap_distribution" not in line
    assert str(r) == line
    text = r.summary()
    assert "c_obs, c_exp" in text and "B = 500" in text and "A correct" in text
    frame = r.to_frame()
    assert list(frame.columns[:6]) == ["statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n"]
    assert frame.loc[0, "ci_low"] == r.confidence_interval.low
    lo, hi = r.confidence_interval
    assert (lo, hi) == (r.confidence_interval.low, r.confidence_interval.high)
    d = r.to_dict()
    assert d["counts"] == r.counts.tolist() and d["n"] == 200
    with pytest.raises(Exception):
        r.statistic = 0.0  # frozen
