"""Calibration of PairwiseAgreementResult.difference with clusters of questions (issue 31, item 7).

"Is J more similar to X than to Y?" on three models answering four-option questions that come
in G clusters of unequal size (2–30 questions each, drawn uniformly), the question's difficulty
and the options' shared attractiveness having a cluster effect with ICC 0.3. The models are
those of ``agreement_difference_calibration.py``. Null: X and Y the same model (Δ = 0 by
exchangeability); the share of data sets with p ≤ 0.05 and the coverage of the 95 % interval
of 0. Alternative: Y shares less with J (true Δ from 1,000,000 independent questions: the
cluster effect leaves every question's distribution as it was): the coverage of the 95 %
interval. Each data set is analysed once, by ``tw.pairwise_agreement(..., clusters=)`` with
B = 500, and read two ways: ``difference()`` as it is (the jackknife t over clusters), and
the percentile interval / two-sided bootstrap test of the same joint replicates (the method
before, computed here as it was). Data sets come from the child streams of one seed.

    python benchmarks/calibration/agreement_difference_clusters.py [R=1000] [B=500] [G,G,...=10,15,25,40]

It prints one Markdown table row per G and design: the rate of each method with its
Monte-Carlo SE, and the mean width of the intervals.
"""

from __future__ import annotations

import sys
import time

import numpy as np

import trialwise as tw
from trialwise._stats.intervals import percentile_interval
from trialwise._stats.streams import child_rngs

NULL = [(1.2, 0.6, 1.5), (0.6, 0.6, 1.2), (0.6, 0.6, 1.2)]
ALT = [(1.2, 0.6, 1.5), (0.6, 0.6, 1.2), (0.6, 0.2, 1.2)]
ICC = 0.3
SIZES = (2, 30)
SEED = 31


def clustered_three(rng: np.random.Generator, n_clusters: int, models, k: int = 4, icc: float = ICC):
    """Three models' option probabilities (3, n, k), the correct options and the cluster codes."""
    sizes = rng.integers(SIZES[0], SIZES[1] + 1, n_clusters)
    codes = np.repeat(np.arange(n_clusters), sizes)
    n = codes.size
    a, b = np.sqrt(icc), np.sqrt(1 - icc)
    t = rng.integers(0, k, n)
    s = a * rng.normal(size=(n_clusters, k))[codes] + b * rng.normal(size=(n, k))
    d = a * rng.normal(size=n_clusters)[codes] + b * rng.normal(size=n)
    out = []
    for skill, w, beta in models:
        z = w * s + np.sqrt(1 - w**2) * rng.normal(size=(n, k))
        z[np.arange(n), t] += skill - d
        z = np.exp(beta * (z - z.max(1, keepdims=True)))
        out.append(z / z.sum(1, keepdims=True))
    return np.stack(out), t, codes


def kappa_p(a, b, t):
    n = len(t)
    c_obs = np.mean(np.sum(a * b, 1))
    pa, pb = a[np.arange(n), t].mean(), b[np.arange(n), t].mean()
    c_exp = pa * pb + (1 - pa) * (1 - pb) / (a.shape[1] - 1)
    return (c_obs - c_exp) / (1 - c_exp)


def true_delta() -> float:
    probs, t, _ = clustered_three(np.random.default_rng(21), 62_500, ALT, icc=0.0)  # about 1,000,000 questions
    return float(kappa_p(probs[0], probs[1], t) - kappa_p(probs[0], probs[2], t))


def both_methods(probs, t, codes, b, rng) -> tuple[float, tuple, float, tuple, float]:
    """The estimate, then (interval, p) of ``difference()`` and of the percentile method before."""
    res = tw.pairwise_agreement(probs, truth=t, clusters=codes, n_resamples=b, rng=rng)
    new = res.difference(0, 1, 2)
    d = new.bootstrap_distribution[~np.isnan(new.bootstrap_distribution)]
    old_ci = percentile_interval(d, 0.95)
    old_p = min(1.0, 2 * (1 + min(np.sum(d <= 0), np.sum(d >= 0))) / (1 + d.size))
    return new.statistic, tuple(new.confidence_interval), new.pvalue, tuple(map(float, old_ci)), old_p


def study(r: int, b: int, groups, seed: int = SEED) -> list[dict]:
    delta = true_delta()
    rows = []
    for g in groups:
        start = time.perf_counter()
        hits = {key: [] for key in ("rej_new", "rej_old", "cov0_new", "cov0_old", "cov_new", "cov_old",
                                    "w_new", "w_old")}
        for rng in child_rngs([seed, g], r):
            probs, t, codes = clustered_three(rng, g, NULL)
            _, ci, p, ci_old, p_old = both_methods(probs, t, codes, b, rng)
            hits["rej_new"].append(p <= 0.05)
            hits["rej_old"].append(p_old <= 0.05)
            hits["cov0_new"].append(ci[0] <= 0 <= ci[1])
            hits["cov0_old"].append(ci_old[0] <= 0 <= ci_old[1])
            probs, t, codes = clustered_three(rng, g, ALT)
            _, ci, _, ci_old, _ = both_methods(probs, t, codes, b, rng)
            hits["cov_new"].append(ci[0] <= delta <= ci[1])
            hits["cov_old"].append(ci_old[0] <= delta <= ci_old[1])
            hits["w_new"].append(ci[1] - ci[0])
            hits["w_old"].append(ci_old[1] - ci_old[0])
        rows.append(dict(G=g, delta=delta, seconds=time.perf_counter() - start,
                         **{k: float(np.nanmean(v)) for k, v in hits.items()}))
        print(f"G = {g}: {rows[-1]['seconds']:.0f} s", file=sys.stderr, flush=True)
    return rows


def se(p: float, r: int) -> float:
    return float(np.sqrt(p * (1 - p) / r))


def main(r: int = 1000, b: int = 500, groups=(10, 15, 25, 40)) -> None:
    rows = study(r, b, groups)
    print(f"true Δ = {rows[0]['delta']:.4f}; R = {r} data sets per design and G, B = {b}, seed {SEED}, "
          f"ICC {ICC}, clusters of {SIZES[0]}–{SIZES[1]} questions\n")
    print("| G | method | type-I error at 5 % (Δ = 0) | coverage of Δ = 0 | coverage of Δ = "
          f"{rows[0]['delta']:.3f} | mean width |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        for name, key in (("percentile (before)", "old"), ("jackknife t, G − 1 df", "new")):
            rej, c0, c1 = row[f"rej_{key}"], row[f"cov0_{key}"], row[f"cov_{key}"]
            print(f"| {row['G']} | {name} | {100 * rej:.1f} ± {100 * se(rej, r):.1f} % | "
                  f"{100 * c0:.1f} ± {100 * se(c0, r):.1f} % | {100 * c1:.1f} ± {100 * se(c1, r):.1f} % | "
                  f"{row[f'w_{key}']:.3f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(int(a) for a in args[:2]), *([tuple(int(g) for g in args[2].split(","))] if len(args) > 2 else []))
