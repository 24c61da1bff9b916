"""Bundled real data: shape, loader errors, and two published numbers it reproduces."""

import numpy as np
import pytest
import pandas as pd

import trialwise as tw
import trialwise.io.trials


def test_model_vs_human_table():
    trials = tw.datasets.model_vs_human()
    assert len(trials) == 471_200
    assert trials.condition.dtype == object or str(trials.condition.dtype) in ("str", "string")
    assert set(trials.loc[trials.experiment == "uniform-noise", "condition"]) >= {"0.00", "0.10"}
    assert (trials.response == "na").sum() == 597


def test_unknown_experiment_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"`experiment` must be one of \[.*'cue-conflict'.*\]; got 'cue'"):
        tw.datasets.model_vs_human("cue")


def test_texture_vs_shape_and_readme():
    trials = tw.datasets.texture_vs_shape("texture-filled-rotated")
    assert trials.subject.nunique() == 32 + 4
    assert "Sources, versions, licences" in tw.datasets.data_readme()


def test_published_cue_conflict_means():
    # Geirhos et al. (2020): mean human-human kappa over 45 pairs 0.331; resnet50 vs humans 0.068.
    trials = tw.datasets.model_vs_human("cue-conflict")
    wide = trials.pivot(index="image", columns="subject", values="response")
    truth = trials.groupby("image").category.first().loc[wide.index]
    humans = sorted(trials.loc[trials.observer_type == "human", "subject"].unique())
    hh = tw.pairwise_error_consistency(wide[humans], truth=truth, ci_method="analytic")
    hm = tw.pairwise_error_consistency(wide, truth=truth, pairs=[(h, "resnet50") for h in humans],
                                       ci_method="analytic")
    assert len(hh) == 45 and round(float(np.mean(hh.statistic)), 3) == 0.331
    assert round(float(np.mean(hm.statistic)), 3) == 0.068


# --------------------------------------------------------------------------- issue 14 item 6: the two commonest mistakes


def _my_model(humans, name="mynet"):
    """A model's cue-conflict answers in read_trials' columns (copies subject-01's answers)."""
    mine = humans[humans.subject == "subject-01"].assign(subject=name, observer_type="model")
    return tw.read_trials(mine)


def test_concatenating_bundled_rows_with_read_trials_rows_names_the_cause_and_the_fix():
    import pandas as pd

    cue = tw.datasets.model_vs_human("cue-conflict")
    humans = cue[cue.observer_type == "human"]
    mixed = pd.concat([humans, _my_model(humans)], ignore_index=True)
    fix = r"pd\.concat\(\[tw\.read_trials\(bundled\), tw\.read_trials\(mine\)\], ignore_index=True\)"
    for call in (lambda: tw.read_trials(mixed), lambda: tw.leaderboard(mixed, n_resamples=5),
                 lambda: tw.brainscore.ceilings(mixed)):
        with pytest.raises(ValueError, match=r"12800 row\(s\) have the correct answer in column 'category' and an "
                                             r"empty 'truth' \(e\.g\. row 1\), 1280 row\(s\) the other way round.*"
                                             r"different column names.*" + fix):
            call()
    # the fix it names works, and pairs the model with the humans on every image
    both = pd.concat([tw.read_trials(humans), _my_model(humans)], ignore_index=True)
    assert both.correct.dtype == bool and len(both) == 12800 + 1280
    a, b, info = tw.io.paired_correctness(both[both.subject == "subject-01"], both[both.subject == "mynet"])
    assert info["n"] == 1280 and (a == b).all()


def test_a_table_with_both_answer_columns_filled_is_not_a_mixed_layout():
    cue = tw.datasets.model_vs_human("edge")
    t = tw.read_trials(cue).assign(category=lambda f: f.truth)
    assert len(tw.read_trials(t)) == len(cue)
    gappy = t.assign(category=None)  # one column entirely empty: not two layouts either
    assert len(tw.read_trials(gappy)) == len(cue)


def test_conditions_that_differ_only_in_number_formatting_name_the_cause_and_the_fix(tmp_path):
    import pandas as pd

    lp = tw.datasets.model_vs_human("low-pass")
    path = tmp_path / "resnet50.csv"
    lp[lp.subject == "resnet50"].assign(rt=float("nan")).to_csv(path, index=False)
    model = pd.read_csv(path)  # default dtypes: the NaN rt is harmless, but condition 40 is now a number
    model["condition"] = model["condition"].astype(float)  # as it comes out when the column has a gap
    mixed = pd.concat([lp[lp.observer_type == "human"], model], ignore_index=True)
    with pytest.raises(ValueError, match=r"1280 image\(s\) have more than one condition across observers, and the "
                                         r"labels differ only in number formatting — e\.g\. image '.+' of experiment "
                                         r"'low-pass': '(\d+)' by 'subject-01', 'subject-02', 'subject-03'; '\1\.0' by "
                                         r"'resnet50'\. .*pandas' default dtypes .*dtype=str.*tw\.read_trials\(path\)"):
        tw.read_trials(mixed)
    # the fixes it names work: the file read as text pairs with the humans
    humans = lp[lp.observer_type == "human"]
    for t in (tw.read_trials(pd.concat([humans, pd.read_csv(path, dtype=str)], ignore_index=True)),
              pd.concat([tw.read_trials(humans), tw.read_trials(path)], ignore_index=True)):
        assert t.groupby("image").condition.nunique().max() == 1 and (t.subject == "resnet50").sum() == 1280
    un = tw.datasets.model_vs_human("uniform-noise")  # '0.90' (humans) vs 0.9 (a float column)
    m = un[un.subject == "resnet50"].assign(condition=lambda f: f.condition.astype(float))
    with pytest.raises(ValueError, match=r"number formatting .*'0\.9' by 'resnet50'; '0\.90' by 'subject-01'"):
        tw.read_trials(pd.concat([un[un.observer_type == "human"], m], ignore_index=True))


def test_a_real_second_condition_keeps_the_plain_message():
    import pandas as pd

    t = pd.DataFrame({"subject": ["a", "b"], "image": ["i", "i"], "truth": ["cat", "cat"],
                      "response": ["cat", "dog"], "condition": ["40", "c05"]})
    with pytest.raises(ValueError, match=r"image 'i' of experiment 'all' has more than one condition across "
                                         r"observers \(1 such image\(s\)\)$"):
        tw.read_trials(t)


# --------------------------------------------------------------------------- reading files (issue 14 item 12)


@pytest.mark.parametrize("text, line, fields", [
    ("subject,image,truth,response\ns,i1,cat,cat\ns,i2,dog\n", 3, 3),                     # short row
    ("subject,image,truth,response\ns,i1,cat,cat,x\n", 2, 5),                              # long row
    ("subject,image,truth,response\r\ns,i1,cat,cat,\r\ns,i2,dog,dog,\r\n", 2, 5),          # trailing separators
    ("subject,image,truth,response\n\ns,i1,cat,cat\n\ns,i2\n", 5, 2),                      # blank lines still count
    ('subject,image,truth,response\ns,"i,1","ca\nt",cat\ns,i2,dog\n', 4, 3),                # quoted separators/newlines
])
def test_ragged_csv_names_the_file_and_the_line(tmp_path, text, line, fields):
    p = tmp_path / "t.csv"
    p.write_text(text)
    with pytest.raises(ValueError, match=rf"t\.csv: not a readable table \(line {line} has {fields} field\(s\) but the header has 4"):
        tw.io.read_table(p)


def test_well_formed_files_still_read(tmp_path):
    import gzip

    import pandas as pd

    text = 'subject,image,truth,response\n\ns,"i,1",cat,cat\ns,i2,dog,"d\no"\n'
    (tmp_path / "q.csv").write_text(text)
    (tmp_path / "q.csv.gz").write_bytes(gzip.compress(text.encode()))
    for name in ("q.csv", "q.csv.gz"):
        got = tw.io.read_table(tmp_path / name)
        assert got.to_dict("list") == {"subject": ["s", "s"], "image": ["i,1", "i2"], "truth": ["cat", "dog"],
                                       "response": ["cat", "d\no"]}
    frame = tw.datasets.model_vs_human("edge")
    frame.to_csv(tmp_path / "edge.csv.gz", index=False)
    back = tw.io.read_table(tmp_path / "edge.csv.gz")
    pd.testing.assert_frame_equal(back.drop(columns=["rt", "session", "trial"]),
                                  frame.drop(columns=["rt", "session", "trial"]))


def test_truncated_gzip_and_parquet_without_engine(tmp_path):
    import gzip

    blob = gzip.compress(("subject,image,truth,response\n" + "s,i,cat,cat\n" * 5000).encode())
    (tmp_path / "t.csv.gz").write_bytes(blob[: len(blob) // 2])
    with pytest.raises(ValueError, match=r"t\.csv\.gz: the compressed file is truncated"):
        tw.read_trials(tmp_path / "t.csv.gz")
    (tmp_path / "t.parquet").write_bytes(b"PAR1")
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match=r"t\.parquet: reading a Parquet file needs pyarrow.*pip install pyarrow"):
            tw.io.read_table(tmp_path / "t.parquet")
    else:  # pragma: no cover - with an engine the four bytes are a broken file
        with pytest.raises(ValueError, match=r"t\.parquet: not a readable Parquet file"):
            tw.io.read_table(tmp_path / "t.parquet")


def test_empty_observer_type_cells_read_as_no_type(tmp_path):
    """A CSV of the bundled humans plus one's own model whose observer_type cells are empty: "" (no type),
    not NaN, so grouping by type and the report work (found by a newcomer run: '<' between float and str)."""
    import pandas as pd

    humans = tw.datasets.model_vs_human("cue-conflict")
    humans = tw.read_trials(humans[humans["observer_type"] == "human"])
    mine = humans[humans["subject"] == "subject-01"].assign(subject="my-net", observer_type=None)
    path = tmp_path / "combined.csv"
    pd.concat([humans, mine]).to_csv(path, index=False)
    t = tw.read_trials(path)
    assert set(t.loc[t["subject"] == "my-net", "observer_type"]) == {""}
    res = tw.shape_bias(t, experiment="cue-conflict", groups="observer_type", n_resamples=50, rng=0)
    assert "human" in set(res.to_frame()["observer"]) and "my-net" in set(res.to_frame()["observer"])


def test_numbers_written_differently_are_the_same_label():
    """'1' and '1.0' (truth and response written by different programs) are the same answer in tidy
    tables too, as in compare (trialwise.io.labels, rule 3); other text never matches a number."""
    import pandas as pd

    f = pd.DataFrame({"subject": ["s"] * 4, "image": list("abcd"), "truth": ["1", "0", "1", "cat"],
                      "response": ["1.0", "0.0", "na", "cat"]})
    assert tw.read_trials(f)["correct"].tolist() == [True, True, False, True]


def test_each_call_returns_a_fresh_table():
    """The bundled tables are parsed once per process; a caller's changes never reach the next call."""
    first = tw.datasets.texture_vs_shape()
    first.loc[0, "response"] = "changed"
    del first["rt"]
    again = tw.datasets.texture_vs_shape()
    assert again.loc[0, "response"] != "changed" and "rt" in again.columns
    assert again is not tw.datasets.texture_vs_shape()


# --------------------------------------------------------------------------- option probabilities and clusters


def _tidy_llm_table():
    import pandas as pd

    gen = np.random.default_rng(0)
    rows = []
    for model in ("m1", "m2", "m3"):
        for q in range(30):
            p = gen.dirichlet(np.ones(4))
            rows.append(dict(model=model, q=f"q{q}", gold=str(q % 4), pred=str(int(p.argmax())),
                             **{f"p{o}": p[o] for o in range(4)}, passage=f"s{q // 5}"))
    return pd.DataFrame(rows)


def test_read_trials_keeps_option_probabilities_and_clusters_as_the_log_readers_do():
    raw = _tidy_llm_table()
    t = tw.read_trials(raw, subject="model", image="q", truth="gold", response="pred",
                       probabilities=["p0", "p1", "p2", "p3"], clusters="passage")
    assert list(t.columns) == [*tw.io.TRIAL_COLUMNS, *trialwise.io.trials.OPTION_COLUMNS, "cluster"]
    np.testing.assert_array_equal(np.stack(t.probabilities), raw[["p0", "p1", "p2", "p3"]].to_numpy())
    assert (t.n_options == 4).all() and t.cluster.tolist() == raw.passage.tolist()
    as_text = raw.assign(pl=[str(r.tolist()) for r in raw[["p0", "p1", "p2", "p3"]].to_numpy()])
    t2 = tw.read_trials(as_text, subject="model", image="q", truth="gold", response="pred", probabilities="pl")
    np.testing.assert_allclose(np.stack(t2.probabilities), np.stack(t.probabilities), rtol=0, atol=1e-15)
    # the table goes straight into the agreement functions and a clustered leaderboard
    with pytest.warns(tw.DegenerateDataWarning, match="only 6 clusters"):  # six passages: too few to trust
        direct = tw.pairwise_agreement(t, clusters="cluster", n_resamples=200, rng=0)
    assert direct.to_frame().shape[0] == 3 and direct.n_clusters == 6
    lb = tw.leaderboard(t, protocol="accuracy", clusters="cluster", n_resamples=100, rng=0)
    assert set(lb.candidates) == {"m1", "m2", "m3"}


def test_read_trials_option_probabilities_bad_input():
    raw = _tidy_llm_table()
    kw = dict(subject="model", image="q", truth="gold", response="pred")
    bad = raw.copy()
    bad.loc[3, "p0"] += 0.1
    with pytest.raises(ValueError, match=r"trials: row 4: `probabilities` must sum to 1 over the options"):
        tw.read_trials(bad, probabilities=["p0", "p1", "p2", "p3"], **kw)
    with pytest.raises(ValueError, match=r"column 'p9' .*|'p9'"):
        tw.read_trials(raw, probabilities=["p0", "p9"], **kw)
    with pytest.raises(TypeError, match=r"`probabilities` must be a column name or a list of column names"):
        tw.read_trials(raw, probabilities=[0, 1], **kw)
    with pytest.raises(ValueError, match=r"row 1: column 'pl' must hold a list of probabilities"):
        tw.read_trials(raw.assign(pl="oops"), probabilities="pl", **kw)
    two = raw.copy()
    two.loc[0, "passage"] = "elsewhere"  # q0 is in s0 for m2 and m3
    with pytest.raises(ValueError, match=r"item 'q0' .* more than one label in column 'passage'"):
        tw.read_trials(two, clusters="passage", **kw)


def test_the_2afc_sample_is_what_its_script_writes():
    models, trials = tw.datasets.synthetic_2afc_sample()
    for s in (0.2, 0.5, 0.8):
        probs, t = tw.brainscore.synthetic_2afc(n_objects=8, images_per_object=10, trials_per_image=60,
                                                n_subjects=20, similarity=s, rng=20261123)
        got = models[f"model-{s:g}"]
        np.testing.assert_allclose(got.loc[probs.index, probs.columns].to_numpy(), probs.to_numpy(), atol=5e-7)
        pd.testing.assert_frame_equal(trials.astype(str), t.astype(str), check_dtype=False)


# --------------------------------------------------------------------------- files from other labs (issue 17, HR3)

_MVH_HEADER = "subj,session,trial,rt,object_response,category,condition,imagename\n"


def _session(path, subj, rows):
    """One model-vs-human session file: ``rows`` of (response, category, condition, stimulus)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    code = "dnn" if not subj.startswith("subject-") else "s01"
    lines = [f"{subj},1,{k + 1},0.5,{r},{c},{cond},{k + 1:04d}_x_{code}_{cond}_{c}_0_{stim}.png"
             for k, (r, c, cond, stim) in enumerate(rows)]
    path.write_text(_MVH_HEADER + "\n".join(lines) + "\n")


@pytest.mark.parametrize("layout", ["raw-data folder", "experiment folder"])
def test_model_results_in_a_folder_of_their_own_belong_to_the_experiment_above(tmp_path, layout):
    rows = [("cat", "cat", "0", "a1"), ("dog", "cat", "0", "a2"), ("dog", "dog", "0", "a3")]
    for exp in ("edge", "sketch"):
        _session(tmp_path / exp / f"{exp}_subject-01_session_1.csv", "subject-01", rows)
        _session(tmp_path / exp / f"{exp}_resnet50_session-1.csv", "resnet50", rows[::-1])
        _session(tmp_path / exp / f"{exp}_cornet-s_dnn" / "session-1.csv", "cornet-s", rows)  # a fork's layout
    root = tmp_path if layout == "raw-data folder" else tmp_path / "edge"
    t = tw.io.read_model_vs_human(root)
    expected = {"edge", "sketch"} if layout == "raw-data folder" else {"edge"}
    assert set(t["experiment"]) == expected
    for exp in expected:
        assert sorted(t.loc[t.experiment == exp, "subject"].unique()) == ["cornet-s", "resnet50", "subject-01"]
    assert len(t) == 9 * len(expected)


def test_one_observer_in_two_files_names_the_files(tmp_path):
    rows = [("cat", "cat", "0", "a1"), ("dog", "cat", "0", "a2")]
    _session(tmp_path / "edge" / "edge_cornet-s_session-1.csv", "cornet-s", rows)
    _session(tmp_path / "edge" / "edge_cornet-s_dnn" / "session-1.csv", "cornet-s", rows)
    with pytest.raises(ValueError, match=r"observer 'cornet-s' answered image 'a1' of experiment 'edge' in 2 files "
                                         r"\(.*edge_cornet-s_dnn/session-1\.csv, .*edge_cornet-s_session-1\.csv\)"):
        tw.io.read_model_vs_human(tmp_path)


@pytest.mark.parametrize("sep", [";", "\t"])
def test_semicolon_and_tab_separated_files_read_as_the_comma_file(tmp_path, sep):
    frame = tw.datasets.model_vs_human("edge").head(300)
    frame.to_csv(tmp_path / "comma.csv", index=False)
    frame.to_csv(tmp_path / "other.csv", index=False, sep=sep)
    pd.testing.assert_frame_equal(tw.io.read_table(tmp_path / "other.csv"), tw.io.read_table(tmp_path / "comma.csv"))
    pd.testing.assert_frame_equal(tw.read_trials(tmp_path / "other.csv"), tw.read_trials(tmp_path / "comma.csv"))
    # a ragged line is still named, counted by the file's own separator
    (tmp_path / "ragged.csv").write_text(f"subject{sep}image{sep}truth{sep}response\ns{sep}i1{sep}cat{sep}cat\ns{sep}i2\n")
    with pytest.raises(ValueError, match=r"ragged\.csv: not a readable table \(line 3 has 2 field"):
        tw.io.read_table(tmp_path / "ragged.csv")


def test_a_table_of_correctness_only_is_read_from_its_correct_column(tmp_path):
    (tmp_path / "c.csv").write_text("subject,image,correct\ns1,i1,1\ns1,i2,0\ns2,i1,TRUE\ns2,i2,true\n")
    t = tw.read_trials(tmp_path / "c.csv")
    assert t["correct"].tolist() == [True, False, True, True]
    (tmp_path / "t.csv").write_text("subject,image,truth,response,correct\ns1,i1,cat,dog,1\n")
    assert tw.read_trials(tmp_path / "t.csv")["correct"].tolist() == [False]   # truth and response win
