"""Comparing two classifiers by their hard labels (*Machine Learning & Signals Learning*, ch. 14, §14.1; K > 2 via the correct/incorrect collapse).

Every method here is a function of the 2×2 table of correctness
``[[n11, n10], [n01, n00]]`` — classifier A in rows, "correct" first, so ``n10`` counts
the items A gets right and B gets wrong (the chapter's C1 and C2). Pass either the labels
``(y_true, pred_a, pred_b)`` — any number of classes: a prediction is correct when it is
the same class as the truth under the library's one label-coding rule
(:mod:`trialwise.io.labels`: ``1 == 1.0 == True == '1'``; numbers never match other text) —
or ``counts=``. Statistics of the predicted labels themselves, without the truth
(disagreement, Cohen's κ, Bowker, …), are in :mod:`trialwise.comparison.matrix`.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError
from trialwise._core.results import ConfidenceInterval
from trialwise._stats.monte_carlo import monte_carlo_test
from trialwise._stats.intervals import wald_interval
from trialwise._stats.streams import records_seed
from trialwise.comparison.result import ComparisonResult, McNemarResult, comparison_notes
from trialwise._core.warnings import DegenerateDataWarning
from trialwise.comparison._caveats import caveat
from trialwise.io.labels import LabelCoding, code_labels
from trialwise._stats.tables import correctness_table

__all__ = ["MCNEMAR_METHODS", "contingency_table", "mcnemar", "yules_q"]

#: McNemar variants: exact binomial, mid-p, χ² without and with continuity correction, permutation.
McNemarMethod = Literal["exact", "mid-p", "asymptotic", "corrected", "permutation"]
MCNEMAR_METHODS: tuple[McNemarMethod, ...] = get_args(McNemarMethod)


def code_pair_labels(y_true: Any, pred_a: Any, pred_b: Any) -> LabelCoding:
    """The truth and both predictions coded together (:func:`trialwise.io.labels.code_labels`)."""
    return code_labels({"y_true": y_true, "pred_a": pred_a, "pred_b": pred_b})


def coded_correctness_table(coding: LabelCoding) -> NDArray:
    """The correctness table ``[[n11, n10], [n01, n00]]`` of coded labels, int64."""
    return correctness_table(coding.matches("pred_a", "y_true"), coding.matches("pred_b", "y_true"))


def contingency_table(y_true: Any = None, pred_a: Any = None, pred_b: Any = None, *,
                      counts: ArrayLike | None = None) -> NDArray:
    """The 2×2 correctness table ``[[n11, n10], [n01, n00]]`` (A in rows, correct first).

    A prediction is correct when it is the truth's class under the rule of
    :mod:`trialwise.io.labels` (the three arguments coded together): integer truth matches
    boolean or float predictions, and text that reads as a number matches that number.
    The counts are int64; ``counts=`` must be whole numbers with at most 2**53 items.

    Parameters
    ----------
    y_true : array_like, optional
        The true label of each item (any number of classes).
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item.
    counts : array_like, optional
        A finished 2×2 table ``[[n11, n10], [n01, n00]]`` instead of the labels; it is
        checked and returned as int64.

    Returns
    -------
    numpy.ndarray
        The 2×2 int64 table ``[[n11, n10], [n01, n00]]``: rows A correct / wrong, columns
        B correct / wrong.

    Raises
    ------
    InvalidTypeError
        When both the labels and ``counts`` are given, or neither.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12(2), 153–157.

    Examples
    --------
    >>> contingency_table(["a", "b", "c", "a"], ["a", "b", "a", "b"], ["a", "c", "c", "b"]).tolist()
    [[1, 1], [1, 1]]
    >>> contingency_table([1, 0, 1], [True, False, False], [1.0, 1.0, 1.0]).tolist()
    [[1, 1], [1, 0]]
    """
    if counts is not None:
        if y_true is not None or pred_a is not None or pred_b is not None:
            raise InvalidTypeError("pass either the labels (y_true, pred_a, pred_b) or `counts`, not both")
        return v.check_counts(counts, "counts").astype(np.int64)
    if y_true is None or pred_a is None or pred_b is None:
        raise InvalidTypeError("pass the labels y_true, pred_a and pred_b, or `counts`")
    return coded_correctness_table(code_pair_labels(y_true, pred_a, pred_b))


@records_seed
def mcnemar(y_true: Any = None, pred_a: Any = None, pred_b: Any = None, *, counts: ArrayLike | None = None,
            method: McNemarMethod = "exact", n_resamples: int = 10000, rng: Any = None) -> ComparisonResult:
    """McNemar's test of equal accuracy, H0: ``n10 = n01`` in expectation (§14.1.4).

    Parameters
    ----------
    y_true : array_like, optional
        The true label of each item.
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B.
    counts : array_like, optional
        The 2×2 correctness table ``[[n11, n10], [n01, n00]]`` instead of the labels.
    method : {"exact", "mid-p", "asymptotic", "corrected", "permutation"}
        * ``exact``: two-sided binomial test of ``n01`` out of ``n10 + n01`` at ½
          (:func:`scipy.stats.binomtest`); statistic ``min(n10, n01)``.
        * ``mid-p``: the exact p-value minus the probability of the observed count,
          ``2·P(X ≤ k) − P(X = k)`` (Fagerland et al. 2013); less conservative.
        * ``asymptotic``: ``χ² = (n10 − n01)² / (n10 + n01)`` with 1 degree of freedom.
        * ``corrected``: ``χ² = (|n10 − n01| − 1)² / (n10 + n01)`` (Edwards' continuity
          correction).
        * ``permutation``: swap the two classifiers' predictions on each item with
          probability ½; ``p = (1 + #{|n10* − n01*| ≥ |n10 − n01|}) / (1 + n_resamples)``.
          Only the discordant items change, so each replicate is one
          Binomial(n10 + n01, ½) draw.
    n_resamples : int, default 10000
        Number of random swaps of the ``permutation`` method (ignored by the others).
    rng : int or numpy.random.Generator, optional
        Seed or generator of the ``permutation`` method.

    Returns
    -------
    McNemarResult
        ``statistic`` (see ``method``), ``pvalue`` (two-sided), ``n`` items, the discordant
        counts ``n10``, ``n01`` and ``discordant``; no confidence interval.

    Warns
    -----
    DegenerateDataWarning
        Without discordant items (see Notes).

    Notes
    -----
    Without discordant items (``n10 + n01 = 0``) the classifiers cannot be told apart:
    the statistic is 0, p = 1, and a :class:`~trialwise.DegenerateDataWarning` is issued.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. *Psychometrika* 12(2), 153–157.

    Edwards, A. L. (1948). Note on the "correction for continuity" in testing the
    significance of the difference between correlated proportions. *Psychometrika* 13(3),
    185–187.

    Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
    matched-pairs data: mid-p and asymptotic are better than exact conditional. *BMC
    Medical Research Methodology* 13, 91.

    Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
    classification learning algorithms. *Neural Computation* 10(7), 1895–1923.

    Examples
    --------
    >>> res = mcnemar(counts=[[150, 25], [15, 10]], method="asymptotic")
    >>> round(res.statistic, 2), round(res.pvalue, 3)
    (2.5, 0.114)
    """
    method = v.check_choice(method, "method", MCNEMAR_METHODS)
    t = contingency_table(y_true, pred_a, pred_b, counts=counts)
    n10, n01 = int(t[0, 1]), int(t[1, 0])
    d = n10 + n01
    m = int(t.sum())
    fields: dict[str, Any] = {"key": f"mcnemar-{method}", "n10": n10, "n01": n01, "discordant": d}
    name = f"McNemar ({method})"
    if d == 0:
        msg = "McNemar: no item is right for one classifier and wrong for the other (n10 = n01 = 0): statistic 0, p = 1"
        caveat(msg, DegenerateDataWarning)
        return McNemarResult(name, 0.0, 1.0, n=m, notes=comparison_notes("no discordant items", msg), **fields)
    k = min(n10, n01)
    if method == "exact":
        return McNemarResult(name, float(k), float(stats.binomtest(n01, d, 0.5).pvalue), n=m,
                             notes=comparison_notes("two-sided binomial test; statistic min(n10, n01)"), **fields)
    if method == "mid-p":
        p = 2 * stats.binom.cdf(k, d, 0.5) - stats.binom.pmf(k, d, 0.5)
        return McNemarResult(name, float(k), float(min(1.0, p)), n=m,
                             notes=comparison_notes("exact p minus the probability of the observed count"), **fields)
    if method in ("asymptotic", "corrected"):
        diff = abs(n10 - n01) - (1 if method == "corrected" else 0)
        chi2 = max(diff, 0) ** 2 / d
        note = "chi-square, 1 df, " + ("continuity-corrected" if method == "corrected" else "no continuity correction")
        return McNemarResult(name, float(chi2), float(stats.chi2.sf(chi2, 1)), n=m, notes=comparison_notes(note),
                             **fields)
    b = v.check_positive_int(n_resamples, "n_resamples")
    # |n10* − n01*| of one Binomial(d, ½) draw per replicate; integers, so ties are exact
    res = monte_carlo_test(abs(n10 - n01), lambda g, size: np.abs(2 * g.binomial(d, 0.5, size=size) - d), b, rng=rng)
    return McNemarResult(name, float(abs(n10 - n01)), float(res.pvalue), n=m,
                         notes=comparison_notes(f"swap predictions per item, (1 + hits)/(1 + M), M = {b}"),
                         **fields, n_resamples=b)


def yules_q(y_true: Any = None, pred_a: Any = None, pred_b: Any = None, *, counts: ArrayLike | None = None,
            confidence_level: float = 0.95) -> ComparisonResult:
    """Yule's Q, ``(n11·n00 − n10·n01) / (n11·n00 + n10·n01)`` (§14.1.6).

    Q is the odds ratio mapped to [−1, 1], ``Q = (OR − 1)/(OR + 1) = tanh(log OR / 2)``;
    the interval is the Wald interval of log OR, mapped the same way (so it stays in
    [−1, 1]). With a zero cell Q is ±1 whatever the other counts (the interval is then
    not given) and with ``n11·n00 = n10·n01 = 0`` it is undefined (NaN); both warn.

    Parameters
    ----------
    y_true : array_like, optional
        The true label of each item.
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B.
    counts : array_like, optional
        The 2×2 correctness table ``[[n11, n10], [n01, n00]]`` instead of the labels.
    confidence_level : float, default 0.95
        Level of the interval.

    Returns
    -------
    McNemarResult
        ``statistic`` Q, its ``confidence_interval`` (absent with a zero cell) and the
        ``odds_ratio``; no p-value.

    Warns
    -----
    DegenerateDataWarning
        With a zero cell (Q = ±1) or when Q is undefined.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Yule, G. U. (1900). On the association of attributes in statistics. *Philosophical
    Transactions of the Royal Society of London A* 194, 257–319.

    Yule, G. U. (1912). On the methods of measuring association between two attributes.
    *Journal of the Royal Statistical Society* 75(6), 579–652.

    Woolf, B. (1955). On estimating the relation between blood group and disease.
    *Annals of Human Genetics* 19(4), 251–253.

    Kuncheva, L. I. & Whitaker, C. J. (2003). Measures of diversity in classifier
    ensembles and their relationship with the ensemble accuracy. *Machine Learning* 51(2),
    181–207.

    Examples
    --------
    >>> res = yules_q(counts=[[150, 25], [15, 10]])
    >>> res.statistic, res.confidence_interval
    (0.6, ConfidenceInterval(low=0.236, high=0.816))
    """
    level = v.check_confidence_level(confidence_level)
    t = contingency_table(y_true, pred_a, pred_b, counts=counts).astype(float)
    n11, n10, n01, n00 = t[0, 0], t[0, 1], t[1, 0], t[1, 1]
    m = int(t.sum())
    num, den = n11 * n00 - n10 * n01, n11 * n00 + n10 * n01
    if den == 0:
        msg = "Yule's Q is undefined: n11·n00 = n10·n01 = 0"
        caveat(msg, DegenerateDataWarning)
        return McNemarResult("Yule's Q", np.nan, n=m, key="yules-q",
                             notes=comparison_notes("undefined: n11·n00 = n10·n01 = 0", msg))
    q = num / den
    if (t == 0).any():
        msg = f"Yule's Q = {q:g} because a cell of the table is zero; it does not reflect the other counts"
        caveat(msg, DegenerateDataWarning)
        return McNemarResult("Yule's Q", float(q), n=m, key="yules-q",
                             notes=comparison_notes("a zero cell forces Q = ±1; no interval", msg))
    se_log_or = float(np.sqrt(np.sum(1 / t)))
    log_or = np.log(n11 * n00 / (n10 * n01))
    lo, hi = (np.tanh(end / 2) for end in wald_interval(log_or, se_log_or, level))  # Q = tanh(log OR / 2)
    return McNemarResult("Yule's Q", float(q), confidence_interval=ConfidenceInterval(float(lo), float(hi)), n=m,
                         key="yules-q", notes=comparison_notes(f"{100 * level:g}% CI from the Wald interval of log OR"),
                         odds_ratio=float(np.exp(log_or)))
