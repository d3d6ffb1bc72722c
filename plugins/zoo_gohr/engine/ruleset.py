"""The parsed rule set and its static checks."""
from __future__ import annotations

from dataclasses import dataclass, field

from .compiler import CompiledRules
from .constants import CELLS, LEGACY_COLORS, LEGACY_SHAPES
from .errors import RuleSyntaxError
from .expressions import bucket_mask, compile_expr
from .syntax import Atom, BinOp, Cmp, Const, Expr, ExprValue, ListE, Not, RuleLine, Var


@dataclass(eq=False)
class RuleSet:
    """A parsed rule file: rule lines, custom orders and the top comment."""
    lines: tuple[RuleLine, ...]
    orders: dict[str, tuple[tuple[int, ...], ...]]
    description: str = ""
    display: str | None = None
    source: str = "<string>"
    compiled: object = field(init=False, repr=False)

    def __post_init__(self):
        self.compiled = CompiledRules(self)

    @property
    def atoms(self) -> list[Atom]:
        return [a for line in self.lines for a in line.atoms]

    def validate_against(self, shapes=None, colors=None, strict: bool = False) -> list[str]:
        """Warnings (``file:line:col: message``) for names outside the given shape/color sets,
        cells outside 1..36, bucket fields that can never yield a bucket and arithmetic on shape or
        color names, which stops the reference server when it is evaluated.
        With ``strict=True`` the first one is raised as :class:`RuleSyntaxError`."""
        known = {"shape": {s.upper() for s in (shapes or LEGACY_SHAPES)},
                 "color": {c.upper() for c in (colors or LEGACY_COLORS)}}
        out: list[tuple[int, int, str]] = []
        for a in self.atoms:
            line, col = a.loc
            for key in ("shape", "color"):
                v = getattr(a, key)
                if isinstance(v, Const):
                    out += [(line, col, f"unknown {key} {n!r} (known: {', '.join(sorted(known[key]))})")
                            for n in v.values if n.upper() not in known[key]]
                elif isinstance(v, ExprValue):
                    out += [(line, col, f"{key} expression uses the unquoted name {n!r}: inside an "
                             f"expression it is an unbound variable (write \"{n.upper()}\")")
                            for n in _bare_names(v.expr) if n.upper() in known[key]]
            for pl in a.pos + ((a.postpos,) if a.postpos else ()):
                out += [(line, col, f"cell {c} is outside 1..{CELLS} and never matches")
                        for c in pl.cells if not 1 <= c <= CELLS]
            if a.bucket is not None and _never_bucket(a.bucket):
                out.append((*a.bucket.loc, "this bucket expression can never yield a bucket 0..3"))
            if a.count == 0:
                out.append((line, col, "an atom with count 0 never accepts a move"))
            out += [(*op.loc, f"arithmetic on {name}, a {name.rsplit('.', 1)[1]} name (a string): the reference "
                     "server stops when it evaluates this")
                    for e in _expressions(a) for op, name in _string_arithmetic(e)]
        for rl in self.lines:
            if rl.count == 0:
                out.append((rl.line, 1, "a rule line with count 0 is exhausted at once"))
        msgs = [f"{self.source}:{ln}:{c}: {m}" for ln, c, m in out]
        if strict and out:
            ln, c, m = out[0]
            raise RuleSyntaxError(self.source, ln, c, m)
        return msgs


def _bare_names(e: Expr):
    if isinstance(e, Var):
        if len(e.parts) == 1:
            yield e.name
    elif isinstance(e, ListE):
        for x in e.items:
            yield from _bare_names(x)
    elif isinstance(e, (BinOp, Cmp)):
        yield from _bare_names(e.left)
        yield from _bare_names(e.right)
    elif isinstance(e, Not):
        yield from _bare_names(e.operand)


def _expressions(a: Atom):
    """The expressions of an atom's fields."""
    values = [a.shape, a.color, *(v for _, v in a.props)]
    yield from (v.expr for v in values if isinstance(v, ExprValue))
    yield from (e for e in (a.bucket, a.code) if e is not None)


def _string_arithmetic(e: Expr):
    """(operator, operand name) for each ``+ - * / %`` with a shape or color name as an operand, such as
    ``last.color + 1`` (``p.color`` is a bucket, a number)."""
    if isinstance(e, BinOp):
        for side in (e.left, e.right):
            if isinstance(side, Var) and len(side.parts) >= 2 and side.parts[-1] in ("shape", "color") \
                    and side.parts[:-1] != ("p",):
                yield e, ".".join(side.parts)
    if isinstance(e, (BinOp, Cmp)):
        yield from _string_arithmetic(e.left)
        yield from _string_arithmetic(e.right)
    elif isinstance(e, ListE):
        for x in e.items:
            yield from _string_arithmetic(x)
    elif isinstance(e, Not):
        yield from _string_arithmetic(e.operand)


def _never_bucket(e: Expr) -> bool:
    """True if the expression is constant and yields no integer (so the atom never accepts)."""
    ce = compile_expr(e)
    return ce.const is not None and bucket_mask(ce.const) == 0
