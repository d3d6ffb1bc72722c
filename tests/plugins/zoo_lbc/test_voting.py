"""LBC's voting population (Algorithm 1, App. E) against a reference written from its definition.

Each bandit proposes its D arms of highest score z(V) + c sqrt(log(1 + sum N) / (1 + N)); the arm with
the most proposals wins. In softmax mode a bandit draws its D arms from softmax(score) instead. Every
bandit's c is drawn from U[c_low, c_high]; every bandit is updated with the chosen arm and the return.
"""

import json
import math

import numpy as np
import pytest
from zoo_lbc.bandits import UCBBandit, VotingParams, VotingPopulation
from zoo_learner.state import from_plain, to_plain

from zoo import BehaviorSpace, Choice, Coordinate

SPACE = BehaviorSpace((Coordinate("a", 0.0, 6.0, 1.0), Coordinate("b", 0.0, 1.0, 0.25)), (0.0, 0.0))


def reference_scores(N, S, c):
    """Score(k) of one bandit, from the sum forms: z-scored mean over visited arms (a std below 1e-8 taken
    as 1) plus the UCB bonus."""
    visited = [k for k in range(len(N)) if N[k] > 0]
    means = {k: S[k] / N[k] for k in visited}
    mean = sum(means.values()) / len(visited)
    std = math.sqrt(sum((m - mean) ** 2 for m in means.values()) / len(visited))
    std = std if std >= 1e-8 else 1.0
    total = sum(N)
    return [((means[k] - mean) / std if k in visited else 0.0) + c * math.sqrt(math.log(1 + total) / (1 + N[k]))
            for k in range(len(N))]


def trained(seed, **params):
    """A population whose bandits each saw every arm a different number of times (no tied scores)."""
    controller, rng = VotingPopulation(VotingParams(replace_every=0, **params), SPACE, np.random.default_rng(seed)), \
        np.random.default_rng(seed + 1)
    for bandits in controller.populations:
        for bandit in bandits:
            bandit.N[:] = rng.integers(1, 20, size=len(bandit.N))
            bandit.S[:] = bandit.N * rng.normal(0, 3, size=len(bandit.N))
    return controller


@pytest.mark.parametrize("top_d", [1, 3, 9])
def test_the_winner_has_the_most_top_d_votes(top_d):
    for seed in range(10):
        controller = trained(seed, top_d=top_d)
        winners = []
        for bandits in controller.populations:
            votes = np.zeros(len(bandits[0].N))
            for b in bandits:
                scores = reference_scores(b.N, b.S, b.c)
                votes[np.argsort(scores)[::-1][:top_d]] += 1
            winners.append(set(np.flatnonzero(votes == votes.max())))
        choice = controller.sample()
        arms = np.unravel_index(choice.arm, (6, 4))
        assert all(arm in allowed for arm, allowed in zip(arms, winners))
        assert [c.block_of(x) for c, x in zip(SPACE.coordinates, choice.value)] == list(arms)


def test_softmax_mode_draws_arms_with_probability_softmax_of_the_scores():
    controller = trained(0, bandits=1, top_d=1, mode="softmax")
    (bandit,) = controller.populations[0]
    scores = np.array(reference_scores(bandit.N, bandit.S, bandit.c))
    expected = np.exp(scores) / np.exp(scores).sum()
    arms = [bandit.propose(1, "softmax", controller.rng)[0] for _ in range(3000)]
    assert np.abs(np.bincount(arms, minlength=6) / 3000 - expected).max() < 0.03
    assert np.ptp(expected) > 0.2  # far from uniform: the comparison can fail
    chosen = {np.unravel_index(controller.sample().arm, (6, 4))[0] for _ in range(50)}
    assert len(chosen) > 2  # one bandit's one draw wins, not always its best arm (as in vote mode)
    bandit.c = 1000.0  # scores in the thousands: the softmax still gives probabilities, all but 0 on the top arm
    top = int(np.argmax(reference_scores(bandit.N, bandit.S, bandit.c)))
    assert [bandit.propose(1, "softmax", controller.rng)[0] for _ in range(20)] == [top] * 20


def test_softmax_mode_proposes_distinct_arms():
    controller = trained(1, bandits=1, top_d=4, mode="softmax")
    (bandit,) = controller.populations[0]
    for _ in range(50):
        assert len(set(bandit.propose(4, "softmax", controller.rng).tolist())) == 4
    assert len(bandit.propose(10, "softmax", controller.rng)) == 6  # D above the arms: every arm once


def test_each_bandits_c_is_uniform_in_c_range():
    for c_range in [(0.5, 1.5), (1.0, 4.0)]:
        controller = VotingPopulation(VotingParams(bandits=1000, c_range=c_range), SPACE, np.random.default_rng(0))
        cs = [b.c for b in controller.populations[1]]
        counts = np.histogram(cs, bins=10, range=c_range)[0]  # 100 +- 9.5 per tenth of the range
        assert counts.sum() == 1000 and np.abs(counts - 100).max() < 35
    assert VotingParams().c_range == (0.5, 1.5)  # Table 3


def test_update_counts_the_chosen_arm_of_every_bandit_by_its_arm_or_else_its_point():
    controller = VotingPopulation(VotingParams(), SPACE, np.random.default_rng(0))
    controller.update(Choice(np.array([4.5, 0.3]), arm=np.ravel_multi_index((4, 1), (6, 4))), 2.0)
    controller.update(Choice(np.array([0.2, 0.9])), -5.0)  # no arm: the blocks of the point, (0, 3)
    controller.update(Choice(np.array([4.2, 0.4]), arm=0), 1.0)  # the arm decides, not the point
    controller.update(Choice(np.array([5.5, 0.1]), arm=np.ravel_multi_index((2, 2), (6, 4))), 3.0)  # any arm
    for bandits, expected in zip(controller.populations, [{4: 2.0, 0: -4.0, 2: 3.0}, {1: 2.0, 3: -5.0, 0: 1.0, 2: 3.0}]):
        for b in bandits:
            assert {k: float(s) for k, s in enumerate(b.S) if b.N[k]} == expected
            assert b.N.sum() == 4


def test_state_round_trip_through_json_continues_the_same_choices():
    a = VotingPopulation(VotingParams(replace_every=7), SPACE, np.random.default_rng(0))
    for k in range(30):
        a.update(a.sample(), float(np.sin(k)))
    state = from_plain(json.loads(json.dumps(to_plain(a.state_dict()))))
    b = VotingPopulation(VotingParams(replace_every=7), SPACE, np.random.default_rng(9))
    b.load_state_dict(state)
    assert (b.updates, b.replacements) == (30, 4)
    for k in range(20):
        ca, cb = a.sample(), b.sample()
        assert np.array_equal(ca.value, cb.value) and ca.arm == cb.arm
        a.update(ca, float(k))
        b.update(cb, float(k))
    assert [[x.c for x in bandits] for bandits in a.populations] == [[x.c for x in bandits] for bandits in b.populations]


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_scores_are_the_reference_scores_at_any_spread_of_means(scale):
    rng = np.random.default_rng(4)
    for _ in range(20):
        controller = trained(int(rng.integers(1000)))
        for bandits in controller.populations:
            for b in bandits:
                b.S *= scale  # means with std about 3 * scale: z-scored either way
                b.N[rng.random(len(b.N)) < 0.3] = 0  # unvisited arms: z = 0
                b.S[b.N == 0] = 0.0
                if b.N.any():
                    assert b.scores() == pytest.approx(reference_scores(b.N, b.S, b.c))


def test_replace_every_0_never_replaces_a_bandit():
    controller = VotingPopulation(VotingParams(replace_every=0), SPACE, np.random.default_rng(0))
    for k in range(120):
        controller.update(controller.sample(), float(k % 7))
    assert controller.replacements == 0 and all(b.N.sum() == 120 for bandits in controller.populations for b in bandits)


def test_points_are_uniform_inside_the_chosen_blocks():
    space = BehaviorSpace((Coordinate("wide", 0.0, 6.0, 3.0), Coordinate("narrow", 0.0, 0.9, 0.3)), (0.0, 0.0))
    controller = VotingPopulation(VotingParams(), space, np.random.default_rng(0))
    for bandits in controller.populations:
        for b in bandits:
            b.N[:], b.S[:] = 1.0, 0.0
            b.N[-1], b.S[-1] = 1.0, 5.0  # the last block of each coordinate is best: [3, 6) and [0.6, 0.9)
    points = np.array([controller.best(np.random.default_rng(k)).value for k in range(600)])
    wide, narrow = np.histogram(points[:, 0], bins=3, range=(3, 6))[0], np.histogram(points[:, 1], 3, (0.6, 0.9))[0]
    assert wide.sum() == narrow.sum() == 600 and np.abs(wide - 200).max() < 45 and np.abs(narrow - 200).max() < 45


def test_a_spread_of_means_of_1e_8_is_z_scored_and_a_smaller_one_is_not():
    bandit = UCBBandit(3, c=0.0)
    bandit.N[:], bandit.S[:] = [1, 1, 0], [-1e-8, 1e-8, 0.0]  # std exactly 1e-8
    assert bandit.scores().tolist() == [-1.0, 1.0, 0.0]
    bandit.S[:] = [-0.5e-8, 0.5e-8, 0.0]  # below: divided by 1, not by the std
    assert bandit.scores().tolist() == [-0.5e-8, 0.5e-8, 0.0]
