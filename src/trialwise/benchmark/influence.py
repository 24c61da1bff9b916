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
from trialwise.tables import cluster_sums, pair_columns

__all__ = ["UnitInfluence"]


@dataclass
class UnitInfluence:
    """What the IJ variance of one unit needs: per row, the distinct item columns of its entries.

    Items with the same columns in a row's block have the same influence on its score, so
    the influences are computed once per distinct pattern (``patterns``: one sparse product
    for every row at once) and weighted by the pattern's total item weight (``members``, a
    sparse indicator product, exact in float64).
    """

    rows: NDArray  # the row of each block of patterns
    offsets: NDArray  # pattern bounds of each row (rows of `patterns` and `members`)
    patterns: Any  # (all rows' patterns, 4 · entries) sparse: each pattern's item columns x_ie
    members: Any  # (all rows' patterns, n_items) sparse 0/1: which items have each pattern
    weight: NDArray  # (n_entries,) each entry's weight in its row's score (entry_weights)

    @classmethod
    def of(cls, right: NDArray, seen: NDArray, pairs: NDArray, rows_u: NDArray, weight: NDArray,
           clusters: NDArray | None = None) -> UnitInfluence:
        """From a unit's items × observers ``right``/``seen``, its ``pairs``, the row of each
        of its entries and those entries' weights. With ``clusters`` (a cluster code per
        item) the resampled units are the clusters: their columns are the sums of their
        items' columns, and the influences are the clusters'."""
        p = len(pairs)
        cols, _ = pair_columns(right, seen, pairs, fixed_total=False)  # (items, 4p): column k·p + e
        if clusters is not None:
            cols = cluster_sums(cols, clusters)
        rows = np.unique(rows_u)
        blocks, inverse = [], []
        for r in rows:
            mine = (np.flatnonzero(rows_u == r)[None, :] + p * np.arange(4)[:, None]).ravel()
            uniq, inv = _unique_rows(cols[:, mine])
            blocks.append(_scatter(uniq, mine, 4 * p))
            inverse.append(inv.reshape(-1))
        offsets = np.cumsum([0] + [b.shape[0] for b in blocks])
        n_items = cols.shape[0]
        members = sparse.csr_matrix(
            (np.ones(n_items * len(rows), np.float32), (np.concatenate([o + inv for o, inv in zip(offsets, inverse)]),
                                                        np.tile(np.arange(n_items), len(rows)))),
            shape=(offsets[-1], n_items))
        patterns = sparse.vstack(blocks, format="csr")
        # most of an item's columns are 0 (e.g. n11 when either is wrong): dropping them halves the
        # product, and the influences are the same (an item's influence adds the nonzero terms in
        # the same order; the ±0 left out do not change a sum, and the influences are squared)
        patterns.eliminate_zeros()
        return cls(rows, offsets, patterns, members, np.asarray(weight, dtype=float))

    def variance(self, metric: str, sums: tuple[NDArray, ...], values: NDArray, w: NDArray | None) -> NDArray:
        """IJ variance ``Σ_i w_i d_i²`` of every row's score from this unit's items, shape (b, rows):
        ``d_i = Σ_e c_e ∇metric_e · x_ie`` (``x_ie``: item i's contribution to entry e's sums)."""
        b = values.shape[0]
        g = metric_gradient(metric, *(np.asarray(x).T for x in sums))  # (4, entries, b)
        bad = ~(np.isfinite(values.T) & np.isfinite(g).all(axis=0))
        np.copyto(g, 0.0, where=bad[None])
        g *= self.weight[:, None]
        d = self.patterns @ g.reshape(-1, b)  # (patterns, b): the influence of each pattern's items
        d *= d
        if w is None:
            d *= np.asarray(self.members.sum(axis=1))
        else:
            d *= self.members @ w.T.astype(np.float32)  # item weight of each pattern (exact)
        return np.add.reduceat(d, self.offsets[:-1], axis=0).T


def _unique_rows(a: NDArray) -> tuple[NDArray, NDArray]:
    """``np.unique(a, axis=0, return_inverse=True)`` for an integer matrix: the distinct rows in
    lexicographic order and each row's index among them (by ``np.lexsort`` of the columns, many
    times faster than sorting the rows as structured records)."""
    if a.shape[0] == 0 or a.shape[1] == 0:
        uniq, inv = np.unique(a, axis=0, return_inverse=True)
        return uniq, inv.reshape(-1)
    order = np.lexsort(a.T[::-1])
    s = a[order]
    first = np.empty(len(s), dtype=bool)
    first[0] = True
    np.any(s[1:] != s[:-1], axis=1, out=first[1:])
    inv = np.empty(len(s), dtype=np.intp)
    inv[order] = np.cumsum(first) - 1
    return s[first], inv


def _scatter(values: NDArray, columns: NDArray, width: int) -> Any:
    """Rows of ``values`` placed in ``columns`` of a sparse matrix ``width`` wide."""
    n, k = values.shape
    return sparse.csr_matrix((values.ravel().astype(np.float64), np.tile(columns, n), np.arange(0, n * k + 1, k)),
                             shape=(n, width))
