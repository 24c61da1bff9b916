"""Do two candidates of a benchmark differ? The tests of "alike" and their result.

Tests of H0 "x and y are alike" at the benchmark level (:data:`BENCHMARK_TESTS`):

* ``studentized``: the symmetric bootstrap-t test of equal scores, from the joint bootstrap
  of Δ = score_x − score_y and the standard error of Δ on the data and on every replicate
  (:func:`contrast_standard_errors`). It tests equal scores whatever the accuracies. Where
  the SE of Δ is 0 on more than α of the replicates (two clusters per condition) the
  statistic is degenerate: the interval falls back to ``bc`` (:func:`difference_interval`)
  and the test stays valid but cannot reject (:func:`difference_pvalue`).
* ``swap``: a permutation test through the whole hierarchy (x's and y's responses swapped
  item by item); exact for exchangeable x and y, i.e. a test of "x and y answer alike",
  which unequal accuracies already violate.
* ``combined`` (the default): ``max(p_swap, p_studentized)``. It rejects only where both
  do, so its level is at most the level of the better-calibrated of the two in every
  design (an intersection–union argument: under H0 at least one is valid); measured in
  docs/validity.md, both alone exceed α in some designs and the combination does not.
* ``bootstrap``: two-sided p from the percentile interval of Δ (liberal where κ̂'s bias
  differs between x and y; kept for comparison).
* ``paper``: Klein et al. 2025, *Quantifying uncertainty in error consistency*, NeurIPS,
  §3.3, for reproduction.

They are run by :meth:`trialwise.leaderboards.Leaderboard.difference` and
:meth:`~trialwise.leaderboards.Leaderboard.pairwise`, which return a :class:`BenchmarkDifferenceResult`
or a table of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._core.threads import map_threads
from trialwise.leaderboards.hierarchy import Design, entry_weights
from trialwise.leaderboards.bootstrap import bootstrap_entries_ij
from trialwise.leaderboards.swap import SwapSampler
from trialwise._stats.intervals import (
    degenerate_standard_errors,
    interval,
    symmetric_studentized_interval,
    symmetric_studentized_pvalue,
)
from trialwise._stats.monte_carlo import monte_carlo_pvalue, sequential_pvalue
from trialwise._stats.streams import copy_rng, keyed_rng

__all__ = ["BENCHMARK_TESTS", "SWAP_TESTS", "TEST_DESCRIPTIONS", "BenchmarkDifferenceResult", "SwapNulls", "RowStandardErrors", "contrast_standard_errors",
           "difference_interval", "difference_pvalue", "pair_pvalues"]

#: Tests of "two candidates are alike" at the benchmark level (the first is the default).
BenchmarkTest = Literal["combined", "studentized", "swap", "bootstrap", "paper"]
#: Tests that compare two candidates by swapping their responses (not the reference row).
SWAP_TESTS = ("combined", "swap", "paper")
#: One sentence per test, for reports.
TEST_DESCRIPTIONS = {
    "combined": "the larger p-value of the swap test and the studentized (bootstrap-t) test of equal scores; the "
                "swaps stop once 100 are at least as extreme as the difference (Besag & Clifford 1991)",
    "studentized": "symmetric bootstrap-t test of equal scores",
    "swap": "permutation test of exchangeable candidates (responses swapped item by item, or cluster by cluster; "
            "the swaps stop once 100 are at least as extreme as the difference, Besag & Clifford 1991)",
    "bootstrap": "percentile-bootstrap test of equal scores",
    "paper": "t-test between the bootstrap and swap distributions (Klein et al. 2025)",
}
BENCHMARK_TESTS: tuple[BenchmarkTest, ...] = get_args(BenchmarkTest)


@dataclass(frozen=True, repr=False, eq=False)
class BenchmarkDifferenceResult(Result):
    """Difference of two candidates' benchmark scores (:func:`trialwise.leaderboards.difference_test`).

    ``statistic`` = ``score_x − score_y`` under the protocol; ``confidence_interval``
    from the joint hierarchical bootstrap (``ci_method``); ``pvalue`` of H0 "x and y are
    alike" by ``test``; ``null_distribution`` the swap replicates behind it (``swap``,
    ``combined``, ``paper``), the studentized replicates ``t*·SE`` (``studentized``) or the
    bootstrap replicates of Δ (``bootstrap``); ``n_resamples`` the bootstrap replicates B
    behind the interval, ``n_null_resamples`` the swaps M behind a swap p-value (0 for
    ``studentized`` and ``bootstrap``, which draw none).
    """

    x: str
    y: str
    statistic: float = field(metadata=shown("difference", in_repr=True, repr_name="delta"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, detail="{ci_method}, hierarchical bootstrap, B = {n_resamples}"))
    pvalue: float = field(metadata=shown(
        "p-value (alike)", in_repr=True, repr_name="p", format="pvalue", method="test",
        detail=lambda res: _test_label(res.test, res.n_null_resamples)))
    score_x: float = field(metadata=shown("scores x, y"))
    score_y: float = field(metadata=shown("scores x, y"))
    protocol: str = field(metadata=shown(in_repr=True, format=lambda value, res: repr(value)))
    metric: str
    confidence_level: float
    ci_method: str
    test: str
    n_resamples: int
    n_null_resamples: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    null_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = (
        "x", "y", "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "score_x", "score_y", "protocol",
        "metric", "ci_method", "test", "n_resamples", "n_null_resamples")
    repr_prefix = "{x} − {y}:"
    summary_title = "Difference in benchmark score ({metric}, protocol {protocol}): {x} − {y}"

    @property
    def method(self) -> str:
        """The test and the interval: ``"<test> test; <ci_method> interval"``."""
        return f"{self.test} test; {self.ci_method} interval"


def _test_label(test: str, n_null_resamples: int) -> str:
    """What the p-value's test drew (after its name)."""
    if test == "combined":
        return f"the larger of swap (M = {n_null_resamples}) and studentized"
    return f"M = {n_null_resamples}" if test in SWAP_TESTS else ""


class SwapNulls:
    """Swap-test null distributions of candidate pairs, drawn on demand and kept.

    Pair ``(i, j)`` (rows of the design, ``i < j``) draws from its own stream,
    ``keyed_rng(seed, (i, j))``, so a pair's null does not depend on which pairs were
    tested before it, or on the number of threads testing them; its first M swaps are the
    same whether a fixed-M test or the sequential one drew them
    (:class:`~trialwise.leaderboards.swap.SwapSampler`).
    """

    def __init__(self, design: Design, seed: int) -> None:
        self.design = design
        self.seed = seed
        self._samplers: dict[tuple[int, int], tuple[SwapSampler, threading.Lock]] = {}
        self._lock = threading.Lock()
        self._weights: NDArray | None = None  # the entries' weights in their rows' scores, once for all pairs

    def _sampler(self, i: int, j: int) -> tuple[SwapSampler, threading.Lock]:
        a, b = min(i, j), max(i, j)
        with self._lock:
            if self._weights is None:
                self._weights = entry_weights(np.zeros(self.design.n_entries), self.design)
            if (a, b) not in self._samplers:
                sampler = SwapSampler(self.design, a, b, rng=keyed_rng(self.seed, (a, b)), weights=self._weights)
                self._samplers[(a, b)] = (sampler, threading.Lock())
            return self._samplers[(a, b)]

    def null(self, i: int, j: int, m: int) -> NDArray:
        """The swap null of ``score_i − score_j`` from ``m`` swaps (any order of ``i``, ``j``)."""
        sampler, lock = self._sampler(i, j)
        with lock:
            null = sampler.draw(m)
        return null if i < j else -null

    def sequential(self, i: int, j: int, m: int, observed: float) -> tuple[float, NDArray]:
        """The swap test's p-value of ``score_i − score_j`` by Besag & Clifford's sequential rule
        (:func:`~trialwise._stats.monte_carlo.sequential_pvalue`: at most ``m`` swaps, fewer when
        the p-value is large) and the swaps it is from."""
        sampler, lock = self._sampler(i, j)
        with lock:
            k, decided, null = 0, None, np.empty(0)
            while decided is None:  # decided at the latest when all m swaps are drawn
                k = min(m, max(2 * k, SEQUENTIAL_FIRST_BLOCK))
                null = sampler.draw(k)
                decided = sequential_pvalue(observed, null, m)
        p, used = decided
        return p, (null[:used] if i < j else -null[:used])


#: Swaps the sequential swap test draws first; it doubles them until the p-value is decided.
SEQUENTIAL_FIRST_BLOCK = 256


class RowStandardErrors:
    """The infinitesimal-jackknife SE of every row score, on the data and on every replicate.

    Given (a leaderboard made with ``ci_method="studentized"`` has them), or computed on
    first use by re-running the bootstrap from a copy of its generator (``rng``, taken
    before the bootstrap drew anything): the same replicates, now with their standard
    errors (:func:`~trialwise.leaderboards.bootstrap.bootstrap_entries_ij`), once.
    """

    def __init__(self, design: Design, n_resamples: int, rng: np.random.Generator | None,
                 standard_errors: NDArray | None = None, replicate_standard_errors: NDArray | None = None) -> None:
        self.design = design
        self.n_resamples = n_resamples
        self._rng = rng
        self._value = None if standard_errors is None or replicate_standard_errors is None else (
            standard_errors, replicate_standard_errors)
        self._lock = threading.Lock()

    def get(self, progress: Callable[[str, int, int], None] | None = None) -> tuple[NDArray, NDArray]:
        """``(standard_errors (rows,), replicate_standard_errors (B, rows))``."""
        with self._lock:
            if self._value is None:
                if self._rng is None:
                    raise InvalidValueError(
                        "the studentized and combined tests need the standard errors of the scores: make the "
                        "leaderboard with ci_method='studentized', or from bootstrap_scores(..., standard_errors=True)")
                ij = bootstrap_entries_ij(self.design, self.n_resamples, rng=copy_rng(self._rng),
                                          progress=progress)
                self._value = (ij.standard_errors, ij.replicate_standard_errors)
            return self._value


def contrast_standard_errors(replicates: NDArray, standard_errors: NDArray, replicate_standard_errors: NDArray,
                             rows_x: NDArray, rows_y: NDArray) -> tuple[NDArray, NDArray]:
    """The standard error of ``score_x − score_y`` for pairs of rows, on the data and on every replicate.

    ``SE_Δ² = SE_x² + SE_y² − 2ρ·SE_x·SE_y`` with the rows' infinitesimal-jackknife SEs
    (on the data, and on each replicate its own) and ρ the correlation of the two rows'
    bootstrap replicates (one per pair). ρ stands in for the replicate's own IJ
    covariance of x and y, which would need every item's influence on both rows: in the
    simulations behind docs/validity.md the two SEs agree to a median ratio of 0.99–1.00
    (5 % quantile ≥ 0.93), and the tests built on them reject at the same rates.

    Parameters
    ----------
    replicates : ndarray, shape (B, rows)
        Replicate scores (NaN: undefined, left out of ρ).
    standard_errors, replicate_standard_errors : ndarray, shapes (rows,) and (B, rows)
        The rows' SEs on the data and on every replicate (:class:`RowStandardErrors`).
    rows_x, rows_y : ndarray of int, shape (pairs,)
        The rows of x and y of every pair.

    Returns
    -------
    tuple of ndarray
        ``(SE_Δ (pairs,), SE*_Δ (B, pairs))``.
    """
    x, y = replicates[:, rows_x], replicates[:, rows_y]
    ok = np.isfinite(x) & np.isfinite(y)
    n = np.maximum(ok.sum(axis=0), 1)
    cx = np.where(ok, x - np.where(ok, x, 0.0).sum(axis=0) / n, 0.0)
    cy = np.where(ok, y - np.where(ok, y, 0.0).sum(axis=0) / n, 0.0)
    vxy = np.sqrt((cx * cx).sum(axis=0) * (cy * cy).sum(axis=0))
    rho = np.where(vxy > 0, (cx * cy).sum(axis=0) / np.where(vxy > 0, vxy, 1.0), 0.0)

    def se(sx: NDArray, sy: NDArray) -> NDArray:
        return np.sqrt(np.maximum(sx * sx + sy * sy - 2.0 * rho * sx * sy, 0.0))

    return (se(standard_errors[rows_x], standard_errors[rows_y]),
            se(replicate_standard_errors[:, rows_x], replicate_standard_errors[:, rows_y]))


def difference_interval(dist: NDArray, estimate: NDArray, standard_error: NDArray, replicate_standard_error: NDArray,
                        confidence_level: float) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """The symmetric studentized interval of differences of scores, and ``bc`` where it is unbounded.

    Parameters
    ----------
    dist : ndarray, shape (B, pairs)
        Replicates of the differences.
    estimate : ndarray, shape (pairs,)
        The differences on the data.
    standard_error, replicate_standard_error : ndarray, shapes (pairs,) and (B, pairs)
        SE of the differences on the data and on every replicate (:func:`contrast_standard_errors`).
    confidence_level : float

    Returns
    -------
    tuple of ndarray
        ``(low, high, fallback, n_flat)``: ``fallback`` marks the differences whose
        studentized interval is unbounded — the SE of the difference is 0
        (:func:`trialwise._stats.intervals.degenerate_standard_errors`) on more than α of the
        replicates, as with two clusters per condition, where a replicate that draws the
        same cluster twice in every condition has no spread left — and that got the
        bias-corrected percentile interval instead (as a score does:
        :func:`trialwise.leaderboards.experiments.studentized_score_interval`); ``n_flat``
        the number of such replicates of every difference.
    """
    lo, hi = (np.atleast_1d(np.asarray(a, dtype=float)) for a in symmetric_studentized_interval(
        dist, estimate, standard_error, replicate_standard_error, confidence_level))
    fallback = np.isfinite(estimate) & ~(np.isfinite(lo) & np.isfinite(hi))
    n_flat = np.sum(degenerate_standard_errors(standard_error, replicate_standard_error) & ~np.isnan(dist), axis=0)
    if fallback.any():
        blo, bhi = interval("bc", dist[:, fallback], estimate[fallback], confidence_level, bounds=(-np.inf, np.inf))
        lo[fallback], hi[fallback] = blo, bhi
    return lo, hi, fallback, np.atleast_1d(n_flat)


def difference_pvalue(scores: NDArray, replicates: NDArray, i: int, j: int, *, test: str, n_null_resamples: int,
                      swaps: SwapNulls, standard_errors: RowStandardErrors | None = None,
                      progress: Callable[[str, int, int], None] | None = None) -> tuple[float, NDArray]:
    """The p-value of H0 "rows i and j are alike" by ``test``, and the null distribution behind it.

    ``studentized``: the symmetric bootstrap-t test
    (:func:`trialwise._stats.intervals.symmetric_studentized_pvalue`) with the SE of the contrast
    (:func:`contrast_standard_errors`); its null distribution is the replicates' ``t*``
    scaled by the data's SE. Where SE* is 0 (:func:`trialwise._stats.intervals.degenerate_standard_errors`)
    t* is infinite and counts as at least as extreme, so the p-value is at least
    ``(1 + #{SE* = 0}) / (1 + n)``: where that exceeds α (the interval is then ``bc``,
    :func:`difference_interval`) the test keeps its level but cannot reject. It is not
    replaced by the test dual to ``bc``: with two clusters per condition that test rejected
    22–31 % of true nulls at α = 0.05 (``benchmarks/calibration/difference_few_clusters.py``). ``swap``: the swap test,
    with at most ``n_null_resamples`` swaps by Besag & Clifford's sequential rule
    (:meth:`SwapNulls.sequential`): a large p-value stops after
    :data:`~trialwise._stats.monte_carlo.SEQUENTIAL_HITS` swaps at least as extreme as Δ, a small one
    is the fixed-M p-value; both are exactly valid. ``combined``: the larger of the two
    (null distribution: the swaps the swap test drew). ``bootstrap``: two-sided, from the bootstrap
    distribution of Δ (inverting its percentile interval). ``paper``: a two-sample t-test
    between the bootstrap and the swap distributions (Klein et al. 2025, §3.3; its p-value
    shrinks with B).
    """
    boot = replicates[:, i] - replicates[:, j]
    observed = float(scores[i] - scores[j])
    if test == "bootstrap":
        d = boot[~np.isnan(boot)]
        tail = min(np.sum(d <= 0), np.sum(d >= 0))
        return float(min(1.0, float(2 * monte_carlo_pvalue(tail, d.size)))), boot
    reference_row = replicates.shape[1] - 1
    if test in SWAP_TESTS and (i == reference_row or j == reference_row):
        raise InvalidValueError(f"the {test} test compares two candidates; the reference row has no swap null")
    p_t = np.nan
    if test in ("studentized", "combined"):
        if standard_errors is None:
            raise InvalidValueError(f"the {test} test needs the standard errors of the scores")
        se, se_rep = standard_errors.get(progress)
        s0, s_rep = contrast_standard_errors(replicates, se, se_rep, np.array([i]), np.array([j]))
        p_t = float(symmetric_studentized_pvalue(boot, observed, s0[0], s_rep[:, 0]))
        if test == "studentized":
            with np.errstate(invalid="ignore", divide="ignore"):
                return p_t, (boot - observed) / s_rep[:, 0] * s0[0]
    if test in ("swap", "combined"):
        p_swap, null = swaps.sequential(i, j, n_null_resamples, observed)
        return (p_swap if test == "swap" else max(p_swap, p_t)), null
    null = swaps.null(i, j, n_null_resamples)
    from scipy import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        p = float(stats.ttest_ind(boot, null, nan_policy="omit").pvalue)
    return p, null


def pair_pvalues(scores: NDArray, replicates: NDArray, pairs: Sequence[tuple[int, int]], *, test: str,
                 n_null_resamples: int, swaps: SwapNulls, standard_errors: RowStandardErrors | None = None,
                 workers: int | None = None, progress: Callable[[str, int, int], None] | None = None) -> NDArray:
    """:func:`difference_pvalue` of every pair, swap tests in threads (default: all cores).

    The p-values do not depend on ``workers`` (each pair has its own stream). ``progress``
    is called as ``progress(label, done, total)`` before the first test and after each one.
    """
    done = [0]
    if test in ("studentized", "combined") and standard_errors is not None:
        standard_errors.get(progress)  # once, before the tests (a bootstrap when the leaderboard has none)
    if progress is not None:
        progress(f"{test} tests", 0, len(pairs))

    def run(pair: tuple[int, int]) -> float:
        p = difference_pvalue(scores, replicates, pair[0], pair[1], test=test, n_null_resamples=n_null_resamples,
                              swaps=swaps, standard_errors=standard_errors)[0]
        done[0] += 1
        if progress is not None:
            progress(f"{test} tests", done[0], len(pairs))
        return p

    # the bootstrap and studentized tests draw no swap null (a few vectorised lines per pair): in this thread
    pvals = map_threads(run, pairs, 1 if test in ("bootstrap", "studentized") else workers)
    return np.array(pvals, dtype=float)
