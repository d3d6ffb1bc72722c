"""Every built-in plugin loads without the libraries of its package extra, the main job trains without them, and
each plugin used without its extra stops with one line naming it (`zoo.extras.require`).

The libraries of the extras are hidden from a child process by an import hook, so the test needs no second venv
(tests/core/test_light_install.py installs the core alone for real).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: top-level modules that only extras install; pandas and matplotlib (the 'report' extra) stay visible, as
#: stable-baselines3 checks whether they are installed before it imports them, which this hook cannot mimic
#: (test_light_install.py shows the core trains without them)
EXTRA_MODULES = ("ale_py", "cv2", "minatar", "sb3_contrib", "optuna", "scipy", "mlflow", "wandb", "ray",
                 "starlette", "uvicorn", "itsdangerous", "moviepy", "pygame", "rl_zoo3")

WITHOUT_EXTRAS = f"""
import importlib.abc, sys

class HideExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in {EXTRA_MODULES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, HideExtras())
from zoo.cli import main
sys.exit(main(sys.argv[1:]))
"""

CARTPOLE = "env: {type: gym, id: CartPole-v1}\n"
PPO = "agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}\n"
BUDGET = "budget: {steps: 64, eval_episodes: 1}\n"


def _zoo(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _spec(tmp_path, name: str, text: str) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return str(path)


@pytest.mark.slow  # a child process per command, each importing the zoo afresh (20 to 50 s)
def test_without_the_extras_every_plugin_loads_the_main_job_trains_and_each_extra_is_named(tmp_path):
    listed = _zoo("list", cwd=tmp_path)
    assert listed.returncode == 0 and "warning" not in listed.stderr, listed.stderr
    assert "ppo" in listed.stdout and "atari" in listed.stdout and "mlflow" in listed.stdout

    trained = _zoo("train", _spec(tmp_path, "cart", CARTPOLE + PPO + BUDGET), "--runs-dir", "runs", "--no-progress",
                   cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert list((tmp_path / "runs").glob("cart-*/trials/000/tb/events.*"))  # TensorBoard is in the core

    needs = {
        "atari": ("train", _spec(tmp_path, "pong", "env: {type: atari, game: pong}\nagent: {type: dqn}\n" + BUDGET)),
        "minatar": ("train", _spec(tmp_path, "mini", "env: {type: minatar, game: breakout}\nagent: {type: dqn}\n" + BUDGET)),
        "contrib": ("train", _spec(tmp_path, "qr", CARTPOLE + "agent: {type: qrdqn}\n" + BUDGET)),
        "mlflow": ("train", _spec(tmp_path, "ml", CARTPOLE + PPO + BUDGET + "logging: {trackers: [mlflow]}\n")),
        "wandb": ("train", _spec(tmp_path, "wb", CARTPOLE + PPO + BUDGET + "logging: {trackers: [wandb]}\n")),
        "report": ("report", str(next((tmp_path / "runs").glob("cart-*")))),
        "tune": ("tune", _spec(tmp_path, "tuning", "spec: cart.yaml\n")),
    }
    for extra, args in needs.items():
        failed = _zoo(*args, "--runs-dir", "runs", cwd=tmp_path)
        lines = failed.stderr.strip().splitlines()
        assert failed.returncode != 0 and len(lines) == 1, (extra, failed.stderr)
        assert lines[0].startswith("error: ") and lines[0].endswith(f"needs the '{extra}' extra: pip install 'zoo-rl[{extra}]'")
    assert not list((tmp_path / "runs").glob("ml-*")) and not list((tmp_path / "runs").glob("wb-*"))  # stopped before a folder
