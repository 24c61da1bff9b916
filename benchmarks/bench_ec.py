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

    python benchmarks/bench_ec.py --memory [--large-resamples 1000]

(c) memory in the number of pairs (issue 17, goal 2): the default call (Jeffreys interval,
    Fisher test) on 200 observers × 1,000 items with B = 10,000, and on 1,000 observers ×
    2,000 items (499,500 pairs) with B = ``--large-resamples``; 10 % of cells missing. Each
    case runs in a fresh process and reports its peak RSS (``resource.getrusage``), the
    engine before pair blocks (``old_pairwise`` below: one bootstrap over the items × 4·pairs
    column matrix, B × pairs replicates held) next to it in the same run where it fits.

    python benchmarks/bench_ec.py --overhead

(d) the whole default call against its engine (issue 17, goal 3: ratio ≤ 1.5): the default
    ``pairwise_error_consistency`` (Jeffreys interval, Fisher test) on 60 observers × 1,000
    items with B = 10,000 and on 200 observers × 1,000 items with B = 1,000 (10 % missing).
    The engine time is the time spent inside ``trialwise.resampling.bootstrap_sums`` during
    that same call (replicate weights, matrix product, tables, Jeffreys pseudo-counts, κ),
    timed by wrapping it; the rest is the overhead (intervals, tests, notes). Next to it, in
    the same run, the per-pair ``scipy.stats.fisher_exact`` loop the call used before
    against the vectorised test on the same tables.

    python benchmarks/bench_ec.py --fisher-large

(d') Fisher's test on the 499,500 tables of 1,000 observers × 2,000 items: vectorised, against
    the per-pair scipy loop timed on every 250th table and extrapolated.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
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


def observers_with_missing(n_obs: int, n_items: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.random(n_items) < 0.7
    copy = rng.uniform(0.1, 0.6, n_obs)
    acc = rng.uniform(0.5, 0.9, n_obs)
    x = np.where(rng.random((n_items, n_obs)) < copy, base[:, None], rng.random((n_items, n_obs)) < acc).astype(float)
    x[rng.random(x.shape) < 0.10] = np.nan
    return x


def old_pairwise(x: np.ndarray, n_resamples: int, rng: int):
    """The default pairwise call before pair blocks (kept here only to measure against)."""
    from trialwise.ec import JEFFREYS_PRIOR, _infer, check_options
    from trialwise.kappa import kappa_kernel
    from trialwise.resampling import child_seed, keyed_rng
    from trialwise.tables import pairwise_tables

    opts = check_options(0.95, "jeffreys", "fisher", n_resamples, False, rng)
    right, seen, _ = _correctness_matrix(x, None)
    idx = np.array([(i, j) for i in range(x.shape[1]) for j in range(i + 1, x.shape[1])])
    counts = pairwise_tables(right, seen, idx)
    cols, to_tables = _pair_columns(right, seen, idx, fixed_total=False)
    pseudo = keyed_rng(child_seed(opts.rng, bits=64))

    def statistic(sums):
        tables = to_tables(sums)
        return kappa_kernel(tables + pseudo.standard_gamma(JEFFREYS_PRIOR, size=tables.shape))

    dist = bootstrap_sums(cols, n_resamples, statistic=statistic, rng=opts.rng, kind="bayesian")
    return _infer(counts, dist, opts)


def memory_case(which: str, n_obs: int, n_items: int, n_resamples: int) -> None:
    """One case of (c), in this process: prints a JSON line with seconds and peak RSS."""
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    x = observers_with_missing(n_obs, n_items)
    t0 = time.perf_counter()
    if which == "old":
        out = old_pairwise(x, n_resamples, 7)
        low = out["low"]
    else:
        res = tw.pairwise_error_consistency(x, n_resamples=n_resamples, rng=7)
        low = res.confidence_interval.low
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux -> GiB
    print(json.dumps(dict(which=which, observers=n_obs, items=n_items, B=n_resamples, pairs=len(low),
                          seconds=seconds, peak_rss_gib=rss, mean_low=float(np.nanmean(low)))))


def memory_section(large_resamples: int) -> None:
    print(f"\n(c) memory bounded in the number of pairs; uptime: {os.popen('uptime').read().strip()}")
    runs = [("new", 200, 1000, 10_000), ("old", 200, 1000, 10_000), ("new", 1000, 2000, large_resamples)]
    found: dict = {}
    for which, n_obs, n_items, b in runs:
        cmd = [sys.executable, __file__, "--case", which, str(n_obs), str(n_items), str(b)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"    {which} {n_obs} × {n_items}, B = {b}: failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        found[(which, n_obs)] = r
        print(f"    {which:3} {n_obs:5} observers × {n_items} items ({r['pairs']:,} pairs), B = {b:,}: "
              f"{r['seconds']:7.1f} s, peak RSS {r['peak_rss_gib']:5.2f} GiB, mean CI low {r['mean_low']:.6f}")
    if ("new", 200) in found and ("old", 200) in found:
        n, o = found[("new", 200)], found[("old", 200)]
        print(f"    200 observers: time new/old {n['seconds'] / o['seconds']:.2f}, "
              f"peak RSS new/old {n['peak_rss_gib'] / o['peak_rss_gib']:.2f}")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def overhead_section() -> None:
    """(d): whole default call / engine time inside it, and the Fisher tests before/after."""
    import trialwise.ec as ec
    from scipy import stats

    from trialwise.significance import fisher_exact_pvalues

    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    print(f"\n(d) whole default call vs its engine; uptime: {os.popen('uptime').read().strip()}")
    engine = ec.bootstrap_sums
    spent = [0.0]

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return engine(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0

    for n_obs, n_items, b in [(60, 1000, 10_000), (200, 1000, 1000)]:
        x = observers_with_missing(n_obs, n_items)
        tw.pairwise_error_consistency(x[:, :5], n_resamples=100, rng=0)  # warm-up
        spent[0] = 0.0
        ec.bootstrap_sums = timed
        try:
            t0 = time.perf_counter()
            res = tw.pairwise_error_consistency(x, n_resamples=b, rng=7)
            whole = time.perf_counter() - t0
        finally:
            ec.bootstrap_sums = engine
        t0 = time.perf_counter()
        p_vec = fisher_exact_pvalues(res.counts)
        t_vec = time.perf_counter() - t0
        t0 = time.perf_counter()
        p_loop = np.array([stats.fisher_exact(t).pvalue for t in res.counts])
        t_loop = time.perf_counter() - t0
        print(f"    {n_obs} observers × {n_items} items ({len(res.counts):,} pairs), B = {b:,}: whole call "
              f"{whole:6.2f} s, engine {spent[0]:6.2f} s, ratio {whole / spent[0]:.2f} (target ≤ 1.5); "
              f"overhead {whole - spent[0]:.2f} s")
        print(f"        Fisher on the same tables: per-pair scipy loop {t_loop:6.2f} s, vectorised {t_vec:5.2f} s "
              f"({t_loop / t_vec:.0f}×), max |Δp| {np.nanmax(np.abs(p_vec - p_loop)):.1e}")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def fisher_large() -> None:
    """(d'): Fisher's test on the 499,500 tables of 1,000 observers × 2,000 items (10 % missing):
    vectorised on all of them; the per-pair scipy loop on every 250th table, extrapolated."""
    from scipy import stats

    from trialwise.significance import fisher_exact_pvalues
    from trialwise.tables import pairwise_tables

    print(f"\n(d') Fisher's test on all pairs of 1,000 observers; uptime: {os.popen('uptime').read().strip()}")
    right, seen, _ = _correctness_matrix(observers_with_missing(1000, 2000), None)
    idx = np.array([(i, j) for i in range(1000) for j in range(i + 1, 1000)])
    tables = np.concatenate([pairwise_tables(right, seen, idx[s:s + 20_000]) for s in range(0, len(idx), 20_000)])
    t0 = time.perf_counter()
    p = fisher_exact_pvalues(tables)
    t_vec = time.perf_counter() - t0
    sub = tables[::250]
    t0 = time.perf_counter()
    ref = np.array([stats.fisher_exact(t).pvalue for t in sub])
    t_loop = (time.perf_counter() - t0) * len(tables) / len(sub)
    print(f"    {len(tables):,} tables: vectorised {t_vec:.1f} s; per-pair scipy loop {t_loop:.0f} s (extrapolated "
          f"from {len(sub):,} tables), ratio {t_loop / t_vec:.0f}×; max |Δp| {np.max(np.abs(p[::250] - ref)):.1e}")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--naive-replicates", type=int, default=50)
    ap.add_argument("--memory", action="store_true", help="run only (c), the memory cases")
    ap.add_argument("--overhead", action="store_true", help="run only (d), whole call vs engine")
    ap.add_argument("--fisher-large", action="store_true", help="run only (d'), Fisher on 499,500 tables")
    ap.add_argument("--large-resamples", type=int, default=1000)
    ap.add_argument("--case", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        which, n_obs, n_items, b = args.case
        memory_case(which, int(n_obs), int(n_items), int(b))
        return
    if args.fisher_large:
        fisher_large()
        return
    if args.overhead:
        overhead_section()
        return
    if args.memory:
        memory_section(args.large_resamples)
        return
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
