"""The GOHR paper's feature map phi(S, A) (appendix A.1.1), laid out as the authors' code lays it out.

For an action A = (cell, bucket) the features are Boolean functions of the piece in the cell (shape s,
color c), the bucket b, and the last accepted move of the episode (its piece's shape ls and color lc
and its bucket lb; each is "none" before the first accepted move). In order (offsets for S shapes,
C colors, B = 4 buckets; 3720 features for 4 x 4 x 4):

* unary: s, c, b;
* current-step binary: (s,c) s*C+c, (s,b) s*B+b, (c,b) c*B+b;
* last-step binary: (ls,s) (ls+1)*S+s, (lc,c) (lc+1)*C+c, (lb,b) (lb+1)*B+b;
* 4-ary, nine blocks: last pairs (ls,lc), (ls,lb), (lc,lb), each crossed with current pairs (s,c),
  (s,b), (c,b); inside a block (lu+1)*(V+1)*Y*Z + (lv+1)*Y*Z + y*Z + z.

An occupied cell's action has 18 ones. An empty cell's action has, as the authors' code
(``RuleOneStepUnaryBinaryWithoutIndex``) builds it, only its bucket unary (``empty_cells="coded"``);
the formulas printed in appendix A.1.1 also switch on its (last bucket, bucket) binary, the one
feature that reads nothing of the cell (``empty_cells="printed"``). Shape and color ids follow the authors'
engine (STAR 0, SQUARE 1, TRIANGLE 2, CIRCLE 3; RED 0, BLUE 1, BLACK 2, YELLOW 3); other names take
the next ids in the order the board params list them. The authors' (ls,lc) x (s,b) block indexes
with s*S+b where s*B+b was meant; the two agree for 4 shapes, and this module uses s*B+b.

Because phi depends on the state only through (last move, piece in the cell), the map is also given
in factored form: `keys` turns observations into a last-move key and a piece type per cell, and
`index_table[last, type, bucket]` holds the (padded) indices of the ones.

The map builds on the SARSA plugin's contract (`zoo_sarsa.feature_maps`): it is a per-action
`FeatureMap`, registered (`FEATURE_ENTRY`) as the feature map ``gohr-paper`` that the ``sarsa`` agent
learns over. The linear DQN (``zoo_dqn``) builds it from this module and uses its factored form.
"""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np
from pydantic import Field
from zoo_sarsa.feature_maps import FeatureEntry

from zoo import Params

from ..engine.constants import ACTIONS, BUCKETS, CELLS, LEGACY_COLORS, LEGACY_SHAPES
from .layout import ObservationLayout

AUTHOR_SHAPES = ("STAR", "SQUARE", "TRIANGLE", "CIRCLE")
AUTHOR_COLORS = ("RED", "BLUE", "BLACK", "YELLOW")
ONES = 18  # ones of an occupied cell's action
EmptyCells = Literal["coded", "printed"]


def author_order(names, canonical) -> list[str]:
    """Names in the authors' id order: the canonical ones first, then the rest as given."""
    upper = [n.upper() for n in names]
    return [n for n in canonical if n in upper] + [n for n in upper if n not in canonical]


class GohrPaperFeatures:
    """phi(S, A) of the GOHR paper for given shape and color sets (a per-action `FeatureMap`)."""

    per_action = True

    def __init__(self, shapes=LEGACY_SHAPES, colors=LEGACY_COLORS, empty_cells: EmptyCells = "coded"):
        self.shapes = author_order(shapes, AUTHOR_SHAPES)
        self.colors = author_order(colors, AUTHOR_COLORS)
        self.layout = ObservationLayout(tuple(shapes), tuple(colors))
        self.empty_cells = empty_cells
        S, C, B = len(self.shapes), len(self.colors), BUCKETS
        self.n_types = S * C  # piece type s*C+c; n_types means "empty cell"
        self.n_last = (S + 1) * (C + 1) * (B + 1)
        self.blocks = self._blocks(S, C, B)
        self.size = self.blocks[-1][0] + self.blocks[-1][1]
        self.pad = self.size  # the padding index of empty cells' rows (an always-zero weight)
        self.index_table = self._table(S, C, B)
        # observation slot -> feature id
        self._shape_id = np.array([self.shapes.index(s.upper()) for s in shapes])
        self._color_id = np.array([self.colors.index(c.upper()) for c in colors])

    @staticmethod
    def _blocks(S, C, B) -> list[tuple[int, int]]:
        """(offset, size) of the 18 blocks, in layout order."""
        sizes = [S, C, B, S * C, S * B, C * B, (S + 1) * S, (C + 1) * C, (B + 1) * B]
        for lu, lv in ((S, C), (S, B), (C, B)):
            sizes += [(lu + 1) * (lv + 1) * yz for yz in (S * C, S * B, C * B)]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        return [(int(o), int(n)) for o, n in zip(offsets, sizes)]

    def last_key(self, ls: int, lc: int, lb: int) -> int:
        """Key of the last accepted move (-1 for none in each part)."""
        return ((ls + 1) * (len(self.colors) + 1) + (lc + 1)) * (BUCKETS + 1) + (lb + 1)

    def indices(self, s: int, c: int, b: int, ls: int, lc: int, lb: int) -> list[int]:
        """The 18 ones of the action moving a (s, c) piece to bucket b after last move (ls, lc, lb)."""
        S, C, B = len(self.shapes), len(self.colors), BUCKETS
        local = [s, c, b, s * C + c, s * B + b, c * B + b, (ls + 1) * S + s, (lc + 1) * C + c, (lb + 1) * B + b]
        for (lu, lv, V) in ((ls, lc, C), (ls, lb, B), (lc, lb, B)):
            for (y, z, YZ, Z) in ((s, c, S * C, C), (s, b, S * B, B), (c, b, C * B, B)):
                local.append((lu + 1) * (V + 1) * YZ + (lv + 1) * YZ + y * Z + z)
        return [offset + i for (offset, _), i in zip(self.blocks, local)]

    def _table(self, S, C, B) -> np.ndarray:
        table = np.full((self.n_last, self.n_types + 1, B, ONES), self.pad, np.int32)
        for ls, lc, lb in itertools.product(range(-1, S), range(-1, C), range(-1, B)):
            key = self.last_key(ls, lc, lb)
            for s, c, b in itertools.product(range(S), range(C), range(B)):
                table[key, s * C + c, b] = self.indices(s, c, b, ls, lc, lb)
            table[key, self.n_types, :, 0] = [self.blocks[2][0] + b for b in range(B)]
            if self.empty_cells == "printed":
                table[key, self.n_types, :, 1] = [self.blocks[8][0] + (lb + 1) * B + b for b in range(B)]
        return table

    def keys(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(piece type per cell (N, 36), last-move key (N,)) of GOHR observations (N, obs size).

        A cell whose shape or color is outside the sets counts as empty.
        """
        obs = np.atleast_2d(obs)
        lay, S, C = self.layout, len(self.shapes), len(self.colors)
        cells = obs[:, :lay.last].reshape(len(obs), CELLS, S + C) > 0.5
        has = cells[..., :S].any(-1) & cells[..., S:].any(-1)
        s = self._shape_id[cells[..., :S].argmax(-1)]
        c = self._color_id[cells[..., S:].argmax(-1)]
        types = np.where(has, s * C + c, self.n_types)
        last = self.last_key(*(self._part(obs, start, n, ids) for start, n, ids in (
            (lay.last_shape, S, self._shape_id), (lay.last_color, C, self._color_id),
            (lay.last, BUCKETS, np.arange(BUCKETS)))))
        return types, last

    @staticmethod
    def _part(obs, start, n, ids) -> np.ndarray:
        block = obs[:, start:start + n] > 0.5
        return np.where(block.any(-1), ids[block.argmax(-1)], -1)

    def action_indices(self, types: np.ndarray, last: np.ndarray) -> np.ndarray:
        """(N, 144, 18) padded indices of the ones of every action, from `keys`."""
        return self.index_table[last[:, None], types].reshape(len(last), ACTIONS, ONES)

    def active(self, env) -> list[np.ndarray]:
        """The ones of phi(S, A) for each of the 144 actions of a GohrEnv's current state."""
        types, last = self.keys(env.unwrapped.observation())
        return [row[row != self.pad] for row in self.action_indices(types, last)[0]]

    def dense(self, env) -> np.ndarray:
        """phi as a dense (144, size) 0/1 matrix (for tests and small uses)."""
        phi = np.zeros((ACTIONS, self.size + 1), np.uint8)
        types, last = self.keys(env.unwrapped.observation())
        np.put_along_axis(phi, self.action_indices(types, last)[0], 1, axis=1)
        return phi[:, :self.size]


class GohrFeatureParams(Params):
    """Shape and color sets of the map (the dimension follows from their sizes)."""

    shapes: list[str] = Field(default_factory=lambda: list(LEGACY_SHAPES), min_length=1,
                              description="the shapes of the boards (S); ignored when the map is built for an env, "
                              "whose board shapes it takes")
    colors: list[str] = Field(default_factory=lambda: list(LEGACY_COLORS), min_length=1,
                              description="the colors of the boards (C); ignored when the map is built for an env, "
                              "whose board colors it takes")
    empty_cells: EmptyCells = Field(default="coded", description=(
        "an empty cell's action: its bucket unary only, as the authors coded it, or also its "
        "(last bucket, bucket) binary, as appendix A.1.1 prints it"))


def make_features(params: GohrFeatureParams, env=None) -> GohrPaperFeatures:
    """The paper's map for the env's board sets (from `env` when given, else from `params`)."""
    layout_env = getattr(env, "unwrapped", env)
    if layout_env is not None and hasattr(layout_env, "layout"):
        return GohrPaperFeatures(tuple(layout_env.layout.shapes), tuple(layout_env.layout.colors), params.empty_cells)
    return GohrPaperFeatures(tuple(params.shapes), tuple(params.colors), params.empty_cells)


FEATURE_ENTRY = FeatureEntry(
    name="gohr-paper", params=GohrFeatureParams, factory=make_features,
    description="the GOHR paper's 3720 Boolean features phi(S, A) (A.1.1), per action",
)
