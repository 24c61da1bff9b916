"""Reading every-eval-ever instance-level records (``*.jsonl``).

The format, as the instance-level schema of evaleval/every_eval_ever at 9bce413 defines it
(``every_eval_ever/schemas/instance_level_eval.schema.json``, schema version 0.3.0; the 0.2
records have the same fields read here): one JSON object per line with ``schema_version``,
``evaluation_id``, ``model_id``, ``evaluation_name``, ``sample_id``, ``sample_hash``,
``interaction_type``, ``input`` (``raw``, ``reference``: a list of reference answers,
``choices``: the options or null), ``output`` (``raw``: the responses), ``answer_attribution``
(the extracted answers, ``extracted_value`` and ``is_terminal``), ``evaluation`` (``score``,
``is_correct``), ``error`` and ``metadata`` (text values). Its converters write such records
from HELM, Inspect AI and lm-evaluation-harness logs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_choice, show
from trialwise.io.logs.records import Record, Tally, assemble, cluster_label, log_paths

__all__ = ["read_every_eval_ever"]

_REQUIRED = ("model_id", "evaluation_name", "sample_id", "input", "evaluation")


def read_every_eval_ever(
    paths: Any,
    *,
    clusters: str | None = None,
    unaligned: Literal["error", "drop"] = "error",
):
    """Read every-eval-ever instance-level records of one or more models into a trial table.

    A record with ``input.choices`` and one reference that names an option is a multiple-choice
    trial: ``truth`` the reference's option, ``response`` the option the extracted answer names.
    Any other record is a trial without options whose ``score`` is ``evaluation.score``.

    Parameters
    ----------
    paths : str, path or list of them
        Instance-level ``.jsonl`` files, or folders searched recursively for them (a folder's
        ``.jsonl`` files whose first line is not such a record are left alone).
    clusters : str, optional
        A key of the record's ``metadata`` copied into a ``cluster`` column.
    unaligned : {"error", "drop"}
        As in :func:`~trialwise.io.read_lm_eval`.

    Returns
    -------
    pandas.DataFrame
        One row per model and sample, columns :data:`~trialwise.io.LOG_COLUMNS` (then ``score``,
        ``cluster``): ``experiment`` and ``condition`` the ``evaluation_name``, ``subject`` the
        ``model_id``, ``image`` the ``sample_id``, ``truth``/``response`` option indices as text
        (``response`` ``"na"`` when the answer names no option) or, without options, the
        references (one as itself, several as a JSON list) and the answer, ``n_options``,
        ``probabilities`` (None: the schema has no option probabilities). A ``score`` column when
        some record is not multiple choice (``evaluation.score``; ``is_correct`` as 1/0 when the
        score is not in [0, 1], counted; a multiple-choice trial's score is its correctness).
        ``trials.attrs["log"]["metric_mismatches"]``: multiple-choice trials whose correctness
        differs from the logged ``evaluation.is_correct``.

    Raises
    ------
    InvalidValueError
        Naming the file and line: an empty file, a line that is not JSON or lacks the schema's
        required fields, a missing ``clusters`` key, and the checks of every log reader.

    Warns
    -----
    TrialwiseWarning
        When records were not used (records with an ``error``), answers named no option, scores
        were outside [0, 1], or trials disagree with ``is_correct``; counts in
        ``trials.attrs["log"]``.

    Notes
    -----
    A reference or answer names an option when it equals the option's text (ignoring surrounding
    spaces), else when it is a letter ``A``, ``B``, ... within the options, else an index ``0``,
    ``1``, ... within them. The answer is the last ``answer_attribution`` entry with
    ``is_terminal``, else the first ``output.raw``.

    Examples
    --------
    Two models' records of a multiple-choice question (trimmed to the fields read):

    >>> import json, pathlib, tempfile
    >>> import trialwise as tw
    >>> def record(model, answer):
    ...     return {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": model, "evaluation_name": "capitals",
    ...             "sample_id": "s1", "input": {"raw": "Capital of France?", "reference": ["Paris"],
    ...                                          "choices": ["Paris", "Rome"]},
    ...             "answer_attribution": [{"extracted_value": answer, "is_terminal": True}],
    ...             "evaluation": {"score": float(answer == "Paris"), "is_correct": answer == "Paris"}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "instances.jsonl"
    ...     lines = [json.dumps(record(m, a)) for m, a in (("org/a", "Paris"), ("org/b", "Rome"))]
    ...     _ = path.write_text(f"{lines[0]}{chr(10)}{lines[1]}{chr(10)}")
    ...     trials = tw.io.read_every_eval_ever(path)
    >>> print(trials[["subject", "truth", "response", "correct"]].to_string(index=False))
    subject truth response  correct
      org/a     0        0     True
      org/b     0        1    False
    """
    unaligned = check_choice(unaligned, "unaligned", ("error", "drop"))
    if clusters is not None and not isinstance(clusters, str):
        raise InvalidTypeError(f"`clusters` must be a str or None; got {type(clusters).__name__} {show(clusters)}")
    tally = Tally()
    records: list[Record] = []
    mismatches = 0
    for path in _find_files(paths):
        tally.read(path)
        for number, row in _lines(path, tally):
            record, wrong = _record(row, f"{path}:{number}", clusters, tally)
            if record is not None:
                records.append(record)
                mismatches += wrong
    if any(r.score is not None for r in records):
        from dataclasses import replace

        records = [r if r.score is not None else replace(r, score=float(r.response == r.truth)) for r in records]
    if mismatches:
        tally.note("multiple-choice trials whose correctness differs from the logged `evaluation.is_correct` (kept)",
                   mismatches)
    return assemble(records, tally, source="every-eval-ever", unaligned=unaligned, clusters=clusters,
                    options_field="input.choices", truth_field="input.reference",
                    extra={"metric_mismatches": mismatches})


def _find_files(paths: Any) -> list[Path]:
    from trialwise.io.logs.detect import is_every_eval_ever

    files = log_paths(paths, ("*.jsonl",))
    items = [paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths
    given = {Path(p) for p in items}
    kept = [f for f in files if f in given or is_every_eval_ever(f)]
    for item in given:
        if item.is_dir() and not any(f.is_relative_to(item) for f in kept):
            raise InvalidValueError(f"{item}: no every-eval-ever instance-level records in this folder (looked for "
                                    f"*.jsonl whose first line has schema_version, evaluation_id and sample_id)")
    return kept


def _lines(path: Path, tally: Tally) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidValueError(f"{path}: not UTF-8 text ({exc})") from None
    lines = text.split("\n")  # on \n only: U+2028 and the like are text inside a record
    if not any(line.strip() for line in lines):
        raise InvalidValueError(f"{path}: the file is empty (no every-eval-ever record)")
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        tally.records += 1
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidValueError(f"{path}:{number}: not a JSON record ({exc})") from None
        missing = [k for k in _REQUIRED if not isinstance(row, dict) or k not in row]
        if missing:
            raise InvalidValueError(f"{path}:{number}: not an every-eval-ever instance-level record (no "
                                    f"{', '.join(missing)})")
        out.append((number, row))
    return out


def _option(text: Any, choices: list[str]) -> int | None:
    """The option ``text`` names: its text, a letter, or an index (Notes of :func:`read_every_eval_ever`)."""
    if not isinstance(text, str):
        return None
    value = text.strip()
    texts = [c.strip() for c in choices]
    if value in texts:
        return texts.index(value)
    if len(value) == 1 and "A" <= value <= "Z" and ord(value) - 65 < len(choices):
        return ord(value) - 65
    if value.isdigit() and int(value) < len(choices):
        return int(value)
    return None


def _answer(row: dict[str, Any]) -> str:
    attributions = [a for a in row.get("answer_attribution") or [] if isinstance(a, dict)]
    terminal = [a for a in attributions if a.get("is_terminal")]
    if terminal and isinstance(terminal[-1].get("extracted_value"), str):
        return str(terminal[-1]["extracted_value"])
    raw = (row.get("output") or {}).get("raw") if isinstance(row.get("output"), dict) else None
    return str(raw[0]) if isinstance(raw, list) and raw else ""


def _record(row: dict[str, Any], where: str, clusters: str | None, tally: Tally) -> tuple[Record | None, int]:
    if row.get("error"):
        tally.skip("records with an error (timeout, refusal, API error)", where=where)
        return None, 0
    task, model, image = str(row["evaluation_name"]), str(row["model_id"]), str(row["sample_id"])
    given = row["input"] if isinstance(row["input"], dict) else {}
    evaluation = row["evaluation"] if isinstance(row["evaluation"], dict) else {}
    choices = [str(c) for c in given.get("choices") or []]
    references = [str(r) for r in given.get("reference") or []]
    answer = _answer(row)
    cluster = _cluster(row, clusters, where)
    truth = _option(references[0], choices) if len(choices) >= 2 and len(references) == 1 else None
    if truth is not None:
        chosen = _option(answer, choices)
        if chosen is None:
            tally.note("answers that name no option (kept as response 'na', incorrect)")
        response = "na" if chosen is None else str(chosen)
        logged = evaluation.get("is_correct")
        wrong = int(isinstance(logged, bool) and logged != (response == str(truth)))
        return Record(task, task, model, image, str(truth), response, len(choices), None, cluster, where), wrong
    score = evaluation.get("score")
    number = float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else math.nan
    if not 0.0 <= number <= 1.0:
        correct = evaluation.get("is_correct")
        if not isinstance(correct, bool):
            raise InvalidValueError(f"{where}: `evaluation.score` must be a number in [0, 1] or `is_correct` a "
                                    f"boolean; got {show(score)}, {show(correct)}")
        tally.note("trials whose `evaluation.score` is not in [0, 1], scored by `is_correct` (1 or 0)")
        number = float(correct)
    truth_text = references[0] if len(references) == 1 else json.dumps(references, ensure_ascii=False)
    return Record(task, task, model, image, truth_text, answer, 0, None, cluster, where, number), 0


def _cluster(row: dict[str, Any], clusters: str | None, where: str) -> str | None:
    return cluster_label(row.get("metadata") or {}, clusters, where, "the record's `metadata`")

