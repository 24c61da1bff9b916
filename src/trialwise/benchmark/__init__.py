"""Benchmarks: protocols, the jointly bootstrapped hierarchy, leaderboards with rank confidence, Brain-Score."""

from trialwise.benchmark.protocol import FLAT, METRICS, MODEL_VS_HUMAN, PROTOCOLS, TEXTURE_VS_SHAPE, Protocol, get_protocol

__all__ = ["FLAT", "METRICS", "MODEL_VS_HUMAN", "PROTOCOLS", "TEXTURE_VS_SHAPE", "Protocol", "get_protocol"]
