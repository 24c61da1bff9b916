"""The calibration of leaderboards on simulated benchmarks with known truth: benchmark_coverage_study.

Simulated observers with known accuracies and latent-class error consistency (:func:`_latent_class_kappa`)
give every row a true score; the study measures the coverage of the score intervals, of the rank
sets (per model and all at once) and the rejection rates of the tests of two models with equal
true scores and unequal accuracies.
"""

from __future__ import annotations

from dataclasses import dataclass

import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._stats.streams import child_rngs, records_seed
from trialwise.io.trials import TRIAL_COLUMNS
from trialwise.leaderboards.board import DEFAULT_CI_METHOD
from trialwise.leaderboards.scoring import leaderboard
from trialwise.leaderboards.differences import BENCHMARK_TESTS, BenchmarkTest
from trialwise.leaderboards.protocol import MODEL_VS_HUMAN
from trialwise.leaderboards.ranks import rank_intervals, rank_scores
from trialwise.validity.results import (
    BenchmarkCoverageStudy,
)
from trialwise.validity.studies import rate_se

__all__ = ["benchmark_coverage_study"]

#: The simulated benchmark of :func:`benchmark_coverage_study`: per observer the probability
#: of a correct answer on an easy and on a hard item.
BENCHMARK_HUMANS = ((0.97, 0.35), (0.95, 0.45), (0.92, 0.30), (0.90, 0.50), (0.96, 0.40))
BENCHMARK_MODELS = {"m1": (0.98, 0.20), "m2": (0.95, 0.40), "m3": (0.90, 0.55), "m4": (0.80, 0.55), "x": (0.93, 0.30)}


def _latent_class_kappa(pi: float, p: tuple[float, float], q: tuple[float, float]) -> float:
    """Population κ of two observers who answer independently given the item's class (easy w.p. pi)."""
    a = pi * p[0] + (1 - pi) * p[1]
    b = pi * q[0] + (1 - pi) * q[1]
    p11 = pi * p[0] * q[0] + (1 - pi) * p[1] * q[1]
    return 2 * (p11 - a * b) / (a * (1 - b) + b * (1 - a))


def _true_score(obs: tuple[float, float], others: Sequence[tuple[float, float]], easy_share: NDArray) -> float:
    """Hierarchical mean (over the others, conditions, experiments) of the population κ's."""
    per_exp = [np.mean([np.mean([_latent_class_kappa(pi, obs, h) for h in others]) for pi in row])
               for row in easy_share]
    return float(np.mean(per_exp))


@records_seed
def benchmark_coverage_study(
    *,
    n_datasets: int = 200,
    n_resamples: int = 1000,
    n_null_resamples: int | None = None,
    n_items: int = 200,
    n_experiments: int = 2,
    n_conditions: int = 3,
    confidence_level: float = 0.95,
    alphas: Sequence[float] = (0.05,),
    reference_items: int | None = None,
    min_items: int = 20,
    ci_method: str = DEFAULT_CI_METHOD,
    run_tests: bool = True,
    simulated_humans: Sequence[tuple[float, float]] | None = None,
    y_hard: float = 0.42,
    score_difference: float = 0.0,
    rng: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> BenchmarkCoverageStudy:
    """Calibration of the leaderboard on simulated benchmarks with known true scores.

    Every condition has ``n_items`` items, each easy or hard (the share of easy items
    varies over conditions from 0.5 to 0.8); every observer answers independently given
    the item's class, with its own probability of being right on easy and on hard items
    (:data:`BENCHMARK_HUMANS`, :data:`BENCHMARK_MODELS`). Pairwise population κ's are
    then exact, and so is every true benchmark score (model-vs-human averaging). Model
    ``y`` is constructed to have exactly the true score of ``x`` (plus ``score_difference``)
    with a different accuracy. Each of ``n_datasets`` benchmarks is drawn afresh (items and answers) and
    analysed by :func:`trialwise.leaderboard`.

    ``reference_items`` makes the overlaps sparse: each reference observer (human) then
    sees its own random ``reference_items`` of every condition's ``n_items`` items (as in
    texture-vs-shape's texture-filled-rotated experiment), so two humans share about
    ``reference_items² / n_items`` items and a model shares ``reference_items`` with each
    human. ``min_items`` is the protocol's rule for pairs that share too few items
    (:class:`trialwise.leaderboards.Protocol`); ``ci_method`` the leaderboard's interval; ``run_tests=False``
    skips the x-vs-y tests (faster).

    Measured:

    * ``coverage``: per observer (and the human–human row), the share of benchmarks
      whose interval (``ci_method``) contains the true score; with the mean width, the
      mean estimate minus the truth (``bias``), the standard deviation of the estimates
      (``sd``) and the share of intervals that contain their own estimate
      (``contains_estimate``), all over the ``n_scored`` benchmarks where the row has a
      score (a reference row whose pairs all share fewer than ``min_items`` items has none);
    * ``ranks``: for each ``rank_set`` — ``marginal`` (the table's ``rank_low``/``rank_high``),
      ``simultaneous`` (``rank_set_low``/``rank_set_high``) and ``percentile`` (the
      equal-tailed interval of the bootstrap ranks, the table's interval before
      Mogstad et al. 2024) — per model the share whose set contains its true rank (tied
      true scores count as covered by any of their ranks) and the mean width (high − low),
      and the share where every model's set does ("all models at once"); the row
      ``best`` gives the share of benchmarks whose confidence set of the best
      (``in_best_set``) holds every truly best model, and its mean size (in ``mean_width``);
    * the row ``x − y`` of ``table``: the same for the interval of the difference of x's
      and y's scores (:meth:`trialwise.leaderboards.Leaderboard.difference`; true value 0), with
      ``accuracy`` the difference of their accuracies;
    * ``tests``: the rejection rate of x vs y (equal true scores, unequal accuracies) by
      every benchmark-level test but ``paper`` (:data:`trialwise.leaderboards.differences.BENCHMARK_TESTS`),
      at each α.

    Parameters
    ----------
    n_datasets : int, default 200
        Simulated benchmarks.
    n_resamples : int, default 1000
        Bootstrap replicates of each leaderboard (at least 2).
    n_null_resamples : int, optional
        The most swaps M of the swap and combined tests (default: ``n_resamples``). Their
        sequential rule stops after 100 swaps at least as extreme as Δ, so it draws fewer
        (:func:`trialwise._stats.monte_carlo.sequential_pvalue`); where α·(M + 1) ≤ 100 its
        decisions at α are those of the fixed-M test, so a study of the sequential rule
        needs M > 100/α − 1.
    n_items : int, default 200
        Items per condition (at least 10).
    n_experiments, n_conditions : int, default 2 and 3
        Experiments of the benchmark and conditions per experiment.
    confidence_level : float, default 0.95
        Level of the intervals.
    alphas : sequence of float, default (0.05,)
        Levels of the x-vs-y tests.
    reference_items : int, optional
        Items each human sees per condition (sparse overlaps); default all ``n_items``.
    min_items : int, default 20
        The protocol's minimum number of shared items for a pair.
    ci_method : str, default "studentized"
        The leaderboard's interval method (default: the leaderboard's own default, so the
        study measures what users get).
    run_tests : bool, default True
        Run the x-vs-y tests (else ``tests`` is empty).
    simulated_humans : sequence of (float, float), optional
        The reference observers, each as its probabilities of being right on easy and on
        hard items (default :data:`BENCHMARK_HUMANS`: five humans); e.g. one human near
        ceiling, ``[(0.99, 0.80)]``, is the hardest design for the tests.
    y_hard : float, default 0.42
        Model y's probability of being right on hard items (x's is 0.30); its probability on
        easy items is solved for y's true score to equal x's (plus ``score_difference``), so
        ``y_hard`` sets the gap in accuracy between them.
    score_difference : float, default 0.0
        y's true score minus x's: 0 measures the tests' type-I error, anything else their
        power (and the ``x − y`` interval's coverage of ``−score_difference``).
    rng : seed or Generator, default None
        Seed or generator.
    progress : callable, optional
        Called as ``progress(label, done, total)`` after each benchmark.

    Returns
    -------
    BenchmarkCoverageStudy
        ``table`` (coverage), ``ranks`` and ``tests`` (DataFrames) with Monte-Carlo
        standard errors.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries.
    *Review of Economic Studies* 91(1), 476–518.

    Examples
    --------
    >>> import trialwise as tw
    >>> st = tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=50, n_items=40, n_experiments=1,
    ...                                           n_conditions=2, run_tests=False, rng=0)
    >>> st.table.observer.tolist()
    ['m1', 'm2', 'm3', 'm4', 'x', 'y', 'human–human']
    """
    r = v.check_positive_int(n_datasets, "n_datasets")
    b = v.check_positive_int(n_resamples, "n_resamples", minimum=2)
    m = b if n_null_resamples is None else v.check_positive_int(n_null_resamples, "n_null_resamples")
    n = v.check_positive_int(n_items, "n_items", minimum=10)
    n_e = v.check_positive_int(n_experiments, "n_experiments")
    n_c = v.check_positive_int(n_conditions, "n_conditions")
    level = v.check_confidence_level(confidence_level)
    if reference_items is not None:
        reference_items = v.check_positive_int(reference_items, "reference_items", minimum=2)
        if reference_items > n:
            raise InvalidValueError(f"`reference_items` must be at most `n_items` ({n}); got {reference_items}")
    w = _world(n_e, n_c, simulated_humans, y_hard, score_difference)
    names, kinds, truth, cand, true_rank = w.names, w.kinds, w.truth, w.candidates, w.true_rank
    proto = MODEL_VS_HUMAN.replace(name="simulated", exclude={}, experiments=None, min_items=min_items)
    gen = v.check_rng(rng)
    children = child_rngs(gen, r)
    est: dict[str, list[float]] = {o: [] for o in truth}
    lo: dict[str, list[float]] = {o: [] for o in truth}
    hi: dict[str, list[float]] = {o: [] for o in truth}
    # per kind of rank set (Leaderboard.table's marginal rank_low/high, simultaneous rank_set_low/high,
    # and the bootstrap-rank percentile interval the table had before): per model covered? and width
    kinds_rs = {"marginal": ("rank_low", "rank_high"), "simultaneous": ("rank_set_low", "rank_set_high"),
                "percentile": None}
    rank_cov: dict[str, dict[str, list[bool]]] = {s: {k: [] for k in cand} for s in kinds_rs}
    rank_width: dict[str, dict[str, list[float]]] = {s: {k: [] for k in cand} for s in kinds_rs}
    best_true = [k for k in cand if true_rank[k][0] == 1]
    best_cov, best_size = [], []
    pvals: dict[BenchmarkTest, list[float]] = {t: [] for t in BENCHMARK_TESTS if t != "paper"}
    diff_est: list[float] = []
    diff_lo: list[float] = []
    diff_hi: list[float] = []
    t0 = time.perf_counter()
    layout = _layout(names, kinds, n_e, n_c, n)  # the same for every dataset: everything but the answers
    for d, g in enumerate(children):
        trials = _simulate_trials(g, layout, w, n, reference_items)
        lb = leaderboard(trials, proto, n_resamples=b, confidence_level=level, ci_method=ci_method, rng=g,
                         workers=1)
        tab = lb.table.set_index("observer")
        for o in truth:
            est[o].append(tab.loc[o, "score"])
            lo[o].append(tab.loc[o, "ci_low"])
            hi[o].append(tab.loc[o, "ci_high"])
        kc = len(lb.candidates)
        pct = rank_intervals(rank_scores(lb.replicates[:, :kc], higher_is_better=lb.higher_is_better), level)
        for kind, cols_rs in kinds_rs.items():
            for k in cand:
                if cols_rs is None:
                    rl, rh = int(pct[0][lb.candidates.index(k)]), int(pct[1][lb.candidates.index(k)])
                else:
                    rl, rh = int(tab.loc[k, cols_rs[0]]), int(tab.loc[k, cols_rs[1]])
                rank_cov[kind][k].append(rl <= true_rank[k][1] and rh >= true_rank[k][0])
                rank_width[kind][k].append(rh - rl)
        best_cov.append(all(bool(tab.loc[k, "in_best_set"]) for k in best_true))
        best_size.append(int(tab.loc[cand, "in_best_set"].astype(bool).sum()))
        if run_tests:
            for test in pvals:
                pvals[test].append(lb.difference("x", "y", test=test, n_resamples=m).pvalue)
            res = lb.difference("x", "y", test="bootstrap")  # the interval does not depend on the test
            diff_est.append(res.statistic)
            diff_lo.append(res.confidence_interval.low)
            diff_hi.append(res.confidence_interval.high)
        if progress is not None:
            progress("benchmark coverage", d + 1, r)
    table = _score_table(est, lo, hi, w, run_tests, diff_est, diff_lo, diff_hi)
    rank_table = _rank_table(rank_cov, rank_width, best_cov, best_size, true_rank, cand, r)
    test_rows = []
    for test, p_list in pvals.items() if run_tests else ():
        p = np.asarray(p_list, dtype=float)
        for a in alphas:
            rate = float(np.mean(p <= a))
            test_rows.append(dict(test=test, alpha=float(a), rejection_rate=rate,
                              rejection_se=float(rate_se(np.asarray(rate), np.asarray(r)))))
    return BenchmarkCoverageStudy(table=table, n_datasets=r, n_resamples=b,
                                  wall_time=time.perf_counter() - t0, ranks=rank_table, tests=pd.DataFrame(test_rows),
                                  confidence_level=level, n_null_resamples=m)


@dataclass
class _World:
    """The simulated benchmark: observers' (p_easy, p_hard), the share of easy items per condition,
    every row's true score and the candidates' true ranks."""

    humans: list
    models: dict
    params: NDArray  # (observers, 2): p_easy, p_hard
    names: list
    kinds: list
    truth: dict
    candidates: list
    true_rank: dict
    easy: NDArray  # (experiments, conditions)
    hard_y: float


def _world(n_e: int, n_c: int, simulated_humans, y_hard, score_difference) -> _World:
    """The benchmark's observers and their true scores; y gets x's true score (plus ``score_difference``)."""
    from scipy.optimize import brentq

    easy = np.linspace(0.5, 0.8, n_e * n_c).reshape(n_e, n_c)
    try:
        h_arr = np.asarray(BENCHMARK_HUMANS if simulated_humans is None else simulated_humans, dtype=float)
    except (TypeError, ValueError):
        h_arr = np.empty(0)
    if h_arr.ndim != 2 or h_arr.shape[0] < 1 or h_arr.shape[1] != 2 or not np.all((h_arr > 0) & (h_arr < 1)):
        raise InvalidValueError("`simulated_humans` must be a non-empty sequence of (p_easy, p_hard) pairs of "
                                f"probabilities in (0, 1); got {simulated_humans!r}")
    humans = [(float(a), float(b)) for a, b in h_arr]
    hard_y = float(v.check_probability(y_hard, "y_hard", open_interval=True))
    models = dict(BENCHMARK_MODELS)
    target = _true_score(models["x"], humans, easy)
    # y: right more often on hard items and less on easy ones than x (for y_hard > 0.30), same true score
    shift = float(score_difference)
    if not np.isfinite(shift):
        raise InvalidValueError(f"`score_difference` must be a finite number; got {score_difference!r}")
    gap = lambda pe: _true_score((pe, hard_y), humans, easy) - target - shift  # noqa: E731
    if gap(0.5) * gap(0.999) > 0:
        raise InvalidValueError(f"`y_hard`={y_hard!r}: no probability on easy items in [0.5, 0.999] gives y the true "
                                "score of x (plus `score_difference`) with these `simulated_humans`; choose y_hard "
                                "closer to 0.30 or a smaller `score_difference`")
    p_easy = brentq(gap, 0.5, 0.999)
    models["y"] = (float(p_easy), hard_y)
    params = np.array(humans + list(models.values()))  # (observers, 2)
    names = [f"h{i + 1}" for i in range(len(humans))] + list(models)
    kinds = ["human"] * len(humans) + ["model"] * len(models)
    truth = {name: _true_score(models[name], humans, easy) for name in models}
    pairs = list(itertools.combinations(humans, 2))
    truth["human–human"] = float(np.mean([np.mean([np.mean([_latent_class_kappa(pi, p, q) for p, q in pairs])
                                                   for pi in row]) for row in easy])) if pairs else np.nan
    cand = list(models)
    true_rank = {}
    for k in cand:  # ranks 1 = highest score; a tie spans its ranks
        above = sum(truth[o] > truth[k] + 1e-9 for o in cand)
        tied = sum(abs(truth[o] - truth[k]) <= 1e-9 for o in cand)
        true_rank[k] = (above + 1, above + tied)
    return _World(humans=humans, models=models, params=params, names=names, kinds=kinds, truth=truth, candidates=cand,
                  true_rank=true_rank, easy=easy, hard_y=hard_y)


def _score_table(est, lo, hi, w: _World, run_tests: bool, diff_est, diff_lo, diff_hi):
    """Coverage, width and bias of every row's score interval (and of x − y), over the benchmarks scored."""
    import pandas as pd

    truth, models, params, names, easy, hard_y = w.truth, w.models, w.params, w.names, w.easy, w.hard_y
    rows = []
    intervals = {o: (est[o], lo[o], hi[o], truth[o]) for o in truth}
    if run_tests:
        intervals["x − y"] = (diff_est, diff_lo, diff_hi, truth["x"] - truth["y"])
    for o, (e_list, l_list, h_list, true) in intervals.items():
        e_, l_, h_ = (np.asarray(x, dtype=float) for x in (e_list, l_list, h_list))
        scored = np.isfinite(e_)  # a row has no score where none of its pairs shares min_items items
        e_, l_, h_ = e_[scored], l_[scored], h_[scored]
        n_ok = int(scored.sum())
        cov = float(np.mean((l_ <= true) & (true <= h_))) if n_ok else np.nan  # NaN: never scored
        if o == "x − y":
            acc = float(np.mean(easy * (models["x"][0] - models["y"][0]) + (1 - easy) * (models["x"][1] - hard_y)))
        else:
            p_easy, p_hard = params[names.index(o)] if o in models else (np.nan, np.nan)
            acc = float(np.mean(easy * p_easy + (1 - easy) * p_hard))
        rows.append(dict(observer=o, true_score=true, accuracy=acc,
                         coverage=cov, coverage_se=float(rate_se(np.asarray(cov), np.asarray(max(n_ok, 1)))),
                         mean_width=float(np.mean(h_ - l_)) if n_ok else np.nan,
                         bias=float(np.mean(e_) - true) if n_ok else np.nan,
                         sd=float(np.std(e_, ddof=1)) if n_ok > 1 else np.nan,
                         contains_estimate=float(np.mean((l_ <= e_) & (e_ <= h_))) if n_ok else np.nan,
                         n_scored=n_ok))
    return pd.DataFrame(rows)


def _rank_table(rank_cov, rank_width, best_cov, best_size, true_rank, cand, r: int):
    """Coverage and width of each kind of rank set, per model and all at once, and of the set of the best."""
    import pandas as pd

    ranks = []
    for kind in rank_cov:  # the kinds of rank set, in their order
        ranks += [dict(rank_set=kind, observer=k, true_rank=f"{true_rank[k][0]}" if true_rank[k][0] == true_rank[k][1]
                       else f"{true_rank[k][0]}–{true_rank[k][1]}", coverage=float(np.mean(rank_cov[kind][k])),
                       mean_width=float(np.mean(rank_width[kind][k]))) for k in cand]
        ranks.append(dict(rank_set=kind, observer="all models at once", true_rank="",
                          coverage=float(np.mean(np.all([rank_cov[kind][k] for k in cand], axis=0))),
                          mean_width=float(np.mean([rank_width[kind][k] for k in cand]))))
    ranks.append(dict(rank_set="best", observer="best set holds the best", true_rank="1",
                      coverage=float(np.mean(best_cov)), mean_width=float(np.mean(best_size))))
    rank_table = pd.DataFrame(ranks)
    rank_table["coverage_se"] = rate_se(rank_table.coverage.to_numpy(), np.full(len(rank_table), r))
    return rank_table


def _layout(names: list, kinds: list, n_e: int, n_c: int, n: int):
    """The trial table of one simulated benchmark without its answers: every observer on every item."""
    import pandas as pd

    cols: dict[str, list[Any]] = {c: [] for c in TRIAL_COLUMNS}
    for e in range(n_e):
        for c in range(n_c):
            for j, name in enumerate(names):
                cols["experiment"] += [f"e{e}"] * n
                cols["condition"] += [f"c{c}"] * n
                cols["subject"] += [name] * n
                cols["observer_type"] += [kinds[j]] * n
                cols["image"] += [f"e{e}c{c}i{i}" for i in range(n)]
    layout = pd.DataFrame({k: cols[k] for k in ("experiment", "condition", "subject", "observer_type", "image")})
    layout["truth"] = ""
    layout["response"] = ""
    return layout


def _simulate_trials(g: np.random.Generator, layout, w: _World, n: int, reference_items: int | None):
    """One simulated benchmark: per condition, which items are easy, then every observer's answers;
    with ``reference_items``, each human keeps a random subset of every condition's items."""
    blocks = []
    for pi in w.easy.ravel():
        z = g.random(n) < pi  # easy items
        prob = np.where(z[None, :], w.params[:, :1], w.params[:, 1:])  # (observers, items)
        blocks.append((g.random(prob.shape) < prob).ravel())
    trials = layout.assign(correct=np.concatenate(blocks))[list(TRIAL_COLUMNS)]
    if reference_items is not None:
        n_units, n_humans = w.easy.size, len(w.humans)
        seen = np.ones((n_units, len(w.names), n), bool)
        seen[:, :n_humans] = False
        picks = np.argsort(g.random((n_units, n_humans, n)), axis=-1)[..., :reference_items]
        np.put_along_axis(seen[:, :n_humans], picks, True, axis=-1)
        trials = trials[seen.ravel()]
    return trials
