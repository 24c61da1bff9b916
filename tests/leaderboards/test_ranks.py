"""Rank sets with a stated guarantee (issue 16, Mogstad, Romano, Shaikh & Wilhelm 2024) and tie groups."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import trialwise as tw
from trialwise.leaderboards.ranks import (
    best_set,
    compact_letters,
    pairwise_bootstrap_pvalues,
    rank_sets,
    stepdown_significance,
    tie_groups,
)


# ------------------------------------------------------------------ a brute-force oracle, loops only

def _sd(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _oracle_stepdown(est, reps, level, two_sided=True):
    """Romano–Wolf step-down written out: pairs, order statistics and loops, no numpy."""
    m, b = len(est), len(reps)
    se = [_sd([reps[r][p] for r in range(b)]) for p in range(m)]
    sig, crits = [False] * m, []
    while not all(sig):
        maxes = []
        for r in range(b):
            ts = [(reps[r][p] - est[p]) / se[p] for p in range(m) if not sig[p]]
            maxes.append(max(abs(t) for t in ts) if two_sided else max(ts))
        c = sorted(maxes)[math.ceil(level * (b - 1))]  # the next-higher order statistic
        crits.append(c)
        new = [p for p in range(m) if not sig[p] and ((abs(est[p]) if two_sided else est[p]) > c * se[p])]
        if not new:
            break
        for p in new:
            sig[p] = True
    return sig, crits


def _oracle_rank_sets(s, reps, level, simultaneous):
    k = len(s)
    if simultaneous:
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        sig, _ = _oracle_stepdown([s[i] - s[j] for i, j in pairs],
                                  [[row[i] - row[j] for i, j in pairs] for row in reps], level)
        better = {(j, i) if s[i] > s[j] else (i, j) for (i, j), g in zip(pairs, sig) if g}  # (worse, better)
        lo = [1 + sum((a, b) in better for b in range(k)) for a in range(k)]
        hi = [k - sum((b, a) in better for b in range(k)) for a in range(k)]
        return lo, hi
    lo, hi = [], []
    for a in range(k):
        others = [b for b in range(k) if b != a]
        sig, _ = _oracle_stepdown([s[a] - s[b] for b in others], [[row[a] - row[b] for b in others] for row in reps],
                                  level)
        lo.append(1 + sum(g and s[b] > s[a] for b, g in zip(others, sig)))
        hi.append(k - sum(g and s[b] < s[a] for b, g in zip(others, sig)))
    return lo, hi


def _board(k=5, b=400, gaps=(0.0, 0.05, 0.3, 0.32, 0.8), sd=0.1, seed=0):
    g = np.random.default_rng(seed)
    theta = np.asarray(gaps[:k], dtype=float)
    scores = theta + sd * g.standard_normal(k) * 0.3
    corr = 0.5 * g.standard_normal((b, 1))  # correlated replicates, as in a joint bootstrap
    reps = scores + sd * (g.standard_normal((b, k)) + corr) * g.uniform(0.5, 1.5, k)
    return scores, reps


def test_stepdown_matches_the_brute_force_oracle():
    scores, reps = _board(b=200)
    i, j = np.triu_indices(5, 1)
    est, rep = scores[i] - scores[j], reps[:, i] - reps[:, j]
    est, rep = np.concatenate([est, -est]), np.hstack([rep, -rep])  # ordered pairs, for the one-sided bounds
    for alt in ("two-sided", "greater"):
        sig, crit = stepdown_significance(est, rep, confidence_level=0.9, alternative=alt)
        o_sig, o_crit = _oracle_stepdown(est.tolist(), rep.tolist(), 0.9, two_sided=alt == "two-sided")
        assert sig.tolist() == o_sig
        np.testing.assert_allclose(crit, o_crit, rtol=1e-12)
        assert len(crit) >= 2 and 0 < sig.sum() < sig.size  # the example exercises a real step


def test_step_down_is_no_less_powerful_than_one_step():
    scores, reps = _board(b=300, seed=3)
    i, j = np.triu_indices(5, 1)
    est, rep = scores[i] - scores[j], reps[:, i] - reps[:, j]
    sig, crit = stepdown_significance(est, rep)
    assert crit == tuple(sorted(crit, reverse=True))  # critical values only shrink
    se = rep.std(axis=0, ddof=1)
    one_step = np.abs(est) > crit[0] * se
    assert np.all(sig >= one_step) and sig.sum() >= one_step.sum()


@pytest.mark.parametrize("simultaneous", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_sets_match_the_oracle(simultaneous, seed):
    scores, reps = _board(b=150, seed=seed)
    lo, hi = rank_sets(scores, reps, confidence_level=0.9, simultaneous=simultaneous)
    o_lo, o_hi = _oracle_rank_sets(scores.tolist(), reps.tolist(), 0.9, simultaneous)
    assert lo.tolist() == o_lo and hi.tolist() == o_hi


def test_hand_checkable_example():
    # three models, far apart and almost no noise: every set is a point, the best set is {c}
    reps = np.array([[0.0, 1.0, 2.0]]) + 0.01 * np.random.default_rng(0).standard_normal((100, 3))
    scores = np.array([0.0, 1.0, 2.0])
    for sim in (False, True):
        lo, hi = rank_sets(scores, reps, simultaneous=sim)
        assert lo.tolist() == [3, 2, 1] and hi.tolist() == [3, 2, 1]
    assert best_set(scores, reps).tolist() == [False, False, True]
    assert best_set(scores, reps, k=2).tolist() == [False, True, True]
    assert best_set(-scores, -reps, higher_is_better=False).tolist() == [False, False, True]
    assert tie_groups(scores, reps) == ["c", "b", "a"]


def test_properties_on_random_boards():
    for seed in range(8):
        scores, reps = _board(k=5, b=300, seed=seed)
        m_lo, m_hi = rank_sets(scores, reps)
        s_lo, s_hi = rank_sets(scores, reps, simultaneous=True)
        assert np.all(s_lo <= m_lo) and np.all(m_hi <= s_hi)  # marginal ⊆ simultaneous
        rank = 1 + np.array([np.sum(scores > x) for x in scores])
        assert np.all((m_lo <= rank) & (rank <= m_hi))  # each set holds the observed rank
        assert best_set(scores, reps)[np.argmax(scores)]  # the best set holds the top-ranked
        assert np.all(best_set(scores, reps) <= best_set(scores, reps, k=2))


def test_all_equal_scores_give_full_sets():
    g = np.random.default_rng(4)
    scores = np.full(4, 0.3)
    reps = 0.3 + 0.05 * g.standard_normal((500, 4))
    for sim in (False, True):
        lo, hi = rank_sets(scores, reps, simultaneous=sim)
        assert lo.tolist() == [1] * 4 and hi.tolist() == [4] * 4
    assert best_set(scores, reps).all()
    assert tie_groups(scores, reps) == ["a"] * 4


def test_undefined_scores_and_replicates():
    scores, reps = _board(k=4, b=200)
    scores[2] = np.nan
    reps[:5, 0] = np.nan
    lo, hi = rank_sets(scores, reps)
    assert np.isnan(lo[2]) and np.isnan(hi[2]) and np.nanmax(hi) <= 3
    keep = [0, 1, 3]
    ok = np.isfinite(reps[:, keep]).all(axis=1)
    np.testing.assert_array_equal(lo[keep], rank_sets(scores[keep], reps[ok][:, keep])[0])
    assert not best_set(scores, reps)[2] and tie_groups(scores, reps)[2] == ""


def test_pvalues_against_scipy_wald():
    from scipy import stats

    scores, reps = _board(k=4, b=300)
    p = pairwise_bootstrap_pvalues(scores, reps)
    for a, b in itertools.combinations(range(4), 2):
        se = np.std(reps[:, a] - reps[:, b], ddof=1)
        expected = 2 * stats.norm.sf(abs(scores[a] - scores[b]) / se)
        assert p[a, b] == p[b, a] == pytest.approx(expected, rel=1e-12)


def test_compact_letters_represent_every_comparison():
    g = np.random.default_rng(7)
    for _ in range(40):
        k = int(g.integers(2, 8))
        sig = np.triu(g.random((k, k)) < 0.4, 1)
        sig = sig | sig.T
        letters = compact_letters(sig)
        assert all(letters)
        for a, b in itertools.combinations(range(k), 2):
            assert bool(set(letters[a]) & set(letters[b])) == (not sig[a, b])


def test_compact_letters_piepho_example():
    # Piepho (2004), a chain: 1–2 and 2–3 not different, 1–3 different: "a", "ab", "b"
    sig = np.zeros((3, 3), bool)
    sig[0, 2] = sig[2, 0] = True
    assert compact_letters(sig) == ["a", "ab", "b"]


def test_leaderboard_table_carries_the_sets():
    lb = tw.leaderboard(tw.datasets.model_vs_human("cue-conflict"),
                        protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]), n_resamples=300, rng=2)
    t = lb.table
    for col in ("rank_set_low", "rank_set_high", "in_best_set", "group"):
        assert col in t.columns and col in lb.frame_columns
    ref = t[t.kind == "reference"].iloc[0]
    assert all(ref[c] is np.nan or ref[c] is None or str(ref[c]) == "<NA>"
               for c in ("rank_low", "rank_set_low", "in_best_set", "group"))
    cand = t[t.kind == "candidate"].set_index("observer").loc[list(lb.candidates)]
    k = len(lb.candidates)
    lo, hi = rank_sets(lb.scores[:k], lb.replicates[:, :k], confidence_level=lb.confidence_level)
    s_lo, s_hi = rank_sets(lb.scores[:k], lb.replicates[:, :k], simultaneous=True)
    np.testing.assert_array_equal(cand.rank_low.to_numpy(float), lo)
    np.testing.assert_array_equal(cand.rank_high.to_numpy(float), hi)
    np.testing.assert_array_equal(cand.rank_set_low.to_numpy(float), s_lo)
    np.testing.assert_array_equal(cand.rank_set_high.to_numpy(float), s_hi)
    assert cand.in_best_set.astype(bool).tolist() == best_set(lb.scores[:k], lb.replicates[:, :k]).tolist()
    assert bool(t[t.kind == "candidate"].iloc[0].in_best_set)
    assert t[t.kind == "candidate"].iloc[0].group.startswith("a")


def test_simultaneous_rank_sets_are_calibrated():
    """CI-light: R = 100 simulated benchmarks, B = 300 (about 40 s). MC SE at 95 %: 2.2 points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        st = tw.validity.benchmark_coverage_study(n_datasets=100, n_resamples=300, n_experiments=1, run_tests=False,
                                                  rng=11)
    r = st.ranks.set_index(["rank_set", "observer"])
    floor = 0.95 - 3 * math.sqrt(0.95 * 0.05 / 100)
    assert r.loc[("simultaneous", "all models at once"), "coverage"] >= floor
    assert r.loc[("best", "best set holds the best"), "coverage"] >= floor
    for k in ("m1", "m2", "m3", "m4", "x", "y"):
        assert r.loc[("marginal", k), "coverage"] >= floor
    # the simultaneous sets are never narrower than the marginal ones
    assert r.loc[("simultaneous", "all models at once"), "mean_width"] >= r.loc[("marginal", "all models at once"),
                                                                                  "mean_width"]


def test_best_set_method_and_result():
    lb = tw.leaderboard(tw.datasets.model_vs_human("cue-conflict"),
                        protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]), n_resamples=300, rng=2)
    b1, b3 = lb.best_set(), lb.best_set(k=3)
    t = lb.table.set_index("observer")
    assert set(b1.observers) == {o for o in lb.candidates if bool(t.loc[o, "in_best_set"])}
    assert set(b1.observers) <= set(b3.observers)
    assert b1.to_frame().in_best_set.sum() == len(b1.observers)
    text = b3.summary()
    assert "  k best               3\n" in text and f"   ({len(b3.observers)} of {len(b3.candidates)})\n" in text
    assert all(name in text.splitlines()[1] for name in b3.observers)
    with pytest.raises(ValueError, match="`k`"):
        lb.best_set(k=0)


def _best_set_loops(s, reps, k, level):
    """The step-down over models written with loops: rival deviations per (j, i), then steps."""
    m = len(s)
    t_max = np.full((reps.shape[0], m), -np.inf)
    se = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            d = reps[:, j] - reps[:, i]
            se[j, i] = d.std(ddof=1)
            t = (d - (s[j] - s[i])) / se[j, i] if se[j, i] > 0 else np.zeros_like(d)
            t_max[:, i] = np.maximum(t_max[:, i], t)
    inside = set(range(m))
    while True:
        c = np.quantile(np.max(t_max[:, sorted(inside)], axis=1), level, method="higher")
        keep = {i for i in inside
                if sum((s[j] - s[i] > c * se[j, i]) if se[j, i] > 0 else (s[j] > s[i])
                       for j in range(m) if j != i) < k}
        if keep == inside:
            return inside
        inside = keep


@pytest.mark.parametrize("seed,k", [(0, 1), (1, 1), (2, 2), (3, 3)])
def test_best_set_is_the_step_down_over_models(seed, k):
    from trialwise.leaderboards.ranks import best_set

    gen = np.random.default_rng(seed)
    s = np.sort(gen.normal(0, 0.05, 9))[::-1] + np.linspace(0, 0.1, 9)
    reps = s + gen.normal(0, 0.03, (400, 9)) * gen.uniform(0.5, 1.5, 9)
    got = set(np.flatnonzero(best_set(s, reps, k=k)))
    assert got == _best_set_loops(s, reps, k, 0.95)
    assert int(np.argmax(s)) in got
