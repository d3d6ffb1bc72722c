"""DiCE's two evaluation modes on the same trained agents: Omega's best region (the default) and a fresh Omega.

Per seed, DiCE (the `cpu_small` preset with the settings of examples/gohr-dice.yaml by default) trains
`--steps` steps once; then `--episodes` evaluation episodes are played with `evaluation: best_region`
(each tau drawn inside the best region of the trained Omega, Section 4.1 of the DiCE paper) and as
many with `evaluation: mechanism` (a fresh Omega, sampled and updated episode by episode), on the
same episode seeds. The script prints each mode's mean evaluation return per seed, their means, the
ratio best_region / mechanism, a paired Wilcoxon p-value, and the CPU model.

    OMP_NUM_THREADS=1 python benchmarks/dice_evaluation.py --seeds 5 --steps 30000 --episodes 20
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from leaderboard_walltime import cpu_description  # noqa: E402
from learning_curves import load  # noqa: E402
from scipy.stats import wilcoxon  # noqa: E402

GOHR = "{type: gohr, rule: paper/color_match, horizon: 100}"
DICE_ON_GOHR = ("type: dice, preset: cpu_small, gamma: 0.9, reuse: 8, length: 10, burn_in: 5, "
                "network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}")


def evaluation_returns(spec, steps: int, seed: int, episodes: int) -> dict[str, float]:
    """Mean evaluation return of each mode after training one agent `steps` steps with `seed`."""
    from zoo import build_trial, get_registry

    with tempfile.TemporaryDirectory() as folder:
        built = build_trial(spec, get_registry(), seed=seed, trial=0, directory=Path(folder))
        agent = built.agent
        agent.learn(steps)
        means = {}
        for mode in ("best_region", "mechanism"):
            agent.params = agent.params.model_copy(update={"evaluation": mode})
            means[mode] = float(np.mean(agent.evaluate(episodes, seed=10_000 + seed)))
        agent.close()
        built.logger.close()
    return means


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default=GOHR, help="the env block of a spec, in YAML flow style")
    parser.add_argument("--agent", default=DICE_ON_GOHR, help="the dice agent block without braces (YAML flow style)")
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    spec = load(args.env, args.agent, args.steps)
    print(f"{args.env}\n{{{args.agent}}}: {args.steps} steps, then {args.episodes} evaluation episodes per mode; "
          f"seeds 0..{args.seeds - 1}\nCPU: {cpu_description()}")
    rows = []
    for seed in range(args.seeds):
        means = evaluation_returns(spec, args.steps, seed, args.episodes)
        rows.append((means["best_region"], means["mechanism"]))
        print(f"seed {seed}: best_region {means['best_region']:.2f}, mechanism {means['mechanism']:.2f}", flush=True)
    best, mechanism = np.array(rows).T
    p_value = wilcoxon(best, mechanism).pvalue if len(rows) > 1 and np.any(best != mechanism) else float("nan")
    ratio = best.mean() / mechanism.mean() if mechanism.mean() else float("nan")
    print(f"mean evaluation return: best_region {best.mean():.2f}, mechanism {mechanism.mean():.2f}; "
          f"difference {best.mean() - mechanism.mean():+.2f}, ratio {ratio + 0.0:.3f}; paired Wilcoxon p = {p_value:.3f}")


if __name__ == "__main__":
    main()
