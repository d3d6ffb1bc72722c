"""``zoo new plugin NAME``: a package from the template that passes ``zoo check`` and its own tests as written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zoo.cli import main

ROOT = Path(__file__).resolve().parents[3]


def test_it_writes_a_package_with_every_kind_of_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "plugin", "my-envs"]) == 0
    files = {str(path.relative_to(tmp_path / "my-envs")) for path in (tmp_path / "my-envs").rglob("*") if path.is_file()}
    assert files == {"pyproject.toml", "README.md", ".github/workflows/test.yml", "tests/test_contract.py",
                     *(f"src/my_envs/{name}" for name in ("__init__.py", "plugin.py", "env.py", "agent.py", "meta.py",
                                                         "rules/alternate.txt"))}
    assert 'my-envs = "my_envs.plugin"' in (tmp_path / "my-envs" / "pyproject.toml").read_text()
    assert 'check_plugin("my-envs")' in (tmp_path / "my-envs" / "tests" / "test_contract.py").read_text()


@pytest.mark.parametrize("name", ["MyEnvs", "my_envs", "9envs", "envs-"])
def test_a_name_that_cannot_be_an_entry_point_is_refused(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "plugin", name]) == 2
    assert capsys.readouterr().err.startswith(f"error: '{name}' cannot name a plugin")
    assert not any(tmp_path.iterdir())


def test_a_folder_in_the_way_is_left_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "notes.txt").write_text("mine")
    assert main(["new", "plugin", "demo"]) == 2
    assert "demo exists and is not empty" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "demo").iterdir()] == ["notes.txt"]


@pytest.mark.slow  # a venv and two editable installs (no downloads: --system-site-packages and --no-deps)
def test_the_new_package_passes_zoo_check_and_its_tests_in_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    bin_ = venv / "bin"
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ""}

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(args, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done

    run(str(bin_ / "pip"), "install", "-q", "--no-deps", "-e", str(ROOT))
    run(str(bin_ / "zoo"), "new", "plugin", "demo")
    run(str(bin_ / "pip"), "install", "-q", "--no-deps", "-e", "demo")
    checked = run(str(bin_ / "zoo"), "check", "demo")
    assert "FAIL" not in checked.stdout and "PASS agent demo:q: exact resume" in checked.stdout
    assert "warning" not in checked.stderr
    run(str(bin_ / "python"), "-m", "pytest", "demo", "-q", "-p", "no:cacheprovider")
