"""One GOHR episode: the move-processing control flow of the reference server (docs/algorithms/gohr-rules.md,
"Moves and control flow")."""
from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .board import Board, Piece
from .compiler import EvalContext
from .constants import CELLS
from .memory import Memory
from .orders import eligible


class Code(IntEnum):
    """CGS response codes."""
    ACCEPT = 0
    STALEMATE = 2
    EMPTY_CELL = 3
    DENY = 4
    EXIT = 5
    NEW_GAME = 6
    IMMOVABLE = 7
    INVALID_COMMAND = -1
    INVALID_ARGUMENTS = -2
    INVALID_POS = -3
    NO_GAME = -4
    INVALID_OBJECT_ID = -10
    MULTIPLE_OBJECTS_IN_CELL = -11


class Finish(IntEnum):
    NO = 0
    FINISH = 1       # board cleared
    STALEMATE = 2


class MoveResult(NamedTuple):
    code: Code
    accepted: bool
    finish: Finish


_R = {(c, f): MoveResult(c, c == Code.ACCEPT, f) for c in Code for f in Finish}
# The answers of ordinary moves, looked up once: reading an enum member (Code.ACCEPT) costs ~0.3 us
_ACCEPTED = tuple(_R[Code.ACCEPT, f] for f in Finish)  # by finish
_DENIED, _IMMOVABLE = _R[Code.DENY, Finish.NO], _R[Code.IMMOVABLE, Finish.NO]
_EMPTY_CELL, _CROWDED = _R[Code.EMPTY_CELL, Finish.NO], _R[Code.MULTIPLE_OBJECTS_IN_CELL, Finish.NO]


class Game:
    """An episode of ``rules`` played on ``board`` (a :class:`Board` or a list of pieces)."""

    def __init__(self, rules, board: Board | list[Piece]):
        cr = rules.compiled
        pieces = list(board.pieces if isinstance(board, Board) else board)
        self.rules = rules
        self._cr = cr
        self._orders = cr.orders
        self._pieces = pieces
        n = len(pieces)
        self._slot = {p.id: j for j, p in enumerate(pieces)}
        if len(self._slot) != n:
            raise ValueError("duplicate piece ids")
        self._alive = list(range(n))
        self._cells = cells = [0] * (CELLS + 1)  # pieces per cell 1..36
        occ = 0
        for p in pieces:
            cells[p.pos] += 1
            occ |= 1 << p.pos
        self._occ = occ
        # per column of cr.columns (CLine.plain_col, CAtom.col), the static masks of every slot
        # (zeroed when a piece leaves)
        self._cols = [list(col) for col in zip(*map(cr.columns, pieces))] if n else []
        self._mem = Memory()
        self._ctx = EvalContext(mem=self._mem)
        self.attempts = 0
        self.finish = Finish.NO
        self._hint = [0] * n
        self._acc: list = []  # (index in line, masks) of the active line's counted atoms
        self._L = 0
        self._line = None
        self._cnt: list[int] = []
        self._gcnt = -1
        if n:
            self._prep(first=True)
        else:
            self.finish = Finish.FINISH

    # ------------------------------------------------------------------ moves
    def move(self, piece_id, bucket: int) -> MoveResult:
        """``MOVE id bucket``."""
        if self.finish:
            return _R[Code.NO_GAME, self.finish]
        j = self._slot.get(piece_id)
        if j is None:
            return _R[Code.INVALID_OBJECT_ID, self.finish]
        return self._attempt(j, bucket)

    def move_at(self, pos: int, bucket: int) -> MoveResult:
        """A move addressing the piece by its cell 1..36."""
        if self.finish:
            return _R[Code.NO_GAME, self.finish]
        if not 1 <= pos <= CELLS:
            return _R[Code.INVALID_POS, self.finish]
        k = self._cells[pos]
        if k != 1:
            return _EMPTY_CELL if k == 0 else _CROWDED
        for j in self._alive:
            if self._pieces[j].pos == pos:
                return self._attempt(j, bucket)
        raise AssertionError("cell count out of sync")

    def _attempt(self, j: int, b: int) -> MoveResult:
        if b not in (0, 1, 2, 3):
            return _R[Code.INVALID_ARGUMENTS, self.finish]
        self.attempts += 1
        h = self._hint[j]
        if not h:
            return _IMMOVABLE
        if not (h >> b) & 1:
            return _DENIED
        self._accept(j, b)
        return _ACCEPTED[self.finish]

    def _accept(self, j: int, b: int) -> None:
        cnt = self._cnt
        for i, masks in self._acc:
            if (masks[j] >> b) & 1:
                cnt[i] -= 1
        if self._gcnt > 0:
            self._gcnt -= 1
        p = self._pieces[j]
        if self._cr.uses_memory:
            self._mem.record(p, b)
        self._alive.remove(j)
        for col in self._cols:
            col[j] = 0
        del self._slot[p.id]
        self._cells[p.pos] -= 1
        if not self._cells[p.pos]:
            self._occ &= ~(1 << p.pos)
        if not self._alive:
            self.finish = Finish.FINISH
            self._hint = [0] * len(self._pieces)
            return
        self._prep(first=False)

    # ----------------------------------------------------------- rule lines
    def _activate(self, L: int) -> None:
        line = self._cr.lines[L]
        self._L, self._line = L, line
        self._cnt = list(line.counts)
        self._gcnt = line.count

    def _exhausted(self) -> bool:
        line = self._line
        if line.count >= 0 and self._gcnt == 0:
            return True
        return line.all_metered and not any(self._cnt)

    def _done_with(self) -> bool:
        return self._exhausted() or not self._compute()

    def _prep(self, first: bool) -> None:
        """``doPrep``: move on (cyclically, with fresh counters) until a line has a legal move."""
        nlines = len(self._cr.lines)
        if first:
            L = 0
        else:
            if not self._done_with():
                return
            L = (self._L + 1) % nlines
        self._activate(L)
        start = L
        while self._done_with():
            L = (L + 1) % nlines
            if L == start:
                self.finish = Finish.STALEMATE
                self._hint = [0] * len(self._pieces)
                self._acc = []
                return
            self._activate(L)

    def _compute(self) -> bool:
        """Build the acceptance map of the active line; returns whether any piece is movable."""
        line, cnt, cols = self._line, self._cnt, self._cols
        hint = None if line.plain_col is None else cols[line.plain_col]
        acc = []
        elig: dict[str, int] = {}  # order eligibility, shared by the line's atoms
        for i, a in line.others:
            if cnt[i] == 0:
                continue
            masks = cols[a.col] if a.table_driven else self._atom_masks(a, elig)
            if masks is None:
                continue
            if cnt[i] > 0:
                acc.append((i, masks))
            hint = masks if hint is None else list(map(int.__or__, hint, masks))
        self._acc = acc
        if hint is None:
            self._hint = [0] * len(self._pieces)
            return False
        self._hint = hint
        return any(hint)

    def _atom_masks(self, a, elig: dict[str, int]) -> list[int] | None:
        """The buckets atom ``a`` (not table-driven) accepts for every slot; None if its memory tests
        rule it out."""
        pieces, col, ctx = self._pieces, self._cols[a.col], self._ctx
        pre = 15
        if a.mem_tests or a.mem_bucket is not None:
            ctx.piece = ctx.b = None
            pre = a.memory_mask(ctx)
            if not pre:
                return None
        if not a.per_piece:
            return col if pre == 15 else [m & pre for m in col]
        orders, occ = self._orders, self._occ
        masks = [0] * len(col)
        for j in self._alive:
            m = col[j] & pre
            if not m:
                continue
            p = pieces[j]
            if a.orders:
                bit = 1 << p.pos
                for cells, names in a.orders:
                    if cells & bit:
                        continue
                    for nm in names:
                        e = elig.get(nm)
                        if e is None:
                            e = elig[nm] = eligible(orders[nm], occ)
                        if e & bit:
                            break
                    else:
                        m = 0
                        break
                if not m:
                    continue
            if a.dynamic:
                ctx.piece = p
                m = a.dynamic_mask(ctx, m)
            masks[j] = m
        if a.postpos is not None:
            self._apply_postpos(a.postpos, masks)
        return masks

    def _apply_postpos(self, postpos, masks: list[int]) -> None:
        """Keep only pieces eligible for the postpos list among the pieces this atom accepts."""
        pieces = self._pieces
        occ = 0
        for j in self._alive:
            if masks[j]:
                occ |= 1 << pieces[j].pos
        if not occ:
            return
        cells, names = postpos
        ok = cells
        for nm in names:
            ok |= eligible(self._orders[nm], occ)
        for j in self._alive:
            if masks[j] and not (ok >> pieces[j].pos) & 1:
                masks[j] = 0

    # ------------------------------------------------------------- queries
    @property
    def game_over(self) -> bool:
        return self.finish != Finish.NO

    @property
    def line_index(self) -> int:
        """The index of the active rule line."""
        return self._L

    def pieces(self) -> list[Piece]:
        """Pieces still on the board, in board order."""
        return [self._pieces[j] for j in sorted(self._alive)]

    def piece(self, piece_id) -> Piece | None:
        j = self._slot.get(piece_id)
        return None if j is None else self._pieces[j]

    def hint_mask(self, piece_id) -> int:
        """Allowed buckets of a piece as a 4-bit mask (0 if immovable or not on the board)."""
        j = self._slot.get(piece_id)
        return 0 if j is None else self._hint[j]

    def slot_hints(self) -> list[int]:
        """The hint masks of all the pieces the game started with, in board order (0 once removed).
        The game's own list, for vectorized readers: do not modify it."""
        return self._hint

    def allowed_buckets(self, piece_id=None):
        """Allowed buckets of one piece, or ``{id: [buckets]}`` for all pieces on the board."""
        if piece_id is None:
            return {self._pieces[j].id: _bits(self._hint[j]) for j in sorted(self._alive)}
        return _bits(self.hint_mask(piece_id))

    def board_json(self) -> list[dict]:
        """The board as in CGS/golden transcripts: pieces sorted by id, each with its ``buckets``."""
        out = [self._pieces[j].to_json(_bits(self._hint[j])) for j in self._alive]
        return sorted(out, key=lambda d: (str(type(d["id"])), d["id"]))

    def copy(self) -> Game:
        """An independent snapshot of this episode."""
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g._slot = dict(self._slot)
        g._alive = list(self._alive)
        g._cells = list(self._cells)
        g._mem = self._mem.copy()
        g._ctx = EvalContext(mem=g._mem)
        g._hint = list(self._hint)
        g._acc = [(i, list(m)) for i, m in self._acc]
        g._cols = [list(c) for c in self._cols]
        g._cnt = list(self._cnt)
        return g


def _bits(m: int) -> list[int]:
    return [b for b in range(4) if (m >> b) & 1]
