"""Cutting each actor's stream of steps into fixed-length training sequences.

A sequence has ``burn_in + length + 1`` rows: burn-in rows (state warm-up only), `length` trained
rows, and one bootstrap row. Consecutive sequences of an episode start `length` rows apart, so
every step is trained in exactly one sequence; the next sequence's burn-in is the tail of the
previous one. A sequence never crosses an episode boundary: the first one of an episode is
left-padded (rows marked invalid, the stored state is the episode's initial state), and the last
one ends at the episode's final observation (its bootstrap row), right-padded. With `masked`, each
row also holds the env's legal actions (``legal``); padding rows have none.
"""

from __future__ import annotations

import numpy as np


class SequenceWriter:
    """Per-env row buffers of a vector of actors, written for all envs at once."""

    #: the arrays that hold its whole state (and ``legal`` when masked)
    STATE = ("obs", "action", "reward", "done", "mu", "state", "pos", "valid_from")

    def __init__(self, num_envs: int, obs_shape: tuple[int, ...], obs_dtype, actions: int, state_size: int,
                 burn_in: int, length: int, masked: bool = False):
        self.burn_in, self.length = burn_in, length
        #: the per-row arrays a sequence carries, and the names of the whole state
        self.rows_fields = ("obs", "action", "reward", "done", "mu", *(("legal",) if masked else ()))
        self.state_names = (*self.STATE, *(("legal",) if masked else ()))
        rows = burn_in + length + 1
        self.rows = rows
        self.obs = np.zeros((num_envs, rows, *obs_shape), obs_dtype)
        self.action = np.zeros((num_envs, rows), np.int64)
        self.reward = np.zeros((num_envs, rows), np.float32)
        self.done = np.zeros((num_envs, rows), np.float32)
        self.mu = np.zeros((num_envs, rows, actions), np.float32)
        self.state = np.zeros((num_envs, rows, state_size), np.float32)
        self.pos = np.full(num_envs, burn_in, np.int64)
        self.valid_from = np.full(num_envs, burn_in, np.int64)
        if masked:
            self.legal = np.zeros((num_envs, rows, actions), bool)

    def write(self, envs: np.ndarray, obs, action, mu, state, legal=None) -> np.ndarray:
        """Append one row (observation, action taken, behavior probabilities, state before the step and,
        when masked, the legal actions) for `envs`.

        Returns the envs whose buffer is now full.
        """
        pos = self.pos[envs]
        if legal is not None:
            self.legal[envs, pos] = legal
        self.obs[envs, pos] = obs
        self.action[envs, pos] = action
        self.mu[envs, pos] = mu
        self.state[envs, pos] = state
        self.reward[envs, pos] = 0.0
        self.done[envs, pos] = 0.0
        self.pos[envs] = pos + 1
        return envs[self.pos[envs] == self.rows]

    def set_outcome(self, envs: np.ndarray, reward, done) -> None:
        """The reward and termination flag of the last row written for `envs`."""
        last = self.pos[envs] - 1
        self.reward[envs, last] = reward
        self.done[envs, last] = done

    def emit(self, env: int, behavior: np.ndarray, arm: int) -> dict[str, np.ndarray]:
        """The env's current sequence (its last written row is the bootstrap row), padded to full length."""
        # Rows before `valid_from` precede the episode's first step (left padding) and rows from `pos`
        # on were never written (right padding, the episode ended early); both are zeroed. Trained rows
        # are those after burn-in except the last written, which is the bootstrap row. The stored state
        # is the one the actor fed in at the first valid row: the learner's unroll starts from it.
        pos, start = int(self.pos[env]), int(self.valid_from[env])
        rows = np.arange(self.rows)
        valid = (rows >= start) & (rows < pos)
        sequence = {name: getattr(self, name)[env].copy() for name in self.rows_fields}
        for array in sequence.values():
            array[~valid] = 0
        return {
            **sequence,
            "valid": valid,
            "train": (rows >= self.burn_in) & (rows < pos - 1),
            "state": self.state[env, start].copy(),
            "behavior": np.asarray(behavior, np.float32),
            "arm": np.array(arm, np.int64),
        }

    def roll(self, env: int) -> None:
        """After a full sequence: keep its last burn_in + 1 rows as the next one's burn-in and first row."""
        # The last burn_in rows become the next sequence's burn-in and the bootstrap row becomes its first
        # trained row, so consecutive sequences overlap by burn_in + 1 rows and every step is trained
        # exactly once. Left padding moves back by `length` rows with the rest.
        keep = self.burn_in + 1
        for buffer in (*(getattr(self, name) for name in self.rows_fields), self.state):
            buffer[env, :keep] = buffer[env, self.rows - keep:].copy()
        self.pos[env] = keep
        self.valid_from[env] = max(0, int(self.valid_from[env]) - self.length)

    def restart(self, env: int) -> None:
        """A new episode: rows before `burn_in` become padding."""
        self.pos[env] = self.burn_in
        self.valid_from[env] = self.burn_in
