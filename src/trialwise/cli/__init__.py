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
* 130 — interrupted (Ctrl-C): ``trialwise: interrupted``, no traceback; no partial
  output file is left behind.

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
stderr) and ``app`` (the parser, the exit codes, Ctrl-C). The command line computes no
statistics: it parses, calls the library and prints.

Adding a command
----------------
Write a module ``cli/NAME.py`` with ``add_NAME(sub)`` (call
:func:`trialwise.cli.progress.add_progress_options` if it runs long) and
``run_NAME(args) -> int``, and register both in ``COMMANDS`` of :mod:`trialwise.cli.app`.
Use :func:`~trialwise.cli.common.check_output` before computing and
:func:`~trialwise.cli.common.write_text` / :func:`~trialwise.cli.common.save_figure` to
write, :func:`~trialwise.cli.common.reading` around file reading, and
:class:`~trialwise.cli.progress.Warnings` around the library calls.
"""

from trialwise.cli.app import main
from trialwise.cli.common import CLIError

__all__ = ["main", "CLIError"]
