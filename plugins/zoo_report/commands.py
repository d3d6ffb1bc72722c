"""The ``zoo report`` and ``zoo compare`` commands."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer

from zoo import RunFolder, ZooError, default_runs_dir, get_registry, require_extra

from .collect import collect_runs


def _require_report_extra(command: str) -> None:
    """The statistics and figures of a report come with the 'report' extra."""
    for module in ("scipy", "matplotlib"):
        require_extra(module, "report", command)


def _collect(targets: list[str], runs_dir: Path | None) -> list[RunFolder]:
    """The runs named on the command line; a note on stderr for each target skipped."""
    folders, notes = collect_runs(targets, runs_dir or default_runs_dir())
    if not folders:  # one line: why each target held no run
        raise ZooError(f"no runs in {' '.join(targets)}" + (f" ({'; '.join(notes)})" if notes else ""))
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    return folders


def report(
    runs: list[str] = typer.Argument(..., help="Runs: run folders, run ids, study folders or runs folders."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Folder for the report (default: RUN/report for one run)."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
) -> None:
    """Write figures and tables for runs, with the metrics of their environment's reporter."""
    _require_report_extra("zoo report")
    from .report import report as write_report

    folders = _collect(runs, runs_dir)
    out = output or (folders[0].path / "report" if len(folders) == 1 else Path(f"report-{datetime.now():%Y%m%d-%H%M%S}"))
    for path in write_report(get_registry(), folders, out):
        typer.echo(str(path))


def compare(
    run_a: str = typer.Argument(..., help="A run folder or run id."),
    run_b: str = typer.Argument(..., help="Another."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
) -> None:
    """Compare two runs of the same environment (one-sided U-tests and the reporter's own metrics)."""
    _require_report_extra("zoo compare")
    from .report import compare as compare_runs

    sides = []
    for target in (run_a, run_b):
        folders = _collect([target], runs_dir)
        if len(folders) != 1:
            raise ZooError(f"{target}: holds {len(folders)} runs; compare takes one run per side (zoo report takes many)")
        sides.append(folders[0])
    typer.echo(compare_runs(get_registry(), *sides))
