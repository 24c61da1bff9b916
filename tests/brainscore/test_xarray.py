"""Brain-Score's metric objects on xarray (``ValueDelta``, ``OSTCorrelation``): Brain-Score's call signatures,
the library's numbers.

Oracles: the library's functions called directly (the objects only convert), Brain-Score's own
``ValueDelta`` arithmetic (its test: 1.5 vs 1.0 at scale 1 → e^−0.5) and ``scipy.stats.spearmanr``
on the images aligned by ``stimulus_id``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import trialwise as tw

xr = pytest.importorskip("xarray")


def test_value_delta_takes_scores_with_their_error_as_standard_error():
    metric = tw.brainscore.ValueDelta(n_resamples=2000, rng=4)
    s, t = xr.DataArray(0.82, attrs={"error": 0.02}), xr.DataArray(0.75, attrs={"error": 0.03})
    got = metric(s, t)
    want = tw.brainscore.value_delta(0.82, 0.75, source_se=0.02, target_se=0.03, n_resamples=2000,
                                     rng=tw.brainscore.ValueDelta(rng=4)._entropy)
    assert float(got) == pytest.approx(np.exp(-0.07), rel=1e-12)  # Brain-Score: 1 / exp(scale · |s − t|)
    assert float(got) == pytest.approx(want.raw, rel=1e-12)
    assert (got.attrs["ci_low"], got.attrs["ci_high"]) == pytest.approx(tuple(want.raw_interval), rel=1e-12)
    assert got.attrs["raw"] == [0.82, 0.75] and got.attrs["n_resamples"] == 2000
    assert got.attrs["error"] == pytest.approx(np.std(want.raw_distribution, ddof=1), rel=1e-12)


def test_value_delta_on_trials_and_its_ceiling():
    g = np.random.default_rng(2)
    model, humans = (g.random(300) < 0.7).astype(float), (g.random(500) < 0.75).astype(float)
    metric = tw.brainscore.ValueDelta(scale=0.75, n_resamples=500, rng=1)
    got = metric(xr.DataArray(model, dims=["presentation"]), humans)
    want = tw.brainscore.value_delta(model, humans, scale=0.75, n_resamples=500, rng=metric._entropy)
    assert float(got) == pytest.approx(want.raw, rel=1e-12)
    assert got.attrs["raw"] == pytest.approx([model.mean(), humans.mean()], rel=1e-12)
    c = metric.ceiling(humans)
    ref = tw.brainscore.value_delta(humans, humans, scale=0.75, n_resamples=500, rng=metric._entropy).ceiling
    assert float(c) == pytest.approx(ref.statistic, rel=1e-12)
    assert (c.attrs["ci_low"], c.attrs["ci_high"]) == pytest.approx(tuple(ref.confidence_interval), rel=1e-12)


def test_ost_correlation_aligns_by_stimulus_id():
    g = np.random.default_rng(5)
    n = 60
    true = g.normal(100, 20, n)
    reps = true[:, None] + g.normal(0, 12, (n, 5))
    reps[3, :] = np.nan  # never solved by the target
    model = true + g.normal(0, 15, n)
    model[7] = np.nan  # never solved by the model
    ids = np.array([f"img{i:02d}" for i in range(n)])
    order = g.permutation(n)
    source = xr.DataArray(model[order], dims=["presentation"], coords={"stimulus_id": ("presentation", ids[order])})
    target = xr.DataArray(reps, dims=["presentation", "subject"], coords={"stimulus_id": ("presentation", ids)})
    metric = tw.brainscore.OSTCorrelation(n_resamples=300, rng=0)
    rho = metric(source, target)
    mean = np.nanmean(np.where(np.isnan(reps).all(axis=1, keepdims=True), 0, reps), axis=1)
    mean[3] = np.nan
    ok = ~np.isnan(model) & ~np.isnan(mean)
    assert float(rho) == pytest.approx(stats.spearmanr(model[ok], mean[ok]).statistic, rel=1e-12)
    want = tw.brainscore.ost_correlation(model, reps, n_resamples=300, rng=metric._entropy)
    assert (rho.attrs["ci_low"], rho.attrs["ci_high"]) == pytest.approx(tuple(want.raw_interval), rel=1e-12)
    c = metric.ceiling(target)
    assert float(c) == pytest.approx(want.ceiling.statistic, rel=1e-12)


def test_ost_correlation_names_what_is_missing():
    metric = tw.brainscore.OSTCorrelation(n_resamples=50, rng=0)
    src = xr.DataArray([1.0, 2.0, 3.0], dims=["presentation"], coords={"stimulus_id": ("presentation", ["a", "b", "c"])})
    tgt = xr.DataArray([1.0, 2.0, 4.0], dims=["presentation"], coords={"stimulus_id": ("presentation", ["a", "b", "z"])})
    with pytest.raises(tw.InvalidValueError, match=r"`source_osts` lacks 1 stimulus_id\(s\) of `target_osts` \(e.g. 'z'\)"):
        metric(src, tgt)


@pytest.mark.parametrize("cls, function", [("I2n", "i2n"), ("I1n", "i1n")])
def test_i2n_objects_are_the_functions_on_brainscore_assemblies(cls, function):
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, rng=3)
    metric = getattr(tw.brainscore, cls)(n_resamples=100, brainscore_compatible=True, n_splits=2, rng=2)
    model = metric.assembly(trials, probs)
    humans = metric.assembly(trials)
    # the assemblies as Brain-Score builds them: the model's rows in another order
    model = model.isel(presentation=np.random.default_rng(0).permutation(model.sizes["presentation"]))
    raw, ceiling = metric(model, humans), metric.ceiling(humans)
    ref = getattr(tw.brainscore, function)(probs, trials, n_resamples=100, brainscore_compatible=True, n_splits=2,
                                           rng=metric._entropy)
    assert float(raw) == pytest.approx(ref.raw, rel=1e-12)
    assert (raw.attrs["ci_low"], raw.attrs["ci_high"]) == pytest.approx(tuple(ref.raw_interval), rel=1e-12)
    assert float(ceiling) == pytest.approx(ref.ceiling.statistic, rel=1e-12)


def test_i2n_object_names_what_an_assembly_lacks():
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=3, images_per_object=2, rng=0)
    model = tw.brainscore.I2n.assembly(trials, probs)
    humans = tw.brainscore.I2n.assembly(trials).drop_vars("sample_obj")
    with pytest.raises(tw.InvalidValueError, match=r"`target` lacks a coordinate 'sample_obj' or 'truth'"):
        tw.brainscore.I2n(n_resamples=10)(model, humans)
    with pytest.raises(tw.InvalidValueError, match=r"`source_probabilities` must have the dimensions"):
        tw.brainscore.I2n(n_resamples=10)(model.rename(choice="object"), tw.brainscore.I2n.assembly(trials))
