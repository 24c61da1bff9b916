"""The one vectorised core of error consistency: from 2 × 2 tables (and their bootstrap replicates) to κ, its interval, its test and the degenerate-case notes.

:func:`error_consistency` and :func:`pairwise_error_consistency` both reduce their input to correctness
tables and call :func:`infer`: the interval of the chosen method (:func:`kappa_intervals`), the
independence test, the undefined estimates and replicates and the sparse-table coverage note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError
from trialwise._core.results import Note
from trialwise._core.warnings import (
    DegenerateDataWarning,
    SparseTableWarning,
    UndefinedReplicatesWarning,
    warn,
)
from trialwise._stats.bounds import attainable_kappa
from trialwise._stats.intervals import (
    CI_METHODS,
    CIMethod,
    interval,
    percentile_from_sorted,
)
from trialwise._stats.kappa import (
    canonical_orientation,
    kappa_from_counts,
    kappa_variance,
    table_statistics,
    unbiased_from_kappa,
)
from trialwise._stats.resampling import (
    bootstrap_tables,
    jackknife_tables,
    posterior_tables,
)
from trialwise._stats.significance import (
    INDEPENDENCE_TESTS,
    IndependenceTest,
    independence_pvalues,
)

__all__ = ["DEFAULT_CI_METHOD", "DEFAULT_TEST"]


#: Default interval method; see docs/validity.md for the coverage study behind it.
DEFAULT_CI_METHOD: CIMethod = "jeffreys"


#: Default independence test; see docs/validity.md for the type-I error study behind it.
DEFAULT_TEST: IndependenceTest = "fisher"


#: Smallest expected cell count (row total × column total / n) below which no interval
#: method kept its coverage within [93.5 %, 96.5 %] in the validity study: every grid
#: point with more covered 93.5–95.5 % with the Jeffreys interval (docs/validity.md).
SPARSE_EXPECTED_COUNT = 1.5


#: Share of undefined bootstrap replicates above which a warning is issued.
UNDEFINED_WARN_SHARE = 0.01


TestMethod = IndependenceTest  # the name these signatures used before the alias moved to significance


@dataclass(frozen=True)
class Options:
    confidence_level: float
    ci_method: str
    test: str
    n_resamples: int
    unbiased: bool
    rng: np.random.Generator


def check_options(confidence_level, ci_method, test, n_resamples, unbiased, rng) -> Options:
    if not isinstance(unbiased, (bool, np.bool_)):
        raise InvalidTypeError(f"`unbiased` must be True or False; got {unbiased!r}")
    return Options(
        confidence_level=v.check_confidence_level(confidence_level),
        ci_method=v.check_choice(ci_method, "ci_method", CI_METHODS),
        test=v.check_choice(test, "test", INDEPENDENCE_TESTS),
        n_resamples=(v.check_positive_int(n_resamples, "n_resamples") if ci_method == "analytic"  # draws nothing
                     else v.check_replicates(n_resamples)),
        unbiased=bool(unbiased),
        rng=v.check_rng(rng),
    )


def undefined_reasons(counts: NDArray, unbiased: bool = False) -> list[str | None]:
    """Why κ is undefined or exactly 0 by construction, per table (None if regular)."""
    c = np.asarray(counts).reshape(-1, 2, 2)
    n_, ca_, cb_ = c.sum(axis=(1, 2)), c[:, 0, :].sum(axis=1), c[:, :, 0].sum(axis=1)
    special = ((n_ == 0) | (ca_ == 0) | (ca_ == n_) | (cb_ == 0) | (cb_ == n_) | (unbiased & (n_ == 1))
               | (unbiased & (n_ == 2) & (c[:, 0, 1] == 1) & (c[:, 1, 0] == 1)))
    out: list[str | None] = [None] * len(c)
    for i in np.flatnonzero(special):  # the regular tables need no message: only the others are looked at
        out[i] = _undefined_reason(c[i].tolist(), unbiased)
    return out


def _undefined_reason(table: list, unbiased: bool) -> str | None:
    """The reason of :func:`undefined_reasons` for one table ``[[n11, n10], [n01, n00]]``."""
    (n11, n10), (n01, n00) = table
    n = n11 + n10 + n01 + n00
    states, kinds = [], []
    for name, correct in (("A", n11 + n10), ("B", n11 + n01)):
        if n and correct == n:
            states.append(f"{name} is always correct")
            kinds.append(1)
        elif n and correct == 0:
            states.append(f"{name} is always wrong")
            kinds.append(0)
    if n == 0:
        return "no items seen by both observers"
    if len(states) == 2 and kinds[0] == kinds[1]:
        return f"{' and '.join(states)}: expected agreement is 1, so EC is undefined"
    if len(states) == 2:
        return f"{' and '.join(states)}: observed and expected agreement are 0, so EC is exactly 0"
    if len(states) == 1:
        return f"{states[0]}: EC is exactly 0 whatever the other observer does"
    if unbiased and n == 1:
        return "one item only: the bias-corrected EC needs at least 2"
    if unbiased and n == 2 and n10 == 1 and n01 == 1:  # κ = -1 = 1 - n: n·κ / (n - 1 + κ) divides by 0
        return "two items, each got right by one observer only: the bias-corrected EC n·κ/(n − 1 + κ) is 0/0"
    return None


def _jackknife(counts: NDArray, unbiased: bool) -> tuple[NDArray, NDArray]:
    """Leave-one-out κ of (P, 2, 2) tables: the four distinct values and their weights."""
    return jackknife_tables(canonical_orientation(counts), lambda t: kappa_from_counts(t, unbiased=unbiased))


def kappa_intervals(counts: NDArray, statistic: NDArray, dist: NDArray | None, opts: Options,
                    jackknife: tuple[NDArray, NDArray | None] | None = None,
                    sorted_dist: tuple[NDArray, NDArray] | None = None):
    """Interval ``(low, high)`` and undefined-replicate count of P tables; dist (B, P).

    ``dist`` holds bootstrap replicates, or posterior draws for ``jeffreys``; it is
    ignored by ``analytic``. Bootstrap intervals are NaN where the estimate is; the
    Jeffreys interval is defined for every table (the posterior is proper). ``sorted_dist``:
    ``intervals.sorted_valid(dist)`` when the caller has it (percentile and Jeffreys intervals).
    """
    if sorted_dist is not None:
        n_undefined = len(sorted_dist[0]) - sorted_dist[1]
    else:
        n_undefined = np.zeros(counts.shape[0], dtype=np.int64) if dist is None else np.isnan(dist).sum(axis=0)
    se = jk = None
    if opts.ci_method == "analytic":
        se = np.sqrt(np.clip(kappa_variance(counts)[0], 0, None))
    elif opts.ci_method in ("bca", "jackknife-t"):
        jk = _jackknife(counts, opts.unbiased) if jackknife is None else jackknife
    estimate = table_statistics(counts).kappa if opts.ci_method == "analytic" else statistic
    if sorted_dist is not None and opts.ci_method in ("percentile", "jeffreys"):  # interval() of the sorted columns
        lo, hi = (np.clip(x, -1.0, 1.0)[()] for x in percentile_from_sorted(*sorted_dist, opts.confidence_level))
    else:
        lo, hi = interval(opts.ci_method, dist, estimate, opts.confidence_level, jackknife=jk, standard_error=se)
    if opts.ci_method == "analytic" and opts.unbiased:
        n = counts.sum(axis=(-2, -1))
        lo, hi = unbiased_from_kappa(lo, n), unbiased_from_kappa(hi, n)
    if opts.ci_method == "jeffreys":
        missing = np.asarray(counts).sum(axis=(-2, -1)) == 0  # no data: the prior is all there is
    else:
        missing = np.isnan(statistic)
    lo, hi = np.where(missing, np.nan, lo), np.where(missing, np.nan, hi)
    # κ lies in [−1, 1]; the bias-corrected κ_u = nκ/(n − 1 + κ) can fall below −1 for
    # tiny n, so every interval is clipped to the parameter range ...
    lo, hi = np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0)
    # ... and then holds its estimate where the estimate sits at a bound (the boundary rule)
    lo, hi = hold_estimate(counts, statistic, lo, hi)
    return lo, hi, n_undefined


def at_bounds(counts: ArrayLike) -> tuple[NDArray, NDArray]:
    """Per table: whether κ̂ is the largest (``upper``) and the smallest (``lower``) κ its accuracies allow.

    With the accuracies fixed, ``κ_max − κ̂ = 2·min(p10, p01)/D`` and ``κ̂ − κ_min = 2·min(p11, p00)/D``
    (``D = 1 − c_exp``; :func:`trialwise.ec.kappa_bounds`): κ̂ is at its upper bound exactly when one
    off-diagonal cell is empty (EC = 1 when both are), at its lower bound exactly when one diagonal
    cell is (EC = −1 when both are and the accuracies are ½). A table where an observer is always
    right or always wrong is at both (κ_min = κ_max = 0). Exact on counts: no tolerance.
    """
    c = np.asarray(counts)
    upper = np.minimum(c[..., 0, 1], c[..., 1, 0]) == 0
    lower = np.minimum(c[..., 0, 0], c[..., 1, 1]) == 0
    return upper, lower


def hold_estimate(counts: ArrayLike, statistic: ArrayLike, low: ArrayLike, high: ArrayLike
                  ) -> tuple[NDArray, NDArray]:
    """The boundary rule: an interval whose estimate sits at a bound of κ ends at the estimate on that side.

    Where κ̂ is the largest value the table's accuracies allow (:func:`at_bounds`) and the interval's
    upper end falls short of it, the upper end becomes κ̂; likewise the lower end at the smallest
    value. The interval is then one-sided at that end, as the Jeffreys binomial interval is made
    one-sided at x = 0 and x = n (Brown, Cai & DasGupta 2001, §4.1.2). Every other interval — every
    table off its bounds, and every interval that already holds κ̂ — is returned unchanged, bit for
    bit. NaN estimates and NaN ends stay as they are.
    """
    upper, lower = at_bounds(counts)
    est = np.asarray(statistic, dtype=float)
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    with np.errstate(invalid="ignore"):  # NaN compares False: left alone
        lo = np.where(lower & (lo > est), est, lo)
        hi = np.where(upper & (hi < est), est, hi)
    return lo[()], hi[()]


def boundary_notes(counts: NDArray, statistic: NDArray, low: NDArray, high: NDArray,
                   reasons: list[str | None], kappa_min: NDArray, kappa_max: NDArray) -> list[Note | None]:
    """The ``"boundary"`` note of each table whose interval ends at its estimate because κ̂ is at a bound.

    None elsewhere, and for the tables of ``reasons`` (EC undefined, or exactly 0 by construction:
    their own note says why). The note's ``values``: ``side`` ("upper" or "lower"), ``statistic`` and
    ``bound`` (κ_max or κ_min, on the estimator's scale).
    """
    c = np.asarray(counts).reshape(-1, 2, 2)
    est = np.asarray(statistic, dtype=float).reshape(-1)
    upper, lower = at_bounds(c)
    lo, hi = np.asarray(low, dtype=float).reshape(-1), np.asarray(high, dtype=float).reshape(-1)
    ok = np.array([r is None for r in reasons], dtype=bool) & np.isfinite(est)
    up, down = ok & upper & (hi == est), ok & lower & (lo == est)
    out: list[Note | None] = [None] * len(c)
    for i in np.flatnonzero(up | down):  # only the tables at a bound are looked at
        (n11, n10), (n01, n00) = c[i].tolist()
        if up[i]:
            side, bound, end = "upper", float(np.ravel(kappa_max)[i]), "largest"
            why = ("no item that only one observer got right" if n10 == n01 == 0 else
                   f"no item that only {'A' if n10 == 0 else 'B'} got right")
        else:
            side, bound, end = "lower", float(np.ravel(kappa_min)[i]), "smallest"
            why = ("no item that both got right and none that both got wrong" if n11 == n00 == 0 else
                   f"no item that both got {'right' if n11 == 0 else 'wrong'}")
        text = (f"EC = {est[i]:.4g} is the {end} value these accuracies allow ({why}), so the interval's "
                f"{side} end is the estimate itself (one-sided there; the boundary rule of docs/validity.md)")
        out[i] = Note(text, "boundary", {"side": side, "statistic": float(est[i]), "bound": bound})
    return out


def replicate_tables(table: NDArray, opts: Options) -> NDArray:
    """Replicates of one 2×2 table: bootstrap tables, or Jeffreys posterior draws."""
    if opts.ci_method == "jeffreys":
        return posterior_tables(table, opts.n_resamples, rng=opts.rng)
    return bootstrap_tables(table, opts.n_resamples, rng=opts.rng)


def infer(
    counts: NDArray,
    dist: NDArray | None,
    opts: Options,
    *,
    intervals: tuple[NDArray, NDArray, NDArray] | None = None,
) -> dict[str, Any]:
    """Point estimates, intervals and tests of P tables, shape (P, 2, 2); dist (B, P).

    ``intervals`` = (low, high, n_undefined) of the ``opts.n_resamples`` replicates, when the
    caller took them block by block (``dist`` is then None).
    """
    stats_ = table_statistics(counts)
    kappa = stats_.kappa
    statistic = unbiased_from_kappa(kappa, stats_.n) if opts.unbiased else kappa
    with np.errstate(invalid="ignore"):
        k_lo, k_hi = attainable_kappa(np.nan_to_num(stats_.accuracy_a), np.nan_to_num(stats_.accuracy_b))
    k_lo = np.where(stats_.n > 0, k_lo, np.nan)
    k_hi = np.where(stats_.n > 0, k_hi, np.nan)
    if opts.unbiased:
        k_lo, k_hi = unbiased_from_kappa(k_lo, stats_.n), unbiased_from_kappa(k_hi, stats_.n)
    if intervals is None:
        lo, hi, n_undefined = kappa_intervals(counts, statistic, dist, opts)
        n_replicates = 0 if dist is None else dist.shape[0]
    else:
        lo, hi, n_undefined = intervals
        n_replicates = opts.n_resamples
    n_pairs = counts.shape[0]
    pvalue, n_undef_null = independence_pvalues(
        counts, test=opts.test, n_resamples=opts.n_resamples, rng=opts.rng
    )
    reasons = undefined_reasons(counts, opts.unbiased)
    sparse = coverage_warnings(counts, reasons, opts.ci_method)
    boundary = boundary_notes(counts, statistic, lo, hi, reasons, k_lo, k_hi)

    degenerate = [r for r in reasons if r is not None]
    if degenerate:
        # One fixed text per kind (no counts), so Python's once-per-location filter collapses a loop of
        # calls into one line; the counts and reasons are in the result (`notes`).
        if n_pairs == 1:
            msg = degenerate[0]
        else:
            msg = ("some pairs are degenerate (EC undefined, or exactly 0 by construction); "
                   "see `pair_notes` for which and why")
        warn(msg, DegenerateDataWarning)
    flagged_sparse = [w for w in sparse if w is not None]
    if flagged_sparse:
        what = ("the Jeffreys interval tends to be conservative" if opts.ci_method == "jeffreys" else
                f"the {opts.ci_method} interval can under-cover badly")
        msg = (f"{'the table is' if n_pairs == 1 else 'some tables are'} too sparse for a calibrated interval "
               f"(smallest expected cell count < {SPARSE_EXPECTED_COUNT:g}); {what} there — the count is in "
               "the result's `notes`; see docs/validity.md")
        warn(msg, SparseTableWarning)
    if n_replicates:
        share = n_undefined / n_replicates
        flagged = [i for i in range(n_pairs) if share[i] > UNDEFINED_WARN_SHARE and reasons[i] is None]
        if flagged:
            cause = "a resample in which both observers were always correct or always wrong"
            msg = (f"more than {100 * UNDEFINED_WARN_SHARE:g}% of the bootstrap replicates had an undefined EC "
                   f"({cause}) and were left out of the interval; how many is in `n_undefined`")
            warn(msg, UndefinedReplicatesWarning)
    return dict(
        statistic=statistic, low=lo, high=hi, pvalue=pvalue, stats=stats_, kappa_min=k_lo, kappa_max=k_hi,
        n_undefined=n_undefined, n_undefined_null=n_undef_null, reasons=reasons, sparse=sparse, boundary=boundary,
    )


def coverage_warnings(counts: NDArray, reasons: list, ci_method: str) -> list[str | None]:
    """The coverage warning of each table (None where the validity study vouches for it)."""
    c = np.asarray(counts, dtype=float).reshape(-1, 2, 2)
    n = c.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = c.sum(axis=2)[:, :, None] * c.sum(axis=1)[:, None, :] / n[:, None, None]
    e_min = expected.reshape(-1, 4).min(axis=1)
    what = ("the Jeffreys interval tends to be conservative here (up to 97.7 % coverage at nominal 95 %)"
            if ci_method == "jeffreys" else
            f"the {ci_method} interval can under-cover badly here (down to 34 % at nominal 95 %)")
    return [
        None if (r is not None or not (e < SPARSE_EXPECTED_COUNT)) else
        f"the smallest expected cell count is {e:.2g} (< {SPARSE_EXPECTED_COUNT:g}): no interval method is "
        f"calibrated for so sparse a table; {what} — see docs/validity.md"
        for r, e in zip(reasons, e_min)
    ]
