"""Self-contained HTML report of a leaderboard: tables and figures (PNG, base64) in one file.

The report is built in memory (:func:`render_report`) and then written in one go
(:func:`write_report`). A figure that cannot be drawn does not cost the report: its
place holds a one-line note, the tables (which carry every number) are still written,
and the failure is listed in :attr:`Report.failures` (``write_report`` also warns).

Why this module is long: about 510 lines, one function per section of the one page (the answer,
the method, rank sets, tests, per experiment, shape bias, per condition, left out), each a few
tables and figures with the prose that says how to read them; split, the sections would share
their formatting helpers across modules for no reader's gain.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import numpy as np

from trialwise._core.errors import InvalidValueError
from trialwise._core.format import as_number, format_number, format_probability, format_pvalue
from trialwise.report import page as html_page
from trialwise.report.page import Report
from trialwise._core.warnings import TrialwiseWarning, warn
from trialwise import plot
from trialwise.leaderboards.differences import TEST_DESCRIPTIONS

__all__ = ["write_report", "render_report", "Report", "headline", "unscored_candidates"]


# --------------------------------------------------------------------------- formatting


def _fmt(x: Any, digits: int = 3) -> str:
    """A number with fixed decimals (never '-0.000'); '' for missing."""
    x = as_number(x)
    return "" if x is None else format_number(x, digits)


def _int(x: Any) -> str:
    try:
        return "" if x is None or np.isnan(float(x)) else str(int(x))
    except (TypeError, ValueError):
        return ""


def _html_table(frame, text_columns=(), wrap_columns=()) -> str:
    """A frame whose cells are already text, as an HTML table (text columns left-aligned; wrap columns may wrap)."""
    return html_page.table({str(c): list(frame[c]) for c in frame.columns}, text_columns, wrap_columns)


def _ci(lo: Any, hi: Any, estimate: Any) -> str:
    """The interval as text; '' when the estimate is undefined (see the note in the report)."""
    if not np.isfinite(float(estimate)) or not (np.isfinite(float(lo)) and np.isfinite(float(hi))):
        return ""
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


def _leaderboard_table(lb) -> str:
    import pandas as pd

    t = lb.table
    level = f"{lb.confidence_level * 100:g}% CI"
    # the answer's columns first, so that a narrow window shows them and scrolls to the rank sets
    out = pd.DataFrame({
        "rank": [_int(r) for r in t["rank"]],
        "observer": t["observer"].astype(str),
        "score": [_fmt(s) if np.isfinite(s) else "undefined" for s in t["score"].astype(float)],
        level: [_ci(lo, hi, s) for lo, hi, s in zip(t["ci_low"], t["ci_high"], t["score"].astype(float))],
        "P(best)": [format_probability(p) for p in t["p_best"]],
        "group": ["" if pd.isna(g) else str(g) for g in t["group"]],
        "best set": ["" if pd.isna(b) else ("yes" if b else "") for b in t["in_best_set"]],
        "rank set": ["" if pd.isna(a) else f"{int(a)}–{int(b)}" for a, b in zip(t["rank_low"], t["rank_high"])],
        "all at once": ["" if pd.isna(a) else f"{int(a)}–{int(b)}"
                        for a, b in zip(t["rank_set_low"], t["rank_set_high"])],
        "undefined replicates": [_int(n) for n in t["n_undefined"]],
    })
    return _html_table(out, text_columns=("observer",))


def _pairwise_table(pairwise, level: float) -> str:
    import pandas as pd

    out = pd.DataFrame({
        "higher ranked": pairwise["observer_a"].astype(str),
        "lower ranked": pairwise["observer_b"].astype(str),
        "difference": [_fmt(d) for d in pairwise["difference"]],
        f"{level * 100:g}% CI": [f"[{_fmt(a)}, {_fmt(b)}]" for a, b in zip(pairwise["ci_low"], pairwise["ci_high"])],
        "p": [format_pvalue(p, missing="") for p in pairwise["pvalue"]],
        "adjusted p": [format_pvalue(p, missing="") for p in pairwise["pvalue_adjusted"]],
        "significant": ["yes" if s else "" for s in pairwise["significant"]],
    })
    return _html_table(out, text_columns=("higher ranked", "lower ranked"))


#: The metric as named in the answer sentence (:func:`headline`).
_METRIC_NAMES = {"error-consistency": "error consistency", "observed-consistency": "observed consistency",
                 "accuracy-difference": "squared accuracy difference", "accuracy": "accuracy"}


def _who(lb) -> str:
    """"Most human-like" (reference group "human"), "Most accurate" (against the ground truth), or
    "Most like the <group> observers"."""
    if lb.protocol.against_ground_truth:
        return "Most accurate"
    label = str(lb.reference_row).split("–")[0]
    return "Most human-like" if label == "human" else f"Most like the {label} observers"


def _names(names: list, most: int = 3) -> str:
    names = [str(n) for n in names]
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def headline(lb) -> str:
    """The leaderboard's answer in one sentence: the best candidate, how sure, how many tie with it.

    Reads the finished leaderboard and computes nothing: the best is the candidate ranked 1
    (``rank``), with its score and interval (``score``, ``ci_low``, ``ci_high``); "separated"
    means that no other candidate shares a letter of its tie group (``group``: Holm-corrected
    tests of every pair at α = 1 − ``confidence_level``); ``P(best)`` is its share of the
    bootstrap rankings in which it ranks first (``p_best``). Candidates the leaderboard could
    not score (they lack experiments, share too few items, or have an undefined score) are
    counted at the end. The HTML report opens with this sentence and ``trialwise leaderboard``
    prints it after its table.

    Parameters
    ----------
    lb : Leaderboard
        From :func:`trialwise.leaderboard`.

    Returns
    -------
    str
        "Most human-like: …" (the reference group is ``human``), "Most accurate: …" (an
        accuracy leaderboard) or "Most like the <group> observers: …"; for a metric where
        lower is better (``accuracy-difference``) the score says so.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> print(headline(lb))
    Most human-like: resnet50 (error consistency 0.218, 95% CI [0.160, 0.274]); not separated from the other 2 candidates (they share its tie group a: cornet-s, clip-16); P(best) 0.400.
    """
    import pandas as pd

    t = lb.table
    cand = t[t["kind"] == "candidate"]
    ranked = cand[cand["rank"].notna()]
    level = f"{lb.confidence_level * 100:g}%"
    metric = _METRIC_NAMES.get(lb.protocol.metric, str(lb.protocol.metric))
    lower = "" if lb.higher_is_better else ", lower is better"
    n_unscored = len(unscored_candidates(lb)) + len(unpaired_candidates(lb))
    n_undefined = len(cand) - len(ranked)
    left = []
    if n_unscored:
        left.append(f"{n_unscored} candidate{'s' if n_unscored > 1 else ''} not scored (see Left out)")
    if n_undefined:
        left.append(f"{n_undefined} candidate{'s' if n_undefined > 1 else ''} with an undefined score")
    tail = "".join(f"; {x}" for x in left) + "."

    def value(r) -> str:
        ci = _ci(r.ci_low, r.ci_high, r.score)
        return f"{metric} {_fmt(r.score)}{lower}, " + (f"{level} CI {ci}" if ci else "no interval")

    if not len(ranked):
        return f"{_who(lb)}: none — no candidate has a defined score (see the notes){tail}"
    best = ranked[ranked["rank"] == 1]
    first = best.iloc[0]
    if len(ranked) == 1:
        return (f"{_who(lb)}: {first.observer} ({value(first)}) — the only candidate with a score, so there is "
                f"nothing to rank it against{tail}")
    if len(best) > 1:
        lead = (f"{_who(lb)}: {len(best)} candidates tied at rank 1 with the same score, "
                f"{_names(list(best['observer']), 4)} ({value(first)})")
    else:
        lead = f"{_who(lb)}: {first.observer} ({value(first)})"
    others = ranked[ranked["rank"] != 1]
    mine = set(str(first.group)) if not pd.isna(first.group) else set()
    tied = [o for o, g in zip(others["observer"], others["group"]) if not pd.isna(g) and mine & set(str(g))]
    alpha = f"{1 - lb.confidence_level:.3g}"
    if not len(others):
        sep = "no other candidate to separate from"
    elif not tied:
        sep = f"separated from every other candidate (Holm-corrected pairwise tests, α = {alpha})"
    else:
        letters = "".join(sorted(mine))
        whom = (f"the other {len(others)} candidate{'s' if len(others) > 1 else ''}" if len(tied) == len(others)
                else f"{len(tied)} other candidate{'s' if len(tied) > 1 else ''}")
        sep = (f"not separated from {whom} ({'it shares' if len(tied) == 1 else 'they share'} its tie group "
               f"{letters}: {_names(tied)})")
    p_best = ", ".join(x for x in (format_probability(p) for p in best["p_best"]) if x)
    return f"{lead}; {sep}" + (f"; P(best) {p_best}" if p_best else "") + tail


def unpaired_candidates(lb) -> list:
    """The candidates not scored for sharing too few items with every reference observer (the note
    ``candidates-unpaired``), in the note's order."""
    return [c for n in lb.notes if getattr(n, "kind", "") == "candidates-unpaired" for c in n.values["unpaired"]]


def unscored_candidates(lb):
    """The candidates a leaderboard could not score, with what each lacks and has.

    Returns a DataFrame with columns ``observer, n_missing, n_experiments, missing, has``
    (``missing``/``has``: lists of experiment names), one row per candidate that lacks
    some of the protocol's experiments (from ``lb.excluded``; the candidates not scored for
    sharing too few images with the reference observers are the note ``candidates-unpaired``'s).

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.texture_vs_shape()
    >>> lb = tw.leaderboard(trials[trials["experiment"].isin(["cue-conflict", "edge"])], n_resamples=20, rng=0)
    >>> row = unscored_candidates(lb).iloc[0]
    >>> row.observer, row.missing, row.has
    ('densenet121', ['edge'], ['cue-conflict'])
    """
    import pandas as pd

    ex = lb.excluded
    rows = (ex[(ex["subject"] != "*") & (ex["condition"] == "*") & ~ex["subject"].isin(unpaired_candidates(lb))]
            if len(ex) else ex)
    design = getattr(lb, "_design", None)
    experiments = list(design.experiments) if design is not None else []
    out = []
    for r in rows.itertuples(index=False):
        missing = [e for e in str(r.experiment).split(",") if e]
        out.append({"observer": r.subject, "n_missing": len(missing), "n_experiments": len(experiments),
                    "missing": missing, "has": [e for e in experiments if e not in missing]})
    return pd.DataFrame(out, columns=["observer", "n_missing", "n_experiments", "missing", "has"])


def _left_out(lb) -> list[str]:
    """The 'Left out' section: unscored candidates by name, excluded experiments and conditions."""
    import pandas as pd

    parts = []
    unscored = unscored_candidates(lb)
    if len(unscored):
        parts.append(f"<p>{len(unscored)} candidate(s) not scored: each lacks experiments of the protocol, and a "
                     f"score over fewer experiments would not be comparable. To score them, restrict the "
                     f"experiments to those they have (command line: <code>--experiments NAME …</code> or "
                     f"<code>--common-experiments</code>; Python: <code>protocol.replace(experiments=[…])</code>).</p>")
        parts.append(_html_table(pd.DataFrame({
            "observer": unscored["observer"],
            "lacks": [f"{r.n_missing} of {r.n_experiments}: {', '.join(r.missing)}" for r in unscored.itertuples()],
            "has": [", ".join(r.has) or "—" for r in unscored.itertuples()],
        }), text_columns=("observer", "lacks", "has"), wrap_columns=("lacks", "has")))
    ex = lb.excluded
    if len(ex):
        other = ex[ex["subject"] == "*"]
        if len(other):
            parts.append("<p>Experiments and conditions the protocol leaves out:</p>")
            grouped = (other.groupby(["reason", "experiment"], sort=False)["condition"]
                       .apply(lambda c: ", ".join(x for x in c if x != "*") or "all conditions").reset_index())
            grouped["trials"] = other.groupby(["reason", "experiment"], sort=False)["n_trials"].sum().to_numpy()
            parts.append(_html_table(grouped[["reason", "experiment", "condition", "trials"]]
                                     .rename(columns={"condition": "conditions"}).astype(str),
                                     text_columns=("reason", "experiment", "conditions"), wrap_columns=("conditions",)))
    return parts


# --------------------------------------------------------------------------- figures


_figure = html_page.figure


# --------------------------------------------------------------------------- the report


def render_report(lb, *, title: str | None = None, pairwise: Any = None, shape_bias: Any = None) -> Report:
    """The report of ``lb`` (a :class:`trialwise.leaderboards.Leaderboard`) as HTML text, without writing it.

    Returns a :class:`Report` (``.html``, ``.failures``). See :func:`write_report`. The sections,
    in order: the answer and the table, how the numbers were made, rank sets, the difference
    tests (``pairwise``), per experiment, shape bias (``shape_bias``), observed against expected
    agreement, what was left out.
    """
    failures: list[str] = []
    title = title or f"trialwise leaderboard — {lb.protocol.name}"
    unscored = unscored_candidates(lb)
    parts = _first_screen(lb, unscored, failures) + _method_section(lb)
    if len(lb.candidates) >= 2:
        parts += ["<h2>Rank sets</h2>", _figure("Rank sets", lambda: plot.plot_rank_intervals(lb), failures)]
    if pairwise is not None and len(pairwise):
        parts += _pairwise_section(lb, pairwise, failures)
    parts += _experiment_section(lb, failures)
    if shape_bias is not None:
        parts += _shape_bias_section(lb, shape_bias, failures)
    if not lb.protocol.against_ground_truth:  # against an always-right oracle the agreement is the accuracy itself
        parts += _conditions_section(lb, failures)
    left = _left_out(lb)
    if left:
        parts += ["<h2 id='left-out'>Left out</h2>", *left]
    # the unscored candidates are listed under Left out
    notes = [n for n in lb.notes if not (len(unscored) and getattr(n, "kind", "") == "candidates-not-scored")]
    return html_page.page(title, parts, notes=notes, failures=failures)


def _first_screen(lb, unscored, failures: list[str]) -> list[str]:
    """The answer, the table, who was not scored, how to read rank sets, the scores' figure."""
    pct = f"{lb.confidence_level * 100:g}%"
    parts = [f"<p class='answer'>{html.escape(headline(lb))}</p>", _leaderboard_table(lb)]
    if len(unscored):
        names = ", ".join(unscored["observer"].astype(str))
        parts.append(f"<p class='warn'>Not scored ({len(unscored)}): {html.escape(names)} — they lack experiments "
                     f"of the protocol; see <a href='#left-out'>Left out</a>.</p>")
    unpaired = unpaired_candidates(lb)
    if unpaired:
        parts.append(f"<p class='warn'>Not scored ({len(unpaired)}): {html.escape(', '.join(map(str, unpaired)))} — "
                     f"they share fewer than {lb.protocol.min_items} images with every reference observer in every "
                     f"condition of an experiment (see the notes).</p>")
    parts.append(f"<p class='note'>Rank sets (Mogstad, Romano, Shaikh &amp; Wilhelm 2024): <b>rank set</b> holds "
                 f"that model's true rank with {pct} confidence; <b>all at once</b> holds every model's true rank "
                 f"jointly with {pct} confidence; <b>best set</b> marks a set that holds the truly best model with "
                 f"{pct} confidence; models that share a letter in <b>group</b> are not separated by "
                 f"Holm-corrected pairwise tests at α = {1 - lb.confidence_level:.3g}.</p>")
    parts += ["<h2>Scores</h2>", _figure("Leaderboard", lambda: plot.plot_leaderboard(lb), failures)]
    return parts


def _method_section(lb) -> list[str]:
    """How the numbers were made: the bootstrap, rank stability, scores outside their intervals."""
    level = f"{lb.confidence_level * 100:g}%"
    k = len(lb.candidates)
    parts = [f"<h2>How these numbers were made</h2><p class='note'>{html.escape(lb.describe())}. {level} intervals "
             f"from a joint hierarchical bootstrap ({html.escape(str(lb.ci_method))}, B = {lb.n_resamples}): "
             f"{'clusters of items' if lb.resampled == 'clusters' else 'items'} resampled within each "
             f"condition, the same replicate for every observer, every level recomputed.</p>"]
    tau = lb.kendall_tau
    if k >= 2 and np.isfinite(tau.statistic):
        parts.append(f"<p>Rank stability: mean Kendall's τ between the ranking and the bootstrap rankings "
                     f"{_fmt(tau.statistic)} ({level} of replicates in [{_fmt(tau.confidence_interval.low)}, "
                     f"{_fmt(tau.confidence_interval.high)}]).</p>")
    else:
        parts.append("<p>Rank stability: not defined — Kendall's τ compares rankings of at least two "
                     f"candidates, and this leaderboard has {k}.</p>")
    t = lb.table
    score = t["score"].astype(float).to_numpy()
    with np.errstate(invalid="ignore"):
        outside = (score < t["ci_low"].astype(float).to_numpy()) | (score > t["ci_high"].astype(float).to_numpy())
    if outside.any():
        who = ", ".join(t.loc[outside, "observer"].astype(str))
        parts.append(f"<p class='note'>{int(outside.sum())} score(s) lie outside their {level} {lb.ci_method} "
                     f"interval ({html.escape(who)}; drawn hollow): the bootstrap distribution is skewed or shifted "
                     f"there, typically when many pair values are near a floor or ceiling. The interval is still the "
                     f"bootstrap's; read such a score with care.</p>")
    if (~np.isfinite(score)).any():
        parts.append("<p class='note'>“undefined”: no pair value could be computed for this row (e.g. the reference "
                     "row with fewer than two reference observers sharing items); no interval is shown for an "
                     "undefined score.</p>")
    return parts


def _pairwise_section(lb, pairwise, failures: list[str]) -> list[str]:
    """The difference tests: what they test, the significance matrix (all pairs), the table."""
    k, t = len(lb.candidates), lb.table
    test, adjust = pairwise["test"].iloc[0], pairwise["adjust"].iloc[0]
    what = TEST_DESCRIPTIONS.get(str(test), "")
    parts = [f"<h2>Difference tests</h2><p class='note'>{html.escape(str(test))} tests"
             + (f" ({html.escape(what)})" if what else "") + ", p-values adjusted by "
             f"{html.escape(str(adjust))} over the {len(pairwise)} pair(s) shown; significant: adjusted p "
             f"below {1 - lb.confidence_level:g}.</p>"]
    n_pairs = k * (k - 1) // 2
    if len(pairwise) == n_pairs and n_pairs > 1:
        order = [o for o in t["observer"] if o != lb.reference_row]
        parts.append(_figure("Difference tests",
                             lambda: plot.plot_pairwise_matrix(pairwise, order=order), failures))
    parts.append(_pairwise_table(pairwise, lb.confidence_level))
    return parts


def _experiment_section(lb, failures: list[str]) -> list[str]:
    """Per experiment: the panels, the rank correlation between experiments, the table (several experiments only)."""
    level = f"{lb.confidence_level * 100:g}%"
    k, t = len(lb.candidates), lb.table
    parts: list[str] = []
    breakdown = lb.by_experiment()
    if breakdown.table["experiment"].nunique() > 1:
        order = list(t["observer"])
        parts += ["<h2>Per experiment</h2>",
                  "<p class='note'>Observers in the leaderboard's order (best first, the reference row on top in "
                  "orange), the same in every panel.</p>",
                  _figure("Per experiment", lambda: plot.plot_experiments(breakdown, observers=order), failures)]
        if k >= 2:
            corr = breakdown.rank_correlation
            parts += ["<p>Kendall's τ between the candidates' rankings in each two experiments:</p>",
                      _figure("Rank correlation", lambda: plot.plot_rank_correlation(breakdown), failures),
                      "<details><summary>as a table</summary>",
                      _html_table(corr.apply(lambda c: c.map(lambda x: _fmt(x, 2))).reset_index()
                                  .rename(columns={"index": "experiment"}), text_columns=("experiment",)),
                      "</details>"]
        per = breakdown.table.copy()
        per = per.assign(score=[_fmt(s) if np.isfinite(s) else "undefined" for s in per["score"].astype(float)],
                         ci=[_ci(a, b, s) for a, b, s in zip(per["ci_low"], per["ci_high"],
                                                            breakdown.table["score"].astype(float))],
                         rank=[_int(r) for r in per["rank"]])
        parts += ["<details><summary>per-experiment scores as a table</summary>",
                  _html_table(per[["experiment", "observer", "score", "ci", "rank"]]
                              .rename(columns={"ci": f"{level} CI"}), text_columns=("experiment", "observer")),
                  "</details>"]
    return parts


#: Candidates drawn in colour in the model-vs-human figures: the best few of the leaderboard.
HIGHLIGHTED = 3


def _conditions_section(lb, failures: list[str]) -> list[str]:
    """Model-vs-human's figures with intervals: accuracy and EC against the condition, c_obs against
    c_exp, and the per-dataset table (:func:`trialwise.leaderboards.condition_breakdown`)."""
    from trialwise.leaderboards.conditions import condition_breakdown

    level = f"{lb.confidence_level * 100:g}%"
    cb = condition_breakdown(lb, rng=lb.seed)
    t = lb.table
    top = [o for o in t.loc[t["kind"] == "candidate", "observer"]][:HIGHLIGHTED]
    ref = html.escape(lb.reference_row)
    parametric = cb.conditions.groupby("experiment")["condition"].nunique()
    parts = [f"<h2>Per condition (model-vs-human's figures)</h2><p class='note'>Every number with its {level} "
             f"{html.escape(cb.ci_method)} interval from a bootstrap of its own (B = {cb.n_resamples}; items resampled "
             f"within each condition, the same replicate for every observer). The reference group is the orange band "
             f"(its value and, shaded, its interval: for accuracy the mean of its observers, for the consistency "
             f"the pairs of distinct reference observers, {ref}); the {len(top)} best-ranked candidates are in colour "
             f"with their intervals, the other {max(len(lb.candidates) - len(top), 0)} thin and grey. Accuracy "
             f"difference is the candidate's accuracy minus the reference observers' mean (signed); c_obs, c_exp and "
             f"error consistency are averaged over the candidate's pairs with the reference observers.</p>"]
    if (parametric >= 2).any():
        parts += ["<h3>Accuracy against the condition</h3>",
                  _figure("Accuracy per condition", lambda: plot.plot_conditions(cb, metric="accuracy", highlight=top),
                          failures),
                  "<h3>Error consistency against the condition</h3>",
                  _figure("Error consistency per condition",
                          lambda: plot.plot_conditions(cb, metric="error-consistency", highlight=top), failures)]
    parts += ["<h2>Observed vs expected agreement</h2>",
              "<p class='note'>One point per condition and row: mean c_exp (x) and c_obs (y) over its pairs, with "
              f"their {level} intervals as a cross; above the diagonal, agreement beyond chance (κ &gt; 0).</p>",
              _figure("Observed vs expected agreement", lambda: plot.plot_consistency(cb, highlight=top), failures)]
    wide = cb.wide()
    order = {o: i for i, o in enumerate(t["observer"])}
    wide = wide.assign(_o=wide["observer"].map(order)).sort_values(["experiment", "_o"])
    cols = {"accuracy_difference": "accuracy difference", "observed_consistency": "c_obs",
            "error_consistency": "error consistency"}
    table = wide[["experiment", "observer"]].copy()
    for c, name in cols.items():
        table[name] = [_fmt(x) if np.isfinite(x) else "" for x in wide[c].astype(float)]
        table[f"{level} CI ({name})"] = [_ci(a, b, x) if np.isfinite(x) else "" for a, b, x in
                                         zip(wide[f"{c}_low"], wide[f"{c}_high"], wide[c].astype(float))]
    parts += ["<details><summary>per dataset: accuracy difference, observed consistency, error consistency "
              "(model-vs-human's table), with intervals</summary>",
              _html_table(table, text_columns=("experiment", "observer")), "</details>"]
    return parts


def _shape_bias_section(lb, shape_bias, failures: list[str]) -> list[str]:
    """Shape bias of the cue-conflict images: the humans as one group, the candidates ordered by value."""
    level = f"{lb.confidence_level * 100:g}%"
    sb = shape_bias.to_frame()
    ranked = shape_bias.ranked(members=True)  # by value, the human group's members after its row
    groups = [o for o, kind in zip(sb["observer"], sb["kind"]) if kind == "group"]
    cands = sb[sb["observer"].isin(lb.candidates)].sort_values("shape_bias", ascending=False)["observer"].tolist()
    shown = groups + cands  # one row each, ordered by value; the humans are one group, not rows
    return ["<h2>Shape bias (cue-conflict images)</h2>",
          f"<p class='note'>Share of shape decisions among the answers that named the shape or the texture "
          f"of a cue-conflict image (Geirhos et al. 2019), per observer and group, with {level} intervals "
          f"({html.escape(str(sb['ci_method'].iloc[0]))}) from a bootstrap over images shared by all "
          f"observers. The figure orders the groups and the scored candidates by their shape bias and "
          f"draws the humans as one group: a line at the group's value (shaded: its interval) and a "
          f"lighter band over the range of the individual humans (every observer is in the table).</p>",
          _figure("Shape bias", lambda: plot.plot_shape_bias(shape_bias, observers=shown), failures),
          "<details><summary>as a table (by shape bias; the human group's members under its row)</summary>",
          _html_table(ranked.assign(observer=[f"  ↳ {o}" if m else o for o, m in zip(ranked["observer"],
                                                                                     ranked["member_of"])],
                                    shape_bias=[_fmt(x) for x in ranked["shape_bias"]],
                                    ci=[_ci(a, b, s) for a, b, s in zip(ranked["ci_low"], ranked["ci_high"],
                                                                        ranked["shape_bias"])])
                      [["observer", "kind", "shape_bias", "ci", "n_shape", "n_texture"]]
                      .rename(columns={"ci": f"{level} CI"}), text_columns=("observer", "kind")),
          "</details>"]


def write_report(lb, path: Any, *, title: str | None = None, pairwise: Any = None,
                 shape_bias: Any = None) -> Path:
    """Write ``lb`` (a :class:`trialwise.leaderboards.Leaderboard`) as one self-contained HTML file; returns its path.

    ``pairwise``: a frame from :meth:`~trialwise.leaderboards.Leaderboard.pairwise` to include (with
    ``which="all"`` it is also drawn as a significance matrix). ``shape_bias``: a
    :class:`trialwise.cue_conflict.ShapeBiasResult` to include as a section with its figure.

    Warns
    -----
    TrialwiseWarning
        A figure could not be drawn. The report is written all the same, with a note
        in the figure's place; the tables hold every number.

    Raises
    ------
    ValueError
        ``path`` is a folder or its folder does not exist.
    OSError
        The file cannot be written (permissions, full disk).
    """
    out = Path(path)
    if out.is_dir():
        raise InvalidValueError(f"{out}: is a folder; give the report's file name, e.g. {out / 'report.html'}")
    if not out.parent.is_dir():
        raise InvalidValueError(f"{out}: folder {out.parent} does not exist")
    rep = render_report(lb, title=title, pairwise=pairwise, shape_bias=shape_bias)
    out.write_text(rep.html, encoding="utf-8")
    if rep.failures:
        warn(f"the report was written, but {len(rep.failures)} figure(s) could not be drawn "
             f"({'; '.join(rep.failures)}); the tables are complete", TrialwiseWarning)
    return out
