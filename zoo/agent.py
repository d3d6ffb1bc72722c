"""The contract between the run loop and an agent, and a template that owns the budget loop."""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from .metrics import MetricLogger


@dataclass
class TrialContext:
    """Everything an agent factory gets besides its own params.

    ``make_env(seed)`` builds a fresh environment of the spec's env block; agents that need several
    (vectorized actors, evaluation) call it once per copy with distinct seeds derived from ``seed``.
    ``budget`` is the trial's whole budget (``budget.unit``, ``budget.amount``), for schedules that run over it;
    ``meta_controller(behavior_space, rng)`` builds the spec's meta-controller, when there is one;
    ``make_vector_env(num_envs, seed)`` builds the env's vector form, when its plugin registers one;
    ``backend`` is the spec's backend block (``backend.type``: where the trial runs), and
    ``backend_capabilities`` what its backend entry offers a trial (`zoo.BackendEntry.capabilities`),
    for agents that launch processes of their own.
    """

    seed: int
    trial: int
    directory: Path
    env_params: Any
    make_env: Callable[[int | None], Any]
    logger: MetricLogger
    budget: Any
    meta_controller: Any = None
    torch_threads: int = 1
    make_vector_env: Callable[[int, int | None], Any] | None = None
    backend: Any = None
    backend_capabilities: frozenset[str] = frozenset()


class Agent(ABC):
    """A trainable agent. The run loop calls `learn` (or `learn_episodes`) in chunks and checkpoints between them.

    Most agents write only `train_step` (one move, one episode or one rollout, counting what it
    consumed in ``self._steps`` and ``self.episodes``) and let this template run the budget; agents
    that drive a library's own loop (SB3) override `learn` and `learn_episodes` instead. `save_state`
    and `load_state` carry the counters and random generators through a checkpoint.

    An agent registered with ``batched_trials=True`` trains several trials at once: its factory gets
    a list of TrialContexts, and `steps` and `episodes` are lists with one entry per trial.

    An agent is deterministic when the same seed gives the same numbers. ``exact_resume`` says
    whether its checkpoints also hold everything an interruption would lose, so that a trial on an
    env that is deterministic given its seed, interrupted and resumed, ends exactly as an
    uninterrupted one (an agent may set it per instance, e.g. by budget unit; the run's manifest
    records it, and the core's resume test checks it).
    """

    exact_resume: ClassVar[bool] = False
    _steps: int = 0
    episodes: int = 0

    @property
    def steps(self) -> int:
        """Environment steps consumed so far (restored by `load`)."""
        return self._steps

    def train_step(self) -> None:
        """Train for one piece of work, advancing ``self._steps`` (and ``self.episodes`` for every finished episode)."""
        raise NotImplementedError(f"{type(self).__name__} implements neither train_step nor learn")

    def learn(self, steps: int) -> None:
        """Train for at least `steps` more environment steps (an agent may round up to its step's size)."""
        target = self.steps + steps
        while self.steps < target:
            self.train_step()

    def learn_episodes(self, episodes: int) -> None:
        """Train for `episodes` more episodes (``episodes`` counts those finished so far, restored by `load`)."""
        if type(self).train_step is Agent.train_step:
            raise NotImplementedError(f"{type(self).__name__} takes budgets in steps only")
        target = self.episodes + episodes
        while self.episodes < target:
            self.train_step()

    @classmethod
    def counts_episodes(cls) -> bool:
        """Whether this agent takes budgets in episodes."""
        return cls.learn_episodes is not Agent.learn_episodes or cls.train_step is not Agent.train_step

    @abstractmethod
    def save(self, directory: Path) -> None:
        """Write the full training state into `directory` in safe formats (no pickle)."""

    @abstractmethod
    def load(self, directory: Path) -> None:
        """Restore what `save` wrote."""

    def save_state(self, directory: Path, name: str, **values: Any) -> None:
        """Write the counters and `values` to the JSON file `name`; numpy and torch generators are stored by state."""
        state = {"steps": self._steps, "episodes": self.episodes}
        state.update({key: generator_to_state(value) for key, value in values.items()})
        (Path(directory) / name).write_text(json.dumps(state))

    def load_state(self, directory: Path, name: str, **generators: Any) -> dict[str, Any]:
        """Read what `save_state` wrote: restore the counters and `generators` in place, return the other values."""
        state = json.loads((Path(directory) / name).read_text())
        self._steps, self.episodes = int(state.pop("steps")), int(state.pop("episodes"))
        for key, generator in generators.items():
            set_generator_state(generator, state.pop(key))
        return state

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """Returns of `episodes` evaluation episodes; agents without an evaluation mode raise."""
        raise NotImplementedError(f"{type(self).__name__} has no evaluation mode")

    def close(self) -> None:
        """Release environments and other resources."""


def generator_to_state(value: Any) -> Any:
    """A numpy Generator's bit-generator state or a torch Generator's state as JSON-able data; other values as given."""
    if isinstance(value, np.random.Generator):
        return value.bit_generator.state
    if type(value).__name__ == "Generator" and hasattr(value, "get_state"):  # torch.Generator, without importing torch
        return value.get_state().tolist()
    return value


def set_generator_state(generator: Any, state: Any) -> None:
    """Restore a state taken by `generator_to_state` into `generator` (numpy or torch)."""
    if isinstance(generator, np.random.Generator):
        generator.bit_generator.state = state
    else:
        import torch

        generator.set_state(torch.tensor(state, dtype=torch.uint8))


class EpisodeResets:
    """The reset seeds of a trial's episodes on one env, replayable after a resume.

    The first episode resets with `seed`; later ones reset unseeded, continuing the env's own random
    stream (re-seeding an ALE env reloads its ROM). A checkpoint keeps the count of resets, and
    `replay` repeats them on a new env, so that an env whose randomness is drawn at reset (GOHR's
    boards) deals the same next episode as the uninterrupted run would.
    """

    def __init__(self, seed: int):
        self.seed = seed
        self.count = 0

    def next_seed(self) -> int | None:
        """The seed to reset the next episode with (None: unseeded), counting the reset."""
        self.count += 1
        return self.seed if self.count == 1 else None

    def replay(self, env, count: int) -> None:
        """Repeat `count` resets on `env` as `next_seed` dealt them."""
        self.count = 0
        for _ in range(count):
            env.reset(seed=self.next_seed())


class Progress:
    """An agent's progress in the budget's unit (steps or episodes), per trial; a batch moves as fast as its slowest trial.

    It also keeps the time spent on it: `cpu_seconds` and `wall_seconds` of earlier processes (read from the
    checkpoint a trial resumed from) plus this process's since the Progress was made.
    """

    def __init__(self, agent: Agent, unit: str, batched: bool, *, cpu_seconds: float = 0.0, wall_seconds: float = 0.0):
        self.agent, self.unit, self.batched = agent, unit, batched
        self._earlier = (cpu_seconds, wall_seconds)
        self._started = (time.process_time(), time.time())

    def cpu_seconds(self) -> float:
        return round(self._earlier[0] + time.process_time() - self._started[0], 3)

    def wall_seconds(self) -> float:
        return round(self._earlier[1] + time.time() - self._started[1], 3)

    def _listed(self, value) -> list[int]:
        return [int(v) for v in value] if self.batched else [int(value)]

    def steps(self) -> list[int]:
        return self._listed(self.agent.steps)

    def per_trial(self) -> list[int]:
        return self.steps() if self.unit == "steps" else self._listed(self.agent.episodes)

    def least(self) -> int:
        return min(self.per_trial())

    def learn(self, amount: int) -> None:
        if self.unit == "steps":
            self.agent.learn(amount)
        else:
            self.agent.learn_episodes(amount)
