"""The leaderboard's HTML page in headless Chromium: it loads from its file alone and its tables sort."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
import yaml

from zoo.cli import main

pytestmark = pytest.mark.slow  # headless Chromium

SCRIPT = Path(__file__).parents[3] / "scripts" / "leaderboard_screenshot.py"

BOARD = {
    "name": "page",
    "env": {"type": "gohr", "horizon": 30},
    "rules": ["paper/clockwise", "paper/color_match"],
    "budget": {"episodes": 4},
    "trials": 3,
    "logging": {"tensorboard": False, "progress": False},
    "agents": {"random": {"agent": {"type": "random-legal"}},
               "sarsa": {"agent": {"type": "sarsa", "features": {"type": "gohr-paper"}, "reward_norm": "none"}}},
    "metrics": {"bootstraps": 50, "ranking_bootstraps": 5},
}


def _check_page():
    spec = importlib.util.spec_from_file_location("leaderboard_screenshot", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.check_page


def test_the_page_opens_in_chromium_sorts_and_is_screenshotted(tmp_path):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.fail("the page test needs Chromium: run 'apt-get update && apt-get install -y chromium'")
    board = tmp_path / "board.yaml"
    board.write_text(yaml.safe_dump(BOARD, sort_keys=False))
    assert main(["leaderboard", str(board), "--runs-dir", str(tmp_path / "runs"), "--no-progress",
                 "-o", str(tmp_path / "out")]) == 0
    shot = tmp_path / "page.png"
    assert _check_page()(tmp_path / "out" / "leaderboard.html", chromium, shot) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_a_page_whose_sorting_is_broken_is_reported(tmp_path):
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    page = tmp_path / "broken.html"
    page.write_text("<table class=sortable><thead><tr><th>a</th><th>b</th><th>score</th></tr></thead><tbody>"
                    "<tr><td>1</td><td>x</td><td>0.2</td></tr><tr><td>2</td><td>y</td><td>0.9</td></tr>"
                    "<tr><td>3</td><td>z</td><td>0.5</td></tr></tbody></table><script>undefined_call()</script>")
    problems = _check_page()(page, chromium)
    assert any("script error" in p for p in problems) and any("unsorted" in p for p in problems)
