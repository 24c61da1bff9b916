"""One block of pairs of the all-pairs bootstrap: the kernel that pairwise_error_consistency runs locally and as a Dask task.

A block is a pure function of its observers' item columns and the replicate weights
(:class:`trialwise._stats.resampling.ReplicateWeights`): its pairs' replicate tables from one chunked
matrix product, κ of every replicate, and the summaries the caller keeps (interval, undefined
replicates, the tail counts of the cluster test). The Jeffreys pseudo-counts are the weights of
shared virtual items (:func:`prior_items`, read as Walsh–Hadamard sums), so a seed gives the same
numbers whatever the block size (:func:`pair_block_size`).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._stats.blocks import block_size
from trialwise._stats.intervals import (
    jackknife_t_pvalue,
    sorted_valid,
)
from trialwise._stats.kappa import (
    kappa_from_sums,
    kappa_kernel,
    table_statistics,
    unbiased_from_kappa,
)
from trialwise._stats.resampling import (
    ReplicateWeights,
    bootstrap_sums,
    leave_one_out_sums,
)
from trialwise._stats.tables import (
    cluster_sums,
    pair_columns,
    tables_from_sums,
)
from trialwise.ec.inference import (
    Options,
    kappa_intervals,
)

#: Pairs per block of the pairwise bootstrap are a multiple of this (:func:`pair_block_size`).
#: (It named the streams of the Jeffreys pseudo-counts, one per 128 pairs, until they became the
#: weights of shared virtual items, :func:`prior_items`, which no block size can change.)
PAIR_STREAM_BLOCK = 128


#: Working memory of one block of pairs in :func:`pairwise_error_consistency` (replicates,
#: their sorted copy in the interval, item columns): see :func:`pair_block_size`.
PAIR_BLOCK_BYTES = 256 * 2**20


def pair_indices(names: tuple, pairs) -> list[tuple[int, int]]:
    if pairs is None:
        return list(combinations(range(len(names)), 2))
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise InvalidTypeError(f"`pairs` must be a list of (observer_a, observer_b); got {pairs!r}")
    pos = {name: i for i, name in enumerate(names)}
    out = []
    for item in pairs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InvalidValueError(f"`pairs` must be a list of (observer_a, observer_b); got element {item!r}")
        a, b = item
        for name in (a, b):
            if name not in pos:
                raise InvalidValueError(f"`pairs` names observer {name!r}, which is not a column; observers: {list(names)[:10]}")
        if a == b:
            raise InvalidValueError(f"`pairs` pairs observer {a!r} with itself")
        out.append((pos[a], pos[b]))
    if not out:
        raise InvalidValueError("`pairs` is empty")
    return out


def cluster_codes(clusters: ArrayLike, n_items: int) -> NDArray:
    """Cluster codes 0 … C − 1 of ``n_items`` items from their labels, or a clear error."""
    import pandas as pd

    labels = pd.Series(np.asarray(clusters, dtype=object).ravel())
    if len(labels) != n_items:
        raise InvalidValueError(f"`clusters` must have one label per item ({n_items}); got {len(labels)}")
    if labels.isna().any():
        raise InvalidValueError(f"`clusters` has a missing label at item {int(np.flatnonzero(labels.isna())[0])}")
    codes = pd.factorize(labels, sort=True)[0].astype(np.intp)
    if len(codes) and codes.max() < 1:  # one cluster: every replicate the same, an interval of no width
        raise InvalidValueError(f"`clusters` needs at least 2 clusters; got 1 ({labels.iloc[0]!r} for every item); "
                                "cluster by a finer column, or leave `clusters` out")
    return codes


def strata_of_clusters(strata: ArrayLike, codes: NDArray) -> NDArray:
    """The stratum of every cluster; an error when a cluster spans strata."""
    import pandas as pd

    s = pd.Series(np.asarray(strata, dtype=object).ravel())
    if len(s) != len(codes):
        raise InvalidValueError(f"`strata` must have one label per item ({len(codes)}); got {len(s)}")
    per = s.groupby(codes).nunique()
    if (per > 1).any():
        raise InvalidValueError(f"`clusters`: cluster {int(per.index[per > 1][0])} spans several strata; a "
                                "cluster must lie within one stratum")
    return s.groupby(codes).first().to_numpy()


def _pair_columns(right: NDArray, seen: NDArray, idx: NDArray, fixed_total: bool = True) -> tuple[NDArray, Any]:
    """Item columns whose weighted sums give every pair's table, and the map sums → tables."""
    cols, to_sums = pair_columns(right, seen, idx, fixed_total=fixed_total)
    return cols, lambda sums: tables_from_sums(*to_sums(sums))


def pair_block_size(n_pairs: int, n_items: int, n_resamples: int, budget: int | None = None) -> int:
    """Pairs per block of the pairwise bootstrap: a multiple of :data:`PAIR_STREAM_BLOCK`.

    A pair of a block holds its B replicates and their sorted copy (``16·B`` bytes, plus
    ``8·B`` of slack for the interval's temporaries) and its item columns (four per pair, as
    uint8 and as float64: ``40·n_items`` bytes), so a block of ``m`` pairs takes about
    ``m·(24·B + 40·n_items)`` bytes; ``m`` is the largest multiple of
    :data:`PAIR_STREAM_BLOCK` within ``budget`` (default :data:`PAIR_BLOCK_BYTES`; at least one
    stream block, at most all pairs).
    """
    return block_size(n_pairs, 24 * n_resamples + 40 * n_items, PAIR_BLOCK_BYTES if budget is None else budget,
                      multiple=PAIR_STREAM_BLOCK, minimum=PAIR_STREAM_BLOCK)


def _sylvester_columns(virtual: NDArray) -> NDArray | None:
    """The column c of the Sylvester–Hadamard matrix that each column of ``virtual`` (N × k of 0/1) is, or None.

    :func:`prior_items` gives observer j the column c = j + 1; a block of pairs holds the virtual
    items of its own observers only, so their columns are read back from the rows 2**i (where
    ``H[2**i, c] = −1`` iff bit i of c is set) and checked against every row.
    """
    n, k = virtual.shape
    if n < 4 or n & (n - 1):
        return None
    cols = np.zeros(k, dtype=np.int64)
    bit = 1
    while bit < n:
        cols |= (virtual[bit] == 0).astype(np.int64) * bit
        bit <<= 1
    return cols if np.array_equal(_sylvester_signs(np.arange(n), cols), virtual != 0) else None


def _sylvester_signs(rows: NDArray, cols: NDArray) -> NDArray:
    """Where the Sylvester–Hadamard matrix is +1 at ``rows`` × ``cols``: ``H[r, c] = (−1)^popcount(r & c)``."""
    bits, parity = rows[:, None] & cols, np.zeros((len(rows), len(cols)), dtype=np.int64)
    while bits.any():  # parity of the set bits (numpy < 2 has no bitwise_count)
        parity ^= bits & 1
        bits >>= 1
    return parity == 0


def _walsh_hadamard(w: NDArray, transposed: bool = False) -> NDArray:
    """``w @ H`` for the Sylvester–Hadamard matrix H of order N = w.shape[1] (a power of 2), in float64.

    The fast transform: log2(N) butterflies (u, v) → (u + v, u − v), between two buffers, on
    the transpose (N × b: each butterfly is a run of whole rows, 0.4 ms for 1,429 × 64 or
    334 × 256 on one core; one BLAS product with H took 10–30× that on 2 busy cores). On the
    exact grid of the engine's weights every value met is a sum of at most N of them with signs,
    so it is exact. ``transposed``: return ``(w @ H).T`` (N × b), as computed.
    """
    f = np.array(np.transpose(w), dtype=np.float64, order="C")
    n, b = f.shape
    o = np.empty_like(f)
    h = 1
    while h < n:
        g, q = f.reshape(n // (2 * h), 2, h * b), o.reshape(n // (2 * h), 2, h * b)
        np.add(g[:, 0], g[:, 1], out=q[:, 0])
        np.subtract(g[:, 0], g[:, 1], out=q[:, 1])
        f, o = o, f
        h *= 2
    return f if transposed else np.ascontiguousarray(f.T)


def prior_items(n_observers: int) -> NDArray:
    """The virtual items that carry the Jeffreys pseudo-counts of every pair: (N, n_observers) of 0/1.

    Columns 1 … n_observers of the Sylvester–Hadamard matrix of order N (the smallest power
    of 2 above ``n_observers``), read as correct (+1) / wrong (−1): every two columns show each
    of the four patterns (both right, A only, B only, both wrong) on exactly N/4 rows — an
    orthogonal array of strength 2 (Hedayat, Sloane & Stufken 1999, ch. 7). Seen by every
    observer and given independent ``Gamma(½ / (N/4))`` weights in every replicate, the N/4
    virtual items in each cell of a pair's table add an exact ``Gamma(½)`` pseudo-count to it,
    independent across its four cells: one (B × N) draw gives every pair its Jeffreys
    pseudo-counts, which ride along in the matrix product.
    """
    n = 4
    while n <= n_observers:
        n *= 2
    # Sylvester: H[r, c] = (−1)^popcount(r & c); built a slice of rows at a time, as uint8
    cols = np.arange(1, n_observers + 1)
    out = np.empty((n, n_observers), dtype=np.uint8)
    for r in range(0, n, 1024):
        out[r:r + 1024] = _sylvester_signs(np.arange(r, min(n, r + 1024)), cols)
    return out


def bootstrap_pair_block(right: NDArray, seen: NDArray, idx: NDArray, start: int, codes: NDArray | None,
                         opts: Options, weights: ReplicateWeights, seed: int, keep: bool,
                         out: NDArray | None = None) -> dict[str, Any]:
    """Tables, intervals and replicate summaries of one block of pairs: the body of the pairwise bootstrap.

    ``right``/``seen`` hold the items × observers of the block only, ``idx`` its pairs as
    column indices into them, ``start`` the position of its first pair among all pairs. With
    Jeffreys weights (``weights.prior``) their last rows are the virtual items of
    :func:`prior_items` (``seed`` is then the seed of their weights, already in ``weights``).
    Everything returned is O(pairs of the block) — plus the block's B × pairs replicates
    when ``keep``. Run in this process by :func:`pairwise_error_consistency`, or as a task on
    a Dask worker (:mod:`trialwise._stats.distributed`), which gets ``weights`` pickled as their
    stream, not as arrays. ``out`` (B × pairs of the block, float64): write the replicates there
    (a view of the caller's kept array; then none are returned).
    """
    fixed_total = opts.ci_method != "jeffreys" and codes is None
    n = len(idx)
    n_virtual = weights.n_rows - weights.n_items
    n_real = right.shape[0] - n_virtual
    cols, to_sums = pair_columns(right[:n_real], seen[:n_real], idx, fixed_total=fixed_total)
    # the tables are the columns' plain sums (what pairwise_tables would build the columns again for; three
    # Gram matrices of the observer columns were 4× less CPU, but small 2-thread BLAS products wait for a busy
    # core: 200+ ms of wall time each at load 5, against 25 ms for this sum)
    counts = tables_from_sums(*to_sums(cols.sum(axis=0, dtype=np.int64)[None]))[0].astype(np.int64)
    if codes is not None:  # resample clusters: their summed columns
        cols = cluster_sums(cols, codes)
    # Jeffreys: Bayesian bootstrap (Exp(1) weights, shared by all pairs) plus, through the
    # virtual items, Gamma(½) pseudo-counts per cell: each pair's replicate table is a draw from
    # its Jeffreys posterior Dirichlet(counts + ½), and the pairs stay jointly resampled. The
    # virtual items are seen by all, so no product per pair is needed for them: n gets their total
    # weight, ca and cb the weight of the items each observer gets right, and n11 (Sylvester
    # columns: the rows both get right are where H_a = H_b = +1, and H_a·H_b = H_(a xor b)) the
    # quarter (F_0 + F_a + F_b + F_(a xor b)) / 4 of their Walsh–Hadamard transform F — gathered in
    # κ's slices, all exact (sums and differences of the grid's multiples, the same values as the
    # products of the 0/1 columns, so the same bits).
    virtual = np.asarray(right[n_real:])
    dtype = weights.dtype or np.float64
    sylvester = _sylvester_columns(virtual) if n_virtual else None
    if sylvester is None:  # not prior_items' columns: a product per pair for n11
        both = (virtual[:, idx[:, 0]] & virtual[:, idx[:, 1]]).T.astype(dtype)
        each = virtual.T.astype(dtype)
    else:
        pair_codes = sylvester[idx[:, 0]] ^ sylvester[idx[:, 1]]
    # the replicates pair by pair (n × B, each pair's contiguous: κ's slices gather whole rows, and the
    # intervals sort contiguous runs), seen as B × n
    d_rows = np.empty((n, opts.n_resamples)) if out is None else out.T
    constant_n = fixed_total and bool(np.all(seen[:n_real]))
    d = d_rows.T
    done = [0]

    def statistic(sums: NDArray, w: NDArray) -> NDArray:  # sums: (columns, b), the product X.T @ W.T
        extra = None
        b = sums.shape[1]
        if n_virtual:  # exact too: multiples of the grid step, below 2**24 (2**53) of them
            wv = w[:, weights.n_items:]
            if sylvester is None:
                extra = (wv.sum(axis=1)[None], both @ wv.T, each @ wv.T, idx[:, 0], idx[:, 1])
            else:
                f = _walsh_hadamard(wv, transposed=True)  # f[c] = Σ_v wv[:, v]·H[v, c]; row 0 the total weight
                # in the weights' dtype (exact: the weights of subsets of the virtual items, and minus them):
                # float32 parts are added in float32 in κ's slices (kappa._float32_parts)
                right_weight = (0.5 * (f[:1] + f[sylvester])).astype(dtype)  # of the rows each observer gets right
                table = (0.5 * (f - f[:1])).astype(dtype)
                extra = (f[:1].astype(dtype), (table, pair_codes), right_weight, idx[:, 0], idx[:, 1])
        r0 = done[0]
        done[0] += b
        n_sums, *rest = to_sums(sums.T)
        parts = [np.ascontiguousarray(x.T) for x in rest]  # views, (pairs, b)
        # every replicate's weights sum to the items, all seen by all: n is that (a view, not a transposed copy)
        parts.insert(0, np.broadcast_to(np.float64(n_real), (n, b)) if constant_n else np.ascontiguousarray(n_sums.T))
        kappa_from_sums(*parts, unbiased=opts.unbiased, extra=extra, out=d_rows[:, r0:done[0]], pairs_first=True)
        return np.empty((b, 0))  # written into d: no list of chunks to concatenate

    bootstrap_sums(cols, opts.n_resamples, statistic=statistic, weights=weights, with_weights=True,
                   columns_first=True)
    st = table_statistics(counts)
    estimate = unbiased_from_kappa(st.kappa, st.n) if opts.unbiased else st.kappa
    jk_p = np.full(n, np.nan)
    cluster_jk = None
    if codes is not None and opts.ci_method == "jackknife-t":  # leave one cluster out, not one item
        with np.errstate(invalid="ignore", divide="ignore"):
            cluster_jk = leave_one_out_sums(cols, lambda s: kappa_kernel(tables_from_sums(*to_sums(s)),
                                                                        unbiased=opts.unbiased))
        p_up = jackknife_t_pvalue(estimate, cluster_jk)
        jk_p = np.minimum(1.0, 2.0 * np.minimum(p_up, 1.0 - p_up))  # two-sided, as the tests of the table
    # percentile and Jeffreys intervals: the replicates sorted once, and the tails counted in them
    sorted_d = sorted_valid(d) if opts.ci_method in ("percentile", "jeffreys") else None
    lo, hi, n_undefined = kappa_intervals(counts, estimate, d, opts, sorted_dist=sorted_d,
                                          jackknife=None if cluster_jk is None else (cluster_jk, None))
    if sorted_d is None:
        with np.errstate(invalid="ignore"):  # NaN (undefined) compares False: counted in neither tail
            below, above = np.sum(d <= 0, axis=0), np.sum(d >= 0, axis=0)
        n_ok = d.shape[0] - np.sum(np.isnan(d), axis=0)
    else:
        s, n_ok = sorted_d
        below, above = _count_sorted(s, n_ok, strict=False), n_ok - _count_sorted(s, n_ok, strict=True)
    return dict(counts=counts, lo=lo, hi=hi, n_undefined=n_undefined, below=below, above=above,
                n_ok=n_ok, jackknife_pvalue=jk_p, dist=d if keep and out is None else None)


def _count_sorted(s: NDArray, k: NDArray, strict: bool) -> NDArray:
    """How many of the first ``k`` values of each column of ``s`` (sorted) are ≤ 0 (< 0 if ``strict``): a binary search."""
    lo, hi = np.zeros(s.shape[1], dtype=np.int64), np.asarray(k, dtype=np.int64).copy()
    cols = np.arange(s.shape[1])
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        v = s[mid, cols[active]]
        right = v < 0 if strict else v <= 0
        lo[active] = np.where(right, mid + 1, lo[active])
        hi[active] = np.where(right, hi[active], mid)
        active = active[lo[active] < hi[active]]
    return lo
