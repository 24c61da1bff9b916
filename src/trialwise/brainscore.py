"""Brain-Score with confidence intervals: ``import trialwise.brainscore`` (or ``tw.brainscore``).

The Brain-Score part of the library under its short name; the same objects as
:mod:`trialwise.benchmark.brainscore`, whose docstring says what each is and where it lives
(ceilings, the behavioural benchmark, I1n/I2n, value delta, OST correlation, published
intervals, the xarray adapter). Importing it loads only the Brain-Score modules.

Examples
--------
>>> import trialwise.brainscore
>>> from trialwise.benchmark import brainscore as benchmark_brainscore
>>> trialwise.brainscore.i2n is benchmark_brainscore.i2n
True
"""

from __future__ import annotations

from trialwise.benchmark.brainscore import (
    BENCHMARK_METRICS,
    BRAINSCORE_SCALE,
    BehavioralBenchmark,
    ErrorConsistency,
    I1n,
    I2n,
    OSTCorrelation,
    ValueDelta,
    ceil_score,
    ceilings,
    i1n,
    i2n,
    ost_correlation,
    published_intervals,
    synthetic_2afc,
    synthetic_trials,
    trials_from_assembly,
    unceil_score,
    value_delta,
)

__all__ = [
    "BENCHMARK_METRICS", "BRAINSCORE_SCALE", "BehavioralBenchmark", "ErrorConsistency", "I1n", "I2n",
    "OSTCorrelation", "ValueDelta", "ceil_score", "ceilings", "i1n", "i2n", "ost_correlation", "published_intervals",
    "synthetic_2afc", "synthetic_trials", "trials_from_assembly", "unceil_score", "value_delta",
]
