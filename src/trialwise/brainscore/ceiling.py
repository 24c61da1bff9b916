"""Brain-Score's ceiling: the transform ``clip(raw / ceiling, 0, 1)``, its inverse, and the ceilings.

The ceiling of a behavioural benchmark is how well the humans agree with each other.
:func:`ceil_score` and :func:`unceil_score` move between raw values and Brain-Score's
ceiled scores; :func:`ceilings` computes the human–human agreement of every experiment
(as Brain-Score's Geirhos2021 error-consistency benchmarks do). The ceiling *with a
confidence interval*, resampled jointly with a model's score, is
:attr:`trialwise.brainscore.BehavioralBenchmark.ceiling`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise.leaderboards.trials import as_trials
from trialwise.leaderboards.hierarchy import aggregate, build_design, reference_mask
from trialwise.leaderboards.protocol import Protocol, get_protocol

__all__ = ["ceil_score", "ceilings", "unceil_score"]


def _finite(value: Any, name: str) -> NDArray:
    arr = v.as_float_array(value, name)
    if np.isnan(arr).any():
        raise InvalidValueError(f"`{name}` contains NaN at position {int(np.flatnonzero(np.isnan(arr).ravel())[0])}")
    if np.isinf(arr).any():
        raise InvalidValueError(f"`{name}` must be finite; got {arr[np.isinf(arr)].ravel()[0]:g}")
    return arr


def _check_ceiling(ceiling: Any) -> NDArray:
    c = _finite(ceiling, "ceiling")
    if (c <= 0).any():
        raise InvalidValueError(f"`ceiling` must be positive (the human–human agreement); got {c[c <= 0].ravel()[0]:g}")
    return c


def ceil_score(raw: ArrayLike, ceiling: ArrayLike) -> NDArray:
    """Brain-Score's ceiling transform ``clip(raw / ceiling, 0, 1)`` (broadcast).

    Parameters
    ----------
    raw : array_like
        Raw metric values (e.g. the mean κ between a model and the humans).
    ceiling : array_like
        The ceiling (human–human agreement), positive; broadcast against ``raw``.

    Returns
    -------
    numpy.ndarray or float
        The ceiled scores in [0, 1] (a NumPy scalar for scalar input).

    Raises
    ------
    TypeError
        ``raw`` or ``ceiling`` is not numeric.
    ValueError
        NaN or ±inf in ``raw`` or ``ceiling`` (an undefined raw value has no ceiled
        score; leave it out, or report it as undefined), a ceiling ≤ 0, or shapes that
        do not broadcast.

    References
    ----------
    Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
    K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
    DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
    recognition is most brain-like? *bioRxiv* 407007.

    Examples
    --------
    >>> ceil_score([0.05, 0.2, 0.5, -0.1], 0.4).tolist()
    [0.125, 0.5, 1.0, 0.0]
    """
    r = _finite(raw, "raw")
    c = _check_ceiling(ceiling)
    r, c = v.check_broadcast(r, c, names=("raw", "ceiling"))
    return np.clip(r / c, 0.0, 1.0)[()]


def unceil_score(score: ArrayLike, ceiling: ArrayLike) -> NDArray:
    """Un-ceil a published score: the raw value ``score × ceiling`` (broadcast).

    Exact for scores strictly between 0 and 1. A score of 0 or 1 was clipped: the raw
    value is only known to be at most 0 (or at least the ceiling); the bound is returned
    and a :class:`~trialwise.DegenerateDataWarning` says how many.

    Brain-Score's error-consistency benchmarks take the absolute value of the mean κ
    before ceiling it, so a raw value recovered from their scores is ``|κ|``.

    Parameters
    ----------
    score : array_like
        Published ceiled scores in [0, 1].
    ceiling : array_like
        The ceiling they were divided by, positive; broadcast against ``score``.

    Returns
    -------
    numpy.ndarray or float
        The raw values (bounds where the score was clipped).

    Warns
    -----
    DegenerateDataWarning
        When a score is exactly 0 or 1 (clipped: the value returned is a bound).

    Raises
    ------
    TypeError
        ``score`` or ``ceiling`` is not numeric.
    ValueError
        A score outside [0, 1] or NaN, a ceiling that is not a positive finite number,
        or shapes that do not broadcast.

    References
    ----------
    Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
    K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
    DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
    recognition is most brain-like? *bioRxiv* 407007.

    Examples
    --------
    >>> unceil_score(ceil_score(0.2, 0.4), 0.4).item()
    0.2
    >>> unceil_score([0.25, 0.5], [0.4, 0.3]).round(3).tolist()
    [0.1, 0.15]
    """
    s = _finite(score, "score")
    if ((s < 0) | (s > 1)).any():
        raise InvalidValueError(f"`score` must lie in [0, 1] (a ceiled score); got {s[(s < 0) | (s > 1)].ravel()[0]:g}")
    c = _check_ceiling(ceiling)
    s, c = v.check_broadcast(s, c, names=("score", "ceiling"))
    clipped = int(np.sum((s == 0) | (s == 1)))
    if clipped:
        warn(f"{clipped} score(s) at 0 or 1 were clipped by the ceiling transform: the raw value returned is a "
             f"bound (≤ 0, or ≥ the ceiling), not the value", DegenerateDataWarning)
    return (s * c)[()]


def check_two_references(t: Any, what: str) -> None:
    """A ``ValueError`` unless every experiment has at least two reference observers."""
    per = t.groupby("experiment")["subject"].nunique()
    if not len(per) or (per >= 2).all():
        return
    if t["subject"].nunique() < 2:
        names = sorted(t["subject"].unique())
        raise InvalidValueError(f"{what}: at least two reference observers are needed (a ceiling is the agreement between "
                         f"two distinct reference observers); the trials have {len(names)}: {names}")
    lone = per[per < 2]
    raise InvalidValueError(f"{what}: at least two reference observers are needed in every experiment (a ceiling is the "
                     f"agreement between two distinct reference observers); experiment {lone.index[0]!r} has "
                     f"{int(lone.iloc[0])}" + (f" (and {len(lone) - 1} other experiment(s) too)" if len(lone) > 1 else ""))


def ceilings(trials: Any, protocol: str | Protocol = "model-vs-human", *, reference: Any = None):
    """Human–human agreement per experiment: the ceilings of Brain-Score's Geirhos2021 benchmarks.

    For every experiment, the protocol's metric between every two distinct reference
    observers, averaged over the pairs in each condition and then over conditions (as
    ``brainscore_vision.metrics.error_consistency.ErrorConsistency.ceiling``; the two
    orders agree when every human saw every condition).

    Parameters
    ----------
    trials : DataFrame or path
        Trials of the reference observers (others are ignored).
    protocol : Protocol or str, default "model-vs-human"
        The experiments, conditions, metric and averaging
        (:func:`trialwise.leaderboards.protocol.get_protocol`).
    reference : str or sequence of str, optional
        The names of the reference observers (default: those whose ``observer_type`` is
        the protocol's reference, the humans).

    Returns
    -------
    pandas.Series
        The ceiling of each experiment, indexed by experiment.

    Raises
    ------
    ValueError
        Fewer than two reference observers in the trials, or in one of its experiments:
        a ceiling is the agreement between two distinct reference observers.

    References
    ----------
    Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
    K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
    DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
    recognition is most brain-like? *bioRxiv* 407007.

    Geirhos, R., Narayanappa, K., Mitzkus, B., Thieringer, T., Bethge, M., Wichmann, F. A.
    & Brendel, W. (2021). Partial success in closing the gap between human and machine
    vision. *Advances in Neural Information Processing Systems* 34.

    Examples
    --------
    >>> import trialwise as tw
    >>> c = tw.brainscore.ceilings(tw.datasets.model_vs_human("cue-conflict"))
    >>> round(float(c["cue-conflict"]), 3)
    0.331
    """
    import pandas as pd

    proto = get_protocol(protocol)
    t = as_trials(trials)
    t = t[reference_mask(t, proto, reference)]
    check_two_references(t if proto.experiments is None else t[t["experiment"].isin(proto.experiments)], "ceilings")
    design = build_design(t, proto, reference, require_candidates=False)
    vals, key = aggregate(design.values(), design, keep=("experiment",))
    return pd.Series(vals, index=pd.Index([design.experiments[e] for e in key["experiment"]], name="experiment"),
                     name="ceiling")
