"""Brain-Score's benchmark code paths, replayed against trialwise's metric classes (issue 32, item 1).

Each test copies the lines of a brain-score/vision benchmark (commit c642dbe, the code of
brainscore-vision 2.4.2) that call its metric — ``ferguson2024`` (value delta on plain floats),
``geirhos2021`` and ``scialom2024`` (error consistency), ``rajalingham2018`` (I2n, the public
benchmark's ``ceiling(assembly, skipna=True)``), ``kar2019`` (OST ``correlate``) — and builds the
inputs in the shapes the benchmark builds them: Brain-Score assemblies stack the ``presentation``
coordinates into a MultiIndex (brainio's ``DataAssembly``), made here with plain xarray
(``set_index``), so these tests run where Brain-Score is not installed (and, in .ci/run's
Brain-Score step, with xarray < 2022.6, whose MultiIndex levels are not listed in ``.coords``).

Oracles: Brain-Score's arithmetic written out here (``1 / exp(scale·|s − t|)``; κ per subject and
condition, averaged over conditions then subjects, ``abs``), ``scipy.stats.spearmanr``, and
trialwise's functions on the tidy tables (whose numbers tests/brainscore/test_i2n.py and
test_brainscore_oracle.py check against Brain-Score's own code).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import trialwise as tw

xr = pytest.importorskip("xarray")


def stacked(values, dims, coords):
    """A Brain-Score-like assembly: the ``presentation`` coordinates stacked into a MultiIndex, as brainio does."""
    da = xr.DataArray(values, dims=dims, coords=coords)
    levels = [name for name, (dim, _) in coords.items() if dim == "presentation"]
    return da.set_index(presentation=levels)


def Score(value):  # noqa: N802 - Brain-Score's name: a 0-d DataAssembly
    return xr.DataArray(value)


# --------------------------------------------------------------------------- ferguson2024: value delta


def test_ferguson2024_calls_value_delta_with_plain_floats():
    """``_Ferguson2024ValueDelta.__call__``: ``raw_score = self._metric(model_integral, human_integral)`` on floats."""
    metric = tw.brainscore.ValueDelta(scale=0.75)  # load_metric('value_delta', scale=0.75)
    model_integral, human_integral = 1.5, 1.0
    raw_score = metric(model_integral, human_integral)
    assert float(raw_score) == pytest.approx(1 / np.exp(0.75 * 0.5), abs=1e-15)  # Brain-Score: 0.68729
    assert round(float(raw_score), 5) == 0.68729
    assert np.isnan(raw_score.attrs["ci_low"]) and np.isnan(raw_score.attrs["ci_high"])
    assert np.isnan(raw_score.attrs["error"]) and raw_score.attrs["n_resamples"] == 0
    note = raw_score.attrs["notes"][0]
    assert note.kind == "undefined" and "no interval" in note and note.values["without_standard_error"] == ["source",
                                                                                                          "target"]
    assert raw_score.attrs["raw"] == [1.5, 1.0]  # Brain-Score's Score.RAW_VALUES_KEY: [source, target]
    # calculate_ceiling(precompute_ceiling=True): a Score with error and raw
    ceiling = Score(0.883)
    ceiling.attrs["error"] = 0.078
    ceiling.attrs["raw"] = [0.883, 0.078]
    score = Score(min(max(raw_score / ceiling, 0), 1))  # ensure ceiled score is between 0 and 1
    score.attrs["raw"] = raw_score
    score.attrs["ceiling"] = ceiling
    assert float(score) == pytest.approx(min(max(np.exp(-0.375) / 0.883, 0), 1), abs=1e-15)


def test_ferguson2024_ceiling_loop_on_plain_floats():
    """``calculate_ceiling(precompute_ceiling=False)``: the metric on two halves' floats, 500 times; mean and SD."""
    metric = tw.brainscore.ValueDelta(scale=0.75)
    g = np.random.default_rng(0)
    halves = g.normal(1.2, 0.3, (500, 2))
    scores = [metric(h1, h2) for h1, h2 in halves]
    score = Score(np.mean(scores))
    scores = np.array(scores, dtype=float)
    score.attrs["error"] = np.std(scores)
    want = np.minimum(np.maximum(1 / np.exp(0.75 * np.abs(halves[:, 0] - halves[:, 1])), 0), 1)
    assert float(score) == pytest.approx(want.mean(), abs=1e-14)
    assert score.attrs["error"] == pytest.approx(want.std(), abs=1e-14)


def test_value_delta_plain_float_with_a_standard_error_given_keeps_its_interval():
    """A plain number with its standard error given to the metric is not 'bare': the interval is formed as before."""
    got = tw.brainscore.ValueDelta(scale=0.75, source_se=0.1, target_se=0.05, n_resamples=500, rng=0)(1.5, 1.0)
    want = tw.brainscore.value_delta(1.5, 1.0, scale=0.75, source_se=0.1, target_se=0.05, n_resamples=500,
                                     rng=tw.brainscore.ValueDelta(rng=0)._entropy)
    assert float(got) == pytest.approx(np.exp(-0.375), abs=1e-15)
    assert (got.attrs["ci_low"], got.attrs["ci_high"]) == pytest.approx(tuple(want.raw_interval), abs=1e-15)
    assert got.attrs["ci_low"] < float(got) < got.attrs["ci_high"] and "notes" not in got.attrs


@pytest.mark.parametrize("bad, match", [(float("nan"), r"`source` must be finite; got nan"),
                                        ("1.5", r"`source` must be a number, a Score \(0-d DataArray\) or trials; "
                                                r"got '1.5'")])
def test_value_delta_plain_float_input_errors_name_the_argument(bad, match):
    with pytest.raises((tw.InvalidValueError, tw.InvalidTypeError), match=match):
        tw.brainscore.ValueDelta()(bad, 1.0)


# --------------------------------------------------------------------------- geirhos2021 / scialom2024: error consistency


def _geirhos_assemblies(n_subjects=3, n_conditions=3, n_images=24, seed=0):
    """Geirhos2021's assembly (conditions cast to str) and a model's ``look_at`` labels, both stacked."""
    g = np.random.default_rng(seed)
    classes = np.array(["dog", "cat", "car", "boat"])
    images = np.array([f"im{i:03d}" for i in range(n_conditions * n_images)])
    truth = classes[g.integers(0, 4, images.size)]
    condition = np.repeat([str(c) for c in range(n_conditions)], n_images)
    difficulty = g.random(images.size)

    def labels(skill):
        right = g.random(images.size) < skill * (1 - 0.6 * difficulty)
        return np.where(right, truth, classes[(np.searchsorted(classes, truth) + 1) % 4]).astype(object)

    per = [labels(0.9) for _ in range(n_subjects)]
    humans = stacked(np.concatenate(per), ["presentation"], {
        "stimulus_id": ("presentation", np.tile(images, n_subjects)),
        "truth": ("presentation", np.tile(truth, n_subjects)),
        "condition": ("presentation", np.tile(condition, n_subjects)),
        "subject": ("presentation", np.repeat([f"subject-{i}" for i in range(n_subjects)], images.size)),
        "session": ("presentation", np.ones(n_subjects * images.size, dtype=int))})
    order = g.permutation(images.size)  # look_at's order is the stimulus set's, not the assembly's
    model = stacked(labels(0.8)[order], ["presentation"], {
        "stimulus_id": ("presentation", images[order]), "truth": ("presentation", truth[order]),
        "condition": ("presentation", condition[order]), "image_label": ("presentation", truth[order])})
    return model, humans, per, truth, condition


def _kappa(a, b):
    pa, pb = a.mean(), b.mean()
    expected = pa * pb + (1 - pa) * (1 - pb)
    return ((a == b).mean() - expected) / (1 - expected)


def test_geirhos2021_error_consistency_call_and_ceiling():
    """``_Geirhos2021ErrorConsistency.__call__`` and its ``ceiling_func`` (also Scialom2024's), line by line."""
    model, humans, per, truth, condition = _geirhos_assemblies()
    metric = tw.brainscore.ErrorConsistency(min_items=1, brainscore_compatible=True, n_resamples=50, rng=0)
    raw_score = metric(model, humans)  # self._metric(labels, self._assembly)
    ceiling = metric.ceiling(humans)  # ceiling_func=lambda: self._metric.ceiling(self._assembly)
    score = raw_score / ceiling
    if score < 0:  # bound_score(score)
        score.loc[()] = 0
    elif score > 1:
        score.loc[()] = 1
    score.attrs["raw"] = raw_score
    score.attrs["ceiling"] = ceiling
    # Brain-Score's arithmetic: κ per subject and condition, mean over conditions then subjects, abs
    m_right = dict(zip(model["stimulus_id"].values, model.values == model["truth"].values))
    images = humans["stimulus_id"].values[: truth.size]
    m = np.array([m_right[i] for i in images])
    h = [p == truth for p in per]
    conds = sorted(set(condition))
    want_raw = abs(np.mean([np.mean([_kappa(m[condition == c], hs[condition == c]) for c in conds]) for hs in h]))
    pairs = [(i, j) for i in range(len(h)) for j in range(i + 1, len(h))]
    want_ceiling = abs(np.mean([np.mean([_kappa(h[i][condition == c], h[j][condition == c]) for c in conds])
                                for i, j in pairs]))
    assert float(raw_score) == pytest.approx(want_raw, abs=1e-12)
    assert float(ceiling) == pytest.approx(want_ceiling, abs=1e-12)
    assert float(score) == pytest.approx(min(max(want_raw / want_ceiling, 0), 1), abs=1e-12)
    assert raw_score.attrs["ci_low"] <= float(raw_score) <= raw_score.attrs["ci_high"]


# --------------------------------------------------------------------------- rajalingham2018: I2n


def test_rajalingham2018_i2n_call_and_both_ceiling_calls():
    """``_DicarloRajalingham2018.__call__`` (``self._metric(probabilities, self._assembly)``), its
    ``ceiling_func`` (``self._metric.ceiling(self._assembly)``) and the public benchmark's
    (``ceiling(self._assembly, skipna=True)``), on stacked assemblies (``worker_id``, ``choice`` as in
    Rajalingham2018's, ``correct`` added by its ``load_assembly``)."""
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, trials_per_image=30, rng=5)
    truth_of = dict(zip(trials["image"], trials["truth"]))
    model = stacked(probs.to_numpy(dtype=float), ["presentation", "choice"], {  # look_at: the stimulus set's columns
        "stimulus_id": ("presentation", np.asarray(probs.index, dtype=object)),
        "image_label": ("presentation", np.array([truth_of[i] for i in probs.index], dtype=object)),
        "choice": ("choice", np.asarray(probs.columns))})
    humans = stacked(trials["response"].to_numpy(dtype=object), ["presentation"], {
        "stimulus_id": ("presentation", trials["image"].to_numpy(dtype=object)),
        "truth": ("presentation", trials["truth"].to_numpy(dtype=object)),
        "sample_obj": ("presentation", trials["truth"].to_numpy(dtype=object)),
        "dist_obj": ("presentation", trials["distractor"].to_numpy(dtype=object)),
        "choice": ("presentation", trials["response"].to_numpy(dtype=object)),
        "worker_id": ("presentation", trials["subject"].to_numpy(dtype=object))})
    metric = tw.brainscore.I2n(brainscore_compatible=True, n_resamples=50, rng=3)
    score = metric(model, humans)
    ceiling, ceiling_skipna = metric.ceiling(humans), metric.ceiling(humans, skipna=True)
    ref = tw.brainscore.i2n(probs, trials, brainscore_compatible=True, n_resamples=50, rng=metric._entropy)
    assert float(score) == pytest.approx(ref.raw, abs=1e-12)
    assert float(ceiling) == float(ceiling_skipna) == pytest.approx(ref.ceiling.statistic, abs=1e-12)
    with pytest.raises(tw.InvalidTypeError, match=r"`skipna` must be True or False; got 'yes'"):
        metric.ceiling(humans, skipna="yes")


def test_rajalingham2018_ceil_score_runs_on_the_per_split_values():
    """``_DicarloRajalingham2018.ceil_score(score, ceiling)``: for every split of ``ceiling.raw['split']``,
    ``score.raw.sel(split=s) / sqrt(ceiling.raw.sel(split=s))``, the splits concatenated along ``split`` and
    ``self._metric.aggregate`` of them. Replayed here step by step on trialwise's values: the score is trialwise's
    I2n score (mean over splits of raw / √ceiling), the per-split values are the splits' own (their means are raw
    and ceiling), and the aggregate's error is their SD."""
    import xarray as xr

    probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=8, trials_per_image=80, rng=5)
    model, humans = tw.brainscore.I2n.assembly(trials, probs), tw.brainscore.I2n.assembly(trials)
    for compatible in (True, False):
        metric = tw.brainscore.I2n(brainscore_compatible=compatible, n_resamples=50, rng=3)
        score, ceiling = metric(model, humans), metric.ceiling(humans, skipna=True)
        assert set(score.attrs["raw"]["split"].values) == set(ceiling.attrs["raw"]["split"].values)
        parts = []
        for split in ceiling.attrs["raw"]["split"].values:
            part = score.attrs["raw"].sel(split=split) / np.sqrt(ceiling.attrs["raw"].sel(split=split))
            part = part.expand_dims("split")
            part["split"] = [split]
            parts.append(part)
        with warnings.catch_warnings():  # xarray < 2022.6 with pandas 2.x warns inside concat (FutureWarning)
            warnings.simplefilter("ignore", FutureWarning)
            merged = xr.concat(parts, dim="split")
        ceiled = metric.aggregate(merged)
        ref = tw.brainscore.i2n(probs, trials, brainscore_compatible=compatible, n_resamples=50, rng=metric._entropy)
        per_split = ref.split_values
        assert per_split.shape == ((2, 2) if compatible else (20, 2))
        assert float(score) == pytest.approx(per_split[:, 0].mean(), abs=1e-12) == pytest.approx(ref.raw, abs=1e-12)
        assert float(ceiling) == pytest.approx(per_split[:, 1].mean(), abs=1e-12)
        assert ref.ceiling.statistic == pytest.approx(per_split[:, 1].mean(), abs=1e-12)
        want = np.mean(per_split[:, 0] / np.sqrt(per_split[:, 1]))  # brute force, the splits' own numbers
        assert float(ceiled) == pytest.approx(want, abs=1e-12)
        if compatible:  # unclipped: Brain-Score's score
            assert float(ceiled) == pytest.approx(ref.statistic, abs=1e-12)
        assert float(ceiled.attrs["error"]) == pytest.approx(np.std(per_split[:, 0] / np.sqrt(per_split[:, 1])),
                                                             abs=1e-12)
    with pytest.raises(tw.InvalidValueError, match=r"`scores` must be a DataArray with a 'split' dimension"):
        tw.brainscore.I2n.aggregate(np.ones(3))


def test_the_spearman_brown_ceiling_has_no_per_split_values():
    probs, trials = tw.brainscore.synthetic_2afc(n_objects=4, images_per_object=6, trials_per_image=30, rng=5)
    res = tw.brainscore.i2n(probs, trials, ceiling_method="spearman-brown", n_resamples=20, rng=0)
    assert res.split_values.shape == (0, 2)
    metric = tw.brainscore.I2n(ceiling_method="spearman-brown", n_resamples=20, rng=0)
    assert "raw" not in metric(tw.brainscore.I2n.assembly(trials, probs), tw.brainscore.I2n.assembly(trials)).attrs


# --------------------------------------------------------------------------- kar2019: OST


def test_kar2019_ost_correlate_on_its_assembly():
    """``OSTCorrelation.apply``: ``self.correlate(predicted_osts, test_osts.values)`` — trialwise is given the
    predicted OSTs (it fits no decoders to recordings) and Kar2019's OST assembly (``stimulus_id``, ``i1``,
    ``image_label``, ``truth`` stacked); then ``ceil_score(score, Score(.79))``."""
    g = np.random.default_rng(4)
    n = 40
    ids = np.array([f"im{i:02d}" for i in range(n)], dtype=object)
    osts = 150 + 20 * g.random(n)
    osts[[3, 17]] = np.nan
    predicted = osts + g.normal(0, 6, n)
    predicted[[5]] = np.nan
    target = stacked(osts, ["presentation"], {"stimulus_id": ("presentation", ids),
                                              "i1": ("presentation", g.random(n)),
                                              "image_label": ("presentation", np.resize(["a", "b"], n).astype(object)),
                                              "truth": ("presentation", np.resize(["a", "b"], n).astype(object))})
    metric = tw.brainscore.OSTCorrelation(n_resamples=50, rng=0)
    score = metric(predicted, target)
    ok = ~np.isnan(predicted) & ~np.isnan(osts)
    want = stats.spearmanr(predicted[ok], osts[ok]).statistic
    assert float(score) == pytest.approx(want, abs=1e-12)
    source = stacked(predicted[::-1], ["presentation"], {"stimulus_id": ("presentation", ids[::-1]),
                                                         "image_label": ("presentation", target["truth"].values[::-1])})
    assert float(metric(source, target)) == pytest.approx(want, abs=1e-12)  # aligned by stimulus_id (its _align)
    ceiled = score / Score(0.79)  # kar2019's ceil_score: score / ceiling, no clipping
    assert float(ceiled) == pytest.approx(want / 0.79, abs=1e-12)


# --------------------------------------------------------------------------- imports


def test_brainscore_imports_in_a_fresh_interpreter():
    """``import trialwise.brainscore`` and ``import trialwise.brainscore.<module>`` for every public module,
    each in a fresh interpreter, and the names the package lists are the modules' objects."""
    package = Path(tw.__file__).parent / "brainscore"
    modules = sorted(p.stem for p in package.glob("*.py") if not p.stem.startswith("_"))
    assert {"metrics", "delta", "assembly", "ost", "image_level", "behavioral"} <= set(modules)
    code = ("import trialwise.brainscore as bs\n"
            + "".join(f"import trialwise.brainscore.{m}\n" for m in modules)
            + "from trialwise.brainscore.metrics import ValueDelta, ErrorConsistency, I2n, I1n, OSTCorrelation\n"
            "assert bs.ValueDelta is ValueDelta and bs.I2n is I2n and bs.ErrorConsistency is ErrorConsistency\n"
            "missing = [n for n in bs.__all__ if getattr(bs, n, None) is None]\n"
            "assert not missing, missing\n"
            "print('ok', len(bs.__all__))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")
