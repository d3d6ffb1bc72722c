"""Tokenizer for one line of a GOHR rule file (docs/algorithms/gohr-rules.md, "Rule files")."""
from __future__ import annotations

from typing import NamedTuple

from .errors import RuleSyntaxError

NUM, ID, STR, OP, EOL = "number", "identifier", "string", "operator", "end of line"

_TWO = ("..", "==", "!=", "<=", ">=")
_ONE = ",:.+-*/%()[]!=<>"
_DIGITS = "0123456789"


class Tok(NamedTuple):
    kind: str
    text: str
    line: int
    col: int

    def describe(self) -> str:
        return "end of line" if self.kind == EOL else repr(self.text)


def _id_start(c: str) -> bool:
    return c.isalpha() or c in "_$"


def _id_part(c: str) -> bool:
    return c.isalnum() or c in "_$"


def tokenize(text: str, line: int, source: str) -> list[Tok]:
    """Split one line into tokens; a ``#`` outside a string ends the line. Ends with an EOL token."""
    toks: list[Tok] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        col = i + 1
        if c.isspace():
            i += 1
        elif c == "#":
            break
        elif c in _DIGITS:
            j = i
            while j < n and text[j] in _DIGITS:
                j += 1
            toks.append(Tok(NUM, text[i:j], line, col))
            i = j
        elif _id_start(c):
            j = i + 1
            while j < n and _id_part(text[j]):
                j += 1
            toks.append(Tok(ID, text[i:j], line, col))
            i = j
        elif c == '"':
            j = text.find('"', i + 1)
            if j < 0:
                raise RuleSyntaxError(source, line, col, "unterminated string literal")
            toks.append(Tok(STR, text[i + 1:j], line, col))
            i = j + 1
        elif text[i:i + 2] in _TWO:
            toks.append(Tok(OP, text[i:i + 2], line, col))
            i += 2
        elif c in _ONE:
            toks.append(Tok(OP, c, line, col))
            i += 1
        else:
            raise RuleSyntaxError(source, line, col, f"unexpected character {c!r}")
    toks.append(Tok(EOL, "", line, n + 1))
    return toks
