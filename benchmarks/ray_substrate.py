"""Training throughput of the distributed substrate: agent steps per wall-second, acting and learning together.

On each world (Breakout with the Agent57 protocol, as benchmarks/gdi_actor.py sets it up, and a GOHR rule
with the settings of examples/gohr-gdi-i3.yaml), three ways of training take turns, `--rounds` slots
each, for the same wall time in all, and each reports its median slot:
  local   GDI-I3 on the single-process substrate (one actor of `--envs` envs, the learner in turn);
  ray     the same spec with `actors: 2` on a local Ray of 2 CPUs: two Ray actor processes of
          `--envs / 2` envs each, the learner in this process (the same 8 env slots in all);
  ppo     SB3 PPO on a SubprocVecEnv of 2 env processes (the peer: 2 processes stepping envs).
Where the time goes, in CPU milliseconds per agent step (CPU time, so that other load on the machine
does not blur it): single process, acting (env steps, inference, sequence writing) a and learning
(replay sampling, updates, weight pushes) l; on Ray, the learner process's learning, receiving and
idle time, each actor's busy share of the wall time, its weight pulls and CPU, and the CPU of Ray's
own processes. The overhead o is the Ray run's CPU per step beyond a + l. With one single-threaded
learner on 2 cores the speedup is at most min(2 (a+l) / (a+l+o), (a+l) / l): the two cores' CPU
over the step's, or the learner alone (on Ray the learner process also receives and pushes, so its
own CPU per step l' stands for l there). Then the object store's costs: a sequence handed from an
actor process to the learner, the learner's push (``ray.put`` of the state dict) and an actor's
fetch of a new version, each per item, median of repeats. Ray's own start-up is reported apart.

    python benchmarks/ray_substrate.py [--seconds 30] [--rounds 5] [--envs 8] [--worlds breakout gohr]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
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
    from zoo import get_registry, load_spec_text

    env, _ = WORLDS[world]
    return load_spec_text(f"env: {env}\nagent: {agent}\nbudget: {{steps: 10000000}}\n", get_registry())


class Clock:
    """Wall and CPU seconds spent in chosen methods of objects in this process, by label."""

    def __init__(self):
        self.wall, self.cpu = defaultdict(float), defaultdict(float)

    def wrap(self, obj, name: str, label: str) -> None:
        method = getattr(obj, name)

        def timed(*args, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.wall[label] += time.perf_counter() - wall
                self.cpu[label] += time.process_time() - cpu

        setattr(obj, name, timed)


def timed_actor_class():
    """SubstrateActor that also keeps its busy time (in `run`), its pulls' time and its process's CPU time."""
    from zoo_learner.distributed import SubstrateActor

    class TimedActor(SubstrateActor):
        def __init__(self, *args, **kwargs):
            self.busy = self.pulling = 0.0
            super().__init__(*args, **kwargs)

        def run(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return super().run(*args, **kwargs)
            finally:
                self.busy += time.perf_counter() - start

        def _pull(self):
            start = time.perf_counter()
            try:
                return super()._pull()
            finally:
                self.pulling += time.perf_counter() - start

        def clock(self) -> dict[str, float]:
            return {"wall": time.perf_counter(), "busy": self.busy, "pulling": self.pulling, "cpu": time.process_time()}

    return TimedActor


def children_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds so far of every process descended from this one (Ray's daemons and workers), from /proc."""
    ticks, parents, stats = os.sysconf("SC_CLK_TCK"), {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue
            name, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
            parents[int(entry.name)] = int(rest[1])
            stats[int(entry.name)] = (name, (int(rest[11]) + int(rest[12])) / ticks)
    found, frontier = {}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = stats[pid]
                frontier.append(pid)
    return found


@dataclass
class Measured:
    """A training loop's agent steps per wall-second (median over rounds) and its time split per agent step."""

    rate: float
    split: dict[str, float] = field(default_factory=dict)
    actors: list[dict[str, float]] = field(default_factory=list)


class GdiLoop:
    """GDI-I3's training loop on one world, run in slots of wall time; keeps each slot's rate and the time split.

    With `actors` > 1 the actors are Ray actor processes (timed as :func:`timed_actor_class` does).
    """

    def __init__(self, world: str, envs: int, actors: int, folder: Path):
        from zoo import build_trial, get_registry

        text = spec(world, f"{{type: gdi-i3, num_envs: {envs // actors}, actors: {actors}, {WORLDS[world][1]}}}")
        self.remote = actors > 1
        if self.remote:
            from zoo_learner import distributed

            text = text.model_copy(update={"backend": RAY})
            plain, distributed.SubstrateActor = distributed.SubstrateActor, timed_actor_class()
        try:
            self.built = build_trial(text, get_registry(), seed=0, trial=0, directory=folder)
        finally:
            if self.remote:
                distributed.SubstrateActor = plain
        self.agent, self.system, self.clock = self.built.agent, self.built.agent.system, Clock()
        for _ in range(2 * actors):  # warm-up: every actor delivers
            self.agent.train_step()
        for name in ("collect", "train"):
            self.clock.wrap(self.system, name, name)
        self.clock.wrap(self.system.server, "push", "push")
        self.rates, self.steps, self.wall, self.cpu, self.daemons = [], 0, 0.0, 0.0, 0.0
        self.actor_totals = [defaultdict(float) for _ in range(actors)] if self.remote else []

    def run(self, seconds: float) -> None:
        system = self.system
        if self.remote:
            actors, processes = system.ray.get([a.clock.remote() for a in system.actors]), children_cpu()
        start, cpu, steps = time.perf_counter(), time.process_time(), self.agent.steps
        while time.perf_counter() - start < seconds:
            self.agent.train_step()
        wall, steps = time.perf_counter() - start, self.agent.steps - steps
        self.rates.append(steps / wall)
        self.steps, self.wall, self.cpu = self.steps + steps, self.wall + wall, self.cpu + time.process_time() - cpu
        if self.remote:
            after = system.ray.get([a.clock.remote() for a in system.actors])
            for totals, old, new in zip(self.actor_totals, actors, after):
                for key in new:
                    totals[key] += new[key] - old[key]
            pids = set(system.ray.get([a.ready.remote() for a in system.actors]))
            self.daemons += sum(cpu - processes.get(pid, ("", 0.0))[1]
                                for pid, (_, cpu) in children_cpu().items() if pid not in pids)

    def measured(self) -> Measured:
        """The median slot rate; CPU and wall milliseconds per agent step; each actor's busy and pulling shares."""
        per_step = {f"{k} wall": 1e3 * v / self.steps for k, v in self.clock.wall.items()}
        per_step |= {f"{k} cpu": 1e3 * v / self.steps for k, v in self.clock.cpu.items()}
        per_step |= {"wall": 1e3 * self.wall / self.steps, "process cpu": 1e3 * self.cpu / self.steps,
                     "ray daemons cpu": 1e3 * self.daemons / self.steps}
        actors = [{"busy": t["busy"] / t["wall"], "pulling": t["pulling"] / t["wall"],
                   "cpu": 1e3 * t["cpu"] / self.steps} for t in self.actor_totals]
        return Measured(statistics.median(self.rates), per_step, actors)

    def close(self) -> None:
        self.agent.close()
        self.built.logger.close()


class PpoLoop:
    """SB3 PPO's learn() on a 2-process SubprocVecEnv, run in slots of wall time (after a warm-up rollout)."""

    def __init__(self, world: str):
        from stable_baselines3 import PPO
        from stable_baselines3.common.vec_env import SubprocVecEnv

        from zoo import get_registry

        env_block = spec(world, "{type: ppo}").env
        entry = get_registry().get("env", env_block.type)
        self.envs = SubprocVecEnv([lambda i=i: entry.factory(env_block, i) for i in range(2)])
        policy = "CnnPolicy" if world == "breakout" else "MlpPolicy"
        self.model = PPO(policy, self.envs, n_steps=128, batch_size=64, device="cpu", seed=0)
        self.model.learn(256)
        self.rates = []

    def run(self, seconds: float) -> None:
        from stable_baselines3.common.callbacks import BaseCallback

        class Stop(BaseCallback):
            def _on_training_start(self):
                self.start, self.steps = time.perf_counter(), self.num_timesteps

            def _on_step(self) -> bool:
                return time.perf_counter() - self.start < seconds

        stop = Stop()
        self.model.learn(10**9, callback=stop, reset_num_timesteps=False)
        self.rates.append((self.model.num_timesteps - stop.steps) / (time.perf_counter() - stop.start))

    def close(self) -> None:
        self.envs.close()


def object_store_costs(ray, world: str, folder: Path, repeats: int = 20) -> dict[str, float]:
    """Milliseconds per sequence handed from an actor process to this one, per push and per pull of a new version."""
    from zoo_learner.replay import FIELDS

    from zoo import build_trial, get_registry

    text = spec(world, f"{{type: gdi-i3, num_envs: 4, {WORLDS[world][1]}}}")
    built = build_trial(text, get_registry(), seed=0, trial=0, directory=folder)
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

        def pull(self, weights):
            start = time.perf_counter()
            ray.get(weights[0])
            return time.perf_counter() - start

    holder = Holder.remote(sequences)
    ray.get(holder.give.remote(0))
    per_sequence, push, pull = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        ray.get(holder.give.remote(0))
        empty = time.perf_counter() - start
        start = time.perf_counter()
        ray.get(holder.give.remote(len(sequences)))
        per_sequence.append((time.perf_counter() - start - empty) / len(sequences))
        start = time.perf_counter()
        reference = [ray.put(weights)]  # in a list, as the learner hands it to its actors
        push.append(time.perf_counter() - start)
        pull.append(ray.get(holder.pull.remote(reference)))
    ray.kill(holder)
    size = sum(a.nbytes for a in sequences[0].values()) / 1e6
    return {"sequence": 1e3 * statistics.median(per_sequence), "sequence MB": size,
            "push": 1e3 * statistics.median(push), "pull": 1e3 * statistics.median(pull),
            "weights MB": sum(t.numel() * t.element_size() for t in weights.values()) / 1e6}


def print_split(local: Measured, remote: Measured) -> None:
    """Where each setting's time went, the overhead of the Ray one and the speedup bound that allows."""
    acting, learning = local.split["collect cpu"], local.split["train cpu"]
    print(f"{'':12s}local: acting a {acting:.3f} + learning l {learning:.3f} ms CPU per step "
          f"({acting / (acting + learning):.0%} acting), {local.split['wall']:.3f} ms wall per step (the process "
          f"had a core {local.split['process cpu'] / local.split['wall']:.0%} of the time)")
    split = remote.split
    idle = split["collect wall"] - split["collect cpu"]
    print(f"{'':12s}ray learner: learning {split['train cpu'] - split['push cpu']:.3f} + pushing "
          f"{split['push cpu']:.3f} + receiving {split['collect cpu']:.3f} ms CPU per step, waiting for actors "
          f"{idle:.3f} of {split['wall']:.3f} ms wall ({idle / split['wall']:.0%}); it had a core "
          f"{split['process cpu'] / split['wall']:.0%} of the time")
    for k, actor in enumerate(remote.actors):
        print(f"{'':12s}ray actor {k}: busy {actor['busy']:.0%} of the wall time (pulling weights "
              f"{actor['pulling']:.0%}), {actor['cpu']:.3f} ms CPU per step")
    total = split["process cpu"] + sum(a["cpu"] for a in remote.actors) + split["ray daemons cpu"]
    overhead = total - acting - learning
    cores, alone = 2 * (acting + learning) / (acting + learning + overhead), (acting + learning) / learning
    learner = (acting + learning) / split["process cpu"]
    print(f"{'':12s}ray: {total:.3f} ms CPU per step (Ray's own processes {split['ray daemons cpu']:.3f}), "
          f"overhead o {overhead:.3f}; bound min(2(a+l)/(a+l+o) {cores:.2f}, (a+l)/l {alone:.2f}) = "
          f"x{min(cores, alone):.2f}; with the Ray learner's own l' {split['process cpu']:.3f}: "
          f"x{min(cores, learner):.2f}; measured x{remote.rate / local.rate:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0, help="wall time each way of training is measured for")
    parser.add_argument("--rounds", type=int, default=5, help="the three ways take turns in this many slots (each "
                        "reports its median slot), so that other load on the machine hits them alike")
    parser.add_argument("--envs", type=int, default=8, help="env slots of the substrate runs (split over 2 Ray actors)")
    parser.add_argument("--worlds", nargs="+", default=list(WORLDS), choices=list(WORLDS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"{cpu_description()}\nRay {ray.__version__} start-up (local, 2 CPUs): {time.perf_counter() - start:.1f} s")
    print(f"agent steps per wall-second, {args.seconds:g} s each in {args.rounds} turns (median), torch threads = 1:")
    with tempfile.TemporaryDirectory() as tmp:
        for world in args.worlds:
            loops = [GdiLoop(world, args.envs, 1, Path(tmp, f"{world}-local")),
                     GdiLoop(world, args.envs, 2, Path(tmp, f"{world}-ray")), PpoLoop(world)]
            try:
                for _ in range(args.rounds):
                    for loop in loops:
                        loop.run(args.seconds / args.rounds)
            finally:
                for loop in loops:
                    loop.close()
            local, remote, ppo = loops[0].measured(), loops[1].measured(), statistics.median(loops[2].rates)
            print(f"  {world:9s} gdi-i3 local {local.rate:7.0f}   gdi-i3 2 Ray actors {remote.rate:7.0f} "
                  f"(x{remote.rate / local.rate:.2f} of local)   SB3 PPO 2 subprocesses {ppo:7.0f} "
                  f"(ray x{remote.rate / ppo:.2f} of it)")
            print_split(local, remote)
        for world in args.worlds:
            cost = object_store_costs(ray, world, Path(tmp, f"{world}-costs"))
            print(f"  {world:9s} object store: {cost['sequence']:.3f} ms per sequence ({cost['sequence MB']:.2f} MB), "
                  f"push {cost['push']:.2f} ms and pull {cost['pull']:.2f} ms per version "
                  f"({cost['weights MB']:.2f} MB of weights)")
    ray.shutdown()


if __name__ == "__main__":
    main()
