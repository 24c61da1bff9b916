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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.results import ConfidenceInterval, Note, Result
from trialwise._core.shown import shown

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
    statistic: float = field(metadata=shown("statistic", in_repr=True, repr_name="", digits=4))
    pvalue: float = field(default=np.nan, metadata=shown(
        "p-value", in_repr=True, repr_name="p", format="pvalue", optional=True))
    confidence_interval: ConfidenceInterval = field(default_factory=lambda: ConfidenceInterval(np.nan, np.nan), metadata=shown(
        format="interval", in_repr=True, optional=True, digits=4))
    n: int = field(default=0, metadata=shown("items n", in_repr=True, format="int"))
    notes: tuple[str, ...] = ()
    key: str = field(default="", metadata=shown("key", format="text"))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("key", "method", "statistic", "pvalue", "ci_low", "ci_high", "n", "note")
    repr_prefix = "{method}:"
    summary_title = "{method}"

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

    @property
    def note(self) -> str:
        """:meth:`one_line_note` (the ``note`` column of :meth:`to_frame`)."""
        return self.one_line_note()

    def __float__(self) -> float:
        return float(self.statistic)

    def _dict_extra(self) -> dict[str, Any]:
        """``confidence_interval`` as ``[low, high]`` also where it is undefined."""
        return {"confidence_interval": list(self.confidence_interval)}


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

    n_disagree: int | None = field(default=None, metadata=shown("items with different labels", format="int"))
    p_o: float | None = field(default=None, metadata=shown("p_o, p_e", digits=4))
    p_e: float | None = field(default=None, metadata=shown("p_o, p_e", digits=4))
    se: float | None = field(default=None, metadata=shown("standard error", digits=4))
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

    df: int | None = field(default=None, metadata=shown("degrees of freedom", format="int"))
    classes: tuple | None = None
    matrix: NDArray | None = field(default=None, compare=False)
    contributions: Any = field(default=None, compare=False)
    marginal_difference: dict | None = None
    n_resamples: int | None = field(default=None, metadata=shown("permutations", format="int"))
    hits: int | None = field(default=None, metadata=shown("hits", format="int"))
    n_disagree: int | None = field(default=None, metadata=shown("items with different labels", format="int"))


@dataclass(frozen=True, repr=False)
class McNemarResult(ComparisonResult):
    """:func:`~trialwise.comparison.correctness` and :func:`~trialwise.comparison.yules_q` on the correctness table.

    ``n10`` (A right, B wrong), ``n01`` and ``discordant`` = n10 + n01; ``n_resamples``
    of the permutation variant; ``odds_ratio`` behind Yule's Q.
    """

    n10: int | None = field(default=None, metadata=shown("n10, n01", format="int"))
    n01: int | None = field(default=None, metadata=shown("n10, n01", format="int"))
    discordant: int | None = field(default=None, metadata=shown("discordant", format="int"))
    n_resamples: int | None = field(default=None, metadata=shown("permutations", format="int"))
    odds_ratio: float | None = field(default=None, metadata=shown("odds ratio", digits=4))


@dataclass(frozen=True, repr=False)
class AUCResult(ComparisonResult):
    """:func:`~trialwise.comparison.roc` and :func:`~trialwise.comparison.delong_test`.

    ``se`` the DeLong standard error (of the AUC, or of the difference); ``per_class`` the
    one-vs-rest table (AUCs; for the test also per-class differences, z and p-values,
    adjusted by ``adjust``); for the test ``z``, ``auc_a``, ``auc_b``, their
    ``correlation`` and ``aucs``, both AUCs as :class:`AUCResult` with their intervals.
    """

    se: float | None = field(default=None, metadata=shown("standard error", digits=4))
    per_class: Any = field(default=None, compare=False)
    z: float | None = field(default=None, metadata=shown("z", digits=4))
    auc_a: float | None = field(default=None, metadata=shown("AUC A, B", digits=4))
    auc_b: float | None = field(default=None, metadata=shown("AUC A, B", digits=4))
    correlation: float | None = field(default=None, metadata=shown("correlation of the AUCs", digits=4))
    aucs: tuple | None = None
    adjust: str | None = field(default=None, metadata=shown("per-class adjustment", format="text"))


@dataclass(frozen=True, repr=False)
class ScoreResult(ComparisonResult):
    """Results on probability scores: Brier (skill) score, ECE, paired score tests, error correlations.

    ``convention`` of the Brier score, ``reference`` the base-rate ``BS_ref``, ``skill``
    and ``brier``; ``curve`` (:class:`CalibrationCurve`) and ``per_class`` ECEs; the
    classifiers' mean scores ``mean_a``, ``mean_b``; ``df`` of the t-test; ``w_plus``,
    ``w_minus`` and ``n_nonzero`` of the Wilcoxon test.
    """

    convention: str | None = field(default=None, metadata=shown("convention", format="text"))
    reference: float | None = field(default=None, metadata=shown("reference BS_ref", digits=4))
    skill: float | None = field(default=None, metadata=shown("skill", digits=4))
    brier: float | None = field(default=None, metadata=shown("Brier score", digits=4))
    curve: Any = field(default=None, compare=False)
    per_class: dict | None = None
    mean_a: float | None = field(default=None, metadata=shown("mean score A, B", digits=4))
    mean_b: float | None = field(default=None, metadata=shown("mean score A, B", digits=4))
    df: int | None = field(default=None, metadata=shown("degrees of freedom", format="int"))
    w_plus: float | None = field(default=None, metadata=shown("W+, W-", format="general"))
    w_minus: float | None = field(default=None, metadata=shown("W+, W-", format="general"))
    n_nonzero: int | None = field(default=None, metadata=shown("non-zero differences", format="int"))


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

    kind: str = field(metadata=shown("kind", in_repr=True, repr_name="", format="text"))
    bin_strategy: str = field(metadata=shown("bins", in_repr=True, repr_name="", format="text"))
    n_bins: int = field(metadata=shown("bins", in_repr=True, format="int"))
    table: Any
    statistic: float = field(metadata=shown("ECE", in_repr=True, repr_name="ECE", digits=4))
    per_class: dict
    brier: float = field(metadata=shown("Brier score", in_repr=True, repr_name="Brier", digits=4))
    n: int = field(metadata=shown("items n", in_repr=True, format="int"))

    frame_columns = ("class", "bin", "lower", "upper", "count", "mean_predicted", "observed", "gap")
    summary_title = "Calibration curve (reliability diagram)"
    summary_table = True
