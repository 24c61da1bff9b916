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

from trialwise._core.format import format_number, format_percent
from trialwise._core.results import ConfidenceInterval, Result

__all__ = ["BrainScoreResult", "CeilingResult"]


@dataclass(frozen=True, repr=False)
class CeilingResult(Result):
    """A benchmark's ceiling, how well the humans agree with each other, with its CI.

    ``statistic`` is the ceiling; ``confidence_interval`` the percentile interval of
    ``bootstrap_distribution`` (items resampled within conditions); ``method`` says how
    it was computed (split-half over subjects, all pairs, or fixed).
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    method: str
    metric: str
    confidence_level: float
    n_resamples: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()

    frame_columns: ClassVar[tuple[str, ...]] = ("statistic", "ci_low", "ci_high", "confidence_level", "method",
                                                "metric", "n_resamples")

    def __float__(self) -> float:
        return float(self.statistic)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"CeilingResult({self.metric}: ceiling={format_number(self.statistic)}, {format_percent(self.confidence_level)} CI "
                f"[{format_number(ci.low)}, {format_number(ci.high)}], {self.method})")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result.

        Returns
        -------
        str
            The ceiling, its interval (percentile, with B), the method and the notes.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("cue-conflict")
        >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=200, rng=0)
        >>> print(bench.ceiling.summary())
        Ceiling of a behavioural benchmark (error-consistency)
          ceiling              0.331
          95% CI               [0.304, 0.356]   (percentile, B = 200)
          method               all pairs of distinct humans (= split-half over all splits)
        """
        ci = self.confidence_interval
        return "\n".join([
            f"Ceiling of a behavioural benchmark ({self.metric})",
            f"  ceiling              {format_number(self.statistic)}",
            f"  {format_percent(self.confidence_level) + ' CI':<21}[{format_number(ci.low)}, {format_number(ci.high)}]   "
            f"(percentile, B = {self.n_resamples})",
            f"  method               {self.method}",
        ] + [f"  note: {n}" for n in self.notes])


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
    statistic: float
    confidence_interval: ConfidenceInterval
    raw: float
    raw_interval: ConfidenceInterval
    ceiling: CeilingResult
    metric: str
    protocol: str
    confidence_level: float
    n_resamples: int
    n_undefined: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    raw_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = (
        "observer", "statistic", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling", "ceiling_low",
        "ceiling_high", "confidence_level", "metric", "protocol", "n_resamples", "n_undefined")

    @property
    def score(self) -> float:
        """The ceiled score (same as ``statistic``)."""
        return self.statistic

    @property
    def method(self) -> str:
        """How the score was computed (the metric and how its ceiling was)."""
        return f"{self.metric}; ceiling: {self.ceiling.method}"

    def __repr__(self) -> str:
        ci, rc = self.confidence_interval, self.raw_interval
        return (f"BrainScoreResult({self.observer}: score={format_number(self.statistic)} "
                f"[{format_number(ci.low)}, {format_number(ci.high)}], raw={format_number(self.raw)} [{format_number(rc.low)}, {format_number(rc.high)}], "
                f"ceiling={format_number(self.ceiling.statistic)}, {self.metric})")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result.

        Returns
        -------
        str
            The score, the raw value and the ceiling, each with its interval, then B, the
            replicates left out and the notes.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("cue-conflict")
        >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=200, rng=0)
        >>> res = bench(trials[trials.subject == "resnet50"])
        >>> print(res.summary().splitlines()[1])
          score = clip(raw / ceiling, 0, 1)   0.205   95% CI [0.163, 0.253]
        """
        ci, rc, cc = self.confidence_interval, self.raw_interval, self.ceiling.confidence_interval
        lvl = format_percent(self.confidence_level) + " CI"
        lines = [
            f"Behavioural benchmark score of {self.observer} ({self.metric}, protocol {self.protocol})",
            f"  score = clip(raw / ceiling, 0, 1)   {format_number(self.statistic)}   {lvl} [{format_number(ci.low)}, {format_number(ci.high)}]",
            f"  raw                                 {format_number(self.raw)}   {lvl} [{format_number(rc.low)}, {format_number(rc.high)}]",
            f"  ceiling                             {format_number(self.ceiling.statistic)}   {lvl} [{format_number(cc.low)}, "
            f"{format_number(cc.high)}]   ({self.ceiling.method})",
            f"  percentile intervals of one joint bootstrap, B = {self.n_resamples}"
            + (f"; {self.n_undefined} replicate(s) with ceiling ≤ 0 left out" if self.n_undefined else ""),
        ]
        return "\n".join(lines + [f"  note: {n}" for n in self.notes])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with the columns ``frame_columns``.

        Returns
        -------
        pandas.DataFrame
            observer, statistic, ci_low, ci_high, raw, raw_low, raw_high, ceiling,
            ceiling_low, ceiling_high, confidence_level, metric, protocol, n_resamples,
            n_undefined.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human("cue-conflict")
        >>> cue = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
        >>> bench = tw.brainscore.BehavioralBenchmark(trials, cue, n_resamples=200, rng=0)
        >>> frame = bench(trials[trials.subject == "resnet50"]).to_frame()
        >>> frame[["statistic", "raw", "ceiling"]].round(3).values.tolist()
        [[0.205, 0.068, 0.331]]
        """
        import pandas as pd

        (raw_low, raw_high), (ceiling_low, ceiling_high) = self.raw_interval, self.ceiling.confidence_interval
        ci = self.confidence_interval
        row = {"observer": self.observer, "statistic": self.statistic, "ci_low": ci.low, "ci_high": ci.high,
               "raw": self.raw, "raw_low": raw_low, "raw_high": raw_high, "ceiling": self.ceiling.statistic,
               "ceiling_low": ceiling_low, "ceiling_high": ceiling_high, "confidence_level": self.confidence_level,
               "metric": self.metric, "protocol": self.protocol, "n_resamples": self.n_resamples,
               "n_undefined": self.n_undefined}
        return pd.DataFrame([row], columns=list(self.frame_columns))
