"""Property tests: random games on the shipped rules keep the engine's invariants."""
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from zoo_gohr import BoardGenerator, Code, Finish, Game, load_rules

SHIPPED = Path(__file__).resolve().parents[3] / "rules"
RULES = [load_rules(p) for p in sorted(SHIPPED.glob("paper/*.txt")) + sorted(SHIPPED.glob("gohr/rules/[CM]*/**/*.txt"))]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(RULES) - 1), st.integers(1, 2**31), st.lists(st.tuples(st.integers(0, 8),
       st.integers(0, 3)), max_size=60))
def test_random_play_invariants(rule_index, seed, moves):
    board = BoardGenerator(9, 9, 0, 0, 0, 0, seed=seed).next_board()
    game = Game(RULES[rule_index], board)
    for pid, b in moves:
        before = game.copy()
        hints = before.allowed_buckets()
        r = game.move(pid, b)
        if before.finish:
            assert r.code == Code.NO_GAME and game.attempts == before.attempts
        elif pid not in hints:
            assert r.code == Code.INVALID_OBJECT_ID and game.attempts == before.attempts
        else:
            assert game.attempts == before.attempts + 1
            want = Code.ACCEPT if b in hints[pid] else Code.DENY if hints[pid] else Code.IMMOVABLE
            assert r.code == want and r.accepted == (want == Code.ACCEPT)
            if not r.accepted:
                assert game.allowed_buckets() == hints and game.finish == Finish.NO
            else:
                assert pid not in game.allowed_buckets()
        assert r.finish == game.finish
        if game.finish == Finish.STALEMATE:
            assert not any(game.allowed_buckets().values())
        elif game.finish == Finish.NO:
            assert any(game.allowed_buckets().values())
        else:
            assert game.pieces() == []
