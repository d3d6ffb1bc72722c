"""benchmarks/board_entries/: every entry joins the board its comment names as a valid column."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zoo.cli import main

ROOT = Path(__file__).resolve().parents[3]
ENTRIES = sorted((ROOT / "benchmarks" / "board_entries").glob("*.yaml"))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda p: p.stem)
def test_an_entry_plans_a_new_cell_on_every_task_of_its_board(entry, tmp_path, capsys):
    board = re.search(r"zoo leaderboard (leaderboards/\S+\.yaml) --agent " + re.escape(entry.stem) + "=", entry.read_text())
    assert board, f"{entry.name} names no board in its usage comment"
    code = main(["leaderboard", str(ROOT / board.group(1)), "--runs-dir", str(tmp_path), "--dry-run",
                 "--agent", f"{entry.stem}={entry}"])
    assert code == 0
    assert re.search(r"(\d+) cells: 0 cached, 0 to resume, \1 new", capsys.readouterr().out)
