"""GohrVectorEnv beside SyncVectorEnv over GohrEnv: pairs of envs, the actions that exercise them and
the step-by-step comparison (the GOHR vector tests share them)."""

from functools import partial

import numpy as np
import pytest
from gymnasium.vector import SyncVectorEnv
from zoo_gohr import RuleRuntimeError
from zoo_gohr.board_sources import random_boards
from zoo_gohr.engine.constants import LEGACY_COLORS, LEGACY_SHAPES
from zoo_gohr.env import GohrEnv
from zoo_gohr.vector.cell_states import EMPTY
from zoo_gohr.vector.vector_env import GohrVectorEnv

N = 6
SC = {"shapes": LEGACY_SHAPES, "colors": LEGACY_COLORS}
BOARDS = {  # random board parameters
    "paper": {"min_objects": 9, "max_objects": 9, "min_shapes": 4, "max_shapes": 4, "min_colors": 4, "max_colors": 4},
    "ranges": {"min_objects": 2, "max_objects": 14, "min_shapes": 0, "max_shapes": 2, "min_colors": 1, "max_colors": 1},
}


def pair(rules, boards, horizon, n=N, sc=SC):
    """A GohrVectorEnv and a SyncVectorEnv of GohrEnvs with the same arguments."""
    return (GohrVectorEnv(rules, boards, n, horizon=horizon, **sc),
            SyncVectorEnv([partial(GohrEnv, rules, boards, horizon=horizon, **sc)] * n))


def random_boards_of(name, sc=SC):
    """The board source of ``BOARDS[name]``."""
    return partial(random_boards, **BOARDS[name], **sc)


def actions(rng, mask, state):
    """A third uniform over all 144 actions, a third over the occupied cells, a third over the
    moves the vector env's cell states say are accepted (so lines change and boards get cleared)."""
    actions = rng.integers(0, 144, len(mask))
    for i, row in enumerate(mask):
        u = rng.random()
        accepted = [4 * cell + b for cell in np.flatnonzero(state[i] < EMPTY) for b in range(4) if state[i, cell] >> b & 1]
        if u < 1 / 3 and accepted:
            actions[i] = rng.choice(accepted)
        elif u < 2 / 3 and row.any():
            actions[i] = rng.choice(np.flatnonzero(row))
    return actions


def _both(vec_call, ref_call):
    """Call both; a rule error must come from both (and is raised on)."""
    try:
        out = vec_call()
    except RuleRuntimeError:
        with pytest.raises(RuleRuntimeError):
            ref_call()
        raise
    return out, ref_call()


def assert_equivalent(vec, ref, steps, seed=7):
    """Reset both with ``seed``, step them ``steps`` times with the same actions and compare all they
    return (a rule error must come at the same step from both); the set of codes seen."""
    rng = np.random.default_rng(seed)
    (obs, info), (ref_obs, ref_info) = _both(partial(vec.reset, seed=seed), partial(ref.reset, seed=seed))
    np.testing.assert_array_equal(obs, ref_obs)
    np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
    seen = set()
    for _ in range(steps):
        chosen = actions(rng, info["action_mask"], vec.engine.state)
        (obs, rew, term, trunc, info), (ref_obs, ref_rew, ref_term, ref_trunc, ref_info) = _both(
            partial(vec.step, chosen), partial(ref.step, chosen))
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(rew, ref_rew)
        np.testing.assert_array_equal(term, ref_term)
        np.testing.assert_array_equal(trunc, ref_trunc)
        stepped = info["_code"]
        np.testing.assert_array_equal(stepped, ref_info.get("_code", np.zeros(vec.num_envs, bool)))  # absent: all reset
        if stepped.any():
            np.testing.assert_array_equal(info["code"][stepped], ref_info["code"][stepped])
            np.testing.assert_array_equal(info["accepted"][stepped], ref_info["accepted"][stepped])
        np.testing.assert_array_equal(info["finish"], ref_info["finish"])
        np.testing.assert_array_equal(info["action_mask"], ref_info["action_mask"])
        seen.update(info["code"].tolist())
    return seen
