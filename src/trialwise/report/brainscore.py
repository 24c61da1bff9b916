"""The HTML report of ``trialwise brainscore``: per benchmark (one per experiment) and their average, or the
ceiling and the ranked score table of a pooled score, with their figures.

It lays out finished results (:meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks`, or
:meth:`~trialwise.brainscore.BehavioralBenchmark.score_table` and the benchmark's
:class:`~trialwise.brainscore.CeilingResult`) in the one page frame of :mod:`trialwise.report.page`, and
computes nothing.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from trialwise._core.format import format_rank_set
from trialwise.report import page as html_page
from trialwise.report.page import Report

__all__ = ["describe_humans", "describe_intervals", "render_brainscore_report"]

#: How the score and its intervals are formed, per-image metric by metric (the functions' docstrings).
_IMAGE_TEXT = {
    "i2n": ("score = mean over splits of raw / √ceiling, clipped to [0, 1]",
            "bias-corrected jackknife-t intervals over images within objects (the same half splits for every "
            "candidate); ranks from the bootstrap replicates of the images within objects, the same for every "
            "candidate"),
    "value-delta": ("score = clip(raw / ceiling, 0, 1)",
                    "raw interval from the percentile interval of source − target (bootstrap of each side's trials), "
                    "ceiling interval from a bootstrap of the humans' trials (the same for every candidate), score "
                    "interval [raw low / ceiling high, raw high / ceiling low]; ranks from the raw replicates"),
    "ost": ("score = clip(raw / ceiling, 0, 1)",
            "percentile intervals of one bootstrap of the images (the same draws for every candidate and the "
            "ceiling)"),
}
_IMAGE_TEXT["i1n"] = _IMAGE_TEXT["i2n"]


def describe_humans(bench: Any) -> str:
    """The humans of a benchmark in words: "N human observers", or for OST "N images, M measurements"."""
    if bench.humans:
        return f"{len(bench.humans)} human observers"
    t = bench.human_trials
    return f"{t['image'].nunique()} images, {len(t)} measurements of the target"


def describe_intervals(metric: str) -> tuple[str, str]:
    """(the score's formula, how the intervals and the rank replicates are formed) of a benchmark's metric."""
    return _IMAGE_TEXT.get(metric, ("score = clip(raw / ceiling, 0, 1)",
                                    "percentile intervals of one joint bootstrap of the images within conditions "
                                    "(the same replicates for every candidate, the humans and the ceiling)"))


def _num(x: Any) -> str:
    x = float(x)
    return "undefined" if not np.isfinite(x) else f"{x:.3f}"


def _ci(lo: Any, hi: Any) -> str:
    return f"[{_num(lo)}, {_num(hi)}]" if np.isfinite(float(lo)) and np.isfinite(float(hi)) else ""


def _ranked(table, level: str, raw: bool = True) -> str:
    """Ranked rows (``score`` or ``statistic``, intervals, raw value unless not ``raw``, rank columns) as a table."""
    score = table["score"] if "score" in table.columns else table["statistic"]
    cols = {"candidate": list(table["observer"]), "score": [_num(x) for x in score],
            f"score {level}": [_ci(a, b) for a, b in zip(table["ci_low"], table["ci_high"])]}
    if raw:
        cols |= {"raw": [_num(x) for x in table["raw"]],
                 f"raw {level}": [_ci(a, b) for a, b in zip(table["raw_low"], table["raw_high"])]}
    cols |= {"rank": [str(r) for r in table["rank"]],
             "rank set": [format_rank_set(a, b) for a, b in zip(table["rank_low"], table["rank_high"])],
             "all at once": [format_rank_set(a, b) for a, b in zip(table["rank_set_low"], table["rank_set_high"])],
             "best set": ["*" if bool(b) else "" for b in table["in_best_set"]], "group": list(table["group"])}
    return html_page.table(cols, text=("candidate", "group"))


def _ranks_text(bench: Any, what: str) -> str:
    return (f"Rank sets (Mogstad, Romano, Shaikh &amp; Wilhelm 2024) of {what}: <b>rank set</b> holds that "
            f"candidate's true rank, <b>all at once</b> every candidate's jointly, <b>best set</b> the best "
            f"candidate, each with {bench.confidence_level * 100:g}% confidence; candidates sharing a letter in "
            f"<b>group</b> are not separated by Holm-corrected tests.")


def _benchmark_parts(res: Any, bench: Any, failures: list[str]) -> list[str]:
    """The average over the benchmarks, the candidate × benchmark scores and every benchmark's ranked table."""
    from trialwise.plot.brainscore import plot_benchmark_scores

    level = f"{bench.confidence_level * 100:g}% CI"
    formula, intervals = describe_intervals(bench.metric)
    scores = res.scores
    matrix = {"candidate": ["ceiling", *scores.index]}
    for b, c in zip(res.benchmarks, res.ceilings):
        matrix[b] = [_num(c.statistic), *("—" if b in res.missing.get(o, ()) else _num(x)
                                          for o, x in scores[b].items())]
    parts = ["<h2>Average over the benchmarks</h2>",
             html_page.figure("Average over the benchmarks", lambda: plot_benchmark_scores(res), failures),
             _ranked(res.average, level, raw=False),
             f"<p class='note'>Each experiment is one benchmark, as Brain-Score's Geirhos2021 benchmarks are: "
             f"{html.escape(formula)} with the ceiling of that experiment's humans. The average is Brain-Score's: the "
             f"sum of the {len(res.benchmarks)} scores over their number, a missing or undefined score counting as 0. "
             f"{html.escape(intervals[0].upper() + intervals[1:])}; the average's interval from the averages of "
             f"the replicate scores. {_ranks_text(bench, 'the average scores on the joint replicates')}</p>",
             "<h2>Scores per benchmark</h2>", html_page.table(matrix, text=("candidate",))]
    if res.missing:
        named = "; ".join(f"{c} ({', '.join(x)})" for c, x in res.missing.items())
        parts.append(f"<p class='note'>— : not scored in that benchmark, for the candidate does not answer all of "
                     f"its images ({html.escape(named)}); the missing score counts as 0 in the average, as "
                     f"Brain-Score averages, so compare such a candidate on the benchmarks it has, or score it without "
                     f"the others (--experiments). The printed output says how many images each one lacks.</p>")
    for b, c in zip(res.benchmarks, res.ceilings):
        cc = c.confidence_interval
        parts += [f"<h3>{html.escape(b)}</h3>",
                  f"<p>Ceiling {_num(c.statistic)} ({level} {_ci(cc.low, cc.high)}): {html.escape(c.method)}.</p>",
                  _ranked(res.table[res.table["benchmark"] == b], level)]
    parts.append(f"<p class='note'>Within a benchmark the candidates are ranked by their raw values (the ceiling "
                 f"is common, so this is the order of the scores without the ties of clipping). "
                 f"{_ranks_text(bench, 'the raw values on the joint replicates')}</p>")
    return parts


def render_brainscore_report(table, ceiling, bench, not_scored: dict, *, source: str, benchmarks: Any = None) -> Report:
    """The report as HTML text (:class:`trialwise.report.page.Report`: ``html``, ``failures``): per benchmark
    and their average when ``benchmarks`` (a :class:`~trialwise.brainscore.BenchmarkScores`) is given, else the
    pooled ``table`` and ``ceiling``."""
    failures: list[str] = []
    if benchmarks is not None:
        return _page(bench, not_scored, source, len(benchmarks.candidates),
                     _benchmark_parts(benchmarks, bench, failures), failures)
    from trialwise.plot.brainscore import plot_brainscore

    level = f"{bench.confidence_level * 100:g}% CI"
    cc = ceiling.confidence_interval
    formula, _ = describe_intervals(bench.metric)
    parts = [f"<p>Ceiling {_num(ceiling.statistic)} ({level} {_ci(cc.low, cc.high)}): {html.escape(ceiling.method)}.</p>",
             "<h2>Scores</h2>",
             html_page.figure("Scores", lambda: plot_brainscore(table, ceiling), failures),
             _ranked(table, level),
             f"<p class='note'>{html.escape(formula)}. "
             f"{_ranks_text(bench, 'the raw values on the joint replicates (the ceiling is common, so this is the order of the scores without the ties of clipping)')}</p>"]
    return _page(bench, not_scored, source, len(table), parts, failures)


def _page(bench: Any, not_scored: dict, source: str, n_scored: int, parts: list[str], failures: list[str]) -> Report:
    """The page: what was scored and how, ``parts``, and the candidates not scored."""
    _, intervals = describe_intervals(bench.metric)
    intro = (f"<p class='note'>Trials: {html.escape(source)}; protocol {html.escape(bench.protocol.name)}; "
             f"{describe_humans(bench)}; {n_scored} candidate(s) scored. "
             f"{html.escape(intervals[0].upper() + intervals[1:])} (B = {bench.n_resamples})"
             + (". Error consistency as Brain-Score computes it: abs() of the mean κ (--brainscore-compatible)"
                if bench.brainscore_compatible else "") + ".</p>")
    parts = [intro, *parts]
    if not_scored:
        parts += ["<h2>Not scored</h2>",
                  html_page.table({"candidate": list(not_scored),
                                   "lacks images of": [", ".join(v) for v in not_scored.values()]},
                                  text=("candidate", "lacks images of"), wrap=("lacks images of",)),
                  "<p class='note'>A score is over exactly a benchmark's images, and brainscore has no option to "
                  "leave some out: leave a candidate's incomplete experiments out with --experiments, or compare it on "
                  "the images it has with trialwise leaderboard (raw values, no ceiling). The printed output says "
                  "how many images each one lacks.</p>"]
    return html_page.page(f"trialwise brainscore — {bench.metric}", parts, failures=failures)
