"""zoo leaderboard on boards over tasks: a tiny board end to end, its cache and failed cells, and bad boards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from zoo_board.board import load_board

from zoo.cli import main
from zoo.errors import SpecError
from zoo.registry import get_registry

BOARD = {
    "name": "tiny-tasks",
    "tasks": {"cartpole": {"type": "gym", "id": "CartPole-v1"}, "pendulum": {"type": "gym", "id": "Pendulum-v1"}},
    "budget": {"steps": 300, "eval_episodes": 2},
    "trials": 2,
    "logging": {"tensorboard": False, "progress": False},
    "agents": {"random": {"agent": {"type": "random"}}, "a2c": {"agent": {"type": "a2c", "n_steps": 8}}},
    "scores": {"random": "random", "reference": "a2c", "bootstraps": 100},
}


def _write(tmp_path: Path, board: dict, name: str = "board.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    return path


def _run(tmp_path: Path, path: Path, capsys, *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress", *extra])
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_a_board_over_two_gymnasium_ids_runs_scores_caches_and_retries_its_failed_cells(tmp_path, capsys):
    path = _write(tmp_path, BOARD)
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and log.count("(new)") == 4
    out = tmp_path / "runs" / "leaderboards" / "tiny-tasks"
    first = (out / "leaderboard.json").read_bytes()
    results = json.loads(first)
    assert [(c["agent"], c["task"], c["state"], c["trials"]) for c in results["cells"]] == [
        ("random", "cartpole", "scored", 2), ("random", "pendulum", "scored", 2),
        ("a2c", "cartpole", "scored", 2), ("a2c", "pendulum", "scored", 2)]
    for c in results["cells"]:
        run = yaml.safe_load((out / c["run"] / "spec.yaml").read_text())
        assert yaml.safe_load((out / c["spec"]).read_text()) == run  # the published copy of the cell's spec
        trials = sorted((out / c["run"] / "trials").glob("*/result.json"))
        assert c["returns"] == pytest.approx([json.loads(t.read_text())["eval_mean"] for t in trials], rel=1e-9)
    assert results["normalization"]["cartpole"]["random"] == pytest.approx(
        sum(results["cells"][0]["returns"]) / 2)
    assert set(results["aggregates"]["aggregates"]) == {"random", "a2c"} and results["warnings"] == []
    for name in ("cells.csv", "aggregates.csv", "improvement.csv", "leaderboard.md", "figures/profiles.svg",
                 "figures/curves-cartpole.svg", "figures/curves-pendulum.svg"):
        assert (out / name).stat().st_size > 80
    page = (out / "leaderboard.html").read_text()
    assert all(f"href='{c['spec']}'" in page for c in results["cells"]) and page.count("<svg") == 3
    assert "src=" not in page and "<link" not in page  # self-contained

    # finished cells are cached: nothing runs again and the outputs are the same bytes
    code, log = _run(tmp_path, path, capsys)
    assert code == 0 and "(new)" not in log and (out / "leaderboard.json").read_bytes() == first

    # a third-party column from its own file: only its cells run; the one it cannot play fails, is listed, retried
    entry = tmp_path / "dqn.yaml"
    entry.write_text("agent: {type: dqn, learning_starts: 50, buffer_size: 500}\n")
    code, log = _run(tmp_path, path, capsys, "--agent", f"sb3-dqn={entry}")
    assert code != 0 and log.count("(new)") == 2 and "sb3-dqn on pendulum" in log.split("cell(s) failed")[-1]
    results = json.loads((out / "leaderboard.json").read_text())
    failed = [c for c in results["cells"] if c["state"] != "scored"]
    assert [(c["agent"], c["task"], c["state"]) for c in failed] == [("sb3-dqn", "pendulum", "failed")]
    assert "only supports" in failed[0]["error"] and (out / failed[0]["spec"]).is_file()
    assert "agent sb3-dqn is left out of the aggregates: no scored cell on pendulum" in results["warnings"]
    assert "warning: agent sb3-dqn is left out" in log
    assert "sb3-dqn is left out" in (out / "leaderboard.md").read_text()
    assert "sb3-dqn is left out" in (out / "leaderboard.html").read_text()
    code, log = _run(tmp_path, path, capsys, "--agent", f"sb3-dqn={entry}")
    assert code != 0 and log.count("(new)") == 1 and "[6/6] sb3-dqn on pendulum" in log  # retried; the rest cached


def test_dry_run_lists_the_cells_without_running_them(tmp_path, capsys):
    path = _write(tmp_path, BOARD)
    assert main(["leaderboard", str(path), "--runs-dir", str(tmp_path / "runs"), "--dry-run"]) == 0
    assert "4 cells: 0 cached, 0 to resume, 4 new" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()
    assert main(["validate", str(path)]) == 0
    assert "tiny-tasks: 2 agents x 2 tasks = 4 cells" in capsys.readouterr().out



def test_validate_build_builds_every_cell_and_names_the_one_that_fails(tmp_path, capsys):
    board = {**BOARD, "agents": {**BOARD["agents"], "dqn": {"agent": {"type": "dqn"}}}}  # DQN has no continuous actions
    path = _write(tmp_path, board)
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    assert main(["validate", str(path), "--build"]) != 0
    assert "cell dqn x pendulum" in capsys.readouterr().err

@pytest.mark.parametrize("change, message", [
    ({"scores": {"random": "randm", "reference": "a2c"}},
     "board.yaml:25:3: scores.random: 'randm' is no agent of the board; agents: random, a2c"),
    ({"scores": {"random": "random", "reference": {"cartpole": 500}}},
     "board.yaml:26:3: scores.reference: give a number for every task and no other: missing pendulum"),
    ({"scores": {"random": "random", "refrence": "a2c"}}, "board.yaml:26:3: scores.refrence: unknown field 'refrence' "
                                                          "(did you mean 'reference'?)"),
    ({"budget": {"steps": 300}}, "board.yaml:9:1: budget: a board scores each cell by its final evaluation: give "
                                 "eval_episodes (e.g. eval_episodes: 30)"),
    ({"tasks": {"cartpole": {"type": "gym", "id": "CartPole-v9"}}},
     "board.yaml:5:5: env.id: 'CartPole-v9' is not a registered gymnasium id"),
    ({"tasks": {"cartpole": {"id": "CartPole-v1"}}}, "board.yaml:3:3: tasks.cartpole: a task is an env block with a type"),
])
def test_a_bad_board_is_refused_at_its_line_before_anything_runs(tmp_path, change, message):
    path = _write(tmp_path, {**BOARD, **change})
    with pytest.raises(SpecError) as caught:
        load_board(path, get_registry())
    assert message in str(caught.value)


def test_a_file_of_no_kind_of_board_is_refused_with_the_kinds(tmp_path, capsys):
    path = _write(tmp_path, {"name": "x", "agents": {}, "budget": {"steps": 1}})
    assert main(["leaderboard", str(path)]) != 0
    err = capsys.readouterr().err
    assert "a board is a mapping with name, agents, budget and its rows: 'rules' (GOHR rules" in err
    assert "or 'tasks' (any env block per row" in err


def _docs_board() -> dict:
    """The worked board of docs/leaderboard.md ("Boards over any world"), as the page writes it."""
    page = (Path(__file__).parents[3] / "docs" / "leaderboard.md").read_text()
    block = page.split("<!-- file: toy-text.yaml -->\n```yaml\n", 1)[1].split("```", 1)[0]
    return yaml.safe_load(block)


@pytest.mark.slow
def test_the_docs_board_runs_with_a_third_partys_agent(zoo_cli, tmp_path):
    board = _docs_board()
    assert list(board["tasks"]) == ["frozenlake", "taxi"]
    board |= {"budget": {"steps": 600, "eval_episodes": 3}, "trials": 2}  # the page's board, on a smaller budget
    board["agents"]["ppo"]["agent"] |= {"n_steps": 64, "batch_size": 32}
    path = _write(tmp_path, board, "toy-text.yaml")
    (tmp_path / "tabular-q.yaml").write_text("agent: {type: tabular-q, epsilon: 0.1}\n")
    result = zoo_cli.run("leaderboard", path, "--runs-dir", tmp_path / "runs", "--no-progress",
                         "--agent", f"tabular-q={tmp_path / 'tabular-q.yaml'}", timeout=600)
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "runs" / "leaderboards" / "toy-text" / "leaderboard.json").read_text())
    assert {(c["agent"], c["state"]) for c in results["cells"]} == {
        ("random", "scored"), ("ppo", "scored"), ("tabular-q", "scored")}
    assert results["normalization"]["taxi"]["reference"] == 8.0
    assert set(results["aggregates"]["aggregates"]) == {"random", "ppo", "tabular-q"}


@pytest.mark.slow
def test_ctrl_c_stops_the_board_and_the_next_call_ends_it_as_an_uninterrupted_one(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    board = BOARD | {"budget": {"steps": 30000, "checkpoint_every": 1000, "eval_episodes": 5}, "trials": 1,
                     "agents": {"random": {"agent": {"type": "random"}}},
                     "scores": {"random": "random", "reference": {"cartpole": 475, "pendulum": -150}, "bootstraps": 50}}
    path = _write(tmp_path, board)
    command = [str(Path(sys.executable).parent / "zoo"), "leaderboard", str(path), "--no-progress"]
    process = subprocess.Popen([*command, "--runs-dir", str(tmp_path / "runs")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    first = load_board(path, get_registry()).cells[0]
    checkpoints = tmp_path / "runs" / first.run_name / "trials" / "000" / "checkpoints"
    deadline = time.monotonic() + 120
    while not any(checkpoints.glob("*-*")) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert not (tmp_path / "runs" / "leaderboards").exists()  # nothing is published from a stopped board
    again = subprocess.run([*command, "--runs-dir", str(tmp_path / "runs")], capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stderr
    assert "random on cartpole (resuming)" in again.stderr and "random on pendulum (new)" in again.stderr
    whole = subprocess.run([*command, "--runs-dir", str(tmp_path / "whole")], capture_output=True, text=True,
                           timeout=300)
    assert whole.returncode == 0, whole.stderr
    resumed = (tmp_path / "runs" / "leaderboards" / "tiny-tasks" / "leaderboard.json").read_text()
    assert resumed == (tmp_path / "whole" / "leaderboards" / "tiny-tasks" / "leaderboard.json").read_text()
