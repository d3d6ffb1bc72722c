"""Actor throughput on Atari, per CPU-second of this process, torch pinned to one thread.

Every loop steps its own ale-py vector env of the zoo_atari plugin (Agent57/GDI protocol: 84x84 gray,
4 frames stacked, action repeat 4 with max-pool, up to 30 no-ops, full 18 actions, no clipping):
  raw         the emulator alone, random actions;
  sb3         SB3's actor loop: PPO("CnnPolicy").predict (Nature CNN) on SB3's own Atari pipeline
              (make_atari_env + DummyVecEnv + VecFrameStack, full action set) -- the peer;
  sb3-on-ale  the same predict loop on the plugin's vector env (isolates SB3's network call);
  bare        a plain torch Nature CNN + softmax sampling loop (the floor for that network);
  gdi-nature  GDI-I3's actor built from a spec (env {type: atari, ...}, the plugin's vector factory,
              bandit population per env, mixture policy, sequences written into the replay) with the
              Nature CNN and no LSTM, i.e. SB3's network;
  gdi-int8    the same acting in int8 (actor_precision: int8: int8 convolutions and Linear layers);
  gdi-impala  the same as gdi-nature with the cpu_small network (IMPALA 16/32/32, one block, LSTM 128).
It also prints what an int8 actor pays each time it pulls a new version of the weights, and how far
its behavior policy is from the float network's on the frames that follow the calibration.
The loops run in interleaved rounds and each reports the median rate, so that load from other
processes on a shared machine hits all of them alike.

    python benchmarks/gdi_actor.py [--game Breakout] [--envs 8] [--steps 150] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

PROTOCOL = "agent57"
NATURE = "{torso: nature, embedding: 512, lstm: 0}"


def vector_env(game: str, envs: int):
    from zoo_atari.env import make_atari_vector_env
    from zoo_atari.games import resolve_game
    from zoo_atari.protocols import Protocol

    return make_atari_vector_env(resolve_game(game), Protocol(name=PROTOCOL), envs, 0)


def raw_loop(game, envs):
    env, rng = vector_env(game, envs), np.random.default_rng(0)
    return lambda: env.step(rng.integers(env.single_action_space.n, size=envs))


def sb3_model():
    from stable_baselines3 import PPO
    from zoo_atari.env import make_atari_env
    from zoo_atari.protocols import Protocol

    return PPO("CnnPolicy", make_atari_env("breakout", Protocol(name=PROTOCOL), 0), device="cpu", seed=0)


def sb3_loop(game, envs):
    import ale_py
    import gymnasium
    from stable_baselines3.common.env_util import make_atari_env
    from stable_baselines3.common.vec_env import VecFrameStack

    gymnasium.register_envs(ale_py)
    env = VecFrameStack(make_atari_env(f"{game}NoFrameskip-v4", n_envs=envs, seed=0,
                                       env_kwargs={"full_action_space": True}), n_stack=4)
    model = sb3_model()
    state = {"obs": env.reset()}

    def step():
        actions, _ = model.predict(state["obs"], deterministic=False)
        state["obs"] = env.step(actions)[0]

    return step


def sb3_on_ale_loop(game, envs):
    model, env = sb3_model(), vector_env(game, envs)
    state = {"obs": env.reset(seed=0)[0]}

    def step():
        actions, _ = model.predict(state["obs"], deterministic=False)
        state["obs"] = env.step(actions)[0]

    return step


def bare_loop(game, envs):
    from torch import nn

    env = vector_env(game, envs)
    actions = int(env.single_action_space.n)
    net = nn.Sequential(nn.Conv2d(4, 32, 8, stride=4), nn.ReLU(), nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
                        nn.Conv2d(64, 64, 3), nn.ReLU(), nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(),
                        nn.Linear(512, actions))
    state = {"obs": env.reset(seed=0)[0]}

    def step():
        with torch.no_grad():
            logits = net(torch.as_tensor(state["obs"]).float() / 255.0)
            chosen = torch.multinomial(torch.softmax(logits, -1), 1).squeeze(1).numpy()
        state["obs"] = env.step(chosen)[0]

    return step


def gdi_actor(game, envs, network: str, folder: Path, precision: str = "float32"):
    from zoo import build_trial, get_registry, load_spec_text

    spec = load_spec_text(
        f"env: {{type: atari, game: {game}, protocol: {{name: {PROTOCOL}}}}}\n"
        f"agent: {{type: gdi-i3, num_envs: {envs}, capacity: 64, burn_in: 20, length: 40, gamma: 0.997, "
        f"actor_precision: {precision}, network: {network}}}\n"
        "budget: {steps: 1000000}\n", get_registry())
    built = build_trial(spec, get_registry(), seed=0, trial=0, directory=folder)
    return built.agent.system.actor


def gdi_loop(game, envs, network: str, folder: Path, precision: str = "float32"):
    actor = gdi_actor(game, envs, network, folder, precision)
    return lambda: actor.run(1)


def int8_policy_gap(actor, vector_steps: int = 150) -> tuple[float, float]:
    """(mean, max) total variation between the int8 actor's behavior policy and the float network's, on
    the frames the int8 actor meets in `vector_steps` steps after calibrating on the first batch."""
    gaps = []
    with torch.inference_mode():
        for _ in range(vector_steps):
            obs, state, behavior = torch.from_numpy(actor.obs), actor.state, actor.behavior()
            mu = [actor.policy(*net.step(obs, state)[0], behavior).exp() for net in (actor.acting, actor.net)]
            gaps.append(0.5 * (mu[0] - mu[1]).abs().sum(-1))
            actor.run(1)
    gaps = torch.cat(gaps)
    return float(gaps.mean()), float(gaps.max())


def requantization_ms(actor, repeats: int = 10) -> float:
    """CPU milliseconds an int8 actor spends on a pull that brings a new version."""
    weights = {name: value.clone() for name, value in actor.net.state_dict().items()}
    start = time.process_time()
    for _ in range(repeats):
        actor.load_weights(weights, actor.version + 1)
    return (time.process_time() - start) / repeats * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="Breakout")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=150, help="vector steps per loop and round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        loops = {
            "raw": raw_loop(args.game, args.envs),
            "sb3": sb3_loop(args.game, args.envs),
            "sb3-on-ale": sb3_on_ale_loop(args.game, args.envs),
            "bare": bare_loop(args.game, args.envs),
            "gdi-nature": gdi_loop(args.game, args.envs, NATURE, Path(tmp, "n")),
            "gdi-int8": gdi_loop(args.game, args.envs, NATURE, Path(tmp, "q"), "int8"),
            "gdi-impala": gdi_loop(args.game, args.envs, "{torso: impala, impala_blocks: 1, lstm: 128}",
                                   Path(tmp, "i")),
        }
        rates: dict[str, list[float]] = {name: [] for name in loops}
        for step in loops.values():
            step()  # warm-up
        for _ in range(args.rounds):
            for name, step in loops.items():
                start = time.process_time()
                for _ in range(args.steps):
                    step()
                rates[name].append(args.steps * args.envs / (time.process_time() - start))
        int8_actor = gdi_actor(args.game, args.envs, NATURE, Path(tmp, "p"), "int8")
        pull_ms = requantization_ms(int8_actor)
        gap = int8_policy_gap(int8_actor)
    median = {name: float(np.median(values)) for name, values in rates.items()}
    print(f"{args.game}, {args.envs} envs, agent steps per CPU-second (torch threads = 1), "
          f"median of {args.rounds} interleaved rounds of {args.steps} vector steps:")
    for name, rate in median.items():
        spread = f"{min(rates[name]):.0f}-{max(rates[name]):.0f}"
        print(f"  {name:11s} {rate:7.0f}  ({spread:>9s})   x{rate / median['sb3']:.2f} of sb3   "
              f"x{rate / median['bare']:.2f} of bare   x{rate / median['raw']:.3f} of raw   "
              f"{args.envs / rate * 1e3:5.2f} ms per vector step")
    print(f"int8 actor, Nature CNN: {pull_ms:.1f} ms per pull of a new weight version; total variation from the "
          f"float policy (untrained weights) over the next 150 vector steps: mean {gap[0]:.2e}, max {gap[1]:.2e}")


if __name__ == "__main__":
    main()
