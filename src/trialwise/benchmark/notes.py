"""Structured notes: what a benchmark left out or could not do, as a kind and its numbers.

A :class:`StructuredNote` is a :class:`trialwise._core.results.Note` (a ``str`` with a
``kind``: it prints, compares and searches like its text) that also keeps the ``values``
behind the text. Code that decides something about a note (drop it, list it elsewhere)
reads ``kind`` and ``values``, never the wording; the wording of every benchmark note
lives in one table, :data:`TEXT`, here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import Note

__all__ = ["StructuredNote", "TEXT"]


def _not_in_trials(protocol: str, missing: list[str], n_experiments: int) -> str:
    return (f"{len(missing)} of the {n_experiments} experiments of protocol {protocol!r} are not in the trials "
            f"and were not scored: {', '.join(missing)}")


def _not_scored(lacking: Mapping[str, list[str]], n_experiments: int) -> str:
    named = "; ".join(f"{c} (lacks {', '.join(x) if len(x) <= 3 else f'{len(x)} of {n_experiments}'})"
                      for c, x in lacking.items())
    return (f"{len(lacking)} candidate(s) not scored, for lack of some of the protocol's experiments: {named}; "
            f"restrict the protocol's `experiments` to score them")


def _unpaired(unpaired: Mapping[str, list[str]], min_items: int) -> str:
    named = "; ".join(f"{c} (in {', '.join(x) if len(x) <= 3 else f'{len(x)} experiments'})"
                      for c, x in unpaired.items())
    return (f"{len(unpaired)} candidate(s) not scored, for they share fewer than {min_items} images (the protocol's "
            f"min_items) with every reference observer in every condition of an experiment, so they have no pair "
            f"value there: {named}; they are left out of the ranks, tests and Kendall's tau")


def _undefined(every: list[str], some: Mapping[str, list[str]]) -> str:
    def rows(names: list[str]) -> str:
        return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])}, … ({len(names)} rows)"

    parts = []
    if every:
        parts.append(f"left out of every score: {', '.join(every)}")
    if some:
        parts.append("left out of some rows' scores only, which then average other conditions than the rest: "
                     + "; ".join(f"{c} ({rows(r)})" for c, r in some.items()))
    return (f"{len(every) + len(some)} condition(s) without a defined pair value for some rows (κ is undefined "
            f"where both observers are always right, or always wrong, on the images they share; the reference row "
            f"needs two reference observers in the condition): " + "; ".join(parts))


def _sparse(experiment: str, n_candidate: int, total_candidate: int, n_reference: int, total_reference: int,
            min_items: int, n_disjoint: int) -> str:
    parts = [f"{n} of {tot} {what} pair(s)" for n, tot, what in
             ((n_candidate, total_candidate, "candidate–reference"),
              (n_reference, total_reference, "reference–reference")) if n]
    return (f"{experiment}: {' and '.join(parts)} share fewer than {min_items} images in a condition and were left "
            f"out there (protocol min_items={min_items}" + (f"; {n_disjoint} share none" if n_disjoint else "") + ")")


def _reference_row_empty(experiments: list[str], min_items: int) -> str:
    return (f"no pair of reference observers shares {min_items} images in any condition of "
            f"{', '.join(experiments)}: the reference row has no value there, so its overall score averages the "
            f"other experiments only and is not comparable with the candidates' scores, which include "
            f"{'it' if len(experiments) == 1 else 'them'} (compare per experiment: `by_experiment()`)")


#: The text of every note, by kind: a function of the note's values.
TEXT: dict[str, Callable[..., str]] = {
    "experiments-not-in-trials": _not_in_trials,
    "candidates-not-scored": _not_scored,
    "candidates-unpaired": _unpaired,
    "one-reference-observer": lambda reference: (
        f"only one reference observer ({reference}): the reference row (pairs of distinct reference observers) "
        f"has no value"),
    "partial-images": lambda n: (
        f"{n} observer×condition combination(s) lack some of the condition's images; each pair uses the images "
        f"both observers saw"),
    "sparse-pairs": _sparse,
    "undefined-conditions": _undefined,
    "reference-row-empty": _reference_row_empty,
    "per-item-scores": lambda column, n_partial, n_differ, clustered: (
        f"accuracy is the mean per-item score of column {column!r} ({n_partial} trial(s) between 0 and 1, partial "
        f"credit" + (f"; {n_differ - n_partial} score(s) of 0 or 1 that differ from `correct`" if n_differ > n_partial
                     else "") + "); the swap test is the paired sign-flip test of the two candidates' "
        + ("cluster sums of scores (whole clusters are swapped)" if clustered else "per-item scores")),
    "candidate-trials-unused": lambda n: (
        f"{n} candidate trial(s) outside the benchmark's conditions were not used"),
    "synthetic-trials": lambda model_accuracy: (
        f"synthetic model trials (Klein et al. 2025, App. I; model accuracy: {model_accuracy} of the feasible range), one "
        f"independent sequence per human; the human–human row is empty by construction"),
}


class StructuredNote(Note):
    """A note of a result: its text, with a stable ``kind`` and the ``values`` behind it.

    Parameters
    ----------
    kind : str
        A key of :data:`TEXT` (e.g. ``"candidates-not-scored"``).
    **values
        The numbers and names the text states.

    Examples
    --------
    >>> n = StructuredNote("partial-images", n=3)
    >>> n.kind, n.values["n"]
    ('partial-images', 3)
    >>> print(n)
    3 observer×condition combination(s) lack some of the condition's images; each pair uses the images both observers saw
    """

    values: Mapping[str, Any]

    def __new__(cls, kind: str, **values: Any) -> StructuredNote:
        if kind not in TEXT:
            raise InvalidValueError(f"unknown note kind {kind!r}; kinds: {', '.join(TEXT)}")
        self = super().__new__(cls, TEXT[kind](**values), kind)
        self.values = MappingProxyType(dict(values))
        return self

    def __reduce__(self) -> tuple:
        return _structured_note, (self.kind, dict(self.values))

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "text", **values}`` (plain Python types)."""
        return {"kind": self.kind, "text": str(self), **{k: _plain(v) for k, v in self.values.items()}}


def _structured_note(kind: str, values: dict[str, Any]) -> StructuredNote:
    return StructuredNote(kind, **values)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value.item() if hasattr(value, "item") else value
