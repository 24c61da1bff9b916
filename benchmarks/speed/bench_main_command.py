"""Time the README's main command exactly as a user runs it, against the leaderboard it reports (issues 14, 33).

    python benchmarks/speed/bench_main_command.py [--repeat 3] [--phases]

Runs ``trialwise leaderboard --seed 0 --out <tmp>/report.html`` (B = 10,000, the neighbour
tests, the HTML report with its figures) in a subprocess and prints, per run, the wall
time, the CPU time as a share of the wall time (200 % = both cores busy all the time) and the
peak resident memory of the child process. The README's timing of the main command is the
median printed here; the peak memory's goal is under 1 GB (issue 17, goal 4: 0.74–0.77 GB, was
1.18–1.25 GB before the hierarchy's means stopped copying the float32 replicates whole).

The baseline (issue 33, goal 1: the command within 1.5× of it): the leaderboard the command
reports, ``tw.leaderboard(tw.datasets.model_vs_human(), n_resamples=10_000, rng=0)``, timed in
a fresh interpreter around that call alone (CPU and wall), interleaved with the command's runs.
The script prints the ratio of the medians of CPU time (and of wall time).

``--phases``: one more run of the command in this process with a timer around each phase
(reading the trials, the leaderboard, the neighbour tests, shape bias, the report's figures one
by one, …): where the time beyond the leaderboard goes. The phases' CPU seconds are printed
with what is left (imports, the tables, writing).

``--compare``: each run is paired with a run of the same command on the kernels as they were
before issue 17 (``bench_leaderboard.old_kernels``: same numbers, slower), alternating old and
new, and the script prints the ratio of the medians with the machine's load (``uptime``): the
machine is shared, the ratio is what counts.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time


#: The command on the old kernels, in a child process (bench_leaderboard.py sits next to this script).
OLD = ("import runpy, sys; sys.path.insert(0, {here!r}); import bench_leaderboard as b; "
       "sys.argv = ['trialwise'] + sys.argv[1:]; b.old_kernels().__enter__(); "
       "runpy.run_module('trialwise.cli', run_name='__main__')")


def run_once(out: str, old: bool) -> tuple[float, float, float]:
    """Wall time, CPU share of the wall time and peak RSS (GB) of one run of the command."""
    args = ["leaderboard", "--seed", "0", "--quiet", "--out", out]
    cmd = ([sys.executable, "-c", OLD.format(here=os.path.dirname(os.path.abspath(__file__)))] if old
           else [sys.executable, "-m", "trialwise.cli"]) + args
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak memory
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, cmd)
    return wall, 100 * (usage.ru_utime + usage.ru_stime) / wall, usage.ru_maxrss / 2**20


#: The baseline: the leaderboard the command reports, timed around the call alone in a fresh interpreter.
LEADERBOARD = ("import time, trialwise as tw; t = tw.datasets.model_vs_human(); c, w = time.process_time(), "
               "time.perf_counter(); tw.leaderboard(t, n_resamples=10_000, rng=0); "
               "print(time.process_time() - c, time.perf_counter() - w)")


def leaderboard_once() -> tuple[float, float]:
    """CPU and wall seconds of ``tw.leaderboard(..., n_resamples=10_000)`` alone, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", LEADERBOARD], capture_output=True, text=True, check=True).stdout
    cpu, wall = map(float, out.split())
    return cpu, wall


def phases() -> None:
    """One run of the command in this process, a timer around each phase; prints their CPU and wall seconds."""
    import trialwise.cli as cli
    import trialwise.cli.leaderboard as cl
    import trialwise.leaderboards.board as bd
    import trialwise.leaderboards.scoring as sc
    import trialwise.leaderboards.conditions as cd
    import trialwise.report.leaderboard as rl
    import trialwise.report.page as pg
    import trialwise.cli.common as cc

    spent: dict[str, list[float]] = {}

    def timed(owner, name: str, label=None) -> None:
        inner = getattr(owner, name)

        def wrapper(*a, **k):
            c, w = time.process_time(), time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                key = label(a) if label else name
                row = spent.setdefault(key, [0.0, 0.0])
                row[0] += time.process_time() - c
                row[1] += time.perf_counter() - w
        setattr(owner, name, wrapper)

    timed(cc, "read_trials_argument", lambda a: "reading the trials")
    timed(cl, "read_trials_argument", lambda a: "reading the trials")
    timed(sc, "leaderboard", lambda a: "the leaderboard (tw.leaderboard)")
    timed(bd.Leaderboard, "pairwise", lambda a: "the neighbour tests (Leaderboard.pairwise)")
    timed(cl, "_report_shape_bias", lambda a: "shape bias (report)")
    timed(cd, "condition_breakdown", lambda a: "per-condition bootstrap (report)")
    timed(bd.Leaderboard, "by_experiment", lambda a: "per-experiment breakdown (report)")
    timed(pg, "figure", lambda a: f"figure: {a[0]}")
    rl._figure = pg.figure
    c0, w0 = time.process_time(), time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        argv, sys.argv = sys.argv, ["trialwise", "leaderboard", "--seed", "0", "--quiet", "--out",
                                    os.path.join(tmp, "report.html")]
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                cli.main()
        except SystemExit as stop:
            if stop.code:
                raise
        finally:
            sys.argv = argv
    total_cpu, total_wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"phases of one run in this process (CPU / wall seconds; total {total_cpu:.1f} / {total_wall:.1f}, "
          f"imports before it not counted):")
    for key, (cpu, wall) in sorted(spent.items(), key=lambda kv: -kv[1][0]):
        print(f"  {key:60s} {cpu:6.2f} {wall:6.2f}")
    rest = total_cpu - sum(v[0] for v in spent.values())
    print(f"  {'the rest (imports on first use, tables, CSV, writing)':60s} {rest:6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compare", action="store_true", help="also run the command on the kernels before issue 17")
    ap.add_argument("--phases", action="store_true", help="also one run with a timer around each phase")
    args = ap.parse_args()
    walls: dict[str, list[float]] = {"new": [], "old": []}
    cpus: dict[str, list[float]] = {"new": [], "old": []}  # CPU seconds: less sensitive to a shared machine's load
    board: dict[str, list[float]] = {"cpu": [], "wall": []}
    peaks: list[float] = []
    print(subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip(), flush=True)
    for k in range(args.repeat):
        cpu_b, wall_b = leaderboard_once()
        board["cpu"].append(cpu_b)
        board["wall"].append(wall_b)
        print(f"run {k + 1}: the leaderboard alone (B = 10,000) {wall_b:.1f} s wall, {cpu_b:.1f} s CPU", flush=True)
        for kind in (("old", "new") if args.compare else ("new",)):
            with tempfile.TemporaryDirectory() as tmp:
                wall, cpu, peak = run_once(os.path.join(tmp, "report.html"), kind == "old")
            walls[kind].append(wall)
            if kind == "new":
                peaks.append(peak)
            cpus[kind].append(wall * cpu / 100)
            print(f"run {k + 1}{' (' + kind + ' kernels)' if args.compare else ''}: {wall:.1f} s wall, "
                  f"CPU {cpu:.0f} % of wall, peak RSS {peak:.2f} GB", flush=True)
    print(f"median {statistics.median(walls['new']):.1f} s on {os.cpu_count()} cores (CPU time "
          f"{statistics.median(cpus['new']):.1f} s); peak RSS {min(peaks):.2f}–{max(peaks):.2f} GB (goal < 1 GB)")
    cpu_b, wall_b = statistics.median(board["cpu"]), statistics.median(board["wall"])
    print(f"the leaderboard alone: median {wall_b:.1f} s wall, {cpu_b:.1f} s CPU; the command / the leaderboard: "
          f"{statistics.median(cpus['new']) / cpu_b:.2f}x CPU, {statistics.median(walls['new']) / wall_b:.2f}x wall "
          f"(goal <= 1.5x CPU)")
    if args.compare:
        old, new = statistics.median(walls["old"]), statistics.median(walls["new"])
        print(f"before/after: old kernels {old:.1f} s, new {new:.1f} s, ratio {old / new:.2f}x (wall); CPU time "
              f"{statistics.median(cpus['old']):.1f} s vs {statistics.median(cpus['new']):.1f} s, ratio "
              f"{statistics.median(cpus['old']) / statistics.median(cpus['new']):.2f}x")
    if args.phases:
        phases()
    print(subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip())


if __name__ == "__main__":
    main()
