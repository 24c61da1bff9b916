"""The HTML report of ``trialwise similarity``: one self-contained page, figures as embedded PNG.

It lays out finished results (a :class:`trialwise.similarity.PairwiseAgreementResult`, the frame of
difference tests of :meth:`trialwise.similarity.PairwiseAgreementResult.differences`, an accuracy
:class:`trialwise.leaderboards.Leaderboard`) and computes nothing. A figure that cannot be drawn leaves a
one-line note in its place and is listed in :attr:`trialwise.report.leaderboard.Report.failures`;
the tables carry every number.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from trialwise._core.format import format_probability, format_pvalue
from trialwise.report import page as html_page
from trialwise.report.page import Report
from trialwise.similarity.capa import AGREEMENT_CI_METHODS

__all__ = ["render_similarity_report"]


def _num(x: Any, digits: int = 3) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    return "" if np.isnan(x) else f"{x:.{digits}f}"


def _ci(lo: Any, hi: Any) -> str:
    a, b = _num(lo), _num(hi)
    return f"[{a}, {b}]" if a and b else ""


def _table(columns: dict[str, list], text: tuple[str, ...] = ()) -> str:
    return html_page.table(columns, text)


_figure = html_page.figure


def _similarity_section(res, order: list, failures: list[str], clusters: str | None) -> list[str]:
    from trialwise.plot.similarity import METRIC_SYMBOLS, plot_similarity_matrix

    symbol = METRIC_SYMBOLS.get(res.method, res.method)
    level = f"{res.confidence_level * 100:g}%"
    units = (f"{res.n_clusters} clusters of questions (field “{html.escape(str(clusters))}”)" if clusters
             else f"{res.n_clusters} questions")
    frame = res.to_frame().sort_values("statistic", ascending=False, na_position="last")
    test = res.method != "choice"
    how = "jackknife t" if res.ci_method == "jackknife-t" else "bootstrap"
    what = "H0 κ = 0" if res.method == "ec" else f"one-sided {how} test of H0 κp ≤ 0 (no more agreement than chance)"
    cols = {"model A": [str(a) for a in frame.observer_a], "model B": [str(b) for b in frame.observer_b],
            symbol: [_num(s) for s in frame.statistic],
            f"{level} CI": [_ci(a, b) for a, b in zip(frame.ci_low, frame.ci_high)]}
    if test:
        cols["p"] = [format_pvalue(p, missing="") for p in frame.pvalue]
    cols["questions"] = [str(int(n)) for n in frame.n]
    return [
        "<h2>Similarity</h2>",
        f"<p class='note'>{html.escape(symbol)} of every pair of models with {level} {html.escape(res.ci_method)} "
        + ("intervals (κ ± t·SE, the SE from leaving out one cluster at a time)" if res.ci_method == "jackknife-t"
           else "bootstrap intervals" if res.ci_method in AGREEMENT_CI_METHODS else "intervals (of error consistency)")
        + f"; one bootstrap (B = {res.n_resamples}) for the whole matrix, resampling {units}, so that differences "
          f"between cells have joint uncertainty.</p>",
        _figure("Similarity matrix", lambda: plot_similarity_matrix(res, order=None), failures),
        "<p class='note'>Heatmap: each cell is the similarity of its row and column model, with its interval in "
        "brackets; grey: the diagonal or an undefined pair. The models are ordered by hierarchical clustering "
        "(average linkage on 1 − similarity, optimal leaf order), so that models that are alike sit next to each "
        "other; the order is a display choice, not a test." + (" Colours: 0 (white) is chance agreement; red "
                                                              "above, blue below." if test else "") + "</p>",
        _table(cols, text=("model A", "model B")),
        f"<p class='note'>Models in clustering order: {html.escape(', '.join(map(str, order)))}."
        + (f" p: {html.escape(what)}." if test else "") + "</p>",
    ]


def _differences_section(diffs, res) -> list[str]:
    if diffs is None:
        return ["<h2>Differences of similarity</h2><p class='note'>Not computed (fewer than 3 models, "
                "<code>--differences none</code>, or too many tests).</p>"]
    alpha = diffs.alpha
    table = diffs.table
    sig = table[table["significant"]]
    adjust = diffs.adjust
    parts = ["<h2>Differences of similarity</h2>",
             "<p class='note'>Is model R more similar to X than to Y? For every model R and every pair X, Y of the "
             "other models: similarity(R, X) − similarity(R, Y), "
             + (f"its {res.confidence_level * 100:g}% jackknife t interval over the {res.n_clusters} clusters (each "
                f"left out in turn, t with {res.n_clusters - 1} df; not adjusted) and the two-sided t test of "
                if diffs.ci_method == "jackknife-t" else
                f"from the joint bootstrap replicates, its {res.confidence_level * 100:g}% percentile interval (not "
                f"adjusted) and a two-sided bootstrap test of ")
             + f"equal similarity; p-values {html.escape(adjust)}-adjusted over the {diffs.n_tests} tests. "
             f"<b>{len(sig)}</b> of {diffs.n_tests} significant at α = {alpha:g}.</p>"]
    for note in diffs.notes:  # B too small for any adjusted p to reach α
        if getattr(note, "kind", "") == "monte-carlo-resolution":
            parts.append(f"<p class='note'><b>None can be significant with these replicates:</b> "
                         f"{html.escape(str(note))}.</p>")
    if len(sig):
        parts.append(_table({
            "R": [str(x) for x in sig.reference], "more similar to X": [str(x) for x in sig.more_similar],
            "than to Y": [str(x) for x in sig.less_similar],
            "sim(R, X)": [_num(x) for x in sig.similarity_more], "sim(R, Y)": [_num(x) for x in sig.similarity_less],
            "difference": [_num(x) for x in sig.difference],
            "CI": [_ci(a, b) for a, b in zip(sig.ci_low, sig.ci_high)],
            "adjusted p": [format_pvalue(p, missing="") for p in sig.pvalue_adjusted],
        }, text=("R", "more similar to X", "than to Y")))
    rest = table[~table["significant"]]
    if len(rest):
        parts += [f"<details><summary>the {len(rest)} tests that are not significant</summary>",
                  _table({"R": [str(x) for x in rest.reference], "X": [str(x) for x in rest.more_similar],
                          "Y": [str(x) for x in rest.less_similar], "difference": [_num(x) for x in rest.difference],
                          "CI": [_ci(a, b) for a, b in zip(rest.ci_low, rest.ci_high)],
                          "adjusted p": [format_pvalue(p, missing="") for p in rest.pvalue_adjusted]},
                         text=("R", "X", "Y")),
                  "</details>"]
    return parts


def _leaderboard_section(lb, failures: list[str], clusters: str | None) -> list[str]:
    from trialwise import plot

    t = lb.table
    level = f"{lb.confidence_level * 100:g}%"

    def span(a, b):
        return "" if a != a or b != b else f"{int(a)}–{int(b)}"

    parts = ["<h2>Accuracy leaderboard</h2>",
             f"<p class='note'>{html.escape(lb.describe())}. {level} intervals ({html.escape(str(lb.ci_method))}, "
             f"B = {lb.n_resamples}) from a joint bootstrap of the "
             + (f"clusters of questions (field “{html.escape(str(clusters))}”)" if clusters else "questions")
             + " within each task.</p>",
             _figure("Leaderboard", lambda: plot.plot_leaderboard(lb), failures),
             _table({
                 "rank": [str(int(r)) if r == r else "" for r in t["rank"]],
                 "rank set": [span(a, b) for a, b in zip(t["rank_low"], t["rank_high"])],
                 "all at once": [span(a, b) for a, b in zip(t["rank_set_low"], t["rank_set_high"])],
                 "best set": ["yes" if b is True or b == 1 else "" for b in t["in_best_set"]],
                 "group": ["" if g != g or g is None else str(g) for g in t["group"]],
                 "model": [str(o) for o in t["observer"]],
                 "accuracy": [_num(s) for s in t["score"]],
                 f"{level} CI": [_ci(a, b) for a, b in zip(t["ci_low"], t["ci_high"])],
                 "P(best)": [format_probability(p) for p in t["p_best"]],
             }, text=("model",)),
             f"<p class='note'>Rank sets (Mogstad, Romano, Shaikh &amp; Wilhelm 2024): <b>rank set</b> holds that "
             f"model's true rank with {level} confidence; <b>all at once</b> holds every model's true rank jointly "
             f"with {level} confidence; <b>best set</b> marks a set that holds the truly best model with {level} "
             f"confidence; models that share a letter in <b>group</b> (tie groups) are not separated by "
             f"Holm-corrected pairwise tests at α = {1 - lb.confidence_level:g}.</p>"]
    if len(lb.candidates) >= 2:
        parts += ["<h3>Rank sets</h3>", _figure("Rank sets", lambda: plot.plot_rank_intervals(lb), failures)]
    return parts


def render_similarity_report(res, diffs, lb, *, order: list, trials: Any, source: str, fmt: str,
                             clusters: str | None = None) -> Report:
    """The report as HTML text (:class:`trialwise.report.leaderboard.Report`: ``html``, ``failures``)."""
    failures: list[str] = []
    title = "trialwise similarity — language models"
    log = trials.attrs.get("log", {}) if hasattr(trials, "attrs") else {}
    skipped = log.get("skipped") or {}
    parts = [f"<p class='note'>Logs: {html.escape(source)} ({html.escape(fmt)}): {len(trials)} trials, "
             f"{trials['subject'].nunique()} models, {trials['image'].nunique()} questions in "
             f"{trials['condition'].nunique()} task(s)"
             + (f"; records not used: {html.escape(', '.join(f'{k} {v}' for k, v in skipped.items()))}" if skipped
                else "; every record used")
             + ".</p>"]  # the run's seed: the page's last line (cli.common.write_report)
    parts += _similarity_section(res, order, failures, clusters)
    parts += _differences_section(diffs, res)
    parts += _leaderboard_section(lb, failures, clusters)
    notes = list(res.notes) + [str(n) for n in lb.notes]
    return html_page.page(title, parts, notes=notes, failures=failures)
