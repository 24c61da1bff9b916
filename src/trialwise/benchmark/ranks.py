"""Rank stability of a leaderboard from bootstrap replicates of its scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from trialwise._core.deprecation import Renamed
from trialwise._core.format import format_number, format_percent
from trialwise._core.results import ConfidenceInterval, Result

__all__ = ["rank_scores", "rank_intervals", "probability_best", "kendall_tau", "KendallTau", "ranking_stability"]


def rank_scores(scores: ArrayLike, *, higher_is_better: bool = True) -> NDArray:
    """Ranks along the last axis, 1 = best; ties share the best rank; NaN scores get NaN."""
    s = np.asarray(scores, dtype=float)
    key = -s if higher_is_better else s
    return stats.rankdata(key, method="min", axis=-1, nan_policy="omit")


def rank_intervals(replicate_ranks: ArrayLike, confidence_level: float = 0.95) -> tuple[NDArray, NDArray]:
    """Equal-tailed interval of each column's bootstrap ranks (integers, conservative ends)."""
    r = np.asarray(replicate_ranks, dtype=float)
    alpha = (1.0 - confidence_level) / 2.0
    lo = np.nanquantile(r, alpha, axis=0, method="lower")
    hi = np.nanquantile(r, 1.0 - alpha, axis=0, method="higher")
    return lo, hi


def probability_best(replicate_ranks: ArrayLike) -> NDArray:
    """Share of replicates in which each column ranks first (ties count for each tied)."""
    r = np.asarray(replicate_ranks, dtype=float)
    return np.sum(r == 1, axis=0) / np.maximum(np.sum(~np.isnan(r), axis=0), 1)


def kendall_tau(reference: ArrayLike, replicates: ArrayLike) -> NDArray:
    """Kendall's τ_b between one score vector and each row of ``replicates``.

    Vectorised over rows: with ``s`` the signs of all pairwise differences,
    ``τ_b = Σ s_ref·s_rep / √(n₀ − ties_ref)(n₀ − ties_rep)`` (as ``scipy.stats.kendalltau``).
    A row with a NaN score gives NaN.
    """
    ref = np.asarray(reference, dtype=float)
    rep = np.atleast_2d(np.asarray(replicates, dtype=float))
    i, j = np.triu_indices(ref.size, k=1)
    s_ref = np.sign(ref[i] - ref[j])
    s_rep = np.sign(rep[:, i] - rep[:, j])
    num = s_rep @ s_ref
    den = np.sqrt(np.count_nonzero(s_ref) * np.count_nonzero(s_rep, axis=1).astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.where(np.isnan(rep).any(axis=1), np.nan, tau)


@dataclass(frozen=True, repr=False, eq=False)
class KendallTau(Result):
    """Kendall's τ_b between the leaderboard's ranking and each bootstrap replicate's.

    ``statistic`` is the mean τ, the summary of Klein et al. 2025, §4.1; ``confidence_interval`` the
    equal-tailed interval of the replicate τ's; ``bootstrap_distribution`` all of them
    (NaN where a replicate has an undefined score). ``float(tau)`` is the mean.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = ("statistic", "ci_low", "ci_high", "confidence_level", "n_resamples")
    method: ClassVar[str] = "Kendall's tau-b, ranking vs bootstrap rankings"

    mean = Renamed("statistic")
    distribution = Renamed("bootstrap_distribution")

    @property
    def n_resamples(self) -> int:
        """Bootstrap replicates B behind the distribution."""
        return int(self.bootstrap_distribution.size)

    def __float__(self) -> float:
        return float(self.statistic)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"KendallTau(mean={format_number(self.statistic)}, {format_percent(self.confidence_level)} of replicates in "
                f"[{format_number(ci.low)}, {format_number(ci.high)}], B={self.bootstrap_distribution.size})")

    def summary(self) -> str:
        """One line: the mean τ and where the replicates' τ's lie."""
        if np.isnan(self.statistic) and not self.notes:
            return "Kendall's tau (ranking vs bootstrap rankings): not defined"
        ci = self.confidence_interval
        return "\n".join([f"Kendall's tau (ranking vs bootstrap rankings): mean {format_number(self.statistic)}, "
                          f"{format_percent(self.confidence_level)} in [{format_number(ci.low)}, {format_number(ci.high)}]"]
                         + [f"  note: {n}" for n in self.notes])


def ranking_stability(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
                      confidence_level: float = 0.95) -> KendallTau:
    """Kendall's τ_b between the ranking of ``scores`` and that of every row of ``replicates``.

    With fewer than two scores τ is not defined (NaN). Replicates with an undefined score
    are left out of the mean and the interval.
    """
    s = np.asarray(scores, dtype=float)
    sign = 1.0 if higher_is_better else -1.0
    tau = kendall_tau(sign * s, sign * np.asarray(replicates, dtype=float)) if s.size >= 2 else np.full(1, np.nan)
    alpha = (1 - confidence_level) / 2
    ok = tau[~np.isnan(tau)]
    return KendallTau(
        float(np.mean(ok)) if ok.size else np.nan,
        ConfidenceInterval(*(float(np.quantile(ok, q)) if ok.size else np.nan for q in (alpha, 1 - alpha))),
        confidence_level, tau)
