"""The similarity of every pair of models, resampled jointly: pairwise_agreement.

Every pair's point value comes from chunked Gram matrices (:mod:`trialwise.similarity.gram`); the
bootstrap replicates of all pairs come from one set of replicate weights, tile by tile of models
(:func:`bootstrap_agreement_block`, also the task of the Dask path), so differences between pairs have
their joint uncertainty (:meth:`trialwise.similarity.PairwiseAgreementResult.differences`).

Why this module is long: about 540 lines, because the one public function has three inputs that
meet in one bootstrap — a trial table (with clusters and repeated runs), arrays, and blocks of
pairs run here or on Dask workers — and the block kernel, its driver and the leave-one-cluster-out
values the differences need read the same tiles and replicate weights; split, each half would
import the other's private helpers.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.threads import thread_budget
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Note
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.blocks import block_size, gather_blocks, run_blocks
from trialwise._stats.intervals import few_clusters_note
from trialwise._stats.resampling import ReplicateWeights, leave_one_out_sums
from trialwise._stats.streams import records_seed
from trialwise._stats.tables import cluster_sums
from trialwise.ec.blocks import PAIR_BLOCK_BYTES
from trialwise.ec.pairwise import pairwise_error_consistency
from trialwise.io.logs.records import REPLICATE_COLUMN
from trialwise.similarity.capa import (
    AGREEMENT_TILE,
    AgreementCIMethod,
    AgreementMetric,
    array_models,
    capa_from_sums,
    check_options,
    check_units,
    cluster_codes,
    agreement_columns,
    default_ci_method,
    is_dask_array,
    one_hot,
    option_index,
    prob_rows,
    statistic_of_sums,
    pair_summaries,
    truth_indices,
    warn_and_notes,
)
from trialwise.similarity.gram import gram_sums
from trialwise.similarity.results import PairwiseAgreementResult

__all__ = ["pairwise_agreement", "table_models"]

#: The note of a result computed from repeated runs.
_REPLICATES_NOTE = Note("repeated runs (column 'replicate'): every replicate pair of two models counts — each "
                        "question's agreement is the mean over its replicate pairs, chance agreement comes from "
                        "the replicate-averaged marginals, and questions are resampled with all their replicates",
                        "replicates")


def model_tiles(n_models: int, tile: int | None = None) -> Iterator[tuple[NDArray, NDArray]]:
    """The pairs of ``n_models`` models in tiles: models ``[tI, t(I + 1))`` × ``[tJ, t(J + 1))``, I ≤ J.

    Yields every tile's pairs ``(a, b)``, a < b, shape (p, 2), ordered by a then b, and their
    positions among all pairs in ``triu`` order (the order of :func:`pairwise_agreement`); the
    tiles cover every pair once (empty tiles are skipped). ``tile`` defaults to :data:`AGREEMENT_TILE`.
    """
    t = AGREEMENT_TILE if tile is None else int(tile)
    n_blocks = -(-n_models // t)
    for i in range(n_blocks):
        for j in range(i, n_blocks):
            a, b = np.meshgrid(np.arange(i * t, min((i + 1) * t, n_models)),
                               np.arange(j * t, min((j + 1) * t, n_models)), indexing="ij")
            keep = a < b
            a, b = a[keep], b[keep]
            if a.size:  # a last block of one model pairs with nothing on the diagonal
                yield np.column_stack([a, b]).astype(np.intp), a * n_models - a * (a + 1) // 2 + b - a - 1


def bootstrap_agreement_block(probs: Any, k: NDArray, truth: NDArray | None, codes: NDArray | None,
                              tiles: list[NDArray], estimate: NDArray, metric: str, argmax: bool,
                              confidence_level: float, ci_method: str, weights: ReplicateWeights,
                              keep: bool, shares: bool = False, out: tuple[Any, Any, NDArray] | None = None
                              ) -> dict[str, Any]:
    """Intervals, p-values and undefined counts of one block of pairs of :func:`pairwise_agreement`.

    ``probs`` holds the models (models × questions × options: all of them, or those of the
    block — as a Dask array in storage, read here; with ``argmax`` their one-hot argmax choices
    are used), ``tiles`` the block's tiles of pairs (:func:`model_tiles`) as indices into
    them, ``estimate`` the point values of its pairs (tile after tile); ``shares``: choices averaged
    over replicates (:func:`~trialwise.similarity.capa.agreement_columns`). Each tile is
    multiplied by the replicate weights as one float64 product of the columns of its own
    models and pairs: a product's last bits depend on its shape, so fixed tiles give every
    pair the same replicates whatever the block (and the number of workers). Run in this
    process, or as a task on a Dask worker (:mod:`trialwise._stats.distributed`), which gets
    ``weights`` pickled as their stream. Everything returned is O(pairs of the block), plus
    its B × pairs replicates (and jackknife-t's leave-one-unit-out values) when ``keep`` — unless ``out`` =
    (the caller's kept B × all-pairs array, its units × all-pairs array or None, the block's positions in
    them): they are then written there (blocks run on threads write disjoint columns) and not returned.
    """
    if hasattr(probs, "__dask_graph__"):  # in storage: read the block's models here (on the worker)
        probs = np.asarray(probs.compute(scheduler="sync"))
    groups = []
    for pairs in tiles:
        used, local = np.unique(pairs, return_inverse=True)
        gidx = local.reshape(-1, 2)
        tile = np.asarray(probs[used])  # ≤ 2·AGREEMENT_TILE models
        if argmax:  # the discrete metrics of an array: one-hot argmax choices (first on ties)
            tile = (tile.argmax(axis=2)[..., None] == np.arange(tile.shape[2])).astype(np.float64)
        cols = agreement_columns(list(tile), k, truth, gidx, metric, shares)
        units = cols if codes is None else cluster_sums(np.asarray(cols, dtype=float), codes)
        groups.append((units, statistic_of_sums(metric, len(used), gidx)))
    parts: list[list[NDArray]] = [[] for _ in groups]
    for w in weights:
        wf = w.astype(float)
        for part, (units, stat) in zip(parts, groups):
            part.append(stat(wf @ units))
    dist = np.concatenate([np.concatenate(part, axis=0) for part in parts], axis=1)
    jack = (np.concatenate([leave_one_out_sums(units, stat) for units, stat in groups], axis=1)
            if ci_method in ("bca", "jackknife-t") else None)
    low, high, pvalue, n_undefined = pair_summaries(dist, np.asarray(estimate, dtype=float), jack, metric,
                                                confidence_level, ci_method)
    keep_jack = keep and ci_method == "jackknife-t"
    if keep and out is not None:
        out[0][:, out[2]] = dist
        if keep_jack:
            out[1][:, out[2]] = jack
        keep = keep_jack = False
    return dict(lo=low, hi=high, pvalue=pvalue, n_undefined=n_undefined, dist=dist if keep else None,
                jack=jack if keep_jack else None)


def _pairwise_bootstrap(probs: NDArray, k: NDArray, truth: NDArray | None, codes: NDArray | None,
                        estimate: NDArray, opts: dict, batch: int | None, argmax: bool, keep: bool,
                        client: Any, shares: bool = False
                        ) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray | None, NDArray | None]:
    """Every pair's interval, p-value, undefined count (and replicates if ``keep``), block of pairs by block.

    With ``keep`` and ``ci_method="jackknife-t"`` it also returns every pair's leave-one-unit-out
    values (units × pairs; None otherwise), which the differences of pairs need
    (:meth:`PairwiseAgreementResult.difference`).

    A block is a run of tiles (:func:`model_tiles`) of about ``m`` pairs, which need about
    ``m·(24·B + (10 + 2·n_options)·n_questions)`` bytes, ``m`` within
    :data:`trialwise.ec.blocks.PAIR_BLOCK_BYTES`. All blocks see the same replicate weights
    (:class:`trialwise._stats.resampling.ReplicateWeights`, drawn from ``opts["rng"]`` exactly as one
    pass of the unblocked bootstrap). With a Dask ``client`` the blocks run as tasks on its cluster.
    """
    n_models, n_items, width = probs.shape
    n_pairs = n_models * (n_models - 1) // 2
    stored = hasattr(probs, "__dask_graph__")  # a Dask array: each block reads its own models
    n_units = n_items if codes is None else int(codes.max()) + 1
    B = opts["n_resamples"]
    # per pair: its replicates and their sorted copy (24·B), its tile's columns (≈ 9·n), and on a
    # Dask worker its share of the block's probabilities (≈ 8·n·width / AGREEMENT_TILE)
    per_pair = 24 * B + n_items * (10 + 2 * width)
    m = block_size(n_pairs, per_pair, PAIR_BLOCK_BYTES, minimum=AGREEMENT_TILE**2)
    weights = ReplicateWeights(n_units, B, rng=opts["rng"], batch=batch)  # the chunks bootstrap_weights gave
    low, high, pvalue = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
    n_undefined = np.empty(n_pairs, dtype=np.int64)
    dist = np.empty((B, n_pairs)) if keep else None
    jack = np.empty((n_units, n_pairs)) if keep and opts["ci_method"] == "jackknife-t" else None
    if client is not None:
        from trialwise._stats.distributed import task_block_size

        m = task_block_size(client, n_pairs, m, AGREEMENT_TILE)  # runs of whole tiles: at least one per task
    # in memory and in this process: the blocks run on threads, each tile's product on one BLAS thread, as on a
    # Dask worker (the same bits; a multithreaded BLAS on these small products left its threads spinning on the
    # cores: 3.4× the CPU time on 2 busy cores, benchmarks/speed/bench_agreement.py capa-vs-ec). About four
    # blocks per thread balance them; the tiles, not the blocks, fix the numbers.
    threads = client is None and not stored
    if threads:
        n_threads = thread_budget()
        want = -(-n_pairs // (4 * n_threads))
        m = int(min(m, max(AGREEMENT_TILE**2, want)))
        # the first pass here, before the threads replay it (kept if small; rng moves on as always)
        collections.deque(weights, maxlen=0)

    def blocks() -> Iterator[tuple[NDArray, tuple]]:
        run: list[tuple[NDArray, NDArray]] = []
        size = 0  # pairs in the run
        for tile in itertools.chain(model_tiles(n_models), [None]):
            if run and (tile is None or size + len(tile[0]) > m):
                where = np.concatenate([q for _, q in run])
                tiles, models = [p for p, _ in run], probs
                if client is not None or stored:  # the block's models only
                    used, local = np.unique(np.concatenate(tiles), return_inverse=True)
                    at = np.cumsum([0] + [len(p) for p in tiles])
                    tiles = [local.ravel()[2 * at[i]: 2 * at[i + 1]].reshape(-1, 2) for i in range(len(run))]
                    models = probs[used] if stored else np.asarray(probs[used])
                yield where, (models, k, truth, codes, tiles, estimate[where], opts["metric"], argmax,
                              opts["confidence_level"], opts["ci_method"], weights, keep, shares,
                              (dist, jack, where) if threads and dist is not None else None)
                run, size = [], 0
            if tile is not None:
                run.append(tile)
                size += len(tile[0])

    gather_blocks(run_blocks(bootstrap_agreement_block, blocks(), weights=weights, client=client, threads=threads),
                  rows=dict(lo=low, hi=high, pvalue=pvalue, n_undefined=n_undefined), columns=dict(dist=dist, jack=jack))
    return low, high, pvalue, n_undefined, dist, jack


def _check_logged_probabilities(trials: Any, keys: list[str]) -> None:
    """``metric="capa"`` on a table whose multiple-choice trials lack option probabilities: what the log is, what
    to use instead (generation trials, ``n_options`` 0, are left to the generation-task message)."""
    absent = trials["probabilities"].isna().to_numpy() & (trials["n_options"].to_numpy() != 0)
    if not absent.any():
        return
    row = trials.iloc[int(np.flatnonzero(absent)[0])]
    question = "/".join(str(row[k]) for k in keys)
    raise InvalidValueError(f"`metric`='capa' needs the options' probabilities, and {int(absent.sum())} of the "
                            f"{len(trials)} trials have none (`trials.probabilities` is None, e.g. model "
                            f"{str(row['subject'])!r}, question {question}): the log holds no option probabilities, "
                            f"only the chosen option (HELM's joint multiple-choice method, HELM's "
                            f"display_predictions.json, a generation-style run); use metric='capa-discrete' (CAPA on "
                            f"the chosen options), 'choice' (choice agreement) or 'ec' (error consistency)")


def _check_replicates(trials: Any, keys: list[str], codes: NDArray, subject: NDArray) -> bool:
    """Whether a table holds repeated runs (column ``replicate``, some model with two runs of a question);
    one replicate number given twice for a model and question is an error."""
    if REPLICATE_COLUMN not in trials.columns:
        return False
    import pandas as pd

    if (rep := trials[REPLICATE_COLUMN]).isna().any():
        raise InvalidValueError(f"`trials`: column {REPLICATE_COLUMN!r} must number every run (1, 2, ...); "
                                f"{int(rep.isna().sum())} row(s) have none")
    runs = pd.DataFrame({"m": subject, "q": codes, "r": rep.to_numpy()})
    dup = runs.duplicated()
    if dup.any():
        row = trials.iloc[int(np.flatnonzero(dup.to_numpy())[0])]
        raise InvalidValueError(f"`trials`: model {str(row['subject'])!r} has replicate {int(row[REPLICATE_COLUMN])} of "
                                f"question {'/'.join(str(row[k]) for k in keys)} more than once; number the runs "
                                f"of one question 1, 2, ... in column {REPLICATE_COLUMN!r}")
    return bool(runs.duplicated(["m", "q"]).any())


def table_models(trials: Any, metric: str, clusters: Any, agreement_metric: str = "ec"):
    """Trial table → model names, (models × n × K) probabilities, option counts, truth, cluster codes, and
    the repeated runs: None, or (runs, squares), the (models × n) runs of every model on every question and
    the sums over them of ``Σ_o p_r(o)²`` (the probabilities are then each question's mean over its runs).

    ``metric``: ``"capa"`` (probabilities) or ``"response"``; ``agreement_metric``: the metric asked for,
    which decides whether generation tasks (no options) can be read (only ``"ec"``)."""
    import pandas as pd

    if not isinstance(trials, pd.DataFrame):
        raise InvalidTypeError(f"`trials` must be a trial table (pandas.DataFrame, e.g. tw.io.read_lm_eval(...)) or a "
                               f"(models × questions × options) numpy array; got {type(trials).__name__}")
    need = ["subject", "image", "truth", "n_options"] + (["probabilities"] if metric == "capa" else ["response"])
    missing = [c for c in need if c not in trials.columns]
    if missing:
        raise InvalidValueError(f"`trials` lacks the column(s) {missing} (metric={metric!r}); "
                                f"read evaluation logs with tw.io.read_lm_eval or tw.io.read_helm")
    if clusters is not None and (not isinstance(clusters, str) or clusters not in trials.columns):
        raise InvalidValueError(f"`clusters` must name a column of `trials`; got {v.show(clusters)}")
    keys = ["condition", "image"] if "condition" in trials.columns else ["image"]
    if metric == "capa":
        _check_logged_probabilities(trials, keys)
    item = pd.MultiIndex.from_frame(trials[keys].astype(str))
    codes, uniques = pd.factorize(item)
    subject, models_index = pd.factorize(trials["subject"])
    models = list(models_index)
    by_model = np.argsort(subject, kind="stable")
    starts = np.searchsorted(subject[by_model], np.arange(len(models) + 1))
    n = len(uniques)
    first = np.unique(codes, return_index=True)[1]
    k = trials["n_options"].to_numpy()[first].astype(np.int64)
    generation = k == 0  # read_lm_eval(score=...): generation tasks, scored right or wrong, no options
    if generation.any():
        where = trials[keys].iloc[first[np.flatnonzero(generation)[0]]].astype(str).tolist()
        if agreement_metric != "ec":
            raise InvalidValueError(f"`trials`: generation task (n_options 0), e.g. question {'/'.join(where)}: "
                                    f"metric={agreement_metric!r} needs options (capa/choice compare the options chosen); "
                                    f"use metric='ec' (error consistency, from `correct` only)")
        if "correct" not in trials.columns:
            raise InvalidValueError("`trials` lacks the column 'correct', which metric='ec' needs on generation "
                                    "tasks (n_options 0)")
        k = np.where(generation, 2, k)  # coded as two options, wrong (0) and right (1): EC needs correctness only
    truth = truth_indices(np.where(generation, 1, trials["truth"].to_numpy(dtype=object)[first]), k)
    width = int(k.max())
    cl = None
    if clusters is not None:
        labels = trials[clusters].to_numpy(dtype=object)[first]
        cl = cluster_codes(labels, n)
    probs = np.zeros((len(models), n, width))
    replicated = _check_replicates(trials, keys, codes, subject)
    runs, squares = np.zeros((len(models), n)), np.zeros((len(models), n))
    for i, m in enumerate(models):
        rows = by_model[starts[i]: starts[i + 1]]
        got = codes[rows]
        if len(np.unique(got)) != n or (len(got) != n and not replicated):
            raise InvalidValueError(f"`trials`: model {m!r} answers {len(np.unique(got))} of the {n} questions "
                                    f"(or one twice); agreement needs every model on every question "
                                    f"(read the logs with unaligned='drop', e.g. tw.io.read_lm_eval(paths, "
                                    f"unaligned='drop'), to keep only the questions every model answered)")
        p = np.zeros((len(rows), width))
        if metric == "capa":
            prow, _ = prob_rows(list(trials["probabilities"].to_numpy()[rows]), "trials.probabilities")
            p[:, : prow.shape[1]] = prow
        else:
            resp = np.array([option_index(r, kk == 2) for r, kk in zip(trials["response"].to_numpy()[rows], k[got])],
                            dtype=np.int64)
            if generation.any():
                resp = np.where(generation[got], trials["correct"].to_numpy()[rows].astype(bool), resp)
            p[:] = one_hot(np.where(resp < k[got], resp, -1), width)
        if not replicated:  # one run per question
            probs[i, got] = p
        else:  # repeated runs: each question's probabilities (one-hot choices) averaged over its replicates
            sums = cluster_sums(np.column_stack([p, np.ones(len(got)), np.einsum("ro,ro->r", p, p)]), got)
            probs[i], runs[i], squares[i] = sums[:, :width] / sums[:, width:width + 1], sums[:, width], sums[:, -1]
    return models, probs, k, truth, cl, (runs, squares) if replicated else None


@records_seed
def pairwise_agreement(
    trials: Any,
    *,
    truth: ArrayLike | None = None,
    n_options: ArrayLike | None = None,
    metric: AgreementMetric = "capa",
    clusters: Any = None,
    confidence_level: float = 0.95,
    ci_method: AgreementCIMethod | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    batch: int | None = None,
    keep_replicates: bool | None = None,
    client: Any = None,
) -> PairwiseAgreementResult:
    """Agreement of every pair of models in a trial table, with jointly resampled intervals.

    Parameters
    ----------
    trials : pandas.DataFrame or numpy.ndarray, shape (n_models, n_questions, n_options)
        A trial table of evaluation logs (:func:`trialwise.io.read_lm_eval`,
        :func:`trialwise.io.read_helm`, :func:`trialwise.datasets.llm_demo`): one row per model
        (``subject``) and question (``condition`` + ``image``), with ``truth``,
        ``n_options``, and ``probabilities`` (``"capa"``) or ``response`` (the others).
        Every model must answer every question. Repeated runs (rows numbered by a column ``replicate``)
        use every replicate pair: each question's probabilities (choices, correctness) are averaged over
        its runs, and questions resampled with all of them (docs/language_models.md, "Repeated runs").
        Or, at leaderboard scale (a 1,000-model
        table has 12 million rows), the option probabilities as one array, zero-padded
        beyond a question's ``n_options``; the observers are then numbered 0 … M − 1 and
        the array is read in chunks, not copied. The array may be a ``dask.array.Array`` in
        storage (``da.from_npy_stack``, ``da.from_zarr``; chunked along the models): the
        point values read it a chunk of questions at a time, and each block of the
        bootstrap reads the models of its tiles only — on the workers with ``client``
        (not ``metric="ec"``; docs/distributed.md).
    truth : array_like of int, shape (n_questions,)
        With an array ``trials`` only: the correct option's index per question.
    n_options : array_like of int, shape (n_questions,), optional
        With an array ``trials`` only: options per question (default: all of the last axis).
    metric : {"capa", "capa-discrete", "choice", "ec"}, default "capa"
        As in :func:`agreement`; ``capa-discrete`` and ``choice`` use the logged
        ``response`` of a table (the argmax of an array). A response that maps to no option
        (``"na"`` from :func:`trialwise.io.read_helm`: a refusal, a malformed letter) is no
        option: it is wrong, and two of them are not the same choice — they may be different
        non-answers, and counting them as agreeing would make models that fail alike look
        alike (the readers count them in ``attrs["log"]["noted"]``); ``ec`` is
        :func:`trialwise.pairwise_error_consistency` on the correctness (its Jeffreys
        interval and Fisher test).
    clusters : str or array_like, optional
        A column of ``trials`` (e.g. ``"cluster"`` from ``read_lm_eval(..., clusters=...)``),
        or with an array one label per question, whose values group questions; clusters
        are resampled as wholes.
    confidence_level, ci_method, rng
        As in :func:`agreement`.
    n_resamples : int, default 10000
        Bootstrap replicates B; ``0`` gives the point values only (intervals and p-values
        NaN, ``bootstrap_distribution`` of shape (0, n_pairs); not for ``"ec"``), computed
        without the per-question pair columns (see Notes).
    batch : int, optional
        Replicates per chunk of the matrix product.
    keep_replicates : bool, optional
        Keep every pair's replicates in ``bootstrap_distribution`` (n_resamples × n_pairs
        float64: 4 GB for 1,000 models at B = 1,000), which :meth:`~PairwiseAgreementResult.difference`
        needs. Default (None): kept (``"ec"``: as :func:`trialwise.pairwise_error_consistency`
        keeps them); ``False``: shape (0, n_pairs). Intervals and p-values are the same either way.
        With ``ci_method="jackknife-t"`` (the default with clusters) every pair's
        leave-one-unit-out values are kept too, in ``jackknife_values`` (units × n_pairs:
        clusters, or questions without clusters), from which ``difference`` makes its
        jackknife t interval.
    client : dask.distributed.Client, optional
        Run the blocks of pairs of the bootstrap as tasks on this Dask cluster
        (:mod:`trialwise._stats.distributed`; ``pip install "trialwise[dask]"``). Each task gets the
        probabilities of its block's models, draws the replicate weights again from the seed
        and returns its pairs' intervals and p-values; the result is identical to the one
        without ``client`` for the same ``rng``, whatever the number of workers
        (docs/distributed.md).

    Returns
    -------
    PairwiseAgreementResult
        ``to_frame()`` has the columns of :func:`trialwise.pairwise_error_consistency`
        (``observer_a, observer_b, statistic, ci_low, ci_high, pvalue, n``, ...).

    Raises
    ------
    InvalidValueError
        ``metric="capa"`` on a table whose trials have no option probabilities (a log of
        HELM's joint multiple-choice method, or of its ``display_predictions.json``, holds
        only the chosen option): the message says so and names ``"capa-discrete"``,
        ``"choice"`` and ``"ec"``, which use the chosen option or the correctness; a model
        that does not answer every question; generation tasks (``n_options`` 0) with a
        metric other than ``"ec"``.

    Warns
    -----
    DegenerateDataWarning, UndefinedReplicatesWarning
        As in :func:`agreement`.

    See Also
    --------
    agreement, pairwise_error_consistency

    Notes
    -----
    Point values: with ``X`` the (models × questions·options) matrix of probabilities,
    ``Σ_q Σ_o p_A(o) p_B(o) = (X Xᵀ)[A, B]``, so every pair's ``c_obs`` is one Gram matrix,
    accumulated in float64 over chunks of questions
    (:func:`trialwise.similarity.gram.gram_sums`; memory beyond the
    input: about two 8 MB chunks plus the M × M Gram matrix, whatever the number of
    questions), and κ_p follows from the same sums as the bootstrap's
    (:func:`capa_from_sums`). Bootstrap: one weight vector over the questions (clusters)
    per replicate is shared by every pair, so every replicate is a chunked product ``W @ X``
    of the per-question columns. The pairs are taken in tiles of 16 × 16 models
    (:func:`model_tiles`, :data:`AGREEMENT_TILE`), each one product with the columns of its
    ≤ 32 models and ≤ 256 pairs, and in blocks of tiles within
    :data:`trialwise.ec.blocks.PAIR_BLOCK_BYTES` (256 MiB), each reduced to its intervals and
    p-values before the next: memory beyond the input and the result is bounded whatever the
    number of pairs, and, the tiles being fixed, the numbers do not depend on the blocks.
    Without ``client`` the blocks run on threads (the thread budget of
    :func:`trialwise._core.threads.thread_budget`, about four blocks each; memory then up to one
    block per thread), each product on one BLAS thread, as on a Dask worker: the numbers are the
    same for any number of threads and equal to the Dask path's, bit for bit (before issue 33 the
    products ran on numpy's multithreaded BLAS, whose interval ends differed from these by up to
    3·10⁻¹⁶; docs/performance.md, "All pairs (issue 33)").
    ``pvalue`` is as in
    :func:`agreement` (NaN for ``"choice"``). Timings: ``docs/language_models.md``, "Speed".

    References
    ----------
    S. Goel et al. (2025), "Great Models Think Alike and this Undermines AI Oversight",
    arXiv:2502.04313.

    Examples
    --------
    >>> import trialwise as tw
    >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), clusters="cluster", n_resamples=500, rng=0)
    >>> print(res.to_frame()[["observer_a", "observer_b", "statistic", "ci_low", "ci_high"]].round(3).tail(2).to_string(index=False))
     observer_a       observer_b  statistic  ci_low  ci_high
    sim/demo-1b sim/demo-7b-chat      0.133   0.098    0.167
    sim/demo-7b sim/demo-7b-chat      0.244   0.216    0.272
    """
    opts = check_options(metric, confidence_level, default_ci_method(ci_method, clusters), n_resamples, rng)
    metric = opts["metric"]
    if keep_replicates is not None and not isinstance(keep_replicates, (bool, np.bool_)):
        raise InvalidTypeError(f"`keep_replicates` must be True, False or None; got {v.show(keep_replicates)}")
    if client is not None:
        from trialwise._stats.distributed import check_client

        check_client(client)
    if isinstance(trials, np.ndarray) or is_dask_array(trials):
        if metric == "ec" and not isinstance(trials, np.ndarray):
            raise InvalidValueError("metric='ec' needs the array in memory; for error consistency of stored "
                                    "correctness use tw.pairwise_error_consistency; got a Dask array")
        models, probs, k, truth_idx, codes = array_models(trials, truth, n_options, clusters)
        from_array, replicated = True, False
    else:
        if truth is not None or n_options is not None:
            raise InvalidValueError("`truth` and `n_options` go with an array `trials`; a trial table holds them as "
                                    f"columns; got truth={v.show(truth)}, n_options={v.show(n_options)}")
        models, probs, k, truth_idx, codes, reps = table_models(
            trials, "capa" if metric == "capa" else "response", clusters, metric)
        from_array, replicated = False, reps is not None
    if len(models) < 2:
        raise InvalidValueError(f"`trials` needs at least 2 models (subject); got {models}")
    n_models, n = len(models), k.size
    idx = np.column_stack(np.triu_indices(n_models, 1)).astype(np.intp)
    names = np.array(models, dtype=object)
    if metric == "ec" and replicated:  # κ on replicate-mean correctness: CAPA's sums on (wrong, right), below
        right = probs[:, np.arange(n), truth_idx]
        probs, k, truth_idx = np.stack([1.0 - right, right], axis=2), np.full(n, 2), np.ones(n, dtype=np.int64)
        opts = {**opts, "metric": "capa"}
    elif metric == "ec":
        import pandas as pd

        rows = np.arange(n)
        right = {m: (p.argmax(axis=1) == truth_idx) if from_array else p[rows, truth_idx] for m, p in zip(models, probs)}
        ec = pairwise_error_consistency(pd.DataFrame(right), clusters=codes, confidence_level=opts["confidence_level"],
                                        n_resamples=opts["n_resamples"], rng=opts["rng"], batch=batch,
                                        keep_replicates=keep_replicates, client=client)
        return PairwiseAgreementResult(
            observers=tuple(models), observer_a=ec.observer_a, observer_b=ec.observer_b, statistic=ec.statistic,
            confidence_interval=ec.confidence_interval, pvalue=ec.pvalue, n=ec.n,
            confidence_level=ec.confidence_level, method="ec", ci_method=ec.ci_method,
            n_clusters=int(n) if codes is None else int(codes.max()) + 1,
            c_obs=ec.c_obs, c_exp=ec.c_exp, p_correct_a=ec.accuracy_a, p_correct_b=ec.accuracy_b,
            n_resamples=ec.n_resamples, n_undefined=ec.n_undefined,
            bootstrap_distribution=ec.bootstrap_distribution, pair_notes=ec.pair_notes,
            result_notes=tuple(n for n in ec.result_notes if getattr(n, "kind", "") == "coverage"))
    # point values: one Gram matrix (argmax choices of an array for the discrete metrics)
    correct, gram = gram_sums(probs, k, truth_idx, choices=from_array and metric != "capa", check=from_array)
    sums = np.concatenate([[n, np.sum(1.0 / (k - 1))], correct, gram[idx[:, 0], idx[:, 1]]])
    if metric == "choice":
        est, c_obs, c_exp = sums[2 + n_models:] / n, sums[2 + n_models:] / n, np.full(len(idx), np.nan)
    else:
        est, c_obs, c_exp = capa_from_sums(sums, n_models, idx)
    units = n if codes is None else int(codes.max()) + 1
    if opts["n_resamples"]:
        check_units(n, codes, "`trials`")
        low, high, pval, n_undef, dist, jack = _pairwise_bootstrap(
            probs, k, truth_idx, codes, np.asarray(est, dtype=float), opts, batch,
            from_array and metric == "capa-discrete", keep_replicates is not False, client, replicated)
        if dist is None:
            dist = np.empty((0, len(idx)))
    else:
        nan = np.full(len(idx), np.nan)
        low, high, pval, dist, jack = nan, nan.copy(), nan.copy(), np.empty((0, len(idx))), None
        n_undef = np.zeros(len(idx), dtype=np.int64)
    pbar = correct / n
    notes = warn_and_notes(names[idx[:, 0]], names[idx[:, 1]], est, n_undef, opts["n_resamples"])
    few = few_clusters_note(units) if codes is not None and opts["n_resamples"] else None
    if few is not None:
        warn(str(few), DegenerateDataWarning)
    return PairwiseAgreementResult(
        observers=tuple(models), observer_a=names[idx[:, 0]], observer_b=names[idx[:, 1]], statistic=est,
        confidence_interval=ConfidenceInterval(low, high), pvalue=pval,
        n=np.full(len(idx), n, dtype=np.int64), confidence_level=opts["confidence_level"], method=metric,
        ci_method=opts["ci_method"], n_clusters=int(units), c_obs=np.asarray(c_obs), c_exp=np.asarray(c_exp),
        p_correct_a=pbar[idx[:, 0]], p_correct_b=pbar[idx[:, 1]], n_resamples=opts["n_resamples"],
        n_undefined=np.asarray(n_undef, dtype=np.int64), bootstrap_distribution=dist,
        jackknife_values=np.empty((0, len(idx))) if jack is None else jack, pair_notes=notes,
        result_notes=(() if few is None else (few,)) + ((_REPLICATES_NOTE,) if replicated else ()))
