"""Benchmark-level tests of 'equal score of x and y' (error consistency, model-vs-human averaging).

Own fast simulator (numpy), mirroring trialwise's hierarchy: score(m) = mean over conditions of
mean over humans of Cohen's kappa on correctness (on the items the human saw); NaN kappas dropped
(nanmean), as the library's aggregate. Joint bootstrap: items resampled within condition, same
weights for every observer. Swap: x/y responses swapped per item w.p. 1/2.
"""
import numpy as np, sys, time, json
from scipy.optimize import brentq
from scipy.stats import norm

PI = None  # easy shares per condition, set by design


def lc_kappa(pi, p, q):
    if np.ndim(pi) > 0:
        pi, p, q = (np.asarray(x, float) for x in (pi, p, q))
        a = pi @ p; b = pi @ q; p11 = pi @ (p * q)
        return 2 * (p11 - a * b) / (a * (1 - b) + b * (1 - a))
    a = pi * p[0] + (1 - pi) * p[1]; b = pi * q[0] + (1 - pi) * q[1]
    p11 = pi * p[0] * q[0] + (1 - pi) * p[1] * q[1]
    return 2 * (p11 - a * b) / (a * (1 - b) + b * (1 - a))


def true_score(obs, humans, pis):
    return float(np.mean([np.mean([lc_kappa(pi, obs, h) for h in humans]) for pi in pis]))


def humans_for(ref):
    pbar = 0.65
    pe = 0.995 if ref >= 0.9 else 0.95
    ph = (ref - pbar * pe) / (1 - pbar)
    off = np.array([-2, -1, 0, 1, 2]) * (0.015 if ref >= 0.9 else 0.04)
    return [(pe, ph + o) for o in off]


def model_for(acc, score, humans, pis, pbar=0.65):
    """(p_easy, p_hard) with mean accuracy acc and true score `score`."""
    dmax = min(acc / pbar, (1 - acc) / (1 - pbar)) - 1e-9
    f = lambda d: true_score((acc - pbar * d + d, acc - pbar * d), humans, pis) - score
    d = brentq(f, 0.0, dmax)
    return (acc - pbar * d + d, acc - pbar * d)


def max_score(acc, humans, pis, pbar=0.65):
    dmax = min(acc / pbar, (1 - acc) / (1 - pbar)) - 1e-9
    return true_score((acc - pbar * dmax + dmax, acc - pbar * dmax), humans, pis)


def kappa(n, n11, ca, cb):
    N = 2 * (n * n11 - ca * cb); D = n * (ca + cb) - 2 * ca * cb
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(D > 0, N / np.where(D > 0, D, 1), np.nan), N, D


def kgrad(n, n11, ca, cb, N, D):
    with np.errstate(invalid="ignore", divide="ignore"):
        D2 = D * D
        gn = (2 * n11 * D - N * (ca + cb)) / D2
        g11 = 2 * n / D
        gca = (-2 * cb * D - N * (n - 2 * cb)) / D2
        gcb = (-2 * ca * D - N * (n - 2 * ca)) / D2
    return gn, g11, gca, gcb


def one_dataset(g, pis, humans, mx, my, n, B, M, k_seen=None, do_swap=True):
    H = len(humans)
    obs = np.array(list(humans) + [mx, my])  # (H+2, 2)
    C = len(pis)
    kap = np.empty((B + 1, C, 2, H))
    U_list, W_list, sums_list = [], [], []
    swapd = np.zeros((M, C, 2, H, 4)) if do_swap else None
    tim = dict(boot=0.0, ij=0.0, swap=0.0)
    for c, pi in enumerate(pis):
        t0 = time.perf_counter()
        if np.ndim(pi) == 0:
            z = g.random(n) < pi
            prob = np.where(z[None, :], obs[:, :1], obs[:, 1:])
        else:  # K latent classes with shares pi
            z = np.minimum(np.searchsorted(np.cumsum(pi), g.random(n)), len(pi) - 1)
            prob = obs[:, z]
        R = (g.random(prob.shape) < prob).astype(np.float64)  # (H+2, n)
        S = np.ones((H, n))
        if k_seen is not None:
            S[:] = 0
            picks = np.argsort(g.random((H, n)), axis=1)[:, :k_seen]
            np.put_along_axis(S, picks, 1.0, axis=1)
        rh = R[:H]
        # U columns: index [model(2), human(H), stat(4: n, n11, ca, cb)]
        U = np.empty((n, 2, H, 4))
        for m in range(2):
            rm = R[H + m]
            U[:, m, :, 0] = S.T
            U[:, m, :, 1] = (S * rh * rm).T
            U[:, m, :, 2] = (S * rm).T
            U[:, m, :, 3] = (S * rh).T
        U2 = U.reshape(n, -1)
        W = np.vstack([np.ones(n), g.multinomial(n, np.full(n, 1.0 / n), size=B).astype(np.float64)])
        sums = (W @ U2).reshape(B + 1, 2, H, 4)
        kap[:, c], _, _ = kappa(*np.moveaxis(sums, -1, 0))
        tim["boot"] += time.perf_counter() - t0
        U_list.append(U2); W_list.append(W); sums_list.append(sums)
        if do_swap:
            t0 = time.perf_counter()
            dr = R[H] - R[H + 1] * 0 - R[H]  # placeholder overwritten below
            dr = R[H + 1] - R[H]  # y - x
            cols = np.concatenate([(S * dr).T, (S * dr * rh).T], axis=1)  # (n, 2H): d ca, d n11
            bits = g.integers(0, 2, size=(M, n)).astype(np.float32)
            ch = (bits @ cols.astype(np.float32)).astype(np.float64)  # (M, 2H)
            base = sums[0]  # (2, H, 4)
            sx = np.broadcast_to(base[0], (M, H, 4)).copy(); sy = np.broadcast_to(base[1], (M, H, 4)).copy()
            sx[:, :, 2] += ch[:, :H]; sx[:, :, 1] += ch[:, H:]
            sy[:, :, 2] -= ch[:, :H]; sy[:, :, 1] -= ch[:, H:]
            swapd[:, c, 0] = sx; swapd[:, c, 1] = sy
            tim["swap"] += time.perf_counter() - t0
    # aggregation weights (nanmean over humans, then conditions), per replicate and model
    t0 = time.perf_counter()
    V = np.isfinite(kap)
    nh = V.sum(-1)  # (B+1, C, 2)
    cdef = (nh > 0).sum(1)  # (B+1, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        wgt = V / np.where(nh > 0, nh, 1)[..., None] / np.where(cdef > 0, cdef, 1)[:, None, :, None]
    score = np.where(cdef > 0, np.sum(np.where(V, kap, 0) * wgt, axis=(1, 3)), np.nan)  # (B+1, 2)
    delta = score[:, 0] - score[:, 1]
    tim["boot"] += time.perf_counter() - t0
    # IJ variance of delta, on data (row 0) and on every replicate
    t0 = time.perf_counter()
    var = np.zeros(B + 1); varx = np.zeros(B + 1); vary = np.zeros(B + 1)
    sign = np.array([1.0, -1.0])[None, :, None]
    for c in range(C):
        s = sums_list[c]
        kk, N, D = kappa(*np.moveaxis(s, -1, 0))
        gr = np.stack(kgrad(*np.moveaxis(s, -1, 0), N, D), axis=-1)  # (B+1, 2, H, 4)
        cw = (wgt[:, c] * sign)[..., None]
        G = np.where(np.isfinite(gr) & V[:, c][..., None], gr, 0.0) * cw
        d = G.reshape(B + 1, -1) @ U_list[c].T  # (B+1, n)
        var += np.einsum("bi,bi->b", W_list[c], d * d)
        half = G.shape[2] * G.shape[3]
        Gr = G.reshape(B + 1, 2, -1); Ur = U_list[c].reshape(n, 2, -1)
        dx = Gr[:, 0] @ Ur[:, 0].T; dy = Gr[:, 1] @ Ur[:, 1].T
        varx += np.einsum("bi,bi->b", W_list[c], dx * dx); vary += np.einsum("bi,bi->b", W_list[c], dy * dy)
    se = np.sqrt(var); sex = np.sqrt(varx); sey = np.sqrt(vary)
    tim["ij"] += time.perf_counter() - t0
    sw = None
    if do_swap:
        t0 = time.perf_counter()
        ks, _, _ = kappa(*np.moveaxis(swapd, -1, 0))  # (M, C, 2, H)
        Vs = np.isfinite(ks); nhs = Vs.sum(-1); cds = (nhs > 0).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ws = Vs / np.where(nhs > 0, nhs, 1)[..., None] / np.where(cds > 0, cds, 1)[:, None, :, None]
        ss = np.sum(np.where(Vs, ks, 0) * ws, axis=(1, 3))
        sw = ss[:, 0] - ss[:, 1]
        tim["swap"] += time.perf_counter() - t0
    return delta, se, sw, tim, score, sex, sey


def pvalues(delta, se, sw):
    d0, db = delta[0], delta[1:]
    s0, sb = se[0], se[1:]
    ok = np.isfinite(db)
    db_ok = db[ok]
    Bv = db_ok.size
    out = {}
    if sw is not None:
        s = sw[np.isfinite(sw)]
        out["swap"] = (1 + np.sum(np.abs(s) >= abs(d0) - 1e-12)) / (1 + s.size)
    tail = min(np.sum(db_ok <= 0), np.sum(db_ok >= 0))
    out["pct"] = min(1.0, 2 * (1 + tail) / (1 + Bv))
    sd = np.std(db_ok, ddof=1)
    out["wald_bsd"] = 2 * norm.sf(abs(d0) / sd)
    out["wald_ij"] = 2 * norm.sf(abs(d0) / s0) if s0 > 0 else 1.0
    out["centred"] = (1 + np.sum(np.abs(db_ok - d0) >= abs(d0))) / (1 + Bv)
    okt = ok & (sb > 0)
    t = (db[okt] - d0) / sb[okt]
    t0 = d0 / s0 if s0 > 0 else 0.0
    out["boot_t_sym"] = (1 + np.sum(np.abs(t) >= abs(t0))) / (1 + t.size)
    out["boot_t_eq"] = min(1.0, 2 * (1 + min(np.sum(t >= t0), np.sum(t <= t0))) / (1 + t.size))
    m = db_ok.mean(); bc = 2 * d0 - m  # bootstrap bias-corrected estimate
    out["wald_bc"] = 2 * norm.sf(abs(bc) / sd)
    sh = db_ok - 2 * (m - d0)  # bootstrap distribution re-centred at the bias-corrected estimate
    out["pct_bc"] = min(1.0, 2 * (1 + min(np.sum(sh <= 0), np.sum(sh >= 0))) / (1 + Bv))
    out["boot_t_bc"] = (1 + np.sum(np.abs((db[okt] - m) / sb[okt]) >= abs(bc / s0 if s0 > 0 else 0))) / (1 + t.size)
    out["_bias"] = m - d0
    return out
