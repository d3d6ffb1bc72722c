"""``zoo runs`` names each run's env by its id or rule, and ``--env`` filters by either the type or that name."""

from __future__ import annotations

import json

import pytest

from zoo.cli import main

SPEC = """\
env: {{type: gym, id: {env}}}
agent: {{type: a2c}}
budget: {{steps: 10}}
logging: {{tensorboard: false, progress: false}}
"""


@pytest.fixture
def runs(tmp_path):
    for name, env in (("cart", "CartPole-v1"), ("acro", "Acrobot-v1")):
        spec = tmp_path / f"{name}.yaml"
        spec.write_text(SPEC.format(env=env))
        assert main(["train", str(spec), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    return tmp_path / "runs"


def _listed(capsys, runs, *options) -> tuple[list[dict], str]:
    capsys.readouterr()
    assert main(["runs", "--runs-dir", str(runs), "--json", *options]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_runs_are_listed_with_the_env_id_and_filtered_by_it_or_by_the_type(runs, capsys, monkeypatch):
    rows, _ = _listed(capsys, runs)
    assert sorted(row["env_name"] for row in rows) == ["Acrobot-v1", "CartPole-v1"]
    rows, _ = _listed(capsys, runs, "--env", "CartPole-v1")
    assert [row["name"] for row in rows] == ["cart"]
    rows, _ = _listed(capsys, runs, "--env", "gym")
    assert len(rows) == 2
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["runs", "--runs-dir", str(runs)]) == 0
    table = capsys.readouterr().out
    assert "CartPole-v1 (gym)" in table and "Acrobot-v1 (gym)" in table


def test_an_env_no_run_has_is_said_with_the_envs_there_are(runs, capsys):
    rows, err = _listed(capsys, runs, "--env", "CartPole-v0")
    assert rows == []
    assert "note: no runs of env 'CartPole-v0'; the runs here are of: Acrobot-v1 (gym), CartPole-v1 (gym)" in err
