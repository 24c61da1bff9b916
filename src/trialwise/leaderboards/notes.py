"""Structured notes: what a benchmark left out or could not do, as a kind and its numbers.

A :class:`StructuredNote` is a :class:`trialwise._core.results.Note` (a ``str`` with a
``kind``: it prints, compares and searches like its text) that also keeps the ``values``
behind the text. Code that decides something about a note (drop it, list it elsewhere)
reads ``kind`` and ``values``, never the wording; the wording of every benchmark note
lives in one table, :data:`TEXT`, here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trialwise._core.errors import InvalidValueError
from trialwise._core.results import Note

__all__ = ["StructuredNote", "TEXT"]


def _not_in_trials(protocol: str, missing: list[str], n_experiments: int) -> str:
    return (f"{len(missing)} of the {n_experiments} experiments of protocol {protocol!r} are not in the trials "
            f"and were not scored: {', '.join(missing)}")


def _each(by_candidate: Mapping[str, list[str]], many: str, prefix: str = "") -> str:
    """``"a (x, y); b (16 of 17)"``: every candidate with its experiments, their number (``many``) past three."""
    return "; ".join(f"{c} ({prefix}{', '.join(x) if len(x) <= 3 else many.format(n=len(x))})"
                     for c, x in by_candidate.items())


def _not_scored(lacking: Mapping[str, list[str]], n_experiments: int) -> str:
    return (f"{len(lacking)} candidate(s) not scored, for lack of some of the protocol's experiments: "
            f"{_each(lacking, f'{{n}} of {n_experiments}', 'lacks ')}; restrict the protocol's `experiments` to "
            f"score them")


def _benchmarks_missing(missing: Mapping[str, list[str]], n_benchmarks: int) -> str:
    return (f"{len(missing)} candidate(s) not scored in some of the {n_benchmarks} benchmarks, for they do not answer "
            f"all of those benchmarks' images: {_each(missing, f'{{n}} of {n_benchmarks}')}; such a score is missing, "
            f"and it counts as 0 in the average, as Brain-Score averages")


def _unpaired(unpaired: Mapping[str, list[str]], min_items: int) -> str:
    return (f"{len(unpaired)} candidate(s) not scored, for they share fewer than {min_items} images (the protocol's "
            f"min_items) with every reference observer in every condition of an experiment, so they have no pair "
            f"value there: {_each(unpaired, '{n} experiments', 'in ')}; they are left out of the ranks, tests and "
            f"Kendall's tau")


def _undefined(every: list[str], some: Mapping[str, list[str]], never: Mapping[str, str] | None = None) -> str:
    def rows(names: list[str]) -> str:
        return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])}, … ({len(names)} rows)"

    parts = []
    if every:
        parts.append(f"left out of every score: {', '.join(every)}")
    if some:
        parts.append("left out of some rows' scores only, which then average other conditions than the rest: "
                     + "; ".join(f"{c} ({rows(r)})" for c, r in some.items()))
    text = (f"{len(every) + len(some)} condition(s) without a defined pair value for some rows (κ is undefined "
            f"where both observers are always right, or always wrong, on the images they share; the reference row "
            f"needs two reference observers in the condition): " + "; ".join(parts)) if parts else ""
    if never:
        text += ("; " if text else "") + (
            "no defined value in any condition, so no score (NaN): " + "; ".join(
                f"{r} (in every condition the observers of each of its pairs are {cause} on the images they share, "
                f"where κ is undefined)" for r, cause in never.items()))
    return text


def _zero_by_rule(rows: Mapping[str, str]) -> str:
    return (f"{len(rows)} score(s) 0 by construction, not by agreement (in each pair one observer is always right "
            f"or always wrong on the images both saw, and κ is then 0 whatever the other does): "
            + "; ".join(f"{r} ({who})" for r, who in rows.items()))


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


def _studentized_fallback(names: list[str], n_flat: list[int], n_resamples: int, confidence_level: float,
                          difference: bool) -> str:
    what = "difference" if difference else "score"
    named = ", ".join(f"{n} ({k} of {n_resamples})" for n, k in zip(names, n_flat))
    share = (1 - confidence_level) if difference else (1 - confidence_level) / 2
    tail = (f"; it under-covers with so few clusters (docs/benchmark.md, \"Degenerate data\"), and the studentized "
            f"test (alone and in `combined`) counts those replicates as at least as extreme, so its p-value is at "
            f"least {(1 + min(n_flat)) / (1 + n_resamples):.3f} and it cannot reject at α = {1 - confidence_level:.2g}: the swap test (exact for "
            f"exchangeable candidates) still can" if difference else "")
    return (f"{named}: the {'symmetric ' if difference else ''}studentized interval"
            f"{' of the difference' if difference else ''} is unbounded (the {what}'s standard error is 0 on more "
            f"than {share:.1%} of the replicates, whose few clusters or small tables turn degenerate), so the "
            f"bias-corrected percentile interval (bc) is given instead{tail}")


def _at_bound(names: list[str], n_items: list[int], exact: list[list[float]], replaced: list[bool],
              confidence_level: float) -> str:
    level = f"{confidence_level:.0%}"
    parts = [f"{name} ({n} items: exact {level} interval [{lo:.3f}, {hi:.3f}]"
             + (", given in the table)" if rep else ", of the items as one sample: the score averages several "
                "conditions or clusters, so read it as a rough bound)")
             for name, n, (lo, hi), rep in zip(names, n_items, exact, replaced)]
    return (f"{len(names)} accuracy interval(s) without width: every bootstrap replicate is at the ceiling (all "
            f"items right) or the floor (all wrong), which a bootstrap cannot widen; the exact binomial "
            f"(Clopper–Pearson) interval: " + "; ".join(parts))


def _two_clusters(conditions: list[str], n_conditions: int) -> str:
    named = ", ".join(conditions) if len(conditions) <= 3 else f"{', '.join(conditions[:3])}, …"
    every = len(conditions) == n_conditions
    return (f"{len(conditions)} of {n_conditions} condition(s) hold only two clusters ({named}): resampling two "
            f"clusters gives three distinct draws of a condition, "
            + ("too few for any bootstrap interval to keep its level (with two clusters in every condition, 95 % "
               "intervals of differences covered 56–77 % in simulations" if every else
               "so those conditions' share of every interval is poorly estimated (with two clusters in every "
               "condition, 95 % intervals of differences covered 56–77 % in simulations; with fewer such "
               "conditions the loss is smaller but not measured")
            + ", docs/benchmark.md \"Degenerate data\"); cluster by a finer column where the design allows it, and "
              "prefer the swap test for differences")


def _from_trials(stand_in: str, n_experiments: int, n_conditions: int, averaging: str,
                 own: Sequence[str] = (), known: Sequence[str] = ()) -> str:
    if known:  # model-vs-human's experiments beside the user's own: none left out
        shown = ", ".join(map(str, own[:5])) + (f", … ({len(own) - 5} more)" if len(own) > 5 else "")
        named = (("no protocol named, and " if stand_in == "model-vs-human" else "")
                 + f"the trials hold experiments that model-vs-human does not have ({shown}) beside "
                 f"{len(known)} of its own, so that none is left out")
        tail = ("; model-vs-human's exclusions do not apply: pass --protocol model-vs-human (protocol=\"model-vs-human\") "
                "to score only its experiments its way")
    else:
        named = ("no protocol named, and the trials hold none of model-vs-human's experiments" if
                 stand_in == "model-vs-human" else
                 f"the trials hold none of the experiments of protocol {stand_in!r} (model-vs-human's)")
        tail = ""
    return (f"{named}: scored by a protocol built from the trials — every experiment ({n_experiments}) and "
            f"condition ({n_conditions}) they hold, nothing excluded, averaged as {stand_in!r} does "
            f"({averaging})" + tail)


#: The text of every note, by kind: a function of the note's values.
TEXT: dict[str, Callable[..., str]] = {
    "experiments-not-in-trials": _not_in_trials,
    "protocol-from-trials": _from_trials,
    "candidates-not-scored": _not_scored,
    "candidates-unpaired": _unpaired,
    "benchmarks-missing": _benchmarks_missing,
    "one-reference-observer": lambda reference: (
        f"only one reference observer ({reference}): the reference row (pairs of distinct reference observers) "
        f"has no value"),
    "partial-images": lambda n: (
        f"{n} observer×condition combination(s) lack some of the condition's images; each pair uses the images "
        f"both observers saw"),
    "sparse-pairs": _sparse,
    "undefined-conditions": _undefined,
    "kappa-zero-by-rule": _zero_by_rule,
    "reference-row-empty": _reference_row_empty,
    "studentized-fallback": _studentized_fallback,
    "interval-at-bound": _at_bound,
    "two-clusters": _two_clusters,
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

    def __new__(cls, kind: str, **values: Any) -> StructuredNote:
        if kind not in TEXT:
            raise InvalidValueError(f"unknown note kind {kind!r}; kinds: {', '.join(TEXT)}")
        return super().__new__(cls, TEXT[kind](**values), kind, values)

    def __reduce__(self) -> tuple:
        return _structured_note, (self.kind, dict(self.values))


def _structured_note(kind: str, values: dict[str, Any]) -> StructuredNote:
    return StructuredNote(kind, **values)


