"""A rule set as numpy tables over S+C pieces, for the vector engine (:mod:`zoo_gohr.vector.table_games`).

Pieces are numbered by *piece code* ``(shape * len(colors) + color) * 36 + cell`` (cell 0..35) and
a removed piece with its bucket by ``piece code * 4 + bucket``. The static masks of every game
column (``CompiledRules.columns``) are tabulated for every piece code. What an atom computes from
the memory (its memory-only tests and bucket field, and its tests that read the piece with the
memory) is tabulated over a *key*: the parts of the state its expressions read (``var_reads``),
filled in lazily, each entry computed by :class:`CAtom`'s own methods on a rebuilt state the first
time a game needs it, so it is the game's value and raises the game's errors at the same move.
A rule whose expressions read more than these keys cover (``q.K``, ``p.pos``, ``p.bucket``), or
whose tables would be too big, is not tabulated.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..engine.board import Piece
from ..engine.compiler import CAtom, EvalContext
from ..engine.constants import CELLS
from ..engine.errors import RuleRuntimeError
from ..engine.expressions import var_reads
from ..engine.memory import Memory, Obj, piece_obj
from ..engine.ruleset import RuleSet
from ..engine.syntax import Atom, BinOp, Cmp, ExprValue, ListE, Not, Var

MAX_TABLE = 1 << 22  # entries of one atom's table
CELL_BITS = np.uint64(1) << np.arange(1, CELLS + 1, dtype=np.uint64)  # cell 0..35 -> bit of pos 1..36


class LazyTable:
    """uint8 values of ``compute(*context)`` over a dense integer key, each computed on its first lookup."""

    UNSET = 255

    def __init__(self, size: int, compute: Callable[..., int]):
        self.values = np.full(size, self.UNSET, np.uint8)
        self.compute = compute

    def lookup(self, keys: np.ndarray, *context: np.ndarray) -> np.ndarray:
        """The values at ``keys``; a missing one is computed from the context of its first occurrence."""
        values = self.values[keys]
        missing = np.flatnonzero(values == self.UNSET)
        if missing.size:
            new, first = np.unique(keys[missing], return_index=True)
            at = missing[first]
            for key, args in zip(new.tolist(), zip(*(c[at].tolist() for c in context))):
                self.values[key] = self.compute(*args)
            values = self.values[keys]
        return values


def _variables(atom: Atom):
    """The variables (name parts) of the atom's expressions."""
    stack = [v.expr for v in (atom.shape, atom.color, *(v for _, v in atom.props)) if isinstance(v, ExprValue)]
    stack += [e for e in (atom.bucket, atom.code) if e is not None]
    while stack:
        e = stack.pop()
        if isinstance(e, Var):
            yield e.parts
        elif isinstance(e, ListE):
            stack += e.items
        elif isinstance(e, (BinOp, Cmp)):
            stack += (e.left, e.right)
        elif isinstance(e, Not):
            stack.append(e.operand)


def atom_reads(atom: Atom) -> frozenset[str] | None:
    """The union of ``var_reads`` over the atom's variables, and the piece's own shape or color when
    that field is an expression (its value must be in the set); None if a variable is not covered."""
    reads = frozenset(f"this.{key}" for key in ("shape", "color") if isinstance(getattr(atom, key), ExprValue))
    for parts in _variables(atom):
        r = var_reads(parts)
        if r is None:
            return None
        reads |= r
    return reads


def _fields(codes: np.ndarray, S: int, C: int) -> dict[str, tuple[np.ndarray, int]]:
    """Shape, color and cell of piece codes, each with its number of values."""
    kind, cell = codes // CELLS, codes % CELLS
    return {"shape": (kind // C, S), "color": (kind % C, C), "pos": (cell, CELLS)}


def _key(digits: list[tuple[np.ndarray, int]], n: int) -> tuple[np.ndarray, int]:
    """Digit arrays (length n) read in mixed radix: (index array, number of indices)."""
    index, size = np.zeros(n, np.int64), 1
    for values, radix in digits:
        index, size = index * radix + values, size * radix
    return index, size


class AtomTable:
    """An atom of a line that is not plain, with the keys and lazy tables of its state-dependent parts.

    ``pre`` (over ``last_key``) holds :meth:`CAtom.memory_mask`; ``dynamic`` holds
    :meth:`CAtom.dynamic_mask` over (``piece_key``, ``last_key``, by-shape bucket, by-color
    bucket), each part present only if the atom reads it. The mask ``dynamic_mask`` narrows (static
    mask and memory mask) is, when nonzero, a function of that key too: the key holds all that the
    atom's expressions read, and its other tests (constant shapes, colors, cells) only zero it.
    """

    def __init__(self, index: int, atom: CAtom, reads: frozenset[str], tables: RuleTables):
        self.index, self.atom, self.col = index, atom, atom.col
        self.table_driven = atom.table_driven
        self.orders = tuple((np.uint64(cells), names) for cells, names in atom.orders)
        self.postpos = None if atom.postpos is None else (np.uint64(atom.postpos[0]), atom.postpos[1])
        self._tables = tables
        S, C, n = len(tables.shapes), len(tables.colors), len(tables.pieces)
        piece = _fields(np.arange(n), S, C)
        key, n_piece = _key([piece[f] for f in ("shape", "color", "pos") if f"this.{f}" in reads], n)
        self.piece_key = np.append(key, 0)  # and the empty cell
        removed = np.arange(4 * n)
        last = dict(_fields(removed // 4, S, C), bucket=(removed % 4, 4))
        key, size = _key([last[f] for f in ("shape", "color", "pos", "bucket") if f"last.{f}" in reads], 4 * n)
        if "last" in reads:  # key 0: no piece removed yet
            self.last_key, self.n_last = np.append(0, key + 1), size + 1
        else:
            self.last_key, self.n_last = np.zeros(4 * n + 1, np.int64), 1
        self.by_shape, self.by_color = "by.shape" in reads, "by.color" in reads
        self.pre = LazyTable(self.n_last, self._pre) if atom.mem_tests or atom.mem_bucket is not None else None
        self.size = n_piece * self.n_last * (5 if self.by_shape else 1) * (5 if self.by_color else 1)
        self.dynamic = LazyTable(self.size, self._dynamic) if atom.dynamic and self.size <= MAX_TABLE else None

    def dynamic_keys(self, pcode, last, by_shape, by_color) -> np.ndarray:
        """Keys of ``dynamic`` for pieces (codes), the last removed piece and the pieces' by-shape and
        by-color buckets (-1 for none)."""
        key = self.piece_key[pcode] * self.n_last + self.last_key[last + 1]
        if self.by_shape:
            key = key * 5 + by_shape + 1
        if self.by_color:
            key = key * 5 + by_color + 1
        return key

    def _pre(self, last: int) -> int:
        return self.atom.memory_mask(EvalContext(mem=self._tables.memory(last)))

    def _dynamic(self, pcode: int, last: int, by_shape: int, by_color: int, m: int) -> int:
        piece = self._tables.pieces[pcode]
        by = {}
        if by_shape >= 0:
            by["shape"] = {piece.shape: Obj({}, by_shape)}
        if by_color >= 0:
            by["color"] = {piece.color: Obj({}, by_color)}
        return self.atom.dynamic_mask(EvalContext(piece, mem=self._tables.memory(last, by)), m)


class LineTable:
    """A rule line: its merged plain column, its other atoms, and its counters padded to ``width``."""

    def __init__(self, line, others: list[AtomTable], width: int):
        self.plain_col = line.plain_col
        self.others = others
        self.count = line.count
        self.all_metered = line.all_metered
        self.counts = np.zeros(width, np.int32)
        self.counts[:len(line.counts)] = line.counts


class RuleTables:
    """The tables of a rule set for S+C pieces of the given shapes and colors.

    ``static[col]`` holds the static masks of game column ``col`` by piece code (one more entry, 0,
    for an empty cell); ``orders`` the tie groups of each order as uint64 cell masks.
    """

    def __init__(self, rules: RuleSet, shapes: tuple[str, ...], colors: tuple[str, ...]):
        cr = rules.compiled
        self.shapes, self.colors = tuple(shapes), tuple(colors)
        self.pieces = [Piece.plain(0, cell + 1, s, c) for s in shapes for c in colors for cell in range(CELLS)]
        columns = np.array([cr.columns(p) for p in self.pieces], np.uint8).reshape(len(self.pieces), -1)
        self.static = np.concatenate([columns, np.zeros((1, columns.shape[1]), np.uint8)]).T.copy()
        self.empty = len(self.pieces)  # the piece code of an empty cell
        self.orders = {name: np.array(groups, np.uint64) for name, groups in cr.orders.items()}
        self.width = max(len(line.atoms) for line in cr.lines)
        self.lines = [LineTable(line, [AtomTable(i, a, atom_reads(a.atom), self) for i, a in line.others],
                                self.width) for line in cr.lines]

    @staticmethod
    def build(rules: RuleSet, shapes, colors) -> RuleTables | None:
        """The tables, or None if some atom reads what they do not cover or needs too big a table,
        or if the static masks of some piece fail (a game fails only once such a piece is dealt)."""
        atoms = [a for line in rules.compiled.lines for _, a in line.others]
        if not rules.compiled.lines or any(atom_reads(a.atom) is None for a in atoms):
            return None
        try:
            tables = RuleTables(rules, shapes, colors)
        except RuleRuntimeError:
            return None
        if any(a.atom.dynamic and a.dynamic is None for line in tables.lines for a in line.others):
            return None
        return tables

    def memory(self, last: int, by: dict | None = None) -> Memory:
        """The memory after removing the piece of code ``last >> 2`` into bucket ``last & 3`` (-1: no
        piece removed yet), with ``by`` as given."""
        return Memory.restored(None if last < 0 else piece_obj(self.pieces[last >> 2], last & 3), by or {})
