"""Are the intervals and tests calibrated? Coverage and type-I-error studies on simulated data with known truth.

Module: ``studies`` (the study grid, coverage of EC intervals, type-I error of the tests of κ = 0
and of a difference, the coverage of leaderboard intervals). This package imports the domains
it studies; none of them imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.validity.studies import BenchmarkCoverageStudy, CoverageStudy, TypeOneErrorStudy, benchmark_coverage_study, coverage_study, difference_test_study, study_grid, type_one_error_study

__all__ = [
    "BenchmarkCoverageStudy", "CoverageStudy", "TypeOneErrorStudy", "benchmark_coverage_study",
    "coverage_study", "difference_test_study", "study_grid", "type_one_error_study",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.validity.studies": ("BenchmarkCoverageStudy", "CoverageStudy", "TypeOneErrorStudy", "benchmark_coverage_study", "coverage_study", "difference_test_study", "study_grid", "type_one_error_study",),
})
