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
import trialwise._stats.intervals
import trialwise.leaderboards.hierarchy
from trialwise.leaderboards import PROTOCOLS
from trialwise.leaderboards.hierarchy import build_design
from trialwise.leaderboards.bootstrap import bootstrap_entries
from trialwise.leaderboards.trials import as_trials as _as_trials

ALL_FLAT = tw.leaderboards.Protocol("every-experiment", aggregation=("reference", "condition"))
ALL_NESTED = tw.leaderboards.Protocol("every-experiment-nested")


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
        lb = tw.leaderboard(datasets["texture-vs-shape"], proto, n_resamples=400, ci_method="bc", rng=0)
    row = lb.table.iloc[0]
    assert row.score > row.ci_high  # the interval misses its estimate without the rule
    # (the studentized interval misses it too, from above: with 1–8 items per pair the IJ
    # standard errors of the replicates are too unstable; the rule is what keeps both sound)


def test_min_items_changes_no_model_vs_human_number(datasets):
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
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
        tw.leaderboards.MODEL_VS_HUMAN.replace(min_items=bad)


def test_protocol_with_none_of_its_experiments_is_an_error_naming_them(datasets):
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["sketch", "stylized"])
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
@pytest.mark.parametrize("ci_method", ["bc", "studentized"])
def test_sparse_overlap_calibration_ci_light(ci_method):
    """CI-light run of benchmarks/calibration/sparse_overlap_coverage.py (R = 120, B = 300): humans see 100 of
    400 items per condition (pairs of humans share ~25, models 100 with each human). Model rows
    cover their true scores within Monte-Carlo error (3 SE below 0.95 and the narrower width of
    B = 300 percentiles); every interval contains its estimate. The studentized interval also
    covers the human–human row within that error (bc under-covers it: 0.90 at R = 400)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        st = tw.validity.benchmark_coverage_study(n_datasets=120, n_resamples=300, n_items=400,
                                                  reference_items=100, run_tests=False, ci_method=ci_method, rng=2)
    t = st.table.set_index("observer")
    assert (t["contains_estimate"] == 1.0).all()
    rows = t if ci_method == "studentized" else t.drop(index="human–human")
    se = np.sqrt(0.95 * 0.05 / 120)
    assert (rows["coverage"] >= 0.95 - 3 * se - 0.01).all(), rows.to_string()
    assert (rows["coverage"] <= 0.95 + 3 * se).all(), rows.to_string()
    assert (t.drop(index="human–human")["bias"].abs() < 0.01).all()


def _tiny_trials(seed=0, n_items=14):
    """Two conditions, three humans who each miss some items, two models: every pair shares a few items."""
    import pandas as pd

    gen = np.random.default_rng(seed)
    rows = []
    for cond in ("c0", "c1"):
        for name, kind, p in (("h1", "human", 0.7), ("h2", "human", 0.75), ("h3", "human", 0.6),
                              ("m1", "model", 0.65), ("m2", "model", 0.8)):
            for i in range(n_items):
                if kind == "human" and gen.random() < 0.2:
                    continue
                rows.append(("e0", cond, name, kind, f"{cond}-{i}", "a", "a", bool(gen.random() < p)))
    return pd.DataFrame(rows, columns=list(tw.io.TRIAL_COLUMNS))


def _scores_with_weights(design, weights):
    """Row scores of the design when every unit's items carry the given weights (brute force)."""
    from trialwise.leaderboards.protocol import metric_from_sums
    from trialwise.leaderboards.hierarchy import row_scores

    values = np.empty(design.n_entries)
    for unit, w in zip(design.units, weights):
        r, s = unit.right.astype(float), unit.seen.astype(float)
        a, b = unit.pairs[:, 0], unit.pairs[:, 1]
        sums = [w @ (s[:, a] * s[:, b]), w @ (r[:, a] * r[:, b]), w @ (r[:, a] * s[:, b]), w @ (s[:, a] * r[:, b])]
        values[unit.entries] = metric_from_sums(design.protocol.metric, *sums)
    return row_scores(values, design)


@pytest.mark.parametrize("metric", ["error-consistency", "observed-consistency", "accuracy-difference"])
def test_infinitesimal_jackknife_matches_brute_force(metric):
    """The IJ SE of every row score equals sqrt(Σ_i w_i d_i²) with d_i the numerical derivative
    of the score in item i's weight (central differences), on the data and on a replicate whose
    item weights are redrawn from the same streams."""
    from trialwise.leaderboards.bootstrap import bootstrap_entries_ij
    from trialwise._stats.resampling import bootstrap_weights
    from trialwise._stats.streams import child_rngs

    proto = tw.leaderboards.Protocol("tiny", metric=metric, min_items=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        design = build_design(_as_trials(_tiny_trials()), proto)
    b = 5
    ij = bootstrap_entries_ij(design, b, rng=7)
    gens = child_rngs(7, len(design.units))
    draws = [np.concatenate(list(bootstrap_weights(u.right.shape[0], b, rng=g))).astype(float)
             for u, g in zip(design.units, gens)]
    for r, expected in ((None, ij.standard_errors), (3, ij.replicate_standard_errors[3])):
        base = [np.ones(u.right.shape[0]) if r is None else d[r] for u, d in zip(design.units, draws)]
        var = np.zeros(len(design.rows))
        eps = 1e-6
        for k, w in enumerate(base):
            for i in range(len(w)):
                up = [x.copy() for x in base]
                down = [x.copy() for x in base]
                up[k][i] += eps
                down[k][i] -= eps
                d_i = (_scores_with_weights(design, up) - _scores_with_weights(design, down)) / (2 * eps)
                var += w[i] * d_i**2
        np.testing.assert_allclose(expected, np.sqrt(var), rtol=1e-5)
        if r is not None:  # the replicate is the one bootstrap_entries_ij scored
            entries = ij.entries[r].astype(float)
            np.testing.assert_allclose(trialwise.leaderboards.hierarchy.row_scores(entries, design),
                                       _scores_with_weights(design, base), rtol=1e-5)


def test_infinitesimal_jackknife_is_close_to_the_jackknife():
    """On a larger design the IJ SE and the leave-one-item-out jackknife SE agree (both are
    first-order delta-method SEs; they differ by O(1/n))."""
    from trialwise.leaderboards.bootstrap import bootstrap_entries_ij

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        design = build_design(_as_trials(_tiny_trials(seed=3, n_items=80)), tw.leaderboards.Protocol("tiny", min_items=3))
    ij = bootstrap_entries_ij(design, 2, rng=0)
    ones = [np.ones(u.right.shape[0]) for u in design.units]
    var = np.zeros(len(design.rows))
    for k, unit in enumerate(design.units):
        n = unit.right.shape[0]
        loo = []
        for i in range(n):
            w = [x.copy() for x in ones]
            w[k][i] = 0.0
            loo.append(_scores_with_weights(design, w))
        loo = np.array(loo)
        var += (n - 1) / n * ((loo - loo.mean(axis=0)) ** 2).sum(axis=0)
    np.testing.assert_allclose(ij.standard_errors, np.sqrt(var), rtol=0.1)


def test_studentized_interval_is_basic_with_a_constant_standard_error():
    """With SE* = SE on every replicate the bootstrap-t interval is the basic interval."""
    from trialwise._stats.intervals import basic_interval, studentized_interval

    dist = np.random.default_rng(0).gamma(2.0, 0.05, size=(999, 3))
    est = np.array([0.1, 0.2, 0.3])
    se = np.array([0.02, 0.05, 0.1])
    lo, hi = studentized_interval(dist, est, se, np.broadcast_to(se, dist.shape), 0.9)
    blo, bhi = basic_interval(dist, est, 0.9, bounds=(-np.inf, np.inf))
    np.testing.assert_allclose(lo, blo, rtol=1e-12)
    np.testing.assert_allclose(hi, bhi, rtol=1e-12)
    with pytest.raises(ValueError, match="`standard_error` and `replicate_standard_error` are needed"):
        trialwise._stats.intervals.interval("studentized", dist, est, 0.9, standard_error=se)


def test_studentized_leaves_replicates_and_estimates_unchanged(datasets):
    """ci_method='studentized' changes only the intervals: same scores and replicates as bc;
    per-experiment scores keep bc, differences get the symmetric bootstrap-t; the tests'
    p-values do not depend on the leaderboard's ci_method (a bc leaderboard computes the same
    standard errors when a test needs them, from the same replicates)."""
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    a = tw.leaderboard(datasets["model-vs-human"], proto, n_resamples=100, ci_method="bc", rng=3)
    b = tw.leaderboard(datasets["model-vs-human"], proto, n_resamples=100, ci_method="studentized", rng=3)
    np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert b.standard_errors.shape == b.scores.shape and a.standard_errors is None
    assert b.difference_ci_method == "symmetric-studentized" and a.difference_ci_method == "bc"
    assert b.experiment_ci_method == "bc"
    for test in ("studentized", "combined", "swap", "bootstrap"):
        da, db = a.difference("resnet50", "clip-16", test=test), b.difference("resnet50", "clip-16", test=test)
        assert da.pvalue == db.pvalue, test
        assert da.ci_method == "bc" and db.ci_method == "symmetric-studentized"
    se, se_rep = a._row_standard_errors.get()
    np.testing.assert_array_equal(se, b.standard_errors)
    np.testing.assert_array_equal(se_rep, b.replicate_standard_errors)
    assert a.by_experiment().table.equals(b.by_experiment().table)


def test_studentized_interval_is_unbounded_where_the_standard_error_vanishes():
    """SE* = 0 on a replicate makes its t* ±∞: bounded while such replicates are fewer than α/2
    on a side, unbounded beyond; an undefined θ* with SE* = 0 (θ* = θ̂) is left out."""
    from trialwise._stats.intervals import studentized_interval

    gen = np.random.default_rng(1)
    dist = 0.3 + 0.05 * gen.standard_normal(1000)
    se_rep = np.full(1000, 0.05)
    lo, hi = studentized_interval(dist, 0.3, 0.05, se_rep, 0.95)
    assert np.isfinite(lo) and np.isfinite(hi)
    few = se_rep.copy()
    few[:10] = 1e-19  # 1 % of the replicates, split between both sides: still bounded, a little wider
    lo2, hi2 = studentized_interval(dist, 0.3, 0.05, few, 0.95)
    assert np.isfinite(lo2) and np.isfinite(hi2) and lo2 <= lo and hi2 >= hi
    many = se_rep.copy()
    low_side = np.flatnonzero(dist < 0.3)[:60]  # 6 % of t* = −∞: the upper end is unbounded
    many[low_side] = 0.0
    lo3, hi3 = studentized_interval(dist, 0.3, 0.05, many, 0.95)
    assert np.isfinite(lo3) and hi3 == np.inf


def test_leaderboard_falls_back_to_bc_where_the_studentized_interval_is_unbounded():
    """A reference row of one human pair sharing 20 items, each human wrong on one item: in
    (19/20)^20 ≈ 36 % of the replicates one human is always right, κ* = 0 whatever the weights
    and SE* = 0. That row gets the bc interval, named in the notes; model rows stay studentized."""
    import pandas as pd

    rows = []
    gen = np.random.default_rng(0)
    for i in range(20):
        for name, kind, right in (("h1", "human", i != 3), ("h2", "human", i != 11),
                                  ("m1", "model", bool(gen.random() < 0.7)), ("m2", "model", bool(gen.random() < 0.8))):
            rows.append(("e0", "c0", name, kind, f"i{i}", "a", "a" if right else "b", right))
    trials = pd.DataFrame(rows, columns=list(tw.io.TRIAL_COLUMNS))
    proto = tw.leaderboards.Protocol("tiny", min_items=20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        st = tw.leaderboard(trials, proto, n_resamples=400, rng=0)
        bc = tw.leaderboard(trials, proto, n_resamples=400, ci_method="bc", rng=0)
    ref = st.table.set_index("observer").loc[st.reference_row]
    ref_bc = bc.table.set_index("observer").loc[bc.reference_row]
    assert np.isfinite(ref.ci_low) and np.isfinite(ref.ci_high)
    assert (ref.ci_low, ref.ci_high) == (ref_bc.ci_low, ref_bc.ci_high)
    assert any("studentized interval is unbounded" in n and st.reference_row in n for n in st.notes)
    assert not any("studentized interval is unbounded" in n for n in bc.notes)
    assert np.mean(st.replicate_standard_errors[:, -1] <= 1e-8 * st.standard_errors[-1]) > 0.25
