"""Brain-Score with confidence intervals: ``import trialwise.brainscore``.

Brain-Score: Schrimpf et al. 2018, *Brain-Score: which artificial neural network for object
recognition is most brain-like?*, bioRxiv 407007, and its documentation of behavioral
benchmarks (brain-score.org). Intervals for published scores: Klein, Meyen, Brendel, Wichmann
& Meding (2025), *Quantifying uncertainty in error consistency*, NeurIPS, §4.2 and App. I.

Brain-Score reports behavioural alignment relative to a *ceiling*, how well humans agree
with each other: ``score = clip(raw / ceiling, 0, 1)``. Each concept lives in its own module:

* the ceiling transform, its inverse and the human–human ceilings
  (:func:`ceil_score`, :func:`unceil_score`, :func:`ceilings`; ``ceiling``);
* confidence intervals for *published* scores, for which no model trials exist
  (:func:`synthetic_trials`, :func:`published_intervals`; Klein et al. 2025, App. I; ``synthetic``);
* a behavioural benchmark that scores a model's responses with CIs for the score, the
  raw value and the ceiling, resampled jointly (:class:`BehavioralBenchmark`; ``behavioral``,
  results in ``results``), and per benchmark, one per experiment, with their average as Brain-Score
  averages (:class:`BenchmarkScores`; ``benchmarks``);
* Brain-Score-style xarray assemblies as trials (:func:`trials_from_assembly`; ``assembly``) and
  Brain-Score's metrics with its call signatures (:class:`ErrorConsistency`, :class:`ValueDelta`,
  :class:`OSTCorrelation`, :class:`I2n`, :class:`I1n`; ``metrics``);
* Brain-Score's value delta (:func:`value_delta`; ``delta``) and OST correlation
  (:func:`ost_correlation`; ``ost``), standalone functions of a model's and the target's values
  with raw, ceiling and score intervals;
* Brain-Score's I2n and I1n (:func:`i2n`, :func:`i1n`; ``image_level``) from a model's class
  probabilities and human 2AFC or K-way trials, and a generator of such data
  (:func:`synthetic_2afc`; ``synthetic_i2n``).

xarray is optional (``pip install trialwise[xarray]``); only the adapter needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.brainscore.assembly import trials_from_assembly
    from trialwise.brainscore.behavioral import BENCHMARK_METRICS, BehavioralBenchmark
    from trialwise.brainscore.benchmarks import BenchmarkScores
    from trialwise.brainscore.results import BrainScoreResult, CeilingResult
    from trialwise.brainscore.metrics import ErrorConsistency, I1n, I2n, OSTCorrelation, ValueDelta
    from trialwise.brainscore.ceiling import ceil_score, ceilings, unceil_score
    from trialwise.brainscore.image_level import i1n, i2n
    from trialwise.brainscore.ost import ost_correlation
    from trialwise.brainscore.synthetic import published_intervals, synthetic_trials
    from trialwise.brainscore.synthetic_i2n import synthetic_2afc
    from trialwise.brainscore.delta import BRAINSCORE_SCALE, value_delta

__all__ = [
    "trials_from_assembly", "BENCHMARK_METRICS", "BehavioralBenchmark", "BenchmarkScores", "BrainScoreResult", "CeilingResult",
    "ErrorConsistency", "I1n", "I2n", "OSTCorrelation", "ValueDelta", "ceil_score", "ceilings",
    "unceil_score", "i1n", "i2n", "ost_correlation", "published_intervals", "synthetic_trials",
    "synthetic_2afc", "BRAINSCORE_SCALE", "value_delta",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.brainscore.assembly": ("trials_from_assembly",),
    "trialwise.brainscore.behavioral": ("BENCHMARK_METRICS", "BehavioralBenchmark",),
    "trialwise.brainscore.benchmarks": ("BenchmarkScores",),
    "trialwise.brainscore.results": ("BrainScoreResult", "CeilingResult",),
    "trialwise.brainscore.metrics": ("ErrorConsistency", "I1n", "I2n", "OSTCorrelation", "ValueDelta",),
    "trialwise.brainscore.ceiling": ("ceil_score", "ceilings", "unceil_score",),
    "trialwise.brainscore.image_level": ("i1n", "i2n",),
    "trialwise.brainscore.ost": ("ost_correlation",),
    "trialwise.brainscore.synthetic": ("published_intervals", "synthetic_trials",),
    "trialwise.brainscore.synthetic_i2n": ("synthetic_2afc",),
    "trialwise.brainscore.delta": ("BRAINSCORE_SCALE", "value_delta",),
})
