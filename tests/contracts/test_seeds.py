"""Results record the seed they used (issue 29, item 7, the API's part).

Every public function that draws random numbers (it takes ``rng=``) records in its result's
``seed`` the seed it used: a fresh integer when ``rng=None`` (the entropy of a new
``numpy.random.SeedSequence``), the integer when one is given, None when the caller passes a
Generator (the caller owns its stream). Passing ``rng=result.seed`` repeats the result bit for
bit. The classes that take ``rng=`` when made (``BehavioralBenchmark`` and the Brain-Score
metrics) record it as ``obj.seed``, and ``rng=obj.seed`` repeats every score they give. Each
function and class needs a case below; a new random public function without one fails
:func:`test_every_random_public_function_has_a_case`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
import trialwise.brainscore
from trialwise import comparison as cmp
from trialwise._core.results import Result
from trialwise._stats.streams import records_seed

# Public callables that take `rng=` but return no result object (nothing to record the seed in):
# simulated data, whose caller seeds them.
NOT_RESULTS = {"CopyModel.simulate", "CopyModel.simulate_trials", "synthetic_2afc", "synthetic_trials",
               "published_intervals"}


@functools.cache
def _pair():
    a, b = tw.ec.CopyModel(0.35, 0.8, 0.7).simulate_trials(120, rng=1)
    return np.asarray(a, bool), np.asarray(b, bool)


@functools.cache
def _labels(k=3, n=150, seed=5):
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    la = g.normal(0, 1, (n, k))
    la[np.arange(n), y] += 1.5
    lb = 0.6 * la + g.normal(0, 1, (n, k))
    pa, pb = (np.exp(x) / np.exp(x).sum(1, keepdims=True) for x in (la, lb))
    return y, pa.argmax(1), pb.argmax(1), pa, pb


@functools.cache
def _mvh():
    t = tw.datasets.model_vs_human("cue-conflict")
    return t[(t.observer_type == "human") | t.subject.isin(["resnet50", "clip-16", "alexnet"])]


@functools.cache
def _shape_bias():
    t = tw.datasets.texture_vs_shape("cue-conflict")
    return tw.shape_bias(t[t.subject.isin(sorted(t.subject.unique())[:3])], n_resamples=40, rng=0)


def _grid(kappas):
    return tw.validity.study_grid(n=(60,), accuracies=(0.7,), kappas=kappas)


_PROTO = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"])
_OST = np.random.default_rng(0).normal(150, 20, (60, 4))
_MAJOR = cmp.symmetry_permutation_test  # (shorter lines below)

#: name -> a call of the function with the given `rng` (small inputs: only the seed matters here)
CASES = {
    "error_consistency": lambda rng: tw.error_consistency(counts=[[40, 12], [9, 19]], n_resamples=100, rng=rng),
    "pairwise_error_consistency": lambda rng: tw.pairwise_error_consistency(
        np.random.default_rng(3).random((60, 4)) < 0.7, n_resamples=100, rng=rng),
    "error_consistency_difference": lambda rng: tw.error_consistency_difference(
        *_pair(), np.random.default_rng(2).random(120) < 0.75, n_resamples=100, rng=rng),
    "agreement": lambda rng: tw.agreement(*_labels()[3:], _labels()[0], n_resamples=100, rng=rng),
    "pairwise_agreement": lambda rng: tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=50, rng=rng),
    "self_agreement": lambda rng: tw.similarity.self_agreement(
        pd.concat([tw.datasets.llm_demo().assign(replicate=r) for r in (1, 2)], ignore_index=True),
        n_resamples=50, rng=rng),
    "ci_width": lambda rng: tw.planning.ci_width(80, 0.75, 0.75, 0.3, n_simulations=100, rng=rng),
    "plan_trials": lambda rng: tw.plan_trials(0.15, 0.75, 0.75, 0.5, n_simulations=100, rng=rng),
    "power_difference": lambda rng: tw.planning.power_difference(0.2, 0.5, 0.9, 0.75, 0.8, n=[100], n_simulations=100,
                                                        rng=rng),
    "validate_copy_model": lambda rng: tw.planning.validate_copy_model([60], 0.8, 0.7, 0.4, n_resamples=30, n_simulations=10,
                                                              rng=rng),
    "power_accuracy_difference": lambda rng: tw.planning.power_accuracy_difference(0.75, 0.7, discordance=0.2, n=[100],
                                                                          n_simulations=100, rng=rng),
    "power_agreement_difference": lambda rng: tw.planning.power_agreement_difference(
        _labels()[3], _labels()[4], _labels()[3][::-1], _labels()[0], n=[100], n_simulations=100, rng=rng),
    "shape_bias": lambda rng: tw.shape_bias(tw.datasets.texture_vs_shape("cue-conflict").head(600), n_resamples=40,
                                            rng=rng),
    "ShapeBiasResult.difference": lambda rng: _shape_bias().difference(
        *list(_shape_bias().table.observer)[:2], n_resamples=40, rng=rng),
    "compare": lambda rng: tw.compare(*_labels(), n_resamples=99, rng=rng),
    "mcnemar": lambda rng: cmp.mcnemar(counts=[[150, 25], [15, 10]], method="permutation", n_resamples=99, rng=rng),
    "paired_runs": lambda rng: cmp.paired_runs(tw.datasets.llm_demo(), "sim/demo-7b", "sim/demo-1b", n_resamples=99,
                                               rng=rng),
    "symmetry_permutation_test": lambda rng: _MAJOR(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]], n_resamples=99,
                                                    rng=rng),
    "leaderboard": lambda rng: tw.leaderboard(_mvh(), protocol=_PROTO, n_resamples=40, rng=rng),
    "condition_breakdown": lambda rng: tw.leaderboards.condition_breakdown(
        tw.leaderboard(_mvh(), protocol=_PROTO, n_resamples=40, rng=0), n_resamples=40, rng=rng),
    "difference_test": lambda rng: tw.leaderboards.difference_test(_mvh(), "clip-16", "resnet50", reference="human",
                                                      protocol=_PROTO, n_resamples=40, rng=rng),
    "i2n": lambda rng: tw.brainscore.i2n(*tw.brainscore.synthetic_2afc(similarity=0.8, rng=1), n_splits=4,
                                         n_resamples=30, rng=rng),
    "i1n": lambda rng: tw.brainscore.i1n(*tw.brainscore.synthetic_2afc(similarity=0.8, rng=1), n_splits=4,
                                         n_resamples=30, rng=rng),
    "ost_correlation": lambda rng: tw.brainscore.ost_correlation(_OST[:, 0] + 5, _OST[:, 1:], n_resamples=50,
                                                                 rng=rng),
    "value_delta": lambda rng: tw.brainscore.value_delta(np.arange(200) % 3 > 0, np.arange(300) % 4 > 0,
                                                         n_splits=20, n_resamples=50, rng=rng),
    "coverage_study": lambda rng: tw.validity.coverage_study(_grid((0.3,)), methods=("jeffreys",), n_datasets=5,
                                                             n_resamples=30, rng=rng),
    "type_one_error_study": lambda rng: tw.validity.type_one_error_study(_grid((0.0,)), tests=("fisher",),
                                                                         n_datasets=5, n_resamples=19, rng=rng),
    "difference_test_study": lambda rng: tw.validity.difference_test_study(
        n=(60,), accuracy_reference=(0.8,), accuracies_xy=((0.7, 0.8),), kappas=(0.3,), tests=("swap",),
        n_datasets=5, n_resamples=19, rng=rng),
    "benchmark_coverage_study": lambda rng: tw.validity.benchmark_coverage_study(n_datasets=1, n_resamples=20,
                                                                                 n_items=40, rng=rng),
}


@functools.cache
def _assemblies():
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, rng=0)
    return tw.brainscore.I2n.assembly(trials, probs), tw.brainscore.I2n.assembly(trials)


def _benchmark_score(rng):
    bench = tw.brainscore.BehavioralBenchmark(_mvh(), _PROTO, n_resamples=30, n_splits=4, rng=rng)
    return bench, bench(_mvh()[_mvh().subject == "clip-16"])


#: Classes that take `rng=` when made: the object records the seed (``obj.seed``) and every score
#: it gives repeats with ``rng=obj.seed``. name -> (make the object, score with it)
CLASS_CASES = {
    "BehavioralBenchmark": lambda rng: _benchmark_score(rng),
    "I2n": lambda rng: (m := tw.brainscore.I2n(n_resamples=30, rng=rng), m(*_assemblies())),
    "I1n": lambda rng: (m := tw.brainscore.I1n(n_resamples=30, rng=rng), m(*_assemblies())),
    "ValueDelta": lambda rng: (m := tw.brainscore.ValueDelta(n_resamples=50, rng=rng),
                               m(np.arange(200) % 3 > 0, np.arange(300) % 4 > 0)),
    "OSTCorrelation": lambda rng: (m := tw.brainscore.OSTCorrelation(n_resamples=50, rng=rng),
                                   m(_OST[:, 0] + 5, _OST[:, 1:])),
    "ErrorConsistency": lambda rng: (tw.brainscore.ErrorConsistency(n_resamples=50, rng=rng), None),
}


def _run(name, rng):
    with warnings.catch_warnings():
        # degenerate-data and sparse-table warnings of the small inputs are not the subject here
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return CASES[name](rng)


def _random_public_callables() -> set[str]:
    found = set()
    for ns in (tw, *(getattr(tw, name) for name in tw.__all__ if isinstance(getattr(tw, name), types.ModuleType))):
        for name in ns.__all__:
            obj = getattr(ns, name)
            members = [(name, obj)]
            if isinstance(obj, type):
                members += [(f"{name}.{m}", f) for m, f in vars(obj).items()
                            if not m.startswith("_") and inspect.isfunction(f)]
            for label, f in members:
                try:
                    params = inspect.signature(f).parameters
                except (TypeError, ValueError):
                    continue
                if "rng" in params:
                    found.add(label)
    return found


def _same(a, b, where="result") -> None:
    """``a`` and ``b`` equal bit for bit (NaN equal to NaN), field by field."""
    if isinstance(a, Result) and dataclasses.is_dataclass(a):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            # a simulation study's clock is not a number it computes; private fields are caches
            if f.name != "wall_time" and not f.name.startswith("_"):
                _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a.drop(columns=["wall_time"], errors="ignore"),
                                      b.drop(columns=["wall_time"], errors="ignore"), check_exact=True, obj=where)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=True, obj=where)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where, strict=True)
    elif isinstance(a, dict) or isinstance(a, types.MappingProxyType):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif hasattr(a, "dims") and hasattr(a, "coords"):  # an xarray DataArray (Brain-Score's per-split raw values)
        assert a.dims == b.dims, where
        np.testing.assert_array_equal(np.asarray(a.values), np.asarray(b.values), err_msg=where, strict=True)
        for k in a.coords:
            np.testing.assert_array_equal(np.asarray(a[k].values), np.asarray(b[k].values), err_msg=f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    else:
        assert a == b, (where, a, b)


def test_every_random_public_function_has_a_case():
    missing = sorted(_random_public_callables() - set(CASES) - set(CLASS_CASES) - NOT_RESULTS)
    assert not missing, f"random public functions without a case in this file: {missing}"
    assert not (set(CASES) & NOT_RESULTS)


@pytest.mark.parametrize("name", sorted(CLASS_CASES))
def test_an_object_records_its_seed_and_the_seed_repeats_its_scores(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        obj, score = CLASS_CASES[name](None)
        assert isinstance(obj.seed, int) and obj.seed >= 0
        again, score_again = CLASS_CASES[name](obj.seed)
        assert again.seed == obj.seed and CLASS_CASES[name](7)[0].seed == 7
        assert CLASS_CASES[name](np.random.default_rng(7))[0].seed is None
    if isinstance(score, Result):
        _same(score, score_again, name)
    elif score is not None:  # a Brain-Score Score (an xarray DataArray with its attrs)
        assert float(score) == float(score_again) and score.attrs.keys() == score_again.attrs.keys()
        for k in score.attrs:
            _same(score.attrs[k], score_again.attrs[k], f"{name}.attrs[{k!r}]")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_result_records_its_seed_and_the_seed_repeats_it(name):
    drawn = _run(name, None)
    assert isinstance(drawn.seed, int) and drawn.seed >= 0, drawn.seed
    again = _run(name, drawn.seed)
    assert again.seed == drawn.seed
    _same(drawn, again, name)  # bit for bit
    assert drawn.to_dict()["seed"] == drawn.seed  # JSON keeps it too
    assert _run(name, np.int64(12)).seed == 12 and isinstance(_run(name, 12).seed, int)
    assert _run(name, np.random.default_rng(12)).seed is None  # the caller owns that stream
    assert _run(name, None).seed != drawn.seed  # fresh entropy each time


def test_a_given_seed_gives_the_numbers_it_gave_before():
    """Recording the seed changes no seeded number: rng=0 is default_rng(0), as before."""
    res = tw.error_consistency(*_pair(), n_resamples=200, rng=0)
    old = tw.error_consistency(*_pair(), n_resamples=200, rng=np.random.default_rng(0))
    assert res.seed == 0 and old.seed is None
    _same(dataclasses.replace(old, seed=0), res)


def test_records_seed_needs_a_keyword_only_rng_and_a_seed_field():
    with pytest.raises(TypeError, match="no keyword-only parameter `rng`"):
        records_seed(lambda x, rng=None: x)

    @records_seed
    def no_field(*, rng=None):
        return tw.ConfidenceInterval(0.0, 1.0)

    with pytest.raises(TypeError, match="ConfidenceInterval .* has no field `seed`"):
        no_field()


def test_a_result_without_randomness_answers_seed_none():
    assert cmp.mcnemar(counts=[[150, 25], [15, 10]]).seed is None or isinstance(
        cmp.mcnemar(counts=[[150, 25], [15, 10]]).seed, int)
    assert tw.planning.accuracy_half_width(0.7, n=[100]).seed is None  # no rng at all: the vocabulary's default


@pytest.mark.parametrize("call", [
    lambda: tw.error_consistency(counts=[[30, 10], [0, 0]], rng=0, n_resamples=200),      # through @records_seed
    lambda: tw.compare([0, 1, 2], [0, 1, 2], [0, 0, 1], rng=0, n_resamples=99),          # caveats collected, then one warning
    lambda: tw.ec.kappa_bounds(1, 1),                                                       # no wrapper
])
def test_a_warning_points_at_the_users_line_whatever_lies_between(call):
    """However many of the library's frames (wrappers, helpers) lie between, a warning names the
    user's file and line (the first frame outside the package), not a line of trialwise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if issubclass(w.category, tw.TrialwiseWarning)]
    assert ours
    assert {w.filename for w in ours} == {__file__}, [(w.filename, w.lineno) for w in ours]
