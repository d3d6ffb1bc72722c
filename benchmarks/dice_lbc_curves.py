"""Learning curves at equal step budgets: DiCE vs its baseline and ablations, LBC vs its ablations.

Each agent trains `--steps` environment steps per seed on one env spec; the script prints the mean
raw return of consecutive windows of finished training episodes (per agent, averaged over seeds)
and the CPU seconds used, and writes every episode to a CSV. On GOHR the return is minus the errors
of an episode, so the sum over episodes is the negative TCE (shown as 'TCE').

    OMP_NUM_THREADS=1 python benchmarks/dice_lbc_curves.py --env "{type: gym, id: CartPole-v1}" --steps 50000
    OMP_NUM_THREADS=1 python benchmarks/dice_lbc_curves.py --env "{type: gohr, rule: paper/color_match}" --steps 100000
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

AGENTS = {
    "dice": "{type: dice}",
    "dice-baseline": "{type: dice, ablation: baseline}",
    "dice-random": "{type: dice, ablation: random}",
    "dice-entropy": "{type: dice, ablation: entropy}",
    "lbc": "{type: lbc}",
    "lbc-reduce-H": "{type: lbc, ablation: reduce_H}",
    "lbc-reduce-H-Psi": "{type: lbc, ablation: reduce_H_and_Psi}",
    "lbc-random": "{type: lbc, ablation: random_selection}",
}


def run(env: str, agent: str, steps: int, seed: int) -> tuple[list[tuple[int, float]], float]:
    from zoo.registry import get_registry
    from zoo.run import build_trial
    from zoo.spec import load_spec_text

    registry = get_registry()
    spec = load_spec_text(f"env: {env}\nagent: {agent}\nbudget: {{steps: {steps}}}\n", registry)
    with tempfile.TemporaryDirectory() as folder:
        built = build_trial(spec, registry, seed=seed, trial=0, directory=Path(folder), tensorboard=False)
        start = time.process_time()
        built.agent.learn(steps)
        cpu = time.process_time() - start
        built.agent.close()
        built.logger.close()
        rows = [json.loads(line) for line in (Path(folder) / "metrics.jsonl").read_text().splitlines()]
    return [(r["step"], r["episode_return"]) for r in rows if "episode_return" in r], cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="the env block of a spec, in YAML flow style")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--csv", default="dice-lbc-curves.csv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    edges = np.linspace(0, args.steps, args.windows + 1)
    with open(args.csv, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["agent", "seed", "step", "episode_return"])
        print(f"{args.env}, {args.steps} steps, {args.seeds} seeds: mean episode return per step window")
        print(f"{'agent':18s}" + "".join(f"{int(b):>10d}" for b in edges[1:]) + f"{'TCE':>12s}{'CPU-s':>8s}")
        for name in args.agents.split(","):
            curves, tces, cpus = [], [], []
            for seed in range(args.seeds):
                episodes, cpu = run(args.env, AGENTS[name], args.steps, seed)
                out.writerows([name, seed, s, g] for s, g in episodes)
                steps, returns = np.array([e[0] for e in episodes]), np.array([e[1] for e in episodes])
                curves.append([returns[(steps > lo) & (steps <= hi)].mean() if ((steps > lo) & (steps <= hi)).any()
                               else np.nan for lo, hi in zip(edges[:-1], edges[1:])])
                tces.append(-returns[steps <= args.steps].sum())
                cpus.append(cpu)
            mean = np.nanmean(np.array(curves), axis=0)
            print(f"{name:18s}" + "".join(f"{v:10.1f}" for v in mean) + f"{np.mean(tces):12.0f}{np.mean(cpus):8.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
