"""The joint hierarchical bootstrap of a design: every entry's metric in every replicate.

Items (or clusters of items) are resampled within each condition with the same replicate weights
for every observer, so the replicates of all rows are one joint sample; a unit's tables come from
one chunked product of its weights with its pair columns (:func:`bootstrap_entries`), on the
threads of the thread budget with BLAS on one thread each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from trialwise._core.errors import InvalidValueError
from trialwise._core.validation import check_positive_int
from trialwise._stats.blocks import run_blocks
from trialwise._stats.resampling import BATCH_BYTES, ReplicateWeights, bootstrap_sums
from trialwise._stats.tables import pair_columns
from trialwise.leaderboards.hierarchy import Design, entry_weights, members_mean, reference_level
from trialwise.leaderboards.influence import UnitInfluence
from trialwise.leaderboards.protocol import (
    metric_and_gradient,
    metric_from_exact_sums,
    metric_from_sums,
    metric_gradient,
)

__all__ = ["bootstrap_entries", "bootstrap_entries_ij", "EntryBootstrap"]

#: Bytes of the bootstrap's per-replicate work (metric, gradient, influences) per slice of
#: replicates, as estimated in :func:`_bootstrap_unit` (an upper bound: the live temporaries are fewer):
#: about the CPU's L2 cache. 4 MB took 6–10 % less CPU time than 2 MB on model-vs-human (half as
#: many slices, so half the per-call overhead of their ~60 numpy and scipy calls), 8 MB no less.
_SLICE_BYTES = 2**22


@dataclass(frozen=True)
class EntryBootstrap:
    """Replicate entry values and the infinitesimal-jackknife (IJ) standard error of every row score.

    ``entries`` (B, n_entries) as from :func:`bootstrap_entries` (with ``by_reference``, the
    means over references, (B, n_groups)); ``standard_errors``
    (n_rows,) on the data; ``replicate_standard_errors`` (B, n_rows), each computed on its
    replicate (the studentized interval divides by them).
    """

    entries: NDArray
    standard_errors: NDArray
    replicate_standard_errors: NDArray


class _UnitMeans:
    """What a unit needs to average its entries over the references (:func:`reference_level`): the
    output columns of its groups, their rows of the level's membership (groups × the unit's
    entries, CSR, as :func:`~trialwise.leaderboards.hierarchy.group_mean` slices it) and their sizes."""

    def __init__(self, mt: Any, entries: NDArray) -> None:
        block = mt[:, int(entries[0]):int(entries[-1]) + 1]  # a unit's entries are consecutive (build_design)
        self.groups = np.flatnonzero(np.diff(block.indptr))
        self.mt = sparse.csr_matrix(block[self.groups])
        self.full = self.mt @ np.ones((self.mt.shape[1], 1))


def _bootstrap(design: Design, n_resamples: int, *, rng: Any, workers: int | None,
               progress: Callable[[str, int, int], None] | None, dtype: Any,
               influence: bool, by_reference: bool = False) -> tuple[NDArray, list[tuple[NDArray, NDArray, NDArray]]]:
    """The engine of :func:`bootstrap_entries` and :func:`bootstrap_entries_ij`: the units on the
    driver's threads (:func:`trialwise._stats.blocks.run_blocks`), unit ``u`` on child stream ``u`` of
    ``rng``, BLAS on one thread. ``by_reference``: each unit writes the means over references of its
    entries (float64, one column per group of :func:`reference_level`), not the entries."""
    b = check_positive_int(n_resamples, "n_resamples")
    level = reference_level(design) if by_reference else None
    if by_reference and level is None:
        raise InvalidValueError(f"`by_reference=True` needs a protocol that averages over the references first; "
                                f"got aggregation {design.protocol.aggregation!r}")
    mt = None if level is None else sparse.csr_matrix(level[0].T, dtype=float)  # as group_mean makes it
    out = np.empty((b, design.n_entries) if mt is None else (b, mt.shape[0]), dtype=dtype if mt is None else float)
    metric = design.protocol.metric
    per_unit: list[Any] = [None] * len(design.units)
    weight = entry_weights(design.values(), design) if influence else None

    def run(u: int, gen: Any) -> tuple[NDArray, NDArray, NDArray]:
        entries = design.units[u].entries
        if not len(entries):  # every pair of the unit left out (min_items): nothing to resample
            return np.empty(0, np.intp), np.empty(0), np.empty((b, 0))
        means = None if mt is None else _UnitMeans(mt, entries)
        return _bootstrap_unit(design, u, b, gen, out, metric, weight, means, dtype)

    # largest units first (items × entries), so that no core is left with one big unit at the end;
    # every unit has its own stream and slot, so the order does not change a number
    size = [u.right.shape[0] * max(len(u.entries), 1) for u in design.units]
    tick = None if progress is None else partial(progress, "bootstrap")
    for u, res in run_blocks(run, [(u, (u,)) for u in range(len(design.units))], streams=rng, threads=True,
                             workers=workers, cost=size, progress=tick):
        per_unit[u] = res
    return out, per_unit


def _bootstrap_unit(design: Design, u: int, b: int, gen: Any, out: NDArray, metric: str,
                    weight: NDArray | None, means: _UnitMeans | None = None,
                    dtype: Any = np.float32) -> tuple[NDArray, NDArray, NDArray]:
    """Unit ``u``'s replicates, written into its columns of ``out``; with the entry weights
    ``weight`` (IJ) also its rows, their IJ variance on the data and on every replicate.
    With ``means``, the columns of ``out`` are its groups' means over references, computed
    slice by slice from the values rounded to ``dtype`` (the entries' dtype), as
    :func:`~trialwise.leaderboards.hierarchy.group_mean` computes them from the entries: the
    same bits, without the (B × entries) array.

    The product is chunked over replicates by the engine (:func:`bootstrap_sums`, stream
    ``gen``); the metric, its gradient and the influences run on slices of a chunk of
    about ``_SLICE_BYTES``, so that their temporaries stay in the CPU cache. Every
    value is computed by the same operations whatever the slicing (elementwise, or sums
    in a fixed order), and the sums of integer columns are exact whatever the chunking, so
    neither changes a bit; columns of real scores keep the chunks they always had.
    """
    unit = design.units[u]
    # resampled clusters do not keep the number of items fixed: every pair needs its n column
    cols, to_sums = pair_columns(unit.right, unit.seen, unit.pairs, fixed_total=unit.clusters is None)
    cols = unit.resampled(cols)
    entries = unit.entries
    p = len(entries)
    at: Any = slice(int(entries[0]), int(entries[-1]) + 1) if np.array_equal(entries, np.arange(
        entries[0], entries[0] + p)) else entries  # a unit's entries are consecutive (build_design)
    exact = bool(np.issubdtype(cols.dtype, np.integer))  # integer columns: exact sums, any chunking
    inf = None if weight is None else UnitInfluence.of(unit.right, unit.seen, unit.pairs, design.entry_row[entries],
                                                      weight[entries], clusters=unit.clusters)
    var_rep = np.empty((b, 0 if inf is None else len(inf.rows)))
    # the engine's chunks (a few large products: small ones would wake BLAS's threads for every
    # slice); the IJ's chunks of real sums as before: its arrays within BATCH_BYTES
    batch = (None if exact or inf is None else
             max(1, min(b, BATCH_BYTES // (8 * (12 * p + 2 * int(inf.offsets[-1]) + cols.shape[0])))))
    per_rep = 8 * (cols.shape[1] + 16 * p) + (0 if inf is None else 12 * int(inf.offsets[-1]) + 4 * cols.shape[0])
    step = max(1, _SLICE_BYTES // per_rep)
    first = [0]

    def write(rows: slice, values_t: NDArray) -> None:  # values_t: (entries, replicates of the slice)
        if means is None:
            out[rows, at] = values_t.T
            return
        xt = values_t.astype(dtype).astype(float, copy=False)  # a copy: rounded as the entries are stored
        out[rows, means.groups] = members_mean(xt, means.mt, means.full).T

    def statistic(sums: NDArray, w: NDArray | None = None) -> NDArray:
        r0 = first[0]
        first[0] += len(sums)
        for lo in range(0, len(sums), step):
            hi = min(lo + step, len(sums))
            if inf is None:
                s = to_sums(np.asarray(sums[lo:hi], dtype=float))  # float64 slice by slice, in the cache
                write(slice(r0 + lo, r0 + hi), (metric_from_exact_sums(metric, *s) if exact  # same bits, fewer passes
                                                else metric_from_sums(metric, *s)).T)
            else:  # replicates last (entries × replicates), the layout of the influences' product
                st = np.empty((sums.shape[1], hi - lo))  # float64 in one transposing pass (κ's dtype)
                np.copyto(st, sums[lo:hi].T)
                sums_t = tuple(np.ascontiguousarray(np.asarray(x).T) for x in to_sums(st.T))
                values, gradient = (metric_and_gradient(metric, *sums_t) if exact else
                                    (metric_from_sums(metric, *sums_t), metric_gradient(metric, *sums_t)))
                weights = cast(NDArray, w)  # given: with_weights below whenever there are influences
                var_rep[r0 + lo:r0 + hi] = inf.replicate_variance(gradient, np.isfinite(values), weights[lo:hi])
                write(slice(r0 + lo, r0 + hi), values)
        return np.empty((len(sums), 0))

    # integer columns: weights made for exact products (float32 while the sums stay below 2**24), drawn
    # in that dtype; the sums then reach `statistic` as they come out of the product (no float64 copy
    # of the chunk: the slices are cast in the cache), the same numbers from the same stream
    weights = (ReplicateWeights(cols.shape[0], b, rng=gen, n_columns=cols.shape[1], keep_bytes=0,
                                column_max=max(1, int(cols.max(initial=0)))) if exact else None)
    bootstrap_sums(cols, b, rng=gen, statistic=statistic, with_weights=inf is not None, batch=batch, weights=weights)
    if inf is None:
        return np.empty(0, np.intp), np.empty(0), var_rep
    obs = tuple(x[None] for x in design.entry_sums[:, entries])
    return inf.rows, inf.variance(metric, obs, metric_from_sums(metric, *obs), None)[0], var_rep


def bootstrap_entries(
    design: Design,
    n_resamples: int,
    *,
    rng: Any = None,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    dtype: Any = np.float32,
    by_reference: bool = False,
) -> NDArray:
    """Replicate metric values of every entry, shape (n_resamples, n_entries).

    Items are resampled within each unit, jointly for all its observers; unit ``u`` uses
    the ``u``-th spawned child of ``rng`` (so the replicates do not depend on
    ``workers``). The values are stored in ``dtype``.

    ``by_reference=True``: instead, the first level of the averaging, the mean over the
    references of every row in every condition (:func:`~trialwise.leaderboards.hierarchy.reference_level`),
    shape (n_resamples, n_groups), float64: each unit averages its replicates while they are in
    the cache, bit for bit as :func:`~trialwise.leaderboards.hierarchy.aggregate` does from the
    entries (rounded to ``dtype`` first), and the (n_resamples × n_entries) array is never made.
    For :func:`~trialwise.leaderboards.hierarchy.aggregate_each` with ``from_reference=True``.
    """
    return _bootstrap(design, n_resamples, rng=rng, workers=workers, progress=progress, dtype=dtype,
                      influence=False, by_reference=by_reference)[0]


def bootstrap_entries_ij(
    design: Design,
    n_resamples: int,
    *,
    rng: Any = None,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    dtype: Any = np.float32,
    by_reference: bool = False,
) -> EntryBootstrap:
    """:func:`bootstrap_entries` (the same replicates) with the infinitesimal-jackknife
    standard error of every row score, on the data and on every replicate.

    A row score is ``Σ_e c_e·m(S_e)``, with ``c_e`` the entry's weight
    (:func:`entry_weights`, from the data) and ``S_e = Σ_i w_i x_ie`` the sums ``(n, n11,
    ca, cb)`` of its table as weighted sums over its unit's items. Item i's influence is
    ``d_i = Σ_e c_e ∇m(S_e) · x_ie`` (:func:`metric_gradient`; 0 for an undefined entry)
    and the IJ variance is ``Σ_i w_i d_i²`` over the items of every unit (Efron 2014), with
    ``w = 1`` on the data and the replicate's item weights on a replicate (the same draws).
    Items of different units are resampled independently, so their variances add.
    ``by_reference=True``: ``entries`` holds the means over references instead, as in
    :func:`bootstrap_entries`.
    """
    entries, per_unit = _bootstrap(design, n_resamples, rng=rng, workers=workers, progress=progress, dtype=dtype,
                                   influence=True, by_reference=by_reference)
    var = np.zeros(len(design.rows))
    var_rep = np.zeros((entries.shape[0], len(design.rows)))
    for rows, v_obs, v_rep in per_unit:  # unit order: the sums do not depend on `workers`
        var[rows] += v_obs
        var_rep[:, rows] += v_rep
    return EntryBootstrap(entries, np.sqrt(var), np.sqrt(var_rep))
