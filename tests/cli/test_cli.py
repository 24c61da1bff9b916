"""The `trialwise` command line: results, JSON, and one-line errors with exit code != 0."""

import json
import os
import re
import subprocess
import textwrap
import sys

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.cli import main


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def two_files(tmp_path):
    rng = np.random.default_rng(0)
    truth = rng.choice(["cat", "dog", "car"], 200)
    a = np.where(rng.random(200) < 0.7, truth, "dog")
    b = np.where(rng.random(200) < 0.5, a, np.where(rng.random(200) < 0.6, truth, "car"))
    images = [f"img{i:03d}" for i in range(200)]
    pa, pb = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame({"image": images, "truth": truth, "response": a}).to_csv(pa, index=False)
    # B's file is shuffled and has 5 extra items A never saw.
    extra = pd.DataFrame({"image": [f"x{i}" for i in range(5)], "truth": ["cat"] * 5, "response": ["cat"] * 5})
    frame_b = pd.concat([pd.DataFrame({"image": images, "truth": truth, "response": b}).sample(frac=1, random_state=1), extra])
    frame_b.to_csv(pb, index=False)
    return pa, pb, truth, a, b


def test_two_files_match_the_library(two_files, capsys):
    pa, pb, truth, a, b = two_files
    code, out, err = run(["ec", str(pa), str(pb), "--seed", "3", "--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    ref = tw.error_consistency(a, b, truth=truth, rng=3)
    assert got["statistic"] == pytest.approx(ref.statistic)
    assert got["ci_low"] == pytest.approx(ref.confidence_interval.low)
    assert got["pvalue"] == pytest.approx(ref.pvalue)
    assert got["n"] == 200 and got["only_b"] == 5 and got["only_a"] == 0


def test_text_output_names_observers_and_unpaired_items(two_files, capsys):
    pa, pb, *_ = two_files
    code, out, _ = run(["ec", str(pa), str(pb), "--resamples", "500", "--seed", "1"], capsys)
    assert code == 0
    assert "Error consistency" in out and "B = 500" in out
    assert "0 only in A, 5 only in B (left out)" in out


def test_bundled_dataset_reproduces_library_on_cue_conflict(capsys):
    code, out, err = run(["ec", "--dataset", "model-vs-human", "--experiment", "cue-conflict",
                          "--subjects", "subject-01", "resnet50", "--resamples", "200", "--seed", "0", "--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    trials = tw.datasets.model_vs_human("cue-conflict")
    ca, cb, _ = tw.io.paired_correctness(trials[trials.subject == "subject-01"], trials[trials.subject == "resnet50"],
                                      truth="category")
    assert got["n"] == 1280
    assert got["statistic"] == pytest.approx(tw.error_consistency(ca, cb, n_resamples=10).statistic)


def test_tidy_file_with_subjects(tmp_path, capsys):
    trials = tw.datasets.model_vs_human("edge")
    path = tmp_path / "tidy.csv"
    trials.to_csv(path, index=False)
    code, out, err = run(["ec", str(path), "--subjects", "subject-02", "clip-16", "--truth", "category",
                          "--resamples", "100", "--seed", "0"], capsys)
    assert code == 0, err
    assert "items n              160" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["ec", "missing.csv", "other.csv"], "missing.csv: no such file"),
        (["ec", "--dataset", "model-vs-human", "--subjects", "subject-01", "nobody"], "no subject 'nobody'"),
        (["ec", "--dataset", "model-vs-human", "--experiment", "nope", "--subjects", "a", "b"], "no rows with experiment = 'nope'"),
        (["ec", "--dataset", "model-vs-human"], "needs --subjects A B"),
        (["ec"], "give two CSV files"),
        (["ec", "--dataset", "model-vs-human", "--subjects", "subject-01", "resnet50", "--confidence-level", "95"],
         "--confidence-level must be between 0 and 1 (e.g. 0.95); got 95"),
    ],
)
def test_errors_are_one_line_with_nonzero_exit(args, message, capsys):
    code, out, err = run(args, capsys)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trialwise: error:") and message in lines[0]
    assert "Traceback" not in err


def test_unknown_column_lists_columns(two_files, capsys):
    pa, pb, *_ = two_files
    code, _, err = run(["ec", str(pa), str(pb), "--image", "stimulus"], capsys)
    assert code == 2
    assert "no column 'stimulus'; columns found: image, truth, response" in err


def test_malformed_and_empty_csv(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text('image,truth,response\n"a,b\n')
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = run(["ec", str(bad), str(bad)], capsys)
    assert code == 2 and "bad.csv: " in err and err.count("\n") == 1
    code, _, err = run(["ec", str(empty), str(empty)], capsys)
    assert code == 2 and "empty.csv: the file is empty" in err


def test_duplicate_items_are_an_error(tmp_path, capsys):
    p = tmp_path / "dup.csv"
    pd.DataFrame({"image": ["a", "a"], "truth": ["x", "x"], "response": ["x", "y"]}).to_csv(p, index=False)
    code, _, err = run(["ec", str(p), str(p)], capsys)
    assert code == 2 and "occurs more than once" in err


def test_correct_column_and_bad_values(tmp_path, capsys):
    p1, p2 = tmp_path / "1.csv", tmp_path / "2.csv"
    pd.DataFrame({"image": list("abcdef"), "hit": [1, 0, 1, 1, 0, 1]}).to_csv(p1, index=False)
    pd.DataFrame({"image": list("abcdef"), "hit": [1, 0, 0, 1, 2, 1]}).to_csv(p2, index=False)
    code, _, err = run(["ec", str(p1), str(p2), "--correct", "hit"], capsys)
    assert code == 2 and "column 'hit' must hold 0/1" in err


def test_degenerate_data_warns_on_stderr(tmp_path, capsys):
    p1, p2 = tmp_path / "1.csv", tmp_path / "2.csv"
    pd.DataFrame({"image": list("abcdef"), "correct": [1] * 6}).to_csv(p1, index=False)
    pd.DataFrame({"image": list("abcdef"), "correct": [1, 0, 0, 1, 0, 1]}).to_csv(p2, index=False)
    code, out, err = run(["ec", str(p1), str(p2), "--correct", "correct", "--resamples", "100"], capsys)
    assert code == 0 and "trialwise: warning: A is always correct" in err


def test_console_script_is_installed():
    proc = subprocess.run([sys.executable, "-m", "trialwise.cli", "ec", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--subjects" in proc.stdout


# ----------------------------------------------------------------- trialwise plan


def test_plan_prints_required_trials_and_table(capsys):
    code, out, err = run(["plan", "--accuracy-a", "0.75", "--accuracy-b", "0.75", "--kappa", "0.5",
                          "--half-width", "0.05", "--seed", "0"], capsys)
    assert code == 0
    n = tw.plan_trials(half_width=0.05, accuracy_a=0.75, accuracy_b=0.75, kappa=0.5, rng=0).n
    assert ["required", "trials", str(n)] in [line.split() for line in out.splitlines()]
    for lit in (147, 160, 600, 1280, 3222):
        assert f"\n{lit:>4} " in out or f"\n {lit} " in out
    assert "reference accuracy 0.5" in out


def test_plan_json_and_figure(tmp_path, capsys):
    fig = tmp_path / "fig3.png"
    code, out, err = run(["plan", "--accuracy-a", "0.8", "--accuracy-b", "0.7", "--kappa", "0.3",
                          "--half-width", "0.1", "--seed", "1", "--simulations", "2000", "--json",
                          "--figure", str(fig)], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["n"] == tw.plan_trials(half_width=0.1, accuracy_a=0.8, accuracy_b=0.7, kappa=0.3,
                                       n_simulations=2000, rng=1).n
    assert data["half_width"] <= 0.1 and len(data["intervals"]) >= 5
    assert fig.stat().st_size > 10_000 and fig.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args,message", [
    (["--accuracy-a", "0.9", "--accuracy-b", "0.5", "--kappa", "0.8", "--half-width", "0.05"],
     "--kappa = 0.8 is not attainable with accuracies 0.9 and 0.5: it must lie in [-0.2, 0.2]"),
    (["--accuracy-a", "1.5", "--accuracy-b", "0.5", "--kappa", "0.1", "--half-width", "0.05"], "--accuracy-a must be in"),
    (["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0"], "--half-width must be in (0, 1)"),
    (["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1", "--simulations", "0"],
     "--simulations must be"),
    (["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1", "--max-share-undefined",
      "5"], "--max-share-undefined is a share between 0 and 1 (e.g. 0.05 for 5%); got 5"),
    (["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1", "--figure", "/no/such/dir/f.png"],
     "folder /no/such/dir does not exist"),
])
def test_plan_errors_are_one_line(args, message, capsys):
    code, out, err = run(["plan", *args], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


# --------------------------------------------------------------------------- leaderboard


def test_leaderboard_on_bundled_data(tmp_path, capsys):
    out_html, out_csv, out_pw = tmp_path / "r.html", tmp_path / "t.csv", tmp_path / "p.csv"
    code, out, err = run(["leaderboard", "--resamples", "300", "--seed", "0", "--experiments", "cue-conflict", "edge",
                          "--out", str(out_html), "--csv", str(out_csv), "--pairwise-csv", str(out_pw)], capsys)
    assert code == 0, err
    table = pd.read_csv(out_csv, keep_default_na=False, na_values=[""])
    lib = tw.leaderboard(tw.datasets.model_vs_human(), tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"]),
                         n_resamples=300, rng=0)
    scored = table[table["status"] != "not scored"].reset_index(drop=True)
    assert list(scored["observer"]) == list(lib.table["observer"])
    np.testing.assert_allclose(scored["score"], lib.table["score"], atol=1e-12)
    np.testing.assert_allclose(scored["ci_low"], lib.table["ci_low"], atol=1e-12)
    assert "clip-16" in out and "Kendall" in out
    assert len(pd.read_csv(out_pw)) == len(lib.candidates) - 1
    html = out_html.read_text()
    assert html.count("data:image/png;base64") >= 4 and "<table" in html


def test_leaderboard_ci_method_option(tmp_path, capsys):
    """--ci-method percentile gives the library's percentile intervals (the paper's); a bad choice is in
    tests/contracts/test_bad_input.py."""
    csv = tmp_path / "t.csv"
    code, out, err = run(["leaderboard", "--resamples", "200", "--seed", "0", "--experiments", "edge",
                          "--ci-method", "percentile", "--tests", "none", "--csv", str(csv)], capsys)
    assert code == 0, err
    assert "(percentile, B = 200)" in out
    lib = tw.leaderboard(tw.datasets.model_vs_human(), tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["edge"]),
                         n_resamples=200, ci_method="percentile", rng=0)
    got = pd.read_csv(csv, keep_default_na=False, na_values=[""])
    got = got[got["status"] != "not scored"].reset_index(drop=True)
    np.testing.assert_allclose(got["ci_high"], lib.table["ci_high"], atol=1e-12)


def test_leaderboard_on_a_raw_data_folder(tmp_path, capsys):
    from tests.leaderboards.test_leaderboard import _write_raw

    raw = tw.datasets.model_vs_human("edge")
    raw = raw[(raw["observer_type"] == "human") | raw["subject"].isin(["resnet50", "clip-16", "vit-b-16"])]
    _write_raw(tmp_path / "raw-data", raw, ["edge"])
    code, out, err = run(["leaderboard", str(tmp_path / "raw-data"), "--resamples", "200", "--seed", "1",
                          "--tests", "all", "--csv", str(tmp_path / "t.csv")], capsys)
    assert code == 0, err
    got = pd.read_csv(tmp_path / "t.csv").set_index("observer")["score"]
    lib = tw.leaderboard(raw, n_resamples=200, rng=1).table.set_index("observer")["score"]
    np.testing.assert_allclose(got[lib.index], lib, atol=1e-12)
    assert "combined tests (all, holm-adjusted)" in out


def test_leaderboard_tidy_file_with_column_mapping(tmp_path, capsys):
    raw = tw.datasets.model_vs_human("silhouette")
    raw = raw[(raw["observer_type"] == "human") | raw["subject"].isin(["resnet50", "clip-16"])]
    f = tmp_path / "t.csv"
    raw.rename(columns={"subject": "participant", "image": "stim"}).to_csv(f, index=False)
    code, out, err = run(["leaderboard", str(f), "--subject-column", "participant", "--image-column", "stim",
                          "--resamples", "100", "--tests", "none"], capsys)
    assert code == 0, err
    code, out, err = run(["leaderboard", str(f), "--resamples", "100"], capsys)
    assert code == 2 and "no column 'subject'; columns found: source, experiment, condition, participant" in err


def test_two_files_each_name_their_own_truth_column(two_files, tmp_path, capsys):
    pa, pb, truth, a, b = two_files
    pd.read_csv(pa).rename(columns={"truth": "category"}).to_csv(tmp_path / "a_category.csv", index=False)
    for first, second in ((tmp_path / "a_category.csv", pb), (pb, tmp_path / "a_category.csv")):
        code, out, err = run(["ec", str(first), str(second), "--seed", "3", "--json"], capsys)
        assert code == 0, err
        got = json.loads(out)
        acc = {pa.name: np.mean(a == truth), "a_category.csv": np.mean(a == truth), pb.name: np.mean(b == truth)}
        assert got["accuracy_a"] == pytest.approx(acc[first.name]) and got["accuracy_b"] == pytest.approx(acc[second.name])


def test_leaderboard_reads_a_table_of_correctness_only(tmp_path, capsys):
    raw = tw.read_trials(tw.datasets.model_vs_human("silhouette"))
    raw = raw[(raw["observer_type"] == "human") | raw["subject"].isin(["resnet50", "clip-16"])]
    raw.to_csv(tmp_path / "full.csv", index=False)
    only = raw.drop(columns=["truth", "response"])
    only.to_csv(tmp_path / "correct.csv", index=False)
    only.rename(columns={"correct": "right"}).assign(right=lambda f: f["right"].astype(int)).to_csv(
        tmp_path / "right.csv", index=False)
    tables = {}
    for name, extra in (("full", []), ("correct", []), ("right", ["--correct-column", "right"])):
        code, out, err = run(["leaderboard", str(tmp_path / f"{name}.csv"), *extra, "--resamples", "100", "--seed", "0",
                              "--tests", "none", "-q", "--csv", str(tmp_path / f"{name}_out.csv")], capsys)
        assert code == 0, err
        tables[name] = pd.read_csv(tmp_path / f"{name}_out.csv")
    pd.testing.assert_frame_equal(tables["correct"], tables["full"])
    pd.testing.assert_frame_equal(tables["right"], tables["full"])


@pytest.fixture()
def predictions(tmp_path):
    gen = np.random.default_rng(0)
    n = 240
    y = gen.integers(0, 3, n)
    cls = np.array(["cat", "dog", "eel"])

    def proba(sharp):
        z = gen.normal(size=(n, 3))
        z[np.arange(n), y] += 1.2
        p = np.exp(sharp * z)
        return p / p.sum(axis=1, keepdims=True)

    pa, pb = proba(1.0), proba(2.0)
    frame = pd.DataFrame({"y": cls[y], "model_1": cls[pa.argmax(1)], "model_2": cls[pb.argmax(1)]})
    for k, c in enumerate(cls):
        frame[f"m1_{c}"] = pa[:, k]
        frame[f"m2_{c}"] = pb[:, k]
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_compare_json_equals_the_library(predictions, capsys):
    path, frame = predictions
    cols_a, cols_b = ["m1_cat", "m1_dog", "m1_eel"], ["m2_cat", "m2_dog", "m2_eel"]
    code, out, _ = run(["compare", str(path), "--truth", "y", "--a", "model_1", "--b", "model_2",
                        "--proba-a", *cols_a, "--proba-b", *cols_b, "--seed", "3", "--json"], capsys)
    assert code == 0
    got = json.loads(out)
    proba_a = frame[cols_a].set_axis(["cat", "dog", "eel"], axis=1)
    proba_b = frame[cols_b].set_axis(["cat", "dog", "eel"], axis=1)
    rep = tw.compare(frame["y"], frame["model_1"], frame["model_2"], proba_a, proba_b,
                     names=("model_1", "model_2"), rng=3)
    assert got["recommendation"]["decision"] == rep.recommendation.decision
    ours = {m["method"]: m for m in got["methods"]}
    for r in rep.results:
        assert ours[r.method]["statistic"] == pytest.approx(r.statistic, rel=1e-6, nan_ok=True)
    assert "DeLong class dog" in ours and "Bowker symmetry" in ours


def test_compare_scoring_rule_is_the_librarys(predictions, capsys):
    path, frame = predictions
    cols_a, cols_b = ["m1_cat", "m1_dog", "m1_eel"], ["m2_cat", "m2_dog", "m2_eel"]
    code, out, _ = run(["compare", str(path), "--truth", "y", "--a", "model_1", "--b", "model_2",
                        "--proba-a", *cols_a, "--proba-b", *cols_b, "--scoring-rule", "log-loss", "--seed", "3",
                        "--json"], capsys)
    assert code == 0
    ours = {m["key"]: m for m in json.loads(out)["methods"]}
    rep = tw.compare(frame["y"], frame["model_1"], frame["model_2"], frame[cols_a].set_axis(["cat", "dog", "eel"], axis=1),
                     frame[cols_b].set_axis(["cat", "dog", "eel"], axis=1), names=("model_1", "model_2"),
                     scoring_rule="log-loss", rng=3)
    assert "paired-t-log-loss" in ours and "paired-t-brier" not in ours
    assert ours["paired-t-log-loss"]["statistic"] == pytest.approx(rep["paired-t-log-loss"].statistic, rel=1e-9)


def test_compare_text_report_and_figures(predictions, capsys, tmp_path):
    path, _ = predictions
    rel, heat = tmp_path / "rel.png", tmp_path / "heat.png"
    code, out, err = run(["compare", str(path), "--truth", "y", "--a", "model_1", "--b", "model_2",
                          "--proba-a", "m1_cat", "m1_dog", "m1_eel", "--proba-b", "m2_cat", "m2_dog", "m2_eel",
                          "--reliability", str(rel), "--heatmap", str(heat), "--resamples", "199"], capsys)
    assert code == 0 and rel.stat().st_size > 0 and heat.stat().st_size > 0
    assert "Comparison of model_1 and model_2: n = 240 items, K = 3 classes" in out
    assert "Ensemble recommendation:" in out and "McNemar (exact)" in out


@pytest.mark.parametrize("extra, message", [
    (["--a", "model_x", "--b", "model_2"], "no column 'model_x' (--a)"),
    (["--a", "model_1"], "give --a (or --proba-a) and --b"),
    (["--a", "model_1", "--b", "model_2", "--proba-a", "m1_cat", "m1_dog"],
     "the --proba-a columns: data row 1 sums to"),  # issue 29 (helper B): the library's row check and hint
    (["--a", "model_1", "--b", "model_2", "--proba-a", "y"], "column 'y' (--proba-a) has a missing or non-numeric"),
    (["--a", "model_1", "--b", "model_2", "--proba-a", "m1_cat", "m1_dog", "m1_eel", "--classes", "a", "b"],
     "--classes names 2 classes"),
    (["--a", "model_1", "--b", "model_2", "--reliability", "/nonexistent/r.png"], "does not exist"),
])
def test_compare_errors_are_one_line(predictions, capsys, extra, message):
    path, _ = predictions
    code, out, err = run(["compare", str(path), "--truth", "y", *extra], capsys)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("columns", [["m1_cat"], ["m1_cat", "m1_dog", "m1_eel"]])
def test_compare_probability_outside_0_1_names_the_flag_and_the_file_row(predictions, tmp_path, capsys, columns):
    """Review HR7, F4: a probability of 1.5 after a skipped empty row said "`proba_a` must be in [0, 1]" (no row,
    the library's name); binary (one column) and K-class alike."""
    _, frame = predictions
    frame = frame.copy()
    frame.loc[4, "m1_cat"] = 1.5
    path = tmp_path / "p.csv"
    lines = frame.to_csv(index=False).splitlines()
    path.write_text("\n".join(lines[:3] + ["," * (frame.shape[1] - 1)] + lines[3:]) + "\n")  # data row 3 is empty
    truth = ["--truth", "y"] if len(columns) > 1 else ["--truth", "y", "--a", "model_1", "--b", "model_2"]
    code, out, err = run(["compare", str(path), *truth, *(["--a", "model_1", "--b", "model_2"] if len(columns) > 1
                                                         else []), "--proba-a", *columns], capsys)
    assert code == 2 and out == ""
    assert "column 'm1_cat' (--proba-a) holds '1.5' in data row 6: probabilities must be in [0, 1]" in err
    assert "Traceback" not in err and err.splitlines()[0].startswith("trialwise: warning:")


@pytest.mark.parametrize("spelling, shown", [("{:.1f}", "0.0, 1.0, 2.0"), (" {:.0e}", " 0e+00,  1e+00,  2e+00")])
def test_compare_probability_columns_name_classes_by_the_label_rule(predictions, tmp_path, capsys, spelling, shown):
    """Review HR5, F5: columns pa_0..pa_2 were refused for a truth written 0.0/1.0/2.0 ("1" == "1.0")."""
    _, frame = predictions
    code = {"cat": 0, "dog": 1, "eel": 2}
    numbers = frame.rename(columns=lambda c: c.replace("_cat", "_0").replace("_dog", "_1").replace("_eel", "_2"))
    for col in ("y", "model_1", "model_2"):
        numbers[col] = numbers[col].map(code)
    args = ["--truth", "y", "--a", "model_1", "--b", "model_2", "--proba-a", "m1_0", "m1_1", "m1_2",
            "--proba-b", "m2_0", "m2_1", "m2_2", "--resamples", "99", "--seed", "3", "--json"]
    integer, other = tmp_path / "int.csv", tmp_path / "other.csv"
    numbers.to_csv(integer, index=False)
    numbers.assign(y=numbers.y.map(spelling.format)).to_csv(other, index=False)
    results = []
    for path in (integer, other):
        status, out, err = run(["compare", str(path), *args], capsys)
        assert status == 0, err
        results.append(json.loads(out))
    expected, got = results
    assert [m["statistic"] for m in got["methods"]] == [m["statistic"] for m in expected["methods"]]
    assert [m["pvalue"] for m in got["methods"]] == [m["pvalue"] for m in expected["methods"]]
    # columns that cannot name the classes still say so, with the truth's classes in natural order
    status, _, err = run(["compare", str(other), "--truth", "y", "--a", "model_1", "--b", "model_2",
                          "--proba-a", "m1_0", "m1_1", "model_1"], capsys)
    assert status == 2 and err.count("\n") == 1
    assert f"do not name the classes of the truth ({shown}), not even after a common prefix; pass the classes (--classes)" in err


@pytest.mark.parametrize("columns, labels, classes", [
    (["pa_0", "pa_1", "pa_2"], [0.0, 1.0, 2.0], ["0", "1", "2"]),
    (["pa_0", "pa_1", "pa_2"], ["0.0", "1.0", "2.0"], ["0", "1", "2"]),
    (["1.0", "0.0"], [0, 1], ["1.0", "0.0"]),
    (["p_10", "p_11", "p_12"], [10, 11, 12], ["10", "11", "12"]),
])
def test_classes_from_columns_match_by_the_label_rule(columns, labels, classes):
    from trialwise.comparison.columns import classes_from_columns

    assert classes_from_columns(columns, labels) == classes


def test_compare_missing_label_names_the_column(tmp_path, capsys):
    p = tmp_path / "p.csv"
    p.write_text("y,a,b\ncat,cat,dog\ndog,,dog\n")
    code, _, err = run(["compare", str(p), "--truth", "y", "--a", "a", "--b", "b"], capsys)
    assert code == 2 and "column 'a' (--a) is empty in data row 2" in err


# --------------------------------------------------------------------------- bad input: one line, exit 2
#
# Every row: argv (with {tmp}, {dir}, {file}, {gz}, {parquet}, {tidy} filled in) -> a fragment of the one
# error line. stderr must hold exactly that one line, stdout nothing of a traceback. Rows that fail only
# after the computation (a full disk) pass --quiet, which silences the progress lines.

BAD_INPUT = [
    # leaderboard: input files
    (["leaderboard", "missing.csv"], "missing.csv: no such file"),
    (["leaderboard", "{gz}", "--resamples", "10"], "truncated.csv.gz"),
    (["leaderboard", "{parquet}", "--resamples", "10"], "pip install pyarrow"),
    (["leaderboard", "--experiments", "nope", "--resamples", "10"], "nope"),
    (["leaderboard", "--resamples", "0"], "--resamples must be at least 1; got 0"),
    (["leaderboard", "--seed", "-1"], "--seed must be a non-negative integer; got -1"),
    (["leaderboard", "--confidence-level", "nan"], "--confidence-level must be between 0 and 1"),
    (["ec", "--dataset", "model-vs-human", "--subjects", "subject-01", "resnet50", "--resamples", "-5"],
     "--resamples must be at least 1; got -5"),
    (["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1",
      "--simulations", "0"], "--simulations must be at least 1"),
    (["leaderboard", "--reference", "nobody", "--resamples", "10", "--experiments", "edge"], "'nobody'"),
    # leaderboard: outputs, checked before computing
    (["leaderboard", "--resamples", "10", "--out", "/no/such/dir/r.html"], "folder /no/such/dir does not exist"),
    (["leaderboard", "--resamples", "10", "--out", "{dir}"], "--out {dir}: is a folder"),
    (["leaderboard", "--resamples", "10", "--csv", "{dir}"], "--csv {dir}: is a folder"),
    (["leaderboard", "--resamples", "10", "--pairwise-csv", "{dir}"], "--pairwise-csv {dir}: is a folder"),
    (["leaderboard", "--resamples", "10", "--out", "{file}/r.html"], "is not a folder"),
    (["leaderboard", "--resamples", "10", "--csv", "/no/such/dir/t.csv"], "does not exist"),
    (["leaderboard", "--resamples", "10", "--out", "{tmp}/same", "--csv", "{tmp}/same"], "name the same file"),
    # leaderboard: outputs that fail only when written (full disk)
    (["leaderboard", "--quiet", "--resamples", "20", "--experiments", "edge", "--out", "/dev/full"],
     "--out /dev/full: cannot write (No space left on device)"),
    (["leaderboard", "--quiet", "--resamples", "20", "--experiments", "edge", "--csv", "/dev/full"],
     "--csv /dev/full: cannot write"),
    (["leaderboard", "--quiet", "--resamples", "20", "--experiments", "edge", "--pairwise-csv", "/dev/full"],
     "--pairwise-csv /dev/full: cannot write"),
    (["leaderboard", "{tidy}", "--quiet", "--resamples", "20", "--common-experiments"],
     "no experiment is shared by every candidate"),
    # plan
    (["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1",
      "--max-trials", "1"], "--max-trials must be at least 2"),
    (["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1",
      "--figure", "{dir}"], "--figure {dir}: is a folder"),
    (["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1",
      "--figure", "{tmp}/f.jpg2"], "unknown figure format '.jpg2'"),
    (["plan", "--quiet", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.2",
      "--simulations", "200", "--figure", "/dev/full"], "--figure /dev/full: cannot write"),
    # ec
    (["ec", "{gz}", "{file}"], "truncated.csv.gz: the compressed file is truncated"),
    (["ec", "{dir}", "{dir}"], "{dir}"),
]

COMPARE_BAD_OUTPUT = [
    (["--heatmap", "{dir}"], "--heatmap {dir}: is a folder"),
    (["--heatmap", "/no/such/dir/h.png"], "does not exist"),
    (["--heatmap", "/dev/full"], "--heatmap /dev/full: cannot write"),
    (["--reliability", "{dir}", "--proba-a", "m1_cat", "m1_dog", "m1_eel"], "--reliability {dir}: is a folder"),
]


@pytest.fixture
def bad_files(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    afile = tmp_path / "plain.txt"
    afile.write_text("x")
    good = tmp_path / "good.csv.gz"
    tw.datasets.texture_vs_shape()[lambda t: t["experiment"] == "edge"].to_csv(good, index=False)
    data = good.read_bytes()
    gz = tmp_path / "truncated.csv.gz"
    gz.write_bytes(data[: len(data) // 2])
    parquet = tmp_path / "trials.parquet"
    parquet.write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    # two candidates without a shared experiment
    mvh = tw.datasets.model_vs_human()
    mvh = mvh[mvh["experiment"].isin(["edge", "silhouette"])]
    keep = (mvh["observer_type"] == "human") | ((mvh["subject"] == "resnet50") & (mvh["experiment"] == "edge")) | \
        ((mvh["subject"] == "clip-16") & (mvh["experiment"] == "silhouette"))
    tidy = tmp_path / "disjoint.csv"
    mvh[keep].to_csv(tidy, index=False)
    return {"tmp": str(tmp_path), "dir": str(folder), "file": str(afile), "gz": str(gz), "parquet": str(parquet),
            "tidy": str(tidy)}


def _fill(args, names):
    return [a.format(**names) for a in args]


def _one_error_line(code, out, err, message):
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert all(ln.startswith("trialwise: warning") for ln in lines[:-1]), err  # the warnings collected before it
    assert lines[-1].startswith("trialwise: error: ") and message in lines[-1], err
    assert "Traceback" not in err + out


@pytest.mark.parametrize("args, message", BAD_INPUT, ids=[" ".join(a)[:60] for a, _ in BAD_INPUT])
def test_bad_input_is_one_line_with_exit_2(args, message, bad_files, capsys, monkeypatch):
    if "{parquet}" in args:  # no Parquet engine, whether or not one is installed here
        import pandas as pd

        def no_engine(*_args, **_kwargs):
            raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

        monkeypatch.setattr(pd, "read_parquet", no_engine)
    code, out, err = run(_fill(args, bad_files), capsys)
    _one_error_line(code, out, err, message.format(**bad_files))


@pytest.mark.parametrize("extra, message", COMPARE_BAD_OUTPUT)
def test_compare_bad_outputs_are_one_line(extra, message, predictions, bad_files, capsys):
    path, _ = predictions
    code, out, err = run(["compare", str(path), "--truth", "y", "--a", "model_1", "--b", "model_2", "--resamples",
                          "99", *_fill(extra, bad_files)], capsys)
    _one_error_line(code, "", err, message.format(**bad_files))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write into read-only folders")
def test_read_only_folder_is_one_line(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code, out, err = run(["leaderboard", "--resamples", "10", "--out", str(ro / "r.html")], capsys)
    finally:
        ro.chmod(0o755)
    _one_error_line(code, out, err, "permission denied")


@pytest.mark.skipif(not os.path.isdir("/proc/sys") or os.access("/proc/sys", os.W_OK),
                    reason="needs a folder that cannot be written (Linux /proc/sys)")
def test_unwritable_folder_is_one_line_also_for_root(capsys):
    code, out, err = run(["leaderboard", "--resamples", "10", "--csv", "/proc/sys/t.csv"], capsys)
    _one_error_line(code, out, err, "permission denied (folder /proc/sys is not writable)")


def test_figure_path_is_written_exactly(tmp_path, capsys):
    """matplotlib would write 'fig' as 'fig.png'; the CLI writes the name it was given."""
    target = tmp_path / "fig"
    code, out, err = run(["plan", "--quiet", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5",
                          "--half-width", "0.2", "--simulations", "200", "--seed", "0", "--figure", str(target)], capsys)
    assert code == 0, err
    assert target.read_bytes()[:4] == b"\x89PNG" and not (tmp_path / "fig.png").exists()
    assert err == f"figure written to {target}\n"
    svg = tmp_path / "fig.svg"
    code, _, err = run(["plan", "--quiet", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5",
                        "--half-width", "0.2", "--simulations", "200", "--seed", "0", "--figure", str(svg)], capsys)
    assert code == 0 and svg.read_text().lstrip().startswith("<?xml")


def test_failed_write_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    import builtins

    target = tmp_path / "t.csv"
    real_open = builtins.open

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[:10])
            raise OSError(28, "No space left on device")

    def fake_open(path, mode="r", *a, **k):
        fh = real_open(path, mode, *a, **k)
        return Full(fh) if os.path.dirname(str(path)) == str(tmp_path) and "w" in mode else fh

    from trialwise import cli
    from trialwise.cli.common import write_text

    monkeypatch.setattr(builtins, "open", fake_open)
    with pytest.raises(cli.CLIError, match="cannot write"):
        write_text(str(target), "x" * 100, "--csv")
    assert not target.exists() and not list(tmp_path.iterdir())
    monkeypatch.setattr(builtins, "open", real_open)
    target.write_text("the earlier table")  # a failed write leaves an earlier file of that name as it was
    monkeypatch.setattr(builtins, "open", fake_open)
    with pytest.raises(cli.CLIError, match="cannot write"):
        write_text(str(target), "x" * 100, "--csv")
    assert target.read_text() == "the earlier table" and [f.name for f in tmp_path.iterdir()] == ["t.csv"]


def test_written_files_keep_the_permissions_and_write_through_symlinks(tmp_path):
    from trialwise.cli.common import write_text

    new, old, real, link = (tmp_path / n for n in ("new.csv", "old.csv", "real.csv", "link.csv"))
    write_text(str(new), "a", "--csv")
    mask = os.umask(0)
    os.umask(mask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~mask
    old.write_text("b")
    old.chmod(0o640)
    write_text(str(old), "c", "--csv")
    assert old.read_text() == "c" and old.stat().st_mode & 0o777 == 0o640
    real.write_text("d")
    link.symlink_to(real)
    write_text(str(link), "e", "--csv")
    assert link.is_symlink() and real.read_text() == "e"
    write_text("/dev/null", "f", "--csv")  # a device is written in place
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_ctrl_c_while_a_file_is_written_leaves_the_earlier_file_and_no_part(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("the earlier table")
    code = f"""
import builtins, os, signal, sys, time
real_open = builtins.open
def interrupting_open(path, mode="r", *a, **k):
    fh = real_open(path, mode, *a, **k)
    if str(path).endswith(".part"):
        fh.write(b"half of it")
        fh.flush()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    return fh
builtins.open = interrupting_open
from trialwise.cli import main
sys.exit(main(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.3",
               "--simulations", "50", "--seed", "0", "--quiet", "--figure", {str(target.with_suffix(".png"))!r}]))
"""
    (tmp_path / "t.png").write_text("the earlier figure")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.endswith("trialwise: interrupted\n")
    assert (tmp_path / "t.png").read_text() == "the earlier figure"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["t.csv", "t.png"]


# --------------------------------------------------------------------------- plan says what it found


def test_plan_unreachable_target_says_so(capsys):
    code, out, err = run(["plan", "--quiet", "--accuracy-a", "0.75", "--accuracy-b", "0.75", "--kappa", "0.5",
                          "--half-width", "0.05", "--max-trials", "50", "--simulations", "300", "--seed", "0"], capsys)
    assert code == 0
    assert "not reached" in out
    assert "trialwise: warning: the target half-width 0.05 is not reached with up to 50 trials" in err


def test_plan_unreached_because_of_experiments_without_an_ec_advises_what_helps(capsys):
    """Review HR6, F2: not 'accept a wider interval' (it cannot help) but the n of ≤ 5 % without an EC, by flag."""
    code, out, err = run(["plan", "--quiet", "--accuracy-a", "0.999", "--accuracy-b", "0.999", "--kappa", "0.5",
                          "--half-width", "0.9", "--max-trials", "1000", "--simulations", "400", "--seed", "0"], capsys)
    cells = tw.ec.cell_probabilities(0.5, 0.999, 0.999)
    oracle = next(n for n in range(1, 10**5) if cells[0, 0] ** n + cells[1, 1] ** n <= 0.05)   # 1997
    assert code == 0 and ["required", "trials", "not", "reached"] in [line.split() for line in out.splitlines()]
    assert "even n" not in out
    assert "accept a wider interval" not in err and err.count("trialwise: warning:") == 1
    assert f"raise --max-trials to at least {oracle}, or allow more experiments without an EC " \
           "(--max-share-undefined); a wider interval does not help" in err
    assert "`" not in out + err


def test_plan_counts_experiments_without_an_ec_as_failing(capsys):
    """Review HR5, F2: accuracies 0.99 answered 9 trials, with 85 % of the experiments giving no EC."""
    args = ["plan", "--quiet", "--accuracy-a", "0.99", "--accuracy-b", "0.99", "--kappa", "0", "--half-width", "0.2",
            "--simulations", "2000", "--seed", "0"]
    code, out, err = run(args, capsys)
    with pytest.warns(tw.DegenerateDataWarning):
        plan = tw.plan_trials(0.2, 0.99, 0.99, 0.0, n_simulations=2000, rng=0)
    assert code == 0 and ["required", "trials", str(plan.n)] in [line.split() for line in out.splitlines()]
    assert plan.n > 100
    assert err.count("trialwise: warning: the required n = ") == 1 and "set by the experiments without an EC" in err
    # the table's row at n is the plan's own simulation: the share printed is the one of the notes
    row = next(line.split() for line in out.splitlines() if line.split()[:1] == [str(plan.n)])
    assert float(row[-1]) == round(float(plan.at_n.share_undefined), 3) <= 0.05
    code, out, err = run([*args, "--max-share-undefined", "1", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["n"] < 20 and data["warnings"] == []
    code, out, err = run([*args, "--max-share-undefined", "2"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--max-share-undefined is a share between 0 and 1" in err


# --------------------------------------------------------------------------- internal errors are not user errors


@pytest.mark.parametrize("exc, code", [
    (IndexError("index 3 is out of bounds"), 1),
    (np.linalg.LinAlgError("Singular matrix"), 1),
    (KeyError("observer"), 1),
])
def test_internal_errors_are_one_bug_line_with_exit_1(exc, code, capsys, monkeypatch):
    import trialwise.planning.trials

    def broken(**kwargs):
        raise exc

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", broken)
    got, out, err = run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width",
                         "0.1"], capsys)
    assert got == code
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"trialwise: internal error ({type(exc).__name__}")
    assert "this is a bug" in lines[0] and "Traceback" not in err


def test_value_error_from_inside_numpy_is_a_bug_not_an_input_error(capsys, monkeypatch):
    import trialwise.planning.trials

    def broken(**kwargs):
        return np.reshape(np.arange(3), (2, 2))  # ValueError raised by numpy, not by trialwise

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", broken)
    code, _, err = run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width",
                        "0.1"], capsys)
    assert code == 1 and "internal error (ValueError" in err


def test_traceback_on_request(capsys, monkeypatch):
    import trialwise.planning.trials

    def broken(**kwargs):
        raise IndexError("boom")

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", broken)
    monkeypatch.setenv("TRIALWISE_TRACEBACK", "1")
    code, _, err = run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width",
                        "0.1"], capsys)
    assert code == 1 and "Traceback" in err and err.strip().splitlines()[-1].startswith("trialwise: internal error")


@pytest.mark.parametrize("exc, line", [
    (tw.InvalidValueError("`kappa` must be in [-1, 1]; got 2"), "trialwise: error: --kappa must be in [-1, 1]; got 2"),
    (tw.InvalidTypeError("`rng` must be None, an integer seed or a numpy.random.Generator; got 'x'"),
     "trialwise: error: `rng` must be None, an integer seed or a numpy.random.Generator; got 'x'"),
    (FileNotFoundError(2, "No such file or directory", "trials.csv"), "trialwise: error: trials.csv: No such file or "
                                                                      "directory"),
    (OSError(28, "No space left on device"), "trialwise: error: No space left on device"),
])
def test_input_errors_and_unreadable_files_are_one_line_with_exit_2(exc, line, capsys, monkeypatch):
    import trialwise.planning.trials

    def broken(**kwargs):
        raise exc

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", broken)
    monkeypatch.setenv("TRIALWISE_TRACEBACK", "1")  # not a bug: no traceback even on request
    code, _, err = run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width",
                        "0.1"], capsys)
    assert code == 2 and err.strip().splitlines() == [line]


def test_an_input_error_is_told_by_its_class_not_by_where_it_was_raised(capsys, monkeypatch):
    """An InputError raised by a ``raise`` outside trialwise (a wrapper, a plugin) is still bad input; a plain
    ValueError there is a bug."""
    import trialwise.planning.trials

    def user_code(**kwargs):
        err = tw.InvalidValueError("`half_width` must be positive; got -1")
        raise err

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", user_code)  # defined in this test file, not in src/
    argv = ["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1"]
    assert run(argv, capsys)[0] == 2

    def plain(**kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", plain)
    code, _, err = run(argv, capsys)
    assert code == 1 and "internal error (ValueError: boom)" in err


def test_keyboard_interrupt_outside_the_main_thread_is_exit_130(capsys, monkeypatch):
    import threading

    import trialwise.planning.trials

    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(trialwise.planning.trials, "plan_trials", interrupted)
    got = {}
    argv = ["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1"]
    thread = threading.Thread(target=lambda: got.setdefault("code", main(argv)))
    thread.start()
    thread.join()
    assert got["code"] == 130 and capsys.readouterr().err.strip() == "trialwise: interrupted"


# --------------------------------------------------------------------------- library work lives in the library


def test_plan_figure_is_the_library_curve_of_the_plan(tmp_path, capsys):
    """`plan --figure` draws tw.plot.plot_ci_width(interval_curve(plan), plan=plan): the same SVG."""
    import io
    import re

    import matplotlib.pyplot as plt

    from trialwise.planning.curve import interval_curve

    svg = tmp_path / "fig.svg"
    argv = ["plan", "--quiet", "--accuracy-a", "0.8", "--accuracy-b", "0.7", "--kappa", "0.3", "--half-width", "0.15",
            "--seed", "1", "--simulations", "300", "--figure", str(svg)]
    assert run(argv, capsys)[0] == 0
    plan = tw.plan_trials(half_width=0.15, accuracy_a=0.8, accuracy_b=0.7, kappa=0.3, n_simulations=300, rng=1)
    fig = tw.plot.plot_ci_width(interval_curve(plan, rng=1), plan=plan)
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", dpi=150)
    plt.close(fig)

    def drawn(text: bytes) -> bytes:  # without the ids and date that differ between two renderings
        return re.sub(rb'(id|clip-path|xlink:href)="[^"]*"|#[0-9a-z]{8,}|<dc:date>[^<]*</dc:date>', b"", text)

    assert drawn(svg.read_bytes()) == drawn(buf.getvalue())
    assert f"{plan.n} trials reach half-width 0.15".encode() in svg.read_bytes() or plan.n is None


def test_interval_curve_uses_the_design_of_the_plan():
    from trialwise.planning.curve import CURVE_TRIALS, interval_curve

    plan = tw.plan_trials(half_width=0.2, accuracy_a=0.8, accuracy_b=0.7, kappa=0.3, n_simulations=300, rng=0)
    curve = interval_curve(plan, rng=5)
    ref = tw.planning.ci_width(CURVE_TRIALS, 0.8, 0.7, 0.3, n_simulations=300, rng=5)
    np.testing.assert_array_equal(curve.confidence_interval.low, ref.confidence_interval.low)
    np.testing.assert_array_equal(curve.confidence_interval.high, ref.confidence_interval.high)
    assert CURVE_TRIALS.size == 30 and CURVE_TRIALS[0] == 10 and CURVE_TRIALS[-1] == 100_000
    with pytest.raises(tw.InvalidTypeError, match=r"`plan` must be a PlanResult from trialwise.plan_trials; got dict"):
        interval_curve({"n": 3})


@pytest.mark.parametrize("columns, labels, classes", [
    (["cat", "dog"], ["dog", "cat"], ["cat", "dog"]),
    (["m1_cat", "m1_dog", "m1_eel"], ["cat", "dog", "eel"], ["cat", "dog", "eel"]),
    (["p0", "p1", "p2"], [0, 1, 2], ["0", "1", "2"]),
    (["p_1", "p_2"], ["1", "2"], ["1", "2"]),
])
def test_classes_from_columns_reads_the_class_of_each_probability_column(columns, labels, classes):
    from trialwise.comparison.columns import classes_from_columns

    assert classes_from_columns(columns, labels) == classes


@pytest.mark.parametrize("columns, labels, readings", [
    (["m_cat", "m_cats"], ["cat", "cats", "at", "ats"], "at, ats (after 'm_c') or cat, cats (after 'm_')"),
    (["p_10", "p_11"], [0, 1, 10, 11], "0, 1 (after 'p_1') or 10, 11 (after 'p_')"),
])
def test_classes_from_columns_refuses_prefixes_that_name_different_classes(columns, labels, readings):
    """Review HR6, F4: the longest prefix named at, ats (intended: cat, cats); ambiguous names are an error."""
    from trialwise.comparison.columns import classes_from_columns

    with pytest.raises(tw.InvalidValueError, match=re.escape(f"name the classes in more than one way: {readings}; "
                                                             "pass the classes (--classes)")):
        classes_from_columns(columns, labels)
    # prefixes that name the same classes are no ambiguity ("01" is the label 1 by the label rule)
    assert classes_from_columns(["p01", "p02"], [1, 2]) == ["1", "2"]


def test_compare_ambiguous_probability_columns_ask_for_classes(tmp_path, capsys):
    p = tmp_path / "p.csv"
    p.write_text("y,a,b,m_cat,m_cats\ncat,cat,cats,0.3,0.7\ncats,cats,cats,0.6,0.4\nat,cat,cats,0.2,0.8\n"
                 "ats,cats,cats,0.5,0.5\n")
    code, out, err = run(["compare", str(p), "--truth", "y", "--a", "a", "--b", "b", "--proba-a", "m_cat", "m_cats"],
                         capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--proba-a: the columns m_cat, m_cats name the classes in more than one way" in err
    assert err.rstrip().endswith("pass the classes (--classes)")


def test_classes_from_columns_says_when_the_names_do_not_name_the_classes():
    from trialwise.comparison.columns import classes_from_columns

    with pytest.raises(tw.InvalidValueError, match=r"the columns x, y do not name the classes of the truth \(cat, dog\)"):
        classes_from_columns(["x", "y"], ["dog", "cat"])


# --------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    import select
    import signal
    import time

    out = tmp_path / "r.html"
    proc = subprocess.Popen([sys.executable, "-m", "trialwise.cli", "leaderboard", "--resamples", "20000", "--seed",
                             "0", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 120
    try:
        while "bootstrapping" not in seen and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                seen += proc.stderr.readline()
        assert "bootstrapping" in seen, seen
        proc.send_signal(signal.SIGINT)
        rest_out, rest_err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = seen + rest_err
    assert proc.returncode == 130, err
    assert rest_err == "trialwise: interrupted\n"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert not out.exists()


# --------------------------------------------------------------------------- progress


def test_progress_bar_shows_label_counts_elapsed_and_eta_and_is_thread_safe():
    import io
    import threading

    from trialwise.cli.progress import Progress as _Progress

    stream = io.StringIO()
    bar = _Progress("always", stream=stream)
    bar.phase("bootstrap", lambda total: f"bootstrapping {total} conditions × B = 100")
    done = iter(range(1, 47))
    lock = threading.Lock()

    def work():
        for _ in range(23):
            with lock:
                k = next(done)
            bar("bootstrap", k, 46)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    text = stream.getvalue()
    assert text.startswith("trialwise: bootstrapping 46 conditions × B = 100 …\n")
    assert "46/46" in text and text.endswith("\n") and "bootstrap" in text and "0:00" in text
    assert text.count("\r") <= 3  # at most ~10 redraws a second: the first and the last here


def test_progress_eta_and_quiet_and_not_a_terminal():
    import io

    from trialwise.cli.progress import Progress as _Progress

    stream = io.StringIO()
    bar = _Progress("always", stream=stream)
    bar("swap tests", 1, 4)
    assert "1/4" in stream.getvalue() and "ETA" in stream.getvalue()
    quiet = io.StringIO()
    q = _Progress("quiet", stream=quiet)
    q.phase("bootstrap", lambda total: "bootstrapping")
    q("bootstrap", 1, 2)
    q.say("anything")
    assert quiet.getvalue() == ""
    plain = io.StringIO()  # not a terminal: the phase line only, no bar
    p = _Progress("auto", stream=plain)
    p.phase("bootstrap", lambda total: f"bootstrapping {total} conditions")
    for k in range(1, 5):
        p("bootstrap", k, 4)
    assert plain.getvalue() == "trialwise: bootstrapping 4 conditions …\n"


def test_leaderboard_says_what_it_does_on_stderr(capsys):
    code, out, err = run(["leaderboard", "--resamples", "50", "--seed", "0", "--experiments", "edge",
                          "--tests", "all"], capsys)
    assert code == 0
    lines = err.strip().splitlines()
    assert lines[0] == "trialwise: bootstrapping 1 conditions × B = 50 …"
    assert any(line.startswith("trialwise: ") and "combined test(s) between candidates × 50 permutations" in line
               for line in lines)
    code, out, err = run(["leaderboard", "--quiet", "--resamples", "50", "--seed", "0", "--experiments", "edge"],
                         capsys)
    assert code == 0 and "bootstrapping" not in err


# --------------------------------------------------------------------------- warnings: one line per kind


def test_warnings_are_summarised_one_line_per_kind(capsys):
    from trialwise.cli.progress import Warnings as _Warnings

    caught = _Warnings()
    with caught.collect():
        for n in range(2, 40):   # sparse tables: each call warns, each with its own counts in the result
            tw.error_consistency(counts=[[n, 1], [1, 0]], n_resamples=10, rng=0)
    kinds = {w.category.__name__ for w in caught.caught}
    lines = caught.lines()
    assert len(lines) == len(kinds)
    sparse = [line for line in lines if "SparseTableWarning" in line]
    assert sparse and sparse[0].startswith("trialwise: warning (SparseTableWarning ×38): ")


def test_library_warning_text_is_constant_so_python_shows_it_once(tmp_path):
    """Looping error_consistency over many sparse pairs prints one warning, not one per pair."""
    script = tmp_path / "loop.py"
    script.write_text(
        "import trialwise as tw\n"
        "for n in range(5, 200):\n"
        "    res = tw.error_consistency(counts=[[n, 1], [1, 0]], n_resamples=20, rng=0)\n"
        "    assert res.notes\n")
    proc = subprocess.run([sys.executable, "-W", "default", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("SparseTableWarning") == 1, proc.stderr


def test_leaderboard_warnings_are_deduplicated(tmp_path, capsys):
    """texture-vs-shape: the humans saw different images; one line per warning kind."""
    path = tmp_path / "tvs.csv"
    tw.datasets.texture_vs_shape().to_csv(path, index=False)
    code, out, err = run(["leaderboard", str(path), "--quiet", "--resamples", "30", "--seed", "0",
                          "--experiments", "cue-conflict", "edge", "--tests", "none"], capsys)  # B = 30: tests floored
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("trialwise: warning")]
    kinds = [line.split(":")[1] for line in lines]
    assert len(kinds) == len(set(kinds))


# --------------------------------------------------------------------------- unscored candidates


@pytest.fixture(scope="module")
def tvs_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("tvs") / "texture-vs-shape.csv"
    tw.datasets.texture_vs_shape().to_csv(path, index=False)
    return path


def test_unscored_candidates_are_named_with_what_they_lack(tvs_csv, tmp_path, capsys):
    csv = tmp_path / "t.csv"
    code, out, err = run(["leaderboard", str(tvs_csv), "--quiet", "--resamples", "30", "--seed", "0",
                          "--experiments", "cue-conflict", "edge", "--csv", str(csv)], capsys)
    assert code == 0, err
    assert "4 candidate(s) not scored" in out and "`excluded`" not in out
    for name in ("densenet121", "densenet121_train_60_epochs", "resnet101", "squeezenet1_1"):
        assert any(line.strip().startswith(name) and "lacks 1 of 2 (edge); has cue-conflict" in line
                   for line in out.splitlines()), out
    assert "--experiments cue-conflict" in out and "--common-experiments" in out
    table = pd.read_csv(csv, keep_default_na=False, na_values=[""])
    unscored = table[table["status"] == "not scored"]
    assert sorted(unscored["observer"]) == ["densenet121", "densenet121_train_60_epochs", "resnet101", "squeezenet1_1"]
    assert unscored["score"].isna().all() and (unscored["reason"] == "lacks 1 of 2 experiments: edge").all()
    assert set(table.loc[table["status"] != "not scored", "status"]) == {"scored", "reference"}


def test_common_experiments_scores_every_candidate(tvs_csv, tmp_path, capsys):
    csv = tmp_path / "t.csv"
    code, out, err = run(["leaderboard", str(tvs_csv), "--quiet", "--resamples", "30", "--seed", "0",
                          "--common-experiments", "--csv", str(csv), "--tests", "none"], capsys)
    assert code == 0, err
    assert "--common-experiments: scored on the 1 experiment(s) every candidate has: cue-conflict" in out
    table = pd.read_csv(csv)
    assert (table["status"] != "not scored").all() and (table["kind"] == "candidate").sum() == 8
    lib = tw.leaderboard(tw.datasets.texture_vs_shape(), tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
                         n_resamples=30, rng=0)
    np.testing.assert_allclose(table.set_index("observer").loc[list(lib.table["observer"]), "score"],
                               lib.table["score"], atol=1e-12)


# --------------------------------------------------------------------------- the report on data it has never seen


def test_report_on_texture_vs_shape_is_written(tvs_csv, tmp_path, capsys):
    out_html = tmp_path / "r.html"
    code, out, err = run(["leaderboard", str(tvs_csv), "--quiet", "--resamples", "100", "--seed", "0",
                          "--protocol", "flat", "--out", str(out_html)], capsys)
    assert code == 0, err
    html = out_html.read_text()
    assert html.count("data:image/png;base64") >= 4 and "could not be drawn" not in html


def test_a_failing_figure_still_saves_the_tables(tmp_path, capsys, monkeypatch):
    import trialwise.plot

    def broken(*args, **kwargs):
        raise ValueError("'xerr' must not contain negative values")

    monkeypatch.setattr(trialwise.plot, "plot_experiments", broken)
    out_html, out_csv = tmp_path / "r.html", tmp_path / "t.csv"
    code, out, err = run(["leaderboard", "--quiet", "--resamples", "30", "--seed", "0", "--experiments", "edge",
                          "cue-conflict", "--out", str(out_html), "--csv", str(out_csv)], capsys)
    assert code == 1
    assert out_csv.exists() and "<table" in out_html.read_text()
    import html as html_lib

    assert "The figure could not be drawn (ValueError: 'xerr' must not contain negative values)" in \
        html_lib.unescape(out_html.read_text())
    last = err.strip().splitlines()[-1]
    assert last.startswith("trialwise: error: 1 figure(s) of the report could not be drawn (Per experiment")


def test_one_reference_observer_and_too_few_resamples_are_said(tmp_path, capsys):
    t = tw.datasets.model_vs_human("edge")
    t = t[(t["subject"] == "subject-01") | t["subject"].isin(["resnet50", "clip-16"])]
    path = tmp_path / "one-human.csv"
    t.to_csv(path, index=False)
    code, out, err = run(["leaderboard", str(path), "--quiet", "--resamples", "1", "--seed", "0"], capsys)
    assert code == 0, err
    assert "trialwise: warning: --resamples 1 is too few for 95% intervals" in err
    assert "trialwise: warning: only one reference observer (subject-01): the reference row has no value" in err
    assert "trialwise: warning: no difference can reach 0.05 after Holm with B = 1 and 1 test" in err  # own line
    assert "row is undefined" not in err  # said once, by the library
    t = tw.datasets.model_vs_human("edge")
    t = t[(t["observer_type"] == "human") | (t["subject"] == "resnet50")]
    t.to_csv(path, index=False)
    code, out, err = run(["leaderboard", str(path), "--quiet", "--resamples", "200", "--seed", "0"], capsys)
    assert code == 0 and "not defined with a single candidate" in out and "nan" not in out


@pytest.mark.parametrize("argv, fragment", [
    (["leaderboard", "--protocol", "nope"], "argument --protocol: invalid choice: 'nope'"),
    (["leaderboard", "--resamples", "abc"], "argument --resamples: invalid int value: 'abc'"),
    (["nope"], "argument command: invalid choice: 'nope'"),
    ([], "the following arguments are required: command"),
])
def test_option_errors_are_one_line(argv, fragment):
    """argparse's own errors are one line too (not the 22-line usage), exit 2."""
    proc = subprocess.run([sys.executable, "-m", "trialwise.cli", *argv], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trialwise: error: ") and fragment in lines[0], proc.stderr


def test_report_must_be_an_html_file(tmp_path):
    """--out report.pdf used to write HTML into a .pdf file."""
    proc = subprocess.run([sys.executable, "-m", "trialwise.cli", "leaderboard", "--out", str(tmp_path / "r.pdf")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "ending in .html" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r.pdf").exists()


def test_a_reader_that_goes_away_does_not_cost_the_report(tmp_path, monkeypatch):
    """`trialwise leaderboard --out r.html | head -2`: once stdout's reader has gone, the rest of the
    printout is dropped and the report is still written; the exit status is 0."""
    import io

    class Closed(io.StringIO):
        def write(self, text):
            if self.tell() > 200:
                raise BrokenPipeError(32, "Broken pipe")
            return super().write(text)

    out = Closed()
    monkeypatch.setattr(sys, "stdout", out)
    report = tmp_path / "r.html"
    code = main(["leaderboard", "--resamples", "30", "--experiments", "edge", "--seed", "0", "--quiet",
                 "--out", str(report)])
    assert code == 0 and report.exists() and report.stat().st_size > 10_000
    assert out.getvalue().startswith("Leaderboard")


@pytest.mark.parametrize("command, text, error", [
    # HR6 F1: the warning about the skipped row was dropped when an error followed, and the error named row 3
    (["compare", "{f}", "--truth", "truth", "--a", "a", "--b", "b"], "truth,a,b\n1,1,0\n,,\n0,0,0\n1,,1\n",
     "{f}: column 'a' (--a) is empty in data row 4"),
    (["ec", "{f}", "--subjects", "A", "B"], "subject,image,response,truth\nA,i1,dog,dog\nB,i1,dog,cat\n,,,\n"
     "A,i2,cat,cat\nB,i2,,cat\n", "{f} [B]: column 'response' has an empty value (row 5); code non-responses as a "
     "label such as 'na'"),
    (["compare", "{f}", "--truth", "truth", "--proba-a", "p0", "p1", "--b", "b"],
     "truth,p0,p1,b\n1,0.2,0.8,1\n,,,\n0,0.5,0.6,0\n", "{f}: the --proba-a columns: data row 3 sums to 1.1, not 1 "
     "(a row of 2 values rounded to 3 decimals is off by at most 0.001, one not rounded by at most 0.0001); the values are rounded to 1 decimal, too "
     "coarsely to tell rounding from error (rows off by up to 0.1); write 3 or more decimals, or divide each row by "
     "its sum yourself"),
])
def test_an_error_after_a_skipped_row_names_the_file_row_after_the_warning(tmp_path, capsys, command, text, error):
    path = tmp_path / "t.csv"
    path.write_text(text)
    line = text.split("\n").index(next(ln for ln in text.split("\n") if ln and not ln.strip(","))) + 1
    code, out, err = run([a.format(f=path) for a in command], capsys)
    assert code == 2 and out == ""
    assert err.splitlines() == [f"trialwise: warning: {path}: skipped 1 row with every field empty (line {line}): "
                                f"not a trial", f"trialwise: error: {error.format(f=path)}"]


def test_warnings_of_a_command_that_succeeded_are_not_repeated_by_the_next_one(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("truth,a,b\n1,1,0\n0,0,0\n1,1,1\n0,1,0\n,,\n")
    code, _, err = run(["compare", str(path), "--truth", "truth", "--a", "a", "--b", "b", "--json"], capsys)
    assert code == 0 and "warning" not in err  # with --json the warning is in the JSON
    code, _, err = run(["compare", str(path), "--truth", "truth", "--a", "zz", "--b", "b"], capsys)
    assert code == 2 and err.count("skipped 1 row") == 1  # this run's own warning, once


def test_ctrl_c_ends_the_process_only_when_trialwise_is_the_program():
    """Review of issue 29: ``trialwise.cli.main([...])`` called from a notebook installed the handler that
    ends the process (os._exit), so Ctrl-C would have killed the kernel. Called with an argv list, Ctrl-C
    is a KeyboardInterrupt, caught (one line, 130); the program itself (no argv) keeps the handler. In a
    subprocess: the test runner's workers may not run tests in the main thread, where handlers live."""
    code = textwrap.dedent("""
        import signal, sys
        import trialwise.planning.trials
        from trialwise.cli import main
        from trialwise.cli.interrupt import on_interrupt
        seen = []
        def interrupted(**kwargs):
            seen.append(signal.getsignal(signal.SIGINT))
            raise KeyboardInterrupt
        trialwise.planning.trials.plan_trials = interrupted
        argv = ["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1", "--quiet"]
        codes = [main(argv)]
        sys.argv = ["trialwise"] + argv
        codes.append(main())
        print(codes, seen == [signal.default_int_handler, on_interrupt], signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "[130, 130] True True", proc.stdout + proc.stderr
    assert proc.stderr == "trialwise: interrupted\ntrialwise: interrupted\n"
