"""The reduced validity study that runs in CI (the full grid: benchmarks/calibration/validity_study.py).

Each assertion allows 3 Monte-Carlo standard errors (a false alarm about 0.3 % of the time
per assertion): with R experiments a coverage c has SE √(c(1 − c)/R), stated per test.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
import trialwise.ec.difference
from trialwise.ec.inference import DEFAULT_CI_METHOD, DEFAULT_TEST
from trialwise.validity.results import COVERAGE_BAND

# A handful of grid points: the ceiling where every bootstrap interval fails, a small n,
# unequal accuracies, a high κ near its bound, and a large n.
POINTS = pd.DataFrame(
    [(160, 0.95, 0.95, 0.0), (50, 0.75, 0.75, 0.5), (400, 0.55, 0.85, 0.2), (400, 0.95, 0.95, 0.8),
     (1000, 0.65, 0.95, 0.0)],
    columns=["n", "accuracy_a", "accuracy_b", "kappa"],
)


@pytest.fixture(scope="module")
def study():
    return tw.validity.coverage_study(POINTS, methods=["jeffreys", "percentile", "analytic"],
                                      confidence_levels=[0.95], n_datasets=1500, n_resamples=1000, rng=0)


def test_default_interval_covers_within_the_band_at_every_point(study):
    se = np.sqrt(0.95 * 0.05 / 1500)  # 0.56 percentage points
    t = study.table[study.table.method == DEFAULT_CI_METHOD]
    assert len(t) == len(POINTS)
    for row in t.itertuples():
        assert COVERAGE_BAND[0] - 3 * se <= row.coverage <= COVERAGE_BAND[1] + 3 * se, row


def test_bootstrap_intervals_fail_at_the_ceiling_as_documented(study):
    t = study.table.set_index(["n", "accuracy_a", "accuracy_b", "kappa", "method"]).coverage
    # κ = 0 with both accuracies at 0.95 and n = 160: the both-wrong cell is expected to
    # hold 0.4 trials, so it is usually empty and stays empty in every resample.
    assert t[(160, 0.95, 0.95, 0.0, "percentile")] < 0.6
    assert t[(160, 0.95, 0.95, 0.0, "analytic")] < 0.6
    # Away from the ceiling the bootstrap is fine.
    se = np.sqrt(0.95 * 0.05 / 1500)
    assert abs(t[(400, 0.55, 0.85, 0.2, "percentile")] - 0.95) <= 3 * se


def test_study_table_columns_and_accounting(study):
    t = study.table
    assert {"coverage", "coverage_se", "miss_below", "miss_above", "mean_width", "share_no_interval",
            "share_undefined_estimate", "share_undefined_replicates"} <= set(t.columns)
    np.testing.assert_allclose(t.coverage + t.miss_below + t.miss_above, 1.0)
    assert (t[t.method == "jeffreys"].share_undefined_replicates == 0).all()
    summary = study.summary_frame()
    assert summary.loc[DEFAULT_CI_METHOD, "points"] == len(study.eligible().query("method == @DEFAULT_CI_METHOD"))


def test_coverage_at_ninety_percent():
    st = tw.validity.coverage_study(POINTS.iloc[[1, 2]], methods=[DEFAULT_CI_METHOD], confidence_levels=[0.90],
                                    n_datasets=1500, n_resamples=1000, rng=1)
    se = np.sqrt(0.9 * 0.1 / 1500)  # 0.77 percentage points
    assert np.all(np.abs(st.table.coverage - 0.90) <= 0.015 + 3 * se)


def test_default_test_never_exceeds_alpha():
    grid = tw.validity.study_grid(n=[50, 400], accuracies=[0.55, 0.95], kappas=[0.0])
    st = tw.validity.type_one_error_study(grid, tests=[DEFAULT_TEST, "asymptotic"], alphas=[0.05],
                                          n_datasets=2000, rng=2)
    se = np.sqrt(0.05 * 0.95 / 2000)  # 0.49 percentage points
    fisher = st.table[st.table.test == DEFAULT_TEST]
    assert len(fisher) == 6 and (fisher.rejection_rate <= 0.05 + 3 * se).all()


def test_swap_test_is_calibrated_and_the_papers_procedure_is_not():
    st = tw.validity.difference_test_study(n=[160], accuracy_reference=[0.75], accuracies_xy=[(0.7, 0.7)],
                                           kappas=[0.3], n_datasets=1500, n_resamples=199, rng=3)
    se = np.sqrt(0.05 * 0.95 / 1500)
    t = st.table.set_index(["test", "alpha"]).rejection_rate
    assert abs(t[("swap", 0.05)] - 0.05) <= 3 * se
    assert t[("paper", 0.05)] > 0.5  # its p-value shrinks with B, not with evidence


def test_difference_study_runs_the_restricted_test_where_the_swap_test_fails():
    # equal κ = 0, accuracies 0.6 vs 0.9, reference 0.95: swap rejects 31 % at n = 50 (docs/validity.md)
    st = tw.validity.difference_test_study(n=[50], accuracy_reference=[0.95], accuracies_xy=[(0.6, 0.9)],
                                           kappas=[0.0], tests=["restricted-wald", "swap"], alphas=[0.05],
                                           n_datasets=600, n_resamples=199, rng=4)
    t = st.table.set_index("test")
    limit = 0.05 + 3 * np.sqrt(0.05 * 0.95 / 600)
    assert t.rejection_rate["restricted-wald"] <= limit < t.rejection_rate["swap"]
    assert "restricted-wald" in trialwise.ec.difference.DIFFERENCE_TESTS  # the study's default runs it too


def test_grid_and_bad_input():
    g = tw.validity.study_grid()
    assert len(g) == 5 * 15 * 4
    assert not g.query("accuracy_a == 0.55 and accuracy_b == 0.95 and kappa == 0.2").attainable.any()
    with pytest.raises(ValueError, match="columns"):
        tw.validity.coverage_study(pd.DataFrame({"n": [10]}))
    with pytest.raises(ValueError, match="attainable"):
        tw.validity.coverage_study(pd.DataFrame({"n": [50], "accuracy_a": [0.55], "accuracy_b": [0.95],
                                                 "kappa": [0.8]}))
    with pytest.raises(ValueError, match="methods"):
        tw.validity.coverage_study(POINTS, methods=["wilson"])


@pytest.mark.slow
def test_benchmark_coverage_study_is_calibrated():
    """CI-light version of the benchmark calibration study (docs/benchmark.md has R = 1000)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        study = tw.validity.benchmark_coverage_study(n_datasets=150, n_resamples=300,
                                                     alphas=(0.05,), rng=11)
    t = study.table.set_index("observer")
    assert set(t.index) == {"m1", "m2", "m3", "m4", "x", "y", "human–human", "x − y"}
    assert abs(t.loc["x − y", "true_score"]) < 1e-12 and set(study.tests.test) == {"combined", "studentized", "swap",
                                                                         "bootstrap"}
    # the construction: x and y have equal true scores and unequal accuracies
    assert t.loc["x", "true_score"] == pytest.approx(t.loc["y", "true_score"], abs=1e-9)
    assert t.loc["y", "accuracy"] - t.loc["x", "accuracy"] > 0.05
    # 95 % intervals: each within 4 Monte-Carlo SE of nominal, and on average close to it
    se = np.sqrt(0.95 * 0.05 / study.n_datasets)
    assert (np.abs(t.coverage - 0.95) < 4 * se).all(), t.coverage
    assert abs(t.coverage.mean() - 0.95) < 0.02
    assert (np.abs(t.bias) < 0.01).all()
    ranks = study.ranks
    r = ranks[ranks.rank_set == "marginal"].set_index("observer")  # the table's rank_low/rank_high
    assert r.loc["x", "true_rank"] == "2–3" and r.loc["m1", "true_rank"] == "1"
    assert (ranks.coverage >= 0.95 - 4 * se).all()  # marginal, simultaneous, percentile and the best set
    for _, row in study.tests.iterrows():
        assert row.rejection_rate <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / study.n_datasets), row
    assert "Rank intervals" in study.summary()
