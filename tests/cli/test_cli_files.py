"""The command line's files, seeds and start-up (issue 29, items 5, 7, 8, 9).

* No command writes over a file it reads, or one output over another; inputs that are folders or
  devices, outputs that are folders — each one line, exit 2, checked before anything is computed
  (:func:`trialwise.cli.common.check_files` with ``FILES`` of :mod:`trialwise.cli.app`).
* A run without ``--seed`` draws one, says it, and writes it into its CSV, JSON and report;
  ``--seed`` with it repeats the run exactly.
* ``trialwise --version``; Ctrl-C during the imports; stdout or stderr closed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

from trialwise.cli import main
from trialwise.cli.app import FILES, _parser

#: The metavars of the options and arguments that name files (every one must be in FILES).
FILE_METAVARS = ("FILE", "CSV", "HTML", "PATH", "LOGS", "A", "B")  # A, B: the two logs of paired


def run(args, capsys):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_error_line(code, err, *fragments):
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trialwise: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def _subparsers():
    parser = _parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_every_file_argument_of_every_command_is_checked():
    """An option naming a file that is not in FILES would escape the checks: the registry must hold them all."""
    declared = {(cmd, attr) for cmd, files in FILES.items()
                for attr, *_ in (*files.inputs, *files.outputs)}
    found = {(cmd, a.dest) for cmd, sub in _subparsers().items() for a in sub._actions
             if a.metavar in FILE_METAVARS}
    assert set(FILES) == set(_subparsers())
    assert declared == found


# --------------------------------------------------------------------------- no overwriting

#: command -> (argv before the input file, argv after it): enough to reach the file checks, which come
#: before anything is read (the file's contents do not matter).
_INVOCATION = {
    "ec": (["ec"], ["{other}"]),
    "plan": (["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.1"], []),
    "leaderboard": (["leaderboard"], []),
    "compare": (["compare"], ["--truth", "y", "--a", "a", "--b", "b"]),
    "shape-bias": (["shape-bias"], []),
    "similarity": (["similarity"], []),
    "paired": (["paired"], ["{other}"]),
    "brainscore": (["brainscore"], []),
}

_OUTPUTS = [(cmd, flag, kind) for cmd, files in FILES.items() for _, flag, kind in files.outputs]
_SUFFIX = {"html": ".html", "csv": ".csv", "figure": ".png"}


def _argv(cmd, source, tmp_path, *extra):
    before, after = _INVOCATION[cmd]
    other = tmp_path / "other.csv"
    other.write_text("image,truth,response\ni1,a,a\n")
    inputs = [str(source)] if FILES[cmd].inputs else []
    return [*before, *inputs, *(a.format(other=other) for a in after), *extra]


@pytest.fixture
def trials(tmp_path):
    path = tmp_path / "trials.csv"
    path.write_text("subject,image,truth,response\ns1,i1,a,a\ns2,i1,a,b\n")
    return path


@pytest.mark.parametrize("cmd, flag, kind", [o for o in _OUTPUTS if FILES[o[0]].inputs],
                         ids=[f"{c} {f}" for c, f, _ in _OUTPUTS if FILES[c].inputs])
@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
def test_no_output_writes_over_the_input(cmd, flag, kind, spelling, trials, tmp_path, capsys, monkeypatch):
    """`leaderboard T.csv --csv T.csv` replaced the trials by a 5-line table, exit 0."""
    monkeypatch.chdir(tmp_path)
    before = trials.read_bytes()
    source = {"same": trials, "dot": "./trials.csv", "symlink": tmp_path / "link.csv",
              "hardlink": tmp_path / "hard.csv"}[spelling]
    if spelling == "symlink":
        os.symlink(trials, source)
    elif spelling == "hardlink":
        os.link(trials, source)
    code, out, err = run(_argv(cmd, source, tmp_path, flag, "trials.csv"), capsys)
    _one_error_line(code, err, f"{flag} trials.csv is the input file {source}", "does not write over a file it reads")
    assert trials.read_bytes() == before
    if spelling == "hardlink":
        assert "under another name" in err


@pytest.mark.parametrize("cmd, flag, kind", _OUTPUTS, ids=[f"{c} {f}" for c, f, _ in _OUTPUTS])
def test_an_output_that_is_a_folder_is_named(cmd, flag, kind, trials, tmp_path, capsys):
    folder = tmp_path / "out"
    folder.mkdir()
    code, out, err = run(_argv(cmd, trials, tmp_path, flag, folder), capsys)
    _one_error_line(code, err, f"{flag} {folder}: is a folder")


@pytest.mark.parametrize("cmd, flag, kind", _OUTPUTS, ids=[f"{c} {f}" for c, f, _ in _OUTPUTS])
def test_an_output_in_a_missing_or_unwritable_place_is_named(cmd, flag, kind, trials, tmp_path, capsys):
    code, out, err = run(_argv(cmd, trials, tmp_path, flag, "/no/such/dir/x" + _SUFFIX[kind]), capsys)
    _one_error_line(code, err, f"{flag} /no/such/dir/x{_SUFFIX[kind]}: folder /no/such/dir does not exist")
    if os.path.isdir("/proc/sys") and not os.access("/proc/sys", os.W_OK):
        code, out, err = run(_argv(cmd, trials, tmp_path, flag, "/proc/sys/x" + _SUFFIX[kind]), capsys)
        _one_error_line(code, err, f"{flag} /proc/sys/x{_SUFFIX[kind]}: permission denied")


_PAIRS = [(cmd, a, b) for cmd, files in FILES.items() for i, (_, a, ka) in enumerate(files.outputs)
          for _, b, kb in files.outputs[i + 1:]]


@pytest.mark.parametrize("cmd, first, second", _PAIRS, ids=[f"{c} {a} {b}" for c, a, b in _PAIRS])
def test_no_output_writes_over_another(cmd, first, second, trials, tmp_path, capsys, monkeypatch):
    """`shape-bias --csv S.png --figure S.png` wrote one output over the other."""
    monkeypatch.chdir(tmp_path)
    name = {"--out": "same.html"}.get(first, {"--out": "same.html"}.get(second, "same.png" if "--figure" in
                                                                        (first, second) else "same.csv"))
    code, out, err = run(_argv(cmd, trials, tmp_path, first, name, second, f"./{name}"), capsys)
    _one_error_line(code, err, f"{first} and {second} name the same file ({name} and ./{name})")
    assert not (tmp_path / name).exists()


def test_an_output_named_as_a_folder_or_a_broken_link_is_named(tmp_path, capsys, monkeypatch):
    """`--csv newdir/` wrote a file 'newdir'; a broken symlink failed only after the computation."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["shape-bias", "--resamples", "20", "--csv", "newdir/"], capsys)
    _one_error_line(code, err, "--csv newdir/: names a folder (it ends with '/'), which does not exist")
    assert not (tmp_path / "newdir").exists()
    os.symlink(tmp_path / "nowhere" / "x.csv", tmp_path / "link.csv")
    code, out, err = run(["shape-bias", "--resamples", "20", "--csv", "link.csv"], capsys)
    _one_error_line(code, err, f"--csv link.csv: is a broken symbolic link (to {tmp_path / 'nowhere' / 'x.csv'})")


def test_no_output_writes_over_the_file_stdout_or_stderr_goes_to(tmp_path):
    """`trialwise shape-bias --csv out.txt > out.txt`: the table and the printout would write over each other."""
    argv = [sys.executable, "-m", "trialwise.cli", "shape-bias", "--resamples", "20", "--seed", "1", "--csv"]
    for redirect in ("stdout", "stderr"):
        target = tmp_path / f"{redirect}.txt"
        with open(target, "w") as fh:
            proc = subprocess.run([*argv, str(target)], text=True, timeout=120,
                                  **{redirect: fh, "stdout" if redirect == "stderr" else "stderr": subprocess.PIPE})
        err = proc.stderr if redirect == "stdout" else target.read_text()
        assert proc.returncode == 2, err
        stream = {"stdout": "standard output", "stderr": "standard error"}[redirect]
        assert err == (f"trialwise: error: --csv {target} is also the file {stream} goes to (`>`); the two would "
                       f"write over each other: give --csv another file name\n")
    trials = tmp_path / "t.csv"
    trials.write_text("subject,image,truth,response\n")
    with open(trials, "w") as fh:  # `trialwise ec t.csv --subjects a b > t.csv`: the shell emptied t.csv
        proc = subprocess.run([sys.executable, "-m", "trialwise.cli", "ec", str(trials), "--subjects", "a", "b"],
                              stdout=fh, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"trialwise: error: {trials} is also the file standard output goes to (`>`), "
                                  f"which the shell emptied before trialwise started")
    trials.write_text("subject,image,truth,response\n")
    with open(trials, "a") as fh:  # `>> t.csv`: the printout would be appended to the trials
        proc = subprocess.run([sys.executable, "-m", "trialwise.cli", "ec", str(trials), "--subjects", "a", "b"],
                              stdout=fh, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == (f"trialwise: error: {trials} is also the file standard output goes to (`>>`): trialwise "
                           f"would write into a file it reads; send standard output elsewhere\n")


def test_two_outputs_may_both_be_the_null_device(capsys):
    code, out, err = run(["shape-bias", "--resamples", "20", "--seed", "1", "--csv", "/dev/null", "--figure",
                          "/dev/null"], capsys)
    assert code == 0, err


def test_an_output_inside_an_input_folder_is_refused(tmp_path, capsys):
    """A CSV written into a folder of model-vs-human raw data would be read as data by the next run."""
    folder = tmp_path / "raw"
    folder.mkdir()
    code, out, err = run(["leaderboard", folder, "--csv", folder / "board.csv"], capsys)
    _one_error_line(code, err, f"--csv {folder / 'board.csv'} is inside the folder {folder}")


@pytest.mark.parametrize("argv, fragment", [
    (["ec", "{dir}", "{dir}"], "{dir}: is a folder, not a file"),
    (["ec", "/dev/null", "/dev/null"], "/dev/null: is a character device, not a file to read"),
    (["ec", "{dir}", "--subjects", "a", "b"], "{dir}: is a folder, not a file"),
    (["compare", "{dir}", "--truth", "y", "--a", "a", "--b", "b"], "{dir}: is a folder, not a file"),
    (["compare", "/dev/null", "--truth", "y", "--a", "a", "--b", "b"], "/dev/null: is a character device"),
    (["leaderboard", "/dev/null"], "/dev/null: is a character device, not a file or folder to read"),
    (["shape-bias", "/dev/null"], "/dev/null: is a character device"),
    (["similarity", "/dev/null"], "/dev/null: is a character device"),
    (["brainscore", "/dev/null"], "/dev/null: is a character device"),
    (["brainscore", "{dir}", "--metric", "i2n", "--probabilities", "{dir}"], "--probabilities {dir}: is a folder"),
    (["brainscore", "{dir}", "--metric", "ost", "--osts", "/dev/null"], "--osts /dev/null: is a character device"),
    (["leaderboard", "{dir}/missing.csv"], "{dir}/missing.csv: no such file or folder"),
    (["ec", "{dir}/missing.csv", "{dir}/missing.csv"], "{dir}/missing.csv: no such file"),
])
def test_inputs_that_are_not_files_say_what_they_are(argv, fragment, tmp_path, capsys):
    """A folder or /dev/null given as a file was called 'no such file'."""
    argv = [a.format(dir=tmp_path) for a in argv]
    code, out, err = run(argv, capsys)
    _one_error_line(code, err, fragment.format(dir=tmp_path))


def test_a_pipe_is_a_file_to_read(tmp_path, capsys):
    """`trialwise ec <(zcat a.csv.gz) <(zcat b.csv.gz)`: process substitution gives pipes, which are read."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    from trialwise.cli.common import check_input

    check_input(str(fifo), "CSV", False)  # no error


# --------------------------------------------------------------------------- seeds

_SEED_LINE = re.compile(r"^trialwise: seed (\d+) \(repeat with --seed \1\)$", re.M)


def _seed(err):
    found = _SEED_LINE.findall(err)
    assert len(found) == 1, err
    return int(found[0])


def test_a_run_without_a_seed_draws_one_says_it_and_writes_it_into_the_csv(tmp_path, capsys):
    """Two `trialwise ec` runs gave [0.021, 0.215] and [0.017, 0.217], and nothing said how to repeat either."""
    argv = ["shape-bias", "--resamples", "30", "--compare", "subject-01", "resnet50"]
    code, out1, err1 = run([*argv, "--csv", tmp_path / "a.csv"], capsys)
    assert code == 0, err1
    code, out2, err2 = run([*argv, "--csv", tmp_path / "b.csv"], capsys)
    assert code == 0, err2
    s1, s2 = _seed(err1), _seed(err2)
    assert s1 != s2  # 32 random bits each
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert (a["seed"] == s1).all() and (b["seed"] == s2).all()
    code, out3, err3 = run([*argv, "--csv", tmp_path / "c.csv", "--seed", s1], capsys)
    assert code == 0, err3
    assert (tmp_path / "c.csv").read_bytes() == (tmp_path / "a.csv").read_bytes()
    assert out3 == out1
    assert not _SEED_LINE.search(err3)  # a given seed is not repeated back


def test_the_seed_is_in_the_json_which_stays_valid(capsys):
    argv = ["ec", "--dataset", "model-vs-human", "--experiment", "cue-conflict", "--subjects", "subject-01",
            "resnet50", "--resamples", "200", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    first = json.loads(out)
    assert first["seed"] == _seed(err)
    code, out2, err2 = run([*argv, "--seed", first["seed"]], capsys)
    assert code == 0 and json.loads(out2) == first


def test_the_leaderboard_writes_its_seed_into_both_csvs_and_the_report(tmp_path, capsys):
    argv = ["leaderboard", "--experiments", "edge", "--resamples", "20"]
    out = [tmp_path / n for n in ("r.html", "t.csv", "p.csv")]
    code, _, err = run([*argv, "--out", out[0], "--csv", out[1], "--pairwise-csv", out[2]], capsys)
    assert code == 0, err
    seed = _seed(err)
    assert f"<code>--seed {seed}</code> repeats this report exactly" in out[0].read_text()
    first = [p.read_bytes() for p in out[1:]]
    for p in out[1:]:
        assert (pd.read_csv(p)["seed"] == seed).all()
    code, _, err = run([*argv, "--seed", seed, "--csv", out[1], "--pairwise-csv", out[2]], capsys)
    assert code == 0, err
    assert [p.read_bytes() for p in out[1:]] == first


@pytest.mark.parametrize("cmd, argv", [
    ("plan", ["--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.2",
              "--simulations", "100", "--json"]),
    ("compare", None),
])
def test_json_of_every_seeded_command_holds_the_seed(cmd, argv, tmp_path, capsys):
    if argv is None:
        path = tmp_path / "p.csv"
        pd.DataFrame({"y": list("abcab") * 8, "m1": list("abcaa") * 8, "m2": list("abbab") * 8}).to_csv(path,
                                                                                                        index=False)
        argv = [path, "--truth", "y", "--a", "m1", "--b", "m2", "--resamples", "99", "--json"]
    code, out, err = run([cmd, *argv], capsys)
    assert code == 0, err
    assert json.loads(out)["seed"] == _seed(err)


@pytest.mark.parametrize("ci_method, test, draws", [("analytic", "fisher", False), ("jackknife-t", "asymptotic", False),
                                                    ("analytic", "copy-null", True), ("bca", "fisher", True)])
def test_ec_draws_a_seed_only_when_it_draws_random_numbers(ci_method, test, draws, capsys):
    argv = ["ec", "--dataset", "model-vs-human", "--experiment", "cue-conflict", "--subjects", "subject-01",
            "resnet50", "--resamples", "200", "--ci-method", ci_method, "--test", test, "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    seed = json.loads(out)["seed"]
    if draws:
        assert seed == _seed(err)
    else:
        assert seed is None and "seed" not in err
        code, again, _ = run(argv, capsys)
        assert again == out  # nothing random: the same without a seed


@pytest.mark.parametrize("cmd", [c for c, sub in _subparsers().items()
                                 if any(a.dest == "seed" for a in sub._actions)])
def test_every_seed_option_says_what_happens_without_it(cmd):
    seed = next(a for a in _subparsers()[cmd]._actions if a.dest == "seed")
    assert seed.help.endswith("default: a seed drawn at random, said on stderr and written into the outputs (CSV "
                              "column seed, JSON field seed, the report)")


def test_quiet_does_not_say_the_seed_which_the_outputs_still_hold(capsys):
    code, out, err = run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width",
                          "0.2", "--simulations", "100", "--json", "--quiet"], capsys)
    assert code == 0 and err == ""
    assert isinstance(json.loads(out)["seed"], int)


def test_a_bug_names_the_seed_that_repeats_it(capsys, monkeypatch):
    import trialwise.cli.shape_bias as sb

    def broken(args):
        raise IndexError("boom")

    monkeypatch.setitem(__import__("trialwise.cli.app", fromlist=["COMMANDS"]).COMMANDS, "shape-bias",
                        (sb.add_shape_bias, broken))
    code, out, err = run(["shape-bias"], capsys)
    assert code == 1
    assert re.search(r"internal error \(IndexError: boom\) .* with the command line and --seed \d+ ", err), err


# --------------------------------------------------------------------------- --version, Ctrl-C, closed streams


def _python(code, **kwargs):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, **kwargs)


def test_version(capsys):
    code, out, err = run(["--version"], capsys)
    assert (code, out, err) == (0, "trialwise 0.1.0\n", "")


def test_version_imports_neither_the_commands_nor_numpy():
    proc = _python("""
        import sys
        from trialwise.cli import main
        before = set(sys.modules)
        code = main(["--version"])
        heavy = sorted(m for m in set(sys.modules) - before
                       if m.split(".")[0] in ("numpy", "pandas", "scipy", "matplotlib") or m.startswith("trialwise.cli."))
        print(code, heavy)
    """)
    assert proc.stdout.splitlines() == ["trialwise 0.1.0", "0 []"], proc.stderr


def test_version_of_the_installed_program():
    proc = subprocess.run([sys.executable, "-m", "trialwise.cli", "--version"], capture_output=True, text=True,
                          timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "trialwise 0.1.0\n", "")
    assert "--version" in subprocess.run([sys.executable, "-m", "trialwise.cli", "--help"], capture_output=True,
                                         text=True, timeout=120).stdout


@pytest.mark.parametrize("module", ["trialwise.cli.app", "pandas"])
def test_ctrl_c_while_the_commands_are_imported_is_one_line_and_exit_130(module):
    """The console script does `from trialwise.cli import main`; a Ctrl-C while it imported the commands and
    the library printed a KeyboardInterrupt traceback. An import hook sleeps in the import of the commands
    (or of pandas, which `import trialwise` no longer imports)."""
    code = textwrap.dedent("""
        import sys, time
        class Slow:
            def find_spec(self, name, path=None, target=None):
                if name == "MODULE":
                    sys.stderr.write("importing\\n"); sys.stderr.flush(); time.sleep(60)
                return None
        sys.meta_path.insert(0, Slow())
        from trialwise.cli import main
        sys.exit(main(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.2"]))
    """).replace("MODULE", module)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line == "importing\n", line
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err == "trialwise: interrupted\n"


def test_ctrl_c_handling_is_restored_after_an_in_process_run(capsys):
    before = signal.getsignal(signal.SIGINT)
    run(["--version"], capsys)
    run(["plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa", "0.5", "--half-width", "0.3",
         "--simulations", "50", "--seed", "0", "--quiet"], capsys)
    assert signal.getsignal(signal.SIGINT) is before


_PLAN = [sys.executable, "-m", "trialwise.cli", "plan", "--accuracy-a", "0.7", "--accuracy-b", "0.7", "--kappa",
         "0.5", "--half-width", "0.2", "--simulations", "100", "--seed", "0", "--quiet"]


def test_closed_stdout_is_one_line_and_exit_2():
    """`trialwise plan … >&-` was 'internal error (AttributeError…)' with exit 1."""
    proc = subprocess.run(_PLAN, stderr=subprocess.PIPE, text=True, timeout=120,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("trialwise: error: standard output is closed (`>&-`); send it to a file or to /dev/null "
                           "(`>/dev/null`) instead\n")


def test_closed_stderr_still_prints_the_answer():
    proc = subprocess.run(_PLAN, stdout=subprocess.PIPE, text=True, timeout=120, preexec_fn=lambda: os.close(2))
    assert proc.returncode == 0
    assert "trials" in proc.stdout
