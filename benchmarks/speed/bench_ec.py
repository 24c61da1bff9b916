"""Speed and memory of the error-consistency bootstrap against vectorised and naive baselines.

    python benchmarks/speed/bench_ec.py [--resamples 10000] [--naive-replicates 50]

(a) one pair, n = 1,000 items, B replicates: the 4-cell multinomial bootstrap of
    ``error_consistency`` vs index resampling with κ recomputed in numpy per replicate
    (the baseline runs in full).
(b) all 1,770 pairs of 60 observers × 1,000 items with 10 % of cells missing, B
    replicates, jointly resampled: ``pairwise_error_consistency`` with its default
    (Jeffreys interval, Fisher test) and with BCa + Fisher, each with the time spent inside
    its bootstrap engine during the call, vs the vectorised numpy baseline of (g) (float64 and
    float32, one run each: the headline ratio; (g) measures it properly) and, as a footnote, the
    naive loop — index resampling, then per pair the items both
    saw and κ in numpy. The naive baseline runs on all pairs for ``--naive-replicates``
    replicates and is extrapolated linearly to B (its cost is linear in B).

Peak memory is measured with tracemalloc (numpy reports its allocations to it).
Both are measured in the same run, on this machine.

    python benchmarks/speed/bench_ec.py --memory [--large-resamples 1000]

(c) memory in the number of pairs (issue 17, goal 2): the default call (Jeffreys interval,
    Fisher test) on 200 observers × 1,000 items with B = 10,000, and on 1,000 observers ×
    2,000 items (499,500 pairs) with B = ``--large-resamples``; 10 % of cells missing. Each
    case runs in a fresh process and reports its peak RSS (``resource.getrusage``), the
    engine before pair blocks (``old_pairwise`` below: one bootstrap over the items × 4·pairs
    column matrix, B × pairs replicates held) next to it in the same run where it fits.

    python benchmarks/speed/bench_ec.py --overhead [--repeats 3]

(d) the whole default call against its engine (issue 17, goal 3: ratio ≤ 1.5): the default
    ``pairwise_error_consistency`` (Jeffreys interval, Fisher test) on 60 observers × 1,000
    items with B = 10,000 and on 200 observers × 1,000 items with B = 1,000 (10 % missing).
    The engine time is the time spent inside ``trialwise._stats.resampling.bootstrap_sums`` during
    that same call (replicate weights, matrix product, tables, Jeffreys pseudo-counts, κ),
    timed by wrapping it; the rest is the overhead (intervals, tests, notes). Next to it, in
    the same run, the per-pair ``scipy.stats.fisher_exact`` loop the call used before
    against the vectorised test on the same tables.

    python benchmarks/speed/bench_ec.py --fisher-large

(d') Fisher's test on the 499,500 tables of 1,000 observers × 2,000 items: vectorised, against
    the per-pair scipy loop timed on every 250th table and extrapolated.

    python benchmarks/speed/bench_ec.py --engine [--repeats 3]

(e) the engine against the GEMM bound (issue 17, goal 1): this machine's float32 and float64
    GEMM rate at the engine's own chunk shapes (replicates per chunk × items) @ (items × 4·pairs
    of a block), then the engine time — the time inside ``trialwise._stats.resampling.bootstrap_sums``
    during ``pairwise_error_consistency`` (replicate weights, product, casts, tables, Jeffreys
    pseudo-counts, κ) — on the multinomial (``ci_method="percentile"``) and the Jeffreys path,
    for 60 observers × 1,000 items (10 % missing, B = 10,000) and 200 × 1,000 (B = 1,000),
    seed 7. The GEMM-bound time is 2·B·items·columns flops at the float32 rate measured at
    those shapes (the product the problem needs, over the real items; measured again right
    before every run, since the machine is shared); the fraction is bound / engine, run by run,
    and the same in CPU seconds of the process (the GEMM's over the engine's, all threads: steadier
    when other jobs share the cores). Medians of ``--repeats`` runs; ``uptime`` before and after.
    The profile splits the engine into weights, pseudo-counts, tables and κ (timed by wrapping
    those functions) and the product with its casts (the rest).

    python benchmarks/speed/bench_ec.py --kappa [--repeats 3]

(f) κ of the sums (``trialwise._stats.kappa.kappa_from_sums``) on one thread, CPU ns per pair-replicate,
    on float32 sums of the engine's grid: without the Jeffreys virtual items, with their part as
    products per pair (the engine before) and as their Walsh–Hadamard transform gathered in κ's
    slices, added in float64 (before) or in float32, and in the engine's layout now: sums
    (pairs × replicates), the parts gathered by whole rows (``pairs_first``); all give the same
    bits (checked).

    python benchmarks/speed/bench_ec.py --baseline [--repeats 3]

(g) the honest baseline of the pairwise call (issue 33, goal 2b): a vectorised all-pairs numpy
    bootstrap a competent user would write (:func:`vectorised_pairwise`): per chunk of replicates,
    multinomial weights (chunk × items, one ``integers`` draw and one ``bincount``) and ONE GEMM
    against the items × 4·pairs product columns (seen by both, A right, B right, both right), κ of
    every pair-replicate vectorised, and the percentile interval from one sort — in float64 (what
    most users would write) and in float32 (exact here: counts below 2**24). Its point values are
    checked against ``tw.pairwise_error_consistency``'s (≤ 1e-12). Timed in the same run, interleaved
    rounds, medians, CPU and wall, with one BLAS thread (``threadpoolctl``) and with all threads,
    on 60 observers × 1,000 items (B = 10,000) and 200 × 1,000 (B = 1,000), 10 % missing, against the
    default call (Jeffreys interval, Fisher test) and the multinomial one (``ci_method="percentile"``,
    the same resampling as the baseline). The old per-replicate-per-pair Python loop of (b) is
    extrapolated from a few replicates as a footnote.
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
from trialwise.ec.blocks import _pair_columns
from trialwise.ec.pairwise import _correctness_matrix
from trialwise._stats.resampling import bootstrap_sums


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
    from trialwise._stats.resampling import JEFFREYS_PRIOR
    from trialwise.ec.inference import infer, check_options
    from trialwise._stats.kappa import kappa_kernel
    from trialwise._stats.streams import child_seed, keyed_rng
    from trialwise._stats.tables import pairwise_tables

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
    return infer(counts, dist, opts)


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


def call_with_engine_time(x, **kwargs):
    """``pairwise_error_consistency(x, **kwargs)``, its wall time and the time spent inside its
    engine (``trialwise._stats.resampling.bootstrap_sums``: weights, product, κ of every pair-replicate)."""
    import trialwise.ec.blocks as ec

    engine = ec.bootstrap_sums
    spent = [0.0]

    def timed(*args, **kw):
        t0 = time.perf_counter()
        try:
            return engine(*args, **kw)
        finally:
            spent[0] += time.perf_counter() - t0

    ec.bootstrap_sums = timed
    try:
        t0 = time.perf_counter()
        res = tw.pairwise_error_consistency(x, **kwargs)
        whole = time.perf_counter() - t0
    finally:
        ec.bootstrap_sums = engine
    return res, whole, spent[0]


def overhead_section(repeats: int = 1) -> None:
    """(d): whole default call / engine time inside it (median ratio of ``repeats`` calls), and the Fisher
    tests before/after."""
    import trialwise.ec.blocks as ec
    from scipy import stats

    from trialwise._stats.significance import fisher_exact_pvalues

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
        runs = []
        for _ in range(repeats):
            spent[0] = 0.0
            ec.bootstrap_sums = timed
            try:
                t0 = time.perf_counter()
                res = tw.pairwise_error_consistency(x, n_resamples=b, rng=7)
                runs.append((time.perf_counter() - t0, spent[0]))
            finally:
                ec.bootstrap_sums = engine
        ratios = [w / e for w, e in runs]
        whole, spent[0] = (float(np.median([r[k] for r in runs])) for k in (0, 1))
        t0 = time.perf_counter()
        p_vec = fisher_exact_pvalues(res.counts)
        t_vec = time.perf_counter() - t0
        t0 = time.perf_counter()
        p_loop = np.array([stats.fisher_exact(t).pvalue for t in res.counts])
        t_loop = time.perf_counter() - t0
        print(f"    {n_obs} observers × {n_items} items ({len(res.counts):,} pairs), B = {b:,}: whole call "
              f"{whole:6.2f} s, engine {spent[0]:6.2f} s (medians), ratio {float(np.median(ratios)):.2f} (target ≤ 1.5; "
              f"runs {', '.join(format(r, '.2f') for r in ratios)}); overhead {whole - spent[0]:.2f} s")
        print(f"        Fisher on the same tables: per-pair scipy loop {t_loop:6.2f} s, vectorised {t_vec:5.2f} s "
              f"({t_loop / t_vec:.0f}×), max |Δp| {np.nanmax(np.abs(p_vec - p_loop)):.1e}")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


class _Timers:
    """Wraps named functions of the engine's modules and adds up the seconds spent in each category."""

    def __init__(self) -> None:
        import trialwise.ec.blocks as ec
        import trialwise._stats.resampling as rs

        self.seconds: dict[str, float] = {}
        self.undo: list = []
        # (category, module, name, how): "call" times each call, "gen" each next() of a generator,
        # "factory" each call of the function the factory returns
        for cat, mod, name, how in [("weights", rs, "bootstrap_weights", "gen"),
                                    ("weights", rs, "_prior_weights", "call"),
                                    ("casts", rs, "_on_exact_grid", "call"),
                                    ("virtual items", ec, "_walsh_hadamard", "call"),
                                    ("pseudo-counts", ec, "_jeffreys_pseudo_counts", "factory"),
                                    ("tables", ec, "tables_from_sums", "call"),
                                    ("kappa", ec, "kappa_kernel", "call"),
                                    ("kappa", ec, "kappa_from_sums", "call")]:
            if hasattr(mod, name):
                orig = getattr(mod, name)
                self.undo.append((mod, name, orig))
                setattr(mod, name, getattr(self, "_" + how)(cat, orig))

    def _add(self, cat: str, t0: float) -> None:
        self.seconds[cat] = self.seconds.get(cat, 0.0) + time.perf_counter() - t0

    def _call(self, cat, fn):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self._add(cat, t0)
        return timed

    def _gen(self, cat, fn):
        def timed(*a, **k):
            it = fn(*a, **k)
            while True:
                t0 = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    return
                finally:
                    self._add(cat, t0)
                yield item
        return timed

    def _factory(self, cat, fn):
        def make(*a, **k):
            return self._call(cat, fn(*a, **k))
        return make

    def restore(self) -> None:
        for mod, name, orig in self.undo:
            setattr(mod, name, orig)


def gemm_rate(rows: int, inner: int, cols: int, dtype, repeats: int = 3, cpu: bool = False):
    """Flops per second of ``(rows × inner) @ (inner × cols)`` in ``dtype`` on this machine (median);
    with ``cpu``, also flops per CPU second of the process (all BLAS threads): ``(wall rate, cpu rate)``."""
    g = np.random.default_rng(0)
    a = g.random((rows, inner)).astype(dtype)
    x = (g.random((inner, cols)) < 0.5).astype(dtype)
    a @ x  # warm-up
    times, cpus = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        a @ x
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    flops = 2.0 * rows * inner * cols
    rate = flops / float(np.median(times))
    return (rate, flops / max(float(np.median(cpus)), 1e-9)) if cpu else rate


def engine_run(x: np.ndarray, b: int, method: str) -> dict:
    """One default-style call; returns the engine seconds, its profile and the product shapes."""
    import trialwise.ec.blocks as ec

    engine = ec.bootstrap_sums
    calls: list = []
    spent = [0.0, 0.0]

    def timed(columns, n_resamples, **kwargs):
        w = kwargs.get("weights")
        calls.append((np.shape(columns)[1], n_resamples, w._args["batch"] if w is not None else None))
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            return engine(columns, n_resamples, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0
            spent[1] += time.process_time() - c0

    timers = _Timers()
    ec.bootstrap_sums = timed
    try:
        res = tw.pairwise_error_consistency(x, n_resamples=b, rng=7, ci_method=method)
    finally:
        ec.bootstrap_sums = engine
        timers.restore()
    return dict(engine=spent[0], engine_cpu=spent[1], profile=timers.seconds, calls=calls,
                low=res.confidence_interval.low)


def engine_section(repeats: int) -> None:
    """(e): the engine's fraction of the GEMM-bound time, multinomial and Jeffreys paths.

    The machine is shared, so the GEMM rate is measured again right before every engine run, at
    every chunk shape of that run, and each run's fraction is its own bound / its own time; the
    medians of the runs are printed."""
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    print(f"\n(e) engine vs the GEMM bound (seed 7, median of {repeats}); uptime: {os.popen('uptime').read().strip()}")
    for n_obs, n_items, b in [(60, 1000, 10_000), (200, 1000, 1000)]:
        x = observers_with_missing(n_obs, n_items)
        tw.pairwise_error_consistency(x[:, :5], n_resamples=100, rng=0)  # warm-up
        calls = engine_run(x, b, "percentile")["calls"]  # the chunk shapes (the same on both paths)
        print(f"    {n_obs} observers × {n_items} items ({n_obs * (n_obs - 1) // 2:,} pairs), 10 % missing, B = {b:,}; "
              f"chunks " + ", ".join(f"({min(r or n, n)} × {n_items}) @ ({n_items} × {c})" for c, n, r in calls))
        for path, method in [("multinomial", "percentile"), ("jeffreys", "jeffreys")]:
            runs = []
            for _ in range(repeats):
                bound = {32: 0.0, 64: 0.0, "cpu": 0.0}
                for cols, n_res, rows in calls:
                    rows = min(rows or n_res, n_res)
                    flops = 2.0 * n_res * n_items * cols
                    for dtype, bits in ((np.float32, 32), (np.float64, 64)):
                        rate, cpu_rate = gemm_rate(rows, n_items, cols, dtype, cpu=True)
                        bound[bits] += flops / rate
                        if bits == 32:
                            bound["cpu"] += flops / cpu_rate
                run = engine_run(x, b, method)
                run.update(bound32=bound[32], bound64=bound[64], bound_cpu=bound["cpu"])
                runs.append(run)
            med = {k: float(np.median([r[k] for r in runs])) for k in ("engine", "bound32", "bound64")}
            frac32 = float(np.median([r["bound32"] / r["engine"] for r in runs]))
            frac64 = float(np.median([r["bound64"] / r["engine"] for r in runs]))
            frac_cpu = float(np.median([r["bound_cpu"] / r["engine_cpu"] for r in runs]))
            prof = {k: float(np.median([r["profile"].get(k, 0.0) / r["engine"] for r in runs]))
                    for k in sorted({k for r in runs for k in r["profile"]})}
            prof["product (+ casts)"] = max(0.0, 1.0 - sum(prof.values()))
            print(f"      {path:11}: engine {med['engine']:6.2f} s, float32-GEMM bound {med['bound32']:5.2f} s: "
                  f"fraction {frac32:.2f} (runs {', '.join(format(r['bound32'] / r['engine'], '.2f') for r in runs)}); "
                  f"float64 bound {med['bound64']:5.2f} s, fraction {frac64:.2f}; in CPU seconds (float32 GEMM's / "
                  f"engine's, all threads) {frac_cpu:.2f}")
            print(f"        profile: {', '.join(f'{k} {v:.0%}' for k, v in prof.items())}; "
                  f"mean CI low {float(np.nanmean(runs[0]['low'])):.6f}")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def kappa_section(repeats: int) -> None:
    """(f): κ of the sums per pair-replicate on one thread (CPU ns), with the Jeffreys virtual items' part
    as the engine had it (products (b × N) @ (N × pairs) and (b × N) @ (N × observers) for n11 and the
    observers' sums, added in the slices) and as it has it now (their Walsh–Hadamard transform, gathered
    in the slices); same numbers, checked."""
    from trialwise.ec.blocks import _sylvester_columns, _walsh_hadamard, prior_items
    from trialwise._stats.kappa import kappa_from_sums

    print(f"\n(f) κ of the sums, one thread, CPU ns per pair-replicate (min of {repeats}); "
          f"uptime: {os.popen('uptime').read().strip()}")
    g = np.random.default_rng(0)
    for n_obs, b, m in [(60, 1429, 896), (200, 334, 4096)]:
        step = 2.0**-7  # sums and weights on a float32 grid, as in the engine
        sums = [(g.integers(0, 800 * 128, size=(b, m)) * step).astype(np.float32) for _ in range(4)]
        virtual = prior_items(n_obs)
        wv = (g.integers(0, 128, size=(b, len(virtual))) * step).astype(np.float32)
        idx = np.array([(i, j) for i in range(n_obs) for j in range(i + 1, n_obs)])[:m]
        sums = [s[:, :len(idx)] for s in sums]
        both = (virtual[:, idx[:, 0]] & virtual[:, idx[:, 1]]).astype(np.float32)
        each = virtual.astype(np.float32)
        cols = _sylvester_columns(virtual)
        codes = cols[idx[:, 0]] ^ cols[idx[:, 1]]

        def products():
            extra = (wv.sum(axis=1, keepdims=True), wv @ both, wv @ each, idx[:, 0], idx[:, 1])
            return kappa_from_sums(*sums, extra=extra, workers=1)

        def hadamard(dtype=np.float64):  # parts in float64 (the engine before), or float32 as the engine has them
            f = _walsh_hadamard(wv)
            extra = (f[:, :1].astype(np.float32), ((0.5 * (f - f[:, :1])).astype(dtype), codes),
                     (0.5 * (f[:, :1] + f[:, cols])).astype(dtype), idx[:, 0], idx[:, 1])
            return kappa_from_sums(*sums, extra=extra, workers=1)

        sums_rows = [np.ascontiguousarray(x.T) for x in sums]  # the engine's layout: each pair's replicates contiguous

        def pairs_first():  # as the engine has it now: (pairs, b) sums, parts by rows, added in float32
            f = _walsh_hadamard(wv, transposed=True)
            extra = (f[:1].astype(np.float32), ((0.5 * (f - f[:1])).astype(np.float32), codes),
                     (0.5 * (f[:1] + f[cols])).astype(np.float32), idx[:, 0], idx[:, 1])
            return kappa_from_sums(*sums_rows, extra=extra, workers=1, pairs_first=True)

        assert np.array_equal(products(), hadamard(), equal_nan=True)
        assert np.array_equal(products(), hadamard(np.float32), equal_nan=True)
        assert np.array_equal(products(), pairs_first().T, equal_nan=True)
        el = b * len(idx)
        out = {}
        for name, fn in [("no virtual items", lambda: kappa_from_sums(*sums, workers=1)),
                         ("virtual items by products", products), ("by Walsh–Hadamard, added in float64", hadamard),
                         ("added in float32", lambda: hadamard(np.float32)), ("pairs first (now)", pairs_first)]:
            times = []
            for _ in range(repeats):
                c0 = time.process_time()
                fn()
                times.append(time.process_time() - c0)
            out[name] = min(times) * 1e9 / el
        print(f"    {n_obs} observers, a chunk of {b} replicates × {len(idx):,} pairs: "
              + ", ".join(f"{k} {v:.2f} ns" for k, v in out.items()) + " (same numbers)")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def fisher_large() -> None:
    """(d'): Fisher's test on the 499,500 tables of 1,000 observers × 2,000 items (10 % missing):
    vectorised on all of them; the per-pair scipy loop on every 250th table, extrapolated."""
    from scipy import stats

    from trialwise._stats.significance import fisher_exact_pvalues
    from trialwise._stats.tables import pairwise_tables

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


def vectorised_pairwise(x: np.ndarray, n_resamples: int, seed: int = 11, dtype=np.float64,
                        confidence_level: float = 0.95, chunk_bytes: int = 64 * 2**20,
                        timing: dict | None = None) -> dict:
    """The vectorised all-pairs bootstrap of EC a competent numpy user would write (the baseline of (g)).

    ``x``: items × observers of 0/1 with NaN = not seen. Per chunk of replicates: multinomial
    counts (one ``integers`` draw, one ``bincount``), one GEMM against the items × 4·pairs
    product columns, κ of every pair-replicate; then the percentile interval from one sort.
    No Python loop over pairs or replicates beyond the chunks. ``timing``: CPU seconds of its steps
    (weights, product, κ, interval) are added to it.
    """
    t = {} if timing is None else timing

    def lap(step: str, c0: float) -> float:
        c1 = time.process_time()
        t[step] = t.get(step, 0.0) + c1 - c0
        return c1

    n_items, n_obs = x.shape
    seen = ~np.isnan(x)
    right = seen & (np.nan_to_num(x) == 1)
    a, b = np.triu_indices(n_obs, 1)
    p = len(a)
    s, r = seen.astype(dtype), right.astype(dtype)
    # the four product columns of every pair, side by side: seen by both, A right, B right, both right
    cols = np.concatenate([s[:, a] * s[:, b], r[:, a] * s[:, b], s[:, a] * r[:, b], r[:, a] * r[:, b]], axis=1)

    def kappa(sums: np.ndarray) -> np.ndarray:  # sums: (..., 4·pairs)
        n, ra, rb, both = (sums[..., k * p:(k + 1) * p] for k in range(4))
        with np.errstate(invalid="ignore", divide="ignore"):
            pa, pb = ra / n, rb / n
            c_obs = (n - ra - rb + 2 * both) / n
            c_exp = pa * pb + (1 - pa) * (1 - pb)
            return np.where(c_exp < 1, (c_obs - c_exp) / (1 - c_exp), np.nan)

    point = kappa(cols.sum(axis=0, dtype=np.float64))
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, chunk_bytes // (8 * cols.shape[1])))
    dist = np.empty((n_resamples, p))
    for r0 in range(0, n_resamples, chunk):
        c = min(chunk, n_resamples - r0)
        c0 = time.process_time()
        draws = rng.integers(0, n_items, size=(c, n_items)) + (np.arange(c) * n_items)[:, None]
        w = np.bincount(draws.ravel(), minlength=c * n_items).reshape(c, n_items).astype(dtype)
        c0 = lap("weights", c0)
        sums = w @ cols
        c0 = lap("product", c0)
        dist[r0:r0 + c] = kappa(sums)
        lap("kappa", c0)
    c0 = time.process_time()
    dist.sort(axis=0)  # NaN (undefined) last
    k = (~np.isnan(dist)).sum(axis=0)
    alpha = 1 - confidence_level
    cols_ = np.arange(p)
    lo = dist[np.clip(np.floor(alpha / 2 * (k - 1)).astype(int), 0, None), cols_]
    hi = dist[np.clip(np.ceil((1 - alpha / 2) * (k - 1)).astype(int), 0, None), cols_]
    lap("interval", c0)
    return dict(statistic=point, low=lo, high=hi)


def _timed(fn) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def baseline_section(repeats: int, naive_replicates: int = 5) -> None:
    """(g): the pairwise call against the vectorised numpy baseline, interleaved rounds, one BLAS thread and all."""
    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    print(f"\n(g) pairwise_error_consistency vs the vectorised numpy baseline (medians of {repeats} interleaved "
          f"rounds; ratio = baseline / call, > 1: the call is faster); uptime: {os.popen('uptime').read().strip()}")
    for n_obs, n_items, b in [(60, 1000, 10_000), (200, 1000, 1000)]:
        x = observers_with_missing(n_obs, n_items)
        pairs = n_obs * (n_obs - 1) // 2
        ref = tw.pairwise_error_consistency(x, n_resamples=100, rng=0)
        base = vectorised_pairwise(x, 50)
        diff = float(np.nanmax(np.abs(base["statistic"] - ref.statistic)))
        same_nan = bool(np.array_equal(np.isnan(base["statistic"]), np.isnan(ref.statistic)))
        print(f"    {n_obs} observers × {n_items} items ({pairs:,} pairs), 10 % missing, B = {b:,}: point values of the "
              f"baseline vs the call: max |Δ| {diff:.1e} (≤ 1e-12: {diff <= 1e-12 and same_nan})")
        cases = {"call, default (Jeffreys + Fisher)": lambda: tw.pairwise_error_consistency(x, n_resamples=b, rng=7),
                 "call, percentile (multinomial)": lambda: tw.pairwise_error_consistency(
                     x, n_resamples=b, rng=7, ci_method="percentile"),
                 "baseline float64": lambda: vectorised_pairwise(x, b),
                 "baseline float32": lambda: vectorised_pairwise(x, b, dtype=np.float32)}
        for threads in (1, None):
            times: dict[str, list] = {k: [] for k in cases}
            with threadpool_limits(limits=threads):
                for _ in range(repeats):
                    for name, fn in cases.items():
                        times[name].append(_timed(fn))
            med = {k: (float(np.median([t[0] for t in v])), float(np.median([t[1] for t in v]))) for k, v in times.items()}
            label = "1 BLAS thread" if threads == 1 else f"all BLAS threads ({os.cpu_count()} cores)"
            print(f"      {label}: " + "; ".join(f"{k} {w:.2f} s wall / {c:.2f} s CPU" for k, (w, c) in med.items()))
            for call in list(cases)[:2]:
                print(f"        {call}: baseline float64 / call {med['baseline float64'][0] / med[call][0]:.2f} wall, "
                      f"{med['baseline float64'][1] / med[call][1]:.2f} CPU; baseline float32 / call "
                      f"{med['baseline float32'][0] / med[call][0]:.2f} wall, {med['baseline float32'][1] / med[call][1]:.2f} CPU")
        with threadpool_limits(limits=1):  # where the time goes, one BLAS thread, CPU seconds
            steps: dict = {}
            vectorised_pairwise(x, b, dtype=np.float32, timing=steps)
            c0 = time.process_time()
            _, _, engine = call_with_engine_time(x, n_resamples=b, rng=7, ci_method="percentile")
            whole = time.process_time() - c0
        floor = steps["product"]
        print("      where the time goes (1 BLAS thread, CPU): baseline float32 " + ", ".join(
            f"{k} {v:.2f} s" for k, v in steps.items()) + f"; the float32 GEMM of the 4·pairs columns (the floor) "
            f"{floor:.2f} s; call (percentile) {whole:.2f} s CPU = {whole / floor:.2f}× that GEMM, its engine "
            f"{engine:.2f} s wall; baseline float32 = {sum(steps.values()) / floor:.2f}× the GEMM")
        if n_obs == 60 and naive_replicates:
            idx = [(i, j) for i in range(n_obs) for j in range(i + 1, n_obs)]
            t_loop, _ = _timed(lambda: naive_pairwise(x, idx, naive_replicates, np.random.default_rng(4)))
            print(f"      footnote: the per-replicate-per-pair Python loop of (b), {naive_replicates} replicates "
                  f"extrapolated to B = {b:,}: {t_loop * b / naive_replicates:,.0f} s wall (all threads)")
    print(f"    uptime after: {os.popen('uptime').read().strip()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--naive-replicates", type=int, default=50)
    ap.add_argument("--memory", action="store_true", help="run only (c), the memory cases")
    ap.add_argument("--overhead", action="store_true", help="run only (d), whole call vs engine")
    ap.add_argument("--fisher-large", action="store_true", help="run only (d'), Fisher on 499,500 tables")
    ap.add_argument("--large-resamples", type=int, default=1000)
    ap.add_argument("--engine", action="store_true", help="run only (e), the engine vs the GEMM bound")
    ap.add_argument("--kappa", action="store_true", help="run only (f), κ of the sums per pair-replicate")
    ap.add_argument("--baseline", action="store_true", help="run only (g), the call vs the vectorised numpy baseline")
    ap.add_argument("--repeats", type=int, default=3)
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
        overhead_section(args.repeats)
        return
    if args.engine:
        engine_section(args.repeats)
        return
    if args.kappa:
        kappa_section(args.repeats)
        return
    if args.baseline:
        baseline_section(args.repeats)
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

    tw.pairwise_error_consistency(x[:, :5], n_resamples=100, rng=0)  # warm-up
    t_engine = t_full = 0.0
    for label, kw in (("default: Jeffreys + Fisher", {}), ("BCa + Fisher", {"ci_method": "bca"})):
        (res, whole, engine), _, mem_full = measure(lambda: call_with_engine_time(x, n_resamples=B, rng=3, **kw))
        print(f"    pairwise_error_consistency      : {whole:8.2f} s   peak {mem_full:7.1f} MiB   ({label} for every pair;"
              f" engine inside the call {engine:.2f} s, {len(pairs) * B / engine:,.0f} pair-replicates/s)")
        if not kw:
            t_full, t_engine = whole, engine

    for dtype in (np.float64, np.float32):  # the honest baseline (section (g) times it properly)
        _, t_vec, mem_vec = measure(lambda: vectorised_pairwise(x, B, dtype=dtype))
        print(f"    vectorised numpy, {np.dtype(dtype).name}        : {t_vec:8.2f} s   peak {mem_vec:7.1f} MiB   "
              f"(one GEMM per replicate chunk); baseline / whole call {t_vec / t_full:.2f}x (one run; --baseline: "
              f"interleaved rounds, CPU and wall)")
    m = args.naive_replicates
    _, t_sub, mem_sub = measure(lambda: naive_pairwise(x, pairs, m, np.random.default_rng(4)))
    t_naive_b = t_sub * B / m
    print(f"    footnote, the per-replicate-per-pair Python loop ({m} replicates, extrapolated to B = {B}): "
          f"{t_naive_b:.0f} s, {t_naive_b / t_full:.0f}x the whole call ({t_naive_b / t_engine:.0f}x its engine)")


if __name__ == "__main__":
    main()
