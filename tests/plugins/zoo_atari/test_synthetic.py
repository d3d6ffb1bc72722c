"""SyntheticAtari (docs/atari.md): ALE-like screens, RAM, rewards, clone/restore, through the registry."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from zoo_atari.synthetic import horizontal

from zoo.registry import get_registry


def make(game: str, seed: int | None = 0, **params):
    entry = get_registry().get("env", "synthetic-atari")
    return entry.factory(entry.params.model_validate({"game": game, **params}), seed)


def play(env, actions) -> tuple[list[float], bool, bool]:
    rewards, terminated, truncated = [], False, False
    for action in actions:
        _, reward, terminated, truncated, _ = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    return rewards, terminated, truncated


@pytest.mark.parametrize("game", ["catch", "corridor-with-trap"])
def test_screens_ram_and_actions_are_ale_like(game):
    env = make(game)
    obs, _ = env.reset(seed=1)
    ale = env.unwrapped.ale
    assert obs.shape == (210, 160) and obs.dtype == np.uint8 and np.array_equal(obs, ale.getScreen())
    assert not (obs % 2).any() and len(np.unique(obs)) >= 3
    assert ale.getRAM().shape == (128,) and len(ale.getLegalActionSet()) == 18 == env.action_space.n
    assert make(game, full_action_space=False).action_space.n == 3
    assert [horizontal(a) for a in range(18)] == [0, 0, 0, 1, -1, 0, 1, -1, 1, -1, 0, 1, -1, 0, 1, -1, 1, -1]


def test_catch_pays_one_when_the_paddle_is_under_the_ball():
    env = make("catch")
    caught = missed = 0
    for seed in range(12):
        env.reset(seed=seed)
        ball, paddle = env.unwrapped.ale.getRAM()[1:3]
        toward = 3 if ball > paddle else 4 if ball < paddle else 0  # RIGHT, LEFT, NOOP
        moves = [toward] * abs(int(ball) - int(paddle)) + [0] * 20
        rewards, terminated, _ = play(env, moves)
        assert terminated and len(rewards) == 9 and rewards == [0] * 8 + [1]
        env.reset(seed=seed)
        rewards, terminated, _ = play(env, [0] * 20)  # standing still catches only balls of the middle column
        assert terminated and rewards[-1] == (1 if ball == 2 else -1)
        caught, missed = caught + (ball == 2), missed + (ball != 2)
    assert caught and missed


def test_corridor_greedy_coin_springs_the_trap_and_the_exit_pays_later():
    env = make("corridor-with-trap")
    env.reset()
    rewards, terminated, _ = play(env, [3] * 40)  # RIGHT: the coin 3 cells away
    assert terminated and rewards[2] == 1 and rewards[2 + 8] == -10 and sum(rewards) == -9 and len(rewards) == 11
    env.reset()
    rewards, terminated, _ = play(env, [4] * 40)  # LEFT: the exit 8 cells away, paid 8 frames later
    assert terminated and rewards == [0] * 15 + [5]


def test_frame_skip_sums_rewards_and_the_cap_truncates():
    env = make("corridor-with-trap", frame_skip=4)
    env.reset()
    rewards, terminated, _ = play(env, [3] * 10)
    assert rewards == [1, 0, -10] and terminated  # frames 3 (coin) and 11 (trap), the game over mid-decision
    capped = make("catch", max_episode_frames=5)
    rewards, terminated, truncated = play(capped, [0] * 20)
    assert truncated and not terminated and len(rewards) == 5


@pytest.mark.parametrize("game", ["catch", "corridor-with-trap"])
def test_restore_then_replay_gives_identical_screens_ram_and_rewards(game):
    env = make(game, seed=5)
    ale, rng = env.unwrapped.ale, np.random.default_rng(0)
    for action in rng.integers(18, size=3):
        ale.act(action)
    state = ale.cloneState()
    actions = rng.integers(18, size=40)

    def replay():
        record = []
        for action in actions:
            reward = ale.act(action)
            record.append((ale.getScreen(), ale.getRAM(), reward, ale.game_over()))
            if ale.game_over():
                ale.reset_game()  # draws the next ball from the restored random stream
        return record

    first = replay()
    ale.restoreState(state)
    second = replay()
    assert len(first) == len(second) == 40
    for (s1, r1, w1, o1), (s2, r2, w2, o2) in zip(first, second):
        assert np.array_equal(s1, s2) and np.array_equal(r1, r2) and w1 == w2 and o1 == o2


def ball_columns(env, seed: int, resets: int) -> list[int]:
    env.reset(seed=seed)
    columns = [int(env.unwrapped.ale.getRAM()[1])]
    for _ in range(resets):
        env.reset()
        columns.append(int(env.unwrapped.ale.getRAM()[1]))
    return columns


def test_seeded_resets_repeat_and_unseeded_resets_go_on():
    env = make("catch")
    first = ball_columns(env, 11, 30)
    assert first == ball_columns(env, 11, 30) and len(set(first)) == 5


def test_sarsa_trains_on_synthetic_atari_without_ale_py(tmp_path):
    # a process where importing ale_py fails: the env, the features and the agent must not need it
    script = """
import sys
sys.modules["ale_py"] = None
from types import SimpleNamespace
from zoo.registry import get_registry
from zoo_sarsa.agent import SarsaAgent, SarsaParams
entry = get_registry().get("env", "synthetic-atari")
params = entry.params.model_validate({"game": "corridor-with-trap"})
context = SimpleNamespace(seed=0, make_env=lambda seed: entry.factory(params, seed),
                          logger=SimpleNamespace(log=lambda *a, **k: None))
agent = SarsaAgent(SarsaParams.model_validate({"features": {"type": "bass", "background_frames": 200}}), context)
agent.learn_episodes(3)
print(agent.steps)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) >= 3 * 11
