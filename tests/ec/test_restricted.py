"""The restricted Wald test of equal EC and its inverted interval (issue 16): oracles and calibration."""

import numpy as np
import pytest
from scipy import optimize, stats

import trialwise as tw
import trialwise._stats.resampling
from trialwise.ec.difference import difference_pvalues
from trialwise._stats.kappa_derivatives import kappa_difference_variance
from trialwise.planning.trials import joint_cells
from trialwise.ec.restricted import constrained_cells, restricted_wald_interval, restricted_wald_pvalues

TABLE = np.array([[[30, 10], [8, 2]], [[5, 5], [10, 30]]])


def delta_of(p):
    p = np.asarray(p, dtype=float).reshape(2, 2, 2)
    return float(tw.ec.kappa_from_counts(p.sum(-1)) - tw.ec.kappa_from_counts(p.sum(-2)))


def test_constrained_cells_satisfy_the_constraint_and_the_kkt_conditions():
    for target in (0.0, 0.2, -0.3):
        p, ok = constrained_cells(TABLE, target)
        assert ok and p.sum() == pytest.approx(1, abs=1e-12)
        assert delta_of(p) == pytest.approx(target, abs=1e-9)
        # stationarity: (c + ½)/p − N is a multiple of ∇Δ(p) (checked with a numerical gradient)
        c = TABLE.ravel() + 0.5
        resid = c / p.ravel() - c.sum()
        h = 1e-7
        grad = np.array([(delta_of(p.ravel() + h * e) - delta_of(p.ravel() - h * e)) / (2 * h) for e in np.eye(8)])
        lam = resid @ grad / (grad @ grad)
        np.testing.assert_allclose(resid, lam * grad, atol=1e-4 * c.sum())


@pytest.mark.parametrize("table, target", [(TABLE, 0.0), (TABLE, 0.25), ([[[12, 3], [0, 1]], [[2, 0], [4, 3]]], 0.0)])
def test_constrained_cells_match_a_brute_force_slsqp_fit(table, target):
    c = np.asarray(table, dtype=float).ravel() + 0.5

    def negloglik(theta):
        p = np.exp(theta) / np.exp(theta).sum()
        return -(c * np.log(p)).sum()

    def constraint(theta):
        return delta_of(np.exp(theta) / np.exp(theta).sum()) - target

    fit = optimize.minimize(negloglik, np.log(c / c.sum()), method="SLSQP",
                            constraints=[{"type": "eq", "fun": constraint}], options=dict(ftol=1e-14, maxiter=500))
    assert fit.success
    brute = np.exp(fit.x) / np.exp(fit.x).sum()
    p, ok = constrained_cells(table, target)
    assert ok
    np.testing.assert_allclose(p.ravel(), brute, atol=2e-5)
    assert negloglik(np.log(p.ravel())) <= fit.fun + 1e-9  # ours is at least as good a maximum


def test_pvalue_is_the_normal_tail_of_delta_over_the_restricted_standard_error():
    p_tilde, _ = constrained_cells(TABLE)
    _, var1 = kappa_difference_variance(p_tilde)  # proportions: n = 1
    z = delta_of(TABLE) / np.sqrt(var1 / TABLE.sum())
    assert float(restricted_wald_pvalues(TABLE)) == pytest.approx(2 * stats.norm.sf(abs(z)), abs=1e-12)
    assert float(difference_pvalues(TABLE, test="restricted-wald")) == float(restricted_wald_pvalues(TABLE))


def test_interval_ends_are_where_the_test_switches_and_agree_with_the_pvalue():
    counts = trialwise._stats.resampling.multinomial_cells(joint_cells(0.3, 0.3, 0.8, 0.65, 0.85), 80, size=60, rng=2, cell_ndim=3)
    lo, hi = restricted_wald_interval(counts, 0.9)
    p = restricted_wald_pvalues(counts)
    np.testing.assert_array_equal(p <= 0.1, (lo > 0) | (hi < 0))
    batched = restricted_wald_pvalues(counts)
    looped = [float(restricted_wald_pvalues(c)) for c in counts[:10]]
    np.testing.assert_allclose(batched[:10], looped, rtol=1e-10)
    # at the ends the restricted statistic sits on the critical value ±1.645
    for k in range(3):
        for end in (lo[k], hi[k]):
            pt, _ = constrained_cells(counts[k], end)
            _, var1 = kappa_difference_variance(pt)
            zz = (delta_of(counts[k]) - end) / np.sqrt(var1 / counts[k].sum())
            assert abs(zz) == pytest.approx(stats.norm.ppf(0.95), abs=1e-6)


def test_undefined_difference_gives_nan():
    c = np.zeros((2, 2, 2), int)
    c[0, 0, 0], c[0, 0, 1] = 30, 10  # everyone right on the reference's items: κ(R, X) undefined
    assert np.isnan(restricted_wald_pvalues(c))
    assert all(np.isnan(e) for e in restricted_wald_interval(c))


def test_default_of_error_consistency_difference_is_the_restricted_test_and_its_interval():
    res = tw.error_consistency_difference(counts=TABLE, n_resamples=50, rng=0)
    assert res.test == "restricted-wald" and res.ci_method == "restricted-wald"
    assert res.pvalue == float(restricted_wald_pvalues(TABLE))
    assert (res.confidence_interval.low, res.confidence_interval.high) == restricted_wald_interval(TABLE)


# Awkward grid points of docs/validity.md: equal κ, very different accuracies, small n.
AWKWARD = [(50, 0.95, 0.6, 0.9, 0.0), (50, 0.8, 0.6, 0.9, 0.5), (160, 0.6, 0.65, 0.85, 0.0)]


@pytest.mark.parametrize("n, a_ref, a_x, a_y, k", AWKWARD)
def test_type_one_error_holds_where_the_swap_test_fails(n, a_ref, a_x, a_y, k):
    r = 400  # Monte-Carlo SE of a 5 % rate: 1.09 percentage points
    counts = trialwise._stats.resampling.multinomial_cells(joint_cells(k, k, a_ref, a_x, a_y), n, size=r, rng=7, cell_ndim=3)
    p = restricted_wald_pvalues(counts)
    ok = ~np.isnan(p)
    assert np.mean(p[ok] <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / ok.sum())


def test_the_swap_test_rejects_too_often_at_the_most_awkward_point():
    counts = trialwise._stats.resampling.multinomial_cells(joint_cells(0.0, 0.0, 0.95, 0.6, 0.9), 50, size=400, rng=7, cell_ndim=3)
    p = difference_pvalues(counts, test="swap", n_resamples=199, rng=1)
    assert np.mean(p <= 0.05) > 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)  # 31 % in docs/validity.md


@pytest.mark.parametrize("n, a_ref, a_x, a_y, k_x, k_y", [(50, 0.8, 0.65, 0.85, 0.2, 0.5), (160, 0.95, 0.6, 0.9, 0.0, 0.0)])
def test_interval_covers(n, a_ref, a_x, a_y, k_x, k_y):
    r = 300  # Monte-Carlo SE of a 95 % coverage: 1.26 percentage points
    counts = trialwise._stats.resampling.multinomial_cells(joint_cells(k_x, k_y, a_ref, a_x, a_y), n, size=r, rng=8, cell_ndim=3)
    lo, hi = restricted_wald_interval(counts)
    ok = ~np.isnan(lo)
    cover = (lo[ok] <= k_x - k_y + 1e-9) & (hi[ok] >= k_x - k_y - 1e-9)
    assert cover.mean() >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / ok.sum())
