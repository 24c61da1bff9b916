"""Copy model (seed 000, Propositions 1-2): identities, feasibility, simulation, decomposition."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import trialwise as tw
from trialwise.ec.copymodel import copy_parameters
from trialwise.ec.copy_fit import fit_copy_model
from trialwise._stats.kappa import kappa_from_counts
from trialwise._stats.bounds import kappa_bounds
from trialwise._stats.resampling import bootstrap_tables

prob = st.floats(0.01, 0.99)
unit = st.floats(0.0, 1.0)
signed = st.floats(-1.0, 1.0)


# ----------------------------------------------------------------- Propositions 1 and 2


@settings(max_examples=300, deadline=None)
@given(p=signed, a_ref=prob, latent=unit, reference=st.sampled_from(["a", "b"]))
def test_proposition_2_kappa_is_copy_probability_times_mismatch(p, a_ref, latent, reference):
    m = tw.ec.CopyModel.from_copy_probability(p, a_ref, latent, reference_observer=reference)
    cells = m.cell_probabilities()
    assert cells.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(cells >= -1e-15)
    # the generative cells give κ = p_copy · m, with m = (1 − Σ P_A²)/(1 − Σ P_A P_B)
    a, b = float(m.accuracy_reference), float(m.accuracy_other)
    mismatch = (1 - a**2 - (1 - a) ** 2) / (1 - a * b - (1 - a) * (1 - b))
    assert float(m.mismatch) == pytest.approx(mismatch, abs=1e-12)
    assert float(kappa_from_counts(cells)) == pytest.approx(p * mismatch, abs=1e-12)
    # the observed marginal of the copying observer is p·P_A + (1 − p)·P̃ (inverted for p < 0)
    ref_axis = -1 if reference == "a" else -2
    assert cells.sum(axis=ref_axis)[0] == pytest.approx(a, abs=1e-12)
    expected_b = (p * a if p >= 0 else -p * (1 - a)) + (1 - abs(p)) * latent
    assert b == pytest.approx(expected_b, abs=1e-12)
    # the same table as the (κ, a_A, a_B) parametrisation of trialwise.ec.cell_probabilities
    np.testing.assert_allclose(cells, tw.ec.cell_probabilities(m.kappa, m.accuracy_a, m.accuracy_b), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(p=st.floats(0.0, 1.0), a_ref=prob)
def test_proposition_1_equal_marginals_kappa_equals_copy_probability(p, a_ref):
    m = tw.ec.CopyModel.from_copy_probability(p, a_ref, a_ref)
    assert float(m.mismatch) == pytest.approx(1.0, abs=1e-12)
    assert float(kappa_from_counts(m.cell_probabilities())) == pytest.approx(p, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(p=signed, latent=unit)
def test_uniform_reference_makes_mismatch_one(p, latent):
    m = tw.ec.CopyModel.from_copy_probability(p, 0.5, latent)
    assert float(m.mismatch) == pytest.approx(1.0, abs=1e-12)
    assert float(m.kappa) == pytest.approx(p, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(p=signed, a_ref=prob, latent=st.floats(0.001, 0.999), reference=st.sampled_from(["a", "b"]))
def test_decomposition_round_trips(p, a_ref, latent, reference):
    """from_counts ∘ cell_probabilities is the identity on (p_copy, a_ref, latent accuracy)."""
    m = tw.ec.CopyModel.from_copy_probability(p, a_ref, latent, reference_observer=reference)
    cells = m.cell_probabilities()
    oriented = cells if reference == "a" else cells.T
    p_hat, m_hat, lat_hat = copy_parameters(oriented)
    assert float(p_hat) == pytest.approx(p, abs=1e-9)
    assert float(m_hat) == pytest.approx(float(m.mismatch), abs=1e-9)
    if abs(p) < 1 - 1e-6:
        assert float(lat_hat) == pytest.approx(latent, abs=1e-6)
    # and the κ-parametrised constructor gives the same model back
    m2 = tw.ec.CopyModel(m.kappa, m.accuracy_reference, m.accuracy_other, reference_observer=reference)
    assert float(m2.p_copy) == pytest.approx(p, abs=1e-9)
    np.testing.assert_allclose(m2.cell_probabilities(), cells, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4), st.sampled_from(["a", "b"]))
def test_from_counts_round_trips_on_data(cells, reference):
    t = np.array(cells).reshape(2, 2)
    ref_total = t.sum(axis=1) if reference == "a" else t.sum(axis=0)
    if t.sum() == 0 or ref_total.min() == 0:
        return
    m = tw.ec.CopyModel.from_counts(t, reference_observer=reference)
    np.testing.assert_allclose(m.cell_probabilities(), t / t.sum(), atol=1e-12)
    assert float(m.kappa) == pytest.approx(float(kappa_from_counts(t)), abs=1e-12) or np.isnan(m.kappa)


def test_copy_probability_is_difference_of_conditional_accuracies():
    t = np.array([[60, 12], [8, 20]])
    m = tw.ec.CopyModel.from_counts(t)
    assert float(m.p_copy) == pytest.approx(60 / 72 - 8 / 28)
    mb = tw.ec.CopyModel.from_counts(t, reference_observer="b")
    assert float(mb.p_copy) == pytest.approx(60 / 68 - 12 / 32)
    assert float(mb.kappa) == float(m.kappa)


def test_negative_kappa_copies_the_inverted_outcome():
    m = tw.ec.CopyModel(-0.3, 0.6, 0.5)
    assert float(m.p_copy) < 0
    (p11, p10), (p01, p00) = m.cell_probabilities()
    assert p11 / (p11 + p10) - p01 / (p01 + p00) == pytest.approx(float(m.p_copy))
    assert float(kappa_from_counts(m.cell_probabilities())) == pytest.approx(-0.3)


# ----------------------------------------------------------------- feasibility


@settings(max_examples=1000, deadline=None)
@given(k=signed, a_ref=prob, a_other=unit)
def test_model_feasible_iff_kappa_within_bounds(k, a_ref, a_other):
    """The exact relation: the copy model exists ⇔ κ_min(a_r, a_o) ≤ κ ≤ κ_max(a_r, a_o).

    Existence is checked independently of the library, from SPEC §3's formulas:
    p = κ/m and the latent accuracy ã must satisfy |p| ≤ 1 and 0 ≤ ã ≤ 1.
    """
    lo, hi = kappa_bounds(a_ref, a_other)
    d = a_ref * (1 - a_other) + a_other * (1 - a_ref)
    p = k * d / (2 * a_ref * (1 - a_ref))
    if abs(p) >= 1 - 1e-9:
        exists = abs(p) <= 1 + 1e-9 and abs(a_other - (a_ref if p > 0 else 1 - a_ref)) < 1e-6
    else:
        latent = (a_other - p * a_ref) / (1 - p) if p >= 0 else (a_other + p * (1 - a_ref)) / (1 + p)
        # κ is kept 1e-7 away from the bounds below; with a_ref ≥ 0.01 that moves ã by
        # more than 1e-10, so the latent accuracy is judged with a much finer tolerance.
        exists = -1e-12 <= latent <= 1 + 1e-12
    if lo + 1e-7 <= k <= hi - 1e-7:
        assert exists
        m = tw.ec.CopyModel(k, a_ref, a_other)
        assert -1 <= float(m.p_copy) <= 1 and 0 <= float(m.latent_accuracy) <= 1
    elif k < lo - 1e-7 or k > hi + 1e-7:
        assert not exists
        with pytest.raises(ValueError, match=r"kappa must lie in \["):
            tw.ec.CopyModel(k, a_ref, a_other)


def test_infeasible_messages_state_the_ranges():
    with pytest.raises(ValueError, match=r"kappa must lie in \[-0.2, 0.2\]; for this kappa `accuracy_other` must lie in \[0.15, 0.85\]"):
        tw.ec.CopyModel(0.3, 0.5, 0.9)
    with pytest.raises(ValueError, match=r"`accuracy_reference` must be in \(0, 1\); got 1.*not identifiable"):
        tw.ec.CopyModel(0.0, 1.0, 0.8)
    with pytest.raises(ValueError, match=r"`accuracy_other` must be in \[0, 1\]"):
        tw.ec.CopyModel(0.1, 0.5, 1.2)
    with pytest.raises(ValueError, match=r"`kappa` must be in \[-1, 1\]"):
        tw.ec.CopyModel(1.5, 0.5, 0.5)
    with pytest.raises(ValueError, match="`reference_observer` must be one of"):
        tw.ec.CopyModel(0.1, 0.5, 0.5, reference_observer="c")
    with pytest.raises(ValueError, match=r"`latent_accuracy` must be in \[0, 1\]"):
        tw.ec.CopyModel.from_copy_probability(0.2, 0.5, -0.1)
    with pytest.raises(ValueError, match=r"`n` must hold positive whole numbers"):
        tw.ec.CopyModel(0.5, 0.7, 0.7).simulate(n=0)
    with pytest.raises(TypeError, match=r"`n` must be a positive integer"):
        tw.ec.CopyModel(0.5, 0.7, 0.7).exact_table(n="ten")


def test_degenerate_reference_in_data_gives_nan_and_warning():
    with pytest.warns(tw.DegenerateDataWarning, match="reference observer that is always correct"):
        m = tw.ec.CopyModel.from_counts([[50, 10], [0, 0]])
    assert np.isnan(m.p_copy) and np.isnan(m.mismatch) and float(m.kappa) == 0.0


def test_grids_broadcast_like_numpy():
    m = tw.ec.CopyModel(np.array([0.1, 0.3])[:, None, None], np.array([0.6, 0.7, 0.8])[:, None], np.array([0.6, 0.65, 0.7, 0.75]))
    assert m.shape == (2, 3, 4)
    assert m.cell_probabilities().shape == (2, 3, 4, 2, 2)
    np.testing.assert_allclose(kappa_from_counts(m.cell_probabilities()), np.broadcast_to(m.kappa, m.shape), atol=1e-12)
    assert len(m.to_frame()) == 24
    t = m.simulate(n=np.array([50, 500])[:, None, None, None], size=7, rng=0)
    assert t.shape == (7, 2, 2, 3, 4, 2, 2)


def test_reversed_is_the_other_direction():
    m = tw.ec.CopyModel(0.5, 0.75, 0.6)
    r = m.reversed()
    assert r.reference_observer == "b" and float(r.accuracy_reference) == 0.6
    np.testing.assert_allclose(r.cell_probabilities(), m.cell_probabilities(), atol=1e-12)
    assert float(r.p_copy) * float(r.mismatch) == pytest.approx(0.5)
    assert float(r.p_copy) != pytest.approx(float(m.p_copy))


# ----------------------------------------------------------------- simulation


def test_simulated_tables_converge_to_targets():
    m = tw.ec.CopyModel(0.4, 0.7, 0.6)
    t = m.simulate(n=20_000, size=400, rng=1)
    s = tw.ec.table_statistics(t)
    assert abs(s.accuracy_a.mean() - 0.7) < 4 * np.sqrt(0.7 * 0.3 / 20_000 / 400)
    assert abs(s.accuracy_b.mean() - 0.6) < 4 * np.sqrt(0.6 * 0.4 / 20_000 / 400)
    sd = s.kappa.std() / np.sqrt(400)
    assert abs(s.kappa.mean() - 0.4) < 4 * sd + 1e-3


@pytest.mark.parametrize("kappa,a_ref,a_other,reference", [(0.5, 0.75, 0.6, "a"), (-0.2, 0.6, 0.5, "b"), (0.3, 0.9, 0.85, "a")])
def test_multinomial_and_trial_sequences_agree_in_distribution(kappa, a_ref, a_other, reference):
    m = tw.ec.CopyModel(kappa, a_ref, a_other, reference_observer=reference)
    tables = m.simulate(n=160, size=4000, rng=2)
    a, b = m.simulate_trials(160, size=4000, rng=3)
    assert a.shape == (4000, 160)
    from_trials = np.stack(
        [np.stack([(a & b).sum(-1), (a & ~b).sum(-1)], -1), np.stack([(~a & b).sum(-1), (~a & ~b).sum(-1)], -1)], -2
    )
    for i in range(2):
        for j in range(2):
            assert stats.ks_2samp(tables[:, i, j], from_trials[:, i, j]).pvalue > 1e-3
    k1, k2 = kappa_from_counts(tables), kappa_from_counts(from_trials)
    assert stats.ks_2samp(k1[~np.isnan(k1)], k2[~np.isnan(k2)]).pvalue > 1e-3


def test_simulation_is_reproducible_and_independent_of_workers():
    m = tw.ec.CopyModel(0.5, np.linspace(0.55, 0.95, 9), np.linspace(0.55, 0.95, 9))
    t1 = m.simulate(n=np.array([10, 1000, 100_000])[:, None], size=10_000, rng=5, workers=1)
    t2 = m.simulate(n=np.array([10, 1000, 100_000])[:, None], size=10_000, rng=5, workers=2)
    np.testing.assert_array_equal(t1, t2)
    assert t1.shape == (10_000, 3, 9, 2, 2)
    np.testing.assert_array_equal(t1.sum(axis=(-1, -2))[0], np.broadcast_to([[10], [1000], [100_000]], (3, 9)))


# ----------------------------------------------------------------- exact tables


@pytest.mark.parametrize("kappa,a,b,n", [(0.5, 0.75, 0.6, 160), (0.3, 0.9, 0.85, 147), (-0.2, 0.6, 0.5, 33), (0.8, 0.55, 0.55, 1000)])
def test_exact_table_is_the_closest_table(kappa, a, b, n):
    t = tw.ec.CopyModel(kappa, a, b).exact_table(n)
    assert t.sum() == n
    ka, kb = t[0].sum(), t[:, 0].sum()
    assert abs(ka - a * n) <= 0.5 and abs(kb - b * n) <= 0.5
    # brute force over every table with these margins
    best = min(
        (abs(float(kappa_from_counts([[x, ka - x], [kb - x, n - ka - kb + x]])) - kappa), x)
        for x in range(max(0, ka + kb - n), min(ka, kb) + 1)
    )
    assert abs(float(kappa_from_counts(t)) - kappa) == pytest.approx(best[0], abs=1e-12)


def test_exact_table_follows_reference_orientation():
    ta = tw.ec.CopyModel(0.5, 0.75, 0.6).exact_table(160)
    tb = tw.ec.CopyModel(0.5, 0.75, 0.6, reference_observer="b").exact_table(160)
    np.testing.assert_array_equal(ta, tb.T)


# ----------------------------------------------------------------- decomposition with CIs


def test_error_consistency_copy_model_matches_decomposition():
    t = np.array([[60, 12], [8, 20]])
    res = tw.error_consistency(counts=t, rng=0)
    fit = res.copy_model
    p, m, lat = copy_parameters(t)
    assert fit.p_copy == pytest.approx(float(p)) and fit.mismatch == pytest.approx(float(m))
    assert fit.latent_accuracy == pytest.approx(float(lat))
    assert fit.statistic == pytest.approx(res.statistic)
    # same replicates, same method: the κ interval is the EC interval
    assert fit.confidence_interval.low == pytest.approx(res.confidence_interval.low)
    assert fit.confidence_interval.high == pytest.approx(res.confidence_interval.high)
    assert fit.p_copy_interval.low < fit.p_copy < fit.p_copy_interval.high
    assert set(fit.to_frame().quantity) == {"kappa", "p_copy", "mismatch", "latent_accuracy"}
    assert "B copies A" in repr(fit) and "p_copy" in fit.summary()
    assert fit.to_dict()["p_copy_ci"] == [fit.p_copy_interval.low, fit.p_copy_interval.high]


def test_decomposition_swap_symmetry():
    t = np.array([[60, 12], [8, 20]])
    fa = tw.error_consistency(counts=t, rng=0).copy_decomposition("b")
    fb = tw.error_consistency(counts=t.T, rng=0).copy_model
    assert fa.to_dict() | {"reference_observer": None, "direction": None} == fb.to_dict() | {"reference_observer": None, "direction": None}


def test_decomposition_with_analytic_interval_uses_bca():
    res = tw.error_consistency(counts=[[60, 12], [8, 20]], ci_method="analytic", rng=0)
    assert res.copy_model.ci_method == "bca"
    assert res.copy_model.n_resamples == 10_000


@pytest.mark.parametrize("method", ["percentile", "basic", "hdi", "bca"])
def test_decomposition_holds_replicate_by_replicate(method):
    t = np.array([[50, 15], [10, 25]])
    reps = bootstrap_tables(t, 2000, rng=1)
    fit = fit_copy_model(t, reps, ci_method=method)
    p, m, _ = copy_parameters(reps)
    np.testing.assert_allclose(p * m, kappa_from_counts(reps), atol=1e-12)
    assert fit.n_undefined == 0
    assert fit.p_copy_interval.low <= fit.p_copy_interval.high


@pytest.mark.slow
def test_copy_probability_interval_coverage():
    """Percentile and BCa intervals for p_copy cover the model's p_copy at about 95 %."""
    truth = tw.ec.CopyModel(0.4, 0.7, 0.6)
    p_true = float(truth.p_copy)
    tables = truth.simulate(n=400, size=1000, rng=11)
    reps = bootstrap_tables(tables, 1000, rng=12)  # (B, R, 2, 2)
    p_rep = copy_parameters(reps)[0]
    lo, hi = np.nanquantile(p_rep, [0.025, 0.975], axis=0)
    coverage = np.mean((lo <= p_true) & (p_true <= hi))
    se = np.sqrt(0.95 * 0.05 / 1000)
    assert abs(coverage - 0.95) < 3 * se + 0.01
    # fit_copy_model gives the same percentile interval on the same replicates
    fit = fit_copy_model(tables[0], reps[:, 0], ci_method="percentile")
    assert fit.p_copy_interval.low == pytest.approx(lo[0]) and fit.p_copy_interval.high == pytest.approx(hi[0])
    bca_cover = np.mean([
        fit_copy_model(tables[i], reps[:, i]).p_copy_interval.low <= p_true <= fit_copy_model(tables[i], reps[:, i]).p_copy_interval.high
        for i in range(300)
    ])
    assert abs(bca_cover - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300) + 0.01


# --------------------------------------------------------------------------- bad input (issue 14 item 12)


@pytest.mark.parametrize("call, match", [
    (lambda: tw.ec.CopyModel([0.1, 0.2], [0.5, 0.6, 0.7], 0.5),
     r"^`kappa` \(shape \(2,\)\), `accuracy_reference` \(shape \(3,\)\) and `accuracy_other` \(shape \(\)\) cannot be broadcast"),
    (lambda: tw.ec.CopyModel.from_copy_probability(0.2, [[0.5, 0.6]], [0.4, 0.5, 0.6]),
     r"^`p_copy` \(shape \(\)\), `accuracy_reference` \(shape \(1, 2\)\) and `latent_accuracy` \(shape \(3,\)\) cannot"),
    (lambda: tw.ec.CopyModel([0.1, 0.2], 0.6, 0.6).simulate([10, 20, 30]),
     r"^`n` \(shape \(3,\)\) and the model's grid \(shape \(2,\)\) cannot be broadcast"),
    (lambda: tw.ec.CopyModel([0.1, 0.2], 0.6, 0.6).exact_table([10, 20, 30]),
     r"^`n` \(shape \(3,\)\), `accuracy_a` \(shape \(2,\)\), `accuracy_b` \(shape \(2,\)\) and `kappa` \(shape \(2,\)\)"),
])
def test_shapes_that_do_not_broadcast_name_the_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_grids_that_broadcast_still_do():
    m = tw.ec.CopyModel([[0.1], [0.2]], [0.6, 0.7, 0.8], 0.7)
    assert m.shape == (2, 3)
    assert m.simulate([[10], [20]], rng=0).sum(axis=(-2, -1)).tolist() == [[10] * 3, [20] * 3]
    assert m.exact_table(100).shape == (2, 3, 2, 2)


def test_simulation_sizes_are_checked_before_allocating():
    m = tw.ec.CopyModel(0.5, 0.75, 0.75)
    with pytest.raises(ValueError, match=r"`size` must be an integer >= 1; got 0"):
        m.simulate(10, size=0)
    with pytest.raises(ValueError, match=r"`size` must be an integer >= 1"):
        m.simulate(10, size=(3, -1))
    with pytest.raises(ValueError, match=r"simulate 1e\+10 tables at once, about 320 GB of memory; at most 2\*\*30 are "
                                         r"drawn per call: lower size"):
        m.simulate(10, size=(10**6, 10**4))
    with pytest.raises(ValueError, match=r"simulate 1e\+12 trials at once.*lower n and size"):
        m.simulate_trials(10**12)
    with pytest.raises(ValueError, match=r"`n` must be at most 2\*\*53 trials"):
        m.simulate(2**60)
    with pytest.raises(ValueError, match=r"`workers` must be None \(all cores\) or an integer >= 1; got 0"):
        m.simulate(10, workers=0)
    assert m.simulate(10, size=(2, 3), rng=0).shape == (2, 3, 2, 2)


@pytest.mark.parametrize("counts, exc, match", [
    ([1, 2, 3], ValueError, r"`counts` must be a 2×2 table .* got shape \(3,\)"),
    ([[1, -2], [3, 4]], ValueError, r"`counts` must hold finite non-negative"),
    ([[1, np.nan], [3, 4]], ValueError, r"`counts` must hold finite non-negative"),
    ("abc", TypeError, r"`counts` must be numeric"),
    (None, TypeError, r"`counts` must be numeric"),
])
def test_copy_parameters_bad_input(counts, exc, match):
    with pytest.raises(exc, match=match):
        copy_parameters(counts)

