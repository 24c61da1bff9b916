"""Benchmark protocols: which conditions count, which observers are the reference, how to average.

A protocol is data, not a code path. The engine (:mod:`trialwise.leaderboards.hierarchy`)
computes one metric per (candidate, reference observer, condition) and averages the
values level by level in the order the protocol names; everything else (excluded
conditions, the reference group, the metric) is a field of the protocol.

An accuracy leaderboard is a protocol too (:data:`ACCURACY`, metric ``"accuracy"``): every
observer is a candidate and its pair partner is the *ground truth*, an oracle observer
that saw every item and is always right (:data:`GROUND_TRUTH`, added by
:func:`~trialwise.leaderboards.hierarchy.build_design`). The pair's table then has
``n11 = ca`` and ``cb = n``, so its accuracy is ``ca / n``, and the bootstrap, the
infinitesimal jackknife (:func:`metric_gradient`), the swap test (which, on one condition,
is McNemar's exact test of two candidates, by Monte Carlo) and the rank sets work
unchanged. The oracle's own row (pairs of distinct references) has no entries and is
left out of the leaderboard's table. With per-item scores in [0, 1] in place of 0/1
correctness (a ``score`` column: partial credit, F1), ``n11 = ca = Σ score`` and the
accuracy is the mean score, by the same sums; the swap test is then the paired sign-flip
test of the two candidates' scores (:mod:`trialwise.leaderboards.swap`). The other metrics
need 0/1 correctness.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._stats.kappa import kappa_from_cells, kappa_from_sums
from trialwise._stats.kappa_derivatives import kappa_gradient_sums

__all__ = ["Protocol", "METRICS", "METRIC_RANGE", "HIGHER_IS_BETTER", "MODEL_VS_HUMAN", "ACCURACY", "GROUND_TRUTH", "FLAT", "TEXTURE_VS_SHAPE", "PROTOCOLS", "get_protocol", "protocol_for_trials",
           "TRIALS_NAME", "metric_from_sums",
           "metric_gradient", "metric_and_gradient",
           "metric_from_exact_sums"]

#: Pair metrics a protocol can average (each a function of a pair's 2×2 table).
Metric = Literal["error-consistency", "observed-consistency", "accuracy-difference", "accuracy"]
METRICS: tuple[Metric, ...] = get_args(Metric)
#: The range every value of the metric lies in (a score's interval is clipped to it).
METRIC_RANGE = {"error-consistency": (-1.0, 1.0), "observed-consistency": (0.0, 1.0),
                "accuracy-difference": (0.0, 1.0), "accuracy": (0.0, 1.0)}
#: Whether a larger value of the metric means "more alike" (ranks: 1 = most alike).
HIGHER_IS_BETTER = {"error-consistency": True, "observed-consistency": True, "accuracy-difference": False,
                    "accuracy": True}
#: Metrics scored against the ground truth (an always-right oracle), not a reference group.
GROUND_TRUTH_METRICS = ("accuracy",)
#: The name of the ground-truth oracle observer of an accuracy leaderboard.
GROUND_TRUTH = "ground truth"
#: Aggregation levels: the reference observer, the condition, the experiment.
LEVELS = ("reference", "condition", "experiment")


def metric_from_sums(metric: str, n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray) -> NDArray:
    """A pair metric from a table's sums: items ``n``, both correct ``n11``, each correct ``ca``, ``cb``.

    ``error-consistency``: Cohen's κ on correctness, ``2(n·n11 − ca·cb) / (n(ca + cb) − 2·ca·cb)``
    (the usual ``(c_obs − c_exp) / (1 − c_exp)``; NaN where both observers are always
    right, or always wrong), computed by the one κ kernel of :mod:`trialwise._stats.kappa` on
    the table's cells. ``observed-consistency``: the share of items on which both
    are right or both wrong. ``accuracy-difference``: the squared difference of the two
    accuracies, ``((ca − cb) / n)²``, as in model-vs-human's published tables.
    ``accuracy``: the first observer's accuracy ``ca / n`` (the second is the ground truth).
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric == "error-consistency":
            n00 = n - ca
            n00 -= cb
            n00 += n11
            return kappa_from_cells(n11, ca - n11, cb - n11, n00)
        if metric == "observed-consistency":
            return np.where(n > 0, (n - ca - cb + 2.0 * n11) / np.where(n > 0, n, 1.0), np.nan)
        if metric == "accuracy-difference":
            return np.where(n > 0, ((ca - cb) / np.where(n > 0, n, 1.0)) ** 2, np.nan)
        if metric == "accuracy":
            return np.where(n > 0, ca / np.where(n > 0, n, 1.0), np.nan)
    raise InvalidValueError(f"`metric` must be one of {', '.join(map(repr, METRICS))}; got {metric!r}")


def metric_from_exact_sums(metric: str, n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray) -> NDArray:
    """:func:`metric_from_sums` of exact sums (integers, as a multinomial bootstrap's or a swap's), 2-D
    (… × tables): κ by :func:`trialwise._stats.kappa.kappa_from_sums` on one thread (callers are threaded
    over units or pairs already) — the same bits as from the cells, in fewer passes, no tables built.
    """
    if metric == "error-consistency":
        return kappa_from_sums(n, n11, ca, cb, workers=1)
    return metric_from_sums(metric, n, n11, ca, cb)


def metric_gradient(metric: str, n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray) -> NDArray:
    """The gradient of a pair metric (:func:`metric_from_sums`)
    with respect to its table's sums ``(n, n11, ca, cb)``, shape ``(4, …)``; not finite where
    the metric is undefined.

    For κ, :func:`trialwise._stats.kappa_derivatives.kappa_gradient_sums`. Every metric is unchanged when all
    four sums are scaled, so ``gradient · sums = 0``.
    """
    n, n11, ca, cb = (np.asarray(x, dtype=float) for x in (n, n11, ca, cb))
    with np.errstate(invalid="ignore", divide="ignore"):
        if metric == "error-consistency":
            return kappa_gradient_sums(n, n11, ca, cb)
        elif metric == "observed-consistency":
            f = (n - ca - cb + 2.0 * n11) / n
            g = [(1.0 - f) / n, 2.0 / n, -1.0 / n, -1.0 / n]
        elif metric == "accuracy-difference":
            d = (ca - cb) / n
            g = [-2.0 * d * d / n, 0.0 * d, 2.0 * d / n, -2.0 * d / n]
        elif metric == "accuracy":
            g = [-ca / (n * n), 0.0 * n, 1.0 / n, 0.0 * n]
        else:
            raise InvalidValueError(f"`metric` must be one of {', '.join(map(repr, METRICS))}; got {metric!r}")
    return np.stack(np.broadcast_arrays(*g))


def metric_and_gradient(metric: str, n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray) -> tuple[NDArray, NDArray]:
    """:func:`metric_from_sums` and :func:`metric_gradient` at once, shapes ``(…)`` and ``(4, …)``.

    For κ both come from the same products (:func:`trialwise._stats.kappa_derivatives.kappa_gradient_sums` with
    ``with_kappa=True``): on exact sums (integers, as in a bootstrap) the same bits as the two
    calls. The bootstrap's influence computation calls it on every replicate.
    """
    if metric == "error-consistency":
        return kappa_gradient_sums(n, n11, ca, cb, with_kappa=True)
    return metric_from_sums(metric, n, n11, ca, cb), metric_gradient(metric, n, n11, ca, cb)


@dataclass(frozen=True)
class Protocol:
    """How a benchmark turns trials into one score per observer.

    Parameters
    ----------
    name : str
        Shown in tables and reports.
    exclude : mapping of experiment -> conditions
        Conditions left out (e.g. controls). Naming a condition the data do not have is
        an error when the protocol is applied.
    aggregation : tuple of levels
        The order in which values are averaged, from ``"reference"`` (the reference
        observers of a condition), ``"condition"``, ``"experiment"``. After every listed
        level is averaged one value per observer remains. A level that is not listed is
        pooled into the next one: ``("reference", "condition")`` averages over all
        conditions of all experiments at once (Klein et al. 2025, App. H).
    reference : str
        The ``observer_type`` of the reference group (default ``"human"``); every other
        observer is a candidate. The reference group's own row pairs distinct reference
        observers. Not used by the ``"accuracy"`` metric, whose every observer is a
        candidate, scored against the ground truth.
    experiments : sequence of str, optional
        The benchmark's experiments (default: all in the data). Trials of other
        experiments are left out; experiments the trials lack are not scored and the
        leaderboard's ``notes`` name them, so a benchmark can be run on part of its data.
        A protocol none of whose experiments is in the trials is an error.
    conditions : mapping of experiment -> conditions, optional
        Only these conditions of the named experiments (applied before ``exclude``).
    metric : str
        One of :data:`METRICS` (default error consistency). ``"accuracy"`` makes an
        accuracy leaderboard (:data:`ACCURACY`; module doc).
    min_items : int
        The fewest items two observers must share in a condition for their pair value
        to count (default 20). A pair that shares fewer is left out of that condition
        — of the estimate and of every bootstrap replicate alike — and the leaderboard's
        ``notes`` count them. Below about 20 shared items a pair's κ is mostly noise and
        rule (a table of 1–5 items is often one whose κ is undefined or exactly 0 by
        construction), and the share of bootstrap replicates in which it is undefined
        depends on its value, so leaving undefined replicates out shifts the replicate
        means away from the estimate (``docs/benchmark.md``, "Sparse overlaps"). Every
        pair of model-vs-human shares at least 160 items, so the rule changes none of its
        numbers.
    from_trials : str, optional
        Set by :func:`protocol_for_trials` on a protocol it built from the trials (every
        experiment and condition they hold) in place of the named protocol it gives here
        (``"model-vs-human"`` when none was named); the leaderboard then says so in its
        ``notes`` (kind ``protocol-from-trials``). None (default) for every other protocol.

    Examples
    --------
    >>> from trialwise.leaderboards import MODEL_VS_HUMAN
    >>> MODEL_VS_HUMAN.aggregation
    ('reference', 'condition', 'experiment')
    >>> MODEL_VS_HUMAN.exclude["contrast"]
    ('c100', 'c03', 'c01')
    >>> MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]).experiments
    ('cue-conflict',)
    """

    name: str
    exclude: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    aggregation: tuple[str, ...] = ("reference", "condition", "experiment")
    reference: str = "human"
    experiments: tuple[str, ...] | None = None
    conditions: Mapping[str, tuple[str, ...]] | None = None
    metric: Metric = "error-consistency"
    min_items: int = 20
    from_trials: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidTypeError(f"`name` must be a non-empty string; got {self.name!r}")
        agg = tuple(self.aggregation)
        bad = [a for a in agg if a not in LEVELS]
        if bad or len(set(agg)) != len(agg) or "reference" not in agg or "condition" not in agg:
            raise InvalidValueError(
                f"`aggregation` must list 'reference' and 'condition' once each (and optionally 'experiment', "
                f"after 'condition'); got {agg!r}"
            )
        if "experiment" in agg and agg.index("experiment") < agg.index("condition"):
            raise InvalidValueError(f"`aggregation`: conditions lie within experiments, so 'condition' must come before "
                             f"'experiment'; got {agg!r}")
        if self.metric not in METRICS:
            raise InvalidValueError(f"`metric` must be one of {', '.join(map(repr, METRICS))}; got {self.metric!r}")
        if isinstance(self.min_items, bool) or not isinstance(self.min_items, numbers.Integral):
            raise InvalidTypeError(f"`min_items` must be an integer >= 1; got {self.min_items!r}")
        if self.min_items < 1:
            raise InvalidValueError(f"`min_items` must be an integer >= 1; got {self.min_items}")
        object.__setattr__(self, "min_items", int(self.min_items))
        if self.from_trials is not None and not isinstance(self.from_trials, str):
            raise InvalidTypeError(f"`from_trials` must be None or a protocol's name; got {self.from_trials!r}")
        object.__setattr__(self, "aggregation", agg)
        object.__setattr__(self, "exclude", _condition_map(self.exclude, "exclude"))
        if self.conditions is not None:
            object.__setattr__(self, "conditions", _condition_map(self.conditions, "conditions"))
        if self.experiments is not None:
            exps = (self.experiments,) if isinstance(self.experiments, str) else tuple(map(str, self.experiments))
            if not exps:
                raise InvalidValueError("`experiments` is empty")
            object.__setattr__(self, "experiments", exps)

    @property
    def against_ground_truth(self) -> bool:
        """Whether every observer is a candidate scored against the ground truth (metric ``"accuracy"``)."""
        return self.metric in GROUND_TRUTH_METRICS

    def replace(self, **changes: Any) -> Protocol:
        """A copy with some fields changed (``name`` is kept unless given).

        Parameters
        ----------
        **changes
            New values of fields of the protocol (``experiments``, ``exclude``,
            ``aggregation``, ``metric``, ``min_items``, ``name``, ...); checked as in the
            constructor.

        Returns
        -------
        Protocol
            The new protocol; this one is unchanged.

        Examples
        --------
        >>> from trialwise.leaderboards import MODEL_VS_HUMAN
        >>> cue = MODEL_VS_HUMAN.replace(experiments=["cue-conflict"], min_items=10)
        >>> cue.name, cue.experiments, cue.min_items
        ('model-vs-human', ('cue-conflict',), 10)
        """
        return replace(self, **changes)

    def averaging(self) -> str:
        """The aggregation order in words, e.g. ``"mean over references → mean over conditions"``.

        Returns
        -------
        str
            Without the reference level under a ground-truth metric (one reference, the oracle).

        Examples
        --------
        >>> from trialwise.leaderboards import FLAT
        >>> FLAT.averaging()
        'mean over references → mean over conditions'
        """
        return " → ".join(f"mean over {a}s" for a in self.aggregation
                          if not (self.against_ground_truth and a == "reference"))

    def describe(self, experiments: Sequence[str] | None = None) -> str:
        """One line: metric, aggregation order and exclusions (of ``experiments`` only, if given).

        Parameters
        ----------
        experiments : sequence of str, optional
            Count only the excluded conditions of these experiments (default: all).

        Returns
        -------
        str
            The description, e.g. for a leaderboard's report.

        Examples
        --------
        >>> from trialwise.leaderboards import MODEL_VS_HUMAN
        >>> print(MODEL_VS_HUMAN.describe(["colour"]))
        model-vs-human: error-consistency per condition and human–candidate pair; mean over references → mean over conditions → mean over experiments; 1 condition(s) excluded; pairs sharing < 20 items left out
        """
        n_ex = sum(len(v) for e, v in self.exclude.items() if experiments is None or e in experiments)
        order = self.averaging()
        if self.against_ground_truth:
            return (f"{self.name}: {self.metric} per condition and observer (against the ground truth); {order}; "
                    f"{n_ex} condition(s) excluded; observers with < {self.min_items} item(s) in a condition left "
                    f"out of it")
        return (f"{self.name}: {self.metric} per condition and {self.reference}–candidate pair; {order}; "
                f"{n_ex} condition(s) excluded; pairs sharing < {self.min_items} items left out")


def _condition_map(value: Any, name: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"`{name}` must map experiment names to condition lists; got {type(value).__name__}")
    out = {}
    for exp, conds in value.items():
        if isinstance(conds, str) or not isinstance(conds, Sequence | set | frozenset):
            raise InvalidTypeError(f"`{name}[{exp!r}]` must be a list of condition names (text); got {conds!r}")
        out[str(exp)] = tuple(str(c) for c in conds)
    return out


#: The model-vs-human benchmark (Geirhos et al. 2021; ``modelvshuman/plotting/plot.py``):
#: κ per condition, mean over humans, then conditions, then experiments, without the
#: control conditions and those where mean human accuracy is below 0.2.
MODEL_VS_HUMAN = Protocol(
    name="model-vs-human",
    experiments=("colour", "contrast", "cue-conflict", "edge", "eidolonI", "eidolonII", "eidolonIII", "false-colour",
                 "high-pass", "low-pass", "phase-scrambling", "power-equalisation", "rotation", "silhouette",
                 "sketch", "stylized", "uniform-noise"),
    exclude={
        "colour": ("cr",),
        "contrast": ("c100", "c03", "c01"),
        "high-pass": ("inf", "0.55", "0.45", "0.4"),
        "low-pass": ("0", "15", "40"),
        "phase-scrambling": ("0", "150", "180"),
        "power-equalisation": ("0",),
        "false-colour": ("true",),
        "rotation": ("0",),
        "eidolonI": ("1-10-10", "64-10-10", "128-10-10"),
        "eidolonII": ("1-3-10", "32-3-10", "64-3-10", "128-3-10"),
        "eidolonIII": ("1-0-10", "16-0-10", "32-0-10", "64-0-10", "128-0-10"),
        "uniform-noise": ("0.00", "0.60", "0.90"),
    },
)

#: Seed 000, App. H: the same conditions, averaged over all conditions at once.
FLAT = MODEL_VS_HUMAN.replace(name="flat", aggregation=("reference", "condition"))

#: Geirhos et al. (ICLR 2019), the bundled ``texture_vs_shape()`` data: κ between each model
#: and each human on the **cue-conflict**, **edge** and **silhouette** experiments (one
#: condition each, nothing excluded), mean over humans, then over the three experiments —
#: the same three experiments, with the same human trials, that model-vs-human takes from
#: this study. Left out, with the reason in the leaderboard's ``excluded``: ``original``,
#: ``grayscale`` and ``texture`` (stimuli chosen so that the paper's networks classify
#: them correctly: the Caffe models and ResNet-50 are 99-100 % correct, and κ of an observer
#: who is always right is 0 or undefined by construction); ``cue-conflict-content-guessing`` and
#: ``cue-conflict-texture-guessing`` (humans were told to report the shape or the texture,
#: while correctness is scored against the shape; the models' rows repeat cue-conflict);
#: ``texture-filled-rotated`` (each human saw a random 160 of the 1280 images, 9-24 per
#: rotation angle, and two humans share 0-8 images per angle, 11-37 overall: most pairs fall
#: below any minimum of shared items and the human–human row would be empty; add it with
#: ``TEXTURE_VS_SHAPE.replace(experiments=[..., "texture-filled-rotated"])`` for
#: human–model comparisons). Models that lack edge and silhouette (four of the eight) are
#: listed as not scored; ``.replace(experiments=["cue-conflict"])`` ranks all eight. Shape
#: bias, the analysis these experiments were made for, is :func:`trialwise.shape_bias`.
TEXTURE_VS_SHAPE = Protocol(name="texture-vs-shape", experiments=("cue-conflict", "edge", "silhouette"))

#: The accuracy leaderboard: every observer is a candidate (``observer_type`` is not used),
#: scored by its accuracy per condition, averaged over the conditions of each experiment,
#: then over experiments (each experiment weighs the same, whatever its number of
#: conditions and items); every condition and experiment of the trials counts. Restrict
#: or exclude with :meth:`Protocol.replace`; ``MODEL_VS_HUMAN.replace(metric="accuracy")``
#: keeps model-vs-human's conditions.
ACCURACY = Protocol(name="accuracy", metric="accuracy", min_items=1)

#: Protocols known by name (``protocol="model-vs-human"``); ``"all-conditions"`` keeps
#: every condition with the model-vs-human averaging.
PROTOCOLS = {
    "model-vs-human": MODEL_VS_HUMAN,
    "flat": FLAT,
    "all-conditions": MODEL_VS_HUMAN.replace(name="all-conditions", exclude={}),
    "texture-vs-shape": TEXTURE_VS_SHAPE,
    "accuracy": ACCURACY,
}


def get_protocol(protocol: str | Protocol) -> Protocol:
    """A :class:`Protocol` from itself or from its name in :data:`PROTOCOLS`.

    Parameters
    ----------
    protocol : str or Protocol
        A protocol, or the name of one of :data:`PROTOCOLS` (``"model-vs-human"``,
        ``"accuracy"``, ``"flat"``, …).

    Returns
    -------
    Protocol

    Examples
    --------
    >>> import trialwise as tw
    >>> tw.leaderboards.get_protocol("model-vs-human") is tw.leaderboards.MODEL_VS_HUMAN
    True
    """
    if isinstance(protocol, Protocol):
        return protocol
    if isinstance(protocol, str) and protocol in PROTOCOLS:
        return PROTOCOLS[protocol]
    if not isinstance(protocol, str):
        raise InvalidTypeError(f"`protocol` must be a Protocol or one of {', '.join(map(repr, PROTOCOLS))}; "
                        f"got {type(protocol).__name__}")
    raise InvalidValueError(f"`protocol` must be a Protocol or one of {', '.join(map(repr, PROTOCOLS))}; got {protocol!r}")


#: The title of a leaderboard scored by the protocol built from the trials, unless a name is given.
TRIALS_NAME = "your trials"
#: Named protocols that are an averaging order of model-vs-human's conditions rather than a
#: set of experiments: on trials holding none of model-vs-human's experiments they score every
#: experiment and condition of the trials, averaged their way.
_AVERAGINGS = ("flat", "all-conditions")


def protocol_for_trials(protocol: str | Protocol | None, trials_experiments: Sequence[str], *,
                        name: str | None = None, experiments: Sequence[str] | None = None) -> Protocol:
    """The protocol to score trials by: the named one, or one built from the trials.

    With ``protocol=None`` (none named) the default is model-vs-human
    (:data:`MODEL_VS_HUMAN`) when every experiment in play (``experiments``, else all the
    trials hold) is one of its experiments; otherwise (experiments of the user's own,
    alone or beside some of model-vs-human's, which are then not left out) a protocol of every experiment
    and condition in play, nothing excluded, with model-vs-human's averaging, reference
    group and ``min_items`` (the same numbers model-vs-human gives on experiments it has
    no exclusions for), titled ``name`` (default :data:`TRIALS_NAME`) and marked
    ``from_trials="model-vs-human"``. ``"flat"`` and ``"all-conditions"`` are averaging
    orders: on trials without model-vs-human's experiments they are built from the trials
    the same way, keeping their averaging (titled ``"<name> (flat)"``); on trials holding some
    of model-vs-human's experiments they are used as they are (their experiments). Any other protocol
    is returned as it is (restricted to ``experiments`` if given); one none of whose
    experiments the trials hold is an error when it is applied, naming the fix.

    Parameters
    ----------
    protocol : Protocol, str or None
        The protocol the user named, or None.
    trials_experiments : sequence of str
        The experiments the trials hold.
    name : str, optional
        The title of a protocol built from the trials (e.g. the file's name).
    experiments : sequence of str, optional
        Only these experiments (the command line's ``--experiments``).

    Returns
    -------
    Protocol

    Examples
    --------
    >>> p = protocol_for_trials(None, ["all"], name="trials.csv")
    >>> p.name, p.experiments, p.from_trials, dict(p.exclude)
    ('trials.csv', None, 'model-vs-human', {})
    >>> protocol_for_trials(None, ["colour", "edge"]).name
    'model-vs-human'
    >>> protocol_for_trials(None, ["colour", "mine"]).name    # an experiment of one's own: none is left out
    'your trials'
    >>> protocol_for_trials("flat", ["all"]).aggregation
    ('reference', 'condition')
    """
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise InvalidTypeError(f"`name` must be a non-empty string; got {name!r}")
    in_play = [str(e) for e in (trials_experiments if experiments is None else experiments)]
    if protocol is None:
        base, averaging = MODEL_VS_HUMAN, False
    else:
        base = get_protocol(protocol)
        averaging = base.name in _AVERAGINGS  # by name: also a replace()d copy (tw.leaderboards.FLAT.replace(min_items=10))
        if not averaging:
            return base if experiments is None else base.replace(experiments=experiments)
    known = set(in_play) & set(MODEL_VS_HUMAN.experiments or ())
    # none named: model-vs-human only where every experiment is one of its own (none of the user's is
    # left out); a named averaging order (flat, all-conditions) keeps its experiments where there are any
    if known and (averaging or known == set(in_play)):
        return base if experiments is None else base.replace(experiments=experiments)
    title = name or TRIALS_NAME
    return Protocol(name=title if protocol is None else f"{title} ({base.name})", aggregation=base.aggregation,
                    reference=base.reference, metric=base.metric, min_items=base.min_items,
                    experiments=None if experiments is None else tuple(experiments), from_trials=base.name)
