"""Command-line interface: ``trialwise ec|plan|leaderboard|compare|shape-bias|similarity ...``. Parses, calls the library, prints.

Errors and exit codes
---------------------
* 0 — done. Warnings are printed on stderr, one line per kind
  (``trialwise: warning (SparseTableWarning ×190): ...``).
* 1 — an internal error (a bug): one line naming the exception; set the environment
  variable ``TRIALWISE_TRACEBACK=1`` to see the traceback. Also: the leaderboard was
  computed and its tables saved, but a figure of the HTML report could not be drawn.
* 2 — bad input: one line ``trialwise: error: ...`` that names the file, column or
  option: the library's own input errors (:class:`trialwise.InputError`), the command
  line's (:class:`CLIError`), and files that cannot be read or written (``OSError``).
  Every other exception — a ``ValueError`` raised inside numpy, pandas or scipy,
  ``IndexError``, ``KeyError``, ``LinAlgError``, ... — is an internal error, so bugs are
  not disguised as user errors.
* 130 — interrupted (Ctrl-C) at any moment, the imports of the commands included:
  ``trialwise: interrupted``, no traceback; no partial output file is left behind.

Files
-----
Every command declares the files it reads and writes (``FILES`` in :mod:`trialwise.cli.app`),
and :func:`~trialwise.cli.common.check_files` checks them all before anything is computed:
an input must be a readable file (or a folder, where the command reads folders), not a device
like ``/dev/null``; an output must be writable, not a folder; and no output may name a file the
command reads, or another output (compared as resolved paths: symlinks, ``./x`` and ``x``, hard
links), or the file standard output or error is redirected to. Each is one line naming both
files, exit 2.

Seeds
-----
A command that draws random numbers and is given no ``--seed`` draws one, says it on stderr
after a successful run (``trialwise: seed 2805316617 (repeat with --seed 2805316617)``) and
writes it into its outputs: a ``seed`` column of every CSV, a ``"seed"`` field of ``--json``
and a sentence of the HTML report. ``--seed N`` repeats the run exactly.

When the reader of stdout goes away (``trialwise leaderboard --out report.html | head``),
the rest of the printout is dropped and the command still writes its files and exits as it
would have.

Progress
--------
Long commands (``leaderboard``, ``plan``) print one line on stderr when each phase
starts (``trialwise: bootstrapping 46 conditions × B = 10000 …``) and, when stderr is a
terminal, a live bar with counts, elapsed time and ETA. ``--quiet`` silences both;
``--progress`` forces the bar when stderr is not a terminal (e.g. a log file).

Layout
------
One module per command (``ec``, ``plan``, ``leaderboard``, ``compare``, ``shape_bias``,
``similarity`` with its HTML report in ``similarity_report``),
each with ``add_NAME(sub)`` (its subparser) and ``run_NAME(args) -> int``; ``common``
(the :class:`CLIError`, safe file output, reading), ``progress`` (progress and warnings on
stderr) and ``app`` (the parser, the exit codes). :func:`main` (this module) imports next to nothing: it
catches Ctrl-C and answers ``--version`` before it imports the commands and the library. The command line computes no
statistics: it parses, calls the library and prints.

Adding a command
----------------
Write a module ``cli/NAME.py`` with ``add_NAME(sub)`` (call
:func:`trialwise.cli.progress.add_progress_options` if it runs long) and
``run_NAME(args) -> int``, and register both in ``COMMANDS`` of :mod:`trialwise.cli.app`, and
its file arguments in ``FILES`` (``tests/cli/test_cli_files.py`` fails for an option that names a
file and is not there). Use
:func:`~trialwise.cli.common.write_text` / :func:`~trialwise.cli.common.save_figure` to
write, :func:`~trialwise.cli.common.reading` around file reading, and
:class:`~trialwise.cli.progress.Warnings` around the library calls.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any

from trialwise.cli.interrupt import on_interrupt

__all__ = ["main", "CLIError"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring).

    Ctrl-C is caught before anything else is imported (the commands import numpy, pandas and
    the library), and ``trialwise --version`` is answered without importing them.

    Run as the program (the ``trialwise`` console script and ``python -m trialwise.cli`` call
    ``main()`` with no ``argv``), Ctrl-C ends the process at once (:func:`on_interrupt`: worker
    threads are not waited for). Called from Python with an ``argv`` list (a notebook, a
    script), Ctrl-C interrupts the command the ordinary way (``KeyboardInterrupt``, caught:
    the same line, exit status 130) and never ends the caller's process.
    """
    program = argv is None
    previous = None
    with contextlib.suppress(ValueError):  # not the main thread: app turns KeyboardInterrupt into exit 130
        if program:
            previous = signal.signal(signal.SIGINT, on_interrupt)
    real_stderr = sys.stderr
    try:
        if sys.stderr is None:  # `2>&-`: the messages are lost, the exit status still says how it ended
            sys.stderr = open(os.devnull, "w", encoding="utf-8")
        args = sys.argv[1:] if argv is None else list(argv)
        if sys.stdout is None:  # `>&-`: print() would fail on every line
            print("trialwise: error: standard output is closed (`>&-`); send it to a file or to /dev/null "
                  "(`>/dev/null`) instead", file=sys.stderr)
            return 2
        if args == ["--version"]:
            from trialwise._core.version import VERSION

            print(f"trialwise {VERSION}")
            return 0
        from trialwise.cli.app import main as run

        return run(args, exit_on_interrupt=program)
    except KeyboardInterrupt:  # called from Python, or the handler could not be installed (not the main thread)
        print("trialwise: interrupted", file=sys.stderr)
        return 130
    finally:
        if sys.stderr is not real_stderr:
            sys.stderr.close()
            sys.stderr = real_stderr
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def __getattr__(name: str) -> Any:
    if name == "CLIError":  # without importing the commands at ``import trialwise.cli``
        from trialwise.cli.common import CLIError

        return CLIError
    raise AttributeError(f"module 'trialwise.cli' has no attribute {name!r}")
