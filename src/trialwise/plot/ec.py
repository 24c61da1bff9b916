"""Figures of error consistency itself: the attainable range of κ over the accuracies."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise._stats.bounds import attainable_kappa as kappa_bounds
from trialwise.plot._common import figure_axes

__all__ = ["plot_kappa_bounds"]


def plot_kappa_bounds(bound: str = "upper", *, resolution: int = 201, ax: Any = None):
    """Map of the largest (or smallest) attainable EC over the two accuracies.

    Klein et al. 2025, Fig. 2a (upper bound) and App. D Fig. 6 (lower bound): κ_max = 1 only on
    the diagonal a_A = a_B; κ_min = −1 only at a_A = a_B = ½.

    Parameters
    ----------
    bound : {"upper", "lower"}
        The largest (``"upper"``) or smallest (``"lower"``) attainable EC.
    resolution : int, default 201
        Grid points per axis.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The map and its colour bar.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig = plot_kappa_bounds("lower", resolution=21)
    >>> len(fig.axes), fig.axes[0].get_title()
    (2, 'EC lower bound')
    >>> plt.close(fig)
    """
    if bound not in ("upper", "lower"):
        raise InvalidValueError(f"`bound` must be 'upper' or 'lower'; got {bound!r}")
    fig, ax = figure_axes(ax)
    acc = np.linspace(0, 1, int(resolution))
    lo, hi = kappa_bounds(acc[:, None], acc[None, :])
    values = hi if bound == "upper" else lo
    cmap = "viridis" if bound == "upper" else "magma"
    vmin, vmax = (0, 1) if bound == "upper" else (-1, 0)
    im = ax.pcolormesh(acc, acc, values, cmap=cmap, vmin=vmin, vmax=vmax, shading="auto")
    levels = [0.2, 0.4, 0.6, 0.8] if bound == "upper" else [-0.8, -0.6, -0.4, -0.2]
    cs = ax.contour(acc, acc, values, levels=levels, colors="white", linewidths=0.8)
    ax.clabel(cs, fmt="%.1f", fontsize=7)
    fig.colorbar(im, ax=ax, label=f"{'largest' if bound == 'upper' else 'smallest'} attainable EC")
    ax.set_xlabel("accuracy of B")
    ax.set_ylabel("accuracy of A")
    ax.set_aspect("equal")
    ax.set_title(f"EC {bound} bound")
    return fig

