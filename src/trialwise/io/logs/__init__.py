"""The readers of language-model evaluation logs, one module per harness (public names in :mod:`trialwise.io`).

:mod:`~trialwise.io.logs.lm_eval` (lm-evaluation-harness ``--log_samples``, also the Open LLM
Leaderboard's "details"), :mod:`~trialwise.io.logs.helm` (HELM run folders), and the table they
all return, with its checks, in :mod:`~trialwise.io.logs.records`; generated answers to multiple-choice
questions are mapped to an option in :mod:`~trialwise.io.logs.answers`. See ``docs/language_models.md``.
"""
