"""Figures from finished results. matplotlib is imported only when a figure is drawn.

Every function returns the :class:`matplotlib.figure.Figure` and accepts ``ax=`` to draw
into an existing axes (then the figure is ``ax.figure``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._results import CIWidthResult, CopyModelValidation
from trialwise.kappa import kappa_bounds

__all__ = [
    "plot_kappa_bounds",
    "plot_ci_width",
    "plot_copy_model_validation",
    "plot_kappa_bias",
    "plot_coverage",
    "plot_leaderboard",
    "plot_rank_intervals",
    "plot_pairwise_matrix",
    "plot_experiments",
    "plot_rank_correlation",
    "plot_shape_bias",
    "plot_agreement",
    "plot_reliability",
    "plot_agreement_matrix",
]


def _axes(ax, figsize=(5.0, 4.0)):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib, a dependency of trialwise: pip install matplotlib") from exc
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax.figure, ax


def plot_kappa_bounds(bound: str = "upper", *, resolution: int = 201, ax: Any = None):
    """Map of the largest (or smallest) attainable EC over the two accuracies.

    seed 000 Fig. 2a (upper bound) and App. D Fig. 6 (lower bound): κ_max = 1 only on
    the diagonal a_A = a_B; κ_min = −1 only at a_A = a_B = ½.

    Parameters
    ----------
    bound : {"upper", "lower"}
    resolution : int
        Grid points per axis.
    """
    if bound not in ("upper", "lower"):
        raise ValueError(f"`bound` must be 'upper' or 'lower'; got {bound!r}")
    fig, ax = _axes(ax)
    acc = np.linspace(0, 1, int(resolution))
    lo, hi = kappa_bounds(acc[:, None], acc[None, :])
    values = hi if bound == "upper" else lo
    cmap = "viridis" if bound == "upper" else "magma"
    vmin, vmax = (0, 1) if bound == "upper" else (-1, 0)
    im = ax.pcolormesh(acc, acc, values, cmap=cmap, vmin=vmin, vmax=vmax, shading="auto")
    levels = [0.2, 0.4, 0.6, 0.8] if bound == "upper" else [-0.8, -0.6, -0.4, -0.2]
    cs = ax.contour(acc, acc, values, levels=levels, colors="white", linewidths=0.8)
    ax.clabel(cs, fmt="%.1f", fontsize=7)
    fig.colorbar(im, ax=ax, label=f"{'largest' if bound == 'upper' else 'smallest'} attainable EC")
    ax.set_xlabel("accuracy of B")
    ax.set_ylabel("accuracy of A")
    ax.set_aspect("equal")
    ax.set_title(f"EC {bound} bound")
    return fig


def _series(result: CIWidthResult, along: str):
    """Split a grid result into 1-D series along ``along`` (one per other design)."""
    frame = result.to_frame()
    keys = [c for c in ("n", "accuracy_a", "accuracy_b", "kappa") if c != along]
    for key, part in frame.groupby(keys, sort=True):
        yield dict(zip(keys, key)), part.sort_values(along)


def plot_ci_width(result: CIWidthResult, *, literature=(147, 160, 600, 1280, 3222), ax: Any = None):
    """Expected interval of κ̂ against the number of trials (seed 000, Fig. 3).

    One band (the ``confidence_level`` interval of κ̂ over simulated experiments) and
    the median per design, on a log axis, with the true κ and the trial counts used in
    the literature marked.

    Parameters
    ----------
    result : CIWidthResult
        From :func:`trialwise.ci_width` with several values of n (e.g.
        ``n=np.logspace(1, 5, 30).round()[:, None]`` against a vector of accuracies).
    literature : sequence of int
        Trial counts to mark (``()`` for none).
    """
    if not isinstance(result, CIWidthResult):
        raise TypeError(f"`result` must be a CIWidthResult from trialwise.ci_width; got {type(result).__name__}")
    fig, ax = _axes(ax, (6.0, 4.0))
    series = list(_series(result, "n"))
    colors = _colors(len(series))
    for color, (design, part) in zip(colors, series):
        label = f"acc. {design['accuracy_a']:.2f} / {design['accuracy_b']:.2f}, EC {design['kappa']:.2f}"
        ax.fill_between(part.n, part.low, part.high, color=color, alpha=0.25, lw=0)
        ax.plot(part.n, part["median"], color=color, lw=1.2, label=label)
    for k in np.unique(result.kappa):
        ax.axhline(k, color="black", lw=0.8, ls="--")
    for i, n in enumerate(literature):
        ax.axvline(n, color="grey", lw=0.8, ls=":")
        ax.annotate(str(n), (n, 1.0), xycoords=("data", "axes fraction"), rotation=90, fontsize=7,
                    va="top", ha="right", color="grey")
    ax.set_xscale("log")
    ax.set_xlabel("number of trials")
    ax.set_ylabel(f"EC estimate ({100 * result.confidence_level:g}% of experiments)")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def plot_copy_model_validation(validation: CopyModelValidation, *, ax: Any = None):
    """Copy-model intervals next to bootstrap intervals of data with known EC (seed 000, App. G)."""
    if not isinstance(validation, CopyModelValidation):
        raise TypeError(
            f"`validation` must be a CopyModelValidation from trialwise.validate_copy_model; got {type(validation).__name__}"
        )
    fig, ax = _axes(ax, (7.0, 4.0))
    frame = validation.to_frame()
    x = np.arange(len(frame))
    ax.vlines(x - 0.15, frame.bootstrap_low, frame.bootstrap_high, color="C0", lw=3, label="bootstrap of the data")
    ax.vlines(x + 0.15, frame.model_low, frame.model_high, color="C1", lw=3, label="copy model")
    ax.plot(x, frame.kappa, "k_", ms=14, label="true EC")
    ax.set_xticks(x, [f"n={n}\n{a:.2f}/{b:.2f}" for n, a, b in zip(frame.n, frame.accuracy_a, frame.accuracy_b)],
                  fontsize=7)
    ax.set_ylabel(f"EC, {100 * validation.confidence_level:g}% interval")
    ax.legend(fontsize=8)
    return fig


def plot_kappa_bias(result: CIWidthResult, *, ax: Any = None):
    """Deviation of κ̂ from the true κ against the true κ (seed 000, App. E, Fig. 7).

    ``result`` comes from :func:`trialwise.ci_width` over a range of κ; one band
    (interval of κ̂ − κ) and one mean-bias line per remaining design (n, accuracies).
    """
    if not isinstance(result, CIWidthResult):
        raise TypeError(f"`result` must be a CIWidthResult from trialwise.ci_width; got {type(result).__name__}")
    fig, ax = _axes(ax, (6.0, 4.0))
    series = list(_series(result, "kappa"))
    for color, (design, part) in zip(_colors(len(series)), series):
        label = f"n {design['n']:.0f}, acc. {design['accuracy_a']:.2f} / {design['accuracy_b']:.2f}"
        ax.fill_between(part.kappa, part.low - part.kappa, part.high - part.kappa, color=color, alpha=0.25, lw=0)
        ax.plot(part.kappa, part.bias, color=color, lw=1.2, label=label)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("true EC")
    ax.set_ylabel("estimated − true EC")
    ax.legend(fontsize=7)
    return fig


def _colors(k: int):
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.05, 0.9, max(k, 1))]


def plot_coverage(study, method: str, *, confidence_level: float = 0.95, kappa: float | None = None,
                  ax: Any = None):
    """Heatmap of an interval method's coverage: accuracy pairs × n, one panel per κ.

    ``study`` is a :class:`trialwise.CoverageStudy`. Cells are coloured by coverage on a
    diverging scale centred at the nominal level and annotated in percent; grey cells
    are unattainable or left out; a cell whose point has ≥ 1 % undefined estimates or
    replicates is marked ``*`` (the coverage requirement does not apply there). With
    ``kappa`` (or ``ax``) a single panel is drawn.
    """
    t = study.table
    t = t[(t.method == method) & np.isclose(t.confidence_level, confidence_level)]
    if t.empty:
        raise ValueError(f"the study has no rows for method {method!r} at level {confidence_level}")
    judged = study.eligible()
    judged = set(map(tuple, judged[["n", "accuracy_a", "accuracy_b", "kappa"]].drop_duplicates().to_numpy()))
    kappas = sorted(t.kappa.unique()) if kappa is None and ax is None else [
        t.kappa.iloc[0] if kappa is None else float(kappa)]
    if ax is None:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(kappas), figsize=(3.2 * len(kappas) + 0.8, 5.2), layout="constrained",
                                 squeeze=False, sharey=True)
        axes = axes[0]
    else:
        fig, ax = _axes(ax)
        axes = [ax]
    ns = sorted(t.n.unique())
    pairs = sorted({(a, b) for a, b in zip(t.accuracy_a, t.accuracy_b)})
    half = 0.05
    im = None
    for axk, k in zip(axes, kappas):
        grid = np.full((len(pairs), len(ns)), np.nan)
        sub = t[np.isclose(t.kappa, k)]
        for row in sub.itertuples(index=False):
            grid[pairs.index((row.accuracy_a, row.accuracy_b)), ns.index(row.n)] = row.coverage
        import matplotlib

        cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.88")
        im = axk.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=confidence_level - half, vmax=confidence_level + half,
                        aspect="auto")
        for i, (a, b) in enumerate(pairs):
            for j, n in enumerate(ns):
                if np.isnan(grid[i, j]):
                    continue
                mark = "" if (n, a, b, k) in judged else "*"
                dark = abs(grid[i, j] - confidence_level) > 0.6 * half
                axk.text(j, i, f"{100 * grid[i, j]:.1f}{mark}", ha="center", va="center", fontsize=6.5,
                         color="white" if dark else "black")
        axk.set_xticks(range(len(ns)), [str(n) for n in ns])
        axk.set_yticks(range(len(pairs)), [f"{a:g} / {b:g}" for a, b in pairs])
        axk.set_xlabel("trials n")
        axk.set_title(f"κ = {k:g}")
    axes[0].set_ylabel("accuracies A / B")
    fig.colorbar(im, ax=list(axes), label=f"coverage at nominal {100 * confidence_level:g}%", shrink=0.8)
    fig.suptitle(f"{method}: coverage at nominal {100 * confidence_level:g}%") if len(axes) > 1 else None
    return fig


# --------------------------------------------------------------------------- benchmarks


def _metric_label(lb) -> str:
    return {"error-consistency": "error consistency", "observed-consistency": "observed consistency",
            "accuracy-difference": "squared accuracy difference"}.get(lb.protocol.metric, lb.protocol.metric)


def _label_inches(labels, fontsize: float = 8.0) -> float:
    """Width in inches of the longest label at ``fontsize`` (about 0.6 em per character)."""
    longest = max((len(str(s)) for s in labels), default=0)
    return 0.6 * fontsize / 72 * longest + 0.25


def _intervals(ax, estimate, low, high, y, *, color, ms: float = 4, lw: float = 1.6, label=None):
    """Estimates (dots) and intervals (segments) drawn separately.

    Never assumes ``low <= estimate <= high``: a bootstrap percentile interval need not
    contain its estimate (a skewed replicate distribution). Estimates outside their
    interval are drawn hollow and get their own legend entry. NaN draws nothing.
    Returns the number of estimates outside their interval.
    """
    est = np.asarray(estimate, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    y = np.asarray(y, dtype=float)
    ax.hlines(y, lo, hi, color=color, lw=lw, alpha=0.8)
    ax.plot(est, y, "o", color=color, ms=ms, label=label, zorder=3)
    with np.errstate(invalid="ignore"):
        outside = (est < lo) | (est > hi)
    if outside.any():
        ax.plot(est[outside], y[outside], "o", mfc="white", mec=color, mew=1.2, ms=ms + 1, zorder=4,
                label="estimate outside its interval")
    return int(outside.sum())


def plot_leaderboard(lb, *, ax: Any = None):
    """Scores with their intervals, best first, the reference row as a shaded band (seed 000 Fig. 4).

    Each interval is drawn as a segment and each score as a dot, separately: a
    percentile interval need not contain its estimate, and such scores are drawn hollow.
    """
    t = lb.table
    cand = t[t["kind"] == "candidate"].reset_index(drop=True)
    width = min(14.0, 3.6 + _label_inches(cand["observer"]))
    fig, ax = _axes(ax, figsize=(width, 0.25 * len(cand) + 1.6))
    y = np.arange(len(cand))[::-1]
    _intervals(ax, cand["score"], cand["ci_low"], cand["ci_high"], y, color="C0", label="candidates")
    ref = t[t["kind"] == "reference"]
    if len(ref):
        r = ref.iloc[0]
        if np.isfinite(r.ci_low) and np.isfinite(r.ci_high):
            ax.axvspan(min(r.ci_low, r.ci_high), max(r.ci_low, r.ci_high), color="C1", alpha=0.25, lw=0)
        ax.axvline(r.score, color="C1", lw=1.5, label=f"{r.observer} {r.score:.3f}")
    ax.set_yticks(y, cand["observer"], fontsize=8)
    ax.set_ylim(-0.7, len(cand) - 0.3)
    ax.set_xlabel(f"{_metric_label(lb)}, {lb.confidence_level * 100:g}% CI")
    ax.set_title(lb.protocol.name, fontsize=9)
    ax.legend(fontsize=8, loc="best")
    return fig


def plot_rank_intervals(lb, *, ax: Any = None):
    """Each candidate's rank (dot) and rank interval (bar), with P(best) in the label."""
    from matplotlib.ticker import MaxNLocator

    t = lb.table[lb.table["kind"] == "candidate"].reset_index(drop=True)
    labels = [f"{o}  (P best {p:.2f})" if p >= 0.005 else str(o) for o, p in zip(t["observer"], t["p_best"])]
    width = min(14.0, 3.6 + _label_inches(labels))
    fig, ax = _axes(ax, figsize=(width, 0.25 * len(t) + 1.6))
    y = np.arange(len(t))[::-1]
    rank = t["rank"].astype(float).to_numpy()
    lo, hi = t["rank_low"].astype(float).to_numpy(), t["rank_high"].astype(float).to_numpy()
    ax.hlines(y, lo, hi, color="C0", lw=4, alpha=0.5)
    ax.plot(rank, y, "o", color="C0", ms=4)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_ylim(-0.7, len(t) - 0.3)
    ax.set_xlabel(f"rank ({lb.confidence_level * 100:g}% interval); 1 = best")
    ax.set_xlim(0.5, len(t) + 0.5)
    if len(t) <= 12:
        ax.set_xticks(range(1, len(t) + 1))
    else:
        ticks = MaxNLocator(nbins=6, integer=True, steps=[1, 5, 10]).tick_values(1, len(t))
        ax.set_xticks([1] + [int(x) for x in ticks if 1 < x <= len(t)])
    tau = lb.kendall_tau.mean
    ax.set_title("mean Kendall τ to the bootstrap rankings " + (f"{tau:.2f}" if np.isfinite(tau) else
                                                                 "undefined (fewer than 2 candidates)"), fontsize=9)
    return fig


def plot_pairwise_matrix(pairwise, *, order=None, ax: Any = None):
    """Adjusted p-values of the pairwise tests as a matrix; significant cells outlined.

    ``pairwise``: the frame of :meth:`trialwise.Leaderboard.pairwise` (``which="all"``).
    The colour scale is log10 p, clipped at 10⁻⁴ (labelled "≤ 0.0001").
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
    label = _label_inches(names, 7)
    fig, ax = _axes(ax, figsize=(0.26 * k + label + 1.6, 0.26 * k + label + 0.8))
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
    """One panel per experiment: scores with CIs (seed 000 App. H, Fig. 11).

    ``observers``: which observers, top to bottom (default: the reference row, then the
    candidates by their mean rank over the experiments, best first — pass
    ``list(lb.table["observer"])`` for the leaderboard's order). The same order in every
    panel, so an observer's row can be followed across experiments. The reference row is
    drawn in orange. Intervals are segments, estimates dots (hollow when outside their
    interval).
    """
    import matplotlib.pyplot as plt

    t = breakdown.table
    exps = list(dict.fromkeys(t["experiment"]))
    names = _breakdown_order(t) if observers is None else list(observers)
    unknown = [n for n in names if n not in set(t["observer"])]
    if unknown:
        raise ValueError(f"`observers`: {unknown} are not in the breakdown; observers: {list(dict.fromkeys(t['observer']))}")
    ncols = max(1, min(int(ncols), len(exps)))
    nrows = int(np.ceil(len(exps) / ncols))
    is_ref = t.groupby("observer")["rank"].apply(lambda r: r.isna().all()).reindex(names).to_numpy(bool)
    if fig is None:
        fig = plt.figure(figsize=(2.1 * ncols + _label_inches(names, 6.5), (0.15 * len(names) + 0.9) * nrows + 0.3),
                         layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    y = np.arange(len(names))[::-1].astype(float)
    for ax, exp in zip(axes.ravel(), exps):
        sub = t[t["experiment"] == exp].set_index("observer").reindex(names)
        for mask, color in ((~is_ref, "C0"), (is_ref, "C1")):
            if mask.any():
                _intervals(ax, sub["score"].to_numpy(float)[mask], sub["ci_low"].to_numpy(float)[mask],
                           sub["ci_high"].to_numpy(float)[mask], y[mask], color=color, ms=3, lw=1.2)
        ax.set_title(exp, fontsize=9)
        ax.tick_params(labelsize=7)
        ax.grid(axis="y", color="0.93", lw=0.6)
    for ax in axes.ravel()[len(exps):]:
        ax.set_visible(False)
    axes[0, 0].set_yticks(y, names, fontsize=6.5)
    axes[0, 0].set_ylim(-0.7, len(names) - 0.3)
    return fig


def plot_rank_correlation(breakdown, *, ax: Any = None):
    """Kendall's τ between the candidates' rankings in every two experiments, as a heatmap.

    ``breakdown``: :meth:`trialwise.Leaderboard.by_experiment`. Cells are annotated with
    τ; grey cells are the diagonal and the undefined ones (fewer than two candidates, or
    a constant ranking).
    """
    import matplotlib

    corr = breakdown.rank_correlation
    names = [str(c) for c in corr.columns]
    k = len(names)
    values = corr.to_numpy(dtype=float).copy()
    np.fill_diagonal(values, np.nan)  # trivially 1: grey, so the off-diagonal colours carry the figure
    label = _label_inches(names, 7)
    fig, ax = _axes(ax, figsize=(max(0.34 * k + label + 1.6, 3.5), max(0.34 * k + label + 0.6, 2.8)))
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
    """Observed vs expected agreement of every pair (seed 002 Fig. 1–2).

    ``entries``: :meth:`trialwise.Leaderboard.entries` (optionally one ``experiment``).
    The grey region is what κ's bounds allow (seed 002 eq. 2–6). The band around the
    diagonal is where independent observers fall with ``confidence_level``; it depends on
    the number of trials n of a pair, so when the pairs' n differ two bands are drawn:
    the widest (smallest n) and the narrowest (largest n), each labelled with its n.
    """
    from scipy import stats

    from trialwise.kappa import kappa_bounds_from_expected

    e = entries if experiment is None else entries[entries["experiment"] == experiment]
    fig, ax = _axes(ax, figsize=(4.8, 4.5))
    ce = np.linspace(0.0, 0.999, 400)
    lo, hi = kappa_bounds_from_expected(ce)
    ax.fill_between(ce, ce + lo * (1 - ce), ce + hi * (1 - ce), color="0.92", label="attainable")
    z = stats.norm.ppf(0.5 + confidence_level / 2)
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
        half = z * np.sqrt(ce * (1 - ce) / n)
        ax.fill_between(ce, ce - half, ce + half, color="C2", alpha=alpha, lw=0, label=label)
    ax.plot([0, 1], [0, 1], color="k", lw=0.8)
    is_ref = e["reference"].str.contains("|", regex=False)
    ax.scatter(e.loc[~is_ref, "c_exp"], e.loc[~is_ref, "c_obs"], s=6, alpha=0.4, color="C0", label="candidate–reference")
    ax.scatter(e.loc[is_ref, "c_exp"], e.loc[is_ref, "c_obs"], s=10, alpha=0.7, color="C1", label="reference–reference")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("expected agreement c_exp")
    ax.set_ylabel("observed agreement c_obs")
    ax.set_title(experiment or "all conditions", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    return fig


def plot_reliability(*curves, labels=None, ax: Any = None):
    """Reliability diagram of one or more calibration curves (seed 001 Fig. 14.3).

    ``curves``: :class:`~trialwise.CalibrationCurve` objects (from
    :func:`trialwise.comparison.calibration_curve` or ``report.calibration``), or one
    dict of them keyed by name. Each curve is drawn through its non-empty bins (observed
    vs mean predicted, marker area ∝ count); the dashed diagonal is perfect calibration,
    points below it are over-confident. The legend reports each curve's Brier score and
    ECE. Class-wise curves draw one line per class.
    """
    if len(curves) == 1 and isinstance(curves[0], dict):
        labels = list(curves[0]) if labels is None else labels
        curves = tuple(curves[0].values())
    if not curves:
        raise ValueError("plot_reliability needs at least one calibration curve")
    labels = list(labels) if labels is not None else [f"classifier {i + 1}" for i in range(len(curves))]
    if len(labels) != len(curves):
        raise ValueError(f"`labels` names {len(labels)} curves but {len(curves)} were given")
    fig, ax = _axes(ax, figsize=(4.6, 4.4))
    ax.plot([0, 1], [0, 1], ls="--", color="0.5", lw=1, label="perfect calibration")
    colors = _colors(sum(len(c.per_class) or 1 for c in curves))
    i = 0
    for curve, label in zip(curves, labels):
        groups = curve.table.groupby("class", sort=False) if "class" in curve.table else [(None, curve.table)]
        for cls, table in groups:
            full = table[table["count"] > 0]
            name = f"{label} (BS={curve.brier:.3f}, ECE={curve.ece:.3f})" if cls is None else \
                f"{label}, class {cls} (ECE={curve.per_class[cls]:.3f})"
            ax.plot(full["mean_predicted"], full["observed"], "-", color=colors[i], lw=1.2)
            ax.scatter(full["mean_predicted"], full["observed"], s=12 + 80 * full["count"] / full["count"].max(),
                       color=colors[i], label=name, zorder=3)
            i += 1
    kind = curves[0].kind
    ax.set_xlabel("mean predicted probability" if kind != "top-label" else "mean confidence (top probability)")
    ax.set_ylabel("observed frequency" if kind != "top-label" else "accuracy")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"reliability diagram ({kind}, {curves[0].n_bins} {curves[0].strategy} bins)", fontsize=9)
    return fig


def plot_agreement_matrix(bowker, *, names=("A", "B"), ax: Any = None):
    """The K × K agreement matrix as a heatmap, with Bowker's per-pair contributions.

    ``bowker``: the result of :func:`trialwise.comparison.bowker_test`. Each cell shows
    its count; each off-diagonal cell of the *larger* side of a class pair also shows
    that pair's χ² contribution, and is outlined in red when the pair carries the largest
    share of the statistic — the place to look for an asymmetric confusion.
    """
    import matplotlib as mpl

    mat = np.asarray(bowker.details["matrix"])
    classes = [str(c) for c in bowker.details["classes"]]
    contrib = bowker.details["contributions"]
    k = len(classes)
    fig, ax = _axes(ax, figsize=(0.5 * k + 2.8, 0.5 * k + 2.2))
    img = ax.imshow(mat, cmap="Blues")
    pos = {c: i for i, c in enumerate(classes)}
    top = contrib["contribution"].idxmax() if contrib["contribution"].max() > 0 else None
    big = mat.max() if mat.size else 1
    for i in range(k):
        for j in range(k):
            ax.text(j, i, str(mat[i, j]), ha="center", va="center", fontsize=7 if k > 8 else 9,
                    color="w" if mat[i, j] > 0.6 * big else "k")
    for idx, row in contrib.iterrows():
        if row["contribution"] <= 0:
            continue
        i, j = pos[str(row["class_j"])], pos[str(row["class_k"])]
        if row["n_kj"] > row["n_jk"]:
            i, j = j, i
        ax.text(j, i + 0.32, f"χ² {row['contribution']:.2g}", ha="center", va="center", fontsize=6, color="C3")
        if idx == top:
            ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="C3", lw=1.5))
    ax.set_xticks(range(k), classes, rotation=90 if k > 6 else 0, fontsize=7)
    ax.set_yticks(range(k), classes, fontsize=7)
    ax.set_xlabel(f"{names[1]} predicts")
    ax.set_ylabel(f"{names[0]} predicts")
    fig.colorbar(img, ax=ax, label="items", shrink=0.8)
    ax.set_title(f"agreement matrix; Bowker χ² = {bowker.statistic:.3g}, p = {bowker.pvalue:.2g}", fontsize=9)
    return fig


# --------------------------------------------------------------------------- shape bias


def plot_shape_bias(result, *, observers=None, ax: Any = None):
    """Shape bias per shape category, in the style of Geirhos et al. (2019), Fig. 4.

    One row per shape category; the x axis is the fraction of texture decisions (bottom)
    and, read from the top axis, of shape decisions (``1 − x``), among the answers that
    named either cue. Each observer or group of ``result`` (a
    :class:`trialwise.ShapeBiasResult`; ``observers``: which of its rows, default all) has
    one marker per category with that category's interval as a horizontal segment, and a
    vertical line at its overall shape bias with the overall interval shaded. Categories
    are ordered by the first plotted row's shape bias (most shape-biased at the top).
    Intervals are drawn from their bounds, so nothing assumes the estimate lies inside.

    Examples
    --------
    >>> import trialwise as tw
    >>> res = tw.shape_bias(tw.datasets.texture_vs_shape("cue-conflict"), observers=["resnet50", "vgg16-caffe"],
    ...                     n_resamples=200, rng=0)
    >>> fig = plot_shape_bias(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()][:3]
    ['airplane', 'knife', 'bird']
    """
    table = result.table
    names = list(table["observer"]) if observers is None else (
        [observers] if isinstance(observers, str) else list(observers))
    rows = [result._row(n) for n in names]  # a ValueError naming the unknown row
    cats = result.categories
    est = cats.pivot(index="category", columns="observer", values="shape_bias")
    low = cats.pivot(index="category", columns="observer", values="ci_low")
    high = cats.pivot(index="category", columns="observer", values="ci_high")
    order = est[names[0]].sort_values(ascending=True, na_position="first", kind="stable").index.tolist()
    k, m = len(order), len(names)
    fig, ax = _axes(ax, figsize=(7.0, 0.32 * k + 1.6))
    y = np.arange(k, dtype=float)
    markers = "os^Dv<>pPX*h"
    step = min(0.14, 0.7 / max(m, 1))
    import matplotlib as mpl

    palette = mpl.colormaps["tab10" if m <= 10 else "tab20"]
    for j, (name, r) in enumerate(zip(names, rows)):
        color = palette(j % palette.N)
        dy = (j - (m - 1) / 2) * step
        x = 1.0 - est.loc[order, name].to_numpy(dtype=float)
        x_lo = 1.0 - high.loc[order, name].to_numpy(dtype=float)
        x_hi = 1.0 - low.loc[order, name].to_numpy(dtype=float)
        ax.hlines(y + dy, x_lo, x_hi, color=color, lw=1.0, alpha=0.8)
        overall = float(table["shape_bias"].iloc[r])
        o_lo, o_hi = float(table["ci_low"].iloc[r]), float(table["ci_high"].iloc[r])
        ax.axvspan(1.0 - o_hi, 1.0 - o_lo, color=color, alpha=0.12, lw=0)
        ax.axvline(1.0 - overall, color=color, lw=1.2, alpha=0.8)
        kind = " (group)" if table["kind"].iloc[r] == "group" else ""
        ax.plot(x, y + dy, ls="none", marker=markers[j % len(markers)], ms=5, color=color, mec="w", mew=0.4,
                label=f"{name}{kind}: {overall:.3f} [{o_lo:.3f}, {o_hi:.3f}]", zorder=3, clip_on=False)
    for i in range(k - 1):
        ax.axhline(i + 0.5, color="0.85", lw=0.6, ls=":")
    ax.set_xlim(-0.02, 1.02)  # markers at 0 and 1 drawn whole
    ax.set_ylim(-0.6, k - 0.4)
    ax.set_yticks(y, order, fontsize=8)
    ax.set_ylabel("shape category")
    ax.set_xlabel("fraction of 'texture' decisions")
    top = ax.secondary_xaxis("top", functions=(lambda v: 1.0 - v, lambda v: 1.0 - v))
    top.set_xlabel("fraction of 'shape' decisions")
    ax.set_title(f"shape bias per category; lines: overall, {100 * result.confidence_level:g}% intervals "
                 f"({result.ci_method})", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig

