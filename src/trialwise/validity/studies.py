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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._stats.bounds import attainable_kappa as kappa_bounds
from trialwise._stats.bounds import cell_probabilities
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.kappa import kappa_from_counts
from trialwise._stats.resampling import (
    multinomial_cells,
    multinomial_tables,
    posterior_tables,
)
from trialwise._stats.significance import INDEPENDENCE_TESTS, independence_pvalues
from trialwise._stats.streams import child_rngs, records_seed
from trialwise.ec.difference import DIFFERENCE_TESTS, difference_pvalues
from trialwise.ec.inference import check_options, kappa_intervals
from trialwise.planning.trials import joint_cells
from trialwise.validity.results import (
    CoverageStudy,
    TypeOneErrorStudy,
)

__all__ = ["STUDY_N", "STUDY_ACCURACIES", "STUDY_KAPPAS", "study_grid", "coverage_study", "type_one_error_study", "difference_test_study"]

#: The grid of the validity studies (docs/validity.md).
STUDY_N = (50, 160, 400, 1000, 4000)
STUDY_ACCURACIES = (0.55, 0.65, 0.75, 0.85, 0.95)
STUDY_KAPPAS = (0.0, 0.2, 0.5, 0.8)
_TOL = 1e-12


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


def rate_se(rate: ArrayLike, count: ArrayLike) -> NDArray:
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
    children = child_rngs(gen, len(points))
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
                    confidence_level=level, coverage=cov, coverage_se=float(rate_se(cov, max(k, 1))),
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
    children = child_rngs(gen, len(points))
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
                        rejection_se=float(rate_se(rate, max(k, 1))), share_undefined=1 - k / len(p)))
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
    children = child_rngs(gen, len(points))
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


