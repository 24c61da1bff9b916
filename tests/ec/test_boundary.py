"""The boundary rule of the EC intervals: an estimate at a bound of κ is inside its own interval.

Where κ̂ is the largest (EC = 1, or κ_max of its accuracies) or smallest (EC = −1, or κ_min)
value its table's accuracies allow and an interval's end on that side falls short of it, that end
becomes κ̂ (``trialwise.ec.inference.hold_estimate``); every other interval is unchanged bit for
bit. Oracles: every 2×2 table of small n, with the bounds from ``tw.ec.kappa_bounds`` of the
accuracies (not from the cells), and the intervals computed with the rule switched off.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.kappa import kappa_from_counts, unbiased_from_kappa
from trialwise._stats.resampling import multinomial_tables, posterior_tables
from trialwise.ec import inference

# tiny and extreme tables on purpose: their sparse-table and degenerate-data warnings are not what is tested
pytestmark = pytest.mark.filterwarnings("ignore::trialwise.SparseTableWarning",
                                        "ignore::trialwise.UndefinedReplicatesWarning")


def all_tables(n):
    return np.array([[[a, b], [c, n - a - b - c]] for a in range(n + 1) for b in range(n + 1 - a)
                     for c in range(n + 1 - a - b)], dtype=float)


@pytest.fixture
def no_rule(monkeypatch):
    """The intervals as they were before the rule: ``hold_estimate`` replaced by the identity."""
    def switch_off():
        monkeypatch.setattr(inference, "hold_estimate", lambda counts, statistic, low, high: (low, high))
    return switch_off


@pytest.mark.parametrize("n", [2, 7, 20, 41])
def test_at_bounds_matches_kappa_bounds_of_the_accuracies(n):
    t = all_tables(n)
    acc_a, acc_b = t[:, 0].sum(axis=1) / n, t[:, :, 0].sum(axis=1) / n
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        k_lo, k_hi = tw.ec.kappa_bounds(acc_a, acc_b)
    est = kappa_from_counts(t)
    defined = ~np.isnan(est)
    upper, lower = inference.at_bounds(t)
    assert np.array_equal(upper[defined], np.isclose(est, k_hi, rtol=0, atol=1e-12)[defined])
    assert np.array_equal(lower[defined], np.isclose(est, k_lo, rtol=0, atol=1e-12)[defined])
    # EC = 1 exactly when both off-diagonal cells are empty, −1 exactly when the table is [[0, k], [k, 0]]
    assert np.array_equal(np.isclose(est, 1, rtol=0, atol=1e-12)[defined],
                          ((t[:, 0, 1] == 0) & (t[:, 1, 0] == 0))[defined])
    assert np.array_equal(np.isclose(est, -1, rtol=0, atol=1e-12)[defined],
                          ((t[:, 0, 0] == 0) & (t[:, 1, 1] == 0) & (t[:, 0, 1] == t[:, 1, 0]))[defined])


@pytest.mark.parametrize("unbiased", [False, True])
@pytest.mark.parametrize("n", [6, 20, 40])
def test_every_table_holds_its_estimate_and_only_boundary_tables_change(n, unbiased, no_rule):
    """Brute force over every table of n items and every interval method: with the rule, every defined
    estimate is inside its interval; without it, the Jeffreys interval excludes EC = 1 and −1; the two
    differ only at tables at a bound, and there only by the end that becomes the estimate."""
    t = all_tables(n)
    est = kappa_from_counts(t)
    if unbiased:
        est = unbiased_from_kappa(est, np.full(len(t), float(n)))
    upper, lower = inference.at_bounds(t)
    defined = ~np.isnan(est)
    b = 400
    dists = {"jeffreys": posterior_tables(t, b, rng=0, statistic=kappa_from_counts),
             "bootstrap": multinomial_tables(t / n, n, size=b, rng=0, order_free=True, statistic=kappa_from_counts)}
    before, after = {}, {}
    for m in CI_METHODS:
        dist = None if m == "analytic" else dists["jeffreys" if m == "jeffreys" else "bootstrap"]
        if unbiased and dist is not None:
            dist = unbiased_from_kappa(dist, np.full(dist.shape, float(n)))
        opts = inference.check_options(0.95, m, "fisher", b, unbiased, 0)
        after[m] = inference.kappa_intervals(t, est, dist, opts)[:2]
    no_rule()
    for m in CI_METHODS:
        dist = None if m == "analytic" else dists["jeffreys" if m == "jeffreys" else "bootstrap"]
        if unbiased and dist is not None:
            dist = unbiased_from_kappa(dist, np.full(dist.shape, float(n)))
        opts = inference.check_options(0.95, m, "fisher", b, unbiased, 0)
        before[m] = inference.kappa_intervals(t, est, dist, opts)[:2]
    for m in CI_METHODS:
        (lo0, hi0), (lo, hi) = before[m], after[m]
        has = defined & ~np.isnan(lo) & ~np.isnan(hi)
        assert np.all((lo[has] <= est[has]) & (est[has] <= hi[has])), m
        off = ~upper & ~lower
        assert np.array_equal(lo[off], lo0[off], equal_nan=True) and np.array_equal(hi[off], hi0[off], equal_nan=True)
        # at a bound: an end moves only on its own side, only to the estimate, only when it fell short
        moved_hi = ~((hi == hi0) | (np.isnan(hi) & np.isnan(hi0)))
        moved_lo = ~((lo == lo0) | (np.isnan(lo) & np.isnan(lo0)))
        assert np.all(upper[moved_hi] & (hi0[moved_hi] < est[moved_hi]) & (hi[moved_hi] == est[moved_hi])), m
        assert np.all(lower[moved_lo] & (lo0[moved_lo] > est[moved_lo]) & (lo[moved_lo] == est[moved_lo])), m
    ec_one = defined & (t[:, 0, 1] == 0) & (t[:, 1, 0] == 0)
    assert ec_one.sum() == n - 1  # every split of the n items into both-right and both-wrong, both non-empty
    assert np.all(before["jeffreys"][1][ec_one] < 1) and np.all(after["jeffreys"][1][ec_one] == 1)
    if n % 2 == 0:  # [[0, n/2], [n/2, 0]]: EC = −1 (κ_u = −n/(n − 2) with the bias correction)
        i = np.flatnonzero((t[:, 0, 0] == 0) & (t[:, 1, 1] == 0) & (t[:, 0, 1] == n // 2))[0]
        assert before["jeffreys"][0][i] > est[i] and after["jeffreys"][0][i] == est[i]


def test_identical_observers_on_40_questions():
    """The defect of issue 31: EC 1.0 [0.821, 0.9986] became an interval that ends at 1."""
    rng = np.random.default_rng(3)
    a = rng.random(40) < 0.75
    res = tw.error_consistency(a, a.copy(), rng=0)
    assert res.statistic == 1.0
    assert res.confidence_interval.high == 1.0
    assert 0.5 < res.confidence_interval.low < 0.95  # the lower end is the posterior's, as before
    (note,) = [x for x in res.notes if x.kind == "boundary"]
    assert note.values == {"side": "upper", "statistic": 1.0, "bound": 1.0}
    assert "largest value" in note and "upper end is the estimate" in note
    assert res.to_frame()["ci_high"].iloc[0] == 1.0


def test_lower_end_at_ec_minus_one_and_below_minus_one_for_the_bias_corrected_kappa():
    res = tw.error_consistency(counts=[[0, 20], [20, 0]], rng=0)
    assert res.statistic == -1.0 and res.confidence_interval.low == -1.0
    assert -1 < res.confidence_interval.high < 0
    assert [x.values["side"] for x in res.notes if x.kind == "boundary"] == ["lower"]
    unb = tw.error_consistency(counts=[[0, 20], [20, 0]], unbiased=True, rng=0)
    assert unb.statistic == pytest.approx(-40 / 38, abs=1e-12)  # κ_u = −n/(n − 2), below −1
    assert unb.confidence_interval.low == unb.statistic  # was clipped to −1, outside its own estimate
    # κ_min of unequal accuracies with the bias correction, below −1 as well
    unb = tw.error_consistency(counts=[[0, 19], [21, 0]], unbiased=True, ci_method="percentile", rng=0)
    assert unb.statistic < -1 and unb.confidence_interval.low == unb.statistic


def test_percentile_interval_at_ec_minus_one_with_many_items(no_rule):
    """At [[0, k], [k, 0]] a bootstrap replicate is −1 only when it keeps the two cells equal,
    P ≈ 1/√(πk): below 2.5 % from k ≈ 510 on, so the percentile interval started above −1 (the
    highest-density interval keeps that point mass: it holds −1 without the rule)."""
    table = [[0, 1500], [1500, 0]]
    res = tw.error_consistency(counts=table, ci_method="percentile", n_resamples=2000, rng=0)
    assert res.confidence_interval.low == -1.0
    assert [x.kind for x in res.notes] == ["boundary"]
    assert tw.error_consistency(counts=table, ci_method="hdi", n_resamples=2000, rng=0).confidence_interval.low == -1
    no_rule()
    assert tw.error_consistency(counts=table, ci_method="percentile", n_resamples=2000, rng=0).confidence_interval.low > -1


def test_tables_at_kappa_max_keep_their_interval(no_rule):
    """One off-diagonal cell empty: κ̂ = κ_max of its accuracies, but the posterior's accuracies vary, so
    its draws fall on both sides and the interval already holds κ̂: nothing moves, no note."""
    tables = ([[30, 0], [5, 5]], [[25, 8], [0, 7]], [[0, 15], [20, 5]], [[20, 12], [8, 0]])
    with_rule = []
    for table in tables:
        res = tw.error_consistency(counts=table, rng=1)
        assert res.statistic in (pytest.approx(res.kappa_min, abs=1e-12), pytest.approx(res.kappa_max, abs=1e-12))
        assert res.confidence_interval.low < res.statistic < res.confidence_interval.high
        assert not [x for x in res.notes if x.kind == "boundary"]
        with_rule.append(tuple(res.confidence_interval))
    no_rule()
    assert [tuple(tw.error_consistency(counts=t, rng=1).confidence_interval) for t in tables] == with_rule


def test_every_method_holds_ec_one_and_notes_only_the_boundary_end():
    for m in CI_METHODS:
        res = tw.error_consistency(counts=[[12, 0], [0, 8]], ci_method=m, n_resamples=500, rng=0)
        assert res.confidence_interval.high == 1.0, m
        assert [x.values["side"] for x in res.notes if x.kind == "boundary"] == ["upper"], m


def test_no_boundary_note_where_ec_is_zero_by_construction_or_undefined():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.DegenerateDataWarning)
        for table in ([[30, 10], [0, 0]], [[40, 0], [0, 0]], [[0, 0], [10, 30]]):
            res = tw.error_consistency(counts=table, rng=0)
            assert not [x for x in res.notes if x.kind == "boundary"]


def test_pairwise_many_pairs_at_once(no_rule):
    """Vectorised over pairs: the pairs at a bound hold their estimate and say so; the others
    have the intervals of the same draws without the rule, bit for bit."""
    rng = np.random.default_rng(5)
    base = rng.random(60) < 0.7
    frame = pd.DataFrame({"a": base, "a_copy": base.copy(), "other": rng.random(60) < 0.8,
                          "third": rng.random(60) < 0.6})
    for method in ("jeffreys", "percentile", "analytic"):
        res = tw.pairwise_error_consistency(frame, ci_method=method, n_resamples=1000, rng=0)
        i = next(k for k, (x, y) in enumerate(zip(res.observer_a, res.observer_b)) if {x, y} == {"a", "a_copy"})
        assert res.statistic[i] == 1.0 and res.confidence_interval.high[i] == 1.0
        assert [x.kind for x in res.pair_notes[i]] == ["boundary"]
        assert sum(len(x) for x in res.pair_notes) == 1
        assert res.pair("a", "a_copy").confidence_interval.high == 1.0
    # the same draws without the rule: only the (a, a_copy) interval differs
    res = tw.pairwise_error_consistency(frame, n_resamples=1000, rng=0)
    no_rule()
    old = tw.pairwise_error_consistency(frame, n_resamples=1000, rng=0)
    differs = (res.confidence_interval.low != old.confidence_interval.low) | (
        res.confidence_interval.high != old.confidence_interval.high)
    assert differs.tolist() == [bool({x, y} == {"a", "a_copy"}) for x, y in zip(res.observer_a, res.observer_b)]
    assert old.confidence_interval.high[differs][0] < 1


def test_pairwise_with_clusters_holds_ec_one():
    rng = np.random.default_rng(6)
    base = rng.random(80) < 0.7
    frame = pd.DataFrame({"a": base, "b": base.copy(), "c": rng.random(80) < 0.8})
    clusters = np.repeat(np.arange(16), 5)
    for method in ("jeffreys", "jackknife-t"):
        res = tw.pairwise_error_consistency(frame, clusters=clusters, ci_method=method, n_resamples=500, rng=0)
        one = res.pair("a", "b")
        assert one.statistic == 1.0 and one.confidence_interval.high == 1.0


def coverage(n, acc, kappa, datasets, resamples, seed, rule, monkeypatch):
    """Coverage of the Jeffreys interval (``tw.validity.coverage_study``) and the share of undefined estimates."""
    grid = tw.validity.study_grid(n=[n], accuracies=[acc], kappas=[kappa])
    if not rule:
        monkeypatch.setattr(inference, "hold_estimate", lambda counts, statistic, low, high: (low, high))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        row = tw.validity.coverage_study(grid, methods=["jeffreys"], confidence_levels=[0.95], n_datasets=datasets,
                                         n_resamples=resamples, rng=seed).table.iloc[0]
    monkeypatch.undo()
    return row.coverage, row.share_undefined_estimate


def test_coverage_of_a_true_copy_light(monkeypatch):
    """Light twin of the slow test: a true copy (κ = 1), n = 20, accuracies 0.8 (R = 400, B = 400). Every
    table is then free of disagreement; before the rule no Jeffreys interval reached 1 (coverage 0); with it
    every table with a defined estimate covers. The tables with every item in one cell (EC undefined,
    0.8²⁰ + 0.2²⁰ ≈ 1.2 %) keep the posterior's interval, which ends below 1."""
    before, undefined = coverage(20, 0.8, 1.0, 400, 400, 0, False, monkeypatch)
    after, _ = coverage(20, 0.8, 1.0, 400, 400, 0, True, monkeypatch)
    assert before == 0
    assert after == pytest.approx(1 - undefined, abs=1e-12) and after > 0.95


def test_the_rule_never_lowers_coverage_near_the_ceiling_light(monkeypatch):
    """n = 20, accuracies 0.8, κ = 0.98 (R = 400, B = 400): about 88 % of the tables have no disagreement;
    an end that moves goes outwards, so the coverage cannot drop (it stays at ≈ 88 %: the misses are the
    tables with every item in one cell, whose EC is undefined; docs/validity.md)."""
    before, _ = coverage(20, 0.8, 0.98, 400, 400, 0, False, monkeypatch)
    after, _ = coverage(20, 0.8, 0.98, 400, 400, 0, True, monkeypatch)
    assert after >= before > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("n, acc", [(20, 0.9), (40, 0.7), (60, 0.8)])
def test_coverage_of_a_true_copy(n, acc, monkeypatch):
    """A true copy at small n (R = 2000, B = 1000): coverage 0 before the rule, and with it exactly the share
    of tables with a defined estimate."""
    before, undefined = coverage(n, acc, 1.0, 2000, 1000, 1, False, monkeypatch)
    after, _ = coverage(n, acc, 1.0, 2000, 1000, 1, True, monkeypatch)
    assert before == 0
    assert after == pytest.approx(1 - undefined, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("n, acc, kappa", [(20, 0.8, 0.95), (40, 0.8, 0.98), (60, 0.8, 0.995), (40, 0.7, 0.9)])
def test_coverage_near_the_ceiling(n, acc, kappa, monkeypatch):
    """High true agreement at small n (R = 2000, B = 1000; SE ≈ 0.6 pp): the rule only widens intervals at the
    bound, so coverage does not drop; and where the estimate is defined, the Jeffreys interval stays above
    85 % (its misses near the ceiling are mostly the one-cell tables: boundary_coverage.py, docs/validity.md)."""
    before, _ = coverage(n, acc, kappa, 2000, 1000, 1, False, monkeypatch)
    after, _ = coverage(n, acc, kappa, 2000, 1000, 1, True, monkeypatch)
    assert after >= before
    assert after >= 0.85


def test_the_comparison_report_row_holds_ec_one_and_says_so():
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, 40)
    pred = truth.copy()
    pred[:8] = (pred[:8] + 1) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        row = tw.compare(truth, pred, pred.copy(), rng=0)["error-consistency"]
    assert row.statistic == 1.0 and row.confidence_interval.high == 1.0
    assert [x.values["side"] for x in row.notes if x.kind == "boundary"] == ["upper"]
