"""Brain-Score's value-delta metric (Ferguson et al. 2024) with confidence intervals.

Brain-Score compares one scalar of a model with the same scalar of humans by
``score = clip(exp(−scale·|s − t|), 0, 1)`` (``brainscore_vision/metrics/value_delta/metric.py``,
class ``ValueDelta``, default ``scale=1.0``; the Ferguson2024 benchmarks load it with
``scale=0.75``; brain-score/vision at commit c642dbe42aae3ed064bc0b66f70a80b264021164). Its
ceiling (``benchmarks/ferguson2024/benchmark.py``, ``calculate_ceiling``) is split-half: the
human trials are split at random in two halves (split ``i`` is ``np.random.seed(i)``;
``np.random.permutation(n)``, the first ``n // 2`` positions one half; here
:func:`trialwise.brainscore.ceiling.half_splits` with ``stream="brainscore-value-delta"``), the
metric compares the two halves' scalars, and the ceiling is the mean over 500 splits; the ceiled
score is ``clip(raw / ceiling, 0, 1)``. Brain-Score gives the metric no error (``NaN``) and the ceiling
the SD over splits. :func:`value_delta` reproduces this arithmetic and adds intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise._stats.resampling import bootstrap_index_rows, bootstrap_sums
from trialwise._stats.streams import records_seed, child_rngs
from trialwise.brainscore.ceiling import half_splits
from trialwise.brainscore.results import BrainScoreResult, CeilingResult
from trialwise._stats.intervals import interval

__all__ = ["BRAINSCORE_SCALE", "delta_metric", "value_delta"]

#: Default ``scale`` of Brain-Score's ``ValueDelta`` metric (its Ferguson2024 benchmarks use 0.75).
BRAINSCORE_SCALE = 1.0


def delta_metric(delta: NDArray, scale: float) -> NDArray:
    """Brain-Score's ``ValueDelta.__call__`` on differences: ``min(max(1 / exp(scale·|Δ|), 0), 1)``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.clip(1.0 / np.exp(scale * np.abs(delta)), 0.0, 1.0)


def _side(value: Any, se: Any, name: str) -> tuple[float, NDArray | None, float | None]:
    """One side's input: (its scalar, its trials or None, its standard error or None)."""
    arr = v.as_float_array(value, name)
    if arr.ndim == 0:
        if se is None:
            raise InvalidValueError(f"`{name}` is a scalar: give its standard error `{name}_se` (0 for an exact value), "
                                    f"or give its trials instead")
        s = v.as_float_array(se, f"{name}_se")
        if s.ndim != 0 or not np.isfinite(s) or s < 0:
            raise InvalidValueError(f"`{name}_se` must be a finite number ≥ 0; got {v.show(se)}")
        if not np.isfinite(arr):
            raise InvalidValueError(f"`{name}` must be finite; got {float(arr)!r}")
        return float(arr), None, float(s)
    if se is not None:
        raise InvalidValueError(f"`{name}` holds trials: its standard error is bootstrapped, so `{name}_se` must be "
                                f"None; got {v.show(se)}")
    if arr.ndim != 1 or arr.size < 2:
        raise InvalidValueError(f"`{name}` must be a scalar or a 1-D array of at least 2 trials; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InvalidValueError(f"`{name}` must be finite; got {float(arr[~np.isfinite(arr)][0])!r} at position "
                                f"{int(np.flatnonzero(~np.isfinite(arr))[0])}")
    return float(arr.mean()), arr, None


def _replicates(value: float, trials: NDArray | None, se: float | None, b: int, gen: np.random.Generator) -> NDArray:
    """B bootstrap means of the trials, or B normal draws ``N(value, se²)`` for a scalar."""
    if trials is None:
        return value + float(se or 0.0) * gen.standard_normal(b)
    return bootstrap_sums(trials[:, None], b, rng=gen)[:, 0] / trials.size


def _split_half(trials: NDArray, n_splits: int, scale: float, b: int, gen: np.random.Generator) -> tuple[float, NDArray]:
    """The split-half ceiling of the trials, observed and on B bootstrap replicates of the trials.

    A replicate draws n trials with replacement and splits *the drawn trials* with the same
    masks, so each half holds n // 2 draws, as the observed halves hold n // 2 trials
    (splitting the original positions with bootstrap weights would add the bootstrap's
    noise to each half and bias the replicate ceilings down)."""
    n = trials.size
    mask = half_splits(n, n_splits, stream="brainscore-value-delta").T.astype(float)  # (n, splits)
    k1 = mask.sum(axis=0)

    def ceiling(x: NDArray) -> NDArray:  # (b, n) trial values -> (b,)
        s1 = x @ mask
        return delta_metric(s1 / k1 - (x.sum(axis=1, keepdims=True) - s1) / (n - k1), scale).mean(axis=1)

    batch = max(1, min(b, 2**22 // max(n, n_splits)))
    reps = [ceiling(trials[idx]) for idx in bootstrap_index_rows(n, b, rng=gen, batch=batch)]
    return float(ceiling(trials[None])[0]), np.concatenate(reps)


@records_seed
def value_delta(
    source: Any,
    target: Any,
    *,
    scale: float = BRAINSCORE_SCALE,
    source_se: float | None = None,
    target_se: float | None = None,
    ceiling: float | None = None,
    n_splits: int = 500,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    rng: Any = None,
) -> BrainScoreResult:
    """Brain-Score's value delta ``clip(exp(−scale·|s − t|), 0, 1)`` of a model's scalar and the humans', with CIs.

    Parameters
    ----------
    source, target : float or array_like
        The model's (``source``) and the humans' (``target``) scalar, each either a number
        with its standard error (``source_se``, ``target_se``) or the trials whose mean it
        is (1-D: 0/1 correctness or any per-trial values), which are then bootstrapped.
    scale : float, default 1.0
        The steepness of Brain-Score's ``ValueDelta`` (its default, 1.0; its Ferguson2024
        benchmarks use 0.75). Positive.
    source_se, target_se : float, optional
        Standard errors of scalar ``source`` / ``target`` (must be None for trials).
    ceiling : float, optional
        A fixed ceiling (e.g. a published one). Default: the split-half ceiling of the
        ``target`` trials; 1 (no ceiling) when ``target`` is a scalar.
    n_splits : int, default 500
        Split-halves of the target trials (Brain-Score's ``num_loops``; its splits).
    n_resamples : int, default 2000
        Bootstrap (or, for scalars, normal) replicates B.
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BrainScoreResult
        ``statistic`` (= ``score``) ``clip(raw / ceiling, 0, 1)``, ``raw`` the value delta,
        ``ceiling`` a :class:`CeilingResult`, each with its interval; ``observer`` is
        ``"source"``, ``protocol`` ``"value-delta"``.

    Notes
    -----
    The difference ``Δ = s − t`` gets a percentile interval from B replicates (the bootstrap
    means of trials, ``N(s, se²)`` draws for a scalar). The raw interval is the image of
    that interval under ``exp(−scale·|Δ|)``: ``[exp(−scale·max|Δ|), exp(−scale·min|Δ|)]``,
    with upper end 1 when the interval contains 0. The metric is monotone in ``|Δ|``, so
    it covers whenever the interval of Δ covers, also when ``s = t``, where a percentile
    interval of the replicate scores (all < 1) never would. The ceiling's interval is the
    percentile interval of the split-half ceiling on bootstrap replicates of the target
    trials (the same splits). The score's interval is ``[clip(raw_low / ceiling_high),
    clip(raw_high / ceiling_low)]``. ``bootstrap_distribution`` holds the replicate scores.

    References
    ----------
    Ferguson, M. E., Ngo, J., Lee, M., DiCarlo, J. & Schrimpf, M. (2024). How well is
    visual search asymmetry predicted by a binary-choice, rapid, accuracy-based visual-search,
    oddball-detection (BRAVO) task? OSF, doi:10.17605/OSF.IO/5BA3N. Brain-Score's
    implementation: brain-score/vision, ``brainscore_vision/metrics/value_delta/metric.py`` and
    ``brainscore_vision/benchmarks/ferguson2024/benchmark.py`` (commit c642dbe).

    Examples
    --------
    >>> import numpy as np, trialwise as tw
    >>> float(tw.brainscore.value_delta(1.5, 1.0, source_se=0, target_se=0).raw.__round__(4))  # Brain-Score's test
    0.6065
    >>> g = np.random.default_rng(1)
    >>> model, humans = g.random(200) < 0.70, g.random(400) < 0.75
    >>> res = tw.brainscore.value_delta(model, humans, scale=0.75, n_resamples=1000, rng=0)
    >>> round(res.raw, 3), round(res.ceiling.statistic, 3), round(res.score, 3)
    (0.949, 0.975, 0.973)
    """
    scale = float(v.check_positive(scale, "scale"))
    s, s_trials, s_se = _side(source, source_se, "source")
    t, t_trials, t_se = _side(target, target_se, "target")
    n_splits = v.check_positive_int(n_splits, "n_splits")
    b = v.check_replicates(n_resamples)
    level = v.check_confidence_level(confidence_level)
    g_s, g_t = child_rngs(rng, 2)
    s_rep, t_rep = _replicates(s, s_trials, s_se, b, g_s), _replicates(t, t_trials, t_se, b, g_t)
    raw = float(delta_metric(np.asarray(s - t), scale))
    d_lo, d_hi = interval("percentile", s_rep - t_rep, s - t, level, bounds=(-np.inf, np.inf))
    far, near = max(abs(d_lo), abs(d_hi)), (0.0 if d_lo <= 0 <= d_hi else min(abs(d_lo), abs(d_hi)))
    raw_ci = ConfidenceInterval(float(delta_metric(np.asarray(far), scale)),
                                float(delta_metric(np.asarray(near), scale)))
    raw_rep = delta_metric(s_rep - t_rep, scale)
    if ceiling is not None:
        c = float(v.check_positive(ceiling, "ceiling"))
        c_obs, c_rep, c_ci, method = c, np.full(b, c), ConfidenceInterval(c, c), f"fixed at {c:g} (given)"
    elif t_trials is None:
        c_obs, c_rep, c_ci, method = 1.0, np.ones(b), ConfidenceInterval(1.0, 1.0), "fixed at 1 (target is a scalar)"
    else:
        if t_trials.size < 4:
            raise InvalidValueError(f"`target` needs at least 4 trials for a split-half ceiling; got {t_trials.size}")
        c_obs, c_rep = _split_half(t_trials, n_splits, scale, b, g_t)
        lo, hi = interval("percentile", c_rep, c_obs, level, bounds=(0, 1))
        c_ci, method = ConfidenceInterval(float(lo), float(hi)), f"split-half over trials ({n_splits} splits)"
    ceil = CeilingResult(statistic=c_obs, confidence_interval=c_ci, method=method, metric="value-delta",
                         confidence_level=level, n_resamples=b, bootstrap_distribution=np.asarray(c_rep, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        score_rep = np.clip(raw_rep / c_rep, 0, 1)
        lo_s = float(np.clip(raw_ci.low / c_ci.high, 0, 1))
        hi_s = float(np.clip(raw_ci.high / c_ci.low, 0, 1)) if c_ci.low > 0 else 1.0
    return BrainScoreResult(
        observer="source", statistic=float(np.clip(raw / c_obs, 0, 1)), confidence_interval=ConfidenceInterval(lo_s, hi_s),
        raw=raw, raw_interval=raw_ci, ceiling=ceil, metric="value-delta", protocol="value-delta",
        confidence_level=level, n_resamples=b, n_undefined=int(np.isnan(score_rep).sum()),
        bootstrap_distribution=score_rep, raw_distribution=raw_rep,
        notes=("raw interval: exp(−scale·|Δ|) over the percentile interval of Δ = source − target; score interval: "
               "[raw low / ceiling high, raw high / ceiling low], clipped to [0, 1]",))
