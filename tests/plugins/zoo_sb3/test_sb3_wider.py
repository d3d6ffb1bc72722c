"""sb3-contrib's MaskablePPO, RecurrentPPO and QR-DQN, SB3's SAC and TD3, schedules, VecNormalize, frame stacking, device."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from zoo_testing import spec, trial

from zoo.checkpoints import save_checkpoint
from zoo.registry import get_registry
from zoo.spec import load_spec_text

CARTPOLE, PENDULUM = "{type: gym, id: CartPole-v1}", "{type: gym, id: Pendulum-v1}"
GOHR = "{type: gohr, rule: paper/clockwise, horizon: 20}"


def _build(tmp_path, name, env, agent, steps=400, seed=3):
    return trial(spec(f"env: {env}\nagent: {agent}\nbudget: {{steps: {steps}}}\n"), tmp_path / name, seed=seed)


def _close(*built):
    for b in built:
        b.agent.close()
        b.logger.close()


CASES = {
    "sac": (PENDULUM, "{type: sac, learning_starts: 50, buffer_size: 500, batch_size: 32, normalize_observations: true}"),
    "td3": (PENDULUM, "{type: td3, learning_starts: 50, buffer_size: 500, batch_size: 32, action_noise: {type: normal, std: 0.1}}"),
    "qrdqn": (CARTPOLE, "{type: qrdqn, learning_starts: 50, buffer_size: 500, frame_stack: 2}"),
    "recurrent-ppo": (CARTPOLE, "{type: recurrent-ppo, n_steps: 32, batch_size: 32, n_epochs: 1}"),
    "maskable-ppo": (GOHR, "{type: maskable-ppo, n_steps: 32, batch_size: 32, n_epochs: 1, normalize_rewards: true}"),
}


@pytest.mark.parametrize("agent", list(CASES))
def test_checkpoint_round_trip_restores_networks_optimizers_and_statistics(agent, tmp_path):
    env, params = CASES[agent]
    first = _build(tmp_path, "a", env, params)
    first.agent.learn(200)
    path = save_checkpoint(first.agent, tmp_path / "ckpt", keep=1)
    second = _build(tmp_path, "b", env, params, seed=4)
    second.agent.load(path / "agent")
    a, b = first.agent.model, second.agent.model
    assert b.num_timesteps == a.num_timesteps >= 200
    modules, tensors = a._get_torch_save_params()
    for name in modules:  # the policy and every optimizer (SAC: actor, critic and entropy optimizers)
        x, y = a, b
        for part in name.split("."):
            x, y = getattr(x, part), getattr(y, part)
        assert str(x.state_dict()) == str(y.state_dict()), name
    for name in tensors:
        assert torch.equal(getattr(a, name), getattr(b, name)), name
    normalizer = first.agent._normalizer()
    if normalizer is not None:
        restored = second.agent._normalizer()
        if normalizer.norm_obs:
            assert normalizer.obs_rms.count > 100 and restored.obs_rms.count == normalizer.obs_rms.count
            assert np.array_equal(restored.obs_rms.mean, normalizer.obs_rms.mean)
        assert normalizer.ret_rms.count > 100 and np.array_equal(restored.ret_rms.var, normalizer.ret_rms.var)
    assert len(first.agent.evaluate(1, seed=0)) == 1
    _close(first, second)


def test_maskable_ppo_samples_only_the_actions_the_gohr_mask_allows(tmp_path):
    built = _build(tmp_path, "m", GOHR, "{type: maskable-ppo, n_steps: 64, batch_size: 64, n_epochs: 1}")
    built.agent.learn(64)
    buffer = built.agent.model.rollout_buffer
    actions = buffer.actions.reshape(-1).astype(int)
    masks = buffer.action_masks.reshape(len(actions), -1)
    assert masks.shape[1] == 144 and not masks.all()  # GOHR masks the moves from empty cells
    assert masks[np.arange(len(actions)), actions].all()
    _close(built)


def test_a_checkpoint_restores_the_gohr_env_mid_stream(tmp_path):
    """GOHR draws its boards from a generator of its own, so the env's np_random alone cannot bring a fresh env
    to the board in play: its get_state can. After a checkpoint four boards in, the loaded agent's env plays on
    exactly as the saved one (the boards after it too)."""
    agent = "{type: maskable-ppo, n_steps: 32, batch_size: 32, n_epochs: 1}"
    first = _build(tmp_path, "a", GOHR, agent)
    first.agent.learn(64)  # episodes of at most 20 moves: the fourth board or later is in play
    path = save_checkpoint(first.agent, tmp_path / "ckpt", keep=1)
    second = _build(tmp_path, "b", GOHR, agent, seed=4)
    second.agent.load(path / "agent")

    def play(env) -> list:
        actions, seen = np.random.default_rng(0), []
        for _ in range(60):
            obs, reward, terminated, truncated, _ = env.step(int(actions.choice(np.flatnonzero(env.unwrapped.action_masks()))))
            seen.append((obs.tolist(), reward))
            if terminated or truncated:
                seen.append(env.reset()[0].tolist())
        return seen

    assert play(second.agent.model.env.envs[0]) == play(first.agent.model.env.envs[0])
    _close(first, second)


def test_a_linear_schedule_falls_to_zero_over_the_trial_budget(tmp_path):
    built = _build(tmp_path, "lin", CARTPOLE, "{type: ppo, n_steps: 64, batch_size: 64, n_epochs: 1, learning_rate: lin_1e-3}")
    built.agent.learn(200)  # four rollouts of 64 steps: the last update ran at 256 of 400 steps
    assert built.agent.model.num_timesteps == 256
    assert built.agent.model.policy.optimizer.param_groups[0]["lr"] == pytest.approx(1e-3 * (1 - 256 / 400))
    _close(built)


def test_frame_stacking_and_the_recorded_device(tmp_path):
    built = _build(tmp_path, "fs", CARTPOLE, "{type: dqn, frame_stack: 4, device: auto, learning_starts: 10}")
    assert built.agent.model.observation_space.shape == (16,)
    record = json.loads((tmp_path / "fs" / "sb3.json").read_text())
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert record["algorithm"] == "stable_baselines3.DQN" and record["device_requested"] == "auto"
    assert record["device"].startswith(expected)
    _close(built)


@pytest.mark.parametrize(("value", "message"), [
    ("lin_2", "a learning rate is a number in (0, 1] or 'lin_<initial>' such as 'lin_3e-4' (given 'lin_2')"),
    ("linear", "a learning rate is a number in (0, 1] or 'lin_<initial>'"),
    ("0", "a learning rate is in (0, 1] (given 0.0)"),
])
def test_bad_learning_rates_are_refused(value, message):
    from zoo.errors import SpecError

    with pytest.raises(SpecError, match=re.escape(message)):
        load_spec_text(f"env: {CARTPOLE}\nagent: {{type: ppo, learning_rate: '{value}'}}\nbudget: {{steps: 10}}\n", get_registry())
