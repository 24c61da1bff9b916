"""Coverage of the intervals of tw.brainscore.value_delta and tw.brainscore.ost_correlation (issue 19).

Simulated data with known truth, R experiments per cell, B replicates, 95 % intervals:

* value delta: the model's and the humans' scalars are accuracies (Bernoulli trials,
  n_s model and n_t human trials; or scalars with their binomial SE). Truth: raw =
  exp(−scale·|p_s − p_t|); ceiling = E exp(−scale·|mean(half 1) − mean(half 2)|) for halves
  of n_t / 2 trials (2,000,000 draws); score = min(raw / ceiling, 1). scale 0.75
  (Ferguson2024), 500 splits.
* OST: image difficulty d ~ N(0, 1); model OST = 100 + 20 (d + σ_m e), target replicates
  120 + 20 (d + σ_t e_r), r = 1..m. Truth (bivariate normal): Spearman = (6/π) asin(ρ/2)
  with ρ_raw = 1/√((1 + σ_m²)(1 + σ_t²/m)) and, for the split-half correlation,
  ρ_half = 1/(1 + 2σ_t²/m) → c; the default ceiling ("attenuation") is √(2c/(1 + c));
  score = min(raw / ceiling, 1). 20 splits.

* I2n / I1n: :func:`tw.brainscore.synthetic_2afc` (its docstring gives the model), K objects
  × m images × n trials per image, one object structure (``object_seed=7``) and a fresh draw
  of images, trials and model pattern per experiment. Truth: the same estimator (same
  ``n_splits``, same trials per image) on 400 images per object, averaged over 4 draws: the
  value over the population of images at that number of trials per image. 10 splits. The
  intervals are the bias-corrected jackknife-t ones (SE with the variance of the bias correction,
  docs/brainscore.md "Coverage"); a second row gives, for the same
  experiments, the bootstrap's "bc" intervals (the method before).

    python benchmarks/calibration/brainscore_metrics_coverage.py [R] [B]   # defaults R = 1000, B = 1000, seed 20261123
    python benchmarks/calibration/brainscore_metrics_coverage.py R B i2n   # only the I2n / I1n rows
    python benchmarks/calibration/brainscore_metrics_coverage.py R B i2n "I2n 24 objects"   # only that row

Prints a Markdown table: coverage (Monte-Carlo SE) and mean width of raw, ceiling, score.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import trialwise as tw
from trialwise._stats.intervals import interval

SEED = 20261123


def _cov(ci: np.ndarray, truth: float) -> tuple[float, float, float]:
    hit = (ci[:, 0] <= truth + 1e-12) & (truth <= ci[:, 1] + 1e-12)
    c = hit.mean()
    return c, np.sqrt(c * (1 - c) / len(hit)), float(np.mean(ci[:, 1] - ci[:, 0]))


def value_delta_cell(p_s, p_t, n_s, n_t, scalars, reps, b, g):
    scale = 0.75
    raw = np.exp(-scale * abs(p_s - p_t))
    h = g.binomial(n_t // 2, p_t, (2, 2_000_000)) / (n_t // 2)
    ceiling = float(np.exp(-scale * np.abs(h[0] - h[1])).mean())
    out = []
    for r in range(reps):
        s, t = g.random(n_s) < p_s, g.random(n_t) < p_t
        if scalars:  # scalar source with its binomial SE, target trials
            ps = s.mean()
            res = tw.brainscore.value_delta(ps, t, source_se=np.sqrt(ps * (1 - ps) / n_s), scale=scale,
                                            n_resamples=b, rng=r)
        else:
            res = tw.brainscore.value_delta(s, t, scale=scale, n_resamples=b, rng=r)
        out.append([*res.raw_interval, *res.ceiling.confidence_interval, *res.confidence_interval])
    a = np.array(out)
    return [_cov(a[:, 0:2], raw), _cov(a[:, 2:4], ceiling), _cov(a[:, 4:6], min(raw / ceiling, 1))], (raw, ceiling)


def ost_cell(n, m, sm, st, reps, b, g):
    rho_raw, rho_half = 1 / np.sqrt((1 + sm**2) * (1 + st**2 / m)), 1 / (1 + 2 * st**2 / m)
    raw, half = (6 / np.pi * np.arcsin(x / 2) for x in (rho_raw, rho_half))
    ceiling = np.sqrt(2 * half / (1 + half))
    out = []
    for r in range(reps):
        d = g.normal(size=n)
        model = 100 + 20 * (d + sm * g.normal(size=n))
        target = 120 + 20 * (d[:, None] + st * g.normal(size=(n, m)))
        res = tw.brainscore.ost_correlation(model, target, n_resamples=b, rng=r)
        out.append([*res.raw_interval, *res.ceiling.confidence_interval, *res.confidence_interval])
    a = np.array(out)
    return [_cov(a[:, 0:2], raw), _cov(a[:, 2:4], ceiling), _cov(a[:, 4:6], min(raw / ceiling, 1))], (raw, ceiling)


def i2n_cell(fn, k, m, n, sim, reps, b, before=None):
    kw = dict(n_objects=k, trials_per_image=n, similarity=sim, object_seed=7)
    # the truth is a point value, which does not depend on B (2: the fewest replicates allowed)
    bigs = [fn(*tw.brainscore.synthetic_2afc(images_per_object=400, rng=SEED + j, **kw), n_splits=10, n_resamples=2,
               rng=1) for j in range(4)]
    raw, ceiling, score = (float(np.mean(x)) for x in zip(*[(g.raw, g.ceiling.statistic, g.score) for g in bigs]))
    out, old = [], []
    for r in range(reps):
        res = fn(*tw.brainscore.synthetic_2afc(images_per_object=m, rng=r, **kw), n_splits=10, n_resamples=b, rng=r)
        out.append([*res.raw_interval, *res.ceiling.confidence_interval, *res.confidence_interval])
        obs = [res.raw, res.ceiling.statistic, res.score]
        dists = [res.raw_distribution, res.ceiling.bootstrap_distribution, res.bootstrap_distribution]
        old.append([e for j in range(3) for e in interval("bc", dists[j][np.isfinite(dists[j])], obs[j], 0.95,
                                                          bounds=(-np.inf, np.inf))])
    a = np.array(out)
    if before is not None:  # the bootstrap's bias-corrected percentile ("bc") intervals of the same experiments
        o = np.array(old)
        before.append([_cov(o[:, 0:2], raw), _cov(o[:, 2:4], ceiling), _cov(o[:, 4:6], score)])
    return [_cov(a[:, 0:2], raw), _cov(a[:, 2:4], ceiling), _cov(a[:, 4:6], score)], (raw, ceiling)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    b = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    g = np.random.default_rng(SEED)
    print(f"R = {reps}, B = {b}, seed {SEED}, 95 % intervals\n")
    print("| metric | cell | truth raw / ceiling | raw: coverage (SE), width | ceiling | score |")
    print("|---|---|---|---|---|---|")
    cells = [("value delta", f"trials p_s = {ps}, p_t = {pt}, n = {ns}/{nt}" + (", source scalar ± SE" if sc else ""),
              lambda ps=ps, pt=pt, ns=ns, nt=nt, sc=sc: value_delta_cell(ps, pt, ns, nt, sc, reps, b, g))
             for ps, pt, ns, nt, sc in [(0.70, 0.78, 200, 300, False), (0.75, 0.75, 200, 300, False),
                                        (0.60, 0.80, 100, 200, False), (0.70, 0.78, 200, 300, True)]]
    cells += [("OST", f"{n} images × {m} replicates, σ_m = {sm}, σ_t = {st}",
               lambda n=n, m=m, sm=sm, st=st: ost_cell(n, m, sm, st, reps, b, g))
              for n, m, sm, st in [(150, 6, 0.8, 1.5), (300, 8, 0.5, 2.0), (100, 4, 1.0, 1.0)]]
    before: list = []
    i2n_cells = [(name, f"{k} objects × {m} images × {n} trials, similarity {sim}",
                  lambda fn=fn, k=k, m=m, n=n, sim=sim: i2n_cell(fn, k, m, n, sim, reps, b, before))
                 for name, fn in [("I2n", tw.brainscore.i2n), ("I1n", tw.brainscore.i1n)]
                 for k, m, n, sim in [(8, 10, 60, 0.6), (8, 10, 200, 0.9)]]
    i2n_cells.append(("I2n", "24 objects × 10 images × 100 trials, similarity 0.6",
                      lambda: i2n_cell(tw.brainscore.i2n, 24, 10, 100, 0.6, reps, b, before)))
    cells = i2n_cells if sys.argv[3:4] == ["i2n"] else cells + i2n_cells
    if sys.argv[4:]:  # e.g. "I2n 24 objects": only the cells whose name and label start with that text
        cells = [c for c in cells if f"{c[0]} {c[1]}".startswith(sys.argv[4])]
    for name, label, run in cells:
        t0 = time.time()
        covs, (raw, ceiling) = run()
        row = " | ".join(f"{c:.3f} ({se:.3f}), {w:.3f}" for c, se, w in covs)
        print(f"| {name} | {label} | {raw:.3f} / {ceiling:.3f} | {row} |   <!-- {time.time() - t0:.0f} s -->", flush=True)
        if before:
            row = " | ".join(f"{c:.3f} ({se:.3f}), {w:.3f}" for c, se, w in before.pop())
            print(f"| {name} (bootstrap bc, before) | {label} | | {row} |", flush=True)


if __name__ == "__main__":
    main()
