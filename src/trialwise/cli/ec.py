"""``trialwise ec``: error consistency of two observers from a trials table or a 2×2 table."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from trialwise.ec.pair import error_consistency
from trialwise.ec.inference import DEFAULT_CI_METHOD, DEFAULT_TEST
from trialwise._stats.intervals import CI_METHODS
from trialwise._stats.significance import INDEPENDENCE_TESTS
from trialwise.cli.common import CLIError, DATASETS, EPILOG, TABLES, clean, read_table
from trialwise.cli.progress import Warnings


def add_ec(sub) -> argparse.ArgumentParser:
    ec = sub.add_parser(
        "ec",
        help="error consistency of two observers with a confidence interval and a test",
        description=(
            "Error consistency of two observers. Give two CSV files (one observer each), "
            "or one tidy CSV with --subjects A B, or a bundled dataset with --dataset NAME --subjects A B. "
            "Trials are paired by item (experiment, condition and image where present)."
        ) + " " + TABLES,
        epilog=EPILOG,
    )
    ec.add_argument("files", nargs="*", metavar="CSV", help="two per-observer files, or one tidy file")
    ec.add_argument("--dataset", choices=DATASETS, help="use bundled real data instead of files")
    ec.add_argument("--subjects", nargs=2, metavar=("A", "B"), help="the two observers of a tidy table")
    ec.add_argument("--subject", default="subject", help="observer column of a tidy table (default: subject)")
    ec.add_argument("--experiment", help="keep only this experiment")
    ec.add_argument("--condition", help="keep only this condition (as text)")
    ec.add_argument("--image", default="image", help="item-id column (default: image)")
    ec.add_argument("--truth", default=None, help="correct-label column (default: truth, else category)")
    ec.add_argument("--response", default="response", help="response column (default: response)")
    ec.add_argument("--correct", default=None, help="0/1 correctness column, instead of --truth/--response")
    ec.add_argument("--confidence-level", type=float, default=0.95)
    ec.add_argument("--ci-method", choices=CI_METHODS, default=DEFAULT_CI_METHOD)
    ec.add_argument("--test", choices=INDEPENDENCE_TESTS, default=DEFAULT_TEST)
    ec.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    ec.add_argument("--unbiased", action="store_true", help="report the bias-corrected EC")
    ec.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    ec.add_argument("--json", action="store_true", help="print the result as JSON")
    return ec


def _truth_column(frame, requested: str | None) -> str:
    if requested is not None:
        return requested
    return "truth" if "truth" in frame.columns or "category" not in frame.columns else "category"


def _filter(frame, args, what: str):
    for col in ("experiment", "condition"):
        value = getattr(args, col)
        if value is None:
            continue
        if col not in frame.columns:
            raise CLIError(f"{what}: --{col} given but there is no column {col!r}")
        kept = frame[frame[col].astype(str) == value]
        if kept.empty:
            known = sorted(frame[col].astype(str).unique())[:12]
            raise CLIError(f"{what}: no rows with {col} = {value!r}; found {', '.join(known)}")
        frame = kept
    return frame


def _columns(args) -> list[str]:
    """The columns ``trialwise ec`` looks for in a file (matched in any letter case by the reader)."""
    return [args.subject, args.image, args.response, args.correct, "experiment", "condition",
            *((args.truth,) if args.truth is not None else ("truth", "category"))]


def _load_pair(args) -> tuple[Any, Any, dict, tuple[str, str]]:
    from trialwise import datasets
    from trialwise.io.trials import paired_correctness

    if args.dataset:
        if args.files:
            raise CLIError("give either --dataset or files, not both")
        if not args.subjects:
            raise CLIError(f"--dataset {args.dataset} needs --subjects A B (e.g. subject-01 resnet50)")
        loader = datasets.model_vs_human if args.dataset == "model-vs-human" else datasets.texture_vs_shape
        tidy, what = loader(), args.dataset
    elif len(args.files) == 1:
        if not args.subjects:
            raise CLIError(f"{args.files[0]}: one tidy file needs --subjects A B")
        tidy, what = read_table(args.files[0], _columns(args)), args.files[0]
    elif len(args.files) == 2:
        if args.subjects:
            raise CLIError("--subjects is for one tidy file; with two files each file is one observer")
        frames = [_filter(read_table(f, _columns(args)), args, f) for f in args.files]
        ca, cb, info = paired_correctness(  # without --truth: 'truth', else 'category', in each file
            frames[0], frames[1], image=args.image, truth=args.truth, response=args.response,
            correct=args.correct, names=tuple(args.files),
        )
        if os.path.samefile(*args.files):  # after reading: an error of the file itself comes first
            raise CLIError(f"{args.files[0]} and {args.files[1]} name the same file: an observer's error consistency "
                           f"with itself is 1 by construction; give the files of two observers")
        return ca, cb, info, tuple(args.files)
    else:
        raise CLIError("give two CSV files, one tidy CSV with --subjects A B, or --dataset NAME --subjects A B")

    if args.subject not in tidy.columns:
        raise CLIError(f"{what}: no column {args.subject!r}; columns found: {', '.join(map(str, tidy.columns))}")
    tidy = _filter(tidy, args, what)
    parts = []
    for name in args.subjects:
        part = tidy[tidy[args.subject].astype(str) == name]
        if part.empty:
            known = sorted(tidy[args.subject].astype(str).unique())
            shown = ", ".join(known[:15]) + (" ..." if len(known) > 15 else "")
            raise CLIError(f"{what}: no subject {name!r}; found {shown}")
        parts.append(part)
    truth = _truth_column(tidy, args.truth)
    ca, cb, info = paired_correctness(
        parts[0], parts[1], image=args.image, truth=truth, response=args.response,
        correct=args.correct, names=(f"{what} [{args.subjects[0]}]", f"{what} [{args.subjects[1]}]"),  # nargs=2
    )
    return ca, cb, info, tuple(args.subjects)


def run_ec(args) -> int:
    caught = Warnings()
    with caught.collect():
        ca, cb, info, names = _load_pair(args)
        res = error_consistency(
            ca, cb, confidence_level=args.confidence_level, ci_method=args.ci_method, test=args.test,
            n_resamples=args.resamples, unbiased=args.unbiased, rng=args.seed,
        )
    if args.json:
        out = res.to_dict()
        out.update(observer_a=names[0], observer_b=names[1], only_a=info["only_a"], only_b=info["only_b"],
                   warnings=caught.messages(), seed=args.seed)
        print(json.dumps(clean(out), indent=2))
    else:
        print(f"A = {names[0]}, B = {names[1]}")
        print(res.summary())
        if info["only_a"] or info["only_b"]:
            print(f"  unpaired items       {info['only_a']} only in A, {info['only_b']} only in B (left out)")
        caught.report()
    return 0
