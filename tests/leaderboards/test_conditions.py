"""Model-vs-human's numbers per condition and dataset (condition_breakdown): brute-force oracles, calibration."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

import trialwise as tw
from trialwise.leaderboards import CONDITION_METRICS, condition_breakdown, condition_order

PROTOCOL = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])


@pytest.fixture(scope="module")
def board():
    trials = tw.read_trials(tw.datasets.model_vs_human_sample())
    lb = tw.leaderboard(trials, protocol=PROTOCOL, n_resamples=200, rng=0)
    return trials, lb, condition_breakdown(lb, n_resamples=400, rng=1)


def _brute_force(trials, lb):
    """Per condition and row, from the trials by pandas and sklearn: no code of the library's design."""
    t = trials[trials["experiment"].isin(PROTOCOL.experiments)]
    for e, conds in PROTOCOL.exclude.items():
        t = t[~((t["experiment"] == e) & t["condition"].isin(conds))]
    humans = sorted(t.loc[t["observer_type"] == "human", "subject"].unique())
    rows = []
    for (e, c), g in t.groupby(["experiment", "condition"]):
        w = g.pivot_table(index="image", columns="subject", values="correct", aggfunc="first")
        hs = [h for h in humans if h in w.columns]
        human_acc = np.mean([w[h].dropna().mean() for h in hs])

        def pair(a, b):
            both = w[[a, b]].dropna()
            x, y = both[a].to_numpy(int), both[b].to_numpy(int)
            c_obs = np.mean(x == y)
            c_exp = x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean())
            kappa = cohen_kappa_score(x, y) if c_exp < 1 else np.nan
            return c_obs, c_exp, kappa

        for cand in lb.candidates:
            vals = np.array([pair(cand, h) for h in hs])
            acc = w[cand].dropna().mean()
            rows.append((e, c, cand, acc, acc - human_acc, *np.nanmean(vals, axis=0)))
        vals = np.array([pair(a, b) for i, a in enumerate(hs) for b in hs[i + 1:]])
        rows.append((e, c, lb.reference_row, human_acc, np.nan, *np.nanmean(vals, axis=0)))
    cols = ["experiment", "condition", "observer"] + [m.replace("-", "_") for m in CONDITION_METRICS]
    return pd.DataFrame(rows, columns=cols)


def test_every_number_per_condition_equals_a_brute_force_computation(board):
    trials, lb, cb = board
    ours = cb.wide("conditions").set_index(["experiment", "condition", "observer"])
    direct = _brute_force(trials, lb).set_index(["experiment", "condition", "observer"])
    assert len(ours) == len(direct)
    for m in CONDITION_METRICS:
        col = m.replace("-", "_")
        np.testing.assert_allclose(ours.loc[direct.index, col].to_numpy(float), direct[col].to_numpy(float),
                                   atol=1e-12, err_msg=m)


def test_per_dataset_values_are_means_over_conditions_and_ec_is_the_leaderboards(board):
    trials, lb, cb = board
    per = cb.wide("conditions").groupby(["experiment", "observer"])
    wide = cb.wide().set_index(["experiment", "observer"])
    for m in CONDITION_METRICS:
        col = m.replace("-", "_")
        expected = per[col].mean()
        np.testing.assert_allclose(wide.loc[expected.index, col], expected, atol=1e-12, err_msg=m)
    by = lb.by_experiment().table.set_index(["experiment", "observer"])["score"]
    np.testing.assert_allclose(wide.loc[by.index, "error_consistency"], by, atol=1e-12)


def test_intervals_hold_the_estimates_and_stay_in_range(board):
    _, _, cb = board
    for t in (cb.conditions, cb.table):
        ok = t["value"].notna()
        assert (t.loc[ok, "ci_low"] <= t.loc[ok, "ci_high"]).all()
        lo = np.where(t["metric"].isin(["error-consistency", "accuracy-difference"]), -1.0, 0.0)
        assert (t.loc[ok, "ci_low"] >= lo[ok.to_numpy()]).all() and (t.loc[ok, "ci_high"] <= 1.0).all()
        # the percentile interval of these smooth statistics holds its estimate here
        inside = (t.loc[ok, "ci_low"] <= t.loc[ok, "value"]) & (t.loc[ok, "value"] <= t.loc[ok, "ci_high"])
        assert inside.mean() > 0.97
    ref = cb.conditions[(cb.conditions["kind"] == "reference") & (cb.conditions["metric"] == "accuracy-difference")]
    assert ref["value"].isna().all() and ref["ci_low"].isna().all()


def test_seeded_reproducible_and_independent_of_threads(board):
    _, lb, cb = board
    again = condition_breakdown(lb, n_resamples=400, rng=1, workers=1)
    pd.testing.assert_frame_equal(cb.conditions, again.conditions)
    pd.testing.assert_frame_equal(cb.table, again.table)
    assert cb.n_resamples == 400 and condition_breakdown(lb, rng=1).n_resamples == 200  # at most the leaderboard's B


def test_positions_follow_the_parameter_and_result_shows_itself(board):
    _, _, cb = board
    contrast = cb.conditions[cb.conditions["experiment"] == "contrast"].drop_duplicates("condition")
    in_order = contrast.sort_values("position")
    assert list(in_order["condition"]) == condition_order(contrast["condition"], experiment="contrast")
    assert list(in_order["label"]) == [c[1:].lstrip("0") for c in in_order["condition"]]  # c05 -> 5
    assert set(in_order["parameter"]) == {"contrast (%)"}
    assert condition_order(["c30", "c05", "c100", "c01"]) == ["c01", "c05", "c30", "c100"]
    assert condition_order(["inf", "0.7", "3", "bw", "0.03"]) == ["0.03", "0.7", "3", "inf", "bw"]
    # model-vs-human's own datasets in its figures' order (the distortion growing); a label it does not have:
    # the parameter's order, as for any other dataset
    assert condition_order(["0.7", "inf", "3"], experiment="high-pass") == ["inf", "3", "0.7"]
    assert condition_order(["bw", "cr"], experiment="colour") == ["cr", "bw"]
    assert condition_order(["2-0-10", "1-0-10", "16-0-10"], experiment="eidolonIII") == ["1-0-10", "2-0-10", "16-0-10"]
    assert condition_order(["c05", "c50", "c07"], experiment="contrast") == ["c05", "c07", "c50"]
    assert condition_order(["c05", "c50"], experiment="mine") == ["c05", "c50"]
    assert repr(cb) == "ConditionBreakdown(experiments=2, conditions=6)"
    assert "Accuracy and agreement per dataset" in cb.summary()
    assert list(cb.to_frame().columns) == list(cb.frame_columns)
    assert cb.wide().shape[0] == 2 * 4


def test_bad_input(board):
    _, lb, _ = board
    with pytest.raises(tw.InvalidTypeError, match="`lb` must be a Leaderboard.*got DataFrame"):
        condition_breakdown(lb.table)
    with pytest.raises(tw.InvalidValueError, match="`n_resamples`"):
        condition_breakdown(lb, n_resamples=0)
    with pytest.raises(tw.InvalidValueError, match="`ci_method` must be 'bc'.*got 'studentized'"):
        condition_breakdown(lb, ci_method="studentized")
    acc = tw.leaderboard(tw.datasets.model_vs_human_sample(), protocol=PROTOCOL.replace(metric="accuracy"),
                         n_resamples=20, rng=0)
    with pytest.raises(tw.InvalidValueError, match="`lb` scores metric 'accuracy' against the ground truth"):
        condition_breakdown(acc)
    with pytest.raises(tw.InvalidValueError, match="`level` must be"):
        condition_breakdown(lb, n_resamples=10).wide("images")


# --------------------------------------------------------------------------- calibration

#: The simulated world: items hard with probability HARD; an observer copies "easy → right,
#: hard → wrong" with probability p (humans P_HUMAN, models P_MODEL), else is right with probability BASE.
HARD, BASE, P_HUMAN, P_MODEL = 0.35, 0.65, 0.5, 0.3


def _truth() -> dict[tuple[str, str], float]:
    """The population values of every metric of a model's row and of the humans' row."""
    def q(p):  # P(right | easy), P(right | hard)
        return p + (1 - p) * BASE, (1 - p) * BASE

    def agreement(p1, p2):
        (e1, h1), (e2, h2) = q(p1), q(p2)
        c_obs = (1 - HARD) * (e1 * e2 + (1 - e1) * (1 - e2)) + HARD * (h1 * h2 + (1 - h1) * (1 - h2))
        a1, a2 = (1 - HARD) * e1 + HARD * h1, (1 - HARD) * e2 + HARD * h2
        c_exp = a1 * a2 + (1 - a1) * (1 - a2)
        return a1, a2, c_obs, c_exp, (c_obs - c_exp) / (1 - c_exp)

    out = {}
    for row, (p1, p2) in (("model", (P_MODEL, P_HUMAN)), ("human", (P_HUMAN, P_HUMAN))):
        a1, a2, c_obs, c_exp, kappa = agreement(p1, p2)
        out.update({(row, "accuracy"): a1, (row, "observed-consistency"): c_obs,
                    (row, "expected-consistency"): c_exp, (row, "error-consistency"): kappa})
    out[("model", "accuracy-difference")] = out[("model", "accuracy")] - out[("human", "accuracy")]
    return out


def _simulate(gen, n: int, n_humans: int = 4, n_models: int = 2):
    rows = []
    for c in ("c1", "c2"):
        hard = gen.random(n) < HARD
        for name, kind, p in ([(f"h{i}", "human", P_HUMAN) for i in range(n_humans)]
                              + [(f"m{i}", "model", P_MODEL) for i in range(n_models)]):
            right = np.where(gen.random(n) < p, ~hard, gen.random(n) < BASE)
            rows.append(pd.DataFrame({"experiment": "e", "condition": c, "subject": name, "observer_type": kind,
                                      "image": [f"{c}-{i}" for i in range(n)], "correct": right.astype(int)}))
    return tw.read_trials(pd.concat(rows, ignore_index=True), correct="correct")


def _coverage(n_datasets: int, n: int, b: int, seed: int) -> pd.Series:
    gen = np.random.default_rng(seed)
    truth = _truth()
    hits = []
    for _ in range(n_datasets):
        lb = tw.leaderboard(_simulate(gen, n), protocol=tw.leaderboards.Protocol("sim"), n_resamples=20,
                            rng=gen.integers(2**32))
        cb = condition_breakdown(lb, n_resamples=b, rng=gen.integers(2**32))
        for level, t in (("condition", cb.conditions), ("dataset", cb.table)):
            for r in t.itertuples():
                key = ("human" if r.kind == "reference" else "model", r.metric)
                if key in truth:
                    hits.append((level, r.metric, r.ci_low <= truth[key] <= r.ci_high))
    frame = pd.DataFrame(hits, columns=["level", "metric", "hit"])
    return frame.groupby(["level", "metric"])["hit"].mean()


def test_intervals_cover_the_truth_fast():
    """60 simulated benchmarks of 2 conditions × 300 items, B = 300: every metric's 95 % interval
    covers its population value at a rate no Monte-Carlo error (≤ 3 SE of a binomial over the
    pooled intervals) separates from 0.95 by more than 0.05 (the full study is slow-marked)."""
    cov = _coverage(60, 300, 300, seed=3)
    assert (cov > 0.88).all(), cov.to_dict()
    assert (cov < 0.995).all(), cov.to_dict()


@pytest.mark.slow
def test_intervals_cover_the_truth_study():
    """400 simulated benchmarks of 2 conditions × 200 items, B = 1000 (the report's): 95 % intervals
    of every metric cover within 0.93 … 0.97 (3 SE of 400 benchmarks × several rows, pooled)."""
    cov = _coverage(400, 200, 1000, seed=4)
    assert (cov > 0.925).all() and (cov < 0.975).all(), cov.to_dict()
