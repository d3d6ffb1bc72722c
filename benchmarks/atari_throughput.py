"""Atari frames per CPU-second: (a) the raw emulator, (b) each protocol's pipeline through gymnasium
wrappers and through the zoo's vector env, next to ale-py's bare AtariVectorEnv (its own defaults),
(c) SB3's make_atari_env + DummyVecEnv + VecFrameStack, all on the same games in the same run, and
(d) SARSA(lambda) decisions per CPU-second with each feature set.

Like for like: every pipeline plays uniformly random actions, the vector envs and SB3 run the same
number of copies, and frames are counted by the emulators' own frame counters (every emulated frame:
skipped ones and no-op starts included, ALE's internal reset frames excluded, in every pipeline).
CPU time is the process's (time.process_time, all its threads: the vector env's worker included);
torch, BLAS and the vector env's workers are pinned to one thread.

Shared machines: a round gives every pipeline --seconds CPU-s in --turns short turns, round-robin,
so that load from other processes falls on all of them alike; each figure is the best of --rounds
rounds (the least disturbed), with the spread over rounds and the load average printed alongside.

    python benchmarks/atari_throughput.py [--seconds 2] [--turns 10] [--rounds 5] [--games breakout pong]
                                          [--num-envs 4]
                                          [--sarsa-game freeway] [--features basic bass disco lsh ram]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import time
from collections.abc import Callable

import numpy as np
from zoo_atari.env import make_atari_env, make_atari_vector_env
from zoo_atari.protocols import PRESETS, Protocol

TARGET_OF_RAW, TARGET_OVER_SB3, TARGET_BASS = 0.70, 1.4, 500

#: does a chunk of work and returns the units done (emulator frames, or decisions)
Work = Callable[[], int]


def interleaved_rates(works: dict[str, Work], seconds: float, rounds: int, turns: int) -> dict[str, list[float]]:
    """Per work, its units per CPU-second in each round. A round gives every work `seconds` CPU-seconds
    in `turns` turns, round-robin, so that load from other processes falls on all works alike."""
    for work in works.values():
        work()  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(rounds):
        done, spent = dict.fromkeys(works, 0), dict.fromkeys(works, 0.0)
        for _ in range(turns):
            for name, work in works.items():
                start = time.process_time()
                while time.process_time() - start < seconds / turns:
                    done[name] += work()
                spent[name] += time.process_time() - start
        for name in works:
            rates[name].append(done[name] / spent[name])
    return rates


class FrameCounter:
    """Frames emulated by n emulators since the last update, from their own frame counters (a counter
    restarts at 0 when its ROM is reloaded)."""

    def __init__(self, n: int):
        self.last = np.zeros(n, np.int64)

    def update(self, ids, now) -> int:
        now = np.asarray(now, np.int64)
        delta = now - self.last[ids]
        self.last[ids] = now
        return int(np.where(delta >= 0, delta, now).sum())


def ale_frames(ales) -> Callable[[], int]:
    """A function returning the frames `ales` emulated since it was last called (or made)."""
    ales = list(ales)
    counter, ids = FrameCounter(len(ales)), np.arange(len(ales))

    def frames() -> int:
        return counter.update(ids, [ale.getFrameNumber() for ale in ales])

    frames()
    return frames


def raw_emulator(game: str) -> Work:
    """ALEInterface.act from Python, a random minimal action per frame."""
    from ale_py import ALEInterface, LoggerMode, roms

    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(roms.get_rom_path(game))
    actions, rng, frames = ale.getMinimalActionSet(), np.random.default_rng(0), ale_frames([ale])

    def work() -> int:
        for action in rng.choice(actions, size=200):
            ale.act(action)
            if ale.game_over():
                ale.reset_game()
        return frames()

    return work


def wrapper_pipeline(game: str, protocol: Protocol) -> Work:
    env = make_atari_env(game, protocol, seed=0)
    rng, frames = np.random.default_rng(0), ale_frames([env.unwrapped.ale])

    def work() -> int:
        for action in rng.integers(env.action_space.n, size=100):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        return frames()

    return work


def vector_pipeline(env, num_envs: int) -> Work:
    """25 steps of a vector env whose info carries ale-py's env_id and frame_number."""
    _, info = env.reset(seed=0)
    rng, frames = np.random.default_rng(0), FrameCounter(num_envs)
    frames.update(info["env_id"], info["frame_number"])

    def work() -> int:
        done = 0
        for _ in range(25):
            *_, info = env.step(rng.integers(env.single_action_space.n, size=num_envs))
            done += frames.update(info["env_id"], info["frame_number"])
        return done

    return work


def bare_vector_env(game: str, num_envs: int):
    """ale-py's AtariVectorEnv with its own defaults (84x84x4, skip 4, max-pool, 30 no-ops, fire reset)."""
    from ale_py.vector_env import AtariVectorEnv

    return AtariVectorEnv(game, num_envs, num_threads=1)


def sb3_pipeline(game: str, num_envs: int) -> Work:
    import ale_py
    import gymnasium
    from stable_baselines3.common.env_util import make_atari_env as sb3_make_atari_env
    from stable_baselines3.common.vec_env import VecFrameStack

    gymnasium.register_envs(ale_py)
    name = "".join(part.capitalize() for part in game.split("_"))
    dummy = sb3_make_atari_env(f"{name}NoFrameskip-v4", n_envs=num_envs, seed=0)
    env = VecFrameStack(dummy, n_stack=4)
    env.reset()
    rng, frames = np.random.default_rng(0), ale_frames(e.unwrapped.ale for e in dummy.envs)

    def work() -> int:
        for _ in range(25):
            env.step(rng.integers(env.action_space.n, size=num_envs))
        return frames()

    return work


def sarsa_pipeline(game: str, feature: str) -> Work:
    """Training decisions of SARSA(lambda) under ale2013, episodes cut at 1,000 frames (200 decisions, twice
    the traces' reach) so that a turn ends within about a CPU-second even at RAM's rate. Preprocessing
    (background, DISCO's classes from 6,000 frames instead of 36,000) happens here, before any timing."""
    from types import SimpleNamespace

    from zoo_sarsa.agent import SarsaAgent, SarsaParams

    from zoo import get_registry

    get_registry()
    features = {"type": feature, **({"preprocessing_frames": 6000} if feature == "disco" else {})}
    protocol = Protocol.model_validate({"name": "ale2013", "max_episode_frames": 1000})
    logger = SimpleNamespace(log=lambda *a, **k: None)
    context = SimpleNamespace(seed=0, make_env=lambda seed: make_atari_env(game, protocol, seed), logger=logger)
    agent = SarsaAgent(SarsaParams.model_validate({"features": features}), context)
    return lambda: agent.run_episode()[1]


def spread(values: list[float]) -> str:
    return f"{min(values):,.0f}-{max(values):,.0f}"


def report_game(game: str, rates: dict[str, list[float]], names: list[str]) -> None:
    best = {key: max(values) for key, values in rates.items()}
    raw, sb3, bare = best["raw"], best["sb3"], best["bare"]
    print(f"\n{game}: best of {len(rates['raw'])} rounds (spread over rounds in brackets)")
    print(f"  (a) raw ALEInterface.act          {raw:>8,.0f}  ({spread(rates['raw'])})")
    print(f"  (c) SB3 make_atari_env+DummyVecEnv {sb3:>7,.0f}  ({spread(rates['sb3'])})  {sb3 / raw:.0%} of raw")
    print(f"      ale-py AtariVectorEnv, bare    {bare:>7,.0f}  ({spread(rates['bare'])})  {bare / raw:.0%} of raw, "
          f"{bare / sb3:.2f}x SB3")
    print(f"  (b) {'protocol':<12} {'wrappers':>9} {'of raw':>7} {'vector':>9} {'of raw':>7} {'vs SB3':>7} {'vs bare':>8}")
    for name in names:
        wrapped, vector = best[f"{name} wrappers"], best[f"{name} vector"]
        print(f"      {name:<12} {wrapped:>9,.0f} {wrapped / raw:>7.0%} {vector:>9,.0f} {vector / raw:>7.0%} "
              f"{vector / sb3:>6.2f}x {vector / bare:>7.0%}")
    vector = best["dqn2015 vector"]
    ok = vector / raw >= TARGET_OF_RAW and vector / sb3 >= TARGET_OVER_SB3
    print(f"  dqn2015 vector {vector / raw:.0%} of raw, {vector / sb3:.2f}x SB3 (target >= {TARGET_OF_RAW:.0%}, "
          f">= {TARGET_OVER_SB3}x): {'met' if ok else 'NOT met'}")
    of_raw, over_sb3 = (np.divide(rates["dqn2015 vector"], rates[peer]) for peer in ("raw", "sb3"))
    print(f"  the same within each round (one load for all): {np.median(of_raw):.0%} of raw "
          f"({of_raw.min():.0%}-{of_raw.max():.0%}), {np.median(over_sb3):.2f}x SB3 "
          f"({over_sb3.min():.2f}-{over_sb3.max():.2f}x), medians over rounds")


def report_sarsa(game: str, features: list[str], seconds: float, rounds: int, turns: int) -> None:
    print(f"\n(d) SARSA(lambda) training decisions per CPU-second on {game} (ale2013, 5 frames each, episodes "
          f"cut at 1,000 frames), best of {rounds} rounds")
    works = {feature: sarsa_pipeline(game, feature) for feature in features}
    for feature, rates in interleaved_rates(works, seconds, rounds, turns).items():
        note = f"  (target >= {TARGET_BASS}: {'met' if max(rates) >= TARGET_BASS else 'NOT met'})" if feature == "bass" else ""
        print(f"  {feature:<6} {max(rates):>8,.0f}  ({spread(rates)}){note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU-seconds per pipeline and round (SARSA: twice)")
    parser.add_argument("--turns", type=int, default=10, help="turns per pipeline and round (SARSA: a fifth)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (figures are the best round's)")
    parser.add_argument("--games", nargs="+", default=["breakout", "pong"])
    parser.add_argument("--num-envs", type=int, default=4, help="copies in the vector envs and SB3's DummyVecEnv")
    parser.add_argument("--sarsa-game", default="freeway")
    parser.add_argument("--features", nargs="*", default=["basic", "bass", "disco", "lsh", "ram"],
                        help="feature sets of (d); none: skip (d)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    print(f"emulator frames per CPU-second; {args.num_envs} envs in each vector env and in SB3's DummyVecEnv; "
          f"load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    protocols = {name: Protocol.model_validate({"name": name}) for name in PRESETS}
    for game in args.games:
        works = {"raw": raw_emulator(game), "sb3": sb3_pipeline(game, args.num_envs),
                 "bare": vector_pipeline(bare_vector_env(game, args.num_envs), args.num_envs)}
        for name, protocol in protocols.items():
            works[f"{name} wrappers"] = wrapper_pipeline(game, protocol)
            works[f"{name} vector"] = vector_pipeline(make_atari_vector_env(game, protocol, args.num_envs), args.num_envs)
        report_game(game, interleaved_rates(works, args.seconds, args.rounds, args.turns), list(protocols))
    if args.features:
        report_sarsa(args.sarsa_game, args.features, args.seconds * 2, args.rounds, max(1, args.turns // 5))
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
