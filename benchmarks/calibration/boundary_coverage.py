"""Coverage of the EC intervals near the ceiling, with and without the boundary rule (issue 31, item 6).

    python benchmarks/calibration/boundary_coverage.py [--datasets 4000] [--resamples 1000] [--seed 0]

Small n (20, 40, 60), equal accuracies (0.7, 0.8, 0.9) and a true κ near 1 (0.9, 0.95, 0.98, 0.995,
and 1: a true copy):
the designs where a simulated table often has no disagreement at all (EC = 1), and the Jeffreys
posterior, which never reaches 1, gave an interval that excluded its own estimate. For each point,
``tw.validity.coverage_study`` (``--datasets`` experiments, ``--resamples`` posterior draws or
bootstrap replicates, ``rng=--seed``) is run twice on the same draws: with the boundary rule
(:func:`trialwise.ec.inference.hold_estimate`, the library's intervals) and without it (the rule
replaced by the identity: the intervals before the rule). Printed per point and method: the
share of experiments without disagreement (EC = 1; undefined when every item falls in one
cell, and the Jeffreys interval is then the posterior's, with no estimate to hold), coverage before and after (with its Monte-Carlo standard
error), the share missed above the interval, and the mean width. The unequal accuracy pairs of
the grid cannot reach these κ and are skipped.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import trialwise as tw
from trialwise._stats.resampling import multinomial_tables
from trialwise.ec import inference

KAPPAS = [0.9, 0.95, 0.98, 0.995, 1.0]


def run(datasets: int, resamples: int, seed: int, methods: list[str], rule: bool):
    grid = tw.validity.study_grid(n=[20, 40, 60], accuracies=[0.7, 0.8, 0.9], kappas=KAPPAS)
    grid = grid[grid.accuracy_a == grid.accuracy_b]
    saved = inference.hold_estimate
    if not rule:
        inference.hold_estimate = lambda counts, statistic, low, high: (low, high)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tw.validity.coverage_study(grid, methods=methods, confidence_levels=[0.95],
                                              n_datasets=datasets, n_resamples=resamples, rng=seed).table
    finally:
        inference.hold_estimate = saved


def share_ec_one(n: int, a: float, k: float, datasets: int, seed: int) -> float:
    """Share of simulated tables without disagreement (EC = 1, or undefined when all in one cell)."""
    tables = multinomial_tables(tw.ec.cell_probabilities(k, a, a), n, size=datasets, rng=seed)
    return float(np.mean((tables[:, 0, 1] == 0) & (tables[:, 1, 0] == 0)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=4000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default="jeffreys,percentile,bca")
    args = parser.parse_args()
    methods = args.methods.split(",")
    after = run(args.datasets, args.resamples, args.seed, methods, rule=True)
    before = run(args.datasets, args.resamples, args.seed, methods, rule=False)
    keys = ["n", "accuracy_a", "kappa", "method"]
    both = before.merge(after, on=keys + ["accuracy_b", "confidence_level"], suffixes=("_before", "_after"))
    print(f"R = {args.datasets}, B = {args.resamples}, seed {args.seed}; coverage in % at nominal 95 %")
    print("| n | accuracies | κ | P(no disagreement) | EC undefined | method | before | after | ± SE | missed above: before → after"
          " | mean width: before → after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in both.sort_values(keys).itertuples(index=False):
        p1 = share_ec_one(row.n, row.accuracy_a, row.kappa, 20_000, 1)
        print(f"| {row.n} | {row.accuracy_a:g} / {row.accuracy_b:g} | {row.kappa:g} | {100 * p1:.1f} % | {100 * row.share_undefined_estimate_after:.1f} % | {row.method} "
              f"| {100 * row.coverage_before:.1f} | {100 * row.coverage_after:.1f} | {100 * row.coverage_se_after:.1f} "
              f"| {100 * row.miss_above_before:.1f} → {100 * row.miss_above_after:.1f} "
              f"| {row.mean_width_before:.3f} → {row.mean_width_after:.3f} |")
    for m in methods:
        sub = both[both.method == m]
        print(f"{m}: coverage before {100 * sub.coverage_before.min():.1f}–{100 * sub.coverage_before.max():.1f} %, "
              f"after {100 * sub.coverage_after.min():.1f}–{100 * sub.coverage_after.max():.1f} %; "
              f"points changed: {int((sub.coverage_before != sub.coverage_after).sum())} of {len(sub)}")


if __name__ == "__main__":
    main()
