"""Reading a table of trials from a file: the format, separator, encoding, compression and header, with one-line errors that say the fix.

read_table reads CSV, TSV, Excel-exported and compressed files (``.gz``, ``.bz2``, ``.xz``); it detects the
separator from the header line (and says when a decimal comma was meant), refuses undecodable or
truncated files with the line where reading stopped, and leaves the columns' meaning to the
callers (:func:`trialwise.read_trials`, the command line).
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import itertools
import lzma
import os
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show
from trialwise.io.headers import drop_empty_rows, match_columns

__all__ = ["read_table"]


def check_path(value: Any, name: str, *, frame_ok: bool = False) -> Path:
    """``value`` as a Path, or a ``TypeError`` naming ``name`` (``frame_ok``: a DataFrame is also accepted)."""
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    kind = "a pandas DataFrame or the path of a CSV/Parquet file" if frame_ok else "a file path (str or pathlib.Path)"
    hint = ""
    if isinstance(value, (list, tuple)):
        hint = ("; to read several files, read each and concatenate: "
                "pd.concat([tw.read_trials(p) for p in paths], ignore_index=True)")
    raise InvalidTypeError(f"`{name}` must be {kind}; got {type(value).__name__} {show(value)}{hint}")


def files_under(folder: Path, patterns: Sequence[str]) -> list[Path]:
    """The regular files below ``folder`` whose names match one of ``patterns`` (``fnmatch``), sorted,
    following symbolic links to folders (``Path.rglob`` does not before Python 3.13: a suite whose run
    folders are links to where the runs were written would look empty); a folder reached twice (a link
    back up the tree) is searched once."""
    import fnmatch

    found, seen = set(), set()
    for top, dirs, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs.sort()
        for name in names:
            if any(fnmatch.fnmatch(name, pattern) for pattern in patterns) and os.path.isfile(os.path.join(top, name)):
                found.add(Path(top) / name)
    return sorted(found)


def check_file(p: Path) -> None:
    """An ``InvalidValueError`` naming ``p`` unless it is a regular file: missing, a folder, or something else
    (``/dev/null``, a pipe) each said as such."""
    if p.is_file():
        return
    if p.is_dir():
        raise InvalidValueError(f"{p}: is a folder, not a file")
    if p.exists():
        raise InvalidValueError(f"{p}: is not a regular file (a device, pipe or socket); save the table to a file "
                                f"and give its path")
    raise InvalidValueError(f"{p}: no such file")


_OPENERS: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _separator(raw: bytes) -> str:
    """The field separator of a CSV file: ``,``, or ``;`` / tab when the header has no comma but one of those
    (files saved by Excel in locales with a decimal comma, and tab-separated files)."""
    header = raw.lstrip(b"\xef\xbb\xbf\r\n").split(b"\n", 1)[0]
    if b"," in header:
        return ","
    counts = {";": header.count(b";"), "\t": header.count(b"\t")}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else ","


def decimal_comma_hint(value: Any) -> str:
    """A note for a message about ``value`` that is not a number, when it is one written with a decimal comma."""
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+,\d+\s*", value):
        return (f" ({value.strip()!r} looks like a number written with a decimal comma: save the file with decimal "
                f"points, e.g. in the spreadsheet's CSV export settings)")
    return ""


def _check_fields(p: Path, raw: bytes, sep: str = ",") -> None:
    """A ``ValueError`` naming the line when a row has more or fewer fields than the header.

    pandas fills a short row with empty values and, when every row has one field too many
    (a separator at the end of each line), silently makes the first column the index and
    shifts the others; both change the data without a word. ``raw``: the file's bytes;
    ``sep``: the field separator.
    """
    if b'"' in raw:  # quoted fields may hold separators and line breaks: let the csv module parse them
        reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=sep)
        rows = [(reader.line_num, len(row)) for row in reader if row]
    else:
        lines = raw.split(b"\n")
        fields = np.fromiter(map(bytes.count, lines, itertools.repeat(sep.encode())), np.int64, len(lines)) + 1
        filled = np.fromiter(map(len, map(bytes.strip, lines)), np.int64, len(lines)) > 0
        numbers = np.flatnonzero(filled)
        rows = list(zip((numbers + 1).tolist(), fields[numbers].tolist())) if numbers.size else []
        if rows and np.all(fields[numbers] == rows[0][1]):
            return
    if not rows:
        return
    n = rows[0][1]
    for line, k in rows[1:]:
        if k != n:
            raise InvalidValueError(
                f"{p}: not a readable table (line {line} has {k} field(s) but the header has {n}): a separator is "
                f"missing or extra on that line; fix the line and read the file again"
            )


def _separator_lines(raw: bytes, sep: str) -> tuple[bytes, list[int]]:
    """``raw`` with its lines of separators only made blank, and their line numbers.

    Such a line (``,,,,``, as a spreadsheet exports an empty row, even with fewer or more
    separators than the header) is an empty row, not a trial: pandas skips the blank line
    left in its place. In a file with quoted fields only the lines the csv module reads as
    a row of empty fields are blanked (a line of commas inside a quoted field stays).
    """
    s = re.escape(sep.encode())
    spans = [m.span() for m in re.finditer(rb'(?m)^[ \t"]*' + s + rb'[' + s + rb' \t\r"]*$', raw)]
    if not spans:
        return raw, []
    numbers, line, pos = [], 1, 0
    for start, _ in spans:
        line += raw.count(b"\n", pos, start)
        pos = start
        numbers.append(line)
    header = len(raw) - len(raw.lstrip(b"\xef\xbb\xbf\r\n \t"))
    first = raw.count(b"\n", 0, header) + 1  # the header's line is never an empty row
    keep = [k for k, n in enumerate(numbers) if n != first]
    if b'"' in raw:
        reader = csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline=""), delimiter=sep)
        rows = {reader.line_num for row in reader if row and not any(f.strip() for f in row)}
        keep = [k for k in keep if numbers[k] in rows]
    if not keep:
        return raw, []
    pieces, pos = [], 0
    for k in keep:
        pieces.append(raw[pos:spans[k][0]])
        pos = spans[k][1]
    pieces.append(raw[pos:])
    return b"".join(pieces), [numbers[k] for k in keep]


def _data_row_index(raw: bytes, sep: str, skipped: list[int]) -> list[int] | None:
    """The index of the rows pandas reads from ``raw`` once the lines ``skipped`` (separators only) are blanked:
    each row's position among the file's data rows, the skipped ones included (0 = the first row after the
    header), so that later errors name the row of the file (:func:`trialwise.io.headers.row_numbers`). Lines of
    spaces only are not rows (pandas skips them). ``None`` when the rows cannot be told apart by line."""
    text = raw.decode("utf-8-sig", errors="replace")
    gone = set(skipped)
    starts: list[int] = []
    if '"' in text:
        reader, end = csv.reader(io.StringIO(text, newline=""), delimiter=sep), 0
        for row in reader:
            if row and (len(row) > 1 or row[0].strip()):
                starts.append(end + 1)
            end = reader.line_num
    else:
        # a skipped line is a row even when it holds only tabs or spaces (a tab-separated file's `\t\t\t`)
        starts = [k + 1 for k, line in enumerate(text.split("\n")) if line.strip() or k + 1 in gone]
    starts = starts[1:]  # the header
    if not gone <= set(starts):
        return None
    return [k for k, line in enumerate(starts) if line not in gone]


def _read_bytes(p: Path) -> bytes:
    """The file's content, decompressed by its suffix (.gz, .bz2, .xz) as pandas would."""
    with _OPENERS.get(p.suffix.lower(), open)(p, "rb") as fh:
        return fh.read()


def read_table(path: str | Path, *, columns: Sequence[str | None] = ()):
    """Read a CSV (optionally gzip-compressed) or Parquet file into a DataFrame of text columns.

    Every CSV column is read as text (``"40"`` stays ``"40"``, ``"0.10"`` stays
    ``"0.10"``); an empty field is missing. Fields are separated by commas, or by
    semicolons or tabs when the header line has no comma but those (as Excel saves a CSV
    file where the decimal separator is a comma, and tab-separated files); numbers written
    with a decimal comma are not read as numbers, and an error about one says so.

    Header names lose the spaces around them (``subject, image`` as R's ``write.csv(...,
    sep=", ")`` writes them). A row whose every field is empty — the line of separators
    only (``,,,,``) a spreadsheet adds at the end — is not a trial: it is skipped with one
    warning naming the lines. Values are kept as they are (:mod:`trialwise.io.headers`).

    Parameters
    ----------
    path : str or Path
        A ``.csv`` file (``.csv.gz``, ``.bz2``, ``.xz`` decompressed by suffix) or a
        ``.parquet`` file.
    columns : sequence of str, optional
        Names the caller will look for: when no header has one of them exactly, a header
        that differs from it only in letter case (``Subject``, ``IMAGE``) is renamed to it
        when it is the only such header; two such headers (``Subject`` and ``SUBJECT``)
        are an error naming both. A header of the exact name always wins.

    Returns
    -------
    pandas.DataFrame
        The table; CSV columns as text. Its index numbers the data rows of the file
        (0 = the row after the header), also when empty rows were skipped, so that an
        error about a row names it as the file does
        (:func:`trialwise.io.headers.row_numbers`).

    Raises
    ------
    TypeError
        ``path`` is not a str or path.
    ValueError
        The file is missing, empty, malformed, ragged (a line with more or fewer fields
        than the header) or a truncated compressed file, or two headers are the same name
        but for spaces or (among ``columns``, with no exact match) letter case; the message
        names the file (and the line, or both headers).
    ImportError
        A Parquet file and no Parquet engine (``pip install pyarrow``).

    Warns
    -----
    TrialwiseWarning
        Rows with every field empty were skipped (the message names the file and lines).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "trials.csv"
    >>> _ = path.write_text("subject,image,condition,correct\\nann,im1,40,1\\nann,im2,0.10,0\\n")
    >>> read_table(path)["condition"].tolist()
    ['40', '0.10']
    """
    p = check_path(path, "path")
    check_file(p)
    if isinstance(columns, str) or not all(c is None or isinstance(c, str) for c in columns):
        raise InvalidTypeError(f"`columns` must be a list of column names; got {show(columns)}")
    frame, skipped = _read_frame(p)
    return drop_empty_rows(match_columns(frame, columns, str(p)), str(p), lines=skipped)


def _read_frame(p: Path) -> tuple[Any, list[int]]:
    """The table of file ``p`` as pandas reads it (CSV as text) and the lines of separators only it left out;
    an ``InvalidValueError`` naming the file when it cannot be read."""
    import pandas as pd

    if p.suffix.lower() == ".parquet":
        try:
            return pd.read_parquet(p), []
        except ImportError:
            raise ImportError(f"{p}: reading a Parquet file needs pyarrow, which is not installed: "
                              f"pip install pyarrow (or save the table as CSV)") from None
        except (ValueError, OSError) as exc:
            raise InvalidValueError(f"{p}: not a readable Parquet file ({_first_line(exc)})") from None
    try:
        if p.suffix.lower() in (".zip", ".zst", ".tar"):
            return pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""]), []
        raw = _read_bytes(p)
        _check_text(p, raw)
        sep = _separator(raw)
        cleaned, skipped = _separator_lines(raw, sep)
        _check_fields(p, cleaned, sep)
        frame = pd.read_csv(io.BytesIO(cleaned), dtype=str, keep_default_na=False, na_values=[""], sep=sep)
        if skipped:  # the rows after a skipped line keep their number in the file
            index = _data_row_index(raw, sep, skipped)
            if index is not None and len(index) == len(frame):
                frame.index = pd.Index(index, dtype="int64")
        return frame, skipped
    except pd.errors.EmptyDataError:
        raise InvalidValueError(f"{p}: the file is empty") from None
    except EOFError:
        raise InvalidValueError(f"{p}: the compressed file is truncated (it ends before its end-of-stream marker); "
                         f"copy or download it again") from None
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error, ValueError, OSError, zlib.error,
            lzma.LZMAError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith(f"{p}: "):
            raise
        if isinstance(exc, UnicodeDecodeError):  # e.g. a Latin-1 file saved by a spreadsheet
            raise InvalidValueError(f"{p}: not a readable table: not UTF-8 text ({_undecodable(p)}); save it as "
                                    f"UTF-8 (CSV UTF-8 in a spreadsheet's Save As)") from None
        raise InvalidValueError(f"{p}: not a readable table ({_first_line(exc)})") from None


def _check_text(p: Path, raw: bytes) -> None:
    """An error naming the file when its bytes are a spreadsheet or UTF-16 text rather than a CSV table."""
    if raw.startswith(b"PK\x03\x04"):
        raise InvalidValueError(f"{p}: is a zip archive (an Excel .xlsx workbook?), not CSV text; save the sheet as "
                                f"CSV UTF-8 and read that")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InvalidValueError(f"{p}: is UTF-16 text, not UTF-8; save it as UTF-8 (CSV UTF-8 in a spreadsheet's "
                                f"Save As)")


def _undecodable(p: Path) -> str:
    """Where a file stops being UTF-8: the byte and its line."""
    try:
        raw = _read_bytes(p)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return "an undecodable byte"
    try:
        raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        return f"byte 0x{raw[exc.start]:02x} on line {line}"
    return "an undecodable byte"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
