"""Similarity of language models: CAPA (κ_p on the probabilities given to the options), its discrete
form, choice agreement and error consistency, for one pair or every pair, with clustered intervals.

:func:`trialwise.agreement` and :func:`trialwise.pairwise_agreement` are at the top of the
package; here are their result classes. Modules: ``capa`` (the statistics, one pair),
``pairwise`` (every pair, resampled jointly in tiles; Dask), ``gram`` (the chunked Gram path of every pair's point value), ``results``, ``family``
(the family of difference tests with a common model, adjusted for multiplicity), ``replicates``
(:func:`self_agreement`: a model with itself across repeated runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.similarity.family import AgreementDifferenceFamily
    from trialwise.similarity.replicates import self_agreement
    from trialwise.similarity.results import ModelAgreementResult, AgreementDifferenceResult, PairwiseAgreementResult

__all__ = [
    "ModelAgreementResult", "AgreementDifferenceResult", "AgreementDifferenceFamily", "PairwiseAgreementResult",
    "self_agreement",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.similarity.family": ("AgreementDifferenceFamily",),
    "trialwise.similarity.replicates": ("self_agreement",),
    "trialwise.similarity.results": ("ModelAgreementResult", "AgreementDifferenceResult", "PairwiseAgreementResult"),
})
