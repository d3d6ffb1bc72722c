"""The core install (``pip install -c constraints.txt -e .``, no extra) in a fresh venv trains the README's main job,
loads every plugin, and names the extra an Atari spec needs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: distributions that only extras bring
EXTRA_ONLY = {"ale-py", "opencv-python-headless", "minatar", "sb3-contrib", "optuna", "scipy", "mlflow", "wandb", "ray",
              "starlette", "moviepy", "mkdocs", "pytest"}


@pytest.mark.slow  # a fresh venv and a pip install (about a minute with pip's cache, more without)
def test_the_core_install_trains_the_main_job_and_names_the_extras_it_lacks(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-c", str(ROOT / "constraints.txt"), "-e", str(ROOT)],
                         capture_output=True, text=True, timeout=1200)
    assert pip.returncode == 0, pip.stderr
    frozen = subprocess.run([str(venv / "bin" / "pip"), "list", "--format=json"], capture_output=True, text=True, check=True)
    installed = {item["name"].lower().replace("_", "-") for item in json.loads(frozen.stdout)}
    assert installed & EXTRA_ONLY == set() and {"stable-baselines3", "torch", "tensorboard"} <= installed

    def zoo(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin" / "zoo"), *args], capture_output=True, text=True, cwd=tmp_path,
                              timeout=600)

    listed = zoo("list")
    assert listed.returncode == 0 and "warning" not in listed.stderr, listed.stderr
    trained = zoo("train", str(ROOT / "examples" / "cartpole-ppo.yaml"), "--set", "budget.steps=2048",
                  "--runs-dir", "runs", "--no-progress")
    assert trained.returncode == 0, trained.stderr
    [result] = (tmp_path / "runs").glob("cartpole-ppo-*/trials/000/result.json")
    assert json.loads(result.read_text())["steps"] >= 2048

    (tmp_path / "pong.yaml").write_text("env: {type: atari, game: pong}\nagent: {type: dqn}\nbudget: {steps: 100}\n")
    atari = zoo("train", "pong.yaml", "--runs-dir", "runs")
    assert atari.returncode != 0
    assert atari.stderr.strip().endswith("the atari env needs the 'atari' extra: pip install 'zoo-rl[atari]'")
