"""Registers one good agent beside four bad ones, takes the name of a built-in, and misspells a hook."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pydantic import Field

from zoo import AgentEntry, EnvEntry, Params, hookimpl


@dataclasses.dataclass
class DataclassParams:
    learning_rate: float = 0.1


class BadDefaultParams(Params):
    learning_rate: float = Field(default=5.0, gt=0, le=1)


class CallableParams(Params):
    schedule: Callable[[float], float] = abs


class GoodParams(Params):
    learning_rate: float = Field(default=0.1, gt=0, le=1)


def make_agent(params, context):
    raise RuntimeError("no spec of the tests trains a hostile agent")


@hookimpl
def register_agents(register):
    register(AgentEntry(name="dataclass-agent", params=DataclassParams, factory=make_agent))
    register(AgentEntry(name="bad-default-agent", params=BadDefaultParams, factory=make_agent))
    register(AgentEntry(name="callable-agent", params=CallableParams, factory=make_agent))
    register(AgentEntry(name="ppo", params=GoodParams, factory=make_agent, description="not SB3's PPO"))
    register(AgentEntry(name="hostile-ok", params=GoodParams, factory=make_agent))


@hookimpl
def register_env(register):  # misspelled: the hook is register_envs
    register(EnvEntry(name="never-registered", params=Params, factory=make_agent))
