"""The chunked Gram path of pairwise_agreement's point values: read in place, checked in two passes.

Oracles: a contiguous copy of every chunk (the path before, :func:`np.require`) for the bits of the
sums; the full per-value checker :func:`trialwise.similarity.gram._check_chunk` for which inputs are
refused and with what message.
"""

from __future__ import annotations

import numpy as np
import pytest

import trialwise as tw
from trialwise.io.trials import PROBABILITY_SUM_TOLERANCE
from trialwise.similarity.gram import _check_chunk, _chunk_is_valid, gram_sums


def _probs(rng, m, n, width, ragged):
    k = rng.integers(2, width + 1, n) if ragged else np.full(n, width)
    p = np.zeros((m, n, width))
    for q, j in enumerate(k):
        p[:, q, :j] = rng.dirichlet(np.ones(j), m)
    return p, k, rng.integers(0, k)


@pytest.mark.parametrize("ragged", [False, True])
def test_sums_read_in_place_have_the_bits_of_contiguous_copies(ragged):
    rng = np.random.default_rng(31)
    p, k, t = _probs(rng, 37, 301, 6, ragged)
    fortran = np.asfortranarray(p)  # not C-contiguous: each chunk is copied (np.require), the path before
    assert not fortran.flags.c_contiguous and p.flags.c_contiguous
    for chunk_bytes in (1, 8 * 37 * 6 * 7, 8 * 37 * 6 * 100, 2**30):  # 1, 7, 100 and all questions per chunk
        for choices in (False, True):
            c_in, g_in = gram_sums(p, k, t, choices=choices, chunk_bytes=chunk_bytes)
            c_cp, g_cp = gram_sums(fortran, k, t, choices=choices, chunk_bytes=chunk_bytes)
            assert np.array_equal(g_in, g_cp) and np.array_equal(c_in, c_cp)
    # and the brute-force sums
    c, g = gram_sums(p, k, t)
    np.testing.assert_allclose(g, np.einsum("aqo,bqo->ab", p, p), rtol=1e-13, atol=0)
    np.testing.assert_allclose(c, p[:, np.arange(p.shape[1]), t].sum(1), rtol=1e-13, atol=0)


def _full_check_raises(x, k):
    try:
        _check_chunk(x, k, 0, np.arange(x.shape[2]))
    except tw.InvalidValueError as exc:
        return str(exc)
    return None


def test_two_pass_check_accepts_exactly_what_the_full_check_accepts():
    rng = np.random.default_rng(32)
    tol = PROBABILITY_SUM_TOLERANCE
    for trial in range(300):
        ragged = bool(trial % 2)
        x, k, _ = _probs(rng, 3, 5, 4, ragged)
        m, q = rng.integers(0, 3), rng.integers(0, 5)
        o = rng.integers(0, k[q])
        kind = trial % 9
        if kind == 1:
            x[m, q, o] = np.nan
        elif kind == 2:
            x[m, q, o] = -rng.uniform(1e-9, 0.1)
        elif kind == 3:
            x[m, q, o] = np.inf
        elif kind == 4 and k[q] < 4:  # probability on an option beyond the question's count
            x[m, q, 3] = 1e-3
        elif kind == 5:  # a row sum just inside, at, or just outside the tolerance
            x[m, q, o] += rng.choice([0.5, 0.999999, 1.0, 1.000001, 1.5]) * tol
        elif kind == 6:
            x[m, q, o] += rng.choice([-1, 1]) * rng.uniform(0.9, 1.1) * tol
        elif kind == 7:
            x[m, q, o] = -0.0  # a negative zero is ≥ 0
        expected = _full_check_raises(x, k)
        if _chunk_is_valid(x, k, 4):
            assert expected is None, (trial, expected)
        p = np.ascontiguousarray(x)
        if expected is None:
            gram_sums(p, k, np.zeros(5, dtype=np.int64))
        else:
            with pytest.raises(tw.InvalidValueError) as info:
                gram_sums(p, k, np.zeros(5, dtype=np.int64))
            assert str(info.value) == expected


def test_pairwise_agreement_names_the_bad_value_as_before():
    rng = np.random.default_rng(33)
    p, _, t = _probs(rng, 4, 20, 3, False)
    p[2, 7, 1] = np.nan
    with pytest.raises(tw.InvalidValueError, match=r"`trials` must hold finite probabilities ≥ 0; model 2, question 7 has nan"):
        tw.pairwise_agreement(p, truth=t, n_resamples=0)
    p[2, 7, 1] = 0.4
    with pytest.raises(tw.InvalidValueError, match=r"model 2, question 7 sums to"):
        tw.pairwise_agreement(p, truth=t, n_resamples=0)
