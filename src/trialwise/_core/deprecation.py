"""Renaming public arguments without breaking callers: old names work for one release.

A renamed keyword argument keeps its old name until the next minor release: passing it
emits a :class:`FutureWarning` that names the new argument, then the call proceeds as if
the new name had been used. Passing both is a :class:`TypeError`. The public signature
(``inspect.signature``) shows only the new names; the old ones are listed in the
wrapper's ``__renamed_parameters__`` (the glossary test reads it).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from trialwise._core.errors import InvalidTypeError
from trialwise._core.warnings import outside_stacklevel

__all__ = ["REMOVED_IN", "Renamed", "renamed_parameters"]

#: The release in which deprecated names disappear.
REMOVED_IN = "0.3"

F = TypeVar("F", bound=Callable[..., Any])


def renamed_parameters(**old_to_new: str) -> Callable[[F], F]:
    """Decorator: accept each ``old=`` keyword as ``new=`` with a FutureWarning.

    Examples
    --------
    >>> import warnings
    >>> @renamed_parameters(n_permutations="n_resamples")
    ... def f(*, n_resamples=10):
    ...     return n_resamples
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(n_permutations=5), str(w[0].message)
    (5, '`n_permutations` is deprecated and will be removed in trialwise 0.3; use `n_resamples`')
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InvalidTypeError(f"pass `{new}` only; `{old}` is its deprecated name")
                    warnings.warn(f"`{old}` is deprecated and will be removed in trialwise {REMOVED_IN}; "
                                  f"use `{new}`", FutureWarning, stacklevel=outside_stacklevel())
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        wrapper.__renamed_parameters__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate

class Renamed:
    """A deprecated attribute name: reading it warns (FutureWarning) and returns the new attribute.

    ``new`` may be a dotted path (``"confidence_interval.low"``) or a callable of the
    result (for old names whose value is derived, e.g. from ``notes``); ``new_name`` is
    then the name shown in the warning.
    """

    def __init__(self, new: Any, new_name: str | None = None):
        self.new = new
        self.new_name = new_name or new
        self.old = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.old = name
        self.__doc__ = f"Deprecated: use ``{self.new_name}``."

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        warnings.warn(
            f"`{type(obj).__name__}.{self.old}` is deprecated and will be removed in trialwise {REMOVED_IN}; "
            f"use `{self.new_name}`", FutureWarning, stacklevel=outside_stacklevel(),
        )
        if callable(self.new):
            return self.new(obj)
        value = obj
        for part in self.new.split("."):
            value = getattr(value, part)
        return value
