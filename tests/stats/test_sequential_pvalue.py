"""Besag & Clifford's sequential Monte-Carlo p-value (:func:`trialwise._stats.monte_carlo.sequential_pvalue`):
against a replicate-by-replicate walk written here, and its level under H0 by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from trialwise._core.errors import InvalidValueError
from trialwise._stats.monte_carlo import monte_carlo_test, sequential_pvalue


def _walk(observed, null, m, h, alternative):
    """The rule read off the paper, one replicate at a time: stop at the h-th hit (p = h / l over the
    defined replicates so far), else after M replicates (p = (1 + hits) / (1 + defined))."""
    hits = defined = 0
    for k, value in enumerate(null[:m], start=1):
        if np.isnan(value):
            continue
        defined += 1
        extreme = {"greater": value >= observed, "less": value <= observed,
                   "two-sided": abs(value) >= abs(observed)}[alternative]
        hits += bool(extreme)
        if hits == h:
            return h / defined, k
    return ((1 + hits) / (1 + defined), m) if len(null) >= m else None


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_sequential_pvalue_equals_the_replicate_by_replicate_rule(alternative):
    gen = np.random.default_rng(5)
    for _ in range(300):
        m, h = int(gen.integers(1, 60)), int(gen.integers(1, 8))
        null = gen.normal(size=int(gen.integers(0, 80)))
        null[gen.random(null.size) < 0.1] = np.nan  # undefined replicates are left out of l and M
        observed = float(gen.normal() * 1.5)
        got, want = sequential_pvalue(observed, null, m, hits=h, alternative=alternative), _walk(
            observed, null, m, h, alternative)
        assert (got is None) == (want is None)
        if want is not None:
            assert got[1] == want[1]
            assert got[0] == pytest.approx(want[0], rel=1e-15)


def test_without_enough_hits_it_is_the_fixed_m_pvalue():
    gen = np.random.default_rng(1)
    null = gen.normal(size=999)
    observed = 2.9  # far in the tail: fewer than 100 hits in 999
    p, used = sequential_pvalue(observed, null, 999)
    assert used == 999
    assert p == monte_carlo_test(observed, null[:, None][:, 0], alternative="two-sided").pvalue


def test_ties_count_as_hits_with_the_library_tolerance():
    # a replicate equal to T up to rounding is a hit, as in monte_carlo_test
    p, used = sequential_pvalue(0.3, np.array([0.1 + 0.2, 0.0, 0.0]), 3, hits=1, alternative="greater")
    assert (p, used) == (1.0, 1)


@pytest.mark.parametrize("m, h", [(99, 5), (999, 20), (199, 100)])
def test_sequential_pvalue_holds_its_level_under_h0(m, h):
    """T and its replicates i.i.d. (H0): P(p ≤ α) ≤ α at every α, within 3 Monte-Carlo SE (R = 4,000)."""
    gen = np.random.default_rng(20261128)
    r = 4000
    p = np.empty(r)
    for k in range(r):
        draws = gen.random(m + 1)
        p[k] = sequential_pvalue(draws[0], draws[1:], m, hits=h, alternative="greater")[0]
    for alpha in (0.01, 0.05, 0.1, 0.25, 0.5):
        rate = np.mean(p <= alpha)
        assert rate <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / r), (alpha, rate)
        assert rate >= alpha - 0.05 * (alpha >= 0.25) - 3 * np.sqrt(alpha * (1 - alpha) / r) - 1 / (m + 1), (alpha, rate)


def test_sequential_pvalue_rejects_bad_arguments():
    with pytest.raises(InvalidValueError, match="hits"):
        sequential_pvalue(1.0, np.ones(3), 3, hits=0)
    with pytest.raises(InvalidValueError, match="alternative"):
        sequential_pvalue(1.0, np.ones(3), 3, alternative="both")
    with pytest.raises(InvalidValueError, match="n_resamples"):
        sequential_pvalue(1.0, np.ones(3), 0)
