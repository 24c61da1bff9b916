"""Rank stability of a leaderboard from bootstrap replicates of its scores."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from trialwise._core.format import format_number, format_percent
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._stats.significance import adjust_pvalues

__all__ = ["rank_scores", "rank_intervals", "probability_best", "kendall_tau", "KendallTau", "ranking_stability",
           "stepdown_significance", "rank_sets", "best_set", "pairwise_bootstrap_pvalues", "compact_letters",
           "tie_groups", "BestSet", "RANK_COLUMNS", "rank_columns"]


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

    statistic: float = field(metadata=shown(in_repr=True, repr_name="mean"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(format="interval", in_repr=True))
    confidence_level: float
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0))
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = ("statistic", "ci_low", "ci_high", "confidence_level", "n_resamples")
    method: ClassVar[str] = "Kendall's tau-b, ranking vs bootstrap rankings"
    summary_title = "Kendall's tau (ranking vs bootstrap rankings)"

    @property
    def n_resamples(self) -> int:
        """Bootstrap replicates B behind the distribution."""
        return int(self.bootstrap_distribution.size)

    def __float__(self) -> float:
        return float(self.statistic)

    def summary(self) -> str:
        """One line: the mean τ and where the replicates' τ's lie.

        Its own layout: one line, the line the leaderboard's summary shows (then the notes).
        """
        if np.isnan(self.statistic) and not self.notes:
            return "Kendall's tau (ranking vs bootstrap rankings): not defined"
        ci = self.confidence_interval
        return "\n".join([f"Kendall's tau (ranking vs bootstrap rankings): mean {format_number(self.statistic)}, "
                          f"{format_percent(self.confidence_level)} in [{format_number(ci.low)}, {format_number(ci.high)}]"]
                         + [f"  note: {n}" for n in self.notes])


def ranking_stability(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
                      confidence_level: float = 0.95) -> KendallTau:
    """Kendall's τ_b between the ranking of ``scores`` and that of every row of ``replicates``.

    Over the finite scores only (an undefined score has no rank; as the rank sets); with
    fewer than two τ is not defined (NaN). Replicates with an undefined score are left out
    of the mean and the interval.
    """
    s = np.asarray(scores, dtype=float)
    finite = np.isfinite(s)
    s = s[finite]
    sign = 1.0 if higher_is_better else -1.0
    reps = np.atleast_2d(np.asarray(replicates, dtype=float))[:, finite]
    tau = kendall_tau(sign * s, sign * reps) if s.size >= 2 else np.full(1, np.nan)
    alpha = (1 - confidence_level) / 2
    ok = tau[~np.isnan(tau)]
    return KendallTau(
        float(np.mean(ok)) if ok.size else np.nan,
        ConfidenceInterval(*(float(np.quantile(ok, q)) if ok.size else np.nan for q in (alpha, 1 - alpha))),
        confidence_level, tau)


# --------------------------------------------------------------------------- rank sets with a guarantee
#
# Mogstad, Romano, Shaikh & Wilhelm (2024), "Inference for Ranks with Applications to Mobility
# across Neighbourhoods and Academic Achievement across Countries", Review of Economic Studies
# 91(1):476-518: confidence sets for ranks from simultaneous confidence intervals of pairwise
# differences, refined step-down; all computed from the leaderboard's joint bootstrap replicates.


def _oriented(scores: ArrayLike, replicates: ArrayLike, higher_is_better: bool) -> tuple[NDArray, NDArray, NDArray]:
    """Scores oriented so that larger is better, the replicates without undefined rows, the finite columns."""
    s = np.asarray(scores, dtype=float)
    r = np.atleast_2d(np.asarray(replicates, dtype=float))
    sign = 1.0 if higher_is_better else -1.0
    ok = np.isfinite(s)
    reps = r[:, ok]
    reps = reps[np.isfinite(reps).all(axis=1)]
    return sign * s[ok], sign * reps, np.flatnonzero(ok)


def stepdown_significance(estimates: ArrayLike, replicates: ArrayLike, *, confidence_level: float = 0.95,
                          alternative: str = "two-sided") -> tuple[NDArray, tuple[float, ...]]:
    """Which of m differences are significant, by studentized simultaneous intervals refined step-down.

    ``estimates`` (m,) and their bootstrap ``replicates`` (B, m). With ``SE`` the bootstrap
    standard deviation of each difference and ``t* = (Δ* − Δ̂)/SE``, the critical value is the
    ``confidence_level`` quantile (the next-higher order statistic) of ``max |t*|``
    (``alternative="two-sided"``; ``max t*`` for ``"greater"``, the lower one-sided bounds)
    over the differences not yet found significant. A difference is significant when its
    interval ``Δ̂ ± c·SE`` excludes 0 (two-sided) or ``Δ̂ − c·SE > 0`` (greater); the
    significant ones are removed and ``c`` recomputed until nothing changes (Mogstad, Romano,
    Shaikh & Wilhelm 2024, §3.2; Romano & Wolf 2005). A difference with ``SE = 0`` counts as
    significant when ``Δ̂ ≠ 0``.

    Returns the boolean significance (m,) and the critical values of the steps.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries.
    *Review of Economic Studies* 91(1), 476–518.
    """
    est = np.asarray(estimates, dtype=float).ravel()
    rep = np.asarray(replicates, dtype=float).reshape(-1, est.size)
    sig = np.zeros(est.size, dtype=bool)
    if est.size == 0 or rep.shape[0] < 2:
        return sig, ()
    se = rep.std(axis=0, ddof=1)
    pos = se > 0
    t = np.zeros_like(rep)
    t[:, pos] = (rep[:, pos] - est[pos]) / se[pos]
    stat = np.abs(t) if alternative == "two-sided" else t
    crit: list[float] = []
    while not sig.all():
        c = float(np.quantile(stat[:, ~sig].max(axis=1), confidence_level, method="higher"))
        crit.append(c)
        if alternative == "two-sided":
            new = (np.abs(est) > c * se) & ~sig
        else:
            new = (est > c * se) & ~sig
        if not new.any():
            break
        sig |= new
    return sig, tuple(crit)


def _full_sets(n: int, idx: NDArray, k: int) -> tuple[NDArray, NDArray]:
    lo, hi = np.full(n, np.nan), np.full(n, np.nan)
    lo[idx], hi[idx] = 1.0, float(k)
    return lo, hi


def rank_sets(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
              confidence_level: float = 0.95, simultaneous: bool = False) -> tuple[NDArray, NDArray]:
    """Confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm 2024) from bootstrap replicates.

    ``scores`` (K,), ``replicates`` (B, K). The set of model j is
    ``[1 + #{k significantly better than j}, K − #{k significantly worse than j}]``, the
    significance from :func:`stepdown_significance` (two-sided). ``simultaneous=False``: the
    marginal set, from the K − 1 differences that involve j (each set holds its model's true
    rank with probability ≥ ``confidence_level``); ``simultaneous=True``: from all
    K(K − 1)/2 differences at once (all sets hold their true ranks jointly). Rank 1 is the
    best (largest score when ``higher_is_better``). Replicates with an undefined score are
    left out; a NaN score gets a NaN set and is not counted in K.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks.
    *Review of Economic Studies* 91(1), 476–518.
    """
    s, reps, idx = _oriented(scores, replicates, higher_is_better)
    n, k = np.size(scores), s.size
    lo, hi = _full_sets(n, idx, k)
    if k < 2 or reps.shape[0] < 2:
        return lo, hi
    better = np.zeros(k, dtype=int)
    worse = np.zeros(k, dtype=int)
    if simultaneous:
        i, j = np.triu_indices(k, 1)
        sig, _ = stepdown_significance(s[i] - s[j], reps[:, i] - reps[:, j], confidence_level=confidence_level)
        d = s[i] - s[j]
        above = np.zeros((k, k), dtype=bool)  # above[a, b]: a is significantly better than b
        above[i, j] = sig & (d > 0)
        above[j, i] = sig & (d < 0)
        better = above.sum(axis=0)
        worse = above.sum(axis=1)
    else:
        for a in range(k):
            o = np.delete(np.arange(k), a)
            d = s[a] - s[o]
            sig, _ = stepdown_significance(d, reps[:, [a]] - reps[:, o], confidence_level=confidence_level)
            better[a] = int(np.sum(sig & (d < 0)))
            worse[a] = int(np.sum(sig & (d > 0)))
    lo[idx] = 1 + better
    hi[idx] = k - worse
    return lo, hi


def best_set(scores: ArrayLike, replicates: ArrayLike, *, k: int = 1, higher_is_better: bool = True,
             confidence_level: float = 0.95) -> NDArray:
    """Confidence set of the k best models: True where fewer than ``k`` models are significantly better.

    Boolean per column of ``scores``. With ``SE_ji`` the bootstrap standard deviation of
    ``θ̂_j − θ̂_i`` and ``t*_ji`` its studentized deviation ``(Δ*_ji − Δ̂_ji)/SE_ji``, model j
    is significantly better than model i when ``Δ̂_ji > c·SE_ji``. The critical value ``c`` is
    the ``confidence_level`` quantile of ``max t*_ji`` over every rival j and every model i
    still in the set; a model with ``k`` or more significantly better rivals leaves the set,
    and ``c`` is recomputed over the models that remain until nothing changes. With
    probability ≥ ``confidence_level`` the set contains every model whose true rank is at
    most ``k`` (``k=1``: the best, and all of them when several are tied): a truly top-``k``
    model can only leave when the maximum over the models still in the set — which include
    it — exceeds its quantile (the step-down argument of Romano & Wolf 2005).

    This is the τ-best set of Mogstad, Romano, Shaikh & Wilhelm (2024, §4, τ = ``k``) with the
    step-down over *models* of multiple comparisons with the best (Hsu 1996, ch. 4), in place of
    the step-down over ordered pairs: once a model is known not to be among the best, the
    comparisons that could only have removed it no longer raise ``c``. The set is never
    larger, and is smaller when many models are clearly behind (docs/benchmark.md, "Side by
    side with honestboard"). NaN scores are never in it.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks.
    *Review of Economic Studies* 91(1), 476–518.

    Hsu, J. C. (1996). *Multiple Comparisons: Theory and Methods*, ch. 4. Chapman & Hall.

    Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple
    hypothesis testing. *Journal of the American Statistical Association* 100(469), 94–108.
    """
    s, reps, idx = _oriented(scores, replicates, higher_is_better)
    out = np.zeros(np.size(scores), dtype=bool)
    m = s.size
    out[idx] = True
    if m < 2 or reps.shape[0] < 2:
        return out
    d_hat = s[:, None] - s[None, :]  # d_hat[j, i] = θ̂_j − θ̂_i
    d_rep = reps[:, :, None] - reps[:, None, :]
    se = d_rep.std(axis=0, ddof=1)
    pos = se > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(pos, (d_rep - d_hat) / np.where(pos, se, 1.0), 0.0)  # (B, j, i)
    np.einsum("bii->bi", t)[...] = -np.inf  # a model is not its own rival
    t_max = t.max(axis=1)  # (B, i): the largest studentized deviation of a rival of i
    inside = np.ones(m, dtype=bool)
    while True:
        c = float(np.quantile(t_max[:, inside].max(axis=1), confidence_level, method="higher"))
        better = np.where(pos, d_hat > c * se, d_hat > 0)  # better[j, i]: j significantly better than i
        np.fill_diagonal(better, False)
        new_inside = inside & (better.sum(axis=0) < k)
        if new_inside.sum() == inside.sum() or not new_inside.any():
            inside = new_inside if new_inside.any() else inside
            break
        inside = new_inside
    out[idx] = inside
    return out


@dataclass(frozen=True, repr=False, eq=False)
class BestSet(Result):
    """Confidence set of the ``k`` best models of a leaderboard (:meth:`Leaderboard.best_set`).

    ``observers``: the models in the set, best-ranked first; ``candidates``, ``scores`` and
    ``in_set``: every candidate, its score and its membership. With probability ≥
    ``confidence_level`` the set holds every model whose true rank is at most ``k``
    (:func:`best_set`; Mogstad, Romano, Shaikh & Wilhelm 2024, §4).
    """

    observers: tuple[str, ...] = field(metadata=shown(
        "the set", in_repr=True, format=lambda value, res: f"[{', '.join(value)}]",
        detail=lambda res: f"{len(res.observers)} of {len(res.candidates)}"))
    candidates: tuple[str, ...] = field(metadata=shown(in_repr=True, format="count"))
    scores: NDArray
    in_set: NDArray
    k: int = field(metadata=shown("k best", in_repr=True, format="int"))
    confidence_level: float = field(metadata=shown(
        "confidence level", in_repr=True, repr_name="", format="percent"))
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = ("observer", "score", "in_best_set")
    method: ClassVar[str] = "confidence set of the k best (Mogstad et al. 2024, step-down)"
    _frame_sources = {"observer": "candidates", "score": "scores", "in_best_set": "in_set"}
    summary_title = "Confidence set of the k best models (Mogstad et al. 2024)"


def pairwise_bootstrap_pvalues(scores: ArrayLike, replicates: ArrayLike) -> NDArray:
    """Two-sided p-values of equal scores for every pair (K × K, NaN diagonal), Wald with bootstrap SE.

    ``p = 2 Φ(−|Δ̂| / SE)`` with ``SE`` the standard deviation of the bootstrap replicates of
    Δ (the same SE that studentizes :func:`rank_sets`). A Monte-Carlo p-value of the
    bootstrap-t would be at least ``1/(B + 1)``, too coarse for Holm's correction over
    K(K − 1)/2 pairs (21 models: 210 pairs). Replicates with an undefined score are left
    out; a pair with ``SE = 0`` gets p = 0 if Δ̂ ≠ 0, else 1 (bootstrap standard errors,
    Efron & Tibshirani 1993, ch. 6).

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall.
    """
    s, reps, idx = _oriented(scores, replicates, True)
    n = np.size(scores)
    out = np.full((n, n), np.nan)
    if s.size < 2:
        return out
    i, j = np.triu_indices(s.size, 1)
    d, rep = s[i] - s[j], reps[:, i] - reps[:, j]
    se = rep.std(axis=0, ddof=1) if rep.shape[0] > 1 else np.zeros(d.size)
    pos = se > 0
    p = np.where(d != 0, 0.0, 1.0)
    p[pos] = 2.0 * stats.norm.sf(np.abs(d[pos]) / se[pos])
    out[idx[i], idx[j]] = p
    out[idx[j], idx[i]] = p
    return out


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def compact_letters(significant: ArrayLike, order: ArrayLike | None = None) -> list[str]:
    """Compact letter display of all-pairwise comparisons (Piepho 2004, insert-and-absorb).

    ``significant``: a symmetric K × K boolean matrix (True = the pair differs). Returns a
    string of letters per model: two models share a letter exactly when no significant
    difference separates them within that letter's group, and two models that differ share
    none. ``order``: each model's position (default 0..K−1; e.g. its rank − 1): the group
    of the first model gets "a", and so on.

    References
    ----------
    Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
    comparisons. *Journal of Computational and Graphical Statistics* 13(2), 456–466.
    """
    sig = np.asarray(significant, dtype=bool)
    k = sig.shape[0]
    pos = np.arange(k) if order is None else np.asarray(order)
    cols: list[frozenset[int]] = [frozenset(range(k))] if k else []
    for i, j in zip(*np.triu_indices(k, 1)):
        if not (sig[i, j] or sig[j, i]):
            continue
        new: list[frozenset[int]] = []
        for c in cols:  # insert: split every group that holds both
            new += [c - {int(j)}, c - {int(i)}] if (i in c and j in c) else [c]
        uniq = list(dict.fromkeys(new))
        cols = [c for c in uniq if not any(c < d for d in uniq)]  # absorb groups inside another
    cols.sort(key=lambda c: sorted(pos[list(c)].tolist()))
    letters = [_LETTERS[n % len(_LETTERS)] * (1 + n // len(_LETTERS)) for n in range(len(cols))]
    return ["".join(letters[n] for n, c in enumerate(cols) if m in c) for m in range(k)]


def tie_groups(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
               alpha: float = 0.05) -> list[str]:
    """Tie groups as compact letters: Holm-corrected tests of every pair (Wald, bootstrap SE).

    Two models share a letter unless their difference is significant at ``alpha`` after
    Holm's correction over all K(K − 1)/2 pairs of :func:`pairwise_bootstrap_pvalues`;
    letters by :func:`compact_letters`, "a" for the group of the best. A NaN score gets "".
    """
    s = np.asarray(scores, dtype=float)
    p = pairwise_bootstrap_pvalues(s, replicates)
    ok = np.flatnonzero(np.isfinite(s))
    out = [""] * s.size
    if ok.size == 0:
        return out
    sub = p[np.ix_(ok, ok)]
    i, j = np.triu_indices(ok.size, 1)
    sig = np.zeros((ok.size, ok.size), dtype=bool)
    if i.size:
        adj = adjust_pvalues(sub[i, j], "holm")
        sig[i, j] = sig[j, i] = adj < alpha
    key = -s[ok] if higher_is_better else s[ok]
    order = np.argsort(np.argsort(key, kind="stable"), kind="stable")
    for n, letters in zip(ok, compact_letters(sig, order)):
        out[n] = letters
    return out


#: The rank columns of every ranked table (:func:`rank_columns`; the glossary's "Ranks").
RANK_COLUMNS = ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high", "in_best_set", "group", "p_best")


def rank_columns(scores: ArrayLike, replicates: ArrayLike, *, higher_is_better: bool = True,
                 confidence_level: float = 0.95) -> dict[str, Any]:
    """Every rank column of a ranked table from the scores (K,) and their joint replicates (B, K).

    ``rank`` (1 = best), the marginal (``rank_low``, ``rank_high``) and simultaneous
    (``rank_set_low``, ``rank_set_high``) rank sets of :func:`rank_sets`, ``in_best_set``
    (:func:`best_set`), ``group`` (:func:`tie_groups` at α = 1 − ``confidence_level``) and
    ``p_best`` (:func:`probability_best`). The one place that ranks a leaderboard
    (:func:`trialwise.leaderboard`) or a behavioural benchmark's candidates
    (:meth:`trialwise.brainscore.BehavioralBenchmark.score_table`).
    """
    s = np.asarray(scores, dtype=float)
    reps = np.asarray(replicates, dtype=float)
    hib, level = higher_is_better, confidence_level
    lo, hi = rank_sets(s, reps, higher_is_better=hib, confidence_level=level)
    set_lo, set_hi = rank_sets(s, reps, higher_is_better=hib, confidence_level=level, simultaneous=True)
    return {
        "rank": rank_scores(s, higher_is_better=hib), "rank_low": lo, "rank_high": hi,
        "rank_set_low": set_lo, "rank_set_high": set_hi,
        "in_best_set": best_set(s, reps, higher_is_better=hib, confidence_level=level),
        "group": tie_groups(s, reps, higher_is_better=higher_is_better, alpha=1.0 - confidence_level),
        "p_best": probability_best(rank_scores(reps, higher_is_better=higher_is_better)),
    }
