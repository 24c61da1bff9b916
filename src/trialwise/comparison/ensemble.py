"""Should two classifiers be combined, and how? The recommendation procedure of
“Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning*, §14.3.11.

Four checkpoints, in order; the first that fails decides:

1. **Both useful.** Each classifier must beat the majority-class baseline: its accuracy is
   above the baseline rate by a one-sided exact binomial test at ``alpha`` (a point
   estimate a hair above the baseline, within chance, does not count). Then McNemar
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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError
from trialwise._core.format import format_pvalue
from trialwise._core.results import Result
from trialwise._core.shown import shown
from trialwise.comparison.result import WARNING, ComparisonResult
from trialwise._core.warnings import DegenerateDataWarning
from trialwise.comparison._caveats import collecting, warn_once_per_kind
from trialwise.comparison.matrix import bowker_test
from trialwise.comparison.inputs import check_classes
from trialwise.comparison.correctness import MCNEMAR_METHODS, code_pair_labels, coded_correctness_table, mcnemar, yules_q
from trialwise.comparison.probabilities import error_correlation
from trialwise.comparison.calibration import expected_calibration_error
from trialwise.io.labels import LabelCoding
from trialwise.comparison.correctness import McNemarMethod

__all__ = ["DECISIONS", "ensemble_recommendation"]

#: The chapter's thresholds: accuracy gap, redundancy of Q and r, and the ECE that asks for calibration.
ACCURACY_GAP, REDUNDANCY, MAX_ECE = 0.05, 0.8, 0.1
#: The possible decisions, from the most to the least restrictive.
DECISIONS = ("no ensemble", "drop the weaker", "calibrate first", "asymmetric fusion", "symmetric fusion")


@dataclass(frozen=True, repr=False)
class EnsembleRecommendation(Result):
    """The ensemble decision of *Machine Learning & Signals Learning*, §14.3.11, with its reasons and checkpoint values.

    ``decision`` is one of "no ensemble", "drop the weaker", "calibrate first",
    "asymmetric fusion", "symmetric fusion"; ``keep`` names the classifier to deploy
    alone (or None); ``fusion`` the fusion rule ("symmetric"/"asymmetric") once the
    classifiers pass the first two checkpoints; ``reasons`` one sentence per checkpoint
    reached; ``checkpoints`` the numbers behind them (``to_frame()``: one row per
    checkpoint). A decision, not an estimate: ``statistic`` is None.
    """

    decision: str = field(metadata=shown(in_repr=True, repr_name="", format="text"))
    fusion: str | None = field(metadata=shown("fusion", format="text"))
    keep: str | None = field(metadata=shown("deploy alone", in_repr=True, repr_name="keep", format="text"))
    reasons: tuple
    checkpoints: dict
    names: tuple

    frame_columns = ("checkpoint", "value")
    summary_title = "Ensemble recommendation: {decision}"

    def __str__(self) -> str:
        return self.summary()

    def _summary_details(self) -> list[str]:
        """The reasons, one per checkpoint reached (its own: sentences, not fields)."""
        return [f"  - {r}" for r in self.reasons]

    def to_frame(self):
        """One row per checkpoint value: checkpoint, value.

        Its own rows (not one row of fields): the entries of ``checkpoints``.

        Returns
        -------
        pandas.DataFrame
            Columns ``checkpoint`` (name) and ``value`` (float).

        Examples
        --------
        >>> import trialwise as tw
        >>> y = [0, 1] * 100
        >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
        >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
        >>> rec = tw.comparison.ensemble_recommendation(y, a, b)
        >>> rec.to_frame().set_index("checkpoint").loc[["accuracy_A", "accuracy_B", "yules_q"], "value"].round(3).tolist()
        [0.75, 0.8, 0.0]
        """
        import pandas as pd

        return pd.DataFrame({"checkpoint": list(self.checkpoints), "value": [float(x) for x in self.checkpoints.values()]},
                            columns=list(self.frame_columns))

    def _dict_extra(self) -> dict[str, Any]:
        """``checkpoints`` as floats (as in :meth:`to_frame`)."""
        return {"checkpoints": {k: float(x) for k, x in self.checkpoints.items()}}


def ensemble_recommendation(y_true: Any, pred_a: Any, pred_b: Any, proba_a: Any = None, proba_b: Any = None, *,
                            classes: Any = None, names: tuple[str, str] = ("A", "B"), alpha: float = 0.05,
                            accuracy_gap: float = ACCURACY_GAP, redundancy: float = REDUNDANCY,
                            max_ece: float = MAX_ECE,
                            mcnemar_method: McNemarMethod = "exact", n_bins: int = 10) -> EnsembleRecommendation:
    """The ensemble decision of §14.3.11 and the checkpoint values that led to it.

    Parameters
    ----------
    y_true, pred_a, pred_b : array_like
        Truth and the two classifiers' predicted labels.
    proba_a, proba_b : array_like, optional
        Their probabilities (both, or neither): they add the error-correlation
        checkpoint and the calibration check. See :mod:`trialwise.comparison.probabilities`.
    classes : sequence, optional
        The classes of the probability columns (see
        :mod:`trialwise.comparison.probabilities`): each class of ``y_true`` once.
    names : tuple of str, default ("A", "B")
        The two classifiers' names, used in ``keep`` and the reasons.
    alpha : float, default 0.05
        Level of the baseline, McNemar's and Bowker's tests.
    accuracy_gap : float, default 0.05
        A significant accuracy gap larger than this drops the weaker classifier.
    redundancy : float, default 0.8
        Q (and r) at or above this mark the errors as redundant.
    max_ece : float, default 0.1
        An ECE above this asks for calibration before soft averaging.
    mcnemar_method : str, default "exact"
        The McNemar variant (see :func:`~trialwise.comparison.correctness`).
    n_bins : int, default 10
        Number of bins of the ECE.

    Returns
    -------
    EnsembleRecommendation
        ``decision`` (one of :data:`DECISIONS`), ``fusion`` (symmetric / asymmetric
        or None), ``keep`` (the classifier to deploy alone, or None), ``reasons`` (one
        sentence per checkpoint) and ``checkpoints`` (the numbers). A checkpoint
        computed on degenerate data (e.g. no discordant items) quotes its note in its
        reason instead of warning.

    Notes
    -----
    Truth and predictions are coded together by the rule of :mod:`trialwise.io.labels`.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Kuncheva, L. I. & Whitaker, C. J. (2003). Measures of diversity in classifier
    ensembles and their relationship with the ensemble accuracy. *Machine Learning* 51(2),
    181–207.

    Kuncheva, L. I. (2014). *Combining Pattern Classifiers: Methods and Algorithms*, 2nd
    ed. Wiley.

    Examples
    --------
    >>> y = [0, 1] * 100
    >>> a = [1 - t if i % 8 < 2 else t for i, t in enumerate(y)]       # 75 % correct
    >>> b = [1 - t if i % 10 in (2, 3) else t for i, t in enumerate(y)]  # 80 % correct
    >>> rec = ensemble_recommendation(y, a, b)
    >>> rec.decision, rec.fusion, rec.keep
    ('symmetric fusion', 'symmetric', None)
    """
    for value, name in ((alpha, "alpha"), (accuracy_gap, "accuracy_gap"), (redundancy, "redundancy"),
                        (max_ece, "max_ece")):
        v.check_probability(value, name)
    mcnemar_method = v.check_choice(mcnemar_method, "mcnemar_method", MCNEMAR_METHODS)
    n_bins = v.check_positive_int(n_bins, "n_bins")
    if classes is not None:          # checked even without probabilities: a class of the truth left out is an error
        check_classes(y_true, classes)
    if (proba_a is None) != (proba_b is None):
        raise InvalidTypeError("pass both proba_a and proba_b, or neither")
    coding = code_pair_labels(y_true, pred_a, pred_b)
    table = coded_correctness_table(coding)
    checks: dict[str, Callable[[], Any]] = {
        "mcnemar": lambda: mcnemar(counts=table, method=mcnemar_method),
        "yules_q": lambda: yules_q(counts=table),
        "bowker": lambda: bowker_test(pred_a, pred_b),
    }
    if proba_a is not None:
        checks["error_correlation"] = lambda: error_correlation(y_true, proba_a, proba_b, classes=classes)
        checks["ece"] = lambda: tuple(expected_calibration_error(y_true, p, classes=classes, n_bins=n_bins).statistic
                                      for p in (proba_a, proba_b))
    with collecting() as caveats:
        rec = recommend(coding, checks, names=names, alpha=alpha, accuracy_gap=accuracy_gap,
                         redundancy=redundancy, max_ece=max_ece, mcnemar_method=mcnemar_method)
    # degenerate diagnostics are reported in the reasons; anything else is warned, once per kind
    warn_once_per_kind([c for c in caveats if not issubclass(c[0], DegenerateDataWarning)],
                       "ensemble_recommendation")
    return rec


def recommend(coding: LabelCoding, checks: dict[str, Callable[[], Any]], *, names: tuple[str, str],
               alpha: float, accuracy_gap: float = ACCURACY_GAP, redundancy: float = REDUNDANCY,
               max_ece: float = MAX_ECE, mcnemar_method: McNemarMethod = "exact") -> EnsembleRecommendation:
    """The four checkpoints on labels coded together ("y_true", "pred_a", "pred_b"). ``checks`` maps
    "mcnemar", "yules_q", "bowker" and, with probabilities, "error_correlation" (results) and "ece" (a
    pair) to zero-argument callables, called only when their checkpoint is reached:
    :func:`~trialwise.compare` passes the results it has already computed. A degenerate result's
    caveat (its warning note) is quoted in the reason of its checkpoint."""
    na, nb = names
    acc_a = float(np.mean(coding.matches("pred_a", "y_true")))
    acc_b = float(np.mean(coding.matches("pred_b", "y_true")))
    freq = np.bincount(coding.codes["y_true"], minlength=coding.k)
    baseline = float(freq.max() / freq.sum())
    better, weaker = (na, nb) if acc_a >= acc_b else (nb, na)
    cp: dict[str, Any] = {"accuracy_" + na: acc_a, "accuracy_" + nb: acc_b, "baseline": baseline}
    reasons: list[str] = []

    def done(decision: str, keep: str | None = None, fusion: str | None = None) -> EnsembleRecommendation:
        return EnsembleRecommendation(decision=decision, fusion=fusion, keep=keep, reasons=tuple(reasons),
                                      checkpoints=cp, names=(na, nb))

    # 1. both individually useful: accuracy above the baseline rate by a one-sided exact binomial test
    n_items = int(freq.sum())
    p_base = {name: float(stats.binomtest(int(round(acc * n_items)), n_items, min(baseline, 1.0),
                                          alternative="greater").pvalue) if baseline < 1 else 1.0
              for name, acc in ((na, acc_a), (nb, acc_b))}
    cp.update({"baseline_p_" + name: p for name, p in p_base.items()})
    useful = {name: p < alpha for name, p in p_base.items()}
    accuracies = f"{na} {acc_a:.3f} (p = {format_pvalue(p_base[na])}), {nb} {acc_b:.3f} (p = {format_pvalue(p_base[nb])})"
    if not any(useful.values()):
        reasons.append(f"neither classifier beats the majority-class baseline ({baseline:.3f}) by a one-sided "
                       f"binomial test at {alpha:g}: {accuracies}")
        return done("no ensemble")
    if not all(useful.values()):
        keep, drop = (na, nb) if useful[na] else (nb, na)
        reasons.append(f"{drop} does not beat the majority-class baseline ({baseline:.3f}) by a one-sided binomial "
                       f"test at {alpha:g}: {accuracies}; keep {keep}")
        return done("drop the weaker", keep=keep)
    mc = checks["mcnemar"]()
    mcnemar_p = mc.pvalue
    gap = abs(acc_a - acc_b)
    cp.update(mcnemar_p=mcnemar_p, accuracy_gap=gap)
    if mcnemar_p < alpha and gap > accuracy_gap:
        reasons.append(f"McNemar ({mcnemar_method}) rejects equal accuracy (p = {format_pvalue(mcnemar_p)}) and the "
                       f"gap is {100 * gap:.1f} points (> {100 * accuracy_gap:g}): keep {better}")
        return done("drop the weaker", keep=better)
    reasons.append(f"both beat the baseline {baseline:.3f}; McNemar ({mcnemar_method}) p = {format_pvalue(mcnemar_p)}, "
                   f"gap {100 * gap:.1f} points: both stay in play" + _caveat_of(mc))

    # 2. errors not redundant
    q_res = checks["yules_q"]()
    q = q_res.statistic
    cp["yules_q"] = q
    flags = [bool(q >= redundancy)]
    text = f"Yule's Q = {q:.3g}" + _caveat_of(q_res)
    if "error_correlation" in checks:
        r_res = checks["error_correlation"]()
        r = r_res.statistic
        cp["error_correlation"] = r
        flags.append(bool(r >= redundancy))
        text += f", error correlation r = {r:.3g}" + _caveat_of(r_res)
    if all(flags):
        reasons.append(f"{text}: at or above {redundancy:g}, the two fail on the same items; deploy {better}")
        return done("no ensemble", keep=better)
    reasons.append(f"{text}: " + ("not both" if len(flags) > 1 else "not") + f" at or above {redundancy:g}, "
                   "the errors are diverse enough")

    # 3. symmetric vs asymmetric
    bw = checks["bowker"]()
    cp["bowker_p"] = bw.pvalue
    fusion = "asymmetric" if bw.pvalue < alpha else "symmetric"
    # at K = 2 Bowker's test is McNemar's test on the two classifiers' labels (not on correctness)
    bowker = "Bowker (= McNemar on the labels, K = 2)" if coding.k == 2 else "Bowker"
    if fusion == "symmetric":
        reasons.append(f"{bowker} p = {format_pvalue(bw.pvalue)}{_caveat_of(bw)}: disagreements are symmetric; "
                       "majority vote or score averaging")
    else:
        worst = bw.contributions.sort_values("contribution").iloc[-1]
        reasons.append(f"{bowker} p = {format_pvalue(bw.pvalue)}: confusions are asymmetric (largest: "
                       f"{worst['class_j']} vs {worst['class_k']}, {worst['n_jk']} vs {worst['n_kj']}); weight by "
                       "class or route")

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


def _caveat_of(result: ComparisonResult) -> str:
    """`` (note: …)`` for a result computed on degenerate data, else ``""``."""
    return f" ({result.one_line_note()})" if any(getattr(n, "kind", "") == WARNING for n in result.notes) else ""
