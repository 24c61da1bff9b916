"""Caveats of compare() and ensemble_recommendation(): in the results, at most one warning per kind, thread-safe."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import trialwise as tw
from trialwise.comparison import _caveats
from trialwise.comparison._caveats import caveat, collecting


def _degenerate():
    """Two classifiers that never disagree: McNemar, Q, Bowker and EC all hit their documented edge."""
    y = np.array([0, 1, 2] * 20)
    a = y.copy()
    a[:6] = (a[:6] + 1) % 3
    return y, a, a.copy()


def _regular():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 600)
    a = np.where(rng.random(600) < 0.8, y, rng.integers(0, 3, 600))
    b = np.where(rng.random(600) < 0.7, y, rng.integers(0, 3, 600))
    return y, a, b


def test_no_process_global_warning_state_in_the_comparison_package():
    for path in (Path(tw.__file__).parent / "comparison").glob("*.py"):
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith(("#", '"')))
        assert "catch_warnings(" not in code, path.name


def test_compare_notes_its_caveats_and_warns_once_per_kind():
    y, a, b = _degenerate()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = tw.compare(y, a, b, rng=0, n_resamples=99)
    kinds = [w.category for w in caught]
    assert len(kinds) == len(set(kinds)), [str(w.message) for w in caught]    # at most one per kind
    degenerate = [str(w.message) for w in caught if w.category is tw.DegenerateDataWarning]
    assert len(degenerate) == 1 and degenerate[0].startswith("compare: ")
    assert degenerate[0].count("McNemar: no item") == 1                        # five variants, one sentence
    assert "never disagree" in degenerate[0] and "Yule's Q" in degenerate[0]
    assert all(Path(w.filename).resolve() == Path(__file__).resolve() for w in caught)   # points at the caller
    for m in ("mcnemar-exact", "mcnemar-permutation"):
        assert rep[m].notes[0] == "no discordant items" and rep[m].notes[-1].kind == "warning"
    assert rep["bowker"].notes[0] == "no disagreements"
    assert "forces Q" in rep["yules-q"].notes[0]
    assert any("no discordant items" in r for r in rep.recommendation.reasons)


def test_error_consistency_row_equals_the_standalone_function_and_carries_its_caveat():
    y, a, b = _degenerate()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        rep = tw.compare(y, a, b, rng=3, n_resamples=500)
        ca, cb = a == y, b == y
        gen = np.random.default_rng(3)
        for m in ("exact", "mid-p", "asymptotic", "corrected", "permutation"):   # the draws compare makes first
            tw.comparison.mcnemar(y, a, b, method=m, n_resamples=500, rng=gen)
        alone = tw.error_consistency(ca, cb, n_resamples=500, rng=gen)
    row = rep["error-consistency"]
    assert row.statistic == alone.statistic and row.pvalue == alone.pvalue
    assert tuple(row.confidence_interval) == tuple(alone.confidence_interval)
    coverage = [n for n in alone.notes if n.kind == "coverage"]
    assert coverage and coverage[0] in row.notes


def test_ensemble_recommendation_reports_degenerate_checkpoints_in_its_reasons_without_warning():
    y, a, b = _degenerate()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rec = tw.comparison.ensemble_recommendation(y, a, b)
    assert caught == []
    assert "(no discordant items)" in rec.reasons[0]
    assert "forces Q" in rec.reasons[1]


def test_two_threads_calling_compare_each_get_their_own_caveats():
    data = {"degenerate": _degenerate(), "regular": _regular()}
    reports, errors = {}, []
    start = threading.Barrier(2)

    def run(name):
        try:
            start.wait()
            for _ in range(3):
                reports.setdefault(name, []).append(tw.compare(*data[name], rng=0, n_resamples=99))
        except Exception as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    with warnings.catch_warnings(record=True) as caught:     # the test's own; the library uses none
        warnings.simplefilter("always")
        threads = [threading.Thread(target=run, args=(name,)) for name in data]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    for rep in reports["degenerate"]:
        assert rep["mcnemar-exact"].notes[0] == "no discordant items"
        assert rep["bowker"].notes[0] == "no disagreements"
    for rep in reports["regular"]:
        assert all(n.kind != "warning" for r in rep.results for n in r.notes), [r.method for r in rep.results
                                                                               if r.notes and r.notes[-1].kind]
        assert rep["mcnemar-exact"].notes[0].startswith("two-sided binomial")
    # the degenerate thread warned once per kind per call; the regular one never
    degenerate = [w for w in caught if w.category is tw.DegenerateDataWarning]
    assert len(degenerate) == 3 and all("never disagree" in str(w.message) for w in degenerate)


def test_the_collector_belongs_to_one_thread():
    """Interleave two threads step by step: each collector sees only its own thread's caveats."""
    steps = [threading.Event() for _ in range(4)]
    seen = {}

    def first():
        with collecting() as mine:
            caveat("from the first thread", tw.DegenerateDataWarning)
            steps[0].set()
            steps[1].wait(5)
            caveat("first again", tw.SparseTableWarning)
            steps[2].set()
        seen["first"] = list(mine)

    def second():
        steps[0].wait(5)
        with collecting() as mine:
            steps[1].set()
            steps[2].wait(5)
            caveat("from the second thread", tw.DegenerateDataWarning)
        seen["second"] = list(mine)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["first"] == [(tw.DegenerateDataWarning, "from the first thread"),
                             (tw.SparseTableWarning, "first again")]
    assert seen["second"] == [(tw.DegenerateDataWarning, "from the second thread")]
    assert _caveats._SINK.get() is None                                        # nothing left behind here


def test_outside_a_collector_a_caveat_is_one_ordinary_warning():
    with pytest.warns(tw.DegenerateDataWarning, match="never disagree") as record:
        tw.comparison.bowker_test(["a", "b"], ["a", "b"])
    assert len(record) == 1
