"""Every public function and method has a complete numpydoc docstring; references are real.

For every public callable (the functions in ``__all__`` of ``trialwise`` and of each of its public
packages, and the public methods of the public classes there, inherited ones included):

* a ``Parameters`` section naming every parameter of the signature and no other (a
  signature without parameters needs none);
* a ``Returns`` (or ``Yields``) section;
* an ``Examples`` section with at least one ``>>>`` line (pytest runs them as doctests);
* a ``References`` section when the docstring cites a paper.

And no docstring of the package, doc page (docs/*.md) or README cites the project's
internal names for its source documents ("seed 000", "SPEC §6.3"): a reader cannot look
them up. A section, appendix, figure or proposition number stays only next to the citation
of the paper it belongs to. Numpydoc itself is not a dependency: the sections are parsed here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

import trialwise as tw

ROOT = Path(__file__).parents[2]
MODULES = ["trialwise"] + [f"trialwise.{name}" for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType)]

#: Callables whose docstrings are still to be completed (shrink this list; never grow it).
TODO: set[str] = set()
#: Docstrings that point into a paper (§, App., Fig.) and still lack its citation.
TODO_REFERENCES: set[str] = set()


def _public_callables() -> dict[str, object]:
    found: dict[str, object] = {}

    def add_class_methods(cls: type) -> None:
        for klass in cls.__mro__:
            if not klass.__module__.startswith("trialwise"):
                continue
            for name, attr in vars(klass).items():
                if name.startswith("_"):
                    continue
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                if isinstance(attr, property) or not inspect.isfunction(attr):
                    continue
                found.setdefault(f"{klass.__module__}.{klass.__qualname__}.{name}", attr)

    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                add_class_methods(obj)
            elif inspect.isfunction(obj):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return found


CALLABLES = _public_callables()
_UNDERLINE = re.compile(r"-{3,}")


def sections(doc: str | None) -> dict[str, list[str]]:
    """``{title: lines}`` of a numpydoc docstring (a title line underlined with dashes)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    out: dict[str, list[str]] = {}
    current = None
    skip = False
    for i, line in enumerate(lines):
        if skip:
            skip = False
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and not line[0].isspace() and _UNDERLINE.fullmatch(nxt.strip() or "x") \
                and len(nxt.strip()) == len(line.strip()):
            current = line.strip()
            out[current] = []
            skip = True
            continue
        if current is not None:
            out[current].append(line)
    return out


def documented_parameters(lines: list[str]) -> list[str]:
    """Names of the entries of a Parameters section (``a, b : type`` lines at the base indent)."""
    names = []
    for line in lines:
        if not line.strip() or line[0].isspace():
            continue
        head = line.split(" : ")[0].rstrip(":").strip()
        names += [n.strip().lstrip("*") for n in head.split(",")]
    return names


def signature_parameters(func) -> list[str]:
    params = list(inspect.signature(func).parameters.values())
    if params and params[0].name in ("self", "cls") and "." in func.__qualname__:
        params = params[1:]
    return [p.name for p in params]


#: A citation of a paper or book: "Klein et al. (2025)", "Geirhos, Meding & Wichmann (2020)", the chapter.
CITATION = re.compile(r"[A-Z][\w\-]+(?: et al\.|(?:,| &| and) [A-Z][\w\-]+)*,? \(?(?:19|20)\d\d"
                      r"|Machine Learning & Signals Learning")
#: Internal names of the project's source documents.
INTERNAL = re.compile(r"\bseeds?[ /]*0\d\d|\bSPEC\b|\bSPEC\.md")
#: A pointer into a paper: only meaningful next to its citation.
POINTER = re.compile(r"§|\bApp\. [A-Z]\b|\bAppendix [A-Z]\b|\bAlgorithm \d|\bProp(?:osition|\.)s? \d|\bFig\. \d")


@pytest.mark.parametrize("qualname", sorted(CALLABLES))
def test_numpydoc_sections(qualname):
    if qualname in TODO:
        pytest.skip("docstring still to be completed (TODO list in tests/contracts/test_docstrings.py)")
    func = CALLABLES[qualname]
    doc = inspect.getdoc(func)
    assert doc, f"{qualname} has no docstring"
    parts = sections(doc)
    expected = signature_parameters(func)
    if expected:
        assert "Parameters" in parts, f"{qualname}: no Parameters section"
        documented = documented_parameters(parts["Parameters"])
        assert sorted(documented) == sorted(expected), (
            f"{qualname}: Parameters lists {documented}, the signature has {expected}")
    else:
        assert not documented_parameters(parts.get("Parameters", [])), f"{qualname}: documents absent parameters"
    assert "Returns" in parts or "Yields" in parts, f"{qualname}: no Returns section"
    examples = parts.get("Examples", [])
    assert any(line.lstrip().startswith(">>> ") for line in examples), f"{qualname}: no Examples with >>>"
    if CITATION.search(doc):
        assert "References" in parts, f"{qualname}: cites a paper but has no References section"


def test_todo_list_is_current():
    """The TODO lists name only callables and docstrings that exist."""
    assert TODO <= set(CALLABLES), sorted(TODO - set(CALLABLES))
    assert TODO_REFERENCES <= {w for w, _ in _TEXTS}, sorted(TODO_REFERENCES - {w for w, _ in _TEXTS})


def _docstrings() -> list[tuple[str, str]]:
    """(where, text) of every docstring in the package (modules, classes, functions)."""
    out = []

    def visit(node, path, prefix):
        doc = ast.get_docstring(node, clean=True)
        if doc:
            out.append((f"{path}::{prefix or '<module>'}", doc))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, path, f"{prefix}.{child.name}" if prefix else child.name)

    for path in sorted((ROOT / "src" / "trialwise").rglob("*.py")):
        visit(ast.parse(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT)), "")
    return out


def _texts() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return _docstrings() + [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in pages]


_TEXTS = _texts()


@pytest.mark.parametrize("where,text", _TEXTS, ids=[w for w, _ in _TEXTS])
def test_references_are_real(where, text):
    if where in TODO_REFERENCES:
        pytest.skip("citation still to be added (TODO_REFERENCES in tests/contracts/test_docstrings.py)")
    internal = [m.group(0) for m in INTERNAL.finditer(text)]
    assert not internal, f"{where} cites internal names {internal}: cite the paper"
    pointer = POINTER.search(text)
    if pointer:
        assert CITATION.search(text), (
            f"{where} points into a paper ({pointer.group(0)!r}) without citing it")
