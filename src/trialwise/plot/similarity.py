"""Figure of the agreement between many models: the similarity matrix, ordered by clustering.

Draws a finished :class:`trialwise.similarity.PairwiseAgreementResult`; the order of the models is
the leaf order of a hierarchical clustering (:func:`similarity_order`), a display choice
that computes no statistic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise.plot._common import figure_axes, label_inches

__all__ = ["plot_similarity_matrix", "similarity_order", "METRIC_SYMBOLS"]

#: How each agreement metric is named on a figure.
METRIC_SYMBOLS = {"capa": "CAPA κp", "capa-discrete": "discrete CAPA κp", "choice": "choice agreement",
                  "ec": "error consistency κ"}


def similarity_order(matrix: Any) -> list:
    """The rows of a square similarity table in the leaf order of a hierarchical clustering.

    Average linkage (UPGMA) on the distance ``1 − similarity`` with the optimal leaf
    ordering of Bar-Joseph et al. (2001), so that neighbours are as similar as the tree
    allows. An undefined (NaN) similarity counts as the largest distance in the table.

    Parameters
    ----------
    matrix : pandas.DataFrame
        Observers × observers, symmetric (e.g. :meth:`trialwise.similarity.PairwiseAgreementResult.matrix`);
        the diagonal is ignored.

    Returns
    -------
    list
        The row labels, reordered.

    References
    ----------
    Z. Bar-Joseph, D. K. Gifford and T. S. Jaakkola (2001), "Fast optimal leaf ordering
    for hierarchical clustering", Bioinformatics 17 (suppl. 1), S22–S29.

    Examples
    --------
    >>> import pandas as pd
    >>> m = pd.DataFrame([[1, .1, .8], [.1, 1, .2], [.8, .2, 1]], index=list("abc"), columns=list("abc"))
    >>> similarity_order(m)
    ['b', 'c', 'a']
    """
    from scipy.cluster.hierarchy import leaves_list, linkage, optimal_leaf_ordering
    from scipy.spatial.distance import squareform

    names = list(matrix.index)
    if len(names) < 3:
        return names
    dist = 1.0 - np.asarray(matrix, dtype=float)
    finite = dist[np.isfinite(dist)]
    dist = np.where(np.isfinite(dist), dist, finite.max() if finite.size else 1.0)
    dist = (dist + dist.T) / 2
    dist = dist - min(0.0, float(dist.min()))  # a similarity above 1 cannot occur; guard the distance
    np.fill_diagonal(dist, 0.0)
    condensed = squareform(dist, checks=False)
    tree = optimal_leaf_ordering(linkage(condensed, method="average"), condensed)
    return [names[i] for i in leaves_list(tree)]


def plot_similarity_matrix(result, *, order=None, ax: Any = None):
    """The agreement of every pair of models as a heatmap, each cell with its interval.

    Parameters
    ----------
    result : PairwiseAgreementResult
        From :func:`trialwise.pairwise_agreement`.
    order : sequence, optional
        Row and column order; default :func:`similarity_order` (hierarchical clustering on
        1 − similarity), which the title says.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The heatmap and its colour bar. With up to 12 models each cell shows the statistic
        and its confidence interval; an undefined pair is grey.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=200, rng=0)
    >>> fig = plot_similarity_matrix(res)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['sim/demo-1b', 'sim/demo-7b', 'sim/demo-7b-chat', 'sim/demo-13b']
    >>> plt.close(fig)
    """
    stat = result.matrix("statistic")
    names = similarity_order(stat) if order is None else list(order)
    unknown = [n for n in names if n not in stat.index]
    if unknown or len(set(names)) != len(names):
        raise InvalidValueError(f"`order` must list observers of the result once each; got {names!r}")
    stat = stat.loc[names, names]
    low = result.matrix("ci_low").loc[names, names].to_numpy()
    high = result.matrix("ci_high").loc[names, names].to_numpy()
    values = stat.to_numpy()
    k = len(names)
    symbol = METRIC_SYMBOLS.get(result.method, result.method)
    annotate = k <= 12
    cell = 0.95 if annotate else 0.3
    label = label_inches(names, 8)
    fig, ax = figure_axes(ax, figsize=(cell * k + label + 1.8, cell * k + label + 1.0))
    finite = values[np.isfinite(values)]
    if result.method == "choice":
        cmap, vmin, vmax = "viridis", 0.0, 1.0
    else:  # a chance-corrected agreement: 0 is chance, white
        top = max(float(np.abs(finite).max()) if finite.size else 1.0, 0.05)
        cmap, vmin, vmax = "RdBu_r", -top, top
    import matplotlib as mpl

    colours = mpl.colormaps[cmap].with_extremes(bad="0.85")
    img = ax.imshow(np.ma.masked_invalid(values), cmap=colours, vmin=vmin, vmax=vmax)
    if annotate:
        for i in range(k):
            for j in range(k):
                if i == j or not np.isfinite(values[i, j]):
                    continue
                dark = abs(values[i, j] - (vmin + vmax) / 2) > 0.6 * (vmax - vmin) / 2
                ax.text(j, i, f"{values[i, j]:.2f}\n[{low[i, j]:.2f}, {high[i, j]:.2f}]", ha="center",
                        va="center", fontsize=7, color="w" if dark else "k")
    ax.set_xticks(range(k), names, rotation=90, fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    fig.colorbar(img, ax=ax, label=symbol, shrink=0.8)
    how = ("ordered by hierarchical clustering (average linkage on 1 − similarity)" if order is None
           else "in the given order")
    ax.set_title(f"{symbol}, {result.confidence_level * 100:g}% CI in brackets\n{how}", fontsize=9)
    return fig
