"""Do two observers differ in error consistency with the same reference? (Klein et al. 2025, §3.3)

Items give triplets of correctness ``(r_ref, r_X, r_Y)``; the statistic is
``Δ = κ(ref, X) − κ(ref, Y)``. Everything is computed from the eight counts of the
triplets, shape ``(2, 2, 2)`` with axes (reference, X, Y) and index 0 = correct, so that
a bootstrap replicate is one multinomial draw over eight cells and a random swap of X
and Y is two binomial draws per reference outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, Note, Result
from trialwise._core.shown import shown
from trialwise._stats.streams import records_seed
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.intervals import CI_METHODS, interval
from trialwise._stats.kappa import kappa_from_counts
from trialwise._stats.kappa_derivatives import kappa_difference_variance
from trialwise.io.labels import code_labels
from trialwise._stats.tables import correctness_table, triplet_margins
from trialwise.ec.restricted import restricted_wald_interval, restricted_wald_pvalues
from trialwise._stats.resampling import jackknife_tables, multinomial_cells, posterior_tables
from trialwise._stats.monte_carlo import monte_carlo_test
from trialwise.ec.inference import DEFAULT_CI_METHOD

__all__ = ["DIFFERENCE_TESTS", "DEFAULT_DIFFERENCE_TEST", "error_consistency_difference", "difference_pvalues"]

#: Tests of H0: κ(ref, X) = κ(ref, Y).
DifferenceTest = Literal["restricted-wald", "swap", "paper"]
DIFFERENCE_TESTS: tuple[DifferenceTest, ...] = get_args(DifferenceTest)
#: Default difference test: it holds its level when X and Y differ in accuracy (docs/validity.md).
DEFAULT_DIFFERENCE_TEST = "restricted-wald"
#: Interval methods of a difference: the bootstrap/posterior methods of
#: :data:`trialwise._stats.intervals.CI_METHODS` and the inverted restricted Wald test.
DIFFERENCE_CI_METHODS = CI_METHODS + ("restricted-wald",)


@dataclass(frozen=True, repr=False)
class ErrorConsistencyDifferenceResult(Result):
    """Difference of two observers' EC with one reference (:func:`trialwise.error_consistency_difference`).

    ``statistic`` = ``kappa_x − kappa_y``; ``confidence_interval`` from the jointly
    resampled triplets (``ci_method``); ``pvalue`` of H0: Δ = 0 (``test``); ``counts``
    the (2, 2, 2) triplet table (reference, x, y; index 0 = correct);
    ``bootstrap_distribution`` the replicate Δ's (NaN = undefined, ``n_undefined`` of
    them). ``to_frame()`` has one row with the columns ``frame_columns``.
    """

    statistic: float = field(metadata=shown("difference", in_repr=True, repr_name="delta"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method",
        detail=lambda res: f"B = {res.n_resamples}" if _drawn(res) else ""))
    pvalue: float = field(metadata=shown(
        "p-value (equal EC)", in_repr=True, repr_name="p", format="pvalue", method="test"))
    n: int = field(metadata=shown("items n", in_repr=True, format="int"))
    kappa_x: float = field(metadata=shown("EC x, EC y", in_repr=True, repr_name="EC_x"))
    kappa_y: float = field(metadata=shown("EC x, EC y", in_repr=True, repr_name="EC_y"))
    accuracy_reference: float = field(metadata=shown("accuracy ref, x, y"))
    accuracy_x: float = field(metadata=shown("accuracy ref, x, y"))
    accuracy_y: float = field(metadata=shown("accuracy ref, x, y"))
    confidence_level: float
    ci_method: str
    test: str
    counts: NDArray = field(compare=False)
    n_resamples: int = 0
    n_undefined: int = field(default=0, metadata=shown(
        "undefined replicates",
        format=lambda value, res: f"{value} of {res.n_resamples}" if _drawn(res) else None))
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n", "kappa_x", "kappa_y",
                "accuracy_reference", "accuracy_x", "accuracy_y", "ci_method", "test", "n_resamples",
                "n_undefined")
    summary_title = "Difference in error consistency with one reference: EC(ref, x) - EC(ref, y)"


def _drawn(res: ErrorConsistencyDifferenceResult) -> bool:
    """Whether the interval comes from the replicates (the closed-form intervals use none of them)."""
    return res.ci_method not in ("restricted-wald", "analytic")


#: The (reference, X) and (reference, Y) tables of triplet counts (:func:`trialwise._stats.tables.triplet_margins`).
pair_tables = triplet_margins


def _delta(counts: NDArray) -> NDArray:
    rx, ry = triplet_margins(counts)
    return kappa_from_counts(rx) - kappa_from_counts(ry)


def _swapped(counts: NDArray, rng: np.random.Generator, size: tuple = ()) -> NDArray:
    """Swap X and Y on every item with probability ½ (independently), on counts.

    Only items where X and Y differ change: of the ``d10`` items (X right, Y wrong) and
    the ``d01`` items (X wrong, Y right) of each reference outcome, each is flipped with
    probability ½, so afterwards ``#(X right, Y wrong) = Bin(d10, ½) + Bin(d01, ½)``.
    """
    c = np.asarray(counts)
    d10, d01 = c[..., :, 0, 1], c[..., :, 1, 0]
    stay = rng.binomial(np.broadcast_to(d10, size + d10.shape), 0.5)
    flip = rng.binomial(np.broadcast_to(d01, size + d01.shape), 0.5)
    out = np.array(np.broadcast_to(c, size + c.shape), dtype=c.dtype)
    out[..., :, 0, 1] = stay + flip
    out[..., :, 1, 0] = d10 + d01 - (stay + flip)
    return out


def difference_pvalues(
    counts: ArrayLike,
    *,
    test: str = DEFAULT_DIFFERENCE_TEST,
    n_resamples: int = 10_000,
    rng: Any = None,
    bootstrap: NDArray | None = None,
) -> NDArray:
    """Two-sided p-values for H0: κ(ref, X) = κ(ref, Y), one per triplet table.

    Parameters
    ----------
    counts : array_like of int, shape (..., 2, 2, 2)
        Triplet counts, axes (reference, X, Y), index 0 = correct.
    test : {"restricted-wald", "swap", "paper"}
        ``restricted-wald`` (default): the Wald statistic ``Δ̂ / se`` with the standard
        error evaluated at the maximum-likelihood cell probabilities under Δ = 0
        (:func:`trialwise.ec.restricted.restricted_wald_pvalues`; Miettinen & Nurminen 1985),
        referred to the normal distribution. A test of equal EC: it holds its level when X
        and Y have different accuracies (max 6.0 % at α = 5 % over the 80-point grid of
        ``docs/validity.md``); it draws nothing (``n_resamples`` and ``rng`` are unused).
        ``swap``: permutation test of *exchangeability*. Under H0, X and Y are exchangeable, so their
        responses are swapped on each item with probability ½ and Δ recomputed;
        ``p = (1 + #{|Δ*| ≥ |Δ|}) / (1 + M)`` over the M swaps with a defined Δ*.
        Exact for exchangeable X and Y, but X and Y with equal EC and different accuracies
        are not exchangeable, and then it rejects too often (up to 31 % at α = 5 %, n = 50;
        ``docs/validity.md``). ``paper``: the procedure of Klein et al. 2025, §3.3
        describes it, for reproducing its numbers: a bootstrap distribution of Δ, a null
        distribution from the same replicates with X and Y swapped at random, and
        Student's two-sample t-test (``scipy.stats.ttest_ind``) between the two
        distributions. Its p-value shrinks as ``n_resamples`` grows, whatever the data,
        so it is not a valid test (``docs/validity.md`` measures its type-I error).
    n_resamples : int
        Swaps M (``swap``), or bootstrap replicates (``paper``).
    rng : seed or Generator
    bootstrap : ndarray, shape (n_resamples, ..., 2, 2, 2), optional
        ``paper`` only: bootstrap tables to use (drawn if not given).
    """
    c = np.asarray(counts, dtype=np.int64)
    test = v.check_choice(test, "test", DIFFERENCE_TESTS)
    m = v.check_positive_int(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    observed = _delta(c)
    if test == "restricted-wald":
        p = restricted_wald_pvalues(c)
    elif test == "swap":
        # Each chunk draws two binomials per table, so the seeded p-values depend on the chunk
        # size: keep it NULL_BLOCK // (number of tables), the engine's default.
        p = monte_carlo_test(observed, lambda g, b: _delta(_swapped(c, g, (b,))), m, rng=gen,
                             alternative="two-sided").pvalue
    else:
        reps = multinomial_cells(c / np.maximum(c.sum(axis=(-3, -2, -1), keepdims=True), 1),
                                 c.sum(axis=(-3, -2, -1)), size=m, rng=gen, cell_ndim=3) if bootstrap is None \
            else np.asarray(bootstrap)
        boot = _delta(reps)
        null = _delta(_swapped(reps, gen))
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.asarray(stats.ttest_ind(boot, null, axis=0, nan_policy="omit").pvalue, dtype=float)
    return np.where(np.isnan(observed), np.nan, p)[()]


def _triplet_counts(reference, x, y, truth, counts) -> NDArray:
    if counts is not None:
        if reference is not None or x is not None or y is not None or truth is not None:
            raise InvalidTypeError("pass either the observers' data (`reference`, `x`, `y`) or `counts`, not both")
        c = np.asarray(counts)
        if c.shape != (2, 2, 2):
            raise InvalidValueError(f"`counts` must have shape (2, 2, 2) (reference, x, y; index 0 = correct); got {c.shape}")
        return v.check_counts(c, "counts", batch=True)
    if reference is None or x is None or y is None:
        raise InvalidTypeError("error_consistency_difference needs `reference`, `x` and `y`, or `counts` of shape (2, 2, 2)")
    names = ("reference", "x", "y")
    v.check_aligned(reference=reference, x=x, y=y, truth=truth)
    if truth is not None:
        coding = code_labels({"reference": reference, "x": x, "y": y, "truth": truth})
        right = [coding.matches(name, "truth") for name in names]
    else:
        right = [v.check_binary_vector(obj, name) for obj, name in zip((reference, x, y), names)]
        v.check_same_length(reference=right[0], x=right[1], y=right[2])
    return correctness_table(*right)


@records_seed
def error_consistency_difference(
    reference: ArrayLike | None = None,
    x: ArrayLike | None = None,
    y: ArrayLike | None = None,
    truth: ArrayLike | None = None,
    *,
    counts: ArrayLike | None = None,
    confidence_level: float = 0.95,
    ci_method: str | None = None,
    test: str = DEFAULT_DIFFERENCE_TEST,
    n_resamples: int = 10_000,
    rng: Any = None,
) -> ErrorConsistencyDifferenceResult:
    """Difference of two observers' error consistency with the same reference.

    ``Δ = κ(reference, x) − κ(reference, y)`` on the items all three saw, with a
    confidence interval from jointly resampled triplets and a test of Δ = 0.

    Parameters
    ----------
    reference, x, y : array_like, shape (n,)
        Correctness (bool or 0/1) of the reference (e.g. a human) and the two candidates
        (e.g. two models), paired by item — or their responses when ``truth`` is given.
    truth : array_like, shape (n,), optional
        Correct labels; a trial is correct when the response equals it.
    counts : array_like, shape (2, 2, 2), optional
        Instead of the data: triplet counts with axes (reference, x, y), index 0 =
        correct (``counts[0, 1, 0]``: reference right, x wrong, y right).
    confidence_level : float, default 0.95
    ci_method : str, optional
        ``"restricted-wald"`` or any of :data:`trialwise._stats.intervals.CI_METHODS`. Default
        (``None``): the test's own interval — ``"restricted-wald"`` with the default test,
        the library default :data:`trialwise.ec.inference.DEFAULT_CI_METHOD` with the others.
        ``restricted-wald`` inverts the restricted Wald test
        (:func:`trialwise.ec.restricted.restricted_wald_interval`), so it excludes 0 exactly
        when its p-value is below ``1 − confidence_level``. Bootstrap methods resample the
        triplets (one multinomial over the eight cells), ``jeffreys`` draws the eight
        cell probabilities from their Dirichlet(counts + ½) posterior, ``analytic`` is
        the Wald interval with the multinomial delta-method variance
        (:func:`trialwise._stats.kappa_derivatives.kappa_difference_variance`).
    test : {"restricted-wald", "swap", "paper"}, default "restricted-wald"
        See :func:`difference_pvalues`. ``swap`` tests exchangeability of X and Y, not
        equal EC: it rejects too often when their accuracies differ.
    n_resamples : int, default 10000
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ErrorConsistencyDifferenceResult
        ``statistic`` (Δ), ``confidence_interval``, ``pvalue``, ``kappa_x``,
        ``kappa_y``, accuracies, ``counts`` and the replicate distribution of Δ.

    References
    ----------
    Miettinen, O. & Nurminen, M. (1985). Comparative analysis of two rates. Statistics in
    Medicine 4(2), 213–226 (the restricted variance of the default test).

    Examples
    --------
    >>> import numpy as np, trialwise as tw
    >>> rng = np.random.default_rng(0)
    >>> human = rng.random(500) < 0.75
    >>> close = np.where(rng.random(500) < 0.6, human, rng.random(500) < 0.75)
    >>> far = np.where(rng.random(500) < 0.2, human, rng.random(500) < 0.75)
    >>> res = tw.error_consistency_difference(human, close, far, rng=1)
    >>> round(res.statistic, 2), res.pvalue < 0.001
    (0.41, True)
    """

    level = v.check_confidence_level(confidence_level)
    test = v.check_choice(test, "test", DIFFERENCE_TESTS)
    own = "restricted-wald" if test == "restricted-wald" else DEFAULT_CI_METHOD
    method = v.check_choice(own if ci_method is None else ci_method, "ci_method", DIFFERENCE_CI_METHODS)
    m = (v.check_positive_int(n_resamples, "n_resamples") if method in ("restricted-wald", "analytic")  # no draws
         else v.check_replicates(n_resamples))
    gen = v.check_rng(rng)
    c = _triplet_counts(reference, x, y, truth, counts)
    n = int(c.sum())
    if n == 0:
        raise InvalidValueError("no items: the triplet counts are all zero")
    rx, ry = triplet_margins(c)
    kx, ky = float(kappa_from_counts(rx)), float(kappa_from_counts(ry))
    delta = kx - ky
    notes: tuple[Note, ...] = ()
    ref_right = int(c[0].sum())
    if np.isnan(delta):
        which = "x" if np.isnan(kx) else "y"
        notes = (Note(f"EC of the reference with {which} is undefined (both always correct or both always wrong), "
                      "so the difference is NaN", "undefined"),)
    elif ref_right in (0, n):  # a constant reference: both ECs are 0 whatever x and y do
        state = "always correct" if ref_right == n else "always wrong"
        notes = (Note(f"the reference is {state}: its EC with x and with y is exactly 0 whatever they do, so the "
                      f"difference is 0 by construction and its interval and p-value say nothing about x and y",
                      "undefined", {"reference": state}),)
    if notes:
        warn(str(notes[0]), DegenerateDataWarning)
    if method == "jeffreys":
        reps = posterior_tables(c, m, rng=gen, cell_ndim=3)
    else:
        reps = multinomial_cells(c / n, n, size=m, rng=gen, cell_ndim=3)
    dist = _delta(reps)
    se = jk = None
    if method == "analytic":
        se = np.sqrt(max(float(kappa_difference_variance(c)[1]), 0.0))
    elif method in ("bca", "jackknife-t"):
        jk = jackknife_tables(c, _delta, cell_ndim=3)
    if method == "restricted-wald":
        lo, hi = restricted_wald_interval(c, level)
    else:
        lo, hi = interval(method, dist, delta, level, jackknife=jk, standard_error=se, bounds=(-2.0, 2.0))
    if np.isnan(delta):
        lo = hi = np.asarray(np.nan)
    p = float(difference_pvalues(c, test=test, n_resamples=m, rng=gen,
                                 bootstrap=reps if (test == "paper" and method != "jeffreys") else None))
    acc = [float(c[0].sum() / n), float(c[:, 0].sum() / n), float(c[:, :, 0].sum() / n)]
    return ErrorConsistencyDifferenceResult(
        statistic=float(delta),
        confidence_interval=ConfidenceInterval(float(lo), float(hi)),
        pvalue=p,
        n=n,
        kappa_x=kx,
        kappa_y=ky,
        accuracy_reference=acc[0],
        accuracy_x=acc[1],
        accuracy_y=acc[2],
        confidence_level=level,
        ci_method=method,
        test=test,
        counts=c,
        n_resamples=m,
        n_undefined=int(np.isnan(dist).sum()),
        bootstrap_distribution=dist,
        notes=notes,
    )
