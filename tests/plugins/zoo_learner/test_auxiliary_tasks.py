"""The auxiliary forward and inverse dynamics tasks (docs/algorithms/substrate.md#auxiliary-dynamics-tasks):
both losses on hand-made embeddings with a terminal and padding, the detached forward target, the
gradient reaching every torso, their place in the GDI, DiCE and LBC losses, the presets, and exact agent_runs."""

import math
import random

import numpy as np
import pytest
import torch
from zoo_dice.builder import DiCEBuilder
from zoo_dice.params import DiCEParams
from zoo_gdi.builder import GDIBuilder
from zoo_gdi.params import GDIParams
from zoo_lbc.builder import LBCBuilder
from zoo_lbc.params import LBCParams
from zoo_learner.learner import time_major
from zoo_learner.losses import AuxiliaryTasks, forward_dynamics_loss, inverse_dynamics_loss
from zoo_learner.networks import Dynamics, DynamicsHeads
from zoo_learner.params import AuxiliaryParams

OBS, ACTIONS = 3, 3

# Two sequences after one burn-in row, T = 3 transitions each. Sequence 0 is three trained steps and a
# bootstrap row. Sequence 1's episode ends after one step: row 0 is the terminal step, row 1 the final
# observation (its bootstrap row), rows 2 and 3 padding whose embeddings are garbage (9s).
Z = torch.tensor([[[0.0, 0.0], [0.0, 1.0]],
                  [[1.0, 0.0], [2.0, 2.0]],
                  [[1.0, 1.0], [9.0, 9.0]],
                  [[2.0, 1.0], [9.0, 9.0]]])
PREDICTED = torch.tensor([[[1.0, 0.0], [2.0, 0.0]],  # errors (0, 0) and (0, -2): 0 and 0.5 * (0 + 4) / 2 = 1
                          [[1.0, 2.0], [0.0, 0.0]],  # (0, 1): 0.25; padding
                          [[0.0, 1.0], [0.0, 0.0]]])  # (-2, 0): 1; padding
P_HALF, P_PADDING = [0.5, 0.25, 0.25], [0.9, 0.05, 0.05]
#: the taken actions after burn-in (the bootstrap and padding rows' are what the actor stored there)
ACTION = torch.tensor([[0, 2], [1, 1], [0, 1], [2, 0]])
#: probabilities of the inverse model: the taken action has 1/2, 1/4, 1/2 (sequence 0) and 1/4 (sequence 1's
#: terminal step) on the transitions, 1/20 on padding
PROBS = torch.tensor([[P_HALF, P_HALF], [P_HALF, P_PADDING], [P_HALF, P_PADDING]])


def hand_batch() -> dict[str, torch.Tensor]:
    """The rows' bookkeeping, with a burn-in row (action 1, trained 0) in front."""
    train = torch.tensor([[False, False], [True, True], [True, False], [True, False], [False, False]])
    done = torch.zeros(5, 2)
    done[1, 1] = 1.0
    return {"action": torch.cat([torch.tensor([[1, 1]]), ACTION]), "train": train, "done": done,
            "reward": torch.zeros(5, 2), "mu": torch.full((5, 2, ACTIONS), 1 / ACTIONS), "obs": torch.zeros(5, 2, 1),
            "state": torch.zeros(2, 1), "valid": torch.ones(5, 2, dtype=torch.bool)}


class HandMadeNet:
    """A network whose embeddings and dynamics predictions are the hand-made tensors above."""

    def __init__(self):
        self.seen_actions = None

    def unroll_embedded(self, obs, state, valid, burn_in):
        return ("adv", "value"), (Z,)

    def dynamics(self, embeddings, action):
        self.seen_actions = action
        return [Dynamics(PREDICTED, embeddings[0][1:], PROBS.log())]


def test_both_losses_on_hand_made_embeddings_skip_padding_but_keep_the_terminal_step():
    net = HandMadeNet()
    heads, total, parts = AuxiliaryTasks(forward=2.0, inverse=0.5).unroll(net, hand_batch(), burn_in=1)
    assert heads == ("adv", "value")
    assert torch.equal(net.seen_actions, ACTION[:-1])  # the actions after burn-in, row t's with row t
    # forward: (0 + 0.25 + 1) on sequence 0 and 1 on sequence 1's terminal step, over 4 transitions
    assert parts["loss_forward"] == pytest.approx(2.25 / 4)
    # inverse: -log of 1/2, 1/4, 1/2 and (terminal step) 1/4: 6 log 2 over 4 transitions
    assert parts["loss_inverse"] == pytest.approx(1.5 * math.log(2), rel=1e-6)
    assert float(total) == pytest.approx(2.0 * 2.25 / 4 + 0.5 * 1.5 * math.log(2), rel=1e-6)


def test_each_task_is_left_out_at_weight_zero_and_both_off_is_the_plain_unroll():
    _, total, parts = AuxiliaryTasks(forward=0.0, inverse=1.0).unroll(HandMadeNet(), hand_batch(), burn_in=1)
    assert set(parts) == {"loss_inverse"} and float(total) == pytest.approx(1.5 * math.log(2), rel=1e-6)
    _, total, parts = AuxiliaryTasks(forward=1.0, inverse=0.0).unroll(HandMadeNet(), hand_batch(), burn_in=1)
    assert set(parts) == {"loss_forward"} and float(total) == pytest.approx(2.25 / 4)

    class PlainNet:  # no embeddings, no dynamics models: what every loss unrolls when the tasks are off
        def unroll(self, obs, state, valid, burn_in):
            return "adv", "value"

    assert AuxiliaryTasks().unroll(PlainNet(), hand_batch(), burn_in=1) == (("adv", "value"), 0.0, {})


def test_the_forward_target_is_detached_and_the_inverse_model_sees_both_embeddings():
    torch.manual_seed(0)
    heads = DynamicsHeads(4, ACTIONS, AuxiliaryParams(forward=1.0, inverse=1.0, hidden=8))
    z = torch.randn(3, 2, 4, requires_grad=True)  # rows 0 and 1 start transitions; row 2 only ends one
    action, mask = torch.tensor([[0, 1], [2, 0]]), torch.ones(2, 2)
    dynamics = heads(z, action)
    (grad,) = torch.autograd.grad(forward_dynamics_loss(dynamics.predicted, dynamics.target, mask), z)
    assert grad[2].abs().sum() == 0 and grad[:2].abs().sum() > 0
    (grad,) = torch.autograd.grad(inverse_dynamics_loss(dynamics.logits, action, mask), z)
    assert (grad.abs().sum((1, 2)) > 0).all()


def test_models_are_built_only_for_the_tasks_switched_on():
    on = DynamicsHeads(4, ACTIONS, AuxiliaryParams(forward=1.0, inverse=0.0, hidden=0))
    assert on.inverse_model is None and tuple(on.forward_model.weight.shape) == (4, 4 + ACTIONS)
    builder = GDIBuilder(GDIParams(network={"hidden": [16], "lstm": 8}), heads=1)
    assert not [name for name in builder.make_network((OBS,), ACTIONS).state_dict() if "dynamics" in name]


SMALL = {"burn_in": 2, "length": 4, "network": {"hidden": [16], "lstm": 8}}
AGENTS = {
    "gdi-i3": (lambda **kw: GDIBuilder(GDIParams(**SMALL, **kw), heads=1), 1),
    "gdi-h3": (lambda **kw: GDIBuilder(GDIParams(**SMALL, **kw), heads=2), 2),  # two networks
    "dice": (lambda **kw: DiCEBuilder(DiCEParams(**SMALL, **kw)), 1),
    "lbc": (lambda **kw: LBCBuilder(LBCParams(**SMALL, **kw)), 3),  # three members
}


def random_batch(builder, net, size=3, seed=0):
    """Sequences of random observations and actions under a uniform mu, the last one's episode ending
    after 2 of its 4 trained rows, at the behavior space's default point."""
    rng = np.random.default_rng(seed)
    rows = builder.params.burn_in + builder.params.length + 1
    train = np.zeros((size, rows), bool)
    train[:, builder.params.burn_in:-1] = True
    train[-1, builder.params.burn_in + 2:] = False
    done = np.zeros((size, rows), np.float32)
    done[-1, builder.params.burn_in + 1] = 1.0
    behavior = np.tile(np.array(builder.behavior_space().default, np.float32), (size, 1))
    return time_major({
        "obs": rng.normal(size=(size, rows, OBS)).astype(np.float32), "action": rng.integers(ACTIONS, size=(size, rows)),
        "reward": rng.normal(size=(size, rows)).astype(np.float32), "done": done,
        "mu": np.full((size, rows, ACTIONS), 1 / ACTIONS, np.float32), "valid": np.ones((size, rows), bool),
        "train": train, "state": np.zeros((size, net.state_size), np.float32), "behavior": behavior,
        "arm": np.zeros(size, np.int64)})


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_the_agent_loss_adds_the_weighted_tasks_and_their_gradient_reaches_every_torso(agent):
    make, networks = AGENTS[agent]
    on = make(auxiliary={"forward": 2.0, "inverse": 0.5, "hidden": 8})
    torch.manual_seed(0)
    net = on.make_network((OBS,), ACTIONS)
    batch = random_batch(on, net)
    total, parts = on.make_loss()(net, batch)

    off = make()
    plain = off.make_network((OBS,), ACTIONS)
    plain.load_state_dict({k: v for k, v in net.state_dict().items() if "dynamics" not in k})
    without, _ = off.make_loss()(plain, batch)
    assert float((total - without).detach()) == pytest.approx(2.0 * parts["loss_forward"] + 0.5 * parts["loss_inverse"], rel=1e-4)

    _, auxiliary, _ = on.make_loss().auxiliary.unroll(net, batch, on.params.burn_in)
    auxiliary.backward()
    first_layers = [p for name, p in net.named_parameters() if name.endswith("torso.0.weight")]
    assert len(first_layers) == networks
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in first_layers)


def test_the_paper_presets_of_gdi_and_lbc_switch_both_tasks_on_and_the_cpu_presets_leave_them_off():
    for params in (GDIParams(preset="paper"), LBCParams(preset="paper")):
        assert (params.auxiliary.forward, params.auxiliary.inverse) == (1.0, 1.0)
    for params in (GDIParams(), LBCParams(), DiCEParams(), DiCEParams(preset="paper")):  # DiCE's Table 5 has none
        assert (params.auxiliary.forward, params.auxiliary.inverse) == (0.0, 0.0)
    assert GDIParams(preset="paper", auxiliary={"inverse": 0.0}).auxiliary.forward == 1.0  # the block merges
    builder = GDIBuilder(GDIParams(preset="paper", network={"torso": "mlp", "hidden": [16], "lstm": 8,
                                                            "head_hidden": 0}), heads=1)
    net = builder.make_network((OBS,), ACTIONS)
    assert {"loss_forward", "loss_inverse"} <= set(builder.make_loss()(net, random_batch(builder, net))[1])


def test_a_resumed_trial_with_the_tasks_on_ends_as_an_uninterrupted_one(tmp_path, monkeypatch):
    import agent_runs

    from zoo import Interrupted, execute_run, run_trials
    from zoo.registry import get_registry

    env, params, budget = agent_runs.SPECS["gdi-h3"]
    monkeypatch.setitem(agent_runs.SPECS, "gdi-h3",
                        (env, params + ", auxiliary: {forward: 1.0, inverse: 1.0, hidden: 8}", budget))
    registry = get_registry()
    whole = agent_runs.new_run(tmp_path, "gdi-h3", "whole")
    assert execute_run(whole, registry, progress=False) == "finished"
    cut = agent_runs.new_run(tmp_path, "gdi-h3", "cut")
    answers = iter([False] * random.Random(1).randint(1, 3))
    with pytest.raises(Interrupted):
        run_trials(cut.path, [0], registry=registry, should_stop=lambda: next(answers, True))
    assert execute_run(cut, registry, progress=False) == "finished"
    assert agent_runs.rows(cut) == agent_runs.rows(whole)
    assert any("learner/loss_forward" in row for row in agent_runs.rows(whole))
    final = agent_runs.final_state(cut, "gdi-h3")
    assert final == agent_runs.final_state(whole, "gdi-h3") and "dynamics_heads" in final["learner.pt"]
