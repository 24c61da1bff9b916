"""pairwise_agreement's local bootstrap runs its blocks of tiles on threads, each product on one BLAS thread.

The numbers must not depend on the number of threads (nor on the blocks it makes): every field of the
result, the kept replicates and leave-one-cluster-out values included, is compared bit for bit between
thread budgets 1 (one block after the other, in this thread), 2 and 3, and the caller's generator must
move on the same. Oracle of the values themselves: the replicates of a pair equal the single-pair
function's (``tw.agreement``) on the same weights, to 1e-12.
"""

from __future__ import annotations

import numpy as np
import pytest

import trialwise as tw
import trialwise.similarity.pairwise as pw


def _models(rng, m, n, k=4):
    base = rng.dirichlet(np.ones(k), n)
    mix = rng.uniform(0.2, 0.8, m)[:, None, None]
    probs = mix * base + (1 - mix) * rng.dirichlet(np.ones(k), (m, n))
    return probs, rng.integers(0, k, n)


FIELDS = ("statistic", "pvalue", "n_undefined", "bootstrap_distribution", "jackknife_values")


@pytest.mark.parametrize("metric,clusters,keep", [("capa", False, None), ("capa", True, None),
                                                  ("capa-discrete", False, False), ("choice", False, None)])
def test_threads_do_not_change_a_bit(monkeypatch, metric, clusters, keep):
    rng = np.random.default_rng(41)
    probs, truth = _models(rng, 37, 120)  # 666 pairs: tiles of 16 × 16 models, several blocks per thread
    codes = np.repeat(np.arange(24), 5) if clusters else None
    out, states = {}, {}
    for n_threads in (1, 2, 3):
        monkeypatch.setattr(pw, "thread_budget", lambda n=n_threads: n)
        gen = np.random.default_rng(5)
        out[n_threads] = tw.pairwise_agreement(probs, truth=truth, metric=metric, clusters=codes, n_resamples=60,
                                               rng=gen, keep_replicates=keep)
        states[n_threads] = gen.bit_generator.state
    one = out[1]
    assert one.bootstrap_distribution.shape == ((0 if keep is False else 60), 666)
    assert one.jackknife_values.shape[0] == (24 if clusters else 0)
    for n_threads in (2, 3):
        res = out[n_threads]
        for f in FIELDS:
            assert np.array_equal(np.asarray(getattr(res, f)), np.asarray(getattr(one, f)), equal_nan=True), f
        for f in ("low", "high"):
            assert np.array_equal(getattr(res.confidence_interval, f), getattr(one.confidence_interval, f),
                                  equal_nan=True)
        assert states[n_threads] == states[1]


def test_threaded_replicates_are_the_single_pair_replicates(monkeypatch):
    rng = np.random.default_rng(42)
    probs, truth = _models(rng, 20, 80)
    monkeypatch.setattr(pw, "thread_budget", lambda: 2)
    res = tw.pairwise_agreement(probs, truth=truth, n_resamples=40, rng=9)
    for i in (0, 17, 100, 189):  # pairs in different tiles and blocks
        a, b = res.observer_a[i], res.observer_b[i]
        one = tw.agreement(probs[a], probs[b], truth, n_resamples=40, rng=9)
        np.testing.assert_allclose(res.bootstrap_distribution[:, i], one.bootstrap_distribution, rtol=0, atol=1e-12)
        assert res.confidence_interval.low[i] == pytest.approx(one.confidence_interval.low, abs=1e-12)
