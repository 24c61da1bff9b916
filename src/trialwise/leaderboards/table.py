"""The table of a leaderboard: score intervals, rank columns and the notes they raise.

What :meth:`trialwise.leaderboards.Leaderboard.from_bootstrap` computes from a design and its
joint bootstrap (:func:`trialwise.leaderboards.replicates.bootstrap_scores`) before it makes
the result: each row's interval (:mod:`trialwise.leaderboards.experiments`), the exact
interval of an accuracy stuck at 0 or 1 (:mod:`trialwise.leaderboards.degenerate`), the rank
intervals, the set of the best and the tie groups (:mod:`trialwise.leaderboards.ranks`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.intervals import degenerate_standard_errors
from trialwise.leaderboards.degenerate import interval_at_bound
from trialwise.leaderboards.experiments import score_interval, studentized_score_interval
from trialwise.leaderboards.hierarchy import Design
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import HIGHER_IS_BETTER, METRIC_RANGE
from trialwise.leaderboards.ranks import rank_columns
from trialwise.leaderboards.replicates import BootstrapScores

__all__ = ["TABLE_COLUMNS", "entry_table", "score_table"]

#: Columns of :attr:`Leaderboard.table`.
TABLE_COLUMNS = ("observer", "kind", "score", "ci_low", "ci_high", "rank", "rank_low", "rank_high", "rank_set_low",
                 "rank_set_high", "in_best_set", "group", "p_best", "n_undefined")


def score_table(design: Design, boot: BootstrapScores, *, confidence_level: float, ci_method: str,
                notes: Any) -> tuple[Any, tuple[str, ...]]:
    """The leaderboard table (columns :data:`TABLE_COLUMNS`: the reference row first, then the
    candidates by rank) and ``notes`` with the notes the intervals raise: ``studentized-fallback``
    (rows whose studentized interval is unbounded, given ``bc``) and ``interval-at-bound`` (which
    also warns). ``ci_method="studentized"`` needs ``boot``'s standard errors."""
    import pandas as pd

    k = len(design.candidates)
    higher = HIGHER_IS_BETTER[design.protocol.metric]
    scores, replicates = boot.scores, boot.replicates
    se, se_rep = boot.standard_errors, boot.replicate_standard_errors
    notes = list(notes)
    fallback = np.zeros(len(scores), dtype=bool)
    if ci_method == "studentized" and se is not None and se_rep is not None:
        lo, hi, fallback = studentized_score_interval(replicates, scores, confidence_level, se, se_rep,
                                                      bounds=METRIC_RANGE[design.protocol.metric])
    else:
        lo, hi = score_interval(ci_method, replicates, scores, confidence_level)
    at_bound = interval_at_bound(design, scores, replicates, lo, hi, confidence_level)
    if at_bound is not None:  # an exact interval given in place of bc is not a bc fallback
        fallback &= ~np.isin(design.rows, [n for n, r in zip(at_bound.values["names"],
                                                              at_bound.values["replaced"]) if r])
    if fallback.any() and se is not None and se_rep is not None:
        flat = np.sum(degenerate_standard_errors(se, se_rep) & ~np.isnan(replicates), axis=0)
        notes.append(StructuredNote(
            "studentized-fallback", names=[design.rows[i] for i in np.flatnonzero(fallback)],
            n_flat=[int(flat[i]) for i in np.flatnonzero(fallback)], n_resamples=replicates.shape[0],
            confidence_level=confidence_level, difference=False))
    if at_bound is not None:
        notes.append(at_bound)
        warn(str(at_bound), DegenerateDataWarning)
    ranked = rank_columns(scores[:k], replicates[:, :k], higher_is_better=higher,
                          confidence_level=confidence_level)
    ranks = ranked["rank"]
    frame = pd.DataFrame({
        "observer": list(design.rows),
        "kind": ["candidate"] * k + ["reference"],
        "score": scores,
        "ci_low": lo,
        "ci_high": hi,
        **{c: np.append(ranked[c], np.nan) for c in ("rank", "rank_low", "rank_high", "rank_set_low",
                                                      "rank_set_high")},
        "in_best_set": pd.array(list(ranked["in_best_set"]) + [pd.NA], dtype="boolean"),
        "group": list(ranked["group"]) + [pd.NA],
        "p_best": np.append(ranked["p_best"], np.nan),
        "n_undefined": np.isnan(replicates).sum(axis=0),
    })
    # an accuracy leaderboard has no reference row (its reference is the ground truth)
    order = ([] if design.protocol.against_ground_truth else [k]) + list(np.argsort(ranks, kind="stable"))
    table = frame.iloc[order].reset_index(drop=True)
    for col in ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high"):
        table[col] = table[col].astype("Int64")
    return table, tuple(notes)


def entry_table(design: Design) -> Any:
    """Every pair value behind the scores, one row per (condition, observer, reference pair):
    what :meth:`trialwise.leaderboards.Leaderboard.entries` returns."""
    import pandas as pd

    d = design
    n, n11, ca, cb = d.entry_sums
    refs = d.references
    label = [refs[r] if row < len(d.candidates) else f"{refs[r // len(refs)]}|{refs[r % len(refs)]}"
             for row, r in zip(d.entry_row, d.entry_reference)]
    with np.errstate(invalid="ignore", divide="ignore"):
        pa, pb = ca / n, cb / n
        frame = pd.DataFrame({
            "experiment": [d.units[u].experiment for u in d.entry_unit],
            "condition": [d.units[u].condition for u in d.entry_unit],
            "observer": np.array(d.rows, dtype=object)[d.entry_row], "reference": label, "n": n.astype(int),
            "accuracy_observer": pa, "accuracy_reference": pb, "c_obs": (n - ca - cb + 2 * n11) / n,
            "c_exp": pa * pb + (1 - pa) * (1 - pb), "value": d.values(),
        })
    return frame
