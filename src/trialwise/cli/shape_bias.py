"""``trialwise shape-bias``: shape bias of observers on cue-conflict trials, with intervals and tests."""

from __future__ import annotations

import argparse
import json
import os
import sys

from trialwise._core.errors import InputError
from trialwise.cli.common import (
    CLIError,
    DATASETS,
    EPILOG,
    TABLES,
    add_column_options,
    clean,
    read_table,
    read_trials_argument,
    save_figure,
    use_agg,
    write_csv,
)
from trialwise.cli.progress import Warnings


def add_shape_bias(sub) -> argparse.ArgumentParser:
    sb = sub.add_parser(
        "shape-bias",
        help="shape bias on cue-conflict images (Geirhos et al. 2019) with bootstrap intervals over images",
        description=(
            "Share of shape decisions among the answers that named the shape or the texture of cue-conflict "
            "images (ids '<shape><k>-<texture><j>'; images whose two categories coincide do not count), per "
            "observer and group, with intervals from a bootstrap over images shared by all observers. PATH is a "
            "tidy CSV/Parquet trials table or a folder of model-vs-human raw-data CSVs (as for leaderboard and "
            "brainscore); without PATH the bundled --dataset is used. Image ids may be file names "
            "('airplane1-bicycle2.png', model-vs-human's '0001_cl_s01_0_airplane_0_airplane1-bicycle2.png'): the "
            "id is read from them as tw.io.image_id does."
        ) + " " + TABLES,
        epilog=EPILOG,
    )
    sb.add_argument("path", nargs="?", metavar="PATH",
                    help="tidy trials file or model-vs-human raw-data folder (default: the bundled --dataset)")
    sb.add_argument("--dataset", choices=DATASETS, default="texture-vs-shape",
                    help="bundled data used without PATH (default: texture-vs-shape)")
    sb.add_argument("--experiment", default="cue-conflict",
                    help="experiment to analyse, when the table has an experiment column (default: cue-conflict)")
    sb.add_argument("--observers", nargs="+", metavar="NAME", help="only these observers (default: all)")
    sb.add_argument("--groups", action="store_true",
                    help="add one pooled row per observer_type with two or more observers (e.g. all humans)")
    sb.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="difference A − B of two observers or groups, with its interval and p-value")
    sb.add_argument("--test", choices=("bootstrap", "swap"), default="bootstrap",
                    help="test for --compare: bootstrap (H0 equal shape bias; default) or swap (H0 exchangeable "
                         "observers)")
    sb.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    sb.add_argument("--confidence-level", type=float, default=0.95)
    sb.add_argument("--ci-method", choices=("jeffreys", "percentile"), default="jeffreys")
    sb.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    sb.add_argument("--json", action="store_true", help="print the result as JSON")
    sb.add_argument("--csv", metavar="CSV", help="write the table (one row per observer and group) here")
    sb.add_argument("--figure", metavar="FILE",
                    help="write the per-category shape-bias figure here (.png, .pdf or .svg)")
    add_column_options(sb, ("subject", "image", "truth", "response"))
    return sb


def run_shape_bias(args) -> int:
    from trialwise import datasets
    from trialwise.cue_conflict.shape_bias import shape_bias

    if args.resamples < 1:
        raise CLIError(f"--resamples must be a positive number of bootstrap replicates; got {args.resamples}")
    caught = Warnings()
    if args.path is None:
        loader = datasets.model_vs_human if args.dataset == "model-vs-human" else datasets.texture_vs_shape
        frame, what = loader(), args.dataset
    elif os.path.isdir(args.path):  # a model-vs-human raw-data folder, read as leaderboard and brainscore read it
        named = [f"--{c}-column" for c in ("subject", "image", "truth", "response")
                 if getattr(args, f"{c}_column", None)]
        if named:
            raise CLIError(f"{named[0]}: names a column of a tidy trials table; {args.path} is a folder of "
                           f"model-vs-human raw data, whose columns are known")
        with caught.collect():
            frame, what = read_trials_argument(args.path, args), args.path
    else:
        with caught.collect():  # the columns looked for, matched in any letter case
            frame, what = read_table(args.path, [
                args.subject_column or "subject", args.image_column or "image", args.response_column or "response",
                *((args.truth_column,) if args.truth_column else ("truth", "category")), "experiment",
                "observer_type"]), args.path
    with caught.collect():
        try:
            res = shape_bias(
                frame, experiment=args.experiment if "experiment" in frame.columns else None,
                observers=args.observers, groups="observer_type" if args.groups else None,
                n_resamples=args.resamples, confidence_level=args.confidence_level, ci_method=args.ci_method,
                rng=args.seed, subject=args.subject_column or "subject", image=args.image_column or "image",
                truth=args.truth_column, response=args.response_column or "response",
            )
            diff = res.difference(*args.compare, test=args.test, rng=args.seed) if args.compare else None
        except InputError as exc:  # the library's input errors, named with the file
            raise CLIError(f"{what}: {exc}") from None
    if args.json:
        out = res.to_dict()
        out["difference"] = None if diff is None else diff.to_dict()
        out["warnings"] = caught.messages()
        out["seed"] = args.seed
        print(json.dumps(clean(out), indent=2))
    else:
        print(res.summary())
        if diff is not None:
            print()
            print(diff.summary())
    sys.stdout.flush()
    if args.csv:
        write_csv(args.csv, res.to_frame(), "--csv", "table", seed=args.seed)
    if args.figure:
        use_agg()
        from trialwise.plot import plot_shape_bias

        humans = None  # drawn as one group: the result's 'human' group (--groups), else observer_type 'human'
        if not args.groups and "observer_type" in frame.columns:
            who = set(frame.loc[frame["observer_type"].astype(str) == "human",
                                args.subject_column or "subject"].astype(str))
            humans = [o for o in res.observers if str(o) in who] or None
        with caught.collect():
            fig = plot_shape_bias(res, humans=humans)
        save_figure(fig, args.figure, "--figure")
    if not args.json:
        caught.report()
    return 0
