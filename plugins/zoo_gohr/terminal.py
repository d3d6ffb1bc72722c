"""GOHR in a terminal beyond the board itself: the legend of ``zoo gohr play``, play kept in a transcript
store (``--store``), and watching a trained agent play (``zoo gohr play RULE --agent RUN``).

An agent is watched through its own evaluation: the run's agent is rebuilt from its resolved spec,
restored from trial 0's last checkpoint with its own ``load``, and asked to ``evaluate`` a few
episodes on an env that prints every move. Any agent with an evaluation mode can be watched, and
nothing it learned is changed.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import gymnasium

from zoo import Agent, RunFolder, ZooError, build_trial, get_registry, iter_checkpoints, load_run_spec

from .display import INITIALS, STYLES, SYMBOLS, board_text
from .env import decode_action


def legend() -> str:
    """What the board's symbols mean (rich markup)."""
    shapes = "  ".join(f"{symbol} {shape.lower()}" for shape, symbol in SYMBOLS.items())
    colors = "  ".join(f"[{STYLES[color]}]{initial}[/] {color.lower()}" for color, initial in INITIALS.items())
    return (f"shapes: {shapes}\ncolors: {colors}\n"
            "a piece reads SHAPE COLOR CELL, e.g. ★R14: a red star in cell 14 (cells 1 bottom-left .. 36 top-right)\n"
            "buckets: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left; a move the rule allows takes the "
            "piece off the board, any other leaves it there and counts as an error")


def play_into_store(console, ask, rule: str, *, store: Path, player: str, boards: int, pieces: int, seed: int,
                    max_moves: int) -> tuple[int, int]:
    """Play `boards` boards of `rule` as `player`, every move kept in the transcript store `store` exactly as
    ``zoo gohr serve`` keeps it (so a leaderboard scores the boards as agent ``human``); a player who quits and
    comes back with the same store and id continues where they were. Returns (moves, errors) of this sitting."""
    from .engine.constants import CELLS
    from .web.experiment import rule_list
    from .web.session import BadMove, NotStored, PlayerSession
    from .web.store import TranscriptStore, valid_player

    if not valid_player(player):
        raise ZooError(f"--player {player!r}: a player id is 1 to 64 letters, digits, '.', '_' or '-'")
    stages = rule_list([f"{rule} {boards}"], boards=boards, pieces=pieces, max_moves=max_moves, where="RULE")
    transcripts = TranscriptStore(store)
    session = PlayerSession(player, stages, transcripts, {rule: transcripts.add_rule(rule)}, seed=seed)
    moves = errors = 0
    while not session.finished:
        try:
            if session.settle():
                console.print("[yellow]no piece could leave that board; it is kept as it was[/]")
                continue
        except NotStored as exc:
            raise ZooError(str(exc)) from None
        number = len(session.view()["history"]) + 1
        console.print(f"\n[bold]Board {session.episode + 1} of {boards}[/]")
        console.print(board_text(session.game, markup=True))
        line = ask(console, f"move {number}> ")
        if line is None or line.strip().lower() in ("q", "quit", "exit"):
            console.print(f"stopped; every move so far is kept in {store} (play again with --player {player} "
                          "to go on)")
            break
        parts = line.replace(",", " ").split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            console.print(f"[yellow]type a cell (1..{CELLS}) and a bucket (0..3), e.g. '14 2'[/]")
            continue
        cell, bucket = int(parts[0]), int(parts[1])
        piece = next((p.id for p in session.game.pieces() if p.pos == cell), None)
        if piece is None:
            console.print(f"[yellow]no piece in cell {cell}[/]")
            continue
        try:
            outcome = session.move(piece, bucket)
        except (BadMove, NotStored) as exc:
            console.print(f"[yellow]{exc}[/]")
            continue
        moves += 1
        errors += not outcome["accepted"]
        console.print("[green]accepted[/]" if outcome["accepted"] else "[red]not accepted[/]")
        if "board_over" in outcome:
            over = outcome["board_over"]
            console.print(f"board over after {over['moves']} moves, {over['errors']} errors; kept in {store}")
    return moves, errors


class Narrated(gymnasium.Wrapper):
    """Prints the board after every reset and move, and each move's verdict, pausing ``delay`` seconds."""

    def __init__(self, env, console, delay: float):
        super().__init__(env)
        self.console, self.delay = console, delay
        self.board = self.moves = self.errors = 0

    def reset(self, **kwargs):
        result = self.env.reset(**kwargs)
        self.moves, self.errors = 0, 0
        return result

    def step(self, action):
        if self.moves == 0:  # shown at the first move, so that a vector env's final auto-reset prints nothing
            self.board += 1
            self.console.print(f"\n[bold]Board {self.board}[/]")
            self.console.print(board_text(self.env.unwrapped.game, markup=True))
        cell, bucket = decode_action(int(action))
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.moves += 1
        self.errors += not info["accepted"]
        verdict = "[green]accepted[/]" if info["accepted"] else f"[red]{info['code_name'].lower()}[/]"
        self.console.print(f"move {self.moves}: cell {cell} to bucket {bucket}: {verdict}")
        if info["accepted"]:
            self.console.print(board_text(self.env.unwrapped.game, markup=True))
        if terminated or truncated:
            self.console.print(f"board {self.board} over after {self.moves} moves, {self.errors} errors")
        time.sleep(self.delay)
        return obs, reward, terminated, truncated, info


def watch_agent(run: Path, rule: str, *, boards: int, seed: int, delay: float, console) -> list[float]:
    """Let the agent of a GOHR run play `boards` boards of `rule`, narrated; returns the boards' returns."""
    registry = get_registry()
    folder = RunFolder(Path(run))
    folder.manifest()  # a clear error for anything that is not a run folder
    spec = load_run_spec(folder, registry)
    if spec.env.type != "gohr":
        raise ZooError(f"{run}: a run of env '{spec.env.type}', not of GOHR")
    entry = registry.get("agent", spec.agent.type)
    if entry.batched_trials:
        raise ZooError(f"{run}: agent '{spec.agent.type}' trains its trials in batches; only agents trained one trial "
                       "at a time can be watched")
    checkpoints = list(iter_checkpoints(folder.trial_dir(0) / "checkpoints"))
    if not checkpoints:
        raise ZooError(f"{run}: trial 0 has no checkpoint yet")
    spec = spec.model_copy(update={"env": spec.env.model_copy(update={"rule": rule})})
    with tempfile.TemporaryDirectory() as scratch:
        built = build_trial(spec, registry, seed=seed, trial=0, directory=Path(scratch))
        agent = built.agent
        try:
            if type(agent).evaluate is Agent.evaluate:
                raise ZooError(f"{run}: agent '{spec.agent.type}' has no evaluation mode to watch")
            agent.load(checkpoints[-1][1] / "agent")
            make_env = agent.context.make_env
            agent.context.make_env = lambda env_seed: Narrated(make_env(env_seed), console, delay)
            console.print(f"agent '{spec.agent.type}' of {folder.path.name} at its checkpoint "
                          f"{checkpoints[-1][1].name}, playing {rule}")
            return agent.evaluate(boards, seed)
        finally:
            agent.close()
            built.logger.close()
