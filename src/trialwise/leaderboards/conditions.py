"""Model-vs-human's figures with intervals: accuracy and agreement per condition and per dataset.

What model-vs-human users read beside the leaderboard (Geirhos et al. 2021): every observer's
accuracy against the condition of each parametric dataset (contrast, noise, eidolon, …; the
psychometric plots), the observed against the expected consistency, the error consistency per
condition, and the per-dataset table of accuracy difference, observed consistency and error
consistency. :func:`condition_breakdown` computes them from a :class:`~trialwise.leaderboards.Leaderboard`'s
design, with intervals from the library's one bootstrap (:mod:`trialwise._stats.resampling`):
within each condition the items (or clusters) are resampled jointly for every observer, as in
the leaderboard's own bootstrap, and every number below is recomputed on each replicate.

Per condition and row (a candidate, or the reference group's row):

* ``accuracy`` — a candidate's share correct; for the reference row, the mean of the
  reference observers' accuracies;
* ``accuracy-difference`` — a candidate's accuracy minus the reference row's (signed: model −
  human; undefined for the reference row);
* ``observed-consistency`` (c_obs), ``expected-consistency`` (c_exp = p_a·p_b + (1 − p_a)(1 − p_b))
  and ``error-consistency`` (κ) of each pair, averaged over the candidate's pairs with the
  reference observers (for the reference row: over the pairs of distinct reference observers),
  undefined pair values left out of the mean — the pairs the leaderboard scores.

Per dataset (experiment): the mean over its conditions of each per-condition value, on the
data and on every replicate (for the error consistency under model-vs-human's protocol this
is the leaderboard's per-experiment score, :meth:`~trialwise.leaderboards.Leaderboard.by_experiment`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import Result
from trialwise._core.shown import shown
from trialwise._stats.intervals import interval
from trialwise._stats.resampling import bootstrap_sums
from trialwise._stats.streams import records_seed
from trialwise._stats.blocks import run_blocks
from trialwise._stats.tables import pair_columns
from trialwise.leaderboards.hierarchy import Design

__all__ = ["ConditionBreakdown", "condition_breakdown", "CONDITION_METRICS", "condition_order"]

#: The numbers of :func:`condition_breakdown`, in the order of its tables.
CONDITION_METRICS = ("accuracy", "accuracy-difference", "observed-consistency", "expected-consistency",
                     "error-consistency")
#: The range of each (intervals are clipped to it).
_RANGE = np.array([(0.0, 1.0), (-1.0, 1.0), (0.0, 1.0), (0.0, 1.0), (-1.0, 1.0)])
#: Columns of :attr:`ConditionBreakdown.table` and :attr:`ConditionBreakdown.datasets`.
CONDITION_COLUMNS = ("experiment", "condition", "position", "label", "parameter", "observer", "kind", "metric",
                     "value", "ci_low", "ci_high", "n_items")
DATASET_COLUMNS = ("experiment", "observer", "kind", "metric", "value", "ci_low", "ci_high", "n_conditions")

def _ladder(suffix: str) -> tuple[tuple[str, str], ...]:
    """An eidolon dataset's conditions ``"<reach>-<suffix>"`` (reach 1 … 128) as log₂ of the reach."""
    return tuple((f"{2 ** k}-{suffix}", str(k)) for k in range(8))


#: Model-vs-human's parametric datasets as its own figures draw them (Geirhos et al. 2021; bethgelab/model-vs-human,
#: ``modelvshuman/datasets/experiments.py``): the axis name, then every condition label of the trials in the
#: figures' order (the distortion growing to the right) with its tick label.
_MODEL_VS_HUMAN_AXES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "colour": ("colour", (("cr", "colour"), ("bw", "greyscale"))),
    "contrast": ("contrast (%)", tuple((c, str(int(c[1:]))) for c in
                                      ("c100", "c50", "c30", "c15", "c10", "c05", "c03", "c01"))),
    "high-pass": ("filter standard deviation", tuple((c, c) for c in
                                                     ("inf", "3", "1.5", "1", "0.7", "0.55", "0.45", "0.4"))),
    "low-pass": ("filter standard deviation", tuple((c, c) for c in ("0", "1", "3", "5", "7", "10", "15", "40"))),
    "phase-scrambling": ("phase noise width (°)", tuple((c, c) for c in ("0", "30", "60", "90", "120", "150",
                                                                          "180"))),
    "power-equalisation": ("power spectrum", (("0", "original"), ("pow", "equalised"))),
    "false-colour": ("colour", (("true", "true"), ("false", "opponent"))),
    "rotation": ("rotation angle (°)", tuple((c, c) for c in ("0", "90", "180", "270"))),
    "eidolonI": ("log₂ of reach", _ladder("10-10")),
    "eidolonII": ("log₂ of reach", _ladder("3-10")),
    "eidolonIII": ("log₂ of reach", _ladder("0-10")),
    "uniform-noise": ("uniform noise width", tuple((c, str(float(c))) for c in
                                                   ("0.00", "0.03", "0.05", "0.10", "0.20", "0.35", "0.60", "0.90"))),
}


def _axis(experiment: str, conditions: Any) -> tuple[str, dict[str, str]] | None:
    """Model-vs-human's axis of ``experiment`` when it holds only that dataset's conditions: (name, tick labels in
    the figures' order); else None."""
    known = _MODEL_VS_HUMAN_AXES.get(str(experiment))
    if known is None or not set(map(str, conditions)) <= {c for c, _ in known[1]}:
        return None
    return known[0], dict(known[1])


#: Replicates of :func:`condition_breakdown` by default (at most the leaderboard's own B): its
#: percentile-type intervals of 95 % need about a thousand (docs/benchmark.md, "Model-vs-human's figures").
DEFAULT_RESAMPLES = 1000


def condition_order(conditions: Any, experiment: str | None = None) -> list[str]:
    """The conditions of one dataset in the order of their parameter: by the first number in each
    label (``"c05"`` → 5, ``"16-10-10"`` → 16, ``"inf"`` → ∞), labels without a number after
    those with one, each group in text order. The conditions of one of model-vs-human's
    parametric datasets (``experiment``, its labels) are in the order of model-vs-human's
    figures instead, the distortion growing to the right (contrast from 100 % down, high-pass
    from ∞ down, colour before greyscale).

    Parameters
    ----------
    conditions : iterable of str
        Condition labels (repeats are listed once).
    experiment : str, optional
        The dataset they belong to.

    Returns
    -------
    list of str

    Examples
    --------
    >>> condition_order(["c30", "c05", "c100", "c01"])
    ['c01', 'c05', 'c30', 'c100']
    >>> condition_order(["c30", "c05", "c100", "c01"], experiment="contrast")  # model-vs-human's figures
    ['c100', 'c30', 'c05', 'c01']
    >>> condition_order(["inf", "0.7", "3", "bw"])
    ['0.7', '3', 'inf', 'bw']
    """
    import re

    axis = _axis(experiment, conditions) if experiment is not None else None
    if axis is not None:
        have = set(map(str, conditions))
        return [c for c in axis[1] if c in have]

    def key(label: str) -> tuple[int, float, str]:
        text = str(label)
        if text.strip().lower() in ("inf", "infinity"):
            return 0, np.inf, text
        m = re.search(r"-?\d+(?:\.\d+)?", text)
        return (0, float(m.group()), text) if m else (1, 0.0, text)

    return sorted(dict.fromkeys(map(str, conditions)), key=key)


@dataclass(frozen=True, repr=False, eq=False)
class ConditionBreakdown(Result):
    """Accuracy and agreement per condition and per dataset, with intervals (:func:`condition_breakdown`).

    ``table``: one row per (experiment, observer, metric), the means over the dataset's
    conditions (columns ``experiment, observer, kind, metric, value, ci_low, ci_high,
    n_conditions``; ``to_frame()`` gives it). ``conditions``: one row per (experiment,
    condition, observer, metric), long format (columns ``experiment, condition, position, label,
    parameter, observer, kind, metric, value, ci_low, ci_high, n_items``; ``position`` is the
    condition's place in its dataset's parameter order, :func:`condition_order`, and for
    model-vs-human's parametric datasets ``label`` and ``parameter`` are its figures' tick label
    and axis name, e.g. ``"5"`` and ``"contrast (%)"`` for ``"c05"``; elsewhere the condition and
    ``"condition"``). ``kind`` is ``"candidate"`` or ``"reference"``
    (the reference group's row, named as in the leaderboard: e.g. ``"human–human"``).
    """

    table: Any = field(metadata=shown(in_repr=True, repr_name="experiments",
                                      format=lambda value, res: str(value["experiment"].nunique())))
    conditions: Any = field(metadata=shown(in_repr=True, repr_name="conditions",
                                           format=lambda value, res: str(value[["experiment", "condition"]]
                                                                        .drop_duplicates().shape[0])))
    reference_row: str = field(default="", metadata=shown("reference row", format="text"))
    confidence_level: float = field(default=0.95, metadata=shown("interval level", format="percent"))
    ci_method: str = field(default="bc", metadata=shown("interval", format="text"))
    n_resamples: int = field(default=0, metadata=shown("bootstrap replicates", format="int"))
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = DATASET_COLUMNS
    method: ClassVar[str] = "joint bootstrap of items within each condition"
    summary_title = "Accuracy and agreement per dataset"
    summary_table = True

    def wide(self, level: str = "datasets"):
        """One row per (experiment[, condition], observer), a column per metric and per bound
        (``accuracy``, ``accuracy_low``, ``accuracy_high``, …).

        Parameters
        ----------
        level : {"datasets", "conditions"}
            Per dataset (``table``) or per condition (``conditions``).

        Returns
        -------
        pandas.DataFrame
            The rows of that table, a column per metric and bound.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=100, rng=0)
        >>> wide = tw.leaderboards.condition_breakdown(lb, rng=0).wide("conditions")
        >>> wide[["condition", "observer", "accuracy", "accuracy_low", "accuracy_high"]].head(2).round(3)
          condition  observer  accuracy  accuracy_low  accuracy_high
        0       c50   clip-16     0.969         0.938          0.994
        1       c50  cornet-s     0.938         0.896          0.975
        """
        import pandas as pd

        if level not in ("datasets", "conditions"):
            raise InvalidValueError(f"`level` must be 'datasets' or 'conditions'; got {level!r}")
        t = self.table if level == "datasets" else self.conditions
        index = ["experiment", "observer", "kind"] if level == "datasets" else [
            "experiment", "condition", "position", "label", "parameter", "observer", "kind", "n_items"]
        parts = []
        for m in CONDITION_METRICS:
            col = m.replace("-", "_")
            sub = t[t["metric"] == m].set_index(index)[["value", "ci_low", "ci_high"]]
            parts.append(sub.rename(columns={"value": col, "ci_low": f"{col}_low", "ci_high": f"{col}_high"}))
        return pd.concat(parts, axis=1).reset_index()


# --------------------------------------------------------------------------- one condition


@dataclass
class _UnitStats:
    """What every replicate of one condition needs: its columns, their map back, the rows' groups."""

    columns: NDArray
    to_sums: Any
    n_pair_columns: int
    n_observers: int
    membership: NDArray  # (pairs, rows): which row each pair belongs to
    candidate_column: NDArray  # (k,) each candidate's observer column
    reference_columns: NDArray  # the reference observers' columns

    def values(self, sums: NDArray) -> NDArray:
        """Every metric of every row from weighted column sums (b, n_columns) → (b, 5, rows)."""
        sums = np.asarray(sums, dtype=float)
        n, n11, ca, cb = self.to_sums(sums[:, :self.n_pair_columns])
        o = self.n_observers
        right, seen = sums[:, self.n_pair_columns:self.n_pair_columns + o], sums[:, self.n_pair_columns + o:]
        pair_values = np.empty((len(sums), 3, n.shape[1]))  # c_obs, c_exp, κ of every pair
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = np.where(seen > 0, right / np.where(seen > 0, seen, 1.0), np.nan)
            n = np.where(n > 0, n, np.nan)
            pa, pb = ca / n, cb / n
            c_obs, c_exp = pair_values[:, 0], pair_values[:, 1]
            np.divide(n - ca - cb + 2.0 * n11, n, out=c_obs)
            np.add(pa * pb, (1.0 - pa) * (1.0 - pb), out=c_exp)
            # κ = (c_obs − c_exp) / (1 − c_exp): undefined (NaN) where c_exp = 1 (both always right, or wrong)
            pair_values[:, 2] = np.where(c_exp < 1.0, (c_obs - c_exp) / (1.0 - c_exp), np.nan)
        rows = self.membership.shape[1]
        out = np.full((len(sums), len(CONDITION_METRICS), rows), np.nan)
        flat = pair_values.reshape(-1, pair_values.shape[-1])
        defined = ~np.isnan(flat)
        total, count = np.where(defined, flat, 0.0) @ self.membership, defined.astype(float) @ self.membership
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean of each row's defined pair values
            out[:, 2:] = np.where(count > 0, total / np.maximum(count, 1.0), np.nan).reshape(len(sums), 3, rows)
        k = rows - 1
        ref = acc[:, self.reference_columns]
        defined = ~np.isnan(ref)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 0, k] = np.where(defined.any(axis=1), np.where(defined, ref, 0.0).sum(axis=1)
                                    / np.maximum(defined.sum(axis=1), 1), np.nan)
        out[:, 0, :k] = acc[:, self.candidate_column]
        out[:, 1, :k] = out[:, 0, :k] - out[:, 0, k:k + 1]
        return out


def _unit_stats(design: Design, u: int) -> _UnitStats:
    """The columns of condition ``u``: its pairs' columns (:func:`pair_columns`), then every
    observer's correct and seen indicators; resampled as the leaderboard resamples them."""
    unit = design.units[u]
    cols, to_sums = pair_columns(unit.right, unit.seen, unit.pairs, fixed_total=unit.clusters is None)
    seen = unit.seen.astype(cols.dtype)
    right = (unit.right * unit.seen).astype(cols.dtype)
    columns = unit.resampled(np.concatenate([cols, right, seen], axis=1))
    k = len(design.candidates)
    membership = np.zeros((len(unit.pairs), k + 1))
    membership[np.arange(len(unit.pairs)), design.entry_row[unit.entries]] = 1.0
    col = {o: i for i, o in enumerate(unit.observers)}
    return _UnitStats(columns, to_sums, cols.shape[1], len(unit.observers), membership,
                      np.array([col[c] for c in design.candidates], dtype=np.intp),
                      np.array([col[r] for r in design.references if r in col], dtype=np.intp))


def _intervals(method: str, dist: NDArray, estimate: NDArray, level: float) -> tuple[NDArray, NDArray]:
    """Intervals of (metrics × rows) estimates from their replicates (B, metrics, rows), clipped
    to each metric's range; NaN where the estimate is undefined."""
    lo = np.full(estimate.shape, np.nan)
    hi = np.full(estimate.shape, np.nan)
    ok = np.isfinite(estimate)
    if ok.any():
        bounds = (np.broadcast_to(_RANGE[:, :1], estimate.shape)[ok], np.broadcast_to(_RANGE[:, 1:], estimate.shape)[ok])
        lo[ok], hi[ok] = interval(method, dist[:, ok], estimate[ok], level, bounds=bounds)
    return lo, hi


# --------------------------------------------------------------------------- the breakdown


def _bootstrap_units(design: Design, b: int, rng: Any, workers: int | None, ci_method: str,
                     level: float) -> list[Any]:
    """Every condition's estimates (metrics × rows), replicates (B × metrics × rows) and intervals,
    condition ``u`` on child stream ``u`` of ``rng``, the conditions on the driver's threads."""

    def run(u: int, gen: Any) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        stats = _unit_stats(design, u)
        est = stats.values(stats.columns.sum(axis=0)[None])[0]
        dist = bootstrap_sums(stats.columns, b, rng=gen, statistic=stats.values)
        return (est, dist, *_intervals(ci_method, dist, est, level))

    out: list[Any] = [None] * len(design.units)
    size = [u.right.shape[0] * max(len(u.entries), 1) for u in design.units]
    for u, res in run_blocks(run, [(u, (u,)) for u in range(len(design.units))], streams=rng, threads=True,
                             workers=workers, cost=size):
        out[u] = res
    return out


@records_seed
def condition_breakdown(lb, *, n_resamples: int | None = None, rng: Any = None, ci_method: str = "bc",
                        workers: int | None = None) -> ConditionBreakdown:
    """Accuracy, accuracy difference, c_obs, c_exp and error consistency per condition and per dataset.

    The numbers behind model-vs-human's figures (Geirhos et al. 2021: accuracy against the
    condition, observed against expected consistency, error consistency per condition, the
    per-dataset table of accuracy difference, observed consistency and error consistency),
    each with a bootstrap interval, for every candidate of a leaderboard and for its
    reference group (its own row: the reference observers' mean accuracy and the agreement
    of their pairs). The leaderboard's design fixes what is counted: its protocol's
    experiments and conditions, its pairs (those sharing ``min_items`` items), its
    clusters.

    Parameters
    ----------
    lb : Leaderboard
        From :func:`trialwise.leaderboard` with a reference group (not an accuracy
        leaderboard, whose reference is the ground truth).
    n_resamples : int, optional
        Bootstrap replicates (default: the leaderboard's B, at most 1,000).
    rng : None, int or numpy.random.Generator
        Seed of the bootstrap (condition ``u`` draws from the ``u``-th child stream).
    ci_method : {"bc", "percentile", "basic"}, default "bc"
        The interval of every number (``"bc"``: bias-corrected percentile, the interval of
        the leaderboard's per-experiment scores); clipped to the metric's range.
    workers : int, optional
        Threads (default: the thread budget); the numbers do not depend on it.

    Returns
    -------
    ConditionBreakdown
        ``table`` (per experiment) and ``conditions`` (per condition), long format with
        ``value, ci_low, ci_high``; ``wide()`` for a column per metric.

    Raises
    ------
    InvalidTypeError
        ``lb`` is not a Leaderboard.
    InvalidValueError
        ``lb`` is an accuracy leaderboard (no reference group to compare with); a bad
        ``n_resamples`` or ``ci_method``.

    Notes
    -----
    Within each condition the items (clusters, when the leaderboard resampled clusters) are
    resampled with one multinomial weight vector shared by every observer (as in the
    leaderboard's bootstrap); a replicate's per-dataset values are the means over the
    dataset's conditions of its per-condition values. Each interval is marginal (one
    number at a time).

    References
    ----------
    Geirhos, R., Narayanappa, K., Mitzkus, B., Thieringer, T., Bethge, M., Wichmann, F. A. &
    Brendel, W. (2021). Partial success in closing the gap between human and machine vision.
    NeurIPS.

    Examples
    --------
    >>> import trialwise as tw
    >>> from trialwise.leaderboards import condition_breakdown
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> cb = condition_breakdown(lb, rng=0)
    >>> t = cb.wide()
    >>> t.loc[t["experiment"] == "contrast", ["observer", "accuracy", "accuracy_difference",
    ...                                       "error_consistency"]].round(3)
          observer  accuracy  accuracy_difference  error_consistency
    4      clip-16     0.935                0.274              0.155
    5     cornet-s     0.762                0.102              0.265
    6     resnet50     0.816                0.155              0.225
    7  human–human     0.661                  NaN              0.437
    """
    import pandas as pd

    if not isinstance(getattr(lb, "_design", None), Design):  # a Leaderboard (not imported: board imports the report)
        raise InvalidTypeError(f"`lb` must be a Leaderboard (from tw.leaderboard); got {type(lb).__name__}")
    if lb.protocol.against_ground_truth:
        raise InvalidValueError(f"`lb` scores metric {lb.protocol.metric!r} against the ground truth: it has no "
                                f"reference group to compare the candidates with; give a leaderboard of a pair "
                                f"metric (e.g. error consistency against humans)")
    b = v.check_positive_int(min(lb.n_resamples, DEFAULT_RESAMPLES) if n_resamples is None else n_resamples,
                             "n_resamples")
    if ci_method not in ("bc", "percentile", "basic"):
        raise InvalidValueError(f"`ci_method` must be 'bc', 'percentile' or 'basic'; got {ci_method!r}")
    design: Design = lb._design
    rows = list(design.rows)
    kind = ["candidate"] * len(design.candidates) + ["reference"]
    per_unit = _bootstrap_units(design, b, v.check_rng(rng), workers, ci_method, lb.confidence_level)
    records, dataset_records = [], []
    for exp in design.experiments:
        units = [u for u, unit in enumerate(design.units) if unit.experiment == exp]
        conds = [design.units[u].condition for u in units]
        position = {c: i for i, c in enumerate(condition_order(conds, experiment=exp))}
        parameter, label = _axis(exp, conds) or ("condition", {c: str(c) for c in conds})
        total = np.zeros((b, len(CONDITION_METRICS), len(rows)))
        count = np.zeros_like(total)
        for u in units:
            est, dist, lo, hi = per_unit[u]
            unit = design.units[u]
            for m, metric in enumerate(CONDITION_METRICS):
                for r, name in enumerate(rows):
                    records.append((exp, unit.condition, position[unit.condition], label[unit.condition],
                                    parameter, name, kind[r], metric, est[m, r], lo[m, r], hi[m, r],
                                    unit.right.shape[0]))
            ok = np.isfinite(dist)
            total += np.where(ok, dist, 0.0)
            count += ok
        ests = np.stack([per_unit[u][0] for u in units])
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean over the dataset's conditions
            mean_dist = np.where(count > 0, total / np.maximum(count, 1), np.nan)
            n_defined = np.isfinite(ests).sum(axis=0)
            mean_est = np.where(n_defined > 0, np.nan_to_num(ests).sum(axis=0) / np.maximum(n_defined, 1), np.nan)
        lo, hi = _intervals(ci_method, mean_dist, mean_est, lb.confidence_level)
        for m, metric in enumerate(CONDITION_METRICS):
            for r, name in enumerate(rows):
                dataset_records.append((exp, name, kind[r], metric, mean_est[m, r], lo[m, r], hi[m, r],
                                        int(n_defined[m, r])))
    conditions = pd.DataFrame(records, columns=list(CONDITION_COLUMNS))
    conditions = conditions.sort_values(["experiment", "position", "metric", "kind", "observer"], kind="stable",
                              key=lambda s: s.map({m: i for i, m in enumerate(CONDITION_METRICS)})
                              if s.name == "metric" else s).reset_index(drop=True)
    table = pd.DataFrame(dataset_records, columns=list(DATASET_COLUMNS))
    return ConditionBreakdown(table=table, conditions=conditions, reference_row=lb.reference_row,
                              confidence_level=lb.confidence_level, ci_method=ci_method, n_resamples=b)
