"""Checkpoints of a trial (or a batch of trials): written aside and synced, then renamed into place; read back newest loadable first.

A checkpoint is a folder ``step-000000012000`` (or ``episode-...``) holding the agent's own files
under ``agent/``, the global random states (``rng.pt``), ``progress.json`` (each trial's steps, progress in
the budget's unit and, when given, how many metrics rows it had written and the step of the last) and, written last,
``COMPLETE``: a JSON list of every file with its size, so that a truncated file is named before
anything reads it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .agent import Agent, Progress
from .errors import ZooError
from .metrics import RowLedger
from .seeding import load_rng_state, save_rng_state
from .store import atomic_write_json, fsync_path, iter_checkpoints, make_temp_dir, read_json

COMPLETE = "COMPLETE"
PROGRESS = "progress.json"

log = logging.getLogger("zoo")
T = TypeVar("T")  # something with an `agent` and a `close()`


class DamagedCheckpoint(Exception):
    """A checkpoint that cannot be loaded; the message names the checkpoint and what is wrong."""


@dataclass(frozen=True)
class Checkpoint:
    """A complete checkpoint folder and the per-trial progress it records."""

    path: Path
    steps: list[int]
    cpu_seconds: float = 0.0  # spent on the trials until this checkpoint (0 in checkpoints of older zoo versions)
    wall_seconds: float = 0.0

    @property
    def agent_dir(self) -> Path:
        return self.path / "agent"


def save_checkpoint(agent: Agent, root: Path, *, keep: int, progress: Progress | None = None,
                    ledgers: list[RowLedger] | None = None) -> Path:
    """Write a checkpoint aside, sync it, mark it complete, rename it into place, and prune old ones.

    `ledgers`, one per trial, record the metrics rows each trial had written (see `zoo.integrity`).
    """
    progress = progress or Progress(agent, "steps", batched=False)
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"{progress.unit[:-1]}-{progress.least():012d}"
    staging = make_temp_dir(root, prefix=".ckpt-")
    try:
        (staging / "agent").mkdir()
        agent.save(staging / "agent")
        save_rng_state(staging)
        record = {"steps": progress.steps(), "done": progress.per_trial(),
                  "cpu_seconds": progress.cpu_seconds(), "wall_seconds": progress.wall_seconds()}
        if ledgers is not None:
            record.update(rows=[ledger.rows for ledger in ledgers], last_steps=[ledger.last_step for ledger in ledgers])
        atomic_write_json(staging / PROGRESS, record)
        sizes = _sync_tree(staging)
        (staging / COMPLETE).write_text(json.dumps(sizes, sort_keys=True))
        fsync_path(staging / COMPLETE)
        fsync_path(staging)
        if final.exists():
            shutil.rmtree(final)
        os.rename(staging, final)
        fsync_path(root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    for _, old in list(iter_checkpoints(root))[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _sync_tree(folder: Path) -> dict[str, int]:
    """fsync every file and sub-folder below `folder`; returns {relative path: size}."""
    sizes = {}
    for path in sorted(folder.rglob("*")):
        fsync_path(path)
        if path.is_file():
            sizes[path.relative_to(folder).as_posix()] = path.stat().st_size
    return sizes


def remove_torn(root: Path) -> None:
    """Delete staging folders left by a process killed while it was checkpointing."""
    for torn in root.glob(".ckpt-*.tmp"):
        shutil.rmtree(torn, ignore_errors=True)


def newest_first(root: Path) -> Iterator[Checkpoint]:
    """The complete checkpoints under `root`, newest first; damaged ones are skipped with a warning naming them."""
    for _, path in reversed(list(iter_checkpoints(root))):
        try:
            verify(path)
            recorded = read_json(path / PROGRESS)
            steps = recorded["steps"]
            seconds = (float(recorded.get("cpu_seconds", 0.0)), float(recorded.get("wall_seconds", 0.0)))
        except DamagedCheckpoint as exc:
            log.warning("%s; trying an older checkpoint", exc)
            continue
        except (OSError, ValueError, KeyError, TypeError, ZooError) as exc:
            log.warning("checkpoint %s is damaged (%s: %s); trying an older checkpoint", path, PROGRESS, describe(exc))
            continue
        yield Checkpoint(path, steps, *seconds)


def verify(path: Path) -> None:
    """Check that every file listed in ``COMPLETE`` is there with its size (checkpoints of older zoo versions list none)."""
    try:
        sizes = json.loads((path / COMPLETE).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise DamagedCheckpoint(f"checkpoint {path} is damaged ({COMPLETE}: {describe(exc)})") from None
    except json.JSONDecodeError:
        return  # a timestamp: written before COMPLETE listed the files
    if not isinstance(sizes, dict):
        return
    for name, size in sizes.items():
        try:
            found = (path / name).stat().st_size
        except OSError:
            raise DamagedCheckpoint(f"checkpoint {path} is damaged ({name} is missing)") from None
        if found != size:
            raise DamagedCheckpoint(f"checkpoint {path} is damaged ({name} has {found} bytes, {size} were written)")


def restore(agent: Agent, checkpoint: Checkpoint) -> None:
    """Load the agent's state and the global random states; a failure is a DamagedCheckpoint naming the folder."""
    try:
        with warnings.catch_warnings():  # torch's about unpickling reaches no user: the file is reported as damaged
            warnings.simplefilter("ignore")
            agent.load(checkpoint.agent_dir)
            load_rng_state(checkpoint.path)
    except Exception as exc:
        raise DamagedCheckpoint(f"checkpoint {checkpoint.path} could not be loaded ({describe(exc)})") from None


def describe(exc: BaseException) -> str:
    """One line about a load error, without torch's advice to unpickle untrusted files."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if "weights_only" in str(exc) or "Weights only load failed" in text:
        text = "not a tensors-only file"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_newest(root: Path, build: Callable[[Checkpoint | None], T]) -> tuple[T, Checkpoint | None]:
    """Build a trainee with `build` and restore its agent from the newest loadable checkpoint under `root`.

    A checkpoint that fails to load is reported and the next older one is tried, each with a freshly
    built trainee (a failed load may leave an agent half-restored); with none loadable it starts anew,
    with the unloadable checkpoints set aside.
    """
    for checkpoint in newest_first(root):
        trainee = build(checkpoint)
        try:
            restore(trainee.agent, checkpoint)
        except DamagedCheckpoint as exc:
            trainee.close()
            log.warning("%s; trying an older checkpoint", exc)
            continue
        return trainee, checkpoint
    unloadable = [path for _, path in iter_checkpoints(root)]
    if unloadable:
        set_aside(unloadable)
        log.warning("no checkpoint in %s could be loaded; training starts from the beginning (the checkpoints were "
                    "renamed unloadable-*)", root)
    return build(None), None


def set_aside(checkpoints: list[Path]) -> None:
    """Rename checkpoints that cannot be loaded to ``unloadable-<name>``, kept for inspection.

    Left in place, the newest of them would outrank every checkpoint of the fresh start: pruning would
    delete the new ones, and the next resume would compare the metrics rows with the old one's count.
    """
    for path in checkpoints:
        target = path.with_name(f"unloadable-{path.name}")
        if target.exists():
            shutil.rmtree(target)
        os.rename(path, target)
    fsync_path(checkpoints[0].parent)
