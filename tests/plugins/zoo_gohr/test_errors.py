"""Malformed rule files fail with ``file:line:col: message``; the parser never crashes or hangs."""
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from zoo_gohr import RuleSyntaxError, parse_rules

BAD = Path(__file__).parent / "bad_rules"
CASES = sorted(BAD.glob("*.txt"))


def test_corpus_is_large_enough():
    assert len(CASES) >= 10
    assert all(c.with_suffix(".err").exists() for c in CASES)


@pytest.mark.parametrize("path", CASES, ids=[c.stem for c in CASES])
def test_bad_rule_file_message(path):
    expected = path.with_suffix(".err").read_text().strip()
    with pytest.raises(RuleSyntaxError) as info:
        parse_rules(path.read_text(), path.name)
    assert str(info.value) == expected
    err = info.value
    assert (err.source, err.line, err.col) == (path.name, *map(int, expected.split(":")[1:3]))


_FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_PIECES = ["(", ")", "[", "]", ",", ":", ".", "..", "*", "+", "-", "/", "%", "!", "==", "<", ">=", "=",
           "#", '"', "1", "36", "0", "p", "pc", "ps", "q", "this", "last", "Nearby", "L1", "T", "Order",
           "X", "count", "shape", "color", "pos", "postpos", "bucket", "code", "red", "square", " ", "\n"]


def _parse_or_syntax_error(text):
    try:
        parse_rules(text, "fuzz.txt")
    except RuleSyntaxError as e:
        assert str(e).startswith("fuzz.txt:")


@_FUZZ
@given(st.text(max_size=200))
def test_random_text_never_crashes(text):
    _parse_or_syntax_error(text)


@_FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(data):
    _parse_or_syntax_error(data.decode("latin-1"))


@_FUZZ
@given(st.lists(st.sampled_from(_PIECES), max_size=60))
def test_token_soup_never_crashes(parts):
    _parse_or_syntax_error("".join(parts))


@_FUZZ
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_token_soup_inside_an_atom(parts):
    _parse_or_syntax_error("(" + "".join(parts) + ")")
    _parse_or_syntax_error("(bucket:" + "".join(parts) + ")")
    _parse_or_syntax_error("(*,*,*,*," + "".join(parts) + ")")


@pytest.mark.parametrize("opener,closer", [("(", ")"), ("[", "]"), ("!", ""), ("[(", ")]")])
def test_deep_nesting_is_a_syntax_error(opener, closer):
    with pytest.raises(RuleSyntaxError, match="nested more than"):
        parse_rules("(bucket:" + opener * 5000 + "1" + closer * 5000 + ")")
    parse_rules("(bucket:" + opener * 20 + "1" + closer * 20 + ")")
