"""Meta-controllers' best region (`best(rng)`, for `evaluation: best_region`): known answers on hand-set
bandit states, every point drawn inside the best region, no change of state, and only the given rng used.
"""

import json

import numpy as np
import pytest
from zoo_dice.behavior import behavior_space as dice_space
from zoo_dice.plugin import BVA
from zoo_learner.state import to_plain

from zoo import BehaviorSpace, Choice, Coordinate
from zoo.registry import get_registry

GDI_SPACE = BehaviorSpace((Coordinate("beta1", 0, 50, 1.0), Coordinate("beta2", 0, 50, 1.0),
                           Coordinate("eps", 0, 1, 0.1)), (1.0, 0.0, 1.0))
LINE = BehaviorSpace((Coordinate("x", 0, 10, 1.0), Coordinate("y", 0, 1, 0.25)), (0.5, 0.5))
WITH_BEST = ["gdi_bandits", "fixed", "ucb1", "sliding_window_ucb", "thompson", "lbc_bandits"]


def make(name, space, seed=0, **params):
    entry = get_registry().get("meta_controller", name)
    return entry.factory(entry.params(**params), space, np.random.default_rng(seed))


def draws(controller, n=40):
    return [controller.best(np.random.default_rng(seed)) for seed in range(n)]


def lift(ensemble, block, amounts):
    """Moves V of `block` by amounts[m] in bandit m (its neighbours move less, by the bandit's smoothing)."""
    for bandit, amount in zip(ensemble.bandits, amounts):
        bandit.smoothing.add(bandit.w, block, amount)


@pytest.mark.parametrize("log1p", [[], ["beta1", "beta2"]], ids=["plain", "log1p"])
@pytest.mark.parametrize("smoothing", ["window", "tiles"])
@pytest.mark.parametrize("structure", ["factorized", "joint"])
def test_gdi_bandits_best_is_the_block_with_the_highest_mean_value_over_the_bandits(structure, smoothing, log1p):
    """Blocks 7, 40 and 9 win (block 7 on the mean over bandits; block 30 in 6 of the 7). Window lifts give
    a unique top block only away from the low edge; tiles one block wide, so that a lift moves one block alone."""
    c = make("gdi_bandits", GDI_SPACE, structure=structure, smoothing=smoothing, log1p_coordinates=log1p,
             tile_sizes=[1])
    one, others = [100.0] + [0.0] * 6, [0.0] + [5.0] * 6
    if structure == "joint":
        shape = c.ensembles[0].grid.shape
        lift(c.ensembles[0], np.ravel_multi_index((7, 40, 9), shape), one)
        lift(c.ensembles[0], np.ravel_multi_index((30, 10, 5), shape), others)
    else:
        lift(c.ensembles[0], 7, one)
        lift(c.ensembles[0], 30, others)
        lift(c.ensembles[1], 40, [1.0] * 7)
        lift(c.ensembles[2], 9, [1.0] * 7)
    axes = c.coordinates.coordinates  # as the bandits see them (x = log(1 + beta) for log1p)
    points = np.array([c.coordinates.to_bandit(choice.value) for choice in draws(c)])
    assert all([a.block_of(x) for a, x in zip(axes, p)] == [7, 40, 9] for p in points)
    assert np.ptp(points[:, 0]) > 0.5 * axes[0].block  # drawn across the block, not one point
    assert all(GDI_SPACE.contains(choice.value) for choice in draws(c, 5))


@pytest.mark.parametrize("smoothing", ["window", "tiles"])
@pytest.mark.parametrize("structure", ["factorized", "joint"])
def test_gdi_bandits_best_after_learning_is_in_the_argmax_of_the_mean_value(structure, smoothing):
    c = make("gdi_bandits", LINE, structure=structure, smoothing=smoothing, log1p_coordinates=["x"])
    for _ in range(100):
        choice = c.sample()
        c.update(choice, -abs(choice.value[0] - 6.0) - abs(choice.value[1] - 0.3))
    groups = [[0, 1]] if structure == "joint" else [[0], [1]]
    for ensemble, group in zip(c.ensembles, groups):
        values = np.mean([b.values() for b in ensemble.bandits], axis=0)
        winners = set(np.flatnonzero(values == values.max()))
        for choice in draws(c):
            x = c.coordinates.to_bandit(choice.value)[group]
            assert ensemble.grid.block_of(x) in winners


def test_dices_omega_best_tau_is_the_argmax_tile_of_the_bandits_mean_value():
    """DiCE's best tau: Vbar = mean over bandits of values(); x uniform inside argmax tile."""
    space = dice_space()
    omega = make("gdi_bandits", space, **BVA)
    rng = np.random.default_rng(1)
    for _ in range(300):
        choice = omega.sample()
        omega.update(choice, 10 - (choice.value[0] - 2.5) ** 2 + rng.normal())

    def value(bandit, i):  # the spec's V_i = mean(w[i - width .. i + width]), clipped to the tiles
        return bandit.w[max(0, i - bandit.smoothing.width):i + bandit.smoothing.width + 1].mean()

    bandits = omega.ensembles[0].bandits
    tile = int(np.argmax([np.mean([value(b, i) for b in bandits]) for i in range(space.coordinates[0].blocks)]))
    low, high = space.coordinates[0].edges(tile)
    assert all(low <= choice.value[0] < high for choice in draws(omega))


@pytest.mark.parametrize("name", ["ucb1", "thompson"])
def test_ucb1_and_thompson_best_is_the_block_with_the_highest_mean_return(name):
    c = make(name, LINE)
    for x, g in [(3.5, 10.0), (3.2, 10.0), (5.5, 12.0), (5.1, 0.0), (8.5, 9.0)]:  # means: 3 -> 10, 5 -> 6, 8 -> 9
        c.update(Choice(np.array([x, 0.6])), g)  # y: always block 2 (never-tried blocks rank last)
    assert all(LINE.coordinates[0].block_of(ch.value[0]) == 3 and 0.5 <= ch.value[1] < 0.75 for ch in draws(c))


def test_sliding_window_ucb_best_forgets_episodes_out_of_its_window():
    c = make("sliding_window_ucb", LINE, window=3)
    for x, g in [(2.5, 100.0), (4.5, 5.0), (6.5, 7.0), (6.5, 1.0)]:  # in the window: 4 -> 5, 6 -> 4
        c.update(Choice(np.array([x, 0.1])), g)
    assert {LINE.coordinates[0].block_of(ch.value[0]) for ch in draws(c)} == {4}


def test_ties_are_broken_at_random_by_the_given_rng():
    c = make("ucb1", LINE)
    for x in (1.5, 7.5):
        c.update(Choice(np.array([x, 0.1])), 3.0)
    assert {LINE.coordinates[0].block_of(ch.value[0]) for ch in draws(c)} == {1, 7}
    untrained = make("gdi_bandits", LINE)
    assert len({LINE.coordinates[0].block_of(ch.value[0]) for ch in draws(untrained)}) > 3


def test_fixed_best_is_its_point():
    assert [ch.value.tolist() for ch in draws(make("fixed", LINE, value=[2, 0.3]), 3)] == [[2, 0.3]] * 3


def test_lbc_bandits_best_is_each_coordinates_greedy_arm_over_the_pooled_bandits():
    c = make("lbc_bandits", LINE)
    x_bandits, y_bandits = c.populations
    x_bandits[0].N[3], x_bandits[0].S[3] = 1, 50.0  # arm 3: 50 once, in one (newer) bandit
    for b in x_bandits[1:]:
        b.N[5], b.S[5] = 10, 100.0  # arm 5: mean 10 over 60 episodes
    for b in y_bandits:
        b.N[[0, 1]], b.S[[0, 1]] = [4, 4], [-8.0, -4.0]  # negative means beat never-tried arms
    assert all(LINE.coordinates[0].block_of(ch.value[0]) == 3 and 0.25 <= ch.value[1] < 0.5 for ch in draws(c))


def test_uniform_has_no_best_region():
    assert not hasattr(make("uniform", LINE), "best")


@pytest.mark.parametrize("name", WITH_BEST)
def test_best_changes_no_state_and_uses_only_the_given_rng(name):
    c = make(name, GDI_SPACE)
    for k in range(30):
        c.update(c.sample(), float(np.sin(k)))
    before = json.dumps(to_plain(c.state_dict()))
    first = [ch.value for ch in draws(c, 5)]
    assert json.dumps(to_plain(c.state_dict())) == before
    assert all(np.array_equal(a, b.value) for a, b in zip(first, draws(c, 5)))
