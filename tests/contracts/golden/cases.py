"""Seeded outputs of the public API, flattened to ``{path: value}`` — the guard for refactors.

``python tests/contracts/golden/cases.py`` writes ``tests/contracts/golden/golden.json``; ``tests/contracts/test_golden.py``
recomputes every case and compares it with the file (numbers to 1e-12, short strings and
booleans exactly). Regenerate the file only for a named bug fix, and say so in the commit.

A case is a function returning any mix of results, arrays, frames, dicts and scalars; the
flattener walks public attributes of result objects, so a case keeps working when a result
class moves. When an attribute is *renamed*, add the old → new name to ``RENAMED`` in the
test instead of regenerating the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import numbers
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import trialwise as tw
from trialwise import comparison as cmp

HERE = Path(__file__).parent
GOLDEN = HERE / "golden.json"
LONG_TEXT = 60  # longer strings are prose (notes, summaries): not compared
BIG_ARRAY = 400  # larger arrays are stored as size, sum, sum of squares and a sample


# ---------------------------------------------------------------- flattening

def flatten(obj, prefix: str = "", out: dict | None = None, depth: int = 0) -> dict:
    """``{path: value}`` of every number, boolean and short string reachable from ``obj``."""
    out = {} if out is None else out
    if depth > 8:
        return out
    if obj is None:
        out[prefix] = None
    elif isinstance(obj, (bool, np.bool_)):
        out[prefix] = bool(obj)
    elif isinstance(obj, numbers.Number):
        out[prefix] = _number(obj)
    elif isinstance(obj, str):
        if len(obj) <= LONG_TEXT:
            out[prefix] = obj
    elif isinstance(obj, pd.DataFrame):
        for col in obj.columns:
            flatten(obj[col], f"{prefix}[{col}]", out, depth + 1)
        flatten(obj.index.to_numpy(), f"{prefix}.index", out, depth + 1)
    elif isinstance(obj, pd.Series):
        flatten(obj.to_numpy(), prefix, out, depth + 1)
    elif isinstance(obj, np.ndarray):
        _array(obj, prefix, out, depth)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            flatten(v, f"{prefix}.{k}", out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flatten(v, f"{prefix}[{i}]", out, depth + 1)
    elif dataclasses.is_dataclass(obj) or hasattr(obj, "__dict__"):
        fields = ({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
                  if dataclasses.is_dataclass(obj) else vars(obj))
        for k, v in fields.items():
            if not k.startswith("_") and not callable(v):
                flatten(v, f"{prefix}.{k}", out, depth + 1)
    return out


def _number(x):
    x = complex(x) if isinstance(x, complex) else float(x)
    if isinstance(x, complex):
        raise TypeError("complex numbers are not part of the API")
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _array(a: np.ndarray, prefix: str, out: dict, depth: int) -> None:
    if a.dtype.kind in "biuf" and a.size > BIG_ARRAY:
        f = a.astype(float).ravel()
        ok = np.isfinite(f)
        out[f"{prefix}.size"] = float(a.size)
        out[f"{prefix}.n_finite"] = float(ok.sum())
        out[f"{prefix}.sum"] = float(f[ok].sum())
        out[f"{prefix}.sumsq"] = float((f[ok] ** 2).sum())
        step = max(1, a.size // 50)
        for i in range(0, a.size, step):
            out[f"{prefix}.flat[{i}]"] = _number(f[i])
        return
    for i, v in enumerate(a.ravel().tolist() if a.dtype.kind != "O" else list(a.ravel())):
        flatten(v, f"{prefix}[{i}]", out, depth + 1)


def run(case) -> dict:
    """Flattened output of one case, with the warnings it raised (their classes, in order)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = case()
    out = flatten(value, "")
    out[".warnings"] = sorted({w.category.__name__ for w in caught})
    return out


# ---------------------------------------------------------------- data

def _pair_data(n=160, seed=11):
    g = np.random.default_rng(seed)
    truth = g.integers(0, 4, n)
    m = tw.ec.CopyModel(0.35, 0.8, 0.7)
    a, b = m.simulate_trials(n, rng=seed)
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    return a, b, truth


def _labels(n=300, k=3, seed=5):
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    logit_a = g.normal(0, 1, (n, k)); logit_a[np.arange(n), y] += 1.5
    logit_b = 0.6 * logit_a + g.normal(0, 1, (n, k)); logit_b[np.arange(n), y] += 0.5
    pa = np.exp(logit_a) / np.exp(logit_a).sum(1, keepdims=True)
    pb = np.exp(logit_b) / np.exp(logit_b).sum(1, keepdims=True)
    return y, pa.argmax(1), pb.argmax(1), pa, pb


def _correct_matrix(n_obs=6, n_items=120, missing=0.0, seed=3):
    g = np.random.default_rng(seed)
    latent = g.random(n_items)
    acc = np.linspace(0.6, 0.9, n_obs)
    x = (g.random((n_obs, n_items)) * 0.5 + latent * 0.5) < acc[:, None]
    x = x.astype(float)
    if missing:
        x[g.random(x.shape) < missing] = np.nan
    return x.T  # items × observers


_MVH = None
_TVS = None


def _mvh():
    global _MVH
    if _MVH is None:
        _MVH = tw.datasets.model_vs_human()
    return _MVH


def _tvs():
    global _TVS
    if _TVS is None:
        _TVS = tw.datasets.texture_vs_shape()
    return _TVS


def _mvh_small():
    t = _mvh()
    keep = t.experiment.isin(["cue-conflict", "edge", "sketch", "contrast"])
    models = ["resnet50", "clip-16", "vit-b-16", "alexnet"]
    return t[keep & ((t.observer_type == "human") | t.subject.isin(models))]


# ---------------------------------------------------------------- cases

CASES: dict = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


@case
def ec_ci_methods():
    a, b, truth = _pair_data()
    return {m: tw.error_consistency(a, b, ci_method=m, n_resamples=400, rng=1) for m in
            ("jeffreys", "bca", "percentile", "basic", "hdi", "analytic")}


@case
def ec_tests():
    a, b, truth = _pair_data(n=60)
    return {t: tw.error_consistency(a, b, ci_method="percentile", test=t, n_resamples=300, rng=2) for t in
            ("fisher", "boschloo", "copy-null", "asymptotic")}


@case
def ec_options():
    a, b, truth = _pair_data()
    out = {"unbiased_analytic": tw.error_consistency(a, b, ci_method="analytic", unbiased=True, n_resamples=200, rng=2),
           "unbiased_jeffreys": tw.error_consistency(a, b, unbiased=True, n_resamples=300, rng=3),
           "level90": tw.error_consistency(a, b, confidence_level=0.9, n_resamples=300, rng=4),
           "sparse_counts": tw.error_consistency(counts=[[18, 1], [1, 0]], n_resamples=300, rng=5),
           "counts": tw.error_consistency(counts=[[40, 12], [9, 19]], n_resamples=300, rng=6)}
    r = out["counts"]
    out["copy_model"] = r.copy_model
    out["copy_decomposition_b"] = r.copy_decomposition("b")
    g = np.random.default_rng(8)
    truth = g.integers(0, 3, 100)
    ra = np.where(g.random(100) < 0.7, truth, (truth + 1) % 3)
    rb = np.where(g.random(100) < 0.8, truth, (truth + 2) % 3)
    out["labels_with_truth"] = tw.error_consistency(ra, rb, truth, n_resamples=300, rng=7)
    return out


@case
def ec_difference():
    g = np.random.default_rng(12)
    n = 150
    latent = g.random(n)
    r = latent < 0.8
    x = np.where(g.random(n) < 0.5, r, g.random(n) < 0.7)
    y = np.where(g.random(n) < 0.2, r, g.random(n) < 0.75)
    out = {}
    for test in ("swap", "paper"):
        try:
            out[test] = tw.error_consistency_difference(r, x, y, test=test, n_resamples=300, rng=9)
        except ValueError as e:  # a test that this version does not offer is part of the output too
            out[test] = f"ValueError: {str(e)[:40]}"
    out["percentile"] = tw.error_consistency_difference(r, x, y, ci_method="percentile", n_resamples=300, rng=10)
    return out


@case
def pairwise_dense():
    x = _correct_matrix()
    return {m: tw.pairwise_error_consistency(x, ci_method=m, n_resamples=300, rng=11) for m in
            ("jeffreys", "percentile", "bca", "analytic")}


@case
def pairwise_missing_strata():
    x = _correct_matrix(missing=0.15)
    strata = np.repeat([0, 1, 2], 40)
    out = {"missing": tw.pairwise_error_consistency(x, n_resamples=300, rng=12),
           "strata": tw.pairwise_error_consistency(x, strata=strata, ci_method="percentile", n_resamples=300, rng=13),
           "pairs": tw.pairwise_error_consistency(x, pairs=[(0, 1), (2, 5)], n_resamples=300, rng=14,
                                                  test="copy-null")}
    r = out["missing"]
    out["frame"] = r.to_frame()
    out["matrix"] = r.matrix()
    out["pair_0_3"] = r.pair(0, 3)
    return out


@case
def kappa_functions():
    counts = np.array([[[40, 12], [9, 19]], [[5, 0], [2, 13]], [[30, 30], [20, 20]]])
    return {"kappa": tw.ec.kappa_from_counts(counts), "unbiased": tw.ec.kappa_from_counts(counts, unbiased=True),
            "variance": tw.ec.kappa_variance(counts), "stats": tw.ec.table_statistics(counts),
            "cells": tw.ec.cell_probabilities([0.2, -0.1, 0.6], [0.8, 0.7, 0.6], [0.7, 0.9, 0.55]),
            "feasible": tw.ec.feasible_accuracy([0.8, 0.6], [0.5, -0.2]),
            "bounds": tw.ec.kappa_bounds([0.8, 0.6], [0.7, 0.95]),
            "bounds_expected": tw.ec.kappa_bounds_from_expected([0.3, 0.6, 0.9]),
            "unbiased_kappa": tw.ec.unbiased_kappa([0.3, 0.5], [50, 200]),
            "copy_parameters": tw.ec.copy_parameters(counts)}


@case
def copy_model():
    m = tw.ec.CopyModel([0.0, 0.3, 0.6], 0.8, [0.7, 0.75, 0.9])
    fit = tw.ec.CopyModel.from_counts([[40, 12], [9, 19]])
    return {"model": m, "cells": m.cell_probabilities(), "exact": m.exact_table(100),
            "reversed": m.reversed(), "from_p": tw.ec.CopyModel.from_copy_probability(0.4, 0.8, 0.6),
            "fit": fit, "simulate": m.simulate(200, rng=15), "trials": m.simulate_trials(50, rng=16),
            "frame": m.to_frame()}


@case
def planning():
    return {"ci_width": tw.planning.ci_width([50, 200], 0.75, [0.7, 0.9], 0.3, n_simulations=300, rng=17),
            "plan": tw.plan_trials(0.1, 0.75, 0.75, 0.5, n_simulations=300, rng=18),
            "power": tw.planning.power_difference(0.2, 0.5, 0.9, 0.75, 0.8, n=[100, 300], n_simulations=300, rng=19),
            "power_n": tw.planning.power_difference(0.1, 0.5, 0.9, 0.75, 0.8, n_simulations=200, rng=20),
            "validate": tw.planning.validate_copy_model([60], 0.8, 0.7, 0.4, n_resamples=100, n_simulations=40, rng=21)}


@case
def validity_studies():
    grid = tw.validity.study_grid(n=(60,), accuracies=(0.7, 0.9), kappas=(0.3,))
    return {"coverage": tw.validity.coverage_study(grid, methods=("jeffreys", "percentile", "analytic"),
                                                   n_datasets=40, n_resamples=100, rng=22).table,
            "type1": tw.validity.type_one_error_study(tw.validity.study_grid(n=(60,), accuracies=(0.7, 0.9), kappas=(0.0,)), tests=("fisher", "copy-null"), n_datasets=40,
                                                      n_resamples=99, rng=23).table,
            "difference": tw.validity.difference_test_study(n=(60,), accuracy_reference=(0.8,),
                                                           accuracies_xy=((0.7, 0.8),), kappas=(0.3,),
                                                           tests=("swap",), n_datasets=30, n_resamples=99,
                                                           rng=24).table,
            "benchmark": tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=60,
                                                              n_items=80, rng=25).table,
            "benchmark_sparse": tw.validity.benchmark_coverage_study(n_datasets=2, n_resamples=60, n_items=120,
                                                                     reference_items=60, run_tests=False,
                                                                     rng=26).table}


@case
def leaderboard_model_vs_human():
    lb = tw.leaderboard(_mvh(), n_resamples=200, rng=27)
    return {"table": lb.table, "by_experiment": lb.by_experiment().table if hasattr(lb.by_experiment(), "table")
            else lb.by_experiment(), "frame": lb.to_frame()}


@case
def leaderboard_pairwise_and_difference():
    t = _mvh_small()
    lb = tw.leaderboard(t, n_resamples=200, rng=28)
    return {"pairwise": lb.pairwise(n_resamples=200), "pairwise_bootstrap": lb.pairwise(test="bootstrap"),
            "pairwise_studentized": lb.pairwise(test="studentized"),
            "difference": lb.difference("resnet50", "clip-16"),
            "difference_test": tw.leaderboards.difference_test(t, "resnet50", "clip-16", n_resamples=200, rng=29),
            "percentile": tw.leaderboard(t, n_resamples=200, ci_method="percentile", rng=30).table}


@case
def leaderboard_texture_vs_shape():
    return {"flat": tw.leaderboard(_tvs(), protocol="flat", n_resamples=200, rng=31).table,
            "protocol": tw.leaderboard(_tvs(), protocol="texture-vs-shape", n_resamples=200, rng=32).table}


@case
def shape_bias():
    r = tw.shape_bias(_tvs(), experiment="cue-conflict", groups="observer_type", n_resamples=300, rng=33)
    out = {"table": r.table if hasattr(r, "table") else r.to_frame()}
    names = [o for o in out["table"]["observer"].tolist()][:2] if "observer" in out["table"] else []
    if len(names) == 2:
        out["difference"] = r.difference(names[0], names[1])
    out["percentile"] = tw.shape_bias(_tvs(), experiment="cue-conflict", ci_method="percentile", n_resamples=300, rng=34).to_frame()
    return out


@case
def brainscore():
    t = _mvh_small()
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict", "edge", "sketch"])
    bench = tw.brainscore.BehavioralBenchmark(t, proto, n_resamples=200, n_splits=10, rng=35)
    acc = tw.brainscore.BehavioralBenchmark(t, proto, metric="accuracy-distance", n_resamples=200, n_splits=10, rng=36)
    published = {"clip-16": {"cue-conflict": 0.58, "edge": 0.62, "sketch": 0.71},
                 "resnet50": {"cue-conflict": 0.21, "edge": 0.30, "sketch": 0.45}}
    return {"ceiling": bench.ceiling, "score": bench(t[t.subject == "clip-16"]),
            "table": bench.score_table(t[t.subject.isin(["clip-16", "resnet50"])]),
            "accuracy_distance": acc(t[t.subject == "resnet50"]),
            "ceilings": tw.brainscore.ceilings(t, proto),
            "ceil": tw.brainscore.ceil_score([0.068, 0.3], [0.33, 0.5]),
            "unceil": tw.brainscore.unceil_score([0.205, 0.5], [0.33, 0.5]),
            "published": tw.brainscore.published_intervals(published, t, protocol=proto, n_resamples=200,
                                                           rng=37).table,
            "synthetic": _sample(tw.brainscore.synthetic_trials({"toy": {"cue-conflict": 0.3, "edge": 0.2,
                                                                         "sketch": 0.4}}, t, protocol=proto, rng=38))}


def _sample(frame, n=300):
    """A large frame's length and a fixed sample of its rows."""
    return {"rows": len(frame), "sample": frame.sample(min(n, len(frame)), random_state=0)}


@case
def comparison_labels():
    y, a, b, pa, pb = _labels()
    yb, ab, bb = (y == 0), (a == 0), (b == 0)
    out = {"table": cmp.contingency_table(y, a, b), "yules_q": cmp.yules_q(y, a, b)}
    for m in cmp.MCNEMAR_METHODS:
        out[f"mcnemar_{m}"] = cmp.mcnemar(y, a, b, method=m, n_resamples=999, rng=39)
    out["mcnemar_binary"] = cmp.mcnemar(yb, ab, bb)
    out["mcnemar_counts"] = cmp.mcnemar(counts=[[50, 7], [16, 27]])
    return out


@case
def comparison_agreement():
    y, a, b, pa, pb = _labels()
    out = {"matrix": cmp.agreement_matrix(a, b), "disagreement": cmp.disagreement(a, b),
           "kappa": cmp.cohen_kappa(a, b), "bowker": cmp.bowker_test(a, b),
           "stuart_maxwell": cmp.stuart_maxwell_test(a, b)}
    for s in cmp.PERMUTATION_STATISTICS:
        out[f"permutation_{s}"] = cmp.symmetry_permutation_test(a, b, statistic=s, n_resamples=999, rng=40)
    return out


@case
def comparison_probabilities():
    y, a, b, pa, pb = _labels()
    out = {}
    for s in cmp.SCORING_RULES:
        out[f"brier_{s}"] = cmp.score_difference(y, pa, pb, scoring_rule=s)
        out[f"ttest_{s}"] = cmp.paired_ttest(y, pa, pb, scoring_rule=s)
        out[f"wilcoxon_{s}"] = cmp.wilcoxon_test(y, pa, pb, scoring_rule=s)
        out[f"scores_{s}"] = cmp.sample_scores(y, pa, scoring_rule=s)
        out[f"correlation_{s}"] = cmp.error_correlation(y, pa, pb, scoring_rule=s)
    out["spearman"] = cmp.error_correlation(y, pa, pb, method="spearman")
    out["brier"] = cmp.brier_score(y, pa)
    out["bss"] = cmp.brier_skill_score(y, pa)
    for kind in cmp.CALIBRATION_KINDS:
        for strat in cmp.BIN_STRATEGIES:
            yk, pk = (y == 0, pa[:, 0]) if kind == "binary" else (y, pa)
            out[f"curve_{kind}_{strat}"] = cmp.calibration_curve(yk, pk, kind=kind, bin_strategy=strat)
            out[f"ece_{kind}_{strat}"] = cmp.expected_calibration_error(yk, pk, kind=kind, bin_strategy=strat)
    return out


@case
def comparison_auc():
    y, a, b, pa, pb = _labels()
    out = {}
    for mc in cmp.MULTI_CLASS:
        out[f"auc_{mc}"] = cmp.auc(y, pa, multi_class=mc)
        out[f"delong_{mc}"] = cmp.delong_test(y, pa, pb, multi_class=mc)
    yb = (y == 0).astype(int)
    out["binary"] = cmp.delong_test(yb, pa[:, 0], pb[:, 0])
    return out


@case
def comparison_report_and_ensemble():
    y, a, b, pa, pb = _labels()
    rep = tw.compare(y, a, b, pa, pb, n_resamples=999, rng=41)
    return {"report": rep.to_frame(), "dict": rep.to_dict(),
            "ensemble": tw.comparison.ensemble_recommendation(y, a, b, pa, pb),
            "ensemble_binary": tw.comparison.ensemble_recommendation(y == 0, a == 0, b == 0)}


def _cli(*argv):
    from trialwise import cli
    buf = io.StringIO()
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
    except SystemExit as e:
        code = e.code
    if code not in (0, None):
        raise RuntimeError(f"trialwise {' '.join(argv)} exited {code}: {err.getvalue()}")
    return {"exit": code or 0, "json": json.loads(buf.getvalue())}


@case
def cli_json(tmp=None):
    import tempfile
    y, a, b, pa, pb = _labels(n=120)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "pred.csv"
        frame = pd.DataFrame({"y": y, "m1": a, "m2": b})
        for k in range(3):
            frame[f"pa{k}"], frame[f"pb{k}"] = pa[:, k], pb[:, k]
        frame.to_csv(f, index=False)
        compare = _cli("compare", str(f), "--truth", "y", "--a", "m1", "--b", "m2",
                       "--proba-a", "pa0", "pa1", "pa2", "--proba-b", "pb0", "pb1", "pb2",
                       "--resamples", "499", "--seed", "42", "--json")
    return {"ec": _cli("ec", "--dataset", "model-vs-human", "--experiment", "cue-conflict", "--subjects",
                       "subject-01", "resnet50", "--resamples", "300", "--seed", "43", "--json"),
            "plan": _cli("plan", "--accuracy-a", "0.75", "--accuracy-b", "0.75", "--kappa", "0.5", "--half-width",
                         "0.1", "--simulations", "300", "--seed", "44", "--json", "--quiet"),
            "shape_bias": _cli("shape-bias", "--resamples", "300", "--seed", "45", "--json"),
            "compare": compare}


def compute(names=None) -> dict:
    return {name: run(CASES[name]) for name in (names or CASES)}


if __name__ == "__main__":
    names = sys.argv[1:] or None
    data = json.loads(GOLDEN.read_text()) if GOLDEN.exists() and names else {}
    data.update(compute(names))
    GOLDEN.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} ({len(data)} cases, {sum(len(v) for v in data.values())} values)")
