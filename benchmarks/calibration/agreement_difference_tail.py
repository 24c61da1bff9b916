"""Tail calibration of the similarity difference test: percentile p vs a Wald p from the replicates' SE.

After Holm over m tests a difference test is read at α/m, far in the tail (252 tests at 5 %:
2·10⁻⁴). The percentile p-value of :meth:`trialwise.similarity.PairwiseAgreementResult.difference`
(``2(1 + tail)/(1 + B)``) cannot go below 2/(B + 1); a Wald p-value ``2Φ(−|Δ̂|/SE*)`` with
SE* the standard deviation of the joint replicates of Δ is not bounded by B. This measures both
under a known null — the null design of ``agreement_difference_calibration.py`` (three models
on 300 four-option questions, X and Y the same model, Δ = 0) — at α = 5 %, 1 % and 0.2 %.
R datasets, B replicates each, seed 23.

    python benchmarks/calibration/agreement_difference_tail.py [R] [B]
"""

from __future__ import annotations

import sys

import numpy as np
from scipy import stats

import trialwise as tw
from agreement_difference_calibration import NULL, three

LEVELS = (0.05, 0.01, 0.002)


def main(r: int = 4000, b: int = 2000) -> None:
    rng = np.random.default_rng(23)
    p_pct, p_wald = np.empty(r), np.empty(r)
    for i in range(r):
        probs, t = three(rng, 300, NULL)
        res = tw.pairwise_agreement(np.stack(probs), truth=t, n_resamples=b, rng=rng)
        d = res.difference(0, 1, 2)
        rep = d.bootstrap_distribution[~np.isnan(d.bootstrap_distribution)]
        p_pct[i] = d.pvalue
        p_wald[i] = 2 * stats.norm.sf(abs(d.statistic) / rep.std(ddof=1))
    print(f"null: X = Y, Δ = 0; R = {r}, B = {b}, seed 23; rejection rate (MC SE)")
    for a in LEVELS:
        se = np.sqrt(a * (1 - a) / r)
        print(f"  α = {a:<6g} percentile {np.mean(p_pct <= a):.4f}   Wald {np.mean(p_wald <= a):.4f}   (± {se:.4f})")


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
