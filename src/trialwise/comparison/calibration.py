"""Calibration of predicted probabilities: calibration curves (reliability diagrams) and the expected calibration error, binary, top-label and classwise.

The curves bin the items by their predicted probability (``uniform`` or ``quantile`` bins) and
compare each bin's mean prediction with its observed frequency; the ECE is their weighted mean
absolute gap (*Machine Learning & Signals Learning*, ch. 14).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise.comparison.probabilities import Probabilities, per_item_scores, probabilities
from trialwise.comparison.result import (
    CalibrationCurve,
    ComparisonResult,
    ScoreResult,
    comparison_notes,
)

__all__ = ["BIN_STRATEGIES", "CALIBRATION_KINDS", "calibration_curve", "expected_calibration_error"]


#: Binning of a calibration curve: equal-width or equal-count bins.
BinStrategy = Literal["uniform", "quantile"]


BIN_STRATEGIES: tuple[BinStrategy, ...] = get_args(BinStrategy)


#: Reductions of a K-class problem to calibration curves (§14.2.3, §14.3.8).
CalibrationKind = Literal["binary", "top-label", "classwise"]


CALIBRATION_KINDS: tuple[CalibrationKind, ...] = get_args(CalibrationKind)


def _edges(values: NDArray, n_bins: int, strategy: str) -> NDArray:
    if strategy == "uniform":
        return np.arange(n_bins + 1) / n_bins          # exact decimals: 0.3 is an edge, not 0.30000000000000004
    edges = np.quantile(values, np.linspace(0, 1, n_bins + 1))
    edges[0], edges[-1] = min(edges[0], 0.0), max(edges[-1], 1.0)
    return edges


def _bin_table(values: NDArray, outcome: NDArray, n_bins: int, strategy: str) -> tuple[pd.DataFrame, float]:
    edges = _edges(values, n_bins, strategy)
    which = np.searchsorted(edges[1:-1], values, side="right")   # [e_b, e_{b+1}), the last bin closed
    count = np.bincount(which, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(which, weights=values, minlength=n_bins) / count
        observed = np.bincount(which, weights=outcome.astype(float), minlength=n_bins) / count
    table = pd.DataFrame({"bin": np.arange(n_bins), "lower": edges[:-1], "upper": edges[1:], "count": count,
                          "mean_predicted": mean_p, "observed": observed, "gap": observed - mean_p})
    ece = float(np.nansum(count / len(values) * np.abs(observed - mean_p)))
    return table, ece


def _curve_inputs(data: Probabilities, kind: str) -> list[tuple[Any, NDArray, NDArray]]:
    if kind == "binary":
        return [(data.classes[1], data.p[:, 1], data.y == 1)]
    if kind == "top-label":
        return [("top-label", data.p.max(axis=1), data.p.argmax(axis=1) == data.y)]
    return [(c, data.p[:, j], data.y == j) for j, c in enumerate(data.classes)]


def calibration_curve(y_true: Any, proba: Any, *, kind: str | None = None, n_bins: int = 10,
                      bin_strategy: BinStrategy = "uniform", classes: Any = None) -> CalibrationCurve:
    """Calibration curve (reliability diagram) and its ECE (§14.2.3, §14.3.8).

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        The positive-class probability per item (binary) or an n × K matrix of class
        probabilities (:mod:`trialwise.comparison.probabilities` says which forms are read).
    kind : {"binary", "top-label", "classwise"}, optional
        ``binary`` (default at K = 2): the positive-class probability against the positive
        rate. ``top-label`` (default at K > 2): the top probability (confidence) against
        the accuracy of the top class. ``classwise``: one binary curve per class; the
        ECE is their mean.
    n_bins : int, default 10
        Number of bins ``B``.
    bin_strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins ``[b/B, (b+1)/B)`` (the last one closed), or bins between
        quantiles of the predicted values (equal counts up to ties).
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).

    Returns
    -------
    CalibrationCurve
        ``table``: one row per bin (and class), **empty bins included** (count 0, NaN
        means), with ``lower``, ``upper``, ``count``, ``mean_predicted``, ``observed``
        and ``gap = observed − mean_predicted`` (< 0: over-confident); ``statistic``, the ECE.

    Notes
    -----
    A value on a bin edge falls in the upper bin, as in the chapter's ``[0, 0.5), [0.5, 1]``.
    scikit-learn's ``calibration_curve`` puts it in the lower bin and drops empty bins.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    DeGroot, M. H. & Fienberg, S. E. (1983). The comparison and evaluation of forecasters.
    *Journal of the Royal Statistical Society D (The Statistician)* 32(1/2), 12–22.

    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining well calibrated
    probabilities using Bayesian binning. *Proceedings of the AAAI Conference on Artificial
    Intelligence* 29, 2901–2907.

    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural
    networks. *Proceedings of the 34th International Conference on Machine Learning*, PMLR
    70, 1321–1330.

    Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H. & Flach, P. (2019).
    Beyond temperature scaling: obtaining well-calibrated multi-class probabilities with
    Dirichlet calibration. *Advances in Neural Information Processing Systems* 32.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> curve = calibration_curve(y, [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], n_bins=2)
    >>> curve.table[["count", "mean_predicted", "observed"]].round(3).values.tolist()
    [[3.0, 0.217, 0.0], [3.0, 0.733, 1.0]]
    >>> round(curve.statistic, 3)
    0.242
    """
    n_bins = v.check_positive_int(n_bins, "n_bins")
    strategy = v.check_choice(bin_strategy, "bin_strategy", BIN_STRATEGIES)
    data = probabilities(y_true, proba, classes=classes)
    if kind is None:
        kind = "binary" if data.k == 2 else "top-label"
    kind = v.check_choice(kind, "kind", CALIBRATION_KINDS)
    if kind == "binary" and data.k != 2:
        raise InvalidValueError(f"kind='binary' needs K = 2 classes; got K = {data.k} (use 'top-label' or 'classwise')")
    tables, eces = [], {}
    for label, values, outcome in _curve_inputs(data, kind):
        table, ece = _bin_table(values, outcome, n_bins, strategy)
        if kind == "classwise":
            table.insert(0, "class", label)
        tables.append(table)
        eces[label] = ece
    table = pd.concat(tables, ignore_index=True)
    ece = float(np.mean(list(eces.values())))
    brier = float(per_item_scores(data, "brier", None).mean())
    return CalibrationCurve(kind=kind, bin_strategy=strategy, n_bins=n_bins, table=table, statistic=ece,
                            per_class=eces if kind == "classwise" else {}, brier=brier, n=len(data.y))


def expected_calibration_error(y_true: Any, proba: Any, *, kind: str | None = None, n_bins: int = 10,
                               bin_strategy: BinStrategy = "uniform", classes: Any = None) -> ComparisonResult:
    """Expected calibration error ``ECE = Σ_b |I_b|/M · |ȳ_b − p̄_b|`` (§14.2.3, §14.3.8).

    The arguments are those of :func:`calibration_curve`; the result's ``curve`` is the
    curve and, for ``kind="classwise"``, ``per_class`` the per-class ECEs.

    Parameters
    ----------
    y_true : array_like
        The true class of each item.
    proba : array_like or pandas.DataFrame
        The positive-class probability per item (binary) or an n × K matrix of class
        probabilities (:mod:`trialwise.comparison.probabilities` says which forms are read).
    kind : {"binary", "top-label", "classwise"}, optional
        What is calibrated (see :func:`calibration_curve`).
    n_bins : int, default 10
        Number of bins ``B``.
    bin_strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-count bins.
    classes : sequence, optional
        The classes: ``(negative, positive)`` for a binary score, else the class of each
        column (default: the DataFrame's columns or the sorted classes of ``y_true``).

    Returns
    -------
    ScoreResult
        ``statistic`` ECE, its ``curve`` and, for ``kind="classwise"``, ``per_class``; no
        p-value or interval.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    DeGroot, M. H. & Fienberg, S. E. (1983). The comparison and evaluation of forecasters.
    *Journal of the Royal Statistical Society D (The Statistician)* 32(1/2), 12–22.

    Naeini, M. P., Cooper, G. F. & Hauskrecht, M. (2015). Obtaining well calibrated
    probabilities using Bayesian binning. *Proceedings of the AAAI Conference on Artificial
    Intelligence* 29, 2901–2907.

    Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On calibration of modern neural
    networks. *Proceedings of the 34th International Conference on Machine Learning*, PMLR
    70, 1321–1330.

    Kull, M., Perello-Nieto, M., Kängsepp, M., Silva Filho, T., Song, H. & Flach, P. (2019).
    Beyond temperature scaling: obtaining well-calibrated multi-class probabilities with
    Dirichlet calibration. *Advances in Neural Information Processing Systems* 32.

    Examples
    --------
    >>> y = [1, 0, 1, 0, 1, 0]
    >>> round(expected_calibration_error(y, [0.9, 0.2, 0.7, 0.3, 0.6, 0.15], n_bins=2).statistic, 3)
    0.242
    """
    curve = calibration_curve(y_true, proba, kind=kind, n_bins=n_bins, bin_strategy=bin_strategy, classes=classes)
    empty = int((curve.table["count"] == 0).sum())
    return ScoreResult(f"ECE ({curve.kind})", curve.statistic, n=curve.n, key=f"ece-{curve.kind}",
                       notes=comparison_notes(f"{n_bins} {curve.bin_strategy} bins" + (f", {empty} empty" if empty else "")),
                       curve=curve, per_class=curve.per_class)
