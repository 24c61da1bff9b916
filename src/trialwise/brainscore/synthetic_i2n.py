"""Synthetic object-recognition 2AFC data in the shape of Rajalingham et al. (2018), for I1n/I2n.

No Rajalingham data can be downloaded here; :func:`synthetic_2afc` draws data with the same
structure (objects, images with their own difficulty, subjects, sample–distractor trials) and
a model whose per-image pattern has a tunable similarity to the humans'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr

from trialwise._core import validation as v
from trialwise._stats.streams import child_rngs

__all__ = ["synthetic_2afc"]


def synthetic_2afc(
    *,
    n_objects: int = 8,
    images_per_object: int = 10,
    trials_per_image: int = 60,
    n_subjects: int = 20,
    similarity: float = 0.5,
    image_sd: float = 0.8,
    object_seed: int = 0,
    rng: Any = None,
) -> tuple[Any, Any]:
    """Draw human 2AFC trials and a model's class probabilities with a known relation.

    Parameters
    ----------
    n_objects : int, default 8
        Objects (classes) ``o0, o1, …``. Rajalingham et al. used 24.
    images_per_object : int, default 10
        Images per object (Rajalingham et al.'s public set: 10).
    trials_per_image : int, default 60
        Human trials per image, each with a distractor drawn uniformly from the other objects.
    n_subjects : int, default 20
        Subjects; trials are dealt to them at random.
    similarity : float in [0, 1], default 0.5
        Correlation between the model's and the humans' image-level deviations: 1 gives a
        model whose per-image pattern equals the humans', 0 one that shares only the
        object-pair structure.
    image_sd : float, default 0.8
        SD of the per-image difficulty (in d′ units), shared across distractors.
    object_seed : int, default 0
        Seed of the object-pair structure (mean separability of each pair), fixed apart
        from ``rng`` so that repeated draws come from one population of images.
    rng : None, int or numpy.random.Generator
        Draws images, trials and the model's own image pattern.

    Returns
    -------
    model_probabilities : pandas.DataFrame
        Indexed by image, one column per object; rows sum to 1.
    human_trials : pandas.DataFrame
        Columns ``subject, image, truth, distractor, response`` (one row per trial).

    Notes
    -----
    The humans' separability of image ``i`` (object ``t``) from distractor ``d`` is
    ``s[i, d] = μ[t, d] + δ_i + ε[i, d]`` with pair means ``μ ~ U(0.5, 2.5)``, image
    difficulty ``δ_i ~ N(0, image_sd²)`` and ``ε ~ N(0, 0.5²)``; a trial chooses ``d`` with
    probability ``Φ(−s[i, d])``. The model's separability is ``μ + ρ·(δ_i + ε) +
    √(1 − ρ²)·η`` with ``η`` an independent copy of ``δ + ε`` and ``ρ = similarity``; its
    probabilities are ``P(t) ∝ 1``, ``P(d) ∝ Φ(−s_m) / Φ(s_m)``, so that Brain-Score's
    ``P(d) / (P(d) + P(t)) = Φ(−s_m[i, d])`` is the model's 2AFC choice rate.

    Examples
    --------
    >>> probs, trials = synthetic_2afc(n_objects=4, images_per_object=3, trials_per_image=10, rng=0)
    >>> probs.shape, len(trials), list(trials.columns)
    ((12, 4), 120, ['subject', 'image', 'truth', 'distractor', 'response'])
    """
    import pandas as pd

    k = v.check_positive_int(n_objects, "n_objects", minimum=2)
    m = v.check_positive_int(images_per_object, "images_per_object")
    n_t = v.check_positive_int(trials_per_image, "trials_per_image")
    n_s = v.check_positive_int(n_subjects, "n_subjects")
    rho = float(v.check_probability(similarity, "similarity"))
    sd = float(v.as_float_array(image_sd, "image_sd"))
    mu = np.random.default_rng(object_seed).uniform(0.5, 2.5, (k, k))
    g_img, g_model, g_trial = child_rngs(rng, 3)
    n = k * m
    truth = np.repeat(np.arange(k), m)
    dev = g_img.normal(0, sd, (n, 1)) + g_img.normal(0, 0.5, (n, k))
    own = g_model.normal(0, sd, (n, 1)) + g_model.normal(0, 0.5, (n, k))
    s_h = mu[truth] + dev
    s_m = mu[truth] + rho * dev + np.sqrt(1 - rho**2) * own
    odds = ndtr(-s_m) / ndtr(s_m)
    odds[np.arange(n), truth] = 1.0
    names = np.array([f"o{j}" for j in range(k)])
    images = np.array([f"img{i:04d}" for i in range(n)])
    probs = pd.DataFrame(odds / odds.sum(axis=1, keepdims=True), index=pd.Index(images, name="image"), columns=names)
    img = np.repeat(np.arange(n), n_t)
    dist = (truth[img] + g_trial.integers(1, k, img.size)) % k
    wrong = g_trial.random(img.size) < ndtr(-s_h[img, dist])
    trials = pd.DataFrame({"subject": np.array([f"s{j:02d}" for j in range(n_s)])[g_trial.integers(0, n_s, img.size)],
                           "image": images[img], "truth": names[truth[img]], "distractor": names[dist],
                           "response": np.where(wrong, names[dist], names[truth[img]])})
    return probs, trials.iloc[g_trial.permutation(len(trials))].reset_index(drop=True)
