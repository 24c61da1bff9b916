"""Brain-Score with confidence intervals.

Brain-Score: Schrimpf et al. 2018, *Brain-Score: which artificial neural network for object
recognition is most brain-like?*, bioRxiv 407007, and its documentation of behavioral
benchmarks (brain-score.org). Intervals for published scores: Klein, Meyen, Brendel, Wichmann
& Meding (2025), *Quantifying uncertainty in error consistency*, NeurIPS, §4.2 and App. I.

Brain-Score reports behavioural alignment relative to a *ceiling*, how well humans agree
with each other: ``score = clip(raw / ceiling, 0, 1)``. ``trialwise.brainscore`` gathers
what it offers; each concept lives in its own module:

* the ceiling transform, its inverse and the human–human ceilings
  (:func:`ceil_score`, :func:`unceil_score`, :func:`ceilings`; :mod:`~trialwise.benchmark.ceilings`);
* confidence intervals for *published* scores, for which no model trials exist
  (:func:`synthetic_trials`, :func:`published_intervals`; Klein et al. 2025, App. I;
  :mod:`~trialwise.benchmark.synthetic`);
* a behavioural benchmark that scores a model's responses with CIs for the score, the
  raw value and the ceiling, resampled jointly (:class:`BehavioralBenchmark`;
  :mod:`~trialwise.benchmark.behavioral`);
* Brain-Score-style xarray assemblies as trials (:func:`trials_from_assembly`;
  :mod:`~trialwise.benchmark.assembly`) and Brain-Score's metrics with its call signatures
  (:class:`ErrorConsistency`, :class:`ValueDelta`, :class:`OSTCorrelation`, :class:`I2n`,
  :class:`I1n`;
  :mod:`~trialwise.benchmark.brainscore_metrics`);
* Brain-Score's value delta (:func:`value_delta`; :mod:`~trialwise.benchmark.value_delta`)
  and OST correlation (:func:`ost_correlation`; :mod:`~trialwise.benchmark.ost`), standalone
  functions of a model's and the target's values with raw, ceiling and score intervals;
* Brain-Score's I2n and I1n (:func:`i2n`, :func:`i1n`; :mod:`~trialwise.benchmark.i2n`) from a
  model's class probabilities and human 2AFC or K-way trials, and a generator of such data
  (:func:`synthetic_2afc`; :mod:`~trialwise.benchmark.synthetic_2afc`).

xarray is optional (``pip install trialwise[xarray]``); only the adapter needs it.
"""

from __future__ import annotations

from trialwise.benchmark.assembly import trials_from_assembly
from trialwise.benchmark.behavioral import BENCHMARK_METRICS, BehavioralBenchmark
from trialwise.benchmark.brainscore_metrics import ErrorConsistency, I1n, I2n, OSTCorrelation, ValueDelta
from trialwise.benchmark.ceilings import ceil_score, ceilings, unceil_score
from trialwise.benchmark.i2n import i1n, i2n
from trialwise.benchmark.ost import ost_correlation
from trialwise.benchmark.synthetic import published_intervals, synthetic_trials
from trialwise.benchmark.synthetic_2afc import synthetic_2afc
from trialwise.benchmark.value_delta import BRAINSCORE_SCALE, value_delta

__all__ = [
    "BENCHMARK_METRICS",
    "BRAINSCORE_SCALE",
    "BehavioralBenchmark",
    "ErrorConsistency",
    "I1n",
    "I2n",
    "OSTCorrelation",
    "ValueDelta",
    "ceil_score",
    "ceilings",
    "i1n",
    "i2n",
    "ost_correlation",
    "published_intervals",
    "synthetic_2afc",
    "synthetic_trials",
    "trials_from_assembly",
    "unceil_score",
    "value_delta",
]
