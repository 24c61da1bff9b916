"""The results of the planning functions (:mod:`trialwise.planning`): grids of designs and plans.

A module of their own because ``planning/trials.py`` (the simulations) is already ~580 lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.results import ConfidenceInterval, Result, jsonable
from trialwise._core.shown import shown

__all__ = ["CIWidthResult", "ClusterDesign", "CopyModelValidation", "HalfWidthResult", "PlanResult", "PowerResult",
           "QuestionPowerResult"]


class _GridResult(Result):
    """Results over a broadcast grid of designs: every array field has the grid's shape.

    ``to_frame()`` has one row per grid point and the columns ``frame_columns`` (a column
    is the attribute of that name, or the path given in ``_frame_sources``); ``summary()``
    is the settings, then that table.
    """

    summary_table = True

    @property
    def shape(self) -> tuple[int, ...]:
        return np.shape(self._frame_value(self.frame_columns[0]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the settings and ``grid``, the :meth:`to_frame` records (NaN as None).

        Its own layout: the grid's arrays are given once, as the records of ``grid``, not
        field by field.

        Returns
        -------
        dict
            The scalar fields (``confidence_level``, ``n_simulations``, ...) and ``grid``,
            a list of one dict per grid point.

        Examples
        --------
        >>> import trialwise as tw
        >>> r = tw.planning.ci_width(n=[100, 1000], accuracy_a=0.75, accuracy_b=0.75, kappa=0.5,
        ...                 n_simulations=1000, rng=0)
        >>> d = r.to_dict()
        >>> d["n_simulations"], len(d["grid"]), round(d["grid"][0]["half_width"], 3)
        (1000, 2, 0.192)
        """
        # every _GridResult subclass is a frozen dataclass; this base class itself is not
        names = [f.name for f in fields(self) if np.ndim(getattr(self, f.name)) == 0  # type: ignore[arg-type]
                 and not isinstance(getattr(self, f.name), ConfidenceInterval)]
        out = {k: getattr(self, k) for k in names if k not in self._dict_exclude}
        out["grid"] = self.to_frame().to_dict(orient="records")
        return jsonable(out)

    def __repr__(self) -> str:
        """Its own line: a grid point's values, or the grid's shape (a grid's arrays do not fit a line)."""
        if self.shape == ():
            inner = ", ".join(f"{c}={float(self._frame_value(c)):.4g}" for c in self.frame_columns)
        else:
            inner = f"<grid of shape {self.shape}>"
        return f"{type(self).__name__}({inner})"


@dataclass(frozen=True, repr=False)
class CIWidthResult(_GridResult):
    """Distribution of κ̂ over simulated experiments, per design (see :func:`trialwise.planning.ci_width`).

    ``kappa`` is the design's true κ; ``statistic`` the mean of κ̂ and ``median`` its
    median; ``confidence_interval``: the central ``confidence_level`` interval of κ̂
    (arrays ``low``, ``high``); ``width`` and ``half_width`` (= width/2); ``bias`` =
    statistic − κ; ``share_undefined``: experiments with an undefined κ̂ (left out of the
    rest). ``to_frame()`` has the columns ``low``, ``high`` (the interval) and ``mean``
    (``statistic``); see ``frame_columns``.
    ``distribution`` (n_simulations, *shape) holds the simulated κ̂ (NaN = undefined)
    as an unordered sample: within a grid point the experiments come sorted by A's number
    of correct trials (see ``order_free`` in :func:`trialwise._stats.resampling.multinomial_tables`),
    so use it for histograms and quantiles, not as a sequence.
    """

    n: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    kappa: NDArray
    confidence_interval: ConfidenceInterval
    statistic: NDArray
    median: NDArray
    share_undefined: NDArray
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    n_simulations: int = field(metadata=shown("simulated experiments", format="int", detail="per design"))
    distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("n", "accuracy_a", "accuracy_b", "kappa", "low", "high", "width", "half_width",
                     "mean", "median", "bias", "share_undefined")
    _frame_sources = {"low": "confidence_interval.low", "high": "confidence_interval.high", "mean": "statistic"}
    summary_title = "Expected interval of the EC estimate per design (simulated experiments)"

    @property
    def width(self) -> NDArray:
        return np.asarray(self.confidence_interval.high) - np.asarray(self.confidence_interval.low)

    @property
    def half_width(self) -> NDArray:
        return self.width / 2

    @property
    def bias(self) -> NDArray:
        return np.asarray(self.statistic) - np.asarray(self.kappa)


@dataclass(frozen=True, repr=False)
class PowerResult(_GridResult):
    """Power of the test of κ_X = κ_Y against a shared reference (:func:`trialwise.planning.power_difference`).

    ``power`` is simulated (Monte-Carlo SE ``power_se``); ``power_analytic`` is the
    large-sample normal approximation; ``se`` the large-sample SE of the difference.
    When the smallest n was searched, ``target_power`` is set and ``reached`` says
    whether ``n_max`` sufficed. ``statistic`` is the same as ``power`` (the estimate).
    """

    n: NDArray
    power: NDArray
    power_se: NDArray
    power_analytic: NDArray
    delta: NDArray
    se: NDArray
    alpha: float = field(metadata=shown("alpha", format="general"))
    n_simulations: int = field(metadata=shown("simulated experiments", format="int", detail="per design"))
    target_power: float | None = field(default=None, metadata=shown("target power", format="general"))
    reached: bool = field(default=True, metadata=shown(
        "target reached",
        format=lambda value, res: None if res.target_power is None else ("yes" if value else "no (n_max)")))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("n", "delta", "se", "power", "power_se", "power_analytic")
    summary_title = "Power of the test of equal EC with a shared reference per design"

    @property
    def statistic(self) -> NDArray:
        """The simulated power (same as ``power``)."""
        return self.power


@dataclass(frozen=True, repr=False)
class QuestionPowerResult(PowerResult):
    """Power to tell two accuracies or two agreements apart on n questions (:mod:`trialwise.planning.questions`).

    :class:`PowerResult` plus the cluster ``design_effect`` (``n_effective = n /
    design_effect`` independent questions carry the same information as the n clustered
    ones) and ``method``, the test whose power it is (``"mcnemar-exact"``,
    ``"paired-wald"`` (clustered), ``"two-proportion-z"``, ``"capa-wald"``, ``"capa-discrete-wald"``). ``n`` counts questions.
    """

    design_effect: float = field(default=1.0, metadata=shown("design effect", format="general"))
    method: str = field(default="mcnemar-exact", metadata=shown("test", format="text"))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = PowerResult.frame_columns + ("design_effect", "n_effective")  # type: ignore[assignment]
    _frame_sources = {"design_effect": "design_effect_grid"}
    summary_title = "Power to tell two accuracies or agreements apart per number of questions"

    @property
    def design_effect_grid(self) -> NDArray:
        """``design_effect`` broadcast to the grid (a column of :meth:`to_frame`)."""
        return np.broadcast_to(self.design_effect, np.shape(self.power)).astype(float)

    @property
    def n_effective(self) -> NDArray:
        """``n / design_effect``: the number of independent questions the simulation draws (before rounding)."""
        return np.asarray(self.n) / self.design_effect


@dataclass(frozen=True, repr=False)
class HalfWidthResult(_GridResult):
    """Large-sample half-width of the interval of one accuracy or one CAPA at n questions.

    ``statistic`` is the planning value (the accuracy, or κ_p of the pilot); ``sd`` the
    per-question standard deviation σ₁ (so ``SE = σ₁·√(design_effect / n)``); ``half_width``
    = z·SE at ``confidence_level``. When n was solved for, ``half_width_target`` is set and
    ``n`` is the smallest n reaching it.
    """

    n: NDArray
    statistic: NDArray
    sd: NDArray
    design_effect: NDArray
    half_width: NDArray
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    method: str = field(metadata=shown("interval method", format="text"))
    half_width_target: float | None = field(default=None, metadata=shown("target half-width", format="general"))

    frame_columns = ("n", "n_effective", "statistic", "sd", "design_effect", "half_width")
    summary_title = "Large-sample half-width of the interval at n questions"

    @property
    def n_effective(self) -> NDArray:
        return np.asarray(self.n) / np.asarray(self.design_effect)


@dataclass(frozen=True, repr=False)
class ClusterDesign(_GridResult):
    """Intra-cluster correlation of per-question values and the design effect it implies (:func:`trialwise.planning.estimate_icc`).

    ``statistic`` is the one-way ANOVA estimate of the ICC (it can be negative; plan with
    ``max(icc, 0)``); ``cluster_size`` the mean cluster size m̄ and ``cluster_size_cv`` the
    coefficient of variation of the sizes; ``design_effect`` = 1 + ((1 + cv²)·m̄ − 1)·ICC
    (Eldridge et al. 2006), with the ICC floored at 0.
    """

    statistic: float
    n: int
    n_clusters: int
    cluster_size: float
    cluster_size_cv: float
    method: str = field(default="anova", metadata=shown("estimator", format="text"))

    frame_columns = ("n", "n_clusters", "cluster_size", "cluster_size_cv", "icc", "design_effect")
    summary_title = "Intra-cluster correlation and design effect"

    @property
    def icc(self) -> float:
        """The estimated intra-cluster correlation (same as ``statistic``)."""
        return self.statistic

    @property
    def design_effect(self) -> float:
        return 1 + ((1 + self.cluster_size_cv ** 2) * self.cluster_size - 1) * max(self.statistic, 0.0)


@dataclass(frozen=True, repr=False)
class CopyModelValidation(_GridResult):
    """Copy-model vs bootstrap intervals per design (Klein et al. 2025, App. G; :func:`trialwise.planning.validate_copy_model`).

    One design per grid point: ``kappa`` the true κ, ``data_kappa`` κ of the table of n
    trials closest to it, the bootstrap and copy-model intervals around it and their
    ``width_ratio``. No single estimate: ``statistic`` is None.
    """

    n: NDArray
    accuracy_a: NDArray
    accuracy_b: NDArray
    kappa: NDArray
    data_kappa: NDArray
    bootstrap_low: NDArray
    bootstrap_high: NDArray
    model_low: NDArray
    model_high: NDArray
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    n_resamples: int = field(metadata=shown("bootstrap B", format="int"))
    n_simulations: int = field(metadata=shown("simulated experiments", format="int", detail="per design"))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("n", "accuracy_a", "accuracy_b", "kappa", "data_kappa", "bootstrap_low", "bootstrap_high",
                     "model_low", "model_high", "width_ratio")
    summary_title = "Copy-model vs bootstrap intervals per design"

    @property
    def width_ratio(self) -> NDArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.asarray(self.model_high) - self.model_low) / (np.asarray(self.bootstrap_high) - self.bootstrap_low)


@dataclass(frozen=True, repr=False)
class PlanResult(Result):
    """Smallest number of trials for a target interval half-width (:func:`trialwise.plan_trials`).

    ``to_frame()`` is the expected-interval table (columns
    :attr:`CIWidthResult.frame_columns`); ``statistic`` is None (the answer is ``n``).

    Attributes
    ----------
    n : int or None
        Smallest n reaching ``half_width_target`` (None: not reached by ``n_max``).
    at_n : CIWidthResult or None
        The expected interval at ``n``.
    intervals : CIWidthResult
        Expected intervals at the literature's trial counts and at ``n``; each row is the
        simulation of its n on the stream the search uses for that n, so the row at ``n``
        is ``at_n``.
    alternatives : list of dict
        The required n if the reference accuracy were different (same copy
        probability and latent accuracy of B): ``scenario, accuracy_a, accuracy_b,
        kappa, p_copy, n_required``.
    notes : tuple of str
        Recommendations computed from these numbers.
    """

    n: int | None = field(metadata=shown(
        "required trials", in_repr=True, format=lambda value, res: "not reached" if value is None else str(value)))
    half_width_target: float = field(metadata=shown(
        "target half-width", in_repr=True, repr_name="target", format="general"))
    accuracy_a: float = field(metadata=shown("accuracy A (reference), B", in_repr=True, format="general"))
    accuracy_b: float = field(metadata=shown("accuracy A (reference), B", in_repr=True, format="general"))
    kappa: float = field(metadata=shown("EC", in_repr=True, format="general"))
    confidence_level: float = field(metadata=shown("interval level", in_repr=True, repr_name="", format="percent"))
    n_simulations: int = field(metadata=shown("simulated experiments", format="int", detail="per n"))
    at_n: CIWidthResult | None = field(metadata=shown(
        "expected half-width at n", in_repr=True, repr_name="half_width",
        format=lambda value, res: None if value is None else f"{res.half_width:.4g}"))
    intervals: CIWidthResult
    alternatives: list
    notes: tuple
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = CIWidthResult.frame_columns
    summary_title = "Planning the number of trials for an interval of the EC of a target half-width"

    @property
    def half_width(self) -> float | None:
        """The expected half-width at ``n`` (``at_n.half_width``, as the repr shows it); None when no n up to
        ``n_max`` reaches ``half_width_target``."""
        return None if self.at_n is None else float(self.at_n.half_width)

    def alternatives_frame(self):
        """The required n under other reference accuracies, as a table.

        Returns
        -------
        pandas.DataFrame
            One row per scenario; columns ``scenario, accuracy_a, accuracy_b, kappa,
            p_copy, n_required``.

        Examples
        --------
        >>> import trialwise as tw
        >>> plan = tw.plan_trials(half_width=0.1, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5,
        ...                       n_simulations=1000, rng=0)
        >>> plan.alternatives_frame()[["scenario", "n_required"]].values.tolist()
        [['as planned', 371], ['reference accuracy 0.5', 265]]
        """
        import pandas as pd

        return pd.DataFrame(self.alternatives, columns=["scenario", "accuracy_a", "accuracy_b", "kappa", "p_copy", "n_required"])

    def to_frame(self):
        """The expected-interval table (one row per trial count).

        Its own rows (not one row of fields): the table of ``intervals``.

        Returns
        -------
        pandas.DataFrame
            :meth:`CIWidthResult.to_frame` of ``intervals``: the literature's trial counts
            and the planned ``n``.

        Examples
        --------
        >>> import trialwise as tw
        >>> plan = tw.plan_trials(half_width=0.1, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5,
        ...                       n_simulations=1000, rng=0)
        >>> frame = plan.to_frame()
        >>> round(float(frame.loc[frame.n == plan.n, "half_width"].iloc[0]), 3)
        0.1
        """
        return self.intervals.to_frame()

    def _dict_extra(self) -> dict[str, Any]:
        """``half_width`` (at ``n``), ``intervals`` as the :meth:`to_frame` records and ``alternatives`` as dicts."""
        return {"half_width": self.half_width, "intervals": self.to_frame().to_dict(orient="records"),
                "alternatives": [dict(r) for r in self.alternatives]}

    def _summary_details(self) -> list[str]:
        """Its two tables: the expected intervals per trial count and the required n under other accuracies."""
        cols = ["n", "low", "high", "half_width", "bias", "share_undefined"]
        table = self.to_frame()[cols].to_string(index=False, float_format=lambda x: f"{x:.3f}")
        alts = self.alternatives_frame().to_string(index=False, float_format=lambda x: f"{x:.3f}")
        return ["", "expected intervals of the EC estimate:", table, "",
                "if the reference accuracy were different (same copy probability):", alts, ""]
