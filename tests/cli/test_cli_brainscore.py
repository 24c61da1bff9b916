"""``trialwise brainscore``: Brain-Score behavioural scores with raw, ceiling and score intervals and rank sets.

The command computes nothing itself, so its oracle is the library called directly with the
same seed (:class:`trialwise.brainscore.BehavioralBenchmark`), and for the rank columns the rank
functions of :mod:`trialwise.leaderboards.ranks` applied to the raw replicates one by one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.leaderboards import ranks
from trialwise.cli import main

CUE = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def trials():
    return tw.read_trials(tw.datasets.model_vs_human("cue-conflict"))


def test_table_is_the_librarys(tmp_path, capsys, trials):
    csv = tmp_path / "t.csv"
    code, out, _ = run(["brainscore", "--experiments", "cue-conflict", "--resamples", 300, "--seed", 3, "--csv", csv, "-q",
                        "--pooled"], capsys)
    assert code == 0
    got = pd.read_csv(csv).rename(columns={"score": "statistic"})
    bench = tw.brainscore.BehavioralBenchmark(trials[trials.observer_type == "human"], CUE, n_resamples=300, rng=3)
    want = bench.score_table(trials[trials.observer_type != "human"])
    want = want.sort_values(["rank", "observer"], kind="stable").reset_index(drop=True)
    for col in ("statistic", "ci_low", "ci_high", "raw", "raw_low", "raw_high", "ceiling", "ceiling_low", "p_best"):
        np.testing.assert_allclose(got[col], want[col].astype(float), rtol=1e-12, err_msg=col)
    for col in ("observer", "group"):
        assert got[col].tolist() == want[col].tolist()
    assert got["rank"].tolist() == list(range(1, len(got) + 1))  # sorted best first, no ties on this data
    assert f"ceiling {bench.ceiling.statistic:.3f}" in out
    assert got["observer"].iloc[0] in out.splitlines()[4]  # the best candidate heads the printed table


def test_rank_columns_are_the_rank_functions_of_the_raw_replicates(trials):
    bench = tw.brainscore.BehavioralBenchmark(trials[trials.observer_type == "human"], CUE, n_resamples=200, rng=1)
    cands = ["resnet50", "convnext-base", "clip-16", "resnet50-trained-on-SIN", "cornet-s"]
    results = [bench(trials[trials.subject == c]) for c in cands]
    table = bench.score_table(trials[trials.subject.isin(cands)]).set_index("observer").loc[sorted(cands)]
    raw = np.array([r.raw for r in sorted(results, key=lambda r: r.observer)])
    reps = np.column_stack([r.raw_distribution for r in sorted(results, key=lambda r: r.observer)])
    lo, hi = ranks.rank_sets(raw, reps)
    s_lo, s_hi = ranks.rank_sets(raw, reps, simultaneous=True)
    np.testing.assert_array_equal(table["rank"], ranks.rank_scores(raw))
    np.testing.assert_array_equal(table["rank_low"], lo)
    np.testing.assert_array_equal(table["rank_high"], hi)
    np.testing.assert_array_equal(table["rank_set_low"], s_lo)
    np.testing.assert_array_equal(table["rank_set_high"], s_hi)
    np.testing.assert_array_equal(table["in_best_set"], ranks.best_set(raw, reps))
    # one candidate at a time scores what the joint table scores: the replicates are shared
    np.testing.assert_allclose(table["raw"], raw, rtol=1e-12)


def test_incomplete_candidates_are_scored_in_the_benchmarks_they_have_and_named_once(capsys):
    """As on Brain-Score: five models lack edge, so they are scored in cue-conflict, their edge score is missing
    (—) and counts as 0 in the average; the five are named in one paragraph, and the library's warning saying the
    same is not repeated. With --pooled (one score over all images) they are not scored."""
    code, out, err = run(["brainscore", "--experiments", "cue-conflict", "edge", "--resamples", 50, "--seed", 0,
                          "-q"], capsys)
    assert code == 0
    five = "clip_kb, resnet50-dino, resnet50-insup, resnet50-moco and vitb-moco lack all 160 images of edge"
    partial = [ln for ln in out.splitlines() if ln.startswith("in 1 of the 2 benchmarks only:")]
    assert len(partial) == 1 and partial[0].startswith(f"in 1 of the 2 benchmarks only: {five}")
    assert "counts as 0 in the average, as Brain-Score averages" in partial[0]
    assert "--experiments cue-conflict" in partial[0] and "not scored:" not in out
    assert "not scored in some of the 2 benchmarks" not in err  # said once, on stdout
    lines = out.splitlines()
    matrix = lines[next(i for i, ln in enumerate(lines) if ln.startswith("ceiling ")):]
    clip_kb = next(ln for ln in matrix if ln.startswith("clip_kb "))
    assert clip_kb.split()[2] == "—"
    # its cue-conflict score is that of the benchmark of cue-conflict alone, its average that over 2
    trials = tw.read_trials(tw.datasets.model_vs_human())
    alone = tw.brainscore.BehavioralBenchmark(trials[trials.observer_type == "human"], CUE, n_resamples=50, rng=0)
    one = alone.score_benchmarks(trials[trials.subject == "clip_kb"]).scores.loc["clip_kb", "cue-conflict"]
    assert clip_kb.split()[1] == f"{one:.2f}"
    avg = next(ln for ln in lines if ln.startswith("clip_kb ") and "[" in ln)
    assert avg.split()[1] == f"{one / 2:.3f}"
    # --pooled: one score over both experiments' images, so they are not scored, named once
    code, out, _ = run(["brainscore", "--experiments", "cue-conflict", "edge", "--pooled", "--resamples", 50,
                        "--seed", 0, "-q"], capsys)
    assert code == 0
    lacking = [ln for ln in out.splitlines() if ln.startswith("not scored:")]
    assert len(lacking) == 1 and out.count("A candidate is scored on all of a benchmark's images") == 1
    assert lacking[0].startswith(f"not scored: {five}")
    assert "score them without those experiments: --experiments cue-conflict;" in lacking[0]
    assert "compare them on the images they have with `trialwise leaderboard`" in lacking[0]
    scored = [ln.split()[0] for ln in out.splitlines()[4:] if ln and not ln.startswith(("score", "not"))]
    assert "clip_kb" not in scored and "resnet50" in scored
    # the advice works: without edge, clip_kb is scored
    code, out, _ = run(["brainscore", "--experiments", "cue-conflict", "--candidate", "clip_kb", "--resamples", 50,
                        "--seed", 0, "-q"], capsys)
    assert code == 0 and any(ln.startswith("clip_kb ") for ln in out.splitlines())


def test_a_candidate_missing_one_image_is_told_how_many_and_what_can_score_it(tmp_path, capsys):
    """HR5 F7: resnet50 without 1 of the 800 sketch images was told to "restrict with --experiments", which
    printed the same line again; now the line counts the images, names one, and gives advice that works."""
    sketch = tw.read_trials(tw.datasets.model_vs_human("sketch"))
    gone = sketch[sketch.subject == "resnet50"].image.iloc[0]
    path = tmp_path / "sketch.csv"
    sketch[~((sketch.subject == "resnet50") & (sketch.image == gone))].to_csv(path, index=False)
    code, out, _ = run(["brainscore", path, "--experiments", "sketch", "--resamples", 50, "--seed", 0, "-q"], capsys)
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("not scored: resnet50 lacks"))
    assert f"lacks 1 of the 800 images of sketch (e.g. '{gone}' of sketch)" in line
    assert "no option to leave some out" in line and "--experiments" not in line  # nothing else to restrict to
    assert "`trialwise leaderboard`" in line
    code, _, err = run(["brainscore", path, "--candidate", "resnet50", "--resamples", 50, "--seed", 0, "-q"], capsys)
    assert code == 2 and "lacks 1 of the 800 images of sketch" in err  # --candidate alone: the same words, an error
    # the leaderboard it points to scores resnet50 on the 799 images it has
    code, out, _ = run(["leaderboard", path, "--resamples", 50, "--seed", 0, "--csv", tmp_path / "lb.csv"], capsys)
    board = pd.read_csv(tmp_path / "lb.csv").set_index("observer")
    assert code == 0 and board.loc["resnet50", "status"] == "scored"


def test_brainscore_compatible_takes_abs_of_an_anti_consistent_candidate(tmp_path, capsys, trials):
    # a candidate right exactly where resnet50 is wrong and vice versa: kappa < 0 with the humans
    anti = trials[trials.subject == "resnet50"].copy()
    wrong = anti["response"] != anti["truth"]
    other = anti["truth"].map(lambda t: "knife" if t != "knife" else "boat")
    anti["response"] = np.where(wrong, anti["truth"], other)
    anti["subject"] = "anti-resnet50"
    path = tmp_path / "trials.csv"
    pd.concat([trials, anti]).to_csv(path, index=False)
    tables = {}
    for flag in ([], ["--brainscore-compatible"]):
        csv = tmp_path / f"t{len(flag)}.csv"
        code, _, _ = run(["brainscore", path, "--resamples", 100, "--seed", 0, "--candidate", "anti-resnet50",
                          "resnet50", "--csv", csv, "-q", *flag], capsys)
        assert code == 0
        table = pd.read_csv(csv)
        tables[len(flag)] = table[table.benchmark == "cue-conflict"].set_index("observer")
    signed, compat = tables[0], tables[1]
    assert signed.loc["anti-resnet50", "raw"] < 0 and signed.loc["anti-resnet50", "score"] == 0
    assert compat.loc["anti-resnet50", "raw"] == pytest.approx(-signed.loc["anti-resnet50", "raw"], rel=1e-12)
    assert compat.loc["anti-resnet50", "score"] > 0


def test_report_is_written(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, err = run(["brainscore", "--experiments", "cue-conflict", "--resamples", 100, "--seed", 0,
                        "--metric", "accuracy-distance", "--out", out, "-q"], capsys)
    assert code == 0 and f"report written to {out}" in err
    page = out.read_text()
    assert page.count("<img") == 1 and "could not be drawn" not in page
    assert "trialwise brainscore — accuracy-distance" in page and "efficientnet-l2-noisy-student-475" in page


def test_per_benchmark_output_csv_and_report_are_the_librarys(tmp_path, capsys):
    """The default: one benchmark per experiment and their average (score_benchmarks), printed compactly, the full
    table in the CSV with the leaderboard's column names, and the report."""
    csv, html = tmp_path / "b.csv", tmp_path / "b.html"
    exps = ["cue-conflict", "edge", "sketch"]
    code, out, err = run(["brainscore", "--experiments", *exps, "--resamples", 200, "--seed", 4, "--csv", csv,
                          "--out", html, "-q"], capsys)
    assert code == 0 and f"report written to {html}" in err
    got = pd.read_csv(csv)
    trials = tw.read_trials(tw.datasets.model_vs_human())
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=exps)
    bench = tw.brainscore.BehavioralBenchmark(trials[trials.observer_type == "human"], proto, n_resamples=200, rng=4)
    with pytest.warns(tw.TrialwiseWarning, match="not scored in some"):  # five lack edge and sketch: scored in one
        want = bench.score_benchmarks(trials[trials.observer_type != "human"])
    assert list(got.columns) == [*want.table.columns, "seed"] and "statistic" not in got.columns
    lb = tw.leaderboard(trials[trials.experiment == "edge"], n_resamples=20, rng=0).table
    assert {"observer", "score", "ci_low", "ci_high", "rank_set_low", "in_best_set"} <= set(lb.columns) & set(got)
    assert got.benchmark.tolist() == want.table.benchmark.tolist() and got.observer.tolist() == want.table.observer.tolist()
    for col in ("score", "ci_low", "ci_high", "raw", "raw_low", "ceiling", "ceiling_high", "p_best"):
        np.testing.assert_allclose(got[col], want.table[col].astype(float), rtol=1e-12, err_msg=col)
    lines = out.splitlines()
    best = want.average.iloc[0]
    row = next(ln for ln in lines if ln.startswith(f"{best.observer} ") and f"{best.score:.3f}" in ln)
    assert f"[{best.ci_low:.3f}, {best.ci_high:.3f}]" in row
    assert "average over the 3 benchmarks" in out and "benchmarks: 1 cue-conflict, 2 edge, 3 sketch" in out
    ceil_line = next(ln for ln in lines if ln.startswith("ceiling "))
    assert ceil_line.split()[1:] == [f"{c.statistic:.2f}" for c in want.ceilings]
    matrix = next(ln for ln in lines[lines.index(ceil_line):] if ln.startswith(f"{best.observer} "))
    assert matrix.split()[1:] == [f"{x:.2f}" for x in want.scores.loc[best.observer]]
    page = html.read_text()
    assert page.count("<img") == 1 and "could not be drawn" not in page
    assert all(f"<h3>{e}</h3>" in page for e in exps) and "Average over the benchmarks" in page
    # the five with cue-conflict only: a dash where not scored, and why, once
    assert page.count("not scored in that benchmark") == 1 and "'>—</td>" in page


def test_pooled_only_with_the_trial_level_metrics(capsys):
    code, _, err = run(["brainscore", "--metric", "i2n", "--pooled", "--resamples", 20, "-q"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--pooled applies to error-consistency, accuracy-distance and accuracy" in err and "got --metric i2n" in err


def test_ones_own_csv_is_scored_with_the_default_settings(tmp_path, capsys):
    """Trials of one's own experiments, own column names, shuffled rows: without --protocol every experiment of
    the file is a benchmark (the protocol built from the trials, titled by the file's name), scored as the library
    scores them with that protocol. Before, the default protocol model-vs-human stopped with 'none of the
    experiments of protocol model-vs-human is in the trials'."""
    trials = tw.read_trials(tw.datasets.model_vs_human("cue-conflict"))
    trials = trials[trials.subject.isin(["subject-01", "subject-02", "subject-03", "subject-04", "resnet50",
                                         "clip-16"])].copy()
    # two experiments of one's own, each image in one
    trials["experiment"] = np.where(trials.image.rank(method="dense").astype(int) % 2 == 0, "blurry", "tiny")
    mine = trials.rename(columns={"subject": "Who", "image": "Pic", "truth": "Truth", "response": "Said",
                                  "condition": "Level", "experiment": "Set", "observer_type": "Kind"})
    path, csv = tmp_path / "my trials (v2).csv", tmp_path / "out.csv"
    mine.sample(frac=1, random_state=0)[["Said", "Truth", "Pic", "Who", "Kind", "Level", "Set"]].to_csv(path, index=False)
    code, out, err = run(["brainscore", path, "--subject-column", "Who", "--image-column", "Pic", "--truth-column",
                          "Truth", "--response-column", "Said", "--condition-column", "Level", "--experiment-column",
                          "Set", "--observer-type-column", "Kind", "--resamples", 200, "--seed", 4, "--csv", csv,
                          "-q"], capsys)
    assert code == 0, err
    assert "protocol my trials (v2).csv" in out and "1 blurry, 2 tiny" in out
    got = pd.read_csv(csv)
    from trialwise.leaderboards.protocol import protocol_for_trials

    protocol = protocol_for_trials(None, ["blurry", "tiny"], name="my trials (v2).csv")
    humans = trials[trials.observer_type == "human"]
    bench = tw.brainscore.BehavioralBenchmark(humans, protocol, n_resamples=200, rng=4)
    want = bench.score_benchmarks(trials[trials.observer_type != "human"]).table
    assert sorted(set(got.benchmark)) == ["average", "blurry", "tiny"]
    np.testing.assert_allclose(got.sort_values(["benchmark", "observer"])["score"],
                               want.sort_values(["benchmark", "observer"])["score"], rtol=0, atol=1e-12)
