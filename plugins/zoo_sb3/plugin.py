"""Registers the stable-baselines3 and sb3-contrib algorithms as agents, and the ``zoo export`` command."""

from __future__ import annotations

import importlib
from pathlib import Path

from zoo import AgentEntry, hookimpl, require_extra

from . import params as P

#: agent name -> (module, class, params, description)
ALGORITHMS = {
    "ppo": ("stable_baselines3", "PPO", P.PPOParams, "stable-baselines3 PPO"),
    "a2c": ("stable_baselines3", "A2C", P.A2CParams, "stable-baselines3 A2C"),
    "dqn": ("stable_baselines3", "DQN", P.DQNParams, "stable-baselines3 DQN"),
    "sac": ("stable_baselines3", "SAC", P.SACParams, "stable-baselines3 SAC (continuous actions)"),
    "td3": ("stable_baselines3", "TD3", P.TD3Params, "stable-baselines3 TD3 (continuous actions)"),
    "maskable-ppo": ("sb3_contrib", "MaskablePPO", P.MaskablePPOParams,
                     "sb3-contrib MaskablePPO (samples only the actions the env's action_masks() allows)"),
    "recurrent-ppo": ("sb3_contrib", "RecurrentPPO", P.RecurrentPPOParams, "sb3-contrib RecurrentPPO (LSTM policy)"),
    "qrdqn": ("sb3_contrib", "QRDQN", P.QRDQNParams, "sb3-contrib QR-DQN (quantile regression DQN)"),
}

#: env blocks of the examples (``zoo check`` trains each agent's example there)
CARTPOLE, PENDULUM = {"type": "gym", "id": "CartPole-v1"}, {"type": "gym", "id": "Pendulum-v1"}
GOHR = {"type": "gohr", "rule": "paper/color_match", "horizon": 30}  # action masks, as maskable-ppo needs
#: agent name -> (the params of a small, quick example, the env block it trains on)
EXAMPLES = {
    "ppo": ({"n_steps": 64, "batch_size": 32, "n_epochs": 2}, CARTPOLE),
    "a2c": ({"n_steps": 8}, CARTPOLE),
    "dqn": ({"learning_starts": 50, "buffer_size": 500}, CARTPOLE),
    "sac": ({"learning_starts": 50, "buffer_size": 500, "batch_size": 16}, PENDULUM),
    "td3": ({"learning_starts": 50, "buffer_size": 500, "batch_size": 16}, PENDULUM),
    "maskable-ppo": ({"n_steps": 32, "batch_size": 16, "n_epochs": 2}, GOHR),
    "recurrent-ppo": ({"n_steps": 32, "batch_size": 16, "n_epochs": 2}, CARTPOLE),
    "qrdqn": ({"learning_starts": 50, "buffer_size": 500}, CARTPOLE),
}

#: rl-baselines3-zoo's search spaces, one file per agent that has one
SEARCH_SPACES = Path(__file__).parent / "search_spaces"


def _factory(module: str, class_name: str):
    def make(params, context):
        from .agent import SB3Agent

        library = (require_extra(module, "contrib", f"sb3-contrib's {class_name}") if module == "sb3_contrib"
                   else importlib.import_module(module))
        return SB3Agent(getattr(library, class_name), params, context)

    return make


@hookimpl
def register_agents(register):
    for name, (module, class_name, params, description) in ALGORITHMS.items():
        example, env = EXAMPLES[name]
        register(AgentEntry(name=name, params=params, factory=_factory(module, class_name), description=description,
                            example=example, example_env=env))


@hookimpl
def register_search_spaces(register):
    from zoo_tune.search_spaces import SearchSpaceEntry

    for path in sorted(SEARCH_SPACES.glob("*.yaml")):
        register(SearchSpaceEntry(name=path.stem, path=path,
                                  description=f"rl-baselines3-zoo's search space for the {path.stem} agent"))


@hookimpl
def register_commands(cli):
    from .cli import import_rlzoo
    from .commands import export

    cli.command("export")(export)
    cli.command("import-rlzoo")(import_rlzoo)
