"""Every public result class keeps one contract (issue 15): one vocabulary, one repr line,
``summary()`` text, ``to_frame()`` with the class's fixed columns, ``to_dict()`` JSON-safe.

The five are derived from the fields' metadata (``field(metadata=shown(...))``, issue 30): every
labelled field has its line in ``summary()``, every field marked for the repr is in it, and a
class overrides one of them only where the layout is its own (:data:`OVERRIDES`, saying why).

The classes are discovered (subclasses of :class:`trialwise.Result` reachable from the public
namespaces, and every public subclass in the tree); each needs a factory below that makes
small instances of it — a new result class without one fails
:func:`test_every_public_result_class_has_a_factory`.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from html import escape
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise import comparison as cmp
from trialwise._core.format import format_number
from trialwise._core.results import VOCABULARY, ConfidenceInterval, Result
from trialwise._core.shown import SHOWN, shown

NAMESPACES = (tw, *(getattr(tw, name) for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType)))
#: Result classes another part of issue 15 makes subclasses of Result (the benchmark package).
BENCHMARK_RESULTS = ("BenchmarkDifferenceResult", "CeilingResult", "BrainScoreResult", "Leaderboard", "KendallTau",
                     "ExperimentBreakdown", "ConditionBreakdown")


def _subclasses(cls: type) -> set[type]:
    """The subclasses the library defines: a class its module holds under its name (not one a
    doctest defined in a module's namespace, such as the toy result of trialwise._core.results)."""
    out = set()
    for sub in cls.__subclasses__():
        out |= _subclasses(sub)
        if getattr(sys.modules.get(sub.__module__), sub.__name__, None) is sub:
            out.add(sub)
    return out


@functools.cache
def _import_every_module() -> None:
    """The namespaces load their names lazily: import every module so every subclass exists."""
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(tw.__path__, "trialwise."):
        if not info.name.startswith("trialwise.cli"):  # the command line defines no results
            importlib.import_module(info.name)


def public_result_classes() -> dict[str, type]:
    _import_every_module()
    found = {}
    for ns in NAMESPACES:
        for name in ns.__all__:
            obj = getattr(ns, name)
            if isinstance(obj, type) and issubclass(obj, Result) and obj is not Result and not name.startswith("_"):
                found[obj.__name__] = obj
    for cls in _subclasses(Result):
        if not cls.__name__.startswith("_") and cls.__module__.startswith("trialwise"):
            found[cls.__name__] = cls
    return found


# ------------------------------------------------------------------ small inputs (cached)

@functools.cache
def _pair():
    a, b = tw.ec.CopyModel(0.35, 0.8, 0.7).simulate_trials(120, rng=1)
    return np.asarray(a, bool), np.asarray(b, bool)


@functools.cache
def _ec():
    return (tw.error_consistency(counts=[[40, 12], [9, 19]], n_resamples=200, rng=0),
            tw.error_consistency(*_pair(), ci_method="analytic", rng=0))


@functools.cache
def _labels(k=3, n=150, seed=5):
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    la = g.normal(0, 1, (n, k))
    la[np.arange(n), y] += 1.5
    lb = 0.6 * la + g.normal(0, 1, (n, k))
    lb[np.arange(n), y] += 0.5
    pa, pb = (np.exp(x) / np.exp(x).sum(1, keepdims=True) for x in (la, lb))
    return y, pa.argmax(1), pb.argmax(1), pa, pb


@functools.cache
def _compare(k=3):
    y, a, b, pa, pb = _labels(k)
    return tw.compare(y, a, b, pa, pb, n_resamples=99, rng=0)


@functools.cache
def _mvh():
    t = tw.datasets.model_vs_human()
    keep = t.experiment.isin(["cue-conflict", "edge"])
    return t[keep & ((t.observer_type == "human") | t.subject.isin(["resnet50", "clip-16", "alexnet"]))]


@functools.cache
def _leaderboard():
    return tw.leaderboard(_mvh(), n_resamples=60, rng=0)


@functools.cache
def _bench():
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge"])
    return tw.brainscore.BehavioralBenchmark(_mvh(), proto, n_resamples=60, n_splits=4, rng=0)


@functools.cache
def _shape_bias():
    return tw.shape_bias(tw.datasets.texture_vs_shape("cue-conflict"), n_resamples=60, rng=0)


def _grid(kappas):
    return tw.validity.study_grid(n=(60,), accuracies=(0.7, 0.9), kappas=kappas)


# ------------------------------------------------------------------ one factory per class

FACTORIES = {
    "ErrorConsistencyResult": lambda: [*_ec(), tw.error_consistency(counts=[[40, 0], [0, 0]], rng=0,
                                                                    n_resamples=50)],
    "PairwiseErrorConsistencyResult": lambda: [
        tw.pairwise_error_consistency(np.random.default_rng(3).random((80, 4)) < 0.7, n_resamples=100, rng=0),
        tw.pairwise_error_consistency(np.random.default_rng(4).random((50, 3)) < 0.8, ci_method="analytic",
                                      rng=0)],
    "ModelAgreementResult": lambda: [
        tw.agreement(*_labels()[3:], _labels()[0], n_resamples=100, rng=0),
        tw.agreement(*_labels()[3:], _labels()[0], metric="ec", n_resamples=100, rng=0),
        tw.agreement(*_labels()[3:], metric="choice", clusters=np.arange(150) // 10, n_resamples=100, rng=0)],
    "AgreementDifferenceResult": lambda: [
        tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=100, rng=0).difference(
            "sim/demo-7b", "sim/demo-1b", "sim/demo-13b")],
    "AgreementDifferenceFamily": lambda: [
        tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=500, rng=0).differences(),
        tw.pairwise_agreement(tw.datasets.llm_demo(), metric="choice", n_resamples=500, rng=0).differences(
            adjust="bh", alpha=0.01)],
    "PairwiseAgreementResult": lambda: [
        tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=100, rng=0),
        tw.pairwise_agreement(tw.datasets.llm_demo(), metric="ec", n_resamples=100, rng=0)],
    "ReplicateAccuracyResult": lambda: [
        tw.leaderboards.replicate_accuracy(pd.DataFrame({
            "subject": ["a"] * 6 + ["b"] * 4, "image": ["q1", "q1", "q2", "q2", "q3", "q3", "q1", "q2", "q3", "q3"],
            "replicate": [1, 2, 1, 2, 1, 2, 1, 1, 1, 2],
            "correct": [True, False, True, True, False, False, True, True, False, True]})),
        tw.leaderboards.replicate_accuracy(tw.datasets.llm_demo(), clusters="cluster")],
    "CopyModelFit": lambda: [_ec()[0].copy_model, _ec()[0].copy_decomposition("b")],
    "ErrorConsistencyDifferenceResult": lambda: [tw.error_consistency_difference(
        *_pair(), np.random.default_rng(2).random(120) < 0.75, n_resamples=100, rng=0)],
    "CIWidthResult": lambda: [tw.planning.ci_width([50, 100], 0.75, [0.7, 0.9], 0.3, n_simulations=100, rng=0),
                              tw.planning.ci_width(80, 0.75, 0.75, 0.3, n_simulations=100, rng=0)],
    "PowerResult": lambda: [tw.planning.power_difference(0.2, 0.5, 0.9, 0.75, 0.8, n=[100, 200], n_simulations=100, rng=0)],
    "CopyModelValidation": lambda: [tw.planning.validate_copy_model([60], 0.8, 0.7, 0.4, n_resamples=50, n_simulations=20,
                                                           rng=0)],
    "PlanResult": lambda: [tw.plan_trials(0.15, 0.75, 0.75, 0.5, n_simulations=100, rng=0)],
    "QuestionPowerResult": lambda: [
        tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, n=[100, 300], n_simulations=100, rng=0),
        tw.planning.power_accuracy_difference(0.75, 0.65, paired=False, cluster_size=5, icc=0.1, n_simulations=100, rng=0)],
    "HalfWidthResult": lambda: [tw.planning.accuracy_half_width(0.7, n=[100, 400]),
                                tw.planning.accuracy_half_width(0.7, half_width=0.05, cluster_size=4, icc=0.2)],
    "ClusterDesign": lambda: [tw.planning.estimate_icc(tw.datasets.llm_demo())],
    "CoverageStudy": lambda: [tw.validity.coverage_study(_grid((0.3,)), methods=("jeffreys", "percentile"),
                                                         n_datasets=10, n_resamples=50, rng=0)],
    "TypeOneErrorStudy": lambda: [
        tw.validity.type_one_error_study(_grid((0.0,)), tests=("fisher",), n_datasets=10, n_resamples=49, rng=0),
        tw.validity.difference_test_study(n=(60,), accuracy_reference=(0.8,), accuracies_xy=((0.7, 0.8),),
                                          kappas=(0.3,), tests=("swap",), n_datasets=10, n_resamples=49, rng=0)],
    "BenchmarkCoverageStudy": lambda: [tw.validity.benchmark_coverage_study(
        n_datasets=1, n_resamples=30, n_items=60, rng=0)],
    "ShapeBiasResult": lambda: [_shape_bias()],
    "ShapeBiasDifferenceResult": lambda: [_shape_bias().difference(*list(_shape_bias().table.observer)[:2])],
    "ComparisonResult": lambda: [_compare()["accuracy[A]"], _compare()["error-consistency"]],
    "AgreementResult": lambda: [cmp.disagreement(counts=[[150, 25], [15, 10]]),
                                cmp.cohen_kappa(["a", "a", "b", "b", "c"], ["a", "b", "b", "b", "c"])],
    "SymmetryTestResult": lambda: [cmp.bowker_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]]),
                                   cmp.stuart_maxwell_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]]),
                                   cmp.symmetry_permutation_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]],
                                                                 n_resamples=99, rng=0)],
    "McNemarResult": lambda: [cmp.mcnemar(counts=[[150, 25], [15, 10]]), cmp.yules_q(counts=[[150, 25], [15, 10]])],
    "PairedRunsResult": lambda: [
        cmp.paired_runs(tw.datasets.llm_demo(), "sim/demo-7b", "sim/demo-1b", n_resamples=100, rng=0),
        cmp.paired_runs(tw.datasets.llm_demo(), "sim/demo-7b", "sim/demo-7b-chat", clusters="cluster",
                        n_resamples=100, rng=0)],
    "AUCResult": lambda: [cmp.auc(_labels()[0], _labels()[3]), cmp.delong_test(*_labels(2)[::3], _labels(2)[4])],
    "ScoreResult": lambda: [cmp.brier_score(_labels()[0], _labels()[3]),
                            cmp.expected_calibration_error(_labels()[0], _labels()[3], kind="classwise"),
                            cmp.wilcoxon_test(_labels()[0], _labels()[3], _labels()[4])],
    "CalibrationCurve": lambda: [cmp.calibration_curve(_labels(2)[0], _labels(2)[3]),
                                 cmp.calibration_curve(_labels()[0], _labels()[3], kind="classwise")],
    "EnsembleRecommendation": lambda: [_compare().recommendation, _compare(2).recommendation],
    "ComparisonReport": lambda: [_compare(), _compare(2)],
    # the benchmark package's results (issue 15, item 8)
    "Leaderboard": lambda: [_leaderboard()],
    "KendallTau": lambda: [_leaderboard().kendall_tau],
    "BestSet": lambda: [_leaderboard().best_set(), _leaderboard().best_set(k=2)],
    "WinnerScore": lambda: [_leaderboard().winner()],
    "ExperimentBreakdown": lambda: [_leaderboard().by_experiment()],
    "ConditionBreakdown": lambda: [tw.leaderboards.condition_breakdown(_leaderboard(), n_resamples=60, rng=0)],
    "BenchmarkDifferenceResult": lambda: [_leaderboard().difference("resnet50", "clip-16", n_resamples=60)],
    "CeilingResult": lambda: [_bench().ceiling],
    "BrainScoreResult": lambda: [_bench()(_mvh()[_mvh().subject == "clip-16"])],
    "BenchmarkScores": lambda: [_bench().score_benchmarks(_mvh()[_mvh().subject.isin(["clip-16", "resnet50"])])],
}


def _instances(name: str) -> list:
    with warnings.catch_warnings():
        # degenerate-data and sparse-table warnings of the small inputs are not the subject here
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return FACTORIES[name]()


def test_every_public_result_class_has_a_factory():
    missing = sorted(set(public_result_classes()) - set(FACTORIES))
    assert not missing, f"public result classes without a factory in this file: {missing}"


@pytest.mark.parametrize("name", BENCHMARK_RESULTS)
def test_benchmark_results_are_results(name):
    assert name in public_result_classes(), f"{name} is not a public subclass of trialwise.Result"


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_result_contract(name):
    classes = public_result_classes()
    assert name in classes, f"{name} has a factory but is not a public subclass of trialwise.Result"
    cls = classes[name]
    assert isinstance(cls.frame_columns, tuple) and cls.frame_columns, "frame_columns: a non-empty tuple"
    assert all(isinstance(c, str) for c in cls.frame_columns)
    instances = _instances(name)
    assert instances
    for res in instances:
        assert type(res) is cls, (type(res), cls)
        # one vocabulary
        for attr in VOCABULARY:
            getattr(res, attr)
        assert res.confidence_interval is None or isinstance(res.confidence_interval, ConfidenceInterval)
        assert isinstance(res.notes, tuple) and all(isinstance(n, str) for n in res.notes)
        if res.confidence_level is not None:
            assert 0 < res.confidence_level < 1
        # repr: one line
        text = repr(res)
        assert isinstance(text, str) and "\n" not in text and text.startswith(name)
        # summary(): text
        assert isinstance(res.summary(), str) and res.summary()
        # to_frame(): the class's fixed columns
        frame = res.to_frame()
        assert isinstance(frame, pd.DataFrame)
        assert tuple(frame.columns) == cls.frame_columns
        # to_dict(): JSON-safe (NaN and inf as None)
        d = res.to_dict()
        assert isinstance(d, dict)
        json.dumps(d, allow_nan=False)


_HTML_TAGS = re.compile(r"</?(div|table|caption|strong|thead|tbody|tr|th|td|ul|li|code)( [^<>]*)?>")


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_repr_html(name):
    """What Jupyter shows (issue 29, item 8): an HTML table derived from the fields — a caption
    with the class and the headline, the to_frame() table (at most ~20 rows), the notes; escaped."""
    for res in _instances(name):
        html = res._repr_html_()
        assert isinstance(html, str) and html.startswith("<div")
        assert f"<strong>{name}</strong>" in html
        # the caption is the repr's own line, in the class's words (EC=undefined, not statistic=nan)
        line = repr(res)
        assert line.startswith(f"{name}(") and line.endswith(")")
        assert f"<strong>{name}</strong> {escape(line[len(name) + 1:-1])}</caption>" in html
        # compact: a header row, at most html_max_rows rows and one line counting the rest
        n_rows = len(res.to_frame())
        assert html.count("<tr>") == 1 + min(n_rows, 20) + (n_rows > 20) <= 22
        if n_rows > 20:
            assert f"… {n_rows - 20} more rows" in html
        assert html.count("<li>") == len(res.notes)
        # every text escaped: only our own tags are left as markup
        leftover = _HTML_TAGS.sub("", html)
        assert "<" not in leftover and ">" not in leftover, leftover
        assert re.search(r"&(?!(lt|gt|amp|quot|#x27);)", leftover) is None


def test_repr_html_escapes_names_and_counts_the_rows_it_leaves_out():
    rng = np.random.default_rng(7)
    names = ["<b>bold</b>", "a & b", 'say "hi"'] + [f"o{i}" for i in range(5)]
    data = pd.DataFrame(rng.random((60, len(names))) < 0.7, columns=names)
    res = tw.pairwise_error_consistency(data, n_resamples=50, rng=0)  # 28 pairs
    html = res._repr_html_()
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>" not in html
    assert "a &amp; b" in html and "say &quot;hi&quot;" in html
    assert "… 8 more rows" in html and html.count("<tr>") == 22


def test_to_dict_represents_nan_as_none():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        res = tw.error_consistency(np.ones(40), np.ones(40), rng=0, n_resamples=50, ci_method="percentile")
    assert math.isnan(res.statistic)
    d = res.to_dict()
    assert d["statistic"] is None and d["ci_low"] is None
    assert d["notes"] == [res.notes[0]] and res.notes[0].kind == "undefined"


def test_a_result_without_a_value_answers_none():
    rec = _compare().recommendation
    assert rec.statistic is None and rec.pvalue is None and rec.confidence_interval is None and rec.notes == ()
    with pytest.raises(AttributeError, match="no_such_attribute"):
        rec.no_such_attribute  # noqa: B018


def test_report_lookup_by_key():
    rep = _compare()
    assert rep["mcnemar-exact"] is rep.results[rep.keys().index("mcnemar-exact")]
    assert len(set(rep.keys())) == len(rep.keys())              # keys are unique
    with pytest.raises(KeyError, match="available keys"):
        rep["McNemar (exact)"]                                   # a display label is not a key
    with pytest.raises(KeyError, match="available keys"):
        rep["no such method"]


def test_module_namespaces_are_modules():
    assert all(isinstance(ns, types.ModuleType) for ns in NAMESPACES)


# ------------------------------------------------------------------ derived from the fields' metadata (issue 30)

#: The hand-written repr/summary/to_frame/to_dict of result classes: each a layout that is the class's
#: own, which its docstring says. Shrink this; a new entry needs a reason in the method's docstring.
OVERRIDES = {
    "CopyModelFit": {"to_frame"},                       # one row per quantity of the decomposition
    "EnsembleRecommendation": {"to_frame"},             # one row per checkpoint (a dict)
    "ComparisonReport": {"summary", "to_frame", "to_dict"},  # a report of many results, section by section
    "KendallTau": {"summary"},                          # the one line the leaderboard's summary shows
    "PlanResult": {"to_frame"},                         # the expected-interval table of `intervals`
    "_GridResult": {"__repr__", "to_dict"},             # a grid's arrays: its shape; records of `grid`
    "CoverageStudy": {"summary"},                       # takes the level and band it summarises
    "Leaderboard": {"__repr__", "summary", "to_dict"},  # the ranked table, the best candidate, the table's records
}
_METHODS = ("__repr__", "summary", "to_frame", "to_dict")


def test_hand_written_displays_are_only_the_listed_ones_and_say_why():
    _import_every_module()
    found = {}
    for cls in _subclasses(Result):
        own = {m for m in _METHODS if m in vars(cls)}
        if own and cls.__module__.startswith("trialwise"):
            found[cls.__name__] = own
    assert found == OVERRIDES
    for cls in _subclasses(Result):
        for m in OVERRIDES.get(cls.__name__, ()):
            doc = vars(cls)[m].__doc__ or ""
            assert re.search(r"\bown\b", doc), f"{cls.__name__}.{m}: its docstring does not say why it is its own"


def _labelled(res):
    """``(label, value text)`` of the labelled scalar fields that summary() must show."""
    import dataclasses

    from trialwise._core import shown as shown_module

    out = []
    for f in dataclasses.fields(res):
        spec = f.metadata.get(SHOWN)
        if spec is None or spec.label is None:
            continue
        text = shown_module.value_text(res, f.name, spec, getattr(res, f.name))
        if text:
            out.append((spec.label, text))
    return out


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_every_labelled_field_is_in_the_summary(name):
    """Its line: the label in a column as wide as the longest label needs, then the value (and every note)."""
    for res in _instances(name):
        lines = res.summary().splitlines()
        assert lines[0] and not lines[0].startswith(" ")  # a title
        for note in res.notes:
            assert str(note) in res.summary()
        if "summary" in OVERRIDES.get(name, ()):
            continue
        labelled = _labelled(res)
        longest = max([0] + [len(label) for label, _ in labelled])
        width = 21 if longest <= 20 else longest + 3
        for label, text in labelled:
            mine = [line for line in lines if line[:2 + width] == f"  {label:<{width}}"]
            assert mine, f"{name}: no summary line for {label!r}"
            assert text in mine[0][2 + width:], f"{name}: {label!r} line {mine[0]!r} does not show {text!r}"


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_every_field_marked_for_the_repr_is_in_it(name):
    import dataclasses

    for res in _instances(name):
        if not dataclasses.is_dataclass(res):
            continue
        text = repr(res)
        for f in dataclasses.fields(res):
            spec = f.metadata.get(SHOWN)
            value = getattr(res, f.name)
            if spec is None or not spec.in_repr or value is None or spec.format == "interval" or callable(spec.format):
                continue
            if spec.optional and np.all(np.isnan(np.asarray(value, dtype=float))):
                continue
            name_ = f.name if spec.repr_name is None else spec.repr_name
            if spec.format == "count":
                assert f"{len(value)} {name_}" in text, (name, f.name, text)
            elif name_:
                assert f"{name_}=" in text, (name, f.name, text)
        ci = res.confidence_interval
        marked = [f for f in dataclasses.fields(res) if f.name == "confidence_interval" and SHOWN in f.metadata
                  and f.metadata[SHOWN].in_repr]
        if marked and ci is not None and np.ndim(ci.low) == 0 and not np.isnan(ci.low):
            assert f"[{format_number(ci.low, marked[0].metadata[SHOWN].digits)}, " in text


def test_an_undefined_statistic_reads_undefined_in_repr_and_summary():
    res = _instances("ErrorConsistencyResult")[-1]
    assert math.isnan(res.statistic)
    assert "EC=undefined" in repr(res) and "  EC                   undefined\n" in res.summary()
    assert res.notes[0] in res.summary() and "<li>" in res._repr_html_()


def test_shown_keeps_the_options_of_a_dataclass_field():
    from dataclasses import dataclass, field, fields

    @dataclass(frozen=True, repr=False)
    class Toy(Result):
        statistic: float = field(metadata=shown("estimate", in_repr=True, repr_name="est"))
        confidence_interval: ConfidenceInterval = field(metadata=shown(format="interval", in_repr=True))
        confidence_level: float = field(default=0.9, metadata=shown("level", format="percent"))
        tags: tuple = field(default_factory=tuple, compare=False, metadata=shown("tags", format="count"))
        seed: int | None = field(default=None, kw_only=True, metadata=shown("seed", format=lambda v, r: f"<{v}>"))
        frame_columns = ("statistic", "ci_low", "ci_high", "confidence_level")

    a = Toy(0.5, ConfidenceInterval(0.25, 0.75), seed=7)
    assert a.confidence_level == 0.9 and a.tags == () and a == Toy(0.5, ConfidenceInterval(0.25, 0.75), tags=(1,), seed=7)
    assert {f.name: f.kw_only for f in fields(a)}["seed"] is True
    assert repr(a) == "Toy(est=0.500, 90% CI [0.250, 0.750])"
    assert a.summary().splitlines() == ["Toy", "  estimate             0.500", "  90% CI               [0.250, 0.750]",
                                        "  level                90%", "  tags                 0", "  seed                 <7>"]
    assert a.to_frame().values.tolist() == [[0.5, 0.25, 0.75, 0.9]]
    d = a.to_dict()
    assert d["ci_low"] == 0.25 and d["confidence_interval"] == [0.25, 0.75] and d["seed"] == 7

