"""Columns of a table of predictions: which class each probability column stands for."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from trialwise._core.errors import InputError, InvalidValueError
from trialwise.io.labels import code_labels


__all__ = ["classes_from_columns", "read_columns"]


def _named_classes(names: list[str], classes: list) -> tuple[int, ...] | None:
    """The class (its index in ``classes``) that each name is, under the label rule of :mod:`trialwise.io.labels`;
    None unless every name is a distinct one of ``classes``."""
    try:
        coding = code_labels({"labels": classes}, classes=names, classes_name="columns", strict=False)
    except InputError:       # names that can never equal the labels (text among numbers), or one class twice
        return None
    codes = coding.codes["labels"].tolist()
    if not set(range(len(names))) <= set(codes):
        return None
    return tuple(codes.index(i) for i in range(len(names)))


def classes_from_columns(columns: Sequence[str], labels: Iterable, *, option: str = "--classes") -> list[str]:
    """The class of each probability column, read from the column names.

    Parameters
    ----------
    columns : sequence of str
        Names of the probability columns, one per class.
    labels : iterable
        The labels that occur (e.g. the true labels). A name is the class of a label by
        the one rule of :mod:`trialwise.io.labels` (:func:`~trialwise.io.labels.code_labels`):
        ``"1"`` names the label ``1.0``, ``"true"`` the label ``1`` of 0/1 labels.
    option : str, default "--classes"
        How the error messages name the way to pass the classes explicitly
        (``"classes="`` in the library, which reads a DataFrame's columns by this one rule).

    Returns
    -------
    list of str
        The names themselves when each is the class of one of ``labels``; otherwise
        what follows their common prefix (``m1_cat, m1_dog`` → ``cat, dog``) when each
        of those is. Every part of the common prefix is tried (with labels ``10, 11``,
        ``p_10, p_11`` → ``10, 11`` after ``p_``); the parts whose rest names classes must
        all name the same ones (the longest part's rest is returned), else the names are
        ambiguous.

    Raises
    ------
    InvalidValueError
        Neither reading names the classes, or prefixes of different length name
        different classes (``p_10, p_11`` with labels ``0, 1, 10, 11``): pass the classes
        explicitly (``option``).
    InvalidTypeError
        ``labels`` that :func:`~trialwise.io.labels.code_labels` refuses (numbers mixed with text).

    Examples
    --------
    >>> classes_from_columns(["cat", "dog"], ["dog", "cat"])
    ['cat', 'dog']
    >>> classes_from_columns(["m1_cat", "m1_dog", "m1_eel"], ["cat", "dog", "eel"])
    ['cat', 'dog', 'eel']
    >>> classes_from_columns(["pa_0", "pa_1", "pa_2"], [2.0, 0.0, 1.0, 1.0])
    ['0', '1', '2']
    """
    names = [str(c) for c in columns]
    named = read_columns(names, labels, option=option)
    if named is not None:
        return named
    classes = code_labels({"labels": list(labels)}, same_length=False).classes
    raise InvalidValueError(f"the columns {', '.join(names)} do not name the classes of the truth "
                            f"({', '.join(map(str, classes[:10]))}{', ...' if len(classes) > 10 else ''}), "
                            f"not even after a common prefix; pass the classes ({option})")


def read_columns(columns: Sequence[str], labels: Iterable, *, option: str = "--classes") -> list[str] | None:
    """:func:`classes_from_columns`, but None where that finds no reading (an ambiguous one is still an error)."""
    names = [str(c) for c in columns]
    classes = code_labels({"labels": list(labels)}, same_length=False).classes
    prefix = os.path.commonprefix(names)
    if _named_classes(names, classes) is not None:
        return names
    # else what follows a part of their common prefix: every cut that names the classes must name the same ones
    cuts = {cut: [c[cut:] for c in names] for cut in range(len(prefix), 0, -1)}
    named = {cut: _named_classes(stripped, classes) for cut, stripped in cuts.items()}
    readings = {cut: classes_named for cut, classes_named in named.items() if classes_named is not None}
    if len(set(readings.values())) > 1:
        shown = " or ".join(f"{', '.join(cuts[cut])} (after {prefix[:cut]!r})" for cut in readings)
        raise InvalidValueError(f"the columns {', '.join(names)} name the classes in more than one way: {shown}; "
                                f"pass the classes ({option})")
    return cuts[max(readings)] if readings else None
