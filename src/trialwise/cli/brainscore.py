"""``trialwise brainscore``: Brain-Score behavioural scores with intervals for raw, ceiling and score, and ranks.

Scores every candidate of a trials table against its human observers with
:class:`trialwise.BehavioralBenchmark` (one joint bootstrap for all candidates and the
ceiling), prints the ceiling and one row per candidate ranked with the leaderboard's rank
columns (:meth:`~trialwise.BehavioralBenchmark.score_table`), and with ``--out`` writes the
HTML report (:mod:`trialwise.cli.brainscore_report`). It computes no statistic.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from trialwise._core.format import format_rank_set
from trialwise._core.errors import InputError
from trialwise.cli.common import (
    CLIError,
    EPILOG,
    add_column_options,
    check_outputs,
    raise_figure_failures,
    read_trials_argument,
    too_few_resamples,
    write_csv,
    write_report,
)
from trialwise.cli.progress import Progress, Warnings, add_progress_options

__all__ = ["add_brainscore", "run_brainscore"]


def add_brainscore(sub) -> argparse.ArgumentParser:
    from trialwise.benchmark import PROTOCOLS
    from trialwise.benchmark.behavioral import BENCHMARK_METRICS

    p = sub.add_parser(
        "brainscore",
        help="Brain-Score behavioural scores with CIs of raw value, ceiling and ceiled score, and rank sets",
        description=(
            "Score candidates (models) against the human observers of a trials table as Brain-Score's behavioural "
            "benchmarks do (score = clip(raw / ceiling, 0, 1)), with confidence intervals of the raw value, the "
            "ceiling and the ceiled score from one joint bootstrap of the images, and the candidates' rank sets. "
            "PATH is a folder of model-vs-human raw-data CSVs or a tidy CSV/Parquet trials table; without PATH the "
            "bundled model-vs-human data are used. Error consistency keeps its sign unless "
            "--brainscore-compatible is given (docs/brainscore.md)."
        ),
        epilog=EPILOG,
    )
    p.add_argument("path", nargs="?", metavar="PATH", help="raw-data folder or tidy trials file")
    p.add_argument("--metric", choices=BENCHMARK_METRICS, default="error-consistency",
                   help="behavioural metric (default: error-consistency)")
    p.add_argument("--candidate", nargs="+", metavar="NAME",
                   help="score only these candidates (default: every observer that is not a human and answers "
                        "every image of the benchmark)")
    p.add_argument("--protocol", default="model-vs-human", choices=sorted(PROTOCOLS),
                   help="conditions and averaging (default: model-vs-human)")
    p.add_argument("--experiments", nargs="+", metavar="NAME", help="only these experiments")
    p.add_argument("--reference", nargs="+", metavar="NAME",
                   help="the human observers by name (default: observer_type 'human')")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--splits", type=int, default=100,
                   help="random half splits of the humans for split-half ceilings (default 100)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--brainscore-compatible", action="store_true",
                   help="error consistency as Brain-Score computes it: abs() of the mean kappa, so an "
                        "anti-consistent model scores as high as a consistent one")
    p.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    p.add_argument("--out", metavar="HTML", help="write a self-contained HTML report (table and figure) here")
    p.add_argument("--csv", metavar="CSV", help="write the score table here (one row per scored candidate)")
    add_column_options(p)
    add_progress_options(p)
    return p


def _print(table, ceiling, bench, not_scored: dict[str, tuple[str, ...]]) -> None:
    level = f"{bench.confidence_level * 100:g}% CI"
    cc = ceiling.confidence_interval
    print(f"Brain-Score behavioural benchmark: {bench.metric}, protocol {bench.protocol.name}, "
          f"{len(bench.humans)} humans, B = {bench.n_resamples}"
          + (", brainscore_compatible (abs of the mean kappa)" if bench.brainscore_compatible else ""))
    print(f"ceiling {ceiling.statistic:.3f}  {level} [{cc.low:.3f}, {cc.high:.3f}]  ({ceiling.method})")
    w = max([len("candidate")] + [len(str(o)) for o in table["observer"]])
    print(f"\n{'candidate':<{w}}  {'score':>5}  {level:^16}  {'raw':>6}  {level:^18}  rank  {'set':>5}  best  group")
    for r in table.itertuples():
        best = "*" if bool(r.in_best_set) else ""
        print(f"{r.observer:<{w}}  {r.statistic:5.3f}  [{r.ci_low:5.3f}, {r.ci_high:5.3f}]    {r.raw:6.3f}  "
              f"[{r.raw_low:6.3f}, {r.raw_high:6.3f}]    {r.rank:>4}  {format_rank_set(r.rank_low, r.rank_high):>5}  "
              f"{best:^4}  {r.group}")
    print("\nscore = clip(raw / ceiling, 0, 1); percentile intervals of one joint bootstrap of the images (the same "
          "replicates for every candidate, the humans and the ceiling). set: the rank set of Mogstad et al. (2024), "
          "holding that candidate's true rank; best (*): the set holding the best candidate; candidates that share a "
          "group letter are not separated by Holm-corrected tests.")
    for name, lacks in not_scored.items():
        print(f"not scored: {name} lacks images of {len(lacks)} experiment(s) ({', '.join(lacks[:4])}"
              f"{', …' if len(lacks) > 4 else ''}); restrict with --experiments to score it")


def run_brainscore(args) -> int:
    from trialwise.benchmark.behavioral import BehavioralBenchmark
    from trialwise.benchmark.hierarchy import reference_mask

    check_outputs([(args.out, "--out"), (args.csv, "--csv")])
    if args.splits < 1:
        raise CLIError(f"--splits must be at least 1; got {args.splits}")
    bar = Progress(args.progress)
    caught = Warnings()
    with caught.collect():
        trials = read_trials_argument(args.path, args)
    what = args.path or "the bundled model-vs-human data"
    from trialwise.benchmark import get_protocol

    protocol = get_protocol(args.protocol)
    if args.experiments:
        protocol = protocol.replace(experiments=args.experiments,
                                    name=f"{protocol.name}, experiments {', '.join(args.experiments)}")
    if args.reference:
        unknown = sorted(set(args.reference) - set(trials["subject"]))
        if unknown:
            raise CLIError(f"--reference: no observer named {', '.join(unknown)} in {what}")
    humans = np.asarray(reference_mask(trials, protocol, args.reference), dtype=bool)
    candidates = trials[~humans]
    if args.candidate:
        unknown = sorted(set(args.candidate) - set(candidates["subject"]))
        if unknown:
            raise CLIError(f"--candidate: {', '.join(unknown)} is not a candidate in {what} (not an observer, or "
                           f"one of the humans)")
        candidates = candidates[candidates["subject"].isin(args.candidate).to_numpy()]
    if candidates.empty:
        raise CLIError(f"{what}: there are no candidates to score (every observer is a human of the benchmark)")
    few = too_few_resamples(args.resamples, args.confidence_level)
    try:
        with caught.collect():
            bar.say("building the benchmark (human trials, ceiling splits) …")
            bench = BehavioralBenchmark(trials[humans], protocol, metric=args.metric,
                                        n_resamples=args.resamples, n_splits=args.splits,
                                        confidence_level=args.confidence_level, rng=args.seed,
                                        brainscore_compatible=args.brainscore_compatible)
            not_scored = bench.incomplete(candidates)
            if args.candidate and not_scored:
                name, lacks = next(iter(not_scored.items()))
                raise CLIError(f"--candidate {name}: lacks images of experiment(s) {', '.join(lacks)}; restrict "
                               f"the benchmark with --experiments")
            scored = candidates[~candidates["subject"].isin(list(not_scored)).to_numpy()]
            if scored.empty:
                raise CLIError(f"{what}: no candidate answers every image of the benchmark's experiments; "
                               f"restrict them with --experiments")
            bar.say(f"scoring {scored['subject'].nunique()} candidate(s), B = {args.resamples} …")
            table = bench.score_table(scored).sort_values(["rank", "observer"], kind="stable").reset_index(drop=True)
            ceiling = bench.ceiling
    except InputError as exc:
        if isinstance(exc, CLIError):
            raise
        raise CLIError(f"{what}: {exc}") from None
    finally:
        bar.close()
    _print(table, ceiling, bench, not_scored)
    sys.stdout.flush()
    if args.csv:
        write_csv(args.csv, table, "--csv", "table")
    failures: tuple[str, ...] = ()
    if args.out:
        from trialwise.cli.brainscore_report import render_brainscore_report

        failures = write_report(args.out, lambda: render_brainscore_report(table, ceiling, bench, not_scored,
                                                                           source=what, seed=args.seed),
                                bar.say, caught.collect)
    if few:
        print(f"trialwise: warning: {few}", file=sys.stderr)
    caught.report()
    raise_figure_failures(failures)
    return 0
