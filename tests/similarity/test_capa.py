"""Agreement between classifiers (issue 18): CAPA κ_p, its discrete form, choice agreement.

Oracles: lm-sim 0.1.1 (the reference code of CAPA) for point values; a brute-force index
bootstrap (the data repeated by the engine's weights, scored by lm-sim) for the replicates;
:func:`trialwise.pairwise_error_consistency` for ``metric="ec"``. Calibration: coverage on a
simulated benchmark with known κ_p (true value from 10**6 questions), with and without
clustered questions.
"""

from __future__ import annotations

import functools
import importlib
import re
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest
from lmsim.metrics import CAPA, EC

import trialwise as tw
from trialwise.similarity.gram import gram_chunk_questions, gram_sums
from trialwise._stats.resampling import bootstrap_weights


def _probs(rng, n, k=4, concentration=1.0):
    return rng.dirichlet(np.full(k, concentration), n)


def _related(rng, n, k=4):
    """Two models that share part of their logits, and the truth."""
    truth = rng.integers(0, k, n)
    shared = rng.normal(size=(n, k))
    out = []
    for skill in (1.5, 0.8):
        z = 0.7 * shared + 0.7 * rng.normal(size=(n, k))
        z[np.arange(n), truth] += skill
        e = np.exp(z)
        out.append(e / e.sum(1, keepdims=True))
    return out[0], out[1], truth


def _one_hot(p):
    return np.eye(p.shape[1])[p.argmax(1)]


# ----------------------------------------------------------------------------- point values vs lm-sim

@pytest.mark.parametrize("seed", range(5))
def test_capa_equals_lmsim(seed):
    rng = np.random.default_rng(seed)
    a, b, t = _related(rng, 80, k=2 + seed)
    res = tw.agreement(a, b, t, n_resamples=50, rng=0)
    oracle = CAPA()
    assert res.statistic == pytest.approx(oracle.compute_k(a, b, t), abs=1e-12)
    assert res.c_obs == pytest.approx(oracle.observed, abs=1e-12)
    assert res.c_exp == pytest.approx(oracle.expected, abs=1e-12)
    assert (res.p_correct_a, res.p_correct_b) == pytest.approx((oracle.p_hat_a, oracle.p_hat_b), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_discrete_capa_and_ec_equal_lmsim(seed):
    rng = np.random.default_rng(10 + seed)
    a, b, t = _related(rng, 120)
    disc = tw.agreement(a, b, t, metric="capa-discrete", n_resamples=50, rng=0)
    assert disc.statistic == pytest.approx(CAPA(prob=False).compute_k(_one_hot(a), _one_hot(b), t), abs=1e-12)
    ec = tw.agreement(a, b, t, metric="ec", n_resamples=50, rng=0)
    assert ec.statistic == pytest.approx(EC().compute_k(a, b, t), abs=1e-12)
    assert ec.pvalue is not None and 0 < ec.pvalue <= 1


def test_ragged_option_counts_equal_lmsim():
    rng = np.random.default_rng(3)
    k = rng.integers(2, 6, 60)
    a = [rng.dirichlet(np.ones(j)) for j in k]
    b = [0.5 * x + 0.5 * rng.dirichlet(np.ones(j)) for x, j in zip(a, k)]
    t = [int(rng.integers(0, j)) for j in k]
    res = tw.agreement(a, b, t, n_resamples=50, rng=0)
    assert res.statistic == pytest.approx(CAPA().compute_k(a, b, t), abs=1e-12)


def test_choice_agreement_is_the_share_of_equal_choices_and_symmetric():
    rng = np.random.default_rng(4)
    a, b, t = _related(rng, 90)
    res = tw.agreement(a, b, metric="choice", n_resamples=50, rng=0)
    assert res.statistic == pytest.approx(np.mean(a.argmax(1) == b.argmax(1)), abs=1e-15)
    for metric in ("capa", "capa-discrete", "choice"):
        ab = tw.agreement(a, b, t, metric=metric, n_resamples=50, rng=0).statistic
        ba = tw.agreement(b, a, t, metric=metric, n_resamples=50, rng=0).statistic
        assert ab == pytest.approx(ba, abs=1e-14)


# ----------------------------------------------------------------------------- the bootstrap vs brute force

@pytest.mark.parametrize("clustered", [False, True])
def test_replicates_equal_a_brute_force_index_bootstrap(clustered):
    rng = np.random.default_rng(5)
    a, b, t = _related(rng, 40)
    clusters = np.repeat(np.arange(10), 4) if clustered else None
    res = tw.agreement(a, b, t, clusters=clusters, n_resamples=30, rng=7)
    n_units = 10 if clustered else 40
    weights = next(bootstrap_weights(n_units, 30, rng=np.random.default_rng(7)))
    for w, value in zip(weights, res.bootstrap_distribution):
        reps = np.repeat(np.arange(n_units), w)
        idx = np.concatenate([np.arange(4 * u, 4 * u + 4) for u in reps]) if clustered else reps
        assert value == pytest.approx(CAPA().compute_k(a[idx], b[idx], t[idx]), abs=1e-10)
    assert res.n_clusters == n_units


def _table(probs, truth, clusters=None):
    rows = []
    for m, p in probs.items():
        for q in range(len(truth)):
            rows.append(dict(condition="task", subject=m, image=f"q{q}", truth=str(truth[q]),
                             response=str(int(np.argmax(p[q]))), n_options=p.shape[1],
                             probabilities=tuple(p[q]), cluster=None if clusters is None else clusters[q]))
    return pd.DataFrame(rows)


def test_pairwise_is_jointly_the_single_pair_result():
    rng = np.random.default_rng(6)
    a, b, t = _related(rng, 60)
    c = 0.5 * a + 0.5 * _probs(rng, 60)
    clusters = np.repeat(np.arange(12), 5)
    trials = _table({"A": a, "B": b, "C": c}, t, clusters)
    res = tw.pairwise_agreement(trials, clusters="cluster", n_resamples=200, rng=3)
    assert res.to_frame()[["observer_a", "observer_b"]].values.tolist() == [["A", "B"], ["A", "C"], ["B", "C"]]
    for (x, y), (px, py) in {("A", "C"): (a, c), ("C", "B"): (c, b)}.items():
        one = tw.agreement(px, py, t, clusters=clusters, n_resamples=200, rng=3)
        pair = res.pair(x, y)
        assert pair.statistic == pytest.approx(one.statistic, abs=1e-12)
        np.testing.assert_allclose(pair.bootstrap_distribution, one.bootstrap_distribution, atol=1e-12)
        assert tuple(pair.confidence_interval) == pytest.approx(tuple(one.confidence_interval), abs=1e-12)
        assert pair.p_correct_a == pytest.approx(one.p_correct_a)


def test_pairwise_discrete_and_choice_use_the_logged_response():
    rng = np.random.default_rng(8)
    a, b, t = _related(rng, 50)
    trials = _table({"A": a, "B": b}, t)
    for metric in ("capa-discrete", "choice"):
        pw = tw.pairwise_agreement(trials, metric=metric, n_resamples=100, rng=0).statistic[0]
        one = tw.agreement(a, b, t, metric=metric, n_resamples=100, rng=0).statistic
        assert pw == pytest.approx(one, abs=1e-12)


def test_pairwise_ec_is_pairwise_error_consistency():
    trials = tw.datasets.llm_demo()
    res = tw.pairwise_agreement(trials, metric="ec", n_resamples=300, rng=0)
    wide = trials.assign(item=trials.condition + "/" + trials.image).pivot(index="item", columns="subject",
                                                                            values="correct")
    ec = tw.pairwise_error_consistency(wide[list(res.observers)].astype(bool), n_resamples=300, rng=0)
    np.testing.assert_allclose(res.statistic, ec.statistic, atol=1e-12)
    np.testing.assert_allclose(res.pvalue, ec.pvalue, atol=1e-12)
    assert res.method == "ec" and res.ci_method == "jeffreys"


def test_frame_has_the_pairwise_error_consistency_columns():
    res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=100, rng=0)
    ec_cols = tw.ec.PairwiseErrorConsistencyResult.frame_columns[:7]
    assert tuple(res.to_frame().columns[:7]) == ec_cols
    m = res.matrix()
    assert np.allclose(m.values, m.values.T, equal_nan=True)


# ----------------------------------------------------------------------------- point values at scale: the Gram path

def _padded(rng, n_models, n, k_max, ragged):
    """A (models × n × k_max) array of probabilities, zero beyond each question's option count."""
    k = rng.integers(2, k_max + 1, n) if ragged else np.full(n, k_max)
    t = np.array([rng.integers(0, j) for j in k])
    shared = [rng.dirichlet(np.ones(j)) for j in k]
    out = np.zeros((n_models, n, k_max))
    for m in range(n_models):
        w = rng.uniform(0, 1)
        for q, j in enumerate(k):
            out[m, q, :j] = w * shared[q] + (1 - w) * rng.dirichlet(np.full(j, 0.5))
    return out, k, t


@pytest.mark.parametrize("n_models,n,k_max,ragged", [(3, 40, 2, False), (4, 70, 5, True), (5, 33, 4, False)])
def test_gram_path_equals_the_pair_columns_and_lmsim(n_models, n, k_max, ragged):
    rng = np.random.default_rng(n_models * 100 + n)
    probs, k, t = _padded(rng, n_models, n, k_max, ragged)
    res = tw.pairwise_agreement(probs, truth=t, n_options=k, n_resamples=0)
    assert len(res) == n_models * (n_models - 1) // 2 and res.bootstrap_distribution.shape == (0, len(res))
    assert np.isnan(res.confidence_interval.low).all() and np.isnan(res.pvalue).all() and res.n_clusters == n
    assert "point values only (n_resamples = 0)" in res.summary()
    boot = tw.pairwise_agreement(probs, truth=t, n_options=k, n_resamples=20, rng=0)  # point values beside a bootstrap
    for i, (a, b) in enumerate(zip(res.observer_a, res.observer_b)):
        rows_a, rows_b = [probs[a, q, :j] for q, j in enumerate(k)], [probs[b, q, :j] for q, j in enumerate(k)]
        oracle = CAPA()
        assert res.statistic[i] == pytest.approx(oracle.compute_k(rows_a, rows_b, t), abs=1e-12)
        assert (res.c_obs[i], res.c_exp[i]) == pytest.approx((oracle.observed, oracle.expected), abs=1e-12)
        assert (res.p_correct_a[i], res.p_correct_b[i]) == pytest.approx((oracle.p_hat_a, oracle.p_hat_b), abs=1e-12)
        one = tw.agreement(rows_a, rows_b, t, n_resamples=0)  # the per-question column path
        assert res.statistic[i] == pytest.approx(one.statistic, abs=1e-12) and one.pvalue is None
        assert boot.statistic[i] == pytest.approx(one.statistic, abs=1e-12)
        hard = [np.eye(j)[r.argmax()] for r, j in zip(rows_a, k)], [np.eye(j)[r.argmax()] for r, j in zip(rows_b, k)]
        disc = tw.pairwise_agreement(probs, truth=t, n_options=k, metric="capa-discrete", n_resamples=0)
        assert disc.statistic[i] == pytest.approx(CAPA(prob=False).compute_k(*hard, t), abs=1e-12)
        choice = tw.pairwise_agreement(probs, truth=t, n_options=k, metric="choice", n_resamples=0)
        assert choice.statistic[i] == pytest.approx(np.mean(probs[a].argmax(1) == probs[b].argmax(1)), abs=1e-15)


def test_array_entry_equals_the_trial_table_for_every_metric():
    rng = np.random.default_rng(12)
    a, b, t = _related(rng, 50)
    c = 0.5 * a + 0.5 * _probs(rng, 50)
    trials = _table({"A": a, "B": b, "C": c}, t, np.repeat(np.arange(10), 5))
    for metric in ("capa", "capa-discrete", "choice", "ec"):
        table = tw.pairwise_agreement(trials, metric=metric, clusters="cluster", n_resamples=100, rng=1)
        array = tw.pairwise_agreement(np.stack([a, b, c]), truth=t, metric=metric, clusters=np.repeat(np.arange(10), 5),
                                      n_resamples=100, rng=1)
        np.testing.assert_allclose(array.statistic, table.statistic, atol=1e-12)
        np.testing.assert_allclose(array.bootstrap_distribution, table.bootstrap_distribution, atol=1e-12)
        assert array.observers == (0, 1, 2) and array.n_clusters == table.n_clusters == 10
        if metric != "ec":
            point = tw.pairwise_agreement(trials, metric=metric, clusters="cluster", n_resamples=0)
            np.testing.assert_allclose(point.statistic, table.statistic, atol=1e-12)
            assert point.n_clusters == 10 and point.n_resamples == 0
    with pytest.raises(tw.InvalidValueError, match=r"no bootstrap replicates \(n_resamples = 0\)"):
        point.difference("A", "B", "C")


@pytest.mark.parametrize("choices", [False, True])
def test_chunking_does_not_change_the_sums(choices):
    rng = np.random.default_rng(13)
    probs, k, t = _padded(rng, 6, 90, 5, ragged=True)
    flat = (probs.argmax(2)[..., None] == np.arange(5)).astype(float) if choices else probs
    brute_gram = np.einsum("aqo,bqo->ab", flat, flat)
    brute_correct = flat[:, np.arange(90), t].sum(1)
    for chunk_bytes in (1, 8 * 6 * 5 * 7, 8 * 6 * 5 * 89, 2**30):  # 1, 7, 89 and all 90 questions per chunk
        correct, gram = gram_sums(probs, k, t, choices=choices, chunk_bytes=chunk_bytes)
        np.testing.assert_allclose(gram, brute_gram, rtol=1e-13, atol=0)
        np.testing.assert_allclose(correct, brute_correct, rtol=1e-13, atol=0)


def test_chunk_size_bounds_the_memory_of_the_gram_path():
    for m, k, limit in [(1000, 10, 64 * 2**20), (7, 3, 1000), (10**6, 10, 2**20), (3, 2, 48)]:
        c = gram_chunk_questions(m, k, limit)
        assert c >= 1 and (c == 1 or 8 * m * c * k <= limit) and 8 * m * (c + 1) * k > limit
    # the working memory numpy allocates beyond the input is about two float64 chunks, not the whole array
    rng = np.random.default_rng(14)
    probs = rng.dirichlet(np.ones(5), size=(20, 3000)).astype(np.float32)  # a float64 copy would take 2.4 MB
    t = rng.integers(0, 5, 3000)
    limit = 64 * 1024
    tracemalloc.start()
    try:
        gram_sums(probs, np.full(3000, 5), t, chunk_bytes=limit)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * limit + 8 * 20 * 20 + 50_000, peak
    assert peak < 8 * probs.size / 10


# ----------------------------------------------------------------------------- degenerate and bad input

def test_chance_agreement_one_gives_nan_and_one_warning():
    t = np.array([0, 1, 0, 1])
    perfect = np.eye(2)[t]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tw.agreement(perfect, perfect, t, n_resamples=50, rng=0)
    assert len(caught) == 1 and issubclass(caught[0].category, tw.DegenerateDataWarning)
    assert np.isnan(res.statistic) and np.isnan(res.confidence_interval.low)
    assert res.c_exp == 1.0 and any("c_exp" in n for n in res.notes)


@pytest.mark.parametrize("kwargs,match", [
    (dict(a=[[0.5, 0.6], [0.5, 0.5]]), r"`a` rows must sum to 1 .* question 0 sums to 1\.1"),
    (dict(a=[[1.2, -0.2], [0.5, 0.5]]), r"`a` must hold finite probabilities ≥ 0; found -0\.2"),
    (dict(a=[[1.0], [1.0]]), r"`a` needs at least 2 options per question; question 0 has 1"),
    (dict(truth=[0, 2]), r"`truth` must be an option index .* question 1 has truth 2 and 2 options"),
    (dict(truth=None), r"`truth` is needed by metric='capa'"),
    (dict(b=[[0.5, 0.5]]), r"`a` and `b` must have the same questions .* lengths 2 and 1"),
    (dict(metric="kappa"), r"`metric` must be one of"),
    (dict(clusters=[1]), r"`clusters` must have one label per question \(2\)"),
])
def test_bad_input_names_the_argument(kwargs, match):
    args = dict(a=[[0.5, 0.5], [0.2, 0.8]], b=[[0.4, 0.6], [0.3, 0.7]], truth=[0, 1])
    args.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        tw.agreement(args.pop("a"), args.pop("b"), args.pop("truth"), n_resamples=10, **args)


def test_pairwise_needs_every_model_on_every_question():
    trials = tw.datasets.llm_demo()
    with pytest.raises(tw.InvalidValueError, match=r"model 'sim/demo-1b' answers 399 of the 400 questions"):
        tw.pairwise_agreement(trials.drop(index=trials.index[trials.subject == "sim/demo-1b"][0]), n_resamples=10)
    with pytest.raises(tw.InvalidValueError, match=r"`clusters` must name a column of `trials`; got 'passage'"):
        tw.pairwise_agreement(trials, clusters="passage", n_resamples=10)


# ----------------------------------------------------------------------------- calibration (CI-light)

def _simulate(rng, n_clusters, size, icc, k=4):
    """The benchmark of benchmarks/calibration/agreement_coverage.py (same model, written out again)."""
    n = n_clusters * size
    cl = np.repeat(np.arange(n_clusters), size)
    r, e = np.sqrt(icc), np.sqrt(1 - icc)
    d = r * rng.normal(size=n_clusters)[cl] + e * rng.normal(size=n)
    s = r * rng.normal(size=(n_clusters, k))[cl] + e * rng.normal(size=(n, k))
    t = rng.integers(0, k, n)
    out = []
    for skill, w, beta in ((1.2, 0.6, 1.5), (0.6, 0.6, 1.2)):
        own = r * rng.normal(size=n_clusters)[cl] + e * rng.normal(size=n)  # the model's own subject strengths
        z = w * s + np.sqrt(1 - w**2) * rng.normal(size=(n, k))
        z[np.arange(n), t] += skill - d - own
        z = np.exp(beta * (z - z.max(1, keepdims=True)))
        out.append(z / z.sum(1, keepdims=True))
    return out[0], out[1], t, cl


def _kappa_p(a, b, t):
    n = len(t)
    c_obs = np.mean(np.sum(a * b, 1))
    pa, pb = a[np.arange(n), t].mean(), b[np.arange(n), t].mean()
    c_exp = pa * pb + (1 - pa) * (1 - pb) / (a.shape[1] - 1)
    return (c_obs - c_exp) / (1 - c_exp)


@functools.cache
def _truth():
    """The true κ_p of the simulated benchmark (the same for every ICC), from 10**6 questions."""
    a, b, t, _ = _simulate(np.random.default_rng(99), 1_000_000, 1, 0.0)
    return _kappa_p(a, b, t)


def _coverage(n_clusters, size, icc, resample_clusters, r, seed, b=300):
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(r):
        a, b_, t, cl = _simulate(rng, n_clusters, size, icc)
        res = tw.agreement(a, b_, t, clusters=cl if resample_clusters else None, n_resamples=b, rng=rng)
        hits += res.confidence_interval.low <= _truth() <= res.confidence_interval.high
    return hits / r


def test_default_interval_covers_on_independent_questions():
    # R = 400 datasets of 400 questions (B = 200): Monte-Carlo SE of a 95 % coverage is 0.011; allow
    # 3 SE. The study (benchmarks/calibration/agreement_coverage.py, R = 500) measured 0.934-0.956 at 100-1000
    # questions. (Seed 1 gave 0.875 in 200 datasets whose κ̂ spread, SD 0.0142, was 2.6 SE of an SD
    # above its value over 2000 datasets, 0.0126: a chance draw; this test uses seed 3.)
    assert _coverage(400, 1, 0.0, False, 400, seed=3, b=200) >= 0.95 - 3 * 0.0109


def test_item_bootstrap_undercovers_with_clusters_and_the_cluster_bootstrap_comes_close():
    # 50 clusters of 20 questions, intra-cluster correlation 0.5 (benchmarks/calibration/agreement_coverage.py,
    # R = 500: items 0.78, clusters 0.91, percentile); R = 200 here, SE 0.015 at 95 %
    items = _coverage(50, 20, 0.5, False, 200, seed=2)
    clusters = _coverage(50, 20, 0.5, True, 200, seed=2)
    assert clusters >= 0.95 - 3 * 0.0154
    assert items <= 0.95 - 2 * 0.0154 < clusters


def _simulate_null(rng, n_clusters, size, icc, k=4):
    """Two models with no shared component: κ_p = 0 exactly (by the symmetry of the wrong options)."""
    n = n_clusters * size
    cl = np.repeat(np.arange(n_clusters), size)
    t = rng.integers(0, k, n)
    out = []
    for skill in (1.2, 0.6):
        z = rng.normal(size=(n, k))
        z[np.arange(n), t] += skill - np.sqrt(icc) * rng.normal(size=n_clusters)[cl] - np.sqrt(1 - icc) * rng.normal(size=n)
        z = np.exp(z - z.max(1, keepdims=True))
        out.append(z / z.sum(1, keepdims=True))
    return out[0], out[1], t, cl


def test_no_more_than_chance_test_holds_its_level_and_has_power():
    # R = 300 null datasets of 30 clusters × 10 questions (ICC 0.3), cluster bootstrap: rejection
    # rate at α = 5 % within 5 % + 3 MC SE (0.0126)
    rng = np.random.default_rng(11)
    pvalues = []
    for _ in range(300):
        a, b, t, cl = _simulate_null(rng, 30, 10, 0.3)
        pvalues.append(tw.agreement(a, b, t, clusters=cl, n_resamples=300, rng=rng).pvalue)
    assert np.mean(np.array(pvalues) <= 0.05) <= 0.05 + 3 * 0.0126
    a, b, t = _related(np.random.default_rng(12), 200)
    assert tw.agreement(a, b, t, n_resamples=300, rng=0).pvalue < 0.01
    assert tw.agreement(a, b, metric="choice", n_resamples=50, rng=0).pvalue is None


# ----------------------------------------------------------------------------- difference of two agreements

def _three(rng, n, models, k=4):
    """Models given as (skill, weight of the shared attractiveness, inverse temperature)."""
    t = rng.integers(0, k, n)
    s = rng.normal(size=(n, k))
    d = rng.normal(size=n)
    out = []
    for skill, w, beta in models:
        z = w * s + np.sqrt(1 - w**2) * rng.normal(size=(n, k))
        z[np.arange(n), t] += skill - d
        z = np.exp(beta * (z - z.max(1, keepdims=True)))
        out.append(z / z.sum(1, keepdims=True))
    return out, t


def test_difference_is_the_joint_difference_of_the_single_pair_bootstraps():
    (j, x, y), t = _three(np.random.default_rng(20), 80, [(1.2, 0.6, 1.5), (0.6, 0.6, 1.2), (0.6, 0.2, 1.2)])
    res = tw.pairwise_agreement(_table({"J": j, "X": x, "Y": y}, t), n_resamples=300, rng=4)
    diff = res.difference("J", "X", "Y")
    one_x = tw.agreement(j, x, t, n_resamples=300, rng=4)
    one_y = tw.agreement(j, y, t, n_resamples=300, rng=4)
    assert diff.statistic == pytest.approx(one_x.statistic - one_y.statistic, abs=1e-12)
    d = one_x.bootstrap_distribution - one_y.bootstrap_distribution
    np.testing.assert_allclose(diff.bootstrap_distribution, d, atol=1e-12)
    assert tuple(diff.confidence_interval) == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])), abs=1e-12)
    expected_p = min(1, 2 * (1 + min(np.sum(d <= 0), np.sum(d >= 0))) / 301)
    assert diff.pvalue == pytest.approx(expected_p)
    with pytest.raises(tw.InvalidValueError, match=r"`x` and `y` must be two different observers; got 'X' twice"):
        res.difference("J", "X", "X")


def test_difference_test_holds_its_level_and_its_interval_covers():
    # type-I error: X and Y exchangeable (the same model), R = 300 datasets of 300 questions, α = 5 %:
    # within 5 % + 3 MC SE (0.0126). Coverage at Δ ≠ 0 (Y shares less with J; true Δ from 10**6
    # questions): R = 300, within 95 % − 3 MC SE (0.0126).
    null_models = [(1.2, 0.6, 1.5), (0.6, 0.6, 1.2), (0.6, 0.6, 1.2)]
    alt_models = [(1.2, 0.6, 1.5), (0.6, 0.6, 1.2), (0.6, 0.2, 1.2)]
    (j, x, y), t = _three(np.random.default_rng(21), 1_000_000, alt_models)
    true_delta = _kappa_p(j, x, t) - _kappa_p(j, y, t)
    rng = np.random.default_rng(22)
    rejections = covered = 0
    for _ in range(300):
        probs, t = _three(rng, 300, null_models)
        res = tw.pairwise_agreement(_table(dict(zip("JXY", probs)), t), n_resamples=300, rng=rng)
        rejections += res.difference("J", "X", "Y").pvalue <= 0.05
        probs, t = _three(rng, 300, alt_models)
        res = tw.pairwise_agreement(_table(dict(zip("JXY", probs)), t), n_resamples=300, rng=rng)
        lo, hi = res.difference("J", "X", "Y").confidence_interval
        covered += lo <= true_delta <= hi
    assert rejections / 300 <= 0.05 + 3 * 0.0126
    assert covered / 300 >= 0.95 - 3 * 0.0126
    assert true_delta > 0.03  # the alternative is one (0.052)


def test_undefined_replicates_are_left_out_with_one_warning():
    # 4 of 5 questions answered right with certainty by both: a replicate without question 4
    # has c_exp = 1 (probability (4/5)**5 = 0.33), so κ_p is undefined there
    t = np.array([0, 1, 0, 1, 0])
    a = np.eye(2)[t]
    a[4] = [0.2, 0.8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = tw.agreement(a, a, t, n_resamples=1000, rng=0)
    assert [w.category for w in caught] == [tw.UndefinedReplicatesWarning]
    assert 0.25 < res.n_undefined / 1000 < 0.41 and np.isfinite(res.statistic)
    assert np.isnan(res.bootstrap_distribution).sum() == res.n_undefined
    assert any("bootstrap replicates undefined" in n for n in res.notes)
    assert "p = " in res.summary()


def test_tiles_cover_every_pair_once_at_its_triu_position():
    ag = importlib.import_module("trialwise.similarity.pairwise")
    for n_models, tile in ((2, 16), (17, 16), (40, 16), (23, 5)):
        where = np.full(n_models * (n_models - 1) // 2, -1)
        for pairs, pos in ag.model_tiles(n_models, tile):
            assert len({a // tile for a in pairs[:, 0]}) == 1 and len({b // tile for b in pairs[:, 1]}) == 1
            assert (where[pos] == -1).all()
            where[pos] = 1
            a, b = np.triu_indices(n_models, 1)
            np.testing.assert_array_equal(np.column_stack([a, b])[pos], pairs)
        assert (where == 1).all()


@pytest.mark.parametrize("metric", ["capa", "choice"])
def test_pairwise_bootstrap_does_not_depend_on_the_block_size(monkeypatch, metric):
    """One block of all 780 pairs, or blocks of at most 256 (whole tiles): the same numbers."""
    ag = importlib.import_module("trialwise.similarity.pairwise")
    rng = np.random.default_rng(2)
    probs = np.stack([_probs(rng, 80) for _ in range(40)])
    t = rng.integers(0, 4, 80)
    one = tw.pairwise_agreement(probs, truth=t, metric=metric, ci_method="bca", n_resamples=150, rng=4)
    monkeypatch.setattr(ag, "PAIR_BLOCK_BYTES", 1)
    blocks = tw.pairwise_agreement(probs, truth=t, metric=metric, ci_method="bca", n_resamples=150, rng=4)
    for name in ("statistic", "pvalue", "n_undefined", "bootstrap_distribution"):
        np.testing.assert_array_equal(getattr(one, name), getattr(blocks, name), err_msg=name)
    np.testing.assert_array_equal(one.confidence_interval.low, blocks.confidence_interval.low)
    # and each pair's replicates are the joint bootstrap's: the single-pair path, same seed
    single = tw.agreement(probs[3], probs[21], t, metric=metric, n_resamples=150, rng=4)
    i = int(np.flatnonzero((one.observer_a == 3) & (one.observer_b == 21))[0])
    np.testing.assert_allclose(one.bootstrap_distribution[:, i], single.bootstrap_distribution, rtol=0, atol=1e-12)


def test_ec_on_generation_tasks_uses_correctness_only():
    """Review HR5, F9: generation trials (n_options 0, read_lm_eval(score=...)) have an EC, κ on `correct`."""
    import pandas as pd
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(12)
    n = 60
    right = {"a": rng.random(n) < 0.6, "b": rng.random(n) < 0.5, "c": rng.random(n) < 0.7}
    gen = pd.concat([pd.DataFrame({"condition": "gsm", "image": [f"g{i}" for i in range(n)], "subject": m,
                                   "truth": "42", "response": np.where(r, "42", "x"), "correct": r, "n_options": 0,
                                   "probabilities": None}) for m, r in right.items()], ignore_index=True)
    res = tw.pairwise_agreement(gen, metric="ec", n_resamples=200, rng=0)
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        one = res.pair(a, b)
        assert one.statistic == pytest.approx(cohen_kappa_score(right[a], right[b]), abs=1e-12)
        assert one.p_correct_a == pytest.approx(right[a].mean()) and one.n == n
    # with multiple-choice trials in the same table: κ on the correctness of all of them
    mc = tw.datasets.llm_demo()
    names = sorted(mc.subject.unique())[:3]
    mc = mc[mc.subject.isin(names)].copy()
    gen2 = gen.assign(subject=gen.subject.map(dict(zip("abc", names))))
    both = pd.concat([mc, gen2[mc.columns.intersection(gen2.columns)]], ignore_index=True)
    res = tw.pairwise_agreement(both, metric="ec", n_resamples=50, rng=0)
    wide = both.pivot_table(index=["condition", "image"], columns="subject", values="correct", aggfunc="first")
    one = res.pair(names[0], names[1])
    assert one.statistic == pytest.approx(cohen_kappa_score(wide[names[0]], wide[names[1]]), abs=1e-12)
    with pytest.raises(ValueError, match=r"generation task \(n_options 0\).*metric='capa' needs options"):
        tw.pairwise_agreement(gen, metric="capa")


@pytest.mark.parametrize("n_clusters", [2, 9, 10])
def test_too_few_clusters_warn_in_the_api_and_stay_in_the_notes(n_clusters):
    """Issue 31: with 2 clusters the API gave CI [0.004, 1.000] and p = 0.025 without a word (only the
    command line warned); pairwise_agreement and pairwise_error_consistency now warn below 10 clusters and
    keep the note, which the differences carry too."""
    trials = tw.datasets.llm_demo()
    items = sorted(trials.image.unique())
    trials = trials.assign(part=trials.image.map({it: f"c{i % n_clusters}" for i, it in enumerate(items)}))
    few = n_clusters < 10
    for metric in ("capa", "ec"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = tw.pairwise_agreement(trials, metric=metric, clusters="part", n_resamples=100, rng=0)
        said = [w for w in caught if issubclass(w.category, tw.DegenerateDataWarning)
                and f"only {n_clusters} clusters" in str(w.message)]
        assert len(said) == few and all(w.filename == __file__ for w in said), [str(w.message) for w in caught]
        coverage = [n for n in res.notes if getattr(n, "kind", "") == "coverage" and "clusters" in n]
        assert len(coverage) == few
        if few:
            assert coverage[0].values == {"n_clusters": n_clusters, "few_clusters": 10}
        a, b, c = res.observers[:3]
        assert (tuple(res.difference(a, b, c).notes) == tuple(coverage))
        if metric == "ec":
            with pytest.warns(tw.MonteCarloResolutionWarning):  # B = 100 is too few for 12 adjusted tests
                family = res.differences()
        else:  # over clusters the jackknife t: its p-values have no Monte-Carlo floor (issue 31, item 7)
            with warnings.catch_warnings():
                warnings.simplefilter("error", tw.MonteCarloResolutionWarning)
                family = res.differences()
        assert set(coverage) <= set(family.notes)


def test_a_family_counts_only_the_tests_it_made():
    """Issue 31: the command line said "495 tests", then "45 tests" in the resolution note: rows whose difference
    is undefined (an agreement undefined) were counted as tests though they have no p-value and are not adjusted."""
    rng = np.random.default_rng(8)
    n = 60
    truth = rng.integers(2, size=n)
    right = np.eye(2)[truth]  # always right: two such models have chance agreement 1, their agreement undefined
    probs = np.stack([right, right, rng.dirichlet(np.ones(2), n), rng.dirichlet(np.ones(2), n)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        family = tw.pairwise_agreement(probs, truth=truth, n_resamples=300, rng=0).differences()
    undefined = int(family.table["pvalue"].isna().sum())
    assert undefined > 0 and family.n_undefined == undefined
    assert family.n_tests == len(family) - undefined == int(family.table["pvalue_adjusted"].notna().sum())
    assert re.search(rf"undefined \(no test\)\s+{undefined}\b", family.summary()), family.summary()
