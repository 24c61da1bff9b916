"""Percentile vs bias-corrected ("bc") intervals of tw.brainscore.i2n, and the estimator's mean (issue 19).

The first I2n cell of benchmarks/calibration/brainscore_metrics_coverage.py (8 objects × 10 images × 60
trials, similarity 0.6, object_seed 7, n_splits 10; truth: 400 images per object, rng
20261123). R experiments (data rng 1000 + r, bootstrap rng r), B = 200. Both intervals are
computed from the same replicates of each experiment; it prints their running coverage of
raw, ceiling and score, and the running mean of the estimates.

    python benchmarks/diagnostics/i2n_interval_check.py 60
"""

import sys

import numpy as np

import trialwise as tw
from trialwise._stats.intervals import interval



def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    kw = dict(n_objects=8, trials_per_image=60, similarity=0.6, object_seed=7)
    # the truth is a point value, which does not depend on B (2: the fewest replicates allowed)
    big = tw.brainscore.i2n(*tw.brainscore.synthetic_2afc(images_per_object=400, rng=20261123, **kw), n_splits=10,
                            n_resamples=2, rng=1)
    truth = [big.raw, big.ceiling.statistic, big.score]
    print("truth raw, ceiling, score:", np.round(truth, 3).tolist())
    hits = {m: np.zeros((reps, 3)) for m in ("percentile", "bc")}
    est = []
    for r in range(reps):
        res = tw.brainscore.i2n(*tw.brainscore.synthetic_2afc(images_per_object=10, rng=1000 + r, **kw), n_splits=10,
                                n_resamples=200, rng=r)
        obs = [res.raw, res.ceiling.statistic, res.score]
        est.append(obs)
        dists = [res.raw_distribution, res.ceiling.bootstrap_distribution, res.bootstrap_distribution]
        for m in hits:
            for j in range(3):
                dd = dists[j][np.isfinite(dists[j])]
                lo, hi = interval(m, dd, obs[j], 0.95, bounds=(-np.inf, np.inf))
                hits[m][r, j] = lo <= truth[j] <= hi
        if r % 10 == 9:
            print(r + 1, {m: h[: r + 1].mean(0).round(3).tolist() for m, h in hits.items()},
                  "mean estimates", np.mean(est, 0).round(3).tolist(), flush=True)


if __name__ == "__main__":
    main()
