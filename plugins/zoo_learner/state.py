"""Plain-data checkpoints: JSON with numpy arrays tagged, and torch generator states as integer lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch

_ARRAY = "__ndarray__"


def to_plain(value: Any) -> Any:
    """Numpy arrays and scalars inside dicts and lists become JSON-able (arrays tagged with dtype and shape)."""
    if isinstance(value, np.ndarray):
        return {_ARRAY: value.ravel().tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def from_plain(value: Any) -> Any:
    """The inverse of `to_plain` (tuples come back as lists)."""
    if isinstance(value, dict):
        if _ARRAY in value:
            return np.array(value[_ARRAY], dtype=np.dtype(value["dtype"])).reshape(value["shape"])
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    return value


def write_json(path: Path, value: Any) -> None:
    Path(path).write_text(json.dumps(to_plain(value)))


def read_json(path: Path) -> Any:
    return from_plain(json.loads(Path(path).read_text()))


def generator_state(generator: torch.Generator) -> list[int]:
    return generator.get_state().tolist()


def set_generator_state(generator: torch.Generator, state: list[int]) -> None:
    generator.set_state(torch.tensor(state, dtype=torch.uint8))
