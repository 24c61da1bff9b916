"""The infinitesimal jackknife (IJ) of benchmark scores: every item's influence on every row.

A row score is ``Σ_e c_e·m(S_e)``: entry weights ``c_e`` (:func:`trialwise.benchmark.hierarchy.entry_weights`)
times a pair metric ``m`` of its table's sums ``S_e = Σ_i w_i x_ie`` over the unit's items,
weighted by the bootstrap's item weights ``w`` (1 on the data). Item ``i``'s influence is
``d_i = Σ_e c_e ∇m(S_e) · x_ie`` (:func:`trialwise.benchmark.protocol.metric_gradient`) and
the IJ variance of the score is ``Σ_i w_i d_i²`` (Efron 2014, "Estimation and accuracy after
model selection", JASA 109:991–1007). :func:`trialwise.benchmark.hierarchy.bootstrap_entries_ij`
computes it on the data and on every replicate, for the studentized interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from trialwise.benchmark.protocol import metric_gradient
from trialwise.tables import pair_columns

__all__ = ["UnitInfluence"]


@dataclass
class UnitInfluence:
    """What the IJ variance of one unit needs: per row, the distinct item columns of its entries.

    Items with the same columns in a row's block have the same influence on its score, so
    the influences are computed once per distinct pattern and weighted by the pattern's
    total item weight (a sparse indicator product, exact in float64).
    """

    order: NDArray  # gradient columns grouped by row, in pair_columns' (fixed_total=False) layout
    bounds: NDArray  # column bounds of each row's block in `order`
    rows: NDArray  # the row of each block
    patterns: list[NDArray]  # per row: (4 · entries of the row, distinct patterns) columns
    offsets: NDArray  # pattern bounds of each row in `members`
    members: Any  # (all rows' patterns, n_items) sparse 0/1: which items have each pattern
    weight: NDArray  # (n_entries,) each entry's weight in its row's score (entry_weights)

    @classmethod
    def of(cls, right: NDArray, seen: NDArray, pairs: NDArray, rows_u: NDArray, weight: NDArray) -> UnitInfluence:
        """From a unit's items × observers ``right``/``seen``, its ``pairs``, the row of each
        of its entries and those entries' weights."""
        p = len(pairs)
        by_row = np.argsort(rows_u, kind="stable")
        order = (by_row[:, None] + p * np.arange(4)[None, :]).ravel()
        cols, _ = pair_columns(right, seen, pairs, fixed_total=False)
        cols = cols[:, order]
        rows, start = np.unique(rows_u[by_row], return_index=True)
        bounds = 4 * np.append(start, p)
        patterns, inverse = [], []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            uniq, inv = np.unique(cols[:, lo:hi], axis=0, return_inverse=True)
            patterns.append(np.ascontiguousarray(uniq.T, dtype=np.float64))
            inverse.append(inv.reshape(-1))
        offsets = np.cumsum([0] + [x.shape[1] for x in patterns])
        n_items = cols.shape[0]
        members = sparse.csr_matrix(
            (np.ones(n_items * len(rows), np.float32), (np.concatenate([o + inv for o, inv in zip(offsets, inverse)]),
                                            np.tile(np.arange(n_items), len(rows)))),
            shape=(offsets[-1], n_items))
        return cls(order, bounds, rows, patterns, offsets, members, np.asarray(weight, dtype=float))

    def variance(self, metric: str, sums: tuple[NDArray, ...], values: NDArray, w: NDArray | None) -> NDArray:
        """IJ variance ``Σ_i w_i d_i²`` of every row's score from this unit's items, shape (b, rows):
        ``d_i = Σ_e c_e ∇metric_e · x_ie`` (``x_ie``: item i's contribution to entry e's sums)."""
        b = values.shape[0]
        g = metric_gradient(metric, *sums)  # (4, b, entries)
        ok = np.isfinite(values) & np.isfinite(g).all(axis=0)
        g = np.where(ok, g, 0.0) * self.weight
        grad = np.moveaxis(g, 0, 1).reshape(b, -1)[:, self.order]
        if w is None:
            mass = np.broadcast_to(np.asarray(self.members.sum(axis=1)).T, (b, self.offsets[-1]))
        else:
            mass = (self.members @ w.T.astype(np.float32)).T  # (b, patterns): item weight of each pattern (exact)
        out = np.empty((b, len(self.rows)))
        for j in range(len(self.rows)):
            d = grad[:, self.bounds[j]:self.bounds[j + 1]] @ self.patterns[j]  # influence of each pattern's items
            d *= d
            out[:, j] = np.einsum("bi,bi->b", d, mass[:, self.offsets[j]:self.offsets[j + 1]])
        return out
