"""``trialwise plan``: how many trials an experiment needs (the interval-vs-n curve)."""

from __future__ import annotations

import argparse
import json
import sys

from trialwise.cli.common import CLIError, EPILOG, clean, save_figure, use_agg
from trialwise.cli.progress import Progress, Warnings, add_progress_options


def add_plan(sub) -> argparse.ArgumentParser:
    plan = sub.add_parser(
        "plan",
        help="how many trials an experiment needs (copy-model simulation)",
        description=(
            "Smallest number of trials whose expected confidence interval of the EC has the target "
            "half-width, for observers with the given accuracies and true EC (A is the reference, e.g. "
            "the human). Prints the answer, the expected intervals at the trial counts of the literature, "
            "and the answer if the reference accuracy were different."
        ),
        epilog=EPILOG,
    )
    plan.add_argument("--accuracy-a", type=float, required=True, help="accuracy of A (the reference)")
    plan.add_argument("--accuracy-b", type=float, required=True, help="accuracy of B")
    plan.add_argument("--kappa", type=float, required=True, help="expected (true) error consistency")
    plan.add_argument("--half-width", type=float, required=True, help="target half-width of the interval")
    plan.add_argument("--confidence-level", type=float, default=0.95)
    plan.add_argument("--simulations", type=int, default=10_000, help="simulated experiments per n (default 10000)")
    plan.add_argument("--max-trials", type=int, default=1_000_000,
                      help="largest n searched, at least 2 (default 1000000)")
    plan.add_argument("--max-share-undefined", type=float, default=0.05, metavar="SHARE",
                      help="largest share of simulated experiments without an EC (both observers error-free, or "
                           "both always wrong) at the answered n (default 0.05; 1 ignores them)")
    plan.add_argument("--seed", type=int, default=None, help="random seed for reproducible answers")
    plan.add_argument("--figure", metavar="FILE",
                      help="write the interval-vs-trials figure (Klein et al. 2025, Fig. 3) here (.png, .pdf or .svg)")
    plan.add_argument("--json", action="store_true", help="print the result as JSON")
    add_progress_options(plan)
    return plan


#: The library's names of plan_trials' arguments (as messages quote them), and the command line's options.
_OPTION_WORDS = (("`half_width`", "--half-width"), ("`accuracy_a`", "--accuracy-a"), ("`accuracy_b`", "--accuracy-b"),
                 ("`kappa`", "--kappa"), ("`n_simulations`", "--simulations"), ("`n_max`", "--max-trials"),
                 ("`max_share_undefined`", "--max-share-undefined"))


def _options(text: str) -> str:
    """``text`` with the library's argument names replaced by the command line's options."""
    for api, cli in _OPTION_WORDS:
        text = text.replace(api, cli)
    return text


def run_plan(args) -> int:
    from trialwise._core.errors import InputError
    from trialwise.planning.trials import plan_trials

    if args.max_trials < 2:
        raise CLIError(f"--max-trials must be at least 2: one trial cannot estimate EC (κ of a single item is "
                       f"undefined or exactly 0); got {args.max_trials}")
    if not 0 <= args.max_share_undefined <= 1:
        raise CLIError(f"--max-share-undefined is a share between 0 and 1 (e.g. 0.05 for 5%); "
                       f"got {args.max_share_undefined:g}")
    bar = Progress(args.progress)
    caught = Warnings()
    searching = (f"searching the smallest number of trials ({args.simulations} simulated experiments per n, "
                 f"n ≤ {args.max_trials}) …")
    with caught.collect(), bar.after(0.5, searching):
        try:
            res = plan_trials(
                half_width=args.half_width, accuracy_a=args.accuracy_a, accuracy_b=args.accuracy_b,
                kappa=args.kappa, confidence_level=args.confidence_level, n_simulations=args.simulations,
                rng=args.seed, n_max=args.max_trials, max_share_undefined=args.max_share_undefined,
            )
        except InputError as exc:
            if isinstance(exc, CLIError):
                raise
            raise CLIError(_options((str(exc).strip().splitlines() or [""])[0])) from None
    if args.json:
        out = clean(res.to_dict())
        out["warnings"] = caught.messages()
        out["seed"] = args.seed
        print(json.dumps(out, indent=2))
    else:
        print(_options(res.summary()))
    sys.stdout.flush()
    # the library warns why when the experiments without an EC decided (its first note); else the precision did
    explained = res.n is not None or any(str(w.message) == res.notes[0] for w in caught.caught)
    if not explained:
        print(f"trialwise: warning: the target half-width {args.half_width:g} is not reached with up to "
              f"{args.max_trials} trials; raise --max-trials or accept a wider interval", file=sys.stderr)
    if args.figure is not None:
        use_agg()
        from trialwise.planning.curve import CURVE_TRIALS, interval_curve
        from trialwise.plot import plot_ci_width

        drawing = f"simulating the interval-vs-trials curve ({CURVE_TRIALS.size} trial counts × {args.simulations}) …"
        with caught.collect(), bar.after(0.5, drawing):
            fig = plot_ci_width(interval_curve(res, rng=args.seed), plan=res)
        save_figure(fig, args.figure, "--figure")
    if not args.json:
        for line in caught.lines():
            print(_options(line), file=sys.stderr)
    return 0
