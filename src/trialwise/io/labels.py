"""Label coding: the one rule by which trialwise decides that two labels are the same class.

Every function that compares labels — a response with the truth (accuracy, error
consistency with ``truth=``, the correct/incorrect table, McNemar, Yule's Q) or two
classifiers' labels with each other (agreement matrix, Cohen's κ, Bowker, …) or labels
with the classes of a probability matrix — codes them through :func:`code_labels`, so
that "correct" means the same thing everywhere.

The rule, applied to the labels of all the arguments *together*:

1. **Missing values are errors.** ``None``, ``NaN`` (of any float type, e.g.
   ``np.float32('nan')``), ``pandas.NA`` and ``NaT`` are not labels: a ``ValueError``
   names the argument and the first position. Code a non-response as a label of its own
   (e.g. ``'na'``, or ``-1`` among numbers); it then counts as incorrect.
2. **Numbers compare as numbers.** ``1 == 1.0 == True == np.int64(1)``, and
   ``0 == False``: integer truth matches boolean or float predictions.
3. **Text that reads as a number is that number.** ``'1'``, ``'1.0'``, ``' 1'`` and
   ``'1e0'`` are the number 1 (decimal notation; ``'nan'``, ``'inf'`` and text with
   ``_`` stay text). So a column read from a CSV file as text matches the same column
   read as numbers, and ``'1'`` matches ``'1.0'``. ``'true'`` and ``'false'`` in any
   case (``'True'`` as Python writes it, ``'TRUE'`` as Excel does) are ``True``/``False``,
   i.e. 1 and 0, where every number among the labels is 0 or 1 (two classes coded 0/1:
   a 2-AFC table with 0/1 truth and true/false responses is scored as it reads); among
   other numbers (K classes coded 0 … K − 1) they stay text, so a stray ``'true'`` never
   becomes class 1. Other text compares as text, exactly (case and spaces count).
4. **Numbers never meet other text.** If the labels hold numbers (``int``, ``float``,
   ``bool``, …) *and* text that does not read as a number, no label of one kind can
   ever equal one of the other: a ``TypeError`` names the arguments and the types found
   (e.g. ``bool`` truth against ``'yes'``/``'no'`` text). Convert them to one kind.
5. **Anything else** (tuples, dates, …) compares with ``==``, and must not be mixed with
   numbers or text (``TypeError``).

The classes come out in natural order: numbers by value, then text alphabetically;
each class is shown as the first label that codes to it (the truth's spelling when the
truth is the first argument).
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_aligned

__all__ = ["LabelCoding", "code_labels", "label_number", "read_number"]

_NUMBER, _TEXT, _OTHER = "number", "text", "other"
#: Names of the coding rules (:attr:`LabelCoding.rule`).
RULES = ("numbers", "text", "objects")


@dataclass(frozen=True)
class LabelCoding:
    """Labels of several arguments coded together (see :func:`code_labels`).

    Attributes
    ----------
    classes : list
        One label per class, in natural order; each is the first label seen that codes
        to the class.
    codes : dict of str to ndarray of int64
        For every argument, the index into ``classes`` of each label (``-1``: missing,
        where allowed, or not among the given ``classes`` with ``strict=False``).
    rule : {"numbers", "text", "objects"}
        ``numbers``: every label is a number or text that reads as one; ``text``: all
        labels are text (text that reads as a number compared as that number);
        ``objects``: other hashable objects, compared with ``==``.
    """

    classes: list
    codes: dict = field(repr=False)
    rule: str

    @property
    def k(self) -> int:
        """The number of classes."""
        return len(self.classes)

    def matches(self, a: str, b: str) -> NDArray:
        """Whether the labels of arguments ``a`` and ``b`` are the same class, item by item.

        A missing label (code ``-1``) matches nothing.
        """
        ca, cb = self.codes[a], self.codes[b]
        return (ca == cb) & (ca >= 0)

    def labels(self, name: str) -> NDArray:
        """The labels of argument ``name`` as their classes' labels (object array)."""
        return np.asarray(self.classes + [None], dtype=object)[self.codes[name]]


def read_number(text: str) -> int | float | None:
    """The number a text label reads as (rule 3 of :mod:`trialwise.io.labels`), or None.

    Examples
    --------
    >>> read_number("1"), read_number(" 1.0 "), read_number("2e-1"), read_number("cat"), read_number("nan")
    (1, 1.0, 0.2, None, None)
    """
    s = text.strip()
    if not s or "_" in s:
        return None
    try:
        return int(s)
    except ValueError:  # not an integer: maybe a decimal
        try:
            x = float(s)
        except ValueError:
            return None
    return x if math.isfinite(x) else None


_TRUTH_WORDS = {"true": 1, "false": 0}


def label_number(text: str, *, truth_words: bool = True) -> int | float | None:
    """The number a text label is under rule 3 of :mod:`trialwise.io.labels`, or None.

    :func:`read_number`, and (``truth_words``) 1 / 0 for ``true`` / ``false`` in any case
    (as Python's ``True`` / ``False`` are). :func:`code_labels` reads the words so only
    where every number among the labels is 0 or 1.

    Examples
    --------
    >>> label_number("1.0"), label_number(" TRUE "), label_number("False"), label_number("yes")
    (1.0, 1, 0, None)
    """
    x = read_number(text)
    return _TRUTH_WORDS.get(text.strip().lower()) if x is None and truth_words else x


def _truth_words_are_numbers(found: dict[str, list]) -> bool:
    """Whether ``'true'``/``'false'`` text reads as 1/0 among these labels: only where every
    number among them (numbers, and text that reads as one) is 0 or 1 — two classes coded
    0/1, as a 2-AFC table's truth against true/false answers. Among other numbers (K
    classes coded 0 … K − 1) the words stay text, so a stray ``'true'`` never silently
    becomes class 1: numbers against it are rule 4's ``TypeError``."""
    for values in found.values():
        for x in values:
            v = read_number(x) if isinstance(x, str) else x if _kind(x) == _NUMBER else None
            if v is not None and not (v == 0 or v == 1):
                return False
    return True


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return _TEXT
    if isinstance(value, (numbers.Real, np.bool_, decimal.Decimal)):
        return _NUMBER
    return _OTHER


def _vector(value: Any, name: str, allow_missing: bool) -> tuple[NDArray, NDArray]:
    """A 1-D array of labels and its missing mask; errors name the argument."""
    if isinstance(value, (str, bytes)):
        raise InvalidTypeError(f"{_shown(name)} must be a 1-D array of labels; got a string ({value[:30]!r})")
    if isinstance(value, (pd.Series, pd.Index, pd.Categorical)):
        value = value.to_numpy()
    arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    if arr.ndim != 1:
        raise InvalidValueError(f"{_shown(name)} must be 1-D (one label per item); got an array of shape {arr.shape}")
    if arr.size == 0:
        raise InvalidValueError(f"{_shown(name)} is empty: at least one item is needed")
    if arr.dtype.kind == "c":
        raise InvalidTypeError(f"{_shown(name)} holds complex numbers, which are not labels")
    missing = np.asarray(pd.isna(arr), dtype=bool) if arr.dtype.kind in "fOmM" else np.zeros(arr.size, bool)
    if missing.any() and not allow_missing:
        i = int(np.flatnonzero(missing)[0])
        raise InvalidValueError(
            f"{_shown(name)} has a missing value at position {i} ({arr[i]!r}); missing values (None, NaN, pandas.NA, "
            "NaT) are not labels: code a non-response as a label of its own (e.g. 'na'), which counts as incorrect"
        )
    return arr, missing


def _factorize(arr: NDArray, missing: NDArray, name: str) -> tuple[NDArray, list]:
    """Codes into the distinct labels of one argument (first-seen order), -1 where missing."""
    present = arr[~missing] if missing.any() else arr
    try:
        codes, uniques = pd.factorize(present)
    except TypeError as exc:  # unhashable labels (lists, dicts, ...)
        raise InvalidTypeError(f"{_shown(name)} holds labels that cannot be compared ({exc}); labels must be hashable "
                        "(numbers, text, tuples, ...)") from None
    codes = codes.astype(np.int64, copy=False)
    if missing.any():
        full = np.full(arr.size, -1, dtype=np.int64)
        full[~missing] = codes
        codes = full
    return codes, [u.item() if isinstance(u, np.generic) else u for u in np.asarray(uniques, dtype=object)]


def _shown(name: str) -> str:
    """An argument's name in a message: in backticks, unless it is a phrase (has a space)."""
    return name if " " in name else f"`{name}`"


def _types(values: list) -> str:
    return ", ".join(sorted({type(x).__name__ for x in values}))


def _check_kinds(found: dict[str, list], truth_words: bool = True) -> str:
    """The coding rule for the distinct labels of every argument, or a TypeError
    (``truth_words``: :func:`_truth_words_are_numbers`)."""
    kinds = {name: {_kind(x) for x in values} for name, values in found.items()}
    every = set().union(*kinds.values())
    if _OTHER in every and len(every) > 1:
        shown = "; ".join(f"{_shown(n)} holds {_types(vals)}" for n, vals in found.items())
        raise InvalidTypeError(f"the labels mix objects that are neither numbers nor text with numbers or text, which are "
                        f"never equal: {shown}. Convert them to one kind (e.g. all text)")
    if every == {_OTHER}:
        return "objects"
    words = [(n, x) for n, vals in found.items() for x in vals
             if isinstance(x, str) and label_number(x, truth_words=truth_words) is None]
    if not words:
        return "numbers"
    if _NUMBER not in every:
        return "text"
    with_numbers = [n for n, vals in found.items() if any(_kind(x) == _NUMBER for x in vals)]
    shown = "; ".join(f"{_shown(n)} holds {_types(vals)}" for n, vals in found.items())
    raise InvalidTypeError(
        f"the labels mix numbers (in {', '.join(map(_shown, with_numbers))}) with text that is not a number "
        f"({words[0][1]!r} in {_shown(words[0][0])}), and the two can never be equal: {shown}. "
        "Convert them to one kind: all text (e.g. np.asarray(x).astype(str)) or all numbers"
    )


def _key(value: Any, rule: str, truth_words: bool = True) -> Any:
    """The value that decides equality under ``rule`` (equal keys: same class)."""
    if rule == "objects":
        return value
    if isinstance(value, str):
        x = label_number(value, truth_words=truth_words)
        return ("", value) if x is None else x          # a tuple never equals a number
    return value


def _natural_order(keys: list, rule: str) -> list[int]:
    """Positions of ``keys`` in natural order: numbers by value, then text; objects as they sort."""
    if rule == "objects":
        try:
            return sorted(range(len(keys)), key=lambda i: keys[i])
        except TypeError:                                              # objects without an order
            return sorted(range(len(keys)), key=lambda i: str(keys[i]))
    return sorted(range(len(keys)), key=lambda i: (1, keys[i][1]) if isinstance(keys[i], tuple) else (0, keys[i]))


def code_labels(arrays: Mapping[str, Any], *, classes: Any = None, classes_name: str = "classes",
                strict: bool = True, allow_missing: Collection[str] = (),
                same_length: bool = True) -> LabelCoding:
    """Code the labels of several arguments together, by the rule of :mod:`trialwise.io.labels`.

    Parameters
    ----------
    arrays : mapping of str to array_like
        The labels of each argument, by the argument's name (used in error messages),
        e.g. ``{"y_true": y, "pred_a": a, "pred_b": b}``. Each must be 1-D.
    classes : sequence, optional
        The known classes, in the order wanted (e.g. the columns of a probability
        matrix, or ``classes=``). They are coded by the same rule and must be distinct
        under it. Without them the classes are every label found, in natural order.
    classes_name : str
        The name of ``classes`` in error messages.
    strict : bool, default True
        With ``classes``: a label that is not one of them is a ``ValueError``; with
        ``strict=False`` its code is ``-1``.
    allow_missing : collection of str
        Arguments in which a missing value is allowed (coded ``-1``, e.g. "not seen").
    same_length : bool, default True
        Require one label per item in every argument.

    Returns
    -------
    LabelCoding
        ``classes`` (natural order, or the given order), ``codes`` (one int64 array
        per argument) and the ``rule`` used.

    Raises
    ------
    TypeError
        A string instead of an array; unhashable labels; numbers mixed with text that
        is not a number (or either mixed with other objects): the message names the
        arguments and the types found.
    ValueError
        Not 1-D, empty, unequal lengths, a missing value (position given), a label not
        among ``classes``, or ``classes`` with a class twice.

    Examples
    --------
    >>> c = code_labels({"y_true": [0, 1, 1], "pred": [False, True, False]})
    >>> c.classes, c.codes["pred"].tolist(), c.matches("y_true", "pred").tolist()
    ([0, 1], [0, 1, 0], [True, True, False])
    >>> code_labels({"truth": ["1", "2"], "response": [1.0, 2.0]}).matches("truth", "response").tolist()
    [True, True]
    >>> code_labels({"truth": ["cat", "dog"], "response": ["dog", "na"]}).classes
    ['cat', 'dog', 'na']
    >>> code_labels({"truth": [1, 0], "response": ["TRUE", "false"]}).matches("truth", "response").tolist()
    [True, True]
    >>> code_labels({"truth": [True, False], "response": ["yes", "no"]})
    Traceback (most recent call last):
    ...
    trialwise.InvalidTypeError: the labels mix numbers (in `truth`) with text that is not a number ('yes' in `response`), and the two can never be equal: `truth` holds bool; `response` holds str. Convert them to one kind: all text (e.g. np.asarray(x).astype(str)) or all numbers
    """
    if not arrays:
        raise InvalidTypeError("no labels to code")
    allow = set(allow_missing)
    check_aligned(**dict(arrays))  # pandas objects holding the same items in another order: an error
    checked = {name: _vector(values, name, name in allow) for name, values in arrays.items()}
    if same_length and len({arr.size for arr, _ in checked.values()}) > 1:
        shown = ", ".join(f"{_shown(n)} has {arr.size}" for n, (arr, _) in checked.items())
        raise InvalidValueError(f"inputs must have the same length (one entry per item); {shown}")
    local = {name: _factorize(arr, missing, name) for name, (arr, missing) in checked.items()}
    found = {name: uniques for name, (_, uniques) in local.items()}
    given = None
    if classes is not None:
        given_arr, _ = _vector(list(classes) if not isinstance(classes, np.ndarray) else classes, classes_name, False)
        given = [u.item() if isinstance(u, np.generic) else u for u in given_arr]
        found = {classes_name: given} | found
    truth_words = _truth_words_are_numbers(found)
    rule = _check_kinds(found, truth_words)

    index: dict[Any, int] = {}
    shown_as: list = []
    if given is not None:
        for x in given:
            key = _key(x, rule, truth_words)
            if key in index:
                raise InvalidValueError(f"{_shown(classes_name)} contains the class {x!r} twice "
                                 f"(as {shown_as[index[key]]!r} and {x!r})")
            index[key] = len(shown_as)
            shown_as.append(x)
    maps: dict[str, NDArray] = {}
    for name, (_, uniques) in local.items():
        m = np.empty(len(uniques) + 1, dtype=np.int64)
        m[-1] = -1                                                    # code -1 (missing) stays -1
        for j, x in enumerate(uniques):
            key = _key(x, rule, truth_words)
            if key not in index:
                if given is not None:
                    if strict:
                        pos = int(np.flatnonzero(local[name][0] == j)[0])
                        listed = ", ".join(map(repr, given[:10])) + (", ..." if len(given) > 10 else "")
                        raise InvalidValueError(f"{_shown(name)} has the label {x!r} (position {pos}), which is not one of "
                                         f"{_shown(classes_name)} ({listed})")
                    m[j] = -1
                    continue
                index[key] = len(shown_as)
                shown_as.append(x)
            m[j] = index[key]
        maps[name] = m
    if given is None:                                                  # natural order
        order = _natural_order(list(index), rule)
        rank = np.empty(len(order) + 1, dtype=np.int64)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
        rank[-1] = -1
        shown_as = [shown_as[i] for i in order]
        maps = {name: np.where(m >= 0, rank[m], -1) for name, m in maps.items()}
    codes = {name: maps[name][local[name][0]] for name in local}
    return LabelCoding(classes=shown_as, codes=codes, rule=rule)
