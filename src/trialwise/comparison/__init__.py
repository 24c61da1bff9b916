"""Comparing two classifiers (“Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning*): every method as its own function; :func:`trialwise.compare` runs them all.

* :mod:`~trialwise.comparison.correctness` — the correct/incorrect 2×2 table (needs the truth):
  contingency table, McNemar (five variants), Yule's Q; any K via the collapse.
* :mod:`~trialwise.comparison.matrix` — the K × K agreement matrix of the predicted
  labels (no truth): disagreement, Cohen's κ, Bowker, Stuart–Maxwell, the omnibus
  permutation test.
* :mod:`~trialwise.comparison.probabilities` — predicted probabilities: Brier score and
  skill, and the paired per-sample-score tests; :mod:`~trialwise.comparison.calibration` —
  calibration curves and ECE.
* :mod:`~trialwise.comparison.roc` — AUC and DeLong's test, binary, OvR and OvO.
* :mod:`~trialwise.comparison.paired` — :func:`paired_runs`, the paired comparison of two runs
  of a benchmark (a trial table, e.g. two evaluation logs): accuracies, their difference with a
  paired (cluster-robust) interval, McNemar, the minimum detectable difference, EC and CAPA.
* :mod:`~trialwise.comparison.ensemble` — the ensemble recommendation of §14.3.11.
* :mod:`~trialwise.comparison.report` — :func:`trialwise.compare`, all of the above in one report.
* :mod:`~trialwise.comparison.result` — the result classes (:class:`ComparisonResult` and
  its typed subclasses, :class:`CalibrationCurve`).

Every function here compares labels through :func:`trialwise.io.labels.code_labels`: one
rule for when a prediction is the truth's class, or two classifiers' labels agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.comparison.matrix import (
        PERMUTATION_STATISTICS,
        agreement_matrix,
        bowker_test,
        cohen_kappa,
        disagreement,
        stuart_maxwell_test,
        symmetry_permutation_test,
    )
    from trialwise.comparison.roc import MULTI_CLASS, auc, delong_test
    from trialwise.comparison.ensemble import DECISIONS, ensemble_recommendation
    from trialwise.comparison.correctness import MCNEMAR_METHODS, contingency_table, mcnemar, yules_q
    from trialwise.comparison.probabilities import PROBA_SUM_TOLERANCE, SCORING_RULES, brier_score, brier_skill_score, error_correlation, paired_ttest, sample_scores, score_difference, wilcoxon_test
    from trialwise.comparison.calibration import BIN_STRATEGIES, CALIBRATION_KINDS, calibration_curve, expected_calibration_error
    from trialwise.comparison.ensemble import EnsembleRecommendation
    from trialwise.comparison.paired import PairedRunsResult, paired_runs
    from trialwise.comparison.report import ComparisonReport
    from trialwise.comparison.result import (
        AgreementResult,
        AUCResult,
        CalibrationCurve,
        ComparisonResult,
        McNemarResult,
        ScoreResult,
        SymmetryTestResult,
    )

__all__ = [
    "BIN_STRATEGIES", "CALIBRATION_KINDS", "DECISIONS", "MCNEMAR_METHODS", "MULTI_CLASS", "PERMUTATION_STATISTICS",
    "PROBA_SUM_TOLERANCE", "SCORING_RULES",
    "AUCResult", "AgreementResult", "CalibrationCurve", "ComparisonReport", "ComparisonResult", "EnsembleRecommendation",
    "McNemarResult", "PairedRunsResult", "ScoreResult", "SymmetryTestResult",
    "agreement_matrix", "auc", "bowker_test", "brier_score", "brier_skill_score", "calibration_curve",
    "cohen_kappa", "contingency_table", "delong_test", "disagreement", "ensemble_recommendation", "error_correlation",
    "expected_calibration_error", "mcnemar", "paired_runs", "paired_ttest", "sample_scores", "score_difference",
    "stuart_maxwell_test", "symmetry_permutation_test", "wilcoxon_test", "yules_q",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.comparison.matrix": ("PERMUTATION_STATISTICS", "agreement_matrix", "bowker_test",
                                       "cohen_kappa", "disagreement", "stuart_maxwell_test",
                                       "symmetry_permutation_test"),
    "trialwise.comparison.roc": ("MULTI_CLASS", "auc", "delong_test"),
    "trialwise.comparison.ensemble": ("DECISIONS", "ensemble_recommendation", "EnsembleRecommendation"),
    "trialwise.comparison.correctness": ("MCNEMAR_METHODS", "contingency_table", "mcnemar", "yules_q"),
    "trialwise.comparison.probabilities": ("PROBA_SUM_TOLERANCE", "SCORING_RULES", "brier_score", "brier_skill_score",
                                           "error_correlation", "paired_ttest", "sample_scores", "score_difference",
                                           "wilcoxon_test"),
    "trialwise.comparison.calibration": ("BIN_STRATEGIES", "CALIBRATION_KINDS", "calibration_curve",
                                         "expected_calibration_error"),
    "trialwise.comparison.report": ("ComparisonReport",),
    "trialwise.comparison.paired": ("PairedRunsResult", "paired_runs"),
    "trialwise.comparison.result": ("AgreementResult", "AUCResult", "CalibrationCurve", "ComparisonResult",
                                    "McNemarResult", "ScoreResult", "SymmetryTestResult"),
})
