"""A FIFO pool of sequences, each handed out a fixed number of times ("replay 2") and then evicted."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

#: the arrays every sequence carries (see zoo_learner.sequences)
FIELDS = ("obs", "action", "reward", "done", "mu", "valid", "train", "state", "behavior", "arm")
#: and those of an actor that masks actions
MASKED_FIELDS = (*FIELDS, "legal")


class SequenceReplay:
    """Holds sequences until each has been sampled `reuse` times; at most `capacity` (oldest dropped first).

    `sample` draws `batch` distinct sequences uniformly among those with uses left; no priorities.
    `fields` names the arrays each sequence carries.
    """

    def __init__(self, reuse: int = 2, capacity: int = 10_000, fields: tuple[str, ...] = FIELDS):
        if reuse < 1 or capacity < 1:
            raise ValueError("reuse and capacity must be at least 1")
        self.reuse, self.capacity, self.fields = reuse, capacity, fields
        self._pool: deque[dict[str, np.ndarray]] = deque()
        self._uses: deque[int] = deque()
        self.added = 0
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._pool)

    def add(self, sequence: dict[str, np.ndarray]) -> None:
        self._pool.append(sequence)
        self._uses.append(self.reuse)
        self.added += 1
        while len(self._pool) > self.capacity:
            self._pool.popleft()
            self._uses.popleft()
            self.dropped += 1

    def ready(self, batch: int) -> bool:
        return len(self._pool) >= batch

    def sample(self, batch: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """`batch` sequences stacked batch-first; each loses one use and leaves after its last."""
        if not self.ready(batch):
            raise ValueError(f"{len(self._pool)} sequences with uses left, asked for {batch}")
        picks = rng.choice(len(self._pool), size=batch, replace=False)
        out = {name: np.stack([self._pool[i][name] for i in picks]) for name in self.fields}
        for i in picks:
            self._uses[i] -= 1
        keep = [i for i in range(len(self._pool)) if self._uses[i] > 0]
        self._pool = deque(self._pool[i] for i in keep)
        self._uses = deque(self._uses[i] for i in keep)
        return out

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state_dict(self) -> dict[str, Any]:
        """Numpy arrays only (for an .npz): every field stacked, plus the uses left and counters."""
        state: dict[str, Any] = {"uses": np.array(self._uses, np.int64),
                                 "counters": np.array([self.added, self.dropped], np.int64)}
        if self._pool:
            state.update({name: np.stack([s[name] for s in self._pool]) for name in self.fields})
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        uses = [int(u) for u in state["uses"]]
        self._pool = deque({name: np.array(state[name][i]) for name in self.fields} for i in range(len(uses)))
        self._uses = deque(uses)
        self.added, self.dropped = (int(x) for x in state["counters"])
