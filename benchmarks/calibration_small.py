"""Small coverage and type-I error study used to choose the library's defaults.

Simulates 2×2 tables with known κ and accuracies (multinomial draws from the cell
probabilities), computes every interval method and every test on each, and prints
coverage at nominal 95 % and rejection rates at α = 0.05. The full study is issue 6.

    python benchmarks/calibration_small.py [--datasets 2000] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import trialwise as tw
from trialwise.ec import _infer, _options
from trialwise.intervals import CI_METHODS
from trialwise.kappa import cell_probabilities, kappa_from_counts
from trialwise.resampling import bootstrap_tables, multinomial_tables
from trialwise.significance import INDEPENDENCE_TESTS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    R, B = args.datasets, args.resamples
    se = np.sqrt(0.95 * 0.05 / R)
    print(f"R = {R} datasets per point, B = {B}; coverage MC standard error {100 * se:.2f} pp\n")
    t0 = time.perf_counter()
    print("coverage at nominal 95 % (share of datasets whose interval holds the true kappa)")
    print(f"{'n':>5} {'acc_a':>5} {'acc_b':>5} {'kappa':>5} | " + " ".join(f"{m:>10}" for m in CI_METHODS) + " | undefined")
    for n in (50, 160, 1000):
        for a_a, a_b in ((0.6, 0.8), (0.75, 0.75), (0.9, 0.9), (0.95, 0.95)):
            for kappa in (0.0, 0.3, 0.5):
                p = cell_probabilities(kappa, a_a, a_b)
                tables = multinomial_tables(p, n, size=R, rng=rng)
                reps = bootstrap_tables(tables, B, rng=rng)
                cov = []
                for m in CI_METHODS:
                    opts = _options(0.95, m, "asymptotic", B, False, rng)
                    dist = None if m == "analytic" else kappa_from_counts(reps)
                    out = _infer(tables, dist, opts)
                    lo, hi = out["low"], out["high"]
                    cov.append(np.mean((lo <= kappa + 1e-12) & (kappa - 1e-12 <= hi)))
                undef = np.mean(np.isnan(kappa_from_counts(reps)))
                print(f"{n:>5} {a_a:>5} {a_b:>5} {kappa:>5} | " + " ".join(f"{100 * c:>10.1f}" for c in cov)
                      + f" | {100 * undef:.2f}%")
    print("\ntype-I error at alpha = 0.05 (kappa = 0, independent observers)")
    print(f"{'n':>5} {'acc_a':>5} {'acc_b':>5} | " + " ".join(f"{t:>10}" for t in INDEPENDENCE_TESTS))
    for n in (50, 160, 1000):
        for a_a, a_b in ((0.6, 0.8), (0.75, 0.75), (0.9, 0.9), (0.95, 0.95)):
            p = cell_probabilities(0.0, a_a, a_b)
            tables = multinomial_tables(p, n, size=R, rng=rng)
            rates = []
            for t in INDEPENDENCE_TESTS:
                if t == "boschloo" and n > 200:
                    rates.append(np.nan)  # seconds per table: not run here
                    continue
                opts = _options(0.95, "analytic", t, 1000, False, rng)
                pv = _infer(tables, None, opts)["pvalue"]
                ok = ~np.isnan(pv)
                rates.append(np.mean(pv[ok] <= 0.05))
            print(f"{n:>5} {a_a:>5} {a_b:>5} | " + " ".join(f"{100 * r:>10.1f}" for r in rates))
    print(f"\nwall time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
