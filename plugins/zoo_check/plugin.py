"""The hook implementations of the ``check`` plugin: the ``zoo check`` command."""

from __future__ import annotations

import typer

from zoo import hookimpl


def check(target: str = typer.Argument(..., help="A plugin (its entry-point, distribution or package name), "
                                                 "or one entry (NAME or PLUGIN:NAME).")) -> None:
    """Run the contract of every entry a plugin registers (envs, agents, meta-controllers, rule sets, reporters,
    commands) with tiny budgets: one line per check, exit status 1 if any fails."""
    from zoo.registry import get_registry

    from .checks import run_checks

    failed = False
    for result in run_checks(target, get_registry()):
        typer.echo(str(result))
        failed = failed or result.status == "FAIL"
    if failed:
        raise typer.Exit(1)


@hookimpl
def register_commands(cli):
    cli.command("check")(check)
