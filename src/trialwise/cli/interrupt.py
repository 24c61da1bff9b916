"""Ctrl-C on the command line: one line, exit status 130, no partial output file.

Imported by :func:`trialwise.cli.main` before anything else, so it imports only the standard
library: a Ctrl-C during the imports of the commands (numpy, pandas, the library) ends the same way.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

__all__ = ["on_interrupt"]


def on_interrupt(signum: int, frame: Any) -> None:  # pragma: no cover - exercised in a subprocess by the tests
    """Ctrl-C: one line and exit status 130, at once (worker threads would otherwise finish their tasks first)."""
    try:
        common = sys.modules.get("trialwise.cli.common")  # a file being written: removed, never left half-written
        for part in list(getattr(common, "PENDING", ())):
            with contextlib.suppress(OSError):
                os.unlink(part)
        progress = sys.modules.get("trialwise.cli.progress")  # not imported here: this may run during the imports
        bar = getattr(progress, "BAR_OPEN", None)
        sys.stderr.write(("\n" if bar is not None and bar.is_set() else "") + "trialwise: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)
