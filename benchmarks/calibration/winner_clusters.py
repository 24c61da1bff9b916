"""Calibration of :meth:`trialwise.leaderboards.Leaderboard.winner` with clusters of questions (issue 31, item 7).

Accuracy boards of the 12 models of ``honestboard_comparison.py`` (the top four within one
point; P(correct) = Φ(a_k + z_i), true accuracy Φ(a_k / √2)) on G clusters of questions of
unequal size (2–30, drawn uniformly), the difficulty z_i having a cluster effect with ICC 0.3
(z_i = √0.3 u_c + √0.7 e_i: still N(0, 1), so the true accuracies stay as they are).
``tw.leaderboard(..., protocol="accuracy", clusters="cluster")`` with B = 1,000 and its default
``ci_method`` ("studentized"); ``winner()`` then gives the interval for the winner's true
accuracy (with clusters: the studentized interval of the maximum). Printed per G: how often it covers, how often the truth lies below the interval
and above it, the mean width, and the same for the basic bootstrap interval of the maximum
on the same replicates (the method before, computed here as it was:
``[S − q_{1−α/2}(δ*), S − q_{α/2}(δ*)]``, δ* = S*[w*] − S[w*]). Boards come from the child
streams of one seed.

    python benchmarks/calibration/winner_clusters.py [R=1000] [B=1000] [G,G,...=10,15,25,40]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import trialwise as tw
from trialwise._stats.streams import child_rngs

TRUE_ACCURACY = np.array([0.800, 0.798, 0.795, 0.790, 0.77, 0.75, 0.73, 0.71, 0.69, 0.67, 0.65, 0.60])
NAMES = [f"m{k:02d}" for k in range(len(TRUE_ACCURACY))]
ICC = 0.3
SIZES = (2, 30)
SEED = 317


def simulate(rng: np.random.Generator, n_clusters: int, icc: float = ICC) -> pd.DataFrame:
    """A trial table of the 12 models on G clusters of questions (see module doc)."""
    sizes = rng.integers(SIZES[0], SIZES[1] + 1, n_clusters)
    codes = np.repeat(np.arange(n_clusters), sizes)
    t = codes.size
    z = np.sqrt(icc) * rng.standard_normal(n_clusters)[codes] + np.sqrt(1 - icc) * rng.standard_normal(t)
    a = stats.norm.ppf(TRUE_ACCURACY) * np.sqrt(2.0)
    y = rng.random((len(a), t)) < stats.norm.cdf(a[:, None] + z[None, :])
    return pd.DataFrame({"experiment": "sim", "condition": "all", "subject": np.repeat(NAMES, t),
                         "observer_type": "model", "image": np.tile([f"i{i}" for i in range(t)], len(a)),
                         "truth": "a", "response": np.where(y.ravel(), "a", "b"),
                         "cluster": np.tile([f"c{c}" for c in codes], len(a))})


def basic_interval_before(lb, confidence_level: float = 0.95) -> tuple[float, float]:
    """The winner's interval as it was: the basic bootstrap interval of the maximum."""
    k = len(lb.candidates)
    s, rep = lb.scores[:k], lb.replicates[:, :k]
    chosen = np.argmax(rep, axis=1)
    delta = rep[np.arange(len(rep)), chosen] - s[chosen]
    alpha = 1 - confidence_level
    q_lo, q_hi = np.quantile(delta, [alpha / 2, 1 - alpha / 2])
    w = int(np.argmax(s))
    return float(s[w] - q_hi), float(s[w] - q_lo)


def study(r: int, b: int, groups, seed: int = SEED) -> list[dict]:
    truth = dict(zip(NAMES, TRUE_ACCURACY))
    rows = []
    for g in groups:
        start = time.perf_counter()
        out = {key: [] for key in ("cov", "below", "above", "width", "cov_old", "below_old", "above_old",
                                   "width_old", "bias_raw", "bias_adj")}
        for rng in child_rngs([seed, g], r):
            lb = tw.leaderboard(simulate(rng, g), protocol="accuracy", clusters="cluster", n_resamples=b, rng=rng)
            w = lb.winner()
            t = truth[w.observer]
            for suffix, (lo, hi) in (("", tuple(w.confidence_interval)), ("_old", basic_interval_before(lb))):
                out[f"cov{suffix}"].append(lo <= t <= hi)
                out[f"below{suffix}"].append(t < lo)
                out[f"above{suffix}"].append(t > hi)
                out[f"width{suffix}"].append(hi - lo)
            out["bias_raw"].append(w.score - t)
            out["bias_adj"].append(w.statistic - t)
        rows.append(dict(G=g, seconds=time.perf_counter() - start, **{k: float(np.mean(v)) for k, v in out.items()}))
        print(f"G = {g}: {rows[-1]['seconds']:.0f} s", file=sys.stderr, flush=True)
    return rows


def main(r: int = 1000, b: int = 1000, groups=(10, 15, 25, 40)) -> None:
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    rows = study(r, b, groups)
    print(f"R = {r} boards per G, B = {b}, seed {SEED}, ICC {ICC}, clusters of {SIZES[0]}–{SIZES[1]} questions\n")
    print("| G | interval | coverage | truth below / above | mean width | bias of the observed, adjusted score |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        for name, sfx in (("basic, of the maximum (before)", "_old"), ("winner() now", "")):
            c = row[f"cov{sfx}"]
            print(f"| {row['G']} | {name} | {100 * c:.1f} ± {100 * np.sqrt(c * (1 - c) / r):.1f} % | "
                  f"{100 * row[f'below{sfx}']:.1f} / {100 * row[f'above{sfx}']:.1f} % | {row[f'width{sfx}']:.3f} | "
                  f"{row['bias_raw']:+.4f}, {row['bias_adj']:+.4f} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(int(a) for a in args[:2]), *([tuple(int(g) for g in args[2].split(","))] if len(args) > 2 else []))
