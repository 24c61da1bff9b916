"""A griffe extension for the API reference: the docstrings' Sphinx roles as links.

trialwise's docstrings are numpydoc and cross-reference with Sphinx roles (``:func:`trialwise.compare```,
``:meth:`cell_probabilities```, ``:mod:`~trialwise.comparison.roc```), which mkdocstrings would show as
literal text. This extension (``extensions:`` in mkdocs.yml) rewrites each role, once the package is loaded,
into an *optional* autorefs cross-reference: a link when the target is rendered in the reference (found
by its public or its canonical path, a relative name looked up from the object outwards, as Sphinx
does), plain code otherwise (private modules, numpy, scipy) — never a warning, so ``--strict`` keeps
meaning "a broken link in the guides or a docstring that does not parse". The docstrings themselves
are unchanged.

Only mkdocs imports it, with the docs extra installed; pytest's ``--doctest-modules`` imports every
``.py`` under ``docs/`` too, hence the guarded import.
"""

from __future__ import annotations

import html
import re
from typing import Any

try:
    import griffe
except ImportError:  # the docs extra is not installed (pytest collecting docs/): nothing to define
    griffe = None

# :role:`target`, :role:`~target`, :role:`title <target>`, :py:role:`target`
ROLE = re.compile(r":(?:py:)?(?P<role>func|class|mod|meth|attr|data|exc|obj|const|math):`(?P<text>[^`]+)`")


def _lookup(obj: Any, target: str) -> str | None:
    """The path under which ``target``, as written in ``obj``'s docstring, is an object; None if none is."""
    scopes = [] if target.startswith("trialwise.") else [obj, *_parents(obj)]
    first = target.split(".", 1)[0]
    for scope in scopes:  # a method or attribute a class inherits (``:meth:`to_frame``` of a Result)
        if scope.is_class and first not in scope.members and first in scope.all_members:
            owner = scope.all_members[first].parent
            return f"{owner.path}.{target}" if owner is not None else None
        try:
            if obj.modules_collection.get_member(f"{scope.path}.{target}") is not None:
                return f"{scope.path}.{target}"
        except Exception:  # griffe raises KeyError, ValueError or an alias-resolution error for a miss
            continue
    return target if target.startswith("trialwise.") else None


def _parents(obj: Any) -> list[Any]:
    out = []
    while obj.parent is not None:
        obj = obj.parent
        out.append(obj)
    return out


def _rewrite(obj: Any, text: str) -> str:
    def one(match: re.Match[str]) -> str:
        role, written = match["role"], match["text"]
        if role == "math":
            return f"<code>{html.escape(written)}</code>"
        titled = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^<>]+)>", written)
        target = (titled["target"] if titled else written).lstrip("~").removesuffix("()")
        if titled:
            title = titled["title"]
        elif written.startswith("~"):
            title = written[1:].rsplit(".", 1)[-1]
        else:
            title = written
        identifier = _lookup(obj, target) or target
        return (f'<autoref identifier="{html.escape(identifier)}" optional>'
                f"<code>{html.escape(title)}</code></autoref>")

    return ROLE.sub(one, text)


if griffe is not None:

    class SphinxRoles(griffe.Extension):
        """Rewrite the Sphinx roles of every docstring of the package into optional cross-references."""

        def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
            seen: set[int] = set()
            stack: list[Any] = [pkg]
            while stack:
                obj = stack.pop()
                if obj.is_alias or id(obj) in seen:
                    continue
                seen.add(id(obj))
                if obj.docstring is not None and ROLE.search(obj.docstring.value):
                    obj.docstring.value = _rewrite(obj, obj.docstring.value)
                    obj.docstring.__dict__.pop("parsed", None)  # parsed lazily; drop a stale parse
                stack.extend(obj.members.values())
