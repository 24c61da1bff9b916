"""Bundled real data: shape, loader errors, and two published numbers it reproduces."""

import numpy as np
import pytest

import trialwise as tw


def test_model_vs_human_table():
    trials = tw.datasets.model_vs_human()
    assert len(trials) == 471_200
    assert trials.condition.dtype == object or str(trials.condition.dtype) in ("str", "string")
    assert set(trials.loc[trials.experiment == "uniform-noise", "condition"]) >= {"0.00", "0.10"}
    assert (trials.response == "na").sum() == 597


def test_unknown_experiment_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"`experiment` must be one of \[.*'cue-conflict'.*\]; got 'cue'"):
        tw.datasets.model_vs_human("cue")


def test_texture_vs_shape_and_readme():
    trials = tw.datasets.texture_vs_shape("texture-filled-rotated")
    assert trials.subject.nunique() == 32 + 4
    assert "Sources, versions, licences" in tw.datasets.data_readme()


def test_published_cue_conflict_means():
    # Geirhos et al. (2020): mean human-human kappa over 45 pairs 0.331; resnet50 vs humans 0.068.
    trials = tw.datasets.model_vs_human("cue-conflict")
    wide = trials.pivot(index="image", columns="subject", values="response")
    truth = trials.groupby("image").category.first().loc[wide.index]
    humans = sorted(trials.loc[trials.observer_type == "human", "subject"].unique())
    hh = tw.pairwise_error_consistency(wide[humans], truth=truth, ci_method="analytic")
    hm = tw.pairwise_error_consistency(wide, truth=truth, pairs=[(h, "resnet50") for h in humans],
                                       ci_method="analytic")
    assert len(hh) == 45 and round(float(np.mean(hh.statistic)), 3) == 0.331
    assert round(float(np.mean(hm.statistic)), 3) == 0.068
