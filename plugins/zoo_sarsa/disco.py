"""DISCO: Detecting Instances and Segmenting Classes of Objects (the ALE paper's Appendix A; docs/algorithms/sarsa-ale.md).

Preprocessing (no learning), from sampled screens and the background:
blobs are 8-connected regions of foreground pixels of one colour; blobs with identical binary shapes
form a class; classes seen in under 0.5% of the frames, or whose centres stay within fewer than 2
tiles of the 16x14 grid (a HUD, a static sprite), are dropped; classes whose shapes overlap with
Jaccard similarity >= 0.8 (bounding boxes aligned at the top-left) are merged.

Per step: each blob of the current screen whose shape belongs to a class is an instance at the
blob's centre (at most ``cap`` per class; exact blob-shape matching stands in for the reference
code's sliding shape match). Features, as counts (an index repeated n times has value n):
* per class, T tilings of an R x R grid over the absolute position of each instance, plus an
  "absent" indicator that is on when the class has no instance on the screen;
* per pair of distinct classes and pair of their instances, T tilings of R x R over the relative
  position (dx, dy), in one of 4 sub-blocks chosen by "approaching in x" and "approaching in y"
  (|dx| and |dy| shrinking since the previous screen, instances matched to their nearest
  predecessor of the same class).
Size, for C classes: C (T R^2 + 1) + C(C-1)/2 * 4 T R^2 (the 1 is the absent indicator).

The previous screen belongs to the episode: ``reset()`` forgets it, and the SARSA agent calls it
after every env reset, so an episode's first screen is read as by a fresh extractor (no pair
approaches) rather than against the last screen of the episode before.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from .screens import HEIGHT, WIDTH

EIGHT = np.ones((3, 3), bool)


def blobs(screen: np.ndarray, background: np.ndarray) -> list[tuple[bytes, float, float]]:
    """(shape key, centre x, centre y) of every one-colour 8-connected foreground blob."""
    screen = np.asarray(screen)
    foreground = screen != background
    found = []
    for colour in np.unique(screen[foreground]):
        labels, count = ndimage.label(foreground & (screen == colour), structure=EIGHT)
        for k, box in enumerate(ndimage.find_objects(labels), start=1):
            mask = labels[box] == k
            found.append((shape_key(mask), (box[1].start + box[1].stop - 1) / 2, (box[0].start + box[0].stop - 1) / 2))
    return found


def shape_key(mask: np.ndarray) -> bytes:
    return np.array(mask.shape, np.int16).tobytes() + np.packbits(mask).tobytes()


def shape_of(key: bytes) -> np.ndarray:
    rows, cols = np.frombuffer(key[:4], np.int16)
    return np.unpackbits(np.frombuffer(key[4:], np.uint8))[: rows * cols].reshape(rows, cols).astype(bool)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    rows, cols = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    pa, pb = np.zeros((rows, cols), bool), np.zeros((rows, cols), bool)
    pa[: a.shape[0], : a.shape[1]], pb[: b.shape[0], : b.shape[1]] = a, b
    return (pa & pb).sum() / (pa | pb).sum()


def discover_classes(screens, background: np.ndarray, *, min_frequency: float = 0.005, min_tiles: int = 2,
                     merge_jaccard: float = 0.8) -> list[list[bytes]]:
    """Classes (each a list of shape keys, largest first) found in `screens` (steps c-e)."""
    frames: dict[bytes, int] = {}
    tiles: dict[bytes, set] = {}
    total = 0
    for screen in screens:
        total += 1
        found = blobs(screen, background)
        for key in {key for key, _, _ in found}:
            frames[key] = frames.get(key, 0) + 1
        for key, x, y in found:
            tiles.setdefault(key, set()).add((int(y) // 15, int(x) // 10))
    kept = sorted(k for k in frames if frames[k] >= min_frequency * total and len(tiles[k]) >= min_tiles)
    parent = list(range(len(kept)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    shapes = [shape_of(k) for k in kept]
    for i in range(len(kept)):
        for j in range(i + 1, len(kept)):
            if jaccard(shapes[i], shapes[j]) >= merge_jaccard:
                parent[root(j)] = root(i)
    classes: dict[int, list[int]] = {}
    for i in range(len(kept)):
        classes.setdefault(root(i), []).append(i)
    return [sorted((kept[i] for i in members), key=lambda k: -shape_of(k).sum()) for members in classes.values()]


def tile_code(x, y, width: float, height: float, tilings: int, resolution: int) -> np.ndarray:
    """Indices k R^2 + ty R + tx of the T offset R x R tilings of points (x, y) in [0, width) x [0, height)."""
    x, y = np.asarray(x, float)[:, None], np.asarray(y, float)[:, None]
    offsets = np.arange(tilings) / tilings
    tx = np.clip(np.floor(x / width * resolution + offsets), 0, resolution - 1).astype(np.int64)
    ty = np.clip(np.floor(y / height * resolution + offsets), 0, resolution - 1).astype(np.int64)
    return (np.arange(tilings) * resolution ** 2 + ty * resolution + tx).ravel()


class DiscoFeatures:
    """Class-instance features of the screen (counts given as repeated indices)."""

    per_action = False
    repeated_indices = True

    def __init__(self, background: np.ndarray, classes: list[list[bytes]], *, tilings: int = 4, resolution: int = 8,
                 cap: int = 8):
        self.background = np.asarray(background)
        self.class_of = {key: c for c, keys in enumerate(classes) for key in keys}
        self.classes, self.tilings, self.resolution, self.cap = len(classes), tilings, resolution, cap
        self.block = tilings * resolution ** 2
        self.pairs_offset = self.classes * (self.block + 1)
        self.size = self.pairs_offset + self.classes * (self.classes - 1) // 2 * 4 * self.block
        self.reset()

    def reset(self) -> None:
        """Forget the previous screen (a new episode starts)."""
        self.previous: list[np.ndarray] = [np.zeros((0, 2))] * self.classes

    def instances(self, screen: np.ndarray) -> list[np.ndarray]:
        """Per class, the (x, y) centres of its instances on `screen` (at most `cap`)."""
        found: list[list[tuple[float, float]]] = [[] for _ in range(self.classes)]
        for key, x, y in blobs(screen, self.background):
            c = self.class_of.get(key)
            if c is not None and len(found[c]) < self.cap:
                found[c].append((x, y))
        return [np.array(points, float).reshape(-1, 2) for points in found]

    def from_screen(self, screen: np.ndarray) -> np.ndarray:
        current = self.instances(screen)
        before = [self._predecessors(now, then) for now, then in zip(current, self.previous)]
        self.previous = current
        parts = []
        for c, points in enumerate(current):
            offset = c * (self.block + 1)
            if len(points):
                parts.append(offset + tile_code(points[:, 0], points[:, 1], WIDTH, HEIGHT, self.tilings, self.resolution))
            else:
                parts.append(np.array([offset + self.block]))
        pair = 0
        for a in range(self.classes):
            for b in range(a + 1, self.classes):
                if len(current[a]) and len(current[b]):
                    parts.append(self._pair(pair, current[a], current[b], before[a], before[b]))
                pair += 1
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    def _pair(self, pair, now_a, now_b, then_a, then_b) -> np.ndarray:
        dx = now_b[None, :, 0] - now_a[:, None, 0]
        dy = now_b[None, :, 1] - now_a[:, None, 1]
        closer_x = np.abs(dx) < np.abs(then_b[None, :, 0] - then_a[:, None, 0])
        closer_y = np.abs(dy) < np.abs(then_b[None, :, 1] - then_a[:, None, 1])
        sub = (2 * closer_x + closer_y).ravel()
        codes = tile_code(dx.ravel() + WIDTH, dy.ravel() + HEIGHT, 2 * WIDTH, 2 * HEIGHT, self.tilings, self.resolution)
        start = self.pairs_offset + pair * 4 * self.block
        return start + np.repeat(sub, self.tilings) * self.block + codes

    @staticmethod
    def _predecessors(now: np.ndarray, then: np.ndarray) -> np.ndarray:
        """Each current instance's nearest instance on the previous screen (itself when there was none)."""
        if not len(then):
            return now
        distance = ((now[:, None, :] - then[None, :, :]) ** 2).sum(axis=2)
        return then[distance.argmin(axis=1)]

    def active(self, env) -> np.ndarray:
        return self.from_screen(env.unwrapped.ale.getScreen())
