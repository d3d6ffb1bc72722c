"""The ``gym`` env (any environment id in gymnasium's registry, with its keyword arguments) and the ``random``
agent (uniform actions over any gymnasium action space)."""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import Field, field_validator

from zoo import AgentEntry, EnvEntry, Params, did_you_mean, hookimpl, seeded_env


class GymEnvParams(Params):
    """A gymnasium environment by registered id."""

    id: str = Field(description="a gymnasium environment id, e.g. CartPole-v1, or MODULE:ID for an id that "
                                "importing MODULE registers (mypkg.envs:Walk-v0), as gymnasium.make reads it")
    kwargs: dict[str, Any] = Field(default_factory=dict, description="keyword arguments for gymnasium.make")
    max_episode_steps: int | None = Field(default=None, gt=0, description="override the id's time limit")

    @field_validator("id")
    @classmethod
    def _registered(cls, value: str) -> str:
        import gymnasium

        module, _, env_id = value.rpartition(":")
        if module:  # gymnasium.make imports it before it looks the id up; so does the check
            try:
                importlib.import_module(module)
            except Exception as exc:  # the module's own import error is the message
                raise ValueError(f"'{value}': cannot import the module '{module}' ({type(exc).__name__}: {exc})") from None
        if env_id not in gymnasium.registry:
            known = list(gymnasium.registry)
            after = f" after importing '{module}'" if module else ""
            raise ValueError(f"'{env_id}' is not a registered gymnasium id{after}{did_you_mean(env_id, known)}")
        return value


def make_gym_env(params: GymEnvParams, seed: int | None):
    """Build the env and seed its first reset and its action space."""
    import gymnasium

    env = gymnasium.make(params.id, max_episode_steps=params.max_episode_steps, **params.kwargs)
    return seeded_env(env, seed)


@hookimpl
def register_envs(register):
    register(EnvEntry(name="gym", params=GymEnvParams, factory=make_gym_env, example={"id": "CartPole-v1"},
                      description="any gymnasium environment by id"))


def _random_agent(params, context):
    from .random_agent import RandomAgent

    return RandomAgent(params, context)


@hookimpl
def register_agents(register):
    register(AgentEntry(name="random", factory=_random_agent,
                        description="uniform actions over any gymnasium action space (legal ones where the env masks); "
                                    "never learns"))
