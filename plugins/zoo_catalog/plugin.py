"""The zoo plugin of the catalogue commands. Like the kernel's ``core`` plugin, every registry loads it, whatever
``ZOO_PLUGINS`` says: listing what is installed works however the plugins are restricted."""

from __future__ import annotations

from zoo import hookimpl


@hookimpl
def register_commands(cli):
    from .commands import describe, list_entries, plugins, runs, schema

    cli.command()(runs)
    cli.command()(plugins)
    cli.command("list")(list_entries)
    cli.command()(describe)
    cli.command()(schema)
