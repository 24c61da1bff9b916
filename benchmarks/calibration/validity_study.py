"""The full validity study of issue 6: coverage of every EC interval, type-I error of every test.

Runs the grid n ∈ {50, 160, 400, 1000, 4000} × accuracy pairs from {0.55, …, 0.95} ×
κ ∈ {0, 0.2, 0.5, 0.8} (where attainable) through :mod:`trialwise.validity`, saves the
long tables as CSV under ``docs/validity/`` and writes ``docs/validity.md`` with its
heatmaps (``docs/figures/validity_*.png``). Prints its wall time.

    python benchmarks/calibration/validity_study.py            # full study (about 10 minutes on 2 cores)
    python benchmarks/calibration/validity_study.py --render   # rewrite the page from the saved CSVs
    python benchmarks/calibration/validity_study.py --quick    # a small grid, written to /tmp (smoke test)
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import benchmark_test_calibration as btc  # benchmarks/calibration/ is on the path when run as a script
import difference_test_calibration as dtc
import trialwise as tw
from trialwise.validity.results import CoverageStudy, TypeOneErrorStudy
from trialwise.ec.inference import DEFAULT_CI_METHOD, DEFAULT_TEST
from trialwise.validity.results import COVERAGE_BAND

ROOT = Path(__file__).resolve().parents[2]


def _progress(label: str, done: int, total: int) -> None:
    print(f"\r{label}: {done}/{total} points", end="\n" if done == total else "", file=sys.stderr, flush=True)


def run(args) -> tuple[CoverageStudy, TypeOneErrorStudy, TypeOneErrorStudy]:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    if args.quick:
        grid = tw.validity.study_grid(n=[50, 400], accuracies=[0.55, 0.95], kappas=[0.0, 0.5])
        diff = dict(n=[50, 400], accuracy_reference=[0.75], kappas=[0.5])
    else:
        grid, diff = None, {}
    cov = tw.validity.coverage_study(grid, n_datasets=args.datasets, n_resamples=args.resamples,
                                     rng=args.seed, progress=_progress)
    t1 = tw.validity.type_one_error_study(grid, n_datasets=args.test_datasets, n_resamples=999,
                                          rng=args.seed + 1, progress=_progress)
    d = tw.validity.difference_test_study(**diff, n_datasets=args.test_datasets, n_resamples=999,
                                          rng=args.seed + 2, progress=_progress)
    return cov, t1, d


def save(out: Path, cov, t1, d, meta: dict) -> None:
    (out / "validity").mkdir(parents=True, exist_ok=True)
    cov.table.to_csv(out / "validity" / "coverage.csv", index=False)
    t1.table.to_csv(out / "validity" / "type1.csv", index=False)
    d.table.to_csv(out / "validity" / "difference.csv", index=False)
    pd.Series(meta).to_csv(out / "validity" / "settings.csv", header=False)


def load(out: Path):
    meta = pd.read_csv(out / "validity" / "settings.csv", header=None, index_col=0).iloc[:, 0].to_dict()
    r, b = int(meta["n_datasets"]), int(meta["n_resamples"])
    rt = int(meta["test_datasets"])
    cov = CoverageStudy(pd.read_csv(out / "validity" / "coverage.csv"), r, b, float(meta["coverage_seconds"]))
    t1 = TypeOneErrorStudy(pd.read_csv(out / "validity" / "type1.csv"), rt, 999, float(meta["type1_seconds"]))
    d = TypeOneErrorStudy(pd.read_csv(out / "validity" / "difference.csv"), rt, 999,
                          float(meta["difference_seconds"]))
    return cov, t1, d, meta


# --------------------------------------------------------------------------- rendering


def _pct(x: float, digits: int = 1) -> str:
    return "–" if pd.isna(x) else f"{100 * x:.{digits}f}"


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


def _summary_table(cov: CoverageStudy, level: float) -> pd.DataFrame:
    s = cov.summary_frame(confidence_level=level, band=_band(level)).reset_index()
    return pd.DataFrame({
        "method": s.method, "points": s.points, "min %": s["min"].map(_pct), "median %": s["median"].map(_pct),
        "max %": s["max"].map(_pct), f"below {_pct(_band(level)[0])} %": s.below_band,
        f"above {_pct(_band(level)[1])} %": s.above_band, "mean width": s.mean_width.map(lambda w: f"{w:.3f}"),
    })


def _band(level: float) -> tuple[float, float]:
    return (level - (0.95 - COVERAGE_BAND[0]), level + (COVERAGE_BAND[1] - 0.95))


def _pivot(t: pd.DataFrame, value: str, fmt=_pct) -> pd.DataFrame:
    t = t.assign(pair=[f"{a:g} / {b:g}" for a, b in zip(t.accuracy_a, t.accuracy_b)])
    p = t.pivot_table(index=["kappa", "pair"], columns="n", values=value, aggfunc="first")
    p = p.apply(lambda col: col.map(fmt))
    p = p.reset_index().rename(columns={"kappa": "κ", "pair": "accuracies A / B"})
    p.columns = [f"n = {c}" if isinstance(c, (int, np.integer)) else c for c in p.columns]
    return p


def _failures(cov: CoverageStudy, level: float = 0.95) -> pd.DataFrame:
    t = cov.eligible()
    t = t[np.isclose(t.confidence_level, level)]
    lo, hi = _band(level)
    bad = t[(t.coverage < lo) | (t.coverage > hi)]
    rows = []
    for m, g in bad.groupby("method", sort=False):
        low = g[g.coverage < lo].sort_values("coverage")
        worst = ", ".join(f"n={r.n} acc {r.accuracy_a:g}/{r.accuracy_b:g} κ={r.kappa:g}: {_pct(r.coverage)}"
                          for r in low.head(3).itertuples())
        rows.append({"method": m, "under-cover": len(low), "over-cover": int((g.coverage > hi).sum()),
                     "worst points": worst or "–"})
    return pd.DataFrame(rows, columns=["method", "under-cover", "over-cover", "worst points"])


def render(out: Path, cov, t1, d, meta: dict) -> None:
    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(cov.table.method))
    for m in methods:
        fig = tw.plot.plot_coverage(cov, m)
        fig.savefig(fig_dir / f"validity_{m}.png", dpi=110)
        plt.close(fig)

    default = DEFAULT_CI_METHOD
    dtab = cov.table[(cov.table.method == default)]
    elig = cov.eligible()
    n_points = cov.table.groupby(["n", "accuracy_a", "accuracy_b", "kappa"]).ngroups
    n_elig = elig.groupby(["n", "accuracy_a", "accuracy_b", "kappa"]).ngroups
    d95 = elig[(elig.method == default) & np.isclose(elig.confidence_level, 0.95)].coverage
    excluded = cov.table[(cov.table.method == "percentile") & np.isclose(cov.table.confidence_level, 0.95)]
    excluded = excluded.merge(elig[["n", "accuracy_a", "accuracy_b", "kappa"]].drop_duplicates(), how="left",
                              on=["n", "accuracy_a", "accuracy_b", "kappa"], indicator=True)
    excluded = excluded[excluded._merge == "left_only"]
    t1s = t1.table.assign(pair=[f"{a:g} / {b:g}" for a, b in zip(t1.table.accuracy_a, t1.table.accuracy_b)])
    t1_summary = t1.summary_frame().reset_index()
    t1_summary = pd.DataFrame({
        "test": t1_summary.test, "α": t1_summary.alpha, "points": t1_summary.points,
        "min %": t1_summary["min"].map(lambda x: _pct(x, 2)), "median %": t1_summary["median"].map(lambda x: _pct(x, 2)),
        "max %": t1_summary["max"].map(lambda x: _pct(x, 2)),
    })
    t1_05 = t1s[t1s.alpha == 0.05].pivot_table(index=["pair", "test"], columns="n", values="rejection_rate")
    t1_05 = t1_05.apply(lambda c: c.map(lambda x: _pct(x, 1))).reset_index()
    t1_05.columns = [f"n = {c}" if isinstance(c, (int, np.integer)) else {"pair": "accuracies A / B"}.get(c, c)
                     for c in t1_05.columns]
    dd = d.table.copy()
    dd["design"] = [f"ref {r:g}, X {x:g}, Y {y:g}, κ {k:g}" for r, x, y, k in
                    zip(dd.accuracy_reference, dd.accuracy_x, dd.accuracy_y, dd.kappa)]
    d_05 = dd[dd.alpha == 0.05].pivot_table(index=["design", "test"], columns="n", values="rejection_rate",
                                            sort=False)
    d_05 = d_05.apply(lambda c: c.map(lambda x: _pct(x, 1))).reset_index()
    d_05.columns = [f"n = {c}" if isinstance(c, (int, np.integer)) else c for c in d_05.columns]
    d_sum = d.summary_frame().reset_index()
    # the restricted Wald test's own calibration (benchmarks/calibration/difference_test_calibration.py), when run
    has_rw = (out / "validity" / "difference_test.csv").exists()
    rw_section = dtc.section(out.parent) if has_rw else ""
    # the benchmark-level tests (benchmarks/calibration/benchmark_test_calibration.py), when run
    bt_section = btc.section(out.parent) if (out / "validity" / "benchmark_test.csv").exists() else ""
    # clustered items (benchmarks/calibration/cluster_coverage.py; the tables are kept in docs/validity/clustered.md)
    cl_path = out / "validity" / "clustered.md"
    cl_section = cl_path.read_text() + "\n" if cl_path.exists() else ""
    # repeated runs (tests/leaderboards/test_repeated.py, tests/similarity/test_replicates.py): docs/validity/replicates.md
    rp_path = out / "validity" / "replicates.md"
    cl_section += rp_path.read_text() + "\n" if rp_path.exists() else ""
    d_sum = pd.DataFrame({"test": d_sum.test, "α": d_sum.alpha, "points": d_sum.points,
                          "min %": d_sum["min"].map(lambda x: _pct(x, 2)),
                          "median %": d_sum["median"].map(lambda x: _pct(x, 2)),
                          "max %": d_sum["max"].map(lambda x: _pct(x, 2))})
    se95 = np.sqrt(0.95 * 0.05 / cov.n_datasets)
    se90 = np.sqrt(0.90 * 0.10 / cov.n_datasets)
    se05 = np.sqrt(0.05 * 0.95 / t1.n_datasets)

    text = f"""# Statistical validity: where each interval and test can be trusted

<!-- generated by benchmarks/calibration/validity_study.py — do not edit by hand; rerun the script -->

Every number on this page is measured, not assumed. Data with a known error consistency
are simulated from the copy model's cell probabilities (one multinomial draw of n trials
per simulated experiment) and analysed by the library's own code paths
(:mod:`trialwise.validity`). The page, its tables and its figures are written by
`python benchmarks/calibration/validity_study.py` (wall time of this run: {float(meta['total_seconds']):.0f} s on
{meta['machine']}); the raw tables are in `docs/validity/*.csv`.

* **Grid**: n ∈ {{50, 160, 400, 1000, 4000}} × every pair of accuracies from
  {{0.55, 0.65, 0.75, 0.85, 0.95}} (equal and unequal; κ is symmetric in A and B, so each
  unordered pair once) × κ ∈ {{0, 0.2, 0.5, 0.8}} where the accuracies allow it: {n_points}
  grid points.
* **Monte-Carlo size**: R = {cov.n_datasets} simulated experiments per point for coverage
  (standard error {_pct(se95, 2)} pp at 95 %, {_pct(se90, 2)} pp at 90 %), each with
  B = {cov.n_resamples} bootstrap replicates (and as many Jeffreys posterior draws);
  R = {t1.n_datasets} experiments per point for type-I error (standard error
  {_pct(se05, 2)} pp at α = 0.05), Monte-Carlo tests with M = 999.
* **Where the requirement applies**: a point is judged when fewer than 1 % of its
  experiments have an undefined EC and fewer than 1 % of the bootstrap replicates are
  undefined: {n_elig} of {n_points} points. The others are marked `*` in the heatmaps.

## Which method to use

{GUIDE.format(**_guide_numbers(cov, t1, d))}

## Intervals: coverage at nominal 95 %

Over the {n_elig} judged points (band: [{_pct(_band(0.95)[0])} %, {_pct(_band(0.95)[1])} %]):

{_md(_summary_table(cov, 0.95))}

At nominal 90 % (band [{_pct(_band(0.90)[0])} %, {_pct(_band(0.90)[1])} %]):

{_md(_summary_table(cov, 0.90))}

Where each method leaves the 95 % band (judged points only):

{_md(_failures(cov))}

### The default, `{default}`, point by point (coverage in %, nominal 95 %)

The default covers between {_pct(d95.min())} % and {_pct(d95.max())} % (median {_pct(d95.median())} %)
at the judged points.

{_md(_pivot(dtab[np.isclose(dtab.confidence_level, 0.95)], "coverage"))}

### Heatmaps

One panel per κ; rows are accuracy pairs, columns n; blue over-covers, red under-covers;
`*` marks points with ≥ 1 % undefined estimates or replicates.

""" + "\n".join(f"![{m}](figures/validity_{m}.png)\n" for m in methods) + f"""
### Points not judged

{len(excluded)} points have ≥ 1 % undefined estimates or bootstrap replicates (both observers
always right in a resample, so κ is undefined): {_points_text(excluded)}. `jeffreys` still
gives an interval there (its posterior draws are always defined); its coverage there is
in the tables above.

## Tests of EC = 0: type-I error

Independent observers (κ = 0) at every accuracy pair and n. Boschloo's test costs
O(n²) per table (seconds at n = 1000) and was run at n = 50 only. A repeated table is
tested once (its Monte-Carlo p-value is shared), which changes nothing for the exact tests.

{_md(t1_summary)}

Rejection rate at α = 0.05 (in %), per point:

{_md(t1_05)}

## Tests of equal EC with one reference: type-I error

Two candidates X and Y copy the same reference independently with the same κ. With equal
accuracies they are exchangeable (the swap test's null); with unequal accuracies only their
κ's are equal.

{_md(d_sum)}

Rejection rate at α = 0.05 (in %):

{_md(d_05)}

{rw_section}
{bt_section}
{cl_section}## Run it yourself

A few points of the grid take seconds:

```python
>>> import trialwise as tw
>>> grid = tw.validity.study_grid(n=[160], accuracies=[0.95], kappas=[0.0])
>>> st = tw.validity.coverage_study(grid, methods=["jeffreys", "percentile"],
...                                 confidence_levels=[0.95], n_datasets=1000, n_resamples=500, rng=0)
>>> st.table[["method", "coverage"]].round(2).values.tolist()
[['jeffreys', 0.96], ['percentile', 0.4]]

```
"""
    (out / "validity.md").write_text(text)


def _points_text(t: pd.DataFrame) -> str:
    return "; ".join(f"n = {r.n}, accuracies {r.accuracy_a:g}/{r.accuracy_b:g}, κ = {r.kappa:g}"
                     for r in t.itertuples()) or "none"


def _guide_numbers(cov: CoverageStudy, t1: TypeOneErrorStudy, d: TypeOneErrorStudy) -> dict:
    e = cov.eligible()
    e = e[np.isclose(e.confidence_level, 0.95)]
    out = {}
    for m in e.method.unique():
        c = e[e.method == m].coverage
        out[f"{m}_min"] = _pct(c.min())
        out[f"{m}_max"] = _pct(c.max())
        out[f"{m}_bad"] = int(((c < COVERAGE_BAND[0]) | (c > COVERAGE_BAND[1])).sum())
    out["points"] = e.groupby(["n", "accuracy_a", "accuracy_b", "kappa"]).ngroups
    ceil = e[(e.accuracy_a == 0.95) & (e.accuracy_b == 0.95) & (e.kappa == 0) & (e.n == 160)]
    out["ceil_pct"] = _pct(ceil[ceil.method == "percentile"].coverage.iloc[0]) if len(ceil) else "–"
    out["ceil_jeff"] = _pct(ceil[ceil.method == "jeffreys"].coverage.iloc[0]) if len(ceil) else "–"
    t = t1.table[t1.table.alpha == 0.05]
    for test in t.test.unique():
        out[f"t1_{test.replace('-', '_')}_max"] = _pct(t[t.test == test].rejection_rate.max())
        out[f"t1_{test.replace('-', '_')}_min"] = _pct(t[t.test == test].rejection_rate.min())
    dt = d.table[d.table.alpha == 0.05]
    out["swap_max"] = _pct(dt[dt.test == "swap"].rejection_rate.max())
    out["swap_min"] = _pct(dt[dt.test == "swap"].rejection_rate.min())
    out["paper_min"] = _pct(dt[dt.test == "paper"].rejection_rate.min())
    from trialwise.ec.inference import SPARSE_EXPECTED_COUNT

    allc = cov.table[np.isclose(cov.table.confidence_level, 0.95)].copy()
    a, b = allc.accuracy_a, allc.accuracy_b
    allc["emin"] = allc.n * np.minimum.reduce([a * b, a * (1 - b), (1 - a) * b, (1 - a) * (1 - b)])
    dense = allc[allc.emin >= SPARSE_EXPECTED_COUNT]
    sparse = allc[allc.emin < SPARSE_EXPECTED_COUNT]
    out["sparse"] = SPARSE_EXPECTED_COUNT
    out["dense_min"] = _pct(dense[dense.method == "jeffreys"].coverage.min())
    out["dense_max"] = _pct(dense[dense.method == "jeffreys"].coverage.max())
    out["sparse_max"] = _pct(sparse[sparse.method == "jeffreys"].coverage.max())
    out["sparse_boot_min"] = _pct(sparse[sparse.method != "jeffreys"].coverage.min())
    ten = allc[allc.emin >= 10]
    for m in ("percentile", "bca", "analytic"):
        out[f"{'pct' if m == 'percentile' else m}_dense_min"] = _pct(ten[ten.method == m].coverage.min())
        out[f"{'pct' if m == 'percentile' else m}_dense_max"] = _pct(ten[ten.method == m].coverage.max())
    sw = dt[dt.test == "swap"]
    exch = sw[sw.accuracy_x == sw.accuracy_y]
    out["swap_exch_min"], out["swap_exch_max"] = _pct(exch.rejection_rate.min()), _pct(exch.rejection_rate.max())
    uneq = sw[(sw.accuracy_x != sw.accuracy_y) & (sw.accuracy_reference == sw.accuracy_reference.max())]
    out["swap_worst"] = _pct(uneq[uneq.n == uneq.n.min()].rejection_rate.max())
    out["swap_worst160"] = _pct(uneq[uneq.n == 160].rejection_rate.max()) if (uneq.n == 160).any() else "–"
    out["swap_large_max"] = _pct(sw[sw.n >= 400].rejection_rate.max()) if (sw.n >= 400).any() else "–"
    rw_csv = ROOT / "docs" / "validity" / "difference_test.csv"
    if rw_csv.exists():
        rw = pd.read_csv(rw_csv)
        rw = rw[rw.test == "restricted-wald"]
        out["rw_max"], out["rw_points"] = _pct(rw[rw.delta == 0].rejection_rate.max()), int((rw.delta == 0).sum())
        out["rw_cov_min"], out["rw_cov_max"] = _pct(rw.coverage.min()), _pct(rw.coverage.max())
    else:
        out["rw_max"] = out["rw_points"] = out["rw_cov_min"] = out["rw_cov_max"] = "–"
    out["default"] = DEFAULT_CI_METHOD
    out["default_test"] = DEFAULT_TEST
    return out


GUIDE = """\
* **Intervals: use `jeffreys` (the default).** It is the equal-tailed interval of κ under
  the Jeffreys prior Dirichlet(½, ½, ½, ½) on the four cells of the 2×2 table. Over the
  {points} judged points it covers {jeffreys_min}–{jeffreys_max} % at nominal 95 %
  ({jeffreys_bad} points outside [93.5 %, 96.5 %], all but one of them *above* the band,
  i.e. conservative). Because every cell keeps posterior mass, it does not collapse when a
  cell of the table is empty — which is what breaks every bootstrap interval near the
  ceiling. At n = 160 with both accuracies 0.95 and κ = 0, the percentile bootstrap covers
  {ceil_pct} % and the Jeffreys interval {ceil_jeff} %.
* **An estimate at the end of its range is inside its interval (the boundary rule).** Where κ̂
  is the largest value its accuracies allow (an off-diagonal cell of the table is empty; EC = 1
  when both are) or the smallest (a diagonal cell is empty; EC = −1 when both are and the
  accuracies are ½), and the interval's end on that side falls short of κ̂, that end becomes
  κ̂ and the result's `notes` say so (kind `"boundary"`) — the boundary modification of the
  Jeffreys binomial interval (Brown, Cai & DasGupta 2001, §4.1.2: upper end 1 at x = n, lower
  end 0 at x = 0) carried to κ. The Jeffreys posterior never reaches 1 or −1: two identical
  observers on 40 items gave EC 1.0 [0.821, 0.9986] (issue 31); the upper end is now 1.
  It applies to every method (and to every pair of `pairwise_error_consistency`): the
  bootstrap intervals already end at 1 at EC = 1 (every replicate is 1), but the percentile
  interval starts above −1 at EC = −1 beyond about 1,000 items, and the bias-corrected κ_u is
  −n/(n − 2) < −1 at EC = −1 while intervals are clipped to [−1, 1]. Every other interval is
  unchanged, bit for bit. It changes no coverage on this page's grid (κ ≤ 0.8): re-measured
  with and without it on the same draws (R = 4000, B = 1000) at the 14 points nearest the
  ceiling (n = 50 and 160, accuracies 0.75–0.95, κ = 0.5 and 0.8), not one
  experiment changes side at 90 % or 95 %, and the mean Jeffreys width grows by at most 0.004
  (n = 50, both 0.95, κ = 0.8): the tables below stand. Near the ceiling (`benchmarks/calibration/boundary_coverage.py`,
  R = 4000, B = 1000, n = 20–60, equal accuracies 0.7–0.9) it leaves every point with κ ≤ 0.98
  as it was, raises κ = 0.995 from 27.7–92.9 % to 86.5–95.9 % where it changes anything, and
  a true copy (κ = 1) from 0 % to 87.0–100 % — the rest there are tables with every item in one
  cell, whose EC is undefined. The Jeffreys interval still under-covers near the ceiling at
  small n without help from the rule: 82.2 % at n = 20, accuracies 0.9, κ = 0.98, every miss
  an interval entirely below κ.
* **Where no method is calibrated: sparse tables.** Every point whose smallest expected
  cell count (row total × column total / n) is at least {sparse:g} has Jeffreys coverage
  within {dense_min}–{dense_max} %. Below {sparse:g} — e.g. n = 50 with an accuracy of 0.95,
  n = 160–400 with both at 0.95 — the Jeffreys interval over-covers (up to
  {sparse_max} %) and the bootstrap and Wald intervals under-cover (down to
  {sparse_boot_min} %). No method in the library is within the band there, so
  `error_consistency` and `pairwise_error_consistency` add a coverage note to the
  result's `notes` and issue a `SparseTableWarning` when the observed table is that sparse.
* **Bootstrap intervals** (`percentile` — the method of the EC paper — `bca`, `basic`,
  `hdi`) and the Wald interval (`analytic`) need more data: the percentile interval is
  within the band wherever the smallest expected cell count is at least 10
  ({pct_dense_min}–{pct_dense_max} %), BCa likewise ({bca_dense_min}–{bca_dense_max} %);
  the Wald interval still fails at n = 50 with κ ≥ 0.5 ({analytic_dense_min} %). Their
  worst coverage: percentile {percentile_min} %, BCa {bca_min} %, basic {basic_min} %,
  HDI {hdi_min} %, analytic {analytic_min} %. Use them to reproduce published numbers.
* **Tests of EC = 0: use `fisher` (the default).** Its rejection rate at α = 0.05 is
  {t1_fisher_min}–{t1_fisher_max} % (the maximum is within Monte-Carlo error of 5 %). It is
  conservative with accuracies near the ceiling or far apart, so it loses power there.
  `asymptotic` reaches {t1_asymptotic_max} % and `copy-null` (the EC paper's test)
  {t1_copy_null_max} % at n = 50; both are calibrated from n ≈ 160 on. `boschloo` is exact
  and slightly more powerful than Fisher, at O(n²) cost per table.
* **Comparing two candidates with one reference: use the `restricted-wald` test (the
  default).** It holds its level whether or not the candidates' accuracies differ: at
  most {rw_max} % at α = 0.05 over {rw_points} points of equal EC, and its interval
  (the inverted test) covers Δ in {rw_cov_min}–{rw_cov_max} % of experiments at nominal 95 %
  (below). The `swap` test is a test of *exchangeability*: exact when the two candidates are exchangeable
  (equal accuracies): {swap_exch_min}–{swap_exch_max} % at α = 0.05. When they have the same
  EC but different accuracies, it tests more than equal EC: with the reference at 0.95
  and candidates at 0.65 and 0.85 it rejects {swap_worst} % at n = 50 and
  {swap_worst160} % at n = 160 (at most {swap_large_max} % from n = 400 on). The procedure
  as the EC paper describes it (`paper`: a t-test between the bootstrap and the swapped
  distributions) rejects a true null in at least {paper_min} % of experiments: its
  p-value shrinks with the number of bootstrap replicates, not with the evidence. It is
  offered only to reproduce published numbers.
* **Comparing two candidates of a benchmark: use the `combined` test (the default of
  `Leaderboard.difference`/`pairwise`).** It is the larger p-value of the swap test and the
  symmetric studentized bootstrap test, and it is the only benchmark-level test that holds
  its level in every design measured ("Benchmark level" below); the percentile `bootstrap`
  test reaches 8.3 % (14.5 % in the harder research designs).
* **Clustered items (passages, subjects): give `clusters=`; the jackknife t interval over
  clusters is then the default of EC and CAPA.** It covers 93–97 % for EC from 10 clusters on,
  and its test holds 5 %, where Fisher's test on the table rejects up to 16 % and the cluster
  bootstrap's intervals cover 86–90 % with 10–15 clusters ("Clustered items" below).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=4000, help="experiments per point for coverage (R)")
    ap.add_argument("--resamples", type=int, default=1000, help="bootstrap replicates per experiment (B)")
    ap.add_argument("--test-datasets", type=int, default=2000, help="experiments per point for type-I error")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="small grid, written to /tmp/trialwise-validity")
    ap.add_argument("--render", action="store_true", help="only rewrite the page from the saved CSVs")
    ap.add_argument("--out", type=Path, default=None, help="docs folder (default: the repository's docs/)")
    args = ap.parse_args()
    out = args.out or (Path("/tmp/trialwise-validity") if args.quick else ROOT / "docs")
    t0 = time.perf_counter()
    if args.render:
        cov, t1, d, meta = load(out)
    else:
        cov, t1, d = run(args)
        meta = dict(n_datasets=cov.n_datasets, n_resamples=cov.n_resamples, test_datasets=t1.n_datasets,
                    coverage_seconds=cov.wall_time, type1_seconds=t1.wall_time, difference_seconds=d.wall_time,
                    total_seconds=time.perf_counter() - t0,
                    machine=f"{platform.machine()}, {__import__('os').cpu_count()} cores, numpy {np.__version__}")
        save(out, cov, t1, d, meta)
    render(out, cov, t1, d, meta)
    print(f"coverage {cov.wall_time:.0f} s, type-I {t1.wall_time:.0f} s, difference tests {d.wall_time:.0f} s; "
          f"wall time {time.perf_counter() - t0:.0f} s; wrote {out / 'validity.md'}", file=sys.stderr)
    print(cov.summary_frame())
    print(t1.summary_frame())
    print(d.summary_frame())


if __name__ == "__main__":
    main()
