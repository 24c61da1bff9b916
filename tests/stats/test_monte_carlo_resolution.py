"""The Monte-Carlo resolution check of multiplicity-adjusted p-values (review HR5, F1)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import trialwise as tw
from trialwise._stats.significance import adjust_pvalues, check_monte_carlo_resolution


def _floor_by_brute_force(m: int, b: int, adjust: str, sides: int) -> float:
    """The smallest adjusted p-value of a family: every one of the m tests at the floor sides/(B + 1)."""
    return float(np.min(adjust_pvalues(np.full(m, sides / (b + 1)), adjust)))


@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "bh", "by", "none"])
@pytest.mark.parametrize("m,sides,alpha", [(1, 1, 0.05), (12, 2, 0.05), (252, 2, 0.05), (30, 1, 0.01), (7, 2, 0.3)])
def test_the_floor_and_the_resamples_needed_agree_with_adjust_pvalues(adjust, m, sides, alpha):
    for b in (1, 19, 300, 1000, 10_000):
        floor = _floor_by_brute_force(m, b, adjust, sides)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            note = check_monte_carlo_resolution(m, n_resamples=b, alpha=alpha, adjust=adjust, sides=sides)
        assert (note is not None) == (floor >= alpha), (b, floor)
        assert len(caught) == (note is not None)
        if note is None:
            continue
        assert caught[0].category is tw.MonteCarloResolutionWarning and str(caught[0].message) == str(note)
        assert note.kind == "monte-carlo-resolution"
        assert note.values["smallest_adjusted"] == pytest.approx(floor, rel=1e-12)
        need = note.values["resamples_needed"]
        assert _floor_by_brute_force(m, need, adjust, sides) < alpha  # enough ...
        assert need == 1 or _floor_by_brute_force(m, need - 1, adjust, sides) >= alpha  # ... and the fewest
        assert f"B = {b} " in str(note) and f"B ≥ {need} needed" in str(note)


def test_the_review_case_holm_over_252_differences_needs_10080_replicates():
    with pytest.warns(tw.MonteCarloResolutionWarning, match=r"no difference can reach 0.05 after Holm with B = 10000 "
                                                            r"and 252 tests.*B ≥ 10080 needed"):
        note = check_monte_carlo_resolution(252, n_resamples=10_000, alpha=0.05, what="difference")
    assert note.to_dict()["resamples_needed"] == 10080
    import pickle

    again = pickle.loads(pickle.dumps(note))
    assert again == note and again.values == note.values and again.kind == note.kind


def test_similarity_differences_say_when_b_floors_every_test(capsys):
    """Demo logs (4 models, 12 tests) at B = 300: Holm's floor 12·2/301 = 0.080 > 0.05."""
    from trialwise.cli.app import main

    code = main(["similarity", "--resamples", "300", "--seed", "0", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "no difference can reach 0.05 after holm with B = 300 and 12 tests" in out
    assert "B ≥ 480 needed" in out  # 24/480 = 0.05 is not below α = 0.05 (1 − 0.95, rounded)
    assert "trialwise: warning: no difference can reach 0.05 after Holm" in err
    code = main(["similarity", "--resamples", "480", "--seed", "0", "--quiet"])  # 24/481 < 0.05
    out, err = capsys.readouterr()
    assert code == 0 and "can reach" not in out + err


def test_leaderboard_pairwise_notes_the_floor_per_test():
    lb = tw.leaderboard(tw.datasets.model_vs_human_sample(), protocol="accuracy", n_resamples=200, rng=0)
    with pytest.warns(tw.MonteCarloResolutionWarning, match=r"B = 200 and 6 tests.*2/\(B \+ 1\)"):
        pw = lb.pairwise(which="neighbours", test="bootstrap")  # 6·2/201 = 0.060
    assert [n.kind for n in pw.attrs["notes"]] == ["monte-carlo-resolution"]
    assert not pw["significant"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", tw.MonteCarloResolutionWarning)
        pw = lb.pairwise(which="neighbours", test="studentized")  # 6/201 = 0.030: reachable
        pw = lb.pairwise(which="neighbours", test="paper")  # a t-test: not a Monte-Carlo p-value
    assert not [n for n in pw.attrs["notes"] if n.kind == "monte-carlo-resolution"]


def test_the_similarity_report_says_when_b_floors_every_test(tmp_path, capsys):
    from trialwise.cli.app import main

    out = tmp_path / "r.html"
    assert main(["similarity", "--resamples", "300", "--seed", "0", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    assert "None can be significant with these replicates:</b> no difference can reach 0.05 after Holm with " \
           "B = 300 and 12 tests" in html and "B ≥ 480 needed" in html
