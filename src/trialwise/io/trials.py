"""Trial tables: :func:`read_trials` (any table of trials, checked, in one column vocabulary,
:data:`TRIAL_COLUMNS`) and :func:`paired_correctness` (two observers' trials paired by item).

Why this module is long: about 600 lines, the checks of a trial table (columns, labels,
correctness, per-item scores, option probabilities), which every reader shares. Reading a file
is :mod:`trialwise.io.tables`; model-vs-human's raw-data folders :mod:`trialwise.io.model_vs_human`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import show
from trialwise.io.headers import drop_empty_rows, match_columns, row_numbers
from trialwise.io.labels import code_labels, read_number
from trialwise.io.tables import check_path, decimal_comma_hint, read_table

__all__ = ["paired_correctness", "read_trials", "TRIAL_COLUMNS", "OPTION_COLUMNS", "PROBABILITY_SUM_TOLERANCE", "check_probabilities", "SCORE_COLUMN", "SCORE_SOURCE", "check_scores"]

#: Columns of a trials table as :func:`read_trials` returns it.
TRIAL_COLUMNS = ("experiment", "condition", "subject", "observer_type", "image", "truth", "response", "correct")
#: The columns after :data:`TRIAL_COLUMNS` when the options' probabilities are known (multiple choice):
#: the number of options of the item and a tuple with one probability per option, in option order.
OPTION_COLUMNS = ("n_options", "probabilities")
#: Tolerance of the check that an item's option probabilities sum to 1.
PROBABILITY_SUM_TOLERANCE = 1e-6
#: The column of a per-item score in [0, 1] (partial credit, F1, ...) when one is read (``read_trials(score=...)``,
#: ``read_lm_eval(score=...)``); an accuracy leaderboard averages it instead of ``correct``.
SCORE_COLUMN = "score"
#: Key of ``DataFrame.attrs`` naming the column the scores were read from (``read_trials(score=...)``,
#: ``read_lm_eval(score=...)``): only a table that carries it has its ``score`` column used.
SCORE_SOURCE = "score_source"


def check_probabilities(probabilities: Any, where: str, field: str) -> tuple[float, ...]:
    """One item's option probabilities as a tuple, or an ``InvalidValueError`` naming ``where`` and ``field``.

    Each must be finite and in [0, 1], and together they must sum to 1 within
    :data:`PROBABILITY_SUM_TOLERANCE`; there must be at least two options.
    """
    try:
        p = np.asarray(probabilities, dtype=float)
    except (TypeError, ValueError):
        raise InvalidValueError(f"{where}: `{field}` must hold one probability per option; got "
                                f"{show(probabilities)}") from None
    if p.ndim != 1 or p.size < 2:
        raise InvalidValueError(f"{where}: `{field}` must hold one probability per option (at least 2); "
                                f"got {show(p.tolist() if p.ndim else probabilities)}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise InvalidValueError(f"{where}: `{field}` must be probabilities in [0, 1]; got {show(p.tolist())}")
    total = float(p.sum())
    if abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE:
        raise InvalidValueError(f"{where}: `{field}` must sum to 1 over the options; they sum to {total:.6g} "
                                f"({show(p.tolist())})")
    return tuple(p.tolist())


def check_scores(values: Any, where: str, column: str) -> np.ndarray:
    """Per-item scores as float64, or an ``InvalidValueError`` naming ``where``, ``column`` and a bad value.

    Every score must be a number in [0, 1]; an empty cell (NaN) is an error, never dropped.
    """
    import pandas as pd

    numbers = row_numbers(values) if isinstance(values, pd.Series) else np.arange(1, len(values) + 1)
    raw = pd.Series(values).reset_index(drop=True)
    num = pd.to_numeric(raw, errors="coerce") if raw.dtype == object else raw
    if num.dtype == bool:
        num = num.astype(float)
    try:
        x = np.asarray(num, dtype=float)
    except (TypeError, ValueError):
        x = np.asarray(pd.to_numeric(raw, errors="coerce"), dtype=float)
    missing = np.isnan(x)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InvalidValueError(f"{where}: column {column!r} must hold a score in [0, 1] on every row; row {numbers[row]} "
                                f"has {show(raw.tolist()[row])}{decimal_comma_hint(raw.tolist()[row])}")
    bad = (x < 0) | (x > 1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidValueError(f"{where}: column {column!r} must hold scores in [0, 1]; row {numbers[row]} has "
                                f"{show(raw.tolist()[row])}")
    return x


def require_column(frame, column: str, what: str) -> None:
    if column not in frame.columns:
        raise InvalidValueError(f"{what}: no column {column!r}; columns found: {', '.join(map(str, frame.columns))}")


def _correctness(frame, *, truth: str, response: str, correct: str | None, what: str) -> np.ndarray:
    if correct is not None:
        require_column(frame, correct, what)
        if frame[correct].isna().any():  # pd.NA, None, NaN: a missing value, not a correctness
            row = int(np.flatnonzero(frame[correct].isna().to_numpy())[0])
            raise InvalidValueError(f"{what}: column {correct!r} has an empty value (row {row_numbers(frame)[row]}); "
                                    f"leave out the trials an observer did not do")
        raw = frame[correct].astype(str).str.strip().str.lower()
        mapping = {"1": True, "0": False, "true": True, "false": False, "1.0": True, "0.0": False}
        bad = ~raw.isin(list(mapping))
        if bad.any():
            raise InvalidValueError(
                f"{what}: column {correct!r} must hold 0/1 or true/false; found {frame[correct][bad].iloc[0]!r}"
            )
        return raw.map(mapping).to_numpy(bool)
    require_column(frame, truth, what)
    require_column(frame, response, what)
    for col in (truth, response):
        if frame[col].isna().any():
            row = int(np.flatnonzero(frame[col].isna().to_numpy())[0])
            raise InvalidValueError(f"{what}: column {col!r} has an empty value (row {row_numbers(frame)[row]}); code non-responses as a label such as 'na'")
        several = _containers(frame[col])
        if several.any():  # compared as its text, a list of acceptable answers would match no response
            row = int(np.flatnonzero(several)[0])
            raise InvalidValueError(
                f"{what}: column {col!r} holds a list, not one label (row {row_numbers(frame)[row]}: "
                f"{show(frame[col].iloc[row])}); a trial has one {col}: for several acceptable answers, "
                f"give the correctness yourself as a 0/1 column and pass it as `correct`")
    return _same_label(frame[response].astype(str).to_numpy(object), frame[truth].astype(str).to_numpy(object))


#: What pandas' ``infer_dtype`` calls a column of scalars only: no cell can hold a list.
_SCALAR_KINDS = frozenset({"string", "integer", "floating", "boolean", "mixed-integer-float", "decimal", "complex",
                           "categorical", "datetime64", "datetime", "date", "timedelta64", "timedelta", "time",
                           "period", "empty"})


def _containers(column) -> np.ndarray:
    """Per cell, whether it holds a list, tuple, set, dict or array; a column of scalars (as pandas infers it
    in one pass in C, e.g. every column read from a CSV) is not looked at cell by cell."""
    import pandas as pd

    if pd.api.types.infer_dtype(column, skipna=True) in _SCALAR_KINDS:
        return np.zeros(len(column), bool)
    return column.map(lambda v: isinstance(v, (list, tuple, set, frozenset, dict, np.ndarray))).to_numpy(bool)


def _same_label(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Item by item, whether two text labels are the same class, by the one rule of :mod:`trialwise.io.labels`
    (:func:`~trialwise.io.labels.code_labels`): equal text, or text that reads as the same number (``'1'`` and
    ``'1.0'``, as another program may write a column; ``'True'``/``'TRUE'`` and ``'1'``, as a 2-AFC table
    with 0/1 truth and true/false answers, not where the labels hold other numbers). Other text never matches
    a number. The whole columns are coded together, so whether true/false is 1/0 is decided on all their labels."""
    return np.asarray(code_labels({"response": a, "truth": b}).matches("response", "truth"), dtype=bool)


def paired_correctness(
    a: Any,
    b: Any,
    *,
    image: str = "image",
    truth: str | None = None,
    response: str = "response",
    correct: str | None = None,
    keys: Sequence[str] | None = None,
    names: tuple[str, str] = ("a", "b"),
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Correctness of two observers on the items both saw, paired by item.

    Each table's columns are found as in :func:`read_trials` (:mod:`trialwise.io.headers`:
    header names ignoring surrounding spaces and, for the names looked for, letter case);
    a row whose every field is empty is skipped with a warning.

    Parameters
    ----------
    a, b : pandas.DataFrame
        One observer's trials each (one row per item).
    image : str
        The item-id column.
    truth : str, optional
        Column of the correct label (default: ``truth``, else ``category``, in each table).
    response : str
        Column of the observer's answer. A trial is correct when response and truth are the
        same label by the rule of :mod:`trialwise.io.labels`: equal text, or the same number
        (``"1"`` and ``"1.0"``; ``"TRUE"``/``"True"`` and ``"1"``).
    correct : str, optional
        A 0/1 (or true/false) correctness column to use instead of truth/response.
    keys : sequence of str, optional
        Columns that identify an item together (default: those of ``experiment``,
        ``condition`` present in both tables, then ``image``).
    names : (str, str)
        How to call the two tables in error messages.

    Returns
    -------
    correct_a, correct_b : ndarray of bool
        Paired correctness, in the order of ``a``'s rows.
    info : dict
        ``n`` paired items, ``only_a`` / ``only_b`` items seen by one observer only
        (left out: EC uses the items both saw).

    Raises
    ------
    TypeError
        ``a`` or ``b`` is not a DataFrame, or ``keys`` is not a list of column names.
    ValueError
        A column is missing (the message lists the columns found), two headers differ
        only in letter case (and neither is the name looked for) or surrounding spaces
        (both named), an empty value (its row: the table's index + 1,
        :func:`trialwise.io.headers.row_numbers`), an item occurs twice for one observer, or
        the observers share no item.

    Warns
    -----
    TrialwiseWarning
        Rows with every field empty were skipped (the message names the table and rows).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"image": ["i1", "i2", "i3"], "truth": ["cat", "dog", "car"],
    ...                   "response": ["cat", "cat", "car"]})
    >>> b = pd.DataFrame({"image": ["i3", "i1", "i4"], "truth": ["car", "cat", "dog"],
    ...                   "response": ["dog", "cat", "dog"]})
    >>> ca, cb, info = paired_correctness(a, b)
    >>> ca.tolist(), cb.tolist(), info
    ([True, True], [True, False], {'n': 2, 'only_a': 1, 'only_b': 1})
    """
    import pandas as pd

    for frame, arg in ((a, "a"), (b, "b")):
        if not isinstance(frame, pd.DataFrame):
            raise InvalidTypeError(f"`{arg}` must be a pandas DataFrame of one observer's trials; got "
                            f"{type(frame).__name__} {show(frame)}")
    if not (isinstance(names, (tuple, list)) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        raise InvalidTypeError(f"`names` must be two names (str, str) for the tables in messages; got {show(names)}")
    wanted = [image, response, correct, *((truth,) if truth is not None else ("truth", "category")),
              *(("experiment", "condition") if keys is None else () if isinstance(keys, str) else
                keys if isinstance(keys, Sequence) else ())]
    wanted = [w for w in wanted if isinstance(w, str)]
    a, b = (drop_empty_rows(match_columns(frame, wanted, name), name) for frame, name in ((a, names[0]), (b, names[1])))
    for frame, name in ((a, names[0]), (b, names[1])):
        if len(frame) == 0:
            raise InvalidValueError(f"{name}: the table has no rows")
    if keys is None:
        keys = [k for k in ("experiment", "condition") if k in a.columns and k in b.columns] + [image]
    elif isinstance(keys, str) or not all(isinstance(k, str) for k in keys):
        raise InvalidTypeError(f"`keys` must be a list of column names; got {show(keys)}")
    keys = list(keys)
    if not keys:
        raise InvalidValueError("`keys` is empty: name the column(s) that identify an item")
    out = []
    for frame, name in ((a, names[0]), (b, names[1])):
        for k in keys:
            require_column(frame, k, name)
        dup = frame.duplicated(subset=keys)
        if dup.any():
            row = frame.loc[dup, keys].iloc[0].tolist()
            raise InvalidValueError(f"{name}: item {row} occurs more than once for this observer")
        sub = frame[keys].astype(str).copy()
        t_col = truth if truth is not None else "category" if "category" in frame and "truth" not in frame else "truth"
        sub["__correct"] = _correctness(frame, truth=t_col, response=response, correct=correct, what=name)
        out.append(sub)
    merged = out[0].merge(out[1], on=keys, how="inner", suffixes=("_a", "_b"))
    if "condition" in keys:
        _check_paired_conditions(out, keys, len(merged), names)
    if merged.empty:
        raise InvalidValueError(f"{names[0]} and {names[1]} share no item (matched on {', '.join(keys)})")
    info = {"n": len(merged), "only_a": len(out[0]) - len(merged), "only_b": len(out[1]) - len(merged)}
    return merged["__correct_a"].to_numpy(bool), merged["__correct_b"].to_numpy(bool), info


def _check_paired_conditions(tables: list, keys: list[str], n_paired: int, names: tuple[str, str]) -> None:
    """The number-formatting error of :func:`check_items` when items go unpaired only because one table writes
    a condition as another number text (``"0.10"`` / ``"0.1"``)."""
    import pandas as pd

    norm = [t[keys].assign(condition=_numeric_form(t["condition"]), __raw=t["condition"]) for t in tables]
    both = norm[0].merge(norm[1], on=keys, how="inner", suffixes=("_a", "_b"))
    differ = both[both["__raw_a"] != both["__raw_b"]]
    if len(both) <= n_paired or differ.empty:
        return
    item = [k for k in keys if k not in ("experiment", "condition")]
    first = differ.iloc[0]
    rows = pd.DataFrame({"experiment": str(first["experiment"]) if "experiment" in keys else "all",
                         "image": " ".join(str(first[k]) for k in item),
                         "condition": [first["__raw_a"], first["__raw_b"]], "subject": list(names)})
    _check_number_formatting(rows, rows["experiment"].iloc[0], rows["image"].iloc[0], len(differ),
                             f"{names[0]} and {names[1]}")


# --------------------------------------------------------------------------- tidy trials


def _pick(frame, given: str | None, defaults: Sequence[str], what: str, required: bool = True) -> str | None:
    if given is not None:
        require_column(frame, given, what)
        return given
    for name in defaults:
        if name in frame.columns:
            return name
    if required:
        raise InvalidValueError(f"{what}: no column {defaults[0]!r}; columns found: {', '.join(map(str, frame.columns))}")
    return None


def _observer_types(column: Any) -> Any:
    """A table's observer types as text: an empty cell is ``""`` (no type); ``human`` and ``model``
    in any letter case or padding (``Human``, `` MODEL``) are those two words, the vocabulary every
    benchmark's reference group is named by; any other type as written."""
    text = column.astype(object).where(column.notna(), "").astype(str)
    folded = text.str.strip().str.lower()
    return text.where(~folded.isin(["human", "model"]), folded)


def read_trials(
    source: Any,
    *,
    subject: str = "subject",
    image: str = "image",
    truth: str | None = None,
    response: str = "response",
    correct: str | None = None,
    condition: str | None = None,
    experiment: str | None = None,
    observer_type: str | None = None,
    probabilities: str | Sequence[str] | None = None,
    clusters: str | None = None,
    score: str | None = None,
):
    """A long table of trials, checked and put into trialwise's column names.

    The columns are found as :mod:`trialwise.io.headers` says: header names ignoring the spaces
    around them and, for the names looked for (those given, else the defaults below and the
    alias ``category``), letter case (``Subject``, ``IMAGE``); values are kept as they are.
    A row whose every field is empty (``,,,,``) is not a trial and is skipped with a warning.

    Parameters
    ----------
    source : str, path or pandas.DataFrame
        A CSV (optionally gzip-compressed) or Parquet file, or a DataFrame; one row per
        trial (one observer's response to one item).
    subject, image, response : str
        Column names of the observer id, the item id and the observer's answer.
    truth : str, optional
        Column of the correct answer (default: ``truth``, else ``category``). A trial is
        correct when its response is the same label as the truth by the rule of
        :mod:`trialwise.io.labels`: equal text, or the same number (``"1"`` and ``"1.0"``, as
        another program may have written them; ``"TRUE"``/``"True"`` and ``"1"``, as in a
        2-AFC table with 0/1 truth and true/false answers).
    correct : str, optional
        A 0/1 (true/false) correctness column, used instead of truth and response (default:
        ``correct`` when the table has neither a truth nor a ``category`` column, nor
        ``score``).
    condition, experiment : str, optional
        Grouping columns (default: ``condition`` / ``experiment`` when present; a table
        without one is a single condition ``"0"`` / experiment ``"all"``).
    observer_type : str, optional
        Column saying which observers are ``human`` (the reference group of a benchmark)
        and which ``model`` (default: ``observer_type`` when present, else empty). An
        empty cell means "no type" and is read as ``""`` (e.g. your own model's rows
        saved next to the bundled humans). ``Human``, ``HUMAN`` or `` human `` are the
        type ``human`` (and likewise ``model``), as headers are matched ignoring case and
        padding; every other type is kept as written.
    probabilities : str or list of str, optional
        The options' probabilities of multiple-choice trials (e.g. a language model's
        softmax over the answer options): a list of columns, one per option in option
        order (``["p_A", "p_B", "p_C", "p_D"]``), or one column whose cells each hold a
        sequence of probabilities (a list, a tuple, or text such as ``"[0.1, 0.9]"``;
        questions may then have different numbers of options). Each trial's probabilities
        must lie in [0, 1] and sum to 1; truth and response are then option indices
        (``"0"``, ``"1"``, …): a truth that is not an index of its row's options, or a
        numeric response outside them, is an error naming the row (a response such as
        ``"na"``, no answer, is kept). Adds the columns :data:`OPTION_COLUMNS`, as the
        evaluation-log readers give them (:func:`trialwise.io.read_lm_eval`).
    clusters : str, optional
        A column that groups items (a passage, a subject), copied into a ``cluster``
        column (for ``clusters="cluster"`` in :func:`trialwise.leaderboard` and
        :func:`trialwise.pairwise_agreement`); every trial on an item must carry the same
        label.
    score : str, optional
        A column of per-item scores in [0, 1] (partial credit, F1, exact match averaged over
        samples), copied into a float ``score`` column (:data:`SCORE_COLUMN`) that an accuracy
        leaderboard averages instead of ``correct`` (``docs/language_models.md``, "Scores that
        are not 0/1"). A value outside [0, 1] or an empty cell is an error naming the column
        and the row. Without a truth column and ``correct``, a trial is ``correct`` when its
        score is 1.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TRIAL_COLUMNS` (``correct`` bool, the others text), one row per
        trial, in the input order; then :data:`OPTION_COLUMNS` with ``probabilities``,
        ``score`` with ``score`` and ``cluster`` with ``clusters``.

    Warns
    -----
    TrialwiseWarning
        Rows with every field empty were skipped (the message names the table and the
        lines or rows).

    Raises
    ------
    TypeError
        ``source`` is neither a DataFrame nor a path.
    ValueError
        A named column is missing (the message lists the columns found) or two headers
        differ only in letter case (and neither is the name looked for) or surrounding
        spaces (both named), a key column has an empty value (its row given as in the
        file, counting skipped empty rows: :func:`trialwise.io.headers.row_numbers`), an observer answered the same item twice, or
        one item has two different correct answers or conditions. Two common causes
        are named with their fix: a table that concatenates rows of
        :func:`trialwise.datasets.model_vs_human` (column ``category``) with rows of
        ``read_trials`` (column ``truth``), and conditions that differ only in number
        formatting (``"40"`` vs ``"40.0"``, from a CSV read with pandas' default dtypes).

    Examples
    --------
    >>> import pandas as pd
    >>> raw = pd.DataFrame({"participant": ["p1", "p1", "net", "net"], "stim": ["a", "b", "a", "b"],
    ...                     "label": ["cat", "dog", "cat", "dog"], "choice": ["cat", "cat", "cat", "dog"]})
    >>> t = read_trials(raw, subject="participant", image="stim", truth="label", response="choice")
    >>> t[["subject", "image", "correct"]].values.tolist()
    [['p1', 'a', True], ['p1', 'b', False], ['net', 'a', True], ['net', 'b', True]]
    """
    import pandas as pd

    # the columns looked for, matched in any letter case (trialwise.io.headers): those named, else the defaults
    wanted = [subject, image, response, *((truth,) if truth is not None else ("truth", "category")),
              correct or "correct", condition or "condition", experiment or "experiment",
              observer_type or "observer_type", clusters, score,
              *([probabilities] if isinstance(probabilities, str) else
                probabilities if isinstance(probabilities, Sequence) else [])]
    wanted = [w for w in wanted if isinstance(w, str)]
    if isinstance(source, pd.DataFrame):
        frame, what = drop_empty_rows(match_columns(source, wanted, "trials"), "trials"), "trials"
    else:
        frame, what = read_table(check_path(source, "source", frame_ok=True), columns=wanted), str(source)
    if len(frame) == 0:
        raise InvalidValueError(f"{what}: the table has no rows")
    check_layout(frame, what)
    require_column(frame, subject, what)
    require_column(frame, image, what)
    out = pd.DataFrame(index=frame.index)
    exp_col = _pick(frame, experiment, ["experiment"], what, required=False)
    cond_col = _pick(frame, condition, ["condition"], what, required=False)
    type_col = _pick(frame, observer_type, ["observer_type"], what, required=False)
    out["experiment"] = frame[exp_col].astype(str) if exp_col else "all"
    out["condition"] = frame[cond_col].astype(str) if cond_col else "0"
    out["subject"] = frame[subject]
    # a missing type (an empty cell, e.g. your own model's rows next to the bundled humans) is "" = no type
    out["observer_type"] = _observer_types(frame[type_col]) if type_col else ""
    out["image"] = frame[image]
    for col, src in (("experiment", exp_col), ("condition", cond_col), ("subject", subject), ("image", image)):
        if src is not None and frame[src].isna().any():
            row = int(np.flatnonzero(frame[src].isna().to_numpy())[0])
            raise InvalidValueError(f"{what}: column {src!r} has an empty value (row {row_numbers(frame)[row]})")
        out[col] = out[col].astype(str)
    if correct is None and score is None and truth is None and "correct" in frame.columns and not {
            "truth", "category"} & set(frame.columns):
        correct = "correct"  # a table of correctness only (e.g. a leaderboard's input with no labels)
    scores = None
    if score is not None:
        if not isinstance(score, str):
            raise InvalidTypeError(f"`score` must be the name of a column; got {type(score).__name__} {show(score)}")
        require_column(frame, score, what)
        scores = check_scores(frame[score], what, score)
    if correct is None and scores is not None and _pick(frame, truth, ["truth", "category"], what,
                                                        required=False) is None:
        out["correct"] = scores == 1.0  # no truth: full credit is correct
        out["truth"] = ""
        out["response"] = frame[response] if response in frame.columns else ""
    elif correct is None:
        t_col = _pick(frame, truth, ["truth", "category"], what)
        require_column(frame, response, what)
        out["truth"] = frame[t_col]
        out["response"] = frame[response]
        out["correct"] = _correctness(out, truth="truth", response="response", correct=None, what=what)
    else:
        out["correct"] = _correctness(frame, truth="", response="", correct=correct, what=what)
        t_col = _pick(frame, truth, ["truth", "category"], what, required=False)
        out["truth"] = frame[t_col] if t_col else ""
        out["response"] = frame[response] if response in frame.columns else ""
    out["truth"] = out["truth"].astype(str)
    out["response"] = out["response"].astype(str)
    check_items(out.assign(**{_REPLICATES: frame[_REPLICATES].to_numpy()}) if _REPLICATES in frame.columns else out,
                what)
    if probabilities is not None:
        out["n_options"], out["probabilities"] = _option_probabilities(frame, probabilities, what)
        _check_option_indices(out, what)
    if scores is not None:
        out[SCORE_COLUMN] = scores
        out.attrs[SCORE_SOURCE] = score
    if clusters is not None:
        require_column(frame, clusters, what)
        if frame[clusters].isna().any():
            row = int(np.flatnonzero(frame[clusters].isna().to_numpy())[0])
            raise InvalidValueError(f"{what}: column {clusters!r} (`clusters`) has an empty value (row {row_numbers(frame)[row]})")
        out["cluster"] = frame[clusters].astype(str)
        per_item = out.groupby(["experiment", "condition", "image"])["cluster"].nunique()
        if (per_item > 1).any():
            e, c, i = per_item.index[int(np.flatnonzero((per_item > 1).to_numpy())[0])]
            raise InvalidValueError(f"{what}: item {i!r} (condition {c!r}) has more than one label in column "
                                    f"{clusters!r} (`clusters`); a cluster label belongs to the item")
    return out.reset_index(drop=True)


def _check_option_indices(out, what: str) -> None:
    """With option probabilities, ``truth`` (and a numeric ``response``) must be option indices 0 … n_options − 1:
    an error naming the row otherwise (a label such as 'cat' would silently pair with no probability)."""
    import pandas as pd

    numbers, k = row_numbers(out), out["n_options"].to_numpy()
    for col in ("truth", "response"):
        text = out[col].astype(str)
        idx = pd.to_numeric(text.map(read_number), errors="coerce").to_numpy(dtype=float)
        ok = np.isfinite(idx) & (idx == np.round(idx)) & (idx >= 0) & (idx < k)
        bad = ~ok if col == "truth" else ~ok & np.isfinite(idx)  # a response may be text such as 'na' (no answer)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InvalidValueError(f"{what}: row {numbers[row]}: with `probabilities`, column {col!r} must hold option "
                                    f"indices 0 to {k[row] - 1} (the row has {k[row]} options); got {text.iloc[row]!r}")


def _option_probabilities(frame, probabilities: Any, what: str) -> tuple[list[int], list[tuple[float, ...]]]:
    """``n_options`` and ``probabilities`` of every row from option columns or one list column."""
    import ast

    import pandas as pd

    if isinstance(probabilities, str):
        require_column(frame, probabilities, what)
        cells, numbers = [], row_numbers(frame)
        for row, cell in enumerate(frame[probabilities].tolist()):
            if isinstance(cell, str):
                try:
                    cell = ast.literal_eval(cell.strip())
                except (ValueError, SyntaxError):
                    raise InvalidValueError(f"{what}: row {numbers[row]}: column {probabilities!r} must hold a list of "
                                            f"probabilities; got {show(cell)}") from None
            cells.append(check_probabilities(cell, f"{what}: row {numbers[row]}", probabilities))
    else:
        cols = list(probabilities) if isinstance(probabilities, Sequence) else None
        if not cols or not all(isinstance(c, str) for c in cols):
            raise InvalidTypeError(f"`probabilities` must be a column name or a list of column names (one per "
                                   f"option); got {probabilities!r}")
        for c in cols:
            require_column(frame, c, what)
        numbers = row_numbers(frame)
        values = frame[cols].apply(lambda col: col if pd.api.types.is_numeric_dtype(col) else col.map(read_number))
        for c in cols:
            unread = frame[c].notna().to_numpy() & values[c].isna().to_numpy()
            if unread.any():
                k = int(np.flatnonzero(unread)[0])
                raise InvalidValueError(f"{what}: row {numbers[k]}: column {c!r} (`probabilities`) must hold a number; got "
                                        f"{show(frame[c].iloc[k])}{decimal_comma_hint(frame[c].iloc[k])}")
        cells = [check_probabilities(row, f"{what}: row {numbers[k]}", "probabilities")
                 for k, row in enumerate(values.to_numpy(dtype=float))]
    return [len(p) for p in cells], cells


def check_layout(frame, what: str) -> None:
    """A ``ValueError`` for a table that mixes the bundled datasets' columns with read_trials' columns.

    ``pd.concat`` of :func:`trialwise.datasets.model_vs_human` rows (correct answer in
    ``category``) and :func:`read_trials` rows (in ``truth``) gives a table in which each
    row has only one of the two; reading it as one table would then complain about empty
    values, which hides the cause.
    """
    if "truth" not in frame.columns or "category" not in frame.columns:
        return
    t_na, c_na = frame["truth"].isna().to_numpy(), frame["category"].isna().to_numpy()
    only_category, only_truth = ~c_na & t_na, ~t_na & c_na
    if not (np.any(only_category) and np.any(only_truth)):
        return
    row = int(np.flatnonzero(only_category)[0])
    raise InvalidValueError(
        f"{what}: {int(np.sum(only_category))} row(s) have the correct answer in column 'category' and an empty "
        f"'truth' (e.g. row {row_numbers(frame)[row]}), {int(np.sum(only_truth))} row(s) the other way round: this table "
        "concatenates two tables with different column names — rows of trialwise.datasets (column 'category') "
        "and rows of trialwise.read_trials (column 'truth'). Put each part through read_trials before "
        "concatenating: pd.concat([tw.read_trials(bundled), tw.read_trials(mine)], ignore_index=True)"
    )


def _numeric_form(values):
    """Condition labels with numbers in one canonical form (``"40"``, ``"40.0"`` → ``"40.0"``); text as is."""
    import pandas as pd

    num = pd.to_numeric(values, errors="coerce")
    return values.where(num.isna(), num.astype(float).map(repr))


#: The column of repeated runs, :data:`trialwise.io.logs.records.REPLICATE_COLUMN` (that module imports this one).
_REPLICATES = "replicate"


def check_items(trials, what: str) -> None:
    """One answer per observer and item; one truth and one condition per item."""
    keys = ["experiment", "subject", "image"]
    dup = trials.duplicated(subset=keys)
    if dup.any() and _REPLICATES in trials.columns:
        e, s, i = trials.loc[dup, keys].iloc[0]
        raise InvalidValueError(f"{what}: repeated runs (column {_REPLICATES!r}: observer {s!r} ran image {i!r} "
                                f"of experiment {e!r} more than once), which this function does not use: keep one "
                                f"run per item (e.g. trials[trials.{_REPLICATES} == 1]), or use the functions "
                                f"that use every replicate: tw.leaderboard(..., protocol='accuracy'), "
                                f"tw.leaderboards.replicate_accuracy, tw.pairwise_agreement")
    if dup.any():
        e, s, i = trials.loc[dup, keys].iloc[0]
        raise InvalidValueError(f"{what}: observer {s!r} answered image {i!r} of experiment {e!r} more than once "
                         f"({int(dup.sum())} duplicate trial(s))")
    for col, noun in (("condition", "condition"), ("truth", "correct answer")):
        if col == "truth" and (trials["truth"] == "").all():
            continue
        n = trials.groupby(["experiment", "image"], sort=False)[col].nunique()
        if (n > 1).any():
            e, i = n.index[np.flatnonzero((n > 1).to_numpy())[0]]
            if col == "condition":
                _check_number_formatting(trials, e, i, int((n > 1).sum()), what)
            raise InvalidValueError(f"{what}: image {i!r} of experiment {e!r} has more than one {noun} across "
                             f"observers ({int((n > 1).sum())} such image(s))")


def _check_number_formatting(trials, experiment: str, image: str, n_images: int, what: str) -> None:
    """The cause of two conditions for one image when they are the same number written twice ('40', '40.0')."""
    rows = trials[(trials["experiment"] == experiment) & (trials["image"] == image)]
    labels = rows["condition"]
    if labels.nunique() < 2 or _numeric_form(labels).nunique() != 1:
        return
    by_label = rows.groupby("condition", sort=True)["subject"].agg(lambda s: sorted(s)[:3])
    used = "; ".join(f"{c!r} by {', '.join(map(repr, subj))}" for c, subj in by_label.items())
    raise InvalidValueError(
        f"{what}: {n_images} image(s) have more than one condition across observers, and the labels differ only "
        f"in number formatting — e.g. image {image!r} of experiment {experiment!r}: {used}. Conditions are text; "
        "a CSV read with pandas' default dtypes turns them into numbers (40 → 40.0, 0.90 → 0.9) for the "
        "observers whose file holds only numeric conditions. Read such files as text — pd.read_csv(path, "
        "dtype=str) — or let tw.read_trials(path) read them (it reads every column as text)"
    )


# --------------------------------------------------------------------------- model-vs-human
