"""One Wald interval: ``trialwise._stats.intervals.wald_interval`` and its normal quantile, used by every estimate ± z·SE.

Oracles: ``scipy.stats.norm.ppf`` for the quantile, and the closed forms of each interval written
out here (the estimate ± z·SE on its own scale, mapped back where the scale is transformed).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

import trialwise as tw
from trialwise._stats.intervals import interval, normal_quantile, wald_interval
from trialwise.ec.observed_agreement import chance_agreement_interval

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.11, 0.16, 0.3]


@pytest.mark.parametrize("level", LEVELS)
def test_normal_quantile_is_scipys_two_sided_quantile(level):
    assert normal_quantile(level) == stats.norm.ppf(0.5 + level / 2)
    if level >= 0.5:  # 1 − level is exact there: the two ways of writing 1 − α/2 are the same float
        assert normal_quantile(level) == ndtri(1 - (1 - level) / 2)


def test_normal_quantile_of_an_array_of_levels():
    np.testing.assert_array_equal(normal_quantile(np.array(LEVELS)), [normal_quantile(x) for x in LEVELS])


def test_wald_interval_is_the_estimate_plus_minus_z_se_clipped():
    est, se = np.array([0.2, 0.5, 0.97]), np.array([0.1, 0.0, 0.05])
    z = stats.norm.ppf(0.95)
    lo, hi = wald_interval(est, se, 0.9)
    np.testing.assert_array_equal(lo, est - z * se)
    np.testing.assert_array_equal(hi, est + z * se)
    lo, hi = wald_interval(est, se, 0.9, bounds=(0.0, 1.0))
    assert hi[2] == 1.0 and lo[0] == pytest.approx(0.2 - z * 0.1, abs=1e-15)
    assert np.isnan(wald_interval(np.nan, 0.1)[0])
    d_lo, d_hi = interval("analytic", None, est, 0.9, standard_error=se, bounds=(0.0, 1.0))  # the dispatch: the same
    np.testing.assert_array_equal(d_lo, lo)
    np.testing.assert_array_equal(d_hi, hi)


@pytest.fixture(scope="module")
def binary():
    g = np.random.default_rng(11)
    y = g.integers(0, 2, 300)
    pa = np.clip(0.3 * y + 0.7 * g.random(300), 0, 1)
    pb = np.clip(0.2 * y + 0.8 * g.random(300), 0, 1)
    return y, pa, pb


@pytest.mark.parametrize("level", [0.95, 0.8])
def test_every_comparison_wald_interval_is_the_one_formula(binary, level):
    """AUC (DeLong SE, clipped to [0, 1]), the DeLong difference, Cohen's κ, Yule's Q (on log OR), Spearman's r of
    the per-sample scores (on Fisher's z), the chance agreement: each estimate ± z·SE written out with scipy's z."""
    y, pa, pb = binary
    z = stats.norm.ppf(0.5 + level / 2)
    res = tw.comparison.auc(y, pa, confidence_level=level)
    assert tuple(res.confidence_interval) == (max(0.0, res.statistic - z * res.se), min(1.0, res.statistic + z * res.se))
    res = tw.comparison.delong_test(y, pa, pb, confidence_level=level)
    assert tuple(res.confidence_interval) == (res.statistic - z * res.se, res.statistic + z * res.se)
    res = tw.comparison.cohen_kappa(pa > 0.5, pb > 0.5, confidence_level=level)
    assert tuple(res.confidence_interval) == (res.statistic - z * res.se, res.statistic + z * res.se)
    res = tw.comparison.yules_q(y, pa > 0.5, pb > 0.5, confidence_level=level)
    t = tw.comparison.contingency_table(y, pa > 0.5, pb > 0.5).astype(float)
    log_or, se = np.log(t[0, 0] * t[1, 1] / (t[0, 1] * t[1, 0])), np.sqrt(np.sum(1 / t))
    assert tuple(res.confidence_interval) == pytest.approx((np.tanh((log_or - z * se) / 2),
                                                            np.tanh((log_or + z * se) / 2)), rel=1e-14)
    res = tw.comparison.error_correlation(y, np.c_[1 - pa, pa], np.c_[1 - pb, pb], method="spearman",
                                          confidence_level=level)
    half = z * np.sqrt((1 + res.statistic**2 / 2) / (res.n - 3))
    assert tuple(res.confidence_interval) == (np.tanh(np.arctanh(res.statistic) - half),
                                              np.tanh(np.arctanh(res.statistic) + half))
    c_exp = np.array([0.3, 0.5, 0.9])
    lo, hi = chance_agreement_interval(c_exp, 100, confidence_level=level)
    np.testing.assert_array_equal(lo, c_exp - z * np.sqrt(c_exp * (1 - c_exp) / 100))
    np.testing.assert_array_equal(hi, c_exp + z * np.sqrt(c_exp * (1 - c_exp) / 100))
