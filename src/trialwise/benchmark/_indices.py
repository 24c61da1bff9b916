"""Bootstrap replicates as index rows, drawn by the one engine (:func:`trialwise.resampling.bootstrap_weights`).

Statistics that are not sums of item columns (a Spearman correlation over images, a
random split of resampled trials) need the resampled items themselves: replicate ``r``
of :func:`bootstrap_weights` counts how often each item was drawn, and repeating each
item that often gives the same replicate as drawn indices (sorted by item).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise.resampling import bootstrap_weights

__all__ = ["bootstrap_index_rows"]


def bootstrap_index_rows(n_items: int, n_resamples: int, *, rng: Any = None, batch: int | None = None) -> Iterator[NDArray]:
    """Yield (b, n_items) arrays of item indices, one row per bootstrap replicate, ``batch`` rows at a time."""
    items = np.arange(n_items)
    for w in bootstrap_weights(n_items, n_resamples, rng=rng, batch=batch):
        yield np.repeat(np.tile(items, w.shape[0]), w.ravel()).reshape(w.shape[0], n_items)
