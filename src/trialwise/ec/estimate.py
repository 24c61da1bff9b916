"""Error consistency of two observers, and of every pair of many observers.

Both entry points turn their input into 2×2 correctness tables and then share one
vectorised core (:func:`_infer`): bootstrap interval, analytic interval, independence
test, degenerate-case accounting.

Why this module is long: about 1,050 lines, because both entry points share one core and
its argument checks (including a Dask array of correctness read block by block), and the
pairwise bootstrap runs block by block over pairs (memory bounded in the number of pairs);
the virtual items of the Jeffreys pseudo-counts are read as Walsh–Hadamard sums; the result
classes live in :mod:`trialwise.ec.results`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval, make_notes
from trialwise._stats.resampling import records_seed
from trialwise._core.threads import thread_budget
from trialwise._core.warnings import DegenerateDataWarning, SparseTableWarning, UndefinedReplicatesWarning, warn
from trialwise._stats.intervals import CI_METHODS, CIMethod, interval, jackknife_t_pvalue, percentile_from_sorted, sorted_valid
from trialwise.ec.results import ErrorConsistencyResult, PairwiseErrorConsistencyResult
from trialwise.io.labels import code_labels
from trialwise._stats.kappa import (
    kappa_from_sums,
    kappa_kernel,
    unbiased_from_kappa,
    attainable_kappa,
    canonical_orientation,
    kappa_from_counts,
    kappa_variance,
    table_statistics,
)
from trialwise._stats.resampling import (
    JEFFREYS_PRIOR,
    ReplicateWeights,
    bootstrap_sums,
    bootstrap_tables,
    child_seed,
    jackknife_tables,
    monte_carlo_pvalue,
    posterior_tables,
)
from trialwise._stats.significance import INDEPENDENCE_TESTS, IndependenceTest, independence_pvalues
from trialwise._stats.tables import cluster_sums, correctness_table, pair_columns, pairwise_tables, tables_from_sums

__all__ = ["error_consistency", "pairwise_error_consistency", "DEFAULT_CI_METHOD", "DEFAULT_TEST"]

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
#: Pairs per block of the pairwise bootstrap are a multiple of this (:func:`pair_block_size`).
#: (It named the streams of the Jeffreys pseudo-counts, one per 128 pairs, until they became the
#: weights of shared virtual items, :func:`prior_items`, which no block size can change.)
PAIR_STREAM_BLOCK = 128
#: Working memory of one block of pairs in :func:`pairwise_error_consistency` (replicates,
#: their sorted copy in the interval, item columns): see :func:`pair_block_size`.
PAIR_BLOCK_BYTES = 256 * 2**20
#: The replicates of all pairs (``bootstrap_distribution``, B × pairs × 8 bytes) are kept by
#: default up to this size; ``keep_replicates=True`` keeps them whatever their size.
KEEP_REPLICATES_BYTES = 256 * 2**20
                            # (their ~6 temporaries stay in a core's L2 cache)

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
    special = (n_ == 0) | (ca_ == 0) | (ca_ == n_) | (cb_ == 0) | (cb_ == n_) | (unbiased & (n_ == 1))
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
    # tiny n, so every interval is clipped to the parameter range.
    return np.clip(lo, -1.0, 1.0), np.clip(hi, -1.0, 1.0), n_undefined


def replicate_tables(table: NDArray, opts: Options) -> NDArray:
    """Replicates of one 2×2 table: bootstrap tables, or Jeffreys posterior draws."""
    if opts.ci_method == "jeffreys":
        return posterior_tables(table, opts.n_resamples, rng=opts.rng)
    return bootstrap_tables(table, opts.n_resamples, rng=opts.rng)


def _infer(
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
        n_undefined=n_undefined, n_undefined_null=n_undef_null, reasons=reasons, sparse=sparse,
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


def _counts_from_input(a, b, truth, counts) -> NDArray:
    if counts is not None:
        if a is not None or b is not None or truth is not None:
            raise InvalidTypeError(
                "pass either the observers' data (`a`, `b`, optionally `truth`) or `counts`, not both"
            )
        return v.check_counts(counts)
    if a is None or b is None:
        raise InvalidTypeError("error_consistency needs two observers `a` and `b`, or `counts=[[n11, n10], [n01, n00]]`")
    v.check_aligned(a=a, b=b, truth=truth)
    if truth is not None:  # responses and truth coded together: trialwise.io.labels
        coding = code_labels({"a": a, "b": b, "truth": truth})
        ca, cb = coding.matches("a", "truth"), coding.matches("b", "truth")
    else:
        ca = v.check_binary_vector(a, "a")
        cb = v.check_binary_vector(b, "b")
        v.check_same_length(a=ca, b=cb)
    return correctness_table(ca, cb)


@records_seed
def error_consistency(
    a: ArrayLike | None = None,
    b: ArrayLike | None = None,
    truth: ArrayLike | None = None,
    *,
    counts: ArrayLike | None = None,
    confidence_level: float = 0.95,
    ci_method: CIMethod = DEFAULT_CI_METHOD,
    test: TestMethod = DEFAULT_TEST,
    n_resamples: int = 10_000,
    unbiased: bool = False,
    rng: Any = None,
) -> ErrorConsistencyResult:
    """Error consistency of two observers, with a confidence interval and a test of κ = 0.

    Error consistency (EC, Geirhos et al. 2020) is Cohen's κ computed on the
    trial-by-trial correctness of two observers on the same items.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Either the observers' correctness (bool or 0/1), or — when ``truth`` is given —
        their responses (labels of any hashable type), paired by position.
    truth : array_like, shape (n,), optional
        The correct label of every item; a trial is correct when the response equals it.
    counts : array_like, shape (2, 2), optional
        Instead of ``a``/``b``: the table ``[[n11, n10], [n01, n00]]`` with A in rows,
        B in columns, "correct" first.
    confidence_level : float, default 0.95
    ci_method : {"jeffreys", "bca", "percentile", "basic", "hdi", "analytic", "jackknife-t"}, default "jeffreys"
        ``jeffreys``: the equal-tailed interval of κ under the Jeffreys prior
        Dirichlet(½, ½, ½, ½) on the table's cell probabilities, from ``n_resamples``
        posterior draws; it keeps its coverage near floor and ceiling, where a cell of
        the table is empty and every bootstrap interval collapses. Bootstrap intervals
        over items (B = ``n_resamples``): bias-corrected and accelerated, percentile
        (the method of Klein et al. 2025), basic, or highest-density. ``analytic``: the Wald
        interval with the large-sample standard error of Fleiss, Cohen & Everitt
        (1969). ``jackknife-t``: κ̂ ± t_{n−1}·SE with the jackknife SE over items (made
        for clusters: :func:`pairwise_error_consistency`). Measured coverage of each, and why
        Jeffreys is the default: ``docs/validity.md``.
    test : {"fisher", "boschloo", "copy-null", "asymptotic"}, default "fisher"
        Two-sided test of H0: κ = 0 (independent observers); see
        :func:`trialwise._stats.significance.independence_pvalues`. Why Fisher is the default:
        ``docs/validity.md``.
    n_resamples : int, default 10000
        Bootstrap replicates (and Monte-Carlo size of the copy-null test).
    unbiased : bool, default False
        Report the bias-corrected κ_u = n·κ/(n − 1 + κ) (Martín Andrés & Álvarez
        Hernández 2024); intervals are computed on the same scale. The test is
        unchanged (κ_u = 0 ⇔ κ = 0).
    rng : None, int or numpy.random.Generator
        Seed for reproducible bootstrap and Monte-Carlo draws.

    Returns
    -------
    ErrorConsistencyResult
        ``statistic``, ``confidence_interval``, ``pvalue``, ``n``, accuracies,
        ``c_obs``, ``c_exp``, bounds, the number of undefined replicates, the
        bootstrap distribution, and ``copy_model``: the decomposition
        EC = p_copy · mismatch with bootstrap CIs (:class:`CopyModelFit`).

    Warns
    -----
    DegenerateDataWarning
        An observer is always correct or always wrong: κ is then exactly 0 (one
        observer) or undefined, NaN (both; ``c_exp = 1``). ``notes`` says
        which.
    UndefinedReplicatesWarning
        More than 1 % of the bootstrap replicates had an undefined κ; they are counted
        in ``n_undefined`` and left out of the interval.
    SparseTableWarning
        The smallest expected cell count is below 1.5 (e.g. 50 trials at accuracies
        0.95): no interval method is calibrated there (``notes`` says more).

    Raises
    ------
    ValueError, TypeError
        Unequal lengths, non-binary correctness, NaN, empty input, bad counts or
        options; the message names the argument.

    See Also
    --------
    pairwise_error_consistency : all pairs of many observers, resampled jointly.

    Notes
    -----
    ``κ = (c_obs − c_exp)/(1 − c_exp)`` with ``c_obs`` the share of items both got
    right or both got wrong and ``c_exp = a_A·a_B + (1−a_A)(1−a_B)``. The bootstrap
    resamples items with replacement; for one pair this is a multinomial draw over the
    four cells of the table, with the same distribution as index resampling.

    References
    ----------
    Geirhos, Meding & Wichmann (2020), Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.
    Klein et al. (2025), Quantifying uncertainty in error consistency. NeurIPS.

    Examples
    --------
    >>> import trialwise as tw
    >>> res = tw.error_consistency(counts=[[60, 12], [8, 20]], rng=0)
    >>> round(res.statistic, 3), res.n
    (0.525, 100)
    >>> [round(x, 2) for x in res.confidence_interval]
    [0.32, 0.68]
    >>> res.pvalue < 1e-5
    True
    """
    opts = check_options(confidence_level, ci_method, test, n_resamples, unbiased, rng)
    table = _counts_from_input(a, b, truth, counts)
    # Replicates are drawn from the canonical orientation (so that swapping A and B gives
    # identical numbers) and turned back to A-in-rows for the copy-model decomposition.
    reps = replicate_tables(canonical_orientation(table), opts)
    if table[0, 1] > table[1, 0]:
        reps = np.swapaxes(reps, -1, -2)
    dist = None if opts.ci_method == "analytic" else kappa_from_counts(reps, unbiased=opts.unbiased).reshape(-1, 1)
    out = _infer(table[None], dist, opts)
    s = out["stats"]
    return ErrorConsistencyResult(
        statistic=float(out["statistic"][0]),
        confidence_interval=ConfidenceInterval(float(out["low"][0]), float(out["high"][0])),
        pvalue=float(out["pvalue"][0]),
        n=int(s.n[0]),
        confidence_level=opts.confidence_level,
        method="bias-corrected kappa" if opts.unbiased else "kappa",
        ci_method=opts.ci_method,
        test=opts.test,
        counts=table,
        accuracy_a=float(s.accuracy_a[0]),
        accuracy_b=float(s.accuracy_b[0]),
        c_obs=float(s.c_obs[0]),
        c_exp=float(s.c_exp[0]),
        kappa_min=float(out["kappa_min"][0]),
        kappa_max=float(out["kappa_max"][0]),
        n_resamples=0 if dist is None else opts.n_resamples,
        n_undefined=int(out["n_undefined"][0]),
        n_undefined_null=int(out["n_undefined_null"][0]),
        bootstrap_distribution=np.empty(0) if dist is None else dist[:, 0],
        bootstrap_tables=reps,
        notes=make_notes(("undefined", out["reasons"][0]), ("coverage", out["sparse"][0])),
    )


# --------------------------------------------------------------------------- pairwise


def _is_dask_array(x: Any) -> bool:
    return hasattr(x, "__dask_graph__") and hasattr(x, "chunks") and hasattr(x, "ndim")


def _stored_correctness(correct: Any, truth: Any, opts: Options) -> tuple[Any, Any, tuple]:
    """A Dask array of correctness (items × observers) → lazy uint8 (correct & seen, seen), observer numbers.

    Nothing is read here: each block of pairs reads (and checks) its observers' columns where
    it runs (:func:`trialwise._stats.distributed.computed_first`).
    """
    if truth is not None:
        raise InvalidValueError("`truth` goes with responses in memory; a Dask array `correct` must hold the "
                                "correctness itself (0/1, bool, NaN = not seen)")
    if opts.ci_method == "analytic":
        raise InvalidValueError("`ci_method`='analytic' needs every table on the client; with a Dask array "
                                "`correct` choose a resampling interval (jeffreys, bca, percentile, ...)")
    if correct.ndim != 2 or any(np.isnan(s) for s in correct.shape):
        raise InvalidValueError(f"`correct` as a Dask array must be 2-D (items × observers) with known chunk "
                                f"sizes (e.g. to_dask_array(lengths=True)); got shape {correct.shape}")
    if correct.shape[0] == 0 or correct.shape[1] < 2:
        raise InvalidValueError(f"`correct` needs items and at least 2 observers; got shape {correct.shape}")
    right = correct.map_blocks(_stored_right, dtype=np.uint8)
    seen = correct.map_blocks(_stored_seen, dtype=np.uint8)
    return right, seen, tuple(range(correct.shape[1]))


def _stored_right(block: NDArray) -> NDArray:
    return _correctness_values(np.asarray(block))[0]


def _stored_seen(block: NDArray) -> NDArray:
    return _correctness_values(np.asarray(block))[1]


def _correctness_values(values: NDArray) -> tuple[NDArray, NDArray]:
    """Numeric or bool correctness (NaN = not seen) → (correct & seen, seen) as uint8, or a clear error."""
    if values.dtype == bool:
        return values.astype(np.uint8), np.ones(values.shape, np.uint8)
    if values.dtype == object:  # a missing value of pandas (pd.NA of a nullable column, None) = not seen, as NaN
        values = np.where(v.missing_mask(values), np.nan, values)
    try:
        f = values.astype(float)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"`correct` must hold correctness (0/1, bool, NaN = not seen); got {_first_text(values)}; for response "
            f"labels pass `truth=`"
        ) from exc
    seen = ~np.isnan(f)
    bad = seen & (f != 0) & (f != 1)
    if bad.any():
        raise InvalidValueError(f"`correct` must be 0/1 (NaN = not seen); found values {np.unique(f[bad])[:5].tolist()}")
    return (seen & (f == 1)).astype(np.uint8), seen.astype(np.uint8)


def _first_text(values: NDArray) -> str:
    """The first value that is not a number, and where (``row 3, column 1``), for the error about it."""
    for index, x in np.ndenumerate(values):
        try:
            float(x)
        except (TypeError, ValueError):
            where = f" at row {index[0]}, column {index[1]}" if len(index) == 2 else ""
            return f"{v.show(x)}{where}"
    return "values that are not numbers"


def _correctness_matrix(correct, truth) -> tuple[NDArray, NDArray, tuple]:
    """(items × observers) correctness → (correct & seen, seen) as uint8, observer names."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a dependency
        pd = None
    if pd is not None and isinstance(correct, pd.DataFrame):
        names = tuple(correct.columns)
        values = correct.to_numpy()
    else:
        values = np.asarray(correct)
        names = tuple(range(values.shape[1])) if values.ndim == 2 else ()
    if values.ndim != 2:
        raise InvalidValueError(f"`correct` must be 2-D (items × observers); got shape {values.shape}")
    if values.shape[0] == 0:
        raise InvalidValueError("`correct` has no items (0 rows)")
    if values.shape[1] < 2:
        raise InvalidValueError(f"`correct` needs at least 2 observers (columns); got {values.shape[1]}")
    if len(set(names)) != len(names):
        raise InvalidValueError("`correct` has duplicate observer names (columns)")
    if truth is not None:
        t = np.asarray(truth, dtype=object)
        if t.shape != (values.shape[0],):
            raise InvalidValueError(f"`truth` must have one label per item ({values.shape[0]}); got shape {t.shape}")
        # responses and truth coded together (trialwise.io.labels); a missing response = not seen
        coding = code_labels({"truth": t, "correct": values.astype(object).ravel()}, allow_missing=("correct",),
                             same_length=False)
        codes = coding.codes["correct"].reshape(values.shape)
        seen = codes >= 0
        right = codes == coding.codes["truth"][:, None]
        return right.astype(np.uint8), seen.astype(np.uint8), names
    return (*_correctness_values(values), names)


def _pair_indices(names: tuple, pairs) -> list[tuple[int, int]]:
    if pairs is None:
        return list(combinations(range(len(names)), 2))
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise InvalidTypeError(f"`pairs` must be a list of (observer_a, observer_b); got {pairs!r}")
    pos = {name: i for i, name in enumerate(names)}
    out = []
    for item in pairs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InvalidValueError(f"`pairs` must be a list of (observer_a, observer_b); got element {item!r}")
        a, b = item
        for name in (a, b):
            if name not in pos:
                raise InvalidValueError(f"`pairs` names observer {name!r}, which is not a column; observers: {list(names)[:10]}")
        if a == b:
            raise InvalidValueError(f"`pairs` pairs observer {a!r} with itself")
        out.append((pos[a], pos[b]))
    if not out:
        raise InvalidValueError("`pairs` is empty")
    return out


def cluster_codes(clusters: ArrayLike, n_items: int) -> NDArray:
    """Cluster codes 0 … C − 1 of ``n_items`` items from their labels, or a clear error."""
    import pandas as pd

    labels = pd.Series(np.asarray(clusters, dtype=object).ravel())
    if len(labels) != n_items:
        raise InvalidValueError(f"`clusters` must have one label per item ({n_items}); got {len(labels)}")
    if labels.isna().any():
        raise InvalidValueError(f"`clusters` has a missing label at item {int(np.flatnonzero(labels.isna())[0])}")
    codes = pd.factorize(labels, sort=True)[0].astype(np.intp)
    if len(codes) and codes.max() < 1:  # one cluster: every replicate the same, an interval of no width
        raise InvalidValueError(f"`clusters` needs at least 2 clusters; got 1 ({labels.iloc[0]!r} for every item); "
                                "cluster by a finer column, or leave `clusters` out")
    return codes


def strata_of_clusters(strata: ArrayLike, codes: NDArray) -> NDArray:
    """The stratum of every cluster; an error when a cluster spans strata."""
    import pandas as pd

    s = pd.Series(np.asarray(strata, dtype=object).ravel())
    if len(s) != len(codes):
        raise InvalidValueError(f"`strata` must have one label per item ({len(codes)}); got {len(s)}")
    per = s.groupby(codes).nunique()
    if (per > 1).any():
        raise InvalidValueError(f"`clusters`: cluster {int(per.index[per > 1][0])} spans several strata; a "
                                "cluster must lie within one stratum")
    return s.groupby(codes).first().to_numpy()


def _pair_columns(right: NDArray, seen: NDArray, idx: NDArray, fixed_total: bool = True) -> tuple[NDArray, Any]:
    """Item columns whose weighted sums give every pair's table, and the map sums → tables."""
    cols, to_sums = pair_columns(right, seen, idx, fixed_total=fixed_total)
    return cols, lambda sums: tables_from_sums(*to_sums(sums))


def pair_block_size(n_pairs: int, n_items: int, n_resamples: int, budget: int | None = None) -> int:
    """Pairs per block of the pairwise bootstrap: a multiple of :data:`PAIR_STREAM_BLOCK`.

    A pair of a block holds its B replicates and their sorted copy (``16·B`` bytes, plus
    ``8·B`` of slack for the interval's temporaries) and its item columns (four per pair, as
    uint8 and as float64: ``40·n_items`` bytes), so a block of ``m`` pairs takes about
    ``m·(24·B + 40·n_items)`` bytes; ``m`` is the largest multiple of
    :data:`PAIR_STREAM_BLOCK` within ``budget`` (default :data:`PAIR_BLOCK_BYTES`; at least one
    stream block, at most all pairs).
    """
    per_pair = 24 * n_resamples + 40 * n_items
    m = max(1, (PAIR_BLOCK_BYTES if budget is None else budget) // per_pair) // PAIR_STREAM_BLOCK * PAIR_STREAM_BLOCK
    return int(min(max(m, PAIR_STREAM_BLOCK), n_pairs))


def _sylvester_columns(virtual: NDArray) -> NDArray | None:
    """The column c of the Sylvester–Hadamard matrix that each column of ``virtual`` (N × k of 0/1) is, or None.

    :func:`prior_items` gives observer j the column c = j + 1; a block of pairs holds the virtual
    items of its own observers only, so their columns are read back from the rows 2**i (where
    ``H[2**i, c] = −1`` iff bit i of c is set) and checked against every row.
    """
    n, k = virtual.shape
    if n < 4 or n & (n - 1):
        return None
    cols = np.zeros(k, dtype=np.int64)
    bit = 1
    while bit < n:
        cols |= (virtual[bit] == 0).astype(np.int64) * bit
        bit <<= 1
    return cols if np.array_equal(_sylvester_signs(np.arange(n), cols), virtual != 0) else None


def _sylvester_signs(rows: NDArray, cols: NDArray) -> NDArray:
    """Where the Sylvester–Hadamard matrix is +1 at ``rows`` × ``cols``: ``H[r, c] = (−1)^popcount(r & c)``."""
    bits, parity = rows[:, None] & cols, np.zeros((len(rows), len(cols)), dtype=np.int64)
    while bits.any():  # parity of the set bits (numpy < 2 has no bitwise_count)
        parity ^= bits & 1
        bits >>= 1
    return parity == 0


def _walsh_hadamard(w: NDArray, transposed: bool = False) -> NDArray:
    """``w @ H`` for the Sylvester–Hadamard matrix H of order N = w.shape[1] (a power of 2), in float64.

    The fast transform: log2(N) butterflies (u, v) → (u + v, u − v), between two buffers, on
    the transpose (N × b: each butterfly is a run of whole rows, 0.4 ms for 1,429 × 64 or
    334 × 256 on one core; one BLAS product with H took 10–30× that on 2 busy cores). On the
    exact grid of the engine's weights every value met is a sum of at most N of them with signs,
    so it is exact. ``transposed``: return ``(w @ H).T`` (N × b), as computed.
    """
    f = np.array(np.transpose(w), dtype=np.float64, order="C")
    n, b = f.shape
    o = np.empty_like(f)
    h = 1
    while h < n:
        g, q = f.reshape(n // (2 * h), 2, h * b), o.reshape(n // (2 * h), 2, h * b)
        np.add(g[:, 0], g[:, 1], out=q[:, 0])
        np.subtract(g[:, 0], g[:, 1], out=q[:, 1])
        f, o = o, f
        h *= 2
    return f if transposed else np.ascontiguousarray(f.T)


def prior_items(n_observers: int) -> NDArray:
    """The virtual items that carry the Jeffreys pseudo-counts of every pair: (N, n_observers) of 0/1.

    Columns 1 … n_observers of the Sylvester–Hadamard matrix of order N (the smallest power
    of 2 above ``n_observers``), read as correct (+1) / wrong (−1): every two columns show each
    of the four patterns (both right, A only, B only, both wrong) on exactly N/4 rows — an
    orthogonal array of strength 2 (Hedayat, Sloane & Stufken 1999, ch. 7). Seen by every
    observer and given independent ``Gamma(½ / (N/4))`` weights in every replicate, the N/4
    virtual items in each cell of a pair's table add an exact ``Gamma(½)`` pseudo-count to it,
    independent across its four cells: one (B × N) draw gives every pair its Jeffreys
    pseudo-counts, which ride along in the matrix product.
    """
    n = 4
    while n <= n_observers:
        n *= 2
    # Sylvester: H[r, c] = (−1)^popcount(r & c); built a slice of rows at a time, as uint8
    cols = np.arange(1, n_observers + 1)
    out = np.empty((n, n_observers), dtype=np.uint8)
    for r in range(0, n, 1024):
        out[r:r + 1024] = _sylvester_signs(np.arange(r, min(n, r + 1024)), cols)
    return out


def bootstrap_pair_block(right: NDArray, seen: NDArray, idx: NDArray, start: int, codes: NDArray | None,
                         opts: Options, weights: ReplicateWeights, seed: int, keep: bool,
                         out: NDArray | None = None) -> dict[str, Any]:
    """Tables, intervals and replicate summaries of one block of pairs: the body of the pairwise bootstrap.

    ``right``/``seen`` hold the items × observers of the block only, ``idx`` its pairs as
    column indices into them, ``start`` the position of its first pair among all pairs. With
    Jeffreys weights (``weights.prior``) their last rows are the virtual items of
    :func:`prior_items` (``seed`` is then the seed of their weights, already in ``weights``).
    Everything returned is O(pairs of the block) — plus the block's B × pairs replicates
    when ``keep``. Run in this process by :func:`pairwise_error_consistency`, or as a task on
    a Dask worker (:mod:`trialwise._stats.distributed`), which gets ``weights`` pickled as their
    stream, not as arrays. ``out`` (B × pairs of the block, float64): write the replicates there
    (a view of the caller's kept array; then none are returned).
    """
    fixed_total = opts.ci_method != "jeffreys" and codes is None
    n = len(idx)
    n_virtual = weights.n_rows - weights.n_items
    n_real = right.shape[0] - n_virtual
    cols, to_sums = pair_columns(right[:n_real], seen[:n_real], idx, fixed_total=fixed_total)
    # the tables are the columns' plain sums (what pairwise_tables would build the columns again for; three
    # Gram matrices of the observer columns were 4× less CPU, but small 2-thread BLAS products wait for a busy
    # core: 200+ ms of wall time each at load 5, against 25 ms for this sum)
    counts = tables_from_sums(*to_sums(cols.sum(axis=0, dtype=np.int64)[None]))[0].astype(np.int64)
    if codes is not None:  # resample clusters: their summed columns
        cols = cluster_sums(cols, codes)
    # Jeffreys: Bayesian bootstrap (Exp(1) weights, shared by all pairs) plus, through the
    # virtual items, Gamma(½) pseudo-counts per cell: each pair's replicate table is a draw from
    # its Jeffreys posterior Dirichlet(counts + ½), and the pairs stay jointly resampled. The
    # virtual items are seen by all, so no product per pair is needed for them: n gets their total
    # weight, ca and cb the weight of the items each observer gets right, and n11 (Sylvester
    # columns: the rows both get right are where H_a = H_b = +1, and H_a·H_b = H_(a xor b)) the
    # quarter (F_0 + F_a + F_b + F_(a xor b)) / 4 of their Walsh–Hadamard transform F — gathered in
    # κ's slices, all exact (sums and differences of the grid's multiples, the same values as the
    # products of the 0/1 columns, so the same bits).
    virtual = np.asarray(right[n_real:])
    dtype = weights.dtype or np.float64
    sylvester = _sylvester_columns(virtual) if n_virtual else None
    if sylvester is None:  # not prior_items' columns: a product per pair for n11
        both = (virtual[:, idx[:, 0]] & virtual[:, idx[:, 1]]).T.astype(dtype)
        each = virtual.T.astype(dtype)
    else:
        pair_codes = sylvester[idx[:, 0]] ^ sylvester[idx[:, 1]]
    # the replicates pair by pair (n × B, each pair's contiguous: κ's slices gather whole rows, and the
    # intervals sort contiguous runs), seen as B × n
    d_rows = np.empty((n, opts.n_resamples)) if out is None else out.T
    constant_n = fixed_total and bool(np.all(seen[:n_real]))
    d = d_rows.T
    done = [0]

    def statistic(sums: NDArray, w: NDArray) -> NDArray:  # sums: (columns, b), the product X.T @ W.T
        extra = None
        b = sums.shape[1]
        if n_virtual:  # exact too: multiples of the grid step, below 2**24 (2**53) of them
            wv = w[:, weights.n_items:]
            if sylvester is None:
                extra = (wv.sum(axis=1)[None], both @ wv.T, each @ wv.T, idx[:, 0], idx[:, 1])
            else:
                f = _walsh_hadamard(wv, transposed=True)  # f[c] = Σ_v wv[:, v]·H[v, c]; row 0 the total weight
                # in the weights' dtype (exact: the weights of subsets of the virtual items, and minus them):
                # float32 parts are added in float32 in κ's slices (kappa._float32_parts)
                right_weight = (0.5 * (f[:1] + f[sylvester])).astype(dtype)  # of the rows each observer gets right
                table = (0.5 * (f - f[:1])).astype(dtype)
                extra = (f[:1].astype(dtype), (table, pair_codes), right_weight, idx[:, 0], idx[:, 1])
        r0 = done[0]
        done[0] += b
        n_sums, *rest = to_sums(sums.T)
        parts = [np.ascontiguousarray(x.T) for x in rest]  # views, (pairs, b)
        # every replicate's weights sum to the items, all seen by all: n is that (a view, not a transposed copy)
        parts.insert(0, np.broadcast_to(np.float64(n_real), (n, b)) if constant_n else np.ascontiguousarray(n_sums.T))
        kappa_from_sums(*parts, unbiased=opts.unbiased, extra=extra, out=d_rows[:, r0:done[0]], pairs_first=True)
        return np.empty((b, 0))  # written into d: no list of chunks to concatenate

    bootstrap_sums(cols, opts.n_resamples, statistic=statistic, weights=weights, with_weights=True,
                   columns_first=True)
    st = table_statistics(counts)
    estimate = unbiased_from_kappa(st.kappa, st.n) if opts.unbiased else st.kappa
    jk_p = np.full(n, np.nan)
    cluster_jk = None
    if codes is not None and opts.ci_method == "jackknife-t":  # leave one cluster out, not one item
        with np.errstate(invalid="ignore", divide="ignore"):
            cluster_jk = kappa_kernel(tables_from_sums(*to_sums(cols.sum(axis=0)[None] - cols)), unbiased=opts.unbiased)
        p_up = jackknife_t_pvalue(estimate, cluster_jk)
        jk_p = np.minimum(1.0, 2.0 * np.minimum(p_up, 1.0 - p_up))  # two-sided, as the tests of the table
    # percentile and Jeffreys intervals: the replicates sorted once, and the tails counted in them
    sorted_d = sorted_valid(d) if opts.ci_method in ("percentile", "jeffreys") else None
    lo, hi, n_undefined = kappa_intervals(counts, estimate, d, opts, sorted_dist=sorted_d,
                                          jackknife=None if cluster_jk is None else (cluster_jk, None))
    if sorted_d is None:
        with np.errstate(invalid="ignore"):  # NaN (undefined) compares False: counted in neither tail
            below, above = np.sum(d <= 0, axis=0), np.sum(d >= 0, axis=0)
        n_ok = d.shape[0] - np.sum(np.isnan(d), axis=0)
    else:
        s, n_ok = sorted_d
        below, above = _count_sorted(s, n_ok, strict=False), n_ok - _count_sorted(s, n_ok, strict=True)
    return dict(counts=counts, lo=lo, hi=hi, n_undefined=n_undefined, below=below, above=above,
                n_ok=n_ok, jackknife_pvalue=jk_p, dist=d if keep and out is None else None)


def _count_sorted(s: NDArray, k: NDArray, strict: bool) -> NDArray:
    """How many of the first ``k`` values of each column of ``s`` (sorted) are ≤ 0 (< 0 if ``strict``): a binary search."""
    lo, hi = np.zeros(s.shape[1], dtype=np.int64), np.asarray(k, dtype=np.int64).copy()
    cols = np.arange(s.shape[1])
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        v = s[mid, cols[active]]
        right = v < 0 if strict else v <= 0
        lo[active] = np.where(right, mid + 1, lo[active])
        hi[active] = np.where(right, hi[active], mid)
        active = active[lo[active] < hi[active]]
    return lo


def _pairwise_bootstrap(right: NDArray, seen: NDArray, idx: NDArray, codes: NDArray | None, strata: Any,
                        opts: Options, batch: int | None, keep_replicates: bool | None,
                        client: Any = None) -> dict[str, Any]:
    """Tables, intervals and replicate summaries of every pair, one block of pairs at a time.

    Every block sees the same replicate weights (:class:`trialwise._stats.resampling.ReplicateWeights`,
    with the virtual items' weights of the Jeffreys pseudo-counts), so the numbers do not depend
    on the block size; only a
    block's B × pairs replicates are held, unless they are kept for the result. With a Dask
    ``client`` the blocks (:func:`bootstrap_pair_block`) run as tasks on its cluster. There, and
    for a Dask array in storage, a block is a tile of pairs (:func:`trialwise._stats.distributed.tile_blocks`):
    the pairs between two ranges of about √m observers, so that it reads (or is sent) the
    columns of those two ranges only, and each chunk is read about as often as there are tiles.
    """
    n_pairs = len(idx)
    jeffreys = opts.ci_method == "jeffreys"
    n_units = right.shape[0] if codes is None else int(codes.max()) + 1
    B = opts.n_resamples
    m = pair_block_size(n_pairs, right.shape[0], B)
    keep = 8 * B * n_pairs <= KEEP_REPLICATES_BYTES if keep_replicates is None else bool(keep_replicates)
    seed = child_seed(opts.rng, bits=64) if jeffreys else 0  # drawn before the weights, as always
    prior = virtual = None
    stored = hasattr(right, "__dask_graph__")  # a Dask array in storage: each block reads its observers' columns
    if jeffreys:  # the virtual items of the pseudo-counts, after the real ones
        virtual = prior_items(right.shape[1])
        if not stored:  # (a stored block gets those of its observers: _stored_pair_block)
            right = np.concatenate([right, virtual])
            seen = np.concatenate([seen, np.ones_like(virtual)])
        prior = (len(virtual), JEFFREYS_PRIOR / (len(virtual) // 4), seed)
    column_max = 1 if codes is None else int(cluster_sums(np.ones((len(codes), 1), np.int64), codes).max())  # largest cluster
    weights = ReplicateWeights(n_units, B, rng=opts.rng, strata=strata, batch=batch,
                               kind="bayesian" if jeffreys else "multinomial", n_columns=4 * m,
                               prior=prior, column_max=column_max)
    counts = np.empty((n_pairs, 2, 2), dtype=np.int64)
    lo, hi = np.empty(n_pairs), np.empty(n_pairs)
    n_undefined = np.empty(n_pairs, dtype=np.int64)
    below, above, n_ok = (np.empty(n_pairs, dtype=np.int64) for _ in range(3))
    jk_p = np.full(n_pairs, np.nan)
    dist = np.empty((n_pairs, B)).T if keep else None  # each pair's replicates contiguous (bootstrap_pair_block)

    def block(sl: Any) -> tuple:  # sl: the block's positions among the pairs (a slice or an array)
        used, local = np.unique(idx[sl], return_inverse=True)
        start = int(sl.start if isinstance(sl, slice) else sl[0])
        own = (right[:, used], seen[:, used]) + ((None if virtual is None else virtual[:, used],) if stored else ())
        return (*own, local.reshape(-1, 2), start, codes, opts, weights, seed, keep)

    body: Any = bootstrap_pair_block
    if stored:
        from trialwise._stats.distributed import computed_first

        body = partial(computed_first, _stored_pair_block)
    if client is not None:
        from trialwise._stats.distributed import task_block_size

        m = task_block_size(client, n_pairs, m, PAIR_STREAM_BLOCK)
    if stored or client is not None:  # tiles of ~√m observers: a block reads (or is sent) two tiles' columns
        from trialwise._stats.distributed import tile_blocks, tile_edges

        edges = tile_edges(right.shape[1], int(np.sqrt(m)), getattr(right, "chunks", (None, None))[1])
        blocks: list[Any] = tile_blocks(idx, edges, m)
    else:  # runs of consecutive pairs
        blocks = [slice(start, min(start + m, n_pairs)) for start in range(0, n_pairs, m)]
    if client is None:
        def run(sl: Any) -> dict[str, Any]:  # a local run of pairs writes its replicates straight into the kept array
            if dist is not None and not stored and isinstance(sl, slice):
                return body(*block(sl), out=dist[:, sl])
            return body(*block(sl))

        results: Any = ((sl, run(sl)) for sl in blocks)
    else:
        from trialwise._stats.distributed import map_blocks

        results = map_blocks(client, body, ((sl, block(sl)) for sl in blocks))
        weights.advance()  # the caller's rng moves on exactly as after the local pass
    for sl, res in results:
        counts[sl], lo[sl], hi[sl], n_undefined[sl] = res["counts"], res["lo"], res["hi"], res["n_undefined"]
        below[sl], above[sl], n_ok[sl], jk_p[sl] = res["below"], res["above"], res["n_ok"], res["jackknife_pvalue"]
        if dist is not None and res["dist"] is not None:
            dist[:, sl] = res["dist"]
        del res
    return dict(counts=counts, intervals=(lo, hi, n_undefined), below=below, above=above, n_ok=n_ok,
                dist=dist, kept=keep, jackknife_pvalue=jk_p)


def _stored_pair_block(right: NDArray, seen: NDArray, virtual: NDArray | None, *args: Any) -> dict[str, Any]:
    """:func:`bootstrap_pair_block` of a block read from storage (``right``/``seen`` read where it
    runs, :func:`trialwise._stats.distributed.computed_first`), with its observers' virtual items
    (:func:`prior_items`, Jeffreys) appended: ``virtual`` travels with the block (N × its observers),
    not with the whole array's graph."""
    if virtual is not None:
        right = np.concatenate([right, virtual])
        seen = np.concatenate([seen, np.ones_like(virtual)])
    return bootstrap_pair_block(right, seen, *args)


@records_seed
def pairwise_error_consistency(
    correct: ArrayLike,
    *,
    truth: ArrayLike | None = None,
    pairs: list[tuple[Any, Any]] | None = None,
    strata: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
    confidence_level: float = 0.95,
    ci_method: CIMethod | None = None,
    test: TestMethod = DEFAULT_TEST,
    n_resamples: int = 10_000,
    unbiased: bool = False,
    rng: Any = None,
    batch: int | None = None,
    keep_replicates: bool | None = None,
    client: Any = None,
) -> PairwiseErrorConsistencyResult:
    """Error consistency of every pair of observers, with jointly resampled intervals.

    Parameters
    ----------
    correct : array_like or pandas.DataFrame, shape (n_items, n_observers)
        Correctness (0/1 or bool) of each observer (column) on each item (row); NaN (or
        another missing value of pandas: ``pd.NA`` of a nullable column, None) means the
        observer did not see the item. DataFrame columns name the observers
        (otherwise they are numbered 0, 1, ...). With ``truth``: the responses (labels),
        missing (NaN/None) = not seen. Or a ``dask.array.Array`` of correctness in storage
        (``da.from_npy_stack``, ``da.from_zarr``), chunked along the observers: each block of
        pairs (a tile: the pairs between two ranges of observers) reads and checks the chunks of
        its observers where it runs (on the workers with ``client``), and the client reads none (not with ``truth`` or
        ``ci_method="analytic"``; docs/distributed.md).
    truth : array_like, shape (n_items,), optional
        The correct label of each item; turns ``correct`` into a table of responses.
    pairs : list of (observer_a, observer_b), optional
        The pairs to compute (default: all pairs, in column order).
    strata : array_like, shape (n_items,), optional
        Item labels (e.g. conditions); items are then resampled within each stratum.
    clusters : array_like, shape (n_items,), optional
        A cluster label per item (a passage, a subject): clusters, not items, are resampled
        (within strata, which must then hold whole clusters), because items of one cluster
        succeed and fail together and resampling them one by one gives intervals that are
        too narrow (docs/benchmark.md, "Clustered items"). ``ci_method="jeffreys"`` is then
        the Bayesian bootstrap over clusters plus the Jeffreys pseudo-counts. At least 2
        clusters: one cluster is an error (every replicate would be the same).
    ci_method : {"jeffreys", "bca", "percentile", "basic", "hdi", "analytic", "jackknife-t"}, optional
        As in :func:`error_consistency`. Default: ``"jeffreys"``; with ``clusters``,
        ``"jackknife-t"``: κ̂ ± t_{G−1}·SE, the SE from leaving out one cluster at a time
        (:func:`trialwise._stats.intervals.jackknife_t_interval`), and the p-value its two-sided t
        test (``test`` reads ``"cluster-jackknife-t"``). With a few dozen clusters or fewer the
        cluster bootstrap under-covers (89 % at 15 clusters) and this interval does not
        (docs/validity.md, "Clustered items").
    confidence_level, test, n_resamples, unbiased, rng
        As in :func:`error_consistency`.
    batch : int, optional
        Replicates per chunk of the matrix product (default: sized to ~64 MB).
    keep_replicates : bool, optional
        Keep every pair's replicates in ``bootstrap_distribution``, an (n_resamples,
        n_pairs) float64 array: 8·B·n_pairs bytes (1.6 GB for 200 observers at B =
        10,000; 4 GB for 1,000 observers at B = 1,000). Default (None): kept when that is
        at most :data:`KEEP_REPLICATES_BYTES` (256 MiB), else dropped, shape (0, n_pairs),
        and ``notes`` says so.
        The intervals, p-values and ``n_undefined`` are the same either way.
    client : dask.distributed.Client, optional
        Run the blocks of pairs of the bootstrap as tasks on this Dask cluster
        (:mod:`trialwise._stats.distributed`; ``pip install "trialwise[dask]"``). Each task
        regenerates the replicate weights from the seed and returns only its pairs' summaries;
        the result is identical to the one without ``client`` for the same ``rng``, whatever the
        number of workers (docs/distributed.md). Ignored by ``ci_method="analytic"``.

    Returns
    -------
    PairwiseErrorConsistencyResult
        Arrays with one entry per pair; ``to_frame()`` has one row per pair with
        columns ``observer_a, observer_b, statistic, ci_low, ci_high, pvalue, n, ...``;
        ``pair(a, b)`` gives one pair as an :class:`ErrorConsistencyResult`;
        ``bootstrap_distribution`` is (n_resamples, n_pairs), or (0, n_pairs) when the
        replicates were not kept (see ``keep_replicates``).

    Warns
    -----
    DegenerateDataWarning
        Some pairs have an observer who is always correct or wrong on the shared items,
        or share no item (n = 0, EC NaN).
    UndefinedReplicatesWarning
        Some pairs had more than 1 % undefined bootstrap replicates.

    Notes
    -----
    All pairs are resampled **jointly**: every replicate draws one multinomial weight
    vector over the items, shared by every pair, so means and differences of ECs across
    pairs have correct bootstrap uncertainty. A pair uses the items both observers saw;
    within a replicate its n is the weighted number of such items. Every table of every
    replicate is a weighted column sum, so the bootstrap is one chunked matrix product
    (:func:`trialwise._stats.resampling.bootstrap_sums`).

    Memory is bounded in the number of pairs as well as in B: the pairs are bootstrapped
    in blocks (:func:`pair_block_size`: about ``m·(24·B + 40·n_items)`` bytes for a block
    of ``m`` pairs, within :data:`PAIR_BLOCK_BYTES` = 256 MiB, at least 128 pairs), each
    block reduced to its intervals and tail counts before the next; every block sees the
    same replicate weights (:class:`trialwise._stats.resampling.ReplicateWeights`, kept when B ×
    n_items × 8 bytes ≤ 128 MiB, else drawn again from the saved stream). Beyond that the
    call holds O(n_items × n_observers + n_pairs) (the tables and per-pair results) and,
    if kept, the replicates. The Jeffreys pseudo-counts are the weights of N virtual items
    seen by every observer (:func:`prior_items`: an orthogonal array, N the smallest power of
    2 above the number of observers, each item ``Gamma(2/N)``), on which each pair's four cells
    get exactly independent ``Gamma(½)`` pseudo-counts; their weights are part of the
    replicate weights, so a seed gives the same numbers whatever the block size.

    Every weighted sum is exact — integer weights, or Bayesian weights rounded per replicate
    to a grid ``2**-k`` fine enough (a step of at most about ``2**-7``) that it changes no interval beyond
    its Monte-Carlo error — so the product runs in float32 and a seed gives the same bits for
    any number of BLAS threads (docs/performance.md, "Speed of the bootstrap engine").

    Examples
    --------
    >>> import numpy as np, pandas as pd, trialwise as tw
    >>> rng = np.random.default_rng(1)
    >>> base = rng.random(400) < 0.7
    >>> obs = {name: np.where(rng.random(400) < 0.5, base, rng.random(400) < 0.7)
    ...        for name in ["ann", "bob", "cnn"]}
    >>> res = tw.pairwise_error_consistency(pd.DataFrame(obs), n_resamples=2000, rng=0)
    >>> res.to_frame()[["observer_a", "observer_b", "n"]].values.tolist()
    [['ann', 'bob', 400], ['ann', 'cnn', 400], ['bob', 'cnn', 400]]
    >>> bool(np.all(res.statistic > 0.1))
    True
    """
    if ci_method is None:
        ci_method = DEFAULT_CI_METHOD if clusters is None else "jackknife-t"
    opts = check_options(confidence_level, ci_method, test, n_resamples, unbiased, rng)
    if keep_replicates is not None and not isinstance(keep_replicates, (bool, np.bool_)):
        raise InvalidTypeError(f"`keep_replicates` must be True, False or None; got {keep_replicates!r}")
    if client is not None:
        from trialwise._stats.distributed import check_client

        check_client(client)
    if _is_dask_array(correct):  # in storage: read block by block (docs/distributed.md)
        right, seen, names = _stored_correctness(correct, truth, opts)
    else:
        v.check_aligned(correct=correct, truth=truth, strata=strata, clusters=clusters)
        right, seen, names = _correctness_matrix(correct, truth)
    idx = np.array(_pair_indices(names, pairs), dtype=np.intp).reshape(-1, 2)
    codes = None if clusters is None else cluster_codes(clusters, right.shape[0])
    if codes is not None and opts.ci_method == "analytic":
        raise InvalidValueError("`ci_method`='analytic' treats items as independent; with `clusters` choose a "
                                "resampling interval (jackknife-t, jeffreys, bca, percentile, basic, hdi)")
    if codes is not None and strata is not None:  # strata per cluster
        strata = strata_of_clusters(strata, codes)
    if opts.ci_method == "analytic":
        counts, dist, boot = pairwise_tables(right, seen, idx), None, None
        out = _infer(counts, None, opts)
    else:
        boot = _pairwise_bootstrap(right, seen, idx, codes, strata, opts, batch, keep_replicates, client)
        counts, dist = boot["counts"], boot["dist"]
        out = _infer(counts, None, opts, intervals=boot["intervals"])
    test_name = opts.test
    if codes is not None and boot is not None and opts.ci_method == "jackknife-t":
        # the tests of EC = 0 on the table treat items as independent: with clusters, the
        # jackknife t test over clusters that the interval inverts (two-sided, G − 1 df)
        out["pvalue"] = np.where(np.isnan(out["statistic"]), np.nan, boot["jackknife_pvalue"])
        test_name = "cluster-jackknife-t"
    elif codes is not None and boot is not None:
        # ... or invert the clusters' bootstrap (two-sided: twice the smaller share of
        # replicates on either side of 0)
        hits = np.minimum(boot["below"], boot["above"])
        out["pvalue"] = np.minimum(1.0, 2.0 * monte_carlo_pvalue(hits, boot["n_ok"]))
        test_name = "cluster-bootstrap"
    s = out["stats"]
    names_arr = np.array(names, dtype=object)
    return PairwiseErrorConsistencyResult(
        observers=names,
        observer_a=names_arr[idx[:, 0]],
        observer_b=names_arr[idx[:, 1]],
        statistic=out["statistic"],
        confidence_interval=ConfidenceInterval(out["low"], out["high"]),
        pvalue=out["pvalue"],
        n=s.n.astype(np.int64),
        confidence_level=opts.confidence_level,
        method="bias-corrected kappa" if opts.unbiased else "kappa",
        ci_method=opts.ci_method,
        test=test_name,
        counts=counts,
        accuracy_a=s.accuracy_a,
        accuracy_b=s.accuracy_b,
        c_obs=s.c_obs,
        c_exp=s.c_exp,
        kappa_min=out["kappa_min"],
        kappa_max=out["kappa_max"],
        n_resamples=0 if boot is None else opts.n_resamples,
        n_undefined=np.asarray(out["n_undefined"], dtype=np.int64),
        n_undefined_null=np.asarray(out["n_undefined_null"], dtype=np.int64).reshape(-1),
        bootstrap_distribution=np.empty((0, len(idx))) if dist is None else dist,
        pair_notes=tuple(make_notes(("undefined", r), ("coverage", w)) for r, w in zip(out["reasons"], out["sparse"])),
        result_notes=() if boot is None or boot["kept"] else (
            "bootstrap_distribution not kept (keep_replicates=False)" if keep_replicates is not None else
            f"bootstrap_distribution not kept: the {opts.n_resamples} × {len(idx)} replicates would take "
            f"{8 * opts.n_resamples * len(idx) / 2**20:,.0f} MiB (more than {KEEP_REPLICATES_BYTES // 2**20} MiB); "
            f"keep_replicates=True keeps them (the intervals and p-values do not depend on it)",),
    )
