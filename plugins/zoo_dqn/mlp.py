"""The authors' later MLP DQN on GOHR (IEEE Access 2024 variant): one trial per agent, torch on the CPU.

Each episode's input is the board one-hot plus the last ``history`` accepted moves (see
`MLPDQNParams`); a "board then" is the board before that move. Budgets in episodes stop at an
episode boundary, so checkpoints (arrays and JSON only) resume exactly.
"""

from __future__ import annotations

import copy
from collections import deque
from pathlib import Path

import numpy as np
from zoo_gohr.engine.constants import ACTIONS, BUCKETS, CELLS, SIDE

from zoo import Agent, TrialContext

from .params import MLPDQNParams


class History:
    """Input vectors: the board, then the last n accepted moves (newest first, zeros before any)."""

    def __init__(self, params: MLPDQNParams, layout):
        self.n = params.history
        self.board_size = layout.last
        board_part, action_part = params.featurization.split("_")
        self.full_board = board_part == "BS"
        self.one_hot_action = action_part == "AS"
        self.per_move = (self.board_size if self.full_board else layout.per_cell) + (ACTIONS if self.one_hot_action else 2 * SIDE + BUCKETS)
        self.size = self.board_size + self.n * self.per_move
        self.moves: deque = deque(maxlen=max(self.n, 1))

    def clear(self) -> None:
        self.moves.clear()

    def accepted(self, board: np.ndarray, action: int) -> None:
        """Remember an accepted move made from `board` (the observation before it)."""
        if not self.n:
            return
        cell, bucket = divmod(action, BUCKETS)
        per_cell = len(board[:self.board_size]) // CELLS
        seen = board[:self.board_size] if self.full_board else board[cell * per_cell:(cell + 1) * per_cell]
        if self.one_hot_action:
            move = np.zeros(ACTIONS, np.float32)
            move[action] = 1.0
        else:
            move = np.zeros(2 * SIDE + BUCKETS, np.float32)
            move[[cell // SIDE, SIDE + cell % SIDE, 2 * SIDE + bucket]] = 1.0
        self.moves.appendleft(np.concatenate([seen, move]))

    def vector(self, obs: np.ndarray) -> np.ndarray:
        out = np.zeros(self.size, np.float32)
        out[:self.board_size] = obs[:self.board_size]
        for i, move in enumerate(list(self.moves)[:self.n]):
            start = self.board_size + i * self.per_move
            out[start:start + self.per_move] = move
        return out


class MLPDQNAgent(Agent):
    """Double DQN with Huber loss and RMSprop, masked to occupied cells not rejected since the last accepted move.

    A checkpoint holds the boards dealt and the moves of the episode in progress; loading it deals
    those boards again and replays the moves, so a resumed trial continues exactly.
    """

    exact_resume = True

    def __init__(self, params: MLPDQNParams, context: TrialContext):
        import torch

        self.params, self.context = params, context
        torch.manual_seed(context.seed)
        self.env = context.make_env(context.seed)
        self.history = History(params, self.env.unwrapped.layout)
        sizes = [self.history.size, *params.hidden, ACTIONS]
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
        self.net = torch.nn.Sequential(*layers[:-1])
        self.target = copy.deepcopy(self.net)
        self.optimizer = torch.optim.RMSprop(self.net.parameters(), lr=params.lr)
        n = params.replay_size
        self.buffer = {"state": np.zeros((n, self.history.size), np.uint8), "next": np.zeros((n, self.history.size), np.uint8),
                       "action": np.zeros(n, np.int64), "reward": np.zeros(n, np.float32), "done": np.zeros(n, bool),
                       "next_valid": np.zeros((n, ACTIONS), bool)}
        self.counts = {"size": 0, "head": 0, "boards": 1, "fresh": 1}
        self.rng = np.random.default_rng([context.seed, 2])
        self.playing = False

    def _begin(self) -> None:
        if self.counts["fresh"]:
            self.obs = self.env.unwrapped.observation()
        else:
            self.obs = self.env.reset()[0]
            self.counts["boards"] += 1
        self.counts["fresh"] = 0
        self.history.clear()
        self.rejected: set[int] = set()
        self.errors = self.moves = 0
        self.actions: list[int] = []
        self.playing = True

    def _apply(self, action: int) -> tuple[float, bool, bool]:
        """Play `action` and keep the episode's books (accepted moves, rejected cells, errors); (reward, done, truncated)."""
        before = self.obs
        self.obs, reward, done, truncated, _ = self.env.step(action)
        if reward == 0.0:
            self.history.accepted(before, action)
            self.rejected.clear()
        else:
            self.rejected.add(action)
            self.errors += 1
        self.moves += 1
        self.actions.append(action)
        return reward, done, truncated

    def _valid(self) -> np.ndarray:
        valid = self.env.unwrapped.action_masks()
        if not self.params.mask_rejected:
            return np.ones(ACTIONS, bool)
        valid[list(self.rejected)] = False
        return valid if valid.any() else self.env.unwrapped.action_masks()

    def train_step(self) -> None:
        """One move (the first of an episode deals its board), one replay update, and the episode's row when it ends."""
        import torch

        if not self.playing:
            self._begin()
        state, valid = self.history.vector(self.obs), self._valid()
        if self.rng.random() < self.params.epsilon(self.steps):
            action = int(self.rng.choice(np.flatnonzero(valid)))
        else:
            with torch.no_grad():
                q = self.net(torch.as_tensor(state)[None])[0].numpy()
            action = int(np.where(valid, q, -np.inf).argmax())
        reward, done, truncated = self._apply(action)
        self._store(state, action, reward, done, self.history.vector(self.obs), self._valid())
        self._update()
        self._steps += 1
        if self.steps % self.params.target_period == 0:
            self.target.load_state_dict(self.net.state_dict())
        if done or truncated:
            self.playing = False
            self.episodes += 1
            self.context.logger.log(self.steps, episode_return=-float(self.errors), episode_errors=self.errors,
                                    episode_moves=self.moves)

    def _store(self, state, action, reward, done, next_state, next_valid) -> None:
        at = self.counts["head"]
        for name, value in (("state", state), ("action", action), ("reward", reward), ("done", done),
                            ("next", next_state), ("next_valid", next_valid)):
            self.buffer[name][at] = value
        self.counts["head"] = (at + 1) % self.params.replay_size
        self.counts["size"] = min(self.counts["size"] + 1, self.params.replay_size)

    def _update(self) -> None:
        import torch

        p = self.params
        if self.counts["size"] < p.batch_size:
            return
        picks = self.rng.choice(self.counts["size"], p.batch_size, replace=False)
        batch = {name: torch.as_tensor(array[picks]) for name, array in self.buffer.items()}
        q = self.net(batch["state"].float()).gather(1, batch["action"][:, None])[:, 0]
        with torch.no_grad():
            following = self.net(batch["next"].float()).masked_fill(~batch["next_valid"], -torch.inf).argmax(1)
            future = self.target(batch["next"].float()).gather(1, following[:, None])[:, 0]
            y = batch["reward"] + p.gamma * (~batch["done"]).float() * future
        loss = torch.nn.functional.smooth_l1_loss(q, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        tensors = {f"net.{k}": v.numpy() for k, v in self.net.state_dict().items()}
        tensors |= {f"target.{k}": v.numpy() for k, v in self.target.state_dict().items()}
        for i, state in self.optimizer.state_dict()["state"].items():
            tensors |= {f"opt.{i}.{k}": v.numpy() for k, v in state.items()}
        np.savez(directory / "state.npz", **tensors, **{f"buffer.{k}": v for k, v in self.buffer.items()})
        self.save_state(directory, "counters.json", **self.counts, rng=self.rng,
                        episode_moves=self.actions if self.playing else None)

    def load(self, directory: Path) -> None:
        import torch

        with np.load(directory / "state.npz", allow_pickle=False) as arrays:
            for name, module in (("net", self.net), ("target", self.target)):
                module.load_state_dict({k: torch.as_tensor(arrays[f"{name}.{k}"]) for k in module.state_dict()})
            state = self.optimizer.state_dict()
            for i in state["param_groups"][0]["params"]:
                state["state"][i] = {k.split(".")[2]: torch.as_tensor(arrays[k]) for k in arrays.files if k.startswith(f"opt.{i}.")}
            self.optimizer.load_state_dict(state)
            for name in self.buffer:
                self.buffer[name][...] = arrays[f"buffer.{name}"]
        state = self.load_state(directory, "counters.json", rng=self.rng)
        moves = state.pop("episode_moves", None)
        self.counts.update(state)
        for _ in range(self.counts["boards"] - 1):
            self.env.reset()
        self.playing = False
        if moves is not None:  # the episode in progress: its board is dealt, replay its moves
            self.counts["fresh"] = 1
            self._begin()
            for action in moves:
                self._apply(int(action))

    def close(self) -> None:
        self.env.close()
