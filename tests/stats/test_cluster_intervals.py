"""The jackknife t interval over clusters (``ci_method="jackknife-t"``), the default with ``clusters=``.

Oracles: the statistic recomputed with each cluster (or item) left out by brute force, the
t quantile with G − 1 degrees of freedom from scipy, and for a mean the one-sample t
interval of ``scipy.stats.ttest_1samp``. Calibration on clustered simulations with known
population values (the full study: ``benchmarks/calibration/cluster_coverage.py``, docs/validity.md).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import trialwise as tw
from trialwise._stats import resampling
from trialwise._stats.intervals import (
    jackknife_acceleration,
    bias_correction_variance,
    jackknife_bias,
    jackknife_standard_error,
    jackknife_t_interval,
    jackknife_t_pvalue,
)


def clustered_pair(gen, n_clusters, size, sd, shared=True):
    cl = np.repeat(np.arange(n_clusters), size)
    diff = gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    other = diff if shared else gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    a = gen.random(cl.size) < stats.norm.cdf(0.6 - diff)
    b = gen.random(cl.size) < stats.norm.cdf(0.8 - other)
    return a, b, cl


def kappa(a, b):
    return tw.error_consistency(a, b, ci_method="analytic").statistic


def t_interval(est, jk, level=0.95):
    g = len(jk)
    se = np.sqrt((g - 1) / g * np.sum((jk - jk.mean()) ** 2))
    t = stats.t.ppf(0.5 + level / 2, g - 1)
    return est - t * se, est + t * se, se


def test_weighted_jackknife_equals_the_unit_by_unit_one():
    x = np.array([0.2, 0.2, 0.2, 0.9, 0.9, 0.5])
    se, g = jackknife_standard_error(x)
    se_w, g_w = jackknife_standard_error([0.2, 0.9, 0.5], weights=[3, 2, 1])
    assert (g, g_w) == (6, 6) and se_w == pytest.approx(se, rel=1e-12)
    lo, hi = jackknife_t_interval(x.mean(), (x.sum() - x) / 5, 0.9)
    ref = stats.ttest_1samp(x, 0).confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((ref.low, ref.high), rel=1e-12)


def test_bca_acceleration_is_efrons_formula_and_weights_are_units():
    """a = Σ(θ̄ − θ_i)³ / (6 [Σ(θ̄ − θ_i)²]^{3/2}) over the units (Efron 1987, eq. 6.6), written out here; a value
    given with weight k is k units; NaN values are left out; no spread gives 0."""
    x = np.array([0.1, 0.1, 0.4, 0.4, 0.4, 1.3, np.nan])
    ok = x[np.isfinite(x)]
    d = ok.mean() - ok
    assert float(jackknife_acceleration(x)) == pytest.approx((d**3).sum() / (6 * (d**2).sum() ** 1.5), rel=1e-12)
    assert float(jackknife_acceleration([0.1, 0.4, 1.3], [2, 3, 1])) == pytest.approx(float(jackknife_acceleration(x)),
                                                                                      rel=1e-12)
    cols = np.column_stack([x, np.full(7, 0.3)])  # batched: one column per statistic; a constant one has a = 0
    assert jackknife_acceleration(cols)[1] == 0.0
    assert jackknife_acceleration(cols)[0] == jackknife_acceleration(x)


def test_stratified_jackknife_standard_error_and_bias_add_over_strata():
    g = np.random.default_rng(8)
    jk, strata = g.normal(size=(11, 3)), np.array([0, 0, 0, 1, 1, 1, 1, 2, 3, 3, 3])
    var, bias = np.zeros(3), np.zeros(3)
    for h in (0, 1, 3):  # stratum 2 has one unit: it counts for nothing
        x = jk[strata == h]
        n = len(x)
        var += (n - 1) / n * ((x - x.mean(axis=0)) ** 2).sum(axis=0)
        bias += (n - 1) * (x.mean(axis=0) - 0.25)
    se, units = jackknife_standard_error(jk, strata=strata)
    np.testing.assert_allclose(se, np.sqrt(var), rtol=1e-12)
    assert units.tolist() == [10.0] * 3
    np.testing.assert_allclose(jackknife_bias(0.25, jk, strata=strata), bias, rtol=1e-12)
    one = jackknife_standard_error(jk, strata=np.zeros(11))  # one stratum: the plain jackknife
    np.testing.assert_allclose(one[0], jackknife_standard_error(jk)[0], rtol=1e-12)
    with pytest.raises(tw.InvalidValueError, match=r"`strata` must have one label per leave-one-out value \(11\); "
                                                   r"got shape \(3,\)"):
        jackknife_standard_error(jk, strata=[0, 1, 2])


def test_bias_correction_variance_is_the_brute_force_second_level_jackknife():
    """Oracle: the bias-corrected estimator recomputed on every set of groups by its definition (θ on the set minus
    the delete-a-group bias computed inside that set), then the delete-a-group variance of it minus that of θ.
    Statistic: a ratio of stratified means, groups holding one unit of each of 3 strata (as i2n deals images)."""
    from itertools import combinations

    g = np.random.default_rng(11)
    n_groups = 6
    num, den = g.gamma(2.0, 1.0, (n_groups, 3)), g.gamma(3.0, 1.0, (n_groups, 3))

    def theta(keep):  # ratio of the stratified means over the kept groups
        k = list(keep)
        return num[k].mean(axis=0).sum() / den[k].mean(axis=0).sum() + (num[k].mean() / den[k].mean()) ** 2

    def corrected(keep):
        keep = list(keep)
        loo = [theta([c for c in keep if c != a]) for a in keep]
        return theta(keep) - (len(keep) - 1) * (np.mean(loo) - theta(keep))

    def delete_a_group_var(values):
        x = np.asarray(values)
        return (x.size - 1) / x.size * ((x - x.mean()) ** 2).sum()

    groups = range(n_groups)
    ref = (delete_a_group_var([corrected(c for c in groups if c != a) for a in groups])
           - delete_a_group_var([theta(c for c in groups if c != a) for a in groups]))
    one = np.array([theta(c for c in groups if c != a) for a in groups])
    two = np.full((n_groups, n_groups), np.nan)
    for a, b in combinations(groups, 2):
        two[a, b] = two[b, a] = theta(c for c in groups if c not in (a, b))
    assert float(bias_correction_variance(one, two)) == pytest.approx(ref, rel=1e-12)
    assert ref != 0
    # vectorised over trailing axes: two statistics at once, the second twice the first (4× the variance)
    both = bias_correction_variance(np.stack([one, 2 * one], -1), np.stack([two, 2 * two], -1))
    np.testing.assert_allclose(both, [ref, 4 * ref], rtol=1e-12)
    # for the plug-in variance the corrected estimator is s² at every level, by brute force as well
    x = g.normal(0, 1, 5)
    one = np.array([np.delete(x, a).var() for a in range(5)])
    two = np.array([[np.delete(x, [a, b]).var() for b in range(5)] for a in range(5)])
    s2 = np.array([np.delete(x, a).var(ddof=1) for a in range(5)])
    assert float(bias_correction_variance(one, two)) == pytest.approx(delete_a_group_var(s2)
                                                                      - delete_a_group_var(one), rel=1e-12)
    assert np.isnan(bias_correction_variance(one[:2], two[:2, :2]))  # fewer than 3 groups


def test_leave_one_out_sums_is_the_brute_force_jackknife_in_any_chunks(monkeypatch):
    g = np.random.default_rng(2)
    units = g.integers(0, 5, size=(9, 4)).astype(float)

    def ratio(s):
        return s[:, :2] / s[:, 2:]

    brute = np.stack([ratio(np.delete(units, i, axis=0).sum(axis=0)[None])[0] for i in range(9)])
    whole = resampling.leave_one_out_sums(units, ratio)
    np.testing.assert_allclose(whole, brute, rtol=1e-15)
    monkeypatch.setattr(resampling, "LEAVE_ONE_OUT_VALUES", 8)  # chunks of 2 units: the same numbers
    assert np.array_equal(resampling.leave_one_out_sums(units, ratio), whole)
    assert resampling.leave_one_out_sums(units[:0], ratio).shape == (0, 2)


def test_pairwise_ec_over_clusters_is_the_brute_force_cluster_jackknife():
    gen = np.random.default_rng(3)
    a, b, cl = clustered_pair(gen, 12, 15, 1.0)
    c = gen.random(a.size) < 0.7
    res = tw.pairwise_error_consistency(np.column_stack([a, b, c]), clusters=cl, n_resamples=50, rng=0)
    assert res.ci_method == "jackknife-t" and res.test == "cluster-jackknife-t"
    for j, (x, y) in enumerate([(a, b), (a, c), (b, c)]):
        jk = np.array([kappa(x[cl != g], y[cl != g]) for g in range(12)])
        lo, hi, se = t_interval(kappa(x, y), jk)
        assert res.confidence_interval.low[j] == pytest.approx(lo, rel=1e-10)
        assert res.confidence_interval.high[j] == pytest.approx(hi, rel=1e-10)
        p = 2 * stats.t.sf(abs(kappa(x, y)) / se, 11)
        assert res.pvalue[j] == pytest.approx(p, rel=1e-8)


def test_one_pair_over_items_is_the_brute_force_item_jackknife():
    gen = np.random.default_rng(4)
    a, b, _ = clustered_pair(gen, 10, 8, 0.5)
    res = tw.error_consistency(a, b, ci_method="jackknife-t", n_resamples=50, rng=0)
    jk = np.array([kappa(np.delete(a, i), np.delete(b, i)) for i in range(a.size)])
    lo, hi, _ = t_interval(kappa(a, b), jk)
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx((lo, hi), rel=1e-10)


def test_capa_over_clusters_is_the_brute_force_cluster_jackknife():
    gen = np.random.default_rng(5)
    n, k = 120, 4
    cl = np.repeat(np.arange(10), 12)
    truth = gen.integers(0, k, n)
    shared = gen.normal(size=(n, k))
    pa, pb = (gen.dirichlet(np.ones(k), n) * 0.5 + 0.5 * np.exp(shared) / np.exp(shared).sum(1, keepdims=True)
              for _ in range(2))
    res = tw.agreement(pa, pb, truth, clusters=cl, n_resamples=50, rng=0)
    assert res.ci_method == "jackknife-t"
    est = tw.agreement(pa, pb, truth, n_resamples=0).statistic
    jk = np.array([tw.agreement(pa[cl != g], pb[cl != g], truth[cl != g], n_resamples=0).statistic for g in range(10)])
    lo, hi, se = t_interval(est, jk)
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx((lo, hi), rel=1e-10)
    assert res.pvalue == pytest.approx(stats.t.sf(est / se, 9), rel=1e-8)  # one-sided: no more than chance
    assert float(jackknife_t_pvalue(est, jk)) == pytest.approx(res.pvalue, rel=1e-12)


def test_ec_interval_over_few_clusters_covers():
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(11)
    big_a, big_b, _ = clustered_pair(gen, 20_000, 10, 1.0)
    true = kappa(big_a, big_b)
    hits = {"jackknife-t": [], "percentile": []}
    for r in range(300):
        a, b, cl = clustered_pair(gen, 12, 20, 1.0)
        for method in hits:
            ci = tw.pairwise_error_consistency(np.column_stack([a, b]), clusters=cl, ci_method=method,
                                               n_resamples=300 if method == "percentile" else 20, rng=r)
            hits[method].append(ci.confidence_interval.low[0] <= true <= ci.confidence_interval.high[0])
    cover = {m: np.mean(h) for m, h in hits.items()}
    assert 0.92 <= cover["jackknife-t"] <= 0.985, cover  # 12 clusters: the cluster bootstrap runs below
    assert cover["percentile"] < cover["jackknife-t"], cover


def test_ec_test_over_clusters_holds_its_level():
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(12)
    p = [tw.pairwise_error_consistency(np.column_stack(clustered_pair(gen, 15, 20, 1.0, shared=False)[:2]),
                                       clusters=np.repeat(np.arange(15), 20), n_resamples=20, rng=r).pvalue[0]
         for r in range(400)]
    assert np.mean(np.asarray(p) < 0.05) <= 0.075  # MC SE 0.011 at 0.05


def test_capa_interval_over_few_clusters_covers():
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(13)

    def draw(n_clusters, size):
        cl = np.repeat(np.arange(n_clusters), size)
        n = cl.size
        truth = gen.integers(0, 4, n)
        diff = gen.normal(0, 1, n_clusters)[cl] + gen.normal(0, 1, n)
        lure = gen.normal(0, 1, (n, 4))
        out = []
        for ability in (1.0, 1.6):
            z = 0.8 * lure + 0.6 * gen.normal(0, 1, (n, 4))
            z[np.arange(n), truth] += ability - diff
            p = np.exp(z - z.max(1, keepdims=True))
            out.append(p / p.sum(1, keepdims=True))
        return out[0], out[1], truth, cl

    a, b, t, _ = draw(20_000, 10)
    true = tw.agreement(a, b, t, n_resamples=0).statistic
    hits = {"jackknife-t": [], "percentile": []}
    for r in range(400):
        a, b, t, cl = draw(12, 20)
        for method in hits:
            ci = tw.agreement(a, b, t, clusters=cl, ci_method=method, rng=r,
                              n_resamples=300 if method == "percentile" else 20).confidence_interval
            hits[method].append(ci.low <= true <= ci.high)
    cover = {m: np.mean(h) for m, h in hits.items()}
    # 12 strongly clustered groups: 0.92 in the full study (docs/validity.md), the cluster bootstrap 0.85
    assert 0.895 <= cover["jackknife-t"] <= 0.985 and cover["jackknife-t"] >= cover["percentile"] + 0.03, cover
