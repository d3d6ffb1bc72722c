"""Semantics of expressions, orders and the move-processing control flow (docs/algorithms/gohr-rules.md)."""
import pytest
from zoo_gohr import Board, Code, Finish, Game, Piece, RuleRuntimeError, board_from_json, nearby, parse_rules, remotest
from zoo_gohr.engine.compiler import EvalContext
from zoo_gohr.engine.expressions import compile_expr
from zoo_gohr.engine.lexer import tokenize
from zoo_gohr.engine.memory import Memory
from zoo_gohr.engine.orders import BUILTIN_ORDERS, eligible, group_masks
from zoo_gohr.engine.parser import _LineParser


def ev(text, piece=None, b=0, mem=None):
    e = _LineParser(tokenize(text, 1, "t"), "t", set()).expr()
    env = EvalContext(piece or Piece(0, 1, 1, "square", "red"), b, mem or Memory())
    return set(compile_expr(e).fn(env))


def mem_after(*moves):
    m = Memory()
    for piece, b in moves:
        m.record(piece, b)
    return m


def game(rules, *pieces):
    return Game(parse_rules(rules), Board(list(pieces)))


# ---------------------------------------------------------------- expressions
def test_arithmetic_is_java_int_cross_product():
    assert ev("[1,2]+[10,20]") == {11, 21, 12, 22}
    assert ev("-7/2") == {-3} and ev("-7%2") == {-1} and ev("7%-2") == {1}
    assert ev("[4,5]/[0,2]") == {2}                   # division by zero pairs dropped
    assert ev("2147483647+1") == {-2147483648}
    assert ev("p+1") == set()                         # empty operand -> empty


def test_comparisons_and_empty_operand_quirk():
    m = mem_after((Piece(1, 1, 1, "star", "blue"), 2))
    red = Piece(0, 1, 1, "square", "red")
    assert ev("p == pc", red, mem=m) == {2}           # right side empty -> left set
    assert ev("pc == p", red, mem=m) == set()
    assert ev("[] == []") == set()
    assert ev("[1,5] > 4") == {1} and ev("[1,2] > 4") == set()
    assert ev('"1" == 1') == set() and ev('"a" < "b"') == set()
    assert ev("1 != [1,2]") == {1}


def test_negation_lists_strings():
    assert ev("!p") == {1} and ev("!!p") == set() and ev("!p*[0,1,2,3]") == {0, 1, 2, 3}
    assert ev('[1, "RED", [2, 1]]') == {1, 2, "RED"}
    assert ev("red") == set()                         # unbound variable


def test_string_arithmetic_raises():
    m = mem_after((Piece(1, 1, 1, "star", "blue"), 2))
    assert ev("last.color+1") == set()                # empty: not evaluated
    with pytest.raises(RuleRuntimeError, match="non-number 'BLUE'"):
        ev("last.color+1", mem=m)


def test_memory_variables():
    sq_red = Piece(1, 1, 1, "square", "red")
    st_red = Piece(2, 6, 6, "star", "red")
    m = mem_after((sq_red, 3), (st_red, 1))
    me = Piece(0, 2, 1, "square", "blue")
    assert ev("p", me, mem=m) == {1}
    assert ev("ps", me, mem=m) == {3} and ev("pc", me, mem=m) == set()
    assert ev("p.shape", me, mem=m) == {3}
    assert ev("p.bucket", me, 1, m) == {1} and ev("p.bucket", me, 2, m) == set()
    assert ev("q.shape.pos", me, mem=m) == {1}
    assert ev("q.bucket.color", me, 3, m) == {"RED"}
    assert ev("last.pos", me, mem=m) == {36} and ev("last.bucket", me, mem=m) == {1}
    assert ev("this.pos", me) == {2} and ev("this.bucket", me, 2) == {2} and ev("this.color", me) == {"BLUE"}
    assert ev("Nearby", me) == {3} and ev("Remotest", me) == {1}
    assert ev("p.pos", Piece(5, 1, 1, "circle", "red"), mem=m) == {3}   # last bucket used from this cell


# ---------------------------------------------------------------- geometry and orders
def test_nearby_remotest_quadrants():
    assert [nearby(1, 6), nearby(6, 6), nearby(6, 1), nearby(1, 1)] == [0, 1, 2, 3]
    assert [nearby(3, 4), nearby(4, 4), nearby(4, 3), nearby(3, 3)] == [0, 1, 2, 3]
    assert remotest(1, 1) == 1 and remotest(4, 3) == 0


def test_builtin_orders():
    o = BUILTIN_ORDERS
    assert [g[0] for g in o["L1"][:7]] == [31, 32, 33, 34, 35, 36, 25]
    assert [g[0] for g in o["L2"][:7]] == [36, 35, 34, 33, 32, 31, 30]
    assert [g[0] for g in o["L3"][:7]] == [36, 30, 24, 18, 12, 6, 35]
    assert [g[0] for g in o["L4"][:7]] == [31, 25, 19, 13, 7, 1, 32]
    assert o["B"][0] == (1, 2, 3, 4, 5, 6) and o["T"][0] == (31, 32, 33, 34, 35, 36)
    assert o["L"][0] == (1, 7, 13, 19, 25, 31) and o["R"][0] == (6, 12, 18, 24, 30, 36)
    assert sorted(o["NearestObject"][0]) == [1, 6, 31, 36]
    assert sorted(o["NearestObject"][-1]) == [15, 16, 21, 22] == sorted(o["Farthest"][0])
    assert len(o["NearestObject"]) == 6


def test_eligibility_and_fallback():
    masks = group_masks(((5,), (7, 8), ()))
    occ = (1 << 8) | (1 << 7) | (1 << 30)
    assert eligible(masks, occ) == (1 << 7) | (1 << 8)
    assert eligible(masks, 1 << 30) == 1 << 30          # nothing listed is occupied: all eligible


# ---------------------------------------------------------------- control flow
def test_codes_and_counting():
    g = game("(*,*,*,*,0)", Piece(1, 1, 1, "square", "red"), Piece(2, 2, 1, "star", "red"))
    assert g.move(1, 1) == (Code.DENY, False, Finish.NO)
    assert g.move(9, 0).code == Code.INVALID_OBJECT_ID
    assert g.move_at(3, 0).code == Code.EMPTY_CELL and g.move_at(40, 0).code == Code.INVALID_POS
    assert g.move(1, 7).code == Code.INVALID_ARGUMENTS
    assert g.attempts == 1
    assert g.move_at(1, 0) == (Code.ACCEPT, True, Finish.NO)
    assert g.move(2, 0) == (Code.ACCEPT, True, Finish.FINISH)
    assert g.move(2, 0).code == Code.NO_GAME and g.attempts == 3


def test_immovable_and_hints():
    g = game("(*,square,*,*,[0,2])", Piece(1, 1, 1, "square", "red"), Piece(2, 2, 1, "star", "red"))
    assert g.allowed_buckets() == {1: [0, 2], 2: []}
    assert g.hint_mask(1) == 0b101
    assert g.move(2, 0).code == Code.IMMOVABLE


def test_counters_cycle_and_reset():
    g = game("1 (*,*,*,*,0)\n(1,*,*,*,1)", *[Piece(i, i, 1, "square", "red") for i in range(1, 6)])
    seq = [(1, 0), (2, 1), (3, 0), (4, 1), (5, 0)]
    for pid, b in seq:
        assert g.move(pid, 1 - b).code == Code.DENY
        assert g.move(pid, b).accepted
    assert g.finish == Finish.FINISH


def test_stalemate_after_accept_clears_hints():
    g = game("(1,square,*,*,*)", Piece(1, 1, 1, "square", "red"), Piece(2, 2, 1, "star", "red"))
    r = g.move(1, 0)
    assert r == (Code.ACCEPT, True, Finish.STALEMATE)
    assert g.allowed_buckets() == {2: []}


def test_crowded_cells_orders_and_postpos():
    pieces = [Piece(0, 5, 5, "square", "red"), Piece(1, 5, 5, "star", "red"), Piece(2, 1, 1, "star", "red")]
    g = game("Order O=[29, 1]\n(pos:O)", *pieces)
    assert g.allowed_buckets() == {0: [0, 1, 2, 3], 1: [0, 1, 2, 3], 2: []}
    assert g.move_at(29, 0).code == Code.MULTIPLE_OBJECTS_IN_CELL
    g = game("(color:red, postpos:T, bucket:3)", *pieces)
    assert g.allowed_buckets() == {0: [3], 1: [3], 2: []}


def test_custom_shapes_and_colors():
    g = game('(shape:hexagon, color:"Teal", bucket:2) (shape:["arrows/up"], bucket:1)',
             Piece(1, 1, 1, "hexagon", "teal"), Piece(2, 2, 1, "arrows/up", "red"))
    assert g.allowed_buckets() == {1: [2], 2: [1]}


def test_ipb_pieces_use_properties():
    board = board_from_json({"value": [
        {"id": 1, "x": 1, "y": 1, "image": "a.png", "angle": "45", "color": "red"},
        {"id": 2, "x": 2, "y": 1, "image": "b.png", "angle": "90", "color": "blue"},
        {"id": 3, "x": 3, "y": 1, "image": "c.png"}]})
    rs = parse_rules("(color:[red,orange], angle:[1..89], bucket:[1]) (angle:90, bucket:[0,1])")
    g = Game(rs, board)
    assert g.allowed_buckets() == {1: [1], 2: [0, 1], 3: []}
    assert g.board_json()[0] == {"angle": 45, "buckets": [1], "color": "red", "id": 1, "image": "a.png",
                                 "pos": 1, "x": 1, "y": 1}
    # property conditions are ignored for shape+color pieces
    g = Game(rs, Board([Piece(1, 1, 1, "square", "red")]))
    assert g.allowed_buckets() == {1: [0, 1]}


def test_copy_is_independent():
    g = game("(*,*,*,*,p+1) (1,*,*,*,0)", *[Piece(i, i, 1, "square", "red") for i in range(1, 4)])
    h = g.copy()
    assert g.move(1, 0).accepted
    assert h.allowed_buckets() == {1: [0], 2: [0], 3: [0]}
    assert g.allowed_buckets() == {2: [1], 3: [1]}
    assert h.move(2, 0).accepted and h.allowed_buckets() == {1: [1], 3: [1]}


def test_copy_keeps_its_own_counters():
    g = game("(2,*,*,*,0)\n(*,*,*,*,1)", *[Piece(i, i, 1, "square", "red") for i in range(1, 5)])
    h = g.copy()
    assert g.move(1, 0).accepted and g.move(2, 0).accepted
    assert h.move(1, 0).accepted and h.move(2, 0).accepted
    assert h.allowed_buckets() == g.allowed_buckets() == {3: [1], 4: [1]}


def test_code_guard_and_this_bucket():
    g = game("(code: this.bucket != 2)", Piece(1, 1, 1, "square", "red"))
    assert g.allowed_buckets() == {1: [0, 1, 3]}
    g = game('(code: this.color == red)', Piece(1, 1, 1, "square", "blue"))   # quirk: always true
    assert g.allowed_buckets() == {1: [0, 1, 2, 3]}
    g = game('(code: this.color == "RED")', Piece(1, 1, 1, "square", "blue"))
    assert g.allowed_buckets() == {1: []} and g.finish == Finish.STALEMATE


def test_unknown_order_is_rejected_at_parse_time():
    with pytest.raises(Exception, match="unknown order 'l1'"):
        parse_rules("(*,*,*,l1,*)")


def test_static_tables_for_vectorized_engines():
    cr = parse_rules("(*,star,*,*,0) (*,*,red,*,Nearby)\n(*,*,*,*,p+1)").compiled
    t = cr.static_table(["STAR", "SQUARE"], ["RED", "BLUE"])
    assert t.shape == (3, 2, 2, 37)
    assert t[0, 0, 1, 5] == 0b0001 and t[0, 1, 1, 5] == 0
    assert t[1, 1, 0, 31] == 0b0001 and t[1, 1, 0, 6] == 0b0100 and t[1, 1, 1, 6] == 0
    assert t[2, 1, 1, 6] == 0b1111
    assert [a.table_driven for a in cr.atoms] == [True, True, False]
