"""Internal: the one way a benchmark function takes its trials (a table or a path).

Everything in :mod:`trialwise.benchmark` that accepts trials goes through :func:`as_trials`,
so a trials table is validated once, in one place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidTypeError
from trialwise.data import SCORE_COLUMN, TRIAL_COLUMNS, check_items, check_layout, check_path, check_scores, read_trials

__all__ = ["as_trials"]


def as_trials(trials: Any):
    """A validated trials table (:data:`trialwise.data.TRIAL_COLUMNS`) from a table or a path.

    A DataFrame that already has the trial columns is checked (``correct`` is bool, one
    response per observer and item) and used as it is, with its ``score`` column when it has
    one (per-item scores in [0, 1], checked); anything else goes through
    :func:`trialwise.read_trials` (with ``score="score"`` when the table has that column).
    """
    import pandas as pd


    if not isinstance(trials, pd.DataFrame):
        return read_trials(check_path(trials, "trials", frame_ok=True))
    check_layout(trials, "trials")
    if set(TRIAL_COLUMNS) <= set(trials.columns):
        has_score = SCORE_COLUMN in trials.columns
        t = trials[list(TRIAL_COLUMNS) + ([SCORE_COLUMN] if has_score else [])]
        if t["correct"].dtype != bool:
            raise InvalidTypeError("trials: column 'correct' must be bool (use trialwise.read_trials)")
        check_items(t, "trials")
        if has_score and t[SCORE_COLUMN].dtype != np.float64:
            t = t.assign(**{SCORE_COLUMN: check_scores(t[SCORE_COLUMN], "trials", SCORE_COLUMN)})
        elif has_score:
            check_scores(t[SCORE_COLUMN], "trials", SCORE_COLUMN)
        return t
    return read_trials(trials, score=SCORE_COLUMN if SCORE_COLUMN in trials.columns else None)
