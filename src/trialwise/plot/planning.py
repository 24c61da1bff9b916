"""Figures of planning results: expected interval widths, bias of κ̂ and the copy-model check."""

from __future__ import annotations

from typing import Any

import numpy as np

from trialwise._core.errors import InvalidTypeError
from trialwise.planning.results import CIWidthResult, CopyModelValidation, PlanResult
from trialwise.plot._common import figure_axes, legend_outside, palette

__all__ = ["plot_ci_width", "plot_copy_model_validation", "plot_kappa_bias"]


def _series(result: CIWidthResult, along: str):
    """Split a grid result into 1-D series along ``along`` (one per other design)."""
    frame = result.to_frame()
    keys = [c for c in ("n", "accuracy_a", "accuracy_b", "kappa") if c != along]
    for key, part in frame.groupby(keys, sort=True):
        yield dict(zip(keys, key)), part.sort_values(along)


def plot_ci_width(result: CIWidthResult, *, literature=(147, 160, 600, 1280, 3222), plan: PlanResult | None = None,
                  ax: Any = None):
    """Expected interval of κ̂ against the number of trials (Klein et al. 2025, Fig. 3).

    One band (the ``confidence_level`` interval of κ̂ over simulated experiments) and
    the median per design, on a log axis, with the true κ and the trial counts used in
    the literature marked.

    Parameters
    ----------
    result : CIWidthResult
        From :func:`trialwise.planning.ci_width` with several values of n (e.g.
        ``n=np.logspace(1, 5, 30).round()[:, None]`` against a vector of accuracies).
    literature : sequence of int
        Trial counts to mark (``()`` for none).
    plan : PlanResult, optional
        From :func:`trialwise.plan_trials` (``result`` then usually from
        :func:`trialwise.planning.curve.interval_curve`): its answer is marked too, and
        the title says how many trials reach its target half-width.
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
    >>> r = tw.planning.ci_width(n=[[100], [1000]], accuracy_a=[0.75, 0.9], accuracy_b=0.75, kappa=0.5,
    ...                 n_simulations=500, rng=0)
    >>> fig = plot_ci_width(r)
    >>> len(fig.axes), fig.axes[0].get_xscale()
    (1, 'log')
    >>> plt.close(fig)
    """
    if not isinstance(result, CIWidthResult):
        raise InvalidTypeError(f"`result` must be a CIWidthResult from trialwise.planning.ci_width; got {type(result).__name__}")
    if plan is not None and not isinstance(plan, PlanResult):
        raise InvalidTypeError(f"`plan` must be a PlanResult from trialwise.plan_trials; got {type(plan).__name__}")
    if plan is not None and plan.n:
        literature = tuple(literature) + (plan.n,)
    fig, ax = figure_axes(ax, (8.2, 4.0))
    series = list(_series(result, "n"))
    colors = palette(len(series))
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
    legend_outside(ax)
    if plan is not None and plan.n:
        ax.set_title(f"{plan.n} trials reach half-width {plan.half_width_target:g}", fontsize=9)
    return fig


def plot_copy_model_validation(validation: CopyModelValidation, *, ax: Any = None):
    """Copy-model intervals next to bootstrap intervals of data with known EC (Klein et al. 2025, App. G).

    Parameters
    ----------
    validation : CopyModelValidation
        From :func:`trialwise.planning.validate_copy_model`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw into (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn into: one pair of intervals per design.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt, trialwise as tw
    >>> val = tw.planning.validate_copy_model(n=[200, 1000], accuracy_a=0.75, accuracy_b=0.75, kappa=0.5,
    ...                              n_resamples=500, n_simulations=500, rng=0)
    >>> fig = plot_copy_model_validation(val)
    >>> [t.get_text().splitlines()[0] for t in fig.axes[0].get_xticklabels()]
    ['n=200', 'n=1000']
    >>> plt.close(fig)
    """
    if not isinstance(validation, CopyModelValidation):
        raise InvalidTypeError(
            f"`validation` must be a CopyModelValidation from trialwise.planning.validate_copy_model; got {type(validation).__name__}"
        )
    fig, ax = figure_axes(ax, (8.6, 4.0))
    frame = validation.to_frame()
    x = np.arange(len(frame))
    ax.vlines(x - 0.15, frame.bootstrap_low, frame.bootstrap_high, color="C0", lw=3, label="bootstrap of the data")
    ax.vlines(x + 0.15, frame.model_low, frame.model_high, color="C1", lw=3, label="copy model")
    ax.plot(x, frame.kappa, "k_", ms=14, label="true EC")
    ax.set_xticks(x, [f"n={n}\n{a:.2f}/{b:.2f}" for n, a, b in zip(frame.n, frame.accuracy_a, frame.accuracy_b)],
                  fontsize=7)
    ax.set_ylabel(f"EC, {100 * validation.confidence_level:g}% interval")
    legend_outside(ax, fontsize=8)
    return fig


def plot_kappa_bias(result: CIWidthResult, *, ax: Any = None):
    """Deviation of κ̂ from the true κ against the true κ (Klein et al. 2025, App. E, Fig. 7).

    ``result`` comes from :func:`trialwise.planning.ci_width` over a range of κ; one band
    (interval of κ̂ − κ) and one mean-bias line per remaining design (n, accuracies).

    Parameters
    ----------
    result : CIWidthResult
        From :func:`trialwise.planning.ci_width` with several values of ``kappa``.
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
    >>> r = tw.planning.ci_width(n=200, accuracy_a=0.75, accuracy_b=0.75, kappa=[0.0, 0.4, 0.8],
    ...                 n_simulations=500, rng=0)
    >>> fig = plot_kappa_bias(r)
    >>> fig.axes[0].get_xlabel()
    'true EC'
    >>> plt.close(fig)
    """
    if not isinstance(result, CIWidthResult):
        raise InvalidTypeError(f"`result` must be a CIWidthResult from trialwise.planning.ci_width; got {type(result).__name__}")
    fig, ax = figure_axes(ax, (8.0, 4.0))
    series = list(_series(result, "kappa"))
    for color, (design, part) in zip(palette(len(series)), series):
        label = f"n {design['n']:.0f}, acc. {design['accuracy_a']:.2f} / {design['accuracy_b']:.2f}"
        ax.fill_between(part.kappa, part.low - part.kappa, part.high - part.kappa, color=color, alpha=0.25, lw=0)
        ax.plot(part.kappa, part.bias, color=color, lw=1.2, label=label)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("true EC")
    ax.set_ylabel("estimated − true EC")
    legend_outside(ax)
    return fig

