"""The copy model: what an error consistency means (Klein et al. 2025, Propositions 1 and 2).

Klein, Meyen, Brendel, Wichmann & Meding (2025), *Quantifying uncertainty in error consistency:
towards reliable behavioral comparison of classifiers*, NeurIPS.

Observer A (the *reference*) is correct with probability ``a_A``. Observer B, on every
trial, copies A's outcome with probability ``p`` and otherwise answers on its own with
its *latent* accuracy ``ã``. Then ``a_B = p·a_A + (1 − p)·ã`` and::

    κ = p · m,    m = 2·a_A(1 − a_A) / (1 − c_exp)   (the mismatch factor)

For correctness data ``p`` has a second reading that needs no model:
``p = P(B correct | A correct) − P(B correct | A wrong)``, the regression slope of B's
correctness on A's. A negative ``p`` means B copies A's *inverted* outcome with
probability ``|p|`` (then ``a_B = |p|(1 − a_A) + (1 − |p|)·ã``).

The model is feasible — ``|p| ≤ 1`` and ``ã ∈ [0, 1]`` — exactly when κ lies in
``[κ_min, κ_max]`` of :func:`trialwise.ec.kappa_bounds` (proof in :class:`CopyModel`), and
``m = 1`` whenever ``a_A = ½``: with a reference at 50 % correct, EC *is* the copy
probability, whatever B's accuracy.

The decomposition of an observed table (:class:`~trialwise.ec.CopyModelFit`, from
``fit_copy_model``) is :mod:`trialwise.ec.copy_fit`. Why this module is long: about 630 lines,
the model's simulation, its tables and its feasibility proof in one class, most of it docstrings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.bounds import feasible_accuracy, kappa_bounds
from trialwise._stats.kappa import kappa_from_counts, table_statistics
from trialwise._stats.resampling import multinomial_tables

__all__ = ["CopyModel", "copy_parameters"]

REFERENCES = ("a", "b")
_TOL = 1e-12


def orient(counts: NDArray, reference: str) -> NDArray:
    """Tables with the reference observer in rows."""
    c = np.asarray(counts)
    return c if reference == "a" else np.swapaxes(c, -1, -2)


def _mismatch(a_r: NDArray, a_o: NDArray) -> NDArray:
    """m = 2·a_r(1 − a_r) / (1 − c_exp), the factor between κ and the copy probability."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * a_r * (1 - a_r) / (a_r * (1 - a_o) + a_o * (1 - a_r))


def _latent_accuracy(p: NDArray, a_r: NDArray, a_o: NDArray) -> NDArray:
    """ã from a_o = p·a_r + (1 − p)ã (p ≥ 0) or |p|(1 − a_r) + (1 − |p|)ã (p < 0).

    Set to a_o where |p| = 1 (B never answers on its own, so ã plays no role).
    """
    q = np.abs(p)
    free = 1 - q
    with np.errstate(invalid="ignore", divide="ignore"):
        latent = (a_o - np.where(p >= 0, p * a_r, q * (1 - a_r))) / free
    return np.where(free > _TOL, np.clip(latent, 0.0, 1.0), a_o)


def copy_parameters(counts: ArrayLike) -> tuple[NDArray, NDArray, NDArray]:
    """Copy probability, mismatch factor and latent accuracy of 2×2 tables, reference in rows.

    Vectorised over a batch ``(..., 2, 2)`` of counts or probabilities
    ``[[n11, n10], [n01, n00]]`` in which the *rows* are the reference observer.

    Parameters
    ----------
    counts : array_like, shape (..., 2, 2)
        Counts or cell probabilities, reference observer in rows, correct first.

    Raises
    ------
    TypeError
        ``counts`` is not numeric.
    ValueError
        ``counts`` is not of shape (..., 2, 2), or holds a negative, NaN or infinite value.

    Returns
    -------
    p_copy, mismatch, latent_accuracy : ndarray
        ``p = n11/(n11+n10) − n01/(n01+n00)``; ``m = 2·a_r(1−a_r)/(1−c_exp)``;
        ``ã = P(other correct | ref wrong)/(1 − p)`` for ``p ≥ 0`` and
        ``P(other correct | ref correct)/(1 − |p|)`` for ``p < 0`` (``ã`` is set to the
        other observer's accuracy when ``|p| = 1``, where it plays no role). NaN where
        the reference is always correct or always wrong (nothing to copy that could be
        told apart from chance).

    Examples
    --------
    >>> from trialwise.ec.copymodel import copy_parameters
    >>> p, m, lat = copy_parameters([[60, 12], [8, 20]])
    >>> round(float(p), 4), round(float(m), 4), round(float(lat), 4)
    (0.5476, 0.9582, 0.6316)
    """
    c = v.as_float_array(counts, "counts")
    if c.ndim < 2 or c.shape[-2:] != (2, 2):
        raise InvalidValueError(f"`counts` must be a 2×2 table [[n11, n10], [n01, n00]] or a batch (..., 2, 2) of them; "
                         f"got shape {c.shape}")
    if not np.isfinite(c).all() or (c < 0).any():
        raise InvalidValueError(f"`counts` must hold finite non-negative counts or probabilities; got {v.show(c.tolist())}")
    return copy_parameters_of_tables(c)


def copy_parameters_of_tables(c: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """:func:`copy_parameters` of checked float tables."""
    n11, n10, n01, n00 = c[..., 0, 0], c[..., 0, 1], c[..., 1, 0], c[..., 1, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        n = n11 + n10 + n01 + n00
        a_ref = (n11 + n10) / n
        a_oth = (n11 + n01) / n
        # P(other correct | reference correct) − P(other correct | reference wrong)
        p = n11 / (n11 + n10) - n01 / (n01 + n00)
    m = _mismatch(a_ref, a_oth)
    latent = _latent_accuracy(p, a_ref, a_oth)
    undefined = ~((a_ref > 0) & (a_ref < 1))
    p = np.where(undefined, np.nan, p)
    return p[()], np.where(undefined, np.nan, m)[()], np.where(undefined, np.nan, latent)[()]


class CopyModel:
    """The copy model for a pair of observers: κ = p_copy · mismatch (Klein et al. 2025, Prop. 2).

    All parameters broadcast against each other like numpy arrays, so one model can
    hold a whole grid (n × accuracies × κ); every attribute then has that shape.

    Parameters
    ----------
    kappa : array_like
        Error consistency in [−1, 1].
    accuracy_reference : array_like
        Accuracy of the reference observer (the one that is copied), in (0, 1).
    accuracy_other : array_like
        Accuracy of the copying observer, in [0, 1].
    reference_observer : {"a", "b"}, default "a"
        Which observer of the 2×2 table ``[[n11, n10], [n01, n00]]`` (A in rows) is the
        reference: ``"a"`` means "B copies A", ``"b"`` means "A copies B". It only
        changes the orientation of :meth:`cell_probabilities`, :meth:`simulate` and
        :meth:`exact_table`; the decomposition is always "other copies reference".

    Attributes
    ----------
    kappa, accuracy_reference, accuracy_other : ndarray
    p_copy : ndarray
        Copy probability ``κ/m`` in [−1, 1]; negative: the inverted outcome is copied.
    mismatch : ndarray
        ``m = 2·a_r(1 − a_r) / (1 − c_exp)``; 1 when the accuracies are equal or
        ``a_r = ½`` (Prop. 1).
    latent_accuracy : ndarray
        Accuracy ``ã`` of the copying observer on trials it does not copy.
    accuracy_a, accuracy_b : ndarray
        The accuracies in the A/B orientation of ``reference``.

    Raises
    ------
    ValueError
        An accuracy outside [0, 1], a reference accuracy of exactly 0 or 1 (nothing to
        copy: ``p_copy`` is not identifiable), or κ outside ``[κ_min, κ_max]`` for
        these accuracies; the message states the feasible range of κ and of the other
        observer's accuracy.

    Notes
    -----
    **Feasibility.** The model exists (``|p| ≤ 1``, ``ã ∈ [0, 1]``) if and only if
    ``κ_min(a_r, a_o) ≤ κ ≤ κ_max(a_r, a_o)``. With ``D = 1 − c_exp`` and
    ``p = κD / (2a_r(1−a_r))``: for p ≥ 0, ``ã ≥ 0 ⇔ p ≤ a_o/a_r`` and
    ``ã ≤ 1 ⇔ p ≤ (1−a_o)/(1−a_r)``, so ``κ ≤ 2·min(a_o(1−a_r), a_r(1−a_o))/D = κ_max``;
    for p < 0 the same steps give ``|p| ≤ min(a_o/(1−a_r), (1−a_o)/a_r)``, i.e.
    ``κ ≥ −2·min(a_r·a_o, (1−a_r)(1−a_o))/D = κ_min``. ``|p| ≤ 1`` follows in both
    cases because one of the two ratios is at most 1.

    **Cell probabilities** (reference in rows, p ≥ 0)::

        P11 = a_r(p + (1−p)ã)   P10 = a_r(1−p)(1−ã)
        P01 = (1−a_r)(1−p)ã     P00 = (1−a_r)(p + (1−p)(1−ã))

    and for p < 0 (q = −p) ``P11 = a_r(1−q)ã``, ``P10 = a_r(q + (1−q)(1−ã))``,
    ``P01 = (1−a_r)(q + (1−q)ã)``, ``P00 = (1−a_r)(1−q)(1−ã)``.

    Examples
    --------
    >>> import trialwise as tw
    >>> m = tw.ec.CopyModel(kappa=0.5, accuracy_reference=0.75, accuracy_other=0.6)
    >>> round(float(m.p_copy), 4), round(float(m.mismatch), 4), round(float(m.latent_accuracy), 4)
    (0.6, 0.8333, 0.375)
    >>> m.cell_probabilities().round(4).tolist()
    [[0.5625, 0.1875], [0.0375, 0.2125]]
    >>> float(tw.ec.CopyModel(0.15, 0.5, 0.9).p_copy)    # a reference at 50 %: EC is p_copy
    0.15
    """

    def __init__(
        self,
        kappa: ArrayLike,
        accuracy_reference: ArrayLike,
        accuracy_other: ArrayLike,
        *,
        reference_observer: str = "a",
    ) -> None:
        reference = v.check_choice(reference_observer, "reference_observer", REFERENCES)
        k = v.check_kappa(kappa, "kappa")
        a_r = v.check_probability(accuracy_reference, "accuracy_reference")
        a_o = v.check_probability(accuracy_other, "accuracy_other")
        k, a_r, a_o = v.check_broadcast(k, a_r, a_o, names=("kappa", "accuracy_reference", "accuracy_other"))
        edge = (a_r <= 0) | (a_r >= 1)
        if edge.any():
            raise InvalidValueError(
                f"`accuracy_reference` must be in (0, 1); got {a_r[edge].ravel()[0]:g}: a reference that is "
                "always correct (or always wrong) gives nothing to copy that can be told apart from "
                "chance, so the copy probability is not identifiable"
            )
        lo, hi = kappa_bounds(a_r, a_o)
        bad = (k < lo - _TOL) | (k > hi + _TOL)
        if bad.any():
            i = np.flatnonzero(bad.ravel())[0]
            kk, ar, ao = k.ravel()[i], a_r.ravel()[i], a_o.ravel()[i]
            f_lo, f_hi = feasible_accuracy(ar, kk)
            other = (
                f"for this kappa `accuracy_other` must lie in [{f_lo:.4g}, {f_hi:.4g}]"
                if np.isfinite(f_lo)
                else "no accuracy_other attains this kappa with this reference"
            )
            raise InvalidValueError(
                f"the copy model cannot produce `kappa` = {kk:g} with accuracy_reference = {ar:g} and "
                f"accuracy_other = {ao:g} (the latent accuracy of the copying observer would lie "
                f"outside [0, 1]): kappa must lie in [{lo.ravel()[i]:.4g}, {hi.ravel()[i]:.4g}]; {other}"
            )
        m = _mismatch(a_r, a_o)
        p = np.clip(k / m, -1.0, 1.0)
        self._set(p, a_r, a_o, k, m, reference)

    # ------------------------------------------------------------------ constructors

    def _set(self, p, a_r, a_o, k, m, reference) -> None:
        latent = _latent_accuracy(p, a_r, a_o)
        self._p, self._a_r, self._a_o, self._k, self._m = (np.asarray(x, dtype=float) for x in (p, a_r, a_o, k, m))
        self._latent = np.asarray(latent, dtype=float)
        self._reference = reference

    @classmethod
    def from_copy_probability(
        cls,
        p_copy: ArrayLike,
        accuracy_reference: ArrayLike,
        latent_accuracy: ArrayLike,
        *,
        reference_observer: str = "a",
    ) -> CopyModel:
        """The model from its generative parameters (Klein et al. 2025, Algorithm 2).

        Parameters
        ----------
        p_copy : array_like
            Copy probability in [−1, 1] (negative: the inverted outcome is copied).
        accuracy_reference : array_like
            Reference accuracy in (0, 1).
        latent_accuracy : array_like
            Accuracy of the copying observer when it does not copy, in [0, 1].
        reference_observer : {"a", "b"}, default "a"
            Which observer of the 2×2 table (A in rows) is the reference that is copied.

        Returns
        -------
        CopyModel
            The model, of the broadcast shape of the three parameters.

        References
        ----------
        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> m = CopyModel.from_copy_probability(0.6, 0.75, 0.375)
        >>> round(float(m.kappa), 4), round(float(m.accuracy_other), 4)
        (0.5, 0.6)
        """
        reference = v.check_choice(reference_observer, "reference_observer", REFERENCES)
        p = v.check_kappa(p_copy, "p_copy")
        a_r = v.check_probability(accuracy_reference, "accuracy_reference", open_interval=True)
        lat = v.check_probability(latent_accuracy, "latent_accuracy")
        p, a_r, lat = v.check_broadcast(p, a_r, lat, names=("p_copy", "accuracy_reference", "latent_accuracy"))
        q = np.abs(p)
        a_o = np.where(p >= 0, p * a_r, q * (1 - a_r)) + (1 - q) * lat
        m = _mismatch(a_r, a_o)
        obj = cls.__new__(cls)
        obj._set(p, a_r, a_o, p * m, m, reference)
        obj._latent = np.where(1 - q > _TOL, lat, obj._latent).astype(float)
        return obj

    @classmethod
    def from_counts(cls, counts: ArrayLike, *, reference_observer: str = "a") -> CopyModel:
        """Decompose observed 2×2 tables: κ = p_copy · mismatch, with ``reference_observer`` copied.

        Parameters
        ----------
        counts : array_like, shape (..., 2, 2)
            ``[[n11, n10], [n01, n00]]`` (A in rows, correct first); a batch is allowed.
        reference_observer : {"a", "b"}, default "a"
            ``"a"``: B copies A; ``"b"``: A copies B.

        Returns
        -------
        CopyModel
            One model per table (shape ``counts.shape[:-2]``).

        Warns
        -----
        DegenerateDataWarning
            The reference is always correct or always wrong: ``p_copy``, ``mismatch``
            and ``latent_accuracy`` are NaN (κ is 0 or undefined there).

        Examples
        --------
        >>> m = CopyModel.from_counts([[60, 12], [8, 20]])
        >>> round(float(m.kappa), 4), round(float(m.p_copy), 4), round(float(m.mismatch), 4)
        (0.5247, 0.5476, 0.9582)
        >>> round(float(CopyModel.from_counts([[60, 12], [8, 20]], reference_observer="b").p_copy), 4)
        0.5074
        """
        reference = v.check_choice(reference_observer, "reference_observer", REFERENCES)
        c = v.check_counts(counts, batch=True)
        oriented = orient(c, reference)
        s = table_statistics(oriented)
        p, m, _ = copy_parameters_of_tables(oriented.astype(float))
        undefined = np.isnan(p)
        if undefined.any():
            warn(
                f"{int(undefined.sum())} of {undefined.size} tables have a reference observer that is "
                "always correct or always wrong: the copy decomposition is undefined there (NaN)",
                DegenerateDataWarning,
            )
        obj = cls.__new__(cls)
        obj._set(np.nan_to_num(p), s.accuracy_a, s.accuracy_b, s.kappa, m, reference)
        for name in ("_p", "_latent", "_m"):
            setattr(obj, name, np.where(undefined, np.nan, getattr(obj, name)))
        return obj

    def reversed(self) -> CopyModel:
        """The same pair seen the other way round: the copying observer becomes the reference.

        κ and both accuracies are unchanged; ``p_copy``, ``mismatch`` and
        ``latent_accuracy`` change (the model is asymmetric).

        Returns
        -------
        CopyModel
            The model with the other observer as reference.

        Examples
        --------
        >>> m = CopyModel(0.5, 0.75, 0.6)
        >>> r = m.reversed()
        >>> r.reference_observer, round(float(r.p_copy), 4), float(r.accuracy_a), float(r.accuracy_b)
        ('b', 0.4688, 0.75, 0.6)
        """
        return CopyModel(
            self._k, self._a_o, self._a_r, reference_observer="b" if self._reference == "a" else "a"
        )

    # ------------------------------------------------------------------ attributes

    @property
    def kappa(self) -> NDArray:
        return self._k[()]

    @property
    def p_copy(self) -> NDArray:
        return self._p[()]

    @property
    def mismatch(self) -> NDArray:
        return self._m[()]

    @property
    def latent_accuracy(self) -> NDArray:
        return self._latent[()]

    @property
    def accuracy_reference(self) -> NDArray:
        return self._a_r[()]

    @property
    def accuracy_other(self) -> NDArray:
        return self._a_o[()]

    @property
    def reference_observer(self) -> str:
        return self._reference

    @property
    def accuracy_a(self) -> NDArray:
        return (self._a_r if self._reference == "a" else self._a_o)[()]

    @property
    def accuracy_b(self) -> NDArray:
        return (self._a_o if self._reference == "a" else self._a_r)[()]

    @property
    def shape(self) -> tuple[int, ...]:
        return self._k.shape

    def __repr__(self) -> str:
        if self._k.ndim == 0:
            return (
                f"CopyModel(kappa={float(self._k):.4g}, accuracy_reference={float(self._a_r):.4g}, "
                f"accuracy_other={float(self._a_o):.4g}, reference_observer={self._reference!r}; "
                f"p_copy={float(self._p):.4g}, mismatch={float(self._m):.4g}, "
                f"latent_accuracy={float(self._latent):.4g})"
            )
        return f"CopyModel(<grid of shape {self.shape}>, reference_observer={self._reference!r})"

    def to_frame(self):
        """One row per grid point: kappa, accuracies, p_copy, mismatch, latent_accuracy.

        Returns
        -------
        pandas.DataFrame
            Columns ``kappa, accuracy_reference, accuracy_other, reference_observer, p_copy, mismatch,
            latent_accuracy``; one row per point of the (flattened) grid.

        Examples
        --------
        >>> frame = CopyModel(0.5, 0.75, 0.6).to_frame()
        >>> frame[["p_copy", "mismatch", "latent_accuracy"]].round(4).values.tolist()
        [[0.6, 0.8333, 0.375]]
        """
        import pandas as pd

        cols = {
            "kappa": self._k, "accuracy_reference": self._a_r, "accuracy_other": self._a_o,
            "reference_observer": np.broadcast_to(np.asarray(self._reference), self.shape),
            "p_copy": self._p, "mismatch": self._m, "latent_accuracy": self._latent,
        }
        return pd.DataFrame({k: np.ravel(x) for k, x in cols.items()})

    # ------------------------------------------------------------------ model outputs

    def cell_probabilities(self) -> NDArray:
        """Cell probabilities ``[[P11, P10], [P01, P00]]`` (A in rows), shape (..., 2, 2).

        Computed from the generative parameters (``p_copy``, ``latent_accuracy``); they
        equal :func:`trialwise.ec.cell_probabilities` of ``(kappa, accuracy_a, accuracy_b)``.

        Returns
        -------
        ndarray, shape (*shape, 2, 2)
            Probabilities summing to 1 over the last two axes.

        Examples
        --------
        >>> CopyModel(0.5, 0.75, 0.6).cell_probabilities().round(4).tolist()
        [[0.5625, 0.1875], [0.0375, 0.2125]]
        """
        p, a, lat = self._p, self._a_r, self._latent
        q = np.abs(p)
        pos = p >= 0
        p11 = a * np.where(pos, p + (1 - p) * lat, (1 - q) * lat)
        p10 = a * np.where(pos, (1 - p) * (1 - lat), q + (1 - q) * (1 - lat))
        p01 = (1 - a) * np.where(pos, (1 - p) * lat, q + (1 - q) * lat)
        p00 = (1 - a) * np.where(pos, p + (1 - p) * (1 - lat), (1 - q) * (1 - lat))
        cells = np.stack([np.stack([p11, p10], -1), np.stack([p01, p00], -1)], -2)
        return orient(cells, self._reference)

    def simulate(
        self, n: ArrayLike, size: int | tuple[int, ...] | None = None, *, rng: Any = None,
        workers: int | None = None,
    ) -> NDArray:
        """Simulated 2×2 tables of n trials: one multinomial draw of four counts each.

        Parameters
        ----------
        n : int or array_like of int
            Trials per table, broadcast against the model's shape.
        size : int or tuple, optional
            Number (shape) of independent tables per grid point, placed first.
        rng : None, int or numpy.random.Generator
        workers : int, optional
            Threads for large grids; the result does not depend on it.

        Returns
        -------
        ndarray of int64, shape (*size, *broadcast(shape, n), 2, 2)

        Examples
        --------
        >>> t = CopyModel(0.5, 0.75, 0.75).simulate(n=160, size=10_000, rng=0)
        >>> t.shape, int(t[0].sum())
        ((10000, 2, 2), 160)
        """
        n_arr = check_n(n)
        grid = v.check_broadcast(n_arr, self._k, names=("n", "the model's grid"))[0].size
        lead = _check_size(size)
        _check_total(int(np.prod(lead, dtype=np.int64)) * grid, "tables", "size", 4 * 8)
        v.check_workers(workers)
        return multinomial_tables(self.cell_probabilities(), n_arr, size=size, rng=rng, workers=workers)

    def simulate_trials(self, n: int, *, size: int | None = None, rng: Any = None) -> tuple[NDArray, NDArray]:
        """Trial sequences drawn as the model describes them (Klein et al. 2025, Algorithm 2).

        The reference answers with its accuracy; on each trial the other observer copies
        its outcome (or, for negative ``p_copy``, the inverted outcome) with probability
        ``|p_copy|`` and otherwise answers with its latent accuracy.

        Parameters
        ----------
        n : int
            Trials per sequence.
        size : int, optional
            Independent sequences per grid point (a leading axis).
        rng : None, int or numpy.random.Generator
            Seed or generator.

        Returns
        -------
        correct_a, correct_b : ndarray of bool, shape (*size, *shape, n)

        References
        ----------
        Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
        consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

        Examples
        --------
        >>> a, b = CopyModel(0.5, 0.75, 0.75).simulate_trials(1000, rng=0)
        >>> a.shape, bool(abs(a.mean() - 0.75) < 0.05)
        ((1000,), True)
        """
        n = v.check_positive_int(n, "n")
        gen = v.check_rng(rng)
        lead = () if size is None else (v.check_positive_int(size, "size"),)
        shape = lead + self.shape + (n,)
        _check_total(int(np.prod(shape, dtype=np.float64)), "trials", "n and size", 26)
        p = self._p[..., None]
        ref = gen.random(shape) < self._a_r[..., None]
        copies = gen.random(shape) < np.abs(p)
        own = gen.random(shape) < self._latent[..., None]
        other = np.where(copies, np.where(p >= 0, ref, ~ref), own)
        return (ref, other) if self._reference == "a" else (other, ref)

    def exact_table(self, n: ArrayLike) -> NDArray:
        """The 2×2 table of n items closest to the model's accuracies and κ.

        Each accuracy is rounded to the nearest multiple of 1/n; among the tables with
        those margins, the one whose κ is closest to the target is returned (κ is
        increasing in ``n11`` once the margins are fixed, so it is one of the two
        integers around the exact solution).

        Parameters
        ----------
        n : int or array_like of int
            Number of items, broadcast against the model's shape.

        Returns
        -------
        ndarray of int64, shape (*broadcast(shape, n), 2, 2), A in rows

        Examples
        --------
        >>> t = CopyModel(0.5, 0.75, 0.6).exact_table(160)
        >>> t.tolist()
        [[90, 30], [6, 34]]
        >>> round(float(kappa_from_counts(t)), 4)
        0.5
        """
        n_arr = check_n(n).astype(float)
        a, b, k = np.broadcast_arrays(self.accuracy_a, self.accuracy_b, self._k)
        n_arr, a, b, k = v.check_broadcast(n_arr, a, b, k, names=("n", "accuracy_a", "accuracy_b", "kappa"))
        ka, kb = np.round(a * n_arr), np.round(b * n_arr)
        d = ka * (n_arr - kb) + kb * (n_arr - ka)
        target = ka * kb / n_arr + k * d / (2 * n_arr)
        lo_n11 = np.maximum(0.0, ka + kb - n_arr)
        hi_n11 = np.minimum(ka, kb)
        cand = np.stack([np.floor(target), np.ceil(target)], axis=0)
        cand = np.clip(cand, lo_n11, hi_n11)
        tables = _tables_from_margins(cand, ka, kb, n_arr)
        kap = kappa_from_counts(tables)
        err = np.abs(np.where(np.isnan(kap), np.inf, kap) - k)
        pick = np.argmin(err, axis=0)
        best = np.take_along_axis(tables, pick[None, ..., None, None], axis=0)[0]
        return best.astype(np.int64)


def _tables_from_margins(n11: NDArray, ka: NDArray, kb: NDArray, n: NDArray) -> NDArray:
    n10 = ka - n11
    n01 = kb - n11
    n00 = n - ka - kb + n11
    return np.stack([np.stack([n11, n10], -1), np.stack([n01, n00], -1)], -2)


def check_n(n: ArrayLike) -> NDArray:
    arr = np.asarray(n)
    if arr.dtype.kind not in "iuf" or arr.size == 0:
        raise InvalidTypeError(f"`n` must be a positive integer or an array of them; got {v.show(n)}")
    if np.any(~np.isfinite(arr)) or np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise InvalidValueError(f"`n` must hold positive whole numbers of trials; got {v.show(arr.tolist())}")
    if np.any(arr > v.MAX_COUNT):
        raise InvalidValueError(f"`n` must be at most 2**53 trials (larger counts are not exact in float64); got "
                         f"{v.show(arr.tolist())}")
    return arr.astype(np.int64)


#: Most values one call of :meth:`CopyModel.simulate` / :meth:`CopyModel.simulate_trials` draws (2**30).
MAX_SIMULATED = 2**30


def _check_size(size: Any) -> tuple[int, ...]:
    """``size`` of :meth:`CopyModel.simulate`: None, a positive int, or a tuple of them."""
    if size is None:
        return ()
    if isinstance(size, tuple):
        return tuple(v.check_positive_int(s, "size") for s in size)
    return (v.check_positive_int(size, "size"),)


def _check_total(total: float, what: str, names: str, nbytes: int) -> None:
    if total > MAX_SIMULATED:
        raise InvalidValueError(
            f"this would simulate {total:.3g} {what} at once, about {total * nbytes / 1e9:.3g} GB of memory; at most "
            f"2**30 are drawn per call: lower {names}, or simulate in several calls"
        )


