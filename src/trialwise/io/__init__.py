"""Reading trials and logs: your own tables, model-vs-human's folders, language-model evaluation logs.

:func:`trialwise.read_trials` is at the top of the package. Modules: ``trials`` (tables of
trials and their checks, pairing trials by item), ``tables`` (reading a file: format, separator,
encoding, compression), ``model_vs_human`` (its raw-data folders and image names), ``headers`` (other
programs' headers and empty rows), ``labels`` (the one rule for when a response is the truth's class), and ``logs`` (one module
per evaluation harness: ``lm_eval``, ``helm``, ``inspect_ai``, ``lighteval``, ``every_eval_ever``; ``records``, the
table they all return; ``answers``, generated answers mapped to an option; ``detect``, whose
:func:`trialwise.read_logs` recognises the format).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.io.trials import TRIAL_COLUMNS, paired_correctness
    from trialwise.io.tables import read_table
    from trialwise.io.model_vs_human import image_id, read_model_vs_human
    from trialwise.io.logs.lm_eval import read_lm_eval
    from trialwise.io.logs.helm import read_helm
    from trialwise.io.logs.answers import map_answer
    from trialwise.io.logs.records import LOG_COLUMNS
    from trialwise.io.logs.inspect_ai import read_inspect
    from trialwise.io.logs.lighteval import read_lighteval
    from trialwise.io.logs.every_eval_ever import read_every_eval_ever

__all__ = [
    "TRIAL_COLUMNS", "image_id", "paired_correctness", "read_model_vs_human", "read_table", "read_lm_eval",
    "read_helm", "read_inspect", "read_lighteval", "read_every_eval_ever", "LOG_COLUMNS", "map_answer",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.io.trials": ("TRIAL_COLUMNS", "paired_correctness"),
    "trialwise.io.tables": ("read_table",),
    "trialwise.io.model_vs_human": ("image_id", "read_model_vs_human"),
    "trialwise.io.logs.lm_eval": ("read_lm_eval",),
    "trialwise.io.logs.helm": ("read_helm",),
    "trialwise.io.logs.answers": ("map_answer",),
    "trialwise.io.logs.records": ("LOG_COLUMNS",),
    "trialwise.io.logs.inspect_ai": ("read_inspect",),
    "trialwise.io.logs.lighteval": ("read_lighteval",),
    "trialwise.io.logs.every_eval_ever": ("read_every_eval_ever",),
})
