"""A model's agreement with itself across repeated runs (self_agreement): the ceiling of its agreement with others.

A trial table with repeated runs (column ``replicate``) holds, for every model and question,
several runs; two different runs of the same model agree as much as the model is consistent
with itself. :func:`self_agreement` is that agreement, with the statistics of
:func:`trialwise.pairwise_agreement` (CAPA, choice agreement, EC) on the pairs of different
runs of one model, and a bootstrap over questions through the resampling engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Note, make_notes
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.intervals import few_clusters_note
from trialwise._stats.resampling import bootstrap_weights, leave_one_out_sums
from trialwise._stats.streams import records_seed
from trialwise._stats.tables import cluster_sums
from trialwise.io.logs.records import REPLICATE_COLUMN
from trialwise.similarity.capa import (
    AgreementCIMethod,
    AgreementMetric,
    capa_from_sums,
    check_options,
    check_units,
    default_ci_method,
    pair_summaries,
    warn_and_notes,
)
from trialwise.similarity.pairwise import table_models
from trialwise.similarity.results import PairwiseAgreementResult

__all__ = ["self_agreement"]

_SELF_NOTE = Note("self-agreement: each model with itself, over the pairs of two different runs of a question; "
                  "questions with one run are left out (n counts those with two or more)", "replicates")


def _columns(mean: NDArray, runs: NDArray, squares: NDArray, k: NDArray, truth: NDArray, metric: str) -> NDArray:
    """Per question (n, 4): [has two runs, its 1/(k − 1), its mean p(truth), its agreement over run pairs r ≠ s]."""
    valid = runs >= 2
    rows = np.arange(len(k))
    # Σ_{r≠s} p_r·p_s = ‖Σ_r p_r‖² − Σ_r ‖p_r‖², over K(K − 1) ordered pairs
    total = runs**2 * np.einsum("qo,qo->q", mean, mean) - squares
    with np.errstate(invalid="ignore", divide="ignore"):
        c_obs = np.where(valid, total / np.where(valid, runs * (runs - 1), 1.0), 0.0)
    v = valid.astype(float)
    return np.column_stack([v, v / (k - 1), v * mean[rows, truth], v * c_obs])


def _statistic(metric: str):
    if metric == "choice":
        def choice(sums: NDArray) -> NDArray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return sums[:, 3] / sums[:, 0]
        return choice
    return lambda sums: capa_from_sums(sums, 1, [[0, 0]])[0][:, 0]


@records_seed
def self_agreement(
    trials: Any,
    *,
    metric: AgreementMetric = "capa",
    clusters: Any = None,
    confidence_level: float = 0.95,
    ci_method: AgreementCIMethod | None = None,
    n_resamples: int = 10_000,
    rng: Any = None,
    batch: int | None = None,
) -> PairwiseAgreementResult:
    """Every model's agreement with itself across its repeated runs (self-consistency), with intervals.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table with repeated runs: as for :func:`trialwise.pairwise_agreement`, plus the
        column ``replicate`` (:data:`~trialwise.io.logs.records.REPLICATE_COLUMN`) numbering
        the runs of a model on a question; every model answers every question at least once.
    metric : {"capa", "capa-discrete", "choice", "ec"}, default "capa"
        As in :func:`trialwise.pairwise_agreement`.
    clusters : str, optional
        A column of ``trials`` whose values group questions; clusters are resampled whole.
    confidence_level, ci_method, n_resamples, rng, batch
        As in :func:`trialwise.pairwise_agreement` (``n_resamples=0``: point values only).

    Returns
    -------
    PairwiseAgreementResult
        One row per model, ``observer_a`` = ``observer_b`` = the model; ``n`` its questions
        with two or more runs (the others have no pair of runs and are left out).

    Raises
    ------
    InvalidTypeError
        ``trials`` is not a DataFrame.
    InvalidValueError
        No ``replicate`` column, or no model with two runs of a question; otherwise as
        :func:`trialwise.pairwise_agreement`.

    Warns
    -----
    DegenerateDataWarning
        A model whose self-agreement is undefined (chance agreement 1, or no question with
        two runs); fewer than 20 clusters.

    See Also
    --------
    trialwise.pairwise_agreement : agreement between models, from every replicate pair.

    Notes
    -----
    For question ``i`` with ``K_i ≥ 2`` runs of the model, the observed agreement is the mean
    over the ``K_i (K_i − 1)`` ordered pairs of different runs ``r ≠ s`` of ``Σ_o p_r(o) p_s(o)``
    (for ``choice``/``capa-discrete``: whether the two runs chose the same option; for ``ec``:
    whether both were right or both wrong), computed as
    ``(‖Σ_r p_r‖² − Σ_r ‖p_r‖²) / (K_i (K_i − 1))``; chance agreement and κ are those of
    :func:`trialwise.pairwise_agreement` with ``p̄`` the model's replicate-averaged accuracy over
    these questions. It is the natural ceiling of the agreement of this model with another
    (two runs of one model are the most alike two runs can be expected to be): a pair of
    models whose agreement reaches both models' self-agreement is as alike as each model is
    with itself. Questions, or clusters, are resampled with all their runs.

    Examples
    --------
    >>> import pandas as pd
    >>> import trialwise as tw
    >>> trials = pd.DataFrame({"subject": "m", "image": ["q1", "q1", "q2", "q2", "q3", "q3"],
    ...                        "replicate": [1, 2, 1, 2, 1, 2], "truth": "0", "n_options": 2,
    ...                        "response": ["0", "0", "1", "0", "1", "1"]})
    >>> res = tw.similarity.self_agreement(trials, metric="choice", n_resamples=0)
    >>> float(res.statistic[0]), int(res.n[0])
    (0.6666666666666666, 3)
    """
    import pandas as pd

    opts = check_options(metric, confidence_level, default_ci_method(ci_method, clusters), n_resamples, rng)
    metric = opts["metric"]
    if not isinstance(trials, pd.DataFrame):
        raise InvalidTypeError(f"`trials` must be a trial table (pandas.DataFrame) with repeated runs; got "
                               f"{type(trials).__name__}")
    if REPLICATE_COLUMN not in trials.columns:
        raise InvalidValueError(f"`trials` has no column {REPLICATE_COLUMN!r}: self-agreement needs repeated runs "
                                f"of a model on the same questions (columns: {list(trials.columns)})")
    models, probs, k, truth, codes, reps = table_models(trials, "capa" if metric == "capa" else "response",
                                                        clusters, metric)
    if reps is None:
        raise InvalidValueError(f"`trials`: no model has two runs of a question (column {REPLICATE_COLUMN!r}), so "
                                f"there is no pair of runs to compare")
    runs, squares = reps
    n = k.size
    if metric == "ec":  # correctness as (wrong, right): every run's vector has ‖·‖² = 1
        right = probs[:, np.arange(n), truth]
        probs, k, truth = np.stack([1.0 - right, right], axis=2), np.full(n, 2), np.ones(n, dtype=np.int64)
        squares = runs.astype(float)
    cols = [_columns(probs[m], runs[m], squares[m], k, truth, metric) for m in range(len(models))]
    stat = _statistic(metric)
    est = np.array([stat(c.sum(axis=0)[None])[0] for c in cols])
    n_valid = np.array([int(c[:, 0].sum()) for c in cols], dtype=np.int64)
    units = [c if codes is None else cluster_sums(c, codes) for c in cols]
    n_units = n if codes is None else int(codes.max()) + 1
    B = opts["n_resamples"]
    nan = np.full(len(models), np.nan)
    if B:
        check_units(n, codes, "`trials`")
        stacked = np.concatenate(units, axis=1)  # one weight vector per replicate for every model: a joint sample
        dist = np.concatenate([
            np.column_stack([stat(s) for s in np.split(w.astype(float) @ stacked, len(models), axis=1)])
            for w in bootstrap_weights(stacked.shape[0], B, rng=opts["rng"], batch=batch)], axis=0)
        jack = (np.column_stack([leave_one_out_sums(u, stat) for u in units])
                if opts["ci_method"] in ("bca", "jackknife-t") else None)
        low, high, pvalue, n_undef = pair_summaries(dist, est, jack, metric, opts["confidence_level"],
                                                    opts["ci_method"])
    else:
        low, high, pvalue, dist = nan, nan.copy(), nan.copy(), np.empty((0, len(models)))
        n_undef = np.zeros(len(models), dtype=np.int64)
    names = np.array(models, dtype=object)
    single = n_valid == 0  # a model run once per question has no pair of runs: its own reason, not c_exp = 1
    notes = list(warn_and_notes(names, names, np.where(single, 0.0, est), n_undef, B))
    for i in np.flatnonzero(single):
        notes[i] = make_notes(("undefined", "no question with two runs of this model: no pair of runs to compare"))
    if single.any():
        warn(f"self-agreement undefined (NaN) for {', '.join(map(str, names[single][:5]))}: no question with two "
             f"runs of the model", DegenerateDataWarning)
    few = few_clusters_note(n_units) if codes is not None and B else None
    if few is not None:
        warn(str(few), DegenerateDataWarning)
    sums = [c.sum(axis=0) for c in cols]
    with np.errstate(invalid="ignore", divide="ignore"):
        pbar = np.array([s[2] / s[0] for s in sums])
        c_obs = np.array([s[3] / s[0] for s in sums])
        f = np.array([s[1] / s[0] for s in sums])
    c_exp = np.full(len(models), np.nan) if metric == "choice" else pbar**2 + f * (1 - pbar) ** 2
    return PairwiseAgreementResult(
        observers=tuple(models), observer_a=names, observer_b=names.copy(), statistic=est,
        confidence_interval=ConfidenceInterval(np.asarray(low, dtype=float), np.asarray(high, dtype=float)),
        pvalue=np.asarray(pvalue, dtype=float), n=n_valid, confidence_level=opts["confidence_level"], method=metric,
        ci_method=opts["ci_method"], n_clusters=int(n_units), c_obs=c_obs, c_exp=c_exp, p_correct_a=pbar,
        p_correct_b=pbar.copy(), n_resamples=B, n_undefined=np.asarray(n_undef, dtype=np.int64),
        bootstrap_distribution=dist, pair_notes=tuple(notes),
        result_notes=((few,) if few is not None else ()) + (_SELF_NOTE,))
