"""``trialwise leaderboard``: benchmark scores, intervals, ranks, tests and the HTML report."""

from __future__ import annotations

import argparse
import math
import sys

from trialwise._core.format import format_pvalue
from trialwise.leaderboards.differences import BENCHMARK_TESTS, SWAP_TESTS
from trialwise.leaderboards.board import BENCHMARK_CI_METHODS, DEFAULT_CI_METHOD
from trialwise.cli.common import (
    CLIError,
    EPILOG,
    TABLES,
    add_column_options,
    data_name,
    raise_figure_failures,
    read_trials_argument,
    too_few_resamples,
    write_csv,
    write_report,
)
from trialwise.cli.progress import Progress, Warnings, add_progress_options


def add_leaderboard(sub) -> argparse.ArgumentParser:
    lb = sub.add_parser(
        "leaderboard",
        help="benchmark leaderboard: scores, CIs, rank intervals and difference tests",
        description=(
            "Score every candidate (model) against the reference observers (humans) under a benchmark protocol, "
            "bootstrapping the whole hierarchy jointly. PATH is a folder of model-vs-human raw-data CSVs or a tidy "
            "CSV/Parquet trials table; without PATH the bundled model-vs-human data are used. A table that holds experiments "
            "model-vs-human does not have (e.g. your own, with only --subject-column and --image-column given) is "
            "scored on every experiment and condition it holds, titled by its file name. A candidate that lacks "
            "some of the protocol's experiments is not scored (a score over fewer experiments is not comparable): "
            "it is named with what it lacks, listed in --csv with status 'not scored', and can be scored on the "
            "experiments it has with --experiments or --common-experiments."
        ) + " " + TABLES,
        epilog=EPILOG,
    )
    lb.add_argument("path", nargs="?", metavar="PATH", help="raw-data folder or tidy trials file")
    lb.add_argument("--protocol", default=None, choices=sorted(_protocols()),
                    help="aggregation protocol (default: model-vs-human when PATH holds one of its experiments; "
                         "otherwise every experiment and condition in PATH, with model-vs-human's averaging, "
                         "titled by the file's name; flat and all-conditions work the same way on such files)")
    scope = lb.add_mutually_exclusive_group()
    scope.add_argument("--experiments", nargs="+", metavar="NAME",
                       help="only these experiments (a table without an experiment column is one experiment, "
                            "named 'all')")
    scope.add_argument("--common-experiments", action="store_true",
                       help="only the experiments that every candidate has, so that every candidate is scored")
    lb.add_argument("--metric", default=None, choices=_metrics(), help="pair metric (default: error-consistency)")
    lb.add_argument("--min-items", type=int, default=None, metavar="N",
                    help="the fewest images two observers must share in a condition for their pair to count "
                         "(default 20; below about 20 a pair's error consistency is mostly noise)")
    lb.add_argument("--score", metavar="COLUMN", default=None,
                    help="column of per-item scores in [0, 1] (partial credit, F1) of a tidy table: with "
                         "--protocol accuracy the score of a model is its mean score")
    lb.add_argument("--clusters", metavar="COLUMN", default=None,
                    help="column of a tidy table that groups items (passage, subject): the bootstrap resamples "
                         "these clusters and the swap test swaps them whole")
    lb.add_argument("--reference", nargs="+", metavar="NAME",
                    help="reference observers by name (default: observer_type 'human')")
    lb.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    lb.add_argument("--confidence-level", type=float, default=0.95)
    lb.add_argument("--ci-method", choices=BENCHMARK_CI_METHODS, default=DEFAULT_CI_METHOD,
                    help=f"interval of the scores (default {DEFAULT_CI_METHOD}; 'percentile' reproduces Klein et al. "
                         "2025; 'bc' is faster)")
    lb.add_argument("--tests", choices=("neighbours", "all", "none"), default="neighbours",
                    help="difference tests between candidates (default: neighbours in the ranking)")
    lb.add_argument("--test", choices=BENCHMARK_TESTS, default=BENCHMARK_TESTS[0],
                    help="test of 'alike' between two candidates (default combined: the larger p-value of the swap "
                         "and studentized tests, which holds its level where each alone does not)")
    lb.add_argument("--adjust", choices=("holm", "bh", "by", "none"), default="holm")
    lb.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    lb.add_argument("--out", metavar="HTML", help="write a self-contained HTML report (tables and figures) here")
    lb.add_argument("--csv", metavar="CSV",
                    help="write the leaderboard table here: one row per observer, unscored candidates included "
                         "(columns status and reason)")
    lb.add_argument("--pairwise-csv", metavar="CSV", help="write the difference tests here")
    add_column_options(lb)
    add_progress_options(lb)
    return lb


def _protocols():
    from trialwise.leaderboards import PROTOCOLS

    return PROTOCOLS


def _metrics():
    from trialwise.leaderboards import METRICS

    return METRICS


def _unscored_lines(lb) -> list[str]:
    from trialwise.report.leaderboard import unscored_candidates

    un = unscored_candidates(lb)
    if not len(un):
        return []
    lines = [f"{len(un)} candidate(s) not scored — each lacks some of the protocol's {un['n_experiments'].iloc[0]} "
             f"experiments, and a score over fewer experiments would not be comparable:"]
    w = max(len(str(o)) for o in un["observer"])
    for r in un.itertuples():
        lacks = ", ".join(r.missing[:4]) + (f", … ({r.n_missing - 4} more)" if r.n_missing > 4 else "")
        has = ", ".join(r.has) if r.has else "none"
        lines.append(f"  {r.observer:<{w}}  lacks {r.n_missing} of {r.n_experiments} ({lacks}); has {has}")
    groups: dict[tuple[str, ...], list[str]] = {}
    for r in un.itertuples():
        groups.setdefault(tuple(r.has), []).append(str(r.observer))
    lines.append("  to score them, restrict the experiments to those they have:")
    for has_exps, names in groups.items():
        if has_exps:
            who = names[0] if len(names) == 1 else f"{len(names)} candidates ({', '.join(names[:3])}{', …' if len(names) > 3 else ''})"
            lines.append(f"    --experiments {' '.join(has_exps)}   # {who}")
    lines.append("    --common-experiments   # the experiments every candidate has")
    return lines


def _csv_table(lb):
    """The leaderboard table with the unscored candidates as rows (empty scores), status and reason, and the
    protocol's name (the file's name for a protocol built from the trials)."""
    import pandas as pd

    from trialwise.report.leaderboard import unscored_candidates

    t = lb.table.copy()
    t["status"] = ["reference" if k == "reference" else "scored" for k in t["kind"]]
    t["reason"] = ""
    un = unscored_candidates(lb)
    unpaired = {c: (x, n.values["min_items"]) for n in lb.notes if getattr(n, "kind", "") == "candidates-unpaired"
                for c, x in n.values["unpaired"].items()}
    if len(un) or unpaired:
        extra = pd.DataFrame({
            "observer": list(un["observer"]) + list(unpaired), "kind": "candidate", "status": "not scored",
            "reason": [f"lacks {r.n_missing} of {r.n_experiments} experiments: {', '.join(r.missing)}"
                       for r in un.itertuples()]
            + [f"shares fewer than {m} images (min_items) with every reference observer in every condition of: "
               f"{', '.join(x)}" for x, m in unpaired.values()],
        })
        # only extra's own columns: an all-NA column in a concatenation is a FutureWarning on pandas 2.x
        t = pd.concat([t, extra], ignore_index=True)[list(t.columns)]
        for col in ("rank", "rank_low", "rank_high", "rank_set_low", "rank_set_high"):
            t[col] = t[col].astype("Int64")
    t["protocol"] = lb.protocol.name  # what the table is of: a protocol's name, or the file's (built from it)
    return t


def _common_experiments(trials, protocol, reference) -> list[str]:
    from trialwise.leaderboards.hierarchy import reference_mask

    t = trials if protocol.experiments is None else trials[trials["experiment"].isin(protocol.experiments)]
    cand = t[~reference_mask(t, protocol, reference)]
    if cand.empty:
        raise CLIError("--common-experiments: there are no candidates (every observer is a reference observer)")
    cover = cand.groupby("subject")["experiment"].agg(lambda e: set(e))
    common = set.intersection(*cover.tolist())
    if not common:
        rare = min(cover.items(), key=lambda kv: len(kv[1]))
        raise CLIError(f"--common-experiments: no experiment is shared by every candidate (e.g. {rare[0]} has only "
                       f"{', '.join(sorted(rare[1]))}); choose them with --experiments")
    return sorted(common)


def _report_shape_bias(trials, lb, args):
    """Shape bias of the scored observers for the report, when the trials hold cue-conflict images."""
    from trialwise.cue_conflict.shape_bias import shape_bias

    if "cue-conflict" not in set(trials["experiment"]):
        return None
    keep = trials["subject"].isin(set(lb.candidates) | set(lb.references))
    return shape_bias(trials[keep.to_numpy()], experiment="cue-conflict", groups="observer_type",
                      n_resamples=min(args.resamples, 10_000), confidence_level=args.confidence_level,
                      rng=args.seed)


def run_leaderboard(args) -> int:
    from trialwise.leaderboards.scoring import leaderboard
    from trialwise.leaderboards.protocol import protocol_for_trials

    bar = Progress(args.progress)
    caught = Warnings()
    with caught.collect():
        trials = read_trials_argument(args.path, args)
    # no --protocol: model-vs-human, or (for trials without its experiments) every experiment and condition
    # of the file, titled by the file's name (the leaderboard's notes say which)
    protocol = protocol_for_trials(args.protocol, sorted(map(str, trials["experiment"].unique())),
                                   name=data_name(args.path), experiments=args.experiments)
    if args.metric:
        protocol = protocol.replace(metric=args.metric)
    if args.min_items is not None:
        if args.min_items < 1:
            raise CLIError(f"--min-items must be an integer >= 1; got {args.min_items}")
        protocol = protocol.replace(min_items=args.min_items)
    if args.common_experiments:
        common = _common_experiments(trials, protocol, args.reference)
        protocol = protocol.replace(experiments=common, name=f"{protocol.name}, common experiments only")
        print(f"--common-experiments: scored on the {len(common)} experiment(s) every candidate has: "
              f"{', '.join(common)}")
    few = too_few_resamples(args.resamples, args.confidence_level)
    bar.phase("bootstrap", lambda total: f"bootstrapping {total} conditions × B = {args.resamples}")
    bar.phase(f"{args.test} tests", lambda total: f"{total} {args.test} test(s) between candidates"
              + (f" × {args.resamples} permutations" if args.test in SWAP_TESTS else ""))
    try:
        with caught.collect():
            lb = leaderboard(trials, protocol, reference=args.reference, n_resamples=args.resamples,
                             confidence_level=args.confidence_level, ci_method=args.ci_method, rng=args.seed,
                             progress=bar, clusters=None if args.clusters is None else "cluster")
            pairs = None
            if args.tests != "none" and len(lb.candidates) >= 2:
                pairs = lb.pairwise(which=args.tests, test=args.test, adjust=args.adjust, progress=bar)
    finally:
        bar.close()

    # the unscored candidates lacking experiments are set out in full below, instead of their note
    notes = [n for n in lb.notes if getattr(n, "kind", "") != "candidates-not-scored"]
    print(lb.summary(notes=False))  # the notes follow, with the unscored candidates set out in full
    from trialwise.report.leaderboard import headline

    print(headline(lb))  # the answer in one sentence, as the report opens
    for line in _unscored_lines(lb):
        print(line)
    for n in notes:
        print(f"Note: {n}")
    if pairs is not None:
        sig = pairs[pairs["significant"]]
        print(f"\n{args.test} tests ({args.tests}, {args.adjust}-adjusted): {len(sig)} of {len(pairs)} "
              f"differences significant at {1 - args.confidence_level:g}")
        for r in sig.itertuples():
            print(f"  {r.observer_a} vs {r.observer_b}: {r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}], "
                  f"adjusted p = {format_pvalue(r.pvalue_adjusted, missing='')}")
    sys.stdout.flush()
    if args.csv:
        write_csv(args.csv, _csv_table(lb), "--csv", "table", seed=args.seed)
    if args.pairwise_csv:
        if pairs is None:
            raise CLIError(f"--pairwise-csv {args.pairwise_csv}: no tests to write (--tests none, or fewer than two "
                           f"scored candidates)")
        write_csv(args.pairwise_csv, pairs, "--pairwise-csv", "tests", seed=args.seed)
    failures: tuple[str, ...] = ()
    if args.out:
        from trialwise.report.leaderboard import render_report

        failures = write_report(args.out, lambda: render_report(lb, pairwise=pairs,
                                                                shape_bias=_report_shape_bias(trials, lb, args)),
                                bar.say, caught.collect, seed=args.seed)
    if few:
        print(f"trialwise: warning: {few}", file=sys.stderr)
    ref = lb.table[lb.table["kind"] == "reference"]
    explained = {r for n in lb.notes if getattr(n, "kind", "") == "undefined-conditions"
                 for r in getattr(n, "values", {}).get("never") or {}}  # no value at the ceiling: the library warned
    if (len(ref) and not math.isfinite(float(ref["score"].iloc[0])) and len(lb.references) > 1  # 1: the library warns
            and lb.reference_row not in explained):
        print(f"trialwise: warning: the {lb.reference_row} row is undefined: it pairs distinct reference observers, "
              f"and no two of them share the protocol's min_items ({lb.protocol.min_items}) items in a condition "
              f"(docs/benchmark.md, 'Sparse overlaps')", file=sys.stderr)
    caught.report()
    raise_figure_failures(failures)
    return 0
