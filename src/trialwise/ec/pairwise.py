"""Error consistency of every pair of many observers, resampled jointly: pairwise_error_consistency.

The observers' correctness (a matrix, a trial table, or a Dask array read block by block) is
bootstrapped pair block by pair block (:mod:`trialwise.ec.blocks`): the replicates of every pair
come from the same replicate weights, so differences between pairs have correct joint
uncertainty, and memory stays bounded in the number of pairs; with ``client=`` the blocks run as
Dask tasks (:mod:`trialwise._stats.distributed`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, make_notes
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.blocks import gather_blocks, run_blocks
from trialwise._stats.intervals import CIMethod, few_clusters_note
from trialwise._stats.monte_carlo import monte_carlo_pvalue
from trialwise._stats.resampling import (
    JEFFREYS_PRIOR,
    ReplicateWeights,
)
from trialwise._stats.streams import child_seed, records_seed
from trialwise._stats.tables import (
    cluster_sums,
    pairwise_tables,
)
from trialwise.ec.blocks import PAIR_STREAM_BLOCK, bootstrap_pair_block, cluster_codes, pair_block_size, pair_indices, prior_items, strata_of_clusters
from trialwise.ec.inference import (
    DEFAULT_CI_METHOD,
    DEFAULT_TEST,
    Options,
    TestMethod,
    check_options,
    infer,
)
from trialwise.ec.results import PairwiseErrorConsistencyResult
from trialwise.io.labels import code_labels

__all__ = ["pairwise_error_consistency"]


#: The replicates of all pairs (``bootstrap_distribution``, B × pairs × 8 bytes) are kept by
#: default up to this size; ``keep_replicates=True`` keeps them whatever their size.
KEEP_REPLICATES_BYTES = 256 * 2**20


def _is_dask_array(x: Any) -> bool:
    return hasattr(x, "__dask_graph__") and hasattr(x, "chunks") and hasattr(x, "ndim")


def _stored_correctness(correct: Any, truth: Any, opts: Options) -> tuple[Any, Any, tuple]:
    """A Dask array of correctness (items × observers) → lazy uint8 (correct & seen, seen), observer numbers.

    Nothing is read here: each block of pairs reads (and checks) its observers' columns where
    it runs (:func:`trialwise._stats.distributed.computed_first`).
    """
    if truth is not None:
        raise InvalidValueError("`truth` goes with responses in memory; a Dask array `correct` must hold the "
                                "correctness itself (0/1, bool, NaN = not seen)")
    if opts.ci_method == "analytic":
        raise InvalidValueError("`ci_method`='analytic' needs every table on the client; with a Dask array "
                                "`correct` choose a resampling interval (jeffreys, bca, percentile, ...)")
    if correct.ndim != 2 or any(np.isnan(s) for s in correct.shape):
        raise InvalidValueError(f"`correct` as a Dask array must be 2-D (items × observers) with known chunk "
                                f"sizes (e.g. to_dask_array(lengths=True)); got shape {correct.shape}")
    if correct.shape[0] == 0 or correct.shape[1] < 2:
        raise InvalidValueError(f"`correct` needs items and at least 2 observers; got shape {correct.shape}")
    right = correct.map_blocks(_stored_right, dtype=np.uint8)
    seen = correct.map_blocks(_stored_seen, dtype=np.uint8)
    return right, seen, tuple(range(correct.shape[1]))


def _stored_right(block: NDArray) -> NDArray:
    return _correctness_values(np.asarray(block))[0]


def _stored_seen(block: NDArray) -> NDArray:
    return _correctness_values(np.asarray(block))[1]


def _correctness_values(values: NDArray) -> tuple[NDArray, NDArray]:
    """Numeric or bool correctness (NaN = not seen) → (correct & seen, seen) as uint8, or a clear error."""
    if values.dtype == bool:
        return values.astype(np.uint8), np.ones(values.shape, np.uint8)
    if values.dtype == object:  # a missing value of pandas (pd.NA of a nullable column, None) = not seen, as NaN
        values = np.where(v.missing_mask(values), np.nan, values)
    try:
        f = values.astype(float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"`correct` must hold correctness (0/1, bool, NaN = not seen); got {_first_text(values)}; for response "
            f"labels pass `truth=`"
        ) from exc
    seen = ~np.isnan(f)
    bad = seen & (f != 0) & (f != 1)
    if bad.any():
        raise InvalidValueError(f"`correct` must be 0/1 (NaN = not seen); found values {np.unique(f[bad])[:5].tolist()}")
    return (seen & (f == 1)).astype(np.uint8), seen.astype(np.uint8)


def _first_text(values: NDArray) -> str:
    """The first value that is not a number, and where (``row 3, column 1``), for the error about it."""
    for index, x in np.ndenumerate(values):
        try:
            float(x)
        except (TypeError, ValueError):
            where = f" at row {index[0]}, column {index[1]}" if len(index) == 2 else ""
            return f"{v.show(x)}{where}"
    return "values that are not numbers"


def _correctness_matrix(correct, truth) -> tuple[NDArray, NDArray, tuple]:
    """(items × observers) correctness → (correct & seen, seen) as uint8, observer names."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(correct, pd.DataFrame):
        long = {"subject", "image"} <= set(correct.columns) and ({"correct", "response"} & set(correct.columns))
        if long:  # a long table of trials (read_trials'), not items × observers
            raise InvalidValueError(
                "`correct` is a long table of trials (columns subject, image, ...; one row per trial); "
                "pass its items × observers form, e.g. trials.pivot_table(index=['condition', 'image'], "
                "columns='subject', values='correct'), with strata= the conditions of its rows (docs/index.md, "
                "'Many observers at once')")
        names = tuple(correct.columns)
        values = correct.to_numpy()
    else:
        values = np.asarray(correct)
        names = tuple(range(values.shape[1])) if values.ndim == 2 else ()
    if values.ndim != 2:
        raise InvalidValueError(f"`correct` must be 2-D (items × observers); got shape {values.shape}")
    if values.shape[0] == 0:
        raise InvalidValueError("`correct` has no items (0 rows)")
    if values.shape[1] < 2:
        raise InvalidValueError(f"`correct` needs at least 2 observers (columns); got {values.shape[1]}")
    if len(set(names)) != len(names):
        raise InvalidValueError("`correct` has duplicate observer names (columns)")
    if truth is not None:
        t = np.asarray(truth, dtype=object)
        if t.shape != (values.shape[0],):
            raise InvalidValueError(f"`truth` must have one label per item ({values.shape[0]}); got shape {t.shape}")
        # responses and truth coded together (trialwise.io.labels); a missing response = not seen
        coding = code_labels({"truth": t, "correct": values.astype(object).ravel()}, allow_missing=("correct",),
                             same_length=False)
        codes = coding.codes["correct"].reshape(values.shape)
        seen = codes >= 0
        right = codes == coding.codes["truth"][:, None]
        return right.astype(np.uint8), seen.astype(np.uint8), names
    return (*_correctness_values(values), names)


def _pairwise_bootstrap(right: NDArray, seen: NDArray, idx: NDArray, codes: NDArray | None, strata: Any,
                        opts: Options, batch: int | None, keep_replicates: bool | None,
                        client: Any = None) -> dict[str, Any]:
    """Tables, intervals and replicate summaries of every pair, one block of pairs at a time.

    Every block sees the same replicate weights (:class:`trialwise._stats.resampling.ReplicateWeights`,
    with the virtual items' weights of the Jeffreys pseudo-counts), so the numbers do not depend
    on the block size; only a
    block's B × pairs replicates are held, unless they are kept for the result. With a Dask
    ``client`` the blocks (:func:`bootstrap_pair_block`) run as tasks on its cluster. There, and
    for a Dask array in storage, a block is a tile of pairs (:func:`trialwise._stats.distributed.tile_blocks`):
    the pairs between two ranges of about √m observers, so that it reads (or is sent) the
    columns of those two ranges only, and each chunk is read about as often as there are tiles.
    """
    n_pairs = len(idx)
    jeffreys = opts.ci_method == "jeffreys"
    n_units = right.shape[0] if codes is None else int(codes.max()) + 1
    B = opts.n_resamples
    m = pair_block_size(n_pairs, right.shape[0], B)
    keep = 8 * B * n_pairs <= KEEP_REPLICATES_BYTES if keep_replicates is None else bool(keep_replicates)
    seed = child_seed(opts.rng, bits=64) if jeffreys else 0  # drawn before the weights, as always
    prior = virtual = None
    stored = hasattr(right, "__dask_graph__")  # a Dask array in storage: each block reads its observers' columns
    if jeffreys:  # the virtual items of the pseudo-counts, after the real ones
        virtual = prior_items(right.shape[1])
        if not stored:  # (a stored block gets those of its observers: _stored_pair_block)
            right = np.concatenate([right, virtual])
            seen = np.concatenate([seen, np.ones_like(virtual)])
        prior = (len(virtual), JEFFREYS_PRIOR / (len(virtual) // 4), seed)
    column_max = 1 if codes is None else int(cluster_sums(np.ones((len(codes), 1), np.int64), codes).max())  # largest cluster
    weights = ReplicateWeights(n_units, B, rng=opts.rng, strata=strata, batch=batch,
                               kind="bayesian" if jeffreys else "multinomial", n_columns=4 * m,
                               prior=prior, column_max=column_max)
    counts = np.empty((n_pairs, 2, 2), dtype=np.int64)
    lo, hi = np.empty(n_pairs), np.empty(n_pairs)
    n_undefined = np.empty(n_pairs, dtype=np.int64)
    below, above, n_ok = (np.empty(n_pairs, dtype=np.int64) for _ in range(3))
    jk_p = np.full(n_pairs, np.nan)
    dist = np.empty((n_pairs, B)).T if keep else None  # each pair's replicates contiguous (bootstrap_pair_block)

    def block(sl: Any) -> tuple:  # sl: the block's positions among the pairs (a slice or an array)
        used, local = np.unique(idx[sl], return_inverse=True)
        start = int(sl.start if isinstance(sl, slice) else sl[0])
        own = (right[:, used], seen[:, used]) + ((None if virtual is None else virtual[:, used],) if stored else ())
        return (*own, local.reshape(-1, 2), start, codes, opts, weights, seed, keep)

    body: Any = bootstrap_pair_block
    if stored:
        from trialwise._stats.distributed import computed_first

        body = partial(computed_first, _stored_pair_block)
    if client is not None:
        from trialwise._stats.distributed import task_block_size

        m = task_block_size(client, n_pairs, m, PAIR_STREAM_BLOCK)
    if stored or client is not None:  # tiles of ~√m observers: a block reads (or is sent) two tiles' columns
        from trialwise._stats.distributed import tile_blocks, tile_edges

        edges = tile_edges(right.shape[1], int(np.sqrt(m)), getattr(right, "chunks", (None, None))[1])
        blocks: list[Any] = tile_blocks(idx, edges, m)
    else:  # runs of consecutive pairs
        blocks = [slice(start, min(start + m, n_pairs)) for start in range(0, n_pairs, m)]
    # a local run of pairs (a slice) writes its replicates straight into the kept array (bootstrap_pair_block's `out`)
    into = dist if client is None and not stored else None
    tasks = ((sl, block(sl) + (() if into is None else (into[:, sl],))) for sl in blocks)
    gather_blocks(run_blocks(body, tasks, weights=weights, client=client),
                  rows=dict(counts=counts, lo=lo, hi=hi, n_undefined=n_undefined, below=below, above=above, n_ok=n_ok,
                            jackknife_pvalue=jk_p),
                  columns=dict(dist=dist))
    return dict(counts=counts, intervals=(lo, hi, n_undefined), below=below, above=above, n_ok=n_ok,
                dist=dist, kept=keep, jackknife_pvalue=jk_p)


def _stored_pair_block(right: NDArray, seen: NDArray, virtual: NDArray | None, *args: Any) -> dict[str, Any]:
    """:func:`bootstrap_pair_block` of a block read from storage (``right``/``seen`` read where it
    runs, :func:`trialwise._stats.distributed.computed_first`), with its observers' virtual items
    (:func:`prior_items`, Jeffreys) appended: ``virtual`` travels with the block (N × its observers),
    not with the whole array's graph."""
    if virtual is not None:
        right = np.concatenate([right, virtual])
        seen = np.concatenate([seen, np.ones_like(virtual)])
    return bootstrap_pair_block(right, seen, *args)


@records_seed
def pairwise_error_consistency(
    correct: ArrayLike,
    *,
    truth: ArrayLike | None = None,
    pairs: list[tuple[Any, Any]] | None = None,
    strata: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
    confidence_level: float = 0.95,
    ci_method: CIMethod | None = None,
    test: TestMethod = DEFAULT_TEST,
    n_resamples: int = 10_000,
    unbiased: bool = False,
    rng: Any = None,
    batch: int | None = None,
    keep_replicates: bool | None = None,
    client: Any = None,
) -> PairwiseErrorConsistencyResult:
    """Error consistency of every pair of observers, with jointly resampled intervals.

    Parameters
    ----------
    correct : array_like or pandas.DataFrame, shape (n_items, n_observers)
        Correctness (0/1 or bool) of each observer (column) on each item (row); NaN (or
        another missing value of pandas: ``pd.NA`` of a nullable column, None) means the
        observer did not see the item. DataFrame columns name the observers
        (otherwise they are numbered 0, 1, ...). With ``truth``: the responses (labels),
        missing (NaN/None) = not seen. Or a ``dask.array.Array`` of correctness in storage
        (``da.from_npy_stack``, ``da.from_zarr``), chunked along the observers: each block of
        pairs (a tile: the pairs between two ranges of observers) reads and checks the chunks of
        its observers where it runs (on the workers with ``client``), and the client reads none (not with ``truth`` or
        ``ci_method="analytic"``; docs/distributed.md).
    truth : array_like, shape (n_items,), optional
        The correct label of each item; turns ``correct`` into a table of responses.
    pairs : list of (observer_a, observer_b), optional
        The pairs to compute (default: all pairs, in column order).
    strata : array_like, shape (n_items,), optional
        Item labels (e.g. conditions); items are then resampled within each stratum.
    clusters : array_like, shape (n_items,), optional
        A cluster label per item (a passage, a subject): clusters, not items, are resampled
        (within strata, which must then hold whole clusters), because items of one cluster
        succeed and fail together and resampling them one by one gives intervals that are
        too narrow (docs/benchmark.md, "Clustered items"). ``ci_method="jeffreys"`` is then
        the Bayesian bootstrap over clusters plus the Jeffreys pseudo-counts. At least 2
        clusters: one cluster is an error (every replicate would be the same).
    ci_method : {"jeffreys", "bca", "percentile", "basic", "hdi", "analytic", "jackknife-t"}, optional
        As in :func:`error_consistency`. Default: ``"jeffreys"``; with ``clusters``,
        ``"jackknife-t"``: κ̂ ± t_{G−1}·SE, the SE from leaving out one cluster at a time
        (:func:`trialwise._stats.intervals.jackknife_t_interval`), and the p-value its two-sided t
        test (``test`` reads ``"cluster-jackknife-t"``). With a few dozen clusters or fewer the
        cluster bootstrap under-covers (89 % at 15 clusters) and this interval does not
        (docs/validity.md, "Clustered items"). Every method follows the boundary rule of
        :func:`error_consistency`, pair by pair (a pair at EC = 1 ends at 1 and says so in
        its ``pair_notes``).
    confidence_level, test, n_resamples, unbiased, rng
        As in :func:`error_consistency`.
    batch : int, optional
        Replicates per chunk of the matrix product (default: sized to ~64 MB).
    keep_replicates : bool, optional
        Keep every pair's replicates in ``bootstrap_distribution``, an (n_resamples,
        n_pairs) float64 array: 8·B·n_pairs bytes (1.6 GB for 200 observers at B =
        10,000; 4 GB for 1,000 observers at B = 1,000). Default (None): kept when that is
        at most :data:`KEEP_REPLICATES_BYTES` (256 MiB), else dropped, shape (0, n_pairs),
        and ``notes`` says so.
        The intervals, p-values and ``n_undefined`` are the same either way.
    client : dask.distributed.Client, optional
        Run the blocks of pairs of the bootstrap as tasks on this Dask cluster
        (:mod:`trialwise._stats.distributed`; ``pip install "trialwise[dask]"``). Each task
        regenerates the replicate weights from the seed and returns only its pairs' summaries;
        the result is identical to the one without ``client`` for the same ``rng``, whatever the
        number of workers (docs/distributed.md). Ignored by ``ci_method="analytic"``.

    Returns
    -------
    PairwiseErrorConsistencyResult
        Arrays with one entry per pair; ``to_frame()`` has one row per pair with
        columns ``observer_a, observer_b, statistic, ci_low, ci_high, pvalue, n, ...``;
        ``pair(a, b)`` gives one pair as an :class:`ErrorConsistencyResult`;
        ``bootstrap_distribution`` is (n_resamples, n_pairs), or (0, n_pairs) when the
        replicates were not kept (see ``keep_replicates``).

    Warns
    -----
    DegenerateDataWarning
        Some pairs have an observer who is always correct or wrong on the shared items,
        or share no item (n = 0, EC NaN); or ``clusters`` holds fewer than 10 clusters (the
        intervals and tests then run too narrow; a ``coverage`` note in ``notes``).
    UndefinedReplicatesWarning
        Some pairs had more than 1 % undefined bootstrap replicates.

    Notes
    -----
    All pairs are resampled **jointly**: every replicate draws one multinomial weight
    vector over the items, shared by every pair, so means and differences of ECs across
    pairs have correct bootstrap uncertainty. A pair uses the items both observers saw;
    within a replicate its n is the weighted number of such items. Every table of every
    replicate is a weighted column sum, so the bootstrap is one chunked matrix product
    (:func:`trialwise._stats.resampling.bootstrap_sums`).

    Memory is bounded in the number of pairs as well as in B: the pairs are bootstrapped
    in blocks (:func:`pair_block_size`: about ``m·(24·B + 40·n_items)`` bytes for a block
    of ``m`` pairs, within :data:`PAIR_BLOCK_BYTES` = 256 MiB, at least 128 pairs), each
    block reduced to its intervals and tail counts before the next; every block sees the
    same replicate weights (:class:`trialwise._stats.resampling.ReplicateWeights`, kept when B ×
    n_items × 8 bytes ≤ 128 MiB, else drawn again from the saved stream). Beyond that the
    call holds O(n_items × n_observers + n_pairs) (the tables and per-pair results) and,
    if kept, the replicates. The Jeffreys pseudo-counts are the weights of N virtual items
    seen by every observer (:func:`prior_items`: an orthogonal array, N the smallest power of
    2 above the number of observers, each item ``Gamma(2/N)``), on which each pair's four cells
    get exactly independent ``Gamma(½)`` pseudo-counts; their weights are part of the
    replicate weights, so a seed gives the same numbers whatever the block size.

    Every weighted sum is exact — integer weights, or Bayesian weights rounded per replicate
    to a grid ``2**-k`` fine enough (a step of at most about ``2**-7``) that it changes no interval beyond
    its Monte-Carlo error — so the product runs in float32 and a seed gives the same bits for
    any number of BLAS threads (docs/performance.md, "Speed of the bootstrap engine").

    Examples
    --------
    >>> import numpy as np, pandas as pd, trialwise as tw
    >>> rng = np.random.default_rng(1)
    >>> base = rng.random(400) < 0.7
    >>> obs = {name: np.where(rng.random(400) < 0.5, base, rng.random(400) < 0.7)
    ...        for name in ["ann", "bob", "cnn"]}
    >>> res = tw.pairwise_error_consistency(pd.DataFrame(obs), n_resamples=2000, rng=0)
    >>> res.to_frame()[["observer_a", "observer_b", "n"]].values.tolist()
    [['ann', 'bob', 400], ['ann', 'cnn', 400], ['bob', 'cnn', 400]]
    >>> bool(np.all(res.statistic > 0.1))
    True
    """
    if ci_method is None:
        ci_method = DEFAULT_CI_METHOD if clusters is None else "jackknife-t"
    opts = check_options(confidence_level, ci_method, test, n_resamples, unbiased, rng)
    if keep_replicates is not None and not isinstance(keep_replicates, (bool, np.bool_)):
        raise InvalidTypeError(f"`keep_replicates` must be True, False or None; got {keep_replicates!r}")
    if client is not None:
        from trialwise._stats.distributed import check_client

        check_client(client)
    if _is_dask_array(correct):  # in storage: read block by block (docs/distributed.md)
        right, seen, names = _stored_correctness(correct, truth, opts)
    else:
        v.check_aligned(correct=correct, truth=truth, strata=strata, clusters=clusters)
        right, seen, names = _correctness_matrix(correct, truth)
    idx = np.array(pair_indices(names, pairs), dtype=np.intp).reshape(-1, 2)
    codes = None if clusters is None else cluster_codes(clusters, right.shape[0])
    if codes is not None and opts.ci_method == "analytic":
        raise InvalidValueError("`ci_method`='analytic' treats items as independent; with `clusters` choose a "
                                "resampling interval (jackknife-t, jeffreys, bca, percentile, basic, hdi)")
    if codes is not None and strata is not None:  # strata per cluster
        strata = strata_of_clusters(strata, codes)
    if opts.ci_method == "analytic":
        counts, dist, boot = pairwise_tables(right, seen, idx), None, None
        out = infer(counts, None, opts)
    else:
        boot = _pairwise_bootstrap(right, seen, idx, codes, strata, opts, batch, keep_replicates, client)
        counts, dist = boot["counts"], boot["dist"]
        out = infer(counts, None, opts, intervals=boot["intervals"])
    test_name = opts.test
    if codes is not None and boot is not None and opts.ci_method == "jackknife-t":
        # the tests of EC = 0 on the table treat items as independent: with clusters, the
        # jackknife t test over clusters that the interval inverts (two-sided, G − 1 df)
        out["pvalue"] = np.where(np.isnan(out["statistic"]), np.nan, boot["jackknife_pvalue"])
        test_name = "cluster-jackknife-t"
    elif codes is not None and boot is not None:
        # ... or invert the clusters' bootstrap (two-sided: twice the smaller share of
        # replicates on either side of 0)
        hits = np.minimum(boot["below"], boot["above"])
        out["pvalue"] = np.minimum(1.0, 2.0 * monte_carlo_pvalue(hits, boot["n_ok"]))
        test_name = "cluster-bootstrap"
    s = out["stats"]
    names_arr = np.array(names, dtype=object)
    few = None if codes is None or boot is None else few_clusters_note(int(codes.max()) + 1)
    if few is not None:
        warn(str(few), DegenerateDataWarning)
    return PairwiseErrorConsistencyResult(
        observers=names,
        observer_a=names_arr[idx[:, 0]],
        observer_b=names_arr[idx[:, 1]],
        statistic=out["statistic"],
        confidence_interval=ConfidenceInterval(out["low"], out["high"]),
        pvalue=out["pvalue"],
        n=s.n.astype(np.int64),
        confidence_level=opts.confidence_level,
        method="bias-corrected kappa" if opts.unbiased else "kappa",
        ci_method=opts.ci_method,
        test=test_name,
        counts=counts,
        accuracy_a=s.accuracy_a,
        accuracy_b=s.accuracy_b,
        c_obs=s.c_obs,
        c_exp=s.c_exp,
        kappa_min=out["kappa_min"],
        kappa_max=out["kappa_max"],
        n_resamples=0 if boot is None else opts.n_resamples,
        n_undefined=np.asarray(out["n_undefined"], dtype=np.int64),
        n_undefined_null=np.asarray(out["n_undefined_null"], dtype=np.int64).reshape(-1),
        bootstrap_distribution=np.empty((0, len(idx))) if dist is None else dist,
        pair_notes=tuple(make_notes(("undefined", r), ("coverage", w)) + (() if b is None else (b,))
                         for r, w, b in zip(out["reasons"], out["sparse"], out["boundary"])),
        result_notes=(() if few is None else (few,)) + (() if boot is None or boot["kept"] else (
            "bootstrap_distribution not kept (keep_replicates=False)" if keep_replicates is not None else
            f"bootstrap_distribution not kept: the {opts.n_resamples} × {len(idx)} replicates would take "
            f"{8 * opts.n_resamples * len(idx) / 2**20:,.0f} MiB (more than {KEEP_REPLICATES_BYTES // 2**20} MiB); "
            f"keep_replicates=True keeps them (the intervals and p-values do not depend on it)",)),
    )
