"""GOHR learning curves at equal step budgets: GDI-I3, GDI-H3, GDI-I3 without E, SB3 PPO/DQN, the paper's linear DQN.

Every agent trains `--steps` moves per trial (one trial per seed) on each rule, with the GOHR paper's
boards (9 pieces, 4 shapes, 4 colors, horizon 100), through zoo's own run folders (`prepare_run`,
`run_unit`). An error is a move with reward -1, so an episode's errors are minus its return, as
zoo_gohr_study reads them. For each rule the script prints, per agent and averaged over trials:
the errors per move of the episodes ending in consecutive step windows (the learning curve; 0 is
perfect play), the TCE (errors summed over every episode that ended within the budget), the
episodes finished, and the CPU seconds per trial. The linear DQN is `gohr-linear-dqn` with the
settings of examples/gohr-paper-section5.yaml.

    OMP_NUM_THREADS=1 python benchmarks/gdi_gohr_curves.py [--steps 20000] [--seeds 2]
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

RULES = ("paper/b3_then_b1", "paper/color_match")
BOARD = "{type: gohr, rule: %s, horizon: 100, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}"
AGENTS = {
    "gdi-i3": "{type: gdi-i3}",
    "gdi-h3": "{type: gdi-h3}",
    "gdi-i3-without-E": "{type: gdi-i3, ablation: random_selection}",
    "ppo": "{type: ppo, n_envs: 8, n_steps: 128}",
    "dqn": "{type: dqn, learning_starts: 1000, buffer_size: 50000, exploration_fraction: 0.2}",
    "linear-dqn (paper)": "{type: gohr-linear-dqn, replay_size: 1000, batch_size: 128, eps_start: 0.9, eps_end: 0.001, "
                          "eps_decay: 200, loss: mse, mask_actions: false, gamma: 1.0, lr: 0.01, target_period: 200, "
                          "target_unit: episodes}",
}


def run(env: str, agent: str, steps: int, trials: int, root: Path) -> tuple[list[np.ndarray], float]:
    """Per trial, the (step, errors, moves) rows of its episodes; and the CPU seconds per trial."""
    from zoo.metrics import read_metrics
    from zoo.registry import get_registry
    from zoo.run import load_run_spec, prepare_run, run_unit, trial_units

    registry = get_registry()
    source = root / "spec.yaml"
    source.write_text(f"env: {env}\nagent: {agent}\nbudget: {{steps: {steps}}}\ntrials: {trials}\nseed: 0\n"
                      "logging: {tensorboard: false, keep_checkpoints: 1}\n")
    folder = prepare_run(source, registry, root)
    start = time.process_time()
    for unit in trial_units(load_run_spec(folder, registry), registry):
        run_unit(folder.path, unit, registry=registry)
    cpu = (time.process_time() - start) / trials
    episodes = []
    for trial in range(trials):
        rows = [r for r in read_metrics(folder.trial_dir(trial) / "metrics.jsonl") if "episode_return" in r]
        episodes.append(np.array([(r["step"], -r["episode_return"], r.get("episode_length", r.get("episode_moves")))
                                  for r in rows if r["step"] <= steps], float).reshape(-1, 3))
    return episodes, cpu


def error_rates(episodes: np.ndarray, edges: np.ndarray) -> list[float]:
    """Errors per move of the episodes that ended in each step window."""
    step, errors, moves = episodes.T
    inside = [(step > lo) & (step <= hi) for lo, hi in zip(edges[:-1], edges[1:])]
    return [errors[i].sum() / moves[i].sum() if i.any() else np.nan for i in inside]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--windows", type=int, default=4)
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--agents", default=",".join(AGENTS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    edges = np.linspace(0, args.steps, args.windows + 1)
    for rule in args.rules.split(","):
        print(f"\n{rule}: {args.steps} moves per trial, {args.seeds} trials; errors per move by step window")
        print(f"{'agent':19s}" + "".join(f"{'<=' + str(int(b)):>9s}" for b in edges[1:])
              + f"{'TCE':>9s}{'episodes':>10s}{'CPU-s':>7s}")
        for name in args.agents.split(","):
            with tempfile.TemporaryDirectory() as folder:
                episodes, cpu = run(BOARD % rule, AGENTS[name], args.steps, args.seeds, Path(folder))
            curve = np.nanmean([error_rates(e, edges) for e in episodes], axis=0)
            tce = np.mean([e[:, 1].sum() for e in episodes])
            count = np.mean([len(e) for e in episodes])
            print(f"{name:19s}" + "".join(f"{v:9.3f}" for v in curve) + f"{tce:9.0f}{count:10.0f}{cpu:7.0f}", flush=True)


if __name__ == "__main__":
    main()
