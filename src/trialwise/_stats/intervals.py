"""Confidence intervals from bootstrap distributions (percentile, basic, BCa, HDI) and Wald.

All functions are vectorised: a bootstrap distribution has shape ``(B, ...)`` with one
column per statistic (e.g. per observer pair), NaN marking undefined replicates, which
are left out of the quantiles (the caller counts and reports them).

The module is longer than 500 lines because it is the one place where intervals are formed
from replicates, jackknife values or standard errors: every statistic's interval goes
through :func:`interval`, so every method lives next to the others.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import Note
from trialwise._core.threads import map_threads, thread_budget

__all__ = [
    "FEW_CLUSTERS", "few_clusters_note",
    "CI_METHODS",
    "percentile_interval",
    "basic_interval",
    "bca_interval",
    "hdi_interval",
    "normal_quantile",
    "wald_interval",
    "studentized_interval",
    "studentized_replicates",
    "degenerate_standard_errors",
    "symmetric_studentized_interval",
    "symmetric_studentized_pvalue",
    "jackknife_standard_error",
    "jackknife_bias",
    "bias_correction_variance",
    "jackknife_acceleration",
    "jackknife_t_interval",
    "jackknife_t_pvalue",
    "interval",
]

#: Every interval method for κ. ``jeffreys`` is the equal-tailed interval of posterior
#: draws (:func:`trialwise._stats.resampling.posterior_tables`), computed like ``percentile``.
CIMethod = Literal["jeffreys", "bca", "percentile", "basic", "hdi", "analytic", "jackknife-t"]
CI_METHODS: tuple[CIMethod, ...] = get_args(CIMethod)


#: Bytes of replicates sorted per task by :func:`sorted_valid` (a block of columns stays in the CPU cache).
SORT_BLOCK_BYTES = 2**21


def sorted_valid(dist: ArrayLike) -> tuple[NDArray, NDArray]:
    """Each column sorted (NaN last) and its number of non-NaN values.

    A (B, columns) array of more than a few MB is sorted in blocks of columns of about
    :data:`SORT_BLOCK_BYTES` on :func:`~trialwise._core.threads.thread_budget` threads
    (numpy releases the GIL while sorting): the same numbers as ``np.sort(dist, axis=0)``,
    about 3× faster on 2 cores for the 10,000 × 1,770 replicates of 60 observers' pairs. The
    result has ``dist``'s memory order: a column-major ``dist`` (the pairwise engine's, each
    pair's replicates contiguous) sorts contiguous runs, 1.6–2.6× faster than along rows.

    Examples
    --------
    >>> s, k = sorted_valid(np.array([[3.0, np.nan], [1.0, 2.0]]))
    >>> s.tolist(), k.tolist()
    ([[1.0, 2.0], [3.0, nan]], [2, 1])
    """
    d = np.asarray(dist, dtype=float)
    if d.ndim != 2 or d.nbytes <= 2 * SORT_BLOCK_BYTES or thread_budget() == 1:
        out = np.sort(d, axis=0)  # NaN sorts last
    else:
        width = max(1, SORT_BLOCK_BYTES // max(1, 8 * d.shape[0]))
        starts = range(0, d.shape[1], width)
        out = np.empty_like(d)  # in d's memory order: a column-major d (the pairwise engine's) sorts contiguous runs

        def block(lo: int) -> None:
            part = out[:, lo:lo + width]
            part[...] = d[:, lo:lo + width]
            part.sort(axis=0)

        map_threads(block, starts)
    return out, _valid_count(out)


def _valid_count(s: NDArray) -> NDArray:
    """Non-NaN values of each column of ``s`` sorted along axis 0 (NaN last): counted only where the last is NaN."""
    if s.ndim == 0 or s.shape[0] == 0:
        return np.sum(~np.isnan(s), axis=0)
    count = np.full(s.shape[1:], s.shape[0], dtype=np.int64)
    some = np.isnan(s[-1])
    if some.any():
        count[some] = np.sum(~np.isnan(s[:, some]), axis=0)
    return count


def quantile_sorted(s: NDArray, k: NDArray, q: ArrayLike) -> NDArray:
    """Linear-interpolation quantile (numpy's default) of the first k rows of each column."""
    q = np.broadcast_to(np.asarray(q, dtype=float), k.shape)
    h = (np.maximum(k, 1) - 1) * q
    lo = np.floor(h).astype(np.intp)
    hi = np.minimum(lo + 1, np.maximum(k - 1, 0))
    frac = h - lo
    x_lo = np.take_along_axis(s, lo[None, ...], axis=0)[0]
    x_hi = np.take_along_axis(s, hi[None, ...], axis=0)[0]
    with np.errstate(invalid="ignore"):  # inf − inf between two infinite neighbours
        out = np.where(x_lo == x_hi, x_lo, x_lo + frac * (x_hi - x_lo))
    return np.where(k > 0, out, np.nan)


def percentile_interval(dist: ArrayLike, confidence_level: float = 0.95) -> tuple[NDArray, NDArray]:
    """Central interval of the bootstrap distribution: its α/2 and 1−α/2 quantiles.

    Examples
    --------
    >>> lo, hi = percentile_interval(np.arange(101.0), 0.9)
    >>> float(lo), float(hi)
    (5.0, 95.0)
    """
    return percentile_from_sorted(*sorted_valid(dist), confidence_level)


def percentile_from_sorted(s: NDArray, k: NDArray, confidence_level: float = 0.95) -> tuple[NDArray, NDArray]:
    """:func:`percentile_interval` of columns already sorted by :func:`sorted_valid` (its ``(s, k)``).

    For a caller that needs the sorted replicates for more (tail counts): one sort.

    Examples
    --------
    >>> lo, hi = percentile_from_sorted(*sorted_valid(np.arange(101.0)), 0.9)
    >>> float(lo), float(hi)
    (5.0, 95.0)
    """
    alpha = 1 - confidence_level
    return quantile_sorted(s, k, alpha / 2)[()], quantile_sorted(s, k, 1 - alpha / 2)[()]


def basic_interval(
    dist: ArrayLike, estimate: ArrayLike, confidence_level: float = 0.95, *, bounds=(-1.0, 1.0)
) -> tuple[NDArray, NDArray]:
    """Basic (reverse-percentile) interval ``[2θ̂ − q_{1−α/2}, 2θ̂ − q_{α/2}]``, clipped to ``bounds``.

    Examples
    --------
    >>> lo, hi = basic_interval(np.arange(101.0) / 100, 0.3, 0.9, bounds=(-1, 1))
    >>> round(float(lo), 2), round(float(hi), 2)
    (-0.35, 0.55)
    """
    lo, hi = percentile_interval(dist, confidence_level)
    est = np.asarray(estimate, dtype=float)
    return (np.clip(2 * est - hi, *bounds)[()], np.clip(2 * est - lo, *bounds)[()])


def bca_interval(
    dist: ArrayLike,
    estimate: ArrayLike,
    jackknife: ArrayLike,
    jackknife_weights: ArrayLike | None = None,
    confidence_level: float = 0.95,
) -> tuple[NDArray, NDArray]:
    """Bias-corrected and accelerated (BCa) interval (Efron 1987).

    Parameters
    ----------
    dist : array_like, shape (B, ...)
        Bootstrap replicates (NaN = undefined, left out).
    estimate : array_like, shape (...)
        The statistic on the original data.
    jackknife : array_like, shape (J, ...)
        Distinct leave-one-out values of the statistic (NaN ones are left out).
    jackknife_weights : array_like, shape (J, ...), optional
        How many items give each leave-one-out value (for a 2×2 table: the four cell
        counts). Default: equal weights.
    confidence_level : float

    Notes
    -----
    Bias correction ``z0 = Φ⁻¹(p0)`` with the mid-rank share
    ``p0 = (#{θ* < θ̂} + ½·#{θ* = θ̂}) / B``, which keeps ``z0 = 0`` for a
    distribution with a point mass at θ̂ (scipy's ``#{θ* < θ̂}/B`` gives NaN or a
    one-sided interval there, which is common for κ near floor and ceiling).
    ``p0`` is kept inside ``[1/(2B), 1 − 1/(2B)]``. Acceleration from the jackknife
    (:func:`jackknife_acceleration`). The interval is the pair of
    bootstrap quantiles at ``Φ(z0 + (z0 + z_α)/(1 − a(z0 + z_α)))`` for
    ``z_α = Φ⁻¹(α/2)`` and ``Φ⁻¹(1 − α/2)``.
    """
    d = np.asarray(dist, dtype=float)
    est = np.asarray(estimate, dtype=float)
    s, k = sorted_valid(d)
    valid = ~np.isnan(d)
    below = np.sum(valid & (d < est), axis=0)
    ties = np.sum(valid & (d == est), axis=0)
    kk = np.maximum(k, 1)
    p0 = np.clip((below + 0.5 * ties) / kk, 0.5 / kk, 1 - 0.5 / kk)
    z0 = ndtri(p0)

    accel = jackknife_acceleration(jackknife, jackknife_weights)
    alpha = 1 - confidence_level
    levels = []
    for z_alpha in (ndtri(alpha / 2), ndtri(1 - alpha / 2)):
        zs = z0 + z_alpha
        denom = np.maximum(1 - accel * zs, 1e-12)
        levels.append(ndtr(z0 + zs / denom))
    return quantile_sorted(s, k, levels[0])[()], quantile_sorted(s, k, levels[1])[()]


def hdi_interval(dist: ArrayLike, confidence_level: float = 0.95) -> tuple[NDArray, NDArray]:
    """Shortest interval holding at least ``confidence_level`` of the replicates.

    Among the windows of ``m = ⌈level·k⌉`` consecutive sorted replicates (k defined
    ones), the narrowest; ties go to the lowest window.

    Examples
    --------
    >>> lo, hi = hdi_interval(np.r_[np.zeros(90), np.arange(1.0, 11)], 0.9)
    >>> float(lo), float(hi)
    (0.0, 0.0)
    """
    s, k = sorted_valid(dist)
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    s2 = s.reshape(s.shape[0], -1)
    k1, lo1, hi1 = k.reshape(-1), lo.reshape(-1), hi.reshape(-1)
    for kv in np.unique(k1):
        if kv == 0:
            continue
        cols = np.flatnonzero(k1 == kv)
        m = int(np.ceil(confidence_level * kv - 1e-9))
        m = min(max(m, 1), kv)
        block = s2[:kv, cols]
        widths = block[m - 1 :] - block[: kv - m + 1]
        start = np.argmin(widths, axis=0)
        lo1[cols] = block[start, np.arange(cols.size)]
        hi1[cols] = block[start + m - 1, np.arange(cols.size)]
    return lo1.reshape(k.shape)[()], hi1.reshape(k.shape)[()]


def normal_quantile(confidence_level: ArrayLike) -> NDArray:
    """``z_{1−α/2} = Φ⁻¹(1/2 + level/2)``, the normal quantile of a two-sided interval at ``confidence_level``.

    The one place trialwise turns a confidence level into a normal quantile: Wald intervals
    (:func:`wald_interval`), the inverted Wald test of the EC difference, the half-widths of
    the planning functions. ``1/2 + level/2`` is rounded once; for levels ≥ 1/2 it is the same
    float as ``1 − (1 − level)/2`` (``1 − level`` is exact there), below 1/2 it is the more
    accurate of the two.

    Examples
    --------
    >>> round(float(normal_quantile(0.95)), 6)
    1.959964
    """
    return ndtri(0.5 + np.asarray(confidence_level, dtype=float) / 2)[()]


def wald_interval(
    estimate: ArrayLike, standard_error: ArrayLike, confidence_level: float = 0.95, *,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> tuple[NDArray, NDArray]:
    """The Wald interval ``θ̂ ± z_{1−α/2}·SE``, clipped to ``bounds``: every estimate ± z·SE of trialwise.

    ``z`` is :func:`normal_quantile`. An interval on a transformed scale (log odds ratio,
    Fisher's z) is this interval there, mapped back by the caller.

    Examples
    --------
    >>> lo, hi = wald_interval(0.5, 0.1, 0.95)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.304, 0.696)
    >>> [float(x) for x in wald_interval(0.95, 0.05, 0.95, bounds=(0, 1))]
    [0.8520018007729973, 1.0]
    """
    est = np.asarray(estimate, dtype=float)
    half = normal_quantile(confidence_level) * np.asarray(standard_error, dtype=float)
    return np.clip(est - half, *bounds)[()], np.clip(est + half, *bounds)[()]


#: A replicate's standard error below this fraction of the data's counts as 0 in
#: :func:`studentized_interval` (its t* is ±∞).
DEGENERATE_SE = 1e-8


def studentized_interval(
    dist: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_error: ArrayLike,
    confidence_level: float = 0.95,
) -> tuple[NDArray, NDArray]:
    """Bootstrap-t (studentized) interval ``[θ̂ − q_{1−α/2}(t*)·SE, θ̂ − q_{α/2}(t*)·SE]``.

    Parameters
    ----------
    dist : array_like, shape (B, ...)
        Bootstrap replicates θ* (NaN = undefined, left out).
    estimate : array_like, shape (...)
        The statistic θ̂ on the data.
    standard_error : array_like, shape (...)
        Its standard error SE on the data.
    replicate_standard_error : array_like, shape (B, ...)
        The standard error SE* computed the same way on every replicate.
    confidence_level : float

    Notes
    -----
    ``t* = (θ* − θ̂) / SE*`` (Efron & Tibshirani 1993, ch. 12.5); replicates with an
    undefined θ* are left out of its quantiles. Where SE* is 0 (below
    :data:`DEGENERATE_SE` × SE: the statistic is locally constant on that replicate) t* is
    ±∞, so when more than α/2 of the replicates are such on one side, the interval is
    unbounded there: the data cannot studentize the statistic (the leaderboard then uses
    ``bc`` for that score and says so). The
    interval corrects the bias and the skewness of θ̂ to second order, where the
    percentile interval only reproduces them; it needs an SE that can be computed on
    every replicate (for benchmark scores, the infinitesimal jackknife:
    :func:`trialwise.leaderboards.bootstrap.bootstrap_entries_ij`).

    Examples
    --------
    >>> t = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    >>> lo, hi = studentized_interval(0.5 + 0.1 * t, 0.5, 0.1, np.full(5, 0.1), 0.5)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.4, 0.6)
    """
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(standard_error, dtype=float)
    s, k = sorted_valid(studentized_replicates(dist, estimate, standard_error, replicate_standard_error))
    alpha = 1 - confidence_level
    q_lo, q_hi = quantile_sorted(s, k, alpha / 2), quantile_sorted(s, k, 1 - alpha / 2)
    return (est - q_hi * se)[()], (est - q_lo * se)[()]


def studentized_replicates(dist: ArrayLike, estimate: ArrayLike, standard_error: ArrayLike,
                           replicate_standard_error: ArrayLike) -> NDArray:
    """The bootstrap-t replicates ``t* = (θ* − θ̂) / SE*``, shape (B, ...).

    Where SE* is 0 (below :data:`DEGENERATE_SE` × SE: the statistic is locally constant on
    that replicate, e.g. a table that turned degenerate) t* is ±∞, and undefined (NaN)
    where also θ* = θ̂; an undefined θ* gives NaN.
    """
    d = np.asarray(dist, dtype=float)
    se_rep = np.asarray(replicate_standard_error, dtype=float)
    dev = d - np.asarray(estimate, dtype=float)
    flat = degenerate_standard_errors(standard_error, replicate_standard_error)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(flat, np.where(dev == 0, np.nan, np.sign(dev) * np.inf), dev / se_rep)


def degenerate_standard_errors(standard_error: ArrayLike, replicate_standard_error: ArrayLike) -> NDArray:
    """Where a replicate's SE* counts as 0: ``SE* ≤ DEGENERATE_SE · SE`` (shape of SE*).

    The one test of a degenerate SE* behind every studentized interval and test
    (:func:`studentized_replicates`). The threshold is relative to the data's SE: an SE*
    that should be 0 (a replicate that drew a single cluster in every condition, so no
    item moves the statistic) comes out of the infinitesimal jackknife as a rounding
    residue of the order of machine epsilon times the scores (measured: 8e-15 to 2e-14 of
    SE on the two-clusters board of docs/benchmark.md, "Degenerate designs", where the
    smallest other SE* was 0.39 of SE); 1e-8 lies between the two with orders of magnitude
    to spare on either side. Where SE is 0 on the data, only an SE* of 0 counts.
    """
    se = np.asarray(standard_error, dtype=float)
    se_rep = np.asarray(replicate_standard_error, dtype=float)
    with np.errstate(invalid="ignore"):
        return se_rep <= DEGENERATE_SE * se


def symmetric_studentized_interval(
    dist: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_error: ArrayLike,
    confidence_level: float = 0.95,
) -> tuple[NDArray, NDArray]:
    """Symmetric bootstrap-t interval ``θ̂ ± a·SE``: the values θ₀ that
    :func:`symmetric_studentized_pvalue` does not reject at ``α = 1 − confidence_level``.

    Parameters
    ----------
    dist, estimate, standard_error, replicate_standard_error, confidence_level
        As in :func:`studentized_interval`.

    Notes
    -----
    ``a`` is the m-th largest ``|t*|`` of the n defined replicates, with m the smallest
    integer above ``α(n + 1) − 1`` — so the interval and the test are exactly dual: θ₀
    is inside if and only if ``(1 + #{|t*| ≥ |θ̂ − θ₀|/SE}) / (n + 1) > α``. Unlike the
    equal-tailed :func:`studentized_interval`, it does not follow the skewness of t*; it
    holds its level better when the bias of θ̂ is large against its spread (Hall 1988,
    "On symmetric bootstrap confidence intervals", JRSS-B 50:35–45), as for differences
    of benchmark scores. Where fewer than m replicates are defined, or the m-th largest
    ``|t*|`` is infinite, the interval is unbounded.

    Examples
    --------
    >>> t = np.array([-3.0, -1.0, 0.0, 1.0, 2.0])
    >>> lo, hi = symmetric_studentized_interval(0.5 + 0.1 * t, 0.5, 0.1, np.full(5, 0.1), 0.6)
    >>> round(float(lo), 3), round(float(hi), 3)
    (0.3, 0.7)
    """
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(standard_error, dtype=float)
    s, k = sorted_valid(np.abs(studentized_replicates(dist, estimate, standard_error, replicate_standard_error)))
    alpha = 1 - confidence_level
    m = np.floor(alpha * (k + 1) - 1).astype(np.intp) + 1  # the smallest integer above α(n+1) − 1
    pos = k - np.maximum(m, 1)
    a = np.take_along_axis(s, np.maximum(pos, 0)[None, ...], axis=0)[0]
    a = np.where((pos < 0) | (m < 1), np.inf, a)
    with np.errstate(invalid="ignore"):
        half = np.where(se > 0, a * se, np.where(np.isinf(a), np.inf, 0.0))
    return (est - half)[()], (est + half)[()]


def symmetric_studentized_pvalue(
    dist: ArrayLike,
    estimate: ArrayLike,
    standard_error: ArrayLike,
    replicate_standard_error: ArrayLike,
    null: ArrayLike = 0.0,
) -> NDArray:
    """Two-sided bootstrap-t p-value of H0 ``θ = null``: ``(1 + #{|t*| ≥ |t|}) / (1 + n)``.

    ``t = (θ̂ − null) / SE`` on the data, ``t*`` as in :func:`studentized_replicates`, n
    the defined replicates (Hall 1992, *The Bootstrap and Edgeworth Expansion*, §3.6:
    the symmetric test's level error is O(n⁻²) where the equal-tailed one's is O(n⁻¹)).
    With SE = 0, ``|t|`` is ∞ (0 where θ̂ = null). The test
    :func:`symmetric_studentized_interval` inverts.

    Examples
    --------
    >>> t = np.array([-3.0, -1.0, 0.0, 1.0, 2.0])
    >>> float(symmetric_studentized_pvalue(0.5 + 0.1 * t, 0.5, 0.1, np.full(5, 0.1), null=0.35))
    0.5
    """
    est = np.asarray(estimate, dtype=float)
    se = np.asarray(standard_error, dtype=float)
    t_abs = np.abs(studentized_replicates(dist, estimate, standard_error, replicate_standard_error))
    dev = np.abs(est - np.asarray(null, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        t0 = np.where(se > 0, dev / np.where(se > 0, se, 1.0), np.where(dev > 0, np.inf, 0.0))
    n = np.sum(~np.isnan(t_abs), axis=0)
    with np.errstate(invalid="ignore"):
        hits = np.sum(t_abs >= t0, axis=0)
    return np.where(n > 0, (1.0 + hits) / (1.0 + n), np.nan)[()]


def _centred(jackknife: NDArray, weights: ArrayLike | None = None) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """The jackknife's one kernel: the weighted mean θ̄ of leave-one-out values and the deviations ``θ̄ − θ_(j)``.

    ``jackknife`` (J, ...) holds the statistic with each unit (an item, or a cluster of
    items) left out; ``weights`` (J, ...) how many units give each value (for a 2×2 table:
    its four cell counts, :func:`trialwise._stats.resampling.jackknife_tables`; default 1
    each). Values that are not finite, or have no weight, are left out: their deviation and
    weight are 0. Returns ``(mean, deviations, weights, G)``, G (the number of units) the
    sum of the weights kept. The standard error, the bias and the BCa acceleration below are
    moments of these deviations.
    """
    w = np.ones_like(jackknife) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float),
                                                                          jackknife.shape)
    ok = np.isfinite(jackknife) & (w > 0)
    w = np.where(ok, w, 0.0)
    g = w.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (w * np.where(ok, jackknife, 0.0)).sum(axis=0) / g
        return mean, np.where(ok, mean - jackknife, 0.0), w, g


def _strata_rows(n: int, strata: ArrayLike | None) -> list[NDArray | slice]:
    """The rows of each stratum (all rows when there are none)."""
    if strata is None:
        return [slice(None)]
    s = np.asarray(strata)
    if s.shape != (n,):
        raise InvalidValueError(f"`strata` must have one label per leave-one-out value ({n}); got shape {s.shape}")
    return [s == h for h in np.unique(s)]


def jackknife_standard_error(jackknife: ArrayLike, weights: ArrayLike | None = None, *,
                             strata: ArrayLike | None = None) -> tuple[NDArray, NDArray]:
    """The jackknife standard error of a statistic and its number of units, from leave-one-unit-out values.

    ``jackknife`` (J, ...) holds the statistic with each unit (an item, or a cluster of items)
    left out; ``weights`` (J, ...) how many units give each value (for a 2×2 table: its four
    cell counts; default 1 each). Values that are not finite, and units without weight, are
    left out. ``SE = √((G − 1)/G · Σ_j w_j (θ_(j) − θ̄)²)`` with the
    weighted mean θ̄ (Efron & Stein 1981; for clusters the CV3 variance of MacKinnon, Nielsen &
    Webb 2023). With ``strata`` (J,), units left out within their stratum h, the variances add
    over the strata: ``SE² = Σ_h (G_h − 1)/G_h · Σ_{j∈h} w_j (θ_(j) − θ̄_h)²`` (Wolter 2007,
    ch. 4), a stratum with fewer than two units counting for nothing. Returns ``(se, G)``,
    G the units that count; ``se`` is NaN where G < 2.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> se, g = jackknife_standard_error((x.sum() - x) / 3)   # the mean's: s / √n
    >>> bool(np.isclose(se, x.std(ddof=1) / 2)), float(g)
    (True, 4.0)
    """
    jk = np.asarray(jackknife, dtype=float)
    w_all = None if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), jk.shape)
    var, units = np.zeros(jk.shape[1:]), np.zeros(jk.shape[1:])
    for rows in _strata_rows(jk.shape[0], strata):
        _, dev, w, g = _centred(jk[rows], None if w_all is None else w_all[rows])
        with np.errstate(invalid="ignore", divide="ignore"):
            var = var + np.where(g >= 2, (g - 1) / g * (w * dev**2).sum(axis=0), 0.0)
        units = units + np.where(g >= 2, g, 0.0)
    return np.where(units >= 2, np.sqrt(var), np.nan), units


def jackknife_bias(estimate: ArrayLike, jackknife: ArrayLike, *, strata: ArrayLike | None = None) -> NDArray:
    """The jackknife estimate of a statistic's bias, ``(G − 1)(θ̄ − θ̂)`` (Quenouille 1956).

    With ``strata``, units left out within their stratum: ``Σ_h (G_h − 1)(θ̄_h − θ̂)``, a
    stratum with fewer than two finite values counting for nothing. ``θ̂ − bias`` is the
    bias-corrected estimate.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> var = lambda v: ((v - v.mean()) ** 2).mean()        # the plug-in variance, biased by −σ²/n
    >>> jack = np.array([var(np.delete(x, i)) for i in range(4)])
    >>> bool(np.isclose(var(x) - jackknife_bias(var(x), jack), x.var(ddof=1)))
    True
    """
    jk = np.asarray(jackknife, dtype=float)
    est = np.asarray(estimate, dtype=float)
    bias = np.zeros(np.broadcast_shapes(est.shape, jk.shape[1:]))
    for rows in _strata_rows(jk.shape[0], strata):
        mean, _, _, g = _centred(jk[rows])
        with np.errstate(invalid="ignore"):
            bias = bias + np.where(g >= 2, (g - 1) * (mean - est), 0.0)
    return bias[()]


def bias_correction_variance(one: ArrayLike, two: ArrayLike) -> NDArray:
    """The variance a jackknife bias correction adds, by a second-level delete-a-group jackknife.

    The bias-corrected estimate ``θ̃ = θ̂ − b`` varies more than ``θ̂`` when the bias estimate
    ``b`` is noisy or moves with ``θ̂``: ``Var θ̃ = Var θ̂ + Var b − 2 Cov(θ̂, b)``, and the
    first-level jackknife SE sees only ``Var θ̂``. Here the units are dealt to G groups, and
    the whole bias-corrected procedure is jackknifed over them: a second-level (iterated)
    jackknife, the jackknife's bias and variance estimators of Efron & Tibshirani (1993,
    ch. 10–11) and Shao & Tu (1995, ch. 2) applied to ``θ̃``, with Kott's (2001) delete-a-group
    jackknife for the units, so it costs G(G + 1)/2 evaluations: with group ``a`` left
    out the corrected value is ``θ̃_(a) = θ̂_(a) − (G − 2)(θ̄_(a·) − θ̂_(a))``, ``θ̄_(a·)`` the
    mean over the other groups ``c`` of ``θ̂_(ac)`` (groups ``a`` and ``c`` left out). The
    result is ``v(θ̃_(·)) − v(θ̂_(·))`` with the delete-a-group variance ``v(x) = (G − 1)/G ·
    Σ_a (x_a − x̄)²``: the correction's share of the variance, to add to a first-level
    jackknife variance (the caller floors it at 0).

    Parameters
    ----------
    one : array_like, shape (G, ...)
        The statistic with each group left out.
    two : array_like, shape (G, G, ...)
        The statistic with each pair of groups left out (symmetric; the diagonal is not read).

    Returns
    -------
    numpy.ndarray, shape (...)
        NaN where a value is not finite or G < 3.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 4.0, 7.0, 11.0])           # five groups of one value
    >>> plug_in = lambda v: v.var()                        # corrected by the jackknife to s²
    >>> one = np.array([plug_in(np.delete(x, a)) for a in range(5)])
    >>> two = np.array([[plug_in(np.delete(x, [a, c])) for c in range(5)] for a in range(5)])
    >>> round(float(bias_correction_variance(one, two)), 3)
    47.323
    """
    t1 = np.asarray(one, dtype=float)
    t2 = np.asarray(two, dtype=float)
    g = t1.shape[0]
    if g < 3 or t2.shape[:2] != (g, g):
        return np.full(t1.shape[1:], np.nan)[()]
    off = ~np.eye(g, dtype=bool).reshape((g, g) + (1,) * (t1.ndim - 1))
    others = np.where(off, t2, 0.0).sum(axis=1) / (g - 1)  # θ̄_(a·): the mean over c ≠ a
    corrected = t1 - (g - 2) * (others - t1)

    def var(x: NDArray) -> NDArray:
        return (g - 1) / g * ((x - x.mean(axis=0)) ** 2).sum(axis=0)

    return (var(corrected) - var(t1))[()]


def jackknife_acceleration(jackknife: ArrayLike, weights: ArrayLike | None = None) -> NDArray:
    """The acceleration of a BCa interval from leave-one-out values (Efron 1987).

    ``a = Σ w (θ̄ − θ_(j))³ / (6 [Σ w (θ̄ − θ_(j))²]^{3/2})`` over the finite values with
    their weights (as in :func:`jackknife_standard_error`); 0 where they have no spread.

    Examples
    --------
    >>> round(float(jackknife_acceleration([0.0, 0.0, 0.0, 1.0])), 4)
    -0.0962
    """
    _, dev, w, _ = _centred(np.asarray(jackknife, dtype=float), weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        num = (w * dev**3).sum(axis=0)
        den = 6.0 * (w * dev**2).sum(axis=0) ** 1.5
        return np.where(den > 0, num / den, 0.0)


#: Fewer clusters than this: the independent units of a clustered interval are too few for it, or
#: the tests, to hold their level (docs/validity.md, "Clustered items").
FEW_CLUSTERS = 10


def few_clusters_note(n_clusters: int) -> Note | None:
    """The ``coverage`` note of an interval or test over fewer than :data:`FEW_CLUSTERS` clusters
    (None from :data:`FEW_CLUSTERS` on); the caller warns with its text."""
    if n_clusters >= FEW_CLUSTERS:
        return None
    return Note(f"only {n_clusters} clusters, the independent units of the intervals and tests: with fewer than "
                f"{FEW_CLUSTERS} they are unreliable (too narrow; docs/validity.md, 'Clustered items')",
                "coverage", {"n_clusters": int(n_clusters), "few_clusters": FEW_CLUSTERS})


def jackknife_t_interval(estimate: ArrayLike, jackknife: ArrayLike, confidence_level: float = 0.95,
                         weights: ArrayLike | None = None, *,
                         strata: ArrayLike | None = None) -> tuple[NDArray, NDArray]:
    """``θ̂ ± t_{G−1, 1−α/2} · SE_jack``: the cluster-robust interval for few clusters.

    With G clusters resampled as units, bootstrap intervals of a ratio statistic such as
    κ run below their level when G is a few dozen or fewer (the bootstrap variance is
    biased down by (G − 1)/G and its distribution is too light-tailed); the jackknife
    variance over clusters with G − 1 degrees of freedom is the recommended remedy
    (MacKinnon, Nielsen & Webb 2023, §4–5; Bell & McCaffrey 2002).

    Parameters
    ----------
    estimate : array_like, shape (...)
    jackknife : array_like, shape (J, ...)
        Leave-one-cluster-out values (NaN = undefined, left out).
    confidence_level : float
    weights : array_like, shape (J, ...), optional
        Units per value, as in :func:`jackknife_standard_error`.
    strata : array_like, shape (J,), optional
        The stratum of each value, for units left out within strata (the stratified SE of
        :func:`jackknife_standard_error`; still G − 1 degrees of freedom).

    Returns
    -------
    tuple of numpy.ndarray
        Low and high ends; NaN where fewer than two leave-one-out values are finite.

    References
    ----------
    MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide
    to empirical practice. *Journal of Econometrics* 232(2), 272–299.

    Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
    regression with multi-stage samples. *Survey Methodology* 28(2), 169–181.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0, 4.0, 7.0])
    >>> jk = (x.sum() - x) / 3                       # the mean with each value left out
    >>> lo, hi = jackknife_t_interval(x.mean(), jk, 0.95)
    >>> from scipy import stats
    >>> ref = stats.ttest_1samp(x, 0).confidence_interval(0.95)   # for a mean: the t interval
    >>> bool(np.isclose(lo, ref.low)), bool(np.isclose(hi, ref.high))
    (True, True)
    """
    from scipy import stats

    est = np.asarray(estimate, dtype=float)
    se, g = jackknife_standard_error(jackknife, weights, strata=strata)
    with np.errstate(invalid="ignore"):
        t = stats.t.ppf(0.5 + confidence_level / 2, np.maximum(g - 1, 1))
        half = np.where(g >= 2, t * se, np.nan)
    return (est - half)[()], (est + half)[()]


def jackknife_t_pvalue(estimate: ArrayLike, jackknife: ArrayLike, null: float = 0.0,
                       weights: ArrayLike | None = None) -> NDArray:
    """One-sided p-value of ``θ ≤ null`` from the jackknife t statistic with G − 1 degrees of freedom.

    ``p = 1 − T_{G−1}((θ̂ − null) / SE_jack)``, the test :func:`jackknife_t_interval`'s
    one-sided version inverts; NaN where the SE is undefined, and 1 (0) where it is 0 and
    ``θ̂`` is at most (above) ``null``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = np.array([0.5, 1.5, 1.0, 2.5, -0.2])
    >>> p = jackknife_t_pvalue(x.mean(), (x.sum() - x) / 4)
    >>> bool(np.isclose(p, stats.ttest_1samp(x, 0, alternative="greater").pvalue))
    True
    """
    from scipy import stats

    est = np.asarray(estimate, dtype=float)
    se, g = jackknife_standard_error(jackknife, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, (est - null) / np.where(se > 0, se, 1.0), np.where(est > null, np.inf, -np.inf))
        p = stats.t.sf(t, np.maximum(g - 1, 1))
    return np.where((g >= 2) & np.isfinite(est), p, np.nan)[()]


def interval(
    method: str,
    dist: ArrayLike | None,
    estimate: ArrayLike,
    confidence_level: float = 0.95,
    *,
    jackknife: tuple[ArrayLike, ArrayLike | None] | None = None,
    standard_error: ArrayLike | None = None,
    replicate_standard_error: ArrayLike | None = None,
    bounds=(-1.0, 1.0),
) -> tuple[NDArray, NDArray]:
    """The interval of any method in :data:`CI_METHODS`, clipped to ``bounds``.

    ``dist`` (B, ...) holds bootstrap replicates, or posterior draws for ``jeffreys``;
    ``jackknife`` = (values, weights) is needed by ``bca`` (``bc`` is BCa without
    acceleration, so without a jackknife), and by ``jackknife-t`` (its values: leave-one-cluster-out
    statistics; :func:`jackknife_t_interval`); ``standard_error`` by
    ``analytic`` (the Wald interval); ``studentized`` (bootstrap-t) needs both
    ``standard_error`` and ``replicate_standard_error`` (B, ...), the SE of every
    replicate. Every statistic in trialwise goes through here.

    Examples
    --------
    >>> lo, hi = interval("percentile", np.arange(101.0) / 100, 0.5, 0.9, bounds=(0, 1))
    >>> float(lo), float(hi)
    (0.05, 0.95)
    """
    lower, upper = (np.asarray(b, dtype=float) for b in bounds)
    if method == "analytic":
        if standard_error is None:
            raise InvalidValueError("`standard_error` is needed by ci_method='analytic'")
        lo, hi = wald_interval(estimate, standard_error, confidence_level, bounds=(-np.inf, np.inf))
    elif dist is None:
        raise InvalidValueError(f"`dist` is needed by ci_method={method!r}")
    elif method in ("percentile", "jeffreys"):
        lo, hi = percentile_interval(dist, confidence_level)
    elif method == "basic":
        lo, hi = basic_interval(dist, estimate, confidence_level, bounds=(-np.inf, np.inf))
    elif method == "hdi":
        lo, hi = hdi_interval(dist, confidence_level)
    elif method == "bca":
        if jackknife is None:
            raise InvalidValueError("`jackknife` is needed by ci_method='bca'")
        values, weights = jackknife
        lo, hi = bca_interval(dist, estimate, values, weights, confidence_level)
    elif method == "studentized":
        if standard_error is None or replicate_standard_error is None:
            raise InvalidValueError("`standard_error` and `replicate_standard_error` are needed by "
                                    "ci_method='studentized'")
        lo, hi = studentized_interval(dist, estimate, standard_error, replicate_standard_error, confidence_level)
    elif method == "jackknife-t":
        if jackknife is None:
            raise InvalidValueError("`jackknife` is needed by ci_method='jackknife-t'")
        lo, hi = jackknife_t_interval(estimate, jackknife[0], confidence_level, jackknife[1])
    elif method == "bc":  # bias-corrected percentile: BCa without acceleration (the default of leaderboard differences)
        lo, hi = bca_interval(dist, estimate, np.zeros((1,) + np.shape(estimate)), None, confidence_level)
    else:
        raise InvalidValueError(f"`ci_method` must be one of {CI_METHODS}; got {method!r}")
    return np.clip(lo, lower, upper)[()], np.clip(hi, lower, upper)[()]
