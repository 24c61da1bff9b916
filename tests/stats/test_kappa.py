"""Count kernels against oracles (scikit-learn, statsmodels) and brute force."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

import trialwise as tw
from trialwise._stats.bounds import cell_probabilities


def _table(ca, cb):
    ca, cb = np.asarray(ca, bool), np.asarray(cb, bool)
    return np.array([[np.sum(ca & cb), np.sum(ca & ~cb)], [np.sum(~ca & cb), np.sum(~ca & ~cb)]])


tables = st.tuples(*[st.integers(0, 60)] * 4).map(lambda c: np.array(c).reshape(2, 2))


def test_kappa_equals_sklearn_on_random_correctness():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 400))
        ca = rng.random(n) < rng.uniform(0.05, 0.95)
        cb = np.where(rng.random(n) < rng.uniform(0, 0.8), ca, rng.random(n) < rng.uniform(0.05, 0.95))
        if ca.all() and cb.all() or (~ca).all() and (~cb).all():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(ca, cb)
        assert tw.ec.kappa_from_counts(_table(ca, cb)) == pytest.approx(expected, abs=1e-12)


def test_kappa_vectorised_over_batch_equals_loop():
    rng = np.random.default_rng(1)
    batch = rng.integers(0, 50, size=(7, 5, 2, 2))
    looped = np.array([[tw.ec.kappa_from_counts(t) for t in row] for row in batch])
    np.testing.assert_array_equal(tw.ec.kappa_from_counts(batch), looped)


@given(tables)
def test_statistics_definitions(t):
    n = t.sum()
    s = tw.ec.table_statistics(t)
    if n == 0:
        assert np.isnan(s.kappa)
        return
    a, b = (t[0, 0] + t[0, 1]) / n, (t[0, 0] + t[1, 0]) / n
    c_obs, c_exp = (t[0, 0] + t[1, 1]) / n, a * b + (1 - a) * (1 - b)
    assert s.accuracy_a == pytest.approx(a) and s.accuracy_b == pytest.approx(b)
    assert s.c_obs == pytest.approx(c_obs) and s.c_exp == pytest.approx(c_exp)
    if c_exp < 1:
        assert s.kappa == pytest.approx((c_obs - c_exp) / (1 - c_exp), abs=1e-12)
        lo, hi = tw.ec.kappa_bounds(a, b)
        assert lo - 1e-12 <= s.kappa <= hi + 1e-12
    else:
        assert np.isnan(s.kappa)


def test_variance_and_null_variance_equal_statsmodels():
    rng = np.random.default_rng(2)
    for _ in range(200):
        t = rng.integers(1, 80, size=(2, 2))
        res = cohens_kappa(t)
        var, var0 = tw.ec.kappa_variance(t)
        assert var == pytest.approx(res.var_kappa, rel=1e-10)
        assert var0 == pytest.approx(res.var_kappa0, rel=1e-10)
    batch = rng.integers(1, 80, size=(6, 2, 2))
    var, _ = tw.ec.kappa_variance(batch)
    np.testing.assert_allclose(var, [cohens_kappa(t).var_kappa for t in batch], rtol=1e-10)


def test_degenerate_tables_exact():
    # One observer always correct, the other not: kappa is exactly 0 (seed 000, App. C).
    assert tw.ec.kappa_from_counts([[30, 10], [0, 0]]) == 0.0
    assert tw.ec.kappa_from_counts([[30, 0], [10, 0]]) == 0.0
    # One always wrong.
    assert tw.ec.kappa_from_counts([[0, 0], [12, 8]]) == 0.0
    # Both always correct / both always wrong / one right one wrong always: c_exp = 1 or not.
    assert np.isnan(tw.ec.kappa_from_counts([[50, 0], [0, 0]]))
    assert np.isnan(tw.ec.kappa_from_counts([[0, 0], [0, 50]]))
    assert tw.ec.kappa_from_counts([[0, 50], [0, 0]]) == 0.0  # c_exp = 0: κ = (0 - 0)/1
    assert np.isnan(tw.ec.kappa_from_counts([[0, 0], [0, 0]]))


def test_unbiased_kappa_matches_definition():
    rng = np.random.default_rng(3)
    for _ in range(100):
        t = rng.integers(1, 40, size=(2, 2))
        s = tw.ec.table_statistics(t)
        n = s.n
        c_exp_u = (n * s.c_exp - s.c_obs) / (n - 1)
        expected = (s.c_obs - c_exp_u) / (1 - c_exp_u)
        assert tw.ec.kappa_from_counts(t, unbiased=True) == pytest.approx(expected, abs=1e-12)
        assert tw.ec.unbiased_kappa(s.kappa, n) == pytest.approx(expected, abs=1e-12)


def test_kappa_max_published_example():
    lo, hi = tw.ec.kappa_bounds(0.8, 0.6)
    assert hi == pytest.approx(0.24 / 0.44, abs=1e-12)


@pytest.mark.parametrize("n", [20, 37, 40])
def test_bounds_equal_brute_force_over_tables(n):
    # With integer margins every κ between the bounds is realised by some table:
    # enumerate n11 for every pair of margins.
    for ka in range(1, n):
        for kb in range(1, n):
            ks = []
            for n11 in range(max(0, ka + kb - n), min(ka, kb) + 1):
                ks.append(tw.ec.kappa_from_counts([[n11, ka - n11], [kb - n11, n - ka - kb + n11]]))
            lo, hi = tw.ec.kappa_bounds(ka / n, kb / n)
            assert min(ks) == pytest.approx(lo, abs=1e-12)
            assert max(ks) == pytest.approx(hi, abs=1e-12)


def test_bounds_from_expected_agreement_are_envelopes():
    # seed 002 eq. 2-6: the bounds over all accuracy pairs sharing the same c_exp.
    for c_exp in [0.1, 0.3, 0.5, 0.62, 0.8, 0.95]:
        a = np.linspace(1e-4, 1 - 1e-4, 200001)
        with np.errstate(divide="ignore", invalid="ignore"):
            b = (c_exp - 1 + a) / (2 * a - 1)
        ok = (b >= 0) & (b <= 1)
        lo, hi = tw.ec.kappa_bounds(a[ok], b[ok])
        flo, fhi = tw.ec.kappa_bounds_from_expected(c_exp)
        assert np.nanmin(lo) == pytest.approx(flo, abs=2e-3)
        assert np.nanmax(hi) == pytest.approx(fhi, abs=2e-3)
        assert np.nanmin(lo) >= flo - 1e-9 and np.nanmax(hi) <= fhi + 1e-9


def test_feasible_accuracy_published_examples():
    lo, hi = tw.ec.feasible_accuracy(0.9, 0.5)
    assert (round(float(lo), 3), round(float(hi), 3)) == (0.75, 0.964)
    lo, hi = tw.ec.feasible_accuracy(0.5, 0.5)
    assert (float(lo), float(hi)) == pytest.approx((0.25, 0.75))
    lo, hi = tw.ec.feasible_accuracy(0.5, -1.0)
    assert (float(lo), float(hi)) == pytest.approx((0.5, 0.5))
    lo, hi = tw.ec.feasible_accuracy(0.8, -0.99)  # -1 is out of reach unless a_A = 0.5
    assert np.isnan(lo) and np.isnan(hi)


@settings(max_examples=300)
@given(st.floats(0.02, 0.98), st.floats(-1, 1))
def test_feasible_accuracy_is_the_attainable_set(a, k):
    lo, hi = tw.ec.feasible_accuracy(a, k)
    grid = np.linspace(1e-6, 1 - 1e-6, 4001)
    kmin, kmax = tw.ec.kappa_bounds(a, grid)
    attainable = (kmin <= k + 1e-9) & (k - 1e-9 <= kmax)
    if np.isnan(lo):
        assert not attainable.any()
        return
    inside = (grid >= lo) & (grid <= hi)
    # The grid points strictly inside / outside the returned interval agree with the bounds.
    margin = 2e-3
    assert attainable[(grid > lo + margin) & (grid < hi - margin)].all()
    assert not attainable[(grid < lo - margin) | (grid > hi + margin)].any()
    assert inside.any() or hi - lo < 1e-3
    # At the end points κ is exactly the binding bound.
    for end in (lo, hi):
        if 0 < end < 1:
            emin, emax = tw.ec.kappa_bounds(a, end)
            assert k == pytest.approx(emax if k >= 0 else emin, abs=1e-9)


@settings(max_examples=200)
@given(st.floats(0.05, 0.95), st.floats(0.05, 0.95), st.floats(0, 1))
def test_cell_probabilities_reproduce_kappa_and_margins(a, b, u):
    lo, hi = tw.ec.kappa_bounds(a, b)
    k = float(lo + u * (hi - lo))
    p = cell_probabilities(k, a, b)
    s = tw.ec.table_statistics(p)  # proportions work as counts with n = 1
    assert s.accuracy_a == pytest.approx(a, abs=1e-12)
    assert s.accuracy_b == pytest.approx(b, abs=1e-12)
    assert s.kappa == pytest.approx(k, abs=1e-9)


def test_cell_probabilities_reject_infeasible_kappa():
    with pytest.raises(ValueError, match=r"`kappa` = 0.9 is not attainable .* \[-0.3636, 0.5455\]"):
        cell_probabilities(0.9, 0.8, 0.6)


# --------------------------------------------------------------------------- input checks of the kernels (issue 14)


@pytest.mark.parametrize("counts, exc, match", [
    ("abc", TypeError, r"`counts` must be (2×2|square) tables of counts"),
    (None, TypeError, r"`counts` must be (2×2|square) tables of counts"),
    ([["a", "b"], ["c", "d"]], TypeError, r"`counts` must be (2×2|square) tables of counts \(numbers\)"),
    ([[1j, 1], [1, 1]], TypeError, r"`counts` must hold real counts; got complex"),
    ([1, 2, 3], ValueError, r"`counts` must have shape \(\.\.\., (2, 2|K, K)\)"),
    ([[1, 2, 3], [4, 5, 6]], ValueError, r"`counts` must have shape \(\.\.\., (2, 2|K, K)\)"),
    ([[1, -1], [1, 1]], ValueError, r"`counts` must be non-negative"),
    ([[1, np.nan], [1, 1]], ValueError, r"`counts` must be finite"),
    ([[2**63, 1], [1, 1]], ValueError, r"`counts` holds more than 2\*\*53 items"),
    ([[2**64, 1], [1, 1]], ValueError, r"`counts` holds more than 2\*\*53 items"),
])
def test_kernels_check_their_counts(counts, exc, match):
    for f in (tw.ec.kappa_from_counts, tw.ec.table_statistics, tw.ec.kappa_variance):
        with pytest.raises(exc, match=match):
            f(counts)


def test_kernels_accept_fractional_tables_and_rounding_noise():
    # posterior draws and weighted sums are fractional; -1e-13 is floating-point noise, not a negative count
    t = np.array([[30.25, 10.5], [8.0, -1e-13]])
    assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(float(tw.ec.kappa_from_counts(t.clip(0))), abs=1e-12)
    with pytest.raises(TypeError, match="`unbiased` must be True or False"):
        tw.ec.kappa_from_counts([[1, 2], [3, 4]], unbiased="no")


@pytest.mark.parametrize("kappa, n, exc, match", [
    (2.0, 100, ValueError, r"`kappa` must be in \[-1, 1\]"),
    (0.5, 0, ValueError, r"`n` must be whole numbers of items >= 1"),
    (0.5, 10.5, ValueError, r"`n` must be whole numbers"),
    (0.5, "100", TypeError, r"`n` must be whole numbers"),
    ([0.1, 0.2], [10, 20, 30], ValueError, r"`kappa` \(shape \(2,\)\) and `n` \(shape \(3,\)\) cannot be broadcast"),
])
def test_unbiased_kappa_checks(kappa, n, exc, match):
    with pytest.raises(exc, match=match):
        tw.ec.unbiased_kappa(kappa, n)


def test_unbiased_kappa_keeps_undefined_kappa():
    assert np.isnan(tw.ec.unbiased_kappa(np.nan, 10))
    assert float(tw.ec.unbiased_kappa(0.5, 100)) == pytest.approx(100 * 0.5 / (99 + 0.5))


def test_boschloo_is_refused_above_its_documented_size():
    from trialwise._stats.significance import BOSCHLOO_MAX_N, independence_pvalues

    big = [[250_000, 250_000], [250_000, 250_000]]
    with pytest.raises(ValueError, match=r"`test`='boschloo' is refused on a table of n = 1000000 items.*"
                                         rf"n = {BOSCHLOO_MAX_N}; use test='fisher'"):
        tw.error_consistency(counts=big, test="boschloo", ci_method="analytic")
    with pytest.raises(ValueError, match=r"n = 2001 items"):
        independence_pvalues(np.array([[1001, 0], [0, 1000]]), test="boschloo")
    # at the limit it runs (on a small table here: the limit is on n, the time on the grid)
    from scipy import stats

    t = np.array([[9, 3], [2, 8]])
    p, _ = independence_pvalues(t, test="boschloo")
    assert float(p) == pytest.approx(max(stats.boschloo_exact(t).pvalue, stats.boschloo_exact(t.T).pvalue))


# --------------------------------------------------------------------------- the one κ kernel on K × K tables (issue 15)


def _random_square(rng, k, n):
    """Two observers' labels over k classes that agree more than by chance, and their K × K table."""
    a = rng.integers(0, k, n)
    b = np.where(rng.random(n) < rng.uniform(0, 0.8), a, rng.integers(0, k, n))
    t = np.zeros((k, k), np.int64)
    for x, y in zip(a, b):  # brute force: one item at a time
        t[x, y] += 1
    return a, b, t


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_square_kappa_equals_sklearn_and_statsmodels(k):
    rng = np.random.default_rng(10 + k)
    for _ in range(60):
        a, b, t = _random_square(rng, k, int(rng.integers(5, 300)))
        if (t.sum(axis=1) == t.sum()).any() and (t.sum(axis=0) == t.sum()).any():
            continue  # both give one class throughout: κ undefined
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(a, b, labels=list(range(k)))
        assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(expected, abs=1e-12)
        res = cohens_kappa(t)
        assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(res.kappa, abs=1e-12)
        var, var0 = tw.ec.kappa_variance(t)
        assert float(var) == pytest.approx(res.var_kappa, rel=1e-10, abs=1e-15)
        assert float(var0) == pytest.approx(res.var_kappa0, rel=1e-10)


def test_square_kappa_batched_equals_loop_and_dtypes_agree():
    rng = np.random.default_rng(3)
    batch = rng.integers(0, 30, size=(4, 6, 4, 4))
    looped = np.array([[float(tw.ec.kappa_from_counts(t)) for t in row] for row in batch])
    np.testing.assert_array_equal(tw.ec.kappa_from_counts(batch), looped)
    np.testing.assert_allclose(tw.ec.kappa_from_counts(batch.astype(float)), looped, rtol=0, atol=1e-15)
    var = tw.ec.kappa_variance(batch)[0]
    np.testing.assert_allclose(var, [[cohens_kappa(t).var_kappa for t in row] for row in batch], rtol=1e-10)


def test_square_kappa_at_k2_is_the_correctness_kernel_exactly():
    """The K × K formula and the 2×2 closed form are the same number on integer tables (int64 arithmetic)."""
    from trialwise._stats.kappa import kappa_kernel, _kappa_square

    t = np.random.default_rng(4).integers(0, 200, size=(5000, 2, 2))
    np.testing.assert_array_equal(_kappa_square(t), kappa_kernel(t))
    t[:50, :, 1] = 0  # B always correct: exactly 0 (or NaN where A is too)
    np.testing.assert_array_equal(_kappa_square(t[:50]), kappa_kernel(t[:50]))


def test_square_kappa_degenerate_and_unbiased():
    one_class = np.array([[0, 0, 0], [5, 7, 9], [0, 0, 0]])       # A gives one class throughout
    assert float(tw.ec.kappa_from_counts(one_class)) == 0.0
    assert np.isnan(tw.ec.kappa_from_counts([[0, 0, 0], [0, 12, 0], [0, 0, 0]]))
    assert np.isnan(tw.ec.kappa_from_counts(np.zeros((3, 3))))
    t = np.array([[20, 5, 0], [3, 30, 2], [1, 4, 35]])
    k, n = float(tw.ec.kappa_from_counts(t)), t.sum()
    assert float(tw.ec.kappa_from_counts(t, unbiased=True)) == pytest.approx(n * k / (n - 1 + k), abs=1e-12)
    # the bias correction holds for K × K: (c_obs − ĉ_exp)/(1 − ĉ_exp) with ĉ_exp = (n·c_exp − c_obs)/(n − 1)
    p = t / n
    c_obs, c_exp = np.trace(p), p.sum(1) @ p.sum(0)
    c_hat = (n * c_exp - c_obs) / (n - 1)
    assert float(tw.ec.kappa_from_counts(t, unbiased=True)) == pytest.approx((c_obs - c_hat) / (1 - c_hat), abs=1e-12)


def test_square_kappa_large_tables_take_the_float_path():
    t = np.array([[2**33, 2**30, 0], [2**29, 2**33, 2**28], [0, 2**30, 2**32]], dtype=np.int64)
    expected = cohens_kappa(t.astype(float)).kappa
    assert float(tw.ec.kappa_from_counts(t)) == pytest.approx(expected, abs=1e-12)


def test_cohen_kappa_on_labels_is_the_kernel():
    """comparison.cohen_kappa has no κ or variance formula of its own."""
    from trialwise.comparison import cohen_kappa

    rng = np.random.default_rng(5)
    a, b, t = _random_square(rng, 4, 200)
    res = cohen_kappa(a, b)
    assert res.statistic == float(tw.ec.kappa_from_counts(t))
    assert res.se == float(np.sqrt(tw.ec.kappa_variance(t)[0]))


def test_kappa_gradient_over_sums_is_the_cell_gradient_by_the_chain_rule():
    """kappa_gradient_sums (n, n11, ca, cb) equals kappa_gradient through
    n10 = ca − n11, n01 = cb − n11, n00 = n − ca − cb + n11, and a finite difference."""
    from trialwise._stats.kappa import kappa_from_counts
    from trialwise._stats.kappa_derivatives import kappa_gradient, kappa_gradient_sums

    gen = np.random.default_rng(5)
    cells = gen.integers(0, 30, size=(200, 4)).astype(float) + 0.5
    n11, n10, n01, n00 = cells.T
    n, ca, cb = cells.sum(1), n11 + n10, n11 + n01
    g = kappa_gradient_sums(n, n11, ca, cb)
    gc = kappa_gradient(cells.reshape(-1, 2, 2))
    g11, g10, g01, g00 = gc[:, 0, 0], gc[:, 0, 1], gc[:, 1, 0], gc[:, 1, 1]
    np.testing.assert_allclose(g, [g00, g11 - g10 - g01 + g00, g10 - g00, g01 - g00], rtol=1e-10, atol=1e-14)

    def kappa_of(n, n11, ca, cb):
        return kappa_from_counts(np.stack([n11, ca - n11, cb - n11, n - ca - cb + n11], -1).reshape(-1, 2, 2))

    eps = 1e-6
    for k, args in enumerate(([n, n11, ca, cb])):
        up = [x + eps if i == k else x for i, x in enumerate((n, n11, ca, cb))]
        down = [x - eps if i == k else x for i, x in enumerate((n, n11, ca, cb))]
        np.testing.assert_allclose(g[k], (kappa_of(*up) - kappa_of(*down)) / (2 * eps), rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("unbiased", [False, True])
def test_kappa_from_sums_with_virtual_items_equals_the_weighted_tables(unbiased):
    """kappa_from_sums with the virtual items' part, in both forms of ``extra`` (products per pair;
    the Walsh–Hadamard form gathered in the slices), against κ of the weighted 2×2 tables built by
    brute force over real and virtual items (scipy's Hadamard matrix), on sums of the engine's
    float32 grid: the two forms give the same bits, for any number of threads, and ``out``."""
    from scipy.linalg import hadamard

    from trialwise.ec.blocks import _sylvester_columns, _walsh_hadamard
    from trialwise._stats.kappa import kappa_from_sums, kappa_from_counts, unbiased_from_kappa

    gen = np.random.default_rng(8)
    n_obs, n_items, b, n_virtual = 7, 40, 600, 8
    right = gen.random((n_items, n_obs)) < 0.7
    seen = gen.random((n_items, n_obs)) < 0.9
    virtual = hadamard(n_virtual)[:, 1:n_obs + 1] > 0
    w = (gen.integers(0, 2**9, size=(b, n_items + n_virtual)) * 2.0**-7).astype(np.float32)  # exact sums
    wi, wv = w[:, :n_items].astype(float), w[:, n_items:].astype(float)
    pairs = np.array([(i, j) for i in range(n_obs) for j in range(i + 1, n_obs)])
    ia, ib = pairs[:, 0], pairs[:, 1]
    s_ab = seen[:, ia] & seen[:, ib]
    sums = [(wi @ c).astype(np.float32) for c in (s_ab, s_ab & right[:, ia] & right[:, ib], s_ab & right[:, ia],
                                                   s_ab & right[:, ib])]
    cells = [s_ab & right[:, ia] & right[:, ib], s_ab & right[:, ia] & ~right[:, ib],
             s_ab & ~right[:, ia] & right[:, ib], s_ab & ~right[:, ia] & ~right[:, ib]]
    v_cells = [virtual[:, ia] & virtual[:, ib], virtual[:, ia] & ~virtual[:, ib],
               ~virtual[:, ia] & virtual[:, ib], ~virtual[:, ia] & ~virtual[:, ib]]
    tables = np.stack([wi @ c + wv @ v for c, v in zip(cells, v_cells)], axis=-1).reshape(b, len(pairs), 2, 2)
    oracle = kappa_from_counts(tables)
    if unbiased:
        oracle = unbiased_from_kappa(oracle, tables.sum(axis=(-2, -1)))
    wv32 = w[:, n_items:]
    products = (wv32.sum(axis=1, keepdims=True), wv32 @ (virtual[:, ia] & virtual[:, ib]).astype(np.float32),
                wv32 @ virtual.astype(np.float32), ia, ib)
    cols = _sylvester_columns(virtual.astype(np.uint8))
    assert cols is not None and (cols == np.arange(1, n_obs + 1)).all()
    f = _walsh_hadamard(wv32)
    np.testing.assert_array_equal(f, wv @ hadamard(n_virtual))
    walsh = (f[:, :1].astype(np.float32), (0.5 * (f - f[:, :1]), cols[ia] ^ cols[ib]), 0.5 * (f[:, :1] + f[:, cols]),
             ia, ib)
    first = kappa_from_sums(*sums, extra=products, unbiased=unbiased, workers=1)
    np.testing.assert_allclose(first, oracle, rtol=1e-13, atol=1e-15)
    for workers in (1, 2, 3):
        out = np.full(first.shape, 7.0)
        got = kappa_from_sums(*sums, extra=walsh, unbiased=unbiased, workers=workers, out=out)
        assert got is out
        np.testing.assert_array_equal(got.view(np.int64), first.view(np.int64))
    # the engine's forms: the parts in float32 (added in float32: exact on the grid), and pairs first
    # (sums (pairs, b), parts (1, b), (K, b), (observers, b), gathered by rows): the same bits
    single = (walsh[0], (walsh[1][0].astype(np.float32), walsh[1][1]), walsh[2].astype(np.float32), ia, ib)
    for parts in (walsh, single):
        for workers in (1, 3):
            got = kappa_from_sums(*sums, extra=parts, unbiased=unbiased, workers=workers)
            np.testing.assert_array_equal(got.view(np.int64), first.view(np.int64))
            rows = (parts[0].T, (parts[1][0].T, parts[1][1]), parts[2].T, ia, ib)
            got = kappa_from_sums(*(np.ascontiguousarray(x.T) for x in sums), extra=rows, unbiased=unbiased,
                                  workers=workers, pairs_first=True)
            np.testing.assert_array_equal(got.T.view(np.int64), first.view(np.int64))
    products_rows = (products[0].T, np.ascontiguousarray(products[1].T), products[2].T, ia, ib)
    got = kappa_from_sums(*(x.T for x in sums), extra=products_rows, unbiased=unbiased, pairs_first=True)
    np.testing.assert_array_equal(got.T.view(np.int64), first.view(np.int64))
    with pytest.raises(ValueError, match="codes"):
        kappa_from_sums(*sums, extra=(walsh[0], (walsh[1][0], walsh[1][1] + n_virtual)) + walsh[2:])
    with pytest.raises(ValueError, match="codes"):
        kappa_from_sums(*(x.T for x in sums), extra=(rows[0], (rows[1][0], rows[1][1] + n_virtual)) + rows[2:],
                        pairs_first=True)
    with pytest.raises(ValueError, match=r"`pairs_first=True` needs sums of shape \(pairs, b\); got shape \(3,\)"):
        kappa_from_sums(np.ones(3), np.ones(3), np.ones(3), np.ones(3), pairs_first=True)


def test_sylvester_columns_are_read_back_or_refused():
    """The virtual items' Hadamard columns are read from their rows (any subset, any order of
    observers); columns that are not Sylvester–Hadamard columns give None (the engine then takes
    the product per pair)."""
    from trialwise.ec.blocks import _sylvester_columns, prior_items

    v = prior_items(20)
    np.testing.assert_array_equal(_sylvester_columns(v[:, [7, 2, 19]]), [8, 3, 20])
    assert _sylvester_columns(1 - v) is None
    assert _sylvester_columns(v[:24]) is None
    w = v.copy()
    w[5, 3] ^= 1
    assert _sylvester_columns(w) is None
