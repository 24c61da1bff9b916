"""The per-image metrics of :class:`trialwise.brainscore.BehavioralBenchmark`: I1n and I2n, value delta, OST.

These metrics do not score a candidate's trials against the humans' trials condition by
condition (as error consistency and the accuracy metrics do); each compares one summary of the
candidate with the same summary of the humans, and :mod:`trialwise.brainscore.image_level`,
:mod:`~trialwise.brainscore.delta` and :mod:`~trialwise.brainscore.ost` compute it. This
module turns the benchmark's inputs into those functions' arguments and calls them, once per
candidate, all with one integer seed, so that every candidate is scored on the same splits and
the same bootstrap draws of the images (or, for value delta, of the humans' trials) and the
ceiling is the same number for all of them. It holds no arithmetic of the metrics.

What each metric takes (docs/brainscore.md, "Every metric through BehavioralBenchmark"):

* ``"i2n"``, ``"i1n"``: the humans are 2AFC (``distractor``) or K-way trials ``image, truth,
  response``; a candidate is a table of class probabilities indexed by image (or with an
  ``image`` column), one column per class; several candidates are a dict of such tables or one
  table with a ``candidate`` (or ``model``) column. Trials of a candidate are refused: one
  trial per image gives one-hot probabilities, whose rates of 0 and 1 put every d′ at the ±5
  clip.
* ``"value-delta"``: humans and candidates are trials tables (:func:`trialwise.read_trials`'s
  columns, or paths to them; the candidates named by ``subject``, each answering exactly the
  humans' images); the scalar of a set of trials is
  the mean of per-trial values, by default correctness (``correct``, else ``response ==
  truth``), or ``scalar(trials) -> values`` given by the user, applied alike to both sides.
* ``"ost"``: the humans are a table ``image, ost`` with one row per measurement (repeated
  measurements give the split-half ceiling); a candidate is a table ``image, ost`` (plus
  ``candidate`` for many) or a Series indexed by image.
"""

from __future__ import annotations

import dataclasses
import functools
from os import PathLike
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise.leaderboards.trials import as_trials
from trialwise.brainscore.results import BrainScoreResult, CeilingResult
from trialwise.brainscore.image_level import i1n, i2n
from trialwise.brainscore.ost import ost_correlation
from trialwise.brainscore.delta import value_delta
from trialwise.io.labels import code_labels

__all__ = ["IMAGE_METRICS", "ImageMetricScorer", "accuracy_values"]

#: The metrics of :class:`trialwise.brainscore.BehavioralBenchmark` computed by this module.
IMAGE_METRICS = ("i2n", "i1n", "value-delta", "ost")
#: Keyword options of each metric's function that a benchmark may pass on (``metric_options``).
OPTIONS = {
    "i2n": ("ceiling_method", "rate_correction", "kway_rate"),
    "i1n": ("ceiling_method", "rate_correction", "kway_rate"),
    "value-delta": ("scale",),
    "ost": ("ceiling_method", "ceiling"),
}
_NAME_COLUMNS = ("candidate", "model")


def accuracy_values(trials: Any) -> Any:
    """Per-trial correctness (1/0) of a trials table: its ``correct`` column, else ``response == truth``
    (by the rule of :mod:`trialwise.io.labels`).

    The default ``scalar`` of the value-delta benchmark: its mean is the accuracy.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trials with ``correct``, or with ``response`` and ``truth``.

    Returns
    -------
    numpy.ndarray of float

    Examples
    --------
    >>> import pandas as pd
    >>> accuracy_values(pd.DataFrame({"truth": ["a", "b"], "response": ["a", "a"]})).tolist()
    [1.0, 0.0]
    """
    if "correct" in trials.columns:
        return trials["correct"].to_numpy(dtype=float)
    missing = [c for c in ("response", "truth") if c not in trials.columns]
    if missing:
        raise InvalidValueError(f"value-delta's default scalar (accuracy) needs a `correct` column or `response` and "
                                f"`truth`; the trials lack {missing}")
    return code_labels({"response": trials["response"], "truth": trials["truth"]}).matches(
        "response", "truth").astype(float)


def _frame(x: Any, what: str):
    import pandas as pd

    if isinstance(x, pd.Series):
        return x.to_frame("ost")
    if not isinstance(x, pd.DataFrame):
        raise InvalidTypeError(f"{what} must be a pandas DataFrame (or a dict of them by candidate); got "
                               f"{type(x).__name__}")
    return x


def _by_candidate(x: Any, what: str) -> dict[str, Any]:
    """name → that candidate's table: from a dict, a table with a ``candidate``/``model`` column, or one table
    (named "model")."""
    if isinstance(x, Mapping):
        if not x:
            raise InvalidValueError(f"{what}: the dict of candidates is empty")
        return {str(k): _frame(t, f"{what}[{k!r}]") for k, t in x.items()}
    t = _frame(x, what)
    col = next((c for c in _NAME_COLUMNS if c in t.columns), None)
    if col is None:
        return {"model": t}
    if t.empty:
        raise InvalidValueError(f"{what}: the table has no rows")
    return {str(k): g.drop(columns=col) for k, g in t.groupby(col, sort=True)}


def _by_image(t: Any, what: str):
    """A table indexed by image (its ``image`` column moved to the index)."""
    return t.set_index("image") if "image" in t.columns else t


class ImageMetricScorer:
    """Scores candidates on one of :data:`IMAGE_METRICS` against fixed humans, all with one seed.

    Parameters
    ----------
    metric : {"i2n", "i1n", "value-delta", "ost"}
    humans : pandas.DataFrame
        The humans' trials (I1n/I2n, value delta) or OSTs (``image, ost``).
    n_resamples, n_splits, confidence_level, seed, brainscore_compatible
        Passed to the metric's function (``n_splits`` None: the function's default).
    scalar : callable, optional
        Value delta only: trials table → per-trial values (default :func:`accuracy_values`).
    options : mapping, optional
        Further keyword arguments of the metric's function (:data:`OPTIONS`).
    """

    def __init__(self, metric: str, humans: Any, *, n_resamples: int, n_splits: int | None, confidence_level: float,
                 seed: int, brainscore_compatible: bool, scalar: Callable[[Any], Any] | None = None,
                 options: Mapping[str, Any] | None = None) -> None:
        import pandas as pd

        self.metric = metric
        if not isinstance(humans, pd.DataFrame):
            raise InvalidTypeError(f"`humans` must be a pandas DataFrame for metric {metric!r}; got "
                                   f"{type(humans).__name__}")
        opts = dict(options or {})
        unknown = sorted(set(opts) - set(OPTIONS[metric]))
        if unknown:
            raise InvalidValueError(f"`metric_options` of metric {metric!r} may hold {list(OPTIONS[metric])}; got "
                                    f"{unknown}")
        if brainscore_compatible and metric not in ("i2n", "i1n"):
            raise InvalidValueError(f"`brainscore_compatible=True` applies to error-consistency, i2n and i1n; got "
                                    f"metric {metric!r}")
        if scalar is not None and metric != "value-delta":
            raise InvalidValueError(f"`scalar` applies to metric 'value-delta' only; got metric {metric!r}")
        if scalar is not None and not callable(scalar):
            raise InvalidTypeError(f"`scalar` must be a callable (trials table -> per-trial values); got "
                                   f"{v.show(scalar)}")
        self.scalar = scalar or accuracy_values
        #: The humans' names: a candidate may not be one of them (as for the trial-level metrics).
        self._human_names = frozenset(map(str, humans["subject"])) if "subject" in humans.columns else frozenset()
        #: The classes the humans' trials name: a candidate's probability columns must be among them.
        self._classes = frozenset(str(x) for c in ("truth", "response", "distractor") if c in humans.columns
                                  for x in humans[c].dropna().unique())
        self.humans = humans
        kw: dict[str, Any] = dict(n_resamples=n_resamples, confidence_level=confidence_level, rng=seed, **opts)
        if n_splits is not None:
            kw["n_splits"] = n_splits
        if metric in ("i2n", "i1n"):
            kw["brainscore_compatible"] = brainscore_compatible
            missing = [c for c in ("image", "truth", "response") if c not in humans.columns]
            if missing:
                raise InvalidValueError(f"`humans` of metric {metric!r} lack the column(s) {missing}; got columns "
                                        f"{list(humans.columns)}")
        elif metric == "value-delta":
            self._target = self._values(humans, "`humans`")
            self._human_images = frozenset(humans["image"]) if "image" in humans.columns else None
        else:
            missing = [c for c in ("image", "ost") if c not in humans.columns]
            if missing:
                raise InvalidValueError(f"`humans` of metric 'ost' lack the column(s) {missing} (one row per image "
                                        f"and measurement); got columns {list(humans.columns)}")
            per_image = humans.groupby("image", sort=True)["ost"].agg(list)
            width = int(per_image.map(len).max())
            self._images = per_image.index
            self._target = np.array([row + [np.nan] * (width - len(row)) for row in per_image], dtype=float)
        self._kw = kw

    def _values(self, trials: Any, what: str):
        values = v.as_float_array(self.scalar(trials), f"scalar of {what}")
        if values.ndim != 1:
            raise InvalidValueError(f"`scalar` must return one value per trial (1-D); got shape {values.shape} for "
                                    f"{what}")
        return values

    def candidates(self, x: Any) -> dict[str, Any]:
        """name → the argument of the metric's function for that candidate."""
        what = "candidate trials" if self.metric == "value-delta" else "candidates"
        if self.metric == "value-delta":
            t = as_trials(x if isinstance(x, (str, PathLike)) else _frame(x, what))
            groups = {k: g for k, g in t.groupby("subject", sort=True)} if "subject" in t.columns else {"model": t}
            for k, g in groups.items():
                have = frozenset(g["image"])
                if self._human_images is not None and have != self._human_images:
                    raise InvalidValueError(f"candidate trials: {k!r} must answer exactly the humans' "
                                            f"{len(self._human_images)} images (the scalars are compared on the same "
                                            f"stimuli); it lacks {len(self._human_images - have)} and has "
                                            f"{len(have - self._human_images)} other(s)")
            self.check_not_humans(groups)
            return {str(k): self._values(g, f"candidate {k!r}") for k, g in groups.items()}
        if self.metric in ("i2n", "i1n") and not isinstance(x, Mapping) and "response" in getattr(x, "columns", ()):
            raise InvalidValueError(f"metric {self.metric!r} scores a candidate's class probabilities per image (a "
                                    f"table indexed by image, one column per class); got a trials table (it has a "
                                    f"`response` column). One trial per image would give one-hot probabilities, "
                                    f"whose rates of 0 and 1 put every d′ at the ±5 clip")
        out = {}
        for name, t in _by_candidate(x, what).items():
            t = _by_image(t, f"{what} {name!r}")
            if self.metric == "ost":
                if "ost" not in t.columns:
                    raise InvalidValueError(f"{what} {name!r}: no column `ost` (one solution time per image); got "
                                            f"columns {list(t.columns)}")
                lack = self._images.difference(t.index)
                if len(lack):
                    raise InvalidValueError(f"{what} {name!r}: no OST for {len(lack)} of the humans' images, e.g. "
                                            f"{lack[0]!r}")
                if t.index.has_duplicates:
                    raise InvalidValueError(f"{what} {name!r}: more than one OST for an image, e.g. "
                                            f"{t.index[t.index.duplicated()][0]!r}")
                out[name] = t["ost"].reindex(self._images).to_numpy(dtype=float)
            else:
                other = [c for c in t.columns if str(c) not in self._classes]
                if self._classes and other:
                    raise InvalidValueError(f"{what} {name!r}: column(s) {other[:5]} are not classes of the human trials "
                                            f"(their truth/response/distractor labels); drop them (an index written "
                                            f"by DataFrame.to_csv shows up as 'Unnamed: 0')")
                ragged = [c for c in t.columns if t[c].isna().any()]
                if ragged:
                    raise InvalidValueError(f"{what} {name!r}: the class column(s) {ragged[:5]} have no probability "
                                            f"for some images (ragged classes); every image needs every class")
                out[name] = t
        self.check_not_humans(out)
        return out

    def check_not_humans(self, names: Any) -> None:
        """An ``InvalidValueError`` if a candidate has the name of a human of the benchmark."""
        clash = sorted(set(map(str, names)) & self._human_names)
        if clash:
            raise InvalidValueError(f"candidates: {clash[:5]} are humans of the benchmark (a human cannot be scored "
                                    f"against the humans it is part of); rename the candidate(s)")

    def score(self, name: str, data: Any) -> BrainScoreResult:
        """One candidate's result from the metric's function (observer = ``name``)."""
        if self.metric in ("i2n", "i1n"):
            fn = i2n if self.metric == "i2n" else i1n
            res = fn(data, self.humans, **self._kw)
        elif self.metric == "value-delta":
            res = value_delta(data, self._target, **self._kw)
        else:
            res = ost_correlation(data, self._target, **self._kw)
        return dataclasses.replace(res, observer=name)

    @functools.cached_property
    def ceiling(self) -> CeilingResult:
        """The humans' ceiling: the same for every candidate (it depends on the humans and the seed only)."""
        import pandas as pd

        if self.metric in ("i2n", "i1n"):
            # sorted classes: a candidate's columns are usually in this order, and the ceiling's arithmetic then runs
            # in the same order as when scoring it (other orders differ in the last bits only)
            classes = sorted(pd.unique(pd.concat([self.humans["truth"], self.humans["response"]])).tolist(), key=str)
            images = pd.unique(self.humans["image"])
            flat = pd.DataFrame(1.0 / len(classes), index=images, columns=classes)  # any model: the ceiling does not use it
            return self.score("humans", flat).ceiling
        if self.metric == "value-delta":
            return self.score("humans", self._target).ceiling
        fin = np.isfinite(self._target)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(fin, self._target, 0.0).sum(axis=1) / fin.sum(axis=1)
        return self.score("humans", mean).ceiling
