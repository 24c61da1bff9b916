"""Speed of tw.pairwise_agreement (CAPA with the joint bootstrap) against a per-pair lm-sim loop.

    python benchmarks/bench_agreement.py [MODELS] [QUESTIONS] [OPTIONS] [B]   # default 100 12000 10 1000

Prints the time of building the trial table (not counted), of pairwise_agreement (point values
and B joint bootstrap replicates of every pair), and of lm-sim's CAPA point value for a sample
of pairs, extrapolated to all pairs (lm-sim computes point values only).
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np
import pandas as pd

import trialwise as tw


def table(m: int, n: int, k: int, rng: np.random.Generator) -> tuple[pd.DataFrame, list, np.ndarray]:
    truth = rng.integers(0, k, n)
    shared = rng.normal(size=(n, k))
    probs, rows = [], []
    for j in range(m):
        z = 0.6 * shared + 0.8 * rng.normal(size=(n, k))
        z[np.arange(n), truth] += rng.uniform(0, 2)
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        probs.append(p)
        rows.append(pd.DataFrame({"condition": "task", "subject": f"m{j:03d}", "image": np.arange(n).astype(str),
                                  "truth": truth.astype(str), "response": p.argmax(1).astype(str), "n_options": k,
                                  "probabilities": list(map(tuple, p))}))
    return pd.concat(rows, ignore_index=True), probs, truth


def main(m: int = 100, n: int = 12000, k: int = 10, b: int = 1000) -> None:
    from lmsim.metrics import CAPA

    trials, probs, truth = table(m, n, k, np.random.default_rng(0))
    t0 = time.perf_counter()
    res = tw.pairwise_agreement(trials, n_resamples=b, rng=0)
    t_tw = time.perf_counter() - t0
    sample = min(5, len(res))
    t0 = time.perf_counter()
    for i in range(sample):
        CAPA().compute_k(probs[0], probs[i + 1], truth)
    t_lm = (time.perf_counter() - t0) / sample * len(res)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{m} models x {n} questions x {k} options, {len(res)} pairs, B = {b}: pairwise_agreement {t_tw:.1f} s "
          f"(point values + joint bootstrap); lm-sim point values only, per-pair loop, extrapolated from {sample} "
          f"pairs: {t_lm:.1f} s; peak RSS {peak:.2f} GB (table included)")


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:5]))
