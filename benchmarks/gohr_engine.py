"""Moves per second of the GOHR engine under random actions: (a) GohrEnv, (b) GohrVectorEnv.

Both loops include drawing the random actions (numpy) and building what the env returns
(observation copies, info, action masks); episodes autoreset (horizon moves or board cleared).
Rates are per CPU-second of this process (time.process_time) and per wall-clock second. (b) is
also measured with ``copy=False`` (the env's observation buffer returned uncopied; copying it is
~0.1 us a move), reported separately: the targets are checked against the default, copied form.

    python benchmarks/gohr_engine.py [--seconds 2] [--num-envs 4096] [--rules paper/clockwise ...]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import platform
import time

import numpy as np
from zoo_gohr.engine.constants import ACTIONS
from zoo_gohr.plugin import GohrEnvParams, make_env, make_vector_env

RULES = ["paper/color_match", "paper/clockwise", "paper/b23_then_b01", "paper/b3_then_b1",
         "gohr/MLC/BMK/position_A", "gohr/FDCL/basic/ordL1_Nearby",  # orders
         "gohr/pk/history_A", "gohr/vm/gs5-example06"]                # expressions
SERVER = {"board after each move": 3_500, "status line only": 10_000}  # the authors' CGS (quoted, not measured)
TARGET_SINGLE, TARGET_VECTOR = 50_000, 1_000_000
CHUNK = 4096


def _timed(step_batch, seconds: float, warmup: float) -> tuple[float, float, float]:
    """Run ``step_batch() -> moves`` for ``warmup`` then ``seconds`` CPU seconds: (moves/CPU s, moves/wall s, accepted share)."""
    for phase in (warmup, seconds):
        moves = accepted = 0
        cpu, wall = time.process_time(), time.perf_counter()
        while time.process_time() - cpu < phase:
            n, a = step_batch()
            moves, accepted = moves + n, accepted + a
    return moves / (time.process_time() - cpu), moves / (time.perf_counter() - wall), accepted / max(moves, 1)


def single_env(rule: str, horizon: int, seed: int):
    env = make_env(GohrEnvParams(rule=rule, horizon=horizon), seed)
    rng = np.random.default_rng(seed)

    def batch():
        accepted = 0
        for action in rng.integers(0, ACTIONS, CHUNK).tolist():
            _, reward, terminated, truncated, _ = env.step(action)
            accepted += reward == 0.0
            if terminated or truncated:
                env.reset()
        return CHUNK, accepted
    return batch


def vector_env(rule: str, horizon: int, seed: int, num_envs: int, copy: bool):
    envs = make_vector_env(GohrEnvParams(rule=rule, horizon=horizon), num_envs, seed)
    envs.copy = copy
    rng = np.random.default_rng(seed)

    def batch():
        info = envs.step(rng.integers(0, ACTIONS, num_envs))[4]
        return num_envs, int(info["accepted"].sum())
    return batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds measured per rule and env kind")
    parser.add_argument("--warmup", type=float, default=0.3, help="CPU seconds run before measuring")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--horizon", type=int, default=100)
    parser.add_argument("--rules", nargs="+", default=RULES)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    print(f"GOHR engine, random actions, horizon {args.horizon}; {platform.python_version()} on "
          f"{platform.machine()} ({os.cpu_count()} cores, 1 thread); (b): {args.num_envs} envs")
    head = (f"{'rule':30} {'(a) CPU/s':>10} {'wall/s':>9} {'acc%':>5} {'(b) CPU/s':>11} {'wall/s':>10} {'acc%':>5} "
            f"{'b/a':>5} {'(b) no copy':>12}")
    print(head + "\n" + "-" * len(head))
    rates = []
    for rule in args.rules:
        a = _timed(single_env(rule, args.horizon, args.seed), args.seconds, args.warmup)
        b = _timed(vector_env(rule, args.horizon, args.seed, args.num_envs, True), args.seconds, args.warmup)
        b_view = _timed(vector_env(rule, args.horizon, args.seed, args.num_envs, False), args.seconds, args.warmup)
        rates.append((a[0], b[0], b_view[0], rule.startswith("paper/")))
        print(f"{rule:30} {a[0]:10,.0f} {a[1]:9,.0f} {100 * a[2]:5.1f} {b[0]:11,.0f} {b[1]:10,.0f} "
              f"{100 * b[2]:5.1f} {b[0] / a[0]:5.1f} {b_view[0]:12,.0f}", flush=True)

    low_a, low_b, low_view = (min(r[k] for r in rates) for k in (0, 1, 2))
    print("\nreference, the authors' server (quoted, not measured): "
          + ", ".join(f"{v:,} moves/s with the {k}" for k, v in SERVER.items()))
    print(f"slowest rule, per CPU second: (a) {low_a:,.0f} = {low_a / SERVER['status line only']:.1f}x the server's "
          f"status-line rate; (b) {low_b:,.0f} = {low_b / SERVER['status line only']:.0f}x")
    for name, low, target in (("(a)", low_a, TARGET_SINGLE), ("(b)", low_b, TARGET_VECTOR)):
        print(f"target {name} {target:,} moves/s: slowest rule at {low / target:.2f}x "
              f"({'met' if low >= target else 'NOT met'})")
    paper = [r[1] for r in rates if r[3]]
    if paper:
        print(f"target (b) on the paper's rules: slowest at {min(paper) / TARGET_VECTOR:.2f}x "
              f"({'met' if min(paper) >= TARGET_VECTOR else 'NOT met'})")
    print(f"(b) with copy=False, slowest rule at {low_view / TARGET_VECTOR:.2f}x the target")


if __name__ == "__main__":
    main()
