"""The per-image metrics through :class:`trialwise.brainscore.BehavioralBenchmark` and ``trialwise brainscore``.

The benchmark computes nothing itself for I1n/I2n, value delta and OST: its oracle is the
metric function called directly with the same integer seed (which has its own oracle tests in
tests/brainscore/), and for the rank columns the rank functions of
:mod:`trialwise.leaderboards.ranks` applied to the candidates' raw replicates. The rank sets get a
coverage check on simulated candidates of known order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.leaderboards import ranks
from trialwise.cli import main

NUMBERS = ("statistic", "raw", "n_undefined")


@pytest.fixture(scope="module")
def afc():
    return tw.datasets.synthetic_2afc_sample()


@pytest.fixture(scope="module")
def osts():
    return tw.datasets.synthetic_ost_sample()


def same(a, b):
    """Two BrainScoreResults hold the same numbers (the observer aside)."""
    for name in NUMBERS:
        np.testing.assert_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert tuple(a.confidence_interval) == tuple(b.confidence_interval)
    assert tuple(a.raw_interval) == tuple(b.raw_interval)
    assert a.ceiling.statistic == b.ceiling.statistic
    assert tuple(a.ceiling.confidence_interval) == tuple(b.ceiling.confidence_interval)
    np.testing.assert_array_equal(a.raw_distribution, b.raw_distribution)
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)


@pytest.mark.parametrize("metric", ["i2n", "i1n"])
def test_i2n_benchmark_is_the_function(afc, metric):
    models, trials = afc
    fn = getattr(tw.brainscore, metric)
    bench = tw.brainscore.BehavioralBenchmark(trials, metric=metric, n_resamples=60, n_splits=4, rng=7)
    got = bench(models["model-0.5"])
    same(got, fn(models["model-0.5"], trials, n_resamples=60, n_splits=4, rng=7))
    assert got.observer == "model" and got.metric == metric
    assert bench.ceiling.statistic == got.ceiling.statistic  # computed once, the same for every candidate
    # options are passed on
    opt = tw.brainscore.BehavioralBenchmark(trials, metric=metric, n_resamples=30, n_splits=3, rng=7,
                                 metric_options={"rate_correction": "loglinear"})
    same(opt(models["model-0.8"]), fn(models["model-0.8"], trials, n_resamples=30, n_splits=3, rng=7,
                                      rate_correction="loglinear"))
    compat = tw.brainscore.BehavioralBenchmark(trials, metric=metric, n_resamples=30, rng=7, brainscore_compatible=True)
    same(compat(models["model-0.2"]), fn(models["model-0.2"], trials, n_resamples=30, rng=7, brainscore_compatible=True))


def test_i2n_score_table_is_one_at_a_time_and_ranked_on_the_raw_replicates(afc):
    models, trials = afc
    bench = tw.brainscore.BehavioralBenchmark(trials, metric="i2n", n_resamples=80, n_splits=4, rng=3)
    stacked = pd.concat([m.rename_axis("image").reset_index().assign(candidate=k) for k, m in models.items()])
    for given in (models, stacked):  # a dict of tables or one table with a candidate column
        table = bench.score_table(given)
        assert table["observer"].tolist() == sorted(models)
        singles = [bench(models[k]) for k in sorted(models)]
        for row, one in zip(table.itertuples(), singles):
            assert (row.statistic, row.raw, row.ci_low, row.raw_high, row.ceiling) == \
                (one.statistic, one.raw, one.confidence_interval.low, one.raw_interval.high, one.ceiling.statistic)
    raw = np.array([r.raw for r in singles])
    reps = np.column_stack([r.raw_distribution for r in singles])
    lo, hi = ranks.rank_sets(raw, reps)
    np.testing.assert_array_equal(table["rank"], ranks.rank_scores(raw))
    np.testing.assert_array_equal(table["rank_low"], lo)
    np.testing.assert_array_equal(table["rank_high"], hi)
    assert table.set_index("observer")["rank"].to_dict() == {"model-0.8": 1, "model-0.5": 2, "model-0.2": 3}


def test_value_delta_benchmark_is_the_function_on_the_trials():
    t = tw.read_trials(tw.datasets.model_vs_human("cue-conflict"))
    humans, cands = t[t.observer_type == "human"], t[t.subject.isin(["resnet50", "clip-16"])]
    bench = tw.brainscore.BehavioralBenchmark(humans, metric="value-delta", n_resamples=300, n_splits=50, rng=5)
    table = bench.score_table(cands)
    h = humans["correct"].to_numpy(float)
    for row in table.itertuples():
        want = tw.brainscore.value_delta(cands[cands.subject == row.observer]["correct"].to_numpy(float), h,
                                         n_resamples=300, n_splits=50, rng=5)
        assert (row.statistic, row.raw, row.raw_low, row.raw_high, row.ceiling, row.ceiling_low, row.ci_high) == \
            (want.statistic, want.raw, *want.raw_interval, want.ceiling.statistic, want.ceiling.confidence_interval.low,
             want.confidence_interval.high)
    # a user's scalar (here the share of "dog" responses) is applied alike to the humans and the candidates
    dog = tw.brainscore.BehavioralBenchmark(humans, metric="value-delta", n_resamples=100, rng=1,
                                 scalar=lambda x: (x["response"] == "dog").to_numpy(float),
                                 metric_options={"scale": 0.75})
    one = cands[cands.subject == "resnet50"]
    same(dog(one), tw.brainscore.value_delta((one.response == "dog").to_numpy(float),
                                             (humans.response == "dog").to_numpy(float), scale=0.75,
                                             n_resamples=100, rng=1))


def test_ost_benchmark_is_the_function(osts):
    models, humans = osts
    bench = tw.brainscore.BehavioralBenchmark(humans, metric="ost", n_resamples=300, rng=2)
    table = bench.score_table(models)
    wide = humans.assign(k=humans.groupby("image").cumcount()).pivot(index="image", columns="k", values="ost")
    for row in table.itertuples():
        m = models[models.candidate == row.observer].set_index("image")["ost"].reindex(wide.index)
        want = tw.brainscore.ost_correlation(m.to_numpy(), wide.to_numpy(), n_resamples=300, rng=2)
        assert (row.statistic, row.raw, row.raw_low, row.ci_high, row.ceiling) == \
            (want.statistic, want.raw, want.raw_interval.low, want.confidence_interval.high, want.ceiling.statistic)
    assert table.set_index("observer")["rank"].to_dict() == {"model-0.9": 1, "model-0.6": 2, "model-0.3": 3}
    # one candidate as a Series indexed by image, rows in any order
    series = models[models.candidate == "model-0.6"].set_index("image")["ost"].iloc[::-1]
    assert bench(series).raw == table.set_index("observer").loc["model-0.6", "raw"]


def _ost_draw(g, n=150, reps=6, sims=(0.55, 0.65, 0.75)):
    d = g.normal(size=n)
    images = [f"i{i}" for i in range(n)]
    humans = pd.DataFrame({"image": np.repeat(images, reps), "ost": (150 + 20 * d[:, None]
                                                                   + g.normal(0, 25, (n, reps))).ravel()})
    models = {f"s{s}": pd.Series(120 + 15 * (s * d + np.sqrt(1 - s * s) * g.normal(size=n)), index=images)
              for s in sims}
    return humans, models


def test_rank_sets_cover_the_true_order_ost():
    """Calibration (CI-light: R = 60, B = 200): three OST candidates whose true order is their similarity
    (0.75 > 0.65 > 0.55), close enough that the sets are often wider than one rank. The simultaneous rank sets
    at 95 % hold every candidate's true rank in ≥ 90 % of data sets (Monte Carlo SE ≈ 2.8 %); the full run
    (docs/brainscore.md) has R = 400."""
    g = np.random.default_rng(20261124)
    hit, wide = 0, 0
    for r in range(60):
        humans, models = _ost_draw(g)
        table = tw.brainscore.BehavioralBenchmark(humans, metric="ost", n_resamples=200, n_splits=4, rng=r).score_table(models)
        true = table["observer"].map({"s0.75": 1, "s0.65": 2, "s0.55": 3})
        hit += bool(((table["rank_set_low"] <= true) & (true <= table["rank_set_high"])).all())
        wide += bool((table["rank_set_high"] > table["rank_set_low"]).any())
    assert hit / 60 >= 0.90
    assert wide >= 10  # the check is not decided by singleton sets


def test_rank_sets_cover_the_true_order_i2n():
    """Calibration (CI-light: R = 20, B = 100): one model of similarity 0.9 on small synthetic 2AFC data, and
    three candidates that are its probabilities times exp(σZ), σ = 0.4, 0.6, 0.8 (independent Z per image and
    class, renormalised: more noise, lower I2n — the true order). The simultaneous 95 % rank sets hold the true
    order in at least 18 of 20 (a 95 % procedure fails this with probability ≈ 0.08), and some set is wider than
    one rank in at least 5 (the check is not decided by singletons); the full run in docs/brainscore.md."""
    g = np.random.default_rng(7)
    hit = wide = 0
    for r in range(20):
        base, trials = tw.brainscore.synthetic_2afc(n_objects=5, images_per_object=8, trials_per_image=40,
                                                   similarity=0.9, rng=100 + r)
        models = {}
        for sd in (0.4, 0.6, 0.8):
            p = base * np.exp(sd * g.standard_normal(base.shape))
            models[f"n{sd}"] = p.div(p.sum(axis=1), axis=0)
        table = tw.brainscore.BehavioralBenchmark(trials, metric="i2n", n_resamples=100, n_splits=4, rng=r).score_table(models)
        true = table["observer"].map({"n0.4": 1, "n0.6": 2, "n0.8": 3})
        hit += bool(((table["rank_set_low"] <= true) & (true <= table["rank_set_high"])).all())
        wide += bool((table["rank_set_high"] > table["rank_set_low"]).any())
    assert hit >= 18
    assert wide >= 5


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("metric", ["i2n", "ost"])
def test_cli_on_the_bundled_samples_is_the_library(tmp_path, capsys, afc, osts, metric):
    csv, html = tmp_path / "t.csv", tmp_path / "r.html"
    code, out, _ = run(["brainscore", "--metric", metric, "--resamples", 60, "--splits", 4, "--seed", 11,
                        "--csv", csv, "--out", html, "-q"], capsys)
    assert code == 0
    got = pd.read_csv(csv)
    assert "statistic" not in got.columns  # the leaderboard's name: score
    got = got.rename(columns={"score": "statistic"})
    if metric == "i2n":
        bench = tw.brainscore.BehavioralBenchmark(afc[1], metric="i2n", n_resamples=60, n_splits=4, rng=11)
        want = bench.score_table(afc[0])
    else:
        bench = tw.brainscore.BehavioralBenchmark(osts[1], metric="ost", n_resamples=60, n_splits=4, rng=11)
        want = bench.score_table(osts[0])
    want = want.sort_values(["rank", "observer"], kind="stable").reset_index(drop=True)
    for col in ("statistic", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling", "ceiling_low", "p_best"):
        np.testing.assert_allclose(got[col], want[col].astype(float), rtol=1e-12, err_msg=col)
    assert got["observer"].tolist() == want["observer"].tolist()
    assert f"ceiling {bench.ceiling.statistic:.3f}" in out
    text = html.read_text()
    assert "√ceiling" in text if metric == "i2n" else "percentile intervals of one bootstrap of the images" in text.lower()


def test_cli_files_and_one_candidate(tmp_path, capsys, afc):
    models, trials = afc
    probs = pd.concat([m.rename_axis("image").reset_index().assign(model=k) for k, m in models.items()])
    trials.to_csv(tmp_path / "h.csv", index=False)
    probs.to_csv(tmp_path / "p.csv", index=False)
    csv = tmp_path / "t.csv"
    code, out, _ = run(["brainscore", tmp_path / "h.csv", "--metric", "i1n", "--probabilities", tmp_path / "p.csv",
                        "--candidate", "model-0.5", "--resamples", 40, "--splits", 3, "--seed", 2, "--csv", csv, "-q"],
                       capsys)
    assert code == 0
    got = pd.read_csv(csv).rename(columns={"score": "statistic"})
    want = tw.brainscore.i1n(models["model-0.5"], trials, n_resamples=40, n_splits=3, rng=2)
    assert got["observer"].tolist() == ["model-0.5"]
    np.testing.assert_allclose(got[["statistic", "raw", "ci_low", "ceiling"]].to_numpy()[0],
                               [want.statistic, want.raw, want.confidence_interval.low, want.ceiling.statistic],
                               rtol=1e-6)  # through a CSV of the probabilities: rounding of the text


def test_cli_value_delta(tmp_path, capsys):
    csv = tmp_path / "t.csv"
    code, out, _ = run(["brainscore", "--metric", "value-delta", "--experiments", "cue-conflict", "--candidate",
                        "resnet50", "clip-16", "--scale", 0.75, "--resamples", 200, "--seed", 4, "--csv", csv, "-q"],
                       capsys)
    assert code == 0
    t = tw.read_trials(tw.datasets.model_vs_human("cue-conflict"))
    bench = tw.brainscore.BehavioralBenchmark(t[t.observer_type == "human"], metric="value-delta", n_resamples=200, rng=4,
                                   metric_options={"scale": 0.75})
    want = bench.score_table(t[t.subject.isin(["resnet50", "clip-16"])])
    got = pd.read_csv(csv).set_index("observer").loc[want["observer"]]
    np.testing.assert_allclose(got["score"], want["statistic"], rtol=1e-12)
    np.testing.assert_allclose(got["raw_low"], want["raw_low"], rtol=1e-12)
