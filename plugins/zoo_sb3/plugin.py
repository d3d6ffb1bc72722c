"""Registers PPO, A2C and DQN from stable-baselines3 as agents."""

from __future__ import annotations

from zoo import AgentEntry, hookimpl

from .params import A2CParams, DQNParams, PPOParams


def _factory(algorithm_name: str):
    def make(params, context):
        import stable_baselines3

        from .agent import SB3Agent

        return SB3Agent(getattr(stable_baselines3, algorithm_name), params, context)

    return make


@hookimpl
def register_agents(register):
    register(AgentEntry(name="ppo", params=PPOParams, factory=_factory("PPO"), description="stable-baselines3 PPO"))
    register(AgentEntry(name="a2c", params=A2CParams, factory=_factory("A2C"), description="stable-baselines3 A2C"))
    register(AgentEntry(name="dqn", params=DQNParams, factory=_factory("DQN"), description="stable-baselines3 DQN"))
