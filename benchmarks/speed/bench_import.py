"""The CPU cost of ``import trialwise`` next to ``import numpy`` (issue 29, item 9).

    python benchmarks/speed/bench_import.py [--rounds 15] [--top 12] [--statement "import trialwise"]

Each round runs, in fresh interpreters and in alternating order, ``python -c "import numpy"``,
``python -c "import trialwise"``, a bare ``python -c "pass"`` and, for information, the first
use of a function (``tw.error_consistency``: numpy, scipy.stats, pandas), and reads each child's CPU
time (user + system, ``resource.getrusage(RUSAGE_CHILDREN)``) — CPU time, not wall time, so
the other jobs of a shared machine disturb it less. It prints the medians over the rounds,
the ratio trialwise / numpy (the goal: at most 1.5) and the load average before and after,
then the heaviest modules ``import trialwise`` pulls in (``python -X importtime``, cumulative
microseconds of the top-level imports it triggers, median of three runs) and whether scipy,
pandas or matplotlib are among them.

``--statement`` times another statement in place of ``import trialwise`` (for example
``"import trialwise as tw; tw.error_consistency"`` to see what the first call of a function
loads).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys


def cpu_seconds(code: str) -> float:
    """CPU time (user + system) of a fresh ``python -c code``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_times(code: str) -> dict[str, int]:
    """Cumulative microseconds per imported module (``-X importtime``) of ``python -c code``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=True, capture_output=True,
                          text=True)
    out: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
        out[name] = int(cumulative)  # indentation stripped: the name is the module
    return out


def heaviest(code: str, top: int) -> list[tuple[str, int]]:
    """The ``top`` modules of largest cumulative import time (a package's includes its children),
    median of three runs, leaving out what a bare interpreter imports."""
    runs = [import_times(code) for _ in range(3)]
    interpreter = set(import_times("pass"))  # site, its .pth files ...: not the statement's
    names = set.intersection(*(set(r) for r in runs)) - interpreter
    medians = {name: int(statistics.median(r[name] for r in runs)) for name in names}
    return sorted(medians.items(), key=lambda kv: -kv[1])[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--statement", default="import trialwise")
    args = parser.parse_args(argv)

    statements = {"bare": "pass", "numpy": "import numpy", "trialwise": args.statement,
                  "first use": "import trialwise as tw; tw.error_consistency"}
    times: dict[str, list[float]] = {name: [] for name in statements}
    load_before = os.getloadavg()
    for i in range(args.rounds):
        order = list(statements) if i % 2 == 0 else list(reversed(statements))  # interleaved
        for name in order:
            times[name].append(cpu_seconds(statements[name]))
    load_after = os.getloadavg()

    med = {name: statistics.median(values) for name, values in times.items()}
    print(f"CPU time of a fresh interpreter, median of {args.rounds} interleaved rounds (python {sys.version.split()[0]}):")
    for name, code in statements.items():
        spread = f"{min(times[name]) * 1e3:.0f}–{max(times[name]) * 1e3:.0f} ms"
        print(f"  {code!r:45} {med[name] * 1e3:7.0f} ms   (range {spread})")
    print(f"ratio trialwise / numpy: {med['trialwise'] / med['numpy']:.2f}   (goal: <= 1.5)")
    print(f"ratio above a bare interpreter: {(med['trialwise'] - med['bare']) / (med['numpy'] - med['bare']):.2f}")
    print("load average (1, 5, 15 min): before " + ", ".join(f"{x:.2f}" for x in load_before)
          + "; after " + ", ".join(f"{x:.2f}" for x in load_after))

    print(f"\nheaviest modules {args.statement!r} imports (cumulative, median of 3 runs of -X importtime):")
    for name, micros in heaviest(args.statement, args.top):
        print(f"  {micros / 1e3:8.1f} ms  {name}")
    loaded = subprocess.run(
        [sys.executable, "-c", f"{args.statement}\nimport sys\n"
         "print(', '.join(m for m in ('scipy', 'scipy.stats', 'pandas', 'matplotlib') if m in sys.modules) or 'none')"],
        check=True, capture_output=True, text=True).stdout.strip()
    print(f"\nscipy / scipy.stats / pandas / matplotlib loaded: {loaded}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
