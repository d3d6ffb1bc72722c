"""The data collector hands out each sequence exactly `reuse` times, then evicts it; its state round-trips."""

from collections import Counter

import numpy as np
import pytest
from zoo_learner.replay import FIELDS, SequenceReplay


def sequence(tag):
    seq = {name: np.zeros(3, np.float32) for name in FIELDS}
    seq["arm"] = np.array(tag)
    return seq


def test_each_sequence_is_used_exactly_twice():
    replay, rng, seen = SequenceReplay(reuse=2), np.random.default_rng(0), Counter()
    for tag in range(40):
        replay.add(sequence(tag))
        while replay.ready(4):
            batch = replay.sample(4, rng)
            assert len(set(batch["arm"].tolist())) == 4  # distinct within a batch
            seen.update(batch["arm"].tolist())
    leftover = Counter({int(s["arm"]): 2 - 0 for s in replay._pool})
    assert all(seen[t] == 2 for t in range(40) if t not in leftover)
    assert all(seen[t] < 2 for t in leftover) and len(replay) < 4
    assert max(seen.values()) == 2


def test_capacity_drops_the_oldest():
    replay = SequenceReplay(reuse=2, capacity=3)
    for tag in range(5):
        replay.add(sequence(tag))
    assert [int(s["arm"]) for s in replay._pool] == [2, 3, 4] and replay.dropped == 2


def test_state_round_trip():
    replay, rng = SequenceReplay(reuse=3), np.random.default_rng(1)
    for tag in range(6):
        replay.add(sequence(tag))
    replay.sample(4, rng)
    copy = SequenceReplay(reuse=3)
    copy.load_state_dict(replay.state_dict())
    a = replay.sample(5, np.random.default_rng(7))
    b = copy.sample(5, np.random.default_rng(7))
    assert all(np.array_equal(a[k], b[k]) for k in FIELDS)
    assert list(replay._uses) == list(copy._uses)


def test_too_few_sequences_is_an_error():
    with pytest.raises(ValueError, match="asked for 2"):
        SequenceReplay().sample(2, np.random.default_rng(0))
