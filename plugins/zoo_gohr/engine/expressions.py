"""The set-valued expression language (docs/algorithms/gohr-rules.md, "Expressions"), compiled to closures.

A compiled expression is a function ``fn(ctx) -> set`` where ``ctx`` (an
:class:`~zoo_gohr.engine.compiler.EvalContext`) has ``piece`` (the candidate piece), ``b`` (the
candidate bucket) and ``mem`` (:class:`Memory`). ``deps`` records what the value can depend on so the engine
can evaluate it as rarely as possible; an expression with no deps is folded to
a constant.
"""
from __future__ import annotations

from .errors import RuleRuntimeError, RuleSyntaxError
from .memory import BUCKET_SETS, EMPTY, Obj, piece_obj
from .syntax import BinOp, Cmp, Expr, ListE, Not, Num, Str, Var

MEM, PIECE, BUCKET = 1, 2, 4
ONE: frozenset = frozenset((1,))


class CExpr:
    """A compiled expression: ``fn``, ``deps`` and, when constant, ``const``."""
    __slots__ = ("fn", "deps", "const")

    def __init__(self, fn, deps: int, const: frozenset | None = None):
        self.fn, self.deps, self.const = fn, deps, const


def _i32(v: int) -> int:
    return ((v + 0x80000000) & 0xFFFFFFFF) - 0x80000000


def arith(op: str, a_set, b_set, where: str = "expression"):
    """Cross-product arithmetic with Java int semantics; pairs dividing by zero are dropped."""
    if not a_set or not b_set:
        return EMPTY
    out = set()
    for a in a_set:
        if type(a) is not int:
            raise RuleRuntimeError(f"{where}: attempt to apply operation {op} to a non-number {a!r}")
        for b in b_set:
            if type(b) is not int:
                raise RuleRuntimeError(f"{where}: attempt to apply operation {op} to a non-number {b!r}")
            if op == "+":
                v = a + b
            elif op == "-":
                v = a - b
            elif op == "*":
                v = a * b
            else:
                if b == 0:
                    continue
                q = abs(a) // abs(b)
                if (a < 0) != (b < 0):
                    q = -q
                v = q if op == "/" else a - b * q
            out.add(_i32(v))
    return out


def compare(op: str, a_set, b_set):
    """``{1}`` if some pair satisfies ``op``; if either side is empty, the left set (the server's quirk)."""
    if not a_set or not b_set:
        return a_set
    for a in a_set:
        for b in b_set:
            if op == "==":
                ok = a == b
            elif op == "!=":
                ok = a != b
            elif type(a) is not int or type(b) is not int:
                ok = False
            elif op == "<":
                ok = a < b
            elif op == "<=":
                ok = a <= b
            elif op == ">":
                ok = a > b
            else:
                ok = a >= b
            if ok:
                return ONE
    return EMPTY


def bucket_mask(values) -> int:
    """The mod-4 step of the bucket field, as a 4-bit mask; non-integers are dropped."""
    m = 0
    for v in values:
        if type(v) is int:
            m |= 1 << (v & 3)
    return m


def _fields(objs, name: str):
    out = set()
    for o in objs:
        if type(o) is Obj:
            v = o.fields.get(name)
            if v is not None:
                out.add(v)
    return out


def _value_of(ctx, key: str):
    if key == "bucket":
        return ctx.b
    if key == "pos":
        return ctx.piece.pos
    return ctx.piece.props.get(key)


def _p_prop(key: str):
    """``p.K`` (and ``pc``/``ps``): the bucket of the last removed piece sharing this piece's K."""
    def fn(ctx):
        d = ctx.mem.by.get(key)
        if d is None:
            return EMPTY
        o = d.get(_value_of(ctx, key))
        return EMPTY if o is None else BUCKET_SETS[o.bucket]
    return fn, MEM | (BUCKET if key == "bucket" else PIECE)


def _q_prop(key: str):
    """``q.K``: the last removed piece (object) sharing this piece's K."""
    def fn(ctx):
        d = ctx.mem.by.get(key)
        if d is None:
            return EMPTY
        o = d.get(_value_of(ctx, key))
        return EMPTY if o is None else (o,)
    return fn, MEM | (BUCKET if key == "bucket" else PIECE)


def _this_field(key: str):
    if key == "bucket":
        return (lambda ctx: BUCKET_SETS[ctx.b]), BUCKET
    if key == "pos":
        return (lambda ctx: (ctx.piece.pos,)), PIECE

    def fn(ctx):
        v = ctx.piece.props.get(key)
        return EMPTY if v is None else (v,)
    return fn, PIECE


def _var(parts: tuple[str, ...]):
    name = ".".join(parts)
    if name == "p":
        return (lambda ctx: ctx.mem.p), MEM
    if name == "pc":
        return _p_prop("color")
    if name == "ps":
        return _p_prop("shape")
    if name == "last":
        return (lambda ctx: EMPTY if ctx.mem.last is None else (ctx.mem.last,)), MEM
    if name == "this":
        return (lambda ctx: (piece_obj(ctx.piece, ctx.b),)), PIECE | BUCKET
    if name == "Nearby":
        return (lambda ctx: BUCKET_SETS[ctx.piece.nearby]), PIECE
    if name == "Remotest":
        return (lambda ctx: BUCKET_SETS[ctx.piece.remotest]), PIECE
    if len(parts) == 2 and parts[0] == "p":
        return _p_prop(parts[1])
    if len(parts) == 2 and parts[0] == "q":
        return _q_prop(parts[1])
    if len(parts) == 2 and parts[0] == "this":
        return _this_field(parts[1])
    if len(parts) >= 2:
        base, deps = _var(parts[:-1])
        key = parts[-1]
        return (lambda ctx: _fields(base(ctx), key)), deps
    return (lambda ctx: EMPTY), 0  # unbound name: the empty set


_PIECE_FIELDS = ("shape", "color", "pos")
_LAST_FIELDS = ("shape", "color", "pos", "bucket")


def var_reads(parts: tuple[str, ...]) -> frozenset[str] | None:
    """What a variable (as ``_var`` evaluates it) reads of an S+C game: ``this.<shape|color|pos>``
    of the piece; ``last`` (whether a piece was removed) and ``last.<shape|color|pos|bucket>`` of the
    last removed piece; ``by.<shape|color>``, the bucket of the last removed piece sharing the
    piece's shape or color. None for the variables that read more (``q.K`` and the other ``p.K``)."""
    name = ".".join(parts)
    if name == "p":
        return frozenset(("last", "last.bucket"))
    if name in ("pc", "ps", "p.color", "p.shape"):
        key = "color" if name in ("pc", "p.color") else "shape"
        return frozenset((f"this.{key}", f"by.{key}"))
    if name == "last":
        return frozenset(("last", *(f"last.{f}" for f in _LAST_FIELDS)))
    if name == "this":
        return frozenset(f"this.{f}" for f in _PIECE_FIELDS)
    if name in ("Nearby", "Remotest"):
        return frozenset(("this.pos",))
    if len(parts) == 2 and parts[0] in ("p", "q"):
        return None
    if len(parts) == 2 and parts[0] == "this":
        return frozenset((f"this.{parts[1]}",) if parts[1] in _PIECE_FIELDS else ())
    if len(parts) == 2 and parts[0] == "last":
        return frozenset(("last", f"last.{parts[1]}") if parts[1] in _LAST_FIELDS else ("last",))
    if len(parts) >= 2:
        return var_reads(parts[:-1])
    return frozenset()  # an unbound name


def compile_expr(e: Expr, source: str = "<string>") -> CExpr:
    """Compile an expression AST; constant sub-expressions are folded."""
    where = f"{source}:{e.loc[0]}:{e.loc[1]}"
    if isinstance(e, Num):
        return _const(frozenset((e.value,)))
    if isinstance(e, Str):
        return _const(frozenset((e.value,)))
    if isinstance(e, Var):
        fn, deps = _var(e.parts)
        return _fold(fn, deps, where)
    if isinstance(e, ListE):
        items = [compile_expr(x, source) for x in e.items]
        fns = [c.fn for c in items]
        deps = 0
        for c in items:
            deps |= c.deps

        def union(ctx):
            out = set()
            for f in fns:
                out.update(f(ctx))
            return out
        return _fold(union, deps, where)
    if isinstance(e, Not):
        c = compile_expr(e.operand, source)
        f = c.fn
        return _fold(lambda ctx: EMPTY if f(ctx) else ONE, c.deps, where)
    if isinstance(e, (BinOp, Cmp)):
        lc, rc = compile_expr(e.left, source), compile_expr(e.right, source)
        lf, rf, op = lc.fn, rc.fn, e.op
        if isinstance(e, Cmp):
            fn = lambda ctx: compare(op, lf(ctx), rf(ctx))  # noqa: E731
        else:
            fn = lambda ctx: arith(op, lf(ctx), rf(ctx), where)  # noqa: E731
        return _fold(fn, lc.deps | rc.deps, where)
    raise TypeError(f"not an expression node: {e!r}")


def _const(value: frozenset) -> CExpr:
    return CExpr(lambda ctx: value, 0, value)


def _fold(fn, deps: int, where: str) -> CExpr:
    if deps:
        return CExpr(fn, deps)
    try:
        return _const(frozenset(fn(None)))
    except RuleRuntimeError as err:
        line, col = where.rsplit(":", 2)[1:]
        raise RuleSyntaxError(where.rsplit(":", 2)[0], int(line), int(col),
                              str(err).split(": ", 1)[1]) from None
