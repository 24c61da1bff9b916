"""``compare()``: every applicable method of seed 001 chapter 14 for two classifiers, in one report."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from trialwise import _validation as v
from trialwise._results import ComparisonReport, ComparisonResult, ConfidenceInterval
from trialwise.comparison.agreement import (
    agreement_matrix,
    bowker_test,
    cohen_kappa,
    disagreement,
    stuart_maxwell_test,
    symmetry_permutation_test,
)
from trialwise.comparison.auc import auc, delong_test
from trialwise.comparison.ensemble import _quiet, _recommend
from trialwise.comparison.labels import MCNEMAR_METHODS, _labels, contingency_table, mcnemar, yules_q
from trialwise.comparison.probabilities import (
    SCORES,
    Probabilities,
    brier_score,
    calibration_curve,
    error_correlation,
    paired_ttest,
    probabilities,
    score_difference,
    wilcoxon_test,
)
from trialwise.ec import error_consistency

__all__ = ["compare"]


def _tag(res: ComparisonResult, name: str) -> ComparisonResult:
    return dataclasses.replace(res, method=f"{res.method} [{name}]")


def _accuracy(correct: np.ndarray, name: str, level: float) -> ComparisonResult:
    k, n = int(correct.sum()), len(correct)
    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    return ComparisonResult(f"accuracy [{name}]", k / n, confidence_interval=ConfidenceInterval(ci.low, ci.high),
                            n=n, note=f"Wilson {100 * level:g}% CI")


def _predict(data: Probabilities) -> np.ndarray:
    """The class of highest probability of each item (the first on ties)."""
    return np.asarray(data.classes, dtype=object)[data.p.argmax(axis=1)]


def compare(y_true: Any, pred_a: Any = None, pred_b: Any = None, proba_a: Any = None, proba_b: Any = None, *,
            names: tuple[str, str] = ("A", "B"), classes: Any = None, score: str = "brier", n_bins: int = 10,
            bin_strategy: str = "uniform", confidence_level: float = 0.95, alpha: float = 0.05,
            adjust: str = "holm", n_resamples: int = 9999, rng: Any = None) -> ComparisonReport:
    """Compare two classifiers on the same items with every applicable method of seed 001 ch. 14.

    Parameters
    ----------
    y_true : array_like
        The true label of every item.
    pred_a, pred_b : array_like, optional
        The predicted labels. If omitted, the class of highest probability in ``proba_*``.
    proba_a, proba_b : array_like, optional
        Predicted probabilities: a 1-D positive-class probability (binary) or an n × K
        matrix (see :mod:`trialwise.comparison.probabilities`). Methods for one
        classifier (Brier, ECE, AUC) run for each one that has probabilities; the paired
        ones (score tests, error correlation, DeLong) need both.
    names : (str, str)
        The classifiers' names in the report.
    classes : sequence, optional
        The class of each probability column.
    score : {"brier", "log-loss"}
        The per-sample score of the paired tests and the error correlation.
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
        ``report.to_frame()`` has one row per method; ``report["McNemar (exact)"]`` gets
        one result. Which McNemar variant to trust: ``exact`` (conservative) or
        ``mid-p``; the χ² forms are the classical large-sample ones.

    Examples
    --------
    >>> import trialwise as tw
    >>> y = [0, 1] * 100
    >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
    >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
    >>> rep = tw.compare(y, a, b, rng=0)
    >>> round(rep["McNemar (exact)"].pvalue, 3), rep.recommendation.decision
    (0.282, 'symmetric fusion')
    """
    level = v.check_confidence_level(confidence_level)
    score = v.check_choice(score, "score", SCORES)
    gen = v.check_rng(rng)
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and names[0] != names[1]):
        raise ValueError(f"`names` must be two different names; got {names!r}")
    na, nb = (str(x) for x in names)
    y = v.check_label_vector(y_true, "y_true")
    checked: dict[str, Probabilities] = {}     # each checked once, so that errors name the argument
    for arg, proba in (("proba_a", proba_a), ("proba_b", proba_b)):
        if proba is not None:
            checked[arg] = probabilities(y, proba, arg, classes=classes)
    if pred_a is None:
        if proba_a is None:
            raise TypeError("pass pred_a or proba_a")
        pred_a = _predict(checked["proba_a"])
    if pred_b is None:
        if proba_b is None:
            raise TypeError("pass pred_b or proba_b")
        pred_b = _predict(checked["proba_b"])
    y, a, b = _labels(y, pred_a, pred_b)
    n = len(y)
    ys, as_, bs = y.astype(str), a.astype(str), b.astype(str)
    label_set = v.sorted_labels(np.concatenate([y, a, b]).astype(object))
    both = len(checked) == 2

    sections: list[tuple[str, list[str]]] = []
    results: list[ComparisonResult] = []

    def add(title: str, items: list[ComparisonResult]) -> None:
        results.extend(items)
        sections.append((title, [r.method for r in items]))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mc = {m: mcnemar(y, a, b, method=m, n_resamples=n_resamples, rng=gen) for m in MCNEMAR_METHODS}
        q = yules_q(y, a, b, confidence_level=level)
        ec = error_consistency(as_ == ys, bs == ys, confidence_level=level, n_resamples=n_resamples, rng=gen)
        add("Hard labels (correct/incorrect collapse for McNemar, Q and error consistency)",
            [_accuracy(as_ == ys, na, level), _accuracy(bs == ys, nb, level), disagreement(a, b), *mc.values(), q,
             ComparisonResult("error consistency (kappa on correctness)", float(ec.statistic), float(ec.pvalue),
                              ec.confidence_interval, n=n, note=f"{ec.ci_method} CI, {ec.test} test"),
             cohen_kappa(a, b, confidence_level=level)])
        bowker = None
        if len(label_set) > 2:
            bowker = bowker_test(a, b)
            add(f"Agreement matrix, K = {len(label_set)} (no truth needed)",
                [bowker, stuart_maxwell_test(a, b), symmetry_permutation_test(a, b, n_resamples=n_resamples, rng=gen)])

        paired: list[ComparisonResult] = []
        aucs: dict[str, list[ComparisonResult]] = {na: [], nb: []}
        if both:
            kw = {"score": score, "classes": classes}
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
                aucs[na].append(test.details["aucs"][0])
                aucs[nb].append(test.details["aucs"][1])
            per_class = tests[0].details.get("per_class")
            for row in [] if per_class is None else per_class.to_dict(orient="records"):
                paired.append(ComparisonResult(f"DeLong class {row['class']}", row["difference"], row["p_adjusted"],
                                               n=n, note=f"one-vs-rest, {adjust}-adjusted over {len(per_class)} "
                                               f"classes; raw p = {row['pvalue']:.3g}"))

        calibration = {}
        single = []
        for name, arg in ((na, "proba_a"), (nb, "proba_b")):
            if arg not in checked:
                continue
            proba, k = (proba_a if arg == "proba_a" else proba_b), checked[arg].k
            curve = calibration_curve(y, proba, n_bins=n_bins, strategy=bin_strategy, classes=classes)
            calibration[name] = curve
            brier = brier_score(y, proba, classes=classes, confidence_level=level)
            rows = [brier, ComparisonResult("Brier skill score", brier.details["skill"], n=n,
                                            note="1 - BS/BS_ref, base-rate reference"),
                    ComparisonResult(f"ECE ({curve.kind})", curve.ece, n=n, note=f"{n_bins} {bin_strategy} bins")]
            if k > 2:
                cw = calibration_curve(y, proba, kind="classwise", n_bins=n_bins, strategy=bin_strategy,
                                       classes=classes)
                rows.append(ComparisonResult("ECE (classwise)", cw.ece, n=n, note=f"{n_bins} {bin_strategy} bins"))
            if not both:
                rows.append(auc(y, proba, classes=classes, confidence_level=level))
                if k > 2:
                    rows.append(auc(y, proba, multi_class="ovo", classes=classes, confidence_level=level))
            single += [_tag(r, name) for r in rows + aucs[name]]
        if single:
            add("Probabilities, each classifier", single)
        if paired:
            add("Probabilities, paired", paired)

        # the recommendation reuses what the report computed (its ECE uses the report's bins)
        checks: dict[str, Callable[[], Any]] = {
            "mcnemar_p": lambda: mc["exact"].pvalue, "yules_q": lambda: q.statistic,
            "bowker": lambda: bowker if bowker is not None else _quiet(bowker_test, a, b)}
        if both:
            checks["error_correlation"] = (lambda: pearson.statistic) if score == "brier" else \
                (lambda: _quiet(error_correlation, y, proba_a, proba_b, classes=classes).statistic)
            checks["ece"] = lambda: (calibration[na].ece, calibration[nb].ece)
        rec = _recommend(y, a, b, checks, names=(na, nb), alpha=alpha)
    seen = set()
    for w in caught:  # re-issue, once each, the warnings of the methods (degenerate tables, sparse data)
        if (w.category, str(w.message)) not in seen:
            seen.add((w.category, str(w.message)))
            warnings.warn(w.message, stacklevel=2)
    return ComparisonReport(names=(na, nb), n=n, classes=label_set,
                            accuracy={na: float(np.mean(as_ == ys)), nb: float(np.mean(bs == ys))},
                            contingency=contingency_table(y, a, b), agreement=agreement_matrix(a, b),
                            results=tuple(results), calibration=calibration, recommendation=rec,
                            sections=tuple((t, tuple(m)) for t, m in sections))
