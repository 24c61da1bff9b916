"""Plans near the ceiling: trial counts with and without the undefined-experiment rule of ``tw.plan_trials``.

    python benchmarks/calibration/plan_undefined.py [--simulations 10000] [--fresh 40000] [--seed 0]

For each design, ``tw.plan_trials`` (``--simulations`` experiments per n, ``rng=--seed``)
with the default ``max_share_undefined=0.05`` and with ``max_share_undefined=1`` (the rule
before review HR5, F2: experiments without an EC ignored). Printed per design: both answers,
the share of experiments without an EC at each, the brute-force n at which the exact
probability of an undefined κ̂, ``P11**n + P00**n``, falls to 5 %, and a fresh simulation of
the planned design (``--fresh`` experiments, seed 99): its half-width and undefined share.
"""

from __future__ import annotations

import argparse
import warnings

import trialwise as tw

DESIGNS = [  # (half_width, accuracy_a, accuracy_b, kappa)
    (0.2, 0.99, 0.99, 0.0),
    (0.9, 0.9, 0.8, 0.3),
    (0.6, 0.97, 0.95, 0.4),
    (0.6, 0.95, 0.95, 0.5),
    (0.3, 0.97, 0.97, 0.5),
    (0.1, 0.75, 0.75, 0.5),
]


def oracle(a: float, b: float, k: float, bound: float = 0.05) -> int:
    cells = tw.ec.cell_probabilities(k, a, b)
    return next(n for n in range(1, 10**6) if cells[0, 0] ** n + cells[1, 1] ** n <= bound)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--fresh", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'design (h, a_A, a_B, κ)':<26} {'old n':>6} {'undef':>6} {'new n':>6} {'undef':>6} {'oracle':>6} "
          f"{'fresh h':>8} {'fresh undef':>11}  decided by")
    for h, a, b, k in DESIGNS:
        old = tw.plan_trials(h, a, b, k, n_simulations=args.simulations, rng=args.seed, reference_accuracies=(),
                             max_share_undefined=1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            new = tw.plan_trials(h, a, b, k, n_simulations=args.simulations, rng=args.seed, reference_accuracies=())
        fresh = tw.planning.ci_width(new.n, a, b, k, n_simulations=args.fresh, rng=99)
        by = "undefined share" if caught else "precision"
        print(f"{str((h, a, b, k)):<26} {old.n:>6} {float(old.at_n.share_undefined):>6.3f} {new.n:>6} "
              f"{float(new.at_n.share_undefined):>6.3f} {oracle(a, b, k):>6} {float(fresh.half_width):>8.3f} "
              f"{float(fresh.share_undefined):>11.4f}  {by}")


if __name__ == "__main__":
    main()
