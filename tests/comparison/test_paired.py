"""The paired comparison of two runs (issue 31, item 4): tw.comparison.paired_runs and
tw.planning.detectable_accuracy_difference.

Every number against an oracle: statsmodels' McNemar and scipy's binomial test, scipy's paired
t test, a brute-force CR2 / Imbens–Kolesár reference written with dense matrices, Connor's power
of tw.planning.power_accuracy_difference for the MDD, tw.error_consistency /
tw.pairwise_error_consistency for EC and tw.pairwise_agreement for CAPA; the type-I error of the
difference's test with and without clusters (light here, full under -m slow); degenerate data.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import linalg, stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import trialwise as tw
from trialwise._stats.streams import child_seed
from trialwise.comparison.paired import _ik_df, paired_difference_interval

A, B = "sim/demo-7b-chat", "sim/demo-7b"


def _demo():
    return tw.datasets.llm_demo()


def _two(trials, a=A, b=B):
    return trials[trials.subject.isin([a, b])]


def _correct(trials, name):
    rows = trials[trials.subject == name].sort_values(["condition", "image"])
    return rows.correct.to_numpy().astype(bool), rows.cluster.to_numpy()


def _table(ca, cb, clusters=None, names=("a", "b")):
    """A trial table of two runs with the given correctness (and clusters)."""
    n = len(ca)
    rows = []
    for name, c in zip(names, (ca, cb)):
        for i in range(n):
            rows.append({"subject": name, "image": f"q{i}", "correct": bool(c[i]),
                         "cluster": None if clusters is None else clusters[i]})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- oracles


def test_counts_accuracies_and_mcnemar_match_statsmodels_and_scipy():
    t = _demo()
    res = tw.comparison.paired_runs(t, A, B, n_resamples=200, rng=0)
    ca, _ = _correct(t, A)
    cb, _ = _correct(t, B)
    assert res.accuracy_a == ca.mean() and res.accuracy_b == cb.mean() and res.n == 400
    assert res.statistic == pytest.approx(ca.mean() - cb.mean(), abs=1e-12)
    n10, n01 = int((ca & ~cb).sum()), int((~ca & cb).sum())
    assert (res.n10, res.n01) == (n10, n01)
    table = [[int((ca & cb).sum()), n10], [n01, int((~ca & ~cb).sum())]]
    assert res.pvalue_exact == pytest.approx(sm_mcnemar(table, exact=True).pvalue, abs=1e-12)
    k, d = min(n10, n01), n10 + n01
    assert res.pvalue_exact == pytest.approx(stats.binomtest(n01, d, 0.5).pvalue, abs=1e-12)
    assert res.pvalue_midp == pytest.approx(stats.binomtest(k, d, 0.5).pvalue - stats.binom.pmf(k, d, 0.5), abs=1e-12)
    assert res.discordance == (n10 + n01) / 400


def test_difference_without_clusters_is_scipys_paired_t():
    t = _demo()
    res = tw.comparison.paired_runs(t, A, "sim/demo-1b", n_resamples=200, rng=0, confidence_level=0.9)
    ca, _ = _correct(t, A)
    cb, _ = _correct(t, "sim/demo-1b")
    ref = stats.ttest_rel(ca.astype(float), cb.astype(float))
    ci = ref.confidence_interval(0.9)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert res.df == 399 and res.ci_method == "paired-t" and res.n_clusters is None and res.icc is None
    assert res.se == pytest.approx(np.std(ca.astype(float) - cb, ddof=1) / 20, abs=1e-12)


def _cr2_brute_force(d, clusters, level):
    """CR2 variance and Imbens–Kolesár df of a mean with dense matrices: (I − H_gg)^(−1/2) by sqrtm, G′ΩG."""
    d = np.asarray(d, dtype=float)
    n = d.size
    labels = sorted(set(clusters))
    x = np.ones((n, 1))
    h = x @ np.linalg.inv(x.T @ x) @ x.T
    e = d - d.mean()
    var = 0.0
    adjust = np.zeros((n, n))
    for g in labels:
        idx = np.flatnonzero(np.asarray(clusters) == g)
        a_g = np.real(linalg.sqrtm(np.linalg.inv(np.eye(idx.size) - h[np.ix_(idx, idx)])))
        adjust[np.ix_(idx, idx)] = a_g
        score = float((x[idx].T @ a_g @ e[idx])[0])
        var += score ** 2
    var /= n ** 2
    # ICC: one-way ANOVA from the group means (pandas), clipped at 0
    frame = pd.DataFrame({"d": d, "g": clusters})
    sizes = frame.groupby("g").size().to_numpy(dtype=float)
    means = frame.groupby("g").d.mean().to_numpy()
    big_g = len(labels)
    msb = (sizes * (means - d.mean()) ** 2).sum() / (big_g - 1)
    msw = frame.groupby("g").d.apply(lambda s: ((s - s.mean()) ** 2).sum()).sum() / (n - big_g)
    n0 = (n - (sizes ** 2).sum() / n) / (big_g - 1)
    rho = max(0.0, (msb - msw) / (msb + (n0 - 1) * msw))
    omega = (1 - rho) * np.eye(n)
    for g in labels:
        idx = np.flatnonzero(np.asarray(clusters) == g)
        omega[np.ix_(idx, idx)] += rho
    m = np.eye(n) - h
    cols = []
    for g in labels:
        idx = np.flatnonzero(np.asarray(clusters) == g)
        a = np.zeros(n)
        a[idx] = adjust[np.ix_(idx, idx)] @ np.ones(idx.size) / n  # the weight of the mean: x (x'x)^-1 = 1/n
        cols.append(m @ a)
    gm = np.column_stack(cols)
    w = gm.T @ omega @ gm
    df = np.trace(w) ** 2 / np.trace(w @ w)
    se = math.sqrt(var)
    q = stats.t.ppf(0.5 + level / 2, df)
    return se, df, rho, (d.mean() - q * se, d.mean() + q * se), 2 * stats.t.sf(abs(d.mean()) / se, df)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clustered_difference_matches_a_brute_force_cr2_reference(seed):
    gen = np.random.default_rng(seed)
    sizes = gen.integers(1, 12, 9)
    clusters = np.repeat([f"c{i}" for i in range(9)], sizes)
    d = gen.choice([-1.0, 0.0, 1.0], size=sizes.sum(), p=[0.25, 0.5, 0.25]) + np.repeat(
        gen.choice([0.0, 1.0, -1.0], 9, p=[0.6, 0.2, 0.2]), sizes) * (gen.random(sizes.sum()) < 0.5)
    d = np.clip(d, -1, 1)
    mean, se, df, ci, p, rho = paired_difference_interval(d, clusters, confidence_level=0.95)
    se_ref, df_ref, rho_ref, ci_ref, p_ref = _cr2_brute_force(d, clusters, 0.95)
    assert se == pytest.approx(se_ref, rel=1e-10)
    assert rho == pytest.approx(rho_ref, abs=1e-12)
    assert df == pytest.approx(df_ref, rel=1e-9)
    assert (ci.low, ci.high) == pytest.approx(ci_ref, abs=1e-10)
    assert p == pytest.approx(p_ref, rel=1e-9)


def test_imbens_kolesar_df_reduces_to_n_minus_1_for_single_questions_and_to_bell_mccaffrey_at_rho_0():
    assert _ik_df(np.ones(50), 0.0) == pytest.approx(49, rel=1e-12)
    assert _ik_df(np.ones(50), 0.4) == pytest.approx(49, rel=1e-12)  # singletons: the ICC changes nothing
    # equal clusters, ρ = 0: the CR2 scores are exchangeable and df = G − 1
    assert _ik_df(np.full(12, 7.0), 0.0) == pytest.approx(11, rel=1e-12)


def test_clustered_result_uses_the_clustered_interval_and_pairwise_error_consistency():
    t = _demo()
    res = tw.comparison.paired_runs(t, A, B, clusters="cluster", n_resamples=300, rng=5)
    ca, cl = _correct(t, A)
    cb, _ = _correct(t, B)
    mean, se, df, ci, p, rho = paired_difference_interval(ca.astype(float) - cb, cl.astype(str))
    assert (res.statistic, res.se, res.df, res.pvalue, res.icc) == (mean, se, df, p, rho)
    assert res.confidence_interval == ci and res.n_clusters == 16 and res.ci_method == "cluster-robust-t"
    gen = np.random.default_rng(res.seed)
    ec_seed, capa_seed = child_seed(gen), child_seed(gen)
    ref = tw.pairwise_error_consistency(pd.DataFrame({"a": ca, "b": cb}), clusters=cl.astype(str),
                                        n_resamples=300, rng=ec_seed).pair("a", "b")
    assert res.error_consistency.statistic == ref.statistic
    assert res.error_consistency.confidence_interval == ref.confidence_interval
    capa = tw.pairwise_agreement(_two(t), clusters="cluster", n_resamples=300, rng=capa_seed).pair(A, B)
    assert res.capa.statistic == pytest.approx(capa.statistic, abs=1e-12)
    assert res.capa.confidence_interval.low == pytest.approx(capa.confidence_interval.low, abs=1e-12)
    assert res.capa.confidence_interval.high == pytest.approx(capa.confidence_interval.high, abs=1e-12)
    assert any("McNemar" in str(n) for n in res.notes)


def test_error_consistency_and_capa_without_clusters_are_the_librarys_own():
    t = _demo()
    res = tw.comparison.paired_runs(t, A, B, n_resamples=400, rng=11)
    ca, _ = _correct(t, A)
    cb, _ = _correct(t, B)
    gen = np.random.default_rng(res.seed)
    ec_seed, capa_seed = child_seed(gen), child_seed(gen)
    ec = tw.error_consistency(ca, cb, n_resamples=400, rng=ec_seed)
    assert res.error_consistency.statistic == ec.statistic
    assert res.error_consistency.confidence_interval == ec.confidence_interval
    assert res.error_consistency.pvalue == ec.pvalue
    capa = tw.pairwise_agreement(_two(t), n_resamples=400, rng=capa_seed).pair(A, B)
    assert res.capa.statistic == pytest.approx(capa.statistic, abs=1e-12)
    assert res.capa.confidence_interval.low == pytest.approx(capa.confidence_interval.low, abs=1e-12)
    # the same seed repeats the result
    again = tw.comparison.paired_runs(t, A, B, n_resamples=400, rng=res.seed)
    assert again.to_dict() == res.to_dict()


def test_the_difference_is_a_minus_b_and_swapping_negates_it():
    t = _demo()
    ab = tw.comparison.paired_runs(t, A, "sim/demo-13b", n_resamples=100, rng=0)
    ba = tw.comparison.paired_runs(t, "sim/demo-13b", A, n_resamples=100, rng=0)
    assert ab.statistic == -ba.statistic and ab.pvalue == pytest.approx(ba.pvalue, rel=1e-12)
    assert (ab.n10, ab.n01) == (ba.n01, ba.n10) and ab.pvalue_exact == ba.pvalue_exact
    assert ab.confidence_interval.low == pytest.approx(-ba.confidence_interval.high, abs=1e-12)
    assert ab.mdd == ba.mdd


def test_capa_is_its_discrete_form_with_a_note_when_a_run_logged_no_probabilities():
    """Chat and API models (Inspect, HELM's joint method, generated answers mapped to options) log the chosen
    option only: CAPA is then computed on the choices, equal to pairwise_agreement(metric='capa-discrete')."""
    t = _two(_demo()).copy()
    t.loc[t.subject == B, "probabilities"] = None
    res = tw.comparison.paired_runs(t, A, B, n_resamples=100, rng=0)
    oracle = tw.pairwise_agreement(t, metric="capa-discrete", n_resamples=100, rng=0).pair(A, B)
    assert res.capa.statistic == pytest.approx(oracle.statistic, abs=1e-14)
    assert any(getattr(n, "kind", "") == "capa" and "discrete" in str(n) for n in res.notes)
    assert res.to_frame().capa.iloc[0] == pytest.approx(oracle.statistic, abs=1e-14)


# ----------------------------------------------------------------------------- the minimum detectable difference


def test_mdd_is_the_difference_at_which_connors_power_is_the_target():
    for n, psi, power, alpha in ((500, 0.2, 0.8, 0.05), (120, 0.35, 0.9, 0.01), (2000, 0.05, 0.8, 0.05)):
        d = float(tw.planning.detectable_accuracy_difference(n, psi, power=power, alpha=alpha))
        res = tw.planning.power_accuracy_difference(0.5 + d / 2, 0.5 - d / 2, discordance=psi, n=n, alpha=alpha,
                                                    n_simulations=10, rng=0)
        assert float(res.power_analytic) == pytest.approx(power, abs=1e-12)


def test_mdd_broadcasts_uses_the_design_effect_and_is_nan_where_nothing_is_detectable():
    grid = tw.planning.detectable_accuracy_difference([[100], [400]], [0.1, 0.3])
    assert grid.shape == (2, 2)
    assert grid[1, 1] == tw.planning.detectable_accuracy_difference(400, 0.3)
    de = tw.planning.design_effect(5, 0.2)
    assert tw.planning.detectable_accuracy_difference(400, 0.3, cluster_size=5, icc=0.2) == pytest.approx(
        tw.planning.detectable_accuracy_difference(400 / de, 0.3), rel=1e-12)
    assert np.isnan(tw.planning.detectable_accuracy_difference(100, 0.0))
    assert np.isnan(tw.planning.detectable_accuracy_difference(5, 0.3))  # too few questions
    assert np.isnan(tw.planning.detectable_accuracy_difference(100, 0.01))  # a root beyond the discordance


def test_result_mdd_is_the_planning_value_at_the_observed_discordance_and_design_effect():
    t = _demo()
    plain = tw.comparison.paired_runs(t, A, "sim/demo-1b", n_resamples=100, rng=0)
    assert plain.mdd == tw.planning.detectable_accuracy_difference(400, plain.discordance)
    clustered = tw.comparison.paired_runs(t, A, "sim/demo-1b", clusters="cluster", n_resamples=100, rng=0)
    d = np.subtract(*(_correct(t, s)[0].astype(float) for s in (A, "sim/demo-1b")))
    assert clustered.design_effect == pytest.approx(max(1.0, clustered.se ** 2 / (d.var(ddof=1) / 400)), rel=1e-12)
    assert clustered.mdd == pytest.approx(float(tw.planning.detectable_accuracy_difference(
        400 / clustered.design_effect, clustered.discordance)), rel=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    ({"n": 0, "discordance": 0.2}, r"`n` must be a number of questions, at least 1; got 0"),
    ({"n": "many", "discordance": 0.2}, r"`n` must be a number of questions"),
    ({"n": 100, "discordance": 1.5}, r"discordance"),
    ({"n": 100, "discordance": 0.2, "power": 0.4}, r"`power` must be above 0.5 .*got 0.4"),
    ({"n": 100, "discordance": 0.2, "alpha": 0}, r"alpha"),
])
def test_mdd_bad_input_names_the_argument(kwargs, match):
    with pytest.raises(tw.InvalidValueError, match=match):
        tw.planning.detectable_accuracy_difference(**kwargs)


# ----------------------------------------------------------------------------- degenerate data


def _degenerate_warnings(record):
    return [w for w in record if issubclass(w.category, tw.DegenerateDataWarning)]


def test_identical_runs_give_zero_with_a_point_interval_and_one_warning():
    gen = np.random.default_rng(0)
    c = gen.random(60) < 0.6
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = tw.comparison.paired_runs(_table(c, c), "a", "b", n_resamples=200, rng=0)
    assert len(_degenerate_warnings(record)) == 1 and len(record) == 1
    assert res.statistic == 0 and tuple(res.confidence_interval) == (0.0, 0.0) and res.pvalue == 1
    assert res.pvalue_exact == 1 and res.pvalue_midp == 1 and math.isnan(res.mdd)
    assert res.error_consistency.statistic == 1 and res.error_consistency.confidence_interval.high == 1
    assert any(getattr(n, "kind", "") == "degenerate" for n in res.notes)


def test_no_discordant_question_with_different_responses_warns_once():
    t = _two(_demo()).copy()
    # B's correctness made A's: no discordant question, but B keeps its own probabilities (CAPA is defined)
    rows_a = t[t.subject == A].set_index(["condition", "image"]).correct
    mask = t.subject == B
    t.loc[mask, "correct"] = rows_a.loc[list(zip(t.loc[mask, "condition"], t.loc[mask, "image"]))].to_numpy()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = tw.comparison.paired_runs(t, A, B, clusters="cluster", n_resamples=200, rng=0)
    assert len(_degenerate_warnings(record)) == 1
    assert (res.n10, res.n01, res.statistic, res.pvalue) == (0, 0, 0.0, 1.0)
    assert res.capa is not None and 0 < res.capa.statistic < 1


def test_one_cluster_gives_nan_intervals_and_one_warning():
    gen = np.random.default_rng(1)
    ca, cb = gen.random(50) < 0.7, gen.random(50) < 0.5
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = tw.comparison.paired_runs(_table(ca, cb, ["x"] * 50), "a", "b", clusters="cluster",
                                        n_resamples=200, rng=0)
    assert len(_degenerate_warnings(record)) == 1
    assert "one cluster" in str(_degenerate_warnings(record)[0].message)
    assert res.n_clusters == 1 and math.isnan(res.pvalue) and math.isnan(res.confidence_interval.low)
    assert res.statistic == pytest.approx(ca.mean() - cb.mean(), abs=1e-12)
    assert math.isnan(res.error_consistency.confidence_interval.low) and math.isnan(res.error_consistency.pvalue)
    assert res.error_consistency.statistic == tw.error_consistency(ca, cb, n_resamples=10, rng=0).statistic
    assert res.pvalue_exact == pytest.approx(stats.binomtest(int((~ca & cb).sum()), int((ca != cb).sum())).pvalue)


def test_every_question_discordant_one_way_has_no_p_value():
    ca, cb = np.ones(30, bool), np.zeros(30, bool)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = tw.comparison.paired_runs(_table(ca, cb), "a", "b", n_resamples=100, rng=0)
    # one of the difference, and error consistency's own (a run always right: EC exactly 0)
    texts = sorted(str(w.message) for w in _degenerate_warnings(record))
    assert len(texts) == 2 and "EC is exactly 0" in texts[0] and "only: the difference has no spread" in texts[1]
    assert res.statistic == 1 and math.isnan(res.pvalue) and tuple(res.confidence_interval) == (1.0, 1.0)


# ----------------------------------------------------------------------------- alignment and bad input


def test_unaligned_questions_are_an_error_naming_the_counts_or_dropped_and_counted():
    t = _two(_demo())
    t = t.drop(t[(t.subject == A)].index[:3]).drop(t[(t.subject == B)].index[-5:])
    with pytest.raises(tw.InvalidValueError, match=r"392 questions both answered; 'sim/demo-7b-chat' answered 5 that "
                                                   r"'sim/demo-7b' did not, 'sim/demo-7b' 3 .*unaligned='drop'"):
        tw.comparison.paired_runs(t, A, B, n_resamples=100, rng=0)
    res = tw.comparison.paired_runs(t, A, B, unaligned="drop", n_resamples=100, rng=0)
    assert (res.n, res.n_dropped_a, res.n_dropped_b) == (392, 5, 3)
    note = next(n for n in res.notes if getattr(n, "kind", "") == "dropped")
    assert dict(note.values) == {"n_dropped_a": 5, "n_dropped_b": 3}


def _bad(trials, **kwargs):
    return tw.comparison.paired_runs(trials, kwargs.pop("a", A), kwargs.pop("b", B), n_resamples=10, rng=0, **kwargs)


@pytest.mark.parametrize("change, kwargs, error, match", [
    (lambda t: t.to_dict(), {}, tw.InvalidTypeError, r"`trials` must be a trial table .*got dict"),
    (lambda t: t.drop(columns="correct"), {}, tw.InvalidValueError, r"`trials` lacks the column\(s\) \['correct'\]"),
    (lambda t: t, {"a": "gpt"}, tw.InvalidValueError, r"`a` must be a subject of `trials`; got 'gpt' \(subjects: "),
    (lambda t: t, {"b": A}, tw.InvalidValueError, r"`a` and `b` must be two different subjects; got 'sim/demo-7b-chat'"),
    (lambda t: t, {"clusters": "topic"}, tw.InvalidValueError, r"`clusters` must name a column of `trials`; got 'topic'"),
    (lambda t: t, {"unaligned": "keep"}, tw.InvalidValueError, r"unaligned"),
    (lambda t: t, {"confidence_level": 95}, tw.InvalidValueError, r"confidence_level"),
    (lambda t: t, {"power": 1.2}, tw.InvalidValueError, r"power"),
    (lambda t: t.assign(correct=t.correct.astype(object).where(t.index != t.index[0], "maybe")), {},
     tw.InvalidValueError, r"`trials.correct` must be 0/1 or True/False; got 'maybe'"),
    (lambda t: pd.concat([t, t.iloc[:1]]), {}, tw.InvalidValueError,
     r"answers question .* more than once; number repeated runs in a column 'replicate'"),
    (lambda t: pd.concat([t, t.iloc[:1]]).assign(replicate=1), {}, tw.InvalidValueError,
     r"answers question .* twice in replicate 1"),
    (lambda t: t.assign(cluster=np.where(t.subject == A, t.cluster, "other")), {"clusters": "cluster"},
     tw.InvalidValueError, r"`trials.cluster` \(`clusters`\) differs between"),
])
def test_bad_input_names_the_argument_and_the_value(change, kwargs, error, match):
    t = _two(_demo())
    with pytest.raises(error, match=match):
        _bad(change(t), **kwargs)


def test_no_question_in_common_is_an_error():
    t = _table([1, 0, 1], [0, 1, 1])
    t.loc[t.subject == "b", "image"] = ["x", "y", "z"]
    with pytest.raises(tw.InvalidValueError, match=r"'a' and 'b' answered no question in common"):
        tw.comparison.paired_runs(t, "a", "b", unaligned="drop", n_resamples=10, rng=0)


# ----------------------------------------------------------------------------- calibration


def _simulate(gen, n_clusters, icc_share, psi=0.6, sizes=(2, 30)):
    """Paired differences under H0 (equal accuracies): clusters of unequal size, ICC of d = psi·E[(2π−1)²]."""
    if n_clusters is None:  # independent questions
        n = int(gen.integers(*sizes) * 10)
        u = gen.random(n)
        return np.where(u < psi / 2, 1.0, np.where(u < psi, -1.0, 0.0)), None
    size = gen.integers(sizes[0], sizes[1] + 1, n_clusters)
    a = (psi / icc_share - 1) / 2  # π_g ~ Beta(a, a): E[(2π − 1)²] = 1/(2a + 1)
    pi = gen.beta(a, a, n_clusters)
    g = np.repeat(np.arange(n_clusters), size)
    u = gen.random(g.size)
    return np.where(u < psi * pi[g], 1.0, np.where(u < psi, -1.0, 0.0)), g


def _type_one(n_clusters, n_datasets, seed, psi=0.6, icc=0.3):
    gen = np.random.default_rng(seed)
    hits = 0
    for _ in range(n_datasets):
        d, g = _simulate(gen, n_clusters, icc, psi)
        p = paired_difference_interval(d, g)[4]
        hits += bool(p <= 0.05)
    return hits / n_datasets


@pytest.mark.parametrize("n_clusters, psi", [(None, 0.2), (10, 0.6), (10, 0.4), (25, 0.6)])
def test_type_one_error_light(n_clusters, psi):
    # 1,500 data sets: Monte-Carlo SE 0.6 points at 5 %; the bound allows 2 SE over the 6.5 % target
    rate = _type_one(n_clusters, 1500, seed=20261128, psi=psi)
    assert rate <= 0.065 + 2 * math.sqrt(0.065 * 0.935 / 1500)


@pytest.mark.slow
@pytest.mark.parametrize("n_clusters", [None, 10, 15, 25, 40])
@pytest.mark.parametrize("psi", [0.4, 0.6])
def test_type_one_error_full(n_clusters, psi):
    # 10,000 data sets: Monte-Carlo SE 0.22 points at 5 %; measured 4.7–6.1 % (docs/validity.md)
    rate = _type_one(n_clusters, 10_000, seed=31, psi=psi)
    assert rate <= 0.065


def _repeated(trials, name, runs, seed):
    """``runs`` runs of ``name``: its logged run, then copies with each answer's correctness flipped with
    probability 0.2 (a model sampled at temperature > 0), numbered 1, 2, … in a ``replicate`` column."""
    rng = np.random.default_rng(seed)
    rows = trials[trials.subject == name]
    copies = [rows.assign(replicate=1)]
    for r in range(2, runs + 1):
        flip = rng.random(len(rows)) < 0.2
        copies.append(rows.assign(replicate=r, correct=rows.correct.to_numpy() ^ flip))
    return pd.concat(copies, ignore_index=True)


def test_repeated_runs_are_used_against_brute_force():
    """Issue 31 (item 3 for two runs): the difference of each question's share of right runs, its paired t
    interval, EC and CAPA over every pair of runs (pairwise_agreement on the replicates); no McNemar."""
    t = _two(_demo())
    reps = pd.concat([_repeated(t, A, 3, 1), t[t.subject == B]], ignore_index=True)  # B: one run, no number
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        res = tw.comparison.paired_runs(reps, A, B, n_resamples=200, rng=0)
    share = {m: reps[reps.subject == m].groupby(["condition", "image"]).correct.mean() for m in (A, B)}
    d = (share[A] - share[B].loc[share[A].index]).to_numpy()
    assert res.n == d.size == 400
    assert res.statistic == pytest.approx(d.mean(), abs=1e-14)
    assert res.se == pytest.approx(d.std(ddof=1) / np.sqrt(d.size), rel=1e-12)
    half = stats.t.ppf(0.975, d.size - 1) * res.se
    assert tuple(res.confidence_interval) == pytest.approx((d.mean() - half, d.mean() + half), abs=1e-12)
    assert (res.n10, res.n01) == (int((d > 0).sum()), int((d < 0).sum()))
    assert res.discordance == pytest.approx(np.mean(d ** 2), abs=1e-14)
    assert np.isnan(res.pvalue_exact) and np.isnan(res.pvalue_midp)
    assert {n.kind for n in res.notes} >= {"mcnemar", "replicates"}
    pair = reps.assign(replicate=reps.replicate.fillna(1).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        ec = tw.pairwise_agreement(pair, metric="ec", n_resamples=10, rng=0).pair(A, B)
        capa = tw.pairwise_agreement(pair, metric="capa", n_resamples=0).pair(A, B)
    assert res.error_consistency.statistic == pytest.approx(ec.statistic, abs=1e-12)
    assert res.capa.statistic == pytest.approx(capa.statistic, abs=1e-12)
    one = tw.comparison.paired_runs(t, A, B, n_resamples=200, rng=0)  # one run each: McNemar as before
    assert one.pvalue_exact == one.pvalue_exact and "replicates" not in {n.kind for n in one.notes}
