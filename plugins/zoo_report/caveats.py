"""Every report says what its numbers do not cover: each run's caveats (unfinished, lost metrics rows),
on stderr, at the top of each Markdown file and in each JSON summary the report wrote.

`unfinished` and `caveats` are this plugin's API; the GOHR leaderboard states them too."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from zoo import RunFolder, atomic_write_text, lost_row_notes, trial_progress

log = logging.getLogger("zoo")


def unfinished(folder: RunFolder) -> str | None:
    """``run X is interrupted, not finished: trial 0 at 60 of 120 episodes, ...``; None for a finished run."""
    manifest = folder.manifest()
    status = manifest["status"]
    if status == "finished":
        return None
    unit, amount = manifest.get("unit", "steps"), manifest.get("steps")
    trials = []
    for trial in range(int(manifest.get("trials") or 0)):
        done, final = trial_progress(folder, trial)
        trials.append(f"trial {trial} at {done} of {amount} {unit}" + ("" if final else " (its last checkpoint)"))
    error = f" ({manifest['error']})" if status == "failed" and manifest.get("error") else ""
    return f"run {manifest['id']} is {status}{error}, not finished: " + ", ".join(trials)


def caveats(folder: RunFolder) -> list[str]:
    """Everything a report of `folder` must say beside its numbers: that it is unfinished, and its lost rows
    (`zoo.lost_row_notes`, which records those noticed for the first time in ``run.json``)."""
    return [note for note in [unfinished(folder)] if note] + lost_row_notes(folder)


def annotate_report(written: list[Path], runs: list[RunFolder]) -> None:
    """Say each run's caveats on stderr, at the top of every Markdown file of its report and in every JSON summary."""
    notes = {run.manifest()["id"]: lines for run in runs if (lines := caveats(run))}
    for lines in notes.values():
        for line in lines:
            log.warning("%s", line)
    if not notes:
        return
    for path in written:
        if path.suffix == ".md":
            _prepend_markdown(path, [line for lines in notes.values() for line in lines])
        elif path.suffix == ".json":
            _add_to_json(path, notes)


def _prepend_markdown(path: Path, lines: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    title, rest = (text.split("\n", 1) + [""])[:2] if text.startswith("# ") else ("", text)
    block = "> **Not final.** These figures do not cover everything a finished run would:\n>\n" + "".join(
        f"> - {line}\n" for line in lines)
    atomic_write_text(path, (f"{title}\n\n" if title else "") + block + "\n" + rest.lstrip("\n"))


def _add_to_json(path: Path, notes: dict[str, list[str]]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(document, dict):
        document["caveats"] = notes
    elif isinstance(document, list):
        for row in document:
            if isinstance(row, dict) and row.get("run") in notes:
                row["caveats"] = notes[row["run"]]
    atomic_write_text(path, json.dumps(document, indent=2) + "\n")
