"""Internal: the one way a benchmark function takes its trials (a table or a path).

Everything in :mod:`trialwise.benchmark` that accepts trials goes through :func:`as_trials`,
so a trials table is validated once, in one place.
"""

from __future__ import annotations

from typing import Any

from trialwise._core.errors import InvalidTypeError
from trialwise.data import TRIAL_COLUMNS, check_items, check_layout, check_path, read_trials

__all__ = ["as_trials"]


def as_trials(trials: Any):
    """A validated trials table (:data:`trialwise.data.TRIAL_COLUMNS`) from a table or a path.

    A DataFrame that already has the trial columns is checked (``correct`` is bool, one
    response per observer and item) and used as it is; anything else goes through
    :func:`trialwise.read_trials`.
    """
    import pandas as pd


    if not isinstance(trials, pd.DataFrame):
        return read_trials(check_path(trials, "trials", frame_ok=True))
    check_layout(trials, "trials")
    if set(TRIAL_COLUMNS) <= set(trials.columns):
        t = trials[list(TRIAL_COLUMNS)]
        if t["correct"].dtype != bool:
            raise InvalidTypeError("trials: column 'correct' must be bool (use trialwise.read_trials)")
        check_items(t, "trials")
        return t
    return read_trials(trials)
