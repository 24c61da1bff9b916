"""How a result's fields are shown: the :func:`shown` field metadata and the text it gives.

A result class declares each field a reader should see with :func:`shown` (its label in
``summary()``, whether and how the one-line repr shows it, its number format);
:class:`~trialwise._core.results.Result` derives its repr and ``summary()`` from that metadata
with the functions here (:func:`repr_parts`, :func:`summary_rows`, :func:`title`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from trialwise._core.format import format_number, format_percent, format_pvalue

__all__ = ["NOTE_LABELS", "SHOWN", "Shown", "fill", "repr_parts", "shown", "summary_rows", "title", "value_text"]

#: The named number formats of :func:`shown` (a callable ``(value, result) -> str | None`` also works).
Format = Literal["number", "pvalue", "percent", "int", "general", "text", "count", "interval", "result", "replicates"]
_NUMERIC = ("number", "pvalue", "percent", "int", "general")
#: The metadata key under which :func:`shown` stores a field's :class:`Shown`.
SHOWN = "trialwise.shown"
#: How a note of a ``kind`` is labelled in :meth:`~trialwise._core.results.Result.summary` (``"note"`` otherwise).
NOTE_LABELS = {"coverage": "coverage warning"}


@dataclass(frozen=True)
class Shown:
    """How one field of a result is shown: the metadata :func:`shown` gives a field.

    See :func:`shown` for the meaning of each attribute.
    """

    label: str | None = None
    in_repr: bool = False
    repr_name: str | None = None
    format: Format | Callable[[Any, Any], str | None] = "number"
    digits: int = 3
    method: str | None = None
    detail: str | Callable[[Any], str] | None = None
    interval: str | None = None
    optional: bool = False


def shown(label: str | None = None, *, in_repr: bool = False, repr_name: str | None = None,
          format: Format | Callable[[Any, Any], str | None] = "number", digits: int = 3, method: str | None = None,
          detail: str | Callable[[Any], str] | None = None, interval: str | None = None,
          optional: bool = False) -> Mapping[str, Shown]:
    """The metadata of a result's dataclass field saying how the field is shown.

    Used as ``x: float = dataclasses.field(metadata=shown("label", ...))``, so that
    ``default``, ``default_factory``, ``compare`` and ``kw_only`` stay those of
    :func:`dataclasses.field` (and type checkers see an ordinary field).

    Parameters
    ----------
    label : str, optional
        The field's line in :meth:`~trialwise._core.results.Result.summary`
        (``"  label   value"``); None: no line. Consecutive fields with the same label share
        one line (``accuracy A, B  0.7, 0.6``). An ``"interval"`` field is labelled
        ``"95% CI"`` (its level) when no label is given.
    in_repr : bool, default False
        Whether the one-line repr shows it (in field order).
    repr_name : str, optional
        Its name in the repr (``EC=0.53``); the field's name by default, ``""`` for the
        value alone.
    format : str or callable, default "number"
        ``"number"`` (``digits`` decimals; a NaN ``statistic`` is ``undefined``),
        ``"pvalue"``, ``"percent"``, ``"int"``, ``"general"`` (4 significant digits),
        ``"text"`` (``str``; an empty text is left out), ``"count"`` (its length; ``3 pairs``
        in the repr), ``"interval"`` (a confidence interval: ``95% CI [low, high]``),
        ``"result"`` (a nested result: its statistic, interval and method),
        ``"replicates"`` (a count of undefined replicates: ``3 of 1000 (0.3%)``, left out
        without replicates), or a callable ``(value, result) -> str``, None to leave it out
        (it decides also for a value of None). Otherwise a field whose value is None is
        left out; an array of numbers is summarised by its median in the repr and left to
        ``to_frame()`` in the summary.
    digits : int, default 3
        Decimals of ``"number"`` (and of intervals).
    method : str, optional
        The attribute naming how the value was computed, shown in parentheses after it
        (``p=0.01 (fisher)``), in the repr and the summary.
    detail : str or callable, optional
        More words for the summary's parentheses (after ``method``): a template formatted
        with the result's attributes (``"B = {n_resamples}"``) or a callable ``result -> str``.
    interval : str, optional
        The attribute holding this value's confidence interval, shown after it
        (``raw=0.25 [0.20, 0.30]``; in the summary ``0.25   95% CI [0.20, 0.30]``).
    optional : bool, default False
        Leave the field out where its value is NaN (an interval: both ends NaN), for
        results whose NaN means "this method defines none".

    Returns
    -------
    Mapping
        ``{SHOWN: Shown(...)}``, the ``metadata`` of :func:`dataclasses.field`.

    Examples
    --------
    >>> from dataclasses import field
    >>> f = field(default=float("nan"), metadata=shown("p-value", in_repr=True, repr_name="p", format="pvalue"))
    >>> f.metadata[SHOWN].label, f.default
    ('p-value', nan)
    """
    return MappingProxyType({SHOWN: Shown(label, in_repr, repr_name, format, digits, method, detail, interval,
                                          optional)})

class _Attributes(dict):
    """The mapping with which a template (``summary_title``, a ``detail``) reads a result's attributes."""

    def __init__(self, result: Any) -> None:
        super().__init__()
        self.result = result

    def __missing__(self, key: str) -> Any:
        return getattr(self.result, key)


def fill(template: str | Callable[[Any], str] | None, result: Any) -> str:
    """A template formatted with ``result``'s attributes (``"B = {n_resamples}"``), or a callable's text."""
    if template is None:
        return ""
    return template(result) if callable(template) else template.format_map(_Attributes(result))


def _all_nan(value: Any) -> bool:
    if hasattr(value, "low") and hasattr(value, "high"):  # an interval
        return _all_nan(value.low) and _all_nan(value.high)
    try:
        return bool(np.all(np.isnan(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return False


def _fields(result: Any) -> list[tuple[str, Shown, Any]]:
    """``(name, how it is shown, value)`` of every field declared with :func:`shown`, in field order."""
    if not dataclasses.is_dataclass(result):
        return []
    return [(f.name, f.metadata[SHOWN], getattr(result, f.name))
            for f in dataclasses.fields(result) if SHOWN in f.metadata]


def ci_label(result: Any) -> str:
    """``"95% CI"`` (the result's level), or ``"CI"`` for a result without one."""
    level = result.confidence_level
    return "CI" if level is None or np.ndim(level) else f"{format_percent(level)} CI"


def _bounds(ci: Any, digits: int = 3) -> str:
    return f"[{format_number(ci.low, digits)}, {format_number(ci.high, digits)}]"


def value_text(result: Any, name: str, spec: Shown, value: Any) -> str | None:
    """The value as text (None: left out); a numeric array gives ``""`` (shown by its median or the table)."""
    fmt = spec.format
    if callable(fmt):
        return fmt(value, result)
    if value is None or (spec.optional and _all_nan(value)):
        return None
    if fmt in _NUMERIC and np.ndim(value) > 0:
        return ""
    if fmt == "number":
        return "undefined" if name == "statistic" and np.isnan(value) else format_number(value, spec.digits)
    if fmt == "pvalue":
        return format_pvalue(value)
    if fmt == "percent":
        return format_percent(value)
    if fmt == "int":
        return str(int(value))
    if fmt == "general":
        return f"{float(value):.4g}"
    if fmt == "count":
        return str(len(value))
    if fmt == "interval":
        return _bounds(value, spec.digits) if np.ndim(value.low) == 0 else "per row (ci_low, ci_high)"
    if fmt == "result":
        return format_number(value.statistic, spec.digits)
    if fmt == "replicates":
        total = result.n_resamples
        return f"{value} of {total} ({100 * value / total:.2g}%)" if total else None
    return str(value) or None  # "text"


def _parenthesis(result: Any, spec: Shown, value: Any, *, summary: bool) -> str:
    parts = [str(getattr(result, spec.method))] if spec.method else []
    if summary:
        if spec.format == "result":
            parts.append(str(value.method))
        parts.append(fill(spec.detail, result))
    text = ", ".join(p for p in parts if p)
    return f"({text})" if text else ""


def repr_parts(result: Any) -> list[str] | None:
    """The repr's parts: the fields marked ``in_repr``, in field order (None: no field is marked)."""
    marked = [(name, spec, value) for name, spec, value in _fields(result) if spec.in_repr]
    if not marked:
        return None
    parts = []
    for name, spec, value in marked:
        text = value_text(result, name, spec, value)
        if text is None:
            continue
        label = name if spec.repr_name is None else spec.repr_name
        if spec.format == "interval":
            part = ci_label(result) + (f" {text}" if np.ndim(value.low) == 0 else "")
        elif spec.format == "count":
            part = f"{text} {label}"
        elif text == "":  # an array of numbers: its median
            finite = np.asarray(value, dtype=float)
            finite = finite[~np.isnan(finite)]
            median = format_number(np.median(finite), spec.digits) if finite.size else "nan"
            part = f"median {label}={median}" if label else f"median={median}"
        else:
            part = f"{label}={text}" if label else text
        if spec.interval is not None:
            ci = getattr(result, spec.interval)
            if ci is not None and np.ndim(ci.low) == 0:
                part += f" {_bounds(ci, spec.digits)}"
        paren = _parenthesis(result, spec, value, summary=False)
        parts.append(f"{part} {paren}" if paren else part)
    return parts


def summary_rows(result: Any) -> list[tuple[str, str, str]]:
    """``(label, value, parenthesis)`` of every labelled field shown (consecutive same labels joined)."""
    rows: list[tuple[str, str, str]] = []
    previous = None
    for name, spec, value in _fields(result):
        label = spec.label or (ci_label(result) if spec.format == "interval" else None)
        text = None if label is None else value_text(result, name, spec, value)
        if label is None or not text:  # no label, left out, or an array left to the table
            previous = None
            continue
        if spec.interval is not None:
            ci = getattr(result, spec.interval)
            if ci is not None and np.ndim(ci.low) == 0:
                text += f"   {ci_label(result)} {_bounds(ci, spec.digits)}"
        if spec.format == "result":
            text += f"   {ci_label(result)} {_bounds(value.confidence_interval, spec.digits)}"
        paren = _parenthesis(result, spec, value, summary=True)
        if label == previous:
            rows[-1] = (label, f"{rows[-1][1]}, {text}", paren or rows[-1][2])
        else:
            rows.append((label, text, paren))
        previous = label
    return rows


def title(result: Any) -> str:
    """The summary's first line: ``summary_title`` filled in, or the class docstring's first line."""
    cls = type(result)
    if cls.summary_title is not None:
        return fill(cls.summary_title, result)
    doc = (cls.__doc__ or "").strip()
    if not doc or doc.startswith(f"{cls.__name__}("):  # none, or the signature dataclass writes in its place
        return cls.__name__
    return re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", doc.splitlines()[0]).rstrip(".")
