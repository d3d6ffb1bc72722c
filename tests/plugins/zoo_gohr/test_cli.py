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


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    return err


def test_conformance_names_a_file_that_is_not_a_transcript(tmp_path, capsys):
    cases = {"keys.jsonl": ('{"episode": 0}\n', "keys.jsonl:1: not a transcript (no cgs_args, initial, steps)"),
             "text.jsonl": ('\n{"cgs_args": 1\n', "text.jsonl:2: not a transcript (the line is not JSON)"),
             "bytes.jsonl": (b"\xff\xfe\n", "bytes.jsonl:1: not a transcript (not UTF-8 text)"),
             "cut.jsonl.gz": (gzip.compress(b'{"a": 1}\n')[:12], "cut.jsonl.gz:1: not a transcript (not a complete gzip file)")}
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
        assert main(["gohr", "conformance", "--rules-root", str(tmp_path), str(path)]) == 2
        err = one_error_line(capsys)
        assert f"error: {tmp_path / message}" in err and "one JSON object per episode (cgs_args, episode, initial, steps)" in err
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "notes.jsonl").write_text('{"note": "not an episode"}\n')
    assert main(["gohr", "conformance", "--rules-root", str(tmp_path), str(folder)]) == 2
    assert f"{folder / 'notes.jsonl'}:1: not a transcript" in one_error_line(capsys)


def test_conformance_on_a_folder_without_transcripts(tmp_path, capsys):
    (tmp_path / "readme.txt").write_text("no transcripts here\n")
    assert main(["gohr", "conformance", "--rules-root", str(tmp_path), str(tmp_path)]) == 2
    assert f"error: no transcripts found in {tmp_path}; a transcript is a .jsonl" in one_error_line(capsys)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["gohr", "conformance", "--rules-root", str(tmp_path), str(empty)]) == 2
    assert f"error: {empty}: no episodes in the file" in one_error_line(capsys)


def test_check_a_folder_or_a_missing_path(tmp_path, capsys):
    assert main(["gohr", "check", str(tmp_path)]) == 2
    assert f"error: {tmp_path} is a folder, not a rule file; give a .txt rule file or a rule name" in one_error_line(capsys)
    assert main(["gohr", "check", str(tmp_path / "none")]) == 2
    assert f"error: no rule file at {tmp_path / 'none'}" in one_error_line(capsys)
