"""The base of every result object, its confidence interval and the helpers they share.

Every public result is a :class:`Result`: a frozen dataclass (or a class with the same
contract) defined next to the function that makes it (as ``scipy.stats._binomtest``
defines ``BinomTestResult``). This module holds only what they share: :class:`Result`,
:class:`ConfidenceInterval`, :class:`Note` and the helpers every result uses
(:func:`jsonable`, :func:`make_notes`); how a field is shown (:func:`shown`) is in
:mod:`trialwise._core.shown`, the number formatters in :mod:`trialwise._core.format`.

How a result shows itself is declared, not written: each dataclass field that a reader should
see carries the metadata :func:`shown` (``field(metadata=shown(...))``: its label in :meth:`Result.summary`, whether and how it
appears in the one-line repr, its number format), and :class:`Result` derives the repr,
``summary()``, ``to_frame()``, ``to_dict()`` and ``_repr_html_()`` from that metadata and
``frame_columns``. A class adds only what is its own, through small hooks (``repr_prefix``,
``summary_title``, ``_summary_details``, ``_frame_sources``, ``_dict_extra``) or, where its
layout is genuinely different, an override whose docstring says why.

>>> from dataclasses import dataclass, field
>>> from trialwise._core.shown import shown
>>> @dataclass(frozen=True, repr=False)
... class Toy(Result):
...     summary_title = "A toy result"
...     statistic: float = field(metadata=shown("estimate", in_repr=True, repr_name="est"))
...     confidence_interval: ConfidenceInterval = field(metadata=shown(
...         format="interval", in_repr=True, method="ci_method", detail="B = {n_resamples}"))
...     pvalue: float = field(metadata=shown("p-value", in_repr=True, repr_name="p", format="pvalue"))
...     n: int = field(metadata=shown("items n", in_repr=True, format="int"))
...     confidence_level: float = 0.95
...     ci_method: str = "percentile"
...     n_resamples: int = 1000
...     frame_columns = ("statistic", "ci_low", "ci_high", "pvalue", "n")
>>> res = Toy(0.4213, ConfidenceInterval(0.2, 0.61), 0.0012, 80)
>>> res
Toy(est=0.421, 95% CI [0.200, 0.610] (percentile), p=0.0012, n=80)
>>> print(res.summary())
A toy result
  estimate             0.421
  95% CI               [0.200, 0.610]   (percentile, B = 1000)
  p-value              0.0012
  items n              80
>>> res.to_frame().columns.tolist(), res.to_dict()["ci_low"]
(['statistic', 'ci_low', 'ci_high', 'pvalue', 'n'], 0.2)
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html import escape
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import numpy as np

from trialwise._core.format import format_number, format_pvalue
from trialwise._core.shown import NOTE_LABELS, fill, repr_parts, summary_rows, title

__all__ = ["ConfidenceInterval", "Result"]

#: The names every result answers (``None``/``()`` where the result has no such value).
VOCABULARY = ("statistic", "confidence_interval", "pvalue", "confidence_level", "method", "n", "notes", "seed")

_F = TypeVar("_F", bound=Callable[..., Any])


_NoteT = TypeVar("_NoteT", bound="Note")


class Note(str):
    """A caveat (a ``str``) with a ``kind`` saying where it comes from (e.g. ``"undefined"``)
    and, optionally, the ``values`` (numbers and names) its text states.

    Results keep every caveat in ``notes``, a tuple of str; the ``kind`` lets code find a
    note of one kind (``"undefined"``, ``"coverage"``) and read its ``values`` instead of
    parsing its wording.
    """

    kind: str
    values: Mapping[str, Any]

    def __new__(cls: type[_NoteT], text: str, kind: str = "", values: Mapping[str, Any] | None = None) -> _NoteT:
        obj = super().__new__(cls, text)
        obj.kind = kind
        obj.values = MappingProxyType(dict(values or {}))
        return obj

    def __reduce__(self):
        return (Note, (str(self), self.kind, dict(self.values)))

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "text", **values}`` (plain Python types)."""
        return {"kind": self.kind, "text": str(self), **{k: _plain(v) for k, v in self.values.items()}}


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value.item() if hasattr(value, "item") else value


def make_notes(*pairs: tuple[str, str | None]) -> tuple[Note, ...]:
    """``notes`` from ``(kind, text)`` pairs, leaving out empty texts."""
    return tuple(Note(text, kind) for kind, text in pairs if text)


def jsonable(x: Any) -> Any:
    """``x`` as plain JSON-safe Python: non-finite floats become None (so
    ``json.dumps(..., allow_nan=False)`` works), arrays lists, intervals ``[low, high]``,
    frames lists of records, results their ``to_dict()``."""
    if x is None or isinstance(x, (bool, str)):
        return str(x) if isinstance(x, Note) else x
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        x = float(x)
        return x if math.isfinite(x) else None
    if isinstance(x, Result):
        return x.to_dict()
    if isinstance(x, ConfidenceInterval):
        return [jsonable(x.low), jsonable(x.high)]
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "to_dict") and hasattr(x, "columns"):  # a DataFrame
        return jsonable(x.to_dict(orient="records"))
    if hasattr(x, "tolist"):  # a Series or Index
        return jsonable(x.tolist())
    return str(x)


class Result:
    """Base class of every result object: one vocabulary and one contract.

    Vocabulary (every result answers these names; a result without such a value answers
    ``None``, or ``()`` for ``notes``):

    ``statistic``
        The estimate (float, or an array for batched results).
    ``confidence_interval``
        A :class:`ConfidenceInterval` or None.
    ``pvalue``
        The p-value of the result's test, or None.
    ``confidence_level``, ``method``, ``n``
        The interval's level, the estimator's name, the number of items.
    ``seed``
        The seed of a function that takes ``rng=`` (``rng=seed`` repeats the result bit for
        bit) — recorded also by a call whose options happened to draw nothing (an analytic
        interval), where it is harmless — or None: the function takes no ``rng=``, or the
        caller passed a Generator.
    ``notes``
        Every caveat, as a tuple of str (degenerate cases, sparse tables, conventions);
        a note may be a :class:`Note`, a str with a ``kind`` saying where it comes from.

    Contract (checked for every public result by ``tests/contracts/test_results_contract.py``):
    ``repr()`` is one line; ``summary()`` returns text; ``_repr_html_()`` (what Jupyter shows)
    is a compact HTML table of the same; ``to_frame()`` returns a
    :class:`pandas.DataFrame` whose columns are the class attribute ``frame_columns``
    (the same for any input); ``to_dict()`` returns a JSON-safe dict:
    ``json.dumps(result.to_dict(), allow_nan=False)`` works because NaN (and ±inf) are
    represented as ``None``.

    All five are derived from the fields' metadata (:func:`shown`) and ``frame_columns``; a
    subclass declares, and adds only what is its own through the hooks ``repr_prefix``,
    ``summary_title``, ``summary_table``, :meth:`_summary_details`, ``_frame_sources`` and
    :meth:`_dict_extra`.

    A subclass is a frozen dataclass declaring the vocabulary it has as fields (or
    properties). The defaults above come from ``__getattr__``, not from class attributes,
    because a dataclass takes an inherited class attribute of a field's name as that
    field's default.
    """

    __slots__ = ()

    #: Columns of :meth:`to_frame`, fixed per class.
    frame_columns: ClassVar[tuple[str, ...]] = ()
    #: Where a column of :meth:`to_frame` comes from when it is not the attribute of its name: a dotted
    #: path of attributes (``"low": "confidence_interval.low"``). ``ci_low``/``ci_high`` come from
    #: ``confidence_interval`` unless given here.
    _frame_sources: ClassVar[dict[str, str]] = {}
    #: Fields left out of :meth:`to_dict` (large arrays).
    _dict_exclude: ClassVar[tuple[str, ...]] = (
        "bootstrap_distribution", "bootstrap_tables", "null_distribution", "raw_distribution", "distribution",
    )
    #: The first line of :meth:`summary`: a template formatted with the result's attributes
    #: (``"Difference in shape bias: {observer_a} − {observer_b}"``); None: the docstring's first line.
    summary_title: ClassVar[str | None] = None
    #: The words that open the repr, before the fields marked ``in_repr``: a template formatted with the
    #: result's attributes (``"{x} − {y}:"``); None: none.
    repr_prefix: ClassVar[str | None] = None
    #: Whether :meth:`summary` prints the :meth:`to_frame` table (for results that hold rows); None:
    #: only when no field has a label.
    summary_table: ClassVar[bool | None] = None
    #: Rows of :meth:`to_frame` shown by :meth:`_repr_html_` (the rest are counted).
    html_max_rows: ClassVar[int] = 20

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: the vocabulary's defaults
        if name in VOCABULARY:
            return () if name == "notes" else None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ repr

    def _headline(self) -> list[str]:
        """The repr's parts: the fields marked ``in_repr`` (or, without any, the scalar vocabulary)."""
        parts = repr_parts(self)
        return self._vocabulary_headline() if parts is None else parts

    def _vocabulary_headline(self) -> list[str]:
        parts = []
        if self.statistic is not None and np.ndim(self.statistic) == 0:
            parts.append(f"statistic={format_number(self.statistic)}")
        ci = self.confidence_interval
        if ci is not None and np.ndim(ci.low) == 0:
            parts.append(f"CI [{format_number(ci.low)}, {format_number(ci.high)}]")
        if self.pvalue is not None and np.ndim(self.pvalue) == 0:
            parts.append(f"p={format_pvalue(self.pvalue)}")
        if self.n is not None and np.ndim(self.n) == 0:
            parts.append(f"n={self.n}")
        return parts

    def __repr__(self) -> str:
        inner = ", ".join(self._headline())
        if self.repr_prefix is not None:
            inner = f"{fill(self.repr_prefix, self)} {inner}".rstrip()
        return f"{type(self).__name__}({inner})"

    def _repr_html_(self) -> str:
        """The result as a compact HTML table, for Jupyter (derived, like the repr and
        :meth:`summary`, from the fields).

        A caption with the class name and the repr's own line (the class's words: ``EC=0.53,
        95% CI [...]``, ``EC=undefined``), the :meth:`to_frame`
        table (its first ``html_max_rows`` rows and a line counting the rest), then the
        notes. Every text is HTML-escaped.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0)
        >>> html = res._repr_html_()
        >>> html.startswith("<div"), "EC=0.526" in html
        (True, True)
        """
        text = repr(self)  # the class's own line (EC=undefined, not statistic=nan), without its name
        headline = text[text.find("(") + 1: -1] if text.endswith(")") and "(" in text else text
        frame = self.to_frame()
        head = frame.head(self.html_max_rows)
        header = "".join(f"<th>{_html_cell(c)}</th>" for c in frame.columns)
        rows = ["<tr>" + "".join(f"<td>{_html_cell(v)}</td>" for v in row) + "</tr>"
                for row in head.itertuples(index=False, name=None)]
        if len(frame) > len(head):
            rows.append(f'<tr><td colspan="{len(frame.columns)}">… {len(frame) - len(head)} more rows '
                        "(<code>.to_frame()</code> has them all)</td></tr>")
        notes = "".join(f"<li>{escape(str(n))}</li>" for n in self.notes)
        return (f'<div class="trialwise-result"><table><caption style="text-align: left"><strong>'
                f"{escape(type(self).__name__)}</strong> {escape(headline)}</caption>"
                f"<thead><tr>{header}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
                + (f"<ul>{notes}</ul>" if notes else "") + "</div>")

    # ------------------------------------------------------------------ summary

    def _summary_details(self) -> list[str]:
        """Lines of the summary that are the class's own (after the labelled lines and the table)."""
        return []

    def summary(self) -> str:
        """A readable text block: a title, one aligned line per labelled field, the notes.

        Derived from the fields' metadata (:func:`shown`): the title (``summary_title``, or
        the class docstring's first line); one ``label   value   (method, detail)`` line per
        labelled field, the interval with its level and method; the :meth:`to_frame` table
        for results that hold rows; the lines that are the class's own
        (:meth:`_summary_details`); then every note.

        Returns
        -------
        str
            Several lines of text.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0)
        >>> for line in res.summary().splitlines()[:4]:
        ...     print(line)
        Error consistency (Cohen's kappa on trial-by-trial correctness)
          EC                   0.526
          95% CI               [0.299, 0.703]   (jeffreys, B = 200)
          p-value (EC = 0)     3.97e-06   (fisher)
        """
        rows = summary_rows(self)
        longest = max([0] + [len(label) for label, _, _ in rows])
        width = 21 if longest <= 20 else longest + 3  # a column of 21, or three spaces after the longest label
        lines = [title(self)]
        lines += [f"  {label:<{width}}{value}" + (f"   {paren}" if paren else "") for label, value, paren in rows]
        table = self.summary_table if self.summary_table is not None else not rows
        if table:
            lines.append(self.to_frame().to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        lines += self._summary_details()
        for note in self.notes:
            lines.append(f"  {NOTE_LABELS.get(getattr(note, 'kind', ''), 'note'):<{width}}{note}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ to_frame, to_dict

    def _frame_value(self, column: str) -> Any:
        """The values of one column of :meth:`to_frame` (NaN where the result has none)."""
        path = self._frame_sources.get(column)
        if path is None and column in ("ci_low", "ci_high"):
            path = "confidence_interval." + column[3:]
        value: Any = self
        for part in (path or column).split("."):
            if value is None or not hasattr(value, part):
                return np.nan
            value = getattr(value, part)
        return value

    def to_frame(self):
        """:class:`pandas.DataFrame` with the columns ``frame_columns``.

        A result that holds its rows in a ``table`` field (a DataFrame: a study, a family of
        tests, per-observer rows) gives a copy of that table with the columns
        ``frame_columns`` (NaN where a row has no such value); any other result gives one row
        per element of its values (one row for a scalar result, one per pair or grid point
        for a batched one), each column the attribute of its name, ``ci_low``/``ci_high``
        from ``confidence_interval``, or the path given in ``_frame_sources``.

        Returns
        -------
        pandas.DataFrame
            One row (one row per item for tabular results) with the columns
            ``frame_columns``, the same for any input.

        Examples
        --------
        >>> import trialwise as tw
        >>> res = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0)
        >>> frame = res.to_frame()
        >>> list(frame.columns[:3]), round(float(frame["statistic"].iloc[0]), 3)
        (['statistic', 'ci_low', 'ci_high'], 0.526)
        """
        import pandas as pd

        table = getattr(self, "table", None)
        if table is not None and hasattr(table, "reindex"):
            return table.reindex(columns=list(self.frame_columns)).copy()
        values = {c: np.asarray(self._frame_value(c)) for c in self.frame_columns}
        shape = np.broadcast_shapes(*(v.shape for v in values.values()))
        columns = {c: np.ravel(np.broadcast_to(v, shape)) for c, v in values.items()}
        # Python objects (names, None) as a list, so that pandas infers their column's type
        return pd.DataFrame({c: list(v) if v.dtype == object else v for c, v in columns.items()},
                            columns=list(self.frame_columns))

    def _dict_extra(self) -> dict[str, Any]:
        """Entries of :meth:`to_dict` that are the class's own (they replace fields of the same name)."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the fields (large arrays left out; NaN and ±inf as None).

        The fields, a scalar ``confidence_interval`` also as ``ci_low``/``ci_high`` (the
        names of :meth:`to_frame`), and the class's own entries (:meth:`_dict_extra`).

        Returns
        -------
        dict
            Field name to plain Python value (lists for arrays, ``[low, high]`` for an
            interval, a nested result's own dict); ``json.dumps(result.to_dict(),
            allow_nan=False)`` works.

        Examples
        --------
        >>> import json, trialwise as tw
        >>> res = tw.error_consistency(counts=[[40, 10], [8, 22]], n_resamples=200, rng=0)
        >>> d = res.to_dict()
        >>> round(d["statistic"], 3), d["n"], d["counts"], len(json.dumps(d, allow_nan=False)) > 0
        (0.526, 80, [[40, 10], [8, 22]], True)
        """
        if dataclasses.is_dataclass(self):
            names = [f.name for f in dataclasses.fields(self)]
        else:
            names = [k for k in vars(self)]
        out = {k: getattr(self, k) for k in names if not k.startswith("_") and k not in self._dict_exclude}
        ci = out.get("confidence_interval")
        if isinstance(ci, ConfidenceInterval) and np.ndim(ci.low) == 0:
            out["ci_low"], out["ci_high"] = ci.low, ci.high
        out.update(self._dict_extra())
        return jsonable(out)


def _html_cell(value: Any) -> str:
    """One table cell: numbers as :meth:`Result.summary` prints them (4 significant digits),
    everything escaped, long texts shortened."""
    if isinstance(value, (float, np.floating)):
        text = f"{value:.4g}"
    else:
        text = str(value)
        text = text if len(text) <= 80 else text[:77] + "..."
    return escape(text)


@dataclass(frozen=True)
class ConfidenceInterval:
    """A confidence interval ``[low, high]`` (floats, or arrays for batched results)."""

    low: Any
    high: Any

    def __iter__(self):
        return iter((self.low, self.high))

    def __repr__(self) -> str:
        if np.ndim(self.low) == 0:
            return f"ConfidenceInterval(low={format_number(self.low)}, high={format_number(self.high)})"
        return f"ConfidenceInterval(low=<{np.size(self.low)} values>, high=<{np.size(self.high)} values>)"
