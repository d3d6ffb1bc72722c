"""The engine's fast paths agree with the plain ones: Piece.plain, JavaRandom.next_ints, lazy Memory,
merged plain-atom columns and Game.slot_hints."""

from zoo_gohr.engine.board import Board, BoardGenerator, Piece, xy
from zoo_gohr.engine.constants import LEGACY_COLORS, LEGACY_SHAPES
from zoo_gohr.engine.game import Game
from zoo_gohr.engine.javarandom import JavaRandom
from zoo_gohr.engine.memory import Memory
from zoo_gohr.named_rules import load_named_rules


def test_plain_pieces_equal_constructed_ones():
    for pos in (1, 6, 17, 31, 36):
        for shape in LEGACY_SHAPES:
            for color in LEGACY_COLORS:
                fast, slow = Piece.plain(3, pos, shape, color), Piece(3, *xy(pos), shape.lower(), color.lower())
                assert all(getattr(fast, k) == getattr(slow, k) for k in Piece.__slots__)


def test_next_ints_matches_next_int():
    bounds = [36, 35, 4, 7, 1000000007, 16, 1, 3]
    a, b = JavaRandom(99), JavaRandom(99)
    assert a.next_ints(bounds) == [b.next_int(n) for n in bounds]
    assert a.next_int(50) == b.next_int(50)


def test_lazy_memory_builds_last_and_by_on_demand():
    pieces = [Piece(1, 1, 1, "star", "red"), Piece(2, 2, 1, "square", "red")]
    m = Memory()
    m.record(pieces[0], 2)
    snapshot = m.copy()
    m.record(pieces[1], 3)
    assert m.p == {3} and m.last.fields["shape"] == "SQUARE"
    assert m.by["color"]["RED"] is m.last and m.by["shape"]["STAR"].bucket == 2
    assert snapshot.last.fields["shape"] == "STAR" and "SQUARE" not in snapshot.by["shape"]


def test_slot_hints_follow_the_board_order():
    rules = load_named_rules("paper/color_match")
    board = BoardGenerator(9, 9, 4, 4, 4, 4, seed=4).next_board()
    game = Game(rules, board)
    assert game.slot_hints() == [game.hint_mask(p.id) for p in board.pieces]
    movable = next(p for p in board.pieces if game.hint_mask(p.id))
    assert game.move(movable.id, game.allowed_buckets(movable.id)[0]).accepted
    assert game.slot_hints() == [game.hint_mask(p.id) for p in board.pieces]
    assert game.slot_hints()[board.pieces.index(movable)] == 0


def test_cleared_board_has_no_hints():
    game = Game(load_named_rules("paper/color_match"), Board([Piece(0, 1, 1, "star", "red")]))
    assert game.move(0, 0).accepted and game.slot_hints() == [0]
