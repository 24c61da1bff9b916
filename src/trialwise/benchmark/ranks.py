"""Rank stability of a leaderboard from bootstrap replicates of its scores."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = ["rank_scores", "rank_intervals", "probability_best", "kendall_tau"]


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
