"""The zoo plugin of reports: the ``zoo report`` and ``zoo compare`` commands, and the kind of entry ``reporter``
(:mod:`zoo_report.reporters`)."""

from __future__ import annotations

from zoo import hookimpl

from .reporters import REPORTERS


@hookimpl
def register_kinds(register):
    register(REPORTERS)


@hookimpl
def register_commands(cli):
    from .commands import compare, report

    cli.command("report")(report)
    cli.command("compare")(compare)
