"""The gymnasium ids registered by importing zoo_gohr (issue 16, item 1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import zoo_gohr  # noqa: F401  (registers the ids)
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from zoo_gohr.registration import GENERIC, env_name, named_rules
from zoo_gohr.vector.vector_env import GohrVectorEnv

REPO = Path(__file__).resolve().parents[3]
NAMED = sorted(named_rules())


def _fresh_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


def test_make_and_make_vec_in_a_fresh_interpreter():
    result = _fresh_python(
        "import gymnasium\n"
        "env = gymnasium.make('zoo_gohr:GOHR/Clockwise-v0')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(type(env.unwrapped).__name__, obs.shape, int(info['action_mask'].sum()))\n"
        "vec = gymnasium.make_vec('zoo_gohr:GOHR/Clockwise-v0', 3, vectorization_mode='vector_entry_point')\n"
        "print(type(vec).__name__, vec.reset(seed=1)[0].shape)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["GohrEnv (368,) 36", "GohrVectorEnv (3, 368)"]


def test_one_id_per_paper_and_benchmark_rule():
    rules = set(named_rules().values())
    assert {"paper/clockwise", "paper/color_match", "paper/b3_then_b1", "paper/b23_then_b01"} <= rules
    benchmark = {f"gohr/MLC/BMK/{p.stem}" for p in (REPO / "rules/gohr/rules/MLC/BMK").glob("*.txt")}
    assert len(benchmark) == 15 and benchmark <= rules
    assert len(rules) == 19
    assert named_rules()["GOHR/ColorMatch-v0"] == "paper/color_match"
    assert named_rules()["GOHR/CounterClockwise-v0"] == "gohr/MLC/BMK/counterClockwise"
    assert env_name("colOrd_RBYK") == "ColOrdRBYK" and env_name("b23_then_b01") == "B23ThenB01"
    for env_id, rule in named_rules().items():
        assert gymnasium.spec(env_id).kwargs == {"rule": rule}


@pytest.mark.parametrize("env_id", NAMED)
def test_env_checkers_pass(env_id):
    env = gymnasium.make(env_id)
    assert Path(env.unwrapped.rules.source).stem == named_rules()[env_id].rsplit("/", 1)[1]
    # gymnasium's checker would also open a 'human' window; the rendering tests check the other modes
    check_env(gymnasium.make(env_id).unwrapped, skip_render_check=True)
    sb3_check_env(gymnasium.make(env_id).unwrapped)


@pytest.mark.parametrize("env_id", ["GOHR/Clockwise-v0", "GOHR/Nearby1-v0"])
def test_vector_entry_point_plays_as_the_single_env(env_id):
    """Sub-env i of the vector form is the single env reset with seed + i: same observations and rewards."""
    vec = gymnasium.make_vec(env_id, 2, vectorization_mode="vector_entry_point")
    singles = [gymnasium.make(env_id).unwrapped for _ in range(2)]
    assert isinstance(vec, GohrVectorEnv)
    obs, info = vec.reset(seed=5)
    firsts = [env.reset(seed=5 + i) for i, env in enumerate(singles)]
    np.testing.assert_array_equal(obs, np.stack([o for o, _ in firsts]))
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]])
        obs, rewards, terminated, truncated, info = vec.step(actions)
        steps = [env.step(a) for env, a in zip(singles, actions)]
        np.testing.assert_array_equal(obs, np.stack([s[0] for s in steps]))
        np.testing.assert_array_equal(rewards, [s[1] for s in steps])
        if terminated.any() or truncated.any():
            break


def test_generic_id_takes_rule_board_and_horizon():
    env = gymnasium.make(GENERIC, rule="paper/color_match", min_objects=5, horizon=3)
    obs, info = env.reset(seed=0)
    assert info["action_mask"].sum() == 5 * 4
    assert Path(env.unwrapped.rules.source).name == "color_match.txt"
    truncated = False
    for _ in range(3):
        *_, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert truncated or terminated
    nested = gymnasium.make(GENERIC, rule="paper/color_match", board={"min_objects": 7})
    assert nested.reset(seed=0)[1]["action_mask"].sum() == 7 * 4
    vec = gymnasium.make_vec(GENERIC, 2, vectorization_mode="vector_entry_point", rule="paper/clockwise",
                             min_objects=4, horizon=9)
    assert vec.horizon == 9 and vec.reset(seed=0)[1]["action_mask"].sum() == 2 * 4 * 4


@pytest.mark.parametrize("kwargs, message", [
    ({}, "needs rule="),
    ({"rule": "paper/nope"}, "no rule 'paper/nope'"),
    ({"rule": "paper/clockwise", "min_objects": 40}, "board.min_objects"),
    ({"rule": "paper/clockwise", "horizon": 0}, "horizon"),
    ({"rule": "paper/clockwise", "pieces": 3}, "board.pieces"),
])
def test_generic_id_rejects_bad_kwargs_with_one_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gymnasium.make(GENERIC, **kwargs)


def test_vector_forms_and_rendering():
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        gymnasium.make_vec("GOHR/Clockwise-v0", 2, vectorization_mode="vector_entry_point", render_mode="rgb_array")
    synced = gymnasium.make_vec("GOHR/Clockwise-v0", 2, vectorization_mode="sync", render_mode="rgb_array")
    synced.reset(seed=0)
    assert [frame.shape for frame in synced.render()] == [(480, 480, 3)] * 2


@pytest.mark.slow  # a third-party PPO script trains in a subprocess
def test_unchanged_third_party_script_trains_on_gohr():
    script = Path(__file__).with_name("third_party_ppo.py")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, str(script), "zoo_gohr:GOHR/ColorMatch-v0", "256"], capture_output=True,
                            text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    words = result.stdout.split()
    assert words[:3] == ["GOHR/ColorMatch-v0", "256", "steps,"] and int(words[3]) >= 1
