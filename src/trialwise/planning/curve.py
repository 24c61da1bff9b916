"""The expected interval of κ̂ against the number of trials for the design of a plan (Klein et al. 2025, Fig. 3).

:func:`interval_curve` simulates, for the accuracies, κ and level of a
:class:`~trialwise.planning.PlanResult`, the expected interval of κ̂ at a log-spaced grid of trial
counts; :func:`trialwise.plot.plot_ci_width` draws it (``plan=`` marks the plan's answer).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from trialwise._core.errors import InvalidTypeError
from trialwise.planning.results import CIWidthResult, PlanResult
from trialwise.planning.trials import ci_width

__all__ = ["CURVE_TRIALS", "interval_curve"]

#: Default trial counts of :func:`interval_curve`: 30 log-spaced values from 10 to 10**5 (rounded, distinct).
CURVE_TRIALS = np.unique(np.round(np.logspace(1, 5, 30)).astype(np.int64))


def interval_curve(plan: PlanResult, n: ArrayLike | None = None, *, rng: Any = None) -> CIWidthResult:
    """Expected interval of κ̂ at many trial counts, for the design of ``plan``.

    Parameters
    ----------
    plan : PlanResult
        From :func:`trialwise.plan_trials`; its accuracies, κ, ``confidence_level`` and
        ``n_simulations`` are used.
    n : array_like of int, optional
        Trial counts (default :data:`CURVE_TRIALS`, 10 to 10**5).
    rng : None, int or numpy.random.Generator
        As in :func:`trialwise.planning.ci_width`.

    Returns
    -------
    CIWidthResult
        :func:`trialwise.planning.ci_width` over ``n`` for the plan's design.

    Examples
    --------
    >>> import trialwise as tw
    >>> plan = tw.plan_trials(half_width=0.1, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, n_simulations=500, rng=0)
    >>> curve = interval_curve(plan, [100, 1000], rng=0)
    >>> curve.n.tolist(), bool(curve.half_width[0] > curve.half_width[1])
    ([100, 1000], True)
    """
    if not isinstance(plan, PlanResult):
        raise InvalidTypeError(f"`plan` must be a PlanResult from trialwise.plan_trials; got {type(plan).__name__}")
    grid = CURVE_TRIALS if n is None else n
    return ci_width(grid, plan.accuracy_a, plan.accuracy_b, plan.kappa, confidence_level=plan.confidence_level,
                    n_simulations=plan.n_simulations, rng=rng)
