"""The one thread pool of trialwise, and how many threads it may use.

The library parallelises a few loops with threads (numpy, BLAS and scipy's distributions
release the GIL): the units of a leaderboard's bootstrap, the slices of κ of the all-pairs
bootstrap, the blocks of a large Monte-Carlo simulation, the swap tests of a leaderboard's
pairs. Every one of them runs through :func:`map_threads`, which takes
:func:`thread_budget` threads at most, so all follow the same limit as the process's BLAS:
a Dask worker runs with ``OMP_NUM_THREADS=1`` (and its siblings), a Slurm job often sets
them to its allocation — and ``os.cpu_count()`` would count every core of the node.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from trialwise._core.validation import check_workers

__all__ = ["THREAD_VARIABLES", "thread_budget", "map_threads", "one_blas_thread"]

#: Environment variables that limit the threads of numpy's BLAS; the smallest one set wins.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

T = TypeVar("T")
R = TypeVar("R")


def thread_budget() -> int:
    """The number of threads a parallel loop of trialwise may use (at least 1).

    The smallest positive integer among :data:`THREAD_VARIABLES` that is set; else the
    number of CPUs this process may run on (``os.sched_getaffinity``, where it exists);
    else ``os.cpu_count()``. Values that are not positive integers are ignored.

    Returns
    -------
    int

    Examples
    --------
    >>> thread_budget() >= 1
    True
    """
    limits = []
    for name in THREAD_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            limits.append(int(value))
    if limits:
        return min(limits)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context in which BLAS runs on one thread (``threadpoolctl``).

    For a loop whose parallelism is over its tasks (the units of a leaderboard's bootstrap):
    each task's products are a small share of its work, and a multithreaded BLAS called
    from those threads leaves its idle threads spinning on the cores the tasks need
    (model-vs-human, B = 10,000: 6.4 → 5.6 s wall, 6.4 → 5.5 s CPU); with one thread the
    sums are also the same bits for any number of tasks' threads. The limit is process-wide
    while the context lasts (threadpoolctl sets the BLAS library's own thread count): other
    threads of the process that call BLAS meanwhile also get one thread.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield


def map_threads(fn: Callable[[T], R], tasks: Iterable[T], workers: int | None = None, *,
                blas_one_thread: bool = False) -> list[R]:
    """``[fn(task) for task in tasks]``, on up to ``workers`` threads: the one thread pool of trialwise.

    Parameters
    ----------
    fn : callable
        Called once per task, from any of the threads (it must be safe to run concurrently,
        e.g. each task writing its own slice of an output array).
    tasks : iterable
        Read whole before the first call.
    workers : int, optional
        Threads, the calling thread included (default :func:`thread_budget`); never more
        than there are tasks. With one, every task runs here, in order, and no thread is
        started.
    blas_one_thread : bool, default False
        Run the tasks in :func:`one_blas_thread` (the parallelism is the tasks').

    Returns
    -------
    list
        The results in the order of ``tasks``, whatever order the tasks ran in.

    Raises
    ------
    Exception
        The first (in task order) that a task raised. No task starts after one has failed;
        those already running finish first, so no thread outlives the call.
    KeyboardInterrupt
        On Ctrl-C: no task starts afterwards, and the call returns (raising it) when the
        running ones have finished.

    Notes
    -----
    The calling thread works too (``workers − 1`` helper threads are started), and each thread
    takes the next task when it is done with one, so tasks of unequal size balance: pass the
    largest first. A task's result does not depend on the thread that ran it, so the results
    are the same for any ``workers``.

    Examples
    --------
    >>> map_threads(lambda x: x * x, range(5), workers=2)
    [0, 1, 4, 9, 16]
    """
    todo = list(tasks)
    n = min(len(todo), thread_budget() if workers is None else check_workers(workers) or 1)
    if blas_one_thread:
        with one_blas_thread():
            return _map(fn, todo, n)
    return _map(fn, todo, n)


def _map(fn: Callable[[T], R], todo: list[T], n: int) -> list[R]:
    if n <= 1:
        return [fn(task) for task in todo]
    from concurrent.futures import ThreadPoolExecutor

    results: list[Any] = [None] * len(todo)
    failed: list[tuple[int, BaseException]] = []
    lock = threading.Lock()
    order = iter(range(len(todo)))
    stop = threading.Event()

    def work() -> None:  # take the next task until none is left or one has failed
        while not stop.is_set():
            with lock:
                i = next(order, None)
            if i is None:
                return
            try:
                results[i] = fn(todo[i])
            except Exception as exc:  # kept for the caller; the other threads stop taking tasks
                failed.append((i, exc))
                stop.set()
                return

    with ThreadPoolExecutor(n - 1) as pool:  # leaving waits for the helpers' running tasks
        helpers = [pool.submit(work) for _ in range(n - 1)]
        try:
            work()  # this thread is one of the workers
            for helper in helpers:
                helper.result()
        except BaseException:  # Ctrl-C (raised in this thread only): start no more tasks
            stop.set()
            raise
    if failed:
        raise min(failed, key=lambda f: f[0])[1]
    return results
