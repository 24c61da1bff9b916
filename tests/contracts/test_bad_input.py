"""The bad-input corpus (issue 14, item 12): every bad input ends well.

Each API case is ``(id, call, args, kwargs, expected class, message regex)``: ``call`` is a
public function of ``trialwise``, ``trialwise.comparison`` or ``trialwise.brainscore``
(``args``/``kwargs`` None: ``call`` is a zero-argument callable; the class may be a tuple of
accepted classes). A case passes when the call raises exactly that class or the library's
own input error of that kind (``ValueError`` → :class:`trialwise.InvalidValueError`,
``TypeError`` → :class:`trialwise.InvalidTypeError`), not another subclass such as
pandas' ``ParserError`` or numpy's ``AxisError``, from a ``raise`` statement of
trialwise (not from numpy, pandas or ``os.path``, nor from an unchecked operation inside
trialwise), with a message matching the regex — which names the argument (or the file)
and what was wrong with it. A silently accepted input fails the case ("DID NOT RAISE").

Degenerate-but-legal input is in :data:`DEGENERATE`: ``(id, call, args, kwargs,
warning class, message regex, check of the documented value)``; exactly one warning,
of the library's own class, and the documented value.

CLI cases (:data:`CLI`) are ``(id, argv, message regex)``: exit code 2 and one line
``trialwise: error: ...`` (or argparse's usage error) on stderr, never a traceback.

Grow the corpus by adding rows. Cases whose fix belongs to another module's owner are
marked ``# fixed by helper-1`` / ``# fixed by helper-3`` / ``# fixed by the lead``.
"""

from __future__ import annotations

import functools

import gzip
import hashlib
import importlib.util
import json
import re
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
import trialwise.ec.restricted
from trialwise import brainscore as bs
from trialwise import comparison as cmp
from trialwise.cli import main
from trialwise._stats.significance import check_monte_carlo_resolution

SRC = Path(tw.__file__).resolve().parent
#: With a Parquet engine installed, the four-byte "Parquet" file is a broken file, not a missing engine.
PARQUET = any(importlib.util.find_spec(m) for m in ("pyarrow", "fastparquet"))
NO_ENGINE = ((ValueError, r"table\.parquet: not a readable Parquet file") if PARQUET else
             (ImportError, r"table\.parquet: reading a Parquet file needs pyarrow, which is not installed: pip install pyarrow"))

# --------------------------------------------------------------------------- small valid inputs

_rng = np.random.default_rng(0)
N = 60
Y = _rng.choice(["car", "cat", "dog"], N)
Y[:3] = ["car", "cat", "dog"]
PA = np.where(_rng.random(N) < 0.7, Y, "dog")
PB = np.where(_rng.random(N) < 0.6, Y, "car")
CA, CB = PA == Y, PB == Y
_raw = _rng.dirichlet(np.ones(3), N)
P3A = pd.DataFrame(_raw, columns=["car", "cat", "dog"])
P3B = pd.DataFrame(_rng.dirichlet(np.ones(3), N), columns=["car", "cat", "dog"])
YB = (_rng.random(N) < 0.5).astype(int)
YB[:2] = [0, 1]
PRA = np.clip(YB * 0.6 + _rng.random(N) * 0.4, 0, 1)
PRB = _rng.random(N)
COUNTS = [[20, 10], [5, 25]]
KCOUNTS = [[10, 2, 1], [3, 12, 2], [1, 4, 9]]
WIDE = pd.DataFrame({"x": CA, "y": CB, "z": np.roll(CA, 3)}).astype(float)
NAN = float("nan")
INF = float("inf")
HUGE = 2**63
YI = pd.Series(Y).map({"car": 0, "cat": 1, "dog": 2}).to_numpy()  # option indices of Y


@cache

def _i2n():
    """A tiny 2AFC data set for the I2n cases: (model probabilities, human trials)."""
    return bs.synthetic_2afc(n_objects=3, images_per_object=2, trials_per_image=6, rng=0)


def _quietly(call, *args, **kwargs):
    """``call(*args, **kwargs)`` with the library's warnings (a skipped empty row) silenced, for an error after them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return call(*args, **kwargs)


def trials() -> pd.DataFrame:
    """A small benchmark: one experiment, two conditions of 40 images, three humans, two models."""
    rng = np.random.default_rng(1)
    rows = []
    for cond in ("c1", "c2"):
        truth = rng.choice(["cat", "dog", "car"], 40)
        for s, kind, acc in (("h1", "human", 0.8), ("h2", "human", 0.7), ("h3", "human", 0.75),
                             ("m1", "model", 0.6), ("m2", "model", 0.9)):
            resp = np.where(rng.random(40) < acc, truth, "dog")
            rows += [dict(experiment="exp", condition=cond, subject=s, observer_type=kind, image=f"{cond}-{i}",
                          truth=t, response=r) for i, (t, r) in enumerate(zip(truth, resp))]
    return tw.read_trials(pd.DataFrame(rows))


def humans() -> pd.DataFrame:
    t = trials()
    return t[t.observer_type == "human"]


def one_human() -> pd.DataFrame:
    t = trials()
    return t[t.subject.isin(["h1", "m1"])]


def bundled_plus_mine() -> pd.DataFrame:
    """Issue 14 item 6 (a): bundled rows (column 'category') concatenated with read_trials rows ('truth')."""
    cue = tw.datasets.model_vs_human("cue-conflict")
    h = cue[cue.observer_type == "human"]
    mine = h[h.subject == "subject-01"].assign(subject="mynet", observer_type="model")
    return pd.concat([h, tw.read_trials(mine)], ignore_index=True)


def numeric_conditions() -> pd.DataFrame:
    """Issue 14 item 6 (b): one observer's table read with default dtypes ('40' became 40.0)."""
    lp = tw.datasets.model_vs_human("low-pass")
    model = lp[lp.subject == "resnet50"].assign(condition=lambda f: f.condition.astype(float))
    return pd.concat([lp[lp.observer_type == "human"], model], ignore_index=True)


def few_items(n: int = 5) -> pd.DataFrame:
    """Issue 17 (HR3): ``n`` images per condition, so every pair shares fewer than min_items (20)."""
    t = trials()
    return t[(t.image.str.split("-").str[1].astype(int) < n).to_numpy()]


def answered_some(subject: str = "m1", n: int = 10) -> pd.DataFrame:
    """Issue 17 (HR3): a model that answered only ``n`` images of each condition (fewer than min_items)."""
    t = trials()
    few = (t.subject == subject) & (t.image.str.split("-").str[1].astype(int) >= n)
    return t[(~few).to_numpy()]


def quiet_board(t: pd.DataFrame, **kw) -> tw.leaderboards.Leaderboard:
    """A leaderboard whose own warnings (a candidate not scored, ...) are not the case's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tw.TrialwiseWarning)
        return tw.leaderboard(t, kw.pop("protocol", PROTO), n_resamples=kw.pop("n_resamples", 50), rng=0, **kw)


def two_clusters() -> pd.DataFrame:
    """Every condition's images in two clusters: a replicate often draws one cluster in every condition."""
    t = trials()
    return t.assign(passage=t.condition + "-" + (t.image.str.split("-").str[1].astype(int) % 2).astype(str))


def at_ceiling(who: tuple[str, ...], condition: str = "c2") -> pd.DataFrame:
    """Issue 17 (HR3): the observers ``who`` answer every image of ``condition`` right."""
    t = trials().drop(columns="correct")
    hit = (t.condition == condition) & t.subject.isin(who)
    t.loc[hit, "response"] = t.loc[hit, "truth"]
    return tw.read_trials(t)


def lone_human(condition: str = "c2") -> pd.DataFrame:
    """Issue 17 (HR3): one human (h1) in ``condition``; three in the other."""
    t = trials()
    return t[~((t.condition == condition) & t.subject.isin(["h2", "h3"])).to_numpy()]


def _undefined(lb, every, some) -> bool:
    (note,) = [n for n in lb.notes if getattr(n, "kind", "") == "undefined-conditions"]
    return note.values["every"] == every and dict(note.values["some"]) == some


PROTO = tw.leaderboards.Protocol(name="small")


@cache
def board() -> tw.leaderboards.Leaderboard:
    return tw.leaderboard(trials(), PROTO, n_resamples=20, rng=0)


def tiny_grid() -> pd.DataFrame:
    return tw.validity.study_grid(n=[50], accuracies=[0.75], kappas=[0.0])


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Bad (and one good) input files, by name."""
    d = tmp_path_factory.mktemp("bad_input")
    out = {}

    def write(name: str, data: str | bytes) -> None:
        p = d / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        out[name.replace(".", "_").replace("-", "_")] = str(p)

    good = trials().drop(columns="correct")
    write("good.csv", good.to_csv(index=False))
    write("five.csv", few_items().drop(columns="correct").to_csv(index=False))  # issue 17 (HR3)
    write("one_cluster.csv", good.assign(passage=good.condition).to_csv(index=False))
    write("ragged_short.csv", "subject,image,truth,response\ns1,i1,cat,cat\ns1,i2,dog\n")
    write("ragged_long.csv", "subject,image,truth,response\ns1,i1,cat,cat\ns1,i2,dog,cat,extra\n")
    write("trailing_sep.csv", "subject,image,truth,response\ns1,i1,cat,cat,\ns1,i2,dog,cat,\n")
    write("empty.csv", "")
    write("header_only.csv", "subject,image,truth,response\n")
    write("no_truth.csv", "subject,image,response\ns1,i1,cat\n")
    write("binary.csv", bytes(range(256)) * 4)
    blob = gzip.compress(good.to_csv(index=False).encode())
    write("truncated.csv.gz", blob[: len(blob) // 2])
    write("table.parquet", b"PAR1" + b"\0" * 64)
    write("dup.csv", "subject,image,truth,response\ns1,i1,cat,cat\ns1,i1,cat,dog\n")
    write("two_truths.csv", "subject,image,truth,response\ns1,i1,cat,cat\ns2,i1,dog,dog\n")
    write("empty_key.csv", "subject,image,truth,response\ns1,,cat,cat\n")
    probs, afc = _i2n()  # per-image metrics of `trialwise brainscore` (HB4)
    write("afc.csv", afc.to_csv(index=False))
    two = pd.concat([probs.rename_axis("image").reset_index().assign(candidate=c) for c in ("m1", "m2")])
    write("probs.csv", two.to_csv(index=False))
    write("probs_ragged.csv", two.assign(o2=np.where(two.candidate == "m2", np.nan, two.o2)).to_csv(index=False))
    write("probs_no_image.csv", two.drop(columns="image").to_csv(index=False))
    write("probs_text.csv", two.assign(o1="high").to_csv(index=False))
    write("osts.csv", "image,ost\ni1,100\ni1,110\ni2,120\ni2,125\ni3,90\ni3,99\n")
    write("osts_short.csv", "candidate,image,ost\nm1,i1,100\nm1,i2,90\n")
    write("cmp.csv", pd.DataFrame({"y": Y, "a": PA, "b": PB, "pa": PRA, "pb": PRB, "yb": YB}).to_csv(index=False))
    write("cmp_gap.csv", "y,a,b\ncat,cat,dog\ndog,,dog\n")
    write("cmp_text_proba.csv", "y,a,b,pa\n0,0,1,high\n1,1,1,0.2\n")
    write("cmp_bad_proba.csv", "y,pa,pb\n0,1.5,0.2\n1,0.3,0.9\n")
    # files from other programs (issue 17, HR3): conditions written as floats, decimal commas, no observer types
    write("cond_a.csv", "experiment,condition,image,truth,response\ne,0.10,i1,cat,cat\ne,0.10,i2,dog,cat\ne,0.5,i3,cat,cat\n")
    write("cond_b.csv", "experiment,condition,image,truth,response\ne,0.1,i1,cat,dog\ne,0.1,i2,dog,dog\ne,0.5,i3,cat,cat\n")
    write("cmp_decimal_comma.csv", "y;a;b;pa\n0;0;1;0,2\n1;1;1;0,7\n")
    write("probs_comma.csv", "subject;image;truth;response;p0;p1\ns1;i1;0;0;0,8;0,2\n")
    write("score_comma.csv", "subject;image;truth;response;s\ns1;i1;0;0;0,5\n")
    write("no_types.csv", good.drop(columns="observer_type").to_csv(index=False))
    write("latin1.csv", "subject,image,truth,response\ns1,i1,Bär,Bär\n".encode("latin-1"))
    # headers of other labs' files (HF6): two columns that differ only in case (none exactly 'subject': HF8), or
    # only in surrounding spaces
    write("case_twice.csv", "Subject,SUBJECT,image,truth,response\ns1,x,i1,cat,cat\n")
    write("space_twice.csv", "subject, subject,image,truth,response\ns1,x,i1,cat,cat\n")
    write("empty_rows_only.csv", "subject,image,truth,response\n,,,\n,,,\n")
    # an error after skipped empty rows names the row of the file (HF8): data row 4 (line 5), row 5 (line 6)
    write("gap_after_empty.csv", "subject,image,truth,response\ns1,i1,cat,cat\n,,,\n,,\ns1,,dog,dog\n")
    write("cmp_gap_after_empty.csv", "y,a,b\ncat,cat,dog\n,,\ndog,dog,dog\ncat,,cat\n")
    write("tidy_gap_after_empty.csv", "subject,image,response,truth\nA,i1,dog,dog\nB,i1,dog,cat\n,,,\nA,i2,cat,cat\n"
                                      "B,i2,,cat\n")
    raw = d / "raw-data" / "cue-conflict"
    raw.mkdir(parents=True)
    (raw / "cue-conflict_subject-01_session_1.csv").write_text("subj,session,trial,rt\nsubject-01,1,1,0.5\n")
    out["raw_data"] = str(d / "raw-data")
    (d / "empty-folder").mkdir()
    out["empty_folder"] = str(d / "empty-folder")
    out["missing"] = str(d / "missing.csv")
    out["no_folder"] = str(d / "no" / "such" / "folder" / "out.html")
    _evaluation_logs(d, out)
    return out


def _lm_eval_row(doc_id: int, lls: list[float], target: int = 0, question: str = "q", filter_key: str = "none") -> str:
    """One line of an lm-evaluation-harness samples file (0.4.x, sanitised: numbers as text)."""
    doc = {"question": question, "subject": "s"}
    return json.dumps({
        "doc_id": doc_id, "doc": doc, "target": str(target),
        "arguments": {f"gen_args_{i}": {"arg_0": "ctx", "arg_1": f" option {i}"} for i in range(len(lls))},
        "resps": [[[str(v), "False"]] for v in lls], "filtered_resps": [[str(v), "False"] for v in lls],
        "filter": filter_key, "metrics": ["acc"], "doc_hash": hashlib.sha256(question.encode()).hexdigest(),
        "prompt_hash": "p", "target_hash": "t", "acc": 1.0}) + "\n"


def _evaluation_logs(d: Path, out: dict[str, str]) -> None:
    """Bad lm-evaluation-harness and HELM logs (the formats of tests/io/test_logs_lm_eval.py, test_logs_helm.py)."""
    date = "2026-01-01T00-00-00.000000"

    def run(case: str, model: str, lines: list[str], task: str = "t") -> None:
        folder = d / case / model
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"samples_{task}_{date}.jsonl").write_text("".join(lines))
        out[case.replace("-", "_")] = str(d / case)

    good = [_lm_eval_row(i, [-0.5, -1.5, -2.0], question=f"q{i}") for i in range(3)]
    run("lme-ragged", "a", good)
    run("lme-ragged", "b", good[:2] + [_lm_eval_row(2, [-0.5, -1.5], question="q2")])
    run("lme-positive", "a", good[:2] + [_lm_eval_row(2, [0.5, -1.5, -2.0], question="q2")])
    run("lme-nan", "a", good[:2] + [_lm_eval_row(2, [float("nan"), -1.5, -2.0], question="q2")])
    run("lme-duplicate", "a", good + good[:1])
    run("lme-unaligned", "a", good)
    run("lme-unaligned", "b", good[:2])
    run("lme-filters", "a", good + [_lm_eval_row(0, [-0.5, -1.5, -2.0], question="q0", filter_key="strict")])
    run("lme-no-options", "a", [_lm_eval_row(0, [-0.5], question="q0").replace('"target": "0"', '"target": "[0, 1]"')])
    run("lme-metric-range", "a", [row.replace('"acc": 1.0', '"acc": 2.0') for row in good])
    run("lme-truncated", "a", good)
    lines = (d / "lme-truncated" / "a" / f"samples_t_{date}.jsonl")
    blob = gzip.compress(lines.read_bytes())
    lines.with_suffix(".jsonl.gz").write_bytes(blob[: len(blob) // 2])
    lines.unlink()
    (d / "notes.jsonl").write_text("{}\n")
    out["lme_not_samples"] = str(d / "notes.jsonl")
    early = d / "lme-early-broken"  # the 0.4.0/0.4.1 layout: one JSON array next to results.json, cut short
    early.mkdir()
    (early / "results.json").write_text(json.dumps({"configs": {"t": {}}, "config": {"model_args": "pretrained=m"}}))
    (early / "pretrained__m_t.jsonl").write_text("[\n  {\n    \"doc_id\": 0,\n")
    out["lme_early_broken"] = str(early)
    refs = [{"output": {"text": "x"}, "tags": []}, {"output": {"text": "y"}, "tags": []}]
    state = {"instance": {"input": {"text": "q"}, "references": refs, "split": "test", "id": "id1"},
             "train_trial_index": 0, "output_mapping": {"A": "x", "B": "y"},
             "request": {"model": "m", "model_deployment": "m", "prompt": "q"},
             "result": {"success": True, "embedding": [], "cached": False,
                        "completions": [{"text": " A", "logprob": -0.1, "tokens": []}]},
             "num_train_instances": 0, "prompt_truncated": False, "num_conditioning_tokens": 0}
    for case, method in (("helm-no-correct", "multiple_choice_joint"), ("helm-generation", "generation")):
        folder = d / case / "mmlu:model=m"
        folder.mkdir(parents=True)
        (folder / "scenario_state.json").write_text(json.dumps(
            {"adapter_spec": {"method": method, "model": "m"}, "request_states": [state]}))
        out[case.replace("-", "_")] = str(folder)
    out["helm_generation_suite"] = str(d / "helm-generation")
    right = [{"output": {"text": "x"}, "tags": []}, {"output": {"text": "y"}, "tags": ["correct"]}]
    for model in ("a", "b"):  # the joint method logs the chosen letter only: no option probabilities
        folder = d / "helm-joint" / f"mmlu:model={model}"
        folder.mkdir(parents=True)
        (folder / "scenario_state.json").write_text(json.dumps(
            {"adapter_spec": {"method": "multiple_choice_joint", "model": model},
             "request_states": [{**state, "instance": {**state["instance"], "references": right}}]}))
    out["helm_joint"] = str(d / "helm-joint")


class F:
    """A file of the ``files`` fixture, resolved when the case runs."""

    path: dict[str, str] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def __str__(self) -> str:
        return self.path[self.name]


def _resolve(x):
    return str(x) if isinstance(x, F) else x


# --------------------------------------------------------------------------- the API corpus

ec = tw.error_consistency
pw = tw.pairwise_error_consistency
ecd = tw.error_consistency_difference
A6 = [1, 0, 1, 1, 0, 1]



@functools.lru_cache(maxsize=1)
def _demo_agreement():
    return tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=50, rng=0)

def _generation_trials():
    """Two models on a generation task (read_lm_eval(score=...)): no options, scored right or wrong."""
    import pandas as pd

    return pd.DataFrame({"condition": "gsm", "image": ["d0", "d1", "d2", "d3"] * 2, "subject": ["a"] * 4 + ["b"] * 4,
                         "truth": "42", "response": "41", "correct": [True, False, True, True, False, False, True, True],
                         "n_options": 0, "probabilities": None})


def _xr():
    import xarray

    return xarray


# pandas objects holding the same items (index labels) in another order (review HR8, F1: paired by position,
# silently wrong numbers); integer indexes (row numbers) and other labels stay paired by position
_IMG = [f"im{k}" for k in range(6)]
SA = pd.Series([1, 0, 1, 1, 0, 1], index=_IMG)
SB = pd.Series([1, 1, 0, 1, 0, 0], index=_IMG)
ST = pd.Series(["cat", "dog", "cat", "eel", "dog", "cat"], index=_IMG)

API = [
    # ---- pandas indexes: the same items in another order
    ("ec-index-shuffled", ec, (SA, SB.iloc[::-1]), {}, ValueError,
     r"`a` and `b` are pandas objects with the same index labels in a different order \(row 0: 'im0' in `a`, 'im5'"),
    ("ec-truth-index-shuffled", ec, (ST, ST), dict(truth=ST.iloc[[1, 0, 2, 3, 4, 5]]), ValueError,
     r"`a` and `truth` are pandas objects with the same index labels in a different order"),
    ("pw-truth-index-shuffled", pw, (pd.DataFrame({"m1": ST, "m2": ST.iloc[::-1].to_numpy()}),),
     dict(truth=ST.iloc[::-1], n_resamples=20), ValueError, r"`correct` and `truth` are pandas objects"),
    ("ecd-index-shuffled", ecd, (SA, SB, SA.iloc[::-1]), {}, ValueError, r"`reference` and `y` are pandas objects"),
    ("compare-index-shuffled", tw.compare, (ST, ST.iloc[::-1], ST), {}, ValueError,
     r"`y_true` and `pred_a` are pandas objects"),
    # ---- error_consistency: counts
    ("ec-counts-none-and-data", ec, (CA, CB), dict(counts=COUNTS), TypeError, r"either .* or `counts`, not both"),
    ("ec-counts-str", ec, (), dict(counts="[[1,2],[3,4]]"), TypeError, r"`counts` must hold numbers"),
    ("ec-counts-objects", ec, (), dict(counts=[[None, 1], [2, 3]]), TypeError, r"`counts` must hold numbers"),
    ("ec-counts-complex", ec, (), dict(counts=[[1 + 1j, 2], [3, 4]]), TypeError, r"`counts` must hold real"),  # fixed by helper-1
    ("ec-counts-2^63", ec, (), dict(counts=[[HUGE, 2], [3, 4]]), ValueError, r"`counts` holds more than 2\*\*53"),  # fixed by helper-1
    ("ec-counts-2^64", ec, (), dict(counts=[[2**64, 2], [3, 4]]), ValueError, r"`counts` holds more than 2\*\*53"),  # fixed by helper-1
    ("ec-counts-1e19-float", ec, (), dict(counts=[[1e19, 2], [3, 4]]), ValueError, r"`counts` holds more than"),  # fixed by helper-1
    ("ec-counts-sum-overflow", ec, (), dict(counts=[[2**62, 2**62], [2**62, 2**62]]), ValueError, r"`counts` holds more than"),  # fixed by helper-1
    ("ec-counts-negative", ec, (), dict(counts=[[1, -2], [3, 4]]), ValueError, r"`counts` must be non-negative"),
    ("ec-counts-fraction", ec, (), dict(counts=[[1, 2.5], [3, 4]]), ValueError, r"`counts` must be whole numbers"),
    ("ec-counts-nan", ec, (), dict(counts=[[1, NAN], [3, 4]]), ValueError, r"`counts` must be finite"),
    ("ec-counts-inf", ec, (), dict(counts=[[1, INF], [3, 4]]), ValueError, r"`counts` must be finite"),
    ("ec-counts-3x3", ec, (), dict(counts=KCOUNTS), ValueError, r"`counts` must be a 2×2 table"),
    ("ec-counts-1d", ec, (), dict(counts=[1, 2, 3, 4]), ValueError, r"`counts` must be a 2×2 table"),
    ("ec-counts-batch", ec, (), dict(counts=[COUNTS, COUNTS]), ValueError, r"`counts` must be a 2×2 table"),
    ("ec-counts-ragged", ec, (), dict(counts=[[1, 2], [3]]), ValueError, r"`counts` must be a 2×2 table"),
    ("ec-counts-zero", ec, (), dict(counts=[[0, 0], [0, 0]]), ValueError, r"`counts` holds no items"),
    ("ec-counts-empty", ec, (), dict(counts=[]), ValueError, r"`counts`"),
    # ---- error_consistency: correctness vectors and labels
    ("ec-none", ec, (), {}, TypeError, r"needs two observers `a` and `b`"),
    ("ec-only-a", ec, (CA,), {}, TypeError, r"needs two observers `a` and `b`"),
    ("ec-b-none", ec, (CA, None), {}, TypeError, r"needs two observers"),
    ("ec-a-str", ec, ("1011", CB), {}, TypeError, r"`a` must be a 1-D array"),
    ("ec-a-scalar", ec, (1, 0), {}, ValueError, r"`a` must be 1-D"),
    ("ec-a-2d", ec, (np.c_[CA, CA], CB), {}, ValueError, r"`a` must be 1-D"),
    ("ec-a-empty", ec, ([], []), {}, ValueError, r"`a` is empty"),
    ("ec-length", ec, (CA, CB[:-1]), {}, ValueError, r"`a` has 60, `b` has 59"),
    ("ec-a-nan", ec, ([1.0, NAN, 0, 1], [1, 0, 0, 1]), {}, ValueError, r"`a` contains NaN at position 1"),
    ("ec-a-nullable-na", ec, (pd.array([True, False, pd.NA, True], dtype="boolean"), [1, 0, 0, 1]), {}, ValueError,
     r"`a` contains NaN at position 2"),  # HR8 F2/F4: was 'non-numeric values'
    ("ec-a-inf", ec, ([1.0, INF, 0, 1], [1, 0, 0, 1]), {}, ValueError, r"`a` must be binary"),
    ("ec-a-two", ec, ([1, 2, 0, 1], [1, 0, 0, 1]), {}, ValueError, r"`a` must be binary"),
    ("ec-a-labels-no-truth", ec, (PA, PB), {}, TypeError, r"`a` must hold correctness .* `truth=`"),
    ("ec-a-complex", ec, ([1j, 0, 1], [1, 0, 1]), {}, TypeError, r"`a` must hold correctness .* got dtype complex"),
    ("ec-truth-length", ec, (PA, PB), dict(truth=Y[:-1]), ValueError, r"`truth` has 59"),
    ("ec-truth-none-label", ec, (PA, PB), dict(truth=[None] + list(Y[1:])), ValueError, r"`truth` has a missing value.* at position 0"),
    ("ec-truth-nan-label", ec, (PA, PB), dict(truth=[NAN] + list(Y[1:])), ValueError, r"`truth` has a missing value.* at position 0"),
    ("ec-pd-NA-label", ec, (PA, [pd.NA] + list(PB[1:])), dict(truth=Y), ValueError, r"`b` has a missing value.* at position 0"),  # fixed by helper-1
    ("ec-pd-NA-string-dtype", ec, (pd.array(list(PA[:-1]) + [None], dtype="string"), PB), dict(truth=Y), ValueError,
     r"`a` has a missing value.* at position 59"),  # fixed by helper-1
    ("ec-truth-str", ec, (PA, PB), dict(truth="cat"), TypeError, r"`truth` must be a 1-D array"),
    # ---- error_consistency: options
    ("ec-level-95", ec, (CA, CB), dict(confidence_level=95), ValueError, r"`confidence_level` must be in \(0, 1\); got 95"),
    ("ec-level-0", ec, (CA, CB), dict(confidence_level=0), ValueError, r"`confidence_level` must be in \(0, 1\)"),
    ("ec-level-nan", ec, (CA, CB), dict(confidence_level=NAN), ValueError, r"`confidence_level` must be in \(0, 1\)"),
    ("ec-level-str", ec, (CA, CB), dict(confidence_level="95%"), TypeError, r"`confidence_level` must be a number"),
    ("ec-level-none", ec, (CA, CB), dict(confidence_level=None), TypeError, r"`confidence_level` must be a number"),
    ("ec-level-list", ec, (CA, CB), dict(confidence_level=[0.9, 0.95]), TypeError, r"`confidence_level` must be a number"),
    ("ec-ci-method", ec, (CA, CB), dict(ci_method="wilson"), ValueError, r"`ci_method` must be one of .* got 'wilson'"),
    ("ec-ci-method-none", ec, (CA, CB), dict(ci_method=None), TypeError, r"`ci_method` must be one of"),
    ("ec-test", ec, (CA, CB), dict(test="chi2"), ValueError, r"`test` must be one of"),
    ("ec-test-int", ec, (CA, CB), dict(test=1), TypeError, r"`test` must be one of"),
    ("ec-resamples-0", ec, (CA, CB), dict(n_resamples=0), ValueError, r"`n_resamples` must be an integer >= 1; got 0"),
    ("ec-resamples-neg", ec, (CA, CB), dict(n_resamples=-5), ValueError, r"`n_resamples` must be an integer >= 1"),
    ("ec-resamples-frac", ec, (CA, CB), dict(n_resamples=2.5), TypeError, r"`n_resamples` must be an integer"),
    ("ec-resamples-str", ec, (CA, CB), dict(n_resamples="1000"), TypeError, r"`n_resamples` must be an integer"),
    ("ec-resamples-none", ec, (CA, CB), dict(n_resamples=None), TypeError, r"`n_resamples` must be an integer"),
    ("ec-resamples-nan", ec, (CA, CB), dict(n_resamples=NAN), TypeError, r"`n_resamples` must be an integer"),
    ("ec-resamples-inf", ec, (CA, CB), dict(n_resamples=INF), TypeError, r"`n_resamples` must be an integer"),
    ("ec-resamples-1e30", ec, (CA, CB), dict(n_resamples=1e30, ci_method="percentile"), ValueError,
     r"`n_resamples` must be an integer in \[1, 10000000\] .* got 1e\+30"),
    ("ec-resamples-2^63", ec, (CA, CB), dict(n_resamples=HUGE), ValueError, r"`n_resamples` must be an integer in"),
    ("ec-resamples-bool", ec, (CA, CB), dict(n_resamples=True), TypeError, r"`n_resamples` must be an integer"),
    ("ec-unbiased-str", ec, (CA, CB), dict(unbiased="yes"), TypeError, r"`unbiased` must be True or False"),
    ("ec-rng-str", ec, (CA, CB), dict(rng="seed"), TypeError, r"`rng` must be None, an integer seed"),
    ("ec-rng-negative", ec, (CA, CB), dict(rng=-1), TypeError, r"`rng` must be None, an integer seed"),
    ("ec-rng-float", ec, (CA, CB), dict(rng=1.5), TypeError, r"`rng`"),
    ("ec-boschloo-huge", ec, (), dict(counts=[[250_000, 250_000], [250_000, 250_000]], test="boschloo"), ValueError,
     r"`test`.*boschloo.*n = 1000000"),  # fixed by helper-1
    # ---- pairwise_error_consistency
    ("pw-1d", pw, (np.ones(5),), {}, ValueError, r"`correct` must be 2-D"),
    ("pw-3d", pw, (np.ones((5, 2, 2)),), {}, ValueError, r"`correct` must be 2-D"),
    ("pw-no-items", pw, (np.ones((0, 3)),), {}, ValueError, r"`correct` has no items"),
    ("pw-one-observer", pw, (np.ones((5, 1)),), {}, ValueError, r"at least 2 observers"),
    ("pw-none", pw, (None,), {}, ValueError, r"`correct` must be 2-D .* got shape \(\)"),
    ("pw-str", pw, ("abc",), {}, ValueError, r"`correct` must be 2-D"),
    ("pw-three", pw, (np.full((4, 2), 3.0),), {}, ValueError, r"`correct` must be 0/1 \(NaN = not seen\)"),
    ("pw-inf", pw, (np.array([[1.0, INF], [0, 1]]),), {}, ValueError, r"`correct` must be 0/1"),
    ("pw-labels", pw, (np.array([["a", "b"], ["c", "d"]], dtype=object),), {}, TypeError, r"pass `truth=`"),
    ("pw-long-trials", pw, (pd.DataFrame({"subject": ["a", "b", "a", "b"], "image": ["i1", "i1", "i2", "i2"],
                                         "correct": [True, False, True, True]}),), {}, ValueError,
     r"`correct` is a long table of trials .*pivot_table"),  # read_trials' table given as it is (a newcomer's run)
    ("pw-truth-length", pw, (pd.DataFrame({"x": PA, "y": PB}),), dict(truth=Y[:5]), ValueError, r"`truth` must have one label per item"),
    ("pw-pairs-unknown", pw, (WIDE,), dict(pairs=[("x", "q")]), ValueError, r"`pairs` names observer 'q'"),
    ("pw-pairs-self", pw, (WIDE,), dict(pairs=[("x", "x")]), ValueError, r"pairs observer 'x' with itself"),
    ("pw-pairs-str", pw, (WIDE,), dict(pairs=["xy"]), ValueError, r"`pairs`"),
    ("pw-pairs-empty", pw, (WIDE,), dict(pairs=[]), ValueError, r"`pairs` is empty"),
    ("pw-one-cluster", pw, (WIDE,), dict(clusters=np.zeros(len(WIDE)), n_resamples=5, rng=0), ValueError,
     r"`clusters` needs at least 2 clusters; got 1"),  # HR8 F2: was a NaN interval and p, silently
    ("pw-keep-replicates-str", pw, (WIDE,), dict(keep_replicates="yes"), TypeError,
     r"`keep_replicates` must be True, False or None; got 'yes'"),
    ("pw-pairs-int", pw, (WIDE,), dict(pairs=3), TypeError, r"`pairs`"),  # fixed by the lead
    ("pw-client-address", pw, (WIDE,), dict(client="tcp://127.0.0.1:8786"), TypeError,
     r"`client` must be a dask.distributed.Client \(or None\); got 'tcp://127.0.0.1:8786' of type str"),
    ("pw-strata-length", pw, (WIDE,), dict(strata=[1, 2, 3]), ValueError, r"`strata` must have one label per item"),
    ("pw-strata-nan", pw, (WIDE,), dict(strata=[NAN] * N, ci_method="percentile", n_resamples=10), ValueError,
     r"`strata` has a missing value"),
    ("pw-strata-one-nan", pw, (WIDE,), dict(strata=["a"] * (N - 1) + [NAN], ci_method="percentile", n_resamples=10),
     ValueError, r"`strata` has a missing value \(NaN/None\) at position 59"),
    ("pw-strata-none", pw, (WIDE,), dict(strata=["a"] * (N - 1) + [None], ci_method="percentile", n_resamples=10),
     ValueError, r"`strata` has a missing value"),
    ("pw-strata-pd-NA", pw, (WIDE,), dict(strata=pd.array(["a"] * (N - 1) + [None], dtype="string"),
                                          ci_method="percentile", n_resamples=10), ValueError, r"`strata` has a missing"),
    ("pw-resamples-1e30", pw, (WIDE,), dict(n_resamples=1e30, ci_method="percentile"), ValueError, r"`n_resamples` must be an integer in"),
    ("pw-resamples-neg", pw, (WIDE,), dict(n_resamples=-1), ValueError, r"`n_resamples`"),
    ("pw-batch-0", pw, (WIDE,), dict(batch=0, ci_method="percentile", n_resamples=10), ValueError, r"`batch` must be an integer >= 1"),
    ("pw-batch-str", pw, (WIDE,), dict(batch="big", ci_method="percentile", n_resamples=10), TypeError, r"`batch`"),
    ("pw-level", pw, (WIDE,), dict(confidence_level=1.5), ValueError, r"`confidence_level`"),
    # ---- error_consistency_difference
    ("ecd-none", ecd, (), {}, TypeError, r"`reference`|counts"),
    ("ecd-length", ecd, (CA, CB, CA[:-1]), {}, ValueError, r"`y` has 59|same length"),
    ("ecd-nan", ecd, ([1.0, NAN, 1, 0], [1, 0, 1, 0], [0, 1, 1, 0]), {}, ValueError, r"`reference` contains NaN"),
    ("ecd-counts-shape", ecd, (), dict(counts=COUNTS), ValueError, r"`counts`"),
    ("ecd-counts-negative", ecd, (), dict(counts=-np.ones((2, 2, 2), int)), ValueError, r"`counts`"),
    ("ecd-counts-complex", ecd, (), dict(counts=np.ones((2, 2, 2)) * 1j), TypeError, r"`counts`"),
    ("ecd-test", ecd, (CA, CB, np.roll(CA, 3)), dict(test="t"), ValueError, r"`test` must be one of"),
    ("ecd-resamples-1e30", ecd, (CA, CB, np.roll(CA, 3)), dict(n_resamples=1e30), ValueError, r"`n_resamples`"),
    ("ecd-level", ecd, (CA, CB, np.roll(CA, 3)), dict(confidence_level=-1), ValueError, r"`confidence_level`"),
    ("ecd-ci-method", ecd, (CA, CB, np.roll(CA, 3)), dict(ci_method="wald"), ValueError, r"`ci_method` must be one of"),
    # ---- the restricted Wald test (ec/restricted.py)
    ("rw-shape", trialwise.ec.restricted.restricted_wald_pvalues, (COUNTS,), {}, ValueError, r"`counts` must have shape \(\.\.\., 2, 2, 2\)"),
    ("rw-negative", trialwise.ec.restricted.restricted_wald_pvalues, (-np.ones((2, 2, 2), int),), {}, ValueError, r"`counts` must be non-negative"),
    ("rw-text", trialwise.ec.restricted.restricted_wald_pvalues, (np.full((2, 2, 2), "a"),), {}, TypeError, r"`counts` must hold numbers"),
    ("rw-smoothing-0", trialwise.ec.restricted.restricted_wald_pvalues, (np.ones((2, 2, 2), int),), dict(smoothing=0), ValueError,
     r"`smoothing` must be positive"),
    ("rw-smoothing-array", trialwise.ec.restricted.constrained_cells, (np.ones((2, 2, 2), int),), dict(smoothing=[0.5, 1]), ValueError,
     r"`smoothing` must be one number"),
    ("rw-level", trialwise.ec.restricted.restricted_wald_interval, (np.ones((2, 2, 2), int),), dict(confidence_level=95), ValueError,
     r"`confidence_level`"),
    # ---- kappa and table functions (_stats/kappa.py)
    ("kfc-str", tw.ec.kappa_from_counts, ("abc",), {}, TypeError, r"`counts`"),  # fixed by helper-1
    ("kfc-negative", tw.ec.kappa_from_counts, ([[1, -1], [1, 1]],), {}, ValueError, r"`counts` must be non-negative"),  # fixed by helper-1
    ("kfc-shape", tw.ec.kappa_from_counts, ([1, 2, 3],), {}, ValueError, r"`counts`"),  # fixed by helper-1
    ("kfc-nan", tw.ec.kappa_from_counts, ([[1, NAN], [1, 1]],), {}, ValueError, r"`counts` must be finite"),  # fixed by helper-1
    ("kfc-complex", tw.ec.kappa_from_counts, ([[1j, 1], [1, 1]],), {}, TypeError, r"`counts`"),  # fixed by helper-1
    ("kfc-2^63", tw.ec.kappa_from_counts, ([[HUGE, 1], [1, 1]],), {}, ValueError, r"`counts`"),  # fixed by helper-1
    ("kfc-unbiased-str", tw.ec.kappa_from_counts, (COUNTS,), dict(unbiased="no"), TypeError, r"`unbiased`"),  # fixed by helper-1
    ("ts-shape", tw.ec.table_statistics, ([[1, 2, 3]],), {}, ValueError, r"`counts`"),  # fixed by helper-1
    ("ts-none", tw.ec.table_statistics, (None,), {}, TypeError, r"`counts`"),  # fixed by helper-1
    ("kv-negative", tw.ec.kappa_variance, ([[1, -1], [1, 1]],), {}, ValueError, r"`counts`"),  # fixed by helper-1
    ("kv-str", tw.ec.kappa_variance, ([["a", "b"], ["c", "d"]],), {}, TypeError, r"`counts`"),  # fixed by helper-1
    ("uk-kappa-2", tw.ec.unbiased_kappa, (2.0, 100), {}, ValueError, r"`kappa` must be in \[-1, 1\]"),  # fixed by helper-1
    ("uk-n-0", tw.ec.unbiased_kappa, (0.5, 0), {}, ValueError, r"`n`"),  # fixed by helper-1
    ("uk-n-frac", tw.ec.unbiased_kappa, (0.5, 10.5), {}, ValueError, r"`n`"),  # fixed by helper-1
    ("uk-n-str", tw.ec.unbiased_kappa, (0.5, "100"), {}, TypeError, r"`n`"),  # fixed by helper-1
    ("uk-broadcast", tw.ec.unbiased_kappa, ([0.1, 0.2], [10, 20, 30]), {}, ValueError, r"`kappa` .*`n`.*broadcast"),  # fixed by helper-1
    ("kb-range", tw.ec.kappa_bounds, (1.2, 0.5), {}, ValueError, r"`accuracy_a` must be in \[0, 1\]; got 1.2"),
    ("kb-nan", tw.ec.kappa_bounds, (0.5, NAN), {}, ValueError, r"`accuracy_b` must not contain NaN"),
    ("kb-inf", tw.ec.kappa_bounds, (0.5, INF), {}, ValueError, r"`accuracy_b` must be in \[0, 1\]"),
    ("kb-str", tw.ec.kappa_bounds, ("high", 0.5), {}, TypeError, r"`accuracy_a` must be numeric"),
    ("kb-none", tw.ec.kappa_bounds, (None, 0.5), {}, TypeError, r"`accuracy_a` must be numeric"),
    ("kb-broadcast", tw.ec.kappa_bounds, ([0.5, 0.6], [0.5, 0.6, 0.7]), {}, ValueError,
     r"`accuracy_a` \(shape \(2,\)\) and `accuracy_b` \(shape \(3,\)\) cannot be broadcast"),  # fixed by helper-1
    ("kbe-range", tw.ec.kappa_bounds_from_expected, (-0.1,), {}, ValueError, r"`c_exp` must be in \[0, 1\]"),
    ("kbe-str", tw.ec.kappa_bounds_from_expected, ("x",), {}, TypeError, r"`c_exp`"),
    ("fa-edge", tw.ec.feasible_accuracy, (1.0, 0.5), {}, ValueError, r"`accuracy_a` must be in \(0, 1\)"),
    ("fa-kappa", tw.ec.feasible_accuracy, (0.5, 1.5), {}, ValueError, r"`kappa` must be in \[-1, 1\]; got 1.5"),
    ("fa-broadcast", tw.ec.feasible_accuracy, ([0.5, 0.6], [0.1, 0.2, 0.3]), {}, ValueError,
     r"`accuracy_a` .*`kappa` .*cannot be broadcast"),  # fixed by helper-1
    ("cp-range", tw.ec.cell_probabilities, (0.5, 1.5, 0.5), {}, ValueError, r"`accuracy_a` must be in \[0, 1\]"),
    ("cp-infeasible", tw.ec.cell_probabilities, (0.9, 0.9, 0.1), {}, ValueError, r"`kappa`"),
    ("cp-broadcast", tw.ec.cell_probabilities, ([0.1, 0.2], [0.5, 0.6, 0.7], 0.5), {}, ValueError,
     r"`kappa` .*`accuracy_a` .*cannot be broadcast"),  # fixed by helper-1
    # ---- copy model
    ("cm-kappa-range", tw.ec.CopyModel, (1.5, 0.5, 0.5), {}, ValueError, r"`kappa` must be in \[-1, 1\]"),
    ("cm-ref-edge", tw.ec.CopyModel, (0.5, 1.0, 0.5), {}, ValueError, r"`accuracy_reference` must be in \(0, 1\)"),
    ("cm-infeasible", tw.ec.CopyModel, (0.9, 0.9, 0.1), {}, ValueError, r"cannot produce `kappa` = 0.9"),
    ("cm-nan", tw.ec.CopyModel, (NAN, 0.5, 0.5), {}, ValueError, r"`kappa` must not contain NaN"),
    ("cm-str", tw.ec.CopyModel, ("a", 0.5, 0.5), {}, TypeError, r"`kappa` must be numeric"),
    ("cm-none", tw.ec.CopyModel, (0.5, None, 0.5), {}, TypeError, r"`accuracy_reference` must be numeric"),
    ("cm-broadcast", tw.ec.CopyModel, ([0.1, 0.2], [0.5, 0.6, 0.7], 0.5), {}, ValueError,
     r"`kappa` \(shape \(2,\)\), `accuracy_reference` \(shape \(3,\)\) and `accuracy_other` \(shape \(\)\) cannot be broadcast"),
    ("cm-reference", tw.ec.CopyModel, (0.5, 0.5, 0.5), dict(reference_observer="c"), ValueError, r"`reference_observer` must be one of"),
    ("cm-from-p-broadcast", tw.ec.CopyModel.from_copy_probability, ([0.1, 0.2], [0.5, 0.6, 0.7], 0.5), {}, ValueError,
     r"`p_copy` .*`accuracy_reference` .*cannot be broadcast"),
    ("cm-from-p-range", tw.ec.CopyModel.from_copy_probability, (1.5, 0.5, 0.5), {}, ValueError, r"`p_copy` must be in \[-1, 1\]"),
    ("cm-from-counts-shape", tw.ec.CopyModel.from_counts, ([1, 2],), {}, ValueError, r"`counts` must be a 2×2 table"),
    ("cm-simulate-n-0", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(0), None, None, ValueError, r"`n` must hold positive whole numbers"),
    ("cm-simulate-n-str", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate("10"), None, None, TypeError, r"`n` must be a positive integer"),
    ("cm-simulate-n-huge", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(HUGE), None, None, ValueError, r"`n` must be at most 2\*\*53"),
    ("cm-simulate-broadcast", lambda: tw.ec.CopyModel([0.1, 0.2], 0.6, 0.6).simulate([10, 20, 30]), None, None, ValueError,
     r"`n` \(shape \(3,\)\) and the model's grid \(shape \(2,\)\) cannot be broadcast"),
    ("cm-simulate-size-0", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(10, size=0), None, None, ValueError, r"`size` must be an integer >= 1"),
    ("cm-simulate-size-huge", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(10, size=(10**6, 10**4)), None, None, ValueError,
     r"simulate 1e\+10 tables .* lower size"),
    ("cm-simulate-workers-0", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(10, workers=0), None, None, ValueError,
     r"`workers` must be None \(all cores\) or an integer >= 1; got 0"),
    ("cm-simulate-workers-neg", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(10, workers=-3), None, None, ValueError, r"`workers`"),
    ("cm-simulate-workers-str", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate(10, workers="all"), None, None, TypeError, r"`workers`"),
    ("cm-trials-huge", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate_trials(10**12), None, None, ValueError,
     r"simulate 1e\+12 trials .* lower n and size"),
    ("cm-trials-n-0", lambda: tw.ec.CopyModel(0.5, 0.75, 0.75).simulate_trials(0), None, None, ValueError, r"`n` must be an integer >= 1"),
    ("cm-exact-broadcast", lambda: tw.ec.CopyModel([0.1, 0.2], 0.6, 0.6).exact_table([10, 20, 30]), None, None, ValueError,
     r"`n` \(shape \(3,\)\).* cannot be broadcast"),
    ("cp-params-shape", tw.ec.copy_parameters, ([1, 2, 3],), {}, ValueError, r"`counts`"),  # a bare asarray today
    # ---- planning (planning/trials.py)
    ("plan-hw-str", tw.plan_trials, ("abc", 0.75, 0.75, 0.5), {}, TypeError, r"`half_width` must be a number"),  # fixed by helper-1
    ("plan-hw-none", tw.plan_trials, (None, 0.75, 0.75, 0.5), {}, TypeError, r"`half_width` must be a number"),  # fixed by helper-1
    ("plan-hw-list", tw.plan_trials, ([0.05], 0.75, 0.75, 0.5), {}, TypeError, r"`half_width` must be a number"),  # fixed by helper-1
    ("plan-hw-0", tw.plan_trials, (0.0, 0.75, 0.75, 0.5), {}, ValueError, r"`half_width` must be in \(0, 1\)"),
    ("plan-hw-nan", tw.plan_trials, (NAN, 0.75, 0.75, 0.5), {}, ValueError, r"`half_width` must be in \(0, 1\)"),
    ("plan-acc", tw.plan_trials, (0.05, 1.5, 0.75, 0.5), {}, ValueError, r"`accuracy_a`"),
    ("plan-kappa", tw.plan_trials, (0.05, 0.75, 0.75, 2.0), {}, ValueError, r"`kappa`"),
    ("plan-grid", tw.plan_trials, (0.05, [0.7, 0.8], 0.75, 0.5), {}, TypeError, r"`accuracy_a` must be a single number"),
    ("plan-sims-1e30", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(n_simulations=1e30), ValueError, r"`n_simulations` must be an integer in"),
    ("plan-nmax-0", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(n_max=0), ValueError, r"`n_max`"),
    ("plan-ref-acc", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(reference_accuracies=[1.5]), ValueError, r"`reference_accuracies`"),
    ("plan-undef-2", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(max_share_undefined=2), ValueError,
     r"`max_share_undefined` must be in \[0, 1\]; got 2"),
    ("plan-undef-str", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(max_share_undefined="a"), TypeError,
     r"`max_share_undefined`"),
    ("ciw-n-0", tw.planning.ci_width, (0, 0.75, 0.75, 0.5), {}, ValueError, r"`n`"),
    ("ciw-n-str", tw.planning.ci_width, ("10", 0.75, 0.75, 0.5), {}, TypeError, r"`n`"),
    ("ciw-broadcast", tw.planning.ci_width, ([10, 20, 30], [0.7, 0.8], 0.75, 0.5), {}, ValueError, r"cannot be broadcast"),  # fixed by helper-1
    ("ciw-workers-0", tw.planning.ci_width, (100, 0.75, 0.75, 0.5), dict(workers=0, n_simulations=10), ValueError, r"`workers`"),
    ("ciw-sims-1e30", tw.planning.ci_width, (100, 0.75, 0.75, 0.5), dict(n_simulations=1e30), ValueError, r"`n_simulations`"),
    ("ciw-n-huge", tw.planning.ci_width, (2**60, 0.75, 0.75, 0.5), dict(n_simulations=10), ValueError, r"`n` must be at most 2\*\*53"),
    ("ciw-n-nan", tw.planning.ci_width, (NAN, 0.75, 0.75, 0.5), dict(n_simulations=10), ValueError, r"`n` must hold positive whole numbers"),
    ("ciw-n-empty", tw.planning.ci_width, ([], 0.75, 0.75, 0.5), dict(n_simulations=10), TypeError, r"`n` must be a positive integer"),
    ("ciw-accuracy-nan", tw.planning.ci_width, (100, NAN, 0.75, 0.5), dict(n_simulations=10), ValueError, r"`accuracy_a` must not contain NaN"),
    ("plan-nmax-huge", tw.plan_trials, (0.05, 0.75, 0.75, 0.5), dict(n_max=2**60, n_simulations=10), ValueError,
     r"`n_max` must be an integer in \[1, 9007199254740992\]"),
    ("pd-n-huge", tw.planning.power_difference, (0.5, 0.3, 0.75, 0.75, 0.75), dict(n=2**60, n_simulations=10), ValueError,
     r"`n` must be at most 2\*\*53"),
    ("pd-none", tw.planning.power_difference, (None, 0.3, 0.75, 0.75, 0.75), {}, TypeError, r"`kappa_x` must be numeric; got None"),
    ("vcm-broadcast", tw.planning.validate_copy_model, ([10, 20, 30], [0.7, 0.8], 0.75, 0.5), dict(n_resamples=10, n_simulations=10),
     ValueError, r"`n` \(shape \(3,\)\), `accuracy_a` \(shape \(2,\)\).* cannot be broadcast"),
    ("vcm-n-huge", tw.planning.validate_copy_model, (2**60, 0.75, 0.75, 0.5), dict(n_resamples=10, n_simulations=10), ValueError,
     r"`n` must be at most 2\*\*53"),
    ("pd-power", tw.planning.power_difference, (0.5, 0.3, 0.75, 0.75, 0.75), dict(power=1.5), ValueError, r"`power`"),
    ("pd-alpha", tw.planning.power_difference, (0.5, 0.3, 0.75, 0.75, 0.75), dict(alpha=0), ValueError, r"`alpha`"),
    ("pd-n-0", tw.planning.power_difference, (0.5, 0.3, 0.75, 0.75, 0.75), dict(n=0), ValueError, r"`n`"),
    ("pd-kappa", tw.planning.power_difference, (1.5, 0.3, 0.75, 0.75, 0.75), {}, ValueError, r"`kappa_x`"),  # fixed by helper-1
    # ---- planning questions (planning/questions.py)
    ("pq-discordance", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(discordance=0.01), ValueError,
     r"`discordance` must lie in \[0.05, 0.55\]"),
    ("pq-paired-text", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(paired="yes"), TypeError,
     r"`paired` must be True or False"),
    ("pq-unpaired-discordance", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(paired=False, discordance=0.2),
     ValueError, r"`discordance` is for paired designs"),
    ("pq-equal", tw.planning.power_accuracy_difference, (0.7, 0.7), {}, ValueError, r"`accuracy_a` and `accuracy_b` \(0.7\) are equal"),
    ("pq-icc", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(icc=1.5, n=100), ValueError, r"`icc` must be in \[0, 1\]"),
    ("pq-cluster-size", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(cluster_size=0.5, n=100), ValueError,
     r"`cluster_size` must be a number >= 1"),
    ("pq-cv", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(cluster_size_cv=-1, n=100), ValueError,
     r"`cluster_size_cv` must be a single number >= 0"),
    ("pq-n-0", tw.planning.power_accuracy_difference, (0.75, 0.7), dict(n=0), ValueError, r"`n` must be a whole number of questions"),
    ("hw-both", tw.planning.accuracy_half_width, (0.7,), dict(n=100, half_width=0.05), ValueError,
     r"give exactly one of `n` and `half_width`"),
    ("hw-accuracy", tw.planning.accuracy_half_width, (1.2,), dict(n=100), ValueError, r"`accuracy` must be in \(0, 1\)"),
    ("ahw-truth", tw.planning.agreement_half_width, ([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]]), dict(n=100), ValueError, r"`truth` is needed"),
    ("ahw-rows", tw.planning.agreement_half_width, ([[0.5, 0.6], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]], [0, 1]), dict(n=100), ValueError,
     r"`a` must hold finite probabilities ≥ 0 whose rows sum to 1"),
    ("ahw-shapes", tw.planning.agreement_half_width, ([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8], [0.1, 0.9]], [0, 1]), dict(n=100),
     ValueError, r"`a`, `b` must have the same questions and options"),
    ("pad-truth", tw.planning.power_agreement_difference, ([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]], [0, 2]), dict(n=10), ValueError,
     r"`truth` must hold one option index in \[0, 2\)"),
    ("pad-metric", tw.planning.power_agreement_difference, ([[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]], [[0.5, 0.5], [0.2, 0.8]], [0, 1]), dict(n=10, metric="ec"), ValueError,
     r"`metric`"),
    ("icc-one-cluster", tw.planning.estimate_icc, ([0, 1, 0, 1], [1, 1, 1, 1]), {}, ValueError, r"`clusters`: need at least 2 clusters"),
    ("icc-length", tw.planning.estimate_icc, ([0, 1, 0, 1], [1, 2]), {}, ValueError, r"`clusters` must hold one label per value \(4\)"),
    ("icc-column", tw.planning.estimate_icc, (pd.DataFrame({"correct": [1, 0]}),), dict(clusters="passage"), ValueError,
     r"`clusters` must name a column of the trial table"),
    ("de-icc-text", tw.planning.design_effect, (10, "0.1"), {}, TypeError, r"`icc` must be numeric"),
    ("pd-broadcast", tw.planning.power_difference, ([0.5, 0.4], [0.3, 0.2, 0.1], 0.75, 0.75, 0.75), dict(n=100), ValueError,
     r"cannot be broadcast"),  # fixed by helper-1
    ("vcm-n-0", tw.planning.validate_copy_model, (0, 0.75, 0.75, 0.5), {}, ValueError, r"`n`"),
    ("vcm-resamples", tw.planning.validate_copy_model, (100, 0.75, 0.75, 0.5), dict(n_resamples=1e30), ValueError, r"`n_resamples`"),
    # ---- reading trials (io/trials.py)
    ("rt-none", tw.read_trials, (None,), {}, TypeError, r"`source` must be a pandas DataFrame or the path of a CSV/Parquet file; got NoneType"),
    ("rt-int", tw.read_trials, (123,), {}, TypeError, r"`source` must be .*; got int 123"),
    ("rt-list", tw.read_trials, (["a.csv", "b.csv"],), {}, TypeError, r"`source` must be .*pd\.concat\(\[tw\.read_trials\(p\)"),
    ("rt-dict", tw.read_trials, ({"subject": ["s"]},), {}, TypeError, r"`source` must be"),
    ("rt-array", tw.read_trials, (np.zeros((2, 2)),), {}, TypeError, r"`source` must be"),
    ("rt-list-truth", tw.read_trials, (pd.DataFrame({"subject": ["a", "a"], "image": ["1", "2"], "truth": [["cat", "kitty"], ["dog"]],
                                                     "response": ["cat", "dog"]}),), {}, ValueError,
     r"column 'truth' holds a list, not one label \(row 1: \['cat', 'kitty'\]\); .*pass it as `correct`"),  # issue 31: was all wrong, silently
    ("rt-missing-file", lambda: tw.read_trials(str(F("missing"))), None, None, ValueError, r"missing\.csv: no such file"),
    ("rt-folder", lambda: tw.read_trials(str(F("empty_folder"))), None, None, ValueError, r"empty-folder: is a folder, not a file"),  # issue 29, helper H (was "no such file")
    ("rt-empty-file", lambda: tw.read_trials(str(F("empty_csv"))), None, None, ValueError, r"empty\.csv: the file is empty"),
    ("rt-header-only", lambda: tw.read_trials(str(F("header_only_csv"))), None, None, ValueError, r"header_only\.csv: the table has no rows"),
    ("rt-binary", lambda: tw.read_trials(str(F("binary_csv"))), None, None, ValueError, r"binary\.csv: "),
    ("rt-ragged-short", lambda: tw.read_trials(str(F("ragged_short_csv"))), None, None, ValueError,
     r"ragged_short\.csv: not a readable table \(line 3 has 3 field\(s\) but the header has 4\)"),
    ("rt-ragged-long", lambda: tw.read_trials(str(F("ragged_long_csv"))), None, None, ValueError,
     r"ragged_long\.csv: not a readable table \(line 3 has 5 field\(s\) but the header has 4"),
    ("rt-trailing-separator", lambda: tw.read_trials(str(F("trailing_sep_csv"))), None, None, ValueError,
     r"trailing_sep\.csv: not a readable table \(line 2 has 5 field\(s\) but the header has 4"),
    ("rt-truncated-gz", lambda: tw.read_trials(str(F("truncated_csv_gz"))), None, None, ValueError,
     r"truncated\.csv\.gz: the compressed file is truncated"),
    ("rt-no-column", lambda: tw.read_trials(str(F("no_truth_csv"))), None, None, ValueError,
     r"no_truth\.csv: no column 'truth'; columns found: subject, image, response"),
    ("rt-duplicate", lambda: tw.read_trials(str(F("dup_csv"))), None, None, ValueError, r"dup\.csv: observer 's1' answered image 'i1'"),
    ("rt-two-truths", lambda: tw.read_trials(str(F("two_truths_csv"))), None, None, ValueError,
     r"two_truths\.csv: image 'i1' .* more than one correct answer"),
    ("rt-empty-key", lambda: tw.read_trials(str(F("empty_key_csv"))), None, None, ValueError,
     r"empty_key\.csv: column 'image' has an empty value \(row 1\)"),
    ("rt-empty-frame", tw.read_trials, (pd.DataFrame(),), {}, ValueError, r"trials: the table has no rows"),
    ("rt-case-ambiguous", lambda: tw.read_trials(str(F("case_twice_csv"))), None, None, ValueError,
     r"case_twice\.csv: the columns 'Subject' and 'SUBJECT' differ only in letter case, so which one is 'subject' "
     r"is ambiguous; rename or drop one"),
    ("rt-case-ambiguous-frame", tw.read_trials, (trials().rename(columns={"image": "Image"}).assign(IMAGE="x"),), {},
     ValueError, r"trials: the columns 'Image' and 'IMAGE' differ only in letter case"),
    ("rt-empty-key-after-empty-rows", lambda: _quietly(tw.read_trials, str(F("gap_after_empty_csv"))), None, None,
     ValueError, r"gap_after_empty\.csv: column 'image' has an empty value \(row 4\)"),
    ("rt-space-twice", lambda: tw.read_trials(str(F("space_twice_csv"))), None, None, ValueError,
     r"space_twice\.csv: the columns 'subject' and ' subject' have the same name once the spaces around it are "
     r"removed"),
    ("rtab-case-ambiguous", lambda: tw.io.read_table(str(F("case_twice_csv")), columns=["subject"]), None, None,
     ValueError, r"case_twice\.csv: the columns 'Subject' and 'SUBJECT' differ only in letter case"),
    ("rtab-columns-str", lambda: tw.io.read_table(str(F("good_csv")), columns="subject"), None, None, TypeError,
     r"`columns` must be a list of column names; got 'subject'"),
    ("pc-case-ambiguous", tw.io.paired_correctness, (trials().rename(columns={"response": "RESPONSE"}).assign(
        Response="x"), trials()), {}, ValueError, r"a: the columns 'RESPONSE' and 'Response' differ only in letter case"),
    ("rt-bad-column-arg", tw.read_trials, (trials(),), dict(subject="who"), ValueError, r"trials: no column 'who'"),
    ("rt-correct-values", tw.read_trials, (trials().assign(correct="maybe"),), dict(correct="correct"), ValueError,
     r"column 'correct' must hold 0/1 or true/false; found 'maybe'"),
    ("rt-mixed-layout", lambda: tw.read_trials(bundled_plus_mine()), None, None, ValueError,
     r"have the correct answer in column 'category' and an empty 'truth'.*concatenates two tables with different "
     r"column names.*pd\.concat\(\[tw\.read_trials\(bundled\), tw\.read_trials\(mine\)\]"),
    ("rt-numeric-conditions", lambda: tw.read_trials(numeric_conditions()), None, None, ValueError,
     r"1280 image\(s\) have more than one condition.*differ only in number formatting.*'40' by .*'40\.0' by 'resnet50'"
     r".*pandas' default dtypes.*dtype=str.*tw\.read_trials\(path\)"),
    ("rt-none-label-column", tw.read_trials, (trials().assign(response=None),), {}, ValueError,
     r"column 'response' has an empty value \(row 1\)"),
    ("rtab-none", tw.io.read_table, (None,), {}, TypeError, r"`path` must be a file path \(str or pathlib\.Path\); got NoneType"),
    ("rtab-int", tw.io.read_table, (123,), {}, TypeError, r"`path` must be a file path"),
    ("rtab-frame", tw.io.read_table, (pd.DataFrame(),), {}, TypeError, r"`path` must be a file path"),
    ("rtab-parquet-no-engine", lambda: tw.io.read_table(str(F("table_parquet"))), None, None, *NO_ENGINE),
    ("rmvh-none", tw.io.read_model_vs_human, (None,), {}, TypeError, r"`path` must be a file path"),
    ("rmvh-list", tw.io.read_model_vs_human, (["a", "b"],), {}, TypeError, r"`path` must be a file path"),
    ("rmvh-missing", lambda: tw.io.read_model_vs_human(str(F("missing"))), None, None, ValueError, r"missing\.csv: no such folder"),
    ("rmvh-empty", lambda: tw.io.read_model_vs_human(str(F("empty_folder"))), None, None, ValueError, r"no \.csv files found"),
    ("rmvh-columns", lambda: tw.io.read_model_vs_human(str(F("raw_data"))), None, None, ValueError,
     r"cue-conflict_subject-01_session_1\.csv: no column 'object_response'"),
    ("pc-none", tw.io.paired_correctness, (None, trials()), {}, TypeError, r"`a` must be a pandas DataFrame"),
    ("pc-array", tw.io.paired_correctness, (trials(), np.zeros(3)), {}, TypeError, r"`b` must be a pandas DataFrame"),
    ("pc-keys-str", tw.io.paired_correctness, (trials(), trials()), dict(keys="image"), TypeError, r"`keys` must be a list"),
    ("pc-keys-empty", tw.io.paired_correctness, (trials(), trials()), dict(keys=[]), ValueError, r"`keys` is empty"),
    ("pc-no-column", tw.io.paired_correctness, (trials(), trials()), dict(image="stim"), ValueError, r"a: no column 'stim'"),
    ("pc-duplicates", lambda: tw.io.paired_correctness(trials(), trials()), None, None, ValueError, r"a: item .* occurs more than once"),
    ("pc-disjoint", lambda: tw.io.paired_correctness(trials()[trials().image == "c1-0"].iloc[:1],
                                                  trials()[trials().image == "c1-1"].iloc[:1]), None, None, ValueError,
     r"a and b share no item"),
    ("image-id-none", tw.io.image_id, (None,), {}, TypeError, r"`filenames` must be a list"),
    ("image-id-int", tw.io.image_id, (123,), {}, TypeError, r"`filenames` must be a list"),
    ("image-id-str", tw.io.image_id, ("a_b.png",), {}, TypeError, r"`filenames` must be a list"),
    ("image-id-missing", tw.io.image_id, (["a_b.png", None],), {}, ValueError, r"`filenames` has a missing value.* at position 1"),
    ("image-id-nested", tw.io.image_id, ([["a.png"], ["b.png"]],), {}, TypeError, r"`filenames` must hold file names \(text\); got \['a\.png'\] at position 0"),
    ("image-id-numbers", tw.io.image_id, ([1, 2],), {}, TypeError, r"`filenames` must hold file names"),
    ("rt-bytes", tw.read_trials, (b"trials.csv",), {}, TypeError, r"`source` must be .*; got bytes"),
    ("rt-score-range", tw.read_trials, (trials().assign(f1=1.5),), dict(score="f1"), ValueError,
     r"trials: column 'f1' must hold scores in \[0, 1\]; row 1 has 1\.5"),
    ("rt-score-nan", tw.read_trials, (trials().assign(f1=[0.5] * 399 + [np.nan]),), dict(score="f1"), ValueError,
     r"trials: column 'f1' must hold a score in \[0, 1\] on every row; row 400 has nan"),
    ("rt-score-text", tw.read_trials, (trials().assign(f1="high"),), dict(score="f1"), ValueError,
     r"trials: column 'f1' must hold a score in \[0, 1\] on every row; row 1 has 'high'"),
    ("rt-score-missing", tw.read_trials, (trials(),), dict(score="f1"), ValueError, r"trials: no column 'f1'"),
    ("rt-score-int", tw.read_trials, (trials(),), dict(score=1), TypeError, r"`score` must be the name of a column"),
    ("lb-score-ec", lambda: tw.leaderboard(tw.read_trials(trials().assign(f1=0.5), score="f1"), tw.leaderboards.Protocol(name="ec"),
                                           n_resamples=5), None, None,
     ValueError, r"metric 'error-consistency' needs 0/1 correctness, but column 'score' holds per-item scores that "
                 r"are not 0 or 1 \(e\.g\. 0\.5\)"),
    ("lb-score-range", lambda: tw.leaderboard(tw.read_trials(trials().assign(f1=0.5), score="f1").assign(score=-0.1),
                                              "accuracy", n_resamples=5), None, None,
     ValueError, r"trials: column 'score' must hold scores in \[0, 1\]; row 1 has -0\.1"),
    ("lb-score-disagrees", lambda: tw.leaderboard(tw.read_trials(trials().assign(f1=1.0), score="f1"),
                                                  tw.leaderboards.Protocol(name="ec"), n_resamples=5), None, None,
     ValueError, r"metric 'error-consistency' uses `correct`, but column 'score' \(0/1 scores\) disagrees with it on "
                 r"\d+ trial\(s\)"),
    # ---- evaluation logs (logs/): lm-evaluation-harness, HELM
    ("lme-none", tw.io.read_lm_eval, (None,), {}, TypeError, r"`paths` must be a file or folder path or a non-empty list"),
    ("lme-empty-list", tw.io.read_lm_eval, ([],), {}, TypeError, r"`paths` must be a file or folder path"),
    ("lme-int-in-list", tw.io.read_lm_eval, ([3],), {}, TypeError, r"`paths` must hold file or folder paths; got int 3"),
    ("lme-missing", lambda: tw.io.read_lm_eval(str(F("missing"))), None, None, ValueError, r"missing\.csv: no such file"),
    ("lme-empty-folder", lambda: tw.io.read_lm_eval(str(F("empty_folder"))), None, None, ValueError,
     r"empty-folder: no evaluation log in this folder"),
    ("lme-not-samples", lambda: tw.io.read_lm_eval(str(F("lme_not_samples"))), None, None, ValueError,
     r"notes\.jsonl: not an lm-evaluation-harness samples file"),
    ("lme-normalization", lambda: tw.io.read_lm_eval(str(F("lme_ragged")), normalization="norm"), None, None, ValueError,
     r"`normalization` must be one of 'none', 'length'; got 'norm'"),
    ("lme-unaligned-arg", lambda: tw.io.read_lm_eval(str(F("lme_ragged")), unaligned=False), None, None, TypeError,
     r"`unaligned` must be one of 'error', 'drop'; got False"),
    ("lme-clusters-int", lambda: tw.io.read_lm_eval(str(F("lme_ragged")), clusters=1), None, None, TypeError,
     r"`clusters` must be a str or None; got int 1"),
    ("lme-filter-int", lambda: tw.io.read_lm_eval(str(F("lme_ragged")), filter_name=0), None, None, TypeError,
     r"`filter_name` must be a str or None; got int 0"),
    ("lme-ragged", lambda: tw.io.read_lm_eval(str(F("lme_ragged"))), None, None, ValueError,
     r"b/samples_t_.*\.jsonl:3: ragged option counts \(field `filtered_resps`\): item '[0-9a-f]+' of 't' has 2 options for 'b' but 3 for 'a'"),
    ("lme-positive-loglikelihood", lambda: tw.io.read_lm_eval(str(F("lme_positive"))), None, None, ValueError,
     r"samples_t_.*\.jsonl:3: field `filtered_resps` must hold log-likelihoods \(finite numbers <= 0"),
    ("lme-nan-loglikelihood", lambda: tw.io.read_lm_eval(str(F("lme_nan"))), None, None, ValueError,
     r"samples_t_.*\.jsonl:3: field `filtered_resps` must hold log-likelihoods"),
    ("lme-duplicate", lambda: tw.io.read_lm_eval(str(F("lme_duplicate"))), None, None, ValueError,
     r"samples_t_.*\.jsonl:4: duplicate document: doc_id 0 of task 't' was already logged for model 'a' at line 1"),
    ("lme-unaligned", lambda: tw.io.read_lm_eval(str(F("lme_unaligned"))), None, None, ValueError,
     r"a/samples_t_.*\.jsonl:3: unaligned items: 1 item\(s\) are not logged for every model of their task"),
    ("lme-filters", lambda: tw.io.read_lm_eval(str(F("lme_filters"))), None, None, ValueError,
     r"samples_t_.*\.jsonl: task 't' logs several filters \['none', 'strict'\]; choose one with `filter_name`"),
    ("lme-cluster-field", lambda: tw.io.read_lm_eval(str(F("lme_unaligned")), clusters="passage"), None, None, ValueError,
     r"samples_t_.*\.jsonl:1: `clusters`='passage' is not a field of the logged `doc`"),
    ("lme-score-int", lambda: tw.io.read_lm_eval(str(F("lme_ragged")), score=1), None, None, TypeError,
     r"`score` must be a str or None; got int 1"),
    ("lme-score-missing", lambda: tw.io.read_lm_eval(str(F("lme_unaligned")), score="f1"), None, None, ValueError,
     r"samples_t_.*\.jsonl:1: `score`='f1' is not a field of the logged record \(numeric fields: \['acc'\]\)"),
    # ---- files from other programs (issue 17, HR3)
    ("trials-decimal-comma-probabilities", lambda: tw.read_trials(str(F("probs_comma_csv")), probabilities=["p0", "p1"]),
     None, None, ValueError, r"probs_comma\.csv: row 1: column 'p0' \(`probabilities`\) must hold a number; got '0,8' "
     r"\('0,8' looks like a number written with a decimal comma"),
    ("trials-decimal-comma-score", lambda: tw.read_trials(str(F("score_comma_csv")), score="s"), None, None, ValueError,
     r"score_comma\.csv: column 's' must hold a score in \[0, 1\] on every row; row 1 has '0,5' .*decimal comma"),
    ("paired-condition-formatting", lambda: tw.io.paired_correctness(tw.io.read_table(str(F("cond_a_csv"))),
                                                                  tw.io.read_table(str(F("cond_b_csv")))),
     None, None, ValueError, r"a and b: 2 image\(s\) have more than one condition across observers, and the labels "
     r"differ only in number formatting — e\.g\. image 'i1' of experiment 'e': '0\.1' by 'b'; '0\.10' by 'a'"),
    ("lme-score-range", lambda: tw.io.read_lm_eval(str(F("lme_metric_range")), score="acc"), None, None, ValueError,
     r"samples_t_.*\.jsonl:1: field 'acc' \(`score`\) must be a per-document score in \[0, 1\]; got 2\.0 "
     r"\(a percentage"),
    ("lme-early-broken-array", lambda: tw.io.read_lm_eval(str(F("lme_early_broken"))), None, None, ValueError,
     r"pretrained__m_t\.jsonl: not a readable JSON array of logged documents"),
    ("agreement-generation-choice", lambda: tw.pairwise_agreement(_generation_trials(), metric="choice"), None, None,
     ValueError, r"generation task \(n_options 0\), e\.g\. question gsm/d0: metric='choice' needs options .*"
     r"use metric='ec'"),
    ("agreement-generation-no-correct", lambda: tw.pairwise_agreement(_generation_trials().drop(columns="correct"),
                                                                      metric="ec"), None, None,
     ValueError, r"lacks the column 'correct', which metric='ec' needs on generation tasks"),
    ("mc-resolution-sides", lambda: check_monte_carlo_resolution(10, n_resamples=100, alpha=0.05, sides=3), None,
     None, ValueError, r"`sides` must be 1 or 2; got 3"),
    ("mc-resolution-adjust", lambda: check_monte_carlo_resolution(10, n_resamples=100, alpha=0.05, adjust="sidak"),
     None, None, ValueError, r"`adjust` must be one of .*; got 'sidak'"),
    ("lme-nothing-usable", lambda: tw.io.read_lm_eval(str(F("lme_no_options"))), None, None, ValueError,
     r"no usable multiple-choice record in the 1 file\(s\) read \(1 records with fewer than 2 options\)"),
    ("helm-none", tw.io.read_helm, (None,), {}, TypeError, r"`path` must be a file or folder path"),
    ("helm-missing", lambda: tw.io.read_helm(str(F("missing"))), None, None, ValueError, r"missing\.csv: no such file"),
    ("helm-csv", lambda: tw.io.read_helm(str(F("good_csv"))), None, None, ValueError,
     r"good\.csv: not a HELM scenario_state\.json or display_predictions\.json"),
    ("helm-no-correct", lambda: tw.io.read_helm(str(F("helm_no_correct"))), None, None, ValueError,
     r"scenario_state\.json: request_states\[0\]: exactly one of `instance\.references` must be tagged 'correct'"),
    ("helm-generation", lambda: tw.io.read_helm(str(F("helm_generation"))), None, None, ValueError,
     r"scenario_state\.json: run 'mmlu:model=m' is not multiple choice: its adapter method \(field "
     r"`adapter_spec\.method`\) is 'generation'"),
    ("helm-generation-suite", lambda: tw.io.read_helm(str(F("helm_generation_suite"))), None, None, ValueError,
     r"helm-generation: no multiple-choice run: the 1 run\(s\) found are all of other adapter methods "
     r"\(generation \(1 run\);"),
    ("agreement-helm-joint", lambda: tw.pairwise_agreement(tw.io.read_helm(str(F("helm_joint")))), None, None,
     ValueError, r"`metric`='capa' needs the options' probabilities, and 2 of the 2 trials have none "
     r"\(`trials\.probabilities` is None, e\.g\. model 'a', question mmlu/id1\): the log holds no option "
     r"probabilities, only the chosen option \(HELM's joint multiple-choice method.*use metric='capa-discrete'"),
    ("helm-cluster-arg", lambda: tw.io.read_helm(str(F("helm_no_correct")), clusters="subject"), None, None, ValueError,
     r"`clusters`='subject' is not an argument of the run name 'mmlu:model=m'"),
    ("datasets-experiment", tw.datasets.model_vs_human, ("cue",), {}, ValueError, r"`experiment` must be one of"),
    ("datasets-experiment-int", tw.datasets.texture_vs_shape, (3,), {}, ValueError, r"`experiment` must be one of"),
    # ---- benchmark: leaderboard, difference_test, Protocol
    ("lb-none", tw.leaderboard, (None,), {}, TypeError,
     r"`trials` must be a pandas DataFrame or the path of a CSV/Parquet file; got NoneType"),
    ("lb-int", tw.leaderboard, (5,), {}, TypeError, r"`trials` must be"),
    ("lb-list", tw.leaderboard, ([trials()],), {}, TypeError, r"`trials` must be"),
    ("lb-protocol", lambda: tw.leaderboard(trials(), "nope"), None, None, ValueError, r"`protocol`"),
    ("lb-protocol-int", lambda: tw.leaderboard(trials(), 3), None, None, TypeError, r"`protocol`"),  # fixed by the lead
    ("lb-resamples-0", lambda: tw.leaderboard(trials(), PROTO, n_resamples=0), None, None, ValueError, r"`n_resamples` must be an integer >= 1"),
    ("lb-resamples-1e30", lambda: tw.leaderboard(trials(), PROTO, n_resamples=1e30), None, None, ValueError, r"`n_resamples` must be an integer in"),
    ("lb-level", lambda: tw.leaderboard(trials(), PROTO, confidence_level=95), None, None, ValueError, r"`confidence_level`"),
    ("lb-ci-method", lambda: tw.leaderboard(trials(), PROTO, ci_method="bca"), None, None, ValueError, r"`ci_method` must be one of"),
    ("lb-workers-0", lambda: tw.leaderboard(trials(), PROTO, n_resamples=5, workers=0), None, None, ValueError,
     r"`workers` must be None \(all cores\) or an integer >= 1; got 0"),  # fixed by the lead
    ("lb-workers-neg", lambda: tw.leaderboard(trials(), PROTO, n_resamples=5, workers=-3), None, None, ValueError,
     r"`workers`"),  # fixed by the lead
    ("lb-workers-str", lambda: tw.leaderboard(trials(), PROTO, n_resamples=5, workers="4"), None, None, TypeError,
     r"`workers`"),  # fixed by the lead
    ("lb-reference-unknown", lambda: tw.leaderboard(trials(), PROTO, reference=["nobody"]), None, None, ValueError,
     r"`reference` names observer\(s\) \['nobody'\]"),
    ("lb-no-humans", lambda: tw.leaderboard(trials().assign(observer_type="model"), PROTO), None, None, ValueError,
     r"no reference observers"),
    ("lb-no-candidates", lambda: tw.leaderboard(humans(), PROTO), None, None, ValueError, r"no candidate observers"),
    ("lb-mixed-layout", lambda: tw.leaderboard(bundled_plus_mine(), n_resamples=5), None, None, ValueError,
     r"trials: .* column 'category' and an empty 'truth'.*pd\.concat"),
    ("lb-numeric-conditions", lambda: tw.leaderboard(numeric_conditions(), n_resamples=5), None, None, ValueError,
     r"differ only in number formatting"),
    ("lb-correct-not-bool", lambda: tw.leaderboard(trials().assign(correct=1.0), PROTO), None, None, TypeError,
     r"column 'correct' must be bool"),
    ("lb-missing-file", lambda: tw.leaderboard(str(F("missing"))), None, None, ValueError, r"missing\.csv: no such file"),
    # issue 17 (HR3): no usable pair, a cluster per condition
    ("lb-five-items", lambda: tw.leaderboard(few_items(), PROTO, n_resamples=5), None, None, ValueError,
     r"no pair of observers shares the protocol's min_items \(20\) images in any condition"),
    ("lbdt-five-items", lambda: tw.leaderboards.difference_test(few_items(), "m1", "m2", protocol=PROTO,
     n_resamples=5), None, None, ValueError, r"min_items \(20\)"),
    ("bs-five-items", lambda: tw.brainscore.BehavioralBenchmark(few_items(), PROTO, n_resamples=5), None, None, ValueError,
     r"no pair of observers shares the protocol's min_items \(20\) images"),
    ("lb-one-cluster-per-condition", lambda: tw.leaderboard(trials().assign(passage=lambda f: f.condition), PROTO,
     clusters="passage", n_resamples=5), None, None, ValueError,
     r"`clusters` \(--clusters\): condition 'c1' of experiment 'exp' holds a single cluster \('c1'\)"),
    ("lb-one-cluster-in-one-condition", lambda: tw.leaderboard(trials().assign(
     passage=lambda f: np.where(f.condition == "c2", "p", f.image.str[-1])), PROTO, clusters="passage", n_resamples=5),
     None, None, ValueError, r"condition 'c2' of experiment 'exp' holds a single cluster \('p'\).*at least 2"),
    ("lbp-which", lambda: board().pairwise(which="some"), None, None, ValueError, r"`which` must be one of"),
    ("lbp-test", lambda: board().pairwise(test="t"), None, None, ValueError, r"`test` must be one of"),
    ("lbp-adjust", lambda: board().pairwise(adjust="x"), None, None, ValueError, r"`adjust` must be one of"),
    ("lbp-permutations-0", lambda: board().pairwise(n_resamples=0), None, None, ValueError, r"`n_resamples` must be an integer >= 1"),
    ("lbp-permutations-1e30", lambda: board().pairwise(n_resamples=1e30), None, None, ValueError,
     r"`n_resamples` must be an integer in \[1, 10000000\]"),
    ("lbp-workers-0", lambda: board().pairwise(workers=0), None, None, ValueError, r"`workers` must be None"),  # fixed by the lead
    ("lbd-unknown", lambda: board().difference("m1", "zz"), None, None, ValueError, r"'zz' is not an observer of this leaderboard"),
    ("lbd-not-scored", lambda: quiet_board(answered_some()).difference("m1", "m2"), None, None, ValueError,
     r"'m1' was not scored, so it has no score to compare: candidate shares fewer than 20 images"),
    ("lbd-reference-observer", lambda: board().difference("h1", "m2"), None, None, ValueError,
     r"'h1' is a reference observer: it has no row of its own"),
    ("lbd-same", lambda: board().difference("m1", "m1"), None, None, ValueError, r"`x` and `y` must be different observers"),
    ("lbd-none", lambda: board().difference(None, "m1"), None, None, ValueError, r"None is not an observer"),
    ("lb-report-none", lambda: board().report(None), None, None, TypeError, r"`path`"),  # fixed by the lead
    ("lb-report-folder", lambda: board().report(str(F("no_folder"))), None, None, ValueError, r"folder .* does not exist"),
    ("lb-summary-rows-neg", lambda: board().summary(max_rows=-1), None, None, ValueError, r"`max_rows`"),  # fixed by the lead
    ("dt-resamples-1e30", lambda: tw.leaderboards.difference_test(trials(), "m1", "m2", protocol=PROTO, n_resamples=1e30), None, None,
     ValueError, r"`n_resamples` must be an integer in"),
    ("dt-level", lambda: tw.leaderboards.difference_test(trials(), "m1", "m2", protocol=PROTO, confidence_level=2), None, None,
     ValueError, r"`confidence_level` must be in \(0, 1\)"),
    ("dt-x-none", lambda: tw.leaderboards.difference_test(trials(), None, "m2", protocol=PROTO, n_resamples=5), None, None, ValueError,
     r"`x`: observer None is not in the trials"),
    ("proto-min-items", tw.leaderboards.Protocol, (), dict(name="p", min_items=0), ValueError, r"`min_items` must be an integer >= 1"),
    ("proto-conditions", tw.leaderboards.Protocol, (), dict(name="p", conditions={"e": 5}), TypeError, r"`conditions\['e'\]` must be a list"),
    # ---- validity studies (tiny settings, so that a silently accepted value ends fast)
    ("grid-n-0", tw.validity.study_grid, (), dict(n=[0]), ValueError, r"`n`"),  # fixed by the lead
    ("grid-n-none", tw.validity.study_grid, (), dict(n=None), TypeError, r"`n`"),  # fixed by the lead
    ("grid-accuracy", tw.validity.study_grid, (), dict(accuracies=[1.5]), ValueError, r"`accuracies` must be in \[0, 1\]"),
    ("grid-kappa", tw.validity.study_grid, (), dict(kappas=[2.0]), ValueError, r"`kappas?`"),  # fixed by the lead
    ("coverage-datasets-0", tw.validity.coverage_study, (), dict(n_datasets=0), ValueError, r"`n_datasets` must be an integer >= 1"),
    ("coverage-method", tw.validity.coverage_study, (), dict(methods=["wilson"]), ValueError, r"`methods` must be one of"),
    ("coverage-level", tw.validity.coverage_study, (), dict(confidence_levels=[95]), ValueError, r"`confidence_level` must be in"),
    *[(f"{study.__name__}-grid-{col}-{val}", study, (pd.DataFrame({**dict(n=[50], accuracy_a=[0.7], accuracy_b=[0.7], kappa=[0.0]),
                                                           col: [val]}),), dict(n_datasets=2, n_resamples=2, rng=0),
       ValueError, rf"`grid` column '{col}' must hold .* row 0 has {val}")  # HR8 F3: n = 0 was a silent NaN
      for study in (tw.validity.coverage_study, tw.validity.type_one_error_study)
      for col, val in (("n", 0), ("n", -5), ("n", 2.5), ("accuracy_a", 1.5), ("accuracy_b", -0.1))],
    ("type1-test", tw.validity.type_one_error_study, (), dict(tests=["t"]), ValueError, r"`tests` must be one of"),
    ("type1-alpha", lambda: tw.validity.type_one_error_study(tiny_grid(), tests=["fisher"], alphas=[2.0], n_datasets=2,
                                                             n_resamples=2), None, None, ValueError, r"`alphas?`"),  # fixed by the lead
    ("benchmark-coverage-items", tw.validity.benchmark_coverage_study, (), dict(n_items=5), ValueError, r"`n_items` must be an integer >= 10"),
    ("benchmark-coverage-humans-shape", tw.validity.benchmark_coverage_study, (), dict(simulated_humans=[0.9, 0.5]),
     ValueError, r"`simulated_humans` must be a non-empty sequence of \(p_easy, p_hard\) pairs"),
    ("benchmark-coverage-humans-range", tw.validity.benchmark_coverage_study, (),
     dict(simulated_humans=[(1.0, 0.5)]), ValueError, r"`simulated_humans` must be .* in \(0, 1\)"),
    ("benchmark-coverage-y-hard", tw.validity.benchmark_coverage_study, (), dict(y_hard=0.9), ValueError,
     r"`y_hard`=0.9: no probability on easy items"),
    ("benchmark-coverage-y-hard-range", tw.validity.benchmark_coverage_study, (), dict(y_hard=1.5), ValueError,
     r"`y_hard`"),
    ("benchmark-coverage-score-difference", tw.validity.benchmark_coverage_study, (),
     dict(score_difference=float("nan")), ValueError, r"`score_difference` must be a finite number; got nan"),
    ("dt-unknown", lambda: tw.leaderboards.difference_test(trials(), "m1", "zz", protocol=PROTO, n_resamples=5), None, None,
     ValueError, r"'zz'"),
    ("dt-same", lambda: tw.leaderboards.difference_test(trials(), "m1", "m1", protocol=PROTO, n_resamples=5), None, None,
     ValueError, r"`x` and `y` must be different observers"),
    ("dt-test", lambda: tw.leaderboards.difference_test(trials(), "m1", "m2", protocol=PROTO, test="t"), None, None, ValueError, r"`test` must be one of"),
    ("dt-none", tw.leaderboards.difference_test, (None, "m1", "m2"), {}, TypeError, r"`trials` must be"),
    ("proto-name", tw.leaderboards.Protocol, (), dict(name=""), (TypeError, ValueError), r"`name` must be a non-empty string"),
    ("proto-metric", tw.leaderboards.Protocol, (), dict(name="p", metric="f1"), ValueError, r"`metric` must be one of"),
    ("proto-aggregation", tw.leaderboards.Protocol, (), dict(name="p", aggregation=("people",)), ValueError, r"aggregation"),
    ("proto-exclude", tw.leaderboards.Protocol, (), dict(name="p", exclude=["a"]), TypeError, r"`exclude`"),
    ("lb-accuracy-reference", lambda: tw.leaderboard(trials(), "accuracy", reference="h1", n_resamples=5), None, None,
     ValueError, r"`reference` is not used by metric 'accuracy'.*got 'h1'"),
    ("lb-accuracy-truth-name", lambda: tw.leaderboard(trials().replace({"subject": {"m1": "ground truth"}}), "accuracy",
                                                      n_resamples=5), None, None, ValueError,
     r"an observer \(`subject`\) is named 'ground truth'"),
    ("dt-accuracy-reference", lambda: tw.leaderboards.difference_test(trials(), "m1", "m2", protocol=tw.leaderboards.ACCURACY, reference=["h1"],
                                                         n_resamples=5), None, None, ValueError,
     r"`reference` is not used by metric 'accuracy'"),
    # ---- brainscore
    ("ceil-nan", bs.ceil_score, (NAN, 0.4), {}, ValueError, r"`raw` contains NaN"),
    ("ceil-inf", bs.ceil_score, (INF, 0.4), {}, ValueError, r"`raw` must be finite; got inf"),
    ("ceil-neg-inf", bs.ceil_score, ([0.1, -INF], 0.4), {}, ValueError, r"`raw` must be finite; got -inf"),
    ("ceil-ceiling-inf", bs.ceil_score, (0.1, INF), {}, ValueError, r"`ceiling` must be finite"),
    ("ceil-ceiling-nan", bs.ceil_score, (0.1, NAN), {}, ValueError, r"`ceiling` contains NaN"),
    ("ceil-ceiling-0", bs.ceil_score, (0.1, 0.0), {}, ValueError, r"`ceiling` must be positive"),
    ("ceil-str", bs.ceil_score, ("high", 0.4), {}, TypeError, r"`raw` must be numeric"),
    ("ceil-none", bs.ceil_score, (0.2, None), {}, TypeError, r"`ceiling` must be numeric"),
    ("ceil-broadcast", bs.ceil_score, ([0.1, 0.2], [0.3, 0.4, 0.5]), {}, ValueError,
     r"`raw` \(shape \(2,\)\) and `ceiling` \(shape \(3,\)\) cannot be broadcast"),
    ("unceil-inf", bs.unceil_score, (INF, 0.4), {}, ValueError, r"`score` must be finite"),
    ("unceil-range", bs.unceil_score, (1.2, 0.4), {}, ValueError, r"`score` must lie in \[0, 1\]"),
    ("unceil-nan", bs.unceil_score, (NAN, 0.4), {}, ValueError, r"`score` contains NaN"),
    ("unceil-ceiling-inf", bs.unceil_score, (0.5, INF), {}, ValueError, r"`ceiling` must be finite"),
    ("unceil-str", bs.unceil_score, (0.5, "x"), {}, TypeError, r"`ceiling` must be numeric"),
    ("unceil-broadcast", bs.unceil_score, ([0.1, 0.2], [0.3, 0.4, 0.5]), {}, ValueError, r"`score` .*`ceiling` .*cannot be broadcast"),
    ("ceilings-one-human", lambda: bs.ceilings(one_human(), PROTO), None, None, ValueError,
     r"ceilings: at least two reference observers are needed \(a ceiling is the agreement between two distinct "
     r"reference observers\); the trials have 1: \['h1'\]"),
    ("ceilings-none", bs.ceilings, (None,), {}, TypeError, r"`trials` must be"),
    ("ceilings-no-humans", lambda: bs.ceilings(trials().assign(observer_type="model"), PROTO), None, None, ValueError,
     r"no reference observers"),
    ("bench-one-human", lambda: tw.brainscore.BehavioralBenchmark(one_human(), PROTO, n_resamples=10), None, None, ValueError,
     r"at least two reference observers are needed"),
    ("bench-none", tw.brainscore.BehavioralBenchmark, (None,), {}, TypeError, r"`trials` must be"),
    ("bench-metric", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, metric="f1"), None, None, ValueError, r"`metric` must be one of"),
    ("bench-resamples", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=1e30), None, None, ValueError, r"`n_resamples`"),
    ("bench-splits", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_splits=0), None, None, ValueError, r"`n_splits`"),
    ("bench-score-human", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10)(humans()), None, None, ValueError,
     r"are humans of the benchmark"),
    ("bench-score-two", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10)(trials()[trials().observer_type == "model"]),
     None, None, ValueError, r"hold 2 observers"),
    ("bench-score-partial", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10)(
        trials()[(trials().subject == "m1") & (trials().image != "c1-0")]), None, None, ValueError, r"lacks 1"),
    ("bench-benchmarks-extra", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10).score_benchmarks(
        trials()[trials().subject == "m1"].assign(image=lambda t: t["image"].where(t["image"] != "c1-0", "c1-other"))),
     None, None, ValueError, r"'m1' must answer exactly the benchmark's 40 images of condition 'c1'.*lacks 1 and has 1 other"),
    ("bench-benchmarks-none", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10).score_benchmarks(
        trials()[(trials().subject == "m1") & (trials().image != "c1-0")]), None, None, ValueError,
     r"'m1' answer\(s\) all the images of none of the benchmark's 1 experiments"),
    ("pi-scores-list", lambda: bs.published_intervals([0.5], humans(), protocol=PROTO), None, None, TypeError, r"`scores` must be"),
    ("pi-scores-column", lambda: bs.published_intervals(pd.DataFrame({"model": ["a"]}), humans(), protocol=PROTO), None, None,
     ValueError, r"`scores` lacks column 'score'"),
    ("pi-score-range", lambda: bs.published_intervals({"a": {"exp": 1.5}}, humans(), protocol=PROTO, n_resamples=10), None, None,
     ValueError, r"`score` must lie in \[0, 1\]"),
    ("pi-score-nan", lambda: bs.published_intervals({"a": {"exp": NAN}}, humans(), protocol=PROTO, n_resamples=10), None, None,
     ValueError, r"`score` contains NaN"),
    ("pi-no-ceiling", lambda: bs.published_intervals({"a": {"zzz": 0.5}}, humans(), protocol=PROTO, n_resamples=10), None, None,
     ValueError, r"no ceiling for experiment\(s\) \['zzz'\]"),
    ("pi-workers-0", lambda: bs.published_intervals({"a": {"exp": 0.5}}, humans(), protocol=PROTO, n_resamples=10, workers=0),
     None, None, ValueError, r"`workers` must be None"),
    ("st-kappa-list", lambda: bs.synthetic_trials([0.5], humans(), protocol=PROTO), None, None, TypeError, r"`kappa` must be a DataFrame"),
    ("st-kappa-range", lambda: bs.synthetic_trials({"a": {"exp": 2.0}}, humans(), protocol=PROTO), None, None, ValueError,
     r"`kappa` values must be numbers in \[-1, 1\]"),
    ("st-kappa-empty", lambda: bs.synthetic_trials(pd.DataFrame(columns=["model", "experiment", "kappa"]), humans(), protocol=PROTO),
     None, None, ValueError, r"`kappa` is empty"),
    ("st-humans-none", lambda: bs.synthetic_trials({"a": {"exp": 0.2}}, None, protocol=PROTO), None, None, TypeError, r"`trials` must be|`humans`"),
    ("pi-score-text", lambda: bs.published_intervals({"a": {"exp": "high"}}, humans(), protocol=PROTO, n_resamples=10),
     None, None, TypeError, r"`scores`: the score of model 'a' in experiment 'exp' is not a number: 'high'"),
    ("pi-ceiling-inf", lambda: bs.published_intervals({"a": {"exp": 0.5}}, humans(), protocol=PROTO, ceiling={"exp": INF},
                                                      n_resamples=10), None, None, ValueError, r"`ceiling` must be finite"),
    ("pi-ceiling-neg", lambda: bs.published_intervals({"a": {"exp": 0.5}}, humans(), protocol=PROTO, ceiling={"exp": -0.1},
                                                      n_resamples=10), None, None, ValueError, r"`ceiling` must be positive"),
    ("pi-humans-none", lambda: bs.published_intervals({"a": {"exp": 0.5}}, None, protocol=PROTO, n_resamples=10), None, None,
     TypeError, r"`trials` must be"),
    ("pi-model-accuracy", lambda: bs.published_intervals({"a": {"exp": 0.5}}, humans(), protocol=PROTO, model_accuracy="x"),
     None, None, ValueError, r"`model_accuracy` must be one of"),
    ("st-kappa-nan", lambda: bs.synthetic_trials({"a": {"exp": NAN}}, humans(), protocol=PROTO), None, None, ValueError,
     r"`kappa` values must be numbers in \[-1, 1\]; got nan$"),
    ("ceilings-reference-one", lambda: bs.ceilings(trials(), PROTO, reference=["h1"]), None, None, ValueError,
     r"at least two reference observers are needed .* the trials have 1: \['h1'\]"),
    ("ceilings-reference-unknown", lambda: bs.ceilings(trials(), PROTO, reference=["zz"]), None, None, ValueError,
     r"`reference` names observer\(s\) \['zz'\]"),
    ("bench-protocol", lambda: tw.brainscore.BehavioralBenchmark(humans(), "nope"), None, None, ValueError, r"`protocol` must be a Protocol"),
    ("bench-level-nan", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, confidence_level=NAN), None, None, ValueError,
     r"`confidence_level` must be in"),
    ("bench-rng", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, rng="x"), None, None, TypeError, r"`rng` must be None"),
    ("bench-score-none", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, n_resamples=10)(None), None, None, TypeError,
     r"`trials` must be"),
    ("tfa-frame", bs.trials_from_assembly, (pd.DataFrame(),), {}, TypeError, r"`assembly` must be an xarray object"),
    ("tfa-none", bs.trials_from_assembly, (None,), {}, TypeError, r"`assembly` must be an xarray object"),
    ("bsec-resamples", bs.ErrorConsistency, (), dict(n_resamples=0), ValueError, r"`n_resamples`"),
    ("bsec-level", bs.ErrorConsistency, (), dict(confidence_level=2), ValueError, r"`confidence_level`"),
    ("bsec-compatible", bs.ErrorConsistency, (), dict(brainscore_compatible="yes"), ValueError, r"`brainscore_compatible` must be True or False"),
    ("bsec-min-items", bs.ErrorConsistency, (), dict(min_items=0), ValueError, r"`min_items` must be an integer >= 1; got 0"),
    ("bsec-min-items-float", bs.ErrorConsistency, (), dict(min_items=2.5), TypeError, r"`min_items` must be an integer >= 1; got 2.5"),
    ("bsec-experiment", bs.ErrorConsistency, (), dict(experiment=3), TypeError, r"`experiment` must be a string; got 3"),
    ("bench-compatible", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, brainscore_compatible=1), None, None, ValueError,
     r"`brainscore_compatible` must be True or False"),
    ("vd-scalar-no-se", bs.value_delta, (0.7, 0.8), dict(target_se=0.1), ValueError, r"`source` is a scalar: give its standard error `source_se`"),
    ("vd-trials-and-se", bs.value_delta, (CA, 0.8), dict(source_se=0.1, target_se=0.1), ValueError, r"`source` holds trials.*`source_se` must be None"),
    ("vd-se-negative", bs.value_delta, (0.7, 0.8), dict(source_se=-1, target_se=0.1), ValueError, r"`source_se` must be a finite number ≥ 0; got -1"),
    ("vd-scale", bs.value_delta, (0.7, 0.8), dict(source_se=0, target_se=0, scale=0), ValueError, r"`scale` must be positive; got 0"),
    ("vd-nan-trial", bs.value_delta, ([1.0, NAN, 0.0], 0.8), dict(target_se=0), ValueError, r"`source` must be finite; got nan at position 1"),
    ("vd-2d", bs.value_delta, (np.ones((3, 2)), 0.8), dict(target_se=0), ValueError, r"`source` must be a scalar or a 1-D array"),
    ("vd-text", bs.value_delta, ("0.7", 0.8), dict(source_se=0, target_se=0), TypeError, r"`source` must be numeric"),
    ("vd-few-target", bs.value_delta, (CA, [1.0, 0.0, 1.0]), {}, ValueError, r"`target` needs at least 4 trials for a split-half ceiling; got 3"),
    ("vd-ceiling", bs.value_delta, (CA, CB), dict(ceiling=0), ValueError, r"`ceiling` must be positive"),
    ("ost-shape", bs.ost_correlation, (np.arange(5.0), np.ones((4, 2))), {}, ValueError, r"`target_osts` must have one row per image \(5"),
    ("ost-inf", bs.ost_correlation, ([1.0, np.inf, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]), {}, ValueError, r"`model_osts` must be finite or NaN"),
    ("ost-short", bs.ost_correlation, ([1.0, 2.0], [1.0, 2.0]), {}, ValueError, r"`model_osts` must be 1-D with at least 3 images; got shape \(2,\)"),
    ("ost-all-nan", bs.ost_correlation, ([1.0, NAN, NAN, 4.0], [1.0, 2.0, 3.0, 4.0]), {}, ValueError, r"at least 3 images solved by both"),
    ("ost-method", bs.ost_correlation, (np.arange(5.0), np.arange(5.0)), dict(ceiling_method="sb"), ValueError, r"`ceiling_method` must be one of"),
    ("vd-metric-score-nan", lambda: bs.ValueDelta(n_resamples=10)(_xr().DataArray(np.nan), 0.8), None, None, ValueError,
     r"`source` must be finite; got nan"),
    ("vd-metric-text", lambda: bs.ValueDelta(n_resamples=10)("high", 0.8), None, None, TypeError, r"`source` must be a number, a Score"),
    ("vd-metric-ceiling-scalar", lambda: bs.ValueDelta(n_resamples=10).ceiling(0.8), None, None, ValueError,
     r"`target` must hold trials \(a 1-D array\) for a split-half ceiling"),
    ("vd-metric-scale", bs.ValueDelta, (), dict(scale=0), ValueError, r"`scale` must be positive; got 0"),
    ("ost-metric-dims", lambda: bs.OSTCorrelation(n_resamples=10)(_xr().DataArray(np.arange(5.0), dims=["image"]), np.arange(5.0)),
     None, None, ValueError, r"`source_osts` must have a 'presentation' dimension .*got dims \('image',\)"),
    ("ost-metric-ceiling-1d", lambda: bs.OSTCorrelation(n_resamples=10).ceiling(np.arange(5.0)), None, None, ValueError,
     r"`target_osts` needs a second dimension of subjects or trials .*got shape \(5,\)"),
    ("bench-i2n-extra-class", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1], metric="i2n", n_resamples=10, rng=0).score_table(
        _i2n()[0].assign(**{"Unnamed: 0": 1.0})), None, None, ValueError,
     r"candidates 'model': column\(s\) \['Unnamed: 0'\] are not classes of the human trials"),
    ("bench-i2n-human-name", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1], metric="i2n", n_resamples=10, rng=0).score_table(
        {str(_i2n()[1].subject.iloc[0]): _i2n()[0]}), None, None, ValueError,
     r"candidates: \['s\d+'\] are humans of the benchmark"),
    ("i2n-probs-array", lambda: bs.i2n(np.ones((3, 2)), _i2n()[1]), None, None, TypeError,
     r"`model_probabilities` must be a pandas DataFrame indexed by image.*got ndarray"),
    ("i2n-trials-columns", lambda: bs.i2n(_i2n()[0], _i2n()[1].drop(columns="truth")), None, None, ValueError,
     r"`human_trials` lacks the column\(s\) \['truth'\]"),
    ("i2n-image-missing", lambda: bs.i2n(_i2n()[0].iloc[1:], _i2n()[1]), None, None, ValueError,
     r"`model_probabilities` has no row for 1 image\(s\) of `human_trials`, e.g. 'img0000'"),
    ("i2n-unknown-class", lambda: bs.i2n(_i2n()[0], _i2n()[1].replace({"response": {"o1": "zebra"}})), None, None,
     ValueError, r"`human_trials.response` holds 'zebra', which is not a column of `model_probabilities`"),
    ("i2n-2afc-response", lambda: bs.i2n(_i2n()[0], _i2n()[1].assign(response="o0", truth="o1")), None, None,
     ValueError, r"each `response` must be the `truth` or the `distractor`"),
    ("i2n-negative-prob", lambda: bs.i2n(-_i2n()[0], _i2n()[1]), None, None, ValueError,
     r"`model_probabilities` must be finite and ≥ 0"),
    ("i2n-compat-sb", lambda: bs.i2n(*_i2n(), brainscore_compatible=True, ceiling_method="spearman-brown"), None, None,
     ValueError, r"`brainscore_compatible=True` reproduces Brain-Score: it needs ceiling_method='split-half'"),
    ("i2n-compat-text", lambda: bs.i1n(*_i2n(), brainscore_compatible="yes"), None, None, ValueError,
     r"`brainscore_compatible` must be True or False; got 'yes'"),
    ("i2n-correction", lambda: bs.i2n(*_i2n(), rate_correction="hautus"), None, None, ValueError,
     r"`rate_correction` must be one of 'none', 'loglinear'; got 'hautus'"),
    ("i2n-splits", lambda: bs.i2n(*_i2n(), n_splits=0), None, None, ValueError, r"`n_splits` must be"),
    # ---- BehavioralBenchmark on the per-image metrics
    ("bench-i2n-trials", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1], metric="i2n", n_resamples=5, rng=0)(_i2n()[1]),
     None, None, ValueError, r"metric 'i2n' scores a candidate's class probabilities .* got a trials table"),
    ("bench-i2n-ragged", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1], metric="i2n", n_resamples=5, rng=0)(
        _i2n()[0].assign(o2=np.nan)), None, None, ValueError, r"candidates 'model': the class column\(s\) \['o2'\] .*ragged"),
    ("bench-i2n-humans", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1].drop(columns="truth"), metric="i2n"), None, None,
     ValueError, r"`humans` of metric 'i2n' lack the column\(s\) \['truth'\]"),
    ("bench-i2n-options", lambda: tw.brainscore.BehavioralBenchmark(_i2n()[1], metric="i2n", metric_options={"scale": 1}), None,
     None, ValueError, r"`metric_options` of metric 'i2n' may hold"),
    ("bench-ec-scalar", lambda: tw.brainscore.BehavioralBenchmark(humans(), PROTO, scalar=len), None, None, ValueError,
     r"`scalar` and `metric_options` apply to the metrics"),
    ("bench-vd-scalar", lambda: tw.brainscore.BehavioralBenchmark(humans(), metric="value-delta", scalar=3), None, None, TypeError,
     r"`scalar` must be a callable"),
    ("bench-vd-images", lambda: tw.brainscore.BehavioralBenchmark(humans(), metric="value-delta", n_resamples=5)(
        trials()[trials().subject == "m1"].iloc[5:]), None, None, ValueError,
     r"candidate trials: 'm1' must answer exactly the humans' 80 images .* it lacks 5 and has 0"),
    ("bench-vd-compatible", lambda: tw.brainscore.BehavioralBenchmark(humans(), metric="value-delta", brainscore_compatible=True),
     None, None, ValueError, r"`brainscore_compatible=True` applies to error-consistency, i2n and i1n"),
    ("bench-ost-humans", lambda: tw.brainscore.BehavioralBenchmark(pd.DataFrame({"image": ["a"], "t": [1.0]}), metric="ost"), None,
     None, ValueError, r"`humans` of metric 'ost' lack the column\(s\) \['ost'\]"),
    ("bench-ost-image", lambda: tw.brainscore.BehavioralBenchmark(pd.DataFrame({"image": list("abcd"), "ost": [1.0, 2, 3, 4]}),
                                                       metric="ost", n_resamples=5)(pd.Series([1.0, 2, 3], index=list("abc"))),
     None, None, ValueError, r"candidates 'model': no OST for 1 of the humans' images, e.g. 'd'"),
    # ---- comparison: labels (2×2 correctness)
    ("ct-none", cmp.contingency_table, (), {}, TypeError, r"pass the labels y_true, pred_a and pred_b, or `counts`"),
    ("ct-both", cmp.contingency_table, (Y, PA, PB), dict(counts=COUNTS), TypeError, r"not both"),
    ("ct-length", cmp.contingency_table, (Y, PA, PB[:-1]), {}, ValueError, r"`pred_b` has 59"),
    ("ct-pd-NA", cmp.contingency_table, (Y, PA, [pd.NA] + list(PB[1:])), {}, ValueError, r"`pred_b` has a missing value.* at position 0"),  # fixed by helper-1
    ("ct-nan-label", cmp.contingency_table, (Y, PA, [NAN] + list(PB[1:])), {}, ValueError, r"`pred_b` has a missing value"),
    ("ct-empty", cmp.contingency_table, ([], [], []), {}, ValueError, r"`y_true` is empty"),
    ("ct-str", cmp.contingency_table, ("abc", PA, PB), {}, TypeError, r"`y_true` must be a 1-D array"),
    ("ct-2d", cmp.contingency_table, (np.c_[Y, Y], PA, PB), {}, ValueError, r"`y_true` must be 1-D"),
    ("ct-counts-overflow", cmp.contingency_table, (), dict(counts=[[2**62, 2**62], [2**62, 2**62]]), ValueError,
     r"`counts` holds more than 2\*\*53"),  # fixed by helper-1
    ("ct-counts-1e19", cmp.contingency_table, (), dict(counts=[[1e19, 1], [1, 1]]), ValueError, r"`counts` holds more than"),  # fixed by helper-1
    ("ct-counts-complex", cmp.contingency_table, (), dict(counts=[[1j, 1], [1, 1]]), TypeError, r"`counts` must hold real"),  # fixed by helper-1
    ("mcnemar-method", cmp.mcnemar, (Y, PA, PB), dict(method="fast"), ValueError, r"`method` must be one of"),
    ("mcnemar-counts-shape", cmp.mcnemar, (), dict(counts=KCOUNTS), ValueError, r"`counts` must be a 2×2 table"),
    ("mcnemar-counts-neg", cmp.mcnemar, (), dict(counts=[[1, -1], [1, 1]]), ValueError, r"`counts` must be non-negative"),
    ("mcnemar-resamples", cmp.mcnemar, (Y, PA, PB), dict(method="permutation", n_resamples=1e30), ValueError, r"`n_resamples`"),
    ("mcnemar-rng", cmp.mcnemar, (Y, PA, PB), dict(method="permutation", rng="x"), TypeError, r"`rng`"),
    ("yq-counts-nan", cmp.yules_q, (), dict(counts=[[1, NAN], [1, 1]]), ValueError, r"`counts` must be finite"),
    ("yq-level", cmp.yules_q, (Y, PA, PB), dict(confidence_level=0), ValueError, r"`confidence_level`"),
    # ---- comparison: agreement (K × K)
    ("am-length", cmp.agreement_matrix, (PA, PB[:-1]), {}, ValueError, r"`pred_b` has 59"),
    ("am-none", cmp.agreement_matrix, (None, PB), {}, TypeError, r"pred_a"),
    ("am-empty", cmp.agreement_matrix, ([], []), {}, ValueError, r"`pred_a` is empty"),
    ("am-classes-missing", cmp.agreement_matrix, (PA, PB), dict(classes=["cat"]), ValueError, r"which is not one of `classes`"),
    ("am-classes-twice", cmp.agreement_matrix, (PA, PB), dict(classes=["cat", "cat", "dog", "car"]), ValueError, r"`classes` contains the class 'cat' twice"),
    ("am-pd-NA", cmp.agreement_matrix, ([pd.NA] + list(PA[1:]), PB), {}, ValueError, r"`pred_a` has a missing value"),  # fixed by helper-1
    ("dis-counts-1x1", cmp.disagreement, (), dict(counts=[[5]]), ValueError, r"`counts` must be a square K × K table with K >= 2"),
    ("dis-counts-rect", cmp.disagreement, (), dict(counts=[[1, 2, 3], [4, 5, 6]]), ValueError, r"`counts` must be a square"),
    ("dis-counts-str", cmp.disagreement, (), dict(counts=[["a", "b"], ["c", "d"]]), TypeError, r"`counts` must be a square table"),
    ("dis-counts-zero", cmp.disagreement, (), dict(counts=[[0, 0], [0, 0]]), ValueError, r"`counts` holds no items"),
    ("dis-counts-inf", cmp.disagreement, (), dict(counts=[[INF, 0], [0, 1]]), ValueError, r"`counts` must hold non-negative whole"),
    ("dis-counts-complex", cmp.disagreement, (), dict(counts=[[1j, 0], [0, 1]]), TypeError, r"`counts`"),  # fixed by helper-1
    ("dis-counts-2^63", cmp.disagreement, (), dict(counts=[[HUGE, 0], [0, 1]]), ValueError, r"`counts`"),  # fixed by helper-1
    ("ck-level", cmp.cohen_kappa, (PA, PB), dict(confidence_level=1), ValueError, r"`confidence_level`"),
    ("ck-classes-size", cmp.cohen_kappa, (), dict(counts=KCOUNTS, classes=["a", "b"]), ValueError, r"`classes` names 2 classes"),
    ("bowker-counts-neg", cmp.bowker_test, (), dict(counts=[[1, -1], [1, 1]]), ValueError, r"`counts`"),
    ("bowker-none", cmp.bowker_test, (), {}, TypeError, r"pass the predictions pred_a and pred_b, or `counts`"),
    ("sm-frame-mismatch", cmp.stuart_maxwell_test, (), dict(counts=pd.DataFrame(KCOUNTS, index=list("abc"), columns=list("abd"))),
     ValueError, r"must name the same classes"),
    ("spt-statistic", cmp.symmetry_permutation_test, (PA, PB), dict(statistic="chi2"), ValueError, r"`statistic` must be one of"),
    ("spt-resamples", cmp.symmetry_permutation_test, (PA, PB), dict(n_resamples=1e30), ValueError, r"`n_resamples`"),
    ("spt-resamples-0", cmp.symmetry_permutation_test, (PA, PB), dict(n_resamples=0), ValueError, r"`n_resamples`"),
    # ---- comparison: probabilities
    ("empty-compare", tw.compare, ([], [], []), {}, ValueError, r"`y_true` is empty"),
    ("empty-brier", cmp.brier_score, ([], []), {}, ValueError, r"`y_true` is empty"),
    ("empty-auc", cmp.auc, ([], []), {}, ValueError, r"`y_true` is empty"),
    ("empty-mcnemar", cmp.mcnemar, ([], [], []), {}, ValueError, r"`y_true` is empty"),
    ("empty-cohen", cmp.cohen_kappa, ([], []), {}, ValueError, r"`pred_a` is empty"),
    ("empty-ensemble", cmp.ensemble_recommendation, ([], [], []), {}, ValueError, r"`y_true` is empty"),
    ("auc-y-nan", cmp.auc, (np.r_[NAN, YB[1:]], PRA), {}, ValueError, r"`y_true` has a missing value"),
    ("auc-inf", cmp.auc, (YB, np.r_[INF, PRA[1:]]), {}, ValueError, r"`proba` must be in \[0, 1\]; got inf"),
    ("auc-length", cmp.auc, (YB, PRA[:-1]), {}, ValueError, r"`y_true` has 60, `proba` has 59"),
    ("delong-none", cmp.delong_test, (YB, None, PRB), {}, TypeError, r"`proba_a` must be numeric; got None"),
    ("brier-length", cmp.brier_score, (Y, P3A.iloc[:-1]), {}, ValueError, r"`proba` has 59"),
    ("brier-nan", cmp.brier_score, (YB, np.r_[NAN, PRA[1:]]), {}, ValueError, r"`proba` must not contain NaN"),
    ("brier-inf", cmp.brier_score, (YB, np.r_[INF, PRA[1:]]), {}, ValueError, r"`proba` must be in \[0, 1\]"),
    ("brier-range", cmp.brier_score, (YB, PRA + 1), {}, ValueError, r"`proba` must be in \[0, 1\]"),
    ("brier-rowsum", cmp.brier_score, (Y, P3A * 0.5), {}, ValueError, r"`proba`: row 0 sums to"),
    ("brier-str", cmp.brier_score, (YB, ["a"] * N), {}, TypeError, r"`proba` must be numeric"),
    ("brier-none", cmp.brier_score, (YB, None), {}, TypeError, r"`proba`"),
    ("brier-3d", cmp.brier_score, (YB, np.ones((N, 2, 2)) / 4), {}, ValueError, r"`proba` must be 1-D \(binary\) or n × K"),
    ("brier-one-column", cmp.brier_score, (YB, np.ones((N, 1))), {}, ValueError, r"`proba` has 1 column"),
    ("brier-classes", cmp.brier_score, (Y, P3A.to_numpy()), dict(classes=["a", "b"]), ValueError, r"`classes` names 2 classes"),
    ("brier-unknown-class", cmp.brier_score, (Y, P3A.to_numpy()), dict(classes=["car", "cat", "cow"]), ValueError,
     r"`y_true` contains the class 'dog', which has no column"),
    ("brier-binary-3-classes", cmp.brier_score, (Y, PRA), {}, ValueError, r"`proba` is 1-D .* `y_true` has 3 classes"),
    ("brier-single-class", cmp.brier_score, (np.ones(N, int), PRA), {}, ValueError, r"`y_true` holds a single class"),
    ("brier-convention", cmp.brier_score, (YB, PRA), dict(convention="both"), ValueError, r"`convention` must be one of"),
    ("brier-y-nan", cmp.brier_score, (np.r_[NAN, YB[1:]], PRA), {}, ValueError, r"`y_true` has a missing value.* at position 0"),
    ("bss-nan", cmp.brier_skill_score, (YB, np.r_[NAN, PRA[1:]]), {}, ValueError, r"`proba` must not contain NaN"),
    ("cal-bins-0", cmp.calibration_curve, (YB, PRA), dict(n_bins=0), ValueError, r"`n_bins` must be an integer >= 1"),
    ("cal-bins-huge", cmp.calibration_curve, (YB, PRA), dict(n_bins=HUGE), ValueError, r"`n_bins`"),
    ("cal-bins-str", cmp.calibration_curve, (YB, PRA), dict(n_bins="ten"), TypeError, r"`n_bins`"),
    ("cal-strategy", cmp.calibration_curve, (YB, PRA), dict(bin_strategy="log"), ValueError, r"`bin_strategy` must be one of"),
    ("cal-kind", cmp.calibration_curve, (YB, PRA), dict(kind="all"), ValueError, r"`kind` must be one of"),
    ("ece-bins-neg", cmp.expected_calibration_error, (YB, PRA), dict(n_bins=-1), ValueError, r"`n_bins`"),
    ("ss-scoring-rule", cmp.sample_scores, (YB, PRA), dict(scoring_rule="f1"), ValueError, r"`scoring_rule` must be one of"),
    ("sd-length", cmp.score_difference, (YB, PRA, PRB[:-1]), {}, ValueError, r"`proba_b` has 59"),
    ("sd-nan", cmp.score_difference, (YB, PRA, np.r_[NAN, PRB[1:]]), {}, ValueError, r"`proba_b` must not contain NaN"),
    ("tt-scoring-rule", cmp.paired_ttest, (YB, PRA, PRB), dict(scoring_rule="auc"), ValueError, r"`scoring_rule` must be one of"),
    ("wil-none", cmp.wilcoxon_test, (YB, PRA, None), {}, TypeError, r"`proba_b`"),
    ("corr-method", cmp.error_correlation, (YB, PRA, PRB), dict(method="kendall!"), ValueError, r"`method` must be one of"),
    # ---- comparison: AUC
    ("auc-nan", cmp.auc, (YB, np.r_[NAN, PRA[1:]]), {}, ValueError, r"`proba` must not contain NaN"),
    ("auc-multi", cmp.auc, (Y, P3A), dict(multi_class="all"), ValueError, r"`multi_class` must be one of"),
    ("auc-single-class", cmp.auc, (np.ones(N, int), PRA), {}, ValueError, r"`y_true` holds a single class"),
    ("auc-level", cmp.auc, (YB, PRA), dict(confidence_level=2), ValueError, r"`confidence_level`"),
    ("delong-length", cmp.delong_test, (YB, PRA, PRB[:-1]), {}, ValueError, r"`proba_b` has 59"),
    ("delong-adjust", cmp.delong_test, (Y, P3A, P3B), dict(adjust="sidak"), ValueError, r"`adjust` must be one of"),
    # ---- comparison: compare and ensemble_recommendation
    ("compare-nothing", tw.compare, (Y,), {}, (TypeError, ValueError), r"pred_a|proba_a"),
    ("compare-length", tw.compare, (Y, PA, PB[:-1]), {}, ValueError, r"`pred_b` has 59"),
    ("compare-names", tw.compare, (Y, PA, PB), dict(names="AB"), (TypeError, ValueError), r"`names`"),
    ("compare-alpha", tw.compare, (Y, PA, PB), dict(alpha=2), ValueError, r"`alpha`"),  # fixed by helper-1
    ("compare-resamples", tw.compare, (Y, PA, PB), dict(n_resamples=1e30), ValueError, r"`n_resamples`"),
    ("compare-bins", tw.compare, (Y, PA, PB, P3A, P3B), dict(n_bins=0), ValueError, r"`n_bins`"),
    ("compare-pd-NA", tw.compare, (Y, [pd.NA] + list(PA[1:]), PB), {}, ValueError, r"`pred_a` has a missing value"),  # fixed by helper-1
    ("ens-length", cmp.ensemble_recommendation, (Y, PA, PB[:-1]), {}, ValueError, r"`pred_b` has 59"),
    ("ens-alpha", cmp.ensemble_recommendation, (Y, PA, PB), dict(alpha=-1), ValueError, r"`alpha`"),
    ("ens-gap", cmp.ensemble_recommendation, (Y, PA, PB), dict(accuracy_gap=NAN), ValueError, r"`accuracy_gap`"),
    ("ens-redundancy", cmp.ensemble_recommendation, (Y, PA, PB), dict(redundancy=2), ValueError, r"`redundancy`"),
    ("ens-method", cmp.ensemble_recommendation, (Y, PA, PB), dict(mcnemar_method="x"), ValueError, r"`mcnemar_method`|`method`"),
    # ---- agreement between models (issue 18)
    ("agree-sum", tw.agreement, (P3A * 1.1, P3B, YI), {}, ValueError, r"`a` rows must sum to 1 .* question 0 sums to 1\.1"),
    ("agree-nan", tw.agreement, (np.where(np.arange(N)[:, None] == 0, NAN, P3A), P3B, YI), {}, ValueError, r"`a` must hold finite probabilities ≥ 0; found nan"),
    ("agree-text", tw.agreement, ([["x", "y"]] * 3, [[0.5, 0.5]] * 3, [0, 1, 0]), {}, TypeError, r"`a` must be numeric"),
    ("agree-one-option", tw.agreement, ([[1.0]] * 3, [[1.0]] * 3, [0, 0, 0]), {}, ValueError, r"`a` needs at least 2 options per question"),
    ("agree-truth-labels", tw.agreement, (P3A, P3B, Y), {}, TypeError, r"`truth` must hold option indices \(0, 1, \.\.\.\); got 'car'"),
    ("agree-truth-range", tw.agreement, (P3A, P3B, YI + 1), {}, ValueError, r"`truth` must be an option index below .* 3 options"),
    ("agree-truth-length", tw.agreement, (P3A, P3B, YI[:-1]), {}, ValueError, r"`truth` must hold one correct option index per question \(60\)"),
    ("agree-no-truth", tw.agreement, (P3A, P3B), {}, ValueError, r"`truth` is needed by metric='capa'"),
    ("agree-other-options", tw.agreement, (P3A, P3B.iloc[:, :2], YI), {}, ValueError, r"`b` rows must sum to 1"),
    ("agree-ci-method", tw.agreement, (P3A, P3B, YI), dict(ci_method="jeffreys"), ValueError, r"`ci_method` must be one of 'percentile', 'bca', 'bc', 'basic', 'jackknife-t'; got 'jeffreys'"),
    ("agree-clusters-nan", tw.agreement, (P3A, P3B, YI), dict(clusters=[None] + [1] * (N - 1)), ValueError, r"`clusters` has a missing label at question 0"),
    ("agree-ec-clusters-missing", tw.agreement, (P3A, P3B, YI), dict(metric="ec", clusters=[None] * N), ValueError, r"`clusters` has a missing label"),
    ("pw-agree-differences-adjust", lambda: _demo_agreement().differences(adjust="sidak"), None, None, ValueError,
     r"`adjust` must be one of .*holm.*; got 'sidak'"),
    ("pw-agree-differences-alpha", lambda: _demo_agreement().differences(alpha=5), None, None, ValueError,
     r"`alpha` must be .*; got 5"),
    ("pw-agree-differences-no-replicates", lambda: tw.pairwise_agreement(tw.datasets.llm_demo(), n_resamples=0).differences(),
     None, None, ValueError, r"holds no bootstrap replicates"),
    ("pw-agree-list", tw.pairwise_agreement, (P3A.to_numpy().tolist(),), {}, TypeError, r"`trials` must be a trial table .* or a \(models × questions × options\) numpy array; got list"),
    ("pw-agree-array-2d", tw.pairwise_agreement, (P3A.to_numpy(),), dict(truth=YI), ValueError, r"`trials` as an array must be 3-D \(models × questions × options\)"),
    ("pw-agree-array-sum", tw.pairwise_agreement, (np.stack([P3A.to_numpy(), 1.1 * P3B.to_numpy()]),), dict(truth=YI), ValueError, r"`trials` rows must sum to 1 .* model 1, question 0 sums to 1\.1"),
    ("pw-agree-array-no-truth", tw.pairwise_agreement, (np.stack([P3A.to_numpy(), P3B.to_numpy()]),), {}, ValueError, r"`truth` is needed with an array `trials`"),
    ("pw-agree-n-options", tw.pairwise_agreement, (np.stack([P3A.to_numpy(), P3B.to_numpy()]),), dict(truth=YI, n_options=[3] * (N - 1) + [4]), ValueError, r"`n_options` must be in \[2, 3\] .* question 59 has 4"),
    ("pw-agree-table-truth", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(truth=[0]), ValueError, r"`truth` and `n_options` go with an array `trials`"),
    ("pw-agree-ec-point", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(metric="ec", n_resamples=0), ValueError, r"`n_resamples`=0 \(point values only\) is for metric 'capa'.*got metric='ec'"),
    ("pw-agree-resamples-negative", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(n_resamples=-1), ValueError, r"`n_resamples` must be an integer >= 0; got -1"),
    ("pw-agree-no-probs", tw.pairwise_agreement, (pd.DataFrame({"subject": ["m"], "image": ["i"], "truth": ["0"], "n_options": [2]}),), {}, ValueError,
     r"`trials` lacks the column\(s\) \['probabilities'\]"),
    ("pw-agree-clusters", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(clusters="passage"), ValueError, r"`clusters` must name a column of `trials`"),
    ("pw-agree-keep", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(keep_replicates="no"), TypeError, r"`keep_replicates` must be True, False or None; got 'no'"),
    ("pw-agree-client", tw.pairwise_agreement, (tw.datasets.llm_demo(),), dict(client=2), TypeError, r"`client` must be a dask.distributed.Client \(or None\); got 2 of type int"),
    # ==== leaderboard (issue 29, API list, helper A): add rows below this line
    # a new user's own trials (no model-vs-human experiment): the default protocol is built from them; a
    # protocol the user names that the trials do not match stays an error that says the fix
    ("lb-named-protocol-unmatched", lambda: tw.leaderboard(trials(), "model-vs-human", n_resamples=5), None, None,
     ValueError, r"none of the experiments of protocol 'model-vs-human' is in the trials: .*the trials have one experiment, 'exp'\. To "
                 r"score every experiment and condition of the trials, leave out `protocol`"),
    ("lbdt-named-protocol-unmatched", lambda: tw.leaderboards.difference_test(trials(), "m1", "m2", protocol="texture-vs-shape",
     n_resamples=5), None, None, ValueError, r"protocol 'texture-vs-shape' is in the trials.*leave out `protocol`"),
    ("lb-name-int", lambda: tw.leaderboard(trials(), name=3, n_resamples=5), None, None, TypeError,
     r"`name` must be a non-empty string; got 3"),
    ("lb-name-blank", lambda: tw.leaderboard(trials(), name=" ", n_resamples=5), None, None, TypeError,
     r"`name` must be a non-empty string; got ' '"),
    # every observer always right: κ is 0/0 everywhere, nothing to rank (was: NaN scores without a warning)
    ("lb-all-always-right", lambda: tw.leaderboard(tw.read_trials(trials().drop(columns="correct").assign(
        response=lambda f: f.truth)), n_resamples=5), None, None, ValueError,
     r"`trials`: no candidate has a defined error-consistency in any condition — .*always right \(the ceiling\).*"
     r"protocol 'accuracy', --protocol accuracy"),
    ("lbdt-all-always-right", lambda: tw.leaderboards.difference_test(tw.read_trials(trials().drop(columns="correct").assign(
        response=lambda f: f.truth)), "m1", "m2", n_resamples=5), None, None, ValueError,
     r"no candidate has a defined error-consistency.*the ceiling"),
    # an empty table (was: "no reference observers"), only humans, a protocol that excludes everything
    ("lb-empty-table", lambda: tw.leaderboard(trials().iloc[:0], n_resamples=5), None, None, ValueError,
     r"`trials`: the table has no rows"),
    ("lb-empty-table-reference", lambda: tw.leaderboard(trials().iloc[:0], reference=["h1"], n_resamples=5), None,
     None, ValueError, r"`trials`: the table has no rows"),
    ("lb-only-humans-default", lambda: tw.leaderboard(humans(), n_resamples=5), None, None, ValueError,
     r"no candidate observers: every observer belongs to the reference group \(3: h1, h2, h3\).*observer_type is "
     r"'human'; name it with `reference=` / --reference"),
    ("lb-protocol-excludes-all", lambda: tw.leaderboard(trials(), tw.leaderboards.Protocol("p", exclude={"exp": ["c1", "c2"]}),
     n_resamples=5), None, None, ValueError, r"protocol 'p' leaves no trials: it excludes every condition"),
    # ==== end of leaderboard (issue 29, API list, helper A)
    # ==== compare (issue 29, API list, helper B): add rows below this line
    ("cmp29-classes-without-a-truth-class", tw.compare, ([0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 2]), dict(classes=[0, 1]),
     ValueError, r"`y_true` has the label 2 \(position 2\), which is not one of `classes` \(0, 1\)"),
    ("cmp29-classes-twice", tw.compare, ([0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 2]), dict(classes=[0, 1, 1, 2]),
     ValueError, r"`classes` contains the class 1 twice"),
    ("cmp29-classes-str", tw.compare, ([0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 2]), dict(classes="012"),
     TypeError, r"`classes` must be a sequence of classes; got '012'"),
    ("cmp29-adjust", tw.compare, (Y, PA, PB), dict(adjust="x"), ValueError, r"`adjust` must be one of"),
    ("cmp29-bins-unused", tw.compare, (Y, PA, PB), dict(n_bins=0), ValueError, r"`n_bins` must be an integer >= 1"),
    ("cmp29-bin-strategy-unused", tw.compare, (Y, PA, PB), dict(bin_strategy="log"), ValueError, r"`bin_strategy` must be one of"),
    ("cmp29-logits", cmp.brier_score, (Y, 3 * np.log(P3A.to_numpy())), {}, ValueError,
     r"`proba`: row 0 holds -[\d.]+: probabilities must be in \[0, 1\]; negative values: these look like logits"),
    ("cmp29-log-probabilities", cmp.brier_score, (Y, np.log(P3A.to_numpy())), {}, ValueError,
     r"these look like log-probabilities: apply numpy\.exp"),
    ("cmp29-percentages", cmp.brier_score, (Y, P3A * 100), {}, ValueError, r"the rows sum to 100: these look like percentages"),
    ("cmp29-rounded-to-2", cmp.brier_score, (Y, P3A.round(2)), {}, ValueError,
     r"`proba`: row 1 sums to 0\.99, not 1 \(a row of 3 values rounded to 3 decimals is off by at most 0\.0015, one not "
     r"rounded by at most 0\.0001\); "
     r"the values are rounded to 2 decimals"),
    ("cmp29-one-column-logit", cmp.brier_score, (YB, np.log(PRA + 0.01)), {}, ValueError,
     r"`proba` must be in \[0, 1\]; got -[\d.]+ \(item \d+\); these look like logits or scores; apply a sigmoid"),
    ("cmp29-frame-ambiguous", cmp.brier_score, (["cat", "cats", "at", "ats"], pd.DataFrame(
        [[0.3, 0.7], [0.6, 0.4], [0.2, 0.8], [0.5, 0.5]], columns=["m_cat", "m_cats"])), {}, ValueError,
     r"`proba`: the columns m_cat, m_cats name the classes in more than one way: .*pass the classes \(classes=\)"),
    ("cmp29-ensemble-classes-without-a-truth-class", cmp.ensemble_recommendation, ([0, 1, 2, 2], [0, 1, 2, 1], [0, 1, 1, 2]),
     dict(classes=[0, 1]), ValueError, r"`y_true` has the label 2 \(position 2\), which is not one of `classes` \(0, 1\)"),
    ("cmp29-ensemble-bins-unused", cmp.ensemble_recommendation, (Y, PA, PB), dict(n_bins=0), ValueError,
     r"`n_bins` must be an integer >= 1; got 0"),
    # ==== end of compare (issue 29, API list, helper B)
    # ==== cli-files-seeds (issue 29, API list, helper C): add rows below this line
    # ==== end of cli-files-seeds (issue 29, API list, helper C)
    # ==== misc API (issue 29, API list, helper H): add rows below this line
    # -- files that are not regular files, or have no rows
    ("read-table-folder", tw.io.read_table, (F("empty_folder"),), {}, ValueError, r"empty-folder: is a folder, not a file"),
    ("read-trials-folder", tw.read_trials, (F("empty_folder"),), {}, ValueError, r"empty-folder: is a folder, not a file"),
    ("read-table-dev-null", tw.io.read_table, ("/dev/null",), {}, ValueError, r"/dev/null: is not a regular file"),
    ("read-trials-dev-null", tw.read_trials, ("/dev/null",), {}, ValueError, r"/dev/null: is not a regular file"),
    ("read-lm-eval-dev-null", tw.io.read_lm_eval, ("/dev/null",), {}, ValueError, r"/dev/null: is not a regular file"),
    ("read-helm-dev-null", tw.io.read_helm, ("/dev/null",), {}, ValueError, r"/dev/null: is not a regular file"),
    ("mvh-dev-null", tw.io.read_model_vs_human, ("/dev/null",), {}, ValueError, r"/dev/null: is not a folder"),
    ("mvh-a-file", tw.io.read_model_vs_human, (F("good_csv"),), {}, ValueError,
     r"good\.csv: is a file, not a folder: read_model_vs_human reads the raw-data folder .* read_trials"),
    ("mvh-humans-regex", tw.io.read_model_vs_human, (F("raw_data"),), dict(humans="("), ValueError,
     r"`humans` must be a regular expression; got '\(' \(missing \)"),
    ("mvh-humans-type", tw.io.read_model_vs_human, (F("raw_data"),), dict(humans=1), TypeError,
     r"`humans` must be a regular expression \(str\); got int 1"),
    ("paired-no-rows", tw.io.paired_correctness, (pd.DataFrame(columns=["image", "truth", "response"]),
                                               pd.DataFrame({"image": ["i1"], "truth": ["c"], "response": ["c"]})),
     dict(names=("a.csv", "b.csv")), ValueError, r"a\.csv: the table has no rows"),
    ("read-trials-correct-na", tw.read_trials, (pd.DataFrame({"subject": ["s", "s"], "image": ["i1", "i2"],
                                                              "correct": [True, pd.NA]}),), {}, ValueError,
     r"trials: column 'correct' has an empty value \(row 2\)"),
    ("read-trials-duplicate-columns", tw.read_trials, (pd.DataFrame([["s", "i1", "c", "c", "d"]], columns=[
        "subject", "image", "truth", "response", "truth"]),), {}, ValueError,
     r"trials: 2 columns are named 'truth'; rename or drop all but one"),
    ("paired-names-type", tw.io.paired_correctness, (pd.DataFrame({"image": ["i1"], "correct": [1]}),
                                                  pd.DataFrame({"image": ["i1"], "correct": [0]})),
     dict(correct="correct", names=3), TypeError, r"`names` must be two names \(str, str\) .*; got 3"),
    ("rt-probabilities-truth-label", tw.read_trials, (pd.DataFrame({"subject": ["s"], "image": ["i1"], "truth": ["cat"],
                                                                    "response": ["0"], "pa": [0.5], "pb": [0.5]}),),
     dict(probabilities=["pa", "pb"]), ValueError,
     r"trials: row 1: with `probabilities`, column 'truth' must hold option indices 0 to 1 \(the row has 2 options\); "
     r"got 'cat'"),
    ("rt-probabilities-response-range", tw.read_trials, (pd.DataFrame({"subject": ["s"], "image": ["i1"], "truth": ["1"],
                                                                       "response": ["2"], "p": ["[0.5, 0.5]"]}),),
     dict(probabilities="p"), ValueError, r"trials: row 1: with `probabilities`, column 'response' must hold option "
                                          r"indices 0 to 1 .*got '2'"),
    ("pw-correct-text", pw, (pd.DataFrame({"x": [1, 0, "yes"], "y": [1, 0, 1]}),), {}, TypeError,
     r"`correct` must hold correctness \(0/1, bool, NaN = not seen\); got 'yes' at row 2, column 0"),
    # -- counts are whole numbers, not True/False
    ("ec-counts-bool", ec, (), dict(counts=[[True, False], [False, True]]), TypeError,
     r"`counts` must hold counts \(non-negative whole numbers\), not True/False; got \[\[True, False\], \[False, True\]\]"),
    ("ecd-counts-bool", ecd, (), dict(counts=np.ones((2, 2, 2), bool)), TypeError, r"`counts` must hold counts .*not True/False"),
    ("kappa-counts-bool", tw.ec.kappa_from_counts, ([[True, False], [False, True]],), {}, TypeError,
     r"`counts` must be (2×2|square) tables of counts \(numbers\), not True/False"),
    # -- an interval from one replicate has no width
    ("ec-resamples-1", ec, (CA, CB), dict(n_resamples=1), ValueError,
     r"`n_resamples` must be at least 2: the interval of one replicate has no width whatever the data; got 1"),
    ("ec-resamples-1-percentile", ec, (CA, CB), dict(n_resamples=1, ci_method="percentile"), ValueError,
     r"`n_resamples` must be at least 2"),
    ("pw-resamples-1", pw, (WIDE,), dict(n_resamples=1), ValueError, r"`n_resamples` must be at least 2"),
    ("ecd-resamples-1", ecd, (CA, CB, np.roll(CA, 3)), dict(n_resamples=1, ci_method="percentile"), ValueError,
     r"`n_resamples` must be at least 2"),
    ("agree-resamples-1", tw.agreement, (P3A, P3B, YI), dict(n_resamples=1), ValueError,
     r"`n_resamples` must be 0 \(point values only, no interval\) or at least 2"),
    ("ost-resamples-1", bs.ost_correlation, (np.arange(10.0), np.arange(10.0) ** 2), dict(n_resamples=1), ValueError,
     r"`n_resamples` must be at least 2"),
    ("i2n-resamples-1", lambda: bs.i2n(*_i2n(), n_resamples=1), None, None, ValueError, r"`n_resamples` must be at least 2"),
    ("value-delta-resamples-1", bs.value_delta, (np.arange(10.0), np.arange(10.0)), dict(n_resamples=1), ValueError,
     r"`n_resamples` must be at least 2"),
    ("validate-copy-model-resamples-1", tw.planning.validate_copy_model, (), dict(n=100, accuracy_a=0.7, accuracy_b=0.7, kappa=0.3,
                                                                          n_resamples=1), ValueError,
     r"`n_resamples` must be at least 2"),
    # -- planning: True/False is not a number of questions, a cluster label is not missing, an undefined pilot
    ("acc-half-width-n-bool", tw.planning.accuracy_half_width, (0.5,), dict(n=True), TypeError,
     r"`n` must be a whole number of questions >= 1 .*not True/False; got True"),
    ("design-effect-bool", tw.planning.design_effect, (True, 0.1), {}, TypeError, r"`cluster_size` must be a number, not True/False"),
    ("icc-missing-cluster", tw.planning.estimate_icc, ([1, 0, 1, 0], [1, None, 2, 2]), {}, ValueError,
     r"`clusters` has a missing label at position 1"),
    ("icc-missing-cluster-column", tw.planning.estimate_icc, (pd.DataFrame({"correct": [1, 0, 1, 0], "cluster": ["a", None, "b", "b"]}),),
     {}, ValueError, r"`clusters`: column 'cluster' has a missing label at row 1"),
    ("agree-half-width-undefined-pilot", tw.planning.agreement_half_width, ([[1.0, 0.0]] * 4, [[1.0, 0.0]] * 4, [0] * 4),
     dict(half_width=0.1), ValueError, r"`a` and `b`: the pilot's chance agreement c_exp is 1 .*no n can be planned"),
    ("ci-width-simulations-1", tw.planning.ci_width, (100, 0.7, 0.7, 0.3), dict(n_simulations=1), ValueError,
     r"`n_simulations` must be at least 2: one simulated data set has no spread"),
    ("plan-simulations-1", tw.plan_trials, (0.1, 0.7, 0.7, 0.3), dict(n_simulations=1), ValueError,
     r"`n_simulations` must be at least 2"),
    ("power-difference-simulations-1", tw.planning.power_difference, (0.3, 0.1, 0.7, 0.7, 0.7), dict(n=100, n_simulations=1),
     ValueError, r"`n_simulations` must be at least 2"),
    ("power-accuracy-simulations-1", tw.planning.power_accuracy_difference, (0.7, 0.6), dict(n=100, n_simulations=1), ValueError,
     r"`n_simulations` must be at least 2"),
    # -- agreement: one question (or cluster) to resample
    ("agree-one-question", tw.agreement, (P3A.iloc[:1], P3B.iloc[:1], YI[:1]), dict(n_resamples=50, rng=0), ValueError,
     r"`a` and `b` hold 1 question: an interval that resamples questions needs at least 2; pass n_resamples=0"),
    ("agree-one-cluster", tw.agreement, (P3A, P3B, YI), dict(clusters=["c"] * N, n_resamples=50, rng=0), ValueError,
     r"`clusters` holds 1 cluster: an interval that resamples clusters needs at least 2"),
    ("pw-agree-one-question", tw.pairwise_agreement, (np.stack([P3A.to_numpy()[:1], P3B.to_numpy()[:1]]),),
     dict(truth=YI[:1], n_resamples=50, rng=0), ValueError, r"`trials` holds 1 question"),
    # -- Brain-Score metrics
    ("ost-ceiling-above-1", bs.ost_correlation, (np.arange(10.0), np.arange(10.0) ** 2), dict(ceiling=1.5), ValueError,
     r"`ceiling` must be in \(0, 1\] \(the correlation of the target with itself\); got 1\.5"),
    ("ost-ceiling-zero", bs.ost_correlation, (np.arange(10.0), np.arange(10.0) ** 2), dict(ceiling=0), ValueError,
     r"`ceiling` must be in \(0, 1\]"),
    ("ost-ceiling-nan", bs.ost_correlation, (np.arange(10.0), np.arange(10.0) ** 2), dict(ceiling=NAN), ValueError,
     r"`ceiling` must be in \(0, 1\].*got nan"),
    ("ost-ceiling-bool", bs.ost_correlation, (np.arange(10.0), np.arange(10.0) ** 2), dict(ceiling=True), TypeError,
     r"`ceiling` must be a number in \(0, 1\] or None; got True"),
    ("ost-metric-ceiling-method", bs.OSTCorrelation, (), dict(ceiling_method="x"), ValueError,
     r"`ceiling_method` must be one of 'split-half', 'spearman-brown', 'attenuation'; got 'x'"),
    ("i2n-metric-rate-correction", bs.I2n, (), dict(rate_correction="x"), ValueError,
     r"`rate_correction` must be one of 'none', 'loglinear'; got 'x'"),
    ("i1n-metric-compatible", bs.I1n, (), dict(brainscore_compatible="yes"), TypeError,
     r"`brainscore_compatible` must be True or False; got 'yes'"),
    ("i2n-sum-3", lambda: bs.i2n(_i2n()[0] * 3, _i2n()[1], n_resamples=10, rng=0), None, None, ValueError,
     r"`model_probabilities` rows must sum to 1 .*image '.+' sums to 3 \(\d+ of \d+ rows are off\): for scores or "
     r"logits, apply a softmax first"),
    ("i2n-missing-truth", lambda: bs.i2n(_i2n()[0], _i2n()[1].assign(truth=lambda f: f.truth.where(f.index != 2, None)),
                                         n_resamples=10, rng=0), None, None, ValueError,
     r"`human_trials\.truth` has a missing value at row 2; every trial needs its truth"),
    ("i2n-text", lambda: bs.i2n(_i2n()[0].astype(object).assign(o0="high"), _i2n()[1], n_resamples=10, rng=0), None,
     None, TypeError, r"`model_probabilities` must be numeric; got 'high'"),
    # ==== end of misc API (issue 29, API list, helper H)
]

DEGENERATE = [
    ("agree-chance-is-one", tw.agreement, (np.eye(2)[[0, 1, 1]], np.eye(2)[[0, 1, 1]], [0, 1, 1]), dict(rng=0, n_resamples=100),
     tw.DegenerateDataWarning, r"chance agreement c_exp = 1", lambda r: np.isnan(r.statistic) and r.c_exp == 1.0),
    ("ec-a-always-right", ec, (), dict(counts=[[30, 10], [0, 0]], rng=0), tw.DegenerateDataWarning, r"A is always correct",
     lambda r: r.statistic == 0.0 and "always correct" in r.notes[0]),
    ("ec-both-always-right", ec, (), dict(counts=[[40, 0], [0, 0]], rng=0), tw.DegenerateDataWarning, r"undefined",
     lambda r: np.isnan(r.statistic)),
    ("unceil-clipped", bs.unceil_score, ([0.0, 0.5, 1.0], 0.4), {}, tw.DegenerateDataWarning, r"2 score\(s\) at 0 or 1",
     lambda r: r.tolist() == [0.0, 0.2, 0.4]),
    ("ec-sparse-table", ec, (), dict(counts=[[1, 1], [1, 1]], rng=0), tw.SparseTableWarning, r"too sparse",
     lambda r: r.statistic == 0.0 and r.pvalue == 1.0),
    ("pw-constant-observer", pw, (pd.DataFrame({"x": [1.0] * 4, "y": [1.0, 0, 1, 0]}),), dict(rng=0), tw.DegenerateDataWarning,
     r"A is always correct: EC is exactly 0", lambda r: r.statistic.tolist() == [0.0]),
    ("mcnemar-no-discordant", cmp.mcnemar, (Y, Y, Y), {}, tw.DegenerateDataWarning, r"n10 = n01 = 0",
     lambda r: r.statistic == 0.0 and r.pvalue == 1.0),
    ("bowker-never-disagree", cmp.bowker_test, (PA, PA), {}, tw.DegenerateDataWarning, r"never disagree",
     lambda r: r.statistic == 0.0 and r.pvalue == 1.0),
    ("yules-q-zero-cell", cmp.yules_q, (), dict(counts=[[10, 0], [0, 10]]), tw.DegenerateDataWarning, r"a cell of the table is zero",
     lambda r: r.statistic == 1.0),
    ("cohen-one-class", cmp.cohen_kappa, (["a"] * 10, ["a"] * 10), {}, tw.DegenerateDataWarning, r"one and the same class",
     lambda r: np.isnan(r.statistic)),
    ("error-correlation-constant", cmp.error_correlation, ([0, 1, 0, 1], [0.5] * 4, [0.2, 0.8, 0.1, 0.9]), {},
     tw.DegenerateDataWarning, r"a score column is constant", lambda r: np.isnan(r.statistic)),
    # issue 17 (HR3): conditions that some or all rows' scores leave out, named once
    ("lb-all-at-ceiling", lambda: tw.leaderboard(at_ceiling(("h1", "h2", "h3", "m1", "m2")), PROTO, n_resamples=20,
     rng=0), None, None, tw.DegenerateDataWarning, r"left out of every score: exp/c2",
     lambda lb: _undefined(lb, ["exp/c2"], {}) and np.isfinite(lb.scores).all()),
    ("lb-humans-at-ceiling", lambda: tw.leaderboard(at_ceiling(("h1", "h2", "h3")), PROTO, n_resamples=20, rng=0),
     None, None, tw.DegenerateDataWarning, r"left out of some rows' scores only.*exp/c2 \(human–human\)",
     lambda lb: _undefined(lb, [], {"exp/c2": ["human–human"]})),
    ("lb-one-human-in-a-condition", lambda: tw.leaderboard(lone_human(), PROTO, n_resamples=20, rng=0), None, None,
     tw.DegenerateDataWarning, r"exp/c2 \(human–human\)", lambda lb: _undefined(lb, [], {"exp/c2": ["human–human"]})),
    ("lb-model-answered-few", lambda: tw.leaderboard(answered_some(), PROTO, n_resamples=20, rng=0), None, None,
     tw.TrialwiseWarning, r"1 candidate\(s\) not scored, for they share fewer than 20 images.*: m1 \(in exp\)",
     lambda lb: lb.candidates == ("m2",) and "m1" not in lb.observers
     and [n.values["unpaired"] for n in lb.notes if getattr(n, "kind", "") == "candidates-unpaired"] == [{"m1": ["exp"]}]
     and np.isnan(lb.kendall_tau.statistic) and lb.excluded.subject.tolist() == ["m1"]),
    # HR4: differences with two clusters per condition, an accuracy at the ceiling (HS6)
    ("lbd-two-clusters", lambda: quiet_board(two_clusters(), clusters="passage", n_resamples=300).difference(
        "m1", "m2", test="studentized"), None, None, tw.DegenerateDataWarning,
     r"m1 − m2 \(\d+ of 300\): the symmetric studentized interval of the difference is unbounded.*\(bc\) is given instead",
     lambda r: r.ci_method == "bc" and np.isfinite([r.confidence_interval.low, r.confidence_interval.high]).all()
     and [n.kind for n in r.notes] == ["studentized-fallback"]),
    ("lb-accuracy-at-ceiling", lambda: tw.leaderboard(trials()[lambda f: f.subject == "m2"].assign(
        response=lambda f: f.truth, correct=True), "accuracy", n_resamples=50, rng=0), None, None, tw.DegenerateDataWarning,
     r"accuracy interval\(s\) without width.*m2 \(80 items: exact 95% interval \[0\.955, 1\.000\]",
     lambda lb: lb.table.ci_low.tolist() == [1.0] and "interval-at-bound" in [n.kind for n in lb.notes]),
    ("cm-from-counts-ref-always-right", tw.ec.CopyModel.from_counts, ([[30, 10], [0, 0]],), {}, tw.DegenerateDataWarning,
     r"always correct or always wrong", lambda m: np.isnan(m.p_copy) and m.kappa == 0.0),
    # ==== leaderboard (issue 29, DEGENERATE list, helper A): add rows below this line
    # the humans always right in every condition: the human–human row has no value, said once with the cause
    # (the command line blamed min_items); the candidates' κ with an always-right observer is 0
    ("lb-humans-always-right", lambda: tw.leaderboard(tw.read_trials(trials().drop(columns="correct").pipe(
        lambda f: f.assign(response=f.response.where(f.observer_type != "human", f.truth)))), n_resamples=20, rng=0),
     None, None, tw.DegenerateDataWarning,
     r"no defined value in any condition, so no score \(NaN\): human–human \(.*always right \(the ceiling\)",
     lambda lb: np.isnan(lb.scores[-1]) and (lb.scores[:-1] == 0).all()
     and [n.values["never"] for n in lb.notes if getattr(n, "kind", "") == "undefined-conditions"]
     == [{"human–human": "always right (the ceiling)"}]),
    # a model always right in every condition: its κ with every human is 0 by construction (was: silently 0.000)
    ("lb-model-always-right", lambda: tw.leaderboard(tw.read_trials(trials().drop(columns="correct").pipe(
        lambda f: f.assign(response=f.response.where(f.subject != "m2", f.truth)))), n_resamples=20, rng=0),
     None, None, tw.DegenerateDataWarning, r"1 score\(s\) 0 by construction, not by agreement .*: m2 \(itself\)$",
     lambda lb: lb.scores[lb.observers.index("m2")] == 0.0
     and [n.values for n in lb.notes if getattr(n, "kind", "") == "kappa-zero-by-rule"] == [{"rows": {"m2": "itself"}}]),
    # ==== end of leaderboard (issue 29, DEGENERATE list, helper A)
    # ==== compare (issue 29, DEGENERATE list, helper B): add rows below this line
    ("cmp29-stuart-maxwell-groups", cmp.stuart_maxwell_test, ([0, 1, 2], [0, 0, 3]), {}, tw.DegenerateDataWarning,
     r"fall into 2 separate groups of classes \(0, 1 \| 2, 3\)", lambda r: r.statistic == 2.0 and r.df == 2
     and "2 separate groups" in r.notes[0]),
    ("cmp29-compare-singular-stuart-maxwell", tw.compare, ([0, 1, 2], [0, 1, 2], [0, 0, 3]), dict(rng=0, n_resamples=99),
     tw.DegenerateDataWarning, r"^compare: .*Stuart-Maxwell test: .* 2 separate groups of classes",
     lambda r: r["stuart-maxwell"].statistic == 2.0 and r["stuart-maxwell"].df == 2),
    ("cmp29-rounded-rows", cmp.brier_score, (Y, P3A.round(3)), {}, tw.TrialwiseWarning,
     r"`proba`: 17 of 60 rows sum to between 0\.999 and 1\.001, not 1, as rounding to 3 decimals can make them",
     lambda r: abs(r.statistic - cmp.brier_score(Y, (lambda q: np.where(abs(q.sum(1, keepdims=True) - 1) > 1e-4, q / q.sum(
         1, keepdims=True), q))(P3A.round(3).to_numpy())).statistic) < 1e-15),
    ("cmp29-column-order", tw.compare, (Y, PA, PB, (0.1 + 0.7 * (PA[:, None] == np.array(["car", "cat", "dog"])))[:, [1, 2, 0]]),
     dict(rng=0, n_resamples=99), tw.TrialwiseWarning,
     r"`proba_a` \(its columns taken as the sorted classes of `y_true`, car, cat, dog\): .* on only 0% of the items; "
     r"with the columns in the order cat, dog, car it would be on 100%: a column-order mistake\?",
     lambda r: r["brier[A]"].statistic > 1),
    ("cmp29-auc-without-variance", cmp.auc, ([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6]), {}, tw.DegenerateDataWarning,
     r"AUC = 1: DeLong's variance is 0 .*the interval has no width",
     lambda r: (r.confidence_interval.low, r.confidence_interval.high) == (1.0, 1.0) and "no width" in r.notes[-1]),
    # ==== end of compare (issue 29, DEGENERATE list, helper B)
    # ==== cli-files-seeds (issue 29, DEGENERATE list, helper C): add rows below this line
    # ==== end of cli-files-seeds (issue 29, DEGENERATE list, helper C)
    # ==== misc API (issue 29, DEGENERATE list, helper H): add rows below this line
    ("kappa-bounds-undefined", tw.ec.kappa_bounds, (1, 1), {}, tw.DegenerateDataWarning,
     r"kappa_bounds: κ is undefined \(expected agreement 1\) where both accuracies are 0 or both are 1, so 1 of 1 pair",
     lambda r: np.isnan(r[0]) and np.isnan(r[1])),
    ("kappa-bounds-some-undefined", tw.ec.kappa_bounds, ([0.0, 0.5, 1.0], [0.0, 0.5, 0.0]), {}, tw.DegenerateDataWarning,
     r"1 of 3 pair\(s\) of bounds are NaN; e\.g\. accuracy_a=0, accuracy_b=0",
     lambda r: np.isnan(r[1][0]) and r[1][1] == 1.0 and r[0][1] == -1.0 and r[1][2] == 0.0),
    ("kappa-bounds-expected-one", tw.ec.kappa_bounds_from_expected, ([0.5, 1.0],), {}, tw.DegenerateDataWarning,
     r"kappa_bounds_from_expected: κ is undefined where the expected agreement c_exp is 1, so 1 of 2",
     lambda r: r[0][0] == -1.0 and np.isnan(r[0][1]) and np.isnan(r[1][1])),
    ("icc-constant", tw.planning.estimate_icc, ([1, 1, 1, 1], [1, 1, 2, 2]), {}, tw.DegenerateDataWarning,
     r"estimate_icc: every value is the same, so the ICC .* is undefined \(NaN\)", lambda d: np.isnan(d.icc)),
    ("agree-influence-undefined-pilot", tw.planning.agreement_influence, ([[1.0, 0.0]] * 4, [[1.0, 0.0]] * 4, [0] * 4), {},
     tw.DegenerateDataWarning, r"the pilot's chance agreement c_exp is 1 .*so the influence values are NaN",
     lambda r: np.isnan(r).all()),
    ("agree-half-width-undefined-pilot-n", tw.planning.agreement_half_width, ([[1.0, 0.0]] * 4, [[1.0, 0.0]] * 4, [0] * 4),
     dict(n=50, clusters=[1, 1, 2, 2]), tw.DegenerateDataWarning, r"so the planned half-width is NaN",
     lambda r: np.isnan(r.half_width) and r.n == 50),
    ("ecd-reference-always-right", ecd, ([1] * 8, [1, 0, 1, 1, 0, 1, 0, 0], [1, 1, 0, 1, 0, 0, 1, 0]), dict(rng=0),
     tw.DegenerateDataWarning, r"the reference is always correct: its EC with x and with y is exactly 0 whatever they do",
     lambda r: r.statistic == 0.0 and r.kappa_x == 0.0 and [n.kind for n in r.notes] == ["undefined"]),
    ("ecd-reference-always-wrong", ecd, ([0] * 8, [1, 0, 1, 1, 0, 1, 0, 0], [1, 1, 0, 1, 0, 0, 1, 0]), dict(rng=0),
     tw.DegenerateDataWarning, r"the reference is always wrong",
     lambda r: r.statistic == 0.0 and len(r.notes) == 1),
    ("ost-constant-model", bs.ost_correlation, (np.full(10, 100.0), np.arange(10.0)), dict(n_resamples=20, rng=0),
     tw.DegenerateDataWarning, r"`model_osts` \(all 100\) is the same on every image solved by both, so Spearman's ρ",
     lambda r: np.isnan(r.raw) and np.isnan(r.statistic) and [n.kind for n in r.notes] == ["undefined"]),
    ("ost-constant-target", bs.ost_correlation, (np.arange(10.0), np.full((10, 4), 150.0)), dict(n_resamples=20, rng=0),
     tw.DegenerateDataWarning, r"`target_osts` \(all 150\) is the same",
     lambda r: np.isnan(r.raw) and np.isnan(r.ceiling.statistic) and len(r.notes) == 2),
    # ==== end of misc API (issue 29, DEGENERATE list, helper H)
]


def _call(call, args, kwargs):
    if args is None and kwargs is None:
        return call()
    return call(*(_resolve(a) for a in args), **kwargs)


#: The library's own input error of each built-in kind (what the corpus's ValueError/TypeError may be).
OWN = {ValueError: tw.InvalidValueError, TypeError: tw.InvalidTypeError}


def _raised_by_trialwise(info: pytest.ExceptionInfo) -> bool:
    """Raised by a ``raise`` statement of the package (its validation), not by numpy, pandas, ``os.path``
    or an operation inside trialwise that failed on input it did not check (``x[1, 1]``, ``float(s)``)."""
    entry = info.traceback[-1]
    path = Path(str(entry.path)).resolve()
    return SRC in path.parents and str(entry.statement).lstrip().startswith("raise")


@pytest.fixture(autouse=True)
def _files(files):
    F.path = files


@pytest.mark.parametrize("case", API, ids=[c[0] for c in API])
def test_api_bad_input(case):
    _, call, args, kwargs, error, match = case
    with pytest.raises(error, match=match) as info:
        _call(call, args, kwargs)
    expected = error if isinstance(error, tuple) else (error,)
    expected += tuple(OWN[e] for e in expected if e in OWN)
    assert type(info.value) in expected, f"{type(info.value).__name__} is a subclass, not the library's own error"
    assert _raised_by_trialwise(info), f"not raised by trialwise's validation: {info.traceback[-1]}"


@pytest.mark.parametrize("case", DEGENERATE, ids=[c[0] for c in DEGENERATE])
def test_degenerate_input(case):
    _, call, args, kwargs, warning, match, check = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _call(call, args, kwargs)
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert issubclass(caught[0].category, warning) and issubclass(caught[0].category, tw.TrialwiseWarning)
    assert re.search(match, str(caught[0].message)), str(caught[0].message)
    assert check(out)


def test_the_harness_tells_library_errors_from_leaked_ones():
    with pytest.raises(ValueError) as info:
        np.broadcast_arrays(np.ones(2), np.ones(3))
    assert not _raised_by_trialwise(info)
    with pytest.raises(ValueError) as info:
        tw.ec.kappa_bounds(2.0, 0.5)
    assert _raised_by_trialwise(info)


def test_corpus_ids_are_unique():
    ids = [c[0] for c in API] + [c[0] for c in DEGENERATE] + [c[0] for c in CLI]
    assert len(ids) == len(set(ids))


# --------------------------------------------------------------------------- the CLI corpus

CLI = [
    # ---- ec
    ("cli-ec-no-files", ["ec"], r"give two CSV files"),
    ("cli-ec-three-files", ["ec", F("good_csv"), F("good_csv"), F("good_csv")], r"give two CSV files"),
    ("cli-ec-missing", ["ec", F("missing"), F("good_csv")], r"missing\.csv: no such file"),
    ("cli-ec-empty", ["ec", F("empty_csv"), F("good_csv")], r"empty\.csv: the file is empty"),
    ("cli-ec-ragged", ["ec", F("ragged_short_csv"), F("good_csv")], r"ragged_short\.csv: not a readable table \(line 3 has 3 field"),
    ("cli-ec-trailing-separator", ["ec", F("trailing_sep_csv"), F("good_csv")], r"trailing_sep\.csv: not a readable table \(line 2 has 5 field"),
    ("cli-ec-truncated-gz", ["ec", F("truncated_csv_gz"), F("good_csv")], r"truncated\.csv\.gz: the compressed file is truncated"),
    ("cli-ec-binary", ["ec", F("binary_csv"), F("good_csv")], r"binary\.csv"),
    ("cli-ec-parquet", ["ec", F("table_parquet"), F("good_csv")], r"table\.parquet: " + ("" if PARQUET else ".*pip install pyarrow")),  # fixed by helper-3
    ("cli-ec-folder", ["ec", F("empty_folder"), F("good_csv")], r"empty-folder: is a folder, not a file"),  # issue 29, helper C (was "no such file")
    ("cli-ec-tidy-no-subjects", ["ec", F("good_csv")], r"one tidy file needs --subjects A B"),
    ("cli-ec-unknown-subject", ["ec", F("good_csv"), "--subjects", "h1", "zz"], r"no subject 'zz'; found h1, h2"),
    ("cli-ec-subject-column", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--subject", "who"], r"no column 'who'"),
    ("cli-ec-no-truth", ["ec", F("no_truth_csv"), F("no_truth_csv")], r"no column 'truth'"),
    ("cli-ec-case-ambiguous", ["ec", F("case_twice_csv"), F("good_csv")],
     r"case_twice\.csv: the columns 'Subject' and 'SUBJECT' differ only in letter case"),
    ("cli-leaderboard-case-ambiguous", ["leaderboard", F("case_twice_csv")],
     r"case_twice\.csv: the columns 'Subject' and 'SUBJECT' differ only in letter case"),
    ("cli-ec-empty-after-empty-rows", ["ec", F("tidy_gap_after_empty_csv"), "--subjects", "A", "B"],
     r"tidy_gap_after_empty\.csv \[B\]: column 'response' has an empty value \(row 5\)"),
    ("cli-compare-empty-after-empty-rows", ["compare", F("cmp_gap_after_empty_csv"), "--truth", "y", "--a", "a",
                                            "--b", "b"], r"cmp_gap_after_empty\.csv: column 'a' \(--a\) is empty in data row 4"),
    ("cli-leaderboard-empty-rows-only", ["leaderboard", F("empty_rows_only_csv")],
     r"empty_rows_only\.csv: the table has no rows"),
    ("cli-ec-duplicate", ["ec", F("dup_csv"), F("good_csv")], r"dup\.csv: item .* occurs more than once"),
    ("cli-ec-disjoint", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--image", "subject"], r"occurs more than once|share no item"),
    ("cli-ec-dataset-and-files", ["ec", F("good_csv"), "--dataset", "model-vs-human"], r"either --dataset or files"),
    ("cli-ec-dataset-no-subjects", ["ec", "--dataset", "model-vs-human"], r"needs --subjects A B"),
    ("cli-ec-dataset-unknown", ["ec", "--dataset", "imagenet"], r"invalid choice: 'imagenet'"),
    ("cli-ec-experiment", ["ec", "--dataset", "model-vs-human", "--subjects", "subject-01", "resnet50", "--experiment", "cue"],
     r"no rows with experiment = 'cue'"),
    ("cli-ec-condition-no-column", ["ec", F("good_csv"), F("good_csv"), "--condition", "c1"], r"occurs more than once|no column"),
    ("cli-ec-resamples-0", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", "0"], r"resamples`? must be .*; got 0"),
    ("cli-ec-resamples-neg", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", "-5"], r"n_resamples|--resamples"),
    ("cli-ec-resamples-1e30", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", "1e30"],
     r"invalid int value: '1e30'"),
    ("cli-ec-resamples-huge", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", str(10**30)],
     r"resamples`? must be .*10000000"),
    ("cli-ec-resamples-text", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", "many"], r"invalid int value"),
    ("cli-ec-level-95", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--confidence-level", "95"], r"`confidence_level` must be in \(0, 1\)|--confidence-level"),
    ("cli-ec-level-nan", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--confidence-level", "nan"], r"confidence.level"),
    ("cli-ec-level-inf", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--confidence-level", "inf"], r"confidence.level"),
    ("cli-ec-ci-method", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--ci-method", "wilson"], r"invalid choice: 'wilson'"),
    ("cli-ec-test", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--test", "chi2"], r"invalid choice: 'chi2'"),
    ("cli-ec-seed-neg", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--seed", "-1"], r"seed|`rng`"),
    ("cli-ec-seed-text", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--seed", "abc"], r"invalid int value"),
    ("cli-ec-correct-column", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--correct", "response"], r"column 'response' must hold 0/1"),
    ("cli-ec-unknown-option", ["ec", F("good_csv"), "--frobnicate"], r"unrecognized arguments: --frobnicate"),
    # ---- plan
    ("cli-plan-missing-args", ["plan"], r"the following arguments are required"),
    ("cli-plan-hw-0", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", "0"], r"`half_width` must be in \(0, 1\)|--half-width"),
    ("cli-plan-hw-nan", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", "nan"], r"half.width"),
    ("cli-plan-hw-text", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", "abc"], r"invalid float value: 'abc'"),
    ("cli-plan-acc", ["plan", "--accuracy-a", "1.5", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05"], r"accuracy.a"),
    ("cli-plan-acc-inf", ["plan", "--accuracy-a", "inf", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05"], r"accuracy.a"),
    ("cli-plan-kappa", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", "5", "--half-width", ".05"], r"kappa"),
    ("cli-plan-infeasible", ["plan", "--accuracy-a", ".9", "--accuracy-b", ".1", "--kappa", ".9", "--half-width", ".05"], r"kappa"),
    ("cli-plan-sims-0", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05", "--simulations", "0"],
     r"n_simulations|--simulations"),
    ("cli-plan-max-0", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05", "--max-trials", "0"],
     r"n_max|--max-trials"),
    ("cli-plan-share-percent", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05",
                                "--max-share-undefined", "5"], r"^trialwise: error: --max-share-undefined is a share between 0 and 1"),
    ("cli-plan-figure-folder", ["plan", "--accuracy-a", ".75", "--accuracy-b", ".75", "--kappa", ".5", "--half-width", ".05",
                                "--figure", F("no_folder")], r"does not exist"),
    # ---- leaderboard
    ("cli-lb-missing", ["leaderboard", F("missing")], r"missing\.csv: no such file"),
    ("cli-lb-empty-folder", ["leaderboard", F("empty_folder")], r"no \.csv files found"),
    ("cli-lb-raw-columns", ["leaderboard", F("raw_data")], r"no column 'object_response'"),
    ("cli-lb-ragged", ["leaderboard", F("ragged_long_csv")], r"ragged_long\.csv: not a readable table \(line 3 has 5 field"),
    ("cli-lb-truncated", ["leaderboard", F("truncated_csv_gz")], r"the compressed file is truncated"),
    ("cli-lb-parquet", ["leaderboard", F("table_parquet")], r"table\.parquet: " + ("" if PARQUET else ".*pip install pyarrow")),  # fixed by helper-3
    ("cli-lb-header-only", ["leaderboard", F("header_only_csv")], r"the table has no rows"),
    ("cli-lb-protocol", ["leaderboard", F("good_csv"), "--protocol", "nope"], r"invalid choice: 'nope'"),
    ("cli-lb-experiments", ["leaderboard", F("good_csv"), "--experiments", "zzz", "--resamples", "5"], r"zzz"),
    ("cli-lb-reference", ["leaderboard", F("good_csv"), "--experiments", "exp", "--reference", "nobody", "--resamples", "5"],
     r"`reference` names observer\(s\) \['nobody'\]"),
    ("cli-lb-resamples-0", ["leaderboard", F("good_csv"), "--resamples", "0"], r"resamples.* 0"),
    ("cli-lb-five-items", ["leaderboard", F("five_csv"), "--experiments", "exp", "--resamples", "5"],
     r"no pair of observers shares the protocol's min_items \(20\) images"),  # issue 17 (HR3)
    ("cli-bs-five-items", ["brainscore", F("five_csv"), "--experiments", "exp", "--resamples", "5", "-q"],
     r"min_items \(20\)"),
    ("cli-lb-one-cluster", ["leaderboard", F("one_cluster_csv"), "--experiments", "exp", "--clusters", "passage",
                            "--resamples", "5"], r"--clusters\): condition 'c1' of experiment 'exp' holds a single cluster"),
    ("cli-lb-resamples-huge", ["leaderboard", F("good_csv"), "--resamples", str(10**12)], r"resamples`? must be .*10000000"),
    ("cli-lb-level", ["leaderboard", F("good_csv"), "--confidence-level", "1.5"], r"confidence.level"),
    ("cli-lb-no-reference", ["leaderboard", F("no_types_csv"), "--experiments", "exp", "--resamples", "5"],
     r"no reference observers: .*; give their names with --reference NAME \[NAME \.\.\.\]$"),  # issue 17 (HR3)
    ("cli-lb-correct-column", ["leaderboard", F("good_csv"), "--correct-column", "nope", "--resamples", "5"],
     r"good\.csv: no column 'nope'"),
    ("cli-ec-condition-formatting", ["ec", F("cond_a_csv"), F("cond_b_csv")],
     r"cond_a\.csv and .*cond_b\.csv: 2 image\(s\) .* differ only in number formatting"),  # issue 17 (HR3)
    ("cli-lb-latin1", ["leaderboard", F("latin1_csv")], r"latin1\.csv: not a readable table: not UTF-8 text "
                                                         r"\(byte 0xe4 on line 2\); save it as UTF-8"),
    ("cli-compare-decimal-comma", ["compare", F("cmp_decimal_comma_csv"), "--truth", "y", "--a", "a", "--b", "b",
                                   "--proba-a", "pa"], r"column 'pa' \(--proba-a\) .*'0,2'.*decimal comma"),
    ("cli-lb-out-folder", ["leaderboard", F("good_csv"), "--out", F("no_folder")], r"does not exist"),
    ("cli-lb-csv-folder", ["leaderboard", F("good_csv"), "--csv", F("no_folder")], r"does not exist"),
    ("cli-lb-column", ["leaderboard", F("good_csv"), "--subject-column", "who"], r"no column 'who'"),
    ("cli-lb-tests", ["leaderboard", F("good_csv"), "--tests", "some"], r"invalid choice: 'some'"),
    ("cli-lb-accuracy-reference", ["leaderboard", F("good_csv"), "--protocol", "accuracy", "--reference", "h1",
                                   "--resamples", "5"], r"`reference` is not used by metric 'accuracy'"),
    # ---- compare
    ("cli-cmp-missing", ["compare", F("missing"), "--truth", "y", "--a", "a", "--b", "b"], r"missing\.csv: no such file"),
    ("cli-cmp-ragged", ["compare", F("ragged_short_csv"), "--truth", "truth", "--a", "response", "--b", "response"],
     r"ragged_short\.csv: not a readable table \(line 3"),
    ("cli-cmp-parquet", ["compare", F("table_parquet"), "--truth", "y", "--a", "a", "--b", "b"],
     r"table\.parquet: " + ("" if PARQUET else ".*pip install pyarrow")),  # fixed by helper-3
    ("cli-cmp-no-truth-arg", ["compare", F("cmp_csv"), "--a", "a", "--b", "b"], r"the following arguments are required: --truth"),
    ("cli-cmp-no-b", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a"], r"give --a \(or --proba-a\) and --b"),
    ("cli-cmp-column", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "zz"], r"no column 'zz' \(--b\)"),
    ("cli-cmp-gap", ["compare", F("cmp_gap_csv"), "--truth", "y", "--a", "a", "--b", "b"], r"column 'a' \(--a\) is empty in data row 2"),
    ("cli-cmp-text-proba", ["compare", F("cmp_text_proba_csv"), "--truth", "y", "--a", "a", "--b", "b", "--proba-a", "pa",
                            "--proba-b", "pa"], r"column 'pa' \(--proba-a\) has a missing or non-numeric value 'high'"),
    ("cli-cmp-bins-0", ["compare", F("cmp_csv"), "--truth", "yb", "--proba-a", "pa", "--proba-b", "pb", "--bins", "0"], r"n_bins|--bins"),
    ("cli-cmp-resamples-0", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "b", "--resamples", "0"], r"n_resamples|--resamples"),
    ("cli-cmp-classes", ["compare", F("cmp_csv"), "--truth", "y", "--proba-a", "pa", "pb", "--proba-b", "pa", "pb",
                         "--classes", "car", "cat", "dog"], r"--classes names 3 classes but --proba-a has 2 columns"),
    ("cli-cmp-proba-range", ["compare", F("cmp_bad_proba_csv"), "--truth", "y", "--proba-a", "pa", "--proba-b", "pb"],
     r"column 'pa' \(--proba-a\) holds '1.5' in data row 1: probabilities must be in \[0, 1\]"),
    ("cli-cmp-reliability-no-proba", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "b", "--reliability",
                                      F("no_folder")], r"does not exist|--reliability needs"),
    ("cli-leaderboard-ci-method", ["leaderboard", "--ci-method", "wald"], r"argument --ci-method: invalid choice: 'wald'"),
    # ---- similarity (evaluation logs)
    ("cli-sim-missing", ["similarity", F("missing")], r"missing\.csv: no such file or folder"),
    ("cli-sim-empty-folder", ["similarity", F("empty_folder")], r"empty-folder: no evaluation logs found"),
    ("cli-sim-not-a-log", ["similarity", F("good_csv")], r"good\.csv: not an evaluation log .*--format"),
    ("cli-sim-ragged", ["similarity", F("lme_ragged")], r"samples_t_.*\.jsonl:3: ragged option counts"),
    ("cli-sim-positive-ll", ["similarity", F("lme_positive")], r"jsonl:3: field `filtered_resps` must hold log-likelihoods"),
    ("cli-sim-nan-ll", ["similarity", F("lme_nan")], r"jsonl:3: field `filtered_resps` must hold log-likelihoods"),
    ("cli-sim-duplicate", ["similarity", F("lme_duplicate")], r"jsonl:4: duplicate document: doc_id 0"),
    ("cli-sim-unaligned", ["similarity", F("lme_unaligned")], r"unaligned items: .*give --unaligned drop"),
    ("cli-sim-filters", ["similarity", F("lme_filters")], r"logs several filters .*choose one with --filter"),
    ("cli-sim-one-model", ["similarity", F("lme_filters"), "--filter", "none"], r"the logs hold 1 model \(a\); similarity needs at least 2"),
    ("cli-sim-no-options", ["similarity", F("lme_no_options")], r"no usable multiple-choice record"),
    ("cli-sim-truncated", ["similarity", F("lme_truncated")], r"samples_t_.*\.jsonl\.gz: .*(truncated|ended before|ends early)"),
    ("cli-sim-helm-no-correct", ["similarity", F("helm_no_correct")], r"scenario_state\.json: request_states\[0\]: exactly one"),
    ("cli-sim-helm-generation", ["similarity", F("helm_generation")], r"run 'mmlu:model=m' is not multiple choice"),
    ("cli-sim-helm-normalization", ["similarity", F("helm_generation"), "--normalization", "length"],
     r"--normalization applies to lm-evaluation-harness and lighteval logs; these are HELM logs"),
    ("cli-sim-clusters-field", ["similarity", str(SRC / "datasets" / "llm-demo"), "--clusters", "chapter"],
     r"--clusters 'chapter' is not a field of the logged `doc`"),
    ("cli-sim-metric", ["similarity", "--metric", "kappa"], r"argument --metric: invalid choice: 'kappa'"),
    ("cli-sim-format", ["similarity", "--format", "csv"], r"argument --format: invalid choice: 'csv'"),
    ("cli-sim-resamples-0", ["similarity", "--resamples", "0"], r"--resamples must be at least 1; got 0"),
    ("cli-sim-level", ["similarity", "--confidence-level", "95"], r"--confidence-level must be between 0 and 1"),
    ("cli-sim-seed", ["similarity", "--seed", "-3"], r"--seed must be a non-negative integer"),
    ("cli-sim-out-folder", ["similarity", "--out", F("no_folder")], r"--out .*: folder .* does not exist"),
    ("cli-sim-out-pdf", ["similarity", "--out", "report.pdf"], r"the report is an HTML page, not a \.pdf file"),
    ("cli-sim-same-file", ["similarity", "--csv", "t.csv", "--differences-csv", "t.csv"], r"--csv and --differences-csv name the same file"),
    ("cli-sim-csv-is-folder", ["similarity", "--csv", F("empty_folder")], r"--csv .*empty-folder: is a folder"),
    # ---- brainscore
    ("cli-bs-missing", ["brainscore", F("missing")], r"missing\.csv: no such file or folder"),
    ("cli-bs-metric", ["brainscore", "--metric", "i3n"], r"argument --metric: invalid choice: 'i3n'"),
    ("cli-bs-reference", ["brainscore", "--reference", "nobody"], r"--reference: no observer named nobody"),
    ("cli-bs-candidate", ["brainscore", "--experiments", "cue-conflict", "--candidate", "nobody", "--resamples", "5"],
     r"--candidate: nobody is not a candidate in the bundled model-vs-human data"),
    ("cli-bs-candidate-human", ["brainscore", "--experiments", "cue-conflict", "--candidate", "subject-01", "--resamples", "5"],
     r"--candidate: subject-01 is not a candidate .*one of the humans"),
    ("cli-bs-incomplete", ["brainscore", "--experiments", "cue-conflict", "edge", "--candidate", "clip_kb", "--pooled",
                           "--resamples", "5", "-q"],
     r"--candidate clip_kb lacks all 160 images of edge \(e\.g\. '.+' of edge\)\. .*score it without them: --experiments cue-conflict"),
    ("cli-bs-no-benchmark", ["brainscore", "--experiments", "edge", "--candidate", "clip_kb", "--resamples", "5", "-q"],
     r"--candidate clip_kb lacks all 160 images of edge \(e\.g\. '.+' of edge\)\. A candidate is scored on all of a "
     r"benchmark's images"),
    ("cli-bs-splits-0", ["brainscore", "--splits", "0"], r"--splits must be at least 1; got 0"),
    ("cli-bs-one-human", ["brainscore", "--metric", "accuracy-distance", "--experiments", "cue-conflict", "--reference",
                          "subject-01", "--resamples", "5", "-q"], r"ceiling of accuracy-distance needs at least two humans"),
    ("cli-bs-out-pdf", ["brainscore", "--out", "report.pdf"], r"the report is an HTML page, not a \.pdf file"),
    ("cli-bs-same-file", ["brainscore", "--csv", "t.csv", "--out", "t.csv"], r"the report is an HTML page|name the same file"),
    ("cli-bs-column", ["brainscore", F("good_csv"), "--subject-column", "who"], r"no column 'who'"),
    ("cli-bs-i2n-no-probs", ["brainscore", F("afc_csv"), "--metric", "i2n"], r"--metric i2n needs PATH .* and --probabilities FILE"),
    ("cli-bs-probs-missing", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("missing")],
     r"--probabilities .*missing\.csv: no such file"),
    ("cli-bs-probs-metric", ["brainscore", "--probabilities", F("probs_csv")], r"--probabilities applies to --metric i2n or i1n"),
    ("cli-bs-probs-candidate", ["brainscore", F("afc_csv"), "--metric", "i1n", "--probabilities", F("probs_csv"),
                                "--candidate", "m3"], r"--candidate: m3 is not a candidate of --probabilities .*probs\.csv"),
    ("cli-bs-probs-no-image", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("probs_no_image_csv")],
     r"--probabilities .*probs_no_image\.csv: no column 'image'"),
    ("cli-bs-probs-ragged", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("probs_ragged_csv"),
                             "--resamples", "5", "-q"], r"probs_ragged\.csv: candidates 'm2': the class column\(s\) \['o2'\]"),
    ("cli-bs-probs-text", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("probs_text_csv")],
     r"--probabilities .*probs_text\.csv: column 'o1' holds 'high', not a number \(line 2\)"),
    ("cli-bs-i2n-humans", ["brainscore", F("good_csv"), "--metric", "i2n", "--probabilities", F("probs_csv"), "-q"],
     r"probs\.csv: candidates 'm1': column\(s\) \['o0', 'o1', 'o2'\] are not classes of the human trials"),
    ("cli-bs-ost-short", ["brainscore", F("osts_csv"), "--metric", "ost", "--osts", F("osts_short_csv"), "-q"],
     r"osts_short\.csv: candidates 'm1': no OST for 1 of the humans' images, e.g. 'i3'"),
    ("cli-bs-osts-metric", ["brainscore", "--metric", "i2n", "--osts", F("osts_csv")], r"--osts applies to --metric ost"),
    ("cli-bs-scale", ["brainscore", "--metric", "value-delta", "--scale", "-1"], r"--scale must be a positive number; got -1"),
    # ---- top level
    ("cli-no-command", [], r"the following arguments are required: command"),
    ("cli-unknown-command", ["frobnicate"], r"invalid choice: 'frobnicate'"),
    # ==== leaderboard (issue 29, CLI list, helper A): add rows below this line
    ("cli-lb-named-protocol-unmatched", ["leaderboard", F("good_csv"), "--protocol", "model-vs-human", "--resamples",
     "5"], r"none of the experiments of protocol 'model-vs-human' is in the trials: .*leave out `protocol` "
           r"\(tw\.leaderboard, tw\.leaderboards\.difference_test; --protocol of trialwise leaderboard\).*--experiments NAME"),
    ("cli-lb-default-experiments-unknown", ["leaderboard", F("good_csv"), "--experiments", "zzz", "--resamples", "5"],
     r"none of the experiments named \(`experiments`, --experiments\) is in the trials: zzz; the trials have one experiment, 'exp'$"),
    ("cli-lb-only-humans", ["leaderboard", F("good_csv"), "--reference", "h1", "h2", "h3", "m1", "m2", "--resamples",
     "5"], r"no candidate observers: every observer belongs to the reference group \(5: h1, h2, h3, m1, m2\)"),
    ("cli-lb-min-items-0", ["leaderboard", F("good_csv"), "--min-items", "0"], r"--min-items must be an integer >= 1; got 0$"),
    ("cli-lb-five-items-says-the-flag", ["leaderboard", F("five_csv"), "--resamples", "5"],
     r"min_items \(20\) images in any condition.*trialwise leaderboard --min-items"),
    # ==== end of leaderboard (issue 29, CLI list, helper A)
    # ==== compare (issue 29, CLI list, helper B): add rows below this line
    ("cli-cmp29-classes-without-proba", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "b", "--classes", "car",
                                         "cat"], r"--classes names the class of each probability column: it needs --proba-a"),
    ("cli-cmp29-proba-range-hint", ["compare", F("cmp_bad_proba_csv"), "--truth", "y", "--proba-a", "pa", "--proba-b", "pb"],
     r"column 'pa' \(--proba-a\) holds '?1\.5'? in data row 1: probabilities must be in \[0, 1\]; values above 1: if these "
     r"are percentages, divide them by 100"),
    # ==== end of compare (issue 29, CLI list, helper B)
    # ==== cli-files-seeds (issue 29, CLI list, helper C): add rows below this line
    # an option of several values naming one twice (`ec --subjects A A` was exit 0)
    ("cli-ec-subjects-twice", ["ec", F("good_csv"), "--subjects", "s1", "s1"], r"--subjects names 's1' twice"),
    ("cli-sb-compare-twice", ["shape-bias", "--compare", "subject-01", "subject-01"],
     r"--compare names 'subject-01' twice \(got subject-01 subject-01\); give each once"),
    ("cli-sb-observers-twice", ["shape-bias", "--observers", "a", "b", "a"], r"--observers names 'a' twice"),
    ("cli-lb-experiments-twice", ["leaderboard", "--experiments", "edge", "edge"], r"--experiments names 'edge' twice"),
    ("cli-lb-reference-twice", ["leaderboard", "--reference", "s1", "s1"], r"--reference names 's1' twice"),
    ("cli-bs-candidate-twice", ["brainscore", "--candidate", "resnet50", "resnet50"], r"--candidate names 'resnet50' twice"),
    ("cli-cmp-proba-twice", ["compare", F("cmp_csv"), "--truth", "yb", "--proba-a", "pa", "pa", "--b", "b"],
     r"--proba-a names 'pa' twice"),
    # a folder or a device given as a file (was "no such file")
    ("cli-ec-folder-twice", ["ec", F("empty_folder"), F("empty_folder")], r"empty-folder: is a folder, not a file$"),
    ("cli-ec-dev-null", ["ec", "/dev/null", "--subjects", "a", "b"], r"^trialwise: error: /dev/null: is a character device, not a file to read$"),
    ("cli-lb-dev-null", ["leaderboard", "/dev/null"], r"/dev/null: is a character device, not a file or folder to read"),
    ("cli-cmp-folder", ["compare", F("empty_folder"), "--truth", "y", "--a", "a", "--b", "b"], r"empty-folder: is a folder, not a file"),
    ("cli-bs-probs-folder", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("empty_folder")],
     r"--probabilities .*empty-folder: is a folder, not a file"),
    ("cli-sim-dev-null", ["similarity", "/dev/null"], r"/dev/null: is a character device"),
    # an output over an input, over another output, or at a folder (`leaderboard T.csv --csv T.csv` was exit 0)
    ("cli-lb-csv-over-input", ["leaderboard", F("good_csv"), "--csv", F("good_csv")],
     r"--csv .*good\.csv is the input file .*good\.csv; trialwise does not write over a file it reads: give --csv another"),
    ("cli-lb-out-over-folder", ["leaderboard", F("raw_data"), "--out", F("raw_data")], r"--out .*raw-data is the input folder .*raw-data"),
    ("cli-sb-csv-over-input", ["shape-bias", F("good_csv"), "--csv", F("good_csv")], r"--csv .*good\.csv is the input file"),
    ("cli-cmp-heatmap-over-input", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "b", "--heatmap", F("cmp_csv")],
     r"--heatmap .*cmp\.csv is the input file .*cmp\.csv"),
    ("cli-bs-csv-over-probs", ["brainscore", F("afc_csv"), "--metric", "i2n", "--probabilities", F("probs_csv"), "--csv",
                               F("probs_csv")], r"--csv .*probs\.csv is the input file .*probs\.csv \(--probabilities\)"),
    ("cli-sb-csv-figure-same", ["shape-bias", "--csv", "S.png", "--figure", "S.png"],
     r"--csv and --figure name the same file S\.png; give each output its own file name"),
    ("cli-sim-csv-differences-same", ["similarity", "--csv", "d.csv", "--differences-csv", "./d.csv"],
     r"--csv and --differences-csv name the same file \(d\.csv and \./d\.csv\)"),
    ("cli-lb-out-is-folder", ["leaderboard", "--out", F("empty_folder")], r"--out .*empty-folder: is a folder"),
    ("cli-plan-figure-is-folder", ["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1",
                                "--figure", F("empty_folder")], r"--figure .*empty-folder: is a folder"),
    ("cli-cmp-reliability-missing-folder", ["compare", F("cmp_csv"), "--truth", "y", "--a", "a", "--b", "b", "--reliability",
                                            F("no_folder")], r"--reliability .*out\.html: folder .*folder does not exist"),
    # the library's argument names in the command line's words (was "`n_resamples` must be ...")
    ("cli-ec-resamples-huge-dataset", ["ec", "--dataset", "model-vs-human", "--experiment", "cue-conflict", "--subjects",
                               "subject-01", "resnet50", "--resamples", "1000000000000"],
     r"^trialwise: error: --resamples must be an integer in \[1, 10000000\] .*got 1000000000000$"),
    ("cli-sb-resamples-huge", ["shape-bias", "--resamples", "100000000000"],
     r"^trialwise: error: texture-vs-shape: --resamples must be an integer in \[1, 10000000\]"),
    ("cli-sb-csv-name-too-long", ["shape-bias", "--csv", "a" * 300 + ".csv"],
     r"^trialwise: error: --csv a{300}\.csv: cannot be written \(File name too long\)$"),
    ("cli-ec-same-file-twice", ["ec", F("cond_a_csv"), F("cond_a_csv")],
     r"cond_a\.csv and .*cond_a\.csv name the same file: an observer's error consistency with itself is 1 by construction"),
    # ==== end of cli-files-seeds (issue 29, CLI list, helper C)
    # ==== misc API (issue 29, CLI list, helper H): add rows below this line
    ("cli-ec-header-only", ["ec", F("header_only_csv"), F("good_csv")], r"header_only\.csv: the table has no rows"),
    ("cli-ec-resamples-1", ["ec", F("good_csv"), "--subjects", "h1", "m1", "--resamples", "1"],
     r"(`n_resamples`|--resamples) must be at least 2"),
    # ==== end of misc API (issue 29, CLI list, helper H)
]


@pytest.mark.parametrize("case", CLI, ids=[c[0] for c in CLI])
def test_cli_bad_input(case, capsys):
    _, argv, match = case
    argv = [_resolve(a) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert lines and re.match(r"trialwise( \w+)?: error: ", lines[-1]), err
    # before it: only argparse's usage (for its own errors) or the library's warnings
    usage = lines[0].startswith("usage:")
    assert all(ln.startswith("trialwise: warning:") or (usage and not ln.startswith("trialwise:"))
               for ln in lines[:-1]), err
    assert re.search(match, lines[-1]), lines[-1]


# --------------------------------------------------------------------------- the library's own error classes


def test_input_errors_are_the_library_s_own_and_still_the_built_in_kinds():
    assert issubclass(tw.InvalidValueError, tw.InputError) and issubclass(tw.InvalidValueError, ValueError)
    assert issubclass(tw.InvalidTypeError, tw.InputError) and issubclass(tw.InvalidTypeError, TypeError)
    assert not issubclass(tw.InputError, (ValueError, TypeError))
    with pytest.raises(tw.InvalidValueError, match=r"`confidence_level` must be in \(0, 1\); got 95"):
        tw.error_consistency([1, 0, 1, 1], [1, 1, 0, 1], confidence_level=95)
    with pytest.raises(ValueError):  # users' `except ValueError` keeps working
        tw.error_consistency([1, 0, 1, 1], [1, 1, 0, 1], confidence_level=95)
    with pytest.raises(tw.InvalidTypeError, match=r"`confidence_level` must be a number"):
        tw.error_consistency([1, 0, 1, 1], [1, 1, 0, 1], confidence_level="95%")


#: Every module of the package: each ``raise ValueError/TypeError`` is an InputError, so the CLI
#: can tell bad input (exit 2) from a bug (exit 1) by the class alone.
SWEPT = ("",)


def _plain_raises(paths, root=SRC):
    """``path:line raise X`` of every ``raise ValueError(...)``/``raise TypeError(...)`` (also without a call)."""
    import ast

    sites = []
    for path in paths:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(exc, ast.Name) and exc.id in ("ValueError", "TypeError"):
                    sites.append((path.relative_to(root).as_posix(), node.lineno, exc.id))
    return [f"{where}:{line} raise {name}" for where, line, name in sorted(sites)]


def test_input_errors_are_the_library_s_own():
    """Every ``raise`` of a plain ValueError/TypeError in the package is an InvalidValueError/InvalidTypeError."""
    paths = [p for p in sorted(SRC.rglob("*.py")) if p.relative_to(SRC).as_posix().startswith(SWEPT)]
    assert len(paths) >= 10  # the scope exists (plot/ is a package)
    left = _plain_raises(paths)
    assert not left, "raise the library's own InvalidValueError/InvalidTypeError (trialwise._core.errors):\n" + "\n".join(left)


def test_the_sweep_finds_plain_raises_and_only_those(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    if x:\n        raise ValueError('x')\n    raise TypeError\n"
                                   "def g():\n    raise InvalidValueError('x')\n")
    assert _plain_raises([tmp_path / "m.py"], root=tmp_path) == ["m.py:3 raise ValueError", "m.py:4 raise TypeError"]
