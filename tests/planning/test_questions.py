"""Planning the number of questions (trialwise.planning.questions): oracles and calibration.

Oracles: exact enumeration of the McNemar / two-proportion power (written here), statsmodels'
exact McNemar test, scipy's one-way ANOVA F for the ICC, a finite-difference derivative and
the jackknife for CAPA's influence values. Calibration (CI-light, R stated per test): data
with known truth drawn at the planned n — clustered at ICC 0.1–0.5 — reach the target power
and half-width within Monte-Carlo error. The full study: benchmarks/calibration/planning_questions_study.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtri

import trialwise as tw


# --------------------------------------------------------------------------- helpers (independent code)

def clustered_cells(g, p, n_clusters, size, icc):
    """Counts per question over the cells of ``p``; questions of a cluster share Dirichlet cell probabilities.

    Every cell indicator (and every linear function of them) has intra-cluster correlation
    ``icc`` (Dirichlet-multinomial with α₀ = (1 − icc)/icc). Returns (n_clusters·size, len(p)) one-hot rows
    and the cluster code of every row.
    """
    p = np.asarray(p, float)
    probs = g.dirichlet(p * (1 - icc) / icc, size=n_clusters)
    cells = np.array([g.choice(p.size, size=size, p=q) for q in probs]).ravel()
    return np.eye(p.size)[cells], np.repeat(np.arange(n_clusters), size)


def robust_z(values, codes):
    """Cluster-robust z statistic of the mean of ``values`` (sum of squared cluster sums)."""
    sums = np.bincount(codes, weights=values - values.mean())
    se = np.sqrt(np.sum(sums ** 2)) / values.size
    return values.mean() / se


def capa(w, r, x, truth):
    """κ_p(r, x) with question weights w, straight from its definition (Goel et al. 2025)."""
    w = w / w.sum()
    k = r.shape[1]
    rows = np.arange(len(truth))
    c_obs = np.sum(w * np.sum(r * x, axis=1))
    pr, px = np.sum(w * r[rows, truth]), np.sum(w * x[rows, truth])
    c_exp = pr * px + (1 / (k - 1)) * (1 - pr) * (1 - px)
    return (c_obs - c_exp) / (1 - c_exp)


def llm_questions(g, n, n_clusters=None, cluster_sd=0.0, k=4):
    """Probabilities of a judge R and models X (close to R) and Y on n fresh questions, optionally clustered."""
    truth = g.integers(0, k, n)
    onehot = np.eye(k)[truth]
    codes = None if n_clusters is None else np.repeat(np.arange(n_clusters), n // n_clusters)
    shift = 0.0 if codes is None else g.normal(0, cluster_sd, n_clusters)[codes][:, None]
    common, family = g.normal(0, 1, (n, k)), g.normal(0, 1, (n, k))
    cluster_noise = 0.0 if codes is None else g.normal(0, cluster_sd, (n_clusters, k))[codes]

    def model(skill, fam):
        z = (skill + shift) * onehot + 0.8 * common + fam * family + cluster_noise + g.normal(0, 1, (n, k))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return model(1.5, 1.0), model(1.2, 0.8), model(1.2, 0.3), truth, codes


# --------------------------------------------------------------------------- design effect and ICC

def test_design_effect_formulas():
    assert tw.planning.design_effect(1, 0.7) == 1.0
    assert tw.planning.design_effect(20, 0.0) == 1.0
    assert tw.planning.design_effect(20, 0.1) == pytest.approx(1 + 19 * 0.1, abs=1e-12)
    assert tw.planning.design_effect(20, 0.1, cluster_size_cv=0.5) == pytest.approx(1 + (1.25 * 20 - 1) * 0.1, abs=1e-12)


def test_design_effect_matches_the_variance_of_clustered_means():
    # calibration: the variance of the mean of clustered binary values over R = 3000 data sets,
    # divided by p(1 − p)/n, is the design effect (MC error of a variance ratio ≈ 2.6 %)
    g = np.random.default_rng(1)
    for icc, size in ((0.1, 10), (0.4, 5)):
        means = [clustered_cells(g, [0.3, 0.7], 40, size, icc)[0][:, 0].mean() for _ in range(3000)]
        ratio = np.var(means) / (0.3 * 0.7 / (40 * size))
        assert ratio == pytest.approx(tw.planning.design_effect(size, icc), rel=0.1)


def test_estimate_icc_matches_the_anova_f_and_the_truth():
    g = np.random.default_rng(2)
    x, codes = clustered_cells(g, [0.4, 0.6], 400, 12, 0.3)
    y = x[:, 0]
    d = tw.planning.estimate_icc(y, codes)
    f = stats.f_oneway(*[y[codes == c] for c in range(400)]).statistic
    assert d.icc == pytest.approx((f - 1) / (f + 12 - 1), abs=1e-10)   # balanced: m₀ = m
    assert d.icc == pytest.approx(0.3, abs=0.05)                         # SE ≈ 0.02 at 400 clusters of 12
    assert (d.n, d.n_clusters, d.cluster_size, d.cluster_size_cv) == (4800, 400, 12.0, 0.0)
    # unbalanced: Donner's m₀, against a hand-written ANOVA
    keep = g.random(y.size) < 0.7
    yy, cc = y[keep], codes[keep]
    sizes = np.bincount(cc)
    means = np.bincount(cc, weights=yy) / sizes
    msb = np.sum(sizes * (means - yy.mean()) ** 2) / (sizes.size - 1)
    msw = np.sum((yy - means[cc]) ** 2) / (yy.size - sizes.size)
    m0 = (yy.size - np.sum(sizes ** 2) / yy.size) / (sizes.size - 1)
    unb = tw.planning.estimate_icc(yy, cc)
    assert unb.icc == pytest.approx((msb - msw) / (msb + (m0 - 1) * msw), abs=1e-10)
    assert unb.cluster_size_cv == pytest.approx(sizes.std() / sizes.mean(), abs=1e-12)


def test_estimate_icc_from_a_trial_table_pools_the_models():
    trials = tw.datasets.llm_demo()
    d = tw.planning.estimate_icc(trials)
    one = trials[trials.subject == "sim/demo-1b"]
    single = tw.planning.estimate_icc(one.correct.astype(float).to_numpy(), (one.experiment + one.cluster).to_numpy())
    assert tw.planning.estimate_icc(one).icc == pytest.approx(single.icc, abs=1e-12)
    assert (d.n, d.n_clusters, d.cluster_size) == (400, 16, 25.0)
    assert -0.1 < d.icc < 0.5


# --------------------------------------------------------------------------- accuracy

def exact_mcnemar_power(p10, p01, n, alpha):
    """Σ over all (n10, n01) of the multinomial probability × the exact test's decision."""
    n10, n01 = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = n10 + n01 <= n
    m = n10 + n01
    logp = (stats.multinomial.logpmf(np.stack([n10, n01, n - m], -1)[ok], n, [p10, p01, 1 - p10 - p01]))
    pval = np.minimum(1, 2 * stats.binom.cdf(np.minimum(n10, n01)[ok], m[ok], 0.5))
    return float(np.sum(np.exp(logp) * ((pval <= alpha) & (m[ok] > 0))))


def test_the_mcnemar_test_is_statsmodels_exact_mcnemar():
    from statsmodels.stats.contingency_tables import mcnemar

    r = tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, n=150, n_simulations=20, rng=0)
    assert r.method == "mcnemar-exact"
    from trialwise.planning.questions import _mcnemar_reject  # noqa: PLC2701 (test of a kernel)
    for n10, n01 in ((12, 3), (20, 9), (7, 7), (0, 6), (30, 16)):
        p = mcnemar([[50, n10], [n01, 40]], exact=True).pvalue
        for alpha in (0.05, 0.1):
            assert bool(_mcnemar_reject(np.array([n10, n01, 90]), alpha)) == (p <= alpha)


@pytest.mark.parametrize("a,b,psi,n", [(0.75, 0.7, 0.2, 300), (0.6, 0.5, 0.3, 150), (0.9, 0.85, 0.09, 400)])
def test_mcnemar_power_against_exact_enumeration(a, b, psi, n):
    r = tw.planning.power_accuracy_difference(a, b, discordance=psi, n=n, n_simulations=20_000, rng=3)
    exact = exact_mcnemar_power((psi + a - b) / 2, (psi - a + b) / 2, n, 0.05)
    assert abs(float(r.power) - exact) < 4 * float(r.power_se) + 1e-3
    assert float(r.power_analytic) == pytest.approx(exact, abs=0.05)   # Connor's large-sample formula


def test_unpaired_power_against_exact_enumeration():
    a, b, n = 0.7, 0.6, 200
    r = tw.planning.power_accuracy_difference(a, b, paired=False, n=n, n_simulations=20_000, rng=4)
    x, y = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    pool = (x + y) / (2 * n)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(x - y) / n / np.sqrt(pool * (1 - pool) * 2 / n)
    rej = np.nan_to_num(z, nan=0) > ndtri(0.975)
    exact = float(np.sum(stats.binom.pmf(x, n, a) * stats.binom.pmf(y, n, b) * rej))
    assert r.method == "two-proportion-z"
    assert abs(float(r.power) - exact) < 4 * float(r.power_se) + 1e-3
    assert float(r.power_analytic) == pytest.approx(exact, abs=0.02)


def test_the_searched_n_is_the_smallest_and_scales_with_the_design_effect():
    base = tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, n_simulations=4000, rng=5)
    n = int(base.n)
    assert float(base.power) >= 0.8 and base.reached
    assert float(tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, n=n - 40, n_simulations=4000,
                                              rng=6).power) < 0.8
    clustered = tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, cluster_size=10, icc=0.2,
                                             n_simulations=4000, rng=5)
    assert float(clustered.design_effect) == pytest.approx(2.8) and clustered.method == "paired-wald"
    # the Wald test of clustered data at n / DE: Connor's large-sample n times the design effect
    connor = ((ndtri(0.975) * np.sqrt(0.2) + ndtri(0.8) * np.sqrt(0.2 - 0.05 ** 2)) / 0.05) ** 2
    assert int(clustered.n) == pytest.approx(2.8 * connor, rel=0.03)
    assert n > connor                                     # the exact McNemar test needs a few more


@pytest.mark.parametrize("icc", [0.1, 0.5])
def test_planned_n_reaches_the_power_on_clustered_data(icc):
    # known truth: paired correctness drawn in clusters of 8 with ICC `icc` of every cell;
    # R = 300 benchmarks at the planned n, each tested with the cluster-robust z test:
    # achieved power within 3 MC SEs (0.023) of 0.8
    a, b, psi, size = 0.72, 0.64, 0.3, 8
    plan = tw.planning.power_accuracy_difference(a, b, discordance=psi, cluster_size=size, icc=icc, n_simulations=4000, rng=7)
    n_clusters = int(np.ceil(int(plan.n) / size))
    p = [(psi + a - b) / 2, (psi - a + b) / 2, 1 - psi]
    g = np.random.default_rng(8)
    z = ndtri(0.975)
    hits = []
    for _ in range(300):
        cells, codes = clustered_cells(g, p, n_clusters, size, icc)
        hits.append(abs(robust_z(cells[:, 0] - cells[:, 1], codes)) > z)
    assert np.mean(hits) == pytest.approx(0.8, abs=3 * np.sqrt(0.16 / 300))


def test_accuracy_half_width_is_reached_on_clustered_data():
    # R = 400 clustered benchmarks at ICC 0.3: mean cluster-robust half-width within 3 % of the target,
    # and the Wald interval covers within 3 MC SEs
    plan = tw.planning.accuracy_half_width(0.7, half_width=0.04, cluster_size=10, icc=0.3)
    assert int(plan.n) == int(np.ceil(ndtri(0.975) ** 2 * 0.21 * 3.7 / 0.04 ** 2))
    g = np.random.default_rng(9)
    n_clusters = int(np.ceil(int(plan.n) / 10))
    widths, cover = [], []
    for _ in range(400):
        cells, codes = clustered_cells(g, [0.7, 0.3], n_clusters, 10, 0.3)
        y = cells[:, 0]
        se = np.sqrt(np.sum(np.bincount(codes, weights=y - y.mean()) ** 2)) / y.size
        widths.append(ndtri(0.975) * se)
        cover.append(abs(y.mean() - 0.7) <= ndtri(0.975) * se)
    assert np.mean(widths) == pytest.approx(0.04, rel=0.03)
    assert np.mean(cover) == pytest.approx(0.95, abs=3 * np.sqrt(0.95 * 0.05 / 400))


# --------------------------------------------------------------------------- CAPA

def test_influence_values_are_the_derivative_of_capa():
    g = np.random.default_rng(10)
    r, x, _, truth, _ = llm_questions(g, 60)
    phi = tw.planning.agreement_influence(r, x, truth)
    assert capa(np.ones(60), r, x, truth) == pytest.approx(tw.agreement(r, x, truth, n_resamples=0).statistic, abs=1e-12)
    eps = 1e-6
    for q in (0, 17, 59):
        w = np.ones(60)
        w[q] += eps * 60
        numeric = (capa(w, r, x, truth) - capa(np.ones(60), r, x, truth)) / eps
        assert phi[q] == pytest.approx(numeric * (1 + eps), rel=1e-4, abs=1e-6)   # d/dε of κ at weights 1/n + ε·e_q
    assert abs(phi.mean()) < 1e-12


def test_the_delta_variance_matches_the_jackknife_and_the_bootstrap():
    g = np.random.default_rng(11)
    r, x, y, truth, _ = llm_questions(g, 500)
    hw = tw.planning.agreement_half_width(r, x, truth, n=500)
    se_delta = float(hw.half_width) / ndtri(0.975)
    n = 500
    loo = np.array([capa(np.where(np.arange(n) == i, 0.0, 1.0), r, x, truth) for i in range(n)])
    se_jack = np.sqrt((n - 1) / n * np.sum((loo - loo.mean()) ** 2))
    assert se_delta == pytest.approx(se_jack, rel=0.02)
    boot = tw.agreement(r, x, truth, n_resamples=2000, rng=0).bootstrap_distribution
    assert se_delta == pytest.approx(np.std(boot), rel=0.1)   # MC error of a bootstrap SD at B = 2000 ≈ 1.6 %


def test_planned_capa_difference_reaches_the_power_on_fresh_questions():
    # known truth: a population of 3000 questions (planned from in full, so the pilot is the truth);
    # R = 300 benchmarks of the planned n questions drawn from it, each tested with the jackknife-SE
    # Wald test (independent of the delta formula): achieved power within 3 MC SEs (0.07) of 0.8.
    # (A pilot *sample* adds its own error in δ̂: see benchmarks/calibration/planning_questions_study.py.)
    g = np.random.default_rng(12)
    r, x, y, truth, _ = llm_questions(g, 3000)
    plan = tw.planning.power_agreement_difference(r, x, y, truth, n_simulations=1000, rng=13)
    n = int(plan.n)
    assert 100 < n < 3000 and float(plan.power) >= 0.8
    z = ndtri(0.975)
    hits = []
    for _ in range(300):
        i = g.integers(0, 3000, n)
        rr, xx, yy, tt = r[i], x[i], y[i], truth[i]
        cols = np.column_stack([np.sum(rr * xx, 1), np.sum(rr * yy, 1), rr[np.arange(n), tt], xx[np.arange(n), tt],
                                yy[np.arange(n), tt]])
        tot = cols.sum(0)

        def diff(s, m):
            c = s / m
            ce = lambda pa, pb: pa * pb + (1 - pa) * (1 - pb) / 3  # noqa: E731
            kx = (c[..., 0] - ce(c[..., 2], c[..., 3])) / (1 - ce(c[..., 2], c[..., 3]))
            ky = (c[..., 1] - ce(c[..., 2], c[..., 4])) / (1 - ce(c[..., 2], c[..., 4]))
            return kx - ky

        loo = diff(tot - cols, n - 1)
        se = np.sqrt((n - 1) / n * np.sum((loo - loo.mean()) ** 2))
        hits.append(abs(diff(tot, n)) / se > z)
    assert np.mean(hits) == pytest.approx(0.8, abs=3 * np.sqrt(0.16 / 300))


def test_pilot_clusters_give_the_design_effect_of_the_influence_values():
    g = np.random.default_rng(14)
    r, x, y, truth, codes = llm_questions(g, 2000, n_clusters=100, cluster_sd=0.8)
    phi = tw.planning.agreement_influence(r, x, truth)
    d = tw.planning.estimate_icc(phi, codes)
    hw = tw.planning.agreement_half_width(r, x, truth, n=2000, clusters=codes)
    assert float(hw.design_effect) == pytest.approx(d.design_effect, abs=1e-12)
    plain = tw.planning.agreement_half_width(r, x, truth, n=2000)
    assert float(hw.half_width) == pytest.approx(float(plain.half_width) * np.sqrt(d.design_effect), rel=1e-12)
    forced = tw.planning.agreement_half_width(r, x, truth, n=2000, clusters=codes, icc=0.0)
    assert float(forced.design_effect) == 1.0


# --------------------------------------------------------------------------- EC (power_difference with clusters)

def ec_difference(counts):
    """κ(R, X) − κ(R, Y) from (…, 8) counts of the cells (r, x, y) (index 0 = correct), from the definition."""
    c = counts.reshape(counts.shape[:-1] + (2, 2, 2)).astype(float)
    n = c.sum(axis=(-1, -2, -3))

    def kappa(t):
        p = t / n[..., None, None]
        pa, pb = p[..., 0, :].sum(-1), p[..., :, 0].sum(-1)
        obs = p[..., 0, 0] + p[..., 1, 1]
        exp = pa * pb + (1 - pa) * (1 - pb)
        return (obs - exp) / (1 - exp)

    return kappa(c.sum(-1)) - kappa(c.sum(-2))


def test_power_difference_with_clusters_reaches_the_power_on_clustered_triplets():
    # known truth: the copy model's (r, x, y) cells, drawn in clusters of 5 with ICC 0.3 of every cell;
    # R = 200 benchmarks at the planned n, cluster jackknife Wald test: power within 3 MC SEs (0.085) of 0.8
    from trialwise.planning.trials import joint_cells

    args = (0.5, 0.3, 0.75, 0.75, 0.75)
    plain = tw.planning.power_difference(*args, n_simulations=2000, rng=15)
    plan = tw.planning.power_difference(*args, cluster_size=5, icc=0.3, n_simulations=2000, rng=15)
    assert int(plan.n) == pytest.approx(2.2 * int(plain.n), rel=0.05)
    p = joint_cells(*args).ravel()                            # cells (r, x, y), index 0 = correct
    n_clusters = int(np.ceil(int(plan.n) / 5))
    g = np.random.default_rng(16)
    z = ndtri(0.975)
    hits = []
    for _ in range(200):
        cells, codes = clustered_cells(g, p, n_clusters, 5, 0.3)
        per = np.zeros((n_clusters, 8))
        np.add.at(per, codes, cells)
        loo = ec_difference(per.sum(0) - per)
        se = np.sqrt((n_clusters - 1) / n_clusters * np.sum((loo - loo.mean()) ** 2))
        hits.append(abs(ec_difference(per.sum(0))) / se > z)
    assert np.mean(hits) == pytest.approx(0.8, abs=3 * np.sqrt(0.16 / 200))
