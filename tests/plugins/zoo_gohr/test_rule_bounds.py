"""Rule input past the parser's bounds (number length, operators in a line, dotted names, file size)
ends in a positioned RuleSyntaxError, and a fuzz test of long hostile input finds nothing else."""

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zoo_gohr import BoardGenerator, Game, RuleRuntimeError, RuleSet, RuleSyntaxError, load_rules, nearby, parse_rules
from zoo_gohr.engine.parser import MAX_RULE_CHARS

RULES = Path(__file__).resolve().parents[3] / "rules"
SHIPPED = sorted(RULES.rglob("*.txt"))


def _syntax_error(text: str) -> RuleSyntaxError:
    with pytest.raises(RuleSyntaxError) as info:
        parse_rules(text, "r.txt")
    return info.value


def test_number_past_python_int_digit_limit_is_a_positioned_error():
    err = _syntax_error("(*, *, *, *, p + " + "7" * 5000 + ")")
    assert (err.line, err.col) == (1, 18)
    assert "out of the 32-bit integer range" in err.message and "(5000 digits)" in err.message


def test_leading_zeros_do_not_make_a_number_long():
    rules = parse_rules("(*, *, *, *, " + "0" * 5000 + "3)")
    assert rules.lines[0].atoms[0].bucket.value == 3


@pytest.mark.parametrize("op", ["+", "-", "*", "%"])
def test_long_operator_chain_is_a_positioned_error(op):
    text = "(*, *, *, *, " + op.join(["p"] * 1000) + ")"
    err = _syntax_error(text)
    assert err.line == 1 and text[err.col - 1] == op
    assert err.col == len("(*, *, *, *, ") + 2 * 100 + 2  # at the 101st operator


def test_operators_up_to_the_bound_parse_and_play():
    """100 operators in 49 parentheses: the deepest tree the bounds allow compiles and is evaluated."""
    rules = parse_rules("(*, *, *, *, " + "(" * 49 + "+".join(["Nearby"] * 99) + " - 98 * Nearby" + ")" * 49 + ")")
    game = Game(rules, BoardGenerator(9, 9, 4, 4, 4, 4, seed=1).next_board())
    allowed = game.allowed_buckets()
    assert {piece.id: allowed[piece.id] for piece in game.pieces()} == {
        piece.id: [nearby(piece.x, piece.y)] for piece in game.pieces()}  # 99 N - 98 N = N


def test_long_dotted_name_is_a_positioned_error():
    head = "(*, *, *, *, q"
    err = _syntax_error(head + ".bucket" * 3000 + ")")
    assert (err.line, err.col) == (1, len(head) + 7 * len(".bucket") + 2)  # at the ninth part's name


def test_oversized_text_is_refused_at_the_bound():
    line = "(*, *, *, *, [0, 1, 2, 3])\n"
    text = line * (MAX_RULE_CHARS // len(line) + 1)
    err = _syntax_error(text)
    assert err.line == MAX_RULE_CHARS // len(line) + 1 and err.col == MAX_RULE_CHARS % len(line) + 1
    assert isinstance(parse_rules(text[:MAX_RULE_CHARS - MAX_RULE_CHARS % len(line)]), RuleSet)


def test_huge_rule_file_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("(*, *, *, *, [0, 1, 2, 3])\n" * 150_000)  # 4 MB
    start = time.perf_counter()
    with pytest.raises(RuleSyntaxError, match=f"at most {MAX_RULE_CHARS} characters") as info:
        load_rules(path)
    assert time.perf_counter() - start < 5 and info.value.source == str(path)


# -- fuzzing: long runs of tokens spliced into the shipped rule files ---------------------------------

_FRAGMENTS = ["(", ")", "[", "]", ",", ":", ".", "..", "*", "+", "-", "/", "%", "!", "==", "!=", "<=", ">", "=",
              "#", '"', " ", "\n", "\r", "\t", "0", "1", "36", "2147483647", "2147483648", "-2147483648",
              "9" * 40, "p", "pc", "ps", "q", "last", "this", "Nearby", "Remotest", "L1", "T", "Order", "count",
              "shape", "color", "pos", "postpos", "bucket", "code", "red", "square", "q.bucket.color", "p.", "\x00",
              "é", "\ud7ff"]
_REPEATED = _FRAGMENTS + ["p+", "1 * ", "-1-", "p<", "!(", "([", ".x", "9", "(*, *, *, *, 1)\n", "[0, 1], "]
_TIMES = st.one_of(st.integers(1, 3000), st.sampled_from([120, 1000, 3000]))  # past the bounds, often
_RUN = st.builds(lambda piece, times: piece * times, st.sampled_from(_REPEATED), _TIMES)
_CHUNK = st.lists(st.one_of(st.sampled_from(_FRAGMENTS), _RUN), min_size=1, max_size=12).map("".join)


def _parse_or_positioned_error(text: str) -> RuleSet | None:
    """The rule set, or None after a RuleSyntaxError that points into the text; anything else fails."""
    try:
        return parse_rules(text, "fuzz.txt")
    except RuleSyntaxError as err:
        lines = text.splitlines() or [""]
        assert err.source == "fuzz.txt" and err.line >= 1 and err.col >= 1
        assert err.line <= len(lines) + 1, "the error's line is past the end of the text"
        assert str(err).startswith(f"fuzz.txt:{err.line}:{err.col}: ")
        return None


def _play_a_few_moves(rules: RuleSet) -> None:
    """A valid rule set plays; an expression the server would crash on raises RuleRuntimeError only."""
    game = Game(rules, BoardGenerator(9, 9, 4, 4, 4, 4, seed=3).next_board())
    try:
        for _ in range(6):  # an allowed move if there is one, else a move the rule denies
            allowed = game.allowed_buckets()
            if not allowed:
                break
            piece = min(allowed)
            game.move(piece, (allowed[piece] or [0])[0])
    except RuleRuntimeError:
        pass


# Most inputs parse in milliseconds and those past the file bound are refused before parsing; the
# deadline is the time bound per input, generous for a loaded machine (a full-size rule file of
# valid lines parses and compiles in under a second).
# CI replays the same examples every run; elsewhere they vary
_FUZZ = settings(max_examples=150, deadline=timedelta(seconds=10), suppress_health_check=list(HealthCheck),
                 derandomize=bool(os.environ.get("CI")))


@_FUZZ
@given(st.sampled_from(SHIPPED), st.floats(0, 1), _CHUNK)
def test_chunks_spliced_into_shipped_rules_give_rules_or_positioned_errors(path, where, chunk):
    text = path.read_text(encoding="utf-8")
    at = int(where * len(text))
    rules = _parse_or_positioned_error(text[:at] + chunk + text[at:])
    if rules is not None:
        _play_a_few_moves(rules)


@_FUZZ
@given(st.sampled_from(["", "(", "(*, *, *, *, ", "(bucket:", "(shape:", "(pos:", "Order O = [", "1 ("]), _CHUNK)
def test_chunks_in_rule_fields_give_rules_or_positioned_errors(prefix, chunk):
    rules = _parse_or_positioned_error(prefix + chunk + ")")
    if rules is not None:
        _play_a_few_moves(rules)


# Expressions well formed by construction but of any size: long chains, deep nesting, long names.
_LEAF = st.one_of(st.sampled_from(["p", "1", "0", "Nearby", "Remotest", "q.bucket", "last.color", "ps.red", "-2"]),
                  st.builds(lambda n: "4" * n, _TIMES))
_OPS = st.sampled_from(["+", "-", "*", "/", "%", "<", "=="])
_BRACKETS = st.sampled_from([("(", ")"), ("[", "]"), ("!", ""), ("[!(", ")]")])


_CAP = 2 * MAX_RULE_CHARS  # long enough to cross the file bound, short enough to build in no time


def _chain(item: str, op: str, n: int) -> str:
    return f" {op} ".join([item] * min(n, _CAP // (len(item) + 3) + 1))


def _nest(item: str, brackets: tuple[str, str], n: int) -> str:
    n = min(n, _CAP // (len(item) + 1) + 1)
    return brackets[0] * n + item + brackets[1] * n


def _grown(inner):
    chain = st.builds(_chain, inner, _OPS, _TIMES)
    nest = st.builds(_nest, inner, _BRACKETS, _TIMES)
    dotted = st.builds(lambda item, n: item + ".shape" * n, st.sampled_from(["q", "p", "last"]), _TIMES)
    listed = st.lists(inner, min_size=1, max_size=4).map(lambda items: "[" + ", ".join(items) + "]")
    return st.one_of(chain, nest, dotted, listed)


_EXPR = st.recursive(_LEAF, _grown, max_leaves=4)


@_FUZZ
@given(st.sampled_from(["(*, *, *, *, {})", "(bucket:{})", "(pos:{})", "(*, *, *, *, {}) (*, *, *, *, p)"]), _EXPR)
def test_well_formed_expressions_of_any_size_give_rules_or_positioned_errors(template, expr):
    rules = _parse_or_positioned_error(template.format(expr))
    if rules is not None:
        _play_a_few_moves(rules)
