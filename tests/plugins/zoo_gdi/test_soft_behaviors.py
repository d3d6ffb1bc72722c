"""GDI's default E keeps playing soft behaviors once greedy ones return more (docs/substrate.md, the relapse).

On GOHR a near-greedy pi_lambda repeats a rejected move for the rest of the board (the board does not
change), and it gets no gradient to unlearn it: with Q = A - E_pi A + V and the softmax policy gradient,
both of the taken action's terms scale with 1 - pi(a). Only episodes with a soft component (1/tau
small) bring the corrections. Searching 1/tau itself, the bandits stopped playing those episodes once
the agent had learned (their returns are lower) and GDI-I3 relapsed to random play in 6 of 8 seeds;
searching App. G's x = log(1 + 1/tau) they keep playing them and none relapsed.
"""

import numpy as np
import pytest
import torch
from loss_reference import pull_on_a_repeated_action
from zoo_gdi.behavior import behavior_space
from zoo_gdi.loss import GDILoss
from zoo_gdi.params import GDIH3Params, GDIParams
from zoo_gdi.plugin import default_controller_of
from zoo_learner.agent import default_controller

SOFT = 5.0  # 1/tau below this: a component that explores


def soft_share(choice) -> float:
    """The weight of pi_lambda's components whose inverse temperature is below SOFT."""
    beta1, beta2, eps = choice.value
    return eps * (beta1 < SOFT) + (1 - eps) * (beta2 < SOFT)


def played_soft_share(controller, rng, episodes=400) -> float:
    """Mean soft share over the second half of `episodes` episodes whose return falls with the soft share
    (a learned agent: each exploring move may cost an error)."""
    shares = []
    for k in range(episodes):
        choice = controller.sample()
        share = soft_share(choice)
        controller.update(choice, -10.0 * share + rng.normal())
        if k >= episodes // 2:
            shares.append(share)
    return float(np.mean(shares))


def own_controller(params: GDIParams):
    name, controller_params = default_controller_of(params)
    return default_controller(name, **controller_params)(behavior_space(params.ablation), np.random.default_rng(0))


def test_the_default_bandits_keep_playing_soft_behaviors_after_learning():
    name, params = default_controller_of(GDIParams())
    make = default_controller(name, **params)
    space = behavior_space("none")
    shares = [played_soft_share(make(space, np.random.default_rng(seed)), np.random.default_rng(100 + seed))
              for seed in range(6)]
    # x = log(1 + 1/tau): 0.04 to 0.15 per seed (mean 0.10); over 1/tau itself: 0.005 to 0.02 (mean 0.011)
    assert np.mean(shares) > 0.05, shares


def below_half_of_x(controller, draws=300) -> float:
    """The share of drawn 1/tau in the lower half of x's range: log(1 + 1/tau) < log(51) / 2 is 1/tau < sqrt(51) - 1
    = 6.1, half of the draws for bandits over x, an eighth for bandits over 1/tau itself (before any return)."""
    return float(np.mean([controller.sample().value[0] < np.sqrt(51) - 1 for _ in range(draws)]))


@pytest.mark.parametrize("ablation", ["none", "boltzmann_selection"])
def test_the_default_bandits_search_inverse_temperatures_as_log1p(ablation):
    assert 0.3 < below_half_of_x(own_controller(GDIParams(ablation=ablation))) < 0.7


@pytest.mark.parametrize("params", [GDIParams(preset="minatar"), GDIH3Params(preset="minatar"),
                                    GDIParams(ablation="boltzmann_selection", bandit_scale="linear")],
                         ids=["gdi-i3-minatar", "gdi-h3-minatar", "linear"])
def test_the_minatar_presets_and_a_linear_scale_search_inverse_temperatures_themselves(params):
    assert below_half_of_x(own_controller(params)) < 0.25


def test_a_greedy_behavior_leaves_its_taken_action_without_gradient():
    """Why the soft episodes matter: at 1/tau = 50 the loss on a repeated wrong move barely moves the
    advantage that chose it; at 1/tau = 1 it pushes it down."""
    loss = GDILoss(ablation="none", burn_in=0, gamma=0.9, rho_bar=1.05, c_bar=1.05, scales=(1.0, 10.0, 10.0),
                   shapings=("log",))
    def grad_of_taken(beta):  # the wrong move: > 0 pushes it down
        return pull_on_a_repeated_action(loss, [1.0, 0.0, 0.5, 0.2], -2.0, torch.tensor([[beta, beta, 1.0]]), -1.0)

    assert grad_of_taken(1.0) > 1.0
    assert abs(grad_of_taken(50.0)) < 1e-6
