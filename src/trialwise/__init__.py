"""trialwise: trial-by-trial comparison of classifiers — humans, DNNs, LLMs — with honest uncertainty.

``import trialwise`` is cheap (about the CPU time of ``import numpy``): each public name is
loaded from its module on first use (``tw.error_consistency``, ``from trialwise import
leaderboard``), so scipy.stats, pandas and matplotlib are imported only by the functions that
need them (:mod:`trialwise._core.lazy`; measured by ``benchmarks/bench_import.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package
from trialwise._core.version import VERSION

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise import benchmark, comparison, datasets, logs, plot, validity
    from trialwise import brainscore
    from trialwise._core.results import ConfidenceInterval, Result
    from trialwise.benchmark.behavioral import BrainScoreResult, CeilingResult
    from trialwise.benchmark.differences import BenchmarkDifferenceResult
    from trialwise.comparison.ensemble import EnsembleRecommendation, ensemble_recommendation
    from trialwise.comparison.report import ComparisonReport, compare
    from trialwise.comparison.result import CalibrationCurve, ComparisonResult
    from trialwise.copymodel import CopyModel, CopyModelFit, copy_parameters
    from trialwise.difference import ErrorConsistencyDifferenceResult, error_consistency_difference
    from trialwise.ec_result import ErrorConsistencyResult, PairwiseErrorConsistencyResult
    from trialwise.planning_result import (CIWidthResult, ClusterDesign, CopyModelValidation, HalfWidthResult,
                                           PlanResult, PowerResult, QuestionPowerResult)
    from trialwise._core.errors import InputError, InvalidTypeError, InvalidValueError
    from trialwise._core.warnings import (
        DegenerateDataWarning,
        MonteCarloResolutionWarning,
        SparseTableWarning,
        TrialwiseWarning,
        UndefinedReplicatesWarning,
    )
    from trialwise.planning import ci_width, plan_trials, power_difference, validate_copy_model
    from trialwise.planning_questions import (accuracy_half_width, agreement_half_width, agreement_influence,
                                              design_effect, estimate_icc, power_accuracy_difference,
                                              power_agreement_difference)
    from trialwise.benchmark.protocol import ACCURACY, FLAT, MODEL_VS_HUMAN, Protocol
    from trialwise.benchmark.behavioral import BehavioralBenchmark
    from trialwise.benchmark.leaderboard import Leaderboard, difference_test, leaderboard
    from trialwise.data import image_id, paired_correctness, read_model_vs_human, read_table, read_trials
    from trialwise.logs.helm import read_helm
    from trialwise.logs.lm_eval import read_lm_eval
    from trialwise.ec import error_consistency, pairwise_error_consistency
    from trialwise.agreement import agreement, pairwise_agreement
    from trialwise.agreement_result import AgreementDifferenceResult, ModelAgreementResult, PairwiseAgreementResult
    from trialwise.shapebias import ShapeBiasDifferenceResult, ShapeBiasResult, shape_bias
    from trialwise.kappa import (
        cell_probabilities,
        feasible_accuracy,
        kappa_bounds,
        kappa_bounds_from_expected,
        kappa_from_counts,
        kappa_variance,
        table_statistics,
        unbiased_kappa,
    )

__version__ = VERSION

__all__ = [
    "BehavioralBenchmark",
    "BenchmarkDifferenceResult",
    "BrainScoreResult",
    "CeilingResult",
    "CalibrationCurve",
    "ComparisonReport",
    "ComparisonResult",
    "EnsembleRecommendation",
    "brainscore",
    "comparison",
    "compare",
    "ensemble_recommendation",
    "ACCURACY",
    "FLAT",
    "Leaderboard",
    "MODEL_VS_HUMAN",
    "Protocol",
    "benchmark",
    "difference_test",
    "image_id",
    "leaderboard",
    "read_model_vs_human",
    "read_trials",
    "read_lm_eval",
    "read_helm",
    "CIWidthResult",
    "ConfidenceInterval",
    "Result",
    "CopyModel",
    "CopyModelFit",
    "CopyModelValidation",
    "DegenerateDataWarning",
    "MonteCarloResolutionWarning",
    "InputError",
    "InvalidTypeError",
    "InvalidValueError",
    "ErrorConsistencyDifferenceResult",
    "ErrorConsistencyResult",
    "PairwiseErrorConsistencyResult",
    "PlanResult",
    "PowerResult",
    "QuestionPowerResult",
    "HalfWidthResult",
    "ClusterDesign",
    "SparseTableWarning",
    "TrialwiseWarning",
    "UndefinedReplicatesWarning",
    "cell_probabilities",
    "ci_width",
    "copy_parameters",
    "datasets",
    "logs",
    "agreement",
    "pairwise_agreement",
    "ModelAgreementResult",
    "AgreementDifferenceResult",
    "PairwiseAgreementResult",
    "error_consistency",
    "error_consistency_difference",
    "feasible_accuracy",
    "kappa_bounds",
    "kappa_bounds_from_expected",
    "kappa_from_counts",
    "kappa_variance",
    "paired_correctness",
    "plot",
    "pairwise_error_consistency",
    "plan_trials",
    "power_difference",
    "power_accuracy_difference",
    "power_agreement_difference",
    "accuracy_half_width",
    "agreement_half_width",
    "agreement_influence",
    "design_effect",
    "estimate_icc",
    "read_table",
    "table_statistics",
    "ShapeBiasDifferenceResult",
    "ShapeBiasResult",
    "shape_bias",
    "unbiased_kappa",
    "validate_copy_model",
    "validity",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise._core.results": ("ConfidenceInterval", "Result"),
    "trialwise._core.errors": ("InputError", "InvalidTypeError", "InvalidValueError"),
    "trialwise._core.warnings": ("DegenerateDataWarning", "MonteCarloResolutionWarning", "SparseTableWarning",
                                 "TrialwiseWarning", "UndefinedReplicatesWarning"),
    "trialwise.benchmark.behavioral": ("BehavioralBenchmark", "BrainScoreResult", "CeilingResult"),
    "trialwise.benchmark.differences": ("BenchmarkDifferenceResult",),
    "trialwise.benchmark.leaderboard": ("Leaderboard", "difference_test", "leaderboard"),
    "trialwise.benchmark.protocol": ("ACCURACY", "FLAT", "MODEL_VS_HUMAN", "Protocol"),
    "trialwise.comparison.ensemble": ("EnsembleRecommendation", "ensemble_recommendation"),
    "trialwise.comparison.report": ("ComparisonReport", "compare"),
    "trialwise.comparison.result": ("CalibrationCurve", "ComparisonResult"),
    "trialwise.copymodel": ("CopyModel", "CopyModelFit", "copy_parameters"),
    "trialwise.difference": ("ErrorConsistencyDifferenceResult", "error_consistency_difference"),
    "trialwise.ec_result": ("ErrorConsistencyResult", "PairwiseErrorConsistencyResult"),
    "trialwise.ec": ("error_consistency", "pairwise_error_consistency"),
    "trialwise.planning_result": ("CIWidthResult", "ClusterDesign", "CopyModelValidation", "HalfWidthResult",
                                  "PlanResult", "PowerResult", "QuestionPowerResult"),
    "trialwise.planning": ("ci_width", "plan_trials", "power_difference", "validate_copy_model"),
    "trialwise.planning_questions": ("accuracy_half_width", "agreement_half_width", "agreement_influence",
                                     "design_effect", "estimate_icc", "power_accuracy_difference",
                                     "power_agreement_difference"),
    "trialwise.data": ("image_id", "paired_correctness", "read_model_vs_human", "read_table", "read_trials"),
    "trialwise.logs.helm": ("read_helm",),
    "trialwise.logs.lm_eval": ("read_lm_eval",),
    "trialwise.agreement": ("agreement", "pairwise_agreement"),
    "trialwise.agreement_result": ("AgreementDifferenceResult", "ModelAgreementResult", "PairwiseAgreementResult"),
    "trialwise.shapebias": ("ShapeBiasDifferenceResult", "ShapeBiasResult", "shape_bias"),
    "trialwise.kappa": ("cell_probabilities", "feasible_accuracy", "kappa_bounds", "kappa_bounds_from_expected",
                        "kappa_from_counts", "kappa_variance", "table_statistics", "unbiased_kappa"),
}, modules={
    "benchmark": "trialwise.benchmark", "brainscore": "trialwise.brainscore",
    "comparison": "trialwise.comparison", "datasets": "trialwise.datasets", "logs": "trialwise.logs",
    "plot": "trialwise.plot", "validity": "trialwise.validity",
})
