"""SyntheticAtari (docs/atari.md): two small deterministic games behind the part of ale-py's
ALEInterface that the zoo uses (act, getScreen, getRAM, game_over, reset_game, cloneState,
restoreState, the action sets, lives and frame numbers), without ale-py.

Screens are 210x160 palette indices (all even) of sprites on a grid of cells; the 128-byte RAM
holds the whole game state. Actions are ALE's 18 ids; only their horizontal part matters (LEFT,
RIGHT or none).

* ``catch`` (bsuite's Catch drawn as an Atari screen): a grid of 5 columns x 10 rows of 32 x 21 px.
  A ball falls one row per frame from the top of a random column (the random stream is seeded by
  ``seed``); the paddle on the bottom row starts in the middle column and moves one column per
  frame. The game is over when the ball reaches the bottom row: +1 if the paddle is under it, else -1.
* ``corridor-with-trap``: the player walks a corridor of 16 cells of 10 px from cell 8. A coin at cell 11
  pays +1 at once and springs a trap that pays -10 eight frames later; the exit at cell 0 pays +5
  eight frames after it is reached. The player cannot move while a reward is pending, and the game
  is over when it is paid: greedy play earns -9, the long way +5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HEIGHT, WIDTH = 210, 160
LEFT_ACTIONS = frozenset({4, 7, 9, 12, 15, 17})  # LEFT, UPLEFT, DOWNLEFT and their FIRE versions
RIGHT_ACTIONS = frozenset({3, 6, 8, 11, 14, 16})
MINIMAL_ACTIONS = (0, 3, 4)  # NOOP, RIGHT, LEFT
BACKGROUND, BALL, PADDLE, PLAYER, COIN, EXIT, WALL = 0x00, 0x44, 0x1E, 0xC8, 0x1A, 0x86, 0x0E
DELAY = 8


def horizontal(action: int) -> int:
    """-1, 0 or +1: where an ALE action moves the player."""
    return -1 if action in LEFT_ACTIONS else 1 if action in RIGHT_ACTIONS else 0


def cell_box(row: int, col: int, rows: int, cols: int, height: int, width: int) -> tuple[slice, slice]:
    """Pixels of a height x width sprite centred in cell (row, col) of a rows x cols grid over the screen."""
    cell_h, cell_w = HEIGHT // rows, WIDTH // cols
    top, left = row * cell_h + (cell_h - height) // 2, col * cell_w + (cell_w - width) // 2
    return slice(top, top + height), slice(left, left + width)


@dataclass(frozen=True)
class SyntheticState:
    """A cloned game state; `equals` compares it with another as ale-py's ALEState does."""

    ram: np.ndarray
    frame: int
    episode_frame: int
    rng: dict

    def equals(self, other: SyntheticState) -> bool:
        return (bool(np.array_equal(self.ram, other.ram)) and self.frame == other.frame
                and self.episode_frame == other.episode_frame and self.rng == other.rng)


class SyntheticGame:
    """The ALE-like interface over a game whose whole state is its RAM (and the random stream)."""

    name = ""

    def __init__(self, seed: int = 0):
        self.ram = np.zeros(128, np.uint8)
        self.frame = self.episode_frame = 0
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Restart the random stream (the next reset_game draws from it)."""
        self.rng = np.random.default_rng(seed)
        self.reset_game()

    # -- ALEInterface ------------------------------------------------------------------------------
    def act(self, action: int, strength: float = 1.0) -> int:
        if self.game_over():
            return 0
        self.frame, self.episode_frame = self.frame + 1, self.episode_frame + 1
        return self.advance(horizontal(int(action)))

    def reset_game(self) -> None:
        self.ram[:] = 0
        self.episode_frame = 0
        self.start()

    def getScreen(self) -> np.ndarray:
        screen = self.background()
        self.draw(screen)
        return screen

    def getRAM(self) -> np.ndarray:
        return self.ram.copy()

    def cloneState(self, include_rng: bool = True) -> SyntheticState:
        """The whole state; the random stream is always part of it (`include_rng` is accepted as ale-py's)."""
        return SyntheticState(self.ram.copy(), self.frame, self.episode_frame, self.rng.bit_generator.state)

    def restoreState(self, state: SyntheticState) -> None:
        self.ram[:] = state.ram
        self.frame, self.episode_frame = state.frame, state.episode_frame
        self.rng.bit_generator.state = state.rng

    def getLegalActionSet(self) -> np.ndarray:
        return np.arange(18)

    def getMinimalActionSet(self) -> np.ndarray:
        return np.array(MINIMAL_ACTIONS)

    def lives(self) -> int:
        return 0

    def getFrameNumber(self) -> int:
        return self.frame

    def getEpisodeFrameNumber(self) -> int:
        return self.episode_frame

    # -- the game ----------------------------------------------------------------------------------
    def game_over(self) -> bool:
        return bool(self.ram[15])

    def background(self) -> np.ndarray:
        return np.full((HEIGHT, WIDTH), BACKGROUND, np.uint8)

    def start(self) -> None:
        raise NotImplementedError

    def advance(self, move: int) -> int:
        """One frame with the player's horizontal move; returns the frame's reward."""
        raise NotImplementedError

    def draw(self, screen: np.ndarray) -> None:
        raise NotImplementedError


class Catch(SyntheticGame):
    """RAM: 0 ball row, 1 ball column, 2 paddle column, 15 game over."""

    name = "catch"
    ROWS, COLS = 10, 5

    def start(self) -> None:
        self.ram[1], self.ram[2] = self.rng.integers(self.COLS), self.COLS // 2

    def advance(self, move: int) -> int:
        ram = self.ram
        ram[2] = min(max(int(ram[2]) + move, 0), self.COLS - 1)
        ram[0] += 1
        if ram[0] < self.ROWS - 1:
            return 0
        ram[15] = 1
        return 1 if ram[1] == ram[2] else -1

    def draw(self, screen: np.ndarray) -> None:
        screen[cell_box(int(self.ram[0]), int(self.ram[1]), self.ROWS, self.COLS, 9, 8)] = BALL
        screen[cell_box(self.ROWS - 1, int(self.ram[2]), self.ROWS, self.COLS, 6, 32)] = PADDLE


class CorridorWithTrap(SyntheticGame):
    """RAM: 0 player cell, 1 coin taken, 2 frames until the pending reward, 3 its index (1: -10, 2: +5),
    15 game over. The corridor is row 7 of a 14 x 16 grid of 15 x 10 px cells, walled above and below."""

    name = "corridor-with-trap"
    ROWS, COLS = 14, 16
    START, COIN_CELL, EXIT_CELL = 8, 11, 0
    PENDING = {1: -10, 2: 5}

    def start(self) -> None:
        self.ram[0] = self.START

    def advance(self, move: int) -> int:
        ram = self.ram
        if ram[2]:
            ram[2] -= 1
            if ram[2] == 0:
                ram[15] = 1
                return self.PENDING[int(ram[3])]
            return 0
        ram[0] = min(max(int(ram[0]) + move, 0), self.COLS - 1)
        if ram[0] == self.COIN_CELL and not ram[1]:
            ram[1], ram[2], ram[3] = 1, DELAY, 1
            return 1
        if ram[0] == self.EXIT_CELL:
            ram[2], ram[3] = DELAY, 2
        return 0

    def background(self) -> np.ndarray:
        screen = super().background()
        screen[103:105, :] = WALL
        screen[120:122, :] = WALL
        return screen

    def draw(self, screen: np.ndarray) -> None:
        grid = self.ROWS, self.COLS
        screen[cell_box(7, self.EXIT_CELL, *grid, 15, 10)] = EXIT
        if not self.ram[1]:
            screen[cell_box(7, self.COIN_CELL, *grid, 6, 6)] = COIN
        screen[cell_box(7, int(self.ram[0]), *grid, 12, 8)] = PLAYER


GAMES = {game.name: game for game in (Catch, CorridorWithTrap)}
