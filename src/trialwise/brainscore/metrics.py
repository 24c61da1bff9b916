"""Brain-Score's metrics as objects with its call signatures, on xarray assemblies, with intervals.

Brain-Score calls a metric as ``metric(source, target)`` and a benchmark asks for
``metric.ceiling(target)``; both return a ``Score`` (a 0-d ``xarray.DataArray`` whose
``attrs`` hold ``error``). These classes do the same and add what Brain-Score lacks:
``attrs`` ``ci_low``, ``ci_high``, ``error`` (the bootstrap standard error),
``confidence_level`` and ``n_resamples``. The statistics are the library's functions
(:class:`~trialwise.brainscore.behavioral.BehavioralBenchmark`,
:func:`~trialwise.brainscore.delta.value_delta`,
:func:`~trialwise.brainscore.ost.ost_correlation`, :func:`~trialwise.brainscore.image_level.i2n`); this module only converts.

xarray is optional (``pip install "trialwise[xarray]"``).

Why this module is long: about 670 lines, five metric classes (error consistency, value
delta, OST, I2n, I1n) whose docstrings carry Brain-Score's call signatures and examples; each
class is a thin converter, and one module keeps the conversions (``score_array``, the
assembly readers) in one place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Note
from trialwise.brainscore.assembly import coordinate_values, coordinate_names, trials_from_assembly
from trialwise.brainscore.behavioral import ASSEMBLY_PROTOCOL, BehavioralBenchmark, BrainScoreResult
from trialwise.leaderboards.protocol import get_protocol
from trialwise.brainscore.ost import ost_correlation
from trialwise.brainscore.delta import BRAINSCORE_SCALE, delta_metric, value_delta
from trialwise._stats.streams import child_seed, rng_and_seed

__all__ = ["ErrorConsistency", "I1n", "I2n", "OSTCorrelation", "ValueDelta", "score_array"]


def score_array(value: float, ci: ConfidenceInterval, dist: NDArray, level: float, **attrs: Any) -> Any:
    """A 0-d ``xarray.DataArray`` like Brain-Score's ``Score``, its interval and bootstrap error in ``attrs``."""
    import xarray as xr

    dist = np.asarray(dist, dtype=float)
    finite = dist[np.isfinite(dist)]
    error = float(np.std(finite, ddof=1)) if finite.size > 1 else float("nan")
    return xr.DataArray(value, attrs={"ci_low": ci.low, "ci_high": ci.high, "confidence_level": level,
                                      "error": error, "n_resamples": dist.size, **attrs})


def _check_options(n_resamples: int, confidence_level: float) -> tuple[int, float]:
    return v.check_replicates(n_resamples), v.check_confidence_level(confidence_level)


class ErrorConsistency:
    """Error consistency as a Brain-Score metric: ``metric(source, target)`` and ``metric.ceiling(target)``.

    ``source``: a model's assembly (one observer: no ``subject`` coordinate, or one subject),
    ``target``: the human assembly (see :func:`trials_from_assembly`). Computes what
    Brain-Score's ``error_consistency`` metric computes — κ per subject and condition,
    averaged over the conditions, then over the subjects (:data:`ASSEMBLY_PROTOCOL`) — and
    returns it as a 0-d ``xarray.DataArray`` (like Brain-Score's ``Score``) whose
    ``attrs`` add what Brain-Score lacks: ``ci_low``, ``ci_high`` (bootstrap over
    images within conditions), ``error`` (the bootstrap standard error),
    ``confidence_level`` and ``n_resamples``. The sign is kept by default;
    ``brainscore_compatible=True`` takes ``abs`` of the mean, as Brain-Score does. The
    source is scored against every subject of the target, even one with its own name
    (Brain-Score's test scores subject A against A, B and C).

    Parameters
    ----------
    n_resamples, confidence_level, rng, brainscore_compatible
        As in :class:`BehavioralBenchmark`.
    min_items : int, optional
        The fewest images a subject and the source (or two subjects) must share in a
        condition for their κ to count (default the protocol's, 20: below about 20 a κ is
        mostly noise; :class:`~trialwise.leaderboards.protocol.Protocol`). Brain-Score has no
        such rule: ``min_items=1`` gives its number on assemblies with few images per
        condition.
    protocol : Protocol or str, optional
        Conditions and averaging (default :data:`ASSEMBLY_PROTOCOL`, Brain-Score's).
    experiment : str, optional
        The experiment of a target without an ``experiment`` coordinate, to apply a
        protocol's rules for it (:meth:`BehavioralBenchmark.from_assembly`).

    Examples
    --------
    Brain-Score's own test of its metric (``brainscore_vision/metrics/error_consistency/test.py``):
    3 subjects, 3 conditions of 3 images; subject A scored against all three.

    >>> import numpy as np, xarray as xr, trialwise as tw
    >>> labels = ["dog", "cat", "chair", "cat", "dog", "dog", "dog", "dog", "chair",
    ...           "cat", "cat", "chair", "cat", "dog", "cat", "chair", "cat", "cat",
    ...           "dog", "cat", "chair", "dog", "cat", "chair", "dog", "cat", "chair"]
    >>> target = xr.DataArray(labels, dims=["presentation"], coords={
    ...     "stimulus_id": ("presentation", np.resize(np.arange(9), 27)),
    ...     "truth": ("presentation", np.resize(["dog", "cat", "chair"], 27)),
    ...     "condition": ("presentation", np.resize([1, 1, 1, 2, 2, 2, 3, 3, 3], 27)),
    ...     "subject": ("presentation", ["A"] * 9 + ["B"] * 9 + ["C"] * 9)})
    >>> metric = tw.brainscore.ErrorConsistency(min_items=1, brainscore_compatible=True, n_resamples=200, rng=0)
    >>> round(float(metric(target[:9], target)), 3)   # Brain-Score: 0.2
    0.2
    """

    def __init__(self, *, n_resamples: int = 2000, confidence_level: float = 0.95, rng: Any = None,
                 brainscore_compatible: bool = False, min_items: int | None = None, protocol: Any = None,
                 experiment: str | None = None) -> None:
        self.n_resamples = v.check_replicates(n_resamples)
        self.confidence_level = v.check_confidence_level(confidence_level)
        if not isinstance(brainscore_compatible, (bool, np.bool_)):
            raise InvalidValueError(f"`brainscore_compatible` must be True or False; got {v.show(brainscore_compatible)}")
        self.brainscore_compatible = bool(brainscore_compatible)
        self.protocol = get_protocol(ASSEMBLY_PROTOCOL if protocol is None else protocol)
        if min_items is not None:
            self.protocol = self.protocol.replace(min_items=min_items)
        if experiment is not None and not isinstance(experiment, str):
            raise InvalidTypeError(f"`experiment` must be a string; got {v.show(experiment)}")
        self.experiment = experiment
        rng, self.seed = rng_and_seed(rng)  # recorded: rng=self.seed repeats every score
        self._entropy = child_seed(rng)

    def _bench(self, target: Any) -> BehavioralBenchmark:
        return BehavioralBenchmark.from_assembly(target, experiment=self.experiment, protocol=self.protocol,
                                                 n_resamples=self.n_resamples,
                                                 confidence_level=self.confidence_level, rng=self._entropy,
                                                 brainscore_compatible=self.brainscore_compatible)

    def __call__(self, source: Any, target: Any) -> Any:
        bench = self._bench(target)
        trials = trials_from_assembly(source, stimuli=bench.human_trials)
        names = trials["subject"].unique()
        if len(names) != 1:
            raise InvalidValueError(f"`source` must hold one observer's responses; its `subject` coordinate names "
                                    f"{len(names)} ({', '.join(map(repr, names[:4]))}{', …' if len(names) > 4 else ''})"
                                    f": select one, e.g. source.sel(subject=...)")
        name, n = "source", 0
        while name in bench.humans:  # a subject of the target scored against all of them, as in Brain-Score
            n += 1
            name = f"source-{n}"
        res = bench(trials.assign(subject=name))
        return score_array(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level)

    def ceiling(self, target: Any) -> Any:
        """The human–human ceiling of a human assembly, as a 0-d ``xarray.DataArray`` with its CI.

        Parameters
        ----------
        target : xarray.DataArray
            The humans' assembly (see :func:`trials_from_assembly`).

        Returns
        -------
        xarray.DataArray
            The ceiling (κ between every two distinct humans, averaged as Brain-Score
            does); ``attrs`` hold ``ci_low``, ``ci_high``, ``error``, ``confidence_level``
            and ``n_resamples``.

        References
        ----------
        Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
        behaviour of CNNs and humans by measuring error consistency. NeurIPS.

        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> import trialwise as tw, xarray as xr
        >>> t = tw.datasets.model_vs_human("cue-conflict")
        >>> h = t[t.observer_type == "human"]
        >>> coords = {name: ("presentation", h[col].to_numpy()) for name, col in
        ...           [("stimulus_id", "image"), ("truth", "category"), ("condition", "condition"), ("subject", "subject")]}
        >>> humans = xr.DataArray(h["response"].to_numpy(), dims=["presentation"], coords=coords)
        >>> c = ErrorConsistency(n_resamples=200, rng=0).ceiling(humans)
        >>> round(float(c), 3), round(c.attrs["ci_low"], 3), round(c.attrs["ci_high"], 3)
        (0.331, 0.304, 0.357)
        """
        c = self._bench(target).ceiling
        return score_array(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level)


def _value(x: Any, name: str) -> tuple[Any, float | None]:
    """One side of a value delta: (the number or the trials, its standard error or None).

    A 0-d DataArray is a Brain-Score ``Score``: its ``attrs["error"]`` is the standard error
    when finite (Brain-Score's own ``ValueDelta`` sets it to NaN: then None, as for a plain
    number). A 1-D array or DataArray holds trials."""
    if hasattr(x, "dims") and hasattr(x, "attrs"):
        if len(x.dims) == 0:
            err = x.attrs.get("error")
            try:
                known = err is not None and bool(np.isfinite(float(err)))
            except (TypeError, ValueError):
                known = False
            return float(x.values), (float(err) if known else None)
        return np.asarray(x.values, dtype=float), None
    if isinstance(x, (str, bytes)) or x is None:
        raise InvalidTypeError(f"`{name}` must be a number, a Score (0-d DataArray) or trials; got {v.show(x)}")
    return v.as_float_array(x, name), None


_NO_SE = ("Brain-Score's value only: {which} without a standard error (as Brain-Score's benchmarks "
          "pass it; its ValueDelta gives error NaN), so no interval can be formed; give the trials, or the "
          "standard error (source_se / target_se, or a Score's attrs['error']) for one")


class ValueDelta:
    """Brain-Score's ``ValueDelta`` metric (Ferguson et al. 2024) with intervals: ``metric(source, target)``.

    ``source`` and ``target`` are each a plain number (as Brain-Score's Ferguson2024
    benchmark passes them), a Brain-Score ``Score`` (a 0-d ``DataArray``; a finite
    ``attrs["error"]`` is its standard error), or the trials whose mean it is (a 1-D array
    or DataArray, bootstrapped). Returns the raw value delta ``clip(exp(−scale·|s − t|), 0, 1)``
    as a 0-d ``DataArray`` whose ``attrs`` hold ``ci_low``, ``ci_high``, ``error``,
    ``confidence_level``, ``n_resamples`` and, as Brain-Score's, ``raw`` ``[s, t]``.
    A plain number (or a ``Score`` whose ``error`` is missing or NaN, as Brain-Score's own
    ``ValueDelta`` returns) without ``source_se`` / ``target_se`` given here has no
    standard error: the value is Brain-Score's, the interval and ``error`` are NaN,
    ``n_resamples`` is 0 and ``attrs["notes"]`` says why (a note of kind ``"undefined"``).
    ``metric.ceiling(target)`` is the split-half ceiling of the target's trials. All as
    :func:`trialwise.brainscore.delta`, whose docstring says how the intervals are formed.

    Parameters
    ----------
    scale : float, default 1.0
        Brain-Score's default (its Ferguson2024 benchmarks use 0.75).
    source_se, target_se : float, optional
        Standard errors of plain-number inputs.
    n_splits, n_resamples, confidence_level, rng
        As in :func:`trialwise.brainscore.delta`.

    Examples
    --------
    >>> import numpy as np, xarray as xr, trialwise as tw
    >>> metric = tw.brainscore.ValueDelta(n_resamples=1000, rng=0)
    >>> s = xr.DataArray(1.5, attrs={"error": 0.1})   # a Score with its error
    >>> t = xr.DataArray(1.0, attrs={"error": 0.05})
    >>> score = metric(s, t)
    >>> round(float(score), 4), score.attrs["raw"]
    (0.6065, [1.5, 1.0])

    Brain-Score's Ferguson2024 benchmark calls its metric with two plain floats; so can you:

    >>> vd = tw.brainscore.ValueDelta(scale=0.75)(1.5, 1.0)
    >>> round(float(vd), 5), vd.attrs["ci_low"], vd.attrs["notes"][0].kind   # Brain-Score: 0.68729
    (0.68729, nan, 'undefined')
    """

    def __init__(self, *, scale: float = BRAINSCORE_SCALE, source_se: float | None = None,
                 target_se: float | None = None, n_splits: int = 500, n_resamples: int = 2000,
                 confidence_level: float = 0.95, rng: Any = None) -> None:
        self.scale = float(v.check_positive(scale, "scale"))
        self.source_se, self.target_se = source_se, target_se
        self.n_splits = v.check_positive_int(n_splits, "n_splits")
        self.n_resamples, self.confidence_level = _check_options(n_resamples, confidence_level)
        rng, self.seed = rng_and_seed(rng)  # recorded: rng=self.seed repeats every score
        self._entropy = child_seed(rng)

    def _result(self, source: Any, target: Any) -> BrainScoreResult:
        s, s_se = _value(source, "source")
        t, t_se = _value(target, "target")
        return value_delta(s, t, scale=self.scale, source_se=self.source_se if s_se is None else s_se,
                           target_se=self.target_se if t_se is None else t_se, n_splits=self.n_splits,
                           n_resamples=self.n_resamples, confidence_level=self.confidence_level, rng=self._entropy)

    def __call__(self, source: Any, target: Any) -> Any:
        s, s_se = _value(source, "source")
        t, t_se = _value(target, "target")
        sides = (("source", s, s_se, self.source_se), ("target", t, t_se, self.target_se))
        bare = [name for name, x, se, given in sides if np.ndim(x) == 0 and se is None and given is None]
        if bare:  # Brain-Score's call with plain floats: its number, the interval undefined (not invented)
            import xarray as xr

            for name, x in (("source", s), ("target", t)):
                if np.ndim(x) == 0 and not np.isfinite(x):
                    raise InvalidValueError(f"`{name}` must be finite; got {float(x)!r}")
            means = [float(np.mean(x)) for x in (s, t)]
            which = f"`{bare[0]}` is a plain number" if len(bare) == 1 else "`source` and `target` are plain numbers"
            note = Note(_NO_SE.format(which=which), kind="undefined", values={"without_standard_error": bare})
            return xr.DataArray(float(delta_metric(np.asarray(means[0] - means[1]), self.scale)),
                                attrs={"ci_low": np.nan, "ci_high": np.nan, "confidence_level": self.confidence_level,
                                       "error": np.nan, "n_resamples": 0, "raw": means, "notes": (note,)})
        res = self._result(source, target)
        means = [float(np.mean(x)) for x in (s, t)]
        return score_array(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level, raw=means)

    def ceiling(self, target: Any) -> Any:
        """The split-half ceiling of the target's trials (1-D array or DataArray), with its interval.

        Parameters
        ----------
        target : array_like or xarray.DataArray
            The target's trials (at least 4).

        Returns
        -------
        xarray.DataArray
            0-d; ``attrs`` as for the metric's value.

        Examples
        --------
        >>> import numpy as np, trialwise as tw
        >>> humans = np.random.default_rng(1).random(400) < 0.75
        >>> c = tw.brainscore.ValueDelta(scale=0.75, n_resamples=500, rng=0).ceiling(humans)
        >>> c.attrs["ci_low"] <= float(c) <= c.attrs["ci_high"] <= 1
        True
        """
        t, _ = _value(target, "target")
        if np.ndim(t) != 1:
            raise InvalidValueError(f"`target` must hold trials (a 1-D array) for a split-half ceiling; got "
                                    f"{v.show(target)}")
        c = self._result(t, t).ceiling
        return score_array(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level)


def _osts(x: Any, name: str) -> tuple[Any, NDArray | None]:
    """OSTs as an array (images first) and the stimulus ids when ``x`` is a DataArray with them."""
    if hasattr(x, "dims") and hasattr(x, "coords"):
        if "presentation" not in x.dims:
            raise InvalidValueError(f"`{name}` must have a 'presentation' dimension (one entry per image); got "
                                    f"dims {tuple(x.dims)}")
        x = x.transpose("presentation", ...)
        return np.asarray(x.values, dtype=float), coordinate_values(x, ("stimulus_id",))
    return x, None


class OSTCorrelation:
    """Brain-Score's OST correlation (Kar et al. 2019) with intervals, given object solution times.

    ``metric(source_osts, target_osts)``: the Spearman ρ between a model's per-image OSTs
    and the target's, as Brain-Score's ``OSTCorrelation.correlate`` (images where either is
    NaN are left out). Unlike Brain-Score's metric, which fits decoders to the model's
    recordings over time bins to get the model's OSTs, this one takes the OSTs (this library
    fits no decoders). Both are ``DataArray`` objects along ``presentation`` with a
    ``stimulus_id`` coordinate (aligned by it, as Brain-Score's ``_align``) or plain arrays
    in the same image order; the target may have a second dimension of subjects or trials,
    whose per-image mean is the target and whose split halves give ``metric.ceiling(target)``.
    Returns 0-d ``DataArray`` objects with ``ci_low``, ``ci_high``, ``error``,
    ``confidence_level`` and ``n_resamples`` in ``attrs``; all as
    :func:`trialwise.brainscore.ost_correlation`.

    Parameters
    ----------
    ceiling_method, n_splits, n_resamples, confidence_level, rng
        As in :func:`trialwise.brainscore.ost_correlation`.

    Examples
    --------
    >>> import numpy as np, xarray as xr, trialwise as tw
    >>> g = np.random.default_rng(0)
    >>> true = g.normal(100, 20, 80)
    >>> ids = [f"im{i}" for i in range(80)]
    >>> target = xr.DataArray(true[:, None] + g.normal(0, 15, (80, 6)), dims=["presentation", "subject"],
    ...                       coords={"stimulus_id": ("presentation", ids)})
    >>> source = xr.DataArray(true + g.normal(0, 15, 80), dims=["presentation"],
    ...                       coords={"stimulus_id": ("presentation", ids)})[::-1]   # another order
    >>> metric = tw.brainscore.OSTCorrelation(n_resamples=500, rng=0)
    >>> rho = metric(source, target)
    >>> rho.attrs["ci_low"] < float(rho) < rho.attrs["ci_high"]
    True
    """

    def __init__(self, *, ceiling_method: str = "attenuation", n_splits: int = 20, n_resamples: int = 2000,
                 confidence_level: float = 0.95, rng: Any = None) -> None:
        self.ceiling_method = v.check_choice(ceiling_method, "ceiling_method",  # at once, not at the first score
                                             ("split-half", "spearman-brown", "attenuation"))
        self.n_splits = v.check_positive_int(n_splits, "n_splits")
        self.n_resamples, self.confidence_level = _check_options(n_resamples, confidence_level)
        rng, self.seed = rng_and_seed(rng)  # recorded: rng=self.seed repeats every score
        self._entropy = child_seed(rng)

    def _result(self, source: Any, target: Any) -> BrainScoreResult:
        s, s_ids = _osts(source, "source_osts")
        t, t_ids = _osts(target, "target_osts")
        if s_ids is not None and t_ids is not None:
            where = {k: i for i, k in enumerate(s_ids)}
            missing = [k for k in t_ids if k not in where]
            if missing:
                raise InvalidValueError(f"`source_osts` lacks {len(missing)} stimulus_id(s) of `target_osts` "
                                        f"(e.g. {str(missing[0])!r})")
            s = np.asarray(s)[[where[k] for k in t_ids]]
        return ost_correlation(s, t, ceiling_method=self.ceiling_method,  # type: ignore[arg-type]
                               n_splits=self.n_splits, n_resamples=self.n_resamples,
                               confidence_level=self.confidence_level, rng=self._entropy)

    def __call__(self, source_osts: Any, target_osts: Any) -> Any:
        res = self._result(source_osts, target_osts)
        return score_array(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level)

    def ceiling(self, target_osts: Any) -> Any:
        """The split-half ceiling of the target's OSTs (images × subjects or trials), with its interval.

        Parameters
        ----------
        target_osts : array_like or xarray.DataArray
            Per image and subject / trial (NaN where missing or never solved).

        Returns
        -------
        xarray.DataArray
            0-d; ``attrs`` as for the metric's value.

        Examples
        --------
        >>> import numpy as np, trialwise as tw
        >>> g = np.random.default_rng(0)
        >>> osts = g.normal(100, 20, (80, 1)) + g.normal(0, 15, (80, 6))   # images × subjects
        >>> c = tw.brainscore.OSTCorrelation(n_resamples=500, rng=0).ceiling(osts)
        >>> 0 < c.attrs["ci_low"] <= float(c) <= c.attrs["ci_high"] <= 1
        True
        """
        t, _ = _osts(target_osts, "target_osts")
        if np.ndim(t) != 2:
            raise InvalidValueError(f"`target_osts` needs a second dimension of subjects or trials for a split-half "
                                    f"ceiling; got shape {np.shape(t)}")
        t = np.asarray(t, dtype=float)
        n = np.isfinite(t).sum(axis=1)
        per_image = np.where(n > 0, np.nansum(t, axis=1) / np.maximum(n, 1), np.nan)  # the target, as the source
        c = self._result(per_image, t).ceiling
        return score_array(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level)


def _coordinate(x: Any, names: tuple[str, ...], what: str) -> Any:
    found = coordinate_values(x, names)
    if found is None:
        raise InvalidValueError(f"`{what}` lacks a coordinate {' or '.join(repr(n) for n in names)}; got coordinates "
                                f"{sorted(coordinate_names(x))}")
    return found


def _per_split(values: NDArray) -> dict[str, Any]:
    """``attrs["raw"]``: the per-split values along ``split`` (0, 1, …), as Brain-Score's I2n keeps them; none
    when there are none (the Spearman–Brown ceiling)."""
    import xarray as xr

    if not len(values):
        return {}
    return {"raw": xr.DataArray(np.asarray(values, dtype=float), coords={"split": np.arange(len(values))},
                                dims=["split"])}


def _probabilities_frame(source: Any):
    """A model's ``(presentation, choice)`` probabilities as a DataFrame indexed by image, one column per class."""
    import pandas as pd

    if not (hasattr(source, "dims") and hasattr(source, "coords")):
        raise InvalidTypeError(f"`source_probabilities` must be an xarray.DataArray (presentation × choice); got "
                               f"{type(source).__name__}")
    if set(source.dims) != {"presentation", "choice"}:
        raise InvalidValueError(f"`source_probabilities` must have the dimensions ('presentation', 'choice'); got "
                                f"{tuple(source.dims)}")
    source = source.transpose("presentation", "choice")
    images = _coordinate(source, ("stimulus_id", "image_id"), "source_probabilities")
    choices = _coordinate(source, ("choice",), "source_probabilities")
    return pd.DataFrame(np.asarray(source.values, dtype=float), index=images, columns=choices)


def _human_frame(target: Any):
    """A Brain-Score human assembly (one chosen object per presentation) as the trials of :func:`i2n`."""
    import pandas as pd

    if not (hasattr(target, "dims") and hasattr(target, "coords")):
        raise InvalidTypeError(f"`target` must be an xarray.DataArray of human trials; got {type(target).__name__}")
    if tuple(target.dims) != ("presentation",):
        raise InvalidValueError(f"`target` must have the one dimension 'presentation'; got {tuple(target.dims)}")
    frame = pd.DataFrame({"image": _coordinate(target, ("stimulus_id", "image_id"), "target"),
                          "truth": _coordinate(target, ("sample_obj", "truth"), "target"),
                          "response": np.asarray(target.values)})
    distractor = coordinate_values(target, ("dist_obj", "distractor"))
    subject = coordinate_values(target, ("subject", "worker_id"))
    if distractor is not None:
        frame["distractor"] = distractor
    if subject is not None:
        frame.insert(0, "subject", subject)
    return frame


class _ImageLevelMetric:
    """I2n / I1n with Brain-Score's call signatures (``metric(source_probabilities, target)``, ``metric.ceiling(target)``)."""

    _collapse: bool

    def __init__(self, *, n_splits: int = 20, brainscore_compatible: bool = False, ceiling_method: str = "split-half",
                 rate_correction: str = "none", kway_rate: str = "share", n_resamples: int = 1000,
                 confidence_level: float = 0.95, rng: Any = None) -> None:
        if not isinstance(brainscore_compatible, (bool, np.bool_)):  # checked at once, not at the first score
            raise InvalidTypeError(f"`brainscore_compatible` must be True or False; got {v.show(brainscore_compatible)}")
        self.options: dict[str, Any] = dict(
            n_splits=v.check_positive_int(n_splits, "n_splits"), brainscore_compatible=bool(brainscore_compatible),
            ceiling_method=v.check_choice(ceiling_method, "ceiling_method", ("split-half", "spearman-brown")),
            rate_correction=v.check_choice(rate_correction, "rate_correction", ("none", "loglinear")),
            kway_rate=v.check_choice(kway_rate, "kway_rate", ("share", "pairwise")))
        self.n_resamples, self.confidence_level = _check_options(n_resamples, confidence_level)
        rng, self.seed = rng_and_seed(rng)  # recorded: rng=self.seed repeats every score
        self._entropy = child_seed(rng)

    def _result(self, probabilities: Any, trials: Any) -> BrainScoreResult:
        from trialwise.brainscore.image_level import i1n, i2n

        function = i1n if self._collapse else i2n
        return function(probabilities, trials, n_resamples=self.n_resamples,
                        confidence_level=self.confidence_level, rng=self._entropy, **self.options)

    def __call__(self, source_probabilities: Any, target: Any) -> Any:
        res = self._result(_probabilities_frame(source_probabilities), _human_frame(target))
        return score_array(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level,
                           **_per_split(res.split_values[:, 0]))

    @classmethod
    def aggregate(cls, scores: Any) -> Any:
        """Per-split values → their mean, with their SD over the splits in ``attrs["error"]``.

        What Brain-Score's Rajalingham2018 benchmark calls on its per-split ceiled scores
        (``ceil_score``: ``score.attrs["raw"]`` / √``ceiling.attrs["raw"]``, split by split).

        Parameters
        ----------
        scores : xarray.DataArray
            Values along a ``split`` dimension.

        Returns
        -------
        xarray.DataArray
            Their mean over ``split``; ``attrs["error"]`` their standard deviation.

        Examples
        --------
        >>> import trialwise as tw
        >>> probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=8, trials_per_image=80, rng=5)
        >>> metric = tw.brainscore.I2n(brainscore_compatible=True, n_resamples=50, rng=3)
        >>> score = metric(tw.brainscore.I2n.assembly(trials, probs), tw.brainscore.I2n.assembly(trials))
        >>> score.attrs["raw"].dims, bool(float(metric.aggregate(score.attrs["raw"])) == float(score))
        (('split',), True)
        """
        if not hasattr(scores, "dims") or "split" not in scores.dims:
            raise InvalidValueError(f"`scores` must be a DataArray with a 'split' dimension; got {v.show(scores)}")
        mean = scores.mean("split")
        mean.attrs["error"] = scores.std("split")
        return mean

    def ceiling(self, target: Any, skipna: bool = True) -> Any:
        """The split-half ceiling of the human trials (Brain-Score's ``metric.ceiling``), with its interval.

        Parameters
        ----------
        target : xarray.DataArray
            The human trials along ``presentation`` (coordinates ``stimulus_id``, ``sample_obj``
            or ``truth``, optionally ``dist_obj``).
        skipna : bool, default True
            Accepted because Brain-Score's benchmarks pass it (``ceiling(assembly,
            skipna=True)`` in its public Rajalingham2018 benchmark); it changes nothing.
            The ceiling always correlates the cells defined in both split halves. That is
            Brain-Score's ``skipna=True`` number, and also its ``skipna=False`` number
            whenever that one is defined: with ``skipna=False`` Brain-Score raises an
            AssertionError as soon as a cell is defined in one half only
            (docs/brainscore.md, "Where trialwise and Brain-Score differ").

        Returns
        -------
        xarray.DataArray
            0-d; ``attrs`` ``ci_low``, ``ci_high``, ``error``, ``confidence_level``, ``n_resamples``.

        Examples
        --------
        >>> import trialwise as tw
        >>> probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, rng=0)
        >>> humans = tw.brainscore.I2n.assembly(trials)
        >>> c = tw.brainscore.I2n(n_resamples=200, rng=0).ceiling(humans)
        >>> bool(c.attrs["ci_low"] <= float(c) <= c.attrs["ci_high"])
        True
        """
        import pandas as pd

        if not isinstance(skipna, (bool, np.bool_)):
            raise InvalidTypeError(f"`skipna` must be True or False; got {v.show(skipna)}")
        trials = _human_frame(target)
        classes = pd.unique(pd.concat([trials["truth"], trials["response"]]))
        uniform = pd.DataFrame(1.0 / len(classes), index=pd.unique(trials["image"]), columns=classes)
        res = self._result(uniform, trials)
        c = res.ceiling
        return score_array(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level,
                           **_per_split(res.split_values[:, 1]))

    @staticmethod
    def assembly(trials: Any, probabilities: Any = None) -> Any:
        """Brain-Score-style assemblies from the tidy tables of :func:`trialwise.brainscore.image_level`.

        ``trials`` (image, truth, response[, distractor, subject]) becomes the human
        assembly (``presentation`` with ``stimulus_id``, ``sample_obj``, ``dist_obj``,
        ``subject``); with ``probabilities`` (a DataFrame indexed by image, one column per
        class) the model's ``(presentation, choice)`` assembly is returned instead.

        Parameters
        ----------
        trials : pandas.DataFrame
        probabilities : pandas.DataFrame, optional

        Returns
        -------
        xarray.DataArray

        Examples
        --------
        >>> import trialwise as tw
        >>> probs, trials = tw.brainscore.synthetic_2afc(n_objects=3, images_per_object=2, rng=0)
        >>> tw.brainscore.I2n.assembly(trials).dims, tw.brainscore.I2n.assembly(trials, probs).dims
        (('presentation',), ('presentation', 'choice'))
        """
        import xarray as xr

        if probabilities is not None:
            return xr.DataArray(probabilities.to_numpy(dtype=float), dims=["presentation", "choice"],
                                coords={"stimulus_id": ("presentation", np.asarray(probabilities.index)),
                                        "choice": np.asarray(probabilities.columns)})
        coords = {"stimulus_id": ("presentation", trials["image"].to_numpy()),
                  "sample_obj": ("presentation", trials["truth"].to_numpy())}
        if "distractor" in trials.columns:
            coords["dist_obj"] = ("presentation", trials["distractor"].to_numpy())
        if "subject" in trials.columns:
            coords["subject"] = ("presentation", trials["subject"].to_numpy())
        return xr.DataArray(trials["response"].to_numpy(), dims=["presentation"], coords=coords)


class I2n(_ImageLevelMetric):
    """Brain-Score's I2n (Rajalingham et al. 2018) with intervals: ``metric(source_probabilities, target)``.

    ``source_probabilities``: a model's class probabilities, a ``DataArray`` with dimensions
    ``(presentation, choice)`` and coordinates ``stimulus_id`` and ``choice``, as Brain-Score
    passes them; ``target``: the human trials, one chosen object per ``presentation``, with
    ``stimulus_id``, ``sample_obj`` (the true object; or ``truth``) and, for 2AFC,
    ``dist_obj``. Returns the raw correlation as a 0-d ``DataArray`` whose ``attrs`` hold
    ``ci_low``, ``ci_high``, ``error``, ``confidence_level`` and ``n_resamples``;
    ``metric.ceiling(target)`` the split-half ceiling. All as :func:`trialwise.brainscore.image_level`,
    whose docstring says how the values and intervals are formed (``brainscore_compatible=True``
    gives Brain-Score's number).

    Parameters
    ----------
    n_splits, brainscore_compatible, ceiling_method, rate_correction, kway_rate, n_resamples, confidence_level, rng
        As in :func:`trialwise.brainscore.image_level`.

    Examples
    --------
    >>> import trialwise as tw
    >>> probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, rng=0)
    >>> model, humans = tw.brainscore.I2n.assembly(trials, probs), tw.brainscore.I2n.assembly(trials)
    >>> raw = tw.brainscore.I2n(n_resamples=200, rng=0)(model, humans)
    >>> ref = tw.brainscore.i2n(probs, trials, n_resamples=200, rng=tw.brainscore.I2n(rng=0)._entropy)
    >>> bool(abs(float(raw) - ref.raw) < 1e-12)
    True
    """

    _collapse = False


class I1n(_ImageLevelMetric):
    """Brain-Score's I1n (Rajalingham et al. 2018) with intervals; as :class:`I2n`, the distractors collapsed.

    Parameters
    ----------
    n_splits, brainscore_compatible, ceiling_method, rate_correction, kway_rate, n_resamples, confidence_level, rng
        As in :func:`trialwise.brainscore.i1n`.

    Examples
    --------
    >>> import trialwise as tw
    >>> probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, rng=0)
    >>> raw = tw.brainscore.I1n(n_resamples=200, rng=0)(tw.brainscore.I1n.assembly(trials, probs),
    ...                                                 tw.brainscore.I1n.assembly(trials))
    >>> -1 <= float(raw) <= 1
    True
    """

    _collapse = True
