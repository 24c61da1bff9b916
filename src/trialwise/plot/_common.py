"""Helpers shared by the figure modules: axes creation, colours, label widths, intervals."""

from __future__ import annotations

import numpy as np


def figure_axes(ax, figsize=(5.0, 4.0)):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib, a dependency of trialwise: pip install matplotlib") from exc
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax.figure, ax


def palette(k: int):
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.05, 0.9, max(k, 1))]


def label_inches(labels, fontsize: float = 8.0) -> float:
    """Width in inches of the longest label at ``fontsize`` (about 0.6 em per character)."""
    longest = max((len(str(s)) for s in labels), default=0)
    return 0.6 * fontsize / 72 * longest + 0.25


def draw_intervals(ax, estimate, low, high, y, *, color, ms: float = 4, lw: float = 1.6, label=None):
    """Estimates (dots) and intervals (segments) drawn separately.

    Never assumes ``low <= estimate <= high``: a bootstrap percentile interval need not
    contain its estimate (a skewed replicate distribution). Estimates outside their
    interval are drawn hollow and get their own legend entry. NaN draws nothing.
    Returns the number of estimates outside their interval.
    """
    est = np.asarray(estimate, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    y = np.asarray(y, dtype=float)
    ax.hlines(y, lo, hi, color=color, lw=lw, alpha=0.8)
    ax.plot(est, y, "o", color=color, ms=ms, label=label, zorder=3)
    with np.errstate(invalid="ignore"):
        outside = (est < lo) | (est > hi)
    if outside.any():
        ax.plot(est[outside], y[outside], "o", mfc="white", mec=color, mew=1.2, ms=ms + 1, zorder=4,
                label="estimate outside its interval")
    return int(outside.sum())


def legend_outside(ax, **kwargs):
    """The legend right of the axes, outside the data area (constrained layout makes room for it)."""
    kwargs.setdefault("fontsize", 7)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False, **kwargs)


def shared_xlim(axes, low, high, estimate, pad: float = 0.04):
    """One x-range for ``axes``: every interval bound and estimate inside, with a margin; None when none is finite."""
    values = np.concatenate([np.ravel(np.asarray(a, dtype=float)) for a in (low, high, estimate)])
    values = values[np.isfinite(values)]
    if not values.size:
        return None
    lo, hi = float(values.min()), float(values.max())
    margin = pad * (hi - lo) if hi > lo else 0.05
    for ax in axes:
        ax.set_xlim(lo - margin, hi + margin)
    return lo - margin, hi + margin
