"""The HTML report: readable numbers, figures that never assume estimate ∈ interval, tables that survive a figure."""

import dataclasses
import html as html_lib
import importlib.util
import re
import shutil
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import trialwise as tw  # noqa: E402
from trialwise.leaderboards.board import ExperimentBreakdown  # noqa: E402
from trialwise._core.format import format_pvalue  # noqa: E402
from trialwise.report.leaderboard import render_report, unscored_candidates, write_report  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def lb():
    trials = tw.datasets.model_vs_human()
    trials = trials[trials["experiment"].isin(["edge", "cue-conflict", "silhouette"])]
    return tw.leaderboard(trials, tw.leaderboards.MODEL_VS_HUMAN, n_resamples=200, rng=0)


def _text(report_html: str) -> str:
    """The visible text of the report (tags dropped, entities decoded)."""
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"src=\"data:[^\"]+\"", "", report_html)))


@pytest.mark.parametrize("p, text", [
    (0.0432, "0.0432"), (0.001, "0.001"), (0.0005, "0.0005"), (0.000499, "0.000499"), (1e-4, "0.0001"),
    (9.999e-05, "1.00e-04"), (3.2e-9, "3.20e-09"), (0.0, "< 1e-300"), (1.0, "1"), (float("nan"), ""), (None, ""),
    (pd.NA, ""),
])
def test_p_values_never_print_as_zero(p, text):
    """The one p-value format in a table cell (missing: empty): three significant digits, never rounded to 0."""
    assert format_pvalue(p, missing="") == text


def test_report_tables_show_small_p_values_in_the_one_format(lb):
    with pytest.warns(tw.MonteCarloResolutionWarning, match="B ≥ 800 needed"):  # 20 tests, B = 200
        pw = lb.pairwise(which="neighbours", test="bootstrap")
    assert pw.attrs["notes"][-1].kind == "monte-carlo-resolution"
    pw.loc[0, "pvalue"] = 1e-4
    pw.loc[0, "pvalue_adjusted"] = 2e-4
    text = _text(render_report(lb, pairwise=pw).html)
    row = pw.iloc[0]
    assert re.search(rf"{re.escape(row.observer_a)}\s+{re.escape(row.observer_b)}\s+\S+\s+\[[^]]+\]\s+0\.0001\s+0\.0002\s",
                     text), text[:2000]
    assert "-0.000" not in text and " nan" not in text


def test_figures_and_report_accept_an_estimate_outside_its_interval(lb):
    """A percentile interval need not contain its estimate (the texture-vs-shape crash): draw it, say so."""
    t = lb.table.copy()
    i = int(np.flatnonzero(t["kind"] == "candidate")[0])
    t.loc[i, "ci_low"] = t.loc[i, "score"] + 0.01       # estimate below its interval
    t.loc[i, "ci_high"] = t.loc[i, "score"] + 0.05
    t.loc[0, "ci_high"] = t.loc[0, "score"] - 0.01      # the reference row: estimate above its interval
    t.loc[0, "ci_low"] = t.loc[0, "score"] - 0.05
    edited = dataclasses.replace(lb, table=t)  # a Leaderboard is frozen: a copy with this table
    fig = tw.plot.plot_leaderboard(edited)
    ax = fig.axes[0]
    hollow = [ln for ln in ax.lines if ln.get_label() == "estimate outside its interval"]
    assert len(hollow) == 1
    np.testing.assert_allclose(hollow[0].get_xdata(), [t.loc[i, "score"]])
    segs = ax.collections[0].get_segments()            # the intervals, as drawn: [lo, hi] as given
    cand = t[t["kind"] == "candidate"]
    np.testing.assert_allclose([s[0][0] for s in segs], cand["ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segs], cand["ci_high"])
    rep = render_report(edited)
    assert rep.failures == ()
    assert f"2 score(s) lie outside their 95% {lb.ci_method} interval" in _text(rep.html)


def test_per_experiment_panels_accept_an_estimate_outside_its_interval(lb):
    b = lb.by_experiment()
    table = b.table.copy()
    table.loc[0, "ci_low"] = table.loc[0, "score"] + 0.02
    fig = tw.plot.plot_experiments(ExperimentBreakdown(table, b.rank_correlation))
    assert any(ln.get_label() == "estimate outside its interval" for ax in fig.axes for ln in ax.lines)


def test_a_failing_figure_leaves_a_note_and_the_tables(lb, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("'xerr' must not contain negative values")

    monkeypatch.setattr(tw.plot, "plot_rank_intervals", broken)
    before = plt.get_fignums()
    with pytest.warns(tw.TrialwiseWarning, match=r"1 figure\(s\) could not be drawn \(Rank sets: ValueError"):
        path = write_report(lb, tmp_path / "r.html")
    text = _text(path.read_text())
    assert "The figure could not be drawn (ValueError: 'xerr' must not contain negative values)" in text
    assert "clip-16" in text                                         # the tables are there
    assert path.read_text().count("data:image/png;base64") == 4      # and the 4 other figures
    assert plt.get_fignums() == before                                   # no figure left open


def test_report_to_a_folder_is_an_error(lb, tmp_path):
    with pytest.raises(ValueError, match="is a folder; give the report's file name"):
        write_report(lb, tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        write_report(lb, tmp_path / "no" / "r.html")


def test_unscored_candidates_are_named_in_the_report(lb):
    un = unscored_candidates(lb)
    names = set(lb.excluded.loc[lb.excluded["subject"] != "*", "subject"])
    assert set(un["observer"]) == names and len(names) == 5
    row = un.set_index("observer").loc["clip_kb"]
    assert row.missing == ["edge", "silhouette"] and row.has == ["cue-conflict"] and row.n_experiments == 3
    text = _text(render_report(lb).html)
    assert "Not scored (5): clip_kb" in text and "2 of 3: edge, silhouette" in text
    assert "`excluded`" not in text


def test_per_experiment_order_follows_the_leaderboard(lb):
    b = lb.by_experiment()
    order = list(lb.table["observer"])
    fig = tw.plot.plot_experiments(b, observers=order)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == order
    default = [t.get_text() for t in tw.plot.plot_experiments(b).axes[0].get_yticklabels()]
    mean_rank = b.table.dropna(subset=["rank"]).groupby("observer")["rank"].mean().sort_values(kind="stable")
    assert default == [lb.reference_row] + list(mean_rank.index)


def test_rank_correlation_heatmap_shows_the_breakdown(lb):
    b = lb.by_experiment()
    fig = tw.plot.plot_rank_correlation(b)
    shown = np.ma.filled(fig.axes[0].images[0].get_array(), np.nan)
    expected = b.rank_correlation.to_numpy(float).copy()
    np.fill_diagonal(expected, np.nan)
    np.testing.assert_allclose(shown, expected, equal_nan=True)


def test_chance_band_legend_names_the_range_of_n(lb):
    e = lb.entries()
    fig = tw.plot.plot_agreement(e)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert f"chance (95%), smallest n = {e['n'].min()}" in legend
    assert f"chance (95%), largest n = {e['n'].max()}" in legend
    one = tw.plot.plot_agreement(e, experiment="edge")
    assert "chance (95%), n = 160" in [t.get_text() for t in one.axes[0].get_legend().get_texts()]


def test_undefined_score_and_single_candidate_are_said_not_printed_as_nan():
    t = tw.datasets.model_vs_human("edge")
    t = t[(t["subject"] == "subject-01") | (t["subject"] == "resnet50")]   # one human: no human–human pair
    with pytest.warns(tw.TrialwiseWarning, match="only one reference observer"):
        one = tw.leaderboard(t, n_resamples=50, rng=0)
    text = _text(render_report(one).html)
    assert "undefined" in text and "[nan" not in text and "nan," not in text
    assert "Rank stability: not defined" in text
    assert "Rank intervals" not in text   # nothing to rank with one candidate
    fig = tw.plot.plot_rank_intervals(one)
    assert "undefined" in fig.axes[0].get_title()


# --------------------------------------------------------------------------- in a real browser

_RENDER = ROOT / "benchmarks" / "diagnostics" / "render_report.py"


@pytest.mark.skipif(not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")),
                    reason="needs headless Chromium (apt-get install -y chromium)")
def test_report_layout_in_a_browser(tmp_path):
    """Nothing wider than the page, no figure shrunk to fit: benchmarks/diagnostics/render_report.py's checks."""
    spec = importlib.util.spec_from_file_location("render_report", _RENDER)
    render = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = tw.leaderboard(tw.datasets.model_vs_human(), n_resamples=50, rng=0)
    with pytest.warns(tw.MonteCarloResolutionWarning, match="210 tests"):  # B = 50: no pair can be significant
        pairs = big.pairwise(which="all", test="bootstrap")
    path = big.report(tmp_path / "r.html", pairwise=pairs)
    layout = render.measure(render.chromium(), path)
    # leaderboard, ranks, tests, experiments, τ, accuracy and EC per condition, c_obs vs c_exp
    assert len(layout["images"]) == 8 and all(im["natural"] > 0 for im in layout["images"])
    assert render.problems(layout) == []


def test_report_has_model_vs_human_s_figures_and_table_per_condition():
    """Issue 32, item 4: accuracy and EC against the condition, c_obs vs c_exp, the per-dataset table."""
    trials = tw.datasets.model_vs_human()
    board = tw.leaderboard(trials[trials["experiment"].isin(["contrast", "edge"])], n_resamples=100, rng=0)
    report = render_report(board).html
    for title in ("<h2>Per condition (model-vs-human's figures)</h2>", "<h2>Observed vs expected agreement</h2>",
                  "<h3>Accuracy against the condition</h3>", "<h3>Error consistency against the condition</h3>"):
        assert title in report, title
    for title in ("Accuracy against the condition</h3>", "Error consistency against the condition</h3>",
                  "Observed vs expected agreement</h2>"):
        assert report.split(title, 1)[1].split("<h", 1)[0].count('src="data:image/png;base64,') == 1, title
    text = _text(report)
    assert "per dataset: accuracy difference, observed consistency, error consistency" in text
    assert "B = 100" in text and "the 3 best-ranked candidates are in colour" in text
    cb = tw.leaderboards.condition_breakdown(board, rng=0)  # the report's numbers, seeded as the report seeds them
    best = board.table.loc[board.table["kind"] == "candidate", "observer"].iloc[0]
    row = cb.wide().query("experiment == 'contrast' and observer == @best").iloc[0]
    assert f"{row['error_consistency']:.3f}" in text and f"{row['accuracy_difference']:.3f}" in text
    one = tw.leaderboard(trials[trials["experiment"] == "edge"], n_resamples=50, rng=0)
    text = _text(render_report(one).html)  # no dataset with two conditions: no curves, the scatter and the table
    assert "Accuracy against the condition" not in text and "Observed vs expected agreement" in text


def test_report_has_a_shape_bias_section_on_cue_conflict_trials():
    """Issue 14, item 4: shape bias with CIs in the report (the CLI passes it when the trials hold cue-conflict)."""
    trials = tw.datasets.texture_vs_shape("cue-conflict")
    keep = trials["subject"].isin(["resnet50", "vgg16-caffe"]) | (trials["observer_type"] == "human")
    trials = trials[keep.to_numpy()]
    lb = tw.leaderboard(trials, tw.leaderboards.TEXTURE_VS_SHAPE.replace(experiments=["cue-conflict"]),
                        n_resamples=100, rng=0)
    sb = tw.shape_bias(trials, groups="observer_type", n_resamples=200, rng=0)
    rep = render_report(lb, shape_bias=sb)
    assert rep.failures == ()
    html_text = rep.html
    section = html_text[html_text.index("Shape bias (cue-conflict images)"):]
    assert 'src="data:image/png;base64,' in section.split("<h2>")[0]  # the section's own figure
    text = _text(section)
    assert "resnet50" in text and "0.221" in text   # ResNet-50's published shape bias, from the table


# --------------------------------------------------------------------------- the answer on the first screen (issue 29, item 6)


@pytest.fixture(scope="module")
def three():
    """A 3-model board (model-vs-human sample, two experiments), its table edited by each test."""
    trials = tw.datasets.model_vs_human_sample()
    return tw.leaderboard(trials, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"]), n_resamples=50,
                          rng=0)


def _board(lb, rows, **changes):
    """``lb`` with its candidate rows replaced by ``rows``: (observer, score, ci_low, ci_high, rank, group, p_best)."""
    import pandas as pd

    ref = lb.table[lb.table["kind"] == "reference"]
    cand = pd.DataFrame(rows, columns=["observer", "score", "ci_low", "ci_high", "rank", "group", "p_best"])
    cand["kind"] = "candidate"
    t = pd.concat([ref, cand], ignore_index=True)[list(lb.table.columns)]
    t["rank"] = t["rank"].astype("Int64")
    return dataclasses.replace(lb, table=t, **changes)


SEPARATED = [("A", 0.3, 0.25, 0.35, 1, "a", 0.9), ("B", 0.2, 0.15, 0.25, 2, "b", 0.1), ("C", 0.1, 0.05, 0.15, 3, "c", 0.0)]


def test_headline_names_the_best_its_interval_and_that_it_is_separated(three):
    from trialwise.report.leaderboard import headline

    assert headline(_board(three, SEPARATED)) == (
        "Most human-like: A (error consistency 0.300, 95% CI [0.250, 0.350]); separated from every other candidate "
        "(Holm-corrected pairwise tests, α = 0.05); P(best) 0.900.")


def test_headline_counts_the_candidates_tied_with_the_best(three):
    from trialwise.report.leaderboard import headline

    one = [("A", 0.3, 0.25, 0.35, 1, "a", 0.6), ("B", 0.28, 0.2, 0.33, 2, "ab", 0.4), ("C", 0.1, 0.05, 0.15, 3, "b", 0)]
    assert headline(_board(three, one)).endswith(
        "not separated from 1 other candidate (it shares its tie group a: B); P(best) 0.600.")
    every = [(o, s, lo, hi, r, "a", p) for o, s, lo, hi, r, _, p in one]
    assert "not separated from the other 2 candidates (they share its tie group a: B, C)" in headline(_board(three, every))
    # the real board: three models no test separates
    assert headline(three).startswith(f"Most human-like: {three.table.loc[1, 'observer']} (error consistency ")
    assert "not separated from the other 2 candidates" in headline(three)


def test_headline_of_a_tie_at_the_top_names_every_tied_candidate(three):
    from trialwise.report.leaderboard import headline

    tie = [("A", 0.3, 0.25, 0.35, 1, "a", 0.5), ("B", 0.3, 0.24, 0.36, 1, "a", 0.5), ("C", 0.1, 0.05, 0.15, 3, "b", 0)]
    assert headline(_board(three, tie)) == (
        "Most human-like: 2 candidates tied at rank 1 with the same score, A, B (error consistency 0.300, 95% CI "
        "[0.250, 0.350]); separated from every other candidate (Holm-corrected pairwise tests, α = 0.05); "
        "P(best) 0.500, 0.500.")


def test_headline_of_a_single_candidate_and_of_undefined_scores(three):
    from trialwise.report.leaderboard import headline

    assert headline(_board(three, SEPARATED[:1])) == (
        "Most human-like: A (error consistency 0.300, 95% CI [0.250, 0.350]) — the only candidate with a score, so "
        "there is nothing to rank it against.")
    nan = float("nan")
    undefined = SEPARATED[:2] + [("C", nan, nan, nan, None, "", nan)]
    assert headline(_board(three, undefined)).endswith("P(best) 0.900; 1 candidate with an undefined score.")
    none = [(o, nan, nan, nan, None, "", nan) for o, *_ in SEPARATED]
    assert headline(_board(three, none)) == (
        "Most human-like: none — no candidate has a defined score (see the notes); 3 candidates with an undefined "
        "score.")


def test_headline_says_most_accurate_and_lower_is_better(three):
    from trialwise.report.leaderboard import headline

    acc = headline(_board(three, SEPARATED, protocol=tw.leaderboards.ACCURACY))
    assert acc.startswith("Most accurate: A (accuracy 0.300, 95% CI [0.250, 0.350]); separated")
    lower = [(o, 1 - s, 1 - hi, 1 - lo, r, g, p) for o, s, lo, hi, r, g, p in SEPARATED]
    diff = headline(_board(three, lower, protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(metric="accuracy-difference")))
    assert diff.startswith("Most human-like: A (squared accuracy difference 0.700, lower is better, 95% CI "
                           "[0.650, 0.750]); separated")


def test_headline_counts_the_unscored_candidates(lb):
    from trialwise.report.leaderboard import headline

    assert headline(lb).endswith("; 5 candidates not scored (see Left out).")


def test_report_opens_with_the_answer_and_the_table_before_the_methods(three):
    from trialwise.report.leaderboard import headline

    page = render_report(three).html
    answer = page.index(html_lib.escape(headline(three)))
    table = page.index("<table>")
    methods = page.index("joint hierarchical bootstrap")
    assert page.index("<h1>") < answer < table < methods
    assert page.index("Rank stability") > table and page.index("<img") > table
    # the answer's columns first: a narrow window shows them and scrolls (overflow-x:auto) to the rank sets
    head = re.findall(r"<th[^>]*>([^<]*)</th>", page[table:page.index("</thead>", table)])
    assert head[:5] == ["rank", "observer", "score", "95% CI", "P(best)"]
    assert "<div class='scroll'><table>" in page and ".scroll{overflow-x:auto" in page


def test_cli_prints_the_answer_after_the_table(tmp_path, capsys):
    from trialwise.cli import main

    trials = tw.datasets.model_vs_human_sample()
    path = tmp_path / "trials.csv"
    trials[trials["experiment"].isin(["colour", "contrast"])].to_csv(path, index=False)
    assert main(["leaderboard", str(path), "--experiments", "colour", "contrast", "--resamples", "50", "--seed",
                 "0", "--tests", "none"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    answer = next(i for i, line in enumerate(lines) if line.startswith("Most human-like: "))
    assert answer > next(i for i, line in enumerate(lines) if line.lstrip().startswith("3 "))  # after the table


# --------------------------------------------------------------------------- figures: one x-scale, legends outside


def _outside(fig, ax) -> bool:
    """Whether the axes' legend lies outside its data area (no overlap of the drawn boxes)."""
    fig.canvas.draw()
    leg = ax.get_legend().get_window_extent()
    box = ax.get_window_extent()
    return leg.x0 >= box.x1 or leg.x1 <= box.x0 or leg.y0 >= box.y1 or leg.y1 <= box.y0


def test_legends_are_outside_the_data_on_a_three_model_board(three):
    for fig in (tw.plot.plot_leaderboard(three), tw.plot.plot_rank_intervals(three),
                tw.plot.plot_agreement(three.entries())):
        assert _outside(fig, fig.axes[0])


def test_per_experiment_panels_share_one_x_scale(lb):
    b = lb.by_experiment()
    fig = tw.plot.plot_experiments(b)
    limits = {ax.get_xlim() for ax in fig.axes if ax.get_visible()}
    assert len(limits) == 1
    (lo, hi), = limits
    t = b.table
    assert lo < np.nanmin(t[["ci_low", "score"]].to_numpy(float)) and hi > np.nanmax(t[["ci_high", "score"]].to_numpy(float))
