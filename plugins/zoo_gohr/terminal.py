"""GOHR in a terminal beyond the board itself: the legend of ``zoo gohr play``, and watching a trained
agent play (``zoo gohr play RULE --agent RUN``).

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

from zoo.errors import ZooError

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
    from zoo.agent import Agent
    from zoo.registry import get_registry
    from zoo.run import build_trial, load_run_spec
    from zoo.store import RunFolder, iter_checkpoints

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
        built = build_trial(spec, registry, seed=seed, trial=0, directory=Path(scratch), tensorboard=False)
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
