"""Type-I error / power / CI coverage of tests of H0: kappa_RX = kappa_RY (issue 16 item 1).

usage: python study.py OUT.csv D M design-spec...
design spec: n,aR,aX,aY,kX,kY   (e.g. 50,0.95,0.65,0.85,0,0)
"""
import sys, time, itertools
import numpy as np
import pandas as pd
import core
from core import joint_cells as _jc


Z = core.Z975
METHODS = ["swap", "wald", "waldJ", "waldH0", "pbootJ", "pboot0", "boott", "boott_et", "perc", "jeff"]


def run_design(n, aR, aX, aY, kX, kY, D, M, rng, methods=METHODS, with_ci=False, psi=1.0):
    cells = core.joint_cells_or(kX, kY, aR, aX, aY, psi)
    true_delta = float(core.delta(cells))
    C = rng.multinomial(n, cells, size=D)
    d_hat = core.delta(C)
    _, v_raw = core.delta_var(C)
    _, v_j = core.delta_var(C, 0.5)
    se_raw, se_j = np.sqrt(np.clip(v_raw, 0, None)), np.sqrt(np.clip(v_j, 0, None))
    undefined = ~np.isfinite(d_hat)
    res, ci, tim = {}, {}, {}
    with np.errstate(all="ignore"):
        t_j = d_hat / se_j
        if "swap" in methods:
            t0 = time.perf_counter()
            S = core.swapped(C, rng, M)
            res["swap"] = core.mc_p(d_hat, core.delta(S)) <= 0.05
            tim["swap"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        res["wald"] = np.abs(d_hat) > Z * se_raw
        ci["wald"] = (d_hat - Z * se_raw, d_hat + Z * se_raw)
        res["waldJ"] = np.abs(t_j) > Z
        ci["waldJ"] = (d_hat - Z * se_j, d_hat + Z * se_j)
        tim["wald"] = tim["waldJ"] = (time.perf_counter() - t0) / 2
        if any(m in methods for m in ("waldH0", "pbootJ")):
            t0 = time.perf_counter()
            zH0, p0 = core.restricted_wald_stat(C, 0.0, 0.5)
            tfit = time.perf_counter() - t0
            nonconv = np.isnan(zH0) & ~undefined
            res["waldH0"] = np.abs(zH0) > Z
            tim["waldH0"] = tfit
            if with_ci:
                t0 = time.perf_counter()
                ci["waldH0"] = core.restricted_wald_ci(C)
                tim["waldH0_ci"] = time.perf_counter() - t0
        if "pbootJ" in methods:
            t0 = time.perf_counter()
            B = core.multinom(rng, n, p0, (M, D))
            dB, vB = core.delta_var(B, 0.5)
            res["pbootJ"] = core.mc_p(t_j, dB / np.sqrt(vB)) <= 0.05
            tim["pbootJ"] = time.perf_counter() - t0 + tfit
        if "pboot0" in methods:
            t0 = time.perf_counter()
            q0, conv0 = core.fit_h0_mle(C, 0.0, iters=30)
            q0 = np.where(conv0[:, None], q0, p0)
            B = core.multinom(rng, n, q0, (M, D))
            dB, vB = core.delta_var(B, 0.5)
            res["pboot0"] = core.mc_p(t_j, dB / np.sqrt(vB)) <= 0.05
            tim["pboot0"] = time.perf_counter() - t0
        if "boott" in methods:
            t0 = time.perf_counter()
            B = core.multinom(rng, n, core.props(C), (M, D))
            dB, vB = core.delta_var(B, 0.5)
            dB_raw = core.delta(B)
            T = (dB_raw - d_hat) / np.sqrt(vB)
            T = np.where(np.isfinite(T), T, np.nan)
            q = np.nanquantile(np.abs(T), 0.95, axis=0)
            ci["boott"] = (d_hat - q * se_j, d_hat + q * se_j)
            res["boott"] = np.abs(t_j) > q
            lo_q, hi_q = np.nanquantile(T, [0.025, 0.975], axis=0)
            ci["boott_et"] = (d_hat - hi_q * se_j, d_hat - lo_q * se_j)
            res["boott_et"] = (ci["boott_et"][0] > 0) | (ci["boott_et"][1] < 0)
            pl, ph = np.nanquantile(dB_raw, [0.025, 0.975], axis=0)
            ci["perc"] = (pl, ph)
            res["perc"] = (pl > 0) | (ph < 0)
            tim["boott"] = tim["boott_et"] = tim["perc"] = time.perf_counter() - t0
        if "jeff" in methods:
            t0 = time.perf_counter()
            P = core.dirichlet(rng, C + 0.5, M)
            dP = core.delta(P)
            jl, jh = np.nanquantile(dP, [0.025, 0.975], axis=0)
            ci["jeff"] = (jl, jh)
            res["jeff"] = (jl > 0) | (jh < 0)
            tim["jeff"] = time.perf_counter() - t0
    rows = []
    for m in methods:
        r = np.where(undefined, False, res[m])
        row = dict(n=n, psi=psi, aR=aR, aX=aX, aY=aY, kX=kX, kY=kY, delta=true_delta, method=m,
                   reject=r.mean(), undefined=undefined.mean(), ms_per_test=1e3 * tim[m] / D)
        if m in ci:
            lo, hi = ci[m]
            cov = (lo <= true_delta + 1e-12) & (hi >= true_delta - 1e-12)
            okd = ~undefined & np.isfinite(lo) & np.isfinite(hi)
            row["coverage"] = cov[okd].mean()
            row["width"] = np.median((hi - lo)[okd])
            row["miss_low"] = (hi < true_delta - 1e-12)[okd].mean()   # interval entirely below truth
            row["miss_high"] = (lo > true_delta + 1e-12)[okd].mean()
        if m == "waldH0":
            row["nonconverged"] = nonconv.mean()
            if "waldH0_ci" in tim:
                row["ci_ms"] = 1e3 * tim["waldH0_ci"] / D
        rows.append(row)
    return rows


feasible = core.feasible


if __name__ == "__main__":
    out, D, M = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with_ci = out.startswith("alt")
    specs = [tuple(float(x) for x in s.split(",")) for s in sys.argv[4:]]
    rng = np.random.default_rng(20240616)
    rows = []
    t0 = time.perf_counter()
    for s in specs:
        n, aR, aX, aY, kX, kY = s[:6]
        psi = s[6] if len(s) > 6 else 1.0
        if not (feasible(aR, aX, kX) and feasible(aR, aY, kY)):
            print("infeasible", s, flush=True)
            continue
        rows += run_design(int(n), aR, aX, aY, kX, kY, D, M, rng, with_ci=with_ci, psi=psi)
        df = pd.DataFrame(rows)
        df.to_csv(out, index=False)
        last = df.iloc[-len(METHODS):]
        print(s, f"{time.perf_counter() - t0:.0f}s", " ".join(f"{m}={r:.3f}" for m, r in zip(last.method, last.reject)),
              flush=True)
