"""The copy-model decomposition of an observed error consistency: fit_copy_model and its result, CopyModelFit.

From a 2 × 2 table of two observers' correctness: κ = p_copy · mismatch (Klein et al. 2025,
Proposition 2) with the copy probability, the mismatch factor and the latent accuracy of the
copying observer, each with a bootstrap interval; the model itself is :mod:`trialwise.ec.copymodel`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._stats.intervals import interval
from trialwise._stats.kappa import kappa_from_counts, table_statistics
from trialwise._stats.resampling import jackknife_tables
from trialwise.ec.copymodel import REFERENCES, copy_parameters_of_tables, orient

__all__ = ["CopyModelFit", "fit_copy_model"]


def _decomposition(tables: NDArray) -> NDArray:
    """(κ, p_copy, mismatch, latent accuracy) of tables with the reference in rows → (..., 4)."""
    p, m, lat = copy_parameters_of_tables(np.asarray(tables, dtype=float))
    return np.stack([kappa_from_counts(tables), p, m, lat], axis=-1)


@dataclass(frozen=True, repr=False)
class CopyModelFit(Result):
    """Copy-model decomposition of an observed error consistency, with bootstrap CIs.

    ``statistic = p_copy · mismatch`` (the EC, κ): the *other* observer copies the
    *reference* (``reference_observer`` = ``"a"`` or ``"b"``) with probability ``p_copy`` and
    otherwise answers with ``latent_accuracy`` (Klein et al. 2025, Prop. 2).
    ``confidence_interval`` (of κ) and each ``*_interval`` are
    :class:`ConfidenceInterval` from the same bootstrap replicates (``ci_method``);
    ``n_undefined`` replicates had a reference that was always right or always wrong,
    where the decomposition is undefined, and were left out. ``to_frame()`` has one row
    per quantity (``kappa``, ``p_copy``, ``mismatch``, ``latent_accuracy``).
    """

    reference_observer: str
    statistic: float = field(metadata=shown("EC", in_repr=True, repr_name="EC", interval="confidence_interval"))
    p_copy: float = field(metadata=shown("p_copy", in_repr=True, interval="p_copy_interval"))
    mismatch: float = field(metadata=shown("mismatch", in_repr=True, interval="mismatch_interval"))
    latent_accuracy: float = field(metadata=shown(
        "latent accuracy", in_repr=True, interval="latent_accuracy_interval"))
    accuracy_reference: float = field(metadata=shown("accuracy reference, other"))
    accuracy_other: float = field(metadata=shown("accuracy reference, other"))
    confidence_interval: ConfidenceInterval
    p_copy_interval: ConfidenceInterval
    mismatch_interval: ConfidenceInterval
    latent_accuracy_interval: ConfidenceInterval
    confidence_level: float
    ci_method: str = field(metadata=shown("intervals", in_repr=True, format="text", detail="B = {n_resamples}"))
    n_resamples: int
    n_undefined: int = field(metadata=shown("undefined replicates", format="replicates"))

    _ROWS = ("kappa", "p_copy", "mismatch", "latent_accuracy")
    frame_columns = ("quantity", "estimate", "ci_low", "ci_high")
    repr_prefix = "{direction}:"
    summary_title = "Copy-model decomposition ({direction}): EC = p_copy x mismatch"

    def _quantity(self, name: str) -> tuple[float, ConfidenceInterval]:
        if name == "kappa":
            return self.statistic, self.confidence_interval
        return getattr(self, name), getattr(self, f"{name}_interval")

    @property
    def direction(self) -> str:
        return "B copies A" if self.reference_observer == "a" else "A copies B"

    def to_frame(self):
        """:class:`pandas.DataFrame` with rows kappa, p_copy, mismatch, latent_accuracy.

        Its own layout (not one row of fields): one row per quantity of the decomposition.

        Returns
        -------
        pandas.DataFrame
            Columns ``quantity, estimate, ci_low, ci_high``; four rows.

        Examples
        --------
        >>> import trialwise as tw
        >>> fit = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0).copy_model
        >>> fit.to_frame().round(3).values.tolist()[1]
        ['p_copy', 0.533, 0.298, 0.705]
        """
        import pandas as pd

        rows = []
        for name in self._ROWS:
            est, ci = self._quantity(name)
            rows.append({"quantity": name, "estimate": est, "ci_low": ci.low, "ci_high": ci.high})
        return pd.DataFrame(rows, columns=list(self.frame_columns))

    def _dict_extra(self) -> dict[str, Any]:
        """``direction``, and each quantity with its ``<quantity>_ci`` ``[low, high]`` (the rows of :meth:`to_frame`)."""
        out: dict[str, Any] = {"direction": self.direction}
        for name in self._ROWS:
            est, ci = self._quantity(name)
            out[name] = est
            out[f"{name}_ci"] = [ci.low, ci.high]
        return out


def fit_copy_model(
    counts: ArrayLike,
    replicates: ArrayLike,
    *,
    reference: str = "a",
    ci_method: str = "bca",
    confidence_level: float = 0.95,
):
    """Copy-model decomposition of one 2×2 table with bootstrap intervals.

    Used by :attr:`trialwise.ec.ErrorConsistencyResult.copy_model`; ``replicates`` are
    bootstrap tables of ``counts`` (shape (B, 2, 2), A in rows), or for ``jeffreys``
    draws from the table's posterior (:func:`trialwise._stats.resampling.posterior_tables`). Every replicate is
    decomposed, so ``κ* = p_copy* · mismatch*`` holds replicate by replicate.
    """
    reference = v.check_choice(reference, "reference", REFERENCES)
    ci_method = v.check_choice(ci_method, "ci_method", ("jeffreys", "percentile", "basic", "bca", "hdi"))
    level = v.check_confidence_level(confidence_level)
    table = orient(np.asarray(counts, dtype=float), reference)
    reps = orient(np.asarray(replicates, dtype=float), reference)
    est = _decomposition(table)  # (4,)
    dist = _decomposition(reps)  # (B, 4)
    jk = jackknife_tables(table, _decomposition) if ci_method == "bca" else None
    bounds = (np.array([-1.0, -1.0, 0.0, 0.0]), np.array([1.0, 1.0, np.inf, 1.0]))
    lo, hi = interval(ci_method, dist, est, level, jackknife=jk, bounds=bounds)
    lo = np.where(np.isnan(est), np.nan, lo)
    hi = np.where(np.isnan(est), np.nan, hi)
    s = table_statistics(table)
    ci = [ConfidenceInterval(float(a), float(b)) for a, b in zip(lo, hi)]
    return CopyModelFit(
        reference_observer=reference,
        statistic=float(est[0]),
        p_copy=float(est[1]),
        mismatch=float(est[2]),
        latent_accuracy=float(est[3]),
        accuracy_reference=float(s.accuracy_a),
        accuracy_other=float(s.accuracy_b),
        confidence_interval=ci[0],
        p_copy_interval=ci[1],
        mismatch_interval=ci[2],
        latent_accuracy_interval=ci[3],
        confidence_level=level,
        ci_method=ci_method,
        n_resamples=int(dist.shape[0]),
        n_undefined=int(np.isnan(dist[:, 1]).sum()),
    )
