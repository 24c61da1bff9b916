"""trialwise's accuracy leaderboard side by side with honestboard (issue 16 item 3).

Both tools get the same per-item 0/1 correctness:

1. Simulated boards with known truth: K = 12 models, the top four within one point
   (true accuracies 0.800, 0.798, 0.795, 0.790, then 0.77 … 0.60), T items (500 and 2000),
   item difficulty shared by all models (P(correct) = Φ(a_k + z_i), z_i ~ N(0, 1), so the
   models' errors are correlated as on real benchmarks; the true accuracy is
   Φ(a_k / √2)). R boards per T, B bootstrap replicates in both tools, seed 0. Measured:
   per-model CI coverage and width; rank sets (marginal: each holds that model's true rank;
   simultaneous: all hold at once) — coverage per model and jointly, mean width (high − low);
   the confidence set of the best — how often it holds the true best, its mean size; the
   winner's score — coverage of its interval for the winner's true accuracy and the bias of
   its estimate; seconds per board.
2. The bundled model-vs-human models (``tw.datasets.model_vs_human()``, the 17 experiments
   and exclusions of model-vs-human, models only): trialwise's accuracy leaderboard
   (``MODEL_VS_HUMAN.replace(metric="accuracy")``: mean over conditions, then experiments)
   and honestboard's board of the same items (every kept (experiment, condition, image),
   one flat mean); widths and set sizes (no truth to cover).

What each tool states: trialwise's ``rank_low``/``rank_high`` are marginal rank sets and
``rank_set_low``/``rank_set_high`` simultaneous ones (Mogstad, Romano, Shaikh & Wilhelm
2024), ``in_best_set`` the confidence set of the best; score CIs are studentized bootstrap
intervals. honestboard's ``rank_summary`` gives the 2.5–97.5 % percentiles of bootstrap ranks
(a per-model interval), ``confidence_set_best`` its "mcb" set (keeps a fixed true best with
probability about 1 − α) and "simultaneous" set, ``winner_adjusted`` the iterated-bootstrap
selection-adjusted score of the winner; per-model score intervals are its normal intervals
``p ± z·√Σ_kk`` (the ``naive_ci`` of ``winner_adjusted``).

honestboard is not a dependency of trialwise: ``pip install honestboard`` to run this.

    python benchmarks/calibration/honestboard_comparison.py [R] [B]     # default R = 200, B = 1000
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

import trialwise as tw

try:
    import honestboard
except ImportError:  # checked in main(): the simulation below is also used without honestboard
    honestboard = None

TRUE_ACCURACY = np.array([0.800, 0.798, 0.795, 0.790, 0.77, 0.75, 0.73, 0.71, 0.69, 0.67, 0.65, 0.60])
ALPHA = 0.05


def simulate(rng: np.random.Generator, n_items: int) -> np.ndarray:
    """K × T correctness with a shared item difficulty (see module doc)."""
    a = stats.norm.ppf(TRUE_ACCURACY) * np.sqrt(2.0)
    z = rng.standard_normal(n_items)
    return (rng.random((len(a), n_items)) < stats.norm.cdf(a[:, None] + z[None, :])).astype(np.uint8)


def trials_of(y: np.ndarray, names: list[str]) -> pd.DataFrame:
    k, t = y.shape
    return pd.DataFrame({"experiment": "sim", "condition": "all", "subject": np.repeat(names, t),
                         "observer_type": "model", "image": np.tile([f"i{i}" for i in range(t)], k),
                         "truth": "a", "response": np.where(y.ravel() == 1, "a", "b")})


def true_ranks(truth: np.ndarray) -> np.ndarray:
    """Mogstad et al.'s rank: 1 + the number of models truly better."""
    return 1 + (truth[None, :] > truth[:, None]).sum(axis=1)


def run_trialwise(y: np.ndarray, b: int, seed: int) -> dict:
    names = [f"m{k:02d}" for k in range(len(y))]
    t0 = time.perf_counter()
    lb = tw.leaderboard(trials_of(y, names), protocol="accuracy", n_resamples=b, rng=seed)
    sec = time.perf_counter() - t0
    t = lb.table.set_index("observer").loc[names]
    win = int(np.argmax(t["score"].to_numpy()))
    return {"score": t["score"].to_numpy(), "ci": t[["ci_low", "ci_high"]].to_numpy(float),
            "marginal": t[["rank_low", "rank_high"]].to_numpy(float),
            "simultaneous": t[["rank_set_low", "rank_set_high"]].to_numpy(float),
            "best": t["in_best_set"].to_numpy(bool), "best_simultaneous": None,
            "winner": win, "winner_ci": t[["ci_low", "ci_high"]].to_numpy(float)[win],
            "winner_estimate": float(t["score"].iloc[win]), "seconds": sec}


def run_honestboard(y: np.ndarray, b: int, seed: int) -> dict:
    names = [f"m{k:02d}" for k in range(len(y))]
    t0 = time.perf_counter()
    board = honestboard.Board(names, y)
    p = board.scores()
    se = np.sqrt(np.diag(board.sigma()))
    zq = stats.norm.ppf(1 - ALPHA / 2)
    ranks = {r["name"]: r for r in board.rank_summary(B=b, seed=seed)}
    mcb = set(board.confidence_set_best(alpha=ALPHA, B=b, seed=seed)["members"])
    sim = set(board.confidence_set_best(alpha=ALPHA, B=b, seed=seed, method="simultaneous")["members"])
    win = board.winner_adjusted(alpha=ALPHA, B=b, seed=seed)
    sec = time.perf_counter() - t0
    return {"score": p, "ci": np.column_stack([p - zq * se, p + zq * se]),
            "marginal": np.array([[ranks[n]["rank_lo"], ranks[n]["rank_hi"]] for n in names]),
            "simultaneous": None, "best": np.array([n in mcb for n in names]),
            "best_simultaneous": np.array([n in sim for n in names]),
            "winner": int(win["winner"]), "winner_ci": np.array(win["ci"]), "winner_estimate": win["estimate"],
            "winner_naive_ci": np.array(win["naive_ci"]), "seconds": sec}


def covers(sets: np.ndarray, rank: np.ndarray) -> np.ndarray:
    return (sets[:, 0] <= rank) & (rank <= sets[:, 1])


def simulation(r: int, b: int, n_items: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng([seed, n_items])
    truth = TRUE_ACCURACY
    rank = true_ranks(truth)
    best = rank == 1
    acc: dict[str, dict[str, list]] = {"trialwise": {}, "honestboard": {}}
    for i in range(r):
        y = simulate(rng, n_items)
        for tool, run in (("trialwise", run_trialwise), ("honestboard", run_honestboard)):
            res = run(y, b, seed=int(rng.integers(2**31)))
            rec = acc[tool]

            def add(key: str, value: float) -> None:
                rec.setdefault(key, []).append(value)

            ci = res["ci"]
            add("score CI coverage (per model)", np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1])))
            add("score CI width", np.mean(ci[:, 1] - ci[:, 0]))
            for kind in ("marginal", "simultaneous"):
                sets = res[kind]
                if sets is None:
                    continue
                c = covers(sets, rank)
                add(f"{kind} rank set: coverage per model", c.mean())
                add(f"{kind} rank set: joint coverage", float(c.all()))
                add(f"{kind} rank set: mean width", np.mean(sets[:, 1] - sets[:, 0]))
            for kind, key in (("best set", "best"), ("best set (simultaneous)", "best_simultaneous")):
                if res[key] is None:
                    continue
                add(f"{kind}: holds the true best", float(res[key][best].all()))
                add(f"{kind}: mean size", float(res[key].sum()))
            w = res["winner"]
            add("winner: CI covers its true accuracy", float(res["winner_ci"][0] <= truth[w] <= res["winner_ci"][1]))
            add("winner: bias of its score", res["winner_estimate"] - truth[w])
            if "winner_naive_ci" in res:
                add("winner: naive normal CI covers", float(res["winner_naive_ci"][0] <= truth[w] <= res["winner_naive_ci"][1]))
            add("seconds per board", res["seconds"])
        if (i + 1) % 25 == 0:
            print(f"  T = {n_items}: {i + 1}/{r} boards", file=sys.stderr, flush=True)
    keys = list(dict.fromkeys(list(acc["trialwise"]) + list(acc["honestboard"])))
    return pd.DataFrame({tool: [np.mean(acc[tool][k]) if k in acc[tool] else np.nan for k in keys]
                         for tool in acc}, index=pd.Index(keys, name=f"T = {n_items}"))


def model_vs_human(b: int, seed: int = 0) -> pd.DataFrame:
    from trialwise.leaderboards.hierarchy import build_design

    trials = tw.datasets.model_vs_human()
    trials = trials[trials["observer_type"] != "human"]
    proto = tw.leaderboards.MODEL_VS_HUMAN.replace(metric="accuracy", name="model-vs-human accuracy", min_items=1)
    t0 = time.perf_counter()
    lb = tw.leaderboard(trials, protocol=proto, n_resamples=b, rng=seed)
    sec_tw = time.perf_counter() - t0
    design = build_design(tw.read_trials(trials), proto)
    names = list(design.candidates)
    blocks = []
    for unit in design.units:
        cols = [unit.observers.index(n) for n in names]
        if not unit.seen[:, cols].all():
            raise RuntimeError(f"a model lacks items of {unit.experiment}/{unit.condition}")
        blocks.append(unit.right[:, cols].T)
    y = np.concatenate(blocks, axis=1)
    t0 = time.perf_counter()
    hb = run_honestboard(y, b, seed)
    sec_hb = time.perf_counter() - t0
    t = lb.table.set_index("observer").loc[names]
    rows = {
        "models / items": (f"{len(names)} / {y.shape[1]}", f"{len(names)} / {y.shape[1]}"),
        "score": ("mean over conditions, then experiments", "mean over all items"),
        "score CI mean width": (np.mean(t["ci_high"] - t["ci_low"]), np.mean(hb["ci"][:, 1] - hb["ci"][:, 0])),
        "marginal rank set mean width": (np.mean(t["rank_high"] - t["rank_low"]),
                                         np.mean(hb["marginal"][:, 1] - hb["marginal"][:, 0])),
        "simultaneous rank set mean width": (np.mean(t["rank_set_high"] - t["rank_set_low"]), np.nan),
        "best set size": (int(t["in_best_set"].sum()), int(hb["best"].sum())),
        "best set (simultaneous) size": (np.nan, int(hb["best_simultaneous"].sum())),
        "winner": (names[int(np.argmax(t["score"]))], names[hb["winner"]]),
        "winner's observed score": (float(t["score"].max()), float(hb["score"].max())),
        "winner's selection-adjusted score": (np.nan, hb["winner_estimate"]),
        "seconds": (sec_tw, sec_hb),
    }
    return pd.DataFrame(rows, index=["trialwise", "honestboard"]).T


def main(r: int = 200, b: int = 1000) -> None:
    if honestboard is None:
        sys.exit("benchmarks/calibration/honestboard_comparison.py compares trialwise with honestboard, which is not installed: "
                 "pip install honestboard (it is not a dependency of trialwise)")
    warnings.simplefilter("ignore", tw.TrialwiseWarning)
    print(f"honestboard {honestboard.__version__}, trialwise {tw.__version__}; R = {r}, B = {b}, seed 0\n")
    pd.set_option("display.width", 160)
    pd.set_option("display.max_colwidth", 60)
    for n_items in (500, 2000):
        print(simulation(r, b, n_items).round(3).to_string(), "\n", flush=True)
    print("model-vs-human models (B = 10000):")
    print(model_vs_human(10_000).to_string())


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
