"""Trained agents out of run folders: zoo.load_agent."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

import zoo
from zoo.cli import main
from zoo.errors import ZooError

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1, normalize_observations: true}
budget: {steps: 128, checkpoint_every: 64}
trials: 2
logging: {tensorboard: false, progress: false}
"""


@pytest.fixture
def run(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    assert main(["train", str(spec), "--run-dir", str(tmp_path / "runs" / "ppo-run"), "--no-progress"]) == 0
    return tmp_path / "runs" / "ppo-run"


def test_load_agent_restores_the_last_checkpoint_and_plays(run):
    agent = zoo.load_agent(run, trial=1)
    assert agent.steps == 128
    saved = torch.load(run / "trials" / "001" / "checkpoints" / "step-000000000128" / "agent" / "policy.pt", weights_only=True)
    for name, tensor in agent.model.policy.state_dict().items():
        assert torch.equal(tensor, saved[name]), name
    assert len(agent.evaluate(2, seed=0)) == 2
    agent.close()
    with pytest.raises(ZooError, match="no trial 2; the run has trials 0 to 1"):
        zoo.load_agent(run, trial=2)
    with pytest.raises(ZooError, match=r"trial 0 has no best checkpoint yet \(a best checkpoint needs budget.eval_every\)"):
        zoo.load_agent(run, checkpoint="best")


def test_eval_every_logs_evaluations_and_keeps_the_best_checkpoint(tmp_path):
    from zoo.metrics import read_metrics

    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("checkpoint_every: 64}", "checkpoint_every: 128, eval_every: 32, eval_episodes: 3}"))
    run = tmp_path / "runs" / "evaluated"
    assert main(["train", str(spec), "--run-dir", str(run), "--trials", "1", "--no-progress"]) == 0
    rows = [r for r in read_metrics(run / "trials/000/metrics.jsonl") if "eval_return" in r]
    assert [r["step"] for r in rows] == [32, 64, 96, 128]
    best = max(rows, key=lambda r: r["eval_return"])  # the first of equal bests is kept
    checkpoints = list((run / "trials/000/checkpoints-best").glob("step-*"))
    assert [c.name for c in checkpoints] == [f"step-{best['step']:012d}"]
    assert json.loads((checkpoints[0] / "score.json").read_text())["score"] == best["eval_return"]
    agent = zoo.load_agent(run, checkpoint="best")
    seed = json.loads((run / "run.json").read_text())["seeds"][0]
    assert agent.steps == best["step"]
    assert np.mean(agent.evaluate(3, seed=seed + 1)) == best["eval_return"]  # the same greedy episodes again
    agent.close()


def test_eval_every_needs_evaluation_episodes():
    from zoo.errors import SpecError
    from zoo.registry import get_registry
    from zoo.spec import load_spec_text

    with pytest.raises(SpecError, match="eval_every evaluates eval_episodes episodes; give eval_episodes too"):
        load_spec_text(SPEC.replace("checkpoint_every: 64}", "eval_every: 32}"), get_registry())
