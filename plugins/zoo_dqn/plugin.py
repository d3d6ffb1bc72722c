"""The zoo plugin of the GOHR paper's linear DQN."""

from __future__ import annotations

from zoo import AgentEntry, hookimpl

from .params import LinearDQNParams


def make_linear_dqn(params: LinearDQNParams, contexts):
    from .agent import LinearDQNAgent

    return LinearDQNAgent(params, contexts)


@hookimpl
def register_agents(register):
    register(AgentEntry(name="gohr-linear-dqn", params=LinearDQNParams, factory=make_linear_dqn, batched_trials=True,
                        description="the GOHR paper's linear DQN over phi(S, A) (A.1.2), trials batched"))
