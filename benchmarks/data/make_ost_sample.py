"""Write the small synthetic OST sample shipped as ``tw.datasets.synthetic_ost_sample()``.

    python benchmarks/data/make_ost_sample.py

Not real data (no Kar et al. 2019 data can be downloaded here): 200 images, each with a
difficulty ``d ~ N(0, 1)``; the target's object solution time (ms) of an image in each of 8
repeated measurements (e.g. monkeys or sessions) is ``150 + 20 d + N(0, 25²)``; a model of
similarity ``s`` has ``120 + 15 (s d + √(1 − s²) e)`` with its own ``e ~ N(0, 1)``, and never
solves (NaN) the 3 % of images where its value is largest. Three models, s = 0.3, 0.6 and 0.9,
seed 20261124. The true Spearman correlation of a model with the target's true OSTs increases
with ``s``, so the models' true order is known. Writes
``src/trialwise/datasets/ost-sample/humans.csv.gz`` (image, ost; one row per measurement) and
``models.csv.gz`` (candidate, image, ost).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

SIMILARITIES = (0.3, 0.6, 0.9)
N_IMAGES, N_MEASUREMENTS, SEED = 200, 8, 20261124


def draw(rng: np.random.Generator, n_images: int = N_IMAGES, n_measurements: int = N_MEASUREMENTS,
         similarities: tuple[float, ...] = SIMILARITIES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(humans, models) tables of one draw."""
    images = [f"img{i:04d}" for i in range(n_images)]
    d = rng.normal(size=n_images)
    target = 150 + 20 * d[:, None] + rng.normal(0, 25, (n_images, n_measurements))
    humans = pd.DataFrame({"image": np.repeat(images, n_measurements), "ost": target.ravel().round(2)})
    models = []
    for s in similarities:
        ost = 120 + 15 * (s * d + np.sqrt(1 - s * s) * rng.normal(size=n_images))
        ost[ost >= np.quantile(ost, 0.97)] = np.nan  # never solved
        models.append(pd.DataFrame({"candidate": f"model-{s:g}", "image": images, "ost": ost.round(2)}))
    return humans, pd.concat(models, ignore_index=True)


def main() -> None:
    out = Path(__file__).resolve().parents[2] / "src" / "trialwise" / "datasets" / "ost-sample"
    out.mkdir(exist_ok=True)
    humans, models = draw(np.random.default_rng(SEED))
    humans.to_csv(out / "humans.csv.gz", index=False)
    models.to_csv(out / "models.csv.gz", index=False)
    print(f"wrote {len(humans)} human OSTs and {len(models)} model OSTs to {out}")


if __name__ == "__main__":
    main()
