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
    "plot_agreement",
    "plot_reliability",
    "plot_agreement_matrix",
]


def _axes(ax, figsize=(5.0, 4.0)):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("figures need matplotlib: pip install 'trialwise[plot]'") from exc
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

        cmap = matplotlib.colormaps["RdBu"].copy()
        cmap.set_bad("0.88")
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
            "accuracy-difference": "squared accuracy difference"}[lb.protocol.metric]


def plot_leaderboard(lb, *, ax: Any = None):
    """Scores with their intervals, best first, the reference row as a shaded band (seed 000 Fig. 4)."""
    t = lb.table
    cand = t[t["kind"] == "candidate"].reset_index(drop=True)
    fig, ax = _axes(ax, figsize=(6.0, 0.25 * len(cand) + 1.5))
    y = np.arange(len(cand))[::-1]
    ax.errorbar(cand["score"], y, xerr=[cand["score"] - cand["ci_low"], cand["ci_high"] - cand["score"]],
                fmt="o", color="C0", ms=4, capsize=2, label="candidates")
    ref = t[t["kind"] == "reference"]
    if len(ref):
        r = ref.iloc[0]
        ax.axvspan(r.ci_low, r.ci_high, color="C1", alpha=0.25, lw=0)
        ax.axvline(r.score, color="C1", lw=1.5, label=f"{r.observer} {r.score:.3f}")
    ax.set_yticks(y, cand["observer"], fontsize=8)
    ax.set_xlabel(f"{_metric_label(lb)} ({lb.protocol.name}), {int(lb.confidence_level * 100)}% CI")
    ax.legend(fontsize=8, loc="lower right")
    return fig


def plot_rank_intervals(lb, *, ax: Any = None):
    """Each candidate's rank (dot) and rank interval (bar), with P(best) in the label."""
    t = lb.table[lb.table["kind"] == "candidate"].reset_index(drop=True)
    fig, ax = _axes(ax, figsize=(6.0, 0.25 * len(t) + 1.5))
    y = np.arange(len(t))[::-1]
    rank = t["rank"].astype(float).to_numpy()
    lo, hi = t["rank_low"].astype(float).to_numpy(), t["rank_high"].astype(float).to_numpy()
    ax.hlines(y, lo, hi, color="C0", lw=4, alpha=0.5)
    ax.plot(rank, y, "o", color="C0", ms=4)
    labels = [f"{o}  (P best {p:.2f})" if p >= 0.005 else o for o, p in zip(t["observer"], t["p_best"])]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(f"rank ({int(lb.confidence_level * 100)}% interval); mean Kendall τ to bootstrap rankings "
                  f"{lb.kendall_tau.mean:.2f}")
    ax.set_xlim(0.5, len(t) + 0.5)
    return fig


def plot_pairwise_matrix(pairwise, *, order=None, ax: Any = None):
    """Adjusted p-values of the pairwise tests as a matrix; significant cells outlined.

    ``pairwise``: the frame of :meth:`trialwise.Leaderboard.pairwise` (``which="all"``).
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
    fig, ax = _axes(ax, figsize=(0.28 * k + 2.5, 0.28 * k + 2.0))
    with np.errstate(divide="ignore"):
        img = ax.imshow(np.log10(np.clip(m, 1e-4, 1)), cmap="viridis", vmin=-4, vmax=0)
    for i, j in zip(*np.nonzero(sig)):
        ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="w", lw=1))
    ax.set_xticks(range(k), names, rotation=90, fontsize=7)
    ax.set_yticks(range(k), names, fontsize=7)
    fig.colorbar(img, ax=ax, label="log10 adjusted p", shrink=0.8)
    test = pairwise["test"].iloc[0] if len(pairwise) else ""
    adjust = pairwise["adjust"].iloc[0] if len(pairwise) else ""
    ax.set_title(f"pairwise {test} tests ({adjust}); outlined: significant", fontsize=9)
    return fig


def plot_experiments(breakdown, *, observers=None, ncols: int = 4, fig: Any = None):
    """One panel per experiment: scores with CIs (seed 000 App. H, Fig. 11)."""
    import matplotlib.pyplot as plt

    t = breakdown.table
    exps = list(dict.fromkeys(t["experiment"]))
    names = list(dict.fromkeys(t["observer"])) if observers is None else list(observers)
    nrows = int(np.ceil(len(exps) / ncols))
    if fig is None:
        fig = plt.figure(figsize=(3.0 * ncols, 0.16 * len(names) * nrows + 1.0 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    y = np.arange(len(names))[::-1]
    for ax, exp in zip(axes.ravel(), exps):
        sub = t[t["experiment"] == exp].set_index("observer").reindex(names)
        ax.errorbar(sub["score"], y, xerr=[sub["score"] - sub["ci_low"], sub["ci_high"] - sub["score"]], fmt="o",
                    ms=3, capsize=1.5, lw=1)
        ax.set_title(exp, fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(exps):]:
        ax.set_visible(False)
    axes[0, 0].set_yticks(y, names, fontsize=6)
    return fig


def plot_agreement(entries, *, experiment: str | None = None, confidence_level: float = 0.95, ax: Any = None):
    """Observed vs expected agreement of every pair (seed 002 Fig. 1–2).

    ``entries``: :meth:`trialwise.Leaderboard.entries` (optionally one ``experiment``).
    The grey region is what κ's bounds allow (seed 002 eq. 2–6); the band around the
    diagonal is where independent observers fall with ``confidence_level`` at the median n.
    """
    from scipy import stats

    from trialwise.kappa import kappa_bounds_from_expected

    e = entries if experiment is None else entries[entries["experiment"] == experiment]
    fig, ax = _axes(ax, figsize=(4.8, 4.5))
    ce = np.linspace(0.0, 0.999, 400)
    lo, hi = kappa_bounds_from_expected(ce)
    ax.fill_between(ce, ce + lo * (1 - ce), ce + hi * (1 - ce), color="0.92", label="attainable")
    n = float(np.median(e["n"])) if len(e) else 100.0
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    half = z * np.sqrt(ce * (1 - ce) / n)
    ax.fill_between(ce, ce - half, ce + half, color="C7", alpha=0.35, label=f"chance ({int(confidence_level*100)}%, n={n:.0f})")
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
