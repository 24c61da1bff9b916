"""Brain-Score's value delta and OST correlation with CIs, and the sign of error consistency (issue 19, items 2-4).

Oracles: Brain-Score's arithmetic re-implemented here from its source (brain-score/vision at
commit c642dbe: ``metrics/value_delta/metric.py``, ``benchmarks/ferguson2024/benchmark.py``
with ``helpers.split_dataframe``, ``metrics/ost/metric.py`` ``correlate``,
``metrics/error_consistency/metric.py`` ``aggregate``), scipy.stats.spearmanr, sklearn's κ.
Calibration: CI-light coverage studies on simulated data with known truth (R and B below;
the full study is benchmarks/calibration/brainscore_metrics_coverage.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm, spearmanr
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
import trialwise.brainscore as bs
from trialwise._stats.resampling import bootstrap_weights
from trialwise._stats.splits import split_orders
from trialwise.brainscore.ceiling import first_halves, half_splits, spearman_brown, split_half_ceiling
from trialwise._stats.streams import child_rngs

# --------------------------------------------------------------------------- Brain-Score's arithmetic, written here


def bs_value_delta(source_value, target_value, scale=1.0):
    """ValueDelta.__call__: 1 / exp(scale * |s - t|), clipped to [0, 1]."""
    abs_diff = float(np.abs(source_value - target_value))
    center = 1 / (np.exp(scale * abs_diff))
    return min(max(center, 0), 1)


def bs_split_dataframe(n, seed):
    """helpers.split_dataframe on n presentations: np.random.seed(seed); permutation; halves."""
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        shuffled = np.random.permutation(n)
    finally:
        np.random.set_state(state)
    return shuffled[: n // 2], shuffled[n // 2:]


def bs_ceiling(trials, scale, num_loops):
    """calculate_ceiling(precompute_ceiling=False) with the scalar = mean of the trials."""
    scores = []
    for i in range(num_loops):
        h1, h2 = bs_split_dataframe(trials.size, i)
        scores.append(bs_value_delta(trials[h1].mean(), trials[h2].mean(), scale))
    return np.mean(scores), np.std(scores)


# --------------------------------------------------------------------------- value delta


@pytest.mark.parametrize("s, t, expected", [(1.25, 1.25, 1.0), (1.5, 1.0, 0.6065), (1.0, 1.5, 0.6065),
                                            (1.0, -1.0, 0.1353), (-1.0, 1.0, 0.1353), (-5.0, 5.0, 0.0)])
def test_value_delta_reproduces_brainscore_tests(s, t, expected):
    res = bs.value_delta(s, t, source_se=0, target_se=0)
    assert res.raw == pytest.approx(expected, abs=5e-4)  # Brain-Score's own test tolerance
    assert res.raw == pytest.approx(bs_value_delta(s, t), abs=1e-15)
    assert res.ceiling.statistic == 1.0 and res.statistic == pytest.approx(res.raw, abs=1e-15)
    assert res.raw_interval.low == pytest.approx(res.raw) and res.raw_interval.high == pytest.approx(res.raw)


@pytest.mark.parametrize("scale", [1.0, 0.75, 3.0])
def test_value_delta_ceiling_and_score_equal_brainscore_arithmetic(scale):
    g = np.random.default_rng(7)
    model, humans = g.random(150) < 0.6, (g.random(301) < 0.7).astype(float)
    res = bs.value_delta(model, humans, scale=scale, n_splits=200, n_resamples=50, rng=1)
    c_mean, _ = bs_ceiling(humans, scale, 200)
    raw = bs_value_delta(model.mean(), humans.mean(), scale)
    assert res.raw == pytest.approx(raw, abs=1e-12)
    assert res.ceiling.statistic == pytest.approx(c_mean, abs=1e-12)
    assert res.statistic == pytest.approx(min(max(raw / c_mean, 0), 1), abs=1e-12)  # Ferguson2024 __call__
    assert bs.value_delta(model, humans, scale=scale, ceiling=0.883, n_resamples=20).statistic == pytest.approx(
        min(max(raw / 0.883, 0), 1), abs=1e-12)


@pytest.mark.parametrize("n", [4, 7, 301])
def test_value_delta_splits_are_brainscores_split_dataframe(n):
    """The value-delta ceiling's halves: Brain-Score's helpers.split_dataframe(df, seed=i) for split i."""
    for i, mask in enumerate(half_splits(n, 5, stream="brainscore-value-delta")):
        h1, h2 = bs_split_dataframe(n, i)
        assert set(np.flatnonzero(mask)) == set(h1.tolist()) and set(np.flatnonzero(~mask)) == set(h2.tolist())


def test_half_splits_of_a_subset_are_its_first_members_in_each_order():
    """first_halves: in every split, the k // 2 members of the subset that come first in the split's order."""
    orders = split_orders(12, 30, rng=4)
    for members in ([0, 1], [3, 5, 7], [11, 2, 9, 4, 6], list(range(12))):
        halves = first_halves(orders, members)
        for order, half in zip(orders, halves):
            first = sorted(members, key=lambda m: order[m])[: len(members) // 2]
            assert sorted(np.asarray(members)[half].tolist()) == sorted(first)
    assert np.array_equal(first_halves(orders, range(12)), half_splits(12, 30, rng=4))


def test_spearman_brown_step_of_the_split_half_ceilings():
    r = np.array([-0.5, 0.0, 0.3, 0.8, 1.0, np.nan])
    np.testing.assert_allclose(spearman_brown(r), [-2.0, 0.0, 0.6 / 1.3, 1.6 / 1.8, 1.0, np.nan], rtol=1e-15)
    assert np.array_equal(split_half_ceiling(r, "split-half"), r, equal_nan=True)
    np.testing.assert_allclose(split_half_ceiling(r[1:], "attenuation"), np.sqrt(spearman_brown(r[1:])), rtol=0)
    assert np.isnan(split_half_ceiling(-0.5, "attenuation")) and spearman_brown(-1.0) == -np.inf


def test_half_splits_bad_input():
    with pytest.raises(tw.InvalidValueError, match=r"`n` must be an integer >= 2; got 1"):
        half_splits(1, 3, rng=0)
    with pytest.raises(tw.InvalidValueError, match=r"`rng` must be None with stream='brainscore-value-delta'"):
        half_splits(10, 3, rng=0, stream="brainscore-value-delta")


def test_value_delta_scalar_interval_is_the_image_of_the_normal_interval_of_the_difference():
    s, t, se_s, se_t = 0.9, 0.6, 0.05, 0.08
    res = bs.value_delta(s, t, source_se=se_s, target_se=se_t, n_resamples=40000, rng=2)
    sd = np.hypot(se_s, se_t)
    lo_d, hi_d = norm.ppf([0.025, 0.975], loc=s - t, scale=sd)  # interval of Δ excludes 0 here
    mc = 3 * sd * 0.02  # Monte-Carlo error of a 2.5 % quantile at B = 40000, generously
    assert res.raw_interval.low == pytest.approx(np.exp(-hi_d), abs=mc)
    assert res.raw_interval.high == pytest.approx(np.exp(-lo_d), abs=mc)
    # an interval of Δ that contains 0 maps to an upper end of exactly 1
    assert bs.value_delta(0.61, 0.6, source_se=0.05, target_se=0.05, n_resamples=2000, rng=0).raw_interval.high == 1.0


def test_value_delta_trials_bootstrap_is_the_index_bootstrap_of_the_means():
    g = np.random.default_rng(3)
    model, humans = g.normal(1.0, 1.0, 80), g.normal(1.3, 1.0, 120)
    res = bs.value_delta(model, humans, ceiling=1.0, n_resamples=300, rng=5)
    g_s, g_t = child_rngs(5, 2)
    ms = np.concatenate([w @ model for w in bootstrap_weights(model.size, 300, rng=g_s)]) / model.size
    mt = np.concatenate([w @ humans for w in bootstrap_weights(humans.size, 300, rng=g_t)]) / humans.size
    np.testing.assert_allclose(res.raw_distribution, np.exp(-np.abs(ms - mt)), rtol=1e-10)
    q = np.quantile(ms - mt, [0.025, 0.975])
    assert res.raw_interval.low == pytest.approx(np.exp(-np.abs(q).max()), rel=1e-9)


def _coverage(lo, hi, truth):
    lo, hi = np.asarray(lo), np.asarray(hi)
    return float(np.mean((lo <= truth + 1e-12) & (truth <= hi + 1e-12)))


@pytest.mark.parametrize("p_s, p_t", [(0.70, 0.78), (0.75, 0.75)])
def test_value_delta_intervals_cover_on_simulated_accuracies(p_s, p_t):
    # CI-light: R = 150 experiments, B = 400, n = 200 model and 300 human trials, scale 0.75,
    # 100 splits. Monte-Carlo SE of a coverage near 0.95 at R = 150 is 0.018; bounds 3 SE.
    scale, n_s, n_t, reps = 0.75, 200, 300, 150
    g = np.random.default_rng(11)
    true_raw = np.exp(-scale * abs(p_s - p_t))
    # the ceiling's estimand: E exp(-scale |mean(half 1) - mean(half 2)|) with 150 trials per half
    h = g.binomial(n_t // 2, p_t, (2, 400000)) / (n_t // 2)
    true_ceiling = float(np.exp(-scale * np.abs(h[0] - h[1])).mean())
    raw_ci, c_ci, s_ci = [], [], []
    for r in range(reps):
        res = bs.value_delta(g.random(n_s) < p_s, g.random(n_t) < p_t, scale=scale, n_splits=100, n_resamples=400,
                             rng=r)
        raw_ci.append(tuple(res.raw_interval)), c_ci.append(tuple(res.ceiling.confidence_interval))
        s_ci.append(tuple(res.confidence_interval))
    cov_raw = _coverage(*zip(*raw_ci), true_raw)
    cov_c = _coverage(*zip(*c_ci), true_ceiling)
    cov_s = _coverage(*zip(*s_ci), min(true_raw / true_ceiling, 1))
    assert cov_raw >= 0.95 - 3 * 0.018, cov_raw
    assert 0.95 - 3 * 0.018 <= cov_c <= 1.0, cov_c
    assert cov_s >= 0.95 - 3 * 0.018, cov_s


# --------------------------------------------------------------------------- OST


def bs_correlate(predicted_osts, target_osts):
    """OSTCorrelation.correlate: drop images where either OST is NaN, then Spearman."""
    non_nan = np.logical_and(~np.isnan(predicted_osts), ~np.isnan(target_osts))
    return spearmanr(predicted_osts[non_nan], target_osts[non_nan])[0]


def _osts(g, n=150, reps=6, noise_model=0.8, noise_target=1.5):
    d = g.normal(size=n)
    return 100 + 20 * (d + noise_model * g.normal(size=n)), 120 + 20 * (d[:, None] + noise_target * g.normal(size=(n, reps)))


def test_ost_raw_is_brainscore_correlate_with_its_nan_rule():
    g = np.random.default_rng(0)
    model, target = _osts(g)
    model[[3, 17, 40]] = np.nan  # never solved by the model
    target[[5, 17], :] = np.nan  # never solved by the monkeys
    target[8, :3] = np.nan  # some replicates missing: the mean of the others
    res = bs.ost_correlation(model, target, n_resamples=50, rng=0)
    t_mean = np.array([row[~np.isnan(row)].mean() if (~np.isnan(row)).any() else np.nan for row in target])
    assert res.raw == pytest.approx(bs_correlate(model, t_mean), abs=1e-12)
    one = bs.ost_correlation(model, t_mean, n_resamples=50, rng=0)
    assert one.raw == pytest.approx(res.raw, abs=1e-12) and one.ceiling.statistic == 1.0
    assert bs.ost_correlation(model, t_mean, ceiling=0.79, n_resamples=20).statistic == pytest.approx(
        min(max(res.raw / 0.79, 0), 1), abs=1e-12)


def test_ost_bootstrap_is_the_brute_force_index_bootstrap_with_scipy():
    g = np.random.default_rng(1)
    model, target = _osts(g, n=40, reps=2)
    model = np.round(model / 5) * 5  # ties, as time bins give
    res = bs.ost_correlation(model, target, n_resamples=60, rng=9, ceiling_method="split-half")
    _, g_boot = child_rngs(9, 2)
    t_mean = target.mean(axis=1)
    raw, ceil = [], []
    for w in bootstrap_weights(40, 60, rng=g_boot):
        for row in w:
            idx = np.repeat(np.arange(40), row)
            raw.append(spearmanr(model[idx], t_mean[idx])[0])
            ceil.append(spearmanr(target[idx, 0], target[idx, 1])[0])  # two replicates: every split is 0 vs 1
    np.testing.assert_allclose(res.raw_distribution, raw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.ceiling.bootstrap_distribution, ceil, rtol=1e-10, atol=1e-12)
    assert res.ceiling.statistic == pytest.approx(spearmanr(target[:, 0], target[:, 1])[0], abs=1e-12)
    lo, hi = np.quantile(raw, [0.025, 0.975])
    assert tuple(res.raw_interval) == pytest.approx((lo, hi), abs=1e-12)


def test_ost_split_half_ceiling_and_spearman_brown():
    g = np.random.default_rng(2)
    model, target = _osts(g, n=100, reps=4)
    # four replicates: three distinct half splits {01|23}, {02|13}, {03|12}
    split_r = [spearmanr(target[:, a].mean(1), target[:, b].mean(1))[0]
               for a, b in [([0, 1], [2, 3]), ([0, 2], [1, 3]), ([0, 3], [1, 2])]]
    res = bs.ost_correlation(model, target, n_splits=400, n_resamples=20, rng=3, ceiling_method="split-half")
    assert min(split_r) <= res.ceiling.statistic <= max(split_r)
    assert res.ceiling.statistic == pytest.approx(np.mean(split_r), abs=0.03 * np.ptp(split_r) + 1e-9)
    r = res.ceiling.statistic
    sb = bs.ost_correlation(model, target, n_splits=400, n_resamples=20, rng=3, ceiling_method="spearman-brown")
    assert sb.ceiling.statistic == pytest.approx(2 * r / (1 + r), abs=1e-12) and "spearman-brown" in sb.ceiling.method
    at = bs.ost_correlation(model, target, n_splits=400, n_resamples=20, rng=3, ceiling_method="attenuation")
    assert at.ceiling.statistic == pytest.approx(np.sqrt(2 * r / (1 + r)), abs=1e-12)
    np.testing.assert_allclose(at.ceiling.bootstrap_distribution, np.sqrt(sb.ceiling.bootstrap_distribution), rtol=1e-12)


def test_ost_attenuation_ceiling_scores_a_model_of_the_true_osts_about_one():
    # a model whose OSTs are the target's true ones: raw ρ is attenuated by the target's noise only
    g = np.random.default_rng(5)
    truth = g.normal(size=400)
    target = truth[:, None] + 1.2 * g.normal(size=(400, 8))
    scores = {m: bs.ost_correlation(truth, target, ceiling_method=m, n_resamples=200, rng=0)
              for m in ("split-half", "spearman-brown", "attenuation")}
    assert scores["split-half"].raw > scores["split-half"].ceiling.statistic  # split-half ceiling: score clipped at 1
    assert scores["attenuation"].raw / scores["attenuation"].ceiling.statistic == pytest.approx(1, abs=0.05)


def test_ost_negative_ceiling_warns_and_scores_nan():
    g = np.random.default_rng(4)
    target = g.normal(size=(30, 2))
    target[:, 1] = -target[:, 0] + 0.1 * g.normal(size=30)  # the two halves disagree
    for method in ("attenuation", "split-half"):
        with pytest.warns(tw.DegenerateDataWarning, match=r"split-half correlation of the target is -0\.\d+ ≤ 0"):
            res = bs.ost_correlation(g.normal(size=30), target, n_resamples=50, rng=0, ceiling_method=method)
        assert np.isnan(res.statistic) and np.isnan(res.ceiling.statistic)


def test_ost_intervals_cover_on_simulated_solution_times():
    # CI-light: R = 120 simulated experiments of 150 images × 6 replicates, B = 400, 10 splits.
    # Truth for bivariate normal data: Spearman = (6/π) asin(ρ/2). MC SE at R = 120 is 0.020; 3 SE.
    n, m, nm, nt, reps = 150, 6, 0.8, 1.5, 120
    rho_raw = 1 / np.sqrt((1 + nm**2) * (1 + nt**2 / m))
    rho_half = 1 / (1 + 2 * nt**2 / m)
    true_raw, half = (6 / np.pi * np.arcsin(r / 2) for r in (rho_raw, rho_half))
    true_ceiling = np.sqrt(2 * half / (1 + half))  # the default ceiling, "attenuation"
    g = np.random.default_rng(12)
    out = []
    for r in range(reps):
        model, target = _osts(g, n=n, reps=m, noise_model=nm, noise_target=nt)
        res = bs.ost_correlation(model, target, n_splits=10, n_resamples=400, rng=r)
        out.append((*res.raw_interval, *res.ceiling.confidence_interval, *res.confidence_interval))
    a = np.array(out)
    for cov in (_coverage(a[:, 0], a[:, 1], true_raw), _coverage(a[:, 2], a[:, 3], true_ceiling),
                _coverage(a[:, 4], a[:, 5], min(true_raw / true_ceiling, 1))):
        assert 0.95 - 3 * 0.020 <= cov <= 1.0, cov


# --------------------------------------------------------------------------- the sign of error consistency


@pytest.fixture(scope="module")
def edge():
    t = tw.read_trials(tw.datasets.model_vs_human())
    t = t[t.experiment == "edge"]
    humans = t[t.observer_type == "human"]
    # an anti-consistent model: wrong exactly where most humans are right, right where most are wrong
    majority = humans.groupby(["condition", "image"])["correct"].mean() > 0.5
    model = t[t.subject == "resnet50"].copy()
    right = ~majority.loc[list(zip(model.condition, model.image))].to_numpy()
    wrong_label = np.where(model.truth.to_numpy() == "cat", "dog", "cat")
    model["response"] = np.where(right, model.truth.to_numpy(), wrong_label)
    model["correct"] = right
    model["subject"] = "contrarian"
    return humans, model


def bs_ec_aggregate(humans, model):
    """ErrorConsistency.__call__ + aggregate: κ per (subject, condition), mean over conditions then subjects, abs."""
    per_subject = []
    for _, hs in humans.groupby("subject"):
        per_cond = []
        for c, hc in hs.groupby("condition"):
            m = model[model.condition == c].set_index("image").correct
            h = hc.set_index("image").correct
            per_cond.append(cohen_kappa_score(m.loc[h.index].astype(int), h.astype(int)))
        per_subject.append(np.mean(per_cond))
    return np.mean(per_subject), abs(np.mean(per_subject))


def test_sign_is_kept_by_default_and_abs_only_with_brainscore_compatible(edge):
    humans, model = edge
    proto = tw.leaderboards.Protocol(name="edge")
    signed = tw.brainscore.BehavioralBenchmark(humans, proto, n_resamples=300, rng=0)(model)
    compat = tw.brainscore.BehavioralBenchmark(humans, proto, n_resamples=300, rng=0, brainscore_compatible=True)(model)
    mean, brainscore = bs_ec_aggregate(humans, model)
    assert mean < -0.1  # anti-consistent
    assert signed.raw == pytest.approx(mean, abs=1e-12) and signed.statistic == 0.0
    assert signed.confidence_interval.high == 0.0
    assert compat.raw == pytest.approx(brainscore, abs=1e-12)
    assert compat.ceiling.statistic == pytest.approx(abs(signed.ceiling.statistic), abs=1e-12)
    assert compat.statistic == pytest.approx(min(brainscore / compat.ceiling.statistic, 1), abs=1e-12)
    assert compat.statistic > 0.3  # the anti-consistent model scores high only with the option
    np.testing.assert_allclose(compat.raw_distribution, np.abs(signed.raw_distribution), rtol=1e-12)


def test_error_consistency_metric_class_takes_abs_only_with_the_option(edge):
    xr = pytest.importorskip("xarray")
    humans, model = edge

    def assembly(f, subject):
        coords = {"stimulus_id": ("presentation", f.image.to_numpy()), "truth": ("presentation", f.truth.to_numpy()),
                  "condition": ("presentation", f.condition.to_numpy())}
        if subject:
            coords["subject"] = ("presentation", f.subject.to_numpy())
        return xr.DataArray(f.response.to_numpy(), dims=["presentation"], coords=coords)

    target, source = assembly(humans, True), assembly(model, False)
    signed = bs.ErrorConsistency(n_resamples=100, rng=1)(source, target)
    compat = bs.ErrorConsistency(n_resamples=100, rng=1, brainscore_compatible=True)(source, target)
    assert float(signed) < 0 and float(compat) == pytest.approx(bs_ec_aggregate(humans, model)[1], abs=1e-12)
    assert compat.attrs["ci_low"] == pytest.approx(min(abs(signed.attrs["ci_low"]), abs(signed.attrs["ci_high"])))


def test_results_speak_the_vocabulary():
    res = bs.value_delta(0.8, 0.7, source_se=0.02, target_se=0.03, n_resamples=200, rng=0)
    assert res.to_frame().columns.tolist() == list(res.frame_columns) and "value-delta" in res.summary()
    g = np.random.default_rng(0)
    model, target = _osts(g, n=30, reps=4)
    res = bs.ost_correlation(model, target, n_resamples=100, rng=0)
    assert res.metric == "ost" and res.raw_interval.low <= res.raw <= res.raw_interval.high
