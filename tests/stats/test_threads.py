"""The one thread pool of trialwise (map_threads) and its budget, which follows the BLAS thread limits."""

import os
import threading
import time

import pytest

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.threads import THREAD_VARIABLES, map_threads, thread_budget


@pytest.fixture
def clean_env(monkeypatch):
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_without_limits_it_is_the_cpus_this_process_may_use(clean_env):
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert thread_budget() == expected


def test_a_dask_worker_limit_of_one_thread_is_followed(clean_env):
    clean_env.setenv("OMP_NUM_THREADS", "1")
    assert thread_budget() == 1


def test_the_smallest_limit_wins_and_junk_is_ignored(clean_env):
    clean_env.setenv("OMP_NUM_THREADS", "8")
    clean_env.setenv("OPENBLAS_NUM_THREADS", "3")
    clean_env.setenv("MKL_NUM_THREADS", "zero")
    assert thread_budget() == 3
    clean_env.setenv("OPENBLAS_NUM_THREADS", "0")
    assert thread_budget() == 8


# ------------------------------------------------------------------ the one thread pool (issue 30)

def test_map_threads_keeps_the_order_of_the_tasks_whatever_order_they_finish_in():
    def slow_first(x):
        time.sleep(0.02 if x == 0 else 0.0)  # task 0 finishes last
        return x * x

    assert map_threads(slow_first, range(6), workers=2) == [0, 1, 4, 9, 16, 25]
    assert map_threads(slow_first, iter(range(6)), workers=1) == [0, 1, 4, 9, 16, 25]
    assert map_threads(slow_first, [], workers=2) == []


def test_one_worker_runs_every_task_here_in_order_and_two_use_this_thread_and_one_helper():
    seen = []

    def record(x):
        seen.append((x, threading.get_ident()))
        time.sleep(0.01)

    map_threads(record, range(4), workers=1)
    assert [x for x, _ in seen] == [0, 1, 2, 3]
    assert {t for _, t in seen} == {threading.get_ident()}
    seen.clear()
    before = threading.active_count()
    map_threads(record, range(8), workers=2)
    threads = {t for _, t in seen}
    assert len(threads) == 2 and threading.get_ident() in threads  # the caller works too
    assert sorted(x for x, _ in seen) == list(range(8))
    assert threading.active_count() == before  # no thread outlives the call


def test_the_first_error_in_task_order_is_raised_and_no_task_starts_after_it():
    started = []

    def fail(x):
        started.append(x)
        time.sleep(0.01)
        if x in (3, 5):
            raise ValueError(f"task {x}")
        return x

    before = threading.active_count()
    with pytest.raises(ValueError, match="task 3"):
        map_threads(fail, range(40), workers=2)
    assert len(started) < 40  # the others stopped taking tasks
    assert threading.active_count() == before
    with pytest.raises(ValueError, match="task 3"):
        map_threads(fail, range(40), workers=1)


def test_ctrl_c_in_the_calling_thread_stops_the_loop_after_the_running_tasks():
    main = threading.main_thread()
    finished = []

    def work(x):
        if threading.current_thread() is main and x >= 2:
            raise KeyboardInterrupt
        time.sleep(0.02)
        finished.append(x)

    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        map_threads(work, range(50), workers=2)
    assert len(finished) < 49
    assert threading.active_count() == before  # the helper finished its task and stopped


def test_blas_runs_on_one_thread_inside_the_tasks_when_asked():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas_threads(_):
        return {p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"}

    inside = map_threads(blas_threads, range(2), workers=2, blas_one_thread=True)
    if not inside[0]:
        pytest.skip("no BLAS library found by threadpoolctl")
    assert inside == [{1}, {1}]


@pytest.mark.parametrize("workers, error", [(0, InvalidValueError), (-2, InvalidValueError), (1.5, InvalidTypeError),
                                            (True, InvalidTypeError)])
def test_map_threads_rejects_a_bad_number_of_workers(workers, error):
    with pytest.raises(error, match=r"`workers` must be None \(all cores\) or an integer >= 1; got"):
        map_threads(abs, [1, 2], workers=workers)
