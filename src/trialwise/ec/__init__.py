"""Error consistency: κ on trial-by-trial correctness, of one pair and of every pair, with intervals and tests.

The functions users call first are at the top of the package (:func:`trialwise.error_consistency`,
:func:`trialwise.pairwise_error_consistency`, :func:`trialwise.error_consistency_difference`);
here are their result classes, the copy model (κ = p_copy · mismatch: the probability that one
observer copies the other, times a mismatch factor; Klein et al. 2025) and the closed forms on count tables: κ and its variance, its bounds
given two accuracies, the bias-corrected κ.

Modules: ``pair`` (one pair), ``pairwise`` (every pair, resampled jointly; Dask), ``blocks`` (the
kernel of one block of pairs), ``inference`` (the core both share: interval, test, notes),
``results``, ``difference`` (is κ(R, X) = κ(R, Y)?) with its default test in ``restricted`` (the
restricted Wald test), ``copymodel`` (with its fit to a table in ``copy_fit``),
``observed_agreement`` (the chance region of the figures).
The numerics on count tables are shared with the rest of trialwise in ``trialwise._stats``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.ec.results import ErrorConsistencyResult, PairwiseErrorConsistencyResult
    from trialwise.ec.difference import ErrorConsistencyDifferenceResult
    from trialwise.ec.copymodel import CopyModel, copy_parameters
    from trialwise.ec.copy_fit import CopyModelFit
    from trialwise._stats.kappa import kappa_from_counts, kappa_variance, table_statistics, unbiased_kappa
    from trialwise._stats.bounds import cell_probabilities, feasible_accuracy, kappa_bounds, kappa_bounds_from_expected

__all__ = [
    "ErrorConsistencyResult", "PairwiseErrorConsistencyResult", "ErrorConsistencyDifferenceResult",
    "CopyModel", "CopyModelFit", "copy_parameters", "cell_probabilities", "feasible_accuracy", "kappa_bounds",
    "kappa_bounds_from_expected", "kappa_from_counts", "kappa_variance", "table_statistics", "unbiased_kappa",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.ec.results": ("ErrorConsistencyResult", "PairwiseErrorConsistencyResult",),
    "trialwise.ec.difference": ("ErrorConsistencyDifferenceResult",),
    "trialwise.ec.copymodel": ("CopyModel", "copy_parameters"),
    "trialwise.ec.copy_fit": ("CopyModelFit",),
    "trialwise._stats.kappa": ("kappa_from_counts", "kappa_variance", "table_statistics", "unbiased_kappa"),
    "trialwise._stats.bounds": ("cell_probabilities", "feasible_accuracy", "kappa_bounds", "kappa_bounds_from_expected"),
})
