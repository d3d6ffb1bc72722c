"""LBC's voting bandit population (LBC Section 4.2, Appendix E): known answers and the mechanics of one
population (learning: test_bandits_learning.py)."""

import numpy as np
import pytest
from zoo_lbc.bandits import UCBBandit, VotingParams, VotingPopulation, vote

from zoo import BehaviorSpace, Coordinate

ARMS = BehaviorSpace((Coordinate("arm", 0.0, 10.0, 1.0),), (0.0,))


def test_the_papers_voting_example():
    proposals = np.array([[1, 2], [1, 3], [2, 4], [5, 1], [1, 2], [2, 1], [1, 4]])  # 7 bandits, D = 2
    assert sorted(proposals.ravel().tolist()) == sorted([1, 2, 1, 3, 2, 4, 5, 1, 1, 2, 2, 1, 1, 4])
    assert vote(proposals, np.random.default_rng(0)) == 1  # 6 votes against 4
    rng = np.random.default_rng(1)
    ties = np.bincount([vote(np.array([3, 7, 3, 7, 1]), rng) for _ in range(4000)], minlength=8)
    assert ties[1] == 0 and abs(ties[3] - 2000) < 150


def test_ucb_score():
    bandit = UCBBandit(3, c=1.0)
    bandit.N[:], bandit.S[:] = [1, 0, 3], [1.0, 0.0, 9.0]  # means 1 and 3 on the visited arms
    bonus = np.sqrt(np.log(5) / np.array([2, 1, 4]))
    assert bandit.scores() == pytest.approx(np.array([-1.0, 0.0, 1.0]) + bonus)
    bandit.c = 0.0
    assert bandit.scores() == pytest.approx([-1.0, 0.0, 1.0])
    bandit.S[:] = [2.0, 0.0, 6.0]  # equal means: std 0 is guarded
    assert np.all(np.isfinite(bandit.scores())) and bandit.scores() == pytest.approx([0, 0, 0])


def test_replacement_every_50_updates():
    controller = VotingPopulation(VotingParams(), ARMS, np.random.default_rng(0))
    for k in range(150):
        choice = controller.sample()
        controller.update(choice, float(k))
    bandits = controller.populations[0]
    assert controller.replacements == 3 and len(bandits) == 7
    assert all(0.5 <= b.c <= 1.5 for b in bandits)
    assert sorted(b.N.sum() for b in bandits)[-1] == 150  # a bandit never replaced saw every update
    fresh = VotingPopulation(VotingParams(), ARMS, np.random.default_rng(0))
    for _ in range(50):
        fresh.update(fresh.sample(), 1.0)
    assert sorted(b.N.sum() for b in fresh.populations[0]) == [0] + [50] * 6  # the new one starts empty
