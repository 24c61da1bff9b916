"""Packages that load their public names on first use (PEP 562), so ``import trialwise`` is cheap.

``import trialwise`` used to import every module of the library, and with them scipy.stats,
pandas and (through the plots) more: about ten times the CPU time of ``import numpy``. Now
each package's ``__init__`` names where each of its public names lives, and
:func:`lazy_package` loads a module the first time one of its names is asked for::

    __getattr__, __dir__ = lazy_package(__name__, __all__, {
        "trialwise.ec.pair": ("error_consistency",),
    }, modules={"comparison": "trialwise.comparison"})

``from trialwise import error_consistency``, ``tw.error_consistency`` and
``from trialwise import *`` work; the ``__init__`` also imports every name under
``if TYPE_CHECKING:``, so type checkers and IDEs see them. Any other name is an
``AttributeError`` (naming the public package that has it, if one does: ``tw.kappa_bounds`` →
"it is trialwise.ec.kappa_bounds"): the modules inside a package are its internals, reached only
by importing them by their full name (``import trialwise.ec.restricted``), as with any Python
package.

No module of a package is named like one of the package's public names (``brainscore.ceiling``
defines ``ceilings``; ``comparison.correctness`` defines ``mcnemar``;
``tests/contracts/test_architecture.py`` checks it): Python binds a package's attribute to each submodule
it imports, which would otherwise replace a public function by its module.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_package"]


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

    def __getattr__(name: str) -> Any:
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
        elif name in module_names:
            value = importlib.import_module(module_names[name])
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}" + _where_else(name))
        setattr(this, name, value)  # the next lookup is an ordinary attribute
        return value

    def _where_else(name: str) -> str:
        """``"; it is trialwise.ec.kappa_bounds"`` when a public package of this one exports ``name``
        (each package's ``__init__`` is cheap to import: its names load on first use)."""
        if name.startswith("_"):
            return ""
        found = [f"{target}.{name}" for target in module_names.values()
                 if name in getattr(importlib.import_module(target), "__all__", ())]
        return f"; it is {' or '.join(found)}" if found else ""

    def __dir__() -> list[str]:
        return sorted(set(public) | {n for n in this.__dict__ if n.startswith("__") and n.endswith("__")})

    return __getattr__, __dir__
