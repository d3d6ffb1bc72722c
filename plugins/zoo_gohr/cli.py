"""``zoo gohr``: conformance replay against the real server's transcripts, human play, rule listing."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from zoo import ZooError, did_you_mean

from .engine.constants import BUCKETS, CELLS

gohr_app = typer.Typer(no_args_is_help=True, help="GOHR tools.")


@gohr_app.command()
def conformance(
    transcripts: list[Path] = typer.Argument(..., help="Transcript files (.jsonl, .jsonl.gz), edge-case files or folders."),
    rules_root: Path = typer.Option(..., "--rules-root", help="Folder the transcripts' rule paths are relative to."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also list the episodes that pass."),
) -> None:
    """Replay the real engine's transcripts and compare every field of every step."""
    from .engine.conformance import TRANSCRIPT, NotATranscript, replay_file
    from .engine.errors import RuleSyntaxError

    passed = failed = 0
    for path in transcripts:
        if not path.exists():
            raise ZooError(f"{path}: no such transcript file or folder")
        try:
            outcomes = replay_file(path, rules_root)
        except RuleSyntaxError as exc:
            raise ZooError(f"{path}: rule file error: {exc}") from None
        except NotATranscript as exc:
            raise ZooError(str(exc)) from None
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise ZooError(f"{path}: cannot replay: {type(exc).__name__}: {exc}") from None
        if not outcomes:
            raise ZooError(f"no transcripts found in {path}; {TRANSCRIPT}" if path.is_dir() else
                           f"{path}: no episodes in the file; {TRANSCRIPT}")
        for outcome in outcomes:
            if outcome.passed:
                passed += 1
                if verbose:
                    typer.echo(str(outcome))
            else:
                failed += 1
                typer.echo(str(outcome))
    typer.echo(f"{passed} passed, {failed} failed")
    if failed or not passed:
        raise typer.Exit(1)


@gohr_app.command()
def rules(rule_set: str | None = typer.Argument(None, help="Only this rule set.")) -> None:
    """List the rule names a spec can use."""
    from .named_rules import rule_names, rule_sets

    sets = rule_sets()
    if rule_set is not None:
        if rule_set not in sets:
            raise ZooError(f"unknown rule set '{rule_set}'{did_you_mean(rule_set, list(sets))}; rule sets: {', '.join(sorted(sets))}")
        sets = {rule_set: sets[rule_set]}
    for name in rule_names(sets):
        typer.echo(name)


@gohr_app.command()
def check(rule: str = typer.Argument(..., help="A rule name or rule file.")) -> None:
    """Parse a rule and report errors and warnings (unknown shapes or colors, impossible buckets)."""
    from .engine.errors import RuleSyntaxError
    from .named_rules import load_named_rules

    try:
        parsed = load_named_rules(rule)
    except (RuleSyntaxError, ValueError, OSError) as exc:
        raise ZooError(str(exc)) from None
    warnings = parsed.validate_against()
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(f"ok: {rule}: {len(parsed.lines)} rule line(s), {len(parsed.atoms)} atom(s)")


@gohr_app.command()
def play(
    rule: str = typer.Argument(..., help="A rule name (e.g. paper/clockwise) or rule file."),
    seed: int = typer.Option(1, help="Board stream seed (the server's generator)."),
    boards: int = typer.Option(3, min=1, help="How many boards to play."),
    pieces: int = typer.Option(9, min=1, max=CELLS, help="Pieces per board."),
    reveal: bool = typer.Option(False, help="Show the rule when the game ends."),
    agent: Path | None = typer.Option(None, "--agent", help="Watch the agent of this GOHR run play instead "
                                         "(on the run's board settings; --boards and --seed apply)."),
    delay: float = typer.Option(0.5, min=0, help="With --agent: seconds between moves."),
    store: Path | None = typer.Option(None, "--store", help="Keep every move in this transcript store, as "
                                      "'zoo gohr serve' does (a leaderboard scores them as agent 'human')."),
    player: str = typer.Option("terminal", "--player", help="With --store: the player id the boards are kept under."),
    max_moves: int = typer.Option(100, "--max-moves", min=1, max=10_000, help="With --store: a board ends after "
                                  "this many moves."),
) -> None:
    """Play a hidden rule in the terminal: type a cell and a bucket, e.g. '14 2' (or watch a trained agent)."""
    from rich.console import Console

    from .board_sources import random_boards
    from .display import board_text
    from .engine.constants import LEGACY_COLORS, LEGACY_SHAPES
    from .engine.errors import RuleSyntaxError
    from .engine.game import Code, Finish, Game
    from .named_rules import load_named_rules, resolve_rule
    from .terminal import legend, watch_agent

    try:
        parsed = load_named_rules(rule)
    except (RuleSyntaxError, ValueError, OSError) as exc:
        raise ZooError(str(exc)) from None
    console = Console(highlight=False)
    console.print(legend())
    if agent is not None:
        returns = watch_agent(agent, rule, boards=boards, seed=seed, delay=delay, console=console)
        console.print(f"\n{len(returns)} boards, {-sum(returns):g} errors")
        return
    if store is not None:
        from .terminal import play_into_store

        moves, errors = play_into_store(console, _ask, rule, store=store, player=player, boards=boards,
                                        pieces=pieces, seed=seed, max_moves=max_moves)
        _summary(console, moves, errors)
        return
    stream = random_boards(seed, min_objects=pieces, max_objects=pieces, min_shapes=0, max_shapes=0,
                           min_colors=0, max_colors=0, shapes=LEGACY_SHAPES, colors=LEGACY_COLORS)
    console.print(f"Clear each board. A move is 'CELL BUCKET' (cells 1..{CELLS}), e.g. '14 2'; 'q' quits.")
    total_errors = total_moves = 0
    for number in range(1, boards + 1):
        game = _rule_runs(Game, parsed, stream.next_board())
        errors = moves = 0
        console.print(f"\n[bold]Board {number} of {boards}[/]")
        while game.finish == Finish.NO:
            console.print(board_text(game, markup=True))
            line = _ask(console, f"move {moves + 1}> ")
            if line is None or line.strip().lower() in ("q", "quit", "exit"):
                _summary(console, total_moves + moves, total_errors + errors)
                return
            parts = line.replace(",", " ").split()
            if len(parts) != 2 or not all(p.isdigit() for p in parts):
                console.print(f"[yellow]type a cell (1..{CELLS}) and a bucket (0..{BUCKETS - 1}), e.g. '14 2'[/]")
                continue
            result = _rule_runs(game.move_at, int(parts[0]), int(parts[1]))
            if result.code in (Code.EMPTY_CELL, Code.INVALID_POS, Code.INVALID_ARGUMENTS):
                console.print(f"[yellow]{_FEEDBACK.get(result.code, result.code.name)}[/]")
                continue
            moves += 1
            if result.accepted:
                console.print("[green]accepted[/]")
            else:
                errors += 1
                console.print(f"[red]{_FEEDBACK.get(result.code, result.code.name)}[/]")
        ending = "cleared" if game.finish == Finish.FINISH else "stalemate: no piece can move"
        console.print(f"board {number} {ending} after {moves} moves, {errors} errors")
        total_moves, total_errors = total_moves + moves, total_errors + errors
    _summary(console, total_moves, total_errors)
    if reveal:
        console.print(f"\nThe rule ({resolve_rule(rule)}):\n" + resolve_rule(rule).read_text(encoding="utf-8"))



def _rule_runs(call, *args):
    """``call(*args)``, with a rule the reference server would stop on (arithmetic on a name) as one line."""
    from .engine.errors import RuleRuntimeError

    try:
        return call(*args)
    except RuleRuntimeError as exc:
        raise ZooError(f"rule error: {exc}") from None


_FEEDBACK = {4: "denied: that piece cannot go to that bucket now", 7: "immovable: that piece cannot move now",
             3: "that cell is empty", -3: "no such cell", -2: "no such bucket (0..3)"}


def _ask(console, prompt: str) -> str | None:
    console.print(prompt, end="")
    line = sys.stdin.readline()
    return line if line else None


def _summary(console, moves: int, errors: int) -> None:
    console.print(f"\n{moves} moves, {errors} errors")


def _register_web_commands() -> None:
    from .web.commands import human_runs, serve

    gohr_app.command("serve")(serve)
    gohr_app.command("human-runs")(human_runs)


_register_web_commands()
