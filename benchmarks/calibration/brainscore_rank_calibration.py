"""Coverage of the rank sets of ``BehavioralBenchmark.score_table`` for the per-image metrics.

    python benchmarks/calibration/brainscore_rank_calibration.py [R_OST] [R_I2N]

Three candidates of known order in each of R simulated data sets; each data set is scored
with its own seed and the rank columns are checked against the true ranks:

* OST: 150 images, 6 target measurements each (``150 + 20 d + N(0, 25²)``), candidates
  ``120 + 15 (s d + √(1 − s²) e)`` with s = 0.75, 0.65, 0.55 (true order), B = 200, 4 splits;
* I2n: ``tw.brainscore.synthetic_2afc`` with 5 objects × 8 images, 40 trials per image and a
  model of similarity 0.9; the candidates are its probabilities times ``exp(σ Z)`` with
  independent standard normal ``Z`` per image and class, renormalised, σ = 0.4, 0.6, 0.8
  (true order), B = 100, 4 splits.

Prints, per metric, the share of data sets in which the marginal rank set of each candidate
holds its true rank (all three), in which the simultaneous sets hold all three, in which the
best set holds the best candidate, and in which some set is wider than one rank. Defaults
R = 400 (OST) and 100 (I2n); docs/brainscore.md quotes a run.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

import trialwise as tw


def ost_draw(g, n=150, reps=6, sims=(0.55, 0.65, 0.75)):
    d = g.normal(size=n)
    images = [f"i{i}" for i in range(n)]
    humans = pd.DataFrame({"image": np.repeat(images, reps),
                           "ost": (150 + 20 * d[:, None] + g.normal(0, 25, (n, reps))).ravel()})
    models = {f"s{s}": pd.Series(120 + 15 * (s * d + np.sqrt(1 - s * s) * g.normal(size=n)), index=images)
              for s in sims}
    return humans, models


def i2n_draw(g, r, noise=(0.4, 0.6, 0.8)):
    """Human 2AFC trials and three candidates: one model of similarity 0.9, each candidate its probabilities times
    exp(σ Z) (Z standard normal per image and class, independent between candidates), renormalised; more noise
    σ, a lower expected I2n."""
    base, trials = tw.brainscore.synthetic_2afc(n_objects=5, images_per_object=8, trials_per_image=40,
                                               similarity=0.9, rng=100 + r)
    models = {}
    for sd in noise:
        p = base * np.exp(sd * g.standard_normal(base.shape))
        models[f"n{sd}"] = p.div(p.sum(axis=1), axis=0)
    return models, trials


def check(table, true):
    t = table["observer"].map(true)
    marg = ((table["rank_low"] <= t) & (t <= table["rank_high"])).all()
    simul = ((table["rank_set_low"] <= t) & (t <= table["rank_set_high"])).all()
    best = bool(table.loc[t == 1, "in_best_set"].iloc[0])
    wide = (table["rank_set_high"] > table["rank_set_low"]).any()
    return np.array([marg, simul, best, wide], dtype=float)


def main(r_ost: int = 400, r_i2n: int = 100) -> None:
    g = np.random.default_rng(20261124)
    acc = np.zeros(4)
    for r in range(r_ost):
        humans, models = ost_draw(g)
        table = tw.brainscore.BehavioralBenchmark(humans, metric="ost", n_resamples=200, n_splits=4, rng=r).score_table(models)
        acc += check(table, {"s0.75": 1, "s0.65": 2, "s0.55": 3})
    print(f"ost  R={r_ost}: marginal {acc[0] / r_ost:.3f}, simultaneous {acc[1] / r_ost:.3f}, "
          f"best set {acc[2] / r_ost:.3f}, some set wider than one rank {acc[3] / r_ost:.3f}")
    acc = np.zeros(4)
    for r in range(r_i2n):
        models, trials = i2n_draw(g, r)
        table = tw.brainscore.BehavioralBenchmark(trials, metric="i2n", n_resamples=100, n_splits=4, rng=r).score_table(models)
        acc += check(table, {"n0.4": 1, "n0.6": 2, "n0.8": 3})
    print(f"i2n  R={r_i2n}: marginal {acc[0] / r_i2n:.3f}, simultaneous {acc[1] / r_i2n:.3f}, "
          f"best set {acc[2] / r_i2n:.3f}, some set wider than one rank {acc[3] / r_i2n:.3f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
