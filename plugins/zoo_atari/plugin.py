"""The zoo plugin of Atari: the ``atari`` env, the ALE paper's baseline and planning agents and the Atari report.

The report builds on the ``report`` plugin (``zoo_report.report``, ``zoo_report.stats``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator
from zoo_report.reporters import ReporterEntry

from zoo import AgentEntry, EnvEntry, Params, hookimpl, seeded_env

from .protocols import Protocol


class AtariEnvParams(Params):
    """An Atari game under a named protocol."""

    game: str = Field(description="a game name (Breakout, MontezumaRevenge) or ale-py ROM id (montezuma_revenge)")
    protocol: Protocol = Field(description="{name: ale2013|dqn2015|machado2018|agent57, ...overrides}")

    @field_validator("game")
    @classmethod
    def _known_game(cls, value: str) -> str:
        from .games import resolve_game

        return resolve_game(value)


class SyntheticAtariParams(Params):
    """A SyntheticAtari game (docs/atari.md): ALE-like screens and RAM without ale-py."""

    game: Literal["catch", "corridor-with-trap"] = Field(description="catch: a paddle catches a falling ball (+1/-1); "
                                                         "corridor-with-trap: +1 now and -10 later, or +5 later")
    frame_skip: int = Field(default=1, ge=1, le=100, description="frames per decision (rewards summed)")
    max_episode_frames: int = Field(default=18_000, ge=1, le=10**7, description="episode cap in frames (truncation)")
    full_action_space: bool = Field(default=True, description="ALE's 18 actions instead of NOOP, RIGHT, LEFT")


def make_env(params: AtariEnvParams, seed: int | None):
    from .env import make_atari_env

    return make_atari_env(params.game, params.protocol, seed)


def make_vector_env(params: AtariEnvParams, num_envs: int, seed: int | None):
    from .env import make_atari_vector_env

    return make_atari_vector_env(params.game, params.protocol, num_envs, seed)


def make_baseline(params, context):
    from .baselines import BaselineAgent

    return BaselineAgent(params, context)


def make_bfs(params, context):
    from .planners.agent import BFSAgent

    return BFSAgent(params, context)


def make_uct(params, context):
    from .planners.agent import UCTAgent

    return UCTAgent(params, context)


def make_synthetic_env(params: SyntheticAtariParams, seed: int | None):
    from .synthetic_env import SyntheticAtariEnv

    env = SyntheticAtariEnv(params.game, frame_skip=params.frame_skip, max_episode_frames=params.max_episode_frames,
                            full_action_space=params.full_action_space)
    return seeded_env(env, seed)


#: SyntheticAtari Catch: the env of the agents' examples (``zoo check`` trains them there, without ale-py)
CATCH = {"game": "catch"}


@hookimpl
def register_envs(register):
    register(EnvEntry(name="atari", params=AtariEnvParams, factory=make_env, vector_factory=make_vector_env,
                      example={"game": "Pong", "protocol": {"name": "dqn2015"}},
                      description="an Atari 2600 game (ale-py) under a named protocol"))
    register(EnvEntry(name="synthetic-atari", params=SyntheticAtariParams, factory=make_synthetic_env, example=CATCH,
                      description="SyntheticAtari Catch or Corridor-with-trap: ALE-like screens and RAM, no ale-py"))


@hookimpl
def register_agents(register):
    from .baselines import BaselineParams
    from .planners.params import BFSParams, UCTParams

    register(AgentEntry(name="ale-baseline", params=BaselineParams, factory=make_baseline,
                        example_env={"type": "synthetic-atari", **CATCH},
                        description="the ALE paper's reference policies random, const, perturb (three agents in the report)"))
    register(AgentEntry(name="bfs", params=BFSParams, factory=make_bfs, example={"max_frames": 40},
                        example_env={"type": "synthetic-atari", **CATCH},
                        description="the ALE paper's breadth-first search planner on the emulator's clone/restore"))
    register(AgentEntry(name="uct", params=UCTParams, factory=make_uct, example={"simulations": 6, "horizon_frames": 6},
                        example_env={"type": "synthetic-atari", **CATCH},
                        description="the ALE paper's UCT planner (UCB1, random rollouts) on the emulator's clone/restore"))


def _report(runs, out):
    from .report import report_atari  # scipy and matplotlib load only when a report is written

    return report_atari(runs, out)


def _compare(a, b):
    from .report import compare_atari

    return compare_atari(a, b)


@hookimpl
def register_reporters(register):
    register(ReporterEntry(name="atari", envs=("atari",), report=_report, compare=_compare,
                           description="raw scores, HNS, HWRNS/SABER, HWRB and the ALE paper's normalisations"))


def _reference_scores(env: dict) -> dict[str, float] | None:
    """The Atari-57 random, human and human-world-record scores of an env block's game (None: not an Atari-57 game)."""
    from .games import resolve_game
    from .scores import references

    if env.get("type") != "atari" or not isinstance(env.get("game"), str):
        return None
    try:
        reference = references().get(resolve_game(env["game"]))
    except ValueError:
        return None
    return None if reference is None else {"random": reference.random, "human": reference.human,
                                            "record": reference.record}


@hookimpl
def register_score_tables(register):
    from zoo_board.score_tables import ScoreTableEntry

    register(ScoreTableEntry(name="atari", columns=("random", "human", "record"), scores=_reference_scores,
                             description="Atari-57's random, human and human world-record scores (the GDI paper's "
                                         "table), by game: human-normalized boards"))


@hookimpl
def register_commands(cli):
    from .cli import atari_app

    cli.add_typer(atari_app, name="atari", help="Atari tools: games and splits, protocols, the ALE methodology's specs.")
