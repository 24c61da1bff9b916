"""The swap (permutation) test of two benchmark candidates: a test of exchangeability.

Under H0 candidates x and y are exchangeable: on each item of each condition their
responses are swapped with probability ½, independently, and every level of the
hierarchy is recomputed. Swapping changes a pair's table by ``s @ Δ`` (``s`` the 0/1 swap
indicators, ``Δ`` fixed columns), so M null draws are one matrix product per condition.

When the leaderboard resamples clusters of items (``clusters=``), whole clusters are
swapped: ``s`` is one indicator per cluster and ``Δ`` the sums of its items' columns, so
the test holds under the weaker null that x and y are exchangeable cluster by cluster. On
0/1 correctness of one condition the swap test is McNemar's exact test of the two
candidates, by Monte Carlo; on per-item scores in [0, 1] (accuracy of partial credit, F1,
...) it is the paired sign-flip (permutation) test of the mean score difference (Fisher
1935, *The Design of Experiments*, §21; Good 2005, *Permutation, Parametric and Bootstrap
Tests of Hypotheses*, §3.3), of cluster sums when clusters are swapped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.validation import check_positive_int, check_rng
from trialwise.benchmark.hierarchy import Design, Unit, aggregate
from trialwise.benchmark.protocol import metric_from_sums
from trialwise.resampling import monte_carlo_test
from trialwise.tables import cluster_sums

__all__ = ["swap_differences", "swap_pvalue"]

#: Sums (4 × swaps × entries) per block of swaps: 0.5 MB per float64 array, so a block's temporaries stay in cache.
_BLOCK = 2**18


def _swap_columns(unit: Unit, x: int, y: int, ex: NDArray, ey: NDArray):
    """Columns giving the change of X's entries' sums when X and Y are swapped on some items.

    With ``s`` the 0/1 swap indicator of the items, the swapped sums are
    ``base_x + s @ Δ`` for X and ``base_y − s @ Δ`` for Y. Returns the items that can
    change, the distinct columns of Δ on them and, per (sum, reference), the column index.
    """
    refs = unit.pairs[ex, 1]
    if not np.array_equal(refs, unit.pairs[ey, 1]):
        raise AssertionError("x and y must be paired with the same references")  # pragma: no cover
    # 0/1 correctness: exact small integers; per-item scores (accuracy of scores in [0, 1]): float64
    r: NDArray = unit.right.astype(np.int8 if unit.right.dtype == np.uint8 else np.float64)
    s: NDArray = unit.seen.astype(np.int8)
    dr = r[:, y] - r[:, x]
    ds = s[:, y] - s[:, x]
    rh, sh = r[:, refs], s[:, refs]
    # n, n11, ca (candidate right & both seen), cb (reference right & both seen)
    delta = np.concatenate([ds[:, None] * sh, dr[:, None] * rh, dr[:, None] * sh, ds[:, None] * rh], axis=1)
    if unit.clusters is not None:  # whole clusters are swapped: a cluster's change is the sum of its items'
        delta = cluster_sums(delta, unit.clusters)
    items = np.flatnonzero(np.any(delta != 0, axis=1))
    delta = delta[items]
    uniq, inverse = np.unique(delta, axis=1, return_inverse=True)
    exact = np.issubdtype(delta.dtype, np.integer)  # float32 holds these sums exactly
    return items, np.ascontiguousarray(uniq, dtype=np.float32 if exact else np.float64), inverse.reshape(4, len(refs))


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
    # every unit's distinct swap columns side by side: products[:, k] (the last column: no change);
    # take[j, e]: the column of sum j of x's e-th entry (y's is the same, with the opposite sign)
    parts, take, where_x, where_y, width = [], [], [], [], 0
    for unit in design.units:
        rows = design.entry_row[unit.entries]
        ux, uy = unit.entries[rows == x], unit.entries[rows == y]
        if len(ux) == 0:
            continue
        loc_x, loc_y = ux - unit.entries[0], uy - unit.entries[0]
        items, delta, inverse = _swap_columns(unit, unit.pairs[loc_x[0], 0], unit.pairs[loc_y[0], 0], loc_x, loc_y)
        if len(items):  # one draw per unit, in unit order, as the stream has always been used
            bits = gen.integers(0, 2, size=(m, len(items)), dtype=np.int8).astype(delta.dtype)
            # exact (small integers); einsum's own loop, not BLAS: at these shapes (items × a few
            # columns per unit) BLAS threads cost more than the product, and the pairs are threaded already
            parts.append(np.einsum("ij,jk->ik", bits, delta))
            take.append(inverse + width)
            width += delta.shape[1]
        else:
            take.append(np.full(inverse.shape, -1))
        where_x.append(np.searchsorted(ent_x, ux))
        where_y.append(np.searchsorted(ent_y, uy))
    products = np.concatenate(parts + [np.zeros((m, 1), np.float32)], axis=1)
    take_all = np.concatenate(take, axis=1) if take else np.empty((4, 0), np.intp)
    take_all[take_all < 0] = width
    wx, wy = (np.concatenate(w) if w else np.empty(0, np.intp) for w in (where_x, where_y))
    base_x = design.entry_sums[:, ent_x[wx]][:, None, :]
    base_y = design.entry_sums[:, ent_y[wy]][:, None, :]
    vx = np.empty((m, len(ent_x)))
    vy = np.empty((m, len(ent_y)))
    step = max(1, _BLOCK // max(take_all.size, 1))
    for lo in range(0, m, step):  # blocks of swaps: every entry of every unit at once, in cache
        change = np.moveaxis(products[lo:lo + step].astype(np.float64)[:, take_all], 1, 0)  # (4, block, entries)
        vx[lo:lo + step, wx] = metric_from_sums(metric, *(base_x + change))
        vy[lo:lo + step, wy] = metric_from_sums(metric, *(base_y - change))
    sx, _ = aggregate(vx, design, entries=ent_x)
    sy, _ = aggregate(vy, design, entries=ent_y)
    values = design.values()
    observed = aggregate(values[ent_x], design, entries=ent_x)[0][0] - aggregate(values[ent_y], design, entries=ent_y)[0][0]
    return float(observed), sx[:, 0] - sy[:, 0]


def swap_pvalue(observed: float, null: NDArray) -> float:
    """Two-sided Monte-Carlo p-value ``(1 + #|Δ*| ≥ |Δ|) / (1 + M)`` over defined Δ*
    (:func:`trialwise.resampling.monte_carlo_test` on the drawn swap distribution)."""
    return float(monte_carlo_test(float(observed), np.asarray(null, dtype=float), alternative="two-sided").pvalue)
