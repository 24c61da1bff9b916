"""The leaderboard's bootstrap before and after its issue-17 speed work, phase by phase, in one run.

    python benchmarks/speed/bench_leaderboard_bootstrap.py [--resamples 10000] [--before REV] [--workers 1]

The job is the README's main call, ``tw.leaderboard(model_vs_human, n_resamples=B, rng=0)``
(studentized intervals: the bootstrap with the infinitesimal-jackknife standard errors of
every replicate). "Before" runs the bootstrap and aggregation of commit ``REV`` (default
``ccf60bc``: ``hierarchy.py``, ``influence.py`` and ``resampling.py`` read with ``git show``,
loaded as modules and swapped into the leaderboard); "now" the working tree. Both run on the same data and seed
in the same process, alternately, and the script checks that every seeded number is the
same bits. Times are CPU seconds (``time.process_time``, steadier than wall time on a shared
machine) and wall seconds; with ``--workers 1`` and ``OPENBLAS_NUM_THREADS=1`` one thread
does everything. The machine's load (``uptime``) is printed: ratios are what count.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np

import trialwise as tw
from trialwise.leaderboards import bootstrap, hierarchy, replicates, scoring

ROOT = Path(__file__).resolve().parents[2]
#: The modules the old sources import, where they are now (the packages of the 1.0 layout).
OLD_IMPORTS = (("from trialwise.benchmark.", "from trialwise.leaderboards."),
               ("from trialwise.tables import", "from trialwise._stats.tables import"),
               ("from trialwise.data import", "from trialwise.io.trials import"))


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:  # pragma: no cover
        return "uptime: n/a"


def old_modules(rev: str) -> tuple[types.ModuleType, types.ModuleType]:
    """``hierarchy`` and ``influence`` as they were at ``rev``."""
    def load(name: str, path: str, *replace: tuple[str, str]) -> types.ModuleType:
        src = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True, check=True,
                             cwd=ROOT).stdout
        for r in replace:
            src = src.replace(*r)
        mod = types.ModuleType(name)
        mod.__file__ = f"<{rev}:{path}>"
        sys.modules[name] = mod
        exec(compile(src, mod.__file__, "exec"), mod.__dict__)
        return mod

    infl = load("old_influence", "src/trialwise/benchmark/influence.py", *OLD_IMPORTS)
    load("old_resampling", "src/trialwise/resampling.py", *OLD_IMPORTS)  # the engine's weights, as they were
    hier = load("old_hierarchy", "src/trialwise/benchmark/hierarchy.py",
                ("from trialwise.benchmark.influence import UnitInfluence", "from old_influence import UnitInfluence"),
                ("from trialwise.resampling import", "from old_resampling import"), *OLD_IMPORTS)
    return hier, infl


def timed(f, *args, **kw):
    c0, t0 = time.process_time(), time.perf_counter()
    out = f(*args, **kw)
    return out, time.process_time() - c0, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--before", default="ccf60bc")
    ap.add_argument("--workers", type=int, default=None, help="threads of the bootstrap (default: all cores)")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    b, w = args.resamples, args.workers
    old, _ = old_modules(args.before)
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    trials = tw.read_trials(tw.datasets.model_vs_human())
    design = scoring.build_design(scoring.as_trials(trials), tw.leaderboards.MODEL_VS_HUMAN)
    print(f"B = {b}, workers = {w or 'all'}; {len(design.units)} conditions, {design.n_entries:,} entries; "
          f"before = {args.before}; {uptime()}")
    rows: dict[str, list[tuple[float, float]]] = {}

    def keep(label: str, c: float, t: float) -> None:
        rows.setdefault(label, []).append((c, t))

    refs: dict = {}
    for _ in range(args.repeats):
        for tag, mod in (("before", old), ("now", bootstrap)):
            for name in ("bootstrap_entries", "bootstrap_entries_ij"):
                res, c, t = timed(getattr(mod, name), design, b, rng=1, workers=w)
                keep(f"{name} {tag}", c, t)
                if tag == "before":
                    refs[name] = ref = res
                else:
                    ref = refs[name]
                    same = (np.array_equal(ref, res, equal_nan=True) if name == "bootstrap_entries" else all(
                        np.array_equal(getattr(ref, f), getattr(res, f), equal_nan=True)
                        for f in ("entries", "standard_errors", "replicate_standard_errors")))
                    assert same, f"{name}: not the same bits as {args.before}"
            entries = res.entries
            if tag == "before":
                (r1, e1), c, t = timed(lambda: (old.row_scores(entries, design),
                                                old.aggregate(entries, design, keep=("experiment",))[0]))
            else:
                ((r2, key), (e2, _)), c, t = timed(hierarchy.aggregate_each, entries, design, ((), ("experiment",)))
                assert np.array_equal(r1[:, key["row"]], r2, equal_nan=True) and np.array_equal(e1, e2, equal_nan=True)
            keep(f"aggregation {tag}", c, t)
        # the leaderboard with the old hierarchy: its bootstrap and aggregation (replicates.py) and its design
        saved = (replicates.bootstrap_entries_ij, replicates.row_scores, replicates.aggregate,
                 replicates.aggregate_each, scoring.build_design)
        replicates.bootstrap_entries_ij, replicates.row_scores, replicates.aggregate, scoring.build_design = (
            old.bootstrap_entries_ij, old.row_scores, old.aggregate, old.build_design)
        replicates.aggregate_each = lambda v, d, keeps: [old.aggregate(v, d, keep=k) for k in keeps]
        try:
            lb_old, c, t = timed(tw.leaderboard, trials, n_resamples=b, rng=0, workers=w)
        finally:
            (replicates.bootstrap_entries_ij, replicates.row_scores, replicates.aggregate,
             replicates.aggregate_each, scoring.build_design) = saved
        keep("tw.leaderboard before", c, t)
        lb, c, t = timed(tw.leaderboard, trials, n_resamples=b, rng=0, workers=w)
        keep("tw.leaderboard now", c, t)
        assert lb.table.equals(lb_old.table) and np.array_equal(lb.replicates, lb_old.replicates, equal_nan=True)
        assert np.array_equal(lb.replicate_standard_errors, lb_old.replicate_standard_errors, equal_nan=True)
    print("same bits before and now: replicates, standard errors, per-experiment replicates, the table")
    print(f"{'phase':34s} {'CPU s (min)':>12s} {'wall s (min)':>13s}")
    for label, vals in rows.items():
        print(f"{label:34s} {min(v[0] for v in vals):12.2f} {min(v[1] for v in vals):13.2f}")
    print(uptime())


if __name__ == "__main__":
    main()
