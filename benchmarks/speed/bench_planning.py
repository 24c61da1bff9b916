"""Speed of the copy-model planning grid (seed 000, Fig. 3) against per-trial simulation.

    python benchmarks/speed/bench_planning.py [--simulations 10000] [--baseline-simulations 20]

The grid: 30 values of n log-spaced from 10 to 100,000 × 10 accuracies (0.5 … 0.95, equal
for both observers) × κ = 0.5 × 10,000 simulated experiments per point, through
``tw.planning.ci_width`` (one multinomial draw of four counts per experiment, blocks of the grid
on all cores).

The baseline draws every trial, as the published procedure does (seed 000, Algorithm 2):
per simulated experiment, the reference's n outcomes, the n copy decisions and the n own
outcomes of the other observer (numpy-vectorised over trials), then κ. It runs on every
grid point with ``--baseline-simulations`` experiments per point and is extrapolated
linearly to the full number (its cost is linear in the number of experiments). A second,
stronger baseline draws all experiments of a grid point at once (vectorised over trials
*and* experiments, in chunks of 2**24 trials) and is extrapolated the same way.

Times are the best of three runs; peak memory is measured with tracemalloc in a separate
run (it slows allocation down). Both sides are measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc

import numpy as np

import trialwise as tw
from trialwise._stats.kappa import kappa_from_counts

N_GRID = np.unique(np.round(np.logspace(1, 5, 30)).astype(np.int64))
ACCURACIES = np.round(np.linspace(0.5, 0.95, 10), 3)
KAPPA = 0.5


def _kappa_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n11 = np.sum(a & b, axis=-1)
    n10 = np.sum(a & ~b, axis=-1)
    n01 = np.sum(~a & b, axis=-1)
    n00 = a.shape[-1] - n11 - n10 - n01
    return kappa_from_counts(np.stack([np.stack([n11, n10], -1), np.stack([n01, n00], -1)], -2))


def per_trial(n: int, acc: float, sims: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 2 of seed 000: one experiment at a time, every trial drawn."""
    p, latent = KAPPA, acc  # equal accuracies: p_copy = κ and the latent accuracy is the accuracy (Prop. 1)
    out = np.empty(sims)
    for s in range(sims):
        ref = rng.random(n) < acc
        copy = rng.random(n) < p
        own = rng.random(n) < latent
        out[s] = _kappa_of(ref, np.where(copy, ref, own))
    return out


def per_trial_vectorised(n: int, acc: float, sims: int, rng: np.random.Generator) -> np.ndarray:
    """Every trial drawn, all experiments of a grid point at once (chunks of 2**24 trials)."""
    rows = max(1, 2**24 // n)
    out = []
    for start in range(0, sims, rows):
        m = min(rows, sims - start)
        ref = rng.random((m, n)) < acc
        copy = rng.random((m, n)) < KAPPA
        own = rng.random((m, n)) < acc
        out.append(_kappa_of(ref, np.where(copy, ref, own)))
    return np.concatenate(out)


def measure(fn, repeats: int = 3):
    """Best wall time of ``repeats`` runs (tracemalloc off), then peak memory of one more run."""
    seconds = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        seconds = min(seconds, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--simulations", type=int, default=10_000)
    ap.add_argument("--baseline-simulations", type=int, default=20)
    args = ap.parse_args()
    S, s_base = args.simulations, args.baseline_simulations
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}")
    print(f"grid: {len(N_GRID)} n (10 … 100,000) × {len(ACCURACIES)} accuracies × kappa {KAPPA} × {S} simulations "
          f"= {len(N_GRID) * len(ACCURACIES) * S:,} experiments, {int(N_GRID.sum()) * len(ACCURACIES) * S:,} trials")

    tw.planning.ci_width(100, 0.7, 0.7, KAPPA, n_simulations=100, rng=0)  # warm-up
    res, t_fast, mem_fast = measure(
        lambda: tw.planning.ci_width(N_GRID[:, None], ACCURACIES, ACCURACIES, KAPPA, n_simulations=S, rng=1)
    )
    print(f"\nci_width, whole grid             : {t_fast:8.2f} s   peak {mem_fast:7.1f} MiB"
          f"   ({res.distribution.size / t_fast:,.0f} experiments/s)")
    _, t_one, _ = measure(
        lambda: tw.planning.ci_width(N_GRID[:, None], ACCURACIES, ACCURACIES, KAPPA, n_simulations=S, rng=1, workers=1)
    )
    print(f"ci_width, whole grid, 1 thread    : {t_one:8.2f} s")

    rng = np.random.default_rng(2)
    t_loop = t_vec = 0.0
    for n in N_GRID:
        for acc in ACCURACIES:
            t0 = time.perf_counter()
            per_trial(int(n), float(acc), s_base, rng)
            t_loop += time.perf_counter() - t0
            t0 = time.perf_counter()
            per_trial_vectorised(int(n), float(acc), s_base, rng)
            t_vec += time.perf_counter() - t0
    scale = S / s_base
    print(f"\nper-trial baseline (Algorithm 2), {s_base} simulations per point: {t_loop:8.2f} s"
          f" -> extrapolated to {S}: {t_loop * scale:8.0f} s")
    print(f"per-trial, vectorised over experiments, {s_base} per point : {t_vec:8.2f} s"
          f" -> extrapolated to {S}: {t_vec * scale:8.0f} s")
    print(f"\nspeed-up vs Algorithm 2          : {t_loop * scale / t_fast:8.0f} x")
    print(f"speed-up vs vectorised per-trial : {t_vec * scale / t_fast:8.0f} x")


if __name__ == "__main__":
    main()
