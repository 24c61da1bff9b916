"""Brain-Score with confidence intervals (SPEC §6.3; seed 000 §4.2 and App. I; seed 004).

Brain-Score reports behavioural alignment relative to a *ceiling*, how well humans agree
with each other: ``score = clip(raw / ceiling, 0, 1)``. This module provides

* the ceiling transform and its inverse (:func:`ceil_score`, :func:`unceil_score`) and
  the human–human ceilings of a benchmark's experiments (:func:`ceilings`);
* confidence intervals for *published* scores, for which no model trials exist
  (:func:`synthetic_trials`, :func:`published_intervals`; seed 000 App. I);
* a behavioural benchmark that scores a model's responses with CIs for the score, the
  raw value and the ceiling, resampled jointly (:class:`BehavioralBenchmark`);
* an adapter for Brain-Score-style xarray assemblies (:func:`trials_from_assembly`,
  :class:`ErrorConsistency`, a metric with Brain-Score's call signature).

xarray is optional (``pip install trialwise[xarray]``); only the adapter needs it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise import _validation as v
from trialwise._results import BrainScoreResult, CeilingResult, ConfidenceInterval
from trialwise._warnings import DegenerateDataWarning, TrialwiseWarning, warn
from trialwise.benchmark.hierarchy import (
    Design,
    aggregate,
    bootstrap_entries,
    build_design,
    group_mean,
    reference_mask,
    row_scores,
)
from trialwise.benchmark.protocol import Protocol, get_protocol
from trialwise.intervals import interval
from trialwise.kappa import cell_probabilities, feasible_accuracy
from trialwise.resampling import bootstrap_sums

__all__ = [
    "BENCHMARK_METRICS",
    "BehavioralBenchmark",
    "ErrorConsistency",
    "ceil_score",
    "ceilings",
    "published_intervals",
    "synthetic_trials",
    "trials_from_assembly",
    "unceil_score",
]

#: Metrics of a :class:`BehavioralBenchmark` (seed 004, "Common Behavioral Metrics").
BENCHMARK_METRICS = ("error-consistency", "accuracy-distance", "accuracy")
#: How a synthetic model's accuracy is chosen inside the feasible range (seed 000 App. I).
MODEL_ACCURACY = ("middle", "lower")


# --------------------------------------------------------------------------- ceiling transform


def _finite(value: Any, name: str) -> NDArray:
    arr = v._as_float_array(value, name)
    if np.isnan(arr).any():
        raise ValueError(f"`{name}` contains NaN at position {int(np.flatnonzero(np.isnan(arr).ravel())[0])}")
    if np.isinf(arr).any():
        raise ValueError(f"`{name}` must be finite; got {arr[np.isinf(arr)].ravel()[0]:g}")
    return arr


def _check_ceiling(ceiling: Any) -> NDArray:
    c = _finite(ceiling, "ceiling")
    if (c <= 0).any():
        raise ValueError(f"`ceiling` must be positive (the human–human agreement); got {c[c <= 0].ravel()[0]:g}")
    return c


def ceil_score(raw: ArrayLike, ceiling: ArrayLike) -> NDArray:
    """Brain-Score's ceiling transform ``clip(raw / ceiling, 0, 1)`` (broadcast).

    Raises
    ------
    TypeError
        ``raw`` or ``ceiling`` is not numeric.
    ValueError
        NaN or ±inf in ``raw`` or ``ceiling`` (an undefined raw value has no ceiled
        score; leave it out, or report it as undefined), a ceiling ≤ 0, or shapes that
        do not broadcast.

    Examples
    --------
    >>> ceil_score([0.05, 0.2, 0.5, -0.1], 0.4).tolist()
    [0.125, 0.5, 1.0, 0.0]
    """
    r = _finite(raw, "raw")
    c = _check_ceiling(ceiling)
    r, c = v.check_broadcast(r, c, names=("raw", "ceiling"))
    return np.clip(r / c, 0.0, 1.0)[()]


def unceil_score(score: ArrayLike, ceiling: ArrayLike) -> NDArray:
    """Un-ceil a published score: the raw value ``score × ceiling`` (broadcast).

    Exact for scores strictly between 0 and 1. A score of 0 or 1 was clipped: the raw
    value is only known to be at most 0 (or at least the ceiling); the bound is returned
    and a :class:`~trialwise.DegenerateDataWarning` says how many.

    Brain-Score's error-consistency benchmarks take the absolute value of the mean κ
    before ceiling it, so a raw value recovered from their scores is ``|κ|``.

    Raises
    ------
    TypeError
        ``score`` or ``ceiling`` is not numeric.
    ValueError
        A score outside [0, 1] or NaN, a ceiling that is not a positive finite number,
        or shapes that do not broadcast.

    Examples
    --------
    >>> unceil_score(ceil_score(0.2, 0.4), 0.4).item()
    0.2
    """
    s = _finite(score, "score")
    if ((s < 0) | (s > 1)).any():
        raise ValueError(f"`score` must lie in [0, 1] (a ceiled score); got {s[(s < 0) | (s > 1)].ravel()[0]:g}")
    c = _check_ceiling(ceiling)
    s, c = v.check_broadcast(s, c, names=("score", "ceiling"))
    clipped = int(np.sum((s == 0) | (s == 1)))
    if clipped:
        warn(f"{clipped} score(s) at 0 or 1 were clipped by the ceiling transform: the raw value returned is a "
             f"bound (≤ 0, or ≥ the ceiling), not the value", DegenerateDataWarning)
    return (s * c)[()]


# --------------------------------------------------------------------------- helpers


def _trials(trials: Any):
    from trialwise.benchmark.leaderboard import _as_trials

    return _as_trials(trials)


def _two_references(t: Any, what: str) -> None:
    """A ``ValueError`` unless every experiment has at least two reference observers."""
    per = t.groupby("experiment")["subject"].nunique()
    if not len(per) or (per >= 2).all():
        return
    if t["subject"].nunique() < 2:
        names = sorted(t["subject"].unique())
        raise ValueError(f"{what}: at least two reference observers are needed (a ceiling is the agreement between "
                         f"two distinct reference observers); the trials have {len(names)}: {names}")
    lone = per[per < 2]
    raise ValueError(f"{what}: at least two reference observers are needed in every experiment (a ceiling is the "
                     f"agreement between two distinct reference observers); experiment {lone.index[0]!r} has "
                     f"{int(lone.iloc[0])}" + (f" (and {len(lone) - 1} other experiment(s) too)" if len(lone) > 1 else ""))


def _percentile(dist: NDArray, estimate: NDArray, level: float) -> tuple[NDArray, NDArray]:
    lo, hi = interval("percentile", dist, estimate, level, bounds=(-np.inf, np.inf))
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def ceilings(trials: Any, protocol: str | Protocol = "model-vs-human", *, reference: Any = None):
    """Human–human agreement per experiment: the ceilings of Brain-Score's Geirhos2021 benchmarks.

    For every experiment, the protocol's metric between every two distinct reference
    observers, averaged over the pairs in each condition and then over conditions (as
    ``brainscore_vision.metrics.error_consistency.ErrorConsistency.ceiling``; the two
    orders agree when every human saw every condition).

    Returns
    -------
    pandas.Series
        Indexed by experiment.

    Raises
    ------
    ValueError
        Fewer than two reference observers in the trials, or in one of its experiments:
        a ceiling is the agreement between two distinct reference observers.

    Examples
    --------
    >>> import trialwise as tw
    >>> c = tw.brainscore.ceilings(tw.datasets.model_vs_human("cue-conflict"))
    >>> round(float(c["cue-conflict"]), 3)
    0.331
    """
    import pandas as pd

    proto = get_protocol(protocol)
    t = _trials(trials)
    t = t[reference_mask(t, proto, reference)]
    _two_references(t if proto.experiments is None else t[t["experiment"].isin(proto.experiments)], "ceilings")
    design = build_design(t, proto, reference, require_candidates=False)
    vals, key = aggregate(design.values(), design, keep=("experiment",))
    return pd.Series(vals, index=pd.Index([design.experiments[e] for e in key["experiment"]], name="experiment"),
                     name="ceiling")


# --------------------------------------------------------------------------- App. I: synthetic trials


def _kappa_table(kappa: Any):
    import pandas as pd

    if isinstance(kappa, pd.DataFrame):
        frame = kappa
    elif isinstance(kappa, dict):
        frame = pd.DataFrame([{"model": m, "experiment": e, "kappa": k}
                              for m, per in kappa.items() for e, k in dict(per).items()])
    else:
        raise TypeError(f"`kappa` must be a DataFrame (columns model, experiment, kappa[, condition]) or a dict "
                        f"{{model: {{experiment: kappa}}}}; got {type(kappa).__name__}")
    need = ["model", "experiment", "kappa"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(f"`kappa` lacks column(s) {missing}; columns found: {list(frame.columns)}")
    if len(frame) == 0:
        raise ValueError("`kappa` is empty")
    out = frame[need + (["condition"] if "condition" in frame.columns else [])].copy()
    for c in ("model", "experiment") + (("condition",) if "condition" in out.columns else ()):
        out[c] = out[c].astype(str)
    k = pd.to_numeric(out["kappa"], errors="coerce").to_numpy(float)
    if np.isnan(k).any() or (np.abs(k) > 1).any():
        bad = out["kappa"].iloc[int(np.flatnonzero(np.isnan(k) | (np.abs(k) > 1))[0])]
        bad = bad.item() if isinstance(bad, np.generic) else bad  # 'nan', not 'np.float64(nan)'
        raise ValueError(f"`kappa` values must be numbers in [-1, 1]; got {v._show(bad)}")
    out["kappa"] = k
    keys = ["model", "experiment"] + (["condition"] if "condition" in out.columns else [])
    if out.duplicated(keys).any():
        raise ValueError(f"`kappa` has more than one value for some {'/'.join(keys)}")
    return out


def _model_accuracy(kappa: float, acc: NDArray, how: str) -> tuple[NDArray, NDArray, bool]:
    """Per human: the κ used (clipped where unattainable) and the model's accuracy; fallback flag.

    The model's accuracy is one value for the condition when one exists that attains κ
    with every (non-perfect) human: the middle (or lower end) of the intersection of the
    humans' feasible ranges. Otherwise it is chosen per human.
    """
    inner = (acc > 0) & (acc < 1)
    k = np.full(acc.shape, float(kappa))
    a_m = np.full(acc.shape, 0.5)
    if not inner.any():
        return k, a_m, False
    a = acc[inner]
    lo, hi = feasible_accuracy(a, kappa)
    if np.isnan(lo).any():  # κ < 0 below what this human allows at any model accuracy: use the least κ possible
        k_min = -2 * a * (1 - a) / (a**2 + (1 - a) ** 2)
        k_in = np.where(np.isnan(lo), k_min, kappa)
        lo, hi = feasible_accuracy(a, k_in)
        k[inner] = k_in
    lo_c, hi_c = float(np.max(lo)), float(np.min(hi))
    fallback = lo_c > hi_c
    if fallback:
        per = lo if how == "lower" else (lo + hi) / 2
        a_m[inner] = per
        a_m[~inner] = float(np.mean(per))
    else:
        a_m[:] = lo_c if how == "lower" else (lo_c + hi_c) / 2
    return k, a_m, fallback


def synthetic_trials(
    kappa: Any,
    humans: Any,
    *,
    protocol: str | Protocol = "model-vs-human",
    model_accuracy: str = "middle",
    reference: Any = None,
    rng: Any = None,
):
    """Trials of models that have a given error consistency with each human (seed 000, App. I).

    For every model, every condition of the protocol and every human who saw it, the
    model gets its own independent sequence of trials, drawn against that human's real
    trials with the copy model: given the human's correctness on a trial, the model is
    correct with probability ``P11/a_h`` (human right) or ``P01/(1 − a_h)`` (human
    wrong), the cells of :func:`trialwise.cell_probabilities` for ``(κ, a_h, a_m)``.
    So κ̂ of each pair scatters around κ exactly as a real model's would, with the
    human's real accuracy ``a_h``.

    Parameters
    ----------
    kappa : DataFrame or dict
        Columns ``model``, ``experiment``, ``kappa`` and optionally ``condition`` (else
        the value holds for every condition of the experiment, as published Brain-Score
        scores do), or ``{model: {experiment: kappa}}``. Un-ceil published scores first
        (:func:`unceil_score`).
    humans : DataFrame or path
        Real trials (:func:`trialwise.read_trials` columns); the reference observers are
        those of ``protocol.reference`` (or ``reference``), the rest are ignored.
    protocol : Protocol or str
        Which experiments and conditions to generate.
    model_accuracy : {"middle", "lower"}
        The model's accuracy in a condition, unknown for published scores, chosen inside
        the range where κ is attainable with the humans (:func:`trialwise.feasible_accuracy`;
        the intersection over the condition's humans): its middle (App. I's default) or
        its lower end, which gives the narrowest intervals (App. I, "optimistic").
        Where no single accuracy suits every human it is chosen per human (warned).
        A κ < 0 that a human's accuracy cannot attain is replaced by the least
        attainable κ (warned).
    rng : seed or Generator

    Returns
    -------
    pandas.DataFrame
        Trials (:data:`trialwise.data.TRIAL_COLUMNS`) of the humans and the synthetic
        models. Each human's images are relabelled ``image#human`` so that every model
        sequence is paired with exactly one human: pairs of humans then share no image,
        and the human–human row of a leaderboard on these trials is empty (the ceiling
        is :func:`ceilings` of the real trials).

    Examples
    --------
    >>> import trialwise as tw
    >>> humans = tw.datasets.model_vs_human("cue-conflict")
    >>> syn = tw.brainscore.synthetic_trials({"net": {"cue-conflict": 0.2}}, humans,
    ...                                      protocol=tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]), rng=0)
    >>> sorted(syn.observer_type.unique()), int((syn.subject == "net").sum())
    (['human', 'model'], 12800)
    """
    import pandas as pd

    from trialwise.data import TRIAL_COLUMNS

    proto = get_protocol(protocol)
    how = v.check_choice(model_accuracy, "model_accuracy", MODEL_ACCURACY)
    table = _kappa_table(kappa)
    gen = v.check_rng(rng)
    t = _trials(humans)
    h = t[reference_mask(t, proto, reference)]
    design = build_design(h, proto, reference, require_candidates=False)
    per_condition = "condition" in table.columns
    exps = set(design.experiments)
    unknown = sorted(set(table["experiment"]) - exps)
    if unknown:
        raise ValueError(f"`kappa` names experiment(s) {unknown} that the protocol's human trials do not have; "
                         f"experiments: {sorted(exps)}")
    lookup = table.set_index(["model", "experiment"] + (["condition"] if per_condition else []))["kappa"]
    models = sorted(table["model"].unique())
    clash = sorted(set(models) & set(h["subject"]))
    if clash:
        raise ValueError(f"`kappa` names model(s) {clash} that are also human observers")
    parts = []
    n_fallback = n_clipped = 0
    for unit in design.units:
        base = h[(h["experiment"] == unit.experiment) & (h["condition"] == unit.condition)][list(TRIAL_COLUMNS)]
        base = base.assign(image=base["image"] + "#" + base["subject"])
        parts.append(base)
        subj_codes, subjects = pd.factorize(base["subject"])
        acc = base.groupby(subj_codes)["correct"].mean().to_numpy(float)
        human_right = base["correct"].to_numpy(bool)
        for m in models:
            key = (m, unit.experiment, unit.condition) if per_condition else (m, unit.experiment)
            if key not in lookup.index:
                raise ValueError(f"`kappa` has no value for model {m!r} in experiment {unit.experiment!r}"
                                 + (f", condition {unit.condition!r}" if per_condition else ""))
            k_h, a_m, fallback = _model_accuracy(float(lookup[key]), acc, how)
            n_fallback += fallback
            n_clipped += int(np.sum(k_h != float(lookup[key])))
            a_h = np.clip(acc, 1e-12, 1 - 1e-12)
            cells = cell_probabilities(np.where((acc > 0) & (acc < 1), k_h, 0.0), a_h, a_m)
            p_right = np.where(human_right, cells[subj_codes, 0, 0] / a_h[subj_codes],
                               cells[subj_codes, 1, 0] / (1 - a_h[subj_codes]))
            model = base.assign(subject=m, observer_type="model", response="")
            model["correct"] = gen.random(len(model)) < np.clip(p_right, 0.0, 1.0)
            parts.append(model)
    if n_fallback:
        warn(f"in {n_fallback} model×condition case(s) no single model accuracy attains κ with every human; "
             f"the accuracy was chosen per human", TrialwiseWarning)
    if n_clipped:
        warn(f"{n_clipped} model×human pair(s) have a negative κ that the human's accuracy cannot attain; the "
             f"least attainable κ was used", TrialwiseWarning)
    return pd.concat(parts, ignore_index=True)


def published_intervals(
    scores: Any,
    humans: Any,
    *,
    ceiled: bool = True,
    ceiling: Any = None,
    protocol: str | Protocol = "model-vs-human",
    model_accuracy: str = "middle",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: Any = None,
    workers: int | None = None,
):
    """CIs and rank intervals for published Brain-Score error consistencies (seed 000 §4.2, App. I).

    Parameters
    ----------
    scores : DataFrame or dict
        Published values: columns ``model``, ``experiment`` and ``score`` (or ``kappa``
        when ``ceiled=False``), optionally ``condition``; or ``{model: {experiment: value}}``.
    humans : DataFrame or path
        The human trials of the benchmark (e.g. :func:`trialwise.datasets.model_vs_human`).
    ceiled : bool
        The values are ceiled scores (default; un-ceiled with :func:`unceil_score`) or raw κ.
    ceiling : mapping or Series, optional
        Ceiling per experiment (default: :func:`ceilings` of ``humans``).
    protocol, model_accuracy
        As in :func:`synthetic_trials`.
    n_resamples, confidence_level, rng, workers
        As in :func:`trialwise.leaderboard`.

    Returns
    -------
    Leaderboard
        On the synthetic trials: raw κ scores with CIs, rank intervals, p_best,
        Kendall's τ and :meth:`~trialwise.Leaderboard.by_experiment`. The human–human row
        is empty (see :func:`synthetic_trials`).

    Examples
    --------
    >>> import trialwise as tw
    >>> humans = tw.datasets.model_vs_human("cue-conflict")
    >>> lb = tw.brainscore.published_intervals({"a": {"cue-conflict": 0.6}, "b": {"cue-conflict": 0.3}}, humans,
    ...                                        protocol=tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                                        n_resamples=500, rng=0)
    >>> list(lb.table.observer[1:])
    ['a', 'b']
    """
    import pandas as pd

    from trialwise.benchmark.leaderboard import DEFAULT_CI_METHOD, Leaderboard, _as_trials

    proto = get_protocol(protocol)
    workers = v.check_workers(workers)
    n_resamples = v.check_positive_int(n_resamples, "n_resamples")
    confidence_level = v.check_confidence_level(confidence_level)
    column = "score" if ceiled else "kappa"
    if isinstance(scores, dict):
        scores = pd.DataFrame([{"model": m, "experiment": e, column: x}
                               for m, per in scores.items() for e, x in dict(per).items()])
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"`scores` must be a DataFrame or a dict {{model: {{experiment: value}}}}; "
                        f"got {type(scores).__name__}")
    if column not in scores.columns:
        raise ValueError(f"`scores` lacks column {column!r} (ceiled={ceiled}); columns found: {list(scores.columns)}")
    table = scores.copy()
    if ceiled:
        if ceiling is None:
            c = ceilings(humans, proto)
        else:
            c = ceiling if isinstance(ceiling, pd.Series) else pd.Series(dict(ceiling))
        missing = sorted(set(table["experiment"].astype(str)) - set(c.index))
        if missing:
            raise ValueError(f"no ceiling for experiment(s) {missing}")
        s = pd.to_numeric(table["score"], errors="coerce").to_numpy(float)
        text = np.isnan(s) & table["score"].notna().to_numpy()
        if text.any():
            row = table.iloc[int(np.flatnonzero(text)[0])]
            raise TypeError(f"`scores`: the score of model {row['model']!r} in experiment {row['experiment']!r} is "
                            f"not a number: {v._show(row['score'])}")
        table["kappa"] = unceil_score(s, c.loc[table["experiment"].astype(str)].to_numpy(float))
    boot_gen, syn_gen = v.check_rng(rng).spawn(2)
    syn = synthetic_trials(table, humans, protocol=proto, model_accuracy=model_accuracy, rng=syn_gen)
    # The synthetic trials hold only the protocol's conditions: the leaderboard keeps them all. Each
    # human sees only its own relabelled images, by construction: no warning about missing images.
    design = build_design(_as_trials(syn), proto.replace(exclude={}, conditions=None), partial_by_design=True)
    lb = Leaderboard(design, n_resamples, confidence_level, DEFAULT_CI_METHOD, boot_gen, workers, None)
    by_construction = ("lack some of the condition's images", "share no image")
    lb.notes[:] = [n for n in lb.notes if not any(phrase in n for phrase in by_construction)]
    lb.notes.append(f"synthetic model trials (seed 000 App. I; model accuracy: {model_accuracy} of the feasible "
                    f"range), one independent sequence per human; the human–human row is empty by construction")
    return lb


# --------------------------------------------------------------------------- behavioural benchmark


def _over_units(values: NDArray, design: Design) -> NDArray:
    """Per-unit values (…, n_units) → the protocol's score: mean over conditions (of each experiment, then
    over experiments, when the protocol has an experiment level)."""
    if "experiment" in design.protocol.aggregation:
        exp = np.array([design.experiments.index(u.experiment) for u in design.units])
        values = group_mean(values, np.eye(len(design.experiments))[exp])
    return group_mean(values, np.ones((values.shape[-1], 1)))[..., 0]


def _accuracy_distance(source: NDArray, target: NDArray) -> NDArray:
    """Brain-Score's accuracy distance ``1 − |s − t| / max(t, 1 − t)`` (seed 004)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - np.abs(source - target) / np.maximum(target, 1.0 - target)


class BehavioralBenchmark:
    """A behavioural benchmark in the spirit of Brain-Score (seed 004), with confidence intervals.

    Human trials + a protocol + a metric. Scoring a model gives ``score = clip(raw /
    ceiling, 0, 1)`` and keeps ``raw`` and ``ceiling``; all three get bootstrap CIs from
    one joint resampling of the items (within each condition, the same replicate for the
    humans and the model), so the score's interval carries the ceiling's uncertainty.

    Parameters
    ----------
    humans : DataFrame or path
        Trials of the reference observers (others in the table are ignored).
    protocol : Protocol or str
        Conditions and averaging (default ``"model-vs-human"``); its ``metric`` is ignored.
    metric : {"error-consistency", "accuracy-distance", "accuracy"}
        * ``error-consistency``: κ between the model and each human per condition,
          averaged as the protocol says. Ceiling: the same between every two distinct
          humans, which is what the split-half ceiling of cross-half pairs averages to
          over all splits of the subjects (each pair is split equally often).
        * ``accuracy-distance``: per condition ``1 − |s − t| / max(t, 1 − t)`` with the
          model's accuracy ``s`` and the pooled human accuracy ``t`` (seed 004), averaged
          over conditions and experiments. Ceiling: split-half over subjects, the same
          distance between the pooled accuracies of two random halves of the humans who
          saw the condition (one random order of the subjects per split, so a split
          divides them the same way in every condition), averaged over ``n_splits`` splits.
        * ``accuracy``: the model's accuracy (ceiling fixed at 1, as Brain-Score's
          Geirhos2021 accuracy benchmarks).
    n_resamples : int
        Bootstrap replicates B.
    n_splits : int
        Random half splits of the subjects for the split-half ceiling.
    confidence_level : float
    rng : seed or Generator
        Fixes the splits and the bootstrap: every model is scored on the same replicates.

    Attributes
    ----------
    ceiling : CeilingResult
        Value, CI and replicates.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> cue = tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
    >>> bench = tw.BehavioralBenchmark(trials, cue, n_resamples=500, rng=0)
    >>> round(bench.ceiling.statistic, 3)
    0.331
    >>> res = bench(trials[trials.subject == "resnet50"])
    >>> round(res.raw, 3), round(res.statistic, 3)
    (0.068, 0.205)
    """

    def __init__(
        self,
        humans: Any,
        protocol: str | Protocol = "model-vs-human",
        *,
        metric: str = "error-consistency",
        reference: Any = None,
        n_resamples: int = 2000,
        n_splits: int = 100,
        confidence_level: float = 0.95,
        rng: Any = None,
    ) -> None:
        self.metric = v.check_choice(metric, "metric", BENCHMARK_METRICS)
        proto = get_protocol(protocol)
        self.protocol = proto.replace(metric="error-consistency")
        self.n_resamples = v.check_positive_int(n_resamples, "n_resamples")
        self.n_splits = v.check_positive_int(n_splits, "n_splits")
        self.confidence_level = v.check_confidence_level(confidence_level)
        t = _trials(humans)
        self._humans = t[reference_mask(t, self.protocol, reference)].assign(observer_type="human")
        self._proto_run = self.protocol.replace(reference="human")
        if self.metric == "accuracy-distance" and self._humans["subject"].nunique() < 2:
            raise ValueError("the split-half ceiling of accuracy-distance needs at least two humans")
        if self.metric == "error-consistency":
            scope = self.protocol.experiments
            _two_references(self._humans if scope is None else self._humans[self._humans["experiment"].isin(scope)],
                            "BehavioralBenchmark(metric='error-consistency')")
        design = build_design(self._humans, self._proto_run, require_candidates=False)
        images = self._humans.groupby(["experiment", "condition"])["image"].agg(frozenset)
        self._units = [(u.experiment, u.condition, images[(u.experiment, u.condition)]) for u in design.units]
        self.humans: tuple[str, ...] = design.references
        gen = v.check_rng(rng)
        self._entropy = int(gen.integers(2**63))
        # Split s orders the humans at random; in every condition the first half of its humans in that
        # order form one half (so both halves are filled wherever two humans saw the condition).
        self._order = np.stack([gen.permutation(len(self.humans)) for _ in range(self.n_splits)], axis=1)
        self._human_design = design

    @functools.cached_property
    def ceiling(self) -> CeilingResult:
        """The ceiling with its CI (computed on first use; scoring a model recomputes it jointly)."""
        obs, reps = self._run(self._human_design, ())
        return self._ceiling_result(obs[1], reps[1])

    def __repr__(self) -> str:
        return (f"BehavioralBenchmark(metric={self.metric!r}, protocol={self.protocol.name!r}, "
                f"{len(self.humans)} humans, {len(self._units)} conditions, ceiling={self.ceiling.statistic:.3f})")

    # ------------------------------------------------------------------ engine

    def _run(self, design: Design, candidates: tuple[str, ...]) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
        """Observed and replicate (raw per candidate, ceiling), sharing each unit's item weights."""
        b = self.n_resamples
        k = len(candidates)
        if self.metric == "error-consistency":
            rows = row_scores(design.values(), design)
            rep = row_scores(bootstrap_entries(design, b, rng=self._entropy), design)
            return (rows[:k], rows[k]), (rep[:, :k], rep[:, k])
        gens = np.random.default_rng(self._entropy).spawn(len(design.units))
        h_col = {name: i for i, name in enumerate(self.humans)}
        n_u = len(design.units)
        raw_o, raw_r = np.full((k, n_u), np.nan), np.full((b, k, n_u), np.nan)
        ceil_o, ceil_r = np.full((self.n_splits, n_u), np.nan), np.full((b, self.n_splits, n_u), np.nan)
        for u, unit in enumerate(design.units):
            n_obs = len(unit.observers)
            cols = np.concatenate([unit.right, unit.seen], axis=1)
            reps = bootstrap_sums(cols, b, rng=gens[u])
            both = np.concatenate([cols.sum(axis=0, dtype=np.int64)[None].astype(float), reps])  # row 0: observed
            right, seen = both[:, :n_obs], both[:, n_obs:]
            hum = [j for j, o in enumerate(unit.observers) if o in h_col]
            cand = [unit.observers.index(c) for c in candidates]
            with np.errstate(invalid="ignore", divide="ignore"):
                acc_c = right[:, cand] / seen[:, cand]
                if self.metric == "accuracy":
                    raw = acc_c
                else:
                    t = right[:, hum].sum(axis=1, keepdims=True) / seen[:, hum].sum(axis=1, keepdims=True)
                    raw = _accuracy_distance(acc_c, t)
                    order = self._order[[h_col[unit.observers[j]] for j in hum]]  # (n_hum, splits)
                    half = (order.argsort(axis=0).argsort(axis=0) < len(hum) // 2).astype(float)
                    r1, s1 = right[:, hum] @ half, seen[:, hum] @ half
                    r2, s2 = right[:, hum] @ (1 - half), seen[:, hum] @ (1 - half)
                    split = _accuracy_distance(r1 / s1, r2 / s2)  # NaN where a half has no human here
                    ceil_o[:, u], ceil_r[:, :, u] = split[0], split[1:]
            raw_o[:, u], raw_r[:, :, u] = raw[0], raw[1:]
        raw_obs, raw_rep = _over_units(raw_o, design), _over_units(raw_r, design)
        if self.metric == "accuracy":
            return (raw_obs, np.float64(1.0)), (raw_rep, np.ones(b))
        with np.errstate(invalid="ignore"):
            c_obs = np.nanmean(_over_units(ceil_o, design))
            c_rep = np.nanmean(_over_units(ceil_r, design), axis=1)
        return (raw_obs, c_obs), (raw_rep, c_rep)

    def _ceiling_result(self, obs: Any, rep: NDArray) -> CeilingResult:
        method = {"error-consistency": "all pairs of distinct humans (= split-half over all splits)",
                  "accuracy-distance": f"split-half over subjects ({self.n_splits} random splits)",
                  "accuracy": "fixed at 1"}[self.metric]
        lo, hi = _percentile(rep, np.asarray(obs), self.confidence_level)
        if float(obs) <= 0:
            warn(f"the ceiling is {float(obs):.3g} ≤ 0: the humans do not agree beyond chance, so ceiled scores "
                 f"are undefined (NaN)", DegenerateDataWarning)
        return CeilingResult(statistic=float(obs), confidence_interval=ConfidenceInterval(float(lo), float(hi)),
                             method=method, metric=self.metric, confidence_level=self.confidence_level,
                             n_resamples=self.n_resamples, bootstrap_distribution=np.asarray(rep, dtype=float))

    def _design(self, candidate_trials: Any) -> tuple[Design, tuple[str, ...], list[str]]:
        import pandas as pd

        if "presentation" in tuple(getattr(candidate_trials, "dims", ())):
            candidate_trials = trials_from_assembly(candidate_trials, stimuli=self._humans)
        c = _trials(candidate_trials)
        names = sorted(c["subject"].unique())
        clash = sorted(set(names) & set(self.humans))
        if clash:
            raise ValueError(f"candidate trials: observer(s) {clash} are humans of the benchmark")
        in_bench = c.set_index(["experiment", "condition"]).index.isin([(e, cond) for e, cond, _ in self._units])
        notes = []
        if not in_bench.all():
            notes.append(f"{int((~in_bench).sum())} candidate trial(s) outside the benchmark's conditions "
                         f"were not used")
        c = c[in_bench]
        for e, cond, images in self._units:
            got = c[(c["experiment"] == e) & (c["condition"] == cond)].groupby("subject")["image"].agg(frozenset)
            for name in names:
                have = got.get(name, frozenset())
                if have != images:
                    lack, extra = len(images - have), len(have - images)
                    raise ValueError(f"candidate trials: {name!r} must answer exactly the benchmark's "
                                     f"{len(images)} images of condition {cond!r} of experiment {e!r}; it lacks "
                                     f"{lack} and has {extra} other(s)")
        trials = pd.concat([self._humans, c.assign(observer_type="candidate")], ignore_index=True)
        design = build_design(trials, self._proto_run)
        return design, design.candidates, notes

    def score_table(self, candidate_trials: Any):
        """Score every candidate in the trials: one row per candidate (score, raw, ceiling, each with CI)."""
        import pandas as pd

        return pd.concat([r.to_frame() for r in self._score(candidate_trials)], ignore_index=True)

    def _score(self, candidate_trials: Any) -> list[BrainScoreResult]:
        design, cands, notes = self._design(candidate_trials)
        (raw_o, c_o), (raw_r, c_r) = self._run(design, cands)
        ceiling = self._ceiling_result(c_o, c_r)
        out = []
        for i, name in enumerate(cands):
            with np.errstate(invalid="ignore", divide="ignore"):
                score_o = float(np.clip(raw_o[i] / c_o, 0, 1)) if c_o > 0 else np.nan
                score_r = np.where(c_r > 0, np.clip(raw_r[:, i] / np.where(c_r > 0, c_r, 1), 0, 1), np.nan)
            lo, hi = _percentile(score_r, np.asarray(score_o), self.confidence_level)
            r_lo, r_hi = _percentile(raw_r[:, i], np.asarray(raw_o[i]), self.confidence_level)
            out.append(BrainScoreResult(
                observer=name, statistic=score_o, confidence_interval=ConfidenceInterval(float(lo), float(hi)),
                raw=float(raw_o[i]), raw_interval=ConfidenceInterval(float(r_lo), float(r_hi)), ceiling=ceiling,
                metric=self.metric, protocol=self.protocol.name, confidence_level=self.confidence_level,
                n_resamples=self.n_resamples, n_undefined=int(np.isnan(score_r).sum()),
                bootstrap_distribution=score_r, raw_distribution=raw_r[:, i].astype(float), notes=tuple(notes)))
        return out

    def __call__(self, candidate_trials: Any) -> BrainScoreResult:
        """Score one candidate's trials (its responses to the benchmark's images): a trials
        table or a model's assembly (:func:`trials_from_assembly`)."""
        results = self._score(candidate_trials)
        if len(results) != 1:
            raise ValueError(f"candidate trials hold {len(results)} observers; score one at a time or use "
                             f"score_table()")
        return results[0]

    score = __call__

    @classmethod
    def from_assembly(cls, assembly: Any, **kwargs: Any) -> BehavioralBenchmark:
        """A benchmark from a Brain-Score-style human assembly (see :func:`trials_from_assembly`).

        The protocol defaults to the assembly's conditions averaged flatly (one
        experiment; no exclusions).
        """
        trials = trials_from_assembly(assembly, observer_type="human")
        kwargs.setdefault("protocol", Protocol(name="assembly"))
        return cls(trials, **kwargs)


# --------------------------------------------------------------------------- xarray adapter


def _coord(assembly: Any, names: tuple[str, ...]) -> NDArray | None:
    for n in names:
        if n in assembly.coords:
            return np.asarray(assembly.coords[n].values)
    return None


def trials_from_assembly(
    assembly: Any,
    *,
    experiment: str | None = None,
    subject: str | None = None,
    observer_type: str | None = None,
    stimuli: Any = None,
):
    """A trials table from a Brain-Score ``BehavioralAssembly``-like xarray object.

    Duck-typed: a 1-D array of responses (labels) along a ``presentation`` dimension
    with coordinates ``stimulus_id`` (or ``image_id``), ``truth`` and, optionally,
    ``condition``, ``subject`` and ``experiment``.

    Parameters
    ----------
    experiment : str, optional
        Used when the assembly has no ``experiment`` coordinate (default ``"all"``).
    subject : str, optional
        Observer name when the assembly has no ``subject`` coordinate (a model's
        responses; default: the assembly's ``name``, else ``"model"``).
    observer_type : str, optional
        Default ``"human"`` when the assembly has a ``subject`` coordinate, else ``"model"``.
    stimuli : DataFrame, optional
        A trials table (e.g. the humans') giving each ``stimulus_id`` its condition and
        experiment when the assembly lacks those coordinates (a model's raw output);
        a stimulus it does not know is an error.

    Returns
    -------
    pandas.DataFrame
        As :func:`trialwise.read_trials`.
    """
    import pandas as pd

    from trialwise.data import read_trials

    dims = tuple(getattr(assembly, "dims", ()))
    if not hasattr(assembly, "coords") or "presentation" not in dims:
        raise TypeError(f"`assembly` must be an xarray object with a 'presentation' dimension; got "
                        f"{type(assembly).__name__} with dims {dims}")
    values = np.asarray(assembly.values)
    if values.ndim != 1:
        extra = [d for d in dims if d != "presentation"]
        raise ValueError(f"`assembly` must hold one response per presentation (1-D); it also has dimension(s) "
                         f"{extra} (select a single choice, e.g. the argmax label)")
    stim = _coord(assembly, ("stimulus_id", "image_id"))
    truth = _coord(assembly, ("truth",))
    for name, arr in (("stimulus_id", stim), ("truth", truth)):
        if arr is None:
            raise ValueError(f"`assembly` lacks coordinate {name!r}; coordinates found: {sorted(assembly.coords)}")
    subj = _coord(assembly, ("subject",))
    cond, exp = _coord(assembly, ("condition",)), _coord(assembly, ("experiment",))
    if stimuli is not None and (cond is None or exp is None):
        known = stimuli.drop_duplicates("image").set_index("image")
        ids = pd.Index(np.asarray(stim).astype(str))
        unknown = ids.difference(known.index)
        if len(unknown):
            raise ValueError(f"`assembly`: {len(unknown)} stimulus_id(s) are not among the benchmark's stimuli "
                             f"(e.g. {unknown[0]!r})")
        cond = known.loc[ids, "condition"].to_numpy() if cond is None else cond
        exp = known.loc[ids, "experiment"].to_numpy() if exp is None else exp
    frame = pd.DataFrame({
        "subject": subj if subj is not None else (subject or getattr(assembly, "name", None) or "model"),
        "image": stim,
        "truth": truth,
        "response": values,
        "condition": cond if cond is not None else "0",
        "experiment": exp if exp is not None else (experiment or "all"),
        "observer_type": observer_type or ("human" if subj is not None else "model"),
    })
    return read_trials(frame, truth="truth", response="response")


class ErrorConsistency:
    """Error consistency as a Brain-Score metric: ``metric(source, target)`` and ``metric.ceiling(target)``.

    ``source``: a model's assembly (no ``subject`` coordinate), ``target``: the human
    assembly (see :func:`trials_from_assembly`). Computes what Brain-Score's
    ``error_consistency`` metric computes — κ per subject and condition, averaged — and
    returns it as a 0-d ``xarray.DataArray`` (like Brain-Score's ``Score``) whose
    ``attrs`` add what Brain-Score lacks: ``ci_low``, ``ci_high`` (bootstrap over
    images within conditions), ``error`` (the bootstrap standard error),
    ``confidence_level`` and ``n_resamples``. The sign is kept (Brain-Score takes
    ``abs`` of the mean).

    Parameters
    ----------
    n_resamples, confidence_level, rng
        As in :class:`BehavioralBenchmark`.
    """

    def __init__(self, *, n_resamples: int = 2000, confidence_level: float = 0.95, rng: Any = None) -> None:
        self.n_resamples = v.check_positive_int(n_resamples, "n_resamples")
        self.confidence_level = v.check_confidence_level(confidence_level)
        self._entropy = int(v.check_rng(rng).integers(2**63))

    def _bench(self, target: Any) -> BehavioralBenchmark:
        return BehavioralBenchmark.from_assembly(target, n_resamples=self.n_resamples,
                                                 confidence_level=self.confidence_level, rng=self._entropy)

    @staticmethod
    def _score(value: float, ci: ConfidenceInterval, dist: NDArray, level: float) -> Any:
        import xarray as xr

        return xr.DataArray(value, attrs={"ci_low": ci.low, "ci_high": ci.high, "confidence_level": level,
                                          "error": float(np.nanstd(dist, ddof=1)), "n_resamples": dist.size})

    def __call__(self, source: Any, target: Any) -> Any:
        bench = self._bench(target)
        res = bench(trials_from_assembly(source, stimuli=bench._humans))
        return self._score(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level)

    def ceiling(self, target: Any) -> Any:
        c = self._bench(target).ceiling
        return self._score(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level)
