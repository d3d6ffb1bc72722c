"""docs/workflow.md and examples/ale-sarsa-methodology.md work as written: every ``zoo`` command runs.

The commands run in order in one scratch folder that holds a copy of examples/, each through bash
(for globs such as ``runs/*``), and must exit 0; YAML blocks that are specs must validate.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs every command of the workflow pages, about 4 minutes

ROOT = Path(__file__).parents[2]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks(language: str, doc: Path = ROOT / "docs" / "workflow.md") -> list[str]:
    return [code for lang, code in FENCE.findall(doc.read_text(encoding="utf-8")) if lang == language]


def commands(doc: Path) -> list[str]:
    return [line[2:] for lang, code in FENCE.findall(doc.read_text(encoding="utf-8")) if lang == "console"
            for line in code.splitlines() if line.startswith("$ zoo ")]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.setenv("ZOO_RUNS_DIR", "runs")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return tmp_path


def test_every_command_of_the_workflow_page_runs(scratch):
    lines = commands(ROOT / "docs" / "workflow.md")
    assert len(lines) >= 12
    for line in lines:
        done = subprocess.run(["bash", "-c", line], cwd=scratch, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
    assert (scratch / "runs" / "cartpole-ppo.tune" / "best.yaml").exists()
    assert (scratch / "report-all" / "learning_curves.png").exists()
    for code in blocks("python"):  # after the commands: they use the runs and files the commands made
        done = subprocess.run([sys.executable, "-c", code], cwd=scratch, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{code}\n{done.stderr[-2000:]}"


def test_the_yaml_blocks_of_the_workflow_page_validate(tmp_path):
    from zoo_tune.tune import load_tuning

    from zoo.registry import get_registry
    from zoo.spec import load_spec_text

    specs = [code for code in blocks("yaml") if code.lstrip().startswith(("# yaml-language-server", "env:"))]
    tunings = [code for code in blocks("yaml") if code.lstrip().startswith("spec:")]
    assert len(specs) == 1 and len(tunings) == 1
    load_spec_text(specs[0], get_registry())
    (tmp_path / "tuning.yaml").write_text(tunings[0])
    assert load_tuning(tmp_path / "tuning.yaml").space


def test_every_command_of_the_ale_methodology_runs(scratch):
    text = (ROOT / "examples" / "ale-sarsa-methodology.md").read_text()
    lines = re.findall(r"`(zoo [^`]+)`", text)
    assert "zoo report runs/*" in lines and len(lines) >= 3
    spec = scratch / "catch.yaml"  # runs to report on: the random baseline on the synthetic Catch, briefly
    spec.write_text((ROOT / "examples" / "ale-random-catch.yaml").read_text())
    train = "zoo train catch.yaml --set budget.episodes=2 --set budget.eval_episodes=2 --trials 3 --no-progress"
    for line in [train, "zoo runs", *lines]:  # listing the runs leaves their index beside them, for the report to skip
        done = subprocess.run(["bash", "-c", line], cwd=scratch, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line}\n{done.stderr[-2000:]}"
        if line == "zoo report runs/*":
            assert "note: runs/index.sqlite: skipped" in done.stderr
    assert len(list((scratch / "specs" / "test").glob("*.yaml"))) == 50
