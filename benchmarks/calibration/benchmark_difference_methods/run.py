import numpy as np, sys, time, json, sim, pandas as pd
TESTS = ["swap", "pct", "wald_bsd", "wald_ij", "centred", "boot_t_sym", "boot_t_eq", "wald_bc", "pct_bc", "boot_t_bc"]

def setup3(C, gap, dscore=0.0):
    """3 latent classes (easy, hard, trick): ceiling humans (acc ~0.94) who fail on trick items; high kappa."""
    from scipy.optimize import brentq
    e = np.linspace(0.5, 0.8, C); pis = [np.array([ei, 1 - ei - 0.08, 0.08]) for ei in e]
    hum = [(0.995, 0.97 + o1, 0.4 + o2) for o1, o2 in zip((-0.02, -0.01, 0, 0.01, 0.02), (-0.2, 0.1, 0, -0.1, 0.2))]
    hbar = np.mean(hum, axis=0); pbar = np.mean(pis, axis=0); ah = pbar @ hbar
    def mod(A, s): return tuple(np.clip(A + s * (hbar - ah), 0, 1))
    def smax(A): return min([(1 - A) / (h - ah) for h in hbar if h > ah] + [A / (ah - h) for h in hbar if h < ah]) - 1e-9
    T = 0.8 * min(sim.true_score(mod(A, smax(A)), hum, pis) for A in (0.6, 0.9))
    def solve(A, target): return mod(A, brentq(lambda s: sim.true_score(mod(A, s), hum, pis) - target, 0, smax(A)))
    return pis, hum, solve(0.75 - gap / 2, T), solve(0.75 + gap / 2, T + dscore), T

def setup(ref, C, gap, dscore=0.0):
    if ref == 3: return setup3(C, gap, dscore)
    pis = np.linspace(0.5, 0.8, C)
    hum = sim.humans_for(ref)
    if ref in (0.951, 0.801):  # one human per condition
        hum = sim.humans_for(round(ref, 2))[2:3]
    T = 0.7 * min(sim.max_score(a, hum, pis) for a in (0.6, 0.9))
    mx = sim.model_for(0.75 - gap / 2, T, hum, pis)
    my = sim.model_for(0.75 + gap / 2, T + dscore, hum, pis)
    return pis, hum, mx, my, T

def run_point(ref, n, C, gap, R, B, M, seed, k_seen=None, dscore=0.0):
    pis, hum, mx, my, T = setup(ref, C, gap, dscore)
    ss = np.random.SeedSequence([seed, int(ref*100), n, C, int(gap*100), k_seen or 0, int(dscore*1000)])
    rows = []; tims = {"boot": 0, "ij": 0, "swap": 0}; dl = []; sel = []
    for child in ss.spawn(R):
        g = np.random.default_rng(child)
        # the scores and per-model SEs it also returns are for worst_cells.py
        delta, se, sw, tim = sim.one_dataset(g, pis, hum, mx, my, n, B, M, k_seen=k_seen)[:4]
        for k in tims: tims[k] += tim[k]
        if not np.isfinite(delta[0]):
            continue
        rows.append(sim.pvalues(delta, se, sw)); dl.append(delta[0]); sel.append(se[0])
    P = pd.DataFrame(rows)
    out = []
    for t in TESTS:
        rate = float(np.mean(P[t] <= 0.05)); r = len(P)
        out.append(dict(ref=ref, n=n, C=C, gap=gap, k_seen=k_seen or n, dscore=dscore, test=t, rate=rate,
                        se=np.sqrt(max(rate*(1-rate), 1e-12)/r), R=r, R_drawn=R,
                        acc_x=0.75-gap/2, acc_y=0.75+gap/2, T=T, sd_delta=float(np.std(dl)), mean_delta=float(np.mean(dl)), mean_boot_bias=float(P["_bias"].mean()) if "_bias" in P else np.nan, mean_se_ij=float(np.mean(sel)),
                        t_boot=tims["boot"]/R, t_ij=tims["ij"]/R, t_swap=tims["swap"]/R))
    return out

if __name__ == "__main__":
    which = sys.argv[1]; R = int(sys.argv[2]); B = int(sys.argv[3]); M = B
    out_rows = []
    grid = []
    if which.startswith("size"):
        part = int(which[-1])
        for ref in (0.8, 0.95):
            for n in (40, 160):
                for C in (3, 12):
                    for gap in (0.0, 0.15, 0.3):
                        grid.append(dict(ref=ref, n=n, C=C, gap=gap))
        grid = grid[part::2]
    elif which == "sparse":
        for ref in (0.8, 0.95):
            for C in (3, 12):
                for gap in (0.0, 0.3):
                    grid.append(dict(ref=ref, n=160, C=C, gap=gap, k_seen=60))
    elif which == "power":
        for ds in (0.02, 0.04, 0.06):
            grid.append(dict(ref=0.95, n=160, C=3, gap=0.15, dscore=ds))
            grid.append(dict(ref=0.8, n=160, C=3, gap=0.15, dscore=ds))
    elif which == "bias":
        for ref in (0.8, 0.95):
            for gap in (0.0, 0.3):
                grid.append(dict(ref=ref, n=40, C=12, gap=gap))
    elif which.startswith("rest"):
        part = int(which[-1])
        pts = []
        for ref in (0.95, 0.8):
            for n, C in ((40, 12), (40, 3), (160, 3), (160, 12)):
                for gap in (0.0, 0.15, 0.3):
                    if ref == 0.8 and n == 40 and C == 3: continue
                    if ref == 0.8 and n == 160 and C == 3 and gap == 0.0: continue
                    pts.append(dict(ref=ref, n=n, C=C, gap=gap))
            pts.append(dict(ref=ref, n=160, C=3, gap=0.3, k_seen=60))
            pts.append(dict(ref=ref, n=160, C=3, gap=0.0, k_seen=60))
            pts.append(dict(ref=ref, n=160, C=3, gap=0.15, dscore=0.04))
        # ref 0.8 n=40 C=12 points again (with the bias-corrected variants) go last
        grid = pts[part::2]
    elif which.startswith("hik"):
        part = int(which[-1])
        pts = [dict(ref=3, n=40, C=3, gap=0.3), dict(ref=3, n=40, C=3, gap=0.0), dict(ref=3, n=160, C=3, gap=0.3),
               dict(ref=3, n=40, C=12, gap=0.3), dict(ref=3, n=160, C=3, gap=0.0), dict(ref=3, n=40, C=3, gap=0.15),
               dict(ref=3, n=160, C=3, gap=0.15, dscore=0.04), dict(ref=3, n=40, C=12, gap=0.0),
               dict(ref=3, n=160, C=12, gap=0.3)]
        grid = pts[part::2]
    elif which.startswith("more"):
        part = int(which[-1])
        A = [dict(ref=0.95, n=40, C=12, gap=0.3), dict(ref=0.95, n=40, C=3, gap=0.3),
             dict(ref=0.95, n=160, C=3, gap=0.0, k_seen=60), dict(ref=0.95, n=160, C=3, gap=0.3, k_seen=60),
             dict(ref=3, n=40, C=3, gap=0.3)]
        Bp = [dict(ref=0.95, n=160, C=12, gap=0.3), dict(ref=0.95, n=160, C=12, gap=0.15)]
        grid = A if part == 0 else Bp
    elif which.startswith("oneh"):
        part = int(which[-1])
        pts = [dict(ref=0.951, n=40, C=3, gap=0.3), dict(ref=0.951, n=40, C=12, gap=0.3), dict(ref=0.951, n=160, C=3, gap=0.3),
               dict(ref=0.951, n=160, C=12, gap=0.3), dict(ref=0.951, n=40, C=12, gap=0.0), dict(ref=0.801, n=40, C=12, gap=0.3),
               dict(ref=0.951, n=40, C=12, gap=0.15), dict(ref=0.951, n=160, C=3, gap=0.15, dscore=0.04)]
        grid = pts[part::2]
    seed = 4242 if which.startswith("more") else 2026
    fn = f"res_{which}.csv"
    for pt in grid:
        t0 = time.time()
        out_rows += run_point(R=R, B=B, M=M, seed=seed, **pt)
        pd.DataFrame(out_rows).to_csv(fn, index=False)
        print(pt, f"{time.time()-t0:.0f}s", flush=True)
