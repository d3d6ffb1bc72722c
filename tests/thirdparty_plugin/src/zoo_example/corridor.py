"""A corridor of cells: walk from the left end to the goal at the right end; moves may slip."""

from __future__ import annotations

from typing import Any

import gymnasium
from gymnasium import spaces
from pydantic import Field, model_validator

from zoo import Params


class CorridorParams(Params):
    """The ``corridor`` env block of a spec."""

    length: int = Field(default=8, ge=2, le=10_000, description="cells, the goal being the last")
    slip: float = Field(default=0.1, ge=0, lt=1, description="probability that a move goes the other way")
    goal_reward: float = Field(default=1.0, description="reward for reaching the goal")
    step_reward: float = Field(default=-0.01, description="reward of every other step")
    max_steps: int = Field(default=100, gt=0, le=10**6, description="steps before an episode is truncated")

    @model_validator(mode="after")
    def _reachable(self):
        if self.max_steps < self.length - 1:
            raise ValueError(f"max_steps ({self.max_steps}) is too short to reach the goal of a corridor of {self.length}")
        return self


class CorridorEnv(gymnasium.Env):
    """Actions: 0 left, 1 right. Observation: the cell index. The episode ends at the goal.

    ``get_state``/``set_state`` expose the whole state (position, clock and random generator) as
    JSON-ready data, so that an agent can checkpoint an episode in progress and resume it exactly.
    """

    def __init__(self, params: CorridorParams):
        self.params = params
        self.observation_space = spaces.Discrete(params.length)
        self.action_space = spaces.Discrete(2)
        self.position = 0
        self.clock = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.position, self.clock = 0, 0
        return self.position, {}

    def step(self, action: int):
        move = 1 if action == 1 else -1
        if self.np_random.random() < self.params.slip:
            move = -move
        self.position = min(max(self.position + move, 0), self.params.length - 1)
        self.clock += 1
        done = self.position == self.params.length - 1
        reward = self.params.goal_reward if done else self.params.step_reward
        return self.position, reward, done, self.clock >= self.params.max_steps and not done, {}

    def render(self) -> str:
        cells = ["."] * self.params.length
        cells[-1] = "G"
        cells[self.position] = "A"
        return "".join(cells)

    def get_state(self) -> dict[str, Any]:
        return {"position": self.position, "clock": self.clock, "rng": self.np_random.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        self.position, self.clock = int(state["position"]), int(state["clock"])
        self.np_random.bit_generator.state = state["rng"]


def make_corridor(params: CorridorParams, seed: int | None) -> CorridorEnv:
    """The env factory of the ``corridor`` entry: a corridor whose generator is seeded by `seed`."""
    env = CorridorEnv(params)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env
