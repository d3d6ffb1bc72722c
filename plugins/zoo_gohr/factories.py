"""The GOHR env and its numpy vector form, built from a spec block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zoo import seeded_env

from .board_sources import board_source
from .params import GohrEnvParams

if TYPE_CHECKING:
    from .vector.vector_env import GohrVectorEnv


def make_env(params: GohrEnvParams, seed: int | None):
    """Build the GOHR gymnasium env of a spec block."""
    from .env import GohrEnv
    from .named_rules import load_named_rules

    env = GohrEnv(load_named_rules(params.rule), board_source(params.board), horizon=params.horizon,
                  shapes=tuple(params.board.shapes), colors=tuple(params.board.colors))
    return seeded_env(env, seed)


def make_vector_env(params: GohrEnvParams, num_envs: int, seed: int | None) -> GohrVectorEnv:
    """The vector form of :func:`make_env`: ``num_envs`` boards of a GOHR spec block."""
    from .named_rules import load_named_rules
    from .vector.vector_env import GohrVectorEnv

    envs = GohrVectorEnv(load_named_rules(params.rule), board_source(params.board), num_envs, horizon=params.horizon,
                         shapes=tuple(params.board.shapes), colors=tuple(params.board.colors))
    if seed is not None:
        envs.reset(seed=seed)
        envs.action_space.seed(seed)
    return envs
