"""model-vs-human's raw data: its image file names as ids (image_id) and its folders of raw CSVs as trials (read_model_vs_human).

Geirhos et al. (2021), *Partial success in closing the gap between human and machine vision*,
NeurIPS: the raw-data folder holds one CSV per observer and experiment, with the columns
``subj, object_response, category, condition, imagename``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show
from trialwise.io.headers import row_numbers
from trialwise.io.trials import require_column, read_trials
from trialwise.io.tables import check_path, files_under, read_table

__all__ = ["read_model_vs_human", "image_id"]


_IMAGENET_SYNSET = re.compile(r"^n\d{8}$")


def image_id(filenames: Any):
    """The stimulus id inside a model-vs-human ``imagename`` (same for every observer).

    Human file names carry a trial number and an observer code
    (``0001_nse_s01_0.03_elephant_10_n02504458_7209.png``), model file names ``dnn``
    instead of ``s01`` or just the stimulus (``airplane1-bicycle2.png``). The id is the
    last ``_``-separated field without extension, or the last two when they form an
    ImageNet file id (``n02504458_7209``), as in the bundled data.

    Parameters
    ----------
    filenames : sequence of str or pandas.Series
        Image file names.

    Returns
    -------
    pandas.Series
        The ids, as text, with the index of ``filenames``.

    Examples
    --------
    >>> image_id(["0001_nse_s01_0.03_elephant_10_n02504458_7209.png", "airplane1-bicycle2.png",
    ...           "0007_cl_s05_0_airplane_0_airplane1-bicycle2.png"]).tolist()
    ['n02504458_7209', 'airplane1-bicycle2', 'airplane1-bicycle2']
    """
    import pandas as pd

    if filenames is None or isinstance(filenames, (str, bytes)) or not np.iterable(filenames):
        raise InvalidTypeError(f"`filenames` must be a list (or Series) of image file names; got {show(filenames)}")
    s = pd.Series(filenames, dtype=object)
    missing = s.isna().to_numpy()
    if missing.any():
        raise InvalidValueError(f"`filenames` has a missing value at position {int(np.flatnonzero(missing)[0])}")
    text = np.fromiter((isinstance(x, str) for x in s), bool, count=len(s))
    if not text.all():
        i = int(np.flatnonzero(~text)[0])
        raise InvalidTypeError(f"`filenames` must hold file names (text); got {show(s.iloc[i])} at position {i}")
    s = s.astype(str)
    stem = s.str.replace(r"\.[A-Za-z0-9]+$", "", regex=True)
    parts = stem.str.rsplit("_", n=2)
    last = parts.str[-1]
    prev = parts.apply(lambda p: p[-2] if len(p) >= 2 else "")
    imagenet = prev.str.match(_IMAGENET_SYNSET.pattern)
    return pd.Series(np.where(imagenet, prev + "_" + last, last), index=s.index)


_MVH_COLUMNS = ("subj", "object_response", "category", "condition", "imagename")


def read_model_vs_human(path: str | Path, *, humans: str = r"subject-\d+"):
    """Read a folder of model-vs-human raw-data CSVs into a trials table.

    Parameters
    ----------
    path : str or Path
        The benchmark's ``raw-data`` folder (one sub-folder per experiment, named after
        it: ``raw-data/colour/colour_subject-01_session_1.csv``) or one experiment's folder
        (``raw-data/colour``, which holds CSV files itself). Every ``*.csv`` below it is one
        observer's session, with the columns ``subj, session, trial, rt, object_response,
        category, condition, imagename``; deeper folders (a model's results saved in a folder
        of their own, ``colour/colour_cornet-s_dnn/session-1.csv``) belong to the experiment
        above them.
    humans : str
        Regular expression that a ``subj`` of a human observer matches in full
        (default ``subject-\\d+``); all others are models.

    Returns
    -------
    pandas.DataFrame
        As :func:`read_trials` returns it, plus ``rt`` and ``trial``. The experiment is
        the name of the folder under ``path`` that holds the file (at any depth), or the
        name of ``path`` itself when ``path`` holds CSV files directly (one experiment's
        folder); an empty ``condition`` (models of single-condition
        experiments) is ``"0"``; image ids are normalised with :func:`image_id`; a
        response ``na`` (no answer in time) is incorrect.

    Raises
    ------
    TypeError
        ``path`` is not a str or path.
    ValueError
        The folder has no CSV, a file lacks a column or is malformed (file and line
        named), or an observer answered an image twice.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "colour").mkdir()
    >>> header = "subj,session,trial,rt,object_response,category,condition,imagename\\n"
    >>> _ = (root / "colour" / "a.csv").write_text(
    ...     header + "subject-01,1,1,0.8,cat,cat,cr,0001_cr_s01_cr_cat_0_n02123045_1.png\\n")
    >>> _ = (root / "colour" / "b.csv").write_text(
    ...     header + "resnet50,1,1,,dog,cat,cr,0001_cr_dnn_cr_cat_0_n02123045_1.png\\n")
    >>> trials = read_model_vs_human(root)
    >>> trials[["experiment", "subject", "observer_type", "image", "correct"]].values.tolist()
    [['colour', 'subject-01', 'human', 'n02123045_1', True], ['colour', 'resnet50', 'model', 'n02123045_1', False]]
    """
    import pandas as pd

    root = check_path(path, "path")
    if not isinstance(humans, str):
        raise InvalidTypeError(f"`humans` must be a regular expression (str); got {type(humans).__name__} {show(humans)}")
    try:
        human = re.compile(humans)
    except re.error as exc:
        raise InvalidValueError(f"`humans` must be a regular expression; got {humans!r} ({exc})") from None
    if root.is_file():
        raise InvalidValueError(f"{root}: is a file, not a folder: read_model_vs_human reads the raw-data folder "
                                f"of model-vs-human (one CSV per session); read a trials table with read_trials")
    if not root.is_dir():
        raise InvalidValueError(f"{root}: {'is not a folder' if root.exists() else 'no such folder'}")
    files = files_under(root, ("*.csv",))
    if not files:
        raise InvalidValueError(f"{root}: no .csv files found")
    # one experiment's folder holds session files itself; the raw-data folder holds one folder per experiment
    single = root.resolve().name if any(f.parent == root for f in files) else None
    parts = []
    for f in files:
        frame = read_table(f, columns=(*_MVH_COLUMNS, "session", "trial", "rt"))
        for col in _MVH_COLUMNS:
            require_column(frame, col, str(f))
        if len(frame) == 0:
            raise InvalidValueError(f"{f}: the file has no trials")
        for col in ("subj", "imagename", "category", "object_response"):
            if frame[col].isna().any():
                row = int(np.flatnonzero(frame[col].isna().to_numpy())[0])
                raise InvalidValueError(f"{f}: column {col!r} has an empty value (row {row_numbers(frame)[row]})")
        part = pd.DataFrame({
            "experiment": single or f.relative_to(root).parts[0],
            "condition": frame["condition"].fillna("0").replace({"nan": "0", "NaN": "0"}).astype(str),
            "subject": frame["subj"],
            "observer_type": ["human" if human.fullmatch(str(s)) else "model" for s in frame["subj"]],
            "image": image_id(frame["imagename"]).to_numpy(),
            "category": frame["category"],
            "response": frame["object_response"],
            "trial": frame["trial"] if "trial" in frame else "",
            "rt": pd.to_numeric(frame["rt"], errors="coerce") if "rt" in frame else np.nan,
        })
        parts.append(part)
    raw = pd.concat(parts, ignore_index=True)
    source = np.repeat(np.arange(len(files)), [len(p) for p in parts])
    dup = raw.duplicated(subset=["experiment", "subject", "image"], keep=False).to_numpy()
    if dup.any() and len(set(source[dup])) > 1:  # one observer in two files (two sessions, or a copy in a sub-folder)
        e, subj, i = raw.loc[np.flatnonzero(dup)[0], ["experiment", "subject", "image"]]
        same = np.flatnonzero(dup & (raw["experiment"] == e).to_numpy() & (raw["subject"] == subj).to_numpy()
                              & (raw["image"] == i).to_numpy())
        where = sorted({str(files[k]) for k in source[same]})
        if len(where) > 1:
            raise InvalidValueError(f"{root}: observer {subj!r} answered image {i!r} of experiment {e!r} in "
                                    f"{len(where)} files ({', '.join(where[:3])}); keep one file per observer "
                                    f"and session (a copy of a model's results in another folder counts twice)")
    trials = read_trials(raw, truth="category")
    trials["trial"] = raw["trial"].to_numpy()
    trials["rt"] = raw["rt"].to_numpy()
    return trials
