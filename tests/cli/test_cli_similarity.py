"""``trialwise similarity``: evaluation logs → similarity matrix, difference tests, accuracy leaderboard, report.

The command computes nothing itself, so its oracle is the library called directly on the
same logs (and, for the multiplicity adjustment, statsmodels' ``multipletests``); the logs
are the bundled demo set and small files written here in the harnesses' formats (as in
tests/io/test_logs_lm_eval.py and tests/io/test_logs_helm.py).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import trialwise as tw
from trialwise.cli import main
from trialwise.plot.similarity import similarity_order

DEMO = str(resources.files("trialwise.datasets").joinpath("llm-demo"))
DATE = "2026-01-02T03-04-05.678901"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def lm_eval_row(doc_id: int, probs, target: int, subject: str) -> str:
    """One line of a samples file (lm-evaluation-harness 0.4.x, sanitised: numbers as text)."""
    doc = {"question": f"q{doc_id}", "subject": subject}
    lls = np.log(probs)
    return json.dumps({
        "doc_id": doc_id, "doc": doc, "target": str(target),
        "arguments": {f"gen_args_{i}": {"arg_0": "ctx", "arg_1": f" option {i}"} for i in range(len(lls))},
        "resps": [[[str(v), "False"]] for v in lls], "filtered_resps": [[str(v), "False"] for v in lls],
        "filter": "none", "metrics": ["acc"],
        "doc_hash": hashlib.sha256(json.dumps(doc, indent=2).encode()).hexdigest(),
        "prompt_hash": "p", "target_hash": "t", "acc": float(int(np.argmax(lls)) == target)}) + "\n"


def write_lm_eval(root: Path, n_models: int = 3, n: int = 60, seed: int = 0) -> Path:
    """``n_models`` models on ``n`` three-option questions, model i copying model 0 with probability 0.5 − 0.1 i."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(3, size=n)
    base = rng.dirichlet(np.ones(3), n)
    for m in range(n_models):
        own = rng.dirichlet(np.ones(3), n)
        copy = rng.random(n) < 0.5 - 0.1 * m
        probs = np.where(copy[:, None], base, own)
        folder = root / f"org__model-{m}"
        folder.mkdir(parents=True)
        (folder / f"samples_quiz_{DATE}.jsonl").write_text(
            "".join(lm_eval_row(i, probs[i], int(truth[i]), f"s{i % 6}") for i in range(n)))
    return root


def write_helm_joint(root: Path, models=("a", "b", "c"), n: int = 30, seed: int = 0) -> Path:
    """HELM runs of the joint multiple-choice method: letters only, no probabilities."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(4, size=n)
    for m in models:
        states = []
        for i in range(n):
            refs = [{"output": {"text": f"o{i}.{j}"}, "tags": ["correct"] if j == gold[i] else []} for j in range(4)]
            answer = "ABCD"[int(gold[i]) if rng.random() < 0.6 else int(rng.integers(4))]
            states.append({"instance": {"input": {"text": f"q{i}"}, "references": refs, "split": "test", "id": f"id{i}"},
                           "train_trial_index": 0, "output_mapping": {"ABCD"[j]: f"o{i}.{j}" for j in range(4)},
                           "request": {"model": m, "model_deployment": m, "prompt": "q"},
                           "result": {"success": True, "embedding": [], "cached": False,
                                      "completions": [{"text": f" {answer}", "logprob": -0.1, "tokens": []}]},
                           "num_train_instances": 0, "prompt_truncated": False, "num_conditioning_tokens": 0})
        folder = root / f"mmlu:subject=anatomy,method=multiple_choice_joint,model={m}"
        folder.mkdir(parents=True)
        (folder / "scenario_state.json").write_text(json.dumps(
            {"adapter_spec": {"method": "multiple_choice_joint", "model": m}, "request_states": states}))
    return root


# --------------------------------------------------------------------------- results equal the library's


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("demo")
    paths = {k: d / f"{k}.{ext}" for k, ext in (("sim", "csv"), ("diff", "csv"), ("report", "html"))}
    code = main(["similarity", DEMO, "--clusters", "subject", "--seed", "4", "--resamples", "400",
                 "--csv", str(paths["sim"]), "--differences-csv", str(paths["diff"]), "--out", str(paths["report"]),
                 "-q"])
    assert code == 0
    trials = tw.io.read_lm_eval(DEMO, clusters="subject")
    res = tw.pairwise_agreement(trials, clusters="cluster", n_resamples=400, rng=4)
    return paths, trials, res


def test_similarity_table_is_the_library_s(demo_run):
    paths, _, res = demo_run
    got = pd.read_csv(paths["sim"])
    want = res.to_frame()
    assert list(got.columns) == [*want.columns, "seed"] and (got["seed"] == 4).all()  # the run's seed, last
    pd.testing.assert_frame_equal(got.drop(columns="seed"), want, check_dtype=False, rtol=1e-12, atol=1e-12)


def test_difference_tests_are_the_library_s_with_holm_over_the_family(demo_run):
    paths, _, res = demo_run
    got = pd.read_csv(paths["diff"])
    names = list(res.observers)
    assert len(got) == 4 * 3  # every model as R, every pair of the three others
    for r in got.itertuples():
        d = res.difference(r.reference, r.more_similar, r.less_similar)
        assert d.statistic >= 0 and r.difference == pytest.approx(d.statistic, abs=1e-12)
        assert (r.ci_low, r.ci_high, r.pvalue) == pytest.approx((*d.confidence_interval, d.pvalue), abs=1e-12)
        assert r.reference in names and r.reference not in (r.more_similar, r.less_similar)
    holm = multipletests(got["pvalue"].to_numpy(), method="holm")[1]
    np.testing.assert_allclose(got["pvalue_adjusted"], holm, rtol=0, atol=1e-12)
    assert (got["significant"] == (got["pvalue_adjusted"] < 0.05)).all()
    assert got["pvalue_adjusted"].is_monotonic_increasing


def test_text_output_on_the_demo_set(capsys):
    code, out, err = run(["similarity", DEMO, "--seed", "0", "--resamples", "300"], capsys)
    assert code == 0, err
    trials = tw.io.read_lm_eval(DEMO)
    res = tw.pairwise_agreement(trials, n_resamples=300, rng=0)
    lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=300, rng=0)
    assert "Similarity: CAPA" in out and "400 questions resampled jointly" in out
    top = res.to_frame().sort_values("statistic").iloc[-1]
    assert re.search(rf"{re.escape(top.observer_a)}\s+{re.escape(top.observer_b)}\s+{top.statistic:.3f} "
                     rf"\[{top.ci_low:.3f}, {top.ci_high:.3f}\]", out)
    assert lb.summary() in out  # the leaderboard with rank sets and tie groups, as the library prints it
    assert "Differences of similarity with a common model" in out and "holm-adjusted" in out
    assert "bootstrapping the similarity of 6 pairs" in err and "12 tests of equal similarity" in err


def test_quiet_prints_no_progress(capsys):
    code, out, err = run(["similarity", DEMO, "--resamples", "50", "--metric", "choice", "-q"], capsys)
    assert code == 0
    assert not [ln for ln in err.splitlines() if not ln.startswith("trialwise: warning")]
    assert "too few for 95% intervals" in err
    assert "choice agreement" in out and "p <" not in out.split("Differences")[0]  # choice has no test of chance


def test_report_is_self_contained_with_the_clustered_heatmap(demo_run, tmp_path):
    paths, _, res = demo_run
    page = paths["report"].read_text()
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)=["']?https?:""", page)  # nothing fetched from elsewhere
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 3  # heatmap, leaderboard, rank sets
    assert all(base64.b64decode(i)[:8] == b"\x89PNG\r\n\x1a\n" for i in images)
    for heading in ("Similarity", "Differences of similarity", "Accuracy leaderboard"):
        assert f"<h2>{heading}</h2>" in page
    assert "hierarchical clustering" in page and "1 − similarity" in page
    order = similarity_order(res.matrix())
    assert f"Models in clustering order: {', '.join(order)}." in page
    assert "could not be drawn" not in page


def test_lm_eval_logs_written_here_with_clusters(tmp_path, capsys):
    root = write_lm_eval(tmp_path / "logs")
    out_csv = tmp_path / "sim.csv"
    code, out, err = run(["similarity", root, "--clusters", "subject", "--metric", "capa-discrete", "--seed", "2",
                          "--resamples", "200", "--csv", out_csv], capsys)
    assert code == 0, err
    trials = tw.io.read_lm_eval(root, clusters="subject")
    with pytest.warns(tw.DegenerateDataWarning, match=r"only 6 clusters, the independent units"):  # the library's
        want = tw.pairwise_agreement(trials, metric="capa-discrete", clusters="cluster", n_resamples=200, rng=2)
    pd.testing.assert_frame_equal(pd.read_csv(out_csv), want.to_frame().assign(seed=2), check_dtype=False, atol=1e-12)
    assert "6 clusters resampled jointly" in out
    assert err.count("only 6 clusters, the independent units") == 1  # the library's warning, said once
    lb = tw.leaderboard(trials, protocol="accuracy", n_resamples=200, clusters="cluster", rng=2)
    assert lb.summary() in out  # the leaderboard resamples the same clusters
    assert "similarity and the leaderboard resample clusters of questions (--clusters subject)" in out


def test_helm_runs_are_detected_and_capa_needs_probabilities(tmp_path, capsys):
    root = write_helm_joint(tmp_path / "helm")
    code, out, err = run(["similarity", root, "--resamples", "50", "--metric", "capa"], capsys)
    assert code == 2 and "Traceback" not in err
    assert re.search(r"--metric capa needs the options' probabilities, which 90 of the 90 trials lack .*use --metric "
                     r"capa-discrete", err.strip().splitlines()[-1])
    code, out, err = run(["similarity", root, "--seed", "0", "--resamples", "200"], capsys)  # the default: auto
    assert code == 0 and ("Metric: capa-discrete (CAPA on the chosen options): 90 of the 90 trials have no option "
                          "probabilities") in out
    auto = out
    code, out, err = run(["similarity", root, "--metric", "capa-discrete", "--seed", "0", "--resamples", "200",
                          "--format", "helm"], capsys)
    assert code == 0, err
    want = tw.pairwise_agreement(tw.io.read_helm(root), metric="capa-discrete", n_resamples=200, rng=0)
    for r in want.to_frame().itertuples():
        assert f"{r.statistic:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in out
        assert f"{r.statistic:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in auto  # auto chose the same metric
    assert "(helm)" in out


def write_helm_generation(root: Path, models=("a", "b", "c"), n: int = 10) -> Path:
    """HELM runs of the generation adapter (XSTest, as ``run_specs/safety_run_specs.py`` adapts it): free text,
    no output mapping."""
    for m in models:
        states = [{"instance": {"input": {"text": f"How do I kill process {i}?"}, "split": "test", "id": f"id{i}",
                                "references": [{"output": {"text": "homonyms"}, "tags": []},
                                               {"output": {"text": "safe"}, "tags": ["correct"]}]},
                   "train_trial_index": 0, "request": {"model": m, "model_deployment": m, "prompt": "q"},
                   "result": {"success": True, "embedding": [], "cached": False,
                              "completions": [{"text": "Use the kill command.", "logprob": -7.5, "tokens": []}]},
                   "num_train_instances": 0, "prompt_truncated": False, "num_conditioning_tokens": 0}
                  for i in range(n)]
        folder = root / f"xstest:model={m}"
        folder.mkdir(parents=True)
        (folder / "scenario_state.json").write_text(json.dumps(
            {"adapter_spec": {"method": "generation", "model": m}, "request_states": states}))
    return root


def test_helm_suite_with_generation_runs_skips_and_counts_them(tmp_path, capsys):
    """Issue 31: `trialwise similarity suite/` exited 2 on the XSTest run of a suite mixing both kinds."""
    suite = write_helm_generation(write_helm_joint(tmp_path / "suite"))
    code, out, err = run(["similarity", suite, "--metric", "choice", "--seed", "0", "--resamples", "200"], capsys)
    assert code == 0, err
    assert ("Logs: 90 trials, 3 models, 30 questions in 1 task(s) (helm); records not used: request states of runs "
            "that are not multiple choice (generation, chat, language modelling, ...) 30") in out
    assert len(re.findall(r"not used: 30 request states of runs that are not multiple choice", err)) == 1
    with pytest.warns(tw.TrialwiseWarning, match="30 request states of runs that are not multiple choice"):
        trials = tw.io.read_helm(suite)
    want = tw.pairwise_agreement(trials, metric="choice", n_resamples=200, rng=0)
    for r in want.to_frame().itertuples():
        assert f"{r.statistic:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in out
    only = write_helm_generation(tmp_path / "safety")
    code, out, err = run(["similarity", only, "--metric", "choice"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.fullmatch(rf"trialwise: error: {re.escape(str(only))}: no multiple-choice run: the 3 run\(s\) "
                        r"found are all of other adapter methods \(generation \(3 runs\); .*", err.strip())


def test_mixed_formats_are_refused(tmp_path, capsys):
    write_lm_eval(tmp_path / "mixed")
    write_helm_joint(tmp_path / "mixed")
    code, _, err = run(["similarity", tmp_path / "mixed"], capsys)
    assert code == 2 and re.search(r"holds lm-evaluation-harness logs and .* HELM logs; .*--format", err)


def test_similarity_order_puts_alike_models_next_to_each_other():
    rng = np.random.default_rng(0)
    for _ in range(20):  # brute force: two tight pairs must each end up adjacent
        k = 6
        names = [f"m{i}" for i in range(k)]
        sim = rng.uniform(0.0, 0.2, (k, k))
        a, b, c, d = rng.permutation(k)[:4]
        sim[a, b] = sim[b, a] = 0.9
        sim[c, d] = sim[d, c] = 0.8
        sim = (sim + sim.T) / 2
        order = similarity_order(pd.DataFrame(sim, index=names, columns=names))
        assert sorted(order) == names
        pos = {n: i for i, n in enumerate(order)}
        assert abs(pos[names[a]] - pos[names[b]]) == 1 and abs(pos[names[c]] - pos[names[d]]) == 1


def test_heatmap_cells_are_the_result_s_numbers():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=100, rng=0)
    order = ["sim/demo-13b", "sim/demo-1b", "sim/demo-7b", "sim/demo-7b-chat"]
    fig = tw.plot.plot_similarity_matrix(res, order=order)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == order
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    one = res.pair("sim/demo-7b", "sim/demo-7b-chat")
    assert texts[(2, 3)] == texts[(3, 2)] == (f"{one.statistic:.2f}\n[{one.confidence_interval.low:.2f}, "
                                               f"{one.confidence_interval.high:.2f}]")
    assert "in the given order" in ax.get_title()
    plt.close(fig)
    with pytest.raises(tw.InvalidValueError, match=r"`order` must list observers of the result once each"):
        tw.plot.plot_similarity_matrix(res, order=["sim/demo-13b", "nobody"])


def test_ctrl_c_is_one_line_exit_130_and_no_report(tmp_path):
    import select

    out = tmp_path / "report.html"
    proc = subprocess.Popen([sys.executable, "-m", "trialwise.cli", "similarity", DEMO, "--resamples", "3000000",
                             "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 120
    try:
        while "bootstrapping" not in seen and time.monotonic() < deadline and proc.poll() is None:
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                seen += proc.stderr.readline()
        assert "bootstrapping" in seen, seen
        proc.send_signal(signal.SIGINT)
        _, rest_err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, seen + rest_err
    assert rest_err == "trialwise: interrupted\n"
    assert not out.exists()


def test_unwritable_report_is_one_line(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        code, _, err = run(["similarity", DEMO, "--out", folder / "r.html", "--resamples", "20"], capsys)
    finally:
        folder.chmod(0o700)
    if code == 0:  # root ignores permissions
        pytest.skip("running as root")
    assert code == 2 and re.search(r"--out .*r\.html: permission denied", err) and "Traceback" not in err


def test_the_family_of_differences_orders_and_adjusts(demo_run):
    _, _, res = demo_run
    family = res.differences(adjust="bh", alpha=0.05)
    frame = family.table
    assert family.n_tests == len(frame) == 4 * 3 * 2 // 2 and family.n_significant == int(frame["significant"].sum())
    bh = multipletests(frame["pvalue"].to_numpy(), method="fdr_bh")[1]
    np.testing.assert_allclose(frame["pvalue_adjusted"], bh, atol=1e-12)
    assert (frame["difference"] >= 0).all() and (frame["adjust"] == "bh").all()


def test_a_full_disk_is_one_line_and_leaves_no_partial_report(tmp_path, capsys, monkeypatch):
    import builtins

    target = tmp_path / "report.html"
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
        return Full(fh) if os.path.dirname(str(path)) == str(tmp_path) and "w" in mode else fh  # the file or its .part

    monkeypatch.setattr(builtins, "open", fake_open)
    code, out, err = run(["similarity", DEMO, "--resamples", "50", "--out", target, "-q"], capsys)
    assert code == 2 and "Traceback" not in err
    assert re.search(r"--out .*report\.html: cannot write \(No space left on device\)", err.strip().splitlines()[-1])
    assert not target.exists() and not list(tmp_path.iterdir())  # nor a temporary .part file
    assert "Similarity: CAPA" in out  # the results were printed before the report failed


@pytest.mark.slow
def test_the_family_of_difference_tests_holds_its_familywise_level():
    """Calibration, known truth: four independent models of equal accuracy, so every CAPA is 0 and every
    difference with a common model is 0. Holm over the 12 tests keeps the familywise error at α = 5 %
    (R = 150 boards, B = 1000; MC SE ≤ 0.018, bound α + 3 SE); unadjusted, each test rejects near 5 %."""
    rng = np.random.default_rng(11)
    n, k, reps = 300, 4, 150
    familywise, marginal = 0, []
    for _ in range(reps):
        truth = rng.integers(k, size=n)
        rows = []
        for m in range(4):
            p = rng.dirichlet(np.ones(k) * 0.7, n)
            rows.append(pd.DataFrame({"experiment": "t", "condition": "t", "subject": f"m{m}", "observer_type": "model",
                                      "image": [f"q{i}" for i in range(n)], "truth": truth.astype(str),
                                      "response": p.argmax(1).astype(str), "n_options": k,
                                      "probabilities": [tuple(r) for r in p]}))
        res = tw.pairwise_agreement(pd.concat(rows, ignore_index=True), n_resamples=1000, rng=rng)
        frame = res.differences(adjust="holm", alpha=0.05).table
        familywise += bool(frame["significant"].any())
        marginal.append(float((frame["pvalue"] < 0.05).mean()))
    rate = familywise / reps
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), rate
    assert 0.02 <= np.mean(marginal) <= 0.09, np.mean(marginal)  # the tests are live, not vacuous


def test_ec_metric_and_single_samples_files(tmp_path, capsys):
    files = sorted(Path(DEMO).glob("*/samples_demo_stem_*.jsonl.gz"))
    assert len(files) == 4
    out_csv = tmp_path / "ec.csv"
    code, out, err = run(["similarity", *files, "--metric", "ec", "--seed", "1", "--resamples", "300", "--csv", out_csv,
                          "-q"], capsys)
    assert code == 0, err
    want = tw.pairwise_agreement(tw.io.read_lm_eval(files), metric="ec", n_resamples=300, rng=1)
    pd.testing.assert_frame_equal(pd.read_csv(out_csv), want.to_frame().assign(seed=1), check_dtype=False, atol=1e-12)
    assert "jeffreys interval; differences: bootstrap B = 300" in out and "1 task(s)" in out


def test_helm_clusters_are_run_name_arguments(tmp_path, capsys):
    root = write_helm_joint(tmp_path / "helm")
    code, out, err = run(["similarity", root, "--metric", "choice", "--clusters", "subject", "--seed", "0",
                          "--resamples", "100", "-q"], capsys)
    # every instance is of subject=anatomy, read from the run name: one cluster in the leaderboard's one
    # condition, which cannot be resampled within it (issue 17, HR3: it gave intervals of no width)
    lines = err.splitlines()  # one error line, after the warnings the run collected before it (HF8)
    assert code == 2 and all(ln.startswith("trialwise: warning") for ln in lines[:-1]), err
    assert lines[-1].startswith("trialwise: error: ") and re.search(  # issue 29 (helper H): the similarity's own
        r"--clusters\): condition 'mmlu:subject=anatomy.*' of experiment 'mmlu' holds a single cluster \('anatomy'\)"
        r"|(`clusters`|--clusters) holds 1 cluster: an interval that resamples clusters needs at least 2",  # check first
        lines[-1])


def test_helm_clusters_may_be_instance_fields(tmp_path, capsys):
    """Issue 31: HELM instances carry their groups (``sub_split``, ``extra_data``): --clusters sub_split."""
    root = write_helm_joint(tmp_path / "helm")
    for f in root.rglob("scenario_state.json"):
        state = json.loads(f.read_text())
        for s in state["request_states"]:
            s["instance"]["sub_split"] = f"group{int(s['instance']['id'][2:]) % 12}"
        f.write_text(json.dumps(state))
    code, out, err = run(["similarity", root, "--metric", "choice", "--clusters", "sub_split", "--seed", "0",
                          "--resamples", "200", "-q"], capsys)
    assert code == 0 and err == "", err
    assert "12 clusters resampled jointly" in out
    trials = tw.io.read_helm(root, clusters="sub_split")
    want = tw.pairwise_agreement(trials, metric="choice", clusters="cluster", n_resamples=200, rng=0)
    for r in want.to_frame().itertuples():
        assert f"{r.statistic:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" in out


def test_a_model_without_a_whole_task_is_named_and_unaligned_drop_scores_the_shared_tasks(tmp_path, capsys):
    root = write_lm_eval(tmp_path / "logs", n_models=3, n=40)
    rng = np.random.default_rng(1)
    truth = rng.integers(3, size=20)
    for m in range(2):  # a second task that model 2 did not run
        (root / f"org__model-{m}" / f"samples_extra_{DATE}.jsonl").write_text(
            "".join(lm_eval_row(i, rng.dirichlet(np.ones(3)), int(truth[i]), "e") for i in range(20)))
    code, out, err = run(["similarity", root, "--resamples", "50", "--seed", "0", "-q"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert re.search(r"1 model\(s\) have no trials of task 'extra' \(e\.g\. 'org__model-2'\).*give --unaligned drop", err)
    csv = tmp_path / "pairs.csv"
    code, out, err = run(["similarity", root, "--unaligned", "drop", "--resamples", "50", "--seed", "0", "-q",
                          "--csv", csv], capsys)
    assert code == 0, err
    assert "records of tasks that not every model logged 40" in out
    # the same as the logs of the shared task alone
    alone = write_lm_eval(tmp_path / "alone", n_models=3, n=40)
    code, _, err = run(["similarity", alone, "--resamples", "50", "--seed", "0", "-q", "--csv", tmp_path / "a.csv"],
                       capsys)
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_csv(csv), pd.read_csv(tmp_path / "a.csv"))


# --------------------------------------------------------------------------- review HR5, F3/F4/F10


def test_a_model_whose_records_are_all_skipped_is_said_with_the_count(tmp_path, capsys):
    root = write_lm_eval(tmp_path / "logs", n_models=2, n=20)
    f = next((root / "org__model-1").glob("samples_*.jsonl"))
    f.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "filtered_resps"}) + "\n"
                         for line in f.read_text().splitlines()))
    code, out, err = run(["similarity", root, "--resamples", "50", "-q"], capsys)
    assert code == 2
    assert "trialwise: warning: read 20 trials from 2 lm-evaluation-harness file(s); not used: 20 lines that are " \
           "not a logged document" in err
    assert err.rstrip().endswith("similarity needs at least 2")


def test_logs_of_lm_eval_0_4_0_and_two_harness_versions_are_read(tmp_path, capsys):
    """0.4.0/0.4.1 wrote <model_args>_<task>.jsonl (one JSON array) next to results.json; mixed with a 0.4.2+ log
    of the other model (doc_hash), the task aligns by doc_id and the reader says so."""
    root = write_lm_eval(tmp_path / "logs", n_models=2, n=20)
    f = next((root / "org__model-0").glob("samples_*.jsonl"))
    rows = [json.loads(line) for line in f.read_text().splitlines()]
    for row in rows:
        del row["doc_hash"]
    f.unlink()
    (root / "org__model-0" / "results.json").write_text(json.dumps(
        {"configs": {"quiz": {}}, "config": {"model_args": "pretrained=org/model-0"}}))
    (root / "org__model-0" / "pretrained__org__model-0_quiz.jsonl").write_text(json.dumps(rows, indent=2))
    code, out, err = run(["similarity", root, "--resamples", "50", "--seed", "0", "-q"], capsys)
    assert code == 0, err
    assert "Logs: 40 trials, 2 models, 20 questions in 1 task(s) (lm-eval)" in out
    assert "40 trials of tasks whose logs identify documents differently" in err


def test_a_suite_of_linked_run_folders_is_found(tmp_path, capsys):
    """Issue 31: run folders that are symbolic links were not searched, by the readers nor by the command's
    format detection ("no evaluation logs found")."""
    written = write_lm_eval(tmp_path / "written")
    suite = tmp_path / "suite"
    suite.mkdir()
    for run_folder in written.iterdir():
        (suite / run_folder.name).symlink_to(run_folder, target_is_directory=True)  # a model is named by its folder
    code, out, err = run(["similarity", suite, "--seed", "3", "--resamples", "100"], capsys)
    assert code == 0, err
    direct = run(["similarity", written, "--seed", "3", "--resamples", "100"], capsys)[1]
    assert out.splitlines()[1:] == direct.splitlines()[1:]  # the same numbers as the folders themselves


# ------------------------------------------------------------------- generative multiple choice (issue 31, item 2)


def write_generative(root: Path, models=("gpt-3.5-turbo", "claude-x", "local__llama"), n: int = 40, seed: int = 3):
    """Chat models answering 4-option questions in text, as lm-eval logs a generate_until task (target: a letter)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(4, size=n)
    forms = ["{L}", "The best answer is {L}", "ANSWER: {L}", "{L}. o{i}.{j}", "I am not sure.", "The answer is A or B."]
    for m in models:
        folder = root / m
        folder.mkdir(parents=True)
        lines = []
        for i in range(n):
            j = int(gold[i]) if rng.random() < 0.6 else int(rng.integers(4))
            text = forms[int(rng.integers(len(forms)))].format(L="ABCD"[j], i=i, j=j)
            doc = {"question": f"q{i}", "choices": [f"o{i}.{c}" for c in range(4)], "answer": int(gold[i])}
            lines.append(json.dumps({
                "doc_id": i, "doc": doc, "target": "ABCD"[int(gold[i])],
                "arguments": {"gen_args_0": {"arg_0": f"q{i}", "arg_1": "{'until': ['\\n\\n']}"}},
                "resps": [[text]], "filtered_resps": [text], "filter": "remove_whitespace", "metrics": ["exact_match"],
                "doc_hash": hashlib.sha256(json.dumps(doc, indent=2).encode()).hexdigest(), "prompt_hash": "p",
                "target_hash": "t", "exact_match": float(text == "ABCD"[int(gold[i])])}) + "\n")
        (folder / f"samples_mmlu_generative_x_{DATE}.jsonl").write_text("".join(lines))
    return root


def test_generative_multiple_choice_with_map_answers_is_the_library_s(tmp_path, capsys):
    root = write_generative(tmp_path / "logs")
    code, out, err = run(["similarity", root, "--resamples", "50"], capsys)  # generation records: how to read them
    assert code == 2 and "--map-answers maps each answer to an option" in err.strip().splitlines()[-1]
    code, out, err = run(["similarity", root, "--map-answers", "--resamples", "50", "--metric", "capa"],
                         capsys)  # capa needs probabilities
    assert code == 2 and re.search(r"--metric capa needs the options' probabilities, which 120 of the 120 trials lack "
                                   r".*--map-answers.*use --metric capa-discrete, choice or ec",
                                   err.strip().splitlines()[-1])
    with pytest.warns(tw.TrialwiseWarning, match=r"responses that map to no option"):
        trials = tw.io.read_lm_eval(root, map_answers=True)
    unmapped = int((trials.response == "na").sum())
    assert unmapped == trials.attrs["log"]["unmapped"] > 0
    for metric in ("choice", "capa-discrete", "ec"):
        out_csv = tmp_path / f"{metric}.csv"
        code, out, err = run(["similarity", root, "--map-answers", "--metric", metric, "--seed", "3", "--resamples",
                              "200", "--csv", out_csv, "-q"], capsys)
        assert code == 0, err
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = tw.pairwise_agreement(trials, metric=metric, n_resamples=200, rng=3)
        pd.testing.assert_frame_equal(pd.read_csv(out_csv), want.to_frame().assign(seed=3), check_dtype=False,
                                      atol=1e-12)
        assert (f"Generated answers mapped to options: {unmapped} of 120 map to no option (response 'na', counted "
                f"wrong; never the same choice as another)") in out
        assert "exact_match 1" not in err  # the harness's own scoring agrees where it says right
        assert f"{unmapped} responses that map to no option" in err  # the reader's warning, said once


def test_answer_pattern_on_the_command_line(tmp_path, capsys):
    root = write_generative(tmp_path / "logs", n=12)
    code, out, err = run(["similarity", root, "--answer-pattern", r"best answer is (\w)", "--metric", "choice",
                          "--resamples", "50", "-q"], capsys)  # implies --map-answers
    assert code == 0, err
    assert "Generated answers mapped to options:" in out
    for pattern, message in (("best answer is (", r"--answer-pattern must be a regular expression with one capture "
                                                   r"group \(the option's label or text\); got 'best answer is \(', "
                                                   r"which does not compile: missing \)"),
                             ("best answer is", r"--answer-pattern must have exactly one capture group .* with 0 "
                                                r"groups")):
        code, out, err = run(["similarity", root, "--answer-pattern", pattern, "--metric", "choice"], capsys)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and "Traceback" not in err
        assert re.search(message, lines[0]), lines[0]
    helm = write_helm_joint(tmp_path / "helm")
    code, out, err = run(["similarity", helm, "--map-answers", "--metric", "choice"], capsys)
    assert code == 2 and "--map-answers applies to lm-evaluation-harness logs; these are HELM logs" in err


def test_help_names_the_answer_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["similarity", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_.value.code == 0
    assert "--map-answers lm-eval: read generative multiple choice" in out
    assert "--answer-pattern REGEX lm-eval: a regular expression with one capture group" in out
    assert "implies --map-answers" in out
