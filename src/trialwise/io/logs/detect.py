"""One entry point for evaluation logs: :func:`read_logs` recognises the format and calls its reader.

The formats and how a file is recognised (by its name, or by its first bytes where the name says
too little): lm-evaluation-harness ``samples_<task>_<time>.jsonl[.gz]`` (and the 0.4.0/0.4.1
``<model_args>_<task>.jsonl`` next to a ``results.json``), HELM ``scenario_state.json`` /
``display_predictions.json``, Inspect AI ``*.eval`` and ``*.json`` logs (starting
``{"version": <n>, "status": ...``), lighteval ``details_<task>_<time>.parquet``, and
every-eval-ever instance-level ``*.jsonl`` (a first record with ``schema_version``,
``evaluation_id`` and ``sample_id``). Other files in a folder are left alone; a file named
directly that is none of these is an error.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show

__all__ = ["read_logs", "detect_format", "FORMATS", "reader_options"]

#: The formats :func:`read_logs` reads: name → (what it is called in messages, the reader's module and function).
FORMATS: dict[str, tuple[str, str, str]] = {
    "lm-eval": ("lm-evaluation-harness", "trialwise.io.logs.lm_eval", "read_lm_eval"),
    "helm": ("HELM", "trialwise.io.logs.helm", "read_helm"),
    "inspect": ("Inspect AI", "trialwise.io.logs.inspect_ai", "read_inspect"),
    "lighteval": ("lighteval", "trialwise.io.logs.lighteval", "read_lighteval"),
    "every-eval-ever": ("every-eval-ever", "trialwise.io.logs.every_eval_ever", "read_every_eval_ever"),
}
#: What each format's files look like, for the messages.
_EXPECTED = ("lm-evaluation-harness samples_<task>_<time>.jsonl[.gz], HELM scenario_state.json or "
             "display_predictions.json, Inspect AI *.eval or *.json logs, lighteval details_<task>_<time>.parquet, "
             "every-eval-ever instance-level *.jsonl")
_LM_EVAL = re.compile(r"^samples_.+\.jsonl(\.gz)?$")
_LIGHTEVAL = re.compile(r"^details_.+\.parquet$")
_HELM = ("scenario_state.json", "display_predictions.json")


def read_logs(paths: Any, *, format: str | None = None, **options: Any):
    """Read evaluation logs of any supported harness into a trial table, recognising the format.

    Parameters
    ----------
    paths : str, path or list of them
        Log files or folders searched recursively (all of one format).
    format : {"lm-eval", "helm", "inspect", "lighteval", "every-eval-ever"}, optional
        The format; by default recognised from the files (module docstring of
        :mod:`trialwise.io.logs.detect`).
    **options
        Passed on to the format's reader (:func:`~trialwise.io.read_lm_eval`,
        :func:`~trialwise.io.read_helm`, :func:`~trialwise.io.read_inspect`,
        :func:`~trialwise.io.read_lighteval`, :func:`~trialwise.io.read_every_eval_ever`):
        ``clusters`` and ``unaligned`` for every format, the others as each reader documents.

    Returns
    -------
    pandas.DataFrame
        The reader's trial table; ``trials.attrs["log"]["format"]`` names the format read.

    Raises
    ------
    InvalidValueError
        When no log is found, a file named is no log of a known format, the paths hold logs of
        several formats (read them one format at a time), or an option is not one the format's
        reader takes (naming it and the options it takes); and the reader's own errors.

    Examples
    --------
    >>> from importlib import resources
    >>> import trialwise as tw
    >>> with resources.as_file(resources.files("trialwise.datasets") / "llm-demo") as folder:
    ...     trials = tw.read_logs(folder, normalization="length")
    >>> trials.attrs["log"]["format"], trials["subject"].nunique()
    ('lm-eval', 4)
    """
    if format is None:
        fmt = detect_format(paths)
    elif not isinstance(format, str):
        raise InvalidTypeError(f"`format` must be a str or None; got {type(format).__name__} {show(format)}")
    elif format not in FORMATS:
        raise InvalidValueError(f"`format` must be one of {list(FORMATS)} or None; got {format!r}")
    else:
        fmt = format
    reader = _reader(fmt)
    allowed = reader_options(fmt)
    for name in options:
        if name not in allowed:
            raise InvalidValueError(f"`{name}` is not an option of {FORMATS[fmt][0]} logs ({FORMATS[fmt][2]} takes: "
                                    f"{', '.join(allowed)})")
    trials = reader(paths, **options)
    trials.attrs.setdefault("log", {})["format"] = fmt
    return trials


def _reader(fmt: str) -> Callable[..., Any]:
    import importlib

    _, module, name = FORMATS[fmt]
    return getattr(importlib.import_module(module), name)


def reader_options(fmt: str) -> tuple[str, ...]:
    """The keyword options the reader of format ``fmt`` takes."""
    parameters = inspect.signature(_reader(fmt)).parameters.values()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def _kind(f: Path) -> str | None:
    """The format of one file, or None for a file of no known format."""
    from trialwise.io.logs.inspect_ai import is_inspect_json

    name = f.name
    if _LM_EVAL.match(name):
        return "lm-eval"
    if name in _HELM:
        return "helm"
    if f.suffix == ".eval" or (f.suffix == ".json" and is_inspect_json(f)):
        return "inspect"
    if _LIGHTEVAL.match(name):
        return "lighteval"
    if name.endswith(".jsonl") and is_every_eval_ever(f):
        return "every-eval-ever"
    if name.endswith(".jsonl") and (f.parent / "results.json").is_file():  # lm-eval 0.4.0/0.4.1
        return "lm-eval"
    return None


def is_every_eval_ever(path: Path) -> bool:
    """Whether the first line of a ``.jsonl`` file is an every-eval-ever instance-level record."""
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
        record = json.loads(first)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(record, dict) and {"schema_version", "evaluation_id", "sample_id"} <= set(record)


def detect_format(paths: Any) -> str:
    """The format of the logs under ``paths`` (a key of :data:`FORMATS`); an ``InvalidValueError`` naming what was
    found when there is no log, a file named is of no known format, or there are several formats."""
    from trialwise.io.tables import files_under  # follows links to run folders, as the readers do

    items = [paths] if isinstance(paths, (str, Path)) or hasattr(paths, "__fspath__") else paths
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidTypeError(f"`paths` must be a file or folder path or a non-empty list of them; "
                               f"got {type(paths).__name__} {show(paths)}")
    for item in items:
        if not isinstance(item, (str, Path)) and not hasattr(item, "__fspath__"):
            raise InvalidTypeError(f"`paths` must hold file or folder paths; got {type(item).__name__} {show(item)}")
        if not Path(item).exists():
            raise InvalidValueError(f"{item}: no such file or folder")
    found: dict[str, str] = {}
    for item in items:
        p = Path(item)
        if p.is_file():
            fmt = _kind(p)
            if fmt is None:
                raise InvalidValueError(f"{p}: not an evaluation log (expected {_EXPECTED}); choose the format "
                                        f"with `format`")
            found.setdefault(fmt, str(p))
            continue
        for f in files_under(p, ("*",)):
            fmt = _kind(f)
            if fmt is not None:
                found.setdefault(fmt, str(f))
    if len(found) > 1:
        ordered = sorted(found.items(), key=lambda kv: list(FORMATS).index(kv[0]))
        first = f"{ordered[0][1]} holds {FORMATS[ordered[0][0]][0]} logs"
        others = [f"{f} {FORMATS[k][0]} logs" for k, f in ordered[1:]]
        listed = first + "".join(f", {o}" for o in others[:-1]) + f" and {others[-1]}"
        raise InvalidValueError(f"{listed}; read one format at a time, or choose it with `format`")
    if not found:
        named = str(items[0]) if len(items) == 1 else ", ".join(map(str, items))
        raise InvalidValueError(f"{named}: no evaluation logs found ({_EXPECTED})")
    return next(iter(found))
