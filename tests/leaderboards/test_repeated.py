"""Accuracy from repeated runs (issue 31, item 3): tw.leaderboards.replicate_accuracy against a brute-force
reference and Miller's (2024) formulas, the accuracy leaderboard on a table with replicates, the errors, and
the calibration of the repeat-aware interval (the naive one that takes runs for questions under-covers)."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from scipy import stats

import trialwise as tw
from trialwise.leaderboards.repeated import collapse_replicates


def _table(rng, n_q=40, models=("a", "b"), max_k=3, clusters=None, p_mean=0.6, spread=2.0):
    """Correctness of repeated runs: question difficulty varies, K_i runs (1..max_k) per model and question."""
    rows = []
    logit = rng.normal(0, spread, n_q)
    for m in models:
        shift = rng.normal(0, 0.3)
        for q in range(n_q):
            p = 1 / (1 + np.exp(-(np.log(p_mean / (1 - p_mean)) + logit[q] + shift)))
            for r in range(1, 1 + int(rng.integers(1, max_k + 1))):
                c = bool(rng.random() < p)
                rows.append(dict(experiment="e", condition="c", subject=m, observer_type="model", image=f"q{q:03d}",
                                 truth="A", response="A" if c else "B", correct=c, replicate=r,
                                 cl=f"k{q % clusters}" if clusters else "k"))
    return pd.DataFrame(rows)


def _brute(t, model, clusters=None, level=0.95):
    """Explicit loops: question means, Miller's split, and the leave-one-unit-out jackknife."""
    sub = t[t.subject == model]
    qs = sorted(sub.image.unique())
    means, within, ks, cl = [], [], [], []
    for q in qs:
        x = sub[sub.image == q].correct.to_numpy(float)
        means.append(x.mean())
        ks.append(len(x))
        within.append(np.sum((x - x.mean()) ** 2) / (len(x) - 1) if len(x) > 1 else np.nan)
        cl.append(sub[sub.image == q][clusters].iloc[0] if clusters else q)
    means, within, ks = np.array(means), np.array(within), np.array(ks, float)
    pooled = np.nanmean(within)
    var_within = np.mean(np.where(np.isnan(within), pooled, within) / ks)
    var_between = np.var(means, ddof=1) - var_within
    acc = means.mean()
    units = sorted(set(cl))
    jk = np.array([np.mean([m for m, c in zip(means, cl) if c != u]) for u in units])
    g = len(units)
    se = np.sqrt((g - 1) / g * np.sum((jk - jk.mean()) ** 2))
    t_q = stats.t.ppf(0.5 + level / 2, g - 1)
    return dict(acc=acc, se=se, var_between=var_between, var_within=var_within, n=len(qs),
                low=max(acc - t_q * se, 0.0), high=min(acc + t_q * se, 1.0), n_runs=len(sub), g=g)


def test_replicate_accuracy_equals_the_brute_force_reference_and_millers_formula():
    t = _table(np.random.default_rng(3))
    res = tw.leaderboards.replicate_accuracy(t)
    for i, m in enumerate(res.observers):
        ref = _brute(t, m)
        assert res.statistic[i] == pytest.approx(ref["acc"], abs=1e-12)
        assert res.standard_error[i] == pytest.approx(ref["se"], abs=1e-12)
        assert res.var_between[i] == pytest.approx(ref["var_between"], abs=1e-12)
        assert res.var_within[i] == pytest.approx(ref["var_within"], abs=1e-12)
        # Miller (2024), §3.2: Var(s̄) = (σ²_between + E[σ²_i/K_i]) / n, also the jackknife variance over questions
        assert res.standard_error[i] ** 2 == pytest.approx((ref["var_between"] + ref["var_within"]) / ref["n"],
                                                           abs=1e-12)
        assert (res.confidence_interval.low[i], res.confidence_interval.high[i]) == pytest.approx(
            (ref["low"], ref["high"]), abs=1e-12)
        assert (res.n[i], res.n_runs[i], res.n_clusters[i]) == (ref["n"], ref["n_runs"], ref["n"])
    frame = res.to_frame()
    assert list(frame.columns) == list(res.frame_columns) and list(frame.observer) == ["a", "b"]


def test_replicate_accuracy_with_clusters_is_the_leave_one_cluster_out_jackknife():
    t = _table(np.random.default_rng(4), n_q=60, clusters=20)
    res = tw.leaderboards.replicate_accuracy(t, clusters="cl", confidence_level=0.9)
    for i, m in enumerate(res.observers):
        ref = _brute(t, m, clusters="cl", level=0.9)
        assert res.standard_error[i] == pytest.approx(ref["se"], abs=1e-12)
        assert res.confidence_interval.low[i] == pytest.approx(ref["low"], abs=1e-12)
        assert res.n_clusters[i] == 20
    assert res.ci_method == "cluster-jackknife-t"


def test_one_run_per_question_is_the_plain_mean_with_no_within_part():
    rng = np.random.default_rng(5)
    t = _table(rng, max_k=1).drop(columns="replicate")
    res = tw.leaderboards.replicate_accuracy(t)
    x = t[t.subject == "a"].correct.to_numpy(float)
    assert res.statistic[0] == pytest.approx(x.mean(), abs=1e-12)
    assert res.standard_error[0] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size), abs=1e-12)
    assert np.isnan(res.var_within[0]) and np.isnan(res.var_between[0])
    assert res.naive_standard_error[0] == pytest.approx(res.standard_error[0], abs=1e-12)


def test_a_question_counts_once_however_often_it_was_run():
    t = pd.DataFrame({"subject": "m", "image": ["q1"] * 5 + ["q2"], "replicate": [1, 2, 3, 4, 5, 1],
                      "correct": [True] * 5 + [False]})
    res = tw.leaderboards.replicate_accuracy(t)
    assert res.statistic[0] == 0.5 and res.var_within[0] == 0.0  # not 5/6
    assert res.mean_replicates[0] == 3.0


def test_the_accuracy_leaderboard_scores_each_question_by_its_replicate_mean():
    t = _table(np.random.default_rng(6), models=("a", "b", "c"))
    lb = tw.leaderboard(t, protocol="accuracy", n_resamples=300, rng=1)
    ref = tw.leaderboards.replicate_accuracy(t).to_frame().set_index("observer")
    got = lb.table.set_index("observer")
    for m in ("a", "b", "c"):
        assert got.loc[m, "score"] == pytest.approx(ref.loc[m, "statistic"], abs=1e-12)
    # the same as the one-row-per-question table with the replicate mean as score (questions resampled whole)
    collapsed = collapse_replicates(t)
    assert len(collapsed) == t.groupby(["subject", "image"]).ngroups
    lb2 = tw.leaderboard(collapsed, protocol="accuracy", n_resamples=300, rng=1)
    pd.testing.assert_frame_equal(lb.table, lb2.table)
    assert any("averaged over each question's replicates" in n for n in lb.notes)


def test_other_protocols_refuse_replicates_naming_the_column_and_what_to_do():
    t = _table(np.random.default_rng(7))
    with pytest.raises(tw.InvalidValueError, match=r"repeated runs \(column 'replicate'\).*protocol='accuracy'"):
        tw.leaderboard(t, n_resamples=10)


def test_replicate_accuracy_errors_name_the_argument_and_value():
    t = pd.DataFrame({"subject": "m", "image": ["q1", "q1"], "replicate": [1, 1], "correct": [True, False]})
    with pytest.raises(tw.InvalidValueError, match="replicate 1 of question q1 more than once"):
        tw.leaderboards.replicate_accuracy(t)
    with pytest.raises(tw.InvalidValueError, match="integers ≥ 1; got 0.0"):
        tw.leaderboards.replicate_accuracy(t.assign(replicate=[0, 1]))
    with pytest.raises(tw.InvalidTypeError, match="must be a trial table.*got list"):
        tw.leaderboards.replicate_accuracy([1, 2])
    with pytest.raises(tw.InvalidValueError, match=r"lacks the column\(s\) \['correct'\]"):
        tw.leaderboards.replicate_accuracy(t.drop(columns="correct"))
    ok = t.assign(replicate=[1, 2], cl=["x", "y"])
    with pytest.raises(tw.InvalidValueError, match="question q1 has more than one label in column 'cl'"):
        tw.leaderboards.replicate_accuracy(ok, clusters="cl")
    with pytest.raises(tw.InvalidValueError, match="`clusters`: 'nope' is not a column"):
        tw.leaderboards.replicate_accuracy(ok, clusters="nope")
    with pytest.raises(tw.InvalidValueError, match="confidence_level"):
        tw.leaderboards.replicate_accuracy(ok, confidence_level=95)
    with pytest.raises(tw.InvalidValueError, match="'correct' must be bool or 0/1; got 2.0"):
        tw.leaderboards.replicate_accuracy(ok.assign(correct=[1, 2]))


def test_few_clusters_warn():
    t = _table(np.random.default_rng(8), clusters=4)
    with pytest.warns(tw.DegenerateDataWarning, match="only 4 clusters"):
        res = tw.leaderboards.replicate_accuracy(t, clusters="cl")
    assert res.notes and res.notes[0].kind == "coverage"


# --------------------------------------------------------------------------- calibration


def coverage_of_accuracy(n_sets: int, seed: int, n_q: int = 60, max_k: int = 5, spread: float = 2.0,
                         n_clusters: int | None = None, cluster_sd: float = 1.0):
    """Data sets with a known true accuracy (the mean over the population of questions of P(right)),
    question difficulty varying (logit-normal, SD ``spread``; with ``n_clusters`` a cluster effect of SD
    ``cluster_sd`` on top, questions dealt to clusters in turn), K_i = 1..max_k runs per question: how often
    the repeat-aware interval (``clusters=`` when clustered) and the naive one (every run an independent
    question, a Wald interval) hold the truth."""
    rng = np.random.default_rng(seed)
    # the population's true accuracy: the mean of P(right | question) over the difficulty distribution
    sd = np.hypot(spread, cluster_sd) if n_clusters else spread
    z = np.random.default_rng(12345).normal(0, sd, 2_000_000)
    truth = float(np.mean(1 / (1 + np.exp(-z))))
    hit = naive_hit = 0
    z95 = stats.norm.ppf(0.975)
    for _ in range(n_sets):
        logit = rng.normal(0, spread, n_q)
        cl = np.arange(n_q) % n_clusters if n_clusters else np.zeros(n_q, int)
        if n_clusters:
            logit = logit + rng.normal(0, cluster_sd, n_clusters)[cl]
        p = 1 / (1 + np.exp(-logit))
        k = rng.integers(1, max_k + 1, n_q)
        q = np.repeat(np.arange(n_q), k)
        x = rng.random(q.size) < p[q]
        t = pd.DataFrame({"subject": "m", "image": q.astype(str), "correct": x, "cl": cl[q].astype(str),
                          "replicate": np.concatenate([np.arange(1, kk + 1) for kk in k])})
        res = tw.leaderboards.replicate_accuracy(t, clusters="cl" if n_clusters else None)
        hit += res.confidence_interval.low[0] <= truth <= res.confidence_interval.high[0]
        pooled = x.mean()  # naive: N runs as N questions, a Wald interval on the pooled runs
        naive_hit += abs(pooled - truth) <= z95 * res.naive_standard_error[0]
    return hit / n_sets, naive_hit / n_sets


def test_the_repeat_aware_interval_covers_and_the_naive_one_does_not_light():
    # 300 data sets: Monte-Carlo SE of a 95 % coverage ≈ 1.3 points; the naive interval's deficit is ~15 points
    cover, naive = coverage_of_accuracy(300, seed=11)
    assert cover >= 0.91 and naive <= 0.86


@pytest.mark.slow
def test_the_repeat_aware_interval_covers_and_the_naive_one_does_not():
    # 4,000 data sets: Monte-Carlo SE ≈ 0.35 points (docs/validity.md, "Repeated runs")
    cover, naive = coverage_of_accuracy(4000, seed=12)
    assert 0.93 <= cover <= 0.97 and naive <= 0.85


def test_the_difference_test_of_an_accuracy_protocol_uses_replicate_means():
    t = _table(np.random.default_rng(9))
    res = tw.leaderboards.difference_test(t, "a", "b", protocol="accuracy", n_resamples=200, rng=0)
    acc = tw.leaderboards.replicate_accuracy(t).statistic
    assert res.statistic == pytest.approx(acc[0] - acc[1], abs=1e-12)
    with pytest.raises(tw.InvalidValueError, match=r"repeated runs \(column 'replicate'\)"):
        tw.leaderboards.difference_test(t, "a", "b", n_resamples=10)


def test_a_function_that_cannot_use_replicates_says_so_not_duplicate():
    t = _table(np.random.default_rng(10))
    with pytest.raises(tw.InvalidValueError, match=r"repeated runs \(column 'replicate'.*keep one run per item"):
        tw.read_trials(t)


@pytest.mark.slow
def test_the_repeat_aware_interval_with_clusters_covers():
    # 2,000 data sets of 30 clusters × 4 questions: Monte-Carlo SE ≈ 0.5 points
    cover, naive = coverage_of_accuracy(2000, seed=13, n_q=120, n_clusters=30)
    assert cover >= 0.93 and naive <= 0.80
