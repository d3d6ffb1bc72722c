"""GOHR (Game of Hidden Rules): a pure-Python engine faithful to the authors' Captive Game Server.

    rules = load_rules("rules/paper/clockwise.txt")   # parse + compile once
    gen = BoardGenerator(9, 9, 4, 4, 4, 4, seed=1)     # java.util.Random-compatible boards
    game = Game(rules, gen.next_board())
    game.allowed_buckets()                            # {piece id: [buckets]}
    game.move(piece_id, bucket)                       # MoveResult(code, accepted, finish)

``zoo_gohr.engine.conformance.replay_file`` replays the reference server's transcripts. Importing the
package registers the gymnasium ids ``GOHR/...`` (``zoo_gohr.registration``).
"""
from .engine.board import Board, BoardGenerator, Piece, board_from_json, nearby, remotest
from .engine.constants import ACTIONS, BUCKETS, CELLS, LEGACY_COLORS, LEGACY_SHAPES
from .engine.errors import RuleRuntimeError, RuleSyntaxError
from .engine.game import Code, Finish, Game, MoveResult
from .engine.ipb import image_catalog, read_properties
from .engine.javarandom import JavaRandom
from .engine.parser import load_rules, parse_rules
from .engine.ruleset import RuleSet
from .registration import register_envs as _register_gymnasium_ids

_register_gymnasium_ids()

__all__ = [
    "ACTIONS", "BUCKETS", "Board", "BoardGenerator", "CELLS", "Code", "Finish", "Game", "JavaRandom",
    "LEGACY_COLORS", "LEGACY_SHAPES", "MoveResult", "Piece", "RuleRuntimeError", "RuleSet", "RuleSyntaxError",
    "board_from_json", "image_catalog", "load_rules", "nearby", "parse_rules", "read_properties", "remotest",
]
