"""The GOHR board's fixed sizes and the legacy piece sets, in one place for the whole zoo.

The board is a 6 x 6 grid of cells numbered 1..36 row by row from the bottom-left
(``pos = x + 6 * (y - 1)``); the four buckets sit at its corners, 0 top-left then clockwise.
An env action is one (cell, bucket) pair.
"""

SIDE = 6
CELLS = SIDE * SIDE
BUCKETS = 4
ACTIONS = CELLS * BUCKETS

LEGACY_SHAPES = ("SQUARE", "STAR", "CIRCLE", "TRIANGLE")
LEGACY_COLORS = ("RED", "BLACK", "BLUE", "YELLOW")
