"""Experiment planning: ci_width, plan_trials, power_difference, validate_copy_model."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

import trialwise as tw
import trialwise.planning.trials
import trialwise._stats.resampling
from trialwise._stats.kappa import kappa_from_counts, kappa_variance
from trialwise._stats.kappa_derivatives import kappa_difference_variance
from trialwise.planning.trials import joint_cells, _smallest_n


def test_ci_width_matches_per_trial_simulation():
    """The 4-cell engine against drawing every trial (seed 000, Algorithm 2)."""
    r = tw.planning.ci_width(160, 0.8, 0.7, 0.3, n_simulations=5000, rng=0)
    a, b = tw.ec.CopyModel(0.3, 0.8, 0.7).simulate_trials(160, size=5000, rng=1)
    k = kappa_from_counts(np.stack([np.stack([(a & b).sum(-1), (a & ~b).sum(-1)], -1),
                                    np.stack([(~a & b).sum(-1), (~a & ~b).sum(-1)], -1)], -2))
    assert stats.ks_2samp(r.distribution, k).pvalue > 1e-3
    lo, hi = np.quantile(k, [0.025, 0.975])
    assert abs(float(r.confidence_interval.low) - lo) < 0.02 and abs(float(r.confidence_interval.high) - hi) < 0.02


def test_ci_width_large_n_agrees_with_fleiss_variance():
    n = 20_000
    r = tw.planning.ci_width(n, 0.75, 0.65, 0.4, rng=1)
    sd = np.sqrt(kappa_variance(tw.ec.cell_probabilities(0.4, 0.75, 0.65) * n)[0])
    assert float(r.half_width) == pytest.approx(ndtri(0.975) * sd, rel=0.03)
    assert abs(float(r.bias)) < 0.002


def test_ci_width_grid_broadcasts_and_frames():
    n = np.array([50, 500, 5000])[:, None]
    acc = np.array([0.55, 0.75, 0.95])
    r = tw.planning.ci_width(n, acc, acc, 0.5, n_simulations=2000, rng=0)
    assert r.shape == (3, 3) and r.confidence_interval.low.shape == (3, 3) and r.distribution.shape == (2000, 3, 3)
    frame = r.to_frame()
    assert len(frame) == 9 and list(frame.columns[:4]) == ["n", "accuracy_a", "accuracy_b", "kappa"]
    # widths shrink with n at every accuracy
    assert np.all(np.diff(r.width, axis=0) < 0)
    # floor/ceiling (seed 000 §3.2): at n = 50 and accuracies 0.95 κ̂ undershoots and is sometimes undefined
    assert r.bias[0, 2] < -0.02 and r.share_undefined[0, 2] > 0
    assert abs(r.bias[2, 1]) < 0.01


def test_ci_width_reproducible_and_worker_independent():
    kw = dict(n=np.array([20, 2000])[:, None], accuracy_a=np.linspace(0.55, 0.95, 5), accuracy_b=0.75, kappa=0.2,
              n_simulations=10_000, rng=3)
    r1 = tw.planning.ci_width(**kw, workers=1)
    r2 = tw.planning.ci_width(**kw, workers=2)
    np.testing.assert_array_equal(r1.confidence_interval.low, r2.confidence_interval.low)
    np.testing.assert_array_equal(r1.distribution, r2.distribution)


def test_ci_width_errors():
    with pytest.raises(ValueError, match=r"not attainable with accuracies 0.9 and 0.5: it must lie in"):
        tw.planning.ci_width(100, 0.9, 0.5, 0.8)
    with pytest.raises(ValueError, match="`n` must hold positive whole numbers"):
        tw.planning.ci_width([100, -5], 0.7, 0.7, 0.5)
    with pytest.raises(ValueError, match="`n_simulations` must be an integer >= 1"):
        tw.planning.ci_width(100, 0.7, 0.7, 0.5, n_simulations=0)
    with pytest.raises(ValueError, match="`confidence_level` must be in"):
        tw.planning.ci_width(100, 0.7, 0.7, 0.5, confidence_level=95)


def test_smallest_n_search():
    for answer in (1, 2, 7, 1000, 123_457):
        assert _smallest_n(lambda n: n >= answer, start=500, n_max=10**6) == answer
    assert _smallest_n(lambda n: n >= 10**7, start=500, n_max=10**6) is None


@pytest.mark.parametrize("half_width,a,b,k", [(0.05, 0.75, 0.75, 0.5), (0.1, 0.9, 0.8, 0.3)])
def test_plan_trials_verified_by_simulation(half_width, a, b, k):
    plan = tw.plan_trials(half_width=half_width, accuracy_a=a, accuracy_b=b, kappa=k, rng=0)
    n = plan.n
    assert float(plan.at_n.half_width) <= half_width
    # fresh simulations: the target is met at n, and not at n − 10 %. The plan's own
    # estimate uses 10,000 experiments; the relative Monte-Carlo SE of a 95 % percentile
    # width is then about 1 % (√(2·0.025·0.975/10⁴)/φ(1.96)/3.92 for a normal κ̂), so
    # "met" is checked within 3 SE; n − 10 % widens the interval by about 5.4 %.
    at_n = tw.planning.ci_width(n, a, b, k, n_simulations=40_000, rng=99)
    below = tw.planning.ci_width(int(0.9 * n), a, b, k, n_simulations=40_000, rng=98)
    assert float(at_n.half_width) <= half_width * 1.03
    assert float(below.half_width) > half_width
    # reproducible
    assert tw.plan_trials(half_width=half_width, accuracy_a=a, accuracy_b=b, kappa=k, rng=0).n == n


def test_plan_trials_alternatives_follow_the_copy_model():
    plan = tw.plan_trials(half_width=0.05, accuracy_a=0.85, accuracy_b=0.75, kappa=0.3, rng=0)
    alt = plan.alternatives_frame()
    assert list(alt.scenario) == ["as planned", "reference accuracy 0.5", "reference accuracy 0.75"]
    model = tw.ec.CopyModel(0.3, 0.85, 0.75)
    half = alt.iloc[1]
    assert half.p_copy == pytest.approx(float(model.p_copy))
    assert half.kappa == pytest.approx(float(model.p_copy))  # a reference at 50 %: κ = p_copy
    assert half.accuracy_b == pytest.approx(float(model.p_copy) * 0.5 + (1 - float(model.p_copy)) * float(model.latent_accuracy))
    # each alternative's n is itself a verified smallest n
    for _, row in alt.iterrows():
        r = tw.planning.ci_width(row.n_required, row.accuracy_a, row.accuracy_b, row.kappa, n_simulations=40_000, rng=7)
        assert float(r.half_width) <= 0.05 * 1.03
    assert plan.notes[0].startswith(f"{plan.n} trials give")
    assert any("fewer" in note for note in plan.notes)
    assert set(plan.to_frame().n) >= set(trialwise.planning.trials.LITERATURE_TRIALS) | {plan.n}
    assert "required trials" in plan.summary() and plan.to_dict()["n"] == plan.n


def test_plan_trials_notes_flag_ceiling_bias_and_unreachable_targets():
    plan = tw.plan_trials(half_width=0.3, accuracy_a=0.97, accuracy_b=0.97, kappa=0.5, rng=0)
    assert float(plan.at_n.bias) < -trialwise.planning.trials.BIAS_NOTE
    assert any("biased by -0.0" in note for note in plan.notes)
    assert any("asymmetric" in note for note in plan.notes)
    unreachable = tw.plan_trials(half_width=0.01, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, n_max=1000, rng=0)
    assert unreachable.n is None and unreachable.at_n is None
    assert "do not reach" in unreachable.notes[0]


def test_plan_trials_errors():
    with pytest.raises(ValueError, match=r"`half_width` must be in \(0, 1\)"):
        tw.plan_trials(half_width=0, accuracy_a=0.7, accuracy_b=0.7, kappa=0.5)
    with pytest.raises(TypeError, match="`accuracy_a` must be a single number"):
        tw.plan_trials(half_width=0.05, accuracy_a=[0.7, 0.8], accuracy_b=0.7, kappa=0.5)
    with pytest.raises(ValueError, match="not attainable"):
        tw.plan_trials(half_width=0.05, accuracy_a=0.9, accuracy_b=0.5, kappa=0.8)


# ----------------------------------------------------------------- power


def test_joint_model_has_the_requested_margins_and_kappas():
    cells = joint_cells(0.4, 0.2, 0.7, 0.8, 0.6)
    rx, ry = cells.sum(axis=-1), cells.sum(axis=-2)
    assert float(kappa_from_counts(rx)) == pytest.approx(0.4) and float(kappa_from_counts(ry)) == pytest.approx(0.2)
    assert rx.sum(-1)[0] == pytest.approx(0.7) and rx.sum(-2)[0] == pytest.approx(0.8) and ry.sum(-2)[0] == pytest.approx(0.6)
    # X and Y are independent given the reference
    for r in range(2):
        cond = cells[r] / cells[r].sum()
        np.testing.assert_allclose(cond, np.outer(cond.sum(1), cond.sum(0)), atol=1e-12)


def test_difference_variance_matches_simulation():
    cells = joint_cells(0.4, 0.3, 0.75, 0.7, 0.8)
    n = 2000
    sims = trialwise._stats.resampling.multinomial_cells(cells, n, size=20_000, rng=4, cell_ndim=3)
    delta = kappa_from_counts(sims.sum(-1)) - kappa_from_counts(sims.sum(-2))
    _, var = kappa_difference_variance(cells * n)
    assert np.std(delta) == pytest.approx(np.sqrt(var), rel=0.03)


def test_difference_variance_of_one_kappa_is_fleiss():
    """With Y independent of everything, the κ(R, X) part reduces to the Fleiss variance."""
    rx = np.array([[40.0, 12], [9, 39]])
    g_cells = rx[:, :, None] * np.array([0.5, 0.5])  # Y a fair coin, independent: κ(R, Y) = 0
    _, var = kappa_difference_variance(g_cells)
    # Var(κ_RX − κ_RY) = Var κ_RX + Var κ_RY − 2 Cov; at κ_RY = 0 with a coin Y the covariance is 0
    var_rx = kappa_variance(rx)[0]
    var_ry = kappa_variance(g_cells.sum(axis=-2))[0]
    assert var == pytest.approx(var_rx + var_ry, rel=1e-9)


@pytest.mark.parametrize("acc", [(0.75, 0.75, 0.75), (0.7, 0.85, 0.6)])
def test_power_at_zero_difference_is_alpha(acc):
    r = tw.planning.power_difference(0.3, 0.3, *acc, n=1000, n_simulations=40_000, rng=5)
    assert abs(float(r.power) - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 40_000)
    assert float(r.power_analytic) == pytest.approx(0.05)


def test_power_agrees_with_large_sample_power_and_grows_with_n():
    r = tw.planning.power_difference(0.45, 0.3, 0.7, 0.7, 0.75, n=[200, 800, 3200], n_simulations=20_000, rng=6)
    assert np.all(np.diff(r.power) > 0)
    np.testing.assert_allclose(r.power, r.power_analytic, atol=0.03)
    assert len(r.to_frame()) == 3


def test_power_smallest_n():
    r = tw.planning.power_difference(0.4, 0.3, 0.75, 0.75, 0.75, power=0.8, rng=0)
    assert r.reached and float(r.power) >= 0.8 and r.target_power == 0.8
    n = int(r.n)
    lower = tw.planning.power_difference(0.4, 0.3, 0.75, 0.75, 0.75, n=int(0.9 * n), n_simulations=40_000, rng=1)
    assert float(lower.power) < 0.8
    at = tw.planning.power_difference(0.4, 0.3, 0.75, 0.75, 0.75, n=n, n_simulations=40_000, rng=2)
    assert float(at.power) > 0.8 - 3 * float(at.power_se)


def test_power_counts_experiments_without_an_ec_as_failing():
    """An experiment whose κ̂(R, X) or κ̂(R, Y) is undefined cannot reject (review HR5, F2: the same question
    for every planning search). Brute force: P(undefined) = P(all trials r = x) + P(all r = y) − P(all r = x = y),
    each over the two diagonal cells; the power can be at most 1 − P."""
    args = (0.6, 0.2, 0.97, 0.97, 0.97)
    q = joint_cells(*args)
    for n in (20, 40):
        undefined = (q[0, 0].sum() ** n + q[1, 1].sum() ** n + q[0, :, 0].sum() ** n + q[1, :, 1].sum() ** n
                     - q[0, 0, 0] ** n - q[1, 1, 1] ** n)
        r = tw.planning.power_difference(*args, n=n, n_simulations=20_000, rng=8)
        assert undefined > 0.2 and float(r.power) <= 1 - undefined + 4 * np.sqrt(0.25 / 20_000)
    # a searched n at the ceiling: a fresh simulation reaches the power (search 10,000, fresh 40,000 experiments)
    found = tw.planning.power_difference(0.6, 0.2, 0.95, 0.95, 0.95, power=0.8, rng=0)
    assert found.reached and float(found.power) >= 0.8
    fresh = tw.planning.power_difference(0.6, 0.2, 0.95, 0.95, 0.95, n=int(found.n), n_simulations=40_000, rng=3)
    assert float(fresh.power) > 0.8 - 3 * np.sqrt(0.16 / 10_000 + 0.16 / 40_000)


def test_power_errors():
    with pytest.raises(ValueError, match="kappa_x equals kappa_y"):
        tw.planning.power_difference(0.3, 0.3, 0.7, 0.7, 0.7)
    with pytest.raises(ValueError, match="not attainable|cannot produce"):
        tw.planning.power_difference(0.9, 0.3, 0.9, 0.5, 0.7, n=100)
    with pytest.raises(ValueError, match=r"`alpha` must be in \(0, 1\)"):
        tw.planning.power_difference(0.4, 0.3, 0.7, 0.7, 0.7, n=100, alpha=0)
    with pytest.raises(TypeError, match="must be single numbers"):
        tw.planning.power_difference([0.4, 0.5], 0.3, 0.7, 0.7, 0.7)


# ----------------------------------------------------------------- App. G


def test_copy_model_intervals_match_bootstrap_away_from_ceiling():
    n = np.array([1000, 4000])[:, None]
    acc = np.array([0.55, 0.7, 0.85])
    val = tw.planning.validate_copy_model(n, acc, acc, 0.5, rng=0)
    assert val.shape == (2, 3)
    np.testing.assert_allclose(val.width_ratio, 1.0, atol=0.08)
    np.testing.assert_allclose(val.model_low, val.bootstrap_low, atol=0.015)
    np.testing.assert_allclose(val.model_high, val.bootstrap_high, atol=0.015)
    np.testing.assert_allclose(val.data_kappa, 0.5, atol=2 / 1000)
    assert len(val.to_frame()) == 6


# ----------------------------------------------------------------- degenerate and very large designs (issue 14, item 11)


def test_ci_width_at_one_trial_is_degenerate_and_warns():
    with pytest.warns(tw.DegenerateDataWarning, match=r"n = 1 .*degenerate") as record:
        r = tw.planning.ci_width(1, 0.75, 0.75, 0.5, n_simulations=2000, rng=0)
    assert len(record) == 1
    # brute force: one trial makes each observer constant, so κ̂ is 0 (one right, one wrong) or undefined
    # (c_exp = 1: both right or both wrong, probability P11 + P00; MC error of 2000 draws, 4 SE)
    assert float(r.width) == 0 and float(r.confidence_interval.low) == 0
    cells = tw.ec.cell_probabilities(0.5, 0.75, 0.75)
    assert float(r.share_undefined) == pytest.approx(cells[0, 0] + cells[1, 1], abs=4 * np.sqrt(0.25 / 2000))
    # a grid names the degenerate point; a regular grid does not warn
    with pytest.warns(tw.DegenerateDataWarning, match=r"at 1 of 3 grid points, e.g. n = 1 "):
        tw.planning.ci_width([1, 50, 500], 0.75, 0.75, 0.5, n_simulations=500, rng=0)
    r = tw.planning.ci_width([2, 50], 0.75, 0.75, 0.5, n_simulations=500, rng=0)
    assert (r.width > 0).all()


def test_plan_trials_never_answers_a_degenerate_n():
    plan = tw.plan_trials(0.05, 0.75, 0.75, 0.5, n_max=1, n_simulations=2000, rng=0, reference_accuracies=())
    assert plan.n is None and plan.at_n is None
    assert "do not reach" in plan.notes[0] and "n = 1 has zero width only because it is degenerate" in plan.notes[1]
    # a wide target: n = 1 used to "reach" it with its zero-width interval; now the answer is the smallest n
    # with a real interval of that half-width (undefined experiments allowed here: max_share_undefined=1)
    plan = tw.plan_trials(0.95, 0.9, 0.9, 0.5, n_simulations=2000, rng=0, reference_accuracies=(),
                          max_share_undefined=1)
    assert plan.n == 2 and 0 < float(plan.at_n.half_width) <= 0.95
    assert any("n = 1 has zero width only because it is degenerate" in note for note in plan.notes)


@pytest.mark.parametrize("n", [10**10, 10**11, 10**12])
def test_ci_width_at_very_large_n_agrees_with_fleiss_variance(n):
    r = tw.planning.ci_width(n, 0.75, 0.65, 0.4, n_simulations=4000, rng=2)
    sd = np.sqrt(kappa_variance(tw.ec.cell_probabilities(0.4, 0.75, 0.65) * n)[0])
    # 4000 simulations: the relative MC error of a 95 % percentile width is about 2 %; 3 SE
    assert float(r.half_width) == pytest.approx(ndtri(0.975) * sd, rel=0.06)
    assert -1 <= float(r.confidence_interval.low) < 0.4 < float(r.confidence_interval.high) <= 1
    assert abs(float(r.statistic) - 0.4) < 3 * sd / np.sqrt(4000) + 1e-12


def test_kappa_of_tables_beyond_int64_products_is_exact_in_float():
    t = np.array([[4_000_000_000, 1_000_000_000], [1_000_000_000, 4_000_000_000]], dtype=np.int64)
    assert float(kappa_from_counts(t)) == pytest.approx(0.6, abs=1e-15)            # 2(n11 n00 − n10 n01)/… by hand
    batch = np.stack([t, t * 3, t // 4])
    np.testing.assert_allclose(kappa_from_counts(batch), 0.6, atol=1e-15)
    res = tw.error_consistency(counts=t.tolist(), ci_method="percentile", test="asymptotic", n_resamples=2000, rng=0)
    se = np.sqrt(float(kappa_variance(t)[0]))
    lo, hi = res.confidence_interval
    assert lo < 0.6 < hi and (hi - lo) / 2 == pytest.approx(ndtri(0.975) * se, rel=0.1)
    assert res.pvalue == 0.0


@pytest.mark.parametrize("half_width, exc, match", [
    ("abc", TypeError, r"`half_width` must be a number in \(0, 1\).*got 'abc'"),
    (None, TypeError, r"`half_width` must be a number"),
    ([0.05], TypeError, r"`half_width` must be a number"),
    (0.05 + 0j, TypeError, r"`half_width` must be a number"),
    (True, TypeError, r"`half_width` must be a number"),
    (1.0, ValueError, r"`half_width` must be in \(0, 1\); got 1.0"),
    (float("nan"), ValueError, r"`half_width` must be in \(0, 1\)"),
])
def test_plan_trials_half_width_errors(half_width, exc, match):
    with pytest.raises(exc, match=match):
        tw.plan_trials(half_width, 0.75, 0.75, 0.5)


def test_planning_broadcast_and_range_errors_name_the_arguments():
    with pytest.raises(ValueError, match=r"`n` \(shape \(3,\)\), `accuracy_a` \(shape \(2,\)\).*cannot be broadcast"):
        tw.planning.ci_width([10, 20, 30], [0.7, 0.8], 0.75, 0.5)
    with pytest.raises(ValueError, match=r"`kappa_x` must be in \[-1, 1\]; got 1.5"):
        tw.planning.power_difference(1.5, 0.3, 0.75, 0.75, 0.75)
    with pytest.raises(ValueError, match=r"`kappa_x` \(shape \(2,\)\), `kappa_y` \(shape \(3,\)\).*cannot be broadcast"):
        tw.planning.power_difference([0.5, 0.4], [0.3, 0.2, 0.1], 0.75, 0.75, 0.75, n=100)


# ----------------------------------------------------------------- experiments without an EC (review HR5, F2)


def _undefined_share(n, a, b, k):
    """P(κ̂ undefined) of n copy-model trials: every trial both right, or every trial both wrong."""
    cells = tw.ec.cell_probabilities(k, a, b)
    return cells[0, 0] ** n + cells[1, 1] ** n


def _smallest_defined_n(a, b, k, bound):
    """Brute force: the smallest n at which at most ``bound`` of the experiments have an undefined κ̂."""
    return next(n for n in range(1, 10**6) if _undefined_share(n, a, b, k) <= bound)


@pytest.mark.parametrize("half_width,a,b,k", [(0.2, 0.99, 0.99, 0.0), (0.9, 0.9, 0.8, 0.3), (0.6, 0.97, 0.95, 0.4)])
def test_plan_trials_counts_undefined_experiments_as_failing(half_width, a, b, k):
    """HR5 F2: the answer used to be 9 trials at accuracies 0.99 (85 % of the experiments without an EC)."""
    with pytest.warns(tw.DegenerateDataWarning, match=r"the required n = \d+ is set by the experiments without an "
                                                      r"EC, not by the precision: at n = \d+ .*`max_share_undefined`"):
        plan = tw.plan_trials(half_width, a, b, k, rng=0)
    # the undefined share decides: the answer is the brute-force n of the 5 % bound, within Monte-Carlo error
    # (10,000 experiments: SE of a 5 % share 0.22 %; the share falls by ≈ 5 %·|log P11| per trial, so 4 SE is
    # 0.0087/(0.05·|log P11|) trials, plus 1 for rounding)
    oracle = _smallest_defined_n(a, b, k, 0.05)
    slack = 1 + 0.0087 / (0.05 * -np.log(tw.ec.cell_probabilities(k, a, b)[0, 0]))
    assert abs(plan.n - oracle) <= slack
    assert float(plan.at_n.share_undefined) <= 0.05 and float(plan.at_n.half_width) <= half_width
    assert any("set by the experiments without an EC" in note for note in plan.notes)
    # a fresh simulation of the planned design keeps the promise: share within 3 SE of the bound, half-width met
    fresh = tw.planning.ci_width(plan.n, a, b, k, n_simulations=40_000, rng=99)
    assert float(fresh.share_undefined) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 40_000)
    assert float(fresh.half_width) <= half_width
    # ignoring them (the old rule) answers a smaller n, with no warning
    old = tw.plan_trials(half_width, a, b, k, rng=0, max_share_undefined=1)
    assert old.n < plan.n and float(old.at_n.share_undefined) > 0.05


def test_plan_trials_unreached_because_of_undefined_experiments_says_so_and_what_helps():
    """Review HR6, F2: the notes said both "even n = 1000 do not reach 0.9" and "at n = 1000 the half-width is
    0.501 ≤ 0.9"; the advice must be the n at which the exact chance of no EC is ≤ 5 %, not a wider interval."""
    with pytest.warns(tw.DegenerateDataWarning, match="not because of the precision") as caught:
        plan = tw.plan_trials(0.9, 0.999, 0.999, 0.5, n_max=1000, n_simulations=400, rng=0)
    oracle = _smallest_defined_n(0.999, 0.999, 0.5, 0.05)          # brute force over n: 1997
    assert plan.n is None and oracle > 1000
    assert not any("even n" in note for note in plan.notes)
    assert plan.notes[0] == str(caught[0].message)
    assert f"is ≤ 5% from n = {oracle} on: raise `n_max` to at least {oracle}" in plan.notes[0]
    assert "`max_share_undefined`); a wider interval does not help" in plan.notes[0]
    # no n at all brings the share to 0 % (P11ⁿ > 0): only the bound can help
    with pytest.warns(tw.DegenerateDataWarning, match="no number of trials brings that share to 0%"):
        strict = tw.plan_trials(0.9, 0.999, 0.999, 0.5, n_max=1000, n_simulations=400, rng=0, max_share_undefined=0)
    assert strict.n is None and "raise `n_max`" not in strict.notes[0]


def test_plan_trials_undefined_bound_is_an_option_and_quiet_when_the_precision_decides():
    # the precision decides: the undefined share at the answer is far below 5 %, no warning (filterwarnings=error)
    plan = tw.plan_trials(0.1, 0.75, 0.75, 0.5, n_simulations=2000, rng=0)
    assert not any("without an EC" in note for note in plan.notes)
    assert tw.plan_trials(0.1, 0.75, 0.75, 0.5, n_simulations=2000, rng=0, max_share_undefined=0).n == plan.n
    # a stricter bound needs more trials: 1 % at accuracies 0.99 (brute force 229)
    with pytest.warns(tw.DegenerateDataWarning, match="more than the 1% allowed"):
        strict = tw.plan_trials(0.2, 0.99, 0.99, 0.0, rng=0, max_share_undefined=0.01, reference_accuracies=())
    oracle = _smallest_defined_n(0.99, 0.99, 0.0, 0.01)
    assert abs(strict.n - oracle) <= 1 + 4 * np.sqrt(0.01 * 0.99 / 10_000) / (0.01 * 0.0201)
    assert float(strict.at_n.share_undefined) <= 0.01


@pytest.mark.parametrize("value, exc, match", [
    (1.5, ValueError, r"`max_share_undefined` must be in \[0, 1\]; got 1.5"),
    (float("nan"), ValueError, r"`max_share_undefined` must not contain NaN"),
    ([0.1, 0.2], TypeError, r"`max_share_undefined` must be a single number in \[0, 1\]"),
])
def test_plan_trials_max_share_undefined_errors(value, exc, match):
    with pytest.raises(exc, match=match):
        tw.plan_trials(0.1, 0.75, 0.75, 0.5, max_share_undefined=value)


@pytest.mark.parametrize("half_width,a,b,k", [(0.9, 0.9, 0.8, 0.3), (0.1, 0.75, 0.75, 0.5)])
def test_plan_table_row_at_n_is_the_searchs_own_simulation(half_width, a, b, k):
    """HR5 F2: the table re-simulated n on another stream (bias −0.112 in the table vs −0.085 in the notes)."""
    plan = tw.plan_trials(half_width, a, b, k, n_simulations=500, rng=0, max_share_undefined=1)
    frame = plan.to_frame()
    row = frame[frame.n == plan.n].iloc[0]
    at_n = plan.at_n.to_frame().iloc[0]
    for column in ("low", "high", "half_width", "bias", "share_undefined", "median"):
        assert row[column] == at_n[column], column
    np.testing.assert_array_equal(plan.intervals.distribution[:, list(frame.n).index(plan.n)], plan.at_n.distribution)
    if abs(float(plan.at_n.bias)) > trialwise.planning.trials.BIAS_NOTE:
        assert f"biased by {float(plan.at_n.bias):+.3f}" in "\n".join(plan.notes)
    # every row is the simulation of its own n: the same with or without the other rows
    assert list(frame.n) == sorted(set(trialwise.planning.trials.LITERATURE_TRIALS) | {plan.n})


def test_plan_result_half_width_is_the_attribute_its_repr_shows():
    """Issue 29: the repr shows ``half_width`` but ``plan.half_width`` was an AttributeError."""
    plan = tw.plan_trials(half_width=0.1, accuracy_a=0.7, accuracy_b=0.7, kappa=0.3, n_simulations=200, rng=0)
    assert plan.half_width == float(plan.at_n.half_width) <= plan.half_width_target
    assert f"half_width={plan.half_width:.4g}" in repr(plan)
    unreachable = tw.plan_trials(half_width=0.01, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, n_max=1000,
                                 n_simulations=200, rng=0)
    assert unreachable.half_width is None and "half_width=" not in repr(unreachable)
