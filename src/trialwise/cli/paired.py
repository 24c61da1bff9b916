"""``trialwise paired A B``: the paired comparison of two runs from their evaluation logs (:func:`trialwise.comparison.paired_runs`).

A and B are the logs of one model each (files or folders, in a format ``trialwise similarity``
reads); it prints one screen — the accuracies, their difference with a paired interval, McNemar
exact / mid-p, the minimum detectable difference, error consistency and CAPA — or with
``--json`` the result's ``to_dict()``. It computes no statistic and writes no file.
"""

from __future__ import annotations

import argparse
import json
import sys

from trialwise._core.errors import InputError
from trialwise._core.format import format_pvalue
from trialwise.cli.common import CLIError, EPILOG, clean
from trialwise.cli.progress import Warnings
from trialwise.cli.similarity import add_log_options

__all__ = ["add_paired", "run_paired"]

#: The library's words for its arguments, and the command line's.
_OPTION_WORDS = (("pass unaligned='drop' to compare", "give --unaligned drop to compare"),
                 ("`clusters`", "--clusters"), ("`trials.cluster` (--clusters)", "the --clusters field"))


def add_paired(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "paired",
        help="the paired comparison of two runs (two models, or two runs of one) from their evaluation logs",
        description=(
            "Compare two runs on the same questions from their logs (A and B: files or folders of one model each, or A "
            "alone: a folder of two models' logs, or more with --models; "
            "in any format trialwise similarity reads: lm-evaluation-harness, HELM, Inspect AI, lighteval, every-eval-ever): both accuracies, the difference A - B "
            "with a paired confidence interval (over questions, or cluster-robust with --clusters), McNemar's "
            "exact and mid-p tests, the minimum detectable difference at this size, and their error consistency "
            "and CAPA with intervals. Only questions both runs answered are compared."
        ),
        epilog=EPILOG,
    )
    p.add_argument("a", metavar="A", help="the logs of run A (a file or a folder); without B, the logs of both models")
    p.add_argument("b", metavar="B", nargs="?", default=None,
                   help="the logs of run B (a file or a folder); leave it out when A holds both models' logs (an "
                        "Inspect log folder, a harness's output folder)")
    p.add_argument("--models", nargs=2, metavar=("NAME_A", "NAME_B"), default=None,
                   help="without B: the two models of A to compare, in this order (needed when A holds more than two)")
    add_log_options(p, clusters="questions that share this field are a cluster: the difference's interval is "
                                "cluster-robust and EC and CAPA resample clusters")
    p.add_argument("--unaligned", choices=("error", "drop"), default="error",
                   help="a question only one run answered: an error (default) or left out and counted")
    p.add_argument("--power", type=float, default=0.8, help="power of the minimum detectable difference (default 0.8)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="two-sided level of the minimum detectable difference (default 0.05)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--resamples", type=int, default=10_000,
                   help="draws of the EC interval and the CAPA bootstrap (default 10000)")
    p.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    p.add_argument("--json", action="store_true", help="print the result as JSON (its to_dict(), the seed, warnings)")
    return p


def _read_one(args, path: str, flag: str):
    """The trial table of one run's logs, read as ``trialwise similarity`` reads them."""
    from trialwise.cli.similarity import read_log_args

    reader = argparse.Namespace(**{**vars(args), "unaligned": "error"})  # one model per path: nothing to align
    try:
        fmt, trials = read_log_args(reader, [path])
    except CLIError as exc:
        text = str(exc)
        raise CLIError(text if text.startswith(path) else f"{flag} {path}: {text}") from None
    models = list(dict.fromkeys(trials["subject"]))
    if len(models) != 1:
        raise CLIError(f"{flag} {path} holds the logs of {len(models)} models ({', '.join(map(str, models[:5]))}"
                       f"{', ...' if len(models) > 5 else ''}); give the logs of one model as {flag}")
    return fmt, trials, str(models[0])


def _read_both(args) -> tuple[str, object, str, str]:
    """The trial table of a folder holding two models' logs (``trialwise paired LOGS``; ``--models`` picks two)."""
    from trialwise.cli.similarity import read_log_args

    try:
        fmt, trials = read_log_args(args, [args.a])
    except CLIError as exc:
        text = str(exc)
        raise CLIError(text if text.startswith(args.a) else f"A {args.a}: {text}") from None
    models = [str(m) for m in dict.fromkeys(trials["subject"])]
    named = ", ".join(models[:8]) + (", ..." if len(models) > 8 else "")
    if args.models is not None:
        missing = [m for m in args.models if m not in models]
        if missing:
            raise CLIError(f"--models {missing[0]}: no such model in {args.a} (models: {named})")
        name_a, name_b = args.models
    elif len(models) == 2:
        name_a, name_b = sorted(models)
    else:
        raise CLIError(f"A {args.a} holds the logs of {len(models)} model(s) ({named}); without B it must hold two, "
                       f"or name two with --models NAME_A NAME_B")
    return fmt, trials[trials["subject"].isin([name_a, name_b])], name_a, name_b


def _interval(ci, signed: bool = False) -> str:
    f = (lambda x: "nan" if x != x else f"{x:+.3f}") if signed else (lambda x: "nan" if x != x else f"{x:.3f}")
    return f"[{f(ci.low)}, {f(ci.high)}]"


def _print(res, paths: tuple[str, str], fmts: tuple[str, str], clusters: str | None) -> None:
    level = f"{100 * res.confidence_level:g}% CI"
    units = f"{res.n} questions" + (f" in {res.n_clusters} clusters (--clusters {clusters})" if clusters else "")
    print(f"Paired comparison of two runs on {units}")
    w = max(len(res.model_a), len(res.model_b))
    for tag, name, path, fmt in (("A", res.model_a, paths[0], fmts[0]), ("B", res.model_b, paths[1], fmts[1])):
        acc = res.accuracy_a if tag == "A" else res.accuracy_b
        print(f"  {tag}  {name:<{w}}  accuracy {acc:.3f}   ({fmt}: {path})")
    how = ("paired t" if res.ci_method == "paired-t" else "cluster-robust (CR2) t") + f", df {res.df:.1f}"
    diff = "nan" if res.statistic != res.statistic else f"{res.statistic:+.3f}"
    print(f"  difference A - B    {diff}   {level} {_interval(res.confidence_interval, signed=True)}   "
          f"p = {format_pvalue(res.pvalue)} ({how})")
    if res.pvalue_exact != res.pvalue_exact:  # repeated runs: no one-run-per-question table to test
        print(f"  McNemar             none for repeated runs (questions where A's share of right runs is higher "
              f"{res.n10}, lower {res.n01}; the p-value above tests them)")
    else:
        print(f"  McNemar             only A right {res.n10}, only B right {res.n01}: "
              f"p = {format_pvalue(res.pvalue_exact)} exact, {format_pvalue(res.pvalue_midp)} mid-p"
              + ("  (treats questions as independent)" if clusters else ""))
    mdd = (f"{res.mdd:.3f}" if res.mdd == res.mdd else "undefined (no discordant question)" if res.discordance == 0
           else "none at this size")
    print(f"  min. detectable     {mdd}   (power {res.power:g}, two-sided level {res.alpha:g}; discordance "
          f"{res.discordance:.3f}" + (f", design effect {res.design_effect:.2f})" if res.design_effect is not None
                                     else ")"))
    ec = res.error_consistency
    print(f"  error consistency   {ec.statistic:.3f}   {level} {_interval(ec.confidence_interval)}")
    if res.capa is not None:
        print(f"  CAPA                {res.capa.statistic:.3f}   {level} {_interval(res.capa.confidence_interval)}")
    else:
        print("  CAPA                not computed (see the note)")
    for note in res.notes:
        if getattr(note, "kind", "") in ("mcnemar", "degenerate"):  # said above, or as a warning on stderr
            continue
        print(f"  note: {note}")


def run_paired(args) -> int:
    import pandas as pd

    from trialwise.comparison.paired import paired_runs

    if args.a == args.b:
        raise CLIError(f"A and B are the same logs ({args.a}); give the logs of two runs")
    if args.models is not None and args.b is not None:
        raise CLIError("--models picks two models of A when B is left out; with B, A and B hold one model each")
    for flag, value in (("--power", args.power), ("--alpha", args.alpha)):
        if not 0 < value < 1:  # also NaN
            raise CLIError(f"{flag} must be between 0 and 1; got {value:g}")
    caught = Warnings()
    if args.b is None:  # one folder of two models' logs
        with caught.collect():
            fmt_a, trials, name_a, name_b = _read_both(args)
        fmt_b, paths = fmt_a, (args.a, args.a)
    else:
        with caught.collect():
            fmt_a, ta, name_a = _read_one(args, args.a, "A")
            fmt_b, tb, name_b = _read_one(args, args.b, "B")
        if name_a == name_b:  # two runs of one model: told apart by their place on the command line
            name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
        trials = pd.concat([ta.assign(subject=name_a), tb.assign(subject=name_b)], ignore_index=True)
        paths = (args.a, args.b)
    try:
        with caught.collect():
            res = paired_runs(trials, name_a, name_b, clusters="cluster" if args.clusters else None,
                              unaligned=args.unaligned, confidence_level=args.confidence_level, power=args.power,
                              alpha=args.alpha, n_resamples=args.resamples, rng=args.seed)
    except InputError as exc:
        if isinstance(exc, CLIError):
            raise
        text = (str(exc).strip().splitlines() or [""])[0]
        for api, cli in _OPTION_WORDS:
            text = text.replace(api, cli)
        raise CLIError(f"{', '.join(dict.fromkeys(paths))}: {text}") from None
    if args.json:
        out = res.to_dict()
        out["logs"] = {"a": paths[0], "b": paths[1]}
        out["warnings"] = caught.messages()
        out["seed"] = args.seed
        print(json.dumps(clean(out), indent=2, default=str))
    else:
        _print(res, paths, (fmt_a, fmt_b), args.clusters)
    sys.stdout.flush()
    if not args.json:
        caught.report()
    return 0
