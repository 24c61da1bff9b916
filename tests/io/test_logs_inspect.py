"""read_inspect: Inspect AI logs written by inspect-ai 0.3.285 itself, offline, checked against its own scores.

The logs are written here by ``inspect_ai.eval`` with the ``mockllm`` provider (no network): its
outputs are given as ``custom_outputs`` with ``usage`` set, because mockllm otherwise counts
tokens with tiktoken, which downloads its encoding. Both formats (``log_format="eval"``, a
Zstandard-compressed zip; ``"json"``), with ``epochs=2``. The oracle is Inspect's own reading of
the same logs (``inspect_ai.log.read_eval_log``): the ``accuracy`` metric in the log's results,
and every sample's logged score value.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import trialwise as tw
import trialwise.io.logs.inspect_ai
from trialwise.cli import main

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import choice, includes, match  # noqa: E402
from inspect_ai.solver import generate, multiple_choice, solver  # noqa: E402

EPOCHS = 2
N_QUESTIONS = 6

# inspect-ai's own warnings while it runs (deprecations of its dependencies; anyio streams it leaves to the garbage
# collector) are not ours to fix: the suite's filterwarnings = error would make them failures
pytestmark = [pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]


def inspect_run(*args, **kwargs):
    """inspect_ai.eval with its internal warnings silenced (see pytestmark), its garbage collected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logs = inspect_eval(*args, **kwargs)
        gc.collect()  # the streams inspect leaves behind warn now, in this test, not in a later one
    return logs


def outputs(model: str, texts: list[str]):
    """mockllm with fixed completions (usage set: no tiktoken download)."""
    out = []
    for text in texts:
        o = ModelOutput.from_content(model=model, content=text)
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        out.append(o)
    return get_model(model, custom_outputs=out)


def colours() -> Task:
    samples = [Sample(input=f"Which colour is thing {i}?", choices=["red", "green", "blue"], target="ABC"[i % 3],
                      id=f"q{i}", metadata={"topic": f"t{i % 2}", "nested": {"level": str(i % 3)}})
               for i in range(N_QUESTIONS)]
    return Task(dataset=samples, solver=multiple_choice(), scorer=choice(), name="colours")


def arithmetic(scorer=None) -> Task:
    samples = [Sample(input=f"What is {i} + {i}?", target=str(2 * i), id=i) for i in range(4)]
    return Task(dataset=samples, solver=generate(), scorer=scorer or match(), name="arithmetic")


def run(task: Task, model: str, texts: list[str], folder: Path, fmt: str, **kwargs) -> Path:
    logs = inspect_run(task, model=outputs(model, texts), log_dir=str(folder), display="none", log_format=fmt,
                        **kwargs)
    assert logs[0].status == "success", logs[0].error
    return Path(logs[0].location)


ANSWERS = {  # per model, one completion per generate call (EPOCHS × N_QUESTIONS); "I am not sure": no option
    "mockllm/alpha": ["ANSWER: A", "ANSWER: B", "ANSWER: A", "ANSWER: C", "ANSWER: B", "I am not sure"] * EPOCHS,
    "mockllm/beta": ["ANSWER: A", "ANSWER: C", "ANSWER: C", "ANSWER: A", "ANSWER: B", "ANSWER: B",
                     "ANSWER: B", "ANSWER: B", "ANSWER: C", "ANSWER: A", "ANSWER: C", "ANSWER: C"],
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """Two models on the multiple-choice task, in both formats; a match() task; a run with an errored sample."""
    root = tmp_path_factory.mktemp("inspect")
    out: dict[str, object] = {}
    for fmt in ("eval", "json"):
        out[fmt] = [run(colours(), m, texts, root / fmt, fmt, epochs=EPOCHS) for m, texts in ANSWERS.items()]
    out["once"] = [run(colours(), m, texts[:N_QUESTIONS], root / "once", "eval") for m, texts in ANSWERS.items()]
    out["match"] = [run(arithmetic(), m, texts, root / "match", "eval") for m, texts in
                    (("mockllm/alpha", ["0", "2", "5", "6"]), ("mockllm/beta", ["The answer is 0", "2", "4", "7"]))]
    return out


def test_eval_and_json_logs_give_inspects_own_accuracy_and_scores(logs):
    for fmt in ("eval", "json"):
        with pytest.warns(tw.TrialwiseWarning, match=r"answers that choose no single option"):
            trials = tw.io.read_inspect([str(p) for p in logs[fmt]])
        assert len(trials) == 2 * EPOCHS * N_QUESTIONS
        assert sorted(trials["replicate"].unique()) == [1, 2]
        assert set(trials["n_options"]) == {3} and trials["probabilities"].isna().all()
        assert trials.attrs["log"]["metric_mismatches"] == 0 and trials.attrs["log"]["scorer"] == "choice"
        for path in logs[fmt]:
            log = read_eval_log(str(path))  # the oracle: Inspect's reading of its own log
            mine = trials[trials["subject"] == log.eval.model]
            assert mine["correct"].mean() == pytest.approx(log.results.scores[0].metrics["accuracy"].value, abs=1e-12)
            for sample in log.samples:
                row = mine[(mine["image"] == str(sample.id)) & (mine["replicate"] == sample.epoch)]
                assert len(row) == 1
                assert bool(row["correct"].iloc[0]) == (sample.scores["choice"].value == "C")
                assert row["truth"].iloc[0] == str("ABC".index(sample.target))
                answer = sample.scores["choice"].answer
                assert row["response"].iloc[0] == (str("ABC".index(answer)) if answer else "na")
    with pytest.warns(tw.TrialwiseWarning):
        a = tw.io.read_inspect([str(p) for p in logs["eval"]])
    with pytest.warns(tw.TrialwiseWarning):
        b = tw.io.read_inspect([str(p) for p in logs["json"]])
    columns = ["subject", "image", "replicate", "truth", "response", "correct"]
    assert a[columns].equals(b[columns])  # the same runs in the two formats


def test_match_scorer_gives_scored_trials_without_options(logs):
    trials = tw.io.read_inspect([str(p) for p in logs["match"]])
    assert set(trials["n_options"]) == {0} and "score" in trials.columns and "replicate" not in trials.columns
    assert trials["correct"].equals(trials["score"] == 1.0)
    for path in logs["match"]:
        log = read_eval_log(str(path))
        mine = trials[trials["subject"] == log.eval.model]
        assert mine["score"].mean() == pytest.approx(log.results.scores[0].metrics["accuracy"].value, abs=1e-12)
        assert list(mine["truth"]) == [s.target for s in sorted(log.samples, key=lambda s: str(s.id))]
    assert trials.attrs[tw.io.trials.SCORE_SOURCE] == "score"


def test_errored_samples_and_unfinished_logs_are_skipped_and_counted(tmp_path):
    @solver
    def fails_on_q2():
        async def solve(state, generate):
            if state.sample_id == "q2":
                raise RuntimeError("the sandbox went away")
            return await generate(state)
        return solve

    task = colours()
    task = Task(dataset=task.dataset, solver=[fails_on_q2(), multiple_choice()], scorer=choice(), name="colours")
    logs = inspect_run(task, model=outputs("mockllm/alpha", ["ANSWER: A"] * 20), log_dir=str(tmp_path / "a"),
                        display="none", fail_on_error=False, epochs=EPOCHS)
    errored = sum(s.error is not None for s in logs[0].samples)
    assert errored == EPOCHS
    with pytest.warns(tw.TrialwiseWarning, match=rf"not used: {errored} samples that ended in an error"):
        trials = tw.io.read_inspect(logs[0].location)
    assert len(trials) == EPOCHS * (N_QUESTIONS - 1) and "q2" not in set(trials["image"])
    assert trials.attrs["log"]["skipped"] == {"samples that ended in an error": errored}
    assert trials["correct"].mean() == pytest.approx(logs[0].results.scores[0].metrics["accuracy"].value)
    # a cancelled run: every sample of its log is skipped and counted, the other model's log is read
    cancelled = read_eval_log(logs[0].location)
    cancelled.status = "cancelled"
    cancelled.eval.model = "mockllm/gamma"
    write_eval_log(cancelled, str(tmp_path / "cancelled.json"), format="json")
    with pytest.warns(tw.TrialwiseWarning, match=r"samples of logs whose run did not finish \(status 'cancelled'\)"):
        both = tw.io.read_inspect([logs[0].location, str(tmp_path / "cancelled.json")])
    assert set(both["subject"]) == {"mockllm/alpha"}
    # a log written without samples (--no-log-samples) holds results only: counted, and named when it is all
    results_only = read_eval_log(logs[0].location)
    results_only.samples = None
    write_eval_log(results_only, str(tmp_path / "results-only.eval"), format="eval")
    with pytest.raises(tw.InvalidValueError, match=r"no usable multiple-choice record in the 1 file\(s\) read \(1 logs "
                                                   r"without samples \(written with log_samples=False: results only\)\)"):
        tw.io.read_inspect(str(tmp_path / "results-only.eval"))
    assert both.attrs["log"]["skipped"]["samples of logs whose run did not finish (status 'cancelled')"] == \
        EPOCHS * N_QUESTIONS


def test_zstandard_members_without_the_standard_librarys_support(logs, monkeypatch):
    """Python < 3.14 reads Zstandard zip members only through inspect_ai's patch of zipfile (active in this
    process) or, in trialwise, the zstandard package; without either, a clear error."""
    with pytest.warns(tw.TrialwiseWarning):
        patched = tw.io.read_inspect([str(p) for p in logs["eval"]])
    # as in a process that never imported inspect_ai (whose zipfile_zstd patch needs zipfile.ZIP_ZSTANDARD to stay)
    monkeypatch.setattr(trialwise.io.logs.inspect_ai, "_stdlib_reads_zstd", lambda: False)
    with pytest.warns(tw.TrialwiseWarning):
        raw = tw.io.read_inspect([str(p) for p in logs["eval"]])
    assert raw.drop(columns="probabilities").equals(patched.drop(columns="probabilities"))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(tw.InvalidValueError, match=r"compressed with Zstandard.*pip install \"trialwise\[inspect\]\""):
        tw.io.read_inspect(str(logs["eval"][0]))


def test_the_reader_needs_no_inspect_ai(logs):
    """In a fresh interpreter where inspect_ai cannot be imported (so zipfile is not patched either)."""
    code = ("import sys; sys.modules['inspect_ai'] = None\n"
            "import warnings, trialwise as tw\n"
            "warnings.simplefilter('ignore')\n"
            f"t = tw.io.read_inspect({[str(p) for p in logs['eval']]!r})\n"
            "print(t.groupby('subject').correct.mean().round(12).to_dict())")
    src = str(Path(tw.__file__).parents[1])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    expected = {read_eval_log(str(p)).eval.model: round(read_eval_log(str(p)).results.scores[0].metrics["accuracy"]
                                                        .value, 12) for p in logs["eval"]}
    assert eval(done.stdout) == expected


def test_deflate_compressed_eval_logs_of_older_versions(logs, tmp_path):
    source = logs["eval"][0]
    old = tmp_path / "old.eval"
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(old, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    with zipfile.ZipFile(old) as check:
        assert {i.compress_type for i in check.infolist()} == {zipfile.ZIP_DEFLATED}
    with pytest.warns(tw.TrialwiseWarning):
        a = tw.io.read_inspect(str(old))
    with pytest.warns(tw.TrialwiseWarning):
        b = tw.io.read_inspect(str(source))
    assert a.drop(columns="probabilities").equals(b.drop(columns="probabilities"))


def test_clusters_from_sample_metadata(logs):
    with pytest.warns(tw.TrialwiseWarning):
        trials = tw.io.read_inspect([str(p) for p in logs["json"]], clusters="topic")
    assert (trials["cluster"] == trials["image"].map(lambda i: f"t{int(i[1:]) % 2}")).all()
    with pytest.warns(tw.TrialwiseWarning):
        nested = tw.io.read_inspect([str(p) for p in logs["json"]], clusters="nested.level")
    assert (nested["cluster"] == nested["image"].map(lambda i: str(int(i[1:]) % 3))).all()
    with pytest.raises(tw.InvalidValueError, match=r"`clusters`='subject' is not a key of the sample's `metadata` "
                                                   r"\(keys: \['nested', 'topic'\]\)"):
        tw.io.read_inspect(str(logs["json"][0]), clusters="subject")


def test_several_scorers_need_a_choice(tmp_path):
    path = run(arithmetic([match(), includes()]), "mockllm/alpha", ["0", "the sum is 2", "4", "7"], tmp_path, "json")
    with pytest.raises(tw.InvalidValueError, match=r"scored by several scorers \['includes', 'match'\]; choose one "
                                                   r"with `scorer` \(e.g. scorer='includes'\)"):
        tw.io.read_inspect(str(path))
    log = read_eval_log(str(path))
    for name in ("match", "includes"):
        trials = tw.io.read_inspect(str(path), scorer=name)
        metric = next(s for s in log.results.scores if s.name == name).metrics["accuracy"].value
        assert trials["score"].mean() == pytest.approx(metric) and trials.attrs["log"]["scorer"] == name
    with pytest.raises(tw.InvalidValueError, match=r"`scorer`='exact' is not a scorer of the sample"):
        tw.io.read_inspect(str(path), scorer="exact")


def test_read_logs_recognises_inspect_logs_and_passes_options(logs, tmp_path):
    folder = tmp_path / "mixed-inspect"
    folder.mkdir()
    for p in [logs["eval"][0], logs["json"][1]]:
        (folder / Path(p).name).write_bytes(Path(p).read_bytes())
    (folder / "logs.json").write_text(json.dumps({"a.eval": {}}))  # Inspect's listing beside the logs: not a log
    with pytest.warns(tw.TrialwiseWarning):
        trials = tw.read_logs(folder, clusters="topic")
    assert trials.attrs["log"]["format"] == "inspect" and trials["subject"].nunique() == 2
    assert "cluster" in trials.columns
    with pytest.raises(tw.InvalidValueError, match=r"`normalization` is not an option of Inspect AI logs "
                                                   r"\(read_inspect takes: scorer, clusters, unaligned\)"):
        tw.read_logs(folder, normalization="length")


def test_similarity_command_reads_inspect_logs(logs, capsys):
    code = main(["similarity", *map(str, logs["once"]), "--metric", "choice", "--resamples", "200", "--seed", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "12 trials, 2 models, 6 questions in 1 task(s) (inspect)" in out
    with pytest.warns(tw.TrialwiseWarning, match="choose no single option"):
        trials = tw.io.read_inspect([str(p) for p in logs["once"]])
    alpha, beta = (trials[trials.subject == m].sort_values("image").response.to_numpy() for m in ANSWERS)
    assert f"{np.mean(alpha == beta):.3f}" in out  # the choice agreement of the two runs, as printed
    code = main(["similarity", *map(str, logs["once"]), "--metric", "capa"])  # capa needs option probabilities
    out, err = capsys.readouterr()
    assert code == 2 and "Inspect and every-eval-ever log only the chosen option" in err
    code = main(["similarity", *map(str, logs["once"]), "--resamples", "200", "--seed", "1"])  # auto: capa-discrete
    out, err = capsys.readouterr()
    assert code == 0 and "Metric: capa-discrete (CAPA on the chosen options): 12 of the 12 trials" in out


@pytest.mark.parametrize("case, match", [
    ("truncated", r"truncated\.eval: not a readable Inspect AI \.eval log \(a zip archive; .*\): truncated or not a "
                  r"log"),
    ("not-inspect", r"not-inspect\.json: not an Inspect AI log \(no `eval` object; found \['results', 'version'\]\)"),
    ("empty", r"empty\.eval: the file is empty \(no Inspect AI log\)"),
    ("foreign-zip", r"foreign-zip\.eval: not an Inspect AI \.eval log \(a zip archive without header\.json"),
])
def test_bad_logs_are_named(logs, tmp_path, capsys, case, match):
    path = {"truncated": tmp_path / "truncated.eval", "not-inspect": tmp_path / "not-inspect.json",
            "empty": tmp_path / "empty.eval", "foreign-zip": tmp_path / "foreign-zip.eval"}[case]
    if case == "truncated":
        data = Path(logs["eval"][0]).read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif case == "not-inspect":
        path.write_text(json.dumps({"version": 2, "results": {}}))
    elif case == "empty":
        path.write_bytes(b"")
    else:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("data.csv", "a,b\n1,2\n")
    with pytest.raises(tw.InvalidValueError, match=match):
        tw.io.read_inspect(str(path))
    code = main(["similarity", str(path), "--format", "inspect"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_probabilities_are_none_and_responses_are_option_indices(logs):
    with pytest.warns(tw.TrialwiseWarning):
        trials = tw.io.read_inspect(str(logs["json"][0]))
    assert set(trials["response"]) <= {"0", "1", "2", "na"} and set(trials["truth"]) <= {"0", "1", "2"}
    assert np.array_equal(trials["correct"], trials["response"] == trials["truth"])
