"""Clustered questions: the design effect of a cluster design and the intra-class correlation of a pilot (design_effect, estimate_icc).

Questions that share a source (a passage, a subject) are not independent: with clusters of size m
and intra-class correlation ρ the variance of a mean grows by the design effect 1 + (m − 1)ρ
(Kish 1965); :func:`estimate_icc` estimates ρ from a pilot by one-way ANOVA.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.tables import cluster_sums
from trialwise.planning.results import (
    ClusterDesign,
)
from trialwise.planning.trials import (
    check_design,
)


def check_cluster_design(cluster_size: Any, icc: Any, cluster_size_cv: Any) -> float:
    return check_design(cluster_size, icc, cluster_size_cv)


def design_effect(cluster_size: float, icc: float, *, cluster_size_cv: float = 0.0) -> float:
    """Variance inflation of a mean over clustered questions.

    Parameters
    ----------
    cluster_size : float
        Mean number of questions per cluster m̄ (≥ 1).
    icc : float
        Intra-cluster correlation of the per-question values in [0, 1].
    cluster_size_cv : float, default 0
        Coefficient of variation of the cluster sizes (SD / mean); 0 for equal sizes.

    Returns
    -------
    float
        ``1 + ((1 + cv²)·m̄ − 1)·ICC``; n clustered questions carry the information of
        ``n / design_effect`` independent ones.

    Notes
    -----
    With equal sizes this is Kish's ``1 + (m − 1)·ICC``; the ``cv²`` term is the
    approximation of Eldridge, Ashby & Kerry (2006) for unequal cluster sizes.

    References
    ----------
    L. Kish (1965), *Survey Sampling*, Wiley. S. M. Eldridge, D. Ashby & S. Kerry (2006),
    "Sample size for cluster randomized trials: effect of coefficient of variation of
    cluster size and analysis method", Int. J. Epidemiol. 35(5), 1292–1300.

    Examples
    --------
    >>> import trialwise as tw
    >>> round(tw.planning.design_effect(25, 0.1), 3), round(tw.planning.design_effect(25, 0.1, cluster_size_cv=0.5), 3)
    (3.4, 4.025)
    """
    return check_cluster_design(cluster_size, icc, cluster_size_cv)


def _anova_icc(values: NDArray, codes: NDArray) -> tuple[float, float, float, NDArray]:
    """Between/within sums of squares, their degrees of freedom and the cluster sizes."""
    sizes, sums = cluster_sums(np.column_stack([np.ones(values.size), values]), codes).T
    means = sums / np.where(sizes > 0, sizes, 1)
    grand = values.mean()
    ssb = float(np.sum(sizes * (means - grand) ** 2))
    ssw = float(np.sum((values - means[codes]) ** 2))
    return ssb, ssw, float(values.size), sizes[sizes > 0]


def estimate_icc(values: Any, clusters: Any = "cluster") -> ClusterDesign:
    """One-way ANOVA estimate of the intra-cluster correlation, from pilot data.

    Parameters
    ----------
    values : array_like of shape (n,), or a trial table
        Per-question values (correctness, a paired difference ``c_A − c_B``, the
        influence values of :func:`agreement_influence`), or a trial table
        (``tw.io.read_lm_eval(..., clusters=...)``, ``tw.datasets.llm_demo()``) whose
        ``correct`` column is used, with the model (``subject``) as a fixed effect: the
        sums of squares of every model are pooled.
    clusters : array_like of shape (n,), or str, default "cluster"
        The cluster of every question; for a trial table, the name of its cluster column.

    Returns
    -------
    ClusterDesign
        ``statistic`` (= ``icc``), ``n``, ``n_clusters``, ``cluster_size`` (mean),
        ``cluster_size_cv`` and ``design_effect``.

    Raises
    ------
    ValueError
        A missing cluster label (named by its position or row), fewer than 2 clusters.

    Warns
    -----
    DegenerateDataWarning
        When every value is the same: the ICC (and the design effect) is NaN.

    Notes
    -----
    With k clusters of sizes m_i (N questions), ``MSB = SSB/(k − 1)``, ``MSW = SSW/(N − k)``,
    ``m₀ = (N − Σ m_i²/N)/(k − 1)`` and ``ICC = (MSB − MSW)/(MSB + (m₀ − 1)·MSW)``
    (Donner 1986). Pooled over models: the sums of squares and degrees of freedom are
    added over models. The estimate may be negative (plan with 0 then).

    References
    ----------
    A. Donner (1986), "A review of inference procedures for the intraclass correlation
    coefficient in the one-way random effects model", Int. Stat. Rev. 54(1), 67–82.

    Examples
    --------
    >>> import trialwise as tw
    >>> d = tw.planning.estimate_icc(tw.datasets.llm_demo())
    >>> d.n_clusters, round(d.cluster_size, 1), round(d.icc, 3), round(d.design_effect, 2)
    (16, 25.0, 0.081, 2.95)
    """
    design = cluster_design(values, clusters)
    if math.isnan(design.icc):  # every value the same: no variance to share out between and within clusters
        warn("estimate_icc: every value is the same, so the ICC (a share of their variance) is undefined (NaN)",
             DegenerateDataWarning)
    return design


def cluster_design(values: Any, clusters: Any = "cluster") -> ClusterDesign:
    """:func:`estimate_icc` without its warning (NaN ICC: every value the same), for the pilot designs."""
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        if not isinstance(clusters, str) or clusters not in values.columns:
            raise InvalidValueError(f"`clusters` must name a column of the trial table (e.g. 'cluster', from "
                                    f"read_lm_eval(..., clusters='subject')); got {v.show(clusters)}")
        if "correct" not in values.columns:
            raise InvalidValueError("`values`: the trial table has no `correct` column")
        if values[clusters].isna().any():
            row = int(np.flatnonzero(values[clusters].isna().to_numpy())[0])
            raise InvalidValueError(f"`clusters`: column {clusters!r} has a missing label at row {row}")
        labels = values["experiment"].astype(str) + "\x00" + values[clusters].astype(str) \
            if "experiment" in values.columns else values[clusters].astype(str)
        models = values["subject"] if "subject" in values.columns else pd.Series(0, index=values.index)
        ssb = ssw = df_b = df_w = 0.0
        sizes_all = None
        for _, idx in models.groupby(models, sort=False).groups.items():
            y = v.as_float_array(values.loc[idx, "correct"].to_numpy(), "values")
            codes = pd.factorize(labels.loc[idx])[0]
            b, w, n_m, sizes = _anova_icc(y, codes)
            ssb, ssw, df_b, df_w = ssb + b, ssw + w, df_b + sizes.size - 1, df_w + n_m - sizes.size
            sizes_all = sizes if sizes_all is None else sizes_all
        if sizes_all is None:
            raise InvalidValueError("`values`: the trial table is empty")
    else:
        y = v.as_float_array(values, "values")
        if y.ndim != 1 or y.size < 2 or np.isnan(y).any():
            raise InvalidValueError(f"`values` must be a 1-D array of at least 2 numbers without NaN; got {v.show(values)}")
        if isinstance(clusters, str) or np.ndim(clusters) != 1 or len(clusters) != y.size:
            raise InvalidValueError(f"`clusters` must hold one label per value ({y.size}); got {v.show(clusters)}")
        codes = pd.factorize(pd.Series(np.asarray(clusters, dtype=object)))[0]
        if (codes < 0).any():  # None, NaN, pd.NA: no cluster (factorize leaves them out)
            raise InvalidValueError(f"`clusters` has a missing label at position {int(np.flatnonzero(codes < 0)[0])}")
        ssb, ssw, n_all, sizes_all = _anova_icc(y, codes)
        df_b, df_w = sizes_all.size - 1, n_all - sizes_all.size
    k, n = sizes_all.size, float(sizes_all.sum())
    if k < 2 or n - k < 1:
        raise InvalidValueError(f"`clusters`: need at least 2 clusters and more questions than clusters; got {k} "
                                f"clusters for {int(n)} questions")
    msb, msw = ssb / df_b, ssw / df_w
    m0 = (n - np.sum(sizes_all ** 2) / n) / (k - 1)
    denom = msb + (m0 - 1) * msw
    icc = float((msb - msw) / denom) if denom > 0 else float("nan")
    return ClusterDesign(statistic=icc, n=int(n), n_clusters=int(k),
                         cluster_size=float(n / k), cluster_size_cv=float(sizes_all.std() / sizes_all.mean()))
