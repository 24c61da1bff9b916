"""Calibration on simulated data with known truth: type-I error and CI coverage.

Data: 2×2 tables drawn from the cell probabilities fixed by (κ, a_A, a_B)
(``trialwise.ec.cell_probabilities``), one multinomial draw per simulated experiment,
analysed through the public ``error_consistency``. Bounds are nominal ± 3 Monte-Carlo
standard errors (a false alarm rate of about 0.3 % per assertion).
"""

import warnings

import numpy as np
import pytest

import trialwise as tw
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.resampling import multinomial_tables

pytestmark = pytest.mark.slow


def simulate(kappa, acc_a, acc_b, n, reps, seed):
    p = tw.ec.cell_probabilities(kappa, acc_a, acc_b)
    return multinomial_tables(p, n, size=reps, rng=seed)


def rejection_rate(tables, test, alpha=0.05, **kw):
    pvals = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for i, t in enumerate(tables):
            pvals.append(tw.error_consistency(counts=t, test=test, ci_method="analytic", rng=i, **kw).pvalue)
    pvals = np.asarray(pvals)
    return np.mean(pvals[~np.isnan(pvals)] <= alpha)


@pytest.mark.parametrize("test", ["fisher", "asymptotic", "copy-null"])
@pytest.mark.parametrize("n, acc_a, acc_b", [(160, 0.6, 0.8), (1000, 0.75, 0.75)])
def test_type_one_error(test, n, acc_a, acc_b):
    reps = 2000
    se = np.sqrt(0.05 * 0.95 / reps)  # 0.49 percentage points
    tables = simulate(0.0, acc_a, acc_b, n, reps, seed=n)
    rate = rejection_rate(tables, test, n_resamples=999)
    # No test may reject more than α (+ 3 MC errors). Fisher's exact test is
    # conservative by construction; the others must also not be far below α here.
    assert rate <= 0.05 + 3 * se
    if test != "fisher":
        assert rate >= 0.05 - 3 * se


def test_type_one_error_boschloo_small_n():
    reps = 800  # Boschloo costs O(n²) per table; n = 40 keeps this under a minute
    se = np.sqrt(0.05 * 0.95 / reps)  # 0.77 percentage points
    tables = simulate(0.0, 0.6, 0.7, 40, reps, seed=1)
    assert rejection_rate(tables, "boschloo") <= 0.05 + 3 * se


def test_fisher_is_more_conservative_than_boschloo_but_both_valid():
    # Same simulated tables; Boschloo's unconditional test rejects at least as often.
    tables = simulate(0.0, 0.6, 0.7, 40, 400, seed=2)
    assert rejection_rate(tables, "boschloo") >= rejection_rate(tables, "fisher")


@pytest.mark.parametrize("ci_method", CI_METHODS)
@pytest.mark.parametrize("n", [160, 1000])
def test_coverage_at_nominal_95(ci_method, n):
    reps, kappa = 1000, 0.3
    se = np.sqrt(0.95 * 0.05 / reps)  # 0.69 percentage points
    tables = simulate(kappa, 0.6, 0.8, n, reps, seed=n + 7)
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for i, t in enumerate(tables):
            r = tw.error_consistency(counts=t, ci_method=ci_method, n_resamples=1000, rng=i, test="asymptotic")
            hits += r.confidence_interval.low <= kappa <= r.confidence_interval.high
    coverage = hits / reps
    assert abs(coverage - 0.95) <= 3 * se, f"{ci_method}: coverage {coverage:.3f}"


def test_power_against_a_real_effect():
    # Not a calibration bound but a sanity check that the default test has power:
    # κ = 0.3 with n = 160 is detected nearly always.
    tables = simulate(0.3, 0.6, 0.8, 160, 200, seed=3)
    assert rejection_rate(tables, "fisher") > 0.95
