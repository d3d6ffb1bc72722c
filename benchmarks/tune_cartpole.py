"""zoo tune against SB3's defaults: PPO on CartPole-v1 at a small, equal budget.

Tunes examples/tune/cartpole-ppo.yaml (PPO with SB3's default hyperparameters, 4,096 steps per
trial: two default rollouts) with examples/tune/cartpole-ppo-tune.yaml (TPE, median pruner), each
Optuna trial scored on `--tune-seeds` seeds so that a lucky seed does not pick the winner. Then it
trains the defaults and the best spec found on `--check-trials` seeds that tuning never saw, at
the same budget, and prints the mean and median evaluation return of each, their ratio and the
one-sided Mann-Whitney U-test of tuned > defaults.

    python benchmarks/tune_cartpole.py [--trials 16] [--tune-seeds 2] [--check-trials 10] [--runs-dir DIR]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from scipy.stats import mannwhitneyu

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "tune"
CHECK_SEED = 1000  # the seeds of the comparison: SeedSequence(1000), unlike tuning's seed 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=16, help="Optuna trials")
    parser.add_argument("--tune-seeds", type=int, default=2, help="seeds (trials of the spec) per Optuna trial")
    parser.add_argument("--check-trials", type=int, default=10, help="seeds of the defaults-against-best comparison")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).parent))
    from maskable_gohr import cpu_description
    from zoo_tune.tune import tune

    from zoo import Overrides, execute_run, get_registry, prepare_run

    registry = get_registry()
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="zoo-tune-cartpole-"))
    started = time.process_time()
    summary = tune(EXAMPLES / "cartpole-ppo-tune.yaml", registry, runs_dir, base=Overrides(trials=args.tune_seeds),
                   n_trials=args.trials)
    tuned = time.process_time() - started
    best = runs_dir / f"{summary['study']}.tune" / "best.yaml"

    def check(spec: Path, label: str) -> list[float]:
        folder = prepare_run(spec, registry, runs_dir, runs_dir / f"check-{label}",
                             Overrides(("name=check-" + label,), seed=CHECK_SEED, trials=args.check_trials))
        execute_run(folder, registry, progress=False)
        return [json.loads((folder.trial_dir(t) / "result.json").read_text())["eval_mean"] for t in range(args.check_trials)]

    started = time.process_time()
    defaults, tuned_returns = check(EXAMPLES / "cartpole-ppo.yaml", "defaults"), check(best, "best")
    checked = time.process_time() - started
    states = [t["state"] for t in summary["trials"]]
    steps = yaml.safe_load(best.read_text())["budget"]["steps"]
    print(f"machine: {cpu_description()}")
    print(f"tuning: {len(states)} trials of {args.tune_seeds} seeds ({states.count('complete')} complete, "
          f"{states.count('pruned')} pruned) in {tuned:.0f} CPU-s; best trial {summary['best']['number']}: "
          f"{summary['best']['value']:.1f}, "
          + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in summary["best"]["params"].items()))
    print(f"on {args.check_trials} unseen seeds at {steps:,} steps ({checked:.0f} CPU-s), mean of 10 greedy "
          "evaluation episodes per seed:")
    for label, values in (("SB3 defaults", defaults), ("tuned", tuned_returns)):
        print(f"  {label:12s}  mean {np.mean(values):6.1f}  median {np.median(values):6.1f}  "
              f"per seed {[round(x, 1) for x in values]}")
    p_value = mannwhitneyu(tuned_returns, defaults, alternative="greater").pvalue
    print(f"ratio tuned / defaults: {np.mean(tuned_returns) / max(np.mean(defaults), 1e-9):.2f} (means), "
          f"{np.median(tuned_returns) / max(np.median(defaults), 1e-9):.2f} (medians); "
          f"one-sided U-test p = {p_value:.2g}")
    print(f"runs: {runs_dir}")


if __name__ == "__main__":
    main()
