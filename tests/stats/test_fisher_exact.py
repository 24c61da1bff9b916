"""Fisher's exact test for many 2×2 tables at once (issue 17, goal 3).

Oracle: scipy.stats.fisher_exact, one call per table.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

import trialwise as tw
from trialwise._core.errors import InvalidValueError
from trialwise.ec.inference import undefined_reasons
from trialwise._stats.significance import fisher_exact_pvalues, independence_pvalues


def _scipy(tables: np.ndarray) -> np.ndarray:
    return np.array([stats.fisher_exact(t).pvalue for t in tables.reshape(-1, 2, 2)])


def _random_tables(n_tables: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_tables):
        n = int(rng.choice([0, 1, 2, 3, 7, 30, 200, 2_000, 50_000]))
        t = rng.multinomial(n, rng.dirichlet(np.full(4, rng.choice([0.2, 1.0, 5.0])))).reshape(2, 2)
        if k % 5 == 0:  # equal margins: a symmetric null distribution, where the two tails tie
            t = np.array([[t[0, 0], t[0, 1]], [t[0, 1], t[0, 0]]])
        if k % 7 == 0:  # equal rows: the observed table at the mode
            t = np.array([t[0], t[0]])
        out.append(t)
    return np.array(out, dtype=np.int64)


def test_vectorised_fisher_equals_scipy_on_random_tables():
    tables = _random_tables(3000, seed=0)
    got = fisher_exact_pvalues(tables)
    np.testing.assert_allclose(got, _scipy(tables), rtol=0, atol=1e-12)


@pytest.mark.parametrize("table", [
    [[0, 0], [0, 0]], [[5, 0], [0, 0]], [[0, 5], [0, 3]], [[4, 0], [0, 4]], [[0, 4], [4, 0]],
    [[1, 0], [0, 1]], [[0, 1], [1, 0]], [[3, 3], [3, 3]], [[10**5, 1], [1, 10**5]],
    [[60_000, 40_000], [40_123, 59_877]], [[1, 10**5], [0, 10**5]], [[2, 1], [1, 2]],
])
def test_vectorised_fisher_equals_scipy_on_edge_tables(table):
    t = np.array(table)
    assert fisher_exact_pvalues(t) == pytest.approx(stats.fisher_exact(t).pvalue, rel=1e-12, abs=1e-300)
    # every orientation of the table (rows, columns swapped; transposed) as scipy gives it
    for u in (t[::-1], t[:, ::-1], t.T, t[::-1, ::-1]):
        assert fisher_exact_pvalues(u) == pytest.approx(stats.fisher_exact(u).pvalue, rel=1e-12, abs=1e-300)


def test_every_small_table_equals_scipy():
    """All 6⁴ = 1,296 tables with cells 0–5 (zero rows, columns and ties included)."""
    tables = np.array(list(itertools.product(range(6), repeat=4))).reshape(-1, 2, 2)
    np.testing.assert_allclose(fisher_exact_pvalues(tables), _scipy(tables), rtol=0, atol=1e-12)


def test_identical_tables_share_one_test_and_keep_the_batch_shape():
    base = _random_tables(40, seed=1)
    rng = np.random.default_rng(2)
    batch = base[rng.integers(0, len(base), size=(30, 7))]  # (30, 7, 2, 2), many repeats
    got = fisher_exact_pvalues(batch)
    assert got.shape == (30, 7)
    np.testing.assert_array_equal(got, _scipy(batch).reshape(30, 7))
    assert np.ndim(fisher_exact_pvalues(base[0])) == 0


def test_pairwise_pvalues_equal_one_call_per_pair():
    """Identical tables among the pairs share one test; each p equals error_consistency of that pair alone."""
    rng = np.random.default_rng(3)
    base = rng.random(40) < 0.7
    x = np.column_stack([base, base, ~base, rng.random(40) < 0.6, base, rng.random(40) < 0.8]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        res = tw.pairwise_error_consistency(x, n_resamples=50, rng=0)
        for (a, b), p in zip(zip(res.observer_a, res.observer_b), res.pvalue):
            one = tw.error_consistency(x[:, a], x[:, b], n_resamples=50, rng=0)
            np.testing.assert_equal(p, one.pvalue)
    assert len(np.unique(res.counts.reshape(-1, 4), axis=0)) < len(res.counts)  # some pairs did share


def test_independence_pvalues_fisher_equals_scipy_on_regular_tables():
    tables = _random_tables(500, seed=4)
    p, _ = independence_pvalues(tables, test="fisher")
    margins_ok = (tables.sum(axis=2) > 0).all(axis=1) & (tables.sum(axis=1) > 0).all(axis=1)
    np.testing.assert_allclose(p[margins_ok], _scipy(tables[margins_ok]), rtol=0, atol=1e-12)


def test_fisher_keeps_its_level_under_independence():
    """Calibration: two independent observers (accuracies 0.7 and 0.6, n = 40), 4,000 tables.
    Fisher's test is conservative: its rejection rate at α = 0.05 is at most 0.05 (+ 3 Monte-Carlo SE),
    and not absurdly low (> 0.01)."""
    rng = np.random.default_rng(5)
    a, b = rng.random((4000, 40)) < 0.7, rng.random((4000, 40)) < 0.6
    tables = np.stack([(a & b).sum(1), (a & ~b).sum(1), (~a & b).sum(1), (~a & ~b).sum(1)], axis=1).reshape(-1, 2, 2)
    rate = np.mean(fisher_exact_pvalues(tables) <= 0.05)
    se = np.sqrt(0.05 * 0.95 / 4000)
    assert 0.01 < rate <= 0.05 + 3 * se


def test_fisher_refuses_negative_counts():
    with pytest.raises(InvalidValueError, match=r"`tables` must hold non-negative counts; got a count of -1"):
        fisher_exact_pvalues([[1, -1], [2, 3]])


def test_vectorised_undefined_reasons_equal_the_table_by_table_rule():
    """Brute force: every table with cells 0–3, the reason computed from its definition."""
    tables = np.array(list(itertools.product(range(4), repeat=4))).reshape(-1, 2, 2)

    def reason(t, unbiased):
        n, ca, cb = t.sum(), t[0].sum(), t[:, 0].sum()
        if n == 0:
            return "no items seen by both observers"
        const = [(name, k) for name, k in (("A", ca), ("B", cb)) if k in (0, n)]
        text = [f"{name} is always {'correct' if k == n else 'wrong'}" for name, k in const]
        if len(const) == 2 and (const[0][1] == n) == (const[1][1] == n):
            return f"{' and '.join(text)}: expected agreement is 1, so EC is undefined"
        if len(const) == 2:
            return f"{' and '.join(text)}: observed and expected agreement are 0, so EC is exactly 0"
        if len(const) == 1:
            return f"{text[0]}: EC is exactly 0 whatever the other observer does"
        if unbiased and n == 1:
            return "one item only: the bias-corrected EC needs at least 2"
        if unbiased:  # κ_u = n·κ / (n − 1 + κ): 0/0 where the plug-in κ is 1 − n (n = 2, κ = −1)
            c_obs = (t[0, 0] + t[1, 1]) / n
            c_exp = (ca * cb + (n - ca) * (n - cb)) / n ** 2
            if np.isclose(n - 1 + (c_obs - c_exp) / (1 - c_exp), 0):
                return "two items, each got right by one observer only: the bias-corrected EC n·κ/(n − 1 + κ) is 0/0"
        return None

    for unbiased in (False, True):
        assert undefined_reasons(tables, unbiased) == [reason(t, unbiased) for t in tables]


def test_scipys_own_pmf_decides_where_the_fast_pmf_cannot(monkeypatch):
    """The log-gamma pmf only screens: with a useless one (flat, so every comparison is "too close
    to call") every decision falls back to scipy's pmf and the search is redone in it — same p-values."""
    from trialwise._stats import significance

    tables = _random_tables(400, seed=6)
    monkeypatch.setattr(significance, "_log_pmf", lambda k, M, n, N: np.zeros(np.broadcast(k, M).shape))
    np.testing.assert_allclose(fisher_exact_pvalues(tables), _scipy(tables), rtol=0, atol=1e-12)


def test_many_distinct_tables_on_threads_equal_one_thread_and_scipy(monkeypatch):
    """Beyond 2,000 distinct tables per thread the tables are split over threads: the same bits as
    on one thread (``OMP_NUM_THREADS=1``), and scipy's p-value on every 97th table (the oracle)."""
    gen = np.random.default_rng(12)
    tables = gen.integers(0, 60, size=(9_000, 2, 2))
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    threaded = fisher_exact_pvalues(tables)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    np.testing.assert_array_equal(threaded, fisher_exact_pvalues(tables))
    for t, p in zip(tables[::97], threaded[::97]):
        assert p == stats.fisher_exact(t).pvalue
