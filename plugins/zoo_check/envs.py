"""The checks of an env: gymnasium's ``check_env``, seeding, the replay of an unseeded episode from its saved
state, its outputs, its action masks and the render modes it claims, each over a few hundred steps of seeded
random (legal) actions."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from zoo import Entry, EnvEntry, Registry, in_space

from .results import Result, example, run

#: steps of the episodes an env check plays
ENV_STEPS = 200
#: SDL's drivers for drawing without a screen or sound card (gymnasium's classic control draws with pygame)
OFFSCREEN = {"SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}


def check_env_entry(subject: str, entry: EnvEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    block, skipped = example(subject, entry)
    if skipped is not None:
        yield skipped
        return
    params = entry.params.model_validate(block)
    yield run(subject, "gymnasium check_env", lambda: _gymnasium_check(entry, params))
    yield run(subject, "same seed, same episode", lambda: _same_episode(entry, params))
    yield run(subject, "an unseeded episode replays from the saved state", lambda: _replays(entry, params))
    yield run(subject, "finite rewards, observations in the space", lambda: _outputs(entry, params))
    probe = entry.factory(params, 0)
    if hasattr(probe, "action_masks"):
        yield run(subject, "action masks", lambda: _masks(entry, params))
    modes = [mode for mode in (getattr(probe, "metadata", None) or {}).get("render_modes") or [] if mode != "human"]
    probe.close()
    for mode in modes:
        if mode.removesuffix("_list") not in PICTURES:
            yield Result("SKIP", subject, f"render mode {mode}", "the zoo knows no format of its pictures")
        else:
            yield run(subject, f"render mode {mode}", lambda mode=mode: _renders(entry, params, mode))


def _gymnasium_check(entry: EnvEntry, params: Any) -> str:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(entry.factory(params, 0), skip_render_check=True)
    notes = sorted({str(w.message).split("\n")[0][:80] for w in caught})
    return "its render check left to the render mode checks" + (
        f"; {len(notes)} warning(s): {notes[0]}" if notes else "")


def _episode(entry: EnvEntry, params: Any, seed: int, steps: int = ENV_STEPS) -> list[tuple[Any, ...]]:
    """What an env returns over `steps` steps of seeded random (legal) actions, resetting when an episode ends."""
    env = entry.factory(params, seed)
    observation, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    rng = np.random.default_rng(seed)
    record = [("reset", _plain(observation))]
    for _ in range(steps):
        action = _action(env, rng)
        observation, reward, terminated, truncated, _ = env.step(action)
        record.append((_plain(observation), float(reward), bool(terminated), bool(truncated)))
        if terminated or truncated:
            observation, _ = env.reset()
            record.append(("reset", _plain(observation)))
    env.close()
    return record


def _action(env: Any, rng: np.random.Generator) -> Any:
    if hasattr(env, "action_masks"):
        return int(rng.choice(np.flatnonzero(np.asarray(env.action_masks()))))
    return env.action_space.sample()


def _plain(value: Any) -> Any:
    """`value` as comparable plain data (arrays as nested lists, NaN as a string)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    array = np.asarray(value)
    return array.tolist() if array.dtype.kind != "f" else np.where(np.isnan(array), -math.inf, array).tolist()


def _same_episode(entry: EnvEntry, params: Any) -> str:
    first, second = _episode(entry, params, 7), _episode(entry, params, 7)
    differ = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), None)
    assert differ is None and len(first) == len(second), (
        f"two envs reset with seed 7 and given the same actions differ at step {differ}: "
        "seed every random draw from reset(seed=...)")
    return f"{ENV_STEPS} steps"


def _replays(entry: EnvEntry, params: Any) -> str:
    """What an agent that resumes mid-episode needs (SB3's agents): the state saved before an unseeded reset
    (``get_state()`` when the env has it, else its ``np_random``) brings a fresh env to the same episode."""
    env = entry.factory(params, 11)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    for _ in range(ENV_STEPS // 2):  # into the stream the seed started, across episode ends
        _, _, terminated, truncated, _ = env.step(_action(env, rng))
        if terminated or truncated:
            env.reset()
    unwrapped = env.unwrapped
    has_state = callable(getattr(unwrapped, "get_state", None)) and callable(getattr(unwrapped, "set_state", None))
    saved = unwrapped.get_state() if has_state else unwrapped.np_random.bit_generator.state
    first, actions = _unseeded_episode(env, rng)
    env.close()

    fresh = entry.factory(params, 12)
    fresh.reset(seed=12)  # another stream, which the saved state must replace
    if has_state:
        fresh.unwrapped.set_state(saved)
    else:
        fresh.unwrapped.np_random.bit_generator.state = saved
    second, _ = _unseeded_episode(fresh, rng, actions)
    fresh.close()
    differ = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), None)
    what = "get_state()" if has_state else "the state of np_random (the env has no get_state/set_state)"
    assert differ is None and len(first) == len(second), (
        f"an unseeded episode replayed after restoring {what} differs at step {differ}: the env draws from a random "
        "state that is not saved; give it get_state/set_state (docs/plugins.md), or an agent resumed mid-episode "
        "continues on another episode")
    return f"{len(actions)} steps, restored through {'get_state/set_state' if has_state else 'np_random'}"


def _unseeded_episode(env: Any, rng: np.random.Generator, actions: list | None = None) -> tuple[list, list]:
    """An episode from an unseeded reset, up to ENV_STEPS steps: what the env returned and the actions taken
    (`actions` when given, else drawn)."""
    observation, _ = env.reset()
    record, taken = [("reset", _plain(observation))], []
    for step in range(ENV_STEPS if actions is None else len(actions)):
        action = _action(env, rng) if actions is None else actions[step]
        taken.append(action)
        observation, reward, terminated, truncated, _ = env.step(action)
        record.append((_plain(observation), float(reward), bool(terminated), bool(truncated)))
        if terminated or truncated:
            break
    return record, taken


def _outputs(entry: EnvEntry, params: Any) -> str:
    env = entry.factory(params, 3)
    observation, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for step in range(ENV_STEPS):
        assert in_space(env.observation_space, observation), (
            f"step {step}: the observation is not in the observation space {env.observation_space}")
        observation, reward, terminated, truncated, _ = env.step(_action(env, rng))
        assert np.isfinite(reward).all(), f"step {step + 1}: the reward {reward!r} is not a finite number"
        if terminated or truncated:
            observation, _ = env.reset()
    env.close()
    return f"{ENV_STEPS} steps"


def _masks(entry: EnvEntry, params: Any) -> str:
    env = entry.factory(params, 5)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for step in range(ENV_STEPS):
        mask = np.asarray(env.action_masks())
        assert mask.shape == (env.action_space.n,), f"step {step}: a mask of shape {mask.shape}, not ({env.action_space.n},)"
        assert mask.dtype == bool or set(np.unique(mask)) <= {0, 1}, f"step {step}: the mask is not boolean"
        assert mask.any(), f"step {step}: the mask allows no action"
        _, _, terminated, truncated, _ = env.step(_action(env, rng))
        if terminated or truncated:
            env.reset()
    env.close()
    return f"{ENV_STEPS} steps"


# -- render modes ---------------------------------------------------------------------------------------

def _rgb_array(picture: Any) -> str | None:
    """What is wrong with `picture` as an rgb_array frame (None when it is one: height x width x 3, uint8)."""
    if not isinstance(picture, np.ndarray):
        return f"a {type(picture).__name__}, not a numpy array"
    if picture.ndim != 3 or picture.shape[2] != 3 or 0 in picture.shape:
        return f"an array of shape {picture.shape}, not (height, width, 3)"
    if picture.dtype != np.uint8:
        return f"an array of dtype {picture.dtype}, not uint8"
    return None


def _ansi(picture: Any) -> str | None:
    return None if isinstance(picture, str) else f"a {type(picture).__name__}, not a str"


#: the render modes whose pictures the zoo knows, with what is wrong with a picture (None: nothing)
PICTURES = {"rgb_array": _rgb_array, "ansi": _ansi}


def _renders(entry: EnvEntry, params: Any, mode: str) -> str:
    """Build the env, switch it to `mode` (as ``zoo enjoy --video`` does: the zoo's env factories take no
    render mode), then render after a reset and after a step; a ``*_list`` mode returns a list of pictures."""
    for name, value in OFFSCREEN.items():
        os.environ.setdefault(name, value)
    base = mode.removesuffix("_list")
    env = entry.factory(params, 0)
    env.unwrapped.render_mode = mode
    env.reset(seed=0)
    pictures = [env.render()]
    env.step(_action(env, np.random.default_rng(0)))
    pictures.append(env.render())
    env.close()
    for when, picture in zip(("after reset", "after a step"), pictures):
        if base != mode:
            assert isinstance(picture, list), f"render() {when} returned a {type(picture).__name__}, not a list"
            wrong = next((f"a list holding {problem}" for problem in map(PICTURES[base], picture) if problem), None)
        else:
            wrong = PICTURES[base](picture)
        assert wrong is None, f"render() {when} returned {wrong}"
    return "after reset and after a step"
