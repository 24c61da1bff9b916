"""Caveats of degenerate-but-legal data in the comparison functions: warned, or collected.

A comparison function that meets degenerate data returns its documented value, says so in
the result (its ``notes``: a short note, and the message as a note of kind ``"warning"``) and calls
:func:`caveat`. Called on its own, that issues one warning of the library's class. Inside
:func:`collecting` — which :func:`~trialwise.compare` and
:func:`~trialwise.comparison.ensemble_recommendation` use around the methods they run — the caveat
goes to the caller's list instead, and the caller issues at most one warning per kind.

The list lives in a :class:`contextvars.ContextVar`, so each thread (and each asyncio
task) collects only its own caveats. ``warnings.catch_warnings`` would change the
process-wide warning state, which loses or misroutes the warnings of concurrent calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from trialwise._core.warnings import warn

__all__ = ["Caveat", "caveat", "collecting", "warn_once_per_kind"]

#: A caveat: (warning class, message).
Caveat = tuple[type[Warning], str]

_SINK: ContextVar[list[Caveat] | None] = ContextVar("trialwise_comparison_caveats", default=None)


def caveat(message: str, category: type[Warning]) -> None:
    """Warn, or hand the caveat to the enclosing :func:`collecting` of this thread or task."""
    sink = _SINK.get()
    if sink is None:
        warn(message, category)
    else:
        sink.append((category, message))


@contextmanager
def collecting() -> Iterator[list[Caveat]]:
    """Collect the caveats raised in this context (this thread or task only) instead of warning."""
    sink: list[Caveat] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def warn_once_per_kind(caveats: list[Caveat], where: str) -> None:
    """Issue one warning per warning class, joining that class's distinct messages."""
    by_kind: dict[type[Warning], list[str]] = {}
    for category, message in caveats:
        seen = by_kind.setdefault(category, [])
        if message not in seen:
            seen.append(message)
    for category, messages in by_kind.items():
        caveat(f"{where}: " + "; ".join(messages), category)
