"""Agreement between classifiers from their option probabilities: CAPA (κ_p), its discrete form, choice agreement.

Every statistic here is a smooth function of **means of per-question columns**: per
question q, ``x_q = Σ_o p_A(o) p_B(o)`` (one column per pair), ``a_q = p_A(truth_q)`` (one
per model) and ``g_q = 1/(k_q − 1)``. A bootstrap replicate is then one weight vector over
the questions (or over clusters of questions, whose columns are summed first) times the
column matrix, as in :func:`trialwise.pairwise_error_consistency`; all pairs are resampled
jointly. Error consistency (``metric="ec"``) is delegated to
:func:`trialwise.error_consistency` / :func:`trialwise.pairwise_error_consistency`.

Why this module is long (about 880 lines): its two entry points share the input checks of
probability rows, arrays, truth and clusters, the column builder and the interval code, the
pairwise bootstrap runs in blocks of tiles of pairs (in this process or as Dask tasks), and
each has a full numpydoc docstring; the result classes live in
:mod:`trialwise.similarity.results`, the chunked Gram path of the point values in
:mod:`trialwise.similarity.gram`.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterator
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, make_notes
from trialwise._stats.resampling import ReplicateWeights, bootstrap_weights
from trialwise._stats.monte_carlo import monte_carlo_pvalue
from trialwise._stats.streams import records_seed
from trialwise._core.warnings import DegenerateDataWarning, UndefinedReplicatesWarning, warn
from trialwise.similarity.gram import gram_sums
from trialwise.similarity.results import ModelAgreementResult, PairwiseAgreementResult
from trialwise.io.trials import PROBABILITY_SUM_TOLERANCE
from trialwise.ec.pair import error_consistency
from trialwise.ec.blocks import PAIR_BLOCK_BYTES
from trialwise.ec.pairwise import pairwise_error_consistency
from trialwise._stats.intervals import interval, jackknife_t_pvalue
from trialwise.io.labels import label_number
from trialwise._stats.tables import cluster_sums

__all__ = ["agreement", "pairwise_agreement", "capa_from_sums", "AGREEMENT_METRICS", "AGREEMENT_CI_METHODS",
           "DEFAULT_AGREEMENT_CI_METHOD"]

AgreementMetric = Literal["capa", "capa-discrete", "choice", "ec"]
AGREEMENT_METRICS: tuple[AgreementMetric, ...] = get_args(AgreementMetric)
AgreementCIMethod = Literal["percentile", "bca", "bc", "basic", "jackknife-t"]
AGREEMENT_CI_METHODS: tuple[AgreementCIMethod, ...] = get_args(AgreementCIMethod)
#: Default interval: see the coverage study in docs/language_models.md (benchmarks/calibration/agreement_coverage.py).
DEFAULT_AGREEMENT_CI_METHOD: AgreementCIMethod = "percentile"
#: ``1 − c_exp`` at or below this: chance agreement is 1 and κ_p is undefined (NaN).
DEGENERATE_GAP = 1e-12
UNDEFINED_WARN_SHARE = 0.01
#: Models per side of a tile of pairs in :func:`pairwise_agreement`'s bootstrap (:func:`model_tiles`):
#: each tile of up to 16² pairs is one matrix product with the columns of its own ≤ 32 models.
#: Fixed, so that the blocks chosen by memory or by a Dask cluster do not change the numbers.
AGREEMENT_TILE = 16


# ----------------------------------------------------------------------------- input checks

def _prob_rows(rows: Any, name: str) -> tuple[NDArray, NDArray]:
    """Probability rows → (n, K_max) float array padded with zeros, and the option counts."""
    if rows is None or isinstance(rows, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be per-question probability rows (2-D); got {v.show(rows)}")
    if hasattr(rows, "to_numpy"):  # a DataFrame: questions × options
        rows = rows.to_numpy()
    arr = rows if isinstance(rows, np.ndarray) else _numeric_or_object(rows)
    if arr.ndim == 2 and arr.dtype != object:
        padded, k = v.as_float_array(arr, name), np.full(arr.shape[0], arr.shape[1])
    else:
        try:
            seqs = [v.as_float_array(r, name) for r in rows]
        except InvalidValueError as exc:
            raise InvalidValueError(f"`{name}` must be per-question probability rows; got {v.show(rows)}") from exc
        if any(s.ndim != 1 for s in seqs):
            raise InvalidValueError(f"`{name}` must be per-question probability rows (a sequence of 1-D rows); "
                                    f"got {v.show(rows)}")
        k = np.array([s.size for s in seqs], dtype=np.int64)
        padded = np.zeros((len(seqs), int(k.max(initial=0))))
        for i, s in enumerate(seqs):
            padded[i, : s.size] = s
    if padded.ndim != 2 or padded.shape[0] == 0:
        raise InvalidValueError(f"`{name}` must hold at least one question (2-D: questions × options); "
                                f"got shape {padded.shape}")
    if (k < 2).any():
        i = int(np.flatnonzero(k < 2)[0])
        raise InvalidValueError(f"`{name}` needs at least 2 options per question; question {i} has {k[i]}")
    bad_value = ~np.isfinite(padded) | (padded < 0)
    if bad_value.any():
        raise InvalidValueError(f"`{name}` must hold finite probabilities ≥ 0; found {float(padded[bad_value][0]):g}")
    sums = padded.sum(axis=1)
    bad = np.abs(sums - 1) > PROBABILITY_SUM_TOLERANCE  # the trial table's (and lm-sim's epsilon)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidValueError(f"`{name}` rows must sum to 1 (softmax probabilities or one-hot); "
                                f"question {i} sums to {sums[i]:.6g}")
    return padded, k


def _numeric_or_object(rows: Any) -> NDArray:
    """Rows of one length of real numbers as one numeric array (a list column of a 12-million-row table
    converts in one call, not row by row); anything else as an object array, for the row-by-row checks."""
    try:
        arr = np.asarray(rows)
    except (ValueError, TypeError):  # ragged rows
        arr = None
    if arr is not None and arr.ndim == 2 and arr.dtype.kind in "biuf":
        return arr
    return np.asarray(rows, dtype=object)


def _truth_indices(truth: Any, k: NDArray, name: str = "truth") -> NDArray:
    vals = np.asarray(truth, dtype=object).ravel() if truth is not None else None
    if vals is None or np.ndim(truth) != 1 or vals.size != k.size:
        raise InvalidValueError(f"`{name}` must hold one correct option index per question ({k.size}); "
                                f"got {v.show(truth)}")
    out = np.empty(vals.size, dtype=np.int64)
    for i, t in enumerate(vals):
        if isinstance(t, str) and t.strip().lstrip("-").isdigit():
            t = int(t)
        if isinstance(t, bool) or not isinstance(t, numbers.Integral) and not (
                isinstance(t, numbers.Real) and float(t).is_integer()):
            raise InvalidTypeError(f"`{name}` must hold option indices (0, 1, ...); got {t!r} at question {i}")
        out[i] = int(float(t))
    bad = (out < 0) | (out >= k)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidValueError(f"`{name}` must be an option index below the question's number of options; "
                                f"question {i} has truth {out[i]} and {k[i]} options")
    return out


def _option_index(response: Any, two_options: bool) -> int:
    """A logged response as an option index by the rule of :mod:`trialwise.io.labels` (``"1"``, ``"1.0"``, ``1.0``,
    ``True`` are option 1); -1 (no option: counted wrong) for anything else, e.g. ``"na"``. ``"true"``/``"false"``
    text is 1/0 only on a question with ``two_options`` (as the rule reads it among 0/1 labels); among more
    options it is counted wrong, not option 1."""
    x = label_number(response, truth_words=two_options) if isinstance(response, str) else response
    if isinstance(x, (numbers.Real, np.bool_)) and math.isfinite(float(x)) and float(x).is_integer():
        return int(float(x))
    return -1


def _cluster_codes(clusters: Any, n: int) -> NDArray | None:
    if clusters is None:
        return None
    import pandas as pd

    labels = np.asarray(clusters, dtype=object)
    if labels.shape != (n,):
        raise InvalidValueError(f"`clusters` must have one label per question ({n}); got shape {labels.shape}")
    codes, _ = pd.factorize(pd.Series(labels), use_na_sentinel=True)
    if (codes < 0).any():
        raise InvalidValueError(f"`clusters` has a missing label at question {int(np.flatnonzero(codes < 0)[0])}")
    return np.asarray(codes, dtype=np.int64)


def _is_dask_array(x: Any) -> bool:
    return hasattr(x, "__dask_graph__") and hasattr(x, "chunks") and hasattr(x, "ndim")


def _one_hot(choice: NDArray, k_max: int) -> NDArray:
    out = np.zeros((choice.size, k_max))
    ok = choice >= 0
    out[np.flatnonzero(ok), choice[ok]] = 1.0
    return out


def _array_models(trials: NDArray, truth: Any, n_options: Any, clusters: Any):
    """A (models × questions × options) array → names 0..M−1, the array (not copied), option counts, truth, codes."""
    if trials.ndim != 3 or min(trials.shape) == 0:
        raise InvalidValueError(f"`trials` as an array must be 3-D (models × questions × options) and not empty; "
                                f"got shape {trials.shape}")
    if not (np.issubdtype(trials.dtype, np.floating) or np.issubdtype(trials.dtype, np.integer)):
        raise InvalidTypeError(f"`trials` must hold probabilities (a float array); got dtype {trials.dtype}")
    m, n, width = trials.shape
    if width < 2:
        raise InvalidValueError(f"`trials` needs at least 2 options per question; got shape {trials.shape}")
    if n_options is None:
        k = np.full(n, width, dtype=np.int64)
    else:
        k = np.asarray(n_options)
        if k.shape != (n,) or not np.issubdtype(k.dtype, np.integer):
            raise InvalidValueError(f"`n_options` must hold one whole number of options per question ({n}); "
                                    f"got {v.show(n_options)}")
        k = k.astype(np.int64)
        if ((k < 2) | (k > width)).any():
            i = int(np.flatnonzero((k < 2) | (k > width))[0])
            raise InvalidValueError(f"`n_options` must be in [2, {width}] (the array's last axis); "
                                    f"question {i} has {k[i]}")
    if truth is None:
        raise InvalidValueError("`truth` is needed with an array `trials` (the correct option of each question)")
    return list(range(m)), trials, k, _truth_indices(truth, k), _cluster_codes(clusters, n)


# ----------------------------------------------------------------------------- the kernel

def capa_from_sums(sums: ArrayLike, n_models: int, pairs: ArrayLike) -> tuple[NDArray, NDArray, NDArray]:
    """κ_p, c_obs and c_exp of every pair from weighted column sums.

    Parameters
    ----------
    sums : array_like, shape (..., 2 + n_models + n_pairs)
        Weighted sums of the columns ``[1, 1/(k_q − 1), p_m(truth_q) for every model,
        Σ_o p_A(o) p_B(o) for every pair]``.
    n_models : int
    pairs : array_like of int, shape (n_pairs, 2)
        The models (column positions) of every pair.

    Returns
    -------
    kappa, c_obs, c_exp : ndarray, shape (..., n_pairs)
        κ_p is NaN where ``1 − c_exp ≤ DEGENERATE_GAP``.

    Notes
    -----
    ``c_obs = mean_q Σ_o p_A p_B``, ``p̄_m = mean_q p_m(truth_q)``, ``f = mean_q 1/(k_q − 1)``,
    ``c_exp = p̄_A p̄_B + f (1 − p̄_A)(1 − p̄_B)``, ``κ_p = (c_obs − c_exp)/(1 − c_exp)``
    (Goel et al. 2025, eq. 1–3).
    """
    s = np.asarray(sums, dtype=float)
    idx = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = s[..., :1]
        f = s[..., 1:2] / n
        pbar = s[..., 2: 2 + n_models] / n
        c_obs = s[..., 2 + n_models:] / n
        pa, pb = pbar[..., idx[:, 0]], pbar[..., idx[:, 1]]
        c_exp = pa * pb + f * (1 - pa) * (1 - pb)
        gap = 1 - c_exp
        kappa = np.where(gap > DEGENERATE_GAP, (c_obs - c_exp) / np.where(gap > DEGENERATE_GAP, gap, 1.0), np.nan)
    return kappa, c_obs, c_exp


def _columns(probs: Any, k: NDArray, truth: NDArray | None, idx: NDArray, metric: str) -> NDArray:
    """(n, 2 + M + P) columns for CAPA; (n, 1 + P) for choice agreement (Fortran order, filled in place)."""
    n, n_models = k.size, len(probs)
    lead = 1 if metric == "choice" else 2 + n_models
    cols = np.empty((n, lead + len(idx)), order="F")  # one allocation: 0.5 GB for 100 models × 12,000 questions
    cols[:, 0] = 1.0
    if metric == "choice":
        choice = [np.where(p.max(1) > 0, p.argmax(1), -1) for p in probs]
        for j, (a, b) in enumerate(idx):
            cols[:, lead + j] = (choice[a] == choice[b]) & (choice[a] >= 0)
        return cols
    rows = np.arange(n)
    cols[:, 1] = 1.0 / (k - 1)
    for m, p in enumerate(probs):
        cols[:, 2 + m] = p[rows, truth]
    for j, (a, b) in enumerate(idx):
        cols[:, lead + j] = np.einsum("qo,qo->q", probs[a], probs[b])
    return cols


def _statistic(metric: str, n_models: int, idx: NDArray):
    if metric == "choice":
        def choice(sums: NDArray) -> NDArray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return sums[..., 1:] / sums[..., :1]
        return choice
    return lambda sums: capa_from_sums(sums, n_models, idx)[0]


def _resample(cols: NDArray, codes: NDArray | None, stat, n_resamples: int, rng: np.random.Generator,
              batch: int | None) -> tuple[NDArray, NDArray]:
    """Bootstrap replicates of ``stat`` (items, or clusters whose columns are summed first) and the unit columns."""
    units = cols if codes is None else cluster_sums(np.asarray(cols, dtype=float), codes)
    out = [stat(w.astype(float) @ units) for w in bootstrap_weights(units.shape[0], n_resamples, rng=rng, batch=batch)]
    return np.concatenate(out, axis=0), units


def _jackknife(units: NDArray, stat) -> NDArray:
    total = units.sum(axis=0)
    chunk = max(1, 2**22 // max(units.shape[1], 1))
    return np.concatenate([stat(total - units[i: i + chunk]) for i in range(0, units.shape[0], chunk)], axis=0)


def _check_units(n_questions: int, codes: NDArray | None, data: str) -> None:
    """An error unless there are 2 or more questions (clusters, with ``codes``) to resample: the bootstrap of one
    has no spread, so its interval would have no width (a jackknife over one cluster: NaN)."""
    if codes is None and n_questions < 2:
        raise InvalidValueError(f"{data} {'hold' if ' and ' in data else 'holds'} {n_questions} question: an interval that resamples questions needs at "
                                f"least 2; pass n_resamples=0 for the point value only")
    n_clusters = int(codes.max()) + 1 if codes is not None and codes.size else 0
    if codes is not None and n_clusters < 2:
        raise InvalidValueError(f"`clusters` holds {n_clusters} cluster: an interval that resamples clusters needs "
                                f"at least 2; pass clusters=None to resample questions, or n_resamples=0 for the "
                                f"point value only")


def _infer(cols, codes, metric, n_models, idx, opts, batch, estimate=None):
    stat = _statistic(metric, n_models, idx)
    if estimate is None:
        estimate = stat(cols.sum(axis=0))
    if opts["n_resamples"] == 0:  # point values only
        nan = np.full(np.size(estimate), np.nan)
        n_units = len(cols) if codes is None else int(codes.max()) + 1
        return (estimate, nan, nan.copy(), nan.copy(), np.empty((0, np.size(estimate))),
                np.zeros(np.size(estimate), dtype=np.int64), n_units)
    _check_units(len(cols), codes, "`a` and `b`")
    dist, units = _resample(cols, codes, stat, opts["n_resamples"], opts["rng"], batch)
    jack = _jackknife(units, stat) if opts["ci_method"] in ("bca", "jackknife-t") else None
    low, high, pvalue, n_undefined = _summaries(dist, estimate, jack, metric, opts["confidence_level"],
                                                opts["ci_method"])
    return estimate, low, high, pvalue, dist, n_undefined, units.shape[0]


def _summaries(dist: NDArray, estimate: NDArray, jack: NDArray | None, metric: str, confidence_level: float,
               ci_method: str) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Interval, p-value and undefined count of every column (pair) of ``dist`` (B, P)."""
    bounds = (0.0, 1.0) if metric == "choice" else (-np.inf, 1.0)
    jk = None if jack is None else (jack, None)
    low, high = interval(ci_method, dist, estimate, confidence_level, jackknife=jk, bounds=bounds)
    low, high = np.where(np.isnan(estimate), np.nan, low), np.where(np.isnan(estimate), np.nan, high)
    n_undefined = np.isnan(dist).sum(axis=0)
    if metric == "choice":
        pvalue = np.full(np.shape(estimate), np.nan)
    elif ci_method == "jackknife-t" and jack is not None:  # one-sided t test of κ_p ≤ 0, G − 1 df
        pvalue = np.where(np.isnan(estimate), np.nan, jackknife_t_pvalue(estimate, jack))
    else:  # one-sided, H0: κ_p ≤ 0, the test the percentile interval inverts
        pvalue = monte_carlo_pvalue(np.sum(dist <= 0, axis=0), np.sum(~np.isnan(dist), axis=0))
        pvalue = np.where(np.isnan(estimate), np.nan, pvalue)
    return np.atleast_1d(low), np.atleast_1d(high), np.atleast_1d(pvalue), n_undefined


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
                              keep: bool) -> dict[str, Any]:
    """Intervals, p-values and undefined counts of one block of pairs of :func:`pairwise_agreement`.

    ``probs`` holds the models (models × questions × options: all of them, or those of the
    block — as a Dask array in storage, read here; with ``argmax`` their one-hot argmax choices
    are used), ``tiles`` the block's tiles of pairs (:func:`model_tiles`) as indices into
    them, ``estimate`` the point values of its pairs (tile after tile). Each tile is
    multiplied by the replicate weights as one float64 product of the columns of its own
    models and pairs: a product's last bits depend on its shape, so fixed tiles give every
    pair the same replicates whatever the block (and the number of workers). Run in this
    process, or as a task on a Dask worker (:mod:`trialwise._stats.distributed`), which gets
    ``weights`` pickled as their stream. Everything returned is O(pairs of the block), plus
    its B × pairs replicates when ``keep``.
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
        cols = _columns(list(tile), k, truth, gidx, metric)
        units = cols if codes is None else cluster_sums(np.asarray(cols, dtype=float), codes)
        groups.append((units, _statistic(metric, len(used), gidx)))
    parts: list[list[NDArray]] = [[] for _ in groups]
    for w in weights:
        wf = w.astype(float)
        for part, (units, stat) in zip(parts, groups):
            part.append(stat(wf @ units))
    dist = np.concatenate([np.concatenate(part, axis=0) for part in parts], axis=1)
    jack = (np.concatenate([_jackknife(units, stat) for units, stat in groups], axis=1)
            if ci_method in ("bca", "jackknife-t") else None)
    low, high, pvalue, n_undefined = _summaries(dist, np.asarray(estimate, dtype=float), jack, metric,
                                                confidence_level, ci_method)
    return dict(lo=low, hi=high, pvalue=pvalue, n_undefined=n_undefined, dist=dist if keep else None)


def _pairwise_bootstrap(probs: NDArray, k: NDArray, truth: NDArray | None, codes: NDArray | None,
                        estimate: NDArray, opts: dict, batch: int | None, argmax: bool, keep: bool,
                        client: Any) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray | None]:
    """Every pair's interval, p-value, undefined count (and replicates if ``keep``), block of pairs by block.

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
    m = int(min(max(PAIR_BLOCK_BYTES // per_pair, AGREEMENT_TILE**2), n_pairs))
    weights = ReplicateWeights(n_units, B, rng=opts["rng"], batch=batch)  # the chunks bootstrap_weights gave
    low, high, pvalue = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
    n_undefined = np.empty(n_pairs, dtype=np.int64)
    dist = np.empty((B, n_pairs)) if keep else None
    if client is not None:
        from trialwise._stats.distributed import task_block_size

        m = task_block_size(client, n_pairs, m, AGREEMENT_TILE)  # runs of whole tiles: at least one per task

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
                              opts["confidence_level"], opts["ci_method"], weights, keep)
                run, size = [], 0
            if tile is not None:
                run.append(tile)
                size += len(tile[0])

    if client is None:
        results: Any = ((where, bootstrap_agreement_block(*args)) for where, args in blocks())
    else:
        from trialwise._stats.distributed import map_blocks

        results = map_blocks(client, bootstrap_agreement_block, blocks())
        weights.advance()  # the caller's rng moves on exactly as after the local pass
    for where, res in results:
        low[where], high[where] = res["lo"], res["hi"]
        pvalue[where], n_undefined[where] = res["pvalue"], res["n_undefined"]
        if dist is not None:
            dist[:, where] = res["dist"]
        del res
    return low, high, pvalue, n_undefined, dist


def _default_ci_method(ci_method: Any, clusters: Any) -> Any:
    """``None``: the percentile interval over questions, the jackknife t interval over clusters."""
    if ci_method is not None:
        return ci_method
    return DEFAULT_AGREEMENT_CI_METHOD if clusters is None else "jackknife-t"


def _check_options(metric, confidence_level, ci_method, n_resamples, rng) -> dict:
    opts = dict(metric=v.check_choice(metric, "metric", AGREEMENT_METRICS),
                confidence_level=v.check_confidence_level(confidence_level),
                ci_method=v.check_choice(ci_method, "ci_method", AGREEMENT_CI_METHODS),
                n_resamples=v.check_replicates(n_resamples, point_values=True),
                rng=v.check_rng(rng))
    if opts["n_resamples"] == 0 and opts["metric"] == "ec":
        raise InvalidValueError("`n_resamples`=0 (point values only) is for metric 'capa', 'capa-discrete' and "
                                "'choice'; for error consistency without resampling use "
                                "tw.pairwise_error_consistency(..., ci_method='analytic'); got metric='ec'")
    return opts


def _warn_and_notes(names_a, names_b, estimate, n_undefined, n_resamples) -> tuple:
    est, n_und = np.atleast_1d(estimate), np.atleast_1d(n_undefined)
    nan, many = np.isnan(est), (n_und > UNDEFINED_WARN_SHARE * n_resamples) & ~np.isnan(est)
    notes: list[tuple] = [()] * est.size  # a loop over the flagged pairs only (half a million pairs at 1,000 models)
    degenerate, many_undefined = [], []
    for i in np.flatnonzero(nan | many):
        a, b, reason, undefined = names_a[i], names_b[i], None, None
        if nan[i]:
            reason = "chance agreement c_exp is 1 (both always right, or both never right on two options): κ_p undefined"
            degenerate.append(f"{a}–{b}")
        if many[i]:
            undefined = f"{n_und[i]} of {n_resamples} bootstrap replicates undefined (c_exp = 1) and left out"
            many_undefined.append(f"{a}–{b}")
        notes[i] = make_notes(("undefined", reason), ("replicates", undefined))
    if degenerate:
        warn(f"agreement undefined (NaN) for {', '.join(degenerate[:5])}: chance agreement c_exp = 1",
             DegenerateDataWarning)
    if many_undefined:
        warn(f"more than 1 % undefined bootstrap replicates for {', '.join(many_undefined[:5])}",
             UndefinedReplicatesWarning)
    return tuple(notes)


# ----------------------------------------------------------------------------- public API

@records_seed
def agreement(
    a: ArrayLike,
    b: ArrayLike,
    truth: ArrayLike | None = None,
    *,
    metric: AgreementMetric = "capa",
    clusters: ArrayLike | None = None,
    confidence_level: float = 0.95,
    ci_method: AgreementCIMethod | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
) -> ModelAgreementResult:
    """Agreement of two classifiers over the same multiple-choice questions, with a bootstrap interval.

    Parameters
    ----------
    a, b : array_like, shape (n, k), or a sequence of n sequences
        Each classifier's probability of every option of every question (rows sum to 1;
        one-hot rows for hard choices). Option counts may differ between questions
        (sequences of different lengths) but not between ``a`` and ``b``.
    truth : array_like, shape (n,), optional
        The correct option's index per question; needed by ``"capa"``, ``"capa-discrete"``
        and ``"ec"``.
    metric : {"capa", "capa-discrete", "choice", "ec"}, default "capa"
        ``capa``: κ_p on the probabilities; ``capa-discrete``: κ_p on one-hot choices
        (argmax, first on ties, as lm-sim); ``choice``: share of questions where both
        choose the same option; ``ec``: error consistency of the correctness of the argmax
        choices, by :func:`trialwise.error_consistency` (its own Jeffreys interval and
        Fisher test), or with ``clusters`` by :func:`trialwise.pairwise_error_consistency`
        (its jackknife t interval and test over clusters); ``ci_method`` does not apply.
    clusters : array_like, shape (n,), optional
        A cluster label per question (passage, subject): clusters, not questions, are
        resampled (Miller 2024).
    confidence_level : float, default 0.95
    ci_method : {"percentile", "bca", "bc", "basic", "jackknife-t"}, optional
        Default: ``"percentile"``; with ``clusters``, ``"jackknife-t"`` (κ_p ± t_{G−1}·SE,
        the SE from leaving out one cluster at a time; ``pvalue`` is then its one-sided t
        test). The four bootstrap intervals covered alike over independent questions
        (``docs/language_models.md``); the percentile interval is the default there because
        it is the one the test of ``pvalue`` inverts and needs no jackknife. Over a few
        dozen clusters or fewer the cluster bootstrap under-covers and the jackknife t
        interval does not (docs/validity.md, "Clustered items").
    n_resamples : int, default 10000
        Bootstrap replicates B; ``0`` gives the point values only (interval and p-value
        NaN/None, empty ``bootstrap_distribution``; not for ``"ec"``).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ModelAgreementResult
        ``statistic``, ``confidence_interval``, ``c_obs``, ``c_exp``, ``p_correct_a``/``_b``
        and ``pvalue``: for CAPA the one-sided bootstrap p-value of H0 κ_p ≤ 0 ("no more
        agreement than chance"), ``(1 + #{κ_p* ≤ 0}) / (1 + B)`` (the test the percentile
        interval inverts; its type-I error is in ``docs/language_models.md``); None for
        ``"choice"``.

    Warns
    -----
    DegenerateDataWarning
        Chance agreement c_exp = 1 (both models always put all their probability on the
        correct option, or both never do and every question has two options): κ_p is
        NaN, as is its interval.
    UndefinedReplicatesWarning
        More than 1 % of the bootstrap replicates had c_exp = 1 (left out).

    See Also
    --------
    pairwise_agreement : every pair of many models, resampled jointly.
    error_consistency : κ on correctness.

    Notes
    -----
    CAPA (Goel et al. 2025): ``c_obs = mean_q Σ_o p_A(o) p_B(o)``,
    ``c_exp = p̄_A p̄_B + f (1 − p̄_A)(1 − p̄_B)`` with ``p̄`` the mean probability on the
    correct option and ``f = mean_q 1/(k_q − 1)``, ``κ_p = (c_obs − c_exp)/(1 − c_exp)``.
    The point value equals ``lmsim.metrics.CAPA().compute_k(a, b, truth)`` (``prob=False``
    for ``capa-discrete``). The interval resamples questions (or clusters) with
    multinomial weights from :func:`trialwise._stats.resampling.bootstrap_weights`.

    References
    ----------
    S. Goel et al. (2025), "Great Models Think Alike and this Undermines AI Oversight",
    arXiv:2502.04313. E. Miller (2024), "Adding Error Bars to Evals", arXiv:2411.00640.

    Examples
    --------
    >>> import trialwise as tw
    >>> a = [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.6, 0.3, 0.1]]
    >>> b = [[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.5, 0.2, 0.3], [0.2, 0.7, 0.1]]
    >>> res = tw.agreement(a, b, [0, 1, 2, 1], n_resamples=200, rng=0)
    >>> round(res.statistic, 4), round(res.c_obs, 4), round(res.c_exp, 4)
    (0.0273, 0.42, 0.4037)
    """
    opts = _check_options(metric, confidence_level, _default_ci_method(ci_method, clusters), n_resamples, rng)
    pa, ka = _prob_rows(a, "a")
    pb, kb = _prob_rows(b, "b")
    if ka.size != kb.size or (ka != kb).any():
        i = int(np.flatnonzero(ka != kb)[0]) if ka.size == kb.size else min(ka.size, kb.size)
        raise InvalidValueError(f"`a` and `b` must have the same questions and options; "
                                f"lengths {ka.size} and {kb.size}" + (f", question {i} differs" if ka.size == kb.size else ""))
    width = max(pa.shape[1], pb.shape[1])
    pa, pb = (np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in (pa, pb))
    needs_truth = opts["metric"] != "choice"
    if needs_truth and truth is None:
        raise InvalidValueError(f"`truth` is needed by metric={opts['metric']!r} (the correct option of each question)")
    t = _truth_indices(truth, ka) if truth is not None else None
    codes = _cluster_codes(clusters, ka.size)
    if opts["metric"] == "ec":
        if codes is None:
            ec = error_consistency(pa.argmax(1) == t, pb.argmax(1) == t, confidence_level=opts["confidence_level"],
                                   n_resamples=opts["n_resamples"], rng=opts["rng"])
        else:  # clusters resampled: the pairwise engine, one pair
            ec = pairwise_error_consistency(np.column_stack([pa.argmax(1) == t, pb.argmax(1) == t]), clusters=codes,
                                            confidence_level=opts["confidence_level"],
                                            n_resamples=opts["n_resamples"], rng=opts["rng"]).pair(0, 1)
        return ModelAgreementResult(
            statistic=ec.statistic, confidence_interval=ec.confidence_interval, pvalue=ec.pvalue, n=ec.n,
            confidence_level=ec.confidence_level, method="ec", ci_method=ec.ci_method,
            n_clusters=ec.n if codes is None else int(codes.max()) + 1,
            c_obs=ec.c_obs, c_exp=ec.c_exp, p_correct_a=ec.accuracy_a, p_correct_b=ec.accuracy_b,
            n_resamples=ec.n_resamples, n_undefined=ec.n_undefined,
            bootstrap_distribution=ec.bootstrap_distribution, notes=ec.notes)
    probs = [pa, pb]
    if opts["metric"] == "capa-discrete":
        probs = [_one_hot(p.argmax(1), width) for p in probs]
    idx = np.array([[0, 1]])
    cols = _columns(probs, ka, t, idx, opts["metric"])
    est, low, high, pval, dist, n_undef, units = _infer(cols, codes, opts["metric"], 2, idx, opts, None)
    if opts["metric"] == "choice":
        c_obs, c_exp = est, np.full(1, np.nan)
        p_correct = [float(np.mean(p.argmax(1) == t)) if t is not None else np.nan for p in probs]
    else:
        _, c_obs, c_exp = capa_from_sums(cols.sum(axis=0), 2, idx)
        p_correct = [float(np.mean(p[np.arange(ka.size), t])) for p in probs]
    notes = _warn_and_notes(["a"], ["b"], est, n_undef, opts["n_resamples"])
    return ModelAgreementResult(
        statistic=float(est[0]), confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
        pvalue=None if np.isnan(pval[0]) else float(pval[0]),
        n=int(ka.size), confidence_level=opts["confidence_level"], method=opts["metric"], ci_method=opts["ci_method"],
        n_clusters=int(units), c_obs=float(np.ravel(c_obs)[0]), c_exp=float(np.ravel(c_exp)[0]),
        p_correct_a=p_correct[0], p_correct_b=p_correct[1], n_resamples=opts["n_resamples"],
        n_undefined=int(n_undef[0]), bootstrap_distribution=dist[:, 0], notes=notes[0])


def _table_models(trials: Any, metric: str, clusters: Any, agreement_metric: str = "ec"):
    """Trial table → model names, (models × n × K) probabilities, option counts, truth, cluster codes.

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
    truth = _truth_indices(np.where(generation, 1, trials["truth"].to_numpy(dtype=object)[first]), k)
    width = int(k.max())
    cl = None
    if clusters is not None:
        labels = trials[clusters].to_numpy(dtype=object)[first]
        cl = _cluster_codes(labels, n)
    probs = np.zeros((len(models), n, width))
    for i, m in enumerate(models):
        rows = by_model[starts[i]: starts[i + 1]]
        got = codes[rows]
        if len(np.unique(got)) != n or len(got) != n:
            raise InvalidValueError(f"`trials`: model {m!r} answers {len(np.unique(got))} of the {n} questions "
                                    f"(or one twice); agreement needs every model on every question "
                                    f"(read the logs with unaligned='drop', e.g. tw.io.read_lm_eval(paths, "
                                    f"unaligned='drop'), to keep only the questions every model answered)")
        p = probs[i]
        if metric == "capa":
            prow, _ = _prob_rows(list(trials["probabilities"].to_numpy()[rows]), "trials.probabilities")
            p[got, : prow.shape[1]] = prow
        else:
            resp = np.array([_option_index(r, kk == 2) for r, kk in zip(trials["response"].to_numpy()[rows], k[got])],
                            dtype=np.int64)
            if generation.any():
                resp = np.where(generation[got], trials["correct"].to_numpy()[rows].astype(bool), resp)
            p[got] = _one_hot(np.where(resp < k[got], resp, -1), width)
    return models, probs, k, truth, cl


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
        Every model must answer every question. Or, at leaderboard scale (a 1,000-model
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
        ``response`` of a table (the argmax of an array); ``ec`` is
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
    opts = _check_options(metric, confidence_level, _default_ci_method(ci_method, clusters), n_resamples, rng)
    metric = opts["metric"]
    if keep_replicates is not None and not isinstance(keep_replicates, (bool, np.bool_)):
        raise InvalidTypeError(f"`keep_replicates` must be True, False or None; got {v.show(keep_replicates)}")
    if client is not None:
        from trialwise._stats.distributed import check_client

        check_client(client)
    if isinstance(trials, np.ndarray) or _is_dask_array(trials):
        if metric == "ec" and not isinstance(trials, np.ndarray):
            raise InvalidValueError("metric='ec' needs the array in memory; for error consistency of stored "
                                    "correctness use tw.pairwise_error_consistency; got a Dask array")
        models, probs, k, truth_idx, codes = _array_models(trials, truth, n_options, clusters)
        from_array = True
    else:
        if truth is not None or n_options is not None:
            raise InvalidValueError("`truth` and `n_options` go with an array `trials`; a trial table holds them as "
                                    f"columns; got truth={v.show(truth)}, n_options={v.show(n_options)}")
        models, probs, k, truth_idx, codes = _table_models(trials, "capa" if metric == "capa" else "response",
                                                           clusters, metric)
        from_array = False
    if len(models) < 2:
        raise InvalidValueError(f"`trials` needs at least 2 models (subject); got {models}")
    n_models, n = len(models), k.size
    idx = np.column_stack(np.triu_indices(n_models, 1)).astype(np.intp)
    names = np.array(models, dtype=object)
    if metric == "ec":
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
            bootstrap_distribution=ec.bootstrap_distribution, pair_notes=ec.pair_notes)
    # point values: one Gram matrix (argmax choices of an array for the discrete metrics)
    correct, gram = gram_sums(probs, k, truth_idx, choices=from_array and metric != "capa", check=from_array)
    sums = np.concatenate([[n, np.sum(1.0 / (k - 1))], correct, gram[idx[:, 0], idx[:, 1]]])
    if metric == "choice":
        est, c_obs, c_exp = sums[2 + n_models:] / n, sums[2 + n_models:] / n, np.full(len(idx), np.nan)
    else:
        est, c_obs, c_exp = capa_from_sums(sums, n_models, idx)
    units = n if codes is None else int(codes.max()) + 1
    if opts["n_resamples"]:
        _check_units(n, codes, "`trials`")
        low, high, pval, n_undef, dist = _pairwise_bootstrap(
            probs, k, truth_idx, codes, np.asarray(est, dtype=float), opts, batch,
            from_array and metric == "capa-discrete", keep_replicates is not False, client)
        if dist is None:
            dist = np.empty((0, len(idx)))
    else:
        nan = np.full(len(idx), np.nan)
        low, high, pval, dist = nan, nan.copy(), nan.copy(), np.empty((0, len(idx)))
        n_undef = np.zeros(len(idx), dtype=np.int64)
    pbar = correct / n
    notes = _warn_and_notes(names[idx[:, 0]], names[idx[:, 1]], est, n_undef, opts["n_resamples"])
    return PairwiseAgreementResult(
        observers=tuple(models), observer_a=names[idx[:, 0]], observer_b=names[idx[:, 1]], statistic=est,
        confidence_interval=ConfidenceInterval(low, high), pvalue=pval,
        n=np.full(len(idx), n, dtype=np.int64), confidence_level=opts["confidence_level"], method=metric,
        ci_method=opts["ci_method"], n_clusters=int(units), c_obs=np.asarray(c_obs), c_exp=np.asarray(c_exp),
        p_correct_a=pbar[idx[:, 0]], p_correct_b=pbar[idx[:, 1]], n_resamples=opts["n_resamples"],
        n_undefined=np.asarray(n_undef, dtype=np.int64), bootstrap_distribution=dist, pair_notes=notes)
