"""How many half splits tw.brainscore.i2n needs (issue 19): split-to-split SD vs the CI width.

Data: tw.brainscore.synthetic_2afc with Rajalingham et al.'s public shape (24 objects × 10
images) and 100 trials per image, similarity 0.6, rng 0. For 200 single random splits
(``n_splits=1``, rng = 0 … 199) the script records the ceiling, the raw r and the score of
the split; the SD over splits divided by √k is the split noise left in a mean over k splits.
It compares that with the width of the 95 % bootstrap intervals (n_splits = 20, B = 300).

    python benchmarks/diagnostics/i2n_splits.py
"""

from __future__ import annotations

import numpy as np

import trialwise as tw


def main() -> None:
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=24, images_per_object=10, trials_per_image=100,
                                                 similarity=0.6, rng=0)
    # point values of single splits: they do not depend on B (2: the fewest replicates allowed)
    one = np.array([[r.raw, r.ceiling.statistic, r.score] for r in
                    (tw.brainscore.i2n(probs, trials, n_splits=1, n_resamples=2, rng=s) for s in range(200))])
    full = tw.brainscore.i2n(probs, trials, n_splits=20, n_resamples=300, rng=0)
    widths = [ci.high - ci.low for ci in (full.raw_interval, full.ceiling.confidence_interval,
                                                full.confidence_interval)]
    print(f"24 objects × 10 images × 100 trials; 200 single splits; CI: n_splits 20, B 300")
    print("| quantity | mean over splits | SD over splits | SD/√2 (Brain-Score) | SD/√10 | SD/√20 | 95 % CI width |")
    print("|---|---|---|---|---|---|---|")
    for j, name in enumerate(["raw", "ceiling", "score"]):
        sd = one[:, j].std(ddof=1)
        print(f"| {name} | {one[:, j].mean():.3f} | {sd:.4f} | {sd / np.sqrt(2):.4f} | {sd / np.sqrt(10):.4f} | "
              f"{sd / np.sqrt(20):.4f} | {widths[j]:.3f} |")


if __name__ == "__main__":
    main()
