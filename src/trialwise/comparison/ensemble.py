"""Should two classifiers be combined, and how? The recommendation procedure of seed 001 §14.3.11.

Four checkpoints, in order; the first that fails decides:

1. **Both useful.** Each classifier must beat the majority-class baseline. Then McNemar
   on the correct/incorrect table: if it rejects *and* the accuracy gap exceeds
   ``accuracy_gap`` (5 points), drop the weaker classifier.
2. **Errors not redundant.** Yule's Q on the correct/incorrect table and — with
   probabilities — the Pearson correlation of the per-sample Brier scores. Q ≥ 0.8 (and,
   when probabilities are given, also r ≥ 0.8: the chapter stops when *both* flag) means
   the two fail on the same items: no ensemble, deploy the better one.
3. **Symmetric or asymmetric fusion.** Bowker's test on the agreement matrix of the
   labels: no rejection → symmetric fusion (majority vote, score averaging); rejection →
   asymmetric fusion (weights per class, class-conditional routing).
4. **Calibration before soft averaging.** With probabilities, if either classifier's ECE
   exceeds ``max_ece`` (0.1, the chapter's "visible miscalibration"), calibrate first.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise import _validation as v
from trialwise._results import EnsembleRecommendation
from trialwise._warnings import DegenerateDataWarning
from trialwise.comparison.agreement import bowker_test
from trialwise.comparison.labels import MCNEMAR_METHODS, _labels, mcnemar, yules_q
from trialwise.comparison.probabilities import error_correlation, expected_calibration_error

__all__ = ["DECISIONS", "ensemble_recommendation"]

#: The chapter's thresholds: accuracy gap, redundancy of Q and r, and the ECE that asks for calibration.
ACCURACY_GAP, REDUNDANCY, MAX_ECE = 0.05, 0.8, 0.1
#: The possible decisions, from the most to the least restrictive.
DECISIONS = ("no ensemble", "drop the weaker", "calibrate first", "asymmetric fusion", "symmetric fusion")


def _quiet(call, *args, **kwargs):
    """Run a diagnostic whose degenerate-data warning is reported in the reasons instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        return call(*args, **kwargs)


def ensemble_recommendation(y_true: Any, pred_a: Any, pred_b: Any, proba_a: Any = None, proba_b: Any = None, *,
                            classes: Any = None, names: tuple[str, str] = ("A", "B"), alpha: float = 0.05,
                            accuracy_gap: float = ACCURACY_GAP, redundancy: float = REDUNDANCY,
                            max_ece: float = MAX_ECE,
                            mcnemar_method: str = "exact", n_bins: int = 10) -> EnsembleRecommendation:
    """The ensemble decision of §14.3.11 and the checkpoint values that led to it.

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like
        Truth and the two classifiers' predicted labels.
    proba_a, proba_b : array_like, optional
        Their probabilities (both, or neither): they add the error-correlation
        checkpoint and the calibration check. See :mod:`trialwise.comparison.probabilities`.
    alpha : float
        Level of McNemar's and Bowker's tests.
    accuracy_gap : float
        A significant accuracy gap larger than this drops the weaker classifier.
    redundancy : float
        Q (and r) at or above this mark the errors as redundant.
    max_ece : float
        An ECE above this asks for calibration before soft averaging.
    mcnemar_method : str
        The McNemar variant (see :func:`~trialwise.comparison.mcnemar`).

    Returns
    -------
    EnsembleRecommendation
        ``decision`` (one of :data:`DECISIONS`), ``fusion`` (symmetric / asymmetric
        or None), ``keep`` (the classifier to deploy alone, or None), ``reasons`` (one
        sentence per checkpoint) and ``checkpoints`` (the numbers).

    Examples
    --------
    >>> y = [0, 1] * 100
    >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
    >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
    >>> ensemble_recommendation(y, a, b).decision
    'symmetric fusion'
    """
    for value, name in ((alpha, "alpha"), (accuracy_gap, "accuracy_gap"), (redundancy, "redundancy"),
                        (max_ece, "max_ece")):
        v.check_probability(value, name)
    mcnemar_method = v.check_choice(mcnemar_method, "mcnemar_method", MCNEMAR_METHODS)
    if (proba_a is None) != (proba_b is None):
        raise TypeError("pass both proba_a and proba_b, or neither")
    y, a, b = _labels(y_true, pred_a, pred_b)
    checks: dict[str, Callable[[], Any]] = {
        "mcnemar_p": lambda: _quiet(mcnemar, y, a, b, method=mcnemar_method).pvalue,
        "yules_q": lambda: _quiet(yules_q, y, a, b).statistic,
        "bowker": lambda: _quiet(bowker_test, a, b),
    }
    if proba_a is not None:
        checks["error_correlation"] = lambda: _quiet(error_correlation, y, proba_a, proba_b, classes=classes).statistic
        checks["ece"] = lambda: tuple(expected_calibration_error(y, p, classes=classes, n_bins=n_bins).statistic
                                      for p in (proba_a, proba_b))
    return _recommend(y, a, b, checks, names=names, alpha=alpha, accuracy_gap=accuracy_gap, redundancy=redundancy,
                      max_ece=max_ece, mcnemar_method=mcnemar_method)


def _recommend(y: NDArray, a: NDArray, b: NDArray, checks: dict[str, Callable[[], Any]], *, names: tuple[str, str],
               alpha: float, accuracy_gap: float = ACCURACY_GAP, redundancy: float = REDUNDANCY,
               max_ece: float = MAX_ECE, mcnemar_method: str = "exact") -> EnsembleRecommendation:
    """The four checkpoints on checked labels. ``checks`` maps "mcnemar_p", "yules_q", "bowker" (a
    result) and, with probabilities, "error_correlation" and "ece" (a pair) to zero-argument callables,
    called only when their checkpoint is reached: :func:`~trialwise.compare` passes the values it has
    already computed."""
    na, nb = names
    ys, as_, bs = y.astype(str), a.astype(str), b.astype(str)
    acc_a, acc_b = float(np.mean(as_ == ys)), float(np.mean(bs == ys))
    _, freq = np.unique(ys, return_counts=True)
    baseline = float(freq.max() / len(ys))
    better, weaker = (na, nb) if acc_a >= acc_b else (nb, na)
    cp: dict[str, Any] = {"accuracy_" + na: acc_a, "accuracy_" + nb: acc_b, "baseline": baseline}
    reasons: list[str] = []

    def done(decision: str, keep: str | None = None, fusion: str | None = None) -> EnsembleRecommendation:
        return EnsembleRecommendation(decision=decision, fusion=fusion, keep=keep, reasons=tuple(reasons),
                                      checkpoints=cp, names=(na, nb))

    # 1. both individually useful
    useful = {na: acc_a > baseline, nb: acc_b > baseline}
    if not any(useful.values()):
        reasons.append(f"neither classifier beats the majority-class baseline ({baseline:.3f}): "
                       f"{na} {acc_a:.3f}, {nb} {acc_b:.3f}")
        return done("no ensemble")
    if not all(useful.values()):
        reasons.append(f"{weaker} does not beat the majority-class baseline ({baseline:.3f}); keep {better}")
        return done("drop the weaker", keep=better)
    mcnemar_p = checks["mcnemar_p"]()
    gap = abs(acc_a - acc_b)
    cp.update(mcnemar_p=mcnemar_p, accuracy_gap=gap)
    if mcnemar_p < alpha and gap > accuracy_gap:
        reasons.append(f"McNemar ({mcnemar_method}) rejects equal accuracy (p = {mcnemar_p:.3g}) and the gap is "
                       f"{100 * gap:.1f} points (> {100 * accuracy_gap:g}): keep {better}")
        return done("drop the weaker", keep=better)
    reasons.append(f"both beat the baseline {baseline:.3f}; McNemar ({mcnemar_method}) p = {mcnemar_p:.3g}, "
                   f"gap {100 * gap:.1f} points: both stay in play")

    # 2. errors not redundant
    q = checks["yules_q"]()
    cp["yules_q"] = q
    flags = [bool(q >= redundancy)]
    text = f"Yule's Q = {q:.3g}"
    if "error_correlation" in checks:
        r = checks["error_correlation"]()
        cp["error_correlation"] = r
        flags.append(bool(r >= redundancy))
        text += f", error correlation r = {r:.3g}"
    if all(flags):
        reasons.append(f"{text}: at or above {redundancy:g}, the two fail on the same items; deploy {better}")
        return done("no ensemble", keep=better)
    reasons.append(f"{text}: " + ("not both" if len(flags) > 1 else "not") + f" at or above {redundancy:g}, "
                   "the errors are diverse enough")

    # 3. symmetric vs asymmetric
    bw = checks["bowker"]()
    cp["bowker_p"] = bw.pvalue
    fusion = "asymmetric" if bw.pvalue < alpha else "symmetric"
    if fusion == "symmetric":
        reasons.append(f"Bowker p = {bw.pvalue:.3g}: disagreements are symmetric; majority vote or score averaging")
    else:
        worst = bw.details["contributions"].sort_values("contribution").iloc[-1]
        reasons.append(f"Bowker p = {bw.pvalue:.3g}: confusions are asymmetric (largest: {worst['class_j']} vs "
                       f"{worst['class_k']}, {worst['n_jk']} vs {worst['n_kj']}); weight by class or route")

    # 4. calibration before soft averaging
    if "ece" not in checks:
        reasons.append("no probabilities: soft averaging needs calibrated probabilities, otherwise use hard voting")
        return done(f"{fusion} fusion", fusion=fusion)
    ece_a, ece_b = checks["ece"]()
    cp.update({"ece_" + na: ece_a, "ece_" + nb: ece_b})
    if max(ece_a, ece_b) > max_ece:
        reasons.append(f"ECE {na} = {ece_a:.3f}, {nb} = {ece_b:.3f} (> {max_ece:g}): recalibrate (Platt, isotonic) "
                       f"before averaging probabilities, or use hard voting")
        return done("calibrate first", fusion=fusion)
    reasons.append(f"ECE {na} = {ece_a:.3f}, {nb} = {ece_b:.3f} (<= {max_ece:g}): probabilities can be averaged")
    return done(f"{fusion} fusion", fusion=fusion)
