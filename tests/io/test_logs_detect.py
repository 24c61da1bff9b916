"""tw.read_logs: the format recognised from the files, options passed on or refused, clear errors."""

from __future__ import annotations

import json
from importlib import resources

import pytest

import trialwise as tw
from trialwise.cli import main
from trialwise.io.logs.detect import FORMATS, detect_format, reader_options


@pytest.fixture
def demo():
    with resources.as_file(resources.files("trialwise.datasets") / "llm-demo") as folder:
        yield folder


def test_read_logs_is_the_formats_reader(demo):
    trials = tw.read_logs(demo, normalization="length", clusters="subject")
    direct = tw.io.read_lm_eval(demo, normalization="length", clusters="subject")
    assert trials.drop(columns="probabilities").equals(direct.drop(columns="probabilities"))
    assert (trials["probabilities"] == direct["probabilities"]).all()
    assert trials.attrs["log"] == {**direct.attrs["log"], "format": "lm-eval"}
    assert tw.read_logs(demo, format="lm-eval").attrs["log"]["format"] == "lm-eval"


def test_every_reader_takes_clusters_and_unaligned():
    for fmt in FORMATS:
        assert {"clusters", "unaligned"} <= set(reader_options(fmt)), fmt


@pytest.mark.parametrize("call, error, match", [
    (lambda d: tw.read_logs(d, format="csv"), ValueError,
     r"`format` must be one of \['lm-eval', 'helm', 'inspect', 'lighteval', 'every-eval-ever'\] or None; got 'csv'"),
    (lambda d: tw.read_logs(d, format=3), TypeError, r"`format` must be a str or None; got int 3"),
    (lambda d: tw.read_logs(d, scorer="choice"), ValueError,
     r"`scorer` is not an option of lm-evaluation-harness logs \(read_lm_eval takes: normalization, filter_name, "
     r"clusters, unaligned, score, map_answers, answer_pattern\)"),
    (lambda d: tw.read_logs(None), TypeError, r"`paths` must be a file or folder path or a non-empty list"),
    (lambda d: tw.read_logs([d, 3]), TypeError, r"`paths` must hold file or folder paths; got int 3"),
    (lambda d: tw.read_logs(d / "missing"), ValueError, r"missing: no such file or folder"),
])
def test_bad_calls(demo, call, error, match):
    with pytest.raises(error, match=match):
        call(demo)


def test_what_is_not_a_log(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(tw.InvalidValueError, match=r"empty: no evaluation logs found \(lm-evaluation-harness "
                                                   r"samples_.*every-eval-ever instance-level \*\.jsonl\)"):
        detect_format(tmp_path / "empty")
    table = tmp_path / "table.jsonl"
    table.write_text(json.dumps({"model": "a", "question": 1}) + "\n")
    with pytest.raises(tw.InvalidValueError, match=r"table\.jsonl: not an evaluation log \(expected .*\); choose the "
                                                   r"format with `format`"):
        tw.read_logs(table)
    assert main(["similarity", str(table)]) == 2
    assert "choose the format with --format" in capsys.readouterr().err


def test_mixed_formats_name_a_file_of_each(demo, tmp_path, capsys):
    folder = tmp_path / "mixed"
    folder.mkdir()
    record = {"schema_version": "0.3.0", "evaluation_id": "e", "model_id": "m", "evaluation_name": "t",
              "sample_id": "s", "input": {"reference": ["x"]}, "evaluation": {"score": 1.0, "is_correct": True}}
    (folder / "instances.jsonl").write_text(json.dumps(record) + "\n")
    (folder / "run.eval").write_bytes(b"PK")
    with pytest.raises(tw.InvalidValueError, match=r"\.jsonl\.gz holds lm-evaluation-harness logs, .*run\.eval "
                                                   r"Inspect AI logs and .*instances\.jsonl every-eval-ever logs; "
                                                   r"read one format at a time, or choose it with `format`"):
        tw.read_logs([folder, demo])
    assert detect_format(folder / "instances.jsonl") == "every-eval-ever"
    assert main(["similarity", str(demo), "--scorer", "choice"]) == 2
    assert "--scorer applies to Inspect AI logs; these are lm-evaluation-harness logs" in capsys.readouterr().err
