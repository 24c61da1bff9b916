"""Planning experiments: how many trials, how many questions, what power.

:func:`trialwise.plan_trials` is at the top of the package. Modules: ``trials`` (the interval
width and power of error consistency by the number of trials, the copy-model check), ``curve``
(interval width against the number of trials), ``questions`` (accuracy and CAPA by the number of
questions), ``clusters`` (the cluster design effect, the ICC of a pilot), ``results``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.planning.trials import ci_width, power_difference, validate_copy_model
    from trialwise.planning.questions import accuracy_half_width, agreement_half_width, agreement_influence, detectable_accuracy_difference, power_accuracy_difference, power_agreement_difference
    from trialwise.planning.clusters import design_effect, estimate_icc
    from trialwise.planning.results import CIWidthResult, ClusterDesign, CopyModelValidation, HalfWidthResult, PlanResult, PowerResult, QuestionPowerResult

__all__ = [
    "ci_width", "power_difference", "validate_copy_model", "accuracy_half_width", "agreement_half_width",
    "agreement_influence", "design_effect", "detectable_accuracy_difference", "estimate_icc", "power_accuracy_difference",
    "power_agreement_difference", "CIWidthResult", "ClusterDesign", "CopyModelValidation", "HalfWidthResult",
    "PlanResult", "PowerResult", "QuestionPowerResult",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.planning.trials": ("ci_width", "power_difference", "validate_copy_model",),
    "trialwise.planning.questions": ("accuracy_half_width", "agreement_half_width", "agreement_influence", "detectable_accuracy_difference",
                                     "power_accuracy_difference", "power_agreement_difference"),
    "trialwise.planning.clusters": ("design_effect", "estimate_icc"),
    "trialwise.planning.results": ("CIWidthResult", "ClusterDesign", "CopyModelValidation", "HalfWidthResult", "PlanResult", "PowerResult", "QuestionPowerResult",),
})
