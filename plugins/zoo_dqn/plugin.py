"""The zoo plugin of the GOHR paper's linear DQN and the authors' later MLP DQN."""

from __future__ import annotations

from zoo import AgentEntry, hookimpl

from .params import LinearDQNParams, MLPDQNParams

#: the env of the agents' examples (``zoo check`` trains them there): a GOHR rule with episodes of 30 moves
GOHR = {"type": "gohr", "rule": "paper/color_match", "horizon": 30}


def make_linear_dqn(params: LinearDQNParams, contexts):
    from .agent import LinearDQNAgent

    return LinearDQNAgent(params, contexts)


def make_mlp_dqn(params: MLPDQNParams, context):
    from .mlp import MLPDQNAgent

    return MLPDQNAgent(params, context)


@hookimpl
def register_agents(register):
    register(AgentEntry(name="gohr-linear-dqn", params=LinearDQNParams, factory=make_linear_dqn, batched_trials=True,
                        example={"batch_size": 8}, example_env=GOHR,
                        description="the GOHR paper's linear DQN over phi(S, A) (A.1.2), trials batched"))
    register(AgentEntry(name="gohr-mlp-dqn", params=MLPDQNParams, factory=make_mlp_dqn,
                        example={"batch_size": 8, "replay_size": 200}, example_env=GOHR,
                        description="the GOHR authors' later MLP double DQN (IEEE Access 2024), masked, last-n-moves input"))
