"""GohrVectorEnv: step for step the same as SyncVectorEnv over GohrEnv, masks, autoreset, seeds,
wrappers; which engine plays which games."""

import warnings
from functools import partial

import numpy as np
import pytest
from gohr_vector_pairs import N, assert_equivalent, pair, random_boards_of
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics
from shared_data import RULES_ROOT, require_shared
from zoo_gohr.engine.board import BoardGenerator
from zoo_gohr.engine.game import Code
from zoo_gohr.engine.javarandom import JavaRandom
from zoo_gohr.named_rules import load_named_rules
from zoo_gohr.plugin import BoardParams, GohrEnvParams, make_env, make_vector_env
from zoo_gohr.vector.game_list import GameList
from zoo_gohr.vector.table_games import TableGames


def _crowded(seed):
    """Boards where several pieces may share a cell (their moves answer MULTIPLE_OBJECTS_IN_CELL)."""
    return BoardGenerator(12, crowded=True, rng=JavaRandom(seed))


def _pair_from_spec(rule, horizon):
    params = GohrEnvParams(rule=rule, horizon=horizon)
    return make_vector_env(params, N, None), SyncVectorEnv([partial(make_env, params, None)] * N)


@pytest.mark.parametrize("rule", ["paper/clockwise", "paper/b23_then_b01", "gohr/MLC/BMK/position_A",
                                  "gohr/FDCL/basic/ordL1_Nearby", "gohr/vm/gs5-example06"])
def test_equivalent_to_gohr_env(rule):
    vec, ref = _pair_from_spec(rule, horizon=40)
    seen = assert_equivalent(vec, ref, steps=600)
    assert {Code.ACCEPT, Code.EMPTY_CELL, Code.NEW_GAME} <= seen
    assert isinstance(vec.engine, TableGames)


def test_equivalent_with_stalemates_and_crowded_cells(tmp_path):
    """Boards without a red square start stalemated (NO_GAME); removing the last one ends in stalemate."""
    rule = tmp_path / "red_squares.txt"
    rule.write_text("(*, square, red, *, 0)\n")
    vec, ref = pair(load_named_rules(str(rule)), _crowded, horizon=30)
    seen = assert_equivalent(vec, ref, steps=400)
    assert {Code.ACCEPT, Code.DENY, Code.IMMOVABLE, Code.NO_GAME, Code.MULTIPLE_OBJECTS_IN_CELL} <= seen
    assert isinstance(vec.engine, GameList)
    vec, ref = pair(load_named_rules(str(rule)), random_boards_of("paper"), horizon=30)
    seen = assert_equivalent(vec, ref, steps=300)
    assert isinstance(vec.engine, TableGames) and {Code.NO_GAME, Code.ACCEPT} <= seen


def test_game_objects_for_rules_reading_q_and_for_predefined_boards():
    require_shared()
    vec, ref = _pair_from_spec("gohr/BRM/brm-04", horizon=30)
    assert_equivalent(vec, ref, steps=200)
    assert isinstance(vec.engine, GameList)
    params = GohrEnvParams(rule="paper/clockwise", horizon=30, board=BoardParams(predefined=str(RULES_ROOT / "boards")))
    vec, ref = make_vector_env(params, N, None), SyncVectorEnv([partial(make_env, params, None)] * N)
    assert_equivalent(vec, ref, steps=200)
    assert isinstance(vec.engine, GameList)


def test_action_masks_mark_occupied_cells():
    vec = make_vector_env(GohrEnvParams(rule="paper/color_match"), N, 3)
    mask = vec.action_masks().reshape(N, 36, 4)
    assert mask.shape == (N, 36, 4) and (mask.all(axis=2) == mask.any(axis=2)).all()
    assert (mask[:, :, 0].sum(axis=1) == 9).all()
    occupied = np.flatnonzero(mask[0, :, 0])
    for cell in range(36):  # moves on an empty cell are answered EMPTY_CELL, others are not
        actions = np.zeros(N, int)
        actions[0] = cell * 4
        code = vec.step(actions)[4]["code"][0]
        assert (code == Code.EMPTY_CELL) == (cell not in occupied)
        occupied = np.flatnonzero(vec.action_masks()[0].reshape(36, 4)[:, 0])


def test_next_step_autoreset():
    vec = make_vector_env(GohrEnvParams(rule="paper/color_match", horizon=3), N, 5)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    empty = np.full(N, 3 * 4)  # cell 4 of bucket 0 (never accepted twice in a row)
    for _ in range(2):
        _, _, term, trunc, _ = vec.step(empty)
        assert not (term | trunc).any()
    before = vec.action_masks()
    _, rew, term, trunc, info = vec.step(empty)
    assert (term | trunc).all()
    obs, rew, term, trunc, info = vec.step(empty)
    assert (rew == 0).all() and not (term | trunc).any()
    assert (info["code"] == Code.NEW_GAME).all() and not info["_code"].any()
    assert (vec.action_masks() != before).any()
    assert vec.observation_space.contains(obs)


def test_reset_seeds_and_errors():
    vec = make_vector_env(GohrEnvParams(rule="paper/clockwise"), N, None)
    with pytest.raises(RuntimeError):
        vec.step(np.zeros(N, int))
    obs, _ = vec.reset(seed=11)
    np.testing.assert_array_equal(vec.reset(seed=list(range(11, 11 + N)))[0], obs)
    assert not np.array_equal(vec.reset()[0], obs)  # the boards go on
    with pytest.raises(ValueError):
        vec.step(np.full(N, 144))
    with pytest.raises(ValueError):
        vec.reset(seed=[1, 2])


def test_gymnasium_vector_wrappers():
    vec = make_vector_env(GohrEnvParams(rule="paper/b3_then_b1", horizon=20), N, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = DictInfoToList(RecordEpisodeStatistics(vec))
        env.reset(seed=2)
        episodes = []
        for _ in range(50):
            obs, _, _, _, infos = env.step(env.action_space.sample())
            assert env.observation_space.contains(obs) and len(infos) == N
            episodes += [i["episode"] for i in infos if "episode" in i]
    assert episodes and all(e["l"] <= 20 for e in episodes)
