"""The one null loop of every Monte-Carlo and permutation test of trialwise.

:func:`monte_carlo_test` draws null replicates in blocks (``batch``), counts the replicates at least
as extreme as the observed statistic with one tie tolerance (:data:`TIE_TOLERANCE`: a replicate within
that relative distance counts as a hit) and returns the p-value by the convention
``(1 + hits) / (1 + M)`` (:func:`monte_carlo_pvalue`), never 0, with the undefined replicates counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.validation import check_positive_int, check_rng

__all__ = ["SEQUENTIAL_HITS", "monte_carlo_pvalue", "monte_carlo_test", "MonteCarloTest", "sequential_pvalue"]

Alternative = Literal["greater", "less", "two-sided"]
ALTERNATIVES: tuple[Alternative, ...] = get_args(Alternative)


#: Relative tolerance of "at least as extreme" in every Monte-Carlo test: a replicate statistic
#: within this relative distance of the observed one counts as a tie, i.e. as a hit, so that
#: replicates equal to the observed value mathematically are not lost to rounding (e.g. κ of a
#: permuted table that is the observed table). Integer statistics are compared exactly.
TIE_TOLERANCE = 1e-12


#: Null replicates × tested statistics per call of ``draw_null`` in :func:`monte_carlo_test`
#: (default ``batch``: about 16 MB per float64 array of replicate statistics).
NULL_BLOCK = 2**21


def monte_carlo_pvalue(hits: ArrayLike, m: ArrayLike) -> NDArray:
    """``(1 + hits) / (1 + M)``: the Monte-Carlo p-value that is never exactly 0.

    It is the exact p-value of the randomised test that counts the observed statistic
    among the M simulated ones (Davison & Hinkley 1997, §4.2.1).
    """
    hits = np.asarray(hits, dtype=float)
    m = np.asarray(m, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m > 0, (1.0 + hits) / (1.0 + m), np.nan)[()]


@dataclass(frozen=True)
class MonteCarloTest:
    """Outcome of :func:`monte_carlo_test`, elementwise over the tested statistics.

    ``pvalue`` is ``(1 + hits) / (1 + n_defined)`` (NaN where no replicate is defined);
    ``hits`` counts the defined replicates at least as extreme as the observed statistic,
    ``n_defined`` the replicates whose statistic is not NaN, out of ``n_resamples``.
    """

    pvalue: Any
    hits: NDArray
    n_defined: NDArray
    n_resamples: int

    @property
    def n_undefined(self) -> NDArray:
        """Replicates whose statistic was undefined (NaN), left out of M."""
        return self.n_resamples - self.n_defined


def _hit_marks(null: NDArray, observed: NDArray, alternative: str) -> tuple[NDArray, NDArray]:
    """Per replicate, whether it is at least as extreme as ``observed`` (with the tie tolerance) and defined."""
    if alternative == "two-sided":
        null, observed = np.abs(null), np.abs(observed)
    elif alternative == "less":
        null, observed = -null, -observed  # negation is exact: "≤" becomes "≥"
    if not (np.issubdtype(null.dtype, np.inexact) or np.issubdtype(observed.dtype, np.inexact)):
        return null >= observed, np.ones(null.shape, bool)
    # The threshold moves towards less extreme by TIE_TOLERANCE relative to |observed|.
    threshold = np.where(observed >= 0, observed * (1 - TIE_TOLERANCE), observed * (1 + TIE_TOLERANCE))
    ok = ~np.isnan(null)
    return ok & (null >= threshold), ok


def _tail_counts(null: NDArray, observed: NDArray, alternative: str) -> tuple[NDArray, NDArray]:
    """Hits and defined replicates over the first axis of ``null``, with the tie tolerance."""
    hit, ok = _hit_marks(null, observed, alternative)
    return hit.sum(axis=0), ok.sum(axis=0)


#: Hits h after which :func:`sequential_pvalue` stops drawing (Besag & Clifford 1991): a p-value of
#: 0.5 is then known to about ±10 % from some 200 replicates instead of all M.
SEQUENTIAL_HITS = 100


def sequential_pvalue(observed: float, null: ArrayLike, n_resamples: int, *, hits: int = SEQUENTIAL_HITS,
                      alternative: Alternative = "two-sided") -> tuple[float, int] | None:
    """The sequential Monte-Carlo p-value of Besag & Clifford (1991) from the replicates drawn so far.

    Replicates are drawn in order until ``hits`` of them are at least as extreme as the
    observed statistic, or until ``n_resamples`` (M) have been drawn. Stopped at the l-th
    defined replicate by the h-th hit, ``p = h / l``; after all M without h hits,
    ``p = (1 + hits) / (1 + M)`` as :func:`monte_carlo_test` gives. The p-value is exactly
    valid, ``P(p ≤ α) ≤ α`` under H0, like the fixed-M one (Besag & Clifford 1991, §2); a
    small p-value is the fixed-M one (the same first M replicates), a large one costs about
    ``h / p`` replicates instead of M, with a relative Monte-Carlo error of about ``1/√h``.
    Undefined (NaN) replicates are left out of l and M, as :func:`monte_carlo_test` leaves them out.

    Parameters
    ----------
    observed : float
        The observed statistic T.
    null : array_like, shape (k,)
        The replicates drawn so far, in the order they were drawn (any ``k``; those after the
        M-th are not used).
    n_resamples : int
        The most replicates M to draw.
    hits : int, default :data:`SEQUENTIAL_HITS`
        Stop at this many replicates at least as extreme as T.
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    tuple or None
        ``(pvalue, l)``, with ``l`` the replicates the p-value is from (the defined and
        undefined ones up to the stop), or ``None`` when the replicates drawn do not decide
        it yet (fewer than ``hits`` hits in fewer than M replicates): draw more.

    References
    ----------
    Besag, J. & Clifford, P. (1991). Sequential Monte Carlo p-values. *Biometrika* 78(2), 301–304.

    Examples
    --------
    >>> null = np.arange(1.0, 11.0)          # replicates 1, 2, ..., 10 drawn so far; T = 5
    >>> sequential_pvalue(5.0, null, 1000, hits=3, alternative="greater")   # 5, 6, 7: stopped at the 7th
    (0.42857142857142855, 7)
    >>> sequential_pvalue(50.0, null, 1000, hits=3, alternative="greater") is None   # undecided
    True
    >>> sequential_pvalue(50.0, null, 10, hits=3, alternative="greater")   # all M = 10 drawn: (1 + 0) / 11
    (0.09090909090909091, 10)
    """
    if alternative not in ALTERNATIVES:
        raise InvalidValueError(f"`alternative` must be one of {ALTERNATIVES}; got {alternative!r}")
    m = check_positive_int(n_resamples, "n_resamples")
    h = check_positive_int(hits, "hits")
    values = np.asarray(null, dtype=float).reshape(-1)[:m]
    hit, ok = _hit_marks(values, np.asarray(float(observed)), alternative)
    count = np.cumsum(hit)
    if count.size and count[-1] >= h:
        stop = int(np.searchsorted(count, h))  # the h-th hit
        return h / int(ok[:stop + 1].sum()), stop + 1
    if values.size < m:
        return None
    return float(monte_carlo_pvalue(int(count[-1]) if count.size else 0, int(ok.sum()))), m


def monte_carlo_test(
    observed: ArrayLike,
    draw_null: Callable[[np.random.Generator, int], ArrayLike] | ArrayLike,
    n_resamples: int | None = None,
    *,
    rng: Any = None,
    alternative: Literal["greater", "less", "two-sided"] = "greater",
    batch: int | None = None,
) -> MonteCarloTest:
    """Monte-Carlo (permutation, parametric-bootstrap) p-values: the one null loop of trialwise.

    Parameters
    ----------
    observed : array_like, shape S
        The observed statistic(s) T; any batch shape S is tested elementwise.
    draw_null : callable or array_like
        ``draw_null(generator, b)`` returns the statistics of ``b`` replicates drawn under
        H0, shape ``(b, *S)``; NaN marks an undefined replicate, which is left out of M.
        Or the null statistics already drawn, shape ``(M, *S)`` (then ``n_resamples``,
        ``rng`` and ``batch`` are not used).
    n_resamples : int
        Replicates M to draw.
    rng : None, int or numpy.random.Generator
        Passed to every call of ``draw_null`` (the same generator, in order).
    alternative : {"greater", "less", "two-sided"}, default "greater"
        Which replicates count as at least as extreme: ``T* ≥ T``, ``T* ≤ T``, or
        ``|T*| ≥ |T|`` (for a null symmetric about 0, such as a swap of two observers).
    batch : int, optional
        Replicates per call of ``draw_null`` (default: :data:`NULL_BLOCK` divided by
        the number of tested statistics), so that memory stays bounded.

    Returns
    -------
    MonteCarloTest
        ``pvalue`` (a float for a scalar ``observed``), ``hits``, ``n_defined``,
        ``n_resamples``.

    Notes
    -----
    ``p = (1 + #{T* at least as extreme as T}) / (1 + M)`` over the M defined replicates
    (Davison & Hinkley 1997, §4.2.1; scipy's ``monte_carlo_test`` uses the same
    convention): the exact p-value of the randomised test, never 0. A replicate within
    :data:`TIE_TOLERANCE` (relative) of T counts as a tie, i.e. as a hit; integer
    statistics are compared exactly.

    The replicates are drawn in chunks of ``batch`` from one generator, in order. They do
    not depend on ``batch`` when ``draw_null`` draws each chunk with single generator
    calls of shape ``(b, ...)``, row after row; a ``draw_null`` that makes several calls
    per chunk interleaves them, and its seeded p-values then depend on ``batch``.

    Examples
    --------
    McNemar's permutation test of 10 vs 2 discordant items: each replicate swaps the
    12 discordant items at random, so ``n10*`` is Binomial(12, ½).

    >>> res = monte_carlo_test(abs(10 - 2), lambda g, b: abs(2 * g.binomial(12, 0.5, size=b) - 12),
    ...                        9999, rng=0)
    >>> round(float(res.pvalue), 2)
    0.04
    """
    if alternative not in ALTERNATIVES:
        raise InvalidValueError(f"`alternative` must be one of {ALTERNATIVES}; got {alternative!r}")
    obs = np.asarray(observed)
    if not callable(draw_null):
        null = np.asarray(draw_null)
        if null.shape[1:] != obs.shape:
            raise InvalidValueError(f"the null statistics must have shape (M, *{obs.shape}); got {null.shape}")
        hits, defined = _tail_counts(null, obs, alternative)
        return MonteCarloTest(monte_carlo_pvalue(hits, defined), hits, defined, null.shape[0])
    m = check_positive_int(n_resamples, "n_resamples")
    rows = max(1, NULL_BLOCK // max(obs.size, 1)) if batch is None else check_positive_int(batch, "batch")
    gen = check_rng(rng)
    hits = np.zeros(obs.shape, dtype=np.int64)
    defined = np.zeros(obs.shape, dtype=np.int64)
    done = 0
    while done < m:
        b = min(rows, m - done)
        null = np.asarray(draw_null(gen, b))
        if null.shape != (b,) + obs.shape:
            raise InvalidValueError(f"`draw_null(generator, {b})` must return shape {(b,) + obs.shape}; got {null.shape}")
        h, d = _tail_counts(null, obs, alternative)
        hits += h
        defined += d
        done += b
    return MonteCarloTest(monte_carlo_pvalue(hits, defined), hits, defined, m)
