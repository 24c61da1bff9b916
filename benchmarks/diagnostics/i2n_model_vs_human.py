"""I2n and I1n on model-vs-human's 16-way data (issue 19): a docs table for docs/brainscore.md.

Experiment "sketch" (800 images, 7 humans each saw every image, 16 classes), the humans'
"na" (no answer) trials dropped. The models give one decision per image, so their
"probabilities" are one-hot. K-way rates ``"share"`` and ``"pairwise"``; rate_correction
"none"; n_splits 10, B 200, rng 0.

    python benchmarks/diagnostics/i2n_model_vs_human.py
"""

from __future__ import annotations

import pandas as pd

import trialwise as tw

MODELS = ["resnet50", "resnet50-trained-on-SIN", "vit-b-16", "clip-16"]


def main() -> None:
    t = tw.datasets.model_vs_human("sketch")
    humans = t[t.observer_type == "human"].rename(columns={"category": "truth"})
    classes = sorted(humans.truth.unique())
    humans = humans[humans.response.isin(classes)][["subject", "image", "truth", "response"]]
    print(f"sketch: {humans.image.nunique()} images, {len(humans)} human trials, {len(classes)} classes")
    print("| model | kway_rate | metric | raw [95 % CI] | ceiling [95 % CI] | score [95 % CI] |")
    print("|---|---|---|---|---|---|")
    for name in MODELS:
        model = t[t.subject == name]
        if model.empty:
            continue
        probs = pd.get_dummies(model.set_index("image").response).reindex(columns=classes, fill_value=0).astype(float)
        for rate in ("share", "pairwise"):
            for label, fn in (("I2n", tw.brainscore.i2n), ("I1n", tw.brainscore.i1n)):
                r = fn(probs, humans, kway_rate=rate, n_splits=10, n_resamples=200, rng=0)
                c = r.ceiling
                print(f"| {name} | {rate} | {label} | {r.raw:.3f} [{r.raw_interval.low:.3f}, {r.raw_interval.high:.3f}] | "
                      f"{c.statistic:.3f} [{c.confidence_interval.low:.3f}, {c.confidence_interval.high:.3f}] | "
                      f"{r.score:.3f} [{r.confidence_interval.low:.3f}, {r.confidence_interval.high:.3f}] |", flush=True)


if __name__ == "__main__":
    main()
