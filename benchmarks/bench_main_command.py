"""Time the README's main command exactly as a user runs it (issue 14, item 10).

    python benchmarks/bench_main_command.py [--repeat 3]

Runs ``trialwise leaderboard --seed 0 --out <tmp>/report.html`` (B = 10,000, the neighbour
swap tests, the HTML report with its figures) in a subprocess and prints, per run, the wall
time, the CPU time as a share of the wall time (200 % = both cores busy all the time) and the
peak resident memory of the child process. The README's timing of the main command is the
median printed here.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    walls = []
    for k in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "trialwise.cli", "leaderboard", "--seed", "0", "--quiet",
                            "--out", os.path.join(tmp, "report.html")], check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        walls.append(wall)
        print(f"run {k + 1}: {wall:.1f} s wall, CPU {100 * cpu / wall:.0f} % of wall, "
              f"peak RSS {after.ru_maxrss / 2**20:.2f} GB", flush=True)
    print(f"median {statistics.median(walls):.1f} s on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
