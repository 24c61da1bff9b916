"""The all-pairs bootstrap on a Dask cluster (issue 17, goal 5): ``pairwise_error_consistency(..., client=)``.

One ``LocalCluster`` of two worker *processes* (one thread each) for the module. The oracle is
the single-process path of the same function with the same seed: every number must be equal
bit for bit, whatever the block size and the number of workers, with a worker killed mid-run,
and each task's inputs and outputs must be O(block), never O(pairs × B) or O(B × items).
"""

from __future__ import annotations

import importlib
import os
import pickle
import signal
import sys
import threading
import time
import warnings

import numpy as np
import pytest

import trialwise as tw

distributed = pytest.importorskip("distributed")

FIELDS = ("statistic", "pvalue", "n", "counts", "n_undefined", "n_undefined_null", "bootstrap_distribution")


@pytest.fixture(scope="module")
def client():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cluster's own start-up chatter is not ours to test
        cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                           dashboard_address=None)
        c = distributed.Client(cluster)
        # both workers registered: the block layout depends on their number (a loaded machine may still be
        # starting one when the client returns; one test then saw a single block of 276 pairs, not 28 + 248)
        c.wait_for_workers(2, timeout=120)
    yield c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c.close()
        cluster.close()


def _observers(n_items=120, n_obs=24, seed=0):
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.5, 0.9, n_obs)
    base = rng.random(n_items)
    x = ((base[:, None] + 0.3 * rng.random((n_items, n_obs))) < skill + 0.15).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    return x


def _same(a, b):
    for name in FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)
    for name in ("low", "high"):
        np.testing.assert_array_equal(getattr(a.confidence_interval, name), getattr(b.confidence_interval, name),
                                      err_msg=name)
    assert (a.test, a.ci_method, a.pair_notes) == (b.test, b.ci_method, b.pair_notes)


def _run(x, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return tw.pairwise_error_consistency(x, **kw)


def _local(x, **kw):
    """The single-process path with a one-thread BLAS, as in a Dask worker (which sets
    OPENBLAS/OMP_NUM_THREADS=1): a multi-threaded float64 product may round the Bayesian
    bootstrap's weighted sums differently in the last bits (the multinomial ones are exact)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn (test extra)
        return _run(x, **kw)
    with threadpool_limits(limits=1, user_api="blas"):
        return _run(x, **kw)


@pytest.mark.parametrize("kw", [dict(ci_method="jeffreys"), dict(ci_method="percentile"), dict(ci_method="bca"),
                                dict(ci_method="jeffreys", unbiased=True, strata="s"),
                                dict(clusters=True),  # the cluster jackknife-t and its t test
                                dict(clusters=True, ci_method="percentile")])  # the cluster bootstrap test
def test_dask_path_is_identical_to_the_local_path(client, kw):
    x = _observers()
    if kw.pop("clusters", False):
        kw["clusters"] = np.arange(x.shape[0]) // 4
    if kw.get("strata"):
        kw["strata"] = np.arange(x.shape[0]) % 3
    g_local, g_dask = np.random.default_rng(5), np.random.default_rng(5)
    local = _local(x, n_resamples=300, rng=g_local, keep_replicates=True, **kw)
    on_dask = _run(x, n_resamples=300, rng=g_dask, keep_replicates=True, client=client, **kw)
    assert len(local) == 276 and local.bootstrap_distribution.shape == (300, 276)
    _same(local, on_dask)
    # the caller's generator has moved on exactly as on the local path
    assert g_local.random() == g_dask.random()
    # with numpy's BLAS on all its threads, the same to the last bits of the float64 sums
    threaded = _run(x, n_resamples=300, rng=5, keep_replicates=True, **kw)
    np.testing.assert_allclose(threaded.bootstrap_distribution, on_dask.bootstrap_distribution, rtol=0, atol=1e-12)
    for name in ("low", "high"):
        np.testing.assert_allclose(getattr(threaded.confidence_interval, name),
                                   getattr(on_dask.confidence_interval, name), rtol=0, atol=1e-12)


def test_identical_across_block_sizes_and_chunks(client, monkeypatch):
    """Blocks of at most 128 or 256 pairs on the cluster, in tiles of observers (the local path:
    all 276 pairs in one run), weight chunks of 37 rows or the default: always the numbers of
    the local path. Tiles of ⌊√128⌋ = 11 observers (0–10, 11–21, 22–23) give the tile pairs
    (0,0) 55 pairs, (0,1) 121, (0,2) 22, (1,1) 55, (1,2) 22, (2,2) 1, the last four joined:
    blocks of 55, 121, 100; tiles of ⌊√256⌋ = 16 (0–15, 16–23): 120 + 128 joined, then 28."""
    import trialwise._stats.distributed as td
    import trialwise.ec.blocks as ec

    x = _observers()
    ref = _local(x, n_resamples=200, rng=11, keep_replicates=True)
    ref37 = _local(x, n_resamples=200, rng=11, keep_replicates=True, batch=37)
    sizes = []
    real = td.map_blocks

    def spy(c, func, blocks):
        for key, res in real(c, func, blocks):
            sizes.append(len(res["lo"]))
            yield key, res

    monkeypatch.setattr(td, "map_blocks", spy)
    client.wait_for_workers(2, timeout=120)  # the layouts below are for two workers
    for tasks_per_worker, budget, blocks in ((4, None, [55, 100, 121]), (1, 1, [55, 100, 121]),
                                             (1, 10**9, [28, 248])):
        monkeypatch.setattr(td, "TASKS_PER_WORKER", tasks_per_worker)
        if budget is not None:
            monkeypatch.setattr(ec, "PAIR_BLOCK_BYTES", budget)
        for batch, want in ((None, ref), (37, ref37)):
            sizes.clear()
            _same(want, _run(x, n_resamples=200, rng=11, keep_replicates=True, batch=batch, client=client))
            assert sorted(sizes) == blocks
    np.testing.assert_array_equal(ref.statistic, ref37.statistic)


def test_a_worker_killed_mid_run_changes_nothing(client):
    """SIGKILL the worker process that is running a block; Dask reruns its tasks elsewhere
    (or on the restarted worker) and the result is the local one."""
    x = _observers(n_items=200, n_obs=40, seed=3)  # 780 pairs: 7 blocks of ≤ 128
    kw = dict(n_resamples=6000, rng=2)
    ref = _local(x, **kw)
    client.wait_for_workers(2)
    pids = client.run(os.getpid)
    out: dict = {}

    def work():
        try:
            out["res"] = _run(x, client=client, **kw)
        except BaseException as exc:  # pragma: no cover - reported below
            out["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    victim = None
    deadline = time.monotonic() + 30
    while victim is None and time.monotonic() < deadline and thread.is_alive():
        busy = {w: keys for w, keys in client.processing().items()
                if any(str(k).startswith("trialwise-block") for k in keys)}
        victim = next(iter(busy), None)
        if victim is None:
            time.sleep(0.02)
    assert victim is not None, "no block was seen running on a worker"
    os.kill(pids[victim], signal.SIGKILL)
    killed_while_running = thread.is_alive()
    thread.join(120)
    assert not thread.is_alive()
    assert "error" not in out, out.get("error")
    assert killed_while_running
    _same(ref, out["res"])
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it; the other tests keep two workers
    assert pids[victim] not in client.run(os.getpid).values()


def test_each_task_holds_only_its_block(client, monkeypatch):
    """What is shipped to a task is the block's item columns plus the weights' *stream*
    (not the B × items weights), and what comes back is O(pairs of the block), not
    O(pairs × B): measured as the pickled bytes of every task's arguments and result."""
    import trialwise._stats.distributed as td

    n_items, B = 150, 4000
    x = _observers(n_items=n_items, n_obs=30, seed=4)  # 435 pairs
    shipped, returned, blocks = [], [], []
    real = td.map_blocks

    def spy(c, func, items):
        def measured():
            for key, args in items:
                shipped.append(len(pickle.dumps(args)))
                blocks.append((args[0].shape[1], len(args[2])))
                yield key, args
        for key, res in real(c, func, measured()):
            returned.append((len(res["lo"]), len(pickle.dumps(res))))
            yield key, res

    monkeypatch.setattr(td, "map_blocks", spy)
    res = _run(x, n_resamples=B, rng=1, client=client, keep_replicates=False)
    assert res.bootstrap_distribution.shape == (0, 435)
    weights_bytes, replicates_bytes = 8 * B * n_items, 8 * B * 435
    assert len(shipped) == len(returned) >= 2
    for size, (n_obs_block, m) in zip(shipped, blocks):
        # two uint8 columns per observer of the block, the pairs, the options and the stream: no B
        assert size <= 2 * n_items * n_obs_block + 16 * m + 20_000, size
        assert size < weights_bytes / 50
    for m, size in returned:
        assert m <= 128
        assert size <= 120 * m + 4_000, size  # a few numbers per pair
        assert size < replicates_bytes / 100
    # and the dask path still equals the local one here
    _same(_local(x, n_resamples=B, rng=1, keep_replicates=False), res)


def test_client_must_be_a_dask_client():
    x = _observers(n_items=20, n_obs=3)
    with pytest.raises(tw.InvalidTypeError, match=r"`client` must be a dask.distributed.Client.*got 4 of type int"):
        tw.pairwise_error_consistency(x, client=4)


def test_client_without_dask_installed_says_how_to_install(monkeypatch):
    from trialwise._stats.distributed import check_client

    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    with pytest.raises(ImportError, match=r'pip install "trialwise\[dask\]"'):
        check_client(object())


def test_map_blocks_returns_every_block_once_and_raises_a_task_error(client, monkeypatch):
    import trialwise._stats.distributed as td

    monkeypatch.setattr(td, "TASKS_PER_WORKER", 2)  # 4 in flight: the 30 blocks go through the window
    blocks = [(k, (k * 7, 3)) for k in range(30)]
    got = dict(td.map_blocks(client, divmod, iter(blocks)))
    assert got == {k: divmod(k * 7, 3) for k in range(30)}
    with pytest.raises(ZeroDivisionError):
        dict(td.map_blocks(client, divmod, iter(blocks[:5] + [(99, (1, 0))] + blocks[5:])))
    # 1,000 pairs for 2 workers × 2 tasks: 250 per task, rounded up to a multiple of 128
    assert td.task_block_size(client, 1000, 2560, 128) == 256
    assert td.task_block_size(client, 1000, 128, 128) == 128  # never above the memory-bounded size
    assert td.task_block_size(client, 100, 2560, 128) == 100  # never above all of them


# ----------------------------------------------------------------- the all-pairs agreement functions

AGREEMENT_FIELDS = ("statistic", "pvalue", "n", "n_undefined", "c_obs", "c_exp", "bootstrap_distribution")


def _models(n_models=24, n_questions=120, k=4, seed=0):
    """(models × questions × options) probabilities of related models, and the truth."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.ones(k), n_questions)
    mix = rng.uniform(0.2, 0.8, n_models)[:, None, None]
    probs = mix * base + (1 - mix) * rng.dirichlet(np.ones(k), (n_models, n_questions))
    return probs, rng.integers(0, k, n_questions)


def _agree(probs, truth, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return tw.pairwise_agreement(probs, truth=truth, **kw)


def _agree_local(probs, truth, **kw):
    """With a one-thread BLAS in this process, as in a Dask worker: the point values (one Gram
    matrix, on the client) and the local bootstrap's float64 products then round alike."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _agree(probs, truth, **kw)


def _same_agreement(a, b):
    for name in AGREEMENT_FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)
    for name in ("low", "high"):
        np.testing.assert_array_equal(getattr(a.confidence_interval, name), getattr(b.confidence_interval, name),
                                      err_msg=name)
    assert (a.method, a.ci_method, a.n_clusters, a.pair_notes) == (b.method, b.ci_method, b.n_clusters, b.pair_notes)


@pytest.mark.parametrize("kw", [dict(metric="capa"), dict(metric="capa", ci_method="bca"),
                                dict(metric="capa", clusters=True),  # the jackknife t interval and its t test
                                dict(metric="capa-discrete", ci_method="basic"), dict(metric="choice")])
def test_agreement_dask_path_is_identical_to_the_local_path(client, kw):
    probs, truth = _models()
    if kw.pop("clusters", False):
        kw["clusters"] = np.arange(probs.shape[1]) // 4
    g_local, g_dask = np.random.default_rng(5), np.random.default_rng(5)
    local = _agree_local(probs, truth, n_resamples=300, rng=g_local, **kw)
    on_dask = _agree_local(probs, truth, n_resamples=300, rng=g_dask, client=client, **kw)
    assert len(local) == 276 and local.bootstrap_distribution.shape == (300, 276)
    _same_agreement(local, on_dask)
    assert g_local.random() == g_dask.random()  # the caller's generator moved on alike
    threaded = _agree(probs, truth, n_resamples=300, rng=5, **kw)  # numpy's BLAS on all its threads
    np.testing.assert_allclose(threaded.bootstrap_distribution, on_dask.bootstrap_distribution, rtol=0, atol=1e-12)


def test_agreement_identical_across_block_sizes_and_chunks(client, monkeypatch):
    """Tasks of one tile or of several (locally: one block of all 780 pairs, or blocks of at
    most 256), weight chunks of 37 rows or the default: always the numbers of the local path."""
    import trialwise._stats.distributed as td

    ag = importlib.import_module("trialwise.similarity.pairwise")
    probs, truth = _models(n_models=40, seed=1)  # tiles of 120, 256, 128, 120, 128, 28 pairs
    ref = _agree_local(probs, truth, n_resamples=200, rng=11)
    ref37 = _agree_local(probs, truth, n_resamples=200, rng=11, batch=37)
    sizes = []
    real = td.map_blocks

    def spy(c, func, blocks):
        for key, res in real(c, func, blocks):
            sizes.append(len(res["lo"]))
            yield key, res

    monkeypatch.setattr(td, "map_blocks", spy)
    for tasks_per_worker, budget, n_blocks, largest in ((4, None, 6, 256), (1, 10**9, 3, 376), (4, 1, 6, 256)):
        monkeypatch.setattr(td, "TASKS_PER_WORKER", tasks_per_worker)
        if budget is not None:
            monkeypatch.setattr(ag, "PAIR_BLOCK_BYTES", budget)
        for batch, want in ((None, ref), (37, ref37)):
            sizes.clear()
            _same_agreement(want, _agree_local(probs, truth, n_resamples=200, rng=11, batch=batch, client=client))
            assert sum(sizes) == 780 and len(sizes) == n_blocks and max(sizes) == largest
    # the local path in blocks of at most 256 pairs (PAIR_BLOCK_BYTES = 1 above) is the same too
    _same_agreement(ref, _agree_local(probs, truth, n_resamples=200, rng=11))
    # the chunking of the weights does not change the replicates (up to the float64 product's last bits)
    np.testing.assert_allclose(ref.bootstrap_distribution, ref37.bootstrap_distribution, rtol=0, atol=1e-12)


def test_agreement_task_holds_only_its_block(client, monkeypatch):
    """A task gets the probabilities of its tile's models (not all models) and the weights'
    stream (not the B × questions weights), and returns O(pairs of the block) without the replicates."""
    import trialwise._stats.distributed as td

    n_models, n_questions, k, B = 60, 100, 4, 2000
    probs, truth = _models(n_models, n_questions, k, seed=4)  # 1,770 pairs
    shipped, returned, blocks = [], [], []
    real = td.map_blocks

    def spy(c, func, items):
        def measured():
            for key, args in items:
                shipped.append(len(pickle.dumps(args)))
                blocks.append(args[0].shape[0])
                yield key, args
        for key, res in real(c, func, measured()):
            returned.append((len(res["lo"]), len(pickle.dumps(res))))
            yield key, res

    monkeypatch.setattr(td, "map_blocks", spy)
    res = _agree_local(probs, truth, n_resamples=B, rng=1, client=client, keep_replicates=False)
    assert res.bootstrap_distribution.shape == (0, 1770)
    assert len(shipped) == len(returned) >= 8
    for size, models_of_block, (m, _) in zip(shipped, blocks, returned):
        assert models_of_block <= 32  # one tile: its two blocks of 16 models
        assert size <= 8 * k * n_questions * models_of_block + 40 * n_questions + 40 * m + 20_000, size
        assert size < 8 * B * n_questions / 4  # not the weights
    for m, size in returned:
        assert m <= 256 and size <= 60 * m + 4_000, size  # a few numbers per pair
    _same_agreement(_agree_local(probs, truth, n_resamples=B, rng=1, keep_replicates=False), res)
    with pytest.raises(tw.InvalidValueError, match="keep_replicates=False"):
        res.difference(0, 1, 2)


def test_agreement_ec_metric_and_bad_client(client):
    probs, truth = _models(n_models=6, n_questions=80, seed=2)
    local = _agree_local(probs, truth, metric="ec", n_resamples=200, rng=3)
    _same_agreement(local, _agree_local(probs, truth, metric="ec", n_resamples=200, rng=3, client=client))
    with pytest.raises(tw.InvalidTypeError, match=r"`client` must be a dask.distributed.Client.*got 'tcp://x:1'"):
        tw.pairwise_agreement(probs, truth=truth, client="tcp://x:1")
    with pytest.raises(tw.InvalidTypeError, match=r"`keep_replicates` must be True, False or None; got 'yes'"):
        tw.pairwise_agreement(probs, truth=truth, keep_replicates="yes")


def _source_chunks(lazy, axis=0) -> set:
    """The chunks (along ``axis``) of the stored array that computing ``lazy`` reads."""
    import dask

    graph = dict(dask.optimize(lazy)[0].__dask_graph__())
    return {key[1 + axis] for key in graph if isinstance(key, tuple) and str(key[0]).startswith("from-npy-stack")}


def test_agreement_of_a_stored_array_is_read_by_the_workers_tile_by_tile(client, monkeypatch, tmp_path):
    """A (models × questions × options) Dask array in storage (an npy stack, 16 models per
    chunk): the numbers of the in-memory array, and each task reads only the chunks of its
    tile's two blocks of models — never the whole array, which is not shipped either."""
    import dask.array as da

    import trialwise._stats.distributed as td

    probs, truth = _models(n_models=60, n_questions=100, seed=6)  # 4 chunks of models; 1,770 pairs
    da.to_npy_stack(str(tmp_path), da.from_array(probs, chunks=(16, 100, 4)), axis=0)
    stored = da.from_npy_stack(str(tmp_path))
    assert stored.numblocks[0] == 4
    reads, shipped = [], []
    real = td.map_blocks

    def spy(c, func, items):
        def measured():
            for key, args in items:
                assert hasattr(args[0], "__dask_graph__")  # still in storage when it is shipped
                reads.append(_source_chunks(args[0]))
                shipped.append(len(pickle.dumps(args)))
                yield key, args
        yield from real(c, func, measured())

    monkeypatch.setattr(td, "map_blocks", spy)
    for metric in ("capa", "choice"):
        reads.clear()
        ref = _agree_local(probs, truth, metric=metric, n_resamples=300, rng=8, ci_method="bca")
        got = _agree_local(stored, truth, metric=metric, n_resamples=300, rng=8, ci_method="bca", client=client)
        _same_agreement(ref, got)
        assert len(reads) >= 8 and all(1 <= len(r) <= 2 for r in reads)  # a tile's two blocks of models
        assert set().union(*reads) == {0, 1, 2, 3}
        assert max(shipped) < probs.nbytes / 10
    # without a client the same blocks are read in this process
    monkeypatch.setattr(td, "map_blocks", real)
    _same_agreement(ref, _agree_local(stored, truth, metric="choice", n_resamples=300, rng=8, ci_method="bca"))
    with pytest.raises(tw.InvalidValueError, match="metric='ec' needs the array in memory"):
        tw.pairwise_agreement(stored, truth=truth, metric="ec")


def test_error_consistency_of_a_stored_array_is_read_by_the_workers(client, monkeypatch, tmp_path):
    """``correct`` as a Dask array in storage (an npy stack of 8 observers per chunk): the
    numbers of the in-memory array, and each task reads only the chunks of its block's
    observers — never the whole array, which is not shipped either."""
    import dask.array as da

    import trialwise._stats.distributed as td

    x = _observers(n_items=60, n_obs=200, seed=8)  # 19,900 pairs; 25 chunks of observers
    da.to_npy_stack(str(tmp_path), da.from_array(x, chunks=(60, 8)), axis=1)
    stored = da.from_npy_stack(str(tmp_path))
    assert stored.numblocks == (1, 25)
    pairs = np.column_stack(np.triu_indices(200, 1))
    reads, expected, shipped = [], [], []
    real = td.map_blocks

    def spy(c, func, items):
        def measured():
            for key, args in items:
                right, seen, virtual, local = args[:4]
                assert hasattr(right, "__dask_graph__") and hasattr(seen, "__dask_graph__")  # not read yet
                reads.append(_source_chunks(right, axis=1) | _source_chunks(seen, axis=1))
                expected.append(set(np.unique(pairs[key]) // 8))
                assert len(local) == len(key) <= 128
                # the Jeffreys virtual items of the block's observers only (N = 256 rows)
                assert virtual is None or virtual.shape == (256, len(np.unique(pairs[key])))
                shipped.append(len(pickle.dumps(args)))
                yield key, args
        yield from real(c, func, measured())

    monkeypatch.setattr(td, "map_blocks", spy)
    monkeypatch.setattr(td, "TASKS_PER_WORKER", 200)  # blocks of at most 128 pairs: tiles of one chunk
    for ci_method in ("percentile", "jeffreys"):
        reads.clear(), expected.clear(), shipped.clear()
        kw = dict(n_resamples=50, rng=9, ci_method=ci_method, keep_replicates=True)
        _same(_local(x, **kw), _run(stored, client=client, **kw))
        assert reads == expected  # exactly the chunks of the block's observers
        # 25 tiles (one chunk each, ⌊√128⌋ = 11 > 8): a block holds one or two tile pairs
        assert max(len(r) for r in reads) <= 4 and 25 * 26 // 4 <= len(reads) <= 25 * 26 // 2
        per_chunk = np.bincount([c for r in reads for c in r], minlength=25)
        assert per_chunk.max() <= 25  # a chunk is read at most once per tile pair it is in
        # the options, the stream and a graph (and the block's virtual items): no data
        assert max(shipped) < 30_000 + (0 if ci_method == "percentile" else 256 * 16) < x.nbytes / 2
    monkeypatch.setattr(td, "map_blocks", real)
    _same(_local(x, n_resamples=50, rng=9), _local(stored, n_resamples=50, rng=9))  # and without a client
    bad = stored.copy()
    bad[3, 5] = 2.0
    with pytest.raises(tw.InvalidValueError, match=r"`correct` must be 0/1 \(NaN = not seen\); found values \[2.0\]"):
        _run(bad, n_resamples=20, rng=0, client=client)
    with pytest.raises(tw.InvalidValueError, match="`ci_method`='analytic' needs every table on the client"):
        _run(stored, ci_method="analytic")


class CountingStore:
    """A (items × observers) array in an .npy file, read like a zarr array (``da.from_array``
    calls ``__getitem__`` once per chunk it reads, wherever the task runs), that appends the
    first column of every read to a log file: the reads of all processes, counted."""

    def __init__(self, path, log):
        self.path, self.log = str(path), str(log)
        head = np.load(self.path, mmap_mode="r")
        self.shape, self.dtype, self.ndim = head.shape, head.dtype, head.ndim

    def __getitem__(self, key):
        out = np.array(np.load(self.path, mmap_mode="r")[key])
        if out.size:  # (not the empty slice dask takes for the array's type)
            cols = key[1] if isinstance(key, tuple) and len(key) > 1 else slice(None)
            with open(self.log, "a") as f:
                f.write(f"{cols.start or 0 if isinstance(cols, slice) else int(np.min(cols))}\n")
        return out

    def reads(self, chunk: int, n_chunks: int) -> np.ndarray:
        """How often each chunk was read so far."""
        with open(self.log) as f:
            firsts = [int(line) for line in f if line.strip()]
        return np.bincount(np.asarray(firsts, dtype=np.intp) // chunk, minlength=n_chunks)


def test_a_stored_array_is_read_once_per_tile_pair_not_once_per_block(client, monkeypatch, tmp_path):
    """Observer tiles: a task reads its two tiles' chunks, so each chunk of a stored ``correct``
    is read about as often as there are tiles (15 here), not as often as there are blocks: the
    runs of 128 consecutive pairs of before would read a chunk up to 56 times (computed below
    from their observers). Counted in the store itself, on the workers and in this process, and
    the numbers are those of the array in memory."""
    import cloudpickle
    import dask.array as da

    import trialwise._stats.distributed as td

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the store's class, to the workers
    n_obs, chunk = 120, 8
    x = _observers(n_items=60, n_obs=n_obs, seed=10)  # 7,140 pairs; 15 chunks of 8 observers
    np.save(tmp_path / "x.npy", x)
    n_chunks, pairs = n_obs // chunk, np.column_stack(np.triu_indices(n_obs, 1))
    runs = [np.unique(pairs[s: s + 128]) // chunk for s in range(0, len(pairs), 128)]
    before = np.bincount(np.concatenate([np.unique(r) for r in runs]), minlength=n_chunks)
    assert before.max() == len(runs) == 56  # the last chunk: in every run of consecutive pairs
    kw = dict(n_resamples=40, rng=4, ci_method="percentile", keep_replicates=True)
    ref = _local(x, **kw)
    monkeypatch.setattr(td, "TASKS_PER_WORKER", 200)  # blocks of at most 128 pairs, as the runs above
    try:
        for i, use_client in enumerate((True, False)):
            store = CountingStore(tmp_path / "x.npy", tmp_path / f"reads{i}.log")
            stored = da.from_array(store, chunks=(60, chunk), fancy=False, name=f"counting-store-{i}")
            if use_client:
                _same(ref, _run(stored, client=client, **kw))
            else:
                monkeypatch.setattr(td, "TASKS_PER_WORKER", 4)  # unused without a client
                _same(ref, _local(stored, **kw))
            reads = store.reads(chunk, n_chunks)
            assert reads.min() >= 1
            if use_client:  # blocks of ≤ 128 pairs in tiles of one chunk: one or two tile pairs per block
                assert reads.max() <= n_chunks < before.max() / 3
                assert reads.sum() <= before.sum() / 3
            else:  # one block of all 7,140 pairs (m = all pairs: tiles of ⌊√7140⌋ = 84 → 80 observers)
                assert reads.max() == 1
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_tiles_cover_every_pair_once_within_their_bounds():
    """``tile_edges``/``tile_blocks`` against brute force: every pair in exactly one block of at
    most ``size`` pairs, tiles of at most ``side`` observers that are whole chunks or part of one,
    and a block's pairs within as few tiles as its groups need (one group: two tiles)."""
    from trialwise._stats.distributed import tile_blocks, tile_edges

    rng = np.random.default_rng(0)
    for n_obs, side, chunks, size in ((24, 11, None, 128), (200, 11, [8] * 25, 128), (130, 50, [64, 64, 2], 2500),
                                      (97, 7, [5, 30, 1, 1, 60], 40), (10, 3, [1] * 10, 9)):
        edges = tile_edges(n_obs, side, chunks)
        assert edges[0] == 0 and edges[-1] == n_obs and np.all(np.diff(edges) >= 1)
        assert np.diff(edges).max() <= side
        if chunks is not None:
            chunk_edges = np.cumsum([0] + chunks)
            for lo, hi in zip(edges[:-1], edges[1:]):  # whole chunks, or a part of one chunk
                inside = np.any((chunk_edges > lo) & (chunk_edges < hi))
                assert not inside or (lo in chunk_edges and hi in chunk_edges)
        pairs = np.column_stack(np.triu_indices(n_obs, 1))
        chosen = pairs[rng.permutation(len(pairs))[: len(pairs) // 2]]  # any order, either way round
        chosen[::3] = chosen[::3, ::-1]
        for p in (pairs, np.concatenate([chosen, chosen[:5]])):  # (a pair may be asked for twice)
            blocks = tile_blocks(p, edges, size)
            assert sorted(np.concatenate(blocks).tolist()) == list(range(len(p)))
            assert max(len(b) for b in blocks) <= size
            tile_of = np.searchsorted(edges, np.arange(n_obs), side="right") - 1
            for b in blocks:
                groups = {tuple(sorted(t)) for t in tile_of[p[b]]}
                assert len(set(tile_of[p[b]].ravel())) <= 2 * len(groups)
                if len(groups) == 1:
                    assert len(set(tile_of[p[b]].ravel())) <= 2


def test_chosen_pairs_in_any_order_on_the_cluster(client):
    """``pairs=`` in a shuffled order, some reversed: the tiles regroup them, the result keeps
    the caller's order and the numbers of the local path."""
    x = _observers(n_items=80, n_obs=30, seed=12)
    rng = np.random.default_rng(3)
    all_pairs = [(a, b) for a in range(30) for b in range(a + 1, 30)]
    chosen = [all_pairs[i] for i in rng.permutation(len(all_pairs))[:300]]
    chosen = [(b, a) if i % 4 == 0 else (a, b) for i, (a, b) in enumerate(chosen)]
    kw = dict(pairs=chosen, n_resamples=100, rng=6, keep_replicates=True)
    local = _local(x, **kw)
    _same(local, _run(x, client=client, **kw))
    assert list(zip(local.observer_a, local.observer_b)) == chosen
