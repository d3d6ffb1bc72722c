"""The hook implementations of the ``check`` plugin: the ``zoo check`` command."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from zoo import ZooError, hookimpl

#: the copier template of ``zoo new plugin``
TEMPLATE = Path(__file__).parent / "template"


def check(target: str = typer.Argument(..., help="A plugin (its entry-point, distribution or package name), "
                                                 "or one entry (NAME or PLUGIN:NAME).")) -> None:
    """Run the contract of every entry a plugin registers (envs, agents, meta-controllers, rule sets, reporters,
    commands) with tiny budgets: one line per check, exit status 1 if any fails."""
    from zoo import get_registry

    from .checks import run_checks

    failed = False
    for result in run_checks(target, get_registry()):
        typer.echo(str(result))
        failed = failed or result.status == "FAIL"
    if failed:
        raise typer.Exit(1)


new_app = typer.Typer(no_args_is_help=True, help="Start a package from a template.")

#: a plugin's name: its entry point and distribution (the package replaces '-' with '_')
PLUGIN_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


@new_app.command("plugin")
def new_plugin(
    name: str = typer.Argument(..., help="The plugin's name: lower-case words joined by '-' (e.g. my-envs)."),
    directory: Path | None = typer.Option(None, "--dir", help="Where to write it (default: ./NAME)."),
) -> None:
    """Write a plugin package (an env, an agent, a meta-controller, a GOHR rule set, tests that run the checks of
    zoo check, a README and a CI workflow) that passes zoo check as written."""
    try:
        import copier
    except ImportError:
        raise ZooError("zoo new plugin needs copier: pip install 'zoo-rl[kit]'") from None
    if not PLUGIN_NAME.fullmatch(name):
        raise ZooError(f"'{name}' cannot name a plugin: use lower-case letters and digits, words joined by '-' (my-envs)")
    target = directory or Path(name)
    if target.exists() and any(target.iterdir()):
        raise ZooError(f"{target} exists and is not empty; choose another name or --dir")
    copier.run_copy(str(TEMPLATE), str(target), data={"name": name}, defaults=True, quiet=True)
    typer.echo(f"wrote {target}: pip install -e {target} && zoo check {name} && pytest {target}")


@hookimpl
def register_commands(cli):
    cli.command("check")(check)
    cli.add_typer(new_app, name="new")
