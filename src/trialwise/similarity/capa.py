"""Agreement between classifiers from their option probabilities: CAPA (κ_p), its discrete form, choice agreement.

Every statistic here is a smooth function of **means of per-question columns**: per
question q, ``x_q = Σ_o p_A(o) p_B(o)`` (one column per pair), ``a_q = p_A(truth_q)`` (one
per model) and ``g_q = 1/(k_q − 1)``. A bootstrap replicate is then one weight vector over
the questions (or over clusters of questions, whose columns are summed first) times the
column matrix, as in :func:`trialwise.pairwise_error_consistency`; all pairs are resampled
jointly. Error consistency (``metric="ec"``) is delegated to
:func:`trialwise.error_consistency` / :func:`trialwise.pairwise_error_consistency`.

This module holds :func:`agreement` (one pair) and what it shares with every pair: the input
checks of probability rows, arrays, truth and clusters, the column builder and the interval
code (about 520 lines). Every pair, resampled jointly in tiles, is
:mod:`trialwise.similarity.pairwise`; the result classes live in :mod:`trialwise.similarity.results`,
the chunked Gram path of the point values in :mod:`trialwise.similarity.gram`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, make_notes
from trialwise._core.warnings import (
    DegenerateDataWarning,
    UndefinedReplicatesWarning,
    warn,
)
from trialwise._stats.intervals import interval, jackknife_t_pvalue
from trialwise._stats.monte_carlo import monte_carlo_pvalue
from trialwise._stats.resampling import bootstrap_weights, leave_one_out_sums
from trialwise._stats.streams import records_seed
from trialwise._stats.tables import cluster_sums
from trialwise.ec.pair import error_consistency
from trialwise.ec.pairwise import pairwise_error_consistency
from trialwise.io.labels import label_number
from trialwise.io.trials import PROBABILITY_SUM_TOLERANCE
from trialwise.similarity.results import ModelAgreementResult

__all__ = ["agreement", "capa_from_sums", "AGREEMENT_METRICS", "AGREEMENT_CI_METHODS", "DEFAULT_AGREEMENT_CI_METHOD"]

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

def prob_rows(rows: Any, name: str) -> tuple[NDArray, NDArray]:
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


def truth_indices(truth: Any, k: NDArray, name: str = "truth") -> NDArray:
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


def option_index(response: Any, two_options: bool) -> int:
    """A logged response as an option index by the rule of :mod:`trialwise.io.labels` (``"1"``, ``"1.0"``, ``1.0``,
    ``True`` are option 1); -1 (no option: counted wrong) for anything else, e.g. ``"na"``. ``"true"``/``"false"``
    text is 1/0 only on a question with ``two_options`` (as the rule reads it among 0/1 labels); among more
    options it is counted wrong, not option 1."""
    x = label_number(response, truth_words=two_options) if isinstance(response, str) else response
    if isinstance(x, (numbers.Real, np.bool_)) and math.isfinite(float(x)) and float(x).is_integer():
        return int(float(x))
    return -1


def cluster_codes(clusters: Any, n: int) -> NDArray | None:
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


def is_dask_array(x: Any) -> bool:
    return hasattr(x, "__dask_graph__") and hasattr(x, "chunks") and hasattr(x, "ndim")


def one_hot(choice: NDArray, k_max: int) -> NDArray:
    out = np.zeros((choice.size, k_max))
    ok = choice >= 0
    out[np.flatnonzero(ok), choice[ok]] = 1.0
    return out


def array_models(trials: NDArray, truth: Any, n_options: Any, clusters: Any):
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
    return list(range(m)), trials, k, truth_indices(truth, k), cluster_codes(clusters, n)


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


def agreement_columns(probs: Any, k: NDArray, truth: NDArray | None, idx: NDArray, metric: str,
                      shares: bool = False) -> NDArray:
    """(n, 2 + M + P) columns for CAPA; (n, 1 + P) for choice agreement (Fortran order, filled in place).

    Choice agreement compares the argmax choices; with ``shares`` the rows are one-hot choices averaged
    over each question's replicates, and a pair's column is ``Σ_o p_A(o) p_B(o)``, the share of replicate
    pairs that chose the same option (for one run each, the same 0/1 as comparing the choices)."""
    n, n_models = k.size, len(probs)
    lead = 1 if metric == "choice" else 2 + n_models
    cols = np.empty((n, lead + len(idx)), order="F")  # one allocation: 0.5 GB for 100 models × 12,000 questions
    cols[:, 0] = 1.0
    if metric == "choice" and shares:
        for j, (a, b) in enumerate(idx):
            cols[:, lead + j] = np.einsum("qo,qo->q", probs[a], probs[b])
        return cols
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


def statistic_of_sums(metric: str, n_models: int, idx: NDArray):
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


def check_units(n_questions: int, codes: NDArray | None, data: str) -> None:
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
    stat = statistic_of_sums(metric, n_models, idx)
    if estimate is None:
        estimate = stat(cols.sum(axis=0))
    if opts["n_resamples"] == 0:  # point values only
        nan = np.full(np.size(estimate), np.nan)
        n_units = len(cols) if codes is None else int(codes.max()) + 1
        return (estimate, nan, nan.copy(), nan.copy(), np.empty((0, np.size(estimate))),
                np.zeros(np.size(estimate), dtype=np.int64), n_units)
    check_units(len(cols), codes, "`a` and `b`")
    dist, units = _resample(cols, codes, stat, opts["n_resamples"], opts["rng"], batch)
    jack = leave_one_out_sums(units, stat) if opts["ci_method"] in ("bca", "jackknife-t") else None
    low, high, pvalue, n_undefined = pair_summaries(dist, estimate, jack, metric, opts["confidence_level"],
                                                opts["ci_method"])
    return estimate, low, high, pvalue, dist, n_undefined, units.shape[0]


def pair_summaries(dist: NDArray, estimate: NDArray, jack: NDArray | None, metric: str, confidence_level: float,
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


def default_ci_method(ci_method: Any, clusters: Any) -> Any:
    """``None``: the percentile interval over questions, the jackknife t interval over clusters."""
    if ci_method is not None:
        return ci_method
    return DEFAULT_AGREEMENT_CI_METHOD if clusters is None else "jackknife-t"


def check_options(metric, confidence_level, ci_method, n_resamples, rng) -> dict:
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


def warn_and_notes(names_a, names_b, estimate, n_undefined, n_resamples) -> tuple:
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
    opts = check_options(metric, confidence_level, default_ci_method(ci_method, clusters), n_resamples, rng)
    pa, ka = prob_rows(a, "a")
    pb, kb = prob_rows(b, "b")
    if ka.size != kb.size or (ka != kb).any():
        i = int(np.flatnonzero(ka != kb)[0]) if ka.size == kb.size else min(ka.size, kb.size)
        raise InvalidValueError(f"`a` and `b` must have the same questions and options; "
                                f"lengths {ka.size} and {kb.size}" + (f", question {i} differs" if ka.size == kb.size else ""))
    width = max(pa.shape[1], pb.shape[1])
    pa, pb = (np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p in (pa, pb))
    needs_truth = opts["metric"] != "choice"
    if needs_truth and truth is None:
        raise InvalidValueError(f"`truth` is needed by metric={opts['metric']!r} (the correct option of each question)")
    t = truth_indices(truth, ka) if truth is not None else None
    codes = cluster_codes(clusters, ka.size)
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
        probs = [one_hot(p.argmax(1), width) for p in probs]
    idx = np.array([[0, 1]])
    cols = agreement_columns(probs, ka, t, idx, opts["metric"])
    est, low, high, pval, dist, n_undef, units = _infer(cols, codes, opts["metric"], 2, idx, opts, None)
    if opts["metric"] == "choice":
        c_obs, c_exp = est, np.full(1, np.nan)
        p_correct = [float(np.mean(p.argmax(1) == t)) if t is not None else np.nan for p in probs]
    else:
        _, c_obs, c_exp = capa_from_sums(cols.sum(axis=0), 2, idx)
        p_correct = [float(np.mean(p[np.arange(ka.size), t])) for p in probs]
    notes = warn_and_notes(["a"], ["b"], est, n_undef, opts["n_resamples"])
    return ModelAgreementResult(
        statistic=float(est[0]), confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
        pvalue=None if np.isnan(pval[0]) else float(pval[0]),
        n=int(ka.size), confidence_level=opts["confidence_level"], method=opts["metric"], ci_method=opts["ci_method"],
        n_clusters=int(units), c_obs=float(np.ravel(c_obs)[0]), c_exp=float(np.ravel(c_exp)[0]),
        p_correct_a=p_correct[0], p_correct_b=p_correct[1], n_resamples=opts["n_resamples"],
        n_undefined=int(n_undef[0]), bootstrap_distribution=dist[:, 0], notes=notes[0])


