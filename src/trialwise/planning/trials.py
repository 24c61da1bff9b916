"""Planning experiments with the copy model: interval widths, trial counts and power.

Every answer here comes from simulating the copy model (Klein et al. 2025, *Quantifying
uncertainty in error consistency*, NeurIPS, §3.2): n trials of a pair
of observers with accuracies ``a_A``, ``a_B`` and error consistency κ are one multinomial
draw over the four cells of the 2×2 table, so a whole grid of designs (n × accuracies ×
κ, broadcast like numpy) is simulated in one call of the resampling engine.

Why this module is long: about 750 lines, the three planning questions (interval width,
trial count, power) share their simulation helpers; the results live in
:mod:`trialwise.planning.results`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise.ec.copymodel import CopyModel, check_n
from trialwise._stats.intervals import normal_quantile, percentile_interval, quantile_sorted, sorted_valid
from trialwise._core.results import ConfidenceInterval
from trialwise._stats.resampling import bootstrap_tables, multinomial_cells, multinomial_tables
from trialwise._stats.streams import records_seed, child_seed, keyed_rng
from trialwise.planning.results import CIWidthResult, CopyModelValidation, PlanResult, PowerResult
from trialwise._stats.kappa import kappa_kernel, kappa_variance
from trialwise._stats.kappa_derivatives import kappa_difference_variance
from trialwise._stats.bounds import cell_probabilities

__all__ = ["ci_width", "plan_trials", "power_difference", "validate_copy_model", "LITERATURE_TRIALS"]

#: Trial counts used in published EC studies (Klein et al. 2025, Fig. 3): Geirhos et al. 2021,
#: Ollikka et al. 2024, Li et al. 2025, Wiles et al. 2024.
LITERATURE_TRIALS = (147, 160, 600, 1280, 3222)
#: |bias| of κ̂ above which plan_trials adds a note.
BIAS_NOTE = 0.01
#: Default largest share of simulated experiments with an undefined κ̂ at an n that plan_trials answers.
MAX_SHARE_UNDEFINED = 0.05


def _simulated_kappa(cells: NDArray, n: NDArray, n_simulations: int, rng, workers) -> NDArray:
    return multinomial_tables(cells, n, size=n_simulations, rng=rng, statistic=kappa_kernel, workers=workers,
                              order_free=True)


def _degenerate(result: CIWidthResult) -> NDArray:
    """Grid points whose interval is degenerate: zero width, or undefined (no defined κ̂ at all)."""
    return ~(np.asarray(result.confidence_interval.high) > np.asarray(result.confidence_interval.low))


def _degenerate_message(result: CIWidthResult, where: NDArray) -> str:
    i = np.unravel_index(int(np.flatnonzero(where)[0]), where.shape) if where.ndim else ()
    n, a, b, k = (float(np.asarray(x)[i]) for x in (result.n, result.accuracy_a, result.accuracy_b, result.kappa))
    count = int(where.sum())
    at = "" if where.size == 1 else f"at {count} of {where.size} grid points, e.g. "
    return (f"ci_width: {at}n = {n:.0f} (accuracies {a:g} / {b:g}, κ = {k:g}): the interval of κ̂ is degenerate "
            "(zero width, or undefined): every simulated experiment gives the same κ̂ — e.g. 0 or undefined "
            "because an observer is always right or always wrong, as with n = 1 — so it says nothing about the "
            "precision of κ̂; use more trials")


@records_seed
def ci_width(
    n: ArrayLike,
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    kappa: ArrayLike,
    *,
    confidence_level: float = 0.95,
    n_simulations: int = 10_000,
    rng: Any = None,
    workers: int | None = None,
) -> CIWidthResult:
    """Expected interval, width and bias of κ̂ for a design, by copy-model simulation.

    Parameters
    ----------
    n : int or array_like of int
        Trials per experiment.
    accuracy_a, accuracy_b : array_like
        Accuracies of the two observers.
    kappa : array_like
        True error consistency; must be attainable with these accuracies.
    confidence_level : float, default 0.95
    n_simulations : int, default 10000
        Simulated experiments per grid point.
    rng : None, int or numpy.random.Generator
    workers : int, optional
        Threads (the result does not depend on it).

    Returns
    -------
    CIWidthResult
        Arrays of the broadcast shape: ``low``/``high`` (central ``confidence_level``
        interval of κ̂ over simulated experiments), ``width``, ``half_width`` (= width/2),
        ``mean``, ``median``, ``bias`` (mean κ̂ − κ), ``share_undefined`` (experiments
        in which both observers were error-free or both always wrong, so κ̂ is
        undefined; left out of the other numbers). ``to_frame()`` gives one row per
        grid point.

    Raises
    ------
    ValueError
        κ not attainable with the accuracies (the message gives the feasible range);
        parameters that cannot be broadcast against each other.

    Warns
    -----
    DegenerateDataWarning
        The interval of some grid point is degenerate: zero width (``low == high``,
        every simulated κ̂ between the quantiles is the same value) or undefined. At
        n = 1 it always is (each observer is trivially always right or always wrong, so
        κ̂ is 0 or undefined); a zero width then says nothing about precision.
        :func:`plan_trials` never answers such an n.

    Notes
    -----
    All four design parameters broadcast against each other (pass ``n[:, None]`` and
    ``accuracy[None, :]`` for a grid).

    Each simulated experiment is one multinomial draw of the four cells, so any n up to
    2**53 costs the same; κ̂ of a simulated table is exact in int64 arithmetic up to
    n = 2**31 and computed in float64 beyond (relative error ~1e-16, far below the
    sampling error), so intervals stay correct at n = 10**10–10**12.

    Examples
    --------
    >>> import trialwise as tw
    >>> r = tw.planning.ci_width(n=[100, 1000, 10_000], accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, rng=0)
    >>> r.half_width.round(3).tolist()
    [0.198, 0.062, 0.02]
    """
    result = _ci_width(n, accuracy_a, accuracy_b, kappa, confidence_level=confidence_level,
                       n_simulations=n_simulations, rng=rng, workers=workers)
    degenerate = _degenerate(result)
    if degenerate.any():
        warn(_degenerate_message(result, degenerate), DegenerateDataWarning)
    return result


def _ci_width(n: ArrayLike, accuracy_a: ArrayLike, accuracy_b: ArrayLike, kappa: ArrayLike, *,
              confidence_level: float, n_simulations: int, rng: Any, workers: int | None) -> CIWidthResult:
    """:func:`ci_width` without the warning (callers check :func:`_degenerate` themselves)."""
    level = v.check_confidence_level(confidence_level)
    n_sim = v.check_replicates(n_simulations, "n_simulations", why=SIMULATIONS_WHY)
    n_arr = check_n(n)
    v.check_broadcast(n_arr, accuracy_a, accuracy_b, kappa, names=("n", "accuracy_a", "accuracy_b", "kappa"))
    cells = cell_probabilities(kappa, accuracy_a, accuracy_b)
    k, a, b = np.broadcast_arrays(
        np.asarray(kappa, dtype=float), np.asarray(accuracy_a, dtype=float), np.asarray(accuracy_b, dtype=float)
    )
    dist = _simulated_kappa(cells, n_arr, n_sim, v.check_rng(rng), workers)
    shape = dist.shape[1:]
    flat = dist.reshape(n_sim, -1)
    srt, count = sorted_valid(flat)
    alpha = 1 - level
    lo, median, hi = (quantile_sorted(srt, count, q).reshape(shape) for q in (alpha / 2, 0.5, 1 - alpha / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.nansum(flat, axis=0) / count).reshape(shape)
    count = count.reshape(shape)
    grid = [np.broadcast_to(x, shape).astype(float) for x in (n_arr, a, b, k)]
    return CIWidthResult(
        n=grid[0].astype(np.int64),
        accuracy_a=grid[1],
        accuracy_b=grid[2],
        kappa=grid[3],
        confidence_interval=ConfidenceInterval(np.asarray(lo), np.asarray(hi)),
        statistic=mean,
        median=np.asarray(median),
        share_undefined=1 - count / n_sim,
        confidence_level=level,
        n_simulations=n_sim,
        distribution=dist,
    )


def _seeded(base: int, n: int) -> np.random.Generator:
    """One generator per evaluated n, so a search gives the same answer at the same n.

    The key n is part of the seed's entropy (``[base, n]``) rather than a spawn key; both give
    independent streams, and this one fixes the seeded plans."""
    return keyed_rng([base, int(n)])


def _smallest_n(ok: Callable[[int], bool], start: int, n_max: int) -> int | None:
    """Smallest n in [1, n_max] with ok(n), for a monotone ok; None if ok(n_max) fails.

    Doubles (or halves) from ``start`` to bracket the answer, then bisects.
    """
    hi = min(max(int(start), 1), n_max)
    if ok(hi):
        while True:
            if hi == 1:
                return 1
            lo = hi // 2
            if not ok(lo):
                break
            hi = lo
    else:
        while True:
            lo = hi
            if hi >= n_max:
                return None
            hi = min(2 * hi, n_max)
            if ok(hi):
                break
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


#: Public names of the search helpers, for the other planning modules (:mod:`trialwise.planning.questions`).
smallest_n = _smallest_n
seeded_rng = _seeded


#: Why one simulated data set is too few (the message of ``n_simulations=1``).
SIMULATIONS_WHY = "one simulated data set has no spread (a power of 0 or 1, an interval of no width)"


def check_design(cluster_size: Any, icc: Any, cluster_size_cv: Any) -> float:
    """The checked cluster design's effect ``1 + ((1 + cv²)·m̄ − 1)·ICC`` (:func:`trialwise.planning.design_effect`)."""
    for value, name in ((cluster_size, "cluster_size"), (icc, "icc"), (cluster_size_cv, "cluster_size_cv")):
        if isinstance(value, (bool, np.bool_)):
            raise InvalidTypeError(f"`{name}` must be a number, not True/False; got {value!r}")
    m = v.as_float_array(cluster_size, "cluster_size")
    if m.ndim != 0 or not float(m) >= 1:
        raise InvalidValueError(f"`cluster_size` must be a number >= 1 (the mean number of items per cluster); "
                                f"got {v.show(cluster_size)}")
    rho = v.check_probability(icc, "icc")
    cv = v.as_float_array(cluster_size_cv, "cluster_size_cv")
    if rho.ndim != 0:
        raise InvalidValueError(f"`icc` must be a single number in [0, 1]; got {v.show(icc)}")
    if cv.ndim != 0 or not float(cv) >= 0:
        raise InvalidValueError(f"`cluster_size_cv` must be a single number >= 0; got {v.show(cluster_size_cv)}")
    return 1 + ((1 + float(cv) ** 2) * float(m) - 1) * float(rho)


def _asymptotic_sd(cells: NDArray) -> NDArray:
    """√(n·Var κ̂) at the population table: the large-sample SD for one trial."""
    var, _ = kappa_variance(np.asarray(cells) * 1.0)
    return np.sqrt(np.clip(var, 0, None))


def _check_half_width(value: Any) -> float:
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"`half_width` must be a number in (0, 1) (half the width of the interval of κ); "
                        f"got {v.show(value)}")
    target = float(value)
    if not 0 < target < 1:           # NaN fails too
        raise InvalidValueError(f"`half_width` must be in (0, 1); got {value!r}")
    return target


@records_seed
def plan_trials(
    half_width: float,
    accuracy_a: float,
    accuracy_b: float,
    kappa: float,
    *,
    confidence_level: float = 0.95,
    n_simulations: int = 10_000,
    rng: Any = None,
    n_max: int = 1_000_000,
    reference_accuracies: Sequence[float] = (0.5, 0.75),
    max_share_undefined: float = MAX_SHARE_UNDEFINED,
) -> PlanResult:
    """Smallest number of trials whose expected interval for κ has the target half-width.

    Parameters
    ----------
    half_width : float
        Target half-width of the ``confidence_level`` interval of κ̂ (half its width),
        in (0, 1).
    accuracy_a, accuracy_b, kappa : float
        The expected design: accuracies and true error consistency. A is the
        reference (e.g. the human observer) for the alternatives below.
    confidence_level : float, default 0.95
    n_simulations : int, default 10000
        Simulated experiments per evaluated n.
    rng : None, int or numpy.random.Generator
    n_max : int, default 1000000
        Largest n searched.
    reference_accuracies : sequence of float, default (0.5, 0.75)
        Alternative accuracies of the reference A for which the required n is also
        computed, keeping the copy model's ``p_copy`` and B's latent accuracy fixed
        (so B's accuracy and κ change as the model says they would).
    max_share_undefined : float, default 0.05
        Largest share of simulated experiments with an undefined κ̂ (both observers
        error-free, or both always wrong) at an n that counts as reaching the target, in
        [0, 1]. Such an experiment gives no EC at all, so it fails the precision goal;
        ``1`` ignores them (the interval is then that of the experiments that have an EC).

    Returns
    -------
    PlanResult
        ``n`` (None if even ``n_max`` is not enough), the interval reached there, a
        table of expected intervals at the trial counts of the literature and at ``n``,
        the alternatives, and notes derived from these numbers.

    Warns
    -----
    DegenerateDataWarning
        The answer is set by the undefined experiments rather than by the precision: a
        smaller n already had an expected interval of the target half-width, but more
        than ``max_share_undefined`` of its experiments gave no EC (observers near the
        ceiling or floor). The notes give both numbers.

    Notes
    -----
    An n reaches the target when, over its simulated experiments, the central
    ``confidence_level`` interval of the defined κ̂ has half-width ≤ ``half_width``, the
    interval is not degenerate (zero width or undefined, see :func:`ci_width`; n = 1
    always is: with ``n_max=1`` the answer is ``n = None``, with a note saying why), and
    at most ``max_share_undefined`` of the experiments have an undefined κ̂.

    Each evaluated n is simulated with its own seeded stream, and the smallest n is
    found by doubling from the large-sample estimate ``(z·σ₁/h)²`` (σ₁² = n·Var κ̂ of
    Fleiss et al. at the true table) followed by bisection. Every row of the table
    ``intervals`` is the simulation of its n on that same stream, so the row at ``n`` is
    the search's own simulation (``at_n``).

    Examples
    --------
    >>> import trialwise as tw
    >>> plan = tw.plan_trials(half_width=0.05, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, rng=0)
    >>> plan.n
    1554
    """
    target = _check_half_width(half_width)
    level = v.check_confidence_level(confidence_level)
    n_sim = v.check_replicates(n_simulations, "n_simulations", why=SIMULATIONS_WHY)
    n_max = v.check_positive_int(n_max, "n_max")
    for name, x in (("accuracy_a", accuracy_a), ("accuracy_b", accuracy_b), ("kappa", kappa)):
        if np.ndim(x) != 0:
            raise InvalidTypeError(f"`{name}` must be a single number for plan_trials (use ci_width for grids)")
    if np.ndim(max_share_undefined) != 0:
        raise InvalidTypeError(f"`max_share_undefined` must be a single number in [0, 1]; "
                               f"got {v.show(max_share_undefined)}")
    max_undefined = float(v.check_probability(max_share_undefined, "max_share_undefined"))
    base = child_seed(rng, bits=62)
    z = float(normal_quantile(level))

    degenerate: list[int] = []            # n whose interval was narrow enough only by being degenerate
    undefined: dict[int, CIWidthResult] = {}   # n narrow enough, but with too many undefined experiments

    def simulate(n: int, a: float, b: float, k: float) -> CIWidthResult:
        """The simulation of n trials: one seeded stream per n, shared by the search and the table."""
        return _ci_width(n, a, b, k, confidence_level=level, n_simulations=n_sim, rng=_seeded(base, n),
                         workers=None)

    def search(a: float, b: float, k: float) -> tuple[int | None, dict[int, CIWidthResult]]:
        """Smallest n for the design (a, b, k), and the simulations of every evaluated n."""
        seen: dict[int, CIWidthResult] = {}

        def ok(n: int) -> bool:
            seen[n] = simulate(n, a, b, k)
            narrow = bool(seen[n].half_width <= target)  # NaN (never defined) counts as too wide
            if narrow and bool(_degenerate(seen[n])):
                degenerate.append(n)
                return False
            if narrow and float(seen[n].share_undefined) > max_undefined + 1e-12:  # 1 − count/n_sim rounds up
                undefined[n] = seen[n]
                return False
            return narrow

        sd = float(_asymptotic_sd(cell_probabilities(k, a, b)))
        start = max(2, math.ceil((z * sd / target) ** 2)) if sd > 0 else 2
        return _smallest_n(ok, start, n_max), seen

    n_req, seen = search(accuracy_a, accuracy_b, kappa)
    at_n = None if n_req is None else seen[n_req]
    degenerate_as_planned = sorted(degenerate)
    undefined_as_planned = {n: r for n, r in sorted(undefined.items()) if n_req is None or n < n_req}
    undefined_note = None
    if undefined_as_planned:
        undefined_note = _undefined_message(target, n_req, n_max, undefined_as_planned, max_undefined,
                                            _trials_with_ec(accuracy_a, accuracy_b, kappa, max_undefined))
        warn(undefined_note, DegenerateDataWarning)
    shown = sorted(set(LITERATURE_TRIALS) | ({n_req} if n_req else set()))
    table = _stack([seen[n] if n in seen else simulate(n, accuracy_a, accuracy_b, kappa) for n in shown])
    model = CopyModel(kappa, accuracy_a, accuracy_b)
    rows = [dict(scenario="as planned", accuracy_a=float(accuracy_a), accuracy_b=float(accuracy_b),
                 kappa=float(kappa), p_copy=float(model.p_copy), n_required=n_req)]
    for a_ref in reference_accuracies:
        a_ref = float(v.check_probability(a_ref, "reference_accuracies", open_interval=True))
        if math.isclose(a_ref, float(accuracy_a)):
            continue
        alt = CopyModel.from_copy_probability(model.p_copy, a_ref, model.latent_accuracy)
        rows.append(dict(
            scenario=f"reference accuracy {a_ref:g}", accuracy_a=float(a_ref), accuracy_b=float(alt.accuracy_other),
            kappa=float(alt.kappa), p_copy=float(alt.p_copy),
            n_required=search(float(a_ref), float(alt.accuracy_other), float(alt.kappa))[0],
        ))
    notes = _plan_notes(target, level, n_req, n_max, at_n, rows, degenerate_as_planned, undefined_note)
    return PlanResult(
        n=n_req,
        half_width_target=target,
        accuracy_a=float(accuracy_a),
        accuracy_b=float(accuracy_b),
        kappa=float(kappa),
        confidence_level=level,
        n_simulations=n_sim,
        at_n=at_n,
        intervals=table,
        alternatives=rows,
        notes=tuple(notes),
    )


def _stack(rows: list[CIWidthResult]) -> CIWidthResult:
    """One :class:`CIWidthResult` over n from the single-n simulations ``rows`` (in their order)."""
    first = rows[0]

    def cat(name: str) -> NDArray:
        return np.stack([np.asarray(getattr(r, name)) for r in rows])

    return CIWidthResult(
        n=cat("n"), accuracy_a=cat("accuracy_a"), accuracy_b=cat("accuracy_b"), kappa=cat("kappa"),
        confidence_interval=ConfidenceInterval(np.stack([np.asarray(r.confidence_interval.low) for r in rows]),
                                               np.stack([np.asarray(r.confidence_interval.high) for r in rows])),
        statistic=cat("statistic"), median=cat("median"), share_undefined=cat("share_undefined"),
        confidence_level=first.confidence_level, n_simulations=first.n_simulations,
        distribution=np.stack([r.distribution for r in rows], axis=-1),
    )


def _trials_with_ec(accuracy_a: float, accuracy_b: float, kappa: float, max_undefined: float) -> int | None:
    """Smallest n whose exact chance of an experiment without an EC is ≤ ``max_undefined`` (None: no n).

    κ̂ is undefined exactly when both observers are right on every trial or both wrong on
    every trial, so with the cell probabilities P11 (both right) and P00 (both wrong) the
    chance is P11ⁿ + P00ⁿ, which falls with n.
    """
    cells = cell_probabilities(kappa, accuracy_a, accuracy_b)
    both_right, both_wrong = float(cells[0, 0]), float(cells[1, 1])

    def too_many(n: int) -> bool:
        return both_right ** n + both_wrong ** n > max_undefined

    if max_undefined <= 0 or max(both_right, both_wrong) >= 1:
        return None                       # some experiments always lack an EC
    low, high = 0, 1                      # too_many(low) (n = 0 is an empty experiment), not too_many(high)
    while too_many(high):
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if too_many(mid) else (low, mid)
    return high


def _undefined_message(target: float, n_req: int | None, n_max: int, undefined: dict[int, CIWidthResult],
                       max_undefined: float, n_with_ec: int | None) -> str:
    """Why the answer is not the smallest n of the target half-width: too many experiments without an EC there."""
    n = max(undefined)
    r = undefined[n]
    answer = (f"the required n = {n_req} is set by the experiments without an EC, not by the precision"
              if n_req is not None else f"the target is not reached up to n = {n_max} because of the experiments "
              "without an EC, not because of the precision")
    text = (f"{answer}: at n = {n} the expected interval already has half-width {float(r.half_width):.3g} ≤ "
            f"{target:g}, but {100 * float(r.share_undefined):.3g}% of the simulated experiments there give no EC "
            f"at all (both observers error-free, or both always wrong), more than the {100 * max_undefined:g}% "
            "allowed (`max_share_undefined`)")
    if n_req is not None:
        return text
    if n_with_ec is None:
        return (f"{text}; no number of trials brings that share to {100 * max_undefined:g}%: allow more "
                "experiments without an EC (`max_share_undefined`); a wider interval does not help")
    more = (f"raise `n_max` to at least {n_with_ec}" if n_with_ec > n_max else
            "raise `n_max` a little (the simulated share scatters around the exact chance)")
    return (f"{text}; the exact chance of no EC (P(both right)ⁿ + P(both wrong)ⁿ) is ≤ {100 * max_undefined:g}% "
            f"from n = {n_with_ec} on: {more}, or allow more experiments without an EC (`max_share_undefined`); "
            "a wider interval does not help")


def _plan_notes(target, level, n_req, n_max, at_n, rows, degenerate=(), undefined_note=None) -> list[str]:
    notes = []
    degenerate_note = ""
    if degenerate:
        shown = ", ".join(map(str, degenerate[:5])) + (", ..." if len(degenerate) > 5 else "")
        why = ("every simulated experiment gives the same κ̂ (with one trial each observer is trivially always "
               "right or always wrong, so κ̂ is 0 or undefined)" if degenerate == [1] else
               "every simulated experiment gives the same κ̂")
        degenerate_note = (f"the interval at n = {shown} has zero width only because it is degenerate: {why}; "
                           "such n are not counted as reaching the target")
    if n_req is None:   # the experiments without an EC decided, or else the precision did
        notes.append(undefined_note or f"even n = {n_max} trials do not reach a half-width of {target:g}")
        if degenerate:
            notes.append(degenerate_note)
        return notes
    notes.append(f"{n_req} trials give an expected {100 * level:g}% interval of half-width {target:g} or less")
    if undefined_note:
        notes.append(undefined_note)
    if degenerate:
        notes.append(degenerate_note)
    bias = float(at_n.bias)
    if abs(bias) > BIAS_NOTE:
        notes.append(
            f"at n = {n_req} the estimate is biased by {bias:+.3f} (floor/ceiling effect): "
            "the interval is not centred on the true EC"
        )
    below, above = float(at_n.kappa - at_n.confidence_interval.low), float(at_n.confidence_interval.high - at_n.kappa)
    if min(below, above) > 0 and max(below, above) / min(below, above) > 1.25:
        notes.append(f"the interval is asymmetric around the true EC (-{below:.3f} / +{above:.3f})")
    undefined = float(at_n.share_undefined)
    if undefined > 0.01:
        notes.append(f"{100 * undefined:.1f}% of simulated experiments give an undefined EC (both observers "
                     "error-free, or both always wrong)")
    best = min((r for r in rows[1:] if r["n_required"]), key=lambda r: r["n_required"], default=None)
    if best is not None and best["n_required"] < 0.9 * n_req:
        saving = 100 * (1 - best["n_required"] / n_req)
        notes.append(
            f"with a {best['scenario']} (same copy probability) {best['n_required']} trials would do "
            f"({saving:.0f}% fewer)"
        )
    return notes


# --------------------------------------------------------------------------- power


def joint_cells(kappa_x, kappa_y, accuracy_reference, accuracy_x, accuracy_y) -> NDArray:
    """P(r, x, y) of a reference and two observers that each copy it independently."""
    px = CopyModel(kappa_x, accuracy_reference, accuracy_x).cell_probabilities()  # (..., r, x)
    py = CopyModel(kappa_y, accuracy_reference, accuracy_y).cell_probabilities()  # (..., r, y)
    px, py = np.broadcast_arrays(px, py)
    marg = px.sum(axis=-1)  # P(r)
    return px[..., :, :, None] * py[..., :, None, :] / marg[..., :, None, None]


def _rejections(counts: NDArray, z: float) -> NDArray:
    delta, var = kappa_difference_variance(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(delta) / np.sqrt(var)
    return np.where(np.isfinite(stat), stat > z, False)


@records_seed
def power_difference(
    kappa_x: ArrayLike,
    kappa_y: ArrayLike,
    accuracy_reference: ArrayLike,
    accuracy_x: ArrayLike,
    accuracy_y: ArrayLike,
    *,
    n: ArrayLike | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    n_simulations: int = 10_000,
    rng: Any = None,
    n_max: int = 1_000_000,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    cluster_size_cv: float = 0.0,
) -> PowerResult:
    """Power to detect κ_X ≠ κ_Y for two observers compared with the same reference.

    X and Y (e.g. two models) each copy the reference R (e.g. a human) under their own
    copy model, independently given R, on the same n trials. The test is the two-sided
    Wald test of κ(R, X) = κ(R, Y) with the multinomial delta-method variance of the
    difference (:func:`trialwise._stats.kappa_derivatives.kappa_difference_variance`), which accounts for
    the shared reference.

    Parameters
    ----------
    kappa_x, kappa_y : array_like
        True EC of X and of Y with the reference.
    accuracy_reference, accuracy_x, accuracy_y : array_like
        Accuracies of the reference and of X and Y.
    n : int or array_like of int, optional
        Trials. Given: the power at each n (broadcast with the other parameters). Not
        given: the smallest n whose simulated power reaches ``power`` (scalar inputs).
    power : float, default 0.8
        Target power when ``n`` is not given.
    alpha : float, default 0.05
    n_simulations : int, default 10000
    rng : None, int or numpy.random.Generator
    n_max : int, default 1000000
    cluster_size, icc, cluster_size_cv : float, default 1, 0, 0
        Trials in clusters (questions sharing a passage, images sharing a category):
        the power at n is simulated at ``⌊n / DE⌋`` independent trials, DE =
        :func:`trialwise.planning.design_effect`; a searched n is the effective n times DE, rounded
        up. The ICC is that of the per-trial influence values of the difference; the
        simulation study of ``docs/planning.md`` checks it for clusters in which every
        (reference, X, Y) cell indicator has that ICC.

    Returns
    -------
    PowerResult
        ``n``, simulated ``power`` and its Monte-Carlo ``power_se``, the large-sample
        ``power_analytic``, ``delta`` = κ_X − κ_Y and ``se`` (the large-sample standard
        error of the difference at n).

    Examples
    --------
    >>> import trialwise as tw
    >>> r = tw.planning.power_difference(0.4, 0.3, 0.75, 0.75, 0.75, n=1000, rng=0)
    >>> round(float(r.power), 2), round(float(r.power_analytic), 2)
    (0.57, 0.57)
    """
    a = float(v.check_probability(alpha, "alpha", open_interval=True))
    n_sim = v.check_replicates(n_simulations, "n_simulations", why=SIMULATIONS_WHY)
    kx, ky = v.check_kappa(kappa_x, "kappa_x"), v.check_kappa(kappa_y, "kappa_y")
    accs = [v.check_probability(x, name) for x, name in ((accuracy_reference, "accuracy_reference"), (accuracy_x, "accuracy_x"),
                                                          (accuracy_y, "accuracy_y"))]
    grid = [kx, ky, *accs] + ([] if n is None else [check_n(n)])
    v.check_broadcast(*grid, names=("kappa_x", "kappa_y", "accuracy_reference", "accuracy_x", "accuracy_y", "n")[:len(grid)])
    de = check_design(cluster_size, icc, cluster_size_cv)
    cells = joint_cells(kappa_x, kappa_y, accuracy_reference, accuracy_x, accuracy_y)
    z = float(ndtri(1 - a / 2))
    delta, var1 = kappa_difference_variance(cells)
    sd1 = np.sqrt(np.clip(var1, 0, None))
    gen = v.check_rng(rng)
    if n is None:
        target = float(v.check_probability(power, "power", open_interval=True))
        if cells.ndim != 3:
            raise InvalidTypeError("without `n`, the parameters must be single numbers (pass `n=` for grids)")
        if target <= a:
            raise InvalidValueError(f"`power` must exceed `alpha` ({a:g}); got {target:g}")
        if abs(float(delta)) < 1e-12:
            raise InvalidValueError("kappa_x equals kappa_y: no number of trials gives power above alpha")
        n_max = v.check_positive_int(n_max, "n_max")
        base = child_seed(gen, bits=62)

        def ok(m: int) -> bool:
            rej = multinomial_cells(cells, np.int64(m), size=n_sim, rng=_seeded(base, m), cell_ndim=3)
            return bool(_rejections(rej, z).mean() >= target)

        start = math.ceil(((z + float(ndtri(target))) * float(sd1) / abs(float(delta))) ** 2)
        eff_max = max(1, int(n_max / de))
        found = _smallest_n(ok, max(start, 2), eff_max)
        n_eff = np.asarray(eff_max if found is None else found, dtype=np.int64)
        n_arr = np.asarray(math.ceil(int(n_eff) * de - 1e-9), dtype=np.int64)
        gen = _seeded(base, int(n_eff))
        reached = found is not None
    else:
        n_arr = check_n(n)
        n_eff = n_arr if de == 1 else np.maximum(1, np.floor(n_arr / de + 1e-9)).astype(np.int64)
        reached = True
    sims = multinomial_cells(cells, n_eff, size=n_sim, rng=gen, cell_ndim=3,
                             statistic=lambda t: _rejections(t, z))
    pw = sims.mean(axis=0)
    se = sd1 / np.sqrt(n_eff)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = np.abs(delta) / se
    pw_a = ndtr(shift - z) + ndtr(-shift - z)
    shape = pw.shape
    return PowerResult(
        n=np.broadcast_to(n_arr, shape).copy(),
        power=pw,
        power_se=np.sqrt(pw * (1 - pw) / n_sim),
        power_analytic=np.broadcast_to(pw_a, shape).copy(),
        delta=np.broadcast_to(delta, shape).astype(float),
        se=np.broadcast_to(se, shape).astype(float),
        alpha=a,
        n_simulations=n_sim,
        target_power=None if n is not None else float(power),
        reached=reached,
    )


# --------------------------------------------------------------------------- App. G


@records_seed
def validate_copy_model(
    n: ArrayLike,
    accuracy_a: ArrayLike,
    accuracy_b: ArrayLike,
    kappa: ArrayLike,
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    n_simulations: int = 10_000,
    rng: Any = None,
) -> CopyModelValidation:
    """Copy-model intervals against bootstrap intervals of data with known κ (Klein et al. 2025, App. G).

    For each grid point, the ground-truth data set is the table of n trials closest to
    the target accuracies and κ (:meth:`CopyModel.exact_table`); its percentile
    bootstrap interval (``n_resamples`` replicates, the gold standard of App. G) is
    compared with the interval the copy model predicts before any data exist
    (:func:`ci_width`, ``n_simulations`` experiments).

    Parameters
    ----------
    n : int or array_like of int
        Trials per data set.
    accuracy_a, accuracy_b : array_like
        Accuracies of the two observers (A is the reference), in (0, 1).
    kappa : array_like
        Target κ; the four design parameters broadcast against each other.
    confidence_level : float, default 0.95
        Level of both intervals.
    n_resamples : int, default 10000
        Bootstrap replicates of the ground-truth table.
    n_simulations : int, default 10000
        Simulated experiments of the copy model (:func:`ci_width`).
    rng : None, int or numpy.random.Generator
        Seed or generator.

    Returns
    -------
    CopyModelValidation
        Per grid point: ``data_kappa`` (κ of the ground-truth table), the bootstrap
        interval ``bootstrap_low``/``bootstrap_high``, the copy-model interval
        ``model_low``/``model_high``, and ``width_ratio`` (model width / bootstrap
        width).

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Examples
    --------
    >>> import trialwise as tw
    >>> val = tw.planning.validate_copy_model(n=1000, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, rng=0)
    >>> round(float(val.width_ratio), 2)
    1.0
    """
    level = v.check_confidence_level(confidence_level)
    b = v.check_replicates(n_resamples)
    gen = v.check_rng(rng)
    model = ci_width(n, accuracy_a, accuracy_b, kappa, confidence_level=level,
                     n_simulations=n_simulations, rng=gen)
    tables = CopyModel(model.kappa, model.accuracy_a, model.accuracy_b).exact_table(model.n)
    reps = bootstrap_tables(tables, b, rng=gen)
    dist = kappa_kernel(reps)
    lo, hi = percentile_interval(dist, level)
    return CopyModelValidation(
        n=model.n,
        accuracy_a=model.accuracy_a,
        accuracy_b=model.accuracy_b,
        kappa=model.kappa,
        data_kappa=np.asarray(kappa_kernel(tables)),
        bootstrap_low=np.asarray(lo),
        bootstrap_high=np.asarray(hi),
        model_low=model.confidence_interval.low,
        model_high=model.confidence_interval.high,
        confidence_level=level,
        n_resamples=b,
        n_simulations=model.n_simulations,
    )
