"""Progress lines and bars on stderr, and the library's warnings said once per kind."""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any


def add_progress_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", dest="progress", action="store_const", const="quiet", default="auto",
                       help="no progress lines on stderr (warnings and errors are still printed)")
    group.add_argument("--progress", dest="progress", action="store_const", const="always",
                       help="show the live progress bar even when stderr is not a terminal")


BAR_OPEN = threading.Event()  # a live progress bar holds the current line of stderr


def _clock(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
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
            BAR_OPEN.clear()

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
            BAR_OPEN.set()
            if done >= total:
                self._end_line()
            else:
                self.stream.flush()


class Warnings:
    """Collect the warnings of a block; :meth:`report` prints one line per kind on stderr.

    A kind is the warning's class. Its line gives the count and the first message
    (``trialwise: warning (SparseTableWarning ×190): ...``); details are in the results'
    ``notes`` and, with ``--json``, in the ``warnings`` field. When the command then fails
    with an input error, the warnings it had collected and not reported are printed before
    the error line (:meth:`report_unreported`,
    called by :mod:`trialwise.cli.app`): a skipped empty row may explain the error.
    """

    #: The collectors of the running command (cleared when a command starts).
    running: list[Warnings] = []

    def __init__(self) -> None:
        self.caught: list[warnings.WarningMessage] = []
        self.reported = False
        Warnings.running.append(self)

    @contextlib.contextmanager
    def collect(self) -> Iterator[None]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                self.caught.extend(caught)

    def discard(self, kind: str) -> None:
        """Forget the warnings that carry a note of ``kind`` (a ``StructuredNote``): the command says it in
        its own output."""
        def note(w: warnings.WarningMessage) -> Any:
            args = getattr(w.message, "args", ())
            return args[0] if args else None

        self.caught = [w for w in self.caught if getattr(note(w), "kind", None) != kind]

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

    @classmethod
    def report_unreported(cls, stream: Any = None) -> None:
        """Print the warnings of the running command that were not yet reported (before its error line)."""
        lines = [line for c in cls.running if not c.reported for line in c.lines()]
        for line in dict.fromkeys(lines):  # once each (a figure's collector may repeat the report's)
            print(line, file=sys.stderr if stream is None else stream)
        cls.running.clear()

    def report(self, stream: Any = None) -> None:
        self.reported = True
        for line in self.lines():
            print(line, file=sys.stderr if stream is None else stream)
