"""Each protocol's behaviour on the real emulator, and spec validation of the atari env block."""

from __future__ import annotations

import numpy as np
import pytest
from ale_py import ALEInterface, roms
from zoo_atari.env import make_atari_env
from zoo_atari.protocols import PRESETS, Protocol

from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text

SPEC = """
env: {{type: atari, game: {game}, protocol: {protocol}}}
agent: {{type: ale-baseline}}
budget: {{episodes: 1}}
"""


def protocol(name: str, **overrides) -> Protocol:
    return Protocol.model_validate({"name": name, **overrides})


#: Each protocol's settings as its paper states them, written out here (not read from PRESETS), so
#: that a changed preset fails this test: frame skip, max over the last two frames, sticky-action
#: chance, no-op starts, life loss as terminal, reward clipping, episode cap in frames, full action set.
PAPERS = {
    # Bellemare et al. 2013: an action every 5 frames, episodes of up to 5 minutes (18,000 frames), and
    # none of its results use the minimal action set.
    "ale2013": (5, False, 0.0, 0, False, False, 18_000, True, None, 1),
    # Mnih et al. 2015, Methods and Extended Data Table 1: frame skip 4 with max-pooling, up to 30
    # no-ops, life loss ends training episodes, clipped rewards, 84x84 frames stacked 4, minimal actions.
    "dqn2015": (4, True, 0.0, 30, True, True, 18_000, False, 84, 4),
    # Machado et al. 2018: sticky actions with probability 0.25, the full action set, game over as the
    # only end (no life signal), no no-op starts; frame skip 5 as in their baselines.
    "machado2018": (5, True, 0.25, 0, False, True, 18_000, True, 84, 4),
    # GDI Appendix I.1 Table 5 / LBC Table 3: no sticky actions, 30 no-ops, full actions, no life
    # information, unclipped rewards, 30-minute (108,000-frame) episodes.
    "agent57": (4, True, 0.0, 30, False, False, 108_000, True, 84, 4),
}
SETTINGS = ("frame_skip", "max_pool", "sticky_actions", "noop_max", "life_loss_terminal", "reward_clip",
            "max_episode_frames", "full_action_space", "screen_size", "frame_stack")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_setting_is_the_papers_and_is_resolved_into_the_spec(name):
    spec = load_spec_text(SPEC.format(game="Pong", protocol=f"{{name: {name}}}"), get_registry())
    dumped = spec.model_dump(mode="json")["env"]
    assert dumped["game"] == "pong"
    assert dumped["protocol"] == {"name": name, "observation": "grayscale", **dict(zip(SETTINGS, PAPERS[name]))}


def test_every_preset_has_its_paper():
    assert sorted(PAPERS) == sorted(PRESETS)


def test_overrides_are_kept_and_listed():
    spec = load_spec_text(SPEC.format(game="breakout", protocol="{name: dqn2015, noop_max: 7}"), get_registry())
    assert spec.env.protocol.noop_max == 7 and spec.env.protocol.frame_skip == 4
    assert spec.env.protocol.overrides() == {"noop_max": 7}


@pytest.mark.parametrize("game, protocol_text, message", [
    ("Breakot", "{name: dqn2015}", "unknown Atari game 'Breakot' (did you mean 'Breakout'?)"),
    ("Pong", "{name: dqn2016}", "unknown protocol 'dqn2016' (did you mean 'dqn2015'?)"),
    ("Pong", "{name: dqn2015, sticky_actions: 1.5}", "sticky_actions"),
    ("Pong", "{name: dqn2015, frame_skipp: 3}", "frame_skipp"),
    ("Pong", "{frame_skip: 3}", "a protocol needs a 'name'"),
])
def test_bad_input_gives_one_clear_message(game, protocol_text, message):
    with pytest.raises(SpecError) as caught:
        load_spec_text(SPEC.format(game=game, protocol=protocol_text), get_registry())
    assert len(caught.value.problems) == 1
    assert message in str(caught.value)


def test_action_sets():
    assert make_atari_env("breakout", protocol("dqn2015")).action_space.n == 4
    for name in ("ale2013", "machado2018", "agent57"):
        assert make_atari_env("breakout", protocol(name)).action_space.n == 18


def test_ale2013_holds_each_decision_for_five_frames_and_caps_episodes():
    env = make_atari_env("breakout", protocol("ale2013", max_episode_frames=100), seed=0)
    frames = [env.unwrapped.ale.getEpisodeFrameNumber()]
    done, steps = False, 0
    while not done:
        _, _, terminated, truncated, _ = env.step(1)
        frames.append(env.unwrapped.ale.getEpisodeFrameNumber())
        steps, done = steps + 1, terminated or truncated
    assert np.all(np.diff(frames) == 5)
    assert truncated and steps == 20
    assert env.observation_space.shape == (1, 210, 160)


def test_dqn2015_noop_starts_vary_with_the_seed():
    env = make_atari_env("pong", protocol("dqn2015"), seed=0)
    starts = {env.reset()[0] is not None and env.unwrapped.ale.getEpisodeFrameNumber() for _ in range(10)}
    assert len(starts) > 3 and all(1 <= f <= 30 for f in starts)
    assert make_atari_env("pong", protocol("agent57", noop_max=0), seed=0).unwrapped.ale.getEpisodeFrameNumber() == 0


def test_dqn2015_clips_rewards_that_agent57_keeps():
    clipped = make_atari_env("space_invaders", protocol("dqn2015", noop_max=0, life_loss_terminal=False,
                                                         full_action_space=True), seed=1)
    raw = make_atari_env("space_invaders", protocol("agent57", noop_max=0, max_episode_frames=18_000), seed=1)
    rng = np.random.default_rng(0)
    pairs = []
    for _ in range(300):
        action = int(rng.integers(18))
        pairs.append((clipped.step(action)[1], raw.step(action)[1]))
    pairs = np.array(pairs)
    assert pairs[:, 1].max() > 1  # the raw game pays 5..30 per invader
    assert np.array_equal(pairs[:, 0], np.clip(pairs[:, 1], -1, 1))


def _episode_ends(name: str, decisions: int = 1500):
    env = make_atari_env("breakout", protocol(name), seed=3)
    rng = np.random.default_rng(0)
    ends = []
    for _ in range(decisions):
        _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        if terminated or truncated:
            ale = env.unwrapped.ale
            ends.append((ale.lives(), ale.game_over(), ale.getEpisodeFrameNumber()))
            _, reset_info = env.reset()
            ends[-1] += (ale.getEpisodeFrameNumber(), reset_info.get("life_loss_continue", False))
    return ends


def test_life_loss_ends_the_training_episode_only_under_dqn2015():
    ends = _episode_ends("dqn2015", 600)
    lost = [e for e in ends if not e[1]]
    assert len(lost) >= 4
    for lives, _, frame_at_end, frame_after_reset, continued in lost:
        assert lives > 0 and continued and frame_after_reset == frame_at_end  # the game goes on
    for name in ("ale2013", "machado2018", "agent57"):
        ends = _episode_ends(name, 400)
        assert ends and all(game_over and lives == 0 for lives, game_over, *_ in ends), name


def _decisive_repeats(name: str, frames: int = 3000) -> tuple[int, int]:
    """(frames where the emulator used the previous action, frames where the two actions differ in effect)."""
    env = make_atari_env("breakout", protocol(name, frame_skip=1, max_pool=False, noop_max=0), seed=5)
    ale = env.unwrapped.ale
    reference = ALEInterface()
    reference.setFloat("repeat_action_probability", 0.0)
    reference.loadROM(roms.get_rom_path("breakout"))
    action_set = env.unwrapped._action_set
    rng = np.random.default_rng(1)
    previous, repeats, decisive = action_set[0], 0, 0
    for _ in range(frames):
        index = int(rng.integers(len(action_set)))
        state = ale.cloneState()
        outcomes = []
        for candidate in (previous, action_set[index]):
            reference.restoreState(state)
            reference.act(candidate)
            outcomes.append(reference.getRAM().copy())
        _, _, terminated, truncated, _ = env.step(index)
        ram = ale.getRAM()
        if not np.array_equal(*outcomes):
            decisive += 1
            used_previous = np.array_equal(ram, outcomes[0])
            repeats += used_previous
            previous = previous if used_previous else action_set[index]
        else:
            previous = action_set[index] if np.array_equal(ram, outcomes[1]) else previous
        if terminated or truncated:
            env.reset()
            previous = action_set[0]
    return repeats, decisive


def test_sticky_actions_repeat_the_previous_action_with_probability_a_quarter():
    repeats, decisive = _decisive_repeats("machado2018", 2000)
    assert decisive > 500
    share, sigma = repeats / decisive, np.sqrt(0.25 * 0.75 / decisive)
    assert abs(share - 0.25) < 3 * sigma
    assert _decisive_repeats("dqn2015", 500)[0] == 0


def test_sticky_actions_replay_from_the_state_saved_before_an_unseeded_reset():
    """machado2018 repeats the last action with probability 0.25 from the emulator's own random stream:
    get_state carries it, so a fresh env set to it plays the next unseeded episode frame for frame."""
    def unseeded_episode(env, actions):
        frames = [env.reset()[0]]
        for action in actions:
            observation, _, terminated, truncated, _ = env.step(action)
            frames.append(observation)
            if terminated or truncated:
                break
        return np.stack(frames)

    actions = np.random.default_rng(0).integers(0, 18, size=150)
    env = make_atari_env("breakout", protocol("machado2018"), seed=3)
    unseeded_episode(env, actions[:40])  # into the seeded stream
    state = env.unwrapped.get_state()
    first = unseeded_episode(env, actions)

    fresh = make_atari_env("breakout", protocol("machado2018"), seed=9)
    fresh.unwrapped.set_state(state)
    assert np.array_equal(unseeded_episode(fresh, actions), first)
