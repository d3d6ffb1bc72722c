"""Linear SARSA(lambda) with replacing traces over sparse binary features (the ALE paper's Section 3.1).

State features phi(s) get one weight per feature and action, stored feature-major (theta[i * A + a],
so the A weights of a feature are read together); state-action features phi(s, a) share one
weight vector.

Per decision, in Sutton & Barto's order (Fig. 8.8, replacing traces):
mark e = 1 on F(s, a) and e = 0 on the other actions' features of s; take a; delta = r - Q(s, a);
unless terminal, choose a' epsilon-greedily at s' and add gamma Q(s', a');
theta += alpha_t delta e; e *= gamma lambda (a trace below the cutoff becomes 0).

Deferred updates. Traces live on keys: the features of a state map (marking leaves at most one
action of a feature with a trace, its ``owner``) or the weights of a state-action map. A trace is
rho^(u - start) at update u (rho = gamma lambda) until the cutoff ends it, so it is stored as its
``start`` alone, and an update only appends alpha_u delta_u to prefix sums. A weight receives its
trace's share, sum_u alpha_u delta_u rho^(u - start), when it is read or marked again, and every
weight at the end of an epoch (a few dozen updates, so that rho^-epoch stays small and the prefix
sums lose no precision) or of an episode. A decision then costs O(|F| * actions), plus one pass over
the live traces per epoch; ``weights()`` gives theta with everything applied.
"""

from __future__ import annotations

import math

import numpy as np

Active = "np.ndarray | list[np.ndarray]"
DEAD = -(2**62)  # the start of no trace: older than any reach
NEVER = 2**61  # the reach of traces that no cutoff ends
EPOCH_GROWTH, MAX_EPOCH = 100.0, 256  # rho^-epoch <= 100; prefix sums of at most 256 updates


def trace_reach(rho: float, cutoff: float) -> int:
    """The last age (updates after marking) at which a trace rho^age is still >= the cutoff."""
    if rho >= 1 or cutoff <= 0:
        return NEVER
    if rho <= 0:
        return 0
    return int(math.floor(math.log(cutoff) / math.log(rho)))


def epoch_length(rho: float) -> int:
    """Updates between two applications of every pending share: rho^-epoch <= EPOCH_GROWTH."""
    if rho >= 1:
        return MAX_EPOCH
    if rho <= 0:
        return 1
    return max(1, min(MAX_EPOCH, int(math.log(EPOCH_GROWTH) / -math.log(rho))))


class SarsaLambda:
    """The weights, traces and update rule; knows nothing of environments."""

    def __init__(self, actions: int, size: int, per_action: bool, *, alpha: float, gamma: float, lam: float,
                 epsilon: float, trace_cutoff: float, alpha_norm: str, rng: np.random.Generator,
                 dtype=np.float32, repeated_indices: bool = False):
        self.actions, self.size, self.per_action = actions, size, per_action
        self.alpha, self.gamma, self.lam, self.epsilon = alpha, gamma, lam, epsilon
        self.trace_cutoff, self.alpha_norm, self.rng = trace_cutoff, alpha_norm, rng
        self.repeated_indices = repeated_indices  # count features (DISCO) repeat an index n times
        self.theta = np.zeros(size if per_action else actions * size, dtype)
        self.rho = gamma * lam
        self.reach, self.epoch = trace_reach(self.rho, trace_cutoff), epoch_length(self.rho)
        self.start = np.full(size, DEAD, np.int64)  # per key: the update at which its trace was 1
        self.done = np.zeros(size, np.int64)  # per key: the first update whose share is not in theta
        self.owner = np.zeros(size, np.int16)  # per feature of a state map: the action of its trace
        self.listed = np.zeros(size, bool)
        self._keys = np.zeros(1024, np.int64)  # keys that may have a trace (dead ones leave at epoch ends)
        self._count = 0
        self.clock = self.base = 0  # updates done; the update that opened the epoch
        self.prefix = np.zeros(self.epoch + 1)  # prefix[k] = sum of alpha_u delta_u rho^(u - base), u < base + k
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
            self._apply(self._distinct(active))
            rows = self.theta.reshape(self.size, self.actions).take(active, axis=0)
            return np.einsum("fa->a", rows, dtype=np.float64)  # 2x faster than sum(axis=0) on narrow rows
        owner = np.repeat(np.arange(self.actions), [len(f) for f in active])
        indices = np.concatenate(active).astype(np.int64) if len(owner) else np.zeros(0, np.int64)
        self._apply(np.unique(indices))
        return np.bincount(owner, weights=self.theta[indices], minlength=self.actions)

    def choose(self, q: np.ndarray) -> int:
        """Epsilon-greedy; ties among the greedy actions are broken uniformly at random."""
        if self.rng.random() < self.epsilon:
            return int(self.rng.integers(self.actions))
        best = np.flatnonzero(q == q.max())
        return int(best[0] if len(best) == 1 else best[self.rng.integers(len(best))])

    def weights(self) -> np.ndarray:
        """theta with every pending share applied."""
        self._apply(self._keys[:self._count])
        return self.theta

    # -- traces and updates --------------------------------------------------------------------
    def _trace_values(self, keys: np.ndarray) -> np.ndarray:
        """The traces of `keys` as the next update uses them."""
        age = self.clock - self.start[keys]
        return np.where(age <= self.reach, self._power(age), 0.0)

    def traces(self) -> np.ndarray:
        """The traces as a dense vector in theta's layout (for tests and inspection)."""
        keys = self._keys[:self._count]
        dense = np.zeros(len(self.theta))
        dense[self._weight(keys)] = self._trace_values(keys)
        return dense

    @property
    def live(self) -> np.ndarray:
        """Weight indices whose trace is non-zero, ascending."""
        keys = self._keys[:self._count]
        return np.sort(self._weight(keys[self._trace_values(keys) > 0]))

    def clear_traces(self) -> None:
        """Apply every pending share, then drop all traces (an episode's end)."""
        keys = self._keys[:self._count]
        self._apply(keys)
        self.start[keys] = DEAD
        self.listed[keys] = False
        self._count = 0
        self._open_epoch()

    def mark(self, active: Active, action: int) -> float:
        """Replacing traces: 1 on the features of (s, action), 0 on those of (s, other actions); returns Q(s, action)."""
        if self.per_action:
            every = np.unique(np.concatenate(active).astype(np.int64))
            self._apply(every)
            self.start[every] = DEAD
            keys = np.unique(np.asarray(active[action], np.int64))
        else:
            keys = self._distinct(active)
            self._apply(keys)
            self.owner[keys] = action
        self.start[keys] = self.clock
        new = keys[~self.listed[keys]]
        self.listed[new] = True
        self._append(new)
        return float(self.theta[self._flat(active, action)].sum(dtype=np.float64))

    def step_size(self) -> float:
        count = {"max_so_far": self.max_active, "current": self.current_active, "none": 1}[self.alpha_norm]
        return self.alpha / max(count, 1)

    def update(self, delta: float) -> None:
        """theta += alpha_t delta e (deferred: the step goes into the prefix sums), then the traces decay."""
        k = self.clock - self.base
        self.prefix[k + 1] = self.prefix[k] + self.step_size() * delta * self.rho ** k
        self.clock += 1
        if self.clock - self.base == self.epoch:
            self._end_epoch()

    def _apply(self, keys: np.ndarray) -> None:
        """Add the pending shares of the traces of distinct `keys` to theta: rho^(base - start) times the
        prefix sums over the updates from the first one not applied to the last one the trace reaches."""
        done = self.done[keys]
        owed = done < self.clock  # keys applied since the last update owe nothing
        if not owed.all():
            keys, done = keys[owed], done[owed]
        start = self.start[keys]
        first = np.maximum(done - self.base, 0)
        stop = np.minimum(start + (self.reach + 1 - self.base), self.clock - self.base)
        np.maximum(stop, first, out=stop)
        shares = (self.prefix[stop] - self.prefix[first]) * self._power(self.base - start)
        self.theta[self._weight(keys)] += shares.astype(self.theta.dtype)
        self.done[keys] = self.clock

    def _power(self, exponents: np.ndarray) -> np.ndarray:
        """rho ** exponents (as exp: 3x faster than a power); exponents of dead traces are huge and give 0."""
        if self.rho == 0:
            return (exponents == 0).astype(float)
        return np.exp(exponents * math.log(self.rho))

    def _end_epoch(self) -> None:
        keys = self._keys[:self._count]
        self._apply(keys)
        alive = self.start[keys] + self.reach >= self.clock
        self.listed[keys[~alive]] = False
        kept = int(alive.sum())
        self._keys[:kept] = keys[alive]
        self._count = kept
        self._open_epoch()

    def _open_epoch(self) -> None:
        self.base = self.clock
        self.prefix[0] = 0.0

    def _append(self, new: np.ndarray) -> None:
        end = self._count + len(new)
        if end > len(self._keys):
            self._keys = np.resize(self._keys, max(2 * len(self._keys), end))
        self._keys[self._count:end] = new
        self._count = end

    def _distinct(self, active: np.ndarray) -> np.ndarray:
        active = np.asarray(active, np.int64)
        return np.unique(active) if self.repeated_indices else active

    def _weight(self, keys: np.ndarray) -> np.ndarray:
        return keys if self.per_action else keys * self.actions + self.owner[keys]

    def _flat(self, active: Active, action: int) -> np.ndarray:
        if self.per_action:
            return np.asarray(active[action], np.int64)
        return np.asarray(active, np.int64) * self.actions + action

    def by_action(self, flat: np.ndarray) -> np.ndarray:
        """A vector in theta's layout as (actions, features) (state maps) or as it is (state-action maps)."""
        return flat if self.per_action else flat.reshape(self.size, self.actions).T
