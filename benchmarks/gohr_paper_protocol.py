"""Wall time and peak memory of the GOHR paper's full protocol: 4 rules x 100 trials x 200 episodes x H 100.

Trains examples/gohr-paper-section5.yaml (linear DQN, trials batched, backend.workers processes)
through the same path as ``zoo study``, then writes its report, and prints both times and the
peak resident memory of this process and of its largest worker (resource.getrusage).

    python benchmarks/gohr_paper_protocol.py [--spec examples/gohr-paper-section5.yaml] [--runs-dir DIR] [--report DIR]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import platform
import resource
import tempfile
import time
from pathlib import Path

TARGET_SECONDS, TARGET_BYTES = 600, 2 * 1024**3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=Path(__file__).resolve().parents[1] / "examples" / "gohr-paper-section5.yaml")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here (default: a temporary folder)")
    parser.add_argument("--report", type=Path, default=None, help="report folder (default: RUNS_DIR/STUDY/report)")
    args = parser.parse_args()

    from zoo_gohr_study.study import run_study
    from zoo_report.report import open_runs, report

    from zoo import get_registry

    registry = get_registry()
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="zoo-gohr-protocol-"))
    started = time.perf_counter()
    home, folders, _ = run_study(args.spec, registry, runs_dir, progress=False)
    trained = time.perf_counter() - started
    out = args.report or home / "report"
    report(registry, open_runs(folders), out)
    reported = time.perf_counter() - started - trained
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores")
    print(f"spec: {args.spec.name} -> {runs_dir}")
    print(f"training wall time: {trained:.1f} s (target {TARGET_SECONDS} s)")
    print(f"report (50,000-resample bands, figures): {reported:.1f} s; total {trained + reported:.1f} s")
    print(f"peak RSS: this process {own / 2**20:.0f} MiB, largest worker {worker / 2**20:.0f} MiB, "
          f"sum bound {(own + 2 * worker) / 2**20:.0f} MiB (target {TARGET_BYTES / 2**30:.0f} GiB)")
    print(f"report: {out}")


if __name__ == "__main__":
    main()
