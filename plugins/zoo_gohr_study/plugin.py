"""The zoo plugin of GOHR difficulty studies: the GOHR reporter, the ``zoo study`` command, the GOHR kind of
``zoo leaderboard`` board (rules as rows), and the random legal-move player that leaderboards start from.

The reporter, studies and leaderboards build on the ``report`` plugin (``zoo_report.report``, ``zoo_report.stats``)
and on the ``board`` plugin (``zoo_board``).
"""

from __future__ import annotations

from pathlib import Path

import typer
from zoo_report.reporters import ReporterEntry

from zoo import (
    AgentEntry,
    BackendChoice,
    DocumentEntry,
    Overrides,
    ZooError,
    backend_options,
    default_runs_dir,
    get_registry,
    hookimpl,
    load_spec_text,
    preflight,
    seed_option,
    set_option,
    trials_option,
)


def _report(runs, out):
    from .reporter import report  # scipy and matplotlib load only when a report is written

    return report(runs, out)


def _compare(a, b):
    from .reporter import compare

    return compare(a, b)


def _random_player(params, context):
    from .leaderboard.random_player import RandomLegalPlayer

    return RandomLegalPlayer(params, context)


@hookimpl
def register_agents(register):
    register(AgentEntry(name="random-legal", factory=_random_player, example_env={"type": "gohr", "rule": "paper/color_match", "horizon": 30},
                        description="uniformly random legal moves (the env's action mask); never learns"))


@hookimpl
def register_reporters(register):
    register(ReporterEntry(name="gohr-difficulty", envs=("gohr",), report=_report, compare=_compare,
                           description="cumulative errors, TCE, median bands, U-tests, ease ratios, rankings, C.N.M."))


@backend_options
def study(
    spec: Path = typer.Argument(..., help="The study file (YAML): a base run spec and the runs that vary it."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where runs go (default: the zoo runs folder)."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Report folder (default: RUNS_DIR/STUDY/report)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
    resume: bool = typer.Option(False, "--resume", help="Finish the runs an interrupted call of this study left."),
    sets: list[str] = set_option(),
    seed: int | None = seed_option(),
    trials: int | None = trials_option(),
    *,
    backend: BackendChoice,
) -> None:
    """Train every run of a study (overrides apply to each), then write the report of all of them."""
    from zoo_report.report import open_runs, report

    from .study import run_study

    registry = get_registry()
    root = runs_dir or default_runs_dir()
    home, folders, status = run_study(spec, registry, root, progress=progress, resume=resume,
                                overrides=Overrides(tuple(sets), seed, trials, backend.backend, backend.backend_fields))
    if status == "interrupted":
        typer.echo(f"interrupted; continue with: zoo study {spec} --resume" + (f" --runs-dir {runs_dir}" if runs_dir else ""), err=True)
        raise typer.Exit(130)
    out = output or home / "report"
    for path in report(registry, open_runs(folders), out):
        typer.echo(str(path))


def _validate_study(path: Path, registry, build: bool) -> str:
    """`zoo validate` of a study file: every run's spec, and with `build` each run's objects built once."""
    from .study import load_study

    study, texts = load_study(path, registry)
    if build:
        for label, text in texts.items():
            try:
                preflight(load_spec_text(text, registry, source=f"{path} (run {label})"), registry)
            except ZooError as exc:
                raise ZooError(f"run {label}: {exc}") from exc
    return f"{study.name}, {len(texts)} runs: {', '.join(texts)}{', built' if build else ''}"


def _validate_board(path: Path, registry, build: bool) -> str:
    """`zoo validate` of a GOHR board: every cell's spec, and with `build` each cell's objects built once."""
    from zoo_board.plan import validated

    from .leaderboard.board import load_board

    return validated(load_board(path, registry), registry, build, "rules")


@hookimpl
def register_documents(register):
    register(DocumentEntry(name="study", marker=("base", "runs"), validate=_validate_study,
                           description="a base run spec and the runs that vary it (zoo study)"))
    register(DocumentEntry(name="board", marker=("agents", "rules"), validate=_validate_board,
                           description="a GOHR leaderboard: agents x rules, each cell a run (zoo leaderboard)"))


@hookimpl
def register_commands(cli):
    cli.command("study")(study)


@hookimpl
def register_board_kinds(register):
    from .leaderboard.kind import GOHR_BOARD

    register(GOHR_BOARD)
