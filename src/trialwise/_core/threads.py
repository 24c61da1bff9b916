"""How many threads trialwise may use for its own parallel loops.

The library parallelises a few loops with threads (numpy releases the GIL): the κ of the
all-pairs bootstrap, the units of a leaderboard, the draws of a planning grid. Each takes
:func:`thread_budget` threads at most, so it follows the same limit as the process's BLAS:
a Dask worker runs with ``OMP_NUM_THREADS=1`` (and its siblings), a Slurm job often sets
them to its allocation — and ``os.cpu_count()`` would count every core of the node.
"""

from __future__ import annotations

import os

__all__ = ["THREAD_VARIABLES", "thread_budget"]

#: Environment variables that limit the threads of numpy's BLAS; the smallest one set wins.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


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
