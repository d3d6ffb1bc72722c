"""The zoo plugin of reports: the ``zoo report`` and ``zoo compare`` commands."""

from __future__ import annotations

from zoo import hookimpl


@hookimpl
def register_commands(cli):
    from .commands import compare, report

    cli.command("report")(report)
    cli.command("compare")(compare)
