"""The swap (permutation) test of two benchmark candidates: a test of exchangeability.

Under H0 candidates x and y are exchangeable: on each item of each condition their
responses are swapped with probability ½, independently, and every level of the
hierarchy is recomputed. Swapping changes a pair's table by ``s @ Δ`` (``s`` the 0/1 swap
indicators, ``Δ`` fixed columns). Items whose rows of Δ are equal (or opposite) enter only
through how many of them are swapped, so the swap bits are drawn 64 to a uint64 and
counted per group of items by popcount: per swap, one count per distinct row of Δ instead
of one bit per item, and the same null distribution (every item still has its own fair
bit; :func:`swap_differences`).

When the leaderboard resamples clusters of items (``clusters=``), whole clusters are
swapped: ``s`` is one indicator per cluster and ``Δ`` the sums of its items' columns, so
the test holds under the weaker null that x and y are exchangeable cluster by cluster. On
0/1 correctness of one condition the swap test is McNemar's exact test of the two
candidates, by Monte Carlo; on per-item scores in [0, 1] (accuracy of partial credit, F1,
...) it is the paired sign-flip (permutation) test of the mean score difference (Fisher
1935, *The Design of Experiments*, §21; Good 2005, *Permutation, Parametric and Bootstrap
Tests of Hypotheses*, §3.3), of cluster sums when clusters are swapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from trialwise._core.validation import check_positive_int, check_rng
from trialwise._stats.monte_carlo import monte_carlo_test
from trialwise._stats.tables import cluster_sums
from trialwise.leaderboards.hierarchy import Design, Unit, aggregate, entry_weights
from trialwise.leaderboards.protocol import metric_from_exact_sums

__all__ = ["SwapSampler", "swap_differences", "swap_pvalue"]

#: Sums (4 × swaps × entries) per block of swaps: 0.5 MB per float64 array, so a block's temporaries stay in cache.
_BLOCK = 2**18
#: Values (swaps × segments, swaps × columns) per block of swap draws: 2 MB per float64 array.
_DRAWS = 2**18


def _swap_columns(unit: Unit, x: int, y: int, ex: NDArray, ey: NDArray):
    """Columns giving the change of X's entries' sums when X and Y are swapped on some items.

    With ``s`` the 0/1 swap indicator of the items, the swapped sums are
    ``base_x + s @ Δ`` for X and ``base_y − s @ Δ`` for Y. Returns the items that can
    change, the distinct columns of Δ on them and, per (sum, reference), the column index.
    """
    refs = unit.pairs[ex, 1]
    if not np.array_equal(refs, unit.pairs[ey, 1]):
        raise AssertionError("x and y must be paired with the same references")  # pragma: no cover
    # 0/1 correctness: exact small integers; per-item scores (accuracy of scores in [0, 1]): float64
    columns = np.concatenate([[x, y], refs])  # only these observers' columns, not the unit's whole matrix
    r: NDArray = unit.right[:, columns].astype(np.int8 if unit.right.dtype == np.uint8 else np.float64)
    s: NDArray = unit.seen[:, columns].astype(np.int8)
    dr = r[:, 1] - r[:, 0]
    ds = s[:, 1] - s[:, 0]
    rh, sh = r[:, 2:], s[:, 2:]
    # n, n11, ca (candidate right & both seen), cb (reference right & both seen)
    delta = np.concatenate([ds[:, None] * sh, dr[:, None] * rh, dr[:, None] * sh, ds[:, None] * rh], axis=1)
    if unit.clusters is not None:  # whole clusters are swapped: a cluster's change is the sum of its items'
        delta = cluster_sums(delta, unit.clusters)
    items = np.flatnonzero(np.any(delta != 0, axis=1))
    delta = delta[items] + 0  # + 0: no -0.0 (equal columns have equal bytes)
    # distinct columns in order of first appearance (np.unique(axis=1) is slow on long columns)
    first: dict[bytes, int] = {}
    inverse = np.array([first.setdefault(c.tobytes(), len(first)) for c in np.ascontiguousarray(delta.T)],
                       dtype=np.intp)
    uniq = delta[:, np.unique(inverse, return_index=True)[1]]
    exact = np.issubdtype(delta.dtype, np.integer)  # float32 holds these sums exactly
    return items, np.ascontiguousarray(uniq, dtype=np.float32 if exact else np.float64), inverse.reshape(4, len(refs))


def _groups(delta: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """The rows of Δ (swap units × columns, none all zero) grouped up to their sign.

    Returns the distinct rows ``R`` (first non-zero entry positive), the group of every
    row and whether the row is ``−R`` of its group.
    """
    lead = delta[np.arange(len(delta)), np.argmax(delta != 0, axis=1)]
    negative = lead < 0
    canonical = np.where(negative[:, None], -delta, delta) + 0.0  # + 0.0: no -0.0
    c = int(np.abs(canonical).max(initial=0))
    if np.array_equal(canonical, np.round(canonical)) and canonical.shape[1] * np.log2(2 * c + 1) < 62:
        # small integers (0/1 correctness, cluster sums): each row one int64 key, base 2c + 1
        key = (canonical + c).astype(np.int64) @ ((2 * c + 1) ** np.arange(canonical.shape[1], dtype=np.int64))
        _, first, group = np.unique(key, return_index=True, return_inverse=True)
        return canonical[first], group.reshape(-1), negative
    reps, group = np.unique(canonical, axis=0, return_inverse=True)
    return reps, group.reshape(-1), negative


def _segments(sizes: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Groups of ``sizes`` bits laid end to end in 64-bit words: one segment per (group, word).

    Returns, per segment, the word, the 64-bit mask of the group's bits in it, and the group.
    """
    end = np.cumsum(sizes, dtype=np.int64)
    start = end - sizes
    first, last = start // 64, (end - 1) // 64
    per = last - first + 1
    group = np.repeat(np.arange(len(sizes)), per)
    word = first[group] + (np.arange(per.sum()) - np.repeat(np.cumsum(per) - per, per))
    lo = np.maximum(start[group], 64 * word)
    hi = np.minimum(end[group], 64 * word + 64)
    ones = np.full(len(word), np.iinfo(np.uint64).max, dtype=np.uint64)
    mask = (ones >> (64 - (hi - lo)).astype(np.uint64)) << (lo - 64 * word).astype(np.uint64)
    return word, mask, group


def _popcount(words: NDArray) -> NDArray:
    """Set bits of every uint64 (``np.bitwise_count`` where numpy has it, ≥ 2.0)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)  # pragma: no cover - numpy < 2
    return table[words.view(np.uint8)].reshape(words.shape + (8,)).sum(axis=-1, dtype=np.uint8)  # pragma: no cover


def swap_differences(
    design: Design,
    x: int,
    y: int,
    n_resamples: int,
    *,
    rng: Any = None,
    weights: NDArray | None = None,
) -> tuple[float, NDArray]:
    """Observed Δ = score(x) − score(y) and its swap (permutation) distribution.

    Under H0 candidates x and y are exchangeable: on each item of each unit their
    responses are swapped with probability ½ (independently), every level is
    recomputed, and Δ* recorded. ``x``, ``y`` are row indices of candidates. ``weights``:
    ``entry_weights(np.zeros(design.n_entries), design)``, computed when not given (a caller
    testing many pairs of one design passes it once).

    Items (or clusters) whose rows of Δ are equal, or opposite, change the sums alike, so
    ``s @ Δ = Σ_g K_g·R_g`` over the distinct rows ``R_g`` (up to sign) with ``K_g`` the
    signed count of swapped items of group ``g``. Every item still has its own fair swap
    bit: the bits are drawn 64 to a word (one uint64 per 64 items and swap, in one stream),
    each group owning a run of bits, and ``K_g`` is the number of set bits of its run (a
    popcount; the bits of items of ``−R_g`` are flipped first and their number subtracted).
    The swapped entries' metrics are averaged through the hierarchy as one weighted sum
    (:func:`~trialwise.leaderboards.hierarchy.entry_weights`: the weights of the row with every
    entry defined); replicates with an undefined entry take
    :func:`~trialwise.leaderboards.hierarchy.aggregate`, which leaves it out.

    References
    ----------
    Good (2005), *Permutation, Parametric and Bootstrap Tests of Hypotheses*, §3.3 (the
    paired permutation test); Knuth (2009), *The Art of Computer Programming* 4A, §7.1.3
    (sideways addition: counting the set bits of a word).
    """
    sampler = SwapSampler(design, x, y, rng=rng, weights=weights)
    return sampler.observed, sampler.draw(check_positive_int(n_resamples, "n_resamples"))


class SwapSampler:
    """The swap null of two candidates, drawn on demand (:func:`swap_differences`).

    ``draw(k)`` returns the first ``k`` swaps, drawing only those not drawn yet: the swap
    bits come from one stream in order, so the first ``k`` swaps are the same however they
    were drawn — at once, or a block at a time as a sequential test asks for more (their Δ*
    equal to rounding, ≈ 1e-17: the final weighted sums run in blocks of other shapes).
    ``observed`` is Δ = score(x) − score(y) on the data.
    """

    def __init__(self, design: Design, x: int, y: int, *, rng: Any = None, weights: NDArray | None = None) -> None:
        self.design = design
        self.plan = _swap_plan(design, x, y)
        self._gen = check_rng(rng)
        # weights of the entries in their row's score, all entries defined
        self._weights = entry_weights(np.zeros(design.n_entries), design) if weights is None else weights
        self._values = np.empty(0)
        values = design.values()
        ent_x, ent_y = self.plan.ent_x, self.plan.ent_y
        self.observed = float(aggregate(values[ent_x], design, entries=ent_x)[0][0]
                              - aggregate(values[ent_y], design, entries=ent_y)[0][0])

    @property
    def n_drawn(self) -> int:
        """Swaps drawn so far."""
        return len(self._values)

    def draw(self, k: int) -> NDArray:
        """The first ``k`` swaps' Δ*, drawing the missing ones."""
        if k > len(self._values):
            more = _swap_draws(self.plan, self.design, k - len(self._values), self._gen, self._weights)
            self._values = np.concatenate([self._values, more])
        return self._values[:k]


@dataclass
class _SwapPlan:
    """What every swap of two candidates' responses changes, computed once per pair of candidates."""

    ent_x: NDArray  # x's entries and y's
    ent_y: NDArray
    wx: NDArray  # where each unit's entries of x (y) sit among ent_x (ent_y), in unit order
    wy: NDArray
    take_all: NDArray  # (4, entries): the column of the products each sum of each entry takes (width: none)
    base_x: NDArray  # the sums before any swap, minus (plus) the offsets of the flipped runs
    base_y: NDArray
    reps: list  # per unit: the distinct swap rows R_g (up to sign)
    spans: list  # per unit: (first group, end group, first column, end column)
    seg_word: NDArray  # the bit runs of the groups: word, mask and group of each segment
    seg_mask: NDArray
    seg_group: NDArray
    flip: NDArray  # the bits of items of −R_g, flipped before counting
    first_segment: NDArray
    n_words: int
    width: int
    dtype: Any  # float32 when every unit's columns are integers


def _swap_plan(design: Design, x: int, y: int) -> _SwapPlan:
    """Every unit's distinct swap columns side by side, and the bit runs that count them."""
    ent_x = np.flatnonzero(design.entry_row == x)
    ent_y = np.flatnonzero(design.entry_row == y)
    # every unit's distinct swap columns side by side: products[:, k] (the last column: no change);
    # take[j, e]: the column of sum j of x's e-th entry (y's is the same, with the opposite sign)
    reps, spans, take, where_x, where_y, width = [], [], [], [], [], 0
    sizes, negatives, offsets, dtypes, n_groups = [], [], [], [], 0
    for unit in design.units:
        rows = design.entry_row[unit.entries]
        ux, uy = unit.entries[rows == x], unit.entries[rows == y]
        if len(ux) == 0:
            continue
        loc_x, loc_y = ux - unit.entries[0], uy - unit.entries[0]
        items, delta, inverse = _swap_columns(unit, unit.pairs[loc_x[0], 0], unit.pairs[loc_y[0], 0], loc_x, loc_y)
        if len(items):
            dtypes.append(delta.dtype)  # float32: integer columns (_swap_columns)
            rep, group, negative = _groups(np.asarray(delta, dtype=np.float64))
            order = np.argsort(group, kind="stable")  # the group's items on consecutive bits
            sizes.append(np.bincount(group, minlength=len(rep)))
            negatives.append(negative[order])
            offsets.append(np.bincount(group[negative], minlength=len(rep)) @ rep)
            reps.append(rep)
            spans.append((n_groups, n_groups + len(rep), width, width + rep.shape[1]))
            n_groups += len(rep)
            take.append(inverse + width)
            width += delta.shape[1]
        else:
            take.append(np.full(inverse.shape, -1))
        where_x.append(np.searchsorted(ent_x, ux))
        where_y.append(np.searchsorted(ent_y, uy))
    take_all = np.concatenate(take, axis=1) if take else np.empty((4, 0), np.intp)
    take_all[take_all < 0] = width
    wx, wy = (np.concatenate(w) if w else np.empty(0, np.intp) for w in (where_x, where_y))
    # the swapped sums are base ± (Σ_g K'_g·R_g − offset) with K'_g the set bits of g's flipped run
    offset = np.concatenate(offsets + [np.zeros(1)])[take_all][:, None, :]
    size = np.concatenate(sizes) if sizes else np.zeros(0, np.int64)
    seg_word, seg_mask, seg_group = _segments(size)
    n_words = -(-int(size.sum()) // 64)
    flip = np.zeros(n_words, np.uint64)
    bit = np.flatnonzero(np.concatenate(negatives)) if negatives else np.empty(0, np.intp)
    np.bitwise_or.at(flip, bit // 64, np.left_shift(np.uint64(1), (bit % 64).astype(np.uint64)))
    # 0/1 correctness: the counts and sums are small integers, exact in float32 (half the memory traffic)
    return _SwapPlan(
        ent_x=ent_x, ent_y=ent_y, wx=wx, wy=wy, take_all=take_all,
        base_x=design.entry_sums[:, ent_x[wx]][:, None, :] - offset,
        base_y=design.entry_sums[:, ent_y[wy]][:, None, :] + offset, reps=reps, spans=spans,
        seg_word=seg_word, seg_mask=seg_mask, seg_group=seg_group, flip=flip,
        first_segment=np.searchsorted(seg_group, [sp[0] for sp in spans] + [n_groups]), n_words=n_words, width=width,
        dtype=np.float32 if all(d == np.float32 for d in dtypes) else np.float64)


def _swap_draws(plan: _SwapPlan, design: Design, m: int, gen: np.random.Generator, weights: NDArray) -> NDArray:
    """Δ* of ``m`` swaps: the swap bits drawn 64 to a word, counted per group, the sums and metrics of
    every entry in blocks that stay in cache, averaged with ``weights`` (undefined entries: level by level)."""
    metric = design.protocol.metric
    ent_x, ent_y, wx, wy, take_all = plan.ent_x, plan.ent_y, plan.wx, plan.wy, plan.take_all
    first_segment, spans, width, dtype = plan.first_segment, plan.spans, plan.width, plan.dtype
    # per unit: its segments' rows of R (a segment counts for its group)
    seg_reps = [rep[plan.seg_group[first_segment[u]:first_segment[u + 1]] - spans[u][0]].astype(dtype)
                for u, rep in enumerate(plan.reps)]
    w_x, w_y = weights[ent_x[wx]], weights[ent_y[wy]]
    fast = len(ent_x) > 0 and len(ent_y) > 0
    out = np.empty(m)
    slow_rows, slow_x, slow_y = [], [], []
    # sums that no swap changes (n and cb when both candidates saw every item) are not gathered
    fixed = np.concatenate([~rep.any(axis=0) for rep in plan.reps] + [np.ones(1, bool)])
    moving = [not fixed[t].all() for t in take_all]
    step = max(1, _BLOCK // max(take_all.size, 1))  # swaps per block of sums (in cache)
    draws = step * max(1, _DRAWS // (step * max(len(plan.seg_word), width + 1, 1)))  # swaps per block of draws
    products = np.zeros((min(draws, m), width + 1), dtype)
    for lo in range(0, m, draws):
        hi = min(m, lo + draws)
        words = gen.integers(0, 2**64, size=(hi - lo, plan.n_words), dtype=np.uint64)  # the same stream for any block
        words ^= plan.flip
        counts = _popcount(np.take(words, plan.seg_word, axis=1) & plan.seg_mask).astype(dtype)
        for (_, _, c0, c1), (s0, s1), rep in zip(spans, zip(first_segment[:-1], first_segment[1:]), seg_reps):
            np.matmul(counts[:, s0:s1], rep, out=products[:hi - lo, c0:c1])
        for a in range(lo, hi, step):  # every entry of every unit at once, in cache
            z = min(hi, a + step)
            block = products[a - lo:z - lo]
            sums_x, sums_y = [], []
            for j in range(4):
                if moving[j]:
                    change = np.take(block, take_all[j], axis=1)
                    sums_y.append(plan.base_y[j] - change)
                    sums_x.append(plan.base_x[j] + change)
                else:
                    sums_x.append(np.broadcast_to(plan.base_x[j], (z - a, len(wx))))
                    sums_y.append(np.broadcast_to(plan.base_y[j], (z - a, len(wy))))
            vx, vy = metric_from_exact_sums(metric, *sums_x), metric_from_exact_sums(metric, *sums_y)
            ok = np.isfinite(vx).all(axis=1) & np.isfinite(vy).all(axis=1) if fast else np.zeros(z - a, bool)
            out[a:z] = vx @ w_x - vy @ w_y
            if not ok.all():
                slow_rows.append(a + np.flatnonzero(~ok))
                slow_x.append(vx[~ok])
                slow_y.append(vy[~ok])
    if slow_rows:  # undefined entries: left out of their means, level by level
        rows_slow = np.concatenate(slow_rows)
        vx_all = np.empty((len(rows_slow), len(ent_x)))
        vy_all = np.empty((len(rows_slow), len(ent_y)))
        vx_all[:, wx] = np.concatenate(slow_x)
        vy_all[:, wy] = np.concatenate(slow_y)
        sx, _ = aggregate(vx_all, design, entries=ent_x)
        sy, _ = aggregate(vy_all, design, entries=ent_y)
        out[rows_slow] = sx[:, 0] - sy[:, 0]
    return out


def swap_pvalue(observed: float, null: NDArray) -> float:
    """Two-sided Monte-Carlo p-value ``(1 + #|Δ*| ≥ |Δ|) / (1 + M)`` over defined Δ*
    (:func:`trialwise._stats.monte_carlo.monte_carlo_test` on the drawn swap distribution)."""
    return float(monte_carlo_test(float(observed), np.asarray(null, dtype=float), alternative="two-sided").pvalue)
