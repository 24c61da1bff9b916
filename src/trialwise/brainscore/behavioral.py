"""A behavioural benchmark in the spirit of Brain-Score, with confidence intervals.

Brain-Score: Schrimpf et al. 2018, *Brain-Score: which artificial neural network for object
recognition is most brain-like?*, bioRxiv 407007; its documentation of behavioral benchmarks
(ceilings, the metrics) at brain-score.org.

:class:`BehavioralBenchmark` scores a candidate's responses against human trials:
``score = clip(raw / ceiling, 0, 1)`` with CIs for the score, the raw value and the
ceiling, all from one joint resampling of the items. The three metrics are rows of one
table, :data:`BEHAVIORAL_METRICS`: each says how it computes the raw values and the
ceiling from the benchmark's design and how its ceiling is described. The per-image metrics
(I1n, I2n, value delta, OST) are computed by their functions through
:mod:`trialwise.brainscore.behavioral_images`. The results are :class:`BrainScoreResult` and
:class:`CeilingResult` (:mod:`trialwise.brainscore.results`).

Why this module is long: about 790 lines, one concept (the behavioural benchmark, its three trial-level
metrics), a third docstrings with examples; per-benchmark scores are in :mod:`~trialwise.brainscore.benchmarks`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise.leaderboards.trials import as_trials
from trialwise.brainscore.assembly import trials_from_assembly
from trialwise.brainscore.behavioral_images import IMAGE_METRICS, ImageMetricScorer
from trialwise.brainscore.benchmarks import ceiled, percentile, score_benchmarks, scored_experiments
from trialwise.brainscore.results import BrainScoreResult, CeilingResult
from trialwise.brainscore.ceiling import check_two_references, first_halves
from trialwise.leaderboards.hierarchy import (
    Design, aggregate, build_design, group_mean, reference_mask, row_scores)
from trialwise.leaderboards.bootstrap import bootstrap_entries
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import Protocol, get_protocol
from trialwise._stats.blocks import run_blocks
from trialwise._stats.resampling import bootstrap_sums
from trialwise._stats.splits import split_orders
from trialwise._stats.streams import child_seed, rng_and_seed

__all__ = ["ASSEMBLY_PROTOCOL", "BENCHMARK_METRICS", "BehavioralBenchmark", "BrainScoreResult", "CeilingResult"]


# --------------------------------------------------------------------------- metrics


@dataclass(frozen=True)
class Resampling:
    """What every metric's run shares: B, the bootstrap's seed and the random splits of the humans."""

    n_resamples: int
    entropy: int
    humans: dict[str, int]  # human -> row of `split_order`
    split_order: NDArray  # (n_humans, n_splits): split s orders the humans by column s


@dataclass(frozen=True)
class RunValues:
    """Observed and bootstrap values of one run: raw values per candidate and the ceiling."""

    raw: NDArray  # (k,)
    raw_replicates: NDArray  # (B, k)
    ceiling: Any  # a float
    ceiling_replicates: NDArray  # (B,)


def _over_units(values: NDArray, design: Design, by_experiment: bool = False) -> NDArray:
    """Per-unit values (…, n_units) → the protocol's score: mean over conditions (of each experiment, then
    over experiments, when the protocol has an experiment level); ``by_experiment``: the mean over the
    conditions of each experiment, (…, n_experiments) in the order of ``design.experiments``."""
    exp = np.array([design.experiments.index(u.experiment) for u in design.units], dtype=np.intp)
    if by_experiment:
        return group_mean(values, np.eye(len(design.experiments))[exp])
    if "experiment" in design.protocol.aggregation:
        values = group_mean(values, np.eye(len(design.experiments))[exp])
    return group_mean(values, np.ones((values.shape[-1], 1)))[..., 0]


def _experiment_scores(values: NDArray, design: Design) -> NDArray:
    """Entry values (…, n_entries) → every row's score in each experiment, (…, n_rows, n_experiments): the
    protocol's averaging with the experiment level kept (NaN where a row has no value in an experiment)."""
    v, key = aggregate(values, design, keep=("experiment",))
    out = np.full(v.shape[:-1] + (len(design.rows), len(design.experiments)), np.nan)
    out[..., key["row"], key["experiment"]] = v
    return out


def _accuracy_distance(source: NDArray, target: NDArray) -> NDArray:
    """Brain-Score's accuracy distance ``1 − |s − t| / max(t, 1 − t)`` (Schrimpf et al. 2018; Brain-Score docs)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 1.0 - np.abs(source - target) / np.maximum(target, 1.0 - target)


def _run_error_consistency(design: Design, candidates: tuple[str, ...], r: Resampling,
                           by_experiment: bool = False) -> RunValues:
    """κ rows of the hierarchy: the candidates' rows and the human–human row (the ceiling)."""
    k = len(candidates)
    scores = _experiment_scores if by_experiment else row_scores
    rows = scores(design.values(), design)
    rep = scores(bootstrap_entries(design, r.n_resamples, rng=r.entropy), design)
    return RunValues(rows[:k], rep[:, :k], rows[k], rep[:, k])


def _unit_counts(design: Design, candidates: tuple[str, ...], r: Resampling):
    """Per condition: counts right and seen of every observer, observed (row 0) then the B replicates
    (items resampled within the condition), with the humans' and the candidates' columns."""

    def counts(unit: Any, gen: Any) -> NDArray:  # unit u draws from child stream u of the seed
        cols = np.concatenate([unit.right, unit.seen], axis=1)
        reps = bootstrap_sums(cols, r.n_resamples, rng=gen)
        return np.concatenate([cols.sum(axis=0, dtype=np.int64)[None].astype(float), reps])  # row 0: observed

    # one unit at a time (trialwise._stats.blocks): each is one product, on BLAS's threads
    for u, both in run_blocks(counts, [(u, (unit,)) for u, unit in enumerate(design.units)], streams=r.entropy):
        unit = design.units[u]
        n_obs = len(unit.observers)
        right, seen = both[:, :n_obs], both[:, n_obs:]
        hum = [j for j, o in enumerate(unit.observers) if o in r.humans]
        cand = [unit.observers.index(c) if c in unit.observers else n_obs for c in candidates]
        if n_obs in cand:  # a candidate without this experiment (per-benchmark scores): 0 of 0 right, its rates NaN
            zero = np.zeros((len(both), 1))
            right, seen = np.concatenate([right, zero], axis=1), np.concatenate([seen, zero], axis=1)
        yield u, unit, right, seen, hum, cand


def _run_accuracy(design: Design, candidates: tuple[str, ...], r: Resampling, by_experiment: bool = False) -> RunValues:
    """The candidates' accuracy per condition, averaged; the ceiling is 1."""
    b, k, n_u = r.n_resamples, len(candidates), len(design.units)
    raw_o, raw_r = np.full((k, n_u), np.nan), np.full((b, k, n_u), np.nan)
    for u, _, right, seen, _, cand in _unit_counts(design, candidates, r):
        with np.errstate(invalid="ignore", divide="ignore"):
            raw = right[:, cand] / seen[:, cand]
        raw_o[:, u], raw_r[:, :, u] = raw[0], raw[1:]
    ones = np.ones(len(design.experiments)) if by_experiment else np.float64(1.0)
    return RunValues(_over_units(raw_o, design, by_experiment), _over_units(raw_r, design, by_experiment), ones,
                     np.ones((b,) + np.shape(ones)))


def _run_accuracy_distance(design: Design, candidates: tuple[str, ...], r: Resampling,
                           by_experiment: bool = False) -> RunValues:
    """Accuracy distance to the pooled humans per condition, averaged; the ceiling split-half over subjects."""
    b, k, n_u = r.n_resamples, len(candidates), len(design.units)
    n_splits = r.split_order.shape[1]
    raw_o, raw_r = np.full((k, n_u), np.nan), np.full((b, k, n_u), np.nan)
    ceil_o, ceil_r = np.full((n_splits, n_u), np.nan), np.full((b, n_splits, n_u), np.nan)
    for u, unit, right, seen, hum, cand in _unit_counts(design, candidates, r):
        with np.errstate(invalid="ignore", divide="ignore"):
            acc_c = right[:, cand] / seen[:, cand]
            t = right[:, hum].sum(axis=1, keepdims=True) / seen[:, hum].sum(axis=1, keepdims=True)
            raw = _accuracy_distance(acc_c, t)
            # Split s orders the humans at random; in every condition the first half of its humans in
            # that order form one half (so both halves are filled wherever two humans saw the condition).
            half = first_halves(r.split_order.T, [r.humans[unit.observers[j]] for j in hum]).T.astype(float)
            r1, s1 = right[:, hum] @ half, seen[:, hum] @ half
            r2, s2 = right[:, hum] @ (1 - half), seen[:, hum] @ (1 - half)
            split = _accuracy_distance(r1 / s1, r2 / s2)  # NaN where a half has no human here
            ceil_o[:, u], ceil_r[:, :, u] = split[0], split[1:]
        raw_o[:, u], raw_r[:, :, u] = raw[0], raw[1:]
    over = functools.partial(_over_units, design=design, by_experiment=by_experiment)
    with np.errstate(invalid="ignore"):
        if by_experiment:  # (…, n_splits, n_experiments): mean over the splits that fill the experiment
            c_obs, c_rep = _mean_defined(over(ceil_o), axis=0), _mean_defined(over(ceil_r), axis=1)
        else:
            c_obs, c_rep = np.nanmean(over(ceil_o)), np.nanmean(over(ceil_r), axis=1)
    return RunValues(over(raw_o), over(raw_r), c_obs, c_rep)


def _mean_defined(values: NDArray, axis: int) -> NDArray:
    """The mean of the defined (non-NaN) values along ``axis``; NaN where none is (no warning)."""
    defined = ~np.isnan(values)
    n = defined.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(defined, values, 0.0).sum(axis=axis) / n, np.nan)


def _two_humans_per_experiment(humans: Any, protocol: Protocol) -> None:
    scope = protocol.experiments
    check_two_references(humans if scope is None else humans[humans["experiment"].isin(scope)],
                         "BehavioralBenchmark(metric='error-consistency')")


def _two_humans(humans: Any, protocol: Protocol) -> None:
    if humans["subject"].nunique() < 2:
        raise InvalidValueError("the split-half ceiling of accuracy-distance needs at least two humans")


@dataclass(frozen=True)
class BehavioralMetric:
    """A metric of :class:`BehavioralBenchmark`: its run, its ceiling's description, its check of the humans."""

    name: str
    run: Callable[..., RunValues]  # (design, candidates, resampling, by_experiment=False)
    ceiling_method: str  # may name {n_splits}
    check_humans: Callable[[Any, Protocol], None] | None = None


#: The metrics of a :class:`BehavioralBenchmark` (Brain-Score documentation, "Common Behavioral Metrics"), by name.
BEHAVIORAL_METRICS: dict[str, BehavioralMetric] = {m.name: m for m in (
    BehavioralMetric("error-consistency", _run_error_consistency,
                     "all pairs of distinct humans (= split-half over all splits)", _two_humans_per_experiment),
    BehavioralMetric("accuracy-distance", _run_accuracy_distance,
                     "split-half over subjects ({n_splits} random splits)", _two_humans),
    BehavioralMetric("accuracy", _run_accuracy, "fixed at 1"),
)}
#: Names of the metrics of a :class:`BehavioralBenchmark`: those above, then the per-image ones of
#: :mod:`trialwise.brainscore.behavioral_images`.
BENCHMARK_METRICS = tuple(BEHAVIORAL_METRICS) + IMAGE_METRICS
#: The protocol of :meth:`BehavioralBenchmark.from_assembly` (and so of
#: :class:`trialwise.brainscore.ErrorConsistency`): Brain-Score's averaging in its
#: ``ErrorConsistency.aggregate`` — each subject's κ over the conditions, then over the
#: subjects — of the assembly's conditions, no exclusions, pairs sharing fewer than 20 images
#: left out. With every subject in every condition and no undefined κ this is the same
#: number as averaging over the subjects first (``docs/brainscore.md``).
ASSEMBLY_PROTOCOL = Protocol(name="assembly", aggregation=("condition", "reference"))


# --------------------------------------------------------------------------- the benchmark


class BehavioralBenchmark:
    """A behavioural benchmark in the spirit of Brain-Score (Schrimpf et al. 2018), with confidence intervals.

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
          model's accuracy ``s`` and the pooled human accuracy ``t`` (Brain-Score's definition), averaged
          over conditions and experiments. Ceiling: split-half over subjects, the same
          distance between the pooled accuracies of two random halves of the humans who
          saw the condition (one random order of the subjects per split, so a split
          divides them the same way in every condition), averaged over ``n_splits`` splits.
        * ``accuracy``: the model's accuracy (ceiling fixed at 1, as Brain-Score's
          Geirhos2021 accuracy benchmarks).
        * ``i2n``, ``i1n``, ``value-delta``, ``ost``: the per-image metrics, computed by
          :func:`trialwise.brainscore.image_level`, :func:`~trialwise.brainscore.i1n`,
          :func:`~trialwise.brainscore.delta` and
          :func:`~trialwise.brainscore.ost_correlation` (their intervals, ceilings and
          options), once per candidate with one seed. ``humans``: the 2AFC or K-way trials
          ``image, truth, response[, distractor]`` (I1n/I2n), a trials table (value delta)
          or the humans' OSTs ``image, ost``, one row per measurement (OST). A candidate:
          class probabilities indexed by image (I1n/I2n; a dict of them, or one table with
          a ``candidate`` column, for many), a trials table (value delta; candidates by
          ``subject``, each answering exactly the humans' images), OSTs ``image, ost`` (OST). ``protocol`` is not used; humans are
          ``reference`` if given, else the rows with ``observer_type == "human"`` if there is
          that column, else every row (:mod:`trialwise.brainscore.behavioral_images`).
    n_resamples : int
        Bootstrap replicates B.
    n_splits : int, optional
        Random half splits of the subjects for the split-half ceiling (default 100); for
        the per-image metrics, of the human trials or measurements (default: the metric
        function's, 20 for I1n/I2n and OST, 500 for value delta).
    confidence_level : float
    rng : seed or Generator
        Fixes the splits and the bootstrap: every model is scored on the same replicates.
        For the per-image metrics an integer is passed on as it is, so a candidate's
        numbers equal the metric function's with the same ``rng``.
    brainscore_compatible : bool, default False
        By default error-consistency keeps its sign: a model whose errors fall on the
        images the humans get right (κ < 0) gets a negative raw value and a ceiled score
        of 0. With True, the raw value, the ceiling and every bootstrap replicate of both
        are ``abs()`` of the mean κ, exactly as Brain-Score's ``ErrorConsistency.aggregate``
        (``brainscore_vision/metrics/error_consistency/metric.py``, brain-score/vision
        commit c642dbe), so an anti-consistent model scores as high as a consistent one.
        Brain-Score's benchmarks are per experiment; with a protocol that averages several
        experiments the ``abs`` is taken after that average. The other metrics are
        Brain-Score's arithmetic already and are unchanged, except I1n/I2n, whose
        ``brainscore_compatible`` is :func:`trialwise.brainscore.image_level`'s (2 fixed splits,
        unclipped score).
    scalar : callable, optional
        ``value-delta`` only: trials table → one value per trial, whose mean is the scalar
        compared (default: correctness, so the scalar is the accuracy); applied alike to
        the humans' and each candidate's trials.
    metric_options : dict, optional
        For the per-image metrics, further keyword arguments of the metric's function:
        ``ceiling_method``, ``rate_correction``, ``kway_rate`` (I1n/I2n), ``scale`` (value
        delta), ``ceiling_method``, ``ceiling`` (OST).

    Attributes
    ----------
    ceiling : CeilingResult
        Value, CI and replicates.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
    >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=500, rng=0)
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
        n_splits: int | None = None,
        confidence_level: float = 0.95,
        rng: Any = None,
        brainscore_compatible: bool = False,
        scalar: Callable[[Any], Any] | None = None,
        metric_options: Any = None,
    ) -> None:
        self.metric = v.check_choice(metric, "metric", BENCHMARK_METRICS)
        if not isinstance(brainscore_compatible, (bool, np.bool_)):
            raise InvalidValueError(f"`brainscore_compatible` must be True or False; got {v.show(brainscore_compatible)}")
        self.brainscore_compatible = bool(brainscore_compatible)
        self._images: ImageMetricScorer | None = None
        rng, self.seed = rng_and_seed(rng)  # recorded: rng=self.seed repeats every score
        if self.metric in IMAGE_METRICS:
            self._init_images(humans, reference, n_resamples, n_splits, confidence_level, rng, scalar, metric_options)
            return
        if scalar is not None or metric_options is not None:
            raise InvalidValueError(f"`scalar` and `metric_options` apply to the metrics {list(IMAGE_METRICS)}; got "
                                    f"metric {self.metric!r}")
        n_splits = 100 if n_splits is None else n_splits
        self._metric = BEHAVIORAL_METRICS[self.metric]
        proto = get_protocol(protocol)
        self.protocol = proto.replace(metric="error-consistency")
        self.n_resamples = v.check_positive_int(n_resamples, "n_resamples")
        self.n_splits: int | None = v.check_positive_int(n_splits, "n_splits")
        self.confidence_level = v.check_confidence_level(confidence_level)
        t = as_trials(humans)
        self._humans = t[reference_mask(t, self.protocol, reference)].assign(observer_type="human")
        self._proto_run = self.protocol.replace(reference="human")
        if self._metric.check_humans is not None:
            self._metric.check_humans(self._humans, self.protocol)
        design = build_design(self._humans, self._proto_run, require_candidates=False)
        images = self._humans.groupby(["experiment", "condition"])["image"].agg(frozenset)
        self._units = [(u.experiment, u.condition, images[(u.experiment, u.condition)]) for u in design.units]
        self.humans: tuple[str, ...] = design.references
        gen = v.check_rng(rng)
        self._entropy = child_seed(gen)
        # Split s orders the humans at random (see _run_accuracy_distance).
        self._order = split_orders(len(self.humans), self.n_splits, rng=gen).T
        self._resampling = Resampling(self.n_resamples, self._entropy, {h: i for i, h in enumerate(self.humans)},
                                      self._order)
        self._human_design = design

    def _init_images(self, humans: Any, reference: Any, n_resamples: Any, n_splits: Any, confidence_level: Any,
                     rng: Any, scalar: Any, metric_options: Any) -> None:
        """The state of a benchmark on one of the per-image metrics (:mod:`~trialwise.brainscore.behavioral_images`)."""
        import pandas as pd

        self.n_resamples = v.check_positive_int(n_resamples, "n_resamples")
        self.n_splits = None if n_splits is None else v.check_positive_int(n_splits, "n_splits")
        self.confidence_level = v.check_confidence_level(confidence_level)
        self.protocol = Protocol(name=self.metric)
        if self.metric == "value-delta":
            humans = as_trials(humans)
        if isinstance(humans, pd.DataFrame):
            if reference is not None:
                if "subject" in humans.columns:
                    humans = humans[humans["subject"].isin(list(np.atleast_1d(reference)))]
            elif "observer_type" in humans.columns:
                humans = humans[humans["observer_type"] == "human"]
        # An integer rng is the seed of every call of the metric's function (the same numbers as calling it with
        # that rng); otherwise one seed is drawn from it.
        integer = isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)
        seed = int(rng) if integer else child_seed(v.check_rng(rng))
        self._entropy = seed
        self._images = ImageMetricScorer(self.metric, humans, n_resamples=self.n_resamples, n_splits=self.n_splits,
                                         confidence_level=self.confidence_level, seed=seed,
                                         brainscore_compatible=self.brainscore_compatible, scalar=scalar,
                                         options=metric_options)
        self._humans = humans
        subjects = humans["subject"] if "subject" in humans.columns else pd.Series([], dtype=object)
        self.humans = tuple(sorted(map(str, pd.unique(subjects))))
        self._units = []
        if self.metric == "value-delta":  # a candidate answers the humans' images (incomplete() names who does not)
            images = humans.groupby(["experiment", "condition"], observed=True)["image"].agg(frozenset)
            self._units = [(e, cond, imgs) for (e, cond), imgs in images.items()]

    @property
    def human_trials(self):
        """The benchmark's human trials (:data:`trialwise.io.trials.TRIAL_COLUMNS`; for the per-image metrics the
        table given, restricted to the humans; do not modify)."""
        return self._humans

    @functools.cached_property
    def ceiling(self) -> CeilingResult:
        """The ceiling with its CI (computed on first use; scoring a model recomputes it jointly)."""
        if self._images is not None:
            return self._images.ceiling
        run = self._run(self._human_design, ())
        return self._ceiling_result(run.ceiling, run.ceiling_replicates)

    def _run(self, design: Design, candidates: tuple[str, ...], by_experiment: bool = False) -> RunValues:
        """The metric's values; with ``brainscore_compatible``, EC raw values and ceiling as ``abs`` (Brain-Score).
        ``by_experiment``: one value per experiment along a last axis (:mod:`trialwise.brainscore.benchmarks`)."""
        run = self._metric.run(design, candidates, self._resampling, by_experiment)
        if self.brainscore_compatible and self.metric == "error-consistency":
            # brainscore_vision/metrics/error_consistency/metric.py, ErrorConsistency.aggregate: score = abs(mean)
            run = RunValues(np.abs(run.raw), np.abs(run.raw_replicates), np.abs(run.ceiling),
                            np.abs(run.ceiling_replicates))
        return run

    def __repr__(self) -> str:
        if self._images is not None:
            return (f"BehavioralBenchmark(metric={self.metric!r}, {len(self._humans)} human rows, "
                    f"ceiling={self.ceiling.statistic:.3f})")
        return (f"BehavioralBenchmark(metric={self.metric!r}, protocol={self.protocol.name!r}, "
                f"{len(self.humans)} humans, {len(self._units)} conditions, ceiling={self.ceiling.statistic:.3f})")

    def _ceiling_result(self, obs: Any, rep: NDArray, where: str = "") -> CeilingResult:
        lo, hi = percentile(rep, np.asarray(obs), self.confidence_level)
        if float(obs) <= 0:
            warn(f"{where}the ceiling is {float(obs):.3g} ≤ 0: the humans do not agree beyond chance, so ceiled scores "
                 f"are undefined (NaN)", DegenerateDataWarning)
        return CeilingResult(statistic=float(obs), confidence_interval=ConfidenceInterval(float(lo), float(hi)),
                             method=self._metric.ceiling_method.format(n_splits=self.n_splits), metric=self.metric,
                             confidence_level=self.confidence_level, n_resamples=self.n_resamples,
                             bootstrap_distribution=np.asarray(rep, dtype=float))

    def incomplete(self, candidate_trials: Any) -> dict[str, tuple[str, ...]]:
        """The candidates that cannot be scored: name → the experiments in which they lack images.

        A candidate is scored on exactly the benchmark's images (:meth:`__call__` raises
        otherwise); this says beforehand which candidates of a table are short of some, so
        that a caller can score the others or restrict the protocol's experiments.

        Parameters
        ----------
        candidate_trials : DataFrame or path
            Trials of one or more candidates.

        Returns
        -------
        dict
            ``{name: experiments}`` for each candidate lacking images of some condition, the
            experiments sorted; empty when every candidate answers every image.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human()
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"]),
        ...                                n_resamples=100, rng=0)
        >>> lacking = bench.incomplete(trials[trials.observer_type != "human"])
        >>> len(lacking), lacking["clip_kb"]
        (5, ('edge',))
        """
        missing = self.missing_images(candidate_trials)  # sorted by candidate
        return {str(name): tuple(sorted(set(g["experiment"])))
                for name, g in missing.groupby("candidate", sort=True)}

    @property
    def conditions(self):
        """The benchmark's conditions and their numbers of images (``experiment``, ``condition``, ``n_images``;
        empty for I1n/I2n and OST, which score images, not conditions)."""
        import pandas as pd

        return pd.DataFrame([(e, cond, len(images)) for e, cond, images in self._units],
                            columns=["experiment", "condition", "n_images"])

    def missing_images(self, candidate_trials: Any):
        """The benchmark's images that each candidate does not answer, one row per image.

        What :meth:`incomplete` summarises by experiment, in full: a candidate is scored on
        exactly the benchmark's images, so one that lacks a single image of a condition is
        not scored until the benchmark leaves out that image's experiment.

        Parameters
        ----------
        candidate_trials : DataFrame or path
            Trials of one or more candidates.

        Returns
        -------
        pandas.DataFrame
            Columns ``candidate``, ``experiment``, ``condition``, ``image`` (sorted); empty
            when every candidate answers every image.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("sketch")
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["sketch"]),
        ...                                n_resamples=100, rng=0)
        >>> resnet = trials[trials.subject == "resnet50"]
        >>> bench.missing_images(resnet.iloc[1:]).values.tolist()
        [['resnet50', 'sketch', '0', 'airplane-0001-sketch-0']]
        """
        import pandas as pd

        columns = ["candidate", "experiment", "condition", "image"]
        if self._images is not None and self.metric != "value-delta":
            return pd.DataFrame(columns=columns)
        c = as_trials(candidate_trials)
        have = c.groupby(["subject", "experiment", "condition"])["image"].agg(frozenset)
        rows = [(str(name), e, cond, img) for name in sorted(set(c["subject"]) - set(self.humans))
                for e, cond, images in self._units
                for img in sorted(images - have.get((name, e, cond), frozenset()), key=str)]
        return pd.DataFrame(rows, columns=columns)

    def _design(self, candidate_trials: Any, per_benchmark: bool = False
                ) -> tuple[Design, tuple[str, ...], list[StructuredNote]]:
        """The design of the humans and the candidates. A candidate answers exactly the benchmark's images
        (else an error); ``per_benchmark``: exactly those of each experiment it is scored in, and an experiment
        whose images it does not all answer is one it is not scored in (note ``benchmarks-missing``)."""
        import pandas as pd

        if "presentation" in tuple(getattr(candidate_trials, "dims", ())):
            candidate_trials = trials_from_assembly(candidate_trials, stimuli=self._humans)
        c = as_trials(candidate_trials)
        names = sorted(c["subject"].unique())
        clash = sorted(set(names) & set(self.humans))
        if clash:
            raise InvalidValueError(f"candidate trials: observer(s) {clash} are humans of the benchmark")
        in_bench = c.set_index(["experiment", "condition"]).index.isin([(e, cond) for e, cond, _ in self._units])
        notes = []
        if not in_bench.all():
            notes.append(StructuredNote("candidate-trials-unused", n=int((~in_bench).sum())))
        c, lacking = scored_experiments(c[in_bench], self._units, names, per_benchmark=per_benchmark)
        notes += lacking
        trials = pd.concat([self._humans, c.assign(observer_type="candidate")], ignore_index=True)
        design = build_design(trials, self._proto_run, partial_candidates=per_benchmark)
        return design, design.candidates, notes

    def score_table(self, candidate_trials: Any):
        """Score every candidate in the trials: one row per candidate (score, raw, ceiling, each with CI).

        Every candidate is scored on the same bootstrap replicates of the items.

        Parameters
        ----------
        candidate_trials : DataFrame or path
            Trials of one or more candidates, each answering exactly the benchmark's images
            (human observers of the benchmark are an error).

        Returns
        -------
        pandas.DataFrame
            One row per candidate in the order of the trials, the columns of
            :meth:`BrainScoreResult.to_frame` followed by the rank columns of a leaderboard
            (``rank, rank_low, rank_high, rank_set_low, rank_set_high, in_best_set, group,
            p_best``; :func:`trialwise.leaderboards.ranks.rank_columns`, glossary "Ranks"). The
            candidates are ranked by their raw values on the joint replicates: the ceiling is
            common to all of them, so this is the order of the ceiled scores, without the ties
            that clipping at 0 and 1 makes. For the per-image metrics the replicates are each
            candidate's ``raw_distribution`` from its function called with the benchmark's one
            seed, so they are drawn jointly: the same images (I1n/I2n within objects, OST)
            or the same human trials (value delta) in every replicate; for I1n/I2n these
            bootstrap replicates rank while the intervals are jackknife-t ones.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("cue-conflict")
        >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=200, rng=0)
        >>> table = bench.score_table(trials[trials.subject.isin(["resnet50", "convnext-base"])])
        >>> table[["observer", "raw"]].round(3).values.tolist()
        [['convnext-base', 0.117], ['resnet50', 0.068]]
        """
        import pandas as pd

        from trialwise.leaderboards.ranks import rank_columns

        results = self._score(candidate_trials)
        table = pd.concat([r.to_frame() for r in results], ignore_index=True)
        ranked = rank_columns([r.raw for r in results], np.column_stack([r.raw_distribution for r in results]),
                              confidence_level=self.confidence_level)
        for col, values in ranked.items():
            table[col] = values
        for col in ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high"):
            table[col] = table[col].astype("Int64")
        return table

    def score_benchmarks(self, candidate_trials: Any):
        """Score every candidate per benchmark, one benchmark per experiment, and their average, as
        Brain-Score reports its Geirhos2021 benchmarks (:mod:`trialwise.brainscore.benchmarks`).

        Each experiment of the protocol is a benchmark with its own ceiling from its own humans:
        raw values and ceiling averaged over that experiment's conditions, ``score = clip(raw /
        ceiling, 0, 1)``, each with its interval, and rank sets per benchmark (of the raw values).
        The average over the benchmarks is Brain-Score's: a missing or NaN score counts as 0.
        Every interval comes from the one joint bootstrap of the items (the average's from the
        averages of the benchmarks' replicate scores). Trial-level metrics only.

        A candidate is scored in every benchmark whose images it answers exactly; in the others
        its score is missing (``missing``), and counts as 0 in the average, as on Brain-Score's
        website. One warning (note ``benchmarks-missing``) names them.

        Parameters
        ----------
        candidate_trials : DataFrame or path
            Trials of one or more candidates, each answering exactly the images of one or more
            of the benchmark's experiments.

        Returns
        -------
        BenchmarkScores
            ``table`` (the average's rows, then each benchmark's), ``average``, ``scores``
            (candidate × benchmark), ``ceilings`` and the replicates.

        Raises
        ------
        InvalidValueError
            For a per-image metric (no experiments), or trials :meth:`score_table` refuses.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human()
        >>> two = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, two, n_resamples=200, rng=0)
        >>> res = bench.score_benchmarks(trials[trials.subject.isin(["resnet50", "clip-16"])])
        >>> res.benchmarks, res.scores.round(3).values.tolist()  # rows: clip-16, resnet50
        (('cue-conflict', 'edge'), [[0.473, 0.995], [0.205, 0.114]])
        >>> res.average[["observer", "score"]].round(3).values.tolist()  # the mean of each row
        [['clip-16', 0.734], ['resnet50', 0.16]]
        """
        if self._images is not None:
            raise InvalidValueError(f"per-benchmark scores are one per experiment, of the metrics "
                                    f"{list(BEHAVIORAL_METRICS)}; metric {self.metric!r} scores images: use score_table()")
        design, cands, notes = self._design(candidate_trials, per_benchmark=True)
        return score_benchmarks(self._run(design, cands, by_experiment=True), self._ceiling_result, self,
                                experiments=tuple(design.experiments), candidates=cands, notes=notes)

    def _score(self, candidate_trials: Any) -> list[BrainScoreResult]:
        if self._images is not None:
            return [self._images.score(name, data) for name, data in self._images.candidates(candidate_trials).items()]
        design, cands, notes = self._design(candidate_trials)
        run = self._run(design, cands)
        raw_o, c_o, raw_r, c_r = run.raw, run.ceiling, run.raw_replicates, run.ceiling_replicates
        ceiling = self._ceiling_result(c_o, c_r)
        scores, scores_r = ceiled(raw_o, raw_r, c_o, c_r)
        out = []
        for i, name in enumerate(cands):
            score_o, score_r = float(scores[i]), scores_r[:, i]
            lo, hi = percentile(score_r, np.asarray(score_o), self.confidence_level)
            r_lo, r_hi = percentile(raw_r[:, i], np.asarray(raw_o[i]), self.confidence_level)
            out.append(BrainScoreResult(
                observer=name, statistic=score_o, confidence_interval=ConfidenceInterval(float(lo), float(hi)),
                raw=float(raw_o[i]), raw_interval=ConfidenceInterval(float(r_lo), float(r_hi)), ceiling=ceiling,
                metric=self.metric, protocol=self.protocol.name, confidence_level=self.confidence_level,
                n_resamples=self.n_resamples, n_undefined=int(np.isnan(score_r).sum()),
                bootstrap_distribution=score_r, raw_distribution=raw_r[:, i].astype(float), notes=tuple(notes)))
        return out

    def __call__(self, candidate_trials: Any) -> BrainScoreResult:
        """Score one candidate's trials (its responses to the benchmark's images): a trials
        table or a model's assembly (:func:`trials_from_assembly`).

        Parameters
        ----------
        candidate_trials : DataFrame, path or xarray.DataArray
            One candidate's trials, answering exactly the benchmark's images.

        Returns
        -------
        BrainScoreResult
            The ceiled score, the raw value and the ceiling, each with its interval.

        Raises
        ------
        InvalidValueError
            When the trials hold more than one candidate (use :meth:`score_table`) or do
            not answer exactly the benchmark's images.

        References
        ----------
        Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
        K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
        DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
        recognition is most brain-like? *bioRxiv* 407007.

        Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
        behaviour of CNNs and humans by measuring error consistency. NeurIPS.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("cue-conflict")
        >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=200, rng=0)
        >>> res = bench.score(trials[trials.subject == "resnet50"])
        >>> round(res.statistic, 3), res.confidence_interval
        (0.205, ConfidenceInterval(low=0.163, high=0.253))
        """
        results = self._score(candidate_trials)
        if len(results) != 1:
            raise InvalidValueError(f"candidate trials hold {len(results)} observers; score one at a time or use "
                             f"score_table()")
        return results[0]

    score = __call__

    @classmethod
    def from_assembly(cls, assembly: Any, *, experiment: str | None = None, min_items: int | None = None,
                      **kwargs: Any) -> BehavioralBenchmark:
        """A benchmark from a Brain-Score-style human assembly (see :func:`trials_from_assembly`).

        The protocol defaults to :data:`ASSEMBLY_PROTOCOL`: Brain-Score's averaging (each
        subject's κ over the conditions, then over the subjects; no exclusions) of the
        assembly's conditions as one experiment, pairs sharing fewer than 20 images left out.

        Parameters
        ----------
        assembly : xarray.DataArray
            The humans' responses along ``presentation``, with the coordinates
            ``stimulus_id``, ``truth``, ``subject`` and, optionally, ``condition`` and
            ``experiment``.
        experiment : str, optional
            The experiment of an assembly without an ``experiment`` coordinate (default
            ``"all"``). Name one of the protocol's experiments to apply its rules for it
            (e.g. ``experiment="contrast"`` with :data:`~trialwise.leaderboards.MODEL_VS_HUMAN`).
        min_items : int, optional
            The protocol's ``min_items`` (the fewest images two observers must share in a
            condition for their κ to count; default the protocol's, 20). Brain-Score has no
            such rule: ``min_items=1`` scores as it does on an assembly with few images per
            condition.
        **kwargs
            The keyword arguments of :class:`BehavioralBenchmark` (``protocol``,
            ``metric``, ``n_resamples``, ``rng``, ...).

        Returns
        -------
        BehavioralBenchmark
            The benchmark of these humans.

        Raises
        ------
        InvalidValueError
            The protocol names experiments and the assembly is none of them (say which
            with ``experiment=``, or pass ``protocol.replace(experiments=None)``).

        Examples
        --------
        >>> import trialwise as tw, xarray as xr
        >>> t = tw.datasets.model_vs_human("cue-conflict")
        >>> h = t[t.observer_type == "human"]
        >>> coords = {name: ("presentation", h[col].to_numpy()) for name, col in
        ...           [("stimulus_id", "image"), ("truth", "category"), ("condition", "condition"), ("subject", "subject")]}
        >>> humans = xr.DataArray(h["response"].to_numpy(), dims=["presentation"], coords=coords)
        >>> bench = tw.brainscore.BehavioralBenchmark.from_assembly(humans, n_resamples=200, rng=0)
        >>> len(bench.humans), round(bench.ceiling.statistic, 3)
        (10, 0.331)
        >>> mvh = tw.brainscore.BehavioralBenchmark.from_assembly(humans, experiment="cue-conflict", protocol=tw.leaderboards.MODEL_VS_HUMAN,
        ...                                            n_resamples=200, rng=0)
        >>> round(mvh.ceiling.statistic, 3)
        0.331
        """
        trials = trials_from_assembly(assembly, observer_type="human", experiment=experiment)
        protocol = get_protocol(kwargs.pop("protocol", ASSEMBLY_PROTOCOL))
        if min_items is not None:
            protocol = protocol.replace(min_items=min_items)
        found = sorted(map(str, trials["experiment"].unique()))
        if protocol.experiments is not None and not set(found) & set(protocol.experiments):
            exps = protocol.experiments
            listed = ", ".join(exps[:4]) + (f", … ({len(exps)})" if len(exps) > 4 else "")
            named = experiment is not None or "experiment" in assembly.coords
            what = f"is experiment(s) {', '.join(map(repr, found))}" if named else \
                "has no `experiment` coordinate (its trials are one experiment, 'all')"
            raise InvalidValueError(
                f"the assembly {what}, and protocol {protocol.name!r} names other experiments ({listed}): pass "
                f"`experiment=` with the one it is, to apply the protocol's rules for it, or a protocol without "
                f"experiments, `protocol.replace(experiments=None)`")
        return cls(trials, protocol=protocol, **kwargs)
