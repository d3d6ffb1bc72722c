"""``zoo leaderboard BOARD``: run the cells a board still needs, then score and publish all of them."""

from __future__ import annotations

from pathlib import Path

import typer

from zoo.errors import RunFailed, ZooError


def _extra_agents(values: list[str]) -> dict:
    """``LABEL=FILE`` options: each file holds an agent block and, optionally, meta_controller, budget,
    trials and backend (the keys of a board's agent entry)."""
    from pydantic import ValidationError

    from zoo.errors import Problem, SpecError
    from zoo.yamlio import load_file

    from .board import Contender, placed_problem

    extra = {}
    for value in values:
        label, sep, path = value.partition("=")
        if not sep or not label or not path:
            raise ZooError(f"--agent {value}: expected LABEL=FILE, e.g. --agent mine=my-agent.yaml")
        document = load_file(Path(path))
        if not isinstance(document.data, dict):
            raise SpecError([Problem("an agent entry is a mapping with an 'agent' block", path)])
        try:
            Contender.model_validate(document.data)
        except ValidationError as exc:
            raise SpecError([placed_problem(document, e, Contender) for e in exc.errors()]) from None
        extra[label] = document
    return extra


def leaderboard(
    board: Path = typer.Argument(..., help="The board file (YAML): agents, rules, budget, trials, metrics."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where cell runs go (default: the zoo runs folder)."),
    output: Path | None = typer.Option(None, "-o", "--output",
                                          help="Folder of the published board (default: RUNS_DIR/leaderboards/NAME)."),
    agents: list[str] = typer.Option([], "--agent", help="Add a column: LABEL=FILE, FILE holding an agent block."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the cells and which are cached; run nothing."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show progress bars."),
) -> None:
    """Run every (agent, rule) cell of a board that is not done yet, then write its HTML, Markdown, JSON and CSV."""
    from zoo import require_extra
    from zoo.registry import get_registry
    from zoo.store import default_runs_dir

    for module in ("scipy", "matplotlib"):  # the board's statistics and figures
        require_extra(module, "report", "zoo leaderboard")

    from .board import load_board
    from .cells import cell_state, run_cell
    from .recorded import TOO_FEW

    registry = get_registry()
    root = runs_dir or default_runs_dir()
    loaded = load_board(board, registry, extra_agents=_extra_agents(agents))
    states = [cell_state(plan, root) for plan in loaded.cells]
    if dry_run:
        _list(states)
        return
    failed = []
    for number, state in enumerate(states, 1):
        if state.state in ("cached", TOO_FEW):
            continue
        typer.echo(f"[{number}/{len(states)}] {state.plan.agent} on {state.plan.rule} "
                   f"({'resuming' if state.state == 'resume' else 'new'}): {state.folder}", err=True)
        try:
            status = run_cell(state, registry, root, progress=progress)
        except Exception as exc:  # a crashing agent fails its cell, not the board (its run keeps the traceback)
            message = str(exc) if isinstance(exc, ZooError) else f"{type(exc).__name__}: {exc}"
            failed.append((state, message))
            typer.echo(f"cell failed: {message}", err=True)
            continue
        if status == "interrupted":
            typer.echo(f"interrupted; run 'zoo leaderboard {board}' again to continue where it stopped", err=True)
            raise typer.Exit(130)
    messages = {id(state.plan): message for state, message in failed}
    states = [cell_state(plan, root) for plan in loaded.cells]
    for state in states:
        if id(state.plan) in messages and state.error is None:  # it failed before its run folder existed or was claimed
            state.error = messages[id(state.plan)]
            state.status = "running" if state.status == "running" else "failed"  # running: another process trains it
    out = output or Path(root) / "leaderboards" / loaded.board.name
    for path in publish(loaded, states, out):
        typer.echo(str(path))
    if failed:
        raise RunFailed(f"{len(failed)} cell(s) failed and are not scored: "
                        + "; ".join(f"{s.plan.agent} on {s.plan.rule}" for s, _ in failed)
                        + f". Run 'zoo leaderboard {board}' again to retry them.")


def publish(loaded, states, out: Path) -> list[Path]:
    """Score the finished cells and write leaderboard.json, cells.csv, ranking.csv, the curves of every
    rule (curves/*.svg), leaderboard.md and leaderboard.html."""
    from zoo.store import RunFolder

    from .outputs import write_csv, write_json, write_markdown
    from .page import write_figures, write_html
    from .readout import read_cell
    from .results import build

    out.mkdir(parents=True, exist_ok=True)
    cells = {}
    for s in states:
        if s.state != "cached":
            continue
        try:
            cells[(s.plan.agent, s.plan.rule)] = read_cell(RunFolder(s.folder), s.plan.agent, s.plan.rule)
        except ZooError as exc:  # a finished run that cannot be scored is shown as such, not dropped silently
            s.status, s.error = "damaged", str(exc)
    results = build(loaded, states, cells, out)
    return [write_json(results, out / "leaderboard.json"), *write_csv(results, out), *write_figures(results, out),
            write_markdown(results, out / "leaderboard.md"), write_html(results, out / "leaderboard.html")]


def _list(states) -> None:
    from rich.console import Console
    from rich.table import Table

    from .recorded import TOO_FEW

    table = Table("agent", "rule", "state", "run folder")
    for s in states:
        label = s.state if s.status is None or s.state == "cached" else f"{s.state} ({s.status})"
        table.add_row(s.plan.agent, s.plan.rule, label, str(s.folder))
    Console().print(table)
    counts = {k: sum(1 for s in states if s.state == k) for k in ("cached", "resume", "new", TOO_FEW)}
    typer.echo(f"{len(states)} cells: {counts['cached']} cached, {counts['resume']} to resume, {counts['new']} new"
               + (f", {counts[TOO_FEW]} with too few trials" if counts[TOO_FEW] else ""))
