"""Tabular Q-learning with epsilon-greedy exploration: a deterministic, exactly resumable agent."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from gymnasium import spaces
from pydantic import Field

from zoo import Agent, Params, TrialContext, ZooError


class QLearningParams(Params):
    """The ``tabular-q`` agent block of a spec."""

    learning_rate: float = Field(default=0.1, gt=0, le=1, description="step size of the Q update")
    gamma: float = Field(default=0.99, ge=0, le=1, description="discount factor")
    epsilon: float = Field(default=0.1, ge=0, le=1, description="probability of a random action")
    initial_q: float = Field(default=0.0, description="initial value of every Q entry")


class QLearningAgent(Agent):
    """Learns a Q table on an env with discrete observations and actions.

    A checkpoint holds the whole training state: the Q table (``q.npz``) and, in ``state.json``,
    the counters, the agent's random generator, the episode in progress and, when the env offers
    ``get_state``/``set_state``, the env's own state. Resuming from it continues bit for bit.
    """

    def __init__(self, params: QLearningParams, context: TrialContext):
        self.params = params
        self.context = context
        self.env = context.make_env(context.seed)
        observations, actions = self.env.observation_space, self.env.action_space
        if not (isinstance(observations, spaces.Discrete) and isinstance(actions, spaces.Discrete)):
            raise ZooError("agent 'tabular-q' needs an env with discrete observations and actions")
        self.q = np.full((int(observations.n), int(actions.n)), params.initial_q, dtype=np.float64)
        self.rng = np.random.default_rng(context.seed)
        self._steps = 0
        self.episodes = 0
        self.observation = int(self.env.reset()[0])
        self.episode_return = 0.0
        self.episode_length = 0

    @property
    def steps(self) -> int:
        return self._steps

    def act(self, observation: int, epsilon: float) -> int:
        if self.rng.random() < epsilon:
            return int(self.rng.integers(self.q.shape[1]))
        values = self.q[observation]
        best = np.flatnonzero(values == values.max())
        return int(best[0] if len(best) == 1 else self.rng.choice(best))

    def learn(self, steps: int) -> None:
        p = self.params
        for _ in range(steps):
            action = self.act(self.observation, p.epsilon)
            observation, reward, terminated, truncated, _ = self.env.step(action)
            observation = int(observation)
            target = reward if terminated else reward + p.gamma * self.q[observation].max()
            self.q[self.observation, action] += p.learning_rate * (target - self.q[self.observation, action])
            self._steps += 1
            self.episode_return += float(reward)
            self.episode_length += 1
            self.observation = observation
            if terminated or truncated:
                self.episodes += 1
                self.context.logger.log(self._steps, episode_return=self.episode_return,
                                        episode_length=self.episode_length)
                self.observation = int(self.env.reset()[0])
                self.episode_return, self.episode_length = 0.0, 0

    def save(self, directory: Path) -> None:
        np.savez(directory / "q.npz", q=self.q)
        env = self.env.unwrapped
        state = {
            "steps": self._steps, "episodes": self.episodes, "observation": self.observation,
            "episode_return": self.episode_return, "episode_length": self.episode_length,
            "rng": self.rng.bit_generator.state,
            "env": env.get_state() if hasattr(env, "get_state") else None,
        }
        (directory / "state.json").write_text(json.dumps(state))

    def load(self, directory: Path) -> None:
        with np.load(directory / "q.npz", allow_pickle=False) as data:
            self.q = data["q"].copy()
        state = json.loads((directory / "state.json").read_text())
        self._steps, self.episodes = state["steps"], state["episodes"]
        self.rng.bit_generator.state = state["rng"]
        if state["env"] is not None and hasattr(self.env.unwrapped, "set_state"):
            self.env.unwrapped.set_state(state["env"])
            self.observation = state["observation"]
            self.episode_return, self.episode_length = state["episode_return"], state["episode_length"]
        else:  # an env without get_state: start a fresh episode (resume is then not exact)
            self.observation = int(self.env.reset()[0])
            self.episode_return, self.episode_length = 0.0, 0

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        env = self.context.make_env(seed)
        returns = []
        try:
            for _ in range(episodes):
                observation, total, done = int(env.reset()[0]), 0.0, False
                while not done:
                    action = int(np.argmax(self.q[observation]))
                    observation, reward, terminated, truncated, _ = env.step(action)
                    observation, total, done = int(observation), total + float(reward), terminated or truncated
                returns.append(total)
        finally:
            env.close()
        return returns

    def close(self) -> None:
        self.env.close()
