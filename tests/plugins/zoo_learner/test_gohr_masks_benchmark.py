"""benchmarks/gohr_masks.py: its specs are the board's, its TCE counts errors, its table's tests point the right way."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from zoo.registry import get_registry
from zoo.spec import load_spec_text

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "gohr_masks.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("gohr_masks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_cell_is_a_valid_spec_at_the_boards_budget(bench):
    for rule in bench.RULES:
        for agent in bench.AGENTS:
            spec = load_spec_text(bench.spec_text(rule, agent, 3), get_registry())
            assert spec.budget.steps == 4000 and spec.seeds == [3] and spec.env.rule == rule
            assert getattr(spec.agent, "mask_actions", False) is agent.endswith(("-masked", "-gohr"))  # gohr presets mask


def test_a_longer_budget_changes_the_budget_only(bench):
    board, longer = (load_spec_text(bench.spec_text(bench.RULES[1], "linear-dqn", 2, *steps), get_registry())
                     for steps in ((), (30000,)))
    assert (board.budget.steps, longer.budget.steps) == (4000, 30000)
    assert board.agent == longer.agent and board.env == longer.env and board.seeds == longer.seeds


def test_the_searched_presets_run_under_their_agents_own_meta_controllers_as_searched(bench):
    """The GDI studies once ran under gdi_bandits over 1/tau and thompson; the presets are searched and run
    under each agent's own controller (for GDI, its bandits over App. G's x = log(1 + 1/tau))."""
    tuning = SCRIPT.parent / "tuning" / "specs"
    for agent in (a for a in bench.AGENTS if a.endswith("-gohr")):
        spec = load_spec_text(bench.spec_text(bench.RULES[0], agent, 0), get_registry())
        searched = load_spec_text((tuning / f"gohr-{agent.removesuffix('-gohr')}.yaml").read_text(), get_registry())
        assert spec.agent.preset == "gohr" and spec.meta_controller is None and searched.meta_controller is None


def test_tce_is_the_errors_of_the_finished_boards(bench, tmp_path):
    trial = tmp_path / "trials" / "000"
    trial.mkdir(parents=True)
    rows = [{"step": 9, "episode_return": -3.0}, {"step": 10, "updates": 2}, {"step": 30, "episode_return": -17.0}]
    (trial / "metrics.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (trial / "result.json").write_text(json.dumps({"cpu_seconds": 1.5}))
    (tmp_path / "run.json").write_text("{}")
    assert bench.tce(tmp_path) == (20.0, 1.5)


def test_the_table_tests_fewer_errors_against_random_and_against_unmasked(bench):
    scores = {"random-legal": [30.0, 31, 32, 33, 34], "gdi-i3": [40.0, 41, 42, 43, 44],
              "gdi-i3-masked": [10.0, 11, 12, 13, 14]}
    lines = bench.table(scores).splitlines()
    assert lines[2].startswith("| random-legal | 5 | 32.00 [") and lines[2].endswith("|  |  |")
    assert lines[3].startswith("| gdi-i3 | 5 |") and lines[3].endswith("| 1 |  |")
    assert lines[4].startswith("| gdi-i3-masked | 5 |") and lines[4].endswith("| 0.004 | 0.004 |")


@pytest.mark.parametrize("args, message", [(["--agents", "gdi-i3"], "must include random-legal"),
                                           (["--rules", "paper/nope"], "unknown rule 'paper/nope'"),
                                           (["--seeds", "1"], "at least 2"), (["--steps", "0"], "positive")])
def test_bad_arguments_are_refused_with_a_message(args, message, tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "out"), *args], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "out").exists()


def test_the_summary_scores_the_share_of_random_errors_avoided_and_compares_with_ppo(bench):
    """An agent with no errors scores 1, random legal play's own errors score 0, and P(beats PPO) counts run pairs."""
    rules = {rule: {"random-legal": [100.0, 100.0, 100.0], "ppo": [50.0, 60.0, 70.0], "perfect": [0.0, 0.0, 0.0],
                    "as-random": [100.0, 100.0, 100.0]} for rule in ("a", "b")}
    lines = bench.summary(rules, reps=50).splitlines()
    assert lines[2] == "| perfect | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] |"
    assert lines[3].startswith("| ppo | 0.40 [") and lines[3].endswith("| |")
    assert lines[4] == "| as-random | 0.00 [0.00, 0.00] | 0.00 [0.00, 0.00] |"


def test_the_steps_option_reaches_the_runs(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(SCRIPT), str(out), "--steps", "8", "--seeds", "2",
                           "--rules", "paper/color_match", "--agents", "random-legal"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    spec = load_spec_text((out / "paper-color_match" / "random-legal" / "seed-1" / "spec.yaml").read_text(), get_registry())
    assert spec.budget.steps == 8 and "8 moves per run" in done.stdout
