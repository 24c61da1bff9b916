"""Leaderboard scores per experiment: their CIs, ranks, and how the rankings of experiments agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core.results import Result
from trialwise._core.shown import shown
from trialwise.leaderboards.ranks import rank_intervals, rank_scores
from trialwise._stats.intervals import interval

__all__ = ["ExperimentBreakdown", "experiment_breakdown", "score_interval", "studentized_score_interval"]

#: Columns of :attr:`ExperimentBreakdown.table`.
EXPERIMENT_COLUMNS = ("experiment", "observer", "score", "ci_low", "ci_high", "rank", "rank_low", "rank_high")


def score_interval(method: str, dist: NDArray, estimate: NDArray, level: float, *,
                   standard_error: NDArray | None = None,
                   replicate_standard_error: NDArray | None = None) -> tuple[NDArray, NDArray]:
    """The interval of benchmark scores from their bootstrap replicates (unbounded scale);
    ``studentized`` needs the scores' standard errors on the data and on every replicate."""
    lo, hi = interval(method, dist, estimate, level, standard_error=standard_error,
                      replicate_standard_error=replicate_standard_error, bounds=(-np.inf, np.inf))
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def studentized_score_interval(dist: NDArray, estimate: NDArray, level: float, standard_error: NDArray,
                               replicate_standard_error: NDArray,
                               bounds: tuple[float, float] = (-np.inf, np.inf)) -> tuple[NDArray, NDArray, NDArray]:
    """The studentized interval of every score, and ``bc`` where it is unbounded, clipped to ``bounds``.

    Returns ``(low, high, fallback)``: ``fallback`` marks the scores whose studentized
    interval is unbounded (their standard error is 0 on more than α/2 of the replicates:
    e.g. a row of one or two pairs whose small tables often turn degenerate) and that got
    the bias-corrected percentile interval instead. ``bounds``: the metric's range
    (:data:`trialwise.leaderboards.protocol.METRIC_RANGE`); the studentized interval, a
    symmetric-looking t-interval on an unbounded scale, can leave it when the standard
    errors are small on many replicates (few clusters, continuous scores), and no score
    can lie outside it.

    The interval may reach beyond every replicate (a score of one small table, e.g. of a
    single reference observer, whose SE* is small on a share of the replicates): that is the
    studentization widening a percentile range that under-covers, not a failure of it
    (docs/benchmark.md, "Sparse overlaps": ``benchmarks/calibration/studentized_fallback_coverage.py``).
    """
    lo, hi = score_interval("studentized", dist, estimate, level, standard_error=standard_error,
                            replicate_standard_error=replicate_standard_error)
    fallback = np.isfinite(estimate) & ~(np.isfinite(lo) & np.isfinite(hi))
    if fallback.any():
        blo, bhi = score_interval("bc", dist[:, fallback], estimate[fallback], level)
        lo[fallback], hi[fallback] = blo, bhi
    return np.clip(lo, *bounds), np.clip(hi, *bounds), fallback


@dataclass(frozen=True, repr=False, eq=False)
class ExperimentBreakdown(Result):
    """Per-experiment scores with CIs and ranks (``table``, long format), and the Kendall τ
    between the candidates' rankings in every two experiments (``rank_correlation``)."""

    table: Any = field(metadata=shown(
        in_repr=True, repr_name="", format=lambda value, res: f"{value['observer'].nunique()} observers"))
    rank_correlation: Any = field(metadata=shown(in_repr=True, repr_name="experiments", format="count"))
    confidence_level: float = field(default=0.95, metadata=shown("interval level", format="percent"))
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = EXPERIMENT_COLUMNS
    method: ClassVar[str] = "joint hierarchical bootstrap, per experiment"
    summary_title = "Scores per experiment"
    summary_table = True

    def _summary_details(self) -> list[str]:
        """The rank correlations between experiments (its own second table)."""
        return ["Kendall's tau between the candidates' rankings in two experiments",
                self.rank_correlation.to_string(float_format=lambda x: f"{x:.3f}")]

    def _dict_extra(self) -> dict[str, Any]:
        """The rank correlations as ``{experiment: {experiment: tau}}``."""
        return {"rank_correlation": self.rank_correlation.to_dict()}


def experiment_breakdown(experiments: tuple[str, ...], observers: tuple[str, ...], k: int, scores: NDArray,
                         replicates: NDArray, *, ci_method: str, confidence_level: float,
                         higher_is_better: bool) -> ExperimentBreakdown:
    """Per-experiment scores (rows × experiments) and their replicates (B × rows × experiments) → a breakdown.

    ``observers``: the rows, the ``k`` candidates first. Ranks and their intervals are over
    the candidates; τ between two experiments needs two candidates with a score in both.
    """
    import pandas as pd
    from scipy import stats

    rows = []
    for x, exp in enumerate(experiments):
        est = scores[:, x]
        lo, hi = score_interval(ci_method, replicates[:, :, x], est, confidence_level)
        ranks = np.append(rank_scores(est[:k], higher_is_better=higher_is_better), np.nan)
        rep_ranks = rank_scores(replicates[:, :k, x], higher_is_better=higher_is_better)
        r_lo, r_hi = rank_intervals(rep_ranks, confidence_level)
        for r, name in enumerate(observers):
            rows.append({"experiment": exp, "observer": name, "score": est[r], "ci_low": lo[r], "ci_high": hi[r],
                         "rank": ranks[r], "rank_low": r_lo[r] if r < k else np.nan,
                         "rank_high": r_hi[r] if r < k else np.nan})
    table = pd.DataFrame(rows)
    for col in ("rank", "rank_low", "rank_high"):
        table[col] = table[col].astype("Int64")
    exps = experiments
    corr = np.eye(len(exps))
    for a in range(len(exps)):
        for b in range(a + 1, len(exps)):  # τ needs two candidates with a score in both experiments
            sa, sb = scores[:k, a], scores[:k, b]
            ok = ~(np.isnan(sa) | np.isnan(sb))
            corr[a, b] = corr[b, a] = stats.kendalltau(sa[ok], sb[ok]).statistic if ok.sum() >= 2 else np.nan
    return ExperimentBreakdown(table, pd.DataFrame(corr, index=list(exps), columns=list(exps)),
                               confidence_level)
