"""The first real loop: gymnasium envs and SB3 agents through `zoo train`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from zoo import build_trial
from zoo.checkpoints import save_checkpoint
from zoo.cli import main
from zoo.metrics import read_metrics
from zoo.registry import get_registry
from zoo.spec import load_spec_text

EXAMPLE = Path(__file__).parents[3] / "examples" / "cartpole-ppo.yaml"

# Calibration (examples/cartpole-ppo.yaml at 20,480 steps, 10 greedy evaluation episodes):
# seeds 1, 2, 3 gave mean returns 214.5, 500.0 and 489.2; a random policy gets about 22.
LEARNING_STEPS = 20480
LEARNING_SEED = 1
LEARNED_RETURN = 150.0


@pytest.mark.slow  # a learning check
def test_ppo_learns_cartpole(tmp_path):
    spec = tmp_path / "cartpole.yaml"
    text = EXAMPLE.read_text().replace("steps: 60000", f"steps: {LEARNING_STEPS}").replace("seed: 0", f"seed: {LEARNING_SEED}")
    spec.write_text(text)
    run = tmp_path / "run"
    assert main(["train", str(spec), "--run-dir", str(run), "--no-progress"]) == 0
    result = json.loads((run / "trials/000/result.json").read_text())
    assert result["eval_mean"] >= LEARNED_RETURN
    rows = read_metrics(run / "trials/000/metrics.jsonl")
    returns = [r["episode_return"] for r in rows if "episode_return" in r]
    assert np.mean(returns[-10:]) > 3 * np.mean(returns[:10])
    assert any("train/value_loss" in r for r in rows)
    assert list((run / "trials/000/tb").glob("events.out.tfevents.*"))
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "finished" and manifest["env"] == "gym" and manifest["agent"] == "ppo"
    assert manifest["plugins"]["sb3"]["distribution"] == "zoo-rl"
    assert manifest["entries"] == {"env": "gym", "agent": "sb3"}
    assert "learning_rate: 0.001" in (run / "spec.yaml").read_text()


@pytest.mark.parametrize("agent", ["ppo", "a2c", "dqn"])
def test_checkpoint_round_trip_restores_the_training_state(agent, tmp_path):
    registry = get_registry()
    extra = {"ppo": "n_steps: 64, batch_size: 32", "a2c": "n_steps: 8", "dqn": "learning_starts: 50, buffer_size: 500"}[agent]
    spec = load_spec_text(
        f"env: {{type: gym, id: CartPole-v1}}\nagent: {{type: {agent}, {extra}}}\nbudget: {{steps: 400}}\n", registry
    )
    first = build_trial(spec, registry, seed=3, trial=0, directory=tmp_path / "a")
    first.agent.learn(200)
    path = save_checkpoint(first.agent, tmp_path / "ckpt", keep=1)
    second = build_trial(spec, registry, seed=4, trial=0, directory=tmp_path / "b")
    second.agent.load(path / "agent")
    a, b = first.agent.model, second.agent.model
    assert b.num_timesteps == a.num_timesteps >= 200
    for (name, x), (_, y) in zip(a.policy.state_dict().items(), b.policy.state_dict().items()):
        assert torch.equal(x, y), name
    if agent == "dqn":
        assert b.replay_buffer.pos == a.replay_buffer.pos
        assert np.array_equal(b.replay_buffer.observations, a.replay_buffer.observations)
        assert b.exploration_rate == a.exploration_rate
    for built in (first, second):
        built.agent.close()
        built.logger.close()
