"""GOHR as a gymnasium vector env: many boards stepped at once.

Each sub-env keeps, per cell, the 4-bit hint mask of the piece there (or "empty", "crowded", "over")
in one numpy array, so a batch of moves is resolved by one table lookup. Only accepted moves and
resets go through the Python :class:`Game` (then that env's row is refreshed). Random actions are
mostly rejected, which is where the speed comes from.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .board import Board
from .env import ACTIONS, BUCKETS, CELLS, ObservationLayout
from .game import Code, Finish, Game
from .ruleset import RuleSet

# Cell states beside the hint masks 0..15, stored times 4 so that state + bucket indexes _CODES.
_EMPTY, _CROWDED, _OVER = 16 * 4, 17 * 4, 18 * 4


def _code_table() -> np.ndarray:
    """The CGS code of a move, indexed by 4 * cell state + bucket."""
    table = np.empty((19, BUCKETS), np.int8)
    for hint in range(16):
        for b in range(BUCKETS):
            table[hint, b] = Code.ACCEPT if hint >> b & 1 else Code.DENY if hint else Code.IMMOVABLE
    table[_EMPTY // 4] = Code.EMPTY_CELL
    table[_CROWDED // 4] = Code.MULTIPLE_OBJECTS_IN_CELL
    table[_OVER // 4] = Code.NO_GAME
    return table.ravel()


_CODES = _code_table()


class GohrVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of :class:`~zoo_gohr.env.GohrEnv` (same arguments) stepped as one batch.

    Sub-env i behaves exactly as a ``GohrEnv`` reset with seed ``seed + i`` (``reset(seed=[...])``
    gives one seed per env; without a seed, board seeds come from this env's ``np_random``), as in
    ``SyncVectorEnv``. Autoreset is NEXT_STEP: the step after an episode ends resets that env,
    ignores its action and returns reward 0. ``info`` holds ``code`` (:class:`Code`, ``NEW_GAME``
    on those reset steps), ``accepted``, ``finish`` and ``action_mask`` (num_envs, 144), with
    gymnasium's ``_key`` masks. ``Game.attempts`` of the sub-games counts accepted moves only.
    ``copy=False`` returns the internal observation buffer instead of a copy.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, rules: RuleSet, boards: Callable[[int], Any], num_envs: int, *, horizon: int = 100,
                 shapes: tuple[str, ...], colors: tuple[str, ...], copy: bool = True):
        self.rules = rules
        self.num_envs = num_envs
        self.horizon = horizon
        self.copy = copy
        self.layout = ObservationLayout(tuple(shapes), tuple(colors))
        self.single_observation_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._make_boards = boards
        self._sources: list | None = None
        self.games: list[Game | None] = [None] * num_envs
        self._single: list[dict] = [{} for _ in range(num_envs)]  # cell -> its only piece
        self._obs = np.zeros((num_envs, self.layout.size), np.float32)
        self._mask = np.zeros((num_envs, ACTIONS), bool)
        self._state = np.full((num_envs, CELLS), _EMPTY, np.uint8)
        self._row = np.arange(num_envs) * CELLS
        self._moves = np.zeros(num_envs, np.int64)
        self._finish = np.zeros(num_envs, np.int8)
        self._autoreset = np.zeros(num_envs, bool)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        if options is not None:
            raise ValueError("GohrVectorEnv.reset takes no options")
        if isinstance(seed, int):
            seed = [seed + i for i in range(self.num_envs)]
        if seed is not None and len(seed) != self.num_envs:
            raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
        super().reset(seed=None if seed is None else seed[0])
        if seed is not None or self._sources is None:
            seeds = seed if seed is not None else self.np_random.integers(1, 2**62, self.num_envs).tolist()
            self._sources = [self._make_boards(s) for s in seeds]
        for i in range(self.num_envs):
            self._reset_one(i)
        self._autoreset[:] = False
        return self._observations(), {"action_mask": self._mask.copy(), "finish": self._finish.copy()}

    def step(self, actions):
        if self._sources is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.min() < 0 or actions.max() >= ACTIONS:
            raise ValueError(f"expected {self.num_envs} actions in 0..{ACTIONS - 1}")
        code = _CODES[self._state.ravel()[self._row + (actions >> 2)] + (actions & 3)]
        reset = np.flatnonzero(self._autoreset)
        code[reset] = Code.NEW_GAME
        accepted = code == Code.ACCEPT
        terminated = code == Code.NO_GAME
        for i in np.flatnonzero(accepted):
            terminated[i] = self._accept(i, int(actions[i]))
        self._moves += 1
        for i in reset:
            self._reset_one(i)
        stepped = np.ones(self.num_envs, bool)
        stepped[reset] = False
        rewards = (accepted | ~stepped) - 1.0
        truncated = ~terminated & (self._moves >= self.horizon)
        self._autoreset = terminated | truncated
        everyone = np.ones(self.num_envs, bool)
        info = {"code": code, "_code": stepped, "accepted": accepted, "_accepted": stepped,
                "finish": self._finish.copy(), "_finish": everyone,
                "action_mask": self._mask.copy(), "_action_mask": everyone}
        return self._observations(), rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(num_envs, 144): True for the actions that address an occupied cell."""
        return self._mask.copy()

    def _observations(self) -> np.ndarray:
        return self._obs.copy() if self.copy else self._obs

    def _accept(self, i: int, action: int) -> bool:
        """Play an accepted move of env i in its Game and refresh the env's rows; returns finished."""
        pos, b = action // BUCKETS + 1, action % BUCKETS
        game, single, state = self.games[i], self._single[i], self._state[i]
        assert game.move_at(pos, b).accepted, "cell table out of sync with the game"
        self.layout.write_move(self._obs[i], single.pop(pos), b)
        self._mask[i, (pos - 1) * BUCKETS:pos * BUCKETS] = False
        state[pos - 1] = _EMPTY
        if game.finish != Finish.NO:
            state[:] = _OVER
            self._finish[i] = game.finish
            return True
        for cell, piece in single.items():
            state[cell - 1] = game.hint_mask(piece.id) * 4
        return False

    def _reset_one(self, i: int) -> None:
        """Start env i on the next board of its source, as ``GohrEnv.reset`` does."""
        board = self._sources[i].next_board()
        game = self.games[i] = Game(self.rules, board if isinstance(board, Board) else Board(list(board)))
        obs, mask, state, single = self._obs[i], self._mask[i], self._state[i], self._single[i]
        obs[:] = 0.0
        mask[:] = False
        state[:] = _EMPTY
        single.clear()
        for piece in game.pieces():
            self.layout.write_piece(obs, piece)
            mask[(piece.pos - 1) * BUCKETS:piece.pos * BUCKETS] = True
            if state[piece.pos - 1] == _EMPTY:
                state[piece.pos - 1] = game.hint_mask(piece.id) * 4
                single[piece.pos] = piece
            else:
                state[piece.pos - 1] = _CROWDED
                single.pop(piece.pos, None)
        if game.finish != Finish.NO:
            state[:] = _OVER
        self._moves[i] = 0
        self._finish[i] = game.finish


def make_vector_env(params, num_envs: int, seed: int | None) -> GohrVectorEnv:
    """The vector form of ``make_env`` (plugin.py): ``num_envs`` boards of a GOHR spec block."""
    from .plugin import board_source
    from .rulesets import load_named_rules

    envs = GohrVectorEnv(load_named_rules(params.rule), board_source(params.board), num_envs, horizon=params.horizon,
                         shapes=tuple(params.board.shapes), colors=tuple(params.board.colors))
    if seed is not None:
        envs.reset(seed=seed)
        envs.action_space.seed(seed)
    return envs
