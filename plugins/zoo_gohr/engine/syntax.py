"""AST node types for rule files and expressions.

Expression nodes carry a ``loc`` (line, col) that does not take part in equality,
so tests can compare trees built by hand.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Loc = tuple[int, int]
_NOLOC: Loc = (0, 0)


def _loc():
    return field(default=_NOLOC, compare=False, repr=False)


# ---------------------------------------------------------------- expressions
@dataclass(frozen=True)
class Num:
    value: int
    loc: Loc = _loc()


@dataclass(frozen=True)
class Str:
    value: str
    loc: Loc = _loc()


@dataclass(frozen=True)
class Var:
    """A (possibly dotted) name such as ``p``, ``last.color`` or ``q.bucket.color``."""
    parts: tuple[str, ...]
    loc: Loc = _loc()

    @property
    def name(self) -> str:
        return ".".join(self.parts)


@dataclass(frozen=True)
class ListE:
    """``[e1, e2, ...]``: the union of the element sets."""
    items: tuple[Expr, ...]
    loc: Loc = _loc()


@dataclass(frozen=True)
class BinOp:
    """Arithmetic ``+ - * / %`` over the cross product of two sets."""
    op: str
    left: Expr
    right: Expr
    loc: Loc = _loc()


@dataclass(frozen=True)
class Cmp:
    """A comparison ``== != < <= > >=``; ``{1}`` if some pair satisfies it."""
    op: str
    left: Expr
    right: Expr
    loc: Loc = _loc()


@dataclass(frozen=True)
class Not:
    operand: Expr
    loc: Loc = _loc()


Expr = Num | Str | Var | ListE | BinOp | Cmp | Not


# ---------------------------------------------------------------- atom fields
@dataclass(frozen=True)
class Const:
    """A constant shape/color/property value set (names as written)."""
    values: tuple[str, ...]


@dataclass(frozen=True)
class Range:
    """An integer range ``[lo..hi]`` (property fields only)."""
    lo: int
    hi: int


@dataclass(frozen=True)
class ExprValue:
    """A GS5 expression evaluated per candidate move."""
    expr: Expr


Value = Const | Range | ExprValue


@dataclass(frozen=True)
class PosList:
    """An OR of cell numbers and order names (``*`` is represented by leaving the list out)."""
    cells: tuple[int, ...] = ()
    orders: tuple[str, ...] = ()


@dataclass(frozen=True)
class Atom:
    count: int | None = None                       # None: unmetered
    shape: Value | None = None
    color: Value | None = None
    props: tuple[tuple[str, Value], ...] = ()      # IPB property conditions
    pos: tuple[PosList, ...] = ()                  # ANDed
    postpos: PosList | None = None
    bucket: Expr | None = None                     # None: any bucket
    code: Expr | None = None
    loc: Loc = _loc()


@dataclass(frozen=True)
class RuleLine:
    count: int | None
    atoms: tuple[Atom, ...]
    line: int = field(default=0, compare=False)
