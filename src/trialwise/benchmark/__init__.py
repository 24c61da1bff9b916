"""Benchmarks: protocols, the jointly bootstrapped hierarchy, leaderboards with rank confidence, Brain-Score.

Where things live: ``protocol`` (what counts and how to average), ``hierarchy`` (trials →
design, the joint bootstrap, the swap null), ``leaderboard`` (:func:`~trialwise.leaderboard`,
:class:`~trialwise.Leaderboard`), ``differences`` (tests of "alike" between candidates),
``experiments`` (per-experiment scores), ``ranks`` (rank sets, the set of the best, tie
groups, Kendall's τ),
``notes`` (structured notes). Brain-Score (gathered in ``brainscore``): ``ceilings``,
``synthetic`` (trials for published scores, Klein et al. 2025, App. I), ``behavioral``
(:class:`~trialwise.BehavioralBenchmark`), ``assembly`` (xarray assemblies as trials).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.benchmark.protocol import ACCURACY, FLAT, METRICS, MODEL_VS_HUMAN, PROTOCOLS, TEXTURE_VS_SHAPE, Protocol, get_protocol

__all__ = ["ACCURACY", "FLAT", "METRICS", "MODEL_VS_HUMAN", "PROTOCOLS", "TEXTURE_VS_SHAPE", "Protocol", "get_protocol"]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.benchmark.protocol": ("ACCURACY", "FLAT", "METRICS", "MODEL_VS_HUMAN", "PROTOCOLS",
                                     "TEXTURE_VS_SHAPE", "Protocol", "get_protocol"),
})
