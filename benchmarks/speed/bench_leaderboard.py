"""The leaderboard job against its batched baseline, its arithmetic floor and the published procedure, in one run (issues 17, 33).

    python benchmarks/speed/bench_leaderboard.py [--resamples 10000] [--rounds 3] [--phases] [--replicates 20]
                                           [--klein-replicates 3] [--no-swaps] [--compare]

The job: ``tw.leaderboard`` on the bundled model-vs-human data (17 experiments, all humans,
the 21 models that cover every experiment; 46 conditions, 4,738 pair values), B joint
hierarchical bootstrap replicates with every level recomputed, studentized intervals, rank
intervals and sets, P(best) and Kendall's τ.

The honest baseline (issue 33, :func:`batched_bootstrap`): the same hierarchy as a competent
numpy user writes it, replicate-batched — per condition and chunk of 1,000 replicates, the
multinomial weights of its items as one matrix, one float32 GEMM against its pair-product
columns, κ of every pair, NaN-aware means over humans, conditions and experiments. Its point
estimates (weights 1) are checked against the library's scores (≤ 1e-12). It computes no
standard errors, so the same call with ``ci_method="percentile"`` (the same replicates, no
standard errors) is timed too. The three run in interleaved rounds (``--rounds``; medians), on
one thread (BLAS limited by threadpoolctl, ``workers=1``) and on all, as wall and CPU time;
the machine is shared, so ``uptime`` is printed and the ratios are what count.

The floor (:func:`gemm_floor`): per replicate the job needs, in every condition, one
weighted sum over the items for each pair — the (item × pair) products counted from the
design, 2 flops each. The float32 GEMMs of exactly these shapes (B × items @ items × pairs,
per condition) are timed in the same run on all cores and on one thread; the job's CPU time
on one thread is printed as a multiple of the one-thread floor (goal ≤ 5×). ``--phases``
profiles one call on one thread and prints where its CPU time goes.

Baseline (a) (:func:`vectorised_replicate`, kept from issue 17, no longer the headline): the
per-replicate loop — per replicate and condition, resample the items, the tables of every
human × model pair at once from one product of the resampled [right, seen] matrix, κ of every
pair, the means through the hierarchy. Baseline (b) (:func:`klein_replicate`), the published
procedure's anchor: the Klein et al. (2025) procedure re-implemented from the paper's
description — per replicate, per condition and per pair, resample the pair's trials and
recompute its error consistency, then the same means. Both are checked on the data
themselves (no resampling) against the library's point estimates, run for a few replicates
(``--replicates``, ``--klein-replicates``) and extrapolated linearly to B (their cost is
linear in B); (b) is also timed on one 160-item contrast condition with 25 observers, the
condition on which the issue timed their code (3.6 ms per replicate).

Then the swap tests (M = B) of all 210 pairs of models (``--no-swaps`` skips them) against
their brute force (per permutation, swap two models' responses item by item and recompute
their scores; timed on one pair and extrapolated to 210 pairs × M).

Peak memory is the process's peak resident set size (``resource.getrusage``), which
includes the data and the interpreter.

``--compare`` (before/after, issue 17): the kernels as they were before the speed work (the
swap kernel per condition with a BLAS product, and the IJ influence with the explicit zeros
of its pattern matrix) are kept here (:func:`old_kernels`); the script times them against the
library's on the same data and seeds and prints the ratios with the machine's load. The IJ
influence's numbers are checked identical; the swap kernel's cannot be (the grouped swap
counts use the random stream differently), so the two null distributions are compared by a
two-sample Kolmogorov–Smirnov test instead. ``benchmarks/speed/bench_main_command.py --compare`` runs the whole
command with them too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import subprocess
import time
import tracemalloc
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from threadpoolctl import threadpool_limits

import trialwise as tw
from trialwise.leaderboards import differences as _differences
from trialwise.leaderboards import hierarchy as _hierarchy
from trialwise.leaderboards import influence as _influence
from trialwise.leaderboards import swap as _swap
from trialwise.leaderboards.protocol import metric_from_sums
from trialwise._stats.tables import cluster_sums, pair_columns


# --------------------------------------------------------------------------- the kernels before issue 17


def old_swap_differences(design, x, y, n_resamples, *, rng=None):
    """The swap kernel before issue 17: per condition, a BLAS product and the metric on (M, refs)."""
    m = n_resamples
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    metric = design.protocol.metric
    ent_x = np.flatnonzero(design.entry_row == x)
    ent_y = np.flatnonzero(design.entry_row == y)
    vx = np.empty((m, len(ent_x)))
    vy = np.empty((m, len(ent_y)))
    for unit in design.units:
        rows = design.entry_row[unit.entries]
        ux, uy = unit.entries[rows == x], unit.entries[rows == y]
        if len(ux) == 0:
            continue
        loc_x, loc_y = ux - unit.entries[0], uy - unit.entries[0]
        items, delta, inverse = _swap._swap_columns(unit, unit.pairs[loc_x[0], 0], unit.pairs[loc_y[0], 0],
                                                    loc_x, loc_y)
        base_x = design.entry_sums[:, ux][:, None, :]
        base_y = design.entry_sums[:, uy][:, None, :]
        if len(items):
            bits = gen.integers(0, 2, size=(m, len(items)), dtype=np.int8).astype(np.float32)
            change = np.moveaxis((bits @ delta).astype(np.float64)[:, inverse], 1, 0)
        else:
            change = np.zeros((4, m, len(ux)))
        vx[:, np.searchsorted(ent_x, ux)] = metric_from_sums(metric, *(base_x + change))
        vy[:, np.searchsorted(ent_y, uy)] = metric_from_sums(metric, *(base_y - change))
    sx, _ = _hierarchy.aggregate(vx, design, entries=ent_x)
    sy, _ = _hierarchy.aggregate(vy, design, entries=ent_y)
    values = design.values()
    observed = (_hierarchy.aggregate(values[ent_x], design, entries=ent_x)[0][0]
                - _hierarchy.aggregate(values[ent_y], design, entries=ent_y)[0][0])
    return float(observed), sx[:, 0] - sy[:, 0]


class OldInfluence(_influence.UnitInfluence):
    """The IJ influence before issue 17: its pattern matrix keeps the explicit zeros."""

    @classmethod
    def of(cls, right, seen, pairs, rows_u, weight, clusters=None):
        p = len(pairs)
        cols, _ = pair_columns(right, seen, pairs, fixed_total=False)
        if clusters is not None:
            cols = cluster_sums(cols, clusters)
        rows = np.unique(rows_u)
        blocks, inverse = [], []
        for r in rows:
            mine = (np.flatnonzero(rows_u == r)[None, :] + p * np.arange(4)[:, None]).ravel()
            uniq, inv = np.unique(cols[:, mine], axis=0, return_inverse=True)
            n, k = uniq.shape
            blocks.append(sparse.csr_matrix((uniq.ravel().astype(np.float64), np.tile(mine, n),
                                             np.arange(0, n * k + 1, k)), shape=(n, 4 * p)))
            inverse.append(inv.reshape(-1))
        offsets = np.cumsum([0] + [b.shape[0] for b in blocks])
        n_items = cols.shape[0]
        members = sparse.csr_matrix(
            (np.ones(n_items * len(rows), np.float32), (np.concatenate([o + inv for o, inv in zip(offsets, inverse)]),
                                                        np.tile(np.arange(n_items), len(rows)))),
            shape=(offsets[-1], n_items))
        return cls(rows, offsets, sparse.vstack(blocks, format="csr"), members, np.asarray(weight, dtype=float))


@contextlib.contextmanager
def old_kernels():
    """Run the library with the kernels as they were before issue 17 (same numbers, slower)."""
    saved = _differences.swap_differences, _hierarchy.UnitInfluence
    _differences.swap_differences, _hierarchy.UnitInfluence = old_swap_differences, OldInfluence
    try:
        yield
    finally:
        _differences.swap_differences, _hierarchy.UnitInfluence = saved


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:  # pragma: no cover - no uptime on this system
        return "uptime: n/a"


# --------------------------------------------------------------------------- the baselines and the floor

#: The protocol's rule: a pair sharing fewer items in a condition is left out (model-vs-human: 20).
MIN_ITEMS = tw.leaderboards.MODEL_VS_HUMAN.min_items


@dataclass
class Condition:
    """One condition as a user holds it: correctness of its observers (models, then humans) on its items."""

    experiment: int  # index into the sorted experiments
    stacked: np.ndarray  # (n_items, 2k) float32: k columns right (1 = correct, 0 where unseen), k columns seen
    n_models: int
    name: str = ""

    @property
    def right(self) -> np.ndarray:
        return self.stacked[:, :self.stacked.shape[1] // 2]

    @property
    def seen(self) -> np.ndarray:
        return self.stacked[:, self.stacked.shape[1] // 2:]


def conditions(trials, models) -> list[Condition]:
    """The protocol's 46 conditions as items × observers matrices (the scored models, then every human)."""
    protocol = tw.leaderboards.MODEL_VS_HUMAN
    exps = sorted(protocol.experiments)
    out = []
    for (e, c), g in trials.groupby(["experiment", "condition"], sort=True):
        if e not in exps or c in protocol.exclude.get(e, ()):
            continue
        wide = g.pivot_table(index="image", columns="subject", values="correct", aggfunc="last")
        humans = sorted(set(g.loc[g["observer_type"] == "human", "subject"]))
        wide = wide.reindex(columns=list(models) + humans)
        seen = wide.notna().to_numpy(np.float32)
        right = wide.fillna(False).to_numpy(np.float32)
        out.append(Condition(exps.index(e), np.concatenate([right, seen], axis=1), len(models), f"{e} {c}"))
    return out


def vectorised_replicate(conds: list[Condition], n_experiments: int, rng=None) -> np.ndarray:
    """Baseline (a): one bootstrap replicate of every row score, vectorised over pairs with numpy.

    Per condition: resample its items (``rng=None``: the data themselves), then the tables of
    every pair of observers at once from one float32 product of the stacked [right, seen]
    columns (``n11 = R'R``, ``ca = R'S``, ``cb = S'R``, ``n = S'S``; exact, the counts are
    small integers), κ of every pair, the mean over humans of each model's κ and the mean
    over distinct human pairs (the human–human row); then the mean over conditions within
    each experiment and over experiments (NaN-aware at every level, as the protocol says).
    """
    rows = np.empty((len(conds), conds[0].n_models + 1))
    for j, c in enumerate(conds):
        x = c.stacked if rng is None else c.stacked[rng.integers(0, len(c.right), len(c.right))]
        g = (x.T @ x).astype(np.float64)
        k, m = c.right.shape[1], c.n_models
        n11, ca, n = g[:k, :k], g[:k, k:], g[k:, k:]
        cb = ca.T
        kappa = 2 * (n * n11 - ca * cb) / (n * (ca + cb) - 2 * ca * cb)
        kappa[n < MIN_ITEMS] = np.nan
        rows[j, :m] = np.nanmean(kappa[:m, m:], axis=1)
        rows[j, m] = np.nanmean(kappa[m:, m:][np.triu_indices(k - m, 1)])
    exp_of = np.array([c.experiment for c in conds])
    return np.nanmean([np.nanmean(rows[exp_of == e], axis=0) for e in range(n_experiments)], axis=0)


#: Replicates per chunk of the batched baseline: (1,000 × items) weights, a few MB per condition.
BATCHED_CHUNK = 1_000


def pair_layout(c: Condition) -> tuple[np.ndarray, np.ndarray]:
    """A condition's pair-product columns and which pairs count.

    The pairs in the hierarchy's order: every (model, human), model by model, then every
    pair of distinct humans. For each pair (a, b) four item columns (float32, 0/1): both
    saw the item (n), both right (n11), a right where b saw it (ca), b right where a saw it
    (cb), so that a replicate's weighted column sums are the four sums κ needs. A pair
    counts where it shares at least the protocol's ``min_items`` items (on the data).
    """
    k, m = c.right.shape[1], c.n_models
    hh = np.triu_indices(k - m, 1)
    ia = np.concatenate([np.repeat(np.arange(m), k - m), hh[0] + m])
    ib = np.concatenate([np.tile(np.arange(m, k), m), hh[1] + m])
    r, s = c.right, c.seen
    cols = np.concatenate([s[:, ia] * s[:, ib], r[:, ia] * r[:, ib], r[:, ia] * s[:, ib], s[:, ia] * r[:, ib]], axis=1)
    return cols, cols[:, :len(ia)].sum(axis=0) >= MIN_ITEMS


def nan_mean(a: np.ndarray, axis: int) -> np.ndarray:
    """Mean over ``axis`` of the defined (non-NaN) values; NaN where none is (no warning)."""
    ok = ~np.isnan(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, a, 0.0).sum(axis=axis) / ok.sum(axis=axis)


def batched_bootstrap(conds: list[Condition], n_experiments: int, b: int, rng=None,
                      chunk: int = BATCHED_CHUNK) -> np.ndarray:
    """The honest baseline (issue 33): the same hierarchy, replicate-batched in plain numpy, (b, rows).

    Per condition and chunk of replicates: multinomial weights of its items as one
    (chunk × items) matrix (uniform item draws counted by one ``bincount``; ``rng=None``:
    weights 1, the data themselves), one float32 GEMM against the condition's pair-product
    columns (:func:`pair_layout`; exact, the sums are small integers), κ of every pair in
    float64, then the NaN-aware means: over the humans of each model (and over the human
    pairs for the human–human row), over the conditions of each experiment, over the
    experiments. Rows: the models, then the human–human row. No standard errors.
    """
    m = conds[0].n_models
    per_cond = np.empty((len(conds), b, m + 1))
    for j, c in enumerate(conds):
        cols, keep = pair_layout(c)
        n, h = cols.shape[0], c.right.shape[1] - m
        for lo in range(0, b, chunk):
            bc = min(chunk, b - lo)
            if rng is None:
                w = np.ones((bc, n), np.float32)
            else:
                draws = rng.integers(0, n, (bc, n)) + n * np.arange(bc)[:, None]
                w = np.bincount(draws.ravel(), minlength=bc * n).reshape(bc, n).astype(np.float32)
            nn, n11, ca, cb = np.split((w @ cols).astype(np.float64), 4, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                kappa = 2 * (nn * n11 - ca * cb) / (nn * (ca + cb) - 2 * ca * cb)
            kappa[:, ~keep] = np.nan
            per_cond[j, lo:lo + bc, :m] = nan_mean(kappa[:, :m * h].reshape(bc, m, h), axis=2)
            per_cond[j, lo:lo + bc, m] = nan_mean(kappa[:, m * h:], axis=1)
    exp_of = np.array([c.experiment for c in conds])
    return nan_mean(np.stack([nan_mean(per_cond[exp_of == e], axis=0) for e in range(n_experiments)]), axis=0)


def error_consistency(a: np.ndarray, b: np.ndarray) -> float:
    """Error consistency of two correctness sequences (Geirhos et al. 2020): (c_obs − c_exp) / (1 − c_exp)."""
    c_obs = np.mean(a == b)
    pa, pb = a.mean(), b.mean()
    c_exp = pa * pb + (1 - pa) * (1 - pb)
    return float((c_obs - c_exp) / (1 - c_exp)) if c_exp < 1 else np.nan


def klein_pairs(conds: list[Condition]) -> list[tuple[int, list[list[tuple[np.ndarray, np.ndarray]]]]]:
    """Per condition, per row (each model, then the human–human row): its pairs' correctness on shared trials."""
    out = []
    for c in conds:
        seen, right = c.seen.astype(bool), c.right.astype(bool)
        k, m = right.shape[1], c.n_models
        humans = range(m, k)
        per_row: list[list[tuple[np.ndarray, np.ndarray]]] = []
        for a, bs in [(i, list(humans)) for i in range(m)] + [(None, None)]:
            pairs = ([(a, h) for h in bs] if a is not None
                     else [(h1, h2) for h1 in humans for h2 in humans if h1 < h2])
            row = []
            for i, j in pairs:
                both = seen[:, i] & seen[:, j]
                if both.sum() >= MIN_ITEMS:
                    row.append((right[both, i], right[both, j]))
            per_row.append(row)
        out.append((c.experiment, per_row))
    return out


def klein_replicate(pairs, n_experiments: int, rng=None) -> np.ndarray:
    """Baseline (b): one replicate of the Klein et al. (2025) procedure, written from the paper.

    Their Algorithm 1 bootstraps one pair of response sequences: draw as many trial indices
    as the pair shares, uniformly with replacement, and recompute error consistency on the
    resampled trials. For the model-vs-human scores they "bootstrap through the entire
    calculation": per replicate, per condition and per (model, human) pair (and per pair of
    humans for the human–human row) the pair is resampled and its EC recomputed, the ECs
    are averaged over the humans, then over the conditions of each experiment, then over
    the experiments. A loop over pairs in Python with numpy per pair (``rng=None``: the
    data themselves, for the point estimates).
    """
    per_exp: dict[int, list[list[float]]] = {}
    for e, per_row in pairs:
        row = []
        for pair_list in per_row:
            ecs = []
            for a, b in pair_list:
                if rng is not None:
                    idx = rng.integers(0, len(a), len(a))
                    a, b = a[idx], b[idx]
                ecs.append(error_consistency(a, b))
            row.append(np.nanmean(ecs) if ecs else np.nan)
        per_exp.setdefault(e, []).append(row)
    return np.nanmean([np.nanmean(per_exp[e], axis=0) for e in sorted(per_exp)], axis=0)


def gemm_floor(design, b: int, repeat: int = 3) -> tuple[int, float, float, float]:
    """The job's pair products per replicate, and the time of doing them as float32 GEMMs.

    Every unit (condition) needs, per replicate, one weighted sum over its items for each of
    its pairs: (B × n_items) @ (n_items × n_pairs), 2 flops per (item × pair) product. The
    GEMMs of exactly these shapes, with B = ``b`` rows each, are timed on all cores (best of
    ``repeat``); their time is the floor (a tight one: the job also needs the marginal sums,
    κ and the hierarchy). Returns (products per replicate, floor seconds, their CPU seconds,
    GFLOPS at these shapes). On a loaded machine the CPU time is the steadier figure.
    """
    gen = np.random.default_rng(0)
    shapes = [(u.right.shape[0], len(u.entries)) for u in design.units if len(u.entries)]
    products = sum(n * p for n, p in shapes)
    best, best_cpu = np.inf, np.inf
    for _ in range(repeat):
        total = total_cpu = 0.0
        for n, p in shapes:
            w = gen.random((b, n), dtype=np.float32)
            x = gen.integers(0, 2, (n, p)).astype(np.float32)
            t0, c0 = time.perf_counter(), time.process_time()
            w @ x
            total += time.perf_counter() - t0
            total_cpu += time.process_time() - c0
        best, best_cpu = min(best, total), min(best_cpu, total_cpu)
    return products, best, best_cpu, 2 * products * b / best / 1e9


def gemm_rate(size: int = 2048) -> float:
    """float32 GEMM rate (GFLOPS, all cores) at a large square shape, for reference."""
    a = np.ones((size, size), np.float32)
    a @ a
    t0 = time.perf_counter()
    a @ a
    return 2 * size**3 / (time.perf_counter() - t0) / 1e9


def per_replicate(fn, replicates: int, *args) -> tuple[float, float]:
    """Wall and CPU seconds per replicate of ``fn(*args, rng)`` over ``replicates`` replicates."""
    rng = np.random.default_rng(1)
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(replicates):
        fn(*args, rng)
    return (time.perf_counter() - t0) / replicates, (time.process_time() - c0) / replicates


def _units(trials, protocol):
    out = []
    for (e, c), g in trials.groupby(["experiment", "condition"], sort=True):
        if c in protocol.exclude.get(e, ()):
            continue
        wide = g.pivot(index="image", columns="subject", values="correct")
        out.append((e, wide))
    return out


def naive_swap(units, x, y, rng) -> float:
    """The swap tests' brute force: per permutation, swap two models' responses item by item and recompute."""
    per_exp: dict[str, list] = {}
    for e, wide in units:
        cols = list(wide.columns)
        w = wide.to_numpy(bool)
        s = rng.random(len(w)) < 0.5
        xs = np.where(s, w[:, cols.index(y)], w[:, cols.index(x)])
        ys = np.where(s, w[:, cols.index(x)], w[:, cols.index(y)])
        humans = [k for k, c in enumerate(cols) if c.startswith("subject-")]
        per_exp.setdefault(e, []).append(np.mean([error_consistency(xs, w[:, h]) - error_consistency(ys, w[:, h])
                                                  for h in humans]))
    return float(np.mean([np.mean(v) for v in per_exp.values()]))


def timed(fn) -> tuple[object, float, float]:
    """``fn()``, its wall and its CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def traced_peak(fn) -> float:
    """Peak memory traced (tracemalloc: Python and numpy allocations) while ``fn()`` runs, MiB."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def threads(one: bool):
    """BLAS on one thread (``one``), or as many as it likes (threadpoolctl)."""
    return threadpool_limits(limits=1) if one else contextlib.nullcontext()


def interleaved(cases: dict, rounds: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of every case over ``rounds`` rounds; each round runs every case in turn."""
    seen: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(rounds):
        for name, (one, fn) in cases.items():
            with threads(one):
                _, wall, cpu = timed(fn)
            seen[name].append((wall, cpu))
    return {k: (float(np.median([w for w, _ in v])), float(np.median([c for _, c in v]))) for k, v in seen.items()}


#: The job's phases in a cProfile of one call (file, function, 'cum' = with its callees or 'tot' = its own).
PHASES = (
    ("design: trials -> conditions (build_design)", (("hierarchy.py", "build_design", "cum"),)),
    ("replicate weights: random integers + bincount", (("resampling.py", "bootstrap_weights", "cum"),)),
    ("pair-product GEMMs (bootstrap_sums' own time)", (("resampling.py", "bootstrap_sums", "tot"),)),
    ("copies/casts of the sums, writes (statistic's own)", (("bootstrap.py", "statistic", "tot"),
                                                           ("tables.py", "to_sums", "cum"),
                                                           ("tables.py", "to_sums_seen", "cum"))),
    ("kappa and its gradient", (("protocol.py", "metric_and_gradient", "cum"),
                                ("protocol.py", "metric_from_exact_sums", "cum"))),
    ("IJ set-up: item patterns per condition", (("influence.py", "of", "cum"),)),
    ("IJ per-replicate SEs: sparse products", (("influence.py", "replicate_variance", "cum"),)),
    ("hierarchy means of the replicates", (("replicates.py", "bootstrap_scores", "cum"),
                                           ("bootstrap.py", "bootstrap_entries_ij", "-cum"),
                                           ("bootstrap.py", "bootstrap_entries", "-cum"))),
    ("intervals, ranks, P(best), tau, table", (("board.py", "from_bootstrap", "cum"),)),
)


def phase_breakdown(trials, b: int, floor_cpu: float) -> None:
    """Where one call's CPU time goes (one thread, cProfile), in seconds and in one-thread floors."""
    import cProfile
    import pstats

    prof = cProfile.Profile(time.process_time)  # CPU seconds, as the rest of the script
    with threads(True):
        c0 = time.process_time()
        prof.runcall(tw.leaderboard, trials, n_resamples=b, rng=0, workers=1)
        total = time.process_time() - c0
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    print(f"phases of one call (one thread, B = {b}, under cProfile: {total:.2f} s CPU; floor = {floor_cpu:.3f} s)")
    done = 0.0
    for label, parts in PHASES:
        sec = 0.0
        for file, func, kind in parts:
            for (path, _, name), (_, _, tot, cum, _) in stats.items():
                if path.endswith(file) and name == func:
                    sec += {"cum": cum, "tot": tot, "-cum": -cum}[kind]
        done += sec
        print(f"  {label:52s} {sec:6.2f} s  {100 * sec / total:4.0f} %  {sec / floor_cpu:5.1f} x floor")
    print(f"  {'the rest (Python, checks, other numpy)':52s} {total - done:6.2f} s  {100 * (total - done) / total:4.0f} %"
          f"  {(total - done) / floor_cpu:5.1f} x floor")


def weight_draws(design, b: int, floor_cpu: float) -> None:
    """The replicate weights alone, one thread: the library's draws against two cheaper kinds (issue 33, goal 3).

    (1) what the job draws: per condition, B × items uniform item indices counted by ``bincount``
    (:func:`trialwise._stats.resampling.bootstrap_weights`); (2) Poisson(1) weights, one draw per
    item and replicate (the Poisson bootstrap: other numbers, and every pair then needs its n
    column); (3) one multinomial table per distinct item count, shared by the conditions of that
    size (other numbers, and it ties the conditions' replicates together). CPU seconds.
    """
    from trialwise._stats.resampling import bootstrap_weights

    sizes = [u.right.shape[0] for u in design.units if len(u.entries)]
    gen = np.random.default_rng(0)
    chunk = 1_000

    def library():
        for n in sizes:
            for _ in bootstrap_weights(n, b, rng=gen, dtype=np.float32):
                pass

    def poisson():
        for n in sizes:
            for lo in range(0, b, chunk):
                gen.poisson(1.0, (min(chunk, b - lo), n)).astype(np.float32)

    def shared():
        for n in sorted(set(sizes)):
            for _ in bootstrap_weights(n, b, rng=gen, dtype=np.float32):
                pass

    with threads(True):
        cpu = {name: timed(fn)[2] for name, fn in (("library", library), ("poisson", poisson), ("shared", shared))}
    print(f"replicate weights alone (one thread, B = {b}, {sum(sizes):,} items in {len(sizes)} conditions, "
          f"{len(set(sizes))} distinct sizes): integers + bincount {cpu['library']:.2f} s CPU "
          f"({cpu['library'] / floor_cpu:.1f}x floor); Poisson(1) {cpu['poisson']:.2f} s "
          f"({cpu['poisson'] / floor_cpu:.1f}x); one table per size {cpu['shared']:.2f} s "
          f"({cpu['shared'] / floor_cpu:.1f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the job and its batched baseline")
    ap.add_argument("--replicates", type=int, default=20, help="replicates of baseline (a), extrapolated to B")
    ap.add_argument("--klein-replicates", type=int, default=3, help="replicates of baseline (b), extrapolated to B")
    ap.add_argument("--naive-replicates", type=int, default=5, help="permutations of the swap tests' brute force")
    ap.add_argument("--no-swaps", action="store_true", help="skip the swap tests of all 210 pairs")
    ap.add_argument("--phases", action="store_true", help="also profile one call, phase by phase (one thread)")
    ap.add_argument("--compare", action="store_true", help="also time the kernels before issue 17 (about 1 min)")
    args = ap.parse_args()
    b = args.resamples
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, B = {b}; {uptime()}")
    trials = tw.read_trials(tw.datasets.model_vs_human())
    lb = tw.leaderboard(trials, n_resamples=min(b, 200), rng=0)  # warm-up (imports, caches); its design
    design, n_exp = lb._design, len(lb._design.experiments)
    conds, wall_c, cpu_c = timed(lambda: conditions(trials, lb.candidates))
    point = batched_bootstrap(conds, n_exp, 1)[0]
    gap = float(np.max(np.abs(point - lb.scores)))
    print(f"batched baseline: {len(conds)} conditions as items x observers matrices (pandas pivots, not timed "
          f"below: {cpu_c:.2f} s CPU); point estimates (weights 1) vs the library's scores: largest difference "
          f"{gap:.1e} ({'equal' if gap <= 1e-12 else 'DIFFERENT'} to 1e-12)")

    def job(one: bool, ci: str = "studentized"):
        return lambda: tw.leaderboard(trials, n_resamples=b, rng=0, ci_method=ci, workers=1 if one else None)

    def base():
        return batched_bootstrap(conds, n_exp, b, np.random.default_rng(0))

    peaks = {name: traced_peak(fn) for name, fn in (("job", job(False)), ("percentile", job(False, "percentile")),
                                                    ("baseline", base))}
    cases = {f"{name} {n_thr}": (n_thr == "1 thread", fn)
             for n_thr in ("1 thread", "all threads")
             for name, fn in (("job", job(n_thr == "1 thread")),
                              ("percentile", job(n_thr == "1 thread", "percentile")), ("baseline", base))}
    med = interleaved(cases, args.rounds)
    print(f"medians of {args.rounds} interleaved rounds (B = {b}; 'job' = the README's call, studentized intervals "
          f"with the IJ standard error of every replicate; 'percentile' = the same call with ci_method='percentile', "
          f"the same replicates without standard errors; 'baseline' = the batched numpy baseline, no standard "
          f"errors; peak traced memory, all threads: job {peaks['job']:.0f} MiB, percentile "
          f"{peaks['percentile']:.0f} MiB, baseline {peaks['baseline']:.0f} MiB); {uptime()}")
    for n_thr in ("1 thread", "all threads"):
        (wj, cj), (wp, cp), (wb, cb) = (med[f"{k} {n_thr}"] for k in ("job", "percentile", "baseline"))
        print(f"  {n_thr:11s}: job {wj:.2f} s wall, {cj:.2f} s CPU; percentile {wp:.2f} s wall, {cp:.2f} s CPU; "
              f"baseline {wb:.2f} s wall, {cb:.2f} s CPU -> baseline / job {wb / wj:.2f}x wall, {cb / cj:.2f}x CPU "
              f"(goal >= 5x); baseline / percentile {wb / wp:.2f}x wall, {cb / cp:.2f}x CPU")
    t_job, c_job = med["job all threads"]
    c_one = med["job 1 thread"][1]

    products, t_floor, c_floor, rate = gemm_floor(design, b)
    with threads(True):
        _, t_floor1, c_floor1, rate1 = gemm_floor(design, b)
    print(f"floor: {len(design.units)} conditions, {products:,} (item x pair) products per replicate -> "
          f"{2 * products * b:.2e} flops for B = {b}; float32 GEMMs of the job's shapes (B x items @ items x pairs): "
          f"all cores {t_floor:.3f} s wall, CPU {c_floor:.3f} s = {rate:.0f} GFLOPS ({gemm_rate():.0f} GFLOPS "
          f"at 2048^3); one thread {t_floor1:.3f} s wall, CPU {c_floor1:.3f} s = {rate1:.0f} GFLOPS")
    print(f"  job / floor, one thread: {c_one / c_floor1:.1f}x CPU (goal <= 5x); percentile call "
          f"{med['percentile 1 thread'][1] / c_floor1:.1f}x; baseline {med['baseline 1 thread'][1] / c_floor1:.1f}x. "
          f"All threads: job {t_job / t_floor:.1f}x wall ({c_job / c_floor:.1f}x CPU)")
    if args.phases:
        phase_breakdown(trials, b, c_floor1)
        weight_draws(design, b, c_floor1)

    lb = tw.leaderboard(trials, n_resamples=b, rng=0)  # the job's result, for the swap tests below
    pairs = klein_pairs(conds)
    contrast = next(c for c in conds if c.name.startswith("contrast") and len(c.right) == 160)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of a group without a defined pair: NaN
        same_a = np.allclose(vectorised_replicate(conds, n_exp), lb.scores, rtol=1e-10, atol=1e-12, equal_nan=True)
        same_b = np.allclose(klein_replicate(pairs, n_exp), lb.scores, rtol=1e-10, atol=1e-12, equal_nan=True)
        wall_a, cpu_a = per_replicate(vectorised_replicate, args.replicates, conds, n_exp)
        wall_b, cpu_b = per_replicate(klein_replicate, args.klein_replicates, pairs, n_exp)
        wall_k, cpu_k = per_replicate(klein_replicate, 20, klein_pairs([contrast]), n_exp)
    n_pairs = sum(len(row) for _, per_row in pairs for row in per_row)
    print(f"(a) vectorised per-replicate numpy loop: {wall_a * 1e3:.1f} ms per replicate (CPU {cpu_a * 1e3:.1f} ms; "
          f"{args.replicates} replicates, extrapolated linearly) -> {wall_a * b:.0f} s for B = {b}; "
          f"job {wall_a * b / t_job:.0f}x faster (CPU time {cpu_a * b / c_job:.0f}x); "
          f"point estimates = library's: {same_a}")
    print(f"(b) Klein et al. per-replicate procedure, the published procedure ({n_pairs:,} pairs resampled one by "
          f"one): {wall_b * 1e3:.0f} ms per replicate (CPU {cpu_b * 1e3:.0f} ms; {args.klein_replicates} replicates, "
          f"extrapolated linearly; {wall_k * 1e3:.1f} ms (CPU {cpu_k * 1e3:.1f}) for the 160-item {contrast.name} "
          f"condition, {contrast.right.shape[1]} observers) -> {wall_b * b:.0f} s for B = {b}; "
          f"job {wall_b * b / t_job:.0f}x faster (CPU time {cpu_b * b / c_job:.0f}x); point estimates = library's: "
          f"{same_b}")

    if not args.no_swaps:
        t0, c0 = time.perf_counter(), time.process_time()
        pw = lb.pairwise(which="all", test="swap", adjust="holm")
        t_swap, c_swap = time.perf_counter() - t0, time.process_time() - c0
        units = _units(trials, tw.leaderboards.MODEL_VS_HUMAN)
        models = list(lb.candidates)
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        for _ in range(args.naive_replicates):
            naive_swap(units, models[0], models[1], rng)
        per_swap = (time.perf_counter() - t0) / args.naive_replicates
        naive_tests = per_swap * b * len(pw)
        print(f"swap tests: {len(pw)} pairs (M = {b}) {t_swap:.1f} s wall, CPU {c_swap:.1f} s; brute force "
              f"{per_swap * 1e3:.0f} ms per permutation of one pair ({args.naive_replicates} permutations, "
              f"extrapolated) -> {naive_tests / 3600:.1f} h (ratio {naive_tests / t_swap:.0f}x)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB; {uptime()}")
    if args.compare:
        compare(trials, lb, b)


def compare(trials, lb, b: int) -> None:
    """Before/after: the old kernels against the library's, same data and seeds (IJ: identical numbers; swap: same distribution)."""
    from trialwise.leaderboards.bootstrap import bootstrap_entries_ij
    from trialwise._stats.streams import keyed_rng

    design = lb._swaps.design
    order = [lb.observers.index(o) for o in lb.table["observer"] if o != lb.reference_row]
    pairs = list(zip(order[:-1], order[1:]))[:5]
    print(f"before/after ({uptime()})")
    times, cpu = {}, {}  # wall and CPU seconds (the CPU time is less sensitive to a shared machine's load)
    for name, kernel in (("old", old_swap_differences), ("new", _swap.swap_differences)):
        t0, c0 = time.perf_counter(), time.process_time()
        nulls = [kernel(design, i, j, b, rng=keyed_rng(123, (i, j)))[1] for i, j in pairs]
        times[name] = (time.perf_counter() - t0) / len(pairs)
        cpu[name] = (time.process_time() - c0) / len(pairs)
        if name == "old":
            ref = nulls
    # since the grouped swap counts (issue 17) the kernel draws other random numbers: the same null in
    # distribution, not in bits (benchmarks/speed/bench_swap.py compares the p-values of all pairs)
    from scipy.stats import ks_2samp

    same = min(ks_2samp(u[~np.isnan(u)], v[~np.isnan(v)]).pvalue for u, v in zip(ref, nulls))
    print(f"  swap test, one pair (M = {b}, mean of {len(pairs)} neighbour pairs, one thread): "
          f"old {times['old']:.2f} s, new {times['new']:.2f} s, ratio {times['old'] / times['new']:.2f}x "
          f"(CPU {cpu['old']:.2f} s vs {cpu['new']:.2f} s, {cpu['old'] / cpu['new']:.2f}x); "
          f"same distribution (smallest two-sample KS p-value): {same:.2f}")
    res = {}
    for name in ("old", "new"):
        with old_kernels() if name == "old" else contextlib.nullcontext():
            t0, c0 = time.perf_counter(), time.process_time()
            res[name] = bootstrap_entries_ij(design, b, rng=7)
            times[name] = time.perf_counter() - t0
            cpu[name] = time.process_time() - c0
    same = (np.array_equal(res["old"].entries, res["new"].entries, equal_nan=True)
            and np.array_equal(res["old"].replicate_standard_errors, res["new"].replicate_standard_errors,
                               equal_nan=True))
    print(f"  IJ bootstrap (B = {b}, all cores): old {times['old']:.1f} s, new {times['new']:.1f} s, "
          f"ratio {times['old'] / times['new']:.2f}x (CPU {cpu['old']:.1f} s vs {cpu['new']:.1f} s, "
          f"{cpu['old'] / cpu['new']:.2f}x); identical: {same}")
    print(f"  ({uptime()})")


if __name__ == "__main__":
    main()
