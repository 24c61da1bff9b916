"""Figures of validity studies: the coverage of an interval method over a design grid."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise.plot._common import figure_axes

__all__ = ["plot_coverage"]


def plot_coverage(study, method: str, *, confidence_level: float = 0.95, kappa: float | None = None,
                  ax: Any = None):
    """Heatmap of an interval method's coverage: accuracy pairs × n, one panel per κ.

    ``study`` is a :class:`trialwise.validity.CoverageStudy`. Cells are coloured by coverage on a
    diverging scale centred at the nominal level and annotated in percent; grey cells
    are unattainable or left out; a cell whose point has ≥ 1 % undefined estimates or
    replicates is marked ``*`` (the coverage requirement does not apply there). With
    ``kappa`` (or ``ax``) a single panel is drawn.

    Parameters
    ----------
    study : CoverageStudy
        From :func:`trialwise.validity.studies.coverage_study`.
    method : str
        The interval method to show.
    confidence_level : float, default 0.95
        The nominal level to show (the colour scale is centred there).
    kappa : float, optional
        Draw only this κ's panel.
    ax : matplotlib.axes.Axes, optional
        Axes to draw one panel into (default: a new figure, one panel per κ).

    Returns
    -------
    matplotlib.figure.Figure
        The panels and the colour bar.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> grid = tw.validity.study_grid(n=[50, 200], accuracies=[0.75], kappas=[0.5])
    >>> st = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95],
    ...                                 n_datasets=100, n_resamples=100, rng=1)
    >>> fig = plot_coverage(st, "jeffreys")
    >>> fig.axes[0].get_title(), [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ('κ = 0.5', ['50', '200'])
    >>> plt.close(fig)
    """
    t = study.table
    t = t[(t.method == method) & np.isclose(t.confidence_level, confidence_level)]
    if t.empty:
        raise InvalidValueError(f"the study has no rows for method {method!r} at level {confidence_level}")
    judged = study.eligible()
    judged = set(map(tuple, judged[["n", "accuracy_a", "accuracy_b", "kappa"]].drop_duplicates().to_numpy()))
    kappas = sorted(t.kappa.unique()) if kappa is None and ax is None else [
        t.kappa.iloc[0] if kappa is None else float(kappa)]
    if ax is None:
        import matplotlib.pyplot as plt

        fig, grid_axes = plt.subplots(1, len(kappas), figsize=(3.2 * len(kappas) + 0.8, 5.2), layout="constrained",
                                      squeeze=False, sharey=True)
        axes = list(grid_axes[0])
    else:
        fig, ax = figure_axes(ax)
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

        cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.88")
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
    if im is not None:  # None only for a study without rows
        fig.colorbar(im, ax=list(axes), label=f"coverage at nominal {100 * confidence_level:g}%", shrink=0.8)
    fig.suptitle(f"{method}: coverage at nominal {100 * confidence_level:g}%") if len(axes) > 1 else None
    return fig

