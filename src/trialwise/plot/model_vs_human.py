"""Model-vs-human's figures (Geirhos et al. 2021) with intervals, from a :class:`~trialwise.leaderboards.ConditionBreakdown`.

Accuracy or error consistency against the condition of every parametric dataset
(:func:`plot_conditions`), and observed against expected consistency (:func:`plot_consistency`).
The reference group (the humans) is drawn as a band: its value per condition with its interval;
the candidates as lines, the ``highlight``-ed ones in colour with their intervals, the others
thin and grey, so that a figure of twenty or more models stays readable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise.ec.observed_agreement import attainable_agreement
from trialwise.plot._common import legend_outside

__all__ = ["plot_conditions", "plot_consistency"]

#: Candidates drawn in colour when ``highlight`` is not given: all of them, up to this many.
_ALL_IN_COLOUR = 5
_REFERENCE_COLOUR = "C1"
_LABELS = {"accuracy": "accuracy", "error-consistency": "error consistency κ",
           "observed-consistency": "observed consistency c_obs", "expected-consistency": "expected consistency c_exp",
           "accuracy-difference": "accuracy difference (candidate − reference)"}


def _check(breakdown, metric: str | None = None) -> None:
    from trialwise._core.errors import InvalidTypeError, InvalidValueError
    from trialwise.leaderboards.conditions import CONDITION_METRICS, ConditionBreakdown

    if not isinstance(breakdown, ConditionBreakdown):
        raise InvalidTypeError(f"`breakdown` must be a ConditionBreakdown (tw.leaderboards.condition_breakdown); "
                               f"got {type(breakdown).__name__}")
    if metric is not None and metric not in CONDITION_METRICS:
        raise InvalidValueError(f"`metric` must be one of {', '.join(map(repr, CONDITION_METRICS))}; got {metric!r}")


def _highlighted(breakdown, highlight) -> list[str]:
    """The candidates drawn in colour: ``highlight`` (checked), else all when there are few."""
    from trialwise._core.errors import InvalidValueError

    t = breakdown.conditions
    candidates = list(dict.fromkeys(t.loc[t["kind"] == "candidate", "observer"]))
    if highlight is None:
        return candidates if len(candidates) <= _ALL_IN_COLOUR else []
    chosen = [highlight] if isinstance(highlight, str) else list(highlight)
    unknown = [c for c in chosen if c not in candidates]
    if unknown:
        raise InvalidValueError(f"`highlight`: {unknown} are not candidates of the breakdown; candidates: {candidates}")
    return chosen


def plot_conditions(breakdown, *, metric: str = "accuracy", highlight=None, experiments=None, ncols: int = 4,
                    fig: Any = None):
    """A metric against the condition, one panel per dataset (model-vs-human's psychometric plots).

    One panel per experiment of ``breakdown`` with two or more conditions (x: the conditions
    in their parameter order, :func:`trialwise.leaderboards.condition_order`, one step each,
    as model-vs-human's figures space them, and for model-vs-human's datasets with its tick
    labels and axis names; y: ``metric``).
    The reference group is a band (its value per condition and, shaded, its interval:
    for accuracy the humans' mean accuracy, for the consistency metrics the agreement of
    pairs of humans); the ``highlight``-ed candidates are coloured lines with an interval
    at every condition, the other candidates thin grey lines without.

    Parameters
    ----------
    breakdown : ConditionBreakdown
        From :func:`trialwise.leaderboards.condition_breakdown`.
    metric : str, default "accuracy"
        One of :data:`trialwise.leaderboards.CONDITION_METRICS`; ``"error-consistency"``
        gives model-vs-human's error consistency per condition.
    highlight : str or sequence of str, optional
        Candidates to draw in colour with their intervals (default: all of them when there
        are at most 5, else none).
    experiments : sequence of str, optional
        The panels (default: every experiment with two or more conditions).
    ncols : int, default 4
        Panels per row.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (default: a new one).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_conditions(tw.leaderboards.condition_breakdown(lb, rng=0))
    >>> [ax.get_title() for ax in fig.axes]  # colour: one condition scored (the protocol leaves out 'cr')
    ['contrast']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    from trialwise._core.errors import InvalidValueError

    _check(breakdown, metric)
    t = breakdown.conditions[breakdown.conditions["metric"] == metric]
    n_cond = t.groupby("experiment")["condition"].nunique()
    exps = [e for e in n_cond.index if n_cond[e] >= 2] if experiments is None else list(experiments)
    unknown = [e for e in exps if e not in n_cond.index]
    if unknown:
        raise InvalidValueError(f"`experiments`: {unknown} are not in the breakdown; experiments: {list(n_cond.index)}")
    if not exps:
        raise InvalidValueError("no experiment of the breakdown has two or more conditions to draw against; "
                                "its per-dataset values are in `breakdown.table`")
    colour = _highlighted(breakdown, highlight)
    ncols = max(1, min(int(ncols), len(exps)))
    nrows = -(-len(exps) // ncols)
    if fig is None:
        # at most 11 inches wide: the report shows figures at 1100 px without shrinking them
        fig = plt.figure(figsize=(min(2.3 * ncols + 1.8, 11.0), 2.2 * nrows + 0.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False, sharey=metric != "accuracy-difference")).ravel()
    for ax, exp in zip(axes, exps):
        _panel(ax, t[t["experiment"] == exp].sort_values("position"), colour)
        ax.set_title(str(exp), fontsize=9)
    for ax in axes[len(exps):]:
        ax.set_visible(False)
    for ax in axes[::ncols]:
        ax.set_ylabel(_LABELS[metric], fontsize=8)
    if metric == "accuracy":
        axes[0].set_ylim(0, 1.02)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside right upper", fontsize=7, frameon=False)
    return fig


def _panel(ax, t, colour: list[str]) -> None:
    """One dataset: the reference band, the grey candidates, the coloured ones with their intervals."""
    conds = list(dict.fromkeys(t["condition"]))
    ticks = dict(zip(t["condition"], t["label"]))
    x = {c: i for i, c in enumerate(conds)}
    ref = t[t["kind"] == "reference"]
    rx = ref["condition"].map(x).to_numpy(float)
    if ref["value"].notna().any():
        ax.fill_between(rx, ref["ci_low"].to_numpy(float), ref["ci_high"].to_numpy(float), color=_REFERENCE_COLOUR,
                        alpha=0.25, lw=0, label=_reference_label(str(ref["observer"].iloc[0]), str(t["metric"].iloc[0])))
        ax.plot(rx, ref["value"].to_numpy(float), color=_REFERENCE_COLOUR, lw=2.2, marker="o", ms=3)
    cand = t[t["kind"] == "candidate"]
    grey = [np.column_stack([g["condition"].map(x).to_numpy(float), g["value"].to_numpy(float)])
            for name, g in cand.groupby("observer", sort=False) if name not in colour]
    if grey:  # one collection for all of them: twenty or more lines per panel stay cheap to draw
        from matplotlib.collections import LineCollection

        ax.add_collection(LineCollection(grey, colors="0.6", linewidths=0.6, alpha=0.6, label="other candidates"))
    for name in colour:
        g = cand[cand["observer"] == name]
        gx, gy = g["condition"].map(x).to_numpy(float), g["value"].to_numpy(float)
        c = _colour(colour.index(name))
        ax.vlines(gx, g["ci_low"].to_numpy(float), g["ci_high"].to_numpy(float), color=c, lw=0.9, zorder=3)
        ax.plot(gx, gy, color=c, lw=1.3, marker="o", ms=3, label=name, zorder=3)
    ax.autoscale_view()
    long = max(len(str(ticks[c])) for c in conds) * len(conds) > 24  # labels that would collide level
    ax.set_xticks(range(len(conds)))
    ax.set_xticklabels([ticks[c] for c in conds], rotation=45 if long else 0, fontsize=7,
                       ha="right" if long else "center")
    if t["parameter"].iloc[0] != "condition":
        ax.set_xlabel(str(t["parameter"].iloc[0]), fontsize=7, labelpad=1)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(alpha=0.3, lw=0.5)


def _reference_label(row: str, metric: str) -> str:
    """The band's legend entry: the reference observers' mean (accuracy) or their pairs (consistency)."""
    group = row.split("–")[0]
    if metric in ("accuracy", "accuracy-difference"):
        return f"{group} observers' mean (interval shaded)"
    return f"{row} pairs (interval shaded)"


def _colour(i: int) -> str:
    """The colour of the i-th highlighted candidate: the default cycle without the reference's."""
    return f"C{[0, 2, 3, 4, 5, 6, 7, 8, 9][i % 9]}"


def plot_consistency(breakdown, *, highlight=None, experiment: str | None = None, ax: Any = None):
    """Observed against expected consistency per condition (model-vs-human's c_obs vs c_exp), with intervals.

    One point per (condition, row): the row's mean c_exp over its pairs (x) and mean c_obs
    (y), each with its interval as a cross; the reference group's points in orange, the
    ``highlight``-ed candidates in colour, the others small and grey (without intervals).
    Points above the diagonal agree beyond chance (κ > 0); the grey region is what κ's
    bounds allow (Geirhos, Meding & Wichmann 2020, eq. 2–6).

    Parameters
    ----------
    breakdown : ConditionBreakdown
        From :func:`trialwise.leaderboards.condition_breakdown`.
    highlight : str or sequence of str, optional
        Candidates in colour with their intervals (default: all when at most 5, else none).
    experiment : str, optional
        Only this experiment's conditions.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    References
    ----------
    Geirhos, R., Meding, K. & Wichmann, F. A. (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_consistency(tw.leaderboards.condition_breakdown(lb, rng=0))
    >>> fig.axes[0].get_xlabel()
    'expected consistency c_exp'
    >>> plt.close(fig)
    """
    from trialwise._core.errors import InvalidValueError
    from trialwise.plot._common import figure_axes

    _check(breakdown)
    wide = breakdown.wide("conditions")
    if experiment is not None:
        if experiment not in set(wide["experiment"]):
            raise InvalidValueError(f"`experiment` {experiment!r} is not in the breakdown; experiments: "
                                    f"{sorted(set(wide['experiment']))}")
        wide = wide[wide["experiment"] == experiment]
    colour = _highlighted(breakdown, highlight)
    fig, ax = figure_axes(ax, figsize=(7.0, 5.0))
    ce = np.linspace(0.0, 0.999, 400)
    ax.fill_between(ce, *attainable_agreement(ce), color="0.93", label="attainable")
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    other = wide[(wide["kind"] == "candidate") & ~wide["observer"].isin(colour)]
    if len(other):
        ax.scatter(other["expected_consistency"], other["observed_consistency"], s=5, color="0.6", alpha=0.5,
                   label="other candidates", zorder=2)
    groups = [(wide[wide["kind"] == "reference"], _REFERENCE_COLOUR)] + [
        (wide[wide["observer"] == name], _colour(i)) for i, name in enumerate(colour)]
    for g, c in groups:
        if not len(g):
            continue
        x, y = g["expected_consistency"].to_numpy(float), g["observed_consistency"].to_numpy(float)
        xerr = np.vstack([np.clip(x - g["expected_consistency_low"], 0, None),
                          np.clip(g["expected_consistency_high"] - x, 0, None)])
        yerr = np.vstack([np.clip(y - g["observed_consistency_low"], 0, None),
                          np.clip(g["observed_consistency_high"] - y, 0, None)])
        ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt="o", ms=3, color=c, elinewidth=0.7, capsize=0, alpha=0.85,
                    label=str(g["observer"].iloc[0]), zorder=3)
    # one range for both axes around the points and their intervals (most pairs sit near the diagonal)
    bounds = wide[["expected_consistency_low", "expected_consistency_high", "observed_consistency_low",
                   "observed_consistency_high"]].to_numpy(float)
    bounds = bounds[np.isfinite(bounds)]
    lo, hi = (float(bounds.min()), float(bounds.max())) if bounds.size else (0.0, 1.0)
    pad = 0.05 * max(hi - lo, 0.1)
    ax.set_xlim(max(0.0, lo - pad), min(1.0, hi + pad))
    ax.set_ylim(max(0.0, lo - pad), min(1.0, hi + pad))
    ax.set_aspect("equal")
    ax.set_xlabel("expected consistency c_exp")
    ax.set_ylabel("observed consistency c_obs")
    ax.set_title(experiment or "every condition", fontsize=9)
    legend_outside(ax)
    return fig
