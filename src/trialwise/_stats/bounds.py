"""The bounds of κ given the observers' accuracies, and the cells and accuracies they imply.

κ on a 2 × 2 correctness table cannot take every value in [−1, 1] once the two accuracies are
fixed: :func:`kappa_bounds` gives the attainable range (Klein et al. 2025), :func:`kappa_bounds_from_expected`
the range given the expected agreement, :func:`feasible_accuracy` the accuracies that admit a κ, and
:func:`cell_probabilities` the table's cell probabilities for given accuracies and κ. Public as
``trialwise.ec.kappa_bounds`` and so on.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.validation import check_kappa, check_probability
from trialwise._core.warnings import DegenerateDataWarning, warn

__all__ = ["kappa_bounds", "kappa_bounds_from_expected", "feasible_accuracy", "cell_probabilities"]


def kappa_bounds(accuracy_a: ArrayLike, accuracy_b: ArrayLike) -> tuple[NDArray, NDArray]:
    """Smallest and largest κ attainable by observers with these accuracies.

    Parameters
    ----------
    accuracy_a, accuracy_b : array_like
        Accuracies in [0, 1]; broadcast against each other.

    Returns
    -------
    kappa_min, kappa_max : ndarray
        NaN where κ is undefined (both accuracies 0, or both 1: ``c_exp = 1``); 0 where
        exactly one accuracy is 0 or 1.

    Warns
    -----
    DegenerateDataWarning
        Once, when some bounds are NaN (κ undefined): how many, and the first pair of accuracies.

    Notes
    -----
    Given the margins, ``|a_A + a_B − 1| ≤ c_obs ≤ 1 − |a_A − a_B|`` (Geirhos,
    Meding & Wichmann 2020, eq. 2-6). With ``D = 1 − c_exp = a_A(1−a_B) + a_B(1−a_A)`` this gives::

        κ_max = 2·min(a_A(1−a_B), a_B(1−a_A)) / D
        κ_min = −2·min(a_A·a_B, (1−a_A)(1−a_B)) / D

    κ_max = 1 only when the accuracies are equal, but κ_min = −1 only when
    ``a_A = a_B = 0.5``: even with inverted accuracies ``a_B = 1 − a_A``,
    ``κ_min = −2a(1−a)/(a² + (1−a)²) > −1`` (Klein et al. 2025, App. D).

    References
    ----------
    Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> lo, hi = kappa_bounds(0.8, 0.6)
    >>> round(float(hi), 4), round(float(lo), 4)
    (0.5455, -0.3636)
    """
    a = check_probability(accuracy_a, "accuracy_a")
    b = check_probability(accuracy_b, "accuracy_b")
    a, b = v.check_broadcast(a, b, names=("accuracy_a", "accuracy_b"))
    lo, hi = attainable_kappa(a, b)
    undefined = np.isnan(lo)
    if undefined.any():
        k = int(np.flatnonzero(undefined.ravel())[0])
        warn(f"kappa_bounds: κ is undefined (expected agreement 1) where both accuracies are 0 or both are 1, so "
             f"{int(undefined.sum())} of {undefined.size} pair(s) of bounds are NaN; e.g. accuracy_a="
             f"{a.ravel()[k]:g}, accuracy_b={b.ravel()[k]:g}", DegenerateDataWarning)
    return lo, hi


def attainable_kappa(a: NDArray | float, b: NDArray | float) -> tuple[NDArray, NDArray]:
    """:func:`kappa_bounds` of checked accuracies (float arrays that broadcast), without its warning:
    for callers that handle the undefined (NaN) bounds themselves."""
    d = a * (1 - b) + b * (1 - a)
    with np.errstate(invalid="ignore", divide="ignore"):
        hi = 2 * np.minimum(a * (1 - b), b * (1 - a)) / d
        lo = -2 * np.minimum(a * b, (1 - a) * (1 - b)) / d
    hi = np.where(d > 0, hi, np.nan)
    lo = np.where(d > 0, lo, np.nan)
    return lo[()], hi[()]


def kappa_bounds_from_expected(c_exp: ArrayLike) -> tuple[NDArray, NDArray]:
    """Bounds on κ given only the expected agreement (Geirhos, Meding & Wichmann 2020, eq. 2-6).

    Parameters
    ----------
    c_exp : array_like
        Expected agreement ``a_A·a_B + (1 − a_A)(1 − a_B)``, in [0, 1].

    Returns
    -------
    kappa_min, kappa_max : ndarray
        The bounds; NaN where ``c_exp = 1``.

    Warns
    -----
    DegenerateDataWarning
        Once, when some ``c_exp`` is 1 (κ undefined there): how many.

    Notes
    -----
    For ``c_exp ≤ ½``: ``−c_exp/(1−c_exp) ≤ κ ≤ (1 − √(1−2c_exp) − c_exp)/(1−c_exp)``;
    for ``c_exp ≥ ½``: ``(√(2c_exp−1) − c_exp)/(1−c_exp) ≤ κ ≤ 1``.
    These are the bounds over all accuracy pairs with this ``c_exp``; at ``c_exp = 1``
    κ is undefined (NaN).

    References
    ----------
    Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Examples
    --------
    >>> lo, hi = kappa_bounds_from_expected(0.5)
    >>> float(lo), float(hi)
    (-1.0, 1.0)
    """
    ce = check_probability(c_exp, "c_exp")
    with np.errstate(invalid="ignore", divide="ignore"):
        low_branch = ce <= 0.5
        s_low = np.sqrt(np.clip(1 - 2 * ce, 0, None))
        s_high = np.sqrt(np.clip(2 * ce - 1, 0, None))
        lo = np.where(low_branch, -ce / (1 - ce), (s_high - ce) / (1 - ce))
        hi = np.where(low_branch, (1 - s_low - ce) / (1 - ce), 1.0)
    lo = np.where(ce < 1, lo, np.nan)
    hi = np.where(ce < 1, hi, np.nan)
    if (ce == 1).any():
        warn(f"kappa_bounds_from_expected: κ is undefined where the expected agreement c_exp is 1, so "
             f"{int((ce == 1).sum())} of {ce.size} pair(s) of bounds are NaN", DegenerateDataWarning)
    return lo[()], hi[()]


def feasible_accuracy(accuracy_a: ArrayLike, kappa: ArrayLike) -> tuple[NDArray, NDArray]:
    """Range of accuracies of B for which κ is attainable with an observer of accuracy a_A.

    The set ``{a_B : κ_min(a_A, a_B) ≤ κ ≤ κ_max(a_A, a_B)}`` is an interval; this
    returns its end points, for positive and negative κ.

    Parameters
    ----------
    accuracy_a : array_like
        Accuracy of A, in the open interval (0, 1) (at 0 or 1 κ is 0 or undefined for
        every a_B).
    kappa : array_like
        Target κ in [−1, 1]; broadcast against ``accuracy_a``.

    Returns
    -------
    low, high : ndarray
        NaN where no accuracy attains κ (possible only for κ < 0: κ = −1 needs
        ``a_A = 0.5``).

    Notes
    -----
    For κ ≥ 0 (inverse of κ_max; Geirhos, Meding & Wichmann 2020, eq. 2-6)::

        a_B ∈ [ a·κ / (2aκ − 2a − κ + 2),  a(2 − κ) / (κ + 2a(1 − κ)) ]

    For κ < 0 the binding bound is κ_min, which decreases in a_B on
    ``a_B ≤ 1 − a`` (where ``κ_min = −2a·a_B/D``) and increases on ``a_B ≥ 1 − a``
    (where ``κ_min = −2(1−a)(1−a_B)/D``). Solving ``κ_min = κ`` on each branch::

        low  = −κ·a / (2a + κ(1 − 2a))
        high = 1 + κ(1 − a) / (2(1 − a) + κ(2a − 1))

    feasible iff ``κ ≥ κ_min(a, 1 − a) = −2a(1−a)/(a² + (1−a)²)``.

    References
    ----------
    Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Examples
    --------
    >>> [round(float(x), 3) for x in feasible_accuracy(0.9, 0.5)]
    [0.75, 0.964]
    >>> [round(float(x), 3) for x in feasible_accuracy(0.5, -0.5)]
    [0.25, 0.75]
    """
    a = check_probability(accuracy_a, "accuracy_a", open_interval=True)
    k = check_kappa(kappa, "kappa")
    a, k = v.check_broadcast(a, k, names=("accuracy_a", "kappa"))
    with np.errstate(invalid="ignore", divide="ignore"):
        lo_pos = a * k / (2 * a * k - 2 * a - k + 2)
        hi_pos = a * (2 - k) / (k + 2 * a * (1 - k))
        lo_neg = -k * a / (2 * a + k * (1 - 2 * a))
        hi_neg = 1 + k * (1 - a) / (2 * (1 - a) + k * (2 * a - 1))
        attainable = k >= -2 * a * (1 - a) / (a**2 + (1 - a) ** 2) - 1e-12
    lo = np.where(k >= 0, lo_pos, np.where(attainable, lo_neg, np.nan))
    hi = np.where(k >= 0, hi_pos, np.where(attainable, hi_neg, np.nan))
    return lo[()], hi[()]


def cell_probabilities(kappa: ArrayLike, accuracy_a: ArrayLike, accuracy_b: ArrayLike) -> NDArray:
    """The 2×2 cell probabilities with these accuracies and this κ (broadcast).

    For correctness the table has one free parameter once the margins are fixed, so
    ``(κ, a_A, a_B)`` determine it: ``c_obs − c_exp = 2(P11 − a_A·a_B)`` gives
    ``P11 = a_A·a_B + κ(1 − c_exp)/2``, and the margins give the rest.

    Parameters
    ----------
    kappa : array_like
        Target κ in [−1, 1].
    accuracy_a, accuracy_b : array_like
        Accuracies of A and B in [0, 1]; all three broadcast against each other.

    Returns
    -------
    ndarray, shape (..., 2, 2)
        ``[[P11, P10], [P01, P00]]``.

    Raises
    ------
    ValueError
        If κ is outside ``[κ_min, κ_max]`` for these accuracies (a cell would be
        negative); the message gives the feasible range.

    Examples
    --------
    >>> cell_probabilities(0.5, 0.8, 0.8).round(3).tolist()
    [[0.72, 0.08], [0.08, 0.12]]
    """
    k = check_kappa(kappa, "kappa")
    a = check_probability(accuracy_a, "accuracy_a")
    b = check_probability(accuracy_b, "accuracy_b")
    k, a, b = v.check_broadcast(k, a, b, names=("kappa", "accuracy_a", "accuracy_b"))
    lo, hi = attainable_kappa(a, b)
    tol = 1e-12
    bad = ~np.isnan(lo) & ((k < lo - tol) | (k > hi + tol))
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise InvalidValueError(
            f"`kappa` = {k.ravel()[i]:g} is not attainable with accuracies "
            f"{a.ravel()[i]:g} and {b.ravel()[i]:g}: it must lie in "
            f"[{lo.ravel()[i]:.4g}, {hi.ravel()[i]:.4g}]"
        )
    c_exp = a * b + (1 - a) * (1 - b)
    p11 = a * b + np.where(np.isnan(lo), 0.0, k) * (1 - c_exp) / 2
    p10 = a - p11
    p01 = b - p11
    p00 = 1 - a - b + p11
    cells = np.stack([np.stack([p11, p10], -1), np.stack([p01, p00], -1)], -2)
    return np.clip(cells, 0.0, 1.0)
