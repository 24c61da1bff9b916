"""Coverage of leaderboard intervals when reference observers share few items (issue 14, item 2).

Each simulated benchmark (``tw.validity.benchmark_coverage_study``) has 2 experiments × 3
conditions; every human sees its own random ``reference_items`` of a condition's ``n_items``
items, so two humans share about reference_items² / n_items items and a model shares
``reference_items`` with each human. For every design and interval method it records the
coverage of the true scores, the bias, and whether each interval contains its estimate, and
writes ``docs/validity/sparse_overlap.csv`` (the table in docs/benchmark.md).

    python benchmarks/calibration/sparse_overlap_coverage.py [R] [B]
"""

import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from trialwise.validity.leaderboard_study import benchmark_coverage_study

#: (n_items, reference_items): humans share ~ r²/n items, models r with each human.
DESIGNS = ((400, 60), (400, 100), (300, 110), (200, 200))


def main() -> None:
    r = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    b = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rows = []
    for n_items, ref in DESIGNS:
        for ci in ("percentile", "bc", "studentized"):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                st = benchmark_coverage_study(n_datasets=r, n_resamples=b, n_items=n_items, reference_items=ref,
                                              ci_method=ci, run_tests=False, rng=1)
            t = st.table.assign(n_items=n_items, reference_items=ref, shared_by_humans=ref * ref / n_items,
                                ci_method=ci, n_datasets=r, n_resamples=b)
            rows.append(t)
            hh = t[t.observer == "human–human"].iloc[0]
            print(f"n={n_items} seen={ref} {ci:<10} human–human coverage {hh.coverage:.3f} "
                  f"(bias {hh.bias:+.3f}); models {t.coverage[:-1].min():.3f}–{t.coverage[:-1].max():.3f}; "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
    out = Path(__file__).resolve().parents[2] / "docs" / "validity" / "sparse_overlap.csv"
    pd.concat(rows).to_csv(out, index=False, float_format="%.4f")
    print(f"written {out}")


if __name__ == "__main__":
    main()
