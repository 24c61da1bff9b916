import pandas as pd, glob, sys
pd.set_option('display.width', 250); pd.set_option('display.max_rows', 500); pd.set_option('display.precision', 3)
df = pd.concat([pd.read_csv(f) for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else 'typeI_n*.csv'))])
df['unequal'] = df.aX != df.aY
lim = 0.05 + 3 * (0.05 * 0.95 / 2000) ** 0.5
def worst(g):
    i = g.reject.idxmax() if False else g.reject.values.argmax()
    r = g.iloc[i]
    out = dict(points=len(g), min=g.reject.min(), median=g.reject.median(), max=g.reject.max(),
               n_over=(g.reject > lim).sum(), worst=f"n{r.n} R{r.aR} X{r.aX} Y{r.aY} k{r.kX}",
               ms=g.ms_per_test.median())
    if g.coverage.notna().any():
        j = g.coverage.values.argmin(); rc = g.iloc[j]
        out.update(cov_min=g.coverage.min(), cov_med=g.coverage.median(), cov_worst=f"n{rc.n} R{rc.aR} X{rc.aX} Y{rc.aY} k{rc.kX}")
    return pd.Series(out)
print('limit', round(lim, 4))
print(pd.DataFrame({m: worst(g) for m, g in df.groupby('method')}).T.to_string())
print('unequal accuracies only'); print(pd.DataFrame({m: worst(g) for m, g in df[df.unequal].groupby('method')}).T[['max','n_over','worst']].to_string())
