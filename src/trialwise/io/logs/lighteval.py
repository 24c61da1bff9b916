"""Reading lighteval "details" files (``details_<task>_<date>.parquet``).

The format, as lighteval writes it (huggingface/lighteval at 3fd1526, 0.13.1.dev0, the layout
since 0.10: ``src/lighteval/logging/evaluation_tracker.py``, ``EvaluationTracker.save`` and
``save_details``; ``src/lighteval/logging/info_loggers.py``, ``DetailsLogger.Detail``): one
Parquet file per task in ``<output_dir>/details/<model_name>/<date_id>/``, one row per document
with the columns ``doc`` (the ``Doc``: ``query``, ``choices``, ``gold_index`` (an index or a list
of them), ``id``, ``task_name``, ``specific``, ...), ``model_response`` (the ``ModelResponse``:
``text``, ``logprobs`` (one log-likelihood per option for a log-likelihood task; twice as many
with the unconditioned ones of PMI), ``argmax_logits_eq_gold``, ``output_tokens``, ...) and
``metric`` (metric name → the document's value, e.g. ``acc``). The earlier flat layout
(``example``, ``predictions``, ``gold_index``, ``metrics`` columns, before 0.10) is not read.

Reading Parquet needs pyarrow (``pip install "trialwise[lighteval]"``), imported only here.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any, Literal

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_choice, show
from trialwise.io.logs.records import (Record, Tally, assemble, cluster_label, finite_float, log_paths, softmax,
                                      unit_score)

__all__ = ["read_lighteval"]

_DETAILS = re.compile(r"^details_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+))?\.parquet$")
_COLUMNS = ("doc", "model_response", "metric")
_GENERATION = "records that are not log-likelihood multiple choice (generation tasks; read them with score=)"


def read_lighteval(
    paths: Any,
    *,
    normalization: Literal["none", "length"] = "none",
    score: str | None = None,
    clusters: str | None = None,
    unaligned: Literal["error", "drop"] = "error",
):
    """Read lighteval details files of one or more models into a trial table.

    Every log-likelihood multiple-choice document becomes one trial per model: the options'
    probabilities are the softmax of the logged log-likelihoods (``model_response.logprobs``),
    the response is the most probable option (lighteval's ``loglikelihood_acc``) and the trial
    is correct when it is ``doc.gold_index``.

    Parameters
    ----------
    paths : str, path or list of them
        ``details_<task>_<date>.parquet`` files or folders searched recursively for them
        (lighteval's ``details`` folder of one or many models).
    normalization : {"none", "length"}
        ``"none"``: scores are the log-likelihoods (``acc``); ``"length"``: divided by the
        option's length in characters (lighteval's ``LogProbCharNorm``, ``acc_norm``).
    score : str, optional
        A metric lighteval logged per document (a key of ``metric``, e.g. ``"em"``) whose value,
        a number in [0, 1], becomes the ``score`` column; generation tasks are then read too, as
        trials without options (the first generated text as response, the gold choice as truth),
        correct when the score is 1.
    clusters : str, optional
        A key of the document's ``specific`` dict copied into a ``cluster`` column.
    unaligned : {"error", "drop"}
        As in :func:`~trialwise.io.read_lm_eval`.

    Returns
    -------
    pandas.DataFrame
        One row per model and document, columns :data:`~trialwise.io.LOG_COLUMNS` (then
        ``score``, ``cluster``): ``experiment`` and ``condition`` the task of the file name
        (e.g. ``lighteval|arc:easy|0``), ``subject`` the model (the folders between ``details``
        and the date folder, e.g. ``org/model``), ``image`` ``doc.id`` (a hash of the query and
        choices when the task sets no id), ``truth``/``response`` option indices as text,
        ``n_options``, ``probabilities``. ``trials.attrs["log"]``: counts of what was read and
        skipped, ``"normalization"``, and ``"metric_mismatches"``: trials whose correctness
        differs from the logged ``acc`` (``"none"``) or ``acc_norm`` (``"length"``).

    Raises
    ------
    InvalidValueError
        Naming the file and row: an empty or unreadable Parquet file, one without the columns
        ``doc``, ``model_response`` and ``metric``, log-likelihoods that are not finite and <= 0,
        a missing ``score`` metric or ``clusters`` key, and the checks of every log reader.
    ImportError
        When pyarrow is not installed.

    Warns
    -----
    TrialwiseWarning
        When records were not used (generation tasks without ``score``, several gold options)
        or disagree with the logged metric; the counts are in ``trials.attrs["log"]``.

    Notes
    -----
    With log-likelihoods :math:`\\ell_o` of options :math:`o = 1..k`,
    :math:`p_o = e^{s_o} / \\sum_j e^{s_j}`, :math:`s_o = \\ell_o` or :math:`\\ell_o / L_o`
    (``L_o`` the option's length in characters), as for :func:`~trialwise.io.read_lm_eval`.
    A PMI task's unconditioned log-likelihoods (the second half of ``logprobs``) are not used.

    Examples
    --------
    A details file of one model, in the layout lighteval writes (trimmed to the fields read):

    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> import trialwise as tw
    >>> rows = pd.DataFrame({
    ...     "doc": [{"id": "0", "choices": [" yes", " no"], "gold_index": 0},
    ...             {"id": "1", "choices": [" yes", " no"], "gold_index": 1}],
    ...     "model_response": [{"logprobs": [-0.2, -1.8]}, {"logprobs": [-0.9, -0.6]}],
    ...     "metric": [{"acc": 1}, {"acc": 1}]})
    >>> with tempfile.TemporaryDirectory() as root:
    ...     folder = pathlib.Path(root) / "details" / "org" / "model" / "2026-01-02T03-04-05"
    ...     folder.mkdir(parents=True)
    ...     rows.to_parquet(folder / "details_lighteval|yes_no|0_2026-01-02T03-04-05.parquet")
    ...     trials = tw.io.read_lighteval(root)
    >>> print(trials[["subject", "condition", "response", "correct"]].to_string(index=False))
      subject           condition response  correct
    org/model lighteval|yes_no|0        0     True
    org/model lighteval|yes_no|0        1     True
    >>> [round(p, 3) for p in trials.probabilities[0]]
    [0.832, 0.168]
    """
    normalization = check_choice(normalization, "normalization", ("none", "length"))
    unaligned = check_choice(unaligned, "unaligned", ("error", "drop"))
    for value, name in ((clusters, "clusters"), (score, "score")):
        if value is not None and not isinstance(value, str):
            raise InvalidTypeError(f"`{name}` must be a str or None; got {type(value).__name__} {show(value)}")
    tally = Tally()
    records: list[Record] = []
    mismatches = 0
    for path in _find_files(paths):
        tally.read(path)
        frame = _read_parquet(path)
        tally.records += len(frame)
        task, model = _task(path), _model(path)
        ids: dict[str, int] = {}
        for number, row in enumerate(frame.itertuples(index=False), start=1):
            record, wrong = _record(row._asdict(), task, model, f"{path}:row {number}", normalization, score,
                                    clusters, ids, tally)
            if record is not None:
                records.append(record)
                mismatches += wrong
    if mismatches:
        name = "acc_norm" if normalization == "length" else "acc"
        tally.note(f"trials whose correctness differs from the logged `{name}` (kept)", mismatches)
    return assemble(records, tally, source="lighteval", unaligned=unaligned, clusters=clusters,
                    options_field="model_response.logprobs", truth_field="doc.gold_index",
                    extra={"normalization": normalization, "metric_mismatches": mismatches, "score": score})


def _find_files(paths: Any) -> list[Path]:
    files = log_paths(paths, ("details_*.parquet",))
    items = [paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths
    return [f for f in files if f in {Path(p) for p in items} or _DETAILS.match(f.name)]


def _read_parquet(path: Path):
    import pandas as pd

    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError("reading lighteval details (Parquet) needs pyarrow: pip install \"trialwise[lighteval]\"")
    if path.stat().st_size == 0:
        raise InvalidValueError(f"{path}: the file is empty (no lighteval details); the run that wrote it may have "
                                f"failed: run it again, or leave the file out")
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow's errors (ArrowInvalid, OSError) on a truncated or foreign file
        raise InvalidValueError(f"{path}: not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    missing = [c for c in _COLUMNS if c not in frame.columns]
    if missing:
        raise InvalidValueError(f"{path}: not lighteval details (0.10 or later): no column {missing} (columns: "
                                f"{list(frame.columns)[:10]})")
    return frame


def _task(path: Path) -> str:
    match = _DETAILS.match(path.name)
    name = path.name[:-len(".parquet")]
    date = path.parent.name
    if name.startswith("details_") and name.endswith(f"_{date}"):  # details_<task>_<date_id>.parquet in <date_id>/
        return name[len("details_"):-len(date) - 1]
    return match["task"] if match else name


def _model(path: Path) -> str:
    """The model: the folders between ``details`` and the date folder (``details/<org>/<model>/<date>/``)."""
    parts = path.parent.parts
    if "details" in parts[:-1]:
        start = len(parts) - 1 - parts[::-1].index("details")
        inner = parts[start + 1:-1]
        if inner:
            return "/".join(inner)
    return path.parent.parent.name or path.parent.name


def _plain(value: Any) -> Any:
    """A Parquet cell as plain Python (numpy arrays → lists, recursively)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _record(row: dict[str, Any], task: str, model: str, where: str, normalization: str, score_field: str | None,
            clusters: str | None, ids: dict[str, int], tally: Tally) -> tuple[Record | None, int]:
    doc, response, metric = (_plain(row[c]) or {} for c in _COLUMNS)
    choices = [str(c) for c in doc.get("choices") or []]
    gold = doc.get("gold_index")
    golds = gold if isinstance(gold, list) else [gold]
    logprobs = response.get("logprobs") or []
    k = len(choices)
    score = None if score_field is None else _score(metric, score_field, where)
    multiple_choice = k >= 2 and len(logprobs) in (k, 2 * k)
    if not multiple_choice and score is None:
        tally.skip(_GENERATION, where=where)
        return None, 0
    image = _image(doc, task, ids, where, model)
    cluster = _cluster(doc, clusters, where)
    if not multiple_choice:
        texts = response.get("text") or [""]
        truth = choices[golds[0]] if len(golds) == 1 and isinstance(golds[0], int) and 0 <= golds[0] < k else \
            json.dumps(doc.get("choices"), ensure_ascii=False)
        return Record(task, task, model, image, truth, str(texts[0]), 0, None, cluster, where, score), 0
    if len(golds) != 1 or not isinstance(golds[0], int) or not 0 <= golds[0] < k:
        tally.skip("records with several correct options or a gold index out of range", where=where)
        return None, 0
    lls = [finite_float(v) for v in logprobs[:k]]
    if any(not v <= 0 for v in lls) or all(v == -math.inf for v in lls):
        raise InvalidValueError(f"{where}: field `model_response.logprobs` must hold log-likelihoods (finite numbers "
                                f"<= 0); got {show(logprobs)}")
    scores = [v / max(len(c), 1) for v, c in zip(lls, choices)] if normalization == "length" else lls
    chosen = max(range(k), key=scores.__getitem__)  # the first maximum, as np.argmax
    logged = metric.get("acc_norm" if normalization == "length" else "acc")
    wrong = 0
    if isinstance(logged, (int, float)) and not isinstance(logged, bool) and math.isfinite(logged):
        wrong = int(bool(logged) != (chosen == golds[0]))
    return Record(task, task, model, image, str(golds[0]), str(chosen), k, softmax(scores), cluster, where,
                  score), wrong


def _image(doc: dict[str, Any], task: str, ids: dict[str, int], where: str, model: str) -> str:
    doc_id = doc.get("id")
    if isinstance(doc_id, str) and doc_id:
        image = f"{task}/{doc_id}"
        if image in ids:
            raise InvalidValueError(f"{where}: duplicate document: doc.id {doc_id!r} of task {task!r} was already "
                                    f"logged for model {model!r} at row {ids[image]}")
    else:  # a task that sets no id: the document's text identifies it (the same text twice: told apart by order)
        text = json.dumps([doc.get("query"), doc.get("choices")], ensure_ascii=False, default=str)
        image = f"{task}/{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}"
        seen = sum(1 for key in ids if key == image or key.startswith(f"{image}-"))
        image = image if not seen else f"{image}-{seen + 1}"
    ids[image] = int(where.rsplit(" ", 1)[-1])
    return image


def _score(metric: dict[str, Any], field: str, where: str) -> float:
    if field not in metric:
        raise InvalidValueError(f"{where}: `score`={field!r} is not a metric of the document (metrics: "
                                f"{sorted(metric)})")
    return unit_score(metric[field], where, f"metric {field!r}")


def _cluster(doc: dict[str, Any], clusters: str | None, where: str) -> str | None:
    return cluster_label(doc.get("specific") or {}, clusters, where, "the document's `specific`")

