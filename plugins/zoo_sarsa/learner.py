"""Linear SARSA(lambda) with replacing traces over sparse binary features (specs/ale.md §4).

State features phi(s) get one weight block per action (theta[a, i]); state-action features
phi(s, a) share one weight vector. Traces live in a dense array, but only the indices in ``live``
(those set since they last fell below the cutoff) are ever read or written, so a step costs
O(|F| * actions + |live|), not O(size).

Per decision, in Sutton & Barto's order (Fig. 8.8, replacing traces):
mark e = 1 on F(s, a) and e = 0 on the other actions' features of s; take a; delta = r - Q(s, a);
unless terminal, choose a' epsilon-greedily at s' and add gamma Q(s', a');
theta += alpha_t delta e; e *= gamma lambda (traces below the cutoff are dropped).
"""

from __future__ import annotations

import numpy as np

Active = "np.ndarray | list[np.ndarray]"


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
        self.trace = np.zeros(total, dtype)
        self.in_live = np.zeros(total, bool)
        self.live = np.zeros(0, np.int64)
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
            return self.theta.reshape(self.actions, self.size)[:, active].sum(axis=1, dtype=np.float64)
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
    def clear_traces(self) -> None:
        self.trace[self.live] = 0
        self.in_live[self.live] = False
        self.live = np.zeros(0, np.int64)

    def mark(self, active: Active, action: int) -> None:
        """Replacing traces: 1 on the features of (s, action), 0 on those of (s, other actions)."""
        if self.per_action:
            self.trace[np.concatenate(active).astype(np.int64)] = 0
        else:
            self.trace.reshape(self.actions, self.size)[:, active] = 0
        flat = self._flat(active, action)
        self.trace[flat] = 1
        new = flat[~self.in_live[flat]]
        if self.repeated_indices:
            new = np.unique(new)
        self.in_live[new] = True
        self.live = np.concatenate([self.live, new])

    def step_size(self) -> float:
        count = {"max_so_far": self.max_active, "current": self.current_active, "none": 1}[self.alpha_norm]
        return self.alpha / max(count, 1)

    def update(self, delta: float) -> None:
        """theta += alpha_t delta e, then decay the traces by gamma lambda and drop those below the cutoff."""
        live = self.live
        traces = self.trace[live]
        self.theta[live] += self.step_size() * delta * traces
        traces *= self.gamma * self.lam
        keep = traces >= self.trace_cutoff
        self.trace[live] = np.where(keep, traces, 0)
        self.in_live[live[~keep]] = False
        self.live = live[keep]

    def _flat(self, active: Active, action: int) -> np.ndarray:
        if self.per_action:
            return np.asarray(active[action], np.int64)
        return action * self.size + np.asarray(active, np.int64)
