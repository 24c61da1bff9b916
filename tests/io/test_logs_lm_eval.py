"""read_lm_eval: lm-evaluation-harness ``--log_samples`` files, checked against brute force.

The files are written here from Python dicts the way the harness writes them (EleutherAI/
lm-evaluation-harness at 4e7e0d4, identical in the 0.4.13 wheel): the record is the ``example``
dict of ``lm_eval/evaluator.py`` ``evaluate`` (lines 643-667: doc_id, doc, target, arguments,
resps, filtered_resps, filter, metrics, doc_hash = sha256(json.dumps(doc, indent=2,
ensure_ascii=False)), prompt_hash, target_hash, then ``example.update(metrics)``), sanitised by
``lm_eval/loggers/evaluation_tracker.py`` ``save_results_samples`` (lines 350-372: arguments →
``{"gen_args_i": {"arg_j": ...}}``, ``sanitize_list`` turns resps/filtered_resps into text,
``target`` → ``str``), one ``json.dumps`` per line into ``samples_<task>_<date_id>.jsonl`` in
the folder ``model_name_sanitized``, next to ``results_<date_id>.json``
(``save_results_aggregated``). acc/acc_norm follow ``lm_eval/api/task.py``
``ConfigurableTask.process_results`` (lines 1489-1511).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import trialwise as tw
import trialwise.io.logs.lm_eval
from trialwise.io.trials import check_probabilities

DATE = "2026-01-02T03-04-05.678901"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record(doc_id, doc, target, choices, lls, *, filter_key="none", old=False, extra_metrics=()):
    """One logged document as the harness writes it (``old``: numbers and [ctx, cont] lists, pre-sanitising)."""
    context = f"Question: {doc['question']}\nAnswer:"
    arguments = [(context, f" {c}") for c in choices]
    greedy = [i == int(np.argmax(lls)) for i in range(len(lls))]
    gold = target if isinstance(target, int) else choices.index(target)
    lengths = np.array([float(len(c)) for c in choices])
    metrics = {"acc": 1.0 if int(np.argmax(lls)) == gold else 0.0,
               "acc_norm": 1.0 if int(np.argmax(np.asarray(lls) / lengths)) == gold else 0.0}
    example = {
        "doc_id": doc_id, "doc": doc, "target": target, "arguments": arguments,
        "resps": [[(ll, g)] for ll, g in zip(lls, greedy)],
        "filtered_resps": [(ll, g) for ll, g in zip(lls, greedy)],
        "filter": filter_key, "metrics": [*metrics, *extra_metrics],
        "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": sha(context), "target_hash": sha(str(target)),
    }
    example.update(metrics)
    if old:
        example["arguments"] = [list(a) for a in arguments]
        example["filtered_resps"] = [[ll, g] for ll, g in example["filtered_resps"]]
        example["resps"] = [[[ll, g]] for ll, g in zip(lls, greedy)]
        return example
    example["arguments"] = {f"gen_args_{i}": {f"arg_{j}": v for j, v in enumerate(arg)}
                            for i, arg in enumerate(arguments)}
    sanitize = lambda sub: [sanitize(s) for s in sub] if isinstance(sub, (list, tuple)) else str(sub)  # noqa: E731
    example["resps"] = sanitize(example["resps"])
    example["filtered_resps"] = sanitize(example["filtered_resps"])
    example["target"] = str(example["target"])
    return example


def write_run(root: Path, model: str, tasks: dict[str, list[dict]], *, results=True, group=None, folder=None):
    out = root / (folder or model.replace("/", "__"))
    out.mkdir(parents=True, exist_ok=True)
    if results:
        data = {"results": {t: {"alias": t} for t in tasks}, "model_name": model,
                "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float16"},
                "configs": {t: {"task": t, "target_delimiter": " "} for t in tasks},
                "group_subtasks": {group: sorted(tasks)} if group else {t: [] for t in tasks}}
        (out / f"results_{DATE}.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    for task, rows in tasks.items():
        with open(out / f"samples_{task}_{DATE}.jsonl", "a", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


def simulate(rng, n_docs=30, k=4, models=("org/alpha", "org/beta", "gamma")):
    """Docs, and each model's log-likelihoods drawn from known option probabilities."""
    docs = [{"question": f"q{i}?", "subject": f"s{i % 3}", "choices": [f"opt{j}" + "x" * int(rng.integers(0, 6))
                                                                        for j in range(k)],
             "answer": int(rng.integers(k))} for i in range(n_docs)]
    truth = {m: rng.dirichlet(np.ones(k), n_docs) for m in models}
    return docs, truth


def read_quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return tw.io.read_lm_eval(*args, **kwargs)


@pytest.fixture
def three_models(tmp_path):
    rng = np.random.default_rng(7)
    docs, truth = simulate(rng)
    for m, p in truth.items():
        order = rng.permutation(len(docs))  # models log their documents in different orders
        rows = [record(int(i), docs[i], docs[i]["answer"], docs[i]["choices"], np.log(p[i]).tolist()) for i in order]
        write_run(tmp_path, m, {"mmlu_x": rows}, group="mmlu")
    return tmp_path, docs, truth


def test_softmax_argmax_correct_against_brute_force(three_models):
    root, docs, truth = three_models
    trials = read_quiet(root, clusters="subject")
    assert list(trials.columns) == [*tw.io.LOG_COLUMNS, "cluster"]
    assert len(trials) == 3 * len(docs) and set(trials.subject) == set(truth)
    assert set(trials.experiment) == {"mmlu"} and set(trials.condition) == {"mmlu_x"}
    by_hash = {sha(json.dumps(d, indent=2, ensure_ascii=False)): i for i, d in enumerate(docs)}
    for row in trials.itertuples():
        i = by_hash[row.image]
        lls = [math.log(x) for x in truth[row.subject][i]]
        total = sum(math.exp(v) for v in lls)
        brute = [math.exp(v) / total for v in lls]
        assert row.probabilities == pytest.approx(brute, abs=1e-12)  # the known probabilities, recovered
        best = max(range(len(lls)), key=lambda o: lls[o])
        assert row.response == str(best) and row.truth == str(docs[i]["answer"])
        assert row.correct == (best == docs[i]["answer"]) and row.n_options == 4
        assert row.cluster == docs[i]["subject"]
    assert trials.attrs["log"]["metric_mismatches"] == 0 and trials.attrs["log"]["skipped"] == {}


def test_length_normalisation_uses_the_choice_text(three_models):
    root, docs, truth = three_models
    trials = read_quiet(root, normalization="length")
    by_hash = {sha(json.dumps(d, indent=2, ensure_ascii=False)): i for i, d in enumerate(docs)}
    for row in trials.itertuples():
        i = by_hash[row.image]
        scores = [math.log(p) / len(c) for p, c in zip(truth[row.subject][i], docs[i]["choices"])]
        total = sum(math.exp(s) for s in scores)
        assert row.probabilities == pytest.approx([math.exp(s) / total for s in scores], abs=1e-12)
        assert row.response == str(max(range(4), key=lambda o: scores[o]))
    # the harness's own acc_norm (written into the log) agrees with every trial
    assert trials.attrs["log"]["metric_mismatches"] == 0


def test_old_format_numbers_and_lists_give_the_same_table(tmp_path):
    rng = np.random.default_rng(3)
    docs, truth = simulate(rng, models=("m1", "m2"))
    for old in (False, True):
        for m, p in truth.items():
            rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist(), old=old) for i, d in enumerate(docs)]
            write_run(tmp_path / str(old), m, {"t": rows})
    new, old = read_quiet(tmp_path / "False"), read_quiet(tmp_path / "True")
    assert new.drop(columns="probabilities").equals(old.drop(columns="probabilities"))
    assert np.allclose(np.stack(new.probabilities), np.stack(old.probabilities), atol=1e-15)


def test_alignment_by_doc_hash_not_doc_id(tmp_path):
    rng = np.random.default_rng(4)
    docs, truth = simulate(rng, n_docs=12, models=("a", "b", "c"))
    for shift, (m, p) in enumerate(truth.items()):
        # each model numbers the same documents differently (another shard / --limit): doc_hash aligns them
        rows = [record(i + 100 * shift, d, d["answer"], d["choices"], np.log(p[i]).tolist()) for i, d in enumerate(docs)]
        write_run(tmp_path, m, {"t": rows})
    trials = read_quiet(tmp_path)
    per_model = trials.groupby("subject").image.apply(frozenset)
    assert per_model.nunique() == 1 and len(per_model.iloc[0]) == 12
    assert (trials.groupby("image").truth.nunique() == 1).all()


def test_identical_documents_in_one_task_are_told_apart(tmp_path):
    doc = {"question": "same?", "choices": ["a", "b"], "answer": 0}
    for m in ("a", "b"):
        write_run(tmp_path, m, {"t": [record(0, doc, 0, ["a", "b"], [-0.1, -2.0]),
                                      record(1, doc, 0, ["a", "b"], [-3.0, -0.1])]})
    trials = read_quiet(tmp_path)
    h = sha(json.dumps(doc, indent=2, ensure_ascii=False))
    assert sorted(set(trials.image)) == [h, f"{h}-2"] and len(trials) == 4


def test_model_names_from_results_model_args_and_folders(tmp_path):
    doc = {"question": "q", "choices": ["a", "b"], "answer": 1}
    rows = {"t": [record(0, doc, 1, ["a", "b"], [-1.0, -0.5])]}
    write_run(tmp_path / "r", "org/named", rows)
    args_only = write_run(tmp_path / "r", "org/args", rows, folder="x1")
    data = json.loads((args_only / f"results_{DATE}.json").read_text())
    del data["model_name"]
    (args_only / f"results_{DATE}.json").write_text(json.dumps(data))
    write_run(tmp_path / "r", "folder-model", rows, results=False)
    write_run(tmp_path / "r" / "details" / "org__leader", "x", rows, results=False, folder=DATE)
    trials = read_quiet(tmp_path / "r")
    assert sorted(trials.subject) == ["folder-model", "org/args", "org/named", "org__leader"]


def test_mutual_info_tasks_use_the_conditional_half(tmp_path):
    doc = {"question": "q", "choices": ["a", "b"], "answer": 0}
    row = record(0, doc, 0, ["a", "b", "a", "b"], [-0.2, -1.9, -5.0, -0.01], extra_metrics=["acc_mutual_info"])
    row["acc"] = 1.0  # process_results scores acc on the conditional half, lls[:len(choices)] (task.py 1499-1508)
    write_run(tmp_path, "m", {"t": [row]})
    trials = read_quiet(tmp_path)
    assert trials.n_options.tolist() == [2] and trials.response.tolist() == ["0"]
    assert trials.probabilities[0] == pytest.approx([1 / (1 + math.exp(-1.7)), 1 / (1 + math.exp(1.7))])


def test_target_as_option_text(tmp_path):
    doc = {"question": "q", "choices": ["yes", "no"]}
    write_run(tmp_path, "m", {"t": [record(0, doc, "no", ["yes", "no"], [-0.1, -3.0])]})
    trials = read_quiet(tmp_path)
    assert trials.truth.tolist() == ["1"] and not trials.correct[0]


def test_filters(tmp_path):
    doc = {"question": "q", "choices": ["a", "b"], "answer": 0}
    write_run(tmp_path, "m", {"t": [record(0, doc, 0, ["a", "b"], [-0.1, -3.0]),
                                    record(0, doc, 0, ["a", "b"], [-3.0, -0.1], filter_key="strict")]})
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl: task 't' logs several filters "
                                                    r"\['none', 'strict'\]; choose one with `filter_name`"):
        tw.io.read_lm_eval(tmp_path)
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 1 records of other filters than 'strict'"):
        trials = tw.io.read_lm_eval(tmp_path, filter_name="strict")
    assert trials.response.tolist() == ["1"] and trials.attrs["log"]["skipped"] == {
        "records of other filters than 'strict'": 1}


def test_unreadable_and_generation_records_are_counted_not_dropped_silently(tmp_path):
    doc = {"question": "q", "choices": ["a", "b"], "answer": 0}
    out = write_run(tmp_path, "m", {"t": [record(0, doc, 0, ["a", "b"], [-0.1, -3.0])]})
    gen = {"doc_id": 5, "doc": doc, "target": "a", "arguments": {"gen_args_0": {"arg_0": "ctx", "arg_1": "{}"}},
           "resps": [["a"]], "filtered_resps": ["a"], "filter": "none", "metrics": ["exact_match"]}
    with open(out / f"samples_t_{DATE}.jsonl", "a") as fh:
        fh.write(json.dumps(gen) + "\n" + '{"doc_id": 7, "doc": {"trunc\n')
    with pytest.warns(tw.TrialwiseWarning, match=r"read 1 trials from 1 lm-evaluation-harness file\(s\); not used: "
                                                  r"1 unreadable JSON lines; 1 records that are not multiple choice"):
        trials = tw.io.read_lm_eval(tmp_path)
    assert trials.attrs["log"]["records"] == 3 and trials.attrs["log"]["skipped"] == {
        "unreadable JSON lines": 1, "records that are not multiple choice (generation or perplexity tasks)": 1}


def test_logged_metric_disagreement_is_reported(tmp_path):
    doc = {"question": "q", "choices": ["a", "b"], "answer": 0}
    row = record(0, doc, 0, ["a", "b"], [-0.1, -3.0])
    row["acc"] = 0.0  # the harness scored this task another way
    write_run(tmp_path, "m", {"t": [row]})
    with pytest.warns(tw.TrialwiseWarning, match=r"1 trials whose correctness differs from the logged `acc`"):
        trials = tw.io.read_lm_eval(tmp_path)
    assert trials.attrs["log"]["metric_mismatches"] == 1 and trials.correct.tolist() == [True]


# --------------------------------------------------------------------------- bad input


def two_models(tmp_path, change=None):
    rng = np.random.default_rng(11)
    docs, truth = simulate(rng, n_docs=5, models=("a", "b"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist()) for i, d in enumerate(docs)]
        if m == "b" and change:
            change(rows)
        write_run(tmp_path, m, {"t": rows})
    return tmp_path


def test_ragged_option_counts(tmp_path):
    def three_options(rows):
        r = rows[2]
        doc = r["doc"]
        rows[2] = record(r["doc_id"], doc, 0, doc["choices"][:3], [-0.5, -1.0, -2.0])
        rows[2]["doc_hash"] = r["doc_hash"]
    with pytest.raises(tw.InvalidValueError, match=r"b/samples_t_.*\.jsonl:3: ragged option counts \(field `filtered_resps`\): item '[0-9a-f]+' "
                                                    r"of 't' has 3 options for 'b' but 4 for 'a'"):
        tw.io.read_lm_eval(two_models(tmp_path, three_options))


def test_arguments_and_resps_of_different_lengths(tmp_path):
    def drop(rows):
        rows[0]["filtered_resps"] = rows[0]["filtered_resps"][:3]
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl:1: field `arguments` must hold one "
                                                    r"\(context, continuation\) per option of `filtered_resps` \(3\)"):
        tw.io.read_lm_eval(two_models(tmp_path, drop))


@pytest.mark.parametrize("value", ["0.5", "nan", "abc"])
def test_loglikelihoods_must_be_finite_and_not_positive(tmp_path, value):
    def bad(rows):
        rows[1]["filtered_resps"][0][0] = value
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl:2: field `filtered_resps` must hold "
                                                    r"log-likelihoods"):
        tw.io.read_lm_eval(two_models(tmp_path, bad))


def test_duplicate_document_in_a_file(tmp_path):
    def twice(rows):
        rows.append(dict(rows[0]))
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl:6: duplicate document: doc_id 0 of task 't' "
                                                    r"was already logged for model 'b' at line 1"):
        tw.io.read_lm_eval(two_models(tmp_path, twice))


def test_two_logs_of_one_task_for_one_model(tmp_path):
    root = two_models(tmp_path)
    src = next((root / "b").glob("samples_*.jsonl"))
    (root / "b" / "samples_t_2026-02-02T00-00-00.000000.jsonl").write_text(src.read_text())
    with pytest.raises(tw.InvalidValueError, match=r"duplicate document: item '[0-9a-f]+' of 't' was already logged "
                                                    r"for model 'b' at .*samples_t_.*\.jsonl:1; read one log per model"):
        tw.io.read_lm_eval(root)


def test_unaligned_items_error_or_drop(tmp_path):
    root = two_models(tmp_path, lambda rows: rows.pop(4))
    with pytest.raises(tw.InvalidValueError, match=r"a/samples_t_.*\.jsonl:5: unaligned items: 1 item\(s\) are not "
                                                    r"logged for every model of their task, .* missing for \['b'\]; "
                                                    r"pass unaligned='drop'"):
        tw.io.read_lm_eval(root)
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 1 unaligned records"):
        trials = tw.io.read_lm_eval(root, unaligned="drop")
    assert len(trials) == 8 and trials.attrs["log"]["skipped"] == {
        "unaligned records (items not logged for every model of their task)": 1}


def test_different_target_between_models(tmp_path):
    def other_target(rows):
        rows[0]["target"] = str((int(rows[0]["target"]) + 1) % 4)
    with pytest.raises(tw.InvalidValueError, match=r"the correct option \(field `target`\) of item '[0-9a-f]+' of 't' is '\d' for 'b'"):
        tw.io.read_lm_eval(two_models(tmp_path, other_target))


def test_missing_cluster_field(tmp_path):
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl:1: `clusters`='passage' is not a field of "
                                                    r"the logged `doc` \(fields: \['answer', 'choices'"):
        tw.io.read_lm_eval(two_models(tmp_path), clusters="passage")


def test_bad_arguments_and_paths(tmp_path):
    with pytest.raises(tw.InvalidValueError, match=r"`normalization` must be one of 'none', 'length'; got 'norm'"):
        tw.io.read_lm_eval(tmp_path, normalization="norm")
    with pytest.raises(tw.InvalidTypeError, match=r"`clusters` must be a str or None; got int 3"):
        tw.io.read_lm_eval(tmp_path, clusters=3)
    with pytest.raises(tw.InvalidTypeError, match=r"`paths` must be a file or folder path or a non-empty list"):
        tw.io.read_lm_eval(42)
    with pytest.raises(tw.InvalidValueError, match=r"no evaluation log in this folder \(looked for samples_\*\.jsonl"):
        tw.io.read_lm_eval(tmp_path)
    with pytest.raises(tw.InvalidValueError, match=r"nothing\.jsonl: no such file or folder"):
        tw.io.read_lm_eval(tmp_path / "nothing.jsonl")
    other = tmp_path / "results.jsonl"
    other.write_text("{}\n")
    with pytest.raises(tw.InvalidValueError, match=r"results\.jsonl: not an lm-evaluation-harness samples file"):
        tw.io.read_lm_eval(other)
    empty = tmp_path / "m" / f"samples_t_{DATE}.jsonl"
    empty.parent.mkdir()
    empty.write_text("\n")
    with pytest.raises(tw.InvalidValueError, match=r"samples_t_.*\.jsonl: the file is empty \(no logged document\)"):
        tw.io.read_lm_eval(empty)
    garbled = tmp_path / "g" / f"samples_t_{DATE}.jsonl"
    garbled.parent.mkdir()
    garbled.write_text('{"doc_id": 0}\nnot json\n')  # nothing usable: the first line of each kind is named
    with pytest.raises(tw.InvalidValueError, match=r"no usable multiple-choice record in the 1 file\(s\) read .*"
                       r"unreadable JSON lines: first at .*samples_t_.*\.jsonl:2; lines that are not a logged "
                       r"document: first at .*samples_t_.*\.jsonl:1"):
        tw.io.read_lm_eval(garbled)


def test_probabilities_must_sum_to_one():
    assert check_probabilities([0.25, 0.75], "f:1", "probabilities") == (0.25, 0.75)
    with pytest.raises(tw.InvalidValueError, match=r"f:1: `probabilities` must sum to 1 over the options; they sum "
                                                    r"to 0\.9"):
        check_probabilities([0.2, 0.7], "f:1", "probabilities")
    with pytest.raises(tw.InvalidValueError, match=r"f:2: `p` must be probabilities in \[0, 1\]; got \[1\.5, -0\.5\]"):
        check_probabilities([1.5, -0.5], "f:2", "p")
    with pytest.raises(tw.InvalidValueError, match=r"at least 2"):
        check_probabilities([1.0], "f:3", "p")


def test_demo_set():
    trials = tw.datasets.llm_demo()
    assert len(trials) == 1600 and trials.subject.nunique() == 4 and set(trials.n_options) == {4}
    assert trials.groupby(["condition", "subject"]).image.nunique().eq(200).all()
    assert trials.cluster.nunique() == 16
    p = np.stack(trials.probabilities)
    assert np.allclose(p.sum(axis=1), 1) and np.array_equal(p.argmax(axis=1).astype(str), trials.response.to_numpy())


def test_files_written_by_the_harness_itself(tmp_path):
    """The real EvaluationTracker of lm-eval (a test dependency) writes the logs, as ``evaluate`` builds the samples."""
    from lm_eval.loggers import evaluation_tracker as tracker_module
    from lm_eval.utils import handle_non_serializable, hash_string

    rng = np.random.default_rng(5)
    docs = [{"question": f"q{i}", "choices": ["alpha", "be", "gamma delta"], "label": int(rng.integers(3))}
            for i in range(12)]
    expected = {}
    for model in ("org/m1", "org/m2"):
        tracker = tracker_module.EvaluationTracker(output_path=str(tmp_path))
        tracker.general_config_tracker.log_experiment_args(model_source="hf", model_args=f"pretrained={model}",
                                                           system_instruction=None, chat_template=None,
                                                           fewshot_as_multiturn=False)
        samples = []
        for i, doc in enumerate(docs):
            context = f"Q: {doc['question']}\nA:"
            lls = np.log(rng.dirichlet(np.ones(3)))
            filtered = [(float(v), bool(j == lls.argmax())) for j, v in enumerate(lls)]
            example = {"doc_id": i, "doc": doc, "target": doc["label"],
                       "arguments": [(context, f" {c}") for c in doc["choices"]],
                       "resps": [[f] for f in filtered], "filtered_resps": filtered, "filter": "none",
                       "metrics": ["acc"], "doc_hash": hash_string(json.dumps(doc, indent=2,
                                                                              default=handle_non_serializable,
                                                                              ensure_ascii=False)),
                       "prompt_hash": hash_string(context), "target_hash": hash_string(str(doc["label"])),
                       "acc": float(int(np.argmax(lls)) == doc["label"])}
            samples.append(example)
            expected[(model, example["doc_hash"])] = np.exp(lls) / np.exp(lls).sum()
        tracker.save_results_aggregated(results={"results": {"t": {}}, "group_subtasks": {"t": []}},
                                        samples={"t": samples})
        tracker.save_results_samples("t", samples)
    trials = read_quiet(tmp_path)
    assert sorted(trials.subject.unique()) == ["org/m1", "org/m2"] and len(trials) == 24
    for row in trials.itertuples():
        assert row.probabilities == pytest.approx(expected[(row.subject, row.image)].tolist(), abs=1e-12)
    assert trials.attrs["log"]["metric_mismatches"] == 0


# --------------------------------------------------------------------------- logs from other setups (issue 17, HR3)


def _group_logs(root: Path, *, hashes: bool, models=("org/a", "org/b", "org/c"), tasks=("g_one", "g_two"),
                lacking: dict | None = None):
    """Models logging the tasks of group ``g`` (doc ids 0.. in every task), with or without ``doc_hash``."""
    rng = np.random.default_rng(3)
    for m in models:
        logs = {}
        for task in tasks:
            if task in (lacking or {}).get(m, ()):
                continue
            rows = []
            for i in range(12):
                doc = {"question": f"{task} q{i}?", "choices": ["w", "x", "y"]}
                row = record(i, doc, int(i % 3), doc["choices"], np.log(rng.dirichlet(np.ones(3))).tolist())
                if not hashes:
                    del row["doc_hash"]
                rows.append(row)
            logs[task] = rows
        write_run(root, m, logs, group="g")
    return root


def test_without_doc_hash_the_item_is_task_and_doc_id_so_a_group_has_no_false_duplicates(tmp_path):
    trials = read_quiet(_group_logs(tmp_path, hashes=False))
    assert set(trials.experiment) == {"g"} and len(trials) == 3 * 2 * 12
    assert set(trials.image) == {f"{t}/{i}" for t in ("g_one", "g_two") for i in range(12)}
    board = tw.leaderboard(trials, "accuracy", n_resamples=50, rng=0)          # no "answered more than once"
    expected = trials.groupby("subject")["correct"].mean()
    assert board.table.set_index("observer")["score"].to_dict() == pytest.approx(expected.to_dict())
    with_hash = read_quiet(_group_logs(tmp_path / "h", hashes=True))
    assert with_hash.image.str.fullmatch(r"[0-9a-f]{64}").all()                # ids with a hash are unchanged


def test_drop_also_drops_a_task_that_a_model_did_not_log_and_counts_it(tmp_path):
    root = _group_logs(tmp_path, hashes=True, models=("org/a", "org/b", "org/new"), lacking={"org/new": ("g_two",)})
    kept = read_quiet(root)                                                   # the reader keeps the model
    assert len(kept) == 12 * 5 and kept.groupby("subject").size().to_dict() == {"org/a": 24, "org/b": 24, "org/new": 12}
    with pytest.warns(tw.TrialwiseWarning, match=r"24 records of tasks that not every model logged"):
        dropped = tw.io.read_lm_eval(root, unaligned="drop")
    assert set(dropped.condition) == {"g_one"} and len(dropped) == 36
    assert dropped.attrs["log"]["skipped"] == {"records of tasks that not every model logged": 24}
    same = kept[kept.condition == "g_one"].reset_index(drop=True)
    assert dropped["correct"].tolist() == same["correct"].tolist()
    res = tw.pairwise_agreement(dropped, metric="choice", n_resamples=20, rng=0)
    assert set(res.observers) == {"org/a", "org/b", "org/new"}
    with pytest.raises(ValueError, match=r"model 'org/new' answers 12 of the 24 questions .*unaligned='drop'"):
        tw.pairwise_agreement(kept, metric="choice", n_resamples=20, rng=0)


# --------------------------------------------------------------------------- harness versions (review HR5, F3/F4/F10)


def test_two_harness_versions_align_by_doc_id_and_say_so(tmp_path):
    """One model logged with doc_hash (0.4.2+), the other without: the task falls back to <task>/<doc_id>."""
    rng = np.random.default_rng(8)
    docs, truth = simulate(rng, n_docs=10, models=("new", "old"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist(), old=m == "old")
                for i, d in enumerate(docs)]
        if m == "old":
            for row in rows:
                del row["doc_hash"], row["prompt_hash"]
        write_run(tmp_path, m, {"t": rows})
    with pytest.warns(tw.TrialwiseWarning, match=r"20 trials of tasks whose logs identify documents differently"):
        trials = tw.io.read_lm_eval(tmp_path)
    assert set(trials.image) == {f"t/{i}" for i in range(10)} and len(trials) == 20
    assert trials.attrs["log"]["noted"] == {trialwise.io.logs.lm_eval.MIXED_IDS: 20}
    for m, p in truth.items():  # each model's trials are its own documents
        mine = trials[trials.subject == m].set_index("image")
        for i in range(10):
            assert mine.loc[f"t/{i}", "probabilities"] == pytest.approx((p[i] / p[i].sum()).tolist(), abs=1e-12)
    tw.pairwise_agreement(trials, metric="choice", n_resamples=20, rng=0)  # aligned: every model, every item


def test_different_prompts_between_models_are_noted(tmp_path):
    rng = np.random.default_rng(9)
    docs, truth = simulate(rng, n_docs=6, models=("zero", "five"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist()) for i, d in enumerate(docs)]
        if m == "five":
            for row in rows[:4]:
                row["prompt_hash"] = sha("five-shot " + row["prompt_hash"])
        write_run(tmp_path, m, {"t": rows})
    with pytest.warns(tw.TrialwiseWarning, match=r"8 trials of items whose prompt differs between models"):
        trials = tw.io.read_lm_eval(tmp_path)
    assert len(trials) == 12 and trials.attrs["log"]["noted"] == {trialwise.io.logs.lm_eval.PROMPTS_DIFFER: 8}


def _early_run(root: Path, model: str, task: str, rows: list[dict]) -> Path:
    """A run as lm-eval 0.4.0/0.4.1 wrote it (lm_eval/__main__.py): results.json, and per task
    ``re.sub("/|=", "__", model_args)_<task>.jsonl`` holding one indented JSON array."""
    import re

    out = root / model.replace("/", "__")
    out.mkdir(parents=True)
    args = f"pretrained={model},dtype=float16"
    (out / "results.json").write_text(json.dumps({"results": {task: {"acc,none": 0.5}}, "configs": {task: {}},
                                                  "config": {"model": "hf", "model_args": args}}, indent=2))
    (out / f"{re.sub('/|=', '__', args)}_{task}.jsonl").write_text(json.dumps(rows, indent=2))
    return out


def test_the_early_0_4_layout_gives_the_table_of_the_current_one(tmp_path):
    rng = np.random.default_rng(10)
    docs, truth = simulate(rng, n_docs=8, models=("org/m_1", "org/m2"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist(), old=True) for i, d in enumerate(docs)]
        for row in rows:
            del row["doc_hash"], row["prompt_hash"], row["target_hash"], row["filter"]
        _early_run(tmp_path / "early", m, "task_x", rows)
        write_run(tmp_path / "now", m, {"task_x": rows})
    early, now = read_quiet(tmp_path / "early"), read_quiet(tmp_path / "now")
    assert set(early.subject) == {"org/m_1", "org/m2"} and set(early.condition) == {"task_x"}
    assert early.drop(columns="probabilities").equals(now.drop(columns="probabilities"))
    assert np.allclose(np.stack(early.probabilities), np.stack(now.probabilities), atol=0)
    one = next((tmp_path / "early" / "org__m2").glob("*.jsonl"))
    assert len(read_quiet([one, tmp_path / "early" / "org__m_1"])) == 16  # a file given directly
    (one.parent / "results.json").unlink()
    with pytest.raises(ValueError, match=r"0.4.0/0.4.1 wrote it, <model_args>_<task>.jsonl next to the run's "
                                         r"results.json"):
        tw.io.read_lm_eval(one)


def test_different_numbers_of_shots_in_the_results_files_are_noted(tmp_path):
    rng = np.random.default_rng(13)
    docs, truth = simulate(rng, n_docs=5, models=("zero", "five"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist()) for i, d in enumerate(docs)]
        out = write_run(tmp_path, m, {"t": rows})
        results = out / f"results_{DATE}.json"
        data = json.loads(results.read_text())
        data["n-shot"] = {"t": 0 if m == "zero" else 5}
        results.write_text(json.dumps(data))
    with pytest.warns(tw.TrialwiseWarning, match=r"10 trials of tasks that the models ran with different numbers "
                                                  r"of few-shot examples"):
        trials = tw.io.read_lm_eval(tmp_path)
    assert trials.attrs["log"]["noted"] == {trialwise.io.logs.lm_eval.SHOTS_DIFFER: 10}


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_an_empty_samples_file_is_an_error_naming_it_not_a_task_dropped(tmp_path, suffix):
    """Issue 29: one empty (gzip) samples file next to a good one silently dropped its task."""
    import gzip

    rng = np.random.default_rng(3)
    docs, truth = simulate(rng, n_docs=4, k=3, models=("a",))
    rows = [record(i, d, d["answer"], d["choices"], np.log(truth["a"][i]).tolist()) for i, d in enumerate(docs)]
    folder = write_run(tmp_path, "a", {"good": rows})
    empty = folder / f"samples_empty_{DATE}{suffix}"
    empty.write_bytes(gzip.compress(b"") if suffix.endswith(".gz") else b"")
    with pytest.raises(tw.InvalidValueError, match=rf"samples_empty_{DATE}\.jsonl(\.gz)?: the file is empty "
                                                   r"\(no logged document\)"):
        tw.io.read_lm_eval(tmp_path)


def test_similarity_on_an_empty_or_garbled_log_names_the_file_and_line(tmp_path, capsys):
    """Issue 29: ``trialwise similarity`` on such logs named no file or line."""
    from trialwise.cli import main

    empty = tmp_path / "e" / f"samples_t_{DATE}.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    garbled = tmp_path / "g" / f"samples_t_{DATE}.jsonl"
    garbled.parent.mkdir()
    garbled.write_text("garbage\n{not json\n")
    for path, expected in ((empty, rf"e/samples_t_{DATE}\.jsonl: the file is empty"),
                           (garbled, rf"2 unreadable JSON lines\) — unreadable JSON lines: first at "
                                     rf".*g/samples_t_{DATE}\.jsonl:1")):
        assert main(["similarity", str(path), str(path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("trialwise: error: ") and re.search(expected, err[-1]), err


#: Characters that ``str.splitlines`` splits at besides ``\n`` and ``\r``, which the harness writes raw
#: (``json.dumps(..., ensure_ascii=False)``) when a document holds them.
LINE_BREAKS_OF_SPLITLINES = "\u2028\u2029\x85\x0b\x0c\x1c\x1d\x1e"


@pytest.mark.parametrize("layout", ["one record per line", "0.4.0 array"])
def test_records_holding_unicode_line_separators_are_read_whole(tmp_path, layout):
    """Issue 31: lines were split with str.splitlines, which also splits at U+2028 and its kin inside a
    logged text: a record was lost ("unreadable JSON lines") or a 0.4.0 file refused."""
    rng = np.random.default_rng(31)
    docs, truth = simulate(rng, n_docs=6, k=3, models=("org/a", "org/b"))
    for i, doc in enumerate(docs):
        doc["question"] += LINE_BREAKS_OF_SPLITLINES[i % len(LINE_BREAKS_OF_SPLITLINES):] + " tail"
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist(), old=layout != "one record per line")
                for i, d in enumerate(docs)]
        if layout == "one record per line":
            folder = write_run(tmp_path, m, {"t": rows})
        else:
            for row in rows:
                del row["doc_hash"], row["prompt_hash"], row["target_hash"], row["filter"]
            folder = _early_run(tmp_path, m, "t", rows)
            name = next(folder.glob("*.jsonl"))
            name.write_text(json.dumps(rows, indent=2, ensure_ascii=False), encoding="utf-8")
        text = "".join(f.read_text(encoding="utf-8") for f in folder.glob("*.jsonl"))
        assert "\u2028" in text and "\x85" in text  # written raw, as the harness writes them (JSON escapes \x0c)
    trials = read_quiet(tmp_path)
    assert len(trials) == 12 and trials.attrs["log"]["skipped"] == {}
    for m, p in truth.items():  # every record read, with its own numbers
        read = sorted(tuple(np.round(q, 12)) for q in trials.loc[trials.subject == m, "probabilities"])
        assert read == sorted(tuple(np.round(q, 12)) for q in p)


def test_run_folders_that_are_symbolic_links_are_searched(tmp_path):
    """Issue 31: a suite whose run folders are links to where the runs were written looked empty
    (``Path.rglob`` does not follow links to folders before Python 3.13); a link back up the tree is
    searched once."""
    rng = np.random.default_rng(5)
    docs, truth = simulate(rng, n_docs=5, k=3, models=("org/a", "org/b"))
    for m, p in truth.items():
        rows = [record(i, d, d["answer"], d["choices"], np.log(p[i]).tolist()) for i, d in enumerate(docs)]
        write_run(tmp_path / "written", m, {"t": rows})
    suite = tmp_path / "suite"
    suite.mkdir()
    for run in (tmp_path / "written").iterdir():
        (suite / f"link-{run.name}").symlink_to(run, target_is_directory=True)
    (suite / "loop").symlink_to(suite, target_is_directory=True)  # a link back up: searched once
    trials = read_quiet(suite)
    expected = read_quiet(tmp_path / "written")
    assert len(trials) == 10 and set(trials.subject) == {"org/a", "org/b"}
    assert trials.drop(columns="probabilities").equals(expected.drop(columns="probabilities"))


def test_a_drop_that_keeps_few_questions_says_so_and_one_that_keeps_none_is_an_error(tmp_path):
    """Issue 31: ``--unaligned drop`` keeping 1 of 50 questions went on to rank the models on one item."""
    few = two_models(tmp_path / "few", lambda rows: rows[:] and rows.__delitem__(slice(1, None)))  # b: 1 of 5
    with pytest.warns(tw.TrialwiseWarning) as caught:
        trials = tw.io.read_lm_eval(few, unaligned="drop")
    assert len(caught) == 1 and re.search(r"1 of the 5 questions left after dropping the unaligned ones: the models "
                                          r"share few questions", str(caught[0].message))
    assert trials.image.nunique() == 1 and trials.attrs["log"]["noted"] == {
        "of the 5 questions left after dropping the unaligned ones: the models share few questions, so every "
        "statistic rests on them (compare the models that ran the same tasks)": 1}
    enough = two_models(tmp_path / "enough", lambda rows: rows.pop(4))  # 4 of 5 left: the count alone
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 1 unaligned records") as caught:
        tw.io.read_lm_eval(enough, unaligned="drop")
    assert "share few questions" not in str(caught[0].message)

    def disjoint(rows):  # b answered other documents than a
        for row in rows:
            row["doc_id"] += 100
            row["doc"] = {**row["doc"], "question": row["doc"]["question"] + " (b)"}
            row["doc_hash"] = sha(json.dumps(row["doc"], indent=2, ensure_ascii=False))

    none = two_models(tmp_path / "none", disjoint)
    with pytest.raises(tw.InvalidValueError, match=r"unaligned='drop' left no question: no item of the 10 logged was "
                                                   r"answered by every model of its task \(2 models\)"):
        tw.io.read_lm_eval(none, unaligned="drop")


def test_generation_only_logs_suggest_the_per_document_scores_they_logged_not_corpus_metrics(tmp_path):
    """Issue 31: the message suggested score='f1' for generation tasks whose f1 the harness logs per record as
    ``[gold, [prediction]]`` (a corpus-level metric's input); it now names the fields that are per-document
    scores in these logs, and says why the others are not."""
    out = tmp_path / "m"
    out.mkdir()
    with open(out / f"samples_squadish_{DATE}.jsonl", "w", encoding="utf-8") as fh:
        for i, (gold, pred) in enumerate([("Paris", "Paris"), ("1848", "1849"), ("blue", "blue")]):
            fh.write(json.dumps({
                "doc_id": i, "doc": {"question": f"q{i}"}, "target": gold,
                "arguments": {"gen_args_0": {"arg_0": f"q{i}", "arg_1": "{'until': ['\\n']}"}},
                "resps": [[pred]], "filtered_resps": [pred], "filter": "none", "metrics": ["exact_match", "f1"],
                "exact_match": float(gold == pred), "f1": [gold, [pred]]}, ensure_ascii=False) + "\n")
    with pytest.raises(tw.InvalidValueError, match=r"3 record\(s\) of generation tasks, which need a per-document "
                                                   r"score: pass `score=` naming one the harness logged per document: "
                                                   r"'exact_match'; not 'f1': logged per record as a corpus-level"):
        tw.io.read_lm_eval(tmp_path)
    trials = read_quiet(tmp_path, score="exact_match")  # the suggestion works
    assert trials["score"].tolist() == [1.0, 0.0, 1.0]


# ------------------------------------------------------------------- generative multiple choice (issue 31, item 2)

#: (template, option claimed: an index, or None for an answer that names no option) — how chat models answer.
_ANSWERS = [("{L}", "index"), ("The best answer is {L}", "index"), ("ANSWER: {L}", "index"), ("{L}. {T}", "index"),
            ("Let's think step by step. ... The answer is ({L}).", "index"), ("{T}", "index"),
            ("I cannot answer that.", None), ("The answer is {L} or {M}.", None), ("[invalid]", None)]


def _generative_logs(root: Path, models=("gpt-3.5-turbo", "claude-x", "local/llama"), n_docs=24, seed=11,
                     task="mmlu_generative_x", arc=False):
    """Logs of a generative multiple-choice task written by lm-eval's own EvaluationTracker, as ``evaluate`` builds
    a ``generate_until`` record (arguments: (context, generation kwargs); resps [[text]]; filtered_resps [text];
    target: the letter of ``doc_to_target``), and each trial's expected (truth, response)."""
    from lm_eval.loggers import evaluation_tracker as tracker_module
    from lm_eval.utils import handle_non_serializable, hash_string

    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n_docs):
        k = int(rng.integers(3, 6)) if not arc else 4
        texts = [f"answer {i}.{j} " + "w" * int(rng.integers(0, 4)) for j in range(k)]
        gold = int(rng.integers(k))
        if arc:  # ARC's own layout: choices as {"text", "label"}, labels "1".."4" on some items
            labels = ["1", "2", "3", "4"] if i % 2 else ["A", "B", "C", "D"]
            docs.append({"id": f"arc/{i}", "question": f"q{i}?", "choices": {"text": texts, "label": labels},
                         "answerKey": labels[gold]})
        else:
            docs.append({"question": f"q{i}?", "subject": f"s{i % 3}", "choices": texts, "answer": gold})
    expected = {}
    for model in models:
        tracker = tracker_module.EvaluationTracker(output_path=str(root))
        tracker.general_config_tracker.log_experiment_args(model_source="openai-chat-completions",
                                                           model_args=f"model={model}", system_instruction=None,
                                                           chat_template=None, fewshot_as_multiturn=False)
        samples = []
        for i, doc in enumerate(docs):
            texts = doc["choices"]["text"] if arc else doc["choices"]
            gold = doc["choices"]["label"].index(doc["answerKey"]) if arc else doc["answer"]
            letters = "ABCDE"[:len(texts)]
            template, kind = _ANSWERS[int(rng.integers(len(_ANSWERS)))]
            chosen = int(rng.integers(len(texts)))
            other = (chosen + 1) % len(texts)
            text = template.format(L=letters[chosen], M=letters[other], T=texts[chosen])
            context = f"{doc['question']}\n" + "\n".join(f"{c}. {t}" for c, t in zip(letters, texts)) + "\nAnswer:"
            target = letters[gold]
            example = {"doc_id": i, "doc": doc, "target": target,
                       "arguments": [(context, {"until": ["\n\n"], "do_sample": False})],
                       "resps": [[text]], "filtered_resps": [text.strip()], "filter": "remove_whitespace",
                       "metrics": ["exact_match"],
                       "doc_hash": hash_string(json.dumps(doc, indent=2, default=handle_non_serializable,
                                                          ensure_ascii=False)),
                       "prompt_hash": hash_string(context), "target_hash": hash_string(target),
                       "exact_match": float(text.strip() == target)}
            samples.append(example)
            expected[(model, example["doc_hash"])] = (str(gold), str(chosen) if kind else "na", len(texts))
        tracker.save_results_aggregated(results={"results": {task: {}}, "group_subtasks": {task: []}},
                                        samples={task: samples})
        tracker.save_results_samples(task, samples)
    return expected


def test_generative_multiple_choice_written_by_the_harness_maps_answers_to_options(tmp_path):
    expected = _generative_logs(tmp_path)
    with pytest.raises(tw.InvalidValueError, match=r"generation tasks, which need a per-document score"):
        tw.io.read_lm_eval(tmp_path)  # without the mapping: generation records, as before
    unmapped = sum(response == "na" for _, response, _ in expected.values())
    assert 0 < unmapped < len(expected)
    with pytest.warns(tw.TrialwiseWarning, match=rf"read 72 trials from 3 lm-evaluation-harness file\(s\); {unmapped} "
                                                 rf"responses that map to no option \(kept as response 'na', "
                                                 rf"incorrect\)"):
        trials = tw.io.read_lm_eval(tmp_path, map_answers=True)
    assert len(trials) == len(expected) == 72
    for row in trials.itertuples():
        truth, response, k = expected[(row.subject, row.image)]
        assert (row.truth, row.response, row.n_options) == (truth, response, k)
        assert row.correct == (response == truth) and row.probabilities is None
    log = trials.attrs["log"]
    # no other note: where the harness's exact_match says right (a lone letter equal to the target), so do we
    assert log["unmapped"] == unmapped and log["noted"] == {"responses that map to no option (kept as response "
                                                            "'na', incorrect)": unmapped}
    assert log["generated"] == 72 and 0 < sum(r.response == r.truth for r in trials.itertuples())
    assert sorted(trials.subject.unique()) == ["claude-x", "gpt-3.5-turbo", "local/llama"]


def test_arc_documents_carry_their_options_as_text_and_label(tmp_path):
    expected = _generative_logs(tmp_path, models=("m1", "m2"), arc=True, task="arc_challenge_chat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        trials = tw.io.read_lm_eval(tmp_path, map_answers=True)
    assert {(r.subject, r.image): (r.truth, r.response, r.n_options) for r in trials.itertuples()} == expected


def test_answer_pattern_is_tried_first_and_implies_the_mapping(tmp_path):
    out = tmp_path / "m"
    out.mkdir()
    #: (generated text, target, response expected with the pattern, without it)
    rows = [("Final pick -> B", "A", "1", "na"),  # only the pattern reads the arrow
            ("Final pick -> C but the answer is A", "C", "2", "0"),  # the pattern decides where it matches
            ("The answer is B", "B", "1", "1"),  # it matches nowhere: the built-in rules
            ("Final pick -> Q", "A", "na", "na")]  # it matches, naming no option: unmapped
    with open(out / f"samples_genx_{DATE}.jsonl", "w", encoding="utf-8") as fh:
        for i, (text, target, _, _) in enumerate(rows):
            fh.write(json.dumps({"doc_id": i, "doc": {"question": f"q{i}", "choices": ["x", "y", "z"]},
                                 "target": target, "arguments": {"gen_args_0": {"arg_0": f"q{i}", "arg_1": "{}"}},
                                 "resps": [[text]], "filtered_resps": [text], "filter": "none",
                                 "metrics": ["exact_match"], "exact_match": 0.0}) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        with_pattern = tw.io.read_lm_eval(tmp_path, answer_pattern=r"pick -> (\w)")  # no map_answers=True needed
        without = tw.io.read_lm_eval(tmp_path, map_answers=True)
    assert with_pattern.response.tolist() == [r[2] for r in rows]
    assert without.response.tolist() == [r[3] for r in rows]
    assert with_pattern.attrs["log"]["answer_pattern"] == r"pick -> (\w)"
    assert (with_pattern.attrs["log"]["unmapped"], without.attrs["log"]["unmapped"]) == (1, 2)


def test_generation_records_without_options_or_target_are_counted(tmp_path):
    out = tmp_path / "m"
    out.mkdir()
    rows = [({"question": "q0", "choices": ["x", "y"]}, "A", "A"),  # read
            ({"question": "q1"}, "Paris", "Paris"),  # no options: skipped
            ({"question": "q2", "choices": ["x", "y"]}, "Q", "B")]  # target names no option: skipped
    with open(out / f"samples_genx_{DATE}.jsonl", "w", encoding="utf-8") as fh:
        for i, (doc, target, text) in enumerate(rows):
            fh.write(json.dumps({"doc_id": i, "doc": doc, "target": target,
                                 "arguments": {"gen_args_0": {"arg_0": "q", "arg_1": "{}"}}, "resps": [[text]],
                                 "filtered_resps": [text], "filter": "none", "metrics": ["exact_match"],
                                 "exact_match": 1.0}) + "\n")
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 1 generation records whose document carries no options "
                                                 r".*; 1 generation records whose target names no option"):
        trials = tw.io.read_lm_eval(tmp_path, map_answers=True)
    assert trials[["truth", "response", "correct"]].values.tolist() == [["0", "0", True]]
    with warnings.catch_warnings():  # with score=, the records without options are read as scored generations
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        both = tw.io.read_lm_eval(tmp_path, map_answers=True, score="exact_match")
    assert both.n_options.tolist() == [2, 0] and both.score.tolist() == [1.0, 1.0]


def test_answers_the_harness_scored_right_but_mapped_elsewhere_are_noted(tmp_path):
    out = tmp_path / "m"
    out.mkdir()
    rows = [("A", "A", 1.0), ("B", "A", 1.0), ("A", "A", 0.0), ("C", "C", 1.0)]  # line 2: a log that contradicts itself
    with open(out / f"samples_genx_{DATE}.jsonl", "w", encoding="utf-8") as fh:
        for i, (text, target, em) in enumerate(rows):
            fh.write(json.dumps({"doc_id": i, "doc": {"question": f"q{i}", "choices": ["x", "y", "z"]},
                                 "target": target, "arguments": {"gen_args_0": {"arg_0": f"q{i}", "arg_1": "{}"}},
                                 "resps": [[text]], "filtered_resps": [text], "filter": "none",
                                 "metrics": ["exact_match"], "exact_match": em}) + "\n")
    with pytest.warns(tw.TrialwiseWarning, match=r"read 4 trials .*; 1 trials the harness scored right \(exact_match "
                                                 r"1\) whose answer maps to another option or none"):
        trials = tw.io.read_lm_eval(tmp_path, map_answers=True)
    assert trials.correct.tolist() == [True, False, True, True]
    assert (trials.attrs["log"]["generated"], trials.attrs["log"]["unmapped"]) == (4, 0)


def test_bad_answer_options_name_the_argument(tmp_path):
    _generative_logs(tmp_path, models=("m1",), n_docs=2)
    with pytest.raises(tw.InvalidValueError, match=r"`answer_pattern` must be a regular expression with one capture "
                                                   r"group .*got 'Answer: \(', which does not compile"):
        tw.io.read_lm_eval(tmp_path, answer_pattern="Answer: (")
    with pytest.raises(tw.InvalidValueError, match=r"`answer_pattern` must have exactly one capture group.*0 groups"):
        tw.io.read_lm_eval(tmp_path, answer_pattern="Answer: [A-D]")
    with pytest.raises(tw.InvalidTypeError, match=r"`map_answers` must be True or False; got str 'yes'"):
        tw.io.read_lm_eval(tmp_path, map_answers="yes")


def test_choice_agreement_discrete_capa_and_ec_on_mapped_answers_against_brute_force(tmp_path):
    """End to end: the table of mapped answers gives the agreement functions what they need; choice agreement,
    discrete CAPA and EC equal their definitions written out here (an answer that maps to no option is wrong and
    agrees with nothing, not even another unmapped one)."""
    _generative_logs(tmp_path, n_docs=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        trials = tw.io.read_lm_eval(tmp_path, map_answers=True)
    with pytest.raises(tw.InvalidValueError, match=r"capa-discrete"):
        tw.pairwise_agreement(trials, metric="capa", n_resamples=0)
    models = sorted(trials.subject.unique())
    wide = {m: trials[trials.subject == m].set_index("image").sort_index() for m in models}
    items = wide[models[0]].index
    k = wide[models[0]].n_options.to_numpy()
    choice = tw.pairwise_agreement(trials, metric="choice", n_resamples=200, rng=1).to_frame()
    with warnings.catch_warnings():  # 40 questions of low accuracy: sparse 2x2 tables (intervals, not the estimate)
        warnings.simplefilter("ignore", tw.SparseTableWarning)
        ec = tw.pairwise_agreement(trials, metric="ec", n_resamples=200, rng=1).to_frame()
    discrete = tw.pairwise_agreement(trials, metric="capa-discrete", n_resamples=0).to_frame()
    f = np.mean(1.0 / (k - 1))
    for row in discrete.itertuples():  # κ_p of Goel et al. 2025 (eq. 1-3) on one-hot answers, written out
        a, b = wide[row.observer_a].loc[items], wide[row.observer_b].loc[items]
        c_obs = ((a.response == b.response) & (a.response != "na")).mean()
        pa, pb = a.correct.mean(), b.correct.mean()
        c_exp = pa * pb + f * (1 - pa) * (1 - pb)
        assert row.statistic == pytest.approx((c_obs - c_exp) / (1 - c_exp), abs=1e-12)
    for row, erow in zip(choice.itertuples(), ec.itertuples()):
        a, b = wide[row.observer_a].loc[items], wide[row.observer_b].loc[items]
        same = ((a.response == b.response) & (a.response != "na")).mean()
        assert row.statistic == pytest.approx(same, abs=1e-12)
        ca, cb = a.correct.to_numpy(bool), b.correct.to_numpy(bool)
        c_obs, pa, pb = np.mean(ca == cb), ca.mean(), cb.mean()
        c_exp = pa * pb + (1 - pa) * (1 - pb)
        assert (erow.observer_a, erow.observer_b) == (row.observer_a, row.observer_b)
        assert erow.statistic == pytest.approx((c_obs - c_exp) / (1 - c_exp), abs=1e-12)


def test_map_answers_leaves_log_likelihood_tasks_as_they_are(three_models):
    root, _, _ = three_models
    plain, mapped = read_quiet(root), read_quiet(root, map_answers=True)
    assert plain.equals(mapped)
    assert (mapped.attrs["log"]["generated"], mapped.attrs["log"]["unmapped"]) == (0, 0)
