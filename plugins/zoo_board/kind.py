"""The built-in kind of board (marker key ``tasks``): any env per row, scored by final evaluation returns."""

from __future__ import annotations

from pathlib import Path

from .board import TaskContender, load_board
from .cells import read_finished
from .kinds import BoardKindEntry
from .plan import publish_specs


def publish(loaded, states, runs_dir: Path, out: Path) -> list[Path]:
    """Score the finished cells and write the board's outputs (``outputs``) and a copy of every cell's spec
    (specs/); the warnings go to stderr too."""
    import typer

    from .outputs import write_csv, write_figures, write_html, write_json, write_markdown
    from .readout import read_cell
    from .scores import build

    out.mkdir(parents=True, exist_ok=True)
    cells = read_finished(states, read_cell)
    results = build(loaded, states, cells, out)
    publish_specs(loaded.cells, runs_dir, out)
    for warning in results["warnings"]:
        typer.echo(f"warning: {warning}", err=True)
    written = [write_json(results, out / "leaderboard.json"), *write_csv(results, out), *write_figures(results, out),
               write_markdown(results, out / "leaderboard.md")]
    return [*written, write_html(results, out)]


TASKS_BOARD = BoardKindEntry(name="tasks", marker="tasks", rows="task", load=load_board, publish=publish, contender=TaskContender,
                            description="any env block per row, scored by final returns with rliable's aggregates")
