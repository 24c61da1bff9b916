"""Command-line interface: ``trialwise ec|plan|leaderboard|compare ...``. Parses, calls the library, prints."""

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
    lb = sub.add_parser(
        "leaderboard",
        help="benchmark leaderboard: scores, CIs, rank intervals and difference tests",
        description=(
            "Score every candidate (model) against the reference observers (humans) under a benchmark protocol, "
            "bootstrapping the whole hierarchy jointly. PATH is a folder of model-vs-human raw-data CSVs or a tidy "
            "CSV/Parquet trials table; without PATH the bundled model-vs-human data are used."
        ),
    )
    lb.add_argument("path", nargs="?", metavar="PATH", help="raw-data folder or tidy trials file")
    lb.add_argument("--protocol", default="model-vs-human", choices=sorted(_protocols()),
                    help="aggregation protocol (default: model-vs-human)")
    lb.add_argument("--experiments", nargs="+", metavar="NAME", help="only these experiments")
    lb.add_argument("--metric", default=None, choices=_metrics(), help="pair metric (default: error-consistency)")
    lb.add_argument("--reference", nargs="+", metavar="NAME",
                    help="reference observers by name (default: observer_type 'human')")
    lb.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    lb.add_argument("--confidence-level", type=float, default=0.95)
    lb.add_argument("--tests", choices=("neighbours", "all", "none"), default="neighbours",
                    help="difference tests between candidates (default: neighbours in the ranking)")
    lb.add_argument("--test", choices=("swap", "bootstrap", "paper"), default="swap")
    lb.add_argument("--adjust", choices=("holm", "bh", "by", "none"), default="holm")
    lb.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    lb.add_argument("--out", metavar="HTML", help="write a self-contained HTML report here")
    lb.add_argument("--csv", metavar="CSV", help="write the leaderboard table here")
    lb.add_argument("--pairwise-csv", metavar="CSV", help="write the difference tests here")
    for col in ("subject", "image", "truth", "response", "condition", "experiment", "observer-type"):
        lb.add_argument(f"--{col}-column", default=None, help=f"{col} column of a tidy table")

    cmp = sub.add_parser(
        "compare",
        help="compare two classifiers on the same items: every method of the comparison chapter",
        description=(
            "Compare two classifiers whose predictions for the same items are columns of one CSV: McNemar, "
            "Cohen's kappa, Yule's Q, error consistency; Bowker, Stuart-Maxwell and a permutation test for K > 2; "
            "with probabilities Brier, ECE, AUC/DeLong and paired score tests; and the ensemble recommendation."
        ),
    )
    cmp.add_argument("file", metavar="CSV", help="one row per item")
    cmp.add_argument("--truth", required=True, metavar="COLUMN", help="column of the true labels")
    cmp.add_argument("--a", metavar="COLUMN", help="column of classifier A's predicted labels")
    cmp.add_argument("--b", metavar="COLUMN", help="column of classifier B's predicted labels")
    cmp.add_argument("--proba-a", nargs="+", metavar="COLUMN",
                     help="A's probabilities: one column (binary, positive class) or one per class")
    cmp.add_argument("--proba-b", nargs="+", metavar="COLUMN", help="B's probabilities, as --proba-a")
    cmp.add_argument("--classes", nargs="+", metavar="CLASS",
                     help="the class of each probability column (default: the column names, or what follows "
                          "their common prefix)")
    cmp.add_argument("--names", nargs=2, metavar=("A", "B"), help="names in the report (default: the columns)")
    cmp.add_argument("--score", choices=("brier", "log-loss"), default="brier",
                     help="per-sample score of the paired tests (default: brier)")
    cmp.add_argument("--bins", type=int, default=10, help="calibration bins (default 10)")
    cmp.add_argument("--confidence-level", type=float, default=0.95)
    cmp.add_argument("--resamples", type=int, default=9999, help="permutations (default 9999)")
    cmp.add_argument("--seed", type=int, default=None, help="random seed for reproducible permutation p-values")
    cmp.add_argument("--reliability", metavar="PNG", help="write the reliability diagram here (needs probabilities)")
    cmp.add_argument("--heatmap", metavar="PNG", help="write the agreement-matrix heatmap here")
    cmp.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def _protocols():
    from trialwise.benchmark import PROTOCOLS

    return PROTOCOLS


def _metrics():
    from trialwise.benchmark import METRICS

    return METRICS


class _ProgressBar:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self) -> None:
        self.active = sys.stderr.isatty()

    def __call__(self, label: str, done: int, total: int) -> None:
        if not self.active:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        end = "\n" if done >= total else ""
        print(f"\r{label:<18} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}", end=end, file=sys.stderr,
              flush=True)


def _run_leaderboard(args) -> int:
    import os

    from trialwise.benchmark import get_protocol
    from trialwise.benchmark.leaderboard import leaderboard
    from trialwise.data import read_model_vs_human, read_trials

    for path in (args.out, args.csv, args.pairwise_csv):
        if path is not None and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise CLIError(f"{path}: folder {os.path.dirname(os.path.abspath(path))} does not exist")
    if args.out is not None:
        _check_writable(args.out)
    if args.path is None:
        from trialwise.datasets import model_vs_human

        trials = read_trials(model_vs_human())
    elif os.path.isdir(args.path):
        trials = read_model_vs_human(args.path)
    else:
        trials = read_trials(
            args.path, subject=args.subject_column or "subject", image=args.image_column or "image",
            truth=args.truth_column, response=args.response_column or "response", condition=args.condition_column,
            experiment=args.experiment_column, observer_type=args.observer_type_column,
        )
    protocol = get_protocol(args.protocol)
    if args.experiments:
        protocol = protocol.replace(experiments=args.experiments)
    if args.metric:
        protocol = protocol.replace(metric=args.metric)
    bar = _ProgressBar()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lb = leaderboard(trials, protocol, reference=args.reference, n_resamples=args.resamples,
                         confidence_level=args.confidence_level, rng=args.seed, progress=bar)
        pairs = None
        if args.tests != "none" and len(lb.candidates) >= 2:
            pairs = lb.pairwise(which=args.tests, test=args.test, adjust=args.adjust, progress=bar)
    print(lb.summary())
    if pairs is not None:
        sig = pairs[pairs["significant"]]
        print(f"\n{args.test} tests ({args.tests}, {args.adjust}-adjusted): {len(sig)} of {len(pairs)} "
              f"differences significant at {1 - args.confidence_level:g}")
        for r in sig.itertuples():
            print(f"  {r.observer_a} vs {r.observer_b}: {r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}], "
                  f"adjusted p = {r.pvalue_adjusted:.2g}")
    if args.csv:
        lb.table.to_csv(args.csv, index=False)
        print(f"table written to {args.csv}", file=sys.stderr)
    if args.pairwise_csv and pairs is not None:
        pairs.to_csv(args.pairwise_csv, index=False)
        print(f"tests written to {args.pairwise_csv}", file=sys.stderr)
    if args.out:
        lb.report(args.out, pairwise=pairs)
        print(f"report written to {args.out}", file=sys.stderr)
    for w in caught:
        print(f"trialwise: warning: {w.message}", file=sys.stderr)
    return 0


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


def _proba_columns(frame, columns: list[str] | None, classes: list[str] | None, labels: list[str], what: str, flag: str):
    """The probability columns as a float DataFrame whose columns are the classes."""
    import os

    import numpy as np
    import pandas as pd

    if columns is None:
        return None
    out = {}
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise CLIError(f"{what}: column {col!r} ({flag}) has a missing or non-numeric value "
                           f"{frame[col].iloc[row]!r} in data row {row + 1}")
        out[col] = values.to_numpy(dtype=float)
    if len(columns) == 1:
        return out[columns[0]]
    if classes is not None:
        if len(classes) != len(columns):
            raise CLIError(f"--classes names {len(classes)} classes but {flag} has {len(columns)} columns")
        names = list(classes)
    else:
        names = list(columns)
        if not set(names) <= set(labels):
            prefix = os.path.commonprefix(names)
            stripped = [c[len(prefix):] for c in names]
            if prefix and set(stripped) <= set(labels):
                names = stripped
            else:
                raise CLIError(f"{what}: the {flag} columns {', '.join(columns)} do not name the classes of "
                               f"--truth ({', '.join(sorted(labels)[:10])}); pass --classes")
    return pd.DataFrame(np.column_stack([out[c] for c in columns]), columns=names)


def _run_compare(args) -> int:
    from trialwise.comparison import compare
    from trialwise.data import read_table

    what = args.file
    frame = read_table(args.file)
    if frame.empty:
        raise CLIError(f"{what}: no rows")
    if args.a is None and args.proba_a is None or args.b is None and args.proba_b is None:
        raise CLIError("give --a (or --proba-a) and --b (or --proba-b)")
    for flag, cols in (("--truth", [args.truth]), ("--a", [args.a]), ("--b", [args.b]),
                       ("--proba-a", args.proba_a), ("--proba-b", args.proba_b)):
        for col in cols or []:
            if col is not None and col not in frame.columns:
                raise CLIError(f"{what}: no column {col!r} ({flag}); columns found: {', '.join(map(str, frame.columns))}")
    for flag, col in (("--truth", args.truth), ("--a", args.a), ("--b", args.b)):
        if col is not None and frame[col].isna().any():
            row = int(frame[col].isna().to_numpy().nonzero()[0][0])
            raise CLIError(f"{what}: column {col!r} ({flag}) is empty in data row {row + 1}")
    labels = sorted(set(frame[args.truth].astype(str)))
    proba_a = _proba_columns(frame, args.proba_a, args.classes, labels, what, "--proba-a")
    proba_b = _proba_columns(frame, args.proba_b, args.classes, labels, what, "--proba-b")
    for path in (args.reliability, args.heatmap):
        if path is not None:
            _check_writable(path)
    if args.reliability and proba_a is None and proba_b is None:
        raise CLIError("--reliability needs --proba-a or --proba-b")
    names = tuple(args.names) if args.names else (args.a or "A", args.b or "B")
    if names[0] == names[1]:
        names = (f"{names[0]} (a)", f"{names[1]} (b)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rep = compare(frame[args.truth].astype(str).to_numpy(),
                          frame[args.a].astype(str).to_numpy() if args.a else None,
                          frame[args.b].astype(str).to_numpy() if args.b else None,
                          proba_a, proba_b, names=names, score=args.score, n_bins=args.bins,
                          confidence_level=args.confidence_level, n_resamples=args.resamples, rng=args.seed)
        except (ValueError, TypeError) as exc:
            raise CLIError(f"{what}: {exc}") from None
    notes = list(dict.fromkeys(str(w.message) for w in caught))
    if args.json:
        out = rep.to_dict()
        out["warnings"] = notes
        print(json.dumps(_clean(out), indent=2, default=str))
    else:
        print(rep.summary())
        for note in notes:
            print(f"trialwise: warning: {note}", file=sys.stderr)
    for path, kind in ((args.reliability, "reliability"), (args.heatmap, "heatmap")):
        if path is None:
            continue
        from trialwise import plot

        if kind == "reliability":
            fig = plot.plot_reliability(rep.calibration)
        else:
            from trialwise.comparison import bowker_test

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fig = plot.plot_agreement_matrix(bowker_test(counts=rep.agreement), names=names)
        fig.savefig(path, dpi=150)
        print(f"figure written to {path}", file=sys.stderr)
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
        if args.command == "leaderboard":
            return _run_leaderboard(args)
        if args.command == "compare":
            return _run_compare(args)
    except (CLIError, ValueError, TypeError) as exc:
        print(f"trialwise: error: {exc}", file=sys.stderr)
        return 2
    return 1  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
