"""Figures of shape-bias results (Geirhos et al. 2019, Fig. 4)."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise.plot._common import figure_axes

__all__ = ["plot_shape_bias"]


def _human_group(result, humans) -> tuple[str | None, list[str]]:
    """The human group of ``result``: (its group row or None, its members among the observer rows)."""
    from trialwise._core.errors import InvalidTypeError, InvalidValueError

    table = result.table
    observers = [o for o, k in zip(table["observer"], table["kind"]) if k == "observer"]
    groups = dict(result.groups or {})
    if humans is None:
        name = next((g for g in ("human", "humans") if g in groups), None)
        return (name, [m for m in groups[name] if m in observers]) if name else (None, [])
    if isinstance(humans, str):
        if humans not in groups:
            known = ", ".join(map(repr, groups)) or "it has none"
            raise InvalidValueError(f"`humans` must name a group of the result ({known}) or list observers; "
                                    f"got {humans!r}")
        return humans, [m for m in groups[humans] if m in observers]
    try:
        members = [str(m) for m in humans]
    except TypeError:
        raise InvalidTypeError(f"`humans` must be a group name or a list of observers; got {humans!r}") from None
    unknown = [m for m in members if m not in observers]
    if unknown:
        raise InvalidValueError(f"`humans`: {unknown} are not observers of the result; observers: {observers}")
    return None, members


def plot_shape_bias(result, *, observers=None, humans=None, per_category: bool = False, ax: Any = None):
    """Shape bias of every observer, ordered by value, with the humans drawn as one group.

    By default one row per observer (and group) of ``result`` (a
    :class:`trialwise.cue_conflict.ShapeBiasResult`), the most shape-biased at the top, each with its
    interval; the humans are not rows of their own but one group in one colour: a shaded
    band over the range of the individual humans' shape bias and a line at the group's
    value (the group row of ``result`` with its interval, when it has one; else the mean of
    the individuals). With ``per_category=True`` the published figure (Geirhos et al. 2019,
    Fig. 4): one row per shape category, the fraction of texture decisions on the bottom axis
    and of shape decisions on the top one, one marker per observer with its per-category
    interval and a vertical line (shaded: its interval) at its overall shape bias; the humans
    again one series (the group's value per category, a segment over the individuals' range).
    Intervals are drawn from their bounds, so nothing assumes the estimate lies inside.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`trialwise.shape_bias`.
    observers : str or sequence of str, optional
        Which rows of ``result.table`` (observers or groups) to draw; default all.
    humans : str or sequence of str, optional
        The humans: a group of ``result`` (``groups=``) or a list of its observers. Default:
        the group ``"human"`` (or ``"humans"``) when ``result`` has one, else none.
    per_category : bool, default False
        Draw the published per-category figure instead of one row per observer.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    References
    ----------
    Geirhos, R., Rubisch, P., Michaelis, C., Bethge, M., Wichmann, F. A. & Brendel, W.
    (2019). ImageNet-trained CNNs are biased towards texture; increasing shape bias
    improves accuracy and robustness. ICLR.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import trialwise as tw
    >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
    >>> res = tw.shape_bias(trials, observers=["resnet50", "vgg16-caffe", "subject-01", "subject-02"],
    ...                     groups="observer_type", n_resamples=200, rng=0)
    >>> fig = plot_shape_bias(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['resnet50', 'model (group of 2)', 'vgg16-caffe']
    >>> fig.axes[0].get_legend().get_texts()[1].get_text()
    'human (group of 2): 0.952 [0.942, 0.960]; individuals 0.944–0.962'
    >>> fig = plot_shape_bias(res, per_category=True)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:3]
    ['knife', 'airplane', 'boat']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    table = result.table
    names = list(table["observer"]) if observers is None else (
        [observers] if isinstance(observers, str) else list(observers))
    for n in names:
        result._row(n)  # a ValueError naming the unknown row
    group, members = _human_group(result, humans)
    drawn = [n for n in names if n not in set(members) and n != group]
    value = table.set_index("observer")["shape_bias"].astype(float)
    drawn = sorted(drawn, key=lambda n: (np.isnan(value[n]), -value[n] if np.isfinite(value[n]) else 0.0))
    if per_category:
        return _per_category(result, drawn, group, members, ax)
    return _overall(result, drawn, group, members, ax)


def _human_label(result, group, members) -> tuple[str, float, float, float, float, float]:
    """The humans' legend text and (value, interval low, high, individuals' min, max)."""
    table = result.table.set_index("observer")
    ind = table.loc[members, "shape_bias"].astype(float).to_numpy() if members else np.empty(0)
    ind = ind[np.isfinite(ind)]
    lo_i, hi_i = (float(ind.min()), float(ind.max())) if ind.size else (np.nan, np.nan)
    if group is not None:
        r = table.loc[group]
        v, lo, hi = float(r["shape_bias"]), float(r["ci_low"]), float(r["ci_high"])
        text = f"{group} (group of {len(result.groups[group])}): {v:.3f} [{lo:.3f}, {hi:.3f}]"
    else:
        v, lo, hi = (float(ind.mean()) if ind.size else np.nan), np.nan, np.nan
        text = f"humans ({len(members)}): mean {v:.3f}"
    if ind.size > 1:
        text += f"; individuals {lo_i:.3f}–{hi_i:.3f}"
    return text, v, lo, hi, lo_i, hi_i


HUMAN_COLOR = "C3"


def _overall(result, drawn, group, members, ax):
    from trialwise.plot._common import draw_intervals, label_inches, legend_outside

    table = result.table.set_index("observer")
    k = len(drawn)
    rows = table.loc[drawn]
    label = (f"{'observers and groups' if (rows['kind'] == 'group').any() else 'observers'}, "
             f"{100 * result.confidence_level:g}% intervals")
    humans = group is not None or bool(members)
    text, v, lo, hi, lo_i, hi_i = "", np.nan, np.nan, np.nan, np.nan, np.nan
    if humans:
        text, v, lo, hi, lo_i, hi_i = _human_label(result, group, members)
    ticks = [f"{n} (group of {len(result.groups[n])})" if table.loc[n, "kind"] == "group" else n for n in drawn]
    width = 4.0 + label_inches(ticks) + label_inches([label, text], 7) + 0.2
    fig, ax = figure_axes(ax, figsize=(min(14.0, width), 0.26 * k + 1.7))
    y = np.arange(k, dtype=float)[::-1]
    draw_intervals(ax, rows["shape_bias"], rows["ci_low"], rows["ci_high"], y, color="C0", label=label)
    if humans:
        if np.isfinite(lo_i) and hi_i > lo_i:
            ax.axvspan(lo_i, hi_i, color=HUMAN_COLOR, alpha=0.15, lw=0)
        if np.isfinite(lo) and np.isfinite(hi):
            ax.axvspan(min(lo, hi), max(lo, hi), color=HUMAN_COLOR, alpha=0.3, lw=0)
        ax.axvline(v, color=HUMAN_COLOR, lw=1.5, label=text)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.7, k - 0.3)
    ax.set_yticks(y, ticks, fontsize=8)
    ax.grid(axis="y", color="0.93", lw=0.6)
    ax.set_xlabel("shape bias: fraction of 'shape' among shape and texture decisions")
    ax.set_title(f"shape bias, ordered by value ({result.ci_method} intervals)", fontsize=9)
    legend_outside(ax)
    return fig


def _per_category(result, drawn, group, members, ax):
    import matplotlib as mpl

    from trialwise.plot._common import legend_outside

    table = result.table.set_index("observer")
    cats = result.categories
    est = cats.pivot(index="category", columns="observer", values="shape_bias")
    low = cats.pivot(index="category", columns="observer", values="ci_low")
    high = cats.pivot(index="category", columns="observer", values="ci_high")
    first = group if group is not None else (drawn[0] if drawn else None)
    if first is None and members:
        key = est[members].mean(axis=1)
    else:
        key = est[first] if first is not None else est.iloc[:, 0]
    order = key.sort_values(ascending=True, na_position="first", kind="stable").index.tolist()
    series = ([group] if group is not None else []) + drawn
    k, m = len(order), len(series) + (1 if group is None and members else 0)
    fig, ax = figure_axes(ax, figsize=(9.5, 0.32 * k + 1.6))
    y = np.arange(k, dtype=float)
    markers = "os^v<>pPX*h"  # "D": the humans
    step = min(0.14, 0.7 / max(m, 1))
    palette = mpl.colormaps["tab10" if len(drawn) <= 9 else "tab20"]
    colors = [c for c in (palette(i) for i in range(palette.N)) if c != mpl.colors.to_rgba(HUMAN_COLOR)]
    j = 0
    if members or group is not None:  # the humans: one series, one colour
        dy = (j - (m - 1) / 2) * step
        text, v, lo, hi, _, _ = _human_label(result, group, members)
        ind = est.loc[order, members].to_numpy(dtype=float) if members else np.full((k, 0), np.nan)
        if group is not None:
            x = 1.0 - est.loc[order, group].to_numpy(dtype=float)
            x_lo, x_hi = 1.0 - high.loc[order, group].to_numpy(dtype=float), 1.0 - low.loc[order, group].to_numpy(float)
            ax.hlines(y + dy, x_lo, x_hi, color=HUMAN_COLOR, lw=1.0, alpha=0.8)
        else:
            with np.errstate(invalid="ignore"):
                x = 1.0 - np.nanmean(ind, axis=1) if ind.size else np.full(k, np.nan)
        if ind.shape[1] > 1:
            with np.errstate(invalid="ignore"):
                ax.hlines(y + dy, 1.0 - np.nanmax(ind, axis=1), 1.0 - np.nanmin(ind, axis=1), color=HUMAN_COLOR,
                          lw=5, alpha=0.25)
        if np.isfinite(lo) and np.isfinite(hi):
            ax.axvspan(1.0 - hi, 1.0 - lo, color=HUMAN_COLOR, alpha=0.12, lw=0)
        ax.axvline(1.0 - v, color=HUMAN_COLOR, lw=1.2, alpha=0.8)
        ax.plot(x, y + dy, ls="none", marker="D", ms=5, color=HUMAN_COLOR, mec="w", mew=0.4, label=text, zorder=3,
                clip_on=False)
        j += 1
    for n, name in enumerate(drawn):
        color = colors[n % len(colors)]
        dy = (j - (m - 1) / 2) * step
        x = 1.0 - est.loc[order, name].to_numpy(dtype=float)
        x_lo = 1.0 - high.loc[order, name].to_numpy(dtype=float)
        x_hi = 1.0 - low.loc[order, name].to_numpy(dtype=float)
        ax.hlines(y + dy, x_lo, x_hi, color=color, lw=1.0, alpha=0.8)
        r = table.loc[name]
        overall, o_lo, o_hi = float(r["shape_bias"]), float(r["ci_low"]), float(r["ci_high"])
        ax.axvspan(1.0 - o_hi, 1.0 - o_lo, color=color, alpha=0.12, lw=0)
        ax.axvline(1.0 - overall, color=color, lw=1.2, alpha=0.8)
        kind = " (group)" if r["kind"] == "group" else ""
        ax.plot(x, y + dy, ls="none", marker=markers[n % len(markers)], ms=5, color=color, mec="w", mew=0.4,
                label=f"{name}{kind}: {overall:.3f} [{o_lo:.3f}, {o_hi:.3f}]", zorder=3, clip_on=False)
        j += 1
    for i in range(k - 1):
        ax.axhline(i + 0.5, color="0.85", lw=0.6, ls=":")
    ax.set_xlim(-0.02, 1.02)  # markers at 0 and 1 drawn whole
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_yticks(y, order, fontsize=8)
    ax.set_ylabel("shape category")
    ax.set_xlabel("fraction of 'texture' decisions")
    top = ax.secondary_xaxis("top", functions=(lambda v: 1.0 - v, lambda v: 1.0 - v))
    top.set_xlabel("fraction of 'shape' decisions")
    ax.set_title(f"shape bias per category; lines: overall, {100 * result.confidence_level:g}% intervals "
                 f"({result.ci_method})", fontsize=9)
    legend_outside(ax)
    return fig
