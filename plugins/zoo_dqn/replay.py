"""Per-trial ring buffers of GOHR transitions in factored form (last-move key, piece type, bucket)."""

from __future__ import annotations

import numpy as np
from zoo_gohr.engine.constants import CELLS

FIELDS = {"last": np.int16, "kind": np.int8, "bucket": np.int8, "reward": np.float32, "done": bool,
          "next_last": np.int16}


class Replay:
    """``capacity`` transitions per trial; the next state keeps its cell types for the max over actions."""

    def __init__(self, trials: int, capacity: int, cells: int = CELLS):
        self.capacity = capacity
        self.arrays = {name: np.zeros((trials, capacity), dtype) for name, dtype in FIELDS.items()}
        self.arrays["next_types"] = np.zeros((trials, capacity, cells), np.int8)
        self.size = np.zeros(trials, np.int64)
        self.head = np.zeros(trials, np.int64)

    def add(self, rows: np.ndarray, **values: np.ndarray) -> None:
        at = self.head[rows]
        for name, value in values.items():
            self.arrays[name][rows, at] = value
        self.head[rows] = (at + 1) % self.capacity
        self.size[rows] = np.minimum(self.size[rows] + 1, self.capacity)

    def gather(self, rows: np.ndarray, picks: np.ndarray) -> dict[str, np.ndarray]:
        """Fields of the transitions ``picks`` (n, B) of trials ``rows``."""
        return {name: array[rows[:, None], picks] for name, array in self.arrays.items()}

    def state(self) -> dict[str, np.ndarray]:
        return {**{f"replay_{k}": v for k, v in self.arrays.items()}, "replay_size": self.size, "replay_head": self.head}

    def load(self, arrays) -> None:
        for name, array in self.arrays.items():
            array[...] = arrays[f"replay_{name}"]
        self.size[...] = arrays["replay_size"]
        self.head[...] = arrays["replay_head"]
