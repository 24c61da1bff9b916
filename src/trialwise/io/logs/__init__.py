"""The readers of language-model evaluation logs, one module per harness (public names in :mod:`trialwise.io`).

:mod:`~trialwise.io.logs.lm_eval` (lm-evaluation-harness ``--log_samples``, also the Open LLM
Leaderboard's "details"), :mod:`~trialwise.io.logs.helm` (HELM run folders),
:mod:`~trialwise.io.logs.inspect_ai` (Inspect AI ``.eval``/``.json`` logs),
:mod:`~trialwise.io.logs.lighteval` (lighteval details, Parquet),
:mod:`~trialwise.io.logs.every_eval_ever` (every-eval-ever instance-level records), the table they
all return, with its checks, in :mod:`~trialwise.io.logs.records`; generated answers to multiple-choice
questions are mapped to an option in :mod:`~trialwise.io.logs.answers`; and the one entry point that
recognises the format, :func:`trialwise.read_logs`, in :mod:`~trialwise.io.logs.detect`. See
``docs/language_models.md``.
"""
