"""pairwise_error_consistency() and the resampling engine it stands on."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
from trialwise._stats.resampling import bootstrap_sums, bootstrap_weights
from trialwise._stats.monte_carlo import monte_carlo_pvalue


def observers(n_items=300, n_obs=5, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    base = rng.random(n_items) < 0.7
    cols = {}
    for j in range(n_obs):
        copy = rng.uniform(0.1, 0.6)
        c = np.where(rng.random(n_items) < copy, base, rng.random(n_items) < rng.uniform(0.5, 0.9)).astype(float)
        c[rng.random(n_items) < missing] = np.nan
        cols[f"obs{j}"] = c
    return pd.DataFrame(cols)


# ------------------------------------------------------------------ engine


def test_weights_are_multinomial_counts_and_batch_independent():
    w_all = np.concatenate(list(bootstrap_weights(50, 1000, rng=3)))
    w_chunks = np.concatenate(list(bootstrap_weights(50, 1000, rng=3, batch=7)))
    np.testing.assert_array_equal(w_all, w_chunks)
    assert w_all.shape == (1000, 50) and (w_all.sum(axis=1) == 50).all()
    # Each item's weight is Binomial(50, 1/50): mean 1, variance 49/50.
    assert w_all.mean() == pytest.approx(1.0)
    assert w_all.var() == pytest.approx(49 / 50, rel=0.05)


def test_stratified_weights_keep_stratum_sizes():
    strata = np.repeat(["a", "b", "c"], [10, 25, 5])
    w = np.concatenate(list(bootstrap_weights(40, 500, rng=0, strata=strata)))
    for s, size in (("a", 10), ("b", 25), ("c", 5)):
        assert (w[:, strata == s].sum(axis=1) == size).all()


def test_bootstrap_sums_equal_explicit_weighted_sums_and_batching():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2, size=(60, 9))
    sums = bootstrap_sums(x, 300, rng=5)
    w = np.concatenate(list(bootstrap_weights(60, 300, rng=5)))
    np.testing.assert_array_equal(sums, w @ x)
    np.testing.assert_array_equal(bootstrap_sums(x, 300, rng=5, batch=11), sums)


def test_monte_carlo_pvalue_convention():
    assert monte_carlo_pvalue(0, 999) == pytest.approx(0.001)
    assert monte_carlo_pvalue(999, 999) == 1.0


# ------------------------------------------------------------------ pairwise


def test_pairwise_exactly_equals_brute_force_index_bootstrap_on_the_same_resamples():
    df = observers(n_items=80, n_obs=3, seed=2)
    res = tw.pairwise_error_consistency(df, n_resamples=200, rng=9, ci_method="percentile")
    weights = np.concatenate(list(bootstrap_weights(80, 200, rng=9)))
    x = df.to_numpy().astype(bool)
    for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        brute = []
        for w in weights:
            idx = np.repeat(np.arange(80), w)  # the same resample, as item indices
            brute.append(cohen_kappa_score(x[idx, a], x[idx, b]))
        np.testing.assert_allclose(res.bootstrap_distribution[:, p], brute, atol=1e-12)
        lo, hi = np.quantile(brute, [0.025, 0.975])
        assert res.confidence_interval.low[p] == pytest.approx(lo, abs=1e-12)
        assert res.confidence_interval.high[p] == pytest.approx(hi, abs=1e-12)


def test_pairwise_with_missing_equals_per_pair_on_shared_items():
    df = observers(n_items=200, n_obs=4, seed=3, missing=0.2)
    res = tw.pairwise_error_consistency(df, n_resamples=300, rng=0, ci_method="analytic")
    frame = res.to_frame()
    for row in frame.itertuples():
        both = df[[row.observer_a, row.observer_b]].dropna()
        single = tw.error_consistency(both[row.observer_a], both[row.observer_b], ci_method="analytic")
        assert row.n == len(both) == single.n
        assert row.statistic == pytest.approx(single.statistic, abs=1e-12)
        assert row.pvalue == pytest.approx(single.pvalue, rel=1e-12)
        assert row.ci_low == pytest.approx(single.confidence_interval.low, abs=1e-12)
        assert row.ci_high == pytest.approx(single.confidence_interval.high, abs=1e-12)


def test_pairwise_bootstrap_with_missing_equals_brute_force():
    df = observers(n_items=60, n_obs=3, seed=4, missing=0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.SparseTableWarning)  # 60 items, 25 % missing
        res = tw.pairwise_error_consistency(df, n_resamples=100, rng=1, ci_method="percentile")
    weights = np.concatenate(list(bootstrap_weights(60, 100, rng=1)))
    x = df.to_numpy()
    for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        brute = []
        for w in weights:
            idx = np.repeat(np.arange(60), w)
            xa, xb = x[idx, a], x[idx, b]
            keep = ~np.isnan(xa) & ~np.isnan(xb)
            brute.append(cohen_kappa_score(xa[keep], xb[keep]))
        np.testing.assert_allclose(res.bootstrap_distribution[:, p], brute, atol=1e-12)


def test_joint_resampling_shares_weights_across_pairs():
    # C is a copy of B, so κ(A,B) − κ(A,C) is 0 in every replicate only if the pairs
    # are resampled with the same weights.
    rng = np.random.default_rng(5)
    a = rng.random(150) < 0.7
    b = np.where(rng.random(150) < 0.4, a, rng.random(150) < 0.6)
    df = pd.DataFrame({"A": a, "B": b, "C": b})
    res = tw.pairwise_error_consistency(df, pairs=[("A", "B"), ("A", "C")], n_resamples=500, rng=0,
                                        ci_method="percentile")
    d = res.bootstrap_distribution
    np.testing.assert_array_equal(d[:, 0], d[:, 1])
    assert d[:, 0].std() > 0.02


def test_batched_equals_looped_and_batch_size_does_not_matter():
    df = observers(n_items=120, n_obs=4, seed=6)
    r1 = tw.pairwise_error_consistency(df, n_resamples=400, rng=2, ci_method="percentile")
    r2 = tw.pairwise_error_consistency(df, n_resamples=400, rng=2, batch=13, ci_method="percentile")
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    # Jeffreys (Bayesian bootstrap): float weights, so equal up to the matrix product's rounding.
    j1 = tw.pairwise_error_consistency(df, n_resamples=400, rng=2)
    j2 = tw.pairwise_error_consistency(df, n_resamples=400, rng=2, batch=13)
    np.testing.assert_allclose(j1.bootstrap_distribution, j2.bootstrap_distribution, rtol=0, atol=1e-12)
    for row in r1.to_frame().itertuples():
        single = tw.error_consistency(df[row.observer_a], df[row.observer_b], n_resamples=10)
        assert row.statistic == pytest.approx(single.statistic, abs=1e-12)
        assert row.pvalue == pytest.approx(single.pvalue, rel=1e-12)


def test_pair_order_and_selection():
    df = observers(n_items=100, n_obs=4, seed=7)
    full = tw.pairwise_error_consistency(df, n_resamples=200, rng=0)
    assert len(full) == 6
    sub = tw.pairwise_error_consistency(df, pairs=[("obs3", "obs0")], n_resamples=200, rng=0)
    assert list(sub.observer_a) == ["obs3"] and list(sub.observer_b) == ["obs0"]
    one = full.pair("obs3", "obs0")
    assert one.statistic == pytest.approx(sub.statistic[0])
    assert one.accuracy_a == pytest.approx(df["obs3"].mean())
    with pytest.raises(KeyError):
        full.pair("obs0", "nobody")


def test_labels_path_equals_correctness_path():
    rng = np.random.default_rng(8)
    truth = rng.choice(list("abcd"), 90)
    resp = pd.DataFrame({f"s{j}": np.where(rng.random(90) < 0.7, truth, rng.choice(list("abcd"), 90))
                         for j in range(3)}, dtype=object)
    resp.iloc[3, 1] = None  # not seen
    correct = resp.eq(truth, axis=0).astype(float)
    correct.iloc[3, 1] = np.nan
    r1 = tw.pairwise_error_consistency(resp, truth=truth, n_resamples=100, rng=0)
    r2 = tw.pairwise_error_consistency(correct, n_resamples=100, rng=0)
    pd.testing.assert_frame_equal(r1.to_frame(), r2.to_frame())


def test_frame_matrix_and_repr():
    df = observers(n_items=100, n_obs=3, seed=9)
    res = tw.pairwise_error_consistency(df, n_resamples=200, rng=0)
    frame = res.to_frame()
    assert list(frame.columns[:7]) == ["observer_a", "observer_b", "statistic", "ci_low", "ci_high", "pvalue", "n"]
    mat = res.matrix()
    assert mat.shape == (3, 3) and np.isnan(np.diag(mat)).all()
    np.testing.assert_array_equal(mat.to_numpy(), mat.to_numpy().T)
    assert mat.loc["obs0", "obs2"] == pytest.approx(frame.statistic[1])
    assert "\n" not in repr(res) and "3 observers, 3 pairs" in repr(res)
    assert "joint resampling" in res.summary()
    with pytest.raises(ValueError, match="`value` must be one of"):
        res.matrix("colour")


def test_numpy_input_names_columns_by_position():
    x = observers(n_items=100, n_obs=3, seed=10).to_numpy()
    res = tw.pairwise_error_consistency(x, n_resamples=100, rng=0)
    assert res.observers == (0, 1, 2)


def test_pair_without_shared_items_is_nan_with_warning():
    df = pd.DataFrame({"A": [1, 0, 1, np.nan, np.nan], "B": [np.nan, np.nan, np.nan, 1, 0],
                       "C": [1, 1, 0, 0, 1]})
    with pytest.warns(tw.DegenerateDataWarning, match="pairs are degenerate"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tw.UndefinedReplicatesWarning)
            warnings.simplefilter("ignore", tw.SparseTableWarning)
            res = tw.pairwise_error_consistency(df, n_resamples=100, rng=0)
    row = res.to_frame().iloc[0]
    assert row.n == 0 and np.isnan(row.statistic)
    assert res.pair_notes[0] == ("no items seen by both observers",)


def test_stratified_pairwise_runs_and_differs_from_unstratified():
    df = observers(n_items=120, n_obs=3, seed=11)
    strata = np.repeat([0, 1, 2], 40)
    r = tw.pairwise_error_consistency(df, strata=strata, n_resamples=300, rng=0)
    r0 = tw.pairwise_error_consistency(df, n_resamples=300, rng=0)
    assert not np.array_equal(r.bootstrap_distribution, r0.bootstrap_distribution)
    np.testing.assert_array_equal(r.statistic, r0.statistic)


# --------------------------------------------------------------------------- clustered items


def _clustered_pair(gen, n_clusters=30, size=10, sd=1.0):
    from scipy import stats

    cl = np.repeat(np.arange(n_clusters), size)
    diff = gen.normal(0, sd, n_clusters)[cl] + gen.normal(0, 1, cl.size)
    a = gen.random(cl.size) < stats.norm.cdf(0.6 - diff)
    b = gen.random(cl.size) < stats.norm.cdf(0.8 - diff)
    return np.column_stack([a, b, gen.random(cl.size) < 0.7]).astype(float), cl


@pytest.mark.parametrize("ci_method", ["jeffreys", "bca", "percentile"])
def test_one_item_per_cluster_is_the_item_bootstrap(ci_method):
    x, _ = _clustered_pair(np.random.default_rng(0))
    a = tw.pairwise_error_consistency(x, ci_method=ci_method, n_resamples=300, rng=1)
    b = tw.pairwise_error_consistency(x, clusters=np.arange(len(x)), ci_method=ci_method, n_resamples=300, rng=1)
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, rtol=1e-12)
    assert b.test == "cluster-bootstrap"


def test_cluster_replicates_are_kappas_of_cluster_weighted_tables():
    from trialwise._stats.resampling import bootstrap_weights

    x, cl = _clustered_pair(np.random.default_rng(1), n_clusters=12, size=6)
    res = tw.pairwise_error_consistency(x, clusters=cl.astype(str), ci_method="percentile", n_resamples=20, rng=3)
    w = np.concatenate(list(bootstrap_weights(12, 20, rng=3)))  # labels "0" … "9", "10", "11" sort as text
    order = np.argsort(np.arange(12).astype(str))  # code k is the k-th label in text order
    for r in (0, 7, 19):
        wi = w[r][np.argsort(order)][cl]  # each item carries its cluster's count
        for p, (i, j) in enumerate([(0, 1), (0, 2), (1, 2)]):
            ai, bj = x[:, i], x[:, j]
            n = wi.sum()
            p11, pa, pb = (wi * ai * bj).sum() / n, (wi * ai).sum() / n, (wi * bj).sum() / n
            c_obs, c_exp = 1 - pa - pb + 2 * p11, pa * pb + (1 - pa) * (1 - pb)
            assert res.bootstrap_distribution[r, p] == pytest.approx((c_obs - c_exp) / (1 - c_exp), abs=1e-12)


def test_cluster_bad_input():
    x, cl = _clustered_pair(np.random.default_rng(2))
    with pytest.raises(ValueError, match=r"`clusters` must have one label per item \(300\); got 299"):
        tw.pairwise_error_consistency(x, clusters=cl[:-1], n_resamples=20)
    with pytest.raises(ValueError, match=r"`clusters` has a missing label at item 5"):
        tw.pairwise_error_consistency(x, clusters=np.where(np.arange(300) == 5, None, cl), n_resamples=20)
    with pytest.raises(ValueError, match=r"`ci_method`='analytic' treats items as independent"):
        tw.pairwise_error_consistency(x, clusters=cl, ci_method="analytic", n_resamples=20)
    with pytest.raises(ValueError, match=r"cluster 0 spans several strata"):
        tw.pairwise_error_consistency(x, clusters=cl, strata=np.arange(300) % 2, n_resamples=20)


@pytest.mark.slow
def test_cluster_bootstrap_covers_clustered_ec():
    """R = 150 datasets of 30 clusters × 10 items with a shared cluster difficulty (SD 1): the
    95 % interval of the cluster bootstrap covers the population EC (docs/validity.md has R = 200
    for three designs); the true EC comes from 200,000 items."""
    gen = np.random.default_rng(20261123)
    big, _ = _clustered_pair(gen, n_clusters=20000, size=10)
    true = tw.error_consistency(big[:, 0].astype(bool), big[:, 1].astype(bool), ci_method="analytic").statistic
    covered = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        for r in range(150):
            x, cl = _clustered_pair(gen)
            res = tw.pairwise_error_consistency(x[:, :2], clusters=cl, n_resamples=500, rng=r)
            covered.append(res.confidence_interval.low[0] <= true <= res.confidence_interval.high[0])
    assert np.mean(covered) >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / 150) - 0.02


# ------------------------------------------------------------------ pair blocks (memory bounded in pairs)


def _many_observers(n_items=90, n_obs=25, seed=21):
    gen = np.random.default_rng(seed)
    x = (gen.random((n_items, n_obs)) < gen.uniform(0.5, 0.9, n_obs)).astype(float)
    x[:, 1::3] = np.where(gen.random((n_items, 1)) < 0.5, x[:, [0]], x[:, 1::3])  # some pairs copy
    x[gen.random(x.shape) < 0.1] = np.nan
    return x


@pytest.mark.parametrize("kw", [dict(ci_method="jeffreys"), dict(ci_method="percentile"), dict(ci_method="bca"),
                                dict(ci_method="jeffreys", clusters="c", strata="s"),
                                dict(ci_method="basic", unbiased=True, strata="s")])
def test_pair_blocks_and_weight_replay_do_not_change_numbers(monkeypatch, kw):
    """300 pairs in blocks of 128, 256 and all 300, replicate chunks of 37 rows, the weights kept
    or drawn again per block: the same numbers to 1e-12 (in fact bit for bit)."""
    import trialwise.ec.blocks as ec
    import trialwise._stats.resampling as rs

    x = _many_observers()
    if kw.get("clusters"):
        kw = dict(kw, clusters=np.arange(90) // 3)
    if kw.get("strata"):
        kw = dict(kw, strata=np.arange(90) // 45)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        ref = tw.pairwise_error_consistency(x, n_resamples=150, rng=4, keep_replicates=True, **kw)
        per_pair = 24 * 150 + 40 * 90
        for budget, keep_weights, block in ((1, 0, 128), (256 * per_pair, 0, 256), (10**9, 10**9, 300)):
            monkeypatch.setattr(ec, "PAIR_BLOCK_BYTES", budget)
            monkeypatch.setattr(rs, "WEIGHTS_KEEP_BYTES", keep_weights)
            assert ec.pair_block_size(300, 90, 150) == block
            res = tw.pairwise_error_consistency(x, n_resamples=150, rng=4, batch=37, keep_replicates=True, **kw)
            np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution, rtol=0, atol=1e-12)
            for name in ("low", "high"):
                np.testing.assert_allclose(getattr(res.confidence_interval, name),
                                           getattr(ref.confidence_interval, name), rtol=0, atol=1e-12)
            np.testing.assert_allclose(res.pvalue, ref.pvalue, rtol=0, atol=1e-12)
            np.testing.assert_array_equal(res.n_undefined, ref.n_undefined)
            np.testing.assert_array_equal(res.counts, ref.counts)
    assert len(ref) == 300 and ref.bootstrap_distribution.shape == (150, 300)


def test_jeffreys_pseudo_counts_are_the_weights_of_orthogonal_virtual_items():
    """Oracle written from the documented construction: Exp(1) item weights from the generator
    (after the 64-bit seed of the pseudo-counts), then N = 32 virtual items (18 observers): columns
    1–18 of the Hadamard matrix of order 32 as right/wrong, seen by all, with Gamma(½ / 8) weights
    drawn as (B, 32) from keyed_rng(seed); every replicate's weights rounded to the grid 2**-k with
    2**k · Σ w < 2**22; the pair's table is the weighted 2×2 table on the items both saw."""
    from scipy.linalg import hadamard

    from trialwise._stats.kappa import kappa_from_counts
    from trialwise._stats.resampling import bootstrap_weights
    from trialwise._stats.streams import child_seed, keyed_rng

    x = _many_observers(n_items=60, n_obs=18, seed=3)  # 153 pairs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        res = tw.pairwise_error_consistency(x, n_resamples=80, rng=11, keep_replicates=True)
    gen = np.random.default_rng(11)
    seed = child_seed(gen, bits=64)
    w = np.concatenate(list(bootstrap_weights(60, 80, rng=gen, kind="bayesian")))
    w = np.hstack([w, keyed_rng(seed).standard_gamma(0.5 / 8, size=(80, 32))])
    k = np.array([22 - int(np.floor(np.log2(t))) - 1 for t in w.sum(axis=1)])[:, None]
    w = np.round(w * 2.0 ** k) / 2.0 ** k
    xv = np.vstack([x, (hadamard(32)[:, 1:19] > 0).astype(float)])
    pairs = [(i, j) for i in range(18) for j in range(i + 1, 18)]
    for p in (0, 5, 127, 128, 140, 152):
        a, b = xv[:, pairs[p][0]], xv[:, pairs[p][1]]
        both = ~np.isnan(a) & ~np.isnan(b)
        cells = [both & (a == 1) & (b == 1), both & (a == 1) & (b == 0), both & (a == 0) & (b == 1),
                 both & (a == 0) & (b == 0)]
        tables = np.stack([w @ c for c in cells], axis=1).reshape(80, 2, 2)
        np.testing.assert_allclose(res.bootstrap_distribution[:, p], kappa_from_counts(tables), rtol=0, atol=1e-12)


@pytest.mark.parametrize("n_observers", [2, 3, 4, 18, 200])
def test_virtual_items_give_every_pair_cell_an_exact_gamma_half_pseudo_count(n_observers):
    """Every two observers' virtual answers show each of the four patterns on N/4 items (brute
    force), so the N/4 Gamma(2/N) weights of a cell sum to Gamma(½) (KS test, N = 256 for 200
    observers); the weights the engine multiplies are those, rounded to the replicate's grid
    2**-k (2**k · Σ w < 2**22): no weight moves by more than half a step."""
    from scipy import stats

    from trialwise.ec.blocks import prior_items
    from trialwise._stats.resampling import ReplicateWeights

    v = prior_items(n_observers)
    n = v.shape[0]
    assert v.shape == (n, n_observers) and n >= n_observers + 1 and n & (n - 1) == 0
    for i in range(n_observers):
        for j in range(i + 1, n_observers):
            patterns = np.bincount(2 * v[:, i] + v[:, j], minlength=4)
            assert (patterns == n // 4).all(), (i, j, patterns)
    if n_observers == 200:
        raw, grid = (np.concatenate(list(ReplicateWeights(1000, 20_000, rng=0, kind="bayesian", column_max=c,
                                                          prior=(n, 0.5 / (n // 4), 9)))) for c in (None, 1))
        cell = raw[:, 1000:][:, (v[:, 0] == 1) & (v[:, 1] == 0)].sum(axis=1)
        assert stats.kstest(cell, stats.gamma(0.5).cdf).pvalue > 0.01
        assert abs(cell.mean() - 0.5) < 4 * np.sqrt(0.5 / 20_000)
        half_step = 2.0 ** (np.ceil(np.log2(raw.sum(axis=1))) - 23)
        assert grid.dtype == np.float32 and (np.abs(grid - raw) <= half_step[:, None]).all()


def test_pair_block_size_bounds_the_memory_of_a_block():
    from trialwise.ec.blocks import PAIR_BLOCK_BYTES, PAIR_STREAM_BLOCK, pair_block_size

    for n_pairs in (1, 100, 128, 129, 1770, 19_900, 499_500):
        for n_items in (50, 1000, 2000, 100_000):
            for b in (100, 1000, 10_000, 100_000):
                m = pair_block_size(n_pairs, n_items, b)
                per_pair = 24 * b + 40 * n_items
                assert 1 <= m <= n_pairs
                assert m == n_pairs or m % PAIR_STREAM_BLOCK == 0  # whole Jeffreys streams
                # within the budget unless one stream block is already more
                assert m * per_pair <= PAIR_BLOCK_BYTES or m <= PAIR_STREAM_BLOCK
                # and as large as the budget allows
                assert m == n_pairs or (m + PAIR_STREAM_BLOCK) * per_pair > PAIR_BLOCK_BYTES
    # the case: 1,000 observers × 2,000 items, B = 1,000 in blocks of 2,560 pairs (≈ 250 MiB)
    assert pair_block_size(499_500, 2000, 1000) == 2560


def test_replicates_are_kept_up_to_the_threshold_and_on_request(monkeypatch):
    import trialwise.ec.pairwise as ec

    df = observers(n_items=100, n_obs=4, seed=8)
    full = tw.pairwise_error_consistency(df, n_resamples=200, rng=1)
    assert full.bootstrap_distribution.shape == (200, 6)  # 9.6 kB: kept by default
    monkeypatch.setattr(ec, "KEEP_REPLICATES_BYTES", 8 * 200 * 6 - 1)
    lean = tw.pairwise_error_consistency(df, n_resamples=200, rng=1)
    assert lean.bootstrap_distribution.shape == (0, 6) and lean.n_resamples == 200
    kept = tw.pairwise_error_consistency(df, n_resamples=200, rng=1, keep_replicates=True)
    np.testing.assert_array_equal(kept.bootstrap_distribution, full.bootstrap_distribution)
    none = tw.pairwise_error_consistency(df, n_resamples=200, rng=1, keep_replicates=False)
    assert none.bootstrap_distribution.shape == (0, 6)
    for r in (lean, none):
        np.testing.assert_array_equal(r.confidence_interval.low, full.confidence_interval.low)
        np.testing.assert_array_equal(r.confidence_interval.high, full.confidence_interval.high)
        np.testing.assert_array_equal(r.n_undefined, full.n_undefined)
    with pytest.raises(TypeError, match=r"`keep_replicates` must be True, False or None; got 'yes'"):
        tw.pairwise_error_consistency(df, n_resamples=20, keep_replicates="yes")


@pytest.mark.parametrize("keep_bytes", [0, None])
def test_replicate_weights_replay_the_same_chunks_and_advance_the_stream_once(keep_bytes):
    from trialwise._stats.resampling import ReplicateWeights, bootstrap_weights

    strata = np.arange(40) % 3
    gen = np.random.default_rng(5)
    rw = ReplicateWeights(40, 100, rng=gen, strata=strata, batch=17, keep_bytes=keep_bytes)
    passes = [np.concatenate(list(rw)) for _ in range(3)]
    direct = np.random.default_rng(5)
    expected = np.concatenate(list(bootstrap_weights(40, 100, rng=direct, strata=strata, batch=100)))
    for p in passes:
        np.testing.assert_array_equal(p, expected)
    assert gen.random() == direct.random()  # the caller's stream continues as after one pass


def test_replicates_not_kept_are_said_in_the_notes(monkeypatch):
    import trialwise.ec.pairwise as ec_module

    x = np.random.default_rng(0).random((60, 6)) < 0.7
    kept = tw.pairwise_error_consistency(x, n_resamples=50, rng=0)
    assert kept.result_notes == () and kept.bootstrap_distribution.shape == (50, 15)
    monkeypatch.setattr(ec_module, "KEEP_REPLICATES_BYTES", 100)  # as if 50 × 15 replicates were too many
    auto = tw.pairwise_error_consistency(x, n_resamples=50, rng=0)
    assert auto.bootstrap_distribution.shape == (0, 15)
    assert auto.notes[0].startswith("bootstrap_distribution not kept: the 50 × 15 replicates would take")
    assert f"\n  note                 {auto.notes[0]}" in auto.summary() and "keep_replicates=True" in auto.notes[0]
    np.testing.assert_array_equal(auto.confidence_interval.low, kept.confidence_interval.low)
    off = tw.pairwise_error_consistency(x, n_resamples=50, rng=0, keep_replicates=False)
    assert off.result_notes == ("bootstrap_distribution not kept (keep_replicates=False)",)


_THREADS_CASE = """
import sys, warnings
import numpy as np
import trialwise as tw
warnings.simplefilter("ignore")
g = np.random.default_rng(0)
x = (g.random((600, 40)) < np.linspace(0.5, 0.9, 40)).astype(float)
x[g.random(x.shape) < 0.1] = np.nan
big = np.r_[np.zeros(300, int), np.arange(1, 301)]  # one cluster of 300 items: the float64 grid
out = [tw.pairwise_error_consistency(x, n_resamples=1000, rng=3, ci_method=m, keep_replicates=True,
                                     **kw).bootstrap_distribution
       for m, kw in (("jeffreys", {}), ("percentile", {}), ("jeffreys", dict(clusters=big)))]
np.save(sys.argv[1], np.concatenate(out, axis=1))
"""


def test_seeded_replicates_are_the_same_bits_for_any_number_of_blas_threads(tmp_path):
    """The products are exact (integer weights, or weights on a 2**-k grid), so OpenBLAS with 1 or
    2 threads — which add in different orders — gives identical replicates (before the grid, the
    Jeffreys replicates differed in the last bits, up to 6e-15)."""
    import os
    import subprocess
    import sys

    files = []
    for threads in ("1", "2"):
        files.append(tmp_path / f"threads{threads}.npy")
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
        subprocess.run([sys.executable, "-c", _THREADS_CASE, str(files[-1])], env=env, check=True, timeout=300)
    one, two = (np.load(f) for f in files)
    assert one.shape == (1000, 3 * 780) and np.isfinite(one).mean() > 0.99
    assert one.tobytes() == two.tobytes()


def test_exact_weights_give_exact_sums_and_refuse_columns_they_were_not_made_for():
    """Grid weights: W @ X in float32 equals the float64 product of the same weights exactly (an
    oracle in exact arithmetic: integer-valued after scaling by 2**k); columns outside
    [0, column_max], or not integers, or of another number of items (than the items, with or
    without the prior's rows) are refused."""
    from fractions import Fraction

    from trialwise._stats.resampling import ReplicateWeights

    g = np.random.default_rng(2)
    x = g.integers(0, 4, size=(50, 7))
    rw = ReplicateWeights(47, 30, rng=1, kind="bayesian", prior=(3, 0.25, 4), column_max=3, batch=11)
    w = np.concatenate(list(rw))
    assert w.dtype == np.float32 and w.shape == (30, 50)
    sums = bootstrap_sums(x, 30, weights=rw)
    exact = [[float(sum(Fraction(float(a)) * int(b) for a, b in zip(row, col))) for col in x.T] for row in w]
    np.testing.assert_array_equal(sums, np.array(exact))
    with pytest.raises(ValueError, match=r"`weights` were made for integer columns in \[0, 3\]; `columns` has "
                                         r"values in \[0, 4\]"):
        bootstrap_sums(x + (x == 3), 30, weights=rw)
    with pytest.raises(ValueError, match=r"`weights` were made for integer columns in \[0, 3\]; `columns` has "
                                         r"values in \[0\.0, 3\.5\]"):
        bootstrap_sums(np.where(x == 3, 3.5, x), 30, weights=rw)
    items_only = bootstrap_sums(x[:47], 30, weights=rw)  # the prior's rows left out of the product
    np.testing.assert_array_equal(items_only, w[:, :47].astype(np.float64) @ x[:47])
    seen = []  # columns_first: the statistic gets the same exact sums transposed, (columns, b) per chunk
    bootstrap_sums(x, 30, weights=rw, statistic=lambda t: seen.append(t.copy()) or np.empty((t.shape[1], 0)),
                   columns_first=True)
    assert [t.shape for t in seen] == [(7, 11), (7, 11), (7, 8)]
    np.testing.assert_array_equal(np.concatenate(seen, axis=1).T, np.array(exact))
    with pytest.raises(ValueError, match="`columns_first=True` needs a `statistic` and `weights` made for exact"):
        bootstrap_sums(x, 30, weights=rw, columns_first=True)
    with pytest.raises(ValueError, match="`columns_first=True` needs"):
        bootstrap_sums(x, 30, rng=1, statistic=lambda t: t, columns_first=True)
    with pytest.raises(ValueError, match=r"`weights` are for 50 items; `columns` has 45"):
        bootstrap_sums(x[:45], 30, weights=rw)


def test_tail_counts_and_valid_counts_from_the_sorted_replicates():
    """The block's tail counts (replicates ≤ 0, ≥ 0) and non-NaN counts, read from the sorted
    columns by binary search, equal the counts over the unsorted replicates (brute force), NaN
    (undefined replicates) counted in neither tail; ties at 0 included."""
    from trialwise.ec.blocks import _count_sorted
    from trialwise._stats.intervals import sorted_valid

    gen = np.random.default_rng(4)
    d = np.round(gen.normal(0.05, 0.2, size=(999, 300)), 2)
    d[gen.random(d.shape) < 0.02] = np.nan
    d[:, 3], d[:, 4], d[:, 5] = np.nan, 0.0, -0.5
    s, k = sorted_valid(d)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(k, (~np.isnan(d)).sum(axis=0))
        np.testing.assert_array_equal(_count_sorted(s, k, strict=False), (d <= 0).sum(axis=0))
        np.testing.assert_array_equal(k - _count_sorted(s, k, strict=True), (d >= 0).sum(axis=0))
    for big in (d, np.tile(d, (3, 4))):  # one sort, and blocks of columns on threads (beyond 2·SORT_BLOCK_BYTES)
        for order in "CF":  # the engine's replicates are column-major: sorted in their own order
            s, k = sorted_valid(np.asarray(big, order=order))
            np.testing.assert_array_equal(s, np.sort(big, axis=0))
            np.testing.assert_array_equal(k, (~np.isnan(big)).sum(axis=0))
            assert s.flags[f"{order}_CONTIGUOUS"]

