"""The wall time a leaderboard will take, projected from one short cell per agent.

Each agent of the board trains one cell (one rule, --moves moves per trial, one trial; a batched
agent trains --batch trials at once) through the same code as ``zoo leaderboard``, in this process
with one torch thread. Its CPU seconds per move (per trial-move for batched agents), times the
board's moves, trials and rules, give the agent's CPU time on the whole board. Its wall time
counts rounds: a cell's trials run `workers` at a time (5 trials on 2 workers take 3 rounds), and a
batched agent's trials run as `workers` batches side by side. The projection assumes the machine's
cores are otherwise idle; start-up costs are counted in the short cell, so it errs long.

    python benchmarks/leaderboard_walltime.py leaderboards/gohr-v1.yaml [--rule paper/clockwise]
                                              [--moves 2000] [--batch 10] [--agents random ppo]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import platform
import tempfile
import time
from pathlib import Path

import yaml


def cpu_description() -> str:
    """The CPU model and its vector extensions (from /proc/cpuinfo where there is one)."""
    model, flags = platform.processor() or platform.machine(), []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = [f for f in value.split() if f.startswith(("sse4", "avx", "fma", "amx"))]
                break
    except OSError:
        pass
    return f"{model}; {os.cpu_count()} logical CPUs; vector extensions: {' '.join(sorted(set(flags))) or 'unknown'}"


def short_board(board: dict, agent: str, rule: str, moves: int, trials: int) -> dict:
    """The board cut to one agent on one rule, `trials` trials of `moves` moves, in one process."""
    entry = dict(board["agents"][agent], trials=trials)
    entry.pop("budget", None)
    return board | {"name": "walltime", "rules": [rule], "budget": {"steps": moves}, "trials": trials,
                    "backend": {"workers": 1}, "logging": {"tensorboard": False, "progress": False,
                                                          "keep_checkpoints": 1},
                    "agents": {agent: entry}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("board", type=Path)
    parser.add_argument("--rule", default="paper/clockwise")
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=10, help="trials of a batched agent's short cell")
    parser.add_argument("--agents", nargs="*", help="only these agents (default: all)")
    args = parser.parse_args()

    import torch
    from zoo_board.cells import cell_state, run_cell
    from zoo_gohr_study.leaderboard.board import load_board

    from zoo import get_registry

    torch.set_num_threads(1)
    registry = get_registry()
    full = load_board(args.board, registry)
    board = yaml.safe_load(args.board.read_text())
    rules, workers = len(full.rules), full.board.backend.get("workers", 1)
    print(f"board {full.board.name}: {len(full.board.agents)} agents x {rules} rules; {workers} workers")
    print(f"CPU: {cpu_description()}")
    print(f"short cells: {args.rule}, {args.moves} moves per trial\n")
    print(f"{'agent':12s} {'trials':>6s} {'CPU-s':>8s} {'us/move':>9s} {'board moves':>12s} {'board CPU-h':>11s} "
          f"{'wall h':>7s}")
    total = wall = 0.0
    for label in args.agents or list(full.board.agents):
        plan = next(c for c in full.cells if c.agent == label)
        batched = registry.get("agent", plan.spec.agent.type).batched_trials
        trials = args.batch if batched else 1
        with tempfile.TemporaryDirectory(prefix="zoo-walltime-") as scratch:
            path = Path(scratch) / "board.yaml"
            path.write_text(yaml.safe_dump(short_board(board, label, args.rule, args.moves, trials)))
            cell = load_board(path, registry).cells[0]
            started = time.process_time()
            status = run_cell(cell_state(cell, Path(scratch) / "runs"), registry, Path(scratch) / "runs", progress=False)
            cpu = time.process_time() - started
        if status != "finished":
            raise SystemExit(f"{label}: the short cell ended {status}")
        per_move = cpu / (args.moves * trials)
        per_trial = plan.spec.budget.amount
        if plan.spec.budget.unit != "steps":
            per_trial *= plan.spec.env.horizon  # an episode budget: at most `horizon` moves per episode
        moves = per_trial * plan.spec.trials * rules
        lanes = min(workers, plan.spec.trials)
        rounds = 1 / lanes if batched else -(-plan.spec.trials // lanes) / plan.spec.trials
        hours = per_move * moves / 3600
        total, wall = total + hours, wall + hours * rounds
        print(f"{label:12s} {trials:6d} {cpu:8.1f} {per_move * 1e6:9.0f} {moves:12,d} {hours:11.2f} "
              f"{hours * rounds:7.2f}", flush=True)
    print(f"\nboard CPU time {total:.1f} h; wall time on {workers} idle cores about {wall:.1f} h")


if __name__ == "__main__":
    main()
