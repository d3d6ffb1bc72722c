"""gymnasium's ``check_env`` with its default arguments (render checks included) on every named GOHR id,
on a virtual display (Xvfb) with matplotlib's Tk backend; without any display the 'human' mode refuses
with a clear error by design (tests/plugins/zoo_gohr/test_render.py), which is all that check then reports."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CHECK = """
import gymnasium, zoo_gohr.registration
from gymnasium.utils.env_checker import check_env
ids = sorted(i for i in gymnasium.registry if i.startswith("GOHR/") and i != "GOHR/Rule-v0")
for env_id in ids:
    check_env(gymnasium.make(env_id).unwrapped)
print(len(ids), "ids pass")
"""
NO_DISPLAY = """
import gymnasium, zoo_gohr.registration
from gymnasium.utils.env_checker import check_env
try:
    check_env(gymnasium.make("GOHR/Clockwise-v0").unwrapped)
except RuntimeError as exc:
    print(exc)
"""


def test_gymnasiums_default_check_env_passes_on_every_named_id_with_a_display():
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.fail("this test needs a virtual display: apt-get install -y xvfb (.ci/run does this)")
    env = {**os.environ, "MPLBACKEND": "TkAgg", "OMP_NUM_THREADS": "1"}
    result = subprocess.run([xvfb_run, "-a", sys.executable, "-c", CHECK], capture_output=True, text=True, env=env,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "19 ids pass"


def test_without_a_display_only_the_human_window_is_refused():
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "MPLBACKEND", "WAYLAND_DISPLAY")}
    result = subprocess.run([sys.executable, "-c", NO_DISPLAY], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith("render_mode='human' needs a display")
