"""Speed and memory of a full benchmark analysis against a brute-force loop, in one run.

    python benchmarks/bench_leaderboard.py [--resamples 10000] [--naive-replicates 5]

The job: the bundled model-vs-human data (17 experiments, all humans, the 21 models that
cover every experiment; 46 conditions, 4,738 pair values), B joint hierarchical bootstrap
replicates, every level recomputed, ranks, rank intervals, P(best), Kendall's τ, the
per-experiment breakdown and swap tests (M = B swaps) for all 210 pairs of models.

Baseline: the brute-force loop a user would write — per replicate, resample item indices
within each condition, compute every pair's κ in numpy on the resampled vectors and
average through the hierarchy. It runs for ``--naive-replicates`` replicates and is
extrapolated linearly to B (its cost is linear in B). The swap tests' baseline (per
permutation, swap two models' responses item by item and recompute their scores) is
timed the same way on one pair and extrapolated to 210 pairs × M.

Peak memory is the process's peak resident set size (``resource.getrusage``), which
includes the data and the interpreter.

Before/after (issue 17, goal 4): the kernels as they were before the speed work (the swap
kernel per condition with a BLAS product, and the IJ influence with the explicit zeros of its
pattern matrix) are kept here (:func:`old_kernels`); the script times them against the
library's on the same data and seeds, checks that the numbers are identical, and prints the
ratios with the machine's load (``uptime``): the machine is shared, ratios are what count.
``benchmarks/bench_main_command.py --compare`` runs the whole command with them too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import subprocess
import time

import numpy as np
from scipy import sparse

import trialwise as tw
from trialwise.benchmark import differences as _differences
from trialwise.benchmark import hierarchy as _hierarchy
from trialwise.benchmark import influence as _influence
from trialwise.benchmark import swap as _swap
from trialwise.benchmark.protocol import metric_from_sums
from trialwise.tables import cluster_sums, pair_columns


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


def naive_kappa(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = a.mean(), b.mean()
    c_obs = np.mean(a == b)
    c_exp = pa * pb + (1 - pa) * (1 - pb)
    return (c_obs - c_exp) / (1 - c_exp) if c_exp < 1 else np.nan


def _units(trials, protocol):
    out = []
    for (e, c), g in trials.groupby(["experiment", "condition"], sort=True):
        if c in protocol.exclude.get(e, ()):
            continue
        wide = g.pivot(index="image", columns="subject", values="correct")
        out.append((e, wide))
    return out


def naive_replicate(units, models, rng) -> np.ndarray:
    per_exp: dict[str, list] = {}
    for e, wide in units:
        idx = rng.integers(0, len(wide), len(wide))
        w = wide.to_numpy(bool)[idx]
        cols = list(wide.columns)
        humans = [k for k, s in enumerate(cols) if s.startswith("subject-")]
        row = [np.nanmean([naive_kappa(w[:, cols.index(m)], w[:, h]) for h in humans]) for m in models]
        per_exp.setdefault(e, []).append(row)
    return np.mean([np.mean(v, axis=0) for v in per_exp.values()], axis=0)


def naive_swap(units, x, y, rng) -> float:
    per_exp: dict[str, list] = {}
    for e, wide in units:
        cols = list(wide.columns)
        w = wide.to_numpy(bool)
        s = rng.random(len(w)) < 0.5
        xs = np.where(s, w[:, cols.index(y)], w[:, cols.index(x)])
        ys = np.where(s, w[:, cols.index(x)], w[:, cols.index(y)])
        humans = [k for k, c in enumerate(cols) if c.startswith("subject-")]
        per_exp.setdefault(e, []).append(np.mean([naive_kappa(xs, w[:, h]) - naive_kappa(ys, w[:, h])
                                                  for h in humans]))
    return float(np.mean([np.mean(v) for v in per_exp.values()]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--naive-replicates", type=int, default=5)
    ap.add_argument("--no-compare", action="store_true", help="skip the before/after comparison of the kernels")
    args = ap.parse_args()
    b = args.resamples
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, numpy {np.__version__}, B = {b}")
    trials = tw.read_trials(tw.datasets.model_vs_human())

    t0 = time.perf_counter()
    lb = tw.leaderboard(trials, n_resamples=b, rng=0)
    t_boot = time.perf_counter() - t0
    t0 = time.perf_counter()
    lb.by_experiment()
    t_exp = time.perf_counter() - t0
    t0 = time.perf_counter()
    pw = lb.pairwise(which="all", test="swap", adjust="holm")
    t_swap = time.perf_counter() - t0
    total = t_boot + t_exp + t_swap
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"trialwise: leaderboard (bootstrap, ranks, tau) {t_boot:.1f} s; by_experiment {t_exp:.1f} s; "
          f"{len(pw)} swap tests (M = {b}) {t_swap:.1f} s; total {total:.1f} s; peak RSS {peak:.0f} MiB")

    units = _units(trials, tw.MODEL_VS_HUMAN)
    models = list(lb.candidates)
    rng = np.random.default_rng(1)
    t0 = time.perf_counter()
    for _ in range(args.naive_replicates):
        naive_replicate(units, models, rng)
    per_rep = (time.perf_counter() - t0) / args.naive_replicates
    t0 = time.perf_counter()
    for _ in range(args.naive_replicates):
        naive_swap(units, models[0], models[1], rng)
    per_swap = (time.perf_counter() - t0) / args.naive_replicates
    naive_boot = per_rep * b
    naive_tests = per_swap * b * len(pw)
    print(f"brute force: {per_rep * 1e3:.0f} ms per bootstrap replicate -> {naive_boot / 60:.1f} min for B = {b} "
          f"(ratio {naive_boot / t_boot:.0f}x); {per_swap * 1e3:.0f} ms per swap of one pair -> "
          f"{naive_tests / 3600:.1f} h for {len(pw)} pairs x {b} (ratio {naive_tests / t_swap:.0f}x); "
          f"whole job ratio {(naive_boot + naive_tests) / total:.0f}x")
    if not args.no_compare:
        compare(trials, lb, b)


def compare(trials, lb, b: int) -> None:
    """Before/after: the old kernels against the library's, same data and seeds, numbers checked identical."""
    from trialwise.benchmark.hierarchy import bootstrap_entries_ij
    from trialwise.resampling import keyed_rng

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
    same = all(np.array_equal(u, v, equal_nan=True) for u, v in zip(ref, nulls))
    print(f"  swap test, one pair (M = {b}, mean of {len(pairs)} neighbour pairs, one thread): "
          f"old {times['old']:.2f} s, new {times['new']:.2f} s, ratio {times['old'] / times['new']:.2f}x "
          f"(CPU {cpu['old']:.2f} s vs {cpu['new']:.2f} s, {cpu['old'] / cpu['new']:.2f}x); identical: {same}")
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
