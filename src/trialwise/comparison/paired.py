"""The paired comparison of two runs on one benchmark: :func:`paired_runs`.

Two models (or two runs of one model) answered the same questions; the questions are the
pairing. One call gives what a reader of two evaluation logs asks first — which is more
accurate, by how much, is it more than noise, could this benchmark have told, and do they
fail alike:

* both accuracies and their difference with a paired interval — over questions, or over
  clusters of questions with the cluster-robust (CR2) standard error and Imbens–Kolesár
  degrees of freedom (:func:`paired_difference_interval`);
* McNemar's test on the discordant questions, exact and mid-p
  (:func:`trialwise.comparison.mcnemar`);
* the minimum detectable difference at this size
  (:func:`trialwise.planning.detectable_accuracy_difference`, from the observed discordance);
* their error consistency (:func:`trialwise.error_consistency`, or with clusters
  :func:`trialwise.pairwise_error_consistency`) and, when both logged the options'
  probabilities, CAPA (:func:`trialwise.pairwise_agreement`).

An unpaired test (two independent proportions, as lm-evaluation-harness's comparator applies)
ignores that both runs answered the same questions; the paired interval is narrower by as much
as the two runs agree.

Why this module is long: about 560 lines, half of them the numpydoc docstrings of the function,
its result class and the interval (with the formulas and the calibration that chose it); the rest
aligns the two runs' questions, computes the interval, and calls the library's own McNemar, EC,
CAPA and planning functions, whose options it passes through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.format import format_number
from trialwise._core.results import ConfidenceInterval, Note, Result
from trialwise._core.shown import shown
from trialwise._core.warnings import DegenerateDataWarning, warn
from trialwise._stats.streams import child_seed, records_seed
from trialwise._stats.tables import cluster_sums, correctness_table
from trialwise.comparison._caveats import collecting
from trialwise.io.logs.records import REPLICATE_COLUMN as REPLICATE

if TYPE_CHECKING:
    from trialwise.similarity.capa import AgreementMetric

__all__ = ["PairedRunsResult", "UNALIGNED", "paired_difference_interval", "paired_runs"]

Unaligned = Literal["error", "drop"]
#: What :func:`paired_runs` does with a question only one of the two runs answered.
UNALIGNED: tuple[Unaligned, ...] = get_args(Unaligned)


def _with_interval(value: Any, result: Any) -> str | None:
    """A nested result as ``statistic [low, high]`` (the summary's line of EC and CAPA)."""
    if value is None:
        return None
    ci = value.confidence_interval
    text = format_number(value.statistic)
    if ci is not None and not (math.isnan(float(ci.low)) and math.isnan(float(ci.high))):
        text += f"   {100 * result.confidence_level:g}% CI [{format_number(ci.low)}, {format_number(ci.high)}]"
    return text


@dataclass(frozen=True, repr=False)
class PairedRunsResult(Result):
    """The paired comparison of two runs on the same questions (:func:`paired_runs`).

    Attributes
    ----------
    model_a, model_b : str
        The two runs (``subject`` of the trial table); A − B is the difference.
    statistic : float
        The accuracy difference ``accuracy_a − accuracy_b``.
    confidence_interval : ConfidenceInterval
        Its paired interval (``ci_method``; NaN with one cluster).
    pvalue : float
        Two-sided test of equal accuracy that the interval inverts (t with ``df`` degrees of
        freedom); NaN where undefined (see Notes of :func:`paired_runs`).
    accuracy_a, accuracy_b : float
    n : int
        Questions both runs answered.
    n_clusters : int or None
        Clusters of questions (None without clusters).
    se, df : float
        Standard error of the difference and the t degrees of freedom.
    icc : float or None
        Intra-cluster correlation of the per-question difference (ANOVA estimate, at least 0),
        used by the degrees of freedom; None without clusters.
    design_effect : float or None
        ``se²`` over the variance the same data would have as independent questions (at
        least 1), which the minimum detectable difference uses; None without clusters.
    n10, n01 : int
        Questions only A got right, only B got right.
    discordance : float
        ``(n10 + n01) / n``.
    pvalue_exact, pvalue_midp : float
        McNemar's exact (binomial) and mid-p tests; they treat questions as independent.
    mdd : float
        Minimum detectable difference at this size (``power``, two-sided ``alpha``, the
        observed discordance, the design effect); NaN where none is detectable.
    power, alpha : float
    error_consistency : ErrorConsistencyResult
        κ on the two runs' correctness, with its interval and test.
    capa : ModelAgreementResult or None
        CAPA (κ_p on the options' probabilities) with its interval; its discrete form
        (``metric="capa-discrete"``: the chosen options as one-hot probabilities) when a run
        logged only the chosen option (chat and API models, Inspect, HELM's joint method;
        ``notes`` says so); None for questions without options (``notes`` says why).
    confidence_level : float
    ci_method : str
        ``"paired-t"`` or ``"cluster-robust-t"``.
    n_dropped_a, n_dropped_b : int
        Questions only A (only B) answered, left out with ``unaligned="drop"``.
    notes : tuple of str
    """

    model_a: str
    model_b: str
    accuracy_a: float = field(metadata=shown("accuracy A, B", in_repr=True, repr_name="A"))
    accuracy_b: float = field(metadata=shown("accuracy A, B", in_repr=True, repr_name="B"))
    statistic: float = field(metadata=shown("difference A − B", in_repr=True, repr_name="diff"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail="df = {df:.1f}"))
    pvalue: float = field(metadata=shown("p-value (diff = 0)", in_repr=True, repr_name="p", format="pvalue"))
    n: int = field(metadata=shown("questions n", in_repr=True, format="int"))
    n_clusters: int | None = field(metadata=shown("clusters", format="int"))
    se: float = field(metadata=shown("standard error", digits=4))
    df: float
    icc: float | None = field(metadata=shown("ICC of the difference"))
    design_effect: float | None = field(metadata=shown("design effect"))
    n10: int = field(metadata=shown("only A right, only B", format="int"))
    n01: int = field(metadata=shown("only A right, only B", format="int"))
    discordance: float = field(metadata=shown("discordance"))
    pvalue_exact: float = field(metadata=shown("McNemar p exact, mid-p", format="pvalue"))
    pvalue_midp: float = field(metadata=shown("McNemar p exact, mid-p", format="pvalue"))
    mdd: float = field(metadata=shown("min. detectable diff", detail="power {power:g}, two-sided level {alpha:g}"))
    power: float
    alpha: float
    error_consistency: Any = field(metadata=shown("error consistency", format=_with_interval))
    capa: Any = field(metadata=shown("CAPA", format=_with_interval))
    confidence_level: float
    ci_method: str
    n_dropped_a: int = 0
    n_dropped_b: int = 0
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = ("model_a", "model_b", "accuracy_a", "accuracy_b", "statistic", "ci_low", "ci_high", "pvalue",
                     "pvalue_exact", "pvalue_midp", "mdd", "ec", "ec_low", "ec_high", "capa", "capa_low",
                     "capa_high", "n", "n_clusters", "confidence_level", "ci_method")
    _frame_sources = {
        "ec": "error_consistency.statistic", "ec_low": "error_consistency.confidence_interval.low",
        "ec_high": "error_consistency.confidence_interval.high", "capa": "capa.statistic",
        "capa_low": "capa.confidence_interval.low", "capa_high": "capa.confidence_interval.high",
    }
    repr_prefix = "{model_a} − {model_b}:"
    summary_title = "Paired comparison: {model_a} − {model_b}"


# ----------------------------------------------------------------------------- the interval


def _icc(d: NDArray, codes: NDArray, sizes: NDArray) -> float:
    """One-way ANOVA ICC of ``d`` over clusters, at least 0 (0 where it is undefined)."""
    n_total, g = d.size, sizes.size
    if g < 2 or n_total <= g:
        return 0.0
    means = cluster_sums(d[:, None], codes)[:, 0] / sizes
    msb = float((sizes * (means - d.mean()) ** 2).sum()) / (g - 1)
    msw = float(((d - means[codes]) ** 2).sum()) / (n_total - g)
    n0 = (n_total - float((sizes ** 2).sum()) / n_total) / (g - 1)
    den = msb + (n0 - 1) * msw
    return max(0.0, (msb - msw) / den) if den > 0 else 0.0


def _ik_df(sizes: NDArray, rho: float) -> float:
    """Imbens–Kolesár degrees of freedom of the CR2 variance of a mean, under ``rho``-exchangeable errors.

    ``(tr W)² / tr(W²)`` with ``W = G′ΩG`` (``G`` the columns ``M·a_g`` of the CR2-weighted
    cluster indicators, ``M = I − J/N``, ``Ω = (1 − ρ)I + ρ·blocks``), written as a diagonal
    plus a rank-2 matrix so that it costs O(G), not O(G²)."""
    n_total = float(sizes.sum())
    c = sizes / n_total
    s = 1.0 / np.sqrt(1.0 - c)
    u = sizes * s / n_total
    w = u * c
    diag = (1 - rho) * sizes * s ** 2 / n_total ** 2 + rho * u ** 2
    alpha = -(1 - rho) / n_total + rho * float((c ** 2).sum())
    beta = -rho
    vecs = np.column_stack([u, w])  # W = diag + vecs · M · vecsᵀ
    m = np.array([[alpha, beta], [beta, 0.0]])
    gram = vecs.T @ vecs
    dgram = vecs.T @ (diag[:, None] * vecs)
    tr = float(diag.sum() + np.trace(m @ gram))
    tr2 = float((diag ** 2).sum() + 2 * np.trace(m @ dgram) + np.trace(m @ gram @ m @ gram))
    return tr ** 2 / tr2 if tr2 > 0 else math.nan


def paired_difference_interval(d: ArrayLike, clusters: ArrayLike | None = None, *, confidence_level: float = 0.95
                               ) -> tuple[float, float, float, ConfidenceInterval, float, float]:
    """The mean of per-question differences with its paired (and cluster-robust) t interval.

    Parameters
    ----------
    d : array_like, shape (n,)
        The per-question difference (``c_A − c_B`` in {−1, 0, 1} for correctness).
    clusters : array_like, shape (n,), optional
        A cluster label per question.
    confidence_level : float, default 0.95

    Returns
    -------
    tuple
        ``(mean, se, df, interval, pvalue, icc)``; ``icc`` is 0 without clusters. The interval
        is clipped to [−1, 1].

    Notes
    -----
    With residuals ``e = d − d̄``, cluster sums ``S_g`` and shares ``c_g = n_g / N``, the CR2
    variance of the mean (Bell & McCaffrey 2002) is ``Σ_g S_g² / (1 − c_g) / N²`` — the
    leverage adjustment ``(I − H_gg)^(−1/2)`` of an intercept-only model, whose ``H_gg`` is
    ``J/N`` on the cluster's block. The interval is ``d̄ ± t_{df}·se`` with the Imbens &
    Kolesár (2016) degrees of freedom ``(tr W)²/tr(W²)``, ``W`` the covariance of the CR2
    cluster scores under errors equicorrelated within clusters at the estimated ICC (one-way
    ANOVA, at least 0). Without clusters each question is its own cluster, and this is the
    paired t interval: ``se² = s²/n``, ``df = n − 1``.

    Why this and not the cluster bootstrap: with 10 clusters of 2–30 questions and ICC 0.3,
    the cluster bootstrap rejects a true zero difference in 10 % of data sets at level 0.05,
    CR1 and CR2 with G − 1 degrees of freedom in 7–9 %, CR2 with these degrees of freedom in
    about 6 % (docs/validity.md, "The paired accuracy difference").

    References
    ----------
    R. M. Bell & D. F. McCaffrey (2002), "Bias reduction in standard errors for linear
    regression with multi-stage samples", Survey Methodology 28(2), 169–181.
    G. W. Imbens & M. Kolesár (2016), "Robust standard errors in small samples: some
    practical advice", Review of Economics and Statistics 98(4), 701–712.
    J. E. Pustejovsky & E. Tipton (2018), "Small-sample methods for cluster-robust variance
    estimation and hypothesis testing in fixed effects models", JBES 36(4), 672–683.
    """
    level = v.check_confidence_level(confidence_level)
    d = np.asarray(d, dtype=float)
    n_total = d.size
    if clusters is None:
        codes, sizes = np.arange(n_total), np.ones(n_total)
    else:
        codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
        sizes = cluster_sums(np.ones((n_total, 1)), codes)[:, 0]
    mean = float(d.mean())
    g = sizes.size
    nan_ci = ConfidenceInterval(math.nan, math.nan)
    if g < 2:
        return mean, math.nan, math.nan, nan_ci, math.nan, math.nan
    c = sizes / n_total
    sums = cluster_sums((d - mean)[:, None], codes)[:, 0]
    se = math.sqrt(float((sums ** 2 / (1 - c)).sum())) / n_total
    if clusters is None:
        rho, df = 0.0, float(n_total - 1)
    else:
        rho = _icc(d, codes, sizes)
        df = _ik_df(sizes, rho)
    if se == 0:
        return mean, 0.0, df, ConfidenceInterval(mean, mean), (1.0 if mean == 0 else math.nan), rho
    q = float(stats.t.ppf(0.5 + level / 2, df))
    p = float(2 * stats.t.sf(abs(mean) / se, df))
    ci = ConfidenceInterval(max(-1.0, mean - q * se), min(1.0, mean + q * se))
    return mean, se, df, ci, p, rho


# ----------------------------------------------------------------------------- the table


def _check_trials(trials: Any, a: Any, b: Any, clusters: Any) -> tuple[list[str], Any]:
    import pandas as pd

    if not isinstance(trials, pd.DataFrame):
        raise InvalidTypeError(f"`trials` must be a trial table (pandas.DataFrame, e.g. tw.io.read_lm_eval(...)); "
                               f"got {type(trials).__name__}")
    missing = [c for c in ("subject", "image", "correct") if c not in trials.columns]
    if missing:
        raise InvalidValueError(f"`trials` lacks the column(s) {missing}; read evaluation logs with "
                                f"tw.io.read_lm_eval or tw.io.read_helm, or a trial table with tw.read_trials")
    subjects = list(pd.unique(trials["subject"]))
    for name, value in (("a", a), ("b", b)):
        if value not in subjects:
            shown_subjects = ", ".join(repr(s) for s in subjects[:10]) + (", ..." if len(subjects) > 10 else "")
            raise InvalidValueError(f"`{name}` must be a subject of `trials`; got {v.show(value)} "
                                    f"(subjects: {shown_subjects})")
    if a == b:
        raise InvalidValueError(f"`a` and `b` must be two different subjects; got {v.show(a)} twice")
    if clusters is not None and (not isinstance(clusters, str) or clusters not in trials.columns):
        raise InvalidValueError(f"`clusters` must name a column of `trials`; got {v.show(clusters)}")
    keys = ["condition", "image"] if "condition" in trials.columns else ["image"]
    return keys, subjects


def _one_run(trials: Any, name: Any, keys: list[str], arg: str) -> tuple[Any, Any]:
    """The rows of one subject indexed by question: one row per question, and all its rows (several per question
    for repeated runs: a ``replicate`` column numbering them)."""
    rows = trials[trials["subject"] == name]
    index = rows[keys].astype(str).agg("/".join, axis=1) if len(keys) > 1 else rows[keys[0]].astype(str)
    every = rows.set_axis(index.to_numpy(), axis=0)
    dup = index.duplicated()
    if dup.any():
        if REPLICATE not in rows.columns:
            raise InvalidValueError(f"`trials`: subject {name!r} (`{arg}`) answers question {index[dup].iloc[0]!r} "
                                    f"more than once; number repeated runs in a column 'replicate' (1, 2, …) to "
                                    f"compare them as replicates")
        again = every.reset_index().duplicated(subset=["index", REPLICATE])
        if again.any():
            raise InvalidValueError(f"`trials`: subject {name!r} (`{arg}`) answers question "
                                    f"{every.index[int(np.flatnonzero(again)[0])]!r} twice in replicate "
                                    f"{every[REPLICATE].iloc[int(np.flatnonzero(again)[0])]}")
    return every[~dup.to_numpy()], every


def _mean_correctness(every: Any, name: Any, questions: Any) -> NDArray:
    """Each question's share of correct runs (0/1 with one run per question), in the order of ``questions``."""
    import pandas as pd

    right = _correctness(every["correct"].to_numpy(), name, list(every.index)).astype(float)
    return pd.Series(right, index=every.index).groupby(level=0, sort=False).mean().loc[list(questions)].to_numpy()


def _correctness(values: Any, name: Any, questions: Any) -> NDArray:
    import pandas as pd

    right = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(right, (0.0, 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidValueError(f"`trials.correct` must be 0/1 or True/False; got {v.show(values[i])} for subject "
                                f"{name!r}, question {questions[i]!r}")
    return right.astype(bool)


# ----------------------------------------------------------------------------- the function


@records_seed
def paired_runs(
    trials: Any,
    a: Any,
    b: Any,
    *,
    clusters: str | None = None,
    unaligned: Unaligned = "error",
    confidence_level: float = 0.95,
    power: float = 0.8,
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    rng: Any = None,
) -> PairedRunsResult:
    """The paired comparison of two runs on the same questions: accuracies, their difference, McNemar, MDD, EC, CAPA.

    Parameters
    ----------
    trials : pandas.DataFrame
        A trial table as the log readers return it (:func:`trialwise.io.read_lm_eval`,
        :func:`trialwise.io.read_helm`, :func:`trialwise.read_trials`): one row per run
        (``subject``) and question (``condition`` + ``image``, or ``image``), with
        ``correct``; ``truth``, ``n_options`` and ``probabilities`` for CAPA. Repeated runs
        of a model on a question, numbered in a ``replicate`` column, are used: each
        question's share of right runs replaces its correctness (the difference, its
        interval, ``n10``/``n01``: questions where A's share is higher/lower, the
        discordance: the mean squared difference), EC and CAPA count every pair of runs,
        McNemar is NaN (a note says why).
    a, b : str
        The two subjects; the difference is A − B.
    clusters : str, optional
        A column of ``trials`` grouping questions (``"cluster"`` of
        ``read_lm_eval(..., clusters="subject")``; a passage, a subject): the difference's
        interval is then cluster-robust, and EC and CAPA resample clusters.
    unaligned : {"error", "drop"}, default "error"
        A question only one of the two answered: an error saying how many each lacks, or
        left out and counted (``n_dropped_a``, ``n_dropped_b`` and a note) — as the log
        readers' ``unaligned=``.
    confidence_level : float, default 0.95
        Level of every interval.
    power, alpha : float, default 0.8 and 0.05
        Of the minimum detectable difference (two-sided ``alpha``).
    n_resamples : int, default 10000
        Draws of EC's interval and CAPA's bootstrap.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    PairedRunsResult
        ``statistic`` (the difference), its ``confidence_interval`` and ``pvalue``, the
        accuracies, McNemar's ``pvalue_exact`` and ``pvalue_midp``, ``mdd``,
        ``error_consistency`` and ``capa`` (nested results), the counts.

    Raises
    ------
    InvalidTypeError
        ``trials`` is not a DataFrame.
    InvalidValueError
        A missing column, ``a``/``b`` not subjects (or the same), a question answered twice,
        questions only one run answered (``unaligned="error"``), none in common, a
        ``correct`` that is not 0/1, bad options.

    Warns
    -----
    DegenerateDataWarning
        Once, joining every reason: no discordant question (identical correctness: the
        difference is 0 with the interval [0, 0], p = 1, McNemar p = 1, no detectable
        difference), one cluster (interval, p-value and the intervals of EC and CAPA NaN), a
        difference with no spread (every question discordant the same way: p NaN).
        EC and CAPA warn as their own functions do (a run always right, a sparse table).

    See Also
    --------
    trialwise.comparison.mcnemar, trialwise.error_consistency, trialwise.pairwise_agreement,
    trialwise.planning.detectable_accuracy_difference

    Notes
    -----
    The difference ``d̄ = mean_q (c_A − c_B)`` has the paired t interval (each question its
    own cluster), or with ``clusters`` the CR2 cluster-robust interval with Imbens–Kolesár
    degrees of freedom (:func:`paired_difference_interval`). Measured type-I error at level
    0.05 (docs/validity.md): at most 5.2 % over independent questions (30–400 questions,
    discordance 0.05–0.3; conservative at small discordance), 3.9–6.1 % at discordance 0.4–0.6
    (20–300 questions), 4.9–6.2 % with 10–40 clusters of 2–30 questions at ICC 0.3.

    McNemar's tests use ``n10`` and ``n01`` only and assume independent questions; with
    clusters read ``pvalue`` instead (a note says so).

    The minimum detectable difference inverts Connor's power of the paired test at the
    observed discordance ``ψ = (n10 + n01)/n`` and the effective size ``n / DE``, ``DE`` the
    observed design effect (1 without clusters).

    EC is :func:`trialwise.error_consistency` on the two correctness vectors (Jeffreys
    interval, Fisher test), or with clusters the pair of
    :func:`trialwise.pairwise_error_consistency` (jackknife t over clusters). CAPA is the pair
    of :func:`trialwise.pairwise_agreement` on the two runs (percentile bootstrap, or the
    jackknife t interval with clusters); it needs both runs' ``probabilities`` on every
    common question.

    References
    ----------
    Q. McNemar (1947), Psychometrika 12(2), 153–157. R. J. Connor (1987), Biometrics 43(1),
    207–211. E. Miller (2024), "Adding Error Bars to Evals", arXiv:2411.00640.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.llm_demo()
    >>> res = tw.comparison.paired_runs(trials, "sim/demo-7b-chat", "sim/demo-7b", clusters="cluster",
    ...                                 n_resamples=2000, rng=0)
    >>> res.accuracy_a, res.accuracy_b, res.n, res.n_clusters, (res.n10, res.n01)
    (0.64, 0.635, 400, 16, (37, 35))
    >>> round(res.statistic, 4), [round(x, 3) for x in res.confidence_interval], round(res.pvalue_exact, 3)
    (0.005, [-0.035, 0.045], 0.906)
    >>> round(res.mdd, 3), round(res.error_consistency.statistic, 3), round(res.capa.statistic, 3)
    (0.059, 0.611, 0.244)
    """
    keys, _ = _check_trials(trials, a, b, clusters)
    unaligned = v.check_choice(unaligned, "unaligned", UNALIGNED)
    level = v.check_confidence_level(confidence_level)
    pw = float(v.check_probability(power, "power", open_interval=True))
    a_lvl = float(v.check_probability(alpha, "alpha", open_interval=True))
    n_res = v.check_replicates(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    (ra, all_a), (rb, all_b) = _one_run(trials, a, keys, "a"), _one_run(trials, b, keys, "b")
    only_a, only_b = ra.index.difference(rb.index), rb.index.difference(ra.index)
    common = ra.index[ra.index.isin(rb.index)]
    notes: list[Note] = []
    if len(only_a) or len(only_b):
        text = (f"{len(common)} questions both answered; {a!r} answered {len(only_a)} that {b!r} did not, {b!r} "
                f"{len(only_b)} that {a!r} did not")
        if unaligned == "error" or len(common) == 0:
            e = (list(only_a) + list(only_b))[0]
            raise InvalidValueError(f"`trials`: {text} (e.g. {e!r}); a paired comparison needs the same questions: "
                                    f"pass unaligned='drop' to compare on the questions both answered"
                                    if len(common) else f"`trials`: {a!r} and {b!r} answered no question in common")
        notes.append(Note(f"left out: {text}", "dropped", {"n_dropped_a": len(only_a), "n_dropped_b": len(only_b)}))
    ra, rb = ra.loc[common], rb.loc[common]
    all_a, all_b = all_a[all_a.index.isin(common)], all_b[all_b.index.isin(common)]
    repeated = len(all_a) > len(ra) or len(all_b) > len(rb)
    ca = _mean_correctness(all_a, a, common)  # the share of a question's runs that are right (0/1 for one run)
    cb = _mean_correctness(all_b, b, common)
    n = int(ca.size)
    labels = None
    if clusters is not None:
        labels = ra[clusters].to_numpy(dtype=object)
        other = rb[clusters].to_numpy(dtype=object)
        if any(x != y for x, y in zip(labels, other)):
            i = next(i for i, (x, y) in enumerate(zip(labels, other)) if x != y)
            raise InvalidValueError(f"`trials.{clusters}` (`clusters`) differs between {a!r} and {b!r} on question "
                                    f"{common[i]!r}: {labels[i]!r} and {other[i]!r}")
        if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in labels):
            raise InvalidValueError(f"`trials.{clusters}` (`clusters`) is missing for some questions of {a!r}")
        labels = labels.astype(str)
    d = ca - cb
    diff, se, df, ci, p, rho = paired_difference_interval(d, labels, confidence_level=level)
    n_clusters = None if labels is None else int(np.unique(labels).size)
    # [[n11, n10], [n01, n00]]; with repeated runs the questions where A's share of right runs is higher/lower
    table = correctness_table(ca > cb, cb > ca) if repeated else correctness_table(ca == 1, cb == 1)
    n10, n01 = int(table[0, 1]), int(table[1, 0])
    degenerate: list[str] = []
    if n_clusters == 1:
        degenerate.append("one cluster: the difference, EC and CAPA have no interval and no p-value")
    elif n10 + n01 == 0:
        degenerate.append("no question is right for one run and wrong for the other (identical correctness): "
                          "difference 0 [0, 0], p = 1, McNemar p = 1, no detectable difference")
    elif se == 0:
        degenerate.append(f"every question is answered right by {(a if n10 else b)!r} only: the difference has "
                          f"no spread and no p-value")
    # McNemar: its degenerate case is the one above, warned once below
    from trialwise.comparison.correctness import mcnemar

    if repeated:  # McNemar counts questions right for one run and wrong for the other: one run per question
        exact = midp = None
        notes.append(Note("McNemar's tests need one run per question; with repeated runs the test of equal accuracy "
                          "is the paired t of the questions' shares of right runs (pvalue)", "mcnemar"))
    else:
        with collecting():
            exact = mcnemar(counts=table, method="exact")
            midp = mcnemar(counts=table, method="mid-p")
    # the minimum detectable difference: Connor's formula at the effective size n / DE
    from trialwise.planning.questions import detectable_accuracy_difference

    psi = float(np.mean(d ** 2))  # the discordance (n10 + n01) / n; with repeated runs its analogue E[d²]
    de = None
    if labels is not None and n_clusters is not None and n_clusters >= 2:
        iid = float(d.var(ddof=1)) / n if n > 1 else 0.0
        de = max(1.0, se ** 2 / iid) if iid > 0 else 1.0
    mdd = math.nan if psi == 0 else float(detectable_accuracy_difference(
        max(1.0, n / (de or 1.0)), psi, power=pw, alpha=a_lvl))
    ec_seed, capa_seed = child_seed(gen), child_seed(gen)
    if repeated:
        ec = _replicate_agreement(all_a, all_b, "ec", clusters, n_clusters, level, n_res, ec_seed)
        notes.append(Note("repeated runs: accuracies and their difference are means over questions of each "
                          "question's share of right runs; EC and CAPA count every pair of runs of the two models "
                          "(tw.pairwise_agreement on replicates)", "replicates"))
    else:
        ec = _error_consistency(ca == 1, cb == 1, a, b, labels, n_clusters, level, n_res, ec_seed)
    capa, capa_note = _capa(trials, all_a, all_b, a, b, common, clusters, n_clusters, level, n_res, capa_seed)
    if capa_note:
        notes.append(Note(capa_note, "capa"))
    if labels is not None:
        notes.append(Note("McNemar's tests treat the questions as independent; with clusters the p-value of the "
                          "difference is the cluster-robust one", "mcnemar"))
    if degenerate:
        message = f"paired_runs({a!r}, {b!r}): " + "; ".join(degenerate)
        notes.append(Note(message, "degenerate"))
        warn(message, DegenerateDataWarning)
    return PairedRunsResult(
        model_a=str(a), model_b=str(b), accuracy_a=float(ca.mean()), accuracy_b=float(cb.mean()), statistic=diff,
        confidence_interval=ci, pvalue=p, n=n, n_clusters=n_clusters, se=se, df=df,
        icc=None if labels is None else rho, design_effect=de, n10=n10, n01=n01, discordance=psi,
        pvalue_exact=math.nan if exact is None else float(exact.pvalue),
        pvalue_midp=math.nan if midp is None else float(midp.pvalue), mdd=mdd, power=pw, alpha=a_lvl,
        error_consistency=ec, capa=capa, confidence_level=level,
        ci_method="paired-t" if labels is None else "cluster-robust-t",
        n_dropped_a=len(only_a), n_dropped_b=len(only_b), notes=tuple(notes))


def _error_consistency(ca: NDArray, cb: NDArray, a: Any, b: Any, labels: NDArray | None, n_clusters: int | None,
                       level: float, n_resamples: int, seed: int) -> Any:
    """EC of the two runs: over questions, over clusters (jackknife t), or with one cluster its value only."""
    import pandas as pd

    from trialwise.ec.pair import error_consistency
    from trialwise.ec.pairwise import pairwise_error_consistency

    if labels is not None and n_clusters is not None and n_clusters >= 2:
        frame = pd.DataFrame({"a": ca, "b": cb})
        return pairwise_error_consistency(frame, clusters=labels, confidence_level=level, n_resamples=n_resamples,
                                          rng=seed).pair("a", "b")
    res = error_consistency(ca, cb, confidence_level=level, n_resamples=n_resamples, rng=seed)
    if labels is None:
        return res
    return replace(res, confidence_interval=ConfidenceInterval(math.nan, math.nan), pvalue=math.nan,
                   notes=tuple(res.notes) + (Note("one cluster: no interval and no test", "degenerate"),))


def _capa(trials: Any, ra: Any, rb: Any, a: Any, b: Any, common: Any, clusters: str | None, n_clusters: int | None,
          level: float, n_resamples: int, seed: int) -> tuple[Any, str | None]:
    """CAPA of the two runs on the common questions, or None and why not."""
    import pandas as pd

    from trialwise.similarity.pairwise import pairwise_agreement

    need = [c for c in ("truth", "n_options", "probabilities") if c not in trials.columns]
    if need:
        return None, f"CAPA: no {', '.join(need)} column in `trials`"
    if (pd.to_numeric(ra["n_options"], errors="coerce").fillna(0) < 2).any():
        return None, "CAPA: generation questions (no options)"
    lacking = [name for name, rows in ((a, ra), (b, rb)) if rows["probabilities"].isna().any()]
    metric: AgreementMetric = "capa"
    note = None
    if lacking:  # chat and API models log the chosen option only: CAPA of the choices (one-hot probabilities)
        metric = "capa-discrete"
        note = (f"CAPA is its discrete form (the chosen options as one-hot probabilities): "
                f"{' and '.join(repr(x) for x in lacking)} logged no option probabilities")
    pair = _pair_table(ra, rb)
    one = n_clusters == 1
    res = pairwise_agreement(pair, metric=metric, clusters=None if one or clusters is None else clusters,
                             confidence_level=level, n_resamples=0 if one else n_resamples, rng=seed).pair("a", "b")
    notes = [n for n in (note, "CAPA: one cluster, no interval" if one else None) if n]
    return res, ("; ".join(notes) or None)


def _pair_table(all_a: Any, all_b: Any) -> Any:
    """The two runs' rows (every replicate) as a trial table of subjects ``a`` and ``b``, keyed by question."""
    import pandas as pd

    pair = pd.concat([all_a.assign(subject="a", image=list(all_a.index)),
                      all_b.assign(subject="b", image=list(all_b.index))], ignore_index=True)
    if REPLICATE in pair.columns:  # a run logged once has no replicate number where the other has several: run 1
        pair[REPLICATE] = pair[REPLICATE].fillna(1).astype("int64")
    return pair.drop(columns=[c for c in ("condition",) if c in pair.columns])


def _replicate_agreement(all_a: Any, all_b: Any, metric: AgreementMetric, clusters: str | None, n_clusters: int | None,
                         level: float, n_resamples: int, seed: int) -> Any:
    """EC (or another agreement) of two runs with repeated runs: every pair of runs (tw.pairwise_agreement)."""
    from trialwise.similarity.pairwise import pairwise_agreement

    one = n_clusters == 1
    return pairwise_agreement(_pair_table(all_a, all_b), metric=metric,
                              clusters=None if one or clusters is None else clusters, confidence_level=level,
                              n_resamples=0 if one else n_resamples, rng=seed).pair("a", "b")
