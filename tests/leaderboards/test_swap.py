"""The swap test's kernel (leaderboards/swap.py): grouped swap counts from packed bits.

Oracles written here: the exact swap distribution of error consistency by enumerating all
2^k swaps of a small two-experiment design (items, and whole clusters), with κ computed
from the swapped responses and NaN-aware means level by level; the reconstruction of Δ
from its groups and the bit segments. The calibration on simulated exchangeable candidates
is in tests/leaderboards/test_leaderboard.py (error consistency) and tests/leaderboards/test_score_leaderboard.py
(per-item scores, clusters); benchmarks/speed/bench_swap.py runs both kernels at larger R.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.leaderboards import swap
from trialwise.leaderboards.hierarchy import build_design
from trialwise.leaderboards.swap import swap_differences, swap_pvalue


def test_groups_rebuild_every_row_and_segments_cover_every_bit_once():
    rng = np.random.default_rng(0)
    base = rng.integers(-2, 3, size=(7, 5)).astype(float)
    base[base[:, 0] == 0, 0] = 1  # no all-zero row
    rows = base[rng.integers(0, 7, 300)] * rng.choice([-1.0, 1.0], size=(300, 1))
    for delta in (rows, rows + 0.25 * (rows != 0)):  # small integers (int64 keys), and floats (np.unique)
        reps, group, negative = swap._groups(delta)
        np.testing.assert_array_equal(np.where(negative[:, None], -1, 1) * reps[group], delta)
        assert len(reps) == len({max(tuple(r), tuple(-r)) for r in delta + 0.0})  # distinct up to sign
        assert np.all(reps[np.arange(len(reps)), np.argmax(reps != 0, 1)] > 0)
    sizes = np.array([1, 63, 64, 65, 3, 130, 1])
    word, mask, group = swap._segments(sizes)
    bits = np.zeros(-(-sizes.sum() // 64) * 64, int)
    for w, m, g in zip(word, mask, group):
        on = [64 * w + b for b in range(64) if (int(m) >> b) & 1]
        bits[on] += 1
        assert all(sizes[:g].sum() <= i < sizes[:g + 1].sum() for i in on)  # the group's own run
    assert bits[:sizes.sum()].tolist() == [1] * sizes.sum() and not bits[sizes.sum():].any()
    assert swap._popcount(mask).astype(int).tolist() == [bin(int(m)).count("1") for m in mask]


def _kappa(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cohen's κ of 0/1 rows of ``a`` (…, n) against ``b`` (n,), NaN where both are constant."""
    pa, pb = a.mean(-1), b.mean()
    po = (a == b).mean(-1)
    pe = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1, (po - pe) / (1 - pe), np.nan)


def _board(rng):
    """Two experiments of one condition: humans h0–h2, candidates x and y that differ on 11 items.

    In e2 the humans and x are right on every item but one of y's: κ(x, human) is undefined
    (NaN) whenever that item is not swapped, so half the swaps take the NaN-aware means.
    """
    n = 24
    data = {}
    for e in ("e1", "e2"):
        if e == "e1":
            hum = (rng.random((3, n)) < 0.7).astype(int)
            x = (rng.random(n) < 0.7).astype(int)
            y = x.copy()
            flip = rng.choice(n, 10, replace=False)
            y[flip] = 1 - y[flip]
        else:
            hum = np.ones((3, n), int)
            x = np.ones(n, int)
            y = x.copy()
            y[5] = 0
        data[e] = (hum, x, y)
    frames = []
    for e, (hum, x, y) in data.items():
        for name, resp, kind in [(f"h{h}", hum[h], "human") for h in range(3)] + [("x", x, "model"),
                                                                                   ("y", y, "model")]:
            frames.append(pd.DataFrame({"experiment": e, "condition": "c", "subject": name, "observer_type": kind,
                                        "image": [f"{e}i{i:02d}" for i in range(n)], "correct": resp,
                                        "cluster": [f"{e}k{i // 4}" for i in range(n)]}))
    return tw.read_trials(pd.concat(frames, ignore_index=True), correct="correct", clusters="cluster"), data


def _exact_null(data, clusters: bool):
    """Δ* of every swap of the differing items (or of their clusters), equally likely."""
    units = []
    for hum, x, y in data.values():
        keys = np.arange(len(x)) // 4 if clusters else np.arange(len(x))
        units.append((hum, x, y, keys, np.unique(keys[x != y])))
    free = sum(len(u[4]) for u in units)
    null = []
    for s in itertools.product([0, 1], repeat=free):
        per_exp, k = [], 0
        for hum, x, y, keys, movable in units:
            swapped = np.isin(keys, movable[np.array(s[k:k + len(movable)], bool)])
            k += len(movable)
            xs, ys = np.where(swapped, y, x), np.where(swapped, x, y)
            kx = [_kappa(xs, h) for h in hum]
            ky = [_kappa(ys, h) for h in hum]
            mx = np.nanmean(kx) if not np.all(np.isnan(kx)) else np.nan
            my = np.nanmean(ky) if not np.all(np.isnan(ky)) else np.nan
            per_exp.append((mx, my))
        sx = np.nanmean([p[0] for p in per_exp])
        sy = np.nanmean([p[1] for p in per_exp])
        null.append(sx - sy)
    return np.array(null)


@pytest.mark.parametrize("clusters", [False, True])
def test_swap_null_is_the_exact_enumeration_of_swaps(clusters):
    """Every draw is one of the 2^k enumerated Δ*, each value as often as its exact
    probability (χ² over the distinct values), and the p-value agrees within 4 MC SE;
    undefined entries (NaN κ) are left out of their means, as in the enumeration."""
    trials, data = _board(np.random.default_rng(4))
    design = build_design(trials, tw.leaderboards.Protocol("sim"), clusters=trials["cluster"].to_numpy() if clusters else None)
    x, y = design.rows.index("x"), design.rows.index("y")
    m = 40_000
    observed, null = swap_differences(design, x, y, m, rng=5)
    exact = _exact_null(data, clusters)
    assert observed == pytest.approx(exact[0], abs=1e-12)  # no swap: the data
    values = np.unique(np.round(exact, 10))
    assert 8 < len(values) < len(exact)  # ties between swaps: groups of equal (or opposite) rows of Δ
    where = np.clip(np.searchsorted(values, null), 1, len(values) - 1)
    near = np.where(np.abs(values[where] - null) < np.abs(values[where - 1] - null), where, where - 1)
    assert np.abs(values[near] - null).max() < 1e-9
    expected = np.bincount(np.searchsorted(values, np.round(exact, 10)), minlength=len(values)) / len(exact) * m
    got = np.bincount(near, minlength=len(values))
    from scipy import stats

    keep = expected >= 5
    chi2 = stats.chisquare(got[keep], expected[keep] * got[keep].sum() / expected[keep].sum())
    assert chi2.pvalue > 0.001, chi2
    p_exact = float(np.mean(np.abs(exact) >= abs(exact[0]) * (1 - 1e-9)))
    assert abs(swap_pvalue(observed, null) - p_exact) < 4 * np.sqrt(p_exact * (1 - p_exact) / m) + 1 / m


def test_swap_draws_do_not_depend_on_the_block_sizes(monkeypatch):
    trials, _ = _board(np.random.default_rng(4))
    design = build_design(trials, tw.leaderboards.Protocol("sim"))
    x, y = design.rows.index("x"), design.rows.index("y")
    reference = swap_differences(design, x, y, 3000, rng=9)
    monkeypatch.setattr(swap, "_BLOCK", 40)
    monkeypatch.setattr(swap, "_DRAWS", 300)
    small = swap_differences(design, x, y, 3000, rng=9)
    assert reference[0] == small[0]
    np.testing.assert_allclose(reference[1], small[1], rtol=0, atol=1e-15)
