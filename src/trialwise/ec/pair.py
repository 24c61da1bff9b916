"""Error consistency of two observers: :func:`error_consistency`.

The input (correctness, labels with the truth, or a 2 × 2 table of counts) becomes one
correctness table, and the core shared with every pair (:func:`trialwise.ec.inference.infer`)
gives κ, its interval, its test and the notes; every pair of many observers is
:mod:`trialwise.ec.pairwise`, the result classes :mod:`trialwise.ec.results`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError
from trialwise._core.results import ConfidenceInterval, make_notes
from trialwise._stats.intervals import (
    CIMethod,
)
from trialwise._stats.kappa import (
    canonical_orientation,
    kappa_from_counts,
)
from trialwise._stats.streams import records_seed
from trialwise._stats.tables import (
    correctness_table,
)
from trialwise.ec.inference import (
    DEFAULT_CI_METHOD,
    DEFAULT_TEST,
    TestMethod,
    check_options,
    infer,
    replicate_tables,
)
from trialwise.ec.results import ErrorConsistencyResult
from trialwise.io.labels import code_labels

__all__ = ["error_consistency"]

                            # (their ~6 temporaries stay in a core's L2 cache)


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
        Jeffreys is the default: ``docs/validity.md``. Every method follows the boundary
        rule (Notes): an estimate at the end of its range is inside its interval.
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

    **Boundary rule.** With the accuracies fixed, ``κ_max − κ̂ = 2·min(p10, p01)/(1 − c_exp)``
    and ``κ̂ − κ_min = 2·min(p11, p00)/(1 − c_exp)``: κ̂ is the largest value its accuracies allow
    exactly when an off-diagonal cell is empty (EC = 1 when both are), the smallest exactly when
    a diagonal cell is (EC = −1 when both are and the accuracies are ½). There, if the
    interval's end on that side falls short of κ̂, that end becomes κ̂ and the interval is
    one-sided at it — the boundary modification of the Jeffreys binomial interval (upper end 1
    at x = n, lower end 0 at x = 0; Brown, Cai & DasGupta 2001, §4.1.2) carried to κ. A note of
    kind ``"boundary"`` says so (its ``values``: ``side``, ``statistic``, ``bound``). It matters for
    ``jeffreys``, whose posterior never reaches 1 or −1 (two identical observers on 40 items
    gave EC 1 [0.82, 0.9986]); for the percentile interval at EC = −1 with more than about 1,000
    items; and for the bias-corrected κ_u, which is −n/(n − 2) < −1 at EC = −1 while intervals are
    clipped to [−1, 1]. Every other interval is unchanged, bit for bit. Tables at κ_max or κ_min
    of unequal accuracies nearly always keep theirs, since the posterior's and the bootstrap's
    accuracies vary and their draws fall on both sides of κ̂; the exceptions are close to −1
    (``[[0, 19], [21, 0]]``, κ̂ = −0.995: every posterior draw lies above it). Every table of
    n = 6, 20 and 40 is checked for every method in ``tests/ec/test_boundary.py``. Where EC is
    undefined (every item in one cell) there is no estimate to hold, and the Jeffreys interval
    stays the posterior's.

    References
    ----------
    Geirhos, Meding & Wichmann (2020), Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.
    Klein et al. (2025), Quantifying uncertainty in error consistency. NeurIPS.
    Brown, Cai & DasGupta (2001), Interval estimation for a binomial proportion.
    Statistical Science 16(2), 101–133.

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

    Two observers with the same correctness: EC = 1, and the interval ends there.

    >>> same = tw.error_consistency(counts=[[30, 0], [0, 10]], rng=0)
    >>> same.statistic, round(same.confidence_interval.high, 4), same.notes[0].kind
    (1.0, 1.0, 'boundary')
    """
    opts = check_options(confidence_level, ci_method, test, n_resamples, unbiased, rng)
    table = _counts_from_input(a, b, truth, counts)
    # Replicates are drawn from the canonical orientation (so that swapping A and B gives
    # identical numbers) and turned back to A-in-rows for the copy-model decomposition.
    reps = replicate_tables(canonical_orientation(table), opts)
    if table[0, 1] > table[1, 0]:
        reps = np.swapaxes(reps, -1, -2)
    dist = None if opts.ci_method == "analytic" else kappa_from_counts(reps, unbiased=opts.unbiased).reshape(-1, 1)
    out = infer(table[None], dist, opts)
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
        notes=make_notes(("undefined", out["reasons"][0]), ("coverage", out["sparse"][0])) + (
            () if out["boundary"][0] is None else (out["boundary"][0],)),
    )


# --------------------------------------------------------------------------- pairwise


