"""The result of a family of difference tests of similarity: :meth:`PairwiseAgreementResult.differences`.

Is model R more similar to X than to Y, for every R and every pair {X, Y} of the other models,
adjusted over the family (what ``trialwise similarity`` prints and its report shows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialwise._core.format import format_number, format_pvalue
from trialwise._core.results import Result
from trialwise._core.shown import shown

__all__ = ["AgreementDifferenceFamily"]


@dataclass(frozen=True, repr=False)
class AgreementDifferenceFamily(Result):
    """Every test of equal similarity to a common model, adjusted over the family.

    Made by :meth:`PairwiseAgreementResult.differences`. ``table`` has one row per reference
    R and pair {X, Y} of the other models, said the way round it goes (R is more similar to
    ``more_similar`` than to ``less_similar``): the difference of the two similarities, its
    interval and two-sided p-value (:meth:`PairwiseAgreementResult.difference`: the percentile
    interval and bootstrap p-value of the joint replicates, or over clusters the jackknife t
    interval and t test, ``ci_method``), ``pvalue_adjusted`` over all rows,
    ``significant`` (adjusted p below ``alpha``). Rows are ordered by adjusted p, then by the
    size of the difference.

    Attributes
    ----------
    table : pandas.DataFrame
        The rows, with the columns ``frame_columns``.
    adjust : str
        The multiplicity adjustment (``"holm"``, ``"bh"``, ...).
    alpha : float
        The significance level of ``significant``.
    n_tests, n_significant : int
        The tests made (rows with a p-value: a row whose difference is undefined, because an
        agreement is, is no test and is not counted nor adjusted) and those significant.
    n_undefined : int
        Rows without a p-value (their difference undefined), left out of ``n_tests``.
    confidence_level : float
        The level of the rows' intervals.
    method : str
        The similarity metric.
    n_resamples : int
    notes : tuple of str
        The Monte-Carlo resolution note when B is too small for any adjusted p-value of the
        family to reach ``alpha`` (also a warning).
    ci_method : {"percentile", "jackknife-t"}
        How the rows' intervals and p-values were made (:meth:`PairwiseAgreementResult.difference`).
    """

    table: Any  # pandas.DataFrame
    adjust: str = field(metadata=shown("adjustment", in_repr=True, format="text"))
    alpha: float = field(metadata=shown("alpha", in_repr=True, format="general"))
    n_tests: int = field(metadata=shown("tests", in_repr=True, format="int", detail="two-sided, {ci_method}"))
    n_significant: int = field(metadata=shown("significant", in_repr=True, format="int"))
    confidence_level: float = field(metadata=shown("interval level", format="percent"))
    method: str = field(metadata=shown("metric", in_repr=True, repr_name="", format="text"))
    n_resamples: int = field(metadata=shown("bootstrap B", in_repr=True, format="int"))
    notes: tuple = ()
    n_undefined: int = field(default=0, metadata=shown("undefined (no test)", format="int"))
    ci_method: str = field(default="percentile", kw_only=True)

    frame_columns = ("reference", "more_similar", "less_similar", "difference", "ci_low", "ci_high", "pvalue",
                     "similarity_more", "similarity_less", "pvalue_adjusted", "significant", "adjust")
    summary_title = "Differences of similarity with a common model"

    def __len__(self) -> int:
        return len(self.table)

    def _summary_details(self) -> list[str]:
        """The significant rows, each said as a sentence (its own: the family's findings, not its table).

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=2000, rng=0)
        >>> print(res.differences().summary().splitlines()[-1])
          sim/demo-7b-chat: more similar to sim/demo-7b (0.244) than to sim/demo-13b (0.161): +0.083 [+0.058, +0.110], adjusted p = 0.012
        """
        return [f"  {r.reference}: more similar to {r.more_similar} ({format_number(r.similarity_more)}) than "
                f"to {r.less_similar} ({format_number(r.similarity_less)}): {r.difference:+.3f} "
                f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}], adjusted p = {format_pvalue(r.pvalue_adjusted)}"
                for r in self.table[self.table["significant"]].itertuples()]
