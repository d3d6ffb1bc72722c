"""The hook implementations the zoo loads through the ``zoo`` entry point ``example``."""

from __future__ import annotations

import typer

from zoo import AgentEntry, EnvEntry, hookimpl

from .corridor import CorridorEnv, CorridorParams, make_corridor
from .qlearning import QLearningAgent, QLearningParams


@hookimpl
def register_envs(register):
    register(EnvEntry(name="corridor", params=CorridorParams, factory=make_corridor,
                      description="walk a slippery corridor to its goal"))


@hookimpl
def register_agents(register):
    register(AgentEntry(name="tabular-q", params=QLearningParams, factory=QLearningAgent,
                        description="tabular Q-learning, epsilon-greedy"))


def corridor(length: int = typer.Option(8, help="Cells of the corridor.")) -> None:
    """Draw a corridor as the agent sees it at the start of an episode."""
    typer.echo(CorridorEnv(CorridorParams(length=length, max_steps=max(100, length))).render())


@hookimpl
def register_commands(cli):
    cli.command("corridor")(corridor)
