"""Result objects: frozen dataclasses with the same field names everywhere.

``statistic``, ``confidence_interval`` (a :class:`ConfidenceInterval`), ``pvalue``,
``method``, ``confidence_level``, ``n``; large arrays (``bootstrap_distribution``) are
kept out of the repr. Each result has a one-line repr, a ``summary()`` text block and a
``to_frame()`` with fixed column names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "BenchmarkCoverageStudy",
    "BrainScoreResult",
    "CalibrationCurve",
    "CeilingResult",
    "CIWidthResult",
    "ComparisonResult",
    "ConfidenceInterval",
    "CopyModelFit",
    "ComparisonReport",
    "CopyModelValidation",
    "CoverageStudy",
    "EnsembleRecommendation",
    "ErrorConsistencyDifferenceResult",
    "ErrorConsistencyResult",
    "PairwiseErrorConsistencyResult",
    "PlanResult",
    "PowerResult",
    "TypeOneErrorStudy",
]


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval ``[low, high]`` (floats, or arrays for batched results)."""

    low: Any
    high: Any

    def __iter__(self):
        return iter((self.low, self.high))

    def __repr__(self) -> str:
        if np.ndim(self.low) == 0:
            return f"ConfidenceInterval(low={_num(self.low)}, high={_num(self.high)})"
        return f"ConfidenceInterval(low=<{np.size(self.low)} values>, high=<{np.size(self.high)} values>)"


def _num(x: Any, digits: int = 3) -> str:
    x = float(x)
    if np.isnan(x):
        return "nan"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.000"


def _p(p: Any) -> str:
    p = float(p)
    if np.isnan(p):
        return "nan"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def _pct(level: float) -> str:
    return f"{100 * level:g}%"


def _one_row(result: Any, **extra: Any):
    """One-row DataFrame of ``result._columns``: the attributes of those names, ``ci_low``/``ci_high``
    from ``result.confidence_interval``, then ``extra`` (which wins)."""
    import pandas as pd

    row = {c: getattr(result, c) for c in result._columns if hasattr(result, c)}
    row["ci_low"], row["ci_high"] = result.confidence_interval.low, result.confidence_interval.high
    row.update(extra)
    return pd.DataFrame([row], columns=list(result._columns))


_FRAME_COLUMNS = [
    "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n",
    "accuracy_a", "accuracy_b", "c_obs", "c_exp", "kappa_min", "kappa_max",
    "method", "ci_method", "test", "n_resamples", "n_undefined",
]


@dataclass(frozen=True, repr=False)
class ErrorConsistencyResult:
    """Error consistency of two observers with its confidence interval and test.

    Attributes
    ----------
    statistic : float
        κ (or the bias-corrected κ_u when ``method == "bias-corrected kappa"``); NaN
        when undefined (see ``undefined_reason``).
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
        Bounds of κ for these accuracies (SPEC §2.1).
    n_resamples : int
        Bootstrap replicates drawn (0 for the analytic interval).
    n_undefined : int
        Bootstrap replicates whose κ was undefined (left out of the interval).
    n_undefined_null : int
        Copy-null replicates whose κ was undefined (left out of M); 0 for other tests.
    undefined_reason : str or None
        Why κ is undefined or exactly 0 by construction, else None.
    coverage_warning : str or None
        Set when the table is so sparse (smallest expected cell count below
        :data:`trialwise.ec.SPARSE_EXPECTED_COUNT`) that the validity study found no
        interval method within [93.5 %, 96.5 %] coverage at nominal 95 %; it says what
        to expect (``docs/validity.md``). None otherwise.
    bootstrap_distribution : ndarray, shape (n_resamples,)
        The replicate statistics (NaN = undefined); empty for the analytic interval.
    bootstrap_tables : ndarray, shape (n_resamples, 2, 2)
        The replicate tables (A in rows): bootstrap tables, or for ``jeffreys`` the
        posterior draws of the cell probabilities scaled to n (fractional counts).
        Drawn for every interval method, since the copy-model decomposition
        (:attr:`copy_model`) is computed from them.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    n: int
    confidence_level: float
    method: str
    ci_method: str
    test: str
    counts: NDArray
    accuracy_a: float
    accuracy_b: float
    c_obs: float
    c_exp: float
    kappa_min: float
    kappa_max: float
    n_resamples: int
    n_undefined: int
    n_undefined_null: int = 0
    undefined_reason: str | None = None
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    bootstrap_tables: NDArray = field(default_factory=lambda: np.empty((0, 2, 2)), compare=False)
    coverage_warning: str | None = None

    @property
    def copy_model(self) -> CopyModelFit:
        """Copy-model decomposition "B copies A": EC = p_copy · mismatch, with bootstrap CIs.

        See :meth:`copy_decomposition` for the other direction.
        """
        return self.copy_decomposition("a")

    def copy_decomposition(self, reference: str = "a") -> CopyModelFit:
        """Copy-model decomposition with ``reference`` as the observer that is copied.

        Intervals come from the same replicate tables as the EC interval, with the same
        method (BCa when the EC interval is analytic). The decomposition uses the plain
        κ, also when ``method`` is the bias-corrected κ.
        """
        from trialwise.copymodel import fit_copy_model

        if not np.asarray(self.bootstrap_tables).size:
            raise ValueError("this result holds no bootstrap tables to decompose")
        return fit_copy_model(
            self.counts, self.bootstrap_tables, reference=reference,
            ci_method="bca" if self.ci_method == "analytic" else self.ci_method,
            confidence_level=self.confidence_level,
        )

    def __repr__(self) -> str:
        ci = self.confidence_interval
        est = "undefined" if np.isnan(self.statistic) else _num(self.statistic)
        return (
            f"ErrorConsistencyResult(EC={est}, "
            f"{_pct(self.confidence_level)} CI [{_num(ci.low)}, {_num(ci.high)}] ({self.ci_method}), "
            f"p={_p(self.pvalue)} ({self.test}), n={self.n}, "
            f"accuracy_a={_num(self.accuracy_a)}, accuracy_b={_num(self.accuracy_b)})"
        )

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result."""
        ci = self.confidence_interval
        (n11, n10), (n01, n00) = np.asarray(self.counts).tolist()
        label = "Bias-corrected error consistency" if self.method == "bias-corrected kappa" else "Error consistency"
        lines = [
            f"{label} (Cohen's kappa on trial-by-trial correctness)",
            f"  EC                   {'undefined (expected agreement 1)' if np.isnan(self.statistic) else _num(self.statistic)}",
            f"  {_pct(self.confidence_level) + ' CI':<21}[{_num(ci.low)}, {_num(ci.high)}]   ({self.ci_method}"
            + (f", B = {self.n_resamples})" if self.n_resamples else ")")
            + ("   the EC values compatible with the data (posterior), not an interval around an estimate"
               if np.isnan(self.statistic) and self.ci_method == "jeffreys" and not np.isnan(ci.low) else ""),
            f"  p-value (EC = 0)     {_p(self.pvalue)}   ({self.test})",
            f"  items n              {self.n}",
            f"  accuracy A, B        {_num(self.accuracy_a)}, {_num(self.accuracy_b)}",
            f"  c_obs, c_exp         {_num(self.c_obs)}, {_num(self.c_exp)}",
            f"  EC bounds            [{_num(self.kappa_min)}, {_num(self.kappa_max)}]   (for these accuracies)",
            "  table                B correct  B wrong",
            f"    A correct          {n11:>9}  {n10:>7}",
            f"    A wrong            {n01:>9}  {n00:>7}",
        ]
        if self.n_resamples:
            share = self.n_undefined / self.n_resamples
            lines.append(f"  undefined replicates {self.n_undefined} of {self.n_resamples} ({100 * share:.2g}%)")
        if self.undefined_reason:
            lines.append(f"  note                 {self.undefined_reason}")
        if self.coverage_warning:
            lines.append(f"  coverage warning     {self.coverage_warning}")
        return "\n".join(lines)

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with fixed column names."""
        import pandas as pd

        row = {
            "statistic": self.statistic,
            "ci_low": self.confidence_interval.low,
            "ci_high": self.confidence_interval.high,
            "confidence_level": self.confidence_level,
            "pvalue": self.pvalue,
            "n": self.n,
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "c_obs": self.c_obs,
            "c_exp": self.c_exp,
            "kappa_min": self.kappa_min,
            "kappa_max": self.kappa_max,
            "method": self.method,
            "ci_method": self.ci_method,
            "test": self.test,
            "n_resamples": self.n_resamples,
            "n_undefined": self.n_undefined,
        }
        return pd.DataFrame([row], columns=_FRAME_COLUMNS)

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary of the result (JSON-serialisable; NaN stays NaN)."""
        out = self.to_frame().iloc[0].to_dict()
        out = {k: (v.item() if hasattr(v, "item") else v) for k, v in out.items()}
        out["counts"] = np.asarray(self.counts).tolist()
        out["n_undefined_null"] = int(self.n_undefined_null)
        out["undefined_reason"] = self.undefined_reason
        out["coverage_warning"] = self.coverage_warning
        return out


@dataclass(frozen=True, repr=False)
class ErrorConsistencyDifferenceResult:
    """Difference of two observers' EC with one reference (:func:`trialwise.error_consistency_difference`).

    ``statistic`` = ``kappa_x − kappa_y``; ``confidence_interval`` from the jointly
    resampled triplets (``ci_method``); ``pvalue`` of H0: Δ = 0 (``test``); ``counts``
    the (2, 2, 2) triplet table (reference, x, y; index 0 = correct);
    ``bootstrap_distribution`` the replicate Δ's (NaN = undefined, ``n_undefined`` of
    them).
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    n: int
    kappa_x: float
    kappa_y: float
    accuracy_reference: float
    accuracy_x: float
    accuracy_y: float
    confidence_level: float
    ci_method: str
    test: str
    counts: NDArray = field(compare=False)
    n_resamples: int = 0
    n_undefined: int = 0
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)

    _columns = ("statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n", "kappa_x", "kappa_y",
                "accuracy_reference", "accuracy_x", "accuracy_y", "ci_method", "test", "n_resamples",
                "n_undefined")

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (
            f"ErrorConsistencyDifferenceResult(delta={_num(self.statistic)}, "
            f"{_pct(self.confidence_level)} CI [{_num(ci.low)}, {_num(ci.high)}] ({self.ci_method}), "
            f"p={_p(self.pvalue)} ({self.test}), EC_x={_num(self.kappa_x)}, EC_y={_num(self.kappa_y)}, n={self.n})"
        )

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result."""
        ci = self.confidence_interval
        return "\n".join([
            "Difference in error consistency with one reference: EC(ref, x) - EC(ref, y)",
            f"  difference           {_num(self.statistic)}",
            f"  {_pct(self.confidence_level) + ' CI':<21}[{_num(ci.low)}, {_num(ci.high)}]   "
            f"({self.ci_method}, B = {self.n_resamples})",
            f"  p-value (equal EC)   {_p(self.pvalue)}   ({self.test})",
            f"  EC x, EC y           {_num(self.kappa_x)}, {_num(self.kappa_y)}",
            f"  accuracy ref, x, y   {_num(self.accuracy_reference)}, {_num(self.accuracy_x)}, "
            f"{_num(self.accuracy_y)}",
            f"  items n              {self.n}",
            f"  undefined replicates {self.n_undefined} of {self.n_resamples}",
        ])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with the columns of ``_columns``."""
        return _one_row(self)


@dataclass(frozen=True, repr=False)
class CopyModelFit:
    """Copy-model decomposition of an observed error consistency, with bootstrap CIs.

    ``kappa = p_copy · mismatch``: the *other* observer copies the *reference*
    (``reference`` = ``"a"`` or ``"b"``) with probability ``p_copy`` and otherwise
    answers with ``latent_accuracy`` (seed 000, Prop. 2). Each ``*_interval`` is a
    :class:`ConfidenceInterval` from the same bootstrap replicates (``ci_method``);
    ``n_undefined`` replicates had a reference that was always right or always wrong,
    where the decomposition is undefined, and were left out.
    """

    reference: str
    kappa: float
    p_copy: float
    mismatch: float
    latent_accuracy: float
    accuracy_ref: float
    accuracy_other: float
    kappa_interval: ConfidenceInterval
    p_copy_interval: ConfidenceInterval
    mismatch_interval: ConfidenceInterval
    latent_accuracy_interval: ConfidenceInterval
    confidence_level: float
    ci_method: str
    n_resamples: int
    n_undefined: int

    _ROWS = ("kappa", "p_copy", "mismatch", "latent_accuracy")

    @property
    def direction(self) -> str:
        return "B copies A" if self.reference == "a" else "A copies B"

    def __repr__(self) -> str:
        def show(name):
            ci = getattr(self, f"{name}_interval")
            return f"{_num(getattr(self, name))} [{_num(ci.low)}, {_num(ci.high)}]"

        return (
            f"CopyModelFit({self.direction}: EC {show('kappa')} = p_copy {show('p_copy')} "
            f"x mismatch {show('mismatch')}; latent accuracy {show('latent_accuracy')}; "
            f"{_pct(self.confidence_level)} CI ({self.ci_method}))"
        )

    __str__ = __repr__

    def to_frame(self):
        """:class:`pandas.DataFrame` with rows kappa, p_copy, mismatch, latent_accuracy."""
        import pandas as pd

        rows = []
        for name in self._ROWS:
            ci = getattr(self, f"{name}_interval")
            rows.append({"quantity": name, "estimate": getattr(self, name), "ci_low": ci.low, "ci_high": ci.high})
        return pd.DataFrame(rows, columns=["quantity", "estimate", "ci_low", "ci_high"])

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"reference": self.reference, "direction": self.direction}
        for name in self._ROWS:
            ci = getattr(self, f"{name}_interval")
            out[name] = getattr(self, name)
            out[f"{name}_ci"] = [ci.low, ci.high]
        out.update(
            accuracy_ref=self.accuracy_ref, accuracy_other=self.accuracy_other,
            confidence_level=self.confidence_level, ci_method=self.ci_method,
            n_resamples=self.n_resamples, n_undefined=self.n_undefined,
        )
        return out

    def summary(self) -> str:
        head = (
            f"Copy-model decomposition ({self.direction}): EC = p_copy x mismatch\n"
            f"  accuracy reference, other  {_num(self.accuracy_ref)}, {_num(self.accuracy_other)}\n"
            f"  {_pct(self.confidence_level)} CIs: {self.ci_method}, B = {self.n_resamples}"
            f" ({self.n_undefined} undefined replicates left out)"
        )
        return head + "\n" + self.to_frame().to_string(index=False, float_format=lambda x: f"{x:.3f}")


@dataclass(frozen=True, repr=False)
class PairwiseErrorConsistencyResult:
    """Error consistency of many observer pairs, resampled jointly.

    Array attributes have one entry per pair, in the order of ``observer_a`` /
    ``observer_b``; ``bootstrap_distribution`` has shape (n_resamples, n_pairs) and is
    a joint sample: column differences and means have correct bootstrap uncertainty.
    Use :meth:`pair` for one pair as an :class:`ErrorConsistencyResult`, :meth:`to_frame`
    for a table with one row per pair, :meth:`matrix` for an observers × observers table.
    """

    observers: tuple
    observer_a: NDArray
    observer_b: NDArray
    statistic: NDArray
    confidence_interval: ConfidenceInterval
    pvalue: NDArray
    n: NDArray
    confidence_level: float
    method: str
    ci_method: str
    test: str
    counts: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    c_obs: NDArray
    c_exp: NDArray
    kappa_min: NDArray
    kappa_max: NDArray
    n_resamples: int
    n_undefined: NDArray
    n_undefined_null: NDArray
    undefined_reason: tuple
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    coverage_warning: tuple = ()

    def __len__(self) -> int:
        return len(self.statistic)

    def __repr__(self) -> str:
        stat = np.asarray(self.statistic, dtype=float)
        ok = ~np.isnan(stat)
        med = _num(np.median(stat[ok])) if ok.any() else "nan"
        return (
            f"PairwiseErrorConsistencyResult({len(self.observers)} observers, {len(stat)} pairs, "
            f"median EC={med}, {_pct(self.confidence_level)} CI ({self.ci_method}), "
            f"test={self.test}, n_resamples={self.n_resamples})"
        )

    __str__ = __repr__

    def _index(self, a: Any, b: Any) -> tuple[int, bool]:
        for i, (x, y) in enumerate(zip(self.observer_a, self.observer_b)):
            if x == a and y == b:
                return i, False
            if x == b and y == a:
                return i, True
        raise KeyError(f"no pair ({a!r}, {b!r}) in this result")

    def pair(self, a: Any, b: Any) -> ErrorConsistencyResult:
        """The result of one pair (A = ``a``, B = ``b``) as an :class:`ErrorConsistencyResult`."""
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
            undefined_reason=self.undefined_reason[i],
            bootstrap_distribution=self.bootstrap_distribution[:, i] if self.bootstrap_distribution.size else np.empty(0),
            coverage_warning=self.coverage_warning[i] if self.coverage_warning else None,
        )

    def to_frame(self):
        """:class:`pandas.DataFrame` with one row per pair.

        Columns: ``observer_a, observer_b, statistic, ci_low, ci_high, pvalue, n``, then
        ``accuracy_a, accuracy_b, c_obs, c_exp, kappa_min, kappa_max, n_undefined``,
        ``coverage_warning`` (True where the table is too sparse for a calibrated interval,
        see :class:`ErrorConsistencyResult`).
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "observer_a": list(self.observer_a),
                "observer_b": list(self.observer_b),
                "statistic": self.statistic,
                "ci_low": self.confidence_interval.low,
                "ci_high": self.confidence_interval.high,
                "pvalue": self.pvalue,
                "n": self.n,
                "accuracy_a": self.accuracy_a,
                "accuracy_b": self.accuracy_b,
                "c_obs": self.c_obs,
                "c_exp": self.c_exp,
                "kappa_min": self.kappa_min,
                "kappa_max": self.kappa_max,
                "n_undefined": self.n_undefined,
                "coverage_warning": [w is not None for w in self.coverage_warning] if self.coverage_warning
                else np.zeros(len(self.statistic), dtype=bool),
            }
        )

    def matrix(self, value: str = "statistic"):
        """Observers × observers :class:`pandas.DataFrame` of one per-pair value.

        ``value`` is a column of :meth:`to_frame` (``"statistic"``, ``"pvalue"``,
        ``"ci_low"``, ...). The table is symmetric; pairs not computed and the diagonal
        are NaN.
        """
        import pandas as pd

        frame = self.to_frame()
        if value not in frame.columns[2:]:
            raise ValueError(f"`value` must be one of {list(frame.columns[2:])}; got {value!r}")
        names = list(self.observers)
        pos = {name: i for i, name in enumerate(names)}
        mat = np.full((len(names), len(names)), np.nan)
        for a, b, v in zip(frame.observer_a, frame.observer_b, frame[value].astype(float)):
            mat[pos[a], pos[b]] = mat[pos[b], pos[a]] = v
        return pd.DataFrame(mat, index=pd.Index(names, name="observer_a"), columns=pd.Index(names, name="observer_b"))

    def summary(self) -> str:
        """Text block: settings, then the per-pair table."""
        head = (
            f"Pairwise error consistency: {len(self.observers)} observers, {len(self)} pairs, "
            f"{_pct(self.confidence_level)} CI ({self.ci_method}, B = {self.n_resamples}, joint resampling), "
            f"test = {self.test}"
        )
        return head + "\n" + self.to_frame().to_string(index=False, float_format=lambda x: f"{x:.4g}")


# --------------------------------------------------------------------------- planning


class _GridResult:
    """Results over a broadcast grid of designs: every array field has the grid's shape."""

    _columns: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(getattr(self, self._columns[0]))

    def to_frame(self):
        """:class:`pandas.DataFrame` with one row per grid point."""
        import pandas as pd

        return pd.DataFrame({c: np.ravel(np.asarray(getattr(self, c))) for c in self._columns})

    def summary(self) -> str:
        return f"{type(self).__name__}\n" + self.to_frame().to_string(index=False, float_format=lambda x: f"{x:.4g}")

    def __repr__(self) -> str:
        if self.shape == ():
            inner = ", ".join(f"{c}={float(getattr(self, c)):.4g}" for c in self._columns)
        else:
            inner = f"<grid of shape {self.shape}>"
        return f"{type(self).__name__}({inner})"

    __str__ = __repr__


@dataclass(frozen=True, repr=False)
class CIWidthResult(_GridResult):
    """Distribution of κ̂ over simulated experiments, per design (see :func:`trialwise.ci_width`).

    ``low``/``high``: central ``confidence_level`` interval of κ̂; ``width`` and
    ``half_width`` (= width/2); ``mean``, ``median``; ``bias`` = mean − κ;
    ``share_undefined``: experiments with an undefined κ̂ (left out of the rest).
    ``distribution`` (n_simulations, *shape) holds the simulated κ̂ (NaN = undefined)
    as an unordered sample: within a grid point the experiments come sorted by A's number
    of correct trials (see ``order_free`` in :func:`trialwise.resampling.multinomial_tables`),
    so use it for histograms and quantiles, not as a sequence.
    """

    n: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    kappa: NDArray
    low: NDArray
    high: NDArray
    mean: NDArray
    median: NDArray
    share_undefined: NDArray
    confidence_level: float
    n_simulations: int
    distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)

    _columns = ("n", "accuracy_a", "accuracy_b", "kappa", "low", "high", "width", "half_width",
                "mean", "median", "bias", "share_undefined")

    @property
    def width(self) -> NDArray:
        return np.asarray(self.high) - np.asarray(self.low)

    @property
    def half_width(self) -> NDArray:
        return self.width / 2

    @property
    def bias(self) -> NDArray:
        return np.asarray(self.mean) - np.asarray(self.kappa)


@dataclass(frozen=True, repr=False)
class PowerResult(_GridResult):
    """Power of the test of κ_X = κ_Y against a shared reference (:func:`trialwise.power_difference`).

    ``power`` is simulated (Monte-Carlo SE ``power_se``); ``power_analytic`` is the
    large-sample normal approximation; ``se`` the large-sample SE of the difference.
    When the smallest n was searched, ``target_power`` is set and ``reached`` says
    whether ``n_max`` sufficed.
    """

    n: NDArray
    power: NDArray
    power_se: NDArray
    power_analytic: NDArray
    delta: NDArray
    se: NDArray
    alpha: float
    n_simulations: int
    target_power: float | None = None
    reached: bool = True

    _columns = ("n", "delta", "se", "power", "power_se", "power_analytic")


@dataclass(frozen=True, repr=False)
class CopyModelValidation(_GridResult):
    """Copy-model vs bootstrap intervals per design (seed 000, App. G; :func:`trialwise.validate_copy_model`)."""

    n: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    kappa: NDArray
    data_kappa: NDArray
    bootstrap_low: NDArray
    bootstrap_high: NDArray
    model_low: NDArray
    model_high: NDArray
    confidence_level: float
    n_resamples: int
    n_simulations: int

    _columns = ("n", "accuracy_a", "accuracy_b", "kappa", "data_kappa", "bootstrap_low", "bootstrap_high",
                "model_low", "model_high", "width_ratio")

    @property
    def width_ratio(self) -> NDArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.asarray(self.model_high) - self.model_low) / (np.asarray(self.bootstrap_high) - self.bootstrap_low)


@dataclass(frozen=True, repr=False)
class PlanResult:
    """Smallest number of trials for a target interval half-width (:func:`trialwise.plan_trials`).

    Attributes
    ----------
    n : int or None
        Smallest n reaching ``half_width_target`` (None: not reached by ``n_max``).
    at_n : CIWidthResult or None
        The expected interval at ``n``.
    intervals : CIWidthResult
        Expected intervals at the literature's trial counts and at ``n``.
    alternatives : list of dict
        The required n if the reference accuracy were different (same copy
        probability and latent accuracy of B): ``scenario, accuracy_a, accuracy_b,
        kappa, p_copy, n_required``.
    notes : tuple of str
        Recommendations computed from these numbers.
    """

    n: int | None
    half_width_target: float
    accuracy_a: float
    accuracy_b: float
    kappa: float
    confidence_level: float
    n_simulations: int
    at_n: CIWidthResult | None
    intervals: CIWidthResult
    alternatives: list
    notes: tuple

    def __repr__(self) -> str:
        got = "" if self.at_n is None else f", half_width={float(self.at_n.half_width):.4g}"
        return (
            f"PlanResult(n={self.n}{got}, target={self.half_width_target:g}, accuracy_a={self.accuracy_a:g}, "
            f"accuracy_b={self.accuracy_b:g}, kappa={self.kappa:g}, {_pct(self.confidence_level)})"
        )

    __str__ = __repr__

    def alternatives_frame(self):
        import pandas as pd

        return pd.DataFrame(self.alternatives, columns=["scenario", "accuracy_a", "accuracy_b", "kappa", "p_copy", "n_required"])

    def to_frame(self):
        """The expected-interval table (one row per trial count)."""
        return self.intervals.to_frame()

    def to_dict(self) -> dict[str, Any]:
        frame = self.to_frame()
        return {
            "n": self.n,
            "half_width_target": self.half_width_target,
            "half_width": None if self.at_n is None else float(self.at_n.half_width),
            "accuracy_a": self.accuracy_a,
            "accuracy_b": self.accuracy_b,
            "kappa": self.kappa,
            "confidence_level": self.confidence_level,
            "n_simulations": self.n_simulations,
            "intervals": frame.to_dict(orient="records"),
            "alternatives": [dict(r) for r in self.alternatives],
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        head = (
            f"Planning: EC {self.kappa:g} between observers with accuracies {self.accuracy_a:g} (A, reference) "
            f"and {self.accuracy_b:g}; target half-width {self.half_width_target:g} "
            f"({_pct(self.confidence_level)}, {self.n_simulations} simulated experiments per n)"
        )
        req = f"required trials: {self.n}" if self.n is not None else "required trials: not reached"
        cols = ["n", "low", "high", "half_width", "bias", "share_undefined"]
        table = self.to_frame()[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}")
        alts = self.alternatives_frame().to_string(index=False, float_format=lambda x: f"{x:.3f}")
        notes = "\n".join(f"  - {n}" for n in self.notes)
        return (f"{head}\n{req}\n\nexpected intervals of the EC estimate:\n{table}\n\n"
                f"if the reference accuracy were different (same copy probability):\n{alts}\n\nnotes:\n{notes}")


@dataclass(frozen=True, repr=False)
class _Study:
    """A simulation study's long table, with its Monte-Carlo settings and wall time."""

    table: Any  # pandas.DataFrame
    n_datasets: int
    n_resamples: int
    wall_time: float

    def to_frame(self):
        """The long table (a copy)."""
        return self.table.copy()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(<{len(self.table)} rows>, R = {self.n_datasets} experiments per point, "
                f"B = {self.n_resamples}, {self.wall_time:.0f} s)")

    __str__ = __repr__


@dataclass(frozen=True, repr=False)
class CoverageStudy(_Study):
    """Coverage of EC intervals on simulated data (:func:`trialwise.validity.coverage_study`).

    ``table`` has one row per (grid point, method, confidence level); see
    :func:`~trialwise.validity.coverage_study` for its columns.
    """

    def eligible(self, max_undefined: float = 0.01):
        """Rows where the coverage requirement applies: defined intervals for all but ``max_undefined``.

        A grid point is judged when fewer than ``max_undefined`` of its experiments have
        an undefined estimate and, on average, fewer than ``max_undefined`` of the
        bootstrap replicates are undefined (the bootstrap methods' rows decide).
        """
        t = self.table
        key = ["n", "accuracy_a", "accuracy_b", "kappa"]
        boot = t[t.method.isin(["percentile", "bca", "basic", "hdi"])]
        if boot.empty:
            ok = t.share_undefined_estimate < max_undefined
            return t[ok]
        worst = boot.groupby(key).agg(u=("share_undefined_replicates", "max"), e=("share_undefined_estimate", "max"))
        good = worst[(worst.u < max_undefined) & (worst.e < max_undefined)].reset_index()[key]
        return t.merge(good, on=key)

    def summary(self, confidence_level: float = 0.95, band: tuple[float, float] = (0.935, 0.965)) -> Any:
        """Per method: min / median / max coverage over the eligible points, and how many fall outside ``band``."""
        t = self.eligible()
        t = t[np.isclose(t.confidence_level, confidence_level)]
        out = t.groupby("method", sort=False).agg(
            points=("coverage", "size"), min=("coverage", "min"), median=("coverage", "median"),
            max=("coverage", "max"), mean_width=("mean_width", "mean"),
            below_band=("coverage", lambda c: int((c < band[0]).sum())),
            above_band=("coverage", lambda c: int((c > band[1]).sum())),
        )
        return out


@dataclass(frozen=True, repr=False)
class TypeOneErrorStudy(_Study):
    """Rejection rates of tests under their null (:mod:`trialwise.validity`).

    ``table`` has one row per (grid point, test, α) with ``rejection_rate``,
    ``rejection_se`` and ``share_undefined``.
    """

    def summary(self) -> Any:
        """Per test and α: min / median / max rejection rate over the grid."""
        return self.table.groupby(["test", "alpha"], sort=False).agg(
            points=("rejection_rate", "size"), min=("rejection_rate", "min"),
            median=("rejection_rate", "median"), max=("rejection_rate", "max"),
        )


@dataclass(frozen=True, repr=False)
class BenchmarkDifferenceResult:
    """Difference of two candidates' benchmark scores (:func:`trialwise.difference_test`).

    ``statistic`` = ``score_x − score_y`` under the protocol; ``confidence_interval``
    from the joint hierarchical bootstrap; ``pvalue`` of H0 "x and y are alike" by
    ``test``; ``null_distribution`` the swap (or bootstrap) replicates behind it.
    """

    x: str
    y: str
    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    score_x: float
    score_y: float
    protocol: str
    metric: str
    confidence_level: float
    ci_method: str
    test: str
    n_resamples: int
    n_permutations: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    null_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)

    _columns = ("x", "y", "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "score_x", "score_y",
                "protocol", "metric", "ci_method", "test", "n_resamples", "n_permutations")

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"BenchmarkDifferenceResult({self.x} − {self.y}: delta={_num(self.statistic)}, "
                f"{_pct(self.confidence_level)} CI [{_num(ci.low)}, {_num(ci.high)}], p={_p(self.pvalue)} "
                f"({self.test}), protocol={self.protocol!r})")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result."""
        ci = self.confidence_interval
        return "\n".join([
            f"Difference in benchmark score ({self.metric}, protocol {self.protocol}): {self.x} − {self.y}",
            f"  scores               {_num(self.score_x)}, {_num(self.score_y)}",
            f"  difference           {_num(self.statistic)}",
            f"  {_pct(self.confidence_level) + ' CI':<21}[{_num(ci.low)}, {_num(ci.high)}]   "
            f"({self.ci_method}, hierarchical bootstrap, B = {self.n_resamples})",
            f"  p-value (alike)      {_p(self.pvalue)}   ({self.test}"
            + (f", M = {self.n_permutations})" if self.test != "bootstrap" else ")"),
        ])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with the columns of ``_columns``."""
        return _one_row(self)


@dataclass(frozen=True, repr=False)
class CeilingResult:
    """A benchmark's ceiling, how well the humans agree with each other, with its CI.

    ``statistic`` is the ceiling; ``confidence_interval`` the percentile interval of
    ``bootstrap_distribution`` (items resampled within conditions); ``method`` says how
    it was computed (split-half over subjects, all pairs, or fixed).
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    method: str
    metric: str
    confidence_level: float
    n_resamples: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)

    def __float__(self) -> float:
        return float(self.statistic)

    def __repr__(self) -> str:
        ci = self.confidence_interval
        return (f"CeilingResult({self.metric}: ceiling={_num(self.statistic)}, {_pct(self.confidence_level)} CI "
                f"[{_num(ci.low)}, {_num(ci.high)}], {self.method})")

    __str__ = __repr__


@dataclass(frozen=True, repr=False)
class BrainScoreResult:
    """A candidate's score on a behavioural benchmark (:class:`trialwise.BehavioralBenchmark`).

    ``statistic`` = ``clip(raw / ceiling, 0, 1)``; ``raw`` the metric before ceiling;
    ``ceiling`` a :class:`CeilingResult`. All intervals are percentile intervals of one
    joint bootstrap (the same item replicates for the candidate and the humans), so the
    score's interval includes the ceiling's uncertainty. ``n_undefined``: replicates
    whose ceiling was ≤ 0 (score undefined, left out of the interval).
    """

    observer: str
    statistic: float
    confidence_interval: ConfidenceInterval
    raw: float
    raw_interval: ConfidenceInterval
    ceiling: CeilingResult
    metric: str
    protocol: str
    confidence_level: float
    n_resamples: int
    n_undefined: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    raw_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()

    _columns = ("observer", "statistic", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling",
                "ceiling_low", "ceiling_high", "confidence_level", "metric", "protocol", "n_resamples",
                "n_undefined")

    @property
    def score(self) -> float:
        """The ceiled score (same as ``statistic``)."""
        return self.statistic

    def __repr__(self) -> str:
        ci, rc = self.confidence_interval, self.raw_interval
        return (f"BrainScoreResult({self.observer}: score={_num(self.statistic)} "
                f"[{_num(ci.low)}, {_num(ci.high)}], raw={_num(self.raw)} [{_num(rc.low)}, {_num(rc.high)}], "
                f"ceiling={_num(self.ceiling.statistic)}, {self.metric})")

    __str__ = __repr__

    def summary(self) -> str:
        """A readable text block with every number of the result."""
        ci, rc, cc = self.confidence_interval, self.raw_interval, self.ceiling.confidence_interval
        lvl = _pct(self.confidence_level) + " CI"
        lines = [
            f"Behavioural benchmark score of {self.observer} ({self.metric}, protocol {self.protocol})",
            f"  score = clip(raw / ceiling, 0, 1)   {_num(self.statistic)}   {lvl} [{_num(ci.low)}, {_num(ci.high)}]",
            f"  raw                                 {_num(self.raw)}   {lvl} [{_num(rc.low)}, {_num(rc.high)}]",
            f"  ceiling                             {_num(self.ceiling.statistic)}   {lvl} [{_num(cc.low)}, "
            f"{_num(cc.high)}]   ({self.ceiling.method})",
            f"  percentile intervals of one joint bootstrap, B = {self.n_resamples}"
            + (f"; {self.n_undefined} replicate(s) with ceiling ≤ 0 left out" if self.n_undefined else ""),
        ]
        return "\n".join(lines + [f"  note: {n}" for n in self.notes])

    def to_frame(self):
        """One-row :class:`pandas.DataFrame` with the columns of ``_columns``."""
        (raw_low, raw_high), (ceiling_low, ceiling_high) = self.raw_interval, self.ceiling.confidence_interval
        return _one_row(self, raw_low=raw_low, raw_high=raw_high, ceiling=self.ceiling.statistic,
                        ceiling_low=ceiling_low, ceiling_high=ceiling_high)


@dataclass(frozen=True, repr=False)
class BenchmarkCoverageStudy(_Study):
    """Calibration of leaderboards on simulated benchmarks (:func:`trialwise.validity.benchmark_coverage_study`).

    ``table``: coverage, mean width and bias of each observer's score interval;
    ``ranks``: coverage of the rank intervals (per model, and all at once); ``tests``:
    rejection rates of the bootstrap and swap tests for two models with equal true
    scores and unequal accuracies.
    """

    ranks: Any = None
    tests: Any = None
    confidence_level: float = 0.95
    n_permutations: int = 0

    def summary(self) -> str:
        """The three tables as text."""
        fmt = {"float_format": lambda x: f"{x:.3f}"}
        return "\n\n".join([
            f"Score intervals ({_pct(self.confidence_level)}, R = {self.n_datasets} benchmarks, B = {self.n_resamples})",
            self.table.to_string(index=False, **fmt),
            "Rank intervals", self.ranks.to_string(index=False, **fmt),
            f"Tests of x vs y (equal true scores, unequal accuracies; M = {self.n_permutations})",
            self.tests.to_string(index=False, **fmt),
        ])


@dataclass(frozen=True, repr=False)
class ComparisonResult:
    """One method of the classifier-comparison toolkit (seed 001, ch. 14): its value, p and CI.

    ``statistic`` is the method's value; ``pvalue`` and ``confidence_interval`` are NaN
    where the method defines none; ``note`` states the convention (e.g. which McNemar
    variant) or a degenerate case; ``details`` holds method-specific numbers (counts,
    per-pair contributions, …).
    """

    method: str
    statistic: float
    pvalue: float = np.nan
    confidence_interval: ConfidenceInterval = field(default_factory=lambda: ConfidenceInterval(np.nan, np.nan))
    n: int = 0
    note: str = ""
    details: dict = field(default_factory=dict, compare=False)

    _columns = ("method", "statistic", "pvalue", "ci_low", "ci_high", "n", "note")

    def __float__(self) -> float:
        return float(self.statistic)

    def __repr__(self) -> str:
        parts = [f"{self.method}: {_num(self.statistic, 4)}"]
        if not np.isnan(self.pvalue):
            parts.append(f"p={_p(self.pvalue)}")
        if not np.isnan(self.confidence_interval.low):
            parts.append(f"CI [{_num(self.confidence_interval.low, 4)}, {_num(self.confidence_interval.high, 4)}]")
        return f"ComparisonResult({', '.join(parts)}, n={self.n}" + (f"; {self.note})" if self.note else ")")

    __str__ = __repr__

    def to_frame(self):
        """One-row :class:`pandas.DataFrame`: method, statistic, pvalue, ci_low, ci_high, n, note."""
        return _one_row(self)


@dataclass(frozen=True, repr=False)
class CalibrationCurve:
    """A calibration curve (reliability diagram): per-bin predicted vs observed, and its ECE.

    ``kind`` is "binary", "top-label" or "classwise"; ``table`` has one row per bin (per
    class for classwise), empty bins included; ``ece`` the expected calibration error
    (mean over classes for classwise, each in ``per_class``); ``brier`` the Brier score of
    the same predictions (binary convention at K = 2, multi-class above), for legends.
    """

    kind: str
    strategy: str
    n_bins: int
    table: Any
    ece: float
    per_class: dict
    brier: float
    n: int

    def __repr__(self) -> str:
        empty = int((self.table["count"] == 0).sum())
        return (f"CalibrationCurve({self.kind}, {self.n_bins} {self.strategy} bins, ECE={_num(self.ece, 4)}, "
                f"Brier={_num(self.brier, 4)}, n={self.n}, empty bins={empty})")

    __str__ = __repr__

    def to_frame(self):
        """The per-bin table (a copy)."""
        return self.table.copy()


@dataclass(frozen=True, repr=False)
class EnsembleRecommendation:
    """The ensemble decision of seed 001 §14.3.11 with its reasons and checkpoint values.

    ``decision`` is one of "no ensemble", "drop the weaker", "calibrate first",
    "asymmetric fusion", "symmetric fusion"; ``keep`` names the classifier to deploy
    alone (or None); ``fusion`` the fusion rule ("symmetric"/"asymmetric") once the
    classifiers pass the first two checkpoints; ``reasons`` one sentence per checkpoint
    reached; ``checkpoints`` the numbers behind them.
    """

    decision: str
    fusion: str | None
    keep: str | None
    reasons: tuple
    checkpoints: dict
    names: tuple

    def __repr__(self) -> str:
        return f"EnsembleRecommendation({self.decision!r}" + (f", keep {self.keep}" if self.keep else "") + ")"

    def summary(self) -> str:
        head = f"Ensemble recommendation: {self.decision}" + (f" (deploy {self.keep})" if self.keep else "")
        return "\n".join([head] + [f"  - {r}" for r in self.reasons])

    __str__ = summary

    def to_dict(self) -> dict:
        return {"decision": self.decision, "fusion": self.fusion, "keep": self.keep, "reasons": list(self.reasons),
                "checkpoints": {k: float(x) for k, x in self.checkpoints.items()}}


def _cell(x: Any, digits: int = 4) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else _num(x, digits)


@dataclass(frozen=True, repr=False)
class ComparisonReport:
    """Everything :func:`trialwise.compare` computed for two classifiers, and the recommendation.

    ``results`` holds one :class:`ComparisonResult` per method (the method name carries the
    classifier for single-classifier rows, e.g. "Brier score [A]"); ``contingency`` the
    correct/incorrect table; ``agreement`` the agreement matrix (DataFrame);
    ``calibration`` the calibration curves by classifier; ``recommendation`` the
    :class:`EnsembleRecommendation`.
    """

    names: tuple
    n: int
    classes: list
    accuracy: dict
    contingency: Any
    agreement: Any
    results: tuple
    calibration: dict
    recommendation: EnsembleRecommendation
    sections: tuple

    def __repr__(self) -> str:
        return (f"ComparisonReport({self.names[0]} vs {self.names[1]}, n={self.n}, K={len(self.classes)}, "
                f"{len(self.results)} methods, {self.recommendation.decision!r})")

    def __getitem__(self, method: str) -> ComparisonResult:
        for r in self.results:
            if r.method == method:
                return r
        raise KeyError(f"no method {method!r}; available: {', '.join(r.method for r in self.results)}")

    def to_frame(self):
        """One row per method: method, statistic, pvalue, ci_low, ci_high, n, note."""
        import pandas as pd

        return pd.concat([r.to_frame() for r in self.results], ignore_index=True)

    def to_dict(self) -> dict:
        frame = self.to_frame().astype(object)
        rows = [{k: (None if isinstance(x, float) and np.isnan(x) else x) for k, x in row.items()}
                for row in frame.to_dict(orient="records")]
        return {"names": list(self.names), "n": self.n, "classes": [str(c) for c in self.classes],
                "accuracy": self.accuracy, "contingency": np.asarray(self.contingency).tolist(),
                "methods": rows, "recommendation": self.recommendation.to_dict()}

    def summary(self) -> str:
        a, b = self.names
        t = np.asarray(self.contingency)
        lines = [f"Comparison of {a} and {b}: n = {self.n} items, K = {len(self.classes)} classes",
                 f"  accuracy {a} = {_num(self.accuracy[a], 4)}, {b} = {_num(self.accuracy[b], 4)}",
                 f"  both right {t[0, 0]}, only {a} right {t[0, 1]}, only {b} right {t[1, 0]}, both wrong {t[1, 1]}"]
        width = max(len(r.method) for r in self.results)
        for title, members in self.sections:
            lines += ["", title]
            for r in self.results:
                if r.method not in members:
                    continue
                ci = r.confidence_interval
                ci_text = f"[{_cell(ci.low)}, {_cell(ci.high)}]" if not np.isnan(ci.low) else ""
                p_text = f"p = {_p(r.pvalue)}" if not np.isnan(r.pvalue) else ""
                lines.append(f"  {r.method:<{width}}  {_cell(r.statistic):>8}  {ci_text:<20}  {p_text:<11}  {r.note}"
                             .rstrip())
        lines += ["", self.recommendation.summary()]
        return "\n".join(lines)

    __str__ = summary
