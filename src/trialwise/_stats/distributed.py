"""Running blocks of independent work on a Dask cluster (``pip install "trialwise[dask]"``).

The all-pairs bootstrap of :func:`trialwise.pairwise_error_consistency` splits into blocks of
pairs that are independent given the replicate weights, and any worker can draw those weights
again from the seed. With ``client=`` each block becomes one Dask task whose inputs are the
block's item columns, the weights' stream (a pickled :class:`trialwise._stats.resampling.ReplicateWeights`
is its seed, not its arrays) and the options, and whose output is its pairs' summaries; the
same holds for the tiles of models of :func:`trialwise.pairwise_agreement`, whose tasks may
read their models from a Dask array in storage themselves. This
module holds only the glue: checking the client, choosing a block size that keeps every
worker busy, grouping the pairs into tiles of observers (:func:`tile_edges`, :func:`tile_blocks`:
a block needs the columns of two ranges of observers, so a stored array's chunks are read
about once per tile, not once per block), and streaming the tasks through the cluster a few
at a time, so that neither the client nor the scheduler ever holds more than a few blocks.
Dask is imported lazily.

A task is a pure function of its inputs, so a task lost with its worker (a crash, a pre-empted
node) is simply run again by Dask (``distributed.scheduler.allowed-failures``, 3 by default)
and the result does not change.

References
----------
Rocklin, M. (2015). Dask: parallel computation with blocked algorithms and task scheduling.
*Proceedings of the 14th Python in Science Conference*, 130–136.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from trialwise._core.errors import InvalidTypeError, InvalidValueError

__all__ = ["check_client", "computed_first", "map_blocks", "task_block_size", "tile_edges", "tile_blocks",
           "TASKS_PER_WORKER"]

#: Blocks per worker that :func:`task_block_size` aims for (load balance), and tasks per
#: worker that :func:`map_blocks` keeps submitted at once (so a worker never waits for work).
TASKS_PER_WORKER = 4

_INSTALL = 'pip install "trialwise[dask]"'


def check_client(client: Any) -> Any:
    """``client`` if it is a ``dask.distributed.Client``, else a clear error.

    Raises
    ------
    ImportError
        ``client`` was given but dask.distributed is not installed.
    InvalidTypeError
        ``client`` is not a ``dask.distributed.Client``.
    """
    try:
        from distributed import Client
    except ImportError as exc:
        raise ImportError(f"`client` needs dask.distributed, which is not installed: {_INSTALL}") from exc
    if not isinstance(client, Client):
        hint = " (an address: connect first, `Client(address)`)" if isinstance(client, str) else ""
        raise InvalidTypeError(f"`client` must be a dask.distributed.Client (or None); got {repr(client)[:80]} "
                               f"of type {type(client).__name__}{hint}")
    return client


def _n_workers(client: Any) -> int:
    try:
        return max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
    except TypeError:  # older distributed: no n_workers argument
        return max(1, len(client.scheduler_info()["workers"]))


def task_block_size(client: Any, n_items: int, largest: int, multiple: int) -> int:
    """Items per task: at most ``largest``, a multiple of ``multiple``, and small enough to give
    every worker of ``client`` about :data:`TASKS_PER_WORKER` tasks (or all items, if fewer)."""
    want = -(-n_items // (TASKS_PER_WORKER * _n_workers(client)))
    m = max(multiple, -(-want // multiple) * multiple)
    return int(min(largest, m, n_items))


def tile_edges(n_observers: int, side: int, chunks: Iterable[int] | None = None) -> Any:
    """Edges of the tiles of observers: consecutive ranges of at most ``side`` observers.

    Without ``chunks``, ``0, side, 2·side, …, n_observers``. With ``chunks`` (the widths of an
    array's chunks along the observers, ``dask_array.chunks[1]``) no tile straddles a chunk
    edge, so a tile reads only whole chunks or one part of one: a chunk wider than ``side``
    is cut into equal tiles, and consecutive narrower chunks are joined while the tile stays
    within ``side``.

    Parameters
    ----------
    n_observers : int
    side : int
        Largest tile, in observers (the pairwise bootstrap uses ⌊√m⌋ for blocks of m pairs).
    chunks : iterable of int, optional
        Chunk widths along the observers, summing to ``n_observers``.

    Returns
    -------
    numpy.ndarray
        Increasing edges from 0 to ``n_observers``; tile i is ``[edges[i], edges[i + 1])``.
    """
    import numpy as np

    side = max(1, int(side))
    if chunks is None:
        return np.unique(np.r_[np.arange(0, n_observers, side), n_observers])
    edges, start, width = [0], 0, 0
    for c in (int(c) for c in chunks):
        if width and width + c > side:  # close the tile of joined chunks
            edges.append(start)
            width = 0
        if c > side:  # cut the chunk into equal tiles of at most `side`
            k = -(-c // side)
            edges.extend(start + (c * np.arange(1, k)) // k)
            edges.append(start + c)
            width = 0
        else:
            width += c
        start += c
    edges.append(start)
    if start != n_observers:
        raise InvalidValueError(f"`chunks` must sum to the {n_observers} observers; got {start}")
    return np.unique(np.asarray(edges, dtype=np.intp))


def tile_blocks(pairs: Any, edges: Any, size: int) -> list[Any]:
    """The positions of ``pairs`` (p × 2 observer numbers) in blocks of at most ``size`` pairs,
    grouped by tiles (:func:`tile_edges`), as :func:`trialwise.similarity.pairwise.model_tiles` does.

    A pair belongs to the (unordered) pair of tiles of its two observers; the groups come in
    tile order (I ≤ J: (0, 0), (0, 1), …, (1, 1), …), each group keeps the pairs' order, and
    consecutive groups are joined into a block while it stays within ``size`` pairs (a group
    larger than ``size`` is cut). A block of one group needs the columns of two tiles only, so
    over all blocks each tile's columns are read about as often as there are tiles, not as
    often as there are blocks (consecutive pairs ``(a, b)`` need up to ``size + 1`` observers).

    Parameters
    ----------
    pairs : array_like of int, shape (p, 2)
        Observer numbers of each pair, in any order (either way round).
    edges : array_like of int
        Tile edges (:func:`tile_edges`).
    size : int
        Most pairs per block.

    Returns
    -------
    list of numpy.ndarray
        Each block's positions among ``pairs``; together every position once.
    """
    import numpy as np

    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    size = max(1, int(size))
    t = np.searchsorted(np.asarray(edges), pairs, side="right") - 1
    n_tiles = max(1, len(edges) - 1)
    key = np.minimum(t[:, 0], t[:, 1]) * n_tiles + np.maximum(t[:, 0], t[:, 1])
    order = np.argsort(key, kind="stable")
    cuts = np.flatnonzero(np.diff(key[order])) + 1
    blocks: list[Any] = []
    run: list[Any] = []
    n_run = 0
    for group in np.split(order, cuts):
        for at in range(0, len(group), size):
            part = group[at: at + size]
            if n_run and n_run + len(part) > size:
                blocks.append(np.concatenate(run))
                run, n_run = [], 0
            run.append(part)
            n_run += len(part)
    if run:
        blocks.append(np.concatenate(run))
    return blocks


def computed_first(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` with every Dask collection among ``args`` computed here first.

    The body of a task whose inputs are still in storage (slices of a Dask array): they are
    read where the task runs, in one pass of the synchronous scheduler (so their common
    chunks are read once), and handed to ``func`` as aligned, C-contiguous numpy arrays.
    """
    lazy = [i for i, a in enumerate(args) if hasattr(a, "__dask_graph__")]
    if not lazy:
        return func(*args)
    import dask
    import numpy as np

    values = dask.compute(*(args[i] for i in lazy), scheduler="sync")
    out = list(args)
    for i, value in zip(lazy, values):
        out[i] = np.require(value, requirements=["C", "A"])
    return func(*out)


def map_blocks(client: Any, func: Callable[..., Any], blocks: Iterable[tuple[Any, tuple]]) -> Iterator[tuple[Any, Any]]:
    """``(key, func(*args))`` for every ``(key, args)`` of ``blocks``, computed on ``client``'s cluster.

    The blocks are submitted :data:`TASKS_PER_WORKER` per worker at a time and the next is
    submitted when one finishes, so only that many blocks' inputs and outputs are in flight;
    results come in the order they finish. A task whose worker dies is run again by Dask.

    Parameters
    ----------
    client : dask.distributed.Client
    func : callable
        Pure (the same inputs give the same output), picklable.
    blocks : iterable of (key, args)
        ``args`` is the tuple of arguments of one call; ``key`` is handed back with its result.

    Yields
    ------
    (key, result)
    """
    from distributed import as_completed

    window = TASKS_PER_WORKER * _n_workers(client)
    name = f"trialwise-block-{uuid.uuid4().hex[:8]}"
    todo = iter(blocks)
    numbers = itertools.count()
    keys: dict[str, Any] = {}
    live: dict[str, Any] = {}
    pending = as_completed()

    def submit_next() -> bool:
        block = next(todo, None)
        if block is None:
            return False
        key, args = block
        future = client.submit(func, *args, key=f"{name}-{next(numbers)}", pure=False)
        keys[future.key], live[future.key] = key, future
        pending.add(future)
        return True

    try:
        for _ in range(window):
            if not submit_next():
                break
        for future in pending:
            result = future.result()
            key = keys.pop(future.key)
            del live[future.key]
            future.release()
            submit_next()
            yield key, result
    finally:  # an error, or the caller stopped early: drop what is still queued
        if live:
            client.cancel(list(live.values()))
