"""Brain-Score's OST metric (Kar et al. 2019; Kubilius, Schrimpf et al. 2019) with confidence intervals.

Brain-Score's ``OSTCorrelation`` (``brainscore_vision/metrics/ost/metric.py``, brain-score/vision
at commit c642dbe42aae3ed064bc0b66f70a80b264021164) fits decoders to a model's IT recordings
per time bin, reads off each image's object solution time (OST, the time at which the
decoded I1 reaches the target's I1; NaN when it never does) and correlates the model's OSTs
with the monkeys' by ``correlate``: images where either OST is NaN are dropped, then
``scipy.stats.spearmanr``. Its Kar2019 benchmark divides by a fixed ceiling of 0.79
("computed offline") without clipping (``ceil_score``). :func:`ost_correlation` starts from
the solution times (trialwise fits no decoders) and adds a split-half ceiling and intervals.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Note
from trialwise._stats.resampling import bootstrap_index_rows
from trialwise._stats.streams import records_seed, child_rngs
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise.brainscore.ceiling import half_splits, split_half_ceiling
from trialwise.brainscore.results import BrainScoreResult, CeilingResult
from trialwise._stats.intervals import interval

__all__ = ["ost_correlation", "spearman_rows"]


def spearman_rows(x: NDArray, y: NDArray) -> NDArray:
    """Spearman's ρ along the last axis over the positions where both are finite (Brain-Score's NaN rule).

    Average ranks for ties, as :func:`scipy.stats.spearmanr`; NaN where fewer than 3 pairs
    remain or one side is constant.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    bad = ~(np.isfinite(x) & np.isfinite(y))
    x, y = np.where(bad, np.nan, x), np.where(bad, np.nan, y)
    rx, ry = rankdata(x, axis=-1, nan_policy="omit"), rankdata(y, axis=-1, nan_policy="omit")
    k = (~bad).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.where(bad, 0.0, rx).sum(-1, keepdims=True) / k[..., None]
        my = np.where(bad, 0.0, ry).sum(-1, keepdims=True) / k[..., None]
        dx, dy = np.where(bad, 0.0, rx - mx), np.where(bad, 0.0, ry - my)
        r = (dx * dy).sum(-1) / np.sqrt((dx * dx).sum(-1) * (dy * dy).sum(-1))
    return np.where(k >= 3, r, np.nan)


def _mean_finite(x: NDArray, axis: int) -> NDArray:
    """Mean over the finite values along ``axis`` (NaN where there are none), without numpy's empty-slice warning."""
    fin = np.isfinite(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(fin, x, 0.0).sum(axis=axis) / fin.sum(axis=axis)


def _target(target_osts: Any, n: int) -> NDArray:
    t = v.as_float_array(target_osts, "target_osts")
    if t.ndim == 1:
        t = t[:, None]
    if t.ndim != 2 or t.shape[0] != n:
        raise InvalidValueError(f"`target_osts` must have one row per image ({n}, as `model_osts`), optionally with "
                                f"one column per subject or trial; got shape {t.shape}")
    if np.isinf(t).any():
        raise InvalidValueError("`target_osts` must be finite or NaN (never solved); got ±inf")
    return t


@records_seed
def ost_correlation(
    model_osts: Any,
    target_osts: Any,
    *,
    ceiling: float | None = None,
    ceiling_method: Literal["split-half", "spearman-brown", "attenuation"] = "attenuation",
    n_splits: int = 20,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: Any = None,
) -> BrainScoreResult:
    """Spearman correlation of a model's object solution times with the target's, with raw, ceiling and score CIs.

    Parameters
    ----------
    model_osts : array_like, shape (n_images,)
        The model's OST per image; NaN where the model never solves the image.
    target_osts : array_like, shape (n_images,) or (n_images, n_replicates)
        The target's (humans' or monkeys') OST per image, or per image and subject / trial
        (NaN where missing or never solved). The per-image value is the mean over the
        finite replicates.
    ceiling : float, optional
        A fixed ceiling (Brain-Score's Kar2019 benchmark uses 0.79). Default: the
        split-half ceiling of the replicates; 1 (no ceiling) for one value per image.
    ceiling_method : {"attenuation", "split-half", "spearman-brown"}
        From the split-half correlation ``r`` (ρ between the per-image means of two
        random halves of the replicates, averaged over splits): ``"split-half"`` is
        ``r``; ``"spearman-brown"`` is the reliability of the mean of all replicates,
        ``2r / (1 + r)``; ``"attenuation"`` (default) is its square root, the correlation
        a model equal to the target's true OSTs would have with the noisy target mean
        (Spearman 1904), so that such a model scores about 1 (Brain-Score's I2n divides
        by a square root of its split-half ceiling for the same reason). With
        ``"split-half"`` a model is compared with a *half* of the target while its raw ρ
        is with the mean of all of it, so good models exceed the ceiling and are clipped
        to 1 (docs/brainscore.md shows a case).
    n_splits : int, default 20
        Random half splits of the replicate columns.
    n_resamples : int, default 2000
        Bootstrap replicates B (images resampled with replacement).
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BrainScoreResult
        ``raw`` the Spearman ρ; ``statistic`` (= ``score``) ``clip(raw / ceiling, 0, 1)``;
        ``ceiling`` a :class:`CeilingResult`; ``observer`` ``"model"``, ``protocol`` ``"ost"``.

    Warns
    -----
    DegenerateDataWarning
        When the split-half correlation of the target is ≤ 0 (then the ceiling and the
        score are NaN).

    Notes
    -----
    Brain-Score's rule for never-solved images is kept: an image counts only where both
    OSTs are defined (``correlate`` drops the others); a bootstrap replicate applies the
    same rule to its drawn images. Split ``s`` assigns the replicate columns at random to
    two halves (the first ``m // 2`` of a permutation); the ceiling is the mean over
    splits of ρ between the two halves' per-image means, computed on the same resampled
    images as the raw ρ, so the score's percentile interval carries the ceiling's
    uncertainty. Brain-Score divides by its ceiling without clipping; here the score is
    clipped to [0, 1] like every ceiled score of the library (``raw / ceiling.statistic``
    gives the unclipped ratio). Brain-Score averages ρ over 10 cross-validation folds of
    10 % of the images because its decoders are fitted on the other 90 %; given the
    solution times, no fitting is needed and ρ is computed once on all images.

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things.
    *American Journal of Psychology* 15, 72–101; Brown, W. (1910). Some experimental results
    in the correlation of mental abilities. *British Journal of Psychology* 3, 296–322.

    Kar, K., Kubilius, J., Schmidt, K., Issa, E. B. & DiCarlo, J. J. (2019). Evidence that
    recurrent circuits are critical to the ventral stream's execution of core object
    recognition behavior. *Nature Neuroscience* 22, 974–983.

    Kubilius, J., Schrimpf, M., et al. (2019). Brain-like object recognition with
    high-performing shallow recurrent ANNs. NeurIPS. Brain-Score's implementation:
    brain-score/vision, ``brainscore_vision/metrics/ost/metric.py`` (commit c642dbe).

    Examples
    --------
    >>> import numpy as np, trialwise as tw
    >>> g = np.random.default_rng(0)
    >>> difficulty = g.normal(size=300)
    >>> monkeys = 150 + 20 * difficulty[:, None] + g.normal(0, 25, (300, 8))
    >>> model = 120 + 15 * difficulty + g.normal(0, 15, 300)
    >>> res = tw.brainscore.ost_correlation(model, monkeys, n_resamples=500, rng=0)
    >>> round(res.raw, 3), round(res.ceiling.statistic, 3), round(res.score, 3)
    (0.631, 0.918, 0.687)
    """
    m = v.as_float_array(model_osts, "model_osts")
    if m.ndim != 1 or m.size < 3:
        raise InvalidValueError(f"`model_osts` must be 1-D with at least 3 images; got shape {m.shape}")
    if np.isinf(m).any():
        raise InvalidValueError("`model_osts` must be finite or NaN (never solved); got ±inf")
    t = _target(target_osts, m.size)
    ceiling_method = v.check_choice(ceiling_method, "ceiling_method", ("split-half", "spearman-brown", "attenuation"))
    n_splits = v.check_positive_int(n_splits, "n_splits")
    b = v.check_replicates(n_resamples)
    level = v.check_confidence_level(confidence_level)
    n, reps = t.shape
    with np.errstate(invalid="ignore", divide="ignore"):
        t_mean = np.where(np.isfinite(t), t, 0.0).sum(axis=1) / np.isfinite(t).sum(axis=1)
    if (np.isfinite(m) & np.isfinite(t_mean)).sum() < 3:
        raise InvalidValueError("`model_osts` and `target_osts` need at least 3 images solved by both")
    g_split, g_boot = child_rngs(rng, 2)
    c_fixed = 1.0
    if ceiling is None and reps >= 2:
        halves = half_splits(reps, n_splits, rng=g_split)  # (splits, reps)
        with np.errstate(invalid="ignore", divide="ignore"):
            fin = np.isfinite(t)
            tz = np.where(fin, t, 0.0)
            h1 = (tz @ halves.T) / (fin @ halves.T)  # (n, splits); NaN where a half has no value
            h2 = (tz @ ~halves.T) / (fin @ ~halves.T)
        h1, h2 = h1.T, h2.T  # (splits, n)
        method = f"{ceiling_method} over replicates ({n_splits} random half splits)"
    else:
        h1 = h2 = None
        c_fixed = 1.0 if ceiling is None else _check_ceiling(ceiling)
        method = "fixed at 1 (one value per image)" if ceiling is None else f"fixed at {c_fixed:g} (given)"

    both = np.isfinite(m) & np.isfinite(t_mean)
    flat = [f"`{name}` (all {x[both][0]:g})" for name, x in (("model_osts", m), ("target_osts", t_mean))
            if np.ptp(x[both]) == 0]
    notes: tuple[Note, ...] = ()
    if flat:  # Spearman's ρ of a constant is 0/0
        notes = (Note(f"{' and '.join(flat)} {'are' if len(flat) > 1 else 'is'} the same on every image solved by "
                      f"both, so Spearman's ρ, the raw value and the score are undefined (NaN)", "undefined"),)
        warn(str(notes[0]), DegenerateDataWarning)
    raw = float(spearman_rows(m, t_mean))
    raw_rep, c_rep = np.empty(b), np.empty(b)
    done = 0
    for idx in bootstrap_index_rows(n, b, rng=g_boot, batch=max(1, min(b, 2**21 // (n * (n_splits + 1))))):
        k = idx.shape[0]
        raw_rep[done:done + k] = spearman_rows(m[idx], t_mean[idx])
        if h1 is not None:
            c_rep[done:done + k] = split_half_ceiling(_mean_finite(spearman_rows(h1[:, idx], h2[:, idx]), axis=0),
                                                      ceiling_method)
        done += k
    if h1 is not None:
        r_half = float(_mean_finite(spearman_rows(h1, h2), axis=0))
        c_obs = float(split_half_ceiling(r_half, ceiling_method))
        lo, hi = interval("percentile", c_rep, c_obs, level, bounds=(-1, 1))
        c_ci = ConfidenceInterval(float(lo), float(hi))
        if not r_half > 0 and flat:  # said above: one warning
            notes += (Note(f"the split-half correlation of the target is {r_half:.3g}: the ceiling is undefined (NaN)",
                           "undefined"),)
            c_obs = np.nan
        elif not r_half > 0:
            warn(f"the split-half correlation of the target is {r_half:.3g} ≤ 0: its replicates do not agree, so the "
                 f"ceiling and the ceiled score are undefined (NaN)", DegenerateDataWarning)
            c_obs = np.nan
    else:
        c_obs, c_ci = c_fixed, ConfidenceInterval(c_fixed, c_fixed)
        c_rep[:] = c_fixed
    ceil = CeilingResult(statistic=c_obs, confidence_interval=c_ci, method=method, metric="ost",
                         confidence_level=level, n_resamples=b, bootstrap_distribution=c_rep)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = float(np.clip(raw / c_obs, 0, 1)) if c_obs > 0 else np.nan
        score_rep = np.where(c_rep > 0, np.clip(raw_rep / np.where(c_rep > 0, c_rep, 1), 0, 1), np.nan)
    lo, hi = interval("percentile", score_rep, score, level, bounds=(0, 1))
    r_lo, r_hi = interval("percentile", raw_rep, raw, level, bounds=(-1, 1))
    return BrainScoreResult(
        observer="model", statistic=score, confidence_interval=ConfidenceInterval(float(lo), float(hi)), raw=raw,
        raw_interval=ConfidenceInterval(float(r_lo), float(r_hi)), ceiling=ceil, metric="ost", protocol="ost",
        confidence_level=level, n_resamples=b, n_undefined=int(np.isnan(score_rep).sum()),
        bootstrap_distribution=score_rep, raw_distribution=raw_rep, notes=notes)


def _check_ceiling(ceiling: Any) -> float:
    """A given ceiling: one number in (0, 1] (a correlation's ceiling)."""
    if isinstance(ceiling, (bool, np.bool_)) or not isinstance(ceiling, numbers.Real):
        raise InvalidTypeError(f"`ceiling` must be a number in (0, 1] or None; got {v.show(ceiling)}")
    c = float(ceiling)
    if not 0.0 < c <= 1.0:
        raise InvalidValueError(f"`ceiling` must be in (0, 1] (the correlation of the target with itself); got "
                                f"{v.show(ceiling)}")
    return c
