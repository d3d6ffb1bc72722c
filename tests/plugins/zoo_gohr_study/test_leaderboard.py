"""zoo leaderboard on tiny boards: caching by content, byte-identical re-runs, failed cells, bad boards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from zoo_board.cells import cell_state
from zoo_gohr_study.leaderboard import random_player
from zoo_gohr_study.leaderboard.board import load_board

from zoo.cli import main
from zoo.errors import SpecError
from zoo.registry import get_registry

BOARD = {
    "name": "tiny",
    "env": {"type": "gohr", "horizon": 30},
    "rules": ["paper/clockwise", "paper/b3_*"],
    "budget": {"episodes": 3},
    "trials": 3,
    "logging": {"tensorboard": False, "progress": False},
    "agents": {"random": {"agent": {"type": "random-legal"}}},
    "metrics": {"bootstraps": 50, "ranking_bootstraps": 5},
}


def _write(tmp_path: Path, board: dict, name: str = "board.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    return path


def _run(tmp_path: Path, path: Path, capsys, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress", *extra])
    return code, capsys.readouterr().err


def test_a_finished_board_runs_nothing_again_and_writes_identical_json(tmp_path, capsys):
    path = _write(tmp_path, BOARD)
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and log.count("(new)") == 2
    out = tmp_path / "runs" / "leaderboards" / "tiny"
    first = (out / "leaderboard.json").read_bytes()
    results = json.loads(first)
    assert results["rules"] == ["paper/clockwise", "paper/b3_then_b1"]
    assert [c["state"] for c in results["cells"]] == ["scored", "scored"]
    assert all(c["trials"] == 3 and len(c["tce"]) == 3 for c in results["cells"])
    for name in ("cells.csv", "ranking.csv", "leaderboard.md", "leaderboard.html"):
        assert (out / name).stat().st_size > 100
    assert (out / results["cells"][0]["spec"]).is_file()  # the cell's link reaches its run's spec
    page = (out / "leaderboard.html").read_text()
    assert all(f"href='{c['spec']}'" in page for c in results["cells"]) and page.count("<svg") == 2
    assert "src=" not in page and "<link" not in page  # self-contained: nothing loaded from elsewhere
    markdown = (out / "leaderboard.md").read_text()
    for figure in ("curves/paper_clockwise.svg", "curves/paper_b3_then_b1.svg"):
        assert f"]({figure})" in markdown and (out / figure).read_text().startswith("<svg xmlns=")
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and "(new)" not in log and "resuming" not in log
    assert (out / "leaderboard.json").read_bytes() == first
    # a cell stopped before its end (as Ctrl-C leaves it) is resumed, and only that one
    from zoo.store import RunFolder

    stopped = RunFolder((out / results["cells"][1]["run"]).resolve())
    stopped.update(status="interrupted")
    (stopped.trial_dir(2) / "result.json").unlink()
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and log.count("(resuming)") == 1 and "random on paper/b3_then_b1 (resuming)" in log
    assert (out / "leaderboard.json").read_bytes() == first
    # the cells are ordinary runs in the run index
    assert main(["runs", "--runs-dir", str(tmp_path / "runs"), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_adding_an_agent_runs_only_its_column_and_changed_params_only_theirs(tmp_path, capsys):
    registry = get_registry()
    board = json.loads(json.dumps(BOARD))
    board["agents"]["dqn"] = {"agent": {"type": "gohr-linear-dqn", "batch_size": 16}}
    keys = {(c.agent, c.task): c.key for c in load_board(_write(tmp_path, board), registry).cells}
    board["agents"]["dqn"]["agent"]["batch_size"] = 8
    changed = {(c.agent, c.task): c.key for c in load_board(_write(tmp_path, board), registry).cells}
    assert [k for k in keys if keys[k] != changed[k]] == [("dqn", "paper/clockwise"), ("dqn", "paper/b3_then_b1")]

    assert _run(tmp_path, _write(tmp_path, BOARD), capsys)[0] == 0
    board["agents"]["dqn"]["agent"]["batch_size"] = 16
    loaded = load_board(_write(tmp_path, board), registry)
    states = {(c.agent, c.task): cell_state(c, tmp_path / "runs").state for c in loaded.cells}
    assert states == {("random", "paper/clockwise"): "cached", ("random", "paper/b3_then_b1"): "cached",
                      ("dqn", "paper/clockwise"): "new", ("dqn", "paper/b3_then_b1"): "new"}


def test_a_failed_cell_is_reported_not_scored_and_retried(tmp_path, capsys, monkeypatch):
    play = random_player.RandomLegalPlayer.learn_episodes

    def crash_on_clockwise(self, episodes):
        if self.context.env_params.rule == "paper/clockwise":
            raise RuntimeError("simulated crash")
        play(self, episodes)

    monkeypatch.setattr(random_player.RandomLegalPlayer, "learn_episodes", crash_on_clockwise)
    path = _write(tmp_path, BOARD)
    code, log = _run(tmp_path, path, capsys)
    assert code == 1
    assert "1 cell(s) failed and are not scored: random on paper/clockwise" in log and "again to retry" in log
    results = json.loads((tmp_path / "runs" / "leaderboards" / "tiny" / "leaderboard.json").read_text())
    failed = next(c for c in results["cells"] if c["rule"] == "paper/clockwise")
    assert failed["state"] == "failed" and "simulated crash" in failed["error"] and "median" not in failed
    assert [r["name"] for r in results["rule_ranking"]["overall"]["ranking"]] == ["paper/b3_then_b1"]
    monkeypatch.setattr(random_player.RandomLegalPlayer, "learn_episodes", play)
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and "random on paper/clockwise (resuming)" in log and "b3_then_b1" not in log
    results = json.loads((tmp_path / "runs" / "leaderboards" / "tiny" / "leaderboard.json").read_text())
    assert [c["state"] for c in results["cells"]] == ["scored", "scored"]


def test_a_third_party_agent_enters_with_one_option(tmp_path, capsys):
    entry = tmp_path / "mine.yaml"
    entry.write_text("agent: {type: random-legal}\ntrials: 2\n")
    code, log = _run(tmp_path, _write(tmp_path, BOARD), capsys, "--dry-run", "--agent", f"mine={entry}")
    assert code == 0
    assert main(["leaderboard", str(_write(tmp_path, BOARD)), "--runs-dir", str(tmp_path / "runs"), "--dry-run",
                 "--agent", f"mine={entry}"]) == 0
    listing = capsys.readouterr().out
    assert "4 cells: 0 cached, 0 to resume, 4 new" in listing and "mine" in listing


@pytest.mark.parametrize("change, message", [
    ({"agents": {"x": {"agent": {"type": "random-legl"}}}},
     "board.yaml:17:7: agents.x.agent.type: unknown agent 'random-legl' (did you mean 'random-legal'?)"),
    ({"rules": ["paper/nothing_*"]}, "board.yaml:6:3: rules.0: 'paper/nothing_*' matches no rule in rule set 'paper'"),
    ({"rules": ["nosuchset/*"]}, "board.yaml:6:3: rules.0: a glob names a rule set first: unknown rule set 'nosuchset'"),
    ({"rules": ["paper/clockwize"]}, "board.yaml:6:3: env.rule: no rule 'paper/clockwize' in rule set 'paper' (did you mean 'paper/clockwise'?)"),
    ({"agents": {"x": {"agent": {"type": "gohr-linear-dqn", "lr": -1}}}}, "board.yaml:18:7: agents.x.agent.lr: Input should be greater than 0"),
    ({"budget": {"steps": 10, "episodes": 3}}, "board.yaml:8:1: budget: give the budget in steps or in episodes"),
    ({"trails": 3}, "board.yaml:21:1: trails: unknown field 'trails' (did you mean 'trials'?)"),
])
def test_bad_boards_name_the_place_and_what_is_valid(tmp_path, change, message):
    board = json.loads(json.dumps(BOARD)) | change
    with pytest.raises(SpecError) as caught:
        load_board(_write(tmp_path, board), get_registry())
    assert message in str(caught.value) and len(caught.value.problems) == 1, str(caught.value)


def test_random_player_moves_only_where_pieces_are(tmp_path):
    rule = tmp_path / "free.txt"
    rule.write_text("(*, *, *, *, [0,1,2,3])\n")
    board = json.loads(json.dumps(BOARD)) | {"rules": [str(rule)]}
    loaded = load_board(_write(tmp_path, board), get_registry())
    from zoo import build_trial

    built = build_trial(loaded.cells[0].spec, get_registry(), seed=1, trial=0, directory=tmp_path / "t")
    built.agent.learn_episodes(5)
    built.logger.close()
    rows = [json.loads(line) for line in (tmp_path / "t" / "metrics.jsonl").read_text().splitlines()]
    # every piece is accepted in any bucket, so a player of legal moves clears each 9-piece board in 9 moves
    assert [r["episode_return"] for r in rows] == [0.0] * 5 and [r["episode_length"] for r in rows] == [9.0] * 5
    assert np.all(np.diff([r["step"] for r in rows]) == 9)


@pytest.mark.slow  # pip-installs the example plugin
def test_the_test_plugins_agent_enters_with_one_command_and_its_failures_are_its_own(zoo_cli, tmp_path):
    """tests/thirdparty_plugin's tabular-q joins the board as a column; it needs discrete observations,
    which GOHR does not have, so its cells fail with the plugin's own message and are not scored."""
    entry = tmp_path / "tabular-q.yaml"
    entry.write_text("agent: {type: tabular-q, epsilon: 0.1}\n")
    board = json.loads(json.dumps(BOARD)) | {"rules": ["paper/b3_then_b1"]}
    args = ["leaderboard", _write(tmp_path, board), "--runs-dir", tmp_path / "runs", "--no-progress",
            "--agent", f"q={entry}"]
    listing = zoo_cli.run(*args, "--dry-run")
    assert listing.returncode == 0 and "2 cells: 0 cached, 0 to resume, 2 new" in listing.stdout
    result = zoo_cli.run(*args)
    assert result.returncode == 1, result.stderr
    assert "agent 'tabular-q' needs an env with discrete observations and actions" in result.stderr
    assert "1 cell(s) failed and are not scored: q on paper/b3_then_b1" in result.stderr
    results = json.loads((tmp_path / "runs" / "leaderboards" / "tiny" / "leaderboard.json").read_text())
    assert {c["agent"]: c["state"] for c in results["cells"]} == {"random": "scored", "q": "failed"}
    assert [r["name"] for r in results["agent_ranking"]["ranking"]] == ["random"]


@pytest.mark.slow  # boards in subprocesses, interrupted
def test_ctrl_c_stops_the_board_and_the_next_call_continues_it(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    board = json.loads(json.dumps(BOARD)) | {"budget": {"episodes": 800, "checkpoint_every": 40}, "trials": 1}
    command = [str(Path(sys.executable).parent / "zoo"), "leaderboard", str(_write(tmp_path, board)),
               "--runs-dir", str(tmp_path / "runs"), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = next(p for p in load_board(tmp_path / "board.yaml", get_registry()).cells)
    checkpoints = tmp_path / "runs" / first.run_name / "trials" / "000" / "checkpoints"
    deadline = time.monotonic() + 120
    while not any(checkpoints.glob("episode-*")) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "run 'zoo leaderboard" in err and "again to continue where it stopped" in err
    assert not (tmp_path / "runs" / "leaderboards").exists()  # nothing is published from a stopped board
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "random on paper/clockwise (resuming)" in again.stderr and "paper/b3_then_b1 (new)" in again.stderr
    results = json.loads((tmp_path / "runs" / "leaderboards" / "tiny" / "leaderboard.json").read_text())
    assert [c["curve"]["episode"][-1] for c in results["cells"]] == [800, 800]  # the whole budget, resumed or not


def test_random_player_resumes_exactly_from_a_checkpoint(tmp_path):
    from zoo import build_trial

    # on color match a move's fate depends on the piece's shape, so the boards show in the returns
    board = json.loads(json.dumps(BOARD)) | {"rules": ["paper/color_match"]}
    spec = load_board(_write(tmp_path, board), get_registry()).cells[0].spec

    def returns(directory: Path) -> list[float]:
        return [json.loads(line)["episode_return"] for line in (directory / "metrics.jsonl").read_text().splitlines()]

    straight = build_trial(spec, get_registry(), seed=7, trial=0, directory=tmp_path / "a")
    straight.agent.learn_episodes(6)
    straight.logger.close()
    first = build_trial(spec, get_registry(), seed=7, trial=0, directory=tmp_path / "b")
    first.agent.learn_episodes(3)
    (tmp_path / "ckpt").mkdir()
    first.agent.save(tmp_path / "ckpt")
    first.logger.close()
    resumed = build_trial(spec, get_registry(), seed=7, trial=0, directory=tmp_path / "b",
                          resume_step=first.agent.steps)
    resumed.agent.load(tmp_path / "ckpt")
    resumed.agent.learn_episodes(3)
    resumed.logger.close()
    assert returns(tmp_path / "b") == returns(tmp_path / "a") and len(returns(tmp_path / "a")) == 6


def test_zoo_validate_recognises_a_board_and_places_its_errors(tmp_path, capsys):
    good = _write(tmp_path, BOARD)
    capsys.readouterr()
    assert main(["validate", "--build", str(good)]) == 0
    assert "tiny: 1 agents x 2 rules = 2 cells, built" in capsys.readouterr().out
    bad = _write(tmp_path, {**BOARD, "agents": {"random": {"agent": {"type": "no-such-agent"}}}}, "bad.yaml")
    assert main(["validate", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "no-such-agent" in err
