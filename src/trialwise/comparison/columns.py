"""Columns of a table of predictions: which class each probability column stands for."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from trialwise._core.errors import InvalidValueError


__all__ = ["classes_from_columns"]


def classes_from_columns(columns: Sequence[str], labels: Iterable) -> list[str]:
    """The class of each probability column, read from the column names.

    Parameters
    ----------
    columns : sequence of str
        Names of the probability columns, one per class.
    labels : iterable
        The classes that occur (e.g. the distinct true labels), compared as text.

    Returns
    -------
    list of str
        The names themselves when each is one of ``labels``; otherwise what follows
        their common prefix (``m1_cat, m1_dog`` → ``cat, dog``) when each of those is.

    Raises
    ------
    InvalidValueError
        Neither reading names the classes: pass the classes explicitly.

    Examples
    --------
    >>> classes_from_columns(["cat", "dog"], ["dog", "cat"])
    ['cat', 'dog']
    >>> classes_from_columns(["m1_cat", "m1_dog", "m1_eel"], ["cat", "dog", "eel"])
    ['cat', 'dog', 'eel']
    """
    names = [str(c) for c in columns]
    known = {str(x) for x in labels}
    if set(names) <= known:
        return names
    prefix = os.path.commonprefix(names)
    stripped = [c[len(prefix):] for c in names]
    if prefix and set(stripped) <= known:
        return stripped
    raise InvalidValueError(f"the columns {', '.join(names)} do not name the classes ({', '.join(sorted(known)[:10])}), "
                            "not even after a common prefix; pass the classes explicitly")
