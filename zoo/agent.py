"""The contract between the run loop and an agent."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .metrics import MetricLogger


@dataclass
class TrialContext:
    """Everything an agent factory gets besides its own params.

    ``make_env(seed)`` builds a fresh environment of the spec's env block; agents that need several
    (vectorized actors, evaluation) call it once per copy with distinct seeds derived from ``seed``.
    ``budget`` is the trial's whole budget (``budget.unit``, ``budget.amount``), for schedules that run over it;
    ``meta_controller(behavior_space, rng)`` builds the spec's meta-controller, when there is one;
    ``make_vector_env(num_envs, seed)`` builds the env's vector form, when its plugin registers one.
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


class Agent(ABC):
    """A trainable agent. The run loop calls `learn` (or `learn_episodes`) in chunks and checkpoints between them.

    An agent registered with ``batched_trials=True`` trains several trials at once: its factory gets
    a list of TrialContexts, and `steps` and `episodes` are lists with one entry per trial.

    An agent is deterministic when the same seed gives the same numbers; then, as the core's
    resume tests check, a trial interrupted and resumed from a checkpoint ends exactly as an
    uninterrupted one.
    """

    @property
    @abstractmethod
    def steps(self) -> int:
        """Environment steps consumed so far (restored by `load`)."""

    @abstractmethod
    def learn(self, steps: int) -> None:
        """Train for at least `steps` more environment steps (an agent may round up to its rollout size)."""

    def learn_episodes(self, episodes: int) -> None:
        """Train for `episodes` more episodes.

        Agents that take budgets in episodes implement it and expose ``episodes``, the number of
        episodes finished so far (restored by `load`).
        """
        raise NotImplementedError(f"{type(self).__name__} takes budgets in steps only")

    @classmethod
    def counts_episodes(cls) -> bool:
        """Whether this agent takes budgets in episodes."""
        return cls.learn_episodes is not Agent.learn_episodes

    @abstractmethod
    def save(self, directory: Path) -> None:
        """Write the full training state into `directory` in safe formats (no pickle)."""

    @abstractmethod
    def load(self, directory: Path) -> None:
        """Restore what `save` wrote."""

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """Returns of `episodes` evaluation episodes; agents without an evaluation mode raise."""
        raise NotImplementedError(f"{type(self).__name__} has no evaluation mode")

    def close(self) -> None:
        """Release environments and other resources."""
