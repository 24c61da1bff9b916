"""The winner's curse: the selection-adjusted score of a leaderboard's best model."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import trialwise as tw
from trialwise._stats.streams import child_rngs
from trialwise.leaderboards.winner import winner_score


def _brute_force(s, rep, higher, level):
    sign = 1 if higher else -1
    w = max(range(len(s)), key=lambda k: sign * s[k])
    deltas = []
    for row in rep:
        if not np.isfinite(row).all():
            continue
        k = max(range(len(row)), key=lambda j: sign * row[j])
        deltas.append(row[k] - s[k])
    d = np.array(deltas)
    a = 1 - level
    return w, s[w] - d.mean(), d.mean(), s[w] - np.quantile(d, 1 - a / 2), s[w] - np.quantile(d, a / 2), len(d)


@pytest.mark.parametrize("higher", [True, False])
def test_winner_score_matches_a_loop_over_replicates(higher):
    gen = np.random.default_rng(3)
    s = np.array([0.50, 0.49, 0.47, 0.30]) if higher else np.array([0.50, 0.32, 0.31, 0.30])
    rep = s + gen.normal(0, 0.03, (500, 4))
    rep[[5, 17], 2] = np.nan  # undefined replicates are left out
    got = winner_score(s, rep, higher_is_better=higher, confidence_level=0.9)
    want = _brute_force(s, rep, higher, 0.9)
    assert got[0] == want[0] and got[5] == want[5] == 498
    np.testing.assert_allclose(got[1:5], want[1:5], rtol=0, atol=1e-14)
    assert (got[2] > 0) == higher  # selection lifts the best score (lowers it when lower is better)


def test_an_unscored_candidate_is_never_the_winner():
    s = np.array([np.nan, 0.4, 0.6])
    rep = np.column_stack([np.full(50, np.nan), 0.4 + np.zeros(50), 0.6 + np.zeros(50)])
    w, adjusted, bias, lo, hi, n, method = winner_score(s, rep)
    assert (w, adjusted, bias, lo, hi, n, method) == (2, 0.6, 0.0, 0.6, 0.6, 50, "basic")


def test_leaderboard_winner_result():
    lb = tw.leaderboard(tw.datasets.model_vs_human_sample(), n_resamples=300, rng=1)
    w = lb.winner()
    k = len(lb.candidates)
    want = _brute_force(lb.scores[:k], lb.replicates[:, :k], True, 0.95)
    assert w.observer == lb.candidates[want[0]] == lb.table.observer.iloc[1]
    assert w.statistic == pytest.approx(want[1], abs=1e-14) and w.score == lb.scores[want[0]]
    assert w.score - w.statistic == pytest.approx(w.bias, abs=1e-14)
    assert w.to_frame().shape == (1, 10) and w.observer in w.summary()
    assert w.ci_method == "basic" and lb.resampled == "items"


def _board(gen, n_items=500):
    truth = np.array([0.800, 0.798, 0.795, 0.790, 0.77, 0.75, 0.73, 0.71])
    z = gen.standard_normal(n_items)
    y = gen.random((len(truth), n_items)) < stats.norm.cdf(stats.norm.ppf(truth)[:, None] * np.sqrt(2) + z)
    names = [f"m{k}" for k in range(len(truth))]
    trials = pd.DataFrame({"experiment": "e", "condition": "c", "subject": np.repeat(names, n_items),
                           "observer_type": "model", "image": np.tile(np.arange(n_items).astype(str), len(truth)),
                           "truth": "a", "response": np.where(y.ravel(), "a", "b")})
    return trials, dict(zip(names, truth))


@pytest.mark.slow
def test_the_adjusted_winner_score_removes_most_of_the_winners_curse():
    """Four nearly tied models (true accuracies 0.800–0.790) with a shared item difficulty:
    R = 100 boards, B = 300. The observed winner's score is biased up by ≈ 0.015; the adjusted
    score by ≈ 0.003 (docs/benchmark.md), and its interval covers the winner's true accuracy."""
    gen = np.random.default_rng(20261123)
    raw, adj, cover = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for _ in range(100):
            trials, truth = _board(gen)
            w = tw.leaderboard(trials, protocol="accuracy", n_resamples=300, ci_method="bc",
                               rng=int(gen.integers(2**31))).winner()
            t = truth[w.observer]
            raw.append(w.score - t)
            adj.append(w.statistic - t)
            cover.append(w.confidence_interval.low <= t <= w.confidence_interval.high)
    se = np.std(raw, ddof=1) / 10
    assert np.mean(raw) > 0.008  # the curse is there
    assert abs(np.mean(adj)) < np.mean(raw) / 2 and abs(np.mean(adj)) < 0.006 + 2 * se
    assert np.mean(cover) >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 100)


# ----------------------------------------------------------------------------- with clusters (issue 31, item 7)

def _studentized_brute_force(s, rep, se, se_rep, higher, level):
    """The studentized interval of the maximum, replicate by replicate."""
    sign = 1 if higher else -1
    w = max(range(len(s)), key=lambda k: sign * s[k])
    t = []
    for row, row_se in zip(rep, se_rep):
        if not np.isfinite(row).all():
            continue
        k = max(range(len(row)), key=lambda j: sign * row[j])
        t.append((row[k] - s[k]) / row_se[k])
    a = 1 - level
    q_lo, q_hi = np.quantile(t, [a / 2, 1 - a / 2])
    return s[w] - q_hi * se[w], s[w] - q_lo * se[w]


@pytest.mark.parametrize("higher", [True, False])
def test_studentized_winner_interval_matches_a_loop_over_replicates(higher):
    gen = np.random.default_rng(4)
    s = np.array([0.50, 0.49, 0.47, 0.30]) if higher else np.array([0.50, 0.32, 0.31, 0.30])
    se = np.array([0.03, 0.025, 0.035, 0.02])
    rep = s + gen.normal(0, 0.03, (500, 4))
    se_rep = se * gen.uniform(0.6, 1.4, (500, 4))
    rep[[5, 17], 2] = np.nan  # undefined replicates are left out, their SE* with them
    got = winner_score(s, rep, higher_is_better=higher, confidence_level=0.9, standard_errors=(se, se_rep))
    basic = winner_score(s, rep, higher_is_better=higher, confidence_level=0.9)
    assert got[6] == "studentized" and got[:3] == basic[:3] and got[5] == 498  # the same winner, bias, adjusted
    np.testing.assert_allclose(got[3:5], _studentized_brute_force(s, rep, se, se_rep, higher, 0.9), rtol=0, atol=1e-14)


def test_studentized_winner_interval_unbounded_gives_the_basic_one():
    s = np.array([0.6, 0.4])
    gen = np.random.default_rng(5)
    rep = s + gen.normal(0, 0.02, (200, 2))
    se_rep = np.full((200, 2), 0.02)
    se_rep[:20, 0] = 0.0  # 10 % of the replicates cannot studentize the winner: more than α/2 = 2.5 %
    got = winner_score(s, rep, standard_errors=(np.array([0.02, 0.02]), se_rep))
    assert got == winner_score(s, rep)[:6] + ("basic",)


def _clustered_boards():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "benchmarks" / "calibration" / "winner_clusters.py"
    spec = importlib.util.spec_from_file_location("winner_clusters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


WINNER_CLUSTERS = _clustered_boards()


def test_a_clustered_leaderboards_winner_is_studentized_with_the_boards_standard_errors():
    trials = WINNER_CLUSTERS.simulate(np.random.default_rng(6), 15)
    for ci_method in ("studentized", "bc"):  # bc: the standard errors are computed once, on the same replicates
        lb = tw.leaderboard(trials, protocol="accuracy", clusters="cluster", n_resamples=300, ci_method=ci_method,
                            rng=2)
        w = lb.winner()
        k = len(lb.candidates)
        se, se_rep = lb._row_standard_errors.get()
        want = _studentized_brute_force(lb.scores[:k], lb.replicates[:, :k], se[:k], se_rep[:, :k], True, 0.95)
        assert lb.resampled == "clusters" and w.ci_method == "studentized"
        assert tuple(w.confidence_interval) == pytest.approx(want, abs=1e-14)
        assert w.score - w.statistic == pytest.approx(w.bias, abs=1e-14)
        assert "studentized" in w.summary() and w.to_frame()["ci_method"].tolist() == ["studentized"]


def test_clustered_winner_covers_at_fifteen_clusters():
    # 15 clusters of 2–30 questions, ICC 0.3 (docs/validity.md, "The winner's score with clusters"): R = 300
    # boards, B = 200; coverage within 95 % − 3 MC SE (0.0126), where the basic interval of before covered
    # 87.6 % (R = 1,000)
    r = 300
    cover = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for rng in child_rngs(9, r):
            lb = tw.leaderboard(WINNER_CLUSTERS.simulate(rng, 15), protocol="accuracy", clusters="cluster",
                                n_resamples=200, rng=rng)
            w = lb.winner()
            t = dict(zip(WINNER_CLUSTERS.NAMES, WINNER_CLUSTERS.TRUE_ACCURACY))[w.observer]
            cover.append(w.confidence_interval.low <= t <= w.confidence_interval.high)
    assert np.mean(cover) >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / r)


@pytest.mark.slow
@pytest.mark.parametrize("n_clusters", [10, 25])
def test_clustered_winner_calibration(n_clusters):
    # the table of docs/validity.md at R = 1,000 (its own seed): coverage ≥ 93 % − 2 MC SE (0.0081)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        row = WINNER_CLUSTERS.study(1000, 500, (n_clusters,), seed=10)[0]
    assert row["cov"] >= 0.93 - 2 * np.sqrt(0.93 * 0.07 / 1000)
