"""Leaderboards whose items come in clusters (passages, subjects): the bootstrap resamples clusters."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import trialwise as tw
from trialwise.leaderboards.hierarchy import build_design, row_scores
from trialwise.leaderboards.bootstrap import bootstrap_entries_ij
from trialwise._stats.resampling import bootstrap_weights
from trialwise._stats.streams import child_rngs


def _clustered_board(gen, n_clusters=30, size=10, sd_cluster=1.0, models=(0.3, 0.5, 0.7, 0.9)):
    """One condition; item difficulty = cluster effect + item effect; each model right with
    probability Φ(a_m − difficulty). True accuracy Φ(a_m / √(1 + sd_cluster² + 1))."""
    n = n_clusters * size
    cluster = np.repeat(np.arange(n_clusters), size)
    difficulty = gen.normal(0, sd_cluster, n_clusters)[cluster] + gen.normal(0, 1.0, n)
    rows = []
    names = [f"m{k}" for k in range(len(models))]
    for name, a in zip(names, models):
        right = gen.random(n) < stats.norm.cdf(a - difficulty)
        rows.append(pd.DataFrame({"experiment": "e", "condition": "c", "subject": name, "observer_type": "model",
                                  "image": [f"q{i}" for i in range(n)], "truth": "a",
                                  "response": np.where(right, "a", "b"), "cluster": cluster.astype(str)}))
    t = pd.concat(rows, ignore_index=True)
    t["correct"] = t.truth == t.response
    truth = {nm: float(stats.norm.cdf(a / np.sqrt(2 + sd_cluster**2))) for nm, a in zip(names, models)}
    return t, truth


def test_one_item_per_cluster_is_the_item_bootstrap():
    t, _ = _clustered_board(np.random.default_rng(0))
    a = tw.leaderboard(t.assign(cluster=t.image), protocol="accuracy", n_resamples=200, rng=1, clusters="cluster")
    b = tw.leaderboard(t, protocol="accuracy", n_resamples=200, rng=1)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(a.standard_errors, b.standard_errors)
    assert a.table.equals(b.table)


def test_cluster_replicates_and_standard_errors_match_a_brute_force_cluster_bootstrap():
    """Replicate 7: the clusters' draws from the unit's own stream, turned into item weights
    (every item carries its cluster's count), give the same scores; the IJ SE on the data is
    √(Σ_c d_c²) with d_c the derivative of the score in cluster c's weight."""
    t, _ = _clustered_board(np.random.default_rng(1), n_clusters=12, size=5)
    design = build_design(t, tw.leaderboards.ACCURACY, clusters=t.cluster.to_numpy())
    ij = bootstrap_entries_ij(design, 10, rng=5)
    (unit,) = design.units
    w_cl = np.concatenate(list(bootstrap_weights(int(unit.clusters.max()) + 1, 10, rng=child_rngs(5, 1)[0])))
    r, s = unit.right.astype(float), unit.seen.astype(float)
    a, b = unit.pairs[:, 0], unit.pairs[:, 1]

    def scores(w_items):
        sums = [w_items @ (s[:, a] * s[:, b]), w_items @ (r[:, a] * r[:, b]), w_items @ (r[:, a] * s[:, b]),
                w_items @ (s[:, a] * r[:, b])]
        values = np.full(design.n_entries, np.nan)
        values[unit.entries] = sums[2] / sums[0]
        return row_scores(values, design)

    np.testing.assert_allclose(row_scores(ij.entries[7].astype(float), design)[:-1],
                               scores(w_cl[7][unit.clusters].astype(float))[:-1], rtol=1e-6)
    eps, var = 1e-6, 0.0
    for c in range(w_cl.shape[1]):
        up = np.ones(w_cl.shape[1]); up[c] += eps
        dn = np.ones(w_cl.shape[1]); dn[c] -= eps
        var = var + ((scores(up[unit.clusters]) - scores(dn[unit.clusters])) / (2 * eps)) ** 2
    np.testing.assert_allclose(ij.standard_errors[:-1], np.sqrt(var)[:-1], rtol=1e-5)


def test_clusters_bad_input():
    t, _ = _clustered_board(np.random.default_rng(2))
    with pytest.raises(ValueError, match=r"`clusters`: 'nope' is not a column"):
        tw.leaderboard(t, protocol="accuracy", n_resamples=20, clusters="nope")
    bad = t.copy()
    bad.loc[0, "cluster"] = "other"  # item q0 carries two labels
    with pytest.raises(ValueError, match=r"`clusters`: item 'q0' .* more than one cluster label"):
        tw.leaderboard(bad, protocol="accuracy", n_resamples=20, clusters="cluster")
    missing = t.copy()
    missing.loc[3, "cluster"] = None
    with pytest.raises(ValueError, match=r"must give every trial a cluster label; 1 trial"):
        tw.leaderboard(missing, protocol="accuracy", n_resamples=20, clusters="cluster")
    with pytest.raises(TypeError, match="`clusters` must be the name of a column"):
        tw.leaderboard(t, protocol="accuracy", n_resamples=20, clusters=3)


@pytest.mark.slow
def test_cluster_bootstrap_covers_where_the_item_bootstrap_does_not():
    """R = 150 boards of 30 clusters × 10 questions, cluster SD 1 (ICC of difficulty 0.5), B = 300:
    per-model 95 % intervals for accuracy."""
    gen = np.random.default_rng(20261123)
    cover = {"items": [], "clusters": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for _ in range(150):
            t, truth = _clustered_board(gen)
            seed = int(gen.integers(2**31))
            for kind, cl in (("items", None), ("clusters", "cluster")):
                tab = tw.leaderboard(t, protocol="accuracy", n_resamples=300, rng=seed,
                                     clusters=cl).table.set_index("observer")
                cover[kind] += [tab.loc[m, "ci_low"] <= truth[m] <= tab.loc[m, "ci_high"] for m in truth]
    se = np.sqrt(0.05 * 0.95 / len(cover["items"]))
    assert np.mean(cover["items"]) < 0.95 - 5 * se  # resampling items under-covers badly
    assert abs(np.mean(cover["clusters"]) - 0.95) < 4 * se + 0.01


def test_the_report_says_what_was_resampled_and_shows_agreement_only_between_observers():
    from trialwise.report.leaderboard import render_report

    t, _ = _clustered_board(np.random.default_rng(5), n_clusters=8, size=5)
    clustered = tw.leaderboard(t, protocol="accuracy", n_resamples=50, rng=0, clusters="cluster")
    plain = tw.leaderboard(t, protocol="accuracy", n_resamples=50, rng=0)
    assert (clustered.resampled, plain.resampled) == ("clusters", "items")
    html_c, html_p = render_report(clustered).html, render_report(plain).html
    assert "clusters of items resampled within each condition" in html_c
    assert "): items resampled within each condition" in html_p
    # against the always-right oracle the observed agreement is the accuracy: no agreement figure
    assert "Observed vs expected agreement" not in html_c + html_p
    humans = t.assign(observer_type=np.where(t.subject.isin(["m0", "m1"]), "human", "model"))
    ec = tw.leaderboard(humans, protocol=tw.leaderboards.Protocol(name="ec", min_items=5), n_resamples=50, rng=0)
    assert "Observed vs expected agreement" in render_report(ec).html
