"""The ``zoo enjoy`` command."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo import get_registry


def enjoy(
    run: str = typer.Argument(..., help="A run folder or run id."),
    trial: int = typer.Option(0, "--trial", min=0, help="Which trial's agent."),
    episodes: int = typer.Option(1, "--episodes", min=1, max=100_000, help="Episodes to play."),
    checkpoint: str = typer.Option("last", "--checkpoint", help="last, or best (the best periodic evaluation's)."),
    video: Path | None = typer.Option(None, "--video", help="Film the episodes into this .mp4 "
                                      "(the env must draw rgb_array pictures; needs the 'video' extra)."),
    seed: int | None = typer.Option(None, "--seed", min=0, max=2**32 - 1,
                                    help="Seed of the episodes (default: that of the run's final evaluation)."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
) -> None:
    """Watch a trained agent play its run's env: each episode's return, and optionally a video."""
    from .enjoy import enjoy as play

    show = play(run, trial=trial, episodes=episodes, checkpoint=checkpoint, video=video, seed=seed,
                registry=get_registry(), runs_dir=runs_dir)
    for number, episode in enumerate(show.episodes, 1):
        errors = "" if episode.errors is None else f", {episode.errors} errors"
        typer.echo(f"episode {number}: return {episode.episode_return:.2f} in {episode.length} steps{errors}")
    mean = sum(e.episode_return for e in show.episodes) / len(show.episodes)
    typer.echo(f"mean return {mean:.2f} over {len(show.episodes)} episodes")
    if show.video is not None:
        typer.echo(f"{show.video}: {show.frames} frames of {show.size[0]}x{show.size[1]} at {show.fps:g} fps")
