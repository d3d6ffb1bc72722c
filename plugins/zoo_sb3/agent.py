"""A zoo Agent around a stable-baselines3 algorithm.

Checkpoints hold only tensors, arrays and JSON (no pickles): the network and optimizer state
dicts, the counters, the action space's random state and, for off-policy algorithms, the replay
buffer; and what an interruption would lose of the rollout in progress: the last observations,
SB3's episode-info buffers and, per env, how its episode in progress began (the reset's seed, or
the env's random state before an unseeded reset) with the actions taken since. On resume the model
is rebuilt from the spec, these are loaded into it and each env replays its episode, so a trial on
envs whose randomness comes from their seed and ``np_random`` continues exactly.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter

from zoo import Agent, TrialContext

ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "elu": "ELU", "leaky_relu": "LeakyReLU"}
COUNTERS = ("num_timesteps", "_n_updates", "_episode_num", "_n_calls", "exploration_rate")
BUFFER_FIELDS = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts")


class SB3Agent(Agent):
    """Trains an SB3 algorithm in chunks; schedules run over the whole trial budget."""

    exact_resume = True

    def __init__(self, algorithm: type, params: Any, context: TrialContext):
        import torch
        from stable_baselines3.common.logger import Logger
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        self.context = context
        hyper = params.model_dump(exclude={"type", "policy", "policy_kwargs", "n_envs"})
        policy_kwargs: dict[str, Any] = {}
        if params.policy_kwargs.net_arch is not None:
            policy_kwargs["net_arch"] = list(params.policy_kwargs.net_arch)
        if params.policy_kwargs.activation is not None:
            policy_kwargs["activation_fn"] = getattr(torch.nn, ACTIVATIONS[params.policy_kwargs.activation])
        seeds = [context.seed + i for i in range(params.n_envs)]
        env = DummyVecEnv([lambda s=s: EpisodeRecorder(Monitor(context.make_env(s))) for s in seeds])
        self.model = algorithm(
            params.policy, env, policy_kwargs=policy_kwargs or None, seed=context.seed, device="cpu", verbose=0, **hyper
        )
        self.model.set_logger(Logger(folder=None, output_formats=[_MetricsWriter(context.logger)]))
        self._callback = _EpisodeLogger(context.logger)
        budget = context.budget
        self.model._update_current_progress_remaining = (  # schedules span the budget, not one chunk
            lambda num_timesteps, total_timesteps: setattr(
                self.model, "_current_progress_remaining",
                max(0.0, 1.0 - (num_timesteps if budget.unit == "steps" else self.episodes) / budget.amount),
            )
        )

    @property
    def steps(self) -> int:
        return int(self.model.num_timesteps)

    @property
    def episodes(self) -> int:
        return self._callback.episodes

    def learn_episodes(self, episodes: int) -> None:
        """On-policy: whole rollouts until enough episodes ended; off-policy: stop at the episode's end."""
        from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

        target = self.episodes + episodes
        if isinstance(self.model, OnPolicyAlgorithm):
            while self.episodes < target:
                self.learn(self.model.n_steps * self.model.n_envs)
            return
        self._callback.stop_at = target
        try:
            self.learn(10**12)
        finally:
            self._callback.stop_at = None

    def learn(self, steps: int) -> None:
        self.model.learn(total_timesteps=steps, reset_num_timesteps=False, callback=self._callback, progress_bar=False)
        self.model.logger.dump(self.model.num_timesteps)  # what the last update recorded

    def save(self, directory: Path) -> None:
        import torch

        torch.save(self.model.policy.state_dict(), directory / "policy.pt")
        torch.save(self.model.policy.optimizer.state_dict(), directory / "optimizer.pt")
        counters = {name: getattr(self.model, name) for name in COUNTERS if hasattr(self.model, name)}
        counters["episodes"] = self._callback.episodes
        counters["action_space"] = self.model.action_space.np_random.bit_generator.state
        (directory / "counters.json").write_text(json.dumps(counters))
        self._save_rollout(directory)
        buffer = getattr(self.model, "replay_buffer", None)
        if buffer is not None:  # only the filled part of the buffer
            filled = buffer.buffer_size if buffer.full else buffer.pos
            arrays = {name: getattr(buffer, name)[:filled] for name in BUFFER_FIELDS}
            np.savez(directory / "replay.npz", pos=np.array(buffer.pos), full=np.array(buffer.full), **arrays)

    def load(self, directory: Path) -> None:
        import torch

        self.model.policy.load_state_dict(torch.load(directory / "policy.pt", weights_only=True))
        self.model.policy.optimizer.load_state_dict(torch.load(directory / "optimizer.pt", weights_only=True))
        counters = json.loads((directory / "counters.json").read_text())
        self._callback.episodes = counters.pop("episodes")
        self.model.action_space.np_random.bit_generator.state = counters.pop("action_space")
        for name, value in counters.items():
            setattr(self.model, name, value)
        self._load_rollout(directory)
        replay = directory / "replay.npz"
        if replay.exists():
            buffer = self.model.replay_buffer
            with np.load(replay, allow_pickle=False) as data:
                for name in BUFFER_FIELDS:
                    stored = data[name]
                    getattr(buffer, name)[: len(stored)] = stored
                buffer.pos, buffer.full = int(data["pos"]), bool(data["full"])

    def _save_rollout(self, directory: Path) -> None:
        """The rollout in progress: last observations and episode starts, SB3's info buffers, each env's episode."""
        model = self.model
        if not isinstance(model._last_obs, np.ndarray):
            return  # not started yet (or dict observations, which start afresh)
        np.savez(directory / "rollout.npz", last_obs=model._last_obs, episode_starts=model._last_episode_starts)
        rollout = {
            "ep_info_buffer": [_plain(info) for info in model.ep_info_buffer],
            "ep_success_buffer": [_plain(v) for v in model.ep_success_buffer],
            "envs": [env.recording() for env in model.env.envs],
        }
        (directory / "rollout.json").write_text(json.dumps(rollout))

    def _load_rollout(self, directory: Path) -> None:
        if not (directory / "rollout.json").exists():
            return
        model = self.model
        rollout = json.loads((directory / "rollout.json").read_text())
        for env, recording in zip(model.env.envs, rollout["envs"]):
            env.replay(recording)
        with np.load(directory / "rollout.npz", allow_pickle=False) as data:
            model._last_obs, model._last_episode_starts = data["last_obs"], data["episode_starts"]
        model.ep_info_buffer = deque(rollout["ep_info_buffer"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(rollout["ep_success_buffer"], maxlen=model._stats_window_size)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        from stable_baselines3.common.evaluation import evaluate_policy
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        env = DummyVecEnv([lambda: Monitor(self.context.make_env(seed))])
        try:
            returns, _ = evaluate_policy(self.model, env, n_eval_episodes=episodes, deterministic=True,
                                         return_episode_rewards=True)
        finally:
            env.close()
        return [float(r) for r in returns]

    def close(self) -> None:
        self.model.get_env().close()


class EpisodeRecorder(gymnasium.Wrapper):
    """Remembers how the episode in progress began and the actions since, so that a fresh env can replay it."""

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        random = None if seed is not None else self.env.unwrapped.np_random.bit_generator.state
        self._start = {"seed": seed, "np_random": random, "options": options}
        self._actions: list[Any] = []
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        self._actions.append(np.asarray(action).tolist())
        return self.env.step(action)

    def recording(self) -> dict[str, Any]:
        return {"start": self._start, "actions": self._actions}

    def replay(self, recording: dict[str, Any]) -> None:
        """Bring this env (a fresh copy) to where the recorded one was: same reset, same actions."""
        start = recording["start"]
        if start["seed"] is None:
            self.env.unwrapped.np_random.bit_generator.state = start["np_random"]
        self.reset(seed=start["seed"], options=start["options"])
        dtype = getattr(self.action_space, "dtype", None)
        for action in recording["actions"]:
            self.step(np.asarray(action, dtype=dtype))


def _plain(value: Any) -> Any:
    """Numpy scalars inside a dict as Python numbers (SB3's episode infos), for JSON."""
    if isinstance(value, dict):
        return {key: _plain(v) for key, v in value.items()}
    return value.item() if isinstance(value, np.generic) else value


class _EpisodeLogger(BaseCallback):
    """Counts and logs each finished episode at the step it ended; stops training at `stop_at` episodes."""

    def __init__(self, logger):
        super().__init__()
        self.metrics = logger
        self.episodes = 0
        self.stop_at: int | None = None

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            episode = info.get("episode")
            if episode is not None:
                self.episodes += 1
                self.metrics.log(self.num_timesteps, episode_return=episode["r"], episode_length=episode["l"])
        return self.stop_at is None or self.episodes < self.stop_at


class _MetricsWriter(KVWriter):
    """An SB3 logger output that forwards numeric values (losses, rates) to the trial's metrics."""

    def __init__(self, logger):
        self.metrics = logger

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0) -> None:
        scalars = {key: value for key, value in key_values.items()
                   if isinstance(value, (int, float, np.floating, np.integer)) and not key.startswith("time/")}
        if scalars:
            self.metrics.log(step, **scalars)

    def close(self) -> None:
        pass
