"""Per-benchmark scores of a behavioural benchmark, one benchmark per experiment, and their average.

Brain-Score reports the model-vs-human data of Geirhos et al. (2021) as 17 benchmarks, one per
dataset (``Geirhos2021colour-error_consistency``, ``Geirhos2021cueconflict-error_consistency``, …,
``brainscore_vision/benchmarks/geirhos2021/benchmark.py``, brain-score/vision commit c642dbe), each
with its own ceiling from its own humans, ``score = clip(raw / ceiling, 0, 1)``; the parent score
``Geirhos2021`` is their average. :meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks`
computes the same from one benchmark: each experiment of its protocol is a benchmark, its raw values
and ceiling averaged over that experiment's conditions only (the protocol's averaging with the
experiment level kept), and the average over the benchmarks is Brain-Score's: the website's
aggregation (brain-score/brain-score.web commit e69aad0, ``benchmarks/sql/mv.sql``,
``populate_final_agg_scores``) divides the sum of the children's ceiled scores by the number of
children, a missing or NaN score counting as 0, and is NaN only when no child has a number. A
candidate is scored in the benchmarks whose images it answers and missing in the others (so, as on
Brain-Score, a model without a benchmark's score is ranked on an average that counts it as 0).

All intervals come from the benchmark's one joint bootstrap: the items of every condition are drawn
once (:mod:`trialwise.leaderboards.bootstrap`, unit ``u`` on child stream ``u`` of the seed), every
benchmark's raw values, ceiling and scores are computed on those replicates, and the average's
replicates are the averages of the benchmarks' replicate scores. Ranks within each benchmark rank the
raw values (the ceiling is common there), the average's rank its scores, both with
:func:`trialwise.leaderboards.ranks.rank_columns`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import Result
from trialwise._core.shown import shown
from trialwise._core.warnings import TrialwiseWarning, warn
from trialwise.brainscore.results import CeilingResult
from trialwise._stats.intervals import interval
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.ranks import rank_columns

__all__ = ["AVERAGE", "BENCHMARK_COLUMNS", "BenchmarkScores", "brainscore_average", "ceiled", "percentile",
           "score_benchmarks", "scored_experiments"]

#: The ``benchmark`` of the rows of the average over the benchmarks (Brain-Score's parent score).
AVERAGE = "average"

#: Columns of :attr:`BenchmarkScores.table`: the leaderboard's names (``score``, ``ci_low``, ``ci_high`` and the
#: rank columns, :data:`trialwise.leaderboards.table.TABLE_COLUMNS`) and :class:`BrainScoreResult`'s for the raw
#: value and the ceiling.
BENCHMARK_COLUMNS = ("benchmark", "observer", "score", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling",
                     "ceiling_low", "ceiling_high", "rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high",
                     "in_best_set", "group", "p_best", "n_undefined", "confidence_level", "metric", "protocol",
                     "n_resamples")

_RANKS = ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high")


@dataclass(frozen=True, repr=False)
class BenchmarkScores(Result):
    """Per-benchmark scores (one benchmark per experiment) and their average, as Brain-Score reports them.

    Made by :meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks`. ``table`` is long: first
    the rows of the average (``benchmark == "average"``, no raw value or ceiling), then every benchmark's,
    each block best first; :attr:`average` and :attr:`scores` are two views of it. ``ceilings`` holds each
    benchmark's :class:`CeilingResult`; ``bootstrap_distribution`` (B, candidates) the average's replicates
    and ``benchmark_distribution`` (B, benchmarks, candidates) the benchmarks' replicate scores, the
    candidates in the order of ``candidates``. ``missing`` names the benchmarks each candidate is not
    scored in (it does not answer all their images): it has no row in their blocks, NaN in ``scores`` and
    the replicates, and 0 in the average, as Brain-Score counts a missing score.
    """

    table: Any = field(metadata=shown(
        in_repr=True, repr_name="", format=lambda value, res: f"{len(res.candidates)} candidates"))
    benchmarks: tuple[str, ...] = field(metadata=shown("benchmarks", in_repr=True, format="count"))
    candidates: tuple[str, ...]
    ceilings: tuple[CeilingResult, ...]
    metric: str = field(metadata=shown("metric", in_repr=True, repr_name="", format="text"))
    protocol: str = field(metadata=shown("protocol", format="text"))
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    n_resamples: int = field(metadata=shown("joint bootstrap B", format="int", detail="percentile intervals"))
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    benchmark_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0, 0)), compare=False)
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = BENCHMARK_COLUMNS
    method: ClassVar[str] = ("per-experiment benchmarks, clip(raw / ceiling, 0, 1) each; their mean with a missing "
                             "or NaN score as 0 (Brain-Score); one joint bootstrap")
    _dict_exclude = Result._dict_exclude + ("benchmark_distribution",)
    summary_title = "Per-benchmark scores ({metric}, protocol {protocol})"
    summary_table = True

    @property
    def average(self):
        """The rows of the average over the benchmarks (Brain-Score's parent score), best first."""
        return self.table[self.table["benchmark"] == AVERAGE].reset_index(drop=True)

    @property
    def scores(self):
        """The ceiled scores as a candidate × benchmark table (rows in the order of the average's ranks)."""
        rows = self.table[self.table["benchmark"] != AVERAGE]
        wide = rows.pivot(index="observer", columns="benchmark", values="score")
        return wide.loc[list(self.average["observer"]), list(self.benchmarks)].rename_axis(columns=None)


def scored_experiments(trials: Any, units: Any, names: list[str], *, per_benchmark: bool) -> tuple[Any, list]:
    """The candidates' trials to score, and the note of what is left out.

    ``units``: the benchmark's ``(experiment, condition, images)``; ``names``: the candidates. A candidate
    answers exactly the images of every condition (else an error naming the first that differs);
    ``per_benchmark``: an experiment whose images it does not all answer is one it is not scored in, its
    trials there left out (note and warning ``benchmarks-missing``); images the humans did not see are
    still an error, and so is a candidate scored in no experiment.
    """
    import pandas as pd

    absent: dict[str, list[str]] = {}  # candidate -> the experiments it is not scored in
    for e, cond, images in units:
        got = trials[(trials["experiment"] == e) & (trials["condition"] == cond)].groupby("subject")["image"].agg(
            frozenset)
        for name in names:
            have = got.get(name, frozenset())
            if have != images and (not per_benchmark or have - images):  # images the humans did not see: an error
                raise InvalidValueError(f"candidate trials: {name!r} must answer exactly the benchmark's "
                                        f"{len(images)} images of condition {cond!r} of experiment {e!r}; it lacks "
                                        f"{len(images - have)} and has {len(have - images)} other(s)")
            if have != images and e not in absent.setdefault(name, []):
                absent[name].append(e)
    if not absent:
        return trials, []
    n_exp = len({e for e, _, _ in units})
    never = [name for name in names if len(absent.get(name, ())) == n_exp]
    if never:
        raise InvalidValueError(f"candidate trials: {', '.join(map(repr, never))} answer(s) all the images of none of "
                                f"the benchmark's {n_exp} experiments, so there is no benchmark to score "
                                f"{'it' if len(never) == 1 else 'them'} in (BehavioralBenchmark.missing_images lists "
                                f"what is missing)")
    gone = pd.MultiIndex.from_tuples([(name, e) for name, exps in absent.items() for e in exps])
    note = StructuredNote("benchmarks-missing", missing={n: sorted(x) for n, x in sorted(absent.items())},
                          n_benchmarks=n_exp)
    warn(note, TrialwiseWarning)
    return trials[~pd.MultiIndex.from_arrays([trials["subject"], trials["experiment"]]).isin(gone)], [note]


def brainscore_average(scores: Any, axis: int = -1) -> NDArray:
    """Brain-Score's average of ceiled scores along ``axis``: a NaN (or missing) score counts as 0, and the
    average is NaN only where every score is NaN.

    Examples
    --------
    >>> brainscore_average([[0.5, np.nan, 0.25], [np.nan, np.nan, np.nan]])
    array([0.25,  nan])
    """
    s = np.asarray(scores, dtype=float)
    none = np.isnan(s).all(axis=axis)
    return np.where(none, np.nan, np.nan_to_num(s, nan=0.0).mean(axis=axis))


def ceiled(raw: NDArray, raw_replicates: NDArray, ceiling: Any, ceiling_replicates: NDArray) -> tuple[NDArray, NDArray]:
    """``clip(raw / ceiling, 0, 1)`` of candidates (k,) and their replicates (B, k) on the ceiling's replicates
    (B,); NaN where the ceiling is ≤ 0 (undefined)."""
    c_r = np.asarray(ceiling_replicates, dtype=float)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.clip(np.asarray(raw, dtype=float) / ceiling, 0, 1) if ceiling > 0 else np.full(np.shape(raw), np.nan)
        score_r = np.where(c_r > 0, np.clip(raw_replicates / np.where(c_r > 0, c_r, 1), 0, 1), np.nan)
    return np.asarray(score, dtype=float), score_r


def percentile(dist: NDArray, estimate: NDArray, level: float) -> tuple[NDArray, NDArray]:
    """The percentile interval of replicates ``dist`` (B, …) around ``estimate`` (…), unbounded."""
    lo, hi = interval("percentile", dist, estimate, level, bounds=(-np.inf, np.inf))
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def _block(name: str, cands: tuple[str, ...], score: NDArray, score_r: NDArray, level: float,
           rank_by: tuple[NDArray, NDArray], ceiling: CeilingResult | None = None):
    """One benchmark's rows, its raw values ``rank_by`` (or the average's, ranked by its scores and without
    raw value or ceiling), best first."""
    import pandas as pd

    lo, hi = percentile(score_r, score, level)
    raw_o = raw_lo = raw_hi = np.full(len(cands), np.nan)
    c = (np.nan,) * 3
    if ceiling is not None:
        raw_o, (raw_lo, raw_hi) = rank_by[0], percentile(rank_by[1], rank_by[0], level)
        c = (ceiling.statistic, *ceiling.confidence_interval)
    ranked = rank_columns(rank_by[0], rank_by[1], confidence_level=level)
    frame = pd.DataFrame({
        "benchmark": name, "observer": list(cands), "score": score, "ci_low": lo, "ci_high": hi,
        "raw": raw_o, "raw_low": raw_lo, "raw_high": raw_hi,
        "ceiling": c[0], "ceiling_low": c[1], "ceiling_high": c[2],
        **{col: ranked[col] for col in _RANKS}, "in_best_set": ranked["in_best_set"], "group": ranked["group"],
        "p_best": ranked["p_best"], "n_undefined": np.isnan(score_r).sum(axis=0),
    })
    return frame.sort_values(["rank", "observer"], kind="stable")


def score_benchmarks(run: Any, ceiling_of: Callable[..., CeilingResult], bench: Any, *,
                     experiments: tuple[str, ...], candidates: tuple[str, ...], notes: Any) -> BenchmarkScores:
    """The result of :meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks` (its docstring).

    ``run``: the metric's values with one column per experiment (``raw`` (k, E), ``raw_replicates``
    (B, k, E), ``ceiling`` (E,), ``ceiling_replicates`` (B, E)); ``ceiling_of(value, replicates, where=)``
    the benchmark's :class:`CeilingResult` of one experiment; ``bench`` the benchmark (its ``metric``,
    ``protocol``, ``confidence_level``, ``n_resamples`` and ``seed``).
    """
    import pandas as pd

    level, cands = bench.confidence_level, tuple(candidates)
    missing = {c: tuple(x) for n in notes if getattr(n, "kind", "") == "benchmarks-missing"
               for c, x in n.values["missing"].items()}
    reps = np.full((bench.n_resamples, len(experiments), len(cands)), np.nan)
    scores = np.full((len(cands), len(experiments)), np.nan)
    blocks, ceilings = [], []
    for j, exp in enumerate(experiments):
        c_o, c_r = run.ceiling[j], run.ceiling_replicates[:, j]
        ceilings.append(ceiling_of(c_o, c_r, where=f"benchmark {exp!r}: "))
        here = np.array([exp not in missing.get(c, ()) for c in cands])  # scored in this benchmark
        raw_o, raw_r = run.raw[here, j], run.raw_replicates[:, here, j]
        scores[here, j], reps[:, j, here] = ceiled(raw_o, raw_r, c_o, c_r)
        blocks.append(_block(exp, tuple(np.array(cands, dtype=object)[here]), scores[here, j], reps[:, j, here],
                             level, (raw_o, raw_r), ceilings[-1]))
    avg, avg_r = brainscore_average(scores, axis=1), brainscore_average(reps, axis=1)
    table = pd.concat([_block(AVERAGE, cands, avg, avg_r, level, (avg, avg_r)), *blocks], ignore_index=True)
    table = table.assign(confidence_level=level, metric=bench.metric, protocol=bench.protocol.name,
                         n_resamples=bench.n_resamples)
    for col in _RANKS:
        table[col] = table[col].astype("Int64")
    return BenchmarkScores(table=table[list(BENCHMARK_COLUMNS)], benchmarks=tuple(experiments), candidates=cands,
                           ceilings=tuple(ceilings), metric=bench.metric, protocol=bench.protocol.name,
                           confidence_level=level, n_resamples=bench.n_resamples, bootstrap_distribution=avg_r,
                           benchmark_distribution=reps, missing=missing, notes=tuple(notes), seed=bench.seed)
