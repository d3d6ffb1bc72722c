"""The GOHR paper's feature map: layout, hand-computed vectors, and the FeatureMap contract."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pydantic import ValidationError
from zoo_gohr.engine.board import Board, Piece
from zoo_gohr.engine.constants import ACTIONS, BUCKETS
from zoo_gohr.plugin import GohrEnvParams, make_env
from zoo_gohr.vector.features import GohrFeatureParams, GohrPaperFeatures, make_features
from zoo_gohr.vector.layout import decode_action, encode_action
from zoo_sarsa.feature_maps import FeatureMap

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
    # a row per last move, per piece type (3 x 2) and for the empty cell, last (LinearQ reads it there)
    assert small.index_table.shape == (4 * 3 * 5, 3 * 2 + 1, 4, 18) and small.n_types == 6


def test_hand_computed_vector_before_any_accepted_move():
    features = GohrPaperFeatures()
    env = _env()
    assert isinstance(features, FeatureMap) and features.per_action  # active: one array of ones per action
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


# the 18 blocks of appendix A.1.1, in layout order; a leading "l" names a part of the last accepted move
BLOCKS = [("s",), ("c",), ("b",), ("s", "c"), ("s", "b"), ("c", "b"), ("ls", "s"), ("lc", "c"), ("lb", "b")]
BLOCKS += [(lu, lv, y, z) for lu, lv in (("ls", "lc"), ("ls", "lb"), ("lc", "lb")) for y, z in (("s", "c"), ("s", "b"), ("c", "b"))]
AUTHOR_IDS = ({"STAR": 0, "SQUARE": 1, "TRIANGLE": 2, "CIRCLE": 3}, {"RED": 0, "BLUE": 1, "BLACK": 2, "YELLOW": 3})
# a board of non-canonical sets: the authors' shapes first in their order, then the others as listed;
# 3 shapes and 3 colors, so that no offset is a multiple of 4 that a bitwise slip would leave intact
ODD_BOARD = {"shapes": ["circle", "hexagon", "star"], "colors": ["blue", "green", "red"], "min_shapes": 3, "min_colors": 3}
ODD_IDS = ({"STAR": 0, "CIRCLE": 1, "HEXAGON": 2}, {"RED": 0, "BLUE": 1, "GREEN": 2})


def _paper_columns(S, C, B) -> dict:
    """Every feature's column by its name (block, values): block by block, and inside a block the values
    in lexicographic order, with a last move's "none" (-1) before its values."""
    values = {"s": range(S), "c": range(C), "b": range(B), "ls": range(-1, S), "lc": range(-1, C), "lb": range(-1, B)}
    names = [(block, v) for block in BLOCKS for v in itertools.product(*(values[part] for part in block))]
    return {name: column for column, name in enumerate(names)}


def _paper_phi(env, ids, last, empty_cells) -> np.ndarray:
    """phi of every action of the env's state, dense (144, size), by the formulas of appendix A.1.1.

    A piece whose shape or color is outside the sets counts as an empty cell; `last` holds the parts
    of the last accepted move (ls, lc, lb; -1 for none, or for a part outside the sets)."""
    columns = _paper_columns(len(ids[0]), len(ids[1]), BUCKETS)
    at = {p.pos: p for p in env.unwrapped.game.pieces()}
    phi = np.zeros((ACTIONS, len(columns)), np.uint8)
    for action in range(ACTIONS):
        pos, bucket = decode_action(action)
        p = at.get(pos)
        if p is None or p.shape not in ids[0] or p.color not in ids[1]:
            ones = [(("b",), (bucket,))] + ([(("lb", "b"), (last["lb"], bucket))] if empty_cells == "printed" else [])
        else:
            value = {"s": ids[0][p.shape], "c": ids[1][p.color], "b": bucket, **last}
            ones = [(block, tuple(value[part] for part in block)) for block in BLOCKS]
        phi[action, [columns[name] for name in ones]] = 1
    return phi


@pytest.mark.parametrize("board, ids, strangers, empty_cells", [
    ({}, AUTHOR_IDS, [("STAR", "GREEN"), ("PENTAGON", "RED")], "coded"),
    ({}, AUTHOR_IDS, [("STAR", "GREEN"), ("PENTAGON", "RED")], "printed"),
    (ODD_BOARD, ODD_IDS, [("SQUARE", "RED"), ("STAR", "YELLOW")], "coded"),
    (ODD_BOARD, ODD_IDS, [("SQUARE", "RED"), ("STAR", "YELLOW")], "printed"),
])
def test_phi_along_random_play_follows_the_papers_formulas(board, ids, strangers, empty_cells):
    """Every action's features at every state of random play, against the formulas: keys, the index
    table, `active` and `dense` together. The first board holds two pieces outside the sets, which are
    moved first, to each bucket in turn until one accepts them (the last move then lacks a part)."""
    env = make_env(GohrEnvParams(rule="paper/clockwise", horizon=12, board=board), 1)  # every bucket accepts in turn
    features = make_features(GohrFeatureParams(empty_cells=empty_cells), env)
    assert features.size == len(_paper_columns(len(ids[0]), len(ids[1]), BUCKETS))
    shapes, colors = list(ids[0]), list(ids[1])
    mixed = [Piece(i, 1 + i, 2, *pair) for i, pair in enumerate(strangers)]
    mixed += [Piece(9 + i, 1 + i, 4, shapes[i % len(shapes)], colors[i % len(colors)]) for i in range(6)]
    script = [encode_action(p.pos, b) for p in mixed[:2] for b in range(BUCKETS)]
    rng, strangers_moved = np.random.default_rng(0), 0
    for episode in range(3):
        env.reset(options={"board": Board(mixed)} if episode == 0 else None)
        last, done = {"ls": -1, "lc": -1, "lb": -1}, False
        while not done:
            expected = _paper_phi(env, ids, last, empty_cells)
            assert np.array_equal(features.dense(env), expected)
            assert [a.tolist() for a in features.active(env)] == [np.flatnonzero(row).tolist() for row in expected]
            occupied = np.flatnonzero(env.unwrapped.action_masks())
            if script:
                action = script.pop(0)
            else:
                action = int(rng.choice(occupied) if rng.random() < 0.8 else rng.integers(ACTIONS))
            piece = {p.pos: p for p in env.unwrapped.game.pieces()}.get(decode_action(action)[0])
            _, reward, terminated, truncated, _ = env.step(action)
            if reward == 0:
                last = {"ls": ids[0].get(piece.shape, -1), "lc": ids[1].get(piece.color, -1), "lb": action % BUCKETS}
                strangers_moved += -1 in (last["ls"], last["lc"])
            done = terminated or truncated
    assert strangers_moved == 2


def test_the_map_takes_the_envs_sets_when_it_has_them_else_its_params():
    params = GohrFeatureParams(shapes=["circle", "hexagon", "star"], colors=["blue", "red"], empty_cells="printed")
    odd = make_features(params)
    assert (odd.shapes, odd.colors, odd.empty_cells) == (["STAR", "CIRCLE", "HEXAGON"], ["RED", "BLUE"], "printed")
    assert odd.size == len(_paper_columns(3, 2, BUCKETS))
    assert make_features(params, object()).shapes == odd.shapes  # not a GOHR env: the params' sets
    paper = make_features(params, make_env(GohrEnvParams(rule="paper/b3_then_b1"), 0))
    assert paper.size == 3720 and paper.empty_cells == "printed"
    assert GohrFeatureParams(shapes=["star"], colors=["red"]).shapes == ["star"]
    with pytest.raises(ValidationError, match="shapes"):
        GohrFeatureParams(shapes=[])
    with pytest.raises(ValidationError, match="colors"):
        GohrFeatureParams(colors=[])


def test_the_last_move_keys_number_the_index_tables_rows_one_each():
    for features in (GohrPaperFeatures(), make_features(GohrFeatureParams(**{k: ODD_BOARD[k] for k in ("shapes", "colors")}))):
        S, C = len(features.shapes), len(features.colors)
        keys = [features.last_key(ls, lc, lb) for ls in range(-1, S) for lc in range(-1, C) for lb in range(-1, BUCKETS)]
        assert sorted(keys) == list(range(features.n_last)) == list(range(len(features.index_table)))
