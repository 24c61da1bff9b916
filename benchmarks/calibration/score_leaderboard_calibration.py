"""Calibration of the accuracy leaderboard on per-item scores in [0, 1] (partial credit, F1).

Simulated benchmark with known truth: item i of cluster c gets model m's score
``Φ(μ_m + √ICC·a_c + √(1−ICC)·b_i + τ·v_mc + η·e_mi)`` with a_c, b_i (shared by all models),
v_mc (a model × cluster interaction, τ = 0.3 when clustered, else 0) and e_mi standard normal
and η = 0.5, so the true mean score of model m is ``Φ(μ_m / √(2 + τ² + η²))`` exactly and the
scores are continuous in (0, 1). ICC is the latent intra-cluster correlation of the shared part.

* ``coverage``: three models (μ = −0.3, 0, 0.4); the share of nominal 95 % score intervals
  (``ci_method="studentized"``, the default) that hold the true mean score, resampling items
  or clusters (``clusters="cluster"``). Pooled over the three models; MC SE from the R
  datasets (``√(p(1 − p)/(3R))``, a lower bound: the models' intervals are correlated).
* ``type1``: two models with the same μ = 0.2 (their model × cluster interactions differ,
  so they are not exchangeable item by item when clustered): the rejection rate at α = 5 %
  of ``lb.difference(x, y, test=...)`` for the ``swap`` (paired sign-flip), ``studentized``
  and ``combined`` (default) tests.

    python benchmarks/calibration/score_leaderboard_calibration.py [R] [B]     # default R = 500, B = 1000, seed 20261124

Prints one Markdown table per study (the rows of docs/language_models.md, "Scores that are
not 0/1").
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm

import trialwise as tw

ETA = 0.5
TAU = 0.3


def simulate(mu: np.ndarray, n_clusters: int, size: int, icc: float, rng: np.random.Generator) -> pd.DataFrame:
    """A tidy trials table of per-item scores (column ``score``) and its ``cluster`` column."""
    n = n_clusters * size
    cl = np.repeat(np.arange(n_clusters), size)
    tau = TAU if size > 1 else 0.0
    shared = np.sqrt(icc) * rng.normal(size=n_clusters)[cl] + np.sqrt(1 - icc) * rng.normal(size=n)
    rows = []
    for m, mu_m in enumerate(mu):
        z = mu_m + shared + tau * rng.normal(size=n_clusters)[cl] + ETA * rng.normal(size=n)
        rows.append(pd.DataFrame({"subject": f"m{m}", "image": np.arange(n).astype(str), "f1": norm.cdf(z),
                                  "passage": cl.astype(str)}))
    return tw.read_trials(pd.concat(rows, ignore_index=True), score="f1", clusters="passage")


def true_mean(mu: np.ndarray, clustered: bool) -> np.ndarray:
    tau = TAU if clustered else 0.0
    return norm.cdf(np.asarray(mu) / np.sqrt(2 + tau**2 + ETA**2))


COVERAGE = [(400, 1, 0.0), (20, 20, 0.1), (20, 20, 0.3), (20, 20, 0.5), (50, 20, 0.1), (50, 20, 0.3), (50, 20, 0.5)]
TYPE1 = [(400, 1, 0.0), (1000, 1, 0.0), (20, 20, 0.3), (50, 20, 0.1), (50, 20, 0.5)]


def coverage(r: int, b: int, seed: int) -> None:
    mu = np.array([-0.3, 0.0, 0.4])
    print("| questions | clusters × size | ICC | resampling | coverage (studentized) | mean width |")
    print("|---|---|---|---|---|---|")
    for k, (g, size, icc) in enumerate(COVERAGE):
        truth = true_mean(mu, size > 1)
        for resample in (("items", "clusters") if size > 1 else ("items",)):
            rng = np.random.default_rng([seed, k])
            hits, widths = [], []
            for rep in range(r):
                trials = simulate(mu, g, size, icc, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=b, rng=rep,
                                        clusters="cluster" if resample == "clusters" else None)
                t = lb.table.set_index("observer").loc[[f"m{m}" for m in range(len(mu))]]
                hits.extend((t.ci_low.to_numpy() <= truth) & (truth <= t.ci_high.to_numpy()))
                widths.extend(t.ci_high.to_numpy() - t.ci_low.to_numpy())
            p = float(np.mean(hits))
            se = np.sqrt(p * (1 - p) / len(hits))
            print(f"| {g * size} | {g} × {size} | {icc} | {resample} | {p:.3f} ± {se:.3f} | {np.mean(widths):.3f} |",
                  flush=True)


def type_one(r: int, b: int, seed: int) -> None:
    mu = np.array([0.2, 0.2])
    tests = ("swap", "studentized", "combined")
    print("| questions | clusters × size | ICC | resampling | " + " | ".join(tests) + " |")
    print("|---|---|---|---|" + "---|" * len(tests))
    for k, (g, size, icc) in enumerate(TYPE1):
        for resample in (("items", "clusters") if size > 1 else ("items",)):
            rng = np.random.default_rng([seed, 100 + k])
            rejected = {t: 0 for t in tests}
            for rep in range(r):
                trials = simulate(mu, g, size, icc, rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=b, rng=rep,
                                        clusters="cluster" if resample == "clusters" else None)
                    for t in tests:
                        rejected[t] += lb.difference("m0", "m1", test=t).pvalue <= 0.05
            cells = " | ".join(f"{rejected[t] / r:.3f}" for t in tests)
            print(f"| {g * size} | {g} × {size} | {icc} | {resample} | {cells} |", flush=True)
    print(f"(MC SE at 0.05: {np.sqrt(0.05 * 0.95 / r):.3f})")


def main(r: int = 500, b: int = 1000, seed: int = 20261124, which: str = "both") -> None:
    start = time.time()
    print(f"R = {r}, B = {b}, seed {seed}")
    if which in ("both", "coverage"):
        coverage(r, b, seed)
    if which in ("both", "type1"):
        type_one(r, b, seed)
    print(f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(int(a) for a in args[:2]), **({"which": args[2]} if len(args) > 2 else {}))
