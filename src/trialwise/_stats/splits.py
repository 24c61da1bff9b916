"""Random half splits of the resampling engine: the one place that draws them.

A split-half ceiling compares two random halves of the reference data (trials, subjects,
replicate columns) and averages over splits. Every split of trialwise is drawn by
:func:`split_orders`: a random order of the positions per split, whose first ``n // 2`` places
form the first half (:func:`trialwise.brainscore.ceiling.half_splits` turns the orders into
halves; a subset of the positions is halved by its members' places in the same order).

The orders come from one of three streams:

* ``"generator"``: ``rng.permutation(n)`` per split, from the engine's Generator
  (:func:`trialwise._stats.streams.child_rngs`) — every split-half ceiling by default;
* ``"brainscore-i2n"``: Brain-Score's I1n/I2n splits (``brainscore_vision/metrics/i1i2/metric.py``,
  ``_Behavior_Metric._repeat`` / ``generate_halves``): one ``numpy.random.RandomState(0)``
  shuffles ``list(range(n))`` once per split, in turn;
* ``"brainscore-value-delta"``: Brain-Score's Ferguson2024 splits
  (``benchmarks/ferguson2024/helpers/helpers.py``, ``split_dataframe(df, seed=i)``): split ``i``
  is ``np.random.seed(i)`` then ``np.random.permutation(n)``, i.e.
  ``numpy.random.RandomState(i).permutation(n)``.

The two Brain-Score streams are numpy's legacy ``RandomState`` on purpose: they are how
Brain-Score draws its splits (brain-score/vision at commit
c642dbe42aae3ed064bc0b66f70a80b264021164), so reproducing its numbers exactly
(``brainscore_compatible=True``, the value-delta ceiling) needs exactly these draws. They are
fixed seeds, not an ``rng=`` of the user, and this module is the only one of trialwise that
touches ``RandomState`` (tests/stats/test_resampling_engine.py checks it).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidValueError

__all__ = ["SPLIT_STREAMS", "split_orders"]

SplitStream = Literal["generator", "brainscore-i2n", "brainscore-value-delta"]
#: The streams :func:`split_orders` draws from (module docstring).
SPLIT_STREAMS: tuple[SplitStream, ...] = get_args(SplitStream)


def split_orders(n: int, n_splits: int, *, rng: Any = None, stream: SplitStream = "generator") -> NDArray:
    """Random orders of ``n`` positions, one row per split: ``orders[s, i]`` is the place of position ``i``.

    The first half of split ``s`` is the positions with ``orders[s] < n // 2``.

    Parameters
    ----------
    n : int
        Number of positions (at least 1; a half split needs 2).
    n_splits : int
        Number of splits.
    rng : None, int or numpy.random.Generator
        The stream of ``"generator"`` (split ``s`` is its ``s``-th ``permutation(n)``); must be
        None for Brain-Score's streams, whose seeds are fixed.
    stream : {"generator", "brainscore-i2n", "brainscore-value-delta"}
        Where the orders come from (module docstring).

    Returns
    -------
    numpy.ndarray of int, shape (n_splits, n)
        Each row a permutation of ``0 … n − 1``.

    Examples
    --------
    >>> (split_orders(6, 2, stream="brainscore-i2n") < 3).astype(int).tolist()
    [[0, 1, 1, 0, 0, 1], [0, 1, 0, 1, 1, 0]]
    >>> (split_orders(4, 2, stream="brainscore-value-delta") < 2).astype(int).tolist()
    [[0, 0, 1, 1], [0, 0, 1, 1]]
    """
    n = v.check_positive_int(n, "n")
    n_splits = v.check_positive_int(n_splits, "n_splits")
    stream = v.check_choice(stream, "stream", SPLIT_STREAMS)
    if stream == "generator":
        gen = v.check_rng(rng)
        return np.stack([gen.permutation(n) for _ in range(n_splits)])
    if rng is not None:
        raise InvalidValueError(f"`rng` must be None with stream={stream!r} (Brain-Score's splits have fixed "
                                f"seeds); got {v.show(rng)}")
    if stream == "brainscore-i2n":  # one RandomState(0), shuffled once per split in turn
        rs = np.random.RandomState(0)
        shuffled = [rs.permutation(n) for _ in range(n_splits)]  # = rs.shuffle(list(range(n))), as Brain-Score
    else:  # split i: np.random.seed(i); np.random.permutation(n)
        shuffled = [np.random.RandomState(i).permutation(n) for i in range(n_splits)]
    return np.stack([np.argsort(p) for p in shuffled])  # position p[j] has place j
