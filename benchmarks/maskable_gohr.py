"""MaskablePPO against PPO on a GOHR rule at an equal budget: terminal cumulated errors (TCE).

Both agents get the same hyperparameters, boards, episodes and trial seeds; MaskablePPO only
samples moves of occupied cells (the env's action_masks()), PPO may pick any of the 144 actions
and a move from an empty cell counts as an error, as it does for the paper's learners. The
runs go through ``zoo study`` (examples/gohr-ppo.yaml's settings, at a smaller budget) and the
GOHR reporter, which gives the median TCE of each, their ratio and the one-sided U-test.

    python benchmarks/maskable_gohr.py [--rule paper/clockwise] [--episodes 200] [--trials 8] [--runs-dir DIR]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import platform
import tempfile
import time
from pathlib import Path

import yaml


def cpu_description() -> str:
    """The CPU model and the vector extensions it reports (Linux /proc/cpuinfo)."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                model = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
    except OSError:
        pass
    vector = [f for f in ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "amx_tile") if f in flags]
    return f"{model}, {os.cpu_count()} cores, vector extensions: {' '.join(vector) or 'unknown'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rule", default="paper/clockwise")
    parser.add_argument("--episodes", type=int, default=200, help="episodes per trial (the equal budget)")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    args = parser.parse_args()

    from zoo_gohr_study.reporter import labelled, summarize
    from zoo_gohr_study.study import run_study
    from zoo_report.report import open_runs

    from zoo import get_registry

    agent = {"n_steps": 128, "n_envs": 4, "batch_size": 256, "learning_rate": 0.0005, "gamma": 0.9, "ent_coef": 0.01}
    study = {
        "name": "maskable-gohr",
        "base": {"env": {"type": "gohr", "rule": args.rule, "horizon": 100,
                         "board": {"min_objects": 9, "min_shapes": 4, "min_colors": 4}},
                 "budget": {"episodes": args.episodes}, "trials": args.trials, "seed": 0,
                 "logging": {"tensorboard": False, "progress": False}},
        "runs": {"ppo": {"agent": {"type": "ppo", **agent}}, "maskable-ppo": {"agent": {"type": "maskable-ppo", **agent}}},
    }
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="zoo-maskable-gohr-"))
    runs_dir.mkdir(parents=True, exist_ok=True)
    spec = runs_dir / "maskable-gohr.yaml"
    spec.write_text(yaml.safe_dump(study, sort_keys=False))
    started = time.process_time()
    _, folders, status = run_study(spec, get_registry(), runs_dir, progress=False)
    if status != "finished":
        raise SystemExit(f"study {status}")
    summary = summarize(labelled(open_runs(folders)))
    rows = {row["label"]: row for row in summary["runs"]}
    ppo, masked = rows["ppo"], rows["maskable-ppo"]
    print(f"machine: {cpu_description()}")
    print(f"rule {args.rule}, {args.trials} trials x {args.episodes} episodes (H 100, 9 pieces), "
          f"{time.process_time() - started:.0f} CPU-s")
    for label, row in (("PPO", ppo), ("MaskablePPO", masked)):
        low, high = row["median_tce_ci95"]
        print(f"{label:12s} median TCE {row['median_tce']:8.1f}  (95% CI {low:.1f} to {high:.1f}), C.N.M. {row['not_converged']}")
    print(f"ratio PPO / MaskablePPO median TCE: {ppo['median_tce'] / max(masked['median_tce'], 1e-9):.2f}")
    print(f"one-sided U-test, p(PPO harder than MaskablePPO) = {summary['u_test_p_harder']['ppo']['maskable-ppo']:.3g}")
    print(f"runs: {runs_dir}")


if __name__ == "__main__":
    main()
