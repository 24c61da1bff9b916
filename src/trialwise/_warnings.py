"""The library's own warning classes (all subclasses of :class:`TrialwiseWarning`)."""

from __future__ import annotations

import warnings

__all__ = ["TrialwiseWarning", "DegenerateDataWarning", "UndefinedReplicatesWarning"]


class TrialwiseWarning(UserWarning):
    """Base class of every warning trialwise issues."""


class DegenerateDataWarning(TrialwiseWarning):
    """The data are legal but degenerate: κ is undefined, or exactly 0 by construction.

    Issued when an observer is always correct or always wrong on the paired items.
    If both are (expected agreement 1), κ is undefined and reported as NaN; if exactly
    one is, κ is exactly 0 whatever the other observer does (seed 000, App. C).
    """


class UndefinedReplicatesWarning(TrialwiseWarning):
    """More than 1 % of the bootstrap replicates had an undefined κ and were left out."""


def warn(message: str, category: type[Warning], stacklevel: int = 3) -> None:
    warnings.warn(message, category, stacklevel=stacklevel)
