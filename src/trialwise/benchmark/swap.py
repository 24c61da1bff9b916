"""The swap (permutation) test of two benchmark candidates: a test of exchangeability.

Under H0 candidates x and y are exchangeable: on each item of each condition their
responses are swapped with probability ½, independently, and every level of the
hierarchy is recomputed. Swapping changes a pair's table by ``s @ Δ`` (``s`` the 0/1 swap
indicators, ``Δ`` fixed columns), so M null draws are one matrix product per condition.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.validation import check_positive_int, check_rng
from trialwise.benchmark.hierarchy import Design, Unit, aggregate
from trialwise.benchmark.protocol import metric_from_sums
from trialwise.resampling import monte_carlo_test

__all__ = ["swap_differences", "swap_pvalue"]


def _swap_columns(unit: Unit, x: int, y: int, ex: NDArray, ey: NDArray):
    """Columns giving the change of X's entries' sums when X and Y are swapped on some items.

    With ``s`` the 0/1 swap indicator of the items, the swapped sums are
    ``base_x + s @ Δ`` for X and ``base_y − s @ Δ`` for Y. Returns the items that can
    change, the distinct columns of Δ on them and, per (sum, reference), the column index.
    """
    refs = unit.pairs[ex, 1]
    if not np.array_equal(refs, unit.pairs[ey, 1]):
        raise AssertionError("x and y must be paired with the same references")  # pragma: no cover
    r, s = unit.right.astype(np.int8), unit.seen.astype(np.int8)
    dr = r[:, y] - r[:, x]
    ds = s[:, y] - s[:, x]
    rh, sh = r[:, refs], s[:, refs]
    # n, n11, ca (candidate right & both seen), cb (reference right & both seen)
    delta = np.concatenate([ds[:, None] * sh, dr[:, None] * rh, dr[:, None] * sh, ds[:, None] * rh], axis=1)
    items = np.flatnonzero(np.any(delta != 0, axis=1))
    delta = delta[items]
    uniq, inverse = np.unique(delta, axis=1, return_inverse=True)
    return items, np.ascontiguousarray(uniq, dtype=np.float32), inverse.reshape(4, len(refs))


def swap_differences(
    design: Design,
    x: int,
    y: int,
    n_resamples: int,
    *,
    rng: Any = None,
) -> tuple[float, NDArray]:
    """Observed Δ = score(x) − score(y) and its swap (permutation) distribution.

    Under H0 candidates x and y are exchangeable: on each item of each unit their
    responses are swapped with probability ½ (independently), every level is
    recomputed, and Δ* recorded. ``x``, ``y`` are row indices of candidates.
    """
    m = check_positive_int(n_resamples, "n_resamples")
    gen = check_rng(rng)
    metric = design.protocol.metric
    ent_x = np.flatnonzero(design.entry_row == x)
    ent_y = np.flatnonzero(design.entry_row == y)
    vx = np.empty((m, len(ent_x)))
    vy = np.empty((m, len(ent_y)))
    for unit in design.units:
        rows = design.entry_row[unit.entries]
        ux, uy = unit.entries[rows == x], unit.entries[rows == y]
        if len(ux) == 0:
            continue
        loc_x, loc_y = ux - unit.entries[0], uy - unit.entries[0]
        items, delta, inverse = _swap_columns(unit, unit.pairs[loc_x[0], 0], unit.pairs[loc_y[0], 0], loc_x, loc_y)
        base_x = design.entry_sums[:, ux][:, None, :]
        base_y = design.entry_sums[:, uy][:, None, :]
        if len(items):
            bits = gen.integers(0, 2, size=(m, len(items)), dtype=np.int8).astype(np.float32)
            change = np.moveaxis((bits @ delta).astype(np.float64)[:, inverse], 1, 0)  # (4, m, refs)
        else:
            change = np.zeros((4, m, len(ux)))
        vx[:, np.searchsorted(ent_x, ux)] = metric_from_sums(metric, *(base_x + change))
        vy[:, np.searchsorted(ent_y, uy)] = metric_from_sums(metric, *(base_y - change))
    sx, _ = aggregate(vx, design, entries=ent_x)
    sy, _ = aggregate(vy, design, entries=ent_y)
    values = design.values()
    observed = aggregate(values[ent_x], design, entries=ent_x)[0][0] - aggregate(values[ent_y], design, entries=ent_y)[0][0]
    return float(observed), sx[:, 0] - sy[:, 0]


def swap_pvalue(observed: float, null: NDArray) -> float:
    """Two-sided Monte-Carlo p-value ``(1 + #|Δ*| ≥ |Δ|) / (1 + M)`` over defined Δ*
    (:func:`trialwise.resampling.monte_carlo_test` on the drawn swap distribution)."""
    return float(monte_carlo_test(float(observed), np.asarray(null, dtype=float), alternative="two-sided").pvalue)
