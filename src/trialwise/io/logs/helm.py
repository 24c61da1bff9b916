"""Reading HELM run folders (``scenario_state.json``, ``display_predictions.json``) of multiple-choice scenarios.

A suite mixes multiple-choice runs with runs of other adapter methods (``generation`` for XSTest
or GSM8K, ``chat``, ``language_modeling``, ...): those are skipped and counted, as
:func:`~trialwise.io.read_lm_eval` skips and counts the records of generation tasks.

The format, as HELM writes it (``src/helm/benchmark/runner.py``: ``scenario_state.json`` is
``asdict_without_nones(ScenarioState)``; ``adaptation/scenario_state.py``,
``adaptation/request_state.py``, ``scenarios/scenario.py``): ``adapter_spec`` (``method``,
``model``, ``output_mapping_pattern``) and ``request_states[]``, each with ``instance`` (``id``,
``input.text``, ``references[{output: {text}, tags}]`` — the correct one tagged ``"correct"`` —,
``split``, ``sub_split``, ``perturbation``, ``extra_data``), ``train_trial_index``,
``reference_index`` and ``request_mode`` (separate methods only), ``output_mapping`` (joint
method: ``{"A": option text, ...}``) and ``result.completions[{text, logprob, tokens}]``. Fields
that are None are left out. ``display_predictions.json`` (``presentation/run_display.py``,
``DisplayPrediction``): one entry per kept prediction with ``instance_id``,
``train_trial_index``, ``predicted_text``, ``mapped_output``, ``reference_index``, ``stats``;
the instances are in ``instances.json``.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_choice, show
from trialwise.io.logs.records import Record, Tally, assemble, finite_float, log_paths, softmax

__all__ = ["read_helm"]

_JOINT = ("multiple_choice_joint", "multiple_choice_joint_multimodal", "multiple_choice_joint_chain_of_thought")
_SEPARATE = ("multiple_choice_separate_original", "multiple_choice_separate_calibrated")
_FILES = ("scenario_state.json", "display_predictions.json")
# Run-name arguments that name the model rather than the task.
_MODEL_ARGS = ("model", "model_deployment")


def read_helm(
    path: Any,
    *,
    clusters: str | None = None,
    unaligned: Literal["error", "drop"] = "error",
):
    """Read HELM run folders of multiple-choice scenarios into a trial table.

    Parameters
    ----------
    path : str, path or list of them
        HELM run folders, their ``scenario_state.json`` / ``display_predictions.json``, or
        folders searched recursively for them (e.g. ``benchmark_output/runs/<suite>``). A
        run folder is read from ``scenario_state.json`` when it has one, else from
        ``display_predictions.json`` with ``instances.json`` and ``run_spec.json`` next to it.
    clusters : str, optional
        What groups the instances, copied into a ``cluster`` column: an argument of the run
        name (e.g. ``"subject"`` in ``mmlu:subject=anatomy,method=multiple_choice_joint,model=...``:
        one label per run), or a field of each instance: ``"sub_split"``
        (``instance.sub_split``, e.g. civil_comments' ``toxic``/``non-toxic``) or
        ``"extra_data.<key>"`` (e.g. ``"extra_data.category"`` of HeadQA; a value that is not
        a string as its JSON text), or ``"tags"``: the tags that every reference of the
        instance carries, but ``"correct"``, sorted and joined by commas (BBQ's
        ``"ambiguous,negative"``; an instance with none is an error). A run-name argument of
        that name comes first. The ``cluster`` column also serves as strata (``strata=`` of
        :func:`~trialwise.pairwise_error_consistency`).
    unaligned : {"error", "drop"}
        An instance run for some but not all models of its scenario is an error, or is
        dropped (and counted). ``"drop"`` also drops (and counts) the runs that some model
        does not have at all, so that every model answers every instance left; with
        ``"error"`` such a model is kept (a leaderboard names what it lacks).

    Returns
    -------
    pandas.DataFrame
        One row per model and instance, columns :data:`~trialwise.io.LOG_COLUMNS` (then
        ``cluster``): ``experiment`` the scenario (the run name before ``:``), ``condition``
        the run name without its model arguments, ``subject`` the model
        (``adapter_spec.model``), ``image`` the instance id after the run's arguments
        (``subject=anatomy,method=multiple_choice_joint/id7``: HELM numbers the instances of
        every run from ``id0``, and the runs of a scenario are one experiment; the id alone
        for a run without arguments), ``truth``/``response`` option
        indices as text (``response`` ``"na"`` when the completion maps to no option; then
        incorrect, as HELM scores it), ``n_options``, ``probabilities``: for the separate
        methods the softmax of the options' log-probabilities (calibrated: less the
        calibration request's), for the joint method and for ``display_predictions.json``
        None (they log only the chosen letter or option). ``trials.attrs["log"]`` holds the counts (``"skipped"``:
        the request states of runs that are not multiple choice, other train trials, perturbed
        instances, failed requests, ...), ``"methods"`` (condition → adapter method of the runs
        read) and ``"not_multiple_choice"`` (run name → adapter method of the runs skipped).

    Raises
    ------
    InvalidValueError
        Naming the file and request: logs without any multiple-choice run (naming the run
        and its method when one run folder was given, else the folders given), an instance
        without exactly one reference tagged ``"correct"``, missing or non-finite
        log-probabilities, duplicate instances, option counts or correct options that differ
        between models, unaligned instances (``unaligned="error"``), a ``clusters`` that is
        neither an argument of the run name nor an instance field, an instance without the
        field.

    Warns
    -----
    TrialwiseWarning
        When request states were not used (among them every request state of a run that is
        not multiple choice: a generation run of a mixed suite is skipped, not an error); the
        counts are in ``trials.attrs["log"]``.

    Notes
    -----
    Only ``train_trial_index`` 0 is read (HELM repeats a run with other in-context examples
    as train trials 1, 2, ...), and only unperturbed instances. The joint method's response
    is the option whose letter the stripped completion is (after ``output_mapping_pattern``).
    The separate methods' response is the option of largest log-probability, unnormalised
    (HELM's ``multiple_choice_separate_original`` divides by the option's number of tokens,
    which the log does not hold, so its ``predicted_index`` may differ).

    References
    ----------
    P. Liang et al., "Holistic Evaluation of Language Models", Transactions on Machine
    Learning Research (2023), https://github.com/stanford-crfm/helm.

    Examples
    --------
    A run folder of the joint method with one question, written as HELM writes it:

    >>> import json, pathlib, tempfile
    >>> import trialwise as tw
    >>> run = pathlib.Path(tempfile.mkdtemp()) / "mmlu:subject=anatomy,method=multiple_choice_joint,model=org_m"
    >>> run.mkdir()
    >>> refs = [{"output": {"text": t}, "tags": ["correct"] if t == "liver" else []} for t in ("heart", "liver")]
    >>> state = {"instance": {"input": {"text": "Largest gland?"}, "references": refs, "id": "id7"},
    ...          "train_trial_index": 0, "output_mapping": {"A": "heart", "B": "liver"},
    ...          "result": {"success": True, "completions": [{"text": " B", "logprob": -0.2, "tokens": []}]}}
    >>> spec = {"method": "multiple_choice_joint", "model": "org/m"}
    >>> _ = (run / "scenario_state.json").write_text(json.dumps({"adapter_spec": spec, "request_states": [state]}))
    >>> trials = tw.io.read_helm(run, clusters="subject")
    >>> trials[["condition", "subject", "image", "truth", "response", "correct", "cluster"]].to_dict("records")
    [{'condition': 'mmlu:subject=anatomy,method=multiple_choice_joint', 'subject': 'org/m',
      'image': 'subject=anatomy,method=multiple_choice_joint/id7', 'truth': '1', 'response': '1', 'correct': True,
      'cluster': 'anatomy'}]
    """
    unaligned = check_choice(unaligned, "unaligned", ("error", "drop"))
    if clusters is not None and not isinstance(clusters, str):
        raise InvalidTypeError(f"`clusters` must be a str or None; got {type(clusters).__name__} {show(clusters)}")
    files = log_paths(path, _FILES, "path")
    # one file per run folder: scenario_state.json, else display_predictions.json
    runs: dict[Path, Path] = {}
    for file in files:
        if file.name not in _FILES:
            raise InvalidValueError(f"{file}: not a HELM {' or '.join(_FILES)}")
        if file.parent not in runs or file.name == _FILES[0]:
            runs[file.parent] = file
    tally = Tally()
    records: list[Record] = []
    methods: dict[str, str] = {}
    other: dict[str, str] = {}  # run → method of the runs that are not multiple choice (skipped, counted)
    first_other: Path | None = None
    for file in runs.values():
        tally.read(file)
        content = _load_json(file)
        if file.name == _FILES[0]:
            if not isinstance(content, dict) or not isinstance(content.get("request_states"), list):
                raise InvalidValueError(f"{file}: field `request_states` is missing; not a HELM scenario_state.json")
            spec = content.get("adapter_spec") or {}
        else:
            if not isinstance(content, list):
                raise InvalidValueError(f"{file}: must hold a list of predictions; got {type(content).__name__}")
            spec = _display_spec(file)
        run = _run_name(file)
        method = spec.get("method") if isinstance(spec, dict) else None
        if not isinstance(method, str) or not method:
            raise InvalidValueError(f"{file}: field `adapter_spec.method` must name the run's adaptation method "
                                    f"(e.g. 'multiple_choice_joint'); got {show(method)}")
        if method not in _JOINT + _SEPARATE:  # a generation, chat, language-modelling ... run of a mixed suite
            states = content["request_states"] if file.name == _FILES[0] else content
            tally.records += len(states)
            tally.skip(_NOT_MULTIPLE_CHOICE, len(states), where=str(file))
            other[run] = method
            first_other = first_other or file
            continue
        model = str(spec.get("model") or spec.get("model_deployment") or file.parent.name)
        experiment, condition, arguments = _split_run(run)
        cluster = _cluster_of(clusters, arguments, file, run)
        methods[condition] = method
        if file.name == _FILES[1]:
            found = _display(file, content, method, experiment, condition, model, cluster, tally)
        else:
            read = _joint if method in _JOINT else _separate
            found = read(file, content["request_states"], spec, experiment, condition, model, cluster, tally)
        prefix = condition.partition(":")[2]  # instance ids restart in every run (id0, id1, ...) of a scenario
        if prefix:
            found = [dataclasses.replace(r, image=f"{prefix}/{r.image}") for r in found]
        records.extend(found)
    if other and not methods:
        raise _no_multiple_choice(path, runs, other, first_other)
    return assemble(records, tally, source="HELM", unaligned=unaligned, clusters=clusters,
                    options_field="instance.references", truth_field="instance.references[].tags",
                    extra={"methods": methods, "not_multiple_choice": other})


#: The reason counted (``trials.attrs["log"]["skipped"]``) for the request states of runs that are not
#: multiple choice; the runs and their methods are in ``trials.attrs["log"]["not_multiple_choice"]``.
_NOT_MULTIPLE_CHOICE = "request states of runs that are not multiple choice (generation, chat, language modelling, ...)"


def _no_multiple_choice(path: Any, runs: dict[Path, Path], other: dict[str, str], first: Path | None
                        ) -> InvalidValueError:
    """The error for logs without a multiple-choice run: the run itself when one run folder (or its file) was
    given, else the folders given, with the methods found."""
    readable = ", ".join(_JOINT + _SEPARATE)
    items = [path] if isinstance(path, (str, Path)) or hasattr(path, "__fspath__") else list(path)
    given = [Path(item) for item in items]
    folders = set(runs)
    if len(runs) == 1 and all(g in folders or g.parent in folders for g in given):
        (run, method), = other.items()
        return InvalidValueError(f"{first}: run {run!r} is not multiple choice: its adapter method "
                                 f"(field `adapter_spec.method`) is {method!r}, and trialwise reads HELM runs of the "
                                 f"multiple-choice methods ({readable}), whose chosen options it compares; a "
                                 f"{method} run chooses no option")
    counts = collections.Counter(other.values())
    named = ", ".join(str(g) for g in given[:3]) + (", …" if len(given) > 3 else "")
    found = ", ".join(f"{m} ({n} run{'s' if n > 1 else ''})" for m, n in counts.most_common())
    return InvalidValueError(f"{named}: no multiple-choice run: the {len(other)} run(s) found are all of other "
                             f"adapter methods ({found}; e.g. {first}); trialwise reads HELM runs of the "
                             f"multiple-choice methods ({readable})")


#: The cluster label of one instance (``where``: the request, for messages), or None without ``clusters``.
_ClusterOf = Callable[[dict[str, Any], str], "str | None"]
#: The instance field ``clusters`` may name besides the run name's arguments (and ``extra_data.<key>``).
_SUB_SPLIT = "sub_split"
#: ``clusters`` naming the tags shared by all of an instance's references (:func:`_shared_tags`).
_TAGS = "tags"


def _cluster_of(clusters: str | None, arguments: dict[str, str], file: Path, run: str) -> _ClusterOf:
    """How a run's instances get their ``cluster``: a run-name argument (one label for the run), or an
    instance field (``sub_split``, ``extra_data.<key>``: a label per instance)."""
    if clusters is None:
        return lambda instance, where: None
    if clusters in arguments:
        label = arguments[clusters]
        return lambda instance, where: label
    if clusters == _SUB_SPLIT or (clusters.startswith("extra_data.") and len(clusters) > len("extra_data.")):
        return lambda instance, where: _instance_field(instance, clusters, where)
    if clusters == _TAGS:
        return _shared_tags
    raise InvalidValueError(f"{file}: `clusters`={clusters!r} is not an argument of the run name {run!r} "
                            f"(arguments: {sorted(arguments)}) nor an instance field ('sub_split', "
                            f"'extra_data.<key>', e.g. 'extra_data.category', or 'tags')")


def _shared_tags(instance: dict[str, Any], where: str) -> str:
    """The tags every reference of the instance carries, but ``correct`` (BBQ's ``ambiguous,negative``),
    sorted and joined by commas: the instance's own groups, which HELM writes on each of its references."""
    references = instance.get("references")
    tags = [set((r or {}).get("tags") or ()) for r in references] if isinstance(references, list) else []
    shared = sorted(set.intersection(*tags) - {"correct"}) if tags else []
    if not shared:
        raise InvalidValueError(f"{where}: `clusters`='tags': no tag but 'correct' is shared by every reference of "
                                f"the instance {show(instance.get('id'))} (tags: "
                                f"{[sorted(t) for t in tags]}); 'tags' groups scenarios whose references carry "
                                f"the instance's groups, as BBQ's ambiguous/negative")
    return ",".join(shared)


def _instance_field(instance: dict[str, Any], name: str, where: str) -> str:
    """The instance's ``sub_split`` or ``extra_data[key]`` as a cluster label (JSON text unless a str)."""
    if name.startswith("extra_data."):
        extra, key = instance.get("extra_data"), name[len("extra_data."):]
        value = extra.get(key) if isinstance(extra, dict) else None
        known = f" (keys: {sorted(extra)})" if isinstance(extra, dict) else " (the instance has no `extra_data`)"
    else:
        value, known = instance.get(name), ""
    if value is None:  # HELM leaves None fields out (asdict_without_nones)
        raise InvalidValueError(f"{where}: `clusters`={name!r}: the instance {show(instance.get('id'))} has no "
                                f"field `instance.{name}`{known}; every instance needs one to be clustered by it")
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _load_json(file: Path) -> Any:
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidValueError(f"{file}: not a readable {file.name} ({exc})") from None


def _display_spec(file: Path) -> dict[str, Any]:
    """The adapter spec of a run read from display_predictions.json: ``run_spec.json`` next to it."""
    spec_file = file.parent / "run_spec.json"
    if not spec_file.is_file():
        raise InvalidValueError(f"{file}: reading display_predictions.json needs the run's run_spec.json and "
                                f"instances.json next to it; {spec_file.name} is missing")
    spec = _load_json(spec_file)
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    if not isinstance(adapter, dict):
        raise InvalidValueError(f"{spec_file}: field `adapter_spec` is missing")
    return adapter


def _display(file: Path, predictions: list[Any], method: str, experiment: str, condition: str, model: str,
             cluster: _ClusterOf, tally: Tally) -> list[Record]:
    """Records of display_predictions.json (``presentation/run_display.py``), truths from instances.json.

    No probabilities: the display file keeps only the chosen text (joint method) or the chosen
    reference (separate methods, whose other references' predictions it drops).
    """
    instances_file = file.parent / "instances.json"
    if not instances_file.is_file():
        raise InvalidValueError(f"{file}: reading display_predictions.json needs the run's instances.json next to "
                                f"it (the references and their tags); it is missing")
    listed = _load_json(instances_file)
    if not isinstance(listed, list):
        raise InvalidValueError(f"{instances_file}: must hold a list of instances")
    by_id = {str(inst.get("id")): inst for inst in listed
             if isinstance(inst, dict) and not inst.get("perturbation")}
    records = []
    for i, prediction in enumerate(predictions):
        where = f"{file}: [{i}]"
        tally.records += 1
        if not isinstance(prediction, dict) or "instance_id" not in prediction:
            raise InvalidValueError(f"{where}: field `instance_id` is missing")
        if prediction.get("train_trial_index", 0) != 0:
            tally.skip("predictions of train trials other than 0")
            continue
        if prediction.get("perturbation"):
            tally.skip("predictions of perturbed instances")
            continue
        key = str(prediction["instance_id"])
        if key not in by_id:
            raise InvalidValueError(f"{where}: instance {key!r} is not in {instances_file.name}")
        gold, k = _truth(by_id[key], where)
        texts = [str(((r or {}).get("output") or {}).get("text", "")) for r in by_id[key]["references"]]
        if method in _JOINT:
            mapped = prediction.get("mapped_output")
            response = str(texts.index(mapped)) if mapped in texts else "na"
        else:
            index = prediction.get("reference_index")
            response = str(index) if isinstance(index, int) and 0 <= index < k else "na"
        if response == "na":
            tally.note("responses that map to no option (kept as response 'na', incorrect)")
        records.append(Record(experiment, condition, model, key, str(gold), response, k, None,
                              cluster(by_id[key], where), where))
    return records


def _run_name(file: Path) -> str:
    spec = file.parent / "run_spec.json"
    if spec.is_file():
        try:
            name = json.loads(spec.read_text(encoding="utf-8")).get("name")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            name = None
        if isinstance(name, str) and name:
            return name
    return file.parent.name


def _split_run(run: str) -> tuple[str, str, dict[str, str]]:
    """Scenario, run name without the model arguments, and the run name's arguments."""
    scenario, _, rest = run.partition(":")
    pairs = [p.split("=", 1) for p in rest.split(",") if "=" in p] if rest else []
    arguments = {k: v for k, v in pairs}
    kept = ",".join(f"{k}={v}" for k, v in pairs if k not in _MODEL_ARGS)
    return scenario, f"{scenario}:{kept}" if kept else scenario, arguments


def _usable(state: Any, where: str, tally: Tally) -> dict[str, Any] | None:
    """The request state's instance, or None (counted) for other train trials, perturbations, failures."""
    tally.records += 1
    if not isinstance(state, dict) or not isinstance(state.get("instance"), dict):
        raise InvalidValueError(f"{where}: field `instance` is missing")
    if state.get("train_trial_index", 0) != 0:
        tally.skip("request states of train trials other than 0")
        return None
    instance = state["instance"]
    if instance.get("perturbation"):
        tally.skip("request states of perturbed instances")
        return None
    result = state.get("result")
    if not isinstance(result, dict) or not result.get("success", True) or not result.get("completions"):
        tally.skip("request states without a successful completion")
        return None
    return instance


def _truth(instance: dict[str, Any], where: str) -> tuple[int, int]:
    """Index of the reference tagged ``correct`` and the number of references."""
    references = instance.get("references")
    if not isinstance(references, list) or len(references) < 2:
        raise InvalidValueError(f"{where}: field `instance.references` must hold at least 2 options; "
                                f"got {show(references)}")
    correct = [i for i, r in enumerate(references) if "correct" in ((r or {}).get("tags") or [])]
    if len(correct) != 1:
        raise InvalidValueError(f"{where}: exactly one of `instance.references` must be tagged 'correct'; "
                                f"{len(correct)} are")
    return correct[0], len(references)


def _joint(file: Path, states: list[Any], spec: dict[str, Any], experiment: str, condition: str, model: str,
           cluster: _ClusterOf, tally: Tally) -> list[Record]:
    records = []
    pattern = spec.get("output_mapping_pattern")
    for i, state in enumerate(states):
        where = f"{file}: request_states[{i}]"
        instance = _usable(state, where, tally)
        if instance is None:
            continue
        gold, k = _truth(instance, where)
        mapping = state.get("output_mapping")
        if not isinstance(mapping, dict) or len(mapping) != k:
            raise InvalidValueError(f"{where}: field `output_mapping` must map one letter to each of the {k} "
                                    f"references; got {show(mapping)}")
        letters = list(mapping)
        text = str(state["result"]["completions"][0].get("text", "")).strip()
        if isinstance(pattern, str) and pattern:
            match = re.search(pattern, text)
            text = "" if match is None else (match.group(1) if match.groups() else match.group(0))
        response = str(letters.index(text)) if text in mapping else "na"
        if response == "na":
            tally.note("responses that map to no option (kept as response 'na', incorrect)")
        records.append(Record(experiment, condition, model, str(instance.get("id")), str(gold), response, k,
                              None, cluster(instance, where), where))
    return records


def _separate(file: Path, states: list[Any], spec: dict[str, Any], experiment: str, condition: str, model: str,
              cluster: _ClusterOf, tally: Tally) -> list[Record]:
    by_instance: dict[str, dict[tuple[int, str], float]] = collections.defaultdict(dict)
    first: dict[str, tuple[dict[str, Any], str]] = {}
    for i, state in enumerate(states):
        where = f"{file}: request_states[{i}]"
        instance = _usable(state, where, tally)
        if instance is None:
            continue
        index = state.get("reference_index")
        if not isinstance(index, int):
            raise InvalidValueError(f"{where}: field `reference_index` must be an option index; got {show(index)}")
        logprob = finite_float(state["result"]["completions"][0].get("logprob"))
        if not np.isfinite(logprob) or logprob > 0:
            raise InvalidValueError(f"{where}: field `result.completions[0].logprob` must be a finite number <= 0; "
                                    f"got {show(state['result']['completions'][0].get('logprob'))}")
        key = str(instance.get("id"))
        mode = str(state.get("request_mode") or "original")
        if (index, mode) in by_instance[key]:
            raise InvalidValueError(f"{where}: duplicate document: instance {key!r}, reference {index} ({mode}) "
                                    f"is logged twice")
        by_instance[key][(index, mode)] = logprob
        first.setdefault(key, (instance, where))
    records = []
    for key, scores in by_instance.items():
        instance, where = first[key]
        gold, k = _truth(instance, where)
        original = [scores.get((o, "original")) for o in range(k)]
        if any(s is None for s in original):
            raise InvalidValueError(f"{where}: ragged option counts: instance {key!r} has {k} references but "
                                    f"log-probabilities for {sum(s is not None for s in original)}")
        values = np.array(original, dtype=float)
        if spec.get("method") == "multiple_choice_separate_calibrated":
            calibration = [scores.get((o, "calibration")) for o in range(k)]
            if any(s is None for s in calibration):
                raise InvalidValueError(f"{where}: instance {key!r} lacks calibration requests for some references")
            values = values - np.array(calibration, dtype=float)
        records.append(Record(experiment, condition, model, key, str(gold), str(int(np.argmax(values))), k,
                              softmax(values), cluster(instance, where), where))
    return records
