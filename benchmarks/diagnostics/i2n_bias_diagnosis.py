"""Why the bootstrap intervals of tw.brainscore.i2n under-covered (issue 19): sampling vs replicate distributions.

For K objects × m images × n trials (similarity 0.6, object_seed 7, n_splits 10): the truth
(the estimator on 400 images per object, mean of 2 draws), the mean and SD of the estimates
over R experiments (data rng r), and for the first NJ of them the bootstrap's mean shift and
SD (B replicates) and the jackknife over images (the unstratified bias (N − 1)(θ̄_(·) − θ̂),
the stratified one of i2n, which with equal strata is exactly K(m − 1)/(Km − 1) times it, and
the unstratified SE).

    python benchmarks/diagnostics/i2n_bias_diagnosis.py 24 10 100 100 100 30
    python benchmarks/diagnostics/i2n_bias_diagnosis.py 8 10 60 200 200 40

benchmarks/diagnostics/i2n_duplicates.py: duplicated images vs distinct images in a replicate.
"""
import sys, time
import numpy as np
import trialwise as tw
from trialwise.brainscore import image_level as M

K, m, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
R = int(sys.argv[4]); B = int(sys.argv[5]); NJ = int(sys.argv[6])
kw = dict(n_objects=K, trials_per_image=n, similarity=0.6, object_seed=7)
t0 = time.time()
bigs = []
for s in range(2):
    # the truth is a point value, which does not depend on B (2: the fewest replicates allowed)
    big = tw.brainscore.i2n(*tw.brainscore.synthetic_2afc(images_per_object=400, rng=20261123 + s, **kw), n_splits=10, n_resamples=2, rng=1)
    bigs.append([big.raw, big.ceiling.statistic, big.score])
print("truth(400 img) two draws", np.round(bigs, 4).tolist(), f"{time.time()-t0:.0f}s", flush=True)
opts = dict(collapse=False, kway_rate="share", correction="none", ceiling_method="split-half", clip=True)
est, bmean, bsd, jbias, jse = [], [], [], [], []
for r in range(R):
    p, t = tw.brainscore.synthetic_2afc(images_per_object=m, rng=r, **kw)
    res = tw.brainscore.i2n(p, t, n_splits=10, n_resamples=B if r < NJ else 2, rng=r)
    th = np.array([res.raw, res.ceiling.statistic, res.score]); est.append(th)
    if r < NJ:
        D = np.stack([res.raw_distribution, res.ceiling.bootstrap_distribution, res.bootstrap_distribution], 1)
        bmean.append(np.nanmean(D, 0) - th); bsd.append(np.nanstd(D, 0))
        d = M._prepare(p, t, "share")
        g = np.random.default_rng(r)
        halves = [g.permutation(d.row.size) < d.row.size // 2 for _ in range(10)]
        obs = [(*M._half_counts(d, h), *M._half_counts(d, ~h)) for h in halves]
        N = d.images.size
        jk = np.empty((N, 3))
        full = np.array(M._one(d, d.model_rates, d.truth, obs, **opts))
        for i in range(N):
            keep = np.arange(N) != i
            jk[i] = M._one(d, d.model_rates[keep], d.truth[keep], [tuple(x[keep] for x in s) for s in obs], **opts)
        jb = (N - 1) * (jk.mean(0) - full)
        jbias.append(jb); jse.append(np.sqrt((N - 1) / N * ((jk - jk.mean(0)) ** 2).sum(0)))
    if r % 20 == 19: print(r + 1, f"{time.time()-t0:.0f}s", flush=True)
est = np.array(est)
print(f"K={K} m={m} n={n} R={R} B={B} NJ={NJ}")
print("truth(400)          ", np.round(np.mean(bigs, 0), 4))
print("mean est (m imgs)   ", np.round(est.mean(0), 4), " MC SE", np.round(est.std(0) / np.sqrt(R), 4))
print("sampling SD         ", np.round(est.std(0, ddof=1), 4))
print("boot mean-est (avg) ", np.round(np.mean(bmean, 0), 4))
print("boot SD (avg)       ", np.round(np.mean(bsd, 0), 4), " SD of bootSD", np.round(np.std(bsd, 0), 4))
print("jack bias (avg)     ", np.round(np.mean(jbias, 0), 4))
print("jack bias, stratified", np.round(np.mean(jbias, 0) * K * (m - 1) / (K * m - 1), 4))
print("jack SE (avg)       ", np.round(np.mean(jse, 0), 4))
