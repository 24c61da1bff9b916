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
    code, out, _ = run(["brainscore", "--experiments", "cue-conflict", "--resamples", 300, "--seed", 3, "--csv", csv, "-q"],
                       capsys)
    assert code == 0
    got = pd.read_csv(csv)
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


def test_incomplete_candidates_are_named_and_not_scored(capsys):
    code, out, _ = run(["brainscore", "--experiments", "cue-conflict", "edge", "--resamples", 50, "--seed", 0, "-q"],
                       capsys)
    assert code == 0
    lacking = [ln for ln in out.splitlines() if ln.startswith("not scored:")]
    assert len(lacking) == 5 and all("lacks all 160 images of edge" in ln for ln in lacking)
    assert all("score it without them: --experiments cue-conflict;" in ln for ln in lacking)
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
    line = next(ln for ln in out.splitlines() if ln.startswith("not scored: resnet50"))
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
        tables[len(flag)] = pd.read_csv(csv).set_index("observer")
    signed, compat = tables[0], tables[1]
    assert signed.loc["anti-resnet50", "raw"] < 0 and signed.loc["anti-resnet50", "statistic"] == 0
    assert compat.loc["anti-resnet50", "raw"] == pytest.approx(-signed.loc["anti-resnet50", "raw"], rel=1e-12)
    assert compat.loc["anti-resnet50", "statistic"] > 0


def test_report_is_written(tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, err = run(["brainscore", "--experiments", "cue-conflict", "--resamples", 100, "--seed", 0,
                        "--metric", "accuracy-distance", "--out", out, "-q"], capsys)
    assert code == 0 and f"report written to {out}" in err
    page = out.read_text()
    assert page.count("<img") == 1 and "could not be drawn" not in page
    assert "trialwise brainscore — accuracy-distance" in page and "efficientnet-l2-noisy-student-475" in page
