"""Model-vs-human's figures: they draw the finished ConditionBreakdown, nothing computed."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import trialwise as tw  # noqa: E402
from trialwise.leaderboards import condition_breakdown  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def cb():
    trials = tw.datasets.model_vs_human()
    trials = trials[trials["experiment"].isin(["contrast", "rotation", "edge"])]
    lb = tw.leaderboard(trials, tw.leaderboards.MODEL_VS_HUMAN, n_resamples=100, rng=0)
    return condition_breakdown(lb, rng=0)


def _rows(cb, metric, experiment, observer):
    t = cb.conditions
    return t[(t["metric"] == metric) & (t["experiment"] == experiment) & (t["observer"] == observer)].sort_values(
        "position")


@pytest.mark.parametrize("metric", ["accuracy", "error-consistency"])
def test_panels_draw_the_reference_band_the_highlighted_lines_and_the_others_grey(cb, metric):
    cands = list(dict.fromkeys(cb.conditions.loc[cb.conditions["kind"] == "candidate", "observer"]))
    top = cands[:2]
    fig = tw.plot.plot_conditions(cb, metric=metric, highlight=top)
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == ["contrast", "rotation"]  # edge: one condition
    ax = fig.axes[0]
    ref = _rows(cb, metric, "contrast", cb.reference_row)
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    np.testing.assert_allclose(np.unique(band[np.isfinite(band)]), np.unique(np.r_[ref["ci_low"], ref["ci_high"]]),
                               atol=1e-12)  # the fill's polygon runs along the low and the high bounds
    lines = {line.get_label(): line for line in ax.get_lines()}
    for name in top:
        np.testing.assert_allclose(lines[name].get_ydata(), _rows(cb, metric, "contrast", name)["value"], atol=1e-12)
    grey = [c for c in ax.collections if c.get_label() == "other candidates"][0]
    assert len(grey.get_segments()) == len(cands) - len(top)
    # model-vs-human's figures: contrast from 50 % down to 5 %, its tick labels and axis name
    assert list(ref["condition"]) == ["c50", "c30", "c15", "c10", "c05"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["50", "30", "15", "10", "5"]
    assert ax.get_xlabel() == "contrast (%)"


def test_few_candidates_are_all_in_colour_and_many_none_by_default(cb):
    fig = tw.plot.plot_conditions(cb)
    assert not [line for line in fig.axes[0].get_lines() if line.get_label() in set(cb.conditions["observer"])]
    with pytest.raises(tw.InvalidValueError, match="`highlight`: \\['nobody'\\] are not candidates"):
        tw.plot.plot_conditions(cb, highlight="nobody")
    with pytest.raises(tw.InvalidValueError, match="`metric` must be one of"):
        tw.plot.plot_conditions(cb, metric="kappa")
    with pytest.raises(tw.InvalidValueError, match="`experiments`: \\['colour'\\] are not in the breakdown"):
        tw.plot.plot_conditions(cb, experiments=["colour"])
    with pytest.raises(tw.InvalidTypeError, match="`breakdown` must be a ConditionBreakdown.*got DataFrame"):
        tw.plot.plot_conditions(cb.table)


def test_consistency_scatter_draws_c_exp_against_c_obs_with_intervals(cb):
    name = cb.conditions.loc[cb.conditions["kind"] == "candidate", "observer"].iloc[0]
    fig = tw.plot.plot_consistency(cb, highlight=[name], experiment="contrast")
    ax = fig.axes[0]
    wide = cb.wide("conditions")
    mine = wide[(wide["experiment"] == "contrast") & (wide["observer"] == name)]
    container = [c for c in ax.containers if c.get_label() == name][0]
    x, y = container.lines[0].get_data()
    np.testing.assert_allclose(x, mine["expected_consistency"], atol=1e-12)
    np.testing.assert_allclose(y, mine["observed_consistency"], atol=1e-12)
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # beside the data
    with pytest.raises(tw.InvalidValueError, match="`experiment` 'nope' is not in the breakdown"):
        tw.plot.plot_consistency(cb, experiment="nope")
