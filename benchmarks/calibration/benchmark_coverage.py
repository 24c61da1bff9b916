"""Calibration of leaderboards on simulated benchmarks (tw.validity.benchmark_coverage_study).

R = 1000 simulated benchmarks (2 experiments × 3 conditions × 200 items, 5 humans, 6 models
with known true scores), B = 1000 bootstrap replicates and M = 1000 swaps each. Writes the
three tables to ``docs/validity/benchmark_coverage_*.csv`` and prints them with the wall time
(about a minute on 2 cores). The numbers are quoted in ``docs/benchmark.md``.

    python benchmarks/calibration/benchmark_coverage.py
"""

from __future__ import annotations

import platform
import warnings
from pathlib import Path

import numpy as np

import trialwise as tw

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    study = tw.validity.benchmark_coverage_study(n_datasets=1000, n_resamples=1000,
                                                 alphas=(0.05, 0.01), rng=0)
    out = ROOT / "docs" / "validity"
    out.mkdir(parents=True, exist_ok=True)
    study.table.to_csv(out / "benchmark_coverage_scores.csv", index=False)
    study.ranks.to_csv(out / "benchmark_coverage_ranks.csv", index=False)
    study.tests.to_csv(out / "benchmark_coverage_tests.csv", index=False)
    print(study.summary())
    print(f"\nwall time {study.wall_time:.0f} s ({platform.machine()}, numpy {np.__version__})")


if __name__ == "__main__":
    main()
