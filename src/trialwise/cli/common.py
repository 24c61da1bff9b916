"""What every command shares: the command line's own error, its datasets, and safe file output.

Every input and output is checked before anything is computed (:func:`check_files`, which
the program calls with each command's files, ``FILES`` of :mod:`trialwise.cli.app`); outputs
are written whole or not at all (:func:`write_text`, :func:`save_figure`); files are read inside
:func:`reading`, which turns unreadable or truncated files into one-line errors.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from trialwise._core.errors import InputError


DATASETS = ("model-vs-human", "texture-vs-shape")


#: Figure formats the command line writes (by the file's extension; no extension = PNG).
FIGURE_FORMATS = ("png", "pdf", "svg")


EPILOG = """\
exit status: 0 done; 1 internal error (a bug; TRIALWISE_TRACEBACK=1 shows the traceback), or the report's
figures failed after the tables were saved; 2 bad input (one line naming the file, column or option);
130 interrupted."""


#: What the commands that read a table say about reading it (their --help; trialwise.io.headers has the rules).
TABLES = ("Tables: header names match the column names and options ignoring surrounding spaces and letter case "
          "('Subject' is 'subject'; a header of the exact name wins, else two that differ only in case are an error naming them); a row whose every "
          "field is empty (a last line ',,,,' of a spreadsheet export) is skipped with a warning; values are read "
          "exactly as written ('Dog' and 'dog' are two labels).")


class CLIError(InputError):
    """A user error of the command line (an option, a file, a column): printed as one line, exit code 2."""


class FigureFailure(Exception):
    """The results were saved but a figure of the report failed: one line, exit code 1."""


def _kind_of_file(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_input(path: str, flag: str, folder: bool) -> None:
    """``path`` (``flag``'s) can be read: it exists, and is a file (a pipe too: ``<(zcat x.gz)``) or, when
    ``folder``, a folder — not ``/dev/null`` or another device."""
    where = f"{path}" if flag.isupper() else f"{flag} {path}"  # PATH, CSV, LOGS: the file's name says it
    if path.strip() == "":
        raise CLIError(f"{flag}: the file name is empty")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise CLIError(f"{where}: no such file{' or folder' if folder else ''}") from None
    except OSError as exc:  # a path through a file, a symlink loop, permissions of a folder on the way
        raise CLIError(f"{where}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISDIR(mode):
        if not folder:
            raise CLIError(f"{where}: is a folder, not a file")
        if not os.access(path, os.R_OK | os.X_OK):
            raise CLIError(f"{where}: permission denied (the folder cannot be read)")
        return
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise CLIError(f"{where}: is {_kind_of_file(mode)}, not a file{' or folder' if folder else ''} to read")
    if not os.access(path, os.R_OK):
        raise CLIError(f"{where}: permission denied")


def _same_file(a: str, b: str) -> bool:
    """``a`` and ``b`` name one file: by the file itself when both exist (symlinks, hard links), else by the
    resolved path (``./x`` and ``x``, a symlinked folder)."""
    with contextlib.suppress(OSError):
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real != top and os.path.commonpath([real, top]) == top


def _is_device(path: str) -> bool:
    """A device such as /dev/null or /dev/full, which two outputs may share (nothing of either is kept)."""
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def _standard_files() -> list[tuple[str, os.stat_result]]:
    """The regular files standard output and error go to (``> out.txt``, ``2> log.txt``), if any."""
    found = []
    for fd, name in ((1, "standard output"), (2, "standard error")):
        with contextlib.suppress(OSError):
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode):
                found.append((name, st))
    return found


def _is_stream(path: str, st: os.stat_result) -> bool:
    try:
        mine = os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (st.st_dev, st.st_ino)


def check_files(inputs: list[tuple[Any, str, bool]], outputs: list[tuple[str | None, str, str]]) -> None:
    """Every file of a command, before it computes anything: each input (``(path or list of paths or None,
    flag, may be a folder)``) can be read (:func:`check_input`), each output (``(path or None, flag, kind)``,
    kind ``"html"``, ``"csv"`` or ``"figure"``) can be written (:func:`check_output`), and no output names a file
    the command reads, lies in a folder it reads, or names another output. Each is one :class:`CLIError`
    naming both files."""
    read: list[tuple[str, str, bool]] = []
    for given, flag, folder in inputs:
        for path in [given] if isinstance(given, str) else list(given or ()):
            check_input(path, flag, folder)
            read.append((path, flag, os.path.isdir(path)))
    written = [(path, flag) for path, flag, kind in outputs if path is not None]
    streams = _standard_files()
    for source, what, _ in read:
        for stream, st in streams:
            if _is_stream(source, st):
                where = source if what.isupper() else f"{what} {source}"
                how = ("(`>`), which the shell emptied before trialwise started; restore it and" if st.st_size == 0
                       else "(`>>`): trialwise would write into a file it reads;")
                raise CLIError(f"{where} is also the file {stream} goes to {how} send {stream} elsewhere")
    for path, flag in written:
        for stream, st in streams:
            if _is_stream(path, st):
                raise CLIError(f"{flag} {path} is also the file {stream} goes to (`>`); the two would write over "
                               f"each other: give {flag} another file name")
    for i, (path, flag) in enumerate(written):  # first: the user's data are at stake
        for source, what, is_folder in read:
            name = "" if what.isupper() else f" ({what})"
            if is_folder and _inside(path, source):
                raise CLIError(f"{flag} {path} is inside the folder {source}{name} that this command reads; "
                               f"write it elsewhere, or the next run reads it as data")
            if _same_file(path, source) and is_folder:
                raise CLIError(f"{flag} {path} is the input folder {source}{name}; give {flag} a file name outside it")
            if _same_file(path, source):
                alias = "" if os.path.abspath(path) == os.path.abspath(source) else " under another name (a link)"
                raise CLIError(f"{flag} {path} is the input file {source}{name}{alias}; trialwise does not write over "
                               f"a file it reads: give {flag} another file name")
        for other, other_flag in written[i + 1:]:
            if _same_file(path, other) and not (_is_device(path) and _is_device(other)):
                both = path if path == other else f"({path} and {other})"
                raise CLIError(f"{flag} and {other_flag} name the same file {both}; give each output its own file "
                               f"name")
    for path, flag, kind in outputs:
        try:
            check_output(path, flag, figure=kind == "figure")
        except OSError as exc:  # a name too long for the file system, a path through a file, ...
            raise CLIError(f"{flag} {path}: cannot be written ({exc.strerror or type(exc).__name__})") from None


def check_output(path: str | None, flag: str, *, figure: bool = False) -> None:
    """Fail early, before any computation, when ``path`` cannot be written."""
    if path is None:
        return
    p = Path(path)
    if path.strip() == "":
        raise CLIError(f"{flag}: the file name is empty")
    example = p / ("figure.png" if figure else "report.html" if flag == "--out" else "table.csv")
    if p.is_dir():
        raise CLIError(f"{flag} {path}: is a folder; give a file name, e.g. {example}")
    if path.endswith(("/", os.sep)):  # Path() drops the slash: 'out/' would be written as a file 'out'
        raise CLIError(f"{flag} {path}: names a folder (it ends with '/'), which does not exist; give a file name, "
                       f"e.g. {example}")
    if os.path.islink(p) and not p.exists():
        raise CLIError(f"{flag} {path}: is a broken symbolic link (to {os.readlink(p)}); remove it or give another "
                       f"file name")
    folder = p.absolute().parent
    if not folder.exists():
        raise CLIError(f"{flag} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise CLIError(f"{flag} {path}: {folder} is not a folder")
    if p.exists() and not os.access(p, os.W_OK):
        raise CLIError(f"{flag} {path}: permission denied (the file is read-only)")
    if not p.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{flag} {path}: permission denied (folder {folder} is not writable)")
    if figure:
        _figure_format(path, flag)
    elif flag == "--out" and p.suffix.lower() in (".pdf", ".png", ".svg", ".jpg", ".jpeg", ".csv", ".json", ".txt"):
        raise CLIError(f"{flag} {path}: the report is an HTML page, not a {p.suffix.lower()} file; give a file "
                       f"name ending in .html (e.g. {p.with_suffix('.html').name})")


def _figure_format(path: str, flag: str) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix == "":
        return "png"
    if suffix not in FIGURE_FORMATS:
        raise CLIError(f"{flag} {path}: unknown figure format '.{suffix}'; use .png, .pdf or .svg")
    return suffix


#: Files being written, not yet in place: the Ctrl-C handler (:mod:`trialwise.cli`) removes them before it exits.
PENDING: set[str] = set()


def _new_file_mode() -> int:
    """The permissions a new file gets (0o666 less the umask), as ``open`` would create it."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write_bytes(path: str, data: bytes, flag: str) -> None:
    """Write ``data`` to exactly ``path``, whole or not at all: into a temporary file beside it, then moved into
    place, so a failure (full disk) or Ctrl-C leaves no partial file and an earlier file of that name intact.
    A device or pipe (``/dev/null``) is written directly. A failure is one line."""
    target = Path(os.path.realpath(path))  # through a symlink: the file it names
    try:
        mode = os.stat(target).st_mode
    except OSError:
        mode = None
    try:
        if mode is not None and not stat.S_ISREG(mode):
            with open(path, "wb") as fh:
                fh.write(data)
            return
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        PENDING.add(tmp)
        try:
            os.close(fd)
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else _new_file_mode())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        finally:
            PENDING.discard(tmp)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise CLIError(f"{flag} {path}: cannot write ({reason})") from None


def write_text(path: str, text: str, flag: str) -> None:
    _write_bytes(path, text.encode("utf-8"), flag)


def write_csv(path: str, frame: Any, flag: str, what: str, *, seed: int | None = None) -> None:
    """Write a table as CSV to ``path`` and say so on stderr (``"<what> written to <path>"``); with ``seed`` (the
    run's, given or drawn), a last column ``seed`` holds it, so the file says how to repeat it."""
    if seed is not None:
        frame = frame.assign(seed=seed)
    write_text(path, frame.to_csv(index=False), flag)
    print(f"{what} written to {path}", file=sys.stderr)


def write_report(path: str, render: Any, say: Any, collect: Any, *, seed: int | None = None) -> tuple[str, ...]:
    """Draw an HTML report (``render()`` → an object with ``html`` and ``failures``), write it to
    ``path`` and say so; returns the figures that failed (:func:`raise_figure_failures`).
    ``say`` prints a progress line, ``collect`` gathers the warnings raised while drawing; with
    ``seed`` (the run's, given or drawn) the page ends with the option that repeats it."""
    use_agg()
    say("drawing the report …")
    with collect():
        rep = render()
    page = rep.html
    if seed is not None:
        end = page.rfind("</body>")
        end = len(page) if end < 0 else end
        page = (page[:end] + f"<p class='note'>Seed {seed}: the command run again with <code>--seed {seed}</code> "
                f"repeats this report exactly.</p>" + page[end:])
    write_text(path, page, "--out")
    print(f"report written to {path}", file=sys.stderr)
    return tuple(rep.failures)


def raise_figure_failures(failures: tuple[str, ...]) -> None:
    """A :class:`FigureFailure` (exit 1) when figures of a written report could not be drawn."""
    if failures:
        raise FigureFailure(f"{len(failures)} figure(s) of the report could not be drawn ({'; '.join(failures)}); "
                            f"the report was written with the tables — this is a bug, please report it")


def data_name(path: str | None) -> str | None:
    """The title of a protocol built from the trials in ``path``: the file's (or folder's) name."""
    return None if path is None else os.path.basename(os.path.normpath(path)) or path


def too_few_resamples(b: int, level: float, flag: str = "--resamples") -> str | None:
    """A warning when each end of a ``level`` interval would rest on fewer than 5 of ``b`` replicates."""
    tail = b * (1 - level) / 2
    if tail < 5:
        need = math.ceil(10 / (1 - level))
        return (f"{flag} {b} is too few for {level * 100:g}% intervals: each end rests on {tail:.2g} replicate(s); "
                f"the intervals, ranks and p-values are rough (use {need} or more; the default is 10000)")
    return None


def save_figure(fig: Any, path: str, flag: str) -> None:
    """Render ``fig`` in memory and write it to exactly ``path`` (matplotlib would add '.png' to a bare name)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=_figure_format(path, flag), dpi=150)
    finally:
        plt.close(fig)
    _write_bytes(path, buf.getvalue(), flag)
    print(f"figure written to {path}", file=sys.stderr)


def use_agg() -> None:
    """Draw without a display: figures go to files."""
    import matplotlib

    matplotlib.use("Agg")


@contextlib.contextmanager
def reading(path: Any) -> Iterator[None]:
    """Turn the ways a file can fail to read into one line naming it."""
    import zlib

    try:
        yield
    except EOFError:
        raise CLIError(f"{path}: the file ends early (a truncated compressed file?); download or write it again") from None
    except zlib.error as exc:
        raise CLIError(f"{path}: the compressed data are corrupt ({exc})") from None
    except UnicodeDecodeError as exc:
        raise CLIError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    except ImportError:
        if str(path).lower().endswith(".parquet"):
            raise CLIError(f"{path}: reading Parquet needs pyarrow or fastparquet: pip install pyarrow") from None
        raise
    except IsADirectoryError:
        raise CLIError(f"{path}: is a folder, not a file") from None
    except PermissionError:
        raise CLIError(f"{path}: permission denied") from None


#: The columns of a tidy trials table a command can be told the names of (``--subject-column`` …).
TRIAL_COLUMNS = ("subject", "image", "truth", "response", "condition", "experiment", "observer-type", "correct")
_COLUMN_HELP = {"correct": "0/1 (or true/false) correctness column of a tidy table, instead of truth and response "
                           "(default: 'correct' when the table has no truth or category column)"}


def add_column_options(parser: Any, columns: tuple[str, ...] = TRIAL_COLUMNS) -> None:
    """``--<column>-column NAME`` for each of ``columns`` (the names in a tidy table)."""
    for col in columns:
        parser.add_argument(f"--{col}-column", default=None,
                            help=_COLUMN_HELP.get(col, f"{col} column of a tidy table"))


def read_trials_argument(path: str | None, args: Any):
    """The trials a command's ``PATH`` names: the bundled model-vs-human data without one, a folder of
    model-vs-human raw-data CSVs, or a tidy CSV/Parquet table read with the ``--<column>-column`` options."""
    from trialwise.io.trials import read_trials
    from trialwise.io.model_vs_human import read_model_vs_human

    score = getattr(args, "score", None)
    named = (("score", score), ("clusters", getattr(args, "clusters", None)),
             ("correct-column", getattr(args, "correct_column", None)))
    column_flags = [f"--{flag} {value}" for flag, value in named if value is not None]
    if path is None:
        if column_flags:
            raise CLIError(f"{column_flags[0]}: names a column of a tidy trials table; give its PATH")
        from trialwise.datasets import model_vs_human

        return read_trials(model_vs_human())
    if not os.path.exists(path):
        raise CLIError(f"{path}: no such file or folder")
    with reading(path):
        if os.path.isdir(path):
            if column_flags:
                raise CLIError(f"{column_flags[0]}: names a column of a tidy trials table; {path} is a folder of "
                               f"model-vs-human raw data, which has none")
            return read_model_vs_human(path)
        return read_trials(
            path, subject=args.subject_column or "subject", image=args.image_column or "image",
            truth=args.truth_column, response=args.response_column or "response", condition=args.condition_column,
            experiment=args.experiment_column, observer_type=args.observer_type_column,
            score=getattr(args, "score", None), clusters=getattr(args, "clusters", None),
            correct=getattr(args, "correct_column", None),
        )


def read_table(path: str, columns: Any = ()):
    """The table of ``path`` (:func:`trialwise.io.read_table`): headers stripped, ``columns`` (the names the command
    looks for) matched in any letter case, empty rows skipped with a warning — read inside a ``Warnings.collect``."""
    from trialwise.io.tables import read_table

    with reading(path):
        return read_table(path, columns=[c for c in columns if isinstance(c, str)])


def clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value
