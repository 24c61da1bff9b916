"""Benchmark leaderboards: published numbers, the joint hierarchical bootstrap, tests, loaders, bad input."""

import dataclasses
import json
import pickle
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
from trialwise.leaderboards.hierarchy import build_design
from trialwise.leaderboards.swap import swap_differences
from trialwise.leaderboards.ranks import kendall_tau, probability_best, rank_intervals, rank_scores
from trialwise._stats.significance import adjust_pvalues

MVH = tw.leaderboards.MODEL_VS_HUMAN


@pytest.fixture(scope="module")
def trials():
    return tw.read_trials(tw.datasets.model_vs_human())


def _pandas_protocol(trials, protocol, metric="error-consistency"):
    """A plain re-implementation: per condition and human–model pair, then the protocol's means."""
    t = trials[trials["experiment"].isin(protocol.experiments or trials["experiment"].unique())]
    drop = np.zeros(len(t), bool)
    for e, conds in protocol.exclude.items():
        drop |= ((t["experiment"] == e) & t["condition"].isin(conds)).to_numpy()
    t = t[~drop]
    hum = t[t["observer_type"] == "human"]
    mod = t[t["observer_type"] == "model"]
    m = mod.merge(hum, on=["experiment", "condition", "image"], suffixes=("_m", "_h"))

    def value(g):
        a, b = g["correct_m"].to_numpy(), g["correct_h"].to_numpy()
        if metric == "error-consistency":
            return cohen_kappa_score(a, b)
        if metric == "observed-consistency":
            return np.mean(a == b)
        return (a.mean() - b.mean()) ** 2

    per = m.groupby(["subject_m", "experiment", "condition", "subject_h"]).apply(value, include_groups=False)
    per = per.groupby(["subject_m", "experiment", "condition"]).mean()
    if "experiment" in protocol.aggregation:
        scores = per.groupby(["subject_m", "experiment"]).mean().groupby("subject_m").mean()
    else:
        scores = per.groupby("subject_m").mean()
    full = t.groupby("subject")["experiment"].nunique()
    return scores[[s for s in scores.index if full[s] == t["experiment"].nunique()]]


# --------------------------------------------------------------------------- published numbers


def test_published_model_vs_human_numbers(trials):
    cue = tw.leaderboard(trials, MVH.replace(experiments=["cue-conflict"]), n_resamples=20, rng=0)
    by = cue.table.set_index("observer")["score"]
    assert round(by["human–human"], 3) == 0.331
    assert round(by["resnet50"], 3) == 0.068
    full = {m: tw.leaderboard(trials, MVH.replace(metric=m), n_resamples=20, rng=0).table.set_index("observer")
            for m in tw.leaderboards.METRICS}
    assert round(full["error-consistency"].loc["resnet50", "score"], 3) == 0.208
    assert round(full["observed-consistency"].loc["resnet50", "score"], 3) == 0.665
    assert round(full["accuracy-difference"].loc["resnet50", "score"], 3) == 0.087


@pytest.mark.parametrize("protocol", [MVH, tw.leaderboards.FLAT, MVH.replace(name="obs", metric="observed-consistency"),
                                      MVH.replace(name="acc", metric="accuracy-difference")])
def test_scores_equal_a_pandas_reimplementation(trials, protocol):
    lb = tw.leaderboard(trials, protocol, n_resamples=10, rng=0)
    ours = lb.table.set_index("observer")["score"].drop("human–human")
    ref = _pandas_protocol(trials, protocol, protocol.metric)
    assert sorted(ours.index) == sorted(ref.index)
    np.testing.assert_allclose(ours[ref.index].to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)


def test_excluded_conditions_and_partial_candidates_are_reported(trials):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lb = tw.leaderboard(trials, n_resamples=10, rng=0)
    ex = lb.excluded
    assert (ex["reason"] == "condition excluded by protocol").sum() == sum(len(v) for v in MVH.exclude.values())
    lacking = set(ex.loc[ex["reason"].str.startswith("candidate lacks"), "subject"])
    assert lacking == {"clip_kb", "resnet50-dino", "resnet50-insup", "resnet50-moco", "vitb-moco"}
    assert len(lb.candidates) == 21
    (note,) = [n for n in lb.notes if n.kind == "candidates-not-scored"]
    assert set(note.values["lacking"]) == lacking and "5 candidate(s) not scored" in note


# --------------------------------------------------------------------------- the joint bootstrap


def _small(trials):
    keep = trials["experiment"].isin(["edge", "rotation"]) & (
        (trials["observer_type"] == "human") | trials["subject"].isin(["resnet50", "clip-16", "vit-b-16"]))
    return trials[keep.to_numpy()]


def test_hierarchical_bootstrap_equals_a_brute_force_loop(trials):
    """Same seed ⇒ same replicates: index resampling per condition, sklearn κ, pandas means."""
    small = _small(trials)
    b = 60
    lb = tw.leaderboard(small, MVH, n_resamples=b, rng=7)
    boot_gen = np.random.default_rng(7).spawn(2)[0]
    units = sorted(small.groupby(["experiment", "condition"]).groups)
    units = [u for u in units if u[1] not in MVH.exclude.get(u[0], ())]
    gens = boot_gen.spawn(len(units))
    humans = sorted(small.loc[small["observer_type"] == "human", "subject"].unique())
    models = sorted(small.loc[small["observer_type"] == "model", "subject"].unique())
    per = {}  # (experiment) -> list over conditions of (b, rows) arrays
    for (e, c), g in zip(units, gens):
        sub = small[(small["experiment"] == e) & (small["condition"] == c)]
        wide = sub.pivot(index="image", columns="subject", values="correct").sort_index()
        idx = g.integers(0, len(wide), size=(b, len(wide)))
        hum_e = [h for h in humans if h in wide.columns]
        out = np.empty((b, len(models) + 1))
        for r in range(b):
            w = wide.iloc[idx[r]]
            for k, mname in enumerate(models):
                out[r, k] = np.mean([cohen_kappa_score(w[mname], w[h]) for h in hum_e])
            out[r, -1] = np.mean([cohen_kappa_score(w[h1], w[h2]) for h1, h2 in combinations(hum_e, 2)])
        per.setdefault(e, []).append(out)
    brute = np.mean([np.mean(v, axis=0) for v in per.values()], axis=0)
    ours = lb.replicates[:, [lb.observers.index(m) for m in models] + [len(lb.observers) - 1]]
    np.testing.assert_allclose(ours, brute, atol=2e-6)  # entries are kept in float32


def test_bootstrap_does_not_depend_on_workers(trials):
    small = _small(trials)
    a = tw.leaderboard(small, n_resamples=200, rng=3, workers=1)
    b = tw.leaderboard(small, n_resamples=200, rng=3, workers=2)
    np.testing.assert_array_equal(a.replicates, b.replicates)


def test_group_means_of_float32_replicates_are_exact_and_cast_block_by_block():
    """The bootstrap's float32 (B, entries) replicates are averaged without a whole float64 copy
    (a copy of the main command's replicates was 380 MB of its peak), to the same bits."""
    import tracemalloc

    from scipy import sparse

    from trialwise.leaderboards.hierarchy import group_mean

    gen = np.random.default_rng(5)
    values = gen.random((4000, 3000), dtype=np.float32)  # 48 MB; a float64 copy would take 96 MB
    values[gen.random(values.shape) < 0.05] = np.nan
    member = sparse.csr_matrix((np.ones(3000), (np.arange(3000), gen.integers(0, 40, 3000))), shape=(3000, 40))
    tracemalloc.start()
    try:
        got = group_mean(values, member, workers=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * values.size, peak
    np.testing.assert_array_equal(got, group_mean(values.astype(np.float64), member, workers=1))
    assert got.dtype == np.float64


def test_ranks_intervals_and_kendall_against_direct_computation(trials):
    lb = tw.leaderboard(_small(trials), n_resamples=300, rng=1)
    k = len(lb.candidates)
    reps = lb.replicates[:, :k]
    direct = np.array([stats.rankdata(-row, method="min") for row in reps])
    np.testing.assert_array_equal(rank_scores(reps), direct)
    t = lb.table.set_index("observer")
    for j, name in enumerate(lb.candidates):
        assert t.loc[name, "p_best"] == pytest.approx(np.mean(direct[:, j] == 1))
        lo, hi = np.sort(direct[:, j])[[int(np.floor(0.025 * 299)), int(np.ceil(0.975 * 299))]]
        pct = rank_intervals(direct, 0.95)  # the percentile interval (the table's before issue 16)
        assert (pct[0][j], pct[1][j]) == (lo, hi)
        assert t.loc[name, "rank_low"] <= t.loc[name, "rank"] <= t.loc[name, "rank_high"]  # tests/leaderboards/test_ranks.py
    taus = [stats.kendalltau(lb.scores[:k], row).statistic for row in reps]
    np.testing.assert_allclose(lb.kendall_tau.bootstrap_distribution, taus, atol=1e-12)


def test_kendall_tau_with_ties_matches_scipy():
    rng = np.random.default_rng(0)
    ref = rng.integers(0, 4, 9).astype(float)
    reps = rng.integers(0, 4, (50, 9)).astype(float)
    np.testing.assert_allclose(kendall_tau(ref, reps), [stats.kendalltau(ref, r).statistic for r in reps], atol=1e-12)
    assert np.isnan(kendall_tau(ref, np.r_[reps[0][:-1], np.nan][None]))[0]
    lo, hi = rank_intervals(np.array([[1, 2], [2, 1], [1, 2], [1, 2]]), 0.5)
    assert lo.tolist() == [1, 1] and hi.tolist() == [2, 2]
    assert probability_best(np.array([[1, 2], [1, 1]])).tolist() == [1.0, 0.5]


def test_multiplicity_against_statsmodels_and_scipy():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(2)
    p = rng.random(40) ** 3
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), multipletests(p, method="holm")[1], atol=1e-14)
    np.testing.assert_array_equal(adjust_pvalues(p, "bh"), stats.false_discovery_control(p, method="bh"))
    np.testing.assert_array_equal(adjust_pvalues(p, "by"), stats.false_discovery_control(p, method="by"))
    q = adjust_pvalues(np.r_[p[:3], np.nan], "holm")
    assert np.isnan(q[-1]) and np.allclose(q[:3], multipletests(p[:3], method="holm")[1])
    with pytest.raises(ValueError, match="adjust"):
        adjust_pvalues(p, "bonferroni-ish")


# --------------------------------------------------------------------------- difference tests


def test_swap_distribution_equals_per_item_swapping(trials):
    """The counts-based swap kernel vs swapping responses item by item and recomputing."""
    small = _small(trials)
    design = build_design(small, MVH)
    x, y = design.rows.index("clip-16"), design.rows.index("resnet50")
    obs, null = swap_differences(design, x, y, 4000, rng=0)
    rng = np.random.default_rng(1)
    ref = []
    wide = [(u.experiment, small[(small["experiment"] == u.experiment) & (small["condition"] == u.condition)]
             .pivot(index="image", columns="subject", values="correct")) for u in design.units]
    humans = [h for h in design.references]
    for _ in range(400):
        per_exp = {}
        for exp, w in wide:
            s = rng.random(len(w)) < 0.5
            xs = np.where(s, w["resnet50"], w["clip-16"])
            ys = np.where(s, w["clip-16"], w["resnet50"])
            hs = [h for h in humans if h in w.columns]
            d = np.mean([cohen_kappa_score(xs, w[h]) - cohen_kappa_score(ys, w[h]) for h in hs])
            per_exp.setdefault(exp, []).append(d)
        ref.append(np.mean([np.mean(v) for v in per_exp.values()]))
    assert stats.ks_2samp(null, ref).pvalue > 0.001
    lb = tw.leaderboard(small, n_resamples=50, rng=0)
    assert obs == pytest.approx(lb.scores[lb.observers.index("clip-16")] - lb.scores[lb.observers.index("resnet50")])


def _simulated_benchmark(rng, n_models=4, n_humans=4, conditions=(("e1", "c1"), ("e1", "c2"), ("e2", "c1")), n=100):
    """Humans and exchangeable models: each model copies a shared latent difficulty the same way."""
    rows = []
    for e, c in conditions:
        hard = rng.random(n) < 0.35
        truth_ok = lambda p_copy: np.where(rng.random(n) < p_copy, ~hard, rng.random(n) < 0.65)  # noqa: E731
        for h in range(n_humans):
            rows.append(pd.DataFrame({"experiment": e, "condition": c, "subject": f"h{h}", "observer_type": "human",
                                      "image": [f"{e}{c}i{i}" for i in range(n)], "correct": truth_ok(0.5)}))
        for m in range(n_models):
            rows.append(pd.DataFrame({"experiment": e, "condition": c, "subject": f"m{m}", "observer_type": "model",
                                      "image": [f"{e}{c}i{i}" for i in range(n)], "correct": truth_ok(0.3)}))
    t = pd.concat(rows, ignore_index=True)
    t["correct"] = t["correct"].astype(int)
    return tw.read_trials(t, correct="correct")


def test_swap_test_and_holm_keep_their_level_on_exchangeable_models():
    """R = 200 simulated benchmarks, 4 exchangeable models (6 pairs), M = 199 swaps."""
    rng = np.random.default_rng(11)
    single, holm_any, bh_any = [], [], []
    for _ in range(200):
        lb = tw.leaderboard(_simulated_benchmark(rng), protocol=tw.leaderboards.Protocol("sim"), n_resamples=20,
                            rng=rng.integers(2**32))
        pw = lb.pairwise(test="swap", adjust="holm", n_resamples=199, workers=1)
        single.append(pw["pvalue"].iloc[0] <= 0.05)
        holm_any.append(pw["significant"].any())
        bh_any.append((adjust_pvalues(pw["pvalue"], "bh") < 0.05).any())
    se = np.sqrt(0.05 * 0.95 / 200)
    assert np.mean(single) <= 0.05 + 3 * se
    assert np.mean(holm_any) <= 0.05 + 3 * se  # family-wise error
    assert np.mean(bh_any) <= 0.05 + 3 * se  # all nulls true: FDR = FWER
    assert np.mean(single) >= 0.05 - 3 * se  # and it is not trivially conservative


def test_difference_test_and_pairwise_outputs(trials):
    cue = trials[trials["experiment"] == "cue-conflict"]
    proto = MVH.replace(experiments=["cue-conflict"])
    res = tw.leaderboards.difference_test(cue, "clip-16", "resnet50", reference="human", protocol=proto, n_resamples=2000, rng=0)
    direct = _pandas_protocol(cue, proto)
    assert res.statistic == pytest.approx(direct["clip-16"] - direct["resnet50"], abs=1e-12)
    assert res.confidence_interval.low < res.statistic < res.confidence_interval.high
    assert res.pvalue < 0.01 and "clip-16" in res.summary()
    assert res.to_frame().shape == (1, 15)
    lb = tw.leaderboard(cue, proto, n_resamples=500, rng=0)
    pw = lb.pairwise(which="neighbours", test="bootstrap", adjust="bh")
    assert len(pw) == len(lb.candidates) - 1
    assert list(pw["observer_a"]) == list(lb.table["observer"][1:-1])
    paper = lb.difference("clip-16", "resnet50", test="paper", n_resamples=500)
    assert 0 <= paper.pvalue <= 1
    with pytest.raises(ValueError, match="not an observer"):
        lb.difference("clip-16", "nope")
    with pytest.raises(ValueError, match="`test`"):
        lb.pairwise(test="t")


def test_by_experiment_and_entries(trials):
    lb = tw.leaderboard(_small(trials), n_resamples=200, rng=0)
    br = lb.by_experiment()
    assert set(br.table["experiment"]) == {"edge", "rotation"}
    edge = br.table[br.table["experiment"] == "edge"].set_index("observer")["score"]
    e = lb.entries()
    direct = e[e["experiment"] == "edge"].groupby("observer")["value"].mean()
    np.testing.assert_allclose(edge[direct.index], direct, atol=1e-12)
    assert br.rank_correlation.shape == (2, 2)
    np.testing.assert_allclose(np.c_[e["c_obs"]], np.c_[e["c_exp"] + e["value"] * (1 - e["c_exp"])], atol=1e-12)


# --------------------------------------------------------------------------- loaders


def _write_raw(folder, trials, experiments):
    """The benchmark's raw-data layout: one CSV per observer and experiment, human names prefixed."""
    for e in experiments:
        d = folder / e
        d.mkdir(parents=True)
        for s, g in trials[trials["experiment"] == e].groupby("subject"):
            human = g["observer_type"].iloc[0] == "human"
            code = "s" + s[-2:] if human else "dnn"
            names = [f"{k + 1:04d}_x_{code}_{c}_{t}_0_{i}.png" for k, (c, t, i) in
                     enumerate(zip(g["condition"], g["category"], g["image"]))]
            cond = g["condition"] if (human or g["condition"].nunique() > 1) else np.nan
            pd.DataFrame({"subj": s, "Session": 1, "trial": np.arange(1, len(g) + 1), "rt": np.nan,
                          "object_response": g["response"], "category": g["category"], "condition": cond,
                          "imagename": names}).to_csv(d / f"{e}_{s}_session_1.csv", index=False)


def test_read_model_vs_human_folder_equals_bundled_data(tmp_path):
    raw = tw.datasets.model_vs_human()
    raw = raw[raw["experiment"].isin(["edge", "uniform-noise"])]
    _write_raw(tmp_path, raw, ["edge", "uniform-noise"])
    got = tw.io.read_model_vs_human(tmp_path)
    want = tw.read_trials(raw)
    key = ["experiment", "subject", "image"]
    a = got.sort_values(key).reset_index(drop=True)
    b = want.sort_values(key).reset_index(drop=True)
    for col in ("experiment", "condition", "subject", "observer_type", "image", "truth", "response", "correct"):
        assert a[col].tolist() == b[col].tolist(), col
    la = tw.leaderboard(got, n_resamples=100, rng=0)
    lb_ = tw.leaderboard(want, n_resamples=100, rng=0)
    pd.testing.assert_frame_equal(la.table, lb_.table)


def test_image_id_rules():
    ids = tw.io.image_id(["0001_nse_s01_0.03_elephant_10_n02504458_7209.png",
                       "0001_nse_dnn_0.03_elephant_10_n02504458_7209.png", "oven10.png",
                       "0012_sk_s03_0_boat_0_boat-0068-sketch-23.png"])
    assert ids.tolist() == ["n02504458_7209", "n02504458_7209", "oven10", "boat-0068-sketch-23"]


def test_missing_trials_are_handled_per_pair():
    """texture-filled-rotated: each human saw a different 160 of 1280 images."""
    t = tw.read_trials(tw.datasets.texture_vs_shape("texture-filled-rotated"))
    t = t[(t["observer_type"] == "human") | (t["subject"] == "resnet50")]
    with pytest.warns(tw.TrialwiseWarning, match="lack some of the condition's images"):
        lb = tw.leaderboard(t, tw.leaderboards.Protocol("tfr", min_items=1), n_resamples=50, rng=0)
    e = lb.entries()
    res = e[e["observer"] == "resnet50"]
    assert set(res["n"]) <= set(range(1, 40)) and res["n"].sum() == 32 * 160
    k = res.iloc[0]
    w = t[(t["condition"] == k.condition)].pivot(index="image", columns="subject", values="correct").dropna(
        subset=[k.reference])
    assert len(w) == k.n
    assert k.value == pytest.approx(cohen_kappa_score(w["resnet50"].astype(bool), w[k.reference].astype(bool)),
                                    abs=1e-12)


# --------------------------------------------------------------------------- bad input


def test_bad_input_messages(trials, tmp_path):
    frame = tw.datasets.model_vs_human("edge")
    with pytest.raises(ValueError, match="no column 'stimulus'; columns found: source, experiment"):
        tw.read_trials(frame, image="stimulus")
    dup = pd.concat([frame, frame.iloc[[5]]])
    with pytest.raises(ValueError, match="answered image .* more than once"):
        tw.read_trials(dup)
    bad_truth = frame.copy()
    bad_truth.loc[bad_truth.index[0], "category"] = "zebra"
    with pytest.raises(ValueError, match="more than one correct answer"):
        tw.read_trials(bad_truth)
    with pytest.raises(ValueError, match=r"names condition\(s\) \['c999'\]"):
        tw.leaderboard(trials, MVH.replace(exclude={"contrast": ["c999"]}), n_resamples=10)
    with pytest.raises(ValueError, match="experiment"):
        tw.leaderboard(trials, MVH.replace(experiments=["nope"]), n_resamples=10)
    models = trials[trials["observer_type"] == "model"]
    with pytest.raises(ValueError, match="no reference observers"):
        tw.leaderboard(models, n_resamples=10)
    e = trials[trials["experiment"] == "edge"].copy()
    e.loc[e["subject"] == "resnet50", "image"] += "-other"
    with pytest.raises(ValueError, match="shares no image with any reference"):
        tw.leaderboard(e, n_resamples=10)
    p = tmp_path / "bad.csv"
    p.write_text("subject,image,truth,response\na,i1,cat,cat\na,i2,cat,dog,extra\n")
    with pytest.raises(ValueError, match=r"bad.csv: not a readable table .*line 3"):
        tw.read_trials(p)
    with pytest.raises(ValueError, match="aggregation"):
        tw.leaderboards.Protocol("x", aggregation=("experiment", "condition", "reference"))
    with pytest.raises(ValueError, match="protocol"):
        tw.leaderboard(trials, "mvh", n_resamples=10)
    with pytest.raises(ValueError, match="no .csv files"):
        tw.io.read_model_vs_human(_empty(tmp_path))


def _empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    return d


# --------------------------------------------------------------------------- structure (issue 15)


def test_leaderboard_is_built_from_its_bootstrap(trials):
    from trialwise.leaderboards.hierarchy import build_design
    from trialwise.leaderboards.replicates import bootstrap_scores

    cue = MVH.replace(experiments=["cue-conflict", "edge"])
    t = trials[trials.experiment.isin(cue.experiments)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        lb = tw.leaderboard(t, cue, n_resamples=50, rng=4)
        design = build_design(t, cue)
    boot = bootstrap_scores(design, 50, rng=4, standard_errors=True)
    again = tw.leaderboards.Leaderboard.from_bootstrap(design, boot, confidence_level=0.95, ci_method="studentized")
    pd.testing.assert_frame_equal(again.table, lb.table)
    np.testing.assert_array_equal(again.replicates, lb.replicates)
    assert again.notes == lb.notes and isinstance(lb.notes, tuple)
    assert again.difference("clip-16", "resnet50").pvalue == lb.difference("clip-16", "resnet50").pvalue
    with pytest.raises(dataclasses.FrozenInstanceError):
        lb.notes = ()


def test_notes_are_structured(trials):
    from trialwise.leaderboards.notes import TEXT, StructuredNote

    lb = tw.leaderboard(trials[trials.experiment.isin(["cue-conflict", "edge"])], n_resamples=10, rng=0)
    kinds = [n.kind for n in lb.notes]
    assert kinds == ["experiments-not-in-trials", "candidates-not-scored"]
    missing = lb.notes[0]
    assert missing.values["n_experiments"] == 17 and len(missing.values["missing"]) == 15
    assert str(missing) == TEXT[missing.kind](**missing.values)  # the text is made in one place
    assert json.loads(json.dumps(missing.to_dict()))["kind"] == "experiments-not-in-trials"
    assert pickle.loads(pickle.dumps(missing)).values == missing.values
    with pytest.raises(ValueError, match="unknown note kind"):
        StructuredNote("no-such-kind")


def test_kendall_tau_speaks_the_result_vocabulary(trials):
    lb = tw.leaderboard(trials[trials.experiment == "cue-conflict"], MVH.replace(experiments=["cue-conflict"]),
                        n_resamples=30, rng=1)
    tau = lb.kendall_tau
    assert float(tau) == tau.statistic and tau.n_resamples == 30
    for result in (lb, tau, lb.by_experiment(), lb.difference("clip-16", "resnet50")):
        assert "\n" not in repr(result) and isinstance(result.summary(), str)
        assert list(result.to_frame().columns) == list(result.frame_columns)
        json.dumps(result.to_dict(), allow_nan=False)


def test_unique_rows_of_the_influence_equal_numpy_unique():
    """The IJ's distinct item patterns (lexsort of the columns) are numpy's ``unique(axis=0)``:
    the same rows, in the same order (which fixes the order of the influences' sums)."""
    from trialwise.leaderboards.influence import _unique_rows

    gen = np.random.default_rng(3)
    for dtype, low, high, shape in ((np.uint8, 0, 2, (300, 12)), (np.int64, -2, 3, (200, 5)),
                                    (np.int32, 0, 4, (50, 1)), (np.uint8, 0, 2, (1, 4))):
        a = gen.integers(low, high, size=shape).astype(dtype)
        uniq, inverse = np.unique(a, axis=0, return_inverse=True)
        mine, mine_inverse = _unique_rows(a)
        assert mine.dtype == uniq.dtype
        np.testing.assert_array_equal(mine, uniq)
        np.testing.assert_array_equal(mine_inverse, inverse.reshape(-1))


def _mixed_design(trials, clusters=False):
    """Edge and rotation, three models and the humans; some humans' trials dropped (missing data),
    and optionally clusters of four images."""
    small = _small(trials)
    gen = np.random.default_rng(8)
    human = (small["observer_type"] == "human").to_numpy()
    small = small[~(human & (gen.random(len(small)) < 0.1))]
    kw = {}
    if clusters:
        codes = pd.factorize(small["image"])[0]
        kw["clusters"] = (codes // 4).astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return build_design(small, MVH.replace(experiments=["edge", "rotation"]), **kw)


@pytest.mark.parametrize("clusters", [False, True])
def test_bootstrap_bits_do_not_depend_on_its_slices(trials, monkeypatch, clusters):
    """The bootstrap's metric, gradient and influences run on cache-sized slices of replicates and
    its weights come in cache-sized chunks: one replicate per slice and per chunk gives the
    same bits as the default, for the replicates and the IJ standard errors alike."""
    from trialwise._stats import resampling
    from trialwise.leaderboards import bootstrap as hierarchy

    design = _mixed_design(trials, clusters)
    assert not all(u.seen.all() for u in design.units)  # missing data: every pair has its n column
    ij = hierarchy.bootstrap_entries_ij(design, 60, rng=4, workers=1)
    plain = hierarchy.bootstrap_entries(design, 60, rng=4, workers=2)
    monkeypatch.setattr(hierarchy, "_SLICE_BYTES", 1)
    monkeypatch.setattr(resampling, "_COUNT_DRAWS", 1)  # the weights counted one replicate at a time
    ij1 = hierarchy.bootstrap_entries_ij(design, 60, rng=4, workers=1)
    np.testing.assert_array_equal(ij.entries, plain)
    np.testing.assert_array_equal(ij.entries, ij1.entries)
    np.testing.assert_array_equal(ij.standard_errors, ij1.standard_errors)
    np.testing.assert_array_equal(ij.replicate_standard_errors, ij1.replicate_standard_errors)


def test_influence_prefix_gives_the_same_bits_as_every_pattern_summing_it(trials):
    """The terms every pattern of a row begins with (the n of each entry) are summed once per row:
    the influences' variance is the same bits as with the whole patterns, on data and replicates."""
    from scipy import sparse

    from trialwise.leaderboards.hierarchy import entry_weights
    from trialwise.leaderboards.influence import UnitInfluence
    from trialwise.leaderboards.protocol import metric_from_sums
    from trialwise._stats.tables import pair_columns

    for design in (_mixed_design(trials), build_design(_small(trials), MVH.replace(experiments=["edge", "rotation"]))):
        weight = entry_weights(design.values(), design)
        gen = np.random.default_rng(2)
        for unit in design.units:
            inf = UnitInfluence.of(unit.right, unit.seen, unit.pairs, design.entry_row[unit.entries],
                                   weight[unit.entries])
            heads = inf.prefix.shape[0]
            assert inf.patterns.shape[1] == heads + 4 * len(unit.entries)
            assert inf.prefix.nnz > 0 or not unit.seen.all()  # no missing item: every pattern begins with the n's
            # the whole patterns: each row's head column replaced by the terms it stands for, in order
            whole = sparse.csr_matrix(inf.patterns[:, :heads] @ inf.prefix + inf.patterns[:, heads:])
            whole.sort_indices()
            plain = UnitInfluence(inf.rows, inf.offsets, whole, inf.members, inf.weight)
            cols, to_sums = pair_columns(unit.right, unit.seen, unit.pairs)
            w = np.stack([np.bincount(gen.integers(0, len(cols), len(cols)), minlength=len(cols)) for _ in range(7)])
            sums = to_sums((w @ cols).astype(float))
            values = metric_from_sums(design.protocol.metric, *sums)
            for weights in (None, w):
                np.testing.assert_array_equal(inf.variance(design.protocol.metric, sums, values, weights),
                                              plain.variance(design.protocol.metric, sums, values, weights))


def test_kappa_and_its_gradient_from_the_same_products():
    """kappa_gradient_sums(with_kappa=True): κ is kappa_from_cells' bits on integer sums, the
    gradient the closed forms' bits (computed here as written in the docstring)."""
    from trialwise._stats.kappa import kappa_from_cells, kappa_from_sums
    from trialwise._stats.kappa_derivatives import kappa_gradient_sums

    gen = np.random.default_rng(0)
    n = gen.integers(0, 300, size=(40, 50)).astype(float)
    n[0, :3] = 0.0
    ca, cb = np.floor(gen.random(n.shape) * (n + 1)), np.floor(gen.random(n.shape) * (n + 1))
    n11 = np.maximum(ca + cb - n, 0) + np.floor(gen.random(n.shape) * (np.minimum(ca, cb) - np.maximum(ca + cb - n, 0) + 1))
    ca[1, :4] = n[1, :4]  # an observer always right: κ = 0 or undefined
    cb[1, :2] = n[1, :2]
    n11[1, :4] = cb[1, :4]  # the table of an observer always right
    kappa, g = kappa_gradient_sums(n, n11, ca, cb, with_kappa=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        cells = kappa_from_cells(n11, ca - n11, cb - n11, n - ca - cb + n11)
        num = 2.0 * (n * n11 - ca * cb)
        den = n * (ca + cb) - 2.0 * ca * cb
        inv2 = 1.0 / (den * den)
        closed = [(2.0 * n11 * den - num * (ca + cb)) * inv2, 2.0 * n / den,
                  (-2.0 * cb * den - num * (n - 2.0 * cb)) * inv2, (-2.0 * ca * den - num * (n - 2.0 * ca)) * inv2]
    assert np.isnan(cells).any()
    np.testing.assert_array_equal(kappa, cells)
    np.testing.assert_array_equal(kappa, kappa_from_sums(n, n11, ca, cb))
    np.testing.assert_array_equal(g, np.stack(closed))
    np.testing.assert_array_equal(g, kappa_gradient_sums(n, n11, ca, cb))


def test_aggregate_each_is_each_aggregate(trials):
    """aggregate_each shares the levels the averages have in common; the numbers are those of
    separate aggregate calls (NaN entries included), against a pandas oracle too."""
    from trialwise.leaderboards.hierarchy import aggregate, aggregate_each
    from trialwise.leaderboards.bootstrap import bootstrap_entries

    design = _mixed_design(trials)
    entries = bootstrap_entries(design, 40, rng=1)
    entries[:, ::7] = np.nan
    keeps = ((), ("experiment",), ("condition", "experiment"))
    for (v, key), keep in zip(aggregate_each(entries, design, keeps), keeps):
        w, key2 = aggregate(entries, design, keep=keep)
        np.testing.assert_array_equal(v, w)
        assert all(np.array_equal(key[k], key2[k]) for k in key2)
    frame = pd.DataFrame({"row": design.entry_row, "ref": design.entry_reference, "cond": design.entry_unit,
                          "exp": design.entry_experiment, "v": entries[5].astype(float)})
    oracle = (frame.groupby(["row", "cond", "exp"])["v"].mean().groupby(["row", "exp"]).mean()
              .groupby("row").mean())
    v, key = aggregate_each(entries, design, ((),))[0]
    np.testing.assert_allclose(v[5], oracle.loc[key["row"]].to_numpy(), rtol=1e-6)


@pytest.mark.parametrize("clusters", [False, True])
def test_units_average_over_references_bit_for_bit(trials, monkeypatch, clusters):
    """Each unit averages its replicates over the references itself (``by_reference``, issue 33):
    the bits that aggregate gives from the B × entries array (float32), with the IJ standard
    errors or without, whatever the slices; against a pandas oracle too. A protocol that averages
    over conditions first has no such level: an error naming it."""
    from trialwise.leaderboards import bootstrap
    from trialwise.leaderboards.hierarchy import aggregate_each, group_mean, reference_level
    from trialwise.leaderboards.protocol import Protocol

    design = _mixed_design(trials, clusters)
    membership, key = reference_level(design)
    entries = bootstrap.bootstrap_entries(design, 60, rng=4)
    means = bootstrap.bootstrap_entries(design, 60, rng=4, by_reference=True)
    np.testing.assert_array_equal(means, group_mean(entries, membership))
    ij = bootstrap.bootstrap_entries_ij(design, 60, rng=4, workers=1)
    ij_means = bootstrap.bootstrap_entries_ij(design, 60, rng=4, workers=2, by_reference=True)
    np.testing.assert_array_equal(ij_means.entries, means)
    np.testing.assert_array_equal(ij_means.replicate_standard_errors, ij.replicate_standard_errors)
    monkeypatch.setattr(bootstrap, "_SLICE_BYTES", 1)  # one replicate per slice
    np.testing.assert_array_equal(bootstrap.bootstrap_entries(design, 60, rng=4, by_reference=True), means)
    keeps = ((), ("experiment",))
    for (v, k), (w, k2) in zip(aggregate_each(means, design, keeps, from_reference=True),
                               aggregate_each(entries, design, keeps)):
        np.testing.assert_array_equal(v, w)
        assert all(np.array_equal(k[name], k2[name]) for name in k2)
    frame = pd.DataFrame({"row": design.entry_row, "cond": design.entry_unit, "exp": design.entry_experiment,
                          "v": entries[7].astype(float)})
    oracle = frame.groupby(["row", "cond", "exp"])["v"].mean()
    np.testing.assert_allclose(means[7], oracle.loc[list(zip(key["row"], key["condition"], key["experiment"]))],
                               rtol=1e-12)
    other = dataclasses.replace(design, protocol=Protocol("conditions first",
                                                          aggregation=("condition", "reference", "experiment")))
    assert reference_level(other) is None
    with pytest.raises(tw.InvalidValueError, match="aggregation"):
        bootstrap.bootstrap_entries(other, 10, rng=0, by_reference=True)
    with pytest.raises(tw.InvalidValueError, match="from_reference"):
        aggregate_each(means, other, keeps, from_reference=True)


def test_metric_from_exact_sums_is_metric_from_sums_bit_for_bit():
    """The one kernel for exact sums (bootstrap and swap): the same bits as from the tables' cells,
    for every metric, including the undefined (0/0) tables."""
    from trialwise.leaderboards.protocol import METRICS, metric_from_exact_sums, metric_from_sums

    gen = np.random.default_rng(3)
    n = gen.integers(0, 60, (200, 7)).astype(float)
    ca, cb = np.floor(gen.random(n.shape) * (n + 1)), np.floor(gen.random(n.shape) * (n + 1))
    n11 = np.maximum(0, ca + cb - n) + np.floor(gen.random(n.shape) * (np.minimum(ca, cb) - np.maximum(0, ca + cb - n) + 1))
    ca[0], cb[0], n11[0] = n[0], n[0], n[0]  # both always right: κ undefined
    for metric in METRICS:
        np.testing.assert_array_equal(metric_from_exact_sums(metric, n, n11, ca, cb),
                                      metric_from_sums(metric, n, n11, ca, cb))


# --------------------------------------------------------------------------- your own trials (issue 29)

def _own_trials(seed: int = 0) -> pd.DataFrame:
    """A new user's tidy table: own column names, no experiment column, 3 conditions × 40 images."""
    rng = np.random.default_rng(seed)
    rows = []
    for cond in ("clean", "blur", "noise"):
        for i in range(40):
            truth, hard = ("cat", "dog", "car")[i % 3], rng.random()
            for who, kind, skill in (("anna", "human", 0.9), ("ben", "human", 0.8), ("chloe", "human", 0.85),
                                     ("net-a", "model", 0.9), ("net-b", "model", 0.75)):
                right = rng.random() < skill - 0.5 * hard
                rows.append((round(rng.uniform(0.3, 2), 2), truth if right else "other", who, cond,
                             f"{cond}-{i}.png", truth, kind))
    return pd.DataFrame(rows, columns=["rt", "response", "participant", "condition", "stim", "truth",
                                       "observer_type"])


def _own(seed: int = 0) -> pd.DataFrame:
    return tw.read_trials(_own_trials(seed), subject="participant", image="stim")


def test_own_trials_without_a_protocol_are_scored_by_one_built_from_them_and_titled_by_them():
    t = _own()
    lb = tw.leaderboard(t, n_resamples=100, rng=0)
    assert lb.protocol.name == "your trials" and lb.protocol.from_trials == "model-vs-human"
    assert lb.protocol.experiments is None and dict(lb.protocol.exclude) == {}
    assert [n.kind for n in lb.notes] == ["protocol-from-trials"]
    assert lb.notes[0].values == {"stand_in": "model-vs-human", "n_experiments": 1, "n_conditions": 3,
                                  "averaging": "mean over references → mean over conditions → mean over experiments"}
    assert repr(lb).startswith("Leaderboard('your trials',") and lb.summary().startswith("Leaderboard — your trials:")
    # the numbers are model-vs-human's averaging of every condition: only the title differs
    same = tw.leaderboard(t, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["all"]), n_resamples=100, rng=0)
    np.testing.assert_array_equal(lb.scores, same.scores)
    np.testing.assert_array_equal(lb.replicates, same.replicates)
    pd.testing.assert_frame_equal(lb.table, same.table)
    assert tw.leaderboard(t, name="my study", n_resamples=20, rng=0).protocol.name == "my study"
    # a protocol used as it is is retitled by name= too (not silently ignored)
    titled = tw.leaderboard(t, tw.leaderboards.Protocol("x"), name="my study", n_resamples=100, rng=0)
    assert titled.protocol.name == "my study" and titled.protocol.from_trials is None
    np.testing.assert_array_equal(titled.scores, lb.scores)
    # a path: titled by the file's name, as on the command line
    assert tw.leaderboard(tw.datasets.model_vs_human_sample(), n_resamples=5, rng=0).protocol.name == "model-vs-human"


def test_a_leaderboard_of_a_file_is_titled_by_its_name(tmp_path):
    path = tmp_path / "pilot 2.csv"
    _own().to_csv(path, index=False)
    lb = tw.leaderboard(str(path), n_resamples=20, rng=0)
    assert lb.protocol.name == "pilot 2.csv" and lb.protocol.from_trials == "model-vs-human"
    assert tw.leaderboard(path, name="mine", n_resamples=20, rng=0).protocol.name == "mine"


def test_difference_test_takes_the_same_default():
    t = _own()
    res = tw.leaderboards.difference_test(t, "net-a", "net-b", n_resamples=100, rng=0)
    assert res.protocol == "your trials" and np.isfinite(res.statistic)


def test_flat_and_all_conditions_work_on_own_trials_with_their_averaging():
    t = _own()
    for protocol in ("flat", tw.leaderboards.FLAT, "all-conditions", tw.leaderboards.PROTOCOLS["all-conditions"]):
        lb = tw.leaderboard(t, protocol, n_resamples=50, rng=0)
        name = protocol if isinstance(protocol, str) else protocol.name
        assert lb.protocol.name == f"your trials ({name})" and lb.protocol.from_trials == name
        want = tw.leaderboard(t, tw.leaderboards.Protocol("x", aggregation=tw.leaderboards.PROTOCOLS[name].aggregation), n_resamples=50, rng=0)
        np.testing.assert_array_equal(lb.scores, want.scores)
        assert [n.kind for n in lb.notes] == ["protocol-from-trials"] and f"protocol {name!r}" in lb.notes[0]
    # a protocol the user built (not one of the averaging orders) is used as it is
    with pytest.raises(tw.InvalidValueError, match=r"protocol 'flat, mine'.*leave out `protocol`"):
        tw.leaderboard(t, tw.leaderboards.FLAT.replace(name="flat, mine"), n_resamples=5)


def test_trials_holding_model_vs_human_experiments_keep_model_vs_human_by_default():
    from trialwise.leaderboards.protocol import protocol_for_trials

    assert protocol_for_trials(None, ["colour", "edge"]) is tw.leaderboards.MODEL_VS_HUMAN
    mixed = protocol_for_trials(None, ["colour", "mine"], name="f.csv")  # one's own beside model-vs-human's:
    assert (mixed.name, mixed.from_trials, mixed.experiments) == ("f.csv", "model-vs-human", None)  # none left out
    assert protocol_for_trials(tw.leaderboards.FLAT.replace(min_items=10), ["mine"]).name == "your trials (flat)"  # by name
    assert protocol_for_trials("flat", ["edge"]) is tw.leaderboards.FLAT
    assert protocol_for_trials("texture-vs-shape", ["all"]) is tw.leaderboards.TEXTURE_VS_SHAPE  # named: used as it is
    assert protocol_for_trials(None, ["all"], experiments=["edge"]).experiments == ("edge",)
    assert protocol_for_trials(None, ["all"], experiments=["edge"]).name == "model-vs-human"
    own = protocol_for_trials(None, ["all", "edge"], experiments=["all"], name="f.csv")
    assert (own.name, own.experiments, own.from_trials) == ("f.csv", ("all",), "model-vs-human")
    assert tw.leaderboards.MODEL_VS_HUMAN.from_trials is None and all(p.from_trials is None for p in tw.leaderboards.PROTOCOLS.values())


def test_own_experiments_beside_model_vs_human_ones_are_all_scored_and_the_note_says_so():
    """Review of issue 29: an experiment of one's own beside one named like model-vs-human's
    ('colour') was left out without a word (model-vs-human scored only 'colour')."""
    t = _own().assign(experiment=lambda f: np.where(f.condition == "clean", "colour", "mine"))
    lb = tw.leaderboard(t, n_resamples=50, rng=0)
    assert lb.protocol.from_trials == "model-vs-human" and lb.protocol.experiments is None
    assert sorted(lb.by_experiment().table.experiment.unique()) == ["colour", "mine"]
    note = lb.notes[0]
    assert note.kind == "protocol-from-trials" and note.values["own"] == ["mine"] and note.values["known"] == ["colour"]
    assert "model-vs-human does not have (mine)" in note and "--protocol model-vs-human" in note


def _docs_section(title: str) -> str:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "benchmark.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    return text[start:text.index("\n## ", start + 1)]


def test_the_docs_own_data_command_runs_as_written_and_titles_everything_by_the_file(tmp_path, capsys):
    """docs/benchmark.md, "Your own data": its first code block writes the CSV, its bash block is the command."""
    import doctest
    import shlex
    from pathlib import Path

    from trialwise.cli import main

    section = _docs_section("Your own data")
    blocks = section.split("```")
    namespace: dict = {}
    for example in doctest.DocTestParser().get_examples(blocks[1]):
        exec(compile(example.source, "docs", "exec"), namespace)
    (command,) = [line for line in blocks[3].splitlines() if line.startswith("trialwise ")]
    argv = shlex.split(command)[1:]
    src = Path(namespace["path"])
    assert argv[1] == src.name == "my trials.csv"
    argv[1] = str(src)
    out_csv, report = tmp_path / "board.csv", tmp_path / "board.html"
    assert main(argv + ["--csv", str(out_csv), "--out", str(report)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Leaderboard — my trials.csv: error-consistency")
    assert out.count("scored by a protocol built from the trials") == 1 and "model-vs-human:" not in out
    table = pd.read_csv(out_csv)
    assert (table["protocol"] == "my trials.csv").all() and table["score"].notna().all()
    assert set(table["observer"]) == {"human–human", "net-a", "net-b", "net-c"}
    page = report.read_text(encoding="utf-8")
    assert "<title>trialwise leaderboard — my trials.csv</title>" in page


@pytest.mark.parametrize("flags, title", [(["--experiments", "all"], "t.csv"), (["--protocol", "flat"], "t.csv (flat)"),
                                          (["--protocol", "all-conditions"], "t.csv (all-conditions)")])
def test_the_command_line_titles_own_trials_by_the_file_whatever_the_scope(tmp_path, capsys, flags, title):
    from trialwise.cli import main

    path = tmp_path / "t.csv"
    _own_trials().to_csv(path, index=False)
    code = main(["leaderboard", str(path), "--subject-column", "participant", "--image-column", "stim",
                 "--resamples", "50", "--seed", "0", "--tests", "none", "-q", *flags])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith(f"Leaderboard — {title}: error-consistency")
    assert out.count("Note: ") == 1 and "model-vs-human:" not in out


def test_observer_types_in_another_letter_case_are_the_human_and_model_types():
    """A new user's file says 'Human'/'Model' (as its headers say 'Participant ID'): the leaderboard
    failed with "no observer has observer_type 'human' (types found: ['Human', 'Model'])"."""
    raw = _own_trials().assign(observer_type=lambda f: f.observer_type.map({"human": " Human", "model": "MODEL"}))
    t = tw.read_trials(raw, subject="participant", image="stim")
    assert sorted(t.observer_type.unique()) == ["human", "model"]
    lb = tw.leaderboard(t, n_resamples=50, rng=0)
    np.testing.assert_array_equal(lb.scores, tw.leaderboard(_own(), n_resamples=50, rng=0).scores)
    other = tw.read_trials(raw.assign(observer_type="Robot"), subject="participant", image="stim")
    assert set(other.observer_type) == {"Robot"}  # any other type as written
