"""Figures from finished results. matplotlib is imported only when a figure is drawn.

Every function returns the :class:`matplotlib.figure.Figure` and accepts ``ax=`` to draw
into an existing axes (then the figure is ``ax.figure``).

One module per domain: :mod:`~trialwise.plot.ec`, :mod:`~trialwise.plot.planning`,
:mod:`~trialwise.plot.validity`, :mod:`~trialwise.plot.benchmark`, :mod:`~trialwise.plot.comparison`,
:mod:`~trialwise.plot.shape_bias`, :mod:`~trialwise.plot.similarity`,
:mod:`~trialwise.plot.brainscore` and :mod:`~trialwise.plot.model_vs_human`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
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
    from trialwise.plot.brainscore import plot_benchmark_scores, plot_brainscore
    from trialwise.plot.model_vs_human import plot_conditions, plot_consistency

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
    "plot_benchmark_scores",
    "plot_similarity_matrix",
    "plot_conditions",
    "plot_consistency",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.plot.ec": ("plot_kappa_bounds",),
    "trialwise.plot.planning": ("plot_ci_width", "plot_copy_model_validation", "plot_kappa_bias"),
    "trialwise.plot.validity": ("plot_coverage",),
    "trialwise.plot.benchmark": ("plot_leaderboard", "plot_rank_intervals", "plot_pairwise_matrix",
                                 "plot_experiments", "plot_rank_correlation", "plot_agreement"),
    "trialwise.plot.comparison": ("plot_reliability", "plot_agreement_matrix"),
    "trialwise.plot.shape_bias": ("plot_shape_bias",),
    "trialwise.plot.similarity": ("plot_similarity_matrix",),
    "trialwise.plot.brainscore": ("plot_brainscore", "plot_benchmark_scores"),
    "trialwise.plot.model_vs_human": ("plot_conditions", "plot_consistency"),
})
