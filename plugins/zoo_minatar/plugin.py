"""Registers the ``minatar`` env: a MinAtar game by name, with its sticky actions and difficulty ramping."""

from __future__ import annotations

from zoo import EnvEntry, hookimpl, seeded_env

from .params import MinAtarParams


def make_minatar_env(params: MinAtarParams, seed: int | None):
    from .env import MinAtarEnv

    env = MinAtarEnv(params)
    return seeded_env(env, seed)


@hookimpl
def register_envs(register):
    register(EnvEntry(name="minatar", params=MinAtarParams, factory=make_minatar_env, example={"game": "breakout"},
                      description="a MinAtar game: 10x10 channels-first 0/1 frames, Atari-like rewards"))
