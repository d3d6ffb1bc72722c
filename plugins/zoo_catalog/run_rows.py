"""What ``zoo runs`` shows of a run besides its index row: its headline result, and what names its environment: its
type and, within it, the id, rule or game that the env plugin's first required field holds (``gym`` CartPole-v1,
``gohr`` paper/clockwise), read from the run's resolved spec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from zoo import RESOLVED_SPEC, Registry, RunFolder, ZooError, final_returns


def env_name(run_path: Path, env_type: str | None, registry: Registry) -> str | None:
    """The value of the env block's first required text field (gym: id, gohr: rule), or None."""
    try:
        block = yaml.safe_load((Path(run_path) / RESOLVED_SPEC).read_text(encoding="utf-8")).get("env")
    except (OSError, yaml.YAMLError, AttributeError):
        return None
    entry = registry.entries["env"].get(env_type or "")
    if entry is None or not isinstance(block, dict):
        return None
    for name, field in entry.params.model_fields.items():
        if field.is_required() and isinstance(block.get(name), str):
            return block[name]
    return None


def env_label(row: dict[str, Any]) -> str:
    """``CartPole-v1 (gym)``, or the type alone when the run's spec names nothing within it."""
    return f"{row['env_name']} ({row['env']})" if row.get("env_name") else str(row["env"])


def matches_env(row: dict[str, Any], wanted: str) -> bool:
    """A run is of env `wanted` when that is its type (gym) or its name within the type (CartPole-v1)."""
    return wanted in (row.get("env"), row.get("env_name"))


def run_result(path: Path) -> str | None:
    """A run's headline for listings: the mean evaluation return over its trials, else the median final return."""
    run = RunFolder(path)
    try:
        evals = [json.loads(p.read_text()).get("eval_mean") for p in sorted((path / "trials").glob("*/result.json"))]
        evals = [e for e in evals if e is not None]
        if evals:
            return f"eval {np.mean(evals):.2f}"
        finals = final_returns(run)
    except (OSError, ValueError, AttributeError, ZooError):
        return None
    return f"final {np.median(finals):.2f}" if len(finals) else None
