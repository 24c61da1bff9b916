"""Planning benchmark size: how many questions tell two accuracies or two agreements apart.

The copy-model planners of :mod:`trialwise.planning` answer "how many trials" for error
consistency; this module answers the same questions for language-model benchmarks, where
the unit is a question, questions often come in clusters (a passage, a subject), and the
statistic may be an accuracy or CAPA (κ_p, Goel et al. 2025):

* :func:`power_accuracy_difference` — two models on the same questions (exact McNemar test
  on the discordant questions) or on separate question sets (two-proportion z test);
* :func:`power_agreement_difference` — "is judge J more similar to X than to Y?": the
  Wald test of κ_p(J, X) = κ_p(J, Y) with the delta-method (infinitesimal-jackknife)
  variance over questions, planned from a pilot;
* :func:`detectable_accuracy_difference` — the smallest accuracy difference of two models on
  the same n questions that a paired test detects with the given power (the inverse of
  Connor's power formula), from the observed discordance;
* :func:`accuracy_half_width`, :func:`agreement_half_width` — the interval half-width of
  one accuracy or one CAPA at n questions, or the n for a target half-width;
* :func:`design_effect`, :func:`estimate_icc` — the cluster design effect
  ``1 + ((1 + cv²)·m̄ − 1)·ICC`` (Kish 1965; Eldridge et al. 2006) and the ICC from pilot data.

Every planned n is found in *effective* (independent) questions and multiplied by the
design effect; powers are simulated at the effective n with :func:`trialwise._stats.resampling.multinomial_cells`
and searched with the doubling-and-bisection search of :func:`trialwise.plan_trials`.

Why this module is long: about 670 lines, most of them numpydoc docstrings with the
formulas; the power and half-width questions share the effective-n search and the CAPA
influence values. The cluster design (design effect, ICC) is :mod:`trialwise.planning.clusters`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr, ndtri
from scipy.stats import binom

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.resampling import multinomial_cells
from trialwise._stats.intervals import normal_quantile
from trialwise._stats.streams import child_seed, records_seed
from trialwise.planning.clusters import check_cluster_design, cluster_design
from trialwise.planning.results import (
    HalfWidthResult,
    QuestionPowerResult,
)
from trialwise.planning.trials import (
    SIMULATIONS_WHY,
    seeded_rng,
    smallest_n,
)

__all__ = ["accuracy_half_width", "agreement_half_width", "detectable_accuracy_difference", "power_accuracy_difference",
           "power_agreement_difference", "agreement_influence"]


# ----------------------------------------------------------------------------- clusters


# ----------------------------------------------------------------------------- search helpers

def _check_n_or_target(n: Any, target: Any, target_name: str) -> None:
    if (n is None) == (target is None):
        raise InvalidValueError(f"give exactly one of `n` and `{target_name}`; got n={v.show(n)}, "
                                f"{target_name}={v.show(target)}")


def _questions(n_eff: NDArray | int, de: float) -> NDArray:
    return np.ceil(np.asarray(n_eff, dtype=float) * de - 1e-9).astype(np.int64)


def _effective(n: NDArray, de: float) -> NDArray:
    return np.maximum(1, np.floor(np.asarray(n, dtype=float) / de + 1e-9)).astype(np.int64)


# ----------------------------------------------------------------------------- accuracy

def _accuracy_design(accuracy_a, accuracy_b, discordance, paired):
    a = float(v.check_probability(accuracy_a, "accuracy_a", open_interval=True))
    b = float(v.check_probability(accuracy_b, "accuracy_b", open_interval=True))
    if not paired:
        if discordance is not None:
            raise InvalidValueError("`discordance` is for paired designs (the same questions); got paired=False")
        return a, b, None
    psi = a * (1 - b) + b * (1 - a) if discordance is None else float(v.check_probability(discordance, "discordance"))
    lo, hi = abs(a - b), min(a + b, 2 - a - b)
    if not lo - 1e-12 <= psi <= hi + 1e-12:
        raise InvalidValueError(f"`discordance` must lie in [{lo:g}, {hi:g}] for accuracies {a:g} and {b:g} (the "
                                f"share of questions exactly one model gets right); got {psi:g}")
    return a, b, np.array([(psi + a - b) / 2, (psi - a + b) / 2, 1 - psi])


def _mcnemar_reject(counts: NDArray, alpha: float) -> NDArray:
    """Exact (conditional binomial) two-sided McNemar test on (n10, n01, rest) counts."""
    n10, n01 = counts[..., 0], counts[..., 1]
    m = n10 + n01
    p = np.minimum(1.0, 2 * binom.cdf(np.minimum(n10, n01), m, 0.5))
    return (m > 0) & (p <= alpha)


def _wald_reject(counts: NDArray, z: float) -> NDArray:
    """Wald test of E[c_A − c_B] = 0 on (n10, n01, rest) counts: the z test a cluster-robust analysis reduces to."""
    n10, n01 = counts[..., 0].astype(float), counts[..., 1].astype(float)
    n = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(n10 - n01) / np.sqrt(n10 + n01 - (n10 - n01) ** 2 / n)
    return np.where(np.isfinite(stat), stat > z, False)


def _ztest_reject(counts: NDArray, n: NDArray, z: float) -> NDArray:
    """Pooled two-proportion z test on (right_a, right_b) of n questions each."""
    pa, pb = counts[..., 0] / n, counts[..., 1] / n
    pool = (pa + pb) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(pa - pb) / np.sqrt(pool * (1 - pool) * 2 / n)
    return np.where(np.isfinite(stat), stat > z, False)


@records_seed
def power_accuracy_difference(
    accuracy_a: float,
    accuracy_b: float,
    *,
    discordance: float | None = None,
    paired: bool = True,
    n: ArrayLike | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    cluster_size_cv: float = 0.0,
    n_simulations: int = 10_000,
    rng: Any = None,
    n_max: int = 1_000_000,
) -> QuestionPowerResult:
    """Power to tell two accuracies apart on n questions, or the n for a target power.

    Parameters
    ----------
    accuracy_a, accuracy_b : float
        Expected accuracies of the two models, in (0, 1).
    discordance : float, optional
        Paired designs: the share ψ of questions that exactly one of the two models gets
        right (``p10 + p01``; estimate it from a pilot as ``mean(c_A != c_B)``). Default:
        the value for independent errors, ``a(1 − b) + b(1 − a)`` — models that fail on
        the same questions have a smaller ψ and need fewer questions.
    paired : bool, default True
        ``True``: both models answer the same n questions, exact McNemar test.
        ``False``: each model answers its own n questions, pooled two-proportion z test.
    n : int or array_like of int, optional
        Questions per model. Given: the power at each n. Not given: the smallest n
        whose simulated power reaches ``power``.
    power : float, default 0.8
    alpha : float, default 0.05
        Two-sided level of the test.
    cluster_size, icc, cluster_size_cv : float
        The cluster design (:func:`design_effect`); ICC of the paired difference
        ``c_A − c_B`` (paired) or of correctness (unpaired). Default: independent questions.
    n_simulations : int, default 10000
    rng : None, int or numpy.random.Generator
    n_max : int, default 1000000
        Largest n searched.

    Returns
    -------
    QuestionPowerResult
        ``n`` (questions), simulated ``power`` (± ``power_se``), ``power_analytic``,
        ``delta`` = a − b, ``se`` (large-sample SE of the difference at n, design effect
        included), ``design_effect``, ``method``.

    Notes
    -----
    The simulation draws the counts ``(n10, n01, rest)`` at the effective n
    ``⌊n / DE⌋`` and applies the exact McNemar test (binomial test of n10 among the
    discordant questions) when the questions are independent; with clusters (DE > 1)
    there is no exact test, and it applies the Wald test of the mean paired difference,
    ``|n10 − n01| / √(n10 + n01 − (n10 − n01)²/n)``, which a cluster-robust (or
    cluster-bootstrap) analysis of the n clustered questions reduces to. The analytic power is Connor's (1987)
    ``Φ((|δ|√n_e − z_{α/2}√ψ)/√(ψ − δ²))`` with ``δ = a − b``; unpaired,
    ``Φ((|δ|√n_e − z_{α/2}√(2p̄q̄))/√(a(1−a) + b(1−b)))``. The searched n is the smallest
    effective n reaching the power times the design effect, rounded up.

    References
    ----------
    R. J. Connor (1987), "Sample size for testing differences in proportions for the
    paired-sample design", Biometrics 43(1), 207–211. E. Miller (2024), "Adding Error
    Bars to Evals", arXiv:2411.00640.

    Examples
    --------
    >>> import trialwise as tw
    >>> r = tw.planning.power_accuracy_difference(0.75, 0.70, discordance=0.2, n=[500, 1000], rng=0)
    >>> r.power.round(2).tolist(), r.power_analytic.round(2).tolist()
    ([0.68, 0.94], [0.71, 0.94])
    >>> [int(tw.planning.power_accuracy_difference(0.75, 0.70, discordance=0.2, cluster_size=m, icc=0.2, rng=0).n)
    ...  for m in (1, 10)]
    [657, 1717]
    """
    if not isinstance(paired, (bool, np.bool_)):
        raise InvalidTypeError(f"`paired` must be True or False; got {v.show(paired)}")
    a_lvl = float(v.check_probability(alpha, "alpha", open_interval=True))
    n_sim = v.check_replicates(n_simulations, "n_simulations", why=SIMULATIONS_WHY)
    de = check_cluster_design(cluster_size, icc, cluster_size_cv)
    a, b, cells = _accuracy_design(accuracy_a, accuracy_b, discordance, bool(paired))
    delta = a - b
    z = float(ndtri(1 - a_lvl / 2))
    if cells is not None:
        psi = float(cells[0] + cells[1])
        sd1 = math.sqrt(max(psi - delta ** 2, 0.0))

        def analytic(m):
            with np.errstate(invalid="ignore", divide="ignore"):
                return ndtr((abs(delta) * np.sqrt(m) - z * math.sqrt(psi)) / sd1)

        def simulate(m, size, gen):
            test = (lambda t: _mcnemar_reject(t, a_lvl)) if de == 1 else (lambda t: _wald_reject(t, z))
            return multinomial_cells(cells, m, size=size, rng=gen, statistic=test)
    else:
        sd1 = math.sqrt(a * (1 - a) + b * (1 - b))
        pbar = (a + b) / 2

        def analytic(m):
            return ndtr((abs(delta) * np.sqrt(m) - z * math.sqrt(2 * pbar * (1 - pbar))) / sd1)

        def simulate(m, size, gen):
            m = np.asarray(m, dtype=np.int64)
            draws = np.stack([gen.binomial(m, a, size=(size,) + m.shape), gen.binomial(m, b, size=(size,) + m.shape)],
                             axis=-1)
            return _ztest_reject(draws, m, z)

    n_arr, n_eff, gen, reached = _sizes(simulate, n, power, a_lvl, delta, f"`accuracy_a` and `accuracy_b` ({a:g})",
                                        z, sd1, de, n_sim, n_max, rng)
    pw = np.asarray(simulate(n_eff, n_sim, gen).mean(axis=0), dtype=float)
    return QuestionPowerResult(
        n=np.asarray(n_arr, dtype=np.int64), power=pw, power_se=np.sqrt(pw * (1 - pw) / n_sim),
        power_analytic=np.asarray(analytic(n_eff), dtype=float),
        delta=np.broadcast_to(delta, pw.shape).astype(float), se=np.asarray(sd1 / np.sqrt(n_eff), dtype=float),
        alpha=a_lvl, n_simulations=n_sim, target_power=None if n is not None else float(power), reached=reached,
        design_effect=de, method="two-proportion-z" if cells is None else "mcnemar-exact" if de == 1 else "paired-wald")


def detectable_accuracy_difference(
    n: ArrayLike,
    discordance: ArrayLike,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    cluster_size_cv: float = 0.0,
) -> NDArray:
    """The minimum detectable difference of two accuracies on the same n questions (paired design).

    The smallest ``|δ| = |a − b|`` that the two-sided paired test at level ``alpha`` detects
    with probability ``power`` on n questions, when a share ``discordance`` of them is
    answered right by exactly one of the two models — the inverse of the analytic power of
    :func:`power_accuracy_difference` (Connor 1987).

    Parameters
    ----------
    n : int or array_like of int
        Questions (both models answer each), at least 1.
    discordance : float or array_like
        The share ψ of questions exactly one model gets right, in [0, 1] (a pilot's or the
        data's ``mean(c_A != c_B)``); broadcast against ``n``.
    power : float, default 0.8
        In (0.5, 1).
    alpha : float, default 0.05
        Two-sided level, in (0, 1).
    cluster_size, icc, cluster_size_cv : float
        The cluster design (:func:`design_effect`): the difference is found at the effective
        n ``n / DE``. Default: independent questions.

    Returns
    -------
    numpy.ndarray
        The minimum detectable difference, shaped as ``n`` and ``discordance`` broadcast
        (a 0-d array for scalars); NaN where no difference is detectable: ψ = 0, too few
        effective questions (``n_e < z_{α/2}² − z_β²``), or a root beyond ψ (a difference
        larger than the discordance allows).

    Notes
    -----
    Connor's power ``Φ((|δ|√n_e − z_{α/2}√ψ)/√(ψ − δ²))`` equals ``power`` where

    ``|δ| = √ψ · (√n_e·z_{α/2} + z_β·√(n_e − z_{α/2}² + z_β²)) / (n_e + z_β²)``,

    with ``z_β = Φ⁻¹(power)`` (the root of the quadratic that squaring gives, on the side
    where ``|δ|√n_e ≥ z_{α/2}√ψ``). ψ is held at the value given, as in the power
    calculation. It is a large-sample value: the exact McNemar test, being conservative,
    needs a little more.

    References
    ----------
    R. J. Connor (1987), "Sample size for testing differences in proportions for the
    paired-sample design", Biometrics 43(1), 207–211.

    Examples
    --------
    >>> import trialwise as tw
    >>> mdd = tw.planning.detectable_accuracy_difference([500, 1000], 0.2)
    >>> mdd.round(4).tolist()
    [0.0559, 0.0396]
    >>> d = float(mdd[0])
    >>> p = tw.planning.power_accuracy_difference(0.5 + d / 2, 0.5 - d / 2, discordance=0.2, n=500, rng=0)
    >>> round(float(p.power_analytic), 6)
    0.8
    """
    pw = float(v.check_probability(power, "power", open_interval=True))
    if pw <= 0.5:
        raise InvalidValueError(f"`power` must be above 0.5 (a detectable difference is one found more often than "
                                f"not); got {pw:g}")
    a_lvl = float(v.check_probability(alpha, "alpha", open_interval=True))
    n_arr = np.asarray(n)
    if n_arr.dtype == bool or not np.issubdtype(n_arr.dtype, np.number) or not np.all(np.isfinite(n_arr)) \
            or np.any(n_arr < 1):
        raise InvalidValueError(f"`n` must be a number of questions, at least 1; got {v.show(n)}")
    psi = np.asarray(v.check_probability(discordance, "discordance"), dtype=float)
    de = check_cluster_design(cluster_size, icc, cluster_size_cv)
    n_e, psi = np.broadcast_arrays(n_arr.astype(float) / de, psi)
    za, zb = float(ndtri(1 - a_lvl / 2)), float(ndtri(pw))
    with np.errstate(invalid="ignore"):
        root = np.sqrt(n_e - za ** 2 + zb ** 2)
        delta = np.sqrt(psi) * (np.sqrt(n_e) * za + zb * root) / (n_e + zb ** 2)
    ok = np.isfinite(delta) & (psi > 0) & (delta <= psi + 1e-12)
    return np.where(ok, delta, np.nan)[()]


def _sizes(simulate: Callable, n: Any, power: Any, alpha: float, delta: float, what: str, z: float, sd1: float,
           de: float, n_sim: int, n_max: Any, rng: Any) -> tuple[NDArray, NDArray, np.random.Generator, bool]:
    """The question counts of a power calculation: the given ``n``, or the smallest n reaching ``power``.

    The search runs in effective (independent) questions, each candidate size on its own seeded
    stream, from the normal-approximation start; returns ``(n, n_effective, generator for the
    final simulation, reached)``."""
    gen = v.check_rng(rng)
    if n is None:
        target = _check_power_target(power, alpha, delta, what)
        n_max = v.check_positive_int(n_max, "n_max")
        base = child_seed(gen, bits=62)
        start = max(2, math.ceil(((z + float(ndtri(target))) * sd1 / abs(delta)) ** 2))
        found = smallest_n(lambda m: bool(simulate(np.int64(m), n_sim, seeded_rng(base, m)).mean() >= target),
                           start, max(1, int(n_max / de)))
        n_eff = np.asarray(max(1, int(n_max / de)) if found is None else found, dtype=np.int64)
        return _questions(n_eff, de), n_eff, seeded_rng(base, int(n_eff)), found is not None
    n_arr = _check_questions(n)
    return n_arr, _effective(n_arr, de), gen, True


def _check_power_target(power: Any, alpha: float, delta: float, what: str) -> float:
    target = float(v.check_probability(power, "power", open_interval=True))
    if target <= alpha:
        raise InvalidValueError(f"`power` must exceed `alpha` ({alpha:g}); got {target:g}")
    if abs(delta) < 1e-12:
        raise InvalidValueError(f"{what} are equal: no number of questions gives power above alpha")
    return target


def _check_questions(n: Any) -> NDArray:
    if isinstance(n, (bool, np.bool_)) or np.asarray(n).dtype == bool:
        raise InvalidTypeError(f"`n` must be a whole number of questions >= 1 (or a 1-D array of them), not "
                               f"True/False; got {v.show(n)}")
    arr = np.asarray(v.as_float_array(n, "n"))
    if arr.ndim > 1 or (arr < 1).any() or (arr != np.round(arr)).any() or (arr > 2**53).any():
        raise InvalidValueError(f"`n` must be a whole number of questions >= 1 (or a 1-D array of them); got {v.show(n)}")
    return arr.astype(np.int64)


def accuracy_half_width(
    accuracy: float,
    *,
    n: ArrayLike | None = None,
    half_width: float | None = None,
    confidence_level: float = 0.95,
    cluster_size: float = 1.0,
    icc: float = 0.0,
    cluster_size_cv: float = 0.0,
) -> HalfWidthResult:
    """Half-width of the interval of one accuracy at n questions, or the n for a target half-width.

    Parameters
    ----------
    accuracy : float
        Expected accuracy, in (0, 1).
    n : int or array_like of int, optional
        Questions (give ``n`` or ``half_width``).
    half_width : float, optional
        Target half-width; the result's ``n`` is the smallest n reaching it.
    confidence_level : float, default 0.95
    cluster_size, icc, cluster_size_cv : float
        The cluster design (:func:`design_effect`); ICC of correctness.

    Returns
    -------
    HalfWidthResult

    Notes
    -----
    ``h = z·√(a(1 − a)·DE/n)`` (the Wald half-width with the design effect; Miller 2024,
    eq. 4); solved, ``n = ⌈z²·a(1 − a)·DE/h²⌉``.

    References
    ----------
    E. Miller (2024), "Adding Error Bars to Evals", arXiv:2411.00640.

    Examples
    --------
    >>> import trialwise as tw
    >>> int(tw.planning.accuracy_half_width(0.7, half_width=0.02).n), int(tw.planning.accuracy_half_width(0.7, half_width=0.02, cluster_size=10, icc=0.2).n)
    (2017, 5647)
    """
    acc = float(v.check_probability(accuracy, "accuracy", open_interval=True))
    return _half_width(acc, math.sqrt(acc * (1 - acc)), n, half_width, confidence_level,
                       check_cluster_design(cluster_size, icc, cluster_size_cv), "wald")


def _half_width(stat, sd1, n, target, confidence_level, de, method) -> HalfWidthResult:
    _check_n_or_target(n, target, "half_width")
    level = v.check_confidence_level(confidence_level)
    z = float(normal_quantile(level))
    if target is not None:
        h = float(v.check_probability(target, "half_width", open_interval=True))
        n_arr = np.asarray(max(1, math.ceil((z * sd1 / h) ** 2 * de - 1e-9)), dtype=np.int64)
    else:
        h, n_arr = None, _check_questions(n)
    hw = z * sd1 * np.sqrt(de / n_arr)
    shape = np.shape(hw)
    return HalfWidthResult(n=n_arr, statistic=np.broadcast_to(float(stat), shape).copy(),
                           sd=np.broadcast_to(sd1, shape).astype(float), design_effect=np.broadcast_to(de, shape).astype(float),
                           half_width=np.asarray(hw, dtype=float), confidence_level=level, method=method,
                           half_width_target=h)


# ----------------------------------------------------------------------------- CAPA

def _capa_parts(m: NDArray, r: int, a: int, x: int):
    """κ_p and its gradient with respect to the column means, for the pair (r, a) with pair column x.

    ``m`` (..., d): means of the columns ``[1, 1/(k − 1), p_R, p_X, p_Y, x_RX, x_RY]``.
    """
    g, pr, pa, xo = m[..., 1], m[..., r], m[..., a], m[..., x]
    c_exp = pr * pa + g * (1 - pr) * (1 - pa)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = 1 - c_exp
        kappa = (xo - c_exp) / gap
        dk_dc = (xo - 1) / gap ** 2
        grad = np.zeros(m.shape)
        grad[..., x] = 1 / gap
        grad[..., 1] = dk_dc * (1 - pr) * (1 - pa)
        grad[..., r] += dk_dc * (pa - g * (1 - pa))
        grad[..., a] += dk_dc * (pr - g * (1 - pr))
    return kappa, grad


def _rows(value: Any, name: str) -> NDArray:
    x = v.as_float_array(value, name)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InvalidValueError(f"`{name}` must be probability rows, questions × options (at least 2 × 2); "
                                f"got shape {x.shape}")
    if not np.isfinite(x).all() or (x < 0).any() or (np.abs(x.sum(axis=1) - 1) > 1e-6).any():
        raise InvalidValueError(f"`{name}` must hold finite probabilities ≥ 0 whose rows sum to 1")
    return x


def _capa_columns(models: list[tuple[Any, str]], truth: Any, metric: str) -> NDArray:
    """Per-question columns ``[1, 1/(k − 1), p_m(truth) for every model, Σ_o p_0 p_m for m ≥ 1]``."""
    metric = v.check_choice(metric, "metric", ("capa", "capa-discrete"))
    probs = [_rows(x, name) for x, name in models]
    shapes = {p.shape for p in probs}
    if len(shapes) != 1:
        raise InvalidValueError(f"{', '.join(f'`{n}`' for _, n in models)} must have the same questions and options; "
                                f"got shapes {[p.shape for p in probs]}")
    n, k = probs[0].shape
    if truth is None:
        raise InvalidValueError("`truth` is needed (the correct option of each question)")
    t = v.as_float_array(truth, "truth")
    if t.shape != (n,) or (t != np.round(t)).any() or (t < 0).any() or (t >= k).any():
        raise InvalidValueError(f"`truth` must hold one option index in [0, {k}) per question ({n}); got {v.show(truth)}")
    t = t.astype(np.intp)
    if metric == "capa-discrete":  # one-hot argmax choices, first on ties (as lm-sim)
        probs = [(p.argmax(1)[:, None] == np.arange(k)).astype(float) for p in probs]
    rows = np.arange(n)
    right = [p[rows, t] for p in probs]
    pairs = [np.einsum("qo,qo->q", probs[0], p) for p in probs[1:]]
    return np.column_stack([np.ones(n), np.full(n, 1 / (k - 1)), *right, *pairs])


def agreement_influence(a: ArrayLike, b: ArrayLike, truth: ArrayLike | None = None, *,
                        metric: Literal["capa", "capa-discrete"] = "capa") -> NDArray:
    """Per-question influence values of κ_p(a, b): the delta-method (infinitesimal-jackknife) terms.

    Parameters
    ----------
    a, b : array_like, shape (n, k)
        Option probabilities of the two models (rows sum to 1).
    truth : array_like of int, shape (n,)
        Correct option per question.
    metric : {"capa", "capa-discrete"}, default "capa"

    Returns
    -------
    ndarray, shape (n,)
        φ_q with mean 0; ``Var(κ̂_p) ≈ mean(φ²)/n``. Their ICC (:func:`estimate_icc`) is the
        one that enters the design effect of CAPA.

    Notes
    -----
    κ_p = (x̄ − c_exp)/(1 − c_exp), c_exp = p̄_A p̄_B + ḡ(1 − p̄_A)(1 − p̄_B), with x_q =
    Σ_o p_A(o)p_B(o), g_q = 1/(k − 1). With ``∂κ/∂x̄ = 1/(1 − c_exp)`` and ``∂κ/∂c_exp =
    (x̄ − 1)/(1 − c_exp)²``: φ_q = ∂κ/∂x̄·(x_q − x̄) + ∂κ/∂c_exp·[(p̄_B − ḡ(1 − p̄_B))(p_A,q − p̄_A)
    + (p̄_A − ḡ(1 − p̄_A))(p_B,q − p̄_B) + (1 − p̄_A)(1 − p̄_B)(g_q − ḡ)] (Efron 1982, ch. 6).

    References
    ----------
    B. Efron (1982), *The Jackknife, the Bootstrap and Other Resampling Plans*, SIAM.
    S. Goel et al. (2025), "Great Models Think Alike and this Undermines AI Oversight",
    arXiv:2502.04313.

    Examples
    --------
    >>> import numpy as np, trialwise as tw
    >>> a = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.6, 0.3, 0.1]])
    >>> b = np.array([[0.6, 0.3, 0.1], [0.2, 0.6, 0.2], [0.5, 0.2, 0.3], [0.2, 0.7, 0.1]])
    >>> tw.planning.agreement_influence(a, b, [0, 1, 2, 1]).round(3).tolist()
    [0.011, 0.009, 0.061, -0.081]
    """
    cols = _capa_columns([(a, "a"), (b, "b")], truth, metric)
    phi = _influence(cols, [(2, 3, 4)])[:, 0]
    if not np.isfinite(phi).all():
        warn(_UNDEFINED_PILOT.format(what="the influence values are"), DegenerateDataWarning)
    return phi


#: The warning of a pilot whose CAPA is undefined (agreement_influence, agreement_half_width).
_UNDEFINED_PILOT = ("the pilot's chance agreement c_exp is 1 (both models always right, or both never right on two "
                    "options): CAPA is undefined, so {what} NaN")


def _influence(cols: NDArray, pairs: list[tuple[int, int, int]], signs=None) -> NDArray:
    """(n, len(pairs)) influence values, or (n, 1) of the signed sum when ``signs`` is given."""
    m = cols.mean(axis=0)
    grads = [_capa_parts(m, *p)[1] for p in pairs]
    if signs is not None:
        grads = [sum(s * g for s, g in zip(signs, grads))]
    return (cols - m) @ np.column_stack(grads)


def _pilot_design(phi: NDArray, clusters, cluster_size, icc, cluster_size_cv) -> float:
    """Design effect: given, or estimated from the pilot's clusters (ICC of the influence values)."""
    if clusters is not None:
        d = cluster_design(phi, clusters)
        m = d.cluster_size if cluster_size is None else cluster_size
        rho = max(d.icc, 0.0) if icc is None else icc
        cv = d.cluster_size_cv if cluster_size_cv is None else cluster_size_cv
        return check_cluster_design(m, rho, cv)
    return check_cluster_design(1.0 if cluster_size is None else cluster_size, 0.0 if icc is None else icc,
                         0.0 if cluster_size_cv is None else cluster_size_cv)


def agreement_half_width(
    a: ArrayLike,
    b: ArrayLike,
    truth: ArrayLike | None = None,
    *,
    n: ArrayLike | None = None,
    half_width: float | None = None,
    metric: Literal["capa", "capa-discrete"] = "capa",
    clusters: ArrayLike | None = None,
    confidence_level: float = 0.95,
    cluster_size: float | None = None,
    icc: float | None = None,
    cluster_size_cv: float | None = None,
) -> HalfWidthResult:
    """Half-width of the interval of one CAPA at n questions, planned from a pilot.

    Parameters
    ----------
    a, b : array_like, shape (n_pilot, k)
        Pilot option probabilities of the two models (rows sum to 1).
    truth : array_like of int, shape (n_pilot,)
        Correct option per pilot question.
    n : int or array_like of int, optional
        Questions of the planned benchmark (give ``n`` or ``half_width``).
    half_width : float, optional
        Target half-width; ``n`` of the result is the smallest n reaching it.
    metric : {"capa", "capa-discrete"}, default "capa"
    clusters : array_like, shape (n_pilot,), optional
        Cluster of every pilot question: the ICC of the influence values, the mean cluster
        size and its CV are estimated from it (each overridden by ``icc``,
        ``cluster_size``, ``cluster_size_cv`` when given).
    confidence_level : float, default 0.95
    cluster_size, icc, cluster_size_cv : float, optional
        The cluster design of the planned benchmark (:func:`design_effect`).

    Returns
    -------
    HalfWidthResult
        ``statistic`` is κ_p of the pilot; ``sd`` = σ₁ = √mean(φ²) (:func:`agreement_influence`).

    Notes
    -----
    ``h = z·σ₁·√(DE/n)``; solved, ``n = ⌈(z·σ₁/h)²·DE⌉``. The pilot stands for the
    population of questions: σ₁ is its own delta-method SD, so plan with a pilot of at
    least a few hundred questions (σ₁ of 200 questions is within ±10 % or so).

    References
    ----------
    S. Goel et al. (2025), arXiv:2502.04313. B. Efron (1982), SIAM, ch. 6.

    Examples
    --------
    >>> import numpy as np, trialwise as tw
    >>> trials = tw.datasets.llm_demo().sort_values(["subject", "image"])
    >>> p = {m: np.stack(t.probabilities) for m, t in trials.groupby("subject")}
    >>> first = trials[trials.subject == "sim/demo-1b"]
    >>> truth, clusters = first.truth.astype(int), first.experiment + "/" + first.cluster
    >>> r = tw.planning.agreement_half_width(p["sim/demo-7b"], p["sim/demo-7b-chat"], truth, half_width=0.05,
    ...                             clusters=clusters)
    >>> round(float(r.statistic), 3), round(float(r.sd), 3), round(float(r.design_effect), 2), int(r.n)
    (0.244, 0.228, 1.3, 104)
    """
    cols = _capa_columns([(a, "a"), (b, "b")], truth, metric)
    kappa, _ = _capa_parts(cols.mean(axis=0), 2, 3, 4)
    phi = _influence(cols, [(2, 3, 4)])[:, 0]
    if not np.isfinite(kappa) and half_width is not None:
        raise InvalidValueError("`a` and `b`: " + _UNDEFINED_PILOT.format(what="no n can be planned from them: the "
                                                                         "half-width at every n is"))
    if not np.isfinite(kappa):  # no ICC of NaN influence values: the design as given (or none)
        warn(_UNDEFINED_PILOT.format(what="the planned half-width is"), DegenerateDataWarning)
        clusters = None
    de = _pilot_design(phi, clusters, cluster_size, icc, cluster_size_cv)
    return _half_width(float(kappa), float(np.sqrt(np.mean(phi ** 2))), n, half_width, confidence_level, de,
                       f"{v.check_choice(metric, 'metric', ('capa', 'capa-discrete'))}-delta")


def _diff_reject(counts: NDArray, cols: NDArray, outer: NDArray, z: float) -> NDArray:
    """Wald test of κ_p(R, X) = κ_p(R, Y) in each resampled set of questions (rows of ``counts``)."""
    w = counts.astype(float)
    n = w.sum(axis=-1, keepdims=True)
    m = (w @ cols) / n
    m2 = (w @ outer).reshape(m.shape + m.shape[-1:]) / n[..., None]
    kx, gx = _capa_parts(m, 2, 3, 5)
    ky, gy = _capa_parts(m, 2, 4, 6)
    g = gx - gy
    cov = m2 - m[..., :, None] * m[..., None, :]
    var = np.einsum("...i,...ij,...j->...", g, cov, g) / n[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.abs(kx - ky) / np.sqrt(var)
    return np.where(np.isfinite(stat), stat > z, False)


@records_seed
def power_agreement_difference(
    reference: ArrayLike,
    x: ArrayLike,
    y: ArrayLike,
    truth: ArrayLike | None = None,
    *,
    n: ArrayLike | None = None,
    power: float = 0.8,
    alpha: float = 0.05,
    metric: Literal["capa", "capa-discrete"] = "capa",
    clusters: ArrayLike | None = None,
    cluster_size: float | None = None,
    icc: float | None = None,
    cluster_size_cv: float | None = None,
    n_simulations: int = 10_000,
    rng: Any = None,
    n_max: int = 1_000_000,
) -> QuestionPowerResult:
    """Power to tell κ_p(reference, x) from κ_p(reference, y) ("is judge J more similar to X than to Y?"), from a pilot.

    Parameters
    ----------
    reference, x, y : array_like, shape (n_pilot, k)
        Pilot option probabilities of the reference (the judge) and of the two candidates.
    truth : array_like of int, shape (n_pilot,)
        Correct option per pilot question.
    n : int or array_like of int, optional
        Questions. Given: the power at each n. Not given: the smallest n reaching ``power``.
    power : float, default 0.8
    alpha : float, default 0.05
    metric : {"capa", "capa-discrete"}, default "capa"
    clusters : array_like, shape (n_pilot,), optional
        Pilot clusters: the design effect is estimated from the ICC of the influence values
        of the difference (overridden by ``cluster_size``/``icc``/``cluster_size_cv``).
    cluster_size, icc, cluster_size_cv : float, optional
        The cluster design of the planned benchmark (:func:`design_effect`).
    n_simulations : int, default 10000
    rng : None, int or numpy.random.Generator
    n_max : int, default 1000000

    Returns
    -------
    QuestionPowerResult
        ``delta`` = κ_p(R, X) − κ_p(R, Y) in the pilot, ``se`` its large-sample SE at n.

    Notes
    -----
    The pilot questions are the population: a simulated benchmark of n_e = ⌊n/DE⌋
    questions is a multinomial draw over them (:func:`trialwise._stats.resampling.multinomial_cells`),
    and the test is the two-sided Wald test of the difference with its delta-method SE
    computed in that benchmark, ``√(mean(φ_diff²)/n_e)`` with
    φ_diff = φ_RX − φ_RY (:func:`agreement_influence`; the shared reference makes the two
    correlated, which the difference of the influence values accounts for). The analytic
    power is ``Φ(|δ|/SE − z) + Φ(−|δ|/SE − z)``.

    References
    ----------
    S. Goel et al. (2025), arXiv:2502.04313. B. Efron (1982), SIAM, ch. 6.

    Examples
    --------
    A pilot of 400 questions: how many are needed to tell whether the judge agrees more with
    X than with Y (power 0.8)?

    >>> import numpy as np, trialwise as tw
    >>> g = np.random.default_rng(0)
    >>> truth = g.integers(0, 4, 400)
    >>> def model(skill):
    ...     z = g.normal(size=(400, 4)); z[np.arange(400), truth] += skill
    ...     return np.exp(z) / np.exp(z).sum(1, keepdims=True)
    >>> judge, x, y = model(1.5), model(1.5), model(0.5)
    >>> r = tw.planning.power_agreement_difference(judge, x, y, truth, n_simulations=2000, rng=0)
    >>> r.n > 0 and 0.75 <= float(r.power) <= 0.85
    True
    """
    a_lvl = float(v.check_probability(alpha, "alpha", open_interval=True))
    n_sim = v.check_replicates(n_simulations, "n_simulations", why=SIMULATIONS_WHY)
    cols = _capa_columns([(reference, "reference"), (x, "x"), (y, "y")], truth, metric)
    mean = cols.mean(axis=0)
    delta = float(_capa_parts(mean, 2, 3, 5)[0] - _capa_parts(mean, 2, 4, 6)[0])
    phi = _influence(cols, [(2, 3, 5), (2, 4, 6)], signs=(1, -1))[:, 0]
    sd1 = float(np.sqrt(np.mean(phi ** 2)))
    de = _pilot_design(phi, clusters, cluster_size, icc, cluster_size_cv)
    z = float(ndtri(1 - a_lvl / 2))
    outer = (cols[:, :, None] * cols[:, None, :]).reshape(cols.shape[0], -1)
    uniform = np.full(cols.shape[0], 1 / cols.shape[0])

    def simulate(m, size, gen):
        return multinomial_cells(uniform, m, size=size, rng=gen, statistic=lambda t: _diff_reject(t, cols, outer, z))

    n_arr, n_eff, gen, reached = _sizes(simulate, n, power, a_lvl, delta,
                                        "κ_p(`reference`, `x`) and κ_p(`reference`, `y`) in the pilot",
                                        z, sd1, de, n_sim, n_max, rng)
    pw = np.asarray(simulate(n_eff, n_sim, gen).mean(axis=0), dtype=float)
    se = sd1 / np.sqrt(n_eff)
    shift = abs(delta) / se
    return QuestionPowerResult(
        n=np.asarray(n_arr, dtype=np.int64), power=pw, power_se=np.sqrt(pw * (1 - pw) / n_sim),
        power_analytic=np.asarray(ndtr(shift - z) + ndtr(-shift - z), dtype=float),
        delta=np.broadcast_to(delta, pw.shape).astype(float), se=np.asarray(se, dtype=float), alpha=a_lvl,
        n_simulations=n_sim, target_power=None if n is not None else float(power), reached=reached,
        design_effect=de, method=f"{v.check_choice(metric, 'metric', ('capa', 'capa-discrete'))}-wald")
