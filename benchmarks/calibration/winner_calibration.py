"""Calibration of :meth:`trialwise.leaderboards.Leaderboard.winner` (the selection-adjusted score of the best model).

The simulated accuracy boards of ``benchmarks/calibration/honestboard_comparison.py`` (12 models, the top
four within one point, a shared item difficulty), R boards per number of items T, B = 1,000:
the mean error of the observed winner's score and of the adjusted score against the winner's
true accuracy, and the coverage of the 95 % interval. honestboard is not needed.

    python benchmarks/calibration/winner_calibration.py [R=200]
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

import trialwise as tw
from honestboard_comparison import TRUE_ACCURACY, simulate, trials_of  # benchmarks/calibration/ is on the path


def run(n_items: int, r: int, b: int = 1000) -> tuple[float, float, float]:
    rng = np.random.default_rng([7, n_items])
    names = [f"m{k:02d}" for k in range(len(TRUE_ACCURACY))]
    truth = dict(zip(names, TRUE_ACCURACY))
    raw, adjusted, covered = [], [], []
    for _ in range(r):
        lb = tw.leaderboard(trials_of(simulate(rng, n_items), names), protocol="accuracy", n_resamples=b,
                            ci_method="bc", rng=int(rng.integers(2**31)))
        w = lb.winner()
        t = truth[w.observer]
        raw.append(w.score - t)
        adjusted.append(w.statistic - t)
        covered.append(w.confidence_interval.low <= t <= w.confidence_interval.high)
    return float(np.mean(raw)), float(np.mean(adjusted)), float(np.mean(covered))


def main(r: int = 200) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    for n_items in (500, 2000):
        raw, adj, cov = run(n_items, r)
        print(f"T = {n_items}, R = {r}: bias of the observed winner's score {raw:+.4f}, of the adjusted score "
              f"{adj:+.4f}; the interval covers the winner's true accuracy in {cov:.3f}", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
