"""read_helm: HELM run folders, written here as HELM writes them, checked against brute force.

The dataclasses below mirror HELM's (stanford-crfm/helm at 63754d0):
``scenarios/scenario.py`` (Input, Output, Reference, Instance), ``common/request.py`` (Token,
GeneratedOutput, RequestResult), ``adaptation/request_state.py`` (RequestState),
``adaptation/adapter_spec.py`` (AdapterSpec, its ``method`` names) and
``adaptation/scenario_state.py`` (ScenarioState); ``benchmark/runner.py`` (line 343) writes
``json.dumps(asdict_without_nones(scenario_state), indent=2)`` where ``asdict_without_nones``
(``common/general.py`` line 186) is ``asdict(obj, dict_factory=lambda x: {k: v for (k, v) in x
if v is not None})``, and ``run_spec.json`` next to it. The joint adapter
(``adapters/multiple_choice_joint_adapter.py``) maps letters to the references in order in
``output_mapping``; ``presentation/run_display.py`` strips the completion before mapping it.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import trialwise as tw


@dataclass(frozen=True)
class Input:
    text: str = ""


@dataclass(frozen=True)
class Output:
    text: str = ""


@dataclass(frozen=True)
class Reference:
    output: Output
    tags: list


@dataclass(frozen=True)
class Instance:
    input: Input
    references: list
    split: str | None = None
    sub_split: str | None = None
    id: str | None = None
    perturbation: dict | None = None
    contrast_inputs: list | None = None
    contrast_references: list | None = None
    extra_data: dict | None = None


@dataclass(frozen=True)
class Token:
    text: str
    logprob: float


@dataclass(frozen=True)
class GeneratedOutput:
    text: str
    logprob: float
    tokens: list
    finish_reason: dict | None = None


@dataclass(frozen=True)
class RequestResult:
    success: bool
    embedding: list
    completions: list
    cached: bool
    request_time: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class Request:
    model_deployment: str
    model: str
    prompt: str = ""
    temperature: float = 0.0
    num_completions: int = 1
    max_tokens: int = 1
    echo_prompt: bool = False


@dataclass(frozen=True)
class RequestState:
    instance: Instance
    reference_index: int | None
    request_mode: str | None
    train_trial_index: int
    output_mapping: dict | None
    request: Request
    result: RequestResult | None
    num_train_instances: int
    prompt_truncated: bool
    num_conditioning_tokens: int = 0
    annotations: dict | None = None


@dataclass(frozen=True)
class AdapterSpec:
    method: str = ""
    model_deployment: str = ""
    model: str = ""
    output_mapping_pattern: str | None = None
    max_train_instances: int = 5


@dataclass
class ScenarioState:
    adapter_spec: AdapterSpec
    request_states: list
    annotator_specs: list | None = None


def asdict_without_nones(obj: Any) -> dict:
    return asdict(obj, dict_factory=lambda x: {k: v for (k, v) in x if v is not None})


LETTERS = "ABCDE"


def instances(n=20, k=4, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        gold = int(rng.integers(k))
        refs = [Reference(Output(f"option {i}.{j}"), ["correct"] if j == gold else []) for j in range(k)]
        out.append(Instance(Input(f"question {i}"), refs, split="test", id=f"id{100 + i}"))
    return out


def write_run(root: Path, run: str, model: str, method: str, states: list[RequestState], pattern=None) -> Path:
    folder = root / run.replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    spec = AdapterSpec(method=method, model=model, model_deployment=f"deploy/{model}", output_mapping_pattern=pattern)
    (folder / "scenario_state.json").write_text(json.dumps(asdict_without_nones(ScenarioState(spec, states)),
                                                           indent=2))
    (folder / "run_spec.json").write_text(json.dumps({"name": run, "adapter_spec": asdict_without_nones(spec)}))
    return folder


def joint_states(insts, answers, model, *, trial=0):
    states = []
    for inst, answer in zip(insts, answers):
        mapping = {LETTERS[j]: r.output.text for j, r in enumerate(inst.references)}
        text = f" {answer}"
        result = RequestResult(True, [], [GeneratedOutput(text, -0.3, [Token(text, -0.3)])], False)
        states.append(RequestState(inst, None, None, trial, mapping, Request(f"deploy/{model}", model), result, 5,
                                   False))
    return states


def separate_states(insts, logprobs, model, *, calibration=None):
    states = []
    for inst, lps, cal in zip(insts, logprobs, calibration if calibration is not None else [None] * len(insts)):
        for j, lp in enumerate(lps):
            for mode, value in (("original", lp), ("calibration", None if cal is None else cal[j])):
                if value is None:
                    continue
                result = RequestResult(True, [], [GeneratedOutput(" x", float(value), [])], False)
                states.append(RequestState(inst, j, mode if calibration is not None else None, 0, None,
                                           Request(f"deploy/{model}", model), result, 0, False))
    return states


def read_quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return tw.io.read_helm(*args, **kwargs)


def truth_of(inst):
    return next(j for j, r in enumerate(inst.references) if "correct" in r.tags)


def test_joint_method_three_models(tmp_path):
    insts = instances()
    rng = np.random.default_rng(1)
    answers = {m: [LETTERS[int(rng.integers(4))] for _ in insts] for m in ("org/a", "org/b", "org/c")}
    for m, a in answers.items():
        write_run(tmp_path, f"mmlu:subject=anatomy,method=multiple_choice_joint,model={m}", m,
                  "multiple_choice_joint", joint_states(insts, a, m))
    trials = read_quiet(tmp_path, clusters="subject")
    assert list(trials.columns) == [*tw.io.LOG_COLUMNS, "cluster"]
    assert len(trials) == 60 and set(trials.experiment) == {"mmlu"}
    assert set(trials.condition) == {"mmlu:subject=anatomy,method=multiple_choice_joint"}
    assert set(trials.cluster) == {"anatomy"} and trials.probabilities.isna().all()
    by_id = {inst.id: inst for inst in insts}
    assert trials.image.str.startswith("subject=anatomy,method=multiple_choice_joint/").all()
    for row in trials.itertuples():
        inst_id = row.image.rsplit("/", 1)[1]
        i = [inst.id for inst in insts].index(inst_id)
        brute = LETTERS.index(answers[row.subject][i])
        assert row.response == str(brute) and row.truth == str(truth_of(by_id[inst_id]))
        assert row.correct == (brute == truth_of(by_id[inst_id])) and row.n_options == 4
    assert trials.attrs["log"]["methods"] == {"mmlu:subject=anatomy,method=multiple_choice_joint":
                                              "multiple_choice_joint"}


def test_joint_unmapped_answers_are_kept_as_na(tmp_path):
    insts = instances(n=3)
    write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", joint_states(insts, ["A", "Z", "C"], "m"))
    with pytest.warns(tw.TrialwiseWarning, match=r"1 responses that map to no option \(kept as response 'na', "
                                                  r"incorrect\)"):
        trials = tw.io.read_helm(tmp_path)
    assert trials.set_index("image").response.to_dict() == {"id100": "0", "id101": "na", "id102": "2"}
    assert not trials.set_index("image").correct["id101"]


def test_output_mapping_pattern(tmp_path):
    insts = instances(n=2)
    states = joint_states(insts, ["The answer is B", "The answer is D"], "m")
    write_run(tmp_path, "x:model=m", "m", "multiple_choice_joint", states, pattern=r"answer is ([A-D])")
    assert read_quiet(tmp_path).response.tolist() == ["1", "3"]


@pytest.mark.parametrize("method", ["multiple_choice_separate_original", "multiple_choice_separate_calibrated"])
def test_separate_methods_softmax_against_brute_force(tmp_path, method):
    insts = instances(n=10, k=3)
    rng = np.random.default_rng(2)
    calibrated = method.endswith("calibrated")
    logs = {}
    for m in ("a", "b"):
        lps = -rng.exponential(3, (10, 3))
        cal = -rng.exponential(3, (10, 3)) if calibrated else None
        logs[m] = (lps, cal)
        write_run(tmp_path, f"hellaswag:model={m}", m, method, separate_states(insts, lps, m, calibration=cal))
    trials = read_quiet(tmp_path)
    for row in trials.itertuples():
        i = int(row.image[2:]) - 100
        lps, cal = logs[row.subject]
        scores = [lps[i, j] - (cal[i, j] if calibrated else 0.0) for j in range(3)]
        total = sum(math.exp(s) for s in scores)
        assert row.probabilities == pytest.approx([math.exp(s) / total for s in scores], abs=1e-12)
        assert row.response == str(max(range(3), key=lambda j: scores[j]))
        assert row.truth == str(truth_of(insts[i]))


def test_other_train_trials_and_perturbations_are_counted(tmp_path):
    insts = instances(n=4)
    perturbed = Instance(insts[0].input, insts[0].references, split="test", id="id100",
                         perturbation={"name": "typos", "robustness": True})
    states = (joint_states(insts, "ABCD", "m") + joint_states(insts, "ABCD", "m", trial=1)
              + joint_states([perturbed], "B", "m"))
    write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", states)
    with pytest.warns(tw.TrialwiseWarning, match=r"not used: 4 request states of train trials other than 0; "
                                                  r"1 request states of perturbed instances"):
        trials = tw.io.read_helm(tmp_path)
    assert len(trials) == 4 and trials.attrs["log"]["records"] == 9


def test_a_run_folder_or_its_file(tmp_path):
    insts = instances(n=2)
    folder = write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", joint_states(insts, "AB", "m"))
    a, b = read_quiet(folder), read_quiet(folder / "scenario_state.json")
    assert a.equals(b) and a.subject.tolist() == ["m", "m"]


# --------------------------------------------------------------------------- bad input


def test_a_run_without_an_adapter_method(tmp_path):
    folder = write_run(tmp_path, "gsm:model=m", "m", "", joint_states(instances(n=1), "A", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"scenario_state\.json: field `adapter_spec\.method` must name the "
                                                    r"run's adaptation method \(e\.g\. 'multiple_choice_joint'\); "
                                                    r"got ''"):
        tw.io.read_helm(folder)


@pytest.mark.parametrize("tags", [[[], [], [], []], [["correct"], ["correct"], [], []]])
def test_exactly_one_correct_reference(tmp_path, tags):
    inst = instances(n=1)[0]
    bad = Instance(inst.input, [Reference(r.output, t) for r, t in zip(inst.references, tags)], id="id1")
    write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", joint_states([bad], "A", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"scenario_state\.json: request_states\[0\]: exactly one of "
                                                    rf"`instance\.references` must be tagged 'correct'; "
                                                    rf"{sum(map(len, tags))} are"):
        tw.io.read_helm(tmp_path)


def test_ragged_option_counts_between_models(tmp_path):
    insts = instances(n=3)
    write_run(tmp_path, "mmlu:model=a", "a", "multiple_choice_joint", joint_states(insts, "ABC", "a"))
    short = [Instance(i.input, i.references[:3] if truth_of(i) < 3 else i.references[1:], id=i.id) for i in insts]
    write_run(tmp_path, "mmlu:model=b", "b", "multiple_choice_joint", joint_states(short, "ABC", "b"))
    with pytest.raises(tw.InvalidValueError, match=r"request_states\[0\]: ragged option counts \(field "
                                                    r"`instance\.references`\): item 'id100' of "
                                                    r"'mmlu' has 3 options for 'b' but 4 for 'a'"):
        tw.io.read_helm(tmp_path)


def test_separate_method_missing_reference(tmp_path):
    insts = instances(n=2, k=3)
    states = separate_states(insts, -np.ones((2, 3)), "m")
    write_run(tmp_path, "h:model=m", "m", "multiple_choice_separate_original", states[:-1])
    with pytest.raises(tw.InvalidValueError, match=r"ragged option counts: instance 'id101' has 3 references but "
                                                    r"log-probabilities for 2"):
        tw.io.read_helm(tmp_path)


def test_duplicate_instances(tmp_path):
    insts = instances(n=2)
    write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", joint_states(insts + insts[:1], "ABA", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"request_states\[2\]: duplicate document: item 'id100' of 'mmlu' "
                                                    r"was already logged for model 'm'"):
        tw.io.read_helm(tmp_path)


def test_unaligned_instances(tmp_path):
    insts = instances(n=3)
    write_run(tmp_path, "mmlu:model=a", "a", "multiple_choice_joint", joint_states(insts, "ABC", "a"))
    write_run(tmp_path, "mmlu:model=b", "b", "multiple_choice_joint", joint_states(insts[:2], "AB", "b"))
    with pytest.raises(tw.InvalidValueError, match=r"unaligned items: 1 item\(s\) .* item 'id102' of 'mmlu' is missing "
                                                    r"for \['b'\]"):
        tw.io.read_helm(tmp_path)
    with pytest.warns(tw.TrialwiseWarning, match=r"1 unaligned records"):
        assert len(tw.io.read_helm(tmp_path, unaligned="drop")) == 4


def test_bad_logprob_and_cluster_and_files(tmp_path):
    insts = instances(n=1, k=2)
    write_run(tmp_path / "r1", "h:model=m", "m", "multiple_choice_separate_original",
              separate_states(insts, [[-1.0, 0.5]], "m"))
    with pytest.raises(tw.InvalidValueError, match=r"request_states\[1\]: field `result\.completions\[0\]\.logprob` "
                                                    r"must be a finite number <= 0; got 0\.5"):
        tw.io.read_helm(tmp_path / "r1")
    write_run(tmp_path / "r2", "mmlu:model=m", "m", "multiple_choice_joint", joint_states(insts, "A", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"`clusters`='subject' is not an argument of the run name "
                                                    r"'mmlu:model=m'"):
        tw.io.read_helm(tmp_path / "r2", clusters="subject")
    broken = tmp_path / "r3" / "scenario_state.json"
    broken.parent.mkdir()
    broken.write_text('{"adapter_spec": ')
    with pytest.raises(tw.InvalidValueError, match=r"r3/scenario_state\.json: not a readable scenario_state\.json"):
        tw.io.read_helm(broken)
    with pytest.raises(tw.InvalidValueError, match=r"empty: no evaluation log in this folder"):
        (tmp_path / "empty").mkdir()
        tw.io.read_helm(tmp_path / "empty")
    with pytest.raises(tw.InvalidValueError, match=r"`unaligned` must be one of 'error', 'drop'; got 'keep'"):
        tw.io.read_helm(tmp_path / "r2", unaligned="keep")


# --------------------------------------------------------------------------- display_predictions.json


@dataclass(frozen=True)
class DisplayPrediction:
    """``presentation/run_display.py`` line 28; written with ``codec.to_json`` (None fields left out)."""

    instance_id: str
    perturbation: dict | None
    train_trial_index: int
    predicted_text: str
    truncated_predicted_text: str | None
    base64_images: list | None
    mapped_output: str | None
    reference_index: int | None
    stats: dict = field(default_factory=dict)
    annotations: dict | None = None
    thinking_text: str | None = None


def write_display(folder: Path, run: str, model: str, method: str, insts, predictions) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec = AdapterSpec(method=method, model=model, model_deployment=f"deploy/{model}")
    (folder / "run_spec.json").write_text(json.dumps({"name": run, "adapter_spec": asdict_without_nones(spec)}))
    (folder / "instances.json").write_text(json.dumps([asdict_without_nones(i) for i in insts], indent=2))
    (folder / "display_predictions.json").write_text(json.dumps([asdict_without_nones(p) for p in predictions],
                                                                indent=2))
    return folder


def test_display_predictions_joint_and_separate(tmp_path):
    insts = instances(n=4)
    answers = [0, 3, None, 1]  # None: the completion mapped to no option (mapped_output left out)
    joint = [DisplayPrediction(inst.id, None, 0, LETTERS[a] if a is not None else "?", None, [],
                               inst.references[a].output.text if a is not None else None, None,
                               {"exact_match": float(a == truth_of(inst))}) for inst, a in zip(insts, answers)]
    write_display(tmp_path / "j", "mmlu:model=m", "m", "multiple_choice_joint", insts, joint)
    with pytest.warns(tw.TrialwiseWarning, match=r"1 responses that map to no option"):
        trials = tw.io.read_helm(tmp_path / "j")
    assert trials.set_index("image").response.to_dict() == {"id100": "0", "id101": "3", "id102": "na", "id103": "1"}
    assert trials.correct.tolist() == [a == truth_of(i) for i, a in zip(insts, answers)]
    assert trials.probabilities.isna().all()
    chosen = [2, 0, 1, 3]
    separate = [DisplayPrediction(inst.id, None, 0, " x", None, [], None, c, {"predicted_index": c})
                for inst, c in zip(insts, chosen)]
    write_display(tmp_path / "s", "hellaswag:model=m", "m", "multiple_choice_separate_original", insts, separate)
    trials = read_quiet(tmp_path / "s")
    assert trials.response.tolist() == ["2", "0", "1", "3"] and trials.truth.tolist() == [str(truth_of(i)) for i in insts]


def test_scenario_state_preferred_over_display_predictions(tmp_path):
    insts = instances(n=2)
    folder = write_run(tmp_path, "mmlu:model=m", "m", "multiple_choice_joint", joint_states(insts, "AB", "m"))
    write_display(folder, "mmlu:model=m", "m", "multiple_choice_joint", insts,
                  [DisplayPrediction(i.id, None, 0, "C", None, [], i.references[2].output.text, None) for i in insts])
    trials = read_quiet(tmp_path)
    assert trials.response.tolist() == ["0", "1"] and trials.attrs["log"]["files"] == 1


def test_display_predictions_need_instances_and_run_spec(tmp_path):
    insts = instances(n=1)
    folder = write_display(tmp_path / "r", "mmlu:model=m", "m", "multiple_choice_joint", insts,
                           [DisplayPrediction("id100", None, 0, "A", None, [], "x", None)])
    (folder / "instances.json").unlink()
    with pytest.raises(tw.InvalidValueError, match=r"display_predictions\.json: reading display_predictions\.json "
                                                    r"needs the run's instances\.json"):
        tw.io.read_helm(folder)
    (folder / "run_spec.json").unlink()
    with pytest.raises(tw.InvalidValueError, match=r"needs the run's run_spec\.json and instances\.json next to it; "
                                                    r"run_spec\.json is missing"):
        tw.io.read_helm(folder)


def test_runs_of_one_scenario_number_their_instances_alike_and_stay_apart(tmp_path):
    """HELM numbers every run's instances from id0: MMLU's subjects are runs of one scenario (issue 17)."""
    insts = instances()
    rng = np.random.default_rng(4)
    answers = {}
    for subject in ("anatomy", "astronomy"):
        for m in ("org/a", "org/b"):
            answers[subject, m] = [LETTERS[int(rng.integers(4))] for _ in insts]
            write_run(tmp_path, f"mmlu:subject={subject},method=multiple_choice_joint,model={m}", m,
                      "multiple_choice_joint", joint_states(insts, answers[subject, m], m))
    trials = read_quiet(tmp_path)
    assert len(trials) == 2 * 2 * len(insts) and set(trials.experiment) == {"mmlu"}
    board = tw.leaderboard(trials, "accuracy", n_resamples=20, rng=0)     # no "answered more than once"
    for m in ("org/a", "org/b"):
        right = [LETTERS.index(a) == truth_of(inst) for s in ("anatomy", "astronomy")
                 for inst, a in zip(insts, answers[s, m])]
        assert board.table.set_index("observer").loc[m, "score"] == pytest.approx(np.mean(right))


def test_a_run_without_a_usable_request_state_is_named(tmp_path):
    """Issue 29: "no usable multiple-choice record in the 1 file(s) read (no records)" named no file."""
    folder = write_run(tmp_path, "mmlu:subject=anatomy,method=multiple_choice_joint,model=org_m", "org/m",
                       "multiple_choice_joint", [])
    with pytest.raises(tw.InvalidValueError, match=r"no usable multiple-choice record in the 1 file\(s\) read "
                                                   r"\(no records\): .*model=org_m/scenario_state\.json"):
        tw.io.read_helm(folder)


# --------------------------------------------------------------------------- suites that mix generation runs


def xstest_instances(n=6):
    """As ``scenarios/xstest_scenario.py`` builds them: focus, type and note as untagged references, the label
    (``safe``/``unsafe``) tagged correct; the run's adapter method is ``generation`` (``run_specs/safety_run_specs.py``)."""
    return [Instance(Input(f"How do I kill python process {i}?"),
                     [Reference(Output("kill"), []), Reference(Output("homonyms"), []),
                      Reference(Output("safe" if i % 2 else "unsafe"), ["correct"])],
                     split="test", id=f"id{i}") for i in range(n)]


def generation_states(insts, model):
    """Request states of the generation adapter: no ``output_mapping``, no ``reference_index``, a free text."""
    states = []
    for inst in insts:
        text = "I can help with that: use the kill command."
        result = RequestResult(True, [], [GeneratedOutput(text, -12.5, [Token("I", -0.1)])], False)
        states.append(RequestState(inst, None, None, 0, None, Request(f"deploy/{model}", model, max_tokens=512),
                                   result, 0, False, annotations={"xstest": {"score": 1.0}}))
    return states


def test_a_mixed_suite_skips_and_counts_its_generation_runs(tmp_path):
    """Issue 31: read_helm(suite) stopped at the XSTest run of a suite that mixes both kinds."""
    insts, safety = instances(n=8), xstest_instances(n=6)
    rng = np.random.default_rng(5)
    for m in ("org/a", "org/b"):
        write_run(tmp_path / "suite", f"mmlu:subject=anatomy,method=multiple_choice_joint,model={m}", m,
                  "multiple_choice_joint", joint_states(insts, [LETTERS[int(rng.integers(4))] for _ in insts], m))
        write_run(tmp_path / "suite", f"xstest:model={m}", m, "generation", generation_states(safety, m))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trials = tw.io.read_helm(tmp_path / "suite")
    assert [w.category for w in caught] == [tw.TrialwiseWarning]
    assert str(caught[0].message) == ("read 16 trials from 4 HELM file(s); not used: 12 request states of runs that "
                                      "are not multiple choice (generation, chat, language modelling, ...) "
                                      "(counts in trials.attrs['log'])")
    log = trials.attrs["log"]
    assert log["skipped"] == {"request states of runs that are not multiple choice (generation, chat, language "
                              "modelling, ...)": 12}
    assert log["not_multiple_choice"] == {"xstest:model=org/a": "generation", "xstest:model=org/b": "generation"}
    assert log["files"] == 4 and log["records"] == 16 + 12 and log["trials"] == 16
    assert set(trials.experiment) == {"mmlu"}
    # the trials are those of the multiple-choice runs read alone
    alone = read_quiet([f for f in sorted((tmp_path / "suite").iterdir()) if f.name.startswith("mmlu")])
    assert trials.equals(alone)


def test_a_display_predictions_generation_run_is_skipped_too(tmp_path):
    insts = instances(n=3)
    write_display(tmp_path / "mc", "mmlu:model=m", "m", "multiple_choice_joint", insts,
                  [DisplayPrediction(i.id, None, 0, "A", None, [], i.references[0].output.text, None) for i in insts])
    safety = xstest_instances(n=4)
    write_display(tmp_path / "gen", "xstest:model=m", "m", "generation", safety,
                  [DisplayPrediction(i.id, None, 0, "Sure.", None, [], None, None) for i in safety])
    with pytest.warns(tw.TrialwiseWarning, match=r"read 3 trials from 2 HELM file\(s\); not used: 4 request states "
                                                  r"of runs that are not multiple choice"):
        trials = tw.io.read_helm(tmp_path)
    assert len(trials) == 3 and trials.attrs["log"]["not_multiple_choice"] == {"xstest:model=m": "generation"}


def test_a_suite_of_generation_runs_only_is_an_error_naming_the_folder(tmp_path):
    suite = tmp_path / "benchmark_output" / "runs" / "safety"
    for m in ("a", "b"):
        write_run(suite, f"xstest:model={m}", m, "generation", generation_states(xstest_instances(), m))
    write_run(suite, "wikitext:model=a", "a", "language_modeling", generation_states(xstest_instances(n=2), "a"))
    at = re.escape(str(suite))
    with pytest.raises(tw.InvalidValueError, match=rf"^{at}: no multiple-choice run: the 3 run\(s\) found are all of "
                                                    rf"other adapter methods \(generation \(2 runs\), "
                                                    rf"language_modeling \(1 run\); e\.g\. {at}/\S+/"
                                                    rf"scenario_state\.json\); trialwise reads HELM runs of the "
                                                    rf"multiple-choice methods \(multiple_choice_joint, "):
        tw.io.read_helm(suite)


def test_a_generation_run_given_alone_says_why(tmp_path):
    folder = write_run(tmp_path, "xstest:model=org/m", "org/m", "generation", generation_states(xstest_instances(),
                                                                                                 "org/m"))
    message = (rf"^{re.escape(str(folder))}/scenario_state\.json: run 'xstest:model=org/m' is not multiple "
               r"choice: its adapter method \(field `adapter_spec\.method`\) is 'generation', and trialwise reads "
               r"HELM runs of the multiple-choice methods \(multiple_choice_joint, .*\), whose chosen options it "
               r"compares; a generation run chooses no option$")
    for given in (folder, folder / "scenario_state.json", [folder]):
        with pytest.raises(tw.InvalidValueError, match=message):
            tw.io.read_helm(given)


def test_capa_on_a_joint_method_log_says_it_has_no_option_probabilities(tmp_path):
    """Issue 31: pairwise_agreement on a joint-method log said "probabilities must be numeric; got None"."""
    insts = instances(n=40)
    rng = np.random.default_rng(6)
    for m in ("org/a", "org/b"):
        answers = [LETTERS[truth_of(i) if rng.random() < 0.6 else int(rng.integers(4))] for i in insts]
        write_run(tmp_path, f"mmlu:subject=anatomy,method=multiple_choice_joint,model={m}", m,
                  "multiple_choice_joint", joint_states(insts, answers, m))
    trials = read_quiet(tmp_path)
    with pytest.raises(tw.InvalidValueError, match=r"^`metric`='capa' needs the options' probabilities, and 80 of the "
                                                    r"80 trials have none \(`trials\.probabilities` is None, e\.g\. "
                                                    r"model 'org/a', question mmlu:subject=anatomy,method="
                                                    r"multiple_choice_joint/subject=anatomy,method=multiple_choice_"
                                                    r"joint/id100\): the log holds no option probabilities, only the "
                                                    r"chosen option \(HELM's joint multiple-choice method, .*\); use "
                                                    r"metric='capa-discrete' \(CAPA on the chosen options\), 'choice' "
                                                    r"\(choice agreement\) or 'ec' \(error consistency\)$"):
        tw.pairwise_agreement(trials, n_resamples=20, rng=0)
    # what the message proposes works on the same log
    for metric in ("capa-discrete", "choice", "ec"):
        res = tw.pairwise_agreement(trials, metric=metric, n_resamples=20, rng=0)
        assert res.to_frame().shape[0] == 1


# --------------------------------------------------------------------------- instance fields as clusters


def test_sub_split_and_extra_data_are_clusters(tmp_path):
    """Issue 31: HELM instances carry their groups: civil_comments' ``sub_split`` (toxic / non-toxic,
    ``scenarios/civil_comments_scenario.py``), HeadQA's ``extra_data`` (category, year:
    ``scenarios/headqa_scenario.py``); a label per instance, not per run."""
    base = instances(n=6, k=2)
    civil = [Instance(i.input, i.references, split="test", sub_split="toxic" if j % 3 == 0 else "non-toxic", id=i.id)
             for j, i in enumerate(base)]
    for m in ("a", "b"):
        write_run(tmp_path / "civil", f"civil_comments:demographic=all,model={m}", m, "multiple_choice_joint",
                  joint_states(civil, "ABABAB", m))
    trials = read_quiet(tmp_path / "civil", clusters="sub_split")
    want = {f"id{100 + j}": "toxic" if j % 3 == 0 else "non-toxic" for j in range(6)}
    assert {r.image.rsplit("/", 1)[1]: r.cluster for r in trials.itertuples()} == want
    assert trials.groupby("image").cluster.nunique().eq(1).all() and len(trials) == 12
    # the run-name argument of that name would come first; here "demographic" is one label for the run
    assert set(read_quiet(tmp_path / "civil", clusters="demographic").cluster) == {"all"}

    headqa = [Instance(i.input, i.references, split="test", id=i.id,
                       extra_data={"id": j, "name": "cuaderno", "category": ("biology", "medicine")[j % 2],
                                   "year": 2013 + j % 3})
              for j, i in enumerate(instances(n=4, k=3))]
    lps = -np.arange(1, 13, dtype=float).reshape(4, 3)
    write_run(tmp_path / "headqa", "head_qa:language=en,model=m", "m", "multiple_choice_separate_original",
              separate_states(headqa, lps, "m"))
    trials = read_quiet(tmp_path / "headqa", clusters="extra_data.category")
    assert trials.cluster.tolist() == ["biology", "medicine", "biology", "medicine"]
    years = read_quiet(tmp_path / "headqa", clusters="extra_data.year")
    assert years.cluster.tolist() == ["2013", "2014", "2015", "2013"]  # not a str: its JSON text

    write_display(tmp_path / "display", "civil_comments:demographic=all,model=m", "m", "multiple_choice_joint", civil,
                  [DisplayPrediction(i.id, None, 0, "A", None, [], i.references[0].output.text, None) for i in civil])
    shown = read_quiet(tmp_path / "display", clusters="sub_split")
    assert {r.image.rsplit("/", 1)[1]: r.cluster for r in shown.itertuples()} == want


def test_instance_field_clusters_bad_input(tmp_path):
    insts = instances(n=2)
    folder = write_run(tmp_path, "mmlu:subject=anatomy,model=m", "m", "multiple_choice_joint",
                       joint_states(insts, "AB", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"scenario_state\.json: request_states\[0\]: `clusters`="
                                                    r"'sub_split': the instance 'id100' has no field "
                                                    r"`instance\.sub_split`; every instance needs one"):
        tw.io.read_helm(folder, clusters="sub_split")
    with pytest.raises(tw.InvalidValueError, match=r"`clusters`='extra_data\.category': the instance 'id100' has no "
                                                    r"field `instance\.extra_data\.category` \(the instance has no "
                                                    r"`extra_data`\)"):
        tw.io.read_helm(folder, clusters="extra_data.category")
    with pytest.raises(tw.InvalidValueError, match=r"`clusters`='topic' is not an argument of the run name "
                                                    r"'mmlu:subject=anatomy,model=m' \(arguments: \['model', "
                                                    r"'subject'\]\) nor an instance field \('sub_split', "
                                                    r"'extra_data\.<key>', .* or 'tags'\)"):
        tw.io.read_helm(folder, clusters="topic")
    partly = [Instance(i.input, i.references, id=i.id, extra_data={"category": "x"} if j == 0 else {"year": 1})
              for j, i in enumerate(insts)]
    write_run(tmp_path / "p", "x:model=m", "m", "multiple_choice_joint", joint_states(partly, "AB", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"request_states\[1\]: `clusters`='extra_data\.category': the "
                                                    r"instance 'id101' has no field `instance\.extra_data\.category` "
                                                    r"\(keys: \['year'\]\)"):
        tw.io.read_helm(tmp_path / "p", clusters="extra_data.category")


def bbq_instances(n=16):
    """BBQ as HELM writes it (``scenarios/bbq_scenario.py``): every reference of an instance carries the
    instance's groups (``negative``/``non-negative``, ``ambiguous``/``non-ambiguous``), the correct one also
    ``correct``, the unknown one ``unknown``."""
    out = []
    for i in range(n):
        groups = ["negative" if i % 2 else "non-negative", "ambiguous" if i % 4 < 2 else "non-ambiguous"]
        gold = i % 3
        refs = [Reference(Output(f"option {i}.{j}"), groups + (["correct"] if j == gold else [])
                          + (["unknown"] if j == 2 else [])) for j in range(3)]
        out.append(Instance(Input(f"context {i}"), refs, split="test", id=f"id{i}"))
    return out


def test_bbq_tags_are_clusters_and_strata(tmp_path):
    """Issue 31, item 5: HELM instance tags usable as clusters and strata (BBQ's ambiguous/negative)."""
    insts = bbq_instances()
    rng = np.random.default_rng(4)
    for m in ("a", "b", "c"):
        write_run(tmp_path, f"bbq:subject=all,method=multiple_choice_joint,model={m}", m, "multiple_choice_joint",
                  joint_states(insts, [LETTERS[int(rng.integers(3))] for _ in insts], m))
    trials = read_quiet(tmp_path, clusters="tags")
    want = {f"id{i}": ",".join(sorted(["negative" if i % 2 else "non-negative",
                                       "ambiguous" if i % 4 < 2 else "non-ambiguous"])) for i in range(16)}
    assert {r.image.rsplit("/", 1)[1]: r.cluster for r in trials.itertuples()} == want
    assert trials.cluster.nunique() == 4
    # the column serves as strata: resampling within the four groups keeps each group's size in every replicate
    wide = trials.pivot(index="image", columns="subject", values="correct")
    strata = trials.drop_duplicates("image").set_index("image").cluster.loc[wide.index].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)  # 16 questions: small-sample notes are not the point
        res = tw.pairwise_error_consistency(wide.to_numpy(bool), strata=strata, ci_method="percentile",
                                            n_resamples=200, rng=0)
        plain = tw.pairwise_error_consistency(wide.to_numpy(bool), ci_method="percentile", n_resamples=200, rng=0)
    assert len(res.to_frame()) == 3
    assert not np.allclose(res.to_frame().ci_low, plain.to_frame().ci_low)  # the strata were used


def test_tags_that_no_reference_shares_are_named(tmp_path):
    folder = write_run(tmp_path, "mmlu:subject=anatomy,model=m", "m", "multiple_choice_joint",
                       joint_states(instances(n=2), "AB", "m"))
    with pytest.raises(tw.InvalidValueError, match=r"request_states\[0\]: `clusters`='tags': no tag but 'correct' "
                                                    r"is shared by every reference of the instance 'id100'"):
        tw.io.read_helm(folder, clusters="tags")
