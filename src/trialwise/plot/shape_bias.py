"""Figures of shape-bias results (Geirhos et al. 2019, Fig. 4)."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise.plot._common import figure_axes

__all__ = ["plot_shape_bias"]


def plot_shape_bias(result, *, observers=None, ax: Any = None):
    """Shape bias per shape category, in the style of Geirhos et al. (2019), Fig. 4.

    One row per shape category; the x axis is the fraction of texture decisions (bottom)
    and, read from the top axis, of shape decisions (``1 − x``), among the answers that
    named either cue. Each observer or group of ``result`` (a
    :class:`trialwise.ShapeBiasResult`; ``observers``: which of its rows, default all) has
    one marker per category with that category's interval as a horizontal segment, and a
    vertical line at its overall shape bias with the overall interval shaded. Categories
    are ordered by the first plotted row's shape bias (most shape-biased at the top).
    Intervals are drawn from their bounds, so nothing assumes the estimate lies inside.

    Parameters
    ----------
    result : ShapeBiasResult
        From :func:`trialwise.shape_bias`.
    observers : str or sequence of str, optional
        Which rows of ``result.table`` (observers or groups) to draw; default all.
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
    >>> res = tw.shape_bias(tw.datasets.texture_vs_shape("cue-conflict"), observers=["resnet50", "vgg16-caffe"],
    ...                     n_resamples=200, rng=0)
    >>> fig = plot_shape_bias(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:3]
    ['airplane', 'knife', 'bird']
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    table = result.table
    names = list(table["observer"]) if observers is None else (
        [observers] if isinstance(observers, str) else list(observers))
    rows = [result._row(n) for n in names]  # a ValueError naming the unknown row
    cats = result.categories
    est = cats.pivot(index="category", columns="observer", values="shape_bias")
    low = cats.pivot(index="category", columns="observer", values="ci_low")
    high = cats.pivot(index="category", columns="observer", values="ci_high")
    order = est[names[0]].sort_values(ascending=True, na_position="first", kind="stable").index.tolist()
    k, m = len(order), len(names)
    fig, ax = figure_axes(ax, figsize=(7.0, 0.32 * k + 1.6))
    y = np.arange(k, dtype=float)
    markers = "os^Dv<>pPX*h"
    step = min(0.14, 0.7 / max(m, 1))
    import matplotlib as mpl

    palette = mpl.colormaps["tab10" if m <= 10 else "tab20"]
    for j, (name, r) in enumerate(zip(names, rows)):
        color = palette(j % palette.N)
        dy = (j - (m - 1) / 2) * step
        x = 1.0 - est.loc[order, name].to_numpy(dtype=float)
        x_lo = 1.0 - high.loc[order, name].to_numpy(dtype=float)
        x_hi = 1.0 - low.loc[order, name].to_numpy(dtype=float)
        ax.hlines(y + dy, x_lo, x_hi, color=color, lw=1.0, alpha=0.8)
        overall = float(table["shape_bias"].iloc[r])
        o_lo, o_hi = float(table["ci_low"].iloc[r]), float(table["ci_high"].iloc[r])
        ax.axvspan(1.0 - o_hi, 1.0 - o_lo, color=color, alpha=0.12, lw=0)
        ax.axvline(1.0 - overall, color=color, lw=1.2, alpha=0.8)
        kind = " (group)" if table["kind"].iloc[r] == "group" else ""
        ax.plot(x, y + dy, ls="none", marker=markers[j % len(markers)], ms=5, color=color, mec="w", mew=0.4,
                label=f"{name}{kind}: {overall:.3f} [{o_lo:.3f}, {o_hi:.3f}]", zorder=3, clip_on=False)
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
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig

