"""Actor throughput on Atari, per CPU-second of this process, torch pinned to one thread.

Compares, in one run and on the same ale-py vector env (Agent57/GDI protocol: 84x84 gray, 4 frames
stacked, action repeat 4 with max-pool, 30 no-ops, full actions, no clipping):
  raw      the emulator alone, random actions;
  sb3      SB3 PPO("CnnPolicy").predict in a loop (Nature CNN);
  gdi-*    zoo_learner's VectorActor with GDI-I3's mixture policy, writing sequences into the replay:
           'nature' (Nature CNN, no LSTM: SB3's network) and 'impala' (the cpu_small network, LSTM 128).

    OMP_NUM_THREADS=1 python benchmarks/gdi_actor.py [--game Breakout] [--envs 8] [--steps 2000]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402


def vector_env(game: str, envs: int, seed: int):
    from zoo_atari.env import make_atari_vector_env
    from zoo_atari.games import resolve_game
    from zoo_atari.protocols import Protocol

    return make_atari_vector_env(resolve_game(game), Protocol(name="agent57"), envs, seed)


def per_cpu_second(step, steps: int) -> float:
    step()  # warm-up
    start = time.process_time()
    for _ in range(steps):
        step()
    return steps / (time.process_time() - start)


def raw(game, envs, steps):
    env = vector_env(game, envs, 0)
    rng = np.random.default_rng(0)
    rate = per_cpu_second(lambda: env.step(rng.integers(env.single_action_space.n, size=envs)), steps) * envs
    env.close()
    return rate


def sb3(game, envs, steps):
    from stable_baselines3 import PPO
    from zoo_atari.env import make_atari_env
    from zoo_atari.games import resolve_game
    from zoo_atari.protocols import Protocol

    model = PPO("CnnPolicy", make_atari_env(resolve_game(game), Protocol(name="agent57"), 0), device="cpu", seed=0)
    env = vector_env(game, envs, 0)
    state = {"obs": env.reset(seed=0)[0]}

    def step():
        actions, _ = model.predict(state["obs"], deterministic=False)
        state["obs"] = env.step(actions)[0]

    rate = per_cpu_second(step, steps) * envs
    env.close()
    return rate


def gdi(game, envs, steps, network):
    from zoo_gdi.builder import GDIBuilder
    from zoo_gdi.params import GDIParams
    from zoo_learner import BehaviorSpace
    from zoo_learner.builder import make_actor
    from zoo_learner.learner import ParameterServer
    from zoo_learner.replay import SequenceReplay
    from zoo_bandits.population import BanditPopulation, PopulationParams

    params = GDIParams(num_envs=envs, burn_in=20, length=40, network=network)
    builder = GDIBuilder(params, heads=1)
    env = vector_env(game, envs, 0)
    net = builder.make_network(env.single_observation_space.shape, int(env.single_action_space.n))
    server = ParameterServer(net.state_dict())
    space: BehaviorSpace = builder.behavior_space()
    controllers = [BanditPopulation(PopulationParams(), space, np.random.default_rng(i)) for i in range(envs)]
    replay = SequenceReplay(capacity=64)
    actor = make_actor(builder, params, env, net, controllers, replay.add, server.pull, torch.Generator().manual_seed(0))
    actor.reset(seed=0)
    rate = per_cpu_second(lambda: actor.run(1), steps) * envs
    env.close()
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="Breakout")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1000, help="vector steps per measurement")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rates = {
        "raw": raw(args.game, args.envs, args.steps),
        "sb3": sb3(args.game, args.envs, args.steps),
        "gdi-nature": gdi(args.game, args.envs, args.steps, {"torso": "nature", "embedding": 512, "lstm": 0}),
        "gdi-impala": gdi(args.game, args.envs, args.steps,
                          {"torso": "impala", "impala_blocks": 1, "embedding": 256, "lstm": 128}),
    }
    print(f"{args.game}, {args.envs} envs, agent steps per CPU-second (torch threads = 1):")
    for name, rate in rates.items():
        print(f"  {name:12s} {rate:9.1f}   x{rate / rates['sb3']:.2f} of sb3   x{rate / rates['raw']:.3f} of raw")


if __name__ == "__main__":
    main()
