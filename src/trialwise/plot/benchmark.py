"""Figures of benchmark results: leaderboards, ranks, pairwise tests, experiments, agreement."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise.plot._common import draw_intervals, figure_axes, label_inches, legend_outside, shared_xlim
from trialwise.ec.observed_agreement import attainable_agreement, chance_agreement_interval

__all__ = [
    "plot_leaderboard",
    "plot_rank_intervals",
    "plot_pairwise_matrix",
    "plot_experiments",
    "plot_rank_correlation",
    "plot_agreement",
]


def _metric_label(lb) -> str:
    return {"error-consistency": "error consistency", "observed-consistency": "observed consistency",
            "accuracy-difference": "squared accuracy difference"}.get(lb.protocol.metric, lb.protocol.metric)


def plot_leaderboard(lb, *, ax: Any = None):
    """Scores with their intervals, best first, the reference row as a shaded band (Klein et al. 2025, Fig. 4).

    Each interval is drawn as a segment and each score as a dot, separately: a
    percentile interval need not contain its estimate, and such scores are drawn hollow.

    Parameters
    ----------
    lb : Leaderboard
        From :func:`trialwise.leaderboard`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_leaderboard(lb)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['resnet50', 'cornet-s', 'clip-16']
    >>> plt.close(fig)
    """
    t = lb.table
    cand = t[t["kind"] == "candidate"].reset_index(drop=True)
    ref = t[t["kind"] == "reference"]
    legend = ["estimate outside its interval", "candidates"] + [f"{o} 0.000" for o in ref["observer"]]
    width = min(16.0, 3.6 + label_inches(cand["observer"]) + label_inches(legend, 8) + 0.3)
    fig, ax = figure_axes(ax, figsize=(width, max(0.25 * len(cand) + 1.6, 2.2)))
    y = np.arange(len(cand))[::-1]
    draw_intervals(ax, cand["score"], cand["ci_low"], cand["ci_high"], y, color="C0", label="candidates")
    if len(ref):
        r = ref.iloc[0]
        if np.isfinite(r.ci_low) and np.isfinite(r.ci_high):
            ax.axvspan(min(r.ci_low, r.ci_high), max(r.ci_low, r.ci_high), color="C1", alpha=0.25, lw=0)
        ax.axvline(r.score, color="C1", lw=1.5, label=f"{r.observer} {r.score:.3f}")
    ax.set_yticks(y, cand["observer"], fontsize=8)
    ax.set_ylim(-0.7, len(cand) - 0.3)
    ax.set_xlabel(f"{_metric_label(lb)}, {lb.confidence_level * 100:g}% CI")
    ax.set_title(lb.protocol.name, fontsize=9)
    legend_outside(ax, fontsize=8)  # never over the data, however few the candidates
    return fig


def plot_rank_intervals(lb, *, ax: Any = None):
    """Each candidate's rank (dot) and its confidence sets for ranks, with P(best) in the label.

    The thick bar is the marginal set (``rank_low``–``rank_high``: holds that model's true
    rank), the thin bar the simultaneous one (``rank_set_low``–``rank_set_high``: holds every
    model's true rank at once); models in the confidence set of the best are marked ★
    (Mogstad, Romano, Shaikh & Wilhelm 2024).

    Parameters
    ----------
    lb : Leaderboard
        From :func:`trialwise.leaderboard`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    References
    ----------
    Mogstad, Romano, Shaikh & Wilhelm (2024). Inference for ranks with applications to
    mobility across neighbourhoods and academic achievement across countries. Review of
    Economic Studies 91(1), 476–518.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_rank_intervals(lb)
    >>> len(fig.axes), len(fig.axes[0].get_yticklabels())
    (1, 3)
    >>> plt.close(fig)
    """
    import pandas as pd
    from matplotlib.ticker import MaxNLocator

    t = lb.table[lb.table["kind"] == "candidate"].reset_index(drop=True)
    best = [bool(b) if not pd.isna(b) else False for b in t["in_best_set"]] if "in_best_set" in t else [False] * len(t)
    labels = [("★ " if b else "") + (f"{o}  (P best {p:.2f})" if p >= 0.005 else str(o))
              for o, p, b in zip(t["observer"], t["p_best"], best)]
    width = min(16.0, 3.6 + label_inches(labels) + 1.9)
    fig, ax = figure_axes(ax, figsize=(width, max(0.25 * len(t) + 1.6, 2.2)))
    y = np.arange(len(t))[::-1]
    rank = t["rank"].astype(float).to_numpy()
    level = f"{lb.confidence_level * 100:g}%"
    if "rank_set_low" in t:
        s_lo, s_hi = t["rank_set_low"].astype(float).to_numpy(), t["rank_set_high"].astype(float).to_numpy()
        ax.hlines(y, s_lo, s_hi, color="C1", lw=1.2, label=f"all models at once ({level})")
    lo, hi = t["rank_low"].astype(float).to_numpy(), t["rank_high"].astype(float).to_numpy()
    ax.hlines(y, lo, hi, color="C0", lw=4, alpha=0.5, label=f"this model ({level})")
    ax.plot(rank, y, "o", color="C0", ms=4)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlabel("rank; 1 = best" + ("; ★ in the confidence set of the best" if any(best) else ""))
    legend_outside(ax, title="rank set holds\nthe true rank of", title_fontsize=7)
    ax.set_xlim(0.5, len(t) + 0.5)
    if len(t) <= 12:
        ax.set_xticks(range(1, len(t) + 1))
    else:
        ticks = MaxNLocator(nbins=6, integer=True, steps=[1, 5, 10]).tick_values(1, len(t))
        ax.set_xticks([1] + [int(x) for x in ticks if 1 < x <= len(t)])
    tau = lb.kendall_tau.statistic
    ax.set_title("mean Kendall τ to the bootstrap rankings " + (f"{tau:.2f}" if np.isfinite(tau) else
                                                                 "undefined (fewer than 2 candidates)"), fontsize=9)
    return fig


def plot_pairwise_matrix(pairwise, *, order=None, ax: Any = None):
    """Adjusted p-values of the pairwise tests as a matrix; significant cells outlined.

    ``pairwise``: the frame of :meth:`trialwise.leaderboards.Leaderboard.pairwise` (``which="all"``).
    The colour scale is log10 p, clipped at 10⁻⁴ (labelled "≤ 0.0001").

    Parameters
    ----------
    pairwise : pandas.DataFrame
        Columns ``observer_a, observer_b, pvalue_adjusted, significant``.
    order : sequence of str, optional
        Row and column order (default: the order of first appearance in ``pairwise``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (the heatmap and its colour bar).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_pairwise_matrix(lb.pairwise(n_resamples=200))
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['resnet50', 'cornet-s', 'clip-16']
    >>> plt.close(fig)
    """
    import matplotlib as mpl

    names = list(order) if order is not None else list(dict.fromkeys(list(pairwise["observer_a"]) + list(pairwise["observer_b"])))
    k = len(names)
    pos = {n: i for i, n in enumerate(names)}
    m = np.full((k, k), np.nan)
    sig = np.zeros((k, k), bool)
    for r in pairwise.itertuples():
        i, j = pos[r.observer_a], pos[r.observer_b]
        m[i, j] = m[j, i] = r.pvalue_adjusted
        sig[i, j] = sig[j, i] = r.significant
    label = label_inches(names, 7)
    fig, ax = figure_axes(ax, figsize=(0.26 * k + label + 1.6, 0.26 * k + label + 0.8))
    with np.errstate(divide="ignore"):
        img = ax.imshow(np.log10(np.clip(m, 1e-4, 1)), cmap="viridis", vmin=-4, vmax=0)
    for i, j in zip(*np.nonzero(sig)):
        ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="w", lw=1))
    ax.set_xticks(range(k), names, rotation=90, fontsize=7)
    ax.set_yticks(range(k), names, fontsize=7)
    bar = fig.colorbar(img, ax=ax, label="adjusted p", shrink=0.8)
    bar.set_ticks([-4, -3, -2, np.log10(0.05), -1, 0], labels=["≤ 0.0001", "0.001", "0.01", "0.05", "0.1", "1"])
    test = pairwise["test"].iloc[0] if len(pairwise) else ""
    adjust = pairwise["adjust"].iloc[0] if len(pairwise) else ""
    ax.set_title(f"pairwise {test} tests ({adjust}); outlined: significant", fontsize=9)
    return fig


def _breakdown_order(table) -> list:
    """Reference row(s) first, then candidates by their mean per-experiment rank (best first)."""
    rank = table.groupby("observer", sort=False)["rank"].apply(lambda r: r.astype(float).mean())
    refs = [o for o, r in rank.items() if np.isnan(r)]
    cands = rank.drop(refs).sort_values(kind="stable")
    return refs + list(cands.index)


def plot_experiments(breakdown, *, observers=None, ncols: int = 4, fig: Any = None):
    """One panel per experiment: scores with CIs (Klein et al. 2025, App. H, Fig. 11).

    ``observers``: which observers, top to bottom (default: the reference row, then the
    candidates by their mean rank over the experiments, best first — pass
    ``list(lb.table["observer"])`` for the leaderboard's order). The same order and the same
    x-range in every panel, so an observer's row can be followed and compared across
    experiments. The reference row is
    drawn in orange. Intervals are segments, estimates dots (hollow when outside their
    interval).

    Parameters
    ----------
    breakdown : ExperimentBreakdown
        From :meth:`trialwise.leaderboards.Leaderboard.by_experiment`.
    observers : sequence of str, optional
        Which observers, top to bottom.
    ncols : int, default 4
        Panels per row.
    fig : matplotlib.figure.Figure, optional
        Figure to draw into (default: a new one).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per experiment.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_experiments(lb.by_experiment())
    >>> [a.get_title() for a in fig.axes]
    ['colour', 'contrast']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    t = breakdown.table
    exps = list(dict.fromkeys(t["experiment"]))
    names = _breakdown_order(t) if observers is None else list(observers)
    unknown = [n for n in names if n not in set(t["observer"])]
    if unknown:
        raise InvalidValueError(f"`observers`: {unknown} are not in the breakdown; observers: {list(dict.fromkeys(t['observer']))}")
    ncols = max(1, min(int(ncols), len(exps)))
    nrows = int(np.ceil(len(exps) / ncols))
    is_ref = t.groupby("observer")["rank"].apply(lambda r: r.isna().all()).reindex(names).to_numpy(bool)
    if fig is None:
        fig = plt.figure(figsize=(2.1 * ncols + label_inches(names, 6.5), (0.15 * len(names) + 0.9) * nrows + 0.3),
                         layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    y = np.arange(len(names))[::-1].astype(float)
    for ax, exp in zip(axes.ravel(), exps):
        sub = t[t["experiment"] == exp].set_index("observer").reindex(names)
        for mask, color in ((~is_ref, "C0"), (is_ref, "C1")):
            if mask.any():
                draw_intervals(ax, sub["score"].to_numpy(float)[mask], sub["ci_low"].to_numpy(float)[mask],
                           sub["ci_high"].to_numpy(float)[mask], y[mask], color=color, ms=3, lw=1.2)
        ax.set_title(exp, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(axis="y", color="0.93", lw=0.6)
    for ax in axes.ravel()[len(exps):]:
        ax.set_visible(False)
    shown = t[t["observer"].isin(names)]
    # one x-scale in every panel, so that a score can be compared across experiments by eye
    shared_xlim(axes.ravel()[:len(exps)], shown["ci_low"], shown["ci_high"], shown["score"])
    axes[0, 0].set_yticks(y, names, fontsize=6.5)
    axes[0, 0].set_ylim(-0.7, len(names) - 0.3)
    return fig


def plot_rank_correlation(breakdown, *, ax: Any = None):
    """Kendall's τ between the candidates' rankings in every two experiments, as a heatmap.

    ``breakdown``: :meth:`trialwise.leaderboards.Leaderboard.by_experiment`. Cells are annotated with
    τ; grey cells are the diagonal and the undefined ones (fewer than two candidates, or
    a constant ranking).

    Parameters
    ----------
    breakdown : ExperimentBreakdown
        From :meth:`trialwise.leaderboards.Leaderboard.by_experiment`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into (the heatmap and its colour bar).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_rank_correlation(lb.by_experiment())
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['colour', 'contrast']
    >>> plt.close(fig)
    """
    import matplotlib

    corr = breakdown.rank_correlation
    names = [str(c) for c in corr.columns]
    k = len(names)
    values = corr.to_numpy(dtype=float).copy()
    np.fill_diagonal(values, np.nan)  # trivially 1: grey, so the off-diagonal colours carry the figure
    label = label_inches(names, 7)
    fig, ax = figure_axes(ax, figsize=(max(0.34 * k + label + 1.6, 3.5), max(0.34 * k + label + 0.6, 2.8)))
    cmap = matplotlib.colormaps["RdBu_r"].with_extremes(bad="0.85")
    img = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-1, vmax=1)
    if k <= 25:
        for i in range(k):
            for j in range(k):
                if i != j and np.isfinite(values[i, j]):
                    ax.text(j, i, f"{values[i, j]:.1f}".replace("-0.0", "0.0"), ha="center", va="center",
                            fontsize=6, color="white" if abs(values[i, j]) > 0.6 else "black")
    ax.set_xticks(range(k), names, rotation=90, fontsize=7)
    ax.set_yticks(range(k), names, fontsize=7)
    fig.colorbar(img, ax=ax, label="Kendall's τ", shrink=0.8)
    ax.set_title("rank agreement between experiments", fontsize=9)
    return fig


def plot_agreement(entries, *, experiment: str | None = None, confidence_level: float = 0.95, ax: Any = None):
    """Observed vs expected agreement of every pair (Geirhos, Meding & Wichmann 2020, Fig. 1–2).

    ``entries``: :meth:`trialwise.leaderboards.Leaderboard.entries` (optionally one ``experiment``).
    The grey region is what κ's bounds allow (Geirhos et al. 2020, eq. 2–6;
    :func:`trialwise.ec.observed_agreement.attainable_agreement`). The band around the
    diagonal is where independent observers fall with ``confidence_level``
    (:func:`trialwise.ec.observed_agreement.chance_agreement_interval`); it depends on
    the number of trials n of a pair, so when the pairs' n differ two bands are drawn:
    the widest (smallest n) and the narrowest (largest n), each labelled with its n.

    Parameters
    ----------
    entries : pandas.DataFrame
        From :meth:`trialwise.leaderboards.Leaderboard.entries` (columns ``experiment, n, c_obs, c_exp``, ...).
    experiment : str, optional
        Draw only this experiment's pairs.
    confidence_level : float, default 0.95
        Level of the chance band.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    References
    ----------
    Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> fig = plot_agreement(lb.entries(), experiment="colour")
    >>> fig.axes[0].get_xlabel()
    'expected agreement c_exp'
    >>> plt.close(fig)
    """

    e = entries if experiment is None else entries[entries["experiment"] == experiment]
    fig, ax = figure_axes(ax, figsize=(7.0, 4.5))
    ce = np.linspace(0.0, 0.999, 400)
    ax.fill_between(ce, *attainable_agreement(ce), color="0.92", label="attainable")
    ns = np.asarray(e["n"], dtype=float)
    ns = ns[ns > 0]
    level = f"{confidence_level * 100:g}%"
    if ns.size == 0:
        bands = []
    elif ns.min() == ns.max():
        bands = [(ns.min(), 0.35, f"chance ({level}), n = {ns.min():.0f}")]
    else:
        bands = [(ns.min(), 0.2, f"chance ({level}), smallest n = {ns.min():.0f}"),
                 (ns.max(), 0.4, f"chance ({level}), largest n = {ns.max():.0f}")]
    for n, alpha, label in bands:
        ax.fill_between(ce, *chance_agreement_interval(ce, n, confidence_level=confidence_level), color="C2",
                        alpha=alpha, lw=0, label=label)
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    is_ref = e["reference"].str.contains("|", regex=False)
    ax.scatter(e.loc[~is_ref, "c_exp"], e.loc[~is_ref, "c_obs"], s=6, alpha=0.4, color="C0", label="candidate–reference")
    ax.scatter(e.loc[is_ref, "c_exp"], e.loc[is_ref, "c_obs"], s=10, alpha=0.7, color="C1", label="reference–reference")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("expected agreement c_exp")
    ax.set_ylabel("observed agreement c_obs")
    ax.set_title(experiment or "all conditions", fontsize=9)
    ax.set_aspect("equal")
    legend_outside(ax)
    return fig

