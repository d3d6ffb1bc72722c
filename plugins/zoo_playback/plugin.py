"""The zoo plugin of playback: the ``zoo enjoy`` command."""

from __future__ import annotations

from zoo import hookimpl


@hookimpl
def register_commands(cli):
    from .commands import enjoy

    cli.command("enjoy")(enjoy)
