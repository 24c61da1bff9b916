"""The guard for refactors: every seeded public output equals ``tests/contracts/golden/golden.json``.

Numbers must agree to 1e-12 (relative and absolute), booleans and short strings exactly,
and the set of warning classes a case raises must stay the same. Moving a result class or
renaming an attribute must not change a number; when an attribute is renamed, map the old
path segment to the new one in ``RENAMED`` (the golden file keeps the old names). A number
may change only for a named bug fix: regenerate that case with
``python tests/contracts/golden/cases.py CASE`` and say so in the commit message.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "golden"))
import cases  # noqa: E402

GOLDEN = json.loads(cases.GOLDEN.read_text())
TOL = 1e-12

# old path segment -> new path segment, for attributes renamed by a refactor
RENAMED: dict[str, str] = {
    # CopyModelFit: kappa -> statistic, kappa_interval -> confidence_interval (the interval first)
    ".kappa_interval.": ".confidence_interval.",
    ".copy_model.kappa": ".copy_model.statistic",
    ".copy_decomposition_b.kappa": ".copy_decomposition_b.statistic",
    # CIWidthResult: low/high -> confidence_interval.low/.high, mean -> statistic
    ".ci_width.low[": ".ci_width.confidence_interval.low[",
    ".ci_width.high[": ".ci_width.confidence_interval.high[",
    ".ci_width.mean[": ".ci_width.statistic[",
    ".at_n.low[": ".at_n.confidence_interval.low[",
    ".at_n.high[": ".at_n.confidence_interval.high[",
    ".at_n.mean[": ".at_n.statistic[",
    ".plan.intervals.low[": ".plan.intervals.confidence_interval.low[",
    ".plan.intervals.high[": ".plan.intervals.confidence_interval.high[",
    ".plan.intervals.mean[": ".plan.intervals.statistic[",
    # ComparisonResult: details -> typed attributes of the result
    ".details.": ".",
}
# the same for a whole last path segment (regex -> replacement)
RENAMED_SEGMENTS: dict[str, str] = {
    # ComparisonResult.note -> notes (the one-line note comes first; the frame's `note` column stays)
    r"^(?!.*methods\[\d+\]\.note$)(.*)\.note$": r"\1.notes[0]",
    r"\.ece$": ".statistic",        # CalibrationCurve.ece -> statistic
    # CopyModel / CopyModelFit: accuracy_ref -> accuracy_reference, reference -> reference_observer
    r"^(\.copy_model|\.copy_decomposition_b)\.accuracy_ref$": r"\1.accuracy_reference",
    r"^(\.copy_model|\.copy_decomposition_b)\.reference$": r"\1.reference_observer",
    r"^\.frame\[accuracy_ref\]": ".frame[accuracy_reference]",
    r"^\.frame\[reference\](\[\d+\])$": r".frame[reference_observer]\1",
    # issue 30, one name per concept: the swaps M behind a p-value are `n_null_resamples` (B stays
    # `n_resamples`); a calibration curve's `strategy` is `bin_strategy`, the argument that sets it
    r"\.n_permutations$": ".n_null_resamples",
    r"\.strategy$": ".bin_strategy",
}

# Caveat attributes merged into the one prose field ``notes`` (issue 15): their empty values
# (None, "") have no counterpart there, and their texts are prose (long texts are not compared).
MERGED_INTO_NOTES = re.compile(r"(?<!\])\.(undefined_reason|coverage_warning|note)(\[\d+\])?$")


def _renamed(path: str) -> str:
    for old, new in RENAMED.items():
        path = path.replace(old, new)
    for old, new in RENAMED_SEGMENTS.items():
        path = re.sub(old, new, path)
    return path


def _expected(case: str) -> dict:
    return {_renamed(k): v for k, v in GOLDEN[case].items()
            if not (MERGED_INTO_NOTES.search(k) and v in (None, ""))}


def _same(expected, got) -> bool:
    if isinstance(expected, float) and isinstance(got, float):
        return math.isclose(expected, got, rel_tol=TOL, abs_tol=TOL)
    return expected == got


def test_every_case_is_in_the_golden_file():
    assert sorted(cases.CASES) == sorted(GOLDEN)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_golden(name):
    got = json.loads(json.dumps(cases.run(cases.CASES[name])))
    expected = _expected(name)
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

    import trialwise._stats.kappa as kappa

    original = kappa.kappa_from_counts

    def nudged(*args, **kwargs):
        return np.nextafter(original(*args, **kwargs), np.inf) * (1 + 1e-9)

    monkeypatch.setattr(cases.tw.ec, "kappa_from_counts", nudged)
    got = json.loads(json.dumps(cases.run(cases.CASES["kappa_functions"])))
    assert any(not _same(v, got.get(k)) for k, v in GOLDEN["kappa_functions"].items())
