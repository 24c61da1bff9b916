"""Brain-Score's ceiling: the transform ``clip(raw / ceiling, 0, 1)``, its inverse, and the ceilings.

The ceiling of a behavioural benchmark is how well the humans agree with each other.
:func:`ceil_score` and :func:`unceil_score` move between raw values and Brain-Score's
ceiled scores; :func:`ceilings` computes the human–human agreement of every experiment
(as Brain-Score's Geirhos2021 error-consistency benchmarks do). The ceiling *with a
confidence interval*, resampled jointly with a model's score, is
:attr:`trialwise.brainscore.BehavioralBenchmark.ceiling`.

Every split-half ceiling of the package (accuracy distance over subjects, I1n/I2n over
trials, OST over replicate columns, value delta over trials) takes its random halves from
:func:`half_splits` (or, for subsets of the positions, :func:`first_halves` of the same orders),
drawn by the resampling engine (:func:`trialwise._stats.splits.split_orders`: the engine's
Generator, or Brain-Score's own ``RandomState`` streams where its number is reproduced), and
turns a split-half correlation into a ceiling with :func:`split_half_ceiling` (the
Spearman–Brown step, :func:`spearman_brown`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.splits import SplitStream, split_orders

if TYPE_CHECKING:
    from trialwise.leaderboards.protocol import Protocol

__all__ = ["ceil_score", "ceilings", "first_halves", "half_splits", "spearman_brown", "split_half_ceiling",
           "unceil_score"]

SplitHalfMethod = Literal["split-half", "spearman-brown", "attenuation"]


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

    from trialwise.leaderboards.hierarchy import aggregate, build_design, reference_mask
    from trialwise.leaderboards.protocol import get_protocol
    from trialwise.leaderboards.trials import as_trials

    proto = get_protocol(protocol)
    t = as_trials(trials)
    t = t[reference_mask(t, proto, reference)]
    check_two_references(t if proto.experiments is None else t[t["experiment"].isin(proto.experiments)], "ceilings")
    design = build_design(t, proto, reference, require_candidates=False)
    vals, key = aggregate(design.values(), design, keep=("experiment",))
    return pd.Series(vals, index=pd.Index([design.experiments[e] for e in key["experiment"]], name="experiment"),
                     name="ceiling")


# --------------------------------------------------------------------------- split-half ceilings


def half_splits(n: int, n_splits: int, *, rng: Any = None, stream: SplitStream = "generator") -> NDArray:
    """Random half splits of ``n`` positions: a boolean mask per split, True = the first half.

    Split ``s`` puts in its first half the ``n // 2`` positions that come first in a random
    order (:func:`trialwise._stats.splits.split_orders`, the one drawing of half splits).

    Parameters
    ----------
    n : int
        Number of positions (trials, subjects, replicate columns), at least 2.
    n_splits : int
        Number of splits.
    rng : None, int or numpy.random.Generator
        The stream of ``stream="generator"``: split ``s`` is ``rng.permutation(n) < n // 2``.
        None for Brain-Score's streams, whose seeds are fixed.
    stream : {"generator", "brainscore-i2n", "brainscore-value-delta"}
        ``"brainscore-i2n"``: Brain-Score's I1n/I2n splits, one
        ``numpy.random.RandomState(0)`` shuffling the positions once per split;
        ``"brainscore-value-delta"``: its Ferguson2024 splits, split ``i`` the first ``n // 2``
        of ``numpy.random.RandomState(i).permutation(n)`` (``np.random.seed(i)``).

    Returns
    -------
    numpy.ndarray of bool, shape (n_splits, n)

    Examples
    --------
    >>> half_splits(6, 2, stream="brainscore-i2n").astype(int).tolist()
    [[0, 1, 1, 0, 0, 1], [0, 1, 0, 1, 1, 0]]
    >>> half_splits(4, 2, stream="brainscore-value-delta").astype(int).tolist()
    [[0, 0, 1, 1], [0, 0, 1, 1]]
    >>> half_splits(5, 3, rng=0).sum(axis=1).tolist()
    [2, 2, 2]
    """
    n = v.check_positive_int(n, "n", minimum=2)
    return split_orders(n, n_splits, rng=rng, stream=stream) < n // 2


def first_halves(orders: ArrayLike, members: ArrayLike) -> NDArray:
    """The halves of a subset of the positions in each split: its ``k // 2`` members that come first.

    For a ceiling over subjects when each condition has its own subset of them: split ``s``
    orders all the subjects once (a row of :func:`trialwise._stats.splits.split_orders`), so
    it divides them the same way in every condition, and both halves are filled wherever two
    subjects are present.

    Parameters
    ----------
    orders : array_like of int, shape (n_splits, n)
        The place of every position in each split's order.
    members : array_like of int, shape (k,)
        The positions in the subset.

    Returns
    -------
    numpy.ndarray of bool, shape (n_splits, k)
        True for the members in the first half of each split.

    Examples
    --------
    >>> first_halves([[3, 0, 2, 1], [0, 1, 2, 3]], [0, 2, 3]).astype(int).tolist()
    [[0, 0, 1], [1, 0, 0]]
    """
    sub = np.asarray(orders)[:, np.asarray(members, dtype=np.intp)]
    return sub.argsort(axis=1).argsort(axis=1) < sub.shape[1] // 2


def spearman_brown(r: ArrayLike) -> NDArray:
    """The Spearman–Brown step: the reliability ``2r / (1 + r)`` of all the data from the correlation ``r`` of two halves.

    NaN where ``r`` is NaN, −∞ at ``r = −1`` (no warning: the callers say what a ceiling that is
    not positive means).

    References
    ----------
    Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of
    Psychology* 3, 271–295; Brown, W. (1910). Some experimental results in the correlation
    of mental abilities. *British Journal of Psychology* 3, 296–322.

    Examples
    --------
    >>> float(spearman_brown(0.5)).__round__(4)
    0.6667
    """
    r = np.asarray(r, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * r / (1 + r)


def split_half_ceiling(r: ArrayLike, method: SplitHalfMethod) -> NDArray:
    """A ceiling from a split-half correlation ``r`` (mean over splits).

    ``"split-half"``: ``r`` itself (Brain-Score's I1n/I2n ceiling); ``"spearman-brown"``: the
    reliability of all the data, :func:`spearman_brown`; ``"attenuation"``: its square root,
    the correlation a model equal to the true values would have with the noisy mean of all the
    data (Spearman 1904). NaN where the reliability is negative.

    Examples
    --------
    >>> [round(float(split_half_ceiling(0.6, m)), 4) for m in ("split-half", "spearman-brown", "attenuation")]
    [0.6, 0.75, 0.866]
    """
    if method == "split-half":
        return np.asarray(r, dtype=float)
    reliability = spearman_brown(r)
    if method == "spearman-brown":
        return reliability
    with np.errstate(invalid="ignore"):
        return np.sqrt(reliability)
