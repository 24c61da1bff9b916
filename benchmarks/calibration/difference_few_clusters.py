"""Differences of leaderboard scores with few clusters per condition: coverage and type-I error.

With two clusters per condition a bootstrap replicate draws the same cluster twice in a
condition half of the time; where it does so in every condition, no item moves the scores
and their standard error SE* is 0 (a rounding residue, ~1e-14 of SE). On more than α of the
replicates the symmetric studentized interval of a difference is then unbounded: the
leaderboard gives the bias-corrected percentile interval (``bc``) instead, with a note and a
warning, and the studentized p-value keeps those replicates as "at least as extreme" (valid,
but it cannot reject). This study measures what a user gets, and the alternatives, on
error-consistency leaderboards of 2 experiments × 2 conditions (or 1 × 2: ``1x2``) of 60
items in ``k`` clusters (k = 2, 3, 10), three humans and four models.

Items are easy or hard (the latent-class design of ``studentized_fallback_coverage.py``);
a cluster's share of easy items is Beta(π·s, (1 − π)·s) around its condition's π (s = 4), so
clusters differ and the scores' true values — the population κ at π, averaged like the
leaderboard averages — are exact. Models ``a`` and ``a2`` answer alike (exchangeable: every
test's H0 holds); ``c`` has a's true score with another accuracy (H0 of equal scores holds,
exchangeability does not); ``b`` differs (power).

Reported per k and contrast: how often the difference interval fell back to ``bc``; the
coverage of the reported interval, of pure ``bc``, of the pure symmetric studentized one and
of the studentized one with the replicates of SE* = 0 left out (``dropped``); the share of
p < 0.05 of the reported ``combined``, ``studentized`` and ``swap`` tests and of the variants:
the test dual to ``bc`` (``bc``), ``dropped``, and ``combined`` built on each.

    python benchmarks/calibration/difference_few_clusters.py [R=200] [B=500] [k,k,...] [2x2|1x2]
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import trialwise as tw
from trialwise.leaderboards.differences import contrast_standard_errors
from scipy.special import ndtr, ndtri

from trialwise._stats.intervals import (
    degenerate_standard_errors,
    interval,
    symmetric_studentized_interval,
    symmetric_studentized_pvalue,
)

sys.path.insert(0, str(Path(__file__).parent))
from studentized_fallback_coverage import population_kappa  # noqa: E402  (the same latent-class κ)

HUMANS = ((0.97, 0.35), (0.95, 0.45), (0.92, 0.30))  # (p right | easy, | hard)
EASY = np.array([[0.5, 0.6], [0.7, 0.8]])  # π of every experiment × condition
ITEMS = 60
SHAPE = 4.0  # a cluster's share of easy items is Beta(π·SHAPE, (1 − π)·SHAPE)
PROTOCOL = tw.leaderboards.Protocol("few-clusters")


def true_score(p: tuple[float, float]) -> float:
    """A model's score: mean over conditions of the mean over humans of the population κ."""
    return float(np.mean([np.mean([population_kappa(pi, p, h) for h in HUMANS]) for pi in EASY.ravel()]))


def _same_score(p_easy: float, like: tuple[float, float]) -> tuple[float, float]:
    """A model right with probability ``p_easy`` on easy items whose true score is ``like``'s."""
    from scipy.optimize import brentq

    return p_easy, float(brentq(lambda h: true_score((p_easy, h)) - true_score(like), 0.01, p_easy - 0.01))


#: a and a2 answer alike (exchangeable: every test's H0 holds); c has a's true score but another
#: accuracy (0.60 against 0.71: H0 of equal scores holds, exchangeability does not); b differs.
MODELS = {"a": (0.93, 0.30), "a2": (0.93, 0.30), "c": _same_score(0.85, (0.93, 0.30)), "b": (0.85, 0.55)}


def true_scores() -> dict[str, float]:
    return {m: true_score(p) for m, p in MODELS.items()}


def simulate(g: np.random.Generator, k: int) -> pd.DataFrame:
    """One leaderboard's trials: every condition's ITEMS items in ``k`` clusters (column ``cluster``)."""
    names = [f"h{i + 1}" for i in range(len(HUMANS))] + list(MODELS)
    params = np.array(list(HUMANS) + list(MODELS.values()))
    cluster = np.arange(ITEMS) * k // ITEMS
    rows = []
    for e, row in enumerate(EASY):
        for c, pi in enumerate(row):
            share = g.beta(pi * SHAPE, (1 - pi) * SHAPE, k)[cluster]
            easy = g.random(ITEMS) < share
            right = g.random((len(names), ITEMS)) < np.where(easy[None, :], params[:, :1], params[:, 1:])
            for j, name in enumerate(names):
                rows.append(pd.DataFrame({
                    "experiment": f"e{e}", "condition": f"c{c}", "subject": name,
                    "observer_type": "human" if j < len(HUMANS) else "model",
                    "image": [f"e{e}c{c}i{i}" for i in range(ITEMS)], "truth": "a",
                    "response": np.where(right[j], "a", "b"), "cluster": [f"e{e}c{c}k{x}" for x in cluster]}))
    return pd.concat(rows, ignore_index=True)


def bc_pvalue(dist: np.ndarray, estimate: float) -> float:
    """The test dual to the ``bc`` interval (a variant compared here, not the library's):
    ``2·Φ(−|Φ⁻¹(G(0)) − 2·z0|)`` with mid-rank shares below 0 and below θ̂."""
    d = dist[~np.isnan(dist)]

    def share(x: float) -> float:
        return float(np.clip((np.sum(d < x) + 0.5 * np.sum(d == x)) / d.size, 0.5 / d.size, 1 - 0.5 / d.size))

    return float(min(1.0, 2.0 * ndtr(-abs(ndtri(share(0.0)) - 2.0 * ndtri(share(estimate))))))


def one(g: np.random.Generator, k: int, b: int, truth: dict[str, float], level: float = 0.95) -> list[dict]:
    """The interval of a − x and the tests of a vs x, x = b, a2, c, on one simulated leaderboard."""
    trials = tw.read_trials(simulate(g, k), clusters="cluster")
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = tw.leaderboard(trials, PROTOCOL, n_resamples=b, rng=g, clusters="cluster")
        for other in ("b", "a2", "c"):
            res = {t: lb.difference("a", other, test=t) for t in ("combined", "studentized", "swap")}
            ia, ix = lb.observers.index("a"), lb.observers.index(other)
            dist = lb.replicates[:, [ia]] - lb.replicates[:, [ix]]
            est = lb.scores[[ia]] - lb.scores[[ix]]
            s0, s_rep = contrast_standard_errors(lb.replicates, lb.standard_errors, lb.replicate_standard_errors,
                                                 np.array([ia]), np.array([ix]))
            pure_st = symmetric_studentized_interval(dist, est, s0, s_rep, level)
            pure_bc = interval("bc", dist, est, level, bounds=(-np.inf, np.inf))
            p_st = float(symmetric_studentized_pvalue(dist[:, 0], est[0], s0[0], s_rep[:, 0]))
            p_bc = float(bc_pvalue(dist[:, 0], est[0]))
            kept = np.where(degenerate_standard_errors(s0, s_rep), np.nan, dist)  # SE* = 0: left out
            dropped = symmetric_studentized_interval(kept, est, s0, s_rep, level)
            p_dropped = float(symmetric_studentized_pvalue(kept[:, 0], est[0], s0[0], s_rep[:, 0]))
            t = truth["a"] - truth[other]
            ci = res["combined"].confidence_interval
            out.append({"k": k, "contrast": f"a−{other}", "fallback": res["combined"].ci_method == "bc",
                        "covered": ci.low <= t <= ci.high, "width": ci.high - ci.low,
                        "covered_bc": pure_bc[0][0] <= t <= pure_bc[1][0],
                        "covered_studentized": pure_st[0][0] <= t <= pure_st[1][0],
                        "covered_dropped": dropped[0][0] <= t <= dropped[1][0], "p_dropped": p_dropped,
                        "p_combined_dropped": max(res["swap"].pvalue, p_dropped),
                        "p_combined": res["combined"].pvalue, "p_studentized": res["studentized"].pvalue,
                        "p_swap": res["swap"].pvalue, "p_bc": p_bc,
                        "p_combined_bc": max(res["swap"].pvalue, p_bc if res["combined"].ci_method == "bc" else p_st)})
    warned = any(issubclass(w.category, tw.TrialwiseWarning) and "bc" in str(w.message) for w in caught)
    for rec in out:
        rec["warned"] = warned
    return out


def study(ks: tuple[int, ...], r: int, b: int, seed: int = 20261124) -> pd.DataFrame:
    truth = true_scores()
    records = []
    for k in ks:
        t0 = time.perf_counter()
        for g in np.random.default_rng([seed, k]).spawn(r):
            records += one(g, k, b, truth)
        print(f"k = {k}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return pd.DataFrame(records)


#: The p-values of the summary: reported (combined, studentized), and the variants compared.
P_COLUMNS = ("combined", "studentized", "swap", "bc", "combined_bc", "dropped", "combined_dropped")


def summary(raw: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Per k and contrast: the fallback share, coverage of the reported / bc / studentized
    intervals, and the share of p < alpha of every test (type-I error for a−a2 and a−c, power for a−b)."""
    g = raw.groupby(["k", "contrast"])
    out = g[["fallback", "covered", "covered_bc", "covered_studentized", "covered_dropped", "width"]].mean()
    for c in P_COLUMNS:
        out[f"p<{alpha:g} {c}"] = g[f"p_{c}"].apply(lambda p: float(np.mean(p < alpha)))
    return out


def main() -> None:
    r = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    b = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    ks = tuple(int(x) for x in sys.argv[3].split(",")) if len(sys.argv) > 3 else (2, 3, 10)
    if len(sys.argv) > 4 and sys.argv[4] == "1x2":
        global EASY
        EASY = np.array([[0.5, 0.7]])
        MODELS["c"] = _same_score(0.85, MODELS["a"])
    raw = study(ks, r, b)
    raw.to_csv(f"/tmp/difference_few_clusters_R{r}_B{b}_{len(EASY)}x{EASY.shape[1]}.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        truth = true_scores()
        print(f"R = {r}, B = {b}, seed 20261124, {len(EASY)} × {EASY.shape[1]} conditions; "
              f"true a−b = {truth['a'] - truth['b']:.4f}, a−a2 = a−c = 0")
        print(summary(raw).round(3).T.to_string())


if __name__ == "__main__":
    main()
