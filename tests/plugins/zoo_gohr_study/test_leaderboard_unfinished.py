"""A leaderboard names each cell that is not finished (failed, or being trained elsewhere) with its trials' progress."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from zoo_gohr_study.leaderboard import random_player

from zoo.cli import main
from zoo.store import RunFolder

BOARD = {
    "name": "tiny",
    "env": {"type": "gohr", "horizon": 30},
    "rules": ["paper/clockwise", "paper/b3_then_b1"],
    "budget": {"episodes": 4, "checkpoint_every": 2},
    "trials": 3,
    "logging": {"tensorboard": False, "progress": False},
    "agents": {"random": {"agent": {"type": "random-legal"}}},
    "metrics": {"bootstraps": 50, "ranking_bootstraps": 5},
}


def publish(tmp_path: Path, capsys) -> tuple[dict, str, str]:
    """Run the board; its leaderboard.json, leaderboard.md and leaderboard.html."""
    path = tmp_path / "board.yaml"
    path.write_text(yaml.safe_dump(BOARD, sort_keys=False))
    main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress"])
    capsys.readouterr()
    out = tmp_path / "runs" / "leaderboards" / "tiny"
    return (json.loads((out / "leaderboard.json").read_text()), (out / "leaderboard.md").read_text(),
            (out / "leaderboard.html").read_text())


def crash_on_clockwise_after_two_episodes(monkeypatch) -> None:
    play = random_player.RandomLegalPlayer.learn_episodes

    def crash(self, episodes):
        if self.context.env_params.rule == "paper/clockwise" and self.episodes >= 2:
            raise RuntimeError("simulated crash")
        play(self, episodes)

    monkeypatch.setattr(random_player.RandomLegalPlayer, "learn_episodes", crash)


def test_a_failed_cell_shows_how_far_its_trials_got(tmp_path, capsys, monkeypatch):
    crash_on_clockwise_after_two_episodes(monkeypatch)
    results, markdown, page = publish(tmp_path, capsys)
    cell = next(c for c in results["cells"] if c["rule"] == "paper/clockwise")
    progress = (f"run {Path(cell['run']).name} is failed (RuntimeError: simulated crash), not finished: trial 0 at 2 "
                "of 4 episodes (its last checkpoint), trial 1 at 0 of 4 episodes (its last checkpoint), trial 2 at 0 of 4 "
                "episodes (its last checkpoint)")
    assert cell["state"] == "failed" and cell["progress"] == progress
    assert progress in markdown and progress in page


def test_a_cell_trained_by_another_process_is_shown_running_with_its_progress(tmp_path, capsys, monkeypatch):
    crash_on_clockwise_after_two_episodes(monkeypatch)
    results, _, _ = publish(tmp_path, capsys)
    folder = RunFolder(tmp_path / "runs" / Path(next(c["run"] for c in results["cells"] if c["state"] == "failed")).name)
    monkeypatch.undo()
    with folder.claim():  # another trainer holds the run: the board cannot resume it now
        folder.update(status="running", error=None)
        results, markdown, page = publish(tmp_path, capsys)
    cell = next(c for c in results["cells"] if c["rule"] == "paper/clockwise")
    assert cell["state"] == "running" and "run is being trained by process" in cell["error"]
    assert cell["progress"].startswith(f"run {folder.path.name} is running, not finished: trial 0 at 2 of 4 episodes")
    assert "random on paper/clockwise: running" in markdown and cell["progress"] in markdown
    assert cell["progress"] in page
