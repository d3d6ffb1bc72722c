"""rl-baselines3-zoo's tuned PPO and DQN for CartPole-v1, imported by `zoo import-rlzoo` and trained by the zoo.

Imports the CartPole-v1 entries of rl-zoo3's hyperparams/ppo.yml and dqn.yml (the rl-zoo3 package, the
`rlzoo` extra), trains each at its own budget (n_timesteps: 100k for PPO, 50k for DQN) on several seeds,
evaluates each trial's final policy greedily and prints the mean return over seeds with a 95% t-interval
beside rl-baselines3-zoo's published score. That score is from the "Performance of trained agents" table of
rl-baselines3-zoo's benchmark.md (DLR-RM/rl-baselines3-zoo): one trained agent per algorithm, evaluated
deterministically for 150,000 steps (300 episodes): ppo CartPole-v1 500.000 +- 0.000 at 100k steps,
dqn CartPole-v1 500.000 +- 0.000 at 50k steps.

    python benchmarks/rlzoo_cartpole.py [--seeds 5] [--eval-episodes 20] [--steps N] [--runs-dir DIR]

`--steps N` cuts every budget to N steps, to check that the script works; its returns mean nothing.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from scipy import stats

#: rl-baselines3-zoo's benchmark.md, "Performance of trained agents": (mean, std) of the deterministic return
PUBLISHED = {"ppo": (500.0, 0.0), "dqn": (500.0, 0.0)}
ENV = "CartPole-v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="trials (seeds) per algorithm")
    parser.add_argument("--eval-episodes", type=int, default=20, help="greedy evaluation episodes per trial")
    parser.add_argument("--steps", type=int, default=None, help="cut each budget to this many steps (a check of the script)")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    args = parser.parse_args()

    import rl_zoo3

    sys.path.insert(0, str(Path(__file__).parent))
    from maskable_gohr import cpu_description
    from zoo_sb3.rlzoo import import_entry, read_entries

    from zoo import Overrides, execute_run, get_registry, prepare_run

    registry = get_registry()
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="zoo-rlzoo-cartpole-"))
    runs_dir.mkdir(parents=True, exist_ok=True)
    hyperparams = Path(rl_zoo3.__file__).parent / "hyperparams"
    print(f"machine: {cpu_description()}; rl-zoo3 {rl_zoo3.__version__}; {args.seeds} seeds; "
          f"{args.eval_episodes} greedy evaluation episodes per seed")
    for algo, (published, published_std) in PUBLISHED.items():
        imported = import_entry(read_entries(hyperparams / f"{algo}.yml"), ENV, algo, registry)
        if imported.unmapped:
            raise SystemExit(f"{algo}: not mapped: {imported.unmapped}")
        spec = runs_dir / f"{algo}.yaml"
        spec.write_text(imported.yaml(f"{ENV} from rl-zoo3's {algo}.yml"))
        sets = [f"budget.eval_episodes={args.eval_episodes}"] + ([f"budget.steps={args.steps}"] if args.steps else [])
        folder = prepare_run(spec, registry, runs_dir, runs_dir / algo, Overrides(tuple(sets), trials=args.seeds))
        execute_run(folder, registry, progress=False)
        results = [json.loads((folder.trial_dir(t) / "result.json").read_text()) for t in range(args.seeds)]
        cpu = sum(r["cpu_seconds"] for r in results)
        returns = np.array([r["eval_mean"] for r in results])
        low, high = _interval(returns)
        print(f"{algo} {ENV}: {results[0]['steps']:,} steps per seed ({cpu:.0f} CPU-s): mean return {returns.mean():.1f} "
              f"(95% CI {low:.1f} to {high:.1f}), per seed {[round(float(x), 1) for x in returns]}; "
              f"rl-baselines3-zoo's published {published:.1f} +- {published_std:.1f}")


def _interval(values: np.ndarray) -> tuple[float, float]:
    """The 95% t-interval of the mean (the mean itself when the values do not vary)."""
    if len(values) < 2 or values.std() == 0:
        return float(values.mean()), float(values.mean())
    return stats.t.interval(0.95, len(values) - 1, loc=values.mean(), scale=stats.sem(values))


if __name__ == "__main__":
    main()
