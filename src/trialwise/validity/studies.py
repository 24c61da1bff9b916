"""Statistical validity, measured: coverage of every EC interval, type-I error of every test.

Data with a known truth are simulated from the copy model's cell probabilities
(:func:`trialwise.ec.cell_probabilities`; one multinomial draw per simulated experiment) and
analysed by the library's own code paths — the interval dispatch of
:func:`trialwise.error_consistency`, :func:`trialwise._stats.significance.independence_pvalues`
and :func:`trialwise.ec.difference.difference_pvalues` — vectorised over the simulated
experiments. ``benchmarks/calibration/validity_study.py`` runs the full grid and writes
``docs/validity.md``; the test-suite runs a few grid points.

Monte-Carlo error: a coverage (or rejection rate) estimated from R experiments has
standard error ``√(c(1 − c)/R)``, reported next to every estimate (``coverage_se``,
``rejection_se``). R = 4000 keeps it at or below 0.5 percentage points at nominal 90 %
and 95 %; R = 2000 does so for rejection rates at α = 0.05.

The study results (:class:`CoverageStudy`, :class:`TypeOneErrorStudy`,
:class:`BenchmarkCoverageStudy`) live here next to the studies that make them; the module is
longer than ~500 lines because the studies share their grid and simulation helpers.
"""

from __future__ import annotations

import itertools
import numbers
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.format import format_percent
from trialwise._core.results import Result
from trialwise._stats.resampling import multinomial_cells, multinomial_tables, posterior_tables
from trialwise._stats.streams import records_seed
from trialwise.ec.difference import DIFFERENCE_TESTS, difference_pvalues
from trialwise.leaderboards.differences import BENCHMARK_TESTS, BenchmarkTest
from trialwise.leaderboards.board import DEFAULT_CI_METHOD, leaderboard
from trialwise.leaderboards.protocol import MODEL_VS_HUMAN
from trialwise.leaderboards.ranks import rank_intervals, rank_scores
from trialwise.io.trials import TRIAL_COLUMNS
from trialwise.ec.inference import check_options, kappa_intervals
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.kappa import kappa_from_counts
from trialwise._stats.bounds import attainable_kappa as kappa_bounds, cell_probabilities
from trialwise.planning.trials import joint_cells
from trialwise._stats.significance import INDEPENDENCE_TESTS, independence_pvalues

__all__ = [
    "STUDY_N",
    "STUDY_ACCURACIES",
    "STUDY_KAPPAS",
    "COVERAGE_BAND",
    "study_grid",
    "coverage_study",
    "type_one_error_study",
    "difference_test_study",
    "benchmark_coverage_study",
]

#: The grid of the validity studies (docs/validity.md).
STUDY_N = (50, 160, 400, 1000, 4000)
STUDY_ACCURACIES = (0.55, 0.65, 0.75, 0.85, 0.95)
STUDY_KAPPAS = (0.0, 0.2, 0.5, 0.8)
#: Where a nominal 95 % interval counts as calibrated.
COVERAGE_BAND = (0.935, 0.965)
_TOL = 1e-12


@dataclass(frozen=True, repr=False)
class _Study(Result):
    """A simulation study's long table, with its Monte-Carlo settings and wall time.

    ``to_frame()`` is the long table with the class's fixed ``frame_columns`` (columns a
    study does not fill are NaN); a study has no single estimate (``statistic`` is None).
    """

    table: Any  # pandas.DataFrame
    n_datasets: int
    n_resamples: int
    wall_time: float
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    def to_frame(self):
        """The long table with the class's fixed columns.

        Returns
        -------
        pandas.DataFrame
            A copy of ``table`` with the columns ``frame_columns`` (NaN where the study does
            not fill one).

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[160], accuracies=[0.75], kappas=[0.0])
        >>> st = tw.validity.type_one_error_study(grid, tests=["fisher"], alphas=[0.05], n_datasets=50, rng=0)
        >>> list(st.to_frame().columns[:3])
        ['n', 'accuracy_a', 'accuracy_b']
        """
        return self.table.reindex(columns=list(self.frame_columns)).copy()

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(<{len(self.table)} rows>, R = {self.n_datasets} experiments per point, "
                f"B = {self.n_resamples}, {self.wall_time:.0f} s)")

    __str__ = __repr__


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

    def summary(self) -> str:
        """The per-test table of :meth:`summary_frame` as text, under a line saying what it is.

        Returns
        -------
        str

        Examples
        --------
        >>> import trialwise as tw
        >>> grid = tw.validity.study_grid(n=[160], accuracies=[0.75], kappas=[0.0])
        >>> st = tw.validity.type_one_error_study(grid, tests=["fisher"], alphas=[0.05], n_datasets=50, rng=0)
        >>> print(st.summary().splitlines()[0])
        Rejection rates under the null (R = 50 experiments per point)
        """
        head = f"Rejection rates under the null (R = {self.n_datasets} experiments per point)"
        return head + "\n" + self.summary_frame().to_string(float_format=lambda x: f"{x:.3f}")

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
    """Calibration of leaderboards on simulated benchmarks (:func:`trialwise.validity.studies.benchmark_coverage_study`).

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
    confidence_level: float = 0.95
    n_null_resamples: int = 0

    def summary(self) -> str:
        """The three tables (scores, ranks, tests) as text.

        Returns
        -------
        str

        Examples
        --------
        >>> import trialwise as tw
        >>> st = tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=50, n_items=40, n_experiments=1,
        ...                                           n_conditions=2, run_tests=False, rng=0)
        >>> st.summary().splitlines()[0]
        'Score intervals (95%, R = 2 benchmarks, B = 50)'
        """
        fmt = {"float_format": lambda x: f"{x:.3f}"}
        return "\n\n".join([
            f"Score intervals ({format_percent(self.confidence_level)}, R = {self.n_datasets} benchmarks, B = {self.n_resamples})",
            self.table.to_string(index=False, **fmt),
            "Rank intervals", self.ranks.to_string(index=False, **fmt),
            f"Tests of x vs y (rejection rates; unequal accuracies; M = {self.n_null_resamples})",
            self.tests.to_string(index=False, **fmt),
        ])


def _as_list(value: Any, name: str) -> list:
    """A non-empty list from a sequence (a scalar counts as one value); a clear error otherwise."""
    if value is None or isinstance(value, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be a sequence of numbers; got {value!r}")
    out = list(np.atleast_1d(np.asarray(value, dtype=object)).ravel())
    if not out:
        raise InvalidValueError(f"`{name}` is empty")
    return out


def study_grid(
    n: Sequence[int] = STUDY_N,
    accuracies: Sequence[float] = STUDY_ACCURACIES,
    kappas: Sequence[float] = STUDY_KAPPAS,
) -> pd.DataFrame:
    """Grid points ``n × (accuracy_a ≤ accuracy_b) × kappa``, with ``attainable``.

    κ is symmetric in the two observers, so each unordered pair of accuracies (equal
    pairs included) appears once. ``attainable`` says whether κ lies within the bounds
    that the two accuracies allow (:func:`trialwise.ec.kappa_bounds`).

    Parameters
    ----------
    n : sequence of int, default STUDY_N
        Numbers of trials.
    accuracies : sequence of float, default STUDY_ACCURACIES
        Accuracies in [0, 1]; every unordered pair is a point.
    kappas : sequence of float, default STUDY_KAPPAS
        Values of κ in [−1, 1].

    Returns
    -------
    pandas.DataFrame
        Columns ``n, accuracy_a, accuracy_b, kappa, attainable``; one row per point.

    Examples
    --------
    >>> g = study_grid()
    >>> len(g), int(g.attainable.sum())
    (300, 210)
    """
    n = [v.check_positive_int(x, "n") for x in _as_list(n, "n")]
    accuracies = list(v.check_probability(_as_list(accuracies, "accuracies"), "accuracies"))
    kappas = list(v.as_float_array(_as_list(kappas, "kappas"), "kappas"))
    bad = [k for k in kappas if not -1.0 <= k <= 1.0]
    if bad:
        raise InvalidValueError(f"`kappas` must lie in [-1, 1]; got {bad[0]!r}")
    rows = []
    for size in n:
        for a, b in itertools.combinations_with_replacement(sorted(accuracies), 2):
            lo, hi = kappa_bounds(a, b)
            for k in kappas:
                rows.append(dict(n=int(size), accuracy_a=float(a), accuracy_b=float(b), kappa=float(k),
                                 attainable=bool(lo - _TOL <= k <= hi + _TOL)))
    return pd.DataFrame(rows)


def _points(grid: pd.DataFrame | None, kappa_zero: bool = False) -> pd.DataFrame:
    g = study_grid() if grid is None else pd.DataFrame(grid)
    missing = {"n", "accuracy_a", "accuracy_b", "kappa"} - set(g.columns)
    if missing:
        raise InvalidValueError(f"`grid` lacks the columns {sorted(missing)}; it has {list(g.columns)}")
    for row, value in g["n"].items():  # a table of n trials: n a whole number ≥ 1
        whole = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else float("nan")
        if not (whole >= 1 and whole.is_integer()):  # NaN and inf fail here too
            raise InvalidValueError(f"`grid` column 'n' must hold whole numbers ≥ 1; row {row!r} has {value!r}")
    for col in ("accuracy_a", "accuracy_b"):
        for row, value in g[col].items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
                raise InvalidValueError(f"`grid` column {col!r} must hold accuracies in [0, 1]; row {row!r} has {value!r}")
    g = g.assign(n=g["n"].astype(np.int64))
    if "attainable" not in g:
        lo, hi = kappa_bounds(g.accuracy_a.to_numpy(float), g.accuracy_b.to_numpy(float))
        g = g.assign(attainable=(lo - _TOL <= g.kappa) & (g.kappa <= hi + _TOL))
    g = g[g.attainable]
    if kappa_zero:
        g = g[g.kappa == 0]
    if g.empty:
        raise InvalidValueError("`grid` has no attainable point to simulate")
    return g.reset_index(drop=True)


def _rate_se(rate: ArrayLike, count: ArrayLike) -> NDArray:
    rate, count = np.asarray(rate, dtype=float), np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(rate * (1 - rate) / count)


@records_seed
def coverage_study(
    grid: pd.DataFrame | None = None,
    *,
    methods: Sequence[str] = CI_METHODS,
    confidence_levels: Sequence[float] = (0.90, 0.95),
    n_datasets: int = 4000,
    n_resamples: int = 1000,
    rng: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> CoverageStudy:
    """Coverage and width of every EC interval method on data with known κ.

    For each attainable grid point, ``n_datasets`` tables of n trials are drawn from
    ``cell_probabilities(kappa, accuracy_a, accuracy_b)``; each gets every interval
    of ``methods`` at every level, from ``n_resamples`` bootstrap replicates (and as many
    Jeffreys posterior draws), computed by the same function as
    :func:`trialwise.error_consistency`.

    Parameters
    ----------
    grid : DataFrame, optional
        Columns ``n, accuracy_a, accuracy_b, kappa`` (default :func:`study_grid`);
        unattainable points are skipped.
    methods : sequence of str
        Interval methods (default: all of :data:`trialwise._stats.intervals.CI_METHODS`).
    confidence_levels : sequence of float, default (0.90, 0.95)
    n_datasets : int, default 4000
        Simulated experiments per grid point (R).
    n_resamples : int, default 1000
        Bootstrap replicates / posterior draws per experiment (B).
    rng : seed or Generator, default None
    progress : callable, optional
        Called as ``progress(label, points_done, points_total)`` after each grid point
        (the study script prints it).

    Returns
    -------
    CoverageStudy
        ``table``: one row per (grid point, method, level) with ``coverage`` (share of
        experiments whose interval holds κ, among those with an interval),
        ``coverage_se``, ``miss_below`` / ``miss_above`` (interval entirely below /
        above κ), ``mean_width``, ``share_no_interval`` (no interval: κ̂ undefined for
        the bootstrap methods), ``share_undefined_estimate`` and
        ``share_undefined_replicates`` (mean share of undefined replicates).

    Examples
    --------
    >>> import trialwise as tw
    >>> grid = tw.validity.study_grid(n=[400], accuracies=[0.75], kappas=[0.5])
    >>> st = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95],
    ...                                 n_datasets=400, n_resamples=400, rng=1)
    >>> row = st.table.iloc[0]
    >>> bool(abs(row.coverage - 0.95) < 4 * row.coverage_se)
    True
    """
    points = _points(grid)
    methods = [v.check_choice(m, "methods", CI_METHODS) for m in methods]
    levels = [v.check_confidence_level(c) for c in confidence_levels]
    r = v.check_positive_int(n_datasets, "n_datasets")
    b = v.check_positive_int(n_resamples, "n_resamples", minimum=2)
    gen = v.check_rng(rng)
    children = gen.spawn(len(points))
    rows = []
    t0 = time.perf_counter()
    for i, (pt, g) in enumerate(zip(points.itertuples(index=False), children)):
        truth = pt.kappa
        cells = cell_probabilities(truth, pt.accuracy_a, pt.accuracy_b)
        tables = multinomial_tables(cells, pt.n, size=r, rng=g)
        estimate = kappa_from_counts(tables)
        dists = {}
        if any(m not in ("jeffreys", "analytic") for m in methods):
            dists["bootstrap"] = multinomial_tables(tables / pt.n, pt.n, size=b, rng=g, order_free=True,
                                                    statistic=kappa_from_counts)
        if "jeffreys" in methods:
            dists["jeffreys"] = posterior_tables(tables, b, rng=g, statistic=kappa_from_counts)
        for m in methods:
            dist = None if m == "analytic" else dists["jeffreys" if m == "jeffreys" else "bootstrap"]
            undefined_reps = 0.0 if dist is None else float(np.isnan(dist).mean())
            for level in levels:
                opts = check_options(level, m, "fisher", b, False, g)
                lo, hi, _ = kappa_intervals(tables, estimate, dist, opts)
                has = ~np.isnan(lo) & ~np.isnan(hi)
                k = int(has.sum())
                below = hi[has] < truth - _TOL  # interval entirely below the truth
                above = lo[has] > truth + _TOL
                cov = 1 - (below.sum() + above.sum()) / k if k else np.nan
                rows.append(dict(
                    n=pt.n, accuracy_a=pt.accuracy_a, accuracy_b=pt.accuracy_b, kappa=truth, method=m,
                    confidence_level=level, coverage=cov, coverage_se=float(_rate_se(cov, max(k, 1))),
                    miss_below=below.sum() / k if k else np.nan, miss_above=above.sum() / k if k else np.nan,
                    mean_width=float(np.mean(hi[has] - lo[has])) if k else np.nan,
                    share_no_interval=1 - k / r, share_undefined_estimate=float(np.isnan(estimate).mean()),
                    share_undefined_replicates=undefined_reps,
                ))
        if progress is not None:
            progress("coverage", i + 1, len(points))
    return CoverageStudy(table=pd.DataFrame(rows), n_datasets=r, n_resamples=b,
                         wall_time=time.perf_counter() - t0)


def _unique_apply(tables: NDArray, fn) -> NDArray:
    """Apply ``fn`` to the distinct tables only and spread the results back."""
    flat = tables.reshape(len(tables), -1)
    uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
    return np.asarray(fn(uniq.reshape((-1,) + tables.shape[1:])))[inverse.reshape(-1)]


@records_seed
def type_one_error_study(
    grid: pd.DataFrame | None = None,
    *,
    tests: Sequence[str] = INDEPENDENCE_TESTS,
    alphas: Sequence[float] = (0.05, 0.01),
    n_datasets: int = 2000,
    n_resamples: int = 1000,
    boschloo_max_n: int = 50,
    rng: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> TypeOneErrorStudy:
    """Rejection rate of every test of κ = 0 on data simulated with κ = 0.

    Independent observers with the grid's accuracies (the κ = 0 points of ``grid``);
    each simulated table is tested by :func:`trialwise._stats.significance.independence_pvalues`
    (tables that occur more than once are tested once; the Monte-Carlo copy-null
    p-value of a repeated table is then shared). Boschloo's test costs O(n²) per table
    and runs only where ``n ≤ boschloo_max_n``.

    Parameters
    ----------
    grid : DataFrame, optional
        Columns ``n, accuracy_a, accuracy_b, kappa`` (default :func:`study_grid`); only
        its κ = 0 points are simulated.
    tests : sequence of str
        Tests of κ = 0 (default: all of :data:`trialwise._stats.significance.INDEPENDENCE_TESTS`).
    alphas : sequence of float, default (0.05, 0.01)
        Levels at which rejections are counted.
    n_datasets : int, default 2000
        Simulated experiments per grid point.
    n_resamples : int, default 1000
        Monte-Carlo draws of the randomised tests.
    boschloo_max_n : int, default 50
        Largest n at which Boschloo's test is run.
    rng : seed or Generator, default None
        Seed or generator.
    progress : callable, optional
        Called as ``progress(label, points_done, points_total)`` after each grid point.

    Returns
    -------
    TypeOneErrorStudy
        ``table``: one row per (grid point, test, α) with ``rejection_rate`` (among
        experiments with a defined p-value), ``rejection_se`` and ``share_undefined``.

    Examples
    --------
    >>> import trialwise as tw
    >>> grid = tw.validity.study_grid(n=[160], accuracies=[0.75], kappas=[0.0])
    >>> st = tw.validity.type_one_error_study(grid, tests=["fisher"], alphas=[0.05], n_datasets=500, rng=0)
    >>> bool(st.table.rejection_rate.iloc[0] <= 0.05 + 3 * st.table.rejection_se.iloc[0])
    True
    """
    points = _points(grid, kappa_zero=True)
    tests = [v.check_choice(t, "tests", INDEPENDENCE_TESTS) for t in tests]
    alphas = list(v.check_probability(_as_list(alphas, "alphas"), "alphas", open_interval=True))
    r = v.check_positive_int(n_datasets, "n_datasets")
    m = v.check_positive_int(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    children = gen.spawn(len(points))
    rows = []
    t0 = time.perf_counter()
    for i, (pt, g) in enumerate(zip(points.itertuples(index=False), children)):
        tables = multinomial_tables(cell_probabilities(0.0, pt.accuracy_a, pt.accuracy_b), pt.n, size=r, rng=g)
        for t in tests:
            if t == "boschloo" and pt.n > boschloo_max_n:
                continue
            p = _unique_apply(tables, lambda u: independence_pvalues(u, test=t, n_resamples=m, rng=g)[0])
            rows.extend(_rejection_rows(dict(n=pt.n, accuracy_a=pt.accuracy_a, accuracy_b=pt.accuracy_b),
                                        t, p, alphas))
        if progress is not None:
            progress("type-I error", i + 1, len(points))
    return TypeOneErrorStudy(table=pd.DataFrame(rows), n_datasets=r, n_resamples=m,
                             wall_time=time.perf_counter() - t0)


def _rejection_rows(point: dict, test: str, p: NDArray, alphas) -> list[dict]:
    ok = ~np.isnan(p)
    k = int(ok.sum())
    out = []
    for a in alphas:
        rate = float(np.mean(p[ok] <= a)) if k else np.nan
        out.append(dict(point, test=test, alpha=float(a), rejection_rate=rate,
                        rejection_se=float(_rate_se(rate, max(k, 1))), share_undefined=1 - k / len(p)))
    return out


@records_seed
def difference_test_study(
    n: Sequence[int] = STUDY_N,
    accuracy_reference: Sequence[float] = (0.55, 0.75, 0.95),
    accuracies_xy: Sequence[tuple[float, float]] = ((0.75, 0.75), (0.65, 0.85)),
    kappas: Sequence[float] = (0.0, 0.5),
    *,
    tests: Sequence[str] = DIFFERENCE_TESTS,
    alphas: Sequence[float] = (0.05, 0.01),
    n_datasets: int = 2000,
    n_resamples: int = 1000,
    rng: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> TypeOneErrorStudy:
    """Rejection rate of the tests of κ(ref, X) = κ(ref, Y) when the two are equal.

    X and Y copy the reference independently with the same κ (the 8-cell model of
    :func:`trialwise.planning.power_difference`). With equal accuracies X and Y are exchangeable
    (the swap test's null); with unequal accuracies only their κ's are equal, which is
    the null the question is about: there the swap test (a test of exchangeability) rejects
    too often and the restricted Wald test (the default of
    :func:`trialwise.error_consistency_difference`) holds its level.

    Parameters
    ----------
    n : sequence of int, default STUDY_N
        Numbers of items.
    accuracy_reference : sequence of float, default (0.55, 0.75, 0.95)
        Accuracies of the reference observer.
    accuracies_xy : sequence of (float, float), default ((0.75, 0.75), (0.65, 0.85))
        Accuracy pairs of X and Y.
    kappas : sequence of float, default (0.0, 0.5)
        The common κ of X and Y with the reference; unattainable points are skipped.
    tests : sequence of str
        Difference tests (default: all of ``DIFFERENCE_TESTS``, ``"restricted-wald"``,
        ``"swap"`` and ``"paper"``).
    alphas : sequence of float, default (0.05, 0.01)
        Levels at which rejections are counted.
    n_datasets : int, default 2000
        Simulated experiments per point.
    n_resamples : int, default 1000
        Swaps or bootstrap replicates per experiment (at least 2; unused by
        ``"restricted-wald"``, which draws nothing).
    rng : seed or Generator, default None
        Seed or generator.
    progress : callable, optional
        Called as ``progress(label, points_done, points_total)`` after each point.

    Returns
    -------
    TypeOneErrorStudy
        ``table`` with ``n, accuracy_reference, accuracy_x, accuracy_y, kappa, test,
        alpha, rejection_rate, rejection_se, share_undefined``.

    Examples
    --------
    >>> import trialwise as tw
    >>> st = tw.validity.difference_test_study(
    ...     n=[200], accuracy_reference=[0.75], accuracies_xy=[(0.75, 0.75)], kappas=[0.5],
    ...     tests=["swap"], alphas=[0.05], n_datasets=400, n_resamples=200, rng=0)
    >>> row = st.table.iloc[0]
    >>> row.test, bool(row.rejection_rate <= 0.05 + 3 * row.rejection_se)
    ('swap', True)
    """

    r = v.check_positive_int(n_datasets, "n_datasets")
    m = v.check_positive_int(n_resamples, "n_resamples", minimum=2)
    tests = [v.check_choice(t, "tests", DIFFERENCE_TESTS) for t in tests]
    points = []
    for size, a_ref, (a_x, a_y), k in itertools.product(n, accuracy_reference, accuracies_xy, kappas):
        ok = all(kappa_bounds(a_ref, a)[0] - _TOL <= k <= kappa_bounds(a_ref, a)[1] + _TOL for a in (a_x, a_y))
        if ok:
            points.append((int(size), float(a_ref), float(a_x), float(a_y), float(k)))
    if not points:
        raise InvalidValueError("no attainable point to simulate")
    gen = v.check_rng(rng)
    children = gen.spawn(len(points))
    rows = []
    t0 = time.perf_counter()
    for i, ((size, a_ref, a_x, a_y, k), g) in enumerate(zip(points, children)):
        cells = joint_cells(k, k, a_ref, a_x, a_y)
        counts = multinomial_cells(cells, size, size=r, rng=g, cell_ndim=3)
        point = dict(n=size, accuracy_reference=a_ref, accuracy_x=a_x, accuracy_y=a_y, kappa=k)
        for t in tests:
            p = difference_pvalues(counts, test=t, n_resamples=m, rng=g)
            rows.extend(_rejection_rows(point, t, p, alphas))
        if progress is not None:
            progress("difference tests", i + 1, len(points))
    return TypeOneErrorStudy(table=pd.DataFrame(rows), n_datasets=r, n_resamples=m,
                             wall_time=time.perf_counter() - t0)


# --------------------------------------------------------------------------- benchmark level


#: The simulated benchmark of :func:`benchmark_coverage_study`: per observer the probability
#: of a correct answer on an easy and on a hard item.
BENCHMARK_HUMANS = ((0.97, 0.35), (0.95, 0.45), (0.92, 0.30), (0.90, 0.50), (0.96, 0.40))
BENCHMARK_MODELS = {"m1": (0.98, 0.20), "m2": (0.95, 0.40), "m3": (0.90, 0.55), "m4": (0.80, 0.55), "x": (0.93, 0.30)}


def _latent_class_kappa(pi: float, p: tuple[float, float], q: tuple[float, float]) -> float:
    """Population κ of two observers who answer independently given the item's class (easy w.p. pi)."""
    a = pi * p[0] + (1 - pi) * p[1]
    b = pi * q[0] + (1 - pi) * q[1]
    p11 = pi * p[0] * q[0] + (1 - pi) * p[1] * q[1]
    return 2 * (p11 - a * b) / (a * (1 - b) + b * (1 - a))


def _true_score(obs: tuple[float, float], others: Sequence[tuple[float, float]], easy_share: NDArray) -> float:
    """Hierarchical mean (over the others, conditions, experiments) of the population κ's."""
    per_exp = [np.mean([np.mean([_latent_class_kappa(pi, obs, h) for h in others]) for pi in row])
               for row in easy_share]
    return float(np.mean(per_exp))


@records_seed
def benchmark_coverage_study(
    *,
    n_datasets: int = 200,
    n_resamples: int = 1000,
    n_items: int = 200,
    n_experiments: int = 2,
    n_conditions: int = 3,
    confidence_level: float = 0.95,
    alphas: Sequence[float] = (0.05,),
    reference_items: int | None = None,
    min_items: int = 20,
    ci_method: str = DEFAULT_CI_METHOD,
    run_tests: bool = True,
    simulated_humans: Sequence[tuple[float, float]] | None = None,
    y_hard: float = 0.42,
    score_difference: float = 0.0,
    rng: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> BenchmarkCoverageStudy:
    """Calibration of the leaderboard on simulated benchmarks with known true scores.

    Every condition has ``n_items`` items, each easy or hard (the share of easy items
    varies over conditions from 0.5 to 0.8); every observer answers independently given
    the item's class, with its own probability of being right on easy and on hard items
    (:data:`BENCHMARK_HUMANS`, :data:`BENCHMARK_MODELS`). Pairwise population κ's are
    then exact, and so is every true benchmark score (model-vs-human averaging). Model
    ``y`` is constructed to have exactly the true score of ``x`` (plus ``score_difference``)
    with a different accuracy. Each of ``n_datasets`` benchmarks is drawn afresh (items and answers) and
    analysed by :func:`trialwise.leaderboard`.

    ``reference_items`` makes the overlaps sparse: each reference observer (human) then
    sees its own random ``reference_items`` of every condition's ``n_items`` items (as in
    texture-vs-shape's texture-filled-rotated experiment), so two humans share about
    ``reference_items² / n_items`` items and a model shares ``reference_items`` with each
    human. ``min_items`` is the protocol's rule for pairs that share too few items
    (:class:`trialwise.leaderboards.Protocol`); ``ci_method`` the leaderboard's interval; ``run_tests=False``
    skips the x-vs-y tests (faster).

    Measured:

    * ``coverage``: per observer (and the human–human row), the share of benchmarks
      whose interval (``ci_method``) contains the true score; with the mean width, the
      mean estimate minus the truth (``bias``), the standard deviation of the estimates
      (``sd``) and the share of intervals that contain their own estimate
      (``contains_estimate``), all over the ``n_scored`` benchmarks where the row has a
      score (a reference row whose pairs all share fewer than ``min_items`` items has none);
    * ``ranks``: for each ``rank_set`` — ``marginal`` (the table's ``rank_low``/``rank_high``),
      ``simultaneous`` (``rank_set_low``/``rank_set_high``) and ``percentile`` (the
      equal-tailed interval of the bootstrap ranks, the table's interval before
      Mogstad et al. 2024) — per model the share whose set contains its true rank (tied
      true scores count as covered by any of their ranks) and the mean width (high − low),
      and the share where every model's set does ("all models at once"); the row
      ``best`` gives the share of benchmarks whose confidence set of the best
      (``in_best_set``) holds every truly best model, and its mean size (in ``mean_width``);
    * the row ``x − y`` of ``table``: the same for the interval of the difference of x's
      and y's scores (:meth:`trialwise.leaderboards.Leaderboard.difference`; true value 0), with
      ``accuracy`` the difference of their accuracies;
    * ``tests``: the rejection rate of x vs y (equal true scores, unequal accuracies) by
      every benchmark-level test but ``paper`` (:data:`trialwise.leaderboards.differences.BENCHMARK_TESTS`),
      at each α.

    Parameters
    ----------
    n_datasets : int, default 200
        Simulated benchmarks.
    n_resamples : int, default 1000
        Bootstrap replicates of each leaderboard (and swaps of its tests; at least 2).
    n_items : int, default 200
        Items per condition (at least 10).
    n_experiments, n_conditions : int, default 2 and 3
        Experiments of the benchmark and conditions per experiment.
    confidence_level : float, default 0.95
        Level of the intervals.
    alphas : sequence of float, default (0.05,)
        Levels of the x-vs-y tests.
    reference_items : int, optional
        Items each human sees per condition (sparse overlaps); default all ``n_items``.
    min_items : int, default 20
        The protocol's minimum number of shared items for a pair.
    ci_method : str, default "studentized"
        The leaderboard's interval method (default: the leaderboard's own default, so the
        study measures what users get).
    run_tests : bool, default True
        Run the x-vs-y tests (else ``tests`` is empty).
    simulated_humans : sequence of (float, float), optional
        The reference observers, each as its probabilities of being right on easy and on
        hard items (default :data:`BENCHMARK_HUMANS`: five humans); e.g. one human near
        ceiling, ``[(0.99, 0.80)]``, is the hardest design for the tests.
    y_hard : float, default 0.42
        Model y's probability of being right on hard items (x's is 0.30); its probability on
        easy items is solved for y's true score to equal x's (plus ``score_difference``), so
        ``y_hard`` sets the gap in accuracy between them.
    score_difference : float, default 0.0
        y's true score minus x's: 0 measures the tests' type-I error, anything else their
        power (and the ``x − y`` interval's coverage of ``−score_difference``).
    rng : seed or Generator, default None
        Seed or generator.
    progress : callable, optional
        Called as ``progress(label, done, total)`` after each benchmark.

    Returns
    -------
    BenchmarkCoverageStudy
        ``table`` (coverage), ``ranks`` and ``tests`` (DataFrames) with Monte-Carlo
        standard errors.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries.
    *Review of Economic Studies* 91(1), 476–518.

    Examples
    --------
    >>> import trialwise as tw
    >>> st = tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=50, n_items=40, n_experiments=1,
    ...                                           n_conditions=2, run_tests=False, rng=0)
    >>> st.table.observer.tolist()
    ['m1', 'm2', 'm3', 'm4', 'x', 'y', 'human–human']
    """
    from scipy.optimize import brentq

    r = v.check_positive_int(n_datasets, "n_datasets")
    b = v.check_positive_int(n_resamples, "n_resamples", minimum=2)
    m = b  # the swap tests use as many swaps as the bootstrap has replicates
    n = v.check_positive_int(n_items, "n_items", minimum=10)
    n_e = v.check_positive_int(n_experiments, "n_experiments")
    n_c = v.check_positive_int(n_conditions, "n_conditions")
    level = v.check_confidence_level(confidence_level)
    if reference_items is not None:
        reference_items = v.check_positive_int(reference_items, "reference_items", minimum=2)
        if reference_items > n:
            raise InvalidValueError(f"`reference_items` must be at most `n_items` ({n}); got {reference_items}")
    easy = np.linspace(0.5, 0.8, n_e * n_c).reshape(n_e, n_c)
    try:
        h_arr = np.asarray(BENCHMARK_HUMANS if simulated_humans is None else simulated_humans, dtype=float)
    except (TypeError, ValueError):
        h_arr = np.empty(0)
    if h_arr.ndim != 2 or h_arr.shape[0] < 1 or h_arr.shape[1] != 2 or not np.all((h_arr > 0) & (h_arr < 1)):
        raise InvalidValueError("`simulated_humans` must be a non-empty sequence of (p_easy, p_hard) pairs of "
                                f"probabilities in (0, 1); got {simulated_humans!r}")
    humans = [(float(a), float(b)) for a, b in h_arr]
    hard_y = float(v.check_probability(y_hard, "y_hard", open_interval=True))
    models = dict(BENCHMARK_MODELS)
    target = _true_score(models["x"], humans, easy)
    # y: right more often on hard items and less on easy ones than x (for y_hard > 0.30), same true score
    shift = float(score_difference)
    if not np.isfinite(shift):
        raise InvalidValueError(f"`score_difference` must be a finite number; got {score_difference!r}")
    gap = lambda pe: _true_score((pe, hard_y), humans, easy) - target - shift  # noqa: E731
    if gap(0.5) * gap(0.999) > 0:
        raise InvalidValueError(f"`y_hard`={y_hard!r}: no probability on easy items in [0.5, 0.999] gives y the true "
                                "score of x (plus `score_difference`) with these `simulated_humans`; choose y_hard "
                                "closer to 0.30 or a smaller `score_difference`")
    p_easy = brentq(gap, 0.5, 0.999)
    models["y"] = (float(p_easy), hard_y)
    params = np.array(humans + list(models.values()))  # (observers, 2)
    names = [f"h{i + 1}" for i in range(len(humans))] + list(models)
    kinds = ["human"] * len(humans) + ["model"] * len(models)
    truth = {name: _true_score(models[name], humans, easy) for name in models}
    pairs = list(itertools.combinations(humans, 2))
    truth["human–human"] = float(np.mean([np.mean([np.mean([_latent_class_kappa(pi, p, q) for p, q in pairs])
                                                   for pi in row]) for row in easy])) if pairs else np.nan
    cand = list(models)
    true_rank = {}
    for k in cand:  # ranks 1 = highest score; a tie spans its ranks
        above = sum(truth[o] > truth[k] + 1e-9 for o in cand)
        tied = sum(abs(truth[o] - truth[k]) <= 1e-9 for o in cand)
        true_rank[k] = (above + 1, above + tied)
    proto = MODEL_VS_HUMAN.replace(name="simulated", exclude={}, experiments=None, min_items=min_items)
    gen = v.check_rng(rng)
    children = gen.spawn(r)
    est: dict[str, list[float]] = {o: [] for o in truth}
    lo: dict[str, list[float]] = {o: [] for o in truth}
    hi: dict[str, list[float]] = {o: [] for o in truth}
    # per kind of rank set (Leaderboard.table's marginal rank_low/high, simultaneous rank_set_low/high,
    # and the bootstrap-rank percentile interval the table had before): per model covered? and width
    kinds_rs = {"marginal": ("rank_low", "rank_high"), "simultaneous": ("rank_set_low", "rank_set_high"),
                "percentile": None}
    rank_cov: dict[str, dict[str, list[bool]]] = {s: {k: [] for k in cand} for s in kinds_rs}
    rank_width: dict[str, dict[str, list[float]]] = {s: {k: [] for k in cand} for s in kinds_rs}
    best_true = [k for k in cand if true_rank[k][0] == 1]
    best_cov, best_size = [], []
    pvals: dict[BenchmarkTest, list[float]] = {t: [] for t in BENCHMARK_TESTS if t != "paper"}
    diff_est: list[float] = []
    diff_lo: list[float] = []
    diff_hi: list[float] = []
    t0 = time.perf_counter()
    cols: dict[str, list[Any]] = {c: [] for c in TRIAL_COLUMNS}
    # The layout of one dataset (everything but the answers) is the same every time.
    for e in range(n_e):
        for c in range(n_c):
            for j, name in enumerate(names):
                cols["experiment"] += [f"e{e}"] * n
                cols["condition"] += [f"c{c}"] * n
                cols["subject"] += [name] * n
                cols["observer_type"] += [kinds[j]] * n
                cols["image"] += [f"e{e}c{c}i{i}" for i in range(n)]
    layout = pd.DataFrame({k: cols[k] for k in ("experiment", "condition", "subject", "observer_type", "image")})
    layout["truth"] = ""
    layout["response"] = ""
    for d, g in enumerate(children):
        blocks = []
        for pi in easy.ravel():
            z = g.random(n) < pi  # easy items
            prob = np.where(z[None, :], params[:, :1], params[:, 1:])  # (observers, items)
            blocks.append((g.random(prob.shape) < prob).ravel())
        trials = layout.assign(correct=np.concatenate(blocks))[list(TRIAL_COLUMNS)]
        if reference_items is not None:  # each human keeps a random subset of every condition's items
            seen = np.ones((n_e * n_c, len(names), n), bool)
            seen[:, : len(humans)] = False
            picks = np.argsort(g.random((n_e * n_c, len(humans), n)), axis=-1)[..., :reference_items]
            np.put_along_axis(seen[:, : len(humans)], picks, True, axis=-1)
            trials = trials[seen.ravel()]
        lb = leaderboard(trials, proto, n_resamples=b, confidence_level=level, ci_method=ci_method, rng=g,
                         workers=1)
        tab = lb.table.set_index("observer")
        for o in truth:
            est[o].append(tab.loc[o, "score"])
            lo[o].append(tab.loc[o, "ci_low"])
            hi[o].append(tab.loc[o, "ci_high"])
        kc = len(lb.candidates)
        pct = rank_intervals(rank_scores(lb.replicates[:, :kc], higher_is_better=lb.higher_is_better), level)
        for kind, cols_rs in kinds_rs.items():
            for k in cand:
                if cols_rs is None:
                    rl, rh = int(pct[0][lb.candidates.index(k)]), int(pct[1][lb.candidates.index(k)])
                else:
                    rl, rh = int(tab.loc[k, cols_rs[0]]), int(tab.loc[k, cols_rs[1]])
                rank_cov[kind][k].append(rl <= true_rank[k][1] and rh >= true_rank[k][0])
                rank_width[kind][k].append(rh - rl)
        best_cov.append(all(bool(tab.loc[k, "in_best_set"]) for k in best_true))
        best_size.append(int(tab.loc[cand, "in_best_set"].astype(bool).sum()))
        if run_tests:
            for test in pvals:
                pvals[test].append(lb.difference("x", "y", test=test, n_resamples=m).pvalue)
            res = lb.difference("x", "y", test="bootstrap")  # the interval does not depend on the test
            diff_est.append(res.statistic)
            diff_lo.append(res.confidence_interval.low)
            diff_hi.append(res.confidence_interval.high)
        if progress is not None:
            progress("benchmark coverage", d + 1, r)
    rows = []
    intervals = {o: (est[o], lo[o], hi[o], truth[o]) for o in truth}
    if run_tests:
        intervals["x − y"] = (diff_est, diff_lo, diff_hi, truth["x"] - truth["y"])
    for o, (e_list, l_list, h_list, true) in intervals.items():
        e_, l_, h_ = (np.asarray(x, dtype=float) for x in (e_list, l_list, h_list))
        scored = np.isfinite(e_)  # a row has no score where none of its pairs shares min_items items
        e_, l_, h_ = e_[scored], l_[scored], h_[scored]
        n_ok = int(scored.sum())
        cov = float(np.mean((l_ <= true) & (true <= h_))) if n_ok else np.nan  # NaN: never scored
        if o == "x − y":
            acc = float(np.mean(easy * (models["x"][0] - models["y"][0]) + (1 - easy) * (models["x"][1] - hard_y)))
        else:
            p_easy, p_hard = params[names.index(o)] if o in models else (np.nan, np.nan)
            acc = float(np.mean(easy * p_easy + (1 - easy) * p_hard))
        rows.append(dict(observer=o, true_score=true, accuracy=acc,
                         coverage=cov, coverage_se=float(_rate_se(np.asarray(cov), np.asarray(max(n_ok, 1)))),
                         mean_width=float(np.mean(h_ - l_)) if n_ok else np.nan,
                         bias=float(np.mean(e_) - true) if n_ok else np.nan,
                         sd=float(np.std(e_, ddof=1)) if n_ok > 1 else np.nan,
                         contains_estimate=float(np.mean((l_ <= e_) & (e_ <= h_))) if n_ok else np.nan,
                         n_scored=n_ok))
    ranks = []
    for kind in kinds_rs:
        ranks += [dict(rank_set=kind, observer=k, true_rank=f"{true_rank[k][0]}" if true_rank[k][0] == true_rank[k][1]
                       else f"{true_rank[k][0]}–{true_rank[k][1]}", coverage=float(np.mean(rank_cov[kind][k])),
                       mean_width=float(np.mean(rank_width[kind][k]))) for k in cand]
        ranks.append(dict(rank_set=kind, observer="all models at once", true_rank="",
                          coverage=float(np.mean(np.all([rank_cov[kind][k] for k in cand], axis=0))),
                          mean_width=float(np.mean([rank_width[kind][k] for k in cand]))))
    ranks.append(dict(rank_set="best", observer="best set holds the best", true_rank="1",
                      coverage=float(np.mean(best_cov)), mean_width=float(np.mean(best_size))))
    rank_table = pd.DataFrame(ranks)
    rank_table["coverage_se"] = _rate_se(rank_table.coverage.to_numpy(), np.full(len(rank_table), r))
    test_rows = []
    for test, p_list in pvals.items() if run_tests else ():
        p = np.asarray(p_list, dtype=float)
        for a in alphas:
            rate = float(np.mean(p <= a))
            test_rows.append(dict(test=test, alpha=float(a), rejection_rate=rate,
                              rejection_se=float(_rate_se(np.asarray(rate), np.asarray(r)))))
    return BenchmarkCoverageStudy(table=pd.DataFrame(rows), n_datasets=r, n_resamples=b,
                                  wall_time=time.perf_counter() - t0, ranks=rank_table, tests=pd.DataFrame(test_rows),
                                  confidence_level=level, n_null_resamples=m)
