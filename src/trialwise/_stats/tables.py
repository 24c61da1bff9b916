"""Items → count tables: the one step from trial-level data to the counts every kernel uses.

Every statistic of trialwise is a function of count tables (:mod:`trialwise._stats.kappa`,
:mod:`trialwise._stats.significance`, :mod:`trialwise.comparison`); the trial-level, label-level
and DataFrame-level APIs only *produce* counts, and they produce them here (the idea of
``statsmodels.stats.contingency_tables.Table.from_data``, on numpy arrays):

* :func:`correctness_table` — the joint correctness of m observers on the same items,
  a table of shape ``(2,) * m`` with index 0 = correct: the 2×2 table
  ``[[n11, n10], [n01, n00]]`` of two observers (A in rows), the 2×2×2 triplet table of
  a reference and two observers (axes reference, X, Y).
* :func:`pairwise_tables` — the 2×2 tables of many pairs of observers at once, each on
  the items both observers saw (missing data).
* :func:`pair_columns` and :func:`tables_from_sums` — the same tables as weighted sums
  of item columns, ``w @ columns``: a bootstrap replicate of every pair's table is then
  one row of a matrix product (:func:`trialwise._stats.resampling.bootstrap_sums`).
* :func:`agreement_table` — the K × K table of two observers' coded labels (A in rows).
* :func:`triplet_margins` — the (reference, X) and (reference, Y) tables of triplet
  tables.

Correctness comes in as booleans and labels as integer codes; deciding whether a
response is correct (or two labels the same class) is the job of
:func:`trialwise.io.labels.code_labels`, which every caller applies first. The functions here
assume clean input (the public functions validate it) and return int64 counts.

Examples
--------
>>> import numpy as np
>>> a = np.array([True, True, False, False, True])
>>> b = np.array([True, False, False, True, True])
>>> correctness_table(a, b).tolist()
[[2, 1], [1, 1]]
>>> agreement_table(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]), 3).tolist()
[[1, 0, 0], [0, 1, 1], [0, 0, 1]]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidTypeError

__all__ = [
    "correctness_table",
    "cross_table",
    "pairwise_tables",
    "pair_columns",
    "tables_from_sums",
    "cluster_sums",
    "agreement_table",
    "triplet_margins",
]


def correctness_table(*correct: ArrayLike, seen: ArrayLike | None = None) -> NDArray:
    """The joint correctness table of m observers on the same items, shape ``(2,) * m``.

    Parameters
    ----------
    *correct : array_like of bool, shape (n_items,)
        Whether each observer answered each item correctly; all of the same length.
    seen : array_like of bool, shape (n_items,), optional
        The items to count (e.g. those every observer saw); default all.

    Returns
    -------
    ndarray of int64, shape ``(2,) * m``
        ``table[i, j, …]`` counts the items with outcome ``i`` for the first observer,
        ``j`` for the second, …, where 0 = correct and 1 = wrong. For two observers this
        is ``[[n11, n10], [n01, n00]]``.

    Examples
    --------
    >>> correctness_table([True, True, False], [True, False, False]).tolist()
    [[1, 1], [0, 1]]
    >>> correctness_table([1, 1, 0], [1, 0, 0], [0, 1, 1]).shape
    (2, 2, 2)
    """
    if not correct:
        raise InvalidTypeError("correctness_table needs the correctness of at least one observer")
    m = len(correct)
    code = np.zeros(np.shape(correct[0]), dtype=np.intp)
    for r in correct:
        code = 2 * code + ~np.asarray(r, dtype=bool)
    if seen is not None:
        code = code[np.asarray(seen, dtype=bool)]
    return np.bincount(code.ravel(), minlength=2**m).astype(np.int64).reshape((2,) * m)


def cross_table(codes_a: ArrayLike, codes_b: ArrayLike, shape: tuple[int, int]) -> NDArray:
    """The table ``N[j, l]`` of items with code ``j`` in ``codes_a`` and ``l`` in ``codes_b``.

    Parameters
    ----------
    codes_a, codes_b : array_like of int, shape (n_items,)
        Codes in ``0 … shape[0] − 1`` and ``0 … shape[1] − 1``; an item on which either code is
        negative (missing, or not seen) is not counted.
    shape : (int, int)

    Returns
    -------
    ndarray of int64, shape ``shape``

    Examples
    --------
    >>> cross_table([0, 2, 2, -1], [1, 0, 0, 1], (3, 2)).tolist()
    [[0, 1], [0, 0], [2, 0]]
    """
    ia, ib = np.asarray(codes_a, dtype=np.intp), np.asarray(codes_b, dtype=np.intp)
    keep = (ia >= 0) & (ib >= 0)
    if not keep.all():
        ia, ib = ia[keep], ib[keep]
    rows, cols = int(shape[0]), int(shape[1])
    return np.bincount(ia * cols + ib, minlength=rows * cols).astype(np.int64).reshape(rows, cols)


def agreement_table(codes_a: ArrayLike, codes_b: ArrayLike, k: int) -> NDArray:
    """The K × K table ``N[j, l]`` of items observer A labels ``j`` and observer B labels ``l``.

    Parameters
    ----------
    codes_a, codes_b : array_like of int, shape (n_items,)
        Class codes in ``0 … k−1`` (:attr:`trialwise.io.labels.LabelCoding.codes`); an item
        on which either code is negative (missing, or not seen) is not counted.
    k : int
        The number of classes.

    Returns
    -------
    ndarray of int64, shape (k, k)

    Examples
    --------
    >>> agreement_table([0, 0, 1, -1], [0, 1, 1, 1], 2).tolist()
    [[1, 1], [0, 1]]
    """
    return cross_table(codes_a, codes_b, (k, k))


def triplet_margins(counts: ArrayLike) -> tuple[NDArray, NDArray]:
    """The (reference, X) and (reference, Y) 2×2 tables of triplet tables ``(..., 2, 2, 2)``.

    Examples
    --------
    >>> rx, ry = triplet_margins(np.arange(8).reshape(2, 2, 2))
    >>> rx.tolist(), ry.tolist()
    ([[1, 5], [9, 13]], [[2, 4], [10, 12]])
    """
    c = np.asarray(counts)
    return c.sum(axis=-1), c.sum(axis=-2)


def cluster_sums(columns: ArrayLike, clusters: ArrayLike) -> NDArray:
    """Item columns summed within clusters: row c holds the sums over the items of cluster c.

    What a cluster bootstrap resamples: its weights multiply clusters, so the weighted sums
    over items equal the weighted sums of these rows.

    Parameters
    ----------
    columns : array_like, shape (n_items, n_columns)
    clusters : array_like of int, shape (n_items,)
        Cluster code of every item, 0 … C − 1.

    Returns
    -------
    ndarray, shape (C, n_columns)
        int64 for integer columns, float64 otherwise.

    Examples
    --------
    >>> cluster_sums(np.array([[1, 0], [1, 1], [0, 1]]), np.array([0, 1, 0])).tolist()
    [[1, 1], [1, 1]]
    """
    x = np.asarray(columns)
    codes = np.asarray(clusters, dtype=np.intp)
    integer = np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.bool_)
    out = np.zeros((int(codes.max(initial=-1)) + 1, x.shape[1]), dtype=np.int64 if integer else np.float64)
    np.add.at(out, codes, x)
    return out


def tables_from_sums(n: ArrayLike, n11: ArrayLike, ca: ArrayLike, cb: ArrayLike) -> NDArray:
    """2×2 tables ``[[n11, n10], [n01, n00]]`` from their sums (any common shape).

    Parameters
    ----------
    n, n11, ca, cb : array_like
        Items, items both got right, items A got right, items B got right (on the items
        both saw).

    Returns
    -------
    ndarray, shape ``(..., 2, 2)``
        ``n10 = ca − n11``, ``n01 = cb − n11``, ``n00 = n − ca − cb + n11``.

    Examples
    --------
    >>> tables_from_sums(10, 5, 7, 6).tolist()
    [[5, 2], [1, 2]]
    """
    n, n11, ca, cb = np.broadcast_arrays(n, n11, ca, cb)
    out = np.empty(n11.shape + (2, 2), dtype=np.result_type(n, n11, ca, cb))
    out[..., 0, 0] = n11
    np.subtract(ca, n11, out=out[..., 0, 1])  # written in place: no temporaries (same arithmetic)
    np.subtract(cb, n11, out=out[..., 1, 0])
    n00 = out[..., 1, 1]
    np.subtract(n, ca, out=n00)
    n00 -= cb
    n00 += n11
    return out


def pair_columns(
    right: NDArray, seen: NDArray, pairs: NDArray, *, fixed_total: bool = True
) -> tuple[NDArray, Callable[[NDArray], tuple[NDArray, NDArray, NDArray, NDArray]]]:
    """Item columns whose weighted sums give every pair's 2×2 table, and the map back.

    Parameters
    ----------
    right, seen : ndarray, shape (n_items, n_observers)
        1 where the observer answered the item correctly / answered it at all.
    pairs : ndarray of int, shape (n_pairs, 2)
        The observer columns of each pair.
    fixed_total : bool
        Every replicate's weights sum to the number of items (the ordinary bootstrap),
        so pairs without missing data need no column for their n.

    Returns
    -------
    columns : ndarray, shape (n_items, n_columns)
    to_sums : callable
        Maps weighted sums ``w @ columns`` (shape (b, n_columns)) to the pairs' item
        count ``n``, both-correct count ``n11`` and the two correct counts ``ca``, ``cb``
        on the items both saw, each of shape (b, n_pairs) (:func:`tables_from_sums`
        turns them into tables).

    Examples
    --------
    >>> right = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.uint8)
    >>> cols, to_sums = pair_columns(right, np.ones_like(right), np.array([[0, 1], [0, 2]]))
    >>> tables_from_sums(*to_sums(cols.sum(axis=0)[None])).astype(int).tolist()
    [[[[1, 1], [0, 1]], [[0, 2], [1, 0]]]]
    """
    ia, ib = pairs[:, 0], pairs[:, 1]
    n_items, n_obs = right.shape
    n_pairs = len(pairs)
    if seen.all() and fixed_total:
        # No missing data: per-observer correct counts are shared by all pairs.
        cols = np.concatenate([right, right[:, ia] * right[:, ib]], axis=1)

        def to_sums(sums: NDArray) -> tuple[NDArray, NDArray, NDArray, NDArray]:
            n = np.full((sums.shape[0], n_pairs), float(n_items))
            return n, sums[:, n_obs:], sums[:, ia], sums[:, ib]

        return cols, to_sums
    cols = np.concatenate(
        [seen[:, ia] * seen[:, ib], right[:, ia] * right[:, ib], right[:, ia] * seen[:, ib], seen[:, ia] * right[:, ib]],
        axis=1,
    )

    def to_sums_seen(sums: NDArray) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        n, n11, ca, cb = (sums[:, k * n_pairs : (k + 1) * n_pairs] for k in range(4))
        return n, n11, ca, cb

    return cols, to_sums_seen


def pairwise_tables(right: ArrayLike, seen: ArrayLike | None, pairs: ArrayLike) -> NDArray:
    """The 2×2 correctness table of every pair of observers, on the items both saw.

    Parameters
    ----------
    right : array_like of bool or 0/1, shape (n_items, n_observers)
        1 where the observer answered the item correctly.
    seen : array_like of bool or 0/1, shape (n_items, n_observers), or None
        1 where the observer answered the item at all (None: every item).
    pairs : array_like of int, shape (n_pairs, 2)
        The observer columns of each pair (A, B).

    Returns
    -------
    ndarray of int64, shape (n_pairs, 2, 2)

    Examples
    --------
    >>> right = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1]])
    >>> seen = np.array([[1, 1, 1], [1, 1, 0], [1, 1, 1]])
    >>> pairwise_tables(right, seen, [[0, 1], [0, 2]]).tolist()
    [[[1, 1], [0, 1]], [[0, 1], [1, 0]]]
    """
    r = np.asarray(right).astype(np.uint8)
    s = np.ones_like(r) if seen is None else np.asarray(seen).astype(np.uint8)
    idx = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    cols, to_sums = pair_columns(r, s, idx, fixed_total=False)
    return tables_from_sums(*to_sums(cols.sum(axis=0, dtype=np.int64)[None]))[0]
