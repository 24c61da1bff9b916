"""Does the planned number of questions deliver the target? (docs/planning.md, "How many questions")

For every design: plan n with trialwise, then draw R benchmarks with known truth at the planned
n — clustered with ICC 0–0.5, equal or unequal cluster sizes — analyse each as a user would
(exact McNemar without clusters, cluster-robust z / cluster jackknife with clusters) and report
the achieved power or half-width with its Monte-Carlo SE.

    python benchmarks/calibration/planning_questions_study.py [--R 1000] [--seed 20261123] [--quick]

Clustered data: every question of a cluster draws its cell from the cluster's Dirichlet cell
probabilities with α₀ = (1 − ICC)/ICC, so every cell indicator, and any linear function of them
(a paired difference, an influence value), has intra-cluster correlation ICC.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import ndtri

import trialwise as tw
from trialwise.planning.trials import joint_cells

Z = float(ndtri(0.975))


def clustered(g, p, sizes, icc):
    """One-hot cells of sum(sizes) questions, clusters of the given sizes, and their cluster codes."""
    p = np.asarray(p, float)
    codes = np.repeat(np.arange(len(sizes)), sizes)
    if icc == 0:
        cells = g.choice(p.size, size=codes.size, p=p)
    else:
        probs = g.dirichlet(p * (1 - icc) / icc, size=len(sizes))
        cells = np.concatenate([g.choice(p.size, size=s, p=q) for s, q in zip(sizes, probs)])
    return np.eye(p.size)[cells], codes


def sizes_for(n, m, cv, g):
    """Cluster sizes of mean m summing to at least n: equal (cv = 0) or half m(1 − cv), half m(1 + cv)."""
    k = int(np.ceil(n / m))
    if cv == 0:
        return np.full(k, m)
    return g.permutation(np.where(np.arange(k) % 2 == 0, round(m * (1 - cv)), round(m * (1 + cv))))


def robust_se(values, codes):
    sums = np.bincount(codes, weights=values - values.mean())
    return np.sqrt(np.sum(sums ** 2)) / values.size


def accuracy_study(R, g, rows):
    for a, b, psi in ((0.72, 0.64, 0.30), (0.85, 0.82, 0.10)):
        for icc, m, cv in ((0.0, 1, 0.0), (0.1, 10, 0.0), (0.3, 10, 0.0), (0.5, 5, 0.0), (0.3, 10, 0.5)):
            plan = tw.planning.power_accuracy_difference(a, b, discordance=psi, cluster_size=m, icc=icc, cluster_size_cv=cv,
                                                rng=g)
            n = int(plan.n)
            p = [(psi + a - b) / 2, (psi - a + b) / 2, 1 - psi]
            hits = []
            for _ in range(R):
                sizes = sizes_for(n, m, cv, g)
                cells, codes = clustered(g, p, sizes, icc)
                if icc == 0:
                    n10, n01 = int(cells[:, 0].sum()), int(cells[:, 1].sum())
                    hits.append(tw.comparison.mcnemar(counts=[[0, n10], [n01, 0]], method="exact").pvalue <= 0.05)
                else:
                    d = cells[:, 0] - cells[:, 1]
                    hits.append(abs(d.mean()) / robust_se(d, codes) > Z)
            rows.append(("accuracy difference (McNemar)", f"a={a}, b={b}, ψ={psi}", icc, m, cv, plan.design_effect, n,
                         "power 0.8", np.mean(hits), np.sqrt(np.mean(hits) * (1 - np.mean(hits)) / R)))


def half_width_study(R, g, rows):
    for icc, m, cv in ((0.0, 1, 0.0), (0.1, 10, 0.0), (0.3, 10, 0.0), (0.5, 5, 0.0), (0.3, 10, 0.5)):
        plan = tw.planning.accuracy_half_width(0.7, half_width=0.03, cluster_size=m, icc=icc, cluster_size_cv=cv)
        n = int(plan.n)
        widths = []
        for _ in range(R):
            cells, codes = clustered(g, [0.7, 0.3], sizes_for(n, m, cv, g), icc)
            widths.append(Z * robust_se(cells[:, 0], codes if icc else np.arange(codes.size)))
        rows.append(("accuracy half-width (Wald)", "a=0.7", icc, m, cv, float(plan.design_effect), n,
                     "half-width 0.03", np.mean(widths), np.std(widths) / np.sqrt(R)))


def llm_population(g, n_clusters, size, cluster_sd, k=4):
    """Judge R and models X (close to R), Y on n_clusters·size questions; a cluster shifts difficulty and noise."""
    n = n_clusters * size
    truth = g.integers(0, k, n)
    onehot = np.eye(k)[truth]
    codes = np.repeat(np.arange(n_clusters), size)
    shift = g.normal(0, cluster_sd, n_clusters)[codes][:, None]
    cnoise = g.normal(0, cluster_sd, (n_clusters, k))[codes]
    common = g.normal(0, 1, (n, k))
    family = g.normal(0, 1, (n, k)) + g.normal(0, cluster_sd, (n_clusters, k))[codes]   # X's closeness to R varies

    def model(skill, fam):
        z = (skill + shift) * onehot + 0.8 * common + fam * family + cnoise + g.normal(0, 1, (n, k))
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return model(1.5, 1.0), model(1.2, 0.8), model(1.2, 0.6), truth, codes


def capa_columns(r, x, y, t):
    i = np.arange(t.size)
    return np.column_stack([np.sum(r * x, 1), np.sum(r * y, 1), r[i, t], x[i, t], y[i, t]])


def capa_from_sums(s, n, k=4):
    c = s / n[..., None] if np.ndim(n) else s / n
    ce = lambda pa, pb: pa * pb + (1 - pa) * (1 - pb) / (k - 1)  # noqa: E731
    kx = (c[..., 0] - ce(c[..., 2], c[..., 3])) / (1 - ce(c[..., 2], c[..., 3]))
    ky = (c[..., 1] - ce(c[..., 2], c[..., 4])) / (1 - ce(c[..., 2], c[..., 4]))
    return kx, ky


def jackknife_se(units, n_units, which):
    """Delete-one-unit jackknife SE of κ_x − κ_y (which='diff') or κ_x (which='x') from per-unit sums."""
    tot, counts = units.sum(0), n_units
    kx, ky = capa_from_sums(tot - units, counts.sum() - counts)
    stat = kx - ky if which == "diff" else kx
    u = stat.size
    return np.sqrt((u - 1) / u * np.sum((stat - stat.mean()) ** 2))


def capa_study(R, g, rows, n_sim):
    for cluster_sd, size in ((0.0, 1), (0.5, 20), (1.0, 20)):
        n_clusters = 6000 // size
        r, x, y, t, codes = llm_population(g, n_clusters, size, cluster_sd)
        clusters = None if size == 1 else codes
        cols = capa_columns(r, x, y, t)
        plan = tw.planning.power_agreement_difference(r, x, y, t, clusters=clusters, n_simulations=n_sim, rng=g)
        hw = tw.planning.agreement_half_width(r, x, t, half_width=0.02, clusters=clusters)
        phi = tw.planning.agreement_influence(r, x, t) - tw.planning.agreement_influence(r, y, t)
        icc = tw.planning.estimate_icc(phi, codes).icc if size > 1 else 0.0
        icc_x = tw.planning.estimate_icc(tw.planning.agreement_influence(r, x, t), codes).icc if size > 1 else 0.0
        true_kx = capa_from_sums(cols.sum(0), t.size)[0]
        for target, n in (("power", int(plan.n)), ("half", int(hw.n))):
            k_draw = int(np.ceil(n / size))
            per = np.zeros((n_clusters, 5))
            np.add.at(per, codes, cols)
            hits, widths, cover = [], [], []
            for _ in range(R):
                pick = g.integers(0, n_clusters, k_draw)      # whole clusters, with replacement
                units, counts = per[pick], np.full(k_draw, size)
                kx, ky = capa_from_sums(units.sum(0), counts.sum())
                if target == "power":
                    hits.append(abs(kx - ky) / jackknife_se(units, counts, "diff") > Z)
                else:
                    se = jackknife_se(units, counts, "x")
                    widths.append(Z * se)
                    cover.append(abs(kx - true_kx) <= Z * se)
            if target == "power":
                pw = np.mean(hits)
                rows.append(("CAPA difference (Wald, pilot)", f"cluster sd {cluster_sd}", round(icc, 3), size, 0.0,
                             float(plan.design_effect), n, "power 0.8", pw, np.sqrt(pw * (1 - pw) / R)))
            else:
                rows.append(("CAPA half-width (pilot)", f"cluster sd {cluster_sd}, κ_p={float(hw.statistic):.3f}",
                             round(icc_x, 3), size, 0.0, float(hw.design_effect), n, "half-width 0.02",
                             np.mean(widths), np.std(widths) / np.sqrt(R)))
                rows.append(("CAPA coverage", "", round(icc_x, 3), size, 0.0, float(hw.design_effect), n, "coverage 0.95",
                             np.mean(cover), np.sqrt(0.95 * 0.05 / R)))


def ec_study(R, g, rows):
    args = (0.5, 0.3, 0.75, 0.75, 0.75)
    p = joint_cells(*args).ravel()
    for icc, m in ((0.0, 1), (0.1, 10), (0.3, 5), (0.5, 5)):
        plan = tw.planning.power_difference(*args, cluster_size=m, icc=icc, rng=g)
        n = int(plan.n)
        k = int(np.ceil(n / m))
        hits = []
        for _ in range(R):
            cells, codes = clustered(g, p, np.full(k, m), icc)
            per = np.zeros((k, 8))
            np.add.at(per, codes, cells)
            c = per.reshape(k, 2, 2, 2)

            def diff(t):
                tot = t.sum(axis=(-1, -2, -3))

                def kap(tab):
                    q = tab / tot[..., None, None]
                    pa, pb = q[..., 0, :].sum(-1), q[..., :, 0].sum(-1)
                    ex = pa * pb + (1 - pa) * (1 - pb)
                    return (q[..., 0, 0] + q[..., 1, 1] - ex) / (1 - ex)

                return kap(t.sum(-1)) - kap(t.sum(-2))

            loo = diff(c.sum(0) - c)
            se = np.sqrt((k - 1) / k * np.sum((loo - loo.mean()) ** 2))
            hits.append(abs(diff(c.sum(0))) / se > Z)
        pw = np.mean(hits)
        rows.append(("EC difference (power_difference)", "κ 0.5 vs 0.3, acc 0.75", icc, m, 0.0, 1 + (m - 1) * icc, n,
                     "power 0.8", pw, np.sqrt(pw * (1 - pw) / R)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--R", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--quick", action="store_true", help="R = 100, fewer simulations (a smoke run)")
    args = ap.parse_args()
    R = 100 if args.quick else args.R
    g = np.random.default_rng(args.seed)
    rows: list = []
    t0 = time.time()
    accuracy_study(R, g, rows)
    half_width_study(R, g, rows)
    ec_study(max(R // 2, 50), g, rows)
    capa_study(max(R // 2, 50), g, rows, 1000 if args.quick else 2000)
    print(f"R = {R} (EC and CAPA: {max(R // 2, 50)}), seed {args.seed}, {time.time() - t0:.0f} s\n")
    print("| statistic | design | ICC | m̄ | cv | DE | planned n | target | achieved | MC SE |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:g} | {r[3]} | {r[4]:g} | {r[5]:.2f} | {r[6]} | {r[7]} | {r[8]:.3f} | {r[9]:.3f} |")


if __name__ == "__main__":
    main()
