"""Accuracy leaderboards of per-item scores in [0, 1] (issue 18: partial credit, F1, lm-eval's ``f1``/``em``).

Oracles written here: the (hierarchical) mean score per model, a paired bootstrap of the
mean scores in numpy with the engine's multinomial draws, the infinitesimal-jackknife
standard error of a mean (items and clusters), an exact enumeration of the paired
sign-flip test; binary scores against the uint8 path; calibration on simulated boards with
a known true mean score (coverage, clustered and not; type-I error of the swap test).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import trialwise as tw
from trialwise.leaderboards.hierarchy import build_design
from trialwise.leaderboards.swap import swap_differences
from trialwise._stats.resampling import bootstrap_weights
from trialwise._stats.streams import child_rngs


def score_board(mu, n_items, rng, *, n_clusters=None, icc=0.0, tau=0.0, binary=False, partial=0.0):
    """Tidy trials of per-item scores Φ(μ_m + shared item effect + τ·model×cluster + 0.5·noise) (or their
    0/1 rounding), one condition per entry of ``n_items`` (two per experiment), with a ``cluster`` column."""
    rows = []
    for u, n in enumerate(n_items):
        g = n_clusters or n
        cl = np.repeat(np.arange(g), -(-n // g))[:n]
        shared = np.sqrt(icc) * rng.normal(size=g)[cl] + np.sqrt(1 - icc) * rng.normal(size=n)
        for m, mu_m in enumerate(mu):
            z = mu_m + shared + tau * rng.normal(size=g)[cl] + 0.5 * rng.normal(size=n)
            s = norm.cdf(z)
            keep = rng.random(n) >= partial
            rows.append(pd.DataFrame({
                "experiment": f"e{u // 2}", "condition": f"c{u % 2}", "subject": f"m{m}",
                "image": [f"c{u % 2}-q{i:04d}" for i in np.flatnonzero(keep)],
                "f1": (s > 0.5).astype(float)[keep] if binary else s[keep], "passage": cl[keep].astype(str)}))
    return tw.read_trials(pd.concat(rows, ignore_index=True), score="f1", clusters="passage")


def quiet_board(trials, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return tw.leaderboard(trials, protocol="accuracy", **kwargs)


def quiet_design(trials):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return build_design(trials, tw.leaderboards.ACCURACY)


def hierarchical_mean(frame: pd.DataFrame, column: str) -> pd.Series:
    per_cond = frame.groupby(["subject", "experiment", "condition"])[column].mean()
    return per_cond.groupby(["subject", "experiment"]).mean().groupby("subject").mean()


@pytest.mark.parametrize("clusters", [None, "cluster"])
def test_binary_scores_give_the_numbers_of_correctness(clusters):
    """A score column of 0/1 is correctness: the same design (uint8), replicates, intervals and tests."""
    trials = score_board([0.0, 0.1, 0.5], [60, 45, 80], np.random.default_rng(2), n_clusters=9, binary=True,
                         partial=0.05)
    plain = trials.drop(columns="score").assign(correct=trials["score"] == 1.0)
    a = quiet_board(trials, n_resamples=300, rng=4, clusters=clusters)
    b = quiet_board(plain, n_resamples=300, rng=4, clusters=clusters)
    assert all(u.right.dtype == np.uint8 for u in quiet_design(trials).units)
    assert a.table.equals(b.table)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(a.standard_errors, b.standard_errors)
    for test in ("swap", "combined", "studentized"):
        assert a.difference("m1", "m0", test=test).pvalue == b.difference("m1", "m0", test=test).pvalue
    assert a.pairwise(which="neighbours").equals(b.pairwise(which="neighbours"))
    assert not any("per-item score" in n for n in a.notes)


def test_score_is_the_hierarchical_mean_score():
    trials = score_board([-0.2, 0.0, 0.3, 0.35], [50, 70, 40], np.random.default_rng(3), partial=0.1)
    lb = quiet_board(trials, n_resamples=50, rng=0)
    expected = hierarchical_mean(trials, "score")
    got = lb.table.set_index("observer")["score"]
    np.testing.assert_allclose(got[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    (note,) = [n for n in lb.notes if "per-item score" in n]
    assert "sign-flip" in note and f"{int(((trials.score > 0) & (trials.score < 1)).sum())} trial(s)" in note
    assert quiet_design(trials).units[0].right.dtype == np.float64


def test_replicates_and_percentile_interval_are_a_numpy_paired_bootstrap():
    """One condition: replicate b's score of model m is w_b · s_m / n with the unit's multinomial
    weights (the leaderboard's stream: child 0 of the seed, then the unit's child), and the
    difference's percentile interval is that of the paired replicate differences."""
    trials = score_board([0.0, 0.15, 0.4], [70], np.random.default_rng(5))
    b, seed = 400, 11
    lb = quiet_board(trials, n_resamples=b, rng=seed, ci_method="percentile")
    wide = trials.pivot(index="image", columns="subject", values="score").sort_index()
    s = wide.to_numpy()
    w = np.concatenate(list(bootstrap_weights(len(s), b, rng=child_rngs(child_rngs(seed, 2)[0], 1)[0])))
    reps = w @ s / len(s)
    rows = [lb.observers.index(m) for m in wide.columns]
    np.testing.assert_allclose(lb.replicates[:, rows], reps, rtol=1e-6)
    diff = reps[:, 1] - reps[:, 0]
    res = lb.difference("m1", "m0")
    assert res.statistic == pytest.approx(s[:, 1].mean() - s[:, 0].mean(), abs=1e-12)
    lo, hi = res.confidence_interval
    q_lo, q_hi = np.quantile(diff, [0.025, 0.975])
    step = np.diff(np.sort(diff)).max()  # any percentile definition lies within one order statistic
    assert abs(lo - q_lo) <= step and abs(hi - q_hi) <= step


def test_standard_errors_are_the_jackknife_of_a_mean_over_items_and_over_clusters():
    trials = score_board([0.0, 0.3], [60], np.random.default_rng(6), n_clusters=12, icc=0.3, tau=0.3)
    wide = trials.pivot(index="image", columns="subject", values="score").sort_index()
    cl = trials.drop_duplicates("image").set_index("image")["cluster"].loc[wide.index].to_numpy()
    s, n = wide.to_numpy(), len(wide)
    items = quiet_board(trials, n_resamples=20, rng=0)
    clustered = quiet_board(trials, n_resamples=20, rng=0, clusters="cluster")
    rows = [items.observers.index(m) for m in wide.columns]
    np.testing.assert_allclose(items.standard_errors[rows], np.sqrt(((s - s.mean(0)) ** 2).sum(0)) / n, rtol=1e-9)
    dev = pd.DataFrame(s - s.mean(0)).groupby(cl).sum().to_numpy()
    np.testing.assert_allclose(clustered.standard_errors[rows], np.sqrt((dev**2).sum(0)) / n, rtol=1e-9)


@pytest.mark.parametrize("clusters", [None, "cluster"])
def test_swap_test_is_the_exact_paired_sign_flip_test(clusters):
    """Exact enumeration of the 2^k sign flips of the per-item (or per-cluster) score
    differences; the Monte-Carlo swap p-value agrees within 4 SE, and every swap draw is
    one of the enumerated values."""
    rng = np.random.default_rng(8)
    n = 12
    trials = score_board([0.8, 0.0], [n], rng, n_clusters=5 if clusters else None)
    wide = trials.pivot(index="image", columns="subject", values="score").sort_index()
    d = (wide["m0"] - wide["m1"]).to_numpy()
    if clusters:
        cl = trials.drop_duplicates("image").set_index("image")["cluster"].loc[wide.index].to_numpy()
        d = pd.Series(d).groupby(cl).sum().to_numpy()
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(d))))
    null = signs @ d / n
    observed = d.sum() / n
    exact = float(np.mean(np.abs(null) >= abs(observed) * (1 - 1e-9)))
    assert 0.01 < exact < 0.6
    m = 40_000
    lb = quiet_board(trials, n_resamples=20, rng=1, clusters=clusters)
    with warnings.catch_warnings():  # 5 clusters, B = 20: the interval may be bc, with a warning (not tested here)
        warnings.simplefilter("ignore", tw.DegenerateDataWarning)
        res = lb.difference("m0", "m1", test="swap", n_resamples=m)
    assert res.statistic == pytest.approx(observed, abs=1e-12)
    assert abs(res.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / m) + 1 / m
    support = np.sort(null)
    at = np.clip(np.searchsorted(support, res.null_distribution), 1, len(support) - 1)
    gap = np.minimum(np.abs(support[at] - res.null_distribution), np.abs(support[at - 1] - res.null_distribution))
    assert gap.max() < 1e-12


def test_swap_differences_of_scores_are_exact_in_float64():
    """The swap draws of per-item scores are sums of ±differences: no float32 rounding."""
    trials = score_board([0.0, 0.1], [200], np.random.default_rng(9))
    design = quiet_design(trials)
    observed, null = swap_differences(design, 0, 1, 500, rng=3)
    wide = trials.pivot(index="image", columns="subject", values="score").sort_index()
    d = (wide["m0"] - wide["m1"]).to_numpy()
    assert observed == pytest.approx(d.mean(), abs=1e-15)
    # every draw is Σ ±d_i / n: the sum of |draw − mean| over flips equals a subset sum, here the variance check
    assert null.dtype == np.float64 and np.all(np.abs(null) <= np.abs(d).sum() / len(d) + 1e-15)
    assert np.std(null) == pytest.approx(np.sqrt((d**2).sum()) / len(d), rel=0.1)


def test_error_consistency_refuses_scores_that_are_not_binary():
    trials = score_board([0.0, 0.2], [30], np.random.default_rng(10)).assign(observer_type="model")
    trials.loc[trials.subject == "m0", "observer_type"] = "human"
    ec = tw.leaderboards.Protocol(name="ec", min_items=5)
    with pytest.raises(tw.InvalidValueError, match=r"'error-consistency' needs 0/1 .*column 'score'.*e\.g\. 0\.\d+"):
        tw.leaderboard(trials, protocol=ec, n_resamples=10)
    binary = trials.assign(score=(trials.score > 0.5).astype(float))
    # 0/1 scores that disagree with `correct`: error consistency would silently use other data
    with pytest.raises(tw.InvalidValueError, match=r"uses `correct`, but column 'score' .*disagrees with it on \d+ trial"):
        tw.leaderboard(binary, protocol=ec, n_resamples=10)
    agree = binary.assign(correct=binary.score == 1.0)
    with pytest.warns(tw.TrialwiseWarning, match="only one reference observer"):
        lb = tw.leaderboard(agree, protocol=ec, n_resamples=10, rng=0)
    with pytest.warns(tw.TrialwiseWarning, match="only one reference observer"):
        plain = tw.leaderboard(agree.drop(columns="score"), protocol=ec, n_resamples=10, rng=0)
    assert lb.candidates == ("m1",)
    pd.testing.assert_frame_equal(lb.table, plain.table)


def test_scores_read_from_a_table_are_checked():
    good = pd.DataFrame({"subject": ["a", "a", "b", "b"], "image": ["1", "2", "1", "2"], "f1": [0.5, 1, 0.25, 0]})
    t = tw.read_trials(good, score="f1")
    assert t.score.tolist() == [0.5, 1.0, 0.25, 0.0] and t.correct.tolist() == [False, True, False, False]
    read = quiet_board(t, n_resamples=20, rng=0)
    assert read.table.set_index("observer").score.to_dict() == {"a": 0.75, "b": 0.125}
    # a column that merely is called `score` (a confidence, a rating) is not taken for partial credit
    raw = good.rename(columns={"f1": "score"}).assign(truth="x", response=["y", "x", "y", "y"])
    with warnings.catch_warnings():  # b is right on 0 of 2 items: its exact interval is noted (not tested here)
        warnings.filterwarnings("ignore", "1 accuracy interval", tw.DegenerateDataWarning)
        with pytest.warns(tw.TrialwiseWarning, match="column 'score' is not used as per-item scores"):
            board = tw.leaderboard(raw, protocol="accuracy", n_resamples=20, rng=0)
    assert board.table.set_index("observer").score.to_dict() == {"a": 0.5, "b": 0.0}
    with pytest.raises(tw.InvalidValueError, match=r"column 'f1' must hold scores in \[0, 1\]; row 2 has 1\.2"):
        tw.read_trials(good.assign(f1=[0.5, 1.2, 0, 0]), score="f1")
    with pytest.raises(tw.InvalidValueError, match=r"column 'f1' must hold a score .* row 3 has nan"):
        tw.read_trials(good.assign(f1=[0.5, 1, np.nan, 0]), score="f1")
    with pytest.raises(tw.InvalidValueError, match="no column 'g1'"):
        tw.read_trials(good, score="g1")
    with pytest.raises(tw.InvalidValueError, match=r"column 'score' must hold scores in \[0, 1\]; row 1 has -0\.5"):
        tw.leaderboard(t.assign(score=[-0.5, 1, 0.25, 0]), protocol="accuracy", n_resamples=10)


# --------------------------------------------------------------------------- lm-eval logs

DATE = "2026-01-02T03-04-05.678901"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def generation_record(doc_id, doc, answer, prediction, f1):
    """A generate_until record as lm-evaluation-harness 0.4 logs it (DROP-style: ``em`` and ``f1`` per document)."""
    context = f"Passage: {doc['passage']}\nQuestion: {doc['question']}\nAnswer:"
    return {"doc_id": doc_id, "doc": doc, "target": str([answer]),
            "arguments": {"gen_args_0": {"arg_0": context, "arg_1": str({"until": ["."]})}},
            "resps": [[prediction]], "filtered_resps": [prediction], "filter": "none", "metrics": ["em", "f1"],
            "doc_hash": _sha(json.dumps(doc, indent=2, ensure_ascii=False)), "prompt_hash": _sha(context),
            "target_hash": _sha(str([answer])), "em": float(f1 == 1.0), "f1": f1}


def write_generation_logs(root, scores, *, field="f1"):
    for model, values in scores.items():
        out = root / model
        out.mkdir(parents=True)
        (out / f"results_{DATE}.json").write_text(json.dumps({"model_name": model, "group_subtasks": {"drop": []}}))
        with open(out / f"samples_drop_{DATE}.jsonl", "w", encoding="utf-8") as fh:
            for i, v in enumerate(values):
                doc = {"passage": f"p{i // 3}", "question": f"how many {i}?"}
                row = generation_record(i, doc, "12", "12" if v == 1 else "1", v)
                if field != "f1":
                    row[field] = row.pop("f1")
                fh.write(json.dumps(row) + "\n")


def test_read_lm_eval_takes_a_per_document_metric_of_a_generation_task(tmp_path):
    scores = {"alpha": [1.0, 0.5, 0.0, 0.4, 1.0, 0.25], "beta": [1.0, 0.0, 0.0, 0.2, 0.5, 0.0]}
    write_generation_logs(tmp_path, scores)
    with pytest.raises(tw.InvalidValueError, match="generation tasks.*pass `score=`"):
        tw.io.read_lm_eval(tmp_path)
    t = tw.io.read_lm_eval(tmp_path, score="f1", clusters="passage")
    assert t.attrs["log"]["score"] == "f1" and t.attrs["log"]["skipped"] == {}
    got = t.groupby("subject").score.mean().to_dict()
    assert got == pytest.approx({k: np.mean(v) for k, v in scores.items()})
    assert (t.n_options == 0).all() and t.probabilities.isna().all()
    assert t.correct.tolist() == (t.score == 1.0).tolist()
    with pytest.warns(tw.DegenerateDataWarning, match="only two clusters"):  # 6 documents in 2 passages
        lb = tw.leaderboard(t, protocol="accuracy", n_resamples=100, rng=0, clusters="cluster")
    assert lb.table.set_index("observer").score.to_dict() == pytest.approx(got)
    em = tw.io.read_lm_eval(tmp_path, score="em")
    assert em.score.tolist() == em.correct.astype(float).tolist()


def test_read_lm_eval_score_errors_name_the_file_line_and_value(tmp_path):
    write_generation_logs(tmp_path / "pct", {"a": [100.0, 50.0], "b": [0.0, 100.0]})
    with pytest.raises(tw.InvalidValueError,
                       match=r"samples_drop_.*jsonl:\d+: field 'f1' .* got 100\.0 \(a percentage"):
        tw.io.read_lm_eval(tmp_path / "pct", score="f1")
    write_generation_logs(tmp_path / "pair", {"a": [1.0], "b": [0.0]}, field="bleu")
    with pytest.raises(tw.InvalidValueError, match=r"`score`='f1' is not a field"):
        tw.io.read_lm_eval(tmp_path / "pair", score="f1")
    path = next((tmp_path / "pair" / "a").glob("samples_*.jsonl"))
    row = json.loads(path.read_text())
    row["bleu"] = ["12", "1"]  # a corpus metric logs (reference, prediction)
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(tw.InvalidValueError, match=r"jsonl:1: field 'bleu' .* got \['12', '1'\]"):
        tw.io.read_lm_eval(tmp_path / "pair", score="bleu")
    with pytest.raises(tw.InvalidTypeError, match="`score` must be a str"):
        tw.io.read_lm_eval(tmp_path / "pair", score=1)


def test_read_lm_eval_score_on_multiple_choice_is_the_logged_value():
    from importlib import resources

    with resources.as_file(resources.files("trialwise.datasets") / "llm-demo") as folder:
        t = tw.io.read_lm_eval(folder, score="acc")
    assert t.score.tolist() == t.correct.astype(float).tolist()
    assert t.columns.tolist()[-1] == "score"


def test_command_line_scores_and_clusters(tmp_path, capsys):
    from trialwise.cli import main

    trials = score_board([0.0, 0.05, 0.6], [90], np.random.default_rng(12), n_clusters=15)
    path = tmp_path / "scores.csv"
    trials.drop(columns=["truth", "response", "correct"]).rename(
        columns={"score": "partial", "cluster": "passage"}).to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--protocol", "accuracy", "--score", "partial", "--clusters", "passage",
                 "--resamples", "200", "--seed", "0", "--csv", str(tmp_path / "t.csv")]) == 0
    out = capsys.readouterr().out
    assert "paired sign-flip" in out
    table = pd.read_csv(tmp_path / "t.csv").set_index("observer")
    expected = quiet_board(trials, n_resamples=200, rng=0, clusters="cluster").table.set_index("observer")
    np.testing.assert_allclose(table.loc[expected.index, "score"], expected.score, rtol=1e-12)
    np.testing.assert_allclose(table.loc[expected.index, "ci_low"], expected.ci_low, rtol=1e-9)
    assert main(["leaderboard", "--score", "partial"]) == 2
    assert "--score partial: names a column" in capsys.readouterr().err


# --------------------------------------------------------------------------- calibration (CI-light)


def test_score_intervals_cover_and_cluster_resampling_is_needed():
    """R = 60 boards of 3 models × 300 questions (20 passages × 15, latent ICC 0.3, model ×
    passage interaction 0.3): the cluster bootstrap's studentized intervals cover the true mean
    score Φ(μ/√(2 + τ² + 0.25)); resampling single questions under-covers. Independent
    questions: item intervals cover. The full study: benchmarks/calibration/score_leaderboard_calibration.py."""
    mu = np.array([-0.3, 0.0, 0.4])
    rng = np.random.default_rng(20261124)
    hits = {"independent": [], "items": [], "clusters": []}
    for rep in range(60):
        free = score_board(mu, [300], rng)
        lb = quiet_board(free, n_resamples=200, rng=rep)
        t = lb.table.set_index("observer").loc[["m0", "m1", "m2"]]
        truth = norm.cdf(mu / np.sqrt(2.25))
        hits["independent"].extend((t.ci_low <= truth) & (truth <= t.ci_high))
        clustered = score_board(mu, [300], rng, n_clusters=20, icc=0.3, tau=0.3)
        truth = norm.cdf(mu / np.sqrt(2.25 + 0.09))
        for kind, cl in (("items", None), ("clusters", "cluster")):
            t = quiet_board(clustered, n_resamples=200, rng=rep, clusters=cl).table.set_index("observer")
            t = t.loc[["m0", "m1", "m2"]]
            hits[kind].extend((t.ci_low <= truth) & (truth <= t.ci_high))
    cover = {k: float(np.mean(v)) for k, v in hits.items()}
    assert cover["independent"] > 0.89 and cover["clusters"] > 0.87, cover
    assert cover["items"] < cover["clusters"] - 0.1, cover


def test_swap_test_holds_its_level_for_two_models_of_equal_mean_score():
    """R = 100 pairs of models with the same μ (their passage effects differ): the rate of swap
    p-values ≤ 0.05 (the engine of ``lb.difference(test="swap")``, M = 100) stays within
    0.05 + 3 MC SE when passages are swapped whole; swapping single questions of clustered
    data rejects far more often (so the check can fail)."""
    from trialwise.leaderboards.swap import swap_pvalue

    rng = np.random.default_rng(7)
    r = 100
    reject = {"independent": 0, "clusters": 0, "items": 0}

    def rejected(trials, clusters):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tw.TrialwiseWarning)
            design = build_design(trials, tw.leaderboards.ACCURACY, clusters=clusters)
        return swap_pvalue(*swap_differences(design, 0, 1, 100, rng=rng)) <= 0.05

    for _ in range(r):
        reject["independent"] += rejected(score_board([0.2, 0.2], [200], rng), None)
        clustered = score_board([0.2, 0.2], [200], rng, n_clusters=20, icc=0.3, tau=0.3)
        reject["clusters"] += rejected(clustered, clustered["cluster"].to_numpy())
        reject["items"] += rejected(clustered, None)
    rate = {k: v / r for k, v in reject.items()}
    bound = 0.05 + 3 * np.sqrt(0.05 * 0.95 / r)
    assert rate["independent"] < bound and rate["clusters"] < bound, rate
    assert rate["independent"] > 0.0 and rate["clusters"] > 0.0, rate  # not a test that never rejects
    assert rate["items"] > 2 * bound, rate
