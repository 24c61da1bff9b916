"""Reading lm-evaluation-harness ``--log_samples`` files (``samples_<task>_<timestamp>.jsonl``).

The format, as lm-evaluation-harness 0.4.x writes it (``lm_eval/evaluator.py``, the
``example`` dict of ``evaluate``; ``lm_eval/loggers/evaluation_tracker.py``,
``EvaluationTracker.save_results_samples``): one JSON object per line, per document and
filter, with ``doc_id``, ``doc``, ``target`` (as text), ``arguments`` (``{"gen_args_<i>":
{"arg_0": context, "arg_1": continuation}}``, one entry per request; older versions: a list of
``[context, continuation]``), ``resps``, ``filtered_resps`` (for a multiple-choice task one
``[loglikelihood, is_greedy]`` per option, written as text by ``sanitize_list``; older versions:
numbers and booleans), ``filter``, ``metrics``, ``doc_hash``, ``prompt_hash``, ``target_hash``
and one value per metric (``acc``, ``acc_norm``, ...). The aggregated ``results_<timestamp>.json``
of the same run sits next to it (``model_name``, ``config.model_args``, ``configs``,
``group_subtasks``). Versions 0.4.0 and 0.4.1 (``lm_eval/__main__.py``) wrote each task's
samples as one indented JSON array into ``<model_args>_<task>.jsonl`` (``/`` and ``=`` of the
model arguments replaced by ``__``) next to ``results.json``, without ``doc_hash``.

Why this module is long: about 640 lines, because the reader follows every layout and
record form the harness has written (0.4.0/0.4.1 arrays, 0.4.2+ lines, numbers or text,
list or dict arguments; log-likelihoods, generations scored by a logged metric, generations
mapped to an option) and aligns items across files of different versions; split, each part
would need the others' private rules. The mapping of generated text itself is in
:mod:`trialwise.io.logs.answers`.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_choice, show
from trialwise.io.logs.answers import UNMAPPED, UNMAPPED_NOTE, check_answer_pattern, answer_index, option_letters
from trialwise.io.logs.records import (Record, Tally, assemble, cluster_label, finite_float, log_paths, softmax,
                                      unit_score)

__all__ = ["read_lm_eval"]

_SAMPLES = re.compile(r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+))?\.jsonl(?:\.gz)?$")
_DATE_FOLDER = re.compile(r"^\d{4}-\d{2}-\d{2}T[0-9.\-_:]+$")
# The order in which the harness looks for the model in `model_args` (GeneralConfigTracker._get_model_name).
_MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def read_lm_eval(
    paths: Any,
    *,
    normalization: Literal["none", "length"] = "none",
    filter_name: str | None = None,
    clusters: str | None = None,
    unaligned: Literal["error", "drop"] = "error",
    score: str | None = None,
    map_answers: bool = False,
    answer_pattern: str | None = None,
):
    """Read lm-evaluation-harness ``--log_samples`` files of one or more models into a trial table.

    Every multiple-choice document becomes one trial per model: the options' probabilities
    are the softmax of the logged log-likelihoods, the response is the most probable option
    (the harness's ``acc`` rule) and the trial is correct when it is the target.

    Parameters
    ----------
    paths : str, path or list of them
        ``samples_<task>_<timestamp>.jsonl`` files (also ``.jsonl.gz``) or folders searched
        recursively for them (the harness's output folder of one or many models; the Open
        LLM Leaderboard's "details" folders, whose ``.jsonl`` files are read, not Parquet).
        Also the ``<model_args>_<task>.jsonl`` files of 0.4.0/0.4.1 (one JSON array each),
        when a ``results.json`` sits next to them; the ``line`` in messages is then the
        record's position in the array.
    normalization : {"none", "length"}
        ``"none"``: scores are the log-likelihoods (the harness's ``acc``); ``"length"``:
        the log-likelihoods divided by the option's length in characters (``acc_norm``).
    filter_name : str, optional
        Which filter's records to read when a task logs several (e.g. ``"none"``); by
        default a task must log exactly one.
    clusters : str, optional
        A field of the logged document (e.g. ``"subject"``) copied into a ``cluster`` column,
        for resampling questions that share it together.
    unaligned : {"error", "drop"}
        An item logged for some but not all models of its task is an error, or is dropped
        (and counted). ``"drop"`` also drops (and counts) the tasks that some model did not
        log at all, so that every model answers every item left, as the agreement functions
        need; with ``"error"`` such a model is kept (a leaderboard names what it lacks).
    score : str, optional
        A per-document metric the harness logged (``"f1"``, ``"em"``, ``"exact_match"``,
        ``"acc"``, ...) whose value becomes the trial's ``score`` column (a number in
        [0, 1]), which an accuracy leaderboard averages (``docs/language_models.md``, "Scores
        that are not 0/1"). Generation tasks (DROP, SQuAD, TriviaQA, GSM8K) are then read
        too: their trials have no options (``n_options`` 0, ``probabilities`` None), the
        first filtered response as ``response``, the target as text as ``truth``, and are
        ``correct`` when the score is 1. A document without the field, or with a value that
        is not a number in [0, 1] (e.g. a corpus metric's ``[reference, prediction]`` pair,
        as ``bleu`` logs), is an error naming the file and line.
    map_answers : bool, default False
        Read generative multiple choice (``arc_challenge_chat``, ``mmlu_generative``, the
        ``*_cot`` variants, API models run with ``openai-chat-completions``): a generation
        record whose logged document carries the options (``doc["choices"]``, a list of texts
        or ARC's ``{"text": [...], "label": [...]}``; or ``doc["options"]``) becomes a trial
        with options. Its first filtered response is mapped to an option by
        :func:`trialwise.io.map_answer`, the options lettered ``A``, ``B``, ... as the
        harness's generative prompts show them; ``truth`` is the target mapped by the same
        built-in rules (``"B"``, ``"(B)"`` or an option's text). ``response`` is the option index as text,
        or ``"na"`` when the answer maps to no option (none, or two claimed): such trials are
        incorrect, counted in the reader's warning and in ``attrs["log"]["unmapped"]`` (of
        ``attrs["log"]["generated"]`` trials read from generated answers). A trial the harness
        scored right (``exact_match`` 1) whose answer maps elsewhere is counted in a note.
        ``n_options`` is the number of options, ``probabilities`` None (generated text has
        none): choice agreement, discrete CAPA and EC work on the table, CAPA does not.
        Generation records without options are read with ``score=``, else skipped and counted.
    answer_pattern : str, optional
        A regular expression with one capture group (the option's label or text) tried
        before the built-in rules of :func:`trialwise.io.map_answer`; implies
        ``map_answers=True``.

    Returns
    -------
    pandas.DataFrame
        One row per model and document, columns :data:`~trialwise.io.LOG_COLUMNS`
        (then ``cluster``): ``experiment`` the task's group in ``results_*.json``
        (``group_subtasks``; the task itself when it has none), ``condition`` the task,
        ``subject`` the model, ``observer_type`` ``"model"``, ``image`` the ``doc_hash``
        (``<task>/<doc_id>`` in every file of a task when any file of it has none, noted),
        ``truth``/``response`` the option indices as text
        (``"0"``, ``"1"``, ...), ``correct``, ``n_options`` and ``probabilities`` (a tuple, one
        probability per option in the task's option order). ``trials.attrs["log"]``: files
        and records read, the counts of records not used by reason (``"skipped"``),
        ``"normalization"``, ``"metric_mismatches"``: trials whose correctness differs
        from the harness's own logged ``acc``/``acc_norm``; with ``map_answers``,
        ``"generated"`` (trials read from generated answers), ``"unmapped"`` (of them, those
        mapped to no option) and ``"answer_pattern"``.

    Raises
    ------
    InvalidValueError
        Naming the file and line: a document logged twice for a model (two logs of one task),
        an item whose option count or target differs between models, unaligned items
        (``unaligned="error"``), log-likelihoods that are not finite or above 0, a missing
        ``clusters`` field, several filters and no ``filter_name``; an ``answer_pattern``
        that does not compile or does not have exactly one capture group.

    Warns
    -----
    TrialwiseWarning
        When records were not used (unreadable JSON lines, generation tasks, several correct
        options, winogrande-style tasks whose correct option is not in the log, unaligned
        items dropped), generated answers map to no option (``map_answers``), trials
        disagree with the logged metric, a task's files identify
        documents differently, or models saw other prompts of one item; the counts are in
        ``trials.attrs["log"]``.

    Notes
    -----
    With log-likelihoods :math:`\\ell_o` of the continuations of options :math:`o = 1..k`,
    :math:`p_o = e^{s_o} / \\sum_j e^{s_j}` with :math:`s_o = \\ell_o` or (``"length"``)
    :math:`s_o = \\ell_o / L_o`. The harness's ``acc_norm`` divides by ``len(choice)``, the
    option text without the target delimiter that precedes it in the logged continuation
    (``arguments.gen_args_<o>.arg_1 = target_delimiter + choice``): ``L_o`` is the
    continuation's length less the delimiter (``configs.<task>.target_delimiter`` of the
    results file, default ``" "``) when every continuation starts with it. The target is
    an option index when it reads as an integer, else the option whose text it equals.
    Items are aligned across models by ``doc_hash`` within a task; a document that occurs
    twice in a task (same hash, two ``doc_id``) is told apart by its occurrence. When some
    file of a task lacks ``doc_hash`` (logs of different harness versions), the whole task is
    aligned by ``<task>/<doc_id>`` and the trials are counted in a note; items whose
    ``prompt_hash`` differs between models (other few-shot settings) are counted in a note.

    References
    ----------
    L. Gao et al., "The Language Model Evaluation Harness", Zenodo (2024),
    https://github.com/EleutherAI/lm-evaluation-harness (``lm_eval/evaluator.py``,
    ``lm_eval/api/task.py``: ``ConfigurableTask.process_results``).

    Examples
    --------
    The bundled demo logs (``tw.datasets.llm_demo``), read with the ``acc_norm`` rule:

    >>> from importlib import resources
    >>> import trialwise as tw
    >>> with resources.as_file(resources.files("trialwise.datasets") / "llm-demo") as folder:
    ...     trials = tw.io.read_lm_eval(folder, normalization="length")
    >>> trials.groupby("subject").correct.mean().to_dict()
    {'sim/demo-13b': 0.73, 'sim/demo-1b': 0.45, 'sim/demo-7b': 0.6225, 'sim/demo-7b-chat': 0.6575}
    >>> trials.attrs["log"]["metric_mismatches"]   # trials that disagree with the logged acc_norm
    0
    """
    normalization = check_choice(normalization, "normalization", ("none", "length"))
    unaligned = check_choice(unaligned, "unaligned", ("error", "drop"))
    for value, name in ((filter_name, "filter_name"), (clusters, "clusters"), (score, "score")):
        if value is not None and not isinstance(value, str):
            raise InvalidTypeError(f"`{name}` must be a str or None; got {type(value).__name__} {show(value)}")
    if not isinstance(map_answers, bool):
        raise InvalidTypeError(f"`map_answers` must be True or False; got {type(map_answers).__name__} "
                               f"{show(map_answers)}")
    pattern = check_answer_pattern(answer_pattern)
    mapping = _Mapping(pattern) if map_answers or pattern is not None else None
    files = _find_files(paths)
    tally = Tally()
    mismatches = 0
    read: list[tuple[str, list[Record], list[tuple[str, Any]], bool]] = []  # task, records, (doc_id, prompt_hash), hash
    n_shot: dict[str, dict[str, int]] = {}  # task → the results files' n-shot → trials
    for path in files:
        match = _SAMPLES.match(path.name)
        if match is not None:
            task = match["task"]
            results = _results_file(path, match["date"])
        else:
            task, results = _early_layout(path)
        model = _model_name(path, results)
        group = _group(task, results)
        delimiter = _delimiter(task, results)
        tally.read(path)
        found, wrong, ids, use_hash = _read_samples(path, task, group, model, delimiter, normalization, filter_name,
                                                    clusters, tally, score, mapping)
        read.append((task, found, ids, use_hash))
        mismatches += wrong
        shots = (results or {}).get("n-shot")
        if isinstance(shots, dict) and task in shots:
            n_shot.setdefault(task, {})[str(shots[task])] = n_shot.get(task, {}).get(str(shots[task]), 0) + len(found)
    records = _align_ids(read, tally)
    mixed_shots = [t for t, counts in n_shot.items() if len(counts) > 1]
    if mixed_shots:
        tally.note(SHOTS_DIFFER, sum(sum(n_shot[t].values()) for t in mixed_shots))
    generation = tally.skipped.get(_GENERATION, 0)
    if not records and generation:
        raise InvalidValueError(f"no multiple-choice record in the {tally.files} file(s) read: {generation} record(s) "
                                f"of generation tasks, which need a per-document score: {_score_hint(tally)}; or, for "
                                f"generative multiple choice (documents with `choices`), map_answers=True maps each "
                                f"answer to an option")
    if mismatches:
        acc = "acc_norm" if normalization == "length" else "acc"
        tally.note(f"trials whose correctness differs from the logged `{acc}` (kept; the task may score its "
                   f"options differently)", mismatches)
    return assemble(records, tally, source="lm-evaluation-harness", unaligned=unaligned, clusters=clusters,
                    options_field="filtered_resps", truth_field="target",
                    extra={"normalization": normalization, "metric_mismatches": mismatches, "score": score,
                           **({} if mapping is None else {"generated": mapping.generated,
                                                          "unmapped": mapping.unmapped,
                                                          "answer_pattern": None if pattern is None
                                                          else pattern.pattern})})


def _score_hint(tally: Tally) -> str:
    """What to pass as ``score=``: the metrics the skipped generation records logged per document (a number in
    [0, 1] in every record), and those that are corpus-level (e.g. ``f1`` logged as ``[gold, [prediction]]``,
    aggregated over the corpus: no per-document score)."""
    per_document = [m for m, ok in tally.generation_metrics.items() if ok]
    corpus = [m for m, ok in tally.generation_metrics.items() if not ok]
    if per_document:
        hint = f"pass `score=` naming one the harness logged per document: {', '.join(map(repr, per_document))}"
    else:
        hint = "they logged no per-document score in [0, 1] (score= needs one)"
    if corpus:
        hint += (f"; not {', '.join(map(repr, corpus))}: logged per record as a corpus-level metric's input "
                 f"(e.g. [gold, [prediction]]), aggregated over the corpus, not a score of one document")
    return hint


class _Mapping:
    """Generative multiple choice (``map_answers``): each record's answer and target mapped to an option."""

    def __init__(self, pattern: re.Pattern[str] | None) -> None:
        self.pattern = pattern
        self.generated = 0  # trials read from generated answers
        self.unmapped = 0  # of them, answers that map to no option

    def trial(self, row: dict[str, Any], choices: list[str], where: str, tally: Tally) -> tuple[str, str] | None:
        """``(truth, response)`` as option indices in text (``"na"``: the answer names no option); None when the
        target names no option (the record is skipped and counted)."""
        labels = option_letters(len(choices))
        target = row.get("target")
        gold = answer_index(str(target), choices, labels) if isinstance(target, (str, int)) else None
        if gold is None:
            tally.skip("generation records whose target names no option (neither a letter A, B, ... nor an "
                       "option's text)", where=where)
            return None
        resps = row["filtered_resps"]
        answer = resps[0] if isinstance(resps, list) and resps else resps
        answer = answer[0] if isinstance(answer, list) and answer else answer
        index = answer_index(answer if isinstance(answer, str) else "", choices, labels, self.pattern)
        self.generated += 1
        if index is None:
            self.unmapped += 1
            tally.note(UNMAPPED_NOTE)
        if row.get("exact_match") in (1, 1.0, True) and index != gold:  # the harness's own scoring says right
            tally.note(SCORED_RIGHT_MAPPED_ELSEWHERE)
        return str(gold), UNMAPPED if index is None else str(index)


#: Counted when the harness's ``exact_match`` (the filtered response equal to the target, up to case and
#: punctuation) says right but the mapping does not: a sign of a target or an answer the rules read otherwise.
SCORED_RIGHT_MAPPED_ELSEWHERE = ("trials the harness scored right (exact_match 1) whose answer maps to another "
                                 "option or none (kept as mapped; check the answers or pass answer_pattern=)")


def _doc_options(doc: Any) -> list[str] | None:
    """The options of a logged document: ``choices`` (a list of texts, or ARC's ``{"text": [...]}``) or ``options``
    (MMLU-Pro); None when it carries no list of at least 2 texts."""
    if not isinstance(doc, dict):
        return None
    found = doc.get("choices", doc.get("options"))
    if isinstance(found, dict):
        found = found.get("text")
    if isinstance(found, list) and len(found) >= 2 and all(isinstance(c, str) for c in found) and len(found) <= 26:
        return found
    return None


#: The reason counted for generation records without options read with ``map_answers`` (and no ``score=``).
_NO_OPTIONS = ("generation records whose document carries no options (doc['choices'] or doc['options']), so no "
               "answer can be mapped to an option")

#: The reason counted for generation records read without ``score=``.
_GENERATION = "records that are not multiple choice (generation or perplexity tasks)"


def _find_files(paths: Any) -> list[Path]:
    """The samples files under ``paths``: ``samples_<task>_<date>.jsonl[.gz]`` (0.4.2 on), and in a folder
    with a ``results.json`` also the ``<model_args>_<task>.jsonl`` files of 0.4.0 and 0.4.1."""
    files = log_paths(paths, ("samples_*.jsonl", "samples_*.jsonl.gz", "*.jsonl"))
    given = {Path(p) for p in ([paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths)}
    kept = [f for f in files if f in given or _SAMPLES.match(f.name) or (f.parent / "results.json").is_file()]
    for item in given:
        if item.is_dir() and not any(f.is_relative_to(item) for f in kept):
            raise InvalidValueError(f"{item}: no evaluation log in this folder (looked for samples_*.jsonl, "
                                    f"samples_*.jsonl.gz, and <model_args>_<task>.jsonl next to a results.json)")
    return kept


def _early_layout(path: Path) -> tuple[str, dict[str, Any] | None]:
    """Task and results of a 0.4.0/0.4.1 samples file: ``<model_args>_<task>.jsonl`` next to ``results.json``.

    Those versions write ``re.sub("/|=", "__", model_args) + "_" + task + ".jsonl"`` holding one
    JSON array (``lm_eval/__main__.py``); the task is the name's end that names a task of the
    results file (the longest one), or what follows the model arguments.
    """
    results_path = path.parent / "results.json"
    results = _read_results(results_path) if results_path.is_file() else None
    stem = path.name[:-len(".jsonl")] if path.name.endswith(".jsonl") else None
    if stem is not None and results is not None:
        args = (results.get("config") or {}).get("model_args")
        if isinstance(args, str) and stem.startswith(re.sub("/|=", "__", args) + "_"):
            return stem[len(re.sub("/|=", "__", args)) + 1:], results
        tasks = [t for t in (results.get("configs") or results.get("results") or {}) if stem.endswith(f"_{t}")]
        if tasks:
            return max(tasks, key=len), results
    raise InvalidValueError(f"{path}: not an lm-evaluation-harness samples file (its name must be "
                            f"samples_<task>_<timestamp>.jsonl, or, as lm-eval 0.4.0/0.4.1 wrote it, "
                            f"<model_args>_<task>.jsonl next to the run's results.json naming the task)")


def _read_results(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidValueError(f"{path}: not a readable results file ({exc})") from None
    return data if isinstance(data, dict) else None


def _open_lines(path: Path) -> list[str]:
    """The file's lines, split at ``\n`` only: the harness writes its records with
    ``ensure_ascii=False``, so a logged text may hold, raw, the characters that ``str.splitlines``
    also splits at (U+2028, U+2029, U+0085, ``\x0b``, ``\x0c``, ``\x1c``-``\x1e``); a ``\r`` before
    the ``\n`` is whitespace to the JSON parser."""
    opener: Any = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", newline="") as fh:
            text = fh.read()
            return text.split("\n") if text else []
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise InvalidValueError(f"{path}: not a readable text file ({exc})") from None


def _logged(path: Path, lines: list[str], tally: Tally) -> list[tuple[int, Any]]:
    """``(line, record)`` of a samples file: one JSON object per line, or (0.4.0/0.4.1) one indented JSON
    array (then the record's position in it, from 1), counting the records read and the unreadable lines."""
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith("["):
        try:
            array = json.loads("\n".join(lines))
        except json.JSONDecodeError as exc:
            raise InvalidValueError(f"{path}: not a readable JSON array of logged documents ({exc})") from None
        if isinstance(array, list):
            tally.records += len(array)
            return list(enumerate(array, start=1))
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        tally.records += 1
        try:
            out.append((number, json.loads(line)))
        except json.JSONDecodeError:
            tally.skip("unreadable JSON lines", where=f"{path}:{number}")
    return out


def _results_file(samples: Path, date: str | None) -> dict[str, Any] | None:
    """The ``results_*.json`` of the same run: same timestamp, else the only one in the folder."""
    candidates = sorted(samples.parent.glob("results_*.json"))
    same = [c for c in candidates if date is not None and c.stem == f"results_{date}"]
    chosen = same[0] if same else (candidates[0] if len(candidates) == 1 else None)
    if chosen is None:
        return None
    return _read_results(chosen)


def _model_name(samples: Path, results: dict[str, Any] | None) -> str:
    """``model_name`` of the results file, else the model in ``config.model_args``, else the folder's name."""
    if results:
        if isinstance(results.get("model_name"), str) and results["model_name"]:
            return str(results["model_name"])
        args = (results.get("config") or {}).get("model_args")
        if isinstance(args, dict):
            for key in _MODEL_KEYS:
                if key in args:
                    return str(args[key])
        elif isinstance(args, str):
            for key in _MODEL_KEYS:
                if f"{key}=" in args:
                    return args.split(f"{key}=")[1].split(",")[0]
    folder = samples.parent
    if _DATE_FOLDER.match(folder.name) and folder.parent.name:  # details/<org>__<model>/<date>/samples_*.jsonl
        folder = folder.parent
    return folder.name


def _group(task: str, results: dict[str, Any] | None) -> str:
    groups = (results or {}).get("group_subtasks") or {}
    if isinstance(groups, dict):
        for group, subtasks in groups.items():
            if isinstance(subtasks, list) and task in subtasks:
                return str(group)
    return task


def _delimiter(task: str, results: dict[str, Any] | None) -> str:
    config = ((results or {}).get("configs") or {}).get(task) or {}
    value = config.get("target_delimiter", " ") if isinstance(config, dict) else " "
    return value if isinstance(value, str) else " "


def _continuations(arguments: Any) -> list[str] | None:
    """The continuation of each request: ``gen_args_<i>.arg_1`` (0.4.x) or ``[context, continuation]`` (older)."""
    if isinstance(arguments, dict):
        keys = sorted(arguments, key=lambda k: int(k.rsplit("_", 1)[-1]) if k.rsplit("_", 1)[-1].isdigit() else -1)
        out = []
        for key in keys:
            arg = arguments[key]
            if not isinstance(arg, dict) or "arg_1" not in arg:
                return None
            out.append(str(arg["arg_1"]))
        return out
    if isinstance(arguments, list) and all(isinstance(a, (list, tuple)) and len(a) == 2 for a in arguments):
        return [str(a[1]) for a in arguments]
    return None


def _loglikelihoods(filtered: Any) -> list[float] | None:
    """One log-likelihood per request from ``[[ll, is_greedy], ...]`` (numbers or text); None: not multiple choice."""
    if not isinstance(filtered, list) or not filtered:
        return None
    if not all(isinstance(f, (list, tuple)) and len(f) == 2 for f in filtered):
        return None
    return [finite_float(f[0]) for f in filtered]


def _gold(target: str, options: Sequence[str]) -> int | None:
    text = target.strip()
    if re.fullmatch(r"-?\d+", text):
        index = int(text)
        return index if 0 <= index < len(options) else None
    matches = [i for i, o in enumerate(options) if o == target or o.strip() == text]
    return matches[0] if matches else None


def _score_value(row: dict[str, Any], field: str, where: str) -> float:
    """The per-document value of the logged ``field`` (``score=``) in a record: a number in [0, 1], else an error."""
    if field not in row:
        fields = sorted(k for k, v in row.items() if isinstance(v, (int, float)) and k not in ("doc_id",))
        raise InvalidValueError(f"{where}: `score`={field!r} is not a field of the logged record (numeric "
                                f"fields: {fields})")
    return unit_score(row[field], where, f"field {field!r}")


def _cluster(row: dict[str, Any], clusters: str | None, where: str) -> str | None:
    return cluster_label(row.get("doc"), clusters, where, "the logged `doc`", noun="field")


def _read_samples(path: Path, task: str, group: str, model: str, delimiter: str, normalization: str,
                  filter_name: str | None, clusters: str | None, tally: Tally,
                  score_field: str | None = None,
                  mapping: _Mapping | None = None) -> tuple[list[Record], int, list[tuple[str, Any]], bool]:
    """The records of one samples file, the number disagreeing with the logged metric, each record's
    ``(doc_id, prompt_hash)`` and whether its items are identified by ``doc_hash``."""
    lines = _open_lines(path)
    if not any(line.strip() for line in lines):  # as unreadable files are: an error naming it, not a task dropped
        raise InvalidValueError(f"{path}: the file is empty (no logged document); the run that wrote it may have "
                                f"failed: run the task again, or leave the file out")
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, row in _logged(path, lines, tally):
        if not isinstance(row, dict) or "doc_id" not in row or "filtered_resps" not in row:
            tally.skip("lines that are not a logged document (no doc_id or filtered_resps)", where=f"{path}:{number}")
            continue
        rows.append((number, row))
    filters = sorted({str(row.get("filter", "none")) for _, row in rows})
    if filter_name is not None:
        other = sum(str(row.get("filter", "none")) != filter_name for _, row in rows)
        if other:
            tally.skip(f"records of other filters than {filter_name!r}", other)
        rows = [(n, row) for n, row in rows if str(row.get("filter", "none")) == filter_name]
    elif len(filters) > 1:
        raise InvalidValueError(f"{path}: task {task!r} logs several filters {filters}; choose one with "
                                f"`filter_name` (e.g. filter_name={filters[0]!r})")
    records: list[Record] = []
    ids: list[tuple[str, Any]] = []
    occurrences: dict[str, int] = {}
    doc_lines: dict[str, int] = {}
    mismatches = 0
    use_hash = all(isinstance(row.get("doc_hash"), str) for _, row in rows)
    for number, row in sorted(rows, key=lambda nr: _doc_order(nr[1]["doc_id"])):
        where = f"{path}:{number}"
        score = None if score_field is None else _score_value(row, score_field, where)
        lls = _loglikelihoods(row["filtered_resps"])
        choices = None if lls is not None or mapping is None else _doc_options(row.get("doc"))
        if choices is not None and mapping is not None:  # generative multiple choice: the answer mapped to an option
            trial = mapping.trial(row, choices, where, tally)
            if trial is not None:
                image = _image(row, use_hash, occurrences, doc_lines, number, where, task, model)
                records.append(Record(group, task, model, image, trial[0], trial[1], len(choices), None,
                                      _cluster(row, clusters, where), where, score))
                ids.append((str(row["doc_id"]), row.get("prompt_hash")))
            continue
        if lls is None and mapping is not None and score_field is None:
            tally.skip(_NO_OPTIONS, where=where)
            continue
        if lls is None and score_field is None:
            tally.skip(_GENERATION, where=where)
            for name in row.get("metrics") or ():
                value = row.get(name)
                per_document = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
                tally.generation_metrics[str(name)] = tally.generation_metrics.get(str(name), True) and per_document
            continue
        if lls is None:  # a generation task, scored by the logged metric
            image = _image(row, use_hash, occurrences, doc_lines, number, where, task, model)
            resps = row["filtered_resps"]
            response = resps[0] if isinstance(resps, list) and resps else resps
            target = row.get("target", "")
            records.append(Record(group, task, model, image, target if isinstance(target, str) else
                                  json.dumps(target), str(response), 0, None, _cluster(row, clusters, where), where,
                                  score))
            ids.append((str(row["doc_id"]), row.get("prompt_hash")))
            continue
        options = _continuations(row.get("arguments"))
        if options is None or len(options) != len(lls):
            raise InvalidValueError(f"{where}: field `arguments` must hold one (context, continuation) per option of "
                                    f"`filtered_resps` ({len(lls)}); got {show(row.get('arguments'))}")
        if "acc_mutual_info" in (row.get("metrics") or []) and len(lls) % 2 == 0:
            half = len(lls) // 2  # the unconditional log-likelihoods follow the conditional ones
            lls, options = lls[:half], options[:half]
        if any(not v <= 0 for v in lls) or all(v == -math.inf for v in lls):  # NaN, above 0, all impossible
            raise InvalidValueError(f"{where}: field `filtered_resps` must hold log-likelihoods (finite numbers "
                                    f"<= 0, as text or numbers); got {show(row['filtered_resps'])}")
        if len(options) < 2:
            tally.skip("records with fewer than 2 options", where=where)
            continue
        if len(set(options)) == 1:
            tally.skip("records of multiple-input tasks (the correct option is not in the log)", where=where)
            continue
        strip = bool(delimiter) and all(o.startswith(delimiter) for o in options)
        choices = [o[len(delimiter):] for o in options] if strip else options
        gold = _gold(str(row.get("target", "")), choices)
        if gold is None:
            reason = ("records with several correct options" if str(row.get("target", "")).lstrip().startswith("[")
                      else "records whose target is neither an option index nor an option")
            tally.skip(reason, where=where)
            continue
        scores = [v / max(len(c), 1) for v, c in zip(lls, choices)] if normalization == "length" else lls
        response = max(range(len(scores)), key=scores.__getitem__)  # the first maximum, as np.argmax
        logged = row.get("acc_norm" if normalization == "length" else "acc")
        if isinstance(logged, (int, float)) and not isinstance(logged, bool) and math.isfinite(logged):
            mismatches += bool(logged) != (response == gold)
        cluster = _cluster(row, clusters, where)
        image = _image(row, use_hash, occurrences, doc_lines, number, where, task, model)
        records.append(Record(group, task, model, image, str(gold), str(response), len(choices),
                              softmax(scores), cluster, where, score))
        ids.append((str(row["doc_id"]), row.get("prompt_hash")))
    return records, mismatches, ids, use_hash


#: The notes of :func:`_align_ids` (counted in ``trials.attrs["log"]["noted"]`` and the reader's warning).
MIXED_IDS = ("trials of tasks whose logs identify documents differently (doc_hash in some files, not in others: "
             "different harness versions), aligned by <task>/<doc_id> in every file of the task")
SHOTS_DIFFER = ("trials of tasks that the models ran with different numbers of few-shot examples (n-shot of their "
                "results files)")
PROMPTS_DIFFER = ("trials of items whose prompt differs between models (prompt_hash: other few-shot examples, "
                  "number of shots or template), aligned by document all the same")


def _align_ids(read: list[tuple[str, list[Record], list[tuple[str, Any]], bool]], tally: Tally) -> list[Record]:
    """Every file's records with one item-id scheme per task, chosen across all files of the task.

    ``doc_hash`` when every file of the task logs it, else ``<task>/<doc_id>`` everywhere (the
    harness logs ``doc_hash`` since 0.4.2): a task read from logs of two harness versions still
    aligns, and the trials so aligned are counted in a note. Items whose ``prompt_hash`` differs
    between models (different few-shot settings) are counted in a second note.
    """
    hashed: dict[str, bool] = {}
    for task, _, _, use_hash in read:
        hashed[task] = hashed.get(task, True) and use_hash
    records: list[Record] = []
    prompts: dict[tuple[str, str], set[Any]] = {}
    for task, found, ids, use_hash in read:
        if use_hash and not hashed[task]:
            found = [replace(r, image=f"{task}/{doc_id}") for r, (doc_id, _) in zip(found, ids)]
        for r, (_, prompt) in zip(found, ids):
            if isinstance(prompt, str):
                prompts.setdefault((r.condition, r.image), set()).add(prompt)
        records.extend(found)
    mixed = {task for task, _, _, use_hash in read if use_hash and not hashed[task]}  # some files hash, some not
    if mixed:
        tally.note(MIXED_IDS, sum(len(found) for task, found, _, _ in read if task in mixed))
    differ = {key for key, hashes in prompts.items() if len(hashes) > 1}
    if differ:
        tally.note(PROMPTS_DIFFER, sum((r.condition, r.image) in differ for r in records))
    return records


def _image(row: dict[str, Any], use_hash: bool, occurrences: dict[str, int], doc_lines: dict[str, int], number: int,
           where: str, task: str, model: str) -> str:
    """The item id of a record (``doc_hash``, else ``<task>/<doc_id>``: doc ids restart at 0 in every task, and the
    tasks of a group are one experiment), and an error for a document logged twice."""
    doc_id = str(row["doc_id"])
    if doc_id in doc_lines:
        raise InvalidValueError(f"{where}: duplicate document: doc_id {row['doc_id']!r} of task {task!r} was "
                                f"already logged for model {model!r} at line {doc_lines[doc_id]}")
    doc_lines[doc_id] = number
    image = str(row["doc_hash"]) if use_hash else f"{task}/{doc_id}"
    occurrences[image] = occurrences.get(image, 0) + 1
    if occurrences[image] > 1:
        image = f"{image}-{occurrences[image]}"  # the same document text twice in one task
    return image


def _doc_order(doc_id: Any) -> tuple[int, Any]:
    return (0, doc_id) if isinstance(doc_id, int) else (1, str(doc_id))
