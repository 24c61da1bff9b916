"""Leaderboards whose scores and ranks carry confidence (SPEC §6.1–6.2, §5.2 aggregated, §5.3)."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise import _validation as v
from trialwise._warnings import TrialwiseWarning, warn
from trialwise._results import BenchmarkDifferenceResult, ConfidenceInterval, _num, _p, _pct
from trialwise.benchmark.hierarchy import (
    Design,
    aggregate,
    bootstrap_entries,
    build_design,
    row_scores,
    swap_differences,
    swap_pvalue,
)
from trialwise.benchmark.protocol import HIGHER_IS_BETTER, Protocol, get_protocol
from trialwise.benchmark.ranks import kendall_tau, probability_best, rank_intervals, rank_scores
from trialwise.intervals import interval
from trialwise.resampling import monte_carlo_pvalue
from trialwise.significance import adjust_pvalues

__all__ = ["leaderboard", "difference_test", "Leaderboard", "KendallTau", "ExperimentBreakdown",
           "BENCHMARK_TESTS", "BENCHMARK_CI_METHODS"]

#: Tests of "two candidates are alike" at the benchmark level.
BENCHMARK_TESTS = ("swap", "bootstrap", "paper")
#: The default interval of scores and differences (docs/benchmark.md, "Sparse overlaps").
DEFAULT_CI_METHOD = "bc"
#: Interval methods for scores and differences (from the hierarchical bootstrap).
BENCHMARK_CI_METHODS = ("percentile", "bc", "basic", "hdi")

Progress = Callable[[str, int, int], None]


def _as_trials(trials: Any):
    import pandas as pd

    from trialwise.data import TRIAL_COLUMNS, _check_items, _check_layout, _check_path, read_trials

    if not isinstance(trials, pd.DataFrame):
        return read_trials(_check_path(trials, "trials", frame_ok=True))
    _check_layout(trials, "trials")
    if set(TRIAL_COLUMNS) <= set(trials.columns):
        t = trials[list(TRIAL_COLUMNS)]
        if t["correct"].dtype != bool:
            raise TypeError("trials: column 'correct' must be bool (use trialwise.read_trials)")
        _check_items(t, "trials")
        return t
    return read_trials(trials)


@dataclass(frozen=True)
class KendallTau:
    """Kendall's τ_b between the leaderboard's ranking and each bootstrap replicate's.

    ``mean`` is the summary of seed 000 §4.1; ``confidence_interval`` the equal-tailed
    interval of the replicate τ's; ``distribution`` all of them. ``float(tau)`` is the mean.
    """

    mean: float
    confidence_interval: ConfidenceInterval
    confidence_level: float
    distribution: NDArray

    def __float__(self) -> float:
        return float(self.mean)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"KendallTau(mean={_num(self.mean)}, {_pct(self.confidence_level)} of replicates in "
                f"[{_num(ci.low)}, {_num(ci.high)}], B={self.distribution.size})")


@dataclass(frozen=True)
class ExperimentBreakdown:
    """Per-experiment scores with CIs and ranks (``table``, long format), and the Kendall τ
    between the candidates' rankings in every two experiments (``rank_correlation``)."""

    table: Any
    rank_correlation: Any

    def __repr__(self) -> str:
        return (f"ExperimentBreakdown({self.table['experiment'].nunique()} experiments × "
                f"{self.table['observer'].nunique()} observers; .table, .rank_correlation)")


class Leaderboard:
    """A benchmark's scores with confidence intervals, rank intervals and tests.

    Made by :func:`leaderboard`. Attributes: ``table`` (one row per observer),
    ``kendall_tau``, ``excluded`` (what the protocol or the data left out, and why),
    ``notes``, ``protocol``, ``scores`` / ``replicates`` (observed and bootstrap scores,
    columns in ``observers`` order). Methods: :meth:`pairwise`, :meth:`difference`,
    :meth:`by_experiment`, :meth:`report`, :meth:`summary`.
    """

    def __init__(self, design: Design, n_resamples: int, confidence_level: float, ci_method: str, rng: Any,
                 workers: int | None, progress: Progress | None):
        self._design = design
        self.protocol: Protocol = design.protocol
        self.observers: tuple[str, ...] = design.rows
        self.candidates: tuple[str, ...] = design.candidates
        self.references: tuple[str, ...] = design.references
        self.reference_row: str = design.rows[-1]
        self.n_resamples = n_resamples
        self.confidence_level = confidence_level
        self.ci_method = ci_method
        self.higher_is_better = HIGHER_IS_BETTER[self.protocol.metric]
        self.excluded = design.excluded
        self.notes = list(design.notes)
        if len(design.references) == 1:
            warn(f"only one reference observer ({design.references[0]}): the reference row has no value",
                 TrialwiseWarning)
        self._workers = workers
        boot_gen, swap_gen = v.check_rng(rng).spawn(2)
        self._swap_entropy = int(swap_gen.integers(2**63))
        self._swap_cache: dict[tuple[int, int, int], tuple[float, NDArray]] = {}
        values = design.values()
        entries = bootstrap_entries(design, n_resamples, rng=boot_gen, workers=workers, progress=progress)
        self.scores = row_scores(values, design)  # a row without entries (no pair shares an item) is NaN
        self.replicates = row_scores(entries, design)
        exp_obs, key = aggregate(values, design, keep=("experiment",))
        exp_rep, _ = aggregate(entries, design, keep=("experiment",))
        del entries
        shape = (len(design.rows), len(design.experiments))
        self._exp_scores = np.full(shape, np.nan)
        self._exp_scores[key["row"], key["experiment"]] = exp_obs
        self._exp_replicates = np.full((n_resamples,) + shape, np.nan)
        self._exp_replicates[:, key["row"], key["experiment"]] = exp_rep
        self._build_table()

    # ------------------------------------------------------------------ summary numbers

    def _interval(self, dist: NDArray, estimate: NDArray) -> tuple[NDArray, NDArray]:
        lo, hi = interval(self.ci_method, dist, estimate, self.confidence_level, bounds=(-np.inf, np.inf))
        return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)

    def _build_table(self) -> None:
        import pandas as pd

        k = len(self.candidates)
        lo, hi = self._interval(self.replicates, self.scores)
        ranks = rank_scores(self.scores[:k], higher_is_better=self.higher_is_better)
        rep_ranks = rank_scores(self.replicates[:, :k], higher_is_better=self.higher_is_better)
        r_lo, r_hi = rank_intervals(rep_ranks, self.confidence_level)
        p_best = probability_best(rep_ranks)
        sign = 1.0 if self.higher_is_better else -1.0
        tau = kendall_tau(sign * self.scores[:k], sign * self.replicates[:, :k]) if k >= 2 else np.full(1, np.nan)
        alpha = (1 - self.confidence_level) / 2
        ok = tau[~np.isnan(tau)]
        self.kendall_tau = KendallTau(
            float(np.mean(ok)) if ok.size else np.nan,
            ConfidenceInterval(*(float(np.quantile(ok, q)) if ok.size else np.nan for q in (alpha, 1 - alpha))),
            self.confidence_level, tau)
        self._replicate_ranks = rep_ranks
        frame = pd.DataFrame({
            "observer": list(self.observers),
            "kind": ["candidate"] * k + ["reference"],
            "score": self.scores,
            "ci_low": lo,
            "ci_high": hi,
            "rank": np.append(ranks, np.nan),
            "rank_low": np.append(r_lo, np.nan),
            "rank_high": np.append(r_hi, np.nan),
            "p_best": np.append(p_best, np.nan),
            "n_undefined": np.isnan(self.replicates).sum(axis=0),
        })
        order = [k] + list(np.argsort(ranks, kind="stable"))
        self.table = frame.iloc[order].reset_index(drop=True)
        for col in ("rank", "rank_low", "rank_high"):
            self.table[col] = self.table[col].astype("Int64")

    # ------------------------------------------------------------------ differences

    def _row(self, name: Any) -> int:
        if name not in self.observers:
            raise ValueError(f"{name!r} is not an observer of this leaderboard; observers: {list(self.observers)}")
        return self.observers.index(name)

    def _swap(self, i: int, j: int, m: int) -> tuple[float, NDArray]:
        key = (i, j, m)
        if key not in self._swap_cache:
            ss = np.random.SeedSequence(self._swap_entropy, spawn_key=(i, j))
            self._swap_cache[key] = swap_differences(self._design, i, j, m, rng=np.random.Generator(np.random.PCG64(ss)))
        return self._swap_cache[key]

    def _test(self, i: int, j: int, test: str, m: int) -> tuple[float, NDArray]:
        boot = self.replicates[:, i] - self.replicates[:, j]
        observed = float(self.scores[i] - self.scores[j])
        if test == "bootstrap":
            d = boot[~np.isnan(boot)]
            tail = min(np.sum(d <= 0), np.sum(d >= 0))
            return float(min(1.0, 2 * monte_carlo_pvalue(tail, d.size))), boot
        if i == len(self.candidates) or j == len(self.candidates):
            raise ValueError(f"the {test} test compares two candidates; the reference row has no swap null")
        _, null = self._swap(min(i, j), max(i, j), m)
        null = null if i < j else -null
        if test == "swap":
            return swap_pvalue(observed, null), null
        from scipy import stats

        with np.errstate(invalid="ignore", divide="ignore"):
            p = float(stats.ttest_ind(boot, null, nan_policy="omit").pvalue)
        return p, null

    def difference(self, x: Any, y: Any, *, test: str = "swap", n_permutations: int | None = None) -> BenchmarkDifferenceResult:
        """Δ = score(x) − score(y) with its CI (joint bootstrap) and a test of "alike".

        ``test``: ``swap`` (default; permutation test through the whole hierarchy,
        swapping x's and y's responses item by item — exact when x and y are
        exchangeable), ``bootstrap`` (two-sided p from the bootstrap distribution of Δ,
        i.e. inverting its percentile interval; tests equal scores, any accuracies),
        ``paper`` (seed 000 §3.3: t-test between the bootstrap and swap distributions;
        for reproduction only — its p-value shrinks with B).
        """
        test = v.check_choice(test, "test", BENCHMARK_TESTS)
        m = self.n_resamples if n_permutations is None else v.check_positive_int(n_permutations, "n_permutations")
        i, j = self._row(x), self._row(y)
        if i == j:
            raise ValueError("`x` and `y` must be different observers")
        p, null = self._test(i, j, test, m)
        boot = self.replicates[:, i] - self.replicates[:, j]
        est = float(self.scores[i] - self.scores[j])
        lo, hi = self._interval(boot[:, None], np.array([est]))
        return BenchmarkDifferenceResult(
            x=str(x), y=str(y), statistic=est, confidence_interval=ConfidenceInterval(float(lo[0]), float(hi[0])),
            pvalue=p, score_x=float(self.scores[i]), score_y=float(self.scores[j]), protocol=self.protocol.name,
            metric=self.protocol.metric, confidence_level=self.confidence_level, ci_method=self.ci_method,
            test=test, n_resamples=self.n_resamples, n_permutations=0 if test == "bootstrap" else m,
            bootstrap_distribution=boot, null_distribution=null)

    def pairwise(self, *, which: str = "all", test: str = "swap", adjust: str = "holm",
                 n_permutations: int | None = None, workers: int | None = None,
                 progress: Progress | None = None):
        """Tests between candidates: every pair (``which="all"``) or neighbours in the ranking.

        Returns a DataFrame with one row per pair (better-ranked first): ``observer_a,
        observer_b, difference, ci_low, ci_high, pvalue, pvalue_adjusted, significant``
        (adjusted p below ``1 − confidence_level``), plus ``test`` and ``adjust``. The
        family for the correction is the set of pairs returned. See :meth:`difference`
        for the tests; ``adjust`` is ``holm``, ``bh``, ``by`` or ``none``. ``workers``:
        threads for the swap tests (default: all cores; the p-values do not depend on it).
        ``progress``: called as ``progress(label, done, total)`` before the first test and
        after each one (the command line draws its progress bar with it).
        """
        import pandas as pd

        which = v.check_choice(which, "which", ("all", "neighbours"))
        workers = v.check_workers(workers)
        test = v.check_choice(test, "test", BENCHMARK_TESTS)
        adjust = v.check_choice(adjust, "adjust", ("holm", "bh", "by", "none"))
        m = self.n_resamples if n_permutations is None else v.check_positive_int(n_permutations, "n_permutations")
        order = [self.observers.index(o) for o in self.table["observer"] if o != self.reference_row]
        if which == "all":
            pairs = [(order[a], order[b]) for a in range(len(order)) for b in range(a + 1, len(order))]
        else:
            pairs = list(zip(order[:-1], order[1:]))
        done = [0]
        if progress is not None:
            progress(f"{test} tests", 0, len(pairs))

        def run(pair: tuple[int, int]) -> float:
            p = self._test(pair[0], pair[1], test, m)[0]
            done[0] += 1
            if progress is not None:
                progress(f"{test} tests", done[0], len(pairs))
            return p

        n_workers = min(max(len(pairs), 1), (os.cpu_count() or 1) if workers is None else workers)
        if n_workers <= 1 or test == "bootstrap":
            pvals = [run(p) for p in pairs]
        else:
            with ThreadPoolExecutor(n_workers) as ex:
                pvals = list(ex.map(run, pairs))
        ia = np.array([p[0] for p in pairs], dtype=int)
        ib = np.array([p[1] for p in pairs], dtype=int)
        diff = self.scores[ia] - self.scores[ib]
        lo, hi = self._interval(self.replicates[:, ia] - self.replicates[:, ib], diff)
        pv = np.array(pvals, dtype=float)
        adj = adjust_pvalues(pv, adjust) if len(pv) else pv
        names = np.array(self.observers, dtype=object)
        return pd.DataFrame({
            "observer_a": names[ia], "observer_b": names[ib], "difference": diff, "ci_low": lo, "ci_high": hi,
            "pvalue": pv, "pvalue_adjusted": adj, "significant": adj < 1 - self.confidence_level,
            "test": test, "adjust": adjust,
        })

    # ------------------------------------------------------------------ per experiment

    def by_experiment(self) -> ExperimentBreakdown:
        """Per-experiment scores with CIs and ranks, and between-experiment rank correlations.

        Each experiment is scored with the protocol's levels below ``experiment`` (seed
        000, App. H), from the same bootstrap replicates as the overall scores.
        """
        import pandas as pd
        from scipy import stats

        k = len(self.candidates)
        rows = []
        for x, exp in enumerate(self._design.experiments):
            est = self._exp_scores[:, x]
            lo, hi = self._interval(self._exp_replicates[:, :, x], est)
            ranks = np.append(rank_scores(est[:k], higher_is_better=self.higher_is_better), np.nan)
            rep_ranks = rank_scores(self._exp_replicates[:, :k, x], higher_is_better=self.higher_is_better)
            r_lo, r_hi = rank_intervals(rep_ranks, self.confidence_level)
            for r, name in enumerate(self.observers):
                rows.append({"experiment": exp, "observer": name, "score": est[r], "ci_low": lo[r], "ci_high": hi[r],
                             "rank": ranks[r], "rank_low": r_lo[r] if r < k else np.nan,
                             "rank_high": r_hi[r] if r < k else np.nan})
        table = pd.DataFrame(rows)
        for col in ("rank", "rank_low", "rank_high"):
            table[col] = table[col].astype("Int64")
        exps = self._design.experiments
        corr = np.eye(len(exps))
        for a in range(len(exps)):
            for b in range(a + 1, len(exps)):  # τ needs two candidates with a score in both experiments
                x, y = self._exp_scores[:k, a], self._exp_scores[:k, b]
                ok = ~(np.isnan(x) | np.isnan(y))
                corr[a, b] = corr[b, a] = stats.kendalltau(x[ok], y[ok]).statistic if ok.sum() >= 2 else np.nan
        return ExperimentBreakdown(table, pd.DataFrame(corr, index=list(exps), columns=list(exps)))

    def entries(self):
        """Every pair value behind the scores: one row per (condition, observer, reference pair).

        Columns ``experiment, condition, observer, reference, n, accuracy_observer,
        accuracy_reference, c_obs, c_exp, value`` (the protocol's metric), observed data.
        """
        import pandas as pd

        d = self._design
        n, n11, ca, cb = d.entry_sums
        refs = d.references
        label = [refs[r] if row < len(d.candidates) else f"{refs[r // len(refs)]}|{refs[r % len(refs)]}"
                 for row, r in zip(d.entry_row, d.entry_reference)]
        with np.errstate(invalid="ignore", divide="ignore"):
            pa, pb = ca / n, cb / n
            frame = pd.DataFrame({
                "experiment": [d.units[u].experiment for u in d.entry_unit],
                "condition": [d.units[u].condition for u in d.entry_unit],
                "observer": np.array(d.rows, dtype=object)[d.entry_row], "reference": label, "n": n.astype(int),
                "accuracy_observer": pa, "accuracy_reference": pb, "c_obs": (n - ca - cb + 2 * n11) / n,
                "c_exp": pa * pb + (1 - pa) * (1 - pb), "value": d.values(),
            })
        return frame

    # ------------------------------------------------------------------ output

    def to_frame(self):
        """The leaderboard table (a copy)."""
        return self.table.copy()

    def summary(self, max_rows: int | None = None, *, notes: bool = True) -> str:
        """The table as text, with the rank stability and (``notes=True``) what was left out."""
        if max_rows is not None:
            max_rows = v.check_positive_int(max_rows, "max_rows", minimum=0)
        t = self.table if max_rows is None else self.table.head(max_rows + 1)
        w = max(len(str(o)) for o in t["observer"])
        lines = [f"Leaderboard — {self.describe()}",
                 f"{_pct(self.confidence_level)} intervals from a joint hierarchical bootstrap ({self.ci_method}, "
                 f"B = {self.n_resamples}); ranks: 1 = most {'alike' if self.higher_is_better else 'similar'}",
                 f"{'rank':>4} {'[interval]':>10}  {'observer':<{w}}  {'score':>6}  {'CI':<17} {'P(best)':>7}"]
        for r in t.itertuples():
            rank = "" if r.kind == "reference" else f"{r.rank:>4} {'[' + str(r.rank_low) + '–' + str(r.rank_high) + ']':>10}"
            pb = "" if r.kind == "reference" else f"{r.p_best:7.3f}"
            lines.append(f"{rank:>15}  {r.observer:<{w}}  {_num(r.score):>6}  "
                         f"[{_num(r.ci_low)}, {_num(r.ci_high)}]{'':<2} {pb}")
        if len(self.candidates) < 2:
            lines.append("Kendall's tau (ranking vs bootstrap rankings): not defined with a single candidate")
        else:
            lines.append(f"Kendall's tau (ranking vs bootstrap rankings): mean {_num(self.kendall_tau.mean)}, "
                         f"{_pct(self.confidence_level)} in [{_num(self.kendall_tau.confidence_interval.low)}, "
                         f"{_num(self.kendall_tau.confidence_interval.high)}]")
        lines += [f"Note: {n}" for n in self.notes] if notes else []
        return "\n".join(lines)

    def describe(self) -> str:
        """The protocol in one line, counting only the exclusions that apply to the scored experiments."""
        return self.protocol.describe(self._design.experiments)

    def __repr__(self) -> str:
        best = self.table[self.table["kind"] == "candidate"].iloc[0]
        return (f"Leaderboard({self.protocol.name!r}, {len(self.candidates)} candidates, B={self.n_resamples}, "
                f"best={best.observer!r} {_num(best.score)} [{_num(best.ci_low)}, {_num(best.ci_high)}], "
                f"kendall_tau={_num(self.kendall_tau.mean)})")

    def report(self, path: Any, *, title: str | None = None, pairwise: Any = None, shape_bias: Any = None) -> Any:
        """Write a self-contained HTML report (tables and figures embedded); returns the path.

        ``pairwise``: tests from :meth:`pairwise` to include; ``shape_bias``: a
        :func:`trialwise.shape_bias` result to include (e.g. on texture-vs-shape trials).
        """
        import os

        from trialwise.report import write_report

        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"`path` must be a file path (str or os.PathLike); got {type(path).__name__}")

        return write_report(self, path, title=title, pairwise=pairwise, shape_bias=shape_bias)


def leaderboard(
    trials: Any,
    protocol: str | Protocol = "model-vs-human",
    *,
    reference: Any = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: str = DEFAULT_CI_METHOD,
    rng: Any = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Leaderboard:
    """Score every candidate against the reference group, with CIs and rank confidence.

    Parameters
    ----------
    trials : DataFrame or path
        A trials table (:func:`trialwise.read_trials`, :func:`trialwise.read_model_vs_human`,
        or the bundled :func:`trialwise.datasets.model_vs_human`).
    protocol : Protocol or str
        How trials become scores (default ``"model-vs-human"``; see
        :data:`trialwise.benchmark.PROTOCOLS`).
    reference : str or list of str, optional
        The reference observers by name (default: the observers whose
        ``observer_type`` is ``protocol.reference``).
    n_resamples : int
        Bootstrap replicates B of the whole hierarchy.
    confidence_level : float
    ci_method : {"percentile", "basic", "hdi"}
        Interval from the bootstrap replicates. ``bc`` (default): the bias-corrected
        percentile interval (Efron 1981; BCa without acceleration), which corrects for the
        small-sample bias of κ that the percentile interval doubles where pairs share few
        items (``docs/benchmark.md``, "Sparse overlaps"); on dense benchmarks it equals
        the percentile interval within Monte-Carlo error. ``percentile``: the interval of
        seed 000 (Klein et al. 2025), to reproduce published intervals.
    rng : seed or Generator
    workers : int, optional
        Threads (default: all cores); results do not depend on it.
    progress : callable, optional
        Called as ``progress(label, done, total)`` before the bootstrap starts and after
        each condition (``trialwise leaderboard`` draws its progress bar with it).

    Returns
    -------
    Leaderboard

    Notes
    -----
    Items are resampled within each condition, the same replicate for every observer,
    and every level is recomputed, so scores, their differences and the ranks carry the
    item-sampling uncertainty jointly (SPEC §6.2). An undefined pair value in a replicate
    (both observers always right in a condition) is left out of its mean. Candidates
    that lack an experiment of the protocol are not scored (listed in ``excluded``).

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> lb = tw.leaderboard(trials, protocol=tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                     n_resamples=500, rng=0)
    >>> row = lb.table.set_index("observer").loc["resnet50"]
    >>> round(float(row.score), 3), bool(row.ci_low < row.score < row.ci_high)
    (0.068, True)
    >>> round(float(lb.table.score[0]), 3)   # the human–human row comes first
    0.331
    """
    proto = get_protocol(protocol)
    workers = v.check_workers(workers)
    b = v.check_positive_int(n_resamples, "n_resamples")
    level = v.check_confidence_level(confidence_level)
    method = v.check_choice(ci_method, "ci_method", BENCHMARK_CI_METHODS)
    design = build_design(_as_trials(trials), proto, reference)
    return Leaderboard(design, b, level, method, rng, workers, progress)


def difference_test(
    trials: Any,
    x: str,
    y: str,
    *,
    reference: Any = None,
    protocol: str | Protocol = "model-vs-human",
    test: str = "swap",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: str = DEFAULT_CI_METHOD,
    rng: Any = None,
) -> BenchmarkDifferenceResult:
    """Do two candidates differ in their benchmark score? (SPEC §5.2, aggregated.)

    ``reference``: an ``observer_type`` (e.g. ``"human"``) or the reference observers'
    names (default: ``protocol.reference``). Everything else as in :func:`leaderboard`
    and :meth:`Leaderboard.difference`; only x, y and the reference observers are used.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> res = tw.difference_test(trials, "clip-16", "resnet50", reference="human",
    ...                          protocol=tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                          n_resamples=2000, rng=0)
    >>> round(res.statistic, 3), bool(res.pvalue < 0.001)
    (0.088, True)
    """
    proto = get_protocol(protocol)
    t = _as_trials(trials)
    names = set(t["subject"])
    for name, arg in ((x, "x"), (y, "y")):
        if name not in names:
            raise ValueError(f"`{arg}`: observer {name!r} is not in the trials")
    if isinstance(reference, str) and reference in set(t["observer_type"]):
        proto, reference = proto.replace(reference=reference), None
    if reference is None:
        keep = t["subject"].isin([x, y]) | (t["observer_type"] == proto.reference)
    else:
        refs = [reference] if isinstance(reference, str) else list(reference)
        keep = t["subject"].isin([x, y, *refs])
    lb = leaderboard(t[keep.to_numpy()], proto, reference=reference, n_resamples=n_resamples,
                     confidence_level=confidence_level, ci_method=ci_method, rng=rng)
    return lb.difference(x, y, test=test)
