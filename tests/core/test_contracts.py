"""Every installed meta-controller and behavior-space agent keeps the contracts of zoo.behavior.

Meta-controllers: choices inside the space, a state that restores the future choices exactly, a best
region that changes nothing. Agents: they hand the meta-controller factory a zoo.BehaviorSpace, act
with the points it samples and report each episode's return with the choice it was played with.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from toy_envs import corridor_context

from zoo import BehaviorSpace, BestRegion, Choice, Coordinate, MetaController
from zoo.metrics import read_metrics
from zoo.registry import get_registry

SPACE = BehaviorSpace((Coordinate("beta", 0.0, 4.0, 1.0), Coordinate("eps", 0.0, 1.0, 0.25)), default=(1.0, 0.5))


def entries(kind: str, **flags):
    found = get_registry().entries[kind]
    return [name for name, entry in sorted(found.items()) if all(getattr(entry, k) == v for k, v in flags.items())]


def controller(name: str, seed: int) -> MetaController:
    entry = get_registry().get("meta_controller", name)
    return entry.factory(entry.params(), SPACE, np.random.default_rng(seed))


def points(control: MetaController, count: int) -> list[list[float]]:
    return [control.sample().value.tolist() for _ in range(count)]


@pytest.mark.parametrize("name", entries("meta_controller"))
def test_a_meta_controller_samples_the_space_and_restores_exactly(name):
    trained = controller(name, seed=0)
    assert isinstance(trained, MetaController)
    for _ in range(60):
        choice = trained.sample()
        assert isinstance(choice, Choice) and SPACE.contains(choice.value)
        trained.update(choice, float(choice.value[0] - choice.value[1]))
    restored = controller(name, seed=1)
    restored.load_state_dict(trained.state_dict())
    assert points(restored, 10) == points(trained, 10)

    if isinstance(trained, BestRegion):
        twin = controller(name, seed=2)
        twin.load_state_dict(trained.state_dict())
        best = trained.best(np.random.default_rng(3))
        assert SPACE.contains(best.value)
        assert points(trained, 10) == points(twin, 10)  # best() changed no state


class Recorder:
    """A meta-controller that plays fixed points in turn and records what the agent tells it."""

    def __init__(self, space: BehaviorSpace):
        self.space, self.given, self.returns = space, [], []

    def sample(self) -> Choice:
        point = np.array([c.low + (len(self.given) % 3) / 2 * (c.high - c.low) for c in self.space.coordinates])
        self.given.append(Choice(point, arm=len(self.given)))
        return self.given[-1]

    def update(self, choice: Choice, episode_return: float) -> None:
        self.returns.append((choice, episode_return))

    def state_dict(self):
        return {"given": len(self.given)}

    def load_state_dict(self, state):
        pass


@pytest.mark.parametrize("name", entries("agent", behavior_space=True))
def test_a_behavior_space_agent_plays_and_reports_its_meta_controllers_choices(name, tmp_path):
    recorders = []

    def make(space, rng):
        assert isinstance(space, BehaviorSpace) and isinstance(rng, np.random.Generator)
        recorders.append(Recorder(space))
        return recorders[-1]

    entry = get_registry().get("agent", name)
    context = replace(corridor_context(tmp_path, seed=0, steps=400, length=4, horizon=8), meta_controller=make)
    agent = entry.factory(entry.params(), context)
    try:
        agent.learn(400)
    finally:
        agent.close()
        context.logger.close()
    played = [(recorder, choice, result) for recorder in recorders for choice, result in recorder.returns]
    assert len(played) >= 400 // 8 - len(recorders)  # every finished episode (at most 8 steps) is reported
    for recorder, choice, result in played:
        assert any(choice is given for given in recorder.given)  # reported with the very choice it played
        assert -1e-9 <= result <= 1 + 1e-9  # Corridor pays 1 at its goal and 0 elsewhere
    names = [f"behavior/{coordinate}" for coordinate in recorders[0].space.names]
    rows = [row for row in read_metrics(tmp_path / "metrics.jsonl") if "episode_return" in row]
    logged = {tuple(row[n] for n in names) for row in rows}
    assert logged and logged <= {tuple(choice.value.tolist()) for _, choice, _ in played}  # each episode's own point
