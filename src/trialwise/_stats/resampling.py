"""The resampling engine: multinomial weights, chunked matrix products, Monte-Carlo draws.

A bootstrap replicate of n items is a weight vector ``w ~ Multinomial(n, 1/n)`` (how often
each item was drawn). Every count of every observer pair is then a dot product ``w @ x``
with an item-indicator column ``x``, so many pairs × many replicates is one matrix product
``W (B × n) @ X (n × columns)``, computed in chunks of replicates so that memory stays
bounded for any B × n. A single 2×2 table is resampled as one multinomial draw over its
four cells, which has the same distribution and costs O(1) per replicate.

Everything random in trialwise draws through the resampling engine: this module (the
weights, chunking, the chunked products, the multinomial and posterior tables, the
accounting of undefined replicates), :mod:`trialwise._stats.streams` (``rng=`` handling, the
seed a result records, the split of a stream into independent child streams) and
:mod:`trialwise._stats.monte_carlo` (the one null loop of every Monte-Carlo and permutation
test, its tie tolerance and the p-value convention ``(1 + hits) / (1 + M)``) and
:mod:`trialwise._stats.splits` (the random half splits of the split-half ceilings). The
leave-one-out replicates of the jackknife are here too: of count tables
(:func:`jackknife_tables`) and of units whose columns are summed (:func:`leave_one_out_sums`);
their standard error, bias and BCa acceleration are in :mod:`trialwise._stats.intervals`.

Why this module is long: about 760 lines, the bootstrap weights in their three forms
(multinomial, Bayesian, stratified by cluster), the chunked products and the replicate
tables, every one of them with its memory bound.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.threads import map_threads
from trialwise._core.validation import check_positive_int, check_rng, missing_mask
from trialwise._stats.streams import child_rngs, copy_rng, keyed_rng
from trialwise._stats.tables import (
    pair_columns,  # re-exported: items → tables live in trialwise._stats.tables
)

__all__ = ["bootstrap_index_rows", "bootstrap_weights", "bootstrap_sums", "multinomial_tables", "multinomial_cells", "bootstrap_tables", "posterior_tables", "jackknife_tables", "leave_one_out_sums", "pair_columns", "ReplicateWeights"]


#: Working memory a chunk of replicates may take, in bytes (weights + products).
BATCH_BYTES = 64 * 2**20
#: Bootstrap weights up to this size (B × items × 8 bytes) are kept by :class:`ReplicateWeights`
#: and reused for every block of columns; larger ones are drawn again from the saved stream.
WEIGHTS_KEEP_BYTES = 128 * 2**20
#: Draws per block of a large multinomial simulation (each block has its own child stream).
SIMULATION_BLOCK = 2**18
#: Pseudo-count per cell of the Jeffreys prior of a multinomial, Dirichlet(½, …, ½).
JEFFREYS_PRIOR = 0.5
_EXACT_FLOAT32 = 2**24  # integers below this are exact in float32
_COUNT_DRAWS = 2**16  # item draws counted at a time by bootstrap_weights (512 KB of int64: in the L2 cache)


def _strata_members(n_items: int, strata: ArrayLike | None) -> list[NDArray]:
    if strata is None:
        return [np.arange(n_items)]

    # a list stays objects: np.asarray(["a", nan]) would turn the NaN into the label 'nan'
    labels = strata if isinstance(strata, np.ndarray) else np.asarray(strata, dtype=object)
    if labels.shape != (n_items,):
        raise InvalidValueError(f"`strata` must have one label per item ({n_items}); got shape {labels.shape}")
    missing = missing_mask(labels)
    if missing.any():
        raise InvalidValueError(f"`strata` has a missing value (NaN/None) at position {int(np.flatnonzero(missing)[0])}: "
                         f"give every item a stratum (e.g. its condition)")
    try:
        _, codes = np.unique(labels, return_inverse=True)
    except TypeError:  # labels of several kinds (e.g. numbers and text), which do not sort together
        import pandas as pd

        try:
            codes = pd.factorize(labels)[0]
        except TypeError as exc:
            raise InvalidTypeError(f"`strata` must hold one label (a number or text) per item; got {labels[:3]!r}...") from exc
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return np.split(order, bounds)


def _batch_rows(n_items: int, n_columns: int, n_resamples: int, batch: int | None) -> int:
    if batch is not None:
        return check_positive_int(batch, "batch")
    per_row = 12 * n_items + 8 * max(n_columns, 1)
    rows = int(max(1, min(n_resamples, BATCH_BYTES // per_row)))
    chunks = -(-n_resamples // rows)
    return -(-n_resamples // chunks)  # chunks of equal size (not a last one of a few rows: a slow product)


def bootstrap_weights(
    n_items: int,
    n_resamples: int,
    *,
    rng: Any = None,
    strata: ArrayLike | None = None,
    batch: int | None = None,
    kind: str = "multinomial",
    dtype: Any = None,
) -> Iterator[NDArray]:
    """Yield bootstrap weight matrices, ``batch`` replicates at a time.

    Parameters
    ----------
    n_items : int
        Number of items (rows of the data).
    n_resamples : int
        Total number of replicates B.
    rng : None, int or numpy.random.Generator
    strata : array_like, optional
        One label per item; items are then resampled within each stratum (every
        replicate keeps each stratum's size).
    batch : int, optional
        Replicates per chunk (default: as many as fit in :data:`BATCH_BYTES`).
    kind : {"multinomial", "bayesian"}
        ``multinomial``: the ordinary bootstrap. ``bayesian``: Rubin's (1981) Bayesian
        bootstrap, independent ``Exp(1)`` weights per item.
    dtype : data-type, optional
        The multinomial counts' dtype (default int64), e.g. ``np.float32`` for a product in
        float32: the counts are cast block by block while they are in the CPU cache, not
        as a whole chunk afterwards (the same numbers). Not used by ``bayesian``.

    Yields
    ------
    ndarray, shape (b, n_items)
        ``multinomial`` (int64, or ``dtype``): row ``r`` counts how often each item was drawn in
        replicate ``r``; each row sums to ``n_items`` (to each stratum's size within
        the stratum). ``bayesian`` (float64): the item weights; without strata they are
        left unnormalised, so the total weight of any k items is ``Gamma(k)`` and
        adding ``Gamma(½)`` pseudo-counts to a table's cells gives exactly its
        Dirichlet posterior under the Jeffreys prior; with strata each stratum's
        weights are scaled to sum to its size.

    Notes
    -----
    Replicate r draws ``n_s`` item indices uniformly with replacement within every
    stratum s, exactly as index resampling does, and counts them. The stream of draws
    does not depend on ``batch``, so a seeded run gives the same replicates whatever
    the chunking.
    """
    n_items = check_positive_int(n_items, "n_items")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    gen = check_rng(rng)
    members = _strata_members(n_items, strata)
    rows = _batch_rows(n_items, 0, n_resamples, batch)
    if kind not in ("multinomial", "bayesian"):
        raise InvalidValueError(f"`kind` must be 'multinomial' or 'bayesian'; got {kind!r}")
    # Position j of a replicate draws an item of its stratum: ``order[start[j] + u_j]`` with
    # ``u_j`` uniform on the stratum's size. One call draws all positions of a chunk's rows,
    # row by row, so the stream does not depend on how the replicates are chunked.
    order = np.concatenate(members)
    size = np.concatenate([np.full(m.size, m.size) for m in members])
    start = np.concatenate([np.full(m.size, s) for m, s in zip(members, np.cumsum([0] + [m.size for m in members]))])
    done = 0
    while done < n_resamples:
        b = min(rows, n_resamples - done)
        if kind == "bayesian":
            w = gen.standard_exponential((b, n_items))
            if strata is not None:
                for idx in members:
                    w[:, idx] *= idx.size / w[:, idx].sum(axis=1, keepdims=True)
            yield w
            done += b
            continue
        # drawn and counted a block of rows at a time, within the CPU cache (a chunk's draws out of
        # it made the counting a quarter slower); the rows keep their order, so the stream is the same
        counts = np.empty((b, n_items), dtype=np.intp if dtype is None else dtype)
        step = max(1, _COUNT_DRAWS // n_items)
        offsets = (np.arange(min(step, b)) * n_items)[:, None]
        for lo in range(0, b, step):
            k = min(step, b - lo)
            if strata is None:  # one stratum in item order: the draws are the items
                draws = gen.integers(0, n_items, size=(k, n_items))
            elif len(members) == 1:
                draws = order[gen.integers(0, n_items, size=(k, n_items))]
            else:
                draws = order[start + gen.integers(0, size, size=(k, n_items))]
            draws += offsets[:k]
            counts[lo:lo + k] = np.bincount(draws.ravel(), minlength=k * n_items).reshape(k, n_items)
        yield counts
        done += b


def bootstrap_index_rows(n_items: int, n_resamples: int, *, rng: Any = None,
                         batch: int | None = None) -> Iterator[NDArray]:
    """Bootstrap replicates as item indices: (b, n_items) arrays, ``batch`` replicates at a time.

    For statistics that are not sums of item columns (a rank correlation over images, a
    random split of resampled trials), which need the drawn items themselves: replicate
    ``r`` of :func:`bootstrap_weights` (the same stream) counts how often each item was
    drawn, and repeating each item that often gives that replicate's indices, sorted by item.

    Examples
    --------
    >>> rows = next(bootstrap_index_rows(5, 3, rng=0))
    >>> rows.shape, bool((np.diff(rows, axis=1) >= 0).all())
    ((3, 5), True)
    """
    items = np.arange(n_items)
    for w in bootstrap_weights(n_items, n_resamples, rng=rng, batch=batch):
        yield np.repeat(np.tile(items, w.shape[0]), w.ravel()).reshape(w.shape[0], n_items)


def bootstrap_sums(
    columns: ArrayLike,
    n_resamples: int,
    *,
    statistic: Callable[..., NDArray] | None = None,
    rng: Any = None,
    strata: ArrayLike | None = None,
    batch: int | None = None,
    kind: str = "multinomial",
    with_weights: bool = False,
    weights: ReplicateWeights | None = None,
    columns_first: bool = False,
) -> NDArray:
    """Weighted column sums ``W @ X`` for B bootstrap replicates, chunk by chunk.

    Parameters
    ----------
    columns : array_like, shape (n_items, n_columns)
        Item-level indicator columns (0/1, or any small integers).
    n_resamples : int
    statistic : callable, optional
        Maps a chunk of sums, shape (b, n_columns), to the replicate statistics,
        shape (b, ...). Applied per chunk so that only its output is kept. Default:
        keep the sums.
    rng, strata, batch, kind
        As in :func:`bootstrap_weights`.
    with_weights : bool
        Call ``statistic(sums, weights)`` with the chunk's weights, shape (b, n_items),
        too (e.g. for the infinitesimal-jackknife variance of every replicate), in the
        product's dtype (multinomial counts as float32 or float64 numbers).
    weights : ReplicateWeights, optional
        Take the replicates' weights from here instead (then ``n_resamples``, ``rng``,
        ``strata``, ``batch`` and ``kind`` are theirs): several blocks of columns (e.g.
        blocks of observer pairs) then see the same replicates. Weights made with
        ``column_max`` give exact sums (the same for any number of BLAS threads), which
        reach ``statistic`` in the weights' dtype (float32 or float64). With a ``prior``,
        ``columns`` may have a row per item only: the product then leaves the prior's rows
        out, and a statistic ``with_weights`` gets the whole chunk to add their part. Exact
        sums reach ``statistic`` in one buffer reused for every chunk: it must not keep them
        (an output that is a view of them is copied).
    columns_first : bool
        With exact ``weights`` and a ``statistic``: the sums reach it transposed, shape
        (n_columns, b), the product ``X.T @ W.T`` (the same exact values; a statistic of each
        column then reads its replicates contiguously).

    Returns
    -------
    ndarray, shape (n_resamples, ...)
        The replicate statistics, in replicate order.

    Notes
    -----
    The product runs in float32 when it is exact (integer columns whose sums stay below
    2**24), which halves memory traffic, else in float64 (e.g. for probabilities). Sums of integer columns are returned as
    exact integers either way.
    """
    x = np.asarray(columns)
    if x.ndim != 2:
        raise InvalidValueError(f"`columns` must be 2-D (items × columns); got shape {x.shape}")
    n_items, n_cols = x.shape
    if weights is not None:
        kind = weights.kind
    integer = (np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.bool_)
               or bool(np.all(x == np.round(x))))
    # float32 is exact only for integer columns whose sums stay below 2**24 (probabilities are not)
    exact32 = (kind == "multinomial" and float(np.abs(x).max(initial=0)) * n_items < _EXACT_FLOAT32 and integer)
    dtype = np.float32 if exact32 else np.float64
    exact = weights is not None and weights.dtype is not None  # weights made for exact sums in their dtype
    if exact and weights is not None:
        if not (integer and float(x.min(initial=0)) >= 0 and float(x.max(initial=0)) <= (weights.column_max or 0)):
            raise InvalidValueError(f"`weights` were made for integer columns in [0, {weights.column_max}]; `columns` "
                                    f"has values in [{x.min(initial=0)}, {x.max(initial=0)}]")
        dtype = weights.dtype
    if columns_first and not (exact and statistic is not None):
        raise InvalidValueError("`columns_first=True` needs a `statistic` and `weights` made for exact sums "
                                f"(`column_max`); got statistic={statistic!r}, weights={weights!r}")
    # Exact sums do not depend on the order BLAS adds in, so the columns keep their memory order
    # (a plain cast; BLAS reads either order): a C-order copy of the column-major item columns of
    # the pair blocks was a transposing pass slower than a fifth of their product. Inexact sums
    # keep the C order that fixes their rounding.
    xf = x.astype(dtype, order="K", copy=False) if exact or exact32 else np.ascontiguousarray(x, dtype=dtype)
    if weights is None:
        rows = _batch_rows(n_items, n_cols, n_resamples, batch)
        chunks: Any = bootstrap_weights(n_items, n_resamples, rng=rng, strata=strata, batch=rows, kind=kind,
                                        dtype=dtype if kind == "multinomial" else None)  # counts: exact in either
    elif n_items not in (weights.n_rows, weights.n_items):
        raise InvalidValueError(f"`weights` are for {weights.n_rows} items; `columns` has {n_items}")
    else:
        chunks = weights
    out: list[NDArray] = []
    buffer: NDArray | None = None  # exact sums for a statistic: one product buffer for every chunk
    for w in chunks:
        # columns of the items only (not the prior's rows): the product takes the items' weights
        wi = (w if w.shape[1] == n_items else w[:, :n_items]).astype(dtype, copy=False)
        if statistic is not None and exact:  # exact sums reach the statistic in the product's dtype
            if columns_first:  # (n_cols, b): one buffer of the largest chunk's size, viewed as each chunk's
                if buffer is None or buffer.size < n_cols * len(wi):
                    buffer = np.empty(n_cols * len(wi), dtype=dtype)
                sums = np.matmul(xf.T, wi.T, out=buffer[:n_cols * len(wi)].reshape(n_cols, len(wi)))
            else:
                if buffer is None or len(buffer) < len(wi):
                    buffer = np.empty((len(wi), n_cols), dtype=dtype)
                sums = np.matmul(wi, xf, out=buffer[:len(wi)])
            stat = statistic(sums, w) if with_weights else statistic(sums)
            out.append(stat.copy() if np.may_share_memory(stat, buffer) else stat)  # the buffer is overwritten
            continue
        sums = (wi @ xf).astype(np.float64, copy=False)
        if statistic is None:
            out.append(sums)
        else:
            out.append(statistic(sums, w) if with_weights else statistic(sums))
    return np.concatenate(out, axis=0)


class ReplicateWeights:
    """The weight chunks of :func:`bootstrap_weights`, the same each time they are iterated.

    For a bootstrap over blocks of columns that must all see the same replicates (the
    pair blocks of :func:`trialwise.pairwise_error_consistency`): the first iteration
    draws from ``rng`` (and advances it exactly as one pass of :func:`bootstrap_weights`
    would); later iterations replay the same chunks, kept in memory when they take at most
    ``keep_bytes`` (B × n_items × 8 bytes), else drawn again from a saved copy of the
    stream. Either way the replicates do not depend on how many blocks there are.

    Parameters
    ----------
    n_items, n_resamples, rng, strata, batch, kind
        As in :func:`bootstrap_weights`; ``batch`` is the replicates per chunk.
    n_columns : int, default 0
        Columns of the product the chunks will meet; with ``batch=None`` the chunk size is
        then chosen as in :func:`bootstrap_sums` (about :data:`BATCH_BYTES` per chunk).
    keep_bytes : int, optional
        Default :data:`WEIGHTS_KEEP_BYTES`.
    prior : (rows, shape, seed), optional
        Append ``rows`` extra weights to every replicate, independent ``Gamma(shape)`` draws
        from ``keyed_rng(seed)`` (one call of shape (b, rows) per chunk, so they do not depend
        on the chunking either): the weights of the virtual items that carry the Jeffreys
        pseudo-counts of :func:`trialwise.pairwise_error_consistency`. The chunks then have
        ``n_items + rows`` columns (:attr:`n_rows`).
    column_max : int, optional
        Make every product exact: the columns the chunks will meet are integers in
        ``[0, column_max]``, and each chunk is returned in the dtype (:attr:`dtype`) in which
        every sum ``w @ x`` is exact whatever the order of summation — so a product gives the
        same bits for any number of BLAS threads. Integer (multinomial) weights are exact
        as they are (float32 while ``n_rows · column_max < 2**24``). Real (Bayesian, prior)
        weights are rounded, replicate by replicate, to the finest grid ``2**-k`` on which
        the replicate's largest possible sum stays below ``2**22`` (float32, when
        ``n_rows · column_max < 2**14``: a step of about ``n_rows · column_max / 2**21``, at
        most about ``2**-7``) or ``2**51`` (float64): each weight moves by at most half a
        step, which adds about ``step**2 / 12`` (≤ ``2**-14/12``) to its variance of 1
        (docs/performance.md, "Speed of the bootstrap engine").

    Examples
    --------
    >>> w = ReplicateWeights(5, 4, rng=0, batch=3)
    >>> first, again = np.concatenate(list(w)), np.concatenate(list(w))
    >>> bool((first == again).all()), first.shape
    (True, (4, 5))
    """

    def __init__(self, n_items: int, n_resamples: int, *, rng: Any = None, strata: ArrayLike | None = None,
                 batch: int | None = None, kind: str = "multinomial", n_columns: int = 0,
                 keep_bytes: int | None = None, prior: tuple[int, float, int] | None = None,
                 column_max: int | None = None) -> None:
        self.n_items = check_positive_int(n_items, "n_items")
        self.n_resamples = check_positive_int(n_resamples, "n_resamples")
        self.kind = kind
        self._gen = check_rng(rng)
        self._saved = copy_rng(self._gen)
        rows = _batch_rows(self.n_items, n_columns, self.n_resamples, batch)
        self._args: dict[str, Any] = dict(strata=strata, batch=rows, kind=kind)
        self.prior = prior
        #: Columns of every chunk: the items, then the prior's rows.
        self.n_rows = self.n_items + (0 if prior is None else int(prior[0]))
        self.column_max = None if column_max is None else check_positive_int(column_max, "column_max")
        span = self.n_rows * (self.column_max or 0)
        integer = kind == "multinomial" and prior is None
        #: dtype of the chunks: float32 where that keeps every product exact (see ``column_max``).
        self.dtype: Any = (None if column_max is None else np.float32 if span < (_EXACT_FLOAT32 if integer else 2**14)
                           else np.float64)
        bytes_needed = (8 if self.dtype is None else np.dtype(self.dtype).itemsize) * self.n_rows * self.n_resamples
        self._keep = bytes_needed <= (WEIGHTS_KEEP_BYTES if keep_bytes is None else keep_bytes)
        self._kept: list[NDArray] | None = None
        self._passes = 0

    def __iter__(self) -> Iterator[NDArray]:
        if self._kept is not None:
            yield from self._kept
            return
        first = self._passes == 0
        self._passes += 1
        gen = self._gen if first else copy_rng(self._saved)
        prior_gen = None if self.prior is None else keyed_rng(self.prior[2])
        kept: list[NDArray] = []
        # integer weights made for exact products are drawn in their dtype (cast in the cache: the same numbers)
        direct = self.dtype is not None and self.kind == "multinomial" and self.prior is None
        for w in bootstrap_weights(self.n_items, self.n_resamples, rng=gen, dtype=self.dtype if direct else None,
                                   **self._args):
            if prior_gen is not None and self.prior is not None:
                w = np.concatenate([w, _prior_weights(prior_gen, w.shape[0], int(self.prior[0]), self.prior[1])], axis=1)
            if self.dtype is not None and self.column_max is not None and not direct:
                w = _on_exact_grid(w, self.column_max, self.dtype)
            if first and self._keep:
                kept.append(w)
            yield w
        if first and self._keep:
            self._kept = kept

    def advance(self) -> None:
        """Draw the first pass (advancing ``rng`` as one pass of :func:`bootstrap_weights`) if not done yet.

        For a caller whose blocks replay the weights elsewhere (pickled, see below) but whose
        ``rng`` must move on exactly as if they had been drawn here. Nothing is kept.
        """
        if self._passes == 0:
            self._passes = 1
            collections.deque(bootstrap_weights(self.n_items, self.n_resamples, rng=self._gen, **self._args),
                              maxlen=0)  # draw every chunk and keep none

    def __getstate__(self) -> dict[str, Any]:
        # Pickled (e.g. for a Dask task) as the saved stream, never as the drawn arrays:
        # the copy replays the same chunks, drawing them again, and keeps none.
        state = dict(self.__dict__, _kept=None, _keep=False, _passes=1)
        state["_gen"] = state["_saved"]
        return state


def _prior_weights(gen: np.random.Generator, b: int, rows: int, shape: float) -> NDArray:
    """``b`` replicates × ``rows`` independent ``Gamma(shape)`` weights (one call: chunk-free stream)."""
    return gen.standard_gamma(shape, size=(b, rows))


def _on_exact_grid(w: NDArray, column_max: int, dtype: Any) -> NDArray:
    """Weights (b, rows) on which every sum ``w @ x`` with integer ``0 <= x <= column_max`` is exact in ``dtype``.

    Integer weights are only cast. Real weights are rounded, row by row, to multiples of
    ``2**-k`` with ``k`` the largest integer for which ``2**k · column_max · Σ w < 2**22``
    (float32) or ``2**51`` (float64): then every partial sum of ``q_i · x_i · 2**-k`` is an
    integer multiple of ``2**-k`` below ``2**24`` (``2**53``) of them, so it is exact, and the
    product does not depend on the order in which BLAS adds (i.e. on its number of threads).
    Real float64 weights are rounded in place (``w`` is a fresh draw of the caller, overwritten).
    """
    if w.dtype.kind in "iu":
        return w.astype(dtype)
    bits = 22 if dtype == np.float32 else 51
    _, e = np.frexp(w.sum(axis=1) * column_max)  # total < 2**e
    k = (bits - e)[:, None]
    q = np.multiply(w, np.ldexp(1.0, k), out=w if w.flags.writeable and w.dtype == np.float64 else None)
    np.rint(q, out=q)  # q_i = w_i · 2**k, rounded to integers below 2**24 (2**53), in place (w is the caller's draft)
    out = np.empty(q.shape, dtype=dtype)
    # back to the grid, in the output's dtype in one pass: q · 2**-k is exact in float64 and representable in dtype
    np.multiply(q, np.ldexp(1.0, -k), out=out, casting="same_kind")
    return out


def multinomial_tables(
    probabilities: ArrayLike,
    n: ArrayLike,
    size: int | tuple[int, ...] | None = None,
    *,
    rng: Any = None,
    statistic: Callable[[NDArray], NDArray] | None = None,
    workers: int | None = None,
    order_free: bool = False,
) -> NDArray:
    """Draw 2×2 tables of n items from cell probabilities (one multinomial each).

    This is the simulation engine of the copy model and of every parametric Monte-Carlo
    computation: n trials of a 2×2 design are one draw of four counts.

    Parameters
    ----------
    probabilities : array_like, shape (..., 2, 2)
        Cell probabilities ``[[P11, P10], [P01, P00]]``, summing to 1 over the last two
        axes.
    n : int or array_like of int
        Items per table; broadcast against the batch shape of ``probabilities``.
    size : int or tuple, optional
        Leading shape of independent draws (e.g. the number of simulations).
    rng : None, int or numpy.random.Generator
    statistic : callable, optional
        Reduce each block of tables, shape ``(*size, g, 2, 2)``, to an array of shape
        ``(*size, g, ...)`` as it is drawn (e.g. :func:`trialwise.ec.kappa_from_counts`),
        so that the tables of a large grid never all sit in memory.
    workers : int, optional
        Threads for large simulations (numpy's generators release the GIL); default:
        the number of CPUs. The result does not depend on it.
    order_free : bool, default False
        The caller uses only summaries that do not depend on the order of the draws
        (quantiles, means). Each multinomial is then drawn as A's number of correct
        trials ``k ~ Bin(n, a_A)`` followed by ``n11 ~ Bin(k, P11/a_A)`` and
        ``n01 ~ Bin(n − k, P01/(1 − a_A))`` — the same distribution — with the draws of
        each grid point sorted by ``k``, so that numpy's binomial sampler reuses its
        set-up (about twice as fast). The draws of one grid point then come ordered by
        ``k``: an i.i.d. sample as a set, not as a sequence.

    Notes
    -----
    Simulations of more than ``SIMULATION_BLOCK`` draws are split into blocks of grid
    points; each block draws from its own child generator (:func:`child_rngs`), so the
    result is reproducible and the same for any number of ``workers``.
    """
    p = np.asarray(probabilities, dtype=float)
    if p.shape[-2:] != (2, 2):
        raise InvalidValueError(f"`probabilities` must have shape (..., 2, 2); got {p.shape}")
    if order_free:
        return multinomial_cells(p, n, size, rng=rng, statistic=statistic, workers=workers, cell_ndim=2,
                                 _draw=_sorted_binomial_tables)
    return multinomial_cells(p, n, size, rng=rng, statistic=statistic, workers=workers, cell_ndim=2)


def _sorted_binomial_tables(g: np.random.Generator, n: NDArray, p: NDArray, lead: tuple) -> NDArray:
    """Multinomial 2×2 tables by conditional binomials, draws sorted by A's correct count.

    ``n`` (G,), ``p`` (G, 4) → tables (*lead, G, 4) — see ``order_free``.
    """
    s = int(np.prod(lead, dtype=np.int64))
    a = p[:, 0] + p[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        p_right = np.where(a > 0, p[:, 0] / a, 0.0)
        p_wrong = np.where(a < 1, p[:, 2] / (1 - a), 0.0)
    nn = np.broadcast_to(n[:, None], (len(n), s))
    k = g.binomial(nn, a[:, None])
    k.sort(axis=1)
    n11 = g.binomial(k, np.clip(p_right, 0, 1)[:, None])
    n01 = g.binomial(nn - k, np.clip(p_wrong, 0, 1)[:, None])
    t = np.stack([n11, k - n11, n01, nn - k - n01], axis=-1)  # (G, S, 4)
    return np.moveaxis(t, 0, 1).reshape(lead + (len(n), 4))


def multinomial_cells(
    probabilities: ArrayLike,
    n: ArrayLike,
    size: int | tuple[int, ...] | None = None,
    *,
    rng: Any = None,
    statistic: Callable[[NDArray], NDArray] | None = None,
    workers: int | None = None,
    cell_ndim: int = 1,
    _draw: Callable | None = None,
) -> NDArray:
    """Multinomial counts over cells of any shape: the core of :func:`multinomial_tables`.

    The last ``cell_ndim`` axes of ``probabilities`` are the cells (e.g. ``(2, 2, 2)``
    for a reference and two observers); everything else is as in
    :func:`multinomial_tables`.
    """
    gen = check_rng(rng)
    if workers is not None:
        workers = check_positive_int(workers, "workers")
    p = np.asarray(probabilities, dtype=float)
    cell_shape = p.shape[p.ndim - cell_ndim :]
    k = int(np.prod(cell_shape))
    flat = p.reshape(p.shape[: p.ndim - cell_ndim] + (k,))
    flat = np.clip(flat, 0.0, None)
    flat = flat / flat.sum(axis=-1, keepdims=True)
    n_arr = np.asarray(n, dtype=np.int64)
    batch_shape = np.broadcast_shapes(flat.shape[:-1], n_arr.shape)
    lead = () if size is None else ((size,) if isinstance(size, (int, np.integer)) else tuple(size))
    n_draws = int(np.prod(lead, dtype=np.int64))
    n_points = int(np.prod(batch_shape, dtype=np.int64))
    n_b = np.broadcast_to(n_arr, batch_shape).reshape(-1)
    p_b = np.broadcast_to(flat, batch_shape + (k,)).reshape(-1, k)

    def draw(g: np.random.Generator, sl: slice) -> NDArray:
        if _draw is None:
            t = g.multinomial(n_b[sl], p_b[sl], size=lead + (len(n_b[sl]),))
        else:
            t = _draw(g, n_b[sl], p_b[sl], lead)
        t = t.reshape(lead + (-1,) + cell_shape)
        return statistic(t) if statistic is not None else t

    out = _in_blocks(gen, draw, n_points, n_draws, len(lead), workers)
    return out.reshape(lead + batch_shape + out.shape[len(lead) + 1 :])


def _in_blocks(
    gen: np.random.Generator, draw: Callable, n_points: int, n_draws: int, axis: int, workers: int | None
) -> NDArray:
    """Run ``draw(generator, slice_of_points)`` over blocks of grid points and concatenate.

    Blocks hold about ``SIMULATION_BLOCK`` draws; each has its own child generator
    (:func:`child_rngs`), so the result is the same for any number of ``workers``.
    """
    if n_draws * n_points <= SIMULATION_BLOCK or n_points <= 1:
        return draw(gen, slice(None))
    per = max(1, SIMULATION_BLOCK // max(n_draws, 1))
    slices = [slice(i, i + per) for i in range(0, n_points, per)]
    children = child_rngs(gen, len(slices))
    parts = map_threads(lambda block: draw(*block), list(zip(children, slices)), workers)
    return np.concatenate(parts, axis=axis)


def posterior_tables(
    counts: ArrayLike,
    n_draws: int,
    *,
    prior: float = JEFFREYS_PRIOR,
    rng: Any = None,
    statistic: Callable[[NDArray], NDArray] | None = None,
    cell_ndim: int = 2,
    workers: int | None = None,
) -> NDArray:
    """Draws of the cell probabilities of count tables from their Dirichlet posterior.

    The multinomial's cell probabilities get the prior ``Dirichlet(prior, …, prior)``
    (default ½: the Jeffreys prior), so their posterior given counts ``c`` is
    ``Dirichlet(c + prior)``. Each draw is scaled to the table's n, so it reads like a
    table of counts (with fractional cells): statistics that depend only on proportions,
    such as κ, are unchanged by the scale.

    Parameters
    ----------
    counts : array_like, shape (..., *cells)
        Tables of counts; the last ``cell_ndim`` axes are the cells (2×2 by default,
        ``cell_ndim=3`` for a reference and two observers).
    n_draws : int
        Posterior draws per table.
    prior : float, default 0.5
        Pseudo-count added to every cell (must be > 0).
    rng : None, int or numpy.random.Generator
    statistic : callable, optional
        Reduce each block of draws, shape ``(n_draws, g, *cells)``, as it is drawn.
    workers : int, optional
        Threads for large batches; the result does not depend on it.

    Returns
    -------
    ndarray of float, shape (n_draws, ..., *cells) — or the statistic's output.

    Notes
    -----
    A Dirichlet draw is a vector of independent ``Gamma(c_j + prior)`` variables divided
    by their sum. Every cell's posterior mass stays positive, so a statistic is defined
    in every draw even when a cell of the data is empty; this is what keeps the
    Jeffreys interval of κ calibrated near floor and ceiling (``docs/validity.md``).
    """
    n_draws = check_positive_int(n_draws, "n_draws")
    if not (np.ndim(prior) == 0 and np.isfinite(prior) and prior > 0):
        raise InvalidValueError(f"`prior` must be a positive number; got {prior!r}")
    gen = check_rng(rng)
    c = np.asarray(counts, dtype=float)
    cell_shape = c.shape[c.ndim - cell_ndim :]
    batch_shape = c.shape[: c.ndim - cell_ndim]
    k = int(np.prod(cell_shape))
    flat = c.reshape(-1, k)
    n = flat.sum(axis=1, keepdims=True)
    shape = flat + prior

    def draw(g: np.random.Generator, sl: slice) -> NDArray:
        gam = g.standard_gamma(np.broadcast_to(shape[sl], (n_draws,) + shape[sl].shape))
        t = (gam * (n[sl] / gam.sum(axis=-1, keepdims=True))).reshape((n_draws, -1) + cell_shape)
        return statistic(t) if statistic is not None else t

    out = _in_blocks(gen, draw, len(flat), n_draws, 1, workers)
    return out.reshape((n_draws,) + batch_shape + out.shape[2:])


def bootstrap_tables(counts: ArrayLike, n_resamples: int, *, rng: Any = None) -> NDArray:
    """Bootstrap replicates of one or more 2×2 tables by multinomial draws over the cells.

    Resampling n items with replacement and tabulating them has exactly the
    distribution of ``Multinomial(n, counts / n)`` over the four cells.

    Returns
    -------
    ndarray of int64, shape (n_resamples, *batch, 2, 2)
    """
    c = np.asarray(counts, dtype=float)
    n = c.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n[..., None, None]
    return multinomial_tables(p, n.astype(np.int64), size=n_resamples, rng=rng)


def jackknife_tables(
    counts: ArrayLike, statistic: Callable[[NDArray], NDArray], *, cell_ndim: int = 2
) -> tuple[NDArray, NDArray]:
    """Leave-one-out values of a statistic of count tables, for the BCa acceleration.

    Leaving out one item of a table removes one count from one cell, so a table of K
    cells (4 for a 2×2 table, 8 for a reference and two observers) has at most K
    distinct leave-one-out tables, each shared by the items of its cell.

    Parameters
    ----------
    counts : array_like, shape (..., *cells)
    statistic : callable
        Maps tables (..., *cells) to values (..., *extra).
    cell_ndim : int, default 2
        Number of trailing cell axes.

    Returns
    -------
    values, weights : ndarray, shape (K, ..., *extra)
        The statistic of the K leave-one-out tables (NaN where the cell is empty) and
        how many items give each (the cell counts).
    """
    c = np.asarray(counts, dtype=float)
    cell_shape = c.shape[c.ndim - cell_ndim :]
    k = int(np.prod(cell_shape))
    batch_ndim = c.ndim - cell_ndim
    loo = c[None] - np.eye(k).reshape((k,) + (1,) * batch_ndim + cell_shape)
    values = np.asarray(statistic(np.clip(loo, 0, None)), dtype=float)
    weights = np.moveaxis(c.reshape(c.shape[:batch_ndim] + (k,)), -1, 0)
    weights = weights.reshape(weights.shape + (1,) * (values.ndim - weights.ndim))
    weights = np.broadcast_to(weights, values.shape)
    return np.where(weights > 0, values, np.nan), weights


#: Values of the unit sums a chunk of :func:`leave_one_out_sums` holds (32 MB of float64).
LEAVE_ONE_OUT_VALUES = 2**22


def leave_one_out_sums(units: ArrayLike, statistic: Callable[[NDArray], NDArray]) -> NDArray:
    """Leave-one-unit-out values of a statistic of column sums: the jackknife replicates of units.

    A unit (an item, or a cluster of items) is a row of column values (counts, summed
    probabilities); the statistic is a function of the column sums. Leaving unit ``i`` out
    gives the sums ``total − units[i]``, computed in chunks of rows of at most
    :data:`LEAVE_ONE_OUT_VALUES` values.

    Parameters
    ----------
    units : array_like, shape (G, columns)
        One row per unit.
    statistic : callable
        Maps sums (rows, columns) to values (rows, ...), row by row.

    Returns
    -------
    numpy.ndarray, shape (G, ...)
        The statistic with each unit left out in turn.

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [4.0], [7.0]])
    >>> leave_one_out_sums(x, lambda s: s[:, 0] / 3).tolist()   # the mean with each value left out
    [4.333333333333333, 4.0, 3.3333333333333335, 2.3333333333333335]
    """
    u = np.asarray(units)
    total = u.sum(axis=0)
    chunk = max(1, LEAVE_ONE_OUT_VALUES // max(u.shape[1], 1))
    parts = [statistic(total - u[i: i + chunk]) for i in range(0, u.shape[0], chunk)]
    return np.concatenate(parts or [statistic(total[None][:0])], axis=0)
