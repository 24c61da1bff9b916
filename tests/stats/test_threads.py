"""The thread budget of trialwise's own parallel loops follows the BLAS thread limits."""

import os

import pytest

from trialwise._core.threads import THREAD_VARIABLES, thread_budget


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
