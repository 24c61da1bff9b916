"""Count kernels: Cohen's kappa on count tables and its variance.

Every function here is a pure, vectorised function of count tables with any leading
batch shape. Correctness tables are ``(..., 2, 2)``, laid out as::

                  B correct   B wrong
    A correct       n11         n10
    A wrong         n01         n00

:func:`kappa_from_counts` and :func:`kappa_variance` also take K × K tables of two
observers' labels ``(..., K, K)`` (A in rows): this module holds the one κ kernel of the
package, for error consistency (κ on correctness), Cohen's κ on labels
(:func:`trialwise.comparison.cohen_kappa`) and the benchmark metric
(:func:`trialwise.leaderboards.protocol.metric_from_sums`). The tables come from
:mod:`trialwise._stats.tables`; the bootstrap calls these kernels on a whole batch of replicate
tables.

Why this module is long: about 630 lines, every count kernel of κ (the statistic, its
variance and bias correction) in one place, most of them docstrings with the formulas. Its bounds
are in :mod:`trialwise._stats.bounds`, its derivatives in :mod:`trialwise._stats.kappa_derivatives`.
"""

from __future__ import annotations

import numbers
import threading
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.threads import map_threads

__all__ = ["TableStatistics", "table_statistics", "kappa_from_counts", "kappa_from_sums", "unbiased_kappa", "kappa_variance"]


#: Largest table total accepted (2**53): beyond it counts are not exact in float64.
MAX_TABLE_TOTAL = 2**53
#: Largest table total for which κ is computed in int64 arithmetic: the products of two
#: margins reach n²/4 and their sum n²/2, which stays below 2**63 up to n = 2**31.
#: Larger tables (e.g. simulations at n = 10**10) are computed in float64, whose relative
#: error (~1e-16) is far below the sampling error of κ̂ at any n.
_INT_KAPPA_MAX_TOTAL = 2**31
# Cells may be fractional (posterior draws, proportions); a cell below zero by no more than
# this share of its table's total is floating-point noise (e.g. n − a − b + n11 of weighted
# sums), not an error.
_NEGATIVE_TOLERANCE = 1e-9
_KAPPA_SLICE_BYTES = 2**17  # kappa_from_sums: slices of this many bytes per array (5 scratch arrays + the sums in L2), one thread each


def _check_tables(counts: ArrayLike, name: str = "counts", *, square: bool = False) -> NDArray:
    """2×2 tables ``(..., 2, 2)`` (``square``: K × K, K >= 2) of non-negative, finite counts.

    For the public kernels. Cells may be fractional (posterior draws, proportions: κ
    depends only on the proportions). A ``TypeError`` for anything that is not real
    numbers (text, None, complex), a ``ValueError`` for a wrong shape, NaN or infinity,
    negative cells, or a table of more than 2**53 items; the message names ``name``.
    """
    kind = "square tables of counts" if square else "2×2 tables of counts"
    what = f"{kind} (K × K; 2×2: [[n11, n10], [n01, n00]])" if square else f"{kind} [[n11, n10], [n01, n00]]"
    if counts is None or isinstance(counts, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be {what}; got {v.show(counts)}")
    try:
        arr = np.asarray(counts)
    except ValueError as exc:  # ragged nested lists
        raise InvalidValueError(f"`{name}` must be {what}; got {v.show(counts)}") from exc
    if arr.dtype.kind == "c":
        raise InvalidTypeError(f"`{name}` must hold real counts; got complex numbers {v.show(arr.tolist())}")
    if arr.dtype.kind == "O" and arr.size and all(
            isinstance(x, numbers.Real) and not isinstance(x, bool) for x in arr.ravel()):
        arr = arr.astype(float)            # Python integers beyond int64
    if arr.dtype.kind == "b":  # True/False are not counts
        raise InvalidTypeError(f"`{name}` must be {kind} (numbers), not True/False; got {v.show(counts)}")
    if arr.dtype.kind not in "iuf":
        raise InvalidTypeError(f"`{name}` must be {kind} (numbers); got {v.show(counts)}")
    if square:
        if arr.ndim < 2 or arr.shape[-1] != arr.shape[-2] or arr.shape[-1] < 2:
            raise InvalidValueError(f"`{name}` must have shape (..., K, K) with K >= 2: square tables of counts "
                             f"(2×2: [[n11, n10], [n01, n00]]); got shape {arr.shape}")
    elif arr.ndim < 2 or arr.shape[-2:] != (2, 2):
        raise InvalidValueError(f"`{name}` must have shape (..., 2, 2): tables [[n11, n10], [n01, n00]]; "
                         f"got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise InvalidValueError(f"`{name}` must be finite; got {v.show(arr.tolist())}")
        total = arr.sum(axis=(-2, -1), keepdims=True)
        if (arr < -_NEGATIVE_TOLERANCE * np.maximum(total, 1.0)).any():
            raise InvalidValueError(f"`{name}` must be non-negative; got {v.show(arr.tolist())}")
    elif arr.dtype.kind == "i" and (arr < 0).any():
        raise InvalidValueError(f"`{name}` must be non-negative; got {v.show(arr.tolist())}")
    if arr.size and float(arr.sum(axis=(-2, -1), dtype=float).max()) > MAX_TABLE_TOTAL:
        raise InvalidValueError(f"`{name}` holds more than 2**53 items in a table: counts that large are not exact in "
                         f"float64; got {v.show(arr.tolist())}")
    return arr


def _check_unbiased(unbiased: object) -> bool:
    if not isinstance(unbiased, (bool, np.bool_)):
        raise InvalidTypeError(f"`unbiased` must be True or False; got {v.show(unbiased)}")
    return bool(unbiased)


def table_cells(counts: ArrayLike) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    c = np.asarray(counts, dtype=np.float64)
    return c[..., 0, 0], c[..., 0, 1], c[..., 1, 0], c[..., 1, 1]


def kappa_from_cells(n11, n10, n01, n00) -> NDArray:
    """κ = 2(n11·n00 − n10·n01) / ((n11+n10)(n10+n00) + (n11+n01)(n01+n00)).

    This closed form of (c_obs − c_exp)/(1 − c_exp) is exact on integer counts: it
    returns exactly 0 when one observer is constant and the other is not, and NaN
    (0/0) exactly when c_exp = 1.
    """
    # in place, in this order of operations (the hot loop of every bootstrap)
    num = n11 * n00
    num -= n10 * n01
    if isinstance(num, np.ndarray) and num.dtype == np.float64:
        num *= 2.0
    else:  # integer cells: exact products, then float
        num = 2.0 * num
    den = n11 + n10
    den *= n10 + n00
    right = n11 + n01
    right *= n01 + n00
    den += right
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def kappa_from_sums(n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray, *, unbiased: bool = False,
                    extra: tuple | None = None, workers: int | None = None, out: NDArray | None = None,
                    pairs_first: bool = False) -> NDArray:
    """κ from a pair's weighted sums: ``2(n·n11 − ca·cb) / (n(ca + cb) − 2·ca·cb)``, NaN where 0/0.

    :func:`kappa_from_cells` written in the sums (``n10 = ca − n11`` ...), with
    no tables built, a few replicates at a time so that the temporaries stay in the CPU cache.
    The sums of the engine are exact (integers, or multiples of ``2**-k`` with at most 24
    significant bits), so numerator and denominator are exact in float64 and κ is the same
    bits as from the tables. ``extra = (n, n11, per_observer, ia, ib)`` is added first (the
    virtual items' part: ``n`` (b, 1), ``n11`` like the sums, ``per_observer`` (b, observers)
    indexed by the pairs' observers ``ia`` and ``ib`` for ``ca`` and ``cb``) — exact too.
    ``n11`` may also be a pair ``(table, codes)``, ``table`` (b, K) and ``codes`` (pairs,): then
    the pairs' ``n11`` part is ``(per_observer[:, ia] + per_observer[:, ib] + table[:, codes]) / 2``
    (the form of the engine's Hadamard virtual items, gathered in the slice, no product per pair).
    In that form, with float32 sums and float32 ``n``, ``per_observer`` and ``table`` (the
    engine's), the parts are added in float32 before the float64 products: exact only where, as
    on the engine's grid, every partial sum is a multiple of one step below 2**24 of them (else
    pass the parts in float64).
    ``unbiased``: :func:`unbiased_from_kappa` of each value. The slices run on ``workers``
    threads (default: :func:`trialwise._core.threads.thread_budget`; 1 inside a caller's own
    threads); each slice is written by one thread, so the bits do not depend on it. ``out``:
    a float64 array of the result's shape to write into (returned). ``pairs_first``: the sums
    are (pairs, b), each pair's replicates contiguous (the engine's product ``X.T @ W.T``), and
    so are the parts of ``extra``: ``n`` (1, b), ``n11`` (pairs, b), ``per_observer``
    (observers, b), ``table`` (K, b), gathered along their first axis (whole rows: 2–3× faster
    than gathering single values along the second).

    Examples
    --------
    >>> kappa_from_sums(np.array([[10.0]]), np.array([[6.0]]), np.array([[7.0]]), np.array([[8.0]])).round(4).tolist()
    [[0.2105]]
    >>> float(kappa_from_cells(6.0, 1.0, 2.0, 1.0))  # the same table's cells
    0.21052631578947367
    """
    shape = np.broadcast_shapes(np.shape(n), np.shape(n11), np.shape(ca), np.shape(cb))
    if out is None:
        out = np.empty(shape)
    elif out.shape != shape or out.dtype != np.float64:
        raise InvalidValueError(f"`out` must be a float64 array of shape {shape}; got {out.dtype} {out.shape}")
    if pairs_first and len(shape) != 2:
        raise InvalidValueError(f"`pairs_first=True` needs sums of shape (pairs, b); got shape {shape}")
    if len(shape) < 2:  # the slices cut the first axis and gather along the second
        lead = (1,) * (2 - len(shape))
        kappa_from_sums(*(np.reshape(x, lead + np.shape(x)) for x in (n, n11, ca, cb)), unbiased=unbiased,
                        extra=extra, workers=1, out=out.reshape(lead + shape))
        return out
    sums = [np.broadcast_to(x, shape) for x in (n, n11, ca, cb)]
    if extra is not None:
        extra = _kappa_extra(extra, shape, np.result_type(*sums), pairs_first)
    rows = shape[0]
    width = int(np.prod(shape[1:], dtype=np.int64))
    step = max(1, _KAPPA_SLICE_BYTES // (8 * max(1, width)))
    slices = [slice(r, min(r + step, rows)) for r in range(0, rows, step)]
    own = threading.local()  # each thread's scratch, made for its first slice and reused for the next

    def work(sl: slice) -> None:  # each slice is written by one thread: the same bits for any number of them
        if not hasattr(own, "scratch"):
            own.scratch = np.empty((5, min(step, rows)) + shape[1:])
            own.single = (None if extra is None or extra[7] is None
                          else np.empty((4, min(step, rows)) + shape[1:], np.float32))
        _kappa_from_sums_slice(sums, unbiased, out, sl, extra, own.scratch, own.single)

    map_threads(work, slices, workers)
    return out


def _kappa_extra(extra: tuple, shape: tuple, sums_dtype: np.dtype, pairs_first: bool = False) -> tuple:
    """``extra`` of :func:`kappa_from_sums` ready for the slices: float64 halves and tables, checked indices.

    In the Walsh–Hadamard form with float32 sums and float32 ``n``, ``per_observer`` and ``table``
    (the engine's), the tables stay float32 and ``n`` comes as a float32 column too (entry 7):
    the slices then add the parts in float32 (:func:`_float32_parts`).
    """
    e_n, e11, per, ia, ib = extra
    single = (sums_dtype == np.float32 and isinstance(e11, tuple)
              and all(np.result_type(x) == np.float32 for x in (e_n, per, e11[0])))
    wide = np.float32 if single else np.float64
    per = np.asarray(per, dtype=wide)
    ia, ib = np.asarray(ia, dtype=np.intp), np.asarray(ib, dtype=np.intp)
    table = codes = None
    if isinstance(e11, tuple):
        table, codes = np.asarray(e11[0], dtype=wide), np.asarray(e11[1], dtype=np.intp)
        e11 = None
    axis = 0 if pairs_first else -1  # the axis gathered along
    for name, idx, k in (("ia", ia, per.shape[axis]), ("ib", ib, per.shape[axis]),
                         ("codes", codes, None if table is None else table.shape[axis])):
        if idx is not None and k is not None and idx.size and (idx.min() < 0 or idx.max() >= k):
            raise InvalidValueError(f"`extra`: {name} must index columns 0 … {k - 1}; got {idx.min()} … {idx.max()}")
    dtype = np.result_type(e_n)  # the dtype n + e_n had when the extras were added in the sums' dtype
    column = (1, shape[1]) if pairs_first else shape[:1] + (1,) * (len(shape) - 1)  # n's part: one per replicate
    e_n = np.reshape(e_n, column) if pairs_first else np.asarray(e_n)  # pairs first: (1, b) or (b,)
    half_n = np.broadcast_to(np.asarray(e_n, dtype=np.float64) * 0.5, column)
    n32 = np.ascontiguousarray(np.broadcast_to(e_n, column)) if single else None
    return half_n, e11, per, ia, ib, table, codes, n32, pairs_first, dtype


def _kappa_from_sums_slice(sums: list, unbiased: bool, out: NDArray, sl: slice, extra: tuple | None,
                           scratch: NDArray, single: NDArray | None = None) -> None:
    """Rows ``sl`` of :func:`kappa_from_sums`, written into ``out``, in five float64 scratch arrays.

    Every sum enters float64 once, scaled by a power of 2 on the way in (``n/2``, ``2·n11``: exact);
    then numerator ``(n/2)·(2·n11) − ca·cb = n·n11 − ca·cb`` and denominator
    ``(ca + cb)·(n/2) − ca·cb`` are made in place: each rounding (none, for the exact sums of the
    engine) is the one of ``n·n11``, ``ca·cb`` and ``(ca + cb)·n`` halved, so the quotient has the
    same bits as from the tables. The denominator is ca(n − cb) + cb(n − ca) ≥ 0, and 0 only where
    n11 ≤ min(ca, cb) forces the numerator to 0 too: 0/0 gives the NaN of an undefined κ without a mask.
    """
    n, n11, ca, cb = (x[sl] for x in sums)
    r = n.shape[0]
    h, x, a, b, p = (s[:r] for s in scratch)
    if single is not None and extra is not None:  # the engine's float32 grid: parts added in float32 (exact), cast once
        parts = single[:, :r]
        _float32_parts(n, n11, ca, cb, extra, sl, parts)
        for wide, part in zip((h, x, a, b), parts):
            wide[...] = part
    elif extra is None:
        np.multiply(n, 0.5, out=h)  # n/2
        np.multiply(n11, 2.0, out=x)  # 2·n11
        a[...] = ca
        b[...] = cb
    else:  # the virtual items' part, added exactly in float64 (the sums' own dtype held them exactly too)
        half_n, e11, per, ia, ib, table, codes, _, pairs_first, _ = extra
        np.multiply(n, 0.5, out=h)  # n/2
        h += half_n if pairs_first else half_n[sl]
        _gather(per, ia, sl, pairs_first, a)
        _gather(per, ib, sl, pairs_first, b)
        if table is None:
            np.add(n11, e11[sl], out=x)
            x *= 2.0
        else:  # 2·n11 + per[ia] + per[ib] + table[codes]
            np.add(a, b, out=x)
            _gather(table, codes, sl, pairs_first, p)
            x += p
            np.multiply(n11, 2.0, out=p)
            x += p
        a += ca
        b += cb
    np.multiply(a, b, out=p)  # ca·cb
    a += b
    x *= h  # n·n11
    x -= p
    a *= h  # (ca + cb)·n/2
    a -= p
    o = out[sl]
    with np.errstate(invalid="ignore", divide="ignore"):  # here: the threads do not share the caller's state
        np.divide(x, a, out=o)
    if unbiased:  # n in the dtype it had (n + e_n was added in the sums' dtype): the same rounding of n − 1
        nn = n if extra is None else (h * 2.0).astype(np.result_type(n, extra[-1]))
        o[...] = unbiased_from_kappa(o, nn)


def _float32_parts(n: NDArray, n11: NDArray, ca: NDArray, cb: NDArray, extra: tuple, sl: slice,
                   into: NDArray) -> None:
    """``n/2``, ``2·n11``, ``ca``, ``cb`` with the virtual items' Walsh–Hadamard part, in float32, into ``into`` (4, ...).

    Only for the engine's sums and parts: multiples of one grid step whose replicate total stays
    below 2**22 steps (``resampling._on_exact_grid``), so that every partial sum here (at most
    four totals) is a multiple of the step below 2**24 of them — exact in float32, the same values
    as added in float64, at half the bytes per pass (10.4 → 8.3 ns per pair-replicate, one thread).
    """
    _, _, per, ia, ib, table, codes, n32, pairs_first, _ = extra
    h, x, a, b = into
    _gather(per, ia, sl, pairs_first, a)
    _gather(per, ib, sl, pairs_first, b)
    _gather(table, codes, sl, pairs_first, x)
    x += a  # 2·n11 + per[ia] + per[ib] + table[codes]
    x += b
    x += n11
    x += n11
    a += ca
    b += cb
    np.add(n, n32 if pairs_first else n32[sl], out=h)
    h *= np.float32(0.5)


def _gather(source: NDArray, index: NDArray, sl: slice, pairs_first: bool, out: NDArray) -> None:
    """The slice ``sl`` of ``source`` gathered by the pairs' ``index`` into ``out``: rows of
    ``source[index[sl]]`` (``pairs_first``), or ``source[sl][:, index]``; indices checked in _kappa_extra."""
    if pairs_first:
        np.take(source, index[sl], axis=0, out=out, mode="clip")
    else:
        np.take(source[sl], index, axis=1, out=out, mode="clip")


def _kappa_int(counts: NDArray) -> NDArray:
    """κ of integer tables (..., 2, 2), in exact int64 arithmetic up to the division.

    The fast path for large simulated batches: no float copy of the tables. Products of
    counts stay exact for tables of up to ``_INT_KAPPA_MAX_TOTAL`` = 2**31 items; the
    caller (:func:`kappa_kernel`) sends larger tables to the float64 path.
    """
    n11, n10, n01, n00 = counts[..., 0, 0], counts[..., 0, 1], counts[..., 1, 0], counts[..., 1, 1]
    num = n11 * n00
    num -= n10 * n01
    den = (n11 + n10) * (n10 + n00)
    den += (n11 + n01) * (n01 + n00)
    out = np.full(num.shape, np.nan)
    np.divide(2 * num, den, out=out, where=den > 0)
    return out


def _kappa_square(counts: NDArray) -> NDArray:
    """κ of K × K tables (..., K, K): ``(n·Σ n_ii − Σ r_i·c_i) / (n² − Σ r_i·c_i)``.

    ``(p_o − p_e)/(1 − p_e)`` with the row sums ``r_i`` (A) and column sums ``c_i`` (B)
    multiplied through by n². For K = 2 it equals :func:`kappa_from_cells` (the numerator is
    ``2(n11·n00 − n10·n01)``, the denominator ``r_0·c_1 + r_1·c_0``), which is the faster
    path taken for 2×2 tables. Integer tables of up to 2**31 items are computed exactly
    in int64 (``n² <= 2**62``) up to the division, others in float64. Exactly 0 where
    one observer gives one class throughout and the other does not; NaN where both give
    the same single class (``p_e = 1``) or ``n = 0``.
    """
    c = np.asarray(counts)
    exact = c.dtype.kind in "biu" and (c.size == 0 or int(c.sum(axis=(-2, -1)).max()) <= _INT_KAPPA_MAX_TOTAL)
    c = c.astype(np.int64 if exact else np.float64, copy=False)
    n = c.sum(axis=(-2, -1))
    agree = np.trace(c, axis1=-2, axis2=-1)
    chance = (c.sum(axis=-1) * c.sum(axis=-2)).sum(axis=-1)
    num = n * agree - chance
    den = n * n - chance
    out = np.full(np.shape(num), np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def canonical_orientation(counts: NDArray) -> NDArray:
    """Tables (..., 2, 2) transposed where n10 > n01, so that n10 <= n01.

    κ and every test of independence are symmetric in A and B; computing them on this
    orientation makes swapping the observers give bit-identical results, random draws
    included.
    """
    c = np.asarray(counts)
    swap = c[..., 0, 1] > c[..., 1, 0]
    return np.where(swap[..., None, None], np.swapaxes(c, -1, -2), c)


def unbiased_from_kappa(kappa, n) -> NDArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        den = n - 1.0 + kappa
        return np.where(den != 0, n * kappa / np.where(den != 0, den, 1.0), np.nan)


class TableStatistics(NamedTuple):
    """Summary statistics of 2×2 correctness tables (arrays of the batch shape)."""

    n: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    c_obs: NDArray
    c_exp: NDArray
    kappa: NDArray


def table_statistics(counts: ArrayLike) -> TableStatistics:
    """Accuracies, observed and expected agreement and κ of 2×2 tables.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2)
        ``[[n11, n10], [n01, n00]]`` with A in rows, B in columns, "correct" first.

    Returns
    -------
    TableStatistics
        ``n, accuracy_a, accuracy_b, c_obs, c_exp, kappa``; NaN where ``n == 0``
        (κ is also NaN where ``c_exp == 1``).

    Notes
    -----
    ``a_A = (n11+n10)/n``, ``a_B = (n11+n01)/n``, ``c_obs = (n11+n00)/n``,
    ``c_exp = a_A·a_B + (1−a_A)(1−a_B)``, ``κ = (c_obs − c_exp)/(1 − c_exp)``.

    Examples
    --------
    >>> s = table_statistics([[60, 20], [10, 10]])
    >>> float(s.accuracy_a), float(s.accuracy_b), round(float(s.kappa), 4)
    (0.8, 0.7, 0.2105)
    """
    n11, n10, n01, n00 = table_cells(_check_tables(counts))
    n = n11 + n10 + n01 + n00
    with np.errstate(invalid="ignore", divide="ignore"):
        safe = np.where(n > 0, n, np.nan)
        acc_a = (n11 + n10) / safe
        acc_b = (n11 + n01) / safe
        c_obs = (n11 + n00) / safe
    c_exp = acc_a * acc_b + (1.0 - acc_a) * (1.0 - acc_b)
    return TableStatistics(n, acc_a, acc_b, c_obs, c_exp, kappa_from_cells(n11, n10, n01, n00))


def kappa_from_counts(counts: ArrayLike, *, unbiased: bool = False) -> NDArray:
    """Cohen's κ of 2×2 (error consistency) or K × K tables, vectorised over a batch.

    Parameters
    ----------
    counts : array_like, shape (..., K, K)
        ``[[n11, n10], [n01, n00]]`` for correctness (K = 2), or the K × K agreement
        table of two observers' labels (A in rows, B in columns).
    unbiased : bool, default False
        Return the bias-corrected κ of Martín Andrés & Álvarez Hernández (2024),
        ``κ_u = n·κ / (n − 1 + κ)`` (see :func:`unbiased_kappa`).

    Returns
    -------
    ndarray, shape (...)
        κ; NaN where it is undefined (``c_exp = 1`` or ``n = 0``). Exactly 0 where one
        observer is always correct (or always wrong; for K × K: gives one class
        throughout) and the other is not.

    Raises
    ------
    TypeError, ValueError
        ``counts`` not numbers, not of shape (..., K, K) with K >= 2, NaN or infinite,
        negative, or more than 2**53 items in a table (:func:`_check_tables`).

    Notes
    -----
    ``κ = (p_o − p_e)/(1 − p_e)`` with ``p_o = Σ_i p_ii`` and ``p_e = Σ_i p_i.·p_.i``
    (Cohen 1960). For 2×2 tables this is
    ``2(n11·n00 − n10·n01) / ((n11+n10)(n10+n00) + (n11+n01)(n01+n00))``.
    Integer tables of up to 2**31 items are computed exactly in int64 arithmetic up to
    the final division; larger tables (e.g. simulated experiments of 10**10 trials) in
    float64, whose relative error of about 1e-16 is negligible against the sampling
    error of κ̂.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement* 20(1), 37–46.

    Martín Andrés, A. & Álvarez Hernández, M. (2024). Estimators of various kappa
    coefficients based on the unbiased estimator of the expected index of agreements.
    *Advances in Data Analysis and Classification*. doi:10.1007/s11634-024-00581-x.

    Examples
    --------
    >>> float(kappa_from_counts([[40, 10], [10, 40]]))
    0.6
    >>> kappa_from_counts([[[40, 10], [10, 40]], [[50, 0], [50, 0]]]).tolist()
    [0.6, 0.0]
    >>> round(float(kappa_from_counts([[20, 5, 0], [3, 30, 2], [1, 4, 35]])), 4)
    0.7712
    """
    return kappa_kernel(_check_tables(counts, square=True), unbiased=_check_unbiased(unbiased))


def kappa_kernel(counts: ArrayLike, unbiased: bool = False) -> NDArray:
    """:func:`kappa_from_counts` without the input checks, for the library's own (valid) tables.

    The one κ kernel. 2×2 integer tables of up to 2**31 items take the exact int64 path;
    larger ones (whose margin products would overflow int64) and fractional ones the
    float64 path; K × K tables with K > 2 :func:`_kappa_square`.
    """
    c = np.asarray(counts)
    if c.ndim >= 2 and c.shape[-1] == c.shape[-2] != 2:
        kappa = _kappa_square(c)
        n = c.sum(axis=(-2, -1), dtype=float) if unbiased else None
    elif (c.dtype.kind in "iu" and c.ndim >= 2 and c.shape[-2:] == (2, 2)
            and (c.size == 0 or int(c.sum(axis=(-2, -1)).max()) <= _INT_KAPPA_MAX_TOTAL)):
        kappa = _kappa_int(c.astype(np.int64, copy=False))
        n = c.sum(axis=(-2, -1)) if unbiased else None
    else:
        n11, n10, n01, n00 = table_cells(c)
        kappa = kappa_from_cells(n11, n10, n01, n00)
        n = n11 + n10 + n01 + n00 if unbiased else None
    if unbiased:
        kappa = unbiased_from_kappa(kappa, n)
    return kappa[()]


def unbiased_kappa(kappa: ArrayLike, n: ArrayLike) -> NDArray:
    """Bias-corrected κ from the plug-in κ and the number of items.

    Parameters
    ----------
    kappa : array_like
        Plug-in κ in [−1, 1] (NaN, an undefined κ, stays NaN).
    n : array_like of int
        Number of items, whole numbers >= 1; broadcast against ``kappa``.

    Returns
    -------
    ndarray
        ``κ_u = n·κ / (n − 1 + κ)``.

    Notes
    -----
    Martín Andrés & Álvarez Hernández (2024) replace the plug-in expected agreement by
    its unbiased estimate ``(n·c_exp − c_obs)/(n − 1)``. Substituting into
    ``(c_obs − c_exp)/(1 − c_exp)`` gives ``κ_u = n·κ / (n − 1 + κ)``, a strictly
    increasing map of κ for n > 1 that fixes 0 and 1, so intervals and tests carry over.

    References
    ----------
    Martín Andrés, A. & Álvarez Hernández, M. (2024). Estimators of various kappa
    coefficients based on the unbiased estimator of the expected index of agreements.
    *Advances in Data Analysis and Classification*. doi:10.1007/s11634-024-00581-x.

    Examples
    --------
    >>> round(float(unbiased_kappa(0.5, 100)), 6)
    0.502513

    ``kappa`` must lie in [−1, 1] (NaN, an undefined κ, stays NaN) and ``n`` be whole
    numbers >= 1; they broadcast against each other.
    """
    try:
        k = np.asarray(kappa, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(f"`kappa` must be numeric; got {v.show(kappa)}") from exc
    if (np.abs(k[~np.isnan(k)]) > 1).any():
        raise InvalidValueError(f"`kappa` must be in [-1, 1]; got {v.show(k.tolist())}")
    n_arr = np.asarray(n)
    if n_arr.dtype.kind not in "biuf" or n_arr.dtype.kind == "b":
        raise InvalidTypeError(f"`n` must be whole numbers of items >= 1; got {v.show(n)}")
    n_arr = n_arr.astype(float)
    if not np.isfinite(n_arr).all() or (n_arr < 1).any() or (n_arr != np.round(n_arr)).any():
        raise InvalidValueError(f"`n` must be whole numbers of items >= 1; got {v.show(n_arr.tolist())}")
    k, n_arr = v.check_broadcast(k, n_arr, names=("kappa", "n"))
    return unbiased_from_kappa(k, n_arr)


def kappa_variance(counts: ArrayLike) -> tuple[NDArray, NDArray]:
    """Large-sample variance of κ (Fleiss, Cohen & Everitt 1969), and under κ = 0.

    Parameters
    ----------
    counts : array_like, shape (..., K, K)
        2×2 correctness tables ``[[n11, n10], [n01, n00]]`` or K × K agreement tables of
        labels (A in rows).

    Returns
    -------
    var, var0 : ndarray
        The variance of κ̂ at the observed table, and the variance under the null of
        independence (used by the asymptotic test). Both equal
        ``statsmodels.stats.inter_rater.cohens_kappa``'s ``var_kappa`` / ``var_kappa0``.

    Notes
    -----
    With cell proportions ``p_ij``, margins ``p_i.`` (A) and ``p_.j`` (B), and
    ``p_e = Σ_i p_i.·p_.i`` (``c_exp`` for 2×2 tables)::

        var  = [Σ_i p_ii (1 − (p_i. + p_.i)(1 − κ))²
                + (1 − κ)² Σ_{i≠j} p_ij (p_.i + p_j.)² − (κ − p_e(1 − κ))²] / (n (1 − p_e)²)
        var0 = [p_e + p_e² − Σ_i p_i. p_.i (p_i. + p_.i)] / (n (1 − p_e)²)

    The variance can be slightly negative by rounding near the boundary; clip it at 0
    before taking a square root.

    References
    ----------
    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of
    kappa and weighted kappa. *Psychological Bulletin* 72(5), 323–327.

    Examples
    --------
    >>> var, var0 = kappa_variance([[40, 10], [10, 40]])
    >>> round(float(var), 6), round(float(var0), 6)
    (0.0064, 0.01)
    """
    c = np.asarray(_check_tables(counts, square=True), dtype=np.float64)
    k_classes = c.shape[-1]
    # sums cell by cell, in row-major order (for 2×2: n11 + n10 + n01 + n00)
    n = c[..., 0, 0]
    for i in range(k_classes):
        for j in range(k_classes):
            if i or j:
                n = n + c[..., i, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n[..., None, None]
        rows, cols = p.sum(axis=-1), p.sum(axis=-2)  # A's / B's margins
        pe = (rows * cols).sum(axis=-1)
        k = kappa_kernel(c)
        q = (1 - k)[..., None]
        diag = np.diagonal(p, axis1=-2, axis2=-1)
        term_a = (diag * (1 - (rows + cols) * q) ** 2).sum(axis=-1)
        off = ~np.eye(k_classes, dtype=bool)
        cross = np.where(off, p * (cols[..., :, None] + rows[..., None, :]) ** 2, 0.0)
        term_b = (1 - k) ** 2 * cross.sum(axis=(-2, -1))
        term_c = (k - pe * (1 - k)) ** 2
        scale = (1 - pe) ** 2 * n
        var = (term_a + term_b - term_c) / scale
        var0 = (pe + pe**2 - (rows * cols * (rows + cols)).sum(axis=-1)) / scale
    return var, var0
