"""``zoo import-rlzoo``: an entry of rl-baselines3-zoo's hyperparameter files as a zoo spec."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from zoo import ZooError, atomic_write_text, get_registry


def import_rlzoo(
    file: Path = typer.Argument(..., help="An rl-baselines3-zoo hyperparameter file, e.g. hyperparams/ppo.yml."),
    env: str = typer.Argument(..., help="The entry: a gymnasium env id such as CartPole-v1."),
    output: Path | None = typer.Option(None, "-o", "--output", help="Write the spec to this new file instead of stdout."),
    algo: str | None = typer.Option(None, "--algo", help="The file's algorithm (ppo, dqn, ...) when its name does not say."),
) -> None:
    """Turn an entry of rl-baselines3-zoo's hyperparameters into a zoo spec; list what could not be mapped."""
    from .rlzoo import agent_of, import_entry, read_entries

    agent = agent_of(file, algo)
    imported = import_entry(read_entries(file), env, agent, get_registry())
    text = imported.yaml(f"{env} from rl-baselines3-zoo's {file.name}, imported by zoo import-rlzoo")
    if output is not None and output.exists():
        raise ZooError(f"{output} exists; give a new file to -o (nothing written)")
    for key, reason in imported.unmapped:
        print(f"not mapped: {key}: {reason}", file=sys.stderr)
    if output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(output, text)
        print(f"wrote {output}", file=sys.stderr)
