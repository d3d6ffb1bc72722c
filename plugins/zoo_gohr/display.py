"""The board as text for a terminal: shapes as symbols, colors as terminal colors."""

from __future__ import annotations

from .engine.game import Game

SYMBOLS = {"SQUARE": "■", "STAR": "★", "CIRCLE": "●", "TRIANGLE": "▲"}
INITIALS = {"RED": "R", "BLACK": "K", "BLUE": "B", "YELLOW": "Y"}
STYLES = {"RED": "red", "BLACK": "bright_black", "BLUE": "blue", "YELLOW": "yellow"}


def piece_symbol(shape: str | None) -> str:
    return SYMBOLS.get(shape or "", (shape or "?")[:1].upper())


def board_text(game: Game, *, markup: bool = False) -> str:
    """Rows top (y = 6) to bottom, cells labelled by number, buckets 0..3 in the corners.

    With ``markup=True`` pieces carry rich color markup.
    """
    at = {piece.pos: piece for piece in game.pieces()}
    lines = ["[0]" + " " * 29 + "[1]"]
    for y in range(6, 0, -1):
        row = []
        for x in range(1, 7):
            pos = x + 6 * (y - 1)
            piece = at.get(pos)
            if piece is None:
                row.append(f"  {pos:2d} ")
            else:
                symbol = piece_symbol(piece.shape)
                color = INITIALS.get(piece.color or "", (piece.color or "?")[:1])
                if markup:
                    style = STYLES.get(piece.color or "", "white")
                    row.append(f" [{style}]{symbol}{color}[/]{pos:2d}")
                else:
                    row.append(f" {symbol}{color}{pos:2d}")
        lines.append("   " + "".join(row))
    lines.append("[3]" + " " * 29 + "[2]")
    return "\n".join(lines)
