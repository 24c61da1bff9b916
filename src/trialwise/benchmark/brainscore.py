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
  :mod:`~trialwise.benchmark.assembly`) and, here, :class:`ErrorConsistency`, a metric
  with Brain-Score's call signature;
* Brain-Score's value delta (:func:`value_delta`; :mod:`~trialwise.benchmark.value_delta`)
  and OST correlation (:func:`ost_correlation`; :mod:`~trialwise.benchmark.ost`), standalone
  functions of a model's and the target's values with raw, ceiling and score intervals.

xarray is optional (``pip install trialwise[xarray]``); only the adapter needs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise.benchmark.assembly import trials_from_assembly
from trialwise.benchmark.behavioral import BENCHMARK_METRICS, BehavioralBenchmark
from trialwise.benchmark.ceilings import ceil_score, ceilings, unceil_score
from trialwise.benchmark.ost import ost_correlation
from trialwise.benchmark.synthetic import published_intervals, synthetic_trials
from trialwise.benchmark.value_delta import BRAINSCORE_SCALE, value_delta
from trialwise.resampling import child_seed

__all__ = [
    "BENCHMARK_METRICS",
    "BRAINSCORE_SCALE",
    "BehavioralBenchmark",
    "ErrorConsistency",
    "ceil_score",
    "ceilings",
    "ost_correlation",
    "published_intervals",
    "synthetic_trials",
    "trials_from_assembly",
    "unceil_score",
    "value_delta",
]


class ErrorConsistency:
    """Error consistency as a Brain-Score metric: ``metric(source, target)`` and ``metric.ceiling(target)``.

    ``source``: a model's assembly (no ``subject`` coordinate), ``target``: the human
    assembly (see :func:`trials_from_assembly`). Computes what Brain-Score's
    ``error_consistency`` metric computes — κ per subject and condition, averaged — and
    returns it as a 0-d ``xarray.DataArray`` (like Brain-Score's ``Score``) whose
    ``attrs`` add what Brain-Score lacks: ``ci_low``, ``ci_high`` (bootstrap over
    images within conditions), ``error`` (the bootstrap standard error),
    ``confidence_level`` and ``n_resamples``. The sign is kept by default;
    ``brainscore_compatible=True`` takes ``abs`` of the mean, as Brain-Score does.

    Parameters
    ----------
    n_resamples, confidence_level, rng, brainscore_compatible
        As in :class:`BehavioralBenchmark`.
    """

    def __init__(self, *, n_resamples: int = 2000, confidence_level: float = 0.95, rng: Any = None,
                 brainscore_compatible: bool = False) -> None:
        self.n_resamples = v.check_positive_int(n_resamples, "n_resamples")
        self.confidence_level = v.check_confidence_level(confidence_level)
        if not isinstance(brainscore_compatible, (bool, np.bool_)):
            raise InvalidValueError(f"`brainscore_compatible` must be True or False; got {v.show(brainscore_compatible)}")
        self.brainscore_compatible = bool(brainscore_compatible)
        self._entropy = child_seed(rng)

    def _bench(self, target: Any) -> BehavioralBenchmark:
        return BehavioralBenchmark.from_assembly(target, n_resamples=self.n_resamples,
                                                 confidence_level=self.confidence_level, rng=self._entropy,
                                                 brainscore_compatible=self.brainscore_compatible)

    @staticmethod
    def _score(value: float, ci: ConfidenceInterval, dist: NDArray, level: float) -> Any:
        import xarray as xr

        return xr.DataArray(value, attrs={"ci_low": ci.low, "ci_high": ci.high, "confidence_level": level,
                                          "error": float(np.nanstd(dist, ddof=1)), "n_resamples": dist.size})

    def __call__(self, source: Any, target: Any) -> Any:
        bench = self._bench(target)
        res = bench(trials_from_assembly(source, stimuli=bench.human_trials))
        return self._score(res.raw, res.raw_interval, res.raw_distribution, self.confidence_level)

    def ceiling(self, target: Any) -> Any:
        """The human–human ceiling of a human assembly, as a 0-d ``xarray.DataArray`` with its CI.

        Parameters
        ----------
        target : xarray.DataArray
            The humans' assembly (see :func:`trials_from_assembly`).

        Returns
        -------
        xarray.DataArray
            The ceiling (κ between every two distinct humans, averaged as Brain-Score
            does); ``attrs`` hold ``ci_low``, ``ci_high``, ``error``, ``confidence_level``
            and ``n_resamples``.

        References
        ----------
        Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
        behaviour of CNNs and humans by measuring error consistency. NeurIPS.

        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> import trialwise as tw, xarray as xr
        >>> t = tw.datasets.model_vs_human("cue-conflict")
        >>> h = t[t.observer_type == "human"]
        >>> coords = {name: ("presentation", h[col].to_numpy()) for name, col in
        ...           [("stimulus_id", "image"), ("truth", "category"), ("condition", "condition"), ("subject", "subject")]}
        >>> humans = xr.DataArray(h["response"].to_numpy(), dims=["presentation"], coords=coords)
        >>> c = ErrorConsistency(n_resamples=200, rng=0).ceiling(humans)
        >>> round(float(c), 3), round(c.attrs["ci_low"], 3), round(c.attrs["ci_high"], 3)
        (0.331, 0.304, 0.357)
        """
        c = self._bench(target).ceiling
        return self._score(c.statistic, c.confidence_interval, c.bootstrap_distribution, self.confidence_level)
