"""The header and the blank rows of a table another program wrote, read the same way by every reader.

Tables from other labs differ in ways that do not change their content: header names with
spaces around them (R's ``write.csv`` with ``sep=", "``, a hand-edited file), in upper or
mixed case (``Subject``, ``IMAGE``), and a last line of separators only (``,,,,``, as
spreadsheets export a table). Every reader of a user's table — :func:`trialwise.io.read_table`,
:func:`trialwise.read_trials`, :func:`trialwise.io.paired_correctness`,
:func:`trialwise.io.read_model_vs_human` (and so :func:`trialwise.shape_bias` and the
leaderboards), the command line's ``ec``, ``compare``, ``leaderboard``, ``brainscore`` and
``shape-bias`` — goes through :func:`match_columns` and :func:`drop_empty_rows`, so the rules
are the same everywhere (user-facing text: ``docs/index.md``, "Tables written by other
programs"):

1. Header names lose surrounding whitespace. Two names that become equal are an error
   naming both.
2. A name a reader looks for (its default, a documented alias such as ``category`` for
   ``truth``, or the name passed to it) is the header of that exact name when there is one
   (``subject`` next to ``Subject``: ``subject``); else the one header that differs from it
   only in letter case or in the spaces around it (``truth="truth "`` finds the header
   ``truth ``, stripped by rule 1, and ``truth``). When no header has the exact name and two or more differ from it
   only in case (``Subject`` and ``SUBJECT`` for ``subject``), that is an error naming them. Only header names are matched:
   values are never changed (``Dog`` and ``dog`` are two labels, :mod:`trialwise.io.labels`).
3. A row whose every field is empty (or only spaces) is not a trial: it is skipped, and one
   :class:`~trialwise.TrialwiseWarning` names the table and the lines (or rows). A row with
   *some* empty fields is left to the reader, which names the empty field.
4. Rows keep their numbers: the rows left keep their index, so a reader's later error names the
   row of the table as given (:func:`row_numbers`: data row 5 of a file stays row 5 — line 6
   when no line is blank and no value spans lines — whatever empty rows before it were
   skipped).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise._core.warnings import TrialwiseWarning, warn

__all__ = ["match_columns", "drop_empty_rows", "strip_header", "row_numbers"]

#: At most this many line numbers are listed in the warning about skipped empty rows.
SHOWN_LINES = 10


def strip_header(frame: Any, what: str) -> Any:
    """``frame`` with surrounding whitespace removed from its (text) header names.

    Returns ``frame`` itself when no name changes, else a shallow copy with the new names.
    Raises an ``InvalidValueError`` naming ``what`` and both names when two become equal
    (``"subject"`` and ``" subject"``).
    """
    names = list(frame.columns)
    stripped = [c.strip() if isinstance(c, str) else c for c in names]
    if len(set(names)) < len(names):  # a DataFrame can hold two columns of one name (a file read by pandas cannot)
        twice = next(c for c in names if names.count(c) > 1)
        raise InvalidValueError(f"{what}: {names.count(twice)} columns are named {twice!r}; rename or drop all but one")
    if stripped == names:
        return frame
    seen: dict[Any, Any] = {}
    for old, new in zip(names, stripped):
        if new in seen:
            raise InvalidValueError(f"{what}: the columns {seen[new]!r} and {old!r} have the same name once the "
                                    f"spaces around it are removed; rename or drop one")
        seen[new] = old
    out = frame.copy(deep=False)
    out.columns = stripped
    return out


def match_columns(frame: Any, names: Iterable[str | None], what: str) -> Any:
    """``frame`` with its header stripped and the headers that match one of ``names`` in another case renamed.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table as read from a file (or given by the user).
    names : iterable of str or None
        The column names the caller looks for: its defaults, the documented aliases and the
        names it was given (``None`` entries are ignored).
    what : str
        How to call the table in error messages (its file name).

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when nothing changes, else a shallow copy (the caller's table is
        never modified) in which each of ``names`` that is not a header but matches exactly
        one header case-insensitively (``Subject`` for ``subject``) names that column. A
        header of exactly the name looked for is that column, whatever other cases of it
        the table has.

    Raises
    ------
    InvalidValueError
        Two headers are equal once stripped, or no header is one of ``names`` exactly and
        two or more headers match it ignoring letter case; the message names them.

    Examples
    --------
    >>> import pandas as pd
    >>> raw = pd.DataFrame({" Subject": ["s1"], " IMAGE ": ["i1"], "Response": ["Dog"]})
    >>> match_columns(raw, ["subject", "image", "response"], "trials.csv").columns.tolist()
    ['subject', 'image', 'response']
    >>> match_columns(raw, ["subject"], "trials.csv")["Response"].tolist()   # values are not changed
    ['Dog']
    """
    out = strip_header(frame, what)
    columns = list(out.columns)
    folded: dict[str, list[Any]] = {}
    for c in columns:
        if isinstance(c, str):
            folded.setdefault(c.casefold(), []).append(c)
    renames: dict[Any, str] = {}
    for name in dict.fromkeys(n for n in names if isinstance(n, str)):
        if name in columns:  # the exact name wins over any other case of it
            continue
        found = folded.get(name.strip().casefold(), [])  # a name given with spaces around it (`truth="truth "`)
        if len(found) > 1:
            shown = " and ".join(repr(c) for c in found)
            raise InvalidValueError(f"{what}: the columns {shown} differ only in letter case, so which one is "
                                    f"{name!r} is ambiguous; rename or drop one")
        if found and found[0] not in renames:
            renames[found[0]] = name
    if not renames:
        return out
    if out is frame:
        out = frame.copy(deep=False)
    out.columns = [renames.get(c, c) for c in columns]
    return out


def _blank(column: Any) -> np.ndarray:
    """Whether each value of a column is empty: missing, or text of spaces only."""
    import pandas as pd

    missing = column.isna().to_numpy()
    if column.dtype == object:
        text = column.to_numpy(object)
        missing = missing | np.fromiter((isinstance(v, str) and not v.strip() for v in text), bool, len(text))
    elif pd.api.types.is_string_dtype(column.dtype):
        missing = missing | column.str.strip().str.len().eq(0).fillna(False).to_numpy(bool)
    return missing


def drop_empty_rows(frame: Any, what: str, *, lines: Sequence[int] = ()) -> Any:
    """``frame`` without its rows whose every field is empty, with one warning that names them.

    Parameters
    ----------
    frame : pandas.DataFrame
        A table as read from a file (or given by the user).
    what : str
        How to call the table in the warning (its file name).
    lines : sequence of int, optional
        Line numbers of empty rows the caller already left out while reading the file (lines
        of separators only, ``,,,,``); the warning names them with the rows of ``frame`` found
        empty here, which it names by :func:`row_numbers` (1 = the first data row).

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when no row is empty, else the other rows (index kept, so that a
        reader's later error names a row by its number in the table given: :func:`row_numbers`).

    Warns
    -----
    TrialwiseWarning
        Once, when rows were skipped: their number and lines (or rows).

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> raw = pd.DataFrame({"subject": ["s1", None], "image": ["i1", " "]})
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     kept = drop_empty_rows(raw, "trials.csv")
    >>> len(kept), str(w[0].message)
    (1, 'trials.csv: skipped 1 row with every field empty (data row 2): not a trial')
    """
    empty = np.zeros(len(frame), bool)
    if len(frame) and frame.shape[1]:
        empty[:] = True
        for k in range(frame.shape[1]):
            rows = np.flatnonzero(empty)
            if rows.size == 0:
                break
            empty[rows] = _blank(frame.iloc[rows, k])
    rows = row_numbers(frame)[empty].tolist() if empty.any() else []
    n = len(lines) + len(rows)
    if n == 0:
        return frame
    parts = [f"{kind}{'s' if len(numbers) > 1 else ''} " + ", ".join(map(str, numbers[:SHOWN_LINES]))
             + (", …" if len(numbers) > SHOWN_LINES else "")
             for kind, numbers in (("line", [int(x) for x in lines]), ("data row", rows)) if numbers]
    warn(f"{what}: skipped {n} row{'s' if n > 1 else ''} with every field empty ({'; '.join(parts)}): not a trial",
         TrialwiseWarning)
    return frame[~empty] if rows else frame


def row_numbers(frame: Any) -> np.ndarray:
    """The number of each row of ``frame`` in the table it was read from (1 = the first data row).

    A table read by :func:`trialwise.io.read_table` — or a part of one, such as one subject's
    rows or the rows left by :func:`drop_empty_rows` — keeps the index it was read with:
    row ``k`` of the file (line ``k + 1``) has index ``k - 1``, so its number is the index
    + 1. A DataFrame given by the user is numbered the same way when its index holds
    integers (a default index, or rows selected from one); with any other index (text,
    negative or repeated numbers, as ``pd.concat`` leaves them) the rows are numbered by
    position.

    Examples
    --------
    >>> import pandas as pd
    >>> raw = pd.DataFrame({"subject": ["s1", None, "s2"]})
    >>> row_numbers(raw[raw.subject.notna()]).tolist()
    [1, 3]
    >>> row_numbers(raw.set_index(pd.Index(["a", "b", "c"]))).tolist()
    [1, 2, 3]
    """
    import pandas as pd

    index = frame.index
    if pd.api.types.is_integer_dtype(index.dtype) and index.is_unique and (len(index) == 0 or index.min() >= 0):
        return np.asarray(index, dtype=np.int64) + 1
    return np.arange(1, len(index) + 1)
