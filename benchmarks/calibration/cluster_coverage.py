"""Coverage of leaderboard intervals when items come in clusters: resampling items vs clusters.

Accuracy leaderboards (``protocol="accuracy"``) of four models on one condition of
``n_clusters`` clusters × ``size`` questions; a question's difficulty is a cluster effect
(SD ``sd_cluster``) plus its own (SD 1), and a model with ability a answers right with
probability Φ(a − difficulty), so its true accuracy is Φ(a / √(2 + sd_cluster²)). R boards per
design, B = 500, 95 % studentized intervals, with and without ``clusters="cluster"``.

    python benchmarks/calibration/cluster_coverage.py [R=300]
    python benchmarks/calibration/cluster_coverage.py 300 ec        # error consistency (pairwise_error_consistency)
    python benchmarks/calibration/cluster_coverage.py 1000 ec-null  # its test of EC = 0 under clustering
    python benchmarks/calibration/cluster_coverage.py 300 capa      # CAPA (tw.agreement)

With ``ec``: two models (abilities 0.6 and 0.8) on the same clustered questions; the population
EC from 200,000 questions; 95 % intervals of ``pairwise_error_consistency`` over items (Jeffreys)
and over clusters (jeffreys, percentile, bca, and the default jackknife-t), B = 1,000.
``ec-null``: each model's errors clustered on its own, the two independent (EC = 0); the share
of p < 0.05. ``capa``: two models' option probabilities on clustered questions (see
``capa_pair``), the population CAPA from 400,000 questions.
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


def pair(gen: np.random.Generator, n_clusters: int, size: int, sd: float, shared: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Correctness of two models on clustered questions; ``shared=False``: each model its own cluster
    and question effects (independent models, EC = 0, but each clustered)."""
    cl = np.repeat(np.arange(n_clusters), size)
    diff = gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    other = diff if shared else gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    a = gen.random(cl.size) < stats.norm.cdf(0.6 - diff)
    b = gen.random(cl.size) < stats.norm.cdf(0.8 - other)
    return np.column_stack([a, b]).astype(float), cl


EC_DESIGNS = ((10, 30, 1.0), (15, 20, 1.0), (30, 10, 1.0), (15, 20, 0.3), (50, 10, 0.5), (100, 5, 0.5))


def main_ec(r: int = 200) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(0)
    print("| clusters × questions | cluster SD | items: jeffreys | clusters: jeffreys | clusters: percentile | "
          "clusters: bca | clusters: jackknife-t (default) |")
    print("|---|---|---|---|---|---|---|")
    for n_clusters, size, sd in EC_DESIGNS:
        big, _ = pair(gen, 200_000 // size, size, sd)
        true = tw.error_consistency(big[:, 0].astype(bool), big[:, 1].astype(bool), ci_method="analytic").statistic
        data = [pair(gen, n_clusters, size, sd) for _ in range(r)]
        row = []
        for kind, method in (("items", "jeffreys"), ("clusters", "jeffreys"), ("clusters", "percentile"),
                             ("clusters", "bca"), ("clusters", "jackknife-t")):
            hit = [bool(lo <= true <= hi) for lo, hi in (
                (res.confidence_interval.low[0], res.confidence_interval.high[0]) for res in (
                    tw.pairwise_error_consistency(x, clusters=None if kind == "items" else cl, ci_method=method,
                                                  n_resamples=1000, rng=k) for k, (x, cl) in enumerate(data)))]
            row.append(f"{np.mean(hit):.3f}")
        print(f"| {n_clusters} × {size} | {sd:g} | " + " | ".join(row) + " |", flush=True)


def main_ec_null(r: int = 1000) -> None:
    """Type-I error at α = 0.05 of the test of EC = 0 when each model's errors are clustered but the
    two models are independent: the item-level Fisher test, the cluster bootstrap, the cluster jackknife t."""
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(1)
    print("| clusters × questions | cluster SD | items: fisher | clusters: bootstrap (percentile) | "
          "clusters: jackknife-t (default) |")
    print("|---|---|---|---|---|")
    for n_clusters, size, sd in ((10, 30, 1.0), (15, 20, 1.0), (30, 10, 1.0), (100, 5, 0.5)):
        data = [pair(gen, n_clusters, size, sd, shared=False) for _ in range(r)]
        row = []
        for kind, method in (("items", "jeffreys"), ("clusters", "percentile"), ("clusters", "jackknife-t")):
            p = [tw.pairwise_error_consistency(x, clusters=None if kind == "items" else cl, ci_method=method,
                                               n_resamples=400, rng=k).pvalue[0] for k, (x, cl) in enumerate(data)]
            row.append(f"{np.mean(np.asarray(p) < 0.05):.3f}")
        print(f"| {n_clusters} × {size} | {sd:g} | " + " | ".join(row) + " |", flush=True)


def capa_pair(gen: np.random.Generator, n_clusters: int, size: int, sd: float, k: int = 4) -> tuple:
    """Option probabilities of two models on clustered questions: a question's difficulty (cluster
    effect, SD ``sd``, plus its own) lowers both models' logit of the correct option, and a shared
    preference among the wrong options makes them agree beyond chance."""
    cl = np.repeat(np.arange(n_clusters), size)
    n = cl.size
    truth = gen.integers(0, k, n)
    diff = gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, n)
    lure = gen.normal(0, 1, (n, k))
    out = []
    for ability in (1.0, 1.6):
        z = 0.8 * lure + 0.6 * gen.normal(0, 1, (n, k))
        z[np.arange(n), truth] += ability - diff
        p = np.exp(z - z.max(1, keepdims=True))
        out.append(p / p.sum(1, keepdims=True))
    return out[0], out[1], truth, cl


def main_capa(r: int = 300) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    gen = np.random.default_rng(2)
    print("| clusters × questions | cluster SD | questions: percentile | clusters: percentile | clusters: bca | "
          "clusters: jackknife-t (default) |")
    print("|---|---|---|---|---|---|")
    for n_clusters, size, sd in ((10, 30, 1.0), (15, 20, 1.0), (30, 10, 1.0), (100, 5, 0.5)):
        a, b, t, _ = capa_pair(gen, 400_000 // size, size, sd)
        true = tw.agreement(a, b, t, n_resamples=0).statistic
        data = [capa_pair(gen, n_clusters, size, sd) for _ in range(r)]
        row = []
        for kind, method in (("items", "percentile"), ("clusters", "percentile"), ("clusters", "bca"),
                             ("clusters", "jackknife-t")):
            hit = []
            for k, (a, b, t, cl) in enumerate(data):
                ci = tw.agreement(a, b, t, clusters=None if kind == "items" else cl, ci_method=method,
                                  n_resamples=1000, rng=k).confidence_interval
                hit.append(bool(ci.low <= true <= ci.high))
            row.append(f"{np.mean(hit):.3f}")
        print(f"| {n_clusters} × {size} | {sd:g} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    if sys.argv[2:3] == ["ec"]:
        main_ec(int(sys.argv[1]))
    elif sys.argv[2:3] == ["ec-null"]:
        main_ec_null(int(sys.argv[1]))
    elif sys.argv[2:3] == ["capa"]:
        main_capa(int(sys.argv[1]))
    else:
        main(*(int(a) for a in sys.argv[1:2]))
