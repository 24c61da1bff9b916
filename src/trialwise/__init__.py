"""trialwise: trial-by-trial comparison of classifiers — humans, DNNs, LLMs — with honest uncertainty.

The top level holds the functions users call first, the result base, the errors and warnings,
and one package per thing users do; everything else of a domain lives in its package, under
one path (``tw.ec.CopyModel``, ``tw.leaderboards.Leaderboard``, ``tw.comparison.mcnemar``):

* ``trialwise.ec`` — error consistency: results, copy model, κ on count tables
* ``trialwise.similarity`` — language models: CAPA, choice agreement, their results
* ``trialwise.planning`` — how many trials or questions, power
* ``trialwise.leaderboards`` — protocols, leaderboards, ranks, differences
* ``trialwise.brainscore`` — Brain-Score's metrics and benchmarks with intervals
* ``trialwise.comparison`` — the two-classifier toolkit (McNemar, κ, Brier, AUC, …)
* ``trialwise.cue_conflict`` — shape bias
* ``trialwise.io`` — reading tables, model-vs-human folders, evaluation logs
* ``trialwise.datasets`` — the bundled data
* ``trialwise.validity`` — calibration studies of the intervals and tests
* ``trialwise.plot`` — figures of finished results

``import trialwise`` is cheap (about the CPU time of ``import numpy``): each public name is
loaded from its module on first use, so scipy.stats, pandas and matplotlib are imported only by
the functions that need them (:mod:`trialwise._core.lazy`; measured by
``benchmarks/speed/bench_import.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package
from trialwise._core.version import VERSION

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise import (brainscore, comparison, cue_conflict, datasets, ec, io, leaderboards, planning, plot,
                           similarity, validity)
    from trialwise._core.errors import InputError, InvalidTypeError, InvalidValueError
    from trialwise._core.results import ConfidenceInterval, Result
    from trialwise._core.warnings import (DegenerateDataWarning, MonteCarloResolutionWarning, SparseTableWarning,
                                          TrialwiseWarning, UndefinedReplicatesWarning)
    from trialwise.comparison.report import compare
    from trialwise.cue_conflict.shape_bias import shape_bias
    from trialwise.ec.difference import error_consistency_difference
    from trialwise.ec.pair import error_consistency
    from trialwise.ec.pairwise import pairwise_error_consistency
    from trialwise.io.trials import read_trials
    from trialwise.io.logs.detect import read_logs
    from trialwise.leaderboards.scoring import leaderboard
    from trialwise.planning.trials import plan_trials
    from trialwise.similarity.capa import agreement
    from trialwise.similarity.pairwise import pairwise_agreement

__version__ = VERSION

__all__ = [
    # the functions users call first
    "error_consistency", "pairwise_error_consistency", "error_consistency_difference",
    "agreement", "pairwise_agreement", "leaderboard", "compare", "plan_trials", "shape_bias", "read_trials",
    "read_logs",
    # the result base, errors and warnings
    "Result", "ConfidenceInterval",
    "InputError", "InvalidTypeError", "InvalidValueError",
    "TrialwiseWarning", "DegenerateDataWarning", "MonteCarloResolutionWarning", "SparseTableWarning",
    "UndefinedReplicatesWarning",
    # the packages
    "ec", "similarity", "planning", "leaderboards", "brainscore", "comparison", "cue_conflict", "io", "datasets",
    "validity", "plot",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise._core.results": ("ConfidenceInterval", "Result"),
    "trialwise._core.errors": ("InputError", "InvalidTypeError", "InvalidValueError"),
    "trialwise._core.warnings": ("DegenerateDataWarning", "MonteCarloResolutionWarning", "SparseTableWarning",
                                 "TrialwiseWarning", "UndefinedReplicatesWarning"),
    "trialwise.comparison.report": ("compare",),
    "trialwise.cue_conflict.shape_bias": ("shape_bias",),
    "trialwise.ec.difference": ("error_consistency_difference",),
    "trialwise.ec.pair": ("error_consistency",),
    "trialwise.ec.pairwise": ("pairwise_error_consistency",),
    "trialwise.io.trials": ("read_trials",),
    "trialwise.io.logs.detect": ("read_logs",),
    "trialwise.leaderboards.scoring": ("leaderboard",),
    "trialwise.planning.trials": ("plan_trials",),
    "trialwise.similarity.capa": ("agreement",),
    "trialwise.similarity.pairwise": ("pairwise_agreement",),
}, modules={name: f"trialwise.{name}" for name in (
    "ec", "similarity", "planning", "leaderboards", "brainscore", "comparison", "cue_conflict", "io", "datasets",
    "validity", "plot")})
