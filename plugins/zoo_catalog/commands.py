"""The catalogue's commands: what the installed plugins register (``list``, ``describe``, ``plugins``), the JSON
Schema of run specs (``schema``) and the runs of a runs folder (``runs``)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from zoo import RUN_STATUSES, ZooError, atomic_write_text, default_runs_dir, did_you_mean, get_registry

KIND_HELP = "A kind of entry: env, agent, meta_controller, ... (zoo list shows every kind, those plugins add too)."


def runs(
    env: str | None = typer.Option(None, help="Only runs of this environment: a type (gym) or an id, rule or game (CartPole-v1)."),
    agent: str | None = typer.Option(None, help="Only runs of this agent."),
    status: str | None = typer.Option(None, help="Only runs with this status."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir",
                                         help="Folder of runs and their index (default: $ZOO_RUNS_DIR or ./runs)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Read every run folder again, not only those changed since the last listing."),
) -> None:
    """List the runs of a runs folder, filtered by env, agent or status."""
    from .index import RunIndex
    from .run_rows import env_label, env_name, matches_env, run_result

    if status is not None and status not in RUN_STATUSES:
        raise ZooError(f"--status: unknown status '{status}'{did_you_mean(status, RUN_STATUSES)}; "
                       f"valid: {', '.join(RUN_STATUSES)}")
    index = RunIndex(runs_dir or default_runs_dir())
    if rebuild:
        index.rebuild()
    rows = index.query(agent=agent, status=status)
    for row in rows:
        row["env_name"] = env_name(Path(row["path"]), row["env"], get_registry())
    if env is not None:
        present = sorted({env_label(row) for row in rows})
        rows = [row for row in rows if matches_env(row, env)]
        if not rows:
            typer.echo(f"note: no runs of env '{env}'" + (f"; the runs here are of: {', '.join(present)}" if present else ""),
                       err=True)
    for row in rows:
        row["result"] = run_result(Path(row["path"]))
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "env", "agent", "status", "trials", "budget", "result", "created")
    table.columns[0].no_wrap = True  # ids are copied into other commands: never cut or wrapped
    cells = [[row["id"], env_label(row), row["agent"], row["status"], str(row["trials"]),
              f'{row["steps"]} {row["unit"] or "steps"}', row["result"] or "-", row["created"]] for row in rows]
    for line in cells:
        table.add_row(*[str(cell) for cell in line])
    widest = sum(max([len(str(c)) for c in column] + [8]) + 3 for column in zip(*cells)) if cells else 0
    console = Console()
    Console(width=max(console.width, widest)).print(table)


def plugins(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show the loaded plugins, their versions, hooks and what they register."""
    registry = get_registry()
    rows = []
    for name, info in sorted(registry.plugins.items()):
        provides = {kind: sorted(n for n, e in registry.entries[kind].items() if e.plugin == name) for kind in registry.kinds}
        rows.append({"name": name, "version": info.version, "distribution": info.distribution,
                     "hooks": list(info.hooks), "provides": {k: v for k, v in provides.items() if v}})
    if as_json:
        typer.echo(json.dumps({"plugins": rows, "failed": registry.failures,
                               "clashes": {k: v for k, v in registry.clashes.items() if v}}, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("plugin", "version", "hooks", "provides")
    for row in rows:
        provides = "; ".join(f"{registry.kinds[k][2]}: {', '.join(v)}" for k, v in row["provides"].items())
        table.add_row(row["name"], row["version"], "\n".join(row["hooks"]), provides)
    Console().print(table)
    for kind, names in registry.clashes.items():
        for name in names:
            typer.echo(f"clash: {registry.clash_message(kind, name)}")


def list_entries(kind: str | None = typer.Argument(None, help=KIND_HELP)) -> None:
    """List registered environments, agents, meta-controllers, feature maps, ... and the kinds plugins add."""
    registry = get_registry()
    if kind is not None and kind not in registry.kinds:
        kinds = list(registry.kinds)
        raise ZooError(f"unknown kind '{kind}'{did_you_mean(kind, kinds)}; valid: {', '.join(kinds)}")
    for name in [kind] if kind else list(registry.kinds):
        typer.echo(f"{registry.kinds[name][2]}s:")
        for entry_name in registry.names(name):
            entry = registry.entries[name][entry_name]
            typer.echo(f"  {entry_name:24s} {entry.description}  [{entry.plugin}]")
        for clashing in registry.clashes.get(name, {}):
            typer.echo(f"  clash: {registry.clash_message(name, clashing)}")


def describe(
    kind: str = typer.Argument(..., help=KIND_HELP),
    name: str = typer.Argument(..., help="The entry's registered name (zoo list KIND shows them), or PLUGIN:NAME."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show one entry's parameters: their types, defaults and descriptions."""
    from dataclasses import asdict

    from .describe import parameter_rows

    registry = get_registry()
    entry = registry.get(kind, name)  # an unknown kind is an error naming the valid ones
    rows = parameter_rows(entry.params)
    if as_json:
        typer.echo(json.dumps({"kind": kind, "name": name, "plugin": entry.plugin, "description": entry.description,
                               "parameters": [asdict(row) for row in rows]}, indent=2))
        return
    if not rows:
        typer.echo(f"{registry.kinds[kind][2]} '{name}' ({entry.plugin}) takes no parameters")
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table("parameter", "type", "default", "description",
                  title=escape(f"{registry.kinds[kind][2]} '{name}' ({entry.plugin}): {entry.description}"))
    table.columns[0].no_wrap = True
    for row in rows:
        table.add_row(*(escape(cell) for cell in (row.name, row.type, row.default, row.description)))
    Console().print(table)


def schema(output: Path | None = typer.Option(None, "-o", "--output", help="Write to this file instead of stdout.")) -> None:
    """Write the JSON Schema of run specs for the installed plugins (for editor completion)."""
    import zoo

    text = json.dumps(zoo.json_schema(get_registry()), indent=2) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        atomic_write_text(output, text)
