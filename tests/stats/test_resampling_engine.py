"""The one Monte-Carlo engine: ``monte_carlo_test``, the child streams of ``resampling``, the half splits.

Oracles: a plain loop written here, ``scipy.stats.monte_carlo_test`` on the same draws, and
exact null distributions (``scipy.stats.binomtest`` / ``permutation_test``) within
Monte-Carlo error.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import trialwise as tw
from trialwise._stats.monte_carlo import NULL_BLOCK, TIE_TOLERANCE, monte_carlo_test
from trialwise._stats.splits import split_orders
from trialwise._stats.streams import child_rngs, child_seed, keyed_rng

SRC = Path(__file__).parents[2] / "src" / "trialwise"


def _mean_stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return x.mean(axis=axis)


# --------------------------------------------------------------------------- p-values


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize("batch", [None, 1, 7, 250])
def test_pvalue_equals_a_plain_loop(alternative, batch):
    """Same draws, counted by hand: (1 + #{T* at least as extreme}) / (1 + M)."""
    observed = 0.31

    def draw(g, b):
        return _mean_stat(g.standard_normal((b, 10)))

    res = monte_carlo_test(observed, draw, 999, rng=4, alternative=alternative, batch=batch)
    null = _mean_stat(np.random.default_rng(4).standard_normal((999, 10)))
    if alternative == "greater":
        hits = np.sum(null >= observed)
    elif alternative == "less":
        hits = np.sum(null <= observed)
    else:
        hits = np.sum(np.abs(null) >= abs(observed))
    assert int(res.hits) == hits
    assert int(res.n_defined) == 999 and int(res.n_undefined) == 0
    assert res.pvalue == (1 + hits) / (1 + 999)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_pvalue_equals_scipy_monte_carlo_test(alternative):
    """scipy.stats.monte_carlo_test with the same generator draws the same replicates."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal(15) + 0.4
    observed = float(_mean_stat(x))
    sp = stats.monte_carlo_test(x, np.random.default_rng(5).standard_normal, _mean_stat, vectorized=True,
                                n_resamples=1999, alternative=alternative)
    ours = monte_carlo_test(observed, lambda g, b: _mean_stat(g.standard_normal((b, 15))), 1999, rng=5,
                            alternative=alternative)
    assert ours.pvalue == pytest.approx(sp.pvalue, rel=1e-15)


def test_pvalue_close_to_the_exact_permutation_pvalue():
    """McNemar's swap test against the exact binomial null, within Monte-Carlo error."""
    n10, n01 = 10, 3
    d = n10 + n01
    b = 40_000
    res = monte_carlo_test(abs(n10 - n01), lambda g, s: np.abs(2 * g.binomial(d, 0.5, size=s) - d), b, rng=0)
    exact = stats.binomtest(n01, d, 0.5).pvalue
    # the same exact p-value from scipy's permutation test of paired sign flips (2**13 arrangements)
    flips = stats.permutation_test((np.r_[np.ones(n10), np.zeros(n01)], np.r_[np.zeros(n10), np.ones(n01)]),
                                   lambda a, c, axis: np.sum(a - c, axis=axis), permutation_type="samples",
                                   n_resamples=np.inf, vectorized=True)
    assert flips.pvalue == pytest.approx(exact, rel=1e-9)
    se = np.sqrt(exact * (1 - exact) / b)
    assert abs(res.pvalue - exact) < 4 * se + 1 / b


def test_never_zero_and_at_most_one():
    res = monte_carlo_test(100.0, lambda g, b: g.random(b), 99, rng=0)
    assert res.pvalue == 1 / 100
    res = monte_carlo_test(-100.0, lambda g, b: g.random(b), 99, rng=0)
    assert res.pvalue == 1.0


def test_batched_statistics_equal_separate_tests():
    """A batch of observed statistics is tested elementwise, on the same draws."""
    obs = np.array([0.0, 0.2, -0.5])

    def draw(g, b):
        return g.standard_normal((b, 3)) * [1.0, 0.5, 2.0]

    res = monte_carlo_test(obs, draw, 500, rng=9, alternative="two-sided")
    null = draw(np.random.default_rng(9), 500)
    for k in range(3):
        alone = monte_carlo_test(obs[k], null[:, k], alternative="two-sided")
        assert res.pvalue[k] == alone.pvalue and res.hits[k] == alone.hits


def test_precomputed_null_equals_drawn_null():
    def draw(g, b):
        return g.standard_normal(b)

    drawn = monte_carlo_test(0.7, draw, 300, rng=2)
    given = monte_carlo_test(0.7, draw(np.random.default_rng(2), 300))
    assert drawn == given


# --------------------------------------------------------------------------- ties and NaN


def test_ties_within_tolerance_count_as_hits():
    observed = 0.1 + 0.2  # 0.30000000000000004: a replicate of 0.3 is the same value, rounded
    null = np.array([0.3, 0.3 * (1 - 1e-9), 0.31, 0.0])
    res = monte_carlo_test(observed, null)
    assert int(res.hits) == 2  # 0.3 (a tie) and 0.31; not 0.3·(1 − 1e-9), beyond the tolerance
    assert res.pvalue == 3 / 5
    # the same for "less" and two-sided, on the negative side
    assert int(monte_carlo_test(-observed, -null, alternative="less").hits) == 2
    assert int(monte_carlo_test(-observed, null, alternative="two-sided").hits) == 2


def test_tolerance_is_relative():
    big = 1e6
    null = np.array([big * (1 - 0.5 * TIE_TOLERANCE), big * (1 - 2 * TIE_TOLERANCE)])
    assert int(monte_carlo_test(big, null).hits) == 1
    assert int(monte_carlo_test(0.0, np.array([-1e-300, 0.0])).hits) == 1  # at 0 only exact ties


def test_integer_statistics_are_compared_exactly():
    """No tolerance for integers, whatever their size."""
    big = 10**13  # a relative tolerance of 1e-12 would make big − 1 a tie
    res = monte_carlo_test(big, np.array([big - 1, big, big + 1], dtype=np.int64))
    assert int(res.hits) == 2
    assert int(monte_carlo_test(big, np.array([big - 1.0, big, big + 1])).hits) == 3


def test_undefined_replicates_are_left_out():
    null = np.array([np.nan, 1.0, 2.0, np.nan, 0.5])
    res = monte_carlo_test(1.0, null)
    assert int(res.n_defined) == 3 and int(res.n_undefined) == 2
    assert res.pvalue == (1 + 2) / (1 + 3)
    assert np.isnan(monte_carlo_test(1.0, np.full(4, np.nan)).pvalue)
    assert int(monte_carlo_test(np.nan, np.ones(4)).hits) == 0  # an undefined statistic has no hit


# --------------------------------------------------------------------------- chunking


@pytest.mark.parametrize("batch", [1, 2, 3, 64, 1000, 5000])
def test_result_does_not_depend_on_batch(batch):
    """A draw_null with one generator call per chunk (row by row) gives the same replicates."""
    totals = np.array([5, 9, 2])

    def draw(g, b):
        up = g.binomial(totals, 0.5, size=(b, 3))
        return np.abs(2 * up - totals).sum(axis=-1).astype(float)

    ref = monte_carlo_test(7.0, draw, 1000, rng=3)
    assert monte_carlo_test(7.0, draw, 1000, rng=3, batch=batch) == ref


def test_default_batch_bounds_the_calls():
    sizes = []

    def draw(g, b):
        sizes.append(b)
        return g.random((b, 4))

    monte_carlo_test(np.zeros(4), draw, NULL_BLOCK // 2, rng=0)
    assert max(sizes) == NULL_BLOCK // 4 and sum(sizes) == NULL_BLOCK // 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        monte_carlo_test(1.0, np.ones(3), alternative="two_sided")
    with pytest.raises(ValueError, match=r"must return shape \(4, 2\); got \(4,\)"):
        monte_carlo_test(np.ones(2), lambda g, b: g.random(b), 4, rng=0)
    with pytest.raises(ValueError, match=r"shape \(M, \*\(2,\)\)"):
        monte_carlo_test(np.ones(2), np.ones(3))
    with pytest.raises((TypeError, ValueError), match="n_resamples"):
        monte_carlo_test(1.0, lambda g, b: g.random(b), 0, rng=0)
    with pytest.raises((TypeError, ValueError), match="batch"):
        monte_carlo_test(1.0, lambda g, b: g.random(b), 10, rng=0, batch=0)


# --------------------------------------------------------------------------- child streams


def test_child_streams_are_reproducible_and_do_not_depend_on_n():
    a = [g.random(4) for g in child_rngs(7, 3)]
    b = [g.random(4) for g in child_rngs(7, 5)][:3]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(np.array_equal(g.random(4), x) for g, x in zip(child_rngs(np.random.default_rng(7), 3), a))
    assert child_rngs(7, 0) == []
    with pytest.raises(ValueError, match="`n` must be >= 0"):
        child_rngs(7, -1)


def test_child_streams_are_independent():
    parent = np.random.default_rng(1)
    kids = child_rngs(parent, 4)
    draws = np.stack([g.standard_normal(20_000) for g in kids] + [parent.standard_normal(20_000)])
    corr = np.corrcoef(draws)
    off = corr[~np.eye(len(draws), dtype=bool)]
    assert np.abs(off).max() < 5 / np.sqrt(20_000)  # 5 standard errors of a zero correlation
    assert len({tuple(np.round(d[:3], 12)) for d in draws}) == len(draws)


def test_spawning_does_not_consume_the_parent_stream_and_never_repeats():
    g, h = np.random.default_rng(3), np.random.default_rng(3)
    first = child_rngs(g, 2)
    second = child_rngs(g, 2)  # a second spawn gives new children
    assert g.random() == h.random()
    assert not np.array_equal(first[0].random(3), second[0].random(3))


def test_keyed_streams_equal_spawned_children_and_are_order_free():
    seed = child_seed(0)
    kids = child_rngs(seed, 3)
    for k in range(3):
        assert np.array_equal(keyed_rng(seed, (k,)).random(3), kids[k].random(3))
    late = keyed_rng(seed, (2, 5)).random(3)
    keyed_rng(seed, (0, 1)).random(3)
    assert np.array_equal(keyed_rng(seed, (2, 5)).random(3), late)
    assert np.array_equal(keyed_rng(seed).random(3), np.random.default_rng(seed).random(3))
    assert np.array_equal(keyed_rng([seed, 4]).random(3), np.random.default_rng([seed, 4]).random(3))


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.Philox])
def test_child_seed_is_one_draw_of_the_parent(bit_generator):
    g, h = np.random.Generator(bit_generator(5)), np.random.Generator(bit_generator(5))
    assert child_seed(g) == int(h.integers(2**63))
    assert child_seed(g, bits=62) == int(h.integers(2**62))
    assert child_seed(g, bits=64) == int(h.bit_generator.random_raw())
    assert g.random() == h.random()  # each consumed exactly as much of the stream
    with pytest.raises(ValueError, match="`bits` must be an integer in"):
        child_seed(g, bits=65)


# --------------------------------------------------------------------------- one engine


_OWN_STREAMS = re.compile(r"\.spawn\(|SeedSequence\(|random_raw\(|_REL_TOL|\* \(1 - 1e-12\)")


#: The resampling engine: the weights and products, the streams and seeds, the null loop, the half splits.
_ENGINE = ("_stats/resampling.py", "_stats/streams.py", "_stats/monte_carlo.py", "_stats/splits.py")
#: What a module outside the engine may use of ``numpy.random``: a Generator and its seeding (``check_rng``).
_NUMPY_RANDOM_OUTSIDE = {"Generator", "default_rng", "SeedSequence", "BitGenerator", "PCG64"}


def test_streams_and_null_loops_go_through_the_engine():
    """No module outside the engine spawns streams or writes its own tie tolerance."""
    found = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel in _ENGINE:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _OWN_STREAMS.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert not found, "\n".join(found)


def _legacy_random(tree: ast.AST) -> list[tuple[int, str]]:
    """``numpy.random.<name>`` in code (not in docstrings) other than a Generator and its seeding."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) in ("np.random", "numpy.random") \
                and node.attr not in _NUMPY_RANDOM_OUTSIDE:
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy.random":
            found += [(node.lineno, f"from numpy.random import {a.name}") for a in node.names
                      if a.name not in _NUMPY_RANDOM_OUTSIDE]
    return sorted(found)


def test_legacy_numpy_random_is_drawn_only_by_the_engine():
    """``RandomState`` / ``np.random.seed`` / the global ``np.random.permutation`` only in the engine.

    The one such use is Brain-Score's own split streams (fixed ``RandomState`` seeds, which its
    numbers need), drawn in ``_stats/splits.py``; everything else draws from a Generator.
    """
    found = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel not in _ENGINE:
            found += [f"{rel}:{line}: {text}" for line, text in _legacy_random(ast.parse(path.read_text("utf-8")))]
    assert not found, "\n".join(found)
    engine = [text for rel in _ENGINE for _, text in _legacy_random(ast.parse((SRC / rel).read_text("utf-8")))]
    assert engine == ["np.random.RandomState", "np.random.RandomState"]  # Brain-Score's two split streams


def test_the_legacy_random_check_sees_a_random_state():
    tree = ast.parse("import numpy as np\nx = np.random.RandomState(0).permutation(3)\n"
                     "from numpy.random import seed\ng = np.random.default_rng(0)\n")
    assert [text for _, text in _legacy_random(tree)] == ["np.random.RandomState", "from numpy.random import seed"]


# --------------------------------------------------------------------------- half splits


def test_generator_split_orders_are_the_generators_permutations():
    orders = split_orders(9, 4, rng=np.random.default_rng(3))
    g = np.random.default_rng(3)
    assert np.array_equal(orders, np.stack([g.permutation(9) for _ in range(4)]))
    assert np.array_equal(split_orders(9, 4, rng=3), orders)  # a seed is a Generator's seed


@pytest.mark.parametrize("n", [2, 7, 10])
def test_brainscore_split_streams_are_its_random_states(n):
    """The two Brain-Score streams, from its code: one RandomState(0) shuffled per split (I1n/I2n), and
    ``np.random.seed(i); np.random.permutation(n)`` for split i (Ferguson2024); first n // 2 places = half 1."""
    rs = np.random.RandomState(0)
    for order in split_orders(n, 3, stream="brainscore-i2n"):
        idx = list(range(n))
        rs.shuffle(idx)
        assert sorted(np.flatnonzero(order < n // 2)) == sorted(idx[: int(n / 2)])
        assert [int(np.flatnonzero(order == j)[0]) for j in range(n)] == idx  # the whole order, not only the halves
    for i, order in enumerate(split_orders(n, 4, stream="brainscore-value-delta")):
        assert np.array_equal(np.argsort(order), np.random.RandomState(i).permutation(n))


def test_split_orders_bad_input():
    with pytest.raises(tw.InvalidValueError, match=r"`rng` must be None with stream='brainscore-i2n'.*got 0"):
        split_orders(5, 2, rng=0, stream="brainscore-i2n")
    with pytest.raises(tw.InvalidValueError, match=r"`stream` must be one of .*got 'numpy'"):
        split_orders(5, 2, stream="numpy")
    with pytest.raises(tw.InvalidValueError, match=r"`n` must be an integer >= 1; got 0"):
        split_orders(0, 2)
    with pytest.raises(tw.InvalidTypeError, match=r"`n_splits` must be an integer >= 1; got 'a'"):
        split_orders(4, "a")


def test_bootstrap_sums_of_non_integer_columns_are_float64_products():
    """Probabilities (small, not integers) must not take the float32 path meant for counts."""
    from trialwise._stats.resampling import bootstrap_sums, bootstrap_weights

    x = np.random.default_rng(0).dirichlet(np.ones(4), 300)
    got = bootstrap_sums(x, 50, rng=1)
    w = np.concatenate(list(bootstrap_weights(300, 50, rng=1))).astype(float)
    np.testing.assert_array_equal(got, w @ x)
    assert not np.array_equal(got, (w.astype(np.float32) @ x.astype(np.float32)).astype(float))


def test_replicate_weights_pickle_as_their_stream_and_advance_like_a_pass():
    """A pickled ReplicateWeights (a Dask task's copy) is its saved stream, not its arrays, and
    replays the same chunks; ``advance()`` moves the caller's generator exactly as one pass."""
    import pickle

    from trialwise._stats.resampling import ReplicateWeights, bootstrap_weights

    for kind in ("multinomial", "bayesian"):
        g = np.random.default_rng(3)
        w = ReplicateWeights(500, 300, rng=g, batch=70, kind=kind)
        first = np.concatenate(list(w))  # 300 × 500 × 8 bytes = 1.2 MB, kept in w
        blob = pickle.dumps(w)
        assert len(blob) < 5_000
        np.testing.assert_array_equal(np.concatenate(list(pickle.loads(blob))), first)
        np.testing.assert_array_equal(np.concatenate(list(bootstrap_weights(500, 300, rng=3, kind=kind))), first)
        g2 = np.random.default_rng(3)
        fresh = ReplicateWeights(500, 300, rng=g2, batch=70, kind=kind)
        fresh.advance()
        fresh.advance()  # only once
        assert g2.random() == g.random()
        np.testing.assert_array_equal(np.concatenate(list(pickle.loads(pickle.dumps(fresh)))), first)


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64])
def test_bootstrap_weights_count_each_replicates_draws_whatever_the_blocks(monkeypatch, dtype):
    """bootstrap_weights counts the draws a block of replicates at a time (in the CPU cache) and
    in the dtype asked for: the counts of every replicate are those of its own draws (brute force:
    one call per replicate of the same stream, then a bincount), for any block size and chunking."""
    from trialwise._stats import resampling

    n, b = 37, 50
    strata = np.arange(n) % 3
    for s in (None, strata):
        gen = np.random.default_rng(11)
        members = [np.arange(n)] if s is None else [np.flatnonzero(s == k) for k in range(3)]
        order = np.concatenate(members)
        start = np.concatenate([np.full(m.size, sum(x.size for x in members[:k])) for k, m in enumerate(members)])
        size = np.concatenate([np.full(m.size, m.size) for m in members])
        brute = []
        for _ in range(b):
            draw = gen.integers(0, n, size=n) if s is None else order[start + gen.integers(0, size, size=n)]
            brute.append(np.bincount(draw, minlength=n))
        for block, batch in ((resampling._COUNT_DRAWS, None), (1, 7), (n + 5, 13), (3 * n, None)):
            monkeypatch.setattr(resampling, "_COUNT_DRAWS", block)
            got = np.concatenate(list(resampling.bootstrap_weights(n, b, rng=11, strata=s, batch=batch, dtype=dtype)))
            assert got.dtype == (np.int64 if dtype is None else dtype)
            np.testing.assert_array_equal(got, np.stack(brute))
