"""``zoo leaderboard BOARD``: run the cells a board still needs, then score and publish all of them."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo import Problem, RunFailed, SpecError, ZooError, default_runs_dir, get_registry, load_file


def extra_agents(values: list[str], contender) -> dict:
    """``LABEL=FILE`` options: each file holds an agent block and, optionally, meta_controller, budget,
    trials and backend (the keys of a board's agent entry, the model `contender`)."""
    from pydantic import ValidationError

    from .plan import placed_problem

    extra = {}
    for value in values:
        label, sep, path = value.partition("=")
        if not sep or not label or not path:
            raise ZooError(f"--agent {value}: expected LABEL=FILE, e.g. --agent mine=my-agent.yaml")
        document = load_file(Path(path))
        if not isinstance(document.data, dict):
            raise SpecError([Problem("an agent entry is a mapping with an 'agent' block", path)])
        try:
            contender.model_validate(document.data)
        except ValidationError as exc:
            raise SpecError([placed_problem(document, e, lambda loc: contender if loc == () else None)
                             for e in exc.errors()]) from None
        extra[label] = document
    return extra


def leaderboard(
    board: Path = typer.Argument(..., help="The board file (YAML): agents, tasks (or GOHR rules), budget, trials."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where cell runs go (default: the zoo runs folder)."),
    output: Path | None = typer.Option(None, "-o", "--output",
                                          help="Folder of the published board (default: RUNS_DIR/leaderboards/NAME)."),
    agents: list[str] = typer.Option([], "--agent", help="Add a column: LABEL=FILE, FILE holding an agent block."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the cells and which are cached; run nothing."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
) -> None:
    """Run every (agent, task) cell of a board that is not done yet, then write its HTML, Markdown, JSON and CSV."""
    from zoo import load_file, require_extra

    for module in ("scipy", "matplotlib"):  # the board's statistics and figures
        require_extra(module, "report", "zoo leaderboard")

    from .cells import TOO_FEW, cell_state, run_cell
    from .kinds import kind_of

    registry = get_registry()
    root = runs_dir or default_runs_dir()
    kind = kind_of(load_file(board).data, board, registry)
    loaded = kind.load(board, registry, extra_agents=extra_agents(agents, kind.contender))
    states = [cell_state(plan, root, kind.recorded) for plan in loaded.cells]
    if dry_run:
        _list(states, kind.rows)
        return
    failed = []
    for number, state in enumerate(states, 1):
        if state.state in ("cached", TOO_FEW):
            continue
        typer.echo(f"[{number}/{len(states)}] {state.plan.agent} on {state.plan.task} "
                   f"({'resuming' if state.state == 'resume' else 'new'}): {state.folder}", err=True)
        try:
            status = run_cell(state, registry, root, progress=progress, recorded=kind.recorded)
        except Exception as exc:  # a crashing agent fails its cell, not the board (its run keeps the traceback)
            message = str(exc) if isinstance(exc, ZooError) else f"{type(exc).__name__}: {exc}"
            failed.append((state, message))
            typer.echo(f"cell failed: {message}", err=True)
            continue
        if status == "interrupted":
            typer.echo(f"interrupted; run 'zoo leaderboard {board}' again to continue where it stopped", err=True)
            raise typer.Exit(130)
    messages = {id(state.plan): message for state, message in failed}
    states = [cell_state(plan, root, kind.recorded) for plan in loaded.cells]
    for state in states:
        if id(state.plan) in messages and state.error is None:  # it failed before its run folder existed or was claimed
            state.error = messages[id(state.plan)]
            state.status = "running" if state.status == "running" else "failed"  # running: another process trains it
    out = output or Path(root) / "leaderboards" / loaded.board.name
    for path in kind.publish(loaded, states, root, out):
        typer.echo(str(path))
    if failed:
        raise RunFailed(f"{len(failed)} cell(s) failed and are not scored: "
                        + "; ".join(f"{s.plan.agent} on {s.plan.task}" for s, _ in failed)
                        + f". Run 'zoo leaderboard {board}' again to retry them.")


def _list(states, rows: str) -> None:
    from rich.console import Console
    from rich.table import Table

    from .cells import TOO_FEW

    table = Table("agent", rows, "state", "run folder")
    for s in states:
        label = s.state if s.status is None or s.state == "cached" else f"{s.state} ({s.status})"
        table.add_row(s.plan.agent, s.plan.task, label, str(s.folder))
    Console().print(table)
    counts = {k: sum(1 for s in states if s.state == k) for k in ("cached", "resume", "new", TOO_FEW)}
    typer.echo(f"{len(states)} cells: {counts['cached']} cached, {counts['resume']} to resume, {counts['new']} new"
               + (f", {counts[TOO_FEW]} with too few trials" if counts[TOO_FEW] else ""))
