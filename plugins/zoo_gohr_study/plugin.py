"""The zoo plugin of GOHR difficulty studies: the GOHR reporter and the ``zoo study`` command."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo import ReporterEntry, hookimpl


def _report(runs, out):
    from .reporter import report  # scipy and matplotlib load only when a report is written

    return report(runs, out)


def _compare(a, b):
    from .reporter import compare

    return compare(a, b)


@hookimpl
def register_reporters(register):
    register(ReporterEntry(name="gohr-difficulty", envs=("gohr",), report=_report, compare=_compare,
                           description="cumulative errors, TCE, median bands, U-tests, ease ratios, rankings, C.N.M."))


def study(
    spec: Path = typer.Argument(..., help="The study file (YAML): a base run spec and the runs that vary it."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where runs go (default: the zoo runs folder)."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Report folder (default: RUNS_DIR/STUDY/report)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
) -> None:
    """Train every run of a study, then write the report of all of them."""
    from zoo.registry import get_registry
    from zoo.report import open_runs, report
    from zoo.store import default_runs_dir

    from .study import run_study

    registry = get_registry()
    root = runs_dir or default_runs_dir()
    folders = run_study(spec, registry, root, progress=progress)
    out = output or folders[0].parent / "report"
    for path in report(registry, open_runs(folders), out):
        typer.echo(str(path))


@hookimpl
def register_commands(cli):
    cli.command("study")(study)
