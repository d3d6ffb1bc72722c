"""Atari frames per CPU-second: (a) the raw emulator, (b) each protocol's pipeline through gymnasium
wrappers and through ale-py's AtariVectorEnv, (c) SB3's make_atari_env + DummyVecEnv, all on the same
games in the same run, and (d) SARSA(lambda) decisions per CPU-second with each feature set.

CPU time is this process's (time.process_time, all its threads) plus its children's (getrusage);
torch, BLAS and the vector env's workers are pinned to one thread. Random actions throughout. Frames
are agent frames (decisions x frame skip) in every pipeline: no-op and reset frames are work, not
experience. The raw figure calls ALEInterface.act from Python frame by frame. The
pipelines of a game are measured in --repeats interleaved rounds and each figure is the median, so
that load from other processes on a shared machine hits them alike.

    python benchmarks/atari_throughput.py [--seconds 2] [--repeats 3] [--games breakout pong] [--num-envs 4]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import resource
import time

import numpy as np

from zoo_atari.env import make_atari_env, make_atari_vector_env
from zoo_atari.protocols import PRESETS, Protocol

TARGET_OF_RAW, TARGET_OVER_SB3, TARGET_BASS = 0.70, 1.4, 500


def cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def rate(step, seconds: float) -> float:
    """Units per CPU-second of `step()` (which returns the units it did) over about `seconds`."""
    step()  # warm-up
    start, done = cpu(), 0
    while cpu() - start < seconds:
        done += step()
    return done / (cpu() - start)


def raw_emulator(game: str, seconds: float) -> float:
    from ale_py import ALEInterface, LoggerMode, roms

    ALEInterface.setLoggerMode(LoggerMode.Error)
    ale = ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.loadROM(roms.get_rom_path(game))
    actions = ale.getMinimalActionSet()
    rng = np.random.default_rng(0)

    def step():
        for action in rng.choice(actions, size=200):
            ale.act(action)
            if ale.game_over():
                ale.reset_game()
        return 200

    return rate(step, seconds)


def wrapper_pipeline(game: str, protocol: Protocol, seconds: float) -> float:
    env = make_atari_env(game, protocol, seed=0)
    rng = np.random.default_rng(0)

    def step():
        for action in rng.integers(env.action_space.n, size=100):
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        return 100 * protocol.frame_skip

    return rate(step, seconds)


def vector_pipeline(game: str, protocol: Protocol, num_envs: int, seconds: float) -> float:
    env = make_atari_vector_env(game, protocol, num_envs, seed=0)
    rng = np.random.default_rng(0)

    def step():
        total = 0
        for _ in range(25):
            _, _, _, _, info = env.step(rng.integers(env.single_action_space.n, size=num_envs))
            total += num_envs
        return total * protocol.frame_skip

    return rate(step, seconds)


def sb3_pipeline(game: str, num_envs: int, seconds: float) -> float:
    import ale_py
    import gymnasium
    from stable_baselines3.common.env_util import make_atari_env as sb3_make_atari_env
    from stable_baselines3.common.vec_env import VecFrameStack

    gymnasium.register_envs(ale_py)
    name = "".join(part.capitalize() for part in game.split("_"))
    env = VecFrameStack(sb3_make_atari_env(f"{name}NoFrameskip-v4", n_envs=num_envs, seed=0), n_stack=4)
    env.reset()
    rng = np.random.default_rng(0)

    def step():
        for _ in range(25):
            env.step(rng.integers(env.action_space.n, size=num_envs))
        return 25 * num_envs * 4

    return rate(step, seconds)


def sarsa_decisions(game: str, feature: str, seconds: float) -> float:
    """Decisions per CPU-second of SARSA(lambda) training under ale2013 (preprocessing done before timing;
    DISCO's on 6,000 frames instead of 36,000 to keep the benchmark short)."""
    from types import SimpleNamespace

    from zoo.registry import get_registry
    from zoo_sarsa.agent import SarsaAgent, SarsaParams

    get_registry()
    features = {"type": feature, **({"preprocessing_frames": 6000} if feature == "disco" else {})}
    params = SarsaParams.model_validate({"features": features})
    protocol = Protocol.model_validate({"name": "ale2013"})
    logger = SimpleNamespace(log=lambda *a, **k: None)
    context = SimpleNamespace(seed=0, make_env=lambda seed: make_atari_env(game, protocol, seed), logger=logger)
    agent = SarsaAgent(params, context)
    original_step = agent.env.step
    decisions = [0]

    def counting_step(action):
        decisions[0] += 1
        return original_step(action)

    agent.env.step = counting_step
    start = cpu()
    while cpu() - start < seconds:
        agent.run_episode()
    return decisions[0] / (cpu() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU-seconds per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds (figures are medians)")
    parser.add_argument("--games", nargs="+", default=["breakout", "pong"])
    parser.add_argument("--num-envs", type=int, default=4, help="copies in the vector env and SB3's DummyVecEnv")
    parser.add_argument("--sarsa-game", default="freeway")
    parser.add_argument("--features", nargs="+", default=["basic", "bass", "disco", "lsh", "ram"])
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    print(f"frames per CPU-second (median of {args.repeats} x {args.seconds:.0f} CPU-s; {args.num_envs} envs "
          f"in the vector env and in SB3's DummyVecEnv)")
    protocols = {name: Protocol.model_validate({"name": name}) for name in PRESETS}
    for game in args.games:
        runs: dict[str, list[float]] = {}
        for _ in range(args.repeats):
            measured = {"raw": raw_emulator(game, args.seconds), "sb3": sb3_pipeline(game, args.num_envs, args.seconds)}
            for name, protocol in protocols.items():
                measured[f"{name} wrappers"] = wrapper_pipeline(game, protocol, args.seconds)
                measured[f"{name} vector"] = vector_pipeline(game, protocol, args.num_envs, args.seconds)
            for key, value in measured.items():
                runs.setdefault(key, []).append(value)
        median = {key: float(np.median(values)) for key, values in runs.items()}
        raw, sb3 = median["raw"], median["sb3"]
        print(f"\n{game}: (a) raw ALEInterface.act {raw:,.0f}   (c) SB3 make_atari_env+DummyVecEnv "
              f"{sb3:,.0f} ({sb3 / raw:.0%} of raw)")
        print(f"  {'protocol':<12} {'wrappers':>10} {'of raw':>7} {'vector':>10} {'of raw':>7} {'vs SB3':>7}")
        for name in protocols:
            wrapped, vector = median[f"{name} wrappers"], median[f"{name} vector"]
            print(f"  {name:<12} {wrapped:>10,.0f} {wrapped / raw:>7.0%} {vector:>10,.0f} {vector / raw:>7.0%} "
                  f"{vector / sb3:>6.2f}x")
        vector = median["dqn2015 vector"]
        ok = vector / raw >= TARGET_OF_RAW and vector / sb3 >= TARGET_OVER_SB3
        print(f"  dqn2015 vector target (>= {TARGET_OF_RAW:.0%} of raw, >= {TARGET_OVER_SB3}x SB3): "
              f"{'met' if ok else 'NOT met'}")
    print(f"\n(d) SARSA(lambda) training decisions per CPU-second on {args.sarsa_game} (ale2013, 5 frames each)")
    for feature in args.features:
        decisions = sarsa_decisions(args.sarsa_game, feature, args.seconds * 3)
        note = f"  (target >= {TARGET_BASS}: {'met' if decisions >= TARGET_BASS else 'NOT met'})" if feature == "bass" else ""
        print(f"  {feature:<6} {decisions:>8,.0f}{note}")


if __name__ == "__main__":
    main()
