"""Items → count tables (trialwise._stats.tables) against brute-force loops over the items."""

import itertools
import warnings

import numpy as np
import pytest

import trialwise as tw
from trialwise.io.labels import code_labels
from trialwise._stats.tables import (
    agreement_table,
    correctness_table,
    pair_columns,
    pairwise_tables,
    tables_from_sums,
    triplet_margins,
)


def _brute_correctness(*right, seen=None):
    """Count item by item: cell (0 = correct, 1 = wrong) of each observer."""
    m = len(right)
    t = np.zeros((2,) * m, np.int64)
    for i in range(len(right[0])):
        if seen is not None and not seen[i]:
            continue
        t[tuple(0 if r[i] else 1 for r in right)] += 1
    return t


def _brute_pairs(right, seen, pairs, weights=None):
    """Each pair's (weighted) 2×2 table on the items both saw."""
    w = np.ones(right.shape[0]) if weights is None else weights
    out = np.zeros((len(pairs), 2, 2))
    for p, (a, b) in enumerate(pairs):
        for i in range(right.shape[0]):
            if seen[i, a] and seen[i, b]:
                out[p, 1 - right[i, a], 1 - right[i, b]] += w[i]
    return out


def _observers(rng, n_items=80, n_obs=5, missing=0.2):
    right = (rng.random((n_items, n_obs)) < rng.uniform(0.2, 0.9, n_obs)).astype(np.uint8)
    seen = (rng.random((n_items, n_obs)) >= missing).astype(np.uint8)
    return right * seen, seen


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_correctness_table_equals_brute_force(m):
    rng = np.random.default_rng(m)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        right = [rng.random(n) < rng.uniform(0.1, 0.9) for _ in range(m)]
        seen = rng.random(n) < 0.8
        t = correctness_table(*right)
        assert t.dtype == np.int64 and t.shape == (2,) * m
        np.testing.assert_array_equal(t, _brute_correctness(*right))
        np.testing.assert_array_equal(correctness_table(*right, seen=seen), _brute_correctness(*right, seen=seen))
        assert t.sum() == n


def test_correctness_table_of_two_is_n11_n10_n01_n00():
    a = np.array([1, 1, 1, 0, 0, 1, 0], bool)
    b = np.array([1, 0, 1, 1, 0, 0, 0], bool)
    assert correctness_table(a, b).tolist() == [[int(np.sum(a & b)), int(np.sum(a & ~b))],
                                                [int(np.sum(~a & b)), int(np.sum(~a & ~b))]]
    with pytest.raises(TypeError, match="at least one observer"):
        correctness_table()


def test_correctness_from_labels_via_code_labels():
    """Labels → correctness by the one coding rule, then → the table; '1' == 1 == 1.0 == True."""
    truth = [1, 0, 2, "2", 1.0, 0]
    a = ["1", 0, 2, 1, True, "0.0"]
    b = [1.0, 1, "2", 2, 0, False]
    coding = code_labels({"a": a, "b": b, "truth": truth})
    ra, rb = coding.matches("a", "truth"), coding.matches("b", "truth")
    brute = np.zeros((2, 2), int)
    for x, y, z in zip(a, b, truth):  # by hand: compare as numbers
        brute[0 if float(x) == float(z) else 1, 0 if float(y) == float(z) else 1] += 1
    np.testing.assert_array_equal(correctness_table(ra, rb), brute)
    # the public functions give the same table
    np.testing.assert_array_equal(tw.comparison.contingency_table(truth, a, b), brute)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)  # six items: a sparse table
        np.testing.assert_array_equal(tw.error_consistency(a, b, truth, ci_method="analytic").counts, brute)


def test_pairwise_tables_with_missing_data_equal_brute_force():
    rng = np.random.default_rng(7)
    for missing in (0.0, 0.3):
        right, seen = _observers(rng, missing=missing)
        pairs = list(itertools.combinations(range(right.shape[1]), 2))
        got = pairwise_tables(right, seen, pairs)
        assert got.dtype == np.int64 and got.shape == (len(pairs), 2, 2)
        np.testing.assert_array_equal(got, _brute_pairs(right, seen, pairs))
        for p, (a, b) in enumerate(pairs):  # = the one-pair table on the items both saw
            both = (seen[:, a] & seen[:, b]).astype(bool)
            np.testing.assert_array_equal(got[p], correctness_table(right[:, a], right[:, b], seen=both))
    np.testing.assert_array_equal(pairwise_tables(right, None, [(1, 0)]),
                                  _brute_pairs(right, np.ones_like(seen), [(1, 0)]))


@pytest.mark.parametrize("missing, fixed_total", [(0.0, True), (0.0, False), (0.25, True), (0.25, False)])
def test_pair_columns_give_weighted_tables(missing, fixed_total):
    """w @ columns → tables_from_sums = the brute-force weighted tables, for bootstrap and Bayesian weights."""
    rng = np.random.default_rng(8)
    right, seen = _observers(rng, n_items=50, n_obs=4, missing=missing)
    pairs = np.array(list(itertools.combinations(range(4), 2)))
    cols, to_sums = pair_columns(right, seen, pairs, fixed_total=fixed_total)
    counts = rng.multinomial(50, np.full(50, 1 / 50), size=3).astype(float)  # weights summing to n
    weights = counts if fixed_total else rng.exponential(size=(3, 50))
    tables = tables_from_sums(*to_sums(weights @ cols))
    assert tables.shape == (3, len(pairs), 2, 2)
    for r in range(3):
        np.testing.assert_allclose(tables[r], _brute_pairs(right, seen, pairs, weights[r]), rtol=0, atol=1e-9)


def test_tables_from_sums_broadcasts_and_keeps_the_dtype():
    t = tables_from_sums(np.array([10, 20]), np.array([5, 1]), 7, np.array([6, 3]))
    assert t.dtype.kind == "i" and t.tolist() == [[[5, 2], [1, 2]], [[1, 6], [2, 11]]]
    assert tables_from_sums(10.0, 5, 7, 6).dtype == np.float64


def test_triplet_table_and_margins():
    rng = np.random.default_rng(9)
    r, x, y = (rng.random(70) < q for q in (0.8, 0.7, 0.6))
    t = correctness_table(r, x, y)
    np.testing.assert_array_equal(t, _brute_correctness(r, x, y))
    rx, ry = triplet_margins(t)
    np.testing.assert_array_equal(rx, correctness_table(r, x))
    np.testing.assert_array_equal(ry, correctness_table(r, y))
    # the public difference function counts the same triplets
    res = tw.error_consistency_difference(r, x, y, n_resamples=20, rng=0)
    np.testing.assert_array_equal(res.counts, t)


def test_agreement_table_from_coded_labels_equals_brute_force():
    rng = np.random.default_rng(10)
    classes = ["cat", "dog", "3", "3.0", "2.5"]  # "3" and "3.0" are one class
    a = [classes[i] for i in rng.integers(0, 5, 120)]
    b = [classes[i] for i in rng.integers(0, 5, 120)]
    coding = code_labels({"a": a, "b": b})
    t = agreement_table(coding.codes["a"], coding.codes["b"], coding.k)
    assert coding.k == 4 and t.dtype == np.int64 and t.shape == (4, 4)
    brute = np.zeros((4, 4), np.int64)
    def key(label):  # by hand: text that reads as a number is that number
        return float(label) if label[0].isdigit() else label

    index = {key(c): i for i, c in enumerate(coding.classes)}
    for x, y in zip(a, b):
        brute[index[key(x)], index[key(y)]] += 1
    np.testing.assert_array_equal(t, brute)
    np.testing.assert_array_equal(tw.comparison.agreement_matrix(a, b).to_numpy(), brute)


def test_agreement_table_leaves_out_missing_codes():
    a = np.array([0, 1, -1, 2, 2, 1])
    b = np.array([0, 1, 1, -1, 2, 0])
    brute = np.zeros((3, 3), np.int64)
    for x, y in zip(a, b):
        if x >= 0 and y >= 0:
            brute[x, y] += 1
    np.testing.assert_array_equal(agreement_table(a, b, 3), brute)


def test_no_other_module_counts_items():
    """Every items → counts step of the package goes through trialwise._stats.tables."""
    import pathlib
    import re

    root = pathlib.Path(tw.__file__).parent
    allowed = {
        "_stats/tables.py",
        "_stats/resampling.py",                # bootstrap weights: how often each item is drawn, not a table
        "leaderboards/hierarchy.py",         # trials per (experiment, condition), bookkeeping
        "leaderboards/swap.py",              # how many items share each row of the swap's Δ, bookkeeping
        "comparison/ensemble.py",         # class frequencies of the truth (one-way)
        "comparison/probabilities.py",    # class frequencies of the truth (one-way): which classes occur
        "comparison/calibration.py",      # calibration bins
    }
    found = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if re.search(r"np\.(bincount|add\.at)\(", p.read_text()) and str(p.relative_to(root)) not in allowed]
    assert not found, f"count tables built outside trialwise._stats.tables in {found}"


def test_cluster_sums_match_a_loop():
    from trialwise._stats.tables import cluster_sums

    gen = np.random.default_rng(0)
    cols = gen.integers(0, 3, (40, 5))
    codes = gen.integers(0, 7, 40)
    brute = np.array([[cols[codes == c, j].sum() for j in range(5)] for c in range(codes.max() + 1)])
    got = cluster_sums(cols, codes)
    np.testing.assert_array_equal(got, brute)
    assert got.dtype == np.int64 and cluster_sums(cols / 2.0, codes).dtype == np.float64
