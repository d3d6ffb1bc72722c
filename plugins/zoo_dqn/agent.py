"""The linear DQN agent: many GOHR trials in lockstep, one GohrEnv and one random stream per trial.

Each trial draws its own exploration and replay samples from a generator seeded by the trial's
seed, and the linear algebra acts on each trial's row alone, so a trial's numbers are the same
whichever trials share its batch. A checkpoint keeps how many boards each env dealt and the moves
of each episode in progress; loading it deals the boards again and replays those moves, so a
resumed trial continues exactly, whether its budget stopped it between episodes or within one.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from zoo_gohr.engine.constants import ACTIONS, BUCKETS, CELLS
from zoo_gohr.vector.features import GohrFeatureParams, make_features

from zoo import Agent

from .linear import LinearQ
from .params import LinearDQNParams
from .replay import Replay


class LinearDQNAgent(Agent):
    """Algorithm 1 of the GOHR paper for a batch of trials (``batched_trials=True``)."""

    exact_resume = True

    def __init__(self, params: LinearDQNParams, contexts: list):
        self.params, self.contexts = params, contexts
        self.envs = [context.make_env(context.seed) for context in contexts]
        self.features = make_features(GohrFeatureParams(empty_cells=params.empty_cells), self.envs[0])
        self.empty = self.features.n_types
        trials = len(contexts)
        self.q = LinearQ(trials, self.features.index_table, lr=params.lr, betas=params.adam_betas, eps=params.adam_eps)
        self.replay = Replay(trials, params.replay_size)
        self.rngs = [np.random.default_rng([context.seed, 1]) for context in contexts]
        self.learning_starts = params.learning_starts or params.batch_size
        self._steps = np.zeros(trials, np.int64)
        self._episodes = np.zeros(trials, np.int64)
        self.boards = np.ones(trials, np.int64)  # boards drawn by each env (make_env drew the first)
        self.fresh = np.ones(trials, bool)  # the current board is unplayed
        self.playing = np.zeros(trials, bool)
        self.errors = np.zeros(trials, np.int64)
        self.moves = np.zeros(trials, np.int64)
        self.types = np.zeros((trials, CELLS), np.int64)
        self.last = np.zeros(trials, np.int64)
        self.actions: list[list[int]] = [[] for _ in contexts]  # the moves of each episode in progress

    @property
    def steps(self) -> list[int]:
        return self._steps.tolist()

    @property
    def episodes(self) -> list[int]:
        return self._episodes.tolist()

    def learn(self, steps: int) -> None:
        goal = self._steps + steps
        self._train(lambda: self._steps < goal)

    def learn_episodes(self, episodes: int) -> None:
        goal = self._episodes + episodes
        self._train(lambda: self._episodes < goal)

    def _train(self, owing) -> None:
        # The lockstep loop: every trial still owing steps (or episodes) starts an episode if it has
        # none in progress, then all of them move once; trials that are done drop out of `rows`.
        rows = np.flatnonzero(owing())
        while len(rows):
            self._begin(rows[~self.playing[rows]])
            self._move(rows)
            rows = np.flatnonzero(owing())

    def _begin(self, rows: np.ndarray) -> None:
        """Start an episode in each trial of `rows` (on the env's first board, or the next one)."""
        if not len(rows):
            return
        observations = []
        for t in rows:
            if self.fresh[t]:
                observations.append(self.envs[t].unwrapped.observation())
            else:
                observations.append(self.envs[t].reset()[0])
                self.boards[t] += 1
        self.types[rows], self.last[rows] = self.features.keys(np.stack(observations))
        self.fresh[rows], self.playing[rows] = False, True
        self.errors[rows], self.moves[rows] = 0, 0
        for t in rows:
            self.actions[t] = []

    def _move(self, rows: np.ndarray) -> None:
        """One move of every trial in `rows`, then one replay update of those with enough transitions."""
        p = self.params
        types, last = self.types[rows], self.last[rows]
        actions = self._act(rows, types, last)
        rewards, done, ended, observations = np.zeros(len(rows)), np.zeros(len(rows), bool), np.zeros(len(rows), bool), []
        for i, (t, action) in enumerate(zip(rows, actions)):
            obs, rewards[i], done[i], truncated, _ = self.envs[t].step(int(action))
            ended[i] = done[i] or truncated
            observations.append(obs)
            self.actions[t].append(int(action))
        # Transitions are stored in the factored form the features need, not as observations: the
        # last-move key, the piece type in the moved cell (action = cell * BUCKETS + bucket), the
        # bucket, and the next state's key and cell types (for max_a Q_target). Algorithm 1 then
        # does one replay update per move, before the target refresh that move may trigger.
        next_types, next_last = self.features.keys(np.stack(observations))
        self.replay.add(rows, last=last, kind=types[np.arange(len(rows)), actions // BUCKETS], bucket=actions % BUCKETS,
                        reward=rewards, done=done, next_last=next_last, next_types=next_types)
        self._update(rows[self.replay.size[rows] >= self.learning_starts])
        self.types[rows], self.last[rows] = next_types, next_last
        self._steps[rows] += 1
        self.moves[rows] += 1
        self.errors[rows] += rewards < 0
        if p.target_unit == "moves":
            self._refresh(rows[self._steps[rows] % p.target_period == 0])
        self._finish(rows[ended])

    def _act(self, rows: np.ndarray, types: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Epsilon-greedy actions; greedy ties go to the lowest action index (as argmax does)."""
        # Each trial draws from its own generator, in the same order whether or not other trials share
        # the batch, so its run does not depend on its neighbours. Greedy moves need Q, computed
        # only for the trials that do not explore; with `mask_actions` both the random and the
        # greedy move are limited to occupied cells (all cells when the board is empty).
        p = self.params
        epsilon = p.epsilon(self._steps[rows])
        valid = np.repeat(types != self.empty, BUCKETS, axis=1) if p.mask_actions else None
        actions = np.zeros(len(rows), np.int64)
        greedy = []
        for i, t in enumerate(rows):
            rng = self.rngs[t]
            if rng.random() < epsilon[i]:
                choices = np.flatnonzero(valid[i]) if valid is not None and valid[i].any() else None
                actions[i] = rng.integers(ACTIONS) if choices is None else choices[rng.integers(len(choices))]
            else:
                greedy.append(i)
        if greedy:
            q = self.q.q_actions(rows[greedy], types[greedy], last[greedy])
            if valid is not None:
                q = np.where(valid[greedy] | ~valid[greedy].any(1, keepdims=True), q, -np.inf)
            actions[greedy] = q.argmax(1)
        return actions

    def _update(self, rows: np.ndarray) -> None:
        """One gradient step per trial on a uniform batch (without replacement) of its replay."""
        if not len(rows):
            return
        p = self.params
        picks = np.stack([self.rngs[t].choice(self.replay.size[t], p.batch_size, replace=False) for t in rows])
        batch = self.replay.gather(rows, picks)
        # Algorithm 1's update: y_j = r_j + gamma max_a' Q(s'_j, a'; theta_target), with no bootstrap
        # after a terminal move, and the loss (1/B) sum_j (y_j - Q(s_j, a_j))^2. Its derivative in
        # Q_j is 2 (Q_j - y_j) / B; the Huber option's is clip(Q_j - y_j, -1, 1) / B (SmoothL1 with
        # beta 1). `LinearQ.step` turns dL/dQ into dL/dtheta and takes the Adam step.
        q, idx = self.q.q_taken(rows, batch["last"], batch["kind"], batch["bucket"])
        future = self.q.target_max(rows, batch["next_last"], batch["next_types"], occupied_only=p.mask_actions)
        y = batch["reward"] + np.where(batch["done"], 0.0, p.gamma * future)
        delta = q - y
        dq = 2.0 * delta if p.loss == "mse" else np.clip(delta, -1.0, 1.0)
        self.q.step(rows, idx, dq / p.batch_size)

    def _refresh(self, rows: np.ndarray) -> None:
        if len(rows):
            self.q.refresh_target(rows)

    def _finish(self, rows: np.ndarray) -> None:
        """Log the episodes that ended; refresh targets after each block of episodes."""
        if not len(rows):
            return
        self.playing[rows] = False
        self._episodes[rows] += 1
        for t in rows:
            self.contexts[t].logger.log(int(self._steps[t]), episode_return=-float(self.errors[t]),
                                        episode_errors=int(self.errors[t]), episode_moves=int(self.moves[t]))
        if self.params.target_unit == "episodes":
            self._refresh(rows[self._episodes[rows] % self.params.target_period == 0])

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        counters = {"steps": self._steps, "episodes": self._episodes, "boards": self.boards, "fresh": self.fresh}
        np.savez(directory / "state.npz", **self.q.state(), **self.replay.state(), **counters)
        rngs = [rng.bit_generator.state for rng in self.rngs]
        (directory / "rngs.json").write_text(json.dumps(rngs))
        moves = [actions if playing else None for actions, playing in zip(self.actions, self.playing)]
        (directory / "episodes.json").write_text(json.dumps(moves))

    def load(self, directory: Path) -> None:
        with np.load(directory / "state.npz", allow_pickle=False) as arrays:
            self.q.load(arrays)
            self.replay.load(arrays)
            self._steps[...], self._episodes[...] = arrays["steps"], arrays["episodes"]
            self.boards[...], self.fresh[...] = arrays["boards"], arrays["fresh"]
        for rng, state in zip(self.rngs, json.loads((directory / "rngs.json").read_text())):
            rng.bit_generator.state = state
        for env, drawn in zip(self.envs, self.boards):
            for _ in range(int(drawn) - 1):
                env.reset()
        self.playing[:] = False
        episodes = directory / "episodes.json"
        if episodes.exists():
            for t, moves in enumerate(json.loads(episodes.read_text())):
                if moves is not None:
                    self._replay(t, moves)

    def _replay(self, t: int, moves: list[int]) -> None:
        """Bring trial `t` back into its episode in progress: on its board (dealt again by `load`), replay `moves`."""
        self.fresh[t] = True
        self._begin(np.array([t]))
        obs = self.envs[t].unwrapped.observation()
        for action in moves:
            obs, reward, _, _, _ = self.envs[t].step(action)
            self.errors[t] += reward < 0
            self.moves[t] += 1
        self.actions[t] = list(moves)
        self.types[[t]], self.last[[t]] = self.features.keys(obs[None])

    def close(self) -> None:
        for env in self.envs:
            env.close()
