"""Point values of CAPA for every pair of many models at once: one Gram matrix, in chunks of questions.

With ``X`` the (models × questions·options) matrix of option probabilities,
``Σ_q Σ_o p_A(o) p_B(o) = (X Xᵀ)[A, B]``: the observed agreement of all pairs is one Gram
matrix, and κ_p of every pair follows from it and the per-model sums ``Σ_q p_m(truth_q)``
through :func:`trialwise.similarity.capa.capa_from_sums` (the bootstrap's kernel). This is how
:func:`trialwise.pairwise_agreement` computes its point values; chunking over questions keeps
the memory beyond the input bounded (:func:`gram_chunk_questions`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from trialwise._core.errors import InvalidValueError
from trialwise.io.trials import PROBABILITY_SUM_TOLERANCE

__all__ = ["gram_sums", "gram_chunk_questions", "GRAM_CHUNK_BYTES"]

#: Bytes of one float64 question chunk (models × questions × options) in the point-value Gram path.
GRAM_CHUNK_BYTES = 8 * 2**20  # as fast as 64 MB chunks at 1,000 models (benchmarks/speed/bench_agreement.py), less memory


def gram_chunk_questions(n_models: int, n_options: int, chunk_bytes: int = GRAM_CHUNK_BYTES) -> int:
    """Questions per chunk of :func:`gram_sums`: a float64 (models × questions × options) chunk within ``chunk_bytes``.

    Peak memory of the Gram path beyond its input is then at most about two chunks (the
    contiguous float64 copy of a chunk, or its one-hot choices, and the validity masks) plus
    the float64 ``n_models × n_models`` Gram matrix, whatever the number of questions.
    """
    return max(1, int(chunk_bytes) // (8 * max(int(n_models), 1) * max(int(n_options), 1)))


def gram_sums(probs: ArrayLike, k: ArrayLike, truth: ArrayLike, *, choices: bool = False, check: bool = True,
              chunk_bytes: int = GRAM_CHUNK_BYTES) -> tuple[NDArray, NDArray]:
    """Per-model ``Σ_q p_m(truth_q)`` and the Gram matrix ``G[A, B] = Σ_q Σ_o p_A(o) p_B(o)``, in question chunks.

    Parameters
    ----------
    probs : array_like or dask.array.Array, shape (n_models, n_questions, n_options)
        Option probabilities (zero beyond a question's option count). A Dask array is read
        one chunk of questions at a time.
    k, truth : array_like of int, shape (n_questions,)
        Option count and correct option of every question.
    choices : bool, default False
        Use one-hot argmax choices (first on ties) instead of the probabilities.
    check : bool, default True
        Check every chunk: finite, ≥ 0, rows summing to 1, zero beyond ``k``.
    chunk_bytes : int
        Size of one float64 chunk (:func:`gram_chunk_questions`).

    Returns
    -------
    correct : ndarray, shape (n_models,)
    gram : ndarray, shape (n_models, n_models)
        Accumulated in float64: chunk by chunk, ``X Xᵀ`` with ``X`` the chunk as a
        (models × questions·options) matrix (one symmetric BLAS product per chunk).

    Raises
    ------
    InvalidValueError
        With ``check``: a probability that is not finite or negative, on an option beyond
        ``k``, or a row that does not sum to 1 (naming the model and the question).

    Notes
    -----
    CAPA's observed agreement of models A and B is ``c_obs = G[A, B] / n`` and their mean
    probabilities on the correct option ``correct / n`` (Goel et al. 2025, eq. 1–3); the
    chance term needs only ``f = mean_q 1/(k_q − 1)``.

    References
    ----------
    S. Goel et al. (2025), "Great Models Think Alike and this Undermines AI Oversight",
    arXiv:2502.04313.

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.array([[[0.5, 0.5], [1.0, 0.0]], [[0.2, 0.8], [0.6, 0.4]]])  # 2 models × 2 questions
    >>> correct, gram = gram_sums(probs, [2, 2], [0, 0])
    >>> correct.tolist(), gram.round(2).tolist()
    ([1.5, 0.8], [[1.5, 1.1], [1.1, 1.2]])
    """
    p: Any = probs if hasattr(probs, "__dask_graph__") else np.asarray(probs)  # a Dask array: read chunk by chunk
    kk, tt = np.asarray(k), np.asarray(truth)
    m, n, width = p.shape
    step = gram_chunk_questions(m, width, chunk_bytes)
    gram, correct = np.zeros((m, m)), np.zeros(m)
    options = np.arange(width)
    # a C-contiguous aligned float64 array in memory is read in place: a chunk of questions is then a
    # (models × questions·options) view whose rows are runs in memory (row stride n·options), which BLAS
    # reads as it is, with the same bits as a contiguous copy (tests/similarity/test_gram.py), without
    # the copy (2 ms of a 57 ms chunk at 1,000 models × 104 questions × 10 options)
    in_place = isinstance(p, np.ndarray) and p.dtype == np.float64 and p.flags.c_contiguous and p.flags.aligned
    for q0 in range(0, n, step):
        # else contiguous (a view whose rows are not runs would miss BLAS) and aligned (a chunk of a Dask
        # array may come unaligned from a worker, and BLAS rounds an unaligned product differently in the
        # last bits)
        x = p[:, q0: q0 + step] if in_place else np.require(p[:, q0: q0 + step], dtype=np.float64,
                                                             requirements=["C", "A"])
        kq, tq = kk[q0: q0 + step], tt[q0: q0 + step]
        if check and not _chunk_is_valid(x, kq, width):
            _check_chunk(x, kq, q0, options)
        if choices:
            x = (x.argmax(axis=2)[..., None] == options).astype(np.float64)
        flat = x.reshape(m, -1)
        gram += flat @ flat.T
        correct += flat[:, np.arange(tq.size) * width + tq].sum(axis=1)
    return correct, gram


def _chunk_is_valid(x: NDArray, k: NDArray, width: int) -> bool:
    """Whether a chunk passes every check of :func:`_check_chunk`, in two passes over it (its minimum and its
    row sums, 3 ms of a 1,000 × 104 × 10 chunk, where :func:`_check_chunk` takes 12 ms); False sends the chunk
    to :func:`_check_chunk`, which finds and names the first offending value.

    NaN makes the minimum NaN and +inf a row sum infinite, so both fail here as they do there."""
    if x.size == 0:
        return True
    if not x.min() >= 0:  # (NaN compares False)
        return False
    fewer = np.flatnonzero(k < width)  # questions with fewer options than the array's last axis
    if fewer.size and np.any((x[:, fewer] != 0) & (np.arange(width) >= k[fewer, None])):
        return False
    sums = x @ np.ones(width)  # (rounded otherwise than x.sum(axis=2): rows near the tolerance go to the full check)
    return not np.any(np.abs(sums - 1) > PROBABILITY_SUM_TOLERANCE - 1e-12)


def _check_chunk(x: NDArray, k: NDArray, q0: int, options: NDArray) -> None:
    bad = ~np.isfinite(x) | (x < 0)
    if bad.any():
        mi, qi, _ = (int(i[0]) for i in np.nonzero(bad))
        raise InvalidValueError(f"`trials` must hold finite probabilities ≥ 0; model {mi}, question {q0 + qi} has "
                                f"{float(x[mi, qi][bad[mi, qi]][0]):g}")
    beyond = (options >= k[:, None])[None] & (x != 0)
    if beyond.any():
        mi, qi, _ = (int(i[0]) for i in np.nonzero(beyond))
        raise InvalidValueError(f"`trials`: model {mi}, question {q0 + qi} has probability on an option beyond its "
                                f"`n_options` ({k[qi]})")
    sums = x.sum(axis=2)
    off = np.abs(sums - 1) > PROBABILITY_SUM_TOLERANCE
    if off.any():
        mi, qi = (int(i[0]) for i in np.nonzero(off))
        raise InvalidValueError(f"`trials` rows must sum to 1 (softmax probabilities or one-hot); model {mi}, "
                                f"question {q0 + qi} sums to {sums[mi, qi]:.6g}")
