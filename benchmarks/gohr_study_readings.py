"""How the GOHR paper's Section 5 result moves with the choices the paper leaves open.

A reading fixes every open choice of the linear DQN (appendix A.1): the target period's unit
(200 episodes or 200 moves), the empty-cell features (as the authors coded them or as A.1.1 prints
them), the loss (squared as printed, or Huber) and the move at which updates start. For each
reading named on the command line the script trains examples/gohr-paper-section5.yaml with those
values through the same code as ``zoo study`` (4 rules x 100 trials x 200 episodes, trials
batched), stores each rule's TCEs in RESULTS, and then prints the sensitivity table of every
reading stored there: per rule the median TCE and its 95% bootstrap interval, the one-sided
Mann-Whitney p-values between neighbours of the measured order (hardest first), and that order.

    python benchmarks/gohr_study_readings.py READING [READING ...] [--results FILE] [--report DIR]
    python benchmarks/gohr_study_readings.py --table [--results FILE]
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

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples" / "gohr-paper-section5.yaml"
RESULTS = ROOT / "docs" / "figures" / "gohr-paper-study" / "readings.json"
PAPER_P = 0.002  # the paper: one-sided U-tests order the rules "(p < 0.002)"

#: name -> (target_unit, empty_cells, loss, learning_starts)
READINGS = {
    "moves": ("moves", "coded", "mse", 128),
    "episodes": ("episodes", "coded", "mse", 128),
    "moves-printed": ("moves", "printed", "mse", 128),
    "episodes-printed": ("episodes", "printed", "mse", 128),
    "moves-huber": ("moves", "coded", "huber", 128),
    "moves-full-replay": ("moves", "coded", "mse", 1000),
}


def overrides(reading: str) -> list[str]:
    unit, cells, loss, starts = READINGS[reading]
    return [f"agent.target_unit={unit}", f"agent.empty_cells={cells}", f"agent.loss={loss}",
            f"agent.learning_starts={starts}"]


def train(reading: str, runs_dir: Path, report_dir: Path | None, trials: int | None) -> dict:
    """Train the study under `reading`; its summary (the same numbers as ``zoo report``) and TCEs."""
    from zoo_gohr_study.reporter import labelled, report, summarize
    from zoo_gohr_study.study import run_study

    from zoo import Overrides, RunFolder, get_registry

    registry = get_registry()
    started = time.perf_counter()
    _, folders, status = run_study(SPEC, registry, runs_dir, progress=False, overrides=Overrides(tuple(overrides(reading)), trials=trials))
    if status != "finished":
        raise SystemExit(f"{reading}: the study was {status}; nothing stored")
    seconds = time.perf_counter() - started
    runs = labelled([RunFolder(folder) for folder in folders])
    if report_dir is not None:
        report([RunFolder(folder) for folder in folders], report_dir)
    return {"settings": dict(zip(("target_unit", "empty_cells", "loss", "learning_starts"), READINGS[reading])),
            "seconds": round(seconds, 1), "summary": summarize(runs), "tce": {run.label: run.tce.tolist() for run in runs}}


def table(results: dict) -> str:
    """The sensitivity table, one row per reading."""
    rules = None
    lines = []
    for name, result in results.items():
        summary = result["summary"]
        rows = {row["label"]: row for row in summary["runs"]}
        if rules is None:
            rules = list(rows)
            lines += ["| reading | " + " | ".join(f"{rule}: median (95% CI)" for rule in rules)
                      + " | adjacent p (one-sided) | order, hardest first |",
                      "|---" * (len(rules) + 3) + "|"]
        cells = [f"{rows[r]['median_tce']:g} ({rows[r]['median_tce_ci95'][0]:g}-{rows[r]['median_tce_ci95'][1]:g})" for r in rules]
        tests = summary["adjacent_u_tests"]
        p = ", ".join(f"{t['p']:.2g}" + ("" if t["p"] < PAPER_P else "*") for t in tests)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {p} | {' > '.join(summary['difficulty_order'])} |")
    return "\n".join(lines + ["", f"* : not below the paper's p < {PAPER_P}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("readings", nargs="*", metavar="READING", help=f"readings to train, of: {', '.join(READINGS)}")
    parser.add_argument("--table", action="store_true", help="print the stored readings' table without training")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"where readings are stored (default: {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--report", type=Path, default=None, help="also write the full report of the (one) reading here")
    parser.add_argument("--trials", type=int, default=None, help="trials per rule (default: the spec's 100)")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    args = parser.parse_args()
    if not args.readings and not args.table:
        parser.error("name a reading to train, or --table")
    unknown = [name for name in args.readings if name not in READINGS]
    if unknown:
        parser.error(f"unknown reading {unknown[0]!r}; the readings are {', '.join(READINGS)}")
    if args.report and len(args.readings) != 1:
        parser.error("--report takes exactly one reading")
    sys.path.insert(0, str(Path(__file__).parent))
    from leaderboard_walltime import cpu_description

    from zoo import atomic_write_text

    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    for reading in args.readings:
        runs_dir = (args.runs_dir or Path(tempfile.mkdtemp(prefix="zoo-gohr-readings-"))) / reading
        results[reading] = train(reading, runs_dir, args.report, args.trials)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.results, json.dumps(results, indent=1) + "\n")
        print(f"{reading}: trained in {results[reading]['seconds']:.0f} s ({', '.join(overrides(reading))})")
    print(f"machine: {cpu_description()}")
    print(table({name: results[name] for name in READINGS if name in results}))


if __name__ == "__main__":
    main()
