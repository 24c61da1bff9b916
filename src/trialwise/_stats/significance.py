"""Significance tests for error consistency.

H0: κ = 0, i.e. the two observers' correctness is independent (for a 2×2 table κ = 0 is
equivalent to independence). All tests are two-sided and vectorised over a batch of
tables.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from trialwise._core.errors import InvalidValueError
from trialwise._core.format import format_pvalue
from trialwise._core.results import Note
from trialwise._core.threads import map_threads, thread_budget
from trialwise._core.validation import check_choice
from trialwise._core.warnings import MonteCarloResolutionWarning, warn
from trialwise._stats.kappa import (
    canonical_orientation,
    kappa_from_cells,
    kappa_kernel,
    kappa_variance,
)
from trialwise._stats.monte_carlo import monte_carlo_test
from trialwise._stats.resampling import multinomial_tables

__all__ = ["INDEPENDENCE_TESTS", "ADJUSTMENTS", "independence_pvalues", "fisher_exact_pvalues", "adjust_pvalues",
           "check_monte_carlo_resolution"]

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


def fisher_exact_pvalues(tables: ArrayLike) -> NDArray:
    """Two-sided p-values of Fisher's exact test for many 2×2 tables at once.

    Equal to ``scipy.stats.fisher_exact(t).pvalue`` for every table ``t`` (bit for bit on
    the tables of the test suite): the same algorithm, vectorised over tables. Each
    distinct table is computed once (``np.unique`` over the four counts); then, for all
    distinct tables together, the hypergeometric pmf of the observed count and of the mode,
    the tail on the observed side, and a binary search on the other side of the mode for
    the last count with pmf ≤ pmf(observed)·(1 + 10⁻¹⁴) (scipy's two-sided rule), run as
    one search over all tables; every pmf and tail comes from ``scipy.stats.hypergeom``.
    Many distinct tables (≥ 2,000 per thread) are split over
    :func:`~trialwise._core.threads.thread_budget` threads (scipy's tails release the GIL: 0.21 →
    0.12 s for the 19,899 distinct tables of 200 observers on 2 cores), the same numbers.

    Parameters
    ----------
    tables : array_like of int, shape (..., 2, 2)
        Non-negative counts.

    Returns
    -------
    ndarray, shape (...)
        1 where a row or column total is 0 (as scipy).

    References
    ----------
    Fisher, R. A. (1935). The logic of inductive inference. *Journal of the Royal
    Statistical Society* 98(1), 39–82. scipy.stats.fisher_exact (scipy 1.17), whose
    two-sided rule this follows.

    Examples
    --------
    >>> t = [[[8, 2], [1, 5]], [[3, 3], [3, 3]], [[8, 2], [1, 5]]]
    >>> from scipy import stats
    >>> bool(np.all(fisher_exact_pvalues(t) == [stats.fisher_exact(x).pvalue for x in t]))
    True
    """
    c = np.asarray(tables, dtype=np.int64)
    shape = c.shape[:-2]
    flat = c.reshape(-1, 4)
    if flat.size and flat.min() < 0:
        raise InvalidValueError(f"`tables` must hold non-negative counts; got a count of {int(flat.min())}")
    distinct, inverse = np.unique(flat, axis=0, return_inverse=True)
    workers = min(thread_budget(), len(distinct) // _FISHER_TABLES_PER_THREAD)
    if workers > 1:  # table by table: parts on threads give the same numbers (scipy's tails release the GIL)
        p = np.concatenate(map_threads(_fisher_distinct, np.array_split(distinct, workers), workers))
    else:
        p = _fisher_distinct(distinct)
    return p[inverse.reshape(-1)].reshape(shape)[()]


#: Distinct tables per thread of :func:`fisher_exact_pvalues` (fewer: one thread).
_FISHER_TABLES_PER_THREAD = 2_000


def _fisher_distinct(c: NDArray) -> NDArray:
    """scipy.stats.fisher_exact's two-sided p-value of rows ``[n11, n10, n01, n00]``, vectorised.

    Every comparison of pmfs (the tie at the mode, the far end, the binary search on the other
    side) is made on log-gamma pmfs where they differ by more than their error bound, and
    on scipy's own ``hypergeom.pmf`` where they do not; the tails are scipy's ``hypergeom``
    cdf and sf. So the decisions, and the p-values, are scipy's.
    """
    hg = stats.hypergeom
    eps = 1e-14  # scipy's relative tolerance: pmf ≤ pmf(observed)·(1 + eps) counts as "as extreme"
    a, b, cc, d = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    n1, n, N = a + b, a + cc, a + b + cc + d
    p = np.ones(len(c))
    ok = (n1 > 0) & (cc + d > 0) & (n > 0) & (b + d > 0)  # a zero margin: p = 1
    a, n1, n, N = a[ok], n1[ok], n[ok], N[ok]
    mode = ((n + 1) * (n1 + 1) / (N + 2)).astype(np.int64)
    # error bound of the log-gamma log pmf: a few ulps of its largest terms, with a wide margin
    tol = 1e-9 + 1e-13 * special.gammaln(N + 1.0)
    log_t = _log_pmf(a, N, n1, n) + np.log1p(eps)  # log of the target pmf(observed)·(1 + eps)

    def exact_target(u: NDArray) -> NDArray:
        return hg.pmf(a[u], N[u], n1[u], n[u]) * (1 + eps)

    def compare(x: NDArray, u: NDArray) -> NDArray:
        """Sign of pmf(x) − target for tables u (−1, 0, 1), as scipy decides it."""
        lx, lt = _log_pmf(x, N[u], n1[u], n[u]), log_t[u]
        with np.errstate(invalid="ignore"):
            out = np.sign(lx - lt)
            unclear = ~(np.abs(lx - lt) > tol[u]) | (lt < -700.0)  # near ties, and pmfs near underflow
        k = np.flatnonzero(unclear)
        if k.size:
            out[k] = np.sign(hg.pmf(x[k], N[u][k], n1[u][k], n[u][k]) - exact_target(u[k]))
        return out

    everyone = np.arange(len(a))
    with np.errstate(invalid="ignore"):
        near_mode = ~(np.abs(_log_pmf(mode, N, n1, n) - log_t) > tol)
    tie = np.zeros(len(a), dtype=bool)
    k = np.flatnonzero(near_mode)
    if k.size:  # scipy's test: |pmf(observed) − pmf(mode)| / max ≤ eps, in its own pmf
        pexact, pmode = hg.pmf(a[k], N[k], n1[k], n[k]), hg.pmf(mode[k], N[k], n1[k], n[k])
        with np.errstate(invalid="ignore", divide="ignore"):
            tie[k] = np.abs(pexact - pmode) / np.maximum(pexact, pmode) <= eps
    out = np.ones(len(a))
    for lower in (True, False):
        i = everyone[~tie & ((a < mode) if lower else (a >= mode))]
        if not i.size:
            continue
        Ni, n1i, ni = N[i], n1[i], n[i]
        # the observed tail, and whether the pmf at the far end of the other side exceeds the target
        tail = hg.cdf(a[i], Ni, n1i, ni) if lower else hg.sf(a[i] - 1, Ni, n1i, ni)
        far = compare(ni if lower else np.zeros_like(ni), i) > 0
        res = tail.copy()
        j = np.flatnonzero(~far)
        if j.size:
            ij = i[j]
            sign = -1.0 if lower else 1.0  # -pmf increases on [mode, n], pmf on [0, mode]
            lo, hi = (mode[ij], n[ij]) if lower else (np.zeros_like(ij), mode[ij])
            guess = _search(lambda x, s: sign * _log_pmf(x, N[ij[s]], n1[ij[s]], n[ij[s]]), sign * log_t[ij], lo, hi)
            # scipy's answer is the bracket f(g) ≤ d < f(g + 1): checked in scipy's own pmf where
            # the log-gamma pmfs are too close to call, searched again in it where the check fails
            at_g, at_next = compare(guess, ij), compare(guess + 1, ij)
            good = ((at_g >= 0) & (at_next < 0)) if lower else ((at_g <= 0) & (at_next > 0))
            redo = np.flatnonzero(~good)
            if redo.size:
                r = ij[redo]
                exact = lambda x, s: sign * hg.pmf(x, N[r[s]], n1[r[s]], n[r[s]])  # noqa: E731
                guess[redo] = _search(exact, sign * exact_target(r), lo[redo], hi[redo])
            res[j] = tail[j] + (hg.sf(guess, N[ij], n1[ij], n[ij]) if lower else hg.cdf(guess, N[ij], n1[ij], n[ij]))
        out[i] = res
    p[ok] = np.minimum(out, 1.0)
    return p


def _log_pmf(k: NDArray, M: NDArray, n: NDArray, N: NDArray) -> NDArray:
    """log of the hypergeometric pmf from log-gamma (−inf outside the support)."""
    g = special.gammaln
    with np.errstate(invalid="ignore"):
        out = (g(n + 1) - g(k + 1) - g(n - k + 1) + g(M - n + 1) - g(N - k + 1) - g(M - n - N + k + 1)
               - g(M + 1) + g(N + 1) + g(M - N + 1))
    inside = (k >= 0) & (k <= n) & (N - k >= 0) & (N - k <= M - n)
    return np.where(inside, out, -np.inf)


def _search(f: Any, d: NDArray, lo: NDArray, hi: NDArray) -> NDArray:
    """scipy's ``_binary_search_for_binom_tst`` for many searches at once: i with f(i) ≤ d < f(i + 1).

    ``f(x, s)`` evaluates the increasing functions of searches ``s`` at ``x``.
    """
    lo, hi = lo.copy(), hi.copy()
    found = np.full(lo.shape, -1, dtype=np.int64)
    done = np.zeros(lo.shape, dtype=bool)
    active = lo < hi
    while active.any():
        s = np.flatnonzero(active)
        mid = lo[s] + (hi[s] - lo[s]) // 2
        val = f(mid, s)
        less, more = val < d[s], val > d[s]
        lo[s[less]] = mid[less] + 1
        hi[s[more]] = mid[more] - 1
        eq = ~less & ~more
        found[s[eq]], done[s[eq]] = mid[eq], True
        active = ~done & (lo < hi)
    s = np.flatnonzero(~done)
    if s.size:
        found[s] = np.where(f(lo[s], s) <= d[s], lo[s], lo[s] - 1)
    return found


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
    distinct, inverse = np.unique(tables.reshape(-1, 4), axis=0, return_inverse=True)  # one test per distinct table
    out = np.empty(len(distinct))
    for i, t in enumerate(distinct.reshape(-1, 2, 2)):
        # Boschloo's test conditions on one margin, so its p-value changes when the
        # table is transposed; the larger of the two is symmetric in A and B and valid.
        p = (stats.boschloo_exact(t).pvalue, stats.boschloo_exact(t.T).pvalue)
        out[i] = max(p)
    return out[inverse.reshape(-1)]


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
        ``fisher``: Fisher's exact test, conditional on both margins
        (:func:`fisher_exact_pvalues`: ``scipy.stats.fisher_exact``'s p-value, vectorised
        over tables, each distinct table tested once). ``boschloo``: Boschloo's exact unconditional test
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
            p[regular] = fisher_exact_pvalues(sub)
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


_ADJUSTMENT_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini–Hochberg",
                     "by": "Benjamini–Yekutieli", "none": "no adjustment"}


def _adjustment_factor(n_tests: int, adjust: str) -> float:
    """How much the adjustment multiplies the smallest p-value of a family when every test has it."""
    if adjust in ("holm", "bonferroni"):
        return float(n_tests)
    if adjust == "by":
        return float(np.sum(1.0 / np.arange(1, n_tests + 1)))
    return 1.0  # "bh" (all m tests at the floor stay there) and "none"


def check_monte_carlo_resolution(n_tests: int, *, n_resamples: int, alpha: float, adjust: str = "holm",
                                 sides: int = 2, what: str = "test") -> Note | None:
    """Warn when no test of a family of Monte-Carlo p-values can be significant after adjustment.

    A Monte-Carlo p-value from B replicates is at least ``sides / (B + 1)``: ``(1 + hits) /
    (1 + B)`` (``sides = 1``), or twice the smaller tail (``sides = 2``, as the two-sided
    bootstrap test). After Holm's or Bonferroni's correction over m tests the smallest
    adjusted p is ``m · sides / (B + 1)``, after Benjamini–Yekutieli ``H_m · sides / (B + 1)``
    (``H_m = 1 + 1/2 + … + 1/m``), after Benjamini–Hochberg or none ``sides / (B + 1)``.
    When that floor is not below ``alpha`` no test can be significant, however large the
    effects: the family is then decided by B, not by the data.

    Parameters
    ----------
    n_tests : int
        m, the tests in the family.
    n_resamples : int
        B, the replicates behind each p-value.
    alpha : float
        A test is significant when its adjusted p-value is below ``alpha``.
    adjust : {"holm", "bonferroni", "bh", "by", "none"}
        The correction (:func:`adjust_pvalues`).
    sides : {1, 2}
        The smallest p-value is ``sides / (B + 1)``.
    what : str
        What is tested, singular, in the message (e.g. ``"difference"``).

    Returns
    -------
    Note or None
        None when the floor is below ``alpha``; else the note (``kind``
        ``"monte-carlo-resolution"``; ``values``: ``n_resamples``, ``n_tests``, ``alpha``,
        ``adjust``, ``smallest_pvalue`` (raw), ``smallest_adjusted``, ``resamples_needed``) (also issued as a
        :class:`~trialwise.MonteCarloResolutionWarning`) naming B, m, α, the smallest attainable adjusted
        p and the B needed to reach α (``values["resamples_needed"]``: the smallest B whose
        floor is below α; more are needed for power).

    Warns
    -----
    MonteCarloResolutionWarning
        When no test of the family can reach ``alpha``.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian
    Journal of Statistics* 6(2), 65–70. Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap
    Methods and their Application*. Cambridge University Press: the resolution of Monte-Carlo
    p-values (Davison & Hinkley 1997, §4.2.5).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     note = check_monte_carlo_resolution(252, n_resamples=10_000, alpha=0.05)
    >>> note.values["smallest_adjusted"] > 0.05, note.values["resamples_needed"]
    (True, 10080)
    >>> check_monte_carlo_resolution(252, n_resamples=20_000, alpha=0.05) is None
    True
    """
    adjust = check_choice(adjust, "adjust", ADJUSTMENTS)
    if sides not in (1, 2):
        raise InvalidValueError(f"`sides` must be 1 or 2; got {sides!r}")
    m, b = int(n_tests), int(n_resamples)
    if m < 1 or b < 1:
        return None
    factor = _adjustment_factor(m, adjust)
    smallest = sides / (b + 1)
    floor = min(1.0, factor * smallest)
    if floor < alpha:
        return None
    needed = int(np.floor(factor * sides / alpha))  # the smallest B with factor·sides/(B + 1) < alpha
    while factor * sides / (needed + 1) >= alpha:
        needed += 1
    while needed > 1 and factor * sides / needed < alpha:
        needed -= 1
    text = (f"no {what} can reach {alpha:g} after {_ADJUSTMENT_NAMES[adjust]} with B = {b} and {m} "
            f"test{'s' if m != 1 else ''}: "
            f"the smallest p-value of B replicates is {sides}/(B + 1) = {format_pvalue(smallest)}, the smallest "
            f"adjusted p-value {format_pvalue(floor)}; B ≥ {needed} needed (more for power)")
    warn(text, MonteCarloResolutionWarning)
    return Note(text, "monte-carlo-resolution", dict(
        n_resamples=b, n_tests=m, alpha=float(alpha), adjust=adjust, smallest_pvalue=smallest,
        smallest_adjusted=floor, resamples_needed=needed))
