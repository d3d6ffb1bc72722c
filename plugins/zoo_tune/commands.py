"""The ``zoo tune`` command."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo import (
    BackendChoice,
    Overrides,
    ZooError,
    backend_options,
    default_runs_dir,
    get_registry,
    require_extra,
    seed_option,
    set_option,
    trials_option,
)


@backend_options
def tune(
    tuning: Path = typer.Argument(..., help="The tuning file (YAML): a spec, a search space and Optuna's settings."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
    sets: list[str] = set_option(),
    seed: int | None = seed_option(),
    trials: int | None = trials_option(),
    n_trials: int | None = typer.Option(None, "--n-trials", min=1, help="Optuna trials in all (default: the file's n_trials)."),
    *,
    backend: BackendChoice,
) -> None:
    """Search hyperparameters with Optuna; every trial is a run, a second call runs the missing trials."""
    require_extra("optuna", "tune", "zoo tune")
    from .tune import tune as run_tuning

    root = runs_dir or default_runs_dir()
    base = Overrides(tuple(sets), seed, trials, backend.backend, backend.backend_fields)
    summary = run_tuning(tuning, get_registry(), root, base=base, n_trials=n_trials)
    best = summary.get("best")
    if best is None:
        raise ZooError(f"no trial of {summary['study']} completed (all pruned or failed); widen the space or the pruner")
    typer.echo(f"best: trial {best['number']} ({best['run']}), value {best['value']:.4g}, "
               + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in best["params"].items()))
    typer.echo(str(root / f"{summary['study']}.tune" / "best.yaml"))
