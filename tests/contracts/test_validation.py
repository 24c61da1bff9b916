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
        (tw.ec.kappa_bounds, (1.2, 0.5), r"`accuracy_a` must be in \[0, 1\]; got 1.2"),
        (tw.ec.kappa_bounds, (0.5, np.nan), r"`accuracy_b` must not contain NaN"),
        (tw.ec.feasible_accuracy, (1.0, 0.5), r"`accuracy_a` must be in \(0, 1\)"),
        (tw.ec.feasible_accuracy, (0.5, 1.5), r"`kappa` must be in \[-1, 1\]; got 1.5"),
        (tw.ec.kappa_bounds_from_expected, (-0.1,), r"`c_exp` must be in \[0, 1\]"),
    ],
)
def test_bounds_bad_input(func, args, match):
    with pytest.raises(ValueError, match=match):
        func(*args)


def test_bounds_wrong_type():
    with pytest.raises(TypeError, match="`accuracy_a` must be numeric"):
        tw.ec.kappa_bounds("high", 0.5)


# --------------------------------------------------------------------------- shared validators (issue 14 item 12)

from trialwise._core import validation as v  # noqa: E402


def test_number_of_draws_is_bounded_and_whole_floats_are_accepted():
    assert v.check_positive_int(1e4, "n_resamples") == 10_000
    assert v.check_positive_int(10**7, "n_resamples") == v.MAX_DRAWS == 10**7
    with pytest.raises(ValueError, match=r"`n_resamples` must be an integer in \[1, 10000000\] \(every replicate is "
                                         r"kept in memory: 1e\+07 of them already take 80 MB per statistic\); got 1e\+30"):
        v.check_positive_int(1e30, "n_resamples")
    with pytest.raises(ValueError, match=r"`n_simulations` must be an integer in \[1, 10000000\].*got 10000001"):
        v.check_positive_int(10**7 + 1, "n_simulations")
    # other counts go up to 2**53, the largest whole number exact in float64
    assert v.check_positive_int(2**53, "n_max") == 2**53
    with pytest.raises(ValueError, match=r"`n_max` must be an integer in \[1, 9007199254740992\] \(larger whole numbers"):
        v.check_positive_int(2**53 + 1, "n_max")
    for bad in (2.5, float("nan"), float("inf"), "10", None, True):
        with pytest.raises(TypeError, match=r"`n_resamples` must be an integer >= 1"):
            v.check_positive_int(bad, "n_resamples")


def test_workers():
    assert v.check_workers(None) is None and v.check_workers(np.int64(3)) == 3
    for bad, exc in ((0, ValueError), (-3, ValueError), (2.0, TypeError), ("4", TypeError), (True, TypeError)):
        with pytest.raises(exc, match=r"`workers` must be None \(all cores\) or an integer >= 1; got"):
            v.check_workers(bad)


def test_broadcast_names_every_argument_and_shape():
    a, b = v.check_broadcast([0.1, 0.2], [[1.0], [2.0], [3.0]], names=("x", "y"))
    assert a.shape == b.shape == (3, 2)
    with pytest.raises(ValueError, match=r"^`x` \(shape \(2,\)\), `y` \(shape \(3,\)\) and the grid \(shape \(\)\) "
                                         r"cannot be broadcast against each other"):
        v.check_broadcast([1, 2], [1, 2, 3], 5, names=("x", "y", "the grid"))


@pytest.mark.parametrize("counts, exc, match", [
    ([[1 + 1j, 2], [3, 4]], TypeError, r"`counts` must hold real counts; got complex"),
    ([[2**63, 2], [3, 4]], ValueError, r"`counts` holds more than 2\*\*53 items in a table \(n = 9\.22e\+18\)"),
    ([[2**64, 2], [3, 4]], ValueError, r"holds more than 2\*\*53"),
    ([[1e19, 2], [3, 4]], ValueError, r"holds more than 2\*\*53"),
    ([[2**62, 2**62], [2**62, 2**62]], ValueError, r"holds more than 2\*\*53"),   # each fits int64, the sum does not
    ([[None, 2], [3, 4]], TypeError, r"`counts` must hold numbers; got dtype object"),
    ([["1", 2], [3, 4]], TypeError, r"`counts` must hold numbers"),
])
def test_counts_too_large_or_not_real(counts, exc, match):
    with pytest.raises(exc, match=match):
        v.check_counts(counts)


def test_counts_up_to_2_to_the_53_are_exact():
    big = [[2**52, 2**51], [2**50, 2**50]]   # total 2**53 exactly
    out = v.check_counts(big)
    assert out.dtype == np.int64 and out.tolist() == big
    assert v.check_counts([[2**53 - 3, 1], [1, 1]]).tolist() == [[2**53 - 3, 1], [1, 1]]  # no float rounding


def test_missing_labels_of_every_kind():
    arr = np.array(["a", None, np.nan, pd.NA, pd.NaT, "b"], dtype=object)
    assert v.missing_mask(arr).tolist() == [False, True, True, True, True, False]
    assert v.missing_mask(np.array(["2020-01-01", "NaT"], dtype="datetime64[D]")).tolist() == [False, True]
    with pytest.raises(ValueError, match=r"`truth` has a missing value at position 2"):
        v.check_label_vector(np.array(["a", "b", pd.NA], dtype=object), "truth")


@pytest.mark.parametrize("value, exc, match", [
    (None, TypeError, r"`p` must be numeric; got None"),
    ([0.5, None], TypeError, r"`p` must be numeric; got None in \[0\.5, None\]"),
    (["0.5"], TypeError, r"`p` must be numeric; got \['0\.5'\] \(dtype <U3\)"),
    ([0.5j], TypeError, r"`p` must be numeric"),
    ([[0.5], [0.1, 0.2]], ValueError, r"`p` must be a number or a rectangular array of numbers"),
])
def test_numeric_arguments_are_not_coerced(value, exc, match):
    with pytest.raises(exc, match=match):
        v.check_probability(value, "p")
    assert v.check_probability([0.5, True], "p").tolist() == [0.5, 1.0]


def test_strata_with_a_missing_label_are_rejected():
    from trialwise._stats.resampling import bootstrap_weights

    for strata in (["a", "b", np.nan], np.array([1.0, 2.0, np.nan]), ["a", None, "b"],
                   pd.array(["a", None, "b"], dtype="string")):
        with pytest.raises(ValueError, match=r"`strata` has a missing value \(NaN/None\) at position [12]"):
            next(bootstrap_weights(3, 5, strata=strata, rng=0))
    # labels of mixed kinds are fine: each stratum keeps its size in every replicate
    w = next(bootstrap_weights(4, 50, strata=[1, "a", 1, "a"], rng=0))
    assert (w[:, [0, 2]].sum(axis=1) == 2).all() and (w[:, [1, 3]].sum(axis=1) == 2).all()


@pytest.mark.parametrize("flag", [True, False, np.True_])
def test_rng_true_is_not_a_seed(flag):
    """``default_rng(True)`` is ``default_rng(1)``: a bool passed as ``rng`` is an error naming
    ``rng`` (issue 29), in the check and in every random function (they all call it)."""
    from trialwise._core.validation import check_rng
    from trialwise._stats.streams import rng_and_seed

    for check in (check_rng, rng_and_seed):
        with pytest.raises(tw.InvalidTypeError,
                           match=r"`rng` must be None, an integer seed .*got (np\.)?(True|False)_? \(a bool is not a seed\)"):
            check(flag)
    with pytest.raises(tw.InvalidTypeError, match=r"`rng` .*a bool is not a seed"):
        tw.error_consistency(counts=[[40, 10], [8, 22]], rng=flag)
    with pytest.raises(tw.InvalidTypeError, match=r"`rng` .*a bool is not a seed"):
        tw.ec.CopyModel(0.3, 0.8, 0.7).simulate_trials(50, rng=flag)
