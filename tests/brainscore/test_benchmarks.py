"""Per-benchmark scores (``BehavioralBenchmark.score_benchmarks``, ``trialwise.brainscore.benchmarks``).

Oracles: each benchmark's raw value, ceiling and score are those of the single-experiment benchmark on
that experiment (an independent run of the whole machinery on the subset), or, for the accuracy-distance
ceiling, whose random splits differ between the two, a brute-force split-half computed here from the
trials with the benchmark's split orders; the average is the mean of the benchmark scores with NaN as 0
(Brain-Score's website: brain-score/brain-score.web, ``benchmarks/sql/mv.sql``), its replicates the
mean of the benchmarks' replicate scores; the rank columns are ``rank_columns`` of the raw replicates;
and the average's interval covers a known truth on simulated data at its level.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.brainscore.benchmarks import AVERAGE, BENCHMARK_COLUMNS, brainscore_average
from trialwise.leaderboards.ranks import rank_columns

EXPS = ["cue-conflict", "edge", "contrast"]
CANDS = ["resnet50", "clip-16", "vit-b-16"]


@pytest.fixture(scope="module")
def trials():
    t = tw.datasets.model_vs_human()
    return t[t.experiment.isin(EXPS)]


def _proto(exps):
    return tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=list(exps))


@pytest.mark.parametrize("metric, compatible", [("error-consistency", False), ("error-consistency", True),
                                                ("accuracy", False), ("accuracy-distance", False)])
def test_each_benchmark_is_the_single_experiment_benchmark(trials, metric, compatible):
    kw = dict(metric=metric, n_resamples=40, rng=0, brainscore_compatible=compatible)
    res = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), **kw).score_benchmarks(
        trials[trials.subject.isin(CANDS)])
    assert res.benchmarks == tuple(sorted(EXPS)) and list(res.table.columns) == list(BENCHMARK_COLUMNS)
    for exp, ceiling in zip(res.benchmarks, res.ceilings):
        one = tw.brainscore.BehavioralBenchmark(trials, _proto([exp]), **kw)
        want = one.score_table(trials[trials.subject.isin(CANDS)]).set_index("observer").loc[CANDS]
        got = res.table[res.table.benchmark == exp].set_index("observer").loc[CANDS]
        np.testing.assert_allclose(got["raw"], want["raw"], rtol=1e-12, atol=1e-15)
        assert (got["ceiling"] == ceiling.statistic).all()
        if metric != "accuracy-distance":  # its ceiling's random splits differ (tested below)
            np.testing.assert_allclose(got["ceiling"], want["ceiling"], rtol=1e-12)
            np.testing.assert_allclose(got["score"], want["statistic"], rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_allclose(got["score"], np.clip(got["raw"] / got["ceiling"], 0, 1), rtol=1e-12)


def _accuracy_distance(s, t):
    return 1 - abs(s - t) / max(t, 1 - t)


def test_accuracy_distance_ceiling_per_benchmark_is_the_brute_force_split_half(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), metric="accuracy-distance", n_resamples=20,
                                              n_splits=6, rng=3)
    res = bench.score_benchmarks(trials[trials.subject == "resnet50"])
    h = bench.human_trials
    conditions = bench.conditions
    place = {name: i for i, name in enumerate(bench.humans)}
    for exp, ceiling in zip(res.benchmarks, res.ceilings):
        per_split = []
        for s in range(bench.n_splits):
            order = bench._order[:, s]  # split s: the place of every human in its random order
            values = []
            for cond in conditions[conditions.experiment == exp].condition:
                g = h[(h.experiment == exp) & (h.condition == cond)]
                who = sorted(g.subject.unique(), key=lambda x: order[place[x]])
                first = who[:len(who) // 2]
                a, b = g[g.subject.isin(first)], g[~g.subject.isin(first)]
                values.append(_accuracy_distance(a.correct.mean(), b.correct.mean()))
            per_split.append(np.mean(values))
        assert ceiling.statistic == pytest.approx(np.mean(per_split), rel=1e-12)


def test_average_is_brainscores_mean_of_the_benchmark_scores_and_their_replicates(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), n_resamples=60, rng=1)
    res = bench.score_benchmarks(trials[trials.subject.isin(CANDS)])
    wide = res.scores
    avg = res.average.set_index("observer")
    np.testing.assert_allclose(avg.loc[wide.index, "score"], wide.mean(axis=1), rtol=1e-12)
    assert list(avg.index) == list(wide.index)  # the wide table is in the order of the average's ranks
    # replicates: each replicate of the average is the mean of the benchmarks' scores on that replicate
    np.testing.assert_allclose(res.bootstrap_distribution, res.benchmark_distribution.mean(axis=1), rtol=1e-12)
    for j, exp in enumerate(res.benchmarks):
        rows = res.table[res.table.benchmark == exp].set_index("observer").loc[list(res.candidates)]
        lo = np.quantile(res.benchmark_distribution[:, j], 0.025, axis=0)
        assert rows["ci_low"].to_numpy() == pytest.approx(lo, abs=0.02)  # the percentile interval of those
    # the rank columns of the average are rank_columns of its replicates; of a benchmark, of its raw replicates
    ranked = rank_columns(res.average.set_index("observer").loc[list(res.candidates), "score"],
                          res.bootstrap_distribution)
    assert avg.loc[list(res.candidates), "rank_set_high"].tolist() == list(ranked["rank_set_high"])
    assert avg.loc[list(res.candidates), "group"].tolist() == list(ranked["group"])
    edge = res.table[res.table.benchmark == "edge"].set_index("observer").loc[list(res.candidates)]
    one = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), n_resamples=60, rng=1)
    raw_r = one._run(*one._design(trials[trials.subject.isin(CANDS)])[:2], by_experiment=True).raw_replicates
    ranked = rank_columns(edge["raw"], raw_r[:, :, res.benchmarks.index("edge")])
    for col in ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high", "in_best_set"):
        assert edge[col].tolist() == list(ranked[col]), col


def test_brainscore_average_counts_a_missing_score_as_zero():
    scores = np.array([[0.6, 0.2, np.nan], [np.nan, np.nan, np.nan], [0.3, 0.3, 0.3]])
    want = [sum(0.0 if np.isnan(x) else x for x in row) / len(row) for row in scores[[0, 2]]]
    got = brainscore_average(scores, axis=1)
    np.testing.assert_allclose(got[[0, 2]], want, rtol=1e-15)
    assert np.isnan(got[1])  # no score at all: NaN (Brain-Score's fix_parent_scores), not 0


@pytest.mark.parametrize("metric", ["error-consistency", "accuracy", "accuracy-distance"])
def test_a_candidate_lacking_benchmarks_is_scored_in_the_others_and_counts_zero_in_the_average(trials, metric):
    """As on Brain-Score: a model is scored in the benchmarks it has, and its missing scores count as 0 in the
    average. Oracles: its scores in the benchmarks it has are those of a benchmark of those experiments alone
    (same seed: the same units, so the same draws), the complete candidates' numbers do not change, and the
    average is the mean with zeros (replicate by replicate too)."""
    full = trials[trials.subject.isin(CANDS)]
    no_edge = trials[(trials.subject == "clip_kb") & (trials.experiment == "cue-conflict")]  # one experiment only
    sketchy = trials[(trials.subject == "swin-base")]  # all three, less one image of contrast
    sketchy = sketchy.drop(sketchy.index[sketchy.experiment == "contrast"][:1])
    kw = dict(metric=metric, n_resamples=40, rng=0)
    bench = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), **kw)
    with pytest.warns(tw.TrialwiseWarning, match="2 candidate.s. not scored in some of the 3 benchmarks") as caught:
        res = bench.score_benchmarks(pd.concat([full, no_edge, sketchy]))
    assert len([w for w in caught if issubclass(w.category, tw.TrialwiseWarning)]) == 1
    assert res.missing == {"clip_kb": ("contrast", "edge"), "swin-base": ("contrast",)}
    assert [n.kind for n in res.notes].count("benchmarks-missing") == 1
    complete = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), **kw).score_benchmarks(full)
    stand_in = trials[(trials.subject == "resnet50") & (trials.experiment != "cue-conflict")].assign(subject="clip_kb")
    done = tw.brainscore.BehavioralBenchmark(trials, _proto(EXPS), **kw).score_benchmarks(
        pd.concat([full, no_edge, stand_in, trials[trials.subject == "swin-base"]]))
    cols = ["score", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling", "ceiling_low", "ceiling_high"]
    for exp in EXPS:
        block = res.table[res.table.benchmark == exp].set_index("observer")
        have = [c for c in res.candidates if exp not in res.missing.get(c, ())]
        assert sorted(block.index) == sorted(have)  # no row where it is not scored
        assert block["rank"].tolist() == list(range(1, len(have) + 1))  # ranked among those scored there
        # the complete candidates' numbers are those of the board without the others
        want = complete.table[complete.table.benchmark == exp].set_index("observer").loc[CANDS, cols]
        np.testing.assert_array_equal(block.loc[CANDS, cols].to_numpy(float), want.to_numpy(float))
        # and so are the partial ones': their values on a benchmark of that experiment alone, their intervals
        # those of a run where they answer every image (the same draws of this benchmark's images)
        alone = tw.brainscore.BehavioralBenchmark(trials, _proto([exp]), **kw)
        block_done = done.table[done.table.benchmark == exp].set_index("observer")
        for name, part in (("clip_kb", no_edge), ("swin-base", sketchy)):
            if exp not in res.missing[name]:
                one = alone.score_benchmarks(part[part.experiment == exp]).table
                one = one[one.benchmark == exp].set_index("observer")
                points = ["score", "raw", "ceiling"]
                np.testing.assert_allclose(block.loc[name, points].to_numpy(float),
                                           one.loc[name, points].to_numpy(float), rtol=1e-12)
                np.testing.assert_array_equal(block.loc[name, cols].to_numpy(float),
                                              block_done.loc[name, cols].to_numpy(float))
    j = {c: i for i, c in enumerate(res.candidates)}
    for name in ("clip_kb", "swin-base"):
        scores = res.scores.loc[name]
        assert scores[list(res.missing[name])].isna().all()
        got = res.average.set_index("observer").loc[name, "score"]
        assert got == pytest.approx(scores.fillna(0.0).sum() / 3, rel=1e-12)
        reps = res.benchmark_distribution[:, :, j[name]]
        np.testing.assert_allclose(res.bootstrap_distribution[:, j[name]], np.nan_to_num(reps).mean(axis=1),
                                   rtol=1e-12)


def test_result_views_and_contract(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, _proto(["cue-conflict", "edge"]), n_resamples=30, rng=0)
    res = bench.score_benchmarks(trials[trials.subject.isin(CANDS)])
    assert res.table.benchmark.tolist()[:3] == [AVERAGE] * 3
    assert res.average["rank"].tolist() == [1, 2, 3]
    assert res.scores.shape == (3, 2) and len(res.ceilings) == 2 and res.seed == bench.seed
    assert res.bootstrap_distribution.shape == (30, 3) and res.benchmark_distribution.shape == (30, 2, 3)
    assert res.average[["raw", "ceiling"]].isna().all().all()
    assert "2 benchmarks" in repr(res) and "error-consistency" in res.summary()
    same = tw.brainscore.BehavioralBenchmark(trials, _proto(["cue-conflict", "edge"]), n_resamples=30,
                                             rng=res.seed).score_benchmarks(trials[trials.subject.isin(CANDS)])
    pd.testing.assert_frame_equal(same.table, res.table)


def test_bad_input(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials, _proto(["edge"]), n_resamples=10, rng=0)
    humans = trials[trials.observer_type == "human"]
    with pytest.raises(tw.InvalidValueError, match="are humans of the benchmark"):
        bench.score_benchmarks(humans[humans.experiment == "edge"])
    with pytest.raises(tw.InvalidValueError, match=r"'resnet50' answer\(s\) all the images of none of the "
                                                   r"benchmark's 1 experiments"):
        bench.score_benchmarks(trials[(trials.subject == "resnet50") & (trials.experiment == "edge")].iloc[1:])
    with pytest.raises(tw.InvalidValueError, match="must answer exactly the benchmark's"):  # one score: all images
        bench.score_table(trials[(trials.subject == "resnet50") & (trials.experiment == "edge")].iloc[1:])
    models, afc = tw.datasets.synthetic_2afc_sample()
    i2n = tw.brainscore.BehavioralBenchmark(afc, metric="i2n", n_resamples=10, rng=0)
    with pytest.raises(tw.InvalidValueError, match="metric 'i2n' scores images: use score_table"):
        i2n.score_benchmarks(models)


# --------------------------------------------------------------------------- calibration


def _population(n_images: int, rng) -> pd.DataFrame:
    """Three experiments of two conditions, four humans and three models answering every image; an image's
    difficulty is shared by all observers (so their errors agree beyond chance), each observer has its own
    skill and its own weight on the difficulty."""
    rows = []
    humans = [(f"h{i}", "human", 0.6 + 0.2 * i, 1.5) for i in range(4)]
    models = [("m-close", "model", 0.8, 1.1), ("m-mid", "model", 1.0, 0.8), ("m-far", "model", 0.4, 0.55)]
    for e in ("e1", "e2", "e3"):
        for c in ("c1", "c2"):
            shift = {"e1": 0.0, "e2": -0.4, "e3": 0.5}[e] + (0.3 if c == "c2" else 0.0)
            d = rng.standard_normal(n_images)
            for name, kind, skill, weight in humans + models:
                noise = 0.4 if kind == "human" else 1.0
                p = 1 / (1 + np.exp(-(skill + shift - weight * d + noise * rng.standard_normal(n_images))))
                right = rng.random(n_images) < p
                rows.append(pd.DataFrame({"experiment": e, "condition": c, "subject": name, "observer_type": kind,
                                          "image": [f"{e}-{c}-{i}" for i in range(n_images)], "truth": "a",
                                          "response": np.where(right, "a", "b"), "correct": right}))
    return pd.concat(rows, ignore_index=True)


SIM = tw.leaderboards.Protocol(name="sim", aggregation=("reference", "condition", "experiment"))


def _coverage(n_reps: int, n_images: int, n_resamples: int, seed: int) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    pop = _population(4000, rng)
    truth = tw.brainscore.BehavioralBenchmark(pop, SIM, n_resamples=1, rng=0).score_benchmarks(
        pop[pop.observer_type == "model"]).average.set_index("observer")["score"]
    images = pop.groupby(["experiment", "condition"])["image"].unique()
    hits = total = 0
    for r in range(n_reps):
        keep = np.concatenate([rng.choice(imgs, n_images, replace=False) for imgs in images])
        sample = pop[pop.image.isin(keep)]
        res = tw.brainscore.BehavioralBenchmark(sample, SIM, n_resamples=n_resamples, rng=r).score_benchmarks(
            sample[sample.observer_type == "model"])
        avg = res.average.set_index("observer")
        inside = (avg["ci_low"] <= truth[avg.index]) & (truth[avg.index] <= avg["ci_high"])
        hits, total = hits + int(inside.sum()), total + len(avg)
    return hits / total, total


def test_average_interval_covers_the_truth_light():
    """A light version of the calibration below: 20 samples × 3 models at 95 %; a broken interval (the
    benchmarks' replicates drawn apart, or the average's taken from one benchmark) falls below 0.8."""
    coverage, n = _coverage(n_reps=20, n_images=60, n_resamples=200, seed=11)
    assert coverage >= 0.8, (coverage, n)


@pytest.mark.slow
def test_average_interval_is_calibrated():
    """The average's 95 % interval covers the population's average score 0.93–0.97 of the time (300 samples ×
    3 models of 60 images per condition; measured: see docs/brainscore.md)."""
    coverage, n = _coverage(n_reps=300, n_images=60, n_resamples=1000, seed=5)
    assert 0.93 <= coverage <= 0.97, (coverage, n)
