"""``zoo gohr play``: the legend, and watching a trained agent play (``--agent RUN``)."""

from __future__ import annotations

import io
import re

import pytest

from zoo.cli import main

SPEC = """\
env: {type: gohr, rule: paper/color_match, board: {min_objects: 4}}
agent: {type: ppo, n_steps: 64, batch_size: 32, n_epochs: 1}
budget: {steps: 128, checkpoint_every: 128, eval_episodes: 1}
trials: 1
seed: 0
"""


@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("gohr-ppo")
    (root / "spec.yaml").write_text(SPEC)
    assert main(["train", str(root / "spec.yaml"), "--run-dir", str(root / "run"), "--no-progress"]) == 0
    return root / "run"


def test_play_shows_the_legend(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["gohr", "play", "paper/clockwise"]) == 0
    out = capsys.readouterr().out
    words = " ".join(out.split())
    assert "★ star" in words and "K black" in words and "0 top-left" in words and "e.g. ★R14" in words


def test_watching_an_agent_narrates_each_move_of_its_own_policy(ppo_run, capsys):
    assert main(["gohr", "play", "paper/color_match", "--agent", str(ppo_run), "--boards", "2", "--delay", "0"]) == 0
    out = capsys.readouterr().out
    assert "agent 'ppo' of run at its checkpoint step-000000000128, playing paper/color_match" in " ".join(out.split())
    verdicts = re.findall(r"^move \d+: cell \d+ to bucket \d: (\w+)$", out, re.MULTILINE)
    overs = re.findall(r"^board (\d) over after (\d+) moves, (\d+) errors$", out, re.MULTILINE)
    assert [int(b) for b, _, _ in overs] == [1, 2]
    assert sum(int(m) for _, m, _ in overs) == len(verdicts)
    errors = sum(v != "accepted" for v in verdicts)
    assert sum(int(e) for _, _, e in overs) == errors
    assert out.rstrip().endswith(f"2 boards, {errors} errors")


def test_watching_needs_a_gohr_run_with_a_checkpoint(ppo_run, tmp_path, capsys):
    assert main(["gohr", "play", "paper/clockwise", "--agent", str(tmp_path)]) != 0
    assert "not a zoo run folder" in capsys.readouterr().err
    for checkpoint in (ppo_run / "trials/000/checkpoints").iterdir():
        (checkpoint / "COMPLETE").rename(checkpoint / "COMPLETE.hidden")
    try:
        assert main(["gohr", "play", "paper/clockwise", "--agent", str(ppo_run)]) != 0
        assert "trial 0 has no checkpoint yet" in capsys.readouterr().err
    finally:
        for checkpoint in (ppo_run / "trials/000/checkpoints").iterdir():
            (checkpoint / "COMPLETE.hidden").rename(checkpoint / "COMPLETE")
