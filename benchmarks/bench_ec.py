"""Speed and memory of the error-consistency bootstrap against a naive baseline.

    python benchmarks/bench_ec.py [--resamples 10000] [--naive-replicates 50]

(a) one pair, n = 1,000 items, B replicates: the 4-cell multinomial bootstrap of
    ``error_consistency`` vs index resampling with κ recomputed in numpy per replicate
    (the baseline runs in full).
(b) all 1,770 pairs of 60 observers × 1,000 items with 10 % of cells missing, B
    replicates, jointly resampled: ``pairwise_error_consistency`` (and the bootstrap
    engine alone) vs the same naive loop — index resampling, then per pair the items both
    saw and κ in numpy. The naive baseline runs on all pairs for ``--naive-replicates``
    replicates and is extrapolated linearly to B (its cost is linear in B).

Peak memory is measured with tracemalloc (numpy reports its allocations to it).
Both are measured in the same run, on this machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
import warnings

import numpy as np

import trialwise as tw
from trialwise.ec import _pair_columns, _correctness_matrix
from trialwise.kappa import kappa_from_counts
from trialwise.resampling import bootstrap_sums


def naive_kappa(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = a.mean(), b.mean()
    c_obs = np.mean(a == b)
    c_exp = pa * pb + (1 - pa) * (1 - pb)
    return (c_obs - c_exp) / (1 - c_exp) if c_exp < 1 else np.nan


def naive_single(a, b, n_resamples, rng):
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, a.size, a.size)
        out[r] = naive_kappa(a[idx], b[idx])
    return out


def naive_pairwise(x, pairs, n_resamples, rng):
    out = np.empty((n_resamples, len(pairs)))
    for r in range(n_resamples):
        xs = x[rng.integers(0, x.shape[0], x.shape[0])]
        for p, (i, j) in enumerate(pairs):
            keep = ~np.isnan(xs[:, i]) & ~np.isnan(xs[:, j])
            out[r, p] = naive_kappa(xs[keep, i], xs[keep, j])
    return out


def measure(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--naive-replicates", type=int, default=50)
    args = ap.parse_args()
    B = args.resamples
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}")
    rng = np.random.default_rng(0)

    # (a) one pair
    n = 1000
    a = rng.random(n) < 0.75
    b = np.where(rng.random(n) < 0.4, a, rng.random(n) < 0.7)
    tw.error_consistency(a, b, n_resamples=100, rng=0)  # warm-up
    res, t_fast, mem_fast = measure(lambda: tw.error_consistency(a, b, n_resamples=B, rng=1))
    _, t_naive, mem_naive = measure(lambda: naive_single(a, b, B, np.random.default_rng(2)))
    print(f"\n(a) one pair, n = {n}, B = {B}")
    print(f"    error_consistency (BCa + Fisher): {t_fast:8.3f} s   peak {mem_fast:7.1f} MiB")
    print(f"    naive index bootstrap           : {t_naive:8.3f} s   peak {mem_naive:7.1f} MiB")
    print(f"    speed-up                        : {t_naive / t_fast:8.0f} x")

    # (b) 60 observers × 1000 items, 10 % missing
    n_obs, n_items = 60, 1000
    base = rng.random(n_items) < 0.7
    x = np.empty((n_items, n_obs))
    for j in range(n_obs):
        x[:, j] = np.where(rng.random(n_items) < rng.uniform(0.1, 0.6), base, rng.random(n_items) < rng.uniform(0.5, 0.9))
    x[rng.random(x.shape) < 0.10] = np.nan
    pairs = [(i, j) for i in range(n_obs) for j in range(i + 1, n_obs)]
    print(f"\n(b) {len(pairs)} pairs of {n_obs} observers × {n_items} items, 10 % missing, B = {B}, joint resampling")

    right, seen, _ = _correctness_matrix(x, None)
    cols, to_tables = _pair_columns(right, seen, np.array(pairs))
    _, t_engine, mem_engine = measure(
        lambda: bootstrap_sums(cols, B, statistic=lambda s: kappa_from_counts(to_tables(s)), rng=3)
    )
    print(f"    bootstrap engine alone          : {t_engine:8.2f} s   peak {mem_engine:7.1f} MiB"
          f"   ({len(pairs) * B / t_engine:,.0f} pair-replicates/s)")
    res, t_full, mem_full = measure(lambda: tw.pairwise_error_consistency(x, n_resamples=B, rng=3))
    print(f"    pairwise_error_consistency      : {t_full:8.2f} s   peak {mem_full:7.1f} MiB   (BCa + Fisher for every pair)")

    m = args.naive_replicates
    _, t_sub, mem_sub = measure(lambda: naive_pairwise(x, pairs, m, np.random.default_rng(4)))
    t_naive_b = t_sub * B / m
    print(f"    naive, all pairs, {m} replicates : {t_sub:8.2f} s   peak {mem_sub:7.1f} MiB"
          f"   ({len(pairs) * m / t_sub:,.0f} pair-replicates/s)")
    print(f"    naive extrapolated to B = {B}: {t_naive_b:8.0f} s")
    print(f"    speed-up (engine)               : {t_naive_b / t_engine:8.0f} x")
    print(f"    speed-up (whole call)           : {t_naive_b / t_full:8.0f} x")


if __name__ == "__main__":
    main()
