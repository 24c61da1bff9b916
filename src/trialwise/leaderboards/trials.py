"""Internal: the one way a benchmark function takes its trials (a table or a path).

Everything in :mod:`trialwise.leaderboards` that accepts trials goes through :func:`as_trials`,
so a trials table is validated once, in one place.
"""

from __future__ import annotations

from typing import Any

from trialwise._core.errors import InvalidTypeError
from trialwise._core.warnings import TrialwiseWarning, warn
from trialwise.io.trials import SCORE_COLUMN, SCORE_SOURCE, TRIAL_COLUMNS, check_items, check_layout, check_scores, read_trials
from trialwise.io.tables import check_path

__all__ = ["as_trials"]


def _unused_score_column(trials: Any) -> None:
    warn(f"trials: column {SCORE_COLUMN!r} is not used as per-item scores: only a table read with "
         f"trialwise.read_trials(..., score=COLUMN) or read_lm_eval(..., score=FIELD) carries them "
         f"(DataFrame.attrs[{SCORE_SOURCE!r}]); `correct` is used", TrialwiseWarning)


def as_trials(trials: Any):
    """A validated trials table (:data:`trialwise.io.trials.TRIAL_COLUMNS`) from a table or a path.

    A DataFrame that already has the trial columns is checked (``correct`` is bool, one
    response per observer and item) and used as it is; anything else goes through
    :func:`trialwise.read_trials`. Its ``score`` column (per-item scores in [0, 1], checked)
    is kept only when the table says where the scores came from
    (``attrs[SCORE_SOURCE]``, set by ``read_trials(score=...)`` and ``read_lm_eval(score=...)``):
    a column that merely happens to be called ``score`` (a confidence, a rating) is not
    taken for partial credit — a warning says it is not used.
    """
    import pandas as pd

    if not isinstance(trials, pd.DataFrame):
        return read_trials(check_path(trials, "trials", frame_ok=True))
    check_layout(trials, "trials")
    scored = SCORE_COLUMN in trials.columns and trials.attrs.get(SCORE_SOURCE) is not None
    if SCORE_COLUMN in trials.columns and not scored:
        _unused_score_column(trials)
    if set(TRIAL_COLUMNS) <= set(trials.columns):
        t = trials[list(TRIAL_COLUMNS) + ([SCORE_COLUMN] if scored else [])]
        if t["correct"].dtype != bool:
            raise InvalidTypeError("trials: column 'correct' must be bool (use trialwise.read_trials)")
        check_items(t, "trials")
        if scored:
            t = t.assign(**{SCORE_COLUMN: check_scores(t[SCORE_COLUMN], "trials", SCORE_COLUMN)})
            t.attrs[SCORE_SOURCE] = trials.attrs[SCORE_SOURCE]
        return t
    out = read_trials(trials, score=SCORE_COLUMN if scored else None)
    if scored:
        out.attrs[SCORE_SOURCE] = trials.attrs[SCORE_SOURCE]
    return out
