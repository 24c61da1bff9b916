"""AUC and DeLong's test, binary and multi-class (*Machine Learning & Signals Learning*, ch. 14, §14.2.7, §14.3.9).

Every AUC here — binary, one-vs-rest per class, the OvR macro average and Hand & Till's
one-vs-one measure — is a linear combination of two-sample AUCs ``A(score, P, N)``: the
probability that an item of the positive set P gets a higher score than one of the
negative set N (ties ½). DeLong, DeLong & Clarke-Pearson (1988) estimate the variance of
such an AUC from the *placement values* ``V10(i)`` (the share of N that positive item i
beats) and ``V01(j)`` (the share of P that negative item j loses to), computed here from
mid-ranks (Sun & Xu 2014) in O(n log n).

One variance formula serves all of them: write the combination as a sum of per-item
influence terms ``ψ_i`` (``(V10(i) − A)/|P|`` on P, ``(V01(j) − A)/|N|`` on N) and take
``Σ_s n_s/(n_s − 1) Σ_{i∈s} (ψ_i − ψ̄_s)²`` over strata s. For one binary AUC, with the
strata P and N, this *is* DeLong's ``S10/m + S01/n``; for the macro and one-vs-one
averages the strata are the true classes (class counts held fixed, as DeLong holds m and
n fixed).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.results import ConfidenceInterval
from trialwise.comparison.result import AUCResult, ComparisonResult, comparison_notes
from trialwise._core.warnings import DegenerateDataWarning
from trialwise.comparison._caveats import caveat
from trialwise.comparison.probabilities import Probabilities, paired_probabilities, probabilities
from trialwise._stats.intervals import wald_interval
from trialwise._stats.significance import ADJUSTMENTS, adjust_pvalues
from trialwise._stats.significance import Adjustment

__all__ = ["MULTI_CLASS", "auc", "delong_test"]

#: Multi-class AUC: one-vs-rest macro average, or Hand & Till's one-vs-one measure.
MultiClass = Literal["ovr", "ovo"]
MULTI_CLASS: tuple[MultiClass, ...] = get_args(MultiClass)


def _influence(score: NDArray, pos: NDArray, neg: NDArray) -> tuple[float, NDArray]:
    """AUC of ``score`` for P = ``pos`` vs N = ``neg`` (boolean masks), and each item's influence ψ_i."""
    x, y = score[pos], score[neg]
    m, n = len(x), len(y)
    tz = stats.rankdata(np.concatenate([x, y]))
    v10 = (tz[:m] - stats.rankdata(x)) / n
    v01 = 1.0 - (tz[m:] - stats.rankdata(y)) / m
    a = float(v10.mean())
    psi = np.zeros(len(score))
    psi[pos] = (v10 - a) / m
    psi[neg] = (v01 - a) / n
    return a, psi


def _variance(psi: NDArray, strata: NDArray) -> NDArray:
    """``Σ_s n_s/(n_s − 1) Σ_{i∈s} (ψ_i − ψ̄_s)²`` for each column of ``psi`` (items × combinations)."""
    psi = psi.reshape(len(psi), -1)
    total = np.zeros(psi.shape[1])
    for s in np.unique(strata):
        block = psi[strata == s]
        if len(block) > 1:
            total += len(block) / (len(block) - 1) * np.sum((block - block.mean(axis=0)) ** 2, axis=0)
    return total


def _components(data: Probabilities, multi_class: str) -> list[tuple[str, int, NDArray, NDArray]]:
    """The two-sample AUCs making up the measure: (label, score column, P mask, N mask)."""
    y = data.y
    if data.k == 2:
        return [(str(data.classes[1]), 1, y == 1, y == 0)]
    if multi_class == "ovr":
        return [(str(c), j, y == j, y != j) for j, c in enumerate(data.classes)]
    out = []
    for j in range(data.k):
        for k in range(j + 1, data.k):
            out.append((f"{data.classes[j]}|{data.classes[k]}", j, y == j, y == k))
            out.append((f"{data.classes[k]}|{data.classes[j]}", k, y == k, y == j))
    return out


def _measure(data: Probabilities, multi_class: str) -> tuple[float, NDArray, list[tuple[str, float, NDArray]]]:
    """The (macro) AUC, its influence vector, and the per-component (label, AUC, ψ)."""
    parts = []
    for label, col, pos, neg in _components(data, multi_class):
        a, psi = _influence(data.p[:, col], pos, neg)
        parts.append((label, a, psi))
    auc_value = float(np.mean([a for _, a, _ in parts]))
    psi = np.mean([p for _, _, p in parts], axis=0)
    return auc_value, psi, parts


def _check_multi(multi_class: Any) -> MultiClass:
    return v.check_choice(multi_class, "multi_class", MULTI_CLASS)


def _auc_result(data: Probabilities, multi_class: str, value: float, var: float,
                parts: list, level: float, warn: bool = True) -> ComparisonResult:
    """One classifier's AUC with its DeLong Wald interval, clipped to [0, 1].

    Without variance (every positive above every negative, or every score tied) the interval
    has no width: the note says so, and unless ``warn`` is false a caveat too.
    """
    se = float(np.sqrt(max(var, 0.0)))
    notes = [f"DeLong {100 * level:g}% CI"]
    if se == 0:
        msg = (f"AUC = {value:.3g}: DeLong's variance is 0 (the scores separate the classes perfectly, or tie "
               "throughout), so the interval has no width")
        notes.append(msg)
        if warn:
            caveat(msg, DegenerateDataWarning)
    low, high = wald_interval(value, se, level, bounds=(0.0, 1.0))
    per_class = None
    if data.k == 2:
        name, key = "AUC", "auc"
    elif multi_class == "ovr":
        name, key = "AUC (OvR macro)", "auc-ovr"
        per_class = pd.DataFrame({"class": [p[0] for p in parts], "auc": [p[1] for p in parts]})
    else:
        name, key = "AUC (OvO, Hand & Till)", "auc-ovo"
    return AUCResult(name, value,
                     confidence_interval=ConfidenceInterval(float(low), float(high)),
                     n=len(data.y), notes=comparison_notes(*notes), key=key, se=se,
                     per_class=per_class)


def auc(y_true: Any, proba: Any, *, multi_class: MultiClass = "ovr", classes: Any = None,
        confidence_level: float = 0.95) -> ComparisonResult:
    """Area under the ROC curve with DeLong's confidence interval (§14.2.7, §14.3.9).

    For K > 2, ``multi_class="ovr"`` gives the macro average of the one-vs-rest AUCs
    (``per_class`` lists them) and ``"ovo"`` Hand & Till's M, the mean over
    class pairs of ``(A(j|k) + A(k|j))/2``. The values equal scikit-learn's
    ``roc_auc_score`` (``average="macro"``). The Wald interval is clipped to [0, 1].

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        Binary: the probability of the positive class per item; K classes: an n × K
        matrix of class probabilities (rows summing to 1).
    multi_class : {"ovr", "ovo"}, default "ovr"
        For K > 2: macro one-vs-rest average, or Hand & Till's one-vs-one measure.
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column of ``proba`` (default: the DataFrame's columns or the sorted classes of
        ``y_true``).
    confidence_level : float, default 0.95
        Level of the DeLong Wald interval.

    Returns
    -------
    AUCResult
        ``statistic`` AUC with its ``confidence_interval`` and standard error ``se``; for
        K > 2 with OvR, ``per_class`` holds the one-vs-rest AUCs. No p-value.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under
    two or more correlated receiver operating characteristic curves: a nonparametric
    approach. *Biometrics* 44(3), 837–845.

    Hand, D. J. & Till, R. J. (2001). A simple generalisation of the area under the ROC
    curve for multiple class classification problems. *Machine Learning* 45(2), 171–186.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the
    areas under correlated receiver operating characteristic curves. *IEEE Signal
    Processing Letters* 21(11), 1389–1393.

    Examples
    --------
    >>> res = auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(res.statistic, 2), res.confidence_interval
    (0.75, ConfidenceInterval(low=0.057, high=1.000))
    """
    level = v.check_confidence_level(confidence_level)
    multi_class = _check_multi(multi_class)
    data = probabilities(y_true, proba, classes=classes)
    value, psi, parts = _measure(data, multi_class)
    return _auc_result(data, multi_class, value, float(_variance(psi, data.y)[0]), parts, level)


def _z_test(diff: float, var: float) -> tuple[float, float]:
    if var <= 0:
        return (0.0, 1.0) if diff == 0 else (np.copysign(np.inf, diff), 0.0)
    z = diff / np.sqrt(var)
    return float(z), float(2 * stats.norm.sf(abs(z)))


def delong_test(y_true: Any, proba_a: Any, proba_b: Any, *, multi_class: MultiClass = "ovr", adjust: Adjustment = "holm",
                classes: Any = None, confidence_level: float = 0.95) -> ComparisonResult:
    """DeLong's test of equal AUC for two classifiers scored on the same items (§14.2.7, §14.3.9).

    ``z = (AUC_A − AUC_B) / sqrt(Var(AUC_A − AUC_B))`` with the paired DeLong variance,
    two-sided normal p. The result's ``statistic`` is the AUC difference, with its Wald
    interval; the result (an :class:`~trialwise.comparison.AUCResult`) holds ``z``, both
    AUCs (``auc_a``, ``auc_b``) and their ``correlation``, and in ``aucs`` the two AUCs as
    results of :func:`auc` (each with its DeLong interval) — computed once.

    For K > 2 the test is on the macro OvR AUC (``multi_class="ovr"``, default) or on
    Hand & Till's OvO measure (``"ovo"``), with the variance of the average from the
    class-stratified influence formula (module docstring). With OvR,
    ``per_class`` also holds one DeLong test per class on its one-vs-rest
    scores, with p-values adjusted across the K classes by ``adjust`` (``"holm"``,
    ``"bonferroni"``, ``"bh"``, ``"by"`` or ``"none"``).

    If the two classifiers rank every pair of items alike, the variance of the
    difference is 0: the difference is 0, p = 1, with a warning.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba_a, proba_b : array_like or pandas.DataFrame
        The two classifiers' probabilities, each in a form :func:`auc` accepts.
    multi_class : {"ovr", "ovo"}, default "ovr"
        For K > 2: the measure compared (see :func:`auc`).
    adjust : {"holm", "bonferroni", "bh", "by", "none"}, default "holm"
        Multiplicity adjustment of the per-class OvR tests.
    classes : sequence, optional
        The classes, as in :func:`auc`.
    confidence_level : float, default 0.95
        Level of the Wald interval of the difference.

    Returns
    -------
    AUCResult
        ``statistic`` AUC_A − AUC_B with its ``confidence_interval``, the two-sided
        ``pvalue``, ``z``, ``auc_a``, ``auc_b``, their ``correlation``, the two
        :func:`auc` results in ``aucs`` and, for K > 2 with OvR, ``per_class``.

    Warns
    -----
    DegenerateDataWarning
        When the variance of the difference is 0.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under
    two or more correlated receiver operating characteristic curves: a nonparametric
    approach. *Biometrics* 44(3), 837–845.

    Hand, D. J. & Till, R. J. (2001). A simple generalisation of the area under the ROC
    curve for multiple class classification problems. *Machine Learning* 45(2), 171–186.

    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the
    areas under correlated receiver operating characteristic curves. *IEEE Signal
    Processing Letters* 21(11), 1389–1393.

    Examples
    --------
    >>> y = [0, 0, 0, 1, 1, 1]
    >>> res = delong_test(y, [0.1, 0.3, 0.6, 0.4, 0.8, 0.9], [0.2, 0.1, 0.75, 0.7, 0.6, 0.8])
    >>> round(res.statistic, 3), round(res.auc_a, 3), round(res.auc_b, 3)
    (0.111, 0.889, 0.778)
    >>> round(res.z, 3), round(res.pvalue, 2)
    (0.707, 0.48)
    """
    level = v.check_confidence_level(confidence_level)
    multi_class = _check_multi(multi_class)
    adjust = v.check_choice(adjust, "adjust", ADJUSTMENTS)
    a, b = paired_probabilities(y_true, proba_a, proba_b, classes=classes)
    auc_a, psi_a, parts_a = _measure(a, multi_class)
    auc_b, psi_b, parts_b = _measure(b, multi_class)
    var = _variance(np.column_stack([psi_a, psi_b, psi_a - psi_b]), a.y)
    diff = auc_a - auc_b
    name = "DeLong" if a.k == 2 else ("DeLong (OvR macro)" if multi_class == "ovr" else "DeLong (OvO)")
    key = "delong" if a.k == 2 else f"delong-{multi_class}"
    caveat_text = None
    if var[2] <= 1e-15 * max(var[0], var[1], 1e-300):
        caveat_text = ("DeLong's test: the two classifiers order every pair of items alike, so the AUC difference "
                       "has no variance; difference 0, p = 1")
        caveat(caveat_text, DegenerateDataWarning)
        var = var.copy()
        var[2] = 0.0
    z, p = _z_test(diff, float(var[2]))
    low, high = wald_interval(diff, np.sqrt(var[2]), level)
    corr = float((var[0] + var[1] - var[2]) / (2 * np.sqrt(var[0] * var[1]))) if var[0] * var[1] > 0 else np.nan
    fields: dict = {"z": z, "auc_a": auc_a, "auc_b": auc_b, "se": float(np.sqrt(var[2])), "correlation": corr,
                    # an AUC without variance is warned of only if the difference has some (one warning at most)
                    "aucs": (_auc_result(a, multi_class, auc_a, float(var[0]), parts_a, level, caveat_text is None),
                             _auc_result(b, multi_class, auc_b, float(var[1]), parts_b, level, caveat_text is None))}
    if a.k > 2 and multi_class == "ovr":
        rows = []
        for (label, aa, pa), (_, ab, pb), (_, _, pos, neg) in zip(parts_a, parts_b, _components(a, "ovr")):
            strata = pos.astype(int)
            vk = _variance(pa - pb, strata)[0]
            zk, pk = _z_test(aa - ab, vk)
            rows.append({"class": label, "auc_a": aa, "auc_b": ab, "difference": aa - ab, "z": zk, "pvalue": pk})
        table = pd.DataFrame(rows)
        table["p_adjusted"] = adjust_pvalues(table["pvalue"].to_numpy(), adjust)
        fields["per_class"] = table
        fields["adjust"] = adjust
    note = f"z = {z:.3g}; statistic AUC_A - AUC_B, Wald {100 * level:g}% CI"
    if caveat_text is not None:
        note += "; no variance: the two order every pair of items alike"
    return AUCResult(name, float(diff), p, confidence_interval=ConfidenceInterval(float(low), float(high)),
                     n=len(a.y), notes=comparison_notes(note, caveat_text), key=key, **fields)
