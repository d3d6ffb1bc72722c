"""GOHR as a gymnasium environment: 144 actions (cell, bucket), reward 0 if accepted and -1 otherwise.

The observation is a flat 0/1 vector holding what a rule can depend on and a player can see:

* the board: for each cell 1..36, one-hot shape then one-hot color (all zero when empty);
* the last accepted move: its bucket, the piece's shape, color and cell (all zero before one);
* for each shape and each color, the bucket that last took a piece of it (p, ps and pc of the rule
  language).

The rule's own state (active line, counters) stays hidden, as it is from a human player.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .engine.board import Board, Piece
from .engine.constants import ACTIONS, BUCKETS
from .engine.game import Code, Finish, Game
from .engine.ruleset import RuleSet
from .vector.layout import ObservationLayout, decode_action


class GohrEnv(gymnasium.Env):
    """One GOHR rule played on a stream of boards; an episode is one board, cut at `horizon` moves.

    ``boards(seed)`` returns a board source (an object with ``next_board()``, ``get_state()`` and
    ``set_state()``); the env makes a new source whenever ``reset`` gets a seed, so a seed fixes the whole
    sequence of boards. The ``action_masks()`` method (and ``info["action_mask"]``) marks the actions on
    occupied cells. ``get_state()``/``set_state()`` save and restore the env mid-episode.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(self, rules: RuleSet, boards: Callable[[int], Any], *, horizon: int = 100,
                 shapes: tuple[str, ...], colors: tuple[str, ...], render_mode: str | None = None):
        self.rules = rules
        self.horizon = horizon
        self.render_mode = render_mode
        self.layout = ObservationLayout(tuple(shapes), tuple(colors))
        self.action_space = spaces.Discrete(ACTIONS)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
        self._make_boards = boards
        self._boards = None
        self._obs = np.zeros(self.layout.size, dtype=np.float32)
        self._mask = np.zeros(ACTIONS, dtype=bool)
        self.game: Game | None = None
        self._at: dict[int, Piece] = {}
        self.moves = 0
        self.last_move = None  # the last move that addressed a piece (render.LastMove), for pictures
        self._window = None
        self._start: dict[str, Any] | None = None  # the board source before this episode's board (get_state)
        self._actions: list[int] = []

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None or self._boards is None:
            board_seed = seed if seed is not None else int(self.np_random.integers(1, 2**62))
            self._boards = self._make_boards(board_seed)
        given = options is not None and "board" in options
        self._start = None if given else {"np_random": self.np_random.bit_generator.state,
                                          "boards": self._boards.get_state()}
        self._actions = []
        return self._begin(options["board"] if given else self._boards.next_board())

    def _begin(self, board) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode on `board` (a Board or its pieces): the first observation and info."""
        self.game = Game(self.rules, board if isinstance(board, Board) else Board(list(board)))
        self.moves = 0
        self._obs[:] = 0.0
        self._mask[:] = False
        self._at = {piece.pos: piece for piece in self.game.pieces()}
        for piece in self.game.pieces():
            self.layout.write_piece(self._obs, piece)
            self._mask[(piece.pos - 1) * BUCKETS:piece.pos * BUCKETS] = True
        self.last_move = None
        if self.render_mode == "human":
            self.render()
        return self._obs.copy(), self._info(None)

    def step(self, action):
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        pos, bucket = decode_action(int(action))
        self._actions.append(int(action))
        result = self.game.move_at(pos, bucket)
        self.moves += 1
        if pos in self._at and self.render_mode in ("rgb_array", "human"):
            from .render import LastMove

            self.last_move = LastMove(self._at[pos], bucket, bool(result.accepted))
        if result.accepted:  # only a cell holding exactly one piece can accept a move
            self.layout.write_move(self._obs, self._at.pop(pos), bucket)
            self._mask[(pos - 1) * BUCKETS:pos * BUCKETS] = False
        terminated = result.finish != Finish.NO
        truncated = not terminated and self.moves >= self.horizon
        reward = 0.0 if result.accepted else -1.0
        if self.render_mode == "human":
            self.render()
        return self._obs.copy(), reward, terminated, truncated, self._info(result)

    def get_state(self) -> dict[str, Any]:
        """JSON-ready data from which :meth:`set_state` brings an env of the same rule and board settings to
        this point: its generator and board source as this episode began, and the moves since (replayed)."""
        if self.game is None:
            return {"np_random": self.np_random.bit_generator.state, "episode": None}
        if self._start is None:
            raise ValueError("an episode begun on a board given to reset(options=...) has no state to save")
        return {**self._start, "episode": self._actions.copy()}

    def set_state(self, state: dict[str, Any]) -> None:
        self.np_random.bit_generator.state = state["np_random"]
        if state["episode"] is None:
            self._boards, self.game = None, None
            return
        self._boards = self._make_boards(1)
        self._boards.set_state(state["boards"])
        self._start, self._actions = {"np_random": state["np_random"], "boards": state["boards"]}, []
        self._begin(self._boards.next_board())
        render_mode, self.render_mode = self.render_mode, None  # the replayed moves are not shown again
        try:
            for action in state["episode"]:
                self.step(action)
        finally:
            self.render_mode = render_mode

    def action_masks(self) -> np.ndarray:
        """True for the actions that address an occupied cell."""
        return self._mask.copy()

    def observation(self) -> np.ndarray:
        """The current observation (a copy), for feature maps that read the state between steps."""
        return self._obs.copy()

    def _info(self, result) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "finish": int(self.game.finish)}
        if result is not None:
            info.update(code=int(result.code), code_name=Code(result.code).name, accepted=bool(result.accepted))
        return info

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as text; ``rgb_array``: its picture (``render.board_image``); ``human``: the
        picture in a window."""
        if self.render_mode == "ansi":
            from .display import board_text

            return board_text(self.game)
        if self.render_mode in ("rgb_array", "human"):
            from .render import HumanWindow, board_image

            frame = board_image(self.game.pieces() if self.game else [], self.last_move)
            if self.render_mode == "rgb_array":
                return frame
            self._window = self._window or HumanWindow(self.metadata["render_fps"])
            self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

