"""Screen helpers of the ALE feature sets: colour maps, tile grids and the per-pixel background.

Screens are ALE palette indices (uint8 210x160, all even): the 7-bit NTSC colour is ``idx >> 1`` and
the SECAM colour (8 values, the luminance bits) is ``(idx >> 1) & 7`` (docs/algorithms/sarsa-ale.md).
"""

from __future__ import annotations

import numpy as np

HEIGHT, WIDTH = 210, 160
NTSC_COLOURS, SECAM_COLOURS = 128, 8


def ntsc(screen: np.ndarray) -> np.ndarray:
    return np.asarray(screen) >> 1


def secam(screen: np.ndarray) -> np.ndarray:
    return (np.asarray(screen) >> 1) & 7


def tile_of_pixel(rows: int, cols: int) -> np.ndarray:
    """Flat per-pixel tile index (row-major over a rows x cols grid); the grid must divide the screen."""
    if HEIGHT % rows or WIDTH % cols:
        raise ValueError(f"a {cols}x{rows} grid does not divide the {WIDTH}x{HEIGHT} screen exactly")
    y, x = np.divmod(np.arange(HEIGHT * WIDTH), WIDTH)
    return (y // (HEIGHT // rows)) * cols + x // (WIDTH // cols)


def background_mode(frames) -> np.ndarray:
    """The most frequent palette index of every pixel over `frames` (an iterable of screens or batches)."""
    counts = np.zeros((HEIGHT * WIDTH, 256), np.int64)
    pixel = np.arange(HEIGHT * WIDTH, dtype=np.int64) * 256
    for batch in frames:
        batch = np.asarray(batch, np.int64).reshape(-1, HEIGHT * WIDTH)
        counts += np.bincount((pixel + batch).ravel(), minlength=counts.size).reshape(counts.shape)
    return counts.argmax(axis=1).astype(np.uint8).reshape(HEIGHT, WIDTH)


def sample_screens(ale, frames: int, seed: int, *, hold: int = 5, prefix_max: int = 200, batch: int = 256):
    """Yield batches of screens from `frames` emulator frames of play, leaving `ale`'s state as it was.

    Stands in for the paper's human-then-random trajectories (docs/algorithms/sarsa-ale.md): each episode repeats
    a seeded action sequence for U{0..prefix_max} decisions, then takes uniform random decisions,
    each held for `hold` frames.
    """
    rng = np.random.default_rng(seed)
    actions = np.asarray(ale.getLegalActionSet())
    script = rng.integers(len(actions), size=prefix_max)
    saved = ale.cloneState()
    try:
        ale.reset_game()
        buffer, decision, prefix = [], 0, int(rng.integers(prefix_max + 1))
        for frame in range(frames):
            if frame % hold == 0:
                choice = script[decision] if decision < prefix else rng.integers(len(actions))
                action, decision = actions[choice], decision + 1
            ale.act(action)
            buffer.append(ale.getScreen())
            if ale.game_over():
                ale.reset_game()
                decision, prefix = 0, int(rng.integers(prefix_max + 1))
            if len(buffer) == batch:
                yield np.stack(buffer)
                buffer = []
        if buffer:
            yield np.stack(buffer)
    finally:
        ale.restoreState(saved)


_backgrounds: dict[tuple, np.ndarray] = {}


def game_key(env) -> tuple:
    """Envs of one game share a background: an ale-py AtariEnv's ROM and mode, or a SyntheticAtari game."""
    unwrapped = env.unwrapped
    if hasattr(unwrapped, "_game_mode"):
        return "ale", unwrapped._game, unwrapped._game_mode
    return "synthetic", unwrapped.game


def game_background(env, frames: int, seed: int) -> np.ndarray:
    """The background of `env`'s game from `frames` sampled frames (cached per game, frames and seed)."""
    key = (*game_key(env), frames, seed)
    if key not in _backgrounds:
        _backgrounds[key] = background_mode(sample_screens(env.unwrapped.ale, frames, seed))
    return _backgrounds[key]
