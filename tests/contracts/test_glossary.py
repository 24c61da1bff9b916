"""Every public signature speaks the glossary (docs/glossary.md): names, kinds, defaults."""

from __future__ import annotations

import ast
import collections
import inspect
import re
import types
from pathlib import Path

import trialwise as tw

GLOSSARY = Path(__file__).parents[2] / "docs" / "glossary.md"
REQUIRED = object()
TUPLE = object()  # "a tuple": any tuple default (the axes and method lists of a validity study)


def _table_rows():
    """``[(names, kinds, allowed defaults or None = any)]``, one per row of the glossary's argument tables."""
    rows = []
    for line in GLOSSARY.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[1] not in ("data", "option", "data or option"):
            continue
        names = re.findall(r"`([a-z_0-9]+)`", cells[0])
        kinds = frozenset(cells[1].split(" or "))
        text = cells[2]
        allowed: list | None = []
        if text.startswith(("see ", "any", "function's own")):
            allowed = None  # the default is the function's own
        else:
            if "required" in text:
                allowed.append(REQUIRED)
            if "a tuple" in text:
                allowed.append(TUPLE)
            for value in re.findall(r"`([^`]*)`", text):
                # the glossary's literals: "x" (taken verbatim, backslashes included), 0.95, None, ("A", "B")
                allowed.append(value[1:-1] if value[:1] == value[-1:] == '"' else ast.literal_eval(value))
        rows.append((names, kinds, allowed))
    return rows


def _rows():
    """``{name: [(kinds, allowed defaults or None = any)]}``: the rows each name stands in."""
    rows = collections.defaultdict(list)
    for names, kinds, allowed in _table_rows():
        for name in names:
            rows[name].append((kinds, allowed))
    return rows


def _public_callables():
    modules = [tw] + [getattr(tw, name) for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType)]
    seen = {}
    for module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                seen[f"{module.__name__}.{name}"] = obj
            elif inspect.isclass(obj):
                members = {k: v for k, v in vars(obj).items() if not k.startswith("_") and inspect.isfunction(v)}
                if "__init__" in vars(obj) and not hasattr(obj, "__dataclass_fields__"):
                    members["__init__"] = obj.__init__
                for k, v in members.items():
                    seen[f"{module.__name__}.{name}.{k}"] = v
    return seen


CALLABLES = _public_callables()
ROWS = _rows()


def _parameters():
    for where, fn in CALLABLES.items():
        for p in inspect.signature(fn).parameters.values():
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                yield where, p


def test_the_glossary_parses():
    assert len(ROWS) > 60 and len(CALLABLES) > 100
    assert ROWS["confidence_level"] == [({"option"}, [0.95])]
    assert ROWS["truth"] == [({"data", "option"}, [None])]
    assert ROWS["n"] == [({"data", "option"}, [REQUIRED, TUPLE, None])]


def test_each_name_stands_in_one_row():
    """One meaning per name: a name in two rows of the glossary has two meanings (rename one)
    or one meaning written twice (merge the rows)."""
    counts = collections.Counter(name for names, _, _ in _table_rows() for name in names)
    twice = sorted(name for name, k in counts.items() if k > 1)
    assert not twice, f"names that stand in more than one row of docs/glossary.md: {twice}"


def test_every_shared_name_is_in_the_glossary():
    uses = collections.defaultdict(set)
    for where, p in _parameters():
        uses[p.name].add(where)
    missing = {name: sorted(w) for name, w in uses.items() if len(w) > 1 and name not in ROWS}
    assert not missing, f"names shared by several public functions but not in docs/glossary.md: {missing}"


def test_every_glossary_name_has_its_kind_and_default():
    wrong = []
    for where, p in _parameters():
        if p.name not in ROWS:
            continue
        default = REQUIRED if p.default is inspect.Parameter.empty else p.default
        kind = "option" if p.kind is p.KEYWORD_ONLY else "data"
        ok = any(kind in kinds and (allowed is None or any(_matches(default, a) for a in allowed))
                 for kinds, allowed in ROWS[p.name])
        if not ok:
            wrong.append(f"{where}({p.name}: {kind}, default {p.default!r})")
    assert not wrong, "signatures that contradict docs/glossary.md:\n" + "\n".join(wrong)


def _matches(default, allowed) -> bool:
    if allowed is REQUIRED or default is REQUIRED:
        return default is allowed
    if allowed is TUPLE:
        return isinstance(default, tuple)
    return default is allowed or default == allowed


def test_randomness_is_always_keyword_rng_none():
    for where, p in _parameters():
        if p.name in ("rng", "seed", "random_state"):
            assert (p.name, p.kind, p.default) == ("rng", p.KEYWORD_ONLY, None), where
