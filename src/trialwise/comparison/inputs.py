"""The inputs of :func:`~trialwise.compare` as people have them: names, ``classes=``, and probability columns.

* :func:`default_names` — the classifiers' names from a Series' name or the prefix of a
  DataFrame's probability columns;
* :func:`check_classes` — ``classes=`` distinct, with every class of the truth;
* :func:`prepared_probabilities` — both probability matrices checked once, renormalised,
  with their columns in one order (:func:`common_columns`);
* :func:`column_order_caveat` — a caveat when the class of highest probability contradicts the
  classifier's own hard labels on most items (a likely column-order mistake).

Rows off by rounding and the class of each DataFrame column are the business of
:func:`~trialwise.comparison.probabilities.probabilities`, the one check of every function.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.warnings import TrialwiseWarning
from trialwise.comparison._caveats import caveat
from trialwise.comparison.probabilities import Probabilities, probabilities
from trialwise.comparison.rows import frame_prefix
from trialwise.io.labels import code_labels
from trialwise._stats.tables import agreement_table

__all__ = ["ARGMAX_AGREEMENT_WARN", "check_classes", "column_order_caveat", "common_columns", "default_names",
           "prepared_probabilities"]


def default_names(y: Any, pred_a: Any, pred_b: Any, proba_a: Any, proba_b: Any) -> tuple[str, str]:
    """The classifiers' names from their data: a Series' name, else the prefix of a DataFrame's
    probability columns (``m1_cat, m1_dog`` → ``m1``), else "A" and "B"; "A" and "B" when the
    two would be the same name (e.g. two Series both named "response")."""
    out = []
    for pred, proba, fallback in ((pred_a, proba_a, "A"), (pred_b, proba_b, "B")):
        name = pred.name if isinstance(pred, pd.Series) else None
        if name is None and isinstance(proba, pd.Series):
            name = proba.name
        if name is None:
            name = frame_prefix(proba, np.asarray(y))
        out.append(fallback if name is None or str(name).strip() == "" else str(name))
    return ("A", "B") if out[0] == out[1] else (out[0], out[1])


def common_columns(y: Any, checked: dict[str, Probabilities]) -> tuple[dict[str, np.ndarray], list]:
    """Each checked probability matrix with its columns in one order: the classes of ``y`` in natural order
    (every column is a class of ``y``, and every class of ``y`` has a column)."""
    found = code_labels({"y_true": y}).classes
    out = {}
    for arg, data in checked.items():
        what = f"the classes of `{arg}`"
        codes = code_labels({what: list(data.classes)}, classes=found, classes_name="the classes of `y_true`",
                            strict=False).codes[what]
        if data.k != len(found) or (codes < 0).any() or len(set(codes.tolist())) != data.k:
            raise InvalidValueError(f"the classes of `{arg}` ({data.classes}) are not those of `y_true` ({found})")
        if np.array_equal(codes, np.arange(data.k)):
            out[arg] = data.p
            continue
        p = np.empty_like(data.p)
        p[:, codes] = data.p
        out[arg] = p
    return out, list(found)


#: Below this share of items on which the class of highest probability is the hard prediction,
#: compare() warns of a likely column-order mistake.
ARGMAX_AGREEMENT_WARN = 0.5


def column_order_caveat(data: Probabilities, pred: Any, arg: str, pred_arg: str, one_d: bool,
                         given: bool) -> None:
    """A caveat when the class of highest probability is the hard prediction on fewer than half the items.

    With the columns of an unnamed array taken in the wrong order (``[dog, cat, eel]`` read as the
    sorted ``cat, dog, eel``), the argmax contradicts the classifier's own labels on most items,
    and every probability method scores the wrong columns. The order that would agree best is
    found by an assignment of columns to classes (``scipy.optimize.linear_sum_assignment``).
    """
    codes = code_labels({pred_arg: pred}, classes=list(data.classes), classes_name=f"the classes of `{arg}`",
                        strict=False).codes[pred_arg]
    k, n = data.k, len(codes)
    top = data.p.argmax(axis=1)
    agree = float(np.mean(top == codes))
    if agree >= ARGMAX_AGREEMENT_WARN:
        return
    from scipy.optimize import linear_sum_assignment

    counts = agreement_table(top, codes, k)  # argmax class × labelled class; unknown labels (-1) left out
    cols, cls = linear_sum_assignment(counts, maximize=True)
    best = float(counts[cols, cls].sum()) / n
    order = [data.classes[c] for c in cls[np.argsort(cols)]]       # the class column j would stand for
    taken = (f"taken as the probability of {data.classes[1]!r}" if one_d else
             f"its columns taken as {'classes=' if given else 'the sorted classes of `y_true`'}, "
             f"{', '.join(map(str, data.classes))}")
    msg = (f"`{arg}` ({taken}): its class of highest probability is `{pred_arg}` on only {100 * agree:.0f}% of "
           "the items")
    if best >= agree + 0.25 and order != list(data.classes):
        if one_d:
            msg += (f"; as the probability of {data.classes[0]!r} it would be on {100 * best:.0f}%: "
                    f"pass 1 - {arg}, or classes=({data.classes[1]!r}, {data.classes[0]!r})")
        else:
            msg += (f"; with the columns in the order {', '.join(map(str, order))} it would be on {100 * best:.0f}%: "
                    f"a column-order mistake? Pass classes= (the class of each column) or a DataFrame whose "
                    "columns are named by the classes")
    else:
        msg += "; are the columns in the order of the classes, and the labels from the same classifier?"
    caveat(msg, TrialwiseWarning)


def prepared_probabilities(y: Any, pred_a: Any, pred_b: Any, proba_a: Any, proba_b: Any, classes: Any
                           ) -> tuple[dict[str, Probabilities], Any, Any, Any]:
    """The probabilities of :func:`~trialwise.compare`, checked once (so that errors name the argument).

    Returns the checked :class:`Probabilities` by argument, the two matrices as every method
    should see them (renormalised, in one order of the classes; None where not given) and
    those classes. Issues :func:`column_order_caveat` for probabilities whose classes do not
    come from column names (an array, or ``classes=`` given).
    """
    checked: dict[str, Probabilities] = {}
    for arg, proba in (("proba_a", proba_a), ("proba_b", proba_b)):
        if proba is not None:
            checked[arg] = probabilities(y, proba, arg, classes=classes)
    for arg, proba, pred, pred_arg in (("proba_a", proba_a, pred_a, "pred_a"), ("proba_b", proba_b, pred_b, "pred_b")):
        # columns whose classes are not their names: an array, or classes= given
        if arg in checked and pred is not None and (classes is not None or not isinstance(proba, pd.DataFrame)):
            column_order_caveat(checked[arg], pred, arg, pred_arg, np.ndim(proba) == 1, classes is not None)
    if not checked:
        return checked, None, None, classes
    clean, order = common_columns(y, checked)
    return checked, clean.get("proba_a"), clean.get("proba_b"), order


def check_classes(y: Any, classes: Any) -> None:
    """``classes=`` of :func:`compare`: distinct classes, the truth's among them."""
    if isinstance(classes, (str, bytes)) or not hasattr(classes, "__iter__"):
        raise InvalidTypeError(f"`classes` must be a sequence of classes; got {classes!r}")
    code_labels({"y_true": y}, classes=list(classes), classes_name="classes")
