"""Seeded results do not depend on chunking or threads (issue 14, item 9).

``bootstrap_weights`` promises that its draws do not depend on ``batch``; with ``strata`` the
draws used to be made chunk by chunk and stratum by stratum, so ``batch=100`` and
``batch=1000`` gave different intervals. These properties guard it for any batch, any strata
and any number of workers.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import trialwise as tw
from trialwise._stats.resampling import bootstrap_weights


def _weights(n, b, seed, strata, batch):
    return np.concatenate(list(bootstrap_weights(n, b, rng=seed, strata=strata, batch=batch)))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), b=st.integers(1, 30), n_strata=st.integers(1, 5), batch=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1))
def test_weights_do_not_depend_on_batch(n, b, n_strata, batch, seed):
    strata = np.random.default_rng(seed).integers(0, n_strata, n)
    whole = _weights(n, b, seed, strata, None)
    chunked = _weights(n, b, seed, strata, batch)
    np.testing.assert_array_equal(whole, chunked)
    # every replicate keeps each stratum's size
    for s in np.unique(strata):
        assert np.all(whole[:, strata == s].sum(axis=1) == np.sum(strata == s))


def test_one_stratum_equals_no_strata():
    """A single stratum is the ordinary bootstrap: the same seed gives the same replicates."""
    np.testing.assert_array_equal(_weights(50, 20, 3, None, 7), _weights(50, 20, 3, np.zeros(50), 11))


def test_stratified_draws_are_uniform_within_strata():
    """Each item of a stratum of size m is drawn 1 time per replicate on average (Poisson-like)."""
    strata = np.repeat([0, 1, 2], [5, 20, 75])
    w = _weights(100, 4000, 0, strata, 333)
    mean = w.mean(axis=0)
    np.testing.assert_allclose(mean, 1.0, atol=5 * np.sqrt(1.0 / 4000) * 1.2)
    # variance of a multinomial count within a stratum of size m: 1 - 1/m
    for s, m in ((0, 5), (1, 20), (2, 75)):
        np.testing.assert_allclose(w[:, strata == s].var(axis=0).mean(), 1 - 1 / m, rtol=0.08)


@pytest.mark.parametrize("ci_method", ["percentile", "bca", "jeffreys"])
def test_pairwise_with_strata_does_not_depend_on_batch(ci_method):
    rng = np.random.default_rng(5)
    m = (rng.random((300, 6)) < 0.7).astype(float)
    m[rng.random((300, 6)) < 0.1] = np.nan
    strata = rng.integers(0, 4, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        r1 = tw.pairwise_error_consistency(m, strata=strata, rng=1, batch=7, ci_method=ci_method, n_resamples=400)
        r2 = tw.pairwise_error_consistency(m, strata=strata, rng=1, batch=1000, ci_method=ci_method, n_resamples=400)
    # multinomial weights: integer sums, exact; Bayesian (Jeffreys) weights: float sums whose
    # rounding depends on the matrix-product shape, equal to 1e-12
    np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r1.confidence_interval.low, r2.confidence_interval.low, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r1.confidence_interval.high, r2.confidence_interval.high, rtol=0, atol=1e-12)


def test_leaderboard_does_not_depend_on_workers():
    trials = tw.datasets.model_vs_human("cue-conflict")
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
    keep = trials["subject"].isin(["resnet50", "clip-16", "alexnet"]) | (trials["observer_type"] == "human")
    a = tw.leaderboard(trials[keep], proto, n_resamples=300, rng=4, workers=1)
    b = tw.leaderboard(trials[keep], proto, n_resamples=300, rng=4, workers=2)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(a.pairwise(workers=1)["pvalue"], b.pairwise(workers=2)["pvalue"])
