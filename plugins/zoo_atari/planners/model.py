"""The generative model the planners search: a game whose state can be cloned, restored and stepped.

`EmulatorModel` wraps the ALE-like interface of an ``atari`` or ``synthetic-atari`` env
(``env.unwrapped.ale``): one step is one agent decision of the env's frames per decision, the
episode cap counts as the end of the game, and a cloned state carries the emulator's random
generator (``cloneState(include_rng=True)``), so that a restored state replays the same future
even with sticky actions.
"""

from __future__ import annotations

from typing import Any, Protocol


class Model(Protocol):
    """What a planner needs of a game: `actions` choices per step, clone/restore, one step, state equality."""

    actions: int

    def clone(self) -> Any:
        """The current state."""

    def restore(self, state: Any) -> None:
        """Go back to a state `clone` returned."""

    def step(self, action: int) -> tuple[float, bool]:
        """Take action index `action` for one decision: (reward, game over)."""

    def same(self, a: Any, b: Any) -> bool:
        """Whether two cloned states are the same state."""


def decision_frames(env_params: Any) -> tuple[int, int]:
    """(frames per decision, episode cap in frames) of an ``atari`` or ``synthetic-atari`` env's params."""
    settings = getattr(env_params, "protocol", env_params)
    return int(settings.frame_skip), int(settings.max_episode_frames)


class EmulatorModel:
    """The `Model` of an ALE-like env: its ``unwrapped.ale``, action set and frames per decision."""

    def __init__(self, env: Any, frames: int, max_episode_frames: int):
        base = env.unwrapped
        self.ale = getattr(base, "ale", None)
        if self.ale is None or not hasattr(self.ale, "cloneState"):
            raise ValueError(f"the planners need an ALE-like env with clone/restore (atari or synthetic-atari), "
                             f"not {type(base).__name__}")
        self.actions = int(env.action_space.n)
        legal = list(self.ale.getLegalActionSet())
        # the env's action i is the i-th of the full set or of the game's minimal set, whichever it uses
        self.action_ids = legal if len(legal) == self.actions else list(self.ale.getMinimalActionSet())
        self.frames, self.max_episode_frames = frames, max_episode_frames

    def clone(self) -> Any:
        return self.ale.cloneState(include_rng=True)

    def restore(self, state: Any) -> None:
        self.ale.restoreState(state)

    def over(self) -> bool:
        return bool(self.ale.game_over()) or self.ale.getEpisodeFrameNumber() >= self.max_episode_frames

    def step(self, action: int) -> tuple[float, bool]:
        reward, action_id = 0.0, self.action_ids[action]
        for _ in range(self.frames):
            reward += self.ale.act(action_id)
            if self.over():
                return reward, True
        return reward, False

    def same(self, a: Any, b: Any) -> bool:
        return bool(a.equals(b))
