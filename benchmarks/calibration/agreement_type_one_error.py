"""Type-I error of the "no more agreement than chance" test of tw.agreement (H0: κ_p ≤ 0).

Two models with no shared component (each puts softmax probabilities on its own noise plus
``skill_m − o_mq`` on the correct option, o_mq its own difficulty, a share ``icc`` of which
is a cluster effect): κ_p = 0 exactly, by the symmetry of the wrong options (checked on
1,000,000 questions). Each cell: R datasets, B = 1000 bootstrap replicates, the rejection
rate at α = 5 % of the one-sided percentile test ``(1 + #{κ_p* ≤ 0}) / (1 + B)`` (the
default) and of the basic-bootstrap test ``(1 + #{κ_p* ≥ 2 κ̂_p}) / (1 + B)``.

    python benchmarks/calibration/agreement_type_one_error.py [R]     # default R = 1000, seed 5
"""

from __future__ import annotations

import sys

import numpy as np

import trialwise as tw

MODELS = ((1.2, 1.5), (0.6, 1.2))  # (skill, inverse temperature)


def simulate(n_clusters: int, size: int, icc: float, rng: np.random.Generator):
    n = n_clusters * size
    cl = np.repeat(np.arange(n_clusters), size)
    r, e = np.sqrt(icc), np.sqrt(1 - icc)
    t = rng.integers(0, 4, n)
    out = []
    for skill, beta in MODELS:
        own = r * rng.normal(size=n_clusters)[cl] + e * rng.normal(size=n)
        z = rng.normal(size=(n, 4))
        z[np.arange(n), t] += skill - own
        z = np.exp(beta * (z - z.max(1, keepdims=True)))
        out.append(z / z.sum(1, keepdims=True))
    return out[0], out[1], t, cl


def main(r: int = 1000, seed: int = 5) -> None:
    rng = np.random.default_rng(seed)
    a, b, t, _ = simulate(1_000_000, 1, 0, rng)
    n = len(t)
    pa, pb = a[np.arange(n), t].mean(), b[np.arange(n), t].mean()
    ce = pa * pb + (1 - pa) * (1 - pb) / 3
    print(f"kappa_p of the null on 1,000,000 questions: {(np.mean((a * b).sum(1)) - ce) / (1 - ce):.5f}; "
          f"R = {r}, B = 1000, seed {seed}, MC SE at 5 %: {np.sqrt(0.05 * 0.95 / r):.3f}\n")
    print("| questions | clusters × size | ICC | resampling | percentile test | basic test | jackknife t test |")
    print("|---|---|---|---|---|---|---|")
    for nc, size, icc, clus in [(100, 1, 0, False), (400, 1, 0, False), (50, 20, 0.5, True), (50, 20, 0.5, False),
                                (20, 20, 0.5, True), (10, 40, 0.5, True)]:
        rej = {"pct": 0, "basic": 0, "jackknife-t": 0}
        for _ in range(r):
            a, b, t, cl = simulate(nc, size, icc, rng)
            seed = int(rng.integers(2**63))
            res = tw.agreement(a, b, t, clusters=cl if clus else None, n_resamples=1000, rng=seed, ci_method="percentile")
            d = res.bootstrap_distribution
            d = d[~np.isnan(d)]
            rej["pct"] += (1 + np.sum(d <= 0)) / (1 + d.size) <= 0.05
            rej["basic"] += (1 + np.sum(d >= 2 * res.statistic)) / (1 + d.size) <= 0.05
            jt = tw.agreement(a, b, t, clusters=cl if clus else None, n_resamples=10, rng=seed, ci_method="jackknife-t")
            rej["jackknife-t"] += jt.pvalue <= 0.05
        print(f"| {nc * size} | {nc} × {size} | {icc} | {'clusters' if clus else 'items'} | "
              f"{rej['pct'] / r:.3f} | {rej['basic'] / r:.3f} | {rej['jackknife-t'] / r:.3f} |", flush=True)


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:2]))
