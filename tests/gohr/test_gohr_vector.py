"""GohrVectorEnv: step for step the same as SyncVectorEnv over GohrEnv (with either engine: numpy
tables or Game objects), masks, autoreset, wrappers."""

import warnings
from functools import partial

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics
from shared_data import GOLDEN, RULES_ROOT, require_shared

from zoo_gohr import RuleRuntimeError
from zoo_gohr.board import LEGACY_COLORS, LEGACY_SHAPES, BoardGenerator
from zoo_gohr.boards import random_boards
from zoo_gohr.cellstates import EMPTY
from zoo_gohr.env import GohrEnv
from zoo_gohr.game import Code
from zoo_gohr.gamelist import GameList
from zoo_gohr.javarandom import JavaRandom
from zoo_gohr.parser import load_rules, parse_rules
from zoo_gohr.plugin import BoardParams, GohrEnvParams, make_env
from zoo_gohr.rulesets import load_named_rules, rule_names, shipped_rule_sets
from zoo_gohr.tablegames import TableGames
from zoo_gohr.vector import GohrVectorEnv, make_vector_env

N = 6
SC = {"shapes": LEGACY_SHAPES, "colors": LEGACY_COLORS}
BOARDS = {  # random board parameters
    "paper": dict(min_objects=9, max_objects=9, min_shapes=4, max_shapes=4, min_colors=4, max_colors=4),
    "ranges": dict(min_objects=2, max_objects=14, min_shapes=0, max_shapes=2, min_colors=1, max_colors=1),
}
GAME_OBJECT_RULES = ("gohr/BRM/brm-02", "gohr/BRM/brm-04", "gohr/vm/gs5-example05")  # they read q.K


def _crowded(seed):
    """Boards where several pieces may share a cell (their moves answer MULTIPLE_OBJECTS_IN_CELL)."""
    return BoardGenerator(12, crowded=True, rng=JavaRandom(seed))


def _pair_from_spec(rule, horizon):
    params = GohrEnvParams(rule=rule, horizon=horizon)
    return make_vector_env(params, N, None), SyncVectorEnv([partial(make_env, params, None)] * N)


def _pair(rules, boards, horizon, n=N, sc=SC):
    return (GohrVectorEnv(rules, boards, n, horizon=horizon, **sc),
            SyncVectorEnv([partial(GohrEnv, rules, boards, horizon=horizon, **sc)] * n))


def _random_boards(name, sc=SC):
    return partial(random_boards, **BOARDS[name], **sc)


def _actions(rng, mask, state):
    """A third uniform over all 144 actions, a third over the occupied cells, a third over the
    moves the vector env's cell states say are accepted (so lines change and boards get cleared)."""
    actions = rng.integers(0, 144, len(mask))
    for i, row in enumerate(mask):
        u = rng.random()
        accepted = [4 * cell + b for cell in np.flatnonzero(state[i] < EMPTY) for b in range(4) if state[i, cell] >> b & 1]
        if u < 1 / 3 and accepted:
            actions[i] = rng.choice(accepted)
        elif u < 2 / 3 and row.any():
            actions[i] = rng.choice(np.flatnonzero(row))
    return actions


def _assert_equivalent(vec, ref, steps, seed=7):
    rng = np.random.default_rng(seed)
    obs, info = vec.reset(seed=seed)
    ref_obs, ref_info = ref.reset(seed=seed)
    np.testing.assert_array_equal(obs, ref_obs)
    np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
    seen = set()
    for _ in range(steps):
        actions = _actions(rng, info["action_mask"], vec.engine.state)
        obs, rew, term, trunc, info = vec.step(actions)
        ref_obs, ref_rew, ref_term, ref_trunc, ref_info = ref.step(actions)
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(rew, ref_rew)
        np.testing.assert_array_equal(term, ref_term)
        np.testing.assert_array_equal(trunc, ref_trunc)
        stepped = info["_code"]
        np.testing.assert_array_equal(stepped, ref_info.get("_code", np.zeros(vec.num_envs, bool)))  # absent: all reset
        if stepped.any():
            np.testing.assert_array_equal(info["code"][stepped], ref_info["code"][stepped])
            np.testing.assert_array_equal(info["accepted"][stepped], ref_info["accepted"][stepped])
        np.testing.assert_array_equal(info["finish"], ref_info["finish"])
        np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
        seen.update(info["code"].tolist())
    return seen, rng


@pytest.mark.parametrize("rule", ["paper/clockwise", "paper/b23_then_b01", "gohr/MLC/BMK/position_A",
                                  "gohr/FDCL/basic/ordL1_Nearby", "gohr/vm/gs5-example06"])
def test_equivalent_to_gohr_env(rule):
    vec, ref = _pair_from_spec(rule, horizon=40)
    seen, _ = _assert_equivalent(vec, ref, steps=600)
    assert {Code.ACCEPT, Code.EMPTY_CELL, Code.NEW_GAME} <= seen
    assert isinstance(vec.engine, TableGames)


@pytest.mark.parametrize("boards", BOARDS)
@pytest.mark.parametrize("rule", ["paper/color_match", "paper/clockwise", "paper/b23_then_b01", "paper/b3_then_b1",
                                  "gohr/MLC/BMK/position_A", "gohr/FDCL/basic/ordL1_Nearby", "gohr/pk/history_A",
                                  "gohr/vm/gs5-example06", "gohr/FDCL/basic/ordRevOfL1_Remotest", "gohr/1",
                                  "gohr/rules-03", "gohr/pk/history_C", "gohr/MLC/vm/test-05",
                                  "gohr/FDCL/basic/shaOrdL1_csqt"])
def test_table_engine_with_many_boards(rule, boards):
    """24 envs on short episodes: boards are made for many seeds at once, many times over."""
    vec, ref = _pair(load_named_rules(rule), _random_boards(boards), horizon=12, n=24)
    seen, _ = _assert_equivalent(vec, ref, steps=150, seed=3)
    assert isinstance(vec.engine, TableGames) and {Code.ACCEPT, Code.NEW_GAME} <= seen


def test_edge_case_rules_on_random_boards():
    """The golden edge-case rules (postpos, counters, stalemates, comparison quirks, custom orders)."""
    require_shared()
    files = sorted((GOLDEN / "edge").glob("*.rules.txt"))
    assert len(files) == 11
    for file in files:
        vec, ref = _pair(load_rules(file), _random_boards("paper"), horizon=20, n=12)
        _assert_equivalent(vec, ref, steps=120, seed=5)
        assert isinstance(vec.engine, TableGames), file.name


@pytest.mark.parametrize("rule_set", ["paper", "gohr"])
def test_every_shipped_rule(rule_set):
    """Every shipped rule: the numpy tables for all but those reading q.K."""
    for rule in rule_names({rule_set: shipped_rule_sets()[rule_set]}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vec, ref = _pair(load_named_rules(rule), _random_boards("paper"), horizon=20, n=8)
        _assert_equivalent(vec, ref, steps=50, seed=9)
        assert isinstance(vec.engine, GameList if rule in GAME_OBJECT_RULES else TableGames), rule


@pytest.mark.parametrize("rule", [
    "0 (*, *, *, *, *)\n(1, *, *, *, [1, 2]) (0, star, *, *, 3)\n2 (*, *, *, *, 0) (1, *, red, *, [0, 3])",
    "Order Rings=[[15,16,21,22],[8,9,10,11]]\n(2, *, *, Rings, [0, 1]) (1, circle, *, [1, 2, Rings], [1, 2])",
    "(color:red, postpos:[T, 7]) (shape:star, pos:[B, L], bucket:[ps + 1, 0])\n(postpos:Farthest, bucket:Remotest)",
    "(code: last.bucket != p, bucket: [!last * 2, pc]) (code: this.color == last.color, bucket: this.bucket)",
    '(1, *, *, *, *)\n(color: last.color) (shape: [last.shape, "STAR"], bucket: p + 1)',
])
@pytest.mark.parametrize("boards", BOARDS)
def test_hand_written_rules(rule, boards):
    """Zero counts, atoms sharing an accepted move, custom orders, postpos, per-bucket tests and
    shapes or colors given by expressions."""
    vec, ref = _pair(parse_rules(rule), _random_boards(boards), horizon=25, n=16)
    seen, _ = _assert_equivalent(vec, ref, steps=200, seed=6)
    assert isinstance(vec.engine, TableGames) and Code.ACCEPT in seen


def test_custom_shape_and_color_sets():
    """Boards of custom shapes and colors, observed through sets that miss some of them."""
    rules = parse_rules("(*, A, [x, y], *, [0, 1]) (*, *, *, L1, ps)\n(2, *, z, *, [pc, 3])\n(*, b, *, T, p + 2)")
    boards = partial(random_boards, min_objects=6, max_objects=10, min_shapes=2, max_shapes=3, min_colors=0,
                     max_colors=0, shapes=("a", "b", "c"), colors=("x", "y", "z", "w"))
    observed = {"shapes": ("b", "a", "d"), "colors": ("z", "x", "y")}
    vec, ref = _pair(rules, boards, horizon=15, n=16, sc=observed)
    seen, _ = _assert_equivalent(vec, ref, steps=200, seed=4)
    assert isinstance(vec.engine, TableGames) and Code.ACCEPT in seen


def test_equivalent_with_stalemates_and_crowded_cells(tmp_path):
    """Boards without a red square start stalemated (NO_GAME); removing the last one ends in stalemate."""
    rule = tmp_path / "red_squares.txt"
    rule.write_text("(*, square, red, *, 0)\n")
    vec, ref = _pair(load_named_rules(str(rule)), _crowded, horizon=30)
    seen, _ = _assert_equivalent(vec, ref, steps=400)
    assert {Code.ACCEPT, Code.DENY, Code.IMMOVABLE, Code.NO_GAME, Code.MULTIPLE_OBJECTS_IN_CELL} <= seen
    assert isinstance(vec.engine, GameList)
    vec, ref = _pair(load_named_rules(str(rule)), _random_boards("paper"), horizon=30)
    seen, _ = _assert_equivalent(vec, ref, steps=300)
    assert isinstance(vec.engine, TableGames) and {Code.NO_GAME, Code.ACCEPT} <= seen


def test_game_objects_for_rules_reading_q_and_for_predefined_boards():
    require_shared()
    vec, ref = _pair_from_spec("gohr/BRM/brm-04", horizon=30)
    _assert_equivalent(vec, ref, steps=200)
    assert isinstance(vec.engine, GameList)
    params = GohrEnvParams(rule="paper/clockwise", horizon=30, board=BoardParams(predefined=str(RULES_ROOT / "boards")))
    vec, ref = make_vector_env(params, N, None), SyncVectorEnv([partial(make_env, params, None)] * N)
    _assert_equivalent(vec, ref, steps=200)
    assert isinstance(vec.engine, GameList)


@pytest.mark.parametrize("rule", ["(1, *, *, *, *)\n(*, *, *, *, last.color + 1)",
                                  "(1, *, *, *, *)\n(code: this.pos + last.shape)"])
def test_rule_errors_at_the_same_step(rule):
    """A rule that does arithmetic on a name fails at the first move that evaluates it, in both envs."""
    vec, ref = _pair(parse_rules(rule), _random_boards("paper"), horizon=50)
    steps = []
    for env in (vec, ref):
        rng = np.random.default_rng(1)
        env.reset(seed=2)
        with pytest.raises(RuleRuntimeError):
            for step in range(100):
                env.step(_actions(rng, np.ones((N, 144), bool), vec.engine.state))
        steps.append(step)
    assert steps[0] == steps[1]


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


def test_rule_errors_on_some_pieces_only():
    """A rule whose static part fails on stars fails at the first board with a star, in both envs."""
    rules = parse_rules("(*, star, *, *, this.shape + 1) (*, square, *, *, 0)")
    boards = partial(random_boards, min_objects=2, max_objects=2, min_shapes=1, max_shapes=1, min_colors=0,
                     max_colors=0, shapes=("SQUARE", "STAR"), colors=LEGACY_COLORS)
    seed = next(s for s in range(1, 100) if boards(s).next_board().pieces[0].shape == "SQUARE")
    vec, ref = _pair(rules, boards, horizon=2, n=1)
    steps = []
    for env in (vec, ref):
        env.reset(seed=seed)
        with pytest.raises(RuleRuntimeError):
            for step in range(100):
                env.step(np.zeros(1, int))
        steps.append(step)
    assert steps[0] == steps[1] and isinstance(vec.engine, GameList)

