"""Replay every golden transcript of the reference server; all episodes must match."""
from shared_data import GOLDEN, RULES_ROOT, require_shared
from zoo_gohr.engine.conformance import replay_file


def _check(outcomes, expected_count):
    failures = [str(o) for o in outcomes if not o.passed]
    assert not failures, "\n".join(failures[:20])
    assert len(outcomes) == expected_count


def test_random_game_transcripts():
    require_shared()
    files = sorted(GOLDEN.glob("*.jsonl.gz"))
    assert len(files) == 55, f"expected 55 golden transcripts in {GOLDEN}, found {len(files)}"
    outcomes = [o for f in files for o in replay_file(f, RULES_ROOT)]
    _check(outcomes, 550)


def test_edge_cases():
    require_shared()
    index = (GOLDEN / "edge" / "INDEX.txt").read_text().split()
    assert len(index) == 11
    outcomes = replay_file(GOLDEN / "edge", RULES_ROOT)
    assert sorted(o.name for o in outcomes) == sorted(index)
    _check(outcomes, 11)


def test_each_edge_case_file_form():
    require_shared()
    (o,) = replay_file(GOLDEN / "edge" / "postpos_vs_pos.moves.txt", RULES_ROOT)
    assert o.passed and o.steps == 6


def test_mismatch_is_reported(tmp_path):
    require_shared()
    src = GOLDEN / "edge"
    for part in (".rules.txt", ".board.json", ".moves.txt"):
        (tmp_path / f"case{part}").write_text((src / f"postpos_vs_pos{part}").read_text())
    lines = (src / "postpos_vs_pos.expected.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"code":4', '"code":7')
    (tmp_path / "case.expected.jsonl").write_text("\n".join(lines))
    (o,) = replay_file(tmp_path / "case.rules.txt", RULES_ROOT)
    assert not o.passed
    assert o.difference == "step 2 (move {\"bucket\": 1, \"id\": 1}): 'code': expected 7, got 4"


def test_whole_golden_tree_in_one_call():
    require_shared()
    outcomes = replay_file(GOLDEN, RULES_ROOT)
    assert len(outcomes) == 561 and all(o.passed for o in outcomes)
