"""read_every_eval_ever: instance-level records written here to the every-eval-ever schema.

The every_eval_ever package needs Python >= 3.12, so the records are written from dicts following
``every_eval_ever/schemas/instance_level_eval.schema.json`` of evaleval/every_eval_ever at 9bce413
(schema 0.3.0; the required fields: schema_version, evaluation_id, model_id, evaluation_name,
sample_id, interaction_type, input {raw, reference}, answer_attribution, evaluation {score,
is_correct}; no other top-level field), in the two shapes its converters write multiple choice:
``converters/lm_eval/instance_level_adapter.py`` (reference ``[target]`` as the harness logs it, an
option index as text; ``choices`` the continuations stripped; the extracted value the chosen
option's text) and ``converters/inspect/instance_level_adapter.py`` (reference the target letter,
``choices`` the sample's). The oracle is the record's own ``evaluation.is_correct``.

The fixtures were validated once with jsonschema against that schema file (instance_level_eval.schema.json
at 9bce413, which also rejects a record with an unknown field); the schema is not vendored here, so the
suite checks the records through the reader only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import trialwise as tw

CHOICES = ["Paris", "Berlin", "Rome", "Madrid"]


def record(model: str, task: str, i: int, *, style: str, chosen: int | None = None, gold: int = 0,
           score: float | None = None, correct: bool | None = None, error: str | None = None,
           metadata: dict | None = None) -> dict:
    """One instance-level record (``style``: "lm_eval" or "inspect" multiple choice, or "generation")."""
    if style == "generation":
        reference, choices, answer = [str(2 * i)], None, str(2 * i if correct else 2 * i + 1)
    else:
        reference = [str(gold)] if style == "lm_eval" else ["ABCD"[gold]]
        choices = CHOICES
        answer = "I cannot say" if chosen is None else (CHOICES[chosen] if style == "lm_eval" else "ABCD"[chosen])
        correct = chosen == gold
    out = {
        "schema_version": "0.3.0", "evaluation_id": f"{task}/{model}/run-1", "model_id": model,
        "evaluation_name": task, "sample_id": f"{task}_{i:04d}", "sample_hash": f"h{i}",
        "interaction_type": "single_turn",
        "input": {"raw": f"Question {i}", "reference": reference, "choices": choices},
        "output": {"raw": [answer]},
        "answer_attribution": [{"turn_idx": 0, "source": "output.raw", "extracted_value": answer,
                                "extraction_method": "exact_match", "is_terminal": True}],
        "evaluation": {"score": float(correct) if score is None else score, "is_correct": bool(correct)},
        "error": error,
    }
    if metadata is not None:
        out["metadata"] = metadata
    return out


def write(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def suite(root: Path) -> dict[str, list[dict]]:
    """Two models, an lm-eval-style and an Inspect-style multiple-choice task, and a generation task."""
    picks = {"org/a": [0, 1, 2, 0, None, 3], "org/b": [0, 0, 2, 1, 1, 3]}
    out = {}
    for model, chosen in picks.items():
        rows = [record(model, "capitals", i, style="lm_eval", chosen=c, gold=i % 4,
                       metadata={"region": f"r{i % 2}"}) for i, c in enumerate(chosen)]
        rows += [record(model, "capitals_chat", i, style="inspect", chosen=c, gold=i % 4,
                        metadata={"region": f"r{i % 2}"}) for i, c in enumerate(chosen)]
        rows += [record(model, "gsm", i, style="generation", correct=(i + len(model)) % 3 != 0,
                        metadata={"region": "r0"}) for i in range(5)]
        out[model] = rows
        write(root / model.replace("/", "__") / "instances.jsonl", rows)
    (root / "org__a" / "aggregate.json").write_text(json.dumps({"schema_version": "0.3.0"}))  # not instance-level
    return out


def test_truths_responses_and_correctness_are_the_records_own(tmp_path):
    written = suite(tmp_path)
    with pytest.warns(tw.TrialwiseWarning, match=r"2 answers that name no option \(kept as response 'na'"):
        trials = tw.io.read_every_eval_ever(tmp_path)
    assert len(trials) == 2 * (6 + 6 + 5) and trials.attrs["log"]["metric_mismatches"] == 0
    assert trials["subject"].unique().tolist() == ["org/a", "org/b"]
    for model, rows in written.items():
        for r in rows:
            t = trials[(trials.subject == model) & (trials.image == r["sample_id"])]
            assert len(t) == 1 and t["condition"].iloc[0] == r["evaluation_name"]
            assert bool(t["correct"].iloc[0]) == r["evaluation"]["is_correct"]  # the oracle
            assert t["score"].iloc[0] == r["evaluation"]["score"]
    mc = trials[trials.condition == "capitals"]
    assert set(mc["n_options"]) == {4} and mc["probabilities"].isna().all()
    assert mc["truth"].tolist()[:6] == ["0", "1", "2", "3", "0", "1"]
    assert mc[mc.subject == "org/a"]["response"].tolist() == ["0", "1", "2", "0", "na", "3"]
    chat = trials[trials.condition == "capitals_chat"]
    assert chat[["truth", "response"]].reset_index(drop=True).equals(mc[["truth", "response"]].reset_index(drop=True))
    generation = trials[trials.condition == "gsm"]
    assert set(generation["n_options"]) == {0} and generation["truth"].tolist()[:2] == ["0", "2"]


def test_errors_and_scores_outside_the_unit_interval_are_counted(tmp_path):
    rows = [record("m/a", "bleu", i, style="generation", correct=i < 2, score=[87.5, 60.0, 0.2][i]) for i in range(3)]
    rows.append(record("m/a", "bleu", 3, style="generation", correct=True, error="timeout"))
    write(tmp_path / "a.jsonl", rows)
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 1 records with an error .*; 2 trials whose "
                                                 r"`evaluation.score` is not in \[0, 1\], scored by `is_correct`"):
        trials = tw.io.read_every_eval_ever(tmp_path / "a.jsonl")
    assert trials["score"].tolist() == [1.0, 1.0, 0.2] and trials["correct"].tolist() == [True, True, False]


def test_clusters_and_read_logs(tmp_path):
    suite(tmp_path)
    with pytest.warns(tw.TrialwiseWarning):
        trials = tw.read_logs(tmp_path, clusters="region")
    assert trials.attrs["log"]["format"] == "every-eval-ever" and set(trials["cluster"]) == {"r0", "r1"}
    with pytest.raises(tw.InvalidValueError, match=r"instances\.jsonl:1: `clusters`='subject' is not a key of the "
                                                   r"record's `metadata` \(keys: \['region'\]\)"):
        tw.io.read_every_eval_ever(tmp_path, clusters="subject")
    with pytest.raises(tw.InvalidValueError, match=r"`filter_name` is not an option of every-eval-ever logs "
                                                   r"\(read_every_eval_ever takes: clusters, unaligned\)"):
        tw.read_logs(tmp_path, filter_name="none")


@pytest.mark.parametrize("case, match", [
    ("empty", r"empty\.jsonl: the file is empty"),
    ("missing", r"missing\.jsonl:2: not an every-eval-ever instance-level record \(no evaluation_name, sample_id\)"),
    ("broken", r"broken\.jsonl:2: not a JSON record"),
])
def test_bad_files_are_named(tmp_path, capsys, case, match):
    from trialwise.cli import main

    good = json.dumps(record("m/a", "t", 0, style="lm_eval", chosen=0))
    path = tmp_path / f"{case}.jsonl"
    path.write_text({"empty": "", "missing": good + '\n{"schema_version": "0.3.0", "evaluation_id": "e", '
                     '"model_id": "m", "input": {}, "evaluation": {}}\n', "broken": good + "\n{\"sample_id\n"}[case])
    with pytest.raises(tw.InvalidValueError, match=match):
        tw.io.read_every_eval_ever(str(path))
    code = main(["similarity", str(path), "--format", "every-eval-ever"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
