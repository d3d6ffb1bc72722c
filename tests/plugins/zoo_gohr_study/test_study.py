"""zoo study, zoo report and zoo compare on GOHR runs, with the linear DQN and an SB3 agent side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from zoo_gohr_study.study import load_study, merged

from zoo.cli import main
from zoo.errors import SpecError
from zoo.overrides import Overrides
from zoo.registry import get_registry

ROOT = Path(__file__).resolve().parents[3]
STUDY = {
    "name": "tiny",
    "base": {"env": {"type": "gohr", "horizon": 30}, "agent": {"type": "gohr-linear-dqn", "batch_size": 16},
             "budget": {"episodes": 3}, "trials": 3, "logging": {"tensorboard": False, "progress": False}},
    "runs": {"b3_then_b1": {"env": {"rule": "paper/b3_then_b1"}},
             "clockwise": {"env": {"rule": "paper/clockwise"}},
             "ppo_b3_then_b1": {"env": {"rule": "paper/b3_then_b1"},
                                "agent": {"type": "ppo", "n_steps": 32, "batch_size": 32, "n_epochs": 1}}},
}


def _write(tmp_path, study) -> Path:
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study))
    return path


def test_study_trains_every_run_and_reports_them_together(tmp_path, capsys):
    assert main(["study", str(_write(tmp_path, STUDY)), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]) == 0
    report = tmp_path / "runs" / "tiny" / "report"
    summary = json.loads((report / "summary.json").read_text())
    assert sorted(summary["difficulty_order"]) == ["b3_then_b1", "clockwise", "ppo_b3_then_b1"]
    assert {row["agent"] for row in summary["runs"]} == {"gohr-linear-dqn", "ppo"}
    assert all(row["trials"] == 3 and row["episodes"] == 3 for row in summary["runs"])
    assert sum(row["perron"] for row in summary["runs"]) == pytest.approx(1.0)
    for name in ("median_cumulative_errors.png", "tce_boxplot.png", "tce_density.png", "cumulative_errors_clockwise.png"):
        assert (report / name).stat().st_size > 1000
    assert "One-sided Mann-Whitney" in (report / "report.md").read_text()
    runs = sorted((tmp_path / "runs").glob("tiny.b3_then_b1-*")) + sorted((tmp_path / "runs").glob("tiny.ppo_*"))
    capsys.readouterr()
    assert main(["compare", str(runs[0]), str(runs[1])]) == 0
    text = capsys.readouterr().out
    assert "ease ratio b3_then_b1 over ppo_b3_then_b1" in text and "Mann-Whitney U" in text


def test_merged_changes_mappings_key_by_key():
    assert merged({"env": {"type": "gohr", "horizon": 9}, "trials": 2}, {"env": {"rule": "r"}, "trials": 5}) == \
        {"env": {"type": "gohr", "horizon": 9, "rule": "r"}, "trials": 5}


def test_bad_studies_are_refused_before_anything_runs(tmp_path):
    bad_param = json.loads(json.dumps(STUDY))
    bad_param["runs"]["clockwise"]["agent"] = {"lr": -1}
    with pytest.raises(SpecError, match="lr"):
        load_study(_write(tmp_path, bad_param), get_registry())
    with pytest.raises(SpecError, match="reps"):
        load_study(_write(tmp_path, {**STUDY, "reps": 3}), get_registry())
    assert not (tmp_path / "runs").exists()


def test_the_shipped_paper_study_is_valid_and_holds_the_papers_protocol():
    study, texts = load_study(ROOT / "examples" / "gohr-paper-section5.yaml", get_registry())
    assert list(study.runs) == ["color_match", "clockwise", "b23_then_b01", "b3_then_b1"]
    spec = yaml.safe_load(texts["clockwise"])
    assert (spec["trials"], spec["budget"]["episodes"], spec["env"]["horizon"]) == (100, 200, 100)
    assert spec["env"]["board"] == {"min_objects": 9, "min_shapes": 4, "min_colors": 4}
    assert spec["env"]["rule"] == "paper/clockwise"


STUDY_TEXT = """\
name: lines
base:
  env: {type: gohr, horizon: 30}
  agent: {type: gohr-linear-dqn, batch_size: 16}
  budget: {episodes: 2}
  logging: {tensorboard: false, progress: false}
runs:
  clockwise:
    env: {rule: paper/clockwise}
  bad:
    env: {rule: paper/clockwise}
    agent: {batch_sise: 3}
"""


def test_study_errors_point_at_the_study_files_own_lines(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY_TEXT)
    with pytest.raises(SpecError) as caught:
        load_study(path, get_registry())
    assert str(caught.value).startswith(f"{path}:12:13: agent.batch_sise: unknown field 'batch_sise' (did you mean 'batch_size'?)")
    path.write_text(STUDY_TEXT.replace("batch_sise", "batch_size").replace("batch_size: 16", "batch_size: 0"))
    with pytest.raises(SpecError) as caught:
        load_study(path, get_registry())
    assert str(caught.value).startswith(f"{path}:4:34: agent.batch_size: Input should be greater than or equal to 1")


def test_overrides_apply_to_every_run_of_a_study(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text(STUDY_TEXT.replace("batch_sise", "batch_size"))
    _, texts = load_study(path, get_registry(), Overrides(("budget.episodes=5",), trials=2))
    assert [yaml.safe_load(t)["budget"]["episodes"] for t in texts.values()] == [5, 5]
    assert [yaml.safe_load(t)["trials"] for t in texts.values()] == [2, 2]


def test_study_runs_are_in_the_main_index_and_an_interrupted_study_resumes(tmp_path, capsys, monkeypatch):
    import zoo_gohr_study.study as study_module

    path = tmp_path / "study.yaml"
    path.write_text(STUDY_TEXT.replace("batch_sise", "batch_size"))
    runs = tmp_path / "runs"
    real = study_module.execute_run
    monkeypatch.setattr(study_module, "execute_run", lambda folder, registry, progress: "interrupted")
    assert main(["study", str(path), "--runs-dir", str(runs)]) == 130
    assert f"continue with: zoo study {path} --resume --runs-dir {runs}" in capsys.readouterr().err
    assert main(["study", str(path), "--runs-dir", str(runs), "--no-progress"]) == 2  # it exists: resume it instead
    assert "--resume" in capsys.readouterr().err
    monkeypatch.setattr(study_module, "execute_run", real)
    assert main(["study", str(path), "--runs-dir", str(runs), "--no-progress", "--resume"]) == 0
    ledger = json.loads((runs / "lines" / "study.json").read_text())
    assert sorted(ledger["runs"]) == ["bad", "clockwise"] and all((runs / name).is_dir() for name in ledger["runs"].values())
    assert (runs / "lines" / "report" / "summary.json").exists()
    capsys.readouterr()
    assert main(["runs", "--runs-dir", str(runs), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(row["id"] for row in rows) == sorted(ledger["runs"].values())
    assert {row["status"] for row in rows} == {"finished"}
