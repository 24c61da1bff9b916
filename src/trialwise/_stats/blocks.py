"""The one driver of the bootstraps that run block by block: blocks of pairs, and units.

Four bootstraps share one skeleton: the all-pairs error consistency
(:func:`trialwise.ec.pairwise_error_consistency`, blocks of pairs), the all-pairs agreement of
language models (:func:`trialwise.similarity.pairwise_agreement`, blocks of tiles of models), the
hierarchy bootstrap of a leaderboard (:func:`trialwise.leaderboards.bootstrap.bootstrap_entries`,
units: one condition each) and Brain-Score's behavioral benchmark (its units). Each

1. splits its work into blocks: pairs into blocks whose working memory stays within a budget
   (:func:`block_size`); units are the design's (one condition each, already small);
2. gives each block its replicate weights from the resampling engine's streams — either the same
   :class:`~trialwise._stats.resampling.ReplicateWeights` for every block (blocks of pairs: every
   pair is resampled jointly with every other), or a child stream of one seed per block (units:
   resampled independently, :func:`trialwise._stats.streams.child_rngs`);
3. runs its own kernel on each block (the kernels stay in their domain packages), here, on
   threads or as Dask tasks (:func:`run_blocks`);
4. gathers the blocks' results into the output arrays (:func:`gather_blocks`), reporting progress.

Where the loops differ, and why:

* Blocks of pairs run one at a time in the calling thread (or as Dask tasks with ``client=``):
  a block is one large product and κ of all its pairs, which run on the thread budget
  themselves (BLAS, :func:`trialwise._stats.kappa.kappa_from_sums`' slices), and a block in
  flight holds up to its memory budget (256 MiB), which blocks run side by side would multiply.
  The blocks are made lazily, so only one block's columns exist at a time.
* The units of a leaderboard run on threads (``threads=True``), the largest first, with BLAS on
  one thread: a unit is small (one condition's items), so the parallelism is over units.
* Brain-Score's units run one at a time: their kernel is one product per unit, on BLAS's threads.
* A Dask task gets the shared weights pickled as their stream and draws them again; the
  caller's ``rng`` then advances here exactly as after a local pass
  (:meth:`~trialwise._stats.resampling.ReplicateWeights.advance`), so a seed gives the same
  numbers with or without a cluster.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from numpy.typing import NDArray

from trialwise._core.errors import InvalidValueError
from trialwise._core.threads import map_threads
from trialwise._stats.resampling import ReplicateWeights
from trialwise._stats.streams import child_rngs

__all__ = ["block_size", "run_blocks", "gather_blocks"]


def block_size(n: int, unit_bytes: int, budget: int, *, multiple: int = 1, minimum: int = 1) -> int:
    """How many of ``n`` units (pairs) go in one block: as many as fit in ``budget`` bytes.

    ``budget // unit_bytes`` (at least 1) rounded down to a multiple of ``multiple``, then at
    least ``minimum`` and at most ``n``.

    Examples
    --------
    >>> block_size(10_000, 1_000, 300_000, multiple=128, minimum=128)
    256
    >>> block_size(100, 1_000, 300_000, multiple=128, minimum=128)
    100
    """
    m = max(1, budget // unit_bytes) // multiple * multiple
    return int(min(max(m, minimum), n))


def run_blocks(kernel: Callable[..., Any], blocks: Iterable[tuple[Any, tuple]], *,
               weights: ReplicateWeights | None = None, streams: Any = None, client: Any = None,
               threads: bool = False, workers: int | None = None, cost: Sequence[float] | None = None,
               progress: Callable[[int, int], None] | None = None) -> Iterator[tuple[Any, Any]]:
    """``(key, kernel(*args))`` for every ``(key, args)`` of ``blocks``.

    Parameters
    ----------
    kernel : callable
        The block's computation (picklable with ``client``).
    blocks : iterable of (key, args)
        ``key`` (e.g. the block's positions among the pairs) comes back with the result. Made
        lazily, block by block, when the blocks run one at a time.
    weights : ReplicateWeights, optional
        The replicate weights every block shares (in each block's ``args``). With ``client``
        they are drawn again in every task, and here ``rng`` advances as after a local pass.
    streams : None, int or numpy.random.Generator, optional
        Give block ``i`` (in the order of ``blocks``) its own child stream ``child_rngs(streams,
        n_blocks)[i]``, as the kernel's last argument.
    client : dask.distributed.Client, optional
        Run the blocks as tasks on its cluster (:func:`trialwise._stats.distributed.map_blocks`);
        results come in the order they finish.
    threads : bool, default False
        Run the blocks on ``workers`` threads (:func:`trialwise._core.threads.map_threads`, BLAS
        on one thread); the results come when all have run, in block order. Default: one block
        at a time, in this thread, each result before the next block is made.
    workers : int, optional
        Threads with ``threads`` (default: the thread budget).
    cost : sequence of float, optional
        With ``threads``: each block's size; the largest start first, so that no thread is left
        with one large block at the end.
    progress : callable, optional
        ``progress(done, n_blocks)`` before the first block and after each (from the thread that
        ran it); needs ``blocks`` to be a sequence.

    Yields
    ------
    (key, result)
    """
    if client is not None and (threads or streams is not None):
        raise InvalidValueError("`client` runs blocks of pairs that share `weights`; not with `threads` or `streams`")
    if not threads and (cost is not None or workers is not None):
        raise InvalidValueError("`cost` and `workers` go with `threads=True`")
    if weights is not None and streams is not None:
        raise InvalidValueError("the blocks share `weights` or each has a child of `streams`, not both")
    todo: Iterable[tuple[Any, tuple]] = blocks
    if streams is not None or progress is not None or threads:
        todo = list(blocks)
        if streams is not None:
            todo = [(key, (*args, gen)) for (key, args), gen in zip(todo, child_rngs(streams, len(todo)))]
    counted = _Progress(progress, len(todo) if isinstance(todo, list) else 0)
    if client is not None:
        from trialwise._stats.distributed import map_blocks

        results = map_blocks(client, kernel, todo)
        if weights is not None:
            weights.advance()  # the caller's rng moves on exactly as after the local pass
        for key, res in results:
            counted.step()
            yield key, res
        return
    if not threads:
        for key, args in todo:
            res = kernel(*args)
            counted.step()
            yield key, res
        return
    jobs = list(todo)
    order = range(len(jobs)) if cost is None else sorted(range(len(jobs)), key=lambda i: -cost[i])

    def run(i: int) -> Any:
        res = kernel(*jobs[i][1])
        counted.step()
        return res

    done = map_threads(run, order, workers, blas_one_thread=True)
    by_block: list[Any] = [None] * len(jobs)
    for i, res in zip(order, done):
        by_block[i] = res
    for (key, _), res in zip(jobs, by_block):
        yield key, res


class _Progress:
    """``progress(done, total)`` before the first block and after each, counted under a lock."""

    def __init__(self, progress: Callable[[int, int], None] | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0
        self.lock = threading.Lock()
        if progress is not None:
            progress(0, total)

    def step(self) -> None:
        if self.progress is None:
            return
        with self.lock:  # in order, whichever thread finished
            self.done += 1
            self.progress(self.done, self.total)


def gather_blocks(results: Iterable[tuple[Any, Mapping[str, Any]]], rows: Mapping[str, NDArray],
                  columns: Mapping[str, NDArray | None] | None = None) -> None:
    """Write every block's results into the output arrays at the block's key.

    ``rows[name][key] = result[name]`` (one value per pair of the block); ``columns[name][:, key] =
    result[name]`` (replicates × pairs; skipped where the array or the result is None: replicates
    not kept, or written by the block itself). Each result is dropped before the next block runs.
    """
    for key, res in results:
        for name, out in rows.items():
            out[key] = res[name]
        for name, cols in (columns or {}).items():
            if cols is not None and res[name] is not None:
                cols[:, key] = res[name]
        del res
