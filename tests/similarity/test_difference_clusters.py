"""The difference of two agreements with clusters of questions (issue 31, item 7).

``PairwiseAgreementResult.difference`` over clusters is the jackknife t interval and test with G − 1
degrees of freedom; here against a brute-force reference (every pair's κ_p recomputed with each
cluster left out), and calibrated on the design of
``benchmarks/calibration/agreement_difference_clusters.py`` (the table of docs/validity.md).
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import trialwise as tw
from trialwise._stats.streams import child_rngs


def _design():
    path = Path(__file__).parents[2] / "benchmarks" / "calibration" / "agreement_difference_clusters.py"
    spec = importlib.util.spec_from_file_location("agreement_difference_clusters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIM = _design()


def _kappa_p(a, b, t, k):
    """κ_p of two models' option probabilities, written out (Goel et al. 2025)."""
    rows = np.arange(len(t))
    c_obs = np.mean(np.sum(a * b, axis=1))
    pa, pb = a[rows, t].mean(), b[rows, t].mean()
    c_exp = pa * pb + (1 - pa) * (1 - pb) / (k - 1)
    return (c_obs - c_exp) / (1 - c_exp)


def _brute_force(probs, t, codes, ref, x, y, level=0.95):
    """Δ̂, its jackknife t interval and two-sided p, every cluster left out by hand."""
    k = probs.shape[2]
    est = _kappa_p(probs[ref], probs[x], t, k) - _kappa_p(probs[ref], probs[y], t, k)
    groups = np.unique(codes)
    jack = []
    for c in groups:
        keep = codes != c
        p, tk = probs[:, keep], t[keep]
        jack.append(_kappa_p(p[ref], p[x], tk, k) - _kappa_p(p[ref], p[y], tk, k))
    jack = np.array(jack)
    g = len(groups)
    se = np.sqrt((g - 1) / g * np.sum((jack - jack.mean()) ** 2))
    q = stats.t.ppf(0.5 + level / 2, g - 1)
    return est, (est - q * se, est + q * se), 2 * stats.t.sf(abs(est) / se, g - 1)


@pytest.mark.parametrize("n_clusters, level", [(6, 0.95), (12, 0.9), (30, 0.99)])
def test_clustered_difference_is_the_jackknife_t_of_clusters_left_out_by_hand(n_clusters, level):
    probs, t, codes = SIM.clustered_three(np.random.default_rng(n_clusters), n_clusters, SIM.ALT)
    labels = np.array([f"topic-{c:02d}" for c in codes])[::1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.DegenerateDataWarning)  # 6 clusters: the few-clusters warning
        res = tw.pairwise_agreement(probs, truth=t, clusters=labels, confidence_level=level, n_resamples=50, rng=0)
    assert res.ci_method == "jackknife-t" and res.jackknife_values.shape == (n_clusters, 3)
    for ref, x, y in ((0, 1, 2), (1, 2, 0), (2, 0, 1), (0, 2, 1)):
        d = res.difference(ref, x, y)
        est, (lo, hi), p = _brute_force(probs, t, codes, ref, x, y, level)
        assert d.statistic == pytest.approx(est, abs=1e-12)
        assert tuple(d.confidence_interval) == pytest.approx((lo, hi), abs=1e-12)
        assert d.pvalue == pytest.approx(p, rel=1e-9, abs=1e-15)
        assert d.ci_method == "jackknife-t" and d.n_clusters == n_clusters
        assert d.to_frame()["ci_method"].tolist() == ["jackknife-t"]
        assert f"t with {n_clusters - 1} df" in d.summary()


def test_the_family_uses_the_same_clustered_differences_without_a_monte_carlo_floor():
    probs, t, codes = SIM.clustered_three(np.random.default_rng(3), 15, SIM.ALT)
    res = tw.pairwise_agreement(probs, truth=t, clusters=codes, n_resamples=20, rng=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tw.MonteCarloResolutionWarning)  # B = 20: a percentile family would warn
        family = res.differences()
    assert family.ci_method == "jackknife-t" and "two-sided, jackknife-t" in family.summary()
    for row in family.table.itertuples():
        d = res.difference(row.reference, row.more_similar, row.less_similar)
        assert (row.difference, row.ci_low, row.ci_high, row.pvalue) == pytest.approx(
            (d.statistic, *d.confidence_interval, d.pvalue), abs=1e-15)


def test_without_clusters_or_with_a_bootstrap_method_the_difference_stays_percentile():
    probs, t, codes = SIM.clustered_three(np.random.default_rng(4), 20, SIM.ALT)
    for kwargs in ({}, {"clusters": codes, "ci_method": "percentile"}, {"clusters": codes, "ci_method": "bca"}):
        res = tw.pairwise_agreement(probs, truth=t, n_resamples=200, rng=1, **kwargs)
        assert res.jackknife_values.size == 0
        d = res.difference(0, 1, 2)
        dist = d.bootstrap_distribution
        assert d.ci_method == "percentile" and d.n_clusters is None
        assert tuple(d.confidence_interval) == pytest.approx(tuple(np.quantile(dist, [0.025, 0.975])), abs=1e-12)
        assert d.pvalue == pytest.approx(min(1, 2 * (1 + min(np.sum(dist <= 0), np.sum(dist >= 0))) / 201))
        assert "B = 200" in d.summary()
        family = res.differences(alpha=0.5)
        assert family.ci_method == "percentile"


def test_clustered_replicates_not_kept_leave_no_difference():
    probs, t, codes = SIM.clustered_three(np.random.default_rng(5), 12, SIM.ALT)
    res = tw.pairwise_agreement(probs, truth=t, clusters=codes, n_resamples=50, rng=0, keep_replicates=False)
    assert res.jackknife_values.size == 0
    with pytest.raises(tw.InvalidValueError, match=r"holds no bootstrap replicates .*keep_replicates=False"):
        res.difference(0, 1, 2)


def test_clustered_difference_holds_its_level_and_covers_at_ten_clusters():
    # 10 clusters of 2–30 questions, ICC 0.3 (docs/validity.md). R = 800 null data sets: type-I error at 5 %
    # within 5 % + 3 MC SE (0.0077), where the percentile bootstrap of before rejected 10.2 % (R = 10,000);
    # R = 800 alternatives: coverage within 95 % − 3 MC SE, where it covered 89.5 %.
    delta = SIM.true_delta()
    rejected = covered = 0
    r = 800
    for rng in child_rngs(7, r):
        probs, t, codes = SIM.clustered_three(rng, 10, SIM.NULL)
        rejected += tw.pairwise_agreement(probs, truth=t, clusters=codes, n_resamples=200,
                                          rng=rng).difference(0, 1, 2).pvalue <= 0.05
        probs, t, codes = SIM.clustered_three(rng, 10, SIM.ALT)
        lo, hi = tw.pairwise_agreement(probs, truth=t, clusters=codes, n_resamples=200,
                                       rng=rng).difference(0, 1, 2).confidence_interval
        covered += lo <= delta <= hi
    se = np.sqrt(0.05 * 0.95 / r)
    assert rejected / r <= 0.05 + 3 * se
    assert covered / r >= 0.95 - 3 * se


@pytest.mark.slow
@pytest.mark.parametrize("n_clusters", [10, 15, 40])
def test_clustered_difference_calibration(n_clusters):
    # the table of docs/validity.md at R = 3,000 (its own seed): type-I error within the goal 6.5 % + 2 MC SE,
    # coverage of the null and of the alternative within 95 % − 3 MC SE (MC SE at 5 %: 0.0040)
    rows = SIM.study(3000, 200, (n_clusters,), seed=8)
    row = rows[0]
    se = np.sqrt(0.05 * 0.95 / 3000)
    assert row["rej_new"] <= 0.065 + 2 * se
    assert row["cov0_new"] >= 0.95 - 3 * se
    assert row["cov_new"] >= 0.95 - 3 * se
