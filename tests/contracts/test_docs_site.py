"""The documentation site's API reference keeps up with the code (issue 30).

``mkdocs.yml`` builds the site: the guides in ``docs/`` and an API reference, ``docs/api/``, with
one page per public package (``trialwise`` and each package in its ``__all__``). A page is one
mkdocstrings directive (``::: trialwise.ec``) that renders the package's ``__all__``, which griffe
reads from the source without importing it: the lazy PEP 562 ``__getattr__`` is invisible to it,
so it resolves each name through the import of the same name under ``if TYPE_CHECKING:``.

These tests fail, without building the site (mkdocs is the docs extra, not a test dependency;
``.ci/run`` builds the site with ``--strict``), when a public name would be missing from the
reference or shown twice:

* every public package has exactly one API page, in the navigation, and no page documents
  anything else;
* each page renders its package's whole ``__all__``: no ``members`` list or filter of the
  configuration leaves a public name out, and no page renders the subpackages (each has its
  own page, so the top-level page shows only the top-level objects);
* griffe can find every public name: ``__all__`` is a literal list (what griffe reads) equal
  to the package's ``__all__`` at run time, and each name is imported under its own name from a
  module that defines it;
* every guide in ``docs/`` is in the navigation and every page of the navigation exists.

That no object has two public paths is tested in ``test_architecture.py``.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import types
from pathlib import Path
from typing import Any

import pytest
import yaml

import trialwise as tw

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
SRC = ROOT / "src"
PACKAGES = [name for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType)]
DOCUMENTED = ["trialwise"] + [f"trialwise.{name}" for name in PACKAGES]


class _Loader(yaml.SafeLoader):
    """safe_load that reads mkdocs.yml's tags (``!ENV``, ``!!python/name:``) as plain values."""


_Loader.add_multi_constructor("", lambda loader, suffix, node: None)


def _config() -> dict[str, Any]:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def _nav_pages(nav: Any, section: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """``(section titles, page path)`` of every page of the navigation."""
    if isinstance(nav, str):
        return [(section, nav)]
    if isinstance(nav, list):
        return [page for item in nav for page in _nav_pages(item, section)]
    assert isinstance(nav, dict), nav
    return [page for title, item in nav.items() for page in _nav_pages(item, section + (title,))]


def _excluded(config: dict[str, Any], page: str) -> bool:
    patterns = [line.strip() for line in (config.get("exclude_docs") or "").splitlines() if line.strip()]
    return any(fnmatch.fnmatch(page, pattern.lstrip("/")) for pattern in patterns)


def _directives() -> dict[str, list[tuple[Path, dict[str, Any]]]]:
    """Every mkdocstrings directive of the docs: identifier -> ``[(page, local options)]``."""
    found: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for page in sorted(DOCS.rglob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"^:::\s+(\S+)\s*$", line)
            if not m:
                continue
            block = []
            for following in lines[i + 1:]:
                if following.strip() and not following.startswith((" ", "\t")):
                    break
                block.append(following)
            local = yaml.load("\n".join(block), Loader=_Loader) if any(s.strip() for s in block) else None
            found.setdefault(m.group(1), []).append((page, (local or {}).get("options") or {}))
    return found


def _handler_options(config: dict[str, Any]) -> dict[str, Any]:
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            return plugin["mkdocstrings"]["handlers"]["python"].get("options") or {}
    raise AssertionError("mkdocs.yml has no mkdocstrings plugin")


def _kept_by(filters: list[str], name: str) -> bool:
    """mkdocstrings-python's filters: a name is rendered when every filter lets it through."""
    for f in filters:
        if f.startswith("!"):
            if re.search(f[1:], name):
                return False
        elif not re.search(f, name):
            return False
    return True


def test_every_public_package_has_one_api_page_in_the_navigation():
    config = _config()
    directives = _directives()
    assert sorted(directives) == sorted(DOCUMENTED), (
        f"API pages missing for {sorted(set(DOCUMENTED) - set(directives))}; "
        f"pages for what is not a public package: {sorted(set(directives) - set(DOCUMENTED))}")
    twice = {name: [str(p.relative_to(DOCS)) for p, _ in places] for name, places in directives.items()
             if len(places) > 1}
    assert not twice, f"documented on more than one page: {twice}"
    reference = {path for section, path in _nav_pages(config["nav"]) if section[:1] == ("API reference",)}
    for name, [(page, _)] in directives.items():
        assert page.relative_to(DOCS).as_posix() in reference, f"{page} ({name}) is not under 'API reference'"


@pytest.mark.parametrize("name", DOCUMENTED)
def test_each_api_page_renders_its_whole_all(name):
    config = _config()
    [(page, local)] = _directives()[name]
    options = {**_handler_options(config), **local}
    assert options.get("docstring_style") == "numpy"
    # the subpackages have pages of their own: rendering them here too would show them twice
    assert options.get("show_submodules") is False, f"{page}: show_submodules must be false"
    public = [n for n in __import__(name, fromlist=["_"]).__all__ if not (
        name == "trialwise" and n in PACKAGES)]
    members = options.get("members")
    if isinstance(members, list):
        assert sorted(members) == sorted(public), f"{page}: `members` differs from {name}.__all__"
    else:
        assert members in (None, True), f"{page}: members = {members!r} hides the public names"
        lost = [n for n in public if not _kept_by(options.get("filters", ["!^_[^_]"]), n)]
        assert not lost, f"{page}: the filters {options.get('filters')} hide {lost}"


def _module_file(module: str) -> Path:
    base = SRC.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _defined(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (definitions, assignments, imports), as griffe sees them."""
    names: set[str] = set()
    statements = list(tree.body)
    for node in statements:
        if isinstance(node, (ast.If, ast.Try)):  # `if TYPE_CHECKING:`, `try: import x except ImportError:`
            statements.extend(node.body + node.orelse + [s for h in getattr(node, "handlers", []) for s in h.body])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("name", DOCUMENTED)
def test_griffe_finds_every_public_name(name):
    path = _module_file(name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    [declared] = [node.value for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    assert isinstance(declared, (ast.List, ast.Tuple)), f"{path}: __all__ must be a literal list"
    names = [ast.literal_eval(e) for e in declared.elts]
    assert names == list(__import__(name, fromlist=["_"]).__all__), f"{path}: __all__ is changed at run time"

    imported: dict[str, str] = {}  # public name -> module it is imported from
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("trialwise"):
            for alias in node.names:
                assert alias.asname in (None, alias.name), f"{path}: {alias.name} imported as {alias.asname}"
                imported[alias.name] = node.module or ""
    unseen = [n for n in names if n not in imported]
    assert not unseen, (f"{path}: {unseen} are in __all__ but not imported under `if TYPE_CHECKING:`; "
                        "griffe (the API reference) cannot see them")
    for n, module in imported.items():
        if n not in names:
            continue
        if _module_file(f"{module}.{n}").exists():  # a subpackage or module
            continue
        source = _module_file(module)
        assert source.exists(), f"{path}: imports {n} from {module}, which has no source file"
        assert n in _defined(ast.parse(source.read_text(encoding="utf-8"))), f"{module} does not define {n}"


def test_every_guide_is_in_the_navigation():
    config = _config()
    nav = [path for _, path in _nav_pages(config["nav"])]
    missing = [p for p in nav if not (DOCS / p).is_file()]
    assert not missing, f"mkdocs.yml's nav names pages that do not exist: {missing}"
    pages = [p.relative_to(DOCS).as_posix() for p in sorted(DOCS.rglob("*.md"))]
    left_out = [p for p in pages if p not in nav and not _excluded(config, p)]
    assert not left_out, f"pages of docs/ in no section of mkdocs.yml's nav (nor in exclude_docs): {left_out}"


def test_the_checks_see_a_missing_page_and_a_hiding_filter():
    """The helpers above find what they are meant to find (so the tests can fail)."""
    assert not _kept_by(["!^_[^_]", "!^plot_"], "plot_leaderboard")
    assert _kept_by(["!^_[^_]", "!^__(all|version)__$"], "error_consistency")
    assert not _kept_by(["!^_[^_]", "!^__(all|version)__$"], "__all__")
    nav = {"API reference": ["api/index.md", {"trialwise.ec": "api/ec.md"}]}
    assert _nav_pages([{"Home": "index.md"}, nav]) == [
        (("Home",), "index.md"), (("API reference",), "api/index.md"), (("API reference", "trialwise.ec"), "api/ec.md")]
