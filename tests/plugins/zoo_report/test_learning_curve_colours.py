"""Each run's learning curve and its confidence band share a colour, also when a run without a band comes first."""

from __future__ import annotations

import json

import matplotlib.colors
import matplotlib.pyplot as plt
from zoo_report.report import plot_learning_curves

from zoo.store import RunFolder


def _run(root, name: str, trials: int) -> RunFolder:
    folder = root / name
    for trial in range(trials):
        (folder / "trials" / f"{trial:03d}").mkdir(parents=True)
        rows = [{"step": 10 * i, "episode_return": float(i + trial)} for i in range(20)]
        (folder / "trials" / f"{trial:03d}" / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "run.json").write_text(json.dumps({"id": name, "env": "gym", "agent": "ppo", "status": "finished"}))
    return RunFolder(folder)


def test_a_band_takes_its_lines_colour_after_a_run_without_a_band(tmp_path, monkeypatch):
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    runs = [_run(tmp_path, "one-trial", 1), _run(tmp_path, "three-trials", 3), _run(tmp_path, "two-trials", 2)]
    plot_learning_curves(runs, tmp_path / "curves.png")
    [axes] = figures[0].axes
    lines, bands = axes.get_lines(), axes.collections
    assert len(lines) == 3 and len(bands) == 2
    for line, band in zip(lines[1:], bands):
        assert matplotlib.colors.same_color(band.get_facecolor()[0][:3], matplotlib.colors.to_rgb(line.get_color()))
