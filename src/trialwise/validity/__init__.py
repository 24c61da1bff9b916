"""Are the intervals and tests calibrated? Coverage and type-I-error studies on simulated data with known truth.

Modules: ``studies`` (the study grid, coverage of EC intervals, type-I error of the tests of κ = 0
and of a difference), ``leaderboard_study`` (the coverage of leaderboard intervals, rank sets and
tests on simulated benchmarks), ``results`` (the study result classes). This package imports the domains
it studies; none of them imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trialwise._core.lazy import lazy_package

if TYPE_CHECKING:  # what the lazy loading below provides, for type checkers and IDEs
    from trialwise.validity.studies import coverage_study, difference_test_study, study_grid, type_one_error_study
    from trialwise.validity.leaderboard_study import benchmark_coverage_study
    from trialwise.validity.results import BenchmarkCoverageStudy, CoverageStudy, TypeOneErrorStudy

__all__ = [
    "BenchmarkCoverageStudy", "CoverageStudy", "TypeOneErrorStudy", "benchmark_coverage_study",
    "coverage_study", "difference_test_study", "study_grid", "type_one_error_study",
]

__getattr__, __dir__ = lazy_package(__name__, __all__, {
    "trialwise.validity.studies": ("coverage_study", "difference_test_study", "study_grid", "type_one_error_study"),
    "trialwise.validity.leaderboard_study": ("benchmark_coverage_study",),
    "trialwise.validity.results": ("BenchmarkCoverageStudy", "CoverageStudy", "TypeOneErrorStudy"),
})
