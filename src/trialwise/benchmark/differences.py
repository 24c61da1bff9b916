"""Do two candidates of a benchmark differ? The tests of "alike" and their result.

Three tests of H0 "x and y are alike" at the benchmark level (:data:`BENCHMARK_TESTS`):
``swap`` (a permutation test through the whole hierarchy), ``bootstrap`` (from the joint
bootstrap distribution of Δ) and ``paper`` (Klein et al. 2025, *Quantifying uncertainty in error
consistency*, NeurIPS, §3.3; for reproduction). They are
run by :meth:`trialwise.Leaderboard.difference` and :meth:`~trialwise.Leaderboard.pairwise`,
which return a :class:`BenchmarkDifferenceResult` or a table of them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import ClassVar, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.format import format_number, format_percent, format_pvalue
from trialwise._core.results import ConfidenceInterval, Result
from trialwise.benchmark.hierarchy import Design
from trialwise.benchmark.swap import swap_differences, swap_pvalue
from trialwise.resampling import keyed_rng, monte_carlo_pvalue

__all__ = ["BENCHMARK_TESTS", "BenchmarkDifferenceResult", "SwapNulls", "difference_pvalue", "pair_pvalues"]

#: Tests of "two candidates are alike" at the benchmark level.
BenchmarkTest = Literal["swap", "bootstrap", "paper"]
BENCHMARK_TESTS: tuple[BenchmarkTest, ...] = get_args(BenchmarkTest)


@dataclass(frozen=True, repr=False, eq=False)
class BenchmarkDifferenceResult(Result):
    """Difference of two candidates' benchmark scores (:func:`trialwise.difference_test`).

    ``statistic`` = ``score_x − score_y`` under the protocol; ``confidence_interval``
    from the joint hierarchical bootstrap; ``pvalue`` of H0 "x and y are alike" by
    ``test``; ``null_distribution`` the swap (or bootstrap) replicates behind it.
    """

    x: str
    y: str
    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    score_x: float
    score_y: float
    protocol: str
    metric: str
    confidence_level: float
    ci_method: str
    test: str
    n_resamples: int
    n_permutations: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    null_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = (
        "x", "y", "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "score_x", "score_y", "protocol",
        "metric", "ci_method", "test", "n_resamples", "n_permutations")

    @property
    def method(self) -> str:
        """The test and the interval: ``"<test> test; <ci_method> interval"``."""
        return f"{self.test} test; {self.ci_method} interval"

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"BenchmarkDifferenceResult({self.x} − {self.y}: delta={format_number(self.statistic)}, "
                f"{format_percent(self.confidence_level)} CI [{format_number(ci.low)}, {format_number(ci.high)}], p={format_pvalue(self.pvalue)} "
                f"({self.test}), protocol={self.protocol!r})")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result.

        Returns
        -------
        str
            The scores, the difference with its interval (method and B) and the p-value
            (test and M).

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> print(lb.difference("clip-16", "resnet50").summary())
        Difference in benchmark score (error-consistency, protocol model-vs-human): clip-16 − resnet50
          scores               0.202, 0.218
          difference           -0.016
          95% CI               [-0.077, 0.052]   (bc, hierarchical bootstrap, B = 200)
          p-value (alike)      0.547   (swap, M = 200)
        """
        ci = self.confidence_interval
        return "\n".join([
            f"Difference in benchmark score ({self.metric}, protocol {self.protocol}): {self.x} − {self.y}",
            f"  scores               {format_number(self.score_x)}, {format_number(self.score_y)}",
            f"  difference           {format_number(self.statistic)}",
            f"  {format_percent(self.confidence_level) + ' CI':<21}[{format_number(ci.low)}, {format_number(ci.high)}]   "
            f"({self.ci_method}, hierarchical bootstrap, B = {self.n_resamples})",
            f"  p-value (alike)      {format_pvalue(self.pvalue)}   ({self.test}"
            + (f", M = {self.n_permutations})" if self.test != "bootstrap" else ")"),
        ] + [f"  note: {n}" for n in self.notes])


class SwapNulls:
    """Swap-test null distributions of candidate pairs, made on first use and kept.

    Pair ``(i, j)`` (rows of the design, ``i < j``) draws from its own stream,
    ``keyed_rng(seed, (i, j))``, so a pair's null does not depend on which pairs were
    tested before it, or on the number of threads testing them.
    """

    def __init__(self, design: Design, seed: int) -> None:
        self.design = design
        self.seed = seed
        self._cache: dict[tuple[int, int, int], tuple[float, NDArray]] = {}
        self._lock = threading.Lock()

    def null(self, i: int, j: int, m: int) -> NDArray:
        """The swap null of ``score_i − score_j`` from ``m`` swaps (any order of ``i``, ``j``)."""
        a, b = min(i, j), max(i, j)
        key = (a, b, m)
        if key not in self._cache:
            value = swap_differences(self.design, a, b, m, rng=keyed_rng(self.seed, (a, b)))
            with self._lock:
                self._cache.setdefault(key, value)
        null = self._cache[key][1]
        return null if i < j else -null


def difference_pvalue(scores: NDArray, replicates: NDArray, i: int, j: int, *, test: str, n_permutations: int,
                      swaps: SwapNulls) -> tuple[float, NDArray]:
    """The p-value of H0 "rows i and j are alike" by ``test``, and the null distribution behind it.

    ``bootstrap``: two-sided, from the bootstrap distribution of Δ (inverting its
    percentile interval). ``swap``: the swap test (:func:`trialwise.benchmark.swap.swap_pvalue`).
    ``paper``: a two-sample t-test between the bootstrap and the swap distributions
    (Klein et al. 2025, §3.3; its p-value shrinks with B).
    """
    boot = replicates[:, i] - replicates[:, j]
    observed = float(scores[i] - scores[j])
    if test == "bootstrap":
        d = boot[~np.isnan(boot)]
        tail = min(np.sum(d <= 0), np.sum(d >= 0))
        return float(min(1.0, float(2 * monte_carlo_pvalue(tail, d.size)))), boot
    reference_row = replicates.shape[1] - 1
    if i == reference_row or j == reference_row:
        raise InvalidValueError(f"the {test} test compares two candidates; the reference row has no swap null")
    null = swaps.null(i, j, n_permutations)
    if test == "swap":
        return swap_pvalue(observed, null), null
    from scipy import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        p = float(stats.ttest_ind(boot, null, nan_policy="omit").pvalue)
    return p, null


def pair_pvalues(scores: NDArray, replicates: NDArray, pairs: Sequence[tuple[int, int]], *, test: str,
                 n_permutations: int, swaps: SwapNulls, workers: int | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> NDArray:
    """:func:`difference_pvalue` of every pair, swap tests in threads (default: all cores).

    The p-values do not depend on ``workers`` (each pair has its own stream). ``progress``
    is called as ``progress(label, done, total)`` before the first test and after each one.
    """
    done = [0]
    if progress is not None:
        progress(f"{test} tests", 0, len(pairs))

    def run(pair: tuple[int, int]) -> float:
        p = difference_pvalue(scores, replicates, pair[0], pair[1], test=test, n_permutations=n_permutations,
                              swaps=swaps)[0]
        done[0] += 1
        if progress is not None:
            progress(f"{test} tests", done[0], len(pairs))
        return p

    n_workers = min(max(len(pairs), 1), (os.cpu_count() or 1) if workers is None else workers)
    if n_workers <= 1 or test == "bootstrap":
        pvals = [run(p) for p in pairs]
    else:
        with ThreadPoolExecutor(n_workers) as ex:
            pvals = list(ex.map(run, pairs))
    return np.array(pvals, dtype=float)
