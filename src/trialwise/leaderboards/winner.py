"""The winner's curse: the selection-adjusted score of a leaderboard's best model.

The model that ranks first was chosen *because* its score came out high, so its observed
score overstates its true score whenever several models are close (the winner's curse). The
bootstrap estimates the overstatement: in each replicate the replicate's own winner w* is
chosen again, and ``δ* = S*[w*] − S[w*]`` measures how far the chosen score lies above that
model's score on the data. The selection-adjusted score is ``S[ŵ] − mean(δ*)`` and the
interval for the winner's true score is ``[S[ŵ] − q_{1−α/2}(δ*), S[ŵ] − q_{α/2}(δ*)]`` (a
basic bootstrap interval of the maximum; Efron & Tibshirani 1993, §10; the single-level
version of the correction that honestboard iterates).

When the bootstrap resamples clusters of questions, the basic interval runs short: with a few
dozen independent clusters the bootstrap spread of the maximum is too narrow (the cluster
bootstrap's variance is biased down by (G − 1)/G, its tails too light) and the truth falls
mostly below the interval (87.6 % coverage at 15 clusters, docs/validity.md). There the interval
is the studentized (bootstrap-t) one of the maximum: ``t* = δ* / SE*[w*]`` with the
infinitesimal-jackknife SE of the replicate's winner on that replicate, and
``[S[ŵ] − q_{1−α/2}(t*)·SE[ŵ], S[ŵ] − q_{α/2}(t*)·SE[ŵ]]`` (Efron & Tibshirani 1993, §12.5),
which covers 94.4–95.3 % from 10 to 40 clusters, for wider intervals (+13 % at 40, +66 % at 10).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._stats.intervals import quantile_sorted, sorted_valid, studentized_replicates

__all__ = ["WinnerScore", "winner_score"]


def winner_score(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
                 confidence_level: float = 0.95,
                 standard_errors: tuple[ArrayLike, ArrayLike] | None = None,
                 ) -> tuple[int, float, float, float, float, int, str]:
    """The winner's selection-adjusted score from a joint bootstrap of all candidates' scores.

    Parameters
    ----------
    scores : array_like, shape (K,)
        The candidates' scores on the data (NaN: unscored, never the winner).
    replicates : array_like, shape (B, K)
        Their joint bootstrap replicates; a replicate with an undefined score of a
        scored candidate is left out.
    higher_is_better : bool
        Whether the winner has the largest (or the smallest) score.
    confidence_level : float
    standard_errors : tuple of array_like, optional
        ``(SE (K,), SE* (B, K))``: every candidate's standard error on the data and on every
        replicate. Given, the interval is the studentized one of the maximum,
        ``[S[ŵ] − q_{1−α/2}(t*)·SE[ŵ], S[ŵ] − q_{α/2}(t*)·SE[ŵ]]`` with
        ``t* = δ* / SE*[w*]`` (:func:`trialwise._stats.intervals.studentized_replicates`: t* is
        ±∞ where SE* is 0); where that interval is unbounded (more than α/2 of the t* infinite
        on one side) it is the basic one instead.

    Returns
    -------
    tuple
        ``(winner index, adjusted score, bias, ci_low, ci_high, replicates used, ci_method)``;
        the bias is ``mean(δ*)`` (positive: the observed score overstates when higher is
        better), so the adjusted score is the observed score minus it; ``ci_method``
        ``"basic"`` or ``"studentized"``, the interval given.

    Examples
    --------
    >>> s = np.array([0.80, 0.79, 0.60])
    >>> rep = s + np.random.default_rng(0).normal(0, 0.02, (4000, 3))
    >>> w, adjusted, bias, lo, hi, n, method = winner_score(s, rep)
    >>> w, bool(bias > 0), bool(lo < adjusted < hi), method
    (0, True, True, 'basic')
    """
    s = np.asarray(scores, dtype=float)
    rep = np.asarray(replicates, dtype=float)
    scored = np.isfinite(s)
    sign = 1.0 if higher_is_better else -1.0
    key = np.where(scored, sign * s, -np.inf)
    w = int(np.argmax(key))
    ok = np.isfinite(rep[:, scored]).all(axis=1)
    r = rep[ok]
    r_key = np.where(scored[None, :], sign * r, -np.inf)
    chosen = np.argmax(r_key, axis=1)
    rows = np.arange(len(r))
    delta = r[rows, chosen] - s[chosen]
    if not delta.size:
        return w, float("nan"), float("nan"), float("nan"), float("nan"), 0, "basic"
    bias = float(delta.mean())
    alpha = 1.0 - confidence_level
    if standard_errors is not None:
        se = np.asarray(standard_errors[0], dtype=float)
        se_rep = np.asarray(standard_errors[1], dtype=float)[ok]
        t = studentized_replicates(r[rows, chosen], s[chosen], se[chosen], se_rep[rows, chosen])
        sorted_t, n_valid = sorted_valid(t)
        q_lo, q_hi = (float(quantile_sorted(sorted_t, n_valid, q)) for q in (alpha / 2, 1 - alpha / 2))
        lo, hi = s[w] - q_hi * se[w], s[w] - q_lo * se[w]
        if np.isfinite(lo) and np.isfinite(hi):
            return w, float(s[w] - bias), bias, float(lo), float(hi), int(delta.size), "studentized"
    q_lo, q_hi = np.quantile(delta, [alpha / 2, 1 - alpha / 2])
    return w, float(s[w] - bias), bias, float(s[w] - q_hi), float(s[w] - q_lo), int(delta.size), "basic"


@dataclass(frozen=True, repr=False, eq=False)
class WinnerScore(Result):
    """The best model's observed and selection-adjusted score (:meth:`trialwise.leaderboards.Leaderboard.winner`).

    ``statistic`` is the selection-adjusted score, ``score`` the observed one, ``bias`` the
    bootstrap estimate of how far selection lifts the winner's score (``score −
    statistic``), ``confidence_interval`` the interval for the winner's true score
    (:func:`winner_score`): ``ci_method`` ``"basic"`` (the bootstrap resampled questions) or
    ``"studentized"`` (it resampled clusters of questions).
    """

    observer: str
    statistic: float = field(metadata=shown("selection-adjusted", in_repr=True, repr_name="adjusted"))
    score: float = field(metadata=shown("observed score", in_repr=True, repr_name="observed"))
    bias: float = field(metadata=shown("bias", detail="bootstrap, B = {n_used} of {n_resamples}"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(format="interval", in_repr=True,
                                                                   method="ci_method"))
    confidence_level: float
    n_resamples: int
    n_used: int
    notes: tuple[str, ...] = ()
    ci_method: str = field(default="basic", kw_only=True)

    frame_columns: ClassVar[tuple[str, ...]] = ("observer", "statistic", "score", "bias", "ci_low", "ci_high",
                                                "confidence_level", "n_resamples", "n_used", "ci_method")
    method: ClassVar[str] = "bootstrap correction of the winner's curse (single level)"
    repr_prefix = "{observer}:"
    summary_title = "The winner: {observer}"
