"""Random streams and seeds of the resampling engine: every rng= of trialwise is handled here.

``rng=None`` draws a fresh 32-bit seed (:func:`fresh_seed`) that the result records (``seed``, by the
decorator :func:`records_seed`), so ``rng=result.seed`` repeats it bit for bit; a stream is split
into independent child streams by :func:`child_rngs`, :func:`child_seed` and :func:`keyed_rng` (a stream
per key, the same whatever the order of the keys). With :mod:`trialwise._stats.resampling` (the
weights and the chunked products) and :mod:`trialwise._stats.monte_carlo` (the null loop) it is the one
resampling engine of trialwise.
"""

from __future__ import annotations

import copy
import functools
import inspect
import numbers
import secrets
import types
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from trialwise._core.errors import InvalidTypeError, InvalidValueError
from trialwise._core.validation import check_rng

__all__ = ["child_rngs", "child_seed", "copy_rng", "keyed_rng", "fresh_seed", "rng_and_seed", "records_seed"]


_F = TypeVar("_F", bound=Callable[..., Any])


def child_rngs(rng: Any, n: int) -> list[np.random.Generator]:
    """``n`` independent child generators of ``rng``: the one way trialwise splits a stream.

    Parameters
    ----------
    rng : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The parent; a seed is first made a generator (``numpy.random.default_rng``).
    n : int
        Number of children (0 gives an empty list).

    Returns
    -------
    list of numpy.random.Generator

    Notes
    -----
    This is numpy's ``Generator.spawn`` (``SeedSequence.spawn``): child ``k`` is seeded by
    the parent's ``SeedSequence`` extended by the spawn key ``k`` (and by how many children
    the parent has spawned before), so the children are independent of each other and of
    the parent's own stream, do not consume the parent's stream, and child ``k`` does not
    depend on ``n``. Giving each unit of work its own child is what makes results
    independent of chunking and of the number of worker threads. For a seed ``s``,
    ``child_rngs(s, n)[k]`` is ``keyed_rng(s, (k,))``.

    Examples
    --------
    >>> a, b = child_rngs(0, 2)
    >>> bool(a.random() == child_rngs(0, 5)[0].random())
    True
    """
    n = int(n)
    if n < 0:
        raise InvalidValueError(f"`n` must be >= 0; got {n}")
    return check_rng(rng).spawn(n)


def copy_rng(gen: np.random.Generator) -> np.random.Generator:
    """An exact copy of a generator: its stream's state *and* its ``SeedSequence``.

    A copy must spawn the same children as the original (:func:`child_rngs`), so the copy
    keeps the seed sequence with its spawn key and the count of children already spawned.
    ``copy.deepcopy`` does not on numpy < 2 (Brain-Score's environments pin numpy < 2): it
    gives the copy a *fresh* seed sequence from the operating system's entropy, so the
    children of the copy differ from the original's and from run to run.

    Examples
    --------
    >>> g = np.random.default_rng(3)
    >>> c = copy_rng(g)
    >>> bool(g.spawn(1)[0].random() == c.spawn(1)[0].random()), bool(g.random() == c.random())
    (True, True)
    """
    bits = gen.bit_generator
    seq = bits.seed_seq
    if isinstance(seq, np.random.SeedSequence):
        seq = np.random.SeedSequence(seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size,
                                     n_children_spawned=seq.n_children_spawned)
        twin = type(bits)(seq)
        twin.state = bits.state
        return np.random.Generator(twin)
    return copy.deepcopy(gen)  # a generator without a seed sequence cannot spawn: its state is all there is


def child_seed(rng: Any, *, bits: int = 63) -> int:
    """One integer seed drawn from ``rng``'s stream, for streams made later or lazily by key.

    Use it where the child streams cannot all be spawned up front: the seed is kept, and
    :func:`child_rngs` ``(seed, n)`` or :func:`keyed_rng` ``(seed, key)`` re-create the same
    streams whenever they are needed (e.g. one stream per pair of a leaderboard, made on
    the first test of that pair, or the same streams for a ceiling and for every model
    scored against it).

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
    bits : int, default 63
        Size of the seed: ``Generator.integers(2**bits)`` (63 keeps it a non-negative
        int64), or for 64 one raw output of the bit generator (``random_raw``; 64 bits
        for numpy's default PCG64). Seeded results of existing functions fix it: 64 for
        the Jeffreys pseudo-counts of :func:`trialwise.pairwise_error_consistency` and
        :func:`trialwise.shape_bias`, 62 for the planning searches, 63 elsewhere.

    Returns
    -------
    int
    """
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)) or not 1 <= bits <= 64:
        raise InvalidValueError(f"`bits` must be an integer in [1, 64]; got {bits!r}")
    gen = check_rng(rng)
    return int(gen.bit_generator.random_raw()) if bits == 64 else int(gen.integers(2 ** int(bits)))


def keyed_rng(seed: int | Sequence[int], key: Sequence[int] = ()) -> np.random.Generator:
    """The child stream ``key`` of a seed: ``SeedSequence(seed, spawn_key=key)``, as a Generator.

    ``keyed_rng(seed, (k,))`` is ``child_rngs(seed, n)[k]``; a key of several integers
    (e.g. a pair ``(i, j)``) names a child that can be made on demand, in any order, and
    is the same whenever it is made. ``keyed_rng(seed)`` is ``numpy.random.default_rng(seed)``.
    """
    ss = np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))
    return np.random.Generator(np.random.PCG64(ss))


def fresh_seed() -> int:
    """A new seed: 32 bits from the operating system (``secrets.randbits``) — short enough to
    print, type and keep exact in JSON, and enough to tell runs apart. The seed drawn by every
    random function given ``rng=None`` (:func:`rng_and_seed`) and by every command run without
    ``--seed``."""
    return secrets.randbits(32)


def rng_and_seed(rng: Any) -> tuple[Any, int | None]:
    """``(rng, seed)``: what a random public function passes on as ``rng=`` and the seed its
    result records (``result.seed``), so that ``rng=result.seed`` repeats the result bit for bit.

    ``None`` draws a fresh seed (:func:`fresh_seed`, 32 bits) and passes it on *as that
    integer*, so the run takes the
    very path that ``rng=seed`` takes later (``default_rng(seed)`` is the generator of
    ``SeedSequence(seed)``). An integer seed is passed on and recorded as is. A
    :class:`numpy.random.Generator` (or a ``SeedSequence``/``BitGenerator``) is passed on
    unchanged and the seed is ``None``: the caller owns that stream and its state.
    """
    check_rng(rng)  # the same errors as before: a bool, a negative seed, a string, ...
    if rng is None:
        seed = fresh_seed()
        return seed, seed
    if isinstance(rng, numbers.Integral):
        return int(rng), int(rng)
    return rng, None


def records_seed(func: _F) -> _F:
    """Decorator of a public function (or method) that draws random numbers: its result records
    in ``seed`` the seed it used, so that ``rng=result.seed`` repeats the result bit for bit.

    ``rng=None`` becomes a fresh integer seed, an integer is kept, a Generator is passed on and
    recorded as ``None`` (:func:`rng_and_seed`). ``rng`` must be a
    keyword-only parameter and the result a frozen dataclass with a field ``seed``, which is
    set once, here, as its ``__init__`` would set it.
    """
    parameter = inspect.signature(func).parameters.get("rng")
    if parameter is None or parameter.kind is not inspect.Parameter.KEYWORD_ONLY:
        raise InvalidTypeError(f"records_seed: {func.__qualname__} has no keyword-only parameter `rng`")
    inner, seeded, error = func, rng_and_seed, InvalidTypeError  # free variables of `wrapper` (see below)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["rng"], seed = seeded(kwargs.get("rng"))
        result = inner(*args, **kwargs)
        if "seed" not in getattr(result, "__dataclass_fields__", {}):
            raise error(f"records_seed: {type(result).__name__} (from {inner.__qualname__}) has no field `seed`")
        object.__setattr__(result, "seed", seed)  # a frozen dataclass's own field, as its __init__ sets it
        return result

    # The wrapper runs with the globals of `func`'s module (it reads only free variables and
    # builtins): doctest finds a module's functions by their __globals__, and would otherwise
    # skip the examples in the docstring of every decorated function.
    made = types.FunctionType(wrapper.__code__, func.__globals__, func.__name__, None, wrapper.__closure__)
    return cast(_F, functools.update_wrapper(made, func))
