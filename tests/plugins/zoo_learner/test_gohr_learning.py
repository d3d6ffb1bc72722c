"""End to end: a substrate agent with the cells torso learns a stationary GOHR rule from a spec.

Calibration (DiCE, examples/gohr-dice.yaml's agent settings, paper/color_match with the paper's
boards, 12,000 moves; mean return of the last 50 training episodes, i.e. minus the errors per board):
seeds 0, 1, 2 measured -1.16, -4.26, -1.02, while their first 50 episodes averaged -95.5 to -96.4
(random play). Threshold: -20 for seed 0. About 12 CPU-s. With the flat MLP torso the same budget
stays at random play.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from zoo import build_trial
from zoo.registry import get_registry
from zoo.spec import load_spec_text

pytestmark = pytest.mark.slow  # a learning check of 12,000 steps

EXAMPLES = Path(__file__).parents[3] / "examples"
STEPS = 12_000


def test_dice_with_the_cells_torso_learns_color_match(tmp_path):
    shipped = yaml.safe_load((EXAMPLES / "gohr-dice.yaml").read_text())
    assert shipped["agent"]["network"]["torso"] == "cells" and shipped["env"]["rule"] == "paper/color_match"
    text = yaml.safe_dump({
        "env": {**shipped["env"], "board": {"min_objects": 9, "min_shapes": 4, "min_colors": 4}},
        "agent": shipped["agent"], "budget": {"steps": STEPS}})
    registry = get_registry()
    built = build_trial(load_spec_text(text, registry), registry, seed=0, trial=0, directory=tmp_path)
    built.agent.learn(STEPS)
    built.agent.close()
    built.logger.close()
    returns = [row["episode_return"] for row in map(json.loads, (tmp_path / "metrics.jsonl").read_text().splitlines())
               if "episode_return" in row]
    assert np.mean(returns[:50]) < -90
    assert np.mean(returns[-50:]) >= -20
