"""Figures from finished results. matplotlib is imported only when a figure is drawn.

Every function returns the :class:`matplotlib.figure.Figure` and accepts ``ax=`` to draw
into an existing axes (then the figure is ``ax.figure``).

One module per domain: :mod:`~trialwise.plot.ec`, :mod:`~trialwise.plot.planning`,
:mod:`~trialwise.plot.validity`, :mod:`~trialwise.plot.benchmark`, :mod:`~trialwise.plot.comparison`,
:mod:`~trialwise.plot.shape_bias`, :mod:`~trialwise.plot.similarity` and
:mod:`~trialwise.plot.brainscore`.
"""

from trialwise.plot.ec import plot_kappa_bounds
from trialwise.plot.planning import plot_ci_width, plot_copy_model_validation, plot_kappa_bias
from trialwise.plot.validity import plot_coverage
from trialwise.plot.benchmark import (
    plot_leaderboard,
    plot_rank_intervals,
    plot_pairwise_matrix,
    plot_experiments,
    plot_rank_correlation,
    plot_agreement,
)
from trialwise.plot.comparison import plot_reliability, plot_agreement_matrix
from trialwise.plot.shape_bias import plot_shape_bias
from trialwise.plot.similarity import plot_similarity_matrix
from trialwise.plot.brainscore import plot_brainscore

__all__ = [
    "plot_kappa_bounds",
    "plot_ci_width",
    "plot_copy_model_validation",
    "plot_kappa_bias",
    "plot_coverage",
    "plot_leaderboard",
    "plot_rank_intervals",
    "plot_pairwise_matrix",
    "plot_experiments",
    "plot_rank_correlation",
    "plot_shape_bias",
    "plot_agreement",
    "plot_reliability",
    "plot_agreement_matrix",
    "plot_brainscore",
    "plot_similarity_matrix",
]
