"""``compare()``: every applicable method of “Classifier Comparison” for two classifiers, in one report.

The chapter: “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning*.

Why this module is long: about 510 lines, the report's result class (its sections, lookup and
table) and :func:`compare` with its three steps (argument checks, the paired probability tests,
each classifier's probabilities), which only this function uses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from trialwise._core import validation as v
from trialwise.ec import inference as _ec

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.format import format_number, format_pvalue
from trialwise._core.results import ConfidenceInterval, Result, jsonable
from trialwise._core.shown import shown
from trialwise._stats.streams import records_seed
from trialwise._core.warnings import DegenerateDataWarning, SparseTableWarning, UndefinedReplicatesWarning
from trialwise.comparison._caveats import caveat, collecting, warn_once_per_kind
from trialwise.comparison.matrix import (
    bowker_test,
    cohen_kappa,
    disagreement,
    stuart_maxwell_test,
    symmetry_permutation_test,
)
from trialwise.comparison.roc import auc, delong_test
from trialwise.comparison.ensemble import EnsembleRecommendation, recommend
from trialwise.comparison.inputs import check_classes, default_names, prepared_probabilities
from trialwise.comparison.correctness import MCNEMAR_METHODS, code_pair_labels, coded_correctness_table, mcnemar, yules_q
from trialwise.comparison.result import ComparisonResult, ScoreResult, SymmetryTestResult, comparison_notes
from trialwise.comparison.probabilities import SCORING_RULES, Probabilities, brier_score, error_correlation, paired_ttest, score_difference, wilcoxon_test
from trialwise.comparison.calibration import BIN_STRATEGIES, calibration_curve
from trialwise._stats.bounds import attainable_kappa
from trialwise._stats.kappa import canonical_orientation, kappa_from_counts, table_statistics
from trialwise.io.labels import LabelCoding
from trialwise._stats.significance import ADJUSTMENTS, independence_pvalues
from trialwise._stats.tables import agreement_table
from trialwise.comparison.probabilities import ScoringRule
from trialwise.comparison.calibration import BinStrategy
from trialwise._stats.significance import Adjustment

__all__ = ["compare"]


def _cell(x: Any, digits: int = 4) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else format_number(x, digits)


@dataclass(frozen=True, repr=False)
class ComparisonReport(Result):
    """Everything :func:`trialwise.compare` computed for two classifiers, and the recommendation.

    ``results`` holds one :class:`ComparisonResult` per method (the label and the key carry
    the classifier for single-classifier rows, e.g. "Brier score [A]", ``"brier[A]"``);
    ``report[key]`` returns one result by its stable ``key`` (:meth:`keys` lists them);
    ``contingency`` the correct/incorrect table; ``agreement`` the agreement matrix
    (DataFrame); ``symmetry`` Bowker's test of that matrix (for every K; for K = 2 it is
    McNemar's test on the labels, and a row of ``results`` only for K > 2); ``calibration`` the calibration curves by classifier; ``recommendation``
    the :class:`EnsembleRecommendation`. ``to_frame()`` has one row per method (columns
    :attr:`ComparisonResult.frame_columns`).
    """

    names: tuple = field(metadata=shown(
        in_repr=True, repr_name="", format=lambda value, res: " vs ".join(map(str, value))))
    n: int = field(metadata=shown(in_repr=True, format="int"))
    classes: list = field(metadata=shown(in_repr=True, repr_name="K", format=lambda value, res: str(len(value))))
    accuracy: dict
    contingency: Any
    agreement: Any
    symmetry: SymmetryTestResult
    results: tuple = field(metadata=shown(in_repr=True, repr_name="methods", format="count"))
    calibration: dict
    recommendation: EnsembleRecommendation = field(metadata=shown(
        in_repr=True, repr_name="", format=lambda value, res: repr(value.decision)))
    sections: tuple
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ComparisonResult.frame_columns

    def keys(self) -> list[str]:
        """The results' keys, in report order.

        Returns
        -------
        list of str
            One stable ``key`` per method; ``report[key]`` returns its result.

        Examples
        --------
        >>> import trialwise as tw
        >>> y = [0, 1] * 100
        >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
        >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
        >>> rep = tw.compare(y, a, b, rng=0)
        >>> rep.keys()[:4]
        ['accuracy[A]', 'accuracy[B]', 'disagreement', 'mcnemar-exact']
        """
        return [r.key for r in self.results]

    def __getitem__(self, key: str) -> ComparisonResult:
        for r in self.results:
            if r.key == key:
                return r
        raise KeyError(f"no method {key!r}; available keys: {', '.join(self.keys())}")

    def to_frame(self):
        """One row per method: key, method, statistic, pvalue, ci_low, ci_high, n, note.

        Its own rows (not one row of fields): the rows of its results.

        Returns
        -------
        pandas.DataFrame
            One row per result, the columns ``frame_columns``.

        Examples
        --------
        >>> import trialwise as tw
        >>> y = [0, 1] * 100
        >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
        >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
        >>> rep = tw.compare(y, a, b, rng=0)
        >>> frame = rep.to_frame().set_index("key")
        >>> frame.loc[["disagreement", "yules-q", "cohen-kappa"], "statistic"].round(3).tolist()
        [0.35, 0.0, 0.3]
        """
        import pandas as pd

        return pd.concat([r.to_frame() for r in self.results], ignore_index=True)

    def to_dict(self) -> dict:
        """JSON-safe dict: names, n, classes, accuracy, contingency, ``methods`` (the frame's rows), recommendation.

        Its own digest (not every field): the results as the rows of :meth:`to_frame`, without
        the nested tables and curves.

        Returns
        -------
        dict
            ``methods`` is a list of the rows of :meth:`to_frame` (NaN as None);
            ``recommendation`` is :meth:`EnsembleRecommendation.to_dict`.

        Examples
        --------
        >>> import trialwise as tw
        >>> y = [0, 1] * 100
        >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
        >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
        >>> rep = tw.compare(y, a, b, rng=0)
        >>> d = rep.to_dict()
        >>> d["accuracy"], d["contingency"], len(d["methods"])
        ({'A': 0.75, 'B': 0.8}, [[120, 30], [40, 10]], 11)
        """
        rows = self.to_frame().astype(object).to_dict(orient="records")
        return jsonable({"names": list(self.names), "n": self.n, "classes": [str(c) for c in self.classes],
                          "accuracy": self.accuracy, "contingency": np.asarray(self.contingency).tolist(),
                          "methods": rows, "recommendation": self.recommendation.to_dict(),
                          "seed": self.seed})

    def summary(self) -> str:
        """The report as text: the counts, one line per method by section, and the recommendation.

        Its own layout (not one line per field): a table of its results, section by section.

        Returns
        -------
        str
            A heading, the accuracies and the correct/incorrect counts, then per section
            one line per method (value, interval, p-value, note), then the ensemble
            recommendation with its reasons.

        Examples
        --------
        >>> import trialwise as tw
        >>> y = [0, 1] * 100
        >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
        >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
        >>> rep = tw.compare(y, a, b, rng=0)
        >>> head = rep.summary().splitlines()
        >>> head[0]
        'Comparison of A and B: n = 200 items, K = 2 classes'
        >>> head[2].strip()
        'both right 120, only A right 30, only B right 40, both wrong 10'
        """
        a, b = self.names
        t = np.asarray(self.contingency)
        lines = [f"Comparison of {a} and {b}: n = {self.n} items, K = {len(self.classes)} classes",
                 f"  accuracy {a} = {format_number(self.accuracy[a], 4)}, {b} = {format_number(self.accuracy[b], 4)}",
                 f"  both right {t[0, 0]}, only {a} right {t[0, 1]}, only {b} right {t[1, 0]}, both wrong {t[1, 1]}"]
        width = max(len(r.method) for r in self.results)
        for title, members in self.sections:
            lines += ["", title]
            for r in self.results:
                if r.method not in members:
                    continue
                ci = r.confidence_interval
                ci_text = f"[{_cell(ci.low)}, {_cell(ci.high)}]" if not np.isnan(ci.low) else ""
                p_text = f"p = {format_pvalue(r.pvalue)}" if not np.isnan(r.pvalue) else ""
                lines.append(f"  {r.method:<{width}}  {_cell(r.statistic):>8}  {ci_text:<20}  {p_text:<11}  {r.one_line_note()}"
                             .rstrip())
        lines += ["", self.recommendation.summary()]
        return "\n".join(lines)

    __str__ = summary


def _tag(res: ComparisonResult, name: str) -> ComparisonResult:
    return dataclasses.replace(res, method=f"{res.method} [{name}]", key=f"{res.key}[{name}]")


def _accuracy(correct: np.ndarray, name: str, level: float) -> ComparisonResult:
    k, n = int(correct.sum()), len(correct)
    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    return ComparisonResult(f"accuracy [{name}]", k / n, confidence_interval=ConfidenceInterval(ci.low, ci.high),
                            n=n, notes=comparison_notes(f"Wilson {100 * level:g}% CI"), key=f"accuracy[{name}]")


def _error_consistency(table: np.ndarray, level: float, n_resamples: int, rng: np.random.Generator
                       ) -> ComparisonResult:
    """:func:`trialwise.error_consistency` of the correctness table (default interval and test) as a row.

    The same draws and numbers as ``error_consistency(counts=table, ...)`` (a test checks
    it), built from the same pieces of :mod:`trialwise.ec`, but its caveats (an observer
    always right or wrong, a sparse table, undefined replicates) go to the row's note and
    to :func:`caveat` instead of being warned directly.
    """
    opts = _ec.check_options(level, _ec.DEFAULT_CI_METHOD, _ec.DEFAULT_TEST, n_resamples, False, rng)
    counts = table[None]
    dist = kappa_from_counts(_ec.replicate_tables(canonical_orientation(table), opts)).reshape(-1, 1)
    kappa = table_statistics(counts).kappa
    low, high, n_undefined = _ec.kappa_intervals(counts, kappa, dist, opts)
    pvalue, _ = independence_pvalues(counts, test=opts.test, n_resamples=opts.n_resamples, rng=opts.rng)
    reason = _ec.undefined_reasons(counts)[0]
    notes = [f"{opts.ci_method} CI, {opts.test} test"]
    caveats = [(DegenerateDataWarning, reason), (SparseTableWarning, _ec.coverage_warnings(counts, [reason], opts.ci_method)[0])]
    share = float(n_undefined[0]) / dist.shape[0]
    if reason is None and share > _ec.UNDEFINED_WARN_SHARE:
        caveats.append((UndefinedReplicatesWarning, f"{100 * share:.1f}% of the replicates had an undefined EC and "
                                                    "were left out of the interval"))
    shown = []
    for category, text in caveats:
        if text is not None:
            caveat(f"error consistency: {text}", category)
            shown.append(text)
    st = table_statistics(counts)
    boundary = _ec.boundary_notes(counts, kappa, low, high, [reason], *attainable_kappa(st.accuracy_a, st.accuracy_b))[0]
    return ComparisonResult("error consistency (kappa on correctness)", float(kappa[0]), float(pvalue[0]),
                            ConfidenceInterval(float(low[0]), float(high[0])), n=int(table.sum()),
                            notes=comparison_notes("; ".join(notes), None, *shown) + (() if boundary is None else (boundary,)),
                            key="error-consistency")


def _agreement(coding: LabelCoding) -> pd.DataFrame:
    """The agreement matrix of the two predictions over the classes either predicts (natural order)."""
    k = coding.k
    mat = agreement_table(coding.codes["pred_a"], coding.codes["pred_b"], k)
    keep = np.flatnonzero(mat.sum(axis=0) + mat.sum(axis=1) > 0)
    names = np.asarray(coding.classes, dtype=object)[keep]
    return pd.DataFrame(mat[np.ix_(keep, keep)].astype(np.int64), index=pd.Index(names, name="A"),
                        columns=pd.Index(names, name="B"))


def _predict(data: Probabilities) -> np.ndarray:
    """The class of highest probability of each item (the first on ties)."""
    return np.asarray(data.classes, dtype=object)[data.p.argmax(axis=1)]


@records_seed
def compare(y_true: Any, pred_a: Any = None, pred_b: Any = None, proba_a: Any = None, proba_b: Any = None, *,
            names: tuple[str, str] | None = None, classes: Any = None, scoring_rule: ScoringRule = "brier", n_bins: int = 10,
            bin_strategy: BinStrategy = "uniform", confidence_level: float = 0.95, alpha: float = 0.05,
            adjust: Adjustment = "holm", n_resamples: int = 10000, rng: Any = None) -> ComparisonReport:
    """Compare two classifiers on the same items with every applicable method of *Machine Learning & Signals Learning*, ch. 14.

    Parameters
    ----------
    y_true : array_like
        The true label of every item.
    pred_a, pred_b : array_like, optional
        The predicted labels. If omitted, the class of highest probability in ``proba_*``.
        Truth and predictions are coded together once, by the rule of
        :mod:`trialwise.io.labels` (``1 == 1.0 == True == '1'``; numbers mixed with other
        text are a ``TypeError``; missing values a ``ValueError``), and every method uses
        that coding.
    proba_a, proba_b : array_like or pandas.DataFrame, optional
        Predicted probabilities: a 1-D positive-class probability (binary) or an n × K
        matrix (see :mod:`trialwise.comparison.probabilities`). A DataFrame's columns are
        matched to the classes by name, a common prefix stripped (``m1_dog, m1_cat`` in any
        order); an array's columns are the classes in sorted order (or ``classes=``).
        Rows off by rounding are divided by their sums, with a warning. Methods for one
        classifier (Brier, ECE, AUC) run for each one that has probabilities; the paired
        ones (score tests, error correlation, DeLong) need both.
    names : (str, str), optional
        The classifiers' names in the report. Default: the names of ``pred_a`` and
        ``pred_b`` if they are Series, else the common prefix of a DataFrame's
        probability columns (``m1_cat, …`` → ``m1``), else "A" and "B".
    classes : sequence, optional
        The class of each probability column. Every class of ``y_true`` must be one of
        them, each once.
    scoring_rule : {"brier", "log-loss"}
        The scoring rule of the per-sample scores of the paired tests and the error correlation.
    n_bins, bin_strategy
        Calibration bins (:func:`~trialwise.comparison.calibration_curve`).
    confidence_level, alpha
        Level of the intervals; level of the tests in the ensemble recommendation, which
        reuses the report's exact McNemar, Yule's Q, Bowker, Brier error correlation and
        ECE (with these bins) instead of computing them again.
    adjust : str
        Multiplicity adjustment of the per-class DeLong tests (K > 2).
    n_resamples, rng
        For the permutation tests.

    Returns
    -------
    ComparisonReport
        ``print(report)`` shows every method and the ensemble recommendation;
        ``report.to_frame()`` has one row per method; ``report["mcnemar-exact"]`` gets
        one result. Which McNemar variant to trust: ``exact`` (conservative) or
        ``mid-p``; the χ² forms are the classical large-sample ones.

    Warns
    -----
    TrialwiseWarning
        At most one warning per kind (degenerate data, sparse table, …) for the whole
        report, listing the methods concerned. The plain :class:`~trialwise.TrialwiseWarning`
        counts the probability rows renormalised for rounding, and flags probabilities
        whose class of highest probability is the hard prediction on fewer than half
        the items (a likely column-order mistake: it names the order that would agree). Each method's caveat is also in its
        result's ``notes``. The caveats are collected per call
        (a context variable, not the process-wide ``warnings.catch_warnings``), so
        concurrent calls from several threads each report their own.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Examples
    --------
    >>> import trialwise as tw
    >>> y = [0, 1] * 100
    >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
    >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
    >>> rep = tw.compare(y, a, b, rng=0)
    >>> round(rep["mcnemar-exact"].pvalue, 3), rep.recommendation.decision
    (0.282, 'symmetric fusion')
    """
    level, scoring_rule, adjust, n_bins, bin_strategy, gen, (na, nb), y = _compare_iv(
        y_true, pred_a, pred_b, proba_a, proba_b, confidence_level, alpha, scoring_rule, adjust, n_bins, bin_strategy,
        rng, names, classes)
    # Every method runs with its caveats collected (for this call only, thread-safe): each
    # degenerate result says so in its note, and the report warns once per kind at the end.
    with collecting() as caveats:
        checked, proba_a, proba_b, classes = prepared_probabilities(y, pred_a, pred_b, proba_a, proba_b, classes)
        if pred_a is None:
            if proba_a is None:
                raise InvalidTypeError("pass pred_a or proba_a")
            pred_a = _predict(checked["proba_a"])
        if pred_b is None:
            if proba_b is None:
                raise InvalidTypeError("pass pred_b or proba_b")
            pred_b = _predict(checked["proba_b"])
        coding = code_pair_labels(y, pred_a, pred_b)          # the labels coded together, once
        n = len(coding.codes["y_true"])
        right_a, right_b = coding.matches("pred_a", "y_true"), coding.matches("pred_b", "y_true")
        table = coded_correctness_table(coding)
        agreement = _agreement(coding)
        lab: dict[str, Any] = {"classes": list(agreement.index)}      # the predicted classes, named and ordered as in the report
        both = len(checked) == 2

        sections: list[tuple[str, list[str]]] = []
        results: list[ComparisonResult] = []

        def add(title: str, items: list[ComparisonResult]) -> None:
            results.extend(items)
            sections.append((title, [r.method for r in items]))

        mc = {m: mcnemar(counts=table, method=m, n_resamples=n_resamples, rng=gen) for m in MCNEMAR_METHODS}
        q = yules_q(counts=table, confidence_level=level)
        ec = _error_consistency(table, level, n_resamples, gen)
        add("Hard labels (correct/incorrect collapse for McNemar, Q and error consistency)",
            [_accuracy(right_a, na, level), _accuracy(right_b, nb, level), disagreement(pred_a, pred_b),
             *mc.values(), q, ec, cohen_kappa(pred_a, pred_b, confidence_level=level, **lab)])
        bowker = None
        if coding.k > 2:
            bowker = bowker_test(pred_a, pred_b, **lab)
            add(f"Agreement matrix, K = {coding.k} (no truth needed)",
                [bowker, stuart_maxwell_test(pred_a, pred_b, **lab),
                 symmetry_permutation_test(pred_a, pred_b, n_resamples=n_resamples, rng=gen, **lab)])

        paired, aucs, pearson = _paired_probabilities(y, proba_a, proba_b, checked, names=(na, nb), n=n, level=level,
                                                      scoring_rule=scoring_rule, adjust=adjust, classes=classes)
        single, calibration = _each_classifier_probabilities(y, proba_a, proba_b, checked, aucs, names=(na, nb), n=n,
                                                             level=level, n_bins=n_bins, bin_strategy=bin_strategy,
                                                             classes=classes, both=both)
        if single:
            add("Probabilities, each classifier", single)
        if paired:
            add("Probabilities, paired", paired)

        symmetry = bowker if bowker is not None else bowker_test(pred_a, pred_b, **lab)
        # the recommendation reuses what the report computed (its ECE uses the report's bins)
        checks: dict[str, Callable[[], Any]] = {
            "mcnemar": lambda: mc["exact"], "yules_q": lambda: q,
            "bowker": lambda: symmetry}
        if both:
            checks["error_correlation"] = (lambda: pearson) if scoring_rule == "brier" else \
                (lambda: error_correlation(y, proba_a, proba_b, classes=classes))
            checks["ece"] = lambda: (calibration[na].statistic, calibration[nb].statistic)
        with collecting():           # the recommendation quotes its own degenerate checkpoints
            rec = recommend(coding, checks, names=(na, nb), alpha=alpha)
    warn_once_per_kind(caveats, "compare")
    return ComparisonReport(names=(na, nb), n=n, classes=coding.classes,
                            accuracy={na: float(np.mean(right_a)), nb: float(np.mean(right_b))},
                            contingency=table, agreement=agreement, symmetry=symmetry, results=tuple(results),
                            calibration=calibration, recommendation=rec,
                            sections=tuple((t, tuple(m)) for t, m in sections))

def _compare_iv(y_true, pred_a, pred_b, proba_a, proba_b, confidence_level, alpha, scoring_rule, adjust, n_bins,
                bin_strategy, rng, names, classes):
    """:func:`compare`'s arguments checked: the options, the generator, the two names and the truth as an array."""
    level = v.check_confidence_level(confidence_level)
    v.check_probability(alpha, "alpha")
    scoring_rule = v.check_choice(scoring_rule, "scoring_rule", SCORING_RULES)
    adjust = v.check_choice(adjust, "adjust", ADJUSTMENTS)
    n_bins = v.check_positive_int(n_bins, "n_bins")
    bin_strategy = v.check_choice(bin_strategy, "bin_strategy", BIN_STRATEGIES)
    gen = v.check_rng(rng)
    if names is None:
        names = default_names(y_true, pred_a, pred_b, proba_a, proba_b)
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and str(names[0]) != str(names[1])):
        raise InvalidValueError(f"`names` must be two different names; got {names!r}")
    v.check_aligned(y_true=y_true, pred_a=pred_a, pred_b=pred_b, proba_a=proba_a, proba_b=proba_b)
    y = y_true.to_numpy() if isinstance(y_true, (pd.Series, pd.Index)) else y_true
    if classes is not None:
        check_classes(y, classes)
    return level, scoring_rule, adjust, n_bins, bin_strategy, gen, (str(names[0]), str(names[1])), y


def _paired_probabilities(y, proba_a, proba_b, checked, *, names, n, level, scoring_rule, adjust, classes):
    """The paired tests of two classifiers' probabilities (score difference, t, Wilcoxon, correlations,
    DeLong with its per-class rows), each classifier's AUCs from the DeLong tests, and Pearson's
    error correlation (reused by the recommendation). Empty when one classifier has no probabilities."""
    na, nb = names
    paired: list[ComparisonResult] = []
    aucs: dict[str, list[ComparisonResult]] = {na: [], nb: []}
    pearson = None
    if len(checked) == 2:
        kw = {"scoring_rule": scoring_rule, "classes": classes}
        pearson = error_correlation(y, proba_a, proba_b, confidence_level=level, **kw)
        paired = [score_difference(y, proba_a, proba_b, confidence_level=level, **kw),
                  paired_ttest(y, proba_a, proba_b, **kw), wilcoxon_test(y, proba_a, proba_b, **kw), pearson,
                  error_correlation(y, proba_a, proba_b, method="spearman", confidence_level=level, **kw)]
        # the DeLong tests carry both classifiers' AUCs with their intervals: computed once
        tests = [delong_test(y, proba_a, proba_b, adjust=adjust, classes=classes, confidence_level=level)]
        if checked["proba_a"].k > 2:
            tests.append(delong_test(y, proba_a, proba_b, multi_class="ovo", classes=classes,
                                     confidence_level=level))
        paired += tests
        for test in tests:
            aucs[na].append(test.aucs[0])
            aucs[nb].append(test.aucs[1])
        per_class = tests[0].per_class
        for row in [] if per_class is None else per_class.to_dict(orient="records"):
            paired.append(ComparisonResult(f"DeLong class {row['class']}", row["difference"], row["p_adjusted"],
                                           n=n, key=f"delong-class[{row['class']}]",
                                           notes=comparison_notes(f"one-vs-rest, {adjust}-adjusted over "
                                                                  f"{len(per_class)} classes; raw p = "
                                                                  f"{format_pvalue(row['pvalue'])}")))

    return paired, aucs, pearson


def _each_classifier_probabilities(y, proba_a, proba_b, checked, aucs, *, names, n, level, n_bins, bin_strategy,
                                   classes, both):
    """Each classifier's probabilities alone: Brier score and skill, ECE (top-label, classwise), the
    calibration curves, and the AUCs (from the DeLong tests when both classifiers have probabilities)."""
    na, nb = names
    calibration = {}
    single = []
    for name, arg in ((na, "proba_a"), (nb, "proba_b")):
        if arg not in checked:
            continue
        proba, k = (proba_a if arg == "proba_a" else proba_b), checked[arg].k
        curve = calibration_curve(y, proba, n_bins=n_bins, bin_strategy=bin_strategy, classes=classes)
        calibration[name] = curve
        brier = brier_score(y, proba, classes=classes, confidence_level=level)
        rows = [brier, ScoreResult("Brier skill score", brier.skill, n=n, key="brier-skill",
                                   notes=comparison_notes("1 - BS/BS_ref, base-rate reference")),
                ScoreResult(f"ECE ({curve.kind})", curve.statistic, n=n, key=f"ece-{curve.kind}",
                            notes=comparison_notes(f"{n_bins} {bin_strategy} bins"))]
        if k > 2:
            cw = calibration_curve(y, proba, kind="classwise", n_bins=n_bins, bin_strategy=bin_strategy,
                                   classes=classes)
            rows.append(ScoreResult("ECE (classwise)", cw.statistic, n=n, key="ece-classwise",
                                    notes=comparison_notes(f"{n_bins} {bin_strategy} bins")))
        if not both:
            rows.append(auc(y, proba, classes=classes, confidence_level=level))
            if k > 2:
                rows.append(auc(y, proba, multi_class="ovo", classes=classes, confidence_level=level))
        single += [_tag(r, name) for r in rows + aucs[name]]
    return single, calibration

