"""The swap test's kernel (issue 17, goal 4): speed, agreement with the per-item kernel, calibration.

    python benchmarks/speed/bench_swap.py [--resamples 10000] [--boards 600] [--skip-pairwise]

1. Time: one swap test (M swaps) of 5 neighbour pairs of the bundled model-vs-human
   leaderboard, CPU and wall, the per-item kernel (one 0/1 draw per item and swap, the
   product of the bits with Δ, the hierarchy's group means) against the library's (the
   swap bits of items with equal or opposite rows of Δ counted by popcount of packed
   64-bit draws, the levels as one weighted sum). Then ``lb.pairwise(which="all",
   test="swap", adjust="holm")`` (210 pairs, M = B) with each kernel, wall and CPU time,
   with the machine's load (``uptime``): the machine is shared, the CPU times and ratios
   are what count.
2. Agreement: the two kernels draw different random numbers, so their p-values should differ
   by Monte-Carlo error only: per pair, an exact binomial test of equal hit rates.
3. Calibration: rejection rates at α = 0.05 (M = 199) of both kernels on simulated boards of
   exchangeable candidates: error consistency through the hierarchy (3 conditions in 2
   experiments, 4 humans, items resampled, and clusters of 10 items swapped whole), and
   per-item scores in [0, 1] with cluster effects, clusters swapped whole.
"""

from __future__ import annotations

import argparse
import subprocess
import time
import warnings

import numpy as np
import pandas as pd

import trialwise as tw
from trialwise.leaderboards import differences as _differences
from trialwise.leaderboards import swap as _swap
from trialwise.leaderboards.hierarchy import aggregate, build_design
from trialwise.leaderboards.protocol import metric_from_sums
from trialwise._stats.streams import keyed_rng


def per_item_swap_differences(design, x, y, n_resamples, *, rng=None, weights=None):
    """The kernel before: one int8 swap bit per item and swap, ``bits @ Δ`` per condition, group means."""
    m = n_resamples
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    metric = design.protocol.metric
    ent_x = np.flatnonzero(design.entry_row == x)
    ent_y = np.flatnonzero(design.entry_row == y)
    parts, take, where_x, where_y, width = [], [], [], [], 0
    for unit in design.units:
        rows = design.entry_row[unit.entries]
        ux, uy = unit.entries[rows == x], unit.entries[rows == y]
        if len(ux) == 0:
            continue
        loc_x, loc_y = ux - unit.entries[0], uy - unit.entries[0]
        items, delta, inverse = _swap._swap_columns(unit, unit.pairs[loc_x[0], 0], unit.pairs[loc_y[0], 0],
                                                    loc_x, loc_y)
        if len(items):
            bits = gen.integers(0, 2, size=(m, len(items)), dtype=np.int8).astype(delta.dtype)
            parts.append(np.einsum("ij,jk->ik", bits, delta))
            take.append(inverse + width)
            width += delta.shape[1]
        else:
            take.append(np.full(inverse.shape, -1))
        where_x.append(np.searchsorted(ent_x, ux))
        where_y.append(np.searchsorted(ent_y, uy))
    products = np.concatenate(parts + [np.zeros((m, 1), np.float32)], axis=1)
    take_all = np.concatenate(take, axis=1)
    take_all[take_all < 0] = width
    wx, wy = np.concatenate(where_x), np.concatenate(where_y)
    base_x = design.entry_sums[:, ent_x[wx]][:, None, :]
    base_y = design.entry_sums[:, ent_y[wy]][:, None, :]
    vx = np.empty((m, len(ent_x)))
    vy = np.empty((m, len(ent_y)))
    step = max(1, 2**18 // max(take_all.size, 1))
    for lo in range(0, m, step):
        change = np.moveaxis(products[lo:lo + step].astype(np.float64)[:, take_all], 1, 0)
        vx[lo:lo + step, wx] = metric_from_sums(metric, *(base_x + change))
        vy[lo:lo + step, wy] = metric_from_sums(metric, *(base_y - change))
    sx, _ = aggregate(vx, design, entries=ent_x)
    sy, _ = aggregate(vy, design, entries=ent_y)
    values = design.values()
    observed = (aggregate(values[ent_x], design, entries=ent_x)[0][0]
                - aggregate(values[ent_y], design, entries=ent_y)[0][0])
    return float(observed), sx[:, 0] - sy[:, 0]


KERNELS = {"per-item": per_item_swap_differences, "grouped": _swap.swap_differences}


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def timing(lb, b: int, pairwise: bool) -> dict[str, pd.DataFrame]:
    design = lb._swaps.design
    order = [lb.observers.index(o) for o in lb.table["observer"] if o != lb.reference_row]
    pairs = list(zip(order[:-1], order[1:]))[:5]
    print(f"one swap test, M = {b}, mean of {len(pairs)} neighbour pairs, one thread ({uptime()})")
    for name, kernel in KERNELS.items():
        kernel(design, *pairs[0], 50, rng=0)
        t0, c0 = time.perf_counter(), time.process_time()
        for i, j in pairs:
            kernel(design, i, j, b, rng=keyed_rng(123, (i, j)))
        print(f"  {name:9s} wall {(time.perf_counter() - t0) / len(pairs):.3f} s, "
              f"CPU {(time.process_time() - c0) / len(pairs):.3f} s")
    tables = {}
    if not pairwise:
        return tables
    saved = _differences.swap_differences
    for name, kernel in KERNELS.items():
        board = tw.leaderboard(tw.read_trials(tw.datasets.model_vs_human()), n_resamples=b, rng=0)
        _differences.swap_differences = kernel
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            tables[name] = board.pairwise(which="all", test="swap", adjust="holm")
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        finally:
            _differences.swap_differences = saved
        print(f"  all {len(tables[name])} pairs, {name:9s}: wall {wall:.1f} s, CPU {cpu:.1f} s "
              f"({cpu / wall:.0%} of one core) ({uptime()})")
    return tables


def agreement(tables: dict[str, pd.DataFrame], b: int) -> None:
    """Per pair, the two kernels' hit counts ``h = p·(M + 1) − 1`` are independent binomials with the
    same p under "same null": given ``h_old + h_new``, ``h_new`` is Binomial(h_old + h_new, ½)."""
    from scipy.stats import binomtest

    old, new = tables["per-item"]["pvalue"].to_numpy(), tables["grouped"]["pvalue"].to_numpy()
    h_old, h_new = (np.rint(p * (b + 1) - 1).astype(int) for p in (old, new))
    tests = np.array([binomtest(int(k), int(k + j), 0.5).pvalue if k + j else 1.0 for k, j in zip(h_new, h_old)])
    worst = int(np.argmin(tests))
    print(f"p-values, grouped vs per-item (M = {b}, {len(old)} pairs): max |Δp| {np.abs(new - old).max():.4f}; "
          f"exact test of equal hit rates per pair: {int((tests < 0.05).sum())} pairs below 0.05 "
          f"(≈ {0.05 * len(old):.0f} expected), {int((tests < 0.01).sum())} below 0.01 (≈ {0.01 * len(old):.0f}), "
          f"smallest {tests[worst]:.4f} (p {old[worst]:.4f} vs {new[worst]:.4f}); "
          f"{int(((old < 0.01) | (new < 0.01)).sum())} pairs below 0.01 in either, {int(((old < 0.01) & (new < 0.01)).sum())} in both")


def simulated_ec(rng, n=100, n_humans=4, clusters=False):
    """Two exchangeable models and humans: each copies a shared latent difficulty the same way."""
    rows = []
    for e, c in (("e1", "c1"), ("e1", "c2"), ("e2", "c1")):
        hard = rng.random(n) < 0.35
        for name, p_copy, kind in [(f"h{h}", 0.5, "human") for h in range(n_humans)] + [
                ("m0", 0.3, "model"), ("m1", 0.3, "model")]:
            ok = np.where(rng.random(n) < p_copy, ~hard, rng.random(n) < 0.65)
            rows.append(pd.DataFrame({"experiment": e, "condition": c, "subject": name, "observer_type": kind,
                                      "image": [f"{e}{c}i{i}" for i in range(n)], "correct": ok.astype(int),
                                      "cluster": [f"{e}{c}k{i // 10}" for i in range(n)]}))
    trials = tw.read_trials(pd.concat(rows, ignore_index=True), correct="correct", clusters="cluster")
    design = build_design(trials, tw.leaderboards.Protocol("sim"), clusters=trials["cluster"].to_numpy() if clusters else None)
    return design, design.rows.index("m0"), design.rows.index("m1")


def simulated_scores(rng, n=120, n_clusters=12):
    """Per-item scores Φ(shared item + τ·model×cluster + noise), the same law for both models."""
    from scipy.stats import norm

    rows = []
    for u in range(4):
        cl = np.repeat(np.arange(n_clusters), n // n_clusters)
        shared = np.sqrt(0.3) * rng.normal(size=n_clusters)[cl] + np.sqrt(0.7) * rng.normal(size=n)
        for m in range(2):
            z = 0.2 + shared + 0.3 * rng.normal(size=n_clusters)[cl] + 0.5 * rng.normal(size=n)
            rows.append(pd.DataFrame({"experiment": f"e{u // 2}", "condition": f"c{u % 2}", "subject": f"m{m}",
                                      "image": [f"c{u % 2}-q{i:04d}" for i in range(n)], "f1": norm.cdf(z),
                                      "passage": cl.astype(str)}))
    trials = tw.read_trials(pd.concat(rows, ignore_index=True), score="f1", clusters="passage")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        design = build_design(trials, tw.leaderboards.ACCURACY, clusters=trials["cluster"].to_numpy())
    return design, 0, 1


def calibration(boards: int, m: int = 199) -> None:
    se = np.sqrt(0.05 * 0.95 / boards)
    print(f"type-I error at α = 0.05, {boards} boards per design, M = {m} (MC SE {se:.4f})")
    designs = {"error consistency, items": lambda r: simulated_ec(r),
               "error consistency, clusters of 10 swapped": lambda r: simulated_ec(r, clusters=True),
               "per-item scores, clusters swapped": simulated_scores}
    for label, make in designs.items():
        rng = np.random.default_rng(2026)
        hits = {name: 0 for name in KERNELS}
        t0 = time.perf_counter()
        for r in range(boards):
            design, x, y = make(rng)
            for name, kernel in KERNELS.items():
                obs, null = kernel(design, x, y, m, rng=keyed_rng(r, (x, y)))
                hits[name] += _swap.swap_pvalue(obs, null) <= 0.05
        rates = ", ".join(f"{name} {h / boards:.3f}" for name, h in hits.items())
        print(f"  {label}: {rates} ({time.perf_counter() - t0:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--boards", type=int, default=600)
    ap.add_argument("--skip-pairwise", action="store_true")
    args = ap.parse_args()
    lb = tw.leaderboard(tw.read_trials(tw.datasets.model_vs_human()), n_resamples=50, rng=0)
    tables = timing(lb, args.resamples, not args.skip_pairwise)
    if tables:
        agreement(tables, args.resamples)
    if args.boards:
        calibration(args.boards)


if __name__ == "__main__":
    main()
