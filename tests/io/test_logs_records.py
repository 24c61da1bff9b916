"""The checks every evaluation-log reader shares (``trialwise.io.logs.records.assemble``): replicates."""

import warnings

import pytest

from trialwise._core.errors import InvalidValueError
from trialwise.io.logs.records import REPLICATE_COLUMN, Record, Tally, assemble


def _record(subject, image, response, replicate=None, where="log:1"):
    return Record("exp", "task", subject, image, "0", response, 2, None, None, where, replicate=replicate)


def _assemble(records):
    tally = Tally()
    tally.records = len(records)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return assemble(records, tally, source="test", unaligned="error", clusters=None,
                        options_field="choices", truth_field="target")


def test_repeated_runs_are_kept_as_numbered_replicates():
    records = [_record(m, i, r, e) for m in ("a", "b") for i in ("q1", "q2") for e, r in ((2, "1"), (1, "0"))]
    trials = _assemble(records)
    assert len(trials) == 8
    assert list(trials[REPLICATE_COLUMN][:2]) == [1, 2]  # sorted by replicate within a model's item
    assert list(trials["correct"][:2]) == [True, False]


def test_one_run_per_item_has_no_replicate_column():
    trials = _assemble([_record(m, "q1", "0", 1) for m in ("a", "b")])
    assert REPLICATE_COLUMN not in trials
    assert REPLICATE_COLUMN not in _assemble([_record(m, "q1", "0") for m in ("a", "b")])


def test_the_same_replicate_twice_is_a_duplicate_naming_it():
    with pytest.raises(InvalidValueError, match=r"log:2: duplicate document: .* in replicate 3 at log:1"):
        _assemble([_record("a", "q1", "0", 3, "log:1"), _record("a", "q1", "1", 3, "log:2")])


def test_a_single_run_mixed_with_replicates_is_refused():
    with pytest.raises(InvalidValueError, match=r"both as one run \(log:1\) and as a replicate"):
        _assemble([_record("a", "q1", "0", None, "log:1"), _record("a", "q1", "1", 2, "log:2")])
