"""``trialwise compare``: the classical comparison of two classifiers (:func:`trialwise.compare`)."""

from __future__ import annotations

import argparse
import json
import sys

from trialwise._core.errors import InputError
from trialwise.cli.common import CLIError, EPILOG, TABLES, clean, read_table, save_figure, use_agg
from trialwise.cli.progress import Warnings


def add_compare(sub) -> argparse.ArgumentParser:
    cmp = sub.add_parser(
        "compare",
        help="compare two classifiers on the same items: every method of the comparison chapter",
        description=(
            "Compare two classifiers whose predictions for the same items are columns of one CSV: McNemar, "
            "Cohen's kappa, Yule's Q, error consistency; Bowker, Stuart-Maxwell and a permutation test for K > 2; "
            "with probabilities Brier, ECE, AUC/DeLong and paired score tests; and the ensemble recommendation."
        ) + " " + TABLES,
        epilog=EPILOG,
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
    cmp.add_argument("--scoring-rule", choices=("brier", "log-loss"), default="brier",
                     help="scoring rule of the per-sample scores of the paired tests (default: brier)")
    cmp.add_argument("--bins", type=int, default=10, help="calibration bins (default 10)")
    cmp.add_argument("--confidence-level", type=float, default=0.95)
    cmp.add_argument("--resamples", type=int, default=10000, help="permutations (default 10000)")
    cmp.add_argument("--seed", type=int, default=None, help="random seed for reproducible permutation p-values")
    cmp.add_argument("--reliability", metavar="FILE",
                     help="write the reliability diagram here (needs probabilities; .png, .pdf or .svg)")
    cmp.add_argument("--heatmap", metavar="FILE", help="write the agreement-matrix heatmap here (.png, .pdf or .svg)")
    cmp.add_argument("--json", action="store_true", help="print the report as JSON")
    return cmp


def _proba_columns(frame, columns: list[str] | None, classes: list[str] | None, labels, what: str, flag: str):
    """The probability columns as a float DataFrame whose columns are the classes (of the true ``labels``)."""
    import numpy as np
    import pandas as pd

    from trialwise.comparison.rows import check_row_sums, looks_like
    from trialwise.io.tables import decimal_comma_hint
    from trialwise.io.headers import row_numbers

    if columns is None:
        return None
    out, numbers = {}, row_numbers(frame)  # rows named by their number in the file (empty rows skipped)
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise CLIError(f"{what}: column {col!r} ({flag}) has a missing or non-numeric value "
                           f"{frame[col].iloc[row]!r} in data row {numbers[row]}{decimal_comma_hint(frame[col].iloc[row])}")
        out[col] = values.to_numpy(dtype=float)

    def in_unit_interval() -> None:  # the library's check, with the row of the file and the flag
        for col in columns:
            outside = (out[col] < 0) | (out[col] > 1)
            if outside.any():
                row = int(np.flatnonzero(outside)[0])
                values = out[columns[0]] if len(columns) == 1 else np.column_stack([out[c] for c in columns])
                raise CLIError(f"{what}: column {col!r} ({flag}) holds {frame[col].iloc[row]!r} in data row "
                               f"{numbers[row]}: probabilities must be in [0, 1]; {looks_like(values)}")

    if len(columns) == 1:
        in_unit_interval()
        return out[columns[0]]
    if classes is not None:
        if len(classes) != len(columns):
            raise CLIError(f"--classes names {len(classes)} classes but {flag} has {len(columns)} columns")
        names = list(classes)
    else:
        from trialwise.comparison.columns import classes_from_columns
        from trialwise.io.labels import code_labels

        try:  # the classes of the truth, by the one label rule (trialwise.io.labels): "1" names 1.0
            truth = code_labels({"--truth": labels}).classes
        except InputError as exc:
            raise CLIError(f"{what}: {exc}") from None
        try:
            names = classes_from_columns(columns, truth)
        except InputError as exc:  # no reading, or several: the library's message says which and asks for --classes
            raise CLIError(f"{what}: {flag}: {exc}") from None
    in_unit_interval()
    stacked = np.column_stack([out[c] for c in columns])
    try:  # the library's check (rows off by rounding pass: compare renormalises them, with its warning)
        check_row_sums(stacked, f"the {flag} columns:", row=lambda i: f"data row {numbers[i]}")
    except InputError as exc:
        raise CLIError(f"{what}: {exc}") from None
    return pd.DataFrame(stacked, columns=names)


def run_compare(args) -> int:
    from trialwise.comparison.report import compare

    what = args.file
    caught = Warnings()
    with caught.collect():  # the columns named by the options, matched in any letter case
        frame = read_table(args.file, [args.truth, args.a, args.b, *(args.proba_a or ()), *(args.proba_b or ())])
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
            from trialwise.io.headers import row_numbers

            raise CLIError(f"{what}: column {col!r} ({flag}) is empty in data row {row_numbers(frame)[row]}")
    if args.classes is not None and not (args.proba_a and len(args.proba_a) > 1 or args.proba_b and len(args.proba_b) > 1):
        raise CLIError("--classes names the class of each probability column: it needs --proba-a or --proba-b "
                       "with one column per class")
    labels = frame[args.truth].to_numpy()
    proba_a = _proba_columns(frame, args.proba_a, args.classes, labels, what, "--proba-a")
    proba_b = _proba_columns(frame, args.proba_b, args.classes, labels, what, "--proba-b")
    if args.reliability and proba_a is None and proba_b is None:
        raise CLIError("--reliability needs --proba-a or --proba-b")
    from trialwise.comparison.rows import frame_prefix

    names = tuple(args.names) if args.names else (  # the label column, else the probability columns' prefix
        args.a or frame_prefix(frame[args.proba_a], labels) if args.proba_a else args.a or "A",
        args.b or frame_prefix(frame[args.proba_b], labels) if args.proba_b else args.b or "B")
    names = (names[0] or "A", names[1] or "B")
    if names[0] == names[1]:
        names = (f"{names[0]} (a)", f"{names[1]} (b)")
    with caught.collect():
        try:
            rep = compare(frame[args.truth].to_numpy(),
                          frame[args.a].to_numpy() if args.a else None,
                          frame[args.b].to_numpy() if args.b else None,
                          proba_a, proba_b, names=names, scoring_rule=args.scoring_rule, n_bins=args.bins,
                          classes=args.classes,  # given: the library checks the order against the labels
                          confidence_level=args.confidence_level, n_resamples=args.resamples, rng=args.seed)
        except InputError as exc:  # the library's input errors, named with the file
            raise CLIError(f"{what}: {exc}") from None
    if args.json:
        out = rep.to_dict()
        out["warnings"] = caught.messages()
        out["seed"] = args.seed
        print(json.dumps(clean(out), indent=2, default=str))
    else:
        print(rep.summary())
    sys.stdout.flush()
    figures = Warnings()  # warnings of the figures that the report did not already give
    for path, kind in ((args.reliability, "reliability"), (args.heatmap, "heatmap")):
        if path is None:
            continue
        use_agg()
        from trialwise import plot

        with figures.collect():
            if kind == "reliability":
                fig = plot.plot_reliability(rep.calibration)
            else:
                fig = plot.plot_agreement_matrix(rep.symmetry, names=names)
        save_figure(fig, path, f"--{kind}")
    known = set(caught.messages())
    figures.caught = [w for w in figures.caught if str(w.message) not in known]
    if not args.json:
        caught.report()
    figures.report()
    return 0
