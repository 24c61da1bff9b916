"""Confidence intervals for published Brain-Score scores, from synthetic trials.

The method of Klein et al. 2025, *Quantifying uncertainty in error consistency*, NeurIPS,
§4.2 and App. I.

Brain-Score does not store the models' trials. :func:`synthetic_trials` draws, with the
copy model, model trials that have a published error consistency with each human's real
trials; :func:`published_intervals` runs a leaderboard on them, which gives CIs and rank
intervals for the published scores.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import NDArray

from trialwise._core import validation as v
from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import TrialwiseWarning, warn
from trialwise.leaderboards.trials import as_trials
from trialwise.brainscore.ceiling import ceilings, unceil_score
from trialwise.leaderboards.hierarchy import build_design, reference_mask
from trialwise.leaderboards.board import DEFAULT_CI_METHOD
from trialwise.leaderboards.scoring import leaderboard_from_design
from trialwise.leaderboards.notes import StructuredNote
from trialwise.leaderboards.protocol import Protocol, get_protocol
from trialwise._stats.bounds import cell_probabilities, feasible_accuracy
from trialwise._stats.streams import child_rngs
from trialwise.io.trials import TRIAL_COLUMNS

__all__ = ["MODEL_ACCURACY", "published_intervals", "synthetic_trials"]

#: How a synthetic model's accuracy is chosen inside the feasible range (Klein et al. 2025, App. I).
ModelAccuracy = Literal["middle", "lower"]
MODEL_ACCURACY: tuple[ModelAccuracy, ...] = get_args(ModelAccuracy)


def _kappa_table(kappa: Any):
    import pandas as pd

    if isinstance(kappa, pd.DataFrame):
        frame = kappa
    elif isinstance(kappa, dict):
        frame = pd.DataFrame([{"model": m, "experiment": e, "kappa": k}
                              for m, per in kappa.items() for e, k in dict(per).items()])
    else:
        raise InvalidTypeError(f"`kappa` must be a DataFrame (columns model, experiment, kappa[, condition]) or a dict "
                        f"{{model: {{experiment: kappa}}}}; got {type(kappa).__name__}")
    need = ["model", "experiment", "kappa"]
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise InvalidValueError(f"`kappa` lacks column(s) {missing}; columns found: {list(frame.columns)}")
    if len(frame) == 0:
        raise InvalidValueError("`kappa` is empty")
    out = frame[need + (["condition"] if "condition" in frame.columns else [])].copy()
    for c in ("model", "experiment") + (("condition",) if "condition" in out.columns else ()):
        out[c] = out[c].astype(str)
    k = pd.to_numeric(out["kappa"], errors="coerce").to_numpy(float)
    if np.isnan(k).any() or (np.abs(k) > 1).any():
        bad = out["kappa"].iloc[int(np.flatnonzero(np.isnan(k) | (np.abs(k) > 1))[0])]
        bad = bad.item() if isinstance(bad, np.generic) else bad  # 'nan', not 'np.float64(nan)'
        raise InvalidValueError(f"`kappa` values must be numbers in [-1, 1]; got {v.show(bad)}")
    out["kappa"] = k
    keys = ["model", "experiment"] + (["condition"] if "condition" in out.columns else [])
    if out.duplicated(keys).any():
        raise InvalidValueError(f"`kappa` has more than one value for some {'/'.join(keys)}")
    return out


def _model_accuracy(kappa: float, acc: NDArray, how: str) -> tuple[NDArray, NDArray, bool]:
    """Per human: the κ used (clipped where unattainable) and the model's accuracy; fallback flag.

    The model's accuracy is one value for the condition when one exists that attains κ
    with every (non-perfect) human: the middle (or lower end) of the intersection of the
    humans' feasible ranges. Otherwise it is chosen per human.
    """
    inner = (acc > 0) & (acc < 1)
    k = np.full(acc.shape, float(kappa))
    a_m = np.full(acc.shape, 0.5)
    if not inner.any():
        return k, a_m, False
    a = acc[inner]
    lo, hi = feasible_accuracy(a, kappa)
    if np.isnan(lo).any():  # κ < 0 below what this human allows at any model accuracy: use the least κ possible
        k_min = -2 * a * (1 - a) / (a**2 + (1 - a) ** 2)
        k_in = np.where(np.isnan(lo), k_min, kappa)
        lo, hi = feasible_accuracy(a, k_in)
        k[inner] = k_in
    lo_c, hi_c = float(np.max(lo)), float(np.min(hi))
    fallback = lo_c > hi_c
    if fallback:
        per = lo if how == "lower" else (lo + hi) / 2
        a_m[inner] = per
        a_m[~inner] = float(np.mean(per))
    else:
        a_m[:] = lo_c if how == "lower" else (lo_c + hi_c) / 2
    return k, a_m, fallback


def synthetic_trials(
    kappa: Any,
    humans: Any,
    *,
    protocol: str | Protocol = "model-vs-human",
    model_accuracy: ModelAccuracy = "middle",
    reference: Any = None,
    rng: Any = None,
):
    """Trials of models that have a given error consistency with each human (Klein et al. 2025, App. I).

    For every model, every condition of the protocol and every human who saw it, the
    model gets its own independent sequence of trials, drawn against that human's real
    trials with the copy model: given the human's correctness on a trial, the model is
    correct with probability ``P11/a_h`` (human right) or ``P01/(1 − a_h)`` (human
    wrong), the cells of :func:`trialwise.ec.cell_probabilities` for ``(κ, a_h, a_m)``.
    So κ̂ of each pair scatters around κ exactly as a real model's would, with the
    human's real accuracy ``a_h``.

    Parameters
    ----------
    kappa : DataFrame or dict
        Columns ``model``, ``experiment``, ``kappa`` and optionally ``condition`` (else
        the value holds for every condition of the experiment, as published Brain-Score
        scores do), or ``{model: {experiment: kappa}}``. Un-ceil published scores first
        (:func:`unceil_score`).
    humans : DataFrame or path
        Real trials (:func:`trialwise.read_trials` columns); the reference observers are
        those of ``protocol.reference`` (or ``reference``), the rest are ignored.
    protocol : Protocol or str
        Which experiments and conditions to generate.
    model_accuracy : {"middle", "lower"}
        The model's accuracy in a condition, unknown for published scores, chosen inside
        the range where κ is attainable with the humans (:func:`trialwise.ec.feasible_accuracy`;
        the intersection over the condition's humans): its middle (App. I's default) or
        its lower end, which gives the narrowest intervals (App. I, "optimistic").
        Where no single accuracy suits every human it is chosen per human (warned).
        A κ < 0 that a human's accuracy cannot attain is replaced by the least
        attainable κ (warned).
    reference : str or sequence of str, optional
        The names of the reference observers (default: those whose ``observer_type`` is
        the protocol's reference, the humans).
    rng : int or numpy.random.Generator, optional
        Seed or generator of the synthetic trials.

    Returns
    -------
    pandas.DataFrame
        Trials (:data:`trialwise.io.trials.TRIAL_COLUMNS`) of the humans and the synthetic
        models. Each human's images are relabelled ``image#human`` so that every model
        sequence is paired with exactly one human: pairs of humans then share no image,
        and the human–human row of a leaderboard on these trials is empty (the ceiling
        is :func:`ceilings` of the real trials).

    Warns
    -----
    TrialwiseWarning
        When the model's accuracy had to be chosen per human, or a negative κ was raised
        to the least attainable one.

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Geirhos, Meding & Wichmann (2020). Beyond accuracy: quantifying trial-by-trial
    behaviour of CNNs and humans by measuring error consistency. NeurIPS.

    Examples
    --------
    >>> import trialwise as tw
    >>> humans = tw.datasets.model_vs_human("cue-conflict")
    >>> syn = tw.brainscore.synthetic_trials({"net": {"cue-conflict": 0.2}}, humans,
    ...                                      protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]), rng=0)
    >>> sorted(syn.observer_type.unique()), int((syn.subject == "net").sum())
    (['human', 'model'], 12800)
    """
    import pandas as pd

    proto = get_protocol(protocol)
    how = v.check_choice(model_accuracy, "model_accuracy", MODEL_ACCURACY)
    table = _kappa_table(kappa)
    gen = v.check_rng(rng)
    t = as_trials(humans)
    h = t[reference_mask(t, proto, reference)]
    design = build_design(h, proto, reference, require_candidates=False)
    per_condition = "condition" in table.columns
    exps = set(design.experiments)
    unknown = sorted(set(table["experiment"]) - exps)
    if unknown:
        raise InvalidValueError(f"`kappa` names experiment(s) {unknown} that the protocol's human trials do not have; "
                         f"experiments: {sorted(exps)}")
    lookup = table.set_index(["model", "experiment"] + (["condition"] if per_condition else []))["kappa"]
    models = sorted(table["model"].unique())
    clash = sorted(set(models) & set(h["subject"]))
    if clash:
        raise InvalidValueError(f"`kappa` names model(s) {clash} that are also human observers")
    parts = []
    n_fallback = n_clipped = 0
    for unit in design.units:
        base = h[(h["experiment"] == unit.experiment) & (h["condition"] == unit.condition)][list(TRIAL_COLUMNS)]
        base = base.assign(image=base["image"] + "#" + base["subject"])
        parts.append(base)
        subj_codes, subjects = pd.factorize(base["subject"])
        acc = base.groupby(subj_codes)["correct"].mean().to_numpy(float)
        human_right = base["correct"].to_numpy(bool)
        for m in models:
            key = (m, unit.experiment, unit.condition) if per_condition else (m, unit.experiment)
            if key not in lookup.index:
                raise InvalidValueError(f"`kappa` has no value for model {m!r} in experiment {unit.experiment!r}"
                                 + (f", condition {unit.condition!r}" if per_condition else ""))
            k_h, a_m, fallback = _model_accuracy(float(lookup[key]), acc, how)
            n_fallback += fallback
            n_clipped += int(np.sum(k_h != float(lookup[key])))
            a_h = np.clip(acc, 1e-12, 1 - 1e-12)
            cells = cell_probabilities(np.where((acc > 0) & (acc < 1), k_h, 0.0), a_h, a_m)
            p_right = np.where(human_right, cells[subj_codes, 0, 0] / a_h[subj_codes],
                               cells[subj_codes, 1, 0] / (1 - a_h[subj_codes]))
            model = base.assign(subject=m, observer_type="model", response="")
            model["correct"] = gen.random(len(model)) < np.clip(p_right, 0.0, 1.0)
            parts.append(model)
    if n_fallback:
        warn(f"in {n_fallback} model×condition case(s) no single model accuracy attains κ with every human; "
             f"the accuracy was chosen per human", TrialwiseWarning)
    if n_clipped:
        warn(f"{n_clipped} model×human pair(s) have a negative κ that the human's accuracy cannot attain; the "
             f"least attainable κ was used", TrialwiseWarning)
    return pd.concat(parts, ignore_index=True)


def published_intervals(
    scores: Any,
    humans: Any,
    *,
    ceiled: bool = True,
    ceiling: Any = None,
    protocol: str | Protocol = "model-vs-human",
    model_accuracy: ModelAccuracy = "middle",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    rng: Any = None,
    workers: int | None = None,
):
    """CIs and rank intervals for published Brain-Score error consistencies (Klein et al. 2025, §4.2, App. I).

    Parameters
    ----------
    scores : DataFrame or dict
        Published values: columns ``model``, ``experiment`` and ``score`` (or ``kappa``
        when ``ceiled=False``), optionally ``condition``; or ``{model: {experiment: value}}``.
    humans : DataFrame or path
        The human trials of the benchmark (e.g. :func:`trialwise.datasets.model_vs_human`).
    ceiled : bool
        The values are ceiled scores (default; un-ceiled with :func:`unceil_score`) or raw κ.
    ceiling : mapping or Series, optional
        Ceiling per experiment (default: :func:`ceilings` of ``humans``).
    protocol, model_accuracy
        As in :func:`synthetic_trials`.
    n_resamples, confidence_level, rng, workers
        As in :func:`trialwise.leaderboard`.

    Returns
    -------
    Leaderboard
        On the synthetic trials: raw κ scores with CIs, rank intervals, p_best,
        Kendall's τ and :meth:`~trialwise.leaderboards.Leaderboard.by_experiment`. The human–human row
        is empty (see :func:`synthetic_trials`).

    References
    ----------
    Klein, Meyen, Brendel, Wichmann & Meding (2025). Quantifying uncertainty in error
    consistency: towards reliable behavioral comparison of classifiers. NeurIPS.

    Schrimpf, M., Kubilius, J., Hong, H., Majaj, N. J., Rajalingham, R., Issa, E. B., Kar,
    K., Bashivan, P., Prescott-Roy, J., Geiger, F., Schmidt, K., Yamins, D. L. K. &
    DiCarlo, J. J. (2018). Brain-Score: which artificial neural network for object
    recognition is most brain-like? *bioRxiv* 407007.

    Examples
    --------
    >>> import trialwise as tw
    >>> humans = tw.datasets.model_vs_human("cue-conflict")
    >>> lb = tw.brainscore.published_intervals({"a": {"cue-conflict": 0.6}, "b": {"cue-conflict": 0.3}}, humans,
    ...                                        protocol=tw.leaderboards.MODEL_VS_HUMAN.replace(experiments=["cue-conflict"]),
    ...                                        n_resamples=500, rng=0)
    >>> list(lb.table.observer[1:])
    ['a', 'b']
    """
    import pandas as pd

    proto = get_protocol(protocol)
    workers = v.check_workers(workers)
    n_resamples = v.check_positive_int(n_resamples, "n_resamples")
    confidence_level = v.check_confidence_level(confidence_level)
    column = "score" if ceiled else "kappa"
    if isinstance(scores, dict):
        scores = pd.DataFrame([{"model": m, "experiment": e, column: x}
                               for m, per in scores.items() for e, x in dict(per).items()])
    if not isinstance(scores, pd.DataFrame):
        raise InvalidTypeError(f"`scores` must be a DataFrame or a dict {{model: {{experiment: value}}}}; "
                        f"got {type(scores).__name__}")
    if column not in scores.columns:
        raise InvalidValueError(f"`scores` lacks column {column!r} (ceiled={ceiled}); columns found: {list(scores.columns)}")
    table = scores.copy()
    if ceiled:
        if ceiling is None:
            c = ceilings(humans, proto)
        else:
            c = ceiling if isinstance(ceiling, pd.Series) else pd.Series(dict(ceiling))
        missing = sorted(set(table["experiment"].astype(str)) - set(c.index))
        if missing:
            raise InvalidValueError(f"no ceiling for experiment(s) {missing}")
        s = pd.to_numeric(table["score"], errors="coerce").to_numpy(float)
        text = np.isnan(s) & table["score"].notna().to_numpy()
        if text.any():
            row = table.iloc[int(np.flatnonzero(text)[0])]
            raise InvalidTypeError(f"`scores`: the score of model {row['model']!r} in experiment {row['experiment']!r} is "
                            f"not a number: {v.show(row['score'])}")
        table["kappa"] = unceil_score(s, c.loc[table["experiment"].astype(str)].to_numpy(float))
    boot_gen, syn_gen = child_rngs(rng, 2)
    syn = synthetic_trials(table, humans, protocol=proto, model_accuracy=model_accuracy, rng=syn_gen)
    # The synthetic trials hold only the protocol's conditions: the leaderboard keeps them all. Each
    # human sees only its own relabelled images, by construction: no warning about missing images.
    design = build_design(as_trials(syn), proto.replace(exclude={}, conditions=None), partial_by_design=True)
    notes = [n for n in design.notes if not _by_construction(n)]
    notes.append(StructuredNote("synthetic-trials", model_accuracy=model_accuracy))
    return leaderboard_from_design(design, n_resamples=n_resamples, confidence_level=confidence_level,
                                   ci_method=DEFAULT_CI_METHOD, rng=boot_gen, workers=workers, notes=notes)


def _by_construction(note: Any) -> bool:
    """A note of the design that synthetic trials cause by construction: observers lack images (each
    human sees only its own relabelled ones), and pairs of humans share none, so the human–human row
    is empty (said once, in the synthetic-trials note)."""
    kind = getattr(note, "kind", "")
    if kind == "sparse-pairs":
        return note.values["n_candidate"] == 0
    return kind in ("partial-images", "reference-row-empty")
