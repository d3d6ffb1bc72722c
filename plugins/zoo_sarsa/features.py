"""The ALE paper's feature sets (Section 3.1.1 and Appendix A) as sparse ``FeatureMap`` s over an Atari env.

Each map has ``size`` and ``per_action = False`` (state features; SARSA keeps one weight vector per
action) and ``active(env)``, the sorted indices of the ones. The same computation is available on a
raw screen or RAM (``from_screen``, ``from_ram``) for tests and other envs.
"""

from __future__ import annotations

import numpy as np

from .pairs import pairs_size, with_pairs
from .screens import HEIGHT, NTSC_COLOURS, SECAM_COLOURS, WIDTH, ntsc, secam, tile_of_pixel


def _ones(indices: np.ndarray, size: int) -> np.ndarray:
    """Sorted distinct indices (a bitmap pass: faster than np.unique for dense small ranges)."""
    mark = np.zeros(size, bool)
    mark[indices] = True
    return np.flatnonzero(mark)


class TileColours:
    """Shared by Basic and BASS: (tile, colour) bits of the foreground pixels."""

    def __init__(self, background: np.ndarray, cols: int, rows: int, colours: int):
        self.background = np.asarray(background, np.uint8).reshape(HEIGHT * WIDTH)
        self.tile = tile_of_pixel(rows, cols).astype(np.int64) * colours
        self.colours = colours
        self.n_base = rows * cols * colours

    def base(self, screen: np.ndarray) -> np.ndarray:
        flat = np.asarray(screen, np.uint8).reshape(HEIGHT * WIDTH)
        foreground = np.flatnonzero(flat != self.background)
        colour = ntsc(flat[foreground]) if self.colours == NTSC_COLOURS else secam(flat[foreground])
        return _ones(self.tile[foreground] + colour, self.n_base)


class BasicFeatures:
    """Basic: tile (16x14 grid of 10x15 px) x 128 colours, 1 when a foreground pixel of that colour is in the tile."""

    per_action = False

    def __init__(self, background: np.ndarray, cols: int = 16, rows: int = 14):
        self.tiles = TileColours(background, cols, rows, NTSC_COLOURS)
        self.size = self.tiles.n_base

    def from_screen(self, screen: np.ndarray) -> np.ndarray:
        return self.tiles.base(screen)

    def active(self, env) -> np.ndarray:
        return self.from_screen(env.unwrapped.ale.getScreen())


class BassFeatures:
    """BASS: tile x 8 SECAM colours, plus the AND of every pair of those bits."""

    per_action = False

    def __init__(self, background: np.ndarray, cols: int = 16, rows: int = 14):
        self.tiles = TileColours(background, cols, rows, SECAM_COLOURS)
        self.size = pairs_size(self.tiles.n_base)

    def from_screen(self, screen: np.ndarray) -> np.ndarray:
        return with_pairs(self.tiles.base(screen), self.tiles.n_base)

    def active(self, env) -> np.ndarray:
        return self.from_screen(env.unwrapped.ale.getScreen())


class RamFeatures:
    """RAM: the 1024 bits (index 8*byte + bit, bit 0 least significant) plus the AND of every pair."""

    per_action = False
    n_base = 1024
    size = pairs_size(1024)

    def from_ram(self, ram: np.ndarray) -> np.ndarray:
        bits = np.unpackbits(np.asarray(ram, np.uint8), bitorder="little")
        return with_pairs(np.flatnonzero(bits), self.n_base)

    def active(self, env) -> np.ndarray:
        return self.from_ram(env.unwrapped.ale.getRAM())


class LshFeatures:
    """LSH: l random projections of the one-hot (pixel, colour) screen, each hashed into M buckets.

    The screen bit vector has n = 128 * 210 * 160 coordinates, s[x + 160 y + 33600 c7] = 1. Projection
    i has k distinct support coordinates with a hash value in [0, M) each; its active feature is
    M*i + (sum of the hash values of its support coordinates that are on) mod M. Exactly l are active.
    The support entries are kept sorted by (pixel, colour): a screen's 33,600 on-coordinates each
    select a contiguous run of entries, so a screen costs O(pixels + hits), not O(l k).
    """

    per_action = False

    def __init__(self, tables: int = 2000, support: int = 1000, buckets: int = 50, seed: int = 0):
        rng = np.random.default_rng(seed)
        pixels = HEIGHT * WIDTH
        coords = np.stack([rng.choice(NTSC_COLOURS * pixels, size=support, replace=False) for _ in range(tables)])
        self.hash = rng.integers(buckets, size=(tables, support), dtype=np.int64)
        self.coords = coords
        key = (coords % pixels) * NTSC_COLOURS + coords // pixels  # pixel-major, then colour
        order = np.argsort(key, axis=None, kind="stable")
        self.entry_table = (order // support).astype(np.int32)
        self.entry_hash = self.hash.ravel()[order].astype(np.float64)
        self.starts = np.searchsorted(key.ravel()[order], np.arange(pixels * NTSC_COLOURS + 1)).astype(np.int64)
        self.pixel_key = np.arange(pixels, dtype=np.int64) * NTSC_COLOURS
        self.offsets = np.arange(tables, dtype=np.int64) * buckets
        self.buckets = buckets
        self.size = tables * buckets

    def from_screen(self, screen: np.ndarray) -> np.ndarray:
        keys = self.pixel_key + ntsc(np.asarray(screen, np.uint8).reshape(HEIGHT * WIDTH))
        first, counts = self.starts[keys], self.starts[keys + 1] - self.starts[keys]
        ends = np.cumsum(counts)
        hits = np.arange(ends[-1]) + np.repeat(first - (ends - counts), counts)
        sums = np.bincount(self.entry_table[hits], weights=self.entry_hash[hits], minlength=len(self.offsets))
        return self.offsets + sums.astype(np.int64) % self.buckets

    def active(self, env) -> np.ndarray:
        return self.from_screen(env.unwrapped.ale.getScreen())
