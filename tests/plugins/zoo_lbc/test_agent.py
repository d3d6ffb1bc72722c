"""LBC through specs: presets, validation, ablation wiring, any meta-controller, learning.

Calibration of the learning test (tests/toy_envs.Corridor, length 8, horizon 20; cpu_small with an
MLP of 32 and an LSTM of 16; 8,000 steps; mean return of the last 50 training episodes; uniformly
random policy 0.08): seeds 1 and 2 measured 0.92 and 0.94. Threshold 0.6 on seed 1.
"""

import json

import numpy as np
import pytest
import torch
from toy_envs import corridor_context
from zoo_lbc.params import LBCParams
from zoo_lbc.plugin import make_lbc
from zoo_testing import TINY_SUBSTRATE, cartpole_spec, trial

from zoo import ZooError
from zoo.errors import SpecError

SMALL = f"{{type: lbc, {TINY_SUBSTRATE}"


def test_presets():
    paper = cartpole_spec("{type: lbc, preset: paper}").agent
    assert [(m.gamma, m.shaping) for m in paper.members] == [(0.997, "rs1"), (0.999, "rs2"), (0.99, "rs3")]
    assert (paper.burn_in, paper.length, paper.batch, tuple(paper.loss_scales)) == (40, 80, 64, (1.0, 5.0, 5.0))
    assert paper.optimizer.lr == 5.3e-4 and paper.network.lstm == 256
    small = cartpole_spec("{type: lbc}").agent
    assert (small.num_envs, small.controller_scope, len(small.members)) == (8, "shared", 3)


@pytest.mark.parametrize("agent,message", [
    ("{type: lbc, ablation: reduce}", "ablation"),
    ("{type: lbc, members: [{gamma: 0.9, shaping: rs1}]}", "members"),
    ("{type: lbc, members: [{gamma: 1.5, shaping: rs1}, {gamma: 0.9, shaping: rs2}]}", "gamma"),
])
def test_bad_params_are_one_clear_message(agent, message):
    with pytest.raises(SpecError) as error:
        cartpole_spec(agent)
    assert message in str(error.value) and len(error.value.problems) == 1


@pytest.mark.parametrize("ablation,networks,dim,controller", [
    ("none", 3, 6, "VotingPopulation"), ("reduce_H", 1, 6, "VotingPopulation"),
    ("reduce_H_and_Psi", 1, 1, "VotingPopulation"), ("random_selection", 3, 6, "Uniform"),
])
def test_ablation_wiring(ablation, networks, dim, controller, tmp_path):
    built = trial(cartpole_spec(SMALL + f", ablation: {ablation}}}"), tmp_path)
    agent = built.agent
    net = agent.system.learner.net
    assert len(getattr(net, "nets", [net])) == networks and agent.space.dim == dim
    assert type(agent.controllers[0]).__name__ == controller
    agent.learn(200)
    assert agent.system.learner.updates > 0
    agent.close()


def test_ucb_and_replacement_ablations_configure_the_bandits(tmp_path):
    no_ucb = trial(cartpole_spec(SMALL + ", ablation: no_ucb}"), tmp_path / "a").agent.controllers[0]
    assert all(b.c == 0 for bandits in no_ucb.populations for b in bandits)
    no_replacement = trial(cartpole_spec(SMALL + ", ablation: no_replacement}"), tmp_path / "b").agent.controllers[0]
    assert no_replacement.params.replace_every == 0
    with pytest.raises(ZooError, match="remove the meta_controller block"):
        trial(cartpole_spec(SMALL + ", ablation: random_selection}", extra="meta_controller: {type: ucb1}\n"),
              tmp_path / "c")


@pytest.mark.parametrize("controller", ["lbc_bandits", "gdi_bandits", "fixed", "ucb1", "thompson"])
def test_any_meta_controller_runs_under_lbc(controller, tmp_path):
    built = trial(cartpole_spec(SMALL + "}", extra=f"meta_controller: {{type: {controller}}}\n"), tmp_path)
    built.agent.learn(200)
    assert built.agent.system.learner.updates > 0
    built.agent.close()


@pytest.mark.slow  # a learning check
def test_learns_the_corridor(tmp_path):
    torch.set_num_threads(1)
    context = corridor_context(tmp_path, 1, 8000)
    agent = make_lbc(LBCParams.model_validate({"network": {"hidden": [32], "lstm": 16}}), context)
    agent.learn(8000)
    context.logger.close()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    returns = [r["episode_return"] for r in rows if "episode_return" in r]
    assert np.mean(returns[-50:]) >= 0.6
    agent.close()
