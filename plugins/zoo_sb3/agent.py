"""A zoo Agent around a stable-baselines3 algorithm.

Checkpoints hold only tensors, arrays and JSON (no pickles): the state dicts of the networks and
of every optimizer (SAC and TD3 have several), the counters, the action space's random state, for
off-policy algorithms the replay buffer and with VecNormalize its running statistics; and what an
interruption would lose of the rollout in progress: the last observations (and stacked frames),
RecurrentPPO's LSTM states, SB3's episode-info buffers and, per env, how its episode in progress began (the reset's seed, or
the env's random state before an unseeded reset) with the actions taken since. On resume the model
is rebuilt from the spec, these are loaded into it and each env replays its episode, so a trial on
envs whose randomness comes from their seed and ``np_random`` (or their ``get_state``) continues exactly. A
replay that does not end on the recorded last observation is reported, the trial goes on from new
episodes, and the resume is recorded as not exact.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import deque
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import KVWriter
from stable_baselines3.common.save_util import recursive_getattr

from zoo import Agent, TrialContext

log = logging.getLogger("zoo")

COUNTERS = ("num_timesteps", "_n_updates", "_episode_num", "_n_calls", "exploration_rate")
BUFFER_FIELDS = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts")


class SB3Agent(Agent):
    """Trains an SB3 algorithm in chunks; schedules run over the whole trial budget."""

    exact_resume = True
    #: model attributes that are this wrapper's, not SB3's: left out of SB3's own .zip (zoo export)
    UNSAVED = ("_update_current_progress_remaining",)

    def __init__(self, algorithm: type, params: Any, context: TrialContext):
        from stable_baselines3.common.logger import Logger

        from .arguments import constructor_arguments

        self.context, self.params = context, params
        env = self._vector_env([context.seed + i for i in range(params.n_envs)])
        if params.normalize_observations or params.normalize_rewards:
            from stable_baselines3.common.vec_env import VecNormalize

            env = VecNormalize(env, norm_obs=params.normalize_observations, norm_reward=params.normalize_rewards,
                               gamma=params.gamma)
        self.model = algorithm(params.policy, env, seed=context.seed, verbose=0,
                               **constructor_arguments(params, env.action_space))
        self._record_device(algorithm)
        self.model.set_logger(Logger(folder=None, output_formats=[_MetricsWriter(context.logger)]))
        self._callback = _EpisodeLogger(context.logger)
        budget = context.budget
        self.model._update_current_progress_remaining = (  # schedules span the budget, not one chunk
            lambda num_timesteps, total_timesteps: setattr(
                self.model, "_current_progress_remaining",
                max(0.0, 1.0 - (num_timesteps if budget.unit == "steps" else self.episodes) / budget.amount),
            )
        )

    def _vector_env(self, seeds: list[int]):
        """The envs of `seeds`, each in a Monitor (episode returns), stacked as the params ask."""
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv, VecFrameStack

        env = DummyVecEnv([lambda s=s: EpisodeRecorder(Monitor(self.context.make_env(s))) for s in seeds])
        return VecFrameStack(env, self.params.frame_stack) if self.params.frame_stack > 1 else env

    def _record_device(self, algorithm: type) -> None:
        """Write which algorithm ran on which device to the trial's sb3.json (``device: auto`` may pick CUDA)."""
        import torch

        self.context.directory.mkdir(parents=True, exist_ok=True)
        (self.context.directory / "sb3.json").write_text(json.dumps({
            "algorithm": f"{algorithm.__module__.split('.')[0]}.{algorithm.__name__}",
            "device_requested": self.params.device, "device": str(self.model.device),
            "cuda_available": torch.cuda.is_available(), "torch": torch.__version__,
        }, indent=2) + "\n")

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

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        import torch

        modules, tensors = self.model._get_torch_save_params()  # e.g. SAC: policy, actor/critic optimizers, log_ent_coef
        for name in modules:
            torch.save(recursive_getattr(self.model, name).state_dict(), directory / _state_file(name))
        if tensors:
            torch.save({name: recursive_getattr(self.model, name).detach() for name in tensors}, directory / "tensors.pt")
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
        normalizer = self._normalizer()
        if normalizer is not None:
            np.savez(directory / "normalize.npz", **_normalizer_state(normalizer))

    def load(self, directory: Path) -> None:
        import torch

        modules, tensors = self.model._get_torch_save_params()
        for name in modules:
            recursive_getattr(self.model, name).load_state_dict(torch.load(directory / _state_file(name), weights_only=True))
        if tensors:
            stored = torch.load(directory / "tensors.pt", weights_only=True)
            with torch.no_grad():
                for name in tensors:  # in place: optimizers hold these very tensors
                    recursive_getattr(self.model, name).copy_(stored[name])
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
        normalizer = self._normalizer()
        if normalizer is not None:
            with np.load(directory / "normalize.npz", allow_pickle=False) as data:
                _load_normalizer(normalizer, data)

    def _normalizer(self):
        from stable_baselines3.common.vec_env import VecNormalize

        env = self.model.get_env()
        return env if isinstance(env, VecNormalize) else None

    def _save_rollout(self, directory: Path) -> None:
        """The rollout in progress: last observations and episode starts, SB3's info buffers, each env's episode."""
        model = self.model
        if not isinstance(model._last_obs, np.ndarray):
            return  # not started yet (or dict observations, which start afresh)
        stacker = _frame_stacker(model.env)
        extra = {} if stacker is None else {"stacked_obs": stacker.stacked_obs.stacked_obs}
        np.savez(directory / "rollout.npz", last_obs=model._last_obs, episode_starts=model._last_episode_starts, **extra)
        lstm = getattr(model, "_last_lstm_states", None)
        if lstm is not None:  # RecurrentPPO: the recurrent states its policy and value LSTMs carry into the next step
            import torch

            torch.save({"pi": list(lstm.pi), "vf": list(lstm.vf)}, directory / "lstm.pt")
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
        diverged = [i for i, (env, recording) in enumerate(zip(model.env.envs, rollout["envs"]))
                    if not env.replay(recording)]
        model.ep_info_buffer = deque(rollout["ep_info_buffer"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(rollout["ep_success_buffer"], maxlen=model._stats_window_size)
        if diverged:
            # The replayed episode is not the recorded one: the env draws from a random state it does not
            # save. Go on from new episodes (SB3 resets every env at the next learn()), and say so.
            log.warning("env(s) %s of trial %d did not replay their episode in progress exactly (their randomness "
                        "is not in get_state/set_state, docs/plugins.md): the trial goes on from new episodes, and "
                        "this resume is recorded as not exact", ", ".join(map(str, diverged)), self.context.trial)
            self.exact_resume = False
            model._last_obs = None
            return
        with np.load(directory / "rollout.npz", allow_pickle=False) as data:
            model._last_obs, model._last_episode_starts = data["last_obs"], data["episode_starts"]
            stacker = _frame_stacker(model.env)
            if stacker is not None:
                stacker.stacked_obs.stacked_obs = data["stacked_obs"].copy()
        if (directory / "lstm.pt").exists():
            import torch
            from sb3_contrib.common.recurrent.type_aliases import RNNStates

            lstm = torch.load(directory / "lstm.pt", weights_only=True)
            model._last_lstm_states = RNNStates(tuple(lstm["pi"]), tuple(lstm["vf"]))

    # --- end of resume plumbing: evaluation and closing below ---

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """Deterministic returns of `episodes` episodes, seen through the training env's stacking and normalisation."""
        import copy

        env = self._vector_env([seed])
        normalizer = self._normalizer()
        if normalizer is not None:
            from stable_baselines3.common.vec_env import VecNormalize

            env = VecNormalize(env, training=False, norm_obs=normalizer.norm_obs, norm_reward=False)
            if normalizer.norm_obs:
                env.obs_rms = copy.deepcopy(normalizer.obs_rms)
        if type(self.model).__name__ == "MaskablePPO":
            from sb3_contrib.common.maskable.evaluation import evaluate_policy
        else:
            from stable_baselines3.common.evaluation import evaluate_policy
        try:
            returns, _ = evaluate_policy(self.model, env, n_eval_episodes=episodes, deterministic=True,
                                         return_episode_rewards=True, warn=False)
        finally:
            env.close()
        return [float(r) for r in returns]

    def close(self) -> None:
        self.model.get_env().close()


class EpisodeRecorder(gymnasium.Wrapper):
    """Remembers how the episode in progress began and the actions since, so that a fresh env can replay it.

    An unseeded reset starts from what the env was before it: the env's own ``get_state()`` when it has
    one (GOHR's boards come from a generator of their own), else its ``np_random``.
    """

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        unwrapped = self.env.unwrapped
        self._start = {"seed": seed, "options": options}
        if seed is None and _has_state(unwrapped):
            self._start["env"] = unwrapped.get_state()
        elif seed is None:
            self._start["np_random"] = unwrapped.np_random.bit_generator.state
        self._actions: list[Any] = []
        observation, info = self.env.reset(seed=seed, options=options)
        self._last = _digest(observation)
        return observation, info

    def step(self, action):
        self._actions.append(np.asarray(action).tolist())
        observation, *rest = self.env.step(action)
        self._last = _digest(observation)
        return (observation, *rest)

    def recording(self) -> dict[str, Any]:
        return {"start": self._start, "actions": self._actions, "last": self._last}

    def replay(self, recording: dict[str, Any]) -> bool:
        """Bring this env (a fresh copy) to where the recorded one was: same reset, same actions. Whether it got
        there: its last observation is the recorded one (checkpoints of zoo versions that kept none count as yes)."""
        start = recording["start"]
        if "env" in start:
            self.env.unwrapped.set_state(start["env"])
        elif start["seed"] is None:
            self.env.unwrapped.np_random.bit_generator.state = start["np_random"]
        self.reset(seed=start["seed"], options=start["options"])
        dtype = getattr(self.action_space, "dtype", None)
        for action in recording["actions"]:
            self.step(np.asarray(action, dtype=dtype))
        return recording.get("last", self._last) == self._last


def _digest(observation: Any) -> str:
    """A fingerprint of an observation (arrays, numbers, and dicts or tuples of them)."""
    digest = hashlib.sha1()
    parts = [observation]
    while parts:
        part = parts.pop()
        if isinstance(part, dict):
            parts.extend(part[key] for key in sorted(part))
        elif isinstance(part, tuple | list):
            parts.extend(part)
        else:
            digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


def _has_state(env) -> bool:
    """Whether `env` saves and restores its whole state (``get_state``/``set_state``, docs/plugins.md)."""
    return callable(getattr(env, "get_state", None)) and callable(getattr(env, "set_state", None))


def _frame_stacker(env):
    """The VecFrameStack in a chain of vector-env wrappers (its stacked frames are rollout state), or None."""
    from stable_baselines3.common.vec_env import VecEnvWrapper, VecFrameStack

    while isinstance(env, VecEnvWrapper):
        if isinstance(env, VecFrameStack):
            return env
        env = env.venv
    return None


def _plain(value: Any) -> Any:
    """Numpy scalars inside a dict as Python numbers (SB3's episode infos), for JSON."""
    if isinstance(value, dict):
        return {key: _plain(v) for key, v in value.items()}
    return value.item() if isinstance(value, np.generic) else value


def _state_file(name: str) -> str:
    """Checkpoint file of a module or optimizer ("optimizer.pt" for the policy's own, as before SAC and TD3)."""
    return "optimizer.pt" if name == "policy.optimizer" else f"{name}.pt"


def _normalizer_state(env) -> dict[str, np.ndarray]:
    """VecNormalize's running statistics as plain arrays (its own save() pickles the whole wrapper)."""
    state = {"returns": np.asarray(env.returns)}
    for prefix, rms in _running_statistics(env):
        state.update({f"{prefix}_mean": np.asarray(rms.mean), f"{prefix}_var": np.asarray(rms.var),
                      f"{prefix}_count": np.asarray(rms.count)})
    return state


def _running_statistics(env) -> list[tuple[str, Any]]:
    """VecNormalize's RunningMeanStd of observations (only when it normalises them) and of returns."""
    return ([("obs", env.obs_rms)] if env.norm_obs else []) + [("ret", env.ret_rms)]


def _load_normalizer(env, data) -> None:
    env.returns = data["returns"].copy()
    for prefix, rms in _running_statistics(env):
        rms.mean, rms.var, rms.count = data[f"{prefix}_mean"].copy(), data[f"{prefix}_var"].copy(), float(data[f"{prefix}_count"])


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
