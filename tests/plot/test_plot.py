"""Figures: each returns its Figure, draws into a given axes, and shows the numbers it is given."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import trialwise as tw  # noqa: E402
from trialwise._stats.bounds import kappa_bounds


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("bound", ["upper", "lower"])
def test_kappa_bounds_map(bound):
    fig = tw.plot.plot_kappa_bounds(bound, resolution=51)
    ax = fig.axes[0]
    mesh = ax.collections[0]
    acc = np.linspace(0, 1, 51)
    with pytest.warns(tw.DegenerateDataWarning, match="2 of 2601"):  # (0, 0) and (1, 1): undefined (issue 29)
        lo, hi = kappa_bounds(acc[:, None], acc[None, :])
    np.testing.assert_allclose(np.ma.filled(mesh.get_array(), np.nan).reshape(51, 51), hi if bound == "upper" else lo,
                               equal_nan=True)
    with pytest.raises(ValueError, match="`bound` must be 'upper' or 'lower'"):
        tw.plot.plot_kappa_bounds("middle")


def test_ci_width_figure_draws_bands_and_literature_marks():
    n = np.array([10, 100, 1000, 10_000])[:, None]
    res = tw.planning.ci_width(n, np.array([0.6, 0.9]), np.array([0.6, 0.9]), 0.5, n_simulations=500, rng=0)
    fig, ax = plt.subplots()
    out = tw.plot.plot_ci_width(res, ax=ax)
    assert out is fig
    assert ax.get_xscale() == "log"
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == 4]
    assert len(lines) == 2
    np.testing.assert_allclose(lines[0].get_ydata(), res.median[:, 0])
    marks = [line.get_xdata()[0] for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_linestyle() == ":"]
    assert sorted(marks) == [147, 160, 600, 1280, 3222]
    with pytest.raises(TypeError, match="must be a CIWidthResult"):
        tw.plot.plot_ci_width("not a result")


def test_copy_model_validation_figure():
    val = tw.planning.validate_copy_model(np.array([200, 2000]), 0.75, 0.75, 0.5, n_resamples=500, n_simulations=500, rng=0)
    fig = tw.plot.plot_copy_model_validation(val)
    ax = fig.axes[0]
    segs = [c.get_segments() for c in ax.collections]
    assert len(segs) == 2 and len(segs[0]) == 2
    np.testing.assert_allclose([s[0][1] for s in segs[0]], val.bootstrap_low)
    np.testing.assert_allclose([s[1][1] for s in segs[1]], val.model_high)


def test_kappa_bias_figure():
    res = tw.planning.ci_width(100, 0.9, 0.9, np.linspace(0, 0.9, 7), n_simulations=500, rng=0)
    fig = tw.plot.plot_kappa_bias(res)
    line = [line for line in fig.axes[0].get_lines() if len(line.get_xdata()) == 7][0]
    np.testing.assert_allclose(line.get_ydata(), res.bias)


def test_benchmark_figures_draw_the_leaderboard(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import trialwise as tw

    trials = tw.datasets.model_vs_human()
    trials = trials[trials["experiment"].isin(["edge", "cue-conflict"])]
    lb = tw.leaderboard(trials, tw.leaderboards.MODEL_VS_HUMAN, n_resamples=200, rng=0)
    fig = tw.plot.plot_leaderboard(lb)
    pts = fig.axes[0].lines[0].get_xdata()
    cand = lb.table[lb.table["kind"] == "candidate"]
    np.testing.assert_allclose(np.asarray(pts, dtype=float), cand["score"].to_numpy(float))
    fig = tw.plot.plot_rank_intervals(lb)
    np.testing.assert_allclose(np.asarray(fig.axes[0].lines[0].get_xdata(), float), cand["rank"].to_numpy(float))
    with pytest.warns(tw.MonteCarloResolutionWarning, match="210 tests"):  # B = 200: no pair can be significant
        pw = lb.pairwise(which="all", test="bootstrap")
    fig = tw.plot.plot_pairwise_matrix(pw)
    k = len(lb.candidates)
    assert fig.axes[0].images[0].get_array().shape == (k, k)
    fig = tw.plot.plot_experiments(lb.by_experiment())
    assert sum(ax.get_visible() for ax in fig.axes) == 2
    e = lb.entries()
    fig = tw.plot.plot_agreement(e, experiment="edge")
    offsets = fig.axes[0].collections[-1].get_offsets()
    assert len(offsets) == len(e[(e["experiment"] == "edge") & e["reference"].str.contains("|", regex=False)])
    path = lb.report(tmp_path / "r.html", pairwise=pw)
    assert path.read_text().count("data:image/png") == 6  # leaderboard, ranks, tests, experiments, τ, agreement


def test_reliability_diagram_draws_the_non_empty_bins_and_reports_brier_and_ece():
    from trialwise.comparison import calibration_curve

    gen = np.random.default_rng(0)
    x = gen.normal(size=2000)
    p = 1 / (1 + np.exp(-1.5 * x))
    y = (gen.random(2000) < p).astype(int)
    sharp = 1 / (1 + np.exp(-3 * np.log(p / (1 - p))))
    good, bad = calibration_curve(y, p), calibration_curve(y, sharp)
    fig = tw.plot.plot_reliability({"logistic": good, "sharp": bad})
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    full = good.table[good.table["count"] > 0]
    np.testing.assert_allclose(lines[0].get_xdata(), full["mean_predicted"])
    np.testing.assert_allclose(lines[0].get_ydata(), full["observed"])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert f"logistic (BS={good.brier:.3f}, ECE={good.statistic:.3f})" in legend
    assert bad.statistic > good.statistic and bad.brier > good.brier          # Fig. 14.3: same ranking, worse calibration
    # class-wise curves: one line per class, into a given axes
    _, ax2 = plt.subplots()
    y3 = gen.integers(0, 3, 300)
    p3 = gen.dirichlet(np.ones(3), 300)
    cw = calibration_curve(y3, p3, kind="classwise", n_bins=5)
    assert tw.plot.plot_reliability(cw, names=["m"], ax=ax2) is ax2.figure
    assert len([ln for ln in ax2.get_lines() if ln.get_linestyle() == "-"]) == 3
    with pytest.raises(ValueError, match="at least one"):
        tw.plot.plot_reliability()
    with pytest.raises(ValueError, match=r"`names` must name each curve once; got 2 names for 1 curve\(s\)"):
        tw.plot.plot_reliability(cw, names=["m", "n"])


def test_agreement_matrix_heatmap_shows_counts_and_bowker_contributions():
    from trialwise.comparison import bowker_test

    res = bowker_test(counts=[[70, 6, 4], [10, 55, 5], [8, 7, 35]], classes="ABC")
    fig = tw.plot.plot_agreement_matrix(res)
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.images[0].get_array(), [[70, 6, 4], [10, 55, 5], [8, 7, 35]])
    texts = [t.get_text() for t in ax.texts]
    assert {"χ² 1", "χ² 1.3", "χ² 0.33"} <= set(texts)
    assert len(ax.patches) == 1                                     # the pair with the largest share (A, C)
    assert ax.patches[0].get_xy() == (-0.5, 1.5)


# --------------------------------------------------------------------------- figures draw the library's numbers


def test_ci_width_figure_marks_the_plan_and_titles_its_answer():
    from trialwise.planning.curve import interval_curve

    plan = tw.plan_trials(half_width=0.15, accuracy_a=0.8, accuracy_b=0.7, kappa=0.3, n_simulations=300, rng=1)
    fig = tw.plot.plot_ci_width(interval_curve(plan, [10, 100, 1000], rng=1), plan=plan)
    ax = fig.axes[0]
    marks = [line.get_xdata()[0] for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_linestyle() == ":"]
    assert sorted(marks) == sorted([147, 160, 600, 1280, 3222, plan.n])
    assert ax.get_title() == f"{plan.n} trials reach half-width 0.15"
    with pytest.raises(tw.InvalidTypeError, match="`plan` must be a PlanResult"):
        tw.plot.plot_ci_width(interval_curve(plan, [10, 100], rng=1), plan="plan")


def test_observed_agreement_regions_follow_kappa_bounds_and_the_binomial():
    from scipy import stats

    from trialwise.ec.observed_agreement import attainable_agreement, chance_agreement_interval

    ce = np.linspace(0, 0.99, 34)
    lo, hi = attainable_agreement(ce)
    k_lo, k_hi = tw.ec.kappa_bounds_from_expected(ce)
    np.testing.assert_allclose((lo - ce) / (1 - ce), k_lo, atol=1e-12)
    np.testing.assert_allclose((hi - ce) / (1 - ce), k_hi, atol=1e-12)
    low, high = chance_agreement_interval(ce, 400, confidence_level=0.9)
    sd = np.sqrt(ce * (1 - ce) / 400)  # Binomial(n, c_exp) / n
    np.testing.assert_allclose(high - ce, stats.norm.ppf(0.95) * sd, atol=1e-12)
    np.testing.assert_allclose(ce - low, stats.norm.ppf(0.95) * sd, atol=1e-12)
    with pytest.raises(tw.InvalidValueError, match="`n` must be positive; got 0"):
        chance_agreement_interval(0.5, [10, 0])
    with pytest.raises(tw.InvalidValueError, match=r"`c_exp` must be in \[0, 1\]"):
        chance_agreement_interval(1.5, 10)


def test_agreement_figure_draws_the_library_regions():
    from trialwise.ec.observed_agreement import attainable_agreement, chance_agreement_interval

    entries = pd.DataFrame({"experiment": "e", "n": [50, 200], "reference": ["h1", "h1|h2"],
                            "c_exp": [0.6, 0.7], "c_obs": [0.8, 0.75]})
    fig = tw.plot.plot_agreement(entries, confidence_level=0.9)
    regions = [c for c in fig.axes[0].collections if c.get_label() != "_nolegend_" and "chance" in c.get_label()
               or c.get_label() == "attainable"]
    assert [c.get_label() for c in regions] == ["attainable", "chance (90%), smallest n = 50",
                                               "chance (90%), largest n = 200"]
    ce = np.linspace(0.0, 0.999, 400)
    for region, (low, high) in zip(regions, [attainable_agreement(ce), chance_agreement_interval(ce, 50, confidence_level=0.9),
                                             chance_agreement_interval(ce, 200, confidence_level=0.9)]):
        ys = region.get_paths()[0].vertices[:, 1]
        assert np.isclose(ys, high[200]).any() and np.isclose(ys, low[200]).any()


def test_figure_argument_errors_are_the_library_s_input_errors():
    with pytest.raises(tw.InvalidValueError, match="`bound` must be 'upper' or 'lower'"):
        tw.plot.plot_kappa_bounds("middle")
    with pytest.raises(tw.InvalidTypeError, match="must be a CIWidthResult"):
        tw.plot.plot_kappa_bias("not a result")
    with pytest.raises(tw.InvalidValueError, match="needs at least one calibration curve"):
        tw.plot.plot_reliability()


def test_plot_is_split_by_domain_and_keeps_its_names():
    import trialwise.plot as plot

    modules = {getattr(plot, name).__module__ for name in plot.__all__}
    assert modules == {f"trialwise.plot.{m}" for m in ("ec", "planning", "validity", "benchmark", "comparison",
                                                       "shape_bias", "similarity", "brainscore", "model_vs_human")}
    from trialwise.plot import plot_agreement, plot_shape_bias  # the old import path

    assert plot_agreement is tw.plot.plot_agreement and plot_shape_bias is tw.plot.plot_shape_bias


def _legend_outside(fig, ax) -> bool:
    """Whether the legend of ``ax`` lies outside every axes' data area of ``fig`` (no overlap of the drawn boxes)."""
    fig.canvas.draw()
    leg = ax.get_legend().get_window_extent()
    return all(leg.x0 >= b.x1 or leg.x1 <= b.x0 or leg.y0 >= b.y1 or leg.y1 <= b.y0
               for b in (a.get_window_extent() for a in fig.axes if a.get_visible()))


def test_legends_sit_beside_the_data_in_every_figure_with_a_legend():
    """Issue 29 item 6: legends outside the data area (the leaderboard's in tests/report/test_report.py)."""
    from trialwise.comparison import calibration_curve

    gen = np.random.default_rng(0)
    y = gen.integers(0, 2, 300)
    figs = [tw.plot.plot_ci_width(tw.planning.ci_width(np.array([100, 1000])[:, None], 0.75, 0.75, 0.5, n_simulations=200,
                                              rng=0)),
            tw.plot.plot_copy_model_validation(tw.planning.validate_copy_model(np.array([200]), 0.75, 0.75, 0.5,
                                                                      n_resamples=200, n_simulations=200, rng=0)),
            tw.plot.plot_kappa_bias(tw.planning.ci_width(100, 0.9, 0.9, [0.0, 0.5], n_simulations=200, rng=0)),
            tw.plot.plot_reliability({"model": calibration_curve(y, np.clip(y * 0.6 + gen.random(300) * 0.4, 0, 1))})]
    trials = tw.datasets.model_vs_human("cue-conflict")
    bench = tw.brainscore.BehavioralBenchmark(trials, tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]), n_resamples=50,
                                   rng=0)
    figs.append(tw.plot.plot_brainscore(bench.score_table(trials[trials.subject.isin(["resnet50", "clip-16"])]),
                                        bench.ceiling))
    for fig in figs:
        ax = next(a for a in fig.axes if a.get_legend() is not None)
        assert _legend_outside(fig, ax), fig.axes[0].get_title()
