"""Scoring trials into a leaderboard: leaderboard (public as trialwise.leaderboard) and difference_test.

The trials become a design (:mod:`trialwise.leaderboards.hierarchy`), the design is bootstrapped
jointly (:mod:`trialwise.leaderboards.bootstrap`) and the scores become a
:class:`~trialwise.leaderboards.Leaderboard` (:mod:`trialwise.leaderboards.board`).
"""

from __future__ import annotations

import os
from typing import Any

from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, TrialwiseWarning, warn
from trialwise._stats.streams import records_seed
from trialwise.leaderboards.board import BENCHMARK_CI_METHODS, DEFAULT_CI_METHOD, Leaderboard
from trialwise.leaderboards.degenerate import undefined_conditions, zero_by_rule
from trialwise.leaderboards.replicates import Progress, bootstrap_scores
from trialwise.leaderboards.differences import (
    BenchmarkDifferenceResult,
    BenchmarkTest,
)
from trialwise.leaderboards.hierarchy import (
    Design,
    build_design,
)
from trialwise.leaderboards.protocol import (
    Protocol,
    get_protocol,
    protocol_for_trials,
)
from trialwise.leaderboards.repeated import collapse_replicates
from trialwise.leaderboards.trials import as_trials
from trialwise.io.logs.records import REPLICATE_COLUMN

__all__ = ["leaderboard", "difference_test", "leaderboard_from_design"]


def leaderboard_from_design(design: Design, *, n_resamples: int, confidence_level: float, ci_method: str,
                            rng: Any = None, workers: int | None = None, progress: Progress | None = None,
                            notes: Any = None) -> Leaderboard:
    """Bootstrap a design (:func:`bootstrap_scores`) and make its :class:`Leaderboard` (arguments checked)."""
    if len(design.references) == 1 and not design.protocol.against_ground_truth:
        warn(f"only one reference observer ({design.references[0]}): the reference row has no value",
             TrialwiseWarning)
    # conditions that some or all rows' scores leave out, rows whose κ is 0 by rule: said once, by name
    degenerate = [x for x in (undefined_conditions(design), zero_by_rule(design)) if x is not None]
    if degenerate:
        warn("; ".join(degenerate), DegenerateDataWarning)
        notes = [*(design.notes if notes is None else notes), *degenerate]
    boot = bootstrap_scores(design, n_resamples, rng=rng, workers=workers, progress=progress,
                            standard_errors=ci_method == "studentized")
    return Leaderboard.from_bootstrap(design, boot, confidence_level=confidence_level, ci_method=ci_method,
                                      notes=notes)


@records_seed
def leaderboard(
    trials: Any,
    protocol: str | Protocol | None = None,
    *,
    name: str | None = None,
    reference: Any = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: str = DEFAULT_CI_METHOD,
    clusters: str | None = None,
    rng: Any = None,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Leaderboard:
    """Score every candidate against the reference group, with CIs and rank confidence.

    Parameters
    ----------
    trials : DataFrame or path
        A trials table (:func:`trialwise.read_trials`, :func:`trialwise.io.read_model_vs_human`,
        or the bundled :func:`trialwise.datasets.model_vs_human`). Repeated runs of a model on
        a question (rows numbered by a column ``replicate``, as the log readers give them) are
        used by ``protocol="accuracy"`` only: each question is scored by the mean of its runs
        (:func:`trialwise.leaderboards.repeated.collapse_replicates`), so the bootstrap
        resamples questions with all their replicates; any other protocol is an error
        (``tw.leaderboards.replicate_accuracy`` gives the within/between-question split).
    protocol : Protocol or str, optional
        How trials become scores (see :data:`trialwise.leaderboards.PROTOCOLS`). Default:
        ``"model-vs-human"`` when every experiment of the trials is one of its own; otherwise a
        protocol built from the trials — every experiment and condition they hold, nothing
        excluded, model-vs-human's averaging and reference group
        (:func:`~trialwise.leaderboards.protocol.protocol_for_trials`), titled ``name``, and
        said in the ``notes`` (kind ``protocol-from-trials``). ``"flat"`` and
        ``"all-conditions"`` (averaging orders) are built from the trials the same way when
        they hold none of model-vs-human's experiments. A protocol none of whose experiments
        is in the trials is an error. ``"accuracy"`` (:data:`trialwise.leaderboards.ACCURACY`): every
        observer ranked by its accuracy, averaged over conditions, then experiments; no
        reference group and no reference row.
    name : str, optional
        The leaderboard's title (its protocol's ``name``): default the protocol's own name,
        and for a protocol built from the trials ``"your trials"``, or the file's name when
        ``trials`` is a path (as ``trialwise leaderboard`` gives it).
    reference : str or list of str, optional
        The reference observers by name (default: the observers whose
        ``observer_type`` is ``protocol.reference``).
    n_resamples : int
        Bootstrap replicates B of the whole hierarchy.
    confidence_level : float
        Of the score intervals, the rank sets, the set of the best and Kendall's τ (default 0.95).
    ci_method : {"studentized", "bc", "percentile", "basic", "hdi"}
        Interval from the bootstrap replicates. ``studentized`` (default): the bootstrap-t
        interval of every score, studentized by its infinitesimal-jackknife standard error
        on the data and on every replicate (:func:`trialwise._stats.intervals.studentized_interval`);
        it covers the reference row at the nominal level where its pairs share only 25–40
        items, where ``bc`` covers 90–94 % (``docs/benchmark.md``, "Sparse overlaps").
        Differences then get the symmetric bootstrap-t interval and per-experiment scores
        ``bc``. ``bc``: the bias-corrected
        percentile interval (Efron 1981; BCa without acceleration), which corrects for the
        small-sample bias of κ that the percentile interval doubles where pairs share few
        items. ``percentile``: the interval of Klein et al. (2025), to reproduce published
        intervals.
    clusters : str, optional
        A column of ``trials`` (a table) that groups items, e.g. the passage or subject of
        LLM benchmark questions: the bootstrap then resamples clusters, not items, within
        each condition, for the scores, their intervals, ranks and differences (items of one
        cluster are not independent, and resampling them one by one makes the intervals too
        narrow; docs/benchmark.md, "Clustered items"). A cluster label belongs to an item:
        every trial on it must carry the same one, and every condition needs at least two
        clusters (conditions are not resampled: one cluster would give it no uncertainty,
        an error). The swap test then swaps whole clusters.
    rng : seed or Generator
        Seeds the bootstrap and the later swap tests (:meth:`Leaderboard.difference`,
        :meth:`Leaderboard.pairwise`); the same seed gives the same leaderboard.
    workers : int, optional
        Threads (default: all cores); results do not depend on it.
    progress : callable, optional
        Called as ``progress(label, done, total)`` before the bootstrap starts and after
        each condition (``trialwise leaderboard`` draws its progress bar with it).

    Returns
    -------
    Leaderboard

    Notes
    -----
    Items are resampled within each condition, the same replicate for every observer,
    and every level is recomputed, so scores, their differences and the ranks carry the
    item-sampling uncertainty jointly. An undefined pair value in a replicate
    (both observers always right in a condition) is left out of its mean; a condition
    where a row has no defined value at all is named in the note ``undefined-conditions``
    (with a ``DegenerateDataWarning``). Candidates that lack an experiment of the protocol,
    or share fewer than ``protocol.min_items`` items with every reference observer in all
    its conditions, are not scored (listed in ``excluded``); no usable pair at all is an error.

    Ranks (Mogstad, Romano, Shaikh & Wilhelm 2024, from studentized simultaneous intervals
    of pairwise differences of the same replicates, refined step-down;
    :mod:`trialwise.leaderboards.ranks`): ``rank_low``/``rank_high`` is each model's marginal
    rank set (holds its true rank with probability ≥ ``confidence_level``),
    ``rank_set_low``/``rank_set_high`` the simultaneous sets (all hold at once),
    ``in_best_set`` the confidence set of the best, ``group`` tie groups as compact letters
    (Piepho 2004) from Holm-corrected Wald tests with bootstrap standard errors.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Efron, B. (1981). Nonparametric standard errors and confidence intervals. *Canadian
    Journal of Statistics* 9(2), 139–158.

    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024). Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries.
    *Review of Economic Studies* 91(1), 476–518.

    Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
    comparisons. *Journal of Computational and Graphical Statistics* 13(2), 456–466.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human_sample()
    >>> protocol = tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["colour", "contrast"])
    >>> lb = tw.leaderboard(trials, protocol=protocol, n_resamples=200, rng=0)
    >>> lb
    Leaderboard('model-vs-human', 3 candidates, B=200, best='resnet50' 0.218 [0.160, 0.274], kendall_tau=0.267)
    >>> row = lb.table.set_index("observer").loc["clip-16"]
    >>> round(float(row.score), 3), bool(row.ci_low < row.score < row.ci_high), int(row["rank"])
    (0.202, True, 3)
    >>> round(float(lb.table.score[0]), 3)   # the human–human row comes first
    0.426
    """
    if protocol is not None:
        get_protocol(protocol)  # a bad protocol is named before the trials are read
    workers = v.check_workers(workers)
    b = v.check_positive_int(n_resamples, "n_resamples")
    level = v.check_confidence_level(confidence_level)
    method = v.check_choice(ci_method, "ci_method", BENCHMARK_CI_METHODS)
    trials = _replicate_means(trials, protocol, clusters)
    t = as_trials(trials)
    title = name
    if title is None and isinstance(trials, str | os.PathLike):  # a file: titled by its name, as on the command line
        title = os.path.basename(os.path.normpath(os.fspath(trials))) or None
    proto = protocol_for_trials(protocol, sorted(map(str, t["experiment"].unique())), name=title)
    if name is not None and proto.from_trials is None:  # a named protocol, retitled
        proto = proto.replace(name=name)
    design = build_design(t, proto, reference, clusters=None if clusters is None else
                          cluster_labels(trials, t, clusters))
    return leaderboard_from_design(design, n_resamples=b, confidence_level=level, ci_method=method, rng=rng,
                                   workers=workers, progress=progress)


def _replicate_means(trials: Any, protocol: Any, clusters: Any) -> Any:
    """A table with repeated runs (column ``replicate``) as one row per question scored by its replicate mean,
    for an accuracy protocol; any other protocol cannot use replicates (an error saying what to do)."""
    import pandas as pd

    if not isinstance(trials, pd.DataFrame) or REPLICATE_COLUMN not in trials.columns:
        return trials
    proto = get_protocol(protocol) if protocol is not None else None
    if proto is None or not proto.against_ground_truth:
        raise InvalidValueError(
            f"`trials` has repeated runs (column {REPLICATE_COLUMN!r}), which only protocol='accuracy' uses (each "
            f"question scored by the mean over its replicates); got protocol={v.show(protocol)}. For other "
            f"protocols keep one run per question (e.g. trials[trials.{REPLICATE_COLUMN} == 1].drop(columns="
            f"'{REPLICATE_COLUMN}')); tw.leaderboards.replicate_accuracy gives accuracy with its within/between-"
            f"question variance split")
    return collapse_replicates(trials, clusters if isinstance(clusters, str) else None)


def cluster_labels(trials: Any, checked: Any, clusters: Any) -> NDArray:
    """The ``clusters`` column of a trials table, aligned with its checked rows (``as_trials``)."""
    import pandas as pd

    if not isinstance(clusters, str):
        raise InvalidTypeError(f"`clusters` must be the name of a column of the trials table; got {clusters!r}")
    if not isinstance(trials, pd.DataFrame) or clusters not in trials.columns:
        have = list(trials.columns) if isinstance(trials, pd.DataFrame) else "a path, not a table"
        raise InvalidValueError(f"`clusters`: {clusters!r} is not a column of the trials table (columns: {have})")
    if not checked.index.equals(trials.index):
        raise InvalidValueError("`clusters` needs a trials table with the trial columns (as from "
                                "trialwise.read_trials or a log reader) plus the cluster column")
    labels = trials[clusters]
    if labels.isna().any():
        raise InvalidValueError(f"`clusters`: column {clusters!r} must give every trial a cluster label; "
                                f"{int(labels.isna().sum())} trial(s) have none")
    return labels.astype(str).to_numpy()


@records_seed
def difference_test(
    trials: Any,
    x: str,
    y: str,
    *,
    reference: Any = None,
    protocol: str | Protocol | None = None,
    test: BenchmarkTest = "combined",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: str = DEFAULT_CI_METHOD,
    rng: Any = None,
) -> BenchmarkDifferenceResult:
    """Do two candidates differ in their benchmark score?

    A :func:`leaderboard` of x, y and the reference observers alone (the other
    observers' trials are not used), then :meth:`Leaderboard.difference`.

    Parameters
    ----------
    trials : DataFrame or path
        A trials table, as in :func:`leaderboard` (repeated runs, a column ``replicate``, with
        ``protocol="accuracy"`` only: each question scored by the mean of its runs).
    x, y : str
        The two candidates (``subject`` names in the trials).
    reference : str or list of str, optional
        An ``observer_type`` (e.g. ``"human"``) or the reference observers' names
        (default: the observers whose ``observer_type`` is ``protocol.reference``).
    protocol : Protocol or str, optional
        How trials become scores, as in :func:`leaderboard` (default: model-vs-human, or a
        protocol built from trials that hold none of its experiments).
    test : {"combined", "studentized", "swap", "bootstrap", "paper"}
        The test of "alike", as in :meth:`Leaderboard.difference` (``n_resamples`` swaps).
    n_resamples : int
        Bootstrap replicates B of the whole hierarchy, and swaps M of the swap test.
    confidence_level : float
        Of the interval of the difference.
    ci_method : {"studentized", "bc", "percentile", "basic", "hdi"}
        As in :func:`leaderboard` (the difference's interval is the symmetric bootstrap-t,
        ``"symmetric-studentized"``, under ``studentized``).
    rng : seed or Generator
        Seeds the bootstrap and the swap test.

    Returns
    -------
    BenchmarkDifferenceResult
        ``statistic`` = score(x) − score(y), its ``confidence_interval`` and the ``pvalue``
        of H0 "x and y are alike".

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.model_vs_human("cue-conflict")
    >>> res = tw.leaderboards.difference_test(trials, "clip-16", "resnet50", reference="human",
    ...                          protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                          n_resamples=2000, rng=0)
    >>> round(res.statistic, 3), bool(res.pvalue < 0.001)
    (0.088, True)
    """
    if protocol is not None:
        get_protocol(protocol)
    t = as_trials(_replicate_means(trials, protocol, None))
    proto = protocol_for_trials(protocol, sorted(map(str, t["experiment"].unique())))
    names = set(t["subject"])
    for name, arg in ((x, "x"), (y, "y")):
        if name not in names:
            raise InvalidValueError(f"`{arg}`: observer {name!r} is not in the trials")
    if not proto.against_ground_truth and isinstance(reference, str) and reference in set(t["observer_type"]):
        proto, reference = proto.replace(reference=reference), None
    if proto.against_ground_truth:  # accuracy: x and y against the ground truth, no reference group
        keep = t["subject"].isin([x, y])
    elif reference is None:
        keep = t["subject"].isin([x, y]) | (t["observer_type"] == proto.reference)
    else:
        refs = [reference] if isinstance(reference, str) else list(reference)
        keep = t["subject"].isin([x, y, *refs])
    lb = leaderboard(t[keep.to_numpy()], proto, reference=reference, n_resamples=n_resamples,
                     confidence_level=confidence_level, ci_method=ci_method, rng=rng)
    return lb.difference(x, y, test=test)
