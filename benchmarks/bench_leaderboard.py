"""Speed and memory of a full benchmark analysis against a brute-force loop, in one run.

    python benchmarks/bench_leaderboard.py [--resamples 10000] [--naive-replicates 5]

The job: the bundled model-vs-human data (17 experiments, all humans, the 21 models that
cover every experiment; 46 conditions, 4,738 pair values), B joint hierarchical bootstrap
replicates, every level recomputed, ranks, rank intervals, P(best), Kendall's τ, the
per-experiment breakdown and swap tests (M = B swaps) for all 210 pairs of models.

Baseline: the brute-force loop a user would write — per replicate, resample item indices
within each condition, compute every pair's κ in numpy on the resampled vectors and
average through the hierarchy. It runs for ``--naive-replicates`` replicates and is
extrapolated linearly to B (its cost is linear in B). The swap tests' baseline (per
permutation, swap two models' responses item by item and recompute their scores) is
timed the same way on one pair and extrapolated to 210 pairs × M.

Peak memory is the process's peak resident set size (``resource.getrusage``), which
includes the data and the interpreter.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

import numpy as np

import trialwise as tw


def naive_kappa(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = a.mean(), b.mean()
    c_obs = np.mean(a == b)
    c_exp = pa * pb + (1 - pa) * (1 - pb)
    return (c_obs - c_exp) / (1 - c_exp) if c_exp < 1 else np.nan


def _units(trials, protocol):
    out = []
    for (e, c), g in trials.groupby(["experiment", "condition"], sort=True):
        if c in protocol.exclude.get(e, ()):
            continue
        wide = g.pivot(index="image", columns="subject", values="correct")
        out.append((e, wide))
    return out


def naive_replicate(units, models, rng) -> np.ndarray:
    per_exp: dict[str, list] = {}
    for e, wide in units:
        idx = rng.integers(0, len(wide), len(wide))
        w = wide.to_numpy(bool)[idx]
        cols = list(wide.columns)
        humans = [k for k, s in enumerate(cols) if s.startswith("subject-")]
        row = [np.nanmean([naive_kappa(w[:, cols.index(m)], w[:, h]) for h in humans]) for m in models]
        per_exp.setdefault(e, []).append(row)
    return np.mean([np.mean(v, axis=0) for v in per_exp.values()], axis=0)


def naive_swap(units, x, y, rng) -> float:
    per_exp: dict[str, list] = {}
    for e, wide in units:
        cols = list(wide.columns)
        w = wide.to_numpy(bool)
        s = rng.random(len(w)) < 0.5
        xs = np.where(s, w[:, cols.index(y)], w[:, cols.index(x)])
        ys = np.where(s, w[:, cols.index(x)], w[:, cols.index(y)])
        humans = [k for k, c in enumerate(cols) if c.startswith("subject-")]
        per_exp.setdefault(e, []).append(np.mean([naive_kappa(xs, w[:, h]) - naive_kappa(ys, w[:, h])
                                                  for h in humans]))
    return float(np.mean([np.mean(v) for v in per_exp.values()]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--naive-replicates", type=int, default=5)
    args = ap.parse_args()
    b = args.resamples
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, B = {b}")
    trials = tw.read_trials(tw.datasets.model_vs_human())

    t0 = time.perf_counter()
    lb = tw.leaderboard(trials, n_resamples=b, rng=0)
    t_boot = time.perf_counter() - t0
    t0 = time.perf_counter()
    lb.by_experiment()
    t_exp = time.perf_counter() - t0
    t0 = time.perf_counter()
    pw = lb.pairwise(which="all", test="swap", adjust="holm")
    t_swap = time.perf_counter() - t0
    total = t_boot + t_exp + t_swap
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"trialwise: leaderboard (bootstrap, ranks, tau) {t_boot:.1f} s; by_experiment {t_exp:.1f} s; "
          f"{len(pw)} swap tests (M = {b}) {t_swap:.1f} s; total {total:.1f} s; peak RSS {peak:.0f} MiB")

    units = _units(trials, tw.MODEL_VS_HUMAN)
    models = list(lb.candidates)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    for _ in range(args.naive_replicates):
        naive_replicate(units, models, rng)
    per_rep = (time.perf_counter() - t0) / args.naive_replicates
    t0 = time.perf_counter()
    for _ in range(args.naive_replicates):
        naive_swap(units, models[0], models[1], rng)
    per_swap = (time.perf_counter() - t0) / args.naive_replicates
    naive_boot = per_rep * b
    naive_tests = per_swap * b * len(pw)
    print(f"brute force: {per_rep * 1e3:.0f} ms per bootstrap replicate -> {naive_boot / 60:.1f} min for B = {b} "
          f"(ratio {naive_boot / t_boot:.0f}x); {per_swap * 1e3:.0f} ms per swap of one pair -> "
          f"{naive_tests / 3600:.1f} h for {len(pw)} pairs x {b} (ratio {naive_tests / t_swap:.0f}x); "
          f"whole job ratio {(naive_boot + naive_tests) / total:.0f}x")


if __name__ == "__main__":
    main()
