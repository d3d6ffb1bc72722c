"""Every registered meta-controller works under any behavior space and checkpoints exactly (learning:
test_learning.py)."""

import json

import numpy as np
import pytest
from zoo_learner.state import from_plain, to_plain

from zoo import BehaviorSpace, Coordinate, ZooError
from zoo.registry import get_registry

SPACES = {
    "gdi": BehaviorSpace((Coordinate("beta1", 0, 50, 1.0), Coordinate("beta2", 0, 50, 1.0),
                          Coordinate("eps", 0, 1, 0.1)), (1.0, 0.0, 1.0)),
    "line": BehaviorSpace((Coordinate("x", 0, 1, 0.1),), (0.5,)),
}
NAMES = ["gdi_bandits", "fixed", "uniform", "ucb1", "sliding_window_ucb", "thompson"]


def make(name, space, seed, **params):
    entry = get_registry().get("meta_controller", name)
    return entry.factory(entry.params(**params), space, np.random.default_rng(seed))


def test_all_builtins_are_registered():
    assert set(NAMES) <= set(get_registry().names("meta_controller"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("space", SPACES.values(), ids=SPACES.keys())
def test_choices_lie_in_the_space_and_checkpoints_continue_exactly(name, space):
    a = make(name, space, 0)
    for k in range(30):
        choice = a.sample()
        assert space.contains(choice.value)
        a.update(choice, float(np.sin(k)) * 10)
    state = json.loads(json.dumps(to_plain(a.state_dict())))  # through the JSON a checkpoint holds
    b = make(name, space, 123)
    b.load_state_dict(from_plain(state))
    bare = make(name, space, 7)  # a state of bare lists and numbers loads as the same arrays
    bare.load_state_dict(json.loads(json.dumps(a.state_dict(), default=lambda value: value.tolist())))
    for k in range(20):
        ca, cb, cc = a.sample(), b.sample(), bare.sample()
        assert np.array_equal(ca.value, cb.value) and ca.arm == cb.arm
        assert np.array_equal(ca.value, cc.value) and ca.arm == cc.arm
        for controller, choice in ((a, ca), (b, cb), (bare, cc)):
            controller.update(choice, float(k))


def test_fixed_uses_the_agent_default_or_a_given_point():
    assert make("fixed", SPACES["gdi"], 0).sample().value.tolist() == [1.0, 0.0, 1.0]
    assert make("fixed", SPACES["gdi"], 0, value=[2, 3, 0.5]).sample().value.tolist() == [2, 3, 0.5]
    with pytest.raises(ZooError, match="not a point of the behavior space"):
        make("fixed", SPACES["gdi"], 0, value=[2, 3, 1.5])


