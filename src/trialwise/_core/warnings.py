"""The library's own warning classes (all subclasses of :class:`TrialwiseWarning`)."""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["warn", "outside_stacklevel", "TrialwiseWarning", "DegenerateDataWarning", "UndefinedReplicatesWarning", "SparseTableWarning",
           "MonteCarloResolutionWarning"]


class TrialwiseWarning(UserWarning):
    """Base class of every warning trialwise issues."""


class DegenerateDataWarning(TrialwiseWarning):
    """The data are legal but degenerate: κ is undefined, or exactly 0 by construction.

    Issued when an observer is always correct or always wrong on the paired items.
    If both are (expected agreement 1), κ is undefined and reported as NaN; if exactly
    one is, κ is exactly 0 whatever the other observer does (Klein et al. 2025, *Quantifying uncertainty in error
    consistency*, NeurIPS, App. C). Also issued when a design has too few independent units for its
    intervals: items resampled as fewer than 10 clusters (the intervals and tests then run too narrow).
    """


class UndefinedReplicatesWarning(TrialwiseWarning):
    """More than 1 % of the bootstrap replicates had an undefined κ and were left out."""


class SparseTableWarning(TrialwiseWarning):
    """The 2×2 table is too sparse for any interval method to be calibrated.

    Issued when the smallest expected cell count (row total × column total / n) is below
    1.5: there the validity study (``docs/validity.md``) found the Jeffreys interval
    conservative (up to 97.7 % coverage at nominal 95 %) and the bootstrap and Wald
    intervals far too narrow.
    """


class MonteCarloResolutionWarning(TrialwiseWarning):
    """Too few Monte-Carlo replicates for any test of a family to be significant after adjustment.

    A Monte-Carlo p-value from B replicates is at least 1/(B + 1) (twice that for a two-sided
    bootstrap test); Holm's correction over m tests multiplies the smallest by m. Issued by
    :func:`trialwise._stats.significance.check_monte_carlo_resolution` when the smallest attainable
    adjusted p-value is not below α.
    """


#: The folder of the trialwise package: frames of files below it are the library's own.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def outside_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside the trialwise package, seen from the caller.

    A warning then points at the user's line that called trialwise, however many of the
    library's own frames (wrappers such as ``records_seed``, helpers, methods) lie between —
    what Python 3.12's ``warnings.warn(skip_file_prefixes=...)`` does, for Python 3.10 on.
    """
    frame = sys._getframe(1)  # the caller of this function: stacklevel 1 of its warnings.warn
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn(message: str, category: type[Warning]) -> None:
    """Issue ``message`` as ``category``, pointing at the user's code that called trialwise."""
    warnings.warn(message, category, stacklevel=outside_stacklevel())
