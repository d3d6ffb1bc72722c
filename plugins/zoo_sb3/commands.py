"""The ``zoo export`` command."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo import get_registry, load_agent


def export(
    run: str = typer.Argument(..., help="A run folder or run id."),
    output: Path = typer.Option(..., "-o", "--output", help="The .zip to write (stable-baselines3's format)."),
    trial: int = typer.Option(0, "--trial", min=0, help="Which trial's agent."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
) -> None:
    """Write an SB3 agent's last checkpoint as stable-baselines3's own .zip (PPO.load reads it)."""
    from .export import export_sb3

    agent = load_agent(run, trial, registry=get_registry(), runs_dir=runs_dir)
    try:
        for path in export_sb3(agent, output):
            typer.echo(str(path))
    finally:
        agent.close()
