"""Human transcripts as zoo runs of the agent ``human``, so that reports and leaderboards score people
as they score agents.

Each rule (with its board settings) of a store becomes one run folder: a trial per player, an
episode per board, in the order played, with ``episode_return`` = minus the errors (moves not
accepted), which is what the GOHR reporter reads as errors to build cumulative-error curves and TCE.
Leaderboards write the run folders of their ``human`` cells with :func:`write_human_run` too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

import yaml

from zoo import MANIFEST, RunFolder, ZooError, now

from .recorded import HUMAN, metrics_rows
from .store import TranscriptStore


def _board_block(board_args: tuple[str, ...]) -> dict[str, int]:
    (o1, o2), (s1, s2), (c1, c2) = (tuple(int(v) for v in arg.split(":")) for arg in board_args)
    return {"min_objects": o1, "max_objects": o2, "min_shapes": s1, "max_shapes": s2,
            "min_colors": c1, "max_colors": c2}


def human_runs(store: TranscriptStore, runs_dir: Path) -> list[RunFolder]:
    """Write one run folder of agent ``human`` per rule, board setting and board cut (``max_moves``, 0 where
    older transcripts did not record it) of the store, practice boards left out; returns them."""
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for record in store.episodes():
        if record.get("practice"):
            continue
        key = (record["rule"], tuple(record["cgs_args"][1:4]), record.get("max_moves", 0))
        groups.setdefault(key, {}).setdefault(record["player"], []).append(record)
    if not groups:
        raise ZooError(f"{store.root}: no finished episodes to turn into runs")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return [_write_run(Path(runs_dir) / f"{HUMAN}-{_slug(rule)}-{number}-{stamp}", rule, board, cut, players,
                       store.root)
            for number, ((rule, board, cut), players) in enumerate(sorted(groups.items()))]


def _slug(rule: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", rule).strip("_")


def _write_run(target: Path, rule: str, board_args: tuple[str, ...], cut: int, players: dict[str, list[dict]],
               source: Path) -> RunFolder:
    names = sorted(players)
    env = {"type": "gohr", "rule": rule, "board": _board_block(board_args), **({"horizon": cut} if cut else {})}
    spec = {"name": f"{HUMAN}-{rule}", "env": env,
            "agent": {"type": HUMAN, "recorded": str(Path(source).resolve()), "players": names},
            "budget": {"episodes": max(len(players[p]) for p in names)}, "trials": len(names)}
    return write_human_run(target, spec, players)


def write_human_run(target: Path, spec: dict, players: dict[str, list[dict]]) -> RunFolder:
    """A finished run folder of agent ``human`` with `spec` (plain data), a trial per player of `players`
    (player -> their boards in order), built aside and renamed into place (all or nothing)."""
    names = sorted(players)
    unit = "steps" if spec["budget"].get("steps") is not None else "episodes"
    manifest = {"id": target.name, "name": spec["name"], "env": "gohr", "agent": HUMAN, "meta_controller": None,
                "trials": len(names), "steps": spec["budget"][unit], "unit": unit, "seeds": list(range(len(names))),
                "status": "finished", "created": now(), "updated": now(), "players": names,
                "source": spec["agent"]["recorded"]}
    if target.exists():
        raise ZooError(f"{target}: run folder already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
    try:
        (staging / "spec.yaml").write_text(yaml.safe_dump({**spec, "trials": len(names)}, sort_keys=False),
                                           encoding="utf-8")
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        for trial, player in enumerate(names):
            rows = metrics_rows(sorted(players[player], key=lambda r: (r["stage"], r["episode"])))
            trial_dir = staging / "trials" / f"{trial:03d}"
            trial_dir.mkdir(parents=True)
            (trial_dir / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
            (trial_dir / "result.json").write_text(json.dumps({"player": player, "episodes": len(rows)}) + "\n",
                                                   encoding="utf-8")
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return RunFolder(target)
