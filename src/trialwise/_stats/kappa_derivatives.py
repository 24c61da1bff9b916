"""Derivatives of κ with respect to the cells of its table: the gradient, the Hessian, the variance of a difference.

The delta method and the influence functions of trialwise use these: the variance of κ̂(R, X) − κ̂(R, Y)
from the joint multinomial of a triplet table (:func:`kappa_difference_variance`), the gradient of κ in
the cells (:func:`kappa_gradient`) or in the sums the bootstrap keeps (:func:`kappa_gradient_sums`), and
its Hessian (:func:`kappa_hessian`).
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._stats.kappa import kappa_kernel, table_cells

__all__ = ["kappa_gradient", "kappa_gradient_sums", "kappa_hessian", "kappa_difference_variance"]


# Second derivatives of κ's numerator 2(p11·p00 − p10·p01) and denominator
# (p11+p10)(p10+p00) + (p11+p01)(p01+p00) over the cells (p11, p10, p01, p00): constants.
_NUM_HESSIAN = np.array([[0, 0, 0, 2], [0, 0, -2, 0], [0, -2, 0, 0], [2, 0, 0, 0]], dtype=float)
_DEN_HESSIAN = np.array([[0, 1, 1, 2], [1, 2, 0, 1], [1, 0, 2, 1], [2, 1, 1, 0]], dtype=float)


def kappa_gradient(cells: ArrayLike) -> NDArray:
    """Gradient of κ with respect to the four cells of 2×2 tables, shape (..., 2, 2).

    κ = 2(p11·p00 − p10·p01) / ((p11+p10)(p10+p00) + (p11+p01)(p01+p00)) is homogeneous of
    degree 0 in the cells, so the gradient is the same for counts and proportions up to
    the factor n, and ``Σ cells · gradient = 0``. NaN where κ is undefined.
    """
    n11, n10, n01, n00 = table_cells(cells)
    num = 2.0 * (n11 * n00 - n10 * n01)
    den = (n11 + n10) * (n10 + n00) + (n11 + n01) * (n01 + n00)
    d_num = np.stack([2 * n00, -2 * n01, -2 * n10, 2 * n11], -1)
    d_den = np.stack(
        [
            (n10 + n00) + (n01 + n00),
            (n10 + n00) + (n11 + n10),
            (n11 + n01) + (n01 + n00),
            (n11 + n10) + (n11 + n01),
        ],
        -1,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        g = (d_num * den[..., None] - num[..., None] * d_den) / (den**2)[..., None]
    g = np.where((den > 0)[..., None], g, np.nan)
    return g.reshape(g.shape[:-1] + (2, 2))


@overload
def kappa_gradient_sums(n: ArrayLike, n11: ArrayLike, ca: ArrayLike, cb: ArrayLike, *,
                        with_kappa: Literal[False] = ...) -> NDArray: ...


@overload
def kappa_gradient_sums(n: ArrayLike, n11: ArrayLike, ca: ArrayLike, cb: ArrayLike, *,
                        with_kappa: Literal[True]) -> tuple[NDArray, NDArray]: ...


def kappa_gradient_sums(n: ArrayLike, n11: ArrayLike, ca: ArrayLike, cb: ArrayLike, *,
                        with_kappa: bool = False) -> NDArray | tuple[NDArray, NDArray]:
    """Gradient of κ with respect to a 2×2 table's sums, shape ``(4, …)``: items ``n``, both
    correct ``n11``, each observer correct ``ca``, ``cb``.

    κ = ``N / D`` with ``N = 2(n·n11 − ca·cb)`` and ``D = n(ca + cb) − 2·ca·cb`` (the cells
    ``n11, ca − n11, cb − n11, n − ca − cb + n11`` of :func:`kappa_gradient`; it is that
    gradient by the chain rule, written out so the bootstrap's influence computation needs
    no intermediate (…, 2, 2) arrays): ``∂κ/∂n = (2·n11·D − N(ca + cb)) / D²``,
    ``∂κ/∂n11 = 2n / D``, ``∂κ/∂ca = (−2·cb·D − N(n − 2cb)) / D²`` and symmetrically for
    ``cb``. Not finite where κ is undefined (``D = 0``). ``with_kappa=True`` returns
    ``(κ, gradient)``, κ as ``N / D`` from the same products: the bits of
    :func:`kappa_from_sums` on exact sums (integers, as in a bootstrap), where ``N`` and ``D``
    are exact.

    Examples
    --------
    >>> g = kappa_gradient_sums(10.0, 6.0, 7.0, 8.0)
    >>> bool(abs(g @ [10.0, 6.0, 7.0, 8.0]) < 1e-12)   # κ does not change when the table is scaled
    True
    """
    n, n11, ca, cb = (np.asarray(x, dtype=float) for x in (n, n11, ca, cb))
    shape = np.broadcast_shapes(n.shape, n11.shape, ca.shape, cb.shape)
    # in place, a few arrays of the table's shape; each value is the same operations as the
    # closed forms above (a factor ±2 moved is exact), so the same bits
    g = np.empty((4,) + shape)
    s, num, den, tmp = (np.empty(shape) for _ in range(4))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        np.add(ca, cb, out=s)
        np.multiply(ca, cb, out=tmp)
        np.multiply(n, n11, out=num)
        num -= tmp
        num *= 2.0  # N
        np.multiply(n, s, out=den)
        tmp *= 2.0
        den -= tmp  # D
        inv2 = np.multiply(den, den, out=tmp)
        np.divide(1.0, inv2, out=inv2)
        g0, g1, g2, g3 = (g[k, ...] for k in range(4))  # views, also of 0-d tables
        np.multiply(n11, den, out=g0)  # (2·n11·D − N(ca + cb)) / D²
        g0 *= 2.0
        g0 -= np.multiply(num, s)
        g0 *= inv2
        np.divide(n, den, out=g1)  # 2n / D
        g1 *= 2.0
        for gk, first in ((g2, cb), (g3, ca)):  # (−2·cb·D − N(n − 2cb)) / D², and with ca for ∂κ/∂cb
            np.multiply(first, den, out=gk)
            gk *= -2.0
            part = np.multiply(first, 2.0, out=np.empty(shape))
            np.subtract(n, part, out=part)
            part *= num
            gk -= part
            gk *= inv2
        kappa = np.divide(num, den, out=s) if with_kappa else None
    if kappa is not None:
        return kappa, g
    return g


def kappa_hessian(cells: ArrayLike) -> NDArray:
    """Hessian of κ over the four cells (p11, p10, p01, p00) of 2×2 tables, shape (..., 4, 4).

    With κ = N/D (numerator and denominator of :func:`kappa_gradient`, both quadratic),
    differentiating κD = N twice gives
    ``∇²κ = (∇²N − κ ∇²D − ∇κ ∇Dᵀ − ∇D ∇κᵀ) / D``. NaN where κ is undefined.
    """
    n11, n10, n01, n00 = table_cells(cells)
    num = 2.0 * (n11 * n00 - n10 * n01)
    den = (n11 + n10) * (n10 + n00) + (n11 + n01) * (n01 + n00)
    d_den = np.stack([n10 + n01 + 2 * n00, n11 + 2 * n10 + n00, n11 + 2 * n01 + n00, 2 * n11 + n10 + n01], -1)
    g = kappa_gradient(cells).reshape(d_den.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = num / den
        outer = g[..., :, None] * d_den[..., None, :]
        h = (_NUM_HESSIAN - kappa[..., None, None] * _DEN_HESSIAN - outer - np.swapaxes(outer, -1, -2)) / den[..., None, None]
    return np.where((den > 0)[..., None, None], h, np.nan)


def kappa_difference_variance(counts: ArrayLike) -> tuple[NDArray, NDArray]:
    """Difference of two dependent κ's against one reference, and its delta-method variance.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2, 2)
        Counts (or probabilities with ``n = 1``) of the joint outcomes of a reference R and
        two observers X and Y on the same items, axes ``(R, X, Y)``, index 0 = correct.

    Returns
    -------
    delta, var : ndarray
        ``κ(R, X) − κ(R, Y)`` and its large-sample variance ``(Σ g²p − (Σ gp)²)/n``
        with ``g`` the gradient of the difference over the eight cell proportions
        ``p`` (multinomial delta method). For one κ this formula is the variance of
        Fleiss, Cohen & Everitt (1969) (:func:`kappa_variance`).

    Examples
    --------
    >>> c = np.array([[[30, 10], [8, 2]], [[5, 5], [10, 30]]])
    >>> d, var = kappa_difference_variance(c)
    >>> round(float(d), 4), round(float(var), 5)
    (0.14, 0.01298)
    """
    c = np.asarray(counts, dtype=float)
    if c.shape[-3:] != (2, 2, 2):
        raise InvalidValueError(f"`counts` must have shape (..., 2, 2, 2) (reference, x, y); got {c.shape}")
    n = c.sum(axis=(-3, -2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = c / n[..., None, None, None]
    rx, ry = p.sum(axis=-1), p.sum(axis=-2)
    g = kappa_gradient(rx)[..., :, :, None] - kappa_gradient(ry)[..., :, None, :]
    delta = kappa_kernel(rx) - kappa_kernel(ry)
    first = (g * p).sum(axis=(-3, -2, -1))
    second = (g**2 * p).sum(axis=(-3, -2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (second - first**2) / n
    return delta[()], var[()]
