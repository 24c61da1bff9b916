"""Leaderboards whose ranks carry confidence: protocols, the jointly bootstrapped hierarchy, ranks, differences.

:func:`trialwise.leaderboard` is at the top of the package; here are its result
(:class:`Leaderboard`), the protocols (which experiments count and how they are averaged), and
the test of a difference between two candidates. Modules: ``protocol``, ``trials`` (any input
as the trial table), ``hierarchy`` (trials → design), ``bootstrap`` (the joint bootstrap of every
entry), ``replicates`` (the rows' scores in every replicate), ``influence`` (every item's influence
on a score), ``scoring`` (:func:`trialwise.leaderboard`, ``difference_test``), ``board`` (the
:class:`Leaderboard` result), ``ranks`` (rank sets, the set of the best, tie groups, Kendall's τ),
``differences`` and ``swap`` (tests of "alike"), ``winner``, ``experiments`` (per-experiment
scores), ``notes``, ``repeated`` (accuracy from repeated runs: :func:`replicate_accuracy`), ``conditions``
(model-vs-human's numbers per condition and dataset: :func:`condition_breakdown`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.leaderboards.board import Leaderboard
    from trialwise.leaderboards.scoring import difference_test
    from trialwise.leaderboards.differences import BenchmarkDifferenceResult
    from trialwise.leaderboards.repeated import ReplicateAccuracyResult, replicate_accuracy
    from trialwise.leaderboards.conditions import CONDITION_METRICS, ConditionBreakdown, condition_breakdown, condition_order
    from trialwise.leaderboards.protocol import ACCURACY, FLAT, METRICS, MODEL_VS_HUMAN, PROTOCOLS, TEXTURE_VS_SHAPE, Protocol, get_protocol

__all__ = [
    "Leaderboard", "difference_test", "BenchmarkDifferenceResult", "ACCURACY", "FLAT", "METRICS",
    "MODEL_VS_HUMAN", "PROTOCOLS", "TEXTURE_VS_SHAPE", "Protocol", "get_protocol",
    "replicate_accuracy", "ReplicateAccuracyResult", "condition_breakdown", "ConditionBreakdown",
    "CONDITION_METRICS", "condition_order",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.leaderboards.board": ("Leaderboard",),
    "trialwise.leaderboards.scoring": ("difference_test",),
    "trialwise.leaderboards.differences": ("BenchmarkDifferenceResult",),
    "trialwise.leaderboards.conditions": ("condition_breakdown", "ConditionBreakdown", "CONDITION_METRICS",
                                          "condition_order"),
    "trialwise.leaderboards.repeated": ("replicate_accuracy", "ReplicateAccuracyResult"),
    "trialwise.leaderboards.protocol": ("ACCURACY", "FLAT", "METRICS", "MODEL_VS_HUMAN", "PROTOCOLS", "TEXTURE_VS_SHAPE", "Protocol", "get_protocol",),
})
