"""The `trialwise` command line: results, JSON, and one-line errors with exit code != 0."""

import json
import subprocess
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
    ca, cb, _ = tw.paired_correctness(trials[trials.subject == "subject-01"], trials[trials.subject == "resnet50"],
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
         "`confidence_level` must be in (0, 1); got 95"),
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
    assert code == 2 and "bad.csv: not a readable table" in err
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
    assert f"required trials: {n}" in out
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
     "`kappa` = 0.8 is not attainable with accuracies 0.9 and 0.5: it must lie in [-0.2, 0.2]"),
    (["--accuracy-a", "1.5", "--accuracy-b", "0.5", "--kappa", "0.1", "--half-width", "0.05"], "`accuracy_a` must be in"),
    (["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0"], "`half_width` must be in (0, 1)"),
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
    table = pd.read_csv(out_csv)
    lib = tw.leaderboard(tw.datasets.model_vs_human(), tw.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"]),
                         n_resamples=300, rng=0)
    np.testing.assert_allclose(table["score"], lib.table["score"], atol=1e-12)
    np.testing.assert_allclose(table["ci_low"], lib.table["ci_low"], atol=1e-12)
    assert "clip-16" in out and "Kendall" in out
    assert len(pd.read_csv(out_pw)) == len(lib.candidates) - 1
    html = out_html.read_text()
    assert html.count("data:image/png;base64") >= 4 and "<table" in html


def test_leaderboard_on_a_raw_data_folder(tmp_path, capsys):
    from tests.test_benchmark import _write_raw

    raw = tw.datasets.model_vs_human("edge")
    raw = raw[(raw["observer_type"] == "human") | raw["subject"].isin(["resnet50", "clip-16", "vit-b-16"])]
    _write_raw(tmp_path / "raw-data", raw, ["edge"])
    code, out, err = run(["leaderboard", str(tmp_path / "raw-data"), "--resamples", "200", "--seed", "1",
                          "--tests", "all", "--csv", str(tmp_path / "t.csv")], capsys)
    assert code == 0, err
    got = pd.read_csv(tmp_path / "t.csv").set_index("observer")["score"]
    lib = tw.leaderboard(raw, n_resamples=200, rng=1).table.set_index("observer")["score"]
    np.testing.assert_allclose(got[lib.index], lib, atol=1e-12)
    assert "swap tests (all, holm-adjusted)" in out


@pytest.mark.parametrize("args, message", [
    (["leaderboard", "missing.csv"], "missing.csv: no such file"),
    (["leaderboard", "--experiments", "nope", "--resamples", "10"], "names experiment(s) ['nope']"),
    (["leaderboard", "--resamples", "10", "--out", "/no/such/dir/r.html"], "/no/such/dir/r.html: folder"),
])
def test_leaderboard_errors_are_one_line(args, message, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


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
    (["--a", "model_1", "--b", "model_2", "--proba-a", "m1_cat", "m1_dog"], "`proba_a`: row 0 sums to"),
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


def test_compare_missing_label_names_the_column(tmp_path, capsys):
    p = tmp_path / "p.csv"
    p.write_text("y,a,b\ncat,cat,dog\ndog,,dog\n")
    code, _, err = run(["compare", str(p), "--truth", "y", "--a", "a", "--b", "b"], capsys)
    assert code == 2 and "column 'a' (--a) is empty in data row 2" in err
