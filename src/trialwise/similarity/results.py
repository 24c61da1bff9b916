"""The results of :func:`trialwise.agreement` and :func:`trialwise.pairwise_agreement`.

Kept apart from :mod:`trialwise.similarity.capa` (the computation), as :mod:`trialwise.ec.results`
is from :mod:`trialwise.ec.pair`. The family of difference tests of a pairwise result
(:meth:`PairwiseAgreementResult.differences`, what ``trialwise similarity`` prints) is computed
here from the result's joint replicates, with no new resampling; its result class is in
:mod:`trialwise.similarity.family`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import ConfidenceInterval, Result
from trialwise._core.shown import shown
from trialwise._stats.intervals import jackknife_t_interval, jackknife_t_pvalue, percentile_interval
from trialwise._stats.significance import Adjustment
from trialwise.similarity.family import AgreementDifferenceFamily
from trialwise.ec.results import pair_matrix

__all__ = ["ModelAgreementResult", "PairwiseAgreementResult", "AgreementDifferenceResult"]

#: Readable names of the metrics, for summaries.
METRIC_NAMES = {
    "capa": "CAPA (kappa_p on option probabilities)",
    "capa-discrete": "CAPA, discrete (kappa_p on one-hot choices)",
    "choice": "choice agreement (share of questions with the same choice)",
    "ec": "error consistency (kappa on correctness)",
}


def _null_hypothesis(res: Any) -> str:
    return "H0: kappa = 0" if res.method == "ec" else "H0: no more agreement than chance"


def _joint_resampling(res: Any) -> str:
    if res.n_resamples == 0:
        return "point values only (n_resamples = 0)"
    return f"B = {res.n_resamples}, joint resampling"


def _difference_detail(res: Any) -> str:
    if res.ci_method == "jackknife-t":
        return f"clusters left out one at a time, t with {res.n_clusters - 1} df"
    return f"joint replicates, B = {res.n_resamples}"


def _units(value: int, res: Any) -> str:
    return f"{value} {'questions' if value == int(np.max(res.n, initial=0)) else 'clusters'}"


@dataclass(frozen=True, repr=False)
class ModelAgreementResult(Result):
    """Agreement of two classifiers over the same questions, with its confidence interval.

    Attributes
    ----------
    statistic : float
        κ_p (``method`` ``"capa"`` or ``"capa-discrete"``), error consistency (``"ec"``) or
        the share of questions with the same choice (``"choice"``); NaN when undefined
        (chance agreement c_exp = 1, see ``notes``).
    confidence_interval : ConfidenceInterval
    pvalue : float or None
        CAPA: one-sided bootstrap p-value of H0 κ_p ≤ 0 (no more agreement than chance),
        ``(1 + #{κ_p* ≤ 0}) / (1 + B)``; ``"ec"``: the test of κ = 0 of
        :func:`trialwise.error_consistency`; None for ``"choice"``.
    n : int
        Questions.
    n_clusters : int
        Resampling units: clusters of questions, or ``n`` without clusters.
    c_obs, c_exp : float
        Observed and chance agreement (c_exp NaN for ``"choice"``).
    p_correct_a, p_correct_b : float
        Mean probability on the correct option (the accuracy for one-hot choices); NaN
        without ``truth``.
    n_resamples, n_undefined : int
        Bootstrap replicates, and those with an undefined statistic (left out).
    bootstrap_distribution : ndarray, shape (n_resamples,)
    notes : tuple of str
    """

    statistic: float = field(metadata=shown("statistic", in_repr=True))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail="B = {n_resamples}"))
    pvalue: float | None = field(metadata=shown(
        "p-value", in_repr=True, repr_name="p", format="pvalue", detail=_null_hypothesis))
    n: int = field(metadata=shown("questions n", in_repr=True, format="int"))
    confidence_level: float
    method: str
    ci_method: str
    n_clusters: int = field(metadata=shown("resampling units", format="int"))
    c_obs: float = field(metadata=shown("c_obs, c_exp"))
    c_exp: float = field(metadata=shown("c_obs, c_exp"))
    p_correct_a: float = field(metadata=shown("p_correct A, B"))
    p_correct_b: float = field(metadata=shown("p_correct A, B"))
    n_resamples: int
    n_undefined: int = field(metadata=shown("undefined replicates", format="replicates"))
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result

    frame_columns = (
        "statistic", "ci_low", "ci_high", "confidence_level", "pvalue", "n", "n_clusters",
        "c_obs", "c_exp", "p_correct_a", "p_correct_b", "method", "ci_method", "n_resamples", "n_undefined",
    )
    summary_title = "Agreement: {metric_name}"

    @property
    def metric_name(self) -> str:
        """The metric (``method``) in words."""
        return METRIC_NAMES.get(self.method, self.method)


@dataclass(frozen=True, repr=False)
class AgreementDifferenceResult(Result):
    """Difference of two agreements with a common model: agreement(reference, x) − agreement(reference, y).

    Attributes
    ----------
    statistic : float
        The difference of the two statistics.
    confidence_interval : ConfidenceInterval
        ``ci_method`` ``"percentile"``: the percentile interval of the jointly resampled
        differences; ``"jackknife-t"`` (the pairs' intervals over clusters):
        ``Δ̂ ± t_{G−1, 1−α/2} · SE_jack`` from the differences with each cluster left out.
    pvalue : float
        Two-sided p-value of H0: equal agreement. ``"percentile"``: the bootstrap's,
        ``min(1, 2 (1 + min(#{Δ* ≤ 0}, #{Δ* ≥ 0})) / (1 + B))`` (the test the percentile
        interval inverts); ``"jackknife-t"``: ``2 · P(T_{G−1} ≥ |Δ̂| / SE_jack)``.
    reference, x, y : hashable
    agreement_x, agreement_y : float
        The two agreements.
    n, n_resamples : int
    confidence_level : float
    method : str
        The agreement metric.
    ci_method : {"percentile", "jackknife-t"}
        How the interval and p-value were made: ``"jackknife-t"`` when the pairwise result's
        intervals are (the default with clusters), else ``"percentile"``.
    bootstrap_distribution : ndarray, shape (n_resamples,)
    notes : tuple of str
        Caveats of the pairwise result it comes from that hold for it too (too few clusters).
    """

    statistic: float = field(metadata=shown("difference", in_repr=True, repr_name="delta"))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail=_difference_detail))
    pvalue: float = field(metadata=shown(
        "p-value (equal)", in_repr=True, repr_name="p", format="pvalue", detail="two-sided"))
    reference: Any = field(metadata=shown("reference", format="text"))
    x: Any = field(metadata=shown("x, y", format="text"))
    y: Any = field(metadata=shown("x, y", format="text"))
    agreement_x: float = field(metadata=shown("agreement x, y"))
    agreement_y: float = field(metadata=shown("agreement x, y"))
    n: int = field(metadata=shown("questions n", in_repr=True, format="int"))
    confidence_level: float
    method: str
    n_resamples: int
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty(0), compare=False)
    notes: tuple[str, ...] = ()
    ci_method: str = field(default="percentile", kw_only=True)
    n_clusters: int | None = field(default=None, kw_only=True)  # G of the jackknife (None: percentile)

    frame_columns = ("reference", "x", "y", "statistic", "ci_low", "ci_high", "pvalue", "agreement_x",
                     "agreement_y", "n", "confidence_level", "method", "n_resamples", "ci_method")
    summary_title = "Difference of agreement with a common model, {metric_name}"

    @property
    def metric_name(self) -> str:
        """The metric (``method``) in words."""
        return METRIC_NAMES.get(self.method, self.method)


@dataclass(frozen=True, repr=False)
class PairwiseAgreementResult(Result):
    """Agreement of every pair of classifiers, resampled jointly.

    Array attributes have one entry per pair (in the order of ``observer_a`` /
    ``observer_b``); ``bootstrap_distribution`` (n_resamples, n_pairs) is one joint sample,
    so differences of columns ("is J more similar to X than to Y?") have correct
    bootstrap uncertainty. With ``ci_method="jackknife-t"`` (the default with clusters),
    ``jackknife_values`` (n_clusters, n_pairs) holds every pair's statistic with each cluster
    left out, from which :meth:`difference` makes its interval and test (empty otherwise, and
    when replicates are not kept). :meth:`pair` gives one pair as a :class:`ModelAgreementResult`,
    :meth:`to_frame` one row per pair, :meth:`matrix` an observers × observers table.
    """

    observers: tuple = field(metadata=shown("observers", in_repr=True, format="count"))
    observer_a: NDArray = field(metadata=shown("pairs", in_repr=True, repr_name="pairs", format="count"))
    observer_b: NDArray
    statistic: NDArray = field(metadata=shown(in_repr=True, repr_name=""))
    confidence_interval: ConfidenceInterval = field(metadata=shown(
        format="interval", in_repr=True, method="ci_method", detail=_joint_resampling))
    pvalue: NDArray
    n: NDArray
    confidence_level: float
    method: str = field(metadata=shown(in_repr=True, repr_name="", format="text"))
    ci_method: str
    n_clusters: int = field(metadata=shown("resampling units", format=_units))
    c_obs: NDArray
    c_exp: NDArray
    p_correct_a: NDArray
    p_correct_b: NDArray
    n_resamples: int = field(metadata=shown(in_repr=True, format="int"))
    n_undefined: NDArray
    bootstrap_distribution: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False)
    pair_notes: tuple = ()
    result_notes: tuple[str, ...] = ()
    seed: int | None = field(default=None, kw_only=True)  # the seed used: rng=seed repeats the result
    jackknife_values: NDArray = field(default_factory=lambda: np.empty((0, 0)), compare=False, kw_only=True)

    _dict_exclude = Result._dict_exclude + ("jackknife_values",)
    frame_columns = (
        "observer_a", "observer_b", "statistic", "ci_low", "ci_high", "pvalue", "n",
        "c_obs", "c_exp", "p_correct_a", "p_correct_b", "n_undefined",
    )
    summary_title = "Pairwise agreement, {metric_name}"
    summary_table = True

    @property
    def metric_name(self) -> str:
        """The metric (``method``) in words."""
        return METRIC_NAMES.get(self.method, self.method)

    @property
    def notes(self) -> tuple[str, ...]:
        """The result's own caveats (``result_notes``: e.g. too few clusters), then every pair's,
        as ``"a–b: note"``."""
        per_pair = self.pair_notes if self.pair_notes else ((),) * len(self.statistic)
        return tuple(self.result_notes) + tuple(
            f"{a}–{b}: {note}" for a, b, notes in zip(self.observer_a, self.observer_b, per_pair) for note in notes)

    def __len__(self) -> int:
        return len(self.statistic)

    def pair(self, a: Any, b: Any) -> ModelAgreementResult:
        """One pair (A = ``a``, B = ``b``) as a :class:`ModelAgreementResult`.

        Parameters
        ----------
        a, b : hashable
            Two observer names (either order).

        Returns
        -------
        ModelAgreementResult

        Raises
        ------
        KeyError
            If the pair was not computed.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=200, rng=0)
        >>> one = res.pair("sim/demo-7b", "sim/demo-7b-chat")
        >>> round(one.statistic, 3), one.n
        (0.244, 400)
        """
        for i, (x, y) in enumerate(zip(self.observer_a, self.observer_b)):
            if (x, y) in ((a, b), (b, a)):
                break
        else:
            raise KeyError(f"no pair ({a!r}, {b!r}) in this result")
        swap = (x, y) != (a, b)
        pa, pb = (self.p_correct_b[i], self.p_correct_a[i]) if swap else (self.p_correct_a[i], self.p_correct_b[i])
        return ModelAgreementResult(
            statistic=float(self.statistic[i]),
            confidence_interval=ConfidenceInterval(float(self.confidence_interval.low[i]),
                                                   float(self.confidence_interval.high[i])),
            pvalue=None if np.isnan(self.pvalue[i]) else float(self.pvalue[i]),
            n=int(self.n[i]), confidence_level=self.confidence_level, method=self.method, ci_method=self.ci_method,
            n_clusters=self.n_clusters, c_obs=float(self.c_obs[i]), c_exp=float(self.c_exp[i]),
            p_correct_a=float(pa), p_correct_b=float(pb), n_resamples=self.n_resamples,
            n_undefined=int(self.n_undefined[i]),
            bootstrap_distribution=self.bootstrap_distribution[:, i] if self.bootstrap_distribution.size else np.empty(0),
            notes=tuple(self.pair_notes[i]) if self.pair_notes else (),
        )

    def difference(self, reference: Any, x: Any, y: Any) -> AgreementDifferenceResult:
        """Is ``reference`` more similar to ``x`` than to ``y``? The difference of the two agreements.

        Parameters
        ----------
        reference, x, y : hashable
            Three observer names; the pairs (reference, x) and (reference, y) must have been
            computed.

        Returns
        -------
        AgreementDifferenceResult
            ``agreement(reference, x) − agreement(reference, y)`` with an interval and a
            two-sided p-value of H0: equal agreement. When the pairs' intervals are
            ``"jackknife-t"`` (the default with clusters): ``Δ̂ ± t_{G−1, 1−α/2} · SE_jack``, the
            jackknife SE over the G clusters of the differences with each cluster left out, and
            ``p = 2 · P(T_{G−1} ≥ |Δ̂| / SE_jack)``; otherwise the percentile interval of the
            jointly resampled differences and the two-sided bootstrap p-value. ``ci_method``
            says which (calibration: ``docs/language_models.md``; with clusters
            ``docs/validity.md``, "The difference of two agreements with clusters").

        Raises
        ------
        KeyError
            If a pair was not computed.
        InvalidValueError
            If ``x`` and ``y`` are the same, or the result holds no bootstrap replicates.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=500, rng=0)
        >>> d = res.difference("sim/demo-7b-chat", "sim/demo-7b", "sim/demo-13b")
        >>> round(d.statistic, 3), d.pvalue < 0.01
        (0.083, True)
        """
        if x == y:
            raise InvalidValueError(f"`x` and `y` must be two different observers; got {x!r} twice")
        if not self.bootstrap_distribution.size:
            raise InvalidValueError("this result holds no bootstrap replicates (n_resamples = 0) or kept none "
                                    "(keep_replicates=False)")
        first, second = self.pair(reference, x), self.pair(reference, y)
        est = first.statistic - second.statistic
        low: Any
        high: Any
        if self.jackknife_values.size:  # the pairs' own method over clusters: jackknife t, G − 1 df
            jack = self._pair_jackknife(reference, x) - self._pair_jackknife(reference, y)
            low, high = jackknife_t_interval(est, jack, self.confidence_level)
            upper, lower = float(jackknife_t_pvalue(est, jack)), float(jackknife_t_pvalue(-est, -jack))
            pvalue: float = min(1.0, 2.0 * min(upper, lower)) if not np.isnan(est) else np.nan
            ci_method, n_clusters = "jackknife-t", int(np.isfinite(jack).sum())
        else:
            d = first.bootstrap_distribution - second.bootstrap_distribution
            d = d[~np.isnan(d)]
            low, high = percentile_interval(d, self.confidence_level) if d.size else (np.nan, np.nan)
            tail = min(np.sum(d <= 0), np.sum(d >= 0))
            pvalue = min(1.0, 2 * (1 + float(tail)) / (1 + d.size)) if d.size and not np.isnan(est) else np.nan
            ci_method, n_clusters = "percentile", None
        return AgreementDifferenceResult(
            statistic=float(est), confidence_interval=ConfidenceInterval(float(low), float(high)), pvalue=float(pvalue),
            reference=reference, x=x, y=y, agreement_x=first.statistic, agreement_y=second.statistic, n=first.n,
            confidence_level=self.confidence_level, method=self.method, n_resamples=self.n_resamples,
            bootstrap_distribution=first.bootstrap_distribution - second.bootstrap_distribution,
            notes=self._coverage_notes(), ci_method=ci_method, n_clusters=n_clusters)

    def _pair_jackknife(self, a: Any, b: Any) -> NDArray:
        """The leave-one-cluster-out values of the pair (a, b) (either order: κ_p is symmetric)."""
        for i, pair in enumerate(zip(self.observer_a, self.observer_b)):
            if pair in ((a, b), (b, a)):
                return self.jackknife_values[:, i]
        raise KeyError(f"no pair ({a!r}, {b!r}) in this result")

    def differences(self, *, adjust: Adjustment = "holm", alpha: float = 0.05,
                    progress: Callable[[str, int, int], Any] | None = None) -> AgreementDifferenceFamily:
        """Every test of equal similarity to a common model, adjusted over the family.

        For every model R as the reference and every pair {X, Y} of the other models:
        :meth:`difference` ``(R, X, Y)`` from the joint replicates, or with clusters from the
        leave-one-cluster-out values (``ci_method``; no new resampling),
        said the way round it goes, then the p-values adjusted over all
        ``M (M − 1) (M − 2) / 2`` tests of M models.

        Parameters
        ----------
        adjust : {"holm", "bonferroni", "bh", "by", "none"}, default "holm"
            The multiplicity adjustment over the family
            (:func:`scipy.stats.false_discovery_control` for ``"bh"``/``"by"``).
        alpha : float, default 0.05
            The significance level of the ``significant`` column.
        progress : callable, optional
            Called as ``progress("differences", done, total)`` every 200 tests and at the end.

        Returns
        -------
        AgreementDifferenceFamily

        Warns
        -----
        MonteCarloResolutionWarning
            When B is too small for any adjusted p-value of the family to reach ``alpha``
            (also in ``notes``); not with ``"jackknife-t"``, whose p-values are not Monte Carlo.

        Raises
        ------
        InvalidValueError
            If the result holds no bootstrap replicates, or ``adjust``/``alpha`` is invalid.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=500, rng=0)
        >>> fam = res.differences(adjust="holm", alpha=0.05)
        >>> fam.n_tests, fam.table.columns[:3].tolist()
        (12, ['reference', 'more_similar', 'less_similar'])
        """
        import pandas as pd

        from trialwise._core.validation import check_choice, check_probability
        from trialwise._stats.significance import ADJUSTMENTS, adjust_pvalues, check_monte_carlo_resolution

        check_choice(adjust, "adjust", ADJUSTMENTS)
        check_probability(alpha, "alpha", open_interval=True)
        names = list(self.observers)
        triples = [(r, x, y) for r in names for i, x in enumerate(names) for y in names[i + 1:] if r not in (x, y)]
        rows = []
        for done, (r, x, y) in enumerate(triples, 1):
            d = self.difference(r, x, y)
            if d.statistic < 0:  # say it the way round it goes: R is more similar to x than to y
                x, y = y, x
                d = self.difference(r, x, y)
            rows.append({"reference": r, "more_similar": x, "less_similar": y, "difference": d.statistic,
                         "ci_low": d.confidence_interval.low, "ci_high": d.confidence_interval.high,
                         "pvalue": d.pvalue, "similarity_more": d.agreement_x, "similarity_less": d.agreement_y})
            if progress is not None and (done % 200 == 0 or done == len(triples)):
                progress("differences", done, len(triples))
        frame = pd.DataFrame(rows, columns=list(AgreementDifferenceFamily.frame_columns[:9]))
        pvalues = frame["pvalue"].to_numpy(dtype=float)
        frame["pvalue_adjusted"] = adjust_pvalues(pvalues, adjust) if len(frame) else []
        frame["significant"] = np.asarray(frame["pvalue_adjusted"], dtype=float) < alpha
        frame["adjust"] = adjust
        order = np.lexsort((-frame["difference"].to_numpy(dtype=float), frame["pvalue_adjusted"].to_numpy(dtype=float)))
        table = frame.iloc[order].reset_index(drop=True)
        jackknife = bool(self.jackknife_values.size)  # t p-values: no Monte-Carlo floor
        floor = None if jackknife else check_monte_carlo_resolution(
            int(frame["pvalue"].notna().sum()), n_resamples=self.n_resamples, alpha=alpha, adjust=adjust, sides=2,
            what="difference")
        return AgreementDifferenceFamily(
            table=table, adjust=adjust, alpha=alpha, n_tests=int(table["pvalue"].notna().sum()),
            n_undefined=int(table["pvalue"].isna().sum()), n_significant=int(table["significant"].sum()),
            confidence_level=self.confidence_level, method=self.method, n_resamples=self.n_resamples,
            notes=self._coverage_notes() + ((floor,) if floor is not None else ()),
            ci_method="jackknife-t" if jackknife else "percentile")

    def _coverage_notes(self) -> tuple[str, ...]:
        """The result's notes that hold for its differences too: the ``coverage`` note of too few clusters."""
        return tuple(n for n in self.result_notes if getattr(n, "kind", "") == "coverage")

    def matrix(self, value: str = "statistic"):
        """Observers × observers :class:`pandas.DataFrame` of one per-pair value (diagonal NaN).

        Parameters
        ----------
        value : str, default "statistic"
            A numeric column of :meth:`to_frame`.

        Returns
        -------
        pandas.DataFrame

        Raises
        ------
        InvalidValueError
            If ``value`` is not a symmetric numeric column of :meth:`to_frame`.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), metric="choice", n_resamples=200, rng=0)
        >>> res.matrix().shape
        (4, 4)
        """
        allowed = ("statistic", "ci_low", "ci_high", "pvalue", "n", "c_obs", "c_exp", "n_undefined")
        if value not in allowed:
            raise InvalidValueError(f"`value` must be one of {list(allowed)}; got {value!r}")
        return pair_matrix(self.to_frame(), self.observers, value)
