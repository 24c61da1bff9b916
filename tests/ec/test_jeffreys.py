"""The Jeffreys interval: Dirichlet posterior draws, the joint Bayesian bootstrap, degenerate tables."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import trialwise as tw
from trialwise._stats.resampling import bootstrap_weights, posterior_tables


def test_posterior_draws_have_the_dirichlet_moments():
    counts = np.array([[40, 7], [3, 0]])
    draws = posterior_tables(counts, 200_000, rng=0)
    p = draws.reshape(-1, 4) / counts.sum()
    alpha = counts.ravel() + 0.5
    np.testing.assert_allclose(p.mean(axis=0), stats.dirichlet.mean(alpha), atol=4e-4)
    np.testing.assert_allclose(p.var(axis=0), stats.dirichlet.var(alpha), rtol=0.02)
    assert np.allclose(draws.sum(axis=(1, 2)), counts.sum())
    assert (draws > 0).all()  # the empty cell keeps posterior mass


def test_posterior_draws_are_reproducible_and_worker_independent():
    counts = np.random.default_rng(0).integers(0, 30, size=(300, 2, 2))
    a = posterior_tables(counts, 2000, rng=5, workers=1)
    b = posterior_tables(counts, 2000, rng=5, workers=2)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="prior"):
        posterior_tables(counts, 10, prior=0)


def test_interval_is_the_posterior_quantiles_of_kappa():
    counts = np.array([[60, 12], [8, 20]])
    res = tw.error_consistency(counts=counts, ci_method="jeffreys", n_resamples=40_000, rng=1)
    # Independent oracle: scipy's Dirichlet sampler, κ from the drawn cell probabilities.
    p = stats.dirichlet.rvs(counts.ravel() + 0.5, size=40_000, random_state=2).reshape(-1, 2, 2)
    lo, hi = np.quantile(tw.ec.kappa_from_counts(p), [0.025, 0.975])
    assert res.confidence_interval.low == pytest.approx(lo, abs=0.01)
    assert res.confidence_interval.high == pytest.approx(hi, abs=0.01)
    assert res.n_undefined == 0 and res.ci_method == "jeffreys"


def test_bayesian_bootstrap_weights():
    w = np.vstack(list(bootstrap_weights(500, 400, rng=0, kind="bayesian")))
    assert w.shape == (400, 500) and (w > 0).all()
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 1) < 0.02  # Exp(1)
    strata = np.repeat([0, 1, 2], [100, 150, 250])
    ws = np.vstack(list(bootstrap_weights(500, 50, rng=0, kind="bayesian", strata=strata)))
    for s, size in enumerate([100, 150, 250]):
        np.testing.assert_allclose(ws[:, strata == s].sum(axis=1), size)
    with pytest.raises(ValueError, match="kind"):
        next(bootstrap_weights(10, 5, kind="other"))


def test_pairwise_jeffreys_equals_the_single_pair_posterior_in_distribution():
    rng = np.random.default_rng(3)
    base = rng.random(300) < 0.85
    obs = pd.DataFrame({
        "a": np.where(rng.random(300) < 0.5, base, rng.random(300) < 0.85),
        "b": base,
        "c": rng.random(300) < 0.95,
    })
    pair = tw.pairwise_error_consistency(obs, ci_method="jeffreys", n_resamples=20_000, rng=1)
    for i, (x, y) in enumerate(zip(pair.observer_a, pair.observer_b)):
        single = tw.error_consistency(obs[x], obs[y], ci_method="jeffreys", n_resamples=20_000, rng=2)
        assert stats.ks_2samp(pair.bootstrap_distribution[:, i], single.bootstrap_distribution).pvalue > 1e-3
        assert pair.confidence_interval.low[i] == pytest.approx(single.confidence_interval.low, abs=0.015)
        assert pair.confidence_interval.high[i] == pytest.approx(single.confidence_interval.high, abs=0.015)
    # Joint: pairs sharing an observer are correlated across replicates, as in the bootstrap.
    boot = tw.pairwise_error_consistency(obs, ci_method="percentile", n_resamples=20_000, rng=1)
    r_jeff = np.corrcoef(pair.bootstrap_distribution[:, 0], pair.bootstrap_distribution[:, 1])[0, 1]
    r_boot = np.corrcoef(boot.bootstrap_distribution[:, 0], boot.bootstrap_distribution[:, 1])[0, 1]
    assert r_jeff == pytest.approx(r_boot, abs=0.05)


def test_pairwise_jeffreys_with_missing_items_and_strata():
    rng = np.random.default_rng(4)
    data = (rng.random((200, 3)) < 0.8).astype(float)
    data[:20, 0] = np.nan
    res = tw.pairwise_error_consistency(data, ci_method="jeffreys", strata=np.repeat([0, 1], 100),
                                        n_resamples=2000, rng=0)
    assert res.n.tolist() == [180, 180, 200]
    assert np.all(res.confidence_interval.low < res.statistic) and np.all(res.statistic < res.confidence_interval.high)


def test_degenerate_tables_still_get_an_honest_interval():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.DegenerateDataWarning)
        one = tw.error_consistency(counts=[[45, 5], [0, 0]], ci_method="jeffreys", n_resamples=4000, rng=0)
        both = tw.error_consistency(counts=[[50, 0], [0, 0]], ci_method="jeffreys", n_resamples=4000, rng=0)
    assert one.statistic == 0.0 and one.confidence_interval.low < 0 < one.confidence_interval.high
    assert np.isnan(both.statistic)
    assert both.confidence_interval.high - both.confidence_interval.low > 0.9  # the data say little
    # A pair that shares no item gets no interval.
    data = np.array([[1, np.nan], [0, np.nan], [np.nan, 1], [np.nan, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        res = tw.pairwise_error_consistency(data, ci_method="jeffreys", n_resamples=100, rng=0)
    assert np.isnan(res.confidence_interval.low[0])


def test_copy_model_intervals_from_posterior_draws():
    res = tw.error_consistency(counts=[[60, 12], [8, 20]], ci_method="jeffreys", n_resamples=5000, rng=0)
    fit = res.copy_model
    assert fit.ci_method == "jeffreys"
    assert fit.confidence_interval.low == pytest.approx(res.confidence_interval.low, abs=1e-12)
    assert fit.p_copy_interval.low < fit.p_copy < fit.p_copy_interval.high
