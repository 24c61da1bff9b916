"""The one driver of the block-by-block bootstraps (trialwise._stats.blocks): blocks of pairs and units."""

import threading

import numpy as np
import pytest

from trialwise._core.errors import InvalidValueError
from trialwise._stats.blocks import block_size, gather_blocks, run_blocks
from trialwise._stats.resampling import ReplicateWeights
from trialwise._stats.streams import child_rngs


def test_blocks_run_one_at_a_time_each_made_after_the_last_result_was_taken():
    """The default (blocks of pairs): a block's arguments are made only when the block before it is done."""
    events = []

    def make():
        for i in range(3):
            events.append(f"make {i}")
            yield i, (i,)

    for key, res in run_blocks(lambda i: 10 * i, make()):
        events.append(f"got {key}={res}")
    assert events == ["make 0", "got 0=0", "make 1", "got 1=10", "make 2", "got 2=20"]


def test_each_unit_draws_from_its_own_child_stream_whatever_the_threads_and_the_order():
    """Unit i gets child_rngs(seed, n)[i] as its last argument, so its draws do not depend on the
    threads, the order the units ran in (largest first) or the number of workers."""
    def draw(size, gen):
        return gen.random(size)

    units = [(i, (3 + i,)) for i in range(7)]
    want = [g.random(3 + i) for i, g in enumerate(child_rngs(5, 7))]
    for kw in (dict(), dict(threads=True, workers=1), dict(threads=True, workers=2),
               dict(threads=True, workers=2, cost=[1, 9, 2, 8, 3, 7, 4])):
        got = list(run_blocks(draw, units, streams=5, **kw))
        assert [k for k, _ in got] == list(range(7)), kw  # block order, whatever order they ran in
        for (_, res), w in zip(got, want):
            np.testing.assert_array_equal(res, w)


def test_threads_start_the_largest_block_first_and_report_progress_in_order():
    ran, calls = [], []
    list(run_blocks(lambda i: ran.append(i), [(i, (i,)) for i in range(4)], threads=True, workers=1,
                    cost=[2, 5, 1, 3], progress=lambda done, total: calls.append((done, total))))
    assert ran == [1, 3, 0, 2]
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    calls.clear()
    list(run_blocks(lambda i: i, [(i, (i,)) for i in range(6)], threads=True, workers=2,
                    progress=lambda done, total: calls.append((done, total))))
    assert calls == [(d, 6) for d in range(7)]  # counted under a lock: never out of order


def test_threads_run_with_blas_on_one_thread():
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def blas(_):
        return {p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"}

    got = [res for _, res in run_blocks(blas, [(0, (0,)), (1, (1,))], threads=True, workers=2)]
    assert got in ([{1}, {1}], [set(), set()])  # (no BLAS found: nothing to limit)


def test_an_error_in_a_block_reaches_the_caller():
    def kernel(i):
        if i == 2:
            raise ValueError("block 2")
        return i

    for kw in (dict(), dict(threads=True, workers=2)):
        with pytest.raises(ValueError, match="block 2"):
            list(run_blocks(kernel, [(i, (i,)) for i in range(5)], **kw))


def test_the_shared_weights_are_the_same_in_every_block_and_rng_moves_as_after_one_pass():
    gen = np.random.default_rng(3)
    w = ReplicateWeights(20, 50, rng=gen, batch=7)
    got = dict(run_blocks(lambda weights: np.concatenate(list(weights)), [(i, (w,)) for i in range(3)], weights=w))
    np.testing.assert_array_equal(got[0], got[2])
    after = gen.random()
    again = np.random.default_rng(3)
    np.concatenate(list(ReplicateWeights(20, 50, rng=again, batch=7)))
    assert after == again.random()


def test_gather_writes_rows_and_columns_at_each_block_and_skips_what_was_not_kept():
    lo = np.zeros(5)
    dist = np.zeros((2, 5))
    results = [(slice(0, 2), dict(lo=np.array([1.0, 2.0]), dist=np.ones((2, 2)))),
               (np.array([4, 2]), dict(lo=np.array([5.0, 3.0]), dist=None))]
    gather_blocks(iter(results), rows=dict(lo=lo), columns=dict(dist=dist))
    np.testing.assert_array_equal(lo, [1, 2, 3, 0, 5])
    np.testing.assert_array_equal(dist, [[1, 1, 0, 0, 0], [1, 1, 0, 0, 0]])
    gather_blocks(iter(results), rows=dict(lo=lo), columns=dict(dist=None))  # replicates not kept


@pytest.mark.parametrize("n, unit, budget, multiple, minimum", [
    (10_000, 1_000, 300_000, 128, 128), (100, 1_000, 300_000, 128, 128), (5_000, 7, 10**9, 1, 256),
    (5_000, 10**6, 1, 1, 256), (300, 7_200, 128 * 7_200, 128, 128)])
def test_block_size_fills_the_budget_in_multiples(n, unit, budget, multiple, minimum):
    m = block_size(n, unit, budget, multiple=multiple, minimum=minimum)
    assert min(minimum, n) <= m <= n
    assert m == n or m == minimum or (m % multiple == 0 and m * unit <= budget < (m + multiple) * unit)


@pytest.mark.parametrize("kw, match", [
    (dict(client=object(), threads=True), "`client`"), (dict(workers=2), "`cost` and `workers`"),
    (dict(cost=[1]), "`cost` and `workers`"), (dict(weights=object(), streams=0), "`weights`")])
def test_run_blocks_refuses_options_that_do_not_go_together(kw, match):
    with pytest.raises(InvalidValueError, match=match):
        list(run_blocks(abs, [(0, (1,))], **kw))


def test_no_thread_outlives_a_threaded_run():
    before = threading.active_count()
    list(run_blocks(lambda i: i, [(i, (i,)) for i in range(20)], threads=True, workers=2))
    assert threading.active_count() == before
