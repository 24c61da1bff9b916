"""The results of :func:`trialwise.error_consistency` and :func:`trialwise.pairwise_error_consistency`.

A module of their own because ``ec/pair.py`` (the computation) is already ~600 lines. This one
is a little longer than 500 lines only because every public method has a numpydoc
docstring with a runnable example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise.ec.copy_fit import CopyModelFit, fit_copy_model

__all__ = ["ErrorConsistencyResult", "PairwiseErrorConsistencyResult", "pair_matrix"]


def _interval_detail(res: Any) -> str:
    """B, and for an undefined EC with a posterior interval what that interval is."""
    text = f"B = {res.n_resamples}" if res.n_resamples else ""
    if np.isnan(res.statistic) and res.ci_method == "jeffreys" and not np.isnan(res.confidence_interval.low):
        text += "; the EC values compatible with the data (posterior), not an interval around an estimate"
    return text


@dataclass(frozen=True, repr=False)
class ErrorConsistencyResult(Result):
    """Error consistency of two observers with its confidence interval and test.

    Attributes
    ----------
    statistic : float
        κ (or the bias-corrected κ_u when ``method == "bias-corrected kappa"``); NaN
        when undefined (see ``notes``).
    confidence_interval : ConfidenceInterval
    pvalue : float
        Two-sided p-value for H0: κ = 0 (independent observers).
    n : int
        Paired items used.
    confidence_level : float
    method : str
        The estimator: ``"kappa"`` or ``"bias-corrected kappa"``.
    ci_method, test : str
        Interval method and independence test used.
    counts : ndarray, shape (2, 2)
        ``[[n11, n10], [n01, n00]]`` (A in rows, correct first).
    accuracy_a, accuracy_b, c_obs, c_exp : float
    kappa_min, kappa_max : float
        Bounds of κ for these accuracies (Geirhos et al. 2020, eq. 2-6).
    n_resamples : int
        Bootstrap replicates drawn (0 for the analytic interval).
    n_undefined : int
        Bootstrap replicates whose κ was undefined (left out of the interval).
    n_undefined_null : int
        Copy-null replicates whose κ was undefined (left out of M); 0 for other tests.
    notes : tuple of str
        Caveats: why κ is undefined or exactly 0 by construction (a note of kind
        ``"undefined"``), and whether the table is so sparse (smallest expected cell
        count below :data:`trialwise.ec.inference.SPARSE_EXPECTED_COUNT`) that the validity study
        found no interval method within [93.5 %, 96.5 %] coverage at nominal 95 % (kind
        ``"coverage"``; it says what to expect, ``docs/validity.md``), and whether the
        interval ends at the estimate because the estimate is at the end of its range (EC = 1,
        −1, or κ_max / κ_min of these accuracies; kind ``"boundary"``, the boundary rule of
        :func:`trialwise.error_consistency`). Empty otherwise.
    bootstrap_distribution : ndarray, shape (n_resamples,)
        The replicate statistics (NaN = undefined); empty for the analytic interval.
    bootstrap_tables : ndarray, shape (n_resamples, 2, 2)
        The replicate tables (A in rows): bootstrap tables, or for ``jeffreys`` the
        posterior draws of the cell probabilities scaled to n (fractional counts).
        Drawn for every interval method, since the copy-model decomposition
        (:attr:`copy_model`) is computed from them.
    """

    statistic: float = field(metadata=shown("EC", in_repr=True, repr_name="EC"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail=_interval_detail))
    pvalue: float = field(metadata=shown(
        "p-value (EC = 0)", in_repr=True, repr_name="p", format="pvalue", method="test"))
    n: int = field(metadata=shown("items n", in_repr=True, format="int"))
    confidence_level: float
    method: str = field(metadata=shown("estimator", format="text"))
    ci_method: str
    test: str
    counts: NDArray
    accuracy_a: float = field(metadata=shown("accuracy A, B", in_repr=True))
    accuracy_b: float = field(metadata=shown("accuracy A, B", in_repr=True))
    c_obs: float = field(metadata=shown("c_obs, c_exp"))
    c_exp: float = field(metadata=shown("c_obs, c_exp"))
    kappa_min: float = field(metadata=shown("EC bounds", detail="for these accuracies"))
    kappa_max: float = field(metadata=shown("EC bounds", detail="for these accuracies"))
    n_resamples: int
    n_undefined: int = field(metadata=shown("undefined replicates", format="replicates"))
    n_undefined_null: int = 0
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    bootstrap_tables: NDArray = field(default_factory=lambda: np.empty((0, 2, 2)), compare=False)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    summary_title = "Error consistency (Cohen's kappa on trial-by-trial correctness)"
    frame_columns = (
        "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n",
        "accuracy_a", "accuracy_b", "c_obs", "c_exp", "kappa_min", "kappa_max",
        "method", "ci_method", "test", "n_resamples", "n_undefined",
    )

    @property
    def copy_model(self) -> CopyModelFit:
        """Copy-model decomposition "B copies A": EC = p_copy · mismatch, with bootstrap CIs.

        See :meth:`copy_decomposition` for the other direction.
        """
        return self.copy_decomposition("a")

    def copy_decomposition(self, reference_observer: str = "a") -> CopyModelFit:
        """Copy-model decomposition with ``reference_observer`` (``"a"`` or ``"b"``) as the observer that is copied.

        Intervals come from the same replicate tables as the EC interval, with the same
        method (BCa when the EC interval is analytic). The decomposition uses the plain
        κ, also when ``method`` is the bias-corrected κ.

        Parameters
        ----------
        reference_observer : {"a", "b"}, default "a"
            The observer that is copied: ``"a"`` decomposes "B copies A", ``"b"`` "A copies B".

        Returns
        -------
        CopyModelFit
            ``p_copy``, ``mismatch`` and ``latent_accuracy`` with their intervals.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0)
        >>> fit = res.copy_decomposition("b")
        >>> round(fit.p_copy, 3), round(fit.mismatch, 3)
        (0.521, 1.011)
        """
        if not np.asarray(self.bootstrap_tables).size:
            raise InvalidValueError("this result holds no bootstrap tables to decompose")
        return fit_copy_model(
            self.counts, self.bootstrap_tables, reference=reference_observer,
            ci_method="bca" if self.ci_method == "analytic" else self.ci_method,
            confidence_level=self.confidence_level,
        )

    def _summary_details(self) -> list[str]:
        """The 2×2 table of correctness (its own block: a table, not a field's line)."""
        (n11, n10), (n01, n00) = np.asarray(self.counts).tolist()
        return ["  table                B correct  B wrong",
                f"    A correct          {n11:>9}  {n10:>7}",
                f"    A wrong            {n01:>9}  {n00:>7}"]


@dataclass(frozen=True, repr=False)
class PairwiseErrorConsistencyResult(Result):
    """Error consistency of many observer pairs, resampled jointly.

    Array attributes have one entry per pair, in the order of ``observer_a`` /
    ``observer_b``; ``bootstrap_distribution`` has shape (n_resamples, n_pairs) and is
    a joint sample: column differences and means have correct bootstrap uncertainty.
    Use :meth:`pair` for one pair as an :class:`ErrorConsistencyResult`, :meth:`to_frame`
    for a table with one row per pair, :meth:`matrix` for an observers × observers table.
    ``pair_notes`` holds one tuple of caveats per pair (see
    :attr:`ErrorConsistencyResult.notes`); ``notes`` lists them all, prefixed by the pair.
    """

    observers: tuple = field(metadata=shown("observers", in_repr=True, format="count"))
    observer_a: NDArray = field(metadata=shown("pairs", in_repr=True, repr_name="pairs", format="count"))
    observer_b: NDArray
    statistic: NDArray = field(metadata=shown(in_repr=True, repr_name="EC"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail="B = {n_resamples}, joint resampling"))
    pvalue: NDArray
    n: NDArray
    confidence_level: float
    method: str = field(metadata=shown("estimator", format="text"))
    ci_method: str
    test: str = field(metadata=shown("test", in_repr=True, format="text"))
    counts: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    c_obs: NDArray
    c_exp: NDArray
    kappa_min: NDArray
    kappa_max: NDArray
    n_resamples: int = field(metadata=shown(in_repr=True, format="int"))
    n_undefined: NDArray
    n_undefined_null: NDArray
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    pair_notes: tuple = ()
    result_notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    summary_title = "Pairwise error consistency"
    summary_table = True

    frame_columns = (
        "observer_a", "observer_b", "statistic", "ci_low", "ci_high", "pvalue", "n",
        "accuracy_a", "accuracy_b", "c_obs", "c_exp", "kappa_min", "kappa_max", "n_undefined", "coverage_warning",
    )

    @property
    def notes(self) -> tuple[str, ...]:
        """The result's own caveats (``result_notes``, e.g. replicates not kept), then every pair's,
        as ``"a–b: note"`` (the per-pair tuples are in ``pair_notes``)."""
        return tuple(self.result_notes) + tuple(
            f"{a}–{b}: {note}" for a, b, notes in zip(self.observer_a, self.observer_b, self._notes_of_pairs())
            for note in notes)

    def _notes_of_pairs(self) -> tuple:
        return self.pair_notes if self.pair_notes else ((),) * len(self.statistic)

    def _per_pair(self, kind: str) -> tuple:
        return tuple(next((str(x) for x in notes if getattr(x, "kind", "") == kind), None)
                     for notes in self._notes_of_pairs())

    def __len__(self) -> int:
        return len(self.statistic)

    @property
    def coverage_warning(self) -> NDArray:
        """Per pair: whether its table is too sparse for a calibrated interval (a note of kind ``"coverage"``)."""
        return np.array([w is not None for w in self._per_pair("coverage")], dtype=bool)

    def _index(self, a: Any, b: Any) -> tuple[int, bool]:
        for i, (x, y) in enumerate(zip(self.observer_a, self.observer_b)):
            if x == a and y == b:
                return i, False
            if x == b and y == a:
                return i, True
        raise KeyError(f"no pair ({a!r}, {b!r}) in this result")

    def pair(self, a: Any, b: Any) -> ErrorConsistencyResult:
        """The result of one pair (A = ``a``, B = ``b``) as an :class:`ErrorConsistencyResult`.

        Parameters
        ----------
        a, b : hashable
            Two observer names; their order sets which is A (the table is transposed if
            the pair was computed the other way round).

        Returns
        -------
        ErrorConsistencyResult
            The pair's estimate, interval, p-value and table.

        Raises
        ------
        KeyError
            If the pair was not computed.

        Examples
        --------
        >>> import numpy as np, pandas as pd, trialwise as tw
        >>> rng = np.random.default_rng(0)
        >>> correct = pd.DataFrame(rng.random((200, 3)) < [0.8, 0.7, 0.75], columns=["h1", "h2", "m"])
        >>> res = tw.pairwise_error_consistency(correct, n_resamples=200, rng=0)
        >>> one = res.pair("h1", "m")
        >>> round(one.statistic, 3), one.n
        (0.027, 200)
        """
        i, swapped = self._index(a, b)
        counts = np.asarray(self.counts[i])
        acc_a, acc_b = self.accuracy_a[i], self.accuracy_b[i]
        if swapped:
            counts = counts.T
            acc_a, acc_b = acc_b, acc_a
        return ErrorConsistencyResult(
            statistic=float(self.statistic[i]),
            confidence_interval=ConfidenceInterval(
                float(self.confidence_interval.low[i]), float(self.confidence_interval.high[i])
            ),
            pvalue=float(self.pvalue[i]),
            n=int(self.n[i]),
            confidence_level=self.confidence_level,
            method=self.method,
            ci_method=self.ci_method,
            test=self.test,
            counts=counts,
            accuracy_a=float(acc_a),
            accuracy_b=float(acc_b),
            c_obs=float(self.c_obs[i]),
            c_exp=float(self.c_exp[i]),
            kappa_min=float(self.kappa_min[i]),
            kappa_max=float(self.kappa_max[i]),
            n_resamples=self.n_resamples,
            n_undefined=int(self.n_undefined[i]),
            n_undefined_null=int(self.n_undefined_null[i]),
            bootstrap_distribution=self.bootstrap_distribution[:, i] if self.bootstrap_distribution.size else np.empty(0),
            notes=tuple(self._notes_of_pairs()[i]),
        )

    def matrix(self, value: str = "statistic"):
        """Observers × observers :class:`pandas.DataFrame` of one per-pair value.

        ``value`` is a column of :meth:`to_frame` (``"statistic"``, ``"pvalue"``,
        ``"ci_low"``, ...). The table is symmetric; pairs not computed and the diagonal
        are NaN.

        Parameters
        ----------
        value : str, default "statistic"
            The column of :meth:`to_frame` to spread into the matrix.

        Returns
        -------
        pandas.DataFrame
            Observers × observers, index ``observer_a``, columns ``observer_b``.

        Raises
        ------
        InvalidValueError
            If ``value`` is not a numeric column of :meth:`to_frame`.

        Examples
        --------
        >>> import numpy as np, pandas as pd, trialwise as tw
        >>> rng = np.random.default_rng(0)
        >>> correct = pd.DataFrame(rng.random((200, 3)) < [0.8, 0.7, 0.75], columns=["h1", "h2", "m"])
        >>> res = tw.pairwise_error_consistency(correct, n_resamples=200, rng=0)
        >>> res.matrix().round(3).loc["h1"].tolist()
        [nan, -0.037, 0.027]
        """
        frame = self.to_frame()
        if value not in frame.columns[2:]:
            raise InvalidValueError(f"`value` must be one of {list(frame.columns[2:])}; got {value!r}")
        return pair_matrix(frame, self.observers, value)


def pair_matrix(frame: Any, observers: Any, value: str) -> Any:
    """A symmetric observers × observers DataFrame of one per-pair column (NaN diagonal and
    pairs not in ``frame``); ``frame`` has ``observer_a``, ``observer_b`` and ``value``."""
    import pandas as pd

    names = list(observers)
    pos = {name: i for i, name in enumerate(names)}
    mat = np.full((len(names), len(names)), np.nan)
    for a, b, v in zip(frame.observer_a, frame.observer_b, frame[value].astype(float)):
        mat[pos[a], pos[b]] = mat[pos[b], pos[a]] = v
    return pd.DataFrame(mat, index=pd.Index(names, name="observer_a"), columns=pd.Index(names, name="observer_b"))
