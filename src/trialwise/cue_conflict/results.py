"""The results of :func:`trialwise.shape_bias`: every observer's and group's shape bias with its interval (ShapeBiasResult), and the difference of two rows (ShapeBiasDifferenceResult).

Both come from one bootstrap over the images shared by all observers, so a difference of two rows
has its joint uncertainty.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.format import format_number
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._stats.intervals import percentile_interval
from trialwise._stats.monte_carlo import monte_carlo_pvalue, monte_carlo_test
from trialwise._stats.streams import records_seed
from trialwise._stats.tables import agreement_table

__all__ = ["ShapeBiasResult", "ShapeBiasDifferenceResult", "DIFFERENCE_TESTS", "FRAME_COLUMNS", "CATEGORY_COLUMNS"]


#: Tests of H0 "two rows have the same shape bias": ``bootstrap`` (any two rows) and
#: ``swap`` (two observers who saw the same images; H0: the two are exchangeable).
ShapeBiasTest = Literal["bootstrap", "swap"]


DIFFERENCE_TESTS: tuple[ShapeBiasTest, ...] = get_args(ShapeBiasTest)
#: How an answer on a cue-conflict image is coded in ``responses`` (UNSEEN: the observer did not see it).
OTHER, SHAPE, TEXTURE, UNSEEN = 0, 1, 2, -1


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

    statistic: float = field(metadata=shown("difference", in_repr=True, repr_name="Δ"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, detail="{ci_method}, images resampled jointly, B = {n_resamples}"))
    pvalue: float = field(metadata=shown("p-value", in_repr=True, repr_name="p", format="pvalue", method="test", detail=lambda res: (f"{res.n_null_resamples} swaps" if res.test == "swap"
                                              else f"B = {res.n_resamples}") + f"; H0: {res.null}"))
    test: str
    null: str
    observer_a: str
    observer_b: str
    shape_bias_a: float = field(metadata=shown("shape bias a, b"))
    shape_bias_b: float = field(metadata=shown("shape bias a, b"))
    confidence_level: float
    ci_method: str
    n_resamples: int
    n_null_resamples: int
    n_undefined: int = field(metadata=shown("undefined replicates", format="replicates"))
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("observer_a", "observer_b", "statistic", "ci_low", "ci_high", "confidence_level", "pvalue",
                     "test", "shape_bias_a", "shape_bias_b", "ci_method", "n_resamples", "n_null_resamples",
                     "n_undefined")
    repr_prefix = "{observer_a} − {observer_b}:"
    summary_title = "Difference in shape bias: {observer_a} − {observer_b}"


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
    groups: dict = field(metadata=shown("groups", format="count"))
    experiment: str = field(metadata=shown("experiment", in_repr=True, repr_name="", format="text"))
    n_images: int = field(metadata=shown(
        "cue-conflict images", in_repr=True, repr_name="images", format="int",
        detail="{n_excluded_images} with shape = texture left out"))
    n_excluded_images: int
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    ci_method: str = field(metadata=shown(
        "intervals", in_repr=True, format="text",
        detail="images resampled within shape category, B = {n_resamples}"))
    n_resamples: int = field(metadata=shown(in_repr=True, repr_name="B", format="int"))
    notes: tuple = ()
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    responses: NDArray = field(default_factory=lambda: np.empty((0, 0), np.int8), compare=False)
    observers: tuple = field(default=(), metadata=shown("observers", in_repr=True, format="count"))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = FRAME_COLUMNS
    summary_title = "Shape bias: share of shape decisions among shape-or-texture answers"
    _dict_exclude = Result._dict_exclude + ("responses", "table", "categories")

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

    def human_group(self) -> str | None:
        """The group of the humans: a group named ``"human"`` or ``"humans"``, else None.

        ``groups="observer_type"`` of :func:`trialwise.shape_bias` makes one from the trials'
        ``observer_type``.

        Returns
        -------
        str or None

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> keep = trials["subject"].isin(["resnet50", "subject-01", "subject-02"])
        >>> tw.shape_bias(trials[keep], groups="observer_type", n_resamples=50, rng=0).human_group()
        'human'
        """
        return next((g for g in ("human", "humans") if g in (self.groups or {})), None)

    def ranked(self, *, members: bool = False, group: str | None = None):
        """The rows of ``table`` ordered by shape bias, the humans as one group.

        The observers and groups from the most shape-biased down (undefined ones last), with
        the members of the human group (:meth:`human_group`, or ``group``) left out: the
        group's row, its value with its interval, stands for them. ``members=True`` lists
        them too, by shape bias, right after their group's row. ``table`` itself keeps its
        order (observers as given or sorted, then the groups).

        Parameters
        ----------
        members : bool, default False
            Also list the human group's members, after its row.
        group : str, optional
            The group drawn as one (default: :meth:`human_group`).

        Returns
        -------
        pandas.DataFrame
            The columns of ``table`` plus ``member_of`` (the group a listed member belongs
            to, else ``""``).

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> keep = trials["subject"].isin(["resnet50", "vgg16-caffe", "subject-01", "subject-02"])
        >>> res = tw.shape_bias(trials[keep], groups="observer_type", n_resamples=200, rng=0)
        >>> res.ranked()[["observer", "kind", "shape_bias"]].round(3)
              observer      kind  shape_bias
        0        human     group       0.952
        1     resnet50  observer       0.221
        2        model     group       0.196
        3  vgg16-caffe  observer       0.172
        >>> list(res.ranked(members=True)["observer"])
        ['human', 'subject-01', 'subject-02', 'resnet50', 'model', 'vgg16-caffe']
        """
        import pandas as pd

        name = self.human_group() if group is None else group
        if name is not None and name not in (self.groups or {}):
            known = ", ".join(map(repr, self.groups or {})) or "it has none"
            raise InvalidValueError(f"`group` must name a group of the result ({known}); got {group!r}")
        t = self.table.assign(member_of="")
        inside = set(self.groups[name]) if name is not None else set()
        is_member = (t["kind"] == "observer") & t["observer"].isin(inside)
        order = t[~is_member].sort_values("shape_bias", ascending=False, kind="stable", na_position="last")
        if not members or name is None:
            return order.reset_index(drop=True)
        kids = t[is_member].sort_values("shape_bias", ascending=False, kind="stable", na_position="last")
        at = list(order["observer"]).index(name) + 1
        return pd.concat([order.iloc[:at], kids.assign(member_of=name), order.iloc[at:]], ignore_index=True)

    def _summary_details(self) -> list[str]:
        """One line per observer or group by shape bias, the human group's members indented under
        its row (its own table: a group says how many it holds).

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
        >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=200, rng=0)
        >>> print(res.summary().splitlines()[0])
        Shape bias: share of shape decisions among shape-or-texture answers
        """
        lines = [f"{'observer':<32} {'shape bias':>10}  {'CI':<16} {'shape':>6} {'texture':>7} {'other':>6}"]
        for r in self.ranked(members=True).itertuples():
            name = (f"  {r.observer}" if r.member_of else r.observer if r.kind == "observer"
                    else f"{r.observer} (group of {len(self.groups[r.observer])})")
            lines.append(f"{name:<32} {format_number(r.shape_bias):>10}  [{format_number(r.ci_low)}, {format_number(r.ci_high)}]"
                         f" {r.n_shape:>6} {r.n_texture:>7} {r.n_other:>6}")
        return lines

    def _dict_extra(self) -> dict[str, Any]:
        """``rows``: the table's records; ``groups`` as lists."""
        return {"rows": self.table.to_dict(orient="records"), "groups": {k: list(m) for k, m in self.groups.items()}}

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
        if np.any((ra == UNSEEN) != (rb == UNSEEN)):
            raise InvalidValueError(f"test='swap' needs two observers who saw the same images; {a!r} and {b!r} saw "
                             f"{int((ra != UNSEEN).sum())} and {int((rb != UNSEEN).sum())} images, "
                             f"{int(((ra != UNSEEN) & (rb != UNSEEN)).sum())} in common — use test='bootstrap'")
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
