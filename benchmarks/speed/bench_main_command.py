"""Time the README's main command exactly as a user runs it (issue 14, item 10).

    python benchmarks/speed/bench_main_command.py [--repeat 3]

Runs ``trialwise leaderboard --seed 0 --out <tmp>/report.html`` (B = 10,000, the neighbour
swap tests, the HTML report with its figures) in a subprocess and prints, per run, the wall
time, the CPU time as a share of the wall time (200 % = both cores busy all the time) and the
peak resident memory of the child process. The README's timing of the main command is the
median printed here; the peak memory's goal is under 1 GB (issue 17, goal 4: 0.74–0.77 GB, was
1.18–1.25 GB before the hierarchy's means stopped copying the float32 replicates whole).

``--compare``: each run is paired with a run of the same command on the kernels as they were
before issue 17 (``bench_leaderboard.old_kernels``: same numbers, slower), alternating old and
new, and the script prints the ratio of the medians with the machine's load (``uptime``): the
machine is shared, the ratio is what counts.
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--compare", action="store_true", help="also run the command on the kernels before issue 17")
    args = ap.parse_args()
    walls: dict[str, list[float]] = {"new": [], "old": []}
    cpus: dict[str, list[float]] = {"new": [], "old": []}  # CPU seconds: less sensitive to a shared machine's load
    peaks: list[float] = []
    print(subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip(), flush=True)
    for k in range(args.repeat):
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
    if args.compare:
        old, new = statistics.median(walls["old"]), statistics.median(walls["new"])
        print(f"before/after: old kernels {old:.1f} s, new {new:.1f} s, ratio {old / new:.2f}x (wall); CPU time "
              f"{statistics.median(cpus['old']):.1f} s vs {statistics.median(cpus['new']):.1f} s, ratio "
              f"{statistics.median(cpus['old']) / statistics.median(cpus['new']):.2f}x")
    print(subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip())


if __name__ == "__main__":
    main()
