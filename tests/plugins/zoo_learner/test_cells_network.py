"""The cells torso: one encoder and one advantage head shared by all cells, actions laid out cell by cell."""

import re

import pytest
import torch
from zoo_learner.networks import CellsRecurrentNet, NetworkParams, build_network

GOHR_OBS, GOHR_ACTIONS = 368, 144  # 36 cells x (4 shapes + 4 colors), then 80 global features; 36 x 4 buckets


def gohr_net(heads=1, lstm=8, **params):
    torch.manual_seed(0)
    return build_network(NetworkParams(torso="cells", hidden=[16, 12], embedding=10, lstm=lstm, **params),
                         (GOHR_OBS,), GOHR_ACTIONS, heads=heads)


def random_board(batch=3):
    obs = torch.zeros(batch, GOHR_OBS)
    for b in range(batch):
        for cell in torch.randperm(36)[:9]:
            obs[b, 8 * cell + torch.randint(0, 4, ())] = 1.0
            obs[b, 8 * cell + 4 + torch.randint(0, 4, ())] = 1.0
    obs[:, 288 + 2] = 1.0  # the last move's bucket
    return obs


def test_shapes_of_step_and_unroll_with_two_heads():
    net = gohr_net(heads=2)
    assert isinstance(net, CellsRecurrentNet)
    (adv, value), state = net.step(random_board(), net.initial_state(3))
    assert adv.shape == (3, 2, GOHR_ACTIONS) and value.shape == (3, 2) and state.shape == (3, 16)
    obs = random_board(5 * 3).unflatten(0, (5, 3))
    adv, value = net.unroll(obs, net.initial_state(3), torch.ones(5, 3, dtype=torch.bool), burn_in=2)
    assert adv.shape == (3, 3, 2, GOHR_ACTIONS) and value.shape == (3, 3, 2)


def test_actions_are_laid_out_cell_by_cell_from_one_shared_head():
    """action = cell * 4 + bucket, each cell's 4 advantages = head(cell embedding, core output)."""
    net = gohr_net(lstm=0)
    obs = random_board(2)
    with torch.no_grad():
        summary, cells = net.torso(obs)
        (adv, _), _ = net.step(obs, net.initial_state(2))
        for cell in (0, 7, 35):
            expected = net.adv_head(torch.cat([cells[:, cell], summary], dim=1))
            assert torch.allclose(adv[:, 0, 4 * cell:4 * cell + 4], expected, atol=1e-6)


def test_cells_with_equal_contents_and_position_vectors_get_equal_advantages():
    net = gohr_net()
    obs = random_board(1)
    obs[0, :288] = 0.0
    obs[0, 8 * 3 + 1] = obs[0, 8 * 3 + 6] = obs[0, 8 * 20 + 1] = obs[0, 8 * 20 + 6] = 1.0  # same piece, cells 3 and 20
    with torch.no_grad():
        (adv, _), _ = net.step(obs, net.initial_state(1))
        assert not torch.allclose(adv[0, 0, 12:16], adv[0, 0, 80:84])  # positions differ
        net.torso.position[20] = net.torso.position[3]
        (adv, _), _ = net.step(obs, net.initial_state(1))
        assert torch.allclose(adv[0, 0, 12:16], adv[0, 0, 80:84], atol=1e-6)


def test_unroll_equals_stepping_one_row_at_a_time():
    net = gohr_net(heads=2)
    obs = random_board(6 * 2).unflatten(0, (6, 2))
    state0 = 0.1 * torch.randn(2, net.state_size)
    with torch.no_grad():
        adv, value = net.unroll(obs, state0, torch.ones(6, 2, dtype=torch.bool), burn_in=0)
        state = state0
        for t in range(6):
            (a, v), state = net.step(obs[t], state)
            assert torch.allclose(adv[t], a, atol=1e-5) and torch.allclose(value[t], v, atol=1e-5)


def test_separate_networks_each_get_the_cells_torso():
    group = build_network(NetworkParams(torso="cells", hidden=[8], embedding=8, lstm=4), (GOHR_OBS,), GOHR_ACTIONS,
                          heads=3, separate=True)
    assert all(isinstance(net, CellsRecurrentNet) for net in group.nets)
    (adv, value), _ = group.step(random_board(2), group.initial_state(2))
    assert adv.shape == (2, 3, GOHR_ACTIONS) and value.shape == (2, 3)


@pytest.mark.parametrize("obs_shape,actions,message", [
    ((100,), 144, "at least cells * cell_features = 288"),
    ((368,), 100, "divisible by cells = 36"),
    ((3, 10, 10), 144, "flat observations"),
])
def test_observations_and_actions_that_do_not_fit_are_refused(obs_shape, actions, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        build_network(NetworkParams(torso="cells"), obs_shape, actions)
