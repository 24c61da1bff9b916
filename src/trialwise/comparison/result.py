"""The results of the classifier-comparison methods, and the calibration curve.

Every method returns a :class:`ComparisonResult` (the common fields) or one of its typed
subclasses, which add the method family's own numbers as attributes:

* :class:`AgreementResult` — :func:`~trialwise.comparison.disagreement`,
  :func:`~trialwise.comparison.cohen_kappa`;
* :class:`SymmetryTestResult` — :func:`~trialwise.comparison.bowker_test`,
  :func:`~trialwise.comparison.stuart_maxwell_test`,
  :func:`~trialwise.comparison.symmetry_permutation_test`;
* :class:`McNemarResult` — :func:`~trialwise.comparison.correctness`,
  :func:`~trialwise.comparison.yules_q`;
* :class:`AUCResult` — :func:`~trialwise.comparison.roc`,
  :func:`~trialwise.comparison.delong_test`;
* :class:`ScoreResult` — the probability scores (Brier, ECE, paired score tests, error
  correlations).

A field a method does not define is None. ``key`` is the stable identifier of a result
(``"mcnemar-exact"``; what :class:`~trialwise.comparison.ComparisonReport` is indexed by);
``method`` the display label (``"McNemar (exact)"``), which may change between releases.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.format import format_number, format_pvalue
from trialwise._core.results import ConfidenceInterval, Note, Result, jsonable, one_row_frame

__all__ = [
    "AUCResult",
    "AgreementResult",
    "CalibrationCurve",
    "ComparisonResult",
    "McNemarResult",
    "ScoreResult",
    "SymmetryTestResult",
]

#: Note kinds: the message a method warned with (not repeated in the one-line ``note``), and
#: a short caveat that is part of it.
WARNING, CAVEAT = "warning", "caveat"


@dataclass(frozen=True, repr=False)
class ComparisonResult(Result):
    """One method of the classifier-comparison toolkit (ch. 14 of *Machine Learning & Signals Learning*): its value, p and CI.

    The ``note`` column of :meth:`to_frame` and of the report's table is the one-line text
    of the notes (without the warning messages); the method-specific numbers are typed
    attributes of the subclasses (:class:`McNemarResult`, :class:`AUCResult`, …).

    Attributes
    ----------
    method : str
        The display label (``"McNemar (exact)"``, ``"Brier score [A]"``).
    statistic : float
        The method's value.
    pvalue : float
        NaN where the method defines none.
    confidence_interval : ConfidenceInterval
        ``(NaN, NaN)`` where the method defines none.
    n : int
        Items.
    notes : tuple of str
        The convention (e.g. which McNemar variant), caveats of degenerate data, and the
        full message of any warning the method issued (a note of kind ``"warning"``).
    key : str
        Stable identifier (``"mcnemar-exact"``, ``"brier[A]"``), independent of the label.
    """

    method: str
    statistic: float
    pvalue: float = np.nan
    confidence_interval: ConfidenceInterval = field(default_factory=lambda: ConfidenceInterval(np.nan, np.nan))
    n: int = 0
    notes: tuple[str, ...] = ()
    key: str = ""
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("key", "method", "statistic", "pvalue", "ci_low", "ci_high", "n", "note")

    def one_line_note(self) -> str:
        """The notes except the warning messages, joined by "; " (the ``note`` column of the tables).

        Returns
        -------
        str
            The one-line note ("" without notes).

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.comparison.mcnemar(counts=[[150, 25], [15, 10]])
        >>> res.one_line_note()
        'two-sided binomial test; statistic min(n10, n01)'
        """
        return "; ".join(str(n) for n in self.notes if getattr(n, "kind", "") != WARNING)

    def __float__(self) -> float:
        return float(self.statistic)

    def __repr__(self) -> str:
        parts = [f"{self.method}: {format_number(self.statistic, 4)}"]
        if not np.isnan(self.pvalue):
            parts.append(f"p={format_pvalue(self.pvalue)}")
        if not np.isnan(self.confidence_interval.low):
            parts.append(f"CI [{format_number(self.confidence_interval.low, 4)}, {format_number(self.confidence_interval.high, 4)}]")
        note = self.one_line_note()
        return f"{type(self).__name__}({', '.join(parts)}, n={self.n}" + (f"; {note})" if note else ")")

    __str__ = __repr__

    def summary(self) -> str:
        """The repr, then every note on its own line.

        Returns
        -------
        str
            The one-line repr, then one ``note:`` line per note.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.comparison.mcnemar(counts=[[150, 25], [15, 10]])
        >>> print(res.summary())
        McNemarResult(McNemar (exact): 15.0000, p=0.154, n=200; two-sided binomial test; statistic min(n10, n01))
          note: two-sided binomial test; statistic min(n10, n01)
        """
        return "\n".join([repr(self)] + [f"  note: {n}" for n in self.notes])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame`: key, method, statistic, pvalue, ci_low, ci_high, n, note.

        Returns
        -------
        pandas.DataFrame
            One row, the columns ``frame_columns`` (NaN where the method defines no
            p-value or interval).

        Examples
        --------
        >>> import trialwise as tw
        >>> frame = tw.comparison.yules_q(counts=[[150, 25], [15, 10]]).to_frame()
        >>> frame[["key", "statistic", "ci_low", "ci_high", "n"]].round(3).values.tolist()
        [['yules-q', 0.6, 0.236, 0.816, 200]]
        """
        return one_row_frame(self, note=self.one_line_note())

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field (NaN as None; tables as lists of records).

        Returns
        -------
        dict
            The common fields (``method``, ``statistic``, ``pvalue``,
            ``confidence_interval`` as ``[low, high]``, ``n``, ``notes``, ``key``) and those
            of the subclass.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.comparison.mcnemar(counts=[[150, 25], [15, 10]])
        >>> d = res.to_dict()
        >>> d["key"], d["statistic"], d["confidence_interval"], d["n10"], d["n01"]
        ('mcnemar-exact', 15.0, [None, None], 25, 15)
        """
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["confidence_interval"] = list(self.confidence_interval)
        return jsonable(out)


def comparison_notes(note: str = "", warning: str | None = None, *caveats: str | None) -> tuple[Note, ...]:
    """``notes`` of a comparison result: the one-line ``note``, short caveats, and the warning message."""
    out = [Note(note)] if note else []
    out += [Note(c, CAVEAT) for c in caveats if c]
    if warning:
        out.append(Note(warning, WARNING))
    return tuple(out)


@dataclass(frozen=True, repr=False)
class AgreementResult(ComparisonResult):
    """:func:`~trialwise.comparison.disagreement` and :func:`~trialwise.comparison.cohen_kappa`.

    ``n_disagree``: items with different labels (disagreement); ``p_o``, ``p_e``: observed
    and chance agreement, ``se`` the standard error of κ, ``classes`` and
    ``agreement_matrix`` (K × K, A in rows) (Cohen's κ).
    """

    n_disagree: int | None = None
    p_o: float | None = None
    p_e: float | None = None
    se: float | None = None
    classes: tuple | None = None
    agreement_matrix: NDArray | None = field(default=None, compare=False)


@dataclass(frozen=True, repr=False)
class SymmetryTestResult(ComparisonResult):
    """Tests on the agreement matrix: Bowker, Stuart–Maxwell, the permutation test of symmetry.

    ``df`` the χ² degrees of freedom; ``classes``; ``matrix`` the agreement matrix and
    ``contributions`` the per-pair table of Bowker's χ² (classes, ``n_jk``, ``n_kj``, the
    pair's term and its share); ``marginal_difference`` per class (Stuart–Maxwell);
    ``n_resamples``, ``hits`` and ``n_disagree`` (permutation test).
    """

    df: int | None = None
    classes: tuple | None = None
    matrix: NDArray | None = field(default=None, compare=False)
    contributions: Any = field(default=None, compare=False)
    marginal_difference: dict | None = None
    n_resamples: int | None = None
    hits: int | None = None
    n_disagree: int | None = None


@dataclass(frozen=True, repr=False)
class McNemarResult(ComparisonResult):
    """:func:`~trialwise.comparison.correctness` and :func:`~trialwise.comparison.yules_q` on the correctness table.

    ``n10`` (A right, B wrong), ``n01`` and ``discordant`` = n10 + n01; ``n_resamples``
    of the permutation variant; ``odds_ratio`` behind Yule's Q.
    """

    n10: int | None = None
    n01: int | None = None
    discordant: int | None = None
    n_resamples: int | None = None
    odds_ratio: float | None = None


@dataclass(frozen=True, repr=False)
class AUCResult(ComparisonResult):
    """:func:`~trialwise.comparison.roc` and :func:`~trialwise.comparison.delong_test`.

    ``se`` the DeLong standard error (of the AUC, or of the difference); ``per_class`` the
    one-vs-rest table (AUCs; for the test also per-class differences, z and p-values,
    adjusted by ``adjust``); for the test ``z``, ``auc_a``, ``auc_b``, their
    ``correlation`` and ``aucs``, both AUCs as :class:`AUCResult` with their intervals.
    """

    se: float | None = None
    per_class: Any = field(default=None, compare=False)
    z: float | None = None
    auc_a: float | None = None
    auc_b: float | None = None
    correlation: float | None = None
    aucs: tuple | None = None
    adjust: str | None = None


@dataclass(frozen=True, repr=False)
class ScoreResult(ComparisonResult):
    """Results on probability scores: Brier (skill) score, ECE, paired score tests, error correlations.

    ``convention`` of the Brier score, ``reference`` the base-rate ``BS_ref``, ``skill``
    and ``brier``; ``curve`` (:class:`CalibrationCurve`) and ``per_class`` ECEs; the
    classifiers' mean scores ``mean_a``, ``mean_b``; ``df`` of the t-test; ``w_plus``,
    ``w_minus`` and ``n_nonzero`` of the Wilcoxon test.
    """

    convention: str | None = None
    reference: float | None = None
    skill: float | None = None
    brier: float | None = None
    curve: Any = field(default=None, compare=False)
    per_class: dict | None = None
    mean_a: float | None = None
    mean_b: float | None = None
    df: int | None = None
    w_plus: float | None = None
    w_minus: float | None = None
    n_nonzero: int | None = None


@dataclass(frozen=True, repr=False)
class CalibrationCurve(Result):
    """A calibration curve (reliability diagram): per-bin predicted vs observed, and its ECE.

    ``kind`` is "binary", "top-label" or "classwise"; ``table`` has one row per bin (per
    class for classwise), empty bins included; ``statistic`` the expected calibration
    error (mean over classes for classwise, each in ``per_class``); ``brier`` the Brier
    score of the same predictions (binary convention at K = 2, multi-class above), for
    legends. ``to_frame()`` is the table with the columns ``frame_columns`` (``class`` is
    NaN except for classwise curves).
    """

    kind: str
    bin_strategy: str
    n_bins: int
    table: Any
    statistic: float
    per_class: dict
    brier: float
    n: int

    frame_columns = ("class", "bin", "lower", "upper", "count", "mean_predicted", "observed", "gap")

    def __repr__(self) -> str:
        empty = int((self.table["count"] == 0).sum())
        return (f"CalibrationCurve({self.kind}, {self.n_bins} {self.bin_strategy} bins, ECE={format_number(self.statistic, 4)}, "
                f"Brier={format_number(self.brier, 4)}, n={self.n}, empty bins={empty})")

    __str__ = __repr__

    def summary(self) -> str:
        """The repr, then the per-bin table.

        Returns
        -------
        str
            The one-line repr, then the table (4 significant digits).

        Examples
        --------
        >>> import trialwise as tw
        >>> y, proba = [1, 0, 1, 0, 1, 0], [0.9, 0.2, 0.7, 0.3, 0.6, 0.15]
        >>> curve = tw.comparison.calibration_curve(y, proba, n_bins=2)
        >>> print(curve.summary())
        CalibrationCurve(binary, 2 uniform bins, ECE=0.2417, Brier=0.0688, n=6, empty bins=0)
         bin  lower  upper  count  mean_predicted  observed     gap
           0      0    0.5      3          0.2167         0 -0.2167
           1    0.5      1      3          0.7333         1  0.2667
        """
        return repr(self) + "\n" + self.table.to_string(index=False, float_format=lambda x: f"{x:.4g}")

