"""The restricted Wald test of equal error consistency, κ(R, X) = κ(R, Y), and its interval.

The plain Wald test divides ``Δ̂ = κ̂(R, X) − κ̂(R, Y)`` by a standard error estimated
at the observed cell proportions; the swap test assumes X and Y exchangeable. Both reject
too often when X and Y have different accuracies (docs/validity.md). The restricted test
takes the standard error at the maximum-likelihood cell probabilities *under the null*
(Miettinen & Nurminen 1985 for two proportions; the score-test principle of Agresti 2013,
§1.4): the eight triplet-cell probabilities ``p̃`` that maximise the multinomial
likelihood of the counts (each smoothed by ½) subject to ``Δ(p̃) = δ₀``. Inverting the test
over δ₀ gives the interval of Δ. Tables have axes (reference, X, Y), index 0 = correct,
and any leading batch shape.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError
from trialwise._stats.intervals import normal_quantile
from trialwise._stats.kappa import kappa_kernel
from trialwise._stats.kappa_derivatives import kappa_gradient, kappa_hessian
from trialwise._stats.tables import triplet_margins

__all__ = ["SMOOTHING", "constrained_cells", "restricted_wald_pvalues", "restricted_wald_interval"]

#: Added to every triplet cell before the constrained fit (keeps p̃ inside the simplex).
SMOOTHING = 0.5
# Triplet cell i = 4r + 2x + y sits in cell 2r + x of the (R, X) table and 2r + y of the (R, Y) table.
_IX = np.array([0, 0, 1, 1, 2, 2, 3, 3])
_IY = np.array([0, 1, 0, 1, 2, 3, 2, 3])
_MAX_ITER = 100
_TOL = 1e-10


def _check(counts: ArrayLike, smoothing: float) -> tuple[NDArray, float]:
    """Triplet tables (..., 2, 2, 2) of non-negative whole counts, and a positive smoothing."""
    c = v.check_counts(counts, "counts", batch=True)
    if c.ndim < 3 or c.shape[-3:] != (2, 2, 2):
        raise InvalidValueError(f"`counts` must have shape (..., 2, 2, 2) (reference, x, y; index 0 = correct); got {c.shape}")
    s = v.check_positive(smoothing, "smoothing")
    if s.ndim:
        raise InvalidValueError(f"`smoothing` must be one number; got shape {s.shape}")
    return np.asarray(c, dtype=float), float(s)


def _derivatives(p: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Δ, its gradient (..., 8) and Hessian (..., 8, 8) over the flattened triplet cells."""
    rx, ry = triplet_margins(p.reshape(p.shape[:-1] + (2, 2, 2)))
    delta = kappa_kernel(rx) - kappa_kernel(ry)
    gx, gy = kappa_gradient(rx).reshape(rx.shape[:-2] + (4,)), kappa_gradient(ry).reshape(ry.shape[:-2] + (4,))
    hx, hy = kappa_hessian(rx), kappa_hessian(ry)
    grad = gx[..., _IX] - gy[..., _IY]
    hess = hx[..., _IX[:, None], _IX[None, :]] - hy[..., _IY[:, None], _IY[None, :]]
    return np.asarray(delta, dtype=float), grad, hess


def _residual(c: NDArray, big_n: NDArray, p: NDArray, lam: NDArray, delta0: NDArray):
    """The KKT system of max Σ c log p s.t. Δ(p) = δ₀ (Σ p = 1 follows), scaled by 1/N."""
    d, g, h = _derivatives(p)
    f = np.concatenate([(c / p - big_n[..., None] - lam[..., None] * g) / big_n[..., None], (d - delta0)[..., None]], -1)
    return f, g, h


def constrained_cells(counts: ArrayLike, delta: ArrayLike = 0.0, *, smoothing: float = SMOOTHING) -> tuple[NDArray, NDArray]:
    """Maximum-likelihood triplet-cell probabilities under ``κ(R, X) − κ(R, Y) = delta``.

    Maximises ``Σ (cᵢ + s) log pᵢ`` over the simplex subject to ``Δ(p) = delta``. The
    Karush-Kuhn-Tucker conditions are ``(cᵢ + s)/pᵢ = N + λ gᵢ(p)`` (``g`` = ∇Δ; the
    multiplier of ``Σ p = 1`` equals ``N = Σ (cᵢ + s)`` because Δ is homogeneous of degree
    0) and ``Δ(p) = delta``; they are solved by Newton's method in ``log p`` (so ``p`` stays
    positive) with a backtracking line search on the residual norm.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2, 2)
        Triplet counts, axes (reference, X, Y), index 0 = correct.
    delta : float or array_like
        The constrained value of Δ (broadcast against the tables' batch shape).
    smoothing : float, default 0.5
        Added to every cell (must be positive).

    Returns
    -------
    cells : ndarray, shape (..., 2, 2, 2)
        The constrained maximum-likelihood probabilities ``p̃`` (sum 1).
    converged : ndarray of bool, shape (...)
        Whether the KKT residual fell below 1e-10 (False for unattainable ``delta``).
    """
    c8, smoothing = _check(counts, smoothing)
    return _fit(c8, v.as_float_array(delta, "delta"), smoothing)


def _fit(c8: NDArray, delta: ArrayLike, smoothing: float) -> tuple[NDArray, NDArray]:
    """:func:`constrained_cells` without the input checks."""
    batch = c8.shape[:-3]
    c = c8.reshape(batch + (8,)) + smoothing
    delta0 = np.broadcast_to(np.asarray(delta, dtype=float), batch)
    big_n = c.sum(-1)
    theta = np.log(c / big_n[..., None])
    p = np.exp(theta)
    lam = np.zeros(batch)
    f, g, h = _residual(c, big_n, p, lam, delta0)
    norm = np.linalg.norm(f, axis=-1)
    jac = np.zeros(batch + (9, 9))
    for _ in range(_MAX_ITER):
        active = np.isfinite(norm) & (norm > _TOL)
        if not active.any():
            break
        jac[..., :8, :8] = -(np.eye(8) * (c / p)[..., :, None] + lam[..., None, None] * h * p[..., None, :]) / big_n[..., None, None]
        jac[..., :8, 8] = -g / big_n[..., None]
        jac[..., 8, :8] = g * p
        usable = np.asarray(np.isfinite(jac).all(axis=(-2, -1)) & active)
        safe = np.where(usable[..., None, None], jac, np.eye(9))
        with np.errstate(all="ignore"):
            step = np.linalg.solve(safe, -np.where(active[..., None], f, 0.0)[..., None])[..., 0]
        step = np.where(np.isfinite(step), step, 0.0)
        # at most a factor e² per cell and step, then halve until the residual decreases
        size = np.where(active, np.minimum(1.0, 2.0 / np.maximum(np.abs(step[..., :8]).max(-1), 1e-300)), 0.0)
        improved = np.zeros(batch, dtype=bool)
        for _ in range(30):
            t_new = theta + size[..., None] * step[..., :8]
            t_new = t_new - np.log(np.exp(t_new).sum(-1, keepdims=True))
            p_new = np.exp(t_new)
            l_new = lam + size * step[..., 8]
            with np.errstate(all="ignore"):
                f_new, g_new, h_new = _residual(c, big_n, p_new, l_new, delta0)
            n_new = np.linalg.norm(f_new, axis=-1)
            ok = active & ~improved & np.isfinite(n_new) & (n_new < norm * (1 - 1e-4 * size))
            theta = np.where(ok[..., None], t_new, theta)
            p = np.where(ok[..., None], p_new, p)
            lam = np.where(ok, l_new, lam)
            f = np.where(ok[..., None], f_new, f)
            g = np.where(ok[..., None], g_new, g)
            h = np.where(ok[..., None, None], h_new, h)
            norm = np.where(ok, n_new, norm)
            improved |= ok
            if (improved | ~active).all():
                break
            size = np.where(improved, size, size / 2)
        if not improved.any():
            break
    return p.reshape(batch + (2, 2, 2)), np.isfinite(norm) & (norm <= _TOL)


def _statistic(c: NDArray, delta0: ArrayLike, smoothing: float) -> NDArray:
    """(Δ̂ − δ₀) / se(p̃); NaN where Δ̂ is undefined or the constrained fit fails."""
    rx, ry = triplet_margins(c)
    observed = kappa_kernel(rx) - kappa_kernel(ry)
    n = c.sum(axis=(-3, -2, -1))
    p, ok = _fit(c, delta0, smoothing)
    _, g, _ = _derivatives(p.reshape(p.shape[:-3] + (8,)))
    p8 = p.reshape(g.shape)
    var = ((g**2 * p8).sum(-1) - (g * p8).sum(-1) ** 2) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (observed - delta0) / np.sqrt(var)
    return np.where(ok, z, np.nan)


def restricted_wald_pvalues(counts: ArrayLike, *, smoothing: float = SMOOTHING) -> NDArray:
    """Two-sided p-values of the restricted Wald test of κ(R, X) = κ(R, Y).

    ``z = Δ̂ / √(V(p̃)/n)`` with ``Δ̂`` from the counts, ``p̃`` = :func:`constrained_cells`
    (δ₀ = 0) and ``V(p) = Σ gᵢ² pᵢ − (Σ gᵢ pᵢ)²`` the multinomial delta-method variance
    (:func:`trialwise._stats.kappa_derivatives.kappa_difference_variance`) evaluated at ``p̃``;
    ``p = 2 Φ(−|z|)``. NaN where Δ̂ is undefined.

    Parameters
    ----------
    counts : array_like of int, shape (..., 2, 2, 2)
        Triplet counts, axes (reference, X, Y), index 0 = correct.
    smoothing : float, default 0.5
        Added to every cell for the constrained fit only.

    Returns
    -------
    ndarray, shape (...)

    References
    ----------
    Miettinen, O. & Nurminen, M. (1985). Comparative analysis of two rates. Statistics in
    Medicine 4(2), 213–226.

    Examples
    --------
    >>> c = np.array([[[30, 10], [8, 2]], [[5, 5], [10, 30]]])
    >>> round(float(restricted_wald_pvalues(c)), 3)
    0.227
    """
    c, smoothing = _check(counts, smoothing)
    z = _statistic(c, 0.0, smoothing)
    return (2 * ndtr(-np.abs(z)))[()]


def restricted_wald_interval(counts: ArrayLike, confidence_level: float = 0.95, *,
                             smoothing: float = SMOOTHING) -> tuple[NDArray, NDArray]:
    """Interval of Δ = κ(R, X) − κ(R, Y) from inverting the restricted Wald test.

    ``{δ₀ : |Δ̂ − δ₀| ≤ z₁₋α/₂ √(V(p̃(δ₀))/n)}``, each end by bisection (40 halvings) between
    Δ̂ (always inside) and the nearest bound ±2; a δ₀ whose constrained fit fails counts as
    rejected. Its ends are consistent with :func:`restricted_wald_pvalues`: 0 lies outside
    the interval exactly when the p-value is below ``1 − confidence_level`` (up to the
    bisection's 2·2⁻⁴⁰).

    Parameters
    ----------
    counts : array_like of int, shape (..., 2, 2, 2)
        Triplet counts, axes (reference, X, Y), index 0 = correct.
    confidence_level : float, default 0.95
    smoothing : float, default 0.5

    Returns
    -------
    low, high : ndarray, shape (...)
        NaN where Δ̂ is undefined.

    Examples
    --------
    >>> c = np.array([[[30, 10], [8, 2]], [[5, 5], [10, 30]]])
    >>> [round(float(e), 3) for e in restricted_wald_interval(c)]
    [-0.089, 0.369]
    """
    c, smoothing = _check(counts, smoothing)
    z = float(normal_quantile(v.check_confidence_level(confidence_level)))
    rx, ry = triplet_margins(c)
    observed = np.asarray(kappa_kernel(rx) - kappa_kernel(ry), dtype=float)
    ends = []
    for bound in (-2.0, 2.0):
        inside = observed.copy()
        outside = np.full(observed.shape, bound)
        for _ in range(40):
            mid = 0.5 * (inside + outside)
            accept = np.abs(_statistic(c, mid, smoothing)) <= z
            inside = np.where(accept, mid, inside)
            outside = np.where(accept, outside, mid)
        ends.append(np.where(np.isnan(observed), np.nan, inside)[()])
    return ends[0], ends[1]
