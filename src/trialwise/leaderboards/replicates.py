"""The scores of the joint hierarchical bootstrap: every row's observed and replicate score, overall and per experiment (bootstrap_scores, BootstrapScores).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._stats.streams import child_rngs, child_seed, copy_rng
from trialwise.leaderboards.bootstrap import bootstrap_entries, bootstrap_entries_ij
from trialwise.leaderboards.hierarchy import (
    Design,
    aggregate,
    aggregate_each,
    reference_level,
    row_scores,
)

__all__ = ["bootstrap_scores"]


Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BootstrapScores:
    """The joint hierarchical bootstrap of a design: observed and replicate scores, overall and per experiment.

    ``scores`` (rows), ``replicates`` (B, rows), ``experiment_scores`` (rows, experiments),
    ``experiment_replicates`` (B, rows, experiments); rows in ``design.rows`` order, NaN
    where a row has no value. ``swap_seed`` seeds the swap tests (one stream per pair);
    ``bootstrap_rng`` is a copy of the bootstrap's generator before it drew anything, from
    which the same replicates can be made again (with standard errors, when a test needs
    them).
    ``standard_errors`` (rows) and ``replicate_standard_errors`` (B, rows): the
    infinitesimal-jackknife SE of every row score on the data and on every replicate
    (:func:`~trialwise.leaderboards.bootstrap.bootstrap_entries_ij`), when asked for.
    """

    scores: NDArray
    replicates: NDArray
    experiment_scores: NDArray
    experiment_replicates: NDArray
    swap_seed: int
    standard_errors: NDArray | None = None
    replicate_standard_errors: NDArray | None = None
    bootstrap_rng: np.random.Generator | None = None


def bootstrap_scores(design: Design, n_resamples: int, *, rng: Any = None, workers: int | None = None,
                     progress: Progress | None = None, standard_errors: bool = False) -> BootstrapScores:
    """Resample items within each condition, the same replicate for every observer, and recompute every level.

    ``rng`` is split into two streams: the bootstrap's and the seed of the swap tests.
    ``standard_errors=True`` adds the infinitesimal-jackknife SE of every row score on the
    data and on every replicate (the same replicates; needed by ``ci_method="studentized"``).
    """
    boot_gen, swap_gen = child_rngs(rng, 2)
    swap_seed = child_seed(swap_gen)
    boot_copy = copy_rng(boot_gen)
    values = design.values()
    se = se_rep = None
    # the units average their replicates over the references themselves (the same bits; no B × entries array)
    by_ref = reference_level(design) is not None
    if standard_errors:
        ij = bootstrap_entries_ij(design, n_resamples, rng=boot_gen, workers=workers, progress=progress,
                                  by_reference=by_ref)
        entries, se, se_rep = ij.entries, ij.standard_errors, ij.replicate_standard_errors
    else:
        entries = bootstrap_entries(design, n_resamples, rng=boot_gen, workers=workers, progress=progress,
                                    by_reference=by_ref)
    scores = row_scores(values, design)  # a row without entries (no pair shares an item) is NaN
    # the scores' and the per-experiment scores' replicates: their levels in common averaged once
    (rep, rep_key), (exp_rep, _) = aggregate_each(entries, design, ((), ("experiment",)), from_reference=by_ref)
    del entries
    replicates = np.full((n_resamples, len(design.rows)), np.nan)
    replicates[:, rep_key["row"]] = rep
    exp_obs, key = aggregate(values, design, keep=("experiment",))
    shape = (len(design.rows), len(design.experiments))
    exp_scores = np.full(shape, np.nan)
    exp_scores[key["row"], key["experiment"]] = exp_obs
    exp_replicates = np.full((n_resamples,) + shape, np.nan)
    exp_replicates[:, key["row"], key["experiment"]] = exp_rep
    return BootstrapScores(scores, replicates, exp_scores, exp_replicates, swap_seed, se, se_rep, boot_copy)
