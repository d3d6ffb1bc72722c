"""Built-in and custom cell orders, and order eligibility (docs/algorithms/gohr-rules.md, "Orders").

Cells are 1..36 (``pos = x + 6*(y-1)``, y = 1 the bottom row). Cell sets are int
bitmasks with bit ``pos`` set.
"""
from __future__ import annotations

from .board import cell, xy
from .constants import CELLS, SIDE

Groups = tuple[tuple[int, ...], ...]


def _rows_top_down():
    return [[cell(x, y) for x in range(1, SIDE + 1)] for y in range(SIDE, 0, -1)]


def _cols_left_right():
    return [[cell(x, y) for y in range(SIDE, 0, -1)] for x in range(1, SIDE + 1)]  # each top->bottom


def _singletons(cells) -> Groups:
    return tuple((c,) for c in cells)


def _nearest_object() -> Groups:
    dist: dict[int, list[int]] = {}
    for pos in range(1, CELLS + 1):
        x, y = xy(pos)
        mx, my = min(x, SIDE + 1 - x), min(y, SIDE + 1 - y)
        dist.setdefault(mx * mx + my * my, []).append(pos)
    return tuple(tuple(dist[d]) for d in sorted(dist))


def _builtins() -> dict[str, Groups]:
    rows = _rows_top_down()
    cols = _cols_left_right()
    b = tuple(tuple(r) for r in reversed(rows))
    left = tuple(tuple(sorted(c)) for c in cols)
    near = _nearest_object()
    return {
        "L1": _singletons(c for r in rows for c in r),
        "L2": _singletons(c for r in rows for c in reversed(r)),
        "L3": _singletons(c for col in reversed(cols) for c in col),
        "L4": _singletons(c for col in cols for c in col),
        "B": b,
        "T": tuple(reversed(b)),
        "L": left,
        "R": tuple(reversed(left)),
        "NearestObject": near,
        "Farthest": tuple(reversed(near)),
    }


BUILTIN_ORDERS: dict[str, Groups] = _builtins()
BUILTIN_ORDER_NAMES = tuple(BUILTIN_ORDERS)


def group_masks(groups: Groups) -> tuple[int, ...]:
    """Each tie group as a cell bitmask (empty groups are dropped: they never match)."""
    out = []
    for g in groups:
        m = 0
        for c in g:
            m |= 1 << c
        if m:
            out.append(m)
    return tuple(out)


def eligible(masks: tuple[int, ...], occupied: int) -> int:
    """Occupied cells of the first group that has any; all occupied cells if none is listed."""
    for m in masks:
        hit = m & occupied
        if hit:
            return hit
    return occupied
