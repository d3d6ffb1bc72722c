"""Recursive-descent parser: rule-file text -> :class:`RuleSet` (docs/algorithms/gohr-rules.md)."""
from __future__ import annotations

import re
from pathlib import Path

from .constants import CELLS
from .errors import RuleSyntaxError
from .lexer import EOL, ID, NUM, OP, STR, Tok, tokenize
from .orders import BUILTIN_ORDER_NAMES
from .ruleset import RuleSet
from .syntax import Atom, BinOp, Cmp, Const, Expr, ExprValue, ListE, Not, Num, PosList, Range, RuleLine, Str, Value, Var

_CMP = ("==", "!=", "<", "<=", ">", ">=")
_INT_MAX = 2**31 - 1
_INT_DIGITS = len(str(_INT_MAX + 1))

# Bounds on input that no rule needs, so hostile input ends in a positioned error rather than in
# RecursionError or in minutes of parsing: the longest shipped rule file is under 1 KB, its longest
# line under 800 characters, its deepest expression 4 levels and its longest name 3 parts.
MAX_RULE_CHARS = 64 * 1024
_MAX_DEPTH = 50  # brackets, parentheses and '!' inside one another
_MAX_OPERATORS = 100  # binary operators and comparisons in one line: they chain into the depth of the tree
_MAX_NAME_PARTS = 8  # parts of a dotted name such as q.bucket.color
_KEYS_ONCE = ("count", "shape", "color", "postpos", "bucket", "code")


class _LineParser:
    """Parses the tokens of one line."""

    def __init__(self, toks: list[Tok], source: str, orders: set[str]):
        self.toks, self.i, self.source, self.orders = toks, 0, source, orders
        self.depth = 0
        self.operators = 0

    # -- token helpers
    def peek(self, k: int = 0) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Tok:
        t = self.toks[self.i]
        if t.kind != EOL:
            self.i += 1
        return t

    def is_op(self, text: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t.kind == OP and t.text == text

    def error(self, tok: Tok | tuple[int, int], message: str) -> RuleSyntaxError:
        line, col = (tok.line, tok.col) if isinstance(tok, Tok) else tok
        return RuleSyntaxError(self.source, line, col, message)

    def expected(self, what: str) -> RuleSyntaxError:
        t = self.peek()
        return self.error(t, f"expected {what}, got {t.describe()}")

    def expect_op(self, text: str, what: str | None = None) -> Tok:
        if not self.is_op(text):
            raise self.expected(what or repr(text))
        return self.next()

    def expect_eol(self) -> None:
        if self.peek().kind != EOL:
            raise self.expected("end of line")

    def number(self, tok: Tok, negative: bool = False) -> int:
        digits = tok.text.lstrip("0") or "0"  # int() of more than 4300 digits raises ValueError
        v = 0 if len(digits) > _INT_DIGITS else -int(digits) if negative else int(digits)
        if len(digits) > _INT_DIGITS or not -_INT_MAX - 1 <= v <= _INT_MAX:
            shown = tok.text if len(tok.text) <= 20 else f"{tok.text[:12]}... ({len(tok.text)} digits)"
            raise self.error(tok, f"number {shown} is out of the 32-bit integer range")
        return v

    def operator(self) -> Tok:
        """Consume a binary operator or comparison, counting it against the line's bound."""
        self.operators += 1
        if self.operators > _MAX_OPERATORS:
            raise self.error(self.peek(), f"more than {_MAX_OPERATORS} operators in one line")
        return self.next()

    # -- expressions (the grammar in docs/algorithms/gohr-rules.md, "Expressions")
    def expr(self) -> Expr:
        left = self.sum()
        t = self.peek()
        if t.kind == OP and t.text in _CMP:
            self.operator()
            e = Cmp(t.text, left, self.sum(), loc=(t.line, t.col))
            t2 = self.peek()
            if t2.kind == OP and t2.text in _CMP:
                raise self.error(t2, f"comparisons cannot be chained (got {t2.describe()} after a "
                                 "comparison); use parentheses")
            return e
        return left

    def sum(self) -> Expr:
        left = self.product()
        while (t := self.peek()).kind == OP and t.text in "+-":
            self.operator()
            left = BinOp(t.text, left, self.product(), loc=(t.line, t.col))
        return left

    def product(self) -> Expr:
        left = self.unary()
        while (t := self.peek()).kind == OP and t.text in ("*", "/", "%"):
            self.operator()
            left = BinOp(t.text, left, self.unary(), loc=(t.line, t.col))
        return left

    def unary(self) -> Expr:
        t = self.peek()
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.error(t, f"expression nested more than {_MAX_DEPTH} levels deep")
        try:
            if t.kind == OP and t.text == "!":
                self.next()
                return Not(self.unary(), loc=(t.line, t.col))
            return self.primary()
        finally:
            self.depth -= 1

    def primary(self) -> Expr:
        t = self.peek()
        loc = (t.line, t.col)
        if t.kind == ID:
            self.next()
            parts = [t.text]
            while self.is_op("."):
                self.next()
                if self.peek().kind != ID:
                    raise self.expected("a property name after '.'")
                if len(parts) == _MAX_NAME_PARTS:
                    raise self.error(self.peek(), f"a dotted name has at most {_MAX_NAME_PARTS} parts")
                parts.append(self.next().text)
            return Var(tuple(parts), loc=loc)
        if t.kind == STR:
            self.next()
            return Str(t.text, loc=loc)
        if t.kind == NUM:
            self.next()
            return Num(self.number(t), loc=loc)
        if t.kind == OP and t.text == "-":
            self.next()
            if self.peek().kind != NUM:
                raise self.expected("a number after unary '-'")
            return Num(self.number(self.next(), negative=True), loc=loc)
        if t.kind == OP and t.text == "(":
            self.next()
            e = self.expr()
            self.expect_op(")", "')'")
            return e
        if t.kind == OP and t.text == "[":
            self.next()
            items: list[Expr] = []
            if not self.is_op("]"):
                items.append(self.expr())
                while self.is_op(","):
                    self.next()
                    items.append(self.expr())
            self.expect_op("]", "',' or ']'")
            return ListE(tuple(items), loc=loc)
        raise self.expected("an expression")

    # -- atom fields
    def value(self, key: str) -> Value:
        """A shape/color/property value: constant name(s), ``[a..b]`` range, or expression."""
        if key not in ("shape", "color") and self.is_op("["):
            r = self.try_range()
            if r is not None:
                return r
        e = self.expr()
        if _is_const(e) or (isinstance(e, ListE) and e.items and all(_is_const(x) for x in e.items)):
            items = e.items if isinstance(e, ListE) else (e,)
            return Const(tuple(_const_text(x) for x in items))
        return ExprValue(e)

    def try_range(self) -> Range | None:
        start = self.i
        self.next()  # '['
        bounds = []
        for k in range(2):
            neg = self.is_op("-")
            if neg:
                self.next()
            if self.peek().kind != NUM:
                self.i = start
                return None
            bounds.append(self.number(self.next(), neg))
            if k == 0:
                if not self.is_op(".."):
                    self.i = start
                    return None
                self.next()
        self.expect_op("]", "']' to close the range")
        return Range(bounds[0], bounds[1])

    def poslist(self) -> PosList:
        e = self.expr()
        items = e.items if isinstance(e, ListE) else (e,)
        cells: list[int] = []
        orders: list[str] = []
        for x in items:
            if isinstance(x, Num):
                cells.append(x.value)
            elif isinstance(x, Var) and len(x.parts) == 1:
                if x.name not in self.orders:
                    raise self.error(x.loc, f"unknown order {x.name!r} (known: "
                                     f"{', '.join(sorted(self.orders))})")
                orders.append(x.name)
            else:
                raise self.error(x.loc, "expected a cell number, an order name or a list of these "
                                 "in a position field")
        return PosList(tuple(cells), tuple(orders))

    def star_next(self) -> bool:
        nxt = self.peek(1)
        return self.is_op("*") and (nxt.kind == EOL or nxt.kind == OP and nxt.text in (",", ")"))

    # -- atoms (docs/algorithms/gohr-rules.md, "Rule lines and atoms")
    def atom(self) -> Atom:
        open_ = self.peek()
        self.expect_op("(", "'(' to start an atom")
        loc = (open_.line, open_.col)
        if self.is_op(")"):
            self.next()
            return Atom(loc=loc)
        if self.peek().kind == ID and self.is_op(":", 1):
            return self.colon_atom(loc)
        return self.positional_atom(loc)

    def positional_atom(self, loc) -> Atom:
        fields: list[tuple[Tok, object]] = []
        while True:
            t = self.peek()
            if t.kind == ID and self.is_op(":", 1):
                raise self.error(t, "cannot mix key:value fields with positional fields in one atom")
            if len(fields) == 5:
                raise self.error(t, "a positional atom has exactly 5 fields (count, shape, color, "
                                 "pos, bucket); got a 6th")
            if self.star_next():
                self.next()
                fields.append((t, None))
            else:
                fields.append((t, self.field_value(len(fields))))
            if self.is_op(")"):
                self.next()
                break
            self.expect_op(",", "',' or ')'")
        if len(fields) != 5:
            raise self.error(loc, f"a positional atom has exactly 5 fields (count, shape, color, "
                             f"pos, bucket); got {len(fields)}")
        (_, count), (_, shape), (_, color), (_, pos), (_, bucket) = fields
        return Atom(count=count, shape=shape, color=color, pos=(pos,) if pos else (),
                    bucket=bucket, loc=loc)

    def field_value(self, index: int):
        t = self.peek()
        if index == 0:
            return self.count_value(t)
        if index in (1, 2):
            return self.value("shape" if index == 1 else "color")
        if index == 3:
            return self.poslist()
        return self.expr()

    def count_value(self, t: Tok) -> int:
        neg = self.is_op("-")
        if neg:
            self.next()
        if self.peek().kind != NUM or self.peek(1).kind != OP or self.peek(1).text not in (",", ")"):
            raise self.error(t, f"expected a count ('*' or a non-negative integer), got {t.describe()}")
        if neg:
            raise self.error(t, "a count cannot be negative")
        return self.number(self.next())

    def colon_atom(self, loc) -> Atom:
        kw: dict = {"props": [], "pos": []}
        while True:
            t = self.peek()
            if t.kind != ID or not self.is_op(":", 1):
                raise self.error(t, f"expected 'key:value' (key:value and positional fields cannot "
                                 f"be mixed), got {t.describe()}")
            key = t.text
            self.next()
            self.next()
            if self.is_op("*"):
                raise self.error(self.peek(), f"'*' is not allowed as the value of '{key}:'; "
                                 "leave the key out instead")
            if key in _KEYS_ONCE and key in kw or key in dict(kw["props"]):
                raise self.error(t, f"duplicate key {key!r} in atom")
            if key == "count":
                kw["count"] = self.count_value(self.peek())
            elif key in ("shape", "color"):
                kw[key] = self.value(key)
            elif key == "pos":
                kw["pos"].append(self.poslist())
            elif key == "postpos":
                kw["postpos"] = self.poslist()
            elif key in ("bucket", "code"):
                kw[key] = self.expr()
            else:
                kw["props"].append((key, self.value(key)))
            if self.is_op(")"):
                self.next()
                break
            self.expect_op(",", "',' or ')'")
        kw["props"] = tuple(kw["props"])
        kw["pos"] = tuple(kw["pos"])
        return Atom(loc=loc, **kw)

    # -- whole lines
    def rule_line(self, lineno: int) -> RuleLine:
        count = None
        if self.is_op("*"):
            self.next()
        elif self.peek().kind == NUM:
            count = self.number(self.next())
        atoms = [self.atom()]
        while self.peek().kind != EOL:
            atoms.append(self.atom())
        return RuleLine(count, tuple(atoms), line=lineno)

    def order_line(self) -> tuple[str, tuple[tuple[int, ...], ...]]:
        self.next()  # 'Order'
        if self.peek().kind != ID:
            raise self.expected("an order name after 'Order'")
        name_tok = self.next()
        self.expect_op("=", "'=' after the order name")
        open_ = self.peek()
        if not self.is_op("["):
            raise self.expected("'[' to start the order's cell list")
        e = self.expr()
        self.expect_eol()
        if not isinstance(e, ListE) or not e.items:
            raise self.error(open_, f"order {name_tok.text!r} must list at least one cell")
        groups: list[tuple[int, ...]] = []
        seen: set[int] = set()
        for x in e.items:
            if isinstance(x, Num):
                cells = (x,)
            elif isinstance(x, ListE) and all(isinstance(y, Num) for y in x.items):
                cells = x.items
            else:  # silently an empty tie group, as in the reference server
                cells = ()
            for c in cells:
                if not 1 <= c.value <= CELLS:
                    raise self.error(c.loc, f"cell {c.value} in order {name_tok.text!r} is outside 1..{CELLS}")
                if c.value in seen:
                    raise self.error(c.loc, f"cell {c.value} appears twice in order {name_tok.text!r}")
                seen.add(c.value)
            groups.append(tuple(c.value for c in cells))
        return name_tok.text, tuple(groups)


def _is_const(e: Expr) -> bool:
    return isinstance(e, (Str, Num)) or (isinstance(e, Var) and len(e.parts) == 1)


def _const_text(e: Expr) -> str:
    return e.name if isinstance(e, Var) else str(e.value)


_NEWLINE = re.compile(r"\r\n|\r|\n")


def parse_rules(text: str, source: str = "<string>") -> RuleSet:
    """Parse a rule file's text. Raises :class:`RuleSyntaxError` (``file:line:col: message``) and
    nothing else, whatever the text. A leading UTF-8 byte-order mark is dropped, as it is from specs."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_RULE_CHARS:
        line = text.count("\n", 0, MAX_RULE_CHARS) + 1
        col = MAX_RULE_CHARS - text.rfind("\n", 0, MAX_RULE_CHARS)
        raise RuleSyntaxError(source, line, col, f"a rule file has at most {MAX_RULE_CHARS} characters")
    orders: dict[str, tuple[tuple[int, ...], ...]] = {}
    lines: list[RuleLine] = []
    description: list[str] = []
    display = None
    in_header = True
    rows = _NEWLINE.split(text)
    for lineno, raw in enumerate(rows, 1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            if in_header:
                c = s.lstrip("#").strip()
                if c.lower().startswith("display:"):
                    display = c[len("display:"):].strip()
                elif c:
                    description.append(c)
            continue
        in_header = False
        toks = tokenize(raw, lineno, source)
        if toks[0].kind == EOL:
            continue
        p = _LineParser(toks, source, set(BUILTIN_ORDER_NAMES) | set(orders))
        if not lines and toks[0].kind == ID and toks[0].text.lower() == "order":
            name, groups = p.order_line()
            if name in orders:
                raise p.error(toks[1], f"order {name!r} is defined twice")
            orders[name] = groups
        elif toks[0].kind == ID and toks[0].text.lower() == "order":
            raise p.error(toks[0], "'Order' lines must come before the first rule line")
        else:
            lines.append(p.rule_line(lineno))
    if not lines:
        raise RuleSyntaxError(source, len(rows), 1, "a rule file needs at least one rule line")
    return RuleSet(tuple(lines), orders, " ".join(description), display, source)


def load_rules(path) -> RuleSet:
    """Read and parse a rule file (reading no more than one character past the size bound)."""
    p = Path(path)
    with p.open(encoding="utf-8", errors="replace", newline="") as file:
        return parse_rules(file.read(MAX_RULE_CHARS + 1), str(p))
