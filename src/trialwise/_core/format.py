"""The number formatters of every result's ``repr``, ``summary()`` and the reports."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["format_number", "format_percent", "format_pvalue", "format_rank_set"]


def format_number(x: Any, digits: int = 3) -> str:
    x = float(x)
    if np.isnan(x):
        return "nan"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.000"


def format_pvalue(p: Any) -> str:
    p = float(p)
    if np.isnan(p):
        return "nan"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def format_percent(level: float) -> str:
    return f"{100 * level:g}%"


def format_rank_set(low: Any, high: Any) -> str:
    """A rank set as text: ``"3"`` for [3, 3], ``"3–7"`` otherwise, ``""`` when undefined (NaN or NA)."""
    try:
        lo, hi = int(low), int(high)
    except (TypeError, ValueError):
        return ""
    return f"{lo}" if lo == hi else f"{lo}–{hi}"
