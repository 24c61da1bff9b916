"""The infinitesimal jackknife (IJ) of benchmark scores: every item's influence on every row.

A row score is ``Σ_e c_e·m(S_e)``: entry weights ``c_e`` (:func:`trialwise.leaderboards.hierarchy.entry_weights`)
times a pair metric ``m`` of its table's sums ``S_e = Σ_i w_i x_ie`` over the unit's items,
weighted by the bootstrap's item weights ``w`` (1 on the data). Item ``i``'s influence is
``d_i = Σ_e c_e ∇m(S_e) · x_ie`` (:func:`trialwise.leaderboards.protocol.metric_gradient`) and
the IJ variance of the score is ``Σ_i w_i d_i²`` (Efron 2014, "Estimation and accuracy after
model selection", JASA 109:991–1007). :func:`trialwise.leaderboards.bootstrap.bootstrap_entries_ij`
computes it on the data and on every replicate, for the studentized interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from trialwise.leaderboards.protocol import metric_gradient
from trialwise._stats.tables import cluster_sums, pair_columns

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
    patterns: Any  # (all rows' patterns, [rows +] 4 · entries) sparse: each pattern's item columns x_ie
    members: Any  # (all rows' patterns, n_items) sparse 0/1: which items have each pattern
    weight: NDArray  # (n_entries,) each entry's weight in its row's score (entry_weights)
    # (rows, 4 · entries) sparse: the terms every pattern of a row begins with, added once per row;
    # `patterns` then has a leading column per row (1 where the pattern begins with that sum)
    prefix: Any = None

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
        inverse = []
        blocks, heads = _CsrRows(len(rows) + 4 * p), _CsrRows(4 * p)
        for i, r in enumerate(rows):
            mine = (np.flatnonzero(rows_u == r)[None, :] + p * np.arange(4)[:, None]).ravel()
            uniq, inv = _unique_rows(cols[:, mine])
            # the columns (in order) every pattern of the row begins with, with the same value in all
            # (e.g. the n of every entry when no item is missing): their sum is the same first part of
            # every pattern's influence, added once for the row and taken as the pattern's first term
            const = (uniq == uniq[:1]).all(axis=0)
            zero = const & (uniq[0] == 0)
            lead = int(np.argmin(const)) if not const.all() else len(mine)  # columns before the first that varies
            head = np.flatnonzero(const[:lead] & ~zero[:lead])
            heads.add(uniq[:1, head], mine[head])  # an empty row when there is no such column
            if len(head):
                uniq = uniq.copy()
                uniq[:, head] = 0
                uniq = np.concatenate([np.ones((len(uniq), 1), uniq.dtype), uniq], axis=1)
                blocks.add(uniq, np.concatenate([[i], len(rows) + mine]))
            else:
                blocks.add(uniq, len(rows) + mine)
            inverse.append(inv.reshape(-1))
        offsets = np.cumsum([0] + blocks.counts_of_blocks())
        n_items = cols.shape[0]
        members = sparse.csr_matrix(
            (np.ones(n_items * len(rows), np.float32), (np.concatenate([o + inv for o, inv in zip(offsets, inverse)]),
                                                        np.tile(np.arange(n_items), len(rows)))),
            shape=(offsets[-1], n_items))
        # most of an item's columns are 0 (e.g. n11 when either is wrong): leaving them out halves the
        # product, and the influences are the same (an item's influence adds the nonzero terms in
        # the same order; the ±0 left out do not change a sum, and the influences are squared)
        return cls(rows, offsets, blocks.matrix(), members, np.asarray(weight, dtype=float), heads.matrix())

    def variance(self, metric: str, sums: tuple[NDArray, ...], values: NDArray, w: NDArray | None) -> NDArray:
        """IJ variance ``Σ_i w_i d_i²`` of every row's score from this unit's items, shape (b, rows):
        ``d_i = Σ_e c_e ∇metric_e · x_ie`` (``x_ie``: item i's contribution to entry e's sums)."""
        g = metric_gradient(metric, *(np.asarray(x).T for x in sums))  # (4, entries, b)
        return self.replicate_variance(g, np.isfinite(values.T), w)

    def replicate_variance(self, gradient: NDArray, defined: NDArray, w: NDArray | None) -> NDArray:
        """:meth:`variance` from the metric's ``gradient`` at the sums of b replicates, shape
        (4, entries, b), where the metric is ``defined`` (entries, b), and
        their item weights ``w`` (b, items; None: 1); shape (b, rows). The bootstrap calls
        it on cache-sized slices of replicates: every value is summed in the same order
        whatever b, so the slicing does not change a bit."""
        b = gradient.shape[2]
        n_head = 0 if self.prefix is None else self.prefix.shape[0]
        g = np.empty((n_head + gradient.shape[0] * gradient.shape[1], b))
        grad = g[n_head:].reshape(gradient.shape)
        # weighted in the copy; the weights are finite and >= 0, so a gradient is finite where its
        # weighted value is, and 0 where it is not (the same bits as zeroing it before weighting)
        with np.errstate(invalid="ignore"):  # inf·0 (an undefined entry's weight): zeroed below
            np.multiply(gradient, self.weight[:, None], out=grad)
        bad = ~(defined & np.isfinite(grad).all(axis=0))
        if bad.any():
            np.copyto(grad, 0.0, where=bad[None])
        if n_head:  # each row's common first terms, summed once, in order (the same bits as in every pattern)
            g[:n_head] = self.prefix @ g[n_head:]
        d = self.patterns @ g  # (patterns, b): the influence of each pattern's items
        d *= d
        if w is None:
            d *= np.asarray(self.members.sum(axis=1))
        else:
            d *= self.members @ np.asarray(w.T, dtype=np.float32)  # item weight of each pattern (exact)
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


class _CsrRows:
    """A sparse (CSR) matrix ``width`` wide, built block of rows by block of rows, its zeros left out.

    The same data, column indices and row pointers as stacking each block's CSR matrix and
    dropping its zeros (``sparse.vstack`` then ``eliminate_zeros``), so the same products, bit
    for bit, without a scipy matrix per block (they took half of :meth:`UnitInfluence.of`).
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self.data: list[NDArray] = []
        self.indices: list[NDArray] = []
        self.counts: list[NDArray] = []

    def add(self, values: NDArray, columns: NDArray) -> None:
        """Rows of ``values`` (n × k) placed in ``columns`` (k), in order; their zeros left out."""
        nonzero = values != 0
        self.data.append(values[nonzero].astype(np.float64))
        self.indices.append(np.broadcast_to(np.asarray(columns, dtype=np.int64), values.shape)[nonzero])
        self.counts.append(nonzero.sum(axis=1))

    def counts_of_blocks(self) -> list[int]:
        """The number of rows of each block."""
        return [len(c) for c in self.counts]

    def matrix(self) -> Any:
        counts = np.concatenate(self.counts) if self.counts else np.zeros(0, np.int64)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        data = np.concatenate(self.data) if self.data else np.zeros(0)
        indices = np.concatenate(self.indices) if self.indices else np.zeros(0, np.int64)
        return sparse.csr_matrix((data, indices, indptr), shape=(len(counts), self.width))
