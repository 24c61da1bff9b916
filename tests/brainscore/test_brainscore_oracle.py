"""trialwise's Brain-Score metric classes against Brain-Score's own classes (brainscore-vision 2.4.2).

Oracle: Brain-Score's code itself — ``brainscore_vision.metrics`` ``i1i2`` (``I2n``, ``I1n``),
``error_consistency``, ``value_delta`` and ``ost`` (``OSTCorrelation.correlate``) — called on
Brain-Score assemblies (``brainscore_core``'s ``BehavioralAssembly``, its ``presentation``
coordinates stacked into a MultiIndex) built from the bundled data (model-vs-human's contrast
experiment, the synthetic 2AFC and OST samples) and from generated designs (missing cells,
chance models, ties). The values (and ceilings) must agree to 1e-12.

brainscore-vision pins numpy<2 and xarray<2022.6, so it is absent from the main environment:
there these tests skip. The Brain-Score step of ``.ci/run`` installs it (``--no-deps``, with the
few packages its metric modules import) and sets ``TRIALWISE_REQUIRE_BRAINSCORE=1``, which turns
the skip into a failure, so the oracle cannot silently not run.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy as np
import pandas as pd
import pytest

import trialwise as tw

pytest.importorskip("xarray")


def _brainscore():
    """Brain-Score's metric modules and assembly class, or skip (fail when TRIALWISE_REQUIRE_BRAINSCORE=1)."""
    names = ("brainscore_vision.metrics.i1i2.metric", "brainscore_vision.metrics.error_consistency.metric",
             "brainscore_vision.metrics.value_delta.metric", "brainscore_vision.metrics.ost.metric",
             "brainscore_core.supported_data_standards.brainio.assemblies")
    try:
        with warnings.catch_warnings():  # its Score subclass warns about __slots__ at import (FutureWarning)
            warnings.simplefilter("ignore")
            return [importlib.import_module(n) for n in names]
    except ImportError as err:
        if os.environ.get("TRIALWISE_REQUIRE_BRAINSCORE") == "1":
            pytest.fail(f"TRIALWISE_REQUIRE_BRAINSCORE=1 but Brain-Score cannot be imported: {err!r}")
        pytest.skip(f"brainscore-vision is not installed ({err!r}); .ci/run installs it")


@pytest.fixture(scope="module")
def bs():
    i1i2, ec, vd, ost, assemblies = _brainscore()
    return {"I2n": i1i2.I2n, "I1n": i1i2.I1n, "ErrorConsistency": ec.ErrorConsistency,
            "ValueDelta": vd.ValueDelta, "OSTCorrelation": ost.OSTCorrelation,
            "BehavioralAssembly": assemblies.BehavioralAssembly}


def _quiet(call, *args, **kwargs):
    """Brain-Score's code, its xarray/pandas deprecation warnings silenced (filterwarnings = error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


# --------------------------------------------------------------------------- I2n / I1n


def _i2n_assemblies(bs, probs, trials):
    """The two assemblies Rajalingham2018 passes: the model's (presentation × choice) probabilities, the humans' trials."""
    assembly = bs["BehavioralAssembly"]
    images = np.asarray(probs.index)
    model = assembly(probs.to_numpy(dtype=float), dims=["presentation", "choice"],
                     coords={"stimulus_id": ("presentation", images),
                             "image_label": ("presentation", np.asarray(probs.index.map(
                                 dict(zip(trials["image"], trials["truth"])))), ),
                             "choice": ("choice", np.asarray(probs.columns))})
    humans = assembly(trials["response"].to_numpy(), dims=["presentation"],
                      coords={"stimulus_id": ("presentation", trials["image"].to_numpy()),
                              "truth": ("presentation", trials["truth"].to_numpy()),
                              "sample_obj": ("presentation", trials["truth"].to_numpy()),
                              "dist_obj": ("presentation", trials["distractor"].to_numpy()),
                              "worker_id": ("presentation", trials["subject"].to_numpy())})
    return model, humans


def _i2n_designs():
    models, trials = tw.datasets.synthetic_2afc_sample()
    yield "sample model-0.5", models["model-0.5"], trials
    yield "sample model-0.8", models["model-0.8"], trials
    probs, gen = tw.brainscore.synthetic_2afc(n_objects=5, images_per_object=6, trials_per_image=40, rng=7)
    yield "generated 5x6", probs, gen
    # missing cells: a fifth of the (image, distractor) cells without any trial (every image keeps trials in
    # both split halves: Brain-Score's alignment asserts that each half holds every image)
    cells = gen[["image", "distractor"]].drop_duplicates()
    dropped = cells[np.random.default_rng(3).random(len(cells)) < 0.2]
    keep = ~pd.MultiIndex.from_frame(gen[["image", "distractor"]]).isin(pd.MultiIndex.from_frame(dropped))
    yield "generated, missing cells", probs, gen[keep].reset_index(drop=True)
    # a chance model: every class equally likely (ties everywhere)
    yield "chance model", pd.DataFrame(1 / probs.shape[1], index=probs.index, columns=probs.columns), gen


@pytest.mark.parametrize("design", range(5), ids=[d[0] for d in _i2n_designs()])
@pytest.mark.parametrize("name", ["I2n", "I1n"])
def test_i2n_i1n_equal_brainscores_own(bs, name, design):
    _, probs, trials = list(_i2n_designs())[design]
    model, humans = _i2n_assemblies(bs, probs, trials)
    theirs = bs[name]()
    ours = getattr(tw.brainscore, name)(brainscore_compatible=True, n_resamples=20, rng=0)
    want = _quiet(theirs, model.copy(), humans)
    got = ours(model, humans)
    if np.isnan(float(want)):
        assert np.isnan(float(got))
    else:
        assert float(got) == pytest.approx(float(want), abs=1e-12)
    want_c = _quiet(theirs.ceiling, humans, skipna=True)  # the call of its public Rajalingham2018 benchmark
    got_c = ours.ceiling(humans, skipna=True)
    assert float(got_c) == pytest.approx(float(want_c), abs=1e-12)
    try:  # Brain-Score's default skipna=False: the same number, or an AssertionError (a cell in one half only)
        plain = _quiet(theirs.ceiling, humans)
    except AssertionError:
        plain = None
    if plain is not None:
        assert float(ours.ceiling(humans)) == pytest.approx(float(plain), abs=1e-12)


def test_rajalingham2018s_ceil_score_runs_unchanged_on_trialwise(bs):
    """Brain-Score's own ``_DicarloRajalingham2018.ceil_score`` (per-split raw values, ``metric.aggregate``) on
    trialwise's I2n score and ceiling gives Brain-Score's ceiled score of Brain-Score's own metric."""
    bench = importlib.import_module("brainscore_vision.benchmarks.rajalingham2018.benchmarks.benchmark")
    _, probs, trials = list(_i2n_designs())[1]
    model, humans = _i2n_assemblies(bs, probs, trials)
    ours = tw.brainscore.I2n(brainscore_compatible=True, n_resamples=20, rng=0)
    theirs = bs["I2n"]()

    class Bench:  # what ceil_score reads of its benchmark: the metric
        pass

    mine, own = Bench(), Bench()
    mine._metric, own._metric = ours, theirs
    got = _quiet(bench._DicarloRajalingham2018.ceil_score, mine, ours(model, humans), ours.ceiling(humans, skipna=True))
    want = _quiet(bench._DicarloRajalingham2018.ceil_score, own, _quiet(theirs, model.copy(), humans),
                  _quiet(theirs.ceiling, humans, skipna=True))
    assert float(got) == pytest.approx(float(want), abs=1e-12)
    assert float(got.attrs["error"]) == pytest.approx(float(want.attrs["error"]), abs=1e-12)


def test_the_shipped_2afc_samples_ceiling_needs_skipna_in_brainscore(bs):
    """docs/brainscore.md: on the shipped 2AFC sample Brain-Score's I2n ``ceiling()`` raises; trialwise gives its skipna=True number."""
    models, trials = tw.datasets.synthetic_2afc_sample()
    _, humans = _i2n_assemblies(bs, models["model-0.5"], trials)
    with pytest.raises(AssertionError):
        _quiet(bs["I2n"]().ceiling, humans)
    want = _quiet(bs["I2n"]().ceiling, humans, skipna=True)
    got = tw.brainscore.I2n(brainscore_compatible=True, n_resamples=20, rng=0).ceiling(humans)
    assert float(got) == pytest.approx(float(want), abs=1e-12)


def test_an_image_missing_from_a_split_half_stops_brainscore_not_trialwise(bs):
    """docs/brainscore.md: with 12 trials per image and a third of the trials dropped, Brain-Score's split leaves a
    half without any trial of an image; its alignment fails, also with skipna=True; trialwise leaves the image out."""
    probs, gen = tw.brainscore.synthetic_2afc(n_objects=5, images_per_object=6, trials_per_image=12, rng=7)
    trials = gen[np.random.default_rng(3).random(len(gen)) < 0.67].reset_index(drop=True)
    model, humans = _i2n_assemblies(bs, probs, trials)
    with pytest.raises(ValueError, match="could not be broadcast"):
        _quiet(bs["I2n"](), model.copy(), humans)
    with pytest.raises(ValueError, match="could not be broadcast"):
        _quiet(bs["I2n"]().ceiling, humans, skipna=True)
    with pytest.warns(tw.DegenerateDataWarning):  # these few trials: the halves do not agree, the score is NaN
        res = tw.brainscore.i2n(probs, trials, brainscore_compatible=True, n_resamples=20, rng=0)
    assert np.isfinite(res.raw) and np.isfinite(res.ceiling.statistic)


# --------------------------------------------------------------------------- error consistency


def _ec_assemblies(bs, n_subjects=4, n_conditions=3):
    """Geirhos2021's call: the model's labels (look_at of the stimulus set) and the human assembly, conditions as str."""
    t = tw.datasets.model_vs_human("contrast")
    conditions = sorted(t["condition"].unique())[:n_conditions]
    t = t[t["condition"].isin(conditions)]
    h = t[t["observer_type"] == "human"]
    h = h[h["subject"].isin(sorted(h["subject"].unique())[:n_subjects])]
    m = t[t["subject"] == "resnet50"].drop_duplicates("image")
    assembly = bs["BehavioralAssembly"]

    def build(rows, subject):
        coords = {"stimulus_id": ("presentation", rows["image"].to_numpy(dtype=object)),
                  "truth": ("presentation", rows["category"].to_numpy(dtype=object)),
                  "condition": ("presentation", rows["condition"].astype(str).to_numpy(dtype=object))}
        if subject:
            coords["subject"] = ("presentation", rows["subject"].to_numpy(dtype=object))
        return assembly(rows["response"].to_numpy(dtype=object), dims=["presentation"], coords=coords)

    return build(m, False), build(h, True)


def test_error_consistency_equals_brainscores_own_on_model_vs_human(bs):
    model, humans = _ec_assemblies(bs)
    theirs = bs["ErrorConsistency"]()
    ours = tw.brainscore.ErrorConsistency(min_items=1, brainscore_compatible=True, n_resamples=20, rng=0)
    assert float(ours(model, humans)) == pytest.approx(float(_quiet(theirs, model, humans)), abs=1e-12)
    assert float(ours.ceiling(humans)) == pytest.approx(float(_quiet(theirs.ceiling, humans)), abs=1e-12)


def test_error_consistency_keeps_the_sign_brainscore_drops(bs):
    """Brain-Score's aggregate is abs(mean κ): a model erring on other images than the humans scores as positive."""
    model, humans = _ec_assemblies(bs, n_subjects=3, n_conditions=2)
    truth = model["truth"].values
    right = np.asarray(humans.values[: model.sizes["presentation"]] == humans["truth"].values[: model.sizes["presentation"]])
    # the model right exactly where subject 1 erred (mirror image of a human): κ < 0
    labels = np.where(right, np.roll(truth, 1), truth)
    contrary = bs["BehavioralAssembly"](labels.astype(object), dims=["presentation"],
                                        coords={c: ("presentation", model[c].values) for c in ("stimulus_id", "truth", "condition")})
    want = float(_quiet(bs["ErrorConsistency"](), contrary, humans))
    signed = float(tw.brainscore.ErrorConsistency(min_items=1, n_resamples=20, rng=0)(contrary, humans))
    compat = float(tw.brainscore.ErrorConsistency(min_items=1, brainscore_compatible=True, n_resamples=20, rng=0)(
        contrary, humans))
    assert signed < 0 and compat == pytest.approx(want, abs=1e-12) == pytest.approx(abs(signed), abs=1e-12)


# --------------------------------------------------------------------------- value delta


@pytest.mark.parametrize("scale", [1.0, 0.75])
@pytest.mark.parametrize("s, t", [(1.5, 1.0), (1.0, 1.5), (1.25, 1.25), (1.0, -1.0), (-5.0, 5.0), (0.123, 0.987)])
def test_value_delta_equals_brainscores_own_on_plain_floats(bs, scale, s, t):
    want = bs["ValueDelta"](scale=scale)(s, t)
    got = tw.brainscore.ValueDelta(scale=scale)(s, t)
    assert float(got) == pytest.approx(float(want), abs=1e-12)
    assert got.attrs["raw"] == want.attrs["raw"] and np.isnan(got.attrs["error"]) and np.isnan(want.attrs["error"])


def test_value_delta_takes_brainscores_own_scores(bs):
    """A Score that Brain-Score's metric returned (error NaN) passed back in: its value, no interval."""
    a, b = bs["ValueDelta"]()(1.0, 2.0), bs["ValueDelta"]()(1.0, 1.2)
    want = bs["ValueDelta"](scale=0.75)(a, b)
    got = tw.brainscore.ValueDelta(scale=0.75)(a, b)
    assert float(got) == pytest.approx(float(want), abs=1e-12) and np.isnan(got.attrs["ci_low"])


# --------------------------------------------------------------------------- OST


def test_ost_correlation_equals_brainscores_correlate(bs):
    """Kar2019's ``correlate(predicted_osts, test_osts.values)``: trialwise is given the OSTs (it fits no decoders)."""
    models, target = tw.datasets.synthetic_ost_sample()
    per_image = target.groupby("image", sort=False)["ost"].mean()
    theirs = bs["OSTCorrelation"].correlate
    for name, rows in models.groupby("candidate"):
        predicted = rows.set_index("image").loc[per_image.index, "ost"].to_numpy(dtype=float)
        want = float(theirs(None, predicted, per_image.to_numpy(dtype=float)))
        got = tw.brainscore.OSTCorrelation(n_resamples=20, rng=0)(predicted, per_image.to_numpy(dtype=float))
        assert float(got) == pytest.approx(want, abs=1e-12), name
    g = np.random.default_rng(11)  # ties and NaNs on both sides
    predicted, osts = g.integers(0, 6, 50).astype(float), g.integers(0, 6, 50).astype(float)
    predicted[[2, 9]], osts[[4, 9, 30]] = np.nan, np.nan
    want = float(theirs(None, predicted, osts))
    assert float(tw.brainscore.OSTCorrelation(n_resamples=20, rng=0)(predicted, osts)) == pytest.approx(want, abs=1e-12)
