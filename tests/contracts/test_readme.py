"""The README's recipes run as written (issue 29, item 2).

Each fenced block after the first (the two set-up commands) is a recipe: a ``python`` block is
executed, a ``bash`` block is run through the command line's ``main``. They run in a fresh
folder holding the files the recipes name, made here the way a user's files look: their own
column names, rounded probabilities, class columns in another order, logs in folders of their
own — not the bundled files as trialwise ships them.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import trialwise as tw
from trialwise.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks() -> list[tuple[str, str]]:
    """``(language, code)`` of every fenced block of the README, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```", README.read_text(), re.S | re.M)]


def _user_files(d: Path) -> None:
    """The files the recipes read, as a user would have them."""
    t = tw.datasets.model_vs_human("sketch")
    humans = {"subject-01": "p01", "subject-02": "p02", "subject-03": "p03", "subject-04": "p04"}
    models = {"resnet50": "resnet50", "vit-b-16": "vit", "clip-16": "clip"}
    t = t[t.subject.isin(list(humans) + list(models))].copy()
    t["participant"] = t.subject.map({**humans, **models})
    t["kind"] = np.where(t.subject.isin(list(humans)), "human", "model")
    # two conditions of our own (the sketches split in halves), no experiment column
    t["condition"] = np.where(t.image.rank(method="dense") % 2 == 0, "even", "odd")
    trials = t.rename(columns={"image": "stim", "category": "label", "response": "choice"})
    trials[["choice", "participant", "stim", "kind", "condition", "label"]].sample(frac=1, random_state=1).to_csv(
        d / "trials.csv", index=False)

    # two classifiers' predictions with probabilities rounded to 3 decimals, classes in a non-sorted order
    rng = np.random.default_rng(7)
    classes = ["dog", "cat", "eel"]
    n = 300
    label = rng.choice(classes, n)
    out = {"label": label}
    for name, skill in (("resnet", 1.5), ("vit", 2.2)):
        logits = rng.normal(size=(n, 3)) + skill * (np.array(classes)[None, :] == label[:, None])
        p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
        p = np.round(p, 3)
        out[name] = np.array(classes)[p.argmax(1)]
        for k, c in enumerate(classes):
            out[f"{name}_{c}"] = p[:, k]
    pd.DataFrame(out).to_csv(d / "predictions.csv", index=False)

    # two language models' lm-evaluation-harness logs, each in a folder of its own
    demo = Path(tw.datasets.__file__).parent / "llm-demo"
    for src, dst in (("sim__demo-7b", "model-a"), ("sim__demo-13b", "model-b")):
        shutil.copytree(demo / src, d / "logs" / dst)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("user")
    _user_files(d)
    return d


def test_the_readme_has_two_commands_then_four_recipes():
    blocks = _blocks()
    setup = [line for line in blocks[0][1].splitlines() if line.strip() and not line.startswith("#")]
    assert len(setup) == 2
    assert len(blocks) == 5, [lang for lang, _ in blocks]
    for lang, code in blocks[1:]:
        lines = [line for line in code.splitlines() if line.strip()]
        assert len(lines) <= 6, code


def test_the_readme_is_a_short_page():
    words = len(README.read_text().split())
    assert words <= 900, words


@pytest.mark.filterwarnings("ignore::trialwise.TrialwiseWarning")  # a recipe's warnings are for its reader
@pytest.mark.parametrize("k", range(1, 5))
def test_recipe_runs_as_written(k, folder, capsys, monkeypatch):
    lang, code = _blocks()[k]
    monkeypatch.chdir(folder)
    if lang == "python":
        exec(compile(code, f"README recipe {k}", "exec"), {})
    else:
        assert lang in ("bash", "console"), lang
        command = code.replace("\\\n", " ").strip()
        argv = shlex.split(command, comments=True)
        assert argv[0] == "trialwise", argv
        # the report's figures are the slow part; the recipe is checked with fewer replicates
        status = main(argv[1:] + ["--resamples", "200", "--seed", "0", "--quiet"])
        assert status == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert out.strip(), f"recipe {k} printed nothing"
    for name in re.findall(r"--(?:out|csv) (\S+)", code):
        assert (folder / name).stat().st_size > 0
        os.remove(folder / name)
