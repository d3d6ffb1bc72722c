"""Compile a parsed :class:`RuleSet` into the flat structures the game loop uses.

Every test of an atom is classified by what it depends on (see ``expressions``):
piece-only tests are folded into a per-piece 4-bit *static mask* (cached per
piece key, per game column), memory-only tests are evaluated once per acceptance computation,
and only the rest run per piece or per (piece, bucket).
"""
from __future__ import annotations

from functools import reduce

from .board import Piece, xy
from .constants import CELLS
from .expressions import BUCKET, MEM, PIECE, CExpr, bucket_mask, compile_expr
from .orders import BUILTIN_ORDERS, group_masks
from .syntax import Atom, Const, Range


class EvalContext:
    """What an expression is evaluated against: the piece, the bucket ``b`` and the episode memory."""

    __slots__ = ("piece", "b", "mem")

    def __init__(self, piece=None, b=None, mem=None):
        self.piece, self.b, self.mem = piece, b, mem


def _cell_mask(cells) -> int:
    m = 0
    for c in cells:
        if 1 <= c <= CELLS:
            m |= 1 << c
    return m


def _value_filter(key: str, value, source: str):
    """A (fn(ctx) -> bool, deps) test of one shape/color/property field."""
    sc = key in ("shape", "color")
    if isinstance(value, Const):
        exact = frozenset(value.values)
        upper = frozenset(v.upper() for v in value.values)

        def fn(ctx):
            p = ctx.piece
            if p.image is None:
                return p.props.get(key) in upper if sc else True
            v = p.props.get(key)
            return v is not None and str(v) in exact
        return fn, PIECE
    if isinstance(value, Range):
        lo, hi = value.lo, value.hi

        def fn(ctx):
            p = ctx.piece
            if p.image is None:
                return True
            v = p.props.get(key)
            return type(v) is int and lo <= v <= hi
        return fn, PIECE
    ce: CExpr = compile_expr(value.expr, source)
    ev = ce.fn

    def fn(ctx):
        p = ctx.piece
        if p.image is None:
            return p.props.get(key) in ev(ctx) if sc else True
        v = p.props.get(key)
        return v is not None and str(v) in {str(x) for x in ev(ctx)}
    return fn, ce.deps | PIECE


class CAtom:
    """One atom, compiled. ``uid`` indexes the per-piece static mask tuples; ``col`` is the game
    column of its static masks (None for a line's plain atoms, see :class:`CLine`).

    ``per_piece``: it needs a look at each piece beyond its static mask (orders, postpos, or tests on
    the piece and memory together). ``table_driven``: the static mask and the counter alone decide
    this atom (not per-piece, no memory tests). ``plain``: table-driven and without a counter, so its static mask is all there is to it.
    """
    __slots__ = ("uid", "col", "count", "atom", "static_tests", "static_bucket", "static_bucket_const", "orders",
                 "mem_tests", "mem_bucket", "piece_tests", "piece_bucket", "b_tests", "b_bucket", "postpos",
                 "dynamic", "per_bucket", "per_piece", "table_driven", "plain")

    def __init__(self, uid: int, atom: Atom, source: str):
        self.uid, self.atom, self.col = uid, atom, None
        self.count = -1 if atom.count is None else atom.count
        tests = []
        for key, val in (("shape", atom.shape), ("color", atom.color), *atom.props):
            if val is not None:
                tests.append(_value_filter(key, val, source))
        if atom.code is not None:
            ce = compile_expr(atom.code, source)
            tests.append(((lambda f: lambda ctx: bool(f(ctx)))(ce.fn), ce.deps))
        self.static_tests, self.mem_tests, self.piece_tests, self.b_tests = [], [], [], []
        for fn, deps in tests:
            self._level(deps, self.static_tests, self.mem_tests, self.piece_tests, self.b_tests).append(fn)
        self.orders = []
        for pl in atom.pos:
            if pl.orders:
                self.orders.append((_cell_mask(pl.cells), pl.orders))
            else:
                m = _cell_mask(pl.cells)
                self.static_tests.append((lambda m: lambda ctx: (m >> ctx.piece.pos) & 1)(m))
        self.orders = tuple(self.orders)
        self.static_bucket = self.mem_bucket = self.piece_bucket = self.b_bucket = None
        self.static_bucket_const = 15
        if atom.bucket is not None:
            ce = compile_expr(atom.bucket, source)
            if ce.const is not None:
                self.static_bucket_const = bucket_mask(ce.const)
            elif ce.deps & BUCKET:
                self.b_bucket = ce.fn
            elif ce.deps & MEM:
                if ce.deps & PIECE:
                    self.piece_bucket = ce.fn
                else:
                    self.mem_bucket = ce.fn
            else:
                self.static_bucket = ce.fn
        pp = atom.postpos
        self.postpos = None if pp is None else (_cell_mask(pp.cells), pp.orders)
        self.per_bucket = bool(self.b_tests or self.b_bucket)
        self.dynamic = bool(self.piece_tests or self.piece_bucket or self.per_bucket)
        self.per_piece = bool(self.orders or self.postpos or self.dynamic)
        self.table_driven = not (self.per_piece or self.mem_tests or self.mem_bucket is not None)
        self.plain = self.count < 0 and self.table_driven

    @staticmethod
    def _level(deps, static, mem, piece, per_bucket):
        if deps & BUCKET:
            return per_bucket
        if deps & MEM:
            return piece if deps & PIECE else mem
        return static

    def static_mask(self, ctx) -> int:
        for t in self.static_tests:
            if not t(ctx):
                return 0
        m = self.static_bucket_const
        if self.static_bucket is not None:
            m &= bucket_mask(self.static_bucket(ctx))
        return m

    def memory_mask(self, ctx) -> int:
        """The buckets the memory-only tests and bucket field allow now (0: the atom accepts
        nothing); ``ctx.piece`` and ``ctx.b`` are unused."""
        for t in self.mem_tests:
            if not t(ctx):
                return 0
        return 15 if self.mem_bucket is None else bucket_mask(self.mem_bucket(ctx))

    def dynamic_mask(self, ctx, m: int) -> int:
        """``m`` (nonzero) narrowed by the tests that read ``ctx.piece`` with the memory or the
        bucket, evaluated in the game's order (later tests are skipped once nothing is left)."""
        for t in self.piece_tests:
            if not t(ctx):
                return 0
        if self.piece_bucket is not None:
            m &= bucket_mask(self.piece_bucket(ctx))
        if m and self.per_bucket:
            for b in range(4):
                if (m >> b) & 1:
                    ctx.b = b
                    ok = all(t(ctx) for t in self.b_tests)
                    if ok and self.b_bucket is not None:
                        ok = (bucket_mask(self.b_bucket(ctx)) >> b) & 1
                    if not ok:
                        m &= ~(1 << b)
        return m


class CLine:
    """A rule line. Its *plain* atoms (table-driven, no counter) act as one: ``plain_col`` is the
    column of their merged static masks (None if the line has none); ``others`` lists the rest as
    (index in the line, atom)."""
    __slots__ = ("count", "counts", "atoms", "all_metered", "plain_col", "others")

    def __init__(self, count: int | None, atoms: list[CAtom]):
        self.count = -1 if count is None else count
        self.atoms = tuple(atoms)
        self.counts = tuple(a.count for a in atoms)
        self.all_metered = all(c >= 0 for c in self.counts)
        self.others = tuple((i, a) for i, a in enumerate(atoms) if not a.plain)
        self.plain_col = None


class CompiledRules:
    """Rule lines, order masks and a cache of per-piece static masks."""

    def __init__(self, ruleset):
        src = ruleset.source
        self.orders = {name: group_masks(g) for name, g in BUILTIN_ORDERS.items()}
        self.orders.update({name: group_masks(g) for name, g in ruleset.orders.items()})
        self.atoms: list[CAtom] = []
        self.lines: list[CLine] = []
        for rl in ruleset.lines:
            catoms = []
            for a in rl.atoms:
                ca = CAtom(len(self.atoms), a, src)
                self.atoms.append(ca)
                catoms.append(ca)
            self.lines.append(CLine(rl.count, catoms))
        self._columns: list[tuple[int, ...]] = []  # the atom uids each game column ORs together
        for line in self.lines:
            plain = tuple(a.uid for a in line.atoms if a.plain)
            if plain:
                line.plain_col = self._add_column(plain)
            for _, a in line.others:
                a.col = self._add_column((a.uid,))
        self._cache: dict = {}
        self.uses_memory = any(a.mem_tests or a.mem_bucket is not None or a.dynamic for a in self.atoms)

    def _add_column(self, uids: tuple[int, ...]) -> int:
        self._columns.append(uids)
        return len(self._columns) - 1

    def columns(self, piece) -> tuple[int, ...]:
        """The static masks of ``piece`` per game column: each line's plain atoms merged into one,
        then one per other atom (``CAtom.col``). Cached per piece key."""
        m = self._cache.get(piece.key)
        if m is None:
            masks = self.static_masks(piece)
            m = self._cache[piece.key] = tuple(reduce(int.__or__, (masks[u] for u in uids)) for uids in self._columns)
        return m

    def static_masks(self, piece) -> tuple[int, ...]:
        """Per-atom 4-bit masks of everything about ``piece`` that never changes."""
        ctx = EvalContext(piece)
        return tuple(a.static_mask(ctx) for a in self.atoms)

    def static_table(self, shapes, colors):
        """``uint8[atom uid, shape, color, pos]`` of static masks for S+C pieces (pos 1..36, index 0
        unused): the per-atom predicate tables a vectorized engine can gather from."""
        import numpy as np

        table = np.zeros((len(self.atoms), len(shapes), len(colors), CELLS + 1), np.uint8)
        for si, shape in enumerate(shapes):
            for ci, color in enumerate(colors):
                for pos in range(1, CELLS + 1):
                    table[:, si, ci, pos] = self.static_masks(Piece(0, *xy(pos), shape, color))
        return table
