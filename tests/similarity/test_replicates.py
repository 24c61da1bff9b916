"""Agreement and EC from repeated runs (issue 31, item 3): pairwise_agreement on a table with a `replicate`
column against explicit loops over replicate pairs, the case K = 1 equal to today's numbers, errors, and
the calibration of the EC interval with replicates (a naive interval that takes runs for questions under-covers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import trialwise as tw


def _replicated(seed=0, n_q=50, flip=0.3, drop_third_of=15):
    """The bundled demo log, run three times with 30 % of responses redrawn; some questions with only two runs."""
    rng = np.random.default_rng(seed)
    d = tw.datasets.llm_demo()
    qs = d.image.unique()[:n_q]
    d = d[d.image.isin(qs)]
    parts = []
    for r in (1, 2, 3):
        x = d.copy()
        redraw = rng.random(len(x)) < flip
        x["response"] = np.where(redraw, rng.integers(0, 4, len(x)).astype(str), x.response.astype(str).to_numpy())
        x["correct"] = x.response.astype(str) == x.truth.astype(str)
        p = np.stack(x.probabilities.to_numpy()) * rng.uniform(0.5, 1.5, (len(x), 4))
        x["probabilities"] = list(map(tuple, p / p.sum(1, keepdims=True)))
        parts.append(x.assign(replicate=r))
    t = pd.concat(parts, ignore_index=True)
    return t[~((t.replicate == 3) & t.image.isin(qs[:drop_third_of]))].reset_index(drop=True), list(qs)


def _brute(t, qs, a, b, metric):
    """Every replicate pair (r, s) of the two models on every question, by explicit loops."""
    obs, pa, pb, inv = [], [], [], []
    for q in qs:
        rows = {m: t[(t.subject == m) & (t.image == q)] for m in (a, b)}
        truth = int(rows[a].truth.iloc[0])
        k = 2 if metric == "ec" else 4
        vec = {}
        for m, r in rows.items():
            if metric == "ec":
                vec[m] = [np.array([1.0 - c, float(c)]) for c in r.correct]
            elif metric == "capa":
                vec[m] = [np.array(p) for p in r.probabilities]
            else:
                vec[m] = [np.eye(4)[int(x)] for x in r.response]
        obs.append(np.mean([x @ y for x in vec[a] for y in vec[b]]))
        i = 1 if metric == "ec" else truth
        pa.append(np.mean([x[i] for x in vec[a]]))
        pb.append(np.mean([y[i] for y in vec[b]]))
        inv.append(1 / (k - 1))
    c_obs, p_a, p_b = np.mean(obs), np.mean(pa), np.mean(pb)
    c_exp = p_a * p_b + np.mean(inv) * (1 - p_a) * (1 - p_b)
    with np.errstate(invalid="ignore", divide="ignore"):  # one question: κ may be undefined
        return c_obs, (c_obs - c_exp) / (1 - c_exp)


@pytest.mark.parametrize("metric", ["choice", "capa-discrete", "capa", "ec"])
def test_every_replicate_pair_counts(metric):
    t, qs = _replicated()
    res = tw.pairwise_agreement(t, metric=metric, n_resamples=50, rng=0)
    for i, (a, b) in enumerate(zip(res.observer_a, res.observer_b)):
        c_obs, kappa = _brute(t, qs, a, b, metric)
        assert res.c_obs[i] == pytest.approx(c_obs, abs=1e-12)
        assert res.statistic[i] == pytest.approx(c_obs if metric == "choice" else kappa, abs=1e-12)
    assert res.method == metric and any(getattr(n, "kind", "") == "replicates" for n in res.notes)


@pytest.mark.parametrize("metric", ["choice", "capa-discrete", "capa", "ec"])
def test_one_replicate_each_gives_todays_numbers_exactly(metric):
    d = tw.datasets.llm_demo()
    kw = dict(metric=metric, n_resamples=200, rng=3, clusters="cluster")
    old = tw.pairwise_agreement(d, **kw).to_frame()
    new = tw.pairwise_agreement(d.assign(replicate=1), **kw).to_frame()
    pd.testing.assert_frame_equal(old, new)


def test_the_bootstrap_resamples_questions_with_all_their_replicates():
    """The replicates of the choice agreement are the bootstrap of the per-question replicate-pair means."""
    t, qs = _replicated(seed=1)
    res = tw.pairwise_agreement(t, metric="choice", n_resamples=400, rng=5)
    dist = res.bootstrap_distribution[:, 0]
    a, b = res.observer_a[0], res.observer_b[0]
    per_q = [_brute(t, [q], a, b, "choice")[0] for q in qs]
    # mean and spread of the replicates match those of the question-level bootstrap (Monte-Carlo tolerance)
    se = np.std(per_q, ddof=1) / np.sqrt(len(qs))
    assert dist.mean() == pytest.approx(np.mean(per_q), abs=4 * se / np.sqrt(400) + 1e-9)
    assert dist.std() == pytest.approx(se, rel=0.2)


def test_a_replicate_number_given_twice_is_an_error():
    t, _ = _replicated()
    t.loc[t.replicate == 2, "replicate"] = 1
    with pytest.raises(tw.InvalidValueError, match=r"has replicate 1 of question .* more than once"):
        tw.pairwise_agreement(t, metric="choice", n_resamples=10)


def test_a_model_missing_a_question_is_still_an_error_with_replicates():
    t, qs = _replicated()
    t = t[~((t.subject == t.subject.iloc[0]) & (t.image == qs[0]))]
    with pytest.raises(tw.InvalidValueError, match="answers 49 of the 50 questions"):
        tw.pairwise_agreement(t, metric="choice", n_resamples=10)


# --------------------------------------------------------------------------- calibration


def coverage_of_ec(n_sets: int, seed: int, n_q: int = 80, max_k: int = 4):
    """Two models whose runs are independent given the question, question difficulty shared (logit-normal), so
    that the population EC (κ of P(both right | q) averaged over questions against the product of the mean
    accuracies) is positive; K = 1..max_k runs: how often the replicate-aware EC interval holds it, and how
    often the interval of today's EC holds it when the runs, paired by replicate number, are taken for
    separate questions (reported, not asserted: docs/validity.md, "Repeated runs")."""
    zz = np.random.default_rng(12345).normal(0, 1.5, 2_000_000)
    pa, pb = 1 / (1 + np.exp(-(zz + 0.3))), 1 / (1 + np.exp(-(zz - 0.2)))
    c_obs = np.mean(pa * pb + (1 - pa) * (1 - pb))
    c_exp = pa.mean() * pb.mean() + (1 - pa.mean()) * (1 - pb.mean())
    truth = (c_obs - c_exp) / (1 - c_exp)
    rng = np.random.default_rng(seed)
    hit = naive_hit = 0
    for _ in range(n_sets):
        z = rng.normal(0, 1.5, n_q)
        rows = []
        for m, shift in (("a", 0.3), ("b", -0.2)):
            p = 1 / (1 + np.exp(-(z + shift)))
            for q in range(n_q):
                for r in range(1, 1 + int(rng.integers(1, max_k + 1))):
                    c = bool(rng.random() < p[q])
                    rows.append((m, f"q{q}", r, c))
        t = pd.DataFrame(rows, columns=["subject", "image", "replicate", "correct"]).assign(
            truth="0", n_options=2)
        t["response"] = np.where(t.correct, "0", "1")
        res = tw.pairwise_agreement(t, metric="ec", n_resamples=300, rng=rng)
        hit += res.confidence_interval.low[0] <= truth <= res.confidence_interval.high[0]
        # naive: each run its own question, runs of a and b paired by replicate number where both exist
        wide = t.pivot_table(index=["image", "replicate"], columns="subject", values="correct").dropna()
        naive = tw.error_consistency(wide["a"].to_numpy(bool), wide["b"].to_numpy(bool), n_resamples=300, rng=rng)
        naive_hit += naive.confidence_interval.low <= truth <= naive.confidence_interval.high
    return hit / n_sets, naive_hit / n_sets


def test_the_ec_interval_with_replicates_covers_light():
    # 60 data sets: Monte-Carlo SE of a 95 % coverage ≈ 2.8 points
    cover, _ = coverage_of_ec(60, seed=21)
    assert cover >= 0.85


@pytest.mark.slow
def test_the_ec_interval_with_replicates_covers():
    # 1,000 data sets: Monte-Carlo SE ≈ 0.7 points
    cover, _ = coverage_of_ec(1000, seed=22)
    assert cover >= 0.93


def _brute_self(t, qs, m, metric):
    """A model with itself: every ordered pair of two different runs r ≠ s of a question, by explicit loops."""
    obs, acc, inv = [], [], []
    for q in qs:
        rows = t[(t.subject == m) & (t.image == q)]
        if len(rows) < 2:
            continue
        truth = int(rows.truth.iloc[0])
        if metric == "ec":
            vec, i, k = [np.array([1.0 - c, float(c)]) for c in rows.correct], 1, 2
        elif metric == "capa":
            vec, i, k = [np.array(p) for p in rows.probabilities], truth, 4
        else:
            vec, i, k = [np.eye(4)[int(x)] for x in rows.response], truth, 4
        obs.append(np.mean([vec[r] @ vec[s] for r in range(len(vec)) for s in range(len(vec)) if r != s]))
        acc.append(np.mean([x[i] for x in vec]))
        inv.append(1 / (k - 1))
    c_obs, p = np.mean(obs), np.mean(acc)
    c_exp = p * p + np.mean(inv) * (1 - p) ** 2
    return c_obs, (c_obs - c_exp) / (1 - c_exp), len(obs)


@pytest.mark.parametrize("metric", ["choice", "capa-discrete", "capa", "ec"])
def test_self_agreement_counts_every_pair_of_different_runs(metric):
    t, qs = _replicated(seed=2)
    # one question of the first model run once only: left out of its self-agreement
    first = t.subject.iloc[0]
    t = t[~((t.subject == first) & (t.image == qs[-1]) & (t.replicate > 1))]
    res = tw.similarity.self_agreement(t, metric=metric, n_resamples=200, rng=0)
    assert list(res.observer_a) == list(res.observer_b) == list(res.observers)
    for i, m in enumerate(res.observers):
        c_obs, kappa, n = _brute_self(t, qs, m, metric)
        assert res.c_obs[i] == pytest.approx(c_obs, abs=1e-12)
        assert res.statistic[i] == pytest.approx(c_obs if metric == "choice" else kappa, abs=1e-12)
        assert res.n[i] == n
        assert res.confidence_interval.low[i] <= res.statistic[i] <= res.confidence_interval.high[i]
    assert res.n[0] == len(qs) - 1


def test_self_agreement_with_clusters_is_the_cluster_jackknife():
    t, _ = _replicated(seed=3, n_q=120)
    with pytest.warns(tw.DegenerateDataWarning, match="clusters"):  # the demo's 8 subjects
        res = tw.similarity.self_agreement(t, metric="capa", clusters="cluster", n_resamples=100, rng=0)
    assert res.ci_method == "jackknife-t" and res.n_clusters == t.cluster.nunique()


def test_self_agreement_needs_repeated_runs():
    d = tw.datasets.llm_demo()
    with pytest.raises(tw.InvalidValueError, match="has no column 'replicate'"):
        tw.similarity.self_agreement(d)
    with pytest.raises(tw.InvalidValueError, match="no model has two runs of a question"):
        tw.similarity.self_agreement(d.assign(replicate=1))
    with pytest.raises(tw.InvalidTypeError, match="must be a trial table.*got ndarray"):
        tw.similarity.self_agreement(np.zeros((2, 3, 4)))


def test_self_agreement_of_a_model_run_once_is_undefined_for_its_own_reason():
    """A model with one run per question beside one with several: NaN with the reason 'no question with two
    runs' (one warning), not the chance-agreement wording of a model always right (found on made-up Inspect logs)."""
    import pandas as pd

    rows = [("many", q, r, str((q + r) % 2)) for q in range(6) for r in (1, 2)] + [("once", q, 1, "0") for q in range(6)]
    trials = pd.DataFrame(rows, columns=["subject", "image", "replicate", "response"]).assign(truth="0", n_options=2)
    with pytest.warns(tw.DegenerateDataWarning, match=r"self-agreement undefined \(NaN\) for once: no question with "
                                                      r"two runs") as caught:
        res = tw.similarity.self_agreement(trials, metric="choice", n_resamples=0)
    assert not any("c_exp" in str(w.message) for w in caught)
    row = dict(zip(res.observer_a, res.statistic))
    assert np.isnan(row["once"]) and row["many"] == 0.0  # runs 1 and 2 always differ
    assert "no pair of runs" in str(res.pair_notes[list(res.observer_a).index("once")][0])
