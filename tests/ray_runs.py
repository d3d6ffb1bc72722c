"""Runs of a small GOHR SARSA spec for the Ray backend's tests (tests/test_ray.py, tests/test_ray_cluster.py)."""

from __future__ import annotations

import json
from pathlib import Path

from zoo import execute_run, prepare_run
from zoo.registry import get_registry

SPEC = """\
env: {{type: gohr, rule: paper/color_match, horizon: 30}}
agent: {{type: sarsa, features: {{type: gohr-paper}}, reward_norm: none}}
budget: {{episodes: {episodes}, checkpoint_every: {every}, eval_episodes: 2}}
trials: {trials}
seed: 11
backend: {backend}
logging: {{tensorboard: false, progress: false, keep_checkpoints: 100}}
"""
RAY = "{type: ray, workers: 2}"
LOCAL = "{type: local, workers: 1}"


def write_spec(tmp_path: Path, name: str, backend: str, *, trials: int = 1, episodes: int = 12, every: int = 2) -> Path:
    source = tmp_path / f"{name}.yaml"
    source.write_text(SPEC.format(backend=backend, trials=trials, episodes=episodes, every=every))
    return source


def train(tmp_path: Path, name: str, backend: str, **budget):
    """A run of the spec, trained in this process: (its RunFolder, its final status)."""
    source = write_spec(tmp_path, name, backend, **budget)
    folder = prepare_run(source, get_registry(), tmp_path / "runs", tmp_path / "runs" / name)
    return folder, execute_run(folder, get_registry(), progress=False)


def numbers(run: Path, *, checkpoints: bool = True) -> dict[str, object]:
    """Each trial's metrics rows, its result (times left out) and its checkpoints' names."""
    out = {}
    for trial in sorted((Path(run) / "trials").iterdir()):
        result = json.loads((trial / "result.json").read_text())
        out[trial.name] = {
            "rows": (trial / "metrics.jsonl").read_text().splitlines(),
            "result": {k: v for k, v in result.items() if k not in ("wall_seconds", "cpu_seconds")},
        }
        if checkpoints:
            out[trial.name]["checkpoints"] = sorted(path.name for path in (trial / "checkpoints").iterdir())
    return out
