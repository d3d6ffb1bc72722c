"""The classic factorized bandits against slow reference implementations written from their formulas.

UCB1 (Auer et al. 2002) with means rescaled by the smallest and largest return seen: each pick is a
block of highest (mean - low) / (high - low) + sqrt(c ln t / n), every block tried once first.
Agent57's sliding-window UCB: the same over the last `window` episodes with the bonus beta sqrt(1 / n),
and an epsilon of uniformly random blocks. Gaussian Thompson sampling: each block's draw is its
posterior N(n z / (1 / v + n), 1 / (1 / v + n)) of the mean z-scored return, prior N(0, v).
"""

import math

import numpy as np
import pytest
from zoo_bandits.base import mean_returns, point_in_blocks
from zoo_bandits.classic import (
    UCB1,
    Fixed,
    FixedParams,
    SlidingWindowParams,
    SlidingWindowUCB,
    Thompson,
    ThompsonParams,
    UCB1Params,
    Uniform,
)

from zoo import BehaviorSpace, Choice, Coordinate, NoParams, ZooError

PLANE = BehaviorSpace((Coordinate("x", 0, 5, 1.0), Coordinate("y", -1, 1, 0.5)), (0.0, 0.0))


def reward(blocks, noise):
    """A return that favours block 3 of x and block 1 of y, with noise so that no two blocks tie."""
    return 10.0 - abs(blocks[0] - 3) * 2.0 - abs(blocks[1] - 1) + noise


def ucb_winners(history, k, n, bonus):
    """The blocks of coordinate k of highest rescaled mean plus bonus(count, episodes) over `history`
    (a list of (blocks, return)); while some block is untried, the untried blocks."""
    counts, sums = [0] * n, [0.0] * n
    for blocks, g in history:
        counts[blocks[k]] += 1
        sums[blocks[k]] += g
    if 0 in counts:
        return {b for b in range(n) if counts[b] == 0}
    low, high = min(g for _, g in history), max(g for _, g in history)
    scores = [((sums[b] / counts[b] - low) / (high - low) if high > low else 0.5) + bonus(counts[b], len(history))
              for b in range(n)]
    return {b for b in range(n) if scores[b] == max(scores)}


def play(controller, episodes, winners, seed=0):
    """Runs the controller; each pick must be one of winners(history, k, n) for every coordinate k. The
    number of picks that had a single winner (the test can fail)."""
    noise, history, decided = np.random.default_rng(seed), [], 0
    for _ in range(episodes):
        choice = controller.sample()
        blocks = [c.block_of(x) for c, x in zip(PLANE.coordinates, choice.value)]
        for k, c in enumerate(PLANE.coordinates):
            allowed = winners(history, k, c.blocks)
            assert blocks[k] in allowed
            decided += len(allowed) == 1
        assert choice.arm == np.ravel_multi_index(tuple(blocks), (5, 4))
        g = reward(blocks, noise.normal())
        controller.update(choice, g)
        history.append((blocks, g))
    return decided


@pytest.mark.parametrize("c", [2.0, 0.3])
def test_ucb1_picks_the_block_of_highest_rescaled_mean_plus_bonus(c):
    controller = UCB1(UCB1Params(exploration=c), PLANE, np.random.default_rng(0))
    assert play(controller, 60, lambda h, k, n: ucb_winners(h, k, n, lambda m, t: math.sqrt(c * math.log(t) / m))) > 100


@pytest.mark.parametrize("make", [lambda rng: UCB1(UCB1Params(), PLANE, rng),
                                  lambda rng: SlidingWindowUCB(SlidingWindowParams(epsilon=0.0), PLANE, rng)],
                         ids=["ucb1", "sliding_window_ucb"])
def test_with_one_return_seen_there_is_no_spread_and_the_bonus_alone_ranks(make):
    controller = make(np.random.default_rng(0))
    for x in (0.5, 1.5, 2.5, 3.5, 4.5, 4.5):  # every x block once, block 4 twice; y always block 0
        controller.update(Choice(np.array([x, -0.9])), 7.0)
    picks = {PLANE.coordinates[0].block_of(controller.sample().value[0]) for _ in range(30)}
    assert 4 not in picks and len(picks) > 1  # the four blocks tried once tie; block 4 has the smaller bonus


def test_sliding_window_ucb_picks_by_the_episodes_in_its_window():
    window, beta = 7, 0.4
    params = SlidingWindowParams(window=window, beta=beta, epsilon=0.0)
    controller = SlidingWindowUCB(params, PLANE, np.random.default_rng(1))
    assert play(controller, 60, lambda h, k, n: ucb_winners(h[-window:], k, n, lambda m, t: beta * math.sqrt(1 / m))
                if h else set(range(n))) > 60


def test_sliding_window_ucb_explores_uniformly_with_probability_epsilon():
    params = SlidingWindowParams(window=50, beta=0.0, epsilon=0.25)
    controller = SlidingWindowUCB(params, PLANE, np.random.default_rng(2))
    for x in (0.5, 1.5, 2.5, 3.5, 4.5):
        controller.update(Choice(np.array([x, 0.9])), 10.0 if x == 2.5 else 0.0)
    picks = np.array([PLANE.coordinates[0].block_of(controller.sample().value[0]) for _ in range(4000)])
    # the greedy block 2, or a uniform block with probability 1/4: block 2 with 3/4 + 1/20, the others 1/20 each
    assert abs(np.mean(picks == 2) - 0.8) < 0.03
    assert all(abs(np.mean(picks == b) - 0.05) < 0.015 for b in (0, 1, 3, 4))


class RecordingRng:
    """A Generator that records the arguments of its normal draws."""

    def __init__(self, seed):
        self.rng, self.normals = np.random.default_rng(seed), []

    def normal(self, loc, scale):
        self.normals.append((np.array(loc, float), np.array(scale, float)))
        return self.rng.normal(loc, scale)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def test_thompson_draws_each_block_from_its_posterior_of_the_z_scored_mean():
    prior = 0.5
    rng = RecordingRng(0)
    controller = Thompson(ThompsonParams(prior_variance=prior), PLANE, rng)
    episodes = [((0.5, -0.9), 1.0), ((0.5, 0.1), 3.0), ((2.5, 0.1), 8.0), ((4.5, 0.6), -2.0), ((2.5, 0.6), 6.0)]
    for value, g in episodes:
        controller.update(Choice(np.array(value)), g)
    returns = [g for _, g in episodes]
    mean, std = np.mean(returns), np.std(returns)
    rng.normals.clear()
    controller.sample()
    (x_loc, x_scale), (y_loc, y_scale) = rng.normals
    for k, (loc, scale) in enumerate([(x_loc, x_scale), (y_loc, y_scale)]):
        for b in range(PLANE.coordinates[k].blocks):
            seen = [g for value, g in episodes if PLANE.coordinates[k].block_of(value[k]) == b]
            z = (np.mean(seen) - mean) / std if seen else 0.0
            precision = 1 / prior + len(seen)
            assert loc[b] == pytest.approx(len(seen) * z / precision) and scale[b] == pytest.approx(precision ** -0.5)


def test_thompson_before_any_return_and_with_equal_returns_draws_from_the_prior():
    rng = RecordingRng(0)
    controller = Thompson(ThompsonParams(prior_variance=4.0), PLANE, rng)
    controller.sample()
    assert rng.normals[0][0].tolist() == [0.0] * 5 and rng.normals[0][1].tolist() == [2.0] * 5
    for x in (0.5, 0.5, 3.5):
        controller.update(Choice(np.array([x, 0.0])), 5.0)  # std 0: z = 0, not a division by zero
    rng.normals.clear()
    controller.sample()
    loc, scale = rng.normals[0]
    assert loc.tolist() == [0.0] * 5
    assert scale == pytest.approx([(0.25 + 2) ** -0.5, 2.0, 2.0, (0.25 + 1) ** -0.5, 2.0])


def test_thompson_picks_the_largest_draw():
    controller = Thompson(ThompsonParams(), PLANE, np.random.default_rng(3))
    for _ in range(30):
        for x in (0.5, 1.5, 2.5, 3.5, 4.5):  # block 3's posterior mean 1.9 against -0.5 for the others, std 0.18
            controller.update(Choice(np.array([x, 0.0])), 100.0 if x == 3.5 else 0.0)
    assert {PLANE.coordinates[0].block_of(controller.sample().value[0]) for _ in range(50)} == {3}


def test_points_are_uniform_inside_their_blocks_up_to_the_range_end():
    space = BehaviorSpace((Coordinate("x", 0, 1, 0.3), Coordinate("y", 2, 4, 1.0)), (0.0, 2.0))  # x's last block [0.6, 1]
    rng = np.random.default_rng(0)
    points = np.array([point_in_blocks(space, [2, 1], rng) for _ in range(2000)])
    assert points[:, 0].min() >= 0.6 and points[:, 0].max() < 1.0 and np.mean(points[:, 0]) == pytest.approx(0.8, abs=0.01)
    assert points[:, 1].min() >= 3.0 and points[:, 1].max() < 4.0 and np.mean(points[:, 1]) == pytest.approx(3.5, abs=0.02)


def test_mean_returns_of_untried_blocks_rank_last():
    means = mean_returns(np.array([[6.0, 0.0, -3.0, 5.0]]), np.array([[2, 0, 3, 1]]))
    assert means.tolist() == [[3.0, -np.inf, -1.0, 5.0]]


def test_uniform_draws_each_coordinate_uniformly_over_its_range():
    controller = Uniform(NoParams(), PLANE, np.random.default_rng(0))
    points = np.array([controller.sample().value for _ in range(2000)])
    for k, c in enumerate(PLANE.coordinates):  # 200 +- 13 per tenth of the range
        assert np.abs(np.histogram(points[:, k], bins=10, range=(c.low, c.high))[0] - 200).max() < 45


@pytest.mark.parametrize("value", [[1.0], [1.0, 0.0, 0.0], [6.0, 0.0]])
def test_fixed_refuses_a_value_outside_the_space(value):
    with pytest.raises(ZooError, match=r"meta_controller.value: .* \(x in \[0, 5\], y in \[-1, 1\]\)"):
        Fixed(FixedParams(value=value), PLANE, np.random.default_rng(0))


@pytest.mark.parametrize("make", [lambda rng: UCB1(UCB1Params(), PLANE, rng),
                                  lambda rng: SlidingWindowUCB(SlidingWindowParams(window=9, epsilon=0.1), PLANE, rng),
                                  lambda rng: Thompson(ThompsonParams(), PLANE, rng)],
                         ids=["ucb1", "sliding_window_ucb", "thompson"])
def test_choices_are_invariant_to_the_scale_of_returns(make):
    """Scaled by powers of two, every rescaling, mean and z-score is exact, so the choices are the same."""
    def choices(scale, seed=0):
        controller, noise, picked = make(np.random.default_rng(seed)), np.random.default_rng(1), []
        for _ in range(40):
            choice = controller.sample()
            controller.update(choice, scale * reward([c.block_of(x) for c, x in zip(PLANE.coordinates, choice.value)],
                                                     noise.normal()))
            picked.append(choice.arm)
        return picked

    assert choices(1.0) == choices(2.0 ** -12) == choices(2.0 ** 12) != choices(1.0, seed=1)


def test_thompson_z_scores_returns_only_when_their_std_exceeds_1e_12():
    for g, expected in [(2e-12, 0.5), (1e-12, 0.5e-12)]:  # std g: z = -1, 1 above 1e-12, else -g, g (divided by 1)
        rng = RecordingRng(0)
        controller = Thompson(ThompsonParams(), PLANE, rng)
        controller.update(Choice(np.array([0.5, 0.0])), -g)
        controller.update(Choice(np.array([3.5, 0.0])), g)
        controller.sample()
        loc = rng.normals[0][0]  # posterior mean n z / (1 / v + n), with n = 1 and v = 1
        assert loc[[0, 3]].tolist() == pytest.approx([-expected, expected], rel=1e-9, abs=0)


def test_thompson_z_scores_returns_with_a_large_common_offset():
    """The returns' std from Welford's update, not from raw sums, which cancel to 0 at an offset of 1e8."""
    for offset in (0.0, 1e8, 1e9):
        rng = RecordingRng(0)
        controller = Thompson(ThompsonParams(), PLANE, rng)
        returns = [offset + g for g in (0.0, 1.0, 0.0, 1.0, 2.0)]
        for x, g in zip((0.5, 1.5, 0.5, 1.5, 3.5), returns):
            controller.update(Choice(np.array([x, 0.0])), g)
        controller.sample()
        loc = rng.normals[0][0]
        z = (2.0 - 0.8) / np.std([0.0, 1.0, 0.0, 1.0, 2.0])  # block 3's one return, z-scored
        assert loc[3] == pytest.approx(z / 2, rel=1e-6)  # n z / (1 / v + n) with n = 1, v = 1


@pytest.mark.parametrize("returns", [[3.0, -1.0, 4.0, 1.5], [0.25, 0.5, 0.25, 0.75], [0.1, 0.1, 0.1], []],
                         ids=["spread", "narrow", "equal", "fresh"])
def test_thompson_reads_a_checkpoint_of_raw_sums_as_the_same_moments(returns):
    updated, restored = (Thompson(ThompsonParams(), PLANE, np.random.default_rng(0)) for _ in range(2))
    for x, g in zip((0.5, 1.5, 2.5, 0.5), returns):
        updated.update(Choice(np.array([x, 0.0])), g)
    state = updated.state_dict()
    old = {**state, "moments": [float(len(returns)), sum(returns), sum(g * g for g in returns)]}
    del old["return_moments"]
    restored.load_state_dict(old)
    assert restored.return_moments == pytest.approx(updated.return_moments)
    assert restored.return_moments[2] >= 0.0  # equal returns' raw sums leave -3.5e-18 here
    assert restored.sample().arm == updated.sample().arm
