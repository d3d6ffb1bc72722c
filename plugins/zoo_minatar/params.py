"""The ``minatar`` env's spec block: which game, and MinAtar's own options."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from zoo import Params

Game = Literal["asterix", "breakout", "freeway", "seaquest", "space_invaders"]


class MinAtarParams(Params):
    """One MinAtar game; the defaults are MinAtar's own (sticky actions 0.1, difficulty ramping on)."""

    game: Game = Field(description="the MinAtar game")
    sticky_action_prob: float = Field(default=0.1, ge=0, le=1, description="probability of repeating the previous action")
    difficulty_ramping: bool = Field(default=True, description="the game speeds up as the player progresses")
    minimal_actions: bool = Field(default=True, description="only the game's meaningful actions (else all 6)")
    max_episode_steps: int | None = Field(default=10_000, gt=0,
                                          description="truncate longer episodes (a player who never loses never ends)")
