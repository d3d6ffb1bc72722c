"""A malformed rule file gives one positioned line and exit code 2, never a traceback, in every command
that reads rule files; train and study write nothing."""

from __future__ import annotations

import io
import json

import pytest
from zoo_gohr.engine.parser import MAX_RULE_CHARS

from zoo.cli import main

BAD_RULES = {  # name: (file text, "line:col" of the error, words of its message)
    "syntax": ("(*, *, *, *, [0, 1])\n(*, *, *, *, p + )\n", "2:18", "expected an expression"),
    "long-number": ("(*, *, *, *, " + "9" * 5000 + ")\n", "1:14", "32-bit integer range"),
    "operator-chain": ("(*, *, *, *, " + "+".join(["1"] * 1000) + ")\n", "1:215", "operators in one line"),
    "oversized": ("(*, *, *, *, [0, 1, 2, 3])\n" * (MAX_RULE_CHARS // 27 + 1), f"{MAX_RULE_CHARS // 27 + 1}:{MAX_RULE_CHARS % 27 + 1}",
                  "at most"),
}


def _spec(tmp_path, rule) -> str:
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: bad-rule\nenv: {{type: gohr, rule: {rule}}}\nagent: {{type: gohr-linear-dqn}}\n"
                    "budget: {episodes: 2}\n")
    return str(spec)


def _study(tmp_path, rule) -> str:
    study = tmp_path / "study.yaml"
    study.write_text("name: bad-study\nbase: {env: {type: gohr}, agent: {type: gohr-linear-dqn}, budget: {episodes: 2}}\n"
                     f"runs:\n  good: {{env: {{rule: paper/clockwise}}}}\n  bad: {{env: {{rule: {rule}}}}}\n")
    return str(study)


def _edge_case_folder(tmp_path, rule) -> list[str]:
    folder = tmp_path / "edge"
    folder.mkdir()
    (folder / "case.rules.txt").write_text(rule.read_text())
    return ["gohr", "conformance", "--rules-root", str(tmp_path), str(folder)]


def _transcript(tmp_path, rule) -> list[str]:
    episode = {"cgs_args": [rule.name, "9", "4", "4", "seed=1"], "episode": 0, "initial": {}, "steps": []}
    (tmp_path / "t.jsonl").write_text(json.dumps(episode) + "\n")
    return ["gohr", "conformance", "--rules-root", str(tmp_path), str(tmp_path / "t.jsonl")]


COMMANDS = {  # name: argv for a rule file
    "validate": lambda tmp_path, rule: ["validate", _spec(tmp_path, rule)],
    "train": lambda tmp_path, rule: ["train", _spec(tmp_path, rule), "--runs-dir", str(tmp_path / "runs")],
    "study": lambda tmp_path, rule: ["study", _study(tmp_path, rule), "--runs-dir", str(tmp_path / "runs")],
    "gohr check": lambda tmp_path, rule: ["gohr", "check", str(rule)],
    "gohr play": lambda tmp_path, rule: ["gohr", "play", str(rule)],
    "gohr conformance (edge case)": _edge_case_folder,
    "gohr conformance (transcript)": _transcript,
}


@pytest.mark.parametrize("bad", BAD_RULES)
@pytest.mark.parametrize("command", COMMANDS)
def test_malformed_rule_file_is_one_line_in_every_command(command, bad, tmp_path, capsys, monkeypatch):
    text, position, words = BAD_RULES[bad]
    rule = tmp_path / "bad.txt"
    rule.write_text(text)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    argv = COMMANDS[command](tmp_path, rule)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out + err
    assert f"bad.txt:{position}: " in lines[0] or f"case.rules.txt:{position}: " in lines[0]
    assert words in lines[0]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_play_stops_with_one_line_on_a_rule_the_server_would_stop_on(tmp_path, capsys, monkeypatch):
    """Arithmetic on a color name parses (as on the server) and fails at the first move that evaluates it."""
    rule = tmp_path / "bad.txt"
    rule.write_text("(*, *, *, *, [last.color + 1, !last * [0, 1, 2, 3]])\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("8 0\nq\n"))  # seed 1: a piece in cell 8, any bucket first
    assert main(["gohr", "play", str(rule), "--seed", "1"]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out + err
    assert lines[0].startswith(f"error: rule error: {rule}:1:26: attempt to apply operation + to a non-number ")
