"""GDI's bandit population: the mechanics of one bandit, scale invariance and exact checkpoints (learning:
test_learning.py)."""

import numpy as np
import pytest
from zoo_bandits.grid import Grid
from zoo_bandits.population import Bandit, BanditPopulation, PopulationParams
from zoo_bandits.smoothing import Window

from zoo import BehaviorSpace, Coordinate

GDI_SPACE = BehaviorSpace((Coordinate("beta1", 0, 50, 1.0), Coordinate("beta2", 0, 50, 1.0),
                           Coordinate("eps", 0, 1, 0.1)), (1.0, 0.0, 1.0))
X = Coordinate("x", 0, 10, 1.0)


def bandit(width=2, **kwargs):
    settings = dict(lr=0.1, mode="argmax", ucb=1.0, candidates=3)
    settings.update(kwargs)
    return Bandit(Grid([X]), Window((X.blocks,), width), **settings)


def test_update_moves_the_value_by_lr_times_the_error_and_spills_over_the_window():
    b = bandit()
    b.w[:] = np.arange(10.0)
    before = b.values()
    b.update([4.5], 20.0)  # block 4, window 2..6
    after = b.values()
    assert after[4] - before[4] == pytest.approx(0.1 * (20.0 - before[4]))
    assert np.allclose(b.w, np.arange(10.0) + np.where((np.arange(10) >= 2) & (np.arange(10) <= 6), 0.1 * (20 - before[4]), 0))
    assert after[0] > before[0] and after[9] == before[9]  # block 0's window 0..2 overlaps, block 9's 7..9 does not
    assert b.N.tolist() == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]


def test_edge_windows_average_fewer_blocks():
    b = bandit(width=3)
    b.w[:] = np.arange(10.0)
    assert b.values()[0] == pytest.approx(np.mean([0, 1, 2, 3])) and b.values()[9] == pytest.approx(np.mean([6, 7, 8, 9]))


def test_no_z_score_before_any_update_and_top_edge_in_last_block():
    b = bandit()
    assert np.allclose(b.scores(), 0.0)
    assert X.block_of(10.0) == 9 and X.block_of(-3) == 0


def test_strong_ucb_argmax_bandit_visits_every_block_once():
    b, rng = bandit(ucb=100.0, candidates=1), np.random.default_rng(0)
    for _ in range(10):
        x = b.propose(rng)[0]
        b.update(x, float(rng.normal()))
    assert b.N.tolist() == [1] * 10


def test_random_mode_draws_distinct_blocks_and_points_inside_them():
    b, rng = bandit(mode="random", candidates=4), np.random.default_rng(1)
    b.w[:] = np.linspace(-5, 5, 10)
    for _ in range(200):
        points = b.propose(rng)[:, 0]
        blocks = [X.block_of(p) for p in points]
        assert len(set(blocks)) == 4
        assert all(X.low + k <= p < X.low + k + 1 for k, p in zip(blocks, points))


def run(controller_seed, scale, episodes=60):
    rng, noise = np.random.default_rng(controller_seed), np.random.default_rng(controller_seed + 1000)
    controller = BanditPopulation(PopulationParams(), GDI_SPACE, rng)
    history = []
    for _ in range(episodes):
        choice = controller.sample()
        _, beta2, eps = choice.value
        g = 100 - 200 * (eps - 0.2) ** 2 - (beta2 - 30) ** 2 / 10 + noise.normal(0, 5)
        controller.update(choice, scale * g)
        history.append(choice.value)
    return np.array(history)


def test_choices_are_invariant_to_the_scale_of_returns():
    assert np.array_equal(run(3, 1.0), run(3, 37.5))


def test_state_round_trip_continues_the_same_choices():
    a = BanditPopulation(PopulationParams(), GDI_SPACE, np.random.default_rng(5))
    for k in range(20):
        a.update(a.sample(), float(k))
    b = BanditPopulation(PopulationParams(), GDI_SPACE, np.random.default_rng(5))
    b.load_state_dict(a.state_dict())
    for k in range(10):
        ca, cb = a.sample(), b.sample()
        assert np.array_equal(ca.value, cb.value) and ca.arm == cb.arm
        a.update(ca, k * 3.0)
        b.update(cb, k * 3.0)


def test_score_is_the_z_scored_value_plus_the_ucb_bonus():
    b = bandit(width=0, ucb=0.7)
    b.w[:] = [1.0, 3.0, 3.0, 5.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]  # V = w: mean 3, std sqrt(0.8)
    b.N[:] = [0, 1, 2, 3, 0, 0, 0, 0, 0, 4]
    z = (b.w - 3.0) / np.sqrt(0.8)
    assert b.scores() == pytest.approx(z + 0.7 * np.sqrt(np.log(11.0) / (1.0 + b.N)))


def test_random_mode_draws_blocks_with_probability_softmax_of_the_scores():
    b, rng = bandit(width=0, mode="random", candidates=1), np.random.default_rng(0)
    b.w[:] = np.linspace(-1, 1, 10)
    b.N[:] = np.arange(10)
    p = np.exp(b.scores()) / np.exp(b.scores()).sum()
    blocks = [X.block_of(b.propose(rng)[0, 0]) for _ in range(1500)]
    assert np.abs(np.bincount(blocks, minlength=10) / 1500 - p).max() < 0.03 and np.ptp(p) > 0.1
    b.ucb = 1000.0  # scores in the thousands: the softmax still gives probabilities, nearly all on block 0
    assert [X.block_of(b.propose(rng)[0, 0]) for _ in range(20)] == [0] * 20


def test_more_candidates_than_blocks_propose_every_block_once():
    for mode in ("argmax", "random"):
        b = bandit(mode=mode, candidates=25)
        assert sorted(X.block_of(x) for x in b.propose(np.random.default_rng(0))[:, 0]) == list(range(10))


def test_each_bandit_draws_its_settings_from_the_params():
    params = PopulationParams(bandits=200, learning_rates=[0.3, 0.7], widths=[1, 5], modes=["random"], ucb=2.5,
                              candidates=4)
    ensemble = BanditPopulation(params, GDI_SPACE, np.random.default_rng(0)).ensembles[1]
    bandits = ensemble.bandits
    assert len(bandits) == 200 and {b.mode for b in bandits} == {"random"} and {b.ucb for b in bandits} == {2.5}
    assert {b.candidates for b in bandits} == {4}
    for values in ([b.lr for b in bandits], [b.smoothing.width for b in bandits]):
        assert 60 < min(values.count(v) for v in set(values)) and len(set(values)) == 2
    assert {b.lr for b in bandits} == {0.3, 0.7} and {b.smoothing.width for b in bandits} == {1, 5}


def test_an_ensemble_picks_one_of_all_its_bandits_proposals_uniformly():
    ensemble = BanditPopulation(PopulationParams(bandits=2, candidates=2, modes=["argmax"], widths=[0]),
                                BehaviorSpace((X,), (0.0,)), np.random.default_rng(0)).ensembles[0]
    first, second = ensemble.bandits
    first.w[:], second.w[:] = np.eye(10)[[0]] * 9 + np.eye(10)[[1]] * 8, np.eye(10)[[5]] * 9 + np.eye(10)[[7]] * 8
    rng = np.random.default_rng(0)
    counts = np.bincount([X.block_of(ensemble.sample(rng)[0]) for _ in range(800)], minlength=10)
    assert set(np.flatnonzero(counts)) == {0, 1, 5, 7} and counts.min(initial=800, where=counts > 0) > 160


def test_values_spread_by_1e_8_are_z_scored_and_less_spread_ones_are_not():
    b = Bandit(Grid([Coordinate("x", 0, 2, 1.0)]), Window((2,), 0), lr=0.1, mode="argmax", ucb=0.0, candidates=1)
    b.w[:] = [-1e-8, 1e-8]  # std exactly 1e-8
    assert b.scores().tolist() == [-1.0, 1.0]
    b.w[:] = [-0.5e-8, 0.5e-8]
    assert b.scores().tolist() == [0.0, 0.0]
