"""Type-I error of the paired accuracy difference of `tw.comparison.paired_runs`, with and without clusters.

Two runs with equal accuracy answer the same questions; the per-question difference d = c_A − c_B is
+1 with probability ψ·π_g, −1 with ψ·(1 − π_g), 0 otherwise, with π_g ~ Beta(a, a) per cluster, so that
E[d] = 0 and the intra-cluster correlation of d is ψ/(2a + 1) (0.3 here). Clusters have 2–30 questions
(uniform), G ∈ {10, 15, 25, 40}; "items" are independent questions (20–300 of them). Each data set is
tested at level 0.05 by

* the cluster percentile bootstrap of the mean difference (B = 999),
* CR1 (the G/(G − 1) correction) with t_{G−1},
* CR2 (Bell–McCaffrey) with t_{G−1},
* CR2 with the Bell–McCaffrey degrees of freedom (working independence, ρ = 0),
* CR2 with the Imbens–Kolesár degrees of freedom at the estimated ICC — the library's
  `trialwise.comparison.paired.paired_difference_interval`, which `paired_runs` uses.

Prints the share of rejections per cell and its Monte-Carlo SE. Table: docs/validity.md, "The paired
accuracy difference". Light twin: tests/comparison/test_paired.py (type-I error light and slow).

Usage: python benchmarks/calibration/paired_difference_calibration.py [R] [--seed S]
Short run (5 s): R = 100. Default R = 4,000: about 4 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

from trialwise.comparison.paired import _ik_df, paired_difference_interval

METHODS = ("cluster bootstrap", "CR1, t(G-1)", "CR2, t(G-1)", "CR2, BM df", "CR2, IK df (library)")


def simulate(gen: np.random.Generator, n_clusters: int | None, psi: float, icc: float = 0.3):
    if n_clusters is None:
        n = int(gen.integers(2, 31) * 10)
        u = gen.random(n)
        return np.where(u < psi / 2, 1.0, np.where(u < psi, -1.0, 0.0)), None
    size = gen.integers(2, 31, n_clusters)
    a = (psi / icc - 1) / 2
    pi = gen.beta(a, a, n_clusters)
    g = np.repeat(np.arange(n_clusters), size)
    u = gen.random(g.size)
    return np.where(u < psi * pi[g], 1.0, np.where(u < psi, -1.0, 0.0)), g


def rejections(d: np.ndarray, g: np.ndarray | None, gen: np.random.Generator, n_boot: int = 999) -> list[bool]:
    n = d.size
    codes = np.arange(n) if g is None else g
    sizes = np.bincount(codes).astype(float)
    big_g = sizes.size
    e = d - d.mean()
    sums = np.bincount(codes, e, big_g)
    c = sizes / n
    v1 = float((sums ** 2).sum()) / n ** 2 * big_g / (big_g - 1)
    v2 = float((sums ** 2 / (1 - c)).sum()) / n ** 2
    out = []
    # cluster percentile bootstrap of the mean
    w = gen.multinomial(big_g, np.full(big_g, 1 / big_g), size=n_boot)
    tot = np.bincount(codes, d, big_g)
    means = (w @ tot) / (w @ sizes)
    lo, hi = np.quantile(means, [0.025, 0.975])
    out.append(not lo <= 0 <= hi)
    for var, df in ((v1, big_g - 1), (v2, big_g - 1), (v2, _ik_df(sizes, 0.0))):
        out.append(var > 0 and abs(d.mean()) / math.sqrt(var) > stats.t.ppf(0.975, df))
    p = paired_difference_interval(d, g)[4]
    out.append(bool(p <= 0.05))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="?", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    r = args.datasets
    gen = np.random.default_rng(args.seed)
    start = time.time()
    print(f"R = {r} data sets per row, level 0.05, ICC 0.3, clusters of 2-30 questions; MC SE at 5 %: "
          f"{math.sqrt(0.05 * 0.95 / r):.4f}")
    print(f"| ψ | clusters | {' | '.join(METHODS)} |")
    print("|---|---|" + "---|" * len(METHODS))
    for psi in (0.4, 0.6):
        for n_clusters in (None, 10, 15, 25, 40):
            hits = np.zeros(len(METHODS))
            for _ in range(r):
                d, g = simulate(gen, n_clusters, psi)
                hits += rejections(d, g, gen)
            rates = " | ".join(f"{h / r:.3f}" for h in hits)
            print(f"| {psi} | {'items' if n_clusters is None else n_clusters} | {rates} |", flush=True)
    print(f"wall time {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
