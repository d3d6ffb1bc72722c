"""The zoo plugin of GOHR difficulty studies: the GOHR reporter and the ``zoo study`` command."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from zoo import ReporterEntry, hookimpl
from zoo.cli import seed_option, set_option, trials_option


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
    runs_dir: Optional[Path] = typer.Option(None, "--runs-dir", help="Where runs go (default: the zoo runs folder)."),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Report folder (default: RUNS_DIR/STUDY/report)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
    resume: bool = typer.Option(False, "--resume", help="Finish the runs an interrupted call of this study left."),
    sets: list[str] = set_option(),
    seed: Optional[int] = seed_option(),
    trials: Optional[int] = trials_option(),
) -> None:
    """Train every run of a study (overrides apply to each), then write the report of all of them."""
    from zoo.overrides import Overrides
    from zoo.registry import get_registry
    from zoo.report import open_runs, report
    from zoo.store import default_runs_dir

    from .study import run_study

    registry = get_registry()
    root = runs_dir or default_runs_dir()
    home, folders, status = run_study(spec, registry, root, progress=progress, resume=resume,
                                overrides=Overrides(tuple(sets), seed, trials))
    if status == "interrupted":
        typer.echo(f"interrupted; continue with: zoo study {spec} --resume" + (f" --runs-dir {runs_dir}" if runs_dir else ""), err=True)
        raise typer.Exit(130)
    out = output or home / "report"
    for path in report(registry, open_runs(folders), out):
        typer.echo(str(path))


@hookimpl
def register_commands(cli):
    cli.command("study")(study)
