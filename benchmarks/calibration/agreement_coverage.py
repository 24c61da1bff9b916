"""Coverage of the CAPA (κ_p) intervals of tw.agreement, with and without clustered questions.

Simulated benchmark with known truth: k = 4 options; question q has a difficulty d_q, each
model its own difficulty o_mq (its subject strengths) and the options a shared
attractiveness s_q (all N(0, 1) marginally); with clusters of questions (passage, subject),
a share ``icc`` of their variances is a cluster effect. Two models put softmax
probabilities on ``w·s_q + √(1−w²)·e_mq`` plus ``skill_m − d_q − o_mq`` on the correct
option. The marginal distribution of every question is the same for every icc, so the true
κ_p is one number, computed on 2,000,000 questions. Each cell: R datasets, B bootstrap
replicates, every interval method on the same replicates (same seed), item resampling vs
cluster resampling.

    python benchmarks/calibration/agreement_coverage.py [R] [B] [CELL]  # defaults R = 500, B = 1000, all cells, seed 20261123

The table in docs/language_models.md: ``python benchmarks/calibration/agreement_coverage.py 500 1000 CELL``
for CELL = 0 … 10, one process per cell (each cell then starts from the seed, so its numbers do
not depend on the cells run before it).

Prints a Markdown table (coverage, its Monte-Carlo SE, mean width).
"""

from __future__ import annotations

import sys
import time

import numpy as np

import trialwise as tw

K = 4
MODELS = ((1.2, 0.6, 1.5), (0.6, 0.6, 1.2))  # (skill, weight of the shared attractiveness, inverse temperature)
SPECIFIC = 1.0  # scale of each model's own difficulty (subject strengths), besides the shared difficulty d_q


def simulate(n_clusters: int, size: int, icc: float, rng: np.random.Generator):
    n = n_clusters * size
    cluster = np.repeat(np.arange(n_clusters), size)
    r, e = np.sqrt(icc), np.sqrt(1 - icc)
    d = r * rng.normal(size=n_clusters)[cluster] + e * rng.normal(size=n)
    s = r * rng.normal(size=(n_clusters, K))[cluster] + e * rng.normal(size=(n, K))
    truth = rng.integers(0, K, n)
    probs = []
    for skill, w, beta in MODELS:
        own = r * rng.normal(size=n_clusters)[cluster] + e * rng.normal(size=n)  # the model's own subject strengths
        logits = w * s + np.sqrt(1 - w**2) * rng.normal(size=(n, K))
        logits[np.arange(n), truth] += skill - d - SPECIFIC * own
        z = np.exp(beta * (logits - logits.max(1, keepdims=True)))
        probs.append(z / z.sum(1, keepdims=True))
    return probs[0], probs[1], truth, cluster


def true_kappa(rng: np.random.Generator, n: int = 2_000_000) -> float:
    a, b, t, _ = simulate(n, 1, 0.0, rng)
    c_obs = np.mean(np.sum(a * b, 1))
    pa, pb = a[np.arange(n), t].mean(), b[np.arange(n), t].mean()
    c_exp = pa * pb + (1 - pa) * (1 - pb) / (K - 1)
    return float((c_obs - c_exp) / (1 - c_exp))


CELLS = [(100, 1, 0.0), (400, 1, 0.0), (1000, 1, 0.0), (20, 20, 0.1), (20, 20, 0.3), (20, 20, 0.5), (50, 20, 0.1),
         (50, 20, 0.3), (50, 20, 0.5), (100, 10, 0.3), (200, 10, 0.5)]
METHODS = ("percentile", "bc", "bca", "basic", "jackknife-t")


def main(r: int = 500, b: int = 1000, only: int | None = None, seed: int = 20261123) -> None:
    rng = np.random.default_rng(seed)
    kappa = true_kappa(rng)
    print(f"true kappa_p = {kappa:.4f} (2,000,000 questions); R = {r}, B = {b}, seed {seed}\n")
    print("| questions | clusters × size | ICC | resampling | " + " | ".join(METHODS) + " | mean width (bca) |")
    print("|---|---|---|---|" + "---|" * len(METHODS) + "---|")
    for n_clusters, size, icc in CELLS if only is None else CELLS[only: only + 1]:
        t0 = time.time()
        modes = ("items",) if size == 1 else ("items", "clusters")
        hits = {(m, k): 0 for m in modes for k in METHODS}
        width = {m: 0.0 for m in modes}
        for _ in range(r):
            a, bb, t, cl = simulate(n_clusters, size, icc, rng)
            seed_rep = int(rng.integers(2**63))
            for mode in modes:
                for method in METHODS:
                    res = tw.agreement(a, bb, t, clusters=cl if mode == "clusters" else None, ci_method=method,
                                       n_resamples=b, rng=seed_rep)
                    lo, hi = res.confidence_interval
                    hits[mode, method] += lo <= kappa <= hi
                    if method == "bca":
                        width[mode] += (hi - lo) / r
        for mode in modes:
            cov = [hits[mode, k] / r for k in METHODS]
            cells = " | ".join(f"{c:.3f} ± {np.sqrt(c * (1 - c) / r):.3f}" for c in cov)
            print(f"| {n_clusters * size} | {n_clusters} × {size} | {icc} | {mode} | {cells} | {width[mode]:.3f} |",
                  flush=True)
        print(f"<!-- cell {n_clusters}x{size} icc {icc}: {time.time() - t0:.0f} s -->", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:4]))
