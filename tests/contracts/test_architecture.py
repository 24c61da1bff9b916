"""The structure of the package, read from its source (issue 15, "Done when").

* (a) No private name crosses a module boundary. A module imports from another module of
  trialwise only names without a leading underscore, and reads no ``module._name``
  attribute of an imported module. A private *module* (``trialwise._core``,
  ``trialwise.plot._common``, ``trialwise.comparison._caveats``, ...) may be imported only
  from inside the package that holds it, and only its public names; ``trialwise._core``
  sits at the top, so every module may use its API (listed in its docstring).
* (b) The import graph of the modules of trialwise has no cycle. Every import counts,
  including those inside functions and under ``if TYPE_CHECKING:``, so a function-level
  import cannot hide a cycle. ``trialwise._core`` imports nothing else from trialwise.
* (c) A module over 500 lines says why in its docstring, in a sentence that gives its
  length in lines — the convention is a paragraph "Why this module is long: about 700
  lines, ..." (any sentence with "long"/"longer" and "lines", or "<number> lines", counts).
  Otherwise split it into small modules named after their concepts.
"""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src"
PACKAGE = SRC / "trialwise"
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str):
    """``(line, imported module, name or None)`` for every import of a trialwise module in ``module``."""
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source.split(".")[0] != "trialwise":
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if target in MODULES:  # `from trialwise import ec`: the module itself
                    yield node.lineno, target, None, alias.asname or alias.name
                else:
                    yield node.lineno, source, alias.name, None
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "trialwise":
                    yield node.lineno, alias.name, None, alias.asname


def _may_import_module(importer: str, target: str) -> bool:
    """A private module is importable from inside the package that holds it."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        package = ".".join(parts[:i])
        if _private(part) and not (importer == package or importer.startswith(package + ".")):
            return False
    return True


def test_no_private_name_is_imported_across_modules():
    problems = []
    for module in MODULES:
        bound = {}  # local name -> trialwise module it refers to
        for line, target, name, local in _imports(module):
            where = f"{module}:{line}"
            if target in MODULES and not _may_import_module(module, target):
                problems.append(f"{where} imports the private module {target} from outside its package")
            if name is not None and _private(name):
                problems.append(f"{where} imports the private name {target}.{name}")
            if name is None and local:
                bound[local] = target
        for node in ast.walk(TREES[module]):
            # `v._show`, `_ec._options`, `tw.planning._joint_cells` on an imported module
            if isinstance(node, ast.Attribute) and _private(node.attr):
                base = ast.unparse(node.value)
                if base in bound or (base.startswith("trialwise.") and base in MODULES):
                    problems.append(f"{module}:{node.lineno} reads the private name {base}.{node.attr}")
    assert not problems, "make the name public in its module (or in trialwise._core):\n" + "\n".join(problems)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module in MODULES:
        for _, target, _, _ in _imports(module):
            if target in MODULES and target != module:
                graph[module].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycle():
    cycles = _cycles(_graph())
    assert not cycles, f"import cycles between trialwise modules (function-level imports included): {cycles}"


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_core_imports_nothing_else_from_trialwise():
    graph = _graph()
    outside = {m: sorted(t for t in graph[m] if not t.startswith("trialwise._core"))
               for m in MODULES if m.startswith("trialwise._core")}
    assert not any(outside.values()), outside


_LENGTH_REASON = re.compile(r"\blong(er)?\b[^.]*?\blines\b|\b\d[\d,]*\s+lines\b", re.IGNORECASE | re.DOTALL)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_long_module_says_why_in_its_docstring(module):
    n_lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    if n_lines <= MAX_LINES:
        return
    doc = ast.get_docstring(TREES[module]) or ""
    assert _LENGTH_REASON.search(doc), (
        f"{module} has {n_lines} lines: split it by concept, or add to its docstring a paragraph "
        "'Why this module is long: about N lines, ...'")


HARD_MAX_LINES = 800


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_800_lines(module):
    """Issue 30: a module over 800 lines is split by concept, whatever its docstring says."""
    n_lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert n_lines <= HARD_MAX_LINES, f"{module} has {n_lines} lines (at most {HARD_MAX_LINES}): split it by concept"


def test_the_tests_mirror_the_packages():
    """Issue 30: every public package has its folder of tests, and every folder of tests is a
    package's (``stats``: ``trialwise._stats``; ``report``, ``cli``: the packages of the HTML reports
    and the command line; ``contracts``: the rules above all packages); no test file lies loose in
    ``tests/``."""
    import trialwise as tw

    tests = Path(__file__).parents[1]
    packages = {name for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType)}
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert packages <= folders, f"packages without tests/<package>/: {sorted(packages - folders)}"
    allowed = packages | {"contracts", "stats", "cli", "report"}
    assert folders <= allowed, f"folders of no package: {sorted(folders - allowed)}"
    assert not list(tests.glob("test_*.py")), "a test file lies loose in tests/: put it in its package's folder"


# ------------------------------------------------------------------ start-up (issue 29, item 9)

def _fresh_python(code: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


HEAVY = ("scipy", "scipy.stats", "pandas", "matplotlib")


def test_import_trialwise_does_not_load_scipy_pandas_or_matplotlib():
    """``import trialwise`` (and its packages) costs about ``import numpy``: the heavy libraries
    are imported by the functions that need them (not timed here: benchmarks/speed/bench_import.py)."""
    out = _fresh_python(
        "import sys, trialwise, trialwise.comparison, trialwise.leaderboards, trialwise.plot, trialwise.io.logs, "
        f"trialwise.datasets\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    assert out.strip() == "[]", f"`import trialwise` loads {out.strip()}"


PUBLIC_PACKAGES = ("ec", "similarity", "planning", "leaderboards", "brainscore", "comparison", "cue_conflict", "io",
                   "datasets", "validity", "plot")


def test_lazy_names_resolve_and_keep_their_meaning():
    """Every public name loads on first use; ``import trialwise.<package>`` works for each public
    package; ``dir()`` lists the public names and no internal module, even after every module of
    the library is imported; a public function stays the function when the modules are imported."""
    out = _fresh_python(f"""
import importlib, pkgutil, types
import trialwise as tw
from trialwise import *
packages = {PUBLIC_PACKAGES!r}
for name in packages:
    importlib.import_module("trialwise." + name)
for info in pkgutil.walk_packages(tw.__path__, "trialwise."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
assert isinstance(tw.agreement, types.FunctionType), tw.agreement
assert isinstance(tw.comparison.mcnemar, types.FunctionType) and isinstance(tw.comparison.auc, types.FunctionType)
assert isinstance(tw.brainscore.ceilings, types.FunctionType) and isinstance(tw.brainscore.i2n, types.FunctionType)
assert sorted(n for n in tw.__all__ if isinstance(getattr(tw, n), types.ModuleType)) == sorted(packages)
for ns in [tw] + [getattr(tw, name) for name in packages]:
    missing = [n for n in ns.__all__ if getattr(ns, n, None) is None]
    assert not missing, (ns.__name__, missing)
    shown = [n for n in dir(ns) if not (n.startswith("__") and n.endswith("__"))]
    assert sorted(shown) == sorted(ns.__all__), (ns.__name__, sorted(set(shown) ^ set(ns.__all__)))
for name in ("resampling", "kappa", "tables", "estimate"):
    try:
        getattr(tw, name)
    except AttributeError as exc:
        assert name in str(exc)
    else:
        raise AssertionError(f"tw.{{name}} is reachable")
print("ok")
""")
    assert out.strip() == "ok"


def _public_namespaces():
    import trialwise as tw

    return [("trialwise", tw)] + [(f"trialwise.{name}", getattr(tw, name)) for name in PUBLIC_PACKAGES]


def test_the_top_level_is_short_and_every_public_object_has_one_path():
    """About 25 names at the top (the first functions, the result base, errors and warnings, the
    packages); every public function and class is exported under exactly one path."""
    import inspect

    import trialwise as tw

    assert len(tw.__all__) <= 32, len(tw.__all__)
    paths: dict[int, list[str]] = {}
    for where, ns in _public_namespaces():
        for name in ns.__all__:
            obj = getattr(ns, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                paths.setdefault(id(obj), []).append(f"{where}.{name}")
    twice = sorted(p for p in paths.values() if len(p) > 1)
    assert not twice, f"public objects under more than one path: {twice}"


def test_no_module_is_named_like_a_public_name_of_its_package():
    """``import trialwise.x.y`` binds ``y`` on the package ``x``; a module named like one of the package's
    public names would replace that name (a function) by the module."""
    clashes = []
    for where, ns in _public_namespaces():
        package_dir = PACKAGE.joinpath(*where.split(".")[1:])
        modules = {p.stem for p in package_dir.glob("*.py")} | {p.name for p in package_dir.iterdir() if p.is_dir()}
        clashes += [f"{where}.{name}" for name in ns.__all__
                    if name in modules and not isinstance(getattr(ns, name), types.ModuleType)]
    assert not clashes, f"modules named like a public name of their package: {clashes}"


# ------------------------------------------------------------------ layers (issue 30)

#: The packages from the bottom up. A module imports only from its own package and from packages
#: of lower layers (function-level imports included): the core at the bottom, the numerics and the
#: readers on it, the statistics of the domains above them, Brain-Score on the leaderboards, the
#: calibration studies above every domain they study, then the figures, the reports and the CLI.
#: The comparison of two classifiers sits above similarity and planning: the paired comparison of
#: two runs (comparison.paired) reports their CAPA and the minimum detectable difference.
LAYERS = (
    ("_core",),
    ("_stats", "io"),
    ("ec", "datasets"),
    ("similarity", "planning", "cue_conflict", "leaderboards"),
    ("comparison", "brainscore"),
    ("validity",),
    ("plot",),
    ("report",),
    ("cli",),
)
#: Imports that reach up a layer, each with its reason (kept inside the function that needs it).
UPWARD = {
    ("trialwise.leaderboards.board", "trialwise.report.leaderboard"):
        "Leaderboard.report(path) writes the HTML report: a convenience that imports the report layer when called",
}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # trialwise/__init__.py: the public names of every layer
    for i, layer in enumerate(LAYERS):
        if parts[1] in layer:
            return i
    raise AssertionError(f"{module}: package {parts[1]!r} is in no layer of LAYERS")


def test_every_package_imports_only_from_lower_layers():
    problems = []
    for module in MODULES:
        own = _layer(module)
        if own is None:
            continue
        for line, target, _, _ in _imports(module):
            other = _layer(target)
            if other is None or target.split(".")[1] == module.split(".")[1]:
                continue
            if other >= own and (module, target) not in UPWARD:
                problems.append(f"{module}:{line} imports {target} (layer {other} ≥ its own {own})")
    assert not problems, "\n".join(problems)


def test_the_layer_check_sees_an_upward_import():
    assert _layer("trialwise.ec.pair") < _layer("trialwise.report.page") < _layer("trialwise.cli.app")
    assert _layer("trialwise._core.results") == 0 and _layer("trialwise") is None


def test_a_name_asked_for_in_the_wrong_place_says_where_it_is():
    """``tw.kappa_bounds`` (a name of a package, not of the top level) is an AttributeError that names
    its one path; an unknown name just says it is unknown; neither loads scipy or pandas."""
    out = _fresh_python("""
import sys
import trialwise as tw
for name in ("kappa_bounds", "Leaderboard", "no_such_name"):
    try:
        getattr(tw, name)
    except AttributeError as exc:
        print(exc)
print(sorted(m for m in ("scipy", "pandas") if m in sys.modules))
""")
    lines = out.strip().splitlines()
    assert lines[0].endswith("has no attribute 'kappa_bounds'; it is trialwise.ec.kappa_bounds"), lines[0]
    assert lines[1].endswith("; it is trialwise.leaderboards.Leaderboard"), lines[1]
    assert lines[2] == "module 'trialwise' has no attribute 'no_such_name'" and lines[3] == "[]", lines


# --------------------------------------------------------------------------- one Wald interval, one p-value format

#: The normal quantile of a confidence level, Φ⁻¹(1/2 + level/2) or Φ⁻¹(1 − (1 − level)/2), written out.
_LEVEL_QUANTILE = re.compile(r"(norm\.ppf|ndtri)\(\s*(0\.5\s*\+|1\s*-\s*\(1\s*-)|norm\.interval\(")
#: An f-string field that formats a p-value itself (``{pvalue:.3g}``, ``{row['pvalue']:.3f}``, ``{mcnemar_p:.2g}``).
_PVALUE_FIELD = re.compile(r"pvalue|(^|\.)\w*_p$|^p_\w+\[")


def _own_quantiles(source: str) -> list[tuple[int, str]]:
    return [(i, line.strip()) for i, line in enumerate(source.splitlines(), 1)
            if _LEVEL_QUANTILE.search(line) and not line.lstrip().startswith(("#", ">>>"))]


def _own_pvalue_formats(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            expr = ast.unparse(node.value)
            if _PVALUE_FIELD.search(expr):
                found.append((node.lineno, f"{{{expr}:{ast.unparse(node.format_spec)[2:-1]}}}"))
    return found


def test_every_wald_interval_and_normal_quantile_of_a_level_is_the_one_in_intervals():
    """``estimate ± z·SE`` is ``_stats.intervals.wald_interval``, its z ``normal_quantile(level)``: no module
    writes Φ⁻¹(1/2 + level/2) itself (power formulas of a significance level α are not confidence levels)."""
    found = [f"{name}:{line}: {text}" for name, path in MODULES.items() if name != "trialwise._stats.intervals"
             for line, text in _own_quantiles(path.read_text(encoding="utf-8"))]
    assert not found, "use trialwise._stats.intervals.wald_interval / normal_quantile:\n" + "\n".join(found)


def test_every_pvalue_is_formatted_by_format_pvalue():
    """Results, reports, the command line and figures print p-values with ``_core.format.format_pvalue``."""
    found = [f"{name}:{line}: {text}" for name, tree in TREES.items() if name != "trialwise._core.format"
             for line, text in _own_pvalue_formats(tree)]
    assert not found, "use trialwise._core.format.format_pvalue:\n" + "\n".join(found)


def test_the_checks_of_one_wald_interval_and_one_pvalue_format_see_their_own_versions():
    source = ("z = stats.norm.ppf(0.5 + level / 2)\nz = ndtri(1 - (1 - level) / 2)\nz = ndtri(1 - alpha / 2)\n"
              "t = f\"p = {res.pvalue:.3g}, {row['pvalue']:.3f}, {mcnemar_p:.2g}, {p_base[a]:.3g}, {p_copy}, {n:.3g}\"\n")
    assert [line for line, _ in _own_quantiles(source)] == [1, 2]
    assert [text for _, text in _own_pvalue_formats(ast.parse(source))] == [
        "{res.pvalue:.3g}", "{row['pvalue']:.3f}", "{mcnemar_p:.2g}", "{p_base[a]:.3g}"]


# ------------------------------------------------------------------ one thread pool, one block driver (issue 30)

#: The pools of the standard library; only trialwise._core.threads (map_threads) may start one.
POOLS = ("ThreadPoolExecutor", "ProcessPoolExecutor")
POOL_MODULES = ("concurrent.futures", "multiprocessing")


def _pool_uses(tree: ast.AST) -> list[str]:
    """Where a module imports a pool module or names a pool class (strings and docstrings aside)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith(POOL_MODULES)]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(POOL_MODULES):
            found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Name) and node.id in POOLS:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in POOLS:
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_only_the_thread_module_starts_a_pool():
    """Every parallel loop runs through ``trialwise._core.threads.map_threads`` (its budget, order,
    errors, Ctrl-C and BLAS rule in one place)."""
    problems = {m: _pool_uses(tree) for m, tree in TREES.items() if m != "trialwise._core.threads"}
    problems = {m: p for m, p in problems.items() if p}
    assert not problems, f"use trialwise._core.threads.map_threads instead of a pool of your own: {problems}"
    assert _pool_uses(TREES["trialwise._core.threads"]), "the check no longer sees the one pool it allows"


def test_the_pool_check_sees_every_way_of_starting_a_pool():
    for code in ("from concurrent.futures import ThreadPoolExecutor", "import concurrent.futures as cf",
                 "import multiprocessing", "from multiprocessing.pool import ThreadPool",
                 "ex = futures.ProcessPoolExecutor(2)"):
        assert _pool_uses(ast.parse(code)), code
    assert not _pool_uses(ast.parse('"""ThreadPoolExecutor in a docstring"""\nimport threading'))


def test_only_the_block_driver_runs_blocks_on_dask():
    """The bootstraps that run in blocks go through ``trialwise._stats.blocks.run_blocks``: it alone
    sends blocks to a Dask cluster (``map_blocks``)."""
    importers = sorted({m for m in MODULES for _, t, name, _ in _imports(m)
                        if t == "trialwise._stats.distributed" and name == "map_blocks"})
    assert importers == ["trialwise._stats.blocks"], importers
    users = {m for m in MODULES for _, t, name, _ in _imports(m) if t == "trialwise._stats.blocks" and name == "run_blocks"}
    assert {"trialwise.ec.pairwise", "trialwise.similarity.pairwise", "trialwise.leaderboards.bootstrap",
            "trialwise.brainscore.behavioral"} <= users, users
