"""The ``trialwise`` program: the parser of every command, the files they read and write, the exit codes.

See :mod:`trialwise.cli` for the exit codes and how to add a command; :func:`trialwise.cli.main`
catches Ctrl-C before this module (which imports every command and the library) is imported.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, NoReturn

from trialwise._core.errors import InputError
from trialwise._core.version import VERSION
from trialwise.cli.interrupt import on_interrupt
from trialwise.cli.brainscore import add_brainscore, run_brainscore
from trialwise.cli.common import CLIError, EPILOG, FigureFailure, check_files
from trialwise.cli.compare import add_compare, run_compare
from trialwise.cli.ec import add_ec, run_ec
from trialwise.cli.leaderboard import add_leaderboard, run_leaderboard
from trialwise.cli.paired import add_paired, run_paired
from trialwise.cli.plan import add_plan, run_plan
from trialwise.cli.progress import BAR_OPEN, Warnings
from trialwise.cli.shape_bias import add_shape_bias, run_shape_bias
from trialwise.cli.similarity import add_similarity, run_similarity


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``trialwise: error: …`` and exit 2, not the whole usage."""

    def error(self, message: str) -> NoReturn:
        print(f"trialwise: error: {self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="trialwise",
        description="Trial-by-trial comparison of classifiers with honest uncertainty.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"trialwise {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (add, _) in COMMANDS.items():
        command = add(sub)
        for action in command._actions:
            if action.dest == "seed":  # every command's --seed, in the same words (see _draw_seed)
                action.help = (f"{action.help}; default: a seed drawn at random, said on stderr and written into "
                               f"the outputs (CSV column seed, JSON field seed, the report)")
    return parser


#: name -> (add the subparser, run it). Extend here.
COMMANDS: dict[str, tuple[Callable[[Any], argparse.ArgumentParser], Callable[[Any], int]]] = {
    "ec": (add_ec, run_ec),
    "plan": (add_plan, run_plan),
    "leaderboard": (add_leaderboard, run_leaderboard),
    "compare": (add_compare, run_compare),
    "shape-bias": (add_shape_bias, run_shape_bias),
    "similarity": (add_similarity, run_similarity),
    "paired": (add_paired, run_paired),
    "brainscore": (add_brainscore, run_brainscore),
}


class Files(NamedTuple):
    """The file arguments of a command: ``(attribute, flag)`` of each input, with whether it may be a folder,
    and ``(attribute, flag, kind)`` of each output (kind: ``"html"``, ``"csv"`` or ``"figure"``)."""

    inputs: tuple[tuple[str, str, bool], ...]
    outputs: tuple[tuple[str, str, str], ...]


#: name -> the files it reads and writes, checked by :func:`trialwise.cli.common.check_files` before it runs.
FILES: dict[str, Files] = {
    "ec": Files((("files", "CSV", False),), ()),
    "plan": Files((), (("figure", "--figure", "figure"),)),
    "leaderboard": Files((("path", "PATH", True),),
                         (("out", "--out", "html"), ("csv", "--csv", "csv"), ("pairwise_csv", "--pairwise-csv", "csv"))),
    "compare": Files((("file", "CSV", False),),
                     (("reliability", "--reliability", "figure"), ("heatmap", "--heatmap", "figure"))),
    "shape-bias": Files((("path", "PATH", True),), (("csv", "--csv", "csv"), ("figure", "--figure", "figure"))),
    "similarity": Files((("logs", "LOGS", True),), (("out", "--out", "html"), ("csv", "--csv", "csv"),
                                                   ("differences_csv", "--differences-csv", "csv"))),
    "paired": Files((("a", "A", True), ("b", "B", True)), ()),
    "brainscore": Files((("path", "PATH", True), ("probabilities", "--probabilities", False), ("osts", "--osts", False)),
                        (("out", "--out", "html"), ("csv", "--csv", "csv"))),
}


def _check_files(args) -> None:
    """Every input and output of the command, before it computes anything (:func:`check_files`)."""
    files = FILES[args.command]
    check_files([(getattr(args, attr), flag, folder) for attr, flag, folder in files.inputs],
                [(getattr(args, attr), flag, kind) for attr, flag, kind in files.outputs])


#: Commands whose options can make them draw no random numbers at all: name -> does this run draw any?
#: (``ec`` with an analytic or jackknife interval and an exact or asymptotic test.) Every other command with a
#: ``--seed`` bootstraps, permutes or simulates.
_DRAWS = {"ec": lambda args: args.ci_method not in ("analytic", "jackknife-t") or args.test == "copy-null"}


def _draw_seed(args) -> int | None:
    """A seed for a command that draws random numbers and was given no ``--seed``: drawn, set, and returned."""
    if not hasattr(args, "seed") or args.seed is not None or not _DRAWS.get(args.command, lambda _: True)(args):
        return None
    from trialwise._stats.streams import fresh_seed

    args.seed = fresh_seed()
    return args.seed


def _say_seed(args, drawn: int | None) -> None:
    """The drawn seed on stderr (not with --quiet: it is also in the CSV, JSON and report), after the results."""
    if drawn is not None and getattr(args, "progress", None) != "quiet":
        print(f"trialwise: seed {drawn} (repeat with --seed {drawn})", file=sys.stderr)


def _duplicates(parser: argparse.ArgumentParser, args) -> None:
    """An option of several values that names one twice (``--subjects A A``): one line naming it."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[args.command]
    for action in sub._actions:
        if not action.option_strings or action.nargs not in ("+", "*", 2) or action.dest in _REPEATS_ALLOWED:
            continue
        values = getattr(args, action.dest, None) or []
        seen = set()
        for v in values:
            if v in seen:
                raise CLIError(f"{action.option_strings[0]} names {v!r} twice (got {' '.join(map(str, values))}); "
                               f"give each once")
            seen.add(v)


#: Options whose values may repeat: compare's --names A A (the report tells them apart as 'A (a)', 'A (b)').
_REPEATS_ALLOWED = ("names",)


def _check_options(args) -> None:
    """The numeric options every command shares, checked in the command line's own words."""
    seed = getattr(args, "seed", None)
    if seed is not None and seed < 0:
        raise CLIError(f"--seed must be a non-negative integer; got {seed}")
    level = getattr(args, "confidence_level", None)
    if level is not None and not 0 < level < 1:  # also NaN
        raise CLIError(f"--confidence-level must be between 0 and 1 (e.g. 0.95); got {level:g}")
    for flag, attr, least in (("--resamples", "resamples", 1), ("--simulations", "simulations", 1),
                              ("--bins", "bins", 1)):
        value = getattr(args, attr, None)
        if value is not None and value < least:
            raise CLIError(f"{flag} must be at least {least}; got {value}")


def _is_input_error(exc: BaseException) -> bool:
    """Bad input: the library's own :class:`trialwise.InputError` (every argument check raises one).

    Anything else — a ValueError from numpy, a TypeError from an operation in trialwise's
    own code — is a bug and is reported as one (exit status 1).
    """
    return isinstance(exc, InputError)


@contextlib.contextmanager
def _interrupt_handler(enabled: bool) -> Iterator[None]:
    """Ctrl-C ends the process at once with one line and exit status 130 (the program itself, in the
    main thread only; called from Python, ``KeyboardInterrupt`` is caught in :func:`_run` instead)."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _bug(exc: BaseException, seed: int | None = None) -> int:
    first = (str(exc).strip().splitlines() or [""])[0]
    if os.environ.get("TRIALWISE_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    print(f"trialwise: internal error ({type(exc).__name__}: {first}) — this is a bug in trialwise; please report "
          f"it with the command line{f' and --seed {seed}' if seed is not None else ''} (TRIALWISE_TRACEBACK=1 shows the "
          f"traceback)", file=sys.stderr)
    return 1


#: The library's words for an argument that a message tells the user to pass, and the command line's option.
_OPTION_WORDS = (("pass `reference=` with their names", "give their names with --reference NAME [NAME ...]"),
                 ("`n_resamples` must be", "--resamples must be"))


def _input_error(exc: BaseException) -> int:
    Warnings.report_unreported()  # a warning collected before the error may explain it
    first = (str(exc).strip().splitlines() or [""])[0]
    for api, cli in _OPTION_WORDS:
        first = first.replace(api, cli)
    print(f"trialwise: error: {first}", file=sys.stderr)
    return 2


class _PipeSafe:
    """stdout that survives its reader going away (``trialwise leaderboard --out r.html | head``):
    after the first ``BrokenPipeError`` the rest of the printout is dropped (the file descriptor
    is pointed at the null device, so the interpreter's last flush cannot fail either), and the
    command goes on to write its files."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.broken = False

    def _drop(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self.broken:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None, *, exit_on_interrupt: bool = False) -> int:
    """Run the command line; returns the exit status (see the module docstring).

    ``exit_on_interrupt``: Ctrl-C ends the process at once (the program itself,
    :func:`trialwise.cli.main` with no ``argv``); otherwise it is a ``KeyboardInterrupt``,
    caught: one line, exit status 130."""
    parser = _parser()
    args = parser.parse_args(argv)
    _, run = COMMANDS[args.command]
    real_stdout, sys.stdout = sys.stdout, _PipeSafe(sys.stdout)
    try:
        return _run(run, args, parser, exit_on_interrupt)
    finally:
        sys.stdout = real_stdout


def _run(run: Callable[[Any], int], args: Any, parser: argparse.ArgumentParser, exit_on_interrupt: bool) -> int:
    Warnings.running.clear()
    drawn = None
    with _interrupt_handler(exit_on_interrupt):
        try:
            _check_options(args)
            _duplicates(parser, args)
            _check_files(args)
            drawn = _draw_seed(args)
            code = run(args)
            _say_seed(args, drawn)
            return code
        except CLIError as exc:  # also the library's messages a command prefixed with its file: same words
            return _input_error(exc)
        except InputError as exc:  # the library's own input errors
            return _input_error(exc)
        except FigureFailure as exc:
            Warnings.report_unreported()
            _say_seed(args, drawn)  # the tables were saved: they can be repeated
            print(f"trialwise: error: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:  # called from Python, or not the main thread (no handler)
            print(("\n" if BAR_OPEN.is_set() else "") + "trialwise: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        except OSError as exc:  # a file that cannot be read or written (missing, unreadable, disk full, ...)
            where = f"{exc.filename}: " if exc.filename else ""
            Warnings.report_unreported()
            print(f"trialwise: error: {where}{exc.strerror or exc}", file=sys.stderr)
            return 2
        except MemoryError:
            print("trialwise: error: out of memory; try fewer --resamples", file=sys.stderr)
            return 1
        except Exception as exc:  # noqa: BLE001 - one line instead of a traceback: a bug
            if _is_input_error(exc):
                return _input_error(exc)
            return _bug(exc, drawn)
