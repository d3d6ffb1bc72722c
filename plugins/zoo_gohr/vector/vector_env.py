"""GOHR as a gymnasium vector env: many boards stepped at once.

An engine keeps, per cell of every board, the 4-bit hint mask of the piece there (or "empty",
"crowded", "over"; see ``cell_states``), so a batch of moves is resolved by one table lookup; only
accepted moves and new boards go to the engine. Rules that :class:`RuleTables` covers, on random
S+C boards, are played in numpy by :class:`TableGames`; anything else by one :class:`Game` per env
(:class:`GameList`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..engine.constants import ACTIONS, BUCKETS, CELLS
from ..engine.game import Code
from ..engine.ruleset import RuleSet
from .board_batch import BoardBatch
from .cell_states import CODES
from .game_list import GameList
from .layout import ObservationLayout
from .rule_tables import RuleTables
from .table_games import TableGames


def _write_moves(layout: ObservationLayout, obs: np.ndarray, rows, cells, buckets) -> None:
    """``layout.write_move`` for many envs at once (at most one move per env, cells 0..35): the
    piece's shape and color are read from the board bits before they are cleared."""
    board_at = rows[:, None], (cells * layout.per_cell)[:, None] + np.arange(layout.per_cell)
    board = obs[board_at]
    obs[board_at] = 0.0
    obs[rows, layout.last:layout.by_shape] = 0.0
    obs[rows, layout.last + buckets] = 1.0
    obs[rows, layout.last_pos + cells] = 1.0
    nshapes = len(layout.shapes)
    for bits, last_at, by_at in ((board[:, :nshapes], layout.last_shape, layout.by_shape),
                                 (board[:, nshapes:], layout.last_color, layout.by_color)):
        known = bits.any(axis=1)
        r, k, b = rows[known], bits[known].argmax(axis=1), buckets[known]
        obs[r, last_at + k] = 1.0
        start = by_at + k * BUCKETS
        obs[r[:, None], start[:, None] + np.arange(BUCKETS)] = 0.0
        obs[r, start + b] = 1.0


class GohrVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of :class:`~zoo_gohr.env.GohrEnv` (same arguments) stepped as one batch.

    Sub-env i behaves exactly as a ``GohrEnv`` reset with seed ``seed + i`` (``reset(seed=[...])``
    gives one seed per env; without a seed, board seeds come from this env's ``np_random``), as in
    ``SyncVectorEnv``. Autoreset is NEXT_STEP: the step after an episode ends resets that env,
    ignores its action and returns reward 0. ``info`` holds ``code`` (:class:`Code`, ``NEW_GAME``
    on those reset steps), ``accepted``, ``finish`` and ``action_mask`` (num_envs, 144), with
    gymnasium's ``_key`` masks. ``engine`` is the :class:`TableGames` or :class:`GameList` playing
    the games. ``copy=False`` returns the internal observation buffer instead of a copy.
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
        self.engine: TableGames | GameList | None = None
        self._tables: dict[tuple, RuleTables | None] = {}  # by board shapes and colors
        self._obs = np.zeros((num_envs, self.layout.size), np.float32)
        self._mask = np.zeros((num_envs, ACTIONS), bool)
        self._row = np.arange(num_envs) * CELLS
        self._moves = np.zeros(num_envs, np.int64)
        self._autoreset = np.zeros(num_envs, bool)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        if options is not None:
            raise ValueError("GohrVectorEnv.reset takes no options")
        if isinstance(seed, int):
            seed = [seed + i for i in range(self.num_envs)]
        if seed is not None and len(seed) != self.num_envs:
            raise ValueError(f"got {len(seed)} seeds for {self.num_envs} envs")
        super().reset(seed=None if seed is None else seed[0])
        if seed is not None or self.engine is None:
            seeds = seed if seed is not None else self.np_random.integers(1, 2**62, self.num_envs).tolist()
            self.engine = self._engine([self._make_boards(s) for s in seeds])
        self._start(np.arange(self.num_envs))
        self._autoreset[:] = False
        return self._observations(), {"action_mask": self._mask.copy(), "finish": self.engine.finish.copy()}

    def step(self, actions):
        if self.engine is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.min() < 0 or actions.max() >= ACTIONS:
            raise ValueError(f"expected {self.num_envs} actions in 0..{ACTIONS - 1}")
        engine = self.engine
        cells, buckets = actions >> 2, actions & 3
        code = CODES[engine.state.reshape(-1)[self._row + cells], buckets]
        reset = np.flatnonzero(self._autoreset)
        code[reset] = Code.NEW_GAME
        accepted = code == Code.ACCEPT
        terminated = code == Code.NO_GAME
        movers = np.flatnonzero(accepted)
        if movers.size:
            cells, buckets = cells[movers], buckets[movers]
            engine.accept(movers, cells, buckets)
            _write_moves(self.layout, self._obs, movers, cells, buckets)
            self._mask.reshape(-1, BUCKETS)[movers * CELLS + cells] = False
            terminated[movers] |= engine.finish[movers] != 0
        self._moves += 1
        if reset.size:
            self._start(reset)
        stepped = np.ones(self.num_envs, bool)
        stepped[reset] = False
        rewards = (accepted | ~stepped) - 1.0
        truncated = ~terminated & (self._moves >= self.horizon)
        self._autoreset = terminated | truncated
        everyone = np.ones(self.num_envs, bool)
        info = {"code": code, "_code": stepped, "accepted": accepted, "_accepted": stepped,
                "finish": engine.finish.copy(), "_finish": everyone,
                "action_mask": self._mask.copy(), "_action_mask": everyone}
        return self._observations(), rewards, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """(num_envs, 144): True for the actions that address an occupied cell."""
        return self._mask.copy()

    def _observations(self) -> np.ndarray:
        return self._obs.copy() if self.copy else self._obs

    def _engine(self, sources: list) -> TableGames | GameList:
        """The numpy engine if the rules and board sources allow it, else the Game objects."""
        if BoardBatch.fits(sources):
            key = (sources[0].shapes, sources[0].colors)
            if key not in self._tables:
                self._tables[key] = RuleTables.build(self.rules, *key)
            if self._tables[key] is not None:
                return TableGames(self._tables[key], BoardBatch(sources), self.layout, self.num_envs)
        return GameList(self.rules, sources, self.layout, self.num_envs)

    def _start(self, envs: np.ndarray) -> None:
        """Start ``envs`` on the next board of their sources, as ``GohrEnv.reset`` does."""
        occupied, board = self.engine.start(envs)
        self._obs[envs, :self.layout.last] = board
        self._obs[envs, self.layout.last:] = 0.0
        self._mask[envs] = np.repeat(occupied, BUCKETS, axis=1)
        self._moves[envs] = 0
