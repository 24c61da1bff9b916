"""Coverage of leaderboard intervals when items come in clusters: resampling items vs clusters.

Accuracy leaderboards (``protocol="accuracy"``) of four models on one condition of
``n_clusters`` clusters × ``size`` questions; a question's difficulty is a cluster effect
(SD ``sd_cluster``) plus its own (SD 1), and a model with ability a answers right with
probability Φ(a − difficulty), so its true accuracy is Φ(a / √(2 + sd_cluster²)). R boards per
design, B = 500, 95 % studentized intervals, with and without ``clusters="cluster"``.

    python benchmarks/cluster_coverage.py [R=300]
    python benchmarks/cluster_coverage.py 200 ec   # error consistency (pairwise_error_consistency)

With ``ec``: two models (abilities 0.6 and 0.8) on the same clustered questions; the population
EC from 200,000 questions; 95 % intervals of ``pairwise_error_consistency`` with and without
``clusters=``, for the jeffreys (default), bca and percentile intervals, B = 1,000.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import trialwise as tw

ABILITY = (0.3, 0.5, 0.7, 0.9)


def board(gen: np.random.Generator, n_clusters: int, size: int, sd_cluster: float) -> pd.DataFrame:
    n = n_clusters * size
    cluster = np.repeat(np.arange(n_clusters), size)
    difficulty = gen.normal(0, sd_cluster, n_clusters)[cluster] + gen.normal(0, 1.0, n)
    right = gen.random((len(ABILITY), n)) < stats.norm.cdf(np.array(ABILITY)[:, None] - difficulty)
    return pd.DataFrame({"experiment": "e", "condition": "c", "subject": np.repeat([f"m{k}" for k in range(4)], n),
                         "observer_type": "model", "image": np.tile([f"q{i}" for i in range(n)], 4), "truth": "a",
                         "response": np.where(right.ravel(), "a", "b"), "correct": right.ravel(),
                         "cluster": np.tile(cluster.astype(str), 4)})


def main(r: int = 300) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(20261123)
    print("| clusters × questions | cluster SD | coverage, items resampled | coverage, clusters resampled |")
    print("|---|---|---|---|")
    for n_clusters, size, sd in ((30, 10, 0.5), (30, 10, 1.0), (100, 10, 1.0), (15, 20, 1.0)):
        truth = {f"m{k}": stats.norm.cdf(a / np.sqrt(2 + sd**2)) for k, a in enumerate(ABILITY)}
        cover: dict[str, list[bool]] = {"items": [], "clusters": []}
        for _ in range(r):
            t = board(gen, n_clusters, size, sd)
            seed = int(gen.integers(2**31))
            for kind, cl in (("items", None), ("clusters", "cluster")):
                tab = tw.leaderboard(t, protocol="accuracy", n_resamples=500, rng=seed,
                                     clusters=cl).table.set_index("observer")
                cover[kind] += [bool(tab.loc[m, "ci_low"] <= v <= tab.loc[m, "ci_high"]) for m, v in truth.items()]
        print(f"| {n_clusters} × {size} | {sd:g} | {np.mean(cover['items']):.3f} | {np.mean(cover['clusters']):.3f} |",
              flush=True)


def pair(gen: np.random.Generator, n_clusters: int, size: int, sd: float) -> tuple[np.ndarray, np.ndarray]:
    cl = np.repeat(np.arange(n_clusters), size)
    diff = gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    a = gen.random(cl.size) < stats.norm.cdf(0.6 - diff)
    b = gen.random(cl.size) < stats.norm.cdf(0.8 - diff)
    return np.column_stack([a, b]).astype(float), cl


def main_ec(r: int = 200) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(0)
    print("| clusters × questions | cluster SD | interval | coverage, items resampled | coverage, clusters resampled |")
    print("|---|---|---|---|---|")
    for n_clusters, size, sd in ((30, 10, 1.0), (15, 20, 1.0), (100, 5, 0.5)):
        big, _ = pair(gen, 200_000 // size, size, sd)
        true = tw.error_consistency(big[:, 0].astype(bool), big[:, 1].astype(bool), ci_method="analytic").statistic
        data = [pair(gen, n_clusters, size, sd) for _ in range(r)]
        for method in ("jeffreys", "bca", "percentile"):
            cover: dict[str, list[bool]] = {"items": [], "clusters": []}
            for k, (x, cl) in enumerate(data):
                for kind, c in (("items", None), ("clusters", cl)):
                    res = tw.pairwise_error_consistency(x, clusters=c, ci_method=method, n_resamples=1000, rng=k)
                    cover[kind].append(bool(res.confidence_interval.low[0] <= true <= res.confidence_interval.high[0]))
            print(f"| {n_clusters} × {size} | {sd:g} | {method} | {np.mean(cover['items']):.3f} | "
                  f"{np.mean(cover['clusters']):.3f} |", flush=True)


if __name__ == "__main__":
    if sys.argv[2:3] == ["ec"]:
        main_ec(int(sys.argv[1]))
    else:
        main(*(int(a) for a in sys.argv[1:2]))
