"""Observed agreement: where κ's bounds let it fall, and where chance puts it (Geirhos, Meding & Wichmann 2020, Fig. 1–2).

:func:`attainable_agreement` is the range of the observed agreement that κ's bounds allow
at an expected agreement ``c_exp`` (``c_obs = c_exp + κ (1 − c_exp)``). Two observers who
err independently agree on a trial with probability ``c_exp``, so over ``n`` trials their
observed agreement is Binomial(n, c_exp)/n; :func:`chance_agreement_interval` gives its
central normal-approximation interval. These are the grey region and the band around the
diagonal of :func:`trialwise.plot.plot_agreement`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._stats.bounds import kappa_bounds_from_expected
from trialwise._stats.intervals import wald_interval

__all__ = ["attainable_agreement", "chance_agreement_interval"]


def attainable_agreement(c_exp: ArrayLike) -> tuple[NDArray, NDArray]:
    """Smallest and largest observed agreement attainable at expected agreement ``c_exp``.

    Parameters
    ----------
    c_exp : array_like
        Expected agreement, in [0, 1) (see :func:`trialwise.ec.kappa_bounds_from_expected`).

    Returns
    -------
    low, high : ndarray
        ``c_exp + κ_min (1 − c_exp)`` and ``c_exp + κ_max (1 − c_exp)``.

    Examples
    --------
    >>> low, high = attainable_agreement([0.5, 0.82])
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.0, 0.8], [1.0, 1.0])
    """
    ce = np.asarray(c_exp, dtype=float)
    lo, hi = kappa_bounds_from_expected(ce)
    return ce + lo * (1 - ce), ce + hi * (1 - ce)


def chance_agreement_interval(c_exp: ArrayLike, n: ArrayLike, *,
                              confidence_level: float = 0.95) -> tuple[NDArray, NDArray]:
    """Interval of the observed agreement of two independent observers.

    Parameters
    ----------
    c_exp : array_like
        Expected agreement, in [0, 1].
    n : array_like
        Number of trials (> 0); broadcasts against ``c_exp``.
    confidence_level : float, default 0.95

    Returns
    -------
    low, high : ndarray
        ``c_exp ∓ z · sqrt(c_exp (1 − c_exp) / n)`` with ``z`` the normal quantile of
        ``0.5 + confidence_level / 2``.

    Examples
    --------
    >>> low, high = chance_agreement_interval([0.5, 0.9], 100)
    >>> low.round(3).tolist(), high.round(3).tolist()
    ([0.402, 0.841], [0.598, 0.959])
    """
    level = v.check_confidence_level(confidence_level)
    ce = v.check_probability(c_exp, "c_exp")
    size = v.check_positive(n, "n")
    return wald_interval(ce, np.sqrt(ce * (1 - ce) / size), level)
