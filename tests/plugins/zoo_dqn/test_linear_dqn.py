"""The linear DQN: its math against torch and brute force, batching, resume, and learning.

Learning threshold (calibrated on this machine, seeds 0..7): on paper/b3_then_b1 the agent's
mean errors per episode over episodes 21..30 are 0.95 (0.4 to 1.6 per seed), against 95.5 for
uniform random play; the test asks for under 3, and at least 30 times fewer than random play.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from zoo_dqn.agent import LinearDQNAgent
from zoo_dqn.linear import LinearQ
from zoo_dqn.params import LinearDQNParams
from zoo_gohr.plugin import GohrEnvParams, make_env
from zoo_gohr.vector.features import GohrPaperFeatures

from zoo import AgentEntry
from zoo.agent import TrialContext
from zoo.metrics import MetricLogger
from zoo.registry import get_registry


def _contexts(tmp_path, seeds, rule="paper/b3_then_b1"):
    params = GohrEnvParams(rule=rule)
    return [TrialContext(seed=s, trial=i, directory=tmp_path / f"{i}-{s}", env_params=params,
                         make_env=lambda seed: make_env(params, seed),
                         logger=MetricLogger(tmp_path / f"{i}-{s}"), budget=None)
            for i, s in enumerate(seeds)]


def _errors(context) -> list[int]:
    context.logger.flush()
    return [json.loads(line)["episode_errors"] for line in context.logger.path.read_text().splitlines()]


def test_registered_as_a_batched_agent_with_the_papers_defaults():
    entry = get_registry().get("agent", "gohr-linear-dqn")
    assert isinstance(entry, AgentEntry) and entry.batched_trials
    p = LinearDQNParams()
    assert (p.replay_size, p.batch_size, p.gamma, p.lr, p.target_period, p.target_unit) == (1000, 128, 1.0, 0.01, 200, "moves")
    assert p.epsilon(0) == pytest.approx(0.9) and p.epsilon(200) == pytest.approx(0.001 + 0.899 / np.e)
    with pytest.raises(ValueError, match="learning_starts"):
        LinearDQNParams(learning_starts=10)


def test_q_values_are_theta_dot_phi_and_the_target_max_is_brute_force():
    features = GohrPaperFeatures()
    env = make_env(GohrEnvParams(rule="paper/clockwise"), 5)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    q = LinearQ(2, features.index_table, lr=0.01)
    q.theta[:, :-1] = np.random.default_rng(0).normal(size=(2, 3720))
    types, last = features.keys(env.observation())
    dense = features.dense(env).astype(float)
    assert np.allclose(q.q_actions(np.array([1]), types, last)[0], dense @ q.theta[1, :-1])
    q.refresh_target(np.array([0, 1]))
    best = q.target_max(np.array([1]), last[None], types[None], occupied_only=False)
    assert np.isclose(best[0, 0], (dense @ q.target[1, :-1]).max())


def test_adam_steps_match_torch_on_the_squared_loss():
    features = GohrPaperFeatures()
    rng = np.random.default_rng(2)
    q = LinearQ(1, features.index_table, lr=0.01)
    weights = torch.zeros(3721, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([weights], lr=0.01)
    for _ in range(5):
        last, kind, bucket = rng.integers(0, 125, (1, 16)), rng.integers(0, 17, (1, 16)), rng.integers(0, 4, (1, 16))
        y = rng.normal(size=(1, 16))
        values, idx = q.q_taken(np.array([0]), last, kind, bucket)
        q.step(np.array([0]), idx, 2.0 * (values - y) / 16)
        phi = torch.zeros(16, 3721, dtype=torch.float64)
        phi[np.arange(16)[:, None], torch.as_tensor(idx[0], dtype=torch.long)] = 1.0
        phi[:, -1] = 0.0
        loss = ((phi @ weights - torch.as_tensor(y[0])) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert np.allclose(q.theta[0], weights.detach().numpy(), atol=1e-12)


def test_resume_from_a_checkpoint_continues_exactly(tmp_path):
    params = LinearDQNParams(batch_size=16, replay_size=100, target_period=2)
    straight = LinearDQNAgent(params, _contexts(tmp_path / "straight", [3, 4]))
    straight.learn_episodes(6)
    first = LinearDQNAgent(params, _contexts(tmp_path / "first", [3, 4]))
    first.learn_episodes(3)
    (tmp_path / "ckpt").mkdir()
    first.save(tmp_path / "ckpt")
    second = LinearDQNAgent(params, _contexts(tmp_path / "second", [3, 4]))
    second.load(tmp_path / "ckpt")
    second.learn_episodes(3)
    assert np.array_equal(second.q.theta, straight.q.theta) and second.steps == straight.steps
    assert [_errors(c)[-3:] for c in second.contexts] == [_errors(c)[-3:] for c in straight.contexts]


def test_learns_b3_then_b1_far_below_random_play(tmp_path):
    contexts = _contexts(tmp_path, range(8))
    LinearDQNAgent(LinearDQNParams(), contexts).learn_episodes(30)
    late = np.mean([_errors(c)[20:] for c in contexts])
    env, rng, random_errors = make_env(GohrEnvParams(rule="paper/b3_then_b1"), 0), np.random.default_rng(0), []
    for _ in range(10):
        env.reset()
        errors, done = 0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(rng.integers(144)))
            errors, done = errors + (reward < 0), terminated or truncated
        random_errors.append(errors)
    assert late < 3 and late * 30 < np.mean(random_errors)


def test_masking_explores_only_occupied_cells(tmp_path):
    contexts = _contexts(tmp_path, [1])
    agent = LinearDQNAgent(LinearDQNParams(mask_actions=True, batch_size=16), contexts)
    agent.learn_episodes(2)
    kinds = agent.replay.arrays["kind"][0, :agent.replay.size[0]]
    assert (kinds != agent.empty).all()  # every move addressed a piece


def test_build_trial_gives_a_batched_agent_a_batch_of_one(tmp_path):
    from zoo import build_trial
    from zoo.spec import load_spec_text

    registry = get_registry()
    spec = load_spec_text("env: {type: gohr, rule: paper/color_match, horizon: 20}\n"
                          "agent: {type: gohr-linear-dqn, batch_size: 16}\nbudget: {steps: 200}\n", registry)
    built = build_trial(spec, registry, seed=3, trial=0, directory=tmp_path)
    built.agent.learn(200)
    built.logger.close()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert sum(row.get("episode_moves", 0) for row in rows) == 200
    built.agent.close()
