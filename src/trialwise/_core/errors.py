"""The library's own error classes: bad input to a public function (all subclasses of :class:`InputError`).

Every argument check of trialwise raises one of these, so a caller can tell "my input
was wrong" (``except tw.InputError``) from a bug, and so the command line can print bad
input as one line (exit status 2) while every other exception is reported as a bug.
Each class is also the built-in exception of its kind, so ``except ValueError`` and
``except TypeError`` keep working:

* :class:`InvalidValueError` (a :class:`ValueError`) — a value out of range, a wrong
  shape or length, a name that is not among the choices, missing or inconsistent data;
* :class:`InvalidTypeError` (a :class:`TypeError`) — the wrong kind of argument
  (text where numbers are needed, a result of the wrong class, ...).

Examples
--------
>>> import trialwise as tw
>>> try:
...     tw.error_consistency([1, 0, 1], [1, 1, 0], confidence_level=95)
... except tw.InputError as exc:
...     print(type(exc).__name__, isinstance(exc, ValueError))
...     print(exc)
InvalidValueError True
`confidence_level` must be in (0, 1); got 95
"""

from __future__ import annotations

__all__ = ["InputError", "InvalidValueError", "InvalidTypeError"]


class InputError(Exception):
    """Base class of the errors trialwise raises for bad input to a public function.

    The message names the argument and shows what was received
    (``"`confidence_level` must be in (0, 1); got 95"``). Catch this class to handle
    every input error of trialwise, and nothing else.
    """


class InvalidValueError(InputError, ValueError):
    """An argument has the right kind but a bad value (range, shape, length, choice, missing data)."""


class InvalidTypeError(InputError, TypeError):
    """An argument has the wrong kind (e.g. text where numbers are needed)."""


for _cls in (InputError, InvalidValueError, InvalidTypeError):
    _cls.__module__ = "trialwise"  # tracebacks show the public name, trialwise.InvalidValueError
del _cls
