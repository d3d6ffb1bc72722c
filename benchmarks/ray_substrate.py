"""Training throughput of the distributed substrate: agent steps per wall-second, acting and learning together.

On each world (Breakout with the Agent57 protocol, as benchmarks/gdi_actor.py sets it up, and a GOHR rule
with the settings of examples/gohr-gdi-i3.yaml), three ways of training run one after the other for
the same wall time:
  local   GDI-I3 on the single-process substrate (one actor of `--envs` envs, the learner in turn);
  ray     the same spec with `actors: 2` on a local Ray of 2 CPUs: two Ray actor processes of
          `--envs / 2` envs each, the learner in this process (the same 8 env slots in all);
  ppo     SB3 PPO on a SubprocVecEnv of 2 env processes (the peer: 2 processes stepping envs).
Then the object store's costs: a sequence handed from an actor process to the learner, the learner's
push (``ray.put`` of the state dict) and an actor's pull of a new version (from the weight board and the
object store), each per item, median of repeats. Ray's own start-up is reported apart.

    python benchmarks/ray_substrate.py [--seconds 20] [--envs 8] [--worlds breakout gohr]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402

#: stands for the spec's `backend: {type: ray}` block (a local Ray, started here)
RAY = SimpleNamespace(type="ray", address=None, torch_threads=1)
WORLDS = {
    "breakout": ("{type: atari, game: Breakout, protocol: {name: agent57}}",
                 "capacity: 256, burn_in: 20, length: 40, gamma: 0.997, network: {torso: nature, embedding: 512, lstm: 0}"),
    "gohr": ("{type: gohr, rule: paper/color_match, horizon: 100, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}",
             "gamma: 0.9, reuse: 8, length: 10, burn_in: 5, network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}"),
}


def spec(world: str, agent: str):
    from zoo.registry import get_registry
    from zoo.spec import load_spec_text

    env, _ = WORLDS[world]
    return load_spec_text(f"env: {env}\nagent: {agent}\nbudget: {{steps: 10000000}}\n", get_registry())


def gdi_rate(world: str, envs: int, actors: int, seconds: float, folder: Path) -> float:
    """Agent steps per wall-second of GDI-I3's training loop (after a warm-up round)."""
    from zoo.registry import get_registry
    from zoo.run import build_trial

    text = spec(world, f"{{type: gdi-i3, num_envs: {envs // actors}, actors: {actors}, {WORLDS[world][1]}}}")
    if actors > 1:
        text = text.model_copy(update={"backend": RAY})
    built = build_trial(text, get_registry(), seed=0, trial=0, directory=folder, tensorboard=False)
    agent = built.agent
    try:
        for _ in range(2 * actors):
            agent.train_step()
        start, steps = time.perf_counter(), agent.steps
        while time.perf_counter() - start < seconds:
            agent.train_step()
        return (agent.steps - steps) / (time.perf_counter() - start)
    finally:
        agent.close()
        built.logger.close()


def ppo_rate(world: str, seconds: float) -> float:
    """Agent steps per wall-second of SB3 PPO's learn() on a 2-process SubprocVecEnv (after a warm-up rollout)."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from zoo.registry import get_registry

    env_block = spec(world, "{type: ppo}").env
    entry = get_registry().get("env", env_block.type)
    envs = SubprocVecEnv([lambda i=i: entry.factory(env_block, i) for i in range(2)])
    policy = "CnnPolicy" if world == "breakout" else "MlpPolicy"
    model = PPO(policy, envs, n_steps=128, batch_size=64, device="cpu", seed=0)

    class Clock(BaseCallback):
        def _on_training_start(self):
            self.start, self.steps = time.perf_counter(), self.num_timesteps

        def _on_step(self) -> bool:
            return time.perf_counter() - self.start < seconds

    try:
        model.learn(256)
        clock = Clock()
        model.learn(10**9, callback=clock, reset_num_timesteps=False)
        return (model.num_timesteps - clock.steps) / (time.perf_counter() - clock.start)
    finally:
        envs.close()


def object_store_costs(ray, world: str, folder: Path, repeats: int = 20) -> dict[str, float]:
    """Milliseconds per sequence handed from an actor process to this one, per push and per pull of a new version."""
    from zoo_learner.distributed import WeightBoard
    from zoo_learner.replay import FIELDS

    from zoo.registry import get_registry
    from zoo.run import build_trial

    text = spec(world, f"{{type: gdi-i3, num_envs: 4, {WORLDS[world][1]}}}")
    built = build_trial(text, get_registry(), seed=0, trial=0, directory=folder, tensorboard=False)
    system = built.agent.system
    while len(system.replay) < 8:
        system.collect()
    pool = system.replay.state_dict()
    sequences = [{name: pool[name][i] for name in FIELDS} for i in range(8)]
    weights = system.learner.net.state_dict()
    built.agent.close()
    built.logger.close()

    @ray.remote(num_cpus=1)
    class Holder:
        def __init__(self, items):
            self.items = items

        def give(self, count):
            return self.items[:count]

        def pull(self, board, known):
            start = time.perf_counter()
            version, refs = ray.get(board.pull.remote(known))
            ray.get(refs[0])
            return time.perf_counter() - start

    holder = Holder.remote(sequences)
    board = ray.remote(num_cpus=0)(WeightBoard).remote()
    ray.get(holder.give.remote(0))
    per_sequence, push, pull = [], [], []
    for version in range(repeats):
        start = time.perf_counter()
        ray.get(holder.give.remote(0))
        empty = time.perf_counter() - start
        start = time.perf_counter()
        ray.get(holder.give.remote(len(sequences)))
        per_sequence.append((time.perf_counter() - start - empty) / len(sequences))
        start = time.perf_counter()
        ray.get(board.post.remote(version, [ray.put(weights)]))
        push.append(time.perf_counter() - start)
        pull.append(ray.get(holder.pull.remote(board, version - 1)))
    ray.kill(holder)
    ray.kill(board)
    size = sum(a.nbytes for a in sequences[0].values()) / 1e6
    return {"sequence": 1e3 * statistics.median(per_sequence), "sequence MB": size,
            "push": 1e3 * statistics.median(push), "pull": 1e3 * statistics.median(pull),
            "weights MB": sum(t.numel() * t.element_size() for t in weights.values()) / 1e6}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="wall time each way of training is measured for")
    parser.add_argument("--envs", type=int, default=8, help="env slots of the substrate runs (split over 2 Ray actors)")
    parser.add_argument("--worlds", nargs="+", default=list(WORLDS), choices=list(WORLDS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"{cpu_description()}\nRay {ray.__version__} start-up (local, 2 CPUs): {time.perf_counter() - start:.1f} s")
    print(f"agent steps per wall-second, {args.seconds:g} s each, torch threads = 1:")
    with tempfile.TemporaryDirectory() as tmp:
        for world in args.worlds:
            local = gdi_rate(world, args.envs, 1, args.seconds, Path(tmp, f"{world}-local"))
            remote = gdi_rate(world, args.envs, 2, args.seconds, Path(tmp, f"{world}-ray"))
            ppo = ppo_rate(world, args.seconds)
            print(f"  {world:9s} gdi-i3 local {local:7.0f}   gdi-i3 2 Ray actors {remote:7.0f} (x{remote / local:.2f} "
                  f"of local)   SB3 PPO 2 subprocesses {ppo:7.0f} (ray x{remote / ppo:.2f} of it)")
        for world in args.worlds:
            cost = object_store_costs(ray, world, Path(tmp, f"{world}-costs"))
            print(f"  {world:9s} object store: {cost['sequence']:.3f} ms per sequence ({cost['sequence MB']:.2f} MB), "
                  f"push {cost['push']:.2f} ms and pull {cost['pull']:.2f} ms per version "
                  f"({cost['weights MB']:.2f} MB of weights)")
    ray.shutdown()


if __name__ == "__main__":
    main()
