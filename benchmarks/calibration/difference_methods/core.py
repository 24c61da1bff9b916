"""Vectorised kernels for the H0: kappa_RX = kappa_RY study (issue 16, item 1).

Cells flattened to (..., 8), index r*4 + x*2 + y, 0 = correct (same order as
trialwise's (2,2,2) table reshaped).
"""
import numpy as np

Z975 = 1.959963984540054


def margins(c):
    """(a,b,c,d) of the RX and RY 2x2 tables; a = both correct."""
    rx = (c[..., 0] + c[..., 1], c[..., 2] + c[..., 3], c[..., 4] + c[..., 5], c[..., 6] + c[..., 7])
    ry = (c[..., 0] + c[..., 2], c[..., 1] + c[..., 3], c[..., 4] + c[..., 6], c[..., 5] + c[..., 7])
    return rx, ry


def kap(a, b, c, d):
    num = 2.0 * (a * d - b * c)
    den = (a + b) * (b + d) + (a + c) * (c + d)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def kgrad(a, b, c, d):
    """d kappa / d (a,b,c,d) for proportions (sum 1)."""
    num = 2.0 * (a * d - b * c)
    den = (a + b) * (b + d) + (a + c) * (c + d)
    dn = (2 * d, -2 * c, -2 * b, 2 * a)
    dd = ((b + d) + (c + d), (b + d) + (a + b), (a + c) + (c + d), (a + b) + (a + c))
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = den > 0
        dsafe = np.where(ok, den, 1.0)
        return tuple(np.where(ok, (x * dsafe - num * y) / dsafe**2, np.nan) for x, y in zip(dn, dd))


def delta(c):
    rx, ry = margins(np.asarray(c, dtype=float))
    return kap(*rx) - kap(*ry)


def grad_delta(p):
    """Gradient of Delta over the 8 cell proportions, shape (..., 8)."""
    rx, ry = margins(p)
    gx, gy = kgrad(*rx), kgrad(*ry)
    # cell (r,x,y): RX cell index r*2+x ; RY cell index r*2+y
    out = np.empty(p.shape, dtype=float)
    for r in (0, 1):
        for x in (0, 1):
            for y in (0, 1):
                out[..., r * 4 + x * 2 + y] = gx[r * 2 + x] - gy[r * 2 + y]
    return out


def props(c, smooth=0.0):
    c = np.asarray(c, dtype=float) + smooth
    return c / c.sum(axis=-1, keepdims=True)


def delta_var(c, smooth=0.0):
    """Delta (from the smoothed proportions) and its delta-method variance /n (n = raw count)."""
    c = np.asarray(c, dtype=float)
    n = c.sum(axis=-1)
    p = props(c, smooth)
    g = grad_delta(p)
    first = (g * p).sum(-1)
    var = ((g**2) * p).sum(-1) - first**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return delta(p), var / n


def var_at(p, n):
    g = grad_delta(p)
    first = (g * p).sum(-1)
    return (((g**2) * p).sum(-1) - first**2) / n


def fit_h0(c, smooth=0.0, iters=60, tol=1e-10):
    """H0 point nearest to the (smoothed) empirical distribution in KL(p||p_hat):
    p = p_hat * exp(-t g(p)) / Z with Delta(p) = 0 (exponential tilting along the
    gradient of Delta; the stationarity condition of min KL(p||p_hat) s.t. Delta(p) = 0).
    Returns p (..., 8) and max |Delta| reached."""
    ph = props(c, smooth)
    logph = np.log(np.where(ph > 0, ph, 1.0))
    mask = ph > 0
    p = ph.copy()
    t = np.zeros(ph.shape[:-1])
    for _ in range(iters):
        d = delta(p)
        g = grad_delta(p)
        g = np.where(np.isfinite(g), g, 0.0)
        s2 = (p * g**2).sum(-1) - ((p * g).sum(-1)) ** 2
        done = ~np.isfinite(d) | (np.abs(d) < tol) | (s2 <= 1e-300)
        if done.all():
            break
        step = np.where(done, 0.0, d / np.where(s2 > 0, s2, 1.0))
        # damp large steps
        step = np.clip(step, -50, 50)
        t = t + step
        lp = np.where(mask, logph - t[..., None] * g, -np.inf)
        lp -= lp.max(-1, keepdims=True)
        q = np.exp(lp)
        q /= q.sum(-1, keepdims=True)
        p = np.where(done[..., None], p, q)
    return p, np.nanmax(np.abs(delta(p)))


def multinom(rng, n, p, size):
    """size + p.shape counts; p (..., 8) rows sum to 1."""
    p = np.clip(p, 0, None)
    p = p / p.sum(-1, keepdims=True)
    return rng.multinomial(n, p, size=size)


def swapped(c, rng, m):
    """Swap X and Y on each item w.p. 1/2; c (D,8) -> (m,D,8)."""
    c = np.asarray(c)
    out = np.broadcast_to(c, (m,) + c.shape).copy()
    for r in (0, 1):
        i10, i01 = r * 4 + 1, r * 4 + 2   # (x=0,y=1) = X right Y wrong ; (x=1,y=0)
        d10, d01 = c[..., i10], c[..., i01]
        s = rng.binomial(np.broadcast_to(d10, (m,) + d10.shape), 0.5) + \
            rng.binomial(np.broadcast_to(d01, (m,) + d01.shape), 0.5)
        out[..., i10] = s
        out[..., i01] = d10 + d01 - s
    return out


def dirichlet(rng, alpha, m):
    g = rng.standard_gamma(np.broadcast_to(alpha, (m,) + alpha.shape))
    return g / g.sum(-1, keepdims=True)


def mc_p(tobs, tstar):
    """two-sided MC p-value, NaN replicates dropped; tobs (D,), tstar (M,D)."""
    ok = np.isfinite(tstar)
    ge = (np.abs(np.where(ok, tstar, 0)) >= np.abs(tobs) - 1e-12) & ok
    return (1 + ge.sum(0)) / (1 + ok.sum(0))


def hess_delta(p, h=1e-6):
    """Numerical Hessian of Delta over the 8 proportions (..., 8, 8)."""
    H = np.empty(p.shape + (8,))
    for j in range(8):
        e = np.zeros(8); e[j] = h
        H[..., j] = (grad_delta(p + e) - grad_delta(p - e)) / (2 * h)
    return H


def fit_h0_mle(c, smooth=0.0, iters=50, tol=1e-10, delta0=0.0, start=None):
    """Constrained MLE of the 8 cells under Delta(p) = 0 (Newton on the KKT system
    n_i - p_i (N + lam g_i(p)) = 0, Delta(p) = 0), counts smoothed by `smooth`.
    Returns p, converged mask."""
    cc = np.asarray(c, dtype=float) + smooth
    N = cc.sum(-1)
    p = cc / N[..., None] if start is None else start.copy()
    lam = np.zeros(N.shape)
    delta0 = np.broadcast_to(np.asarray(delta0, dtype=float), N.shape)
    def F(p, lam):
        g = grad_delta(p)
        g = np.where(np.isfinite(g), g, 0.0)
        f = cc - p * (N[..., None] + lam[..., None] * g)
        return np.concatenate([f, (delta(p) - delta0)[..., None] * N[..., None]], -1), g
    f, g = F(p, lam)
    for it in range(iters):
        norm = np.sqrt((f**2).sum(-1))
        bad = ~np.isfinite(norm)
        act = (norm > tol * N) & ~bad
        if not act.any():
            break
        H = np.where(np.isfinite(hess_delta(p)), hess_delta(p), 0.0)
        J = np.zeros(p.shape[:-1] + (9, 9))
        J[..., :8, :8] = -np.eye(8) * (N[..., None] + lam[..., None] * g)[..., None, :] * 1.0
        J[..., :8, :8] = -(np.eye(8) * (N[..., None] + lam[..., None] * g)[..., :, None]) - p[..., :, None] * lam[..., None, None] * H
        J[..., :8, 8] = -p * g
        J[..., 8, :8] = g * N[..., None]
        J[..., 8, 8] = 0.0
        # regularise singular ones
        J[..., 8, 8] = -1e-12 * N
        with np.errstate(all="ignore"):
            try:
                step = np.linalg.solve(J, -f[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = np.zeros_like(f)
                for k in np.ndindex(J.shape[:-2]):
                    try:
                        step[k] = np.linalg.solve(J[k], -f[k])
                    except np.linalg.LinAlgError:
                        pass
        step = np.where(np.isfinite(step), step, 0.0)
        # step length: keep p >= 0 (zero cells stay), halve until norm decreases
        a = np.ones(N.shape)
        dp = step[..., :8]
        with np.errstate(all="ignore"):
            ratio = np.where(dp < 0, -p / dp, np.inf)
        amax = np.minimum(1.0, 0.95 * ratio.min(-1))
        a = np.where(act, amax, 0.0)
        newp, newl = p, lam
        for _ in range(20):
            cand_p = p + a[..., None] * dp
            cand_l = lam + a * step[..., 8]
            cf, cg = F(cand_p, cand_l)
            cn = np.sqrt((cf**2).sum(-1))
            ok = np.isfinite(cn) & (cn < norm)
            if ok.all() or (~act | ok).all():
                break
            a = np.where(ok | ~act, a, a / 2)
        upd = act & ok
        p = np.where(upd[..., None], cand_p, p)
        lam = np.where(upd, cand_l, lam)
        f, g = F(p, lam)
    p = np.clip(p, 0, None)
    p = p / p.sum(-1, keepdims=True)
    return p, np.abs(delta(p) - delta0) < 1e-6


def restricted_wald_stat(c, delta0=0.0, smooth=0.5):
    """(Delta_hat - delta0) / se(p_tilde): se from the constrained MLE p_tilde of the
    smoothed counts under Delta = delta0 (Miettinen-Nurminen style)."""
    c = np.asarray(c, dtype=float)
    n = c.sum(-1)
    p0, ok = fit_h0_log(c, smooth, delta0=delta0)
    with np.errstate(all="ignore"):
        z = (delta(c) - delta0) / np.sqrt(var_at(p0, n))
    return np.where(ok, z, np.nan), p0


def restricted_wald_ci(c, z=Z975, smooth=0.5, iters=22):
    """Invert the restricted Wald test: {d0 : |Delta_hat - d0| <= z se(p_tilde(d0))}.
    Bisection on each side; a failed fit counts as 'reject'."""
    c = np.asarray(c, dtype=float)
    d = delta(c)
    _, v = delta_var(c, 0.5)
    se = np.sqrt(v)
    ends = []
    for sign in (-1, 1):
        inside = d.copy()                   # accepted
        outside = np.clip(d + sign * 8 * se, -1.999, 1.999)   # hopefully rejected
        for _ in range(iters):
            mid = 0.5 * (inside + outside)
            zz, _ = restricted_wald_stat(c, mid, smooth)
            acc = np.abs(zz) <= z
            inside = np.where(acc, mid, inside)
            outside = np.where(acc, outside, mid)
        ends.append(0.5 * (inside + outside))
    return ends[0], ends[1]


def pair_cells(k, aR, aO):
    """2x2 [[p11,p10],[p01,p00]] (reference rows) with accuracies aR, aO and kappa k."""
    D = aR * (1 - aO) + aO * (1 - aR)
    p11 = aR * aO + k * D / 2
    return np.array([[p11, aR - p11], [aO - p11, 1 - aR - aO + p11]])


def joint_cells(kX, kY, aR, aX, aY):
    """Triplet (r,x,y) cells, flattened to 8: X and Y copy R independently given R
    (same construction as trialwise.planning joint_cells / _joint_cells)."""
    px, py = pair_cells(kX, aR, aX), pair_cells(kY, aR, aY)
    pr = px.sum(1)
    return (px[:, :, None] * py[:, None, :] / pr[:, None, None]).reshape(8)


def feasible(aR, a, k, tol=1e-12):
    return bool((pair_cells(k, aR, a) >= -tol).all())


def fit_h0_log(c, smooth=0.5, iters=80, tol=1e-9, delta0=0.0):
    """Constrained MLE under Delta(p) = delta0, Newton in theta = log p (smooth > 0 needed).
    KKT: cc_i/p_i - N - lam g_i(p) = 0 (i = 1..8), Delta(p) - delta0 = 0.
    Merit: ||F||; backtracking. Returns p, converged."""
    cc = np.asarray(c, dtype=float) + smooth
    N = cc.sum(-1)
    th = np.log(cc / N[..., None])
    lam = np.zeros(N.shape)
    delta0 = np.broadcast_to(np.asarray(delta0, dtype=float), N.shape)

    def F(th, lam):
        p = np.exp(th)
        g = grad_delta(p)
        g = np.where(np.isfinite(g), g, 0.0)
        f = (cc / p - N[..., None] - lam[..., None] * g) / N[..., None]
        return np.concatenate([f, (delta(p) - delta0)[..., None]], -1), g, p

    f, g, p = F(th, lam)
    norm = np.sqrt((f**2).sum(-1))
    eye = np.eye(8)
    for it in range(iters):
        act = np.isfinite(norm) & (norm > tol)
        if not act.any():
            break
        H = hess_delta(p)
        H = np.where(np.isfinite(H), H, 0.0)
        J = np.zeros(p.shape[:-1] + (9, 9))
        # d f_i / d th_j = [-cc_i/p_i * delta_ij - lam H_ij p_j] / N
        J[..., :8, :8] = (-(eye * (cc / p)[..., :, None]) - lam[..., None, None] * H * p[..., None, :]) / N[..., None, None]
        J[..., :8, 8] = -g / N[..., None]
        J[..., 8, :8] = g * p
        J[..., 8, 8] = -1e-14
        with np.errstate(all="ignore"):
            try:
                step = np.linalg.solve(J, -f[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = np.zeros_like(f)
        step = np.where(np.isfinite(step), step, 0.0)
        # cap step in theta
        mx = np.abs(step[..., :8]).max(-1)
        a = np.where(act, np.minimum(1.0, 2.0 / np.maximum(mx, 1e-300)), 0.0)
        for _ in range(25):
            th_c = th + a[..., None] * step[..., :8]
            th_c = th_c - np.log(np.exp(th_c).sum(-1, keepdims=True))   # renormalise
            l_c = lam + a * step[..., 8]
            f_c, g_c, p_c = F(th_c, l_c)
            n_c = np.sqrt((f_c**2).sum(-1))
            ok = np.isfinite(n_c) & (n_c < norm * (1 - 1e-4 * a))
            if (ok | ~act).all():
                break
            a = np.where(ok | ~act, a, a / 2)
        upd = act & ok
        th = np.where(upd[..., None], th_c, th)
        lam = np.where(upd, l_c, lam)
        f = np.where(upd[..., None], f_c, f); g = np.where(upd[..., None], g_c, g); p = np.where(upd[..., None], p_c, p)
        norm = np.where(upd, n_c, norm)
        if not upd.any():
            break
    return p, np.abs(delta(p) - delta0) < 1e-6


def _plackett(pa, pb, psi):
    """P(A=0,B=0) of binary A,B with P(A=0)=pa, P(B=0)=pb and odds ratio psi."""
    if abs(psi - 1) < 1e-12:
        return pa * pb
    s = 1 + (pa + pb) * (psi - 1)
    return (s - np.sqrt(s * s - 4 * psi * (psi - 1) * pa * pb)) / (2 * (psi - 1))


def joint_cells_or(kX, kY, aR, aX, aY, psi=1.0):
    """As joint_cells but X and Y have conditional odds ratio psi given R (psi = 1: independent)."""
    px, py = pair_cells(kX, aR, aX), pair_cells(kY, aR, aY)
    out = np.zeros((2, 2, 2))
    for r in (0, 1):
        pr = px[r].sum()
        a, b = px[r, 0] / pr, py[r, 0] / pr        # P(X correct | r), P(Y correct | r)
        p00 = _plackett(a, b, psi)
        out[r] = pr * np.array([[p00, a - p00], [b - p00, 1 - a - b + p00]])
    return out.reshape(8)
