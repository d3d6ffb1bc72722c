"""GOHR as a gymnasium vector env: many boards stepped at once.

Each sub-env keeps, per cell, the 4-bit hint mask of the piece there (or "empty", "crowded", "over")
in one numpy array, so a batch of moves is resolved by one table lookup. Only accepted moves and
resets go through the Python :class:`Game`; what they change in the numpy arrays is gathered over
the step (:class:`_Writes`) and written with a few numpy calls. Random actions are mostly rejected,
which is where the speed comes from.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .env import ACTIONS, BUCKETS, CELLS, ObservationLayout
from .game import Code, Game
from .ruleset import RuleSet

# Cell states beside the hint masks 0..15.
_EMPTY, _CROWDED, _OVER = 16, 17, 18


def _code_table() -> np.ndarray:
    """The CGS code of a move, indexed by [cell state, bucket]."""
    table = np.empty((19, BUCKETS), np.int8)
    for hint in range(16):
        for b in range(BUCKETS):
            table[hint, b] = Code.ACCEPT if hint >> b & 1 else Code.DENY if hint else Code.IMMOVABLE
    table[_EMPTY] = Code.EMPTY_CELL
    table[_CROWDED] = Code.MULTIPLE_OBJECTS_IN_CELL
    table[_OVER] = Code.NO_GAME
    return table


_CODES = _code_table()


class _Writes:
    """What one step's accepted moves and resets change, as flat indices into the env's arrays.

    Cells are numbered ``env * CELLS + pos - 1``; ``moves`` holds (env, cell 0..35, bucket) of each
    accepted move (whose cell becomes empty).
    """
    __slots__ = ("state_at", "state", "mask_on", "obs_on", "moves", "over", "reset")

    def __init__(self):
        self.state_at: list[int] = []
        self.state: list[int] = []
        self.mask_on: list[int] = []
        self.obs_on: list[int] = []
        self.moves: list[tuple[int, int, int]] = []
        self.over: list[int] = []   # envs whose game is over
        self.reset: list[int] = []  # envs on a new board (arrays cleared before the writes)


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
        self._pieces: list[list] = [[] for _ in range(num_envs)]  # each game's pieces, in slot order
        self._single: list[dict[int, int]] = [{} for _ in range(num_envs)]  # cell -> slot of its only piece
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
        writes = _Writes()
        for i in range(self.num_envs):
            self._start(i, writes)
        self._apply(writes)
        self._autoreset[:] = False
        return self._observations(), {"action_mask": self._mask.copy(), "finish": self._finish.copy()}

    def step(self, actions):
        if self._sources is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.min() < 0 or actions.max() >= ACTIONS:
            raise ValueError(f"expected {self.num_envs} actions in 0..{ACTIONS - 1}")
        cells, buckets = actions >> 2, actions & 3
        code = _CODES[self._state.reshape(-1)[self._row + cells], buckets]
        reset = np.flatnonzero(self._autoreset)
        code[reset] = Code.NEW_GAME
        accepted = code == Code.ACCEPT
        terminated = code == Code.NO_GAME
        writes = _Writes()
        movers = np.flatnonzero(accepted)
        for i, cell, b in zip(movers.tolist(), cells[movers].tolist(), buckets[movers].tolist()):
            self._accept(i, cell, b, writes)
        terminated[writes.over] = True
        self._moves += 1
        for i in reset.tolist():
            self._start(i, writes)
        self._apply(writes)
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

    def _accept(self, i: int, cell: int, b: int, writes: _Writes) -> None:
        """Play an accepted move (cell 0..35, bucket) of env i in its Game and note what changes."""
        single = self._single[i]
        piece = self._pieces[i][single.pop(i * CELLS + cell)]
        game = self.games[i]
        result = game.move(piece.id, b)
        assert result.accepted, "cell table out of sync with the game"
        writes.moves.append((i, cell, b))
        if game.finish:
            writes.over.append(i)
            self._finish[i] = game.finish
            return
        hints = game.slot_hints()
        writes.state_at += single
        writes.state += map(hints.__getitem__, single.values())

    def _start(self, i: int, writes: _Writes) -> None:
        """Start env i on the next board of its source, as ``GohrEnv.reset`` does."""
        game = self.games[i] = Game(self.rules, self._sources[i].next_board())
        pieces = self._pieces[i] = game.pieces()
        writes.reset.append(i)
        cells = [i * CELLS + p.pos - 1 for p in pieces]
        writes.mask_on += cells
        writes.obs_on += self._piece_bits(i, pieces)
        single = self._single[i] = {at: j for j, at in enumerate(cells)}
        if len(single) < len(cells):  # pieces sharing a cell answer MULTIPLE_OBJECTS_IN_CELL
            crowded = {at for at in cells if cells.count(at) > 1}
            for at in crowded:
                del single[at]
            writes.state_at += crowded
            writes.state += [_CROWDED] * len(crowded)
        if game.finish:
            writes.over.append(i)
        else:
            hints = game.slot_hints()
            writes.state_at += single
            writes.state += map(hints.__getitem__, single.values())
        self._moves[i] = 0
        self._finish[i] = game.finish

    def _piece_bits(self, i: int, pieces) -> list[int]:
        """Flat indices into the observations of the board bits of env i's pieces (``write_piece``)."""
        layout, base = self.layout, i * self.layout.size
        shapes, colors, per_cell, color0 = layout.shapes, layout.colors, layout.per_cell, len(layout.shapes)
        bits = []
        for p in pieces:
            at = base + (p.pos - 1) * per_cell
            shape, color = shapes.get(p.shape), colors.get(p.color)
            if shape is not None:
                bits.append(at + shape)
            if color is not None:
                bits.append(at + color0 + color)
        return bits

    def _apply(self, writes: _Writes) -> None:
        """Write one step's changes into the numpy arrays."""
        if writes.reset:
            self._obs[writes.reset] = 0.0
            self._mask[writes.reset] = False
            self._state[writes.reset] = _EMPTY
        by_cell = self._mask.reshape(-1, BUCKETS)
        if writes.moves:
            rows, cells, buckets = np.array(writes.moves, np.intp).T
            _write_moves(self.layout, self._obs, rows, cells, buckets)
            by_cell[rows * CELLS + cells] = False
            self._state.reshape(-1)[rows * CELLS + cells] = _EMPTY
        self._obs.reshape(-1)[writes.obs_on] = 1.0
        by_cell[writes.mask_on] = True
        self._state.reshape(-1)[writes.state_at] = writes.state
        self._state[writes.over] = _OVER


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
