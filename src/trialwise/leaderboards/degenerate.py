"""Notes on degenerate data in a leaderboard's design: conditions where a row's pair values are undefined,
rows whose κ is 0 by construction, and accuracy intervals stuck at 0 or 1 (given their exact
Clopper–Pearson interval). :func:`trialwise.leaderboard` attaches them to the result (and warns).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise.leaderboards.hierarchy import Design
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import metric_from_sums

__all__ = ["interval_at_bound", "undefined_conditions", "zero_by_rule"]


def interval_at_bound(design: Design, scores: NDArray, replicates: NDArray, low: NDArray, high: NDArray,
                      confidence_level: float) -> StructuredNote | None:
    """Accuracy rows whose interval has no width because every replicate is at 0 or 1 (all items
    right, or all wrong): the bootstrap cannot show their uncertainty. Where the score is one
    binomial proportion (one condition in all, items resampled, 0/1 correctness), ``low`` and
    ``high`` get its exact Clopper–Pearson interval in place (``scipy.stats.binomtest``); every
    such row is named in the returned note with the exact interval of its items taken as one
    sample (Clopper & Pearson 1934, *Biometrika* 26:404–413).
    """
    from scipy import stats

    if design.protocol.metric != "accuracy":
        return None
    with np.errstate(invalid="ignore"):
        at_bound = np.isin(scores, (0.0, 1.0)) & (low == high) & np.all(
            np.isnan(replicates) | (replicates == scores), axis=0)
    if not at_bound.any():
        return None
    names, n_items, exact, replaced = [], [], [], []
    for r in np.flatnonzero(at_bound):
        entries = np.flatnonzero(design.entry_row == r)
        n, _, ca, _ = design.entry_sums[:, entries].sum(axis=1)
        ci = stats.binomtest(int(round(ca)), int(n)).proportion_ci(confidence_level, "exact")
        one_sample = len(entries) == 1 and design.units[design.entry_unit[entries[0]]].clusters is None \
            and float(ca).is_integer()
        if one_sample:
            low[r], high[r] = ci.low, ci.high
        names.append(design.rows[r])
        n_items.append(int(n))
        exact.append([float(ci.low), float(ci.high)])
        replaced.append(bool(one_sample))
    return StructuredNote("interval-at-bound", names=names, n_items=n_items, exact=exact, replaced=replaced,
                          confidence_level=confidence_level)


def undefined_conditions(design: Design) -> StructuredNote | None:
    """The note ``undefined-conditions``: conditions where a row has no defined pair value, so its
    score leaves them out (``None`` when there are none); rows with pairs but no defined value in
    any condition (no score: NaN) are named in its ``never``, with the cause.

    A pair value is undefined where the metric is (κ: both observers always right, or
    always wrong, on the items they share); the reference row also has none where fewer
    than two reference observers saw the condition. Rows without a pair in a condition for
    lack of shared items are the note ``sparse-pairs``'s, and a reference row with no pair
    at all (one reference observer) the note ``one-reference-observer``'s. When no candidate
    has a defined value anywhere (every observer always right: nothing to rank) it is an error.
    """
    values = design.values()
    shape = (len(design.units), len(design.rows))
    defined, has_pair = np.zeros(shape, bool), np.zeros(shape, bool)
    np.logical_or.at(defined, (design.entry_unit, design.entry_row), np.isfinite(values))
    has_pair[design.entry_unit, design.entry_row] = True
    scored: NDArray = np.asarray(defined.any(axis=0))  # rows with a value somewhere
    never_rows = np.flatnonzero(has_pair.any(axis=0) & ~scored)  # pairs, but no value anywhere: no score
    never = {design.rows[r]: _undefined_cause(design, int(r)) for r in never_rows}
    k = len(design.candidates)
    if k and not scored[:k].any():
        cause = _undefined_cause(design, *range(k))
        raise InvalidValueError(
            f"`trials`: no candidate has a defined {design.protocol.metric} in any condition — every candidate and "
            f"the reference observers it is paired with are {cause} on the images they share, where κ is undefined "
            f"(0/0), so there is nothing to rank. Error consistency compares errors: score accuracy instead "
            f"(protocol 'accuracy', --protocol accuracy), or use conditions in which the observers err")
    refs = set(design.references)
    lone_ref = np.array([sum(o in refs for o in u.observers) < 2 for u in design.units])
    missing = scored & ~defined & has_pair
    if not design.protocol.against_ground_truth:
        missing[:, design.reference_row] |= scored[design.reference_row] & lone_ref & ~has_pair[:, design.reference_row]
    if not missing.any() and not never:
        return None
    every, some = [], {}
    for u in np.flatnonzero(missing.any(axis=1)):
        label = f"{design.units[u].experiment}/{design.units[u].condition}"
        if missing[u, scored].all():
            every.append(label)
        else:
            some[label] = [design.rows[r] for r in np.flatnonzero(missing[u])]
    return StructuredNote("undefined-conditions", every=every, some=some, never=never)


def zero_by_rule(design: Design) -> StructuredNote | None:
    """The note ``kappa-zero-by-rule``: rows whose every defined pair value is κ = 0 by construction
    (one observer of each pair always right, or always wrong, on the images they share: κ is then
    0 whatever the other does), so the score says nothing about the row (``None`` when there are none,
    and for metrics other than error consistency)."""
    if design.protocol.metric != "error-consistency":
        return None
    n, _, ca, cb = design.entry_sums
    finite = np.isfinite(design.values())
    rule = (ca == n) | (ca == 0) | (cb == n) | (cb == 0)
    rows: dict[str, str] = {}
    for r, name in enumerate(design.rows):
        mine = (design.entry_row == r) & finite
        if not mine.any() or not rule[mine].all():
            continue
        own = ((ca == n) | (ca == 0))[mine].all()
        other = ((cb == n) | (cb == 0))[mine].all()
        both = r == design.reference_row
        rows[name] = ("one observer or the other" if both or own == other else
                      "itself" if own else "its reference observers")
    return StructuredNote("kappa-zero-by-rule", rows=rows) if rows else None


def _undefined_cause(design: Design, *rows: int) -> str:
    """Why the pair values of ``rows`` are undefined where they are: at the ceiling, the floor, or both."""
    n, n11, ca, cb = design.entry_sums[:, np.isin(design.entry_row, rows)]
    undefined = ~np.isfinite(metric_from_sums(design.protocol.metric, n, n11, ca, cb))
    right = bool(((ca == n) & (cb == n))[undefined].any())
    wrong = bool(((ca == 0) & (cb == 0))[undefined].any())
    return ("always right (the ceiling)" if right and not wrong else "always wrong (the floor)"
            if wrong and not right else "always right or always wrong")
