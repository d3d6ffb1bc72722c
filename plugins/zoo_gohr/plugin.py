"""The zoo plugin of GOHR: the env, the shipped rule sets and the ``zoo gohr`` commands."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, field_validator, model_validator

from zoo import EnvEntry, Params, RuleSetEntry, hookimpl, seeded_env

from .board_sources import board_source
from .engine.constants import ACTIONS, CELLS, LEGACY_COLORS, LEGACY_SHAPES
from .engine.errors import RuleSyntaxError

if TYPE_CHECKING:
    from .vector.vector_env import GohrVectorEnv

log = logging.getLogger("zoo")


class BoardParams(Params):
    """Random boards from the server's generator (the six range parameters), or predefined boards."""

    min_objects: int = Field(default=9, ge=1, le=CELLS)
    max_objects: int | None = Field(default=None, ge=1, le=CELLS, description="default: min_objects")
    min_shapes: int = Field(default=4, ge=0, description="distinct shapes per board; 0: each piece draws freely")
    max_shapes: int | None = Field(default=None, ge=0)
    min_colors: int = Field(default=4, ge=0)
    max_colors: int | None = Field(default=None, ge=0)
    shapes: list[str] = Field(default_factory=lambda: list(LEGACY_SHAPES), min_length=1)
    colors: list[str] = Field(default_factory=lambda: list(LEGACY_COLORS), min_length=1)
    predefined: str | None = Field(default=None, description="a CGS JSON board file or a folder of them")

    @model_validator(mode="after")
    def _ranges(self):
        for name, limit in (("objects", CELLS), ("shapes", len(self.shapes)), ("colors", len(self.colors))):
            low, high = getattr(self, f"min_{name}"), getattr(self, f"max_{name}")
            if high is not None and high < low:
                raise ValueError(f"max_{name} ({high}) is below min_{name} ({low})")
            if (high if high is not None else low) > limit:
                raise ValueError(f"asks for up to {high or low} distinct {name} but the set has {limit}")
        if self.predefined is not None and not Path(self.predefined).exists():
            raise ValueError(f"predefined boards: no such file or folder {self.predefined}")
        return self


class GohrEnvParams(Params):
    """A GOHR rule on a stream of boards."""

    rule: str = Field(description="'<rule set>/<name>' (e.g. paper/clockwise) or the path of a rule file")
    board: BoardParams = Field(default_factory=BoardParams)
    horizon: int = Field(default=100, ge=1, le=1_000_000, description="moves per episode (H)")

    @field_validator("rule")
    @classmethod
    def _rule_parses(cls, value: str) -> str:
        from .named_rules import load_named_rules

        try:
            load_named_rules(value)
        except RuleSyntaxError as exc:
            raise ValueError(f"rule file error: {exc}") from None
        except OSError as exc:
            raise ValueError(f"cannot read rule file: {exc}") from None
        return value

    @model_validator(mode="after")
    def _rule_fits_board(self):
        from .named_rules import load_named_rules

        for warning in load_named_rules(self.rule).validate_against(self.board.shapes, self.board.colors):
            log.warning("%s", warning)
        return self


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


@hookimpl
def register_envs(register):
    register(EnvEntry(name="gohr", params=GohrEnvParams, factory=make_env, vector_factory=make_vector_env,
                      description=f"the Game of Hidden Rules ({ACTIONS} actions: cell x bucket)"))


@hookimpl
def register_features(register):
    from .vector.features import FEATURE_ENTRY

    register(FEATURE_ENTRY)


@hookimpl
def register_rule_sets(register):
    from .named_rules import shipped_rule_sets

    descriptions = {"paper": "the GOHR paper's four sample rules (section 5.1)",
                    "gohr": "the authors' rule files (RuleGame game data and server samples)"}
    for name, path in shipped_rule_sets().items():
        register(RuleSetEntry(name=name, path=path, description=descriptions[name]))


@hookimpl
def register_commands(cli):
    from .cli import gohr_app

    cli.add_typer(gohr_app, name="gohr", help="GOHR tools: conformance against the real server, play, rules.")
