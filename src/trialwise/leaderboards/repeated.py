"""Accuracy from repeated runs (replicates): the question-level mean, its variance split and a repeat-aware interval.

Several runs of one model on the same questions (Inspect ``epochs``, several samples or seeds)
reach the trial table as rows numbered by the column ``replicate``
(:data:`trialwise.io.logs.records.REPLICATE_COLUMN`). :func:`replicate_accuracy` averages each
question's runs, then the questions (Miller 2024, the section on resampling), and resamples questions — or the
user's clusters — with all their replicates. :func:`collapse_replicates` turns such a table
into one row per question whose ``score`` is the mean over its runs, the form in which an
accuracy leaderboard (:func:`trialwise.leaderboard` with ``protocol="accuracy"``) uses it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.intervals import few_clusters_note, jackknife_standard_error, jackknife_t_interval
from trialwise._stats.resampling import leave_one_out_sums
from trialwise._stats.tables import cluster_sums
from trialwise.io.logs.records import REPLICATE_COLUMN
from trialwise.io.trials import SCORE_COLUMN, SCORE_SOURCE

__all__ = ["replicate_accuracy", "ReplicateAccuracyResult", "collapse_replicates", "question_keys"]

#: What the ``score`` column of a table made by :func:`collapse_replicates` is (its ``attrs[SCORE_SOURCE]``).
REPLICATE_MEAN_SOURCE = "correct, averaged over each question's replicates"


def question_keys(trials: Any) -> list[str]:
    """The columns that name a question of a trial table: ``experiment``, ``condition`` (those present), ``image``."""
    return [k for k in ("experiment", "condition") if k in trials.columns] + ["image"]


def _replicate_numbers(trials: Any, what: str) -> NDArray:
    """The ``replicate`` column as int64 ≥ 1 (1 for every row when the table has none)."""
    if REPLICATE_COLUMN not in trials.columns:
        return np.ones(len(trials), dtype=np.int64)
    col = trials[REPLICATE_COLUMN]
    if col.isna().any():
        raise InvalidValueError(f"{what}: column {REPLICATE_COLUMN!r} must number every run (1, 2, ...); "
                                f"{int(col.isna().sum())} row(s) have none")
    try:
        values = col.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(f"{what}: column {REPLICATE_COLUMN!r} must hold integers (1, 2, ...); got "
                               f"{v.show(col.iloc[:3].tolist())}") from exc
    if not np.all((values >= 1) & (values == np.round(values))):
        bad = values[~((values >= 1) & (values == np.round(values)))][0]
        raise InvalidValueError(f"{what}: column {REPLICATE_COLUMN!r} must hold integers ≥ 1; got {float(bad)!r}")
    return values.astype(np.int64)


def _correctness(trials: Any, what: str) -> NDArray:
    col = trials["correct"]
    if col.isna().any():
        raise InvalidValueError(f"{what}: column 'correct' has {int(col.isna().sum())} missing value(s)")
    x = col.to_numpy()
    if x.dtype != bool:
        try:
            xf = x.astype(float)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(f"{what}: column 'correct' must be bool or 0/1; got {v.show(x[:3].tolist())}") from exc
        if not np.all((xf == 0) | (xf == 1)):
            raise InvalidValueError(f"{what}: column 'correct' must be bool or 0/1; got {float(xf[(xf != 0) & (xf != 1)][0])!r}")
        return xf
    return x.astype(float)


def _check_trials(trials: Any, clusters: Any, what: str = "`trials`"):
    """Validated inputs: the table, its question keys, replicate numbers, correctness and cluster labels."""
    import pandas as pd

    if not isinstance(trials, pd.DataFrame):
        raise InvalidTypeError(f"{what} must be a trial table (pandas.DataFrame with columns subject, image, correct "
                               f"and optionally {REPLICATE_COLUMN!r}); got {type(trials).__name__}")
    missing = [c for c in ("subject", "image", "correct") if c not in trials.columns]
    if missing:
        raise InvalidValueError(f"{what} lacks the column(s) {missing}; columns: {list(trials.columns)}")
    if not len(trials):
        raise InvalidValueError(f"{what}: the table has no rows")
    keys = question_keys(trials)
    rep = _replicate_numbers(trials, what)
    runs = trials[["subject", *keys]].astype(str).assign(_r=rep)
    dup = runs.duplicated()
    if dup.any():
        row = runs.loc[dup].iloc[0]
        raise InvalidValueError(f"{what}: model {row['subject']!r} has replicate {int(row['_r'])} of question "
                                f"{'/'.join(str(row[k]) for k in keys)} more than once; number the runs of one "
                                f"question 1, 2, ... in column {REPLICATE_COLUMN!r}")
    labels = None
    if clusters is not None:
        if not isinstance(clusters, str):
            raise InvalidTypeError(f"`clusters` must be the name of a column of {what}; got {v.show(clusters)}")
        if clusters not in trials.columns:
            raise InvalidValueError(f"`clusters`: {clusters!r} is not a column of {what} (columns: {list(trials.columns)})")
        if trials[clusters].isna().any():
            raise InvalidValueError(f"`clusters`: column {clusters!r} must give every trial a cluster label; "
                                    f"{int(trials[clusters].isna().sum())} trial(s) have none")
        labels = trials[clusters].astype(str).to_numpy()
        per_q = pd.Series(labels).groupby([trials[k].astype(str).to_numpy() for k in keys]).nunique()
        if (per_q > 1).any():
            q = per_q.index[np.flatnonzero((per_q > 1).to_numpy())[0]]
            raise InvalidValueError(f"`clusters`: question {'/'.join(map(str, np.atleast_1d(q)))} has more than one "
                                    f"label in column {clusters!r}; a cluster label belongs to a question")
    return keys, rep, _correctness(trials, what), labels


@dataclass(frozen=True, repr=False)
class ReplicateAccuracyResult(Result):
    """Accuracy of every model from repeated runs, with its between/within-question variance split.

    One entry per model (``observers``), in order of first appearance. ``statistic`` the
    accuracy (the mean over questions of each question's mean over its replicates);
    ``standard_error`` the repeat-aware standard error (questions, or clusters, as the
    independent units); ``var_between`` and ``var_within`` Miller's split of
    ``n · standard_error²`` (unclustered) into the spread of the questions' true scores and
    the average within-question variance over ``K_i`` runs, ``var_within`` NaN when no
    question has two runs; ``naive_standard_error`` the standard error that treats every
    run as an independent question (too small when runs of a question agree; shown for
    comparison); ``n`` questions, ``n_runs`` trials, ``mean_replicates`` runs per
    question, ``n_clusters`` the resampled units.
    """

    observers: tuple = field(metadata=shown("models", in_repr=True, format="count"))
    statistic: NDArray = field(metadata=shown(in_repr=True, repr_name="accuracy"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(format="interval", in_repr=True, method="ci_method"))
    standard_error: NDArray
    var_between: NDArray
    var_within: NDArray
    naive_standard_error: NDArray
    n: NDArray
    n_runs: NDArray
    mean_replicates: NDArray
    n_clusters: NDArray
    confidence_level: float
    method: str = field(metadata=shown("estimator", format="text"))
    ci_method: str
    result_notes: tuple = ()

    summary_title = "Accuracy from repeated runs"
    summary_table = True
    frame_columns = ("observer", "statistic", "ci_low", "ci_high", "standard_error", "var_between", "var_within",
                     "naive_standard_error", "n", "n_runs", "mean_replicates", "n_clusters")
    _frame_sources = {"observer": "observer_names"}

    @property
    def observer_names(self) -> NDArray:
        """The models as an array (one per row of :meth:`to_frame`)."""
        return np.array(self.observers, dtype=object)

    @property
    def notes(self) -> tuple:
        """Caveats (few clusters)."""
        return tuple(self.result_notes)

    def __len__(self) -> int:
        return len(self.observers)


def _one_model(x: NDArray, q: NDArray, unit_of_q: NDArray | None, level: float) -> tuple[float, ...]:
    """Accuracy, interval, SE, variance split and counts of one model's runs ``x`` on questions ``q`` (codes)."""
    k, s = cluster_sums(np.column_stack([np.ones_like(x), x]), q).T  # runs and right answers per question
    n_q = k.size
    mean_q = s / k
    acc = float(mean_q.mean())
    # within-question variance of each question with K_i ≥ 2 runs (ddof = 1, unbiased)
    ss = cluster_sums(((x - mean_q[q]) ** 2)[:, None], q)[:, 0]
    multi = k >= 2
    if multi.any():
        w = np.where(multi, ss / np.where(multi, k - 1, 1), np.nan)
        pooled = float(np.nanmean(w))  # stands in for σ²_i of questions with one run
        var_within = float(np.mean(np.where(multi, w, pooled) / k))
    else:
        var_within = np.nan
    var_total = float(mean_q.var(ddof=1)) if n_q >= 2 else np.nan
    var_between = var_total - var_within
    units = np.column_stack([mean_q, np.ones(n_q)])
    if unit_of_q is not None:  # clusters: sum the questions of each cluster
        units = cluster_sums(units, unit_of_q)
    jk = leave_one_out_sums(units, lambda t: t[:, 0] / t[:, 1])
    se, g_units = jackknife_standard_error(jk)
    low, high = np.clip(jackknife_t_interval(acc, jk, level), 0.0, 1.0)  # an accuracy lies in [0, 1]
    naive = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size >= 2 else np.nan
    return (acc, float(low), float(high), float(se), var_between, var_within, naive, n_q, x.size,
            float(k.mean()), int(units.shape[0]))


def replicate_accuracy(trials: Any, *, clusters: str | None = None,
                       confidence_level: float = 0.95) -> ReplicateAccuracyResult:
    """Accuracy of every model from repeated runs, with Miller's between/within split and a repeat-aware interval.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table (:func:`trialwise.io.read_lm_eval`, :func:`trialwise.read_trials`, an
        evaluation-log reader): one row per model (``subject``), question (``experiment``/
        ``condition`` where present, ``image``) and run, with ``correct`` (bool or 0/1) and,
        when some question was run more than once, the run's number in column ``replicate``
        (:data:`~trialwise.io.logs.records.REPLICATE_COLUMN`, 1, 2, …). The number of runs
        ``K_i`` may differ between questions and models; a table without the column is one
        run per question. Each model is scored on the questions it has.
    clusters : str, optional
        A column of ``trials`` that groups questions (a passage, a subject): clusters, not
        questions, are then the independent units (a label belongs to a question: the same
        on all its runs). With fewer than 20 clusters a ``DegenerateDataWarning`` says the
        interval is unreliable.
    confidence_level : float, default 0.95

    Returns
    -------
    ReplicateAccuracyResult
        One row per model in ``to_frame()``: ``statistic`` (accuracy), ``ci_low``, ``ci_high``,
        ``standard_error``, ``var_between``, ``var_within``, ``naive_standard_error``, ``n``
        (questions), ``n_runs``, ``mean_replicates``, ``n_clusters``.

    Raises
    ------
    InvalidTypeError
        ``trials`` is not a DataFrame; ``correct`` or ``replicate`` of the wrong kind.
    InvalidValueError
        Missing columns; a replicate number given twice for one model and question, missing
        or below 1; a question with two cluster labels; ``confidence_level`` outside (0, 1).

    Warns
    -----
    DegenerateDataWarning
        With ``clusters``: fewer than 20 clusters.

    See Also
    --------
    trialwise.leaderboard : ``protocol="accuracy"`` ranks models on the same replicate means.
    collapse_replicates : the one-row-per-question table with the replicate mean as ``score``.

    Notes
    -----
    With ``x_ir`` the correctness of run ``r`` of question ``i`` (``K_i`` runs, ``n``
    questions), a question's score is ``s̄_i = mean_r x_ir`` and the accuracy
    ``s̄ = mean_i s̄_i``: every question counts once, however often it was run (a question
    run five times does not weigh five times as much). Its variance (Miller 2024, the section on resampling) is

    ``Var(s̄) = (σ²_between + E[σ²_i / K_i]) / n``,

    ``σ²_between`` the variance of the questions' true scores, ``σ²_i`` the run-to-run
    variance within question ``i``. Estimators: ``σ̂²_i = Σ_r (x_ir − s̄_i)² / (K_i − 1)``
    (unbiased, for ``K_i ≥ 2``; a question with one run takes the mean ``σ̂²_i`` of the
    others), ``var_within = mean_i σ̂²_i / K_i`` and
    ``var_between = Var̂(s̄_i) − var_within`` with the unbiased sample variance of the
    question scores (it can fall below 0 by chance when the questions differ little; it is
    not truncated, so that the two parts add up). Then ``SE² = (var_between + var_within)/n
    = Var̂(s̄_i)/n``, which is also the jackknife variance over questions. The interval is
    ``s̄ ± t_{G−1} · SE_jack`` with G units (questions, or clusters: the leave-one-cluster-out
    jackknife of the ratio ``Σ_c Σ_{i∈c} s̄_i / n_c``, the cluster-robust variance of
    :func:`trialwise._stats.intervals.jackknife_t_interval`); with hundreds of questions it
    is Miller's ``s̄ ± 1.96 SE``; its ends are clipped to [0, 1]. ``naive_standard_error`` treats the ``N = Σ K_i`` runs as
    ``N`` independent questions (``sd(x)/√N``): when the runs of a question agree, it is
    too small by about ``√K``, and its interval under-covers (docs/validity.md, "Repeated
    runs").

    References
    ----------
    Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
    evaluations. arXiv:2411.00640.

    Examples
    --------
    >>> import pandas as pd
    >>> import trialwise as tw
    >>> trials = pd.DataFrame({"subject": ["m"] * 6, "image": ["q1", "q1", "q2", "q2", "q3", "q3"],
    ...                        "replicate": [1, 2, 1, 2, 1, 2],
    ...                        "correct": [True, False, True, True, False, False]})
    >>> res = tw.leaderboards.replicate_accuracy(trials)
    >>> row = res.to_frame().iloc[0]
    >>> float(row.statistic), round(float(row.standard_error), 4), float(row.var_within)
    (0.5, 0.2887, 0.08333333333333333)
    """
    level = v.check_confidence_level(confidence_level)
    keys, rep, x, labels = _check_trials(trials, clusters)
    import pandas as pd

    question = pd.MultiIndex.from_frame(trials[keys].astype(str)) if len(keys) > 1 else trials[keys[0]].astype(str)
    q_codes = pd.factorize(question)[0]
    subj_codes, models = pd.factorize(trials["subject"])
    rows = []
    n_units = []
    for m in range(len(models)):
        sel = np.flatnonzero(subj_codes == m)
        local = np.unique(q_codes[sel], return_inverse=True)[1]
        unit = None
        if labels is not None:
            first = np.unique(local, return_index=True)[1]
            unit = pd.factorize(labels[sel][first])[0]
        out = _one_model(x[sel], local.astype(np.intp), unit, level)
        rows.append(out)
        n_units.append(out[-1])
    cols = list(zip(*rows))
    notes: tuple = ()
    if labels is not None:
        few = few_clusters_note(int(min(n_units)))
        if few is not None:
            warn(str(few), DegenerateDataWarning)
            notes = (few,)
    arr = [np.asarray(c, dtype=float) for c in cols]
    return ReplicateAccuracyResult(
        observers=tuple(models), statistic=arr[0], confidence_interval=ConfidenceInterval(arr[1], arr[2]),
        standard_error=arr[3], var_between=arr[4], var_within=arr[5], naive_standard_error=arr[6],
        n=arr[7].astype(np.int64), n_runs=arr[8].astype(np.int64), mean_replicates=arr[9],
        n_clusters=arr[10].astype(np.int64), confidence_level=level, method="replicate-mean",
        ci_method="cluster-jackknife-t" if labels is not None else "jackknife-t", result_notes=notes)


def collapse_replicates(trials: Any, clusters: str | None = None) -> Any:
    """One row per model and question, its ``score`` the mean of ``correct`` over the question's replicates.

    The rows keep the first run's other columns; ``correct`` is True where every run was right;
    ``attrs[SCORE_SOURCE]`` says where the score comes from, so that an accuracy leaderboard
    averages it (partial credit). A table without the ``replicate`` column is returned as it is.
    """
    if REPLICATE_COLUMN not in trials.columns:
        return trials
    keys, _, x, _ = _check_trials(trials, clusters, "trials")
    if SCORE_COLUMN in trials.columns and trials.attrs.get(SCORE_SOURCE) is not None:
        raise InvalidValueError(f"trials: a table with per-item scores (column {SCORE_COLUMN!r}) and repeated runs "
                                f"(column {REPLICATE_COLUMN!r}) is not supported; drop one of the two")
    group = ["subject", *keys]
    t = trials.drop(columns=[REPLICATE_COLUMN]).assign(_x=x)
    out = t.groupby(group, sort=False, as_index=False).first()
    means = t.groupby(group, sort=False)["_x"].mean().to_numpy()
    out = out.drop(columns=["_x"]).assign(**{SCORE_COLUMN: means})
    out["correct"] = means == 1.0
    out.attrs = {**trials.attrs, SCORE_SOURCE: REPLICATE_MEAN_SOURCE}
    return out
