"""Reading tables other labs write (:mod:`trialwise.io.headers`): header names with spaces around them or in
another letter case, and rows whose every field is empty — in the library's readers and the command line."""

import gzip
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trialwise as tw
from trialwise.cli import main
from trialwise.io.headers import SHOWN_LINES, drop_empty_rows, match_columns, row_numbers, strip_header

SKIPPED = r"skipped (\d+) rows? with every field empty \((.*)\): not a trial"


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def caught(fn, *args, **kwargs):
    """``fn``'s result and the messages of the TrialwiseWarnings it issued."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    assert all(issubclass(x.category, tw.TrialwiseWarning) for x in w), [str(x.message) for x in w]
    return out, [str(x.message) for x in w]


@pytest.fixture(scope="module")
def bundled() -> pd.DataFrame:
    """Five observers of the bundled cue-conflict trials, as a lab would save them (every column)."""
    d = tw.datasets.model_vs_human("cue-conflict")
    return d[d.subject.isin(["subject-01", "subject-02", "subject-03", "resnet50", "clip-16"])].reset_index(drop=True)


def _restyle(frame: pd.DataFrame, style) -> pd.DataFrame:
    return frame.rename(columns={c: style(k, c) for k, c in enumerate(frame.columns)})


#: Header styles of other programs: padded (R's write.csv with sep=", "), upper case, title case, mixed.
STYLES = {
    "padded": lambda k, c: f" {c} ",
    "upper": lambda k, c: c.upper(),
    "title": lambda k, c: c.title(),
    "mixed": lambda k, c: f" {c.upper()}" if k % 2 else f"{c.title()}\t",
}


# --------------------------------------------------------------------------- the helpers


def test_strip_header_removes_the_spaces_around_names_only():
    raw = pd.DataFrame({" subject ": ["s1"], "image\t": ["i1"], "my column": ["x"]})
    out = strip_header(raw, "t.csv")
    assert out.columns.tolist() == ["subject", "image", "my column"]
    assert raw.columns.tolist() == [" subject ", "image\t", "my column"]  # the caller's table is not changed
    clean = pd.DataFrame({"subject": ["s1"]})
    assert strip_header(clean, "t.csv") is clean


def test_strip_header_names_both_columns_that_become_one():
    raw = pd.DataFrame([["s1", "s2"]], columns=["subject", "subject "])
    with pytest.raises(ValueError, match=r"t\.csv: the columns 'subject' and 'subject ' have the same name once the "
                                         r"spaces around it are removed; rename or drop one"):
        strip_header(raw, "t.csv")


@pytest.mark.parametrize("header", ["Subject", "SUBJECT", " subject ", "sUbJeCt\t", " SUBJECT"])
def test_match_columns_renames_the_one_header_that_differs_in_case(header):
    raw = pd.DataFrame({header: ["s1"], "Notes": ["Dog"]})
    out = match_columns(raw, ["subject", "image", None], "t.csv")
    assert out.columns.tolist() == ["subject", "Notes"]  # a column not looked for keeps its name
    assert out["Notes"].tolist() == ["Dog"]  # values are never changed
    assert raw.columns.tolist() == [header, "Notes"]


def test_match_columns_leaves_a_table_in_the_right_case_alone():
    raw = pd.DataFrame({"subject": ["s1"], "Notes": ["a"], "notes": ["b"]})  # unrelated names may differ in case
    assert match_columns(raw, ["subject", "image"], "t.csv") is raw


def test_match_columns_matches_a_name_the_caller_was_given_in_any_case():
    raw = pd.DataFrame({"participant": ["s1"]})
    assert match_columns(raw, ["Participant"], "t.csv").columns.tolist() == ["Participant"]


@pytest.mark.parametrize("columns", [["Subject", "SUBJECT"], ["SUBJECT", " Subject"], ["sUbject", "SUBJECT ", "Subject"]])
def test_two_headers_that_differ_only_in_case_are_an_error_naming_both(columns):
    raw = pd.DataFrame([["s1"] * len(columns)], columns=columns)
    shown = " and ".join(repr(c.strip()) for c in columns)
    with pytest.raises(ValueError, match=re.escape(f"t.csv: the columns {shown} differ only in letter case, so which "
                                                   f"one is 'subject' is ambiguous; rename or drop one")):
        match_columns(raw, ["subject"], "t.csv")


@pytest.mark.parametrize("columns", [["subject", "Subject"], ["Subject", "subject", "SUBJECT"], [" subject", "SUBJECT"]])
def test_the_header_of_the_exact_name_wins_over_its_other_cases(columns):
    """HR6 F3: ``subject`` next to ``Subject`` is ``subject`` (an error before: 'ambiguous')."""
    raw = pd.DataFrame([[f"v{k}" for k in range(len(columns))] + ["I1"]], columns=[*columns, "IMAGE"])
    out = match_columns(raw, ["subject", "image"], "t.csv")
    exact = [c.strip() for c in columns].index("subject")
    assert out["subject"].tolist() == [f"v{exact}"]
    assert out["image"].tolist() == ["I1"]  # the other names are still matched in any case
    assert [c for c in out.columns if c.casefold() == "subject"] == [c.strip() for c in columns]  # nothing renamed


def test_read_trials_uses_the_exact_column_next_to_another_case_of_it(tmp_path):
    """HR6 F3's reproducer: a DataFrame (and a file) with 'subject' and 'Subject' read with subject='subject'."""
    raw = pd.DataFrame({"subject": ["s1", "s2"], "Subject": ["x", "y"], "image": ["i1", "i1"],
                        "truth": ["cat", "cat"], "response": ["cat", "dog"]})
    t = tw.read_trials(raw, subject="subject")
    assert t["subject"].tolist() == ["s1", "s2"] and t["correct"].tolist() == [True, False]
    raw.to_csv(tmp_path / "t.csv", index=False)
    assert tw.read_trials(tmp_path / "t.csv")["subject"].tolist() == ["s1", "s2"]
    assert tw.read_trials(raw, subject="Subject")["subject"].tolist() == ["x", "y"]  # the other one when named


def test_drop_empty_rows_skips_rows_of_empty_fields_only_and_says_so_once():
    raw = pd.DataFrame({"subject": ["s1", None, "  ", None, "s2"], "image": ["i1", None, "", "i9", "i2"]})
    out, messages = caught(drop_empty_rows, raw, "t.csv")
    assert out["image"].tolist() == ["i1", "i9", "i2"]  # row 4 has an image: it stays, for the reader to name
    assert messages == ["t.csv: skipped 2 rows with every field empty (data rows 2, 3): not a trial"]
    clean = raw.iloc[[0, 4]]
    assert caught(drop_empty_rows, clean, "t.csv") == (clean, [])


def test_drop_empty_rows_counts_lines_left_out_by_the_reader_and_shortens_long_lists():
    raw = pd.DataFrame({"subject": ["s1"] + [None] * (SHOWN_LINES + 2)})
    _, messages = caught(drop_empty_rows, raw, "t.csv", lines=[40, 41])
    rows = ", ".join(str(k) for k in range(2, SHOWN_LINES + 2))
    assert messages == [f"t.csv: skipped {SHOWN_LINES + 4} rows with every field empty (lines 40, 41; data rows "
                        f"{rows}, …): not a trial"]


# --------------------------------------------------------------------------- read_table


@pytest.mark.parametrize("text, lines", [
    ("subject,image,truth,response\ns1,i1,cat,cat\ns1,i2,dog,cat\n,,,\n", [4]),  # Excel's last line
    ("subject,image,truth,response\r\ns1,i1,cat,cat\r\n,,,\r\ns1,i2,dog,cat\r\n,,,\r\n", [3, 5]),
    ("subject,image,truth,response\ns1,i1,cat,cat\ns1,i2,dog,cat\n,,\n,,,,,,\n", [4, 5]),  # more or fewer separators
    ("subject;image;truth;response\ns1;i1;cat;cat\ns1;i2;dog;cat\n;;;\n", [4]),
    ("subject\timage\ttruth\tresponse\ns1\ti1\tcat\tcat\ns1\ti2\tdog\tcat\n\t\t\t\n", [4]),
    ('subject,image,truth,response\n"s1",i1,cat,cat\n"",,,\n"s1",i2,dog,cat\n , , , \n', [3, 5]),
])
def test_read_table_skips_rows_of_separators_only_naming_the_file_and_lines(tmp_path, text, lines):
    path = tmp_path / "t.csv"
    path.write_text(text)
    frame, messages = caught(tw.io.read_table, path)
    assert frame.values.tolist() == [["s1", "i1", "cat", "cat"], ["s1", "i2", "dog", "cat"]]
    shown = f"line{'s' if len(lines) > 1 else ''} " + ", ".join(map(str, lines))
    assert messages == [f"{path}: skipped {len(lines)} row{'s' if len(lines) > 1 else ''} with every field empty "
                        f"({shown}): not a trial"]


def test_read_table_keeps_a_line_of_commas_inside_a_quoted_field(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('subject,image,note\ns1,i1,"a\n,,\nb"\n,,\n')
    frame, messages = caught(tw.io.read_table, path)
    assert frame["note"].tolist() == ["a\n,,\nb"]
    assert messages == [f"{path}: skipped 1 row with every field empty (line 5): not a trial"]


def test_read_table_strips_and_matches_headers_of_csv_gzip_and_parquet(tmp_path):
    text = " Subject , IMAGE,truth ,Response\ns1,i1,Dog,dog\n"
    (tmp_path / "t.csv").write_text(text)
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(text.encode()))
    pd.DataFrame({" Subject ": ["s1"], " IMAGE": ["i1"], "truth ": ["Dog"], "Response": ["dog"]}).to_parquet(
        tmp_path / "t.parquet")
    for name in ("t.csv", "t.csv.gz", "t.parquet"):
        frame = tw.io.read_table(tmp_path / name, columns=["subject", "image", "truth", "response"])
        assert frame.columns.tolist() == ["subject", "image", "truth", "response"], name
        assert frame.values.tolist() == [["s1", "i1", "Dog", "dog"]], name
    assert tw.io.read_table(tmp_path / "t.csv").columns.tolist() == ["Subject", "IMAGE", "truth", "Response"]


# --------------------------------------------------------------------------- read_trials and paired_correctness


def test_read_trials_reads_upper_case_headers_and_keeps_label_case(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("SUBJECT, Image ,Category,RESPONSE\ns1,i1,dog,Dog\ns1,i2,cat,cat\n,,,\n")
    trials, messages = caught(tw.read_trials, path)
    assert trials[["subject", "image", "truth", "response"]].values.tolist() == [
        ["s1", "i1", "dog", "Dog"], ["s1", "i2", "cat", "cat"]]
    assert trials["correct"].tolist() == [False, True]  # 'Dog' is not 'dog' (trialwise.io.labels)
    assert messages == [f"{path}: skipped 1 row with every field empty (line 4): not a trial"]


def test_read_trials_matches_the_names_it_is_given_and_the_optional_columns(tmp_path):
    raw = pd.DataFrame({"PARTICIPANT": ["p1", "p1"], "Stim": ["a", "b"], "Label": ["0", "1"], "choice": ["0", "0"],
                        "Condition": ["c", "c"], "EXPERIMENT": ["e", "e"], "Observer_Type": ["human", "human"],
                        "P0": ["0.6", "0.7"], "p1": ["0.4", "0.3"], "Passage": ["x", "y"]})
    kwargs = dict(subject="participant", image="stim", truth="label", response="Choice", probabilities=["p0", "p1"],
                  clusters="passage")
    t = tw.read_trials(raw, **kwargs)
    lower = tw.read_trials(raw.rename(columns=str.lower), **kwargs)
    pd.testing.assert_frame_equal(t, lower)
    assert t[["experiment", "condition", "observer_type", "cluster"]].values.tolist() == [
        ["e", "c", "human", "x"], ["e", "c", "human", "y"]]


def test_a_row_with_some_empty_required_fields_stays_an_error(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("subject,image,truth,response\ns1,i1,cat,cat\ns1,,dog,cat\n,,,\n")
    with warnings.catch_warnings(record=True):  # the empty last line is skipped first, with its warning
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=r"t\.csv: column 'image' has an empty value \(row 2\)"):
            tw.read_trials(path)


# HR6 F1: an error after skipped empty rows names the row of the table given (data row 4 = line 5 here), not
# its position among the rows left (row 2 before the fix)
GAP_HEADER = "subject,image,truth,response,s,p0,p1,cl"
GAP_GOOD = ["s1,i1,cat,cat,1,0.6,0.4,a", "s1,i2,dog,cat,0,0.3,0.7,b"]


@pytest.mark.parametrize("bad, kwargs, message", [
    ("s1,,dog,dog,1,0.5,0.5,c", {}, r"column 'image' has an empty value \(row 4\)"),
    ("s1,i3,dog,,1,0.5,0.5,c", {}, r"column 'response' has an empty value \(row 4\)"),
    ("s1,i3,dog,dog,2,0.5,0.5,c", {"score": "s"}, r"column 's' must hold scores in \[0, 1\]; row 4 has '2'"),
    ("s1,i3,dog,dog,1,x,0.5,c", {"probabilities": ["p0", "p1"]}, r"row 4: column 'p0' \(`probabilities`\) must hold"),
    ("s1,i3,dog,dog,1,0.5,0.5,", {"clusters": "cl"}, r"column 'cl' \(`clusters`\) has an empty value \(row 4\)"),
])
@pytest.mark.parametrize("empty", [",,,,,,,", ",,", '"",,,,,,,', " , ,"])
def test_an_error_after_skipped_empty_rows_names_the_row_of_the_file(tmp_path, bad, kwargs, message, empty):
    path = tmp_path / "t.csv"
    path.write_text("\n".join([GAP_HEADER, GAP_GOOD[0], empty, GAP_GOOD[1], bad]) + "\n")
    with pytest.raises(ValueError, match=re.escape(str(path)) + ": " + message):
        caught(tw.read_trials, path, **kwargs)
    frame = pd.DataFrame([r.split(",") for r in (GAP_GOOD[0], ",,,,,,,", GAP_GOOD[1], bad)],
                         columns=GAP_HEADER.split(",")).replace("", np.nan)
    with pytest.raises(ValueError, match="trials: " + message):
        caught(tw.read_trials, frame, **kwargs)


def test_read_table_numbers_the_rows_left_by_their_row_in_the_file(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n,,\n3,4\n\n,\n5,6\n")  # a blank line is not a row (pandas skips it)
    frame, messages = caught(tw.io.read_table, path)
    assert frame.index.tolist() == [0, 2, 4] and row_numbers(frame).tolist() == [1, 3, 5]
    assert messages == [f"{path}: skipped 2 rows with every field empty (lines 3, 6): not a trial"]
    path.write_text('a,b\n"1\n1",2\n,,\n3,4\n')  # a value over two lines is one row
    assert caught(tw.io.read_table, path)[0].index.tolist() == [0, 2]
    path.write_text("a,b\n1,2\n\n3,4\n")  # no empty row: the index pandas gives
    assert isinstance(tw.io.read_table(path).index, pd.RangeIndex)


def test_a_tab_separated_file_keeps_the_row_numbers_after_a_line_of_tabs(tmp_path):
    # HR7 F1: a line of tabs only is a skipped row too (str.strip() had dropped it from the count)
    rows = ["a\tb\tc", "1\t2\t3", "4\t5\t6", "\t\t", "7\t8\t9"]
    for sep, name in ((",", "t.csv"), ("\t", "t.tsv")):
        path = tmp_path / name
        path.write_text("\n".join(r.replace("\t", sep) for r in rows) + "\n")
        frame, messages = caught(tw.io.read_table, path)
        assert frame.index.tolist() == [0, 1, 3], name
        assert row_numbers(frame).tolist() == [1, 2, 4], name
        assert messages == [f"{path}: skipped 1 row with every field empty (line 4): not a trial"], name


def test_row_numbers_follow_an_integer_index_else_the_position():
    raw = pd.DataFrame({"x": ["a", None, "b", "c"]})
    assert row_numbers(raw).tolist() == [1, 2, 3, 4]
    assert row_numbers(raw[raw.x.notna()]).tolist() == [1, 3, 4]
    assert row_numbers(raw.set_axis(["w", "x", "y", "z"])).tolist() == [1, 2, 3, 4]
    assert row_numbers(raw.set_axis([-1, 0, 1, 2])).tolist() == [1, 2, 3, 4]
    assert row_numbers(pd.concat([raw, raw]).iloc[2:7]).tolist() == [1, 2, 3, 4, 5]  # a repeated index: by position


def test_read_model_vs_human_names_the_line_after_skipped_rows(tmp_path):
    root = tmp_path / "raw-data" / "colour"
    root.mkdir(parents=True)
    good = "subject-01,1,1,0.8,cat,cat,cr,0001_cr_s01_cr_cat_0_n02123045_1.png"
    (root / "a.csv").write_text("subj,session,trial,rt,object_response,category,condition,imagename\n"
                                f"{good}\n,,,,,,,\n{good.replace('_1.png', '_2.png')}\n"
                                "subject-01,1,3,0.8,cat,,cr,0003_cr_s01_cr_cat_0_n02123045_3.png\n")
    with pytest.raises(ValueError, match=r"a\.csv: column 'category' has an empty value \(row 4\)"):
        caught(tw.io.read_model_vs_human, tmp_path / "raw-data")


def test_read_trials_of_a_frame_skips_empty_rows_and_leaves_the_frame_alone():
    raw = pd.DataFrame({"Subject": ["s1", np.nan, "s1"], "IMAGE": ["i1", np.nan, "i2"],
                        "truth": ["cat", np.nan, "dog"], "response": ["cat", np.nan, "cat"]})
    t, messages = caught(tw.read_trials, raw)
    assert t[["subject", "image", "correct"]].values.tolist() == [["s1", "i1", True], ["s1", "i2", False]]
    assert messages == ["trials: skipped 1 row with every field empty (data row 2): not a trial"]
    assert raw.columns.tolist() == ["Subject", "IMAGE", "truth", "response"] and len(raw) == 3


def test_paired_correctness_reads_headers_in_any_case():
    a = pd.DataFrame({"image": ["i1", "i2", "i3"], "truth": ["cat", "dog", "car"], "response": ["cat", "cat", "car"]})
    b = pd.DataFrame({"Image ": ["i3", "i1"], "CATEGORY": ["car", "cat"], "Response": ["dog", "cat"]})
    ca, cb, info = tw.io.paired_correctness(a, b)
    assert (ca.tolist(), cb.tolist(), info) == ([True, True], [True, False], {"n": 2, "only_a": 1, "only_b": 0})


def test_read_model_vs_human_reads_headers_in_any_case(tmp_path):
    root = tmp_path / "raw-data" / "colour"
    root.mkdir(parents=True)
    (root / "a.csv").write_text("Subj,Session,Trial,RT,Object_Response,CATEGORY,condition,ImageName\n"
                                "subject-01,1,1,0.8,cat,cat,cr,0001_cr_s01_cr_cat_0_n02123045_1.png\n,,,,,,,\n")
    trials, messages = caught(tw.io.read_model_vs_human, tmp_path / "raw-data")
    assert trials[["subject", "image", "correct"]].values.tolist() == [["subject-01", "n02123045_1", True]]
    assert len(messages) == 1 and re.search(SKIPPED, messages[0])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_restyled_headers_read_the_same_trials(bundled, tmp_path_factory, data):
    """Property: any padding and letter case of the headers, and empty last lines, give the same trials."""
    frame = bundled[bundled.subject.isin(["subject-01", "resnet50"])]
    d = tmp_path_factory.mktemp("restyled")
    frame.to_csv(d / "orig.csv", index=False)
    styles = data.draw(st.lists(st.tuples(st.sampled_from(["", " ", "  ", "\t"]),
                                          st.sampled_from([str.lower, str.upper, str.title, str.swapcase]),
                                          st.sampled_from(["", " "])),
                                min_size=frame.shape[1], max_size=frame.shape[1]))
    empty = data.draw(st.integers(0, 3))
    restyled = frame.rename(columns={c: f"{pre}{case(c)}{post}" for c, (pre, case, post) in zip(frame.columns, styles)})
    (d / "restyled.csv").write_text(restyled.to_csv(index=False) + ("," * (frame.shape[1] - 1) + "\n") * empty)
    want = tw.read_trials(d / "orig.csv")
    got, messages = caught(tw.read_trials, d / "restyled.csv")
    pd.testing.assert_frame_equal(got, want)
    assert len(messages) == (1 if empty else 0)


# --------------------------------------------------------------------------- the command line


@pytest.fixture(scope="module")
def bundled_files(bundled, tmp_path_factory) -> dict[str, str]:
    """The bundled trials as saved (``orig``) and rewritten in each header style with a last line ',,,,'."""
    d = tmp_path_factory.mktemp("bundled")
    out = {"orig": str(d / "orig.csv")}
    bundled.to_csv(out["orig"], index=False)
    for name, style in STYLES.items():
        out[name] = str(d / f"{name}.csv")
        with open(out[name], "w") as fh:
            fh.write(_restyle(bundled, style).to_csv(index=False) + "," * (bundled.shape[1] - 1) + "\n")
    return out


@pytest.mark.parametrize("style", list(STYLES))
def test_cli_ec_gives_the_same_numbers_and_one_warning_line(bundled_files, bundled, style, capsys):
    args = ["--subjects", "subject-01", "resnet50", "--resamples", "500", "--seed", "0", "--json"]
    code, want, _ = run(["ec", bundled_files["orig"], *args], capsys)
    assert code == 0
    code, got, err = run(["ec", bundled_files[style], *args], capsys)
    assert code == 0, err
    line = len(bundled) + 2
    warning = f"{bundled_files[style]}: skipped 1 row with every field empty (line {line}): not a trial"
    got, want = json.loads(got), json.loads(want)
    assert got.pop("warnings") == [*want.pop("warnings"), warning]
    assert got == want
    code, text, err = run(["ec", bundled_files[style], *args[:-1]], capsys)
    assert code == 0 and f"trialwise: warning: {warning}" in err.splitlines()


@pytest.mark.parametrize("style", ["padded", "mixed"])
def test_cli_leaderboard_gives_the_same_table(bundled_files, style, tmp_path, capsys):
    """A small leaderboard (B = 200) of the bundled trials: the same table, bit for bit, from restyled headers."""
    tables = []
    for name in ("orig", style):
        csv = tmp_path / f"{name}-lb.csv"
        code, _, err = run(["leaderboard", bundled_files[name], "--resamples", "200", "--seed", "0", "--tests", "all",
                            "--csv", csv], capsys)
        assert code == 0, err
        tables.append(csv.read_bytes())
    assert tables[0] == tables[1]
    assert re.search(rf"trialwise: warning: .*{style}\.csv: " + SKIPPED, err), err


def test_cli_ec_two_files_with_upper_case_headers(tmp_path, capsys):
    rng = np.random.default_rng(0)
    truth = rng.choice(["cat", "dog"], 60)
    a = pd.DataFrame({"image": range(60), "truth": truth, "response": np.where(rng.random(60) < 0.7, truth, "dog")})
    b = a.assign(response=np.where(rng.random(60) < 0.6, truth, "cat"))
    a.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    _restyle(a, STYLES["upper"]).to_csv(tmp_path / "A.csv", index=False)
    (tmp_path / "B.csv").write_text(_restyle(b, STYLES["padded"]).to_csv(index=False) + ",,\n")
    args = ["--resamples", "300", "--seed", "1", "--json"]
    _, want, _ = run(["ec", tmp_path / "a.csv", tmp_path / "b.csv", *args], capsys)
    code, got, err = run(["ec", tmp_path / "A.csv", tmp_path / "B.csv", *args], capsys)
    assert code == 0, err
    want, got = json.loads(want), json.loads(got)
    assert got.pop("warnings") == [f"{tmp_path / 'B.csv'}: skipped 1 row with every field empty (line 62): not a trial"]
    want.pop("warnings")
    assert {k: v for k, v in got.items() if not k.startswith("observer_")} == \
        {k: v for k, v in want.items() if not k.startswith("observer_")}


def test_cli_compare_matches_the_option_columns_in_any_case(tmp_path, capsys):
    rng = np.random.default_rng(2)
    y = rng.choice(["car", "cat", "dog"], 80)
    frame = pd.DataFrame({"y": y, "m1": np.where(rng.random(80) < 0.7, y, "dog"),
                          "m2": np.where(rng.random(80) < 0.6, y, "car")})
    frame.to_csv(tmp_path / "p.csv", index=False)
    (tmp_path / "P.csv").write_text(frame.rename(columns={"y": "Y ", "m1": " M1", "m2": "m2"}).to_csv(index=False)
                                    + ",,\n")
    args = ["--truth", "y", "--a", "m1", "--b", "m2", "--resamples", "200", "--seed", "0", "--json"]
    _, want, _ = run(["compare", tmp_path / "p.csv", *args], capsys)
    code, got, err = run(["compare", tmp_path / "P.csv", *args], capsys)
    assert code == 0, err
    want, got = json.loads(want), json.loads(got)
    assert len(got.pop("warnings")) == 1 and want.pop("warnings") == []
    assert got == want


def test_cli_shape_bias_and_brainscore_read_headers_in_any_case(tmp_path, capsys):
    cue = tw.datasets.texture_vs_shape("cue-conflict")
    cue = cue[cue.subject.isin(["resnet50", "subject-01"])]
    cue.to_csv(tmp_path / "sb.csv", index=False)
    (tmp_path / "SB.csv").write_text(_restyle(cue, STYLES["mixed"]).to_csv(index=False) + "," * (cue.shape[1] - 1)
                                     + "\n")
    args = ["--resamples", "200", "--seed", "0", "--json"]
    outs = [run(["shape-bias", tmp_path / name, *args], capsys) for name in ("sb.csv", "SB.csv")]
    assert outs[0][0] == outs[1][0] == 0, outs[1][2]
    want, got = json.loads(outs[0][1]), json.loads(outs[1][1])
    assert len(got.pop("warnings")) == len(want.pop("warnings")) + 1
    assert got == want
    models, humans = tw.datasets.synthetic_ost_sample()
    models.to_csv(tmp_path / "m.csv", index=False)
    humans.to_csv(tmp_path / "h.csv", index=False)
    _restyle(models, STYLES["upper"]).to_csv(tmp_path / "M.csv", index=False)
    _restyle(humans, STYLES["padded"]).to_csv(tmp_path / "H.csv", index=False)
    tables = []
    for h, m in (("h.csv", "m.csv"), ("H.csv", "M.csv")):
        code, _, err = run(["brainscore", tmp_path / h, "--metric", "ost", "--osts", tmp_path / m, "--resamples",
                            "200", "--seed", "0", "--csv", tmp_path / f"{h}.out.csv"], capsys)
        assert code == 0, err
        tables.append((tmp_path / f"{h}.out.csv").read_bytes())
    assert tables[0] == tables[1]


def test_cli_help_states_the_reading_rules(capsys):
    for command in ("ec", "leaderboard", "compare", "brainscore", "shape-bias"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "ignoring surrounding spaces and letter case" in text and "is skipped with a warning" in text, command


@pytest.mark.parametrize("given", ["truth ", " truth", " Truth "])
def test_a_column_named_with_spaces_around_it_is_found(tmp_path, given):
    """Issue 29: a header ``'truth '`` is stripped to ``truth``, so ``truth='truth '`` was reported missing."""
    raw = pd.DataFrame({"subject": ["s1", "s1"], "image": ["i1", "i2"], "truth ": ["cat", "dog"],
                        "response": ["cat", "cat"]})
    path = tmp_path / "padded.csv"
    raw.to_csv(path, index=False)
    for source in (raw, path):
        t = tw.read_trials(source, truth=given)
        assert t.truth.tolist() == ["cat", "dog"] and t.correct.tolist() == [True, False]
    a, b = raw.iloc[:1], raw.rename(columns={"truth ": "truth"}).iloc[:1]
    assert tw.io.paired_correctness(a, b, truth=given)[2]["n"] == 1
    with pytest.raises(tw.InvalidValueError, match=r"padded\.csv: no column 'label '; columns found: subject, image, "
                                                   r"truth, response"):
        tw.read_trials(path, truth="label ")


@pytest.mark.parametrize("content, message", [
    ("subject,image,truth,response\ns1,i1,cat,cat\n".encode("utf-16"), r"u\.csv: is UTF-16 text, not UTF-8"),
    (b"PK\x03\x04" + bytes(60), r"u\.csv: is a zip archive \(an Excel \.xlsx workbook\?\), not CSV text"),
])
def test_a_spreadsheet_or_utf16_file_named_csv_is_said_to_be_one(tmp_path, content, message):
    """Issue 29: a UTF-16 export was "line 3 has 1 field(s)", an .xlsx renamed .csv "the table has no rows"."""
    path = tmp_path / "u.csv"
    path.write_bytes(content)
    with pytest.raises(tw.InvalidValueError, match=message):
        tw.read_trials(path)
