"""The accuracy leaderboard (issue 16 item 3): ``tw.leaderboard(trials, protocol="accuracy")``.

Oracles: a pandas groupby of the trials (the score), the binomial standard error (the
infinitesimal jackknife), statsmodels' exact McNemar test (the swap test on one
condition); calibration on simulated boards with known true accuracies.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

import trialwise as tw
from trialwise.leaderboards.protocol import GROUND_TRUTH, metric_from_sums, metric_gradient


def simulated_board(true_acc: np.ndarray, n_items: np.ndarray, rng: np.random.Generator, *,
                    partial: float = 0.0) -> pd.DataFrame:
    """Trials of ``true_acc`` (models × units) on ``n_items[u]`` items of unit u; units are
    (experiment, condition) pairs e0/c0, e0/c1, e1/c0, … (two conditions per experiment, the
    last experiment with one). ``partial``: share of (model, item) trials dropped."""
    rows = []
    for u, n in enumerate(n_items):
        exp, cond = f"e{u // 2}", f"c{u % 2}"
        right = rng.random((len(true_acc), n)) < true_acc[:, u, None]
        keep = rng.random(right.shape) >= partial
        for m in range(len(true_acc)):
            items = np.flatnonzero(keep[m])
            rows.append(pd.DataFrame({"experiment": exp, "condition": cond, "subject": f"m{m}",
                                      "observer_type": "model", "image": [f"{exp}-{cond}-{i}" for i in items],
                                      "truth": "cat", "response": np.where(right[m, items], "cat", "dog")}))
    return tw.read_trials(pd.concat(rows, ignore_index=True))


def hierarchical_mean(frame: pd.DataFrame, column: str) -> pd.Series:
    """Mean over conditions within experiments, then over experiments, per subject (brute force)."""
    per_cond = frame.groupby(["subject", "experiment", "condition"])[column].mean()
    return per_cond.groupby(["subject", "experiment"]).mean().groupby("subject").mean()


@pytest.fixture(scope="module")
def board() -> tuple[pd.DataFrame, tw.leaderboards.Leaderboard]:
    rng = np.random.default_rng(3)
    acc = rng.uniform(0.55, 0.9, size=(5, 5))
    trials = simulated_board(acc, np.array([60, 90, 40, 120, 70]), rng, partial=0.1)
    with pytest.warns(tw.TrialwiseWarning, match="lack"):  # partial items, as in real data
        lb = tw.leaderboard(trials, protocol=tw.leaderboards.ACCURACY, n_resamples=300, rng=0)
    return trials, lb


def test_score_is_the_hierarchical_mean_of_accuracies(board):
    trials, lb = board
    expected = hierarchical_mean(trials.assign(correct=trials["correct"].astype(float)), "correct")
    got = lb.table.set_index("observer")["score"]
    assert set(got.index) == set(expected.index)
    np.testing.assert_allclose(got[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


def test_bundled_sample_scores_every_observer_and_has_no_reference_row():
    t = tw.read_trials(tw.datasets.model_vs_human_sample())
    lb = tw.leaderboard(t, protocol="accuracy", n_resamples=100, rng=0)
    assert set(lb.table["observer"]) == set(t["subject"])  # humans are candidates too
    assert (lb.table["kind"] == "candidate").all() and lb.references == (GROUND_TRUTH,)
    assert lb.table["score"].notna().all() and lb.table["rank"].notna().all()
    assert "ground truth" not in lb.summary().split("\n", 1)[1] and "alike" not in lb.summary()
    assert GROUND_TRUTH not in "".join(lb.to_frame()["observer"])
    assert set(lb.by_experiment().table["observer"]) == set(t["subject"])
    assert not lb.notes  # no "one reference observer" note
    expected = hierarchical_mean(t.assign(correct=t["correct"].astype(float)), "correct")
    np.testing.assert_allclose(lb.table.set_index("observer")["score"][expected.index], expected, atol=1e-12)


def test_accuracy_metric_and_its_gradient():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 50, 20).astype(float)
    ca = np.floor(rng.random(20) * (n + 1))
    sums = (n, ca, ca, n)  # the pair (candidate, ground truth)
    np.testing.assert_allclose(metric_from_sums("accuracy", *sums), ca / n, atol=1e-15)
    g = metric_gradient("accuracy", *sums)
    h = 1e-6
    for k in range(4):
        up = [s.copy() for s in sums]
        up[k] = up[k] + h
        numeric = (metric_from_sums("accuracy", *up) - metric_from_sums("accuracy", *sums)) / h
        np.testing.assert_allclose(g[k], numeric, atol=1e-5)
    np.testing.assert_allclose(np.einsum("k...,k...->...", g, np.stack(sums)), 0.0, atol=1e-12)


def test_standard_error_is_the_binomial_one(board):
    trials, lb = board
    # IJ variance of a hierarchical mean of accuracies: sum over conditions of w² p(1 − p)/n
    acc = trials.groupby(["subject", "experiment", "condition"])["correct"].agg(["mean", "size"])
    n_cond = acc.groupby(["subject", "experiment"]).size()
    n_exp = acc.reset_index().groupby("subject")["experiment"].nunique()
    rows = acc.reset_index()
    w = 1.0 / (rows.set_index(["subject", "experiment"]).index.map(n_cond).to_numpy()
               * rows["subject"].map(n_exp).to_numpy())
    rows["var"] = w**2 * rows["mean"] * (1 - rows["mean"]) / rows["size"]
    expected = np.sqrt(rows.groupby("subject")["var"].sum())
    se = pd.Series(lb.standard_errors[:len(lb.candidates)], index=lb.candidates)
    np.testing.assert_allclose(se[expected.index], expected, rtol=1e-9)


def test_swap_test_is_mcnemar_on_one_condition():
    rng = np.random.default_rng(7)
    trials = simulated_board(np.array([[0.70], [0.62]]), np.array([300]), rng)
    lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=20, rng=1)
    m = 40_000
    res = lb.difference("m0", "m1", test="swap", n_resamples=m)
    wide = trials.pivot(index="image", columns="subject", values="correct")
    table = pd.crosstab(wide["m0"], wide["m1"]).to_numpy()
    exact = mcnemar(table, exact=True).pvalue
    assert 0.001 < exact < 0.5  # a case where the comparison is informative
    se = np.sqrt(exact * (1 - exact) / m)
    assert abs(res.pvalue - exact) < 4 * se + 1 / m  # Monte-Carlo error (4 SE)
    assert res.statistic == pytest.approx((table[1, 0] - table[0, 1]) / 300, abs=1e-12)


@pytest.mark.slow
def test_intervals_and_rank_sets_are_calibrated_on_accuracy_boards():
    """R = 150 boards of 6 models (two tied at the top) × 3 conditions in 2 experiments, 80–150
    items per condition, B = 300. Per-model coverage of the 95 % studentized CI must be within
    3 Monte-Carlo SE of 0.95 (SE over 900 intervals ≈ 0.007); the simultaneous rank sets
    must hold all true ranks at once in ≥ 95 % − 3 SE of the boards (SE ≈ 0.018)."""
    rng = np.random.default_rng(2026)
    base = np.array([0.80, 0.80, 0.76, 0.72, 0.70, 0.60])
    acc = np.clip(base[:, None] + np.array([0.05, -0.05, 0.0]), 0, 1)
    truth = acc[:, :2].mean(axis=1) / 2 + acc[:, 2] / 2  # e0: c0, c1; e1: c0
    n_items = np.array([80, 150, 120])
    r = 150
    cover, joint, best = [], [], []
    for _ in range(r):
        trials = simulated_board(acc, n_items, rng)
        lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=300, rng=rng)
        t = lb.table.set_index("observer").loc[[f"m{i}" for i in range(6)]]
        cover.append(((t["ci_low"] <= truth) & (truth <= t["ci_high"])).to_numpy())
        # the true rank of Mogstad et al. (2024): 1 + the number of models truly better (ties share it)
        true_rank = 1 + (truth[None, :] > truth[:, None]).sum(axis=1)
        joint.append(bool(((t["rank_set_low"] <= true_rank) & (true_rank <= t["rank_set_high"])).all()))
        best.append(bool(t["in_best_set"].to_numpy()[:2].all()))
    cover_rate = np.mean(cover)
    assert abs(cover_rate - 0.95) < 3 * np.sqrt(0.95 * 0.05 / (6 * r)) + 0.01  # + 0.01: boards are not independent per model
    assert np.mean(joint) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / r)
    assert np.mean(best) >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / r)


def test_command_line_accuracy_leaderboard(tmp_path, capsys):
    from trialwise.cli import main

    sample = tw.read_trials(tw.datasets.model_vs_human_sample())
    f, out = tmp_path / "t.csv", tmp_path / "board.csv"
    sample.to_csv(f, index=False)
    code = main(["leaderboard", str(f), "--protocol", "accuracy", "--resamples", "50", "--seed", "0",
                 "--tests", "none", "--csv", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    table = pd.read_csv(out).set_index("observer")
    assert set(table.index) == set(sample["subject"]) and (table["status"] == "scored").all()
    expected = hierarchical_mean(sample.assign(correct=sample["correct"].astype(float)), "correct")
    np.testing.assert_allclose(table.loc[expected.index, "score"], expected, atol=1e-12)


def test_difference_test_of_accuracies_uses_only_the_two_observers():
    """tw.leaderboards.difference_test with protocol="accuracy" scores x and y alone (no reference group), so
    its difference and p-value equal those of a leaderboard of the two."""
    sample = tw.datasets.model_vs_human_sample()
    res = tw.leaderboards.difference_test(sample, "clip-16", "resnet50", protocol="accuracy", test="swap", n_resamples=300,
                             rng=4)
    two = sample[sample.subject.isin(["clip-16", "resnet50"])]
    lb = tw.leaderboard(two, protocol="accuracy", n_resamples=300, rng=4)
    direct = lb.difference("clip-16", "resnet50", test="swap")
    assert set(lb.candidates) == {"clip-16", "resnet50"}
    assert res.statistic == direct.statistic and res.pvalue == direct.pvalue
    assert res.confidence_interval == direct.confidence_interval
