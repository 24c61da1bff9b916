"""Reading the per-item logs that language-model evaluation harnesses write.

One module per format — :mod:`~trialwise.logs.lm_eval` (lm-evaluation-harness
``--log_samples``, also the Open LLM Leaderboard's "details") and :mod:`~trialwise.logs.helm`
(HELM run folders) — and the table they all return, with its checks, in
:mod:`~trialwise.logs.records`. See ``docs/language_models.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.logs.helm import read_helm
    from trialwise.logs.lm_eval import read_lm_eval
    from trialwise.logs.records import LOG_COLUMNS

__all__ = ["read_lm_eval", "read_helm", "LOG_COLUMNS"]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.logs.helm": ("read_helm",),
    "trialwise.logs.lm_eval": ("read_lm_eval",),
    "trialwise.logs.records": ("LOG_COLUMNS",),
})
