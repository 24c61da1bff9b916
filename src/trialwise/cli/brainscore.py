"""``trialwise brainscore``: Brain-Score behavioural scores with intervals for raw, ceiling and score, and ranks.

Scores every candidate of a trials table against its human observers with
:class:`trialwise.brainscore.BehavioralBenchmark` (one joint bootstrap for all candidates and the
ceilings). With the trial-level metrics it scores as Brain-Score reports the Geirhos2021 benchmarks:
one benchmark per experiment, each with its own ceiling, and their average
(:meth:`~trialwise.brainscore.BehavioralBenchmark.score_benchmarks`); it prints the average ranked with
the leaderboard's rank columns and a candidate × benchmark table of scores, and writes every
benchmark's rows with their intervals in ``--csv`` and the ``--out`` HTML report
(:mod:`trialwise.report.brainscore`); a candidate that lacks images of some benchmarks is scored in
the others, and named. ``--pooled`` (and the per-image metrics) print one score per
candidate over all the experiments against one ceiling
(:meth:`~trialwise.brainscore.BehavioralBenchmark.score_table`). It computes no statistic.

The per-image metrics (``--metric i2n|i1n|value-delta|ost``) go through the same benchmark
(:mod:`trialwise.brainscore.behavioral_images`): I1n/I2n read the human trials from PATH and the
candidates' class probabilities from ``--probabilities``, OST the target's solution times from
PATH and the candidates' from ``--osts`` (without either: the bundled synthetic samples), value
delta the trials as the trial-level metrics do (docs/brainscore.md, "Every metric through
BehavioralBenchmark").
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import numpy as np

from trialwise._core.format import format_rank_set
from trialwise._core.errors import InputError
from trialwise.cli.common import (
    CLIError,
    EPILOG,
    TABLES,
    add_column_options,
    data_name,
    raise_figure_failures,
    read_table,
    read_trials_argument,
    too_few_resamples,
    write_csv,
    write_report,
)
from trialwise.report.brainscore import describe_humans, describe_intervals
from trialwise.cli.progress import Progress, Warnings, add_progress_options

__all__ = ["add_brainscore", "run_brainscore"]


def add_brainscore(sub) -> argparse.ArgumentParser:
    from trialwise.leaderboards import PROTOCOLS
    from trialwise.brainscore.behavioral import BENCHMARK_METRICS

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
        ) + " " + TABLES,
        epilog=EPILOG,
    )
    p.add_argument("path", nargs="?", metavar="PATH", help="raw-data folder or tidy trials file")
    p.add_argument("--metric", choices=BENCHMARK_METRICS, default="error-consistency",
                   help="behavioural metric (default: error-consistency)")
    p.add_argument("--candidate", nargs="+", metavar="NAME",
                   help="score only these candidates (default: every observer that is not a human; one that does "
                        "not answer every image of a benchmark is not scored there, its score counting as 0 in the "
                        "average, as on Brain-Score)")
    p.add_argument("--protocol", default=None, choices=sorted(PROTOCOLS),
                   help="conditions and averaging (default: model-vs-human when PATH holds only its experiments; "
                        "else every experiment and condition of PATH, each experiment a benchmark, with "
                        "model-vs-human's averaging, titled by the file's name)")
    p.add_argument("--experiments", nargs="+", metavar="NAME", help="only these experiments")
    p.add_argument("--reference", nargs="+", metavar="NAME",
                   help="the human observers by name (default: observer_type 'human')")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--splits", type=int, default=None,
                   help="random half splits of the humans for split-half ceilings (default 100; for i2n, i1n and "
                        "ost 20 splits of the trials or measurements, for value-delta 500)")
    p.add_argument("--pooled", action="store_true",
                   help="one score per candidate, pooled over all the experiments against one ceiling, instead of "
                        "one benchmark per experiment and their average (Brain-Score's Geirhos2021 benchmarks)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--brainscore-compatible", action="store_true",
                   help="error consistency as Brain-Score computes it: abs() of the mean kappa, so an "
                        "anti-consistent model scores as high as a consistent one")
    p.add_argument("--probabilities", metavar="FILE",
                   help="i2n/i1n: the candidates' class probabilities, a CSV/Parquet table with columns image, one per "
                        "class and candidate (or model) naming the candidate; PATH then holds the human trials "
                        "(image, truth, response[, distractor]). Without PATH and FILE: the bundled synthetic 2AFC "
                        "sample")
    p.add_argument("--osts", metavar="FILE",
                   help="ost: the candidates' object solution times, a CSV/Parquet table with columns candidate (or "
                        "model), image, ost; PATH then holds the humans' OSTs (image, ost; one row per measurement). "
                        "Without PATH and FILE: the bundled synthetic OST sample")
    p.add_argument("--scalar", choices=("accuracy",), default=None,
                   help="value-delta: the scalar of a set of trials (default and only choice: accuracy)")
    p.add_argument("--scale", type=float, default=None,
                   help="value-delta: the steepness of exp(-scale |s - t|) (default 1.0, Brain-Score's; its "
                        "Ferguson2024 benchmarks use 0.75)")
    p.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    p.add_argument("--out", metavar="HTML", help="write a self-contained HTML report (table and figure) here")
    p.add_argument("--csv", metavar="CSV",
                   help="write the score table here: one row per scored candidate and benchmark, the average's "
                        "rows first (benchmark 'average'); with --pooled or a per-image metric one per candidate")
    add_column_options(p)
    add_progress_options(p)
    return p


def _header(bench, what: str = "benchmark") -> None:
    print(f"Brain-Score behavioural {what}: {bench.metric}, protocol {bench.protocol.name}, "
          f"{describe_humans(bench)}, B = {bench.n_resamples}"
          + (", brainscore_compatible (abs of the mean kappa)" if bench.brainscore_compatible else ""))


def _rows(table, level: str, raw: bool = True) -> None:
    """The ranked rows: score, (raw,) their intervals, rank, rank set, best set and group."""
    w = max([len("candidate")] + [len(str(o)) for o in table["observer"]])
    print(f"\n{'candidate':<{w}}  {'score':>5}  {level:^16}  " + (f"{'raw':>6}  {level:^18}  " if raw else "")
          + f"rank  {'set':>5}  best  group")
    for r in table.itertuples():
        best = "*" if bool(r.in_best_set) else ""
        raws = f"  {r.raw:6.3f}  [{r.raw_low:6.3f}, {r.raw_high:6.3f}]  " if raw else ""
        print(f"{r.observer:<{w}}  {r.score:5.3f}  [{r.ci_low:5.3f}, {r.ci_high:5.3f}]  {raws}  {r.rank:>4}  "
              f"{format_rank_set(r.rank_low, r.rank_high):>5}  {best:^4}  {r.group}")


_RANKS_TEXT = ("set: the rank set of Mogstad et al. (2024), holding that candidate's true rank; best (*): the set "
               "holding the best candidate; candidates that share a group letter are not separated by Holm-corrected "
               "tests.")


def _print(table, ceiling, bench) -> None:
    """One score per candidate against one ceiling (--pooled, the per-image metrics)."""
    level = f"{bench.confidence_level * 100:g}% CI"
    cc = ceiling.confidence_interval
    _header(bench)
    print(f"ceiling {ceiling.statistic:.3f}  {level} [{cc.low:.3f}, {cc.high:.3f}]  ({ceiling.method})")
    _rows(table.rename(columns={"statistic": "score"}), level)
    formula, intervals = describe_intervals(bench.metric)
    print(f"\n{formula}; {intervals}. {_RANKS_TEXT}")


def _print_benchmarks(res, bench) -> None:
    """The average over the benchmarks, ranked, then the candidate × benchmark scores with each one's ceiling."""
    level = f"{bench.confidence_level * 100:g}% CI"
    n = len(res.benchmarks)
    _header(bench, f"benchmarks, one per experiment ({n})")
    if n == 1:
        rows = res.table[res.table["benchmark"] == res.benchmarks[0]]
        c = res.ceilings[0]
        print(f"ceiling {c.statistic:.3f}  {level} [{c.confidence_interval.low:.3f}, "
              f"{c.confidence_interval.high:.3f}]  ({c.method})")
        _rows(rows, level)
    else:
        print(f"\naverage over the {n} benchmarks (Brain-Score's; a missing or undefined score counts as 0):")
        _rows(res.average, level, raw=False)
        scores = res.scores
        w = max([len("candidate")] + [len(str(o)) for o in scores.index])
        print("\nscore per benchmark (benchmarks numbered below; first row: each benchmark's ceiling):")
        print(f"{'candidate':<{w}} " + "".join(f"{j + 1:>5}" for j in range(n)))
        print(f"{'ceiling':<{w}} " + "".join(f"{c.statistic:5.2f}" for c in res.ceilings))
        for name, row in scores.iterrows():
            print(f"{name:<{w}} " + "".join("    —" if np.isnan(x) else f"{x:5.2f}" for x in row))
        print("\nbenchmarks: " + ", ".join(f"{j + 1} {b}" for j, b in enumerate(res.benchmarks)))
    formula, intervals = describe_intervals(bench.metric)
    print(f"\n{formula} in each benchmark, from its own humans' ceiling; {intervals}; the average's from the "
          f"averages of the replicate scores. {_RANKS_TEXT}"
          + (" Every benchmark's raw value, ceiling, intervals and rank sets: --csv, --out." if n > 1 else ""))


def _print_not_scored(not_scored: dict[str, tuple[str, ...]], bench, missing) -> None:
    """One paragraph per group of candidates that lack the same images, naming them."""
    groups: dict[tuple, list[str]] = {}
    for name in not_scored:
        mine = missing[missing["candidate"] == name]
        groups.setdefault(tuple(mine.groupby("experiment", sort=False).size().items()), []).append(name)
    for names in groups.values():
        print(f"not scored: {_lacking(names, bench, missing)}")


def _print_partial(res, bench, missing) -> None:
    """One paragraph per group of candidates scored in the same benchmarks only, naming what they lack."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, lacks in res.missing.items():
        groups.setdefault(tuple(lacks), []).append(name)
    n = len(res.benchmarks)
    for lacks, names in groups.items():
        print(f"in {n - len(lacks)} of the {n} benchmarks only: {_lacking(names, bench, missing, partial=True)}")


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _lacking(names: list[str], bench, missing, partial: bool = False) -> str:
    """What candidates ``names`` lack (the same images: how many of each experiment's, an example) and what can
    score them: the benchmark without those experiments (--experiments), or the leaderboard on the images they
    have. ``partial``: they are scored in the other benchmarks; what that does to their average."""
    one = len(names) == 1
    mine = missing[missing["candidate"] == names[0]]
    sizes = bench.conditions.groupby("experiment")["n_images"].sum()
    lacks = list(dict.fromkeys(mine["experiment"]))
    counts = mine.groupby("experiment").size()
    parts = [f"{'all' if counts[e] == sizes[e] else f'{int(counts[e])} of the'} {int(sizes[e])} images of {e}"
             for e in lacks[:3]]
    text = f"{_names(names)} lack{'s' if one else ''} {', '.join(parts)}{f' and of {len(lacks) - 3} more experiment(s)' if len(lacks) > 3 else ''}"
    text += f" (e.g. {mine['image'].iloc[0]!r} of {mine['experiment'].iloc[0]})" if len(mine) else ""
    others = [e for e in sizes.index if e not in set(lacks)]
    it = "it" if one else "them"
    advice = [f"score {it} without {'them' if one else 'those experiments'}: --experiments {' '.join(others)}"] \
        if others else []
    board = {"error-consistency": "", "accuracy": " --metric accuracy"}.get(bench.metric)
    if board is not None:  # the leaderboard pairs observers on the images both saw
        advice.append(f"compare {it} on the images {'it has' if one else 'they have'} with `trialwise leaderboard{board}` "
                      f"(raw values, no ceiling)")
    if partial:
        return (f"{text}. {'Its' if one else 'Their'} score in {'such a' if len(lacks) == 1 else 'each such'} "
                f"benchmark is missing (—) and counts as 0 in the average, as Brain-Score averages; compare "
                f"{it} on the other benchmarks' scores, or score {it} without {'that' if len(lacks) == 1 else 'those'} "
                f"experiment{'s' if len(lacks) > 1 else ''}: --experiments {' '.join(others)}")
    return (f"{text}. A candidate is scored on all of a benchmark's images, and brainscore has no option to leave "
            f"some out" + (f"; {'; or '.join(advice)}" if advice else ""))


_IMAGE_OPTIONS = {"i2n": "--probabilities", "i1n": "--probabilities", "ost": "--osts"}


def _check_metric_options(args) -> None:
    """Each metric's own options only with it (one line, exit 2 otherwise)."""
    from trialwise.brainscore.behavioral_images import IMAGE_METRICS

    for flag, value, metrics in (("--probabilities", args.probabilities, ("i2n", "i1n")),
                                 ("--osts", args.osts, ("ost",)), ("--scalar", args.scalar, ("value-delta",)),
                                 ("--scale", args.scale, ("value-delta",))):
        if value is not None and args.metric not in metrics:
            raise CLIError(f"{flag} applies to --metric {' or '.join(metrics)}; got --metric {args.metric}")
    if args.pooled and args.metric in IMAGE_METRICS:
        raise CLIError(f"--pooled applies to error-consistency, accuracy-distance and accuracy (the per-image metrics "
                       f"have no experiments to pool); got --metric {args.metric}")
    if args.brainscore_compatible and args.metric in ("value-delta", "ost"):
        raise CLIError(f"--brainscore-compatible applies to error-consistency, i2n and i1n; got --metric {args.metric}")
    if args.scale is not None and not (np.isfinite(args.scale) and args.scale > 0):
        raise CLIError(f"--scale must be a positive number; got {args.scale}")


#: The columns of the per-image metrics' tables, matched in any letter case when read (trialwise.io.headers).
_IMAGE_COLUMNS = ("image", "truth", "response", "distractor", "subject", "candidate", "model", "ost")


def _numeric_table(path: str, flag: str, numeric: tuple[str, ...] | None):
    """A table of ``path`` (``flag``'s file) with ``numeric`` columns (None: every column but candidate/model/image/
    subject) as numbers; a missing file, a missing column or text in a number column is one line naming them."""
    import pandas as pd

    if not os.path.exists(path):
        raise CLIError(f"{flag} {path}: no such file")
    frame = read_table(path, _IMAGE_COLUMNS)
    cols = [c for c in frame.columns if c not in ("candidate", "model", "image", "subject")] if numeric is None \
        else list(numeric)
    for col in ("image", *cols):
        if col not in frame.columns:
            raise CLIError(f"{flag} {path}: no column {col!r} (columns: {', '.join(map(str, frame.columns))})")
    for col in cols:
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() & frame[col].notna()
        if bad.any():
            raise CLIError(f"{flag} {path}: column {col!r} holds {frame[col][bad].iloc[0]!r}, not a number (line "
                           f"{int(np.flatnonzero(bad.to_numpy())[0]) + 2})")
        frame[col] = values
    return frame


def _image_inputs(args):
    """(humans, candidates, what) of a per-image metric from PATH and --probabilities / --osts, --candidate applied."""
    import pandas as pd

    flag = _IMAGE_OPTIONS[args.metric]
    given = args.probabilities if args.metric in ("i2n", "i1n") else args.osts
    if args.metric in ("i2n", "i1n") and args.path is None and given is None:
        from trialwise.datasets import synthetic_2afc_sample

        models, humans = synthetic_2afc_sample()
        cands = pd.concat([m.rename_axis("image").reset_index().assign(candidate=k) for k, m in models.items()],
                          ignore_index=True)
        what, file = "the bundled synthetic 2AFC sample", "the bundled sample"
    elif args.metric == "ost" and args.path is None and given is None:
        from trialwise.datasets import synthetic_ost_sample

        cands, humans = synthetic_ost_sample()
        what, file = "the bundled synthetic OST sample", "the bundled sample"
    else:
        if args.path is None or given is None:
            raise CLIError(f"--metric {args.metric} needs PATH (the humans' "
                           f"{'trials' if flag == '--probabilities' else 'OSTs'}) and {flag} FILE")
        if not os.path.exists(args.path):
            raise CLIError(f"{args.path}: no such file or folder")
        numeric = ("ost",) if args.metric == "ost" else ()
        humans = _numeric_table(args.path, "PATH", numeric) if numeric else read_table(args.path, _IMAGE_COLUMNS)
        if args.metric in ("i2n", "i1n"):
            missing = [c for c in ("image", "truth", "response") if c not in humans.columns]
            if missing:
                raise CLIError(f"{args.path}: no column(s) {', '.join(missing)} (the human trials need image, truth, "
                               f"response and, for 2AFC, distractor)")
        cands = _numeric_table(given, flag, None if args.metric != "ost" else ("ost",))
        what, file = args.path, f"{flag} {given}"
    name = next((c for c in ("candidate", "model") if c in cands.columns), None)
    if name is None:
        cands = cands.assign(candidate="model")
        name = "candidate"
    if args.candidate:
        unknown = sorted(set(args.candidate) - set(cands[name].astype(str)))
        if unknown:
            raise CLIError(f"--candidate: {', '.join(unknown)} is not a candidate of {file} (column {name!r})")
        cands = cands[cands[name].astype(str).isin(args.candidate).to_numpy()]
    return humans, cands, what, file


def run_brainscore(args) -> int:
    from trialwise.brainscore.behavioral import BehavioralBenchmark
    from trialwise.brainscore.behavioral_images import IMAGE_METRICS
    from trialwise.leaderboards.hierarchy import reference_mask

    if args.splits is not None and args.splits < 1:
        raise CLIError(f"--splits must be at least 1; got {args.splits}")
    _check_metric_options(args)
    bar = Progress(args.progress)
    caught = Warnings()
    if args.metric in IMAGE_METRICS and args.metric != "value-delta":
        with caught.collect():
            humans_t, cands, what, file = _image_inputs(args)
        few = too_few_resamples(args.resamples, args.confidence_level)
        try:
            with caught.collect():
                bar.say(f"building the benchmark ({args.metric}) …")
                try:
                    bench = BehavioralBenchmark(humans_t, metric=args.metric, reference=args.reference,
                                                n_resamples=args.resamples, n_splits=args.splits,
                                                confidence_level=args.confidence_level, rng=args.seed,
                                                brainscore_compatible=args.brainscore_compatible)
                    ceiling = bench.ceiling
                except InputError as exc:
                    raise CLIError(f"{what}: {exc}") from None
                bar.say("scoring the candidate(s) …")
                try:
                    table = bench.score_table(cands)
                except InputError as exc:
                    raise CLIError(f"{file}: {exc}") from None
                table = table.sort_values(["rank", "observer"], kind="stable").reset_index(drop=True)
        finally:
            bar.close()
        return _finish(args, table, ceiling, bench, {}, what, few, caught, bar)
    with caught.collect():
        trials = read_trials_argument(args.path, args)
    what = args.path or "the bundled model-vs-human data"
    from trialwise.leaderboards.protocol import protocol_for_trials

    # no --protocol: model-vs-human, or (trials of one's own experiments) every experiment and condition of PATH
    protocol = protocol_for_trials(args.protocol, sorted(map(str, trials["experiment"].unique())),
                                   name=data_name(args.path))
    if args.experiments:
        protocol = protocol.replace(experiments=args.experiments,
                                    name=f"{protocol.name}, experiments {', '.join(args.experiments)}")
    if args.reference:
        unknown = sorted(set(args.reference) - set(trials["subject"]))
        if unknown:
            raise CLIError(f"--reference: no observer named {', '.join(unknown)} in {what}")
    if args.metric == "value-delta" and args.experiments:
        # the protocol does not select the trials of a per-image metric: the experiments are selected here
        unknown = sorted(set(args.experiments) - set(trials["experiment"]))
        if unknown:
            raise CLIError(f"--experiments: {', '.join(unknown)} is not an experiment of {what}")
        trials = trials[trials["experiment"].isin(args.experiments).to_numpy()]
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
            extra: dict[str, Any] = {}
            if args.metric == "value-delta":
                extra = {"metric_options": {} if args.scale is None else {"scale": args.scale}}
            bench = BehavioralBenchmark(trials[humans], protocol, metric=args.metric,
                                        n_resamples=args.resamples, n_splits=args.splits,
                                        confidence_level=args.confidence_level, rng=args.seed,
                                        brainscore_compatible=args.brainscore_compatible, **extra)
            not_scored = bench.incomplete(candidates)
            missing = bench.missing_images(candidates)
            per_benchmark = not (args.pooled or args.metric in IMAGE_METRICS)
            if per_benchmark:  # scored in the benchmarks whose images it answers; not at all if in none
                n_exp = bench.conditions["experiment"].nunique()
                not_scored = {n: x for n, x in not_scored.items() if len(x) == n_exp}
            if args.candidate and not_scored:
                raise CLIError(f"--candidate {_lacking([next(iter(not_scored))], bench, missing)}")
            scored = candidates[~candidates["subject"].isin(list(not_scored)).to_numpy()]
            if scored.empty:
                raise CLIError(f"{what}: no candidate answers every image of the benchmark's experiments: "
                               f"{_lacking([next(iter(not_scored))], bench, missing)}")
            bar.say(f"scoring {scored['subject'].nunique()} candidate(s), B = {args.resamples} …")
            result = table = pooled = None  # pooled: the ceiling of the pooled score
            if not per_benchmark:
                table = bench.score_table(scored).sort_values(["rank", "observer"], kind="stable")
                table, pooled = table.reset_index(drop=True), bench.ceiling
            else:
                result = bench.score_benchmarks(scored)
    except InputError as exc:
        if isinstance(exc, CLIError):
            raise
        raise CLIError(f"{what}: {exc}") from None
    finally:
        bar.close()
    return _finish(args, table, pooled, bench, not_scored, what, few, caught, bar, missing, result)


def _finish(args, table, ceiling, bench, not_scored, what, few, caught, bar, missing=None, result=None) -> int:
    """Print the table (``result``: the per-benchmark scores), write the CSV and the report, report the warnings."""
    if result is None:
        _print(table, ceiling, bench)
    else:
        _print_benchmarks(result, bench)
    if result is not None and result.missing:
        _print_partial(result, bench, missing)
        caught.discard("benchmarks-missing")  # the library's warning, said here in full
    if not_scored:
        _print_not_scored(not_scored, bench, missing)
    sys.stdout.flush()
    if args.csv:  # the leaderboard's column names: `score`, not `statistic`
        frame = result.table if result is not None else table.rename(columns={"statistic": "score"})
        write_csv(args.csv, frame, "--csv", "table", seed=args.seed)
    failures: tuple[str, ...] = ()
    if args.out:
        from trialwise.report.brainscore import render_brainscore_report

        failures = write_report(args.out, lambda: render_brainscore_report(
            table, ceiling, bench, not_scored, source=what, benchmarks=result), bar.say, caught.collect,
            seed=args.seed)
    if few:
        print(f"trialwise: warning: {few}", file=sys.stderr)
    caught.report()
    raise_figure_failures(failures)
    return 0
