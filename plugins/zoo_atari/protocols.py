"""Named Atari evaluation protocols: every setting that makes two Atari numbers comparable.

A spec names a protocol and may override any of its settings::

    env: {type: atari, game: Breakout, protocol: {name: dqn2015, noop_max: 10}}

Validation fills in every setting from the named preset, so the resolved spec written to the
run folder carries all of them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from zoo import Params, did_you_mean

#: Each preset and where its values come from (see the module docs of each key below).
PRESETS: dict[str, dict[str, Any]] = {
    # Bellemare et al. 2013 (Section 3.1.2): a decision every 5 frames with the rewards summed,
    # episodes cut at 18,000 frames, deterministic emulator. The paper states its results never use the
    # minimal action set, so the full 18 actions.
    "ale2013": dict(frame_skip=5, max_pool=False, sticky_actions=0.0, noop_max=0, life_loss_terminal=False,
                    reward_clip=False, max_episode_frames=18_000, full_action_space=True,
                    observation="grayscale", screen_size=None, frame_stack=1),
    # Mnih et al. 2015: up to 30 no-op starts, 4 frames per action with max over the last two, life loss
    # ends a training episode, rewards clipped to [-1, 1], 84x84 gray, 4 stacked frames, minimal actions;
    # episodes capped at the paper's 5 minutes (18,000 frames).
    "dqn2015": dict(frame_skip=4, max_pool=True, sticky_actions=0.0, noop_max=30, life_loss_terminal=True,
                    reward_clip=True, max_episode_frames=18_000, full_action_space=False,
                    observation="grayscale", screen_size=84, frame_stack=4),
    # Machado et al. 2018: sticky actions 0.25, full action set, game over ends the episode (no life
    # loss), no no-op starts; frame skip 5 and the 18,000-frame cap as in their baselines.
    "machado2018": dict(frame_skip=5, max_pool=True, sticky_actions=0.25, noop_max=0, life_loss_terminal=False,
                        reward_clip=True, max_episode_frames=18_000, full_action_space=True,
                        observation="grayscale", screen_size=84, frame_stack=4),
    # Agent57 / GDI / LBC (GDI Appendix I.1 Table 5, LBC Table 3): no sticky actions, up to 30
    # no-ops, full actions, no life information, no clipping, 30 minutes = 108,000 frames.
    "agent57": dict(frame_skip=4, max_pool=True, sticky_actions=0.0, noop_max=30, life_loss_terminal=False,
                    reward_clip=False, max_episode_frames=108_000, full_action_space=True,
                    observation="grayscale", screen_size=84, frame_stack=4),
}


class Protocol(Params):
    """An Atari protocol: a named preset with optional overrides of its settings."""

    name: Literal["ale2013", "dqn2015", "machado2018", "agent57"] = Field(description="the preset")
    frame_skip: int = Field(ge=1, le=100, description="emulator frames per agent decision (rewards summed)")
    max_pool: bool = Field(description="observation = pixel-wise max of the last two frames of a decision")
    sticky_actions: float = Field(ge=0.0, lt=1.0, description="chance that a frame repeats the previous action")
    noop_max: int = Field(ge=0, le=1000, description="a uniform 1..noop_max no-op frames at reset (0: none), as gymnasium and ale-py do")
    life_loss_terminal: bool = Field(description="a lost life ends the training episode (the game goes on)")
    reward_clip: bool = Field(description="rewards clipped to [-1, 1]")
    max_episode_frames: int = Field(ge=1, le=10**7, description="episode cap in emulator frames (truncation)")
    full_action_space: bool = Field(description="all 18 actions instead of the game's minimal set")
    observation: Literal["grayscale", "rgb"] = Field(description="screen colours")
    screen_size: int | None = Field(ge=8, le=210, description="square resize (INTER_AREA); null keeps 210x160")
    frame_stack: int = Field(ge=1, le=32, description="most recent observations stacked (zeros before the first)")

    @model_validator(mode="before")
    @classmethod
    def _fill_from_preset(cls, data: Any) -> Any:
        if isinstance(data, str):
            data = {"name": data}
        if not isinstance(data, dict):
            return data
        name = data.get("name")
        if name is None:
            raise ValueError(f"a protocol needs a 'name': one of {', '.join(PRESETS)}")
        if name not in PRESETS:
            raise ValueError(f"unknown protocol '{name}'{did_you_mean(str(name), list(PRESETS))}; "
                             f"known: {', '.join(PRESETS)}")
        return {**PRESETS[name], **data}

    def overrides(self) -> dict[str, Any]:
        """The settings that differ from the named preset."""
        preset = PRESETS[self.name]
        return {key: value for key, value in self.model_dump(exclude={"name"}).items() if preset[key] != value}
