"""The GOHR paper's feature map: layout, hand-computed vectors, and the FeatureMap contract."""

from __future__ import annotations

import numpy as np
from zoo_gohr.engine.board import Board, Piece
from zoo_gohr.plugin import GohrEnvParams, make_env
from zoo_gohr.vector.features import GohrPaperFeatures

from zoo.features import FeatureMap

# STAR RED in cell 1 (x 1, y 1) and CIRCLE YELLOW in cell 2 (x 2, y 1)
BOARD = [Piece(0, 1, 1, "STAR", "RED"), Piece(1, 2, 1, "CIRCLE", "YELLOW")]


def _env(rule="paper/b3_then_b1", **board):
    params = GohrEnvParams(rule=rule, board=board)
    env = make_env(params, 0)
    env.reset(options={"board": Board(list(BOARD))})
    return env


def test_dimension_is_3720_for_the_paper_and_follows_the_set_sizes():
    assert GohrPaperFeatures().size == 3720
    assert [n for _, n in GohrPaperFeatures().blocks] == [4, 4, 4, 16, 16, 16, 20, 20, 20] + [400] * 9
    # 3 shapes x 2 colors x 4 buckets: 9 + 26 + 38 + (12 + 20 + 15) * 26
    small = GohrPaperFeatures(("SQUARE", "STAR", "CIRCLE"), ("RED", "BLUE"))
    assert small.size == 9 + 26 + 38 + 47 * 26 == 1295
    assert small.index_table.max() == small.pad == 1295


def test_hand_computed_vector_before_any_accepted_move():
    features = GohrPaperFeatures()
    env = _env()
    assert isinstance(features, FeatureMap)
    active = features.active(env)
    # STAR (0) RED (0) to bucket 2, last move none: each block's local index, plus its offset
    assert sorted(active[2].tolist()) == [0, 4, 10, 12, 30, 46, 60, 80, 102,
                                          120, 522, 922, 1320, 1722, 2122, 2520, 2922, 3322]
    assert active[8].tolist() == [8]  # an empty cell (3) to bucket 0: only the bucket unary
    assert sum(len(a) == 18 for a in active) == 8 and sum(len(a) == 1 for a in active) == 136


def test_hand_computed_vector_after_an_accepted_move():
    features = GohrPaperFeatures()
    env = _env()
    assert env.step(3)[1] == 0.0  # STAR RED from cell 1 to bucket 3: accepted by B3 then B1
    active = features.active(env)
    # CIRCLE (3) YELLOW (3) from cell 2 to bucket 1, after (STAR, RED, bucket 3)
    assert sorted(active[5].tolist()) == [3, 7, 9, 27, 41, 57, 67, 87, 117,
                                          231, 629, 1029, 1479, 1877, 2277, 2679, 3077, 3477]
    assert [a.tolist() for a in active[0:4]] == [[8], [9], [10], [11]]  # cell 1 is empty now
    dense = features.dense(env)
    assert dense.shape == (144, 3720) and dense[5].nonzero()[0].tolist() == sorted(active[5].tolist())


def test_ids_follow_the_authors_whatever_order_the_board_lists_its_sets():
    listed = _env(shapes=["circle", "triangle", "square", "star"], colors=["yellow", "black", "blue", "red"])
    default = _env()
    for env in (listed, default):
        env.step(3)
    from_listed = GohrPaperFeatures(["circle", "triangle", "square", "star"], ["yellow", "black", "blue", "red"])
    assert [a.tolist() for a in from_listed.active(listed)] == [a.tolist() for a in GohrPaperFeatures().active(default)]


def test_keys_of_a_batch_match_one_at_a_time():
    features = GohrPaperFeatures()
    envs = [make_env(GohrEnvParams(rule="paper/clockwise"), seed) for seed in range(5)]
    rng = np.random.default_rng(0)
    for env in envs:
        for action in rng.integers(0, 144, 30):
            env.step(int(action))
    types, last = features.keys(np.stack([env.observation() for env in envs]))
    for i, env in enumerate(envs):
        one_types, one_last = features.keys(env.observation())
        assert (one_types[0] == types[i]).all() and one_last[0] == last[i]
        occupied = {p.pos for p in env.game.pieces()}
        assert {c + 1 for c in np.flatnonzero(types[i] != features.n_types)} == occupied
