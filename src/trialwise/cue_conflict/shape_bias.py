"""Shape bias on texture–shape cue-conflict images (Geirhos et al. 2019), with uncertainty.

A cue-conflict image has the shape of one category and the texture of another; its id
names both, ``<shape><k>-<texture><j>`` (``airplane1-bicycle2``: shape airplane, texture
bicycle; texture-filled-rotated ids carry a rotation suffix, ``airplane1-bicycle2-108``).
Over the images whose two categories differ, an observer's **shape bias** is

    shape bias = #(response = shape) / (#(response = shape) + #(response = texture)),

the share of shape decisions among the answers that named either cue (Geirhos et al. 2019). A group's
shape bias pools its members' answers (``Σ shape / Σ (shape + texture)``), as the
published figures do for "humans". Images are the sampling unit: every interval, and every
difference of two rows, comes from one bootstrap over images shared by all observers.

Why this module is long: about 880 lines, all of one concept (parsing cue-conflict ids, the
estimator, its bootstrap over images, the difference test and their two result classes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.format import format_number, format_percent, format_pvalue
from trialwise._core.results import ConfidenceInterval, Result, jsonable, one_row_frame
from trialwise._stats.resampling import bootstrap_sums
from trialwise._stats.monte_carlo import monte_carlo_pvalue, monte_carlo_test
from trialwise._stats.streams import records_seed, child_rngs, child_seed
from trialwise._core.warnings import DegenerateDataWarning, UndefinedReplicatesWarning, warn
from trialwise.ec.inference import UNDEFINED_WARN_SHARE
from trialwise._stats.intervals import percentile_interval
from trialwise._stats.tables import agreement_table
from trialwise.io.trials import check_items, image_id, read_trials

__all__ = [
    "shape_bias",
    "parse_cue_conflict",
    "ShapeBiasResult",
    "ShapeBiasDifferenceResult",
    "CI_METHODS",
    "DEFAULT_CI_METHOD",
    "DIFFERENCE_TESTS",
    "CUE_CONFLICT_ID",
    "FRAME_COLUMNS",
    "CATEGORY_COLUMNS",
]

#: Interval methods: ``jeffreys`` (Bayesian bootstrap over images plus Jeffreys
#: pseudo-counts; the default) and ``percentile`` (ordinary bootstrap over images).
ShapeBiasCIMethod = Literal["jeffreys", "percentile"]
CI_METHODS: tuple[ShapeBiasCIMethod, ...] = get_args(ShapeBiasCIMethod)
#: The default interval method; ``docs/shape_bias.md`` shows its coverage.
DEFAULT_CI_METHOD: ShapeBiasCIMethod = "jeffreys"
#: Tests of H0 "two rows have the same shape bias": ``bootstrap`` (any two rows) and
#: ``swap`` (two observers who saw the same images; H0: the two are exchangeable).
ShapeBiasTest = Literal["bootstrap", "swap"]
DIFFERENCE_TESTS: tuple[ShapeBiasTest, ...] = get_args(ShapeBiasTest)
#: A cue-conflict image id: shape class and number, ``-``, texture class and number, and
#: optionally ``-<angle>`` (texture-filled-rotated).
CUE_CONFLICT_ID = re.compile(r"^(?P<shape>[^\d-]+)\d+-(?P<texture>[^\d-]+)\d+(?:-\d+)?$")

_OTHER, _SHAPE, _TEXTURE, _UNSEEN = 0, 1, 2, -1


def parse_cue_conflict(images: Any) -> tuple[NDArray, NDArray]:
    """The shape and texture category named by cue-conflict image ids.

    Parameters
    ----------
    images : array_like of str
        Ids like ``"airplane1-bicycle2"`` or ``"airplane1-bicycle2-108"``.

    Returns
    -------
    shape, texture : ndarray of object
        The two categories of each id; ``None`` where the id is not of that form.

    Examples
    --------
    >>> shape, texture = parse_cue_conflict(["airplane1-bicycle2", "knife2-cat2-108", "oven10"])
    >>> shape.tolist(), texture.tolist()
    (['airplane', 'knife', None], ['bicycle', 'cat', None])
    """
    ids = [str(x) for x in np.asarray(images, dtype=object).ravel()]
    shape = np.empty(len(ids), dtype=object)
    texture = np.empty(len(ids), dtype=object)
    for i, name in enumerate(ids):
        m = CUE_CONFLICT_ID.match(name)
        if m is not None:
            shape[i], texture[i] = m.group("shape"), m.group("texture")
    return shape, texture


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, repr=False)
class ShapeBiasDifferenceResult(Result):
    """Difference of two rows' shape bias, ``shape_bias_a − shape_bias_b``.

    Attributes
    ----------
    statistic : float
        The difference Δ (NaN when either shape bias is undefined).
    confidence_interval : ConfidenceInterval
        Equal-tailed interval of Δ over the joint replicates of the result it came from.
    pvalue : float
        Two-sided p-value of H0 (see ``test`` and ``null``).
    test : str
        ``bootstrap`` or ``swap``.
    null : str
        The null hypothesis the p-value tests, in words.
    observer_a, observer_b : str
    shape_bias_a, shape_bias_b : float
    confidence_level : float
    ci_method : str
    n_resamples : int
        Replicates behind the interval (and the bootstrap p-value).
    n_null_resamples : int
        Swaps behind the ``swap`` p-value (0 for ``bootstrap``).
    n_undefined : int
        Replicates in which Δ was undefined (left out).
    bootstrap_distribution : ndarray
        The replicate Δ's (NaN = undefined).
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    test: str
    null: str
    observer_a: str
    observer_b: str
    shape_bias_a: float
    shape_bias_b: float
    confidence_level: float
    ci_method: str
    n_resamples: int
    n_null_resamples: int
    n_undefined: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("observer_a", "observer_b", "statistic", "ci_low", "ci_high", "confidence_level", "pvalue",
                     "test", "shape_bias_a", "shape_bias_b", "ci_method", "n_resamples", "n_null_resamples",
                     "n_undefined")

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"ShapeBiasDifferenceResult({self.observer_a} − {self.observer_b}: Δ={format_number(self.statistic)}, "
                f"{format_percent(self.confidence_level)} CI [{format_number(ci.low)}, {format_number(ci.high)}], "
                f"p={format_pvalue(self.pvalue)} ({self.test}))")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result.

        Returns
        -------
        str
            Both shape biases, the difference, its interval and the p-value.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> diff = res.difference("resnet50", "subject-01")
        >>> print(diff.summary().splitlines()[2])
          difference           -0.741
        """
        ci = self.confidence_interval
        reps = (f"{self.n_null_resamples} swaps" if self.test == "swap" else f"B = {self.n_resamples}")
        return "\n".join([
            f"Difference in shape bias: {self.observer_a} − {self.observer_b}",
            f"  shape bias a, b      {format_number(self.shape_bias_a)}, {format_number(self.shape_bias_b)}",
            f"  difference           {format_number(self.statistic)}",
            f"  {format_percent(self.confidence_level) + ' CI':<21}[{format_number(ci.low)}, {format_number(ci.high)}]   "
            f"({self.ci_method}, images resampled jointly, B = {self.n_resamples})",
            f"  p-value              {format_pvalue(self.pvalue)}   ({self.test}, {reps}; H0: {self.null})",
        ])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with the columns ``frame_columns``.

        Returns
        -------
        pandas.DataFrame
            ``observer_a, observer_b, statistic, ci_low, ci_high, ...``.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> frame = res.difference("resnet50", "subject-01").to_frame()
        >>> frame[["observer_a", "observer_b", "statistic"]].round(3).values.tolist()
        [['resnet50', 'subject-01', -0.741]]
        """
        return one_row_frame(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the :meth:`to_frame` row and ``null`` (NaN as None).

        Returns
        -------
        dict
            The :meth:`to_frame` columns and ``null``, the null hypothesis tested.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> d = res.difference("resnet50", "subject-01").to_dict()
        >>> d["null"], round(d["statistic"], 3)
        ('equal shape bias', -0.741)
        """
        out = self.to_frame().iloc[0].to_dict()
        out["null"] = self.null
        out["seed"] = self.seed
        return jsonable(out)


#: Columns of :meth:`ShapeBiasResult.to_frame` (one row per observer, then per group).
FRAME_COLUMNS = ("observer", "kind", "shape_bias", "ci_low", "ci_high", "confidence_level", "n_shape",
                 "n_texture", "n_other", "n_images", "n_undefined", "ci_method")
#: Columns of :attr:`ShapeBiasResult.categories` (one row per observer or group and shape category).
CATEGORY_COLUMNS = ("observer", "kind", "category", "shape_bias", "ci_low", "ci_high", "n_shape", "n_texture",
                    "n_other", "n_images", "n_undefined")


@dataclass(frozen=True, repr=False)
class ShapeBiasResult(Result):
    """Shape bias of observers and groups with bootstrap intervals over images (:func:`shape_bias`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per observer, then per group: columns :data:`FRAME_COLUMNS`
        (``kind`` is ``"observer"`` or ``"group"``).
    categories : pandas.DataFrame
        The same per shape category (images resampled within their category):
        columns :data:`CATEGORY_COLUMNS`.
    groups : dict
        Group name → its members.
    experiment : str
        The experiment analysed (``""`` when the trials had none).
    n_images : int
        Cue-conflict images analysed (shape ≠ texture).
    n_excluded_images : int
        Images left out because their shape and texture category coincide (no conflict).
    confidence_level, ci_method, n_resamples
        As passed to :func:`shape_bias`.
    notes : tuple of str
        What was left out or undefined, and why.
    bootstrap_distribution : ndarray, shape (n_resamples, n_rows)
        Replicate shape bias of every row of ``table`` (NaN = undefined), from one
        set of image weights shared by all rows.
    responses : ndarray of int8, shape (n_images, n_observers)
        Each observer's answer to each analysed image: 1 shape, 2 texture, 0 neither,
        −1 not seen (images sorted by shape category, then id; used by the swap test).
    observers : tuple of str
        The observers, in the column order of ``responses``.
    """

    table: Any = field(compare=False)
    categories: Any = field(compare=False)
    groups: dict
    experiment: str
    n_images: int
    n_excluded_images: int
    confidence_level: float
    ci_method: str
    n_resamples: int
    notes: tuple = ()
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    responses: NDArray = field(default_factory=lambda: np.empty((0, 0), np.int8), compare=False)
    observers: tuple = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = FRAME_COLUMNS

    @property
    def statistic(self) -> NDArray:
        """Shape bias of every row of ``table``."""
        return self.table["shape_bias"].to_numpy(dtype=float)

    @property
    def confidence_interval(self) -> ConfidenceInterval:
        """Intervals of every row of ``table``."""
        return ConfidenceInterval(self.table["ci_low"].to_numpy(dtype=float),
                                  self.table["ci_high"].to_numpy(dtype=float))

    def __getitem__(self, name: str) -> float:
        """The shape bias of one observer or group."""
        return float(self.table["shape_bias"].to_numpy()[self._row(name)])

    def _row(self, name: str) -> int:
        names = list(self.table["observer"])
        if not isinstance(name, str) or name not in names:
            shown = ", ".join(names[:15]) + (" ..." if len(names) > 15 else "")
            raise InvalidValueError(f"no observer or group {name!r} in this result; found {shown}")
        return names.index(name)

    def __repr__(self) -> str:
        n_obs = int((self.table["kind"] == "observer").sum())
        return (f"ShapeBiasResult({self.experiment or 'trials'}: {n_obs} observer(s), {len(self.groups)} group(s), "
                f"{self.n_images} images, {format_percent(self.confidence_level)} CI {self.ci_method}, B={self.n_resamples})")

    __str__ = __repr__

    def to_frame(self):
        """One row per observer, then per group (columns :data:`FRAME_COLUMNS`).

        Returns
        -------
        pandas.DataFrame
            A copy of ``table``.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> res.to_frame()[["observer", "kind", "shape_bias"]].round(3).values.tolist()
        [['resnet50', 'observer', 0.221], ['subject-01', 'observer', 0.962]]
        """
        return self.table.reindex(columns=list(self.frame_columns)).copy()

    def summary(self) -> str:
        """A readable text block: every row with its interval and counts, then the notes.

        Returns
        -------
        str
            A header, one line per observer or group, then the notes.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> print(res.summary().splitlines()[0])
        Shape bias — cue-conflict: share of shape decisions among shape-or-texture answers
        """
        what = f" — {self.experiment}" if self.experiment else ""
        lines = [
            f"Shape bias{what}: share of shape decisions among shape-or-texture answers",
            f"{self.n_images} cue-conflict images ({self.n_excluded_images} with shape = texture left out); "
            f"{format_percent(self.confidence_level)} intervals: {self.ci_method}, images resampled within shape category, "
            f"B = {self.n_resamples}",
            f"{'observer':<32} {'shape bias':>10}  {'CI':<16} {'shape':>6} {'texture':>7} {'other':>6}",
        ]
        for r in self.table.itertuples():
            name = r.observer if r.kind == "observer" else f"{r.observer} (group of {len(self.groups[r.observer])})"
            lines.append(f"{name:<32} {format_number(r.shape_bias):>10}  [{format_number(r.ci_low)}, {format_number(r.ci_high)}]"
                         f" {r.n_shape:>6} {r.n_texture:>7} {r.n_other:>6}")
        lines += [f"Note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: settings, groups, ``rows`` (the table's records) and notes (NaN as None).

        Returns
        -------
        dict
            ``experiment``, ``n_images``, the resampling settings, ``groups``, ``rows``
            and ``notes``.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> d = res.to_dict()
        >>> d["n_images"], [row["observer"] for row in d["rows"]]
        (1200, ['resnet50', 'subject-01'])
        """
        rows = self.table.to_dict(orient="records")
        return jsonable({
            "experiment": self.experiment, "n_images": self.n_images, "n_excluded_images": self.n_excluded_images,
            "confidence_level": self.confidence_level, "ci_method": self.ci_method,
            "n_resamples": self.n_resamples, "groups": {k: list(m) for k, m in self.groups.items()},
            "rows": rows, "notes": list(self.notes), "seed": self.seed,
        })

    @records_seed
    def difference(self, a: str, b: str, *, test: ShapeBiasTest = "bootstrap",
                   n_resamples: int = 10000, rng: Any = None) -> ShapeBiasDifferenceResult:
        """Difference ``shape_bias(a) − shape_bias(b)`` with an interval and a p-value.

        Parameters
        ----------
        a, b : str
            Two rows of ``table`` (observers or groups).
        test : {"bootstrap", "swap"}
            ``bootstrap`` (default): H0 "a and b have the same shape bias"; the p-value is
            twice the smaller share of replicate differences on either side of 0,
            ``2 (1 + min(#{Δ* ≤ 0}, #{Δ* ≥ 0})) / (1 + B)`` (capped at 1): the smallest
            level at which the equal-tailed interval of Δ excludes 0. ``swap``: H0 "the
            two observers are exchangeable" — on every image, which of the two gave which
            answer is a coin flip; their answers are swapped per image with probability
            ½ and ``p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + M)``. Exact under that null, which is
            stronger than equal shape bias (it also equates their rates of "other"
            answers); only for two observers who saw the same images.
        n_resamples : int, default 10000
            Swaps M for ``test="swap"`` (the interval always uses this result's own B
            bootstrap replicates).
        rng : None, int or numpy.random.Generator
            For the swaps.

        Returns
        -------
        ShapeBiasDifferenceResult
            The interval always comes from the joint replicates of this result (the
            same image weights for both rows).

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.shape_bias(tw.datasets.texture_vs_shape("cue-conflict"), n_resamples=1000, rng=0)
        >>> d = res.difference("resnet50", "vgg16-caffe")
        >>> round(d.statistic, 3), d.pvalue < 0.05
        (0.049, True)
        """
        ia, ib = self._row(a), self._row(b)
        if ia == ib:
            raise InvalidValueError(f"`a` and `b` must be two different rows; got {a!r} twice")
        test = v.check_choice(test, "test", DIFFERENCE_TESTS)
        dist = self.bootstrap_distribution[:, ia] - self.bootstrap_distribution[:, ib]
        est = self.statistic[ia] - self.statistic[ib]
        ok = ~np.isnan(dist)
        lo, hi = percentile_interval(dist, self.confidence_level)
        n_perm = 0
        if test == "bootstrap":
            null = "equal shape bias"
            below, above = np.sum(dist[ok] <= 0), np.sum(dist[ok] >= 0)
            p = float(min(1.0, float(2.0 * monte_carlo_pvalue(min(below, above), ok.sum())))) if ok.any() else np.nan
        else:
            n_perm = v.check_positive_int(n_resamples, "n_resamples")
            null = "the two observers are exchangeable (answers swapped per image)"
            p = self._swap_pvalue(a, b, est, n_perm, v.check_rng(rng))
        if np.isnan(est):
            p = np.nan
        return ShapeBiasDifferenceResult(
            statistic=float(est), confidence_interval=ConfidenceInterval(float(lo), float(hi)), pvalue=float(p),
            test=test, null=null, observer_a=a, observer_b=b, shape_bias_a=float(self.statistic[ia]),
            shape_bias_b=float(self.statistic[ib]), confidence_level=self.confidence_level,
            ci_method=self.ci_method, n_resamples=self.n_resamples, n_null_resamples=n_perm,
            n_undefined=int((~ok).sum()), bootstrap_distribution=dist,
        )

    def _swap_pvalue(self, a: str, b: str, observed: float, m: int, gen: np.random.Generator) -> float:
        if a not in self.observers or b not in self.observers:
            group = a if a not in self.observers else b
            raise InvalidValueError(f"test='swap' swaps two observers' answers per image; {group!r} is a group — "
                             "use test='bootstrap'")
        ra, rb = self.responses[:, self.observers.index(a)], self.responses[:, self.observers.index(b)]
        if np.any((ra == _UNSEEN) != (rb == _UNSEEN)):
            raise InvalidValueError(f"test='swap' needs two observers who saw the same images; {a!r} and {b!r} saw "
                             f"{int((ra != _UNSEEN).sum())} and {int((rb != _UNSEEN).sum())} images, "
                             f"{int(((ra != _UNSEEN) & (rb != _UNSEEN)).sum())} in common — use test='bootstrap'")
        # Joint outcome counts n[x, y] (x: a's answer, y: b's; 0 other, 1 shape, 2 texture). A swap
        # moves an image from (x, y) to (y, x), so for each x < y the number left in (x, y) after the
        # swaps is Bin(n[x, y], ½) + Bin(n[y, x], ½): three pairs of binomials per swap.
        n = agreement_table(ra, rb, 3)  # images either did not see (code -1) are not counted
        def draw_null(g: np.random.Generator, size: int) -> NDArray:
            t = np.broadcast_to(n, (size, 3, 3)).copy()
            for x, y in ((0, 1), (0, 2), (1, 2)):
                kept = g.binomial(n[x, y], 0.5, size) + g.binomial(n[y, x], 0.5, size)
                t[:, x, y], t[:, y, x] = kept, n[x, y] + n[y, x] - kept
            sa, ta = t[:, 1, :].sum(axis=1), t[:, 2, :].sum(axis=1)
            sb, tb = t[:, :, 1].sum(axis=1), t[:, :, 2].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                return sa / (sa + ta) - sb / (sb + tb)

        # Six binomial calls per chunk: the seeded p-value depends on the chunk size, kept at 2**16.
        return float(monte_carlo_test(float(observed), draw_null, m, rng=gen, alternative="two-sided",
                                      batch=2**16).pvalue)


# --------------------------------------------------------------------------- input


def _select_experiment(trials, experiment: str | None, what: str):
    found = sorted(trials["experiment"].unique())
    if experiment is None:
        if len(found) > 1:
            raise InvalidValueError(f"{what} hold {len(found)} experiments ({', '.join(found)}); pass `experiment=` with "
                             f"the cue-conflict one (e.g. experiment='cue-conflict')")
        return trials, found[0]
    if not isinstance(experiment, str):
        raise InvalidTypeError(f"`experiment` must be a string; got {v.show(experiment)}")
    if experiment not in found:
        raise InvalidValueError(f"`experiment` must be one of {found}; got {experiment!r}")
    return trials[trials["experiment"] == experiment], experiment


def _select_observers(trials, observers: Any) -> tuple[Any, tuple[str, ...]]:
    found = sorted(trials["subject"].unique())
    if observers is None:
        return trials, tuple(found)
    names = [observers] if isinstance(observers, str) else list(observers)
    if not names or not all(isinstance(o, str) for o in names):
        raise InvalidTypeError(f"`observers` must be a list of observer names; got {v.show(observers)}")
    unknown = [o for o in names if o not in set(found)]
    if unknown:
        shown = ", ".join(found[:15]) + (" ..." if len(found) > 15 else "")
        raise InvalidValueError(f"`observers` names {unknown} that are not in the trials; found {shown}")
    if len(set(names)) != len(names):
        raise InvalidValueError(f"`observers` lists an observer twice: {names}")
    return trials[trials["subject"].isin(names)], tuple(names)


def _make_groups(trials, groups: Any, observers: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    notes: list[str] = []
    if groups is None:
        return {}, notes
    if isinstance(groups, str):
        if groups != "observer_type":
            raise InvalidValueError(f"`groups` must be None, 'observer_type' or a mapping of group name -> observers; "
                             f"got {groups!r}")
        types = trials.drop_duplicates("subject").set_index("subject")["observer_type"].to_dict()
        if not any(isinstance(t, str) and t for t in types.values()):
            raise InvalidValueError("groups='observer_type' but the trials have no observer_type column (or it is empty)")
        out: dict[str, tuple[str, ...]] = {}
        for kind in sorted({t for t in types.values() if isinstance(t, str) and t}):
            members = tuple(o for o in observers if types.get(o) == kind)
            if len(members) >= 2:
                out[kind] = members
            else:
                notes.append(f"observer_type {kind!r} has {len(members)} observer(s): no group formed")
    elif isinstance(groups, Mapping):
        out = {}
        for name, members in groups.items():
            if not isinstance(name, str) or not name:
                raise InvalidTypeError(f"`groups` keys must be non-empty group names; got {name!r}")
            if isinstance(members, str) or not isinstance(members, Sequence | set | frozenset):
                raise InvalidTypeError(f"`groups[{name!r}]` must be a list of observer names; got {v.show(members)}")
            members = tuple(members)
            unknown = [m for m in members if m not in observers]
            if not members or unknown:
                raise InvalidValueError(f"`groups[{name!r}]` must list observers of the analysis; "
                                 f"{'it is empty' if not members else f'unknown: {unknown}'}")
            if len(set(members)) != len(members):
                raise InvalidValueError(f"`groups[{name!r}]` lists an observer twice: {list(members)}")
            out[name] = members
    else:
        raise InvalidTypeError(f"`groups` must be None, 'observer_type' or a mapping of group name -> observers; "
                        f"got {v.show(groups)}")
    clash = sorted(set(out) & set(observers))
    if clash:
        raise InvalidValueError(f"`groups`: group name(s) {clash} are also observer names; rename the group(s)")
    return out, notes


def _file_name_ids(trials) -> tuple[Any, str | None]:
    """The trials with image ids read from file names (:func:`trialwise.io.image_id`) where the id is not a
    cue-conflict id but the file name holds one (``airplane1-bicycle2.png``, model-vs-human's
    ``0001_cl_s01_0_airplane_0_airplane1-bicycle2.png``), and a note saying so (None when none was)."""
    raw = trials["image"].astype(str)
    ok = raw.str.match(CUE_CONFLICT_ID.pattern).to_numpy(dtype=bool)
    if ok.all():
        return trials, None
    ids = image_id(raw)
    use = ~ok & ids.str.match(CUE_CONFLICT_ID.pattern).to_numpy(dtype=bool)
    if not use.any():
        return trials, None
    first = int(np.flatnonzero(use)[0])
    trials = trials.assign(image=np.where(use, ids.to_numpy(dtype=object), raw.to_numpy(dtype=object)))
    check_items(trials, "the trials, their image ids read from file names")
    return trials, (f"{int(use.sum())} image id(s) read from file names, as tw.io.image_id does (e.g. "
                    f"{raw.iloc[first]!r} → {ids.iloc[first]!r})")


def _case_hint(t, shape: NDArray, texture: NDArray, row_of_image: dict) -> tuple[list[str], str]:
    """Observers some of whose answers name an image's shape or texture category only in another letter case or
    with surrounding spaces (labels are compared as written), and an example."""
    import pandas as pd

    resp = t["response"].astype(str).to_numpy(dtype=object)
    ii = t["image"].map(row_of_image).to_numpy()
    r, sh, tx = (pd.Series(x, dtype=object).astype(str).str.strip().str.casefold().to_numpy(dtype=object)
                 for x in (resp, shape[ii], texture[ii]))
    near = ((r == sh) & (resp != shape[ii])) | ((r == tx) & (resp != texture[ii]))
    if not near.any():
        return [], ""
    i = int(np.flatnonzero(near)[0])
    meant = shape[ii][i] if r[i] == sh[i] else texture[ii][i]
    return sorted(set(t["subject"].to_numpy()[near])), f"{resp[i]!r} for {meant!r}"


def _cue_conflict_images(trials, image_column: str, truth_column: str):
    """Shape, texture and the id of every image; errors for ids that are not cue-conflict ids."""
    images = trials.drop_duplicates("image")[["image", "truth"]]
    shape, texture = parse_cue_conflict(images["image"].to_numpy())
    bad = np.array([s is None for s in shape])
    if bad.all():
        raise InvalidValueError(
            f"column {image_column!r} holds no cue-conflict image ids of the form '<shape><k>-<texture><j>' "
            f"(e.g. 'airplane1-bicycle2'); found e.g. {images['image'].iloc[0]!r}. Shape bias needs the "
            f"cue-conflict experiment (pass `experiment=`)")
    if bad.any():
        raise InvalidValueError(
            f"{int(bad.sum())} of {len(bad)} images in column {image_column!r} are not cue-conflict ids "
            f"'<shape><k>-<texture><j>', e.g. {images['image'].to_numpy()[bad][0]!r}")
    truth = images["truth"].to_numpy(dtype=object)
    has_truth = np.array([t not in ("", "nan", None) for t in truth])
    wrong = has_truth & (truth != shape)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise InvalidValueError(f"image {images['image'].iloc[i]!r}: its id names shape {shape[i]!r} but column "
                         f"{truth_column!r} says {truth[i]!r} ({int(wrong.sum())} such image(s)); the truth of a "
                         f"cue-conflict image must be its shape category")
    return images["image"].to_numpy(dtype=object), shape, texture


# --------------------------------------------------------------------------- the estimator


def _ratio(s: NDArray, t: NDArray) -> NDArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s + t > 0, s / np.where(s + t > 0, s + t, 1.0), np.nan)


def _interval(dist: NDArray, est: NDArray, s: NDArray, t: NDArray, level: float, method: str):
    lo, hi = (np.atleast_1d(x) for x in percentile_interval(dist, level))
    if method == "jeffreys":
        # Brown, Cai & DasGupta (2001): at an estimate of 0 or 1 the Jeffreys interval's bound
        # on that side is the estimate itself, so that the interval contains it.
        lo = np.where((s == 0) & (t > 0), 0.0, lo)
        hi = np.where((t == 0) & (s > 0), 1.0, hi)
    undefined = np.isnan(est)
    return np.where(undefined, np.nan, lo), np.where(undefined, np.nan, hi)


def _analyse(responses: NDArray, shape: NDArray, member: NDArray, n_res: int, level: float, method: str,
             gen: np.random.Generator):
    """The estimator on a coded images × observers matrix (``_SHAPE``, ``_TEXTURE``, ``_OTHER``, ``_UNSEEN``).

    ``shape`` holds each image's shape category (the bootstrap strata); ``member`` (observers ×
    rows) says which observers each row pools. Returns the overall summary of every row
    (``n_shape, n_texture, n_other, n_images, estimate, low, high, n_undefined``), the same per
    category as ``(category, *summary)`` and the overall replicates, shape (n_res, n_rows).
    """
    s_item, t_item = (responses == _SHAPE).astype(np.int64), (responses == _TEXTURE).astype(np.int64)
    o_item, seen = (responses == _OTHER).astype(np.int64), (responses != _UNSEEN).astype(np.int64)
    k, n_rows = member.shape
    kind = "bayesian" if method == "jeffreys" else "multinomial"
    # One pseudo-count stream per row (child i of one SeedSequence, whatever the number of rows), so a
    # row's interval does not change when group rows (which come after the observers) are added.
    pseudo = child_rngs(child_seed(gen, bits=64), n_rows) if method == "jeffreys" else None

    def summarise(idx: NDArray, dist: NDArray):
        n_s, n_t, n_o = (np.rint(x[idx].sum(axis=0) @ member).astype(np.int64) for x in (s_item, t_item, o_item))
        n_seen = ((seen[idx] @ member) > 0).sum(axis=0).astype(np.int64)
        est = _ratio(n_s, n_t)
        lo, hi = _interval(dist, est, n_s, n_t, level, method)
        return n_s, n_t, n_o, n_seen, est, lo, hi, np.isnan(dist).sum(axis=0).astype(np.int64)

    def replicate_ratios(sums_s: NDArray, sums_t: NDArray) -> NDArray:
        if pseudo is not None:
            # Jeffreys pseudo-counts Gamma(½, 1), drawn as Z²/2 (the same law, and faster).
            noise = np.stack([g.standard_normal(size=(2, len(sums_s))) for g in pseudo], axis=-1)
            sums_s = sums_s + 0.5 * noise[0] ** 2
            sums_t = sums_t + 0.5 * noise[1] ** 2
        return _ratio(sums_s, sums_t)

    total_s = np.zeros((n_res, n_rows))
    total_t = np.zeros((n_res, n_rows))
    per_category = []
    for cat in sorted(set(shape)):
        # One call of the engine per shape category: images are resampled within their category.
        idx = np.flatnonzero(shape == cat)
        sums = bootstrap_sums(np.concatenate([s_item[idx], t_item[idx]], axis=1), n_res, rng=gen, kind=kind)
        cs, ct = sums[:, :k] @ member, sums[:, k:] @ member
        total_s += cs
        total_t += ct
        per_category.append((cat, *summarise(idx, replicate_ratios(cs, ct))))
    dist = replicate_ratios(total_s, total_t)
    return summarise(np.arange(len(responses)), dist), per_category, dist


@records_seed
def shape_bias(
    trials: Any,
    *,
    experiment: str | None = None,
    observers: Sequence[str] | None = None,
    groups: str | Mapping[str, Sequence[str]] | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: ShapeBiasCIMethod = DEFAULT_CI_METHOD,
    rng: Any = None,
    subject: str = "subject",
    image: str = "image",
    truth: str | None = None,
    response: str = "response",
) -> ShapeBiasResult:
    """Shape bias of every observer (and group) on cue-conflict images, with intervals.

    Parameters
    ----------
    trials : pandas.DataFrame, str or path
        One row per trial, as :func:`trialwise.read_trials` reads it (e.g.
        ``tw.datasets.texture_vs_shape("cue-conflict")``). Image ids must be cue-conflict
        ids ``<shape><k>-<texture><j>`` (optionally ``-<angle>``) or file names holding one
        (``airplane1-bicycle2.png``, model-vs-human's raw image names), read as
        :func:`trialwise.io.image_id` reads them (``notes`` says so); the truth column must
        be the shape category.
    experiment : str, optional
        The experiment to analyse; needed when the trials hold several.
    observers : list of str, optional
        Only these observers, in this order (default: all, sorted).
    groups : None, "observer_type" or mapping
        Pooled rows: ``"observer_type"`` forms one group per observer type with at least
        two observers (e.g. all humans); a mapping gives group name → members.
    n_resamples : int, default 10000
        Bootstrap replicates B.
    confidence_level : float, default 0.95
    ci_method : {"jeffreys", "percentile"}
        ``jeffreys`` (default): Bayesian bootstrap over images (Exp(1) weights) plus a
        Jeffreys pseudo-count, ``Gamma(½)``, on each row's shape and texture totals; for a
        single observer the replicates are then exactly draws of ``Beta(s + ½, t + ½)``,
        the Jeffreys posterior. ``percentile``: ordinary bootstrap over images.
    rng : None, int or numpy.random.Generator
    subject, image, truth, response : str
        Column names (``truth`` default: ``truth``, else ``category``).

    Returns
    -------
    ShapeBiasResult
        ``to_frame()`` has one row per observer and group: ``observer``, ``shape_bias``,
        ``ci_low``, ``ci_high``, ``n_shape``, ``n_texture`` and more; ``categories`` the
        same per shape category; ``difference(a, b)`` compares two rows.

    Raises
    ------
    ValueError
        The image ids are not cue-conflict ids (the message names the column and shows
        an example), an id's shape differs from its truth, the trials hold several
        experiments and none is chosen, or an observer or group name is unknown.

    Warns
    -----
    DegenerateDataWarning
        Some row never answered with the shape or the texture category: its shape bias
        is NaN (the rows are named in ``notes``). Also when answers name a cue only in
        another letter case or with surrounding spaces (``Bird`` for ``bird``): labels are
        compared as written, and the warning names the observers and an example.
    UndefinedReplicatesWarning
        ``percentile`` only: more than 1 % of a row's replicates had no shape or texture
        answer and were left out (``n_undefined``).

    Notes
    -----
    Images whose shape and texture category coincide carry no conflict and do not count
    (``n_excluded_images``); answers that name neither cue (other classes, or a human
    ``na``) are ``n_other``. A group pools its members: ``Σ shape / Σ (shape + texture)``
    (for the 1280-image set, with 75 conflict images per shape category, this equals the
    ratio of the category-averaged fractions that Geirhos et al.'s R code plots).

    **Uncertainty.** Images are resampled, not trials: one weight per image, shared by
    every observer, so that group and observer intervals and the differences of
    :meth:`ShapeBiasResult.difference` come from the same replicates. Images are resampled
    within their shape category (the stimulus set has a fixed number per category; the
    engine, :func:`trialwise._stats.resampling.bootstrap_sums`, is called once per category),
    which also gives the per-category intervals of ``categories``. With ``jeffreys`` the
    interval is the equal-tailed interval of the draws, with the bound at an estimate of
    exactly 0 or 1 set to the estimate (Brown, Cai & DasGupta 2001); its coverage is in
    ``docs/shape_bias.md``.

    References
    ----------
    Geirhos, R., Rubisch, P., Michaelis, C., Bethge, M., Wichmann, F. A. & Brendel, W.
    (2019). ImageNet-trained CNNs are biased towards texture; increasing shape bias
    improves accuracy and robustness. ICLR.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
    >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=2000, rng=0)
    >>> res.to_frame()[["observer", "shape_bias", "n_shape", "n_texture"]].round(3).values.tolist()
    [['resnet50', 0.221, 162, 572], ['subject-01', 0.962, 829, 33]]
    """

    level = v.check_confidence_level(confidence_level)
    method = v.check_choice(ci_method, "ci_method", CI_METHODS)
    n_res = v.check_positive_int(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    if experiment is not None and hasattr(trials, "columns") and "experiment" in trials.columns:
        chosen = trials["experiment"].astype(str) == experiment
        if chosen.any():  # else the full table, so that the error below lists the experiments found
            trials = trials[chosen]
    t = read_trials(trials, subject=subject, image=image, truth=truth, response=response)
    if truth is not None:
        truth_column = truth
    elif hasattr(trials, "columns"):
        truth_column = "truth" if "truth" in trials.columns else "category"
    else:
        truth_column = "truth (or category)"
    t, exp = _select_experiment(t, experiment, "the trials")
    t, obs = _select_observers(t, observers)
    group_map, notes = _make_groups(t, groups, obs)
    t, renamed = _file_name_ids(t)
    if renamed:
        notes.append(renamed)
    ids, shape, texture = _cue_conflict_images(t, image, truth_column)
    conflict = shape != texture
    n_excluded = int((~conflict).sum())
    if not conflict.any():
        raise InvalidValueError(f"every image in column {image!r} has the same shape and texture category "
                         f"(e.g. {ids[0]!r}): there is no cue conflict to measure")
    if n_excluded:
        notes.append(f"{n_excluded} image(s) whose shape and texture category coincide were left out "
                     f"(no cue conflict)")
    order = np.lexsort((ids[conflict].astype(str), shape[conflict].astype(str)))
    ids, shape, texture = ids[conflict][order], shape[conflict][order], texture[conflict][order]
    row_of_image = {name: i for i, name in enumerate(ids)}
    col_of_obs = {o: k for k, o in enumerate(obs)}
    t = t[t["image"].isin(row_of_image)]
    ii = t["image"].map(row_of_image).to_numpy()
    kk = t["subject"].map(col_of_obs).to_numpy()
    resp = t["response"].to_numpy(dtype=object)
    code = np.where(resp == shape[ii], _SHAPE, np.where(resp == texture[ii], _TEXTURE, _OTHER)).astype(np.int8)
    responses = np.full((len(ids), len(obs)), _UNSEEN, np.int8)
    responses[ii, kk] = code

    # Rows: the observers, then the groups, as columns of a membership matrix.
    names = list(obs) + list(group_map)
    kinds = ["observer"] * len(obs) + ["group"] * len(group_map)
    member = np.zeros((len(obs), len(names)))
    member[np.arange(len(obs)), np.arange(len(obs))] = 1
    for j, members in enumerate(group_map.values()):
        member[[col_of_obs[m] for m in members], len(obs) + j] = 1
    overall, per_category, dist = _analyse(responses, shape, member, n_res, level, method, gen)
    n_s, n_t, n_o, n_seen, est, lo, hi, n_undef = overall

    import pandas as pd

    table = pd.DataFrame({
        "observer": names, "kind": kinds, "shape_bias": est, "ci_low": lo, "ci_high": hi,
        "confidence_level": level, "n_shape": n_s, "n_texture": n_t, "n_other": n_o, "n_images": n_seen,
        "n_undefined": n_undef, "ci_method": method,
    }, columns=list(FRAME_COLUMNS))
    # each summary is n_shape, n_texture, n_other, n_images, estimate, low, high, n_undefined.
    cat_rows = [(name, kinds[j], cat, v_[4][j], v_[5][j], v_[6][j], v_[0][j], v_[1][j], v_[2][j], v_[3][j], v_[7][j])
                for j, name in enumerate(names) for cat, *v_ in per_category]
    categories = pd.DataFrame(cat_rows, columns=list(CATEGORY_COLUMNS))
    categories[["n_shape", "n_texture", "n_other", "n_images", "n_undefined"]] = \
        categories[["n_shape", "n_texture", "n_other", "n_images", "n_undefined"]].astype(np.int64)

    undefined = [n for n, e in zip(names, est) if np.isnan(e)]
    near, example = _case_hint(t, shape, texture, row_of_image)
    who = "their answers" if near and undefined and set(near) >= set(undefined) - set(group_map) else \
        f"answers of {', '.join(near[:5])}{f' and {len(near) - 5} more' if len(near) > 5 else ''}"
    case = (f"{who} name the shape or texture category only in another letter case or with surrounding spaces "
            f"(e.g. {example}); labels are compared as written, so such answers count as naming neither cue: write "
            f"them as the image ids do") if near else ""
    if undefined:
        msg = (f"shape bias undefined (NaN) for {len(undefined)} row(s) that never answered with the shape or the "
               f"texture category: {', '.join(undefined)}" + (f"; {case}" if case else ""))
        notes.append(msg)
        warn(msg, DegenerateDataWarning)
    elif near:
        notes.append(case)
        warn(case, DegenerateDataWarning)
    flagged = [n for n, e, u in zip(names, est, n_undef) if not np.isnan(e) and u / n_res > UNDEFINED_WARN_SHARE]
    if flagged:
        msg = (f"more than {100 * UNDEFINED_WARN_SHARE:g}% of the bootstrap replicates of {', '.join(flagged)} had "
               f"no shape or texture answer and were left out of the interval; how many is in `n_undefined`")
        notes.append(msg)
        warn(msg, UndefinedReplicatesWarning)
    return ShapeBiasResult(
        table=table, categories=categories, groups=group_map, experiment=exp if exp != "all" else "",
        n_images=len(ids), n_excluded_images=n_excluded, confidence_level=level, ci_method=method,
        n_resamples=n_res, notes=tuple(notes), bootstrap_distribution=dist, responses=responses, observers=obs,
    )
