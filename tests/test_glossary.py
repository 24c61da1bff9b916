"""Every public signature speaks the glossary (docs/glossary.md): names, kinds, defaults."""

from __future__ import annotations

import ast
import collections
import inspect
import re
import types
import warnings
from pathlib import Path

import pytest

import trialwise as tw

GLOSSARY = Path(__file__).parents[1] / "docs" / "glossary.md"
DEPRECATED = {"n_permutations": "n_resamples", "accuracy_ref": "accuracy_reference", "strategy": "bin_strategy"}
REQUIRED = object()


def _rows():
    """``{name: [(kind, allowed defaults or None = any)]}`` from the glossary's tables."""
    rows = collections.defaultdict(list)
    for line in GLOSSARY.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[1] not in ("data", "option"):
            continue
        names = re.findall(r"`([a-z_0-9]+)`", cells[0])
        text = cells[2]
        allowed: list | None = []
        if text.startswith(("see ", "any", "a tuple", "function's own")):
            allowed = None  # the default is the function's own
        elif "required" in text:
            allowed.append(REQUIRED)
        for value in re.findall(r"`([^`]*)`", text) if allowed is not None else ():
            # the glossary's literals: "x" (taken verbatim, backslashes included), 0.95, None, ("A", "B")
            allowed.append(value[1:-1] if value[:1] == value[-1:] == '"' else ast.literal_eval(value))
        for name in names:
            rows[name].append((cells[1], allowed))
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
    assert ROWS["confidence_level"] == [("option", [0.95])]


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
        ok = any(kind == k and (allowed is None or any(default is a or (a is not REQUIRED and default == a)
                                                       for a in allowed))
                 for k, allowed in ROWS[p.name])
        if not ok:
            wrong.append(f"{where}({p.name}: {kind}, default {p.default!r})")
    assert not wrong, "signatures that contradict docs/glossary.md:\n" + "\n".join(wrong)


def test_randomness_is_always_keyword_rng_none():
    for where, p in _parameters():
        if p.name in ("rng", "seed", "random_state"):
            assert (p.name, p.kind, p.default) == ("rng", p.KEYWORD_ONLY, None), where


def test_no_signature_uses_a_deprecated_name():
    used = [f"{where}({p.name})" for where, p in _parameters() if p.name in DEPRECATED]
    assert not used


@pytest.mark.parametrize("old,new", sorted(DEPRECATED.items()))
def test_deprecated_names_still_work_with_a_future_warning(old, new):
    wrapped = [(w, fn) for w, fn in CALLABLES.items() if old in getattr(fn, "__renamed_parameters__", {})]
    assert wrapped, f"no public function accepts the deprecated `{old}` any more"
    for where, fn in wrapped:
        assert fn.__renamed_parameters__[old] == new
        assert new in inspect.signature(fn).parameters, where


def test_a_deprecated_name_warns_and_is_passed_on():
    import numpy as np

    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    p = np.array([0.2, 0.7, 0.4, 0.9, 0.6, 0.1, 0.8, 0.3])
    with pytest.warns(FutureWarning, match="`strategy` is deprecated .* use `bin_strategy`"):
        old = tw.comparison.calibration_curve(y, p, strategy="quantile", n_bins=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = tw.comparison.calibration_curve(y, p, bin_strategy="quantile", n_bins=2)
    assert old.to_frame().equals(new.to_frame())
    with pytest.raises(TypeError, match="pass `bin_strategy` only"):
        tw.comparison.calibration_curve(y, p, strategy="quantile", bin_strategy="quantile")
