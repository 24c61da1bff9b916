"""Does a duplicated image in a bootstrap replicate of tw.brainscore.i2n act like one image? (issue 19)

24 objects × 10 images × 100 trials (similarity 0.6, object_seed 7): 15 data sets (rng r) ×
15 replicates (images within objects); the (raw, ceiling, unclipped score) of the replicate with
its duplicates and of the replicate's distinct images only, each minus the data's value (10
random half splits, kept with each image). python benchmarks/diagnostics/i2n_duplicates.py
"""
import numpy as np
import trialwise as tw
from trialwise.brainscore import image_level as M
kw = dict(n_objects=24, trials_per_image=100, similarity=0.6, object_seed=7)
opts = dict(collapse=False, kway_rate="share", correction="none", ceiling_method="split-half", clip=False)
diff_dup, diff_uni = [], []
for r in range(15):
    p, t = tw.brainscore.synthetic_2afc(images_per_object=10, rng=r, **kw)
    d = M._prepare(p, t, "share"); g = np.random.default_rng(r)
    obs = [(*M._half_counts(d, h), *M._half_counts(d, ~h)) for h in (g.permutation(d.row.size) < d.row.size // 2 for _ in range(10))]
    full = np.array(M._one(d, d.model_rates, d.truth, obs, **opts))
    for b in range(15):
        img = np.concatenate([g.choice(np.flatnonzero(d.truth == k), 10) for k in range(24)])
        uni = np.unique(img)
        for idx, out in ((img, diff_dup), (uni, diff_uni)):
            out.append(np.array(M._one(d, d.model_rates[idx], d.truth[idx], [tuple(x[idx] for x in s) for s in obs], **opts)) - full)
print("mean theta*(with duplicates) - theta_hat", np.round(np.mean(diff_dup, 0), 4))
print("mean theta(distinct images only) - theta_hat", np.round(np.mean(diff_uni, 0), 4))
