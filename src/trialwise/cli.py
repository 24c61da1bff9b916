"""Command-line interface: ``trialwise ec|plan|leaderboard|compare|shape-bias ...``. Parses, calls the library, prints.

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

Progress
--------
Long commands (``leaderboard``, ``plan``) print one line on stderr when each phase
starts (``trialwise: bootstrapping 46 conditions × B = 10000 …``) and, when stderr is a
terminal, a live bar with counts, elapsed time and ETA. ``--quiet`` silences both;
``--progress`` forces the bar when stderr is not a terminal (e.g. a log file).

Adding a command
----------------
Write ``_add_NAME(sub)`` (the subparser; call :func:`_add_progress_options` if it runs
long) and ``_run_NAME(args) -> int``, and register both in :data:`_COMMANDS`. Use
:func:`_check_output` before computing and :func:`_write_text` / :func:`_save_figure`
to write, :func:`_reading` around file reading, and :class:`_Warnings` around the
library calls.

Why this module is long: about 1,100 lines, one parser and one runner per command plus the
output, progress and error helpers they all share; splitting it into a ``cli/`` package per
command is planned (it only parses, calls the library and prints).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from trialwise._core.errors import InputError, InvalidValueError
from trialwise.ec import DEFAULT_CI_METHOD, DEFAULT_TEST, error_consistency
from trialwise.intervals import CI_METHODS
from trialwise.significance import INDEPENDENCE_TESTS

DATASETS = ("model-vs-human", "texture-vs-shape")
#: Figure formats the command line writes (by the file's extension; no extension = PNG).
FIGURE_FORMATS = ("png", "pdf", "svg")

_EPILOG = """\
exit status: 0 done; 1 internal error (a bug; TRIALWISE_TRACEBACK=1 shows the traceback), or the report's
figures failed after the tables were saved; 2 bad input (one line naming the file, column or option);
130 interrupted."""


class CLIError(InputError):
    """A user error of the command line (an option, a file, a column): printed as one line, exit code 2."""


class _FigureFailure(Exception):
    """The results were saved but a figure of the report failed: one line, exit code 1."""


# --------------------------------------------------------------------------- parser


def _add_progress_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", dest="progress", action="store_const", const="quiet", default="auto",
                       help="no progress lines on stderr (warnings and errors are still printed)")
    group.add_argument("--progress", dest="progress", action="store_const", const="always",
                       help="show the live progress bar even when stderr is not a terminal")


def _add_ec(sub) -> argparse.ArgumentParser:
    ec = sub.add_parser(
        "ec",
        help="error consistency of two observers with a confidence interval and a test",
        description=(
            "Error consistency of two observers. Give two CSV files (one observer each), "
            "or one tidy CSV with --subjects A B, or a bundled dataset with --dataset NAME --subjects A B. "
            "Trials are paired by item (experiment, condition and image where present)."
        ),
        epilog=_EPILOG,
    )
    ec.add_argument("files", nargs="*", metavar="CSV", help="two per-observer files, or one tidy file")
    ec.add_argument("--dataset", choices=DATASETS, help="use bundled real data instead of files")
    ec.add_argument("--subjects", nargs=2, metavar=("A", "B"), help="the two observers of a tidy table")
    ec.add_argument("--subject", default="subject", help="observer column of a tidy table (default: subject)")
    ec.add_argument("--experiment", help="keep only this experiment")
    ec.add_argument("--condition", help="keep only this condition (as text)")
    ec.add_argument("--image", default="image", help="item-id column (default: image)")
    ec.add_argument("--truth", default=None, help="correct-label column (default: truth, else category)")
    ec.add_argument("--response", default="response", help="response column (default: response)")
    ec.add_argument("--correct", default=None, help="0/1 correctness column, instead of --truth/--response")
    ec.add_argument("--confidence-level", type=float, default=0.95)
    ec.add_argument("--ci-method", choices=CI_METHODS, default=DEFAULT_CI_METHOD)
    ec.add_argument("--test", choices=INDEPENDENCE_TESTS, default=DEFAULT_TEST)
    ec.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    ec.add_argument("--unbiased", action="store_true", help="report the bias-corrected EC")
    ec.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    ec.add_argument("--json", action="store_true", help="print the result as JSON")
    return ec


def _add_plan(sub) -> argparse.ArgumentParser:
    plan = sub.add_parser(
        "plan",
        help="how many trials an experiment needs (copy-model simulation)",
        description=(
            "Smallest number of trials whose expected confidence interval of the EC has the target "
            "half-width, for observers with the given accuracies and true EC (A is the reference, e.g. "
            "the human). Prints the answer, the expected intervals at the trial counts of the literature, "
            "and the answer if the reference accuracy were different."
        ),
        epilog=_EPILOG,
    )
    plan.add_argument("--accuracy-a", type=float, required=True, help="accuracy of A (the reference)")
    plan.add_argument("--accuracy-b", type=float, required=True, help="accuracy of B")
    plan.add_argument("--kappa", type=float, required=True, help="expected (true) error consistency")
    plan.add_argument("--half-width", type=float, required=True, help="target half-width of the interval")
    plan.add_argument("--confidence-level", type=float, default=0.95)
    plan.add_argument("--simulations", type=int, default=10_000, help="simulated experiments per n (default 10000)")
    plan.add_argument("--max-trials", type=int, default=1_000_000,
                      help="largest n searched, at least 2 (default 1000000)")
    plan.add_argument("--seed", type=int, default=None, help="random seed for reproducible answers")
    plan.add_argument("--figure", metavar="FILE",
                      help="write the interval-vs-trials figure (Klein et al. 2025, Fig. 3) here (.png, .pdf or .svg)")
    plan.add_argument("--json", action="store_true", help="print the result as JSON")
    _add_progress_options(plan)
    return plan


def _add_leaderboard(sub) -> argparse.ArgumentParser:
    lb = sub.add_parser(
        "leaderboard",
        help="benchmark leaderboard: scores, CIs, rank intervals and difference tests",
        description=(
            "Score every candidate (model) against the reference observers (humans) under a benchmark protocol, "
            "bootstrapping the whole hierarchy jointly. PATH is a folder of model-vs-human raw-data CSVs or a tidy "
            "CSV/Parquet trials table; without PATH the bundled model-vs-human data are used. A candidate that lacks "
            "some of the protocol's experiments is not scored (a score over fewer experiments is not comparable): "
            "it is named with what it lacks, listed in --csv with status 'not scored', and can be scored on the "
            "experiments it has with --experiments or --common-experiments."
        ),
        epilog=_EPILOG,
    )
    lb.add_argument("path", nargs="?", metavar="PATH", help="raw-data folder or tidy trials file")
    lb.add_argument("--protocol", default="model-vs-human", choices=sorted(_protocols()),
                    help="aggregation protocol (default: model-vs-human)")
    scope = lb.add_mutually_exclusive_group()
    scope.add_argument("--experiments", nargs="+", metavar="NAME", help="only these experiments")
    scope.add_argument("--common-experiments", action="store_true",
                       help="only the experiments that every candidate has, so that every candidate is scored")
    lb.add_argument("--metric", default=None, choices=_metrics(), help="pair metric (default: error-consistency)")
    lb.add_argument("--reference", nargs="+", metavar="NAME",
                    help="reference observers by name (default: observer_type 'human')")
    lb.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    lb.add_argument("--confidence-level", type=float, default=0.95)
    lb.add_argument("--tests", choices=("neighbours", "all", "none"), default="neighbours",
                    help="difference tests between candidates (default: neighbours in the ranking)")
    lb.add_argument("--test", choices=("swap", "bootstrap", "paper"), default="swap")
    lb.add_argument("--adjust", choices=("holm", "bh", "by", "none"), default="holm")
    lb.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    lb.add_argument("--out", metavar="HTML", help="write a self-contained HTML report (tables and figures) here")
    lb.add_argument("--csv", metavar="CSV",
                    help="write the leaderboard table here: one row per observer, unscored candidates included "
                         "(columns status and reason)")
    lb.add_argument("--pairwise-csv", metavar="CSV", help="write the difference tests here")
    for col in ("subject", "image", "truth", "response", "condition", "experiment", "observer-type"):
        lb.add_argument(f"--{col}-column", default=None, help=f"{col} column of a tidy table")
    _add_progress_options(lb)
    return lb


def _add_compare(sub) -> argparse.ArgumentParser:
    cmp = sub.add_parser(
        "compare",
        help="compare two classifiers on the same items: every method of the comparison chapter",
        description=(
            "Compare two classifiers whose predictions for the same items are columns of one CSV: McNemar, "
            "Cohen's kappa, Yule's Q, error consistency; Bowker, Stuart-Maxwell and a permutation test for K > 2; "
            "with probabilities Brier, ECE, AUC/DeLong and paired score tests; and the ensemble recommendation."
        ),
        epilog=_EPILOG,
    )
    cmp.add_argument("file", metavar="CSV", help="one row per item")
    cmp.add_argument("--truth", required=True, metavar="COLUMN", help="column of the true labels")
    cmp.add_argument("--a", metavar="COLUMN", help="column of classifier A's predicted labels")
    cmp.add_argument("--b", metavar="COLUMN", help="column of classifier B's predicted labels")
    cmp.add_argument("--proba-a", nargs="+", metavar="COLUMN",
                     help="A's probabilities: one column (binary, positive class) or one per class")
    cmp.add_argument("--proba-b", nargs="+", metavar="COLUMN", help="B's probabilities, as --proba-a")
    cmp.add_argument("--classes", nargs="+", metavar="CLASS",
                     help="the class of each probability column (default: the column names, or what follows "
                          "their common prefix)")
    cmp.add_argument("--names", nargs=2, metavar=("A", "B"), help="names in the report (default: the columns)")
    cmp.add_argument("--score", choices=("brier", "log-loss"), default="brier",
                     help="per-sample score of the paired tests (default: brier)")
    cmp.add_argument("--bins", type=int, default=10, help="calibration bins (default 10)")
    cmp.add_argument("--confidence-level", type=float, default=0.95)
    cmp.add_argument("--resamples", type=int, default=10000, help="permutations (default 10000)")
    cmp.add_argument("--seed", type=int, default=None, help="random seed for reproducible permutation p-values")
    cmp.add_argument("--reliability", metavar="FILE",
                     help="write the reliability diagram here (needs probabilities; .png, .pdf or .svg)")
    cmp.add_argument("--heatmap", metavar="FILE", help="write the agreement-matrix heatmap here (.png, .pdf or .svg)")
    cmp.add_argument("--json", action="store_true", help="print the report as JSON")
    return cmp


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``trialwise: error: …`` and exit 2, not the whole usage."""

    def error(self, message: str) -> NoReturn:
        print(f"trialwise: error: {self.prog}: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="trialwise",
        description="Trial-by-trial comparison of classifiers with honest uncertainty.",
        epilog=_EPILOG,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (add, _) in _COMMANDS.items():
        add(sub)
    return parser


def _protocols():
    from trialwise.benchmark import PROTOCOLS

    return PROTOCOLS


def _metrics():
    from trialwise.benchmark import METRICS

    return METRICS


# --------------------------------------------------------------------------- progress and warnings


_BAR_OPEN = threading.Event()  # a live progress bar holds the current line of stderr


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class _Progress:
    """Progress on stderr: one line when a phase starts, and a live bar on a terminal.

    ``mode``: ``"auto"`` (the bar only when stderr is a terminal), ``"always"`` (the bar
    also into a file or pipe), ``"quiet"`` (nothing). The instance is the library's
    ``progress(label, done, total)`` callback; it is thread-safe (the library calls it
    from worker threads) and redraws the bar at most 10 times a second.
    """

    def __init__(self, mode: str = "auto", stream: Any = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.quiet = mode == "quiet"
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.live = not self.quiet and (mode == "always" or bool(isatty()))
        self._lock = threading.RLock()
        self._phases: dict[str, Callable[[int], str]] = {}
        self._label: str | None = None
        self._done = -1
        self._start = 0.0
        self._drawn = 0.0
        self._open = False

    def say(self, text: str) -> None:
        """One line on stderr (unless quiet)."""
        if self.quiet:
            return
        with self._lock:
            self._end_line()
            print(f"trialwise: {text}", file=self.stream, flush=True)

    @contextlib.contextmanager
    def after(self, seconds: float, text: str) -> Iterator[None]:
        """Say ``text`` if the block is still running after ``seconds`` (input errors come at once, silently)."""
        timer = threading.Timer(seconds, self.say, args=(text,))
        timer.daemon = True
        if not self.quiet:
            timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def phase(self, label: str, describe: Callable[[int], str]) -> None:
        """Announce ``label`` with ``describe(total)`` when its first progress call arrives."""
        self._phases[label] = describe

    def _end_line(self) -> None:
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
            _BAR_OPEN.clear()

    def close(self) -> None:
        with self._lock:
            self._end_line()

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.quiet:
            return
        with self._lock:
            now = time.monotonic()
            if label != self._label or done < self._done:  # a new phase
                self._end_line()
                self._label, self._start, self._drawn = label, now, 0.0
                describe = self._phases.get(label)
                if describe is not None:
                    print(f"trialwise: {describe(total)} …", file=self.stream, flush=True)
            self._done = done
            if not self.live or (done < total and now - self._drawn < 0.1):
                return
            self._drawn = now
            elapsed = now - self._start
            width = 24
            filled = int(width * min(done, total) / max(total, 1))
            text = f"  {label:<14} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {_clock(elapsed)}"
            if 0 < done < total:
                text += f", ETA {_clock(elapsed / done * (total - done))}"
            self.stream.write("\r" + text.ljust(78))
            self._open = True
            _BAR_OPEN.set()
            if done >= total:
                self._end_line()
            else:
                self.stream.flush()


class _Warnings:
    """Collect the warnings of a block; :meth:`report` prints one line per kind on stderr.

    A kind is the warning's class. Its line gives the count and the first message
    (``trialwise: warning (SparseTableWarning ×190): ...``); details are in the results
    (``coverage_warning``, ``undefined_reason``, ``notes``) and, with ``--json``, in the
    ``warnings`` field.
    """

    def __init__(self) -> None:
        self.caught: list[warnings.WarningMessage] = []

    @contextlib.contextmanager
    def collect(self) -> Iterator[None]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                self.caught.extend(caught)

    def messages(self) -> list[str]:
        return list(dict.fromkeys(str(w.message) for w in self.caught))

    def lines(self) -> list[str]:
        kinds: dict[str, list[str]] = {}
        for w in self.caught:
            kinds.setdefault(w.category.__name__, []).append(str(w.message))
        out = []
        for kind, msgs in kinds.items():
            first = msgs[0].strip().splitlines()[0] if msgs[0].strip() else kind
            distinct = len(set(msgs))
            if len(msgs) == 1:
                out.append(f"trialwise: warning: {first}")
            else:
                more = f"; {distinct - 1} other message(s) of this kind" if distinct > 1 else ""
                out.append(f"trialwise: warning ({kind} ×{len(msgs)}): {first}{more}")
        return out

    def report(self, stream: Any = None) -> None:
        for line in self.lines():
            print(line, file=sys.stderr if stream is None else stream)


# --------------------------------------------------------------------------- files


def _check_output(path: str | None, flag: str, *, figure: bool = False) -> None:
    """Fail early, before any computation, when ``path`` cannot be written."""
    if path is None:
        return
    p = Path(path)
    if path.strip() == "":
        raise CLIError(f"{flag}: the file name is empty")
    if p.is_dir():
        example = p / ("figure.png" if figure else "report.html" if flag == "--out" else "table.csv")
        raise CLIError(f"{flag} {path}: is a folder; give a file name, e.g. {example}")
    folder = p.absolute().parent
    if not folder.exists():
        raise CLIError(f"{flag} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise CLIError(f"{flag} {path}: {folder} is not a folder")
    if p.exists() and not os.access(p, os.W_OK):
        raise CLIError(f"{flag} {path}: permission denied (the file is read-only)")
    if not p.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"{flag} {path}: permission denied (folder {folder} is not writable)")
    if figure:
        _figure_format(path, flag)
    elif flag == "--out" and p.suffix.lower() in (".pdf", ".png", ".svg", ".jpg", ".jpeg", ".csv", ".json", ".txt"):
        raise CLIError(f"{flag} {path}: the report is an HTML page, not a {p.suffix.lower()} file; give a file "
                       f"name ending in .html (e.g. {p.with_suffix('.html').name})")


def _figure_format(path: str, flag: str) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix == "":
        return "png"
    if suffix not in FIGURE_FORMATS:
        raise CLIError(f"{flag} {path}: unknown figure format '.{suffix}'; use .png, .pdf or .svg")
    return suffix


def _write_bytes(path: str, data: bytes, flag: str) -> None:
    """Write ``data`` to exactly ``path``; a failure (full disk, permissions) is one line, no partial file."""
    p = Path(path)
    existed = p.exists()
    try:
        with open(p, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        if not existed:
            with contextlib.suppress(OSError):
                p.unlink()
        reason = exc.strerror or type(exc).__name__
        raise CLIError(f"{flag} {path}: cannot write ({reason})") from None


def _write_text(path: str, text: str, flag: str) -> None:
    _write_bytes(path, text.encode("utf-8"), flag)


def _save_figure(fig: Any, path: str, flag: str) -> None:
    """Render ``fig`` in memory and write it to exactly ``path`` (matplotlib would add '.png' to a bare name)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=_figure_format(path, flag), dpi=150)
    finally:
        plt.close(fig)
    _write_bytes(path, buf.getvalue(), flag)
    print(f"figure written to {path}", file=sys.stderr)


def _agg() -> None:
    """Draw without a display: figures go to files."""
    import matplotlib

    matplotlib.use("Agg")


@contextlib.contextmanager
def _reading(path: Any) -> Iterator[None]:
    """Turn the ways a file can fail to read into one line naming it."""
    import zlib

    try:
        yield
    except EOFError:
        raise CLIError(f"{path}: the file ends early (a truncated compressed file?); download or write it again") from None
    except zlib.error as exc:
        raise CLIError(f"{path}: the compressed data are corrupt ({exc})") from None
    except UnicodeDecodeError as exc:
        raise CLIError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    except ImportError:
        if str(path).lower().endswith(".parquet"):
            raise CLIError(f"{path}: reading Parquet needs pyarrow or fastparquet: pip install pyarrow") from None
        raise
    except IsADirectoryError:
        raise CLIError(f"{path}: is a folder, not a file") from None
    except PermissionError:
        raise CLIError(f"{path}: permission denied") from None


# --------------------------------------------------------------------------- leaderboard


def _unscored_lines(lb) -> list[str]:
    from trialwise.report import unscored_candidates

    un = unscored_candidates(lb)
    if not len(un):
        return []
    lines = [f"{len(un)} candidate(s) not scored — each lacks some of the protocol's {un['n_experiments'].iloc[0]} "
             f"experiments, and a score over fewer experiments would not be comparable:"]
    w = max(len(str(o)) for o in un["observer"])
    for r in un.itertuples():
        lacks = ", ".join(r.missing[:4]) + (f", … ({r.n_missing - 4} more)" if r.n_missing > 4 else "")
        has = ", ".join(r.has) if r.has else "none"
        lines.append(f"  {r.observer:<{w}}  lacks {r.n_missing} of {r.n_experiments} ({lacks}); has {has}")
    groups: dict[tuple[str, ...], list[str]] = {}
    for r in un.itertuples():
        groups.setdefault(tuple(r.has), []).append(str(r.observer))
    lines.append("  to score them, restrict the experiments to those they have:")
    for has_exps, names in groups.items():
        if has_exps:
            who = names[0] if len(names) == 1 else f"{len(names)} candidates ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})"
            lines.append(f"    --experiments {' '.join(has_exps)}   # {who}")
    lines.append("    --common-experiments   # the experiments every candidate has")
    return lines


def _csv_table(lb):
    """The leaderboard table with the unscored candidates as rows (empty scores), status and reason."""
    import pandas as pd

    from trialwise.report import unscored_candidates

    t = lb.table.copy()
    t["status"] = ["reference" if k == "reference" else "scored" for k in t["kind"]]
    t["reason"] = ""
    un = unscored_candidates(lb)
    if len(un):
        extra = pd.DataFrame({
            "observer": un["observer"], "kind": "candidate", "status": "not scored",
            "reason": [f"lacks {r.n_missing} of {r.n_experiments} experiments: {', '.join(r.missing)}"
                       for r in un.itertuples()],
        })
        t = pd.concat([t, extra.reindex(columns=t.columns)], ignore_index=True)
        for col in ("rank", "rank_low", "rank_high"):
            t[col] = t[col].astype("Int64")
    return t


def _common_experiments(trials, protocol, reference) -> list[str]:
    from trialwise.benchmark.hierarchy import reference_mask

    t = trials if protocol.experiments is None else trials[trials["experiment"].isin(protocol.experiments)]
    cand = t[~reference_mask(t, protocol, reference)]
    if cand.empty:
        raise CLIError("--common-experiments: there are no candidates (every observer is a reference observer)")
    cover = cand.groupby("subject")["experiment"].agg(lambda e: set(e))
    common = set.intersection(*cover.tolist())
    if not common:
        rare = min(cover.items(), key=lambda kv: len(kv[1]))
        raise CLIError(f"--common-experiments: no experiment is shared by every candidate (e.g. {rare[0]} has only "
                       f"{', '.join(sorted(rare[1]))}); choose them with --experiments")
    return sorted(common)


def _read_trials(args):
    from trialwise.data import read_model_vs_human, read_trials

    if args.path is None:
        from trialwise.datasets import model_vs_human

        return read_trials(model_vs_human())
    with _reading(args.path):
        if os.path.isdir(args.path):
            return read_model_vs_human(args.path)
        return read_trials(
            args.path, subject=args.subject_column or "subject", image=args.image_column or "image",
            truth=args.truth_column, response=args.response_column or "response", condition=args.condition_column,
            experiment=args.experiment_column, observer_type=args.observer_type_column,
        )


def _too_few_resamples(b: int, level: float, flag: str = "--resamples") -> str | None:
    """A warning when each end of the interval would rest on fewer than 5 replicates."""
    tail = b * (1 - level) / 2
    if tail < 5:
        need = math.ceil(10 / (1 - level))
        return (f"{flag} {b} is too few for {level * 100:g}% intervals: each end rests on {tail:.2g} replicate(s); "
                f"the intervals, ranks and p-values are rough (use {need} or more; the default is 10000)")
    return None


def _report_shape_bias(trials, lb, args):
    """Shape bias of the scored observers for the report, when the trials hold cue-conflict images."""
    from trialwise.shapebias import shape_bias

    if "cue-conflict" not in set(trials["experiment"]):
        return None
    keep = trials["subject"].isin(set(lb.candidates) | set(lb.references))
    return shape_bias(trials[keep.to_numpy()], experiment="cue-conflict", groups="observer_type",
                      n_resamples=min(args.resamples, 10_000), confidence_level=args.confidence_level,
                      rng=args.seed)


def _run_leaderboard(args) -> int:
    from trialwise.benchmark import get_protocol
    from trialwise.benchmark.leaderboard import leaderboard

    outputs = [(args.out, "--out"), (args.csv, "--csv"), (args.pairwise_csv, "--pairwise-csv")]
    for path, flag in outputs:
        _check_output(path, flag)
    given = [(os.path.abspath(p), f) for p, f in outputs if p is not None]
    for i, (p, f) in enumerate(given):
        for q, g in given[i + 1:]:
            if p == q:
                raise CLIError(f"{f} and {g} name the same file {p}")
    if args.path is not None and not os.path.exists(args.path):
        raise CLIError(f"{args.path}: no such file or folder")
    bar = _Progress(args.progress)
    caught = _Warnings()
    with caught.collect():
        trials = _read_trials(args)
    protocol = get_protocol(args.protocol)
    if args.metric:
        protocol = protocol.replace(metric=args.metric)
    if args.experiments:
        protocol = protocol.replace(experiments=args.experiments)
    if args.common_experiments:
        common = _common_experiments(trials, protocol, args.reference)
        protocol = protocol.replace(experiments=common, name=f"{protocol.name}, common experiments only")
        print(f"--common-experiments: scored on the {len(common)} experiment(s) every candidate has: "
              f"{', '.join(common)}")
    few = _too_few_resamples(args.resamples, args.confidence_level)
    bar.phase("bootstrap", lambda total: f"bootstrapping {total} conditions × B = {args.resamples}")
    bar.phase(f"{args.test} tests", lambda total: f"{total} {args.test} test(s) between candidates"
              + (f" × {args.resamples} permutations" if args.test != "bootstrap" else ""))
    try:
        with caught.collect():
            lb = leaderboard(trials, protocol, reference=args.reference, n_resamples=args.resamples,
                             confidence_level=args.confidence_level, rng=args.seed, progress=bar)
            pairs = None
            if args.tests != "none" and len(lb.candidates) >= 2:
                pairs = lb.pairwise(which=args.tests, test=args.test, adjust=args.adjust, progress=bar)
    finally:
        bar.close()

    notes = [n for n in lb.notes if "not scored" not in n]
    print(lb.summary(notes=False))  # the notes follow, with the unscored candidates set out in full
    for line in _unscored_lines(lb):
        print(line)
    for n in notes:
        print(f"Note: {n}")
    if pairs is not None:
        sig = pairs[pairs["significant"]]
        print(f"\n{args.test} tests ({args.tests}, {args.adjust}-adjusted): {len(sig)} of {len(pairs)} "
              f"differences significant at {1 - args.confidence_level:g}")
        from trialwise.report import format_p

        for r in sig.itertuples():
            print(f"  {r.observer_a} vs {r.observer_b}: {r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}], "
                  f"adjusted p {'= ' if format_p(r.pvalue_adjusted)[0] != '<' else ''}{format_p(r.pvalue_adjusted)}")
    sys.stdout.flush()
    if args.csv:
        _write_text(args.csv, _csv_table(lb).to_csv(index=False), "--csv")
        print(f"table written to {args.csv}", file=sys.stderr)
    if args.pairwise_csv:
        if pairs is None:
            raise CLIError(f"--pairwise-csv {args.pairwise_csv}: no tests to write (--tests none, or fewer than two "
                           f"scored candidates)")
        _write_text(args.pairwise_csv, pairs.to_csv(index=False), "--pairwise-csv")
        print(f"tests written to {args.pairwise_csv}", file=sys.stderr)
    failures: tuple[str, ...] = ()
    if args.out:
        _agg()
        from trialwise.report import render_report

        bar.say("drawing the report …")
        with caught.collect():
            rep = render_report(lb, pairwise=pairs, shape_bias=_report_shape_bias(trials, lb, args))
        _write_text(args.out, rep.html, "--out")
        failures = rep.failures
        print(f"report written to {args.out}", file=sys.stderr)
    if few:
        print(f"trialwise: warning: {few}", file=sys.stderr)
    ref = lb.table[lb.table["kind"] == "reference"]
    if len(ref) and not math.isfinite(float(ref["score"].iloc[0])) and len(lb.references) > 1:  # 1: the library warns
        print(f"trialwise: warning: the {lb.reference_row} row is undefined: it pairs distinct reference observers, "
              f"and no two of them share the protocol's min_items ({lb.protocol.min_items}) items in a condition "
              f"(docs/benchmark.md, 'Sparse overlaps')", file=sys.stderr)
    caught.report()
    if failures:
        raise _FigureFailure(f"{len(failures)} figure(s) of the report could not be drawn ({'; '.join(failures)}); "
                             f"the report was written with the tables — this is a bug, please report it")
    return 0


# --------------------------------------------------------------------------- ec


def _truth_column(frame, requested: str | None) -> str:
    if requested is not None:
        return requested
    return "truth" if "truth" in frame.columns or "category" not in frame.columns else "category"


def _filter(frame, args, what: str):
    for col in ("experiment", "condition"):
        value = getattr(args, col)
        if value is None:
            continue
        if col not in frame.columns:
            raise CLIError(f"{what}: --{col} given but there is no column {col!r}")
        kept = frame[frame[col].astype(str) == value]
        if kept.empty:
            known = sorted(frame[col].astype(str).unique())[:12]
            raise CLIError(f"{what}: no rows with {col} = {value!r}; found {', '.join(known)}")
        frame = kept
    return frame


def _read_table(path: str):
    from trialwise.data import read_table

    with _reading(path):
        return read_table(path)


def _load_pair(args) -> tuple[Any, Any, dict, tuple[str, str]]:
    from trialwise import datasets
    from trialwise.data import paired_correctness

    if args.dataset:
        if args.files:
            raise CLIError("give either --dataset or files, not both")
        if not args.subjects:
            raise CLIError(f"--dataset {args.dataset} needs --subjects A B (e.g. subject-01 resnet50)")
        loader = datasets.model_vs_human if args.dataset == "model-vs-human" else datasets.texture_vs_shape
        tidy, what = loader(), args.dataset
    elif len(args.files) == 1:
        if not args.subjects:
            raise CLIError(f"{args.files[0]}: one tidy file needs --subjects A B")
        tidy, what = _read_table(args.files[0]), args.files[0]
    elif len(args.files) == 2:
        if args.subjects:
            raise CLIError("--subjects is for one tidy file; with two files each file is one observer")
        frames = [_filter(_read_table(f), args, f) for f in args.files]
        truth = _truth_column(frames[0], args.truth)
        ca, cb, info = paired_correctness(
            frames[0], frames[1], image=args.image, truth=truth, response=args.response,
            correct=args.correct, names=tuple(args.files),
        )
        return ca, cb, info, tuple(args.files)
    else:
        raise CLIError("give two CSV files, one tidy CSV with --subjects A B, or --dataset NAME --subjects A B")

    if args.subject not in tidy.columns:
        raise CLIError(f"{what}: no column {args.subject!r}; columns found: {', '.join(map(str, tidy.columns))}")
    tidy = _filter(tidy, args, what)
    parts = []
    for name in args.subjects:
        part = tidy[tidy[args.subject].astype(str) == name]
        if part.empty:
            known = sorted(tidy[args.subject].astype(str).unique())
            shown = ", ".join(known[:15]) + (" ..." if len(known) > 15 else "")
            raise CLIError(f"{what}: no subject {name!r}; found {shown}")
        parts.append(part)
    truth = _truth_column(tidy, args.truth)
    ca, cb, info = paired_correctness(
        parts[0], parts[1], image=args.image, truth=truth, response=args.response,
        correct=args.correct, names=(f"{what} [{args.subjects[0]}]", f"{what} [{args.subjects[1]}]"),  # nargs=2
    )
    return ca, cb, info, tuple(args.subjects)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _run_ec(args) -> int:
    caught = _Warnings()
    with caught.collect():
        ca, cb, info, names = _load_pair(args)
        res = error_consistency(
            ca, cb, confidence_level=args.confidence_level, ci_method=args.ci_method, test=args.test,
            n_resamples=args.resamples, unbiased=args.unbiased, rng=args.seed,
        )
    if args.json:
        out = res.to_dict()
        out.update(observer_a=names[0], observer_b=names[1], only_a=info["only_a"], only_b=info["only_b"],
                   warnings=caught.messages())
        print(json.dumps(_clean(out), indent=2))
    else:
        print(f"A = {names[0]}, B = {names[1]}")
        print(res.summary())
        if info["only_a"] or info["only_b"]:
            print(f"  unpaired items       {info['only_a']} only in A, {info['only_b']} only in B (left out)")
        caught.report()
    return 0


# --------------------------------------------------------------------------- plan


def _run_plan(args) -> int:
    from trialwise.planning import plan_trials

    _check_output(args.figure, "--figure", figure=True)
    if args.max_trials < 2:
        raise CLIError(f"--max-trials must be at least 2: one trial cannot estimate EC (κ of a single item is "
                       f"undefined or exactly 0); got {args.max_trials}")
    bar = _Progress(args.progress)
    caught = _Warnings()
    searching = (f"searching the smallest number of trials ({args.simulations} simulated experiments per n, "
                 f"n ≤ {args.max_trials}) …")
    with caught.collect(), bar.after(0.5, searching):
        res = plan_trials(
            half_width=args.half_width, accuracy_a=args.accuracy_a, accuracy_b=args.accuracy_b, kappa=args.kappa,
            confidence_level=args.confidence_level, n_simulations=args.simulations, rng=args.seed,
            n_max=args.max_trials,
        )
    if args.json:
        out = _clean(res.to_dict())
        out["warnings"] = caught.messages()
        print(json.dumps(out, indent=2))
    else:
        print(res.summary())
    sys.stdout.flush()
    if res.n is None:
        print(f"trialwise: warning: the target half-width {args.half_width:g} is not reached with up to "
              f"{args.max_trials} trials; raise --max-trials or accept a wider interval", file=sys.stderr)
    if args.figure is not None:
        _agg()
        from trialwise.planning_curve import CURVE_TRIALS, interval_curve
        from trialwise.plot import plot_ci_width

        drawing = f"simulating the interval-vs-trials curve ({CURVE_TRIALS.size} trial counts × {args.simulations}) …"
        with caught.collect(), bar.after(0.5, drawing):
            fig = plot_ci_width(interval_curve(res, rng=args.seed), plan=res)
        _save_figure(fig, args.figure, "--figure")
    if not args.json:
        caught.report()
    return 0


# --------------------------------------------------------------------------- compare


def _proba_columns(frame, columns: list[str] | None, classes: list[str] | None, labels: list[str], what: str, flag: str):
    """The probability columns as a float DataFrame whose columns are the classes."""
    import numpy as np
    import pandas as pd

    if columns is None:
        return None
    out = {}
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise CLIError(f"{what}: column {col!r} ({flag}) has a missing or non-numeric value "
                           f"{frame[col].iloc[row]!r} in data row {row + 1}")
        out[col] = values.to_numpy(dtype=float)
    if len(columns) == 1:
        return out[columns[0]]
    if classes is not None:
        if len(classes) != len(columns):
            raise CLIError(f"--classes names {len(classes)} classes but {flag} has {len(columns)} columns")
        names = list(classes)
    else:
        from trialwise.comparison.columns import classes_from_columns

        try:
            names = classes_from_columns(columns, labels)
        except InputError:
            raise CLIError(f"{what}: the {flag} columns {', '.join(columns)} do not name the classes of "
                           f"--truth ({', '.join(sorted(labels)[:10])}); pass --classes") from None
    return pd.DataFrame(np.column_stack([out[c] for c in columns]), columns=names)


def _run_compare(args) -> int:
    from trialwise.comparison import compare

    what = args.file
    _check_output(args.reliability, "--reliability", figure=True)
    _check_output(args.heatmap, "--heatmap", figure=True)
    frame = _read_table(args.file)
    if frame.empty:
        raise CLIError(f"{what}: no rows")
    if args.a is None and args.proba_a is None or args.b is None and args.proba_b is None:
        raise CLIError("give --a (or --proba-a) and --b (or --proba-b)")
    for flag, cols in (("--truth", [args.truth]), ("--a", [args.a]), ("--b", [args.b]),
                       ("--proba-a", args.proba_a), ("--proba-b", args.proba_b)):
        for col in cols or []:
            if col is not None and col not in frame.columns:
                raise CLIError(f"{what}: no column {col!r} ({flag}); columns found: {', '.join(map(str, frame.columns))}")
    for flag, col in (("--truth", args.truth), ("--a", args.a), ("--b", args.b)):
        if col is not None and frame[col].isna().any():
            row = int(frame[col].isna().to_numpy().nonzero()[0][0])
            raise CLIError(f"{what}: column {col!r} ({flag}) is empty in data row {row + 1}")
    labels = sorted(set(frame[args.truth].astype(str)))
    proba_a = _proba_columns(frame, args.proba_a, args.classes, labels, what, "--proba-a")
    proba_b = _proba_columns(frame, args.proba_b, args.classes, labels, what, "--proba-b")
    if args.reliability and proba_a is None and proba_b is None:
        raise CLIError("--reliability needs --proba-a or --proba-b")
    names = tuple(args.names) if args.names else (args.a or "A", args.b or "B")
    if names[0] == names[1]:
        names = (f"{names[0]} (a)", f"{names[1]} (b)")
    caught = _Warnings()
    with caught.collect():
        try:
            rep = compare(frame[args.truth].to_numpy(),
                          frame[args.a].to_numpy() if args.a else None,
                          frame[args.b].to_numpy() if args.b else None,
                          proba_a, proba_b, names=names, score=args.score, n_bins=args.bins,
                          confidence_level=args.confidence_level, n_resamples=args.resamples, rng=args.seed)
        except InputError as exc:  # the library's input errors, named with the file
            raise CLIError(f"{what}: {exc}") from None
    if args.json:
        out = rep.to_dict()
        out["warnings"] = caught.messages()
        print(json.dumps(_clean(out), indent=2, default=str))
    else:
        print(rep.summary())
    sys.stdout.flush()
    figures = _Warnings()  # warnings of the figures that the report did not already give
    for path, kind in ((args.reliability, "reliability"), (args.heatmap, "heatmap")):
        if path is None:
            continue
        _agg()
        from trialwise import plot

        with figures.collect():
            if kind == "reliability":
                fig = plot.plot_reliability(rep.calibration)
            else:
                from trialwise.comparison import bowker_test

                # TODO(issue 15 item 9): draw the report's own Bowker result once ComparisonReport carries it
                # for every K (it has one only for K > 2, as a row of `results`); until then the test is run on
                # the report's agreement matrix, which gives the same numbers.
                fig = plot.plot_agreement_matrix(bowker_test(counts=rep.agreement), names=names)
        _save_figure(fig, path, f"--{kind}")
    known = set(caught.messages())
    figures.caught = [w for w in figures.caught if str(w.message) not in known]
    if not args.json:
        caught.report()
    figures.report()
    return 0


# --------------------------------------------------------------------------- shape bias


def _add_shape_bias(sub) -> argparse.ArgumentParser:
    sb = sub.add_parser(
        "shape-bias",
        help="shape bias on cue-conflict images (Geirhos et al. 2019) with bootstrap intervals over images",
        description=(
            "Share of shape decisions among the answers that named the shape or the texture of cue-conflict "
            "images (ids '<shape><k>-<texture><j>'; images whose two categories coincide do not count), per "
            "observer and group, with intervals from a bootstrap over images shared by all observers. PATH is a "
            "tidy CSV/Parquet trials table; without PATH the bundled --dataset is used."
        ),
        epilog=_EPILOG,
    )
    sb.add_argument("path", nargs="?", metavar="PATH", help="tidy trials file (default: the bundled --dataset)")
    sb.add_argument("--dataset", choices=DATASETS, default="texture-vs-shape",
                    help="bundled data used without PATH (default: texture-vs-shape)")
    sb.add_argument("--experiment", default="cue-conflict",
                    help="experiment to analyse, when the table has an experiment column (default: cue-conflict)")
    sb.add_argument("--observers", nargs="+", metavar="NAME", help="only these observers (default: all)")
    sb.add_argument("--groups", action="store_true",
                    help="add one pooled row per observer_type with two or more observers (e.g. all humans)")
    sb.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="difference A − B of two observers or groups, with its interval and p-value")
    sb.add_argument("--test", choices=("bootstrap", "swap"), default="bootstrap",
                    help="test for --compare: bootstrap (H0 equal shape bias; default) or swap (H0 exchangeable "
                         "observers)")
    sb.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    sb.add_argument("--confidence-level", type=float, default=0.95)
    sb.add_argument("--ci-method", choices=("jeffreys", "percentile"), default="jeffreys")
    sb.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    sb.add_argument("--json", action="store_true", help="print the result as JSON")
    sb.add_argument("--csv", metavar="CSV", help="write the table (one row per observer and group) here")
    sb.add_argument("--figure", metavar="FILE",
                    help="write the per-category shape-bias figure here (.png, .pdf or .svg)")
    for col in ("subject", "image", "truth", "response"):
        sb.add_argument(f"--{col}-column", default=None, help=f"{col} column of a tidy table")
    return sb


def _run_shape_bias(args) -> int:
    from trialwise import datasets
    from trialwise.shapebias import shape_bias

    _check_output(args.csv, "--csv")
    _check_output(args.figure, "--figure", figure=True)
    if args.resamples < 1:
        raise CLIError(f"--resamples must be a positive number of bootstrap replicates; got {args.resamples}")
    if args.path is None:
        loader = datasets.model_vs_human if args.dataset == "model-vs-human" else datasets.texture_vs_shape
        frame, what = loader(), args.dataset
    else:
        frame, what = _read_table(args.path), args.path
    caught = _Warnings()
    with caught.collect():
        try:
            res = shape_bias(
                frame, experiment=args.experiment if "experiment" in frame.columns else None,
                observers=args.observers, groups="observer_type" if args.groups else None,
                n_resamples=args.resamples, confidence_level=args.confidence_level, ci_method=args.ci_method,
                rng=args.seed, subject=args.subject_column or "subject", image=args.image_column or "image",
                truth=args.truth_column, response=args.response_column or "response",
            )
            diff = res.difference(*args.compare, test=args.test, rng=args.seed) if args.compare else None
        except InputError as exc:  # the library's input errors, named with the file
            raise CLIError(f"{what}: {exc}") from None
    if args.json:
        out = res.to_dict()
        out["difference"] = None if diff is None else diff.to_dict()
        out["warnings"] = caught.messages()
        print(json.dumps(_clean(out), indent=2))
    else:
        print(res.summary())
        if diff is not None:
            print()
            print(diff.summary())
    sys.stdout.flush()
    if args.csv:
        _write_text(args.csv, res.to_frame().to_csv(index=False), "--csv")
        print(f"table written to {args.csv}", file=sys.stderr)
    if args.figure:
        _agg()
        from trialwise.plot import plot_shape_bias

        with caught.collect():
            fig = plot_shape_bias(res)
        _save_figure(fig, args.figure, "--figure")
    if not args.json:
        caught.report()
    return 0


# --------------------------------------------------------------------------- main

#: name -> (add the subparser, run it). Extend here.
_COMMANDS: dict[str, tuple[Callable[[Any], argparse.ArgumentParser], Callable[[Any], int]]] = {
    "ec": (_add_ec, _run_ec),
    "plan": (_add_plan, _run_plan),
    "leaderboard": (_add_leaderboard, _run_leaderboard),
    "compare": (_add_compare, _run_compare),
    "shape-bias": (_add_shape_bias, _run_shape_bias),
}


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


def _interrupted(signum, frame) -> None:  # pragma: no cover - exercised in a subprocess by the tests
    try:
        sys.stderr.write(("\n" if _BAR_OPEN.is_set() else "") + "trialwise: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)  # at once: worker threads would otherwise finish their tasks first


@contextlib.contextmanager
def _interrupt_handler() -> Iterator[None]:
    """Ctrl-C ends the command at once with one line and exit status 130 (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, _interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _bug(exc: BaseException) -> int:
    first = (str(exc).strip().splitlines() or [""])[0]
    if os.environ.get("TRIALWISE_TRACEBACK"):
        import traceback

        traceback.print_exception(exc)
    print(f"trialwise: internal error ({type(exc).__name__}: {first}) — this is a bug in trialwise; please report "
          f"it with the command line (TRIALWISE_TRACEBACK=1 shows the traceback)", file=sys.stderr)
    return 1


def _input_error(exc: BaseException) -> int:
    first = (str(exc).strip().splitlines() or [""])[0]
    print(f"trialwise: error: {first}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    parser = _parser()
    args = parser.parse_args(argv)
    _, run = _COMMANDS[args.command]
    with _interrupt_handler():
        try:
            _check_options(args)
            return run(args)
        except CLIError as exc:
            print(f"trialwise: error: {exc}", file=sys.stderr)
            return 2
        except InputError as exc:  # the library's own input errors
            return _input_error(exc)
        except _FigureFailure as exc:
            print(f"trialwise: error: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:  # when the handler could not be installed (not the main thread)
            print("\ntrialwise: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        except OSError as exc:  # a file that cannot be read or written (missing, unreadable, disk full, ...)
            where = f"{exc.filename}: " if exc.filename else ""
            print(f"trialwise: error: {where}{exc.strerror or exc}", file=sys.stderr)
            return 2
        except MemoryError:
            print("trialwise: error: out of memory; try fewer --resamples", file=sys.stderr)
            return 1
        except Exception as exc:  # noqa: BLE001 - one line instead of a traceback: a bug
            if _is_input_error(exc):
                return _input_error(exc)
            return _bug(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
