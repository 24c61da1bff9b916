"""The number formatters of every result's ``repr``, ``summary()`` and the reports."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_number", "format_number", "format_percent", "format_probability", "format_pvalue", "format_rank_set"]


def format_number(x: Any, digits: int = 3) -> str:
    x = float(x)
    if np.isnan(x):
        return "nan"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.000"


def as_number(x: Any) -> float | None:
    """``x`` as a float, None when it is missing (None, NaN, ``pd.NA``)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(x) else x


#: P-values below this print as ``< 1e-300``: an analytic tail probability that underflowed (0, or
#: a subnormal float that has lost its digits), never a Monte-Carlo one (at least 1/(1 + M)).
PVALUE_FLOOR = 1e-300


def format_pvalue(p: Any, *, missing: str = "nan") -> str:
    """A p-value as text: the one p-value format of the results, the reports and the command line.

    Three significant digits, in scientific notation below 1e-4, so that no p-value is rounded
    to zero and the floor ``1/(1 + M)`` of a Monte-Carlo p-value stays visible;
    ``< 1e-300`` below :data:`PVALUE_FLOOR`; ``missing`` for None, NaN or ``pd.NA`` (``"nan"``
    in a repr, ``""`` in a table cell).

    Examples
    --------
    >>> [format_pvalue(p) for p in (0.5, 0.0432, 0.000123, 9.999e-05, 1.2e-12, 0.0, float("nan"))]
    ['0.5', '0.0432', '0.000123', '1.00e-04', '1.20e-12', '< 1e-300', 'nan']
    >>> format_pvalue(None, missing="")
    ''
    """
    p = as_number(p)
    if p is None:
        return missing
    if p < PVALUE_FLOOR:
        return f"< {PVALUE_FLOOR:g}"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.2e}"


def format_probability(p: Any, *, missing: str = "") -> str:
    """A probability estimated from replicates (a leaderboard's P(best)) as text: three decimals.

    Not a p-value (those are :func:`format_pvalue`): a share of B replicates, printed to a fixed
    three decimals like the scores beside it, ``"0"`` when no replicate counts, ``"< 0.001"`` when
    some do but fewer than 0.05 % (so a positive share never reads as zero); ``missing`` for
    None, NaN or ``pd.NA``.

    Examples
    --------
    >>> [format_probability(p) for p in (0.6, 1.0, 0.0004, 0.0, None)]
    ['0.600', '1.000', '< 0.001', '0', '']
    """
    p = as_number(p)
    if p is None:
        return missing
    if p == 0:
        return "0"
    return "< 0.001" if p < 0.0005 else f"{p:.3f}"


def format_percent(level: float) -> str:
    return f"{100 * level:g}%"


def format_rank_set(low: Any, high: Any) -> str:
    """A rank set as text: ``"3"`` for [3, 3], ``"3–7"`` otherwise, ``""`` when undefined (NaN or NA)."""
    try:
        lo, hi = int(low), int(high)
    except (TypeError, ValueError):
        return ""
    return f"{lo}" if lo == hi else f"{lo}–{hi}"
