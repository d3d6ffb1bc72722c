"""E shapes the data, not only the lambdas (docs/algorithms/gdi.md).

A fixed, untrained network (no LSTM; its advantage head scaled by 0.3, so that only large 1/tau
make it greedy) acts through GDI-I3's mixture policy in 16 envs whose reward is 1 for the network's
greedy action and 0 otherwise (episodes of 10 steps). The entropy of mu in the sequences the actor
stores is averaged over the first 5% and the last 20% of the sequences, pooled over seeds 0-3.

Calibration (600 vector steps, ~290 episodes per env slot; first -> last mean entropy of mu):
seeds 0-3: GDI bandits 1.094 -> 0.929, Random Selection 1.075 -> 1.060; seeds 4-7: 1.241 -> 1.036
and 1.125 -> 1.132; seeds 8-11: 1.047 -> 1.007 and 1.153 -> 1.147. Random Selection never moved
by more than 0.015, and GDI ended at least 0.10 below it with the same networks.
"""

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium import spaces
from zoo_bandits.classic import Uniform
from zoo_bandits.population import BanditPopulation, PopulationParams
from zoo_gdi.builder import GDIBuilder
from zoo_gdi.params import GDIParams
from zoo_learner.actor import VectorActor
from zoo_learner.networks import NetworkParams, build_network

from zoo import Params


class GreedyPays(gymnasium.Env):
    """Cycles through fixed observations (from a random start); reward 1 for the given greedy action."""

    action_space = spaces.Discrete(6)

    def __init__(self, observations: np.ndarray, greedy: np.ndarray):
        self.observation_space = spaces.Box(-np.inf, np.inf, observations.shape[1:], np.float32)
        self.observations, self.greedy = observations, greedy

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.k = int(self.np_random.integers(len(self.observations))), 0
        return self.observations[self.t % len(self.observations)], {}

    def step(self, action):
        reward = float(action == self.greedy[self.t % len(self.observations)])
        self.t, self.k = self.t + 1, self.k + 1
        return self.observations[self.t % len(self.observations)], reward, self.k >= 10, False, {}


def stored_entropies(controller, seed: int, envs: int = 16, steps: int = 600) -> np.ndarray:
    """Mean entropy of mu over the trained rows of each stored sequence, in the order they were stored."""
    torch.manual_seed(seed)
    net = build_network(NetworkParams(hidden=[16], lstm=0), (4,), 6)
    observations = np.random.default_rng(seed).normal(size=(7, 4)).astype(np.float32)
    with torch.no_grad():
        net.adv_head.weight.mul_(0.3)
        net.adv_head.bias.mul_(0.3)
        (adv, _), _ = net.step(torch.as_tensor(observations), net.initial_state(7))
    greedy = adv[:, 0].argmax(-1).numpy()
    builder = GDIBuilder(GDIParams(), heads=1)
    space = builder.behavior_space()
    sequences = []
    actor = VectorActor(gymnasium.vector.SyncVectorEnv([lambda: GreedyPays(observations, greedy)] * envs), net,
                        builder.behavior_policy(), [controller(space, np.random.default_rng([seed, i])) for i in range(envs)],
                        sequences.append, burn_in=0, length=10, pull=lambda: (0, net.state_dict()), pull_every=10**6,
                        generator=torch.Generator().manual_seed(seed))
    actor.reset(seed=seed)
    actor.run(steps)
    mus = [s["mu"][s["train"]] for s in sequences]
    return np.array([-(mu * np.log(np.clip(mu, 1e-30, None))).sum(-1).mean() for mu in mus])


def first_and_last(controller) -> tuple[float, float]:
    first, last = [], []
    for seed in range(4):
        entropy = stored_entropies(controller, seed)
        window = len(entropy) // 20
        first.append(entropy[:window].mean())
        last.append(entropy[-4 * window:].mean())
    return float(np.mean(first)), float(np.mean(last))


@pytest.mark.slow  # a learning check: the behavior entropy over training
def test_entropy_of_stored_mu_falls_under_gdi_and_stays_flat_under_random_selection():
    gdi_first, gdi_last = first_and_last(lambda space, rng: BanditPopulation(PopulationParams(), space, rng))
    random_first, random_last = first_and_last(lambda space, rng: Uniform(Params(), space, rng))
    assert gdi_first - gdi_last >= 0.08
    assert abs(random_first - random_last) <= 0.05
    assert gdi_last <= random_last - 0.05
