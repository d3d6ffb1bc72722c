"""After each episode the whole bandit ensemble learns its return, not only the bandit whose proposal was
played (GDI Algorithm 4 and App. G, DiCE's Bandits Vote Algorithm; LBC Section 4.3's population)."""

import numpy as np
import pytest
from zoo_bandits.population import BanditPopulation, PopulationParams
from zoo_gdi.behavior import behavior_space
from zoo_lbc.bandits import VotingParams, VotingPopulation
from zoo_lbc.behavior import behavior_space as lbc_space


@pytest.mark.parametrize("options", [{}, {"log1p_coordinates": ["beta1", "beta2"]}, {"structure": "joint"},
                                     {"smoothing": "tiles"}])
def test_every_gdi_bandit_learns_every_episode(options):
    controller = BanditPopulation(PopulationParams(**options), behavior_space("none"), np.random.default_rng(0))
    for episode, g in enumerate([-3.0, 5.0, 2.0]):
        choice = controller.sample()
        x = controller.coordinates.to_bandit(choice.value)
        before = [[b.values()[b.grid.block_of(x[group])] for b in e.bandits]
                  for e, group in zip(controller.ensembles, controller.groups)]
        controller.update(choice, g)
        for ensemble, group, values in zip(controller.ensembles, controller.groups, before):
            assert len(ensemble.bandits) == 7
            for bandit, v in zip(ensemble.bandits, values):
                block = bandit.grid.block_of(x[group])
                assert bandit.N.sum() == episode + 1 and bandit.N[block] >= 1
                # each bandit's value of the played block moves by its own lr toward the return
                assert np.isclose(bandit.values()[block], v + bandit.lr * (g - v))


def test_every_lbc_bandit_learns_every_episode():
    space = lbc_space(3, "none")
    controller = VotingPopulation(VotingParams(), space, np.random.default_rng(0))
    returns = [4.0, -1.0, 2.5]
    for episode, g in enumerate(returns):
        choice = controller.sample()
        controller.update(choice, g)
        arms = np.unravel_index(choice.arm, controller.shape)
        for bandits, arm in zip(controller.populations, arms):
            assert len(bandits) > 1
            for bandit in bandits:
                assert bandit.N.sum() == episode + 1 and bandit.S.sum() == pytest.approx(sum(returns[:episode + 1]))
                assert bandit.N[arm] >= 1
