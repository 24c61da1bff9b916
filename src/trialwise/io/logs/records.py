"""The trial table every evaluation-log reader returns, and the checks all of them share.

A reader (:mod:`trialwise.io.logs.lm_eval`, :mod:`trialwise.io.logs.helm`) turns each logged
answer into one :class:`Record`; :func:`assemble` checks the records of all files together
(duplicates, option counts, alignment of items across models) and builds the table with the
columns :data:`LOG_COLUMNS`. What a reader could not use is counted, never dropped in silence:
the counts go into ``trials.attrs["log"]`` and into one :class:`~trialwise.TrialwiseWarning`.
"""

from __future__ import annotations

import collections
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show
from trialwise._core.warnings import TrialwiseWarning, warn
from trialwise.io.tables import files_under
from trialwise.io.trials import OPTION_COLUMNS, SCORE_COLUMN, SCORE_SOURCE, TRIAL_COLUMNS

__all__ = ["LOG_COLUMNS", "REPLICATE_COLUMN", "cluster_label", "unit_score", "Record", "softmax", "assemble", "log_paths", "Tally", "finite_float"]

#: Columns of a table read from evaluation logs: the trial columns, then the options.
LOG_COLUMNS = (*TRIAL_COLUMNS, *OPTION_COLUMNS)

#: The column that numbers the runs of a model on an item (from 1) when a log holds several (epochs,
#: repeated samples); a table of single runs has no such column.
REPLICATE_COLUMN = "replicate"



@dataclass(frozen=True)
class Record:
    """One model's answer to one item, as a reader found it (``where``: ``file:line`` for messages)."""

    experiment: str
    condition: str
    subject: str
    image: str
    truth: str
    response: str
    n_options: int
    probabilities: tuple[float, ...] | None
    cluster: str | None
    where: str
    score: float | None = None  # the logged per-item value of the chosen metric (``read_lm_eval(score=...)``)
    #: which of several logged runs of this model on this item (an Inspect epoch, a repeated sample), counted
    #: from 1; ``None`` for a log of one run. A reader sets it for every record of a file or for none.
    replicate: int | None = None


class Tally:
    """Counts of what a reader read, skipped or could not use, by reason (for ``attrs`` and the warning)."""

    def __init__(self) -> None:
        self.files = 0
        self.records = 0
        self.skipped: collections.Counter[str] = collections.Counter()
        self.noted: collections.Counter[str] = collections.Counter()
        self.first: dict[str, str] = {}  # reason → where (``file:line``) the first record skipped for it is
        self.paths: list[str] = []  # the files read, named when none of them holds a usable record
        #: metric → whether every generation record skipped logged it as a per-document score in [0, 1]
        #: (``False``: somewhere a corpus-level value such as ``[gold, [prediction]]``), for the hint of ``score=``
        self.generation_metrics: dict[str, bool] = {}

    def read(self, path: Any) -> None:
        """Count one file read."""
        self.files += 1
        self.paths.append(str(path))

    def skip(self, reason: str, count: int = 1, where: str | None = None) -> None:
        """Count records not used (``where``: the first one's ``file:line``, named when nothing is usable)."""
        self.skipped[reason] += count
        if where is not None:
            self.first.setdefault(reason, where)

    def note(self, reason: str, count: int = 1) -> None:
        """Count trials kept but worth a word (e.g. a response that maps to no option)."""
        self.noted[reason] += count


def softmax(scores: ArrayLike) -> tuple[float, ...]:
    """``exp(s_o) / Σ exp(s)`` of one item's option scores, computed stably (max subtracted)."""
    s = [float(v) for v in np.asarray(scores, dtype=float).ravel()] if not isinstance(scores, list) else scores
    top = max(s)
    e = [math.exp(v - top) for v in s]
    total = math.fsum(e)
    return tuple(v / total for v in e)


def log_paths(paths: Any, patterns: Iterable[str], name: str = "paths") -> list[Path]:
    """The files named by ``paths`` (a path or a list of paths; folders searched recursively for ``patterns``)."""
    items = [paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidTypeError(f"`{name}` must be a file or folder path or a non-empty list of them; "
                               f"got {type(paths).__name__} {show(paths)}")
    found: list[Path] = []
    patterns = tuple(patterns)
    for item in items:
        if not isinstance(item, (str, Path)) and not hasattr(item, "__fspath__"):
            raise InvalidTypeError(f"`{name}` must hold file or folder paths; got {type(item).__name__} {show(item)}")
        p = Path(item)
        if p.is_dir():
            files = files_under(p, patterns)
            if not files:
                raise InvalidValueError(f"{p}: no evaluation log in this folder (looked for {', '.join(patterns)})")
            found.extend(files)
        elif p.is_file():
            found.append(p)
        elif p.exists():
            raise InvalidValueError(f"{p}: is not a regular file (a device, pipe or socket); give the path of a log "
                                    f"file or of a folder of them")
        else:
            raise InvalidValueError(f"{p}: no such file or folder")
    return list(dict.fromkeys(found))


def assemble(records: list[Record], tally: Tally, *, source: str, unaligned: str, clusters: str | None,
             options_field: str, truth_field: str, extra: dict[str, Any] | None = None):
    """The checked trial table of ``records`` (columns :data:`LOG_COLUMNS`, plus ``score`` when the
    records carry one and ``cluster``).

    Raises an ``InvalidValueError`` naming the file and line for a document logged twice for
    one model, an item whose option count or correct option differs between models, and
    (``unaligned="error"``) an item some models of its condition lack; ``unaligned="drop"``
    drops those items, and the conditions that some model did not log at all, and counts them. ``options_field``, ``truth_field``: the log's fields
    that hold the options and the correct option, named in the messages.
    """
    import pandas as pd

    if not records:
        reasons = "; ".join(f"{n} {r}" for r, n in tally.skipped.items()) or "no records"
        firsts = "; ".join(f"{r.split(' (')[0]}: first at {w}" for r, w in tally.first.items())
        named = (": " + ", ".join(tally.paths[:3]) + (", …" if len(tally.paths) > 3 else "")) if tally.paths else ""
        raise InvalidValueError(f"no usable multiple-choice record in the {tally.files} file(s) read ({reasons})"
                                + (f" — {firsts}" if firsts else f"{named}"))
    seen: dict[tuple[str, str, str], Record] = {}
    runs: dict[tuple[str, str, str, int | None], Record] = {}
    first: dict[tuple[str, str], Record] = {}
    for r in records:
        key = (r.condition, r.subject, r.image)
        run = (*key, r.replicate)
        if run in runs:
            again = "" if r.replicate is None else f" in replicate {r.replicate}"
            raise InvalidValueError(f"{r.where}: duplicate document: item {r.image!r} of {r.condition!r} was already "
                                    f"logged for model {r.subject!r}{again} at {runs[run].where}; read one log per "
                                    f"model and task")
        if key in seen and (seen[key].replicate is None) != (r.replicate is None):
            raise InvalidValueError(f"{r.where}: item {r.image!r} of {r.condition!r} is logged for model "
                                    f"{r.subject!r} both as one run ({(seen[key] if seen[key].replicate is None else r).where}) "
                                    f"and as a replicate of repeated runs; read one log per model and task")
        runs[run] = r
        seen.setdefault(key, r)
        other = first.setdefault((r.condition, r.image), r)
        if other.n_options != r.n_options:
            raise InvalidValueError(f"{r.where}: ragged option counts (field `{options_field}`): item {r.image!r} of "
                                    f"{r.condition!r} has {r.n_options} options for {r.subject!r} but "
                                    f"{other.n_options} for {other.subject!r} ({other.where}); the logs are of "
                                    f"different task versions")
        if other.truth != r.truth:
            raise InvalidValueError(f"{r.where}: the correct option (field `{truth_field}`) of item {r.image!r} of "
                                    f"{r.condition!r} is "
                                    f"{r.truth!r} for {r.subject!r} but {other.truth!r} for {other.subject!r} "
                                    f"({other.where}); the logs are of different task versions")
    models = collections.defaultdict(set)
    items = collections.defaultdict(set)
    for condition, subject, image in seen:
        models[condition].add(subject)
        items[(condition, image)].add(subject)
    lacking = [(c, i) for (c, i), s in items.items() if len(s) < len(models[c])]
    if lacking:
        if unaligned == "error":
            c, i = lacking[0]
            missing = sorted(models[c] - items[(c, i)])
            where = first[(c, i)].where
            raise InvalidValueError(f"{where}: unaligned items: {len(lacking)} item(s) are not logged for every model "
                                    f"of their task, e.g. item {i!r} of {c!r} is missing for {missing}; pass "
                                    f"unaligned='drop' to keep only the items every model answered (counted in "
                                    f"trials.attrs['log'])")
        drop = set(lacking)
        kept = [r for r in records if (r.condition, r.image) not in drop]
        tally.skip("unaligned records (items not logged for every model of their task)", len(records) - len(kept))
        records = kept
    everyone = set().union(*models.values()) if models else set()
    partial = {c for c, m in models.items() if m != everyone}
    if partial and unaligned == "drop":  # a task some model did not log at all: its items lack that model too
        kept = [r for r in records if r.condition not in partial]
        tally.skip("records of tasks that not every model logged", len(records) - len(kept))
        records = kept
    if unaligned == "drop" and (lacking or partial):
        left = len({(r.condition, r.image) for r in records})
        if not left:
            raise InvalidValueError(
                f"unaligned='drop' left no question: no item of the {len(items)} logged was answered by every model "
                f"of its task ({len(everyone)} models); compare the models that ran the same tasks")
        if left < DROP_KEEPS_FEW * len(items):
            tally.note(f"of the {len(items)} questions left after dropping the unaligned ones: the models share few "
                       f"questions, so every statistic rests on them (compare the models that ran the same tasks)",
                       left)
    frame = pd.DataFrame({
        "experiment": [r.experiment for r in records],
        "condition": [r.condition for r in records],
        "subject": [r.subject for r in records],
        "observer_type": "model",
        "image": [r.image for r in records],
        "truth": [r.truth for r in records],
        "response": [r.response for r in records],
        # a generation record (no options) is correct when its score is full credit
        "correct": [r.response == r.truth if r.n_options or r.score is None else r.score == 1.0 for r in records],
        "n_options": np.array([r.n_options for r in records], dtype=np.int64),
        "probabilities": [r.probabilities for r in records],
    })
    if any(r.score is not None for r in records):
        frame[SCORE_COLUMN] = np.array([r.score for r in records], dtype=float)
    if clusters is not None:
        frame["cluster"] = [r.cluster for r in records]
    if len(runs) > len(seen):  # some model logged an item more than once: each run is a replicate
        frame[REPLICATE_COLUMN] = np.array([1 if r.replicate is None else r.replicate for r in records], dtype=np.int64)
    order = ["experiment", "condition", "subject", "image"] + ([REPLICATE_COLUMN] if REPLICATE_COLUMN in frame else [])
    frame = frame.sort_values(order, kind="stable").reset_index(drop=True)
    info: dict[str, Any] = {"source": source, "files": tally.files, "records": tally.records, "trials": len(frame),
                            "skipped": dict(tally.skipped), "noted": dict(tally.noted)}
    info.update(extra or {})
    frame.attrs["log"] = info
    if SCORE_COLUMN in frame.columns:  # an accuracy leaderboard averages it (trialwise.io.trials.SCORE_SOURCE)
        frame.attrs[SCORE_SOURCE] = str(info.get("score") or SCORE_COLUMN)
    if tally.skipped or tally.noted:
        unused = "; ".join(f"{n} {reason}" for reason, n in tally.skipped.items())
        parts = [f"not used: {unused}"] if unused else []
        parts += [f"{n} {reason}" for reason, n in tally.noted.items()]
        warn(f"read {len(frame)} trials from {tally.files} {source} file(s); {'; '.join(parts)} "
             f"(counts in trials.attrs['log'])", TrialwiseWarning)
    return frame


#: ``unaligned="drop"`` keeping fewer than this share of the questions says so (in the reader's one warning).
DROP_KEEPS_FEW = 0.5


def finite_float(value: Any) -> float:
    """A log-likelihood as the harness wrote it (a number, or its text) as a float; NaN when unreadable."""
    if isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def cluster_label(fields: Any, clusters: str | None, where: str, owner: str, *, noun: str = "key",
                  nested: bool = False) -> str | None:
    """A record's ``cluster``: the value of ``fields[clusters]`` as text (None without ``clusters``), every reader's
    one rule. ``owner`` names the mapping in the error (``"the sample's `metadata`"``); ``nested``: dots in
    ``clusters`` reach into nested mappings (``"source.subject"``)."""
    if clusters is None:
        return None
    value: Any = fields
    for key in clusters.split(".") if nested else [clusters]:
        if not isinstance(value, dict) or key not in value:
            known = sorted(fields) if isinstance(fields, dict) else show(fields)
            raise InvalidValueError(f"{where}: `clusters`={clusters!r} is not a {noun} of {owner} "
                                    f"({noun}s: {known})")
        value = value[key]
    return str(value)


def unit_score(value: Any, where: str, what: str) -> float:
    """A logged per-document score (``score=``) as a float in [0, 1]; else an error naming ``what`` and ``where``
    (with a hint for a percentage, as SQuAD's ``f1`` and ``exact``)."""
    number = float(value) if isinstance(value, (int, float)) else math.nan  # True/False: 1/0, as the harnesses log
    if not 0.0 <= number <= 1.0:  # NaN, out of range, or not a number (a corpus metric's pair)
        hint = (" (a percentage, as SQuAD's `f1` and `exact`? rescale it to [0, 1] in a table and read that with "
                "tw.read_trials(..., score=...))" if 1.0 < number <= 100.0 else "")
        raise InvalidValueError(f"{where}: {what} (`score`) must be a per-document score in [0, 1]; "
                                f"got {show(value)}{hint}")
    return number
