"""Command-line interface: ``trialwise ec ...``, ``trialwise plan ...``. Parses, calls the library, prints."""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from typing import Any

from trialwise.ec import DEFAULT_CI_METHOD, DEFAULT_TEST, error_consistency
from trialwise.intervals import CI_METHODS
from trialwise.significance import INDEPENDENCE_TESTS

DATASETS = ("model-vs-human", "texture-vs-shape")


class CLIError(Exception):
    """A user error: printed as one line, exit code 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trialwise",
        description="Trial-by-trial comparison of classifiers with honest uncertainty.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ec = sub.add_parser(
        "ec",
        help="error consistency of two observers with a confidence interval and a test",
        description=(
            "Error consistency of two observers. Give two CSV files (one observer each), "
            "or one tidy CSV with --subjects A B, or a bundled dataset with --dataset NAME --subjects A B. "
            "Trials are paired by item (experiment, condition and image where present)."
        ),
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

    plan = sub.add_parser(
        "plan",
        help="how many trials an experiment needs (copy-model simulation)",
        description=(
            "Smallest number of trials whose expected confidence interval of the EC has the target "
            "half-width, for observers with the given accuracies and true EC (A is the reference, e.g. "
            "the human). Prints the answer, the expected intervals at the trial counts of the literature, "
            "and the answer if the reference accuracy were different."
        ),
    )
    plan.add_argument("--accuracy-a", type=float, required=True, help="accuracy of A (the reference)")
    plan.add_argument("--accuracy-b", type=float, required=True, help="accuracy of B")
    plan.add_argument("--kappa", type=float, required=True, help="expected (true) error consistency")
    plan.add_argument("--half-width", type=float, required=True, help="target half-width of the interval")
    plan.add_argument("--confidence-level", type=float, default=0.95)
    plan.add_argument("--simulations", type=int, default=10_000, help="simulated experiments per n (default 10000)")
    plan.add_argument("--max-trials", type=int, default=1_000_000, help="largest n searched (default 1000000)")
    plan.add_argument("--seed", type=int, default=None, help="random seed for reproducible answers")
    plan.add_argument("--figure", metavar="PNG", help="write the interval-vs-trials figure (seed 000 Fig. 3) here")
    plan.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


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


def _load_pair(args) -> tuple[Any, Any, dict, tuple[str, str]]:
    from trialwise import datasets
    from trialwise.data import paired_correctness, read_table

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
        tidy, what = read_table(args.files[0]), args.files[0]
    elif len(args.files) == 2:
        if args.subjects:
            raise CLIError("--subjects is for one tidy file; with two files each file is one observer")
        frames = [_filter(read_table(f), args, f) for f in args.files]
        truth = _truth_column(frames[0], args.truth)
        ca, cb, info = paired_correctness(
            frames[0], frames[1], image=args.image, truth=truth, response=args.response,
            correct=args.correct, names=tuple(args.files),
        )
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
        correct=args.correct, names=tuple(f"{what} [{s}]" for s in args.subjects),
    )
    return ca, cb, info, tuple(args.subjects)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _run_ec(args) -> int:
    ca, cb, info, names = _load_pair(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = error_consistency(
            ca, cb, confidence_level=args.confidence_level, ci_method=args.ci_method, test=args.test,
            n_resamples=args.resamples, unbiased=args.unbiased, rng=args.seed,
        )
    notes = [str(w.message) for w in caught]
    if args.json:
        out = res.to_dict()
        out.update(observer_a=names[0], observer_b=names[1], only_a=info["only_a"], only_b=info["only_b"],
                   warnings=notes)
        print(json.dumps(_clean(out), indent=2))
    else:
        print(f"A = {names[0]}, B = {names[1]}")
        print(res.summary())
        if info["only_a"] or info["only_b"]:
            print(f"  unpaired items       {info['only_a']} only in A, {info['only_b']} only in B (left out)")
        for note in notes:
            print(f"trialwise: warning: {note}", file=sys.stderr)
    return 0


def _run_plan(args) -> int:
    from trialwise.planning import LITERATURE_TRIALS, ci_width, plan_trials

    if args.figure is not None:
        _check_writable(args.figure)
    res = plan_trials(
        half_width=args.half_width, accuracy_a=args.accuracy_a, accuracy_b=args.accuracy_b, kappa=args.kappa,
        confidence_level=args.confidence_level, n_simulations=args.simulations, rng=args.seed,
        n_max=args.max_trials,
    )
    if args.json:
        print(json.dumps(_clean(res.to_dict()), indent=2))
    else:
        print(res.summary())
    if args.figure is not None:
        import numpy as np

        from trialwise.plot import plot_ci_width

        grid = np.unique(np.round(np.logspace(1, 5, 30)).astype(np.int64))
        curve = ci_width(grid, args.accuracy_a, args.accuracy_b, args.kappa, confidence_level=args.confidence_level,
                         n_simulations=args.simulations, rng=args.seed)
        marks = tuple(LITERATURE_TRIALS) + ((res.n,) if res.n else ())
        fig = plot_ci_width(curve, literature=marks)
        if res.n:
            fig.axes[0].set_title(f"{res.n} trials reach half-width {args.half_width:g}", fontsize=9)
        fig.savefig(args.figure, dpi=150)
        print(f"figure written to {args.figure}", file=sys.stderr)
    return 0


def _check_writable(path: str) -> None:
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CLIError(f"{path}: folder {folder} does not exist")
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CLIError("--figure needs matplotlib: pip install 'trialwise[plot]'") from exc


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "ec":
            return _run_ec(args)
        if args.command == "plan":
            return _run_plan(args)
    except (CLIError, ValueError, TypeError) as exc:
        print(f"trialwise: error: {exc}", file=sys.stderr)
        return 2
    return 1  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
