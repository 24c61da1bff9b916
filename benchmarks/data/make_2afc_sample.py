"""Write the small synthetic 2AFC sample shipped as ``tw.datasets.synthetic_2afc_sample()``.

    python benchmarks/data/make_2afc_sample.py

Not real data: ``tw.brainscore.synthetic_2afc`` (the shape of Rajalingham et al. 2018: objects,
images with their own difficulty, human 2AFC trials with a sample and a distractor object)
with 8 objects × 10 images, 60 trials per image from 20 simulated subjects, seed 20261123,
and three models of per-image similarity 0.2, 0.5 and 0.8 to the humans (the same images and
human trials: the generator draws images, model and trials from separate child streams).
Writes ``src/trialwise/datasets/2afc-sample/trials.csv.gz`` and ``models.csv.gz`` (one row per
model and image, one column per object).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import trialwise as tw

SIMILARITIES = (0.2, 0.5, 0.8)


def main() -> None:
    out = Path(__file__).resolve().parents[2] / "src" / "trialwise" / "datasets" / "2afc-sample"
    out.mkdir(exist_ok=True)
    models, trials = [], None
    for s in SIMILARITIES:
        probs, t = tw.brainscore.synthetic_2afc(n_objects=8, images_per_object=10, trials_per_image=60,
                                                n_subjects=20, similarity=s, rng=20261123)
        if trials is None:
            trials = t
        elif not trials.equals(t):
            raise RuntimeError("the human trials differ between models: the generator's streams changed")
        models.append(probs.round(6).rename_axis("image").reset_index().assign(model=f"model-{s:g}"))
    frame = pd.concat(models, ignore_index=True)
    frame = frame[["model", "image", *[c for c in frame.columns if c not in ("model", "image")]]]
    frame.to_csv(out / "models.csv.gz", index=False)
    trials.to_csv(out / "trials.csv.gz", index=False)
    print(f"wrote {len(frame)} model rows and {len(trials)} trials to {out}")


if __name__ == "__main__":
    main()
