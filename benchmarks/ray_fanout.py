"""Trial fan-out: the same short trials under the ray backend and the local process pool, side by side.

N trials of one spec (CartPole PPO or GOHR SARSA) train under ``backend: {type: local, workers: W}``
and under ``backend: {type: ray, workers: W}`` on a Ray started here with W CPUs; both runs go
through `zoo.execute_run`, as ``zoo train`` does. Ray's start-up is timed apart from the run.
Prints the wall time of each backend, the ratio ray / local (the goal is at most 1.15) and the CPU.

    python benchmarks/ray_fanout.py [--world cartpole|gohr] [--trials 8] [--workers 2] [--repeats 1]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402

WORLDS = {
    "cartpole": ("env: {type: gym, id: CartPole-v1}\n"
                 "agent: {type: ppo, n_steps: 256, batch_size: 64, n_epochs: 4}\n"
                 "budget: {steps: 4096, checkpoint_every: 1024}\n"),
    "gohr": ("env: {type: gohr, rule: paper/clockwise, horizon: 100}\n"
             "agent: {type: sarsa, features: {type: gohr-paper}, reward_norm: none}\n"
             "budget: {episodes: 40, checkpoint_every: 10}\n"),
}


def spec_text(world: str, trials: int, backend: str) -> str:
    return (WORLDS[world] + f"trials: {trials}\nseed: 0\nbackend: {backend}\n"
            "logging: {tensorboard: false, progress: false, keep_checkpoints: 1}\n")


def timed_run(root: Path, name: str, text: str) -> float:
    """Wall seconds of preparing and training one run of `text`."""
    from zoo import execute_run, get_registry, prepare_run

    source = root / f"{name}.yaml"
    source.write_text(text)
    started = time.perf_counter()
    folder = prepare_run(source, get_registry(), root / "runs", root / "runs" / name)
    status = execute_run(folder, get_registry(), progress=False)
    elapsed = time.perf_counter() - started
    if status != "finished":
        raise SystemExit(f"{name}: run ended {status}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", choices=sorted(WORLDS), default="cartpole")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="runs per backend, alternating; the best of each is compared")
    args = parser.parse_args()

    import ray

    print(f"cpu: {cpu_description()}")
    print(f"{args.trials} {args.world} trials, {args.workers} at once; {args.repeats} run(s) per backend")
    started = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    print(f"ray start-up: {time.perf_counter() - started:.2f} s (not counted below)")
    local, remote = [], []
    with tempfile.TemporaryDirectory(prefix="zoo-ray-fanout-") as scratch:
        root = Path(scratch)
        for repeat in range(args.repeats):
            local.append(timed_run(root, f"local-{repeat}", spec_text(args.world, args.trials,
                                                                      f"{{type: local, workers: {args.workers}}}")))
            remote.append(timed_run(root, f"ray-{repeat}", spec_text(args.world, args.trials,
                                                                     f"{{type: ray, workers: {args.workers}}}")))
            print(f"  run {repeat}: local pool {local[-1]:.2f} s, ray {remote[-1]:.2f} s")
    ray.shutdown()
    best_local, best_ray = min(local), min(remote)
    print(f"local pool: {best_local:.2f} s")
    print(f"ray:        {best_ray:.2f} s")
    print(f"ratio ray / local pool: {best_ray / best_local:.3f} (goal: at most 1.15)")


if __name__ == "__main__":
    main()
