"""The guard for refactors: every seeded public output equals ``tests/golden/golden.json``.

Numbers must agree to 1e-12 (relative and absolute), booleans and short strings exactly,
and the set of warning classes a case raises must stay the same. Moving a result class or
renaming an attribute must not change a number; when an attribute is renamed, map the old
path segment to the new one in ``RENAMED`` (the golden file keeps the old names). A number
may change only for a named bug fix: regenerate that case with
``python tests/golden/cases.py CASE`` and say so in the commit message.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
import cases  # noqa: E402

GOLDEN = json.loads(cases.GOLDEN.read_text())
TOL = 1e-12

# old path segment -> new path segment, for attributes renamed by a refactor
RENAMED: dict[str, str] = {}


def _renamed(path: str) -> str:
    for old, new in RENAMED.items():
        path = path.replace(old, new)
    return path


def _same(expected, got) -> bool:
    if isinstance(expected, float) and isinstance(got, float):
        return math.isclose(expected, got, rel_tol=TOL, abs_tol=TOL)
    return expected == got


def test_every_case_is_in_the_golden_file():
    assert sorted(cases.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_golden(name):
    got = json.loads(json.dumps(cases.run(cases.CASES[name])))
    expected = {_renamed(k): v for k, v in GOLDEN[name].items()}
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    changed = [(k, expected[k], got[k]) for k in expected if k in got and not _same(expected[k], got[k])]
    assert not changed, f"{len(changed)} values changed, e.g. {changed[:5]}"
    assert not missing, f"{len(missing)} values gone, e.g. {missing[:5]}"
    # new public attributes may appear (a refactor can add fields); they are reported, not failed on
    if extra:
        print(f"{name}: {len(extra)} new values, e.g. {extra[:3]}")


def test_the_guard_sees_a_change(monkeypatch):
    """A one-ulp change in a kernel is caught (the guard is not vacuous)."""
    import numpy as np

    import trialwise.kappa as kappa

    original = kappa.kappa_from_counts

    def nudged(*args, **kwargs):
        return np.nextafter(original(*args, **kwargs), np.inf) * (1 + 1e-9)

    monkeypatch.setattr(cases.tw, "kappa_from_counts", nudged)
    got = json.loads(json.dumps(cases.run(cases.CASES["kappa_functions"])))
    assert any(not _same(v, got.get(k)) for k, v in GOLDEN["kappa_functions"].items())
