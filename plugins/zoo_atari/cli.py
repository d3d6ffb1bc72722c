"""``zoo atari``: the game tables and the ALE paper's evaluation methodology as specs.

``zoo atari split-specs SPEC --split test --out DIR`` writes one spec per game of the ALE paper's
training (5) or test (50) split from a template spec, optionally at the paper's scale (5,000
training episodes, 500 evaluation episodes, 30 trials per game).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
import yaml

from zoo import ZooError, load_file

from .games import ale_split, atari57, display_name
from .protocols import PRESETS

atari_app = typer.Typer(no_args_is_help=True, help="Atari tools.")

PAPER_SCALE = {"budget": {"episodes": 5000, "eval_episodes": 500}, "trials": 30}


@atari_app.command()
def games() -> None:
    """The 57 standard games and the ALE paper's 55 with their train/test split."""
    split = ale_split()
    for rom in sorted(set(atari57()) | set(split)):
        marks = ("atari57" if rom in atari57() else "", f"ale2013:{split[rom]}" if rom in split else "")
        typer.echo(f"{display_name(rom):<20} {rom:<20} {' '.join(m for m in marks if m)}")


@atari_app.command()
def protocols() -> None:
    """Every setting of every named protocol (JSON)."""
    typer.echo(json.dumps(PRESETS, indent=2))


@atari_app.command("split-specs")
def split_specs(
    template: Path = typer.Argument(..., help="A spec with an atari env block; its game is replaced."),
    split: str = typer.Option("test", help="train or test: the ALE paper's 5 training or 50 test games."),
    out: Path = typer.Option(..., "--out", help="Folder for the specs (one per game)."),
    paper_scale: bool = typer.Option(False, "--paper-scale", help="5,000 + 500 episodes and 30 trials per game."),
) -> None:
    """Write one spec per game of a split of the ALE paper's methodology."""
    if split not in ("train", "test"):
        raise ZooError(f"--split is 'train' or 'test', not '{split}'")
    spec = load_file(template).data  # the spec loader's bounds and positioned errors
    if not isinstance(spec, dict) or not isinstance(spec.get("env"), dict) or spec["env"].get("type") != "atari":
        raise ZooError(f"{template}: the template needs an env block of type atari")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ZooError(f"{out}: cannot create the folder for the specs: {exc.strerror}") from None
    chosen = [game for game, s in ale_split().items() if s == split]
    for game in chosen:
        document = {**spec, "name": f"{spec.get('name', template.stem)}-{game}", "env": {**spec["env"], "game": game}}
        if paper_scale:
            document.update(PAPER_SCALE)
        (out / f"{game}.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    typer.echo(f"wrote {len(chosen)} specs ({split} games) to {out}")
