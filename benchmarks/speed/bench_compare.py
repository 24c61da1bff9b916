"""Speed of the classifier-comparison toolkit against naive baselines, in one run.

    python benchmarks/speed/bench_compare.py [--items 20000] [--naive-permutations 100]

(a) DeLong's test, binary, n items: placement values from mid-ranks (O(n log n)) vs the
    definition — the m × n comparison matrix of positives against negatives, per
    classifier, in numpy (chunked), then the same covariance.
(b) The omnibus permutation test, K = 16, n items, T = 9,999: one Binomial draw per
    class pair and replicate vs swapping every disagreeing item and rebuilding the
    agreement matrix per replicate (run for ``--naive-permutations`` replicates and
    extrapolated linearly to T).
(c) ``tw.compare`` end to end with probabilities, K = 16, n items, T = 9,999 (all methods
    and the ensemble recommendation).

Peak memory with tracemalloc, in a second run (tracing slows Python-level code). Both sides are measured in the same run, on this machine.
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
from trialwise.comparison import delong_test, symmetry_permutation_test


def naive_delong(y, sa, sb):
    pos, neg = y == 1, y == 0
    v10, v01 = [], []
    for s in (sa, sb):
        x, z = s[pos], s[neg]
        row = np.zeros(len(x))
        col = np.zeros(len(z))
        for start in range(0, len(x), 1000):
            block = x[start:start + 1000, None]
            psi = (block > z[None, :]) + 0.5 * (block == z[None, :])
            row[start:start + 1000] = psi.mean(axis=1)
            col += psi.sum(axis=0)
        v10.append(row)
        v01.append(col / len(x))
    cov = np.cov(np.array(v10)) / pos.sum() + np.cov(np.array(v01)) / neg.sum()
    diff = np.mean(v10[0]) - np.mean(v10[1])
    return diff / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])


def naive_permutation(a, b, k, n_perm, rng):
    def stat(x, y):
        m = np.bincount(x * k + y, minlength=k * k).reshape(k, k)
        return np.abs(m - m.T)[np.triu_indices(k, 1)].sum()

    observed = stat(a, b)
    hits = 0
    for _ in range(n_perm):
        swap = rng.random(len(a)) < 0.5
        hits += stat(np.where(swap, b, a), np.where(swap, a, b)) >= observed
    return hits


def timed(fn):
    """Result, wall time (without tracing), and peak traced memory of a second, traced run."""
    t0 = time.perf_counter()
    out = fn()
    sec = time.perf_counter() - t0
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, sec, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--naive-permutations", type=int, default=100)
    args = parser.parse_args()
    n, t = args.items, 9999
    gen = np.random.default_rng(0)
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}; n = {n}")

    y = gen.integers(0, 2, n)
    common = gen.normal(size=n)
    sa = 1 / (1 + np.exp(-(y + common + gen.normal(size=n))))
    sb = 1 / (1 + np.exp(-(0.9 * y + common + gen.normal(size=n))))
    delong_test(y[:50], sa[:50], sb[:50])                  # warm-up: imports and first calls
    naive_delong(y[:50], sa[:50], sb[:50])
    res, fast, mem = timed(lambda: delong_test(y, sa, sb))
    z_naive, slow, mem_naive = timed(lambda: naive_delong(y, sa, sb))
    assert np.isclose(res.z, z_naive)
    print(f"(a) DeLong, binary: {fast * 1e3:.1f} ms (peak {mem:.0f} MiB) vs naive placements {slow:.2f} s "
          f"(peak {mem_naive:.0f} MiB): {slow / fast:.0f}x")

    k = 16
    truth = gen.integers(0, k, n)
    a = np.where(gen.random(n) < 0.7, truth, gen.integers(0, k, n))
    b = np.where(gen.random(n) < 0.7, truth, gen.integers(0, k, n))
    _, fast, mem = timed(lambda: symmetry_permutation_test(a, b, n_resamples=t, rng=1))
    _, slow, _ = timed(lambda: naive_permutation(a, b, k, args.naive_permutations, gen))
    slow_full = slow * t / args.naive_permutations
    print(f"(b) permutation test, K = {k}, T = {t}: {fast:.2f} s (peak {mem:.0f} MiB) vs per-item swapping "
          f"{slow_full:.1f} s (extrapolated from {args.naive_permutations}): {slow_full / fast:.0f}x")

    z = gen.normal(size=(n, k))
    z[np.arange(n), truth] += 1.5
    pa = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    z2 = z + gen.normal(size=(n, k))
    pb = np.exp(1.5 * z2) / np.exp(1.5 * z2).sum(axis=1, keepdims=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tw.compare(truth[:200], proba_a=pa[:200], proba_b=pb[:200], rng=2)      # warm-up
        rep, sec, mem = timed(lambda: tw.compare(truth, proba_a=pa, proba_b=pb, rng=2))
    print(f"(c) compare(), K = {k} with probabilities: {sec:.2f} s for {len(rep.results)} methods "
          f"(peak {mem:.0f} MiB); decision: {rep.recommendation.decision}")


if __name__ == "__main__":
    main()
