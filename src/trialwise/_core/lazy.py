"""Packages that load their public names on first use (PEP 562), so ``import trialwise`` is cheap.

``import trialwise`` used to import every module of the library, and with them scipy.stats,
pandas and (through the plots) more: about ten times the CPU time of ``import numpy``. Now
each package's ``__init__`` names where each of its public names lives, and
:func:`lazy_package` loads a module the first time one of its names is asked for::

    __getattr__, __dir__ = lazy_package(__name__, __all__, {
        "trialwise.ec": ("error_consistency", "pairwise_error_consistency"),
    }, modules={"comparison": "trialwise.comparison"})

``from trialwise import error_consistency``, ``tw.error_consistency`` and
``from trialwise import *`` work as before; the ``__init__`` also imports every name under
``if TYPE_CHECKING:``, so type checkers and IDEs see them. A name that is neither public nor
already loaded but is a submodule of the package (``tw.resampling``) is imported, as the old
eager imports made it available.

A public function named like the module that defines it (``trialwise.agreement.agreement``,
``trialwise.comparison.mcnemar.mcnemar``) keeps its meaning: Python's import system binds a
package's attribute to each submodule it loads, which would replace the function by its module
whenever the module is imported for another reason; the package's module type keeps the
function instead (:class:`LazyPackage`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["LazyPackage", "lazy_package"]


class LazyPackage(types.ModuleType):
    """The module type of a lazy package: a submodule bound to the package under the name of
    a public function it defines (``trialwise.agreement``) leaves the function in place."""

    def __setattr__(self, name: str, value: Any) -> None:
        functions = self.__dict__.get("_lazy_function_modules", {})
        if isinstance(value, types.ModuleType) and value.__name__ == functions.get(name):
            value = getattr(value, name)
        super().__setattr__(name, value)


def lazy_package(package: str, public: Iterable[str], attributes: Mapping[str, Iterable[str]], *,
                 modules: Mapping[str, str] | None = None
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package ``package`` (PEP 562).

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    public : iterable of str
        Its ``__all__``; every name in it must be found in ``attributes`` or ``modules``.
    attributes : mapping
        Module name to the public names it defines (loaded with ``getattr``).
    modules : mapping, optional
        Public name to a module that *is* the value (a subpackage, ``tw.brainscore``).
    """
    where = {name: module for module, names in attributes.items() for name in names}
    module_names = dict(modules or {})
    public = list(public)
    unmapped = sorted(set(public) - set(where) - set(module_names))
    if unmapped:  # a programming error in an __init__, caught by importing the package in any test
        raise ImportError(f"{package}.__all__ names without a module: {unmapped}")
    this = sys.modules[package]
    this.__dict__["_lazy_function_modules"] = {
        name: module for name, module in where.items() if module == f"{package}.{name}"}
    this.__class__ = LazyPackage

    def __getattr__(name: str) -> Any:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
        elif name in module_names:
            value = importlib.import_module(module_names[name])
        elif not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            return importlib.import_module(f"{package}.{name}")  # binds itself on the package
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(this, name, value)  # the next lookup is an ordinary attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(public) | {n for n in this.__dict__ if n.startswith("__") and n.endswith("__")})

    return __getattr__, __dir__
