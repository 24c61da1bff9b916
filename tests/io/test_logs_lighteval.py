"""read_lighteval: lighteval "details" Parquet files, written here the way lighteval writes them.

lighteval itself pulls torch, so it is not installed; the files follow its source at
huggingface/lighteval 3fd1526 (0.13.1.dev0): ``src/lighteval/logging/evaluation_tracker.py``
``EvaluationTracker.save`` (``Dataset.from_list([asdict(detail) ...])``, the columns sorted,
``id`` dropped) and ``save_details`` (``details/<model_name>/<date_id>/details_<task>_<date_id>.parquet``,
``dataset.to_parquet``); ``src/lighteval/logging/info_loggers.py`` ``DetailsLogger.Detail``
(``doc``, ``model_response``, ``metric``); the fields of ``Doc`` (``src/lighteval/tasks/requests.py``)
and ``ModelResponse`` (``src/lighteval/models/model_output.py``). The per-document ``acc`` is
``LoglikelihoodAcc`` of ``src/lighteval/metrics/metrics_sample.py`` (argmax of the first
``len(choices)`` logprobs in the gold indices), written by brute force below; the Parquet file is
written with the ``datasets`` package, as lighteval does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

import trialwise as tw

datasets = pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

DATE = "2026-01-02T03-04-05.678901"
TASK = "lighteval|arc:easy|0"


def doc(i: int, choices: list[str], gold, *, doc_id: str | None = None, specific=None) -> dict:
    """``asdict(Doc(...))`` with the defaults of every field."""
    return {"query": f"Question {i}?", "choices": choices, "gold_index": gold, "instruction": None, "images": None,
            "specific": specific, "unconditioned_query": None, "original_query": None,
            "id": f"{i}" if doc_id is None else doc_id, "task_name": TASK, "fewshot_samples": [],
            "sampling_methods": ["LOGPROBS"], "fewshot_sorting_class": None, "generation_size": None,
            "stop_sequences": None, "use_logits": False, "num_samples": 1, "generation_grammar": None}


def response(logprobs: list[float], text: list[str] | None = None) -> dict:
    """``asdict(ModelResponse(...))``."""
    return {"input": "prompt", "input_tokens": [1, 2], "text": text or [], "output_tokens": [[3]] * len(logprobs),
            "text_post_processed": None, "reasonings": [], "logprobs": logprobs,
            "argmax_logits_eq_gold": [False] * len(logprobs), "logits": None, "unconditioned_logprobs": None,
            "truncated_tokens_count": 0, "padded_tokens_count": 0}


def acc(logprobs, gold, choices, *, norm=False) -> int:
    """LoglikelihoodAcc: is the best of the first len(choices) logprobs (/ len(choice) with LogProbCharNorm) gold?"""
    lp = np.asarray(logprobs[:len(choices)], dtype=float)
    if norm:
        lp = lp / np.array([len(c) for c in choices])
    return int(int(np.argmax(lp)) in (gold if isinstance(gold, list) else [gold]))


def save(root: Path, model: str, task: str, details: list[dict]) -> Path:
    """EvaluationTracker.save + save_details."""
    dataset = datasets.Dataset.from_list(details)
    dataset = dataset.select_columns(sorted(c for c in dataset.column_names if c != "id"))
    folder = root / "details" / model / DATE
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"details_{task}_{DATE}.parquet"
    dataset.to_parquet(str(path))
    return path


CHOICES = [" red", " green", " blue", " a much longer colour"]


def mc_details(rng, n=12, *, pmi=False) -> list[dict]:
    out = []
    for i in range(n):
        gold = i % 4  # the same item, the same gold, for every model
        lp = list(np.log(rng.dirichlet(np.ones(4))) - rng.uniform(0, 3))
        logged = lp + list(np.log(rng.dirichlet(np.ones(4)))) if pmi else lp
        metric = {"acc": acc(logged, gold, CHOICES), "acc_norm": acc(logged, gold, CHOICES, norm=True)}
        out.append({"doc": doc(i, CHOICES, gold, specific={"subject": f"s{i % 3}"}), "model_response":
                    response(logged), "metric": metric})
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("lighteval")
    rng = np.random.default_rng(31)
    for model in ("org/model-a", "org/model-b"):
        save(root, model, TASK, mc_details(rng))
        save(root, model, "lighteval|pmi|0", mc_details(rng, 5, pmi=True))
    return root


def test_probabilities_responses_and_lightevals_acc(folder):
    trials = tw.io.read_lighteval(folder)
    assert trials["subject"].unique().tolist() == ["org/model-a", "org/model-b"]
    assert sorted(trials["condition"].unique()) == ["lighteval|arc:easy|0", "lighteval|pmi|0"]
    assert len(trials) == 2 * (12 + 5) and trials.attrs["log"]["metric_mismatches"] == 0
    for path in sorted(folder.rglob("*.parquet")):
        frame = pd.read_parquet(path)
        model = "/".join(path.parts[-4:-2])
        for row in frame.itertuples():
            lp = np.asarray(row.model_response["logprobs"], dtype=float)[:4]
            task = path.name[len("details_"):-len(f"_{DATE}.parquet")]
            t = trials[(trials.subject == model) & (trials.image == f"{task}/{row.doc['id']}")]
            assert len(t) == 1
            assert np.allclose(t["probabilities"].iloc[0], softmax(lp), atol=1e-12, rtol=0)
            assert t["response"].iloc[0] == str(int(np.argmax(lp)))
            assert t["truth"].iloc[0] == str(row.doc["gold_index"])
            assert bool(t["correct"].iloc[0]) == bool(row.metric["acc"])  # lighteval's own per-document acc


def test_length_normalization_is_lightevals_char_norm(folder):
    trials = tw.io.read_lighteval(folder, normalization="length")
    assert trials.attrs["log"]["metric_mismatches"] == 0  # every trial agrees with the logged acc_norm
    first = trials.iloc[0]
    lp = np.log(np.asarray(first["probabilities"]))  # softmax of lp/len: log p = lp/len − const
    assert int(np.argmax(lp)) == int(first["response"])


def test_generation_tasks_are_counted_or_scored(tmp_path):
    gen = [{"doc": doc(i, ["42"], 0), "model_response": response([], text=[["42", "41"][i % 2]]),
            "metric": {"em": float(i % 2 == 0)}} for i in range(4)]
    rng = np.random.default_rng(1)
    for model in ("m/a", "m/b"):
        save(tmp_path, model, "lighteval|gsm|0", gen)
        save(tmp_path, model, TASK, mc_details(rng, 3))
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 8 records that are not log-likelihood multiple choice"):
        trials = tw.io.read_lighteval(tmp_path)
    assert set(trials["condition"]) == {TASK}
    with pytest.raises(tw.InvalidValueError, match=r"`score`='em' is not a metric of the document \(metrics: "
                                                   r"\['acc', 'acc_norm'\]\)"):
        tw.io.read_lighteval(tmp_path, score="em")
    scored = tw.io.read_lighteval(list(tmp_path.rglob("details_lighteval|gsm|0_*.parquet")), score="em")
    assert set(scored["n_options"]) == {0} and scored["score"].tolist() == [1.0, 0.0, 1.0, 0.0] * 2
    assert scored["correct"].equals(scored["score"] == 1.0) and set(scored["truth"]) == {"42"}


def test_clusters_several_golds_and_read_logs(folder, tmp_path):
    trials = tw.io.read_lighteval(folder, clusters="subject")
    assert set(trials["cluster"]) == {"s0", "s1", "s2"}
    with pytest.raises(tw.InvalidValueError, match=r"`clusters`='topic' is not a key of the document's `specific` "
                                                   r"\(keys: \['subject'\]\)"):
        tw.io.read_lighteval(folder, clusters="topic")
    both = [{"doc": doc(0, CHOICES, [0, 1]), "model_response": response([-1.0, -2.0, -3.0, -4.0]),
             "metric": {"acc": 1}}, {"doc": doc(1, CHOICES, [2]), "model_response": response([-1.0, -2.0, -3.0, -4.0]),
                                     "metric": {"acc": 0}}]
    save(tmp_path, "m/a", TASK, both)
    with pytest.warns(tw.TrialwiseWarning, match=r"1 records with several correct options"):
        one = tw.io.read_lighteval(tmp_path)
    assert len(one) == 1 and one["truth"].iloc[0] == "2"
    read = tw.read_logs(folder, normalization="length")
    assert read.attrs["log"]["format"] == "lighteval"
    assert read.drop(columns="probabilities").equals(
        tw.io.read_lighteval(folder, normalization="length").drop(columns="probabilities"))


@pytest.mark.parametrize("case, match", [
    ("columns", r"no-columns\.parquet: not lighteval details \(0\.10 or later\): no column \['doc', "
                r"'model_response', 'metric'\]"),
    ("truncated", r"truncated\.parquet: not a readable Parquet file"),
    ("empty", r"empty\.parquet: the file is empty"),
])
def test_bad_files_are_named(folder, tmp_path, capsys, case, match):
    from trialwise.cli import main

    if case == "columns":
        path = tmp_path / "no-columns.parquet"
        pd.DataFrame({"example": ["q"], "predictions": [[-1.0, -2.0]]}).to_parquet(path)
    elif case == "truncated":
        path = tmp_path / "truncated.parquet"
        data = next(folder.rglob("*.parquet")).read_bytes()
        path.write_bytes(data[: len(data) // 2])
    else:
        path = tmp_path / "empty.parquet"
        path.write_bytes(b"")
    with pytest.raises(tw.InvalidValueError, match=match):
        tw.io.read_lighteval(str(path))
    code = main(["similarity", str(path), "--format", "lighteval"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_import_trialwise_does_not_import_pyarrow():
    """pyarrow is an optional extra, imported when a Parquet file is read (pandas imports it when it is installed,
    so only the import of trialwise and of its entry point are free of it)."""
    code = "import sys, trialwise; trialwise.read_logs; print('pyarrow' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(Path(tw.__file__).parents[1]), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
