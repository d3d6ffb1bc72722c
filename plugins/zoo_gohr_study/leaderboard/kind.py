"""The GOHR kind of board (marker key ``rules``) for ``zoo leaderboard``: its cells, recorded play and outputs."""

from __future__ import annotations

from pathlib import Path

from zoo_board.cells import read_finished
from zoo_board.kinds import BoardKindEntry
from zoo_board.plan import publish_specs

from .board import load_board
from .recorded import RECORDED


def publish(loaded, states, runs_dir: Path, out: Path) -> list[Path]:
    """Score the finished cells and write leaderboard.json, cells.csv, ranking.csv, the curves of every
    rule (curves/*.svg), leaderboard.md, leaderboard.html and a copy of every cell's spec (specs/)."""
    from .outputs import write_csv, write_json, write_markdown
    from .page import write_figures, write_html
    from .readout import read_cell
    from .results import build

    out.mkdir(parents=True, exist_ok=True)
    cells = read_finished(states, read_cell)
    results = build(loaded, states, cells, out)
    publish_specs(loaded.cells, runs_dir, out)
    return [write_json(results, out / "leaderboard.json"), *write_csv(results, out), *write_figures(results, out),
            write_markdown(results, out / "leaderboard.md"), write_html(results, out / "leaderboard.html")]


GOHR_BOARD = BoardKindEntry(name="gohr", marker="rules", rows="rule", load=load_board, publish=publish,
                            recorded=RECORDED, description="GOHR rules as rows, scored by TCE and the paper's tournament")
