"""The ``sarsa`` agent: SARSA(lambda) over any registered feature map, on any discrete-action env.

Rewards are divided by the magnitude of the first non-zero reward of the trial (the JAIR agents'
normalisation); the step size is alpha over the largest number of active features seen so far.
An episode that hits the env's time limit (e.g. the 18,000-frame cap) ends without bootstrapping,
as in the ALE paper's code, unless ``bootstrap_on_truncation``.

Each training step is a whole episode, so checkpoints fall between episodes. The first episode
resets the env with a seed derived from the trial seed, later ones reset unseeded (re-seeding an
ALE env reloads its ROM, ~0.3 s); a checkpoint counts the resets, and loading it replays them on a
fresh env, so a resumed trial ends exactly as an uninterrupted one when the env draws its
randomness at reset (GOHR). An env that also draws while stepping (ALE's sticky actions) resumes
with the same weights but other random draws.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator

from zoo import Agent, EpisodeResets, Params, TrialContext, get_registry

from .learner import SarsaLambda


def episode_seed(seed: int, episode: int) -> int:
    return int(np.random.SeedSequence([seed, episode]).generate_state(1)[0])


class SarsaParams(Params):
    """SARSA(lambda) with replacing traces; defaults are starting points to tune on the training games (docs/algorithms/sarsa-ale.md)."""

    features: dict[str, Any] = Field(description="a feature map: {type: basic|bass|disco|lsh|ram|..., ...its params}")
    alpha: float = Field(default=0.5, gt=0, le=10, description="step size before normalisation")
    gamma: float = Field(default=0.999, ge=0, le=1, description="discount factor")
    lam: float = Field(default=0.9, ge=0, le=1, description="trace decay lambda")
    epsilon: float = Field(default=0.05, ge=0, le=1, description="exploration rate (training and evaluation)")
    trace_cutoff: float = Field(default=1e-4, ge=0, lt=1, description="traces below this are dropped")
    alpha_norm: Literal["max_so_far", "current", "none"] = Field(
        default="max_so_far", description="alpha divided by the most active features seen so far, by this step's, or not at all")
    reward_norm: Literal["first_nonzero", "none"] = Field(
        default="first_nonzero", description="rewards divided by the magnitude of the trial's first non-zero reward, or kept")
    bootstrap_on_truncation: bool = Field(default=False, description="bootstrap from the next state when the time limit cuts an episode")
    dtype: Literal["float32", "float64"] = Field(default="float32", description="precision of the weights and traces")

    @field_validator("features")
    @classmethod
    def _registered_features(cls, value: dict[str, Any]) -> dict[str, Any]:
        from pydantic import ValidationError

        name = value.get("type")
        registry = get_registry()
        if not isinstance(name, str) or name not in registry.entries["feature"]:
            raise ValueError(registry.unknown_message("feature", str(name)))
        entry = registry.get("feature", name)
        try:
            params = entry.params.model_validate({k: v for k, v in value.items() if k != "type"})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or name}: {e['msg']}" for e in exc.errors())
            raise ValueError(f"feature map '{name}': {problems}") from None
        return {"type": name, **params.model_dump(mode="json")}


def build_features(spec: dict[str, Any], env):
    """The FeatureMap of a validated ``features`` block for `env`."""
    entry = get_registry().get("feature", spec["type"])
    return entry.factory(entry.params.model_validate({k: v for k, v in spec.items() if k != "type"}), env)


class SarsaAgent(Agent):
    """Trains SARSA(lambda) one episode at a time on one env."""

    exact_resume = True

    def __init__(self, params: SarsaParams, context: TrialContext):
        self.params, self.context = params, context
        self.env = context.make_env(context.seed)
        self.features = build_features(params.features, self.env)
        self.rng = np.random.default_rng(context.seed)
        self.learner = SarsaLambda(
            int(self.env.action_space.n), int(self.features.size), bool(self.features.per_action),
            alpha=params.alpha, gamma=params.gamma, lam=params.lam, epsilon=params.epsilon,
            trace_cutoff=params.trace_cutoff, alpha_norm=params.alpha_norm, rng=self.rng, dtype=np.dtype(params.dtype),
            repeated_indices=bool(getattr(self.features, "repeated_indices", False)),
        )
        self.reward_scale: float | None = None
        self.resets = EpisodeResets(episode_seed(context.seed, 0))

    def _reward(self, reward: float) -> float:
        if self.params.reward_norm == "none" or reward == 0:
            return reward
        if self.reward_scale is None:
            self.reward_scale = abs(reward)
        return reward / self.reward_scale

    def _start(self, env, seed: int | None):
        env.reset(seed=seed)
        if hasattr(self.features, "reset"):  # a map that remembers earlier screens (DISCO) starts the episode afresh
            self.features.reset()
        active = self.features.active(env)
        self.learner.observe(active)
        return active, self.learner.choose(self.learner.q_values(active))

    def run_episode(self) -> tuple[float, int]:
        """One training episode: (raw return, decisions)."""
        learner, env = self.learner, self.env
        learner.clear_traces()
        active, action = self._start(env, self.resets.next_seed())
        total, steps = 0.0, 0
        while True:
            q = learner.mark(active, action)
            _, reward, terminated, truncated, _ = env.step(action)
            total, steps = total + float(reward), steps + 1
            delta = self._reward(float(reward)) - q
            if terminated or (truncated and not self.params.bootstrap_on_truncation):
                learner.update(delta)
                return total, steps
            active = self.features.active(env)
            learner.observe(active)
            q_next = learner.q_values(active)
            action = learner.choose(q_next)
            learner.update(delta + learner.gamma * q_next[action])
            if truncated:
                return total, steps

    def train_step(self) -> None:
        total, steps = self.run_episode()
        self._steps += steps
        self.episodes += 1
        self.context.logger.log(self._steps, episode_return=total, episode_length=steps)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """Returns of the same epsilon-greedy policy with learning off."""
        env = self.context.make_env(seed)
        saved = self.rng.bit_generator.state
        self.rng.bit_generator.state = np.random.default_rng(seed).bit_generator.state
        returns = []
        try:
            for k in range(episodes):
                active, action = self._start(env, seed if k == 0 else None)
                total, done = 0.0, False
                while not done:
                    _, reward, terminated, truncated, _ = env.step(action)
                    total, done = total + float(reward), terminated or truncated
                    if not done:
                        active = self.features.active(env)
                        action = self.learner.choose(self.learner.q_values(active))
                returns.append(total)
        finally:
            self.rng.bit_generator.state = saved
            env.close()
        return returns

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        directory = Path(directory)
        theta = self.learner.weights()
        nonzero = np.flatnonzero(theta)
        np.savez(directory / "weights.npz", index=nonzero, value=theta[nonzero])
        self.save_state(directory, "sarsa.json", reward_scale=self.reward_scale, max_active=self.learner.max_active,
                        rng=self.rng, resets=self.resets.count)

    def load(self, directory: Path) -> None:
        directory = Path(directory)
        self.learner.clear_traces()
        with np.load(directory / "weights.npz", allow_pickle=False) as data:
            self.learner.theta[:] = 0
            self.learner.theta[data["index"]] = data["value"]
        state = self.load_state(directory, "sarsa.json", rng=self.rng)
        self.reward_scale, self.learner.max_active = state["reward_scale"], state["max_active"]
        self.resets.replay(self.env, state["resets"])

    def close(self) -> None:
        self.env.close()
