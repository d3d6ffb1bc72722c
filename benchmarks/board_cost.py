"""The cost of a board over tasks: projected CPU hours per agent, the step budget that fits a time, and scoring time.

Each agent of the board trains one short cell (--task, or the first task the agent plays, --steps
steps, one trial) through the same code as ``zoo leaderboard``, in this process with one torch
thread. Its CPU seconds per step, times the board's steps per trial, trials and the tasks it plays,
give the agent's CPU hours on the whole board; the sum over agents, divided among --cores idle cores,
the board's wall time (every trial is a job of its own; evaluation episodes are not counted). The
script then prints the steps per trial that would make the whole board fit --hours on --cores, the
way leaderboards/minatar-v1.yaml's budget was chosen.

Last, it scores a board of the file's size (agents x tasks x trials) on synthetic results, through the
same code as ``zoo leaderboard`` (rliable's aggregates, probabilities of improvement, profiles, the
figures and pages), and prints how long that takes.

    python benchmarks/board_cost.py leaderboards/minatar-v1.yaml [--steps 3000] [--task breakout]
                                    [--agents random ppo] [--hours 3] [--cores 2] [--no-training]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402


def short_board(board: dict, agent: str, task: str, steps: int) -> dict:
    """The board cut to one agent on one task: one trial of `steps` steps (and one evaluation episode)."""
    entry = {k: v for k, v in board["agents"][agent].items() if k not in ("budget", "tasks")}
    return board | {"name": "cost", "tasks": {task: board["tasks"][task]},
                    "budget": {"steps": steps, "eval_episodes": 1}, "trials": 1, "backend": {"workers": 1},
                    "logging": {"tensorboard": False, "progress": False, "keep_checkpoints": 1},
                    "agents": {agent: entry | {"trials": 1}}, "scores": {}}


def training_cost(args, loaded, board: dict, registry) -> None:
    from zoo_board.board import load_board
    from zoo_board.cells import cell_state, run_cell

    print(f"short cells: {args.steps} steps, one trial\n")
    print(f"{'agent':12s} {'task':14s} {'CPU-s':>7s} {'us/step':>8s} {'cells':>5s} {'board steps':>13s} "
          f"{'board CPU-h':>11s}")
    total, rates = 0.0, {}
    for label in args.agents or list(loaded.board.agents):
        plans = [c for c in loaded.cells if c.agent == label]
        played = [p.task for p in plans]
        task = args.task if args.task in played else played[0]
        with tempfile.TemporaryDirectory(prefix="zoo-board-cost-") as scratch:
            path = Path(scratch) / "board.yaml"
            path.write_text(yaml.safe_dump(short_board(board, label, task, args.steps)))
            cell = load_board(path, registry).cells[0]
            started = time.process_time()
            status = run_cell(cell_state(cell, Path(scratch) / "runs"), registry, Path(scratch) / "runs", progress=False)
            cpu = time.process_time() - started
        if status != "finished":
            raise SystemExit(f"{label}: the short cell ended {status}")
        rates[label] = (cpu / args.steps, sum(p.spec.trials for p in plans))
        steps = sum(p.spec.budget.steps * p.spec.trials for p in plans)
        hours = cpu / args.steps * steps / 3600
        total += hours
        print(f"{label:12s} {task:14s} {cpu:7.1f} {cpu / args.steps * 1e6:8.0f} {len(plans):5d} {steps:13,d} "
              f"{hours:11.2f}", flush=True)
    print(f"\nboard CPU time {total:.1f} h; on {args.cores} idle cores about {total / args.cores:.1f} h")
    per_step = sum(rate * trials for rate, trials in rates.values())  # CPU-s per step of every trial of every cell
    print(f"steps per trial for the whole board in {args.hours:g} h on {args.cores} cores: "
          f"{args.hours * 3600 * args.cores / per_step:,.0f}")


def scoring_cost(loaded, episodes: int) -> None:
    """Score the board on synthetic results: returns drawn per agent and task, `episodes` training episodes."""
    from zoo_board.cells import CellState
    from zoo_board.outputs import write_csv, write_figures, write_html, write_json, write_markdown
    from zoo_board.plan import publish_specs
    from zoo_board.readout import Cell
    from zoo_board.scores import build

    rng = np.random.default_rng(0)
    cells, states = {}, []
    with tempfile.TemporaryDirectory(prefix="zoo-board-scoring-") as scratch:
        for k, plan in enumerate(loaded.cells):
            trials = plan.spec.trials
            steps = np.sort(rng.integers(1, plan.spec.budget.steps, (trials, episodes)), axis=1)
            cells[(plan.agent, plan.task)] = Cell(plan.agent, plan.task, rng.normal(k % 7, 1.0, trials),
                                                  [np.stack([s, rng.normal(0, 1, episodes)], axis=1) for s in steps])
            states.append(CellState(plan, Path(scratch) / "runs" / plan.run_name, "cached", "finished"))
        out = Path(scratch) / "out"
        started = time.perf_counter()
        results = build(loaded, states, cells, out)
        scored = time.perf_counter()
        publish_specs(loaded.cells, Path(scratch) / "runs", out)
        write_json(results, out / "leaderboard.json")
        write_csv(results, out)
        write_figures(results, out)
        write_markdown(results, out / "leaderboard.md")
        write_html(results, out)
        written = time.perf_counter()
    trials = sorted({p.spec.trials for p in loaded.cells})
    print(f"\nscoring {len(loaded.board.agents)} agents x {len(loaded.tasks)} tasks ({len(loaded.cells)} cells, "
          f"trials {'/'.join(map(str, trials))}, {episodes} training episodes per trial, "
          f"{loaded.board.scores.bootstraps} bootstrap resamples): results {scored - started:.1f} s, "
          f"outputs {written - scored:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("board", type=Path)
    parser.add_argument("--steps", type=int, default=3000, help="steps of each agent's short cell")
    parser.add_argument("--task", help="the task of the short cells (default: each agent's first)")
    parser.add_argument("--agents", nargs="*", help="only these agents (default: all)")
    parser.add_argument("--hours", type=float, default=3.0, help="the wall time the board should fit")
    parser.add_argument("--cores", type=int, default=2, help="idle cores the board runs on")
    parser.add_argument("--episodes", type=int, default=500, help="training episodes per synthetic trial")
    parser.add_argument("--no-training", action="store_true", help="only the scoring time")
    args = parser.parse_args()

    import torch
    from zoo_board.board import load_board

    from zoo import get_registry

    torch.set_num_threads(1)
    registry = get_registry()
    loaded = load_board(args.board, registry)
    print(f"board {loaded.board.name}: {len(loaded.board.agents)} agents x {len(loaded.tasks)} tasks, "
          f"{len(loaded.cells)} cells")
    print(f"CPU: {cpu_description()}")
    if not args.no_training:
        training_cost(args, loaded, yaml.safe_load(args.board.read_text()), registry)
    scoring_cost(loaded, args.episodes)


if __name__ == "__main__":
    main()
