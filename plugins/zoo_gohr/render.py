"""Pictures of a GOHR board as a player sees it, for ``render_mode="rgb_array"`` and ``"human"``.

The picture shows the 6x6 grid (cells numbered 1 bottom-left to 36 top-right), each piece as its
shape in its color, the four buckets in the corners (0 top-left, 1 top-right, 2 bottom-right,
3 bottom-left), and the last move: a line from the piece's cell to the bucket, green with the piece
shown in the bucket when it was accepted, red with the piece ringed on the board when it was not.
Drawn with Pillow (a dependency of matplotlib).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from zoo import require_extra

from .engine.board import Piece

SIZE = 480  # a multiple of 16, as video encoders want
CELL = 56
GRID = 6 * CELL
ORIGIN = (SIZE - GRID) // 2  # left and top edge of the grid
BUCKET = 56

BACKGROUND, GRID_LINE, LABEL = (250, 250, 247), (200, 200, 195), (160, 160, 155)
ACCEPTED, DENIED = (40, 160, 70), (210, 40, 40)
PIECE_COLORS = {"RED": (220, 40, 40), "BLACK": (30, 30, 30), "BLUE": (40, 90, 220), "YELLOW": (240, 200, 20),
                "GREEN": (40, 160, 70), "WHITE": (255, 255, 255), "ORANGE": (245, 140, 20), "PURPLE": (140, 60, 170)}
OTHER_COLOR = (150, 150, 150)
SMALL, LARGE = ImageFont.load_default(size=11), ImageFont.load_default(size=17)


@dataclass(frozen=True)
class LastMove:
    """A move as the picture shows it: the piece (as it stood before the move), the bucket, the verdict."""

    piece: Piece
    bucket: int
    accepted: bool


def cell_center(pos: int) -> tuple[float, float]:
    """Pixel center of cell `pos` (1..36; row y = 1 at the bottom)."""
    x, y = (pos - 1) % 6, (pos - 1) // 6
    return ORIGIN + (x + 0.5) * CELL, ORIGIN + (5 - y + 0.5) * CELL


def bucket_box(bucket: int) -> tuple[int, int, int, int]:
    """Pixel box of a bucket: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left."""
    left = 8 if bucket in (0, 3) else SIZE - 8 - BUCKET
    top = 8 if bucket in (0, 1) else SIZE - 8 - BUCKET
    return left, top, left + BUCKET, top + BUCKET


def draw_piece(draw: ImageDraw.ImageDraw, center: tuple[float, float], radius: float, shape: str | None,
               color: str | None) -> None:
    """A piece's shape in its color; shapes or colors outside the legacy sets get a grey box and an initial."""
    cx, cy = center
    fill = PIECE_COLORS.get(color or "", OTHER_COLOR)
    outline = (0, 0, 0) if fill != PIECE_COLORS["BLACK"] else (90, 90, 90)
    box = (cx - radius, cy - radius, cx + radius, cy + radius)
    if shape == "SQUARE":
        draw.rectangle(box, fill=fill, outline=outline)
    elif shape == "CIRCLE":
        draw.ellipse(box, fill=fill, outline=outline)
    elif shape == "TRIANGLE":
        draw.polygon([(cx, cy - radius), (cx + radius, cy + radius * 0.8), (cx - radius, cy + radius * 0.8)],
                     fill=fill, outline=outline)
    elif shape == "STAR":
        # Ten points alternating between the outer radius and 0.45 of it, starting at the top.
        points = [(cx + r * math.sin(k * math.pi / 5), cy - r * math.cos(k * math.pi / 5))
                  for k, r in zip(range(10), [radius * 1.1, radius * 0.45] * 5)]
        draw.polygon(points, fill=fill, outline=outline)
    else:
        draw.rounded_rectangle(box, radius=radius / 3, fill=fill, outline=outline)
        draw.text((cx, cy), (shape or "?")[:1], fill=(0, 0, 0), anchor="mm", font=LARGE)


def board_image(pieces: list[Piece], last: LastMove | None = None) -> np.ndarray:
    """The picture of a board, (SIZE, SIZE, 3) uint8."""
    image = Image.new("RGB", (SIZE, SIZE), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for k in range(7):
        edge = ORIGIN + k * CELL
        draw.line([(edge, ORIGIN), (edge, ORIGIN + GRID)], fill=GRID_LINE, width=1)
        draw.line([(ORIGIN, edge), (ORIGIN + GRID, edge)], fill=GRID_LINE, width=1)
    for pos in range(1, 37):
        cx, cy = cell_center(pos)
        draw.text((cx - CELL / 2 + 3, cy - CELL / 2 + 2), str(pos), fill=LABEL, font=SMALL)
    for bucket in range(4):
        left, top, right, bottom = bucket_box(bucket)
        draw.rounded_rectangle((left, top, right, bottom), radius=8, fill=(235, 228, 210), outline=(120, 100, 70),
                               width=2)
        draw.text((left + 6, top + 3), str(bucket), fill=(120, 100, 70), font=LARGE)
    if last is not None:  # under the pieces, so that it hides none
        draw.line([cell_center(last.piece.pos), _center(bucket_box(last.bucket))],
                  fill=ACCEPTED if last.accepted else DENIED, width=3)
    for piece in pieces:
        draw_piece(draw, cell_center(piece.pos), CELL * 0.32, piece.shape, piece.color)
    if last is not None:
        _draw_verdict(draw, last)
    return np.asarray(image)


def _center(box: tuple[int, int, int, int]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _draw_verdict(draw: ImageDraw.ImageDraw, last: LastMove) -> None:
    verdict = ACCEPTED if last.accepted else DENIED
    left, top, right, bottom = bucket_box(last.bucket)
    bucket_center = _center((left, top, right, bottom))
    cell = cell_center(last.piece.pos)
    draw.rounded_rectangle((left, top, right, bottom), radius=8, outline=verdict, width=4)
    if last.accepted:
        draw_piece(draw, bucket_center, BUCKET * 0.28, last.piece.shape, last.piece.color)
    else:
        cx, cy = cell
        draw.ellipse((cx - CELL * 0.45, cy - CELL * 0.45, cx + CELL * 0.45, cy + CELL * 0.45), outline=verdict, width=3)
    text = f"cell {last.piece.pos} to bucket {last.bucket}: {'accepted' if last.accepted else 'denied'}"
    draw.text((SIZE / 2, SIZE - 36), text, fill=verdict, anchor="mm", font=LARGE)


class HumanWindow:
    """A matplotlib window showing the latest picture; a clear error where no window can open."""

    def __init__(self, fps: float):
        matplotlib = require_extra("matplotlib", "video", "render_mode='human' (a matplotlib window)")
        import matplotlib.pyplot as plt

        backend = matplotlib.get_backend().lower()
        if backend in ("agg", "pdf", "ps", "svg", "pgf", "cairo", "template") or "inline" in backend:
            raise RuntimeError(f"render_mode='human' needs a display, but matplotlib's backend is '{backend}' "
                               "(no window system here); use render_mode='rgb_array' (with gymnasium's RecordVideo "
                               "to keep a video) or set MPLBACKEND to an interactive backend such as TkAgg")
        self._plt = plt
        self._pause = 1.0 / fps
        self._figure, axes = plt.subplots(figsize=(5, 5))
        axes.set_axis_off()
        self._shown = axes.imshow(np.zeros((SIZE, SIZE, 3), np.uint8))
        self._figure.tight_layout()

    def show(self, frame: np.ndarray) -> None:
        self._shown.set_data(frame)
        self._plt.pause(self._pause)

    def close(self) -> None:
        self._plt.close(self._figure)
