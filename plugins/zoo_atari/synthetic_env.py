"""A SyntheticAtari game as a gymnasium env, built like the ale2013 pipeline: ``frame_skip`` frames
per decision with the rewards summed, an episode cap in frames, the full or the minimal action set.

Observations are the palette-index screens; ``env.unwrapped.ale`` is the game's ALE-like interface,
which the SARSA feature maps read as they read ale-py's. The game draws from a random stream of its own,
so `get_state`/`set_state` carry the game's whole state, stream included (docs/plugins.md).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from .synthetic import GAMES, HEIGHT, WIDTH, SyntheticState


class SyntheticAtariEnv(gymnasium.Env):
    metadata = {"render_modes": []}

    def __init__(self, game: str, *, frame_skip: int = 1, max_episode_frames: int = 18_000,
                 full_action_space: bool = True):
        self.game = game
        self.ale = GAMES[game]()
        self.frame_skip, self.max_episode_frames = frame_skip, max_episode_frames
        self.actions = self.ale.getLegalActionSet() if full_action_space else self.ale.getMinimalActionSet()
        self.action_space = gymnasium.spaces.Discrete(len(self.actions))
        self.observation_space = gymnasium.spaces.Box(0, 255, (HEIGHT, WIDTH), np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.ale.seed(seed)
        else:
            self.ale.reset_game()
        return self.ale.getScreen(), {"lives": 0}

    def step(self, action):
        reward, action_id = 0, self.actions[int(action)]
        for _ in range(self.frame_skip):
            reward += self.ale.act(action_id)
            if self.ale.game_over() or self.ale.getEpisodeFrameNumber() >= self.max_episode_frames:
                break
        truncated = self.ale.getEpisodeFrameNumber() >= self.max_episode_frames and not self.ale.game_over()
        return self.ale.getScreen(), float(reward), self.ale.game_over(), truncated, {"lives": 0}

    def get_state(self) -> dict[str, Any]:
        state = self.ale.cloneState()
        return {"ram": state.ram.tolist(), "frame": state.frame, "episode_frame": state.episode_frame, "rng": state.rng}

    def set_state(self, state: dict[str, Any]) -> None:
        self.ale.restoreState(SyntheticState(np.array(state["ram"], np.uint8), int(state["frame"]),
                                             int(state["episode_frame"]), state["rng"]))
