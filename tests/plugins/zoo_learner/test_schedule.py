"""The learner's schedules: warm-up, linear decay, and a decay that ends with the budget."""

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from toy_envs import corridor_context
from zoo_gdi.params import GDIParams
from zoo_learner.agent import default_controller
from zoo_learner.builder import planned_updates
from zoo_learner.learner import Learner, ParameterServer
from zoo_learner.params import OptimizerParams, SubstrateParams

from zoo.registry import get_registry


def learner(planned, **optimizer):
    net = torch.nn.Linear(2, 1)
    return Learner(net, None, OptimizerParams(**optimizer), planned_updates=planned,
                   server=ParameterServer(net.state_dict()), push_every=1)


def test_warmup_then_linear_decay_to_zero_at_the_planned_end():
    sched = learner(100, lr=1.0, warmup=10, weight_decay=0.5).schedule
    assert sched(0) == (pytest.approx(0.1), pytest.approx(0.5))
    assert sched(9)[0] == pytest.approx(1.0)
    assert sched(55)[0] == pytest.approx(0.5)  # halfway between the end of warm-up and the planned end
    assert sched(100) == (0.0, 0.0) and sched(150) == (0.0, 0.0)
    assert learner(100, lr=1.0, warmup=0.2).warmup == 20
    assert learner(100, lr=1.0, warmup=10, decay=False).schedule(99) == (1.0, 0.01)


def test_planned_updates_scale_observed_sequences_to_the_budget():
    params = SubstrateParams(batch=4, length=10, reuse=2)
    budget = SimpleNamespace(unit="steps", amount=1000)
    assert planned_updates(params, budget) == 1000 * 2 // 40
    assert planned_updates(params, budget, steps=100, sequences=16) == 1000 * 16 * 2 // (100 * 4)
    assert planned_updates(params.model_copy(update={"planned_updates": 7}), budget, 100, 16) == 7
    assert planned_updates(params, SimpleNamespace(unit="episodes", amount=5)) == 10**9


def test_learning_rate_reaches_zero_with_the_budget_despite_padded_sequences(tmp_path):
    """Corridor episodes (7-20 steps) are shorter than the 16 trained rows of a sequence, so most
    sequences are padded: the naive plan (steps * reuse / (batch * length)) would end the decay
    at less than half the run."""
    steps = 3000
    # with the bandits over 1/tau itself, whose short episodes this run was sized for
    context = dataclasses.replace(corridor_context(tmp_path, 0, steps), meta_controller=default_controller("gdi_bandits"))
    params = GDIParams.model_validate({"num_envs": 4, "batch": 4, "length": 16, "burn_in": 2,
                                       "optimizer": {"warmup": 10}, "network": {"hidden": [8], "lstm": 0}})
    agent = get_registry().get("agent", "gdi-i3").factory(params, context)
    agent.learn(steps)
    context.logger.close()
    lrs = [row["learner/lr"] for row in map(json.loads, (tmp_path / "metrics.jsonl").read_text().splitlines())
           if "learner/lr" in row]
    agent.close()
    assert agent.system.learner.updates > 2 * planned_updates(params, context.budget)
    assert lrs[-1] < 0.1 * params.optimizer.lr
    assert min(lrs[:int(0.9 * len(lrs))]) > 0.05 * params.optimizer.lr
    assert np.all(np.diff(lrs[len(lrs) // 10:]) <= 1e-12)
