"""Filming an env that draws with pygame prints nothing of SDL's or ALSA's on a machine without a display or sound
server: no ``error: XDG_RUNTIME_DIR ...`` line that would read as the zoo's own error."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from zoo.cli import main

SPEC = "env: {type: gym, id: CartPole-v1}\nagent: {type: a2c}\nbudget: {steps: 10}\n" \
       "logging: {tensorboard: false, progress: false}\n"


@pytest.mark.slow  # about 4 s: films an episode in a child process
def test_zoo_enjoy_video_keeps_sdl_quiet_without_xdg_runtime_dir(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    run = tmp_path / "run"
    assert main(["train", str(spec), "--run-dir", str(run), "--no-progress"]) == 0
    env = {key: value for key, value in os.environ.items() if not key.startswith(("XDG_", "SDL_"))}
    result = subprocess.run([sys.executable, "-m", "zoo.cli", "enjoy", str(run), "--episodes", "1",
                             "--video", str(tmp_path / "film.mp4")], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "film.mp4").stat().st_size > 0
    assert "XDG_RUNTIME_DIR" not in result.stderr and "ALSA" not in result.stderr and "error" not in result.stderr.lower()
