"""The vector env's numpy engine (TableGames over RuleTables) plays exactly as GohrEnv: many rules,
board ranges, shape and color sets, random rules, and rule errors at the same move."""

import random
import warnings
from functools import partial

import pytest
from gohr_vector_pairs import BOARDS, assert_equivalent, pair, random_boards_of
from shared_data import GOLDEN, require_shared
from zoo_gohr import RuleRuntimeError
from zoo_gohr.board_sources import random_boards
from zoo_gohr.engine.constants import LEGACY_COLORS
from zoo_gohr.engine.errors import RuleSyntaxError
from zoo_gohr.engine.game import Code
from zoo_gohr.engine.parser import load_rules, parse_rules
from zoo_gohr.named_rules import load_named_rules, rule_names, shipped_rule_sets
from zoo_gohr.vector.game_list import GameList
from zoo_gohr.vector.table_games import TableGames

GAME_OBJECT_RULES = ("gohr/BRM/brm-02", "gohr/BRM/brm-04", "gohr/vm/gs5-example05")  # they read q.K
TERMS = ["p", "ps", "pc", "p.shape", "last.pos", "last.bucket", "last.color", "this.pos", "this.bucket", "this.color",
         "Nearby", "Remotest", "last", "0", "1", "3", '"RED"', "(last.pos - 1) / 6", "this.pos % 6"]


def _expression(rng: random.Random, depth: int = 0) -> str:
    if depth > 1 or rng.random() < 0.4:
        return rng.choice(TERMS)
    a, b, kind = _expression(rng, depth + 1), _expression(rng, depth + 1), rng.random()
    if kind < 0.3:
        return f"{a} {rng.choice('+-*/%')} {b}"
    if kind < 0.55:
        return f"{a} {rng.choice(['==', '!=', '<', '>='])} {b}"
    return f"!{a}" if kind < 0.7 else f"[{a}, {b}]"


def _random_rule(rng: random.Random) -> str:
    """A rule of 1-3 lines of 1-3 atoms drawing on counts, orders, postpos and expressions."""
    fields = {"count": ["0", "1", "3"], "shape": ["star", "[square, circle]", "last.shape", '[ps, "STAR"]'],
              "color": ["red", "last.color", '"BLACK"'], "pos": ["L1", "T", "[B, 7]", "NearestObject", "[1, 2, 12]"],
              "postpos": ["L1", "T", "[L, 36]"], "bucket": ["[0, 1]", "Nearby", "p + 1", "[!p * [0, 1, 2, 3], p + 1]"],
              "code": []}
    lines = []
    for _ in range(rng.randint(1, 3)):
        atoms = []
        for _ in range(rng.randint(1, 3)):
            chosen = [f"{key}: {rng.choice(values + [_expression(rng)] * (key in ('bucket', 'code')))}"
                      for key, values in fields.items() if rng.random() < 0.35]
            atoms.append(f"({', '.join(chosen)})")
        lines.append(rng.choice(["", "", "1 ", "2 "]) + " ".join(atoms))
    return "\n".join(lines)


@pytest.mark.parametrize("boards", BOARDS)
@pytest.mark.parametrize("rule", ["paper/color_match", "paper/clockwise", "paper/b23_then_b01", "paper/b3_then_b1",
                                  "gohr/MLC/BMK/position_A", "gohr/FDCL/basic/ordL1_Nearby", "gohr/pk/history_A",
                                  "gohr/vm/gs5-example06", "gohr/FDCL/basic/ordRevOfL1_Remotest", "gohr/1",
                                  "gohr/rules-03", "gohr/pk/history_C", "gohr/MLC/vm/test-05",
                                  "gohr/FDCL/basic/shaOrdL1_csqt"])
def test_table_engine_with_many_boards(rule, boards):
    """24 envs on short episodes: boards are made for many seeds at once, many times over."""
    vec, ref = pair(load_named_rules(rule), random_boards_of(boards), horizon=12, n=24)
    seen = assert_equivalent(vec, ref, steps=150, seed=3)
    assert isinstance(vec.engine, TableGames) and {Code.ACCEPT, Code.NEW_GAME} <= seen


def test_edge_case_rules_on_random_boards():
    """The golden edge-case rules (postpos, counters, stalemates, comparison quirks, custom orders)."""
    require_shared()
    files = sorted((GOLDEN / "edge").glob("*.rules.txt"))
    assert len(files) == 11
    for file in files:
        vec, ref = pair(load_rules(file), random_boards_of("paper"), horizon=20, n=12)
        assert_equivalent(vec, ref, steps=120, seed=5)
        assert isinstance(vec.engine, TableGames), file.name


@pytest.mark.parametrize("rule_set", ["paper", "gohr"])
def test_every_shipped_rule(rule_set):
    """Every shipped rule: the numpy tables for all but those reading q.K."""
    for rule in rule_names({rule_set: shipped_rule_sets()[rule_set]}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vec, ref = pair(load_named_rules(rule), random_boards_of("paper"), horizon=20, n=8)
        assert_equivalent(vec, ref, steps=50, seed=9)
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
    vec, ref = pair(parse_rules(rule), random_boards_of(boards), horizon=25, n=16)
    seen = assert_equivalent(vec, ref, steps=200, seed=6)
    assert isinstance(vec.engine, TableGames) and Code.ACCEPT in seen


def test_custom_shape_and_color_sets():
    """Boards of custom shapes and colors, observed through sets that miss some of them."""
    rules = parse_rules("(*, A, [x, y], *, [0, 1]) (*, *, *, L1, ps)\n(2, *, z, *, [pc, 3])\n(*, b, *, T, p + 2)")
    boards = partial(random_boards, min_objects=6, max_objects=10, min_shapes=2, max_shapes=3, min_colors=0,
                     max_colors=0, shapes=("a", "b", "c"), colors=("x", "y", "z", "w"))
    observed = {"shapes": ("b", "a", "d"), "colors": ("z", "x", "y")}
    vec, ref = pair(rules, boards, horizon=15, n=16, sc=observed)
    seen = assert_equivalent(vec, ref, steps=200, seed=4)
    assert isinstance(vec.engine, TableGames) and Code.ACCEPT in seen


@pytest.mark.parametrize("rule", ["(1, *, *, *, *)\n(*, *, *, *, last.color + 1)",
                                  "(1, *, *, *, *)\n(code: this.pos + last.shape)"])
def test_rule_errors_at_the_same_step(rule):
    """A rule that does arithmetic on a name fails at the first move that evaluates it, in both envs."""
    vec, ref = pair(parse_rules(rule), random_boards_of("paper"), horizon=50)
    with pytest.raises(RuleRuntimeError):
        assert_equivalent(vec, ref, steps=100, seed=2)


def test_rule_errors_on_some_pieces_only():
    """A rule whose static part fails on stars fails at the first board with a star, in both envs."""
    rules = parse_rules("(*, star, *, *, this.shape + 1) (*, square, *, *, 0)")
    boards = partial(random_boards, min_objects=2, max_objects=2, min_shapes=1, max_shapes=1, min_colors=0,
                     max_colors=0, shapes=("SQUARE", "STAR"), colors=LEGACY_COLORS)
    seed = next(s for s in range(1, 100) if boards(s).next_board().pieces[0].shape == "SQUARE")
    vec, ref = pair(rules, boards, horizon=2, n=1)
    with pytest.raises(RuleRuntimeError):
        assert_equivalent(vec, ref, steps=100, seed=seed)
    assert isinstance(vec.engine, GameList)


def test_random_rules():
    """Random rules: the same play, or the same rule error at the same step."""
    played = failed = 0
    for k in range(60):
        rng = random.Random(k)
        try:
            rules = parse_rules(_random_rule(rng))
        except RuleSyntaxError:
            continue
        vec, ref = pair(rules, random_boards_of(rng.choice(list(BOARDS))), horizon=rng.choice([10, 30]), n=8)
        try:
            assert_equivalent(vec, ref, steps=40, seed=k)
        except RuleRuntimeError:
            failed += 1
        else:
            played += isinstance(vec.engine, TableGames)
    assert played >= 35 and failed >= 3
