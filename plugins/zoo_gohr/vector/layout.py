"""Where things sit in a GOHR observation vector and which (cell, bucket) an action is.

The layout is shared by the single env (:mod:`zoo_gohr.env`) and the vector env; the module
docstring of :mod:`zoo_gohr.env` describes the observation's parts.
"""

from __future__ import annotations

import numpy as np

from ..engine.board import Piece
from ..engine.constants import BUCKETS, CELLS


def encode_action(pos: int, bucket: int) -> int:
    """The action that moves the piece in cell `pos` (1..36) to `bucket` (0..3)."""
    return (pos - 1) * BUCKETS + bucket


def decode_action(action: int) -> tuple[int, int]:
    """(cell 1..36, bucket 0..3) of an action."""
    return action // BUCKETS + 1, action % BUCKETS


class ObservationLayout:
    """Offsets of the parts of the observation vector for given shape and color sets."""

    def __init__(self, shapes: tuple[str, ...], colors: tuple[str, ...]):
        self.shapes = {s.upper(): i for i, s in enumerate(shapes)}
        self.colors = {c.upper(): i for i, c in enumerate(colors)}
        self.per_cell = len(shapes) + len(colors)
        self.last = CELLS * self.per_cell
        self.last_shape = self.last + BUCKETS
        self.last_color = self.last_shape + len(shapes)
        self.last_pos = self.last_color + len(colors)
        self.by_shape = self.last_pos + CELLS
        self.by_color = self.by_shape + len(shapes) * BUCKETS
        self.size = self.by_color + len(colors) * BUCKETS

    def write_piece(self, obs: np.ndarray, piece: Piece) -> None:
        base = (piece.pos - 1) * self.per_cell
        shape, color = self.shapes.get(piece.shape), self.colors.get(piece.color)
        if shape is not None:
            obs[base + shape] = 1.0
        if color is not None:
            obs[base + len(self.shapes) + color] = 1.0

    def write_move(self, obs: np.ndarray, piece: Piece, bucket: int) -> None:
        base = (piece.pos - 1) * self.per_cell
        obs[base:base + self.per_cell] = 0.0
        obs[self.last:self.by_shape] = 0.0
        obs[self.last + bucket] = 1.0
        obs[self.last_pos + piece.pos - 1] = 1.0
        shape, color = self.shapes.get(piece.shape), self.colors.get(piece.color)
        if shape is not None:
            obs[self.last_shape + shape] = 1.0
            start = self.by_shape + shape * BUCKETS
            obs[start:start + BUCKETS] = 0.0
            obs[start + bucket] = 1.0
        if color is not None:
            obs[self.last_color + color] = 1.0
            start = self.by_color + color * BUCKETS
            obs[start:start + BUCKETS] = 0.0
            obs[start + bucket] = 1.0
