"""The spec block of the GOHR env: a rule on a stream of boards, checked as the spec is read."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import Field, field_validator, model_validator

from zoo import Params

from .engine.constants import CELLS, LEGACY_COLORS, LEGACY_SHAPES
from .engine.errors import RuleSyntaxError

log = logging.getLogger("zoo")


class BoardParams(Params):
    """Random boards from the server's generator (the six range parameters), or predefined boards."""

    min_objects: int = Field(default=9, ge=1, le=CELLS, description="pieces per board (1 to 36 cells); with "
                             "max_objects the least, each board drawing its count uniformly in the range")
    max_objects: int | None = Field(default=None, ge=1, le=CELLS, description="most pieces per board (default: min_objects)")
    min_shapes: int = Field(default=4, ge=0, description="distinct shapes per board (at most the pieces and the "
                            "shapes listed); with max_shapes the least; 0: each piece draws its shape independently")
    max_shapes: int | None = Field(default=None, ge=0, description="most distinct shapes per board (default: min_shapes)")
    min_colors: int = Field(default=4, ge=0, description="distinct colors per board, as min_shapes for shapes; "
                            "0: each piece draws its color independently")
    max_colors: int | None = Field(default=None, ge=0, description="most distinct colors per board (default: min_colors)")
    shapes: list[str] = Field(default_factory=lambda: list(LEGACY_SHAPES), min_length=1,
                              description="the shape names pieces are drawn from (any case; the observation has one slot per shape)")
    colors: list[str] = Field(default_factory=lambda: list(LEGACY_COLORS), min_length=1,
                              description="the color names pieces are drawn from (any case; the observation has one slot per color)")
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
