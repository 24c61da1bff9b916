"""``trialwise similarity``: how alike language models are, from the logs of evaluation harnesses.

Reads evaluation logs through :func:`trialwise.read_logs` (lm-evaluation-harness, HELM, Inspect AI,
lighteval, every-eval-ever; the format recognised from the files), then prints, and with ``--out`` writes as an HTML
report: the similarity matrix with intervals (:func:`trialwise.pairwise_agreement`, all pairs
resampled jointly), the differences of similarity with a common model
(:meth:`trialwise.similarity.PairwiseAgreementResult.differences`, adjusted over the family), and the accuracy leaderboard with rank sets and
tie groups (:func:`trialwise.leaderboard`, protocol ``"accuracy"``). It computes no statistic.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from importlib import resources

from trialwise._core.errors import InputError
from trialwise._core.format import format_pvalue
from trialwise.similarity.capa import AGREEMENT_CI_METHODS, AGREEMENT_METRICS
from trialwise.cli.common import (
    CLIError,
    EPILOG,
    raise_figure_failures,
    reading,
    too_few_resamples,
    write_csv,
    write_report,
)
from trialwise.cli.progress import Progress, Warnings, add_progress_options
from trialwise._stats.significance import ADJUSTMENTS
from trialwise.io.logs.detect import FORMATS

__all__ = ["add_similarity", "add_log_options", "run_similarity", "read_log_args", "DIFFERENCE_LIMIT"]

#: More differences than this (M (M−1)(M−2)/2 for M models) are not computed unless asked for.
DIFFERENCE_LIMIT = 5_000


def add_similarity(sub) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "similarity",
        help="how alike language models are (CAPA, error consistency, choice agreement) from evaluation logs",
        description=(
            "Read the per-question logs of language models (lm-evaluation-harness --log_samples files, HELM run "
            "folders, Inspect AI .eval/.json logs, lighteval details_*.parquet files, every-eval-ever instance-level "
            ".jsonl records) and print the similarity of every pair of models with confidence intervals (one joint "
            "bootstrap), the pairs whose similarity to a common model differs significantly, and the accuracy "
            "leaderboard with rank sets and tie groups. LOGS are files or folders (searched recursively); without "
            "LOGS the bundled demo set (4 simulated models) is used."
        ),
        epilog=EPILOG,
    )
    p.add_argument("logs", nargs="*", metavar="LOGS", help="log files or folders")
    add_log_options(p)
    p.add_argument("--metric", choices=("auto", *AGREEMENT_METRICS), default="auto",
                   help="similarity (default auto: capa, kappa_p on the option probabilities, Goel et al. 2025, when "
                        "every trial has them; else capa-discrete, CAPA on the chosen options, with a line saying so)")
    p.add_argument("--unaligned", choices=("error", "drop"), default="error",
                   help="a question logged for some but not all models: an error (default) or dropped and counted")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap replicates (default 10000)")
    p.add_argument("--confidence-level", type=float, default=0.95)
    p.add_argument("--adjust", choices=ADJUSTMENTS, default="holm",
                   help="multiplicity adjustment of the difference tests (default holm)")
    p.add_argument("--differences", choices=("auto", "all", "none"), default="auto",
                   help=f"tests of equal similarity to a common model (auto: all, unless more than "
                        f"{DIFFERENCE_LIMIT})")
    p.add_argument("--seed", type=int, default=None, help="random seed for reproducible intervals")
    p.add_argument("--out", metavar="HTML", help="write a self-contained HTML report here")
    p.add_argument("--csv", metavar="CSV", help="write the similarity of every pair here (one row per pair)")
    p.add_argument("--differences-csv", metavar="CSV", help="write the difference tests here")
    add_progress_options(p)
    return p


@contextlib.contextmanager
def _logs(args):
    """The paths to read: LOGS, or the bundled demo folder."""
    if args.logs:
        yield list(args.logs)
        return
    with resources.as_file(resources.files("trialwise.datasets").joinpath("llm-demo")) as folder:
        yield [str(folder)]


def add_log_options(p: argparse.ArgumentParser, clusters: str = "resample questions that share this field as clusters"
                    ) -> None:
    """The options of reading evaluation logs (format, clusters, each reader's own), for every command that reads
    them (``similarity``, ``paired``); :func:`read_log_args` reads with them."""
    p.add_argument("--format", choices=("auto", *FORMATS), default="auto",
                   help="log format (default: recognised from the files; a folder of several formats is an error)")
    p.add_argument("--clusters", metavar="FIELD", default=None,
                   help=f"{clusters}: a field of the logged document "
                        f"(lm-eval, e.g. subject); for HELM an argument of the run name (e.g. subject) or an "
                        "instance field (sub_split, extra_data.<key>); for Inspect a key of the sample's metadata; "
                        "for lighteval a key of the document's `specific`; for every-eval-ever a key of `metadata`")
    p.add_argument("--normalization", choices=("none", "length"), default=None,
                   help="lm-eval and lighteval: option scores as the harness's acc (none, default) or acc_norm "
                        "(length)")
    p.add_argument("--filter", dest="filter_name", metavar="NAME", default=None,
                   help="lm-eval: the filter whose records to read when a task logs several")
    p.add_argument("--map-answers", action="store_true",
                   help="lm-eval: read generative multiple choice (chat/API models answering in text, e.g. "
                        "arc_challenge_chat, mmlu_generative): each answer mapped to an option by its letter or text "
                        "(docs/language_models.md, 'Generative multiple choice'); answers that map to no option are "
                        "counted and wrong (similarity: use --metric capa-discrete, choice or ec)")
    p.add_argument("--answer-pattern", metavar="REGEX", default=None,
                   help="lm-eval: a regular expression with one capture group (the option's letter or text), tried "
                        "before the built-in rules; implies --map-answers")
    p.add_argument("--scorer", metavar="NAME", default=None,
                   help="Inspect: the scorer whose scores to read when the samples log several")


#: The readers' words for their arguments, and the command line's.
_OPTION_WORDS = (("pass unaligned='drop'", "give --unaligned drop"),
                 ("choose one with `filter_name` (e.g. filter_name='none')", "choose one with --filter (e.g. --filter none)"),
                 ("`clusters`=", "--clusters "), ("`answer_pattern`", "--answer-pattern"),
                 ("map_answers=True", "--map-answers"), ("choose it with `format`", "choose it with --format"),
                 ("choose the format with `format`", "choose the format with --format"),
                 ("choose one with `scorer` (e.g. scorer=", "choose one with --scorer (e.g. --scorer "))


def _read(args, paths: list[str]):
    try:
        return _read_logs(args, paths)
    except InputError as exc:
        if isinstance(exc, CLIError):
            raise
        text = (str(exc).strip().splitlines() or [""])[0]
        for api, cli in _OPTION_WORDS:
            text = text.replace(api, cli)
        raise CLIError(text) from None


#: Logs read as this command reads them (the format detected or ``args.format``; the readers' errors in the
#: command line's words), for the other commands that read evaluation logs (``trialwise paired``).
read_log_args = _read


def _read_logs(args, paths: list[str]):
    from trialwise.io.logs.detect import detect_format, read_logs, reader_options

    for path in paths:
        if not os.path.exists(path):
            raise CLIError(f"{path}: no such file or folder")
    fmt = detect_format(paths) if args.format == "auto" else args.format
    options = {"clusters": args.clusters, "unaligned": args.unaligned}
    for flag, name, value in (("--normalization", "normalization", args.normalization),
                              ("--filter", "filter_name", args.filter_name), ("--scorer", "scorer", args.scorer),
                              ("--map-answers", "map_answers", args.map_answers or None),
                              ("--answer-pattern", "answer_pattern", args.answer_pattern)):
        if value is None:
            continue
        if name not in reader_options(fmt):
            takes = " and ".join(label for f, (label, _, _) in FORMATS.items() if name in reader_options(f))
            raise CLIError(f"{flag} applies to {takes} logs; these are {FORMATS[fmt][0]} logs")
        options[name] = value
    with reading(paths[0] if len(paths) == 1 else ", ".join(paths)):
        trials = read_logs(paths, format=fmt, **options)
    if trials.empty:
        raise CLIError(f"{', '.join(paths)}: the logs hold no multiple-choice trials "
                       f"(skipped: {trials.attrs.get('log', {}).get('skipped', {})})")
    return fmt, trials


def _check_metric(args, trials) -> None:
    args.metric_note = None
    if args.metric == "auto":  # CAPA on the probabilities where logged; chat and API models log only the choice
        no_probabilities = int(trials["probabilities"].isna().sum())
        args.metric = "capa-discrete" if no_probabilities else "capa"
        if no_probabilities:
            args.metric_note = (f"Metric: capa-discrete (CAPA on the chosen options): {no_probabilities} of the "
                                f"{len(trials)} "
                                f"trials have no option probabilities (only the chosen option is logged); --metric "
                                f"choice or ec for the others")
    if args.metric == "capa" and trials["probabilities"].isna().any():
        n = int(trials["probabilities"].isna().sum())
        raise CLIError(f"--metric capa needs the options' probabilities, which {n} of the {len(trials)} trials lack "
                       f"(HELM's joint multiple-choice method, Inspect and every-eval-ever log only the chosen "
                       f"option, as answers mapped to options with --map-answers are); use --metric "
                       f"capa-discrete, choice or ec")
    models = trials["subject"].nunique()
    if models < 2:
        raise CLIError(f"the logs hold {models} model ({', '.join(map(str, trials['subject'].unique()))}); "
                       f"similarity needs at least 2")
    tasks = trials.groupby("condition", sort=True)["subject"].unique()
    everyone = set(trials["subject"])
    for task, present in tasks.items():
        if set(present) != everyone:  # a model without a whole task (items missing within a task stop the reader)
            lacking = sorted(everyone - set(present))
            raise CLIError(f"{len(lacking)} model(s) have no trials of task {task!r} (e.g. {lacking[0]!r}), and "
                           f"similarity needs every model on every question: give --unaligned drop to keep only "
                           f"the tasks every model answered (counted in the output), or leave those models out")


def _fmt(x) -> str:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return ""
    return "nan" if x != x else f"{x:.3f}"


def _print_similarity(res, order: list) -> None:
    from trialwise.plot.similarity import METRIC_SYMBOLS

    symbol = METRIC_SYMBOLS.get(res.method, res.method)
    units = "questions" if res.n_clusters == int(max(res.n, default=0)) else "clusters"
    print(f"Similarity: {symbol}, {len(res.observers)} models, {int(max(res.n, default=0))} questions; "
          f"{res.confidence_level * 100:g}% CI ({res.ci_method}"
          + ((" interval over clusters; differences: jackknife t too; bootstrap B" if res.jackknife_values.size else
              " interval over clusters; differences: bootstrap B") if res.ci_method == "jackknife-t" else
             " bootstrap, B" if res.ci_method in AGREEMENT_CI_METHODS else " interval; differences: bootstrap B") +
          f" = {res.n_resamples}, {res.n_clusters} {units} resampled jointly for all pairs)")
    mat = res.matrix().loc[order, order]
    w = max(len(str(n)) for n in order)
    short = [f"m{i + 1}" for i in range(len(order))]
    print("matrix (models ordered by hierarchical clustering on 1 − similarity):")
    print(" " * (w + 6) + "".join(f"{s:>8}" for s in short))
    for i, name in enumerate(order):
        cells = "".join(f"{'—':>8}" if i == j else f"{_fmt(v):>8}" for j, v in enumerate(mat.loc[name]))
        print(f"  {short[i]:<3} {str(name):<{w}}{cells}")
    frame = res.to_frame().sort_values("statistic", ascending=False, na_position="last")
    test = res.method != "choice"
    what = "H0: kappa = 0" if res.method == "ec" else "H0: no more agreement than chance"
    print("pairs, most similar first" + (f" (p: {what})" if test else "") + ":")
    wa, wb = max(len(str(a)) for a in frame.observer_a), max(len(str(b)) for b in frame.observer_b)
    shown = frame if len(frame) <= 30 else frame.head(15)
    for r in shown.itertuples():
        p = f"  p = {format_pvalue(r.pvalue)}" if test and r.pvalue == r.pvalue else ""
        print(f"  {str(r.observer_a):<{wa}}  {str(r.observer_b):<{wb}}  {_fmt(r.statistic)} "
              f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]{p}")
    if len(shown) < len(frame):
        print(f"  … {len(frame) - len(shown)} more pair(s) (all in --csv and the report)")


def _print_differences(diffs, args, n_models: int) -> None:
    alpha = round(1 - args.confidence_level, 12)  # 0.05, not 0.050000000000000044
    sig = diffs.table[diffs.table["significant"]]
    print(f"\nDifferences of similarity with a common model: is R more similar to X than to Y? "
          f"{diffs.n_tests} tests{f' ({diffs.n_undefined} more undefined: no test)' if diffs.n_undefined else ''} "
          f"(every model as R, every pair X, Y of the others; two-sided "
          f"{'jackknife t (over clusters)' if diffs.ci_method == 'jackknife-t' else 'bootstrap'} test of equal "
          f"similarity, {args.adjust}-adjusted): {len(sig)} significant at {alpha:g}")
    for note in diffs.notes:
        if getattr(note, "kind", "") == "monte-carlo-resolution":
            v = note.values
            print(f"  {len(sig)} significant by construction: no difference can reach {alpha:g} after "
                  f"{args.adjust} with B = {v['n_resamples']} and {v['n_tests']} tests (smallest adjusted p "
                  f"{format_pvalue(v['smallest_adjusted'])}): B ≥ {v['resamples_needed']} needed (--resamples)")
    for r in sig.head(20).itertuples():
        print(f"  {r.reference}: more similar to {r.more_similar} ({_fmt(r.similarity_more)}) than to "
              f"{r.less_similar} ({_fmt(r.similarity_less)}): {r.difference:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}], "
              f"adjusted p = {format_pvalue(r.pvalue_adjusted, missing='')}")
    if len(sig) > 20:
        print(f"  … {len(sig) - 20} more (all in --differences-csv and the report)")


def run_similarity(args) -> int:
    from trialwise.similarity.pairwise import pairwise_agreement
    from trialwise.leaderboards.scoring import leaderboard
    from trialwise.plot.similarity import similarity_order

    bar = Progress(args.progress)
    caught = Warnings()
    with _logs(args) as paths:
        if not args.logs:
            bar.say(f"no LOGS given: the bundled demo set ({paths[0]})")
        with caught.collect():
            fmt, trials = _read(args, paths)
    log = trials.attrs.get("log", {})
    try:
        _check_metric(args, trials)
    except CLIError:
        caught.report()  # the reader's counts (e.g. a model whose every record was skipped) say why
        raise
    n_models = trials["subject"].nunique()
    bar.say(f"read {len(trials)} trials of {n_models} models ({fmt}); bootstrapping the similarity of "
            f"{n_models * (n_models - 1) // 2} pairs × B = {args.resamples} …")
    try:
        with caught.collect():
            res = pairwise_agreement(trials, metric=args.metric, clusters="cluster" if args.clusters else None,
                                     confidence_level=args.confidence_level, n_resamples=args.resamples,
                                     rng=args.seed)
            n_tests = n_models * (n_models - 1) * (n_models - 2) // 2
            diffs = None
            if args.differences == "all" or (args.differences == "auto" and 0 < n_tests <= DIFFERENCE_LIMIT):
                bar.phase("differences", lambda total: f"{total} tests of equal similarity to a common model")
                diffs = res.differences(adjust=args.adjust, alpha=round(1 - args.confidence_level, 12),
                                        progress=bar)
            bar.phase("bootstrap", lambda total: f"accuracy leaderboard: bootstrapping {total} conditions × "
                                                 f"B = {args.resamples}")
            lb = leaderboard(trials, protocol="accuracy", n_resamples=args.resamples,
                             confidence_level=args.confidence_level, clusters="cluster" if args.clusters else None,
                             rng=args.seed, progress=bar)
    finally:
        bar.close()
    order = similarity_order(res.matrix())
    skipped = log.get("skipped") or {}
    print(f"Logs: {len(trials)} trials, {n_models} models, {trials['image'].nunique()} questions in "
          f"{trials['condition'].nunique()} task(s) ({fmt})"
          + (f"; records not used: {', '.join(f'{k} {v}' for k, v in skipped.items())}" if skipped else ""))
    if args.metric_note:
        print(args.metric_note)
    if log.get("generated"):
        print(f"Generated answers mapped to options: {log['unmapped']} of {log['generated']} map to no option "
              f"(response 'na', counted wrong; never the same choice as another)")
    _print_similarity(res, order)
    if diffs is not None:
        _print_differences(diffs, args, n_models)
    elif n_tests > 0:
        print(f"\nDifferences of similarity: {n_tests} tests not computed (more than {DIFFERENCE_LIMIT}; "
              f"--differences all computes them)")
    print()
    print(lb.summary())
    if args.clusters:
        print(f"Note: the similarity and the leaderboard resample clusters of questions (--clusters {args.clusters})")
    sys.stdout.flush()
    if args.csv:
        write_csv(args.csv, res.to_frame(), "--csv", "similarity table", seed=args.seed)
    if args.differences_csv:
        if diffs is None:
            raise CLIError(f"--differences-csv {args.differences_csv}: no tests to write (--differences none, "
                           f"fewer than 3 models, or more than {DIFFERENCE_LIMIT} tests without --differences all)")
        write_csv(args.differences_csv, diffs.to_frame(), "--differences-csv", "difference tests", seed=args.seed)
    failures: tuple[str, ...] = ()
    if args.out:
        from trialwise.report.similarity import render_similarity_report

        failures = write_report(args.out, lambda: render_similarity_report(
            res, diffs, lb, order=order, trials=trials, source=", ".join(paths), fmt=fmt, clusters=args.clusters),
            bar.say, caught.collect, seed=args.seed)
    few = too_few_resamples(args.resamples, args.confidence_level)
    if few:
        print(f"trialwise: warning: {few}", file=sys.stderr)
    caught.report()
    raise_figure_failures(failures)
    return 0
