"""The ``zoo`` command line."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import typer

from .errors import RunFailed, ZooError, error_message
from .options import BackendChoice, backend_options, seed_option, set_option, trials_option
from .overrides import Overrides
from .registry import get_registry

app = typer.Typer(
    name="zoo", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="A plugin zoo for reinforcement-learning research.",
)


@app.callback()
def _options(debug: bool = typer.Option(False, "--debug", help="Show tracebacks of errors and of plugins that fail to load.")) -> None:
    pass  # declared for --help and parsing; `main` reads --debug itself (`_global_options_first`)


def _runs_dir_option():
    return typer.Option(None, "--runs-dir", help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs).")


def _runs_dir(value: Path | None) -> Path:
    from .store import default_runs_dir

    return value or default_runs_dir()


@app.command()
def validate(
    specs: list[Path] = typer.Argument(..., help="Run specs, or other files the plugins recognise (studies, ...)."),
    build: bool = typer.Option(False, "--build", help="Also build each run's env, agent and meta-controller once, "
                               "as train does before it creates a run folder."),
    sets: list[str] = set_option(),
) -> None:
    """Check files against the installed plugins without training (run specs, studies, boards, ...)."""
    from .documents import validate_files

    validate_files(specs, get_registry(), build=build, overrides=Overrides(tuple(sets)), echo=typer.echo)


@app.command()
@backend_options
def train(
    spec: Path | None = typer.Argument(None, help="The run spec (YAML); not with --from."),
    parent: str | None = typer.Option(None, "--from", metavar="RUN",
                                      help="Continue a finished run (folder or id) from its final checkpoints: a new run "
                                      "of its spec, e.g. with --set budget.steps=N for the new total."),
    checkpoint: str = typer.Option("last", "--checkpoint", metavar="last|best",
                                   help="With --from: continue from the final checkpoints (last) or those of the "
                                   "best periodic evaluation (best; needs budget.eval_every)."),
    run_dir: Path | None = typer.Option(None, "--run-dir", help="Exact folder for this run (must not exist)."),
    runs_dir: Path | None = _runs_dir_option(),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
    sets: list[str] = set_option(),
    seed: int | None = seed_option(),
    trials: int | None = trials_option(),
    *,
    backend: BackendChoice,
) -> None:
    """Validate a spec (with any overrides), create its run folder and train every trial."""
    from .run import execute_run, prepare_run

    if (spec is None) == (parent is None):
        raise ZooError("give a spec to train, or --from RUN to continue a finished run (one of them)")
    if parent is None and checkpoint != "last":
        raise ZooError("--checkpoint chooses the checkpoint of --from RUN; give --from too")
    registry = get_registry()
    overrides = Overrides(tuple(sets), seed, trials, backend.backend, backend.backend_fields)
    if parent is not None:
        from .continuation import continue_run

        folder = continue_run(parent, registry, _runs_dir(runs_dir), run_dir, overrides, checkpoint)
    else:
        folder = prepare_run(spec, registry, _runs_dir(runs_dir), run_dir, overrides)
    typer.echo(f"run folder: {folder.path}", err=True)
    _finish(execute_run(folder, registry, progress=progress), folder)


@app.command()
def resume(
    run: str = typer.Argument(..., help="A run folder, or a run id in the index."),
    runs_dir: Path | None = _runs_dir_option(),
    progress: bool = typer.Option(True, "--progress/--no-progress"),
    force: bool = typer.Option(False, "--force", help="Take over a run marked running by a process on another host."),
    accept_lost_rows: bool = typer.Option(False, "--accept-lost-rows", help="Continue although metrics rows a checkpoint "
                                          "recorded are gone (deleted or torn); the loss is recorded in run.json."),
) -> None:
    """Continue an interrupted run from each trial's last checkpoint."""
    from .run import execute_run
    from .store import RunFolder, find_run

    path = find_run(run, _runs_dir(runs_dir))
    folder = RunFolder(path)
    status = folder.manifest(require=("seeds", "trials"))["status"]
    if status == "finished":
        raise ZooError(f"{path}: run already finished; nothing to resume")
    registry = get_registry()
    _finish(execute_run(folder, registry, progress=progress, force=force, accept_lost_rows=accept_lost_rows), folder)


def _finish(status: str, folder) -> None:
    from .store import read_json

    if status == "interrupted":
        typer.echo(f"interrupted; continue with: zoo resume {folder.path}", err=True)
        raise typer.Exit(143 if folder.manifest().get("stopped_by") == "SIGTERM" else 130)
    typer.echo(f"finished: {folder.path}", err=True)
    for result_path in sorted((folder.path / "trials").glob("*/result.json")):
        result = read_json(result_path, dict)
        line = f"trial {result['trial']}: {result['progress']} {result['unit']} in {result['cpu_seconds']:.1f} CPU-s"
        if "eval_mean" in result:
            line += f", evaluation return {result['eval_mean']:.2f} (mean of {len(result['eval_returns'])} episodes)"
        typer.echo(line)


class _WarningHandler(logging.Handler):
    """Warnings as ``warning: ...`` lines on stderr; with --debug, debug records (plugin tracebacks) as they are."""

    def emit(self, record: logging.LogRecord) -> None:
        prefix = "warning: " if record.levelno >= logging.WARNING else ""
        print(f"{prefix}{record.getMessage()}", file=sys.stderr)


_commands_added = False


def _add_plugin_commands() -> None:
    global _commands_added
    if not _commands_added:
        get_registry().call_commands(app)
        _commands_added = True


def _global_options_first(args: list[str]) -> tuple[list[str], bool]:
    """Move ``--debug`` (given anywhere before a ``--``) in front of the subcommand, where typer reads it."""
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    if debug:
        args = ["--debug"] + [arg for arg in args[:end] if arg != "--debug"] + args[end:]
    return args, debug


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``zoo`` console script."""
    logger = logging.getLogger("zoo")
    if not any(isinstance(h, _WarningHandler) for h in logger.handlers):
        logger.addHandler(_WarningHandler())
        logger.propagate = False
    args, debug = _global_options_first(list(argv if argv is not None else sys.argv[1:]))
    logger.setLevel(logging.DEBUG if debug else logging.WARNING)
    try:
        _add_plugin_commands()
        app(args=args, prog_name="zoo")  # standalone: usage errors print and exit 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except ZooError as exc:
        if debug:
            raise
        print(error_message(exc), file=sys.stderr)
        return 1 if isinstance(exc, RunFailed) else 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the last line of defence: one line, the traceback under --debug
        if debug:
            raise
        print(error_message(exc), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
