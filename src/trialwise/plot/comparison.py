"""Figures of two-classifier comparisons: reliability diagrams and the K × K agreement matrix."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise._core.format import format_pvalue
from trialwise.plot._common import figure_axes, label_inches, legend_outside, palette

__all__ = ["plot_reliability", "plot_agreement_matrix"]


def plot_reliability(*curves, names=None, ax: Any = None):
    """Reliability diagram of one or more calibration curves (*Machine Learning & Signals Learning*, ch. 14, Fig. 14.3).

    ``curves``: :class:`~trialwise.comparison.CalibrationCurve` objects (from
    :func:`trialwise.comparison.calibration_curve` or ``report.calibration``), or one
    dict of them keyed by name. Each curve is drawn through its non-empty bins (observed
    vs mean predicted, marker area ∝ count); the dashed diagonal is perfect calibration,
    points below it are over-confident. The legend reports each curve's Brier score and
    ECE. Class-wise curves draw one line per class.

    Parameters
    ----------
    *curves : CalibrationCurve or dict of them
        The curves to draw, or one dict ``{name: curve}``.
    names : sequence of str, optional
        One name per curve (default: the dict's keys, else "classifier 1", ...).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    References
    ----------
    “Classifier Comparison”, chapter 14 of *Machine Learning & Signals Learning* (textbook).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, numpy as np, trialwise as tw
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(500) < 0.4
    >>> proba = np.clip(0.4 + 0.3 * (y - 0.4) + rng.normal(0, 0.1, 500), 0, 1)
    >>> fig = plot_reliability(tw.comparison.calibration_curve(y, proba, n_bins=5), names=["model"])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['perfect calibration', 'model (BS=0.124, ECE=0.252)']
    >>> plt.close(fig)
    """
    if len(curves) == 1 and isinstance(curves[0], dict):
        names = list(curves[0]) if names is None else names
        curves = tuple(curves[0].values())
    if not curves:
        raise InvalidValueError("plot_reliability needs at least one calibration curve")
    names = list(names) if names is not None else [f"classifier {i + 1}" for i in range(len(curves))]
    if len(names) != len(curves):
        raise InvalidValueError(f"`names` must name each curve once; got {len(names)} names for {len(curves)} curve(s)")
    fig, ax = figure_axes(ax, figsize=(4.8 + label_inches([f"{x} (BS=0.000, ECE=0.000)" for x in names], 7), 4.4))
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfect calibration")
    colors = palette(sum(len(c.per_class) or 1 for c in curves))
    i = 0
    for curve, label in zip(curves, names):
        groups = curve.table.groupby("class", sort=False) if "class" in curve.table else [(None, curve.table)]
        for cls, table in groups:
            full = table[table["count"] > 0]
            name = f"{label} (BS={curve.brier:.3f}, ECE={curve.statistic:.3f})" if cls is None else \
                f"{label}, class {cls} (ECE={curve.per_class[cls]:.3f})"
            ax.plot(full["mean_predicted"], full["observed"], "-", color=colors[i], lw=1.2)
            ax.scatter(full["mean_predicted"], full["observed"], s=12 + 80 * full["count"] / full["count"].max(),
                       color=colors[i], label=name, zorder=3)
            i += 1
    kind = curves[0].kind
    ax.set_xlabel("mean predicted probability" if kind != "top-label" else "mean confidence (top probability)")
    ax.set_ylabel("observed frequency" if kind != "top-label" else "accuracy")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    legend_outside(ax)
    ax.set_title(f"reliability diagram ({kind}, {curves[0].n_bins} {curves[0].bin_strategy} bins)", fontsize=9)
    return fig


def plot_agreement_matrix(bowker, *, names=("A", "B"), ax: Any = None):
    """The K × K agreement matrix as a heatmap, with Bowker's per-pair contributions.

    ``bowker``: the result of :func:`trialwise.comparison.bowker_test`. Each cell shows
    its count; each off-diagonal cell of the *larger* side of a class pair also shows
    that pair's χ² contribution, and is outlined in red when the pair carries the largest
    share of the statistic — the place to look for an asymmetric confusion.

    Parameters
    ----------
    bowker : ComparisonResult
        From :func:`trialwise.comparison.bowker_test`.
    names : (str, str), default ("A", "B")
        Names of the two classifiers (rows, columns).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The heatmap and its colour bar.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, numpy as np, trialwise as tw
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 3, 300)
    >>> b = np.where(rng.random(300) < 0.7, a, (a + 1) % 3)
    >>> fig = plot_agreement_matrix(tw.comparison.bowker_test(a, b), names=("ann", "bob"))
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (2, 'ann predicts')
    >>> plt.close(fig)
    """
    import matplotlib as mpl

    mat = np.asarray(bowker.matrix)
    classes = [str(c) for c in bowker.classes]
    contrib = bowker.contributions
    k = len(classes)
    fig, ax = figure_axes(ax, figsize=(0.5 * k + 2.8, 0.5 * k + 2.2))
    img = ax.imshow(mat, cmap="Blues")
    pos = {c: i for i, c in enumerate(classes)}
    top = contrib["contribution"].idxmax() if contrib["contribution"].max() > 0 else None
    big = mat.max() if mat.size else 1
    for i in range(k):
        for j in range(k):
            ax.text(j, i, str(mat[i, j]), ha="center", va="center", fontsize=7 if k > 8 else 9,
                    color="w" if mat[i, j] > 0.6 * big else "k")
    for idx, row in contrib.iterrows():
        if row["contribution"] <= 0:
            continue
        i, j = pos[str(row["class_j"])], pos[str(row["class_k"])]
        if row["n_kj"] > row["n_jk"]:
            i, j = j, i
        ax.text(j, i + 0.32, f"χ² {row['contribution']:.2g}", ha="center", va="center", fontsize=6, color="C3")
        if idx == top:
            ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="C3", lw=1.5))
    ax.set_xticks(range(k), classes, rotation=90 if k > 6 else 0, fontsize=7)
    ax.set_yticks(range(k), classes, fontsize=7)
    ax.set_xlabel(f"{names[1]} predicts")
    ax.set_ylabel(f"{names[0]} predicts")
    fig.colorbar(img, ax=ax, label="items", shrink=0.8)
    ax.set_title(f"agreement matrix; Bowker χ² = {bowker.statistic:.3g}, p = {format_pvalue(bowker.pvalue)}",
                 fontsize=9)
    return fig

