"""The minatar env: channels-first 0/1 frames, seeded games, action sets, the episode cap, specs."""

import json

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text


def make(seed=0, **params):
    entry = get_registry().get("env", "minatar")
    return entry.factory(entry.params(**params), seed)


def play(env, seed, steps=300, through=True):
    """Observations and rewards of a fixed action sequence from reset(seed) (None: an unseeded reset),
    through episode ends or (`through` false) up to the first."""
    obs, _ = env.reset(seed=seed)
    frames, rewards = [obs], []
    for t in range(steps):
        obs, reward, terminated, truncated, _ = env.step(t % env.action_space.n)
        frames.append(obs)
        rewards.append(reward)
        if (terminated or truncated) and not through:
            break
        if terminated or truncated:
            obs, _ = env.reset()
            frames.append(obs)
    return np.stack(frames), np.array(rewards)


@pytest.mark.parametrize("game,channels,minimal", [("breakout", 4, 3), ("space_invaders", 6, 4), ("asterix", 4, 5)])
def test_frames_are_channels_first_zeros_and_ones(game, channels, minimal):
    env = make(game=game)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (channels, 10, 10) and obs.dtype == np.float32
    assert set(np.unique(obs)) <= {0.0, 1.0} and obs.sum() > 0
    assert env.action_space.n == minimal and make(game=game, minimal_actions=False).action_space.n == 6
    check_env(env, skip_render_check=True)


def test_a_seed_fixes_the_game_and_sticky_actions_make_seeds_differ():
    env = make(game="breakout")
    first, rewards = play(env, seed=3)
    again, rewards_again = play(env, seed=3)
    assert np.array_equal(first, again) and np.array_equal(rewards, rewards_again)
    other, _ = play(env, seed=4)
    assert not np.array_equal(first[:100], other[:100])


def test_without_sticky_actions_the_minimal_set_maps_to_the_game_actions():
    """Breakout's minimal set is (no-op, left, right): 'left' moves the paddle (bottom row) left by one."""
    env = make(game="breakout", sticky_action_prob=0.0)
    obs, _ = env.reset(seed=0)
    paddle = int(np.flatnonzero(obs[0, 9])[0])
    obs, *_ = env.step(1)
    assert int(np.flatnonzero(obs[0, 9])[0]) == max(0, paddle - 1)
    obs, *_ = env.step(2)
    assert int(np.flatnonzero(obs[0, 9])[0]) == paddle


def test_long_episodes_are_truncated_at_the_cap():
    env = make(game="freeway", max_episode_steps=25)
    env.reset(seed=0)
    ends = [env.step(0)[2:4] for _ in range(25)]
    assert ends[-1] == (False, True) and not any(any(e) for e in ends[:-1])


def test_an_unknown_game_names_the_valid_ones():
    with pytest.raises(SpecError, match="space_invaders"):
        load_spec_text("env: {type: minatar, game: pong}\nagent: {type: ppo}\n", get_registry())


def test_the_state_before_an_unseeded_reset_replays_the_episode_exactly():
    """The game's own random state (spawns, sticky actions) travels in get_state: restored into a fresh
    env, the next unseeded episode is the same frame for frame (how SB3 agents resume mid-episode)."""
    env = make(game="space_invaders")
    play(env, seed=7, steps=150)  # well into the seeded stream
    state = json.loads(json.dumps(env.get_state()))
    first, rewards = play(env, None, 120, through=False)

    fresh = make(game="space_invaders")
    fresh.reset(seed=99)  # a different stream, which set_state must replace
    fresh.set_state(state)
    again, rewards_again = play(fresh, None, 120, through=False)
    assert np.array_equal(first, again) and np.array_equal(rewards, rewards_again)



def test_the_action_a_sticky_step_repeats_travels_in_the_state():
    """With sticky actions the first step of an episode may repeat the last action of the one before."""
    env = make(game="breakout", sticky_action_prob=0.9)
    play(env, seed=5, steps=40)
    env.step(2)  # the action a sticky first step would repeat
    state = env.get_state()
    first, _ = play(env, None, 30, through=False)

    fresh = make(game="breakout", sticky_action_prob=0.9)
    fresh.reset(seed=6)
    fresh.step(1)  # another last action, which set_state must replace
    fresh.set_state(state)
    again, _ = play(fresh, None, 30, through=False)
    assert np.array_equal(first, again)
