"""How two classifiers' *labels* relate, without the truth (*Machine Learning & Signals Learning*, ch. 14, §14.3.2–§14.3.6).

Everything here is a function of the K × K agreement matrix ``N[j, k]`` = number of items
classifier A labels ``j`` and classifier B labels ``k`` (A in rows). Pass the predictions
``(pred_a, pred_b)`` or the matrix itself as ``counts=`` (an array, or a
:class:`pandas.DataFrame` whose index and columns name the classes). At K = 2 with the
correct/incorrect coding, the agreement matrix *is* the contingency table of
:mod:`trialwise.comparison.correctness`, and Bowker's test is McNemar's χ².

Why this module is long: about 520 lines, one concept (the agreement matrix and its five
methods), most of them docstrings.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.results import ConfidenceInterval
from trialwise._stats.intervals import wald_interval
from trialwise._stats.monte_carlo import NULL_BLOCK, monte_carlo_test
from trialwise._stats.streams import records_seed
from trialwise.comparison.result import AgreementResult, ComparisonResult, SymmetryTestResult, comparison_notes
from trialwise._core.warnings import DegenerateDataWarning
from trialwise.comparison._caveats import caveat
from trialwise._stats.kappa import kappa_kernel, kappa_variance
from trialwise.io.labels import code_labels
from trialwise._stats.tables import agreement_table

__all__ = ["agreement_matrix", "disagreement", "cohen_kappa", "bowker_test", "stuart_maxwell_test",
           "symmetry_permutation_test", "PERMUTATION_STATISTICS"]

#: Statistics of the omnibus permutation test: the total off-diagonal asymmetry
#: ``S = Σ_{j<k} |n_jk − n_kj|`` (the chapter's choice) or Bowker's χ².
PermutationStatistic = Literal["asymmetry", "bowker"]
PERMUTATION_STATISTICS: tuple[PermutationStatistic, ...] = get_args(PermutationStatistic)


#: Largest number of items in a table of counts (as in :func:`trialwise._core.validation.check_counts`):
#: beyond 2**53 counts are not exact in float64, in which every statistic is computed.
MAX_ITEMS = 2**53


def _codes(pred_a: Any, pred_b: Any, classes: Any) -> tuple[NDArray, NDArray, NDArray]:
    """Both predictions coded together (:func:`trialwise.io.labels.code_labels`), and the class names."""
    coding = code_labels({"pred_a": pred_a, "pred_b": pred_b}, classes=classes)
    return coding.codes["pred_a"], coding.codes["pred_b"], np.asarray(coding.classes, dtype=object)


def _square_counts(counts: Any) -> NDArray:
    """A K × K table of counts (K >= 2) as int64; errors name ``counts``."""
    try:
        arr = np.asarray(counts)
    except ValueError as exc:  # ragged nested lists
        raise InvalidValueError(f"`counts` must be a square K × K table of counts; got {v.show(counts)}") from exc
    if arr.dtype.kind == "c":
        raise InvalidTypeError(f"`counts` must hold real counts; got complex numbers {v.show(arr.tolist())}")
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(f"`counts` must be a square table of counts; got {v.show(counts)}") from exc
    if arr.dtype.kind not in "biuf":
        raise InvalidTypeError(f"`counts` must be a square table of counts; got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise InvalidValueError(f"`counts` must be a square K × K table with K >= 2; got shape {arr.shape}")
    farr = arr.astype(float)
    if not np.isfinite(farr).all() or (farr < 0).any() or (farr != np.round(farr)).any():
        raise InvalidValueError(f"`counts` must hold non-negative whole numbers; got {v.show(arr.tolist())}")
    total = float(farr.sum())
    if total == 0:
        raise InvalidValueError("`counts` holds no items (n = 0)")
    if total > MAX_ITEMS:
        raise InvalidValueError(f"`counts` holds more than 2**53 items (n = {total:.3g}): counts that large are not exact "
                         "in float64 and overflow int64 sums")
    return arr.astype(np.int64) if arr.dtype.kind in "biu" else farr.astype(np.int64)


def _same_classes(index: Any, columns: Any) -> bool:
    """Whether a DataFrame's index and columns name the same classes in the same order."""
    if len(index) != len(columns):
        return False
    coding = code_labels({"counts.index": index, "counts.columns": columns})
    return bool(np.array_equal(coding.codes["counts.index"], coding.codes["counts.columns"]))


def _matrix(pred_a: Any, pred_b: Any, counts: Any, classes: Any) -> tuple[NDArray, NDArray]:
    """The agreement matrix as int64 ndarray, and the class names."""
    if counts is not None:
        if pred_a is not None or pred_b is not None:
            raise InvalidTypeError("pass either the predictions (pred_a, pred_b) or `counts`, not both")
        names = None
        if isinstance(counts, pd.DataFrame):
            if not _same_classes(counts.index, counts.columns):
                raise InvalidValueError("`counts`: the index (classifier A) and the columns (classifier B) "
                                 "must name the same classes in the same order")
            names = np.asarray(counts.index, dtype=object)
        arr = _square_counts(counts)
        if names is None:
            names = np.asarray(list(classes) if classes is not None else range(arr.shape[0]), dtype=object)
            if len(names) != arr.shape[0]:
                raise InvalidValueError(f"`classes` names {len(names)} classes but `counts` is {arr.shape[0]} × {arr.shape[0]}")
        return arr, names
    if pred_a is None or pred_b is None:
        raise InvalidTypeError("pass the predictions pred_a and pred_b, or `counts`")
    ia, ib, names = _codes(pred_a, pred_b, classes)
    return agreement_table(ia, ib, len(names)), names


def agreement_matrix(pred_a: Any, pred_b: Any, *, classes: Any = None) -> pd.DataFrame:
    """The K × K agreement matrix ``N[j, k]``: items A labels ``j`` and B labels ``k`` (§14.3.2).

    It does not use the truth. Rows are classifier A, columns classifier B; the classes
    are ``classes`` in that order, or every class either classifier predicts (in natural
    order). Labels are the same class under the rule of :mod:`trialwise.io.labels`
    (``1 == 1.0 == True == '1'``; numbers mixed with other text are a ``TypeError``).

    Parameters
    ----------
    pred_a, pred_b : array_like
        The labels predicted by classifiers A and B, one per item.
    classes : sequence, optional
        The classes, in order (default: every class either classifier predicts).

    Returns
    -------
    pandas.DataFrame
        The K × K int64 counts; index ``A`` and columns ``B`` name the classes.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Examples
    --------
    >>> agreement_matrix(["cat", "dog", "dog"], ["cat", "cat", "dog"])
    B    cat  dog
    A
    cat    1    0
    dog    1    1
    """
    mat, names = _matrix(pred_a, pred_b, None, classes)
    return pd.DataFrame(mat, index=pd.Index(names, name="A"), columns=pd.Index(names, name="B"))


def disagreement(pred_a: Any = None, pred_b: Any = None, *, counts: Any = None) -> ComparisonResult:
    """``Dis`` — the share of items on which the two classifiers' labels differ (§14.1.3, §14.3.3).

    ``Dis = 1 − trace(N)/M`` for the agreement matrix ``N``. For two binary classifiers
    this equals ``(n10 + n01)/M`` of the correctness table (labels differ exactly when
    one of the two is right), so ``counts`` may be either table.

    Parameters
    ----------
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item (no truth needed).
    counts : array_like or pandas.DataFrame, optional
        The K × K agreement matrix, or the 2×2 correctness table, instead of the predictions.

    Returns
    -------
    AgreementResult
        ``statistic`` Dis in [0, 1], ``n`` items and ``n_disagree``; no p-value or interval.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Kuncheva, L. I. & Whitaker, C. J. (2003). Measures of diversity in classifier
    ensembles and their relationship with the ensemble accuracy. *Machine Learning* 51(2),
    181–207.

    Examples
    --------
    >>> disagreement(counts=[[150, 25], [15, 10]]).statistic
    0.2
    >>> disagreement(["a", "b", "c", "c"], ["a", "c", "b", "c"]).statistic
    0.5
    """
    mat, _ = _matrix(pred_a, pred_b, counts, None)
    m = int(mat.sum())
    return AgreementResult("disagreement", float(1 - np.trace(mat) / m), n=m, key="disagreement",
                           n_disagree=int(m - np.trace(mat)))


def cohen_kappa(pred_a: Any = None, pred_b: Any = None, *, counts: Any = None, classes: Any = None,
                confidence_level: float = 0.95) -> ComparisonResult:
    """Cohen's κ between two classifiers' *labels*, any number of classes (§14.1.5, §14.3.6).

    ``κ = (p_o − p_e) / (1 − p_e)`` on the K × K agreement matrix of the predictions, with
    a Wald interval from the large-sample variance of Fleiss, Cohen & Everitt (1969).
    For κ on *correctness* (error consistency) use :func:`trialwise.error_consistency`.

    Parameters
    ----------
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item (no truth needed).
    counts : array_like or pandas.DataFrame, optional
        The K × K agreement matrix (A in rows) instead of the predictions; a DataFrame's
        index and columns name the classes.
    classes : sequence, optional
        The classes, in order (default: every class either classifier predicts).
    confidence_level : float, default 0.95
        Level of the Wald interval.

    Returns
    -------
    AgreementResult
        ``statistic`` κ with its ``confidence_interval``, ``p_o``, ``p_e``, the standard
        error ``se``, the ``classes`` and the ``agreement_matrix``; no p-value.

    Warns
    -----
    DegenerateDataWarning
        When both classifiers predict one and the same class throughout (κ is NaN).

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement* 20(1), 37–46.

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of
    kappa and weighted kappa. *Psychological Bulletin* 72(5), 323–327.

    Examples
    --------
    >>> round(cohen_kappa(["a", "a", "b", "b"], ["a", "b", "b", "b"]).statistic, 3)
    0.5
    >>> res = cohen_kappa(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]])
    >>> round(res.statistic, 3), res.confidence_interval
    (0.692, ConfidenceInterval(low=0.608, high=0.777))
    """
    level = v.check_confidence_level(confidence_level)
    mat, classes = _matrix(pred_a, pred_b, counts, classes)
    n = int(mat.sum())
    p = mat / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    p_o, p_e = float(np.trace(p)), float(rows @ cols)
    kappa = float(kappa_kernel(mat))  # the one κ kernel (trialwise._stats.kappa), on the K × K table
    if np.isnan(kappa):
        msg = "Cohen's κ: both classifiers predict one and the same class on every item; κ is undefined (NaN)"
        caveat(msg, DegenerateDataWarning)
        return AgreementResult("Cohen's kappa (labels)", np.nan, n=n, key="cohen-kappa",
                               notes=comparison_notes("undefined: a single class throughout", msg))
    var, _ = kappa_variance(mat)  # Fleiss, Cohen & Everitt (1969), the large-sample variance of κ̂
    se = float(np.sqrt(max(float(var), 0.0)))
    low, high = wald_interval(kappa, se, level)
    return AgreementResult("Cohen's kappa (labels)", float(kappa),
                           confidence_interval=ConfidenceInterval(float(low), float(high)), n=n,
                           notes=comparison_notes(f"Wald {100 * level:g}% CI, Fleiss-Cohen-Everitt variance"),
                           key="cohen-kappa", p_o=p_o, p_e=p_e, se=se, classes=tuple(classes.tolist()),
                           agreement_matrix=mat)


def _pairs(mat: NDArray) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    j, k = np.triu_indices(mat.shape[0], 1)
    return j, k, mat[j, k], mat[k, j]


def _contributions(mat: NDArray, names: NDArray) -> pd.DataFrame:
    j, k, upper, lower = _pairs(mat)
    total = upper + lower
    with np.errstate(invalid="ignore", divide="ignore"):
        contrib = np.where(total > 0, (upper - lower) ** 2 / np.where(total > 0, total, 1), 0.0)
    return pd.DataFrame({"class_j": names[j], "class_k": names[k], "n_jk": upper, "n_kj": lower,
                         "contribution": contrib,
                         "share": contrib / contrib.sum() if contrib.sum() > 0 else np.zeros(len(contrib))})


def _never_disagree(test: str, method: str, m: int, fields: dict) -> SymmetryTestResult:
    """The documented value when the two classifiers never disagree: statistic 0, p = 1, a warning."""
    msg = f"{test}: the two classifiers never disagree; statistic 0, p = 1"
    caveat(msg, DegenerateDataWarning)
    return SymmetryTestResult(method, 0.0, 1.0, n=m, notes=comparison_notes("no disagreements", msg), **fields)


def bowker_test(pred_a: Any = None, pred_b: Any = None, *, counts: Any = None,
                classes: Any = None) -> SymmetryTestResult:
    """Bowker's test of symmetry, H0: ``n_jk = n_kj`` in expectation for every pair j < k (§14.3.4).

    ``χ²_B = Σ_{j<k} (n_jk − n_kj)² / (n_jk + n_kj)``, referred to χ² with one degree of
    freedom per pair *that has at least one disagreement*: a pair with ``n_jk + n_kj = 0``
    contributes nothing and carries no information, so it is not counted (statsmodels'
    ``SquareTable.symmetry`` counts all ``K(K−1)/2`` pairs, which is conservative when
    some are empty). At K = 2 this is McNemar's χ² without continuity correction.

    ``contributions`` is the per-pair table (classes, ``n_jk``, ``n_kj``, the
    pair's term of χ² and its share): it localises the asymmetry. Without any
    disagreement the statistic is 0, p = 1, with a warning.

    Parameters
    ----------
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item (no truth needed).
    counts : array_like or pandas.DataFrame, optional
        The K × K agreement matrix (A in rows) instead of the predictions; a DataFrame's
        index and columns name the classes.
    classes : sequence, optional
        The classes, in order (default: every class either classifier predicts).

    Returns
    -------
    SymmetryTestResult
        ``statistic`` χ²_B, ``pvalue``, degrees of freedom ``df``, the per-pair
        ``contributions`` table, the ``matrix`` and its ``classes``.

    Warns
    -----
    DegenerateDataWarning
        When the two classifiers never disagree.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Bowker, A. H. (1948). A test for symmetry in contingency tables. *Journal of the
    American Statistical Association* 43(244), 572–574.

    Examples
    --------
    >>> res = bowker_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]])
    >>> round(res.statistic, 2), round(res.pvalue, 2), res.df
    (2.67, 0.45, 3)
    >>> res.contributions["share"].round(3).tolist()
    [0.375, 0.5, 0.125]
    """
    mat, names = _matrix(pred_a, pred_b, counts, classes)
    table = _contributions(mat, names)
    m = int(mat.sum())
    pair_total = table["n_jk"] + table["n_kj"]
    df = int(np.sum(pair_total > 0))
    fields: dict[str, Any] = {"key": "bowker", "df": df, "contributions": table, "matrix": mat, "classes": tuple(names.tolist())}
    if df == 0:
        return _never_disagree("Bowker's test", "Bowker symmetry", m, fields)
    chi2 = float(table["contribution"].sum())
    small = int(np.sum((pair_total > 0) & (pair_total < 5)))
    note = f"chi-square, {df} df (class pairs with a disagreement)"
    if small:
        note += f"; {small} pair(s) with < 5 disagreements: the permutation test is exact"
    return SymmetryTestResult("Bowker symmetry", chi2, float(stats.chi2.sf(chi2, df)), n=m,
                              notes=comparison_notes(note), **fields)


def stuart_maxwell_test(pred_a: Any = None, pred_b: Any = None, *, counts: Any = None,
                        classes: Any = None) -> ComparisonResult:
    """Stuart–Maxwell test of marginal homogeneity: does each classifier predict each class equally often? (§14.3.4)

    With ``d = row sums − column sums`` of the agreement matrix and its covariance
    ``V_jj = n_j· + n_·j − 2 n_jj``, ``V_jk = −(n_jk + n_kj)``, the statistic is
    ``χ² = d' V⁻¹ d`` on K − 1 of the classes (one is redundant: ``Σ d = 0``), referred to
    χ² with K − 1 degrees of freedom. A class that is never involved in a disagreement has
    ``V_jj = 0`` and ``d_j = 0``; it is left out, and the degrees of freedom drop by one.
    Without any disagreement the statistic is 0, p = 1, with a warning.

    ``V`` is singular when the disagreements fall into separate groups of classes (A says 1
    where B says 0, and 3 where B says 2, but never mixes the groups): within each group the
    ``d`` sum to 0. statsmodels (``SquareTable.homogeneity``) then gives NaN. Here one class
    per group is left out, which makes ``V`` invertible and the statistic the sum of the
    groups' statistics (the generalised-inverse Wald statistic), with
    ``df`` = classes in a disagreement − groups; a warning and the note say so.

    Parameters
    ----------
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item (no truth needed).
    counts : array_like or pandas.DataFrame, optional
        The K × K agreement matrix (A in rows) instead of the predictions; a DataFrame's
        index and columns name the classes.
    classes : sequence, optional
        The classes, in order (default: every class either classifier predicts).

    Returns
    -------
    SymmetryTestResult
        ``statistic`` χ², ``pvalue``, degrees of freedom ``df``, the
        ``marginal_difference`` (row minus column sum) per class and the ``classes``.

    Warns
    -----
    DegenerateDataWarning
        When the two classifiers never disagree, or their disagreements fall into separate
        groups of classes.

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Stuart, A. (1955). A test for homogeneity of the marginal distributions in a two-way
    classification. *Biometrika* 42(3/4), 412–416.

    Maxwell, A. E. (1970). Comparing the classification of subjects by two independent
    judges. *British Journal of Psychiatry* 116(535), 651–655.

    Examples
    --------
    >>> res = stuart_maxwell_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]])
    >>> round(res.statistic, 3), round(res.pvalue, 3)
    (2.636, 0.268)
    """
    mat, names = _matrix(pred_a, pred_b, counts, classes)
    m = int(mat.sum())
    n = mat.astype(float)
    d = n.sum(axis=1) - n.sum(axis=0)
    cov = -(n + n.T)
    np.fill_diagonal(cov, n.sum(axis=1) + n.sum(axis=0) - 2 * np.diag(n))
    keep = np.flatnonzero(np.diag(cov) > 0)
    fields: dict[str, Any] = {"key": "stuart-maxwell", "marginal_difference": dict(zip(names.tolist(), d.tolist())),
              "classes": tuple(names.tolist())}
    if keep.size < 2:
        return _never_disagree("Stuart-Maxwell test", "Stuart-Maxwell homogeneity", m, fields | {"df": 0})
    # V is the Laplacian of the graph of disagreements: one class of each connected group is redundant
    # (the group's d sum to 0); leaving out one per group makes V invertible (the last one, as for one group)
    from scipy.sparse.csgraph import connected_components

    n_groups, group = connected_components(-cov[np.ix_(keep, keep)] > 0, directed=False)
    last = {g: i for i, g in enumerate(group.tolist())}
    use = keep[[i for i, g in enumerate(group.tolist()) if last[g] != i]]
    chi2 = float(d[use] @ np.linalg.solve(cov[np.ix_(use, use)], d[use]))
    df = int(use.size)
    note, msg = f"chi-square, {df} df", None
    if n_groups > 1:
        shown = " | ".join(", ".join(str(names[keep[i]]) for i in np.flatnonzero(group == g)) for g in range(n_groups))
        msg = (f"Stuart-Maxwell test: the two classifiers' disagreements fall into {n_groups} separate groups of "
               f"classes ({shown}), so the covariance of the marginal differences is singular (statsmodels "
               f"gives NaN); the test is the sum of the groups' tests, with df = {df} (the classes in a "
               "disagreement less one per group)")
        note += f", {n_groups} separate groups of classes"
        caveat(msg, DegenerateDataWarning)
    return SymmetryTestResult("Stuart-Maxwell homogeneity", chi2, float(stats.chi2.sf(chi2, df)), n=m,
                              notes=comparison_notes(note, msg), **fields, df=df)


@records_seed
def symmetry_permutation_test(pred_a: Any = None, pred_b: Any = None, *, counts: Any = None, classes: Any = None,
                              statistic: PermutationStatistic = "asymmetry", n_resamples: int = 10000,
                              rng: Any = None) -> ComparisonResult:
    """Omnibus permutation test of exchangeability of the two classifiers' labels (§14.3.5).

    Under H0 each disagreeing item's ordered pair ``(ŷ_A, ŷ_B)`` is as likely as its swap.
    Each replicate swaps every disagreeing item with probability ½ and recomputes the
    statistic; ``p = (1 + #{T* ≥ T}) / (1 + n_resamples)``. Swapping items independently
    makes ``n_jk*`` one Binomial(n_jk + n_kj, ½) draw per class pair, which is how the
    replicates are drawn (exactly the same distribution, at the cost of one draw per
    pair instead of one per item). The diagonal never changes.

    Parameters
    ----------
    pred_a, pred_b : array_like, optional
        The labels predicted by classifiers A and B, one per item (no truth needed).
    counts : array_like or pandas.DataFrame, optional
        The K × K agreement matrix (A in rows) instead of the predictions; a DataFrame's
        index and columns name the classes.
    classes : sequence, optional
        The classes, in order (default: every class either classifier predicts).
    statistic : {"asymmetry", "bowker"}
        ``asymmetry``: ``S = Σ_{j<k} |n_jk − n_kj|`` (the chapter's choice);
        ``bowker``: Bowker's χ². At K = 2 both give the permutation form of McNemar.
    n_resamples : int, default 10000
        Number of random swaps T.
    rng : int or numpy.random.Generator, optional
        Seed or generator of the swaps.

    Returns
    -------
    SymmetryTestResult
        ``statistic`` T, the Monte-Carlo ``pvalue``, ``n_resamples``, the number of
        replicates ``hits`` with ``T* ≥ T`` and ``n_disagree``.

    Warns
    -----
    DegenerateDataWarning
        When the two classifiers never disagree (statistic 0, p = 1).

    References
    ----------
    “Classifier Comparison”, ch. 14 of *Machine Learning & Signals Learning* (textbook).

    Bowker, A. H. (1948). A test for symmetry in contingency tables. *Journal of the
    American Statistical Association* 43(244), 572–574.

    Good, P. I. (2005). *Permutation, Parametric, and Bootstrap Tests of Hypotheses*,
    3rd ed. Springer.

    Examples
    --------
    >>> res = symmetry_permutation_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]], rng=0)
    >>> res.statistic, round(res.pvalue, 1)
    (10.0, 0.4)
    """
    statistic = v.check_choice(statistic, "statistic", PERMUTATION_STATISTICS)
    b = v.check_positive_int(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    mat, names = _matrix(pred_a, pred_b, counts, classes)
    m = int(mat.sum())
    _, _, upper, lower = _pairs(mat)
    total = upper + lower
    live = total > 0
    name = f"permutation symmetry ({statistic})"
    if not live.any():
        return _never_disagree("Permutation test", name, m, {"key": f"symmetry-permutation-{statistic}",
                                                              "n_resamples": b})
    t = total[live].astype(float)

    def stat(up: NDArray) -> NDArray:
        gap = np.abs(2 * up - t)
        return gap.sum(axis=-1) if statistic == "asymmetry" else (gap ** 2 / t).sum(axis=-1)

    observed = float(stat(upper[live].astype(float)))
    n_live = int(live.sum())

    def draw_null(g: np.random.Generator, size: int) -> NDArray:
        return stat(g.binomial(total[live], 0.5, size=(size, n_live)).astype(float))

    # One generator call per chunk, row by row, so the replicates do not depend on the chunk size;
    # the engine's tie tolerance keeps floating-point noise in Bowker's sum from flipping a tie.
    res = monte_carlo_test(observed, draw_null, b, rng=gen, batch=max(1, NULL_BLOCK // n_live))
    hits = int(res.hits)
    return SymmetryTestResult(name, observed, float(res.pvalue), n=m, key=f"symmetry-permutation-{statistic}",
                              notes=comparison_notes(f"swap disagreeing items, (1 + hits)/(1 + T), T = {b}"),
                              n_resamples=b, hits=hits, n_disagree=int(total.sum()))
