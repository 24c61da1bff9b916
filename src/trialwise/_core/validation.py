"""Argument checking shared by every public function.

Each helper returns a clean value or raises :class:`~trialwise.InvalidTypeError` (wrong
kind, a ``TypeError``) / :class:`~trialwise.InvalidValueError` (bad value, a
``ValueError``) — both :class:`~trialwise.InputError` — with a message that names the
argument and shows what was received, so the numerical code can assume clean input.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from trialwise._core.errors import InvalidTypeError, InvalidValueError


def show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_Choice = TypeVar("_Choice", bound=str)


def check_choice(value: Any, name: str, choices: Iterable[_Choice]) -> _Choice:
    choices = tuple(choices)
    if not isinstance(value, str):
        raise InvalidTypeError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {show(value)}")
    key = value.lower().replace("_", "-")
    for c in choices:
        if key == c.replace("_", "-"):
            return c
    raise InvalidValueError(f"`{name}` must be one of {', '.join(map(repr, choices))}; got {value!r}")


def check_confidence_level(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidTypeError(f"`confidence_level` must be a number in (0, 1); got {show(value)}")
    value = float(value)
    if not 0.0 < value < 1.0:
        raise InvalidValueError(f"`confidence_level` must be in (0, 1); got {value:g}")
    return value


#: Largest number of random draws (``n_resamples``, ``n_simulations``, ``n_splits``, ...)
#: accepted: 10**7. Every replicate keeps at least one float64 per statistic in memory, and
#: a bootstrap of one 2×2 table keeps four counts, so 10**7 replicates already take 80 MB
#: per statistic (320 MB of tables); a pairwise or benchmark bootstrap keeps one value per
#: pair or observer. A Monte-Carlo p-value of 10**7 draws resolves 1e-7, finer than any
#: test needs (use an exact test for smaller p-values). More is a typo such as ``1e30``.
MAX_DRAWS = 10**7
#: Largest whole number accepted for any other count: 2**53, beyond which float64 (in which
#: every statistic is computed) no longer represents every integer.
MAX_COUNT = 2**53
#: Arguments that are a number of random draws, bounded by :data:`MAX_DRAWS`.
DRAW_ARGUMENTS = frozenset({"n_resamples", "n_simulations", "n_datasets", "n_splits", "n_draws"})


def check_positive_int(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number in ``[minimum, maximum]``; a float is accepted only when it is whole (``1e4``).

    ``maximum`` defaults to :data:`MAX_DRAWS` for the numbers of random draws in
    :data:`DRAW_ARGUMENTS` and to :data:`MAX_COUNT` for every other argument.
    """
    if maximum is None:
        maximum = MAX_DRAWS if name in DRAW_ARGUMENTS else MAX_COUNT
    shown = show(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InvalidTypeError(f"`{name}` must be an integer >= {minimum}; got {shown}")
    value = int(value)
    if value < minimum:
        raise InvalidValueError(f"`{name}` must be an integer >= {minimum}; got {value}")
    if value > maximum:
        why = (f"every replicate is kept in memory: {maximum:.0e} of them already take "
               f"{8 * maximum / 1e6:.0f} MB per statistic" if name in DRAW_ARGUMENTS
               else "larger whole numbers are not exact in float64")
        raise InvalidValueError(f"`{name}` must be an integer in [{minimum}, {maximum}] ({why}); got {shown}")
    return value


def check_replicates(value: Any, name: str = "n_resamples", *, point_values: bool = False,
                     why: str = "the interval of one replicate has no width whatever the data") -> int:
    """The number of replicates of a resampled interval (or of simulated data sets): a whole number >= 2, since
    the interval of one replicate has no width whatever the data (``point_values``: 0 is also accepted, meaning
    no interval)."""
    b = check_positive_int(value, name, minimum=0 if point_values else 1)
    if b == 1:
        zero = "0 (point values only, no interval) or " if point_values else ""
        raise InvalidValueError(f"`{name}` must be {zero}at least 2: {why}; got 1")
    return b


def check_workers(workers: Any) -> int | None:
    """``None`` (all cores) or a number of threads >= 1."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral):
        raise InvalidTypeError(f"`workers` must be None (all cores) or an integer >= 1; got {show(workers)}")
    if workers < 1:
        raise InvalidValueError(f"`workers` must be None (all cores) or an integer >= 1; got {int(workers)}")
    return int(workers)


def check_rng(rng: Any) -> np.random.Generator:
    """``numpy.random.default_rng(rng)``; ``True``/``False`` are not seeds (``default_rng`` would
    take them as 1 and 0)."""
    if isinstance(rng, (bool, np.bool_)):
        raise InvalidTypeError(
            f"`rng` must be None, an integer seed or a numpy.random.Generator; got {show(rng)} (a bool is not a seed)")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(
            f"`rng` must be None, an integer seed or a numpy.random.Generator; got {show(rng)}"
        ) from exc


def as_float_array(value: Any, name: str) -> NDArray:
    """``value`` as a float array: real numbers only (no None, text, complex or dates, which
    ``np.asarray(..., dtype=float)`` would turn into NaN, parse or truncate)."""
    if value is None or isinstance(value, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be numeric; got {show(value)}")
    try:
        raw = np.asarray(value)
    except ValueError as exc:  # ragged nested lists
        raise InvalidValueError(f"`{name}` must be a number or a rectangular array of numbers; got {show(value)}") from exc
    if raw.dtype == object:
        if not all(isinstance(x, numbers.Real) for x in raw.ravel()):
            bad = next(x for x in raw.ravel() if not isinstance(x, numbers.Real))
            raise InvalidTypeError(f"`{name}` must be numeric; got {show(bad)} in {show(value)}")
    elif raw.dtype.kind not in "biuf":
        raise InvalidTypeError(f"`{name}` must be numeric; got {show(value)} (dtype {raw.dtype})")
    return raw.astype(float)


def check_probability(value: Any, name: str, *, open_interval: bool = False) -> NDArray:
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise InvalidValueError(f"`{name}` must not contain NaN")
    if open_interval:
        bad = (arr <= 0) | (arr >= 1)
        interval = "(0, 1)"
    else:
        bad = (arr < 0) | (arr > 1)
        interval = "[0, 1]"
    if bad.any():
        raise InvalidValueError(f"`{name}` must be in {interval}; got {show(arr[bad].ravel()[0].item())}")
    return arr


def check_positive(value: Any, name: str) -> NDArray:
    """A number or array of numbers, each > 0 (no NaN)."""
    arr = as_float_array(value, name)
    bad = ~(arr > 0)
    if bad.any():
        raise InvalidValueError(f"`{name}` must be positive; got {show(arr[bad].ravel()[0].item())}")
    return arr


def check_kappa(value: Any, name: str) -> NDArray:
    arr = as_float_array(value, name)
    if np.isnan(arr).any():
        raise InvalidValueError(f"`{name}` must not contain NaN")
    bad = (arr < -1) | (arr > 1)
    if bad.any():
        raise InvalidValueError(f"`{name}` must be in [-1, 1]; got {arr[bad].ravel()[0].item():g}")
    return arr


def check_counts(counts: Any, name: str = "counts", *, batch: bool = False) -> NDArray:
    """A 2×2 table (or a batch of them when ``batch``) of non-negative integer counts.

    Counts are whole numbers up to :data:`MAX_COUNT` (2**53) per table, so that every
    sum of cells is exact in int64 and float64; complex numbers, strings and other
    objects are a ``TypeError``.
    """
    try:
        arr = np.asarray(counts)
    except Exception as exc:  # ragged nested lists
        raise InvalidValueError(f"`{name}` must be a 2×2 table [[n11, n10], [n01, n00]]; got {show(counts)}") from exc
    if arr.dtype == object and arr.size and all(
        isinstance(x, numbers.Real) and not isinstance(x, bool) for x in arr.ravel()
    ):  # Python integers too large for int64/uint64
        arr = arr.astype(float)
    if arr.dtype.kind == "c":
        raise InvalidTypeError(f"`{name}` must hold real counts; got complex numbers {show(arr.tolist())}")
    if arr.dtype == bool:  # True/False are not counts (a table of correctness given as counts?)
        raise InvalidTypeError(f"`{name}` must hold counts (non-negative whole numbers), not True/False; got "
                               f"{show(arr.tolist())}")
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise InvalidTypeError(f"`{name}` must hold numbers; got dtype {arr.dtype}")
    if arr.ndim < 2 or arr.shape[-2:] != (2, 2) or (arr.ndim != 2 and not batch):
        raise InvalidValueError(f"`{name}` must be a 2×2 table [[n11, n10], [n01, n00]]; got shape {arr.shape}")
    farr = arr.astype(float)
    if not np.isfinite(farr).all():
        raise InvalidValueError(f"`{name}` must be finite; got {show(counts)}")
    if (farr < 0).any():
        raise InvalidValueError(f"`{name}` must be non-negative; got {show(arr.tolist())}")
    if (farr != np.round(farr)).any():
        raise InvalidValueError(f"`{name}` must be whole numbers; got {show(arr.tolist())}")
    totals = farr.sum(axis=(-2, -1))
    if (totals > MAX_COUNT).any():
        raise InvalidValueError(
            f"`{name}` holds more than 2**53 items in a table (n = {totals.max():.3g}): counts that large are not "
            "exact in float64 and overflow int64 sums"
        )
    out = arr.astype(np.int64) if arr.dtype.kind in "iu" else farr.astype(np.int64)
    if not batch and out.sum() == 0:
        raise InvalidValueError(f"`{name}` holds no items (n = 0): error consistency needs at least one item")
    return out


def check_binary_vector(value: Any, name: str) -> NDArray:
    """1-D correctness vector of 0/1 or bool → bool array. NaN is an error here."""
    if isinstance(value, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be a 1-D array of correctness (bool or 0/1); got a string")
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise InvalidValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise InvalidValueError(f"`{name}` is empty: error consistency needs at least one item")
    if arr.dtype == bool:
        return arr
    if arr.dtype == object:
        import pandas as pd

        missing = np.asarray(pd.isna(arr), dtype=bool)  # None, NaN, pd.NA (a nullable array) before the dtype check
        if missing.any():
            raise InvalidValueError(
                f"`{name}` contains NaN at position {int(np.flatnonzero(missing)[0])}; "
                "pair the observers on the items both saw, or use pairwise_error_consistency, "
                "which treats NaN as 'not seen'"
            )
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(
                f"`{name}` must hold correctness (bool or 0/1); got non-numeric values. "
                "For response labels pass `truth=`."
            ) from exc
    if not np.issubdtype(arr.dtype, np.number) or arr.dtype.kind == "c":
        raise InvalidTypeError(
            f"`{name}` must hold correctness (bool or 0/1); got dtype {arr.dtype}. "
            "For response labels pass `truth=`."
        )
    farr = arr.astype(float)
    if np.isnan(farr).any():
        raise InvalidValueError(
            f"`{name}` contains NaN at position {int(np.flatnonzero(np.isnan(farr))[0])}; "
            "pair the observers on the items both saw, or use pairwise_error_consistency, "
            "which treats NaN as 'not seen'"
        )
    bad = (farr != 0) & (farr != 1)
    if bad.any():
        vals = np.unique(farr[bad])[:5]
        raise InvalidValueError(f"`{name}` must be binary (0/1 or bool); found values {vals.tolist()}")
    return farr.astype(bool)


def check_label_vector(value: Any, name: str) -> NDArray:
    if isinstance(value, (str, bytes)):
        raise InvalidTypeError(f"`{name}` must be a 1-D array of labels; got a string")
    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    if arr.ndim != 1:
        raise InvalidValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise InvalidValueError(f"`{name}` is empty: at least one item is needed")
    missing = missing_mask(arr)
    if missing.any():
        raise InvalidValueError(
            f"`{name}` has a missing value at position {int(np.flatnonzero(missing)[0])}; "
            "code a non-response as its own label (e.g. 'na'), which counts as incorrect"
        )
    return arr


def sorted_labels(values: Any) -> list:
    """The distinct labels, in natural order (numbers numerically, text alphabetically; mixed types by text)."""
    uniq = list(dict.fromkeys(np.asarray(values, dtype=object).tolist()))
    try:
        return sorted(uniq)
    except TypeError:
        return sorted(uniq, key=str)


def missing_mask(arr: NDArray) -> NDArray:
    """Where a label is missing: NaN, None, ``pandas.NA`` or ``NaT``."""
    if arr.dtype.kind in "fc":
        return np.isnan(arr)
    if arr.dtype.kind in "mM":
        return np.isnat(arr)
    if arr.dtype == object:
        import pandas as pd

        return np.asarray(pd.isna(arr), dtype=bool)
    return np.zeros(arr.shape, bool)


def check_broadcast(*arrays: Any, names: Iterable[str]) -> list[NDArray]:
    """Broadcast arrays against each other; a ``ValueError`` naming the arguments and their shapes if they do not.

    ``names``: the argument names, shown in backticks (a name with a space, such as
    ``"the model's grid"``, is shown as is).

    Examples
    --------
    >>> check_broadcast([0.1, 0.2], [0.5, 0.6, 0.7], names=("kappa", "accuracy"))
    Traceback (most recent call last):
    ...
    trialwise.InvalidValueError: `kappa` (shape (2,)) and `accuracy` (shape (3,)) cannot be broadcast against each other: give them equal shapes, or a single value for some (numpy broadcasting: each axis equal, or 1)
    """
    names = tuple(names)
    arrs = [np.asarray(a) for a in arrays]
    try:
        return list(np.broadcast_arrays(*arrs))
    except ValueError:
        shown = [f"{n if ' ' in n else f'`{n}`'} (shape {a.shape})" for n, a in zip(names, arrs)]
        listed = ", ".join(shown[:-1]) + " and " + shown[-1]
        raise InvalidValueError(
            f"{listed} cannot be broadcast against each other: give them equal shapes, or a "
            "single value for some (numpy broadcasting: each axis equal, or 1)"
        ) from None


def check_same_length(**arrays: NDArray) -> int:
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
        raise InvalidValueError(f"inputs must have the same length (one entry per item); {shown}")
    return next(iter(lengths.values()))


def check_aligned(**arrays: Any) -> None:
    """An error when two of ``arrays`` are pandas objects that hold the same items in another order.

    Arguments are paired by position, one item per row, as numpy, scipy and scikit-learn pair
    them. A pandas object's index also names each row's item: when two of them have distinct
    index labels that are the same set in a different order (the same images, sorted
    differently; one of them shuffled or reversed), pairing by position would silently pair
    different items, so that is an error naming both arguments and the first row where they
    differ. Integer indexes (row numbers: two subjects' parts of one long table, or two files
    each sorted by image, keep their rows' numbers) and indexes that hold different labels say
    nothing about the items and are paired by position, as are numpy arrays and lists.
    """
    indexed = [(name, value.index) for name, value in arrays.items()
               if value is not None and hasattr(value, "index") and hasattr(value, "to_numpy")
               and not isinstance(value, (str, bytes))]
    for i, (name_a, ia) in enumerate(indexed):
        for name_b, ib in indexed[i + 1:]:
            if (len(ia) != len(ib) or ia.equals(ib) or not (ia.is_unique and ib.is_unique)
                    or getattr(ia.dtype, "kind", "O") in "iub" or getattr(ib.dtype, "kind", "O") in "iub"
                    or not bool(ia.isin(ib).all())):
                continue  # not the same items in another order (integers may be row numbers): by position
            k = int(np.flatnonzero(np.asarray(ia != ib))[0])
            raise InvalidValueError(
                f"`{name_a}` and `{name_b}` are pandas objects with the same index labels in a different order "
                f"(row {k}: {show(ia[k], 30)} in `{name_a}`, {show(ib[k], 30)} in `{name_b}`), so pairing them by "
                f"position would pair different items; align them first (e.g. `{name_b}.loc[{name_a}.index]`)")
