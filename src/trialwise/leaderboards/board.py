"""The Leaderboard: a benchmark's scores and ranks with their confidence.

:func:`trialwise.leaderboard` (:mod:`trialwise.leaderboards.scoring`) applies a protocol to
trials, runs the joint hierarchical bootstrap (:mod:`trialwise.leaderboards.replicates`) and
builds a :class:`Leaderboard` from its results (:meth:`Leaderboard.from_bootstrap`: the table,
rank intervals and Kendall's τ). The tests between candidates are in
:mod:`trialwise.leaderboards.differences`, the per-experiment breakdown in
:mod:`trialwise.leaderboards.experiments`.

The class holds the public methods and their docstrings; what they compute lives in the
modules they call: the table in :mod:`trialwise.leaderboards.table`, the notes on degenerate
data in :mod:`trialwise.leaderboards.degenerate`, the tests in
:mod:`trialwise.leaderboards.differences`, the rank sets in :mod:`trialwise.leaderboards.ranks`.
Why this module is long: about 770 lines, most of them the numpydoc docstrings (with runnable
examples) of the eleven public methods of the class users hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.format import format_number, format_percent
from trialwise._core.results import ConfidenceInterval, Result, jsonable
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.significance import Adjustment, adjust_pvalues, check_monte_carlo_resolution
from trialwise.leaderboards.differences import (
    BENCHMARK_TESTS,
    SWAP_TESTS,
    BenchmarkDifferenceResult,
    BenchmarkTest,
    RowStandardErrors,
    SwapNulls,
    contrast_standard_errors,
    difference_interval,
    difference_pvalue,
    pair_pvalues,
)
from trialwise.leaderboards.experiments import ExperimentBreakdown, experiment_breakdown, score_interval
from trialwise.leaderboards.hierarchy import Design
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import HIGHER_IS_BETTER, Protocol
from trialwise.leaderboards.ranks import BestSet, KendallTau, best_set, ranking_stability
from trialwise.leaderboards.replicates import BootstrapScores, Progress
from trialwise.leaderboards.table import TABLE_COLUMNS, entry_table, score_table
from trialwise.leaderboards.winner import WinnerScore, winner_score

__all__ = ["Leaderboard", "KendallTau", "ExperimentBreakdown", "BenchmarkDifferenceResult", "BENCHMARK_TESTS", "BENCHMARK_CI_METHODS"]

#: The default interval of scores and differences (docs/benchmark.md, "Sparse overlaps").
DEFAULT_CI_METHOD = "studentized"
#: Interval methods for scores and differences (from the hierarchical bootstrap).
BENCHMARK_CI_METHODS = ("percentile", "bc", "basic", "hdi", "studentized")
#: The interval of per-experiment scores under ``ci_method="studentized"``, which needs a
#: standard error of every replicate (computed for the overall row scores only).
STUDENTIZED_FALLBACK = "bc"
#: The interval of differences of scores under ``ci_method="studentized"``: the symmetric
#: bootstrap-t interval that the ``studentized`` test inverts.
STUDENTIZED_DIFFERENCE = "symmetric-studentized"


@dataclass(frozen=True, repr=False, eq=False)
class Leaderboard(Result):
    """A benchmark's scores with confidence intervals, rank intervals and tests.

    Made by :func:`leaderboard` (or :meth:`from_bootstrap`). Attributes: ``table`` (one
    row per observer), ``kendall_tau``, ``excluded`` (what the protocol or the data left
    out, and why), ``notes`` (each a :class:`~trialwise.leaderboards.notes.StructuredNote`
    with a ``kind``), ``protocol``, ``scores`` / ``replicates`` (observed and bootstrap
    scores, columns in ``observers`` order). Methods: :meth:`pairwise`,
    :meth:`difference`, :meth:`by_experiment`, :meth:`report`, :meth:`summary`.
    """

    protocol: Protocol
    observers: tuple[str, ...]
    candidates: tuple[str, ...]
    references: tuple[str, ...]
    n_resamples: int
    confidence_level: float
    ci_method: str
    table: Any
    kendall_tau: KendallTau
    scores: NDArray
    replicates: NDArray
    excluded: Any
    notes: tuple[str, ...]
    _design: Design
    _experiment_scores: NDArray
    _experiment_replicates: NDArray
    _swaps: SwapNulls
    _row_standard_errors: RowStandardErrors
    standard_errors: NDArray | None = None
    replicate_standard_errors: NDArray | None = None
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns: ClassVar[tuple[str, ...]] = TABLE_COLUMNS
    _dict_exclude: ClassVar[tuple[str, ...]] = ("replicates", "replicate_standard_errors")

    @classmethod
    def from_bootstrap(cls, design: Design, boot: BootstrapScores, *, confidence_level: float, ci_method: str,
                       notes: Any = None) -> Leaderboard:
        """The leaderboard of a design from its bootstrap (:func:`bootstrap_scores`): table, ranks, τ.

        What :func:`leaderboard` does after the bootstrap; call it to make leaderboards
        at other confidence levels or interval methods from one bootstrap.

        Parameters
        ----------
        design : Design
            The protocol applied to the trials
            (:func:`trialwise.leaderboards.hierarchy.build_design`).
        boot : BootstrapScores
            The joint hierarchical bootstrap of ``design`` (:func:`bootstrap_scores`), made
            with ``standard_errors=True`` for ``ci_method="studentized"``.
        confidence_level : float
            Of the score intervals, the rank sets, the set of the best and Kendall's τ; the
            tie groups' tests are at ``alpha = 1 - confidence_level``.
        ci_method : {"studentized", "bc", "percentile", "basic", "hdi"}
            The interval of the scores, as in :func:`leaderboard`.
        notes : list of str, optional
            The leaderboard's notes (default: the design's).

        Returns
        -------
        Leaderboard
            The table (columns as in :func:`leaderboard`), Kendall's τ, and the bootstrap
            kept for :meth:`difference`, :meth:`pairwise` and :meth:`by_experiment`.

        Raises
        ------
        ValueError
            ``ci_method="studentized"`` and ``boot`` has no standard errors.

        Examples
        --------
        >>> import trialwise as tw
        >>> from trialwise.leaderboards.hierarchy import build_design
        >>> from trialwise.leaderboards.board import Leaderboard
        >>> from trialwise.leaderboards.replicates import bootstrap_scores
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> design = build_design(tw.read_trials(trials), protocol)
        >>> boot = bootstrap_scores(design, 200, rng=0, standard_errors=True)
        >>> lb = Leaderboard.from_bootstrap(design, boot, confidence_level=0.95, ci_method="studentized")
        >>> lb.table.equals(tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0).table)
        True
        >>> pct = Leaderboard.from_bootstrap(design, boot, confidence_level=0.90, ci_method="percentile")
        >>> pct.table[["observer", "score", "ci_low", "ci_high"]].round(3)
              observer  score  ci_low  ci_high
        0  human–human  0.426   0.391    0.463
        1     resnet50  0.218   0.178    0.273
        2     cornet-s  0.218   0.176    0.267
        3      clip-16  0.202   0.161    0.248
        """
        k = len(design.candidates)
        scores, replicates = boot.scores, boot.replicates
        se, se_rep = boot.standard_errors, boot.replicate_standard_errors
        if ci_method == "studentized" and (se is None or se_rep is None):
            raise InvalidValueError("ci_method='studentized' needs the bootstrap's standard errors: "
                                    "bootstrap_scores(..., standard_errors=True)")
        table, notes = score_table(design, boot, confidence_level=confidence_level, ci_method=ci_method,
                                   notes=design.notes if notes is None else notes)
        return cls(
            protocol=design.protocol, observers=design.rows, candidates=design.candidates,
            references=design.references, n_resamples=replicates.shape[0], confidence_level=confidence_level,
            ci_method=ci_method, table=table,
            kendall_tau=ranking_stability(scores[:k], replicates[:, :k],
                                          higher_is_better=HIGHER_IS_BETTER[design.protocol.metric],
                                          confidence_level=confidence_level),
            scores=scores, replicates=replicates, excluded=design.excluded,
            notes=notes, _design=design,
            _experiment_scores=boot.experiment_scores, _experiment_replicates=boot.experiment_replicates,
            _swaps=SwapNulls(design, boot.swap_seed),
            _row_standard_errors=RowStandardErrors(design, replicates.shape[0], boot.bootstrap_rng, se, se_rep),
            standard_errors=boot.standard_errors,
            replicate_standard_errors=boot.replicate_standard_errors,
        )

    # ------------------------------------------------------------------ vocabulary

    @property
    def reference_row(self) -> str:
        """The name of the reference group's own row (pairs of distinct reference observers)."""
        return self.observers[-1]

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger score means "more alike" (ranks: 1 = most alike)."""
        return HIGHER_IS_BETTER[self.protocol.metric]

    @property
    def statistic(self) -> NDArray:
        """The scores, in ``observers`` order (the same as ``scores``)."""
        return self.scores

    @property
    def method(self) -> str:
        """How the intervals were made."""
        return f"joint hierarchical bootstrap ({self.ci_method})"

    @property
    def difference_ci_method(self) -> str:
        """The interval of differences of scores: ``ci_method``, except the symmetric
        bootstrap-t (``"symmetric-studentized"``, the interval the ``studentized`` test
        inverts) under ``studentized``."""
        return STUDENTIZED_DIFFERENCE if self.ci_method == "studentized" else self.ci_method

    @property
    def experiment_ci_method(self) -> str:
        """The interval of per-experiment scores (:meth:`by_experiment`): ``ci_method``,
        except ``bc`` under ``studentized`` (whose standard errors are the overall scores')."""
        return STUDENTIZED_FALLBACK if self.ci_method == "studentized" else self.ci_method

    def _difference_interval(self, rows_x: NDArray, rows_y: NDArray) -> tuple[NDArray, NDArray, list[StructuredNote]]:
        """The interval of ``score_x − score_y`` for pairs of rows (``difference_ci_method``),
        ``bc`` where the studentized one is unbounded (then with a note, and a warning)."""
        dist = self.replicates[:, rows_x] - self.replicates[:, rows_y]
        estimate = self.scores[rows_x] - self.scores[rows_y]
        if self.difference_ci_method != STUDENTIZED_DIFFERENCE:
            lo, hi = score_interval(self.difference_ci_method, dist, estimate, self.confidence_level)
            return lo, hi, []
        se, se_rep = self._row_standard_errors.get()
        s0, s_rep = contrast_standard_errors(self.replicates, se, se_rep, rows_x, rows_y)
        lo, hi, fallback, n_flat = difference_interval(dist, estimate, s0, s_rep, self.confidence_level)
        if not fallback.any():
            return lo, hi, []
        note = StructuredNote(
            "studentized-fallback", names=[f"{self.observers[a]} − {self.observers[b]}" for a, b in
                                           zip(rows_x[fallback], rows_y[fallback])],
            n_flat=[int(n) for n in n_flat[fallback]], n_resamples=self.n_resamples,
            confidence_level=self.confidence_level, difference=True)
        warn(str(note), DegenerateDataWarning)  # user → wrapper → difference/pairwise → here
        return lo, hi, [note]

    # ------------------------------------------------------------------ differences

    def _row(self, name: Any) -> int:
        if name in self.observers:
            return self.observers.index(name)
        excluded = self.excluded
        hit = excluded[excluded["subject"] == name] if excluded is not None and len(excluded) else None
        if hit is not None and len(hit):  # a candidate the data left out: say why (its row of ``excluded``)
            rec = hit.iloc[0]
            raise InvalidValueError(
                f"{name!r} was not scored, so it has no score to compare: {rec['reason']} (experiments: "
                f"{rec['experiment']}); see the leaderboard's `excluded` and `notes`. Scored observers: "
                f"{list(self.observers)}")
        if name in self.references:
            raise InvalidValueError(
                f"{name!r} is a reference observer: it has no row of its own; the reference group's row is "
                f"{self.reference_row!r}. Observers: {list(self.observers)}")
        raise InvalidValueError(f"{name!r} is not an observer of this leaderboard; observers: {list(self.observers)}")

    def difference(self, x: Any, y: Any, *, test: BenchmarkTest = "combined",
                   n_resamples: int | None = None) -> BenchmarkDifferenceResult:
        """Δ = score(x) − score(y) with its CI (joint bootstrap) and a test of "alike".

        Parameters
        ----------
        x, y : str
            Two observers of the leaderboard (``observers``); the ``combined``, ``swap``
            and ``paper`` tests need two candidates.
        test : {"combined", "studentized", "swap", "bootstrap", "paper"}
            ``combined`` (default): the larger p-value of ``swap`` and ``studentized``, which
            holds its level in every design of docs/validity.md, where each alone does not
            in some. ``studentized``: symmetric bootstrap-t test of equal scores (the SE of
            Δ on the data and on every replicate, from the infinitesimal jackknife; a
            leaderboard made with another ``ci_method`` computes them once, re-running its
            bootstrap). ``swap``: permutation test through the whole hierarchy, swapping x's
            and y's responses item by item — exact when x and y are exchangeable, i.e. a test
            of "x and y answer alike", which unequal accuracies already violate.
            ``bootstrap``: two-sided p from the bootstrap distribution of Δ (inverting its
            percentile interval; liberal when the bias of the scores differs, kept for
            comparison). ``paper``: Klein et al. 2025, §3.3, t-test between the bootstrap and
            swap distributions, for reproduction only (its p-value shrinks with B).
        n_resamples : int, optional
            The most swaps M of the swap test (default: the leaderboard's B); a large p-value
            stops early (Besag & Clifford's sequential rule, docs/benchmark.md).

        Returns
        -------
        BenchmarkDifferenceResult
            ``statistic`` (Δ), ``confidence_interval`` (``difference_ci_method``, from the
            leaderboard's replicates), ``pvalue``, and the distributions behind them. Where
            the symmetric studentized interval is unbounded (the SE of Δ is 0 on more than α
            of the replicates, as with two clusters per condition) it is ``bc`` instead
            (``ci_method`` says so), with a ``studentized-fallback`` note and a
            ``DegenerateDataWarning`` (docs/benchmark.md, "Degenerate data").
            A candidate that was not scored (``excluded``) is an error that says why.

        References
        ----------
        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> lb.difference("clip-16", "resnet50")
        BenchmarkDifferenceResult(clip-16 − resnet50: delta=-0.016, 95% CI [-0.081, 0.048], p=0.587 (combined), protocol='model-vs-human')
        >>> {t: round(lb.difference("clip-16", "resnet50", test=t).pvalue, 3) for t in ("studentized", "swap")}
        {'studentized': 0.587, 'swap': 0.552}
        """
        test = v.check_choice(test, "test", BENCHMARK_TESTS)
        m = self.n_resamples if n_resamples is None else v.check_positive_int(n_resamples, "n_resamples")
        i, j = self._row(x), self._row(y)
        if i == j:
            raise InvalidValueError("`x` and `y` must be different observers")
        p, null = difference_pvalue(self.scores, self.replicates, i, j, test=test, n_null_resamples=m,
                                    swaps=self._swaps, standard_errors=self._row_standard_errors)
        boot = self.replicates[:, i] - self.replicates[:, j]
        est = float(self.scores[i] - self.scores[j])
        lo, hi, notes = self._difference_interval(np.array([i]), np.array([j]))
        return BenchmarkDifferenceResult(
            x=str(x), y=str(y), statistic=est, confidence_interval=ConfidenceInterval(float(lo[0]), float(hi[0])),
            pvalue=p, score_x=float(self.scores[i]), score_y=float(self.scores[j]), protocol=self.protocol.name,
            metric=self.protocol.metric, confidence_level=self.confidence_level,
            ci_method=STUDENTIZED_FALLBACK if notes else self.difference_ci_method,
            test=test, n_resamples=self.n_resamples, n_null_resamples=len(null) if test in SWAP_TESTS else 0,
            bootstrap_distribution=boot, null_distribution=null, notes=tuple(notes))

    def pairwise(self, *, which: str = "all", test: BenchmarkTest = "combined", adjust: Adjustment = "holm",
                 alpha: float = 0.05,
                 n_resamples: int | None = None, workers: int | None = None,
                 progress: Progress | None = None):
        """Tests between candidates: every pair (``which="all"``) or neighbours in the ranking.

        Parameters
        ----------
        which : {"all", "neighbours"}
            Every pair of candidates, or each candidate and the next in the ranking. The
            family for the correction is the set of pairs returned.
        test : {"combined", "studentized", "swap", "bootstrap", "paper"}
            The test of "alike", as in :meth:`difference`.
        adjust : {"holm", "bh", "by", "none"}
            The correction for many tests (:func:`trialwise._stats.significance.adjust_pvalues`):
            Holm's step-down (family-wise error rate), Benjamini–Hochberg or
            Benjamini–Yekutieli (false discovery rate), or none.
        alpha : float
            A pair is ``significant`` when its adjusted p-value is below ``alpha``.
        n_resamples : int, optional
            The most swaps M of the swap test (default: the leaderboard's B); a large p-value
            stops early (Besag & Clifford's sequential rule, docs/benchmark.md).
        workers : int, optional
            Threads for the swap tests (default: all cores; the p-values do not depend on it).
        progress : callable, optional
            Called as ``progress(label, done, total)`` before the first test and after each
            one (the command line draws its progress bar with it).

        Returns
        -------
        DataFrame
            One row per pair (better-ranked first): ``observer_a, observer_b, difference,
            ci_low, ci_high, pvalue, pvalue_adjusted, significant``, plus ``test`` and
            ``adjust``; ``attrs["notes"]``: the ``studentized-fallback`` note naming the
            pairs whose interval is ``bc`` (as in :meth:`difference`), if any, and the
            ``monte-carlo-resolution`` note when B (or M) is too small for any adjusted p-value
            to reach ``alpha``
            (:func:`trialwise._stats.significance.check_monte_carlo_resolution`).

        Warns
        -----
        MonteCarloResolutionWarning
            When no adjusted p-value can reach ``alpha`` whatever the data: a Monte-Carlo
            p-value is at least 1/(B + 1) (twice that for ``test="bootstrap"``), and Holm
            multiplies the smallest by the number of pairs.

        References
        ----------
        Holm, S. (1979). A simple sequentially rejective multiple test procedure.
        *Scandinavian Journal of Statistics* 6(2), 65–70.

        Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate: a practical
        and powerful approach to multiple testing. *Journal of the Royal Statistical Society:
        Series B* 57(1), 289–300.

        Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in
        multiple testing under dependency. *Annals of Statistics* 29(4), 1165–1188.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> pw = lb.pairwise()
        >>> pw[["observer_a", "observer_b", "difference", "pvalue", "pvalue_adjusted"]].round(3)
          observer_a observer_b  difference  pvalue  pvalue_adjusted
        0   resnet50   cornet-s       0.001   0.990              1.0
        1   resnet50    clip-16       0.016   0.587              1.0
        2   cornet-s    clip-16       0.016   0.697              1.0
        >>> bool(pw.significant.any())
        False
        >>> len(lb.pairwise(which="neighbours", test="bootstrap", adjust="bh"))
        2
        """
        import pandas as pd

        which = v.check_choice(which, "which", ("all", "neighbours"))
        workers = v.check_workers(workers)
        test = v.check_choice(test, "test", BENCHMARK_TESTS)
        adjust = v.check_choice(adjust, "adjust", ("holm", "bh", "by", "none"))
        alpha_checked = v.check_probability(alpha, "alpha", open_interval=True)
        m = self.n_resamples if n_resamples is None else v.check_positive_int(n_resamples, "n_resamples")
        order = [self.observers.index(o) for o in self.table["observer"] if o != self.reference_row]
        if which == "all":
            pairs = [(order[a], order[b]) for a in range(len(order)) for b in range(a + 1, len(order))]
        else:
            pairs = list(zip(order[:-1], order[1:]))
        pv = pair_pvalues(self.scores, self.replicates, pairs, test=test, n_null_resamples=m, swaps=self._swaps,
                          standard_errors=self._row_standard_errors, workers=workers, progress=progress)
        ia = np.array([p[0] for p in pairs], dtype=int)
        ib = np.array([p[1] for p in pairs], dtype=int)
        diff = self.scores[ia] - self.scores[ib]
        lo, hi, notes = self._difference_interval(ia, ib)
        adj = adjust_pvalues(pv, adjust) if len(pv) else pv
        names = np.array(self.observers, dtype=object)
        table = pd.DataFrame({
            "observer_a": names[ia], "observer_b": names[ib], "difference": diff, "ci_low": lo, "ci_high": hi,
            "pvalue": pv, "pvalue_adjusted": adj, "significant": adj < alpha_checked,
            "test": test, "adjust": adjust,
        })
        floor = None
        if test != "paper":  # Monte-Carlo p-values: at least sides/(B + 1) (the bootstrap test: twice a tail)
            b = m if test == "swap" else min(m, self.n_resamples) if test == "combined" else self.n_resamples
            floor = check_monte_carlo_resolution(int(np.sum(~np.isnan(pv))), n_resamples=b,
                                                 alpha=float(alpha_checked), adjust=adjust,
                                                 sides=2 if test == "bootstrap" else 1, what="difference")
        table.attrs["notes"] = tuple(notes) + ((floor,) if floor is not None else ())
        return table

    def winner(self) -> WinnerScore:
        """The best-ranked candidate's score corrected for the winner's curse.

        The candidate that ranks first was selected because its score came out high, so its
        observed score overstates its true score when others are close. The correction
        re-selects the winner in every bootstrap replicate (:mod:`trialwise.leaderboards.winner`).

        Returns
        -------
        WinnerScore
            ``observer``, the observed ``score``, the selection-adjusted ``statistic``, the
            estimated ``bias`` and a ``confidence_interval`` for the winner's true score.

        Notes
        -----
        Measured on simulated accuracy leaderboards with four nearly tied models
        (docs/benchmark.md, "Side by side with honestboard"): the bias of the observed
        winner's score drops from +0.015 to +0.003 and the interval covers the winner's true
        score in 94.5 % of the boards (T = 500 items, R = 200, B = 1,000). When the
        leaderboard resamples clusters of questions (``clusters=``) the interval is the
        studentized one of the maximum, with the infinitesimal-jackknife standard errors of
        the scores (computed once if the leaderboard's ``ci_method`` did not need them):
        the basic interval covered 82.2 % at 10 clusters and 91.6 % at 40 (docs/validity.md,
        "The winner's score with clusters").

        References
        ----------
        Efron & Tibshirani (1993). *An Introduction to the Bootstrap*, §10 (bias estimation).
        Chapman & Hall.

        Examples
        --------
        >>> import trialwise as tw
        >>> lb = tw.leaderboard(tw.datasets.model_vs_human_sample(), protocol="accuracy", n_resamples=500, rng=0)
        >>> w = lb.winner()
        >>> w.observer, round(w.score, 4), bool(w.statistic <= w.score)
        ('clip-16', 0.8875, True)
        """
        k = len(self.candidates)
        ses = None
        if self.resampled == "clusters":  # the studentized interval of the maximum (winner.py)
            se, se_rep = self._row_standard_errors.get()
            ses = (se[:k], se_rep[:, :k])
        i, adjusted, bias, lo, hi, used, ci_method = winner_score(
            self.scores[:k], self.replicates[:, :k], higher_is_better=self.higher_is_better,
            confidence_level=self.confidence_level, standard_errors=ses)
        notes: tuple[str, ...] = () if used == self.n_resamples else (
            f"{self.n_resamples - used} replicate(s) with an undefined score of a candidate are left out",)
        if ses is not None and ci_method != "studentized":
            notes += ("the studentized interval of the winner is unbounded (its standard error is 0 on more than "
                      f"{(1 - self.confidence_level) / 2:.1%} of the replicates): the basic interval instead",)
        return WinnerScore(observer=self.candidates[i], statistic=adjusted, score=float(self.scores[i]), bias=bias,
                           confidence_interval=ConfidenceInterval(lo, hi), confidence_level=self.confidence_level,
                           n_resamples=self.n_resamples, n_used=used, notes=notes, ci_method=ci_method)

    def best_set(self, k: int = 1) -> BestSet:
        """Confidence set of the ``k`` best candidates (``k=1``: the table's ``in_best_set``).

        Parameters
        ----------
        k : int, default 1
            The set should hold every candidate whose true rank is at most ``k``.

        Returns
        -------
        BestSet
            ``observers`` (the set, best-ranked first), ``in_set`` per candidate.

        Notes
        -----
        A candidate is left out when at least ``k`` others are significantly better by
        one-sided simultaneous studentized intervals of the pairwise differences, refined
        step-down over candidates, from the leaderboard's bootstrap replicates
        (:func:`trialwise.leaderboards.ranks.best_set`). The set holds every truly top-``k``
        candidate with probability ≥ ``confidence_level`` (Mogstad, Romano, Shaikh & Wilhelm
        2024, the τ-best set with τ = ``k``).

        References
        ----------
        Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks.
        *Review of Economic Studies* 91(1), 476–518.

        Examples
        --------
        >>> import trialwise as tw
        >>> lb = tw.leaderboard(tw.datasets.model_vs_human("cue-conflict"),
        ...                     protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
        ...                     n_resamples=300, rng=2)
        >>> best = lb.best_set()
        >>> set(best.observers) <= set(lb.best_set(k=3).observers)
        True
        """
        n = len(self.candidates)
        k = v.check_positive_int(k, "k", maximum=max(n, 1))
        s = self.scores[:n]
        inside = best_set(s, self.replicates[:, :n], k=k, higher_is_better=self.higher_is_better,
                          confidence_level=self.confidence_level)
        order = np.argsort(-s if self.higher_is_better else s, kind="stable")
        return BestSet(observers=tuple(self.candidates[i] for i in order if inside[i]), candidates=self.candidates,
                       scores=s.copy(), in_set=inside, k=k, confidence_level=self.confidence_level)

    # ------------------------------------------------------------------ per experiment

    def by_experiment(self) -> ExperimentBreakdown:
        """Per-experiment scores with CIs and ranks, and between-experiment rank correlations.

        Each experiment is scored with the protocol's levels below ``experiment`` (Klein et
        al. 2025, App. H), from the same bootstrap replicates as the overall scores; the
        intervals are ``experiment_ci_method``'s.

        Returns
        -------
        ExperimentBreakdown
            ``table`` (one row per experiment and observer: ``score, ci_low, ci_high, rank,
            rank_low, rank_high``) and ``rank_correlation`` (Kendall's τ between the
            candidates' rankings in every two experiments).

        References
        ----------
        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> by = lb.by_experiment()
        >>> by.table.pivot(index="observer", columns="experiment", values="rank")
        experiment   colour  contrast
        observer
        clip-16           1         3
        cornet-s          3         1
        human–human    <NA>      <NA>
        resnet50          2         2
        >>> float(by.rank_correlation.loc["colour", "contrast"])
        -1.0
        """
        n = len(self.candidates) if self.protocol.against_ground_truth else len(self.observers)  # no reference row
        return experiment_breakdown(self._design.experiments, self.observers[:n], len(self.candidates),
                                    self._experiment_scores[:n], self._experiment_replicates[:, :n],
                                    ci_method=self.experiment_ci_method,
                                    confidence_level=self.confidence_level,
                                    higher_is_better=self.higher_is_better)

    def entries(self):
        """Every pair value behind the scores: one row per (condition, observer, reference pair).

        Returns
        -------
        DataFrame
            Columns ``experiment, condition, observer, reference, n, accuracy_observer,
            accuracy_reference, c_obs, c_exp, value`` (the protocol's metric) on the observed
            data; ``n`` is the number of items the pair shares, ``reference`` a reference
            observer (``"a|b"`` for the reference row's pairs).

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> e = lb.entries()
        >>> e.query("observer == 'resnet50'").head(3)[["condition", "reference", "n", "value"]].round(3)
           condition   reference    n  value
        8         bw  subject-01  640  0.231
        9         bw  subject-02  640  0.220
        10        bw  subject-03  640  0.213
        >>> e.groupby("experiment").size().to_dict()
        {'colour': 18, 'contrast': 90}
        """
        return entry_table(self._design)

    # ------------------------------------------------------------------ output

    def summary(self, max_rows: int | None = None, *, notes: bool = True) -> str:
        """The table as text, with the rank stability and (``notes=True``) what was left out.

        The leaderboard's own layout (not the fields' lines of :class:`Result`): one line per
        observer with its rank, rank sets, score, interval, P(best) and tie group, and
        ``max_rows`` to show the best few.

        Parameters
        ----------
        max_rows : int, optional
            Show the reference row and the ``max_rows`` best-ranked candidates (default: all).
        notes : bool, default True
            Add the leaderboard's notes (what the protocol or the data left out, and why).

        Returns
        -------
        str

        References
        ----------
        Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
        applications to mobility across neighbourhoods and academic achievement across countries.
        *Review of Economic Studies* 91(1), 476–518.

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> print(lb.summary(max_rows=2))   # doctest: +ELLIPSIS
        Leaderboard — model-vs-human: error-consistency per condition and human–candidate pair; ...
        95% intervals from a joint hierarchical bootstrap (studentized, B = 200); ranks: 1 = most alike
        rank sets (Mogstad et al. 2024): [set] holds that model's true rank, [all] every model's at ...
        rank   [set]   [all]    observer      score  CI                P(best)  group
                                human–human   0.426  [0.380, 0.471]
           1   [1–3]   [1–3]  * resnet50      0.218  [0.160, 0.274]     0.400  a
           2   [1–3]   [1–3]  * cornet-s      0.218  [0.167, 0.275]     0.400  a
        Kendall's tau (ranking vs bootstrap rankings): mean 0.267, 95% in [-1.000, 1.000]
        """
        import pandas as pd

        if max_rows is not None:
            max_rows = v.check_positive_int(max_rows, "max_rows", minimum=0)
        has_ref = not self.protocol.against_ground_truth
        t = self.table if max_rows is None else self.table.head(max_rows + has_ref)
        w = max(len(str(o)) for o in t["observer"])
        lines = [f"Leaderboard — {self.describe()}",
                 f"{format_percent(self.confidence_level)} intervals from a joint hierarchical bootstrap ({self.ci_method}, "
                 f"B = {self.n_resamples}); ranks: 1 = most "
                 f"{'accurate' if not has_ref else 'alike' if self.higher_is_better else 'similar'}",
                 "rank sets (Mogstad et al. 2024): [set] holds that model's true rank, [all] every model's at "
                 "once; * in the confidence set of the best; a shared letter: not separated by Holm-corrected tests",
                 f"{'rank':>4} {'[set]':>7} {'[all]':>7}    {'observer':<{w}}  {'score':>6}  {'CI':<17} "
                 f"{'P(best)':>7}  group"]

        def span(lo: Any, hi: Any) -> str:
            return "" if pd.isna(lo) else f"[{lo}–{hi}]"

        for r in t.itertuples():
            cand = r.kind != "reference"
            rank = f"{r.rank:>4} {span(r.rank_low, r.rank_high):>7} {span(r.rank_set_low, r.rank_set_high):>7}" \
                if cand else ""
            best = "*" if cand and not pd.isna(r.in_best_set) and bool(r.in_best_set) else ""
            pb = f"{r.p_best:7.3f}  {r.group}" if cand else ""
            lines.append(f"{rank:>20}  {best:<1} {r.observer:<{w}}  {format_number(r.score):>6}  "
                         f"[{format_number(r.ci_low)}, {format_number(r.ci_high)}]{'':<2} {pb}".rstrip())
        if len(self.candidates) < 2:
            lines.append("Kendall's tau (ranking vs bootstrap rankings): not defined with a single candidate")
        else:
            lines.append(self.kendall_tau.summary())
        lines += [f"Note: {n}" for n in self.notes] if notes else []
        return "\n".join(lines)

    @property
    def resampled(self) -> str:
        """What the bootstrap resamples within each condition: ``"items"`` or ``"clusters"`` (``clusters=``)."""
        return "clusters" if any(u.clusters is not None for u in self._design.units) else "items"

    def describe(self) -> str:
        """The protocol in one line, counting only the exclusions that apply to the scored experiments.

        Returns
        -------
        str

        Examples
        --------
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> print(lb.describe())   # doctest: +ELLIPSIS
        model-vs-human: error-consistency per condition and human–candidate pair; ...; 4 condition(s) excluded; ...
        """
        return self.protocol.describe(self._design.experiments)

    def __repr__(self) -> str:
        """One line of its own: the protocol, the number of candidates, B, the best-ranked
        candidate with its interval, and Kendall's τ."""
        best = self.table[self.table["kind"] == "candidate"].iloc[0]
        return (f"Leaderboard({self.protocol.name!r}, {len(self.candidates)} candidates, B={self.n_resamples}, "
                f"best={best.observer!r} {format_number(best.score)} [{format_number(best.ci_low)}, {format_number(best.ci_high)}], "
                f"kendall_tau={format_number(self.kendall_tau.statistic)})")

    def report(self, path: Any, *, title: str | None = None, pairwise: Any = None, shape_bias: Any = None) -> Any:
        """Write a self-contained HTML report (tables and figures embedded); returns the path.

        Parameters
        ----------
        path : str or os.PathLike
            The HTML file to write (its folder must exist).
        title : str, optional
            The report's title (default: ``"trialwise leaderboard — <protocol>"``).
        pairwise : DataFrame, optional
            Tests from :meth:`pairwise` to include (with ``which="all"`` also drawn as a
            significance matrix).
        shape_bias : ShapeBiasResult, optional
            A :func:`trialwise.shape_bias` result to include (e.g. on texture-vs-shape trials).

        Returns
        -------
        pathlib.Path
            The file written.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = lb.report(pathlib.Path(folder) / "leaderboard.html", title="Colour and contrast")
        ...     "<title>Colour and contrast</title>" in path.read_text(encoding="utf-8")
        True
        """
        import os

        from trialwise.report.leaderboard import (
            write_report,  # the layer above: only when a report is asked for
        )

        if not isinstance(path, (str, os.PathLike)):
            raise InvalidTypeError(f"`path` must be a file path (str or os.PathLike); got {type(path).__name__}")

        return write_report(self, path, title=title, pairwise=pairwise, shape_bias=shape_bias)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the table and ``excluded`` as records, Kendall's τ, the notes (replicates left out).

        Its own: the protocol by name with its one-line description, the tables as records,
        and none of the bootstrap's arrays (the fields would give the replicates and the
        private design).

        Returns
        -------
        dict
            ``protocol, describe, observers, candidates, references, n_resamples,
            confidence_level, ci_method, table, kendall_tau, excluded, notes, seed``.

        Examples
        --------
        >>> import json
        >>> import trialwise as tw
        >>> trials = tw.datasets.model_vs_human_sample()
        >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
        >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
        >>> d = lb.to_dict()
        >>> d["table"][1]["observer"], d["table"][1]["rank"], d["kendall_tau"]["statistic"]
        ('resnet50', 1, 0.26666666666666666)
        >>> json.loads(json.dumps(d))["n_resamples"]
        200
        """
        return jsonable({
            "protocol": self.protocol.name, "describe": self.describe(), "observers": self.observers,
            "candidates": self.candidates, "references": self.references, "n_resamples": self.n_resamples,
            "confidence_level": self.confidence_level, "ci_method": self.ci_method, "table": self.table,
            "kendall_tau": self.kendall_tau, "excluded": self.excluded, "notes": self.notes, "seed": self.seed,
        })


