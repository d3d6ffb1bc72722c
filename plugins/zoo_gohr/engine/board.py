"""Pieces, board geometry, CGS board JSON and the random board generator (docs/algorithms/gohr-rules.md, "Board,
buckets and pieces" and "Boards")."""
from __future__ import annotations

import random as _pyrandom
from dataclasses import dataclass

from .constants import CELLS, LEGACY_COLORS, LEGACY_SHAPES, SIDE
from .javarandom import JavaRandom


def cell(x: int, y: int) -> int:
    """Cell number 1..36 of column x, row y (y = 1 is the bottom row)."""
    return x + SIDE * (y - 1)


def xy(pos: int) -> tuple[int, int]:
    return (pos - 1) % SIDE + 1, (pos - 1) // SIDE + 1


def nearby(x: int, y: int) -> int:
    """The bucket of this cell's quadrant: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left."""
    left, top = 2 * x <= SIDE + 1, 2 * y >= SIDE + 1
    if top:
        return 0 if left else 1
    return 3 if left else 2


def remotest(x: int, y: int) -> int:
    return nearby(SIDE + 1 - x, SIDE + 1 - y)


_GEOMETRY = [None] + [(x, y, nearby(x, y), remotest(x, y)) for y in range(1, SIDE + 1) for x in range(1, SIDE + 1)]
_PLAIN: dict = {}  # (shape, color) -> (props, sorted props) shared by Piece.plain pieces


def _prop_value(v):
    """Property values that look like integers are integers (as in the reference server)."""
    if isinstance(v, str):
        s = v.strip()
        if s and (s.isdigit() or (s[0] in "+-" and s[1:].isdigit())) and s.isascii():
            return int(s)
    return v


class Piece:
    """A game piece. S+C pieces have ``shape`` and ``color`` (upper-case); IPB pieces have
    ``image`` and arbitrary ``props``. ``props`` always holds every property the rules see; treat
    it as read-only (pieces made by :meth:`plain` share it)."""
    __slots__ = ("id", "x", "y", "shape", "color", "image", "props", "pos", "nearby", "remotest", "key")

    def __init__(self, id, x: int, y: int, shape: str | None = None, color: str | None = None,
                 image: str | None = None, props: dict | None = None):
        if image is None:  # S+C names are case-insensitive pseudo-enums, stored upper-case
            shape = None if shape is None else str(shape).upper()
            color = None if color is None else str(color).upper()
        props = {k: _prop_value(v) for k, v in (props or {}).items()}
        if image is None:
            props.update(shape=shape, color=color)
        else:
            for k, v in (("shape", shape), ("color", color)):
                if v is not None:
                    props.setdefault(k, v)
        self.id, self.x, self.y, self.shape, self.color, self.image = id, x, y, shape, color, image
        self.props = {k: v for k, v in props.items() if v is not None}
        self.pos = cell(x, y)
        self.nearby = nearby(x, y)
        self.remotest = remotest(x, y)
        self.key = (self.pos, image, tuple(sorted(self.props.items(), key=str)))

    @classmethod
    def plain(cls, id, pos: int, shape: str, color: str) -> Piece:
        """The piece ``Piece(id, *xy(pos), shape, color)`` for upper-case names, built from cached parts
        (the generator makes one per piece of every board)."""
        parts = _PLAIN.get((shape, color))
        if parts is None:
            parts = _PLAIN[shape, color] = ({"shape": shape, "color": color}, (("color", color), ("shape", shape)))
        p = object.__new__(cls)
        p.id, p.shape, p.color, p.image, p.pos = id, shape, color, None, pos
        p.x, p.y, p.nearby, p.remotest = _GEOMETRY[pos]
        p.props = parts[0]
        p.key = (pos, None, parts[1])
        return p

    def __repr__(self) -> str:
        what = f"image={self.image!r}, props={self.props!r}" if self.image else f"{self.shape}, {self.color}"
        return f"Piece({self.id!r}, {self.x}, {self.y}, {what})"

    @property
    def is_ipb(self) -> bool:
        return self.image is not None

    def to_json(self, buckets=None) -> dict:
        """The CGS JSON form (keys sorted, with ``pos``, as in the golden transcripts)."""
        d = {"id": self.id, "x": self.x, "y": self.y, "pos": self.pos}
        if self.image is None:
            d.update(shape=self.shape, color=self.color)
        else:
            d["image"] = self.image
            d.update((k, v) for k, v in self.props.items() if k not in d)
        if buckets is not None:
            d["buckets"] = list(buckets)
        return dict(sorted(d.items()))


@dataclass
class Board:
    pieces: list[Piece]
    id: object = None
    name: str | None = None

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "value": [p.to_json() for p in self.pieces]}


def _int_id(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return v


def board_from_json(obj) -> Board:
    """A board in the CGS JSON format: ``{"id":..,"name":..,"value":[{"id","color","shape","x","y"}|{"image",..}]}``."""
    items = obj["value"] if isinstance(obj, dict) else obj
    pieces = []
    for d in items:
        extra = {k: v for k, v in d.items()
                 if k not in ("id", "x", "y", "shape", "color", "image", "buckets", "label", "pos")}
        pieces.append(Piece(_int_id(d["id"]), int(d["x"]), int(d["y"]), d.get("shape"), d.get("color"),
                            d.get("image"), extra))
    ids = [p.id for p in pieces]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate piece ids in board")
    for p in pieces:
        if not (1 <= p.x <= SIDE and 1 <= p.y <= SIDE):
            raise ValueError(f"piece {p.id} is off the board at ({p.x},{p.y})")
    return Board(pieces, obj.get("id") if isinstance(obj, dict) else None,
                 obj.get("name") if isinstance(obj, dict) else None)


def _in_range(rng: JavaRandom, lo: int, hi: int) -> int:
    return lo if hi <= lo else lo + rng.next_int(hi - lo + 1)


def _subset_permuted(rng: JavaRandom, n: int, k: int) -> list[int]:
    if k > n:
        raise ValueError(f"cannot choose {k} distinct items out of {n}")
    pool = list(range(n))
    return [pool.pop(i) for i in rng.next_ints(range(n, n - k, -1))]


def _subset_ordered(rng: JavaRandom, n: int, k: int) -> list[int]:
    return sorted(_subset_permuted(rng, n, k))


def _designate(rng: JavaRandom, m: int, k: int, values: tuple) -> list:
    """One property for m pieces using exactly k distinct values (k = 0: independent draws)."""
    if k == 0:
        return [values[i] for i in rng.next_ints([len(values)] * m)]
    r = rng.next_ints([k] * m)
    for i, j in enumerate(_subset_permuted(rng, m, k)):
        r[j] = i
    use = _subset_ordered(rng, len(values), k)
    return [values[use[x]] for x in r]


class BoardGenerator:
    """The server's random S+C (or IPB) board generator, bit-compatible with ``java.util.Random``.

    Ranges are inclusive; a shape/color count of 0 means each piece draws independently.
    ``images`` (list of (image, props) pairs) switches to IPB boards.
    """

    def __init__(self, min_objects: int = 9, max_objects: int | None = None, min_shapes: int = 0,
                 max_shapes: int | None = None, min_colors: int = 0, max_colors: int | None = None,
                 shapes=LEGACY_SHAPES, colors=LEGACY_COLORS, seed: int | None = None,
                 rng: JavaRandom | None = None, crowded: bool = False, images=None):
        self.objects = (min_objects, min_objects if max_objects is None else max_objects)
        self.nshapes = (min_shapes, min_shapes if max_shapes is None else max_shapes)
        self.ncolors = (min_colors, min_colors if max_colors is None else max_colors)
        self.shapes = tuple(str(s).upper() for s in shapes)
        self.colors = tuple(str(c).upper() for c in colors)
        if not 0 <= self.objects[0] <= CELLS or self.objects[1] > CELLS and not crowded:
            raise ValueError(f"the number of objects must be within 0..{CELLS}")
        if rng is None:
            rng = JavaRandom(seed if seed else _pyrandom.getrandbits(63))
        self.rng = rng
        self.crowded = crowded
        self.images = sorted(dict(images).items()) if images is not None else None

    def get_state(self) -> int:
        """Where the generator is in its stream of boards (its ``java.util.Random`` state)."""
        return self.rng.state

    def set_state(self, state: int) -> None:
        self.rng = JavaRandom.from_state(state)

    def _cells(self, n: int) -> list[int]:
        if self.crowded:
            return sorted(c + 1 for c in self.rng.next_ints([CELLS] * n))
        return [c + 1 for c in _subset_ordered(self.rng, CELLS, n)]

    def next_board(self) -> Board:
        rng = self.rng
        n = _in_range(rng, *self.objects)
        if self.images is not None:
            cells = self._cells(n)
            keys = self.images
            picks = [keys[k] for k in rng.next_ints([len(keys)] * n)]
            return Board([Piece(i, *xy(c), image=img, props=dict(props))
                          for i, (c, (img, props)) in enumerate(zip(cells, picks))])
        ns = _in_range(rng, *self.nshapes)
        nc = _in_range(rng, *self.ncolors)
        if ns > len(self.shapes) or nc > len(self.colors):
            raise ValueError("more distinct shapes/colors requested than available")
        cells = self._cells(n)
        shapes = _designate(rng, n, ns, self.shapes)
        colors = _designate(rng, n, nc, self.colors)
        return Board([Piece.plain(i, pos, shape, color)
                      for i, (pos, shape, color) in enumerate(zip(cells, shapes, colors))])


