"""The result of a family of difference tests of similarity: :meth:`PairwiseAgreementResult.differences`.

Is model R more similar to X than to Y, for every R and every pair {X, Y} of the other models,
adjusted over the family (what ``trialwise similarity`` prints and its report shows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trialwise._core.format import format_number, format_pvalue
from trialwise._core.results import Result

__all__ = ["AgreementDifferenceFamily"]


@dataclass(frozen=True, repr=False)
class AgreementDifferenceFamily(Result):
    """Every test of equal similarity to a common model, adjusted over the family.

    Made by :meth:`PairwiseAgreementResult.differences`. ``table`` has one row per reference
    R and pair {X, Y} of the other models, said the way round it goes (R is more similar to
    ``more_similar`` than to ``less_similar``): the difference of the two similarities, its
    percentile interval and two-sided bootstrap p-value from the joint replicates
    (:meth:`PairwiseAgreementResult.difference`), ``pvalue_adjusted`` over all rows,
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
    confidence_level : float
        The level of the rows' intervals.
    method : str
        The similarity metric.
    n_resamples : int
    notes : tuple of str
        The Monte-Carlo resolution note when B is too small for any adjusted p-value of the
        family to reach ``alpha`` (also a warning).
    """

    table: Any  # pandas.DataFrame
    adjust: str
    alpha: float
    n_tests: int
    n_significant: int
    confidence_level: float
    method: str
    n_resamples: int
    notes: tuple = ()

    frame_columns = ("reference", "more_similar", "less_similar", "difference", "ci_low", "ci_high", "pvalue",
                     "similarity_more", "similarity_less", "pvalue_adjusted", "significant", "adjust")

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return (f"AgreementDifferenceFamily({self.method}, {self.n_tests} tests, {self.n_significant} significant "
                f"at {self.alpha:g}, {self.adjust}-adjusted, n_resamples={self.n_resamples})")

    __str__ = __repr__

    def summary(self) -> str:
        """The family as text: how many tests, how many significant, then the significant rows.

        Returns
        -------
        str

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=2000, rng=0)
        >>> print(res.differences().summary().splitlines()[0])
        Differences of similarity with a common model: 12 tests (two-sided bootstrap, holm-adjusted), 4 significant at 0.05
        """
        lines = [f"Differences of similarity with a common model: {self.n_tests} tests (two-sided bootstrap, "
                 f"{self.adjust}-adjusted), {self.n_significant} significant at {self.alpha:g}"]
        for r in self.table[self.table["significant"]].itertuples():
            lines.append(f"  {r.reference}: more similar to {r.more_similar} ({format_number(r.similarity_more)}) than "
                         f"to {r.less_similar} ({format_number(r.similarity_less)}): {r.difference:+.3f} "
                         f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}], adjusted p = {format_pvalue(r.pvalue_adjusted)}")
        return "\n".join(lines + [f"  note: {n}" for n in self.notes])
