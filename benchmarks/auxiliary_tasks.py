"""The auxiliary dynamics tasks' effect: one substrate agent with them off and on, at an equal step budget.

The GDI and LBC papers switch on forward and inverse dynamics tasks without giving a weight; their
`paper` presets use weight 1 for each (docs/algorithms/substrate.md#auxiliary-dynamics-tasks). This
trains the same agent block with `auxiliary` off and with `--auxiliary` (by default both tasks at
weight 1) over `--seeds` seeds, one seed after the other in this process, and prints per seed the
env's final score (GOHR: the trial's TCE, the errors summed over every episode, lower is better;
otherwise the mean return of the last 10% of training episodes), the means, their ratio (on / off),
a two-sided Mann-Whitney p-value, the CPU seconds of each and the CPU model.

    OMP_NUM_THREADS=1 python benchmarks/auxiliary_tasks.py --seeds 4 --steps 20000 \\
        --env "{type: gohr, rule: paper/color_match, horizon: 100, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}" \\
        --agent "type: gdi-i3, gamma: 0.9, reuse: 8, length: 10, burn_in: 5, network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}"
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from leaderboard_walltime import cpu_description  # noqa: E402
from learning_curves import final_score, load, run  # noqa: E402
from scipy.stats import mannwhitneyu  # noqa: E402

GOHR = "{type: gohr, rule: paper/color_match, horizon: 100, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}"
GDI_ON_GOHR = ("type: gdi-i3, gamma: 0.9, reuse: 8, length: 10, burn_in: 5, "
               "network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}")


def score(spec, returns: np.ndarray) -> float:
    """GOHR: the TCE (errors are minus the returns); else the mean return of the last 10% of episodes."""
    return float(-returns.sum()) if spec.env.type == "gohr" else final_score(returns)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default=GOHR, help="the env block of a spec, in YAML flow style")
    parser.add_argument("--agent", default=GDI_ON_GOHR, help="the agent block without braces (YAML flow style)")
    parser.add_argument("--auxiliary", default="{forward: 1.0, inverse: 1.0}", help="the auxiliary block switched on")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--seeds", type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(1)
    variants = {"off": args.agent, "on": f"{args.agent}, auxiliary: {args.auxiliary}"}
    results = {}
    print(f"{args.env}\n{{{args.agent}}}: {args.steps} steps, seeds 0..{args.seeds - 1}; auxiliary on = {args.auxiliary}")
    print(f"CPU: {cpu_description()}")
    for name, block in variants.items():
        spec = load(args.env, block, args.steps)
        runs = [run(spec, args.steps, seed) for seed in range(args.seeds)]
        scores = [score(spec, returns) for _, returns, _ in runs]
        cpu = float(np.mean([seconds for *_, seconds in runs]))
        results[name] = (np.array(scores), cpu)
        label = "TCE" if spec.env.type == "gohr" else "final return"
        print(f"auxiliary {name:3s}: {label} per seed {' '.join(f'{s:.1f}' for s in scores)}; "
              f"mean {np.mean(scores):.1f}; {cpu:.0f} CPU-s per run", flush=True)
    (on, cpu_on), (off, cpu_off) = results["on"], results["off"]
    p_value = mannwhitneyu(on, off, alternative="two-sided").pvalue if len(on) > 1 else float("nan")
    print(f"on / off: score {on.mean() / off.mean():.3f}, CPU {cpu_on / cpu_off:.2f}; Mann-Whitney p = {p_value:.3f}")


if __name__ == "__main__":
    main()
