"""Leaderboards on degenerate data (issue 17, HR3's review): no usable pair, a candidate without
one, conditions that some rows' scores leave out, one cluster per condition.

The numbers are checked against a brute force written here (κ of 0/1 columns, means over
the defined conditions); the bad-input corpus (tests/test_bad_input.py) holds the errors and
the warnings.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import trialwise as tw
from trialwise.benchmark.ranks import ranking_stability
from trialwise.cli import main

PROTO = tw.Protocol(name="small")


def _trials(n: int = 40, seed: int = 1) -> pd.DataFrame:
    """One experiment, two conditions of ``n`` images, three humans, three models."""
    rng = np.random.default_rng(seed)
    rows = []
    for cond in ("c1", "c2"):
        truth = rng.choice(["cat", "dog", "car"], n)
        hard = rng.random(n) < 0.4  # shared difficulty: the observers' errors agree beyond chance
        for s, kind, acc in (("h1", "human", 0.8), ("h2", "human", 0.7), ("h3", "human", 0.75),
                             ("m1", "model", 0.6), ("m2", "model", 0.9), ("m3", "model", 0.7)):
            ok = rng.random(n) < np.where(hard, acc - 0.3, acc + 0.1)
            resp = np.where(ok, truth, np.where(truth == "dog", "car", "dog"))
            rows += [dict(experiment="exp", condition=cond, subject=s, observer_type=kind, image=f"{cond}-{i}",
                          truth=t, response=r) for i, (t, r) in enumerate(zip(truth, resp))]
    return pd.DataFrame(rows)


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ of two 0/1 correctness columns (NaN where the expected agreement is 1)."""
    pa, pb = a.mean(), b.mean()
    c_obs, c_exp = (a == b).mean(), pa * pb + (1 - pa) * (1 - pb)
    return np.nan if c_exp == 1 else (c_obs - c_exp) / (1 - c_exp)


def _brute_scores(raw: pd.DataFrame) -> dict[str, float]:
    """Each row's score by hand: mean over references of κ, then over the conditions where defined."""
    t = raw.assign(correct=raw.truth == raw.response)
    per: dict[str, list[float]] = {}
    for _, g in t.groupby("condition"):
        w = g.pivot(index="image", columns="subject", values="correct").astype(float)
        hum = [c for c in w if c.startswith("h")]
        for m in [c for c in w if c.startswith("m")]:
            per.setdefault(m, []).append(np.nanmean([_kappa(w[m].values, w[h].values) for h in hum]))
        pairs = [_kappa(w[a].values, w[b].values) for a, b in itertools.combinations(hum, 2)]
        defined = [p for p in pairs if np.isfinite(p)]
        per.setdefault("human–human", []).append(np.mean(defined) if defined else np.nan)
    return {k: float(np.nanmean(v)) if np.isfinite(v).any() else np.nan for k, v in per.items()}


def _board(raw: pd.DataFrame, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = tw.leaderboard(tw.read_trials(raw), PROTO, n_resamples=kw.pop("n_resamples", 200), rng=0, **kw)
    return lb, caught


def test_humans_at_ceiling_rows_average_different_conditions_and_say_so():
    raw = _trials()
    hit = (raw.condition == "c2") & raw.subject.str.startswith("h")
    raw.loc[hit, "response"] = raw.loc[hit, "truth"]
    lb, caught = _board(raw)
    brute = _brute_scores(raw)
    for row in lb.observers:  # models: κ = 0 in c2 counted; human–human: c2 left out
        assert lb.scores[lb.observers.index(row)] == pytest.approx(brute[row], abs=1e-12)
    assert [w.category for w in caught] == [tw.DegenerateDataWarning]
    assert "exp/c2 (human–human)" in str(caught[0].message)
    assert any(getattr(n, "kind", "") == "undefined-conditions" for n in lb.notes)
    assert "exp/c2 (human–human)" in lb.summary()


def test_a_condition_everybody_has_at_ceiling_is_named_and_left_out_of_every_score():
    raw = _trials()
    hit = raw.condition == "c2"
    raw.loc[hit, "response"] = raw.loc[hit, "truth"]
    lb, caught = _board(raw)
    only_c1 = _brute_scores(raw[raw.condition == "c1"])
    assert lb.scores == pytest.approx([only_c1[r] for r in lb.observers], abs=1e-12)
    assert len(caught) == 1 and "left out of every score: exp/c2" in str(caught[0].message)


def test_ordinary_data_have_no_undefined_condition_note():
    lb, caught = _board(_trials())
    assert not caught
    assert not any(getattr(n, "kind", "") == "undefined-conditions" for n in lb.notes)
    assert lb.scores == pytest.approx([_brute_scores(_trials())[r] for r in lb.observers], abs=1e-12)


def test_a_candidate_without_a_usable_pair_is_not_scored_nor_ranked_nor_tested(tmp_path, capsys):
    raw = _trials()
    raw = raw[~((raw.subject == "m1") & (raw.image.str.split("-").str[1].astype(int) >= 12))]  # 12 of 40 images
    lb, caught = _board(raw)
    assert lb.candidates == ("m2", "m3") and "m1" not in set(lb.table.observer)
    assert len(caught) == 1 and "m1 (in exp)" in str(caught[0].message)
    assert lb.excluded.subject.tolist() == ["m1"] and "min_items" in lb.excluded.reason.iloc[0]
    # τ, ranks and tests over the scored candidates: the same as a board without m1
    alone, _ = _board(raw[raw.subject != "m1"])
    assert lb.kendall_tau.statistic == alone.kendall_tau.statistic
    assert np.isfinite(lb.kendall_tau.statistic)
    pw = lb.pairwise(n_resamples=50)
    assert set(pw.observer_a) | set(pw.observer_b) == {"m2", "m3"} and pw[["ci_low", "ci_high"]].notna().all().all()
    # the command line: status "not scored" with its reason, the note shown
    path, out_csv = tmp_path / "t.csv", tmp_path / "lb.csv"
    raw.to_csv(path, index=False)
    code = main(["leaderboard", str(path), "--experiments", "exp", "--resamples", "50", "--seed", "0", "-q",
                 "--tests", "none", "--csv", str(out_csv)])
    out = capsys.readouterr()
    assert code == 0
    table = pd.read_csv(out_csv).set_index("observer")
    assert table.loc["m1", "status"] == "not scored" and "min_items" in table.loc["m1", "reason"]
    assert (table.loc[table.status == "scored", "score"].notna()).all()
    assert "1 candidate(s) not scored, for they share fewer than 20 images" in out.out
    # the report's banner names it with its reason, as it names candidates that lack experiments
    from trialwise.benchmark.report import render_report

    page = render_report(lb).html
    assert "Not scored (1): m1 — they share fewer than 20 images" in page


def test_the_note_of_experiments_missing_from_the_trials_is_shown(tmp_path, capsys):
    raw = _trials().assign(experiment="colour", condition=lambda f: f.condition.map({"c1": "bw", "c2": "cr"}))
    path = tmp_path / "t.csv"
    raw.to_csv(path, index=False)
    code = main(["leaderboard", str(path), "--resamples", "20", "--seed", "0", "-q", "--tests", "none"])
    out = capsys.readouterr().out
    assert code == 0
    assert "16 of the 17 experiments of protocol 'model-vs-human' are not in the trials and were not scored" in out


def test_kendall_tau_is_over_the_finite_scores_only():
    rng = np.random.default_rng(3)
    s = np.array([0.10, 0.20, np.nan, 0.30, 0.25])
    reps = s + rng.normal(0, 0.05, (60, 5))
    reps[:, 2] = np.nan
    got = ranking_stability(s, reps)
    keep = np.isfinite(s)
    oracle = [stats.kendalltau(s[keep], r[keep]).statistic for r in reps]
    assert got.statistic == pytest.approx(np.mean(oracle), abs=1e-12)
    assert got.bootstrap_distribution == pytest.approx(oracle, abs=1e-12)


def test_one_cluster_per_condition_is_an_error_and_two_are_resampled():
    raw = _trials()
    with pytest.raises(tw.InvalidValueError, match=r"condition 'c1' of experiment 'exp' holds a single cluster"):
        tw.leaderboard(tw.read_trials(raw).assign(passage=raw.condition.to_numpy()), PROTO, clusters="passage",
                       n_resamples=20, rng=0)
    t = tw.read_trials(raw)
    two = t.assign(passage=t.condition + "-" + (t.image.str.split("-").str[1].astype(int) % 2).astype(str))
    lb = tw.leaderboard(two, PROTO, clusters="passage", n_resamples=50, rng=0)
    assert lb.resampled == "clusters" and (lb.table.ci_high - lb.table.ci_low > 0).all()


def test_no_usable_pair_is_an_error_naming_min_items_and_lowering_it_scores():
    raw = _trials(n=8)
    with pytest.raises(tw.InvalidValueError, match=r"min_items \(20\)"):
        tw.leaderboard(tw.read_trials(raw), PROTO, n_resamples=20, rng=0)
    lb = tw.leaderboard(tw.read_trials(raw), PROTO.replace(min_items=5), n_resamples=50, rng=0)
    assert np.isfinite(lb.scores).all()


@pytest.mark.slow
def test_studentized_interval_of_one_small_table_covers_where_bc_does_not_ci_light():
    """CI-light run of benchmarks/studentized_fallback_coverage.py's ``one-table`` design (R = 100,
    B = 300): one reference observer and one condition of 30 items, so every score is the κ of one
    small table and its studentized interval often reaches past every replicate (HR3's item 6).
    It still covers within Monte-Carlo error where ``bc`` under-covers, which is why a score's
    studentized interval is not replaced by ``bc`` or clipped to the replicates' range there."""
    cov = {}
    for method in ("studentized", "bc"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tw.TrialwiseWarning)
            st = tw.validity.benchmark_coverage_study(
                n_datasets=100, n_resamples=300, n_items=30, n_experiments=1, n_conditions=1,
                simulated_humans=[(0.95, 0.45)], tests=False, ci_method=method, rng=4)
        cov[method] = st.table.set_index("observer")["coverage"].drop(index="human–human")
    se = np.sqrt(0.95 * 0.05 / 100)
    assert (cov["studentized"] >= 0.95 - 3 * se - 0.01).all(), cov
    assert cov["studentized"].mean() > cov["bc"].mean(), cov
