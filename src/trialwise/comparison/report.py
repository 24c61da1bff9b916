"""``compare()``: every applicable method of seed 001 chapter 14 for two classifiers, in one report."""

from __future__ import annotations

import dataclasses
import warnings
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
from trialwise.comparison.ensemble import ensemble_recommendation
from trialwise.comparison.labels import MCNEMAR_METHODS, contingency_table, mcnemar, yules_q
from trialwise.comparison.probabilities import (
    SCORES,
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


def _predict(proba: Any, y: np.ndarray, classes: Any, name: str) -> np.ndarray:
    data = probabilities(y, proba, name, classes=classes)
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
        Level of the intervals; level of the tests in the ensemble recommendation.
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
    if pred_a is None:
        if proba_a is None:
            raise TypeError("pass pred_a or proba_a")
        pred_a = _predict(proba_a, y, classes, "proba_a")
    if pred_b is None:
        if proba_b is None:
            raise TypeError("pass pred_b or proba_b")
        pred_b = _predict(proba_b, y, classes, "proba_b")
    for name, proba in (("proba_a", proba_a), ("proba_b", proba_b)):
        if proba is not None:       # checked here, so that errors name the argument
            probabilities(y, proba, name, classes=classes)
    a = v.check_label_vector(pred_a, "pred_a")
    b = v.check_label_vector(pred_b, "pred_b")
    n = v.check_same_length(y_true=y, pred_a=a, pred_b=b)
    ys, as_, bs = y.astype(str), a.astype(str), b.astype(str)
    label_set = v.sorted_labels(np.concatenate([y, a, b]).astype(object))

    sections: list[tuple[str, list[str]]] = []
    results: list[ComparisonResult] = []

    def add(title: str, items: list[ComparisonResult]) -> None:
        results.extend(items)
        sections.append((title, [r.method for r in items]))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hard = [_accuracy(as_ == ys, na, level), _accuracy(bs == ys, nb, level), disagreement(a, b)]
        hard += [mcnemar(y, a, b, method=m, n_resamples=n_resamples, rng=gen) for m in MCNEMAR_METHODS]
        hard.append(yules_q(y, a, b, confidence_level=level))
        ec = error_consistency(as_ == ys, bs == ys, confidence_level=level, n_resamples=n_resamples, rng=gen)
        hard.append(ComparisonResult("error consistency (kappa on correctness)", float(ec.statistic), float(ec.pvalue),
                                     ec.confidence_interval, n=n, note=f"{ec.ci_method} CI, {ec.test} test"))
        hard.append(cohen_kappa(a, b, confidence_level=level))
        add("Hard labels (correct/incorrect collapse for McNemar, Q and error consistency)", hard)
        if len(label_set) > 2:
            add(f"Agreement matrix, K = {len(label_set)} (no truth needed)",
                [bowker_test(a, b), stuart_maxwell_test(a, b),
                 symmetry_permutation_test(a, b, n_resamples=n_resamples, rng=gen)])

        calibration = {}
        single = []
        for name, proba in ((na, proba_a), (nb, proba_b)):
            if proba is None:
                continue
            curve = calibration_curve(y, proba, n_bins=n_bins, strategy=bin_strategy, classes=classes)
            calibration[name] = curve
            bs_res = brier_score(y, proba, classes=classes, confidence_level=level)
            single.append(_tag(bs_res, name))
            single.append(_tag(ComparisonResult("Brier skill score", bs_res.details["skill"], n=n,
                                                note="1 - BS/BS_ref, base-rate reference"), name))
            single.append(_tag(ComparisonResult(f"ECE ({curve.kind})", curve.ece, n=n,
                                                note=f"{n_bins} {bin_strategy} bins"), name))
            k = probabilities(y, proba, classes=classes).k
            if k > 2:
                cw = calibration_curve(y, proba, kind="classwise", n_bins=n_bins, strategy=bin_strategy,
                                       classes=classes)
                single.append(_tag(ComparisonResult("ECE (classwise)", cw.ece, n=n,
                                                    note=f"{n_bins} {bin_strategy} bins"), name))
            single.append(_tag(auc(y, proba, classes=classes, confidence_level=level), name))
            if k > 2:
                single.append(_tag(auc(y, proba, multi_class="ovo", classes=classes, confidence_level=level), name))
        if single:
            add("Probabilities, each classifier", single)
        if proba_a is not None and proba_b is not None:
            kw = {"score": score, "classes": classes}
            paired = [score_difference(y, proba_a, proba_b, confidence_level=level, **kw),
                      paired_ttest(y, proba_a, proba_b, **kw), wilcoxon_test(y, proba_a, proba_b, **kw),
                      error_correlation(y, proba_a, proba_b, confidence_level=level, **kw),
                      error_correlation(y, proba_a, proba_b, method="spearman", confidence_level=level, **kw)]
            dl = delong_test(y, proba_a, proba_b, adjust=adjust, classes=classes, confidence_level=level)
            paired.append(dl)
            if "per_class" in dl.details:
                paired.append(delong_test(y, proba_a, proba_b, multi_class="ovo", classes=classes,
                                          confidence_level=level))
                per_class = dl.details["per_class"]
                for row in per_class.to_dict(orient="records"):
                    paired.append(ComparisonResult(f"DeLong class {row['class']}", row["difference"],
                                                   row["p_adjusted"], n=n,
                                                   note=f"one-vs-rest, {adjust}-adjusted over {len(per_class)} "
                                                   f"classes; raw p = {row['pvalue']:.3g}"))
            add("Probabilities, paired", paired)
        rec = ensemble_recommendation(y, a, b, proba_a if proba_b is not None else None,
                                      proba_b if proba_a is not None else None, classes=classes, names=(na, nb),
                                      alpha=alpha, n_bins=n_bins)
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
