"""Comparing classifiers by their predicted probabilities (*Machine Learning & Signals Learning*, ch. 14, §14.2, §14.3.7–§14.3.10).

``proba`` is either a 1-D array of the positive-class probability (binary problems; the
positive class is the second of the two sorted classes, or ``classes[1]``) or an n × K
matrix whose columns are the classes — in the order of ``classes=``, of the DataFrame's
column names (matched to the classes by name, a common prefix stripped, by the rule of
:func:`~trialwise.comparison.columns.classes_from_columns`), or of the sorted classes of
``y_true``.

Rows must sum to 1 (:mod:`trialwise.comparison.rows`). A row within
:data:`PROBA_SUM_TOLERANCE` of 1 (floating-point noise) is used as given. A row off by no
more than rounding can explain — each of K values rounded to 3 decimals is off by at most
0.0005, so a row by at most ``K · 0.0005`` (:func:`~trialwise.comparison.rows.rounding_tolerance`;
K counted up to 16, so at most 0.008) — is divided by its sum, with one
:class:`~trialwise.TrialwiseWarning` that counts those rows. A row off by more is an error
whose message says what the values look like (logits, percentages, independent scores, too
coarse a rounding).

Per-sample scores (:func:`sample_scores`) are the Brier score or the log-loss of each
item; the paired tests (:func:`score_difference`, :func:`paired_ttest`,
:func:`wilcoxon_test`, :func:`error_correlation`) see only these scores, so they are the
same for any K (§14.3.10).

Why this module is long: about 680 lines, one concept (scores of predicted probabilities and
their paired tests), most of them docstrings; calibration is :mod:`trialwise.comparison.calibration`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise._core.warnings import DegenerateDataWarning
from trialwise.comparison._caveats import caveat, collecting
from trialwise.comparison.result import (
    ComparisonResult,
    ScoreResult,
    comparison_notes,
)
from trialwise.comparison.rows import (
    PROBA_SUM_TOLERANCE,
    frame_classes,
    looks_like,
    renormalised,
)
from trialwise.io.labels import code_labels
from trialwise._stats.intervals import wald_interval

__all__ = ["PROBA_SUM_TOLERANCE", "SCORING_RULES", "Probabilities", "probabilities", "sample_scores", "brier_score", "brier_skill_score", "score_difference", "paired_ttest", "wilcoxon_test", "error_correlation"]

#: Per-sample scores: Brier (squared error) and log-loss (cross-entropy).
ScoringRule = Literal["brier", "log-loss"]
SCORING_RULES: tuple[ScoringRule, ...] = get_args(ScoringRule)
#: Decimals to which per-sample scores are rounded: ties that are exact in the data
#: (``(0.7 − 1)² = 0.3²``) stay ties in floating point, for the rank-based methods.
SCORE_DECIMALS = 12
_LOG_FLOOR = 1e-15


@dataclass(frozen=True)
class Probabilities:
    """Checked probabilistic predictions: ``y`` (class codes), ``p`` (n × K) and ``classes``."""

    y: NDArray
    p: NDArray
    classes: list

    @property
    def k(self) -> int:
        return len(self.classes)

    @property
    def onehot(self) -> NDArray:
        return np.eye(self.k)[self.y]


def _binary_classes(found: list, classes: Any, name: str) -> list:
    if classes is not None:
        classes = list(classes)
        if len(classes) != 2:
            raise InvalidValueError(f"`{name}` is 1-D (the positive-class probability of a binary problem) "
                             f"but `classes` names {len(classes)} classes")
        return classes
    if len(found) > 2:
        raise InvalidValueError(f"`{name}` is 1-D (the positive-class probability of a binary problem) but `y_true` "
                         f"has {len(found)} classes; pass an n × K matrix")
    if len(found) == 2:
        return found
    raise InvalidValueError(f"`y_true` holds a single class, so the class of the 1-D `{name}` is unknown; "
                     "pass classes=(negative, positive)")


def probabilities(y_true: Any, proba: Any, name: str = "proba", *, classes: Any = None) -> Probabilities:
    """Check ``proba`` against ``y_true`` and return them coded (see the module docstring).

    The labels of ``y_true`` and the classes (``classes=``, the DataFrame's columns, or
    the classes of ``y_true``) are coded together by the rule of :mod:`trialwise.io.labels`:
    a column named ``"1"`` is the class of the label ``1``.

    Rows off by rounding are renormalised with a warning (module docstring).

    Raises ``ValueError`` naming the argument for: different lengths, NaN, values outside
    [0, 1], rows not summing to 1 (beyond :func:`rounding_tolerance`), K < 2, a class
    of ``y_true`` without a column, a column whose class never occurs in ``y_true``, and
    a missing label; ``TypeError`` for labels and classes of kinds that can never be equal.
    """
    alone = code_labels({"y_true": y_true})
    found = alone.classes
    if isinstance(proba, pd.Series):
        proba = proba.to_numpy()
    if isinstance(proba, pd.DataFrame):
        if classes is None:
            classes = frame_classes(proba, found, name)
        proba = proba.to_numpy()
    raw = v.as_float_array(proba, name)
    if np.isfinite(raw).all():       # values outside [0, 1] get the error with a hint here
        if raw.ndim == 2 and raw.shape[1] >= 2:
            raw = renormalised(raw, name)
        elif raw.ndim == 1 and ((raw < 0) | (raw > 1)).any():
            i = int(np.flatnonzero((raw < 0) | (raw > 1))[0])
            raise InvalidValueError(f"`{name}` must be in [0, 1]; got {raw[i]:.6g} (item {i}); {looks_like(raw)}")
    p = v.check_probability(raw, name)
    if p.ndim == 1:
        classes = _binary_classes(found, classes, name)
        p = np.column_stack([1 - p, p])
    elif p.ndim == 2:
        if p.shape[1] < 2:
            raise InvalidValueError(f"`{name}` has {p.shape[1]} column; a classification problem needs K >= 2 classes")
        if classes is None:
            classes = found
            if len(classes) != p.shape[1]:
                raise InvalidValueError(f"`{name}` has {p.shape[1]} columns but `y_true` has {len(classes)} classes; "
                                 "pass classes= (the class of each column)")
        elif len(list(classes)) != p.shape[1]:
            raise InvalidValueError(f"`classes` names {len(classes)} classes but `{name}` has {p.shape[1]} columns")
    else:
        raise InvalidValueError(f"`{name}` must be 1-D (binary) or n × K; got shape {p.shape}")
    if classes is found:
        codes = alone.codes["y_true"]
    else:
        coding = code_labels({"y_true": y_true}, classes=classes, classes_name=f"the classes of `{name}`",
                             strict=False)
        codes, classes = coding.codes["y_true"], coding.classes
    v.check_same_length(y_true=codes, **{name: p})
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise InvalidValueError(f"`y_true` contains the class {np.asarray(y_true, dtype=object)[i]!r}, which has no column "
                         f"in `{name}` (columns: {', '.join(map(str, classes))})")
    absent = np.bincount(codes, minlength=len(classes)) == 0
    if absent.any():
        raise InvalidValueError(f"`{name}` has a column for the class {classes[int(np.flatnonzero(absent)[0])]!r}, "
                         "which never occurs in `y_true`")
    return Probabilities(codes, p, classes)


def _convention(data: Probabilities, convention: str | None) -> str:
    if convention is None:
        return "binary" if data.k == 2 else "multiclass"
    convention = v.check_choice(convention, "convention", ("binary", "multiclass"))
    if convention == "binary" and data.k != 2:
        raise InvalidValueError(f"convention='binary' needs K = 2 classes; got K = {data.k}")
    return convention


def per_item_scores(data: Probabilities, scoring_rule: str, convention: str | None) -> NDArray:
    if scoring_rule == "brier":
        if _convention(data, convention) == "binary":
            out = (data.p[:, 1] - (data.y == 1)) ** 2
        else:
            out = np.sum((data.p - data.onehot) ** 2, axis=1)
    else:
        p_true = data.p[np.arange(len(data.y)), data.y]
        if (p_true < _LOG_FLOOR).any():
            caveat(f"log-loss: {int(np.sum(p_true < _LOG_FLOOR))} item(s) give the true class probability "
                   f"below {_LOG_FLOOR:g}; it is raised to {_LOG_FLOOR:g} (log-loss {-np.log(_LOG_FLOOR):.1f})",
                   DegenerateDataWarning)
        out = -np.log(np.maximum(p_true, _LOG_FLOOR))
    return np.round(out, SCORE_DECIMALS)


def sample_scores(y_true: Any, proba: Any, *, scoring_rule: ScoringRule = "brier", classes: Any = None,
                  convention: str | None = None) -> NDArray:
    """Per-item score ``S_i`` (lower is better): Brier or log-loss (§14.2.4, §14.3.10).

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        The positive-class probability per item (binary) or an n × K matrix of class
        probabilities (module docstring).
    scoring_rule : {"brier", "log-loss"}, default "brier"
        ``brier``: ``(p_i − y_i)²`` for binary problems, ``Σ_k (p_ik − y_ik)²`` for K > 2
        (see ``convention``). ``log-loss``: ``−log p_{i, y_i}``; a true-class probability
        below 1e-15 is raised to 1e-15 with a warning.
    convention : {"binary", "multiclass"}, optional
        The Brier convention. ``binary`` (default at K = 2, scikit-learn's
        ``brier_score_loss``) scores the positive-class probability only; ``multiclass``
        (default at K > 2) sums over all K classes, which at K = 2 is **twice** the binary
        value (range [0, 2]).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).

    Returns
    -------
    numpy.ndarray
        The score of each item, float, in the order of ``y_true``.

    Warns
    -----
    DegenerateDataWarning
        When a log-loss probability is raised to 1e-15.

    Notes
    -----
    Scores are rounded to 12 decimals so that ties exact in the data stay ties.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
    *Monthly Weather Review* 78(1), 1–3.

    Gneiting, T. & Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
    estimation. *Journal of the American Statistical Association* 102(477), 359–378.

    Examples
    --------
    >>> sample_scores([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1]).tolist()
    [0.01, 0.04, 0.09, 0.01]
    >>> sample_scores([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1], scoring_rule="log-loss").round(3).tolist()
    [0.105, 0.223, 0.357, 0.105]
    """
    scoring_rule = v.check_choice(scoring_rule, "scoring_rule", SCORING_RULES)
    return per_item_scores(probabilities(y_true, proba, classes=classes), scoring_rule, convention)


def _mean_interval(values: NDArray, level: float) -> ConfidenceInterval:
    n = len(values)
    if n < 2:
        return ConfidenceInterval(np.nan, np.nan)
    half = stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return ConfidenceInterval(float(values.mean() - half), float(values.mean() + half))


def _reference(data: Probabilities, convention: str) -> float:
    """Brier score of the base-rate forecast (predict the class frequencies of ``y_true``)."""
    freq = np.bincount(data.y, minlength=data.k) / len(data.y)
    return float(freq[1] * (1 - freq[1])) if convention == "binary" else float(1 - np.sum(freq ** 2))


def brier_score(y_true: Any, proba: Any, *, classes: Any = None, convention: str | None = None,
                confidence_level: float = 0.95) -> ComparisonResult:
    """Brier score, the mean squared error of the probabilities (§14.2.2, §14.3.7), with a t interval.

    The interval is the t interval of the mean of the per-item scores, clipped to the range
    of the score ([0, 1], or [0, 2] in the multi-class convention; with few items it can reach
    past it, and the note then says so). The result holds
    the base-rate reference ``BS_ref`` (``reference``) and the skill score (``skill``,
    :func:`brier_skill_score`).
    See :func:`sample_scores` for ``convention`` (binary vs the factor-2 multi-class form).

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        The positive-class probability per item (binary) or an n × K matrix of class
        probabilities (module docstring).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).
    confidence_level : float, default 0.95
        Level of the t interval.

    Returns
    -------
    ScoreResult
        ``statistic`` BS with its ``confidence_interval``, the ``convention``, the base-rate
        ``reference`` BS_ref and the ``skill`` score; no p-value.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
    *Monthly Weather Review* 78(1), 1–3.

    Examples
    --------
    >>> res = brier_score([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1])
    >>> round(res.statistic, 4), res.reference, res.skill
    (0.0375, 0.25, 0.85)
    """
    level = v.check_confidence_level(confidence_level)
    data = probabilities(y_true, proba, classes=classes)
    conv = _convention(data, convention)
    s = per_item_scores(data, "brier", conv)
    ref = _reference(data, conv)
    bs = float(s.mean())
    ci, top = _mean_interval(s, level), 1.0 if conv == "binary" else 2.0
    note = f"{conv} convention" + (" (sum over K classes)" if conv == "multiclass" else "") + f"; t {100 * level:g}% CI"
    if ci.low < 0 or ci.high > top:      # few items: the t interval reaches past what a Brier score can be
        ci = ConfidenceInterval(max(float(ci.low), 0.0), min(float(ci.high), top))
        note += f", clipped to [0, {top:g}], the range of the score"
    return ScoreResult("Brier score", bs, confidence_interval=ci, n=len(s), key="brier", notes=comparison_notes(note),
                       convention=conv, reference=ref, skill=1 - bs / ref if ref > 0 else np.nan)


def brier_skill_score(y_true: Any, proba: Any, *, classes: Any = None,
                      convention: str | None = None) -> ComparisonResult:
    """Brier skill score ``BSS = 1 − BS / BS_ref`` against the base-rate forecast (§14.2.2).

    ``BS_ref`` is the Brier score of always predicting the class frequencies of
    ``y_true``: ``π(1 − π)`` (binary) or ``1 − Σ_k π_k²`` (multi-class convention).
    BSS = 1 is perfect, 0 no better than the base rate, < 0 worse.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        The positive-class probability per item (binary) or an n × K matrix of class
        probabilities (module docstring).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).

    Returns
    -------
    ScoreResult
        ``statistic`` BSS, the ``reference`` BS_ref and the ``brier`` score; no p-value or
        interval.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Brier, G. W. (1950). Verification of forecasts expressed in terms of probability.
    *Monthly Weather Review* 78(1), 1–3.

    Murphy, A. H. (1973). A new vector partition of the probability score. *Journal of
    Applied Meteorology* 12(4), 595–600.

    Examples
    --------
    >>> round(brier_skill_score([1, 0, 1, 0], [0.9, 0.2, 0.7, 0.1]).statistic, 2)
    0.85
    """
    data = probabilities(y_true, proba, classes=classes)
    conv = _convention(data, convention)
    bs = float(per_item_scores(data, "brier", conv).mean())
    ref = _reference(data, conv)
    return ScoreResult("Brier skill score", 1 - bs / ref, n=len(data.y), key="brier-skill",
                       notes=comparison_notes(f"reference: base-rate forecast, BS_ref = {ref:.4g} ({conv} convention)"),
                       brier=bs, reference=ref, convention=conv)


# --------------------------------------------------------------------------- calibration


# --------------------------------------------------------------------------- paired per-sample scores


def paired_probabilities(y_true: Any, proba_a: Any, proba_b: Any, *,
                         classes: Any = None) -> tuple[Probabilities, Probabilities]:
    """Both classifiers' probabilities, checked, with the same classes in the same order (B's columns
    put in A's order: two DataFrames may name the same classes in different orders)."""
    with collecting() as caveats:           # rows renormalised in both: one warning
        a = probabilities(y_true, proba_a, "proba_a", classes=classes)
        b = probabilities(y_true, proba_b, "proba_b", classes=classes)
    if caveats:
        caveat("; ".join(message for _, message in caveats), caveats[0][0])
    where = code_labels({"b": list(b.classes)}, classes=list(a.classes), classes_name="the classes of `proba_a`",
                        strict=False).codes["b"]          # the column of A that each column of B is
    if a.k != b.k or (where < 0).any() or len(set(where.tolist())) != b.k:
        raise InvalidValueError(f"`proba_a` and `proba_b` have different classes: {a.classes} vs {b.classes}")
    if not np.array_equal(where, np.arange(b.k)):
        p = np.empty_like(b.p)
        p[:, where] = b.p
        b = Probabilities(a.y, p, a.classes)
    return a, b


def _paired(y_true: Any, proba_a: Any, proba_b: Any, scoring_rule: str, classes: Any,
            convention: str | None) -> tuple[NDArray, NDArray]:
    scoring_rule = v.check_choice(scoring_rule, "scoring_rule", SCORING_RULES)
    a, b = paired_probabilities(y_true, proba_a, proba_b, classes=classes)
    return per_item_scores(a, scoring_rule, convention), per_item_scores(b, scoring_rule, convention)


def score_difference(y_true: Any, proba_a: Any, proba_b: Any, *, scoring_rule: ScoringRule = "brier", classes: Any = None,
                     convention: str | None = None, confidence_level: float = 0.95) -> ComparisonResult:
    """Mean paired score difference ``δ̄ = S̄_A − S̄_B`` with its t interval (§14.2.4).

    ``δ̄ > 0`` favours B (its loss is lower). The interval is the paired t interval
    (``scipy.stats.ttest_rel``). See :func:`sample_scores` for ``scoring_rule`` and ``convention``.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba_a, proba_b : array_like or pandas.DataFrame
        The two classifiers' probabilities on the same items (module docstring).
    scoring_rule : {"brier", "log-loss"}, default "brier"
        The scoring rule of the per-item scores (see :func:`sample_scores`).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).
    confidence_level : float, default 0.95
        Level of the paired t interval.

    Returns
    -------
    ScoreResult
        ``statistic`` δ̄ with its ``confidence_interval`` and the mean scores ``mean_a``,
        ``mean_b``; no p-value (see :func:`paired_ttest`).

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Gneiting, T. & Raftery, A. E. (2007). Strictly proper scoring rules, prediction, and
    estimation. *Journal of the American Statistical Association* 102(477), 359–378.

    Diebold, F. X. & Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of
    Business & Economic Statistics* 13(3), 253–263.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> a, b = [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], [0.75, 0.1, 0.85, 0.4, 0.8, 0.25]
    >>> res = score_difference(y, a, b)
    >>> round(res.statistic, 4), round(res.mean_a, 4), round(res.mean_b, 4)
    (0.0092, 0.0688, 0.0596)
    """
    level = v.check_confidence_level(confidence_level)
    sa, sb = _paired(y_true, proba_a, proba_b, scoring_rule, classes, convention)
    d = sa - sb
    return ScoreResult(f"score difference ({scoring_rule})", float(d.mean()),
                       confidence_interval=_mean_interval(d, level), n=len(d), key=f"score-difference-{scoring_rule}",
                       notes=comparison_notes(f"mean S_A - S_B (> 0 favours B); paired t {100 * level:g}% CI"),
                       mean_a=float(sa.mean()), mean_b=float(sb.mean()))


def paired_ttest(y_true: Any, proba_a: Any, proba_b: Any, *, scoring_rule: ScoringRule = "brier", classes: Any = None,
                 convention: str | None = None) -> ComparisonResult:
    """Paired t-test of ``E[δ_i] = 0`` on the per-sample scores (§14.2.5, ``scipy.stats.ttest_rel``).

    If every ``δ_i`` is equal the statistic is undefined: NaN, with a warning.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba_a, proba_b : array_like or pandas.DataFrame
        The two classifiers' probabilities on the same items (module docstring).
    scoring_rule : {"brier", "log-loss"}, default "brier"
        The scoring rule of the per-item scores (see :func:`sample_scores`).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).

    Returns
    -------
    ScoreResult
        ``statistic`` t, the two-sided ``pvalue`` and the degrees of freedom ``df``.

    Warns
    -----
    DegenerateDataWarning
        When every difference is equal (t is NaN).

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Student (1908). The probable error of a mean. *Biometrika* 6(1), 1–25.

    Diebold, F. X. & Mariano, R. S. (1995). Comparing predictive accuracy. *Journal of
    Business & Economic Statistics* 13(3), 253–263.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> a, b = [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], [0.75, 0.1, 0.85, 0.4, 0.8, 0.25]
    >>> res = paired_ttest(y, a, b)
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (0.297, 0.779)
    """
    sa, sb = _paired(y_true, proba_a, proba_b, scoring_rule, classes, convention)
    d = sa - sb
    name = f"paired t-test ({scoring_rule})"
    if len(d) < 2 or np.all(d == d[0]):
        msg = "paired t-test: the score differences do not vary (or n < 2); t is undefined"
        caveat(msg, DegenerateDataWarning)
        return ScoreResult(name, np.nan, n=len(d), key=f"paired-t-{scoring_rule}",
                           notes=comparison_notes("undefined: constant differences", msg))
    res = stats.ttest_rel(sa, sb)
    return ScoreResult(name, float(res.statistic), float(res.pvalue), n=len(d), key=f"paired-t-{scoring_rule}",
                       notes=comparison_notes(f"t with {int(res.df)} df on S_A - S_B"), df=int(res.df))


def wilcoxon_test(y_true: Any, proba_a: Any, proba_b: Any, *, scoring_rule: ScoringRule = "brier", classes: Any = None,
                  convention: str | None = None) -> ComparisonResult:
    """Wilcoxon signed-rank test on the per-sample score differences (§14.2.6, ``scipy.stats.wilcoxon``).

    Zero differences are discarded (``zero_method="wilcox"``, as in the chapter); the
    statistic is ``W = min(W+, W−)``; scipy chooses the exact null distribution for small
    samples without ties and the normal approximation otherwise. If every difference is
    zero, W = 0 and p = 1 with a warning.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba_a, proba_b : array_like or pandas.DataFrame
        The two classifiers' probabilities on the same items (module docstring).
    scoring_rule : {"brier", "log-loss"}, default "brier"
        The scoring rule of the per-item scores (see :func:`sample_scores`).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).

    Returns
    -------
    ScoreResult
        ``statistic`` W, the two-sided ``pvalue``, ``w_plus``, ``w_minus`` and the number
        of non-zero differences ``n_nonzero``.

    Warns
    -----
    DegenerateDataWarning
        When every difference is zero.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin*
    1(6), 80–83.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> a, b = [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], [0.75, 0.1, 0.85, 0.4, 0.8, 0.25]
    >>> res = wilcoxon_test(y, a, b)
    >>> res.statistic, res.w_plus, res.w_minus
    (10.0, 11.0, 10.0)
    """
    sa, sb = _paired(y_true, proba_a, proba_b, scoring_rule, classes, convention)
    d = sa - sb
    nz = d[d != 0]
    name = f"Wilcoxon signed-rank ({scoring_rule})"
    if nz.size == 0:
        msg = "Wilcoxon test: every score difference is zero; W = 0, p = 1"
        caveat(msg, DegenerateDataWarning)
        return ScoreResult(name, 0.0, 1.0, n=len(d), key=f"wilcoxon-{scoring_rule}",
                           notes=comparison_notes("all differences zero", msg))
    ranks = stats.rankdata(np.abs(nz))
    w_plus, w_minus = float(ranks[nz > 0].sum()), float(ranks[nz < 0].sum())
    res = stats.wilcoxon(sa, sb, zero_method="wilcox")
    return ScoreResult(name, float(res.statistic), float(res.pvalue), n=len(d), key=f"wilcoxon-{scoring_rule}",
                       notes=comparison_notes(f"W = min(W+, W-); {nz.size} non-zero differences"),
                       w_plus=w_plus, w_minus=w_minus, n_nonzero=int(nz.size))


def _nearly_constant(x: NDArray) -> bool:
    """Constant, or so nearly that r cannot be computed accurately.

    scipy's criterion (``scipy.stats.pearsonr``, which warns then): ``‖x − x̄‖ < ε^¾ |x̄|``.
    Checking it here gives the documented NaN with this library's warning instead of
    silencing scipy's with the process-global ``warnings.catch_warnings``.
    """
    mean = float(np.mean(x))
    return bool(np.all(x == x[0]) or np.linalg.norm(x - mean) < np.finfo(float).eps ** 0.75 * abs(mean))


def error_correlation(y_true: Any, proba_a: Any, proba_b: Any, *, method: str = "pearson", scoring_rule: ScoringRule = "brier",
                      classes: Any = None, convention: str | None = None,
                      confidence_level: float = 0.95) -> ComparisonResult:
    """Correlation of the two classifiers' per-sample scores (§14.2.8 Pearson, §14.2.9 Spearman).

    High ``r`` (≥ 0.8) means both fail on the same items, so an ensemble gains little;
    ``r ≤ 0`` is the ideal case for combining them. Pearson's interval is the Fisher-z
    interval of ``scipy.stats.pearsonr``; Spearman's is the Fisher-z interval with the
    Bonett–Wright standard error ``sqrt((1 + r²/2)/(n − 3))``. If either score column is
    constant, r is undefined: NaN with a warning.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba_a, proba_b : array_like or pandas.DataFrame
        The two classifiers' probabilities on the same items (module docstring).
    method : {"pearson", "spearman"}, default "pearson"
        The correlation coefficient.
    scoring_rule : {"brier", "log-loss"}, default "brier"
        The scoring rule of the per-item scores (see :func:`sample_scores`).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).
    convention : {"binary", "multiclass"}, optional
        The Brier convention (see :func:`sample_scores`).
    confidence_level : float, default 0.95
        Level of the Fisher-z interval.

    Returns
    -------
    ScoreResult
        ``statistic`` r with its ``confidence_interval`` and the ``pvalue`` of r = 0.

    Warns
    -----
    DegenerateDataWarning
        When either score column is constant (r is NaN).

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Fisher, R. A. (1915). Frequency distribution of the values of the correlation
    coefficient in samples from an indefinitely large population. *Biometrika* 10(4),
    507–521.

    Spearman, C. (1904). The proof and measurement of association between two things.
    *American Journal of Psychology* 15(1), 72–101.

    Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating Pearson,
    Kendall and Spearman correlations. *Psychometrika* 65(1), 23–28.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> a, b = [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], [0.75, 0.1, 0.85, 0.4, 0.8, 0.25]
    >>> round(error_correlation(y, a, b, method="spearman").statistic, 3)
    -0.176
    >>> res = error_correlation(y, a, b)
    >>> round(res.statistic, 3), res.confidence_interval
    (0.045, ConfidenceInterval(low=-0.796, high=0.826))
    """
    method = v.check_choice(method, "method", ("pearson", "spearman"))
    level = v.check_confidence_level(confidence_level)
    sa, sb = _paired(y_true, proba_a, proba_b, scoring_rule, classes, convention)
    name = f"{method.capitalize()} error correlation ({scoring_rule})"
    n = len(sa)
    if n < 3 or _nearly_constant(sa) or _nearly_constant(sb):
        msg = f"{method} error correlation: a score column is constant (or n < 3); r is undefined"
        caveat(msg, DegenerateDataWarning)
        return ScoreResult(name, np.nan, n=n, key=f"{method}-error-correlation-{scoring_rule}",
                           notes=comparison_notes("undefined: constant scores", msg))
    if method == "pearson":
        res = stats.pearsonr(sa, sb)
        ci = res.confidence_interval(level) if n > 3 else ConfidenceInterval(np.nan, np.nan)
        r, p = float(res.statistic), float(res.pvalue)
        ci = ConfidenceInterval(float(ci.low), float(ci.high))
    else:
        res = stats.spearmanr(sa, sb)
        r, p = float(res.statistic), float(res.pvalue)
        ci = ConfidenceInterval(np.nan, np.nan)
        if n > 3 and abs(r) < 1:
            lo, hi = wald_interval(np.arctanh(r), np.sqrt((1 + r * r / 2) / (n - 3)), level)  # on Fisher's z
            ci = ConfidenceInterval(float(np.tanh(lo)), float(np.tanh(hi)))
    return ScoreResult(name, r, p, confidence_interval=ci, n=n, key=f"{method}-error-correlation-{scoring_rule}",
                       notes=comparison_notes(f"{method} r of per-sample {scoring_rule} scores; Fisher-z {100 * level:g}% CI"))
