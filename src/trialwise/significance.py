"""Significance tests for error consistency.

H0: κ = 0, i.e. the two observers' correctness is independent (for a 2×2 table κ = 0 is
equivalent to independence). All tests are two-sided and vectorised over a batch of
tables.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from trialwise._core.errors import InvalidValueError
from trialwise.kappa import canonical_orientation, kappa_from_cells, kappa_kernel, kappa_variance
from trialwise.resampling import monte_carlo_test, multinomial_tables
from trialwise._core.validation import check_choice

__all__ = ["INDEPENDENCE_TESTS", "ADJUSTMENTS", "independence_pvalues", "adjust_pvalues"]

#: Corrections for many comparisons.
Adjustment = Literal["holm", "bonferroni", "bh", "by", "none"]
ADJUSTMENTS: tuple[Adjustment, ...] = get_args(Adjustment)

#: Tests of independence of two observers' errors (a 2×2 table).
IndependenceTest = Literal["fisher", "boschloo", "copy-null", "asymptotic"]
INDEPENDENCE_TESTS: tuple[IndependenceTest, ...] = get_args(IndependenceTest)

#: Largest table (items) on which Boschloo's test is run. scipy's ``boschloo_exact`` works
#: on a grid of (n₁ + 1)(n₂ + 1) tables for the column totals n₁ + n₂ = n, twice here (the
#: table and its transpose): time and memory grow like n². At n = 4000 one orientation
#: took three minutes and 0.5 GB; at n = 10⁶ it would try to allocate terabytes. Above
#: this size the test is refused with a ``ValueError`` suggesting ``fisher``.
BOSCHLOO_MAX_N = 2000


def _flat(counts: NDArray) -> NDArray:
    return np.asarray(counts, dtype=np.int64).reshape(-1, 2, 2)


def _fisher(tables: NDArray) -> NDArray:
    return np.array([stats.fisher_exact(t).pvalue for t in tables], dtype=float)


def _check_boschloo_size(tables: NDArray) -> None:
    n = tables.sum(axis=(1, 2))
    if n.size and (n > BOSCHLOO_MAX_N).any():
        raise InvalidValueError(
            f"`test`='boschloo' is refused on a table of n = {int(n.max())} items: its time and memory grow like n² "
            f"(scipy's boschloo_exact works on a grid of about (n/2)² tables), so it runs only up to "
            f"n = {BOSCHLOO_MAX_N}; use test='fisher' (exact, conditional on the margins), or 'asymptotic' for "
            "large n"
        )


def _boschloo(tables: NDArray) -> NDArray:
    out = np.empty(len(tables))
    for i, t in enumerate(tables):
        # Boschloo's test conditions on one margin, so its p-value changes when the
        # table is transposed; the larger of the two is symmetric in A and B and valid.
        p = (stats.boschloo_exact(t).pvalue, stats.boschloo_exact(t.T).pvalue)
        out[i] = max(p)
    return out


def _asymptotic(tables: NDArray) -> NDArray:
    kappa = kappa_kernel(tables)
    _, var0 = kappa_variance(tables)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = kappa / np.sqrt(var0)
    return np.where(var0 > 0, 2 * stats.norm.sf(np.abs(z)), np.where(kappa == 0, 1.0, np.nan))


def _copy_null(tables: NDArray, n_resamples: int, rng: Any) -> tuple[NDArray, NDArray]:
    t = tables.astype(float)
    n = t.sum(axis=(1, 2))
    k_a = t[:, 0, :].sum(axis=1)
    k_b = t[:, :, 0].sum(axis=1)
    kappa_obs = np.abs(kappa_from_cells(t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1]))

    def draw_null(gen: np.random.Generator, b: int) -> NDArray:
        a_a = gen.beta(k_a + 1, n - k_a + 1, size=(b, len(t)))
        a_b = gen.beta(k_b + 1, n - k_b + 1, size=(b, len(t)))
        p = np.stack([a_a * a_b, a_a * (1 - a_b), (1 - a_a) * a_b, (1 - a_a) * (1 - a_b)], axis=-1)
        sim = multinomial_tables(p.reshape(b, len(t), 2, 2), n.astype(np.int64), rng=gen).astype(float)
        return np.abs(kappa_from_cells(sim[..., 0, 0], sim[..., 0, 1], sim[..., 1, 0], sim[..., 1, 1]))

    # Each chunk draws both accuracies, then the tables: the seeded replicates depend on this chunk size.
    res = monte_carlo_test(kappa_obs, draw_null, n_resamples, rng=rng, batch=max(1, int(2**22 // max(len(t), 1))))
    return res.pvalue, res.n_undefined


def independence_pvalues(
    counts: NDArray, *, test: str, n_resamples: int = 10_000, rng: Any = None
) -> tuple[NDArray, NDArray]:
    """Two-sided p-values for H0: κ = 0 (independent observers), one per 2×2 table.

    Parameters
    ----------
    counts : ndarray of int, shape (..., 2, 2)
    test : {"fisher", "boschloo", "copy-null", "asymptotic"}
        ``fisher``: Fisher's exact test (``scipy.stats.fisher_exact``), conditional on
        both margins. ``boschloo``: Boschloo's exact unconditional test
        (``scipy.stats.boschloo_exact``), the larger p-value of the table and its
        transpose, so that it is symmetric in A and B; its cost grows like n², seconds
        per table at n = 1000, and it is refused (``ValueError``) on tables of more than
        :data:`BOSCHLOO_MAX_N` = 2000 items. ``copy-null``: the parametric test of Klein et al. 2025, §3.3, with
        accuracies drawn from their ``Beta(k+1, n−k+1)`` posteriors under a uniform
        prior, two independent observers simulated (one multinomial draw each), and
        ``p = (1 + #{|κ*| ≥ |κ̂|}) / (1 + M)`` over the M replicates whose κ* is defined.
        ``asymptotic``: z-test ``κ̂ / √var0`` with the null variance of Fleiss, Cohen
        & Everitt (statsmodels' ``var_kappa0``).
    n_resamples : int
        Monte-Carlo size of the ``copy-null`` test.
    rng : seed or Generator, for ``copy-null``.

    Returns
    -------
    pvalues : ndarray, shape (...)
        NaN where κ is undefined (``c_exp = 1``). Where exactly one observer is constant
        (κ = 0 exactly) every test gives 1.
    n_undefined : ndarray, shape (...)
        Copy-null replicates whose κ* was undefined (left out of M); 0 for the others.
    """
    c = np.asarray(counts)
    batch = c.shape[:-2]
    tables = _flat(c)
    tables = canonical_orientation(tables)  # A/B swaps give bit-identical p-values
    if test == "boschloo":
        _check_boschloo_size(tables)
    t = tables.astype(float)
    kappa = kappa_from_cells(t[:, 0, 0], t[:, 0, 1], t[:, 1, 0], t[:, 1, 1])
    undefined = np.isnan(kappa)
    constant = ~undefined & (
        (t[:, 0, :].sum(1) == 0) | (t[:, 1, :].sum(1) == 0) | (t[:, :, 0].sum(1) == 0) | (t[:, :, 1].sum(1) == 0)
    )
    regular = ~undefined & ~constant
    p = np.where(undefined, np.nan, 1.0)
    n_undef = np.zeros(len(tables))
    if regular.any():
        sub = tables[regular]
        if test == "fisher":
            p[regular] = _fisher(sub)
        elif test == "boschloo":
            p[regular] = _boschloo(sub)
        elif test == "asymptotic":
            p[regular] = _asymptotic(sub)
        elif test == "copy-null":
            p[regular], n_undef[regular] = _copy_null(sub, n_resamples, rng)
        else:
            raise InvalidValueError(f"`test` must be one of {INDEPENDENCE_TESTS}; got {test!r}")
    p = np.clip(p, 0.0, 1.0)
    return p.reshape(batch)[()], n_undef.reshape(batch)[()]


def adjust_pvalues(pvalues: Any, method: Adjustment = "holm") -> NDArray:
    """p-values adjusted for many comparisons (one family), NaN left in place.

    Parameters
    ----------
    pvalues : array_like
        The raw p-values of one family of tests (NaN = not tested; ignored).
    method : {"holm", "bonferroni", "bh", "by", "none"}
        ``holm``: Holm's step-down, controls the family-wise error rate under any
        dependence; ``bonferroni``: ``min(1, m·p)``, the same control, never more powerful. ``bh``: Benjamini–Hochberg, controls the false discovery rate for
        independent or positively dependent tests (``scipy.stats.false_discovery_control``).
        ``by``: Benjamini–Yekutieli, FDR under any dependence. ``none``: unchanged.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """

    method = check_choice(method, "adjust", ADJUSTMENTS)
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if (p[ok] < 0).any() or (p[ok] > 1).any():
        raise InvalidValueError("`pvalues` must lie in [0, 1]")
    q = p[ok]
    if method == "none" or q.size == 0:
        out[ok] = q
    elif method == "bonferroni":
        out[ok] = np.minimum(q * q.size, 1.0)
    elif method == "holm":
        order = np.argsort(q, kind="stable")
        m = q.size
        stepped = np.maximum.accumulate((m - np.arange(m)) * q[order])
        adj = np.empty(m)
        adj[order] = np.minimum(stepped, 1.0)
        out[ok] = adj
    else:
        out[ok] = stats.false_discovery_control(q, method=method)
    return out[()]
