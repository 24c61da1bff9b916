"""The results of the calibration studies: the long table of a simulation study with its Monte-Carlo settings (CoverageStudy, TypeOneErrorStudy, BenchmarkCoverageStudy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from trialwise._core.format import format_percent
from trialwise._core.results import Result
from trialwise._core.shown import shown

__all__ = ["COVERAGE_BAND"]


#: Where a nominal 95 % interval counts as calibrated.
COVERAGE_BAND = (0.935, 0.965)


@dataclass(frozen=True, repr=False)
class _Study(Result):
    """A simulation study's long table, with its Monte-Carlo settings and wall time.

    ``to_frame()`` is the long table with the class's fixed ``frame_columns`` (columns a
    study does not fill are NaN); a study has no single estimate (``statistic`` is None).
    """

    table: Any = field(metadata=shown(in_repr=True, repr_name="rows", format="count"))  # pandas.DataFrame
    n_datasets: int = field(metadata=shown("simulated datasets R", in_repr=True, repr_name="R", format="int"))
    n_resamples: int = field(metadata=shown("bootstrap B", in_repr=True, repr_name="B", format="int"))
    wall_time: float = field(metadata=shown("wall time", in_repr=True, format=lambda value, res: f"{value:.0f} s"))
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result


@dataclass(frozen=True, repr=False)
class CoverageStudy(_Study):
    """Coverage of EC intervals on simulated data (:func:`trialwise.validity.studies.coverage_study`).

    ``table`` has one row per (grid point, method, confidence level); see
    :func:`~trialwise.validity.studies.coverage_study` for its columns. The per-method summary
    table is :meth:`summary_frame`, and ``summary()`` is that table as text.
    """

    frame_columns = (
        "n", "accuracy_a", "accuracy_b", "kappa", "method", "confidence_level", "coverage", "coverage_se",
        "miss_below", "miss_above", "mean_width", "share_no_interval", "share_undefined_estimate",
        "share_undefined_replicates",
    )

    def eligible(self, max_undefined: float = 0.01):
        """Rows where the coverage requirement applies: defined intervals for all but ``max_undefined``.

        A grid point is judged when fewer than ``max_undefined`` of its experiments have
        an undefined estimate and, on average, fewer than ``max_undefined`` of the
        bootstrap replicates are undefined (the bootstrap methods' rows decide).

        Parameters
        ----------
        max_undefined : float, default 0.01
            The largest share of undefined estimates (and of undefined replicates) a grid
            point may have to be judged.

        Returns
        -------
        pandas.DataFrame
            The rows of ``table`` at the eligible grid points.

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[100], accuracies=[0.75], kappas=[0.5])
        >>> st = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95], n_datasets=50, rng=0)
        >>> len(st.eligible())
        1
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

    def summary(self, *, confidence_level: float = 0.95, band: tuple[float, float] = COVERAGE_BAND) -> str:
        """The per-method table of :meth:`summary_frame` as text, under a line saying what it is.

        Its own summary (not the fields' lines): it takes the level and the band it summarises.

        Parameters
        ----------
        confidence_level : float, default 0.95
            The nominal level whose rows are summarised.
        band : tuple of float, default (0.935, 0.965)
            The coverages that count as calibrated.

        Returns
        -------
        str

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[100], accuracies=[0.75], kappas=[0.5])
        >>> st = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95], n_datasets=50, rng=0)
        >>> print(st.summary().splitlines()[0])
        Coverage of 95% intervals (R = 50 experiments per point, B = 1000; calibrated: 0.935–0.965)
        """
        table = self.summary_frame(confidence_level=confidence_level, band=band)
        head = (f"Coverage of {format_percent(confidence_level)} intervals (R = {self.n_datasets} experiments per "
                f"point, B = {self.n_resamples}; calibrated: {band[0]:g}–{band[1]:g})")
        return head + "\n" + table.to_string(float_format=lambda x: f"{x:.3f}")

    def summary_frame(self, *, confidence_level: float = 0.95, band: tuple[float, float] = COVERAGE_BAND) -> Any:
        """Per method: min / median / max coverage over the eligible points, and how many fall outside ``band``.

        Parameters
        ----------
        confidence_level : float, default 0.95
            The nominal level whose rows are summarised.
        band : tuple of float, default (0.935, 0.965)
            The coverages that count as calibrated.

        Returns
        -------
        pandas.DataFrame
            One row per method: ``points, min, median, max, mean_width, below_band, above_band``.

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[100], accuracies=[0.75], kappas=[0.5])
        >>> st = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95], n_datasets=50, rng=0)
        >>> st.summary_frame().index.tolist()
        ['jeffreys']
        """
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
    ``rejection_se`` and ``share_undefined``; its grid columns are ``n, accuracy_a,
    accuracy_b`` for independence tests (:func:`type_one_error_study`) and ``n,
    accuracy_reference, accuracy_x, accuracy_y, kappa`` for difference tests
    (:func:`difference_test_study`); ``to_frame()`` has all of them (NaN where unused).
    The per-test summary table is :meth:`summary_frame`, and ``summary()`` is that
    table as text.
    """

    frame_columns = (
        "n", "accuracy_a", "accuracy_b", "accuracy_reference", "accuracy_x", "accuracy_y", "kappa", "test", "alpha",
        "rejection_rate", "rejection_se", "share_undefined",
    )

    summary_title = "Rejection rates under the null"

    def _summary_details(self) -> list[str]:
        """The per-test table of :meth:`summary_frame` (its own: min / median / max over the grid).

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[160], accuracies=[0.75], kappas=[0.0])
        >>> st = tw.validity.type_one_error_study(grid, tests=["fisher"], alphas=[0.05], n_datasets=50, rng=0)
        >>> print(st.summary().splitlines()[0])
        Rejection rates under the null
        """
        return [self.summary_frame().to_string(float_format=lambda x: f"{x:.3f}")]

    def summary_frame(self) -> Any:
        """Per test and α: min / median / max rejection rate over the grid.

        Returns
        -------
        pandas.DataFrame
            One row per (test, α): ``points, min, median, max``.

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[160], accuracies=[0.75], kappas=[0.0])
        >>> st = tw.validity.type_one_error_study(grid, tests=["fisher"], alphas=[0.05], n_datasets=50, rng=0)
        >>> st.summary_frame().index.tolist()
        [('fisher', 0.05)]
        """
        return self.table.groupby(["test", "alpha"], sort=False).agg(
            points=("rejection_rate", "size"), min=("rejection_rate", "min"),
            median=("rejection_rate", "median"), max=("rejection_rate", "max"),
        )


@dataclass(frozen=True, repr=False)
class BenchmarkCoverageStudy(_Study):
    """Calibration of leaderboards on simulated benchmarks (:func:`trialwise.validity.leaderboard_study.benchmark_coverage_study`).

    ``table``: coverage, mean width and bias of each observer's score interval, over the
    ``n_scored`` simulated benchmarks where the row has a score (the reference row has none
    where no two humans share ``min_items`` items);
    its last row, ``x − y``, is the interval of the difference of two models with equal true
    scores (true value 0); ``ranks``: coverage of the rank intervals (per model, and all at
    once); ``tests``: rejection rates of the benchmark-level tests for those two models
    (equal true scores, unequal accuracies). ``to_frame()`` is ``table``.
    """

    frame_columns = ("observer", "true_score", "accuracy", "coverage", "coverage_se", "mean_width", "bias", "sd",
                     "contains_estimate", "n_scored")
    ranks: Any = None
    tests: Any = None
    confidence_level: float = field(default=0.95, metadata=shown("interval level", format="percent"))
    n_null_resamples: int = field(default=0, metadata=shown("swaps M", format="int"))

    summary_title = "Score intervals of simulated benchmarks"

    def _summary_details(self) -> list[str]:
        """Its three tables (scores, ranks, tests).

        Examples
        --------
        >>> import trialwise as tw
        >>> st = tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=50, n_items=40, n_experiments=1,
        ...                                           n_conditions=2, run_tests=False, rng=0)
        >>> st.summary().splitlines()[0]
        'Score intervals of simulated benchmarks'
        """
        fmt = {"float_format": lambda x: f"{x:.3f}"}
        return ["", self.table.to_string(index=False, **fmt),
                "", "Rank intervals", "", self.ranks.to_string(index=False, **fmt),
                "", f"Tests of x vs y (rejection rates; unequal accuracies; M = {self.n_null_resamples})", "",
                self.tests.to_string(index=False, **fmt)]
