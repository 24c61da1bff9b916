"""copy_rng: a copy of a generator spawns the same children as the original, on every numpy."""

import copy

import numpy as np

from trialwise._stats.streams import child_rngs, copy_rng


def test_a_copy_spawns_the_originals_children_and_continues_its_stream():
    gen = np.random.default_rng(3)
    gen.spawn(2)   # children already spawned are counted by the copy too
    gen.random(5)  # and the stream's position
    twin = copy_rng(gen)
    assert [c.random() for c in child_rngs(twin, 3)] == [c.random() for c in child_rngs(gen, 3)]
    assert twin.random() == gen.random()


def test_deepcopy_is_what_copy_rng_replaces_where_it_loses_the_seed_sequence():
    """On numpy < 2, copy.deepcopy gives the copy a fresh seed sequence (Brain-Score pins numpy < 2);
    copy_rng does not depend on that."""
    gen = np.random.default_rng(3)
    same = copy.deepcopy(gen).spawn(1)[0].random() == np.random.default_rng(3).spawn(1)[0].random()
    assert same == (np.lib.NumpyVersion(np.__version__) >= "2.0.0")
    assert copy_rng(gen).spawn(1)[0].random() == np.random.default_rng(3).spawn(1)[0].random()


def test_a_generator_without_a_seed_sequence_is_copied_by_its_state():
    bits = np.random.PCG64()
    bits.state = np.random.PCG64(7).state
    gen = np.random.Generator(bits)
    assert copy_rng(gen).random() == gen.random()
