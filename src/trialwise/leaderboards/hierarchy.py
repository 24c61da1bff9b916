"""The benchmark hierarchy: trials → per-condition pair metrics → scores, bootstrapped jointly.

A *design* holds, for every condition (a *unit*) of a protocol, the items × observers
correctness matrix (uint8; for the accuracy metric, per-item scores in [0, 1] as float64
when the trials have a ``score`` column that is not all 0/1) and the list of *entries*:
one per (row, reference pair) in the unit, where a row is a candidate (paired with each
reference observer) or the reference group itself (pairs of distinct reference
observers). A row's score is the hierarchical mean of its entries' metric values,
averaged level by level in the protocol's order.

Resampling is the library's one engine (:mod:`trialwise._stats.resampling`): within each unit a
bootstrap replicate is a multinomial weight vector over its items shared by every
observer, so each entry's table is a weighted column sum and a unit's replicates are one
chunked matrix product. Units are independent given the seed: unit ``u`` (in sorted
(experiment, condition) order) draws from the ``u``-th child stream of ``rng``
(:func:`trialwise._stats.streams.child_rngs`); the bootstrap itself is
:mod:`trialwise.leaderboards.bootstrap`. With ``bootstrap_entries_ij`` every unit also yields
the infinitesimal-jackknife variance of every row score on the data and on every replicate
(:mod:`trialwise.leaderboards.influence`), for the studentized interval.

Why this module is long: about 700 lines, because the design and its aggregation share one
layout (entries grouped by unit, rows and levels as index arrays) that the bootstrap, the
influence and the swap test only read (:mod:`~trialwise.leaderboards.bootstrap`,
:mod:`~trialwise.leaderboards.influence`, :mod:`~trialwise.leaderboards.swap`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from trialwise._core.errors import InvalidValueError
from trialwise._core.threads import map_threads
from trialwise._core.warnings import DegenerateDataWarning, TrialwiseWarning, warn
from trialwise._stats.tables import cluster_sums, pair_columns
from trialwise.io.trials import SCORE_COLUMN, SCORE_SOURCE
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import (
    GROUND_TRUTH,
    MODEL_VS_HUMAN,
    Protocol,
    metric_from_sums,
)

__all__ = ["Design", "build_design", "reference_mask", "aggregate", "aggregate_each", "reference_level", "members_mean",
           "group_mean", "row_scores", "entry_weights"]

#: Name of the reference group's own row (pairs of distinct reference observers).
REFERENCE_ROW = "{reference}–{reference}"
#: Values per block of :func:`group_mean` (about 8 MB of float64).
_GROUP_BLOCK = 2**20


@dataclass
class Unit:
    """One condition: correctness of its observers on its items, and its entries."""

    experiment: str
    condition: str
    observers: tuple[str, ...]
    right: NDArray  # (n_items, n_observers) uint8 correctness, or float64 scores in [0, 1] (accuracy only)
    seen: NDArray  # (n_items, n_observers) uint8
    pairs: NDArray  # (n_entries, 2) observer columns of each entry
    entries: NDArray  # global entry indices of this unit's entries
    clusters: NDArray | None = None  # (n_items,) cluster code of each item (0 … C − 1), or None: items resampled

    def resampled(self, columns: NDArray) -> NDArray:
        """What the bootstrap resamples: the item columns, or their sums within each cluster."""
        return columns if self.clusters is None else cluster_sums(columns, self.clusters)


@dataclass
class Design:
    """A protocol applied to trials: units, entries and their labels (see module doc)."""

    protocol: Protocol
    rows: tuple[str, ...]  # candidates, then the reference row
    candidates: tuple[str, ...]
    references: tuple[str, ...]
    experiments: tuple[str, ...]
    units: list[Unit]
    entry_row: NDArray
    entry_unit: NDArray
    entry_experiment: NDArray
    entry_reference: NDArray  # reference observer (candidates) or reference pair (reference row) id
    entry_sums: NDArray  # (4, n_entries): n, n11, ca, cb of the observed tables
    excluded: Any = None  # DataFrame: what the protocol or the data left out, and why
    notes: list[StructuredNote] = field(default_factory=list)  # structured: `kind` and `values` (benchmark.notes)

    @property
    def n_entries(self) -> int:
        return len(self.entry_row)

    @property
    def reference_row(self) -> int:
        return len(self.rows) - 1

    def values(self) -> NDArray:
        """The observed metric of every entry."""
        return metric_from_sums(self.protocol.metric, *self.entry_sums)


def reference_mask(trials, protocol: Protocol, reference: Any = None) -> NDArray:
    """Which trials belong to the reference observers: those named in ``reference``, else
    those whose ``observer_type`` is ``protocol.reference``. An error when there are none."""
    if reference is not None:
        refs = [reference] if isinstance(reference, str) else list(reference)
        unknown = sorted(set(refs) - set(trials["subject"]))
        if unknown:
            raise InvalidValueError(f"`reference` names observer(s) {unknown} that are not in the trials")
        return trials["subject"].isin(refs).to_numpy()
    mask = (trials["observer_type"] == protocol.reference).to_numpy()
    if not mask.any():
        types = sorted(set(trials["observer_type"]) - {""})
        raise InvalidValueError(f"no reference observers: no observer has observer_type {protocol.reference!r} "
                         f"(types found: {types or 'none'}); pass `reference=` with their names")
    return mask


def build_design(trials, protocol: Protocol, reference: Any = None, *, require_candidates: bool = True,
                 partial_by_design: bool = False, clusters: Any = None, unpaired: Any = None,
                 partial_candidates: bool = False) -> Design:
    """Apply a protocol to a trials table (:func:`trialwise.read_trials` columns).

    ``partial_by_design=True``: observers that lack some of a condition's images do so by
    construction (e.g. synthetic trials): noted, without a warning.
    ``reference``: the reference observers' names, overriding ``protocol.reference``
    (their ``observer_type``). ``require_candidates=False`` allows a design of the
    reference group alone (its own row only, e.g. a ceiling).
    ``partial_candidates=True``: a candidate that lacks whole experiments is kept, with no
    entry in them (so no value there: per-experiment scores,
    :meth:`trialwise.brainscore.BehavioralBenchmark.score_benchmarks`); by default it is not
    scored (note ``candidates-not-scored``). Either way it needs every condition of the
    experiments it has.

    ``clusters``: one cluster label per trial (aligned with ``trials``), the same for every
    trial on an item of a condition; the bootstrap then resamples clusters, not items,
    within each condition (:meth:`Unit.resampled`); every condition needs at least two
    clusters (one cluster cannot be resampled: its interval would have no width).

    A candidate that shares fewer than ``protocol.min_items`` items with every reference
    observer in all conditions of an experiment has no pair value there: it is not scored,
    like a candidate lacking the experiment (``excluded``, note ``candidates-unpaired``; the
    design is built again without it, with ``unpaired`` = {candidate: experiments}). No
    usable pair at all is an error naming ``min_items``.

    Under a ground-truth metric (``protocol.against_ground_truth``: accuracy) every observer
    is a candidate and the one reference is :data:`~trialwise.leaderboards.protocol.GROUND_TRUTH`,
    an oracle column added to every unit that saw each of its items and is always right;
    the reference row then has no entries.

    Three steps: the protocol's experiments and conditions (:func:`_select_trials`), the
    reference group and the candidates (:func:`_choose_observers`), then one :class:`Unit` per
    condition with its entries (:func:`_build_unit`); the notes of the whole design last.
    """
    import pandas as pd

    excluded: list[dict] = []
    notes: list[StructuredNote] = []
    unpaired = dict(unpaired or {})
    if not len(trials):
        raise InvalidValueError("`trials`: the table has no rows, so there is nothing to score")
    t = _select_trials(trials.assign(_cluster=np.asarray(clusters)) if clusters is not None else trials, protocol,
                       excluded, notes)
    obs = _choose_observers(t, protocol, reference, require_candidates, unpaired, excluded, notes, partial_candidates)
    t = obs.trials
    value_col, dtype, n_differ = _item_values(t, protocol)
    if n_differ:  # the scores are what is averaged: say so, with the user's column and how swaps work
        partial = t[value_col].to_numpy(float)
        notes.append(StructuredNote("per-item-scores", column=str(trials.attrs.get(SCORE_SOURCE, SCORE_COLUMN)),
                                    n_partial=int(((partial != 0.0) & (partial != 1.0)).sum()), n_differ=n_differ,
                                    clustered=clusters is not None))
    tally = _Tally()
    units: list[Unit] = []
    for u, ((e, c), g) in enumerate(t.groupby(["experiment", "condition"], sort=True)):
        units.append(_build_unit(u, e, c, g, obs, protocol, value_col, dtype, clustered=clusters is not None,
                                 tally=tally))
    entry_rows = np.concatenate(tally.rows).astype(np.intp) if tally.rows else np.empty(0, np.intp)
    if not len(entry_rows) and tally.sparse:
        raise InvalidValueError(f"no pair of observers shares the protocol's min_items ({protocol.min_items}) images "
                                f"in any condition, so there is nothing to score; lower `min_items` "
                                f"(protocol.replace(min_items=...); trialwise leaderboard --min-items; for an "
                                f"assembly, the `min_items=` of "
                                f"tw.brainscore.ErrorConsistency or BehavioralBenchmark.from_assembly) or collect "
                                f"more trials")
    entry_exps = np.concatenate(tally.experiments).astype(np.intp) if tally.experiments else np.empty(0, np.intp)
    lone = {c: [e for x, e in enumerate(obs.experiments)
                if e not in obs.absent.get(c, ()) and not np.any((entry_rows == i) & (entry_exps == x))]
            for i, c in enumerate(obs.candidates)}  # every pair under min_items in every condition of these experiments
    lone = {c: x for c, x in lone.items() if x}
    if lone:  # not scored, like a candidate lacking the experiments: the design again, without them
        return build_design(trials, protocol, reference, require_candidates=require_candidates,
                            partial_by_design=partial_by_design, clusters=clusters, unpaired={**unpaired, **lone},
                            partial_candidates=partial_candidates)
    _design_notes(notes, tally, protocol, obs.experiments, len(units), partial_by_design)
    excl = pd.DataFrame(excluded or None, columns=["experiment", "condition", "subject", "n_trials", "reason"])
    return Design(
        protocol=protocol, rows=obs.rows, candidates=tuple(obs.candidates), references=obs.references,
        experiments=tuple(obs.experiments), units=units, entry_row=np.concatenate(tally.rows).astype(np.intp),
        entry_unit=np.concatenate(tally.units).astype(np.intp),
        entry_experiment=np.concatenate(tally.experiments).astype(np.intp),
        entry_reference=np.concatenate(tally.references).astype(np.intp), entry_sums=np.concatenate(tally.sums, axis=1),
        excluded=excl, notes=notes,
    )


def _select_trials(trials, protocol: Protocol, excluded: list[dict], notes: list[StructuredNote]):
    """The trials of the protocol's experiments and conditions; what is left out goes to ``excluded``."""
    import pandas as pd

    exps_all = sorted(trials["experiment"].unique())
    if protocol.experiments is not None:
        missing = [e for e in protocol.experiments if e not in exps_all]
        keep_exp = [e for e in protocol.experiments if e in exps_all]
        if not keep_exp:
            found = (f"one experiment, {exps_all[0]!r}" + (" (no experiment column)" if exps_all == ["all"] else "")
                     if len(exps_all) == 1 else f"{len(exps_all)}: {', '.join(map(str, exps_all))}")
            if protocol.from_trials is not None:  # built from the trials, restricted to experiments they lack
                raise InvalidValueError(f"none of the experiments named (`experiments`, --experiments) is in the "
                                        f"trials: {', '.join(protocol.experiments)}; the trials have {found}")
            raise InvalidValueError(
                f"none of the experiments of protocol {protocol.name!r} is in the trials: it has "
                f"{', '.join(protocol.experiments)}; the trials have {found}. To score every experiment and condition "
                f"of the trials, leave out `protocol` (tw.leaderboard, tw.leaderboards.difference_test; --protocol of trialwise "
                f"leaderboard) or give tw.leaderboards.Protocol('a name'); to score some of them, name them "
                f"(`protocol.replace(experiments=[...])`, --experiments NAME ...)")
        if missing:
            notes.append(StructuredNote("experiments-not-in-trials", protocol=protocol.name, missing=missing,
                                        n_experiments=len(protocol.experiments)))
    else:
        keep_exp = exps_all
    for e in exps_all:
        if e not in keep_exp:
            excluded.append({"experiment": e, "condition": "*", "subject": "*",
                             "n_trials": int((trials["experiment"] == e).sum()), "reason": "experiment not in protocol"})
    t = trials[trials["experiment"].isin(keep_exp)]
    conds_found = t.groupby("experiment")["condition"].unique().to_dict()
    drop = np.zeros(len(t), bool)
    # (experiment, condition) codes once; the masks below compare small integer arrays
    # (from the two columns' codes: factorizing a MultiIndex builds a tuple per trial, 0.5 s on model-vs-human)
    e_codes, e_uniq = pd.factorize(t["experiment"])
    c_codes, c_uniq = pd.factorize(t["condition"])
    if (e_codes < 0).any() or (c_codes < 0).any():  # missing labels: as the MultiIndex has them
        ec_codes, ec_pairs = pd.factorize(pd.MultiIndex.from_arrays([t["experiment"], t["condition"]]))
    else:
        ec_codes, ec_first = pd.factorize(e_codes.astype(np.int64) * max(len(c_uniq), 1) + c_codes)
        ec_pairs = [(e_uniq[k // max(len(c_uniq), 1)], c_uniq[k % max(len(c_uniq), 1)]) for k in ec_first]
    ec_count = np.bincount(ec_codes, minlength=len(ec_pairs))
    pair_code = {pair: k for k, pair in enumerate(ec_pairs)}
    for name, mapping, keep in (("conditions", protocol.conditions or {}, True), ("exclude", protocol.exclude, False)):
        for e, conds in mapping.items():
            if e not in conds_found:
                continue  # an experiment the protocol leaves out, or the data do not have: nothing to select
            have = set(conds_found[e])
            absent = [c for c in conds if c not in have]
            if absent:
                raise InvalidValueError(f"protocol {protocol.name!r} ({name}) names condition(s) {absent} of experiment "
                                 f"{e!r} that the trials do not have; conditions found: {sorted(have)}"
                                 + ("; to score every condition, exclude none (`protocol.replace(exclude={})`; "
                                    "--protocol all-conditions)" if name == "exclude" else ""))
            hit_conds = sorted(set(have) - set(conds)) if keep else sorted(set(conds))
            hit_codes = [pair_code[(e, c)] for c in hit_conds]
            for c, k in zip(hit_conds, hit_codes):
                excluded.append({"experiment": e, "condition": c, "subject": "*", "n_trials": int(ec_count[k]),
                                 "reason": "condition excluded by protocol"})
            drop |= np.isin(ec_codes, hit_codes)
    t = t[~drop]
    if not len(t):
        raise InvalidValueError(f"protocol {protocol.name!r} leaves no trials: it excludes every condition of the "
                                f"trials' experiments ({', '.join(map(str, keep_exp))}); name the conditions to score "
                                f"(`protocol.replace(conditions=..., exclude=...)`)")
    return t


@dataclass
class _Observers:
    """The reference group and the candidates of a design, and the trials kept for them."""

    trials: Any
    truth: bool
    references: tuple
    candidates: list
    experiments: list
    rows: tuple
    absent: dict = field(default_factory=dict)  # candidate -> the experiments it lacks (partial_candidates only)

    def __post_init__(self) -> None:
        self.row_of = {c: i for i, c in enumerate(self.candidates)}
        self.ref_of = {r: i for i, r in enumerate(self.references)}


def _choose_observers(t, protocol: Protocol, reference: Any, require_candidates: bool, unpaired: dict,
                      excluded: list[dict], notes: list[StructuredNote], partial: bool = False) -> _Observers:
    """The reference group, and the candidates that cover every experiment (others go to ``excluded``;
    ``partial``: the candidates that cover some, with the experiments they lack in ``absent``)."""
    truth = protocol.against_ground_truth
    if truth:
        if reference is not None:
            raise InvalidValueError(f"`reference` is not used by metric {protocol.metric!r}: every observer is a "
                                    f"candidate, scored against the ground truth; got {reference!r}")
        if GROUND_TRUTH in set(t["subject"]):
            raise InvalidValueError(f"an observer (`subject`) is named {GROUND_TRUTH!r}, the name metric "
                                    f"{protocol.metric!r} gives the ground truth; rename it")
        is_ref = np.zeros(len(t), bool)
    else:
        is_ref = reference_mask(t, protocol, reference)
    label = GROUND_TRUTH if truth else "reference" if reference is not None else protocol.reference
    references = (GROUND_TRUTH,) if truth else tuple(sorted(t.loc[is_ref, "subject"].unique()))
    cand_all = sorted(set(t.loc[~is_ref, "subject"].unique()))
    if not cand_all and require_candidates:
        raise InvalidValueError(
            f"no candidate observers: every observer belongs to the reference group ({len(references)}: "
            f"{', '.join(map(str, references[:5]))}{', …' if len(references) > 5 else ''}), so there is no one to "
            f"score against it; add the candidates' trials" + ("" if reference is not None else
            f" (the reference group is the observers whose observer_type is {protocol.reference!r}; name it "
            f"with `reference=` / --reference)"))
    # Candidates must cover every experiment of the protocol to be comparable.
    cover = t.loc[~is_ref].groupby("subject")["experiment"].unique().to_dict()
    exps = sorted(t["experiment"].unique())
    candidates, absent = [], {}
    for c in cand_all:
        lacking = sorted(set(exps) - set(cover[c]))
        if lacking and partial and c not in unpaired:
            candidates.append(c)
            absent[c] = frozenset(lacking)
        elif lacking:
            excluded.append({"experiment": ",".join(lacking), "condition": "*", "subject": c,
                             "n_trials": int((t["subject"] == c).sum()),
                             "reason": f"candidate lacks {len(lacking)} of the protocol's {len(exps)} experiments"})
        elif c in unpaired:
            excluded.append({"experiment": ",".join(unpaired[c]), "condition": "*", "subject": c,
                             "n_trials": int((t["subject"] == c).sum()),
                             "reason": f"candidate shares fewer than {protocol.min_items} images (min_items) with "
                                       f"every reference observer in every condition of {len(unpaired[c])} "
                                       f"experiment(s)"})
        else:
            candidates.append(c)
    if cand_all and not candidates:
        if unpaired:
            raise InvalidValueError(f"no candidate shares the protocol's min_items ({protocol.min_items}) images "
                                    f"with a reference observer in a condition of every experiment; lower "
                                    f"`min_items` (protocol.replace(min_items=...); --min-items) or collect more trials")
        raise InvalidValueError(f"no candidate covers all {len(exps)} experiments of protocol {protocol.name!r}; "
                         f"restrict the protocol's `experiments`")
    lacking_of = {c: sorted(set(exps) - set(cover[c])) for c in cand_all if c not in candidates and c not in unpaired}
    if lacking_of:
        notes.append(StructuredNote("candidates-not-scored", lacking=lacking_of, n_experiments=len(exps)))
    if unpaired:  # a candidate that vanishes from the table: said at once, not only in the notes
        notes.append(StructuredNote("candidates-unpaired", unpaired=unpaired, min_items=protocol.min_items))
        warn(notes[-1], TrialwiseWarning)
    if len(references) == 1 and not truth:
        notes.append(StructuredNote("one-reference-observer", reference=references[0]))
    return _Observers(trials=t[t["subject"].isin(set(candidates) | set(references))], truth=truth,
                      references=references, candidates=candidates, experiments=exps,
                      rows=tuple(candidates) + (REFERENCE_ROW.format(reference=label),), absent=absent)


@dataclass
class _Tally:
    """What the units of a design add up to: their entries' labels and sums, and the counts of the notes."""

    rows: list = field(default_factory=list)
    units: list = field(default_factory=list)
    experiments: list = field(default_factory=list)
    references: list = field(default_factory=list)
    sums: list = field(default_factory=list)
    n_partial: int = 0
    n_disjoint: int = 0
    two_clusters: list = field(default_factory=list)  # conditions of exactly two clusters (experiment/condition)
    sparse: dict = field(default_factory=dict)  # per experiment: candidate and reference pairs left out
    total: dict = field(default_factory=dict)


def _unit_clusters(g, img_codes, images, e, c, tally: _Tally) -> NDArray:
    """The cluster code of each item of one condition (0 … C − 1); an error for one cluster."""
    import pandas as pd

    labels = pd.Series(g["_cluster"].to_numpy(), index=img_codes)
    if (labels.groupby(level=0).nunique() > 1).any():
        item = images[int(np.flatnonzero((labels.groupby(level=0).nunique() > 1).to_numpy())[0])]
        raise InvalidValueError(f"`clusters`: item {item!r} of condition {c!r} of experiment {e!r} has "
                                "more than one cluster label (a cluster label belongs to the item)")
    first = labels.groupby(level=0).first().sort_index()
    codes = pd.factorize(first.to_numpy(), sort=True)[0].astype(np.intp)
    if codes.max(initial=0) < 1:  # one cluster: every replicate the same, an interval of no width
        raise InvalidValueError(
            f"`clusters` (--clusters): condition {c!r} of experiment {e!r} holds a single cluster "
            f"({str(first.iloc[0])!r}), and clusters are resampled within each condition, so every condition "
            f"needs at least 2 (conditions are fixed, not resampled); cluster by a finer column, or leave "
            f"`clusters` out when each condition is one cluster")
    if codes.max(initial=0) == 1:  # two clusters: legal, but few resamples (docs/benchmark.md)
        tally.two_clusters.append(f"{e}/{c}")
    return codes


def _build_unit(u: int, e: str, c: str, g, obs: _Observers, protocol: Protocol, value_col: str, dtype: Any, *,
                clustered: bool, tally: _Tally) -> Unit:
    """One condition's :class:`Unit`: its correctness matrix and its entries (candidate–reference and
    reference–reference pairs sharing at least ``min_items`` items), added to ``tally``."""
    import pandas as pd

    img_codes, images = pd.factorize(g["image"], sort=True)
    obs_codes, observers = pd.factorize(g["subject"], sort=True)
    right = np.zeros((len(images), len(observers)), dtype)
    seen = np.zeros((len(images), len(observers)), np.uint8)
    seen[img_codes, obs_codes] = 1
    right[img_codes, obs_codes] = g[value_col].to_numpy(dtype)
    observers = tuple(observers)
    tally.n_partial += int((seen.sum(axis=0) < len(images)).sum())
    cluster_codes = _unit_clusters(g, img_codes, images, e, c, tally) if clustered else None
    if obs.truth:  # the oracle: saw every item of the unit, always right
        right = np.concatenate([right, np.ones((len(images), 1), dtype)], axis=1)
        seen = np.concatenate([seen, np.ones((len(images), 1), np.uint8)], axis=1)
        observers += (GROUND_TRUTH,)
    col = {o: k for k, o in enumerate(observers)}
    refs_u = [r for r in obs.references if r in col]
    n_refs, n_cand = len(obs.references), len(obs.candidates)
    pairs, rws, rfs = [], [], []
    for cand in obs.candidates:
        if cand not in col:
            if e in obs.absent.get(cand, ()):  # partial_candidates: no entry in an experiment it lacks
                continue
            raise InvalidValueError(f"candidate {cand!r} has no trial in condition {c!r} of experiment {e!r}")
        for r in refs_u:
            pairs.append((col[cand], col[r]))
            rws.append(obs.row_of[cand])
            rfs.append(obs.ref_of[r])
    for i, r1 in enumerate(refs_u):
        for r2 in refs_u[i + 1:]:
            pairs.append((col[r1], col[r2]))
            rws.append(n_cand)
            rfs.append(obs.ref_of[r1] * n_refs + obs.ref_of[r2])
    if not refs_u:
        raise InvalidValueError(f"no reference observer saw condition {c!r} of experiment {e!r}")
    pairs_arr = np.array(pairs, dtype=np.intp).reshape(-1, 2)
    shared = (seen[:, pairs_arr[:, 0]] & seen[:, pairs_arr[:, 1]]).sum(axis=0)
    rws_arr = np.array(rws, dtype=np.intp)
    for cand in obs.candidates:
        if cand in col and not np.any(shared[rws_arr == obs.row_of[cand]]):
            raise InvalidValueError(f"candidate {cand!r} shares no image with any reference observer in condition "
                             f"{c!r} of experiment {e!r}")
    empty = shared < protocol.min_items
    if empty.any():
        is_ref_pair = rws_arr[empty] == n_cand
        tally.n_disjoint += int((shared == 0).sum())
        tally.sparse[e] = tally.sparse.get(e, np.zeros(2, np.int64)) + [int((~is_ref_pair).sum()),
                                                                        int(is_ref_pair.sum())]
        pairs_arr, rws, rfs = pairs_arr[~empty], list(rws_arr[~empty]), list(np.asarray(rfs)[~empty])
    tally.total[e] = tally.total.get(e, np.zeros(2, np.int64)) + [int((rws_arr < n_cand).sum()),
                                                                  int((rws_arr == n_cand).sum())]
    cols, to_sums = pair_columns(right, seen, pairs_arr)
    total = cols.sum(axis=0, dtype=np.int64 if dtype == np.uint8 else np.float64)  # exact for 0/1
    start = sum(len(x) for x in tally.rows)
    tally.rows.append(rws)
    tally.units.append([u] * len(pairs_arr))
    tally.experiments.append([obs.experiments.index(e)] * len(pairs_arr))
    tally.references.append(rfs)
    tally.sums.append(np.stack(to_sums(total[None].astype(float)))[:, 0])
    return Unit(e, c, observers, right, seen, pairs_arr, np.arange(start, start + len(pairs_arr)), cluster_codes)


def _design_notes(notes: list[StructuredNote], tally: _Tally, protocol: Protocol, exps: list, n_units: int,
                  partial_by_design: bool) -> None:
    """The notes (and warnings) of the whole design: clusters, partial images, sparse pairs, the protocol."""
    if tally.two_clusters:
        msg = StructuredNote("two-clusters", conditions=tally.two_clusters, n_conditions=n_units)
        notes.append(msg)
        warn(msg, DegenerateDataWarning)
    if tally.n_partial:
        msg = StructuredNote("partial-images", n=tally.n_partial)
        notes.append(msg)
        if not partial_by_design:
            warn(msg, TrialwiseWarning)
    for e, (n_cand, n_ref) in tally.sparse.items():
        tot_cand, tot_ref = tally.total[e]
        notes.append(StructuredNote("sparse-pairs", experiment=e, n_candidate=int(n_cand),
                                    total_candidate=int(tot_cand), n_reference=int(n_ref),
                                    total_reference=int(tot_ref), min_items=protocol.min_items,
                                    n_disjoint=tally.n_disjoint))
    gone = [e for e, (_, n_ref) in tally.sparse.items() if tally.total[e][1] and n_ref == tally.total[e][1]]
    if gone:
        notes.append(StructuredNote("reference-row-empty", experiments=gone, min_items=protocol.min_items))
    if protocol.from_trials is not None:  # said first: it is what every number below was scored by
        known = [e for e in exps if e in (MODEL_VS_HUMAN.experiments or ())]
        mixed = {"own": [e for e in exps if e not in known], "known": known} if known else {}
        notes.insert(0, StructuredNote("protocol-from-trials", stand_in=protocol.from_trials, n_experiments=len(exps),
                                       n_conditions=n_units, averaging=protocol.averaging(), **mixed))


def _item_values(trials, protocol: Protocol) -> tuple[str, Any, int]:
    """Which column fills a unit's ``right``, in which dtype, and on how many trials the per-item
    scores differ from ``correct``.

    Without a ``score`` column (:data:`trialwise.io.trials.SCORE_COLUMN`): ``correct`` as uint8.
    Only a ground-truth metric (accuracy: the mean score) averages scores: it takes the
    ``score`` column, as uint8 when every score is 0 or 1, else as float64. Every other metric
    needs 0/1 correctness and takes ``correct``; a ``score`` column that is not 0/1 or that
    disagrees with ``correct`` is then an error, not silently set aside."""
    if SCORE_COLUMN not in trials.columns:
        return "correct", np.uint8, 0
    scores = trials[SCORE_COLUMN].to_numpy(float)
    partial = (scores != 0.0) & (scores != 1.0)
    differ = int((partial | ((scores == 1.0) != trials["correct"].to_numpy(bool))).sum())
    if protocol.against_ground_truth:
        return SCORE_COLUMN, (np.float64 if partial.any() else np.uint8), differ
    if partial.any():
        raise InvalidValueError(f"metric {protocol.metric!r} needs 0/1 correctness, but column {SCORE_COLUMN!r} "
                                f"holds per-item scores that are not 0 or 1 (e.g. {float(scores[partial][0])!r}); "
                                f"only metric 'accuracy' averages scores (drop the column to use `correct`)")
    if differ:
        raise InvalidValueError(f"metric {protocol.metric!r} uses `correct`, but column {SCORE_COLUMN!r} (0/1 scores) "
                                f"disagrees with it on {differ} trial(s); drop one of the two or make them agree")
    return "correct", np.uint8, 0


# --------------------------------------------------------------------------- aggregation


def _steps(labels: dict[str, NDArray], levels: tuple[str, ...], keep: tuple[str, ...]):
    """Sparse averaging matrices, one per level, and the labels of the final groups."""
    key: dict[str, NDArray] = {k: labels[k] for k in ("row", "reference", "condition", "experiment") if k in labels}
    steps = []
    for level in levels:
        if level in keep:
            continue
        key.pop(level)
        if level == "condition" and "experiment" not in levels and "experiment" not in keep:
            key.pop("experiment")  # conditions of all experiments pooled (no experiment level)
        names = list(key)
        stacked = np.stack([key[k] for k in names], axis=1)
        uniq, inverse = np.unique(stacked, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        m = sparse.csr_matrix((np.ones(len(inverse)), (np.arange(len(inverse)), inverse)),
                              shape=(len(inverse), len(uniq)))
        steps.append(m)
        key = {k: uniq[:, i] for i, k in enumerate(names)}
    return steps, key


def aggregate(values: NDArray, design: Design, *, keep: tuple[str, ...] = (), entries: NDArray | None = None):
    """Average entry values (…, n_entries) through the protocol's levels.

    Undefined values (NaN) are left out of their mean; a group with none defined is
    NaN. ``keep``: levels not averaged over (``("experiment",)`` gives per-experiment
    scores). Returns the averaged values (…, n_groups) and the groups' labels (dict of
    arrays: ``row`` and the kept levels).
    """
    idx = np.arange(design.n_entries) if entries is None else entries
    labels = {"row": design.entry_row[idx], "reference": design.entry_reference[idx],
              "condition": design.entry_unit[idx], "experiment": design.entry_experiment[idx]}
    steps, key = _steps(labels, design.protocol.aggregation, keep)
    v = np.asarray(values)  # not cast whole: group_mean casts block by block (a float32 bootstrap stays float32)
    for m in steps:
        v = group_mean(v, m)
    return np.asarray(v, dtype=float), key


def aggregate_each(values: NDArray, design: Design, keeps: tuple[tuple[str, ...], ...], *,
                   from_reference: bool = False) -> list[tuple[NDArray, dict]]:
    """:func:`aggregate` of ``values`` for every ``keep`` in ``keeps``, in that order; the levels
    their averages have in common (e.g. over references and conditions, for the scores and the
    per-experiment scores) are computed once. The same numbers as separate calls.

    ``from_reference=True``: ``values`` are already the means over references, one column per
    group of :func:`reference_level` (as :func:`trialwise.leaderboards.bootstrap.bootstrap_entries`
    with ``by_reference=True`` gives them); the averaging goes on from the next level."""
    labels = _entry_labels(design)
    levels = design.protocol.aggregation
    if from_reference:
        level = reference_level(design)
        if level is None or any("reference" in keep for keep in keeps):
            raise InvalidValueError(f"`from_reference=True` needs a protocol that averages over the references first "
                                    f"and keeps that level in none of `keeps`; got aggregation {levels!r}, keeps "
                                    f"{keeps!r}")
        labels, levels = level[1], levels[1:]
    done: list[tuple[list, list[NDArray]]] = []  # steps of each keep and the values after each step
    results = []
    for keep in keeps:
        steps, key = _steps(labels, levels, keep)
        v = np.asarray(values)
        trail: list[NDArray] = []
        for j, m in enumerate(steps):
            shared = next((vals[j] for prev, vals in done if len(prev) > j and all(
                a.shape == c.shape and (a != c).nnz == 0 for a, c in zip(prev[:j + 1], steps[:j + 1]))), None)
            v = group_mean(v, m) if shared is None else shared
            trail.append(v)
        done.append((steps, trail))
        results.append((np.asarray(v, dtype=float), key))
    return results


def _entry_labels(design: Design) -> dict[str, NDArray]:
    """Every entry's labels at each level of the averaging."""
    return {"row": design.entry_row, "reference": design.entry_reference,
            "condition": design.entry_unit, "experiment": design.entry_experiment}


def reference_level(design: Design) -> tuple[Any, dict[str, NDArray]] | None:
    """The first level of the design's averaging when it is the mean over the references (the
    protocols' default): its membership (entries × groups, sparse 0/1) and the groups' labels
    (``row``, ``condition``, ``experiment``); None when the protocol averages another level first.

    Each group is a row's entries in one condition, i.e. in one unit, so the bootstrap can
    average them unit by unit while a unit's replicates are in the cache
    (:func:`trialwise.leaderboards.bootstrap.bootstrap_entries` with ``by_reference=True``), by
    :func:`members_mean`, the kernel :func:`group_mean` uses: the same bits.
    """
    if tuple(design.protocol.aggregation[:1]) != ("reference",):
        return None
    steps, key = _steps(_entry_labels(design), ("reference",), ())
    return steps[0], key


def members_mean(xt: NDArray, mt: Any, full: NDArray) -> NDArray:
    """The mean of every group's defined values, shape (groups, block): ``xt`` (members × block,
    float64; its NaN are zeroed in place), ``mt`` (groups × members, sparse 0/1, CSR) and ``full``
    (groups × 1) the number of members of each group. NaN where a group has no defined value.
    The one kernel of :func:`group_mean` and of the bootstrap's means over references (the
    same sums in the same order, so the same bits)."""
    undefined = np.isnan(xt)
    if not undefined.any():  # every value defined: each group's count is its number of members
        total, count = mt @ xt, full
    else:
        np.copyto(xt, 0.0, where=undefined)
        total, count = mt @ xt, mt @ (~undefined).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)


def group_mean(values: NDArray, membership: Any, *, workers: int | None = None) -> NDArray:
    """NaN-aware means of the last axis over groups: ``membership`` (n × groups, 0/1, dense
    or sparse) says which values belong to which group. NaN values are left out; a group
    with none defined is NaN.

    Computed in blocks of leading rows (bounded memory; the B × entries arrays of a
    bootstrap are never copied whole), on ``workers`` threads (default: all cores); the
    result does not depend on either.
    """
    v = np.asarray(values)  # cast to float64 block by block below: the same numbers, no whole copy
    lead = v.shape[:-1]
    v = v.reshape(int(np.prod(lead)), v.shape[-1])  # not -1: a design without entries has a last axis of 0
    if sparse.issparse(membership):
        mt = sparse.csr_matrix(membership.T, dtype=float)  # groups × n
    else:
        mt = np.asarray(membership, dtype=float).T
    out = np.empty((v.shape[0], mt.shape[0]))
    step = max(1, _GROUP_BLOCK // max(v.shape[1], 1))
    blocks = [slice(i, i + step) for i in range(0, v.shape[0], step)]

    full = mt @ np.ones((mt.shape[1], 1)) if sparse.issparse(mt) else None  # members of each group

    def run(sl: slice) -> None:
        if full is not None:  # values × replicates (a cast and transposed copy in one), the sparse product's layout
            xt = np.empty((v.shape[1], len(v[sl])))
            np.copyto(xt, v[sl].T)
            out[sl] = members_mean(xt, mt, full).T
            return
        block = np.asarray(v[sl], dtype=float)
        ok = ~np.isnan(block)
        total = np.asarray(mt @ np.where(ok, block, 0.0).T).T
        count = np.asarray(mt @ ok.T.astype(float)).T
        with np.errstate(invalid="ignore", divide="ignore"):
            out[sl] = np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)

    map_threads(run, blocks, workers)
    return out.reshape(lead + (out.shape[-1],))


def row_scores(values: NDArray, design: Design) -> NDArray:
    """Scores of every row of the design (…, n_rows) from entry values (…, n_entries); a row
    without entries (e.g. a reference group whose pairs share no item) is NaN."""
    v, key = aggregate(values, design)
    out = np.full(v.shape[:-1] + (len(design.rows),), np.nan)
    out[..., key["row"]] = v
    return out


def entry_weights(values: NDArray, design: Design) -> NDArray:
    """The weight of every entry in its row's score, shape (…, n_entries): a row's score is
    ``Σ_e w_e·values_e`` over its entries (:func:`row_scores`).

    A hierarchical mean is linear in its entries once it is known which are defined: each
    level divides by the number of defined members of the entry's group. Undefined (NaN)
    entries weigh 0.
    """
    v = np.asarray(values, dtype=float)
    labels = {"row": design.entry_row, "reference": design.entry_reference,
              "condition": design.entry_unit, "experiment": design.entry_experiment}
    steps, _ = _steps(labels, design.protocol.aggregation, ())
    defined = (~np.isnan(v)).astype(float)
    weight = defined.copy()
    group = np.arange(design.n_entries)
    for m in steps:
        m = sparse.csr_matrix(m)
        flat = defined.reshape(int(np.prod(defined.shape[:-1])), defined.shape[-1])  # not -1: 0 entries
        count = np.asarray(m.T @ flat.T).T.reshape(defined.shape[:-1] + (m.shape[1],))
        group = m.indices[group]  # one member per row of m: its group at this level
        with np.errstate(invalid="ignore", divide="ignore"):
            weight = weight * np.where(count > 0, 1.0 / np.where(count > 0, count, 1.0), 0.0)[..., group]
        defined = (count > 0).astype(float)
    return weight


# --------------------------------------------------------------------------- bootstrap


