"""Reading Inspect AI evaluation logs (``.eval`` archives and ``.json`` documents).

The format, as inspect-ai 0.3.285 writes it (``inspect_ai/log/_log.py``: ``EvalLog``,
``EvalSpec``, ``EvalSample``, ``Score``; ``inspect_ai/log/_recorders/eval.py`` and
``json.py``): a ``.json`` log is one JSON document ``{"version", "status", "eval", "plan",
"results", "stats", ..., "samples": [...]}``; an ``.eval`` log is a zip archive whose member
``header.json`` holds the same document without its samples (``_journal/start.json`` only,
while the run has not finished), and whose members ``samples/<id>_epoch_<n>.json`` hold one
sample each. Recent versions compress the members with Zstandard (zip method 93), which the
standard library reads from Python 3.14 on; before, the optional ``zstandard`` package does
(``pip install "trialwise[inspect]"``). Older logs (deflate) need nothing. ``eval.task`` names
the task, ``eval.model`` the model; a sample has ``id``, ``epoch`` (from 1), ``choices`` (the
options, or null), ``target`` (a letter such as ``"B"`` for the ``choice()`` scorer, else the
reference text or a list of them), ``scores`` (scorer name → ``{"value", "answer", ...}``),
``metadata`` and ``error`` (null unless the sample failed).

The inspect_ai package is not needed to read them: only the standard library (zipfile, json).
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, Literal

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_choice, show
from trialwise.io.logs.records import Record, Tally, assemble, cluster_label, log_paths

__all__ = ["read_inspect", "is_inspect_json"]

#: The values the ``choice()``, ``match()``, ``includes()`` and model-graded scorers log, as Inspect's own
#: ``value_to_float`` reads them: CORRECT, INCORRECT, PARTIAL, NOANSWER.
_LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_ZSTD = 93  # the zip compression method number of Zstandard (APPNOTE 4.4.5)
_JSON_LOG = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')


def read_inspect(
    paths: Any,
    *,
    scorer: str | None = None,
    clusters: str | None = None,
    unaligned: Literal["error", "drop"] = "error",
):
    """Read Inspect AI logs (``.eval`` or ``.json``) of one or more models into a trial table.

    Every scored sample becomes one trial per model and epoch. A multiple-choice sample (the
    ``multiple_choice()`` solver with the ``choice()`` scorer: ``choices`` logged and a target
    letter) gives the option indices as ``truth`` and ``response``; any other sample (``match()``,
    ``includes()``, ``model_graded_qa()``, a numeric scorer) gives a trial without options, with its
    score as the ``score`` column, correct when the score is full credit.

    Parameters
    ----------
    paths : str, path or list of them
        ``.eval`` or ``.json`` log files, or folders searched recursively for them (a folder's
        ``.json`` files that are not Inspect logs, e.g. ``logs.json``, are left alone).
    scorer : str, optional
        Which scorer's score to read when the samples log several (a key of the sample's
        ``scores``); by default every sample must log exactly one.
    clusters : str, optional
        A key of the sample's ``metadata`` (``"a.b"`` for a nested key) copied into a ``cluster``
        column, for resampling questions that share it together.
    unaligned : {"error", "drop"}
        An item logged for some but not all models of its task is an error, or is dropped and
        counted (also the tasks some model did not log at all), as in
        :func:`~trialwise.io.read_lm_eval`.

    Returns
    -------
    pandas.DataFrame
        One row per model, sample and epoch, columns :data:`~trialwise.io.LOG_COLUMNS`:
        ``experiment`` and ``condition`` the task (``eval.task``), ``subject`` the model
        (``eval.model``), ``image`` the sample ``id``, ``truth``/``response`` the option indices
        as text (``"0"``, ``"1"``, ...; ``response`` ``"na"`` when the scorer found no single
        option in the answer) or, without options, the target and the scorer's ``answer`` (else
        the model's completion), ``n_options`` (0 without options) and ``probabilities`` (None:
        Inspect logs no option probabilities). A ``replicate`` column (the epoch) when a log ran
        several epochs; a ``score`` column when some sample is not multiple choice (C 1, P 0.5,
        I and N 0, numbers as logged; a multiple-choice trial's score is its correctness);
        ``cluster`` with ``clusters``. ``trials.attrs["log"]``: files and samples read, the counts
        of samples not used by reason, ``"scorer"``, and ``"metric_mismatches"``: multiple-choice
        trials whose correctness differs from the scorer's logged value.

    Raises
    ------
    InvalidValueError
        Naming the file (and sample): a file that is not an Inspect log or is truncated, a
        Zstandard-compressed ``.eval`` without the ``zstandard`` package (Python < 3.14), several
        scorers and no ``scorer``, a ``scorer`` or ``clusters`` key the sample lacks, a score that
        is a number outside [0, 1], and the checks of every log reader (a sample logged twice
        for a model and epoch, ragged options, unaligned items).

    Warns
    -----
    TrialwiseWarning
        When samples were not used: logs without samples (``--no-log-samples``), samples that
        ended in an error, all samples of logs whose run did not finish (status ``"started"``,
        ``"cancelled"`` or ``"error"``), samples without a score, with a score of several values,
        with several correct options; or when answers chose no option; the counts are in
        ``trials.attrs["log"]``.

    Notes
    -----
    A target letter ``"A"``, ``"B"``, ... is the option of that position in ``choices`` (the
    order of the dataset: the ``choice()`` scorer unshuffles its answer when the solver shuffled
    the options). The accuracy of the table (mean of ``correct``, or of ``score``, over a task)
    is Inspect's ``accuracy()`` metric of the log.

    Examples
    --------
    Two models' ``.json`` logs of a two-option task, in the shape Inspect writes them (trimmed to
    the fields read):

    >>> import json, pathlib, tempfile
    >>> import trialwise as tw
    >>> def log(model, answers):
    ...     samples = [{"id": f"q{i}", "epoch": 1, "choices": ["yes", "no"], "target": "A",
    ...                 "scores": {"choice": {"value": "C" if a == "A" else "I", "answer": a}}}
    ...                for i, a in enumerate(answers)]
    ...     return {"version": 2, "status": "success", "eval": {"task": "yes_no", "model": model},
    ...             "samples": samples}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     for name, answers in (("a", "AAB"), ("b", "ABB")):
    ...         _ = (pathlib.Path(folder) / f"{name}.json").write_text(json.dumps(log(f"mockllm/{name}", answers)))
    ...     trials = tw.io.read_inspect(folder)
    >>> trials.groupby("subject").correct.mean().round(3).to_dict()
    {'mockllm/a': 0.667, 'mockllm/b': 0.333}
    >>> print(trials[["subject", "image", "truth", "response"]].head(3).to_string(index=False))
     subject image truth response
    mockllm/a    q0     0        0
    mockllm/a    q1     0        0
    mockllm/a    q2     0        1
    """
    unaligned = check_choice(unaligned, "unaligned", ("error", "drop"))
    for value, name in ((scorer, "scorer"), (clusters, "clusters")):
        if value is not None and not isinstance(value, str):
            raise InvalidTypeError(f"`{name}` must be a str or None; got {type(value).__name__} {show(value)}")
    tally = Tally()
    records: list[Record] = []
    mismatches = 0
    chosen: set[str] = set()
    for path in _find_files(paths):
        tally.read(path)
        header, samples = _read_log(path)
        task, model = _identity(header, path)
        status = header.get("status")
        tally.records += len(samples)
        if status == "success" and not samples:  # `inspect eval --no-log-samples`: results only
            tally.skip("logs without samples (written with log_samples=False: results only)", where=str(path))
            continue
        if status != "success":
            if samples:
                tally.skip(f"samples of logs whose run did not finish (status {status!r})", len(samples),
                           where=str(path))
            continue
        for where, sample in samples:
            record, wrong, name = _record(sample, task, model, scorer, clusters, f"{path}:{where}", tally)
            if record is not None:
                records.append(record)
                mismatches += wrong
                chosen.add(name)
    if any(r.score is not None for r in records):  # one score column: a multiple-choice trial scores its correctness
        records = [r if r.score is not None else _scored(r) for r in records]
    if mismatches:
        tally.note("multiple-choice trials whose correctness differs from the scorer's logged value (kept)",
                   mismatches)
    return assemble(records, tally, source="Inspect AI", unaligned=unaligned, clusters=clusters,
                    options_field="choices", truth_field="target",
                    extra={"scorer": ", ".join(sorted(chosen)) or scorer, "metric_mismatches": mismatches})


def _scored(r: Record) -> Record:
    from dataclasses import replace

    return replace(r, score=1.0 if r.response == r.truth else 0.0)


def is_inspect_json(path: Path) -> bool:
    """Whether a ``.json`` file starts as an Inspect log does (``{"version": <n>, "status": ...``)."""
    try:
        with open(path, "rb") as fh:
            return bool(_JSON_LOG.match(fh.read(256)))
    except OSError:
        return False


def _find_files(paths: Any) -> list[Path]:
    """The logs under ``paths``: ``*.eval`` and the ``*.json`` that are Inspect logs (a file given by name: any)."""
    files = log_paths(paths, ("*.eval", "*.json"))
    items = [paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths
    given = {Path(p) for p in items}
    kept = [f for f in files if f in given or f.suffix == ".eval" or is_inspect_json(f)]
    for item in given:
        if item.is_dir() and not any(f.is_relative_to(item) for f in kept):
            raise InvalidValueError(f"{item}: no Inspect AI log in this folder (looked for *.eval and *.json logs)")
    return kept


def _read_log(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """The log's header (the document without samples) and its samples, each with where it is in the file."""
    if path.stat().st_size == 0:
        raise InvalidValueError(f"{path}: the file is empty (no Inspect AI log); the run that wrote it may have "
                                f"failed: run it again, or leave the file out")
    if zipfile.is_zipfile(path) or path.suffix == ".eval":
        return _read_eval(path)
    try:
        with open(path, encoding="utf-8") as fh:
            document = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidValueError(f"{path}: not a readable Inspect AI .json log ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("eval"), dict):
        keys = sorted(document)[:8] if isinstance(document, dict) else type(document).__name__
        raise InvalidValueError(f"{path}: not an Inspect AI log (no `eval` object; found {keys})")
    samples = document.get("samples") or []
    if not isinstance(samples, list):
        raise InvalidValueError(f"{path}: field `samples` must be a list of samples; got {show(samples)}")
    return document, [(f"samples[{i}]", s) for i, s in enumerate(samples)]


def _read_eval(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "header.json" in names:
                header = _member(archive, path, "header.json")
            elif "_journal/start.json" in names:  # a run under way or interrupted: no header yet
                header = dict(_member(archive, path, "_journal/start.json"), status="started")
            else:
                raise InvalidValueError(f"{path}: not an Inspect AI .eval log (a zip archive without header.json "
                                        f"or _journal/start.json; members: {names[:5]})")
            if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
                raise InvalidValueError(f"{path}: not an Inspect AI log (header.json has no `eval` object)")
            members = sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")), key=_order)
            return header, [(n, _member(archive, path, n)) for n in members]
    except zipfile.BadZipFile as exc:
        raise InvalidValueError(f"{path}: not a readable Inspect AI .eval log (a zip archive; {exc}): truncated "
                                f"or not a log") from None


def _order(name: str) -> tuple[int, str]:
    match = re.search(r"_epoch_(\d+)\.json$", name)
    return (int(match[1]) if match else 0, name)


def _member(archive: zipfile.ZipFile, path: Path, name: str) -> Any:
    """One JSON member of an ``.eval`` archive, decompressed (Zstandard by the ``zstandard`` package if needed)."""
    info = archive.getinfo(name)
    if info.compress_type == _ZSTD and not _stdlib_reads_zstd():
        data = _zstd_member(path, info)
    else:
        try:
            data = archive.read(name)
        except (NotImplementedError, EOFError, zlib.error) as exc:
            raise InvalidValueError(f"{path}: member {name} of the .eval log cannot be read ({exc})") from None
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidValueError(f"{path}: member {name} of the .eval log is not readable JSON ({exc})") from None


def _stdlib_reads_zstd() -> bool:
    """Whether ``zipfile`` reads Zstandard members (Python 3.14 on, or patched by ``zipfile_zstd``)."""
    return getattr(zipfile, "ZIP_ZSTANDARD", None) == _ZSTD


def _zstd_member(path: Path, info: zipfile.ZipInfo) -> bytes:
    """A Zstandard-compressed member read with the ``zstandard`` package (Python < 3.14), its CRC checked."""
    try:
        import zstandard
    except ImportError:
        raise InvalidValueError(f"{path}: the .eval log is compressed with Zstandard, which Python before 3.14 "
                                f"reads only with the `zstandard` package: pip install \"trialwise[inspect]\" (or "
                                f"convert the log: inspect log convert --to json)") from None
    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) < 30 or local[:4] != b"PK\x03\x04":
            raise InvalidValueError(f"{path}: member {info.filename} of the .eval log is damaged (no local header)")
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_length + extra_length)
        raw = fh.read(info.compress_size)
    try:
        data = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True).read()
    except zstandard.ZstdError as exc:
        raise InvalidValueError(f"{path}: member {info.filename} of the .eval log is damaged ({exc})") from None
    if zlib.crc32(data) != info.CRC:
        raise InvalidValueError(f"{path}: member {info.filename} of the .eval log is damaged (bad CRC-32)")
    return data


def _identity(header: dict[str, Any], path: Path) -> tuple[str, str]:
    spec = header["eval"]
    task, model = spec.get("task"), spec.get("model")
    if not isinstance(task, str) or not isinstance(model, str):
        raise InvalidValueError(f"{path}: not an Inspect AI log (`eval.task` and `eval.model` must be text; got "
                                f"{show(task)}, {show(model)})")
    return task, model


def _record(sample: Any, task: str, model: str, scorer: str | None, clusters: str | None, where: str,
            tally: Tally) -> tuple[Record | None, int, str]:
    """The trial of one sample (None: skipped and counted), whether it disagrees with the logged value, the scorer."""
    if not isinstance(sample, dict) or "id" not in sample:
        tally.skip("entries that are not a logged sample (no id)", where=where)
        return None, 0, ""
    where = f"{where} (sample {sample['id']!r}, epoch {sample.get('epoch', 1)})"
    if sample.get("error"):
        tally.skip("samples that ended in an error", where=where)
        return None, 0, ""
    scores = sample.get("scores")
    if not isinstance(scores, dict) or not scores:
        tally.skip("samples without a score", where=where)
        return None, 0, ""
    name = _scorer(scores, scorer, where)
    score = scores[name] if isinstance(scores[name], dict) else {"value": scores[name]}
    value = score.get("value")
    if isinstance(value, (dict, list)):
        tally.skip("samples whose score holds several values (a dict or list: choose one in Inspect)", where=where)
        return None, 0, name
    epoch = sample.get("epoch", 1)
    replicate = int(epoch) if isinstance(epoch, int) and not isinstance(epoch, bool) and epoch >= 1 else 1
    cluster = _cluster(sample, clusters, where)
    choices: list[Any] = sample["choices"] if isinstance(sample.get("choices"), list) else []
    target = sample.get("target")
    truth = _letters(target, len(choices)) if len(choices) >= 2 else None
    if truth is not None:
        if len(truth) != 1:
            tally.skip("samples with several correct options", where=where)
            return None, 0, name
        chosen = _letters(score.get("answer") or "", len(choices))
        if chosen is None or len(chosen) != 1:
            tally.note("answers that choose no single option (kept as response 'na', incorrect)")
        response = str(chosen[0]) if chosen is not None and len(chosen) == 1 else "na"
        wrong = int((response == str(truth[0])) != (value == "C" or value is True or value == 1))
        return (Record(task, task, model, str(sample["id"]), str(truth[0]), response, len(choices), None, cluster,
                       where, None, replicate), wrong, name)
    number = _value(value, where)
    if number is None:
        tally.skip("samples whose score is not a number, a boolean or C/I/P/N", where=where)
        return None, 0, name
    answer = score.get("answer")
    if not isinstance(answer, str):
        output = sample.get("output")
        answer = output.get("completion", "") if isinstance(output, dict) else ""
    truth_text = target if isinstance(target, str) else json.dumps(target, ensure_ascii=False)
    return (Record(task, task, model, str(sample["id"]), truth_text, str(answer), 0, None, cluster, where, number,
                   replicate), 0, name)


def _scorer(scores: dict[str, Any], scorer: str | None, where: str) -> str:
    if scorer is not None:
        if scorer not in scores:
            raise InvalidValueError(f"{where}: `scorer`={scorer!r} is not a scorer of the sample (scorers: "
                                    f"{sorted(scores)})")
        return scorer
    if len(scores) > 1:
        raise InvalidValueError(f"{where}: the sample is scored by several scorers {sorted(scores)}; choose one with "
                                f"`scorer` (e.g. scorer={sorted(scores)[0]!r})")
    return next(iter(scores))


def _letters(text: Any, k: int) -> list[int] | None:
    """Option positions of ``"A"``, ``"A, C"`` or ``["A", "C"]`` among ``k`` options; None when not letters in range
    (an empty text: no option, ``[]``)."""
    parts = text if isinstance(text, list) else [text]
    out: list[int] = []
    for part in parts:
        if not isinstance(part, str):
            return None
        for token in part.replace(",", " ").split():
            if len(token) != 1 or not "A" <= token <= "Z" or ord(token) - 65 >= k:
                return None
            out.append(ord(token) - 65)
    return sorted(set(out))


def _value(value: Any, where: str) -> float | None:
    """A score value as a number in [0, 1] (C/I/P/N, booleans, numbers); None for other text."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        return _LETTER_VALUES.get(value.strip())
    if isinstance(value, (int, float)):
        number = float(value)
        if not 0.0 <= number <= 1.0:
            raise InvalidValueError(f"{where}: the score value must be a number in [0, 1] (full credit 1); got "
                                    f"{show(value)}: rescale the scorer's values in Inspect, or read a table with "
                                    f"tw.read_trials(..., score=...)")
        return number
    return None


def _cluster(sample: dict[str, Any], clusters: str | None, where: str) -> str | None:
    return cluster_label(sample.get("metadata") or {}, clusters, where, "the sample's `metadata`", nested=True)

