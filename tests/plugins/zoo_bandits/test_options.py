"""The options of GDI's bandit population (docs/algorithms/gdi.md): joint bandits over the product
grid, App. G's tile coding, bandits over x = log(1 + beta); known answers on tiny grids, scale invariance,
exact checkpoints and spec errors (learning with them: test_learning.py).
"""

import itertools
import json
import math

import numpy as np
import pytest
from zoo_bandits.base import top_k
from zoo_bandits.grid import BanditCoordinates, Grid
from zoo_bandits.population import Bandit, BanditPopulation, PopulationParams
from zoo_bandits.smoothing import Tiles, Window
from zoo_dice.behavior import X as DICE_X
from zoo_learner.state import from_plain, to_plain

from zoo import BehaviorSpace, Coordinate, ZooError
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text

SMALL = BehaviorSpace((Coordinate("beta1", 0, 10, 1.0), Coordinate("beta2", 0, 8, 1.0), Coordinate("eps", 0, 1, 0.2)),
                      (1.0, 0.0, 1.0))
OPTIONS = {
    "joint": {"structure": "joint"},
    "tiles": {"smoothing": "tiles"},
    "log1p": {"log1p_coordinates": ["beta1", "beta2"]},
    "joint_tiles_log1p": {"structure": "joint", "smoothing": "tiles", "log1p_coordinates": ["beta2"]},
}


def bandit(grid, smoothing, **kwargs):
    return Bandit(grid, smoothing, **{"lr": 0.5, "mode": "argmax", "ucb": 1.0, "candidates": 1, **kwargs})


# (a) joint bandits

def test_joint_window_means_on_a_3x3_grid():
    w = np.arange(9.0).reshape(3, 3)
    assert Window((3, 3), 1).values(w).tolist() == [2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0]
    assert Window((3, 3), 0).values(w).tolist() == list(range(9))
    assert Window((3, 3), 2).values(w).tolist() == [4.0] * 9


@pytest.mark.parametrize("width", [0, 1, 2])
def test_joint_window_means_are_box_means_on_any_grid(width):
    w = np.random.default_rng(0).normal(size=(5, 4, 3))
    window = Window(w.shape, width)
    boxes = [w[max(0, i - width): i + width + 1, max(0, j - width): j + width + 1, max(0, k - width): k + width + 1].mean()
             for i, j, k in np.ndindex(w.shape)]
    assert np.allclose(window.values(w), boxes)
    assert all(window.value(w, b) == window.values(w)[b] for b in range(w.size))


def test_joint_update_moves_the_block_value_and_spills_over_its_box():
    x, y = Coordinate("x", 0, 3, 1.0), Coordinate("y", 0, 3, 1.0)
    b = bandit(Grid([x, y]), Window((3, 3), 1))
    b.w[:] = np.arange(9.0).reshape(3, 3)
    b.update([0.5, 1.5], 10.0)  # block (0, 1), value 2.5: its box is rows 0-1, columns 0-2
    assert b.w.tolist() == [[3.75, 4.75, 5.75], [6.75, 7.75, 8.75], [6.0, 7.0, 8.0]]
    assert b.values()[1] == pytest.approx(2.5 + 0.5 * (10.0 - 2.5))
    assert b.N.tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 0]


def test_joint_proposals_are_points_inside_their_blocks_and_the_arm_is_their_block():
    grid = Grid(SMALL.coordinates)
    b, rng = bandit(grid, Window(grid.shape, 1), mode="random", candidates=5), np.random.default_rng(0)
    b.w[:] = rng.normal(size=grid.shape)
    points = b.propose(rng)
    assert points.shape == (5, 3) and len({grid.block_of(p) for p in points}) == 5
    controller = BanditPopulation(PopulationParams(structure="joint"), SMALL, np.random.default_rng(1))
    assert [e.grid.shape for e in controller.ensembles] == [(10, 8, 5)]
    for _ in range(20):
        choice = controller.sample()
        assert SMALL.contains(choice.value)
        assert choice.arm == np.ravel_multi_index(tuple(c.block_of(v) for c, v in zip(SMALL.coordinates, choice.value)),
                                                  (10, 8, 5))
        controller.update(choice, 1.0)


def test_top_k_is_the_full_sort_by_score_then_a_random_key():
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 40))
        scores = rng.integers(0, 3, size=n).astype(float) if seed % 2 else rng.normal(size=n)
        k = int(rng.integers(1, n + 2))
        full = np.lexsort((np.random.default_rng(seed + 1).random(n), -scores))[:k]
        assert top_k(scores, k, np.random.default_rng(seed + 1)).tolist() == full.tolist()


def test_grid_points_fill_their_blocks_and_the_last_block_reaches_the_range_end():
    grid = Grid([Coordinate("x", 0, 1, 0.3), Coordinate("y", 2, 4, 1.0)])  # x's blocks: [0, .3) [.3, .6) [.6, 1]
    assert grid.shape == (3, 2) and grid.size == 6
    points = grid.points_in(np.array([5, 2] * 1000), np.random.default_rng(0))  # blocks (2, 1) and (1, 0)
    last, middle = points[0::2], points[1::2]
    assert last[:, 0].min() >= 0.6 and last[:, 0].max() > 0.99 and np.mean(last[:, 0]) == pytest.approx(0.8, abs=0.01)
    assert middle[:, 0].min() >= 0.3 and middle[:, 0].max() < 0.6 and np.mean(middle[:, 0]) == pytest.approx(0.45, abs=0.01)
    assert last[:, 1].min() >= 3 and np.mean(middle[:, 1]) == pytest.approx(2.5, abs=0.02)
    assert [grid.block_of(p) for p in points[:4]] == [5, 2, 5, 2]


def test_the_last_block_reaches_the_range_end_with_an_even_block_count():
    grid = Grid([Coordinate("x", 0, 1, 0.24)])  # blocks [0, .24) [.24, .48) [.48, .72) [.72, 1]
    points = grid.points_in(np.full(2000, 3), np.random.default_rng(0))[:, 0]
    assert grid.shape == (4,) and points.min() >= 0.72 and points.max() > 0.99


# (b) tile coding

def test_tiles_belong_to_the_tile_holding_their_centre():
    tiles = Tiles((6,), [2, 3], [[0.25], [0.0]])  # offsets: half a block, none
    w = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 20.0])  # tiling 1: blocks 0|12|34|5; tiling 2: blocks 012|345
    assert tiles.values(w).tolist() == [5.5, 6.0, 6.0, 11.5, 11.5, 12.0]
    square = Tiles((3, 3), [2], [[0.25, 0.0]])  # rows 0|12, columns 01|2
    assert square.values(np.array([1.0, 2.0, 3.0, 4.0])).tolist() == [1, 1, 2, 3, 3, 4, 3, 3, 4]
    three_each = Tiles((5,), [2, 2], [[0.0], [0.5]])  # blocks 01|23|4, then 0|12|34: the second's weights from w[3]
    assert three_each.values(np.array([1.0, 2.0, 3.0, 10.0, 20.0, 30.0])).tolist() == [5.5, 10.5, 11.0, 16.0, 16.5]


def test_tile_update_adds_lr_times_the_error_to_the_containing_tile_of_each_tiling():
    b = bandit(Grid([Coordinate("x", 0, 6, 1.0)]), Tiles((6,), [2, 3], [[0.25], [0.0]]))
    b.w[:] = [1.0, 2.0, 3.0, 4.0, 10.0, 20.0]
    b.update([2.5], 16.0)  # block 2, value 6: step 0.5 * (16 - 6) = 5 to tiles 1 and 4
    assert b.w.tolist() == [1.0, 7.0, 3.0, 4.0, 15.0, 20.0]
    assert b.values().tolist() == [8.0, 11.0, 11.0, 11.5, 11.5, 12.0]
    assert b.N.tolist() == [0, 0, 1, 0, 0, 0]


def test_tilings_are_drawn_from_the_params_and_restored_from_their_settings():
    params = PopulationParams(smoothing="tiles", tilings=5, tile_sizes=[2, 4], tile_offset=0.6)
    tiles = Tiles.draw((10, 4), params, np.random.default_rng(0))
    assert len(tiles.sizes) == 5 and set(tiles.sizes) <= {2, 4}
    assert np.array(tiles.offsets).shape == (5, 2) and all(0 <= o < 0.6 for row in tiles.offsets for o in row)
    settings = json.loads(json.dumps(tiles.settings()))
    w = np.random.default_rng(1).normal(size=tiles.weights().shape)
    assert np.array_equal(Tiles.restore((10, 4), settings).values(w), tiles.values(w))


# (c) x = log(1 + beta)

def test_log1p_grid_of_gdi_beta_is_dices_x_grid():
    space = BehaviorSpace((Coordinate("beta", 0, 50, 1.0),), (1.0,))
    (x,) = BanditCoordinates(space, ["beta"]).coordinates
    assert (x.low, x.blocks) == (DICE_X.low, DICE_X.blocks)
    assert (x.high, x.block) == (pytest.approx(DICE_X.high), pytest.approx(DICE_X.block))


def test_log1p_blocks_of_a_range_above_0_are_equally_wide_in_x():
    space = BehaviorSpace((Coordinate("beta", 1, 15, 2.0),), (1.0,))  # x from ln 2 to ln 16 = 4 ln 2, 7 blocks
    (x,) = BanditCoordinates(space, ["beta"]).coordinates
    assert (x.low, x.high, x.blocks) == (pytest.approx(math.log(2)), pytest.approx(4 * math.log(2)), 7)
    assert x.block == pytest.approx(3 * math.log(2) / 7)


def test_log1p_maps_proposals_back_to_beta_and_its_block():
    space = BehaviorSpace((Coordinate("beta", 0, 3, 1.0), Coordinate("eps", 0, 1, 0.5)), (1.0, 1.0))
    coordinates = BanditCoordinates(space, ["beta"])
    x, eps = coordinates.coordinates
    assert (x.low, x.high, x.block, x.blocks) == (0.0, pytest.approx(math.log(4)), pytest.approx(math.log(4) / 3), 3)
    assert eps is space.coordinates[1]
    assert coordinates.to_space([math.log(4) / 2, 0.7]).tolist() == [pytest.approx(1.0), 0.7]  # beta = sqrt(4) - 1
    assert coordinates.to_bandit([3.0, 0.7]).tolist() == [pytest.approx(math.log(4)), 0.7]
    assert coordinates.to_space([math.log(4) + 1e-12, 0.7])[0] == 3.0  # clipped into the range
    # one argmax bandit with a strong bonus visits the x blocks [0, ln 4 / 3), ... once each:
    # beta in [0, 4^(1/3) - 1 = 0.587), [0.587, 4^(2/3) - 1 = 1.520), [1.520, 3]
    params = PopulationParams(bandits=1, candidates=1, ucb=100.0, modes=["argmax"], log1p_coordinates=["beta"])
    controller, betas = BanditPopulation(params, space, np.random.default_rng(0)), []
    for _ in range(3):
        choice = controller.sample()
        assert choice.arm == 2 * space.coordinates[0].block_of(choice.value[0]) + space.coordinates[1].block_of(choice.value[1])
        betas.append(choice.value[0])
        controller.update(choice, 1.0)
    edges = [0.0, 4 ** (1 / 3) - 1, 4 ** (2 / 3) - 1, 3.0]
    assert sorted(int(np.searchsorted(edges, b, side="right")) - 1 for b in betas) == [0, 1, 2]


@pytest.mark.parametrize("names,message", [(["beta3"], "beta3"), (["neg"], "-1"), (["edge"], "-1")])
def test_log1p_coordinates_must_exist_and_stay_above_minus_one(names, message):
    space = BehaviorSpace((Coordinate("beta", 0, 3, 1.0), Coordinate("neg", -2, 0, 1.0), Coordinate("edge", -1, 0, 0.5)),
                          (1.0, -1.0, -0.5))
    with pytest.raises(ZooError, match=message):
        BanditPopulation(PopulationParams(log1p_coordinates=names), space, np.random.default_rng(0))


# every option

def run(options, seed, scale=1.0, episodes=60):
    controller, history = BanditPopulation(PopulationParams(**options), SMALL, np.random.default_rng(seed)), []
    for k in range(episodes):
        choice = controller.sample()
        beta1, beta2, eps = choice.value
        controller.update(choice, scale * (np.sin(k) * 5 + beta2 - abs(beta1 - 4) - 3 * eps))
        history.append((*choice.value, choice.arm))
    return np.array(history)


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_choices_are_invariant_to_the_scale_of_returns(options):
    choices = run(options, 3)
    assert np.array_equal(choices, run(options, 3, scale=37.5)) and np.array_equal(choices, run(options, 3, scale=1e-3))
    assert not np.array_equal(choices, run(options, 4))  # the comparison can fail


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_state_round_trip_through_json_continues_the_same_choices(options):
    def continuation(controller):
        choices = []
        for k in range(15):
            choice = controller.sample()
            choices.append((*choice.value, choice.arm))
            controller.update(choice, float(k))
        return choices

    a = BanditPopulation(PopulationParams(**options), SMALL, np.random.default_rng(5))
    for k in range(30):
        a.update(a.sample(), float(np.cos(k)) * 10)
    saved = json.dumps(to_plain(a.state_dict()))
    tagged = from_plain(json.loads(saved))  # as a checkpoint holds it
    plain = json.loads(json.dumps(a.state_dict(), default=np.ndarray.tolist))  # bare lists and numbers
    expected = continuation(a)
    for state in (tagged, plain):
        b = BanditPopulation(PopulationParams(**options), SMALL, np.random.default_rng(123))
        b.load_state_dict(state)
        assert json.dumps(to_plain(b.state_dict())) == saved
        assert continuation(b) == expected


# a bad option in a spec

GDI = ("env: {type: gym, id: CartPole-v1}\nagent: {type: gdi-i3, num_envs: 2, batch: 2, length: 5, burn_in: 2, "
       "network: {hidden: [16], lstm: 8}}\nbudget: {steps: 300}\nmeta_controller: ")


@pytest.mark.parametrize("block,field", [
    ("{type: gdi_bandits, structure: jiont}", "structure"),
    ("{type: gdi_bandits, smoothing: tile}", "smoothing"),
    ("{type: gdi_bandits, tile_offset: 1.5}", "tile_offset"),
    ("{type: gdi_bandits, tile_sizes: [0, 2]}", "tile_sizes"),
])
def test_a_bad_option_is_one_clear_spec_error(block, field):
    with pytest.raises(SpecError) as error:
        load_spec_text(GDI + block + "\n", get_registry())
    assert f"meta_controller.{field}" in str(error.value) and len(error.value.problems) == 1


def test_top_k_breaks_wide_ties_by_the_smallest_random_keys():
    """Many tied scores (a fresh grid of blocks): the k winners are the tied blocks of smallest random key."""
    for seed, k in itertools.product(range(50), (3, 4, 5, 6, 100, 500)):  # a partition's tail shows unsorted from k ~ 100
        scores = np.zeros(1000)
        scores[:seed % 3] = 1.0  # none, one or two blocks above the tie
        full = np.lexsort((np.random.default_rng(seed).random(1000), -scores))[:k]
        assert top_k(scores, k, np.random.default_rng(seed)).tolist() == full.tolist()
