"""Hand-checked ASTs for each feature of the rule language (docs/algorithms/gohr-rules.md)."""
import pytest
from zoo_gohr import RuleSyntaxError, parse_rules
from zoo_gohr.engine.syntax import Atom, BinOp, Cmp, Const, ExprValue, ListE, Not, Num, PosList, Range, RuleLine, Var


def atoms(text):
    return parse_rules(text).lines[0].atoms


def bucket(text):
    return atoms(f"(bucket:{text})")[0].bucket


def test_positional_atom_paper_form():
    (a,) = atoms("(10,square,*,10,[2,3])")
    assert a == Atom(count=10, shape=Const(("square",)), pos=(PosList(cells=(10,)),),
                     bucket=ListE((Num(2), Num(3))))


def test_positional_stars_mean_anything():
    (a,) = atoms("(*,*,*,*,*)")
    assert a == Atom()


def test_colon_form_any_order_and_empty_atom():
    a, b = atoms("(bucket:Nearby, color:[red,blue], count:2) ()")
    assert a == Atom(count=2, color=Const(("red", "blue")), bucket=Var(("Nearby",)))
    assert b == Atom()


def test_line_counters():
    rs = parse_rules("1 (bucket:2)\n* (bucket:1)\n(bucket:0)\n0 ()")
    assert [ln.count for ln in rs.lines] == [1, None, None, 0]
    assert [ln.line for ln in rs.lines] == [1, 2, 3, 4]


def test_multiple_pos_clauses_and_postpos():
    (a,) = atoms("(pos:[1,2,L1], pos:T, postpos:B, color:red)")
    assert a.pos == (PosList(cells=(1, 2), orders=("L1",)), PosList(orders=("T",)))
    assert a.postpos == PosList(orders=("B",))


def test_custom_orders_groups_and_ignored_elements():
    rs = parse_rules("order X=[3+2, 8, [10, 11], foo]\nOrder Farthest=[1]\n(*,*,*,X,*)")
    assert rs.orders == {"X": ((), (8,), (10, 11), ()), "Farthest": ((1,),)}
    assert rs.lines[0].atoms[0].pos == (PosList(orders=("X",)),)


def test_shape_color_constants_vs_expressions():
    a, b, c, d = atoms('(shape:"arrows/up") (color:p) (color:last.color) (shape:[ps, last.shape])')
    assert a.shape == Const(("arrows/up",))
    assert b.color == Const(("p",))                    # a bare name is a constant, never a variable
    assert c.color == ExprValue(Var(("last", "color")))
    assert d.shape == ExprValue(ListE((Var(("ps",)), Var(("last", "shape")))))
    (e,) = atoms('(shape:[circle, "Star"])')                # a list of names/strings is constant
    assert e.shape == Const(("circle", "Star"))


def test_property_conditions_and_ranges():
    (a,) = atoms("(angle:[1..89], corner:1, Color:red, size:[3,4])")
    assert a.props == (("angle", Range(1, 89)), ("corner", Const(("1",))), ("Color", Const(("red",))),
                       ("size", Const(("3", "4"))))


def test_precedence_and_associativity():
    assert bucket("1+2*3") == BinOp("+", Num(1), BinOp("*", Num(2), Num(3)))
    assert bucket("8-2-1") == BinOp("-", BinOp("-", Num(8), Num(2)), Num(1))
    assert bucket("!p*[0,1]") == BinOp("*", Not(Var(("p",))), ListE((Num(0), Num(1))))
    assert bucket("!!p") == Not(Not(Var(("p",))))
    assert bucket("((p + 1) % 4)") == BinOp("%", BinOp("+", Var(("p",)), Num(1)), Num(4))
    assert bucket("p+1 == 2*q.x") == Cmp("==", BinOp("+", Var(("p",)), Num(1)),
                                       BinOp("*", Num(2), Var(("q", "x"))))


def test_negative_literals():
    assert bucket("-1") == Num(-1)
    assert bucket("p*-1") == BinOp("*", Var(("p",)), Num(-1))
    assert bucket("p+-2") == BinOp("+", Var(("p",)), Num(-2))
    with pytest.raises(RuleSyntaxError, match="a number after unary '-'"):
        bucket("-p")


def test_dotted_names_and_code():
    (a,) = atoms("(code: this.value >= q.bucket.value, color:q.bucket.color)")
    assert a.code == Cmp(">=", Var(("this", "value")), Var(("q", "bucket", "value")))


def test_comments_strings_and_description():
    rs = parse_rules('# Display: My rule\n# first line\n#second\n\n(shape:"a#b", bucket:0) # tail\n# not desc')
    assert rs.display == "My rule"
    assert rs.description == "first line second"
    assert rs.lines[0].atoms[0].shape == Const(("a#b",))


def test_order_keyword_only_before_rule_lines():
    with pytest.raises(RuleSyntaxError, match="<string>:2:1: 'Order' lines must come before the first rule line"):
        parse_rules("(*,*,*,*,0)\nOrder X=[1]")


def test_unknown_keys_case_sensitive_become_properties():
    (a,) = atoms("(Color:red, Bucket:0)")
    assert a.color is None and a.bucket is None
    assert [k for k, _ in a.props] == ["Color", "Bucket"]


def test_line_structure():
    rs = parse_rules("2 (1,*,red,*,0) (count:1, bucket:1)", "f.txt")
    assert rs.lines == (RuleLine(2, (Atom(count=1, color=Const(("red",)), bucket=Num(0)),
                                     Atom(count=1, bucket=Num(1)))),)
    assert rs.source == "f.txt"


def test_cells_in_position_lists_not_validated_but_warned():
    rs = parse_rules("(pos:[0,37,-1], bucket:0)", "w.txt")
    assert rs.lines[0].atoms[0].pos == (PosList(cells=(0, 37, -1)),)
    warnings = rs.validate_against()
    assert "w.txt:1:1: cell 0 is outside 1..36 and never matches" in warnings


def test_validate_against_shapes_and_colors():
    rs = parse_rules("(*,hexagon,red,*,0)\n(color:[green,RED], bucket:[red, last.color])\n(bucket:\"x\")", "v.txt")
    w = rs.validate_against(shapes=["square", "hexagon"], colors=["red", "blue"])
    assert w == ["v.txt:2:1: unknown color 'green' (known: BLUE, RED)",
                 "v.txt:3:9: this bucket expression can never yield a bucket 0..3"]
    w = rs.validate_against()
    assert w[0] == "v.txt:1:1: unknown shape 'hexagon' (known: CIRCLE, SQUARE, STAR, TRIANGLE)"
    with pytest.raises(RuleSyntaxError, match="v.txt:1:1: unknown shape"):
        rs.validate_against(strict=True)
    rs = parse_rules("(color:[\"RED\", last.color, red])", "v.txt")
    assert rs.validate_against() == [
        "v.txt:1:1: color expression uses the unquoted name 'red': inside an expression it is an "
        "unbound variable (write \"RED\")"]


def test_arithmetic_on_shape_and_color_names_is_warned():
    """The server stops when it evaluates them; p.color is a bucket, so arithmetic on it is fine."""
    rs = parse_rules("(code: p.color + 1 == 2, bucket: [last.color + 1, !last * [0, 1, 2, 3]])\n"
                     "(color: [q.bucket.color], bucket: 2 * (this.shape - 1))", "s.txt")
    assert rs.validate_against() == [
        "s.txt:1:46: arithmetic on last.color, a color name (a string): the reference server stops when it "
        "evaluates this",
        "s.txt:2:51: arithmetic on this.shape, a shape name (a string): the reference server stops when it "
        "evaluates this"]


def test_shipped_rule_files_parse_cleanly():
    from pathlib import Path

    from zoo_gohr import load_rules
    root = Path(__file__).resolve().parents[3] / "rules"
    files = sorted((root / "paper").glob("*.txt")) + sorted((root / "gohr/rules/CGS").glob("*.txt")) \
        + sorted((root / "gohr/rules/MLC/BMK").glob("*.txt"))
    assert len(files) == 23
    for f in files:
        assert load_rules(f).validate_against() == [], f
