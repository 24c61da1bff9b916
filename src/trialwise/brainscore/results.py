"""The results of Brain-Score behavioural scores: :class:`BrainScoreResult` and :class:`CeilingResult`.

Shared by :class:`trialwise.brainscore.BehavioralBenchmark` (:mod:`trialwise.brainscore.behavioral`) and the
metric functions :func:`trialwise.brainscore.image_level`, :func:`~trialwise.brainscore.i1n`,
:func:`~trialwise.brainscore.delta` and :func:`~trialwise.brainscore.ost_correlation`, in a
module of their own so that the benchmark can call those functions without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown

__all__ = ["BrainScoreResult", "CeilingResult"]


@dataclass(frozen=True, repr=False)
class CeilingResult(Result):
    """A benchmark's ceiling, how well the humans agree with each other, with its CI.

    ``statistic`` is the ceiling; ``confidence_interval`` the percentile interval of
    ``bootstrap_distribution`` (items resampled within conditions); ``method`` says how
    it was computed (split-half over subjects, all pairs, or fixed).
    """

    statistic: float = field(metadata=shown("ceiling", in_repr=True, repr_name="ceiling"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, detail="percentile, B = {n_resamples}"))
    method: str = field(metadata=shown("method", in_repr=True, repr_name="", format="text"))
    metric: str
    confidence_level: float
    n_resamples: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = ("statistic", "ci_low", "ci_high", "confidence_level", "method",
                                                "metric", "n_resamples")
    repr_prefix = "{metric}:"
    summary_title = "Ceiling of a behavioural benchmark ({metric})"

    def __float__(self) -> float:
        return float(self.statistic)


@dataclass(frozen=True, repr=False)
class BrainScoreResult(Result):
    """A candidate's score on a behavioural benchmark (:class:`trialwise.brainscore.BehavioralBenchmark`), or of
    :func:`trialwise.brainscore.delta`, :func:`trialwise.brainscore.ost_correlation`,
    :func:`trialwise.brainscore.image_level` and :func:`trialwise.brainscore.i1n` (their docstrings say how
    their intervals are formed).

    ``statistic`` = ``clip(raw / ceiling, 0, 1)`` (for I1n/I2n the mean over splits of
    ``raw / √ceiling``, Brain-Score's rule); ``raw`` the metric before ceiling;
    ``ceiling`` a :class:`CeilingResult`. All intervals are percentile intervals of one
    joint bootstrap (the same item replicates for the candidate and the humans), so the
    score's interval includes the ceiling's uncertainty. ``n_undefined``: replicates
    whose ceiling was ≤ 0 (score undefined, left out of the interval).
    """

    observer: str
    statistic: float = field(metadata=shown(
        "score = clip(raw / ceiling, 0, 1)", in_repr=True, repr_name="score", interval="confidence_interval"))
    confidence_interval: ConfidenceInterval
    raw: float = field(metadata=shown("raw", in_repr=True, interval="raw_interval"))
    raw_interval: ConfidenceInterval
    ceiling: CeilingResult = field(metadata=shown("ceiling", in_repr=True, format="result"))
    metric: str = field(metadata=shown(in_repr=True, repr_name="", format="text"))
    protocol: str
    confidence_level: float
    n_resamples: int = field(metadata=shown("joint bootstrap B", format="int", detail="percentile intervals"))
    n_undefined: int = field(metadata=shown(
        "undefined replicates", format=lambda value, res: f"{value} with ceiling ≤ 0 left out" if value else None))
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    raw_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    #: I2n/I1n with the split-half ceiling: (n_splits, 2), each half split's raw value and ceiling (Brain-Score's
    #: per-split raw values; empty for the other metrics)
    split_values: NDArray = field(default_factory=lambda: np.empty((0, 2)), compare=False)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = (
        "observer", "statistic", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling", "ceiling_low",
        "ceiling_high", "confidence_level", "metric", "protocol", "n_resamples", "n_undefined")
    _frame_sources = {"raw_low": "raw_interval.low", "raw_high": "raw_interval.high", "ceiling": "ceiling.statistic",
                      "ceiling_low": "ceiling.confidence_interval.low", "ceiling_high": "ceiling.confidence_interval.high"}
    repr_prefix = "{observer}:"
    summary_title = "Behavioural benchmark score of {observer} ({metric}, protocol {protocol})"

    @property
    def score(self) -> float:
        """The ceiled score (same as ``statistic``)."""
        return self.statistic

    @property
    def method(self) -> str:
        """How the score was computed (the metric and how its ceiling was)."""
        return f"{self.metric}; ceiling: {self.ceiling.method}"
