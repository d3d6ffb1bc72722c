"""The GOHR gymnasium env: the checker, hand-computed observations, and golden episodes replayed as actions."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from shared_data import GOLDEN, require_shared
from zoo_gohr.engine.board import Board, Piece
from zoo_gohr.engine.constants import ACTIONS
from zoo_gohr.plugin import make_env
from zoo_gohr.vector.layout import ObservationLayout, decode_action, encode_action

from zoo.registry import get_registry
from zoo.spec import load_spec_text


def env_for(rule: str, **board):
    spec = load_spec_text(
        f"env: {{type: gohr, rule: {rule}, board: {json.dumps(board)}}}\nagent: {{type: ppo}}\nbudget: {{steps: 1}}\n",
        get_registry(),
    )
    return make_env(spec.env, None)


def test_passes_the_gymnasium_checker():
    env = env_for("paper/clockwise")
    check_env(env, skip_render_check=True)
    assert env.action_space.n == ACTIONS == 144


def test_actions_round_trip():
    assert [decode_action(encode_action(pos, b)) for pos in (1, 36) for b in (0, 3)] == [(1, 0), (1, 3), (36, 0), (36, 3)]
    assert encode_action(1, 0) == 0 and encode_action(36, 3) == 143


def test_observation_by_hand():
    env = env_for("paper/b3_then_b1")
    layout = ObservationLayout(("SQUARE", "STAR", "CIRCLE", "TRIANGLE"), ("RED", "BLACK", "BLUE", "YELLOW"))
    assert layout.size == 36 * 8 + (4 + 4 + 4 + 36) + 16 + 16 == env.observation_space.shape[0] == 368
    board = Board([Piece(0, 1, 1, "STAR", "BLUE"), Piece(1, 6, 6, "CIRCLE", "RED")])
    obs, info = env.reset(seed=0, options={"board": board})
    # cell 1: STAR is shape 1, BLUE is color 2 -> bits 1 and 4 + 2; cell 36 starts at 35 * 8
    assert np.flatnonzero(obs).tolist() == [1, 6, 35 * 8 + 2, 35 * 8 + 4 + 0]
    assert np.flatnonzero(info["action_mask"]).tolist() == [0, 1, 2, 3, 140, 141, 142, 143]
    obs, reward, terminated, truncated, info = env.step(encode_action(1, 0))
    assert (reward, info["code_name"], terminated) == (-1.0, "DENY", False)
    obs, reward, terminated, truncated, info = env.step(encode_action(1, 3))
    assert (reward, info["code_name"], info["accepted"]) == (0.0, "ACCEPT", True)
    last = 288
    expected = [35 * 8 + 2, 35 * 8 + 4,          # the circle left on cell 36
                last + 3, last + 4 + 1, last + 8 + 2, last + 12 + 0,   # last move: bucket 3, STAR, BLUE, cell 1
                last + 48 + 1 * 4 + 3,           # STAR last went to bucket 3 (ps)
                last + 48 + 16 + 2 * 4 + 3]      # BLUE last went to bucket 3 (pc)
    assert np.flatnonzero(obs).tolist() == sorted(expected)
    assert not env.action_masks()[:4].any() and env.action_masks()[140:].all()
    obs, reward, terminated, truncated, info = env.step(encode_action(1, 1))
    assert (reward, info["code_name"]) == (-1.0, "EMPTY_CELL")
    obs, reward, terminated, truncated, info = env.step(encode_action(36, 1))
    assert (reward, terminated, info["finish"]) == (0.0, True, 1)


def test_truncates_at_the_horizon():
    spec = load_spec_text("env: {type: gohr, rule: paper/b3_then_b1, horizon: 5}\nagent: {type: ppo}\nbudget: {steps: 1}\n",
                          get_registry())
    env = make_env(spec.env, 1)
    flags = [env.step(encode_action(1, 0))[2:4] for _ in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]


@pytest.mark.parametrize("golden", ["CGS__1_sm", "CGS__4_cw", "MLC__BMK__position_A", "pk__history_A", "vm__gs5-example06"])
def test_golden_episodes_replayed_through_the_env(golden):
    """Seed 1 gives the server's boards; every step's reward, code and end agree with the real engine."""
    require_shared()
    lines = [json.loads(line) for line in gzip.open(GOLDEN / f"{golden}.jsonl.gz", "rt")]
    rule = "gohr/" + lines[0]["rules"].removeprefix("rules/").removesuffix(".txt")
    env = env_for(rule, min_objects=9, min_shapes=4, min_colors=4)
    for index, episode in enumerate(lines):
        obs, info = env.reset(seed=1) if index == 0 else env.reset()
        at = {piece["id"]: piece["pos"] for piece in episode["initial"]["board"]}
        assert sorted(at.values()) == sorted((np.flatnonzero(obs[:288].reshape(36, 8).any(axis=1)) + 1).tolist())
        for step in episode["steps"]:
            pos = at[step["move"]["id"]]
            obs, reward, terminated, truncated, info = env.step(encode_action(pos, step["move"]["bucket"]))
            assert info["code"] == step["code"] and reward == (0.0 if step["accepted"] else -1.0)
            assert terminated == (step["finish"] != 0)
            if step["accepted"]:
                del at[step["move"]["id"]]
        assert truncated == (episode["final_finish"] == 0 and len(episode["steps"]) == 100)


def test_spec_errors_name_the_rule_problem(tmp_path):
    from zoo.errors import SpecError

    registry = get_registry()
    with pytest.raises(SpecError, match=r"env.rule: no rule 'paper/clockwize' in rule set 'paper' \(did you mean 'paper/clockwise'\?\)"):
        load_spec_text("env: {type: gohr, rule: paper/clockwize}\nagent: {type: ppo}\nbudget: {steps: 1}\n", registry, "s.yaml")
    bad = tmp_path / "bad.txt"
    bad.write_text("(*, star, *, *, 0)\n(*, *, *, *, [0,1\n")
    with pytest.raises(SpecError, match=rf"env.rule: rule file error: {bad}:2:"):
        load_spec_text(f"env: {{type: gohr, rule: {bad}}}\nagent: {{type: ppo}}\nbudget: {{steps: 1}}\n", registry, "s.yaml")
    with pytest.raises(SpecError, match="max_objects .3. is below min_objects .9."):
        load_spec_text("env: {type: gohr, rule: paper/clockwise, board: {max_objects: 3}}\nagent: {type: ppo}\nbudget: {steps: 1}\n",
                       registry, "s.yaml")


@pytest.mark.parametrize("agent", ["ppo, n_steps: 128", "dqn, buffer_size: 2000"])
def test_sb3_trains_on_it_unchanged(agent, tmp_path):
    from zoo.cli import main
    from zoo.metrics import read_metrics

    spec = tmp_path / "gohr.yaml"
    spec.write_text(f"env: {{type: gohr, rule: paper/clockwise, horizon: 50}}\nagent: {{type: {agent}, n_envs: 2}}\n"
                    "budget: {steps: 600}\nlogging: {tensorboard: false}\n")
    assert main(["train", str(spec), "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 0
    returns = [row["episode_return"] for row in read_metrics(tmp_path / "run/trials/000/metrics.jsonl") if "episode_return" in row]
    assert len(returns) >= 10 and all(-50 <= r <= 0 for r in returns)


def _play(env, actions: np.random.Generator, steps: int) -> list:
    """What `env` returns over `steps` legal moves drawn from `actions`, resetting (unseeded) at each episode's end."""
    seen = []
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(int(actions.choice(np.flatnonzero(env.action_masks()))))
        seen.append((obs.tolist(), reward, terminated, truncated))
        if terminated or truncated:
            seen.append(env.reset()[0].tolist())
    return seen


@pytest.mark.parametrize("source", ["random", "predefined"])
def test_get_state_brings_a_fresh_env_to_the_same_point(source, tmp_path):
    """Mid-episode, two boards into an unseeded stream: a fresh env given the state (through JSON) plays on exactly
    as the original, over later boards too (they come from the board source, which the state carries)."""
    board = {"min_objects": 4, "max_objects": 9}  # boards of different sizes: episodes end at different moves
    if source == "predefined":  # five boards of two to six pieces on the first row, shuffled anew each pass
        for n in range(2, 7):
            pieces = [{"id": i, "x": i + 1, "y": 1, "shape": "STAR", "color": "RED"} for i in range(n)]
            (tmp_path / f"{n}.json").write_text(json.dumps({"id": n, "name": f"row of {n}", "value": pieces}))
        board = {"predefined": str(tmp_path)}
    spec = load_spec_text(f"env: {{type: gohr, rule: paper/color_match, horizon: 20, board: {json.dumps(board)}}}\n"
                          "agent: {type: ppo}\nbudget: {steps: 1}\n", get_registry())
    original = make_env(spec.env, 4)
    _play(original, np.random.default_rng(0), 75)  # episodes of at most 20 moves: in the middle of the fourth or later
    state = json.loads(json.dumps(original.get_state()))
    restored = make_env(spec.env, None)
    restored.set_state(state)
    assert restored.action_masks().tolist() == original.action_masks().tolist()
    assert _play(restored, np.random.default_rng(1), 120) == _play(original, np.random.default_rng(1), 120)
