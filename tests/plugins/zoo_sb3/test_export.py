"""``zoo export``: an SB3 agent's checkpoint as stable-baselines3's own .zip, with its VecNormalize statistics."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import zoo
from zoo.cli import main

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


def test_zoo_export_writes_a_zip_that_sb3_loads(run, tmp_path, capsys, monkeypatch):
    import gymnasium
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    monkeypatch.setenv("ZOO_RUNS_DIR", str(run.parent))
    out = tmp_path / "ppo.zip"
    assert main(["export", "ppo-run", "--trial", "1", "-o", str(out)]) == 0  # by run id
    model = PPO.load(out, device="cpu")
    agent = zoo.load_agent(run, trial=1)
    for name, tensor in agent.model.policy.state_dict().items():
        assert torch.equal(tensor, model.policy.state_dict()[name]), name
    stats = VecNormalize.load(str(tmp_path / "ppo.vecnormalize.pkl"), DummyVecEnv([lambda: gymnasium.make("CartPole-v1")]))
    assert np.array_equal(stats.obs_rms.mean, agent._normalizer().obs_rms.mean)
    agent.close()
    assert main(["export", "ppo-run", "-o", str(tmp_path / "ppo.pt")]) == 2
    assert "the export is a .zip file" in capsys.readouterr().err
