"""The `zoo gohr` commands: conformance on the whole golden tree, play in a terminal, rule checks."""

from __future__ import annotations

import gzip
import json

from shared_data import GOLDEN, RULES_ROOT, require_shared

from zoo.cli import main


def test_conformance_command_passes_the_whole_golden_tree(capsys):
    require_shared()
    code = main(["gohr", "conformance", "--rules-root", str(RULES_ROOT), str(GOLDEN)])
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "561 passed, 0 failed"
    assert code == 0


def test_conformance_command_reports_the_first_difference(tmp_path, capsys):
    require_shared()
    lines = gzip.open(GOLDEN / "CGS__4_cw.jsonl.gz", "rt").read().splitlines()
    episode = json.loads(lines[3])
    step = next(s for s in episode["steps"] if s["accepted"])
    step["code"], step["accepted"] = 4, False
    lines[3] = json.dumps(episode)
    plain = tmp_path / "cw.jsonl"  # uncompressed .jsonl is read too
    plain.write_text("\n".join(lines) + "\n")
    code = main(["gohr", "conformance", "--rules-root", str(RULES_ROOT), str(plain)])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 1
    assert out[-1] == "9 passed, 1 failed"
    assert out[0].startswith("cw.jsonl episode 3: FAIL: step ") and "'code': expected 4, got 0" in out[0]


def test_conformance_command_on_a_missing_file(tmp_path, capsys):
    assert main(["gohr", "conformance", "--rules-root", str(tmp_path), str(tmp_path / "none.jsonl")]) == 2
    assert "none.jsonl: no such transcript file or folder" in capsys.readouterr().err


def test_play_in_the_terminal(monkeypatch, capsys):
    import io

    # seed 1, 9 pieces: the first board of the server's stream; 8 is a square in cell 8 (see the golden boards)
    monkeypatch.setattr("sys.stdin", io.StringIO("40 1\nhello\n8 3\n8 0\nq\n"))
    assert main(["gohr", "play", "paper/b3_then_b1", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Board 1 of 3" in out and "[0]" in out and "[3]" in out
    assert "no such cell" in out and "type a cell (1..36) and a bucket (0..3)" in out
    assert out.count("accepted") == 1 and "that cell is empty" in out
    assert "1 moves, 0 errors" in out


def test_check_reports_a_rule_file_error(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("(*, star, *, *, 0)\n(*, *, *, *\n")
    assert main(["gohr", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}:2:") and "Traceback" not in err
    assert main(["gohr", "check", "paper/clockwise"]) == 0
    assert "ok: paper/clockwise: 2 rule line(s), 2 atom(s)" in capsys.readouterr().out


def test_rules_lists_a_rule_set(capsys):
    assert main(["gohr", "rules", "paper"]) == 0
    assert capsys.readouterr().out.split() == ["paper/b23_then_b01", "paper/b3_then_b1", "paper/clockwise", "paper/color_match"]
    assert main(["gohr", "rules", "papr"]) == 2
    assert "unknown rule set 'papr' (did you mean 'paper'?)" in capsys.readouterr().err
