"""Probabilities as people have them: rounded rows, columns named with a prefix, numbers that are not probabilities.

The one check of :func:`~trialwise.comparison.probabilities.probabilities` (and so of every
comparison function, and of ``trialwise compare``):

* :func:`check_row_sums` — rows within :data:`PROBA_SUM_TOLERANCE` of 1 are used as given;
  rows off by no more than rounding to :data:`ROUNDING_DECIMALS` decimals can explain
  (:func:`rounding_tolerance`) are to be divided by their sums (:func:`renormalised`, with
  one warning counting them); any other row is an error whose message says what the
  numbers look like (:func:`looks_like`): logits, log-probabilities, percentages,
  independent scores, too coarse a rounding;
* :func:`frame_classes` — the class of each column of a DataFrame, by the rule of
  :func:`~trialwise.comparison.columns.classes_from_columns` (a common prefix stripped);
  :func:`frame_prefix` — that prefix, a name for the classifier.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.warnings import TrialwiseWarning
from trialwise.comparison._caveats import caveat
from trialwise.comparison.columns import read_columns

__all__ = ["PROBA_SUM_TOLERANCE", "ROUNDING_DECIMALS", "ROUNDING_CLASSES", "rounding_tolerance", "decimals_written",
           "row_tolerances", "looks_like", "check_row_sums", "renormalised", "frame_classes", "frame_prefix"]

#: Largest ``|Σ_k p_ik − 1|`` of a probability row taken as floating-point noise: the row is
#: used as given (float32 softmax outputs pass).
PROBA_SUM_TOLERANCE = 1e-4
#: Rows off by what rounding each value to this many decimals can explain are renormalised ...
ROUNDING_DECIMALS = 3
#: ... counting up to this many classes (:func:`rounding_tolerance`).
ROUNDING_CLASSES = 16


def rounding_tolerance(k: int) -> float:
    """Largest ``|Σ_k p_ik − 1|`` that rounding a row of ``k`` probabilities can explain.

    Each value rounded to :data:`ROUNDING_DECIMALS` (3) decimals is off by at most
    ``0.5 · 10⁻³``, so a row of K values by at most ``K · 0.5 · 10⁻³``; K is counted up to
    :data:`ROUNDING_CLASSES` (16), so no row off by more than 0.008 passes, whatever K.

    Examples
    --------
    >>> rounding_tolerance(2), rounding_tolerance(3), rounding_tolerance(16), rounding_tolerance(1000)
    (0.001, 0.0015, 0.008, 0.008)
    """
    return max(PROBA_SUM_TOLERANCE, min(int(k), ROUNDING_CLASSES) * 0.5 * 10.0 ** -ROUNDING_DECIMALS)


def row_tolerances(p: NDArray) -> NDArray:
    """Per row of the n × K matrix ``p``: the largest ``|Σ_k p_ik − 1|`` its rounding can explain.

    A row written with d ≤ 6 decimals (every value a multiple of 10⁻ᵈ) can be off by
    ``min(K, 16) · 0.5 · 10⁻ᵈ`` — at most :func:`rounding_tolerance` (d taken as at least
    :data:`ROUNDING_DECIMALS`, 3: coarser rounding is not told from error); a row of
    unrounded numbers (a softmax's float32 or float64 output) only by floating-point noise,
    :data:`PROBA_SUM_TOLERANCE`. So a full-precision row off by 0.007 is an error, not a
    rounded one.

    Examples
    --------
    >>> row_tolerances(np.array([[0.334, 0.333, 0.334], [0.33341, 0.33341, 0.33341],
    ...                          [1 / 3 + 0.002, 1 / 3, 1 / 3]])).round(6).tolist()
    [0.0015, 0.0001, 0.0001]
    """
    k = min(int(p.shape[1]), ROUNDING_CLASSES)
    tol = np.full(p.shape[0], PROBA_SUM_TOLERANCE)
    undecided = np.ones(p.shape[0], dtype=bool)
    for d in range(7):
        scaled = p * 10.0 ** d
        written = undecided & np.all(np.abs(scaled - np.round(scaled)) < 1e-9 * 10.0 ** d, axis=1)
        tol[written] = max(PROBA_SUM_TOLERANCE, k * 0.5 * 10.0 ** -max(d, ROUNDING_DECIMALS))
        undecided &= ~written
    return tol


def decimals_written(values: NDArray) -> int | None:
    """The fewest decimals (0–6) that write every value exactly (to 1e-9), or None."""
    for d in range(7):
        if np.all(np.abs(values * 10.0 ** d - np.round(values * 10.0 ** d)) < 1e-9 * 10.0 ** d):
            return d
    return None


def looks_like(p: NDArray) -> str:
    """What numbers that are not probabilities look like, and what to do about it (for error messages).

    ``p`` is 1-D (positive-class probabilities) or an n × K matrix whose rows should sum to 1.
    """
    if p.ndim == 1:
        if np.all((p >= 0) & (p <= 100)) and (p > 1).any():
            return "values above 1: if these are percentages, divide them by 100"
        return "these look like logits or scores; apply a sigmoid first, e.g. scipy.special.expit(logits)"
    k = p.shape[1]
    sums = p.sum(axis=1)
    if (p < 0).any():
        if (p <= 0).all() and np.all(np.abs(np.exp(p).sum(axis=1) - 1) <= rounding_tolerance(k)):
            return "these look like log-probabilities: apply numpy.exp first"
        return ("negative values: these look like logits (or other scores); apply a softmax first, "
                "e.g. scipy.special.softmax(logits, axis=1)")
    if (p > 1).any():
        if np.all(np.abs(sums - 100) <= 100 * rounding_tolerance(k)):
            return "the rows sum to 100: these look like percentages; divide them by 100"
        return ("values above 1: these look like scores or logits, not probabilities; apply a softmax first, "
                "e.g. scipy.special.softmax(logits, axis=1)")
    decimals = decimals_written(p)
    off = float(np.max(np.abs(sums - 1)))
    if decimals is not None and decimals < ROUNDING_DECIMALS and off <= k * 0.5 * 10.0 ** -decimals + 1e-9:
        return (f"the values are rounded to {decimals} decimal{'s' if decimals != 1 else ''}, too coarsely to tell "
                f"rounding from error (rows off by up to {off:.3g}); write {ROUNDING_DECIMALS} or more decimals, or "
                "divide each row by its sum yourself")
    if np.any(np.abs(sums - 1) > 0.25):
        return (f"the rows sum to between {float(sums.min()):.3g} and {float(sums.max()):.3g} (K = {k}): these look "
                "like independent per-class scores (e.g. sigmoid outputs), not probabilities that sum to 1; "
                "apply a softmax to the logits, or divide each row by its sum if that is what they mean")
    return ("more than rounding to 3 decimals can explain; pass probabilities (each row summing to 1), "
            "or divide each row by its sum if that is what the values mean")


def check_row_sums(p: NDArray, name: str, *, row: Callable[[int], str] = "row {}".format) -> NDArray:
    """The rows of the n × K probability matrix ``p`` to renormalise; an error for rows that are not probabilities.

    Parameters
    ----------
    p : numpy.ndarray
        An n × K matrix of numbers.
    name : str
        How the error names ``p`` (``"`proba_a`"``, ``"the --proba-a columns"``).
    row : callable
        How the error names the row of index i (default ``"row i"``).

    Returns
    -------
    numpy.ndarray of bool
        The rows off by more than :data:`PROBA_SUM_TOLERANCE` but within
        :func:`rounding_tolerance`: to be divided by their sums.

    Raises
    ------
    InvalidValueError
        A value outside [0, 1] or a row off by more than rounding explains; the message
        names the first such row and what the values look like (logits, percentages,
        scores, too coarse a rounding).
    """
    sums = p.sum(axis=1)
    off = np.abs(sums - 1)
    outside: NDArray = np.asarray(((p < 0) | (p > 1)).any(axis=1))
    tol = row_tolerances(p)
    bad = outside | (off > tol * (1 + 1e-9))      # the slack absorbs the floating-point error of the sum
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        if outside[i]:
            j = int(np.flatnonzero((p[i] < 0) | (p[i] > 1))[0])
            what = f"holds {p[i, j]:.6g}: probabilities must be in [0, 1]"
        else:
            what = (f"sums to {sums[i]:.6g}, not 1 (a row of {p.shape[1]} values rounded to "
                    f"{ROUNDING_DECIMALS} decimals is off by at most {rounding_tolerance(p.shape[1]):g}, "
                    f"one not rounded by at most {PROBA_SUM_TOLERANCE:g})")
        raise InvalidValueError(f"{name} {row(i)} {what}; {looks_like(p)}")
    return off > PROBA_SUM_TOLERANCE


def renormalised(p: NDArray, name: str) -> NDArray:
    """``p`` with the rows off by rounding divided by their sums, and one caveat counting them."""
    rounded = check_row_sums(p, f"`{name}`:")
    if not rounded.any():
        return p
    sums = p.sum(axis=1)[rounded]
    caveat(f"`{name}`: {int(rounded.sum())} of {len(p)} rows sum to between {float(sums.min()):.6g} and "
           f"{float(sums.max()):.6g}, not 1, as rounding to {ROUNDING_DECIMALS} decimals can make them; "
           "those rows were divided by their sums", TrialwiseWarning)
    out = p.copy()
    out[rounded] /= sums[:, None]
    return out


def frame_classes(frame: pd.DataFrame, labels: Any, name: str) -> list:
    """The class of each column of a DataFrame of probabilities, by the rule of
    :func:`~trialwise.comparison.columns.classes_from_columns`.

    Columns that are the classes themselves are returned as they are (the integer column
    ``1`` stays ``1``); otherwise the classes that follow their common prefix. Columns that
    name no classes either way are returned as they are, for :func:`probabilities` to name
    the class without a column; prefixes that name different classes are an error.
    """
    columns = list(frame.columns)
    try:
        named = read_columns([str(c) for c in columns], labels, option="classes=")
    except InvalidValueError as exc:
        raise InvalidValueError(f"`{name}`: {exc}") from None
    return columns if named is None or named == [str(c) for c in columns] else named


def frame_prefix(frame: Any, labels: Any) -> str | None:
    """The prefix that :func:`frame_classes` strips from a DataFrame's columns to find the classes
    ``labels``, without a trailing separator (``m1_cat, m1_dog`` → ``m1``): a name for the
    classifier. None when the columns are the classes themselves (``dog, dolphin, donkey`` have
    the common prefix ``do`` but name no classifier) or name no classes.

    Examples
    --------
    >>> frame_prefix(pd.DataFrame(columns=["m1_dog", "m1_cat"]), ["cat", "dog"])
    'm1'
    >>> frame_prefix(pd.DataFrame(columns=["dog", "dolphin", "donkey"]), ["dog", "dolphin", "donkey"]) is None
    True
    >>> frame_prefix(pd.DataFrame(columns=["p_10", "p_11", "p_12"]), [10, 11, 12])
    'p'
    """
    if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 2:
        return None
    columns = [str(c) for c in frame.columns]
    try:
        named = read_columns(columns, labels, option="classes=")
    except InvalidValueError:  # said by the check of the probabilities themselves
        return None
    if named is None or [str(c) for c in named] == columns:
        return None
    prefix = columns[0][: len(columns[0]) - len(str(named[0]))].rstrip(" _-.:/|")
    return prefix or None
