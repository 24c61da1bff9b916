"""Self-contained HTML report of a leaderboard: tables and figures (PNG, base64) in one file."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

__all__ = ["write_report"]

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
td:nth-child(1),th:nth-child(1){text-align:left}
h1{font-size:22px}h2{font-size:18px;margin-top:1.6em}.note{color:#555;font-size:13px}
img{max-width:100%}
"""


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return f'<img alt="figure" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">'


def _table(frame, digits: int = 3) -> str:
    return frame.to_html(index=False, float_format=lambda x: f"{x:.{digits}f}", na_rep="", border=0)


def write_report(lb, path: Any, *, title: str | None = None, pairwise: Any = None) -> Path:
    """Write ``lb`` (a :class:`trialwise.Leaderboard`) as one HTML file; returns its path.

    ``pairwise``: a frame from :meth:`~trialwise.Leaderboard.pairwise` to include (with
    ``which="all"`` it is also drawn as a significance matrix).
    """
    from trialwise import plot

    out = Path(path)
    if not out.parent.is_dir():
        raise ValueError(f"{out}: folder {out.parent} does not exist")
    title = title or f"trialwise leaderboard — {lb.protocol.name}"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<p class='note'>{html.escape(lb.protocol.describe())}. {int(lb.confidence_level * 100)}% intervals "
             f"from a joint hierarchical bootstrap ({lb.ci_method}, B = {lb.n_resamples}): items resampled within "
             f"each condition, the same replicate for every observer, every level recomputed.</p>"]
    tau = lb.kendall_tau
    parts.append(f"<p>Rank stability: mean Kendall's τ between the ranking and the bootstrap rankings "
                 f"{tau.mean:.3f} ({int(lb.confidence_level * 100)}% of replicates in "
                 f"[{tau.confidence_interval.low:.3f}, {tau.confidence_interval.high:.3f}]).</p>")
    parts += ["<h2>Leaderboard</h2>", _png(plot.plot_leaderboard(lb)), _table(lb.table)]
    parts += ["<h2>Rank intervals</h2>", _png(plot.plot_rank_intervals(lb))]
    if pairwise is not None and len(pairwise):
        parts.append("<h2>Difference tests</h2>")
        n_pairs = len(lb.candidates) * (len(lb.candidates) - 1) // 2
        if len(pairwise) == n_pairs and n_pairs > 1:
            order = [o for o in lb.table["observer"] if o != lb.reference_row]
            parts.append(_png(plot.plot_pairwise_matrix(pairwise, order=order)))
        parts.append(_table(pairwise))
    breakdown = lb.by_experiment()
    if breakdown.table["experiment"].nunique() > 1:
        parts += ["<h2>Per experiment</h2>", _png(plot.plot_experiments(breakdown)),
                  "<p>Kendall's τ between the candidates' rankings in each two experiments:</p>",
                  breakdown.rank_correlation.round(2).to_html(border=0)]
    parts += ["<h2>Observed vs expected agreement</h2>", _png(plot.plot_agreement(lb.entries()))]
    if len(lb.excluded):
        parts += ["<h2>Left out</h2>", _table(lb.excluded)]
    for note in lb.notes:
        parts.append(f"<p class='note'>Note: {html.escape(note)}</p>")
    parts.append("<p class='note'>Made with trialwise.</p></body></html>")
    out.write_text("\n".join(parts), encoding="utf-8")
    return out
