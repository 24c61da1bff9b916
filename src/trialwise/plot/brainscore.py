"""Figures of Brain-Score behavioural benchmarks: raw values against the ceiling, and ceiled scores; per-benchmark
scores and their average."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise.plot._common import draw_intervals, figure_axes, label_inches, legend_outside

__all__ = ["plot_benchmark_scores", "plot_brainscore"]


def plot_brainscore(table: Any, ceiling: Any, *, axes: Any = None):
    """Candidates' raw values with the ceiling's band (left) and their ceiled scores (right), best first.

    Parameters
    ----------
    table : pandas.DataFrame
        :meth:`trialwise.brainscore.BehavioralBenchmark.score_table` (``observer, statistic, ci_low,
        ci_high, raw, raw_low, raw_high`` and ``rank``).
    ceiling : CeilingResult
        :attr:`trialwise.brainscore.BehavioralBenchmark.ceiling`.
    axes : pair of matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure with two panels).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> bench = tw.brainscore.BehavioralBenchmark(trials, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                                n_resamples=200, rng=0)
    >>> table = bench.score_table(trials[trials.subject.isin(["resnet50", "convnext-base"])])
    >>> fig = plot_brainscore(table, bench.ceiling)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['convnext-base', 'resnet50']
    >>> plt.close(fig)
    """
    t = table.sort_values(["rank", "observer"], kind="stable").reset_index(drop=True)
    height = 0.25 * len(t) + 1.8
    if axes is None:
        import matplotlib.pyplot as plt

        width = min(17.5, 8.7 + label_inches(t["observer"]))
        fig, axes = plt.subplots(1, 2, figsize=(width, height), layout="constrained", sharey=True)
    left, right = axes
    fig, _ = figure_axes(left)
    y = np.arange(len(t))[::-1]
    level = f"{ceiling.confidence_level * 100:g}% CI"
    # I1n/I2n divide raw by √ceiling (Brain-Score's rule): a raw value is at its ceiling at √ceiling
    root = getattr(ceiling, "metric", "") in ("i2n", "i1n")
    cc = ceiling.confidence_interval
    f = (lambda x: np.sqrt(np.maximum(x, 0.0))) if root else (lambda x: x)
    if np.isfinite(cc.low) and np.isfinite(cc.high):
        left.axvspan(f(cc.low), f(cc.high), color="C1", alpha=0.25, lw=0)
    left.axvline(f(ceiling.statistic), color="C1", lw=1.5,
                 label=f"√ceiling {f(ceiling.statistic):.3f}" if root else f"ceiling {ceiling.statistic:.3f}")
    draw_intervals(left, t["raw"], t["raw_low"], t["raw_high"], y, color="C0", label="raw")
    left.set_yticks(y, t["observer"], fontsize=8)
    left.set_ylim(-0.7, len(t) - 0.3)
    left.set_xlabel(f"raw value, {level}")
    draw_intervals(right, t["statistic"], t["ci_low"], t["ci_high"], y, color="C2", label="score")
    right.set_xlim(-0.02, 1.02)
    right.set_xlabel(f"score = {'raw / √ceiling' if root else 'clip(raw / ceiling, 0, 1)'}, {level}")
    right.tick_params(labelleft=False)
    handles, labels = left.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    legend_outside(right, handles=handles + more[0], labels=labels + more[1], fontsize=8)  # beside, not over, the data
    return fig


def plot_benchmark_scores(result: Any, *, axes: Any = None):
    """The average over the benchmarks with its interval (left) and every benchmark's score (right, a missing
    or undefined one in grey), best first.

    Parameters
    ----------
    result : BenchmarkScores
        :meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks`.
    axes : pair of matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure with two panels).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> trials = tw.datasets.model_vs_human()
    >>> two = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    >>> bench = tw.brainscore.BehavioralBenchmark(trials, two, n_resamples=100, rng=0)
    >>> res = bench.score_benchmarks(trials[trials.subject.isin(["resnet50", "clip-16"])])
    >>> fig = plot_benchmark_scores(res)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()], [t.get_text() for t in fig.axes[1].get_xticklabels()]
    (['clip-16', 'resnet50'], ['cue-conflict', 'edge'])
    >>> plt.close(fig)
    """
    avg, scores = result.average, result.scores
    n, m = len(avg), len(result.benchmarks)
    height = 0.25 * n + 2.4
    if axes is None:
        import matplotlib.pyplot as plt

        width = min(17.5, 4.5 + label_inches(avg["observer"]) + 0.32 * m + 1.2)
        fig, axes = plt.subplots(1, 2, figsize=(width, height), layout="constrained", sharey=True,
                                 gridspec_kw={"width_ratios": [3.5, max(1.0, 0.32 * m)]})
    left, right = axes
    fig, _ = figure_axes(left)
    y = np.arange(n)[::-1]
    level = f"{result.confidence_level * 100:g}% CI"
    draw_intervals(left, avg["score"], avg["ci_low"], avg["ci_high"], y, color="C2", label="average score")
    left.set_yticks(y, avg["observer"], fontsize=8)
    left.set_ylim(-0.5, n - 0.5)  # the rows of the heat map beside it
    left.set_xlim(-0.02, 1.02)
    left.set_xlabel(f"average over {m} benchmarks, {level}")
    import matplotlib

    # a missing or undefined score (NaN) in light grey
    image = right.imshow(scores.to_numpy(dtype=float), aspect="auto", vmin=0, vmax=1,
                         cmap=matplotlib.colormaps["viridis"].with_extremes(bad="0.85"),
                         extent=(-0.5, m - 0.5, -0.5, n - 0.5), interpolation="nearest")
    right.set_xticks(np.arange(m), list(result.benchmarks), rotation=60, ha="right", fontsize=7)
    right.tick_params(labelleft=False)
    right.set_xlabel("score per benchmark")
    fig.colorbar(image, ax=right, shrink=0.8, label="score = clip(raw / ceiling, 0, 1)")
    return fig
