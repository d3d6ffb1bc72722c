"""What names a run's environment for ``zoo runs``: its type and, within it, the id, rule or game that the
env plugin's first required field holds (``gym`` CartPole-v1, ``gohr`` paper/clockwise), read from the run's
resolved spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .registry import Registry
from .trials import RESOLVED_SPEC


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
