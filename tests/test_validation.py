"""Every bad input gets a TypeError/ValueError whose message names the argument."""

import numpy as np
import pandas as pd
import pytest

import trialwise as tw

A = np.array([1, 0, 1, 1, 0, 1], bool)
B = np.array([1, 1, 0, 1, 0, 1], bool)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(a=A, b=B[:-1]), ValueError, r"same length.*`a` has 6, `b` has 5"),
        (dict(a=np.c_[A, A], b=B), ValueError, r"`a` must be 1-D; got an array of shape \(6, 2\)"),
        (dict(a=[1, 2, 0, 1, 0, 1], b=B), ValueError, r"`a` must be binary .* found values \[2.0\]"),
        (dict(a=A, b=[1, np.nan, 0, 1, 0, 1]), ValueError, r"`b` contains NaN at position 1"),
        (dict(a=[], b=[]), ValueError, r"`a` is empty"),
        (dict(a=["x", "y"], b=["x", "x"]), TypeError, r"`a` must hold correctness .* pass `truth=`"),
        (dict(a="101", b=B), TypeError, r"`a` must be a 1-D array"),
        (dict(a=A), TypeError, r"needs two observers `a` and `b`"),
        (dict(a=A, b=B, counts=[[1, 2], [3, 4]]), TypeError, r"either .* or `counts`, not both"),
        (dict(counts=[[1, -2], [3, 4]]), ValueError, r"`counts` must be non-negative"),
        (dict(counts=[[1, 2.5], [3, 4]]), ValueError, r"`counts` must be whole numbers"),
        (dict(counts=[[1, 2, 3], [3, 4, 5]]), ValueError, r"`counts` must be a 2×2 table"),
        (dict(counts=[[0, 0], [0, 0]]), ValueError, r"`counts` holds no items \(n = 0\)"),
        (dict(counts=[[1, np.nan], [0, 0]]), ValueError, r"`counts` must be finite"),
        (dict(counts=[["a", "b"], ["c", "d"]]), TypeError, r"`counts` must hold numbers"),
        (dict(a=["a", "b"], b=["a", "c"], truth=["a", None]), ValueError, r"`truth` has a missing value at position 1"),
        (dict(a=["a", "b"], b=["a", "c"], truth=["a", "b", "c"]), ValueError, r"`truth` has 3"),
        (dict(a=A, b=B, confidence_level=95), ValueError, r"`confidence_level` must be in \(0, 1\); got 95"),
        (dict(a=A, b=B, confidence_level="high"), TypeError, r"`confidence_level` must be a number"),
        (dict(a=A, b=B, ci_method="wilson"), ValueError, r"`ci_method` must be one of .* got 'wilson'"),
        (dict(a=A, b=B, test="chi2"), ValueError, r"`test` must be one of .* got 'chi2'"),
        (dict(a=A, b=B, n_resamples=0), ValueError, r"`n_resamples` must be an integer >= 1; got 0"),
        (dict(a=A, b=B, n_resamples=2.5), TypeError, r"`n_resamples` must be an integer"),
        (dict(a=A, b=B, unbiased="yes"), TypeError, r"`unbiased` must be True or False"),
        (dict(a=A, b=B, rng="seed"), TypeError, r"`rng` must be None, an integer seed or a numpy.random.Generator"),
    ],
)
def test_error_consistency_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        tw.error_consistency(**kwargs)


def test_method_names_are_case_and_separator_tolerant():
    r = tw.error_consistency(np.tile(A, 10), np.tile(B, 10), test="Copy_Null", ci_method="BCA", n_resamples=50, rng=0)
    assert (r.test, r.ci_method) == ("copy-null", "bca")


@pytest.mark.parametrize(
    "data, kwargs, exc, match",
    [
        (np.ones(5), {}, ValueError, r"`correct` must be 2-D"),
        (np.ones((0, 3)), {}, ValueError, r"`correct` has no items"),
        (np.ones((5, 1)), {}, ValueError, r"at least 2 observers"),
        (np.full((4, 2), 3.0), {}, ValueError, r"`correct` must be 0/1 \(NaN = not seen\); found values \[3.0\]"),
        (np.array([["a", "b"], ["c", "d"]], dtype=object), {}, TypeError, r"for response labels pass `truth=`"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(pairs=[("x", "z")]), ValueError,
         r"`pairs` names observer 'z', which is not a column"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(pairs=[("x", "x")]), ValueError, r"pairs observer 'x' with itself"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(pairs=["xy"]), ValueError, r"list of \(observer_a, observer_b\)"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(pairs=[]), ValueError, r"`pairs` is empty"),
        (pd.DataFrame({"x": ["a", "b"], "y": ["a", "a"]}), dict(truth=["a"]), ValueError, r"`truth` must have one label per item"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(strata=[1, 2, 3]), ValueError, r"`strata` must have one label per item"),
        (pd.DataFrame({"x": [1, 0], "y": [0, 1]}), dict(n_resamples=-1), ValueError, r"`n_resamples`"),
    ],
)
def test_pairwise_bad_input(data, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        tw.pairwise_error_consistency(data, **kwargs)


@pytest.mark.parametrize(
    "func, args, match",
    [
        (tw.kappa_bounds, (1.2, 0.5), r"`accuracy_a` must be in \[0, 1\]; got 1.2"),
        (tw.kappa_bounds, (0.5, np.nan), r"`accuracy_b` must not contain NaN"),
        (tw.feasible_accuracy, (1.0, 0.5), r"`accuracy_a` must be in \(0, 1\)"),
        (tw.feasible_accuracy, (0.5, 1.5), r"`kappa` must be in \[-1, 1\]; got 1.5"),
        (tw.kappa_bounds_from_expected, (-0.1,), r"`c_exp` must be in \[0, 1\]"),
    ],
)
def test_bounds_bad_input(func, args, match):
    with pytest.raises(ValueError, match=match):
        func(*args)


def test_bounds_wrong_type():
    with pytest.raises(TypeError, match="`accuracy_a` must be numeric"):
        tw.kappa_bounds("high", 0.5)
