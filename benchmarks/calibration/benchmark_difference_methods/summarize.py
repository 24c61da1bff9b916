import pandas as pd, glob, numpy as np
pd.set_option("display.width", 250); pd.set_option("display.max_rows", 200); pd.set_option("display.max_columns", 30)
A = ["swap", "pct", "centred", "wald_bsd", "wald_ij", "boot_t_sym", "boot_t_eq", "wald_bc", "pct_bc", "boot_t_bc"]
fr = []
for f in glob.glob("res_*.csv"):
    d = pd.read_csv(f); d["B"] = 500 if "B500" in f else 300; d["src"] = f; fr.append(d)
d = pd.concat(fr)
if "dscore" not in d: d["dscore"] = 0.0
d["dscore"] = d.dscore.fillna(0.0)
key = ["ref", "n", "k_seen", "C", "gap", "dscore", "test"]
more = d[d.src.str.contains("more")]; d = d[~d.src.str.contains("more")]
d = d.sort_values("B").drop_duplicates(key, keep="first")  # prefer B=300 rerun (has bc variants)
if len(more):  # pool the extra datasets (other seed) into the same cells
    m = more.set_index(key)[["rate", "R"]]
    d = d.set_index(key)
    j = d.index.intersection(m.index)
    tot = d.loc[j, "R"] + m.loc[j, "R"]
    d.loc[j, "rate"] = (d.loc[j, "rate"] * d.loc[j, "R"] + m.loc[j, "rate"] * m.loc[j, "R"]) / tot
    d.loc[j, "R"] = tot
    d = d.reset_index()
d["se"] = np.sqrt(d.rate * (1 - d.rate) / d.R)
d.to_csv("all_results.csv", index=False)
def tab(df):
    df = df.copy(); df["cell"] = (100*df.rate).round(1).map("{:.1f}".format)
    t = df.pivot_table(index=["ref", "n", "k_seen", "C", "gap", "dscore", "R", "B"], columns="test", values="cell", aggfunc="first")
    return t[[c for c in A if c in t.columns]]
size = d[d.dscore == 0]
print(tab(size).to_string())
size = size.assign(bad=size.rate > 0.05 + 3*np.sqrt(0.05*0.95/size.R), bad2=size.rate > 0.05 + 2*np.sqrt(0.05*0.95/size.R))
print("\nsummary over size cells: max rate, mean, #cells > 5%+3SE, > 5%+2SE")
print(size.groupby("test").agg(max_rate=("rate", "max"), mean_rate=("rate", "mean"), min_rate=("rate","min"), n_bad3=("bad", "sum"), n_bad2=("bad2","sum"), n=("rate", "size")).round(3).loc[[c for c in A if c in set(size.test)]].to_string())
print("\npower:"); print(tab(d[d.dscore > 0]).to_string())
print("\ntimes s/dataset per 1000 replicates:")
print(d.drop_duplicates(["ref","n","k_seen","C","gap","dscore"]).assign(tb=lambda x: 1000*x.t_boot/x.B, tij=lambda x: 1000*x.t_ij/x.B, tsw=lambda x: 1000*x.t_swap/x.B).groupby(["n","C"])[["tb","tij","tsw"]].median().round(3).to_string())
