"""Shape bias on texture–shape cue-conflict images (Geirhos et al. 2019), with uncertainty: :func:`shape_bias`.

A cue-conflict image has the shape of one category and the texture of another; its id
names both, ``<shape><k>-<texture><j>`` (``airplane1-bicycle2``: shape airplane, texture
bicycle; texture-filled-rotated ids carry a rotation suffix, ``airplane1-bicycle2-108``).
Over the images whose two categories differ, an observer's **shape bias** is

    shape bias = #(response = shape) / (#(response = shape) + #(response = texture)),

the share of shape decisions among the answers that named either cue (Geirhos et al. 2019). A group's
shape bias pools its members' answers (``Σ shape / Σ (shape + texture)``), as the
published figures do for "humans". Images are the sampling unit: every interval, and every
difference of two rows, comes from one bootstrap over images shared by all observers.

The result classes, with the difference of two rows, are in :mod:`trialwise.cue_conflict.results`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import DegenerateDataWarning, UndefinedReplicatesWarning, warn
from trialwise._stats.intervals import percentile_interval
from trialwise._stats.resampling import bootstrap_sums
from trialwise._stats.streams import child_rngs, child_seed, records_seed
from trialwise.cue_conflict.results import (CATEGORY_COLUMNS, FRAME_COLUMNS, OTHER, SHAPE, TEXTURE, UNSEEN,
                                            ShapeBiasResult)
from trialwise.ec.inference import UNDEFINED_WARN_SHARE
from trialwise.io.trials import check_items, read_trials
from trialwise.io.model_vs_human import image_id

__all__ = ["shape_bias", "parse_cue_conflict", "CI_METHODS", "DEFAULT_CI_METHOD", "CUE_CONFLICT_ID"]

#: Interval methods: ``jeffreys`` (Bayesian bootstrap over images plus Jeffreys
#: pseudo-counts; the default) and ``percentile`` (ordinary bootstrap over images).
ShapeBiasCIMethod = Literal["jeffreys", "percentile"]
CI_METHODS: tuple[ShapeBiasCIMethod, ...] = get_args(ShapeBiasCIMethod)
#: The default interval method; ``docs/shape_bias.md`` shows its coverage.
DEFAULT_CI_METHOD: ShapeBiasCIMethod = "jeffreys"
#: A cue-conflict image id: shape class and number, ``-``, texture class and number, and
#: optionally ``-<angle>`` (texture-filled-rotated).
CUE_CONFLICT_ID = re.compile(r"^(?P<shape>[^\d-]+)\d+-(?P<texture>[^\d-]+)\d+(?:-\d+)?$")


def parse_cue_conflict(images: Any) -> tuple[NDArray, NDArray]:
    """The shape and texture category named by cue-conflict image ids.

    Parameters
    ----------
    images : array_like of str
        Ids like ``"airplane1-bicycle2"`` or ``"airplane1-bicycle2-108"``.

    Returns
    -------
    shape, texture : ndarray of object
        The two categories of each id; ``None`` where the id is not of that form.

    Examples
    --------
    >>> shape, texture = parse_cue_conflict(["airplane1-bicycle2", "knife2-cat2-108", "oven10"])
    >>> shape.tolist(), texture.tolist()
    (['airplane', 'knife', None], ['bicycle', 'cat', None])
    """
    ids = [str(x) for x in np.asarray(images, dtype=object).ravel()]
    shape = np.empty(len(ids), dtype=object)
    texture = np.empty(len(ids), dtype=object)
    for i, name in enumerate(ids):
        m = CUE_CONFLICT_ID.match(name)
        if m is not None:
            shape[i], texture[i] = m.group("shape"), m.group("texture")
    return shape, texture


# --------------------------------------------------------------------------- results


# --------------------------------------------------------------------------- input


def _select_experiment(trials, experiment: str | None, what: str):
    found = sorted(trials["experiment"].unique())
    if experiment is None:
        if len(found) > 1:
            raise InvalidValueError(f"{what} hold {len(found)} experiments ({', '.join(found)}); pass `experiment=` with "
                             f"the cue-conflict one (e.g. experiment='cue-conflict')")
        return trials, found[0]
    if not isinstance(experiment, str):
        raise InvalidTypeError(f"`experiment` must be a string; got {v.show(experiment)}")
    if experiment not in found:
        raise InvalidValueError(f"`experiment` must be one of {found}; got {experiment!r}")
    return trials[trials["experiment"] == experiment], experiment


def _select_observers(trials, observers: Any) -> tuple[Any, tuple[str, ...]]:
    found = sorted(trials["subject"].unique())
    if observers is None:
        return trials, tuple(found)
    names = [observers] if isinstance(observers, str) else list(observers)
    if not names or not all(isinstance(o, str) for o in names):
        raise InvalidTypeError(f"`observers` must be a list of observer names; got {v.show(observers)}")
    unknown = [o for o in names if o not in set(found)]
    if unknown:
        shown = ", ".join(found[:15]) + (" ..." if len(found) > 15 else "")
        raise InvalidValueError(f"`observers` names {unknown} that are not in the trials; found {shown}")
    if len(set(names)) != len(names):
        raise InvalidValueError(f"`observers` lists an observer twice: {names}")
    return trials[trials["subject"].isin(names)], tuple(names)


def _make_groups(trials, groups: Any, observers: tuple[str, ...]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    notes: list[str] = []
    if groups is None:
        return {}, notes
    if isinstance(groups, str):
        if groups != "observer_type":
            raise InvalidValueError(f"`groups` must be None, 'observer_type' or a mapping of group name -> observers; "
                             f"got {groups!r}")
        types = trials.drop_duplicates("subject").set_index("subject")["observer_type"].to_dict()
        if not any(isinstance(t, str) and t for t in types.values()):
            raise InvalidValueError("groups='observer_type' but the trials have no observer_type column (or it is empty)")
        out: dict[str, tuple[str, ...]] = {}
        for kind in sorted({t for t in types.values() if isinstance(t, str) and t}):
            members = tuple(o for o in observers if types.get(o) == kind)
            if len(members) >= 2:
                out[kind] = members
            else:
                notes.append(f"observer_type {kind!r} has {len(members)} observer(s): no group formed")
    elif isinstance(groups, Mapping):
        out = {}
        for name, members in groups.items():
            if not isinstance(name, str) or not name:
                raise InvalidTypeError(f"`groups` keys must be non-empty group names; got {name!r}")
            if isinstance(members, str) or not isinstance(members, Sequence | set | frozenset):
                raise InvalidTypeError(f"`groups[{name!r}]` must be a list of observer names; got {v.show(members)}")
            members = tuple(members)
            unknown = [m for m in members if m not in observers]
            if not members or unknown:
                raise InvalidValueError(f"`groups[{name!r}]` must list observers of the analysis; "
                                 f"{'it is empty' if not members else f'unknown: {unknown}'}")
            if len(set(members)) != len(members):
                raise InvalidValueError(f"`groups[{name!r}]` lists an observer twice: {list(members)}")
            out[name] = members
    else:
        raise InvalidTypeError(f"`groups` must be None, 'observer_type' or a mapping of group name -> observers; "
                        f"got {v.show(groups)}")
    clash = sorted(set(out) & set(observers))
    if clash:
        raise InvalidValueError(f"`groups`: group name(s) {clash} are also observer names; rename the group(s)")
    return out, notes


def _file_name_ids(trials) -> tuple[Any, str | None]:
    """The trials with image ids read from file names (:func:`trialwise.io.image_id`) where the id is not a
    cue-conflict id but the file name holds one (``airplane1-bicycle2.png``, model-vs-human's
    ``0001_cl_s01_0_airplane_0_airplane1-bicycle2.png``), and a note saying so (None when none was)."""
    raw = trials["image"].astype(str)
    ok = raw.str.match(CUE_CONFLICT_ID.pattern).to_numpy(dtype=bool)
    if ok.all():
        return trials, None
    ids = image_id(raw)
    use = ~ok & ids.str.match(CUE_CONFLICT_ID.pattern).to_numpy(dtype=bool)
    if not use.any():
        return trials, None
    first = int(np.flatnonzero(use)[0])
    trials = trials.assign(image=np.where(use, ids.to_numpy(dtype=object), raw.to_numpy(dtype=object)))
    check_items(trials, "the trials, their image ids read from file names")
    return trials, (f"{int(use.sum())} image id(s) read from file names, as tw.io.image_id does (e.g. "
                    f"{raw.iloc[first]!r} → {ids.iloc[first]!r})")


def _case_hint(t, shape: NDArray, texture: NDArray, row_of_image: dict) -> tuple[list[str], str]:
    """Observers some of whose answers name an image's shape or texture category only in another letter case or
    with surrounding spaces (labels are compared as written), and an example."""
    import pandas as pd

    resp = t["response"].astype(str).to_numpy(dtype=object)
    ii = t["image"].map(row_of_image).to_numpy()
    r, sh, tx = (pd.Series(x, dtype=object).astype(str).str.strip().str.casefold().to_numpy(dtype=object)
                 for x in (resp, shape[ii], texture[ii]))
    near = ((r == sh) & (resp != shape[ii])) | ((r == tx) & (resp != texture[ii]))
    if not near.any():
        return [], ""
    i = int(np.flatnonzero(near)[0])
    meant = shape[ii][i] if r[i] == sh[i] else texture[ii][i]
    return sorted(set(t["subject"].to_numpy()[near])), f"{resp[i]!r} for {meant!r}"


def _cue_conflict_images(trials, image_column: str, truth_column: str):
    """Shape, texture and the id of every image; errors for ids that are not cue-conflict ids."""
    images = trials.drop_duplicates("image")[["image", "truth"]]
    shape, texture = parse_cue_conflict(images["image"].to_numpy())
    bad = np.array([s is None for s in shape])
    if bad.all():
        raise InvalidValueError(
            f"column {image_column!r} holds no cue-conflict image ids of the form '<shape><k>-<texture><j>' "
            f"(e.g. 'airplane1-bicycle2'); found e.g. {images['image'].iloc[0]!r}. Shape bias needs the "
            f"cue-conflict experiment (pass `experiment=`)")
    if bad.any():
        raise InvalidValueError(
            f"{int(bad.sum())} of {len(bad)} images in column {image_column!r} are not cue-conflict ids "
            f"'<shape><k>-<texture><j>', e.g. {images['image'].to_numpy()[bad][0]!r}")
    truth = images["truth"].to_numpy(dtype=object)
    has_truth = np.array([t not in ("", "nan", None) for t in truth])
    wrong = has_truth & (truth != shape)
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        raise InvalidValueError(f"image {images['image'].iloc[i]!r}: its id names shape {shape[i]!r} but column "
                         f"{truth_column!r} says {truth[i]!r} ({int(wrong.sum())} such image(s)); the truth of a "
                         f"cue-conflict image must be its shape category")
    return images["image"].to_numpy(dtype=object), shape, texture


# --------------------------------------------------------------------------- the estimator


def _ratio(s: NDArray, t: NDArray) -> NDArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(s + t > 0, s / np.where(s + t > 0, s + t, 1.0), np.nan)


def _interval(dist: NDArray, est: NDArray, s: NDArray, t: NDArray, level: float, method: str):
    lo, hi = (np.atleast_1d(x) for x in percentile_interval(dist, level))
    if method == "jeffreys":
        # Brown, Cai & DasGupta (2001): at an estimate of 0 or 1 the Jeffreys interval's bound
        # on that side is the estimate itself, so that the interval contains it.
        lo = np.where((s == 0) & (t > 0), 0.0, lo)
        hi = np.where((t == 0) & (s > 0), 1.0, hi)
    undefined = np.isnan(est)
    return np.where(undefined, np.nan, lo), np.where(undefined, np.nan, hi)


def _analyse(responses: NDArray, shape: NDArray, member: NDArray, n_res: int, level: float, method: str,
             gen: np.random.Generator):
    """The estimator on a coded images × observers matrix (``SHAPE``, ``TEXTURE``, ``OTHER``, ``UNSEEN``).

    ``shape`` holds each image's shape category (the bootstrap strata); ``member`` (observers ×
    rows) says which observers each row pools. Returns the overall summary of every row
    (``n_shape, n_texture, n_other, n_images, estimate, low, high, n_undefined``), the same per
    category as ``(category, *summary)`` and the overall replicates, shape (n_res, n_rows).
    """
    s_item, t_item = (responses == SHAPE).astype(np.int64), (responses == TEXTURE).astype(np.int64)
    o_item, seen = (responses == OTHER).astype(np.int64), (responses != UNSEEN).astype(np.int64)
    k, n_rows = member.shape
    kind = "bayesian" if method == "jeffreys" else "multinomial"
    # One pseudo-count stream per row (child i of one SeedSequence, whatever the number of rows), so a
    # row's interval does not change when group rows (which come after the observers) are added.
    pseudo = child_rngs(child_seed(gen, bits=64), n_rows) if method == "jeffreys" else None

    def summarise(idx: NDArray, dist: NDArray):
        n_s, n_t, n_o = (np.rint(x[idx].sum(axis=0) @ member).astype(np.int64) for x in (s_item, t_item, o_item))
        n_seen = ((seen[idx] @ member) > 0).sum(axis=0).astype(np.int64)
        est = _ratio(n_s, n_t)
        lo, hi = _interval(dist, est, n_s, n_t, level, method)
        return n_s, n_t, n_o, n_seen, est, lo, hi, np.isnan(dist).sum(axis=0).astype(np.int64)

    def replicate_ratios(sums_s: NDArray, sums_t: NDArray) -> NDArray:
        if pseudo is not None:
            # Jeffreys pseudo-counts Gamma(½, 1), drawn as Z²/2 (the same law, and faster).
            noise = np.stack([g.standard_normal(size=(2, len(sums_s))) for g in pseudo], axis=-1)
            sums_s = sums_s + 0.5 * noise[0] ** 2
            sums_t = sums_t + 0.5 * noise[1] ** 2
        return _ratio(sums_s, sums_t)

    total_s = np.zeros((n_res, n_rows))
    total_t = np.zeros((n_res, n_rows))
    per_category = []
    for cat in sorted(set(shape)):
        # One call of the engine per shape category: images are resampled within their category.
        idx = np.flatnonzero(shape == cat)
        sums = bootstrap_sums(np.concatenate([s_item[idx], t_item[idx]], axis=1), n_res, rng=gen, kind=kind)
        cs, ct = sums[:, :k] @ member, sums[:, k:] @ member
        total_s += cs
        total_t += ct
        per_category.append((cat, *summarise(idx, replicate_ratios(cs, ct))))
    dist = replicate_ratios(total_s, total_t)
    return summarise(np.arange(len(responses)), dist), per_category, dist


def _response_matrix(t, obs: Sequence[str], image: str, truth_column: str, notes: list):
    """The cue-conflict images (shape ≠ texture, ordered by shape then id) and every observer's answer
    on each, coded SHAPE, TEXTURE, OTHER or UNSEEN: ``(trials kept, ids, shape, texture, responses,
    number of images left out)``."""
    ids, shape, texture = _cue_conflict_images(t, image, truth_column)
    conflict = shape != texture
    n_excluded = int((~conflict).sum())
    if not conflict.any():
        raise InvalidValueError(f"every image in column {image!r} has the same shape and texture category "
                         f"(e.g. {ids[0]!r}): there is no cue conflict to measure")
    if n_excluded:
        notes.append(f"{n_excluded} image(s) whose shape and texture category coincide were left out "
                     f"(no cue conflict)")
    order = np.lexsort((ids[conflict].astype(str), shape[conflict].astype(str)))
    ids, shape, texture = ids[conflict][order], shape[conflict][order], texture[conflict][order]
    row_of_image = {name: i for i, name in enumerate(ids)}
    col_of_obs = {o: k for k, o in enumerate(obs)}
    t = t[t["image"].isin(row_of_image)]
    ii = t["image"].map(row_of_image).to_numpy()
    kk = t["subject"].map(col_of_obs).to_numpy()
    resp = t["response"].to_numpy(dtype=object)
    code = np.where(resp == shape[ii], SHAPE, np.where(resp == texture[ii], TEXTURE, OTHER)).astype(np.int8)
    responses = np.full((len(ids), len(obs)), UNSEEN, np.int8)
    responses[ii, kk] = code
    return t, ids, shape, texture, responses, n_excluded


@records_seed
def shape_bias(
    trials: Any,
    *,
    experiment: str | None = None,
    observers: Sequence[str] | None = None,
    groups: str | Mapping[str, Sequence[str]] | None = None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    ci_method: ShapeBiasCIMethod = DEFAULT_CI_METHOD,
    rng: Any = None,
    subject: str = "subject",
    image: str = "image",
    truth: str | None = None,
    response: str = "response",
) -> ShapeBiasResult:
    """Shape bias of every observer (and group) on cue-conflict images, with intervals.

    Parameters
    ----------
    trials : pandas.DataFrame, str or path
        One row per trial, as :func:`trialwise.read_trials` reads it (e.g.
        ``tw.datasets.texture_vs_shape("cue-conflict")``). Image ids must be cue-conflict
        ids ``<shape><k>-<texture><j>`` (optionally ``-<angle>``) or file names holding one
        (``airplane1-bicycle2.png``, model-vs-human's raw image names), read as
        :func:`trialwise.io.image_id` reads them (``notes`` says so); the truth column must
        be the shape category.
    experiment : str, optional
        The experiment to analyse; needed when the trials hold several.
    observers : list of str, optional
        Only these observers, in this order (default: all, sorted).
    groups : None, "observer_type" or mapping
        Pooled rows: ``"observer_type"`` forms one group per observer type with at least
        two observers (e.g. all humans); a mapping gives group name → members.
    n_resamples : int, default 10000
        Bootstrap replicates B.
    confidence_level : float, default 0.95
    ci_method : {"jeffreys", "percentile"}
        ``jeffreys`` (default): Bayesian bootstrap over images (Exp(1) weights) plus a
        Jeffreys pseudo-count, ``Gamma(½)``, on each row's shape and texture totals; for a
        single observer the replicates are then exactly draws of ``Beta(s + ½, t + ½)``,
        the Jeffreys posterior. ``percentile``: ordinary bootstrap over images.
    rng : None, int or numpy.random.Generator
    subject, image, truth, response : str
        Column names (``truth`` default: ``truth``, else ``category``).

    Returns
    -------
    ShapeBiasResult
        ``to_frame()`` has one row per observer and group: ``observer``, ``shape_bias``,
        ``ci_low``, ``ci_high``, ``n_shape``, ``n_texture`` and more; ``categories`` the
        same per shape category; ``difference(a, b)`` compares two rows.

    Raises
    ------
    ValueError
        The image ids are not cue-conflict ids (the message names the column and shows
        an example), an id's shape differs from its truth, the trials hold several
        experiments and none is chosen, or an observer or group name is unknown.

    Warns
    -----
    DegenerateDataWarning
        Some row never answered with the shape or the texture category: its shape bias
        is NaN (the rows are named in ``notes``). Also when answers name a cue only in
        another letter case or with surrounding spaces (``Bird`` for ``bird``): labels are
        compared as written, and the warning names the observers and an example.
    UndefinedReplicatesWarning
        ``percentile`` only: more than 1 % of a row's replicates had no shape or texture
        answer and were left out (``n_undefined``).

    Notes
    -----
    Images whose shape and texture category coincide carry no conflict and do not count
    (``n_excluded_images``); answers that name neither cue (other classes, or a human
    ``na``) are ``n_other``. A group pools its members: ``Σ shape / Σ (shape + texture)``
    (for the 1280-image set, with 75 conflict images per shape category, this equals the
    ratio of the category-averaged fractions that Geirhos et al.'s R code plots).

    **Uncertainty.** Images are resampled, not trials: one weight per image, shared by
    every observer, so that group and observer intervals and the differences of
    :meth:`ShapeBiasResult.difference` come from the same replicates. Images are resampled
    within their shape category (the stimulus set has a fixed number per category; the
    engine, :func:`trialwise._stats.resampling.bootstrap_sums`, is called once per category),
    which also gives the per-category intervals of ``categories``. With ``jeffreys`` the
    interval is the equal-tailed interval of the draws, with the bound at an estimate of
    exactly 0 or 1 set to the estimate (Brown, Cai & DasGupta 2001); its coverage is in
    ``docs/shape_bias.md``.

    References
    ----------
    Geirhos, R., Rubisch, P., Michaelis, C., Bethge, M., Wichmann, F. A. & Brendel, W.
    (2019). ImageNet-trained CNNs are biased towards texture; increasing shape bias
    improves accuracy and robustness. ICLR.

    Examples
    --------
    >>> import trialwise as tw
    >>> trials = tw.datasets.texture_vs_shape("cue-conflict")
    >>> res = tw.shape_bias(trials, observers=["resnet50", "subject-01"], n_resamples=2000, rng=0)
    >>> res.to_frame()[["observer", "shape_bias", "n_shape", "n_texture"]].round(3).values.tolist()
    [['resnet50', 0.221, 162, 572], ['subject-01', 0.962, 829, 33]]
    """

    level = v.check_confidence_level(confidence_level)
    method = v.check_choice(ci_method, "ci_method", CI_METHODS)
    n_res = v.check_positive_int(n_resamples, "n_resamples")
    gen = v.check_rng(rng)
    if experiment is not None and hasattr(trials, "columns") and "experiment" in trials.columns:
        chosen = trials["experiment"].astype(str) == experiment
        if chosen.any():  # else the full table, so that the error below lists the experiments found
            trials = trials[chosen]
    t = read_trials(trials, subject=subject, image=image, truth=truth, response=response)
    if truth is not None:
        truth_column = truth
    elif hasattr(trials, "columns"):
        truth_column = "truth" if "truth" in trials.columns else "category"
    else:
        truth_column = "truth (or category)"
    t, exp = _select_experiment(t, experiment, "the trials")
    t, obs = _select_observers(t, observers)
    group_map, notes = _make_groups(t, groups, obs)
    t, renamed = _file_name_ids(t)
    if renamed:
        notes.append(renamed)
    t, ids, shape, texture, responses, n_excluded = _response_matrix(t, obs, image, truth_column, notes)
    row_of_image = {name: i for i, name in enumerate(ids)}
    col_of_obs = {o: k for k, o in enumerate(obs)}

    # Rows: the observers, then the groups, as columns of a membership matrix.
    names = list(obs) + list(group_map)
    kinds = ["observer"] * len(obs) + ["group"] * len(group_map)
    member = np.zeros((len(obs), len(names)))
    member[np.arange(len(obs)), np.arange(len(obs))] = 1
    for j, members in enumerate(group_map.values()):
        member[[col_of_obs[m] for m in members], len(obs) + j] = 1
    overall, per_category, dist = _analyse(responses, shape, member, n_res, level, method, gen)
    n_s, n_t, n_o, n_seen, est, lo, hi, n_undef = overall

    import pandas as pd

    table = pd.DataFrame({
        "observer": names, "kind": kinds, "shape_bias": est, "ci_low": lo, "ci_high": hi,
        "confidence_level": level, "n_shape": n_s, "n_texture": n_t, "n_other": n_o, "n_images": n_seen,
        "n_undefined": n_undef, "ci_method": method,
    }, columns=list(FRAME_COLUMNS))
    # each summary is n_shape, n_texture, n_other, n_images, estimate, low, high, n_undefined.
    cat_rows = [(name, kinds[j], cat, v_[4][j], v_[5][j], v_[6][j], v_[0][j], v_[1][j], v_[2][j], v_[3][j], v_[7][j])
                for j, name in enumerate(names) for cat, *v_ in per_category]
    categories = pd.DataFrame(cat_rows, columns=list(CATEGORY_COLUMNS))
    categories[["n_shape", "n_texture", "n_other", "n_images", "n_undefined"]] = \
        categories[["n_shape", "n_texture", "n_other", "n_images", "n_undefined"]].astype(np.int64)

    undefined = [n for n, e in zip(names, est) if np.isnan(e)]
    near, example = _case_hint(t, shape, texture, row_of_image)
    who = "their answers" if near and undefined and set(near) >= set(undefined) - set(group_map) else \
        f"answers of {', '.join(near[:5])}{f' and {len(near) - 5} more' if len(near) > 5 else ''}"
    case = (f"{who} name the shape or texture category only in another letter case or with surrounding spaces "
            f"(e.g. {example}); labels are compared as written, so such answers count as naming neither cue: write "
            f"them as the image ids do") if near else ""
    if undefined:
        msg = (f"shape bias undefined (NaN) for {len(undefined)} row(s) that never answered with the shape or the "
               f"texture category: {', '.join(undefined)}" + (f"; {case}" if case else ""))
        notes.append(msg)
        warn(msg, DegenerateDataWarning)
    elif near:
        notes.append(case)
        warn(case, DegenerateDataWarning)
    flagged = [n for n, e, u in zip(names, est, n_undef) if not np.isnan(e) and u / n_res > UNDEFINED_WARN_SHARE]
    if flagged:
        msg = (f"more than {100 * UNDEFINED_WARN_SHARE:g}% of the bootstrap replicates of {', '.join(flagged)} had "
               f"no shape or texture answer and were left out of the interval; how many is in `n_undefined`")
        notes.append(msg)
        warn(msg, UndefinedReplicatesWarning)
    return ShapeBiasResult(
        table=table, categories=categories, groups=group_map, experiment=exp if exp != "all" else "",
        n_images=len(ids), n_excluded_images=n_excluded, confidence_level=level, ci_method=method,
        n_resamples=n_res, notes=tuple(notes), bootstrap_distribution=dist, responses=responses, observers=obs,
    )
