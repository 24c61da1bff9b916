"""Figures from finished results. matplotlib is imported only when a figure is drawn.

Every function returns the :class:`matplotlib.figure.Figure` and accepts ``ax=`` to draw
into an existing axes (then the figure is ``ax.figure``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._results import CIWidthResult, CopyModelValidation
from trialwise.kappa import kappa_bounds

__all__ = ["plot_kappa_bounds", "plot_ci_width", "plot_copy_model_validation", "plot_kappa_bias", "plot_coverage"]


def _axes(ax, figsize=(5.0, 4.0)):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib: pip install 'trialwise[plot]'") from exc
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax.figure, ax


def plot_kappa_bounds(bound: str = "upper", *, resolution: int = 201, ax: Any = None):
    """Map of the largest (or smallest) attainable EC over the two accuracies.

    seed 000 Fig. 2a (upper bound) and App. D Fig. 6 (lower bound): κ_max = 1 only on
    the diagonal a_A = a_B; κ_min = −1 only at a_A = a_B = ½.

    Parameters
    ----------
    bound : {"upper", "lower"}
    resolution : int
        Grid points per axis.
    """
    if bound not in ("upper", "lower"):
        raise ValueError(f"`bound` must be 'upper' or 'lower'; got {bound!r}")
    fig, ax = _axes(ax)
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


def _series(result: CIWidthResult, along: str):
    """Split a grid result into 1-D series along ``along`` (one per other design)."""
    frame = result.to_frame()
    keys = [c for c in ("n", "accuracy_a", "accuracy_b", "kappa") if c != along]
    for key, part in frame.groupby(keys, sort=True):
        yield dict(zip(keys, key)), part.sort_values(along)


def plot_ci_width(result: CIWidthResult, *, literature=(147, 160, 600, 1280, 3222), ax: Any = None):
    """Expected interval of κ̂ against the number of trials (seed 000, Fig. 3).

    One band (the ``confidence_level`` interval of κ̂ over simulated experiments) and
    the median per design, on a log axis, with the true κ and the trial counts used in
    the literature marked.

    Parameters
    ----------
    result : CIWidthResult
        From :func:`trialwise.ci_width` with several values of n (e.g.
        ``n=np.logspace(1, 5, 30).round()[:, None]`` against a vector of accuracies).
    literature : sequence of int
        Trial counts to mark (``()`` for none).
    """
    if not isinstance(result, CIWidthResult):
        raise TypeError(f"`result` must be a CIWidthResult from trialwise.ci_width; got {type(result).__name__}")
    fig, ax = _axes(ax, (6.0, 4.0))
    series = list(_series(result, "n"))
    colors = _colors(len(series))
    for color, (design, part) in zip(colors, series):
        label = f"acc. {design['accuracy_a']:.2f} / {design['accuracy_b']:.2f}, EC {design['kappa']:.2f}"
        ax.fill_between(part.n, part.low, part.high, color=color, alpha=0.25, lw=0)
        ax.plot(part.n, part["median"], color=color, lw=1.2, label=label)
    for k in np.unique(result.kappa):
        ax.axhline(k, color="black", lw=0.8, ls="--")
    for i, n in enumerate(literature):
        ax.axvline(n, color="grey", lw=0.8, ls=":")
        ax.annotate(str(n), (n, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                    va="top", ha="right", color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("number of trials")
    ax.set_ylabel(f"EC estimate ({100 * result.confidence_level:g}% of experiments)")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def plot_copy_model_validation(validation: CopyModelValidation, *, ax: Any = None):
    """Copy-model intervals next to bootstrap intervals of data with known EC (seed 000, App. G)."""
    if not isinstance(validation, CopyModelValidation):
        raise TypeError(
            f"`validation` must be a CopyModelValidation from trialwise.validate_copy_model; got {type(validation).__name__}"
        )
    fig, ax = _axes(ax, (7.0, 4.0))
    frame = validation.to_frame()
    x = np.arange(len(frame))
    ax.vlines(x - 0.15, frame.bootstrap_low, frame.bootstrap_high, color="C0", lw=3, label="bootstrap of the data")
    ax.vlines(x + 0.15, frame.model_low, frame.model_high, color="C1", lw=3, label="copy model")
    ax.plot(x, frame.kappa, "k_", ms=14, label="true EC")
    ax.set_xticks(x, [f"n={n}\n{a:.2f}/{b:.2f}" for n, a, b in zip(frame.n, frame.accuracy_a, frame.accuracy_b)],
                  fontsize=7)
    ax.set_ylabel(f"EC, {100 * validation.confidence_level:g}% interval")
    ax.legend(fontsize=8)
    return fig


def plot_kappa_bias(result: CIWidthResult, *, ax: Any = None):
    """Deviation of κ̂ from the true κ against the true κ (seed 000, App. E, Fig. 7).

    ``result`` comes from :func:`trialwise.ci_width` over a range of κ; one band
    (interval of κ̂ − κ) and one mean-bias line per remaining design (n, accuracies).
    """
    if not isinstance(result, CIWidthResult):
        raise TypeError(f"`result` must be a CIWidthResult from trialwise.ci_width; got {type(result).__name__}")
    fig, ax = _axes(ax, (6.0, 4.0))
    series = list(_series(result, "kappa"))
    for color, (design, part) in zip(_colors(len(series)), series):
        label = f"n {design['n']:.0f}, acc. {design['accuracy_a']:.2f} / {design['accuracy_b']:.2f}"
        ax.fill_between(part.kappa, part.low - part.kappa, part.high - part.kappa, color=color, alpha=0.25, lw=0)
        ax.plot(part.kappa, part.bias, color=color, lw=1.2, label=label)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("true EC")
    ax.set_ylabel("estimated − true EC")
    ax.legend(fontsize=7)
    return fig


def _colors(k: int):
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.05, 0.9, max(k, 1))]


def plot_coverage(study, method: str, *, confidence_level: float = 0.95, kappa: float | None = None,
                  ax: Any = None):
    """Heatmap of an interval method's coverage: accuracy pairs × n, one panel per κ.

    ``study`` is a :class:`trialwise.CoverageStudy`. Cells are coloured by coverage on a
    diverging scale centred at the nominal level and annotated in percent; grey cells
    are unattainable or left out; a cell whose point has ≥ 1 % undefined estimates or
    replicates is marked ``*`` (the coverage requirement does not apply there). With
    ``kappa`` (or ``ax``) a single panel is drawn.
    """
    t = study.table
    t = t[(t.method == method) & np.isclose(t.confidence_level, confidence_level)]
    if t.empty:
        raise ValueError(f"the study has no rows for method {method!r} at level {confidence_level}")
    judged = study.eligible()
    judged = set(map(tuple, judged[["n", "accuracy_a", "accuracy_b", "kappa"]].drop_duplicates().to_numpy()))
    kappas = sorted(t.kappa.unique()) if kappa is None and ax is None else [
        t.kappa.iloc[0] if kappa is None else float(kappa)]
    if ax is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(kappas), figsize=(3.2 * len(kappas) + 0.8, 5.2), layout="constrained",
                                 squeeze=False, sharey=True)
        axes = axes[0]
    else:
        fig, ax = _axes(ax)
        axes = [ax]
    ns = sorted(t.n.unique())
    pairs = sorted({(a, b) for a, b in zip(t.accuracy_a, t.accuracy_b)})
    half = 0.05
    im = None
    for axk, k in zip(axes, kappas):
        grid = np.full((len(pairs), len(ns)), np.nan)
        sub = t[np.isclose(t.kappa, k)]
        for row in sub.itertuples(index=False):
            grid[pairs.index((row.accuracy_a, row.accuracy_b)), ns.index(row.n)] = row.coverage
        import matplotlib

        cmap = matplotlib.colormaps["RdBu"].copy()
        cmap.set_bad("0.88")
        im = axk.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=confidence_level - half, vmax=confidence_level + half,
                        aspect="auto")
        for i, (a, b) in enumerate(pairs):
            for j, n in enumerate(ns):
                if np.isnan(grid[i, j]):
                    continue
                mark = "" if (n, a, b, k) in judged else "*"
                dark = abs(grid[i, j] - confidence_level) > 0.6 * half
                axk.text(j, i, f"{100 * grid[i, j]:.1f}{mark}", ha="center", va="center", fontsize=6.5,
                         color="white" if dark else "black")
        axk.set_xticks(range(len(ns)), [str(n) for n in ns])
        axk.set_yticks(range(len(pairs)), [f"{a:g} / {b:g}" for a, b in pairs])
        axk.set_xlabel("trials n")
        axk.set_title(f"κ = {k:g}")
    axes[0].set_ylabel("accuracies A / B")
    fig.colorbar(im, ax=list(axes), label=f"coverage at nominal {100 * confidence_level:g}%", shrink=0.8)
    fig.suptitle(f"{method}: coverage at nominal {100 * confidence_level:g}%") if len(axes) > 1 else None
    return fig
