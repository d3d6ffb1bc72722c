"""Atari environments of a protocol: a gymnasium wrapper pipeline and ale-py's native vector env.

Both give the same observations, rewards and episode ends for the same actions (tests/plugins/zoo_atari check
it; the no-op counts at reset come from different random streams):

* frames: ``AtariEnv(frameskip=1)`` + ``AtariPreprocessing`` (skip with max over the last two frames,
  INTER_AREA resize), or the emulator's own skip when ``max_pool`` is off (last frame, rewards summed);
* rewards clipped to [-1, 1] when asked; ``frame_stack`` frames stacked with zero padding;
* a lost life sets ``terminated`` while the game goes on: the next ``reset()`` returns the current
  observation without emulating, as ``AtariVectorEnv(life_loss_info=True)`` does.
"""

from __future__ import annotations

import base64
import functools
from typing import Any

import gymnasium

from zoo import require_extra, seeded_env

from .protocols import Protocol

NATIVE_SIZE = (210, 160)


class LifeLossTerminal(gymnasium.Wrapper):
    """``terminated`` on a lost life; the next unseeded ``reset()`` continues the same game (a seeded one restarts)."""

    def __init__(self, env: gymnasium.Env):
        super().__init__(env)
        self._lives = 0
        self._life_lost = False
        self._last: tuple[Any, dict] | None = None

    def reset(self, *, seed=None, options=None):
        if self._life_lost and seed is None:
            obs, info = self._last
            info = {**info, "life_loss_continue": True}
        else:
            obs, info = self.env.reset(seed=seed, options=options)
        self._life_lost = False
        self._lives = self.env.unwrapped.ale.lives()
        self._last = (obs, info)
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        lives = self.env.unwrapped.ale.lives()
        self._life_lost = lives < self._lives and not (terminated or truncated)
        if self._life_lost:
            terminated = True
            info = {**info, "life_lost": True}
        self._lives = lives
        self._last = (obs, info)
        return obs, reward, terminated, truncated, info


def make_atari_env(game: str, protocol: Protocol, seed: int | None = None) -> gymnasium.Env:
    """The gymnasium pipeline of `protocol` on the ROM `game` (seeded when `seed` is given)."""
    require_extra("ale_py", "atari", "the atari env")
    require_extra("cv2", "atari", "the atari env's frame preprocessing (opencv)")
    from gymnasium.wrappers import AtariPreprocessing, ClipReward, FrameStackObservation

    native_skip = 1 if protocol.max_pool else protocol.frame_skip
    env: gymnasium.Env = _resumable_atari_env()(
        game=game, obs_type=protocol.observation, frameskip=native_skip,
        repeat_action_probability=protocol.sticky_actions, full_action_space=protocol.full_action_space,
        max_num_frames_per_episode=protocol.max_episode_frames,
    )
    size = protocol.screen_size if protocol.screen_size is not None else (NATIVE_SIZE[1], NATIVE_SIZE[0])
    env = AtariPreprocessing(env, noop_max=protocol.noop_max, frame_skip=protocol.frame_skip // native_skip,
                             screen_size=size, terminal_on_life_loss=False,
                             grayscale_obs=protocol.observation == "grayscale")
    if protocol.reward_clip:
        env = ClipReward(env, -1.0, 1.0)
    env = FrameStackObservation(env, protocol.frame_stack, padding_type="zero")
    if protocol.life_loss_terminal:
        env = LifeLossTerminal(env)
    return seeded_env(env, seed)


@functools.cache
def _resumable_atari_env() -> type:
    """ale-py's AtariEnv with `get_state`/`set_state` (docs/plugins.md): the emulator's state with its random
    stream (sticky actions draw from it) and ``np_random`` (the no-op starts), as JSON-ready data."""
    from ale_py import ALEState
    from ale_py.env import AtariEnv

    class ResumableAtariEnv(AtariEnv):
        def get_state(self) -> dict[str, Any]:
            emulator = self.ale.cloneState(include_rng=True).serialize()
            return {"ale": base64.b64encode(emulator).decode("ascii"), "np_random": self.np_random.bit_generator.state}

        def set_state(self, state: dict[str, Any]) -> None:
            self.ale.restoreState(ALEState(base64.b64decode(state["ale"])))
            self.np_random.bit_generator.state = state["np_random"]

    return ResumableAtariEnv


def make_atari_vector_env(game: str, protocol: Protocol, num_envs: int, seed: int | None = None):
    """ale-py's ``AtariVectorEnv`` with `protocol`'s settings (NEXT_STEP autoreset, one worker thread).

    ALE takes int32 seeds only (sub-env i gets seed + i), so an integer reset seed is folded into
    [0, 2**31 - num_envs); smaller seeds are unchanged. Run seeds (up to 2**32) then work too.
    """
    require_extra("ale_py", "atari", "the atari env")
    from ale_py.vector_env import AtariVectorEnv

    class FoldedSeeds(AtariVectorEnv):
        def reset(self, *, seed=None, options=None):
            if isinstance(seed, int):
                seed %= 2**31 - self.num_envs
            return super().reset(seed=seed, options=options)

    height, width = (protocol.screen_size,) * 2 if protocol.screen_size is not None else NATIVE_SIZE
    env = FoldedSeeds(
        game, num_envs, num_threads=1, max_num_frames_per_episode=protocol.max_episode_frames,
        repeat_action_probability=protocol.sticky_actions, full_action_space=protocol.full_action_space,
        img_height=height, img_width=width, grayscale=protocol.observation == "grayscale",
        stack_num=protocol.frame_stack, frameskip=protocol.frame_skip, maxpool=protocol.max_pool,
        noop_max=protocol.noop_max, episodic_life=False, life_loss_info=protocol.life_loss_terminal,
        reward_clipping=protocol.reward_clip, use_fire_reset=False,
    )
    return seeded_env(env, seed)

