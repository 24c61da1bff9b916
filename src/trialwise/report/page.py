"""The one frame of every HTML report: a self-contained page, figures embedded as PNG.

Reports (the leaderboard's, ``trialwise similarity``'s, ``trialwise brainscore``'s) lay out
finished results and compute nothing; this module gives them the page around their
sections: the style, tables of text cells, figures that cannot cost the report its tables,
the notes and the footer. A figure that cannot be drawn leaves a one-line note in its place
and is listed in :attr:`Report.failures`.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from trialwise._core.version import VERSION

__all__ = ["Report", "figure", "page", "table"]

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;font-size:13px;margin:.6em 0}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap;vertical-align:top}
td.text,th.text{text-align:left}td.wrap{white-space:normal;min-width:12em}
h1{font-size:22px}h2{font-size:18px;margin-top:1.8em}h3{font-size:15px}.note{color:#555;font-size:13px}
.warn{color:#8a4b00;font-size:13px}
.answer{font-size:17px;background:#eef3f8;border-left:4px solid #245;padding:.5em .8em;margin:.8em 0}
img{max-width:100%;height:auto;display:block;margin:.4em 0}
.scroll{overflow-x:auto;max-width:100%}
details{margin:.5em 0}summary{cursor:pointer;color:#245;font-size:13px}
"""


@dataclass(frozen=True)
class Report:
    """A rendered report: the HTML text and the figures that could not be drawn.

    ``failures``: one ``"<section>: <ExceptionType>: <message>"`` per figure that
    failed; empty when every figure was drawn.
    """

    html: str
    failures: tuple[str, ...] = field(default_factory=tuple)

    def __repr__(self) -> str:
        return f"Report({len(self.html)} characters, {len(self.failures)} figure failure(s))"


def table(columns: dict[str, list], text: Iterable[str] = (), wrap: Iterable[str] = ()) -> str:
    """Columns of cells (already text) as an HTML table: ``text`` columns left-aligned, ``wrap`` columns may wrap."""
    text, wrap = set(text), set(wrap)

    def cls(c: str) -> str:
        return " ".join(k for k, cols in (("text", text), ("wrap", wrap)) if c in cols)

    head = "".join(f"<th class='{cls(c)}'>{html.escape(str(c))}</th>" for c in columns)
    rows = ["<tr>" + "".join(f"<td class='{cls(c)}'>{html.escape(str(v))}</td>" for c, v in zip(columns, cells))
            + "</tr>" for cells in zip(*columns.values())]
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"


def figure(section: str, draw: Callable[[], Any], failures: list[str]) -> str:
    """``draw()`` (a matplotlib figure) as an embedded PNG, or a one-line note when it fails (recorded in ``failures``)."""
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    try:
        buf = io.BytesIO()
        draw().savefig(buf, format="png", dpi=100)
        return f'<img alt="{html.escape(section)}" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">'
    except Exception as exc:  # noqa: BLE001 - a figure must not cost the report its tables
        first = (str(exc).strip().splitlines() or [""])[0]
        failures.append(f"{section}: {type(exc).__name__}: {first}")
        return (f"<p class='warn'>The figure could not be drawn ({html.escape(type(exc).__name__)}: "
                f"{html.escape(first)}); the table below holds its numbers. Please report this.</p>")
    finally:
        for num in set(plt.get_fignums()) - before:
            plt.close(num)


def page(title: str, body: Iterable[str], *, notes: Iterable[Any] = (), failures: Iterable[str] = ()) -> Report:
    """The whole page: ``title``, the ``body`` parts (HTML), a Notes section, the figure failures and the footer."""
    failures = tuple(failures)
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>", *body]
    notes = [str(n) for n in notes]
    if notes:
        parts.append("<h2>Notes</h2>")
        parts += [f"<p class='note'>{html.escape(n)}</p>" for n in notes]
    if failures:
        parts.append("<p class='warn'>" + html.escape(f"{len(failures)} figure(s) could not be drawn: "
                                                      + "; ".join(failures)) + "</p>")
    parts.append(f"<p class='note'>Made with trialwise {html.escape(VERSION)}.</p></body></html>")
    return Report("\n".join(parts), failures)
