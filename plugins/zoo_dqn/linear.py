"""Linear Q-functions of many trials at once, on the factored GOHR features, with per-trial Adam.

Row t of ``theta`` is trial t's parameter vector; its last column is the padding index of the
feature table and stays 0. Every operation acts on each row alone, so a trial's numbers do not
depend on which trials share its batch.
"""

from __future__ import annotations

import numpy as np


class LinearQ:
    """theta (trials, size + 1), a target copy, and Adam moments; phi rows come from `table`."""

    def __init__(self, trials: int, table: np.ndarray, *, lr: float, betas=(0.9, 0.999), eps: float = 1e-8):
        self.table = table  # [last, type, bucket] -> padded indices of the ones
        self.width = int(table.max()) + 1
        self.theta = np.zeros((trials, self.width))
        self.target = np.zeros_like(self.theta)
        self.m = np.zeros_like(self.theta)
        self.v = np.zeros_like(self.theta)
        self.updates = np.zeros(trials, np.int64)
        self.lr, self.betas, self.eps = lr, betas, eps
        self._target_max = np.zeros((trials, *table.shape[:2]))  # max over buckets of Q_target

    def q_actions(self, rows: np.ndarray, types: np.ndarray, last: np.ndarray) -> np.ndarray:
        """(len(rows), 144) Q-values of every action of each trial's state."""
        # phi(s, a) is Boolean, so Q(s, a) = theta . phi(s, a) is the sum of the weights at its
        # ones. The table lists those indices per (last-move key, piece type,
        # bucket): indexing it with each cell's piece type gives every action's (cell, bucket) list,
        # and the gather-and-sum gives all 144 Q-values in one take, without building phi.
        idx = self.table[last[:, None], types]  # (n, 36, 4, 18)
        return self._gather(self.theta, rows, idx).reshape(len(rows), -1, idx.shape[-1]).sum(-1)

    def q_taken(self, rows: np.ndarray, last: np.ndarray, kind: np.ndarray, bucket: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Q of stored (last, piece type, bucket) triples (n, B), and their feature indices (n, B, 18)."""
        idx = self.table[last, kind, bucket]
        return self._gather(self.theta, rows, idx).sum(-1), idx

    def _gather(self, weights: np.ndarray, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """weights[rows[i], idx[i, ...]] for each i, through one flat take."""
        offsets = (rows * self.width).reshape(-1, *([1] * (idx.ndim - 1)))
        return weights.ravel().take(idx + offsets)

    def refresh_target(self, rows: np.ndarray) -> None:
        """Copy theta into the target of `rows`, and tabulate max_b Q_target by (last, piece type)."""
        self.target[rows] = self.theta[rows]
        self._tabulate(rows)

    def _tabulate(self, rows: np.ndarray) -> None:
        # Gathered in C order, trial after trial, so that each trial's sums add in the order they would
        # alone (numpy orders a sum's additions by the array's layout, which a fancy index can transpose).
        values = self._gather(self.target, rows, np.broadcast_to(self.table, (len(rows), *self.table.shape))).sum(-1)
        self._target_max[rows] = values.max(-1)

    def target_max(self, rows: np.ndarray, last: np.ndarray, types: np.ndarray, occupied_only: bool) -> np.ndarray:
        """max over actions of Q_target at next states given as (last (n, B), cell types (n, B, 36))."""
        # An action's features depend only on the last-move key and the piece type of its cell, so
        # max_a Q_target(s', a) = max over cells of the tabulated max over buckets for (last, that cell's
        # type): a lookup per cell instead of 144 dot products per transition. With `occupied_only`
        # empty cells are left out, unless the board is empty (then every cell counts, as in `_act`).
        best = self._target_max[rows[:, None, None], last[..., None], types]  # (n, B, 36)
        if occupied_only:
            empty = types == self.table.shape[1] - 1
            best = np.where(empty & ~empty.all(-1, keepdims=True), -np.inf, best)
        return best.max(-1)

    def step(self, rows: np.ndarray, idx: np.ndarray, dq: np.ndarray) -> None:
        """One Adam step of each trial in `rows` along sum_j dq[j] * phi_j (the loss gradient), as torch.optim.Adam."""
        # The gradient. Q_j = sum of theta at the indices idx[j], so dL/dtheta_i = sum_j dq_j * (the
        # number of times i appears in idx[j]): a scatter-add of each dq_j onto its 18 indices, done by
        # one bincount over indices offset per trial row. The padding column holds no feature and
        # stays 0.
        n, width = len(rows), self.width
        flat = (np.arange(n)[:, None, None] * width + idx).ravel()
        grad = np.bincount(flat, weights=np.repeat(dq.ravel(), idx.shape[-1]), minlength=n * width).reshape(n, width)
        grad[:, -1] = 0.0
        b1, b2 = self.betas
        # When every trial steps (the common case) the moments are updated in place on the whole
        # arrays; otherwise on copies of the stepping rows, written back at the end. Each trial keeps
        # its own step count k, since trials start updating at different moves.
        whole = n == len(self.theta) and (rows == np.arange(n)).all()
        select = slice(None) if whole else rows
        self.updates[select] += 1
        k = self.updates[select][:, None]
        m, v = (self.m, self.v) if whole else (self.m[rows], self.v[rows])
        # Adam (Kingma and Ba 2015, Algorithm 1), in place to avoid temporaries:
        # m_k = b1 m_{k-1} + (1 - b1) g (first moment), v_k = b2 v_{k-1} + (1 - b2) g^2 (second
        # moment; `grad` is squared in its own buffer, it is not needed after this).
        m *= b1
        m += (1 - b1) * grad
        v *= b2
        grad *= grad
        v += (1 - b2) * grad
        # theta -= lr * m_hat / (sqrt(v_hat) + eps) with the bias corrections m_hat = m / (1 - b1^k) and
        # v_hat = v / (1 - b2^k), computed in the order torch.optim.Adam computes them: sqrt(v) /
        # sqrt(1 - b2^k), then + eps, and lr / (1 - b1^k) as one step size.
        denom = np.sqrt(v)
        denom /= np.sqrt(1 - b2 ** k)
        denom += self.eps
        change = m / denom
        change *= self.lr / (1 - b1 ** k)
        if whole:
            self.theta -= change
        else:
            self.m[rows], self.v[rows] = m, v
            self.theta[rows] -= change

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state(self) -> dict[str, np.ndarray]:
        return {"theta": self.theta, "target": self.target, "m": self.m, "v": self.v, "updates": self.updates,
                "target_max": self._target_max}

    def load(self, arrays) -> None:
        """Restore `state` (the target's table too: recomputing it could differ in the last bit)."""
        for name in ("theta", "target", "m", "v", "updates"):
            getattr(self, name)[...] = arrays[name]
        self._target_max[...] = arrays["target_max"]
