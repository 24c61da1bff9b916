"""Brain-Score (SPEC §6.3): ceiling transform, synthetic-trial CIs (App. I), behavioural benchmark, xarray adapter."""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
import trialwise.brainscore as bs

xr = pytest.importorskip("xarray")

CUE = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
SMALL = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge", "contrast"])


@pytest.fixture(scope="module")
def trials():
    return tw.read_trials(tw.datasets.model_vs_human())


@pytest.fixture(scope="module")
def humans(trials):
    return trials[trials.observer_type == "human"]


def _kappa(a, b):
    return cohen_kappa_score(np.asarray(a, int), np.asarray(b, int))


def _brute_protocol_mean(trials, model, protocol, value):
    """Model-vs-human style mean (humans → conditions → experiments) of value(model_trials, human_trials)."""
    t = trials[trials.experiment.isin(protocol.experiments)]
    per_exp = []
    for e, te in t.groupby("experiment"):
        excluded = set(protocol.exclude.get(e, ()))
        per_cond = []
        for c, tc in te.groupby("condition"):
            if c in excluded:
                continue
            m = tc[tc.subject == model].set_index("image").correct
            hs = [g.set_index("image").correct for s, g in tc[tc.observer_type == "human"].groupby("subject")]
            per_cond.append(np.mean([value(m.loc[h.index], h) for h in hs]))
        per_exp.append(np.mean(per_cond))
    return float(np.mean(per_exp))


# --------------------------------------------------------------------------- ceiling transform


@pytest.mark.parametrize("ceiling", [0.05, 0.331, 0.8, 1.0])
def test_ceil_unceil_round_trip(ceiling):
    raw = np.linspace(0, ceiling, 41)
    np.testing.assert_allclose(bs.unceil_score(bs.ceil_score(raw[1:-1], ceiling), ceiling), raw[1:-1], rtol=1e-12)
    s = np.linspace(0.01, 0.99, 33)
    np.testing.assert_allclose(bs.ceil_score(bs.unceil_score(s, ceiling), ceiling), s, rtol=1e-12)


def test_ceil_clips_and_unceil_warns_at_the_bounds():
    assert bs.ceil_score([-0.2, 0.9], 0.4).tolist() == [0.0, 1.0]
    with pytest.warns(tw.DegenerateDataWarning, match="2 score"):
        out = bs.unceil_score([0.0, 0.5, 1.0], 0.4)
    assert out.tolist() == [0.0, 0.2, 0.4]


@pytest.mark.parametrize("call, match", [
    (lambda: bs.ceil_score(0.2, 0.0), "`ceiling` must be positive"),
    (lambda: bs.ceil_score(0.2, np.nan), "`ceiling` contains NaN"),
    (lambda: bs.unceil_score(1.2, 0.4), "`score` must lie in"),
    (lambda: bs.unceil_score(np.nan, 0.4), "`score` contains NaN"),
])
def test_ceiling_transform_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_ceilings_are_the_human_human_rows(trials, humans):
    c = bs.ceilings(humans)
    assert len(c) == 17 and round(float(c["cue-conflict"]), 3) == 0.331
    # brute force: all pairs of humans, κ per condition, mean over pairs then conditions
    te = humans[humans.experiment == "edge"]
    per_cond = []
    for _, tc in te.groupby("condition"):
        hs = {s: g.set_index("image").correct for s, g in tc.groupby("subject")}
        per_cond.append(np.mean([_kappa(hs[a], hs[b].loc[hs[a].index]) for a, b in itertools.combinations(hs, 2)]))
    assert c["edge"] == pytest.approx(np.mean(per_cond), abs=1e-12)


# --------------------------------------------------------------------------- App. I


def test_synthetic_trials_structure_and_model_accuracy(humans):
    syn = bs.synthetic_trials({"m": {"edge": 0.3}}, humans, protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge"]),
                              rng=0)
    h = syn[syn.observer_type == "human"]
    m = syn[syn.subject == "m"]
    real = humans[humans.experiment == "edge"]
    # the humans' real trials, relabelled per human; one model trial per human trial
    assert len(h) == len(real) == len(m)
    assert set(h.image) == set(real.image + "#" + real.subject) == set(m.image)
    assert h.set_index("image").correct.sort_index().equals(
        real.assign(image=real.image + "#" + real.subject).set_index("image").correct.sort_index())
    # the model's accuracy is the middle of the intersection of the humans' feasible ranges
    acc = real.groupby("subject").correct.mean().to_numpy()
    lo, hi = tw.ec.feasible_accuracy(acc, 0.3)
    target = (lo.max() + hi.min()) / 2
    assert m.correct.mean() == pytest.approx(target, abs=3 * np.sqrt(target * (1 - target) / len(m)))


@pytest.mark.parametrize("how", ["middle", "lower"])
def test_synthetic_trials_recover_kappa_on_average(humans, how):
    kappas = {"a": {"cue-conflict": 0.45, "edge": 0.25}, "b": {"cue-conflict": 0.08, "edge": 0.12}}
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    got = {(m, e): [] for m in kappas for e in kappas[m]}
    for seed in range(12):
        syn = bs.synthetic_trials(kappas, humans, protocol=proto, model_accuracy=how, rng=seed)
        for (m, e), out in got.items():
            te = syn[syn.experiment == e]
            mm = te[te.subject == m].set_index("image").correct
            for _, g in te[te.observer_type == "human"].groupby("subject"):
                g = g.set_index("image").correct
                out.append(_kappa(g, mm.loc[g.index]))
    for (m, e), vals in got.items():
        se = np.std(vals, ddof=1) / np.sqrt(len(vals))
        assert np.mean(vals) == pytest.approx(kappas[m][e], abs=4 * se + 0.004), (m, e)


def test_published_intervals_recover_kappa_and_lower_is_narrower(humans):
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    ceil = bs.ceilings(humans, proto)
    raw = {"a": {"cue-conflict": 0.3, "edge": 0.2}, "b": {"cue-conflict": 0.1, "edge": 0.05}}
    published = {m: {e: float(bs.ceil_score(k, ceil[e])) for e, k in per.items()} for m, per in raw.items()}
    scores, widths = {"a": [], "b": []}, {"middle": [], "lower": []}
    for seed in range(8):
        for how in ("middle", "lower"):
            lb = bs.published_intervals(published, humans, protocol=proto, n_resamples=200, rng=seed,
                                        model_accuracy=how)
            tab = lb.table.set_index("observer")
            widths[how].append(float((tab.ci_high - tab.ci_low).loc[["a", "b"]].mean()))
            if how == "middle":
                for m in scores:
                    scores[m].append(tab.loc[m, "score"])
                assert np.isnan(tab.iloc[0].score)
                assert [n.kind for n in lb.notes] == ["synthetic-trials"]  # nothing else is by construction
    for m, per in raw.items():
        assert np.mean(scores[m]) == pytest.approx(np.mean(list(per.values())), abs=0.01)
    assert np.mean(widths["lower"]) < np.mean(widths["middle"])  # App. I: the lower bound is the optimistic case


def test_published_intervals_raw_input_and_errors(humans):
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge"])
    lb = bs.published_intervals(pd.DataFrame({"model": ["a"], "experiment": ["edge"], "kappa": [0.2]}), humans,
                                ceiled=False, protocol=proto, n_resamples=100, rng=0)
    assert lb.table.observer.tolist() == ["human–human", "a"]
    with pytest.raises(ValueError, match="lacks column 'score'"):
        bs.published_intervals(pd.DataFrame({"model": ["a"], "experiment": ["edge"], "kappa": [0.2]}), humans,
                               protocol=proto)
    with pytest.raises(ValueError, match="no ceiling for experiment"):
        bs.published_intervals({"a": {"edge": 0.5}}, humans, ceiling={"sketch": 0.4}, protocol=proto)
    with pytest.raises(ValueError, match="experiment.*'nope'"):
        bs.synthetic_trials({"a": {"nope": 0.2}}, humans, protocol=proto)
    with pytest.raises(ValueError, match=r"in \[-1, 1\]"):
        bs.synthetic_trials({"a": {"edge": 1.5}}, humans, protocol=proto)
    with pytest.raises(ValueError, match="also human"):
        bs.synthetic_trials({"subject-01": {"edge": 0.2}}, humans, protocol=proto)
    with pytest.raises(TypeError, match="`kappa` must be"):
        bs.synthetic_trials([0.2], humans, protocol=proto)
    with pytest.raises(ValueError, match="`model_accuracy`"):
        bs.synthetic_trials({"a": {"edge": 0.2}}, humans, protocol=proto, model_accuracy="upper")


def test_synthetic_trials_negative_kappa_beyond_reach_is_clipped_with_warning():
    rng = np.random.default_rng(0)
    n = 400
    rows = []
    for s, acc in (("h1", 0.97), ("h2", 0.6)):
        for i in range(n):
            rows.append({"subject": s, "image": f"i{i}", "correct": rng.random() < acc, "observer_type": "human"})
    humans = tw.read_trials(pd.DataFrame(rows), correct="correct")
    proto = tw.leaderboards.Protocol(name="toy", aggregation=("reference", "condition"))
    with pytest.warns(tw.TrialwiseWarning) as record:
        syn = bs.synthetic_trials({"m": {"all": -0.3}}, humans, protocol=proto, rng=0)
    messages = " ".join(str(w.message) for w in record)
    assert "least attainable" in messages and "chosen per human" in messages
    a = humans.groupby("subject").correct.mean()["h1"]
    k_min = -2 * a * (1 - a) / (a**2 + (1 - a) ** 2)
    h1 = syn[(syn.subject == "h1")].set_index("image").correct
    m = syn[syn.subject == "m"].set_index("image").correct
    assert _kappa(h1, m.loc[h1.index]) == pytest.approx(k_min, abs=0.05)


# --------------------------------------------------------------------------- behavioural benchmark


def test_benchmark_error_consistency_matches_leaderboard_and_sklearn(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, SMALL, n_resamples=300, rng=1)
    res = bench(trials[trials.subject == "resnet50"])
    lb = tw.leaderboard(trials[trials.experiment.isin(SMALL.experiments)], SMALL, n_resamples=10, rng=0)
    tab = lb.table.set_index("observer")
    assert res.raw == pytest.approx(tab.loc["resnet50", "score"], abs=1e-12)
    assert bench.ceiling.statistic == pytest.approx(tab.loc["human–human", "score"], abs=1e-12)
    assert res.raw == pytest.approx(_brute_protocol_mean(trials, "resnet50", SMALL, _kappa), abs=1e-12)
    assert res.statistic == pytest.approx(min(max(res.raw / bench.ceiling.statistic, 0), 1))
    # one joint bootstrap: the ceiling replicates do not change when a model is added, and the score
    # replicates are clip(raw / ceiling) replicate by replicate
    np.testing.assert_array_equal(res.ceiling.bootstrap_distribution, bench.ceiling.bootstrap_distribution)
    np.testing.assert_allclose(res.bootstrap_distribution,
                               np.clip(res.raw_distribution / bench.ceiling.bootstrap_distribution, 0, 1))
    lo, hi = np.quantile(res.bootstrap_distribution, [0.025, 0.975])
    assert res.confidence_interval.low == pytest.approx(lo) and res.confidence_interval.high == pytest.approx(hi)
    assert res.ceiling.confidence_interval.low < bench.ceiling.statistic < res.ceiling.confidence_interval.high
    frame = bench.score_table(trials[trials.subject.isin(["resnet50", "cornet-s"])])
    assert frame.observer.tolist() == ["cornet-s", "resnet50"]
    assert frame.set_index("observer").loc["resnet50", "statistic"] == pytest.approx(res.statistic)
    # the other experiments of resnet50's trials
    assert res.notes[0].kind == "candidate-trials-unused" and "were not used" in res.notes[0]
    own = trials[trials.subject == "resnet50"]
    used = own[own.experiment.isin(SMALL.experiments)
               & ~own.apply(lambda r: r.condition in SMALL.exclude.get(r.experiment, ()), axis=1)]
    assert res.notes[0].values["n"] == len(own) - len(used)


def test_benchmark_accuracy_distance_against_brute_force(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, SMALL, metric="accuracy-distance", n_resamples=400, n_splits=20, rng=2)
    res = bench(trials[trials.subject == "cornet-s"])
    t = trials[trials.experiment.isin(SMALL.experiments)]

    def dist(s, tt):
        return 1 - abs(s - tt) / max(tt, 1 - tt)

    def protocol_mean(per_condition):
        per_exp = []
        for e, te in t.groupby("experiment"):
            vals = [per_condition(tc) for c, tc in te.groupby("condition") if c not in SMALL.exclude.get(e, ())]
            per_exp.append(np.nanmean(vals))
        return float(np.mean(per_exp))

    def raw_of(tc):
        h = tc[tc.observer_type == "human"]
        return dist(tc[tc.subject == "cornet-s"].correct.mean(), h.correct.mean())

    assert res.raw == pytest.approx(protocol_mean(raw_of), abs=1e-12)
    humans = list(bench.humans)
    per_split = []
    for s in range(bench.n_splits):
        order = {h: bench._order[i, s] for i, h in enumerate(humans)}

        def split_of(tc, order=order):
            h = tc[tc.observer_type == "human"]
            here = sorted(h.subject.unique(), key=order.get)
            first = here[: len(here) // 2]
            a, b = h[h.subject.isin(first)], h[~h.subject.isin(first)]
            return dist(a.correct.mean(), b.correct.mean())

        per_split.append(protocol_mean(split_of))
    assert bench.ceiling.statistic == pytest.approx(np.mean(per_split), abs=1e-12)
    # the raw score's bootstrap spread agrees with index resampling within conditions
    rng = np.random.default_rng(5)
    brute = []
    for _ in range(150):
        parts = []
        for _, tc in t.groupby(["experiment", "condition"]):
            pick = pd.Series(rng.choice(tc.image.unique(), tc.image.nunique()), name="image")
            parts.append(pick.to_frame().merge(tc, on="image"))
        t_b = pd.concat(parts)
        per_exp = []
        for e, te in t_b.groupby("experiment"):
            per_exp.append(np.mean([raw_of(tc) for c, tc in te.groupby("condition")
                                    if c not in SMALL.exclude.get(e, ())]))
        brute.append(np.mean(per_exp))
    assert np.std(res.raw_distribution) == pytest.approx(np.std(brute), rel=0.25)


def test_benchmark_accuracy_has_ceiling_one(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, SMALL, metric="accuracy", n_resamples=200, rng=0)
    res = bench(trials[trials.subject == "cornet-s"])
    assert bench.ceiling.statistic == 1.0 and res.statistic == res.raw
    acc = _brute_protocol_mean(trials, "cornet-s", SMALL, lambda m, h: m.mean())
    assert res.raw == pytest.approx(acc, abs=1e-12)
    assert res.confidence_interval.low < res.raw < res.confidence_interval.high


def test_benchmark_bad_input(trials, humans):
    bench = tw.brainscore.BehavioralBenchmark(trials, CUE, n_resamples=50, rng=0)
    model = trials[(trials.subject == "resnet50") & (trials.experiment == "cue-conflict")]
    with pytest.raises(ValueError, match="lacks 10 and has 0"):
        bench(model.iloc[10:])
    with pytest.raises(ValueError, match="are humans of the benchmark"):
        bench(humans[humans.subject == "subject-01"])
    with pytest.raises(ValueError, match="score one at a time"):
        bench(trials[trials.subject.isin(["resnet50", "cornet-s"])])
    with pytest.raises(ValueError, match="`metric`"):
        tw.brainscore.BehavioralBenchmark(trials, CUE, metric="i3n")
    one = humans[humans.subject == "subject-01"]
    with pytest.raises(ValueError, match="at least two humans"):
        tw.brainscore.BehavioralBenchmark(one, CUE, metric="accuracy-distance")
    with pytest.raises(ValueError, match="no reference observers"):
        tw.brainscore.BehavioralBenchmark(model, CUE)


# --------------------------------------------------------------------------- xarray adapter


def _assembly(frame, subject=True, condition=True, name=None):
    coords = {"stimulus_id": ("presentation", frame.image.to_numpy()),
              "truth": ("presentation", frame.truth.to_numpy())}
    if condition:
        coords["condition"] = ("presentation", frame.condition.to_numpy())
    if subject:
        coords["subject"] = ("presentation", frame.subject.to_numpy())
    return xr.DataArray(frame.response.to_numpy(), dims=["presentation"], coords=coords, name=name)


def test_xarray_adapter_equals_dataframe_path(trials):
    t = trials[trials.experiment == "edge"]
    target = _assembly(t[t.observer_type == "human"])
    source = _assembly(t[t.subject == "resnet50"], subject=False, name="resnet50")
    metric = bs.ErrorConsistency(n_resamples=300, rng=3)
    score = metric(source, target)
    assert isinstance(score, xr.DataArray) and score.ndim == 0
    # DataFrame path with the same seed and protocol
    df_bench = tw.brainscore.BehavioralBenchmark(t[t.observer_type == "human"], tw.leaderboards.Protocol(name="assembly"),
                                      n_resamples=300, rng=metric._entropy)
    res = df_bench(t[t.subject == "resnet50"])
    assert float(score) == pytest.approx(res.raw, abs=1e-12)
    assert score.attrs["ci_low"] == pytest.approx(res.raw_interval.low)
    assert score.attrs["ci_high"] == pytest.approx(res.raw_interval.high)
    # Brain-Score's own formula, written with xarray: κ per subject and condition, mean over conditions, subjects
    per = []
    for subj in np.unique(target.subject.values):
        for cond in np.unique(target.condition.values):
            tg = target.where((target.subject == subj) & (target.condition == cond), drop=True).sortby("stimulus_id")
            sr = source.where(source.condition == cond, drop=True).sortby("stimulus_id")
            ct, cs = tg.values == tg.truth.values, sr.values == sr.truth.values
            a_t, a_s = ct.mean(), cs.mean()
            exp = a_s * a_t + (1 - a_s) * (1 - a_t)
            per.append(((ct == cs).mean() - exp) / (1 - exp))
    assert float(score) == pytest.approx(np.mean(per), abs=1e-12)
    ceiling = metric.ceiling(target)
    assert float(ceiling) == pytest.approx(df_bench.ceiling.statistic, abs=1e-12)
    assert float(ceiling) == pytest.approx(float(bs.ceilings(t, tw.leaderboards.Protocol(name="x"))["edge"]), abs=1e-12)
    # a model assembly without condition coordinates takes them from the benchmark's stimuli
    bare = _assembly(t[t.subject == "resnet50"], subject=False, condition=False, name="resnet50")
    assert float(metric(bare, target)) == pytest.approx(float(score), abs=1e-12)
    # and a benchmark built from the assembly scores an assembly
    bench = tw.brainscore.BehavioralBenchmark.from_assembly(target, n_resamples=100, rng=0)
    assert bench(bare).raw == pytest.approx(res.raw, abs=1e-12)


def _brainscore_test_assembly():
    """The assembly of Brain-Score's own test of its metric (brainscore_vision/metrics/error_consistency/test.py):
    3 subjects × 3 conditions × 3 images; Brain-Score scores subject A against A, B and C as 0.2."""
    labels = ["dog", "cat", "chair", "cat", "dog", "dog", "dog", "dog", "chair",  # subject A
              "cat", "cat", "chair", "cat", "dog", "cat", "chair", "cat", "cat",  # subject B
              "dog", "cat", "chair", "dog", "cat", "chair", "dog", "cat", "chair"]  # subject C
    return xr.DataArray(labels, dims=["presentation"], coords={
        "stimulus_id": ("presentation", np.resize(np.arange(9), 27)),
        "truth": ("presentation", np.resize(["dog", "cat", "chair"], 27)),
        "condition": ("presentation", np.resize([1, 1, 1, 2, 2, 2, 3, 3, 3], 27)),
        "subject": ("presentation", ["A"] * 9 + ["B"] * 9 + ["C"] * 9)})


def _brainscore_ec(source, target, pairs):
    """Brain-Score's ErrorConsistency (__call__ / ceiling + aggregate), re-written: κ per pair and condition
    (undefined where the expected agreement is 1, skipped like xarray's mean), mean over conditions, then pairs."""
    def kappa(x, y):
        cx, cy = x.values == x.truth.values, y.values == y.truth.values
        ce = cx.mean() * cy.mean() + (1 - cx.mean()) * (1 - cy.mean())
        return np.nan if ce == 1 else ((cx == cy).mean() - ce) / (1 - ce)
    per_pair = []
    for a, b in pairs:
        per_cond = [kappa(source(a).where(source(a).condition == c, drop=True).sortby("stimulus_id"),
                          target(b).where(target(b).condition == c, drop=True).sortby("stimulus_id"))
                    for c in (1, 2, 3)]
        per_pair.append(np.nanmean(per_cond))
    return float(np.mean(per_pair))


def test_error_consistency_scores_brainscores_own_test_assembly():
    """HR5 F6: 3 images per condition were refused with advice (`protocol.replace(min_items=...)`) that
    ErrorConsistency could not take; min_items= gives Brain-Score's 0.2, and its ceiling."""
    a = _brainscore_test_assembly()
    with pytest.raises(ValueError, match=r"min_items \(20\).*`min_items=` of tw.brainscore.ErrorConsistency"):
        bs.ErrorConsistency(n_resamples=50, rng=0)(a[:9], a)
    by = {s: a.where(a.subject == s, drop=True) for s in "ABC"}
    want = _brainscore_ec(lambda _: by["A"], lambda s: by[s], [("A", s) for s in "ABC"])
    assert want == pytest.approx(0.2, abs=1e-12)  # the value Brain-Score's test asserts
    want_ceiling = _brainscore_ec(lambda s: by[s], lambda s: by[s], list(itertools.combinations("ABC", 2)))
    for compatible in (False, True):
        metric = bs.ErrorConsistency(min_items=1, n_resamples=200, rng=0, brainscore_compatible=compatible)
        # the source named like a target subject (flat coordinates) or without a subject (Brain-Score's .sel)
        def negative():
            return pytest.warns(tw.DegenerateDataWarning, match="the ceiling is -0.133") if not compatible \
                else contextlib.nullcontext()
        for source in (a[:9], a.set_index(presentation=["stimulus_id", "truth", "condition", "subject"]).sel(subject="A")):
            with negative():
                assert float(metric(source, a)) == pytest.approx(want, abs=1e-12)
        with negative():
            ceiling = float(metric.ceiling(a))
        assert ceiling == pytest.approx(abs(want_ceiling) if compatible else want_ceiling, abs=1e-12)
    # averaging over the subjects first (the model-vs-human protocols) is another number on these data
    flat = bs.ErrorConsistency(protocol=tw.leaderboards.FLAT.replace(experiments=None, min_items=1), n_resamples=50, rng=0)
    with pytest.warns(tw.DegenerateDataWarning):
        assert abs(float(flat(a[:9], a)) - want) > 0.1
    with pytest.raises(ValueError, match="must hold one observer's responses; its `subject` coordinate names 2"):
        bs.ErrorConsistency(min_items=1, n_resamples=50, rng=0)(a[:18], a)


def test_from_assembly_takes_a_protocol_naming_experiments_through_experiment():
    """HR5 F6: a protocol naming experiments failed on an assembly without an experiment coordinate with an
    error that said nothing of how to proceed; `experiment=` names it, `experiments=None` drops the list."""
    a = _brainscore_test_assembly()
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(min_items=1)
    with pytest.raises(ValueError, match=r"has no `experiment` coordinate .*pass `experiment=`.*experiments=None"):
        tw.brainscore.BehavioralBenchmark.from_assembly(a, protocol=proto, n_resamples=50, rng=0)
    with pytest.raises(ValueError, match=r"is experiment\(s\) 'zzz'.*names other experiments"):
        tw.brainscore.BehavioralBenchmark.from_assembly(a, protocol=proto, experiment="zzz", n_resamples=50, rng=0)
    named = tw.brainscore.BehavioralBenchmark.from_assembly(a, protocol=proto, experiment="edge", n_resamples=50, rng=0)
    unnamed = tw.brainscore.BehavioralBenchmark.from_assembly(a, protocol=proto.replace(experiments=None), n_resamples=50, rng=0)
    with pytest.warns(tw.DegenerateDataWarning, match="the ceiling is -0.0889"):
        assert named.ceiling.statistic == pytest.approx(unnamed.ceiling.statistic, abs=1e-12)
    by_kw = tw.brainscore.BehavioralBenchmark.from_assembly(a, min_items=1, n_resamples=50, rng=0)
    assert by_kw.protocol.min_items == 1 and by_kw.protocol.aggregation == ("condition", "reference")


def test_xarray_adapter_bad_input(trials):
    t = trials[trials.experiment == "edge"]
    h = t[t.observer_type == "human"]
    with pytest.raises(TypeError, match="'presentation' dimension"):
        bs.trials_from_assembly(xr.DataArray(np.zeros(3), dims=["x"]))
    with pytest.raises(TypeError, match="'presentation' dimension"):
        bs.trials_from_assembly(h)
    with pytest.raises(ValueError, match="lacks coordinate 'truth'"):
        bs.trials_from_assembly(_assembly(h).drop_vars("truth"))
    with pytest.raises(ValueError, match="one response per presentation"):
        bs.trials_from_assembly(xr.DataArray(np.zeros((3, 2)), dims=["presentation", "choice"]))
    bare = _assembly(t[t.subject == "resnet50"], subject=False, condition=False).assign_coords(
        stimulus_id=("presentation", np.array(["zzz"] * len(t[t.subject == "resnet50"]), dtype=object)))
    with pytest.raises(ValueError, match="not among the benchmark's stimuli"):
        bs.trials_from_assembly(bare, stimuli=h)
    out = bs.trials_from_assembly(_assembly(h))
    assert (out.observer_type == "human").all() and len(out) == len(h)


# --------------------------------------------------------------------------- bad input (issue 14 item 12)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: bs.ceil_score(np.nan, 0.4), ValueError, r"`raw` contains NaN at position 0"),
    (lambda: bs.ceil_score([0.1, np.inf], 0.4), ValueError, r"`raw` must be finite; got inf"),
    (lambda: bs.ceil_score(0.1, -np.inf), ValueError, r"`ceiling` must be finite; got -inf"),
    (lambda: bs.ceil_score(0.1, [0.3, np.inf]), ValueError, r"`ceiling` must be finite; got inf"),
    (lambda: bs.unceil_score(np.inf, 0.4), ValueError, r"`score` must be finite"),
    (lambda: bs.unceil_score(0.5, np.inf), ValueError, r"`ceiling` must be finite"),
    (lambda: bs.ceil_score("0.2", 0.4), TypeError, r"`raw` must be numeric"),
    (lambda: bs.unceil_score(0.5, None), TypeError, r"`ceiling` must be numeric"),
    (lambda: bs.ceil_score([0.1, 0.2], [0.3, 0.4, 0.5]), ValueError,
     r"`raw` \(shape \(2,\)\) and `ceiling` \(shape \(3,\)\) cannot be broadcast"),
    (lambda: bs.unceil_score([0.1, 0.2], [0.3, 0.4, 0.5]), ValueError,
     r"`score` \(shape \(2,\)\) and `ceiling` \(shape \(3,\)\) cannot be broadcast"),
])
def test_ceiling_transform_rejects_nan_inf_and_bad_shapes(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_ceiling_transform_broadcasts_per_experiment():
    raw = np.array([[0.1, 0.2], [0.3, 0.4]])
    np.testing.assert_allclose(bs.ceil_score(raw, [0.2, 0.8]), np.clip(raw / [0.2, 0.8], 0, 1), rtol=1e-15)
    np.testing.assert_allclose(bs.unceil_score([[0.5], [0.25]], [0.2, 0.8]), [[0.1, 0.4], [0.05, 0.2]], rtol=1e-15)


def test_a_ceiling_needs_two_humans(trials):
    edge = trials[trials.experiment == "edge"]
    one = edge[edge.subject.isin(["subject-01", "resnet50"])]
    edge_only = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge"])
    with pytest.raises(ValueError, match=r"^ceilings: at least two reference observers are needed \(a ceiling is the "
                                         r"agreement between two distinct reference observers\); the trials have 1: "
                                         r"\['subject-01'\]$"):
        bs.ceilings(one, edge_only)
    with pytest.raises(ValueError, match=r"^BehavioralBenchmark\(metric='error-consistency'\): at least two reference"):
        bs.BehavioralBenchmark(one, edge_only, n_resamples=10)
    # one experiment with a lone human among several: named
    two = pd.concat([trials[(trials.experiment == "silhouette") & (trials.observer_type == "human")],
                     one[one.subject == "subject-01"]])
    both = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge", "silhouette"])
    with pytest.raises(ValueError, match=r"in every experiment .*experiment 'edge' has 1$"):
        bs.ceilings(two, both)
    # experiments outside the protocol do not count, and the accuracy metric (ceiling 1) needs one human only
    sil = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["silhouette"])
    assert list(bs.ceilings(two, sil).index) == ["silhouette"]
    res = bs.BehavioralBenchmark(one, edge_only, metric="accuracy", n_resamples=20, rng=0)(
        edge[edge.subject == "resnet50"])
    assert res.raw == pytest.approx(edge[edge.subject == "resnet50"].correct.mean(), abs=1e-12)


def test_metrics_are_one_table_and_results_speak_the_vocabulary(trials):
    import json

    from trialwise.brainscore.behavioral import BEHAVIORAL_METRICS

    assert tuple(BEHAVIORAL_METRICS) == ("error-consistency", "accuracy-distance", "accuracy")
    assert bs.BENCHMARK_METRICS == tuple(BEHAVIORAL_METRICS) + ("i2n", "i1n", "value-delta", "ost")
    t = trials[trials.experiment == "edge"]
    bench = tw.brainscore.BehavioralBenchmark(t, tw.leaderboards.Protocol(name="edge"), metric="accuracy-distance", n_splits=4,
                                   n_resamples=50, rng=2)
    assert bench.ceiling.method == "split-half over subjects (4 random splits)"
    assert set(bench.human_trials.subject) == set(bench.humans)
    res = bench(t[t.subject == "resnet50"])
    for result in (res, res.ceiling):
        assert isinstance(result, tw.Result) and "\n" not in repr(result) and isinstance(result.summary(), str)
        assert list(result.to_frame().columns) == list(result.frame_columns)
        json.dumps(result.to_dict(), allow_nan=False)
    assert res.method == "accuracy-distance; ceiling: split-half over subjects (4 random splits)"
