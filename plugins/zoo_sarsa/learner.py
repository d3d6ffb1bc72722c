"""Linear SARSA(lambda) with replacing traces over sparse binary features (specs/ale.md §4).

State features phi(s) get one weight per feature and action, stored feature-major (theta[i * A + a],
so the A weights of a feature are read together); state-action features phi(s, a) share one
weight vector. Traces are kept sparsely: parallel arrays of the indices with a
trace and their values, and ``slot[i]``, the position of index i in them (-1 if none). A trace that
falls below the cutoff becomes 0 at once and its slot is freed at the next compaction (every
``COMPACT_EVERY`` updates), so a step costs O(|F| * actions + traced entries), not O(size).

Per decision, in Sutton & Barto's order (Fig. 8.8, replacing traces):
mark e = 1 on F(s, a) and e = 0 on the other actions' features of s; take a; delta = r - Q(s, a);
unless terminal, choose a' epsilon-greedily at s' and add gamma Q(s', a');
theta += alpha_t delta e; e *= gamma lambda (traces below the cutoff are dropped).
"""

from __future__ import annotations

import numpy as np

Active = "np.ndarray | list[np.ndarray]"
COMPACT_EVERY = 16


class SarsaLambda:
    """The weights, traces and update rule; knows nothing of environments."""

    def __init__(self, actions: int, size: int, per_action: bool, *, alpha: float, gamma: float, lam: float,
                 epsilon: float, trace_cutoff: float, alpha_norm: str, rng: np.random.Generator,
                 dtype=np.float32, repeated_indices: bool = False):
        self.actions, self.size, self.per_action = actions, size, per_action
        self.alpha, self.gamma, self.lam, self.epsilon = alpha, gamma, lam, epsilon
        self.trace_cutoff, self.alpha_norm, self.rng = trace_cutoff, alpha_norm, rng
        self.repeated_indices = repeated_indices  # count features (DISCO) repeat an index n times
        total = size if per_action else actions * size
        self.theta = np.zeros(total, dtype)
        self.slot = np.full(total, -1, np.int32 if total < 2**31 else np.int64)
        self._index = np.zeros(1024, np.int64)
        self._value = np.zeros(1024, dtype)
        self._count = 0
        self._updates = 0
        self.max_active = 0
        self.current_active = 0

    # -- values and actions --------------------------------------------------------------------
    def observe(self, active: Active) -> None:
        """Record the number of active features of a new state (for the step-size normalisation)."""
        count = max((len(f) for f in active), default=0) if self.per_action else len(active)
        self.current_active = count
        self.max_active = max(self.max_active, count)

    def q_values(self, active: Active) -> np.ndarray:
        if not self.per_action:
            return self.theta.reshape(self.size, self.actions)[active].sum(axis=0, dtype=np.float64)
        owner = np.repeat(np.arange(self.actions), [len(f) for f in active])
        indices = np.concatenate(active).astype(np.int64) if len(owner) else np.zeros(0, np.int64)
        return np.bincount(owner, weights=self.theta[indices], minlength=self.actions)

    def q_value(self, active: Active, action: int) -> float:
        return float(self.theta[self._flat(active, action)].sum(dtype=np.float64))

    def choose(self, q: np.ndarray) -> int:
        """Epsilon-greedy; ties among the greedy actions are broken uniformly at random."""
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(self.actions))
        best = np.flatnonzero(q == q.max())
        return int(best[0] if len(best) == 1 else self.rng.choice(best))

    # -- traces and updates --------------------------------------------------------------------
    @property
    def live(self) -> np.ndarray:
        """Indices whose trace is non-zero."""
        return self._index[:self._count][self._value[:self._count] > 0]

    def traces(self) -> np.ndarray:
        """The traces as a dense vector (for tests and inspection)."""
        dense = np.zeros(len(self.theta), self.theta.dtype)
        dense[self._index[:self._count]] = self._value[:self._count]
        return dense

    def clear_traces(self) -> None:
        self.slot[self._index[:self._count]] = -1
        self._count = 0

    def mark(self, active: Active, action: int) -> None:
        """Replacing traces: 1 on the features of (s, action), 0 on those of (s, other actions)."""
        if self.per_action:
            slots = self.slot[np.concatenate(active).astype(np.int64)]
        else:
            slots = self.slot.reshape(self.size, self.actions)[active].ravel()
        self._value[slots[slots >= 0]] = 0
        flat = self._flat(active, action)
        slots = self.slot[flat]
        self._value[slots[slots >= 0]] = 1
        new = flat[slots < 0]
        if self.repeated_indices:
            new = np.unique(new)
        self._append(new)

    def _append(self, new: np.ndarray) -> None:
        end = self._count + len(new)
        if end > len(self._index):
            capacity = max(2 * len(self._index), end)
            self._index = np.resize(self._index, capacity)
            self._value = np.resize(self._value, capacity)
        self._index[self._count:end] = new
        self._value[self._count:end] = 1
        self.slot[new] = np.arange(self._count, end)
        self._count = end

    def step_size(self) -> float:
        count = {"max_so_far": self.max_active, "current": self.current_active, "none": 1}[self.alpha_norm]
        return self.alpha / max(count, 1)

    def update(self, delta: float) -> None:
        """theta += alpha_t delta e, then decay the traces by gamma lambda and zero those below the cutoff."""
        index, value = self._index[:self._count], self._value[:self._count]
        self.theta[index] += self.step_size() * delta * value
        value *= self.gamma * self.lam
        np.putmask(value, value < self.trace_cutoff, 0)
        self._updates += 1
        if self._updates % COMPACT_EVERY == 0:
            self._compact()

    def _compact(self) -> None:
        """Free the slots of zero traces."""
        index, value = self._index[:self._count], self._value[:self._count]
        keep = value > 0
        self.slot[index[~keep]] = -1
        kept = int(keep.sum())
        self._index[:kept], self._value[:kept] = index[keep], value[keep]
        self._count = kept
        self.slot[self._index[:kept]] = np.arange(kept)

    def _flat(self, active: Active, action: int) -> np.ndarray:
        if self.per_action:
            return np.asarray(active[action], np.int64)
        return np.asarray(active, np.int64) * self.actions + action

    def by_action(self, flat: np.ndarray) -> np.ndarray:
        """A vector in theta's layout as (actions, features) (state maps) or as it is (state-action maps)."""
        return flat if self.per_action else flat.reshape(self.size, self.actions).T
