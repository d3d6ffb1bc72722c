"""BoardBatch makes, for many sources at once, the boards the scalar generator makes, draw for draw."""

import numpy as np
import pytest
from zoo_gohr.engine.board import BoardGenerator
from zoo_gohr.engine.constants import LEGACY_COLORS, LEGACY_SHAPES
from zoo_gohr.engine.javarandom import JavaRandom, jumps
from zoo_gohr.vector.board_batch import BoardBatch

MULT, ADD, MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

PARAMS = {
    "paper": {"objects": (9, 9), "shapes": (4, 4), "colors": (4, 4)},
    "ranges": {"objects": (4, 14), "shapes": (0, 3), "colors": (1, 4)},
    "free draws": {"objects": (1, 36), "shapes": (0, 0), "colors": (0, 0)},
    "custom sets": {"objects": (5, 5), "shapes": (2, 2), "colors": (0, 0),
                    "names": (("a", "b", "c", "d", "e"), ("x", "y", "z"))},
    "empty boards": {"objects": (0, 2), "shapes": (0, 0), "colors": (0, 0)},
}


def _generator(seed, objects, shapes, colors, names=(LEGACY_SHAPES, LEGACY_COLORS)):
    return BoardGenerator(*objects, *shapes, *colors, shapes=names[0], colors=names[1], rng=JavaRandom(seed))


def _kinds(board, gen):
    kinds = np.full(36, -1, np.int16)
    for p in board.pieces:
        kinds[p.pos - 1] = gen.shapes.index(p.shape) * len(gen.colors) + gen.colors.index(p.color)
    return kinds


def _assert_same_boards(seeds, params, rounds=20, batch=40):
    scalar = [_generator(s, **params) for s in seeds]
    boards = BoardBatch([_generator(s, **params) for s in seeds])
    rng = np.random.default_rng(0)
    for _ in range(rounds):
        envs = np.sort(rng.choice(len(seeds), min(batch, len(seeds)), replace=False))
        got = boards.next_boards(envs)
        for row, env in enumerate(envs):
            np.testing.assert_array_equal(got[row], _kinds(scalar[env].next_board(), scalar[env]))
        assert boards.states.tolist() == [g.rng.state for g in scalar]


@pytest.mark.parametrize("params", PARAMS.values(), ids=PARAMS)
def test_same_boards_as_the_generator(params):
    _assert_same_boards(range(1, 200), params)


def test_jumps_are_successive_states():
    rng = JavaRandom(5)
    start = rng.state
    A, C = jumps(4)
    for a, c in zip(A, C):
        rng.next_bits(1)
        assert rng.state == (a * start + c) & MASK


def _seed_drawing_at(k: int) -> int:
    """A seed whose k-th draw (1-based) has next(31) = 2**31 - 1, which nextInt rejects for bounds
    such as 36 and 10."""
    inverse = pow(MULT, -1, 1 << 48)
    state = (2**31 - 1) << 17
    for _ in range(k):
        state = (state - ADD) * inverse & MASK
    return state ^ MULT


@pytest.mark.parametrize("params,k", [("paper", 1), ("paper", 9), ("paper", 19), ("ranges", 1), ("ranges", 4)])
def test_boards_with_rejected_draws(params, k):
    """Java redraws when next(31) falls in the biased tail (here draws of bounds 36, 28, 9, 11 and 36):
    such boards come out the same too."""
    seed = _seed_drawing_at(k)
    rng = JavaRandom(seed)
    assert [rng.next_bits(31) for _ in range(k)][-1] == 2**31 - 1
    _assert_same_boards([seed, 7, 8], PARAMS[params], rounds=3, batch=3)


def test_fits_plain_random_sources_only():
    paper = [_generator(s, **PARAMS["paper"]) for s in (1, 2)]
    assert BoardBatch.fits(paper)
    assert not BoardBatch.fits(paper + [_generator(3, **PARAMS["ranges"])])
    assert not BoardBatch.fits([BoardGenerator(12, crowded=True, seed=1)])
    assert not BoardBatch.fits([BoardGenerator(9, images={"img": {"k": 1}}, seed=1)])
