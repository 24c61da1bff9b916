"""Leaderboards on degenerate data (issue 17, HR3's review): no usable pair, a candidate without
one, conditions that some rows' scores leave out, one cluster per condition.

The numbers are checked against a brute force written here (κ of 0/1 columns, means over
the defined conditions); the bad-input corpus (tests/contracts/test_bad_input.py) holds the errors and
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
from trialwise.leaderboards.ranks import ranking_stability
from trialwise.cli import main

PROTO = tw.leaderboards.Protocol(name="small")


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
    from trialwise.report.leaderboard import render_report

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
    with pytest.warns(tw.DegenerateDataWarning, match=r"2 of 2 condition\(s\) hold only two clusters \(exp/c1, exp/c2\)"):
        lb = tw.leaderboard(two, PROTO, clusters="passage", n_resamples=50, rng=0)
    assert lb.resampled == "clusters" and (lb.table.ci_high - lb.table.ci_low > 0).all()
    (note,) = [n for n in lb.notes if getattr(n, "kind", None) == "two-clusters"]
    assert note.values == {"conditions": ["exp/c1", "exp/c2"], "n_conditions": 2}
    three = t.assign(passage=t.condition + "-" + (t.image.str.split("-").str[1].astype(int) % 3).astype(str))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tw.DegenerateDataWarning)  # three clusters: no such warning
        lb3 = tw.leaderboard(three, PROTO, clusters="passage", n_resamples=50, rng=0)
    assert not [n for n in lb3.notes if getattr(n, "kind", None) == "two-clusters"]


def test_no_usable_pair_is_an_error_naming_min_items_and_lowering_it_scores():
    raw = _trials(n=8)
    with pytest.raises(tw.InvalidValueError, match=r"min_items \(20\)"):
        tw.leaderboard(tw.read_trials(raw), PROTO, n_resamples=20, rng=0)
    lb = tw.leaderboard(tw.read_trials(raw), PROTO.replace(min_items=5), n_resamples=50, rng=0)
    assert np.isfinite(lb.scores).all()


@pytest.mark.slow
def test_studentized_interval_of_one_small_table_covers_where_bc_does_not_ci_light():
    """CI-light run of benchmarks/calibration/studentized_fallback_coverage.py's ``one-table`` design (R = 100,
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
                simulated_humans=[(0.95, 0.45)], run_tests=False, ci_method=method, rng=4)
        cov[method] = st.table.set_index("observer")["coverage"].drop(index="human–human")
    se = np.sqrt(0.95 * 0.05 / 100)
    assert (cov["studentized"] >= 0.95 - 3 * se - 0.01).all(), cov
    assert cov["studentized"].mean() > cov["bc"].mean(), cov


# --- degenerate-but-legal designs of differences and intervals (HR4's review) -----------------------


def _two_clusters(raw: pd.DataFrame) -> pd.DataFrame:
    """Every condition's images in two clusters (even and odd numbers)."""
    t = tw.read_trials(raw)
    return t.assign(passage=t.condition + "-" + (t.image.str.split("-").str[1].astype(int) % 2).astype(str))


def test_a_rounding_residue_of_the_standard_error_counts_as_zero():
    from trialwise._stats.intervals import degenerate_standard_errors, studentized_replicates

    se = 0.02
    assert degenerate_standard_errors(se, np.array([0.0, 4e-16, 1e-14 * se, 1e-3 * se, 0.4 * se])).tolist() == [
        True, True, True, False, False]
    t = studentized_replicates(np.array([0.1, 0.3, 0.2]), 0.2, se, np.array([3e-16, 3e-16, 3e-16]))
    assert t[0] == -np.inf and t[1] == np.inf and np.isnan(t[2])


def test_a_difference_with_two_clusters_per_condition_falls_back_to_bc_with_a_note_and_one_warning():
    from trialwise.leaderboards.differences import contrast_standard_errors
    from trialwise._stats.intervals import interval

    with pytest.warns(tw.DegenerateDataWarning, match="only two clusters"):
        lb = tw.leaderboard(_two_clusters(_trials()), PROTO, clusters="passage", n_resamples=300, rng=0)
    i, j = lb.observers.index("m1"), lb.observers.index("m3")
    dist, est = lb.replicates[:, i] - lb.replicates[:, j], lb.scores[i] - lb.scores[j]
    # brute force: the share of replicates whose SE of the difference is a residue (≤ 1e-8·SE)
    s0, s_rep = contrast_standard_errors(lb.replicates, lb.standard_errors, lb.replicate_standard_errors,
                                         np.array([i]), np.array([j]))
    flat = int(np.sum(s_rep[:, 0] <= 1e-8 * s0[0]))
    assert flat > 0.05 * 300  # one experiment × two conditions: a replicate draws one cluster in both 1/4 of the time
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = lb.difference("m1", "m3", test="studentized")
    assert [w.category for w in caught] == [tw.DegenerateDataWarning]
    assert "m1 − m3" in str(caught[0].message) and "(bc) is given instead" in str(caught[0].message)
    lo, hi = interval("bc", dist, est, 0.95, bounds=(-np.inf, np.inf))
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx((lo, hi), abs=1e-12)
    assert res.ci_method == "bc" and np.isfinite([res.confidence_interval.low, res.confidence_interval.high]).all()
    (note,) = res.notes
    assert note.kind == "studentized-fallback" and note.values["n_flat"] == [flat] and note.values["difference"]
    # the studentized p-value by hand: t* = ±∞ where SE* is a residue, so p ≥ (1 + flat) / (1 + B) > α
    t_abs = np.where(s_rep[:, 0] <= 1e-8 * s0[0], np.where(dist == est, np.nan, np.inf),
                     np.abs(dist - est) / s_rep[:, 0])
    n = np.sum(~np.isnan(t_abs))
    assert res.pvalue == pytest.approx((1 + np.sum(t_abs >= abs(est) / s0[0])) / (1 + n), abs=1e-12)
    assert res.pvalue >= (1 + flat) / 301 > 0.05
    assert "p-value is at least" in str(note) and "swap test" in str(note)
    # pairwise: the same intervals, one warning naming every pair that fell back, the note in attrs
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pw = lb.pairwise(test="studentized")
    assert len(caught) == 1 and issubclass(caught[0].category, tw.TrialwiseWarning)
    row = pw[(pw.observer_a == "m1") & (pw.observer_b == "m3") | (pw.observer_a == "m3") & (pw.observer_b == "m1")]
    assert abs(row.ci_high.iloc[0] - row.ci_low.iloc[0]) == pytest.approx(hi - lo, abs=1e-12)
    assert pw.attrs["notes"][0].kind == "studentized-fallback" and np.isfinite(pw[["ci_low", "ci_high"]]).all().all()


def test_ten_clusters_per_condition_keep_the_studentized_difference_and_no_warning():
    t = tw.read_trials(_trials())
    ten = t.assign(passage=t.condition + "-" + (t.image.str.split("-").str[1].astype(int) % 10).astype(str))
    lb = tw.leaderboard(ten, PROTO, clusters="passage", n_resamples=200, rng=0)
    res = lb.difference("m1", "m3")  # filterwarnings=error: no warning
    assert res.ci_method == "symmetric-studentized" and res.notes == ()


def test_comparing_a_candidate_that_was_not_scored_says_why():
    raw = _trials()
    raw = raw[~((raw.subject == "m1") & (raw.image.str.split("-").str[1].astype(int) >= 12))]
    lb, _ = _board(raw)
    with pytest.raises(tw.InvalidValueError, match=r"'m1' was not scored.*min_items.*`excluded`"):
        lb.difference("m1", "m2")
    with pytest.raises(tw.InvalidValueError, match=r"'h1' is a reference observer.*'human–human'"):
        lb.difference("m2", "h1")
    with pytest.raises(tw.InvalidValueError, match=r"'zz' is not an observer"):
        lb.difference("zz", "m2")


def _accuracy_trials(right: dict[str, list[bool]], conditions: tuple[str, ...] = ("c",)) -> pd.DataFrame:
    return pd.DataFrame([dict(experiment="e", condition=c, subject=s, observer_type="model", image=f"{c}q{i}",
                              truth="a", response="a" if ok else "b")
                         for c in conditions for s, rs in right.items() for i, ok in enumerate(rs)])


@pytest.mark.parametrize("ci_method", ["studentized", "percentile", "bc"])
def test_an_accuracy_at_the_ceiling_gets_the_exact_binomial_interval(ci_method):
    trials = _accuracy_trials({"m1": [True] * 5, "m2": [True, True, True, False, False], "m3": [False] * 5})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=200, rng=0, ci_method=ci_method)
    table = lb.table.set_index("observer")
    # oracle: Clopper–Pearson from the beta quantiles, 5 of 5 and 0 of 5
    assert table.loc["m1", "ci_low"] == pytest.approx(stats.beta.ppf(0.025, 5, 1), abs=1e-9)
    assert table.loc["m1", "ci_high"] == 1.0
    assert table.loc["m3", "ci_high"] == pytest.approx(stats.beta.ppf(0.975, 1, 5), abs=1e-9)
    assert table.loc["m3", "ci_low"] == 0.0
    assert table.loc["m2", "ci_high"] > table.loc["m2", "ci_low"]  # 3 of 5: the bootstrap interval, untouched
    assert [w.category for w in caught] == [tw.DegenerateDataWarning]
    (note,) = [n for n in lb.notes if getattr(n, "kind", "") == "interval-at-bound"]
    assert note.values["names"] == ["m1", "m3"] and note.values["replaced"] == [True, True]
    assert "0.478" in str(note) and not any(getattr(n, "kind", "") == "studentized-fallback" and "m1" in
                                            n.values["names"] for n in lb.notes)


def test_an_accuracy_at_the_ceiling_over_several_conditions_is_named_but_not_replaced():
    trials = _accuracy_trials({"m1": [True] * 6, "m2": [True, False, True, False, True, True]},
                              conditions=("c1", "c2"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=200, rng=0, ci_method="percentile")
    table = lb.table.set_index("observer")
    assert (table.loc["m1", "ci_low"], table.loc["m1", "ci_high"]) == (1.0, 1.0)
    assert len(caught) == 1 and "m1 (12 items" in str(caught[0].message) and "rough bound" in str(caught[0].message)
    (note,) = [n for n in lb.notes if getattr(n, "kind", "") == "interval-at-bound"]
    assert note.values["replaced"] == [False]
    assert note.values["exact"][0][0] == pytest.approx(stats.beta.ppf(0.025, 12, 1), abs=1e-9)


@pytest.mark.slow
def test_differences_with_few_clusters_ci_light():
    """CI-light run of benchmarks/calibration/difference_few_clusters.py (R = 60 boards per k, B = 200; the
    figures of docs/benchmark.md are R = 400, B = 500): with 10 clusters per condition the
    studentized difference interval covers and the combined test holds its level; with 2 the
    interval is bc on most boards — finite, named in a warning — and under-covers as documented,
    while the studentized and combined tests keep their level."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parents[2] / "benchmarks" / "calibration" / "difference_few_clusters.py"
    spec = importlib.util.spec_from_file_location("difference_few_clusters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw = module.study((2, 10), r=60, b=200, seed=5)
    se = np.sqrt(0.95 * 0.05 / 60)
    by = {(k, c): g for (k, c), g in raw.groupby(["k", "contrast"])}
    for c in ("a−b", "a−a2", "a−c"):
        assert by[10, c].covered.mean() >= 0.95 - 3 * se - 0.01, c
        assert not by[10, c].fallback.any()
    for c in ("a−a2", "a−c"):  # true nulls
        for k in (2, 10):
            assert (by[k, c].p_combined < 0.05).mean() <= 0.05 + 3 * se, (k, c)
        assert (by[2, c].p_studentized < 0.05).mean() <= 0.05 + 3 * se, c
    two = raw[raw.k == 2]
    assert two.fallback.mean() > 0.5 and (two.fallback <= two.warned).all()
    assert np.isfinite(two.width).all()
    assert two[two.contrast == "a−a2"].covered.mean() < 0.9  # the documented under-coverage of bc at k = 2


# --------------------------------------------------------------------------- always right (issue 29)

def _always_right(raw: pd.DataFrame, who: str = "") -> pd.DataFrame:
    """Every observer whose name starts with ``who`` (all, by default) answers every image right."""
    hit = raw.subject.str.startswith(who)
    return raw.assign(response=raw.response.where(~hit, raw.truth))


def test_humans_always_right_everywhere_give_the_brute_scores_and_one_warning_naming_the_ceiling():
    raw = _always_right(_trials(), "h")
    lb, caught = _board(raw)
    brute = _brute_scores(raw)
    assert np.isnan(brute["human–human"]) and np.isnan(lb.scores[-1])
    for name, score in zip(lb.observers, lb.scores):
        if name.startswith("m"):
            assert score == brute[name] == 0.0  # κ with an always-right observer is 0
    assert len(caught) == 1 and issubclass(caught[0].category, tw.DegenerateDataWarning)
    assert "human–human (in every condition the observers of each of its pairs are always right (the ceiling)" \
        in str(caught[0].message)
    (note,) = [n for n in lb.notes if n.kind == "undefined-conditions"]
    assert note.values["never"] == {"human–human": "always right (the ceiling)"} and note.values["some"] == {}
    # and the models' scores, 0 by construction, are said to be (in the same one warning)
    (zero,) = [n for n in lb.notes if n.kind == "kappa-zero-by-rule"]
    assert zero.values["rows"] == {m: "its reference observers" for m in ("m1", "m2", "m3")}
    assert str(zero) in str(caught[0].message)


def test_humans_always_right_on_the_command_line_names_the_ceiling_not_min_items(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _always_right(_trials(), "h").to_csv(path, index=False)
    code = main(["leaderboard", str(path), "--resamples", "50", "--seed", "0", "-q", "--tests", "none"])
    err = capsys.readouterr().err
    assert code == 0 and "min_items" not in err
    assert err.count("always right (the ceiling)") == 1, err


def test_every_observer_always_right_is_an_error_naming_the_ceiling(tmp_path, capsys):
    raw = _always_right(_trials())
    with pytest.raises(tw.InvalidValueError, match=r"no candidate has a defined error-consistency in any condition "
                                                   r"— .* always right \(the ceiling\)"):
        _board(raw)
    # an accuracy leaderboard of the same trials is what the message suggests, and works
    with pytest.warns(tw.DegenerateDataWarning, match="accuracy interval"):  # at the ceiling: said, not an error
        acc = tw.leaderboard(tw.read_trials(raw[raw.subject.str.startswith("m")]), "accuracy", n_resamples=20, rng=0)
    assert (acc.scores[:-1] == 1.0).all()  # (the last row: the ground truth's own, empty)
    path = tmp_path / "t.csv"
    raw.to_csv(path, index=False)
    code = main(["leaderboard", str(path), "--resamples", "50", "--seed", "0", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("trialwise: error: `trials`: no candidate has a defined")


def test_a_model_always_right_where_the_humans_are_too_is_named_and_the_others_ranked():
    # m2 and the humans always right everywhere: m2's κ and the humans' are undefined (0/0), m1's and m3's 0
    raw = _trials()
    hit = raw.subject.isin(["h1", "h2", "h3", "m2"])
    raw = raw.assign(response=raw.response.where(~hit, raw.truth))
    lb, caught = _board(raw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the oracle's nanmean of m2's undefined values
        brute = _brute_scores(raw)
    assert len(caught) == 1 and issubclass(caught[0].category, tw.DegenerateDataWarning)
    (note,) = [n for n in lb.notes if n.kind == "undefined-conditions"]
    assert note.values["never"] == {"human–human": "always right (the ceiling)",
                                    "m2": "always right (the ceiling)"}
    for name, score in zip(lb.observers, lb.scores):
        assert score == brute[name] or (np.isnan(score) and np.isnan(brute[name])), name
    assert lb.table.set_index("observer").loc["m2", "rank"] is pd.NA


def test_the_command_line_lowers_min_items_as_its_error_says(tmp_path, capsys):
    """The error for too few shared images told a command-line user to call protocol.replace: now --min-items."""
    path = tmp_path / "t.csv"
    _trials(n=8).to_csv(path, index=False)
    argv = ["leaderboard", str(path), "--resamples", "50", "--seed", "0", "-q", "--tests", "none"]
    assert main(argv) == 2
    assert "trialwise leaderboard --min-items" in capsys.readouterr().err
    assert main(argv + ["--min-items", "5", "--csv", str(tmp_path / "lb.csv")]) == 0
    capsys.readouterr()
    want = tw.leaderboard(tw.read_trials(_trials(n=8)), PROTO.replace(min_items=5), n_resamples=50, rng=0)
    got = pd.read_csv(tmp_path / "lb.csv").set_index("observer")["score"]
    np.testing.assert_allclose(got.loc[list(want.observers)].to_numpy(), want.scores, rtol=1e-12)
