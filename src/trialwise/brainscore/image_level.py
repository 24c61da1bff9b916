"""Brain-Score's I1n and I2n (Rajalingham et al. 2018) with confidence intervals.

Brain-Score's implementation is ``brainscore_vision/metrics/i1i2/metric.py`` (classes
``_Behavior_Metric`` and ``_I``; ``I2n`` = ``_I(collapse_distractors=False, normalize=True)``,
``I1n`` = ``_I(collapse_distractors=True, normalize=True)``) and the benchmark
``brainscore_vision/benchmarks/rajalingham2018/benchmarks/benchmark.py`` (``ceil_score``), both
read at brain-score/vision commit c642dbe42aae3ed064bc0b66f70a80b264021164 (metric file last
changed in 24764de6f2d972b4e66f5234842f8b4d1e1384a9). Its steps, which :func:`i2n` and
:func:`i1n` reproduce with ``brainscore_compatible=True``:

1. model response matrix ``p[i, d] = P(d) / (P(d) + P(t))`` for image ``i`` of true object
   ``t`` (``target_distractor_scores``); NaN where ``d = t``;
2. human response matrix: of the trials on image ``i`` that offered ``d``, the share that
   chose ``d`` (``build_response_matrix_from_responses``); NaN where ``d = t`` or no trial;
3. ``d′[i, d] = Φ⁻¹(1 − RM[i, d]) − Φ⁻¹(FAR)``, FAR the NaN-mean of ``RM[j, t]`` over the
   images ``j`` whose truth is ``d`` (``_I.dprime``), clipped to [−5, 5] (``dprimes``; rates of
   0 or 1 give ±∞ before the clip, and ∞ − ∞ gives NaN);
4. "n": subtract the NaN-mean of each (truth, distractor) group (``subtract_mean``); for I1n
   then the NaN-mean over distractors (``collapse_distractors``);
5. Pearson r over the cells where the humans' value is defined (``correlate``);
6. two repetitions; a single ``numpy.random.RandomState(0)`` shuffles the trial positions for
   each (``generate_halves``: first ``int(n / 2)`` positions one half; here
   :func:`trialwise.brainscore.ceiling.half_splits` with ``stream="brainscore-i2n"``). The raw
   value of a repetition correlates the model with the first half; the ceiling correlates the halves
   (with the same shuffles: the seed is reset for the ceiling); the score is the mean over
   repetitions of ``r / √ceiling``, not clipped.

The intervals (bias-corrected jackknife-t over images within objects, their SE with the variance
the bias correction adds) are documented in docs/brainscore.md, "Coverage". Why this module is
long: about 570 lines, because the 2AFC and K-way
cases, the Brain-Score-compatible path and the shared parameter docs of :func:`i2n` and
:func:`i1n` belong together; splitting them would scatter one algorithm over files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtri

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise._stats.resampling import bootstrap_weights
from trialwise._stats.streams import records_seed, child_rngs
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise.brainscore.ceiling import half_splits, spearman_brown
from trialwise.brainscore.results import BrainScoreResult, CeilingResult
from trialwise._stats.intervals import bias_correction_variance, jackknife_bias, jackknife_standard_error
from trialwise._stats.tables import cross_table

__all__ = ["dprime_matrix", "i1n", "i2n"]

#: Brain-Score's cap on |d′| (``dprimes(cap=5)``).
DPRIME_CAP = 5.0
KwayRate = Literal["share", "pairwise"]
RateCorrection = Literal["none", "loglinear"]
CeilingMethod = Literal["split-half", "spearman-brown"]


def _nanmean_groups(values: NDArray, onehot: NDArray) -> NDArray:
    """NaN-mean of ``values`` (rows × K) within each group of rows: (groups × K), NaN where a group has none."""
    fin = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (onehot.T @ np.where(fin, values, 0.0)) / (onehot.T @ fin)


def dprime_matrix(rates: Any, truth: Any, *, normalize: bool = True) -> NDArray:
    """Brain-Score's d′ per (image, alternative) from a response matrix, clipped to [−5, 5].

    Parameters
    ----------
    rates : array_like, shape (n_images, K)
        ``rates[i, d]``: how often image ``i`` was called ``d`` (NaN where undefined, e.g.
        ``d`` = the image's truth).
    truth : array_like of int, shape (n_images,)
        Column index of each image's true object.
    normalize : bool, default True
        Subtract the NaN-mean of each (truth, alternative) group (the "n" of I2n).

    Returns
    -------
    numpy.ndarray, shape (n_images, K)

    Notes
    -----
    ``d′[i, d] = Φ⁻¹(1 − rates[i, d]) − Φ⁻¹(FAR[d, t_i])`` with ``FAR[d, t]`` the NaN-mean of
    ``rates[j, t]`` over the images ``j`` of truth ``d`` (Brain-Score's ``_I.dprime``).

    Examples
    --------
    >>> import numpy as np
    >>> rm = np.array([[np.nan, 0.2], [0.1, np.nan], [np.nan, 0.3], [0.4, np.nan]])
    >>> dprime_matrix(rm, [0, 1, 0, 1], normalize=False).round(3).tolist()
    [[nan, 1.516], [1.956, nan], [nan, 1.199], [0.928, nan]]
    """
    rm = np.asarray(rates, dtype=float)
    t = np.asarray(truth, dtype=int)
    k = rm.shape[1]
    onehot = (t[:, None] == np.arange(k)).astype(float)
    far = _nanmean_groups(rm, onehot)  # far[d, t] = mean over images of truth d of rm[j, t]
    with np.errstate(invalid="ignore", divide="ignore"):
        d = ndtri(1.0 - rm) - ndtri(far[:, t].T)  # cell (i, d): FAR[d, t_i]
        d = np.clip(d, -DPRIME_CAP, DPRIME_CAP)
    if normalize:
        d = d - _nanmean_groups(d, onehot)[t]
    return d



def _pearson(a: NDArray, b: NDArray) -> float:
    """Pearson r over the positions where both are finite (NaN with fewer than 3 or a constant side)."""
    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < 3:
        return np.nan
    x, y = a[ok] - a[ok].mean(), b[ok] - b[ok].mean()
    den = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / den) if den > 0 else np.nan


@dataclass(frozen=True)
class _Data:
    images: NDArray        # image labels (rows)
    classes: NDArray       # class labels (columns)
    truth: NDArray         # (n_images,) column of the truth
    model_rates: NDArray   # (n_images, K)
    row: NDArray           # (T,) image row of each trial
    resp: NDArray          # (T,) chosen column
    dist: NDArray | None   # (T,) distractor column (2AFC) or None (K-way)


def _prepare(model_probabilities: Any, human_trials: Any, kway_rate: str) -> _Data:
    import pandas as pd

    if not isinstance(model_probabilities, pd.DataFrame):
        raise InvalidTypeError(f"`model_probabilities` must be a pandas DataFrame indexed by image with one column "
                               f"per class; got {type(model_probabilities).__name__}")
    if not isinstance(human_trials, pd.DataFrame):
        raise InvalidTypeError(f"`human_trials` must be a pandas DataFrame (subject, image, truth, response[, "
                               f"distractor]); got {type(human_trials).__name__}")
    need = ["image", "truth", "response"]
    missing = [c for c in need if c not in human_trials.columns]
    if missing:
        raise InvalidValueError(f"`human_trials` lacks the column(s) {missing}; got columns "
                                f"{list(human_trials.columns)}")
    if model_probabilities.index.has_duplicates:
        raise InvalidValueError("`model_probabilities` has duplicate images in its index; got "
                                f"{v.show(model_probabilities.index[model_probabilities.index.duplicated()][:3].tolist())}")
    p_all = v.as_float_array(model_probabilities, "model_probabilities")
    if not np.isfinite(p_all).all() or (p_all < 0).any():
        raise InvalidValueError("`model_probabilities` must be finite and ≥ 0")
    sums = p_all.sum(axis=1)
    # rows off by rounding each value (to 3 decimals: 0.0005 per class, counted up to 16 classes) are fine: I2n uses
    # ratios of a row's values, which renormalising does not change
    off = np.abs(sums - 1.0) > 0.0005 * min(p_all.shape[1], 16)
    if off.any():
        k = int(np.flatnonzero(off)[0])
        raise InvalidValueError(f"`model_probabilities` rows must sum to 1 (the model's class probabilities of an "
                                f"image); image {model_probabilities.index[k]!r} sums to {sums[k]:.6g} "
                                f"({int(off.sum())} of {off.size} rows are off): for scores or logits, apply a "
                                f"softmax first")
    classes = np.asarray(model_probabilities.columns)
    col = {c: j for j, c in enumerate(classes.tolist())}
    images, row = np.unique(human_trials["image"].to_numpy(), return_inverse=True)
    absent = [i for i in images.tolist() if i not in model_probabilities.index]
    if absent:
        raise InvalidValueError(f"`model_probabilities` has no row for {len(absent)} image(s) of `human_trials`, "
                                f"e.g. {absent[0]!r}")

    def cols(name: str) -> NDArray:
        missing = human_trials[name].isna().to_numpy()
        if missing.any():
            raise InvalidValueError(f"`human_trials.{name}` has a missing value at row {int(np.flatnonzero(missing)[0])}; "
                                    f"every trial needs its {name}")
        values = human_trials[name].to_numpy()
        bad = [x for x in pd.unique(values) if x not in col]
        if bad:
            raise InvalidValueError(f"`human_trials.{name}` holds {bad[0]!r}, which is not a column of "
                                    f"`model_probabilities` (its classes: {v.show(classes.tolist())})")
        return np.array([col[x] for x in values.tolist()], dtype=int)

    truth_t, resp = cols("truth"), cols("response")
    truth = np.full(images.size, -1)
    truth[row] = truth_t
    if (truth[row] != truth_t).any():
        raise InvalidValueError("`human_trials` gives one image two different truths")
    dist = None
    if "distractor" in human_trials.columns:
        dist = cols("distractor")
        if ((resp != truth_t) & (resp != dist)).any() or (dist == truth_t).any():
            raise InvalidValueError("2AFC `human_trials`: each `response` must be the `truth` or the `distractor`, "
                                    "and the distractor must differ from the truth")
    p = p_all[model_probabilities.index.get_indexer(images)]
    pt = p[np.arange(images.size), truth][:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = p / (p + pt) if dist is not None or kway_rate == "pairwise" else p / p.sum(axis=1, keepdims=True)
    rates[np.arange(images.size), truth] = np.nan
    return _Data(images, classes, truth, rates, row, resp, dist)


def _half_counts(d: _Data, mask: NDArray) -> tuple[NDArray, NDArray]:
    """Counts of the trials in ``mask`` per (image, alternative): (chosen, offered); for K-way data every trial
    of the image offers every alternative."""
    n, k = d.images.size, d.classes.size
    rows, resp = d.row[mask], d.resp[mask]
    num = cross_table(rows, resp, (n, k)).astype(float)
    if d.dist is not None:
        den = cross_table(rows, d.dist[mask], (n, k)).astype(float)
    else:
        den = np.repeat(cross_table(rows, np.zeros_like(rows), (n, 1)).astype(float), k, axis=1)
    return num, den


def _human_rates(num: NDArray, den: NDArray, truth: NDArray, pairwise: bool, correction: str) -> NDArray:
    """The humans' response matrix (rows × K) from the counts of :func:`_half_counts`."""
    rows = np.arange(truth.size)
    if pairwise:  # K-way "pairwise": among the trials that chose d or the truth
        den = num + num[rows, truth][:, None]
    if correction == "loglinear":
        num, den = num + 0.5, np.where(den > 0, den + 1.0, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rm = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    rm[rows, truth] = np.nan
    return rm


def _flat(dp: NDArray, collapse: bool) -> NDArray:
    if not collapse:
        return dp.ravel()
    fin = np.isfinite(dp)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(fin, dp, 0.0).sum(axis=1) / fin.sum(axis=1)


def _split_correlations(d: _Data, model_rates: NDArray, truth: NDArray, splits: Sequence[tuple[NDArray, ...]], *,
                        collapse: bool, kway_rate: str, correction: str) -> tuple[NDArray, Callable, NDArray, NDArray]:
    """Per half split of the human trials: the model's correlation with the first half (``r_s``) and the two
    halves' with each other (``c_s``); with the model's values and the humans' values of counts, ``human``."""
    model = _flat(dprime_matrix(model_rates, truth), collapse)
    pairwise = d.dist is None and kway_rate == "pairwise"

    def human(num: NDArray, den: NDArray) -> NDArray:
        return _flat(dprime_matrix(_human_rates(num, den, truth, pairwise, correction), truth), collapse)

    r_s, c_s = np.empty(len(splits)), np.empty(len(splits))
    for s, (num1, den1, num2, den2) in enumerate(splits):
        first = human(num1, den1)
        r_s[s] = _pearson(model, first)
        c_s[s] = _pearson(human(num2, den2), first)  # Brain-Score masks on its second argument's NaNs; both here
    return model, human, r_s, c_s


def _one(d: _Data, model_rates: NDArray, truth: NDArray, splits: Sequence[tuple[NDArray, ...]], *,
         collapse: bool, kway_rate: str, correction: str, ceiling_method: str, clip: bool) -> tuple[float, float, float]:
    """(raw, ceiling, score) of one data set: image rows (their truths and model rates) and, per split, the two
    halves' counts per row, ``(chosen 1, offered 1, chosen 2, offered 2)`` (see :func:`_half_counts`)."""
    model, human, r_s, c_s = _split_correlations(d, model_rates, truth, splits, collapse=collapse,
                                                 kway_rate=kway_rate, correction=correction)
    with np.errstate(invalid="ignore", divide="ignore"):
        if ceiling_method == "spearman-brown":
            r_half = float(np.mean(c_s))
            ceiling = float(spearman_brown(r_half))
            num1, den1, num2, den2 = splits[0]
            raw = _pearson(model, human(num1 + num2, den1 + den2))
            score = raw / np.sqrt(ceiling) if ceiling > 0 else np.nan
        else:
            raw, ceiling = float(np.mean(r_s)), float(np.mean(c_s))
            score = float(np.mean(np.where(c_s > 0, r_s / np.sqrt(np.where(c_s > 0, c_s, 1.0)), np.nan)))
    if clip:
        score = float(np.clip(score, 0.0, 1.0))
    return float(raw), float(ceiling), float(score)


#: At most this many leave-out units: above it, images are dealt to groups within their object
#: (the delete-a-group jackknife, Kott 2001), so the cost stays ~ 400 evaluations.
MAX_JACKKNIFE_UNITS = 400


def _jackknife(d: _Data, observed: Sequence[tuple[NDArray, ...]], opts: dict[str, Any],
               g: np.random.Generator) -> tuple[NDArray, NDArray]:
    """(raw, ceiling, unclipped score) with each image (or group of images of one object) left out in turn, and
    the object of each unit; NaN for an object's only unit."""
    n, k = d.images.size, d.classes.size
    per_object = cross_table(d.truth, np.zeros_like(d.truth), (k, 1))[:, 0]
    cap = max(2, MAX_JACKKNIFE_UNITS // max(int((per_object > 0).sum()), 1))
    unit = np.empty(n, dtype=int)
    for obj in np.flatnonzero(per_object):
        members = np.flatnonzero(d.truth == obj)
        unit[members] = obj * n + g.permutation(members.size) % min(cap, members.size)
    units, unit = np.unique(unit, return_inverse=True)
    strata = units // n
    out = np.full((units.size, 3), np.nan)
    for u in range(units.size):
        if per_object[strata[u]] < 2:
            continue
        keep = unit != u
        out[u] = _one(d, d.model_rates[keep], d.truth[keep], [tuple(x[keep] for x in s) for s in observed],
                      **{**opts, "clip": False})
    return out, strata


#: Groups of the second-level jackknife (the variance the bias correction adds): images are dealt to at most this
#: many groups within their object, G(G + 1)/2 evaluations (docs/brainscore.md, "Coverage").
MAX_CORRECTION_GROUPS = 10


def _group_jackknife(d: _Data, observed: Sequence[tuple[NDArray, ...]], opts: dict[str, Any],
                     g: np.random.Generator) -> tuple[NDArray, NDArray] | None:
    """(raw, ceiling, unclipped score) with each group of images left out, (G, 3), and with each pair of groups
    left out, (G, G, 3), NaN on the diagonal; None with fewer than 3 groups.

    The images of each object with two or more are dealt at random to G = min(10, the fewest images of such an
    object) groups, so each group holds about 1/G of every object's images; an object's only image stays in.
    """
    k = d.classes.size
    per_object = cross_table(d.truth, np.zeros_like(d.truth), (k, 1))[:, 0]
    several = np.flatnonzero(per_object >= 2)
    n_groups = int(min(MAX_CORRECTION_GROUPS, per_object[several].min())) if several.size else 0
    if n_groups < 3:
        return None
    group = np.full(d.images.size, -1)
    for obj in several:
        members = np.flatnonzero(d.truth == obj)
        group[members] = g.permutation(members.size) % n_groups
    o = {**opts, "clip": False}

    def value(keep: NDArray) -> tuple[float, float, float]:
        return _one(d, d.model_rates[keep], d.truth[keep], [tuple(x[keep] for x in s) for s in observed], **o)

    one = np.array([value(group != a) for a in range(n_groups)])
    two = np.full((n_groups, n_groups, 3), np.nan)
    for a in range(n_groups):
        for c in range(a + 1, n_groups):
            two[a, c] = two[c, a] = value((group != a) & (group != c))
    return one, two


def _stratified_jackknife_interval(estimate: float, jack: NDArray, strata: NDArray, level: float,
                                   bounds: tuple[float, float], correction_variance: float = 0.0
                                   ) -> tuple[float, float]:
    """Bias-corrected jackknife-t interval over images within their objects (the strata).

    ``θ̃ = θ̂ − b`` with the stratified jackknife bias ``b = Σ_h (n_h − 1)(θ̄_(h) − θ̂)``
    (:func:`trialwise._stats.intervals.jackknife_bias`), and ``θ̃ ± t_{G−1} · SE`` with
    ``SE² = Σ_h (n_h − 1)/n_h · Σ_{i∈h} (θ_(i) − θ̄_(h))² + max(0, Δ)`` (Efron & Tibshirani 1993,
    ch. 10–11; Wolter 2007, ch. 4, for strata; :func:`trialwise._stats.intervals.jackknife_standard_error`
    with ``strata``), G the units of the objects with at least two, ``Δ`` (``correction_variance``)
    the variance the bias correction adds (:func:`trialwise._stats.intervals.bias_correction_variance`;
    NaN counts as 0); ends clipped to ``bounds``.
    """
    if not np.isfinite(estimate):
        return np.nan, np.nan
    from scipy import stats

    centre = float(estimate - jackknife_bias(estimate, jack, strata=strata))
    se, units = jackknife_standard_error(jack, strata=strata)  # NaN with fewer than two units
    extra = float(correction_variance) if np.isfinite(correction_variance) and correction_variance > 0 else 0.0
    half = float(stats.t.ppf(0.5 + level / 2, max(float(units) - 1, 1)) * np.sqrt(se**2 + extra))
    return float(np.clip(centre - half, *bounds)), float(np.clip(centre + half, *bounds))


def _behavior(model_probabilities: Any, human_trials: Any, *, collapse: bool, n_splits: Any, brainscore_compatible: Any,
              ceiling_method: Any, rate_correction: Any, kway_rate: Any, n_resamples: Any, confidence_level: Any,
              rng: Any) -> BrainScoreResult:
    name = "i1n" if collapse else "i2n"
    if not isinstance(brainscore_compatible, (bool, np.bool_)):
        raise InvalidValueError(f"`brainscore_compatible` must be True or False; got {v.show(brainscore_compatible)}")
    compat = bool(brainscore_compatible)
    ceiling_method = v.check_choice(ceiling_method, "ceiling_method", ("split-half", "spearman-brown"))
    rate_correction = v.check_choice(rate_correction, "rate_correction", ("none", "loglinear"))
    kway_rate = v.check_choice(kway_rate, "kway_rate", ("share", "pairwise"))
    n_splits = v.check_positive_int(n_splits, "n_splits")
    b = v.check_replicates(n_resamples)
    level = v.check_confidence_level(confidence_level)
    if compat and (ceiling_method != "split-half" or rate_correction != "none"):
        raise InvalidValueError("`brainscore_compatible=True` reproduces Brain-Score: it needs "
                                f"ceiling_method='split-half' and rate_correction='none'; got {ceiling_method!r}, "
                                f"{rate_correction!r}")
    d = _prepare(model_probabilities, human_trials, kway_rate)
    n_trials = d.row.size
    if n_trials < 4:
        raise InvalidValueError(f"`human_trials` needs at least 4 trials for a split-half ceiling; got {n_trials}")
    g_split, g_boot, g_trial = child_rngs(rng, 3)
    if compat:
        n_splits = 2
        halves = half_splits(n_trials, 2, stream="brainscore-i2n")
    else:
        halves = half_splits(n_trials, n_splits, rng=g_split)
    opts = dict(collapse=collapse, kway_rate=kway_rate, correction=rate_correction, ceiling_method=ceiling_method,
                clip=not compat)
    observed = [(*_half_counts(d, h), *_half_counts(d, ~h)) for h in halves]
    raw, ceiling, score = _one(d, d.model_rates, d.truth, observed, **opts)
    # each split's raw value and ceiling, as Brain-Score keeps them (its Score's raw values along 'split'): with the
    # split-half ceiling, raw and ceiling are their means and the score the mean of raw / √ceiling over them
    per_split = (np.column_stack(_split_correlations(d, d.model_rates, d.truth, observed, collapse=collapse,
                                                     kway_rate=kway_rate, correction=rate_correction)[2:])
                 if ceiling_method == "split-half" else np.empty((0, 2)))
    # bootstrap: images within their true object, each with its own trials (its counts); each replicate takes
    # n_splits half splits from a pool of fresh random splits. Resampling the trials within images as well would
    # add their noise a second time and bias the replicate ceilings down.
    n_pool = max(n_splits, min(2 * n_splits + 10, 2**23 // (4 * d.images.size * d.classes.size)))
    pool = [(*_half_counts(d, h), *_half_counts(d, ~h)) for h in half_splits(n_trials, n_pool, rng=g_trial)]
    reps = np.full((b, 3), np.nan)
    done = 0
    for w in bootstrap_weights(d.images.size, b, rng=g_boot, strata=d.truth):
        for wr in w:
            img = np.repeat(np.arange(d.images.size), wr.astype(int))
            splits = [tuple(x[img] for x in pool[j]) for j in g_trial.choice(n_pool, n_splits, replace=False)]
            reps[done] = _one(d, d.model_rates[img], d.truth[img], splits, **opts)
            done += 1
    ok = np.isfinite(reps[:, 2])
    # intervals: bias-corrected jackknife-t over images within objects (docs/brainscore.md, "Coverage"): the
    # bootstrap replicates, with ~63 % distinct images each, under-state the estimator's finite-image bias
    score_raw = _one(d, d.model_rates, d.truth, observed, **{**opts, "clip": False})[2]
    jack, strata = _jackknife(d, observed, opts, g_split)
    groups = _group_jackknife(d, observed, opts, g_split)  # the variance the bias correction adds
    extra = np.zeros(3) if groups is None else bias_correction_variance(*groups)
    r_lo, r_hi = _stratified_jackknife_interval(raw, jack[:, 0], strata, level, (-1.0, 1.0), extra[0])
    c_lo, c_hi = _stratified_jackknife_interval(ceiling, jack[:, 1], strata, level, (-1.0, 1.0), extra[1])
    s_lo, s_hi = _stratified_jackknife_interval(score_raw, jack[:, 2], strata, level,
                                                (-np.inf, np.inf) if compat else (0.0, 1.0), extra[2])
    if not ceiling > 0:
        warn(f"the humans' split-half {name} correlation is {ceiling:.3g} ≤ 0: their halves do not agree, so the "
             f"score is undefined (NaN)", DegenerateDataWarning)
    split_text = ("Brain-Score's 2 splits (RandomState(0))" if compat else f"{n_splits} random half splits")
    method = f"{ceiling_method} over trials ({split_text})"
    ceil = CeilingResult(statistic=ceiling, confidence_interval=ConfidenceInterval(float(c_lo), float(c_hi)),
                         method=method, metric=name, confidence_level=level, n_resamples=b,
                         bootstrap_distribution=reps[:, 1])
    protocol = "2afc" if d.dist is not None else f"{d.classes.size}-way ({kway_rate})"
    return BrainScoreResult(
        observer="model", statistic=score, confidence_interval=ConfidenceInterval(float(s_lo), float(s_hi)), raw=raw,
        raw_interval=ConfidenceInterval(float(r_lo), float(r_hi)), ceiling=ceil, metric=name, protocol=protocol,
        confidence_level=level, n_resamples=b, n_undefined=int((~ok).sum()), bootstrap_distribution=reps[:, 2],
        raw_distribution=reps[:, 0], split_values=per_split,
        notes=(f"score = mean over splits of raw / √ceiling{'' if compat else ', clipped to [0, 1]'}; intervals: "
               f"bias-corrected jackknife-t over images within objects (each with its trials; the SE with the "
               f"variance of the bias correction, a second-level jackknife over groups of images); the bootstrap "
               f"distributions resample images within objects",))


_PARAMS = """
    Parameters
    ----------
    model_probabilities : pandas.DataFrame
        The model's class probabilities: indexed by image, one column per class (every
        class of ``human_trials`` among them). Rows for images without human trials are
        ignored.
    human_trials : pandas.DataFrame
        One row per trial: ``image``, ``truth``, ``response`` (``subject`` is carried but
        not used) and, for 2AFC data, ``distractor``. Without ``distractor`` every trial is
        a K-way forced choice among the model's columns.
    n_splits : int, default 20
        Random half splits of the human trials (the default by measurement: the split-to-
        split SD of the mean over 20 splits is < 5 % of the CI width; docs/brainscore.md).
    brainscore_compatible : bool, default False
        Brain-Score's exact number: its 2 splits (``RandomState(0)``), the score not
        clipped. Needs the defaults of ``ceiling_method`` and ``rate_correction``.
    ceiling_method : {"split-half", "spearman-brown"}
        ``"split-half"`` (Brain-Score): raw = r(model, half 1), ceiling = r(half 1,
        half 2), score = mean over splits of ``raw / √ceiling``. ``"spearman-brown"``:
        raw = r(model, all trials), ceiling = ``2r̄ / (1 + r̄)`` with ``r̄`` the mean
        split-half r, score = ``raw / √ceiling``.
    rate_correction : {"none", "loglinear"}
        ``"none"`` (Brain-Score): rates of 0 or 1 give d′ = ±∞, clipped to ±5.
        ``"loglinear"`` (Hautus 1995): the humans' rates are ``(k + 0.5) / (n + 1)``.
    kway_rate : {"share", "pairwise"}
        For K-way data only: the rate of alternative ``d`` on image ``i`` is the share of
        trials that chose ``d`` (``"share"``; for the model ``P(d)``), or the share among the
        trials that chose ``d`` or the truth (``"pairwise"``; for the model ``P(d) / (P(d) +
        P(t))``, Brain-Score's 2AFC formula). docs/brainscore.md explains both.
    n_resamples : int, default 1000
        Bootstrap replicates B (the bootstrap distributions; the intervals come from the
        jackknife over images).
    confidence_level : float, default 0.95
    rng : None, int or numpy.random.Generator
"""

_RETURNS = """
    Returns
    -------
    BrainScoreResult
        ``statistic`` (= ``score``), ``raw`` and ``ceiling`` (a :class:`CeilingResult`),
        each with a bias-corrected jackknife-t interval over images within their object
        (each image with its own trials, the same half splits): ``θ̂ − b ± t·SE`` with the
        stratified jackknife bias ``b`` and SE (above 400 images, images are dealt to
        groups within their object: the delete-a-group jackknife with at most 400
        groups); ``SE²`` adds the variance the bias correction itself adds, from a
        second-level jackknife over 10 groups of images (55 more evaluations). The
        intervals cover the value over the
        population of images at the data's number of trials per image; the point values
        are Brain-Score's estimator and sit below that value with 10 images per object (by
        about one SE for raw and ceiling at 24 objects), so an interval can lie mostly
        above its point value (docs/brainscore.md, "Coverage"). The bootstrap
        distributions (images within objects, each with its trials, fresh half splits per
        replicate) are kept for rank intervals. ``protocol`` is ``"2afc"`` or ``"K-way
        (share|pairwise)"``.
"""

_REFS = """
    References
    ----------
    Rajalingham, R., Issa, E. B., Bashivan, P., Kar, K., Schmidt, K. & DiCarlo, J. J. (2018).
    Large-scale, high-resolution comparison of the core visual object recognition behavior
    of humans, monkeys, and state-of-the-art deep artificial neural networks. *Journal of
    Neuroscience* 38, 7255–7269. Schrimpf, M., Kubilius, J., et al. (2018). Brain-Score.
    bioRxiv 407007; implementation: brain-score/vision ``brainscore_vision/metrics/i1i2/metric.py``
    and ``benchmarks/rajalingham2018/benchmarks/benchmark.py`` (commit c642dbe).
    Hautus, M. J. (1995). Corrections for extreme proportions and their biasing effects on
    estimated values of d′. *Behavior Research Methods* 27, 46–51.
    Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 10–11
    (jackknife bias and SE). Wolter, K. M. (2007). *Introduction to Variance Estimation*,
    2nd ed., ch. 4 (the jackknife in stratified designs). Kott, P. S. (2001). The
    delete-a-group jackknife. *Journal of Official Statistics* 17, 521–526.
"""


@records_seed
def i2n(model_probabilities: Any, human_trials: Any, *, n_splits: int = 20, brainscore_compatible: bool = False,
        ceiling_method: CeilingMethod = "split-half", rate_correction: RateCorrection = "none",
        kway_rate: KwayRate = "share", n_resamples: int = 1000, confidence_level: float = 0.95,
        rng: Any = None) -> BrainScoreResult:
    return _behavior(model_probabilities, human_trials, collapse=False, n_splits=n_splits,
                     brainscore_compatible=brainscore_compatible, ceiling_method=ceiling_method,
                     rate_correction=rate_correction, kway_rate=kway_rate, n_resamples=n_resamples,
                     confidence_level=confidence_level, rng=rng)


@records_seed
def i1n(model_probabilities: Any, human_trials: Any, *, n_splits: int = 20, brainscore_compatible: bool = False,
        ceiling_method: CeilingMethod = "split-half", rate_correction: RateCorrection = "none",
        kway_rate: KwayRate = "share", n_resamples: int = 1000, confidence_level: float = 0.95,
        rng: Any = None) -> BrainScoreResult:
    return _behavior(model_probabilities, human_trials, collapse=True, n_splits=n_splits,
                     brainscore_compatible=brainscore_compatible, ceiling_method=ceiling_method,
                     rate_correction=rate_correction, kway_rate=kway_rate, n_resamples=n_resamples,
                     confidence_level=confidence_level, rng=rng)


i2n.__doc__ = ("""Brain-Score's I2n (Rajalingham et al. 2018): image-by-distractor d′ of a model vs humans, with CIs.

    Steps (module docstring, Brain-Score's ``_I`` with ``collapse_distractors=False``): the
    response matrices of model and humans, d′ per (image, distractor) clipped to [−5, 5],
    minus the mean of each (object, distractor) group, Pearson r over the cells the humans
    define, divided by the square root of the humans' split-half ceiling.
""" + _PARAMS + _RETURNS + """
    Notes
    -----
    With ``brainscore_compatible=True`` the number equals Brain-Score's ``I2n()(source,
    target)`` ceiled by its Rajalingham2018 benchmark's ``ceil_score`` (tested against a
    re-implementation of that code). Differences where Brain-Score raises: images or
    classes missing from a half, or a model NaN on a cell the humans define, fail its
    ``assert``; here such cells are left out of r.
""" + _REFS + """
    Examples
    --------
    >>> import trialwise as tw
    >>> probs, trials = tw.brainscore.synthetic_2afc(similarity=0.8, rng=1)
    >>> res = tw.brainscore.i2n(probs, trials, n_resamples=200, rng=0)
    >>> round(res.raw, 3), round(res.ceiling.statistic, 3), round(res.score, 3)
    (0.503, 0.43, 0.767)
    >>> [round(x, 3) for x in (*res.confidence_interval, *res.ceiling.confidence_interval)]
    [0.667, 0.86, 0.364, 0.554]
    >>> bs = tw.brainscore.i2n(probs, trials, brainscore_compatible=True, n_resamples=50, rng=0)
    >>> round(bs.score, 3)
    0.753
""")

i1n.__doc__ = ("""Brain-Score's I1n: per-image d′ of a model vs humans (I2n's d′ averaged over distractors), with CIs.

    As :func:`i2n` with Brain-Score's ``collapse_distractors=True``: the normalised d′ of each
    (image, distractor) cell is averaged over the distractors (NaN-mean) before the
    correlation. This is Brain-Score's I1n (its code notes that only I2n was verified
    against Rajalingham et al.; their I1 takes Φ⁻¹ of the image's mean hit rate instead).
""" + _PARAMS + _RETURNS + _REFS + """
    Examples
    --------
    >>> import trialwise as tw
    >>> probs, trials = tw.brainscore.synthetic_2afc(similarity=0.8, rng=1)
    >>> res = tw.brainscore.i1n(probs, trials, n_resamples=200, rng=0)
    >>> round(res.raw, 3), round(res.ceiling.statistic, 3), round(res.score, 3)
    (0.705, 0.798, 0.79)
""")
