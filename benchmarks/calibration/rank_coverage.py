"""Coverage and width of the leaderboard's rank sets (issue 16): percentile vs marginal vs simultaneous.

1. R = 400 simulated benchmarks (``tw.validity.benchmark_coverage_study``: 2 experiments ×
   3 conditions × 200 items, 5 humans, 6 models with known true scores, x and y tied),
   B = 1000 bootstrap replicates each, seed 0: per model and jointly, the share of sets that
   hold the true rank and their mean width (high − low), for the equal-tailed percentile
   interval of the bootstrap ranks (the table's interval before issue 16), the marginal and
   the simultaneous rank sets of Mogstad, Romano, Shaikh & Wilhelm (2024), and the confidence
   set of the best.
2. The bundled model-vs-human leaderboard (all 17 experiments, B = 10,000, seed 0): mean width
   of each kind of set over the 21 models, and the size of the best set.
3. Close models (the simulated benchmark's models are far apart): K = 10 Gaussian scores with
   SE 1, true scores spaced 0, 0.5, 1 or 3 SE apart, B = 1000 parametric bootstrap replicates
   around each estimate, R = 500, seed 1: joint and mean per-model coverage and mean width.

Writes ``docs/validity/rank_coverage.csv`` and prints both tables (a few minutes on 2 cores).
The numbers are quoted in ``docs/benchmark.md`` ("Rank sets").

    python benchmarks/calibration/rank_coverage.py [R]        # all three parts
    python benchmarks/calibration/rank_coverage.py gaussian    # part 3 only (about a minute)
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

import trialwise as tw
from trialwise.leaderboards.ranks import best_set, rank_intervals, rank_scores, rank_sets

ROOT = Path(__file__).resolve().parents[2]


def main(r: int = 400) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    t0 = time.perf_counter()
    study = tw.validity.benchmark_coverage_study(n_datasets=r, n_resamples=1000, run_tests=False, rng=0)
    out = ROOT / "docs" / "validity"
    out.mkdir(parents=True, exist_ok=True)
    study.ranks.to_csv(out / "rank_coverage.csv", index=False)
    print(f"Simulated benchmarks: R = {r}, B = 1000, seed 0 ({time.perf_counter() - t0:.0f} s)")
    print(study.ranks.to_string(index=False, float_format=lambda x: f"{x:.3f}"))

    t0 = time.perf_counter()
    lb = tw.leaderboard(tw.datasets.model_vs_human(), n_resamples=10_000, rng=0)
    t = lb.table[lb.table.kind == "candidate"]
    k = len(lb.candidates)
    lo, hi = rank_intervals(rank_scores(lb.replicates[:, :k], higher_is_better=lb.higher_is_better),
                            lb.confidence_level)
    print(f"\nBundled model-vs-human leaderboard: {k} models, B = 10,000, seed 0 "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"mean width  percentile {np.mean(hi - lo):.2f}  "
          f"marginal {np.mean(t.rank_high - t.rank_low):.2f}  "
          f"simultaneous {np.mean(t.rank_set_high - t.rank_set_low):.2f}")
    print(f"best set: {list(t.observer[t.in_best_set.astype(bool)])}; groups: {''.join(sorted(set(''.join(t.group))))}")
    cols = ["observer", "rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high", "in_best_set", "group"]
    frame = t[cols].assign(pct_low=[int(lo[lb.candidates.index(o)]) for o in t.observer],
                           pct_high=[int(hi[lb.candidates.index(o)]) for o in t.observer])
    print(frame.to_string(index=False))


def gaussian(r: int = 500, k: int = 10, b: int = 1000) -> None:
    g = np.random.default_rng(1)
    print(f"\nClose models: K = {k} Gaussian scores (SE 1), B = {b} parametric bootstrap replicates, R = {r}, seed 1")
    print("spacing  set           joint  per-model  mean width")
    for spacing in (0.0, 0.5, 1.0, 3.0):
        theta = spacing * np.arange(k)[::-1]
        true_lo = np.array([1 + np.sum(theta > t) for t in theta])
        true_hi = np.array([np.sum(theta >= t) for t in theta])
        cov: dict[str, list] = {"percentile": [], "marginal": [], "simultaneous": []}
        wid: dict[str, list] = {key: [] for key in cov}
        best = []
        for _ in range(r):
            est = theta + g.standard_normal(k)
            reps = est + g.standard_normal((b, k))
            sets = {"percentile": rank_intervals(rank_scores(reps), 0.95), "marginal": rank_sets(est, reps),
                    "simultaneous": rank_sets(est, reps, simultaneous=True)}
            for key, (lo, hi) in sets.items():
                cov[key].append((lo <= true_hi) & (hi >= true_lo))
                wid[key].append(np.mean(hi - lo))
            best.append(bool(np.all(best_set(est, reps)[theta == theta.max()])))
        for key in cov:
            c = np.asarray(cov[key])
            print(f"{spacing:7.1f}  {key:<12} {np.mean(c.all(axis=1)):6.3f}  {np.mean(c):9.3f}  {np.mean(wid[key]):10.2f}")
        print(f"{spacing:7.1f}  {'best set':<12} {np.mean(best):6.3f}  (holds every truly best model)")


if __name__ == "__main__":
    if sys.argv[1:] == ["gaussian"]:
        gaussian()
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
        gaussian()
