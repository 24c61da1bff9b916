"""``trialwise paired A B``: two runs' logs → the paired comparison (tw.comparison.paired_runs).

The command computes nothing itself, so its oracle is the library called on the same logs read
by the library's readers; the logs are the bundled demo set (lm-evaluation-harness format) and
copies of its folders made here. Bad input: one line naming the file or option, exit status 2.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

import trialwise as tw
from trialwise.cli import main

DEMO = Path(str(resources.files("trialwise.datasets").joinpath("llm-demo")))
CHAT, BASE, BIG = DEMO / "sim__demo-7b-chat", DEMO / "sim__demo-7b", DEMO / "sim__demo-13b"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _library(a, b, **kwargs):
    clusters = kwargs.pop("clusters", None)
    ta = tw.io.read_lm_eval([str(a)], clusters=clusters)
    tb = tw.io.read_lm_eval([str(b)], clusters=clusters)
    trials = pd.concat([ta, tb], ignore_index=True)
    return tw.comparison.paired_runs(trials, ta.subject.iloc[0], tb.subject.iloc[0],
                                     clusters="cluster" if clusters else None, **kwargs)


def test_json_is_the_librarys_result_on_the_same_logs(capsys):
    code, out, err = run(["paired", CHAT, BIG, "--seed", "3", "--resamples", "300", "--json"], capsys)
    assert code == 0 and err == ""
    got = json.loads(out)
    ref = json.loads(json.dumps(_library(CHAT, BIG, n_resamples=300, rng=3).to_dict()))
    assert {k: got[k] for k in ref} == ref
    assert got["logs"] == {"a": str(CHAT), "b": str(BIG)} and got["seed"] == 3 and got["warnings"] == []


def test_one_screen_with_every_number_of_the_result(capsys):
    code, out, err = run(["paired", CHAT, BASE, "--clusters", "subject", "--seed", "1", "--resamples", "300"], capsys)
    assert code == 0
    res = _library(CHAT, BASE, clusters="subject", n_resamples=300, rng=1)
    lines = out.splitlines()
    assert len(lines) <= 24 and lines[0] == "Paired comparison of two runs on 400 questions in 16 clusters (--clusters subject)"
    assert re.search(r"A  sim/demo-7b-chat\s+accuracy 0\.640", out) and re.search(r"B  sim/demo-7b\s+accuracy 0\.635", out)
    ci = res.confidence_interval
    assert (f"difference A - B    +0.005   95% CI [{ci.low:+.3f}, {ci.high:+.3f}]   p = {res.pvalue:.3g} "
            f"(cluster-robust (CR2) t, df {res.df:.1f})") in out
    assert "only A right 37, only B right 35: p = 0.906 exact, 0.815 mid-p" in out
    assert f"min. detectable     {res.mdd:.3f}" in out
    ec, capa = res.error_consistency, res.capa
    assert (f"error consistency   {ec.statistic:.3f}   95% CI [{ec.confidence_interval.low:.3f}, "
            f"{ec.confidence_interval.high:.3f}]") in out
    assert f"CAPA                {capa.statistic:.3f}   95% CI [{capa.confidence_interval.low:.3f}, " in out


def test_two_runs_of_one_model_are_told_apart_and_identical_runs_warn_once(tmp_path, capsys):
    copy = tmp_path / "again"
    shutil.copytree(BASE, copy)
    code, out, err = run(["paired", BASE, copy, "--seed", "0", "--resamples", "200"], capsys)
    assert code == 0
    assert "A  sim/demo-7b (A)" in out and "B  sim/demo-7b (B)" in out
    assert "difference A - B    +0.000   95% CI [+0.000, +0.000]   p = 1" in out
    assert len(re.findall(r"warning", err)) == 1 and "identical correctness" in err


def test_questions_only_one_run_answered_are_an_error_or_dropped(tmp_path, capsys):
    stem_only = tmp_path / "stem-only"
    stem_only.mkdir()
    for f in BASE.iterdir():
        if "humanities" not in f.name:
            shutil.copy(f, stem_only / f.name)
    code, out, err = run(["paired", CHAT, stem_only, "--seed", "0", "--resamples", "200"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert re.search(r"200 questions both answered; 'sim/demo-7b-chat' answered 200 that 'sim/demo-7b' did not, "
                     r".*give --unaligned drop", err)
    code, out, err = run(["paired", CHAT, stem_only, "--unaligned", "drop", "--seed", "0", "--resamples", "200"],
                         capsys)
    assert code == 0 and "on 200 questions" in out and "note: left out: 200 questions both answered" in out


@pytest.mark.parametrize("args, message", [
    (["paired", DEMO, BASE], r"^trialwise: error: A .*llm-demo holds the logs of 4 models \(.*\); give the logs of "
                             r"one model as A$"),
    (["paired", BASE, BASE], r"^trialwise: error: A and B are the same logs \(.*\); give the logs of two runs$"),
    (["paired", BASE, "no/such/folder"], r"^trialwise: error: .*no/such/folder"),
    (["paired", BASE, CHAT, "--power", "1.5"], r"^trialwise: error: --power must be between 0 and 1; got 1.5$"),
    (["paired", BASE, CHAT, "--alpha", "0"], r"^trialwise: error: --alpha must be between 0 and 1; got 0$"),
    (["paired", BASE, CHAT, "--resamples", "0"], r"^trialwise: error: --resamples must be at least 1; got 0$"),
    (["paired", BASE, CHAT, "--clusters", "no_such_field"], r"^trialwise: error: .*no_such_field"),
])
def test_bad_input_is_one_line_naming_the_file_or_option(args, message, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(message, err.strip()), err


def test_a_file_that_is_not_a_log_is_named(tmp_path, capsys):
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    code, out, err = run(["paired", other, BASE], capsys)
    assert code == 2 and str(other) in err and "not an evaluation log" in err and len(err.strip().splitlines()) == 1


def test_paired_is_listed_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "paired" in capsys.readouterr().out


def test_one_folder_of_two_models_or_two_named_with_models(tmp_path, capsys):
    """An Inspect log folder or a harness's output folder holds every model's logs: without B, A holds both
    (two models: compared in sorted order; more: --models picks two, in the order given)."""
    both = tmp_path / "logs of two"
    for src in (BIG, CHAT):
        shutil.copytree(src, both / src.name)
    code, out, err = run(["paired", both, "--seed", "3", "--resamples", "300", "--json"], capsys)
    assert code == 0 and err == ""
    got = json.loads(out)
    ref = json.loads(json.dumps(_library(BIG, CHAT, n_resamples=300, rng=3).to_dict()))  # sorted: 13b before 7b
    assert {k: got[k] for k in ref} == ref and got["logs"] == {"a": str(both), "b": str(both)}
    code, out, err = run(["paired", DEMO, "--models", "sim/demo-7b-chat", "sim/demo-13b", "--seed", "3",
                          "--resamples", "300", "--json"], capsys)
    assert code == 0
    ref = json.loads(json.dumps(_library(CHAT, BIG, n_resamples=300, rng=3).to_dict()))
    assert {k: json.loads(out)[k] for k in ref} == ref


@pytest.mark.parametrize("args, message", [
    (["paired", DEMO], r"A .*llm-demo holds the logs of 4 model\(s\) \(sim/demo-13b, .*\); without B it must hold "
                       r"two, or name two with --models NAME_A NAME_B"),
    (["paired", DEMO, "--models", "sim/demo-7b", "gpt-4"], r"--models gpt-4: no such model in .*llm-demo \(models: "),
    (["paired", DEMO, "--models", "sim/demo-7b", "sim/demo-7b"], r"--models names 'sim/demo-7b' twice"),
    (["paired", CHAT, BIG, "--models", "sim/demo-7b", "sim/demo-13b"], r"--models picks two models of A when B is "
                                                                        r"left out"),
])
def test_one_folder_bad_input_is_one_line(args, message, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and re.search(message, err), err
