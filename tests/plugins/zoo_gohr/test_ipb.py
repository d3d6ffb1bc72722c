"""Image-and-property-based objects with the two shipped IPB rule files (no transcripts exist)."""
from shared_data import RULES_ROOT, require_shared
from zoo_gohr import BoardGenerator, Code, Game, load_rules
from zoo_gohr.engine.ipb import image_catalog, read_properties

CSV = "image,name,color,angle,corner_indices\nup.svg,Up,red,90,1\nright.svg,,blue,0,\nx.svg,X,orange,45,4\n"


def test_read_properties_and_catalog(tmp_path):
    d = tmp_path / "arrows"
    d.mkdir()
    (d / "properties.csv").write_text(CSV)
    assert read_properties(d / "properties.csv")["right.svg"] == {"color": "blue", "angle": "0"}
    cat = image_catalog(tmp_path, ["arrows/*.svg", "arrows/up.svg"])
    assert [k for k, _ in cat] == ["arrows/right.svg", "arrows/up.svg", "arrows/x.svg"]


def test_ipb_rule_files_play(tmp_path):
    require_shared()
    d = tmp_path / "arrows"
    d.mkdir()
    (d / "properties.csv").write_text(CSV)
    gen = BoardGenerator(6, 6, images=image_catalog(tmp_path, ["arrows/*"]), seed=11)
    board = gen.next_board()
    assert len(board.pieces) == 6 and all(p.is_ipb for p in board.pieces)

    arrows = load_rules(RULES_ROOT / "rules/vm/image_test_02.txt")
    g = Game(arrows, board)
    want = {"arrows/up.svg": [0, 1], "arrows/right.svg": [0, 3], "arrows/x.svg": [1]}
    assert g.allowed_buckets() == {p.id: want[p.image] for p in board.pieces}

    corner = load_rules(RULES_ROOT / "rules/RU/JF/corner.txt")
    g = Game(corner, board)
    want = {"arrows/up.svg": [0], "arrows/right.svg": [], "arrows/x.svg": [3]}
    assert g.allowed_buckets() == {p.id: want[p.image] for p in board.pieces}
    right = next(p for p in board.pieces if p.image == "arrows/right.svg")
    assert g.move(right.id, 0).code == Code.IMMOVABLE
