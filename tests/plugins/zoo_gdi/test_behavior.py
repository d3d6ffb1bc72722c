"""GDI's behavior spaces and what a point of each means: pi_lambda = eps softmax(A1/tau1) + (1 - eps) softmax(A2/tau2)
(Appendix F, Eq. 10 and 12), the search ranges of Table 6, and the selection ablations of Table 20."""

import pytest
import torch
from zoo_gdi.builder import GDIBuilder
from zoo_gdi.params import GDIParams

# two rows of (heads=2, actions=4): the heads disagree on the best action; row 1 has a tie in head 1, which
# argmax (and so the greedy component) resolves to the first of the tied actions
ADV = torch.tensor([[[0.3, -1.2, 2.0, 0.5], [1.5, 0.2, -0.4, 0.0]],
                    [[-0.5, 0.8, 0.1, 0.6], [0.0, 1.0, 1.0, -2.0]]], dtype=torch.float64)
MIXTURES = ["none", "fixed_selection", "random_selection"]


def mu(ablation, points, heads=2):
    """The behavior policy of GDI-I3 (`heads=1`, head 0 of ADV) or GDI-H3 at one point per row."""
    builder = GDIBuilder(GDIParams(ablation=ablation), heads)
    adv = ADV[:, :heads]
    return builder.behavior_policy()(adv, None, torch.tensor(points, dtype=torch.float64)).exp()


def greedy(a):
    return torch.nn.functional.one_hot(a.argmax(-1), a.shape[-1]).to(a.dtype)


@pytest.mark.parametrize("ablation", MIXTURES)
def test_three_coordinates_are_the_two_inverse_temperatures_and_eps(ablation):
    points = [[2.0, 0.5, 0.3], [0.0, 7.0, 0.8]]
    a1, a2 = ADV[:, 0], ADV[:, 1]
    expected = torch.stack([p[2] * torch.softmax(p[0] * a1[i], -1) + (1 - p[2]) * torch.softmax(p[1] * a2[i], -1)
                            for i, p in enumerate(points)])
    assert torch.allclose(mu(ablation, points), expected, rtol=0, atol=1e-12)
    one_head = torch.stack([p[2] * torch.softmax(p[0] * a1[i], -1) + (1 - p[2]) * torch.softmax(p[1] * a1[i], -1)
                            for i, p in enumerate(points)])
    assert torch.allclose(mu(ablation, points, heads=1), one_head, rtol=0, atol=1e-12)


def test_boltzmann_selection_is_softmax_of_the_first_head():
    expected = torch.stack([torch.softmax(3.0 * ADV[0, 0], -1), torch.softmax(0.5 * ADV[1, 0], -1)])
    assert torch.allclose(mu("boltzmann_selection", [[3.0], [0.5]]), expected, rtol=0, atol=1e-12)


def test_eps_greedy_selection_is_uniform_with_probability_eps_else_the_last_heads_argmax():
    expected = torch.stack([0.2 / 4 + 0.8 * greedy(ADV[0, 1]), 0.7 / 4 + 0.3 * greedy(ADV[1, 1])])
    assert torch.allclose(mu("eps_greedy_selection", [[0.2], [0.7]]), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ablation", MIXTURES + ["boltzmann_selection", "eps_greedy_selection"])
def test_default_points(ablation):
    """softmax(A) for GDI and the mixture ablations (Table 6's fixed lambda) and for Boltzmann selection;
    0.1-greedy for eps-greedy selection."""
    builder = GDIBuilder(GDIParams(ablation=ablation), 2)
    default = [list(builder.behavior_space().default)] * 2
    if ablation in MIXTURES:
        assert default[0] == [1.0, 0.0, 1.0]  # Table 6's Fixed Selection point [1/tau1, 1/tau2, eps], as stored
    expected = (0.1 / 4 + 0.9 * greedy(ADV[:, 1]) if ablation == "eps_greedy_selection"
                else torch.softmax(ADV[:, 0], -1))
    assert torch.allclose(mu(ablation, default), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("ablation", MIXTURES + ["boltzmann_selection", "eps_greedy_selection"])
def test_search_ranges_of_table_6(ablation):
    """1/tau in [0, 50] in blocks of 1, eps in [0, 1] in blocks of 0.1; the named coordinates per ablation."""
    space = GDIBuilder(GDIParams(ablation=ablation), 1).behavior_space()
    names = {"boltzmann_selection": ("beta",), "eps_greedy_selection": ("eps",)}.get(ablation, ("beta1", "beta2", "eps"))
    assert space.names == names
    for c in space.coordinates:
        low, high, width = (0.0, 1.0, 0.1) if c.name == "eps" else (0.0, 50.0, 1.0)
        assert (c.low, c.high, c.blocks) == (low, high, round((high - low) / width))
        assert c.edges(1) == pytest.approx((low + width, low + 2 * width))
