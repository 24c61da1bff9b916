"""Reading trial tables and pairing two observers' trials by item."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["read_table", "paired_correctness"]


def read_table(path: str | Path):
    """Read a CSV (optionally gzip-compressed) or Parquet file into a DataFrame of text columns.

    Raises
    ------
    ValueError
        The file is missing, empty or malformed; the message names the file.
    """
    import pandas as pd

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{p}: no such file")
    try:
        if p.suffix == ".parquet":
            return pd.read_parquet(p)
        return pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise ValueError(f"{p}: the file is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(f"{p}: not a readable table ({first})") from None


def _need(frame, column: str, what: str) -> None:
    if column not in frame.columns:
        raise ValueError(f"{what}: no column {column!r}; columns found: {', '.join(map(str, frame.columns))}")


def _correctness(frame, *, truth: str, response: str, correct: str | None, what: str) -> np.ndarray:
    if correct is not None:
        _need(frame, correct, what)
        raw = frame[correct].astype(str).str.strip().str.lower()
        mapping = {"1": True, "0": False, "true": True, "false": False, "1.0": True, "0.0": False}
        bad = ~raw.isin(list(mapping))
        if bad.any():
            raise ValueError(
                f"{what}: column {correct!r} must hold 0/1 or true/false; found {frame[correct][bad].iloc[0]!r}"
            )
        return raw.map(mapping).to_numpy(bool)
    _need(frame, truth, what)
    _need(frame, response, what)
    for col in (truth, response):
        if frame[col].isna().any():
            row = int(np.flatnonzero(frame[col].isna().to_numpy())[0])
            raise ValueError(f"{what}: column {col!r} has an empty value (row {row + 1}); code non-responses as a label such as 'na'")
    return (frame[response].astype(str) == frame[truth].astype(str)).to_numpy(bool)


def paired_correctness(
    a: Any,
    b: Any,
    *,
    image: str = "image",
    truth: str = "truth",
    response: str = "response",
    correct: str | None = None,
    keys: Sequence[str] | None = None,
    names: tuple[str, str] = ("a", "b"),
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Correctness of two observers on the items both saw, paired by item.

    Parameters
    ----------
    a, b : pandas.DataFrame
        One observer's trials each (one row per item).
    image : str
        The item-id column.
    truth, response : str
        Columns of the correct label and of the observer's answer (a trial is correct
        when they are equal as text).
    correct : str, optional
        A 0/1 (or true/false) correctness column to use instead of truth/response.
    keys : sequence of str, optional
        Columns that identify an item together (default: those of ``experiment``,
        ``condition`` present in both tables, then ``image``).
    names : (str, str)
        How to call the two tables in error messages.

    Returns
    -------
    correct_a, correct_b : ndarray of bool
        Paired correctness, in the order of ``a``'s rows.
    info : dict
        ``n`` paired items, ``only_a`` / ``only_b`` items seen by one observer only
        (left out: EC uses the items both saw).

    Raises
    ------
    ValueError
        A column is missing (the message lists the columns found), an item occurs twice
        for one observer, or the observers share no item.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"image": ["i1", "i2", "i3"], "truth": ["cat", "dog", "car"],
    ...                   "response": ["cat", "cat", "car"]})
    >>> b = pd.DataFrame({"image": ["i3", "i1", "i4"], "truth": ["car", "cat", "dog"],
    ...                   "response": ["dog", "cat", "dog"]})
    >>> ca, cb, info = paired_correctness(a, b)
    >>> ca.tolist(), cb.tolist(), info
    ([True, True], [True, False], {'n': 2, 'only_a': 1, 'only_b': 1})
    """
    if keys is None:
        keys = [k for k in ("experiment", "condition") if k in a.columns and k in b.columns] + [image]
    keys = list(keys)
    out = []
    for frame, name in ((a, names[0]), (b, names[1])):
        for k in keys:
            _need(frame, k, name)
        dup = frame.duplicated(subset=keys)
        if dup.any():
            row = frame.loc[dup, keys].iloc[0].tolist()
            raise ValueError(f"{name}: item {row} occurs more than once for this observer")
        sub = frame[keys].astype(str).copy()
        sub["__correct"] = _correctness(frame, truth=truth, response=response, correct=correct, what=name)
        out.append(sub)
    merged = out[0].merge(out[1], on=keys, how="inner", suffixes=("_a", "_b"))
    if merged.empty:
        raise ValueError(f"{names[0]} and {names[1]} share no item (matched on {', '.join(keys)})")
    info = {"n": len(merged), "only_a": len(out[0]) - len(merged), "only_b": len(out[1]) - len(merged)}
    return merged["__correct_a"].to_numpy(bool), merged["__correct_b"].to_numpy(bool), info
