"""Cost model of the all-pairs bootstrap on Dask (issue 17, goal 5): ``pairwise_error_consistency(..., client=)``.

    python benchmarks/speed/bench_distributed.py [--observers 150] [--resamples 1000] [--large | --agreement | --stored [--chunk 16]]
    python benchmarks/speed/bench_distributed.py --capa-large [--models 1000] [--resamples 1000] [--no-local]

The default call (Jeffreys interval, Fisher test), 10 % of cells missing (the data of
``bench_ec.py``), seed 7, on a ``LocalCluster`` of worker processes with one thread each
(Dask sets OMP/OPENBLAS_NUM_THREADS=1 in its workers, so a worker is one core):

(a) one worker, ``--observers`` observers × 2,000 and × 12,000 items: the time of the bootstrap
    (the tasks, from the first submission to the last result) per pair-replicate on one
    core, fitted as ``a + b·n_items`` (Gamma pseudo-counts and κ per pair-replicate, plus the
    matrix product per item);
(b) two workers, × 2,000 items: strong scaling 1 → 2 workers;
(c) the single-process path (no client; numpy's BLAS may use both cores) on the same data,
    and whether (b) and (c) are identical (they must be);
(d) the projection for 1,000 models × 12,000 items (499,500 pairs), B = 1,000, on N cores:
    bootstrap = the time per pair-replicate at 12,000 items × pairs × B / N; plus the part of the call that
    runs in the client (tables, Fisher tests, result), measured per pair in (b) and not
    divided by N;
(e) with ``--large``: 1,000 observers × 2,000 items, B = ``--resamples``, two workers.

With ``--agreement``, instead: ``pairwise_agreement(probs, truth=..., client=)`` (CAPA, its
default percentile interval and one-sided test, ``keep_replicates=False``) on ``--observers``
simulated models × 2,000 four-option questions (:func:`simulated_models`, seed 7): one
worker, two workers, and the single-process path, with the time per pair-replicate and
whether the three are identical; and two workers reading the array from storage (an npy stack of
16 models per chunk in a temporary directory, ``da.from_npy_stack``). ``--agreement --large``:
only 1,000 models × 2,000 questions, B = ``--resamples``, two workers.

With ``--stored``, instead: the default call on ``--observers`` observers × 2,000 items
(:func:`observers_with_missing`, seed 7) read from storage — an .npy file in a temporary
directory behind :class:`CountingStore` (``da.from_array(store, chunks=(n_items, --chunk))``,
read a chunk at a time like a zarr array), which counts how often each chunk is read on the
workers — against the same array in memory, two workers each; first the reads per chunk of
both layouts of the blocks for several chunk widths, computed from the blocks' observers
(runs of consecutive pairs, before; observer tiles, now), then the measured run. The
"before" figures of docs/distributed.md come from this script run on the tree before the
tiles (``PYTHONPATH`` pointing at its ``src``), which reads by runs of consecutive pairs.

With ``--capa-large`` (issue 33, goal 4), instead: :func:`capa_large`, all-pairs CAPA with
intervals (``pairwise_agreement``, percentile, ``keep_replicates=False``) on ``--models``
simulated models × 2,000 four-option questions, B = ``--resamples``, on two one-thread workers,
then the same call locally with one BLAS thread, as a worker has (unless ``--no-local``), and
whether every pair's numbers are identical; the whole call's minutes, the workers' peak RSS, CPU per pair·question·replicate.

Peak memory per worker from ``resource.getrusage`` in each worker process (a fresh cluster
per case). The machine has 2 cores shared with other jobs: the load average is printed
before and after each case; times are loose, ratios are what count.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import trialwise as tw  # noqa: E402
import trialwise._stats.distributed as td  # noqa: E402
from bench_ec import observers_with_missing  # noqa: E402


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def run(x: np.ndarray, B: int, n_workers: int | None, call=None) -> dict:
    """One default call; with ``n_workers`` on a fresh LocalCluster of that many processes.

    ``call(client)`` (``client`` None for the single-process path) replaces the default
    ``pairwise_error_consistency(x, n_resamples=B, rng=7, client=client)``."""
    from distributed import Client, LocalCluster

    if call is None:
        def call(client):
            return tw.pairwise_error_consistency(x, n_resamples=B, rng=7, client=client)

    timing: dict = {}
    real = td.map_blocks

    def timed(client, func, blocks):
        t0 = time.perf_counter()
        n = 0
        for item in real(client, func, blocks):
            n += 1
            yield item
        timing.update(bootstrap=time.perf_counter() - t0, tasks=n)

    load = os.getloadavg()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if n_workers is None:
            t0 = time.perf_counter()
            res = call(None)
            total = time.perf_counter() - t0
            return dict(res=res, total=total, load=(load, os.getloadavg()[0]), peak=[_peak_rss_gib()])
        td.map_blocks = timed
        try:
            with LocalCluster(n_workers=n_workers, processes=True, threads_per_worker=1,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                t0 = time.perf_counter()
                res = call(client)
                total = time.perf_counter() - t0
                peak = list(client.run(_peak_rss_gib).values())
                cpu = sum(client.run(time.process_time).values())  # CPU seconds the workers got
        finally:
            td.map_blocks = real
    return dict(res=res, total=total, load=(load, os.getloadavg()[0]), peak=peak, cpu=cpu, **timing)


def show(label: str, out: dict, pairs: int, B: int) -> None:
    boot = out.get("bootstrap", float("nan"))
    print(f"  {label:<34} call {out['total']:7.1f} s, bootstrap {boot:7.1f} s "
          f"({1e9 * boot / (pairs * B):6.0f} ns per pair-replicate), {out.get('tasks', '-')} tasks, "
          f"peak RSS {' / '.join(f'{p:.2f}' for p in out['peak'])} GiB, load {out['load'][0]:.1f} → {out['load'][1]:.1f}"
          + (f", workers' CPU {out['cpu']:.0f} s, start-up included ({1e9 * out['cpu'] / (pairs * B):.0f} ns per pair-replicate)"
             if "cpu" in out else ""))


def max_diff(a, b) -> float:
    return max(float(np.nanmax(np.abs(getattr(a.confidence_interval, f) - getattr(b.confidence_interval, f))))
               for f in ("low", "high"))


def same(a, b) -> bool:
    return all(np.array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f)), equal_nan=True)
               for f in ("statistic", "pvalue", "n_undefined")) and all(
        np.array_equal(getattr(a.confidence_interval, f), getattr(b.confidence_interval, f), equal_nan=True)
        for f in ("low", "high"))


def simulated_models(n_models: int, n_questions: int, n_options: int = 4, seed: int = 7):
    """Option probabilities (models × questions × options) of related models, and the truth:
    each model mixes a shared Dirichlet row per question with its own, in a share drawn
    uniformly from [0.2, 0.8]."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.ones(n_options), n_questions)
    mix = rng.uniform(0.2, 0.8, n_models)[:, None, None]
    probs = mix * base + (1 - mix) * rng.dirichlet(np.ones(n_options), (n_models, n_questions))
    return probs, rng.integers(0, n_options, n_questions)


def agreement_large(B: int) -> None:
    """1,000 models × 2,000 questions (499,500 pairs), two workers."""
    probs, truth = simulated_models(1000, 2000)

    def call(client):
        return tw.pairwise_agreement(probs, truth=truth, n_resamples=B, rng=7, keep_replicates=False, client=client)

    big = run(probs, B, 2, call)
    show("1000 × 2000, 2 workers", big, 499_500, B)
    print(f"  client-side part {big['total'] - big['bootstrap']:.1f} s; client peak RSS {_peak_rss_gib():.2f} GiB")


def capa_large(n_models: int, B: int, n_questions: int = 2000, local: bool = True) -> None:
    """Issue 33, goal 4c: all-pairs CAPA with intervals on two one-thread Dask workers, against the local path.

    ``pairwise_agreement(probs, truth=..., n_resamples=B, rng=7, keep_replicates=False)`` on
    :func:`simulated_models` (4 options, seed 7): on a fresh ``LocalCluster`` of two worker processes
    with one thread each, then (``local``) the same call without ``client`` in this process (numpy's
    BLAS on one thread, as on a worker), and whether every pair's statistic, interval, p-value and undefined count are
    identical. Prints the time of the call and of its bootstrap (the tasks), the workers' CPU seconds,
    the peak RSS of each worker and of the client, and the load before and after.
    """
    probs, truth = simulated_models(n_models, n_questions)
    pairs = n_models * (n_models - 1) // 2

    def call(client):
        return tw.pairwise_agreement(probs, truth=truth, n_resamples=B, rng=7, keep_replicates=False, client=client)

    print(f"capa-large | {os.cpu_count()} cores; pairwise_agreement (CAPA, percentile interval, one-sided test), "
          f"{n_models} models ({pairs:,} pairs) × {n_questions} questions × 4 options, B = {B}, seed 7; "
          f"start {time.strftime('%H:%M:%S', time.gmtime())} UTC, uptime: {os.popen('uptime').read().strip()}")
    dask = run(probs, B, 2, call)
    show(f"{n_models} × {n_questions}, 2 workers", dask, pairs, B)
    unit = pairs * n_questions * B
    print(f"    whole call {dask['total'] / 60:.1f} min (target ≤ 10 min), workers' peak RSS "
          f"{max(dask['peak']):.2f} GiB (target ≤ 2 GB = 1.86 GiB); workers' CPU {1e12 * dask['cpu'] / unit:.0f} ps per "
          f"pair·question·replicate; client-side part {dask['total'] - dask['bootstrap']:.1f} s")
    if local:  # with one BLAS thread, as a worker has (with more, the float64 products may differ in the last bit)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            loc = run(probs, B, None, call)
        show(f"{n_models} × {n_questions}, local, 1 BLAS thread", loc, pairs, B)
        print(f"    2 workers / local (whole call) {dask['total'] / loc['total']:.2f}; identical to the local path "
              f"(statistic, interval, p-value, undefined replicates of all {pairs:,} pairs): "
              f"{same(dask['res'], loc['res'])}, largest |Δ| of an interval end {max_diff(dask['res'], loc['res']):.1e}")
    print(f"    client peak RSS {_peak_rss_gib():.2f} GiB; end {time.strftime('%H:%M:%S', time.gmtime())} UTC, "
          f"uptime: {os.popen('uptime').read().strip()}")


def agreement_main(n_models: int, B: int, n_questions: int = 2000) -> None:
    probs, truth = simulated_models(n_models, n_questions)
    pairs = n_models * (n_models - 1) // 2

    def call(client):
        return tw.pairwise_agreement(probs, truth=truth, n_resamples=B, rng=7, keep_replicates=False, client=client)

    print(f"{os.cpu_count()} cores; pairwise_agreement (CAPA, percentile interval), {n_models} models "
          f"({pairs} pairs) × {n_questions} questions, 4 options, B = {B}, seed 7")
    one = run(probs, B, 1, call)
    show(f"{n_questions} questions, 1 worker", one, pairs, B)
    two = run(probs, B, 2, call)
    show(f"{n_questions} questions, 2 workers", two, pairs, B)
    loc = run(probs, B, None, call)
    show(f"{n_questions} questions, local", loc, pairs, B)
    import tempfile

    import dask.array as da

    with tempfile.TemporaryDirectory() as tmp:  # the same array in storage, 16 models per chunk
        da.to_npy_stack(tmp, da.from_array(probs, chunks=(16, *probs.shape[1:])), axis=0)
        stored = da.from_npy_stack(tmp)

        def call_stored(client):
            return tw.pairwise_agreement(stored, truth=truth, n_resamples=B, rng=7, keep_replicates=False,
                                         client=client)

        st = run(probs, B, 2, call_stored)
    show(f"{n_questions} questions, stored, 2 workers", st, pairs, B)
    print(f"  stored / in-memory (2 workers, whole call) {st['total'] / two['total']:.2f}; identical: "
          f"{same(st['res'], two['res'])}")
    print(f"  strong scaling 1 → 2 workers: bootstrap ×{one['bootstrap'] / two['bootstrap']:.2f}, "
          f"whole call ×{one['total'] / two['total']:.2f}; 2 workers / local (whole call) "
          f"{two['total'] / loc['total']:.2f}")
    print(f"  1 worker and 2 workers identical: {same(one['res'], two['res'])}; local (multi-threaded BLAS) "
          f"identical to them: {same(loc['res'], two['res'])}, largest |Δ| of an interval end "
          f"{max_diff(loc['res'], two['res']):.1e}")


class CountingStore:
    """An (items × observers) array in an .npy file, read like a zarr array (``da.from_array``
    calls ``__getitem__`` once per chunk it reads, wherever the task runs), that appends the
    first column of every non-empty read to a log file: the reads of all processes, counted."""

    def __init__(self, path: str, log: str):
        self.path, self.log = path, log
        head = np.load(path, mmap_mode="r")
        self.shape, self.dtype, self.ndim = head.shape, head.dtype, head.ndim

    def __getitem__(self, key):
        out = np.array(np.load(self.path, mmap_mode="r")[key])
        if out.size:  # (not the empty slice dask takes for the array's type)
            cols = key[1] if isinstance(key, tuple) and len(key) > 1 else slice(None)
            with open(self.log, "a") as f:
                f.write(f"{cols.start or 0 if isinstance(cols, slice) else int(np.min(cols))}\n")
        return out

    def reads(self, chunk: int) -> np.ndarray:
        """How often each chunk was read so far."""
        with open(self.log) as f:
            firsts = np.array([int(line) for line in f if line.strip()], dtype=np.intp)
        return np.bincount(firsts // chunk, minlength=-(-self.shape[1] // chunk))


def layout_reads(n_obs: int, chunk: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Reads per chunk of ``chunk`` observers when blocks of at most ``m`` pairs are runs of
    consecutive pairs (before) and when they are observer tiles (``td.tile_blocks``), each
    block reading the chunks of its observers once."""
    pairs = np.column_stack(np.triu_indices(n_obs, 1))
    n_chunks = -(-n_obs // chunk)
    runs = [pairs[s: s + m] for s in range(0, len(pairs), m)]
    tiles = [pairs[w] for w in td.tile_blocks(pairs, td.tile_edges(n_obs, int(np.sqrt(m)), [chunk] * (n_obs // chunk)
                                                                  + ([n_obs % chunk] if n_obs % chunk else [])), m)]
    return tuple(np.bincount(np.concatenate([np.unique(p // chunk) for p in blocks]), minlength=n_chunks)
                 for blocks in (runs, tiles))  # type: ignore[return-value]


def stored_main(n_obs: int, B: int, chunk: int, n_items: int = 2000) -> None:
    import tempfile

    import dask.array as da

    from trialwise.ec.blocks import pair_block_size

    pairs = n_obs * (n_obs - 1) // 2
    want = -(-pairs // (td.TASKS_PER_WORKER * 2))  # td.task_block_size for 2 workers
    m = min(pair_block_size(pairs, n_items, B), max(128, -(-want // 128) * 128), pairs)
    print(f"{os.cpu_count()} cores; default call, {n_obs} observers ({pairs} pairs) × {n_items} items, B = {B}, "
          f"seed 7; blocks of ≤ {m} pairs (2 workers), tiles of ≤ {int(np.sqrt(m))} observers")
    print("  reads per chunk (min / mean / max), computed from the blocks' observers: runs of consecutive pairs "
          "→ observer tiles")
    for c in sorted({8, 16, 32, 64, 128, chunk}) if hasattr(td, "tile_blocks") else ():  # (not before the tiles)
        before, now = layout_reads(n_obs, c, m)
        print(f"    {c:4d} observers per chunk: {before.min()} / {before.mean():.1f} / {before.max()} → "
              f"{now.min()} / {now.mean():.1f} / {now.max()}  (×{before.sum() / now.sum():.1f} fewer reads)")
    x = observers_with_missing(n_obs, n_items, seed=7)
    mem = run(x, B, 2)
    show("in memory, 2 workers", mem, pairs, B)
    with tempfile.TemporaryDirectory() as tmp:
        np.save(f"{tmp}/x.npy", x)
        store = CountingStore(f"{tmp}/x.npy", f"{tmp}/reads.log")
        stored = da.from_array(store, chunks=(n_items, chunk), fancy=False, name="counting-store")

        def call(client):
            return tw.pairwise_error_consistency(stored, n_resamples=B, rng=7, client=client)

        st = run(x, B, 2, call)
        reads = store.reads(chunk)
    show(f"stored, {chunk} per chunk, 2 workers", st, pairs, B)
    print(f"  measured reads per chunk: min {reads.min()}, mean {reads.mean():.1f}, max {reads.max()} "
          f"({reads.sum()} reads of {len(reads)} chunks); stored / in memory (whole call) "
          f"{st['total'] / mem['total']:.2f}; identical: {same(st['res'], mem['res'])}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--observers", type=int, default=150)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--stored", action="store_true")
    ap.add_argument("--chunk", type=int, default=16)
    ap.add_argument("--capa-large", action="store_true")
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--no-local", action="store_true")
    args = ap.parse_args()
    B, n_obs = args.resamples, args.observers
    if args.capa_large:
        capa_large(args.models, B, local=not args.no_local)
        return
    if args.stored:
        stored_main(n_obs, B, args.chunk)
        return
    if args.agreement:
        if args.large:
            agreement_large(B)
        else:
            agreement_main(n_obs, B)
        return
    pairs = n_obs * (n_obs - 1) // 2
    print(f"{os.cpu_count()} cores; {n_obs} observers ({pairs} pairs), B = {B}, seed 7, default call")

    per_pr = {}
    print("(a) one worker (one core)")
    runs = {}
    for n_items in (2000, 12_000):
        x = observers_with_missing(n_obs, n_items, seed=7)
        runs[n_items] = out = run(x, B, 1)
        show(f"{n_items} items, 1 worker", out, pairs, B)
        per_pr[n_items] = out["bootstrap"] / (pairs * B)
    one = runs[2000]
    x = observers_with_missing(n_obs, 2000, seed=7)
    b_ = (per_pr[12_000] - per_pr[2000]) / 10_000
    a_ = per_pr[2000] - 2000 * b_
    print(f"  fit: time per pair-replicate on one core ≈ {1e9 * a_:.0f} ns + {1e9 * b_:.3f} ns × n_items")

    print("(b) two workers")
    two = run(x, B, 2)
    show("2000 items, 2 workers", two, pairs, B)
    print(f"  strong scaling 1 → 2 workers: bootstrap ×{one['bootstrap'] / two['bootstrap']:.2f}, "
          f"whole call ×{one['total'] / two['total']:.2f}")
    print("(c) single process (no client)")
    loc = run(x, B, None)
    show("2000 items, local", loc, pairs, B)
    print(f"  1 worker and 2 workers identical: {same(one['res'], two['res'])}; local (multi-threaded BLAS) "
          f"identical to them: {same(loc['res'], two['res'])}, largest |Δ| of an interval end "
          f"{max_diff(loc['res'], two['res']):.1e}")

    client_side = (two["total"] - two["bootstrap"]) / pairs
    big_pairs, big_items, big_B = 499_500, 12_000, 1000
    t_pr = per_pr[big_items]  # measured at 12,000 items
    core_s = t_pr * big_pairs * big_B
    eff = one["bootstrap"] / two["bootstrap"] / 2
    print(f"(d) projection, 1,000 models × 12,000 items, B = 1,000: {1e9 * t_pr:.0f} ns per pair-replicate, "
          f"{core_s / 3600:.1f} core-hours of bootstrap; client side {1e6 * client_side:.0f} µs per pair "
          f"= {client_side * big_pairs / 60:.1f} min (not parallel); 1 → 2 worker efficiency {eff:.2f}")
    for n in (2, 16, 64, 256, 1024):
        print(f"  N = {n:5d} cores: bootstrap {core_s / n / 60:8.1f} min (at efficiency 1), "
              f"{core_s / n / eff / 60:8.1f} min (at {eff:.2f}); + client {client_side * big_pairs / 60:.1f} min")

    if args.large:
        print("(e) 1,000 observers × 2,000 items, two workers")
        x = observers_with_missing(1000, 2000, seed=7)
        big = run(x, B, 2)
        show("1000 × 2000, 2 workers", big, 499_500, B)
        print(f"  client-side part {big['total'] - big['bootstrap']:.0f} s; client peak RSS {_peak_rss_gib():.2f} GiB")


if __name__ == "__main__":
    main()
