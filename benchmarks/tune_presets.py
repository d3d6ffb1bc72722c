"""Search the substrate agents' CPU-budget settings per world with ``zoo tune``, beside cpu_small on the same seeds.

For every tuning file of benchmarks/tuning/ (or the ones named), the script runs the study's missing Optuna
trials (a study resumes where it stopped: kill it any time and run it again), and trains the file's spec as
it stands, the cpu_small settings, as the baseline at the same seeds (resumed likewise). The tuning specs use
seeds 1000-1001, which no board's final evaluation uses. It prints, per world and agent, the baseline's and
the best trial's objective (the evaluation return averaged over the spec's trials), the trials done, and the
best settings: the table of docs/substrate.md and the values the named presets take. Each file's result is
also written to benchmarks/tuning/results/NAME.json, which the presets' tests compare with the presets.

With ``--heldout SEED``, the baseline and the best settings are then trained again on 5 seeds from SEED
(seeds neither the study nor a board uses), and a one-sided Mann-Whitney U test says whether the best
settings' evaluation returns are higher: the check that the search's winner is not a lucky draw.

    nice -n 19 python benchmarks/tune_presets.py [benchmarks/tuning/minatar-lbc.yaml ...] [--runs-dir runs/tuning]
                                                 [--heldout 3000]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import yaml
from scipy.stats import mannwhitneyu
from zoo_tune.tune import objective, tune

from zoo import Overrides, RunFolder, execute_run, get_registry, prepare_run

TUNING = Path(__file__).parent / "tuning"
RESULTS = TUNING / "results"


def baseline(tuning_file: Path, registry, runs_dir: Path) -> float | None:
    """The objective of the tuning file's spec as it stands, trained (or resumed) in runs_dir/baseline-NAME."""
    return objective(_trained(_spec(tuning_file), registry, runs_dir, runs_dir / f"baseline-{tuning_file.stem}"))


def _spec(tuning_file: Path) -> Path:
    return tuning_file.parent / yaml.safe_load(tuning_file.read_text())["spec"]


def _trained(spec: Path, registry, runs_dir: Path, folder: Path, overrides: Overrides | None = None) -> RunFolder:
    """The run of `spec` in `folder`: created if missing, trained or resumed until it has finished."""
    run = RunFolder(folder) if folder.is_dir() else prepare_run(spec, registry, runs_dir, folder, overrides)
    if run.manifest().get("status") != "finished":
        execute_run(run, registry, progress=False)
    return run


HELDOUT_TRIALS = 5


def heldout(tuning_file: Path, params: dict, registry, runs_dir: Path, seed: int) -> tuple[list, list, float]:
    """The evaluation returns of the baseline and of `params` on HELDOUT_TRIALS seeds from `seed` (each trained or
    resumed in runs_dir/heldout-{baseline,best}-NAME), and the one-sided U test's p that `params` return more."""
    returns = {}
    for label, values in (("baseline", {}), ("best", params)):
        overrides = Overrides(tuple(f"{k}={json.dumps(v)}" for k, v in values.items()), seed=seed, trials=HELDOUT_TRIALS)
        run = _trained(_spec(tuning_file), registry, runs_dir, runs_dir / f"heldout-{label}-{tuning_file.stem}", overrides)
        returns[label] = [json.loads(p.read_text())["eval_mean"] for p in sorted((run.path / "trials").glob("*/result.json"))]
    p = mannwhitneyu(returns["best"], returns["baseline"], alternative="greater").pvalue
    return returns["baseline"], returns["best"], float(p)


def _settings(params: dict) -> str:
    return ", ".join(f"{k.removeprefix('agent.')}={v:.3g}" if isinstance(v, float) else f"{k.removeprefix('agent.')}={v}"
                     for k, v in sorted(params.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="tuning files (default: every file of benchmarks/tuning)")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs/tuning"))
    parser.add_argument("--baseline-only", action="store_true", help="train the baselines, run no trial")
    parser.add_argument("--heldout", type=int, metavar="SEED", help="check the best settings against the baseline on "
                        f"{HELDOUT_TRIALS} seeds from SEED")
    args = parser.parse_args(argv)
    registry = get_registry()
    files = args.files or sorted(TUNING.glob("*.yaml"))
    rows, checks = [], []
    for path in files:
        print(f"== {path.stem}", flush=True)
        base = baseline(path, registry, args.runs_dir)
        summary = None if args.baseline_only else tune(path, registry, args.runs_dir)
        best = (summary or {}).get("best")
        done = sum(t["state"] == "complete" for t in (summary or {}).get("trials", []))
        rows.append((path.stem, base, best and best["value"], done, best and _settings(best["params"])))
        result = {"baseline": base, "trials": done}
        if best:
            result.update(best=best["value"], params=best["params"])
        if args.heldout is not None and best:
            checks.append((path.stem, *heldout(path, best["params"], registry, args.runs_dir, args.heldout)))
            result["heldout"] = dict(zip(("seed", "baseline", "best", "p"), (args.heldout, *checks[-1][1:])))
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{path.stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    print("\n| world-agent | cpu_small | best trial | trials | best settings |\n|---|---|---|---|---|")
    for name, base, value, done, settings in rows:
        print(f"| {name} | {'-' if base is None else f'{base:.2f}'} | {'-' if value is None else f'{value:.2f}'} | "
              f"{done} | {settings or '-'} |")
    if checks:
        print(f"\nHeld out: {HELDOUT_TRIALS} seeds from {args.heldout}, mean evaluation return (each seed's)\n\n"
              "| world-agent | cpu_small | best settings | p (best > cpu_small) |\n|---|---|---|---|")
        for name, base, best, p in checks:
            print(f"| {name} | {np.mean(base):.2f} ({', '.join(f'{x:.1f}' for x in base)}) | {np.mean(best):.2f} "
                  f"({', '.join(f'{x:.1f}' for x in best)}) | {p:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
