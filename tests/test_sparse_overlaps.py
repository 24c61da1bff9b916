"""Sparse overlaps (issue 14, item 2): every score's interval holds its estimate, on both bundled
datasets under every protocol, and the rule that leaves out pairs sharing too few items.

The cause of the old failure (texture-vs-shape, texture-filled-rotated: human–human 0.374 with
CI [0.285, 0.346]): human pairs there share 1–8 images per condition. A table of so few items
is often one whose κ is undefined (both observers always right) or exactly 0 by rule, and how
often a bootstrap replicate of it is undefined depends on its value (a κ = 1 table of two items
is undefined in half the replicates, a κ = 0 one never), so leaving undefined replicates out of
the means shifted the replicate distribution below the estimate.
"""

import warnings

import numpy as np
import pytest

import trialwise as tw
from trialwise.benchmark import PROTOCOLS
from trialwise.benchmark.hierarchy import bootstrap_entries, build_design
from trialwise.benchmark.leaderboard import _as_trials

ALL_FLAT = tw.Protocol("every-experiment", aggregation=("reference", "condition"))
ALL_NESTED = tw.Protocol("every-experiment-nested")


def _datasets():
    return {"texture-vs-shape": tw.datasets.texture_vs_shape(), "model-vs-human": tw.datasets.model_vs_human()}


@pytest.fixture(scope="module")
def datasets():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return {k: _as_trials(v) for k, v in _datasets().items()}


@pytest.mark.parametrize("protocol", [*PROTOCOLS, ALL_FLAT, ALL_NESTED], ids=lambda p: getattr(p, "name", p))
@pytest.mark.parametrize("name", ["texture-vs-shape", "model-vs-human"])
def test_every_interval_contains_its_estimate(datasets, name, protocol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        try:
            lb = tw.leaderboard(datasets[name], protocol, n_resamples=300, rng=0)
        except ValueError as exc:  # a protocol none of whose experiments is in these trials
            assert "none of the experiments" in str(exc)
            return
    for table in (lb.table, lb.by_experiment().table):
        t = table.dropna(subset=["score"])
        outside = t[(t.score < t.ci_low) | (t.score > t.ci_high)]
        assert outside.empty, outside.to_string()


def test_texture_filled_rotated_reference_pairs_are_left_out(datasets):
    """Human pairs share at most 8 images per rotation angle: all are below min_items=20."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        lb = tw.leaderboard(datasets["texture-vs-shape"], ALL_FLAT, n_resamples=200, rng=0)
    notes = " ".join(lb.notes)
    assert "texture-filled-rotated" in notes and "fewer than 20 images" in notes
    assert "the reference row has no value there" in notes
    per_exp = lb.by_experiment().table.set_index(["experiment", "observer"])
    assert np.isnan(per_exp.loc[("texture-filled-rotated", lb.reference_row), "score"])
    # candidates keep the pairs with >= 20 shared images and are scored there
    assert np.isfinite(per_exp.loc[("texture-filled-rotated", "resnet50"), "score"])


def test_the_old_failure_and_its_cause(datasets):
    """With min_items=1 the replicate means fall below the estimate, because undefined
    replicates are commoner for tables with larger κ (the mechanism in the module doc)."""
    proto = ALL_FLAT.replace(experiments=["texture-filled-rotated"], min_items=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        design = build_design(datasets["texture-vs-shape"], proto)
        reps = bootstrap_entries(design, 400, rng=0).astype(float)
    ref = design.entry_row == design.reference_row
    obs = design.values()[ref]
    undefined_share = np.isnan(reps[:, ref]).mean(axis=0)
    ok = ~np.isnan(obs)
    # entries with κ = 0 exactly (degenerate by rule) are undefined less often than the others
    zero = ok & (obs == 0)
    assert undefined_share[zero].mean() < undefined_share[ok & (obs > 0.5)].mean() - 0.1
    # and the mean of the replicate means lies below the estimate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        lb = tw.leaderboard(datasets["texture-vs-shape"], proto, n_resamples=400, rng=0)
    row = lb.table.iloc[0]
    assert row.score > row.ci_high  # the interval misses its estimate without the rule


def test_min_items_changes_no_model_vs_human_number(datasets):
    proto = tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    a = tw.leaderboard(datasets["model-vs-human"], proto.replace(min_items=1), n_resamples=100, rng=3)
    b = tw.leaderboard(datasets["model-vs-human"], proto.replace(min_items=160), n_resamples=100, rng=3)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.replicates, b.replicates)


@pytest.mark.parametrize("bad, err, match", [
    (0, ValueError, "`min_items` must be an integer >= 1; got 0"),
    (2.5, TypeError, "`min_items` must be an integer >= 1; got 2.5"),
    (True, TypeError, "`min_items` must be an integer"),
    ("20", TypeError, "`min_items` must be an integer"),
])
def test_min_items_validation(bad, err, match):
    with pytest.raises(err, match=match):
        tw.MODEL_VS_HUMAN.replace(min_items=bad)


def test_protocol_with_none_of_its_experiments_is_an_error_naming_them(datasets):
    proto = tw.MODEL_VS_HUMAN.replace(experiments=["sketch", "stylized"])
    with pytest.raises(ValueError, match=r"none of the experiments of protocol 'model-vs-human'.*sketch, stylized"):
        tw.leaderboard(datasets["texture-vs-shape"], proto, n_resamples=10)


def test_partial_data_scores_what_is_there_and_names_what_is_missing(datasets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        lb = tw.leaderboard(datasets["texture-vs-shape"], "model-vs-human", n_resamples=50, rng=0)
    assert set(lb._design.experiments) == {"cue-conflict", "edge", "silhouette"}
    assert any("14 of the 17 experiments" in n and "uniform-noise" in n for n in lb.notes)
    # no exclusion is claimed for experiments that are not there
    assert "0 condition(s) excluded" in lb.describe()


@pytest.mark.slow
def test_sparse_overlap_calibration_ci_light():
    """CI-light run of benchmarks/sparse_overlap_coverage.py (R = 120, B = 300): humans see 100 of
    400 items per condition (pairs of humans share ~25, models 100 with each human). Model rows
    cover their true scores within Monte-Carlo error (3 SE below 0.95 and the narrower width of
    B = 300 percentiles); every interval contains its estimate."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        st = tw.validity.benchmark_coverage_study(n_datasets=120, n_resamples=300, n_items=400,
                                                  reference_items=100, tests=False, rng=2)
    t = st.table.set_index("observer")
    assert (t["contains_estimate"] == 1.0).all()
    models = t.drop(index="human–human")
    se = np.sqrt(0.95 * 0.05 / 120)
    assert (models["coverage"] >= 0.95 - 3 * se - 0.01).all(), models.to_string()
    assert (models["bias"].abs() < 0.01).all()
