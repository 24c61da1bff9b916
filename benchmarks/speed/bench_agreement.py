"""Speed of tw.pairwise_agreement at Open-LLM-Leaderboard scale, against a per-pair lm-sim loop.

    python benchmarks/speed/bench_agreement.py                 # all four runs below, each in its own process
    python benchmarks/speed/bench_agreement.py point 1000 12000 10
    python benchmarks/speed/bench_agreement.py table 50 12000 10 1000
    python benchmarks/speed/bench_agreement.py bootstrap 100 12000 10 1000
    python benchmarks/speed/bench_agreement.py clustered 100 12000 10 1000
    python benchmarks/speed/bench_agreement.py capa-vs-ec 200 2000 4 200 [rounds]
    python benchmarks/speed/bench_agreement.py point-overhead [rounds]

Issue 18, "Speed": the point-value CAPA matrix of 1,000 models × 12,000 questions × 10 options
in under a minute with bounded memory; the all-pairs bootstrap (B = 1,000) of 100 models in
under 5 minutes with a peak under 4 GB. Every run is a fresh process, so its peak RSS (VmHWM)
is its own; the RSS before the call (the data) is printed next to it, and the load
(``os.getloadavg``) at the start of the run, since the 2-core machine may be shared.

* ``point``: the (models × questions × options) array entry point, ``n_resamples=0``.
  Fraction of the GEMM bound: the time the Gram products alone take at this machine's rate
  for ``X Xᵀ`` at the chunk shape used (measured here, float64; the float32 rate is printed
  for comparison) over the time of the whole call (checks, sums, result).
* ``table``: the same through a trial table (one row per model and question, a list column
  of probabilities) for fewer models: the cost of building and reading the table, per
  model, extrapolated linearly (rows grow with the models) to the ``point`` size.
* ``bootstrap`` / ``clustered``: the trial-table path with B joint replicates (clusters of 10
  questions). Fraction of the GEMM bound: the time of the ``W @ X`` products at this
  machine's float64 rate for the shape used (replicates per chunk × questions or clusters ×
  columns) over the time of the call.

Issue 33, goal 4 (not part of the default run):

* ``capa-vs-ec``: all-pairs CAPA (``pairwise_agreement``, percentile interval) against all-pairs
  EC of the same models' correctness (``pairwise_error_consistency``: its default Jeffreys +
  Fisher, and ``ci_method="percentile"``, the same multinomial resampling as CAPA's), same shapes,
  same B, interleaved rounds, one BLAS thread and all; CPU seconds per pair·question·replicate and
  the ratio CAPA / EC (target ≤ 1). Data: :func:`bench_distributed.simulated_models`.
* ``point-overhead``: ``n_resamples=0`` on 5 models × 100 questions × 4 options (calls timed 50
  at a time) and on 1,000 × 12,000 × 10, against the Gram products it needs (``X Xᵀ`` of every
  chunk of questions, timed alone on the same views in the same run): the overhead per call
  beyond them (target ≤ 20 ms).

lm-sim (``lmsim.metrics.CAPA().compute_k``, a Python loop over questions) computes one pair's
point value per call: its time is measured on a sample of pairs in the same run and
extrapolated to all pairs (point values), and times B + 1 (the same bootstrap as a per-pair
loop of lm-sim over resampled questions).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import trialwise as tw
from trialwise.similarity.gram import GRAM_CHUNK_BYTES, gram_chunk_questions
from trialwise._stats.resampling import BATCH_BYTES


def rss_gb(field: str = "VmRSS") -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 2**20
    return float("nan")


def model_probs(j: int, n: int, k: int, shared: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """One model's softmax probabilities: shared logits (models agree beyond chance) plus its own skill."""
    g = np.random.default_rng([0, j])
    z = 0.6 * shared + 0.8 * g.normal(size=(n, k))
    z[np.arange(n), truth] += g.uniform(0, 2)
    p = np.exp(z - z.max(1, keepdims=True))
    return p / p.sum(1, keepdims=True)


def array_data(m: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    truth, shared = rng.integers(0, k, n), rng.normal(size=(n, k))
    probs = np.empty((m, n, k))
    for j in range(m):
        probs[j] = model_probs(j, n, k, shared, truth)
    return probs, truth


def table_data(probs: np.ndarray, truth: np.ndarray, clusters: np.ndarray | None = None) -> pd.DataFrame:
    m, n, _ = probs.shape
    rows = []
    for j in range(m):
        frame = pd.DataFrame({"condition": "task", "subject": f"m{j:04d}", "image": np.arange(n).astype(str),
                              "truth": truth.astype(str), "response": probs[j].argmax(1).astype(str),
                              "n_options": probs.shape[2], "probabilities": list(map(tuple, probs[j]))})
        if clusters is not None:
            frame["cluster"] = clusters
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def lmsim_seconds_per_pair(probs: np.ndarray, truth: np.ndarray, sample: int) -> float:
    from lmsim.metrics import CAPA

    t0 = time.perf_counter()
    for i in range(sample):
        CAPA().compute_k(list(probs[i]), list(probs[i + 1]), list(truth))
    return (time.perf_counter() - t0) / sample


def gemm_seconds(rows: int, inner: int, cols: int, dtype: type, symmetric: bool, repeat: int = 3) -> float:
    """Best time of one product at this shape: X Xᵀ (rows = cols) or (rows × inner) @ (inner × cols)."""
    g = np.random.default_rng(1)
    a = g.random((rows, inner)).astype(dtype)
    b = a if symmetric else g.random((inner, cols)).astype(dtype)
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        _ = a @ a.T if symmetric else a @ b
        best = min(best, time.perf_counter() - t0)
    return best


def run_point(m: int, n: int, k: int) -> None:
    load = os.getloadavg()
    probs, truth = array_data(m, n, k)
    before = rss_gb()
    t0 = time.perf_counter()
    res = tw.pairwise_agreement(probs, truth=truth, n_resamples=0)
    t_tw = time.perf_counter() - t0
    peak = rss_gb("VmHWM")
    c = gram_chunk_questions(m, k, GRAM_CHUNK_BYTES)
    chunks = -(-n // c)
    t64 = gemm_seconds(m, c * k, m, np.float64, True) * chunks
    t32 = gemm_seconds(m, c * k, m, np.float32, True) * chunks
    per_pair = lmsim_seconds_per_pair(probs, truth, 3)
    t_lm = per_pair * len(res)
    print(f"point  | {m} models x {n} questions x {k} options, {len(res):,} pairs, n_resamples=0 (array entry): "
          f"{t_tw:.1f} s; RSS before {before:.2f} GB (the float64 array), peak {peak:.2f} GB; "
          f"lm-sim per-pair loop {per_pair:.3f} s/pair x {len(res):,} = {t_lm:,.0f} s (extrapolated from 3 pairs), "
          f"ratio {t_lm / t_tw:,.0f}x; Gram products alone at this machine's rate ({chunks} chunks of {c} "
          f"questions, X Xᵀ of {m} x {c * k}): float64 {t64:.2f} s = {t64 / t_tw:.0%} of the call "
          f"(float32 would take {t32:.2f} s); load {load[0]:.2f}")


def run_table(m: int, n: int, k: int, m_target: int) -> None:
    load = os.getloadavg()
    probs, truth = array_data(m, n, k)
    base = rss_gb()
    t0 = time.perf_counter()
    trials = table_data(probs, truth)
    t_build = time.perf_counter() - t0
    table_gb = rss_gb() - base
    t0 = time.perf_counter()
    res = tw.pairwise_agreement(trials, n_resamples=0)
    t_read = time.perf_counter() - t0
    check = tw.pairwise_agreement(probs, truth=truth, n_resamples=0)
    same = np.allclose(res.statistic, check.statistic, rtol=0, atol=1e-12)
    f = m_target / m
    print(f"table  | {m} models x {n} questions x {k} options as a trial table ({len(trials):,} rows): "
          f"building {t_build:.1f} s and ~{table_gb:.2f} GB, pairwise_agreement(table, n_resamples=0) {t_read:.1f} s "
          f"(equal to the array entry to 1e-12: {same}); extrapolated to {m_target} models "
          f"({m_target * n:,} rows): build {t_build * f:.0f} s + read {t_read * f:.0f} s, ~{table_gb * f:.1f} GB; "
          f"load {load[0]:.2f}")


def run_bootstrap(m: int, n: int, k: int, b: int, clustered: bool) -> None:
    load = os.getloadavg()
    probs, truth = array_data(m, n, k)
    clusters = np.repeat(np.arange(-(-n // 10)), 10)[:n] if clustered else None
    trials = table_data(probs, truth, clusters)
    before = rss_gb()
    t0 = time.perf_counter()
    res = tw.pairwise_agreement(trials, clusters="cluster" if clustered else None, n_resamples=b, rng=0)
    t_tw = time.perf_counter() - t0
    peak = rss_gb("VmHWM")
    units = res.n_clusters
    width = 2 + m + len(res)
    rows = max(1, min(b, BATCH_BYTES // (12 * units + 8)))
    t_gemm = gemm_seconds(rows, units, width, np.float64, False, repeat=2) * (-(-b // rows))
    per_pair = lmsim_seconds_per_pair(probs, truth, 5)
    t_lm = per_pair * len(res)
    print(f"{'cluster' if clustered else 'boot':<7}| {m} models x {n} questions x {k} options, {len(res):,} pairs, "
          f"B = {b}, {units} resampling units{' (clusters of 10)' if clustered else ''}, trial table: {t_tw:.1f} s; "
          f"RSS before {before:.2f} GB (table + arrays), peak {peak:.2f} GB; lm-sim per-pair loop, point values only: "
          f"{t_lm:,.0f} s (ratio {t_lm / t_tw:,.0f}x), with B resamples {t_lm * (b + 1):,.0f} s "
          f"(ratio {t_lm * (b + 1) / t_tw:,.0f}x) (extrapolated from 5 pairs); W @ X products alone at this "
          f"machine's float64 rate ({rows} x {units} @ {units} x {width}): {t_gemm:.1f} s = {t_gemm / t_tw:.0%} of "
          f"the call; load {load[0]:.2f}")


def _interleaved(cases: dict, rounds: int, threads: int | None) -> dict:
    """Median (wall, CPU) seconds of every case over ``rounds`` interleaved rounds, BLAS on ``threads``."""
    from threadpoolctl import threadpool_limits

    times: dict = {k: [] for k in cases}
    with threadpool_limits(limits=threads):
        for _ in range(rounds):
            for name, fn in cases.items():
                t0, c0 = time.perf_counter(), time.process_time()
                fn()
                times[name].append((time.perf_counter() - t0, time.process_time() - c0))
    return {k: (float(np.median([t[0] for t in v])), float(np.median([t[1] for t in v]))) for k, v in times.items()}


def run_capa_vs_ec(m: int, n: int, k: int, b: int, rounds: int = 3) -> None:
    """Issue 33, goal 4a: all-pairs CAPA against all-pairs EC of the same models, per pair·question·replicate."""
    import warnings

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_distributed import simulated_models

    warnings.simplefilter("ignore")
    probs, truth = simulated_models(m, n, k)
    correct = pd.DataFrame(probs.argmax(axis=2) == truth).T  # items × models, as metric="ec" builds it
    pairs = m * (m - 1) // 2
    cases = {"CAPA (percentile)": lambda: tw.pairwise_agreement(probs, truth=truth, n_resamples=b, rng=7,
                                                               keep_replicates=False),
             "EC default (Jeffreys + Fisher)": lambda: tw.pairwise_error_consistency(correct, n_resamples=b, rng=7,
                                                                                     keep_replicates=False),
             "EC percentile": lambda: tw.pairwise_error_consistency(correct, n_resamples=b, rng=7,
                                                                    ci_method="percentile", keep_replicates=False)}
    print(f"capa-vs-ec | {m} models x {n} questions x {k} options ({pairs:,} pairs), B = {b}, seed 7, medians of "
          f"{rounds} interleaved rounds; uptime: {os.popen('uptime').read().strip()}")
    for threads in (1, None):
        med = _interleaved(cases, rounds, threads)
        unit = pairs * n * b
        print(f"  {'1 BLAS thread' if threads == 1 else 'all BLAS threads'}: " + "; ".join(
            f"{name} {w:.2f} s wall / {c:.2f} s CPU ({1e12 * c / unit:.0f} ps CPU per pair·question·replicate)"
            for name, (w, c) in med.items()))
        capa = med["CAPA (percentile)"]
        for ec in list(cases)[1:]:
            print(f"    CAPA / {ec}: {capa[0] / med[ec][0]:.2f} wall, {capa[1] / med[ec][1]:.2f} CPU (target ≤ 1)")
    print(f"  uptime after: {os.popen('uptime').read().strip()}")


def run_point_overhead(rounds: int = 3) -> None:
    """Issue 33, goal 4b: the point values' time beyond their Gram products (target ≤ 20 ms a call)."""
    print(f"point-overhead | pairwise_agreement(probs, truth=..., n_resamples=0) against the Gram products it needs "
          f"(X Xᵀ of every chunk of questions, the same views, timed alone in the same run), medians of interleaved "
          f"rounds; uptime: {os.popen('uptime').read().strip()}")
    for m, n, k, reps in [(5, 100, 4, 200), (1000, 12_000, 10, rounds)]:
        probs, truth = array_data(m, n, k)
        step = gram_chunk_questions(m, k, GRAM_CHUNK_BYTES)
        views = [probs[:, q0: q0 + step].reshape(m, -1) for q0 in range(0, n, step)]

        def products():
            for x in views:
                x @ x.T

        tw.pairwise_agreement(probs[:, :10], truth=truth[:10], n_resamples=0)  # warm-up
        inner = 1 if m > 100 else 50  # small calls timed 50 at a time
        cases = {"call": lambda: [tw.pairwise_agreement(probs, truth=truth, n_resamples=0) for _ in range(inner)],
                 "Gram products": lambda: [products() for _ in range(inner)]}
        med = _interleaved(cases, reps if m > 100 else max(3, reps // inner), None)
        (cw, cc), (gw, gc) = (tuple(v / inner for v in med[k_]) for k_ in cases)
        print(f"  {m} models x {n} questions x {k} options ({len(views)} chunks): call {1e3 * cw:.1f} ms wall / "
              f"{1e3 * cc:.1f} ms CPU, Gram products {1e3 * gw:.1f} ms / {1e3 * gc:.1f} ms; overhead "
              f"{1e3 * (cw - gw):.1f} ms wall, {1e3 * (cc - gc):.1f} ms CPU (target ≤ 20 ms); call / products "
              f"{cw / gw:.2f} wall, {cc / gc:.2f} CPU")
    print(f"  uptime after: {os.popen('uptime').read().strip()}")


def main(argv: list[str]) -> None:
    if not argv:
        for args in (["point", "1000", "12000", "10"], ["table", "50", "12000", "10", "1000"],
                     ["bootstrap", "100", "12000", "10", "1000"], ["clustered", "100", "12000", "10", "1000"]):
            subprocess.run([sys.executable, __file__, *args], check=True)
        return
    kind, nums = argv[0], [int(x) for x in argv[1:]]
    if kind == "capa-vs-ec":
        run_capa_vs_ec(*nums)
    elif kind == "point-overhead":
        run_point_overhead(*nums)
    elif kind == "point":
        run_point(*nums)
    elif kind == "table":
        run_table(*nums)
    else:
        run_bootstrap(*nums, clustered=kind == "clustered")


if __name__ == "__main__":
    main(sys.argv[1:])
