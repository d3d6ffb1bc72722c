"""UCT as the ALE paper ran it (Bellemare et al. 2013, Section 3.2): after the simulations the most
visited root child is played, not the one of highest mean; the played subtree is reused by default;
and rewards are divided by the first non-zero reward the search simulates in the episode."""

import numpy as np
import pytest
from zoo_atari.planners.params import UCTParams
from zoo_atari.planners.uct import UCT, Node

from zoo import build_trial
from zoo.registry import get_registry
from zoo.spec import load_spec_text


class Line:
    """A toy model: the state is the action history; action a pays rewards[a] at the first step, 0 after."""

    def __init__(self, rewards):
        self.actions, self.rewards, self.history = len(rewards), rewards, ()

    def clone(self):
        return self.history

    def restore(self, state):
        self.history = state

    def step(self, action):
        reward = self.rewards[action] if not self.history else 0.0
        self.history += (action,)
        return reward, len(self.history) >= 3

    def same(self, a, b):
        return a == b


def test_uct_plays_the_most_visited_root_child_not_the_best_mean():
    game = Line([0.0, 0.0, 0.0])
    search = UCT(game, simulations=0, horizon=2, exploration=1.0, gamma=1.0)
    search.root = Node((), expanded=True, visits=16)
    search.root.children = {0: Node((0,), visits=3, total=9.0),  # mean 3, the best
                            1: Node((1,), visits=10, total=10.0),  # mean 1, the most visited
                            2: Node((2,), visits=3, total=6.0)}
    assert all(search.choose(np.random.default_rng(seed)) == 1 for seed in range(5))


def test_ties_in_visits_are_broken_at_random():
    game = Line([0.0, 0.0, 0.0])
    search = UCT(game, simulations=0, horizon=2, exploration=1.0, gamma=1.0)
    search.root = Node((), expanded=True, visits=12)
    search.root.children = {a: Node((a,), visits=4, total=float(a)) for a in range(3)}
    assert {search.choose(np.random.default_rng(seed)) for seed in range(30)} == {0, 1, 2}


@pytest.mark.parametrize("given, reused", [("", True), (", reuse_tree: false", False)])
def test_the_uct_agent_reuses_the_played_subtree_by_default(given, reused, tmp_path):
    text = ("env: {type: synthetic-atari, game: corridor-with-trap, frame_skip: 8, full_action_space: false}\n"
            f"agent: {{type: uct, simulations: 4, horizon_frames: 8{given}}}\nbudget: {{episodes: 1}}\n")
    built = build_trial(load_spec_text(text, get_registry()), get_registry(), seed=1, trial=0, directory=tmp_path)
    assert built.agent.search.reuse_tree is reused
    assert UCTParams().reuse_tree is True
    built.agent.close()
    built.logger.close()


def test_rewards_are_scaled_by_the_first_nonzero_reward_the_search_simulates():
    """No reward has been received in the episode when the first search simulates action 1's -4: that
    sets the scale, and every simulated reward is divided by 4 from then on until the next episode."""
    game = Line([0.0, -4.0, 2.0])
    search = UCT(game, simulations=9, horizon=2, exploration=1.0, gamma=1.0)
    search.choose(np.random.default_rng(0))
    assert search.scale == 4.0  # expansion steps actions 0, 1, 2 in order: -4 is the first non-zero
    assert search.root.children[1].reward == -1.0 and search.root.children[2].reward == 0.5
    search.new_episode()
    assert search.scale is None
