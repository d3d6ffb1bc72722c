"""What the vector env keeps per cell: the 4-bit hint mask of the piece there (0..15) or one of
EMPTY, CROWDED (several pieces) and OVER (the game has ended), and the CGS code of a move by the
state of its cell and its bucket."""

from __future__ import annotations

import numpy as np

from ..engine.constants import BUCKETS
from ..engine.game import Code

EMPTY, CROWDED, OVER = 16, 17, 18


def _code_table() -> np.ndarray:
    table = np.empty((OVER + 1, BUCKETS), np.int8)
    for hint in range(16):
        for b in range(BUCKETS):
            table[hint, b] = Code.ACCEPT if hint >> b & 1 else Code.DENY if hint else Code.IMMOVABLE
    table[EMPTY] = Code.EMPTY_CELL
    table[CROWDED] = Code.MULTIPLE_OBJECTS_IN_CELL
    table[OVER] = Code.NO_GAME
    return table


CODES = _code_table()  # [cell state, bucket] -> Code
