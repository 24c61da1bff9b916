"""When should a leaderboard score's studentized interval give way to ``bc``? (issue 17, HR3 item 6)

The bootstrap-t interval ``[θ̂ − q₀.₉₇₅(t*)·SE, θ̂ − q₀.₀₂₅(t*)·SE]`` divides every replicate's
deviation by its own standard error SE*. Where SE* is tiny on a share of the replicates (a
score of one pair per condition — a single reference observer — or of pairs that share few
items), t* has heavy tails and the interval can reach beyond every bootstrap replicate
(HR3: swag-vit-l16 −0.031 [−0.146, 0.312] with a largest replicate of 0.266). Each simulated
benchmark (the latent-class design of ``tw.validity.benchmark_coverage_study``: 2
experiments × 3 conditions, items easy or hard, true scores exact) is bootstrapped once
(B replicates with their IJ standard errors), and every rule is applied to the same
replicates:

* ``studentized``: the interval as it is (``bc`` only where it is unbounded);
* ``bc``: the bias-corrected percentile interval;
* ``span``: ``studentized``, but ``bc`` where it reaches beyond the replicates' range
  ``[min θ*, max θ*]`` (an interval no replicate supports: the studentization failed);
* ``clip``: ``studentized`` clipped to the replicates' range.

Designs: ``ordinary`` (5 humans, every item seen by all), ``sparse`` (each human sees its
own 100 of 400 items: human pairs share ≈ 25), ``single`` (one reference observer, so each
model's score is one pair per condition), ``single-few`` (the same with 30 items per
condition) and ``one-table`` (one reference observer, one condition of 30 items: every
score is the κ of one small table). The results and the decision (the studentized interval
is kept as it is) are in docs/benchmark.md, "Sparse overlaps".

    python benchmarks/calibration/studentized_fallback_coverage.py [R] [B] [design,design,...]
"""

from __future__ import annotations

import itertools
import sys
import time
import warnings

import numpy as np
import pandas as pd

import trialwise as tw
from trialwise.leaderboards.experiments import score_interval, studentized_score_interval
from trialwise.leaderboards.hierarchy import build_design
from trialwise.leaderboards.replicates import bootstrap_scores

HUMANS = ((0.97, 0.35), (0.95, 0.45), (0.92, 0.30), (0.90, 0.50), (0.96, 0.40))  # (p right | easy, | hard)
MODELS = {"m1": (0.98, 0.20), "m2": (0.95, 0.40), "m3": (0.90, 0.55), "m4": (0.80, 0.55), "x": (0.93, 0.30)}
#: name: (humans, items per condition, items each human sees, experiments × conditions)
DESIGNS = {"ordinary": (HUMANS, 200, None, (2, 3)), "sparse": (HUMANS, 400, 100, (2, 3)),
           "single": (HUMANS[1:2], 200, None, (2, 3)), "single-few": (HUMANS[1:2], 30, None, (2, 3)),
           "one-table": (HUMANS[1:2], 30, None, (1, 1))}


def population_kappa(pi: float, p: tuple[float, float], q: tuple[float, float]) -> float:
    """κ of two observers who answer independently given the item's class (easy with probability pi)."""
    a, b = pi * p[0] + (1 - pi) * p[1], pi * q[0] + (1 - pi) * q[1]
    p11 = pi * p[0] * q[0] + (1 - pi) * p[1] * q[1]
    return 2 * (p11 - a * b) / (a * (1 - b) + b * (1 - a))


def true_scores(humans, easy) -> dict[str, float]:
    out = {m: float(np.mean([np.mean([np.mean([population_kappa(pi, p, h) for h in humans]) for pi in row])
                             for row in easy])) for m, p in MODELS.items()}
    pairs = list(itertools.combinations(humans, 2))
    if pairs:
        out["human–human"] = float(np.mean([np.mean([np.mean([population_kappa(pi, p, q) for p, q in pairs])
                                                     for pi in row]) for row in easy]))
    return out


def simulate(g, humans, n, seen_by_human, easy) -> pd.DataFrame:
    names = [f"h{i + 1}" for i in range(len(humans))] + list(MODELS)
    params = np.array(list(humans) + list(MODELS.values()))
    rows = []
    for e, row in enumerate(easy):
        for c, pi in enumerate(row):
            z = g.random(n) < pi
            right = g.random((len(names), n)) < np.where(z[None, :], params[:, :1], params[:, 1:])
            for j, name in enumerate(names):
                keep = np.arange(n) if j >= len(humans) or seen_by_human is None else \
                    np.sort(g.permutation(n)[:seen_by_human])
                rows.append(pd.DataFrame({"experiment": f"e{e}", "condition": f"c{c}", "subject": name,
                                          "observer_type": "human" if j < len(humans) else "model",
                                          "image": [f"e{e}c{c}i{i}" for i in keep], "truth": "a",
                                          "response": np.where(right[j, keep], "a", "b")}))
    return pd.concat(rows, ignore_index=True)


def intervals(boot, level: float) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    reps, est = boot.replicates, boot.scores
    st = studentized_score_interval(reps, est, level, boot.standard_errors, boot.replicate_standard_errors)[:2]
    bc = score_interval("bc", reps, est, level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row without a value (no reference pair)
        lo_r, hi_r = np.nanmin(reps, axis=0), np.nanmax(reps, axis=0)
    outside = (st[0] < lo_r) | (st[1] > hi_r)
    span = (np.where(outside, bc[0], st[0]), np.where(outside, bc[1], st[1]))
    clip = (np.maximum(st[0], lo_r), np.minimum(st[1], hi_r))
    return {"studentized": st, "bc": bc, "span": span, "clip": clip}


def study(name: str, r: int, b: int, level: float = 0.95, seed: int = 1) -> pd.DataFrame:
    humans, n, seen, shape = DESIGNS[name]
    easy = np.linspace(0.5, 0.8, shape[0] * shape[1]).reshape(shape) if shape != (1, 1) else np.full(shape, 0.65)
    truth = true_scores(humans, easy)
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(name="simulated", exclude={}, experiments=None)
    records = []
    for g in np.random.default_rng(seed).spawn(r):
        trials = tw.read_trials(simulate(g, humans, n, seen, easy))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            design = build_design(trials, proto)
            boot = bootstrap_scores(design, b, rng=g, standard_errors=True, workers=1)
        ivs = intervals(boot, level)
        with np.errstate(invalid="ignore", divide="ignore"):  # a row without a value has SE 0
            ratio = boot.replicate_standard_errors / boot.standard_errors  # SE* / SE of every replicate and row
        for i, row in enumerate(design.rows):
            if row not in truth or not np.isfinite(boot.scores[i]):
                continue
            for rule, (lo, hi) in ivs.items():
                records.append({"design": name, "observer": row, "rule": rule, "truth": truth[row],
                                "low": lo[i], "high": hi[i], "estimate": boot.scores[i],
                                "small_se_50": float(np.mean(ratio[:, i] < 0.5)),
                                "small_se_25": float(np.mean(ratio[:, i] < 0.25)),
                                "beyond_replicates": bool(lo[i] < np.nanmin(boot.replicates[:, i]) - 1e-12
                                                          or hi[i] > np.nanmax(boot.replicates[:, i]) + 1e-12)})
    return pd.DataFrame(records)


def summary(raw: pd.DataFrame) -> pd.DataFrame:
    raw = raw.assign(covered=(raw.low <= raw.truth) & (raw.truth <= raw.high), width=raw.high - raw.low)
    out = raw.groupby(["design", "rule"]).agg(coverage_min=("covered", lambda c: np.nan),
                                              width=("width", "mean"),
                                              beyond_replicates=("beyond_replicates", "mean"))
    per_row = raw.groupby(["design", "rule", "observer"])["covered"].mean()
    out["coverage_min"] = per_row.groupby(["design", "rule"]).min()
    out["coverage_mean"] = per_row.groupby(["design", "rule"]).mean()
    return out.reset_index()


def main() -> None:
    r = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    b = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    raw = []
    for name in (sys.argv[3].split(",") if len(sys.argv) > 3 else DESIGNS):
        t0 = time.perf_counter()
        raw.append(study(name, r, b))
        print(f"{name}: {time.perf_counter() - t0:.0f} s", flush=True)
    raw = pd.concat(raw, ignore_index=True)
    raw.to_csv(f"/tmp/studentized_fallback_R{r}_B{b}_{len(raw)}.csv", index=False)
    with pd.option_context("display.width", 200):
        print(summary(raw).round(3).to_string(index=False))
        cov = raw.assign(covered=(raw.low <= raw.truth) & (raw.truth <= raw.high))
        print(cov.pivot_table(index=["design", "observer"], columns="rule", values="covered").round(3))


if __name__ == "__main__":
    main()
