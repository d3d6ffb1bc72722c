"""Learner updates per CPU-second: zoo_learner's GDI-I3 update vs SB3 DQN's train step, equal network and batch.

Network: the Nature CNN (SB3's CnnPolicy; GDI with torso nature, embedding 512, no LSTM) on
(4, 84, 84) uint8 observations, 18 actions. Batch: SB3 DQN samples 32 transitions; GDI takes 4
sequences of 7 trained rows + 1 bootstrap row (32 rows through the network, no burn-in). Torch
pinned to one thread. Also prints the cpu_small Atari network (IMPALA 1 block, LSTM 128) with the
example specs' sequences (16 x (20 + 40 + 1)) for reference.

    OMP_NUM_THREADS=1 python benchmarks/gdi_learner.py [--updates 30]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

OBS, ACTIONS = (4, 84, 84), 18


def rate(step, updates: int) -> float:
    step()
    start = time.process_time()
    for _ in range(updates):
        step()
    return updates / (time.process_time() - start)


def sb3_dqn(updates: int) -> float:
    from stable_baselines3 import DQN

    class Stub(gymnasium.Env):
        observation_space = gymnasium.spaces.Box(0, 255, OBS, np.uint8)
        action_space = gymnasium.spaces.Discrete(ACTIONS)

        def reset(self, *, seed=None, options=None):
            return np.zeros(OBS, np.uint8), {}

    model = DQN("CnnPolicy", Stub(), buffer_size=1000, batch_size=32, device="cpu", seed=0, learning_starts=0)
    model._setup_learn(total_timesteps=10)
    rng = np.random.default_rng(0)
    for _ in range(200):
        model.replay_buffer.add(rng.integers(0, 255, (1, *OBS), np.uint8), rng.integers(0, 255, (1, *OBS), np.uint8),
                                rng.integers(ACTIONS, size=(1, 1)), rng.normal(size=1), np.zeros(1), [{}])
    return rate(lambda: model.train(gradient_steps=1, batch_size=32), updates)


def gdi(updates: int, network: dict, batch: int, burn_in: int, length: int) -> float:
    from zoo_gdi.builder import GDIBuilder
    from zoo_gdi.params import GDIParams
    from zoo_learner.learner import Learner, ParameterServer

    params = GDIParams(burn_in=burn_in, length=length, batch=batch, network=network)
    builder = GDIBuilder(params, heads=1)
    net = builder.make_network(OBS, ACTIONS)
    learner = Learner(net, builder.make_loss(), params.optimizer, planned_updates=10**6,
                      server=ParameterServer(net.state_dict()), push_every=params.push_every)
    rng, rows = np.random.default_rng(0), burn_in + length + 1
    mu = rng.dirichlet(np.ones(ACTIONS), size=(batch, rows)).astype(np.float32)
    train = np.zeros((batch, rows), bool)
    train[:, burn_in:-1] = True
    sample = {"obs": rng.integers(0, 255, (batch, rows, *OBS), np.uint8), "action": rng.integers(ACTIONS, size=(batch, rows)),
              "reward": rng.normal(size=(batch, rows)).astype(np.float32), "done": np.zeros((batch, rows), np.float32),
              "mu": mu, "valid": np.ones((batch, rows), bool), "train": train,
              "state": np.zeros((batch, net.state_size), np.float32),
              "behavior": np.tile(np.float32([2.0, 10.0, 0.3]), (batch, 1)), "arm": np.zeros(batch, np.int64)}
    return rate(lambda: learner.update(sample), updates)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", type=int, default=30)
    args = parser.parse_args()
    torch.set_num_threads(1)
    nature = {"torso": "nature", "embedding": 512, "lstm": 0}
    dqn = sb3_dqn(args.updates)
    ours = gdi(args.updates, nature, batch=4, burn_in=0, length=7)
    small = gdi(max(3, args.updates // 10), {"torso": "impala", "impala_blocks": 1, "lstm": 128}, 16, 20, 40)
    print("learner updates per CPU-second (torch threads = 1):")
    print(f"  sb3 DQN train step, Nature CNN, 32 transitions      {dqn:7.2f}")
    print(f"  GDI-I3 update, Nature CNN, 4 x (7 + 1) rows          {ours:7.2f}   x{ours / dqn:.2f} of sb3")
    print(f"  GDI-I3 update, cpu_small Atari, 16 x (20 + 40 + 1)   {small:7.2f}   ({small * 16 * 40:.0f} trained rows/s)")


if __name__ == "__main__":
    main()
